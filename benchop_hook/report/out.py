"""Writing a report to a path, or to standard output for `-`. Light on purpose: the no-op path uses it."""

from __future__ import annotations

import json
import os
import sys
from typing import Any, TextIO

# Where `-` writes: the real standard output. With `--json -` the command's own lines go to stderr
# (`cli.main`), so that what comes out on stdout is the JSON alone.
stdout: TextIO | None = None


def write_json(path: str, data: dict[str, Any]) -> None:
    if path == "-":
        out = stdout or sys.stdout
        json.dump(data, out, indent=2, sort_keys=False)
        out.write("\n")
        out.flush()
        return
    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=2, sort_keys=False)
        f.write("\n")
    os.replace(tmp, path)
