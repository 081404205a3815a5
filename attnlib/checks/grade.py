"""The grading engine: run the learner's function on an exercise's probes, compare, name the mistake."""
import functools
import inspect
import os
import zlib
from dataclasses import replace

import numpy as np

from . import capstone, choices, guard
from .properties import GENERAL, Ask, argument_mixups, first_finding, ignored_argument
from .registry import CHOICE_NUDGES, EXERCISES, LESSON_MODULES, NAMES, REQUIREMENTS
from .diagnoses import nudge
from .report import OUTPUTS_DIFFER, Report, problems
from .runner import FRESH_TOL, call, call_many, close, kind, quiet, words

TIME_LIMIT = 5.0  # seconds per call


class CheckFailed(AssertionError):
    """A check did not pass. `.diagnosis` names the recognised mistake (or None); `.report` is the Report."""

    def __init__(self, message, diagnosis=None, report=None, shown=False):
        super().__init__(message)
        self.diagnosis = diagnosis
        self.report = report
        self._shown = shown

    def _render_traceback_(self):
        # IPython calls this instead of printing a long traceback; the report is already on screen.
        if self._shown:  # the first line names the mistake also where only this text is shown (nbval, logs)
            first = str(self).splitlines()[0] if str(self) else f"{self.report.name} did not pass"
            return [f"CheckFailed: {first} (diagnosis: {self.diagnosis}); the full report is in the cell's output."]
        return [f"CheckFailed: {self}"]


def hints(name):
    """(hint 1 the concept, hint 2 the nudge, hint 3 the formula) for an exercise name."""
    if name == capstone.NAME:
        return capstone.HINT1, capstone.HINT2, capstone.FORMULA
    ex = _exercise(name)
    return ex.hint1, ex.hint2, ex.formula


def _exercise(name):
    if name not in EXERCISES:
        raise ValueError(f"unknown exercise {name!r}; known: {', '.join(NAMES)}")
    return EXERCISES[name]


def check(name, fn, time_limit=None):
    """Grade `fn` for exercise `name`. Returns a Report (pass or not attempted) or raises CheckFailed.

    check("capstone", ops) grades a dict of ops instead of one function (capstone.py)."""
    if name == capstone.NAME:
        report = capstone.grade(fn, time_limit)
        if report.status == "not-attempted":
            return _not_attempted(report)
        return report if report.passed else _fail(report)
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
    trusted = guard.TRUSTED[name]
    _refuse_if_modified(name, ex)
    probes, outcomes = _run(fn, trusted, limit)
    if outcomes[0].kind == "not-implemented":
        return _not_attempted(Report(name, "not-attempted"))
    _refuse_if_modified(name, ex)  # the watchdog thread runs in this process: look again
    probes, outcomes, expected = _expected(trusted, probes, outcomes)
    bad = [i for i, (p, o, e) in enumerate(zip(probes, outcomes, expected))
           if o.kind != "ok" or o.mutated or not close(o.value, e, None if p.seed is None else FRESH_TOL)]
    found = _isolation_finding(outcomes, expected)
    if found:
        diagnosis, i, problem = found
        detail = None
        bad = [i]
    elif not bad:
        unmet = _wrong_type(ex, outcomes) or _unmet_requirement(name, fn, trusted, limit)
        if not unmet:
            return Report(name, "pass", summary=f"{ex.verified} ({len(trusted.probes)} probes).")
        diagnosis, detail = unmet
        report = Report(name, "fail", diagnosis=diagnosis, probe=f"the extra check after all {len(trusted.probes)} "
                        "probes passed",
                        problems=[detail, "the values it returned are right"], hints=(ex.hint1, ex.hint2),
                        formula=ex.formula)
        _fail(report)
    else:  # named from the fixed probes, designed to tell the mistakes apart, when one of them fails
        k = len(trusted.probes) if bad[0] < len(trusted.probes) else len(probes)
        diagnosis, detail, pointer = _diagnose(replace(ex, reference=trusted.reference, probes=probes[:k]),
                                               outcomes[:k], expected[:k],
                                               Ask(lambda calls: call_many(fn, calls, limit, trusted.forbidden)),
                                               _defaults(fn))
    i = next((k for k in bad if outcomes[k].mutated), bad[0]) if diagnosis == "mutates-input" else bad[0]
    p, o, e = probes[i], outcomes[i], expected[i]
    extra = len(probes) - len(trusted.probes)  # the fresh random copies of the fixed probes
    fresh = f", {extra} of them fresh random copies" if extra else ""
    report = Report(name, "fail", diagnosis=diagnosis, probe=f"{i + 1} of {len(probes)}{fresh}: {name}({p.describe()})",
                    problems=[problem] if found else problems(o, e, detail), got=None if found else o.value,
                    expected=e, rows=p.rows, cols=p.cols, hints=(ex.hint1, ex.hint2), formula=ex.formula,
                    nudge="" if found else pointer)
    if not found and isinstance(e, tuple) and isinstance(o.value, (tuple, list)) and len(o.value) == len(e):
        wrong = [j for j, (g, x) in enumerate(zip(o.value, e)) if not close(g, x)]
        if wrong:
            report.got, report.expected = o.value[wrong[0]], e[wrong[0]]  # the grid shows the first wrong one
            if not any(p.startswith(OUTPUTS_DIFFER) for p in report.problems):  # said once, not twice
                which = (f"output {wrong[0]} of the returned tuple is" if len(wrong) == 1 else
                         f"outputs {', '.join(map(str, wrong[:-1]))} and {wrong[-1]} of the returned tuple are")
                report.problems.insert(1 if detail else 0, f"{which} wrong")
    if ex.uses:
        report.problems.append(f"if {name} calls your own {' or '.join(ex.uses)}, make sure their checks pass "
                               "first: their mistakes show up here too")
    _fail(report)


def _wrong_type(ex, outcomes):
    """(diagnosis, detail) when the values are right but not of the Python type the exercise text asks for: an int
    (not a numpy integer), or a list (a tuple will do) of Python strings (not an array of numpy ones)."""
    def fits(v):
        if ex.returns is list:
            return isinstance(v, (list, tuple)) and all(type(x) is str for x in v)
        return type(v) is ex.returns
    wrong = next((o.value for o in outcomes if ex.returns and not fits(o.value)), None)
    if wrong is None:
        return None
    kind = type(wrong).__name__ + (f" of {type(wrong[0]).__name__}" if isinstance(wrong, (list, tuple, np.ndarray))
                                   and len(wrong) else "")
    return (f"not-a-python-{ex.returns.__name__}",
            f"your function returned a {kind}, where the exercise asks for a Python {ex.returns.__name__}"
            + (" of str" if ex.returns is list else ""))


def _unmet_requirement(name, fn, trusted, limit):
    """(diagnosis, detail) of the first requirement (registry.REQUIREMENTS) a function with right values misses."""
    def run(wrapper, args):
        return call(wrapper(fn), args, {}, (), max(limit, 30.0), trusted.forbidden)
    return next((found for requirement in REQUIREMENTS.get(name, ()) if (found := requirement(run))), None)


def _run(fn, trusted, limit):
    """Run fn on the exercise's fixed probes plus a fresh random copy of each, in a separate process
    (see runner.py). Returns (probes, outcomes); outcomes stop early after a timeout or a crash.

    The fresh copies only guard against outputs memorised for the fixed probes, so they are compared with
    the looser FRESH_TOL: a random draw can put two huge scores within float32's reach of each other. Their seed
    comes from the learner's code, so the same function gets the same verdict on every run, and a table of
    outputs cannot know the draws before it is written."""
    seed = code_seed(fn)
    fresh = [p.fresh(seed + k) for k, p in enumerate(trusted.probes)]
    probes = list(trusted.probes) + [p for p in fresh if p is not None]
    outcomes = call_many(fn, [(p.args, p.kwargs, p.names) for p in probes], limit, trusted.forbidden)
    return probes, outcomes


def code_seed(fn):
    """A seed from what fn's code says (its bytecode, names and constants, nested functions included), not from
    where it was defined: the same function in another kernel, cell or file gets the same seed."""
    def words(code):
        consts = [words(k) if hasattr(k, "co_code") else repr(k) for k in code.co_consts]
        return [code.co_code.hex(), *code.co_names, *code.co_varnames, *consts]
    call = type(fn).__dict__.get("__call__")  # an object with a __call__ method: that method's code
    code = getattr(fn, "__code__", None) or getattr(call, "__code__", None)
    if code is None:
        return zlib.crc32(repr(type(fn)).encode())
    return zlib.crc32(repr(words(code)).encode())


def _expected(trusted, probes, outcomes):
    """The reference's values, computed only now that the learner's calls are done (they never held them).
    A fresh probe the reference itself refuses is dropped."""
    expected = [quiet(trusted.reference, *p.args, **p.kwargs) for p in probes[:len(outcomes)]]
    keep = [i for i, (p, o, e) in enumerate(zip(probes, outcomes, expected))
            if p.seed is None or e is not None or o.kind in ("timeout", "crashed")]
    return ([xs[i] for i in keep] for xs in (probes, outcomes, expected))


def _isolation_finding(outcomes, expected):
    """(diagnosis, probe index, problem) for what the isolated run saw itself, most serious first, or None."""
    for i, o in enumerate(outcomes):
        if o.tampered:
            return "grader-modified", i, (f"your function switched off the grader's watch ({o.tampered}); "
                                          "restart the kernel and run your cells again")
    used = sorted({u for o in outcomes for u in o.used})
    if used and not any(o.mutated for o in outcomes):
        i = next(i for i, o in enumerate(outcomes) if o.used)
        return "uses-attnlib", i, (f"your function runs attnlib's own {', '.join(used)} (directly, through "
                                   "functools.partial or inside a wrapper); write it yourself with numpy")
    for i, (o, e) in enumerate(zip(outcomes, expected)):
        if o.kind == "crashed":
            return "crashed", i, o.error
        if o.unusable:
            return ("wrong-shape" if "too large" in o.unusable else "wrong-type", i,
                    f"expected {kind(e)}, got {o.unusable}")
    return None


def _refuse_if_modified(name, ex):
    found = guard.changed(name)
    if found:
        shown = ", ".join(found[:3]) + (f" and {len(found) - 3} more" if len(found) > 3 else "")
        report = Report(name, "fail", diagnosis="grader-modified", probe="(none)",
                        problems=[f"the grader was modified in this kernel ({shown} replaced): restart the kernel "
                                  "and run your cells again"], hints=(ex.hint1, ex.hint2), formula=ex.formula)
        _fail(report)


def strict():
    """True when "not attempted" must fail: ATTNLIB_STRICT is 1/true/yes (any case), or nbgrader is grading."""
    flag = os.environ.get("ATTNLIB_STRICT", "").strip().lower() in ("1", "true", "yes")
    return flag or bool(os.environ.get("NBGRADER_EXECUTION"))


def _not_attempted(report):
    if strict():
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


# Property findings per exercise, from each lesson module's FINDINGS (see properties.py).
FINDINGS = {name: found for module in LESSON_MODULES for name, found in getattr(module, "FINDINGS", {}).items()}


def _defaults(fn):
    """{parameter: default} of a plain function's signature, read off the function object without calling it."""
    if not inspect.isfunction(fn):
        return {}
    code, given = fn.__code__, fn.__defaults__ or ()
    names = code.co_varnames[:code.co_argcount]
    return {**dict(zip(names[len(names) - len(given):], given)), **(fn.__kwdefaults__ or {})}


def _wrong_default(ex, defaults, outcomes, expected):
    """(id, detail) when a default in the learner's signature differs from the exercise's, and the reference called
    with the learner's default reproduces the learner on every probe."""
    signature = inspect.signature(ex.reference)
    for name, mine in defaults.items():
        right = signature.parameters.get(name, inspect.Parameter.empty)
        right = right.default if right is not inspect.Parameter.empty else inspect.Parameter.empty
        if right is inspect.Parameter.empty or (type(mine) is type(right) and _equal(mine, right)):
            continue

        def with_mine(*args, name=name, mine=mine, **kwargs):
            given = signature.bind_partial(*args, **kwargs).arguments
            return ex.reference(*args, **kwargs, **({} if name in given else {name: mine}))
        if choices.matches(with_mine, ex.probes, outcomes, expected):
            return "wrong-default", f"your signature's default for {name} is {mine!r}; the exercise's is {right!r}"
    return None


def _equal(a, b):
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - an array default compares element-wise
        return False


def _diagnose(ex, outcomes, expected, ask, defaults=None):
    """(id, detail, nudge) of the recognised mistake. In order: what the run saw (a changed input, a timeout); a
    default of the learner's signature (`defaults`) that the reference reproduces them with; the neighbour of the
    exercise's pipeline that reproduces the learner on every probe (choices.py), or the terms its
    gradient is rebuilt from; the exercise's property findings, then the general ones; what the output looks
    like. The nudge is the changed choice's, if any."""
    if any(o.mutated for o in outcomes):
        return "mutates-input", None, ""
    if any(o.kind == "timeout" for o in outcomes):
        return "timeout", None, ""
    found = _wrong_default(ex, defaults or {}, outcomes, expected)
    if found:
        return (*found, "")
    if ex.pipeline is not None:
        found = choices.name(ex.pipeline, ex.probes, outcomes, expected) or _fitted(ex, outcomes)
        if found:
            diagnosis, changed = found
            terms = [f"in {key[0]}, the term {key[1]} carries a factor {k:g} instead of 1"
                     for key, k in changed.items() if isinstance(key, tuple)]
            return diagnosis, "; ".join(terms) or None, _nudge(_choice(k) for k in changed)
    seen = list(zip(ex.probes, outcomes, expected))
    names = ex.probes[0].names or tuple(f"argument {k}" for k in range(len(ex.probes[0].args)))
    diagnosis, detail = first_finding(FINDINGS.get(ex.name, []) + GENERAL + [argument_mixups(ex.reference, names),
                                                                              ignored_argument(ex.reference, names)],
                                      ask, seen)
    if diagnosis:
        return diagnosis, detail, nudge_for(ex.name, diagnosis)  # a choice's nudge, where a choice names it too
    i = next(i for i, (o, e) in enumerate(zip(outcomes, expected)) if o.kind != "ok" or not close(o.value, e))
    return _generic(outcomes[i], expected[i]), None, ""


def nudge_for(name, diagnosis):
    """Hint 2 of exercise `name` once its check named `diagnosis`: the nudges of the choices of its pipeline that
    name it, else the id's own nudge ('' when there is neither), as its report shows."""
    owners = _choices_naming(name) if name in EXERCISES else {}
    return _nudge(owners[d] for d in (diagnosis or "").split("+") if d in owners) or nudge(diagnosis)


def _nudge(changed):
    """The nudges of the choices changed, each once."""
    return " ".join(dict.fromkeys(CHOICE_NUDGES.get(c, "") for c in changed)).strip()


@functools.cache
def _choices_naming(name):
    """{diagnosis id: choice} of every wrong option of the exercise's pipeline that its fixed probes can see."""
    ex = EXERCISES[name]
    ring = choices.neighbours(ex.pipeline, ex.probes)[0] if ex.pipeline is not None else []
    return {choices.mistake_id(c, o): c for chosen in ring for c, o in chosen.items() if not isinstance(c, tuple)}


def _choice(key):
    """The choice a neighbour changed: its name, or for a gradient's term the gradient's."""
    return key[0] if isinstance(key, tuple) else key


def _fitted(ex, outcomes):
    """(id, {(gradient, term): coefficient}) when the learner's gradient is exactly the reference's own terms with
    other coefficients (fitted by least squares)."""
    for gradient, part in ex.gradients:
        fitted = choices.fit_terms(ex.pipeline, ex.probes, outcomes, gradient, part)
        if fitted:
            wrong = {(gradient, t): k for t, k in fitted.items() if abs(k - 1.0) > 1e-6}
            return "+".join(choices.mistake_id(key, k) for key, k in wrong.items()), wrong
    return None


def _generic(o, e):
    if o.kind != "ok":
        return "raised-error"
    got = o.value
    if isinstance(e, tuple):
        if not isinstance(got, (tuple, list)) or len(got) != len(e):
            return "wrong-type"
        j = next((j for j, (g, x) in enumerate(zip(got, e)) if not close(g, x)), 0)
        got, e = got[j], e[j]
    if isinstance(e, list):
        said = words(got)
        return "wrong-type" if said is None else ("wrong-shape" if len(said) != len(e) else None)
    if isinstance(e, (int, np.integer)):
        return "wrong-type" if not isinstance(got, (int, np.integer)) else None
    if isinstance(got, bool) or not isinstance(got, (np.ndarray, np.generic, int, float)):
        return "wrong-type"
    got = np.asarray(got)
    if got.dtype.kind not in "fiu":
        return "wrong-dtype"
    if got.ndim == 2 and got.shape == e.shape[::-1] and close(got.T, e):
        return "output-transposed"
    if got.shape != e.shape:
        return "wrong-shape"
    if got.dtype.kind in "iu" and np.asarray(e).dtype.kind == "f":
        return "int-array"  # an integer array truncates the real values written into it
    if (got.dtype.kind in "iu") != (np.asarray(e).dtype.kind in "iu"):
        return "wrong-dtype"  # floats where ids are expected
    if not np.all(np.isfinite(got) == np.isfinite(e)):
        return "non-finite-output"
    return None


guard.seal()  # last: every grader module is loaded; from now on a replaced one is reported
