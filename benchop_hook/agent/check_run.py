"""The agent's accepted edit run as bench-op runs its own fixes: the project's interpreter, the run's GPU
selection and timeout, the repair loop (an interface error it can fix from evidence is still fixed)."""

from __future__ import annotations

import os

from benchop_hook.fixing.context import StaticContext
from benchop_hook.fixing.results import FileResult
from benchop_hook.run.execute import echo
from benchop_hook.run.gpus import choose_gpus
from benchop_hook.run.job import Job
from benchop_hook.run.notrun import CannotRun, Environment
from benchop_hook.run.outcome import FileOutcome
from benchop_hook.run.repair import LoopContext, repair_all
from benchop_hook.run.runner import Interpreter, Warm, probe, uses_benchmark_fixture
from benchop_hook.run.tree_guard import TreeGuard


def run_one(
    job: Job, ctx: StaticContext, guard: TreeGuard, interp: Interpreter, fr: FileResult, warm: Warm | None
) -> FileOutcome:
    """One benchmark file, already written through `guard`, run until it prints numbers or blocks. `warm`:
    a pytest process started while the agent worked (its interpreter start and imports are done by now)."""
    gpus = choose_gpus(job.settings.gpus, interp, 1, echo)
    try:
        if uses_benchmark_fixture(guard.read(fr.path)):
            interp = probe(interp)  # is pytest-benchmark there, for its JSON?
        loop = LoopContext(
            root=job.repo.root,
            interp=interp,
            static=ctx,
            is_bench=ctx.paths.bench,
            timeout=job.settings.timeout,
            max_iterations=job.settings.max_iterations,
            pytest_args=job.cfg.pytest_args,
            echo=echo,
            write=guard.write,
            read=guard.read,
            log_dir=os.path.join(job.repo.git_dir, "bench-op", "logs"),
            extra_env={**dict(job.settings.env), **({"CUDA_VISIBLE_DEVICES": gpus[0]} if gpus else {})},
            env=Environment.of(job.repo.root, interp.path, list(job.changes)),
            warm=warm,
        )
        (out,) = repair_all([(fr, True)], loop, gpus[:1])
    except CannotRun as exc:
        return FileOutcome(fr.path, status="not-run", reason=exc.reason, fixes=tuple(fr.fix_lines()))
    return out
