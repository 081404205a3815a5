"""Lesson 06, mask and softmax: causal_mask, softmax, score_scale and attention_weights.

The attention_weights mistakes are named after their diagnosis and take the
exercise's signature; later lessons reuse them (attention = weights @ V).
"""
import math

import numpy as np

import attnlib as at
from .choices import Choices, variant
from .probes import qk_probes, rand, tokens
from .properties import causality, container, failing, huge_scores, name_pattern, row_factor, scale_finding
from .runner import close, quiet
from .spec import Exercise, Probe

QK_PROBES = qk_probes(80)


# The pipelines: each step written once, with the choices a learner makes in it (choices.py). attention_weights is
# the steps of the scores, the mask and the softmax composed, so it meets all their choices; the later lessons'
# pipelines compose these again.

def _other(axis, ndim):
    """The axis next to `axis`: -2 beside the last one (or the first for a 1-D input), else the last."""
    return (-2 if ndim > 1 else 0) if axis in (-1, ndim - 1) else -1


def softmax_steps(S, axis=-1, *, c):
    """softmax(S) along `axis`: exp(S - max) over its sum, the max and the sum along the same axis."""
    axis = c("softmax axis", right=axis, softmax_wrong_axis=_other(axis, S.ndim), softmax_wrong_axis__first=0,
             softmax_ignores_axis=-1, softmax_ignores_axis__one=1 if S.ndim > 1 else axis, softmax_whole_matrix=None)
    top = c.step("softmax max", right=lambda: S.max(axis=axis, keepdims=True), softmax_no_max_subtraction=lambda: 0.0,
                 softmax_max_wrong_axis=lambda: S.max(axis=_other(axis, S.ndim), keepdims=True),
                 softmax_max_wrong_axis__first=lambda: S.max(axis=0, keepdims=True),
                 softmax_max_wrong_axis__whole=lambda: S.max(),
                 softmax_min_subtracted=lambda: S.min(axis=axis, keepdims=True))
    E = np.exp(S - top)
    total = c.step("softmax sum", right=lambda: E.sum(axis=axis, keepdims=True),
                   softmax_sum_wrong_axis=lambda: E.sum(axis=_other(axis, S.ndim), keepdims=True),
                   softmax_sum_wrong_axis__first=lambda: E.sum(axis=0, keepdims=True),
                   softmax_not_normalised=lambda: 1.0,
                   softmax_max_in_numerator_only=lambda: np.exp(S).sum(axis=axis, keepdims=True))
    return E / total


def keep_steps(n_q, n_k, c):
    """Boolean (n_q, n_k): True where query i (the last n_q positions) may look at key j."""
    i = np.arange(n_q)[:, None] + c("mask offset", right=n_k - n_q, mask_ignores_offset=0,
                                    mask_offset_negated=n_q - n_k)
    j = np.arange(n_k)[None, :]
    return c("mask boundary", right=j <= i, mask_hides_diagonal=j < i, mask_hides_past=j >= i)


def mask_steps(S, causal, c):
    """S with -inf where the key comes after the query, when causal."""
    if not c("mask switch", right=causal, mask_not_applied=False, mask_always_applied=True):
        return S
    keep = keep_steps(*S.shape[-2:], c)
    with np.errstate(invalid="ignore"):
        return c.step("mask added", right=lambda: S + mask_value_steps(keep, c, added=True),
                      mask_value_zero__replaced=lambda: np.where(keep, S, 0.0),
                      mask_multiplied=lambda: S * np.where(keep, 0.0, -np.inf))


def scale_steps(d, c, alone=False):
    """The factor 1 / sqrt(d) of the scores (alone: score_scale's exercise, where d varies enough to tell an integer
    root or a guarded d - 1 from a missing scale)."""
    f = np.float64
    python = dict(scale_by_d_minus_one__python=lambda: 1.0 / math.sqrt(d - 1),
                  scale_by_d_minus_one__guarded=lambda: 1.0 / math.sqrt(d - 1) if d > 1 else 1.0,
                  scale_integer_root=lambda: f(1 / math.isqrt(d)), scale_he_factor=lambda: np.sqrt(f(2.0) / d)) \
        if alone else {}
    return c.step("score scale", right=lambda: 1.0 / np.sqrt(f(d)), scale_missing=lambda: f(1.0),
                  scale_by_d=lambda: f(1.0 / d), scale_inverted=lambda: np.sqrt(f(d)),
                  power_precedence=lambda: f(d ** -1 / 2), scale_floor_division=lambda: f(1 // np.sqrt(d)),
                  scale_by_d_minus_one=lambda: f(1.0) / np.sqrt(f(d - 1)) if d > 1 else f(np.inf), **python)


def product_steps(Q, K, c):
    """Q Kᵀ (n_q, n_k): every query against every key."""
    return c.step("score product", right=lambda: Q @ K.T, kq_instead_of_qk=lambda: K @ Q.T,
                  k_not_transposed=lambda: Q @ K, scores_diagonal_only=lambda: (Q * K).sum(axis=-1))


def score_steps(Q, K, scale, c, widths=None):
    """Q Kᵀ, times 1 / sqrt(d) when scale (widths: {option: width} a learner may take for d instead, d_model say)."""
    S = product_steps(Q, K, c)
    if not c("scale switch", right=scale, scale_ignored=True):
        return S
    d = c("score width", right=Q.shape[-1], **widths) if widths else Q.shape[-1]
    return S * scale_steps(d, c)


def weights_steps(Q, K, causal=True, scale=True, *, c, widths=None):
    """A = softmax(mask(Q Kᵀ / sqrt(d))) along each row."""
    S = score_steps(Q, K, scale, c, widths)
    order = c("mask and softmax", right="mask first", mask_after_softmax="softmax first",
              mask_after_exponentials="exponentials first")
    if order == "mask first" or not causal:
        return softmax_steps(mask_steps(S, causal, c), c=c)
    if order == "softmax first":
        return softmax_steps(S, c=c) * keep_steps(*S.shape, c)
    E = np.exp(S - S.max(axis=-1, keepdims=True)) * keep_steps(*S.shape, c)  # the max over every key, the future too
    return E / E.sum(axis=-1, keepdims=True)


def weights_exercise_steps(Q, K, causal=True, scale=True, *, c):
    """attention_weights as its exercise grades it: also what comes before the softmax returned in its place."""
    A = weights_steps(Q, K, causal, scale, c=c)
    S = scores(Q, K, scale)
    return c.step("weights returned", right=lambda: A, returns_scores=lambda: mask(S, causal),
                  returns_scores__unmasked=lambda: S, softmax_not_normalised__raw=lambda: np.exp(mask(S, causal)))


def softmax_exercise_steps(S, axis=-1, *, c):
    """softmax as its exercise grades it: also the mean subtracted (beside masks, as NaN as the minimum), another base
    than e, its log returned, or infinite scores read as 0."""
    S = c("scores clipped", right=S, **{f"softmax_scores_clipped__{k}": np.clip(S, -k, k)
                                        for k in (10, 20, 30, 50, 80, 88, 100, 500, 700, 709)})  # "against overflow"
    if c("softmax shift", right="max", softmax_mean_subtracted="mean") == "mean":
        with np.errstate(all="ignore"):
            E = np.exp(S - S.mean(axis=axis, keepdims=True))
            return E / E.sum(axis=axis, keepdims=True)
    A = softmax_steps(S * c("exponential base", right=1.0, softmax_base_two=np.log(2), softmax_base_ten=np.log(10)),
                      axis, c=c)
    m, Z = S.max(axis=axis, keepdims=True), np.where(np.isinf(S), 0.0, S)  # Z: infinite scores read as 0
    E = np.exp(Z - Z.max(axis=axis, keepdims=True))
    with np.errstate(all="ignore"):
        return c.step("softmax returned", right=lambda: A,
                      log_softmax=lambda: S - m - np.log(np.exp(S - m).sum(axis=axis, keepdims=True)),
                      mask_value_zero__read_as_zero=lambda: E / E.sum(axis=axis, keepdims=True))


def causal_mask_steps(n, *, c):
    """M (n, n): 0 where key j <= query i, -inf after."""
    return mask_value_steps(keep_steps(n, n, c), c)


def mask_value_steps(keep, c, added=False):
    """The additive mask of a boolean pattern: 0 where kept, -inf elsewhere (added: to scores, where a mask of
    zeros is no mask at all, the mask switch's option)."""
    zero = {} if added else dict(mask_value_zero=lambda: np.zeros(keep.shape))
    return c.step("mask value", right=lambda: np.where(keep, 0.0, -np.inf), **zero,
                  mask_multiplicative=lambda: keep.astype(float), mask_finite_value=lambda: np.where(keep, 0.0, -1e9),
                  mask_finite_value__1e30=lambda: np.where(keep, 0.0, -1e30),
                  mask_finite_value__min=lambda: np.where(keep, 0.0, np.finfo(float).min),
                  mask_inverted=lambda: np.where(keep, -np.inf, 0.0),
                  mask_zero_times_inf=lambda: np.where(keep, np.nan, -np.inf))


def score_scale(d):
    """Reference: c with Var(c * q.k) = 1 for q, k of d independent mean-0, variance-1 entries (Var(q.k) = d)."""
    return 1.0 / np.sqrt(np.float64(d))


softmax, weights = variant(softmax_steps), variant(weights_steps)  # the references, for the findings below


def mask(S, causal=True):
    return mask_steps(S, causal, Choices())


def scores(Q, K, scale=True):
    return score_steps(Q, K, scale, Choices())


# MAX_ELSEWHERE: the softmaxes whose sum runs along `axis` but whose max does not (for shifted_rows)
MAX_ELSEWHERE = [("across rows", variant(softmax_steps, "softmax max", "softmax_max_wrong_axis")),
                 ("across rows", variant(softmax_steps, "softmax max", "softmax_max_wrong_axis__first")),
                 ("over the whole array", variant(softmax_steps, "softmax max", "softmax_max_wrong_axis__whole"))]

CHOICES = {
    "scores clipped": "Follow a score of minus infinity, and one of 1000, into your exponential: nothing may change "
                      "them on the way.",
    "softmax axis": "Look at the axis your softmax runs along: the one that holds one query's weights.",
    "softmax max": "Look at what you subtract before the exponential, and along which axis you take it.",
    "softmax sum": "Look at the sum you divide by: it must run along the axis of your max, the one that holds one "
                   "query's weights, and keep that axis so it broadcasts.",
    "mask offset": "With fewer queries than keys, the queries are the last n_q positions: query i sits at "
                   "n_k - n_q + i.",
    "mask boundary": "Look at the comparison that decides which keys a query may see: itself and the past.",
    "mask switch": "Look at how your function uses its causal argument.",
    "mask value": "Look at the value you put on the hidden scores, and how it enters: the exponential of it must be 0.",
    "weights returned": "Look at what you return: the weights, after the softmax.",
    "softmax shift": "Look at what you subtract before the exponential: the largest score, so that none overflows.",
    "exponential base": "Look at the base of your exponentials: the softmax raises e to each score.",
    "softmax returned": "Look at what you return: the probabilities themselves, each row summing to 1.",
    "mask added": "Look at how the mask meets the scores: added to them, -inf where a key is hidden.",
    "score scale": "Look at the factor on the scores: it comes from the width d of the queries and keys alone.",
    "scale switch": "Look at how your function uses its scale argument.",
    "score width": "Look at the width in your scale: the queries' and keys' own, not d_model.",
    "score product": "Write the shapes of your product: each query against each key, one row per query.",
    "mask and softmax": "Look at the order of your steps: the mask comes before the softmax, and before its "
                        "maximum is taken.",
}


EXERCISES = [
    Exercise(
        name="causal_mask",
        reference=at.causal_mask,
        probes=[Probe((n,), names=("n",), rows=tokens(n), cols=tokens(n), resize=True) for n in (5, 3, 6, 1)],
        pipeline=causal_mask_steps,
        verified="0 on and below the diagonal, -inf above it, for n = 5, 3, 6, 1 and fresh sizes",
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
                Probe((rand(74, 3, 4, scale=900.0),), names=("S",)),
                Probe((rand(76, 3, 1),), names=("S",))],  # an axis of length 1: every entry is 1
        pipeline=softmax_exercise_steps,
        verified="rows sum to 1 on 2-D and 3-D inputs, -inf entries, axis=0, an axis of length 1 and logits near 1e3 "
                 "that overflow exp",
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
        pipeline=lambda d, c: scale_steps(d, c, alone=True),
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
        probes=QK_PROBES,
        pipeline=weights_exercise_steps,
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
    """Read the mistake off the mask itself: its dtype, and which positions it leaves visible; only for masks of
    the right shape on every probe (a mask of one fixed size says nothing about positions)."""
    if any(o.kind == "ok" and np.shape(o.value) != np.shape(e) for _p, o, e in seen):
        return None
    for _p, o, e in seen:
        if o.kind != "ok" or not isinstance(o.value, np.ndarray) or o.value.shape != e.shape:
            continue
        if o.value.dtype.kind == "b":
            return None  # a boolean mask: the general findings read it (properties.py)
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
    """A factor within a few percent of 1/sqrt(d) on every probe it answered, but not exact: estimated from random
    samples (a simulation at d = 4096 may run out of memory). A factor rounded to a few decimals is left to the
    general findings, which name the rounding."""
    if container(seen):
        return None
    errors = []
    for _p, o, e in seen:
        got = o.value
        if o.kind == "error":
            continue
        if o.kind != "ok" or isinstance(got, bool) or not isinstance(got, (int, float, np.integer, np.floating)):
            return None
        errors.append(abs(float(got) - float(e)) / float(e))
    if len(errors) >= 3 and max(errors) < 0.1 and max(errors) > 1e-9:
        return "score-scale-measured", f"your factors are up to {max(errors):.1%} away from the exact ones"
    return None


def _qk_sizes(p):
    Q, K = p.args[:2]
    return {"d": Q.shape[1], "n_q": Q.shape[0], "n_k": K.shape[0]}


def _scaled(p):
    return p.kwargs.get("scale", True)


WEIGHTS_FINDINGS = [
    causality((rand(90, 5, 4), rand(91, 5, 4)), {}, [1]),
    causality((rand(92, 3, 4), rand(93, 6, 4)), {}, [1]),
    scale_finding(weights, 0, _qk_sizes, _scaled),
    huge_scores(0),
    normalisation,
]

FINDINGS = {
    "causal_mask": [mask_pattern],
    "softmax": [shifted_rows, normalisation],
    "score_scale": [measured_factor],
    "attention_weights": WEIGHTS_FINDINGS,
}

DIAGNOSES = {
    "mask-inverted": "The mask was inverted: -inf where a position may be seen and 0 where it may not.",
    "mask-zero-times-inf": "The visible entries came out NaN: 0 times -inf is NaN, so a mask cannot be built by "
                           "multiplying -inf by a 0/1 pattern.",
    "mask-after-exponentials": "The future was zeroed after the exponentials, with the maximum taken over every key: "
                               "when a row's largest score is in its future, every visible exponential underflows "
                               "to 0 and the row is 0 / 0.",
    "softmax-sum-wrong-axis": "The maximum was subtracted along the right axis, but the sum you divide by runs along "
                              "another one, so the entries along the softmax's axis do not sum to 1.",
    "scale-floor-division": "The factor was computed with floor division (//), which rounds one over the square "
                            "root of d down to 0 for every d above 1.",
    "scale-by-d-minus-one": "The factor is one over the square root of d - 1, as for an unbiased variance; the "
                            "variance of q·k is exactly d, so the root is of d itself.",
    "power-precedence": "Your factor is one over 2d: the power was read as minus one and the result halved.",
    "scale-integer-root": "The factor uses the integer square root, which rounds the root down: "
                          "right only when d is a perfect square.",
    "scale-he-factor": "Your factor is the root of 2/d, the one that scales initial weights (He initialisation); "
                       "the scores are scaled by one over the root of d.",
    "score-scale-measured": "Your factor is close to the right one but not exact: it looks estimated from random "
                            "samples, while the variance of q·k follows exactly from d.",
}

NUDGES = {
    "score-scale-measured": "Look at how the measured variance grows with d, and write the factor from d alone, "
                            "without random numbers.",
}
