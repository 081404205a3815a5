"""Exercise checks: run a learner's function on probes and name the mistake.

    from attnlib.checks import check
    check("softmax", softmax)

A pass returns a green Report. An untouched stub (raises NotImplementedError)
returns a grey "not attempted yet" Report. Anything else raises CheckFailed (an
AssertionError) whose `.diagnosis` is a stable id from DIAGNOSES, or None; in a
notebook the red HTML report is displayed first. "Not attempted" raises too when
ATTNLIB_STRICT is 1, true or yes (any case), and by itself under nbgrader's
autograder (NBGRADER_EXECUTION is set), so a blank submission never scores.

Precision: float32 arithmetic passes every probe that does not stress precision,
while the probes that do (layer norm rows around ten million, a softmax_backward
dA around 10,000) need float64 and name a loss there precision-loss or
variance-cancellation.

Expected values come from attnlib's own functions on the probes; the learner's
function runs in a separate process on copies of them (runner.py). Each exercise is
written once more as a pipeline with the choices a learner makes in it (choices.py):
the neighbour that reproduces the learner's output on every probe names the mistake,
and property probes say what the rest looks like. No solution code is shown.

Layout: grade.py runs a check; registry.py lists the exercises, one module per
lesson named after its stem (projection.py ... generation_and_kv_cache.py), each
holding its exercises next to their pipelines (or, where none is written yet, named
mistakes); spec.py and probes.py are what those are built from; choices.py generates
and matches the neighbours; properties.py holds the property probes; diagnoses.py,
report.py, runner.py and guard.py explain, show, safely call and watch for tampering;
collect.py gathers the learner's functions for the capstone (my_functions, imported
on first use).
"""
from .diagnoses import DIAGNOSES
from .grade import CheckFailed, check, hints
from .registry import EXERCISES, NAMES
from .report import Report

__all__ = ["check", "NAMES", "CheckFailed", "Report", "DIAGNOSES", "hints", "EXERCISES", "my_functions"]


def __getattr__(name):
    """my_functions, imported on first use: it reads notebooks with nbformat, whose import takes seconds that
    a check cell should not pay."""
    if name == "my_functions":
        from .collect import my_functions
        return my_functions
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
