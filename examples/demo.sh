#!/usr/bin/env bash
# The main job on the example kernel library bundled with bench-op:
#   1. set up .venv (torch CPU build, bench-op) unless it is there already;
#   2. build tests/fixtures/minitile as a git repo in a temporary folder and commit an Op change
#      (ReduceOp(M, N, dtype) -> ReduceOp(N, dtype, dim=-1, *, tune=False)) that breaks its benchmarks;
#   3. run `bench-op run` on that commit: it rewrites the broken calls, runs the benchmarks until
#      they print numbers, and makes the follow-up commit.
# Usage: bash examples/demo.sh [FOLDER]   (FOLDER: where to build the example repo, kept afterwards;
#        without it a temporary folder is used and removed on exit unless BENCHOP_DEMO_KEEP=1)
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
source "$here/examples/venv.sh"
if [ $# -ge 1 ]; then
    demo="$1/minitile"
else
    # A scratch folder of our own: removed on exit unless BENCHOP_DEMO_KEEP=1.
    scratch="$(mktemp -d "${TMPDIR:-/tmp}/bench-op-demo.XXXXXX")"
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
printf '__pycache__/\n' > .gitignore
sed -i.bak "s|^\[tool.bench-op\]|[tool.bench-op]\npython = \"$py\"|" pyproject.toml && rm -f pyproject.toml.bak
export GIT_AUTHOR_NAME="${GIT_AUTHOR_NAME:-Kernel Dev}" GIT_AUTHOR_EMAIL="${GIT_AUTHOR_EMAIL:-dev@example.com}"
export GIT_COMMITTER_NAME="${GIT_COMMITTER_NAME:-Kernel Dev}" GIT_COMMITTER_EMAIL="${GIT_COMMITTER_EMAIL:-dev@example.com}"
git init -q -b main
git add -A && git commit -q -m "minitile: initial"
cp -R "$here/examples/reduce-rows-from-input/." .
git add -A && git commit -q -m "reduce: rows come from the input; dim and keyword-only tune"
echo "== $demo: the last commit changed ReduceOp's constructor; its benchmarks still build it the old way"
git --no-pager log --oneline
echo "== bench-op run --from-ref HEAD~1 --to-ref HEAD"
status=0
"$here/.venv/bin/bench-op" run --from-ref HEAD~1 --to-ref HEAD || status=$?
echo "== after bench-op (exit $status)"
git --no-pager log --oneline
git --no-pager show --stat --format='%n%B' HEAD | head -40
exit $status
