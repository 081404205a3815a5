"""Helpers for the tests (importable because pytest puts tests/ on sys.path)."""
import importlib
import os

import numpy as np
import pytest

IN_CI = os.environ.get("CI") == "true"


def need(module, why=""):
    """Import an optional module, or skip (fail under CI=true) with a stated reason."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        reason = f"needs {module} ({exc}); {why}".rstrip("; ")
        if IN_CI:
            pytest.fail(f"CI=true but a dependency is missing: {reason}")
        pytest.skip(reason)


def unavailable(reason):
    """Skip for a missing system dependency, or fail under CI=true."""
    if IN_CI:
        pytest.fail(f"CI=true but a dependency is missing: {reason}")
    pytest.skip(reason)


def rng(seed=0):
    return np.random.default_rng(seed)
