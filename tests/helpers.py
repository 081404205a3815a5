"""Helpers for the tests (importable because pytest puts tests/ on sys.path)."""
import importlib
import os
import pathlib

import numpy as np
import pytest

IN_CI = os.environ.get("CI") == "true"
ROOT = pathlib.Path(__file__).resolve().parent.parent

# the first code cell of every narrative notebook
SETUP_LINES = ["import numpy as np", "import attnlib as at", "from attnlib import viz, widgets",
               'np.set_printoptions(formatter={"float": viz.number})  # 2 decimals, rounded as the tables round']


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


def load_notebook(stem, folder="notebooks"):
    import nbformat
    return nbformat.read(ROOT / folder / f"{stem}.ipynb", as_version=4)


def output_ignored(cell):
    """True when nbval leaves this cell's outputs uncompared, as nbval's own marker parser reads it."""
    from nbval.plugin import find_comment_markers
    return dict(find_comment_markers(cell.source)).get("check", True) is False


def code_lines(cell):
    """A code cell's lines without blanks and comments."""
    return [l for l in cell.source.splitlines() if l.strip() and not l.strip().startswith("#")]


def softmax_rows(S):
    """Plain row softmax with -inf allowed (no attnlib): an independent reference."""
    E = np.exp(S - S.max(axis=-1, keepdims=True))
    return E / E.sum(axis=-1, keepdims=True)


def numeric_grad(f, M, h=1e-6):
    """df/dM by central differences; f() reads M, which is nudged in place and restored."""
    g = np.zeros_like(M)
    for idx in np.ndindex(M.shape):
        old = M[idx]
        M[idx] = old + h
        up = f()
        M[idx] = old - h
        down = f()
        M[idx] = old
        g[idx] = (up - down) / (2 * h)
    return g


def rel_error(a, b):
    """|a - b| / (|a| + |b|) in the Frobenius norm: 0 for equal arrays, 1 for opposite ones."""
    return float(np.linalg.norm(a - b) / max(np.linalg.norm(a) + np.linalg.norm(b), 1e-300))
