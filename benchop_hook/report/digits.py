"""Numbers in tables: three significant digits, never a row of zeros.

A kernel's TFLOPS or a tiny latency printed with a fixed number of decimals reads "0.0000": that says nothing
was measured. Light on purpose: the run's tables and the reports read back from JSON both use it.
"""

from __future__ import annotations


def significant(v: float) -> str:
    """`v` to three significant digits: 0.00346, 18.6, 4667 (whole units from 100 on), 1.23e+06, and
    scientific below 0.001 (1.23e-05), where decimals would be mostly zeros."""
    if v == 0:
        return "0"
    a = abs(v)
    if a >= 1e6 or a < 1e-3:
        return f"{v:.2e}"
    if a >= 100:
        return f"{v:.0f}"
    return f"{v:.3g}"


def rounded_away(text: str) -> str:
    """What a benchmark that rounded a value to zero wrote ('0.0000'), as the bound it tells: '<0.0001'."""
    decimals = len(text.partition(".")[2])
    return f"<{10.0**-decimals:.{decimals}f}" if decimals else "<1"
