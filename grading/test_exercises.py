"""The pytest grading route: one test per exercise over a learner's exercise notebooks.

    make grade-pytest                                    # workspace/exercises/
    ATTNLIB_EXERCISES=some/folder python -m pytest -o addopts="" grading/

Each notebook runs once, in a fresh kernel (attnlib.course.notebooks.graded, cached
by content); each of its check cells becomes one test, which fails with the
diagnosis id and the check's report. `make test` does not collect this folder.
"""
import functools
import os
import pathlib

import pytest

from attnlib.course import workspace
from attnlib.course import notebooks
from attnlib.course import EXERCISE_LESSONS

ROOT = pathlib.Path(__file__).resolve().parent.parent
FOLDER = pathlib.Path(os.environ.get("ATTNLIB_EXERCISES") or ROOT / "workspace" / "exercises")
CASES = [(les.stem, name) for les in EXERCISE_LESSONS for name in les.exercises]


if "ATTNLIB_EXERCISES" not in os.environ:
    workspace.sync(ROOT)  # the learner's copies, made on first use (never overwritten)


@functools.lru_cache(maxsize=None)
def outcomes(stem):
    path = FOLDER / f"{stem}.ipynb"
    if not path.exists():
        return None
    return {r["name"]: r for r in notebooks.graded(path)}


@pytest.mark.parametrize("stem, name", CASES, ids=[f"{stem[:2]}-{name}" for stem, name in CASES])
def test_exercise(stem, name):
    found = outcomes(stem)
    if found is None:
        pytest.fail(f"{FOLDER / stem}.ipynb does not exist (python -m attnlib status creates the workspace)")
    result = found.get(name)
    if result is None:
        pytest.fail(f"{stem}.ipynb has no check cell for {name}")
    why = f" (diagnosis: {result['diagnosis']})" if result["diagnosis"] else ""
    assert result["status"] == "passed", f"{name}: {result['status']}{why}\n{result['text']}"
