"""Every catalogued wrong implementation is rejected and named; every legitimate variant passes."""
import pytest

from attnlib import checks, course
from attnlib.checks import choices, registry
from attnlib.checks import CheckFailed, check
from mutants import RIGHT, WRONG

COURSE = [name for lesson in course.LESSONS for name in lesson.exercises]

WRONG_CASES = [(name, expected, fn) for name, items in WRONG.items() for expected, fn in items]
RIGHT_CASES = [(name, fn) for name, items in RIGHT.items() for fn in items]


def label(fn):
    """A test id: the function's name, or for the capstone's dict of ops the names of its ops."""
    return fn.__name__ if callable(fn) else "+".join(sorted(fn))[:60]


def test_catalogue_covers_every_exercise():
    """Every exercise has right answers written differently; its mistakes are its pipeline's wrong options (each
    graded whole in test_choices.py) and, here, the ones no option reproduces."""
    assert set(COURSE) == set(checks.NAMES) == set(RIGHT) and set(WRONG) <= set(COURSE)
    for name in COURSE:
        assert len(RIGHT[name]) >= 3, name
        assert registry.EXERCISES.get(name, None) is None or registry.EXERCISES[name].pipeline is not None \
            or len(WRONG.get(name, ())) >= 2, name


@pytest.mark.parametrize("name, expected, fn", WRONG_CASES, ids=[f"{n}-{label(f)}" for n, _, f in WRONG_CASES])
def test_wrong_implementation_is_rejected_and_named(name, expected, fn):
    with pytest.raises(CheckFailed) as info:
        check(name, fn)
    assert info.value.diagnosis == expected


@pytest.mark.parametrize("name, fn", RIGHT_CASES, ids=[f"{n}-{label(f)}" for n, f in RIGHT_CASES])
def test_legitimate_variant_is_accepted(name, fn):
    assert check(name, fn).passed


def test_the_catalogue_names_the_common_mistakes():
    named = {expected for _, expected, _ in WRONG_CASES} | {mistake for ex in registry.EXERCISES.values()
                                                           if ex.pipeline for mistake, _ in
                                                           choices.variants(ex.pipeline, ex.probes)}
    required = {"softmax-wrong-axis", "softmax-whole-matrix", "softmax-no-max-subtraction", "scale-missing",
                "scale-by-d", "scale-by-d-model", "k-not-transposed", "kq-instead-of-qk", "mask-after-softmax",
                "mask-value-zero", "mask-hides-diagonal", "mask-hides-past", "mask-multiplied", "av-transposed",
                "va-instead-of-av", "weights-transposed", "heads-split-mixed", "heads-out-of-order",
                "mutates-input", "layer-norm-eps-outside-sqrt", "layer-norm-unbiased-variance",
                "residual-missing", "cache-not-appended"}
    assert required <= named, required - named
