"""The choice pipelines (attnlib/checks/choices.py): each reference written once, its wrong neighbours generated.

A pipeline with no choice made must be the reference: compared here with attnlib's own functions, written
separately, on the probes and on fresh sizes. Every wrong option must have an explanation, every choice a nudge
that shows no code, and the engine must name a neighbour only when the probes single it out.
"""
import copy

import numpy as np
import pytest

from attnlib.checks import DIAGNOSES, CheckFailed, check, choices, registry
from attnlib.checks.runner import close
from attnlib.checks.spec import Probe

PIPELINED = [ex for ex in registry.EXERCISES.values() if ex.pipeline is not None]


class Outcome:
    """What the runner returns for one call, for the engine's functions."""

    def __init__(self, value, error=None):
        self.kind, self.value, self.error = ("ok", value, "") if error is None else ("error", None, error)


def outcomes(fn, probes):
    return [Outcome(*choices.attempt(fn, *p.args, **p.kwargs)) for p in probes]


@pytest.mark.parametrize("ex", PIPELINED, ids=lambda ex: ex.name)
def test_the_pipeline_with_no_choice_made_is_the_reference(ex):
    reference = choices.variant(ex.pipeline)
    fresh = [q for k, p in enumerate(ex.probes) if (q := p.fresh(1000 + k)) is not None]
    for p in ex.probes + fresh:  # each call on its own copy, as the grader makes them (generate counts its calls)
        got = reference(*copy.deepcopy(p.args), **copy.deepcopy(p.kwargs))
        assert close(got, ex.reference(*copy.deepcopy(p.args), **copy.deepcopy(p.kwargs))), p.describe()


@pytest.mark.parametrize("ex", PIPELINED, ids=lambda ex: ex.name)
def test_every_wrong_option_is_explained_and_every_choice_nudged(ex):
    singles, _ = choices.neighbours(ex.pipeline, ex.probes)
    assert singles, ex.name
    for chosen in singles:
        (choice, option), = chosen.items()
        if isinstance(choice, tuple):
            continue  # a gradient's term: its detail names the term and the coefficient
        assert choices.mistake_id(choice, option) in DIAGNOSES, (choice, option)
        nudge = registry.CHOICE_NUDGES.get(choice, "")
        assert nudge and "np." not in nudge and "@" not in nudge, choice


@pytest.mark.parametrize("ex", PIPELINED, ids=lambda ex: ex.name)
def test_every_single_neighbour_differs_from_the_reference_on_some_probe(ex):
    """An option the probes cannot tell from the right one is no mistake in this exercise: it is left out."""
    expected = outcomes(choices.variant(ex.pipeline), ex.probes)
    singles = choices.neighbours(ex.pipeline, ex.probes)[0]
    assert singles, ex.name
    for chosen in singles:
        (choice, option), = chosen.items()
        got = outcomes(choices.variant(ex.pipeline, choice, option), ex.probes)
        assert any(g.kind != e.kind or not close(g.value, e.value) for g, e in zip(got, expected)), chosen


def test_an_option_that_changes_nothing_here_is_no_neighbour():
    ex = registry.EXERCISES["self_attention"]  # it always scales: the scale switch has no wrong side there
    assert {"scale switch": "scale_ignored"} not in choices.neighbours(ex.pipeline, ex.probes)[0]


def _toy(x, *, c):
    """A two-choice pipeline: which power, and whether to add one."""
    y = c("power", right=x ** 2, scale_missing=x, scale_by_d=x ** 3)
    return y + c("offset", right=1.0, mask_value_zero=0.0)


PROBES = [Probe((np.array([1.5, -2.0]),)), Probe((np.array([3.0]),))]


def _name(fn):
    expected = [choices.variant(_toy)(*p.args) for p in PROBES]
    return choices.name(_toy, PROBES, outcomes(fn, PROBES), expected)


def test_one_changed_choice_is_named_by_its_option():
    assert _name(lambda x: x + 1.0) == ("scale-missing", {"power": "scale_missing"})


def test_two_changed_choices_are_named_together():
    assert _name(lambda x: x ** 3) == ("scale-by-d+mask-value-zero",
                                       {"power": "scale_by_d", "offset": "mask_value_zero"})


def test_an_output_no_neighbour_reproduces_is_not_named():
    assert _name(lambda x: x ** 2 + 2.0) is None


def test_a_function_that_only_raises_is_named_by_the_same_message_on_every_probe():
    def product(x, *, c):  # (n,) times (n, 2), or the weights transposed: (n,) times (2, n), which cannot be
        return c.step("product", right=lambda: x @ np.ones((len(x), 2)),
                      weights_transposed=lambda: x @ np.ones((2, len(x))))
    probes = [Probe((np.arange(3.0),)), Probe((np.arange(4.0),))]
    expected = [choices.variant(product)(*p.args) for p in probes]

    def named(fn):
        return choices.name(product, probes, outcomes(fn, probes), expected)
    assert named(lambda x: x @ np.ones((2, len(x)))) == ("weights-transposed", {"product": "weights_transposed"})
    assert named(lambda x: x @ np.ones((5, len(x)))) is None  # other sizes clash
    assert named(lambda x: np.dot(x, np.ones((2, len(x))))) is None  # the same clash, told in other words

    def refuses(x):
        raise ValueError("no")
    assert named(refuses) is None  # a message that names no size is no evidence


def test_neighbours_the_probes_cannot_tell_apart_are_not_named():
    def same(x, *, c):  # two options that give the same output, under different names
        return x * c("factor", right=2.0, scale_missing=1.0, scale_by_d=1.0)

    expected = [x * 2.0 for x in (p.args[0] for p in PROBES)]
    assert choices.name(same, PROBES, outcomes(lambda x: x, PROBES), expected) is None


def test_a_gradient_is_fitted_to_its_own_terms():
    def grad(x, *, c):
        return c.terms("dx", first=2 * x, second=np.ones_like(x))

    fitted = choices.fit_terms(grad, PROBES, outcomes(lambda x: 2 * x - 1.0, PROBES), "dx")
    assert fitted == {"first": 1.0, "second": -1.0}
    assert choices.fit_terms(grad, PROBES, outcomes(lambda x: 2 * x + 1.0, PROBES), "dx") is None  # it is right
    assert choices.fit_terms(grad, PROBES, outcomes(lambda x: x ** 2, PROBES), "dx") is None  # no fit


# Wrong options the whole check leaves unnamed, honestly: they raise on every probe (a transpose that breaks the
# shapes), or the probes cannot tell them from a neighbour (1-D scores have one axis; a rotation's direction
# cancels in the scores when Q and K are turned alike). Any other option must get
# its own name.
UNNAMED = {None, "raised-error"}
SEEN_IN_THE_OUTPUT = {"constant-output", "argument-ignored"}  # true of such an option's output, if not its cause
LEFT_UNNAMED = {
    "attention_weights": {"scores-diagonal-only"},  # the mask cannot be added to one score per row: it raises
    "attention": {"scores-diagonal-only"},
    "attend_step": {"av-transposed", "kq-instead-of-qk", "va-instead-of-av", "scale-floor-division",
                    "softmax-max-wrong-axis"},
    "attention_backward": {"k-not-transposed"},
    "cache_step": {"av-transposed", "kq-instead-of-qk", "va-instead-of-av", "scale-floor-division",
                   "softmax-max-wrong-axis", "softmax-sum-wrong-axis", "softmax-wrong-axis"},
    "cross_attention": {"k-not-transposed"},
    "multi_head_attention": {"scores-diagonal-only", "head-slice-one-short", "heads-not-moved-first",
                             "heads-tokens-last", "k-not-transposed", "va-instead-of-av", "returns-weights"},
    "prefix_matching_score": {"prefix-match-copies-never-found", "prefix-match-includes-itself",
                              "prefix-match-later-copies"},
    "self_attention": {"k-not-transposed", "va-instead-of-av"},
    "grouped_query_attention": {"heads-count-and-width-swapped", "heads-tokens-last", "head-slice-one-short",
                                "k-not-transposed", "scores-diagonal-only", "va-instead-of-av",
                                "returns-weights", "heads-split-rows",  # the heads' shapes no longer line up
                                # d_model and Wk's width over n_heads agree on these probes, or both raise
                                "head-width-from-d-model", "head-width-from-keys"},
    "grouped_cache_step": {"av-transposed", "kq-instead-of-qk", "va-instead-of-av", "k-not-transposed",
                           "scale-floor-division", "softmax-max-wrong-axis"},
    "rolling_cache_step": {"av-transposed", "kq-instead-of-qk", "va-instead-of-av", "scale-floor-division",
                           "softmax-max-wrong-axis"},
    "rope_attention": {"k-not-transposed", "va-instead-of-av", "scores-diagonal-only",
                       # Q and K turned alike: these rotations give the same scores
                       "rope-sin-cos-swapped", "rope-rotation-clockwise", "rope-rotation-transposed",
                       "rope-rotation-reflected"},
}
# A wrong option whose output the probes cannot tell from another mistake's, named by what both do.
SAME_OUTPUT = {
    ("cross_attention", "mask-always-applied"): "mask-applied",  # cross-attention has no causal switch: a mask
    ("attend_step", "softmax-min-subtracted"): "softmax-no-max-subtraction",  # both overflow on the huge scores
    ("sample_next", "softmax-min-subtracted"): "softmax-no-max-subtraction",  # and agree everywhere else
    ("sample_next", "softmax-max-in-numerator-only"): "softmax-no-max-subtraction",  # the pick rescales the total
    ("rolling_cache_step", "softmax-min-subtracted"): "softmax-no-max-subtraction",
}


def _as_learner(pipeline, choice, option):
    """The pipeline with one option changed, as a learner's function (defined here, outside attnlib)."""
    def learner(*args, **kwargs):
        return pipeline(*args, c=choices.Choices({choice: option}), **kwargs)
    return learner


@pytest.mark.parametrize("ex", PIPELINED, ids=lambda ex: ex.name)
def test_every_wrong_option_graded_whole_is_rejected_and_named(ex):
    """Through the whole check (sandbox, properties, choices), each wrong option is rejected and named by its own
    id: this is each exercise's catalogue of mistakes. The few listed above stay unnamed (never misnamed)."""
    singles = [next(iter(chosen.items())) for chosen in choices.neighbours(ex.pipeline, ex.probes)[0]]
    for choice, option in singles:
        if isinstance(choice, tuple):
            continue  # a gradient's term: fitted, tested with the backward exercises
        own = choices.mistake_id(choice, option)
        with pytest.raises(CheckFailed) as failed:
            check(ex.name, _as_learner(ex.pipeline, choice, option))
        got = failed.value.diagnosis
        if own in LEFT_UNNAMED.get(ex.name, ()):  # another way to the same mistake may still be named
            assert got in UNNAMED | SEEN_IN_THE_OUTPUT | {own}, (choice, option, got)
        else:
            assert got == SAME_OUTPUT.get((ex.name, own), own), (choice, option, got)
