"""A wrong layout is said, once, by `check` and the hooks (commands/layout.py): a glob that matches nothing,
op files without an Op class. A warning, never a block, and never "every benchmark call binds"; and the
no-op hook path does not look."""

from __future__ import annotations

import pytest

from tests.helpers.changes import reduction_change
from tests.helpers.repo import Repo

OP_PATHS = 'op-paths = ["src/minitile/ops/**/*.py"]'
BENCH_PATHS = 'benchmark-paths = ["benchmarks/**/*.py"]'
DOCTOR = "; `bench-op doctor` shows what each glob matches."


def configure(repo: Repo, old: str, new: str) -> None:
    repo.replace("pyproject.toml", old, new)
    repo.commit("layout")


def warnings(err: str) -> list[str]:
    return [ln for ln in err.splitlines() if ln.startswith("bench-op: warning:")]


@pytest.mark.parametrize(
    "old, new, warning",
    [
        (
            OP_PATHS,
            'op-paths = ["srcx/**/*.py"]',
            "op-paths = ['srcx/**/*.py'] matches no tracked Python file: set op-paths in [tool.bench-op] to "
            "where your Op classes are",
        ),
        (
            BENCH_PATHS,
            'benchmark-paths = ["nothing/**/*.py"]',
            "benchmark-paths = ['nothing/**/*.py'] matches no tracked Python file: set benchmark-paths in "
            "[tool.bench-op] to where your benchmark files are",
        ),
        (
            OP_PATHS,
            OP_PATHS + '\nop-bases = ["KernelBase"]',
            "no Op class (a class deriving from KernelBase) in the 7 files op-paths matches: set op-bases in "
            "[tool.bench-op] to your Op base class, or op-paths to where the Ops are",
        ),
    ],
)
def test_check_all_files_says_what_finds_nothing_once(repo: Repo, old: str, new: str, warning: str) -> None:
    configure(repo, old, new)
    r = repo.cli("check", "--all-files")
    assert r.returncode == 0, r.stdout + r.stderr
    assert warnings(r.stderr) == [f"bench-op: warning: {warning}{DOCTOR}"], r.stderr
    assert "every benchmark call binds" not in r.stdout, r.stdout


def test_a_pattern_that_matches_nothing_beside_others_that_do_is_for_doctor_only(repo: Repo) -> None:
    # A config for several layouts (a repository's eras) has a pattern matching nothing in each of them.
    configure(repo, OP_PATHS, 'op-paths = ["src/minitile/ops/**/*.py", "src/minitile/kernels/*.py"]')
    r = repo.cli("check", "--all-files")
    assert r.returncode == 0 and not warnings(r.stderr), r.stderr
    assert "every benchmark call binds" in r.stdout, r.stdout
    d = repo.cli("doctor")
    assert d.returncode == 1, d.stdout + d.stderr
    assert "op-paths pattern 'src/minitile/kernels/*.py' matches no tracked Python file" in d.stdout, d.stdout


def test_nothing_checked_is_not_said_to_bind(repo: Repo) -> None:
    configure(repo, BENCH_PATHS, 'benchmark-paths = ["nothing/**/*.py"]')
    r = repo.cli("check", "--all-files")
    assert r.returncode == 0
    assert (
        r.stdout.splitlines()[-1] == "bench-op: found no benchmark call of an Op class: nothing was checked."
    )


def test_a_good_layout_says_nothing_more(repo: Repo) -> None:
    r = repo.cli("check", "--all-files")
    assert r.returncode == 0 and not warnings(r.stderr), r.stderr
    assert r.stdout.splitlines()[-1] == "bench-op: every benchmark call binds the current Op signatures."


def test_the_pre_commit_stage_is_quiet_about_one_pattern_of_several(repo: Repo) -> None:
    configure(repo, BENCH_PATHS, 'benchmark-paths = ["benchmarks/ops/*.py", "bench/*.py"]')
    reduction_change(repo)
    repo.git("add", "-A")
    r = repo.cli("hook", "pre-commit", "--no-run")
    assert r.returncode == 1, r.stdout + r.stderr  # the rewrite is made all the same: review and add
    assert not warnings(r.stderr), r.stderr  # one pattern finds the benchmarks: doctor tells of the other


def test_the_no_op_hook_path_does_not_look(repo: Repo) -> None:
    configure(repo, BENCH_PATHS, 'benchmark-paths = ["nothing/**/*.py"]')
    repo.write("README.md", "a commit that touches no Op\n")
    repo.git("add", "-A")
    for args in (("hook", "pre-commit"), ("check",)):
        r = repo.cli(*args)
        assert r.returncode == 0 and not warnings(r.stderr), (args, r.stderr)
