"""Which argument values are choices: a literal, a flag's or a mode's value, that picks a behaviour;
sizes, dtypes and inputs are data."""

from __future__ import annotations

from benchop_hook.analysis.signatures import (
    same_default,
)

_NOT_CHOICES = {"torch", "np", "numpy", "math", "tl", "triton", "self", "cls"}


def is_choice(src: str, old_param: object | None = None) -> bool:
    """A literal or enum-like value that picks a behaviour (`True`, `"process"`, `Backend.PROCESS`,
    `AsyncSchedule`), other than the parameter's old default; sizes, dtypes and variables describe inputs."""
    import ast

    default = getattr(old_param, "default", None)
    if default is not None and same_default(src, default):
        return False
    if default is not None and _is_flag(default):
        # Whatever is passed to a flag or an enum-valued mode (`use_hqq=use_hqq` for `use_hqq: bool =
        # False`) picks a behaviour: the source text being a variable doesn't make it data.
        return True
    try:
        node = ast.parse(src, mode="eval").body
    except SyntaxError:
        return False
    negative = isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node = node.operand
    if (
        isinstance(node, ast.Constant)
        and isinstance(node.value, (int, float))
        and not isinstance(node.value, bool)
    ):
        # A number for a parameter that had a default picks a behaviour other than the default
        # (`termination_id=-1`); for one without, it is data (a size), unless it is negative: no size is,
        # a sentinel or an axis counted from the end is.
        return default is not None or negative
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (bool, str))
    if _constructs(node) or (
        isinstance(node, (ast.List, ast.Tuple)) and node.elts and all(_constructs(e) for e in node.elts)
    ):
        # GPTQModel 96ff08b3 `failsafe=FailSafe(k=1.75)`, torchrec 6ed27a68 `partitioners=[Greedy()]`: an
        # object built to pick a strategy, not data.
        return True
    if isinstance(node, ast.Name):
        # CamelCase: a class or enum passed as a strategy. ALL_CAPS and lower-case names are values.
        return node.id[:1].isupper() and any(c.islower() for c in node.id)
    if isinstance(node, ast.Attribute):
        root = node.value
        while isinstance(root, ast.Attribute):
            root = root.value
        return isinstance(root, ast.Name) and root.id not in _NOT_CHOICES and root.id[:1].isupper()
    return False


def _constructs(node: object) -> bool:
    """A call of a CamelCase name (`FailSafe(k=1.75)`, `cfg.Strategy()`): an instance built here."""
    import ast

    if not isinstance(node, ast.Call):
        return False
    f = node.func
    name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
    root = f
    while isinstance(root, ast.Attribute):
        root = root.value
    if isinstance(root, ast.Name) and root.id in _NOT_CHOICES:
        return False
    return name[:1].isupper() and any(c.islower() for c in name)


def _is_flag(default: str) -> bool:
    """A default that is a bool or an enum-like member (`False`, `Mode.FAST`). A string is not enough: it
    names a dtype as often as a mode (`dtype="f16"`), and a dtype describes the input."""
    import ast

    try:
        node = ast.parse(default, mode="eval").body
    except SyntaxError:
        return False
    if isinstance(node, ast.Constant):
        # An empty string is the "off" of an option (`resume=''`: no checkpoint, timm 9214ca0), not a dtype.
        return isinstance(node.value, bool) or node.value == ""
    if isinstance(node, ast.Attribute) and _module_constant(node):
        return True
    return isinstance(node, ast.Attribute) and is_choice(default)


def _module_constant(node: object) -> bool:
    """An ALL_CAPS constant of a module (`logging.INFO`): a level or mode picked from a fixed set, as an
    enum member is (mmcv 35ba1528: `log_level=cfg.log_level` dropped with the parameter, where the new runner
    takes a `logger` built from it)."""
    import ast

    if not isinstance(node, ast.Attribute) or not node.attr.isupper():
        return False
    root = node.value
    while isinstance(root, ast.Attribute):
        root = root.value
    return isinstance(root, ast.Name) and root.id not in _NOT_CHOICES


def choice_words(param: str, value: str) -> set[str]:
    """How a class built for the choice `param=value` spells it in its name, lower case, words joined:
    `bias=True` -> {"bias"}, `use_bias=True` -> {"usebias", "bias"}, `backend="process"` -> {"process"},
    `style=Schedule.ASYNC` -> {"async"}."""
    import ast

    try:
        node = ast.parse(value, mode="eval").body
    except SyntaxError:
        return set()
    if isinstance(node, ast.Constant) and node.value is True:
        words = [w for w in param.lower().split("_") if w]
        out = {"".join(words)}
        if len(words) > 1 and words[0] in ("use", "has", "with", "enable"):
            out.add("".join(words[1:]))
        return out
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return {"".join(c for c in node.value.lower() if c.isalnum())} - {""}
    if isinstance(node, ast.Attribute):
        return {node.attr.lower().replace("_", "")}
    return set()
