"""The grader on mistakes it was not built from: the blind set in tests/blind/learners.py.

The blind set was written from the exercise notebooks alone, before the property
diagnoses existed. Every mistake must be caught, at least 90% must be named specifically
(not None and not a generic id), and every right answer written differently must pass.

First run, before the property diagnoses: caught 213/218 (97.7%; one of the five misses was the grader itself
crashing with StopIteration), named specifically 106/218 (48.6%); all 30 right answers passed.
With the property probes (properties.py): caught 215/218 (98.6%), named 209/218 (95.9%), 30/30 passed.

With the precision probes (rows around ten million for layer norm, a dA around 10,000 for softmax_backward):
caught 218/218 (100%), named 212/218 (97.2%), 30/30 passed. The three precision mistakes (layer norm as
E[x^2] - E[x]^2 in float32 and in float64, softmax_backward in float32) are now caught and named
precision-loss or variance-cancellation: float32 is accepted wherever no probe stresses precision.

The set predates the lessons on positions (embed) and on the trained model (most_attended); those two
exercises are graded by tests/mutants only, since a set written after their checks would not be blind.

Run `python tests/test_blind.py` for the table of every entry and its diagnosis.
"""
import pytest

from attnlib.checks import CheckFailed, check
from blind.learners import ACCEPTABLE, MISTAKES

# Ids that say something went wrong without saying what: a learner gets no pointer from them.
GENERIC = {None, "wrong-shape", "raised-error", "non-finite-output", "wrong-type", "wrong-dtype", "timeout",
           "not-attempted", "crashed"}
IN_PLACE = ("in place", "in-place", "overwrit")

MIN_NAMED = 0.90
LATER = {"embed", "most_attended"}  # exercises written after the blind set


def grade(m):
    """(caught, diagnosis) for one blind entry."""
    try:
        check(m.exercise, m.fn)
    except CheckFailed as exc:
        return True, exc.diagnosis
    return False, None


def is_specific(m, diagnosis):
    """A diagnosis that names the mistake. mutates-input names it only when the mistake is an in-place change."""
    if diagnosis == "mutates-input":
        return any(word in m.what.lower() for word in IN_PLACE)
    return diagnosis not in GENERIC


@pytest.fixture(scope="module")
def results():
    return [(m, *grade(m)) for m in MISTAKES]


def test_the_blind_set_is_large_and_covers_every_exercise():
    from attnlib.checks import NAMES
    assert len(MISTAKES) >= 150
    assert {m.exercise for m in MISTAKES} == set(NAMES) - LATER
    assert {m.exercise for m in ACCEPTABLE} == set(NAMES) - LATER


def test_every_blind_mistake_is_caught(results):
    missed = [f"{m.exercise}: {m.what}" for m, caught, _ in results if not caught]
    assert not missed, missed


def test_most_blind_mistakes_are_named(results):
    unnamed = [f"{m.exercise}: {m.what} -> {d}" for m, caught, d in results if not (caught and is_specific(m, d))]
    named = len(results) - len(unnamed)
    assert named >= MIN_NAMED * len(results), f"named {named}/{len(results)}; unnamed:\n" + "\n".join(unnamed)


@pytest.mark.parametrize("m", ACCEPTABLE, ids=[f"{m.exercise}-{m.fn.__name__}" for m in ACCEPTABLE])
def test_right_answers_written_differently_pass(m):
    assert check(m.exercise, m.fn).passed


if __name__ == "__main__":
    rows = [(m, *grade(m)) for m in MISTAKES]
    for m, caught, d in rows:
        mark = "named" if caught and is_specific(m, d) else ("caught" if caught else "MISSED")
        print(f"{mark:6} {m.exercise:22} {str(d):34} {m.what}")
    n = len(rows)
    caught = sum(c for _, c, _ in rows)
    named = sum(c and is_specific(m, d) for m, c, d in rows)
    passed = sum(not grade(a)[0] and check(a.exercise, a.fn).passed for a in ACCEPTABLE)
    print(f"caught {caught}/{n} ({100 * caught / n:.1f}%), named {named}/{n} ({100 * named / n:.1f}%), "
          f"right answers passing {passed}/{len(ACCEPTABLE)}")
