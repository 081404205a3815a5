"""Exercise checks: run a learner's function on probes and name the mistake.

    from attnlib.checks import check
    check("softmax", softmax)

A pass returns a green Report. An untouched stub (raises NotImplementedError)
returns a grey "not attempted yet" Report. Anything else raises CheckFailed (an
AssertionError) whose `.diagnosis` is a stable id from DIAGNOSES, or None; in a
notebook the red HTML report is displayed first. Set ATTNLIB_STRICT=1 (e.g. for
nbgrader's autograder) to make "not attempted" raise too.

Expected values come from attnlib's own functions on the probes; known-wrong
variants, computed on the same probes, name the mistake. The learner's arrays are
never modified (every call gets copies) and no solution code is shown.
"""
import os

import numpy as np

from .catalog_basic import EXERCISES
from . import catalog_more  # noqa: F401  (registers the 07-11 exercises)
from .diagnoses import DIAGNOSES, explain
from .report import Report
from .runner import call, close, is_number_array, quiet

EXERCISES = {ex.name: ex for ex in EXERCISES}
NAMES = tuple(EXERCISES)
TIME_LIMIT = 5.0  # seconds per call

__all__ = ["check", "NAMES", "CheckFailed", "Report", "DIAGNOSES", "hints"]


class CheckFailed(AssertionError):
    """A check did not pass. `.diagnosis` names the recognised mistake (or None); `.report` is the Report."""

    def __init__(self, message, diagnosis=None, report=None, shown=False):
        super().__init__(message)
        self.diagnosis = diagnosis
        self.report = report
        self._shown = shown

    def _render_traceback_(self):
        # IPython calls this instead of printing a long traceback; the report is already on screen.
        if self._shown:
            return [f"CheckFailed: {self.report.name} did not pass (diagnosis: {self.diagnosis}); see the report above."]
        return [f"CheckFailed: {self}"]


def hints(name):
    """(hint 1, hint 2) for an exercise name."""
    ex = _exercise(name)
    return ex.hint1, ex.hint2


def _exercise(name):
    if name not in EXERCISES:
        raise ValueError(f"unknown exercise {name!r}; known: {', '.join(NAMES)}")
    return EXERCISES[name]


def check(name, fn, time_limit=None):
    """Grade `fn` for exercise `name`. Returns a Report (pass or not attempted) or raises CheckFailed."""
    ex = _exercise(name)
    if not callable(fn):
        report = Report(name, "fail", diagnosis="wrong-type", probe="(none)",
                        problems=[f"check expects your function itself, got a {type(fn).__name__}"],
                        hints=(ex.hint1, ex.hint2), formula=ex.formula)
        _fail(report)
    if (getattr(fn, "__module__", None) or "").split(".")[0] == "attnlib":
        report = Report(name, "fail", diagnosis="uses-attnlib", probe="(none)",
                        problems=[f"{getattr(fn, '__name__', name)} is attnlib's own function, not yours"],
                        hints=(ex.hint1, ex.hint2), formula=ex.formula)
        _fail(report)
    limit = TIME_LIMIT if time_limit is None else time_limit
    outcomes, expected = [], []
    for p in ex.probes:
        expected.append(quiet(ex.reference, *p.args, **p.kwargs))
        outcomes.append(call(fn, p.args, p.kwargs, p.names, limit))
        if outcomes[0].kind == "not-implemented":
            return _not_attempted(name)
        if outcomes[-1].kind == "timeout":
            break  # one run-away call is enough; do not wait for the others
    bad = [i for i, (o, e) in enumerate(zip(outcomes, expected)) if o.kind != "ok" or o.mutated or not close(o.value, e)]
    if not bad:
        return Report(name, "pass", summary=f"{ex.verified} ({len(ex.probes)} probes).")
    diagnosis = _diagnose(ex, outcomes, expected)
    i = next((k for k in bad if outcomes[k].mutated), bad[0]) if diagnosis == "mutates-input" else bad[0]
    p, o, e = ex.probes[i], outcomes[i], expected[i]
    report = Report(name, "fail", diagnosis=diagnosis, probe=f"{i + 1} of {len(ex.probes)}: {name}({p.describe()})",
                    problems=_problems(o, e), got=o.value, expected=e, rows=p.rows, cols=p.cols,
                    hints=(ex.hint1, ex.hint2), formula=ex.formula)
    if isinstance(e, tuple) and isinstance(o.value, (tuple, list)) and len(o.value) == len(e):
        j = next(j for j, (g, x) in enumerate(zip(o.value, e)) if not close(g, x))
        report.got, report.expected = o.value[j], e[j]
        report.problems.insert(0, f"output {j} of the returned tuple is wrong")
    _fail(report)


def _not_attempted(name):
    report = Report(name, "not-attempted")
    if os.environ.get("ATTNLIB_STRICT") == "1":
        raise CheckFailed(report.text(), "not-attempted", report)
    return report


def _fail(report):
    shown = False
    try:
        from IPython import get_ipython
        from IPython.display import display
        if get_ipython() is not None:
            display(report)
            shown = True
    except ImportError:
        pass
    raise CheckFailed(report.text(), report.diagnosis, report, shown)


def _diagnose(ex, outcomes, expected):
    """The id of the recognised mistake: direct findings first, then the known-wrong variants."""
    if any(o.mutated for o in outcomes):
        return "mutates-input"
    if any(o.kind == "timeout" for o in outcomes):
        return "timeout"
    for diagnosis, wrong in ex.wrong:
        if _matches(wrong, ex.probes, outcomes, expected):
            return diagnosis
    i = next(i for i, (o, e) in enumerate(zip(outcomes, expected)) if o.kind != "ok" or not close(o.value, e))
    if outcomes[i].kind == "ok":  # two mistakes at once: name the one that explains the first failing probe
        for diagnosis, wrong in ex.wrong:
            if _matches(wrong, ex.probes[i:i + 1], outcomes[i:i + 1], expected[i:i + 1]):
                return diagnosis
    return _generic(outcomes[i], expected[i])


def _matches(wrong, probes, outcomes, expected):
    """The learner agrees with `wrong` on every probe (both raise, or equal values), and differs from
    the expected output on at least one of them."""
    differs = False
    for p, o, e in zip(probes, outcomes, expected):
        v = quiet(wrong, *p.args, **p.kwargs)
        if o.kind != "ok":
            if v is not None:
                return False
            continue
        if v is None or not close(o.value, v):
            return False
        differs = differs or not close(v, e)
    return differs


def _generic(o, e):
    if o.kind != "ok":
        return "raised-error"
    got = o.value
    if isinstance(e, tuple):
        if not isinstance(got, (tuple, list)) or len(got) != len(e):
            return "wrong-type"
        j = next(j for j, (g, x) in enumerate(zip(got, e)) if not close(g, x))
        got, e = got[j], e[j]
    if isinstance(e, (int, np.integer)):
        return "wrong-type" if not isinstance(got, (int, np.integer)) else None
    if not isinstance(got, (np.ndarray, np.generic)):
        return "wrong-type"
    got = np.asarray(got)
    if got.dtype.kind not in "fiu":
        return "wrong-dtype"
    if got.ndim == 2 and got.shape == e.shape[::-1] and close(got.T, e):
        return "output-transposed"
    if got.shape != e.shape:
        return "wrong-shape"
    if got.dtype.kind in "iu":
        return "wrong-dtype"
    if not np.all(np.isfinite(got) == np.isfinite(e)):
        return "non-finite-output"
    return None


def _problems(o, e):
    """Plain-text findings for one probe, most important first: errors, type, shape, dtype, NaN/inf."""
    found = []
    if o.mutated:
        found.append(f"your function changed its input(s) in place: {', '.join(o.mutated)}")
    if o.kind == "timeout":
        found.append("your function did not return within the time limit and was stopped")
    elif o.kind in ("error", "not-implemented"):
        found.append(f"your function raised {o.error}" + (f" (at {o.where})" if o.where else ""))
    else:
        found += _value_problems(o.value, e)
    if o.printed:
        found.append(f"your function printed {len(o.printed.splitlines())} line(s) (hidden here)")
    if o.warned:
        found.append(f"numpy warned: {'; '.join(o.warned[:3])}")
    return found


def _value_problems(got, e):
    if isinstance(e, tuple):
        if not isinstance(got, (tuple, list)) or len(got) != len(e):
            return [f"expected a tuple of {len(e)} arrays, got {_kind(got)}"]
        return [p for g, x in zip(got, e) for p in _value_problems(g, x)]
    if isinstance(e, (int, np.integer)):
        if not isinstance(got, (int, np.integer)) or isinstance(got, bool):
            return [f"expected an int, got {_kind(got)}" + (f" = {got!r}" if isinstance(got, float) else "")]
        return [f"got {int(got):,}, expected {int(e):,}"]
    if not is_number_array(got):
        return [f"expected a numpy array of shape {e.shape}, got {_kind(got)}"]
    got = np.asarray(got)
    found = []
    if got.shape != e.shape:
        found.append(f"shape: got {got.shape}, expected {e.shape}")
    if got.dtype.kind != "f":
        found.append(f"dtype: got {got.dtype}, expected a float array")
    bad = ~np.isfinite(got.astype(float))
    if bad.any():
        where = [tuple(int(i) for i in ix) for ix in np.argwhere(bad)[:4]]
        found.append(f"{int(bad.sum())} NaN/inf entries in your result, first at {', '.join(map(str, where))}")
    if not found:
        found.append("some values differ from the expected ones (see the grid)")
    return found


def _kind(x):
    if isinstance(x, np.ndarray):
        return f"an array of shape {x.shape}"
    return "None" if x is None else f"a {type(x).__name__}"
