"""What the grader trusts, captured once at import, and a test that nothing it relies on was replaced since.

Learner code runs in the learner's own kernel, so it could rebind what the grader
uses (`np.allclose = ...`, `EXERCISES["softmax"].reference = ...`, a function's
`__code__`). The grader therefore grades with what it captured here when it was
imported, and `changed()` names anything rebound since, so that a check reports
"restart the kernel" instead of trusting it. Nothing in one process is out of
reach of code running in it; this catches every ordinary patch, not a determined
rewrite of the grader's own private state.
"""
import copy
import functools
import inspect
import sys
import types
from dataclasses import dataclass

import numpy as np

import attnlib

from .registry import EXERCISES

# the standard library the grader relies on, name by name (other names there change legitimately, e.g. warnings)
_STDLIB = {
    "builtins": "isinstance callable getattr len type bool int float tuple list dict zip range any all max min abs "
                "sorted next enumerate iter id",
    "os": "fork pipe read write kill waitpid _exit urandom dup2",
    "sys": "setprofile getprofile",
    "copy": "deepcopy",
    "pickle": "dumps Unpickler",
    "select": "select",
    "threading": "setprofile Thread Event",
    "time": "monotonic",
}


@dataclass(frozen=True)
class Trusted:
    """An exercise as captured at import: its reference, read-only copies of its probes, and the code objects
    a learner's function must not run (the reference, and attnlib's and the grader's functions of that name)."""
    reference: object
    probes: tuple
    forbidden: frozenset     # ids of code objects


def _read_only(a):
    if isinstance(a, np.ndarray):
        a.flags.writeable = False
    elif isinstance(a, dict):
        for v in a.values():
            _read_only(v)
    elif isinstance(a, (list, tuple)):
        for v in a:
            _read_only(v)
    return a


def _code(fn):
    """The code object that runs when fn is called (through partials and decorators), or None."""
    while True:
        fn = inspect.unwrap(fn)
        if not isinstance(fn, functools.partial):
            break
        fn = fn.func
    return getattr(fn, "__code__", None)


def _trusted(name, ex):
    probes = copy.deepcopy(ex.probes)
    for p in probes:
        _read_only((p.args, p.kwargs))
    same_name = [getattr(m, name, None) for n, m in list(sys.modules.items()) if n.startswith("attnlib.checks.")]
    codes = {_code(f) for f in [ex.reference, getattr(attnlib, name, None)] + same_name if callable(f)} - {None}
    return Trusted(ex.reference, tuple(probes), frozenset(id(c) for c in codes))


def _watched_modules():
    prefixes = ("attnlib.checks.", "attnlib._", "attnlib.projection", "attnlib.mixing", "attnlib.attention",
                "attnlib.layers", "attnlib.loss", "attnlib.block", "attnlib.cache", "attnlib.model")
    mods = [np, np.linalg, attnlib]
    mods += [m for n, m in sorted(sys.modules.items()) if n.startswith(prefixes) and isinstance(m, types.ModuleType)]
    return mods


def _state(value):
    """What must stay the same: the object, and for a function its code and defaults."""
    if isinstance(value, types.FunctionType):
        body = inspect.unwrap(value)  # a public function's own body, behind its declared contract
        return value, value.__code__, value.__defaults__, value.__kwdefaults__, body.__code__, body.__defaults__
    return (value,)


def _same(a, b):
    return len(a) == len(b) and all(x is y for x, y in zip(a, b))


def _snapshot():
    snap = {m.__name__: {k: _state(v) for k, v in vars(m).items() if not k.startswith("__")}
            for m in _watched_modules()}
    for module, names in _STDLIB.items():
        snap[module] = {k: _state(getattr(sys.modules[module], k)) for k in names.split() if
                        hasattr(sys.modules[module], k)}
    return snap


TRUSTED = types.MappingProxyType({name: _trusted(name, ex) for name, ex in EXERCISES.items()})
_EXERCISES = types.MappingProxyType(dict(EXERCISES))
_SNAPSHOT = None


def seal():
    """Record the state to compare with; grade.py calls it once, after every grader module is loaded."""
    global _SNAPSHOT
    if _SNAPSHOT is None:
        _SNAPSHOT = _snapshot()
        _SNAPSHOT[__name__]["_SNAPSHOT"] = _state(_SNAPSHOT)


def changed(name):
    """What was replaced since the grader was imported: a list of dotted names, empty when nothing."""
    found = []
    ex = EXERCISES.get(name)
    if ex is not _EXERCISES[name]:
        found.append(f"attnlib.checks.EXERCISES[{name!r}]")
    elif ex.reference is not TRUSTED[name].reference:
        found.append(f"attnlib.checks.EXERCISES[{name!r}].reference")
    for module, names in (_SNAPSHOT or {}).items():
        current = vars(sys.modules.get(module, types.ModuleType("")))
        for k, before in names.items():
            if k in current and not _same(_state(current[k]), before):  # a name deleted fails on its own
                found.append(f"{module}.{k}")
    return found
