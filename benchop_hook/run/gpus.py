"""GPU discovery: which GPUs a `--gpus` selection means on this machine, without starting CUDA."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable

from benchop_hook.run.runner import Interpreter, probe


def visible_gpus(selection: str) -> list[str]:
    """The GPUs a --gpus selection means: 'all', a count 'N', or indices '0,2,5'."""
    env_ids = os.environ.get("CUDA_VISIBLE_DEVICES")
    if env_ids is not None:
        ids = [g.strip() for g in env_ids.split(",") if g.strip() and g.strip() != "-1"]
    elif os.path.isdir("/proc/driver/nvidia/gpus"):
        # the driver's own list: no process to start (nvidia-smi takes a few hundred ms)
        ids = [str(i) for i in range(len(os.listdir("/proc/driver/nvidia/gpus")))]
    else:
        try:
            out = subprocess.run(
                ["nvidia-smi", "--query-gpu=index", "--format=csv,noheader"],
                capture_output=True,
                text=True,
                timeout=20,
            )
            lines = out.stdout.splitlines() if out.returncode == 0 else []
            ids = [line.strip() for line in lines if line.strip().isdigit()]
        except (OSError, subprocess.TimeoutExpired):
            ids = []
    if selection == "all":
        return ids
    if selection.isdigit():
        return ids[: int(selection)]
    wanted = [g for g in selection.split(",") if g]
    if env_ids is not None:
        # indices into the visible list, as CUDA numbers them
        return [ids[int(g)] for g in wanted if g.isdigit() and int(g) < len(ids)]
    return [g for g in wanted if g in ids] if ids else []


def choose_gpus(selection: str, interp: Interpreter, n_files: int, echo: Callable[[str], None]) -> list[str]:
    """The GPUs to spread the files over: empty or one means the files run one after another."""
    if selection in ("0", "1") or (n_files < 2 and "," not in selection):
        return []
    gpus = visible_gpus(selection)
    if "," not in selection and selection != "all" and len(gpus) < int(selection):
        echo(f"bench-op: {selection} GPUs asked for, {len(gpus)} visible: using {', '.join(gpus) or 'none'}")
    if len(gpus) >= 2 and n_files >= 2 and not interp.has_xdist:
        interp = probe(interp)
    if len(gpus) >= 2 and n_files >= 2 and not interp.has_xdist:
        echo(
            f"bench-op: pytest-xdist is not installed in {interp.path}: the benchmark files run one after "
            f"another on GPU {gpus[0]}"
        )
        return gpus[:1]
    return gpus if n_files >= 2 else gpus[:1]
