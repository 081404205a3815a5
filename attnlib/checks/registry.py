"""Every checkable exercise, by name: one module per lesson, in course order.

Each lesson module holds its exercises and their named mistakes in a list
`EXERCISES`, may add what the values cannot show in `REQUIREMENTS`, and may add
the mistake ids only its exercises use in `DIAGNOSES` and `NUDGES` (merged into
diagnoses.py's tables here; an id or a choice defined twice is an error). A module is named
after its lesson's stem without the number (course.LESSONS), so renumbering
lessons never renames a file, and the list of modules comes from the manifest: a lesson
with exercises other than the capstone has one. The capstone (capstone.py) grades a dict
of ops rather than one function.
"""
import importlib

from ..course import LESSONS
from . import capstone, diagnoses

LESSON_MODULES = tuple(importlib.import_module(f".{lesson.stem[3:]}", __package__) for lesson in LESSONS
                       if lesson.exercises and lesson.exercises != (capstone.NAME,))

EXERCISES = {ex.name: ex for module in LESSON_MODULES for ex in module.EXERCISES}
NAMES = tuple(name for lesson in LESSONS for name in lesson.exercises)  # in course order; the capstone is one of them
if set(NAMES) != set(EXERCISES) | {capstone.NAME}:
    raise ImportError("the manifest and the checks modules list other exercises: "
                      f"{sorted(set(NAMES) ^ set(EXERCISES) - {capstone.NAME})}")
# What the probes' values cannot show (memory held, calls made), from each module's REQUIREMENTS: functions
# run(wrapper, args) -> (diagnosis, detail) or None, asked only once every probe has passed.
# The nudge of each choice a pipeline makes (choices.py), from each module's CHOICES: {choice: nudge}.
# A choice named in two modules would show one module's nudge for the other's choice: refused below, as an id is.
CHOICE_NUDGES = {}
REQUIREMENTS = {name: reqs for module in LESSON_MODULES for name, reqs in getattr(module, "REQUIREMENTS", {}).items()}


for _module in LESSON_MODULES + (capstone,):
    for _table, _extra in ((diagnoses.DIAGNOSES, getattr(_module, "DIAGNOSES", {})),
                           (diagnoses.NUDGES, getattr(_module, "NUDGES", {})),
                           (CHOICE_NUDGES, getattr(_module, "CHOICES", {}))):
        _twice = set(_table) & set(_extra)
        if _twice:
            raise ImportError(f"{_module.__name__} redefines the diagnosis ids or choices {sorted(_twice)}")
        _table.update(_extra)
