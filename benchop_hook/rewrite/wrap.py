"""The project's own line length: a rewritten call that no longer fits is wrapped the way the file already
wraps calls, within `line-length` from the repository's ruff or black configuration (88 when neither says).

Pure text in, text out; `rewrite.py` turns the wrapped text back into a libcst node.
"""

from __future__ import annotations

import os
import re
import sys
from typing import Any, Literal

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

DEFAULT = 88  # black's and ruff's own default
Style = Literal["hanging", "visual"]


def _read_toml(path: str) -> dict[str, Any]:
    try:
        with open(path, "rb") as f:
            return tomllib.loads(f.read().decode("utf-8-sig"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return {}


def _positive_int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def project_line_length(root: str) -> int:
    """ruff.toml / .ruff.toml, then pyproject's [tool.ruff], then [tool.black]; 88 when none says."""
    for name in ("ruff.toml", ".ruff.toml"):
        n = _positive_int(_read_toml(os.path.join(root, name)).get("line-length"))
        if n:
            return n
    tool = _read_toml(os.path.join(root, "pyproject.toml")).get("tool", {})
    if isinstance(tool, dict):
        for key in ("ruff", "black"):
            table = tool.get(key)
            n = _positive_int(table.get("line-length")) if isinstance(table, dict) else None
            if n:
                return n
    return DEFAULT


_HANGING_CLOSE = re.compile(r"^[ \t]*\)", re.M)
_VISUAL = re.compile(r"\w\((?=[^)\n]*,[ \t]*\n)")


def file_style(source: str) -> Style:
    """How the file already wraps calls: a hanging indent with the `)` on a line of its own (black, ruff
    format), or continuation lines aligned with the opening parenthesis."""
    hanging = len(_HANGING_CLOSE.findall(source))
    visual = len(_VISUAL.findall(source))
    return "visual" if visual > hanging else "hanging"


def wrap_call(
    func: str,
    args: list[str],
    *,
    column: int,
    suffix: str,
    limit: int,
    style: Style,
    line_indent: str,
    block: int,
    step: str = "    ",
) -> str | None:
    """The call `func(args)` laid out over several lines. It starts at `column` of a line indented by
    `line_indent` and is followed by `suffix` there. libcst puts the enclosing block's indentation (`block`
    columns) before each continuation line, so the text returned is indented relative to it. None when
    the call fits as it is, or wrapping can't help."""
    one = f"{func}({', '.join(args)})"
    if column + len(one) + len(suffix) <= limit or not args or "\n" in one:
        return None
    rel = line_indent[block:] if len(line_indent) >= block else ""
    if style == "visual":
        width = column + len(func) + 1
        lines, cur = [], ""
        for a in args:
            if cur and width + len(cur) + len(a) + 1 > limit:
                lines.append(cur.rstrip())
                cur = ""
            cur += f"{a}, "
        lines.append(cur.rstrip().rstrip(","))
        last = width + len(lines[-1]) + 1 + len(suffix)
        if len(lines) > 1 and last <= limit and all(width + len(ln) <= limit for ln in lines):
            return f"{func}(" + ("\n" + " " * (width - block)).join(lines) + ")"
        # too long even so: the hanging layout
    joined = ", ".join(args)
    if len(line_indent) + len(step) + len(joined) <= limit:
        return f"{func}(\n{rel}{step}{joined}\n{rel})"
    return f"{func}(\n" + "".join(f"{rel}{step}{a},\n" for a in args) + f"{rel})"
