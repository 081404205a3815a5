"""Lesson 06, mask and softmax: causal_mask, softmax, score_scale and attention_weights.

The attention_weights mistakes are named after their diagnosis and take the
exercise's signature; later lessons reuse them (attention = weights @ V).
"""
import numpy as np

import attnlib as at
from .pieces import allowed, mask, positions, scores, softmax, weights
from .probes import qk_probes, rand, tokens
from .properties import causality, failing, huge_scores, intermediates, name_pattern, row_factor, scale_finding
from .runner import close, quiet
from .spec import Exercise, Probe


# causal_mask(n) --------------------------------------------------------------------------------------------------

def _mask_where(keep, fill=-np.inf):
    return np.where(keep, 0.0, fill)


def all_zeros(n):
    return np.zeros((n, n))


def ones_to_multiply(n):
    return np.tril(np.ones((n, n)))


def hides_the_past(n):
    i, j = np.indices((n, n))
    return _mask_where(j >= i)


def hides_the_diagonal(n):
    i, j = np.indices((n, n))
    return _mask_where(j < i)


def minus_1e9(n):
    i, j = np.indices((n, n))
    return _mask_where(j <= i, -1e9)


def minus_1e30(n):
    i, j = np.indices((n, n))
    return _mask_where(j <= i, -1e30)


def most_negative_float(n):
    i, j = np.indices((n, n))
    return _mask_where(j <= i, np.finfo(float).min)


# softmax(S, axis=-1) ---------------------------------------------------------------------------------------------

def _is_last(axis, S):
    return axis in (-1, S.ndim - 1)


def exp_without_max(S, axis=-1):
    return np.exp(S) / np.exp(S).sum(axis=axis, keepdims=True)


def over_second_last_axis(S, axis=-1):
    return softmax(S, axis=-2 if _is_last(axis, S) else -1)


def over_first_axis(S, axis=-1):
    return softmax(S, axis=0 if _is_last(axis, S) else -1)


def always_first_axis(S, axis=-1):
    return softmax(S, axis=0)


def always_last_axis(S, axis=-1):
    return softmax(S, axis=-1)


def over_whole_array(S, axis=-1):
    return np.exp(S - S.max()) / np.exp(S - S.max()).sum()


def exp_only(S, axis=-1):
    return np.exp(S - S.max(axis=axis, keepdims=True))


def _other(axis, S):
    """The axis next to `axis`: -2 beside the last one, else the last."""
    return -2 if _is_last(axis, S) else -1


def _max_then_sum(S, max_axis, sum_axis):
    """exp(S - max over max_axis) divided by its sum over sum_axis (None: the whole array)."""
    E = np.exp(S - S.max(axis=max_axis, keepdims=True))
    return E / E.sum(axis=sum_axis, keepdims=True)


def sum_over_first_axis(S, axis=-1):
    return _max_then_sum(S, axis, 0)


def sum_over_other_axis(S, axis=-1):
    return _max_then_sum(S, axis, _other(axis, S))


def max_last_sum_first(S, axis=-1):
    return _max_then_sum(S, -1, 0)  # both axes written in, neither of them `axis`


def max_over_first_axis(S, axis=-1):
    return _max_then_sum(S, 0, axis)


def max_over_other_axis(S, axis=-1):
    return _max_then_sum(S, _other(axis, S), axis)


def max_of_whole_array(S, axis=-1):
    return _max_then_sum(S, None, axis)


# The softmaxes whose sum runs along `axis` but whose max does not: (where the max was taken, the function).
MAX_ELSEWHERE = [("across rows", max_over_first_axis), ("across rows", max_over_other_axis),
                 ("over the whole array", max_of_whole_array)]


# score_scale(d) --------------------------------------------------------------------------------------------------

def score_scale(d):
    """Reference: c with Var(c * q.k) = 1 for q, k of d independent mean-0, variance-1 entries (Var(q.k) = d)."""
    return 1.0 / np.sqrt(np.float64(d))


def divides_by_d(d):
    return np.float64(1.0 / d)


def square_root_of_d(d):
    return np.sqrt(np.float64(d))


def no_factor(d):
    return np.float64(1.0)


def power_before_halving(d):
    return np.float64(d ** -1 / 2)  # read as (1 / d) / 2: the exponent one half lost its brackets


# attention_weights(Q, K, causal=True, scale=True) ----------------------------------------------------------------

def softmax_no_max_subtraction(Q, K, causal=True, scale=True):
    E = np.exp(mask(scores(Q, K, scale), causal))
    return E / E.sum(axis=-1, keepdims=True)


def mask_multiplied(Q, K, causal=True, scale=True):
    S = scores(Q, K, scale)
    return softmax(S * np.where(allowed(*S.shape), 0.0, -np.inf) if causal else S)


def mask_hides_diagonal(Q, K, causal=True, scale=True):
    S = scores(Q, K, scale)
    i, j = positions(*S.shape)
    return softmax(np.where(j < i, S, -np.inf) if causal else S)


def mask_after_softmax(Q, K, causal=True, scale=True):
    S = scores(Q, K, scale)
    A = softmax(S)
    return A * allowed(*S.shape) if causal else A


def mask_value_zero(Q, K, causal=True, scale=True):
    S = scores(Q, K, scale)
    return softmax(np.where(allowed(*S.shape), S, 0.0) if causal else S)


def mask_hides_past(Q, K, causal=True, scale=True):
    S = scores(Q, K, scale)
    i, j = positions(*S.shape)
    return softmax(np.where(j >= i, S, -np.inf) if causal else S)


def mask_ignores_offset(Q, K, causal=True, scale=True):
    S = scores(Q, K, scale)
    i, j = np.indices(S.shape)  # query i at position i, although the queries are the last positions
    return softmax(np.where(j <= i, S, -np.inf) if causal else S)


def mask_not_applied(Q, K, causal=True, scale=True):
    return weights(Q, K, False, scale)


def mask_always_applied(Q, K, causal=True, scale=True):
    return weights(Q, K, True, scale)


def kq_instead_of_qk(Q, K, causal=True, scale=True):
    return weights(K, Q, causal, scale)


def k_not_transposed(Q, K, causal=True, scale=True):
    S = Q @ K
    return softmax(mask(S / np.sqrt(Q.shape[-1]) if scale else S, causal))


def scale_missing(Q, K, causal=True, scale=True):
    return weights(Q, K, causal, False)


def scale_by_d(Q, K, causal=True, scale=True):
    S = Q @ K.T
    return softmax(mask(S / Q.shape[-1] if scale else S, causal))


def scale_ignored(Q, K, causal=True, scale=True):
    return weights(Q, K, causal, True)


def softmax_wrong_axis(Q, K, causal=True, scale=True):
    return softmax(mask(scores(Q, K, scale), causal), axis=0)


def softmax_whole_matrix(Q, K, causal=True, scale=True):
    S = mask(scores(Q, K, scale), causal)
    E = np.exp(S - S.max())
    return E / E.sum()


WEIGHTS_MISTAKES = [
    ("softmax-no-max-subtraction", softmax_no_max_subtraction),
    ("mask-multiplied", mask_multiplied),
    ("mask-hides-diagonal", mask_hides_diagonal),
    ("mask-after-softmax", mask_after_softmax),
    ("mask-value-zero", mask_value_zero),
    ("mask-hides-past", mask_hides_past),
    ("mask-ignores-offset", mask_ignores_offset),
    ("mask-not-applied", mask_not_applied),
    ("mask-always-applied", mask_always_applied),
    ("kq-instead-of-qk", kq_instead_of_qk),
    ("k-not-transposed", k_not_transposed),
    ("scale-missing", scale_missing),
    ("scale-by-d", scale_by_d),
    ("scale-ignored", scale_ignored),
    ("softmax-wrong-axis", softmax_wrong_axis),
    ("softmax-whole-matrix", softmax_whole_matrix),
]

EXERCISES = [
    Exercise(
        name="causal_mask",
        reference=at.causal_mask,
        probes=[Probe((n,), names=("n",), rows=tokens(n), cols=tokens(n)) for n in (5, 3, 6)],
        mistakes=[("mask-value-zero", all_zeros),
                  ("mask-multiplicative", ones_to_multiply),
                  ("mask-hides-past", hides_the_past),
                  ("mask-hides-diagonal", hides_the_diagonal),
                  ("mask-finite-value", minus_1e9),
                  ("mask-finite-value", minus_1e30),
                  ("mask-finite-value", most_negative_float)],
        verified="0 on and below the diagonal, -inf above it, for n = 5, 3, 6",
        hint1="Position i may look at itself and the past (j <= i); the future (j > i) must be hidden.",
        hint2="Start from a square of zeros and put minus infinity in every entry above the diagonal (column "
              "greater than row), leaving the diagonal itself at 0.",
        formula="M[i, j] = 0 if j <= i else -inf; e.g. M = np.zeros((n, n)); M[np.triu_indices(n, k=1)] = -np.inf",
    ),
    Exercise(
        name="softmax",
        reference=at.softmax,
        probes=[Probe((rand(70, 3, 5),), names=("S",)),
                Probe((rand(71, 2, 3, 4),), names=("S",)),
                Probe((rand(72, 4, 4) + at.causal_mask(4),), names=("S",)),
                Probe((rand(73, 4, 6),), {"axis": 0}, names=("S",)),
                Probe((rand(74, 3, 4, scale=900.0),), names=("S",))],
        mistakes=[("softmax-no-max-subtraction", exp_without_max),
                  ("softmax-wrong-axis", over_second_last_axis),
                  ("softmax-wrong-axis", over_first_axis),
                  ("softmax-wrong-axis", always_first_axis),
                  ("softmax-ignores-axis", always_last_axis),
                  ("softmax-whole-matrix", over_whole_array),
                  ("softmax-not-normalised", exp_only),
                  ("softmax-sum-wrong-axis", sum_over_first_axis),
                  ("softmax-sum-wrong-axis", sum_over_other_axis),
                  ("softmax-sum-wrong-axis", max_last_sum_first),
                  *(("softmax-max-wrong-axis", wrong) for _, wrong in MAX_ELSEWHERE)],
        verified="rows sum to 1 on 2-D and 3-D inputs, -inf entries, axis=0, and logits near 1e3 that overflow exp",
        hint1="Exponentiate every score, then divide by the sum along the given axis, so that the entries "
              "along that axis are positive and add up to 1.",
        hint2="The exponential of 1000 overflows: first subtract the largest entry along the same axis (it "
              "cancels in the ratio), and keep the reduced axis in every reduction so the shapes broadcast.",
        formula="softmax(S)[i, j] = exp(S[i, j] - max_k S[i, k]) / sum_k exp(S[i, k] - max_k S[i, k])",
    ),
    Exercise(
        name="score_scale",
        reference=score_scale,
        probes=[Probe((d,), names=("d",)) for d in (1, 2, 3, 16, 64, 100, 4096)],
        mistakes=[("scale-by-d", divides_by_d),
                  ("scale-inverted", square_root_of_d),
                  ("scale-missing", no_factor),
                  ("power-precedence", power_before_halving)],
        verified="the exact factor for d = 1, 2, 3, 16, 64, 100 and 4096",
        hint1="Multiplying a random quantity by c multiplies its spread (the standard deviation) by c, and so "
              "its variance by c squared. The experiment shows how the variance of q·k depends on d.",
        hint2="Read the measured variances against d: they grow in proportion to d. Choose c from d alone so "
              "that c times c times that variance is exactly 1; your function needs no random numbers.",
        formula="Var(q·k) = d (a sum of d independent products of variance 1) and Var(c·x) = c² Var(x), "
                "so c = 1 / sqrt(d)",
    ),
    Exercise(
        name="attention_weights",
        uses=('softmax', 'causal_mask'),
        reference=at.attention_weights,
        probes=qk_probes(80),
        mistakes=WEIGHTS_MISTAKES,
        verified="scaled, masked, row-wise softmax for n_q < n_k, n_q = n_k, causal=False, scale=False and huge logits",
        hint1="Three steps: the scores (every query against every key, divided by the square root of the "
              "query width d), then minus infinity on the future, then a softmax along each row.",
        hint2="Check the branches for causal and scale, and the mask's boundary: with fewer queries than keys "
              "the queries are the last positions, so the first query already sees several keys.",
        formula="A = softmax(Q Kᵀ / √d + M) along the last axis, with M[i, j] = -inf where key j comes after "
                "query i's position n_k - n_q + i",
    ),
]


# property findings (properties.py) -------------------------------------------------------------------------------

def mask_pattern(f, seen):
    """Read the mistake off the mask itself: its dtype, and which positions it leaves visible."""
    for _p, o, e in seen:
        if o.kind != "ok" or not isinstance(o.value, np.ndarray) or o.value.shape != e.shape:
            continue
        if o.value.dtype.kind == "b":
            return "mask-boolean"
        got = o.value.astype(float)
        if np.isnan(got).any():
            return "mask-multiplied"
        found = name_pattern(got == 0)
        if found:
            return found
    return None


def _rows(rows):
    """'row 1', 'rows 1 and 2', 'rows 1, 2 and 3'."""
    if len(rows) == 1:
        return f"row {rows[0]}"
    return f"rows {', '.join(map(str, rows[:-1]))} and {rows[-1]}"


def shifted_rows(f, seen):
    """Adding a constant to one row must not change the softmax. Compared with the learner's own output on the
    unshifted S, which rows move says what is wrong: row 0 alone turning NaN/inf is an exponential that
    overflows; other rows moving is a max taken across rows, named only when a softmax with its max taken
    there (MAX_ELSEWHERE) reproduces the learner's outputs, on the shifted S and on every probe they answered.

    The S is first the failing probe's that the report shows, when it is a plain 2-D call, so that the rows
    named are rows of that S; then a 4 x 5 S of the finding's own, described as such."""
    k = next((k for k, (p, o, e) in enumerate(seen) if o.kind == "ok" and not close(o.value, e)), None)
    tries = []
    if k is not None and not seen[k][0].kwargs and np.ndim(seen[k][0].args[0]) == 2 and len(seen[k][0].args[0]) > 1:
        tries.append((np.asarray(seen[k][0].args[0], dtype=float), f"of probe {k + 1}'s S"))
    tries.append((rand(75, 4, 5), "of a 4 x 5 S"))
    return next((found for S, which in tries if (found := _shifted_rows(f, seen, S, which))), None)


def _shifted_rows(f, seen, S, which):
    shifted, spread = S.copy(), S.copy()
    shifted[0] += 800.0
    spread[0, 0] += 800.0
    base, got_shifted, got_spread = (np.asarray(v, dtype=float) if isinstance(v, np.ndarray) else None
                                     for v in f.many([((S,), {}), ((shifted,), {}), ((spread,), {})]))
    if base is None or got_shifted is None or base.shape != S.shape or got_shifted.shape != S.shape:
        return None
    with np.errstate(all="ignore"):
        moved = [r for r in range(len(S)) if not np.allclose(got_shifted[r], base[r], rtol=1e-6, atol=1e-9,
                                                             equal_nan=True)]
    if moved == [0] and np.isfinite(base[0]).all() and not np.isfinite(got_shifted[0]).all():
        return "softmax-no-max-subtraction", f"adding 800 to row 0 {which} made that row NaN/inf"
    others = [r for r in moved if r != 0]
    if others:
        calls = [((S,), {}, base), ((shifted,), {}, got_shifted)] + [
            (p.args, p.kwargs, o.value) for p, o, _ in seen if o.kind == "ok"]
        for where, wrong in MAX_ELSEWHERE:
            if all(close(got, quiet(wrong, *args, **kwargs)) for args, kwargs, got in calls):
                return "softmax-max-wrong-axis", (f"adding 800 to row 0 {which} changed {_rows(others)} as well, "
                                                  f"which it must not touch: the maximum was taken {where}")
        return None
    if not moved and got_spread is not None and got_spread.shape == S.shape and np.isfinite(base[0]).all() \
            and not np.isfinite(got_spread[0]).all():
        return "softmax-min-subtraction", (f"raising one score of row 0 {which} by 800 makes that row overflow, "
                                           "although shifting the whole row changes nothing")
    return None


def _softmax_intermediates(S, axis=-1):
    m = S.max(axis=axis, keepdims=True)
    logA = S - m - np.log(np.exp(S - m).sum(axis=axis, keepdims=True))  # finite where A underflows to 0
    return [("log-softmax", logA), ("mask-value-zero", softmax(np.where(np.isinf(S), 0.0, S), axis))]


def _rows_along(a, p):
    """The rows a softmax normalises, one per line: the probe's axis moved last, the other axes flattened."""
    axis = p.kwargs.get("axis", -1)
    return np.moveaxis(a, axis, -1).reshape(-1, a.shape[axis])


def normalisation(f, seen):
    """Rows that are the right ones times a number were not divided by their sum: on every failing probe, and
    seen on a row with two entries to compare (a row with one non-zero entry is a multiple of anything)."""
    bad = [(_rows_along(got, p), _rows_along(e, p)) for p, got, e in failing(seen)]
    if not bad or any(c is None or not np.isfinite(c).all() for c in (row_factor(got, e) for got, e in bad)):
        return None
    if not any((np.isfinite(e) & (np.abs(e) > 1e-12)).sum(axis=1).max() > 1 for _got, e in bad):
        return None
    return "softmax-not-normalised", "each row is the right one times a number: it does not sum to 1"


def measured_factor(f, seen):
    """A factor within a few percent of 1/sqrt(d) on every probe, but not exact: estimated from random samples."""
    errors = []
    for _p, o, e in seen:
        got = o.value
        if o.kind != "ok" or isinstance(got, bool) or not isinstance(got, (int, float, np.integer, np.floating)):
            return None
        errors.append(abs(float(got) - float(e)) / float(e))
    if errors and max(errors) < 0.1 and max(errors) > 1e-9:
        return "score-scale-measured", f"your factors are up to {max(errors):.1%} away from the exact ones"
    return None


def _qk_sizes(p):
    Q, K = p.args[:2]
    return {"d": Q.shape[1], "n_q": Q.shape[0], "n_k": K.shape[0]}


def _scaled(p):
    return p.kwargs.get("scale", True)


def _weights_intermediates(Q, K, causal=True, scale=True):
    S = scores(Q, K, scale)
    return [("returns-scores", mask(S, causal)), ("returns-scores", S), ("softmax-not-normalised",
                                                                         np.exp(mask(S, causal)))]


WEIGHTS_FINDINGS = [
    causality((rand(90, 5, 4), rand(91, 5, 4)), {}, [1]),
    causality((rand(92, 3, 4), rand(93, 6, 4)), {}, [1]),
    scale_finding(weights, 0, _qk_sizes, _scaled),
    intermediates(_weights_intermediates),
    huge_scores(0),
    normalisation,
]

FINDINGS = {
    "causal_mask": [mask_pattern],
    "softmax": [shifted_rows, intermediates(_softmax_intermediates), normalisation],
    "score_scale": [measured_factor],
    "attention_weights": WEIGHTS_FINDINGS,
}

DIAGNOSES = {
    "softmax-sum-wrong-axis": "The maximum was subtracted along the right axis, but the sum you divide by runs along "
                              "another one, so the entries along the softmax's axis do not sum to 1.",
    "power-precedence": "Your factor is one over 2d: the power was read as minus one and the result halved.",
    "score-scale-measured": "Your factor is close to the right one but not exact: it looks estimated from random "
                            "samples, while the variance of q·k follows exactly from d.",
}

NUDGES = {
    "softmax-sum-wrong-axis": "Look at the axis of your sum: it must be the axis of your max, the one that holds one "
                              "query's weights.",
    "power-precedence": "Look at the brackets around your exponent.",
    "score-scale-measured": "Look at how the measured variance grows with d, and write the factor from d alone, "
                            "without random numbers.",
}
