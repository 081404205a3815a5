"""Run a learner's function safely and compare what it returns.

A call gets copies of the probe's arrays (the originals are kept to detect
mutation), its prints and warnings are captured instead of reaching the
notebook, and a run-away call is stopped by SIGALRM after a time limit (only in
the main thread, where notebook cells run; elsewhere there is no limit). Any
exception, even SystemExit, becomes an Outcome: the kernel never dies.
"""
import contextlib
import copy
import io
import signal
import threading
import traceback
import warnings
from dataclasses import dataclass, field

import numpy as np


class _TimeUp(BaseException):
    """Raised inside a run-away call; a BaseException so `except Exception` cannot swallow it."""


@dataclass
class Outcome:
    kind: str                 # "ok", "error", "not-implemented", "timeout"
    value: object = None
    error: str = ""           # "ValueError: ..." for errors
    where: str = ""           # the learner's line that raised, if found
    printed: str = ""
    warned: list = field(default_factory=list)
    mutated: list = field(default_factory=list)  # names of arguments changed in place


@contextlib.contextmanager
def _time_limit(seconds):
    if not seconds or threading.current_thread() is not threading.main_thread():
        yield
        return

    def on_alarm(signum, frame):
        raise _TimeUp()

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _learner_line(tb):
    """The last traceback frame outside attnlib.checks: where the learner's code failed."""
    frames = [f for f in traceback.extract_tb(tb) if "attnlib/checks" not in f.filename.replace("\\", "/")]
    if not frames:
        return ""
    f = frames[-1]
    return f"line {f.lineno}: {f.line}" if f.line else f"line {f.lineno}"


def _snapshot(value):
    return copy.deepcopy(value)


def _same_input(a, b):
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and a.shape == b.shape and a.dtype == b.dtype and \
            np.array_equal(a, b, equal_nan=True)
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same_input(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(_same_input(x, y) for x, y in zip(a, b))
    return a == b


def call(fn, args, kwargs, names, time_limit):
    """Call fn(*args, **kwargs) on copies; return an Outcome. `names` label args for mutation reports."""
    given = [_snapshot(a) for a in args]
    given_kw = {k: _snapshot(v) for k, v in kwargs.items()}
    saved = [_snapshot(a) for a in args]
    saved_kw = {k: _snapshot(v) for k, v in kwargs.items()}
    out, printed = io.StringIO(), io.StringIO()
    outcome = Outcome("ok")
    with warnings.catch_warnings(record=True) as caught, np.errstate(all="warn"):
        warnings.simplefilter("always")
        try:
            with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(out), _time_limit(time_limit):
                outcome.value = fn(*given, **given_kw)
        except _TimeUp:
            outcome = Outcome("timeout")
        except NotImplementedError as exc:
            outcome = Outcome("not-implemented", error=f"NotImplementedError: {exc}")
        except BaseException as exc:  # noqa: BLE001 - learner code may raise anything
            if isinstance(exc, KeyboardInterrupt):
                raise
            outcome = Outcome("error", error=f"{type(exc).__name__}: {exc}", where=_learner_line(exc.__traceback__))
    outcome.printed = printed.getvalue() + out.getvalue()
    outcome.warned = sorted({str(w.message) for w in caught})
    outcome.mutated = [n for n, a, b in zip(names, saved, given) if not _same_input(a, b)]
    outcome.mutated += [k for k in saved_kw if not _same_input(saved_kw[k], given_kw[k])]
    return outcome


def quiet(fn, *args, **kwargs):
    """Run one of the grader's own (possibly wrong) variants: None if it raises, no warnings."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return fn(*[_snapshot(a) for a in args], **{k: _snapshot(v) for k, v in kwargs.items()})
        except Exception:  # noqa: BLE001 - a wrong variant may not apply to this probe's shapes
            return None


# ----------------------------------------------------------------------------
# comparison

RTOL, ATOL = 1e-5, 1e-7  # loose enough for float32 arithmetic, tight enough for every catalogued mistake


def is_number_array(x):
    return isinstance(x, (np.ndarray, np.generic)) and np.asarray(x).dtype.kind in "fiu"


def close(got, expected):
    """True when got matches expected: same structure and shape, values within tolerance (NaN == NaN)."""
    if isinstance(expected, tuple):
        return isinstance(got, (tuple, list)) and len(got) == len(expected) and \
            all(close(g, e) for g, e in zip(got, expected))
    if isinstance(expected, (int, np.integer)) and not isinstance(expected, bool):
        return isinstance(got, (int, np.integer)) and not isinstance(got, bool) and int(got) == int(expected)
    if got is None or not is_number_array(got):
        return False
    got, expected = np.asarray(got, dtype=float), np.asarray(expected, dtype=float)
    if got.shape != expected.shape:
        return False
    finite = expected[np.isfinite(expected)]
    atol = ATOL * max(1.0, float(np.abs(finite).max()) if finite.size else 1.0)
    with np.errstate(all="ignore"):
        return bool(np.allclose(got, expected, rtol=RTOL, atol=atol, equal_nan=True))
