"""pytest plugin that bench-op loads into the project's own interpreter (`-p benchop_collect`).

It writes one JSON file (path in BENCHOP_RESULT) with, per test: outcome, duration,
user properties (`record_property`), captured stdout of the call, and for a
failure the exception type, message and traceback frames. Collection errors are
recorded the same way. It imports nothing from bench-op, so it works in any
environment that has pytest.
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

_MAX_OUT = 64 * 1024
_records: dict[str, dict[str, Any]] = {}
_errors: list[dict[str, Any]] = []
_started = time.time()


def _frames(excinfo: Any) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    try:
        for entry in excinfo.traceback:
            out.append({"path": str(entry.path), "line": entry.lineno + 1, "name": entry.name})
    except Exception:  # noqa: BLE001 - a traceback we can't read is simply not recorded
        pass
    return out[-40:]


def _exc(excinfo: Any) -> dict[str, Any]:
    try:
        msg = str(excinfo.value)
    except Exception:  # noqa: BLE001 - an exception whose __str__ raises is still reported
        msg = "<unprintable>"
    return {"type": type(excinfo.value).__name__, "message": msg[:4000], "frames": _frames(excinfo)}


def _own_frames(tb: Any) -> list[dict[str, Any]]:
    """A traceback's frames without pytest's, pluggy's and importlib's: the benchmark's own import chain."""
    out: list[dict[str, Any]] = []
    while tb is not None:
        path = tb.tb_frame.f_code.co_filename
        if not any(part in path for part in ("_pytest", "pluggy", "<frozen", "importlib")):
            out.append({"path": path, "line": tb.tb_lineno, "name": tb.tb_frame.f_code.co_name})
        tb = tb.tb_next
    return out[-40:]


def _cause(excinfo: Any) -> dict[str, Any] | None:
    """The exception a collection error wraps (pytest raises CollectError `from` the ImportError): what the
    benchmark's own import raised, with its frames, instead of a frame inside `_pytest`."""
    exc = excinfo.value
    inner = exc.__cause__ or exc.__context__
    if inner is None or type(exc).__name__ != "CollectError":
        return None
    try:
        msg = str(inner)
    except Exception:  # noqa: BLE001 - an exception whose __str__ raises is still reported
        msg = "<unprintable>"
    return {"type": type(inner).__name__, "message": msg[:4000], "frames": _own_frames(inner.__traceback__)}


def _pin_worker_to_its_gpu() -> None:
    """Each xdist worker gets one GPU: BENCHOP_GPUS="0,2,5", worker gwN the N-th.

    Done when the plugin is imported (`-p`), which in a worker is before any conftest can touch CUDA.
    """
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    gpus = os.environ.get("BENCHOP_GPUS")
    if worker.startswith("gw") and gpus:
        ids = [g for g in gpus.split(",") if g]
        n = int(worker[2:] or 0)
        if ids:
            os.environ["CUDA_VISIBLE_DEVICES"] = ids[n % len(ids)]
    if worker:
        os.environ["BENCHOP_WORKER_GPU"] = os.environ.get("CUDA_VISIBLE_DEVICES", "")


_pin_worker_to_its_gpu()


def _user_tree() -> tuple[str, str] | None:
    """(the user's tree, the temporary worktree) when this session measures another commit."""
    src, dst = os.environ.get("BENCHOP_USER_ROOT"), os.environ.get("BENCHOP_WORKTREE")
    return (src, dst) if src and dst else None


def _inside_user_tree(path: str, src: str) -> bool:
    """Under the user's tree, but not the interpreter's own environment (a .venv inside the repository)."""
    real = os.path.realpath(path)
    envs = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix)}
    return real.startswith(src + os.sep) and not any(real == e or real.startswith(e + os.sep) for e in envs)


def _redirect_sys_path() -> None:
    """An editable install puts the user's tree on sys.path: point those entries at the worktree instead,
    so that the other commit's code is what gets imported."""
    trees = _user_tree()
    if trees is None:
        return
    src, dst = trees
    for i, p in enumerate(sys.path):
        if p and _inside_user_tree(p, src):
            sys.path[i] = dst + os.path.realpath(p)[len(src) :]


_redirect_sys_path()


_collected = {"total": 0, "selected": 0}
_deselected: dict[str, int] = {}


def pytest_collection_modifyitems(session: Any, config: Any, items: list[Any]) -> None:
    """With BENCHOP_FIRST_CASE=1 keep one parametrized case per test function: interface errors show in
    seconds."""
    _collected["total"] = len(items)
    if os.environ.get("BENCHOP_FIRST_CASE") == "1":
        seen = set()
        keep: list[Any] = []
        drop: list[Any] = []
        for item in items:
            key = (
                str(getattr(item, "path", item.fspath)),
                getattr(item, "originalname", item.name),
                getattr(getattr(item, "cls", None), "__name__", None),
            )
            (drop if key in seen else keep).append(item)
            seen.add(key)
        if drop:
            config.hook.pytest_deselected(items=drop)
            for item in drop:
                path = item.nodeid.split("::", 1)[0]
                _deselected[path] = _deselected.get(path, 0) + 1
        items[:] = keep
    _collected["selected"] = len(items)


def pytest_exception_interact(node: Any, call: Any, report: Any) -> None:
    if call.excinfo is None:
        return
    info = _exc(call.excinfo)
    nodeid = str(getattr(report, "nodeid", None) or getattr(node, "nodeid", ""))
    if getattr(report, "when", None) is None or report.when == "collect" or not hasattr(report, "when"):
        info = _cause(call.excinfo) or info
        info["nodeid"] = nodeid
        _errors.append(info)
    else:
        rec = _records.setdefault(nodeid, {"nodeid": nodeid})
        rec.setdefault("exception", info)


def pytest_runtest_logreport(report: Any) -> None:
    rec = _records.setdefault(report.nodeid, {"nodeid": report.nodeid})
    if report.when == "call" or (report.outcome != "passed" and "outcome" not in rec):
        rec["outcome"] = report.outcome
        rec["when"] = report.when
        rec["duration"] = round(getattr(report, "duration", 0.0), 6)
    if report.when == "call":
        rec["stdout"] = (report.capstdout or "")[-_MAX_OUT:]
        rec["properties"] = [[str(k), str(v)] for k, v in getattr(report, "user_properties", [])]
    if report.skipped and isinstance(report.longrepr, tuple) and len(report.longrepr) == 3:
        rec["skip_reason"] = str(report.longrepr[2])[:1000]
    elif report.failed and "longrepr" not in rec:
        rec["longrepr"] = str(report.longrepr)[-4000:]
    gpu = os.environ.get("BENCHOP_WORKER_GPU")
    if gpu is not None:
        rec["gpu"] = gpu


def pytest_collectreport(report: Any) -> None:
    if report.failed:
        text = str(report.longrepr)[-4000:]
        if not any(e.get("nodeid") == report.nodeid for e in _errors):
            _errors.append(
                {"nodeid": report.nodeid, "type": "CollectionError", "message": text, "frames": []}
            )
        for e in _errors:
            if e.get("nodeid") == report.nodeid:
                e["longrepr"] = text


def pytest_sessionfinish(session: Any, exitstatus: Any) -> None:
    path = os.environ.get("BENCHOP_RESULT")
    if not path:
        return
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker:
        path = f"{path}.{worker}"
    device = None
    torch = sys.modules.get("torch")
    if torch is not None:
        try:
            device = torch.cuda.get_device_name(0) if torch.cuda.is_available() else "cpu"
        except Exception:  # noqa: BLE001 - a broken CUDA setup must not fail the benchmark session
            device = None
    data = {
        "exitstatus": int(exitstatus),
        "tests": list(_records.values()),
        "errors": _errors,
        "device": device,
        # what the numbers were measured with, for the git note (no second interpreter to ask afterwards)
        "torch": getattr(torch, "__version__", None) if torch is not None else None,
        "python": sys.version.split()[0],
        "cuda_visible_devices": os.environ.get("CUDA_VISIBLE_DEVICES"),
        "seconds": round(time.time() - _started, 3),
        "collected": _collected["total"],
        "selected": _collected["selected"],
        "deselected": _deselected,
        "worker": worker,
    }
    tmp = f"{path}.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(data, f)
    os.replace(tmp, path)
    trees, out = _user_tree(), os.environ.get("BENCHOP_FOREIGN_OUT")
    if trees is not None and out:
        # Modules imported from the user's tree instead of the worktree: such a run measured the wrong code.
        files = {getattr(m, "__file__", None) for m in list(sys.modules.values())}
        foreign = sorted(f for f in files if isinstance(f, str) and _inside_user_tree(f, trees[0]))
        with open(out, "w", encoding="utf-8") as f:
            json.dump(foreign, f)
