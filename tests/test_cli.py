"""The command line as the README describes it (cli.py): --staged, FILE arguments restrict check and fix,
argument errors under the subcommand's usage, no commits to compare is a usage situation, a bug is a short
message and a log."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from benchop_hook import cli
from tests.helpers.asserts import one_line_error
from tests.helpers.changes import reduction_change
from tests.helpers.process import run
from tests.helpers.repo import Repo, git

BENCH_RED = "benchmarks/ops/bench_reduction.py"


BENCH_GEMM = "benchmarks/ops/bench_gemm.py"


def gemm_keyword_only(repo: Repo) -> None:
    repo.replace(
        "src/minitile/ops/gemm.py",
        "def __init__(self, M, N, K, dtype, trans_b=False):",
        "def __init__(self, M, N, K, *, dtype, trans_b=False):",
    )


def test_staged_is_an_explicit_flag(repo: Repo, tmp_path: Path) -> None:
    reduction_change(repo)
    repo.git("add", "-A")
    r = repo.cli(
        "check",
        "--staged",
        "--json",
        str(tmp_path / "c.json"),
        env={"PRE_COMMIT_FROM_REF": "HEAD", "PRE_COMMIT_TO_REF": "HEAD"},
    )
    assert r.returncode == 1, r.stdout + r.stderr
    data = json.loads((tmp_path / "c.json").read_text())
    assert data["status"] == "broken" and data["target"]["mode"] == "staged"
    bad = repo.cli("check", "--staged", "--all-files")
    assert bad.returncode == 2 and "--staged" in bad.stderr


def test_files_restrict_check_and_fix(repo: Repo) -> None:
    reduction_change(repo)
    gemm_keyword_only(repo)
    repo.git("add", "-A")
    r = repo.cli("check", BENCH_GEMM)
    assert BENCH_GEMM in r.stdout and BENCH_RED not in r.stdout, r.stdout
    r = repo.cli("fix", BENCH_GEMM)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "dtype=DTYPE" in repo.read(BENCH_GEMM)
    assert repo.git("diff", "--name-only").split() == [BENCH_GEMM], "fix A rewrites A only"


def test_argument_errors_print_the_subcommands_usage(repo: Repo) -> None:
    r = repo.cli("check", "--no-such-flag")
    assert r.returncode == 2
    assert "usage: bench-op check" in r.stderr and "unrecognized arguments: --no-such-flag" in r.stderr


@pytest.mark.parametrize(
    "args, line",
    [
        (["chek"], "bench-op: unknown command 'chek'; did you mean 'check'?"),
        (["-C", ".", "instal"], "bench-op: unknown command 'instal'; did you mean 'install'?"),
        (
            ["check", "--all-file"],
            "bench-op: `bench-op check` has no option '--all-file'; did you mean '--all-files'?",
        ),
        (
            ["run", "--no-comit"],
            "bench-op: `bench-op run` has no option '--no-comit'; did you mean '--no-commit'?",
        ),
        (["run", "--gpu=1"], "bench-op: `bench-op run` has no option '--gpu'; did you mean '--gpus'?"),
        (["--verison"], "bench-op: `bench-op` has no option '--verison'; did you mean '--version'?"),
    ],
)
def test_a_mistyped_command_or_option_gets_the_closest_one(repo: Repo, args: list[str], line: str) -> None:
    r = repo.cli(*args)
    assert r.returncode == 2 and one_line_error(r) == line and not r.stdout


def test_a_missing_folder_after_dash_c_is_a_usage_error_and_leaves_no_log(repo: Repo, tmp_path: Path) -> None:
    missing = tmp_path / "nonexistent"
    r = repo.cli("-C", str(missing), "check")
    assert r.returncode == 2, r.stderr
    assert (
        one_line_error(r) == f"bench-op: -C {missing}: no such folder; name the repository's folder after -C."
    )
    assert not (repo.path / ".git" / "bench-op" / "crash.log").exists()


@pytest.mark.parametrize("command", list(cli._COMMANDS))
def test_every_command_says_what_it_does_in_its_help(repo: Repo, command: str) -> None:
    r = repo.cli(command, "--help")
    assert r.returncode == 0 and r.stdout.startswith(f"usage: bench-op {command}"), r.stderr
    description = r.stdout.split("\n\n")[1]  # usage, then what the command does, then its options
    assert len(description.split()) >= 5 and description.rstrip().endswith("."), (command, r.stdout)


def test_the_command_list_names_every_hook_install_sets_up(repo: Repo) -> None:
    from benchop_hook.commands.install import HOOKS

    top = repo.cli("--help")
    line = " ".join(top.stdout.split())  # argparse wraps the list to the terminal
    assert top.returncode == 0
    assert all(h in line.split("install ", 1)[1].split("uninstall")[0] for h in HOOKS), top.stdout


def test_only_the_named_command_is_built_and_every_other_form_still_parses(
    repo: Repo, tmp_path: Path
) -> None:
    """The parser builds just the named subcommand (the no-op hook builds one on every commit); an unknown
    command, `-C DIR` before the command, and the top-level help still see all of them."""
    r = repo.cli("nosuch")
    assert r.returncode == 2 and "unknown command 'nosuch'" in one_line_error(r)
    assert all(
        c in r.stderr for c in ("check", "fix", "run", "hook", "history", "install", "uninstall", "doctor")
    ), r.stderr
    top = repo.cli("--help")
    assert top.returncode == 0 and all(c in top.stdout for c in ("check", "history", "uninstall")), top.stdout
    r = run([sys.executable, "-m", "benchop_hook", "-C", str(repo.path), "hook", "--no-such-flag"], tmp_path)
    assert r.returncode == 2 and "usage: bench-op hook" in r.stderr, r.stderr
    r = run(
        [
            sys.executable,
            "-m",
            "benchop_hook",
            "-C",
            str(repo.path),
            "check",
            "--json",
            str(tmp_path / "c.json"),
        ],
        tmp_path,
        env={"COLUMNS": "60"},
    )
    assert r.returncode == 0, r.stdout + r.stderr
    widths = {}
    for columns in ("60", "200"):
        h = run([sys.executable, "-m", "benchop_hook", "fix", "--help"], tmp_path, env={"COLUMNS": columns})
        assert h.returncode == 0 and "--diff" in h.stdout
        widths[columns] = max(len(line) for line in h.stdout.splitlines())
    assert widths["60"] < 70 < widths["200"], f"help wraps to $COLUMNS, as argparse's own does: {widths}"


def test_check_without_commits_is_a_usage_situation(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", str(tmp_path / "empty"))
    for cmd in ("check", "fix", "run"):
        r = Repo(tmp_path / "empty").cli(cmd)
        assert r.returncode == 2, (cmd, r.stderr)
        assert "the repository has no commits yet" in r.stderr and r.stderr.count("\n") == 1


def test_no_doubled_words(repo: Repo, tmp_path: Path) -> None:
    r = repo.cli("run", "--json", str(tmp_path / "r.json"))
    assert "bench-op: nothing to do" in r.stdout and "nothing-to-do: nothing to do" not in r.stdout
    reduction_change(repo)
    repo.git("add", "-A")
    r = repo.cli("run", "--no-run")
    assert "not run (not run" not in r.stdout and "fixed but not run (--no-run)" in r.stdout, r.stdout


def test_hook_takes_files_after_its_options(repo: Repo) -> None:
    # pre-commit passes `entry args... files...`: options between the stage and the file names
    r = repo.cli("hook", "pre-commit", "--no-run", BENCH_RED)
    assert r.returncode == 0, r.stderr
    assert "unrecognized arguments" not in r.stderr


def test_the_parser_for_one_command_has_only_that_command(capsys: pytest.CaptureFixture[str]) -> None:

    assert cli._command_in(["-C", "dir", "hook", "pre-commit", "a.py"]) == "hook"
    assert cli._command_in(["--help"]) is None and cli._command_in(["nosuch"]) is None
    assert cli.build_parser("hook").parse_args(["hook", "pre-commit"]).stage == "pre-commit"
    with pytest.raises(SystemExit):
        cli.build_parser("hook").parse_args(["check"])
    assert "invalid choice: 'check' (choose from 'hook')" in capsys.readouterr().err
    assert cli.build_parser().parse_args(["check"]).command == "check"


def test_a_bug_is_a_short_message_and_a_log(
    repo: Repo, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from benchop_hook.commands import check

    def boom(opts: object) -> int:  # stands in for a bug anywhere below the handler
        raise ZeroDivisionError("division by zero")

    monkeypatch.chdir(repo.path)
    monkeypatch.setattr(check, "main", boom)
    assert cli.main(["check"]) == 3
    err = capsys.readouterr().err
    log = repo.path / ".git" / "bench-op" / "crash.log"
    assert err.strip() == (
        f"bench-op: internal error (ZeroDivisionError: division by zero). This is a bug in bench-op; "
        f"the details are in {log}."
    )
    assert "Traceback" in log.read_text() and "ZeroDivisionError" in log.read_text()
