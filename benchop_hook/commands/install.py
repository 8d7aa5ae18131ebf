"""`bench-op install` / `uninstall`: plain git post-commit, post-merge and post-rewrite hooks, no pre-commit
needed.

Respects `core.hooksPath`; a hook the user already has is kept and chained to
(renamed `<hook>.before-bench-op`, run after bench-op), and put back on uninstall.
"""

from __future__ import annotations

import os
import stat
import sys

from benchop_hook.commands.options import Options
from benchop_hook.errors import EXIT_OK, BenchOpError
from benchop_hook.git import repo as gitrepo

HOOKS = ("post-commit", "post-merge", "post-rewrite")
MARKER = "# bench-op hook:"
CHAINED = ".before-bench-op"


def script(name: str, python: str = "") -> str:
    """The hook script; the copies in the repository's hooks/ folder are this with python=''."""
    call, keep, feed = name, "", ""
    if name == "post-rewrite":
        # Its argument says rebase or amend; the rewritten commits come on stdin, kept for the hook chained
        # after.
        call = f'{name} --rewrite-command "$1" </dev/null'
        keep = 'rewritten="$(cat)"\n'
        feed = 'printf "%s\\n" "$rewritten" | '
    return f"""#!/bin/sh
{MARKER} {name} (put here by `bench-op install`; `bench-op uninstall` removes it)
# Runs bench-op's follow-up, then the {name} hook that was here before, if any.
BENCH_OP_PYTHON="{python}"
here="$(dirname "$0")"
status=0
{keep}if [ -z "$BENCH_OP_FOLLOW_UP" ]; then
    if [ -n "$BENCH_OP_PYTHON" ] && [ -x "$BENCH_OP_PYTHON" ]; then
        "$BENCH_OP_PYTHON" -m benchop_hook hook {call} || status=$?
    elif command -v bench-op >/dev/null 2>&1; then
        bench-op hook {call} || status=$?
    else
        echo "bench-op: not found; reinstall it, or remove this hook with 'bench-op uninstall'" >&2
    fi
fi
if [ -x "$here/{name}{CHAINED}" ]; then
    {feed}"$here/{name}{CHAINED}" "$@" || status=$?
fi
exit $status
"""


def hooks_dir(root: str) -> str:
    return gitrepo.hooks_path(root)


def _ours(path: str) -> bool:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return MARKER in f.read(4096)
    except OSError:
        return False


def install(opts: Options) -> int:
    repo = gitrepo.find_repo(opts.directory)
    folder = hooks_dir(repo.root)
    os.makedirs(folder, exist_ok=True)
    done = []
    for name in HOOKS:
        path = os.path.join(folder, name)
        chained = path + CHAINED
        if os.path.lexists(path) and not _ours(path):
            if os.path.lexists(chained):
                raise BenchOpError(
                    f"both {path} and {chained} exist: merge them by hand, then run bench-op install again."
                )
            os.rename(path, chained)
            done.append(f"{name} (your existing hook now runs after it, as {os.path.basename(chained)})")
        else:
            done.append(name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(script(name, sys.executable))
        os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    print(f"bench-op: installed {', '.join(done)} in {os.path.relpath(folder, repo.root)}.")
    if any(_generated_by_pre_commit(os.path.join(folder, n + CHAINED)) for n in HOOKS):
        print(
            "bench-op: you also use pre-commit for these hooks; adding bench-op-follow-up to "
            ".pre-commit-config.yaml is the other way."
        )
    return EXIT_OK


def _generated_by_pre_commit(path: str) -> bool:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return "pre-commit" in f.read(2048)
    except OSError:
        return False


def uninstall(opts: Options) -> int:
    repo = gitrepo.find_repo(opts.directory)
    folder = hooks_dir(repo.root)
    done = []
    for name in HOOKS:
        path = os.path.join(folder, name)
        chained = path + CHAINED
        if os.path.lexists(path) and _ours(path):
            os.unlink(path)
            if os.path.lexists(chained):
                os.rename(chained, path)
                done.append(f"{name} (your previous hook is back)")
            else:
                done.append(name)
    print(f"bench-op: removed {', '.join(done)}." if done else "bench-op: no bench-op hook was installed.")
    return EXIT_OK


def follow_up_installed(root: str) -> bool:
    """Whether a follow-up stage runs after commits here: a hook `bench-op install` wrote, or one pre-commit
    installed for a config that lists bench-op-follow-up."""
    folder = hooks_dir(root)
    config = _text(os.path.join(root, ".pre-commit-config.yaml"))
    for name in HOOKS:
        text = _text(os.path.join(folder, name))
        if MARKER in text or ("pre-commit" in text and "bench-op-follow-up" in config):
            return True
    return False


def _text(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read(65536)
    except OSError:
        return ""
