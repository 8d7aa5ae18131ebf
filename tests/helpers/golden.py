"""Golden files: a rendering compared byte for byte with the file that holds what it should be.

`BENCHOP_UPDATE_GOLDEN=1 pytest ...` writes the files instead; review their diff before committing it."""

from __future__ import annotations

import os
from pathlib import Path

GOLDEN = Path(__file__).resolve().parent.parent / "report" / "golden"


def assert_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("BENCHOP_UPDATE_GOLDEN"):
        path.write_text(text, encoding="utf-8")
    expected = path.read_text(encoding="utf-8")
    assert text == expected, f"{name} differs from the golden file (BENCHOP_UPDATE_GOLDEN=1 rewrites it)"
