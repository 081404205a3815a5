"""A catalogue of learner-style implementations, written with numpy only.

WRONG[name] is a list of (expected diagnosis id, function): every one must be
rejected, and the catalogued kinds must get exactly that id (None means "no
known mistake"; the check must still reject it). RIGHT[name] lists legitimate
variants (einsum, loops, mask-then-renormalise, float32 arithmetic wherever no
probe stresses precision) that must pass. They are written independently of
attnlib.checks, as a learner would.
"""
from . import basics, capstone, generation, masking, modules, positions, trained_attention

WRONG, RIGHT = {}, {}
for _module in (basics, masking, positions, modules, trained_attention, generation, capstone):
    for _name, _items in _module.WRONG.items():
        WRONG.setdefault(_name, []).extend(_items)
    for _name, _items in _module.RIGHT.items():
        RIGHT.setdefault(_name, []).extend(_items)
