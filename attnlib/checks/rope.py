"""Lesson 16, relative positions: rope (each adjacent pair of features turned by its position's angle) and
rope_attention (causal attention on rotated queries and keys, the values left alone)."""
import numpy as np

import attnlib as at
from .attention_module import attention_steps
from .probes import features, rand
from .spec import Exercise, Probe


# rope(X, positions, theta=10000.0) ----------------------------------------------------------------------------------

def rope_steps(X, positions, theta=10000.0, *, c):
    """Pair (2i, 2i+1) of row t turned counter-clockwise by positions[t] * theta^(-2i/d)."""
    n, d = X.shape
    i = np.arange(d // 2)  # the pairs
    exponent = c("frequency exponent", right=2 * i / d, rope_exponent_not_doubled=i / d,
                 rope_exponent_doubled_twice=4 * i / d, rope_pairs_from_one=2 * (i + 1) / d,
                 rope_exponent_over_d_minus_2=2 * i / max(d - 2, 1), rope_frequencies_inverted=-2 * i / d,
                 rope_exponent_floor_division=-((-2 * i) // d))
    base = c("theta", right=theta, rope_theta_ignored=10000.0)
    t = np.asarray(positions)
    t = c("positions", right=t * 1.0, rope_positions_from_one=t + 1.0, rope_positions_ignored=np.arange(n) * 1.0,
          rope_positions_shifted_to_zero=t - t.min() * 1.0)
    freq = c.step("frequency", right=lambda: base ** -exponent, rope_one_frequency=lambda: np.ones(d // 2),
                  rope_power_precedence=lambda: base ** -2.0 * i / d,
                  rope_power_precedence__divided=lambda: base ** (-2.0 * i) / d,
                  rope_log10=lambda: np.exp(-exponent * np.log10(base)))
    a = t[:, None] * freq  # (n, d/2)
    a = c("angle unit", right=a, rope_angle_in_degrees=np.deg2rad(a), rope_angle_in_turns=2 * np.pi * a)
    pairs = c("pairs", right=(slice(0, None, 2), slice(1, None, 2)), rope_halves=(slice(0, d // 2), slice(d // 2, d)))
    x, y = X[:, pairs[0]], X[:, pairs[1]]  # (n, d/2) each: the two features of every pair
    cos, sin = c("cos and sin", right=(np.cos(a), np.sin(a)), rope_sin_cos_swapped=(np.sin(a), np.cos(a)))
    turned = c.step("rotation", right=lambda: (x * cos - y * sin, x * sin + y * cos),
                    rope_rotation_clockwise=lambda: (x * cos + y * sin, y * cos - x * sin),
                    rope_rotation_transposed=lambda: (x * cos - y * sin, y * cos - x * sin),
                    rope_rotation_reflected=lambda: (x * cos - y * sin, x * sin - y * cos),
                    rope_x_updated_first=lambda: (x * cos - y * sin, (x * cos - y * sin) * sin + y * cos),
                    rope_cos_only=lambda: (x * cos, y * cos),
                    rope_sinusoids_added=lambda: (x + np.sin(a), y + np.cos(a)))
    turned = c("pairs turned", right=turned, rope_last_pair_left_out=tuple(
        np.concatenate([r[:, :-1], u[:, -1:]], axis=1) for r, u in zip(turned, (x, y))))
    out = np.empty((n, d))
    written = c("written back", right=pairs, rope_pairs_written_as_halves=(slice(0, d // 2), slice(d // 2, d)))
    out[:, written[0]], out[:, written[1]] = turned
    return out


def _rope_probe(seed, n, d, positions=None, scale=1.0, **kw):
    positions = np.arange(n) if positions is None else np.asarray(positions)
    return Probe((rand(seed, n, d, scale=scale), positions), kw, names=("X", "positions"), cols=features(d))


ROPE_PROBES = [_rope_probe(1600, 5, 8),
               _rope_probe(1601, 4, 6, [3, 7, 8, 20]),                 # a sentence that starts later, with gaps
               _rope_probe(1602, 3, 4, [0, 1, 2], theta=100.0),       # another base
               _rope_probe(1603, 2, 2, [5, 1]),                       # one pair, positions out of order
               _rope_probe(1604, 6, 10, [0, 1000, 2, 3, 4, 100000]),  # far positions
               _rope_probe(1605, 1, 4, [0])]                          # position 0: the row comes back unchanged


# rope_attention(Q, K, V, positions, theta=10000.0) ------------------------------------------------------------------

def rope_attention(Q, K, V, positions, theta=10000.0):
    """Reference: causal attention with Q and K rotated by rope, V as given -> O (n, d_v)."""
    return at.attention(at.rope(Q, positions, theta), at.rope(K, positions, theta), V)


def rope_attention_steps(Q, K, V, positions, theta=10000.0, *, c):
    """O = attention(rope(Q), rope(K), V), causal: the rotation's choices, then attention's."""
    def turn(M):
        return rope_steps(M, positions, theta, c=c)
    Qr, Kr, Vr = c.step("what is rotated", right=lambda: (turn(Q), turn(K), V),
                        rope_rotated_twice=lambda: (rope_steps(turn(Q), positions, theta, c=c),
                                                    rope_steps(turn(K), positions, theta, c=c), V),
                        rope_values_rotated=lambda: (turn(Q), turn(K), turn(V)),
                        rope_queries_only=lambda: (turn(Q), K, V), rope_keys_only=lambda: (Q, turn(K), V),
                        rope_not_applied=lambda: (Q, K, V))
    if c("mask order", right="rows", rope_mask_by_positions="positions") == "positions":
        t = np.asarray(positions)
        S = np.where(t[None, :] > t[:, None], -np.inf, Qr @ Kr.T / np.sqrt(Q.shape[1]))  # (n, n)
        A = np.exp(S - S.max(axis=1, keepdims=True))
        return A / A.sum(axis=1, keepdims=True) @ Vr
    widths = {"scale_by_d_v": V.shape[1], "scale_by_length": len(Q), "scale_by_pairs": Q.shape[1] // 2}
    return c.step("rotated output", right=lambda: attention_steps(Qr, Kr, Vr, True, True, c=c, widths=widths),
                  rope_output_rotated=lambda: turn(attention_steps(Q, K, V, True, True, c=c)))


def _ra_probe(seed, n, d, d_v, positions=None, scale=1.5, **kw):
    positions = np.arange(n) if positions is None else np.asarray(positions)
    args = (rand(seed, n, d, scale=scale), rand(seed + 1, n, d, scale=scale), rand(seed + 2, n, d_v), positions)
    return Probe(args, kw, names=("Q", "K", "V", "positions"), cols=features(d_v, "v"))


RA_PROBES = [_ra_probe(1610, 5, 8, 4),
             _ra_probe(1620, 4, 6, 6, [2, 3, 9, 40]),
             _ra_probe(1630, 6, 4, 2, theta=50.0),
             _ra_probe(1640, 3, 2, 4, [100, 101, 102]),
             _ra_probe(1650, 1, 4, 2),
             _ra_probe(1660, 4, 6, 2, [7, 2, 9, 0]),          # positions out of order: the mask still goes by rows
             _ra_probe(1670, 5, 4, 4, scale=30.0)]            # scores in the thousands


CHOICES = {
    "frequency exponent": "Look at the exponent of each pair's frequency: pair i, of d features, turns at "
                          "theta to the power -2i/d.",
    "theta": "Look at the base of your frequencies: the theta you were given.",
    "positions": "Look at the positions you rotate by: the ones given, counted from 0, not the row numbers.",
    "frequency": "Look at how fast each pair turns: each pair at its own frequency.",
    "angle unit": "Look at the unit of your angles: numpy's cos and sin take radians.",
    "pairs": "Look at which two features make a pair: columns 2i and 2i + 1, side by side.",
    "cos and sin": "Look at where cos and where sin enter the rotation.",
    "rotation": "Look at the two new features of each pair: (x cos a - y sin a, x sin a + y cos a), counter-clockwise, "
                "both computed from the old x and y.",
    "pairs turned": "Count the pairs your rotation turns: every one of the d/2.",
    "written back": "Look at where each turned pair is written: back to the same two columns it was read from.",
    "what is rotated": "Look at which of Q, K and V your function rotates: the queries and the keys, only.",
    "mask order": "Look at what your causal mask compares: the rows' order, whatever positions they carry.",
    "rotated output": "Look at where the rotation happens: before the scores, on Q and K.",
}

DIAGNOSES = {
    "scale-by-pairs": "The scores were divided by the square root of d / 2, the number of rotated pairs; the scale "
                      "uses d, the width of the queries and keys, as without rotation.",
    "rope-exponent-not-doubled": "The frequency of pair i used the exponent i/d instead of 2i/d (the 2 counts the "
                                 "two features of each pair), so the later pairs turn too fast.",
    "rope-exponent-over-d-minus-2": "The exponent was divided by d - 2 instead of d, so the last pair turns at "
                                    "1/theta exactly and every pair but the first too slowly.",
    "rope-frequencies-inverted": "The frequencies were theta^(+2i/d) instead of theta^(-2i/d): the later pairs turn "
                                 "faster, not slower.",
    "rope-theta-ignored": "theta was left at 10000 whatever was passed: the base of the frequencies is the theta "
                          "given.",
    "rope-positions-from-one": "The positions were counted from 1: a row at position t was turned by the angle of "
                               "t + 1, so even position 0 moved.",
    "rope-positions-ignored": "The row numbers 0 .. n-1 were used instead of the positions given: a sentence that "
                              "starts later, or with gaps, is rotated as if it started at 0.",
    "rope-one-frequency": "Every pair turned at the same rate (one radian per position): each pair i turns at its "
                          "own frequency theta^(-2i/d).",
    "rope-exponent-doubled-twice": "The exponent was 4i/d: i already ran over 0, 2, 4, ... (the pairs' first columns), "
                                   "and was doubled again, so the later pairs turn far too slowly.",
    "rope-pairs-from-one": "The pairs were numbered from 1, so pair 0 turns at theta^(-2/d) instead of one radian per "
                           "position.",
    "rope-exponent-floor-division": "The exponent was computed with floor division (//), so it rounds to a whole "
                                    "number and every pair after the first turns at 1/theta.",
    "rope-positions-shifted-to-zero": "The positions were shifted to start at 0; a sentence that starts later keeps "
                                      "its positions, given to you as they are.",
    "rope-power-precedence": "The power and the division were grouped wrongly: the frequency came out as theta "
                             "to the power -2, times i / d, instead of theta to the power -2i/d.",
    "rope-log10": "The frequencies were built with the base-10 log of theta; theta^(-2i/d) comes from the natural "
                  "log.",
    "rope-angle-in-turns": "The angles were multiplied by 2 pi, as if the frequencies counted turns; they are already "
                           "radians per position.",
    "rope-rotation-reflected": "The second feature of each pair got x sin a - y cos a: that is a reflection, not a "
                               "rotation; it is x sin a + y cos a.",
    "rope-x-updated-first": "The second feature was computed from the already turned first one: both new features come "
                            "from the old x and y.",
    "rope-cos-only": "Only the cos terms were kept: each pair's two features must be mixed, -y sin a into the first "
                     "and x sin a into the second.",
    "rope-sinusoids-added": "Lesson 08's sinusoids were added to X instead of turning the pairs: RoPE rotates, it adds "
                            "nothing.",
    "rope-last-pair-left-out": "The last pair was left unturned: the loop over pairs stops one short of d/2.",
    "rope-pairs-written-as-halves": "The turned pairs were written back as two halves (all first features, then all "
                                    "second ones); each goes back to its own columns 2i and 2i + 1.",
    "rope-rotated-twice": "Q and K were rotated twice, so every angle is doubled: rotate each of them once.",
    "rope-angle-in-degrees": "The angles were treated as degrees: they are radians, which numpy's cos and sin take.",
    "rope-halves": "Feature i was paired with feature i + d/2 (the two halves); the exercise pairs adjacent features "
                   "2i and 2i + 1. Both conventions exist, and they differ by a fixed permutation of the features, "
                   "so a model trained with one cannot use the other.",
    "rope-sin-cos-swapped": "cos and sin were swapped in the rotation, so position 0 does not leave the row "
                            "unchanged.",
    "rope-rotation-clockwise": "The pairs were turned clockwise (by minus the angle); RoPE turns them "
                               "counter-clockwise: (x cos a - y sin a, x sin a + y cos a).",
    "rope-rotation-transposed": "The second feature of each pair got y cos a - x sin a: the first row of the "
                                "rotation is right, the second has the sign of x sin a flipped.",
    "rope-values-rotated": "V was rotated too. Only the queries and keys are: the values carry what a token says, not "
                           "where it stands, and rotating them mixes their features.",
    "rope-queries-only": "Only Q was rotated; K must be rotated too, or the scores do not depend on the offset alone.",
    "rope-keys-only": "Only K was rotated; Q must be rotated too, or the scores do not depend on the offset alone.",
    "rope-not-applied": "Neither Q nor K was rotated: this is plain causal attention, blind to the positions.",
    "rope-mask-by-positions": "The causal mask compared the positions instead of the rows' order; the text masks by "
                              "row order, and the two differ when the positions are not increasing.",
    "rope-output-rotated": "The output was rotated instead of the queries and keys: the rotation belongs before the "
                           "scores, on Q and K.",
}

EXERCISES = [
    Exercise(
        name="rope",
        reference=at.rope,
        probes=ROPE_PROBES,
        pipeline=rope_steps,
        verified="adjacent pairs turned by positions x theta^(-2i/d): positions with gaps and out of order, a far "
                 "position, another theta, one pair, position 0",
        hint1="Each pair of features is a point in a plane, and RoPE turns that point about the origin. How far it "
              "turns depends on the row's position and on the pair: pair 0 turns fastest, later pairs more slowly.",
        hint2="Build the angles as a table (n, d/2): the positions as a column times the frequencies theta^(-2i/d) "
              "as a row. Take the even columns and the odd columns of X as x and y, turn them with cos and sin of "
              "that table, and write them back to the same columns of a new array.",
        formula="a[t, i] = positions[t] · theta^(-2i/d); out[:, 2i] = x cos a - y sin a, out[:, 2i+1] = "
                "x sin a + y cos a, with x = X[:, 2i], y = X[:, 2i+1]",
    ),
    Exercise(
        name="rope_attention",
        uses=("rope",),
        reference=rope_attention,
        probes=RA_PROBES,
        pipeline=rope_attention_steps,
        verified="causal attention on rope-rotated Q and K with V unrotated, for positions from 0, with gaps, from "
                 "100 and out of order (the mask goes by rows), another theta, one row and scores in the thousands",
        hint1="RoPE changes only where the scores come from: rotate the queries and the keys by their positions, then "
              "run causal attention as in lesson 07. The values are mixed unrotated.",
        hint2="Rotate Q and K with your rope, at the given positions and theta; the scores are their product divided "
              "by the square root of d; -inf above the diagonal; a softmax over each row; then the weights times V.",
        formula="O = softmax(rope(Q) rope(K)ᵀ / √d + M) V, M[i, j] = -inf for j > i",
    ),
]
