"""`bench-op`: argument parsing, flat dispatch, and the one top-level error handler.

Kept light on purpose: the path a commit takes when it touches no Op imports
neither libcst nor GitPython nor torch.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from benchop_hook import __version__
from benchop_hook.commands.options import Options
from benchop_hook.errors import EXIT_BUG, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, BenchOpError, UsageError

if TYPE_CHECKING:
    _SubParsers = argparse._SubParsersAction[argparse.ArgumentParser]


def _add_target(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("what to compare (default: staged changes, HEAD vs the index)")
    g.add_argument(
        "--staged",
        action="store_true",
        help="HEAD vs the index (the default when no range is given or set by pre-commit)",
    )
    g.add_argument(
        "--from-ref", metavar="REF", help="compare REF..TO-REF (also read from PRE_COMMIT_FROM_REF)"
    )
    g.add_argument("--to-ref", metavar="REF", help="end of the range (also read from PRE_COMMIT_TO_REF)")
    g.add_argument(
        "--all-files",
        action="store_true",
        help="no diff: check every benchmark against the current signatures",
    )
    p.add_argument("--json", metavar="PATH", help="also write the report as JSON to PATH")
    _add_ci_output(p)
    p.add_argument("-q", "--quiet", action="store_true", help="print nothing when there is nothing to do")
    p.add_argument("files", nargs="*", metavar="FILE", help="only these benchmark files (a shard)")


def _add_ci_output(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--format",
        choices=["text", "github"],
        default="text",
        help="github: each finding as a GitHub Actions annotation (the exit code is the same)",
    )
    p.add_argument(
        "--summary",
        metavar="PATH",
        help="also write a Markdown summary to PATH (with --format github: $GITHUB_STEP_SUMMARY)",
    )


def _add_run_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--no-run", action="store_true", help="static rewrite only, run no benchmark")
    p.add_argument("--no-commit", action="store_true", help="never make the follow-up commit")
    p.add_argument("--python", metavar="PATH", help="interpreter that runs the benchmarks")
    p.add_argument(
        "--timeout", type=float, metavar="SECONDS", help="per benchmark file (default: config, 1800)"
    )
    p.add_argument("--max-iterations", type=int, metavar="N", help="repair attempts per file (default 3)")
    p.add_argument(
        "--gpus",
        metavar="all|N|0,2,5",
        help="spread benchmark files over these GPUs (default: [tool.bench-op] gpus, 'all')",
    )
    # compare with the parent
    p.add_argument(
        "--baseline",
        action="store_true",
        help="compare the numbers with the parent's (git notes, or a run there)",
    )
    p.add_argument(
        "--repeats",
        type=int,
        metavar="N",
        help="runs per side when both run now (default: [tool.bench-op] baseline-repeats, 3)",
    )
    p.add_argument(
        "--agent",
        metavar="CMD",
        help="hand what bench-op could not fix to this coding agent (default: git config bench-op.agent)",
    )
    p.add_argument("--no-agent", action="store_true", help="no coding agent for this run")


class _Formatter(argparse.HelpFormatter):
    """argparse's formatter, minus its `import shutil` (which pulls in bz2 and lzma: about 4 ms) for the
    terminal width: argparse builds a formatter at every `add_argument`, and the no-op hook builds a parser
    on every commit without ever printing help."""

    def __init__(
        self, prog: str, indent_increment: int = 2, max_help_position: int = 24, width: int | None = None
    ) -> None:
        super().__init__(
            prog, indent_increment, max_help_position, _columns() - 2 if width is None else width
        )


def _columns() -> int:
    """What `shutil.get_terminal_size().columns` says: $COLUMNS, else the terminal's width, else 80."""
    with contextlib.suppress(KeyError, ValueError):
        return int(os.environ["COLUMNS"])
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]  # None: caught below
    except (AttributeError, ValueError, OSError):
        return 80


def _add(sub: _SubParsers, name: str, help: str, description: str = "") -> argparse.ArgumentParser:
    """A subcommand whose `--help` opens with what it does: the one-line `help` of the command list, and
    `description` after it when there is more to say."""
    text = help[0].upper() + help[1:] + "." + (f" {description}" if description else "")
    # allow_abbrev=False: `--all-file` or `--gpu 1` is an error, not a guess at what was meant
    return sub.add_parser(name, help=help, description=text, formatter_class=_Formatter, allow_abbrev=False)


def _check(sub: _SubParsers) -> None:
    _add_target(
        _add(
            sub, "check", help="report Op signature changes and the benchmark calls they break; write nothing"
        )
    )


def _fix(sub: _SubParsers) -> None:
    p = _add(sub, "fix", help="rewrite the broken benchmark calls in the working tree")
    _add_target(p)
    p.add_argument("--diff", action="store_true", help="print the unified diff instead of writing")


def _run(sub: _SubParsers) -> None:
    p = _add(sub, "run", help="rewrite, run the affected benchmarks, repair until they print numbers, commit")
    _add_target(p)
    _add_run_options(p)
    p.add_argument(
        "--shard",
        dest="shard_spec",
        metavar="I/N",
        help="run only shard I of N of the affected benchmark files (the same split on every runner); "
        "never commits: `bench-op merge` combines the shards' --json reports",
    )
    p.add_argument(
        "--op", metavar="NAME", help="only the benchmark calls of this Op class (and its successor)"
    )


def _merge(sub: _SubParsers) -> None:
    p = _add(sub, "merge", help="combine the JSON reports of `run --shard` into one report and one status")
    p.add_argument("reports", nargs="+", metavar="REPORT", help="the shards' `bench-op run --json` reports")
    p.add_argument("--json", metavar="PATH", help="write the merged report as JSON to PATH")
    p.add_argument("--patch", metavar="PATH", help="write every shard's fixes as one patch (`git apply` it)")
    _add_ci_output(p)


def _hook(sub: _SubParsers) -> None:
    p = _add(sub, "hook", help="what the git / pre-commit hooks call")
    p.add_argument("stage", choices=["pre-commit", "post-commit", "post-merge", "post-rewrite", "follow-up"])
    p.add_argument("--rewrite-command", help=argparse.SUPPRESS)  # post-rewrite's argument: rebase or amend
    p.add_argument(
        "--detached", nargs=2, metavar=("BASE", "COMMIT"), help=argparse.SUPPRESS
    )  # a background run
    p.add_argument("files", nargs="*", help=argparse.SUPPRESS)
    _add_run_options(p)
    p.add_argument("--json", metavar="PATH", help=argparse.SUPPRESS)


def _history(sub: _SubParsers) -> None:
    p = _add(sub, "history", help="a benchmark's recorded numbers across commits, newest first")
    p.add_argument(
        "what", nargs="?", metavar="FILE|NODEID", help="a benchmark file or a node id (default: all)"
    )
    p.add_argument(
        "--plot", metavar="PATH", help="also draw the trend as a PNG (needs matplotlib: bench-op[plot])"
    )
    p.add_argument("--device", help="only numbers from this device (default: every device)")
    p.add_argument(
        "-n", "--max-count", type=int, default=50, metavar="N", help="at most N commits (default 50)"
    )


def _status(sub: _SubParsers) -> None:
    _add(
        sub,
        "status",
        help="the background runs: the one going on, the last results, their logs",
        description="Background runs start after a commit when `background = true` is set in "
        "[tool.bench-op]; this lists the latest ones and where their logs are.",
    )


def _install(sub: _SubParsers) -> None:
    _add(
        sub,
        "install",
        help="install plain git post-commit, post-merge and post-rewrite hooks (no pre-commit needed)",
        description="They run `bench-op hook <stage>` after each commit, merge, rebase and amend. "
        "core.hooksPath is respected; a hook already there is kept, renamed <hook>.before-bench-op, and "
        "runs after bench-op's. `bench-op uninstall` puts it back.",
    )


def _uninstall(sub: _SubParsers) -> None:
    _add(
        sub,
        "uninstall",
        help="remove the hooks `bench-op install` put in place",
        description="Only hooks bench-op wrote are removed; a hook it had chained to is put back in its "
        "place. Hooks installed by pre-commit are left alone.",
    )


def _doctor(sub: _SubParsers) -> None:
    _add(
        sub,
        "doctor",
        help="what bench-op sees in this repository, and a one-line fix for each problem",
        description="The config and its keys, what each glob matches, the Op classes and benchmark files "
        "found, the interpreter that will run the benchmarks (torch, CUDA, pytest, GPUs) and why it "
        "was chosen, the hooks installed, and whether `bench-op` is on PATH. "
        "Exit 0: nothing wrong; 1: a problem was found.",
    )


_COMMANDS = {
    "check": _check,
    "fix": _fix,
    "run": _run,
    "merge": _merge,
    "hook": _hook,
    "history": _history,
    "status": _status,
    "install": _install,
    "uninstall": _uninstall,
    "doctor": _doctor,
}


def _command_in(argv: Sequence[str]) -> str | None:
    """The subcommand named in argv when it is a known one (the first positional, after `-C DIR`)."""
    word = _first_positional(argv)
    return word if word in _COMMANDS else None


def _first_positional(argv: Sequence[str]) -> str | None:
    """The first argument that is no option (the command), after `-C DIR`; None when an option such as
    `--help` comes first."""
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "-C":
            i += 2
            continue
        return None if a.startswith("-") else a
    return None


def _closest(word: str, known: Sequence[str]) -> str | None:
    import difflib

    close = difflib.get_close_matches(word, list(known), n=1, cutoff=0.6)
    return close[0] if close else None


def _unknown_command(argv: Sequence[str]) -> None:
    """A mistyped command is one line with the closest one (argparse would print its whole list)."""
    word = _first_positional(argv)
    if word is None or word in _COMMANDS:
        return
    close = _closest(word, list(_COMMANDS))
    hint = f"did you mean '{close}'?" if close else f"the commands are {', '.join(_COMMANDS)}."
    raise UsageError(f"unknown command '{word}'; {hint}")


def _unknown_options(command: str | None, parser: argparse.ArgumentParser, extra: Sequence[str]) -> None:
    """A mistyped option (`--all-file`) is one line with the closest option of its command."""
    known = [o for a in parser._actions if a.help != argparse.SUPPRESS for o in a.option_strings]
    for e in extra:
        flag = e.split("=", 1)[0]
        if not flag.startswith("--"):
            continue
        close = _closest(flag, known)
        if close:
            where = f"`bench-op {command}`" if command else "`bench-op`"
            raise UsageError(f"{where} has no option '{flag}'; did you mean '{close}'?")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser; with `only`, just that subcommand's parser is built under the top level. Building all
    of them costs a few ms that the no-op hook (`hook pre-commit` on every commit) shouldn't pay."""
    parser = argparse.ArgumentParser(
        prog="bench-op",
        formatter_class=_Formatter,
        allow_abbrev=False,
        description="Keep a kernel library's benchmarks building its Ops after their constructors change.",
    )
    parser.set_defaults(**Options.defaults())  # every field on every namespace: Options reads them plainly
    parser.add_argument("--version", action="version", version=f"bench-op {__version__}")
    parser.add_argument("-C", dest="directory", metavar="DIR", help="run as if started in DIR")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    parser.set_defaults(_subparsers=sub.choices)  # argument errors print the subcommand's usage
    for name, add in _COMMANDS.items():
        if only is None or name == only:
            add(sub)
    return parser


def parse(argv: Sequence[str]) -> argparse.Namespace:
    """The namespace; an unknown argument is reported under the subcommand's usage, not the top level's."""
    _unknown_command(argv)
    parser = build_parser(_command_in(argv))
    ns, extra = parser.parse_known_args(argv)
    if extra and hasattr(ns, "files") and not any(e.startswith("-") for e in extra):
        # files after options that followed the first positional (`hook pre-commit --python X a.py`,
        # which is how pre-commit passes a hook's args and then the file names)
        ns.files = [*(ns.files or []), *extra]
        extra = []
    if extra:
        sub = getattr(ns, "_subparsers", {}).get(ns.command, parser)
        _unknown_options(ns.command, sub, extra)
        sub.error(f"unrecognized arguments: {' '.join(extra)}")
    return ns


def _git_dir_guess(start: str) -> str | None:
    """The git dir, found without running git (for the crash log)."""
    cur = os.path.abspath(start)
    while True:
        dot = os.path.join(cur, ".git")
        if os.path.isdir(dot):
            return dot
        if os.path.isfile(dot):
            try:
                with open(dot, encoding="utf-8") as f:
                    line = f.read().strip()
                if line.startswith("gitdir:"):
                    return os.path.normpath(os.path.join(cur, line[7:].strip()))
            except OSError:
                return None
        parent = os.path.dirname(cur)
        if parent == cur:
            return None
        cur = parent


def _crash_log(argv: Sequence[str]) -> str:
    import datetime
    import platform
    import tempfile
    import traceback

    gdir = _git_dir_guess(os.getcwd())
    folder = os.path.join(gdir, "bench-op") if gdir else os.path.join(tempfile.gettempdir(), "bench-op")
    try:
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, "crash.log")
        with open(path, "a", encoding="utf-8") as f:
            f.write(
                f"=== {datetime.datetime.now().isoformat(timespec='seconds')} bench-op {__version__} "
                f"python {platform.python_version()} {platform.platform()}\n"
            )
            f.write(f"argv: {list(argv)}\ncwd: {os.getcwd()}\n")
            f.write(traceback.format_exc())
            f.write("\n")
        return path
    except OSError:
        return "(could not write a log)"


def _terminate_as_interrupt() -> None:
    """SIGTERM (a closed terminal, a killed hook) unwinds like Ctrl-C: children killed, tree restored."""
    import signal

    def handler(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    with contextlib.suppress(ValueError, OSError):  # not the main thread
        signal.signal(signal.SIGTERM, handler)


def dispatch(opts: Options) -> int:
    """Flat dispatch; each command imports what it needs only once it knows there is work."""
    cmd = opts.command
    if cmd == "check":
        from benchop_hook.commands import check

        return check.main(opts)
    if cmd == "fix":
        from benchop_hook.commands import fix

        return fix.main(opts)
    if cmd == "run":
        from benchop_hook.commands import run

        return run.main(opts)
    if cmd == "merge":
        from benchop_hook.commands import merge

        return merge.main(opts)
    if cmd == "hook":
        from benchop_hook.commands import hook

        return hook.main(opts)
    if cmd == "history":
        from benchop_hook.commands import history

        return history.main(opts)
    if cmd == "status":
        from benchop_hook.commands import status

        return status.main(opts)
    if cmd in ("install", "uninstall"):
        from benchop_hook.commands import install

        return install.install(opts) if cmd == "install" else install.uninstall(opts)
    if cmd == "doctor":
        from benchop_hook.commands import doctor

        return doctor.main(opts)
    build_parser().print_help()
    return EXIT_USAGE


def _json_to_stdout(opts: Options) -> int:
    """`--json -`: the JSON is what standard output carries; the command's own lines go to stderr."""
    from benchop_hook.report import out

    out.stdout = sys.stdout
    try:
        with contextlib.redirect_stdout(sys.stderr):
            return dispatch(opts)
    finally:
        out.stdout = None


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    _terminate_as_interrupt()
    if os.environ.get("BENCHOP_TIMINGS"):
        from benchop_hook import timings

        timings.install()
    # The static pass builds large acyclic trees (ast): the cyclic collector rescanned them over and over,
    # about half the CPU of `check --all-files` on TileOPs. Reference counting still frees them; the
    # collector is back on when main returns (main also runs inside other processes: tests).
    collecting = gc.isenabled()
    gc.disable()
    try:
        opts = Options.from_namespace(parse(argv))
        if opts.directory is not None and not os.path.isdir(opts.directory):
            raise UsageError(f"-C {opts.directory}: no such folder; name the repository's folder after -C.")
        if opts.json == "-":
            return _json_to_stdout(opts)
        return dispatch(opts)
    except BenchOpError as exc:
        print(f"bench-op: {exc.message}", file=sys.stderr)
        return exc.exit_code
    except BrokenPipeError:
        # The reader went away (`bench-op status | head -1`): nothing more to say, and nothing went wrong.
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except KeyboardInterrupt:
        print("bench-op: interrupted; nothing of yours was changed.", file=sys.stderr)
        return EXIT_INTERRUPTED
    except SystemExit:
        raise
    except BaseException as exc:  # noqa: BLE001 - the one place a bug is turned into a message
        log = _crash_log(argv)
        print(
            f"bench-op: internal error ({type(exc).__name__}: {str(exc)[:200]}). "
            f"This is a bug in bench-op; the details are in {log}.",
            file=sys.stderr,
        )
        return EXIT_BUG
    finally:
        if collecting:
            gc.enable()


def entry() -> None:
    """The `bench-op` program (and `python -m benchop_hook`): `main`, then a hard exit once the output is
    flushed and the exit handlers have run. What the static pass built (a large commit's trees: hundreds of
    thousands of objects) goes with the process instead of being freed object by object; every file
    bench-op writes is closed by then, and a git process it reads from sees its pipe close."""
    import atexit

    from benchop_hook.fixing import static

    static.kept_until_exit = []
    gc.disable()  # and main leaves it off: a collection now would walk everything that was kept
    code = main()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed pipe or stream: nothing more to say there
            stream.flush()
    os._exit(code)


if __name__ == "__main__":  # pragma: no cover
    entry()
