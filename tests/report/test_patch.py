"""The `--diff` patch, taken by `git apply` as it is printed."""

from __future__ import annotations

import subprocess
from pathlib import Path

from benchop_hook.report.text import unified_diff


def test_a_last_line_without_a_newline_is_marked_and_the_patch_applies(tmp_path: Path) -> None:
    # hqq 804a46e: the rewritten call on a last line with no newline; the `-` and `+` lines ran together into
    # one, and `git apply` rejected the patch as corrupt.
    before = b'gen = Gen("m")\nout = gen.run("hi", max_new_tokens=1000)'
    after = b'gen = Gen("m")\nout = gen.run("hi")'
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "bench.py").write_bytes(before)
    patch = unified_diff("bench.py", before, after)
    assert "\\ No newline at end of file" in patch
    (tmp_path / "p.patch").write_text(patch)
    subprocess.run(["git", "apply", "p.patch"], cwd=tmp_path, check=True)
    assert (tmp_path / "bench.py").read_bytes() == after
