"""Turn each registered rule off in turn (BENCHOP_DISABLE_RULE) and run the rule tests: some test must fail
for every rule, or the rule is untested. Prints one line per rule and the count; exit 1 when a rule survives.

    python .ci/disable_each_rule.py [pytest args...]   (default: tests/rules)
"""

from __future__ import annotations

import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)

from benchop_hook.rules.decide import ORDERED  # noqa: E402  (after the path set-up above)

PYTEST = (sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:xdist", "-p", "no:cacheprovider")


def main(argv: list[str]) -> int:
    targets = argv or ["tests/rules"]
    survivors = []
    for rule_id in ORDERED:
        env = {**os.environ, "BENCHOP_DISABLE_RULE": rule_id}
        r = subprocess.run(
            [*PYTEST, *targets],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        caught = r.returncode == 1
        print(f"{rule_id}: {'caught' if caught else 'NOT CAUGHT'} (pytest exit {r.returncode})", flush=True)
        if not caught:
            survivors.append(rule_id)
    print(f"{len(ORDERED) - len(survivors)} of {len(ORDERED)} rules: some test fails without it")
    return 1 if survivors else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
