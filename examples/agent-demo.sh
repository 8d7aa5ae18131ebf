#!/usr/bin/env bash
# The agent step on the example kernel library bundled with bench-op:
#   1. set up .venv (torch CPU build, bench-op) unless it is there already;
#   2. build tests/fixtures/minitile as a git repo in a temporary folder and commit an Op change,
#      GemmOp(M, N, K, dtype) -> GemmOp(shape_a, shape_b, dtype), whose benchmark call only a person can fix
#      (the updated tests build GemmOp from constants of their own: no evidence for the benchmark's shapes);
#   3. point `git config bench-op.agent` at a scripted stand-in for a coding agent (examples/agent/shapes-agent)
#      and run `bench-op run`: bench-op blocks on the call, hands it to the agent in a sandbox, checks the
#      agent's edit like its own, runs the benchmark, and commits it with the trailer Bench-Op-Agent.
# Usage: bash examples/agent-demo.sh [FOLDER]   (FOLDER: where to build the example repo, kept afterwards;
#        without it a temporary folder is used and removed on exit unless BENCHOP_DEMO_KEEP=1)
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
source "$here/examples/venv.sh"
if [ $# -ge 1 ]; then
    demo="$1/minitile"
else
    # A scratch folder of our own: removed on exit unless BENCHOP_DEMO_KEEP=1.
    scratch="$(mktemp -d "${TMPDIR:-/tmp}/bench-op-agent-demo.XXXXXX")"
    demo="$scratch/minitile"
    if [ "${BENCHOP_DEMO_KEEP:-0}" = 1 ]; then
        trap 'echo "== kept $demo"' EXIT
    else
        trap 'rm -rf "$scratch"; echo "== removed $scratch (BENCHOP_DEMO_KEEP=1, or a FOLDER argument, keeps it)"' EXIT
    fi
fi
rm -rf "$demo"; mkdir -p "$(dirname "$demo")"
cp -R "$here/tests/fixtures/minitile" "$demo"
cd "$demo"
printf '__pycache__/\n.pytest_cache/\n' > .gitignore
sed -i.bak "s|^\[tool.bench-op\]|[tool.bench-op]\npython = \"$py\"|" pyproject.toml && rm -f pyproject.toml.bak
export GIT_AUTHOR_NAME="${GIT_AUTHOR_NAME:-Kernel Dev}" GIT_AUTHOR_EMAIL="${GIT_AUTHOR_EMAIL:-dev@example.com}"
export GIT_COMMITTER_NAME="${GIT_COMMITTER_NAME:-Kernel Dev}" GIT_COMMITTER_EMAIL="${GIT_COMMITTER_EMAIL:-dev@example.com}"
git init -q -b main
git add -A && git commit -q -m "minitile: initial"
cp -R "$here/examples/gemm-from-input-shapes/." .
git add -A && git commit -q -m "gemm: built from the shapes of its inputs"
# The person's choice of agent, in their git config (never in the repository's pyproject.toml).
git config bench-op.agent "$here/examples/agent/shapes-agent"
echo "== $demo: the last commit changed GemmOp's constructor; git config bench-op.agent = $(git config bench-op.agent)"
git --no-pager log --oneline
echo "== bench-op run --from-ref HEAD~1 --to-ref HEAD"
status=0
"$here/.venv/bin/bench-op" run --from-ref HEAD~1 --to-ref HEAD --json "$demo/../report.json" || status=$?
echo "== after bench-op (exit $status)"
git --no-pager log --oneline
git --no-pager show --format='%n%B' HEAD | head -40
"$py" - "$demo/../report.json" <<'PY'
import json, sys
for b in json.load(open(sys.argv[1])).get("benchmarks", []):
    a = b.get("agent")
    if a:
        print(f"== agent step for {b['path']}: the agent {a['name']} took {a['seconds']:.2f} s; "
              f"bench-op's own part of the step (sandbox, task, checks) {a['overhead_seconds']:.2f} s")
PY
exit $status
