"""Shared test set-up.

Tests that need an optional dependency (PyTorch for parity, chromium for the
browser suite) call `need(...)` from tests/helpers.py: it skips with a reason on a
learner's machine and fails under CI=true, where everything must be installed.
"""
import os

import matplotlib

matplotlib.use("Agg")  # no display in tests

from hypothesis import settings

settings.register_profile("ci", deadline=None, max_examples=60)
settings.register_profile("dev", deadline=None, max_examples=40)
settings.load_profile("ci" if os.environ.get("CI") == "true" else "dev")
