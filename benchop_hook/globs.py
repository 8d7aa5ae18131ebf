"""Repository-relative glob patterns with `**`, compiled once.

`**` matches any number of whole path segments (including none), `*` and `?`
stay inside one segment, `[...]` is a character class. Paths use `/`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable


@functools.cache
def _compile(pattern: str) -> re.Pattern[str]:
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "*":
            if pattern.startswith("**", i):
                # `**/` = zero or more directories; a trailing `**` = anything below.
                if pattern.startswith("**/", i):
                    out.append("(?:[^/]+/)*")
                    i += 3
                else:
                    out.append(".*")
                    i += 2
                continue
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            j = pattern.find("]", i + 1)
            if j == -1:
                out.append(re.escape(c))
            else:
                body = pattern[i + 1 : j]
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append(f"[{body}]")
                i = j
        else:
            out.append(re.escape(c))
        i += 1
    return re.compile("".join(out) + r"\Z")


def matches(path: str, patterns: Iterable[str]) -> bool:
    """True when the repo-relative `path` matches any of `patterns`."""
    return any(_compile(p).match(path) for p in patterns)


def escapes_repo(pattern: str) -> bool:
    """A pattern that could name a file outside the repository."""
    if pattern.startswith(("/", "\\", "~")) or re.match(r"^[A-Za-z]:", pattern):
        return True
    return any(part == ".." for part in re.split(r"[/\\]", pattern))
