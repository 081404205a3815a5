"""A catalogue of learner-style implementations, written with numpy only.

WRONG[name] is a list of (expected diagnosis id, function): every one must be
rejected, and the catalogued kinds must get exactly that id (None means "no
known mistake"; the check must still reject it). It keeps only the mistakes
no wrong option of the exercise's pipeline reproduces: those options are
graded whole in test_choices.py. RIGHT[name] lists legitimate
variants (einsum, loops, mask-then-renormalise, float32 arithmetic wherever no
probe stresses precision) that must pass. They are written independently of
attnlib.checks, as a learner would.
"""
import importlib
import pkgutil

WRONG, RIGHT = {}, {}
for _info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):  # every module here: a new one is found
    _module = importlib.import_module(f"{__name__}.{_info.name}")
    for _name, _items in _module.WRONG.items():
        WRONG.setdefault(_name, []).extend(_items)
    for _name, _items in _module.RIGHT.items():
        RIGHT.setdefault(_name, []).extend(_items)
