"""Numbers in tables: three significant digits, never a row of zeros."""

from __future__ import annotations

import pytest

from benchop_hook.records.baseline import fmt_value
from benchop_hook.report.digits import rounded_away, significant
from benchop_hook.run.measurements import Number, from_text, table


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (0.0034567, "0.00346"),
        (18.59, "18.6"),
        (0.001, "0.001"),
        (123.4, "123"),
        (4667.2, "4667"),
        (1234567.0, "1.23e+06"),
        (0.00001234, "1.23e-05"),
        (0.0, "0"),
        (-0.5, "-0.5"),
    ],
)
def test_three_significant_digits(value: float, shown: str) -> None:
    assert significant(value) == shown


def test_a_value_rounded_to_zero_is_shown_as_its_bound() -> None:
    assert rounded_away("0.0000") == "<0.0001" and rounded_away("0.00") == "<0.01"
    assert rounded_away("0") == "<1"
    assert Number("c", "tflops", 0.0, "TFLOPS", text="0.0000").render() == "<0.0001 TFLOPS"


def test_no_table_cell_is_a_row_of_zeros() -> None:
    numbers = from_text("case", "latency: 0.0035 ms, 0.0000 TFLOPS, 0.0000123 TB/s")
    rows = table(numbers)
    assert "0.0000 " not in "\n".join(rows), rows
    assert rows[1].split()[1:] == ["0.0035", "ms", "<0.0001", "TFLOPS", "1.23e-05", "TB/s"], rows
    assert fmt_value(0.000004, "ms") == "4.00e-06 ms" and fmt_value(None, "ms") == "-"
