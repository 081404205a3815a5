"""Shared test set-up.

The tests are laid out by product: lib/ (the maths), grader/ (the checks, with their mutants/ and blind/ sets),
course/ (the course tooling and the notebook rules), viewers/, notebooks/ (one file per lesson: the claims its
text makes) and browser/. The folders are not packages: a test file imports the shared modules by their plain
names, `helpers` from tests/ and `mutants` and `blind` from tests/grader/, which this file puts on sys.path
whichever folder or file is run. So test file names must be unique across the folders (pytest refuses two
modules of the same name).

Tests that need an optional dependency (PyTorch for parity, chromium for the
browser suite) call `need(...)` from tests/helpers.py: it skips with a reason on a
learner's machine and fails under CI=true, where everything must be installed.
"""
import os
import pathlib
import sys

import matplotlib

matplotlib.use("Agg")  # no display in tests

from hypothesis import settings

TESTS = pathlib.Path(__file__).resolve().parent
for folder in (TESTS / "grader", TESTS):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

settings.register_profile("ci", deadline=None, max_examples=60)
settings.register_profile("dev", deadline=None, max_examples=40)
settings.load_profile("ci" if os.environ.get("CI") == "true" else "dev")
