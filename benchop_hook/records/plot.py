"""`bench-op history --plot`: the trend of each case's time (else its first number) as a PNG.

matplotlib is an optional extra (`pip install 'bench-op[plot]'`); without it, one sentence and exit 2.
"""

from __future__ import annotations

import sys
from typing import Any

from benchop_hook.errors import EXIT_USAGE, BenchOpError
from benchop_hook.records.notes import Point, primary


def _matplotlib() -> Any:
    try:
        import matplotlib
    except ImportError:
        raise BenchOpError(
            "--plot needs matplotlib, which is not installed: `pip install 'bench-op[plot]'` "
            "(or `pip install matplotlib`) and run it again.",
            EXIT_USAGE,
        ) from None
    matplotlib.use("Agg")  # no display needed
    import matplotlib.pyplot as plt

    return plt


def draw(by_node: dict[str, list[Point]], path: str, *, title: str) -> None:
    """One line per case and device, oldest commit on the left."""
    plt = _matplotlib()
    fig, ax = plt.subplots(figsize=(10, 5))
    order: list[str] = []  # commits oldest first, across every series
    for points in by_node.values():
        for p in reversed(points):
            if p.commit not in order:
                order.append(p.commit)
    units = set()
    for nodeid, points in by_node.items():
        for device in dict.fromkeys(p.device for p in points):
            xs, ys = [], []
            for p in reversed(points):
                v = primary(p) if p.device == device else None
                if v is not None:
                    xs.append(order.index(p.commit))
                    ys.append(v[1])
                    units.add(f"{v[0]} ({v[2]})")
            if xs:
                several = len({q.device for q in points}) > 1
                label = nodeid.split("::", 1)[-1] + (f" on {device}" if several else "")
                ax.plot(xs, ys, marker="o", label=label)
    ax.set_xticks(range(len(order)))
    ax.set_xticklabels([c[:8] for c in order], rotation=45, ha="right")
    ax.set_xlabel("commit (oldest to newest)")
    ax.set_ylabel(", ".join(sorted(units)) or "value")
    ax.set_title(title)
    ax.legend(fontsize="small")
    fig.tight_layout()
    try:
        fig.savefig(sys.stdout.buffer if path == "-" else path, format="png")  # `-`: standard output
    except OSError as exc:
        raise BenchOpError(
            f"cannot write the plot to {path} ({exc.strerror}): choose another path.", EXIT_USAGE
        ) from None
    finally:
        plt.close(fig)
