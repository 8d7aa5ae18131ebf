"""Run every command of examples/ci/bench-op.yml on this machine, as its jobs would run them on a pull request.

A pull request on the bundled example library (tests/fixtures/minitile; the Op change of examples/demo.sh)
is pushed to a local "origin"; each job gets a workspace checked out the way actions/checkout does it
(one commit of the pull request's merge, or the whole history with fetch-depth: 0), a fresh interpreter for
setup-python (no torch: a hosted runner), or one with torch for the self-hosted GPU runner (the CPU build
here), and its `run:` steps run with bash -eo pipefail in that workspace, with the workflow's, the job's
and the step's environment and GitHub's variables. The two shards of the matrix run at the same time.
Artifacts go to a folder; `gh` is a stand-in that records the comment it would post (the only command
that needs GitHub itself).

    python examples/ci/run_locally.py [--work DIR]

It prints each step's exit code and the annotations, and exits 0 when every job ended as it should: the
check fails (the pull request breaks a benchmark), the shards pass, the merge passes.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import yaml

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
WORKFLOW = HERE / "bench-op.yml"
PR = "1"
GIT = {
    "GIT_AUTHOR_NAME": "Kernel Dev",
    "GIT_AUTHOR_EMAIL": "dev@example.com",
    "GIT_COMMITTER_NAME": "Kernel Dev",
    "GIT_COMMITTER_EMAIL": "dev@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
}
# The expressions the workflow uses, as a pull request of this repository gives them.
EXPRESSIONS = {
    "github.base_ref": "main",
    "github.token": "token-for-gh",
    "github.event.pull_request.number": PR,
}
CONDITIONS = {
    "always()": True,
    "github.event.pull_request.head.repo.full_name == github.repository": True,
    "always() && needs.benchmarks.result != 'skipped'": True,
}
EXPECTED = {"check": 1, "benchmarks (shard 1)": 0, "benchmarks (shard 2)": 0, "merge": 0}

GH_STANDIN = """#!/bin/sh
# gh, as far as the workflow uses it: record the comment; there is no earlier comment to edit.
log="$GH_LOG"
echo "gh $*" >> "$log"
case " $* " in *" --edit-last "*) echo "no comments found for current user" >&2; exit 1;; esac
while [ $# -gt 0 ]; do [ "$1" = "--body-file" ] && cp "$2" "$GH_LOG.body.md"; shift; done
"""


def sh(cwd: Path, *args: str, env: dict[str, str] | None = None) -> str:
    r = subprocess.run(args, cwd=cwd, env={**os.environ, **GIT, **(env or {})}, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed in {cwd}:\n{r.stdout}{r.stderr}")
    return r.stdout


def pull_request(work: Path) -> Path:
    """origin.git: main (the example library), the branch `reduce` (the demo's Op change), and GitHub's
    refs/pull/1/merge (the branch merged into main)."""
    scratch, origin = work / "author", work / "origin.git"
    shutil.copytree(ROOT / "tests" / "fixtures" / "minitile", scratch, ignore=shutil.ignore_patterns("__pycache__"))
    (scratch / ".gitignore").write_text("__pycache__/\n.pytest_cache/\n")
    sh(work, "git", "init", "-q", "--bare", "-b", "main", str(origin))
    sh(scratch, "git", "init", "-q", "-b", "main")
    sh(scratch, "git", "add", "-A")
    sh(scratch, "git", "commit", "-q", "-m", "minitile: initial")
    sh(scratch, "git", "checkout", "-q", "-b", "reduce")
    shutil.copytree(ROOT / "examples" / "reduce-rows-from-input", scratch, dirs_exist_ok=True)
    sh(scratch, "git", "add", "-A")
    sh(scratch, "git", "commit", "-q", "-m", "reduce: rows come from the input; dim and keyword-only tune")
    sh(scratch, "git", "checkout", "-q", "main")
    sh(scratch, "git", "merge", "-q", "--no-ff", "-m", f"Merge {PR} into main", "reduce")
    sh(scratch, "git", "push", "-q", str(origin), "HEAD~1:refs/heads/main", "reduce", f"HEAD:refs/pull/{PR}/merge")
    return origin


def interpreter(where: Path, *packages: str) -> Path:
    """A fresh virtual environment with `packages`: setup-python's clean interpreter, or the GPU runner's."""
    if not (where / "bin" / "python").exists():
        subprocess.run([sys.executable, "-m", "venv", str(where)], check=True)
        if packages:
            subprocess.run([str(where / "bin" / "python"), "-m", "pip", "install", "-q", *packages], check=True)
    return where / "bin"


def expand(text: str, matrix: dict[str, Any]) -> str:
    """`${{ ... }}` as GitHub fills it in; an expression this script does not know stops it."""
    out, rest = "", text
    while "${{" in rest:
        before, _, after = rest.partition("${{")
        expr, _, rest = after.partition("}}")
        expr = expr.strip()
        if expr.startswith("matrix."):
            value = str(matrix[expr.split(".", 1)[1]])
        elif expr in EXPRESSIONS:
            value = EXPRESSIONS[expr]
        else:
            raise SystemExit(f"the workflow uses ${{{{ {expr} }}}}, which run_locally.py does not know")
        out += before + value
    return out + rest


class Job:
    def __init__(self, name: str, spec: dict[str, Any], matrix: dict[str, Any], work: Path, env: dict[str, str]) -> None:
        self.name, self.spec, self.matrix = name, spec, matrix
        self.dir = work / "jobs" / name.replace(" ", "-").replace("(", "").replace(")", "")
        self.ws = self.dir / "workspace"
        self.work = work
        self.env = {k: expand(str(v), matrix) for k, v in {**env, **spec.get("env", {})}.items()}
        self.path = ["/usr/bin", "/bin"]
        self.failed = False
        self.exit = 0
        self.lines: list[str] = []

    def say(self, text: str) -> None:
        self.lines.append(text)

    def run(self) -> None:
        self.ws.mkdir(parents=True)
        for i, step in enumerate(self.spec["steps"], 1):
            cond = step.get("if")
            if self.failed and not (cond and CONDITIONS[cond]):
                self.say(f"  step {i}: {step.get('name') or step.get('uses')}: skipped (an earlier step failed)")
                continue
            t0 = time.monotonic()
            code = self.uses(step) if "uses" in step else self.shell(i, step)
            self.say(f"  step {i}: {step.get('name') or step.get('uses')}: exit {code} ({time.monotonic() - t0:.1f} s)")
            if code != 0:
                self.failed, self.exit = True, self.exit or code

    def uses(self, step: dict[str, Any]) -> int:
        action, with_ = step["uses"].split("@")[0], step.get("with", {})
        if action == "actions/checkout":
            origin = f"file://{self.work / 'origin.git'}"
            merge = f"+refs/pull/{PR}/merge:refs/remotes/pull/{PR}/merge"
            sh(self.ws, "git", "init", "-q")
            sh(self.ws, "git", "remote", "add", "origin", origin)
            if str(with_.get("fetch-depth", 1)) == "0":
                sh(self.ws, "git", "fetch", "-q", "--no-tags", "--prune", "origin", "+refs/heads/*:refs/remotes/origin/*", merge)
            else:
                sh(self.ws, "git", "fetch", "-q", "--no-tags", "--depth=1", "origin", merge)
            sh(self.ws, "git", "checkout", "-q", "--force", f"refs/remotes/pull/{PR}/merge")
        elif action == "actions/setup-python":
            self.path.insert(0, str(interpreter(self.dir / "python")))
        elif action == "actions/upload-artifact":
            dest = self.work / "artifacts" / expand(with_["name"], self.matrix)
            dest.mkdir(parents=True, exist_ok=True)
            for p in expand(with_["path"], self.matrix).split():
                if (self.ws / p).exists():
                    shutil.copy(self.ws / p, dest)
        elif action == "actions/download-artifact":
            prefix = with_["pattern"].rstrip("*")
            for d in sorted((self.work / "artifacts").glob(f"{prefix}*")):
                for f in d.iterdir():
                    shutil.copy(f, self.ws)
        else:
            raise SystemExit(f"run_locally.py does not know the action {action}")
        return 0

    def shell(self, i: int, step: dict[str, Any]) -> int:
        summary = self.dir / f"step-{i}-summary.md"
        env = {
            **{k: v for k, v in os.environ.items() if k in ("HOME", "LANG", "TMPDIR", "PIP_FIND_LINKS")},
            **GIT,
            "CI": "true",
            "GITHUB_ACTIONS": "true",
            "GITHUB_EVENT_NAME": "pull_request",
            "GITHUB_BASE_REF": "main",
            "GITHUB_WORKSPACE": str(self.ws),
            "GITHUB_STEP_SUMMARY": str(summary),
            "RUNNER_TEMP": str(self.dir),
            "GH_LOG": str(self.work / "gh-calls.log"),
            **self.env,
            **{k: expand(str(v), self.matrix) for k, v in step.get("env", {}).items()},
            "PATH": ":".join(self.path),
        }
        script = expand(step["run"], self.matrix)
        log = self.dir / f"step-{i}.log"
        with open(log, "w") as out:
            out.write(f"$ {script}\n")
            out.flush()
            code = subprocess.run(
                ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
                cwd=self.ws,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
            ).returncode
        for line in log.read_text().splitlines():
            if line.startswith(("::error", "::warning", "::notice")):
                self.say(f"    {line[:160]}")
        return code


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--work", type=Path, help="where to make the repositories and workspaces (default: a temp dir)")
    ap.add_argument("--gpu-runner", type=Path, default=Path(tempfile.gettempdir()) / "bench-op-gpu-runner",
                    help="the self-hosted runner's environment (made once, with torch's CPU build)")
    args = ap.parse_args(argv)
    work = (args.work or Path(tempfile.mkdtemp(prefix="bench-op-ci-"))).resolve()
    work.mkdir(parents=True, exist_ok=True)
    spec = yaml.safe_load(WORKFLOW.read_text())
    print(f"{WORKFLOW.name}: valid YAML; jobs {', '.join(spec['jobs'])}; working in {work}")
    pull_request(work)
    env = {**spec["env"], "BENCH_OP": str(ROOT)}  # this checkout instead of the released bench-op
    gpu = interpreter(args.gpu_runner, "torch==2.13.0", "numpy", "pytest")
    gh = work / "gh-bin"
    gh.mkdir()
    (gh / "gh").write_text(GH_STANDIN)
    (gh / "gh").chmod(0o755)

    check = Job("check", spec["jobs"]["check"], {}, work, env)
    shards = [
        Job(f"benchmarks (shard {s})", spec["jobs"]["benchmarks"], {"shard": s}, work, env)
        for s in spec["jobs"]["benchmarks"]["strategy"]["matrix"]["shard"]
    ]
    for j in shards:
        j.path.insert(0, str(gpu))  # the runner's own interpreter, with torch
    merge = Job("merge", spec["jobs"]["merge"], {}, work, env)
    merge.path.insert(0, str(gh))
    threads = [threading.Thread(target=j.run) for j in (check, *shards)]  # the jobs that need nothing
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    merge.run()
    ok = True
    for j in (check, *shards, merge):
        want = EXPECTED[j.name]
        ok &= j.exit == want
        print(f"{j.name}: exit {j.exit} (expected {want}); logs in {j.dir}")
        print("\n".join(j.lines))
    comment = work / "gh-calls.log.body.md"
    print(f"gh: {(work / 'gh-calls.log').read_text().strip() if (work / 'gh-calls.log').exists() else 'not called'}")
    print(f"pull-request comment: {comment if comment.exists() else 'none'}")
    print("every job ended as it should" if ok else "a job did not end as it should")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
