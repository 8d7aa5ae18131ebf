"""Which stage of the pipeline a repository path belongs to: benchmarks first, then tests, then ops.

Light on purpose (globs only): the fast path asks "did an Op file change?" with it.
"""

from __future__ import annotations

from benchop_hook.config import Config
from benchop_hook.globs import matches


class Paths:
    """The one set of path predicates; `benchmarks/ops/*.py` is never taken for an op file."""

    def __init__(self, config: Config) -> None:
        self.c = config
        # A static pass asks about each path many times (tens of thousands of questions on a large commit):
        # the answers are the globs', kept per path.
        self._bench: dict[str, bool] = {}
        self._test: dict[str, bool] = {}
        self._op: dict[str, bool] = {}

    def bench(self, p: str) -> bool:
        yes = self._bench.get(p)
        if yes is None:
            yes = self._bench[p] = p.endswith(".py") and matches(p, self.c.benchmark_paths)
        return yes

    def test(self, p: str) -> bool:
        yes = self._test.get(p)
        if yes is None:
            yes = self._test[p] = p.endswith(".py") and not self.bench(p) and matches(p, self.c.test_paths)
        return yes

    def op(self, p: str) -> bool:
        yes = self._op.get(p)
        if yes is None:
            yes = self._op[p] = (
                p.endswith(".py") and not self.bench(p) and not self.test(p) and matches(p, self.c.op_paths)
            )
        return yes

    def interface(self, p: str) -> bool:
        """Workloads, test helpers, benchmark bases: classes benchmarks build whose constructors a commit may
        change."""
        return (
            p.endswith(".py")
            and not self.bench(p)
            and not self.op(p)
            and (self.c.interface_paths is None or matches(p, self.c.interface_paths))
        )
