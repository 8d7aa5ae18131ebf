"""examples/ci/bench-op.yml stays a workflow bench-op can run: valid YAML of the shape GitHub reads, and
every bench-op command in it accepted by bench-op's own parser (run_locally.py runs them for real)."""

from __future__ import annotations

import shlex

import yaml

from benchop_hook.cli import parse
from tests.helpers.repo import PROJECT

WORKFLOW = PROJECT / "examples" / "ci" / "bench-op.yml"


def _bench_op_commands() -> list[list[str]]:
    spec = yaml.safe_load(WORKFLOW.read_text())
    values = {"$BASE_REF": "main", "$SHARDS": str(spec["env"]["SHARDS"]), "${{ matrix.shard }}": "1"}
    out = []
    for job in spec["jobs"].values():
        for step in job["steps"]:
            script = step.get("run", "")
            for k, v in values.items():
                script = script.replace(k, v)
            for part in script.split("||"):
                words = shlex.split(part)
                if words and words[0] == "bench-op":
                    out.append(words[1:])
    return out


def test_the_workflow_has_its_three_jobs() -> None:
    spec = yaml.safe_load(WORKFLOW.read_text())
    assert list(spec["jobs"]) == ["check", "benchmarks", "merge"]
    assert spec["jobs"]["benchmarks"]["strategy"]["matrix"]["shard"] == list(
        range(1, spec["env"]["SHARDS"] + 1)
    )
    assert spec["jobs"]["merge"]["needs"] == "benchmarks"
    for job in spec["jobs"].values():
        assert all(("run" in s) != ("uses" in s) for s in job["steps"])


def test_every_bench_op_command_parses() -> None:
    commands = _bench_op_commands()
    assert [c[0] for c in commands] == ["check", "run", "merge"]
    for argv in commands:
        ns = parse(argv)
        assert ns.format == "github"
