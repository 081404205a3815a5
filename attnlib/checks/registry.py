"""Every checkable exercise, by name: one module per lesson, in course order.

Each lesson module holds its exercises and their named mistakes in a list
`EXERCISES`, may add what the values cannot show in `REQUIREMENTS`, and may add
the mistake ids only its exercises use in `DIAGNOSES` and `NUDGES` (merged into
diagnoses.py's tables here; an id defined twice is an error). A module is named
after its lesson's stem without the number (course.LESSONS), so renumbering
lessons never renames a file. The capstone
(capstone.py) grades a dict of ops rather than one function.
"""
from . import capstone, diagnoses
from . import (attention_module, batches, block, generation_and_kv_cache, heads, learned_mixing, mask_and_softmax,
               mixing_rows, next_token, no_mask, positions, projection, tokens_and_values, trained_attention)

LESSON_MODULES = (projection, batches, tokens_and_values, mixing_rows, learned_mixing, mask_and_softmax,
                  attention_module, positions, heads, block, next_token, trained_attention, no_mask,
                  generation_and_kv_cache)

EXERCISES = {ex.name: ex for module in LESSON_MODULES for ex in module.EXERCISES}
NAMES = tuple(EXERCISES) + (capstone.NAME,)  # the capstone grades a dict of ops (capstone.py)
# What the probes' values cannot show (memory held, calls made), from each module's REQUIREMENTS: functions
# run(wrapper, args) -> (diagnosis, detail) or None, asked only once every probe has passed.
REQUIREMENTS = {name: reqs for module in LESSON_MODULES for name, reqs in getattr(module, "REQUIREMENTS", {}).items()}


for _module in LESSON_MODULES + (capstone,):
    for _table, _extra in ((diagnoses.DIAGNOSES, getattr(_module, "DIAGNOSES", {})),
                           (diagnoses.NUDGES, getattr(_module, "NUDGES", {}))):
        _twice = set(_table) & set(_extra)
        if _twice:
            raise ImportError(f"{_module.__name__} redefines the diagnosis ids {sorted(_twice)}")
        _table.update(_extra)
