"""Blind learner mistakes for exercises/16_rope.ipynb: `rope` and `rope_attention`.

A set of realistic wrong answers (MISTAKES) and right answers written differently (ACCEPTABLE), to measure a grader
on mistakes it has never seen. It was written from the exercise notebook's task texts and stub signatures alone
(with notebooks/16_rope.ipynb and attnlib/positions.py read only for the conventions), while the grader's checks
for these two exercises were being written from the same text, each writer seeing nothing of the other's work, and
without reading the grader (attnlib/checks), its tests, the solutions, the grading folder or the git history.

Habits imitated: the "rotate_half" / two-halves layout of other libraries and mixes of the two layouts; GPT-J style
cos/sin tables (np.tile vs np.repeat); complex numbers (conjugated, or x and y swapped); lesson 08's sinusoid table
reused (read the wrong way round, or simply added to X); loops over rows and pairs (off-by-one, overlapping pairs,
row index for position); the frequency exponent mistyped (-i/d, linspace, +2i/d, per feature, -4i/d, floor
division, precedence, parentheses, log10, pairs from 1); sin/cos swapped, clockwise rotation, a reflection, the
sequential-update bug; degrees, 2*pi; positions from 1, ignored, shifted to 0, broadcast the wrong way; in-place
edits of X, int and float32 outputs, a wrong shape, a float reshape crash; theta ignored or a Llama-3 default.
In rope_attention: V, the scores or the output rotated, only Q or only K, no rotation, double rotation, a copy-paste
K, theta not passed, row indices for positions, three inline wrong rotations; every classic mask, scale, softmax and
output slip of lessons 06-07, and an in-place scale of Q. The rope_attention entries call the correct `rope` below
(the exercise tells the learner to call their own rope), except the three with an inline wrong rotation.
Rope mistakes that every score forgives (positions from 1, positions shifted to 0: only the offsets reach the
scores) are deliberately not repeated in rope_attention: their outputs equal the right ones.

Verified with a script of its own, outside the repository: references written from the exercise text
(scalar loops with math.cos) agree with attnlib.positions.rope and attnlib.attention on 702 inputs (worst relative
difference 8e-12 for rope, 7e-14 for rope_attention) and give the worked example [0.540, 0.841, 1.000, 0.010].
rope was run on 342 inputs (n 1-7, d 2-64 including n == d/2; positions contiguous, shifted, with gaps, around
1e5, spaced by 7 from 1000, unsorted, with duplicates; theta omitted, 10000, 100, 2, 1e6; integer X),
rope_attention on 360 (n 1-8, d 2-16, d_v 1-8; the same positions and thetas; scores in the thousands; integer
Q, K, V). All 46 rope mistakes and 35 rope_attention mistakes differ from the reference on at least one input (a
raise, another shape, NaN, a value off by more than 1e-6 relative, or a modified input); 3 rope and 6 rope_attention
mistakes raise on some inputs (1 of each on every input). A few show only on particular inputs: the Llama-3 default
(theta omitted), zeros_like (integer X), float32 (large positions), the mask by positions (unsorted or repeated
positions) and the softmax without the max (large scores). All 10 + 10 acceptable variants agree with the reference
to 1e-10 relative (max |diff| / max(1, max |ref|)) on every input and leave their inputs unmodified. Positions near
1e7 were left out: there, correct formulas differ by about 1e-9 relative from the rounding of the angle alone.
"""
from dataclasses import dataclass
from typing import Callable

import numpy as np


@dataclass(frozen=True)
class Mistake:
    exercise: str  # "rope" or "rope_attention"
    what: str      # one precise plain-English line naming the mistake, as an ideal grader would
    fn: Callable   # the learner's function, with the exercise's exact signature


# ============================================================================
# rope(X, positions, theta=10000.0): mistakes
# ============================================================================

def rope_halves(X, positions, theta=10000.0):
    # the "rotate_half" layout of other libraries: first half against second half
    d = X.shape[1]
    a = np.asarray(positions)[:, None] * theta ** (-np.arange(0, d, 2) / d)
    x, y = X[:, :d // 2], X[:, d // 2:]
    return np.concatenate([x * np.cos(a) - y * np.sin(a), x * np.sin(a) + y * np.cos(a)], axis=1)


def rope_tile_angles(X, positions, theta=10000.0):
    d = X.shape[1]
    freqs = 1.0 / theta ** (np.arange(0, d, 2) / d)
    a = np.tile(positions[:, None] * freqs, 2)  # (n, d): one angle per column
    rotated = np.empty(X.shape)
    rotated[:, 0::2] = -X[:, 1::2]
    rotated[:, 1::2] = X[:, 0::2]
    return X * np.cos(a) + rotated * np.sin(a)


def rope_positions_from_one(X, positions, theta=10000.0):
    d = X.shape[1]
    i = np.arange(d // 2)
    a = (positions[:, None] + 1) * theta ** (-2 * i / d)  # first word is position 1
    out = np.empty(X.shape)
    out[:, 0::2] = X[:, 0::2] * np.cos(a) - X[:, 1::2] * np.sin(a)
    out[:, 1::2] = X[:, 0::2] * np.sin(a) + X[:, 1::2] * np.cos(a)
    return out


def rope_row_index(X, positions, theta=10000.0):
    n, d = X.shape
    t = np.arange(n)  # position of each row
    a = t[:, None] * theta ** (-np.arange(0, d, 2) / d)
    out = np.empty((n, d))
    out[:, 0::2] = X[:, 0::2] * np.cos(a) - X[:, 1::2] * np.sin(a)
    out[:, 1::2] = X[:, 0::2] * np.sin(a) + X[:, 1::2] * np.cos(a)
    return out


def rope_row_index_loop(X, positions, theta=10000.0):
    n, d = X.shape
    out = np.zeros((n, d))
    for t in range(n):
        for i in range(d // 2):
            a = t * theta ** (-2 * i / d)
            x, y = X[t, 2 * i], X[t, 2 * i + 1]
            out[t, 2 * i] = x * np.cos(a) - y * np.sin(a)
            out[t, 2 * i + 1] = x * np.sin(a) + y * np.cos(a)
    return out


def rope_exponent_i_over_d(X, positions, theta=10000.0):
    d = X.shape[1]
    i = np.arange(d // 2)
    freqs = theta ** (-i / d)
    a = np.outer(positions, freqs)
    x, y = X[:, 0::2], X[:, 1::2]
    out = np.empty(X.shape)
    out[:, 0::2] = x * np.cos(a) - y * np.sin(a)
    out[:, 1::2] = x * np.sin(a) + y * np.cos(a)
    return out


def rope_linspace_exponent(X, positions, theta=10000.0):
    d = X.shape[1]
    freqs = theta ** -np.linspace(0, 1, d // 2)  # from 1 down to 1/theta
    a = positions[:, None] * freqs
    x, y = X[:, ::2], X[:, 1::2]
    out = np.empty(X.shape)
    out[:, ::2] = x * np.cos(a) - y * np.sin(a)
    out[:, 1::2] = x * np.sin(a) + y * np.cos(a)
    return out


def rope_positive_exponent(X, positions, theta=10000.0):
    d = X.shape[1]
    i = np.arange(d // 2)
    a = positions[:, None] * theta ** (2 * i / d)
    x, y = X[:, 0::2], X[:, 1::2]
    out = np.empty(X.shape)
    out[:, 0::2] = x * np.cos(a) - y * np.sin(a)
    out[:, 1::2] = x * np.sin(a) + y * np.cos(a)
    return out


def rope_frequency_per_feature(X, positions, theta=10000.0):
    d = X.shape[1]
    freqs = theta ** (-np.arange(d) / d)  # (d,): one frequency per column
    a = positions[:, None] * freqs  # (n, d)
    partner = np.empty(X.shape)
    partner[:, 0::2] = -X[:, 1::2]
    partner[:, 1::2] = X[:, 0::2]
    return X * np.cos(a) + partner * np.sin(a)


def rope_double_two(X, positions, theta=10000.0):
    d = X.shape[1]
    i = np.arange(0, d, 2)  # the pairs
    freqs = theta ** (-2 * i / d)
    a = positions[:, None] * freqs
    out = np.empty(X.shape)
    out[:, 0::2] = X[:, 0::2] * np.cos(a) - X[:, 1::2] * np.sin(a)
    out[:, 1::2] = X[:, 0::2] * np.sin(a) + X[:, 1::2] * np.cos(a)
    return out


def rope_feature_index_table(X, positions, theta=10000.0):
    d = X.shape[1]
    a = positions[:, None] * theta ** (-2 * np.arange(d) / d)  # (n, d), i running over the columns
    cos, sin = np.cos(a), np.sin(a)
    swapped = np.empty(X.shape)
    swapped[:, 0::2] = -X[:, 1::2]
    swapped[:, 1::2] = X[:, 0::2]
    return X * cos + swapped * sin


def rope_sin_cos_swapped(X, positions, theta=10000.0):
    d = X.shape[1]
    a = positions[:, None] * theta ** (-np.arange(0, d, 2) / d)
    x, y = X[:, 0::2], X[:, 1::2]
    out = np.empty(X.shape)
    out[:, 0::2] = x * np.sin(a) - y * np.cos(a)
    out[:, 1::2] = x * np.cos(a) + y * np.sin(a)
    return out


def rope_clockwise(X, positions, theta=10000.0):
    d = X.shape[1]
    a = positions[:, None] * theta ** (-np.arange(0, d, 2) / d)
    x, y = X[:, 0::2], X[:, 1::2]
    out = np.empty(X.shape)
    out[:, 0::2] = x * np.cos(a) + y * np.sin(a)
    out[:, 1::2] = -x * np.sin(a) + y * np.cos(a)
    return out


def rope_degrees(X, positions, theta=10000.0):
    d = X.shape[1]
    a = positions[:, None] * theta ** (-np.arange(0, d, 2) / d)
    a = np.radians(a)  # np.cos wants radians
    out = np.empty(X.shape)
    out[:, 0::2] = X[:, 0::2] * np.cos(a) - X[:, 1::2] * np.sin(a)
    out[:, 1::2] = X[:, 0::2] * np.sin(a) + X[:, 1::2] * np.cos(a)
    return out


def rope_ignores_theta(X, positions, theta=10000.0):
    d = X.shape[1]
    freqs = 10000.0 ** (-np.arange(0, d, 2) / d)
    a = positions[:, None] * freqs
    out = np.empty(X.shape)
    out[:, 0::2] = X[:, 0::2] * np.cos(a) - X[:, 1::2] * np.sin(a)
    out[:, 1::2] = X[:, 0::2] * np.sin(a) + X[:, 1::2] * np.cos(a)
    return out


def rope_llama3_default(X, positions, theta=500000.0):
    d = X.shape[1]
    freqs = theta ** (-np.arange(0, d, 2) / d)
    a = positions[:, None] * freqs
    out = np.empty(X.shape)
    out[:, 0::2] = X[:, 0::2] * np.cos(a) - X[:, 1::2] * np.sin(a)
    out[:, 1::2] = X[:, 0::2] * np.sin(a) + X[:, 1::2] * np.cos(a)
    return out


def rope_inplace_views(X, positions, theta=10000.0):
    d = X.shape[1]
    a = positions[:, None] * theta ** (-np.arange(0, d, 2) / d)
    x, y = X[:, 0::2], X[:, 1::2]
    X[:, 0::2] = x * np.cos(a) - y * np.sin(a)
    X[:, 1::2] = x * np.sin(a) + y * np.cos(a)
    return X


def rope_inplace_copies(X, positions, theta=10000.0):
    d = X.shape[1]
    a = positions[:, None] * theta ** (-np.arange(0, d, 2) / d)
    x, y = X[:, 0::2].copy(), X[:, 1::2].copy()
    X[:, 0::2] = x * np.cos(a) - y * np.sin(a)
    X[:, 1::2] = x * np.sin(a) + y * np.cos(a)
    return X


def rope_returns_none(X, positions, theta=10000.0):
    d = X.shape[1]
    a = positions[:, None] * theta ** (-np.arange(0, d, 2) / d)
    x, y = X[:, 0::2].copy(), X[:, 1::2].copy()
    X[:, 0::2] = x * np.cos(a) - y * np.sin(a)
    X[:, 1::2] = x * np.sin(a) + y * np.cos(a)


def rope_zeros_like(X, positions, theta=10000.0):
    d = X.shape[1]
    a = positions[:, None] * theta ** (-np.arange(0, d, 2) / d)
    out = np.zeros_like(X)
    out[:, 0::2] = X[:, 0::2] * np.cos(a) - X[:, 1::2] * np.sin(a)
    out[:, 1::2] = X[:, 0::2] * np.sin(a) + X[:, 1::2] * np.cos(a)
    return out


def rope_float32(X, positions, theta=10000.0):
    X = X.astype(np.float32)  # saves memory
    d = X.shape[1]
    freqs = (theta ** (-np.arange(0, d, 2) / d)).astype(np.float32)
    a = positions.astype(np.float32)[:, None] * freqs
    out = np.empty_like(X)
    out[:, 0::2] = X[:, 0::2] * np.cos(a) - X[:, 1::2] * np.sin(a)
    out[:, 1::2] = X[:, 0::2] * np.sin(a) + X[:, 1::2] * np.cos(a)
    return out


def rope_outer_reshape(X, positions, theta=10000.0):
    n, d = X.shape
    freqs = theta ** (-np.arange(0, d, 2) / d)
    a = np.outer(freqs, positions).reshape(n, d // 2)  # (d/2, n) -> (n, d/2)
    out = np.empty((n, d))
    out[:, 0::2] = X[:, 0::2] * np.cos(a) - X[:, 1::2] * np.sin(a)
    out[:, 1::2] = X[:, 0::2] * np.sin(a) + X[:, 1::2] * np.cos(a)
    return out


def rope_angles_pairs_by_rows(X, positions, theta=10000.0):
    d = X.shape[1]
    freqs = theta ** (-np.arange(0, d, 2) / d)
    a = freqs[:, None] * positions[None, :]  # pair i, row t
    out = np.empty(X.shape)
    out[:, 0::2] = X[:, 0::2] * np.cos(a) - X[:, 1::2] * np.sin(a)
    out[:, 1::2] = X[:, 0::2] * np.sin(a) + X[:, 1::2] * np.cos(a)
    return out


def rope_no_newaxis(X, positions, theta=10000.0):
    d = X.shape[1]
    a = positions * theta ** (-np.arange(0, d, 2) / d)
    out = np.empty(X.shape)
    out[:, 0::2] = X[:, 0::2] * np.cos(a) - X[:, 1::2] * np.sin(a)
    out[:, 1::2] = X[:, 0::2] * np.sin(a) + X[:, 1::2] * np.cos(a)
    return out


def rope_adds_sinusoids(X, positions, theta=10000.0):
    # the position vector of lesson 08, at the given positions
    d = X.shape[1]
    a = positions[:, None] * theta ** (-np.arange(0, d, 2) / d)
    P = np.zeros(X.shape)
    P[:, 0::2] = np.sin(a)
    P[:, 1::2] = np.cos(a)
    return X + P


def rope_cos_only(X, positions, theta=10000.0):
    d = X.shape[1]
    a = positions[:, None] * theta ** (-np.arange(0, d, 2) / d)
    return X * np.repeat(np.cos(a), 2, axis=1)


def rope_reflection(X, positions, theta=10000.0):
    d = X.shape[1]
    a = positions[:, None] * theta ** (-np.arange(0, d, 2) / d)
    x, y = X[:, 0::2], X[:, 1::2]
    out = np.empty(X.shape)
    out[:, 0::2] = x * np.cos(a) - y * np.sin(a)
    out[:, 1::2] = x * np.sin(a) - y * np.cos(a)
    return out


def rope_sequential_update(X, positions, theta=10000.0):
    d = X.shape[1]
    a = positions[:, None] * theta ** (-np.arange(0, d, 2) / d)
    c, s = np.cos(a), np.sin(a)
    x, y = X[:, 0::2].astype(float), X[:, 1::2].astype(float)
    x = x * c - y * s
    y = x * s + y * c
    out = np.empty(X.shape)
    out[:, 0::2], out[:, 1::2] = x, y
    return out


def rope_floor_division(X, positions, theta=10000.0):
    d = X.shape[1]
    i = np.arange(d // 2)
    freqs = theta ** (-2 * i // d)
    a = positions[:, None] * freqs
    out = np.empty(X.shape)
    out[:, 0::2] = X[:, 0::2] * np.cos(a) - X[:, 1::2] * np.sin(a)
    out[:, 1::2] = X[:, 0::2] * np.sin(a) + X[:, 1::2] * np.cos(a)
    return out


def rope_shift_to_zero(X, positions, theta=10000.0):
    positions = positions - positions.min()  # counted from 0
    d = X.shape[1]
    a = positions[:, None] * theta ** (-np.arange(0, d, 2) / d)
    out = np.empty(X.shape)
    out[:, 0::2] = X[:, 0::2] * np.cos(a) - X[:, 1::2] * np.sin(a)
    out[:, 1::2] = X[:, 0::2] * np.sin(a) + X[:, 1::2] * np.cos(a)
    return out


def rope_skips_last_pair(X, positions, theta=10000.0):
    d = X.shape[1]
    out = X.astype(float)
    for i in range(d // 2 - 1):
        a = positions * theta ** (-2 * i / d)
        x, y = X[:, 2 * i], X[:, 2 * i + 1]
        out[:, 2 * i] = x * np.cos(a) - y * np.sin(a)
        out[:, 2 * i + 1] = x * np.sin(a) + y * np.cos(a)
    return out


def rope_overlapping_pairs(X, positions, theta=10000.0):
    d = X.shape[1]
    out = np.array(X, dtype=float)
    for i in range(d // 2):
        a = positions * theta ** (-2 * i / d)
        x, y = X[:, i], X[:, i + 1]
        out[:, i] = x * np.cos(a) - y * np.sin(a)
        out[:, i + 1] = x * np.sin(a) + y * np.cos(a)
    return out


def rope_two_pi(X, positions, theta=10000.0):
    d = X.shape[1]
    freqs = theta ** (-np.arange(0, d, 2) / d)
    a = 2 * np.pi * positions[:, None] * freqs
    out = np.empty(X.shape)
    out[:, 0::2] = X[:, 0::2] * np.cos(a) - X[:, 1::2] * np.sin(a)
    out[:, 1::2] = X[:, 0::2] * np.sin(a) + X[:, 1::2] * np.cos(a)
    return out


def rope_log10(X, positions, theta=10000.0):
    d = X.shape[1]
    i = np.arange(d // 2)
    freqs = np.exp(-2 * i / d * np.log10(theta))
    a = positions[:, None] * freqs
    out = np.empty(X.shape)
    out[:, 0::2] = X[:, 0::2] * np.cos(a) - X[:, 1::2] * np.sin(a)
    out[:, 1::2] = X[:, 0::2] * np.sin(a) + X[:, 1::2] * np.cos(a)
    return out


def rope_concat_not_interleaved(X, positions, theta=10000.0):
    d = X.shape[1]
    a = positions[:, None] * theta ** (-np.arange(0, d, 2) / d)
    x, y = X[:, 0::2], X[:, 1::2]
    new_x = x * np.cos(a) - y * np.sin(a)
    new_y = x * np.sin(a) + y * np.cos(a)
    return np.concatenate([new_x, new_y], axis=1)


def rope_stack_axis0(X, positions, theta=10000.0):
    n, d = X.shape
    a = positions[:, None] * theta ** (-np.arange(0, d, 2) / d)
    x, y = X[:, 0::2], X[:, 1::2]
    new_x = x * np.cos(a) - y * np.sin(a)
    new_y = x * np.sin(a) + y * np.cos(a)
    return np.stack([new_x, new_y]).reshape(n, d)


def rope_complex_swapped(X, positions, theta=10000.0):
    d = X.shape[1]
    a = positions[:, None] * theta ** (-np.arange(0, d, 2) / d)
    z = X[:, 1::2] + 1j * X[:, 0::2]
    w = z * np.exp(1j * a)
    out = np.empty(X.shape)
    out[:, 0::2] = w.real
    out[:, 1::2] = w.imag
    return out


def rope_complex_conjugate(X, positions, theta=10000.0):
    d = X.shape[1]
    a = positions[:, None] * theta ** (-np.arange(0, d, 2) / d)
    z = X[:, 0::2] + 1j * X[:, 1::2]
    w = z * np.exp(-1j * a)
    out = np.empty(X.shape)
    out[:, 0::2] = w.real
    out[:, 1::2] = w.imag
    return out


def rope_sinusoid_table_swapped(X, positions, theta=10000.0):
    # lesson 08's table at these positions, then read cos and sin off it
    d = X.shape[1]
    a = positions[:, None] / theta ** (np.arange(0, d, 2) / d)
    P = np.zeros(X.shape)
    P[:, 0::2] = np.sin(a)
    P[:, 1::2] = np.cos(a)
    cos, sin = P[:, 0::2], P[:, 1::2]
    out = np.empty(X.shape)
    out[:, 0::2] = X[:, 0::2] * cos - X[:, 1::2] * sin
    out[:, 1::2] = X[:, 0::2] * sin + X[:, 1::2] * cos
    return out


def rope_precedence(X, positions, theta=10000.0):
    d = X.shape[1]
    i = np.arange(d // 2)
    freqs = theta ** -2 * i / d
    a = positions[:, None] * freqs
    out = np.empty(X.shape)
    out[:, 0::2] = X[:, 0::2] * np.cos(a) - X[:, 1::2] * np.sin(a)
    out[:, 1::2] = X[:, 0::2] * np.sin(a) + X[:, 1::2] * np.cos(a)
    return out


def rope_paren_exponent(X, positions, theta=10000.0):
    d = X.shape[1]
    i = np.arange(d // 2)
    freqs = theta ** (-2 * i) / d
    a = positions[:, None] * freqs
    out = np.empty(X.shape)
    out[:, 0::2] = X[:, 0::2] * np.cos(a) - X[:, 1::2] * np.sin(a)
    out[:, 1::2] = X[:, 0::2] * np.sin(a) + X[:, 1::2] * np.cos(a)
    return out


def rope_pairs_from_one(X, positions, theta=10000.0):
    d = X.shape[1]
    i = np.arange(1, d // 2 + 1)  # pair 1 .. d/2
    a = positions[:, None] * theta ** (-2 * i / d)
    out = np.empty(X.shape)
    out[:, 0::2] = X[:, 0::2] * np.cos(a) - X[:, 1::2] * np.sin(a)
    out[:, 1::2] = X[:, 0::2] * np.sin(a) + X[:, 1::2] * np.cos(a)
    return out


def rope_pairs_shape(X, positions, theta=10000.0):
    n, d = X.shape
    pairs = X.reshape(n, d // 2, 2)
    a = positions[:, None] * theta ** (-np.arange(0, d, 2) / d)
    x, y = pairs[..., 0], pairs[..., 1]
    return np.stack([x * np.cos(a) - y * np.sin(a), x * np.sin(a) + y * np.cos(a)], axis=-1)


def rope_float_reshape(X, positions, theta=10000.0):
    n, d = X.shape
    pairs = X.reshape(n, d / 2, 2)
    a = positions[:, None] * theta ** (-np.arange(0, d, 2) / d)
    x, y = pairs[..., 0], pairs[..., 1]
    return np.stack([x * np.cos(a) - y * np.sin(a), x * np.sin(a) + y * np.cos(a)], axis=-1).reshape(n, d)


def rope_odd_is_x(X, positions, theta=10000.0):
    d = X.shape[1]
    a = positions[:, None] * theta ** (-np.arange(0, d, 2) / d)
    y, x = X[:, 0::2], X[:, 1::2]
    out = np.empty(X.shape)
    out[:, 1::2] = x * np.cos(a) - y * np.sin(a)
    out[:, 0::2] = x * np.sin(a) + y * np.cos(a)
    return out


def rope_mixed_conventions(X, positions, theta=10000.0):
    # cos/sin tables as (n, d), then x * cos + rotate_half(x) * sin
    d = X.shape[1]
    a = positions[:, None] * theta ** (-np.arange(0, d, 2) / d)
    cos = np.repeat(np.cos(a), 2, axis=1)
    sin = np.repeat(np.sin(a), 2, axis=1)
    half = d // 2
    rotate_half = np.concatenate([-X[:, half:], X[:, :half]], axis=1)
    return X * cos + rotate_half * sin


# ============================================================================
# rope(X, positions, theta=10000.0): acceptable variants
# ============================================================================

def rope_ok_complex(X, positions, theta=10000.0):
    d = X.shape[1]
    a = np.asarray(positions)[:, None] * theta ** (-np.arange(0, d, 2) / d)
    z = (X[:, 0::2] + 1j * X[:, 1::2]) * np.exp(1j * a)
    out = np.empty(X.shape)
    out[:, 0::2], out[:, 1::2] = z.real, z.imag
    return out


def rope_ok_matrix_loop(X, positions, theta=10000.0):
    n, d = X.shape
    out = np.zeros((n, d))
    for t in range(n):
        for i in range(d // 2):
            a = positions[t] * theta ** (-2 * i / d)
            R = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
            out[t, 2 * i:2 * i + 2] = R @ X[t, 2 * i:2 * i + 2]
    return out


def rope_ok_scalar_loops(X, positions, theta=10000.0):
    n, d = X.shape
    out = [[0.0] * d for _ in range(n)]
    for t in range(n):
        p = float(positions[t])
        for i in range(d // 2):
            a = p / theta ** (2 * i / d)
            c, s = float(np.cos(a)), float(np.sin(a))
            x, y = float(X[t][2 * i]), float(X[t][2 * i + 1])
            out[t][2 * i] = x * c - y * s
            out[t][2 * i + 1] = x * s + y * c
    return np.array(out, dtype=float).reshape(n, d)


def rope_ok_einsum(X, positions, theta=10000.0):
    n, d = X.shape
    a = np.einsum("t,i->ti", np.asarray(positions, dtype=float), theta ** (-np.arange(0, d, 2) / d))
    c, s = np.cos(a), np.sin(a)
    R = np.stack([np.stack([c, -s], axis=-1), np.stack([s, c], axis=-1)], axis=-2)  # (n, d/2, 2, 2)
    pairs = np.asarray(X, dtype=float).reshape(n, d // 2, 2)
    return np.einsum("tirc,tic->tir", R, pairs).reshape(n, d)


def rope_ok_reshape_pairs(X, positions, theta=10000.0):
    n, d = X.shape
    pairs = X.reshape(n, d // 2, 2)
    x, y = pairs[..., 0], pairs[..., 1]
    a = positions.reshape(-1, 1) * np.power(theta, -np.arange(d // 2) * 2.0 / d)
    rotated = np.stack([x * np.cos(a) - y * np.sin(a), x * np.sin(a) + y * np.cos(a)], axis=-1)
    return rotated.reshape(n, d)


def rope_ok_repeat_tables(X, positions, theta=10000.0):
    # GPT-J style: x * cos + rotate_every_two(x) * sin, with the tables repeated per column
    d = X.shape[1]
    inv_freq = 1.0 / theta ** (np.arange(0, d, 2) / d)
    a = np.outer(positions, inv_freq)
    cos, sin = np.repeat(np.cos(a), 2, axis=1), np.repeat(np.sin(a), 2, axis=1)
    every_two = np.stack([-X[:, 1::2], X[:, 0::2]], axis=-1).reshape(X.shape)
    return X * cos + every_two * sin


def rope_ok_exp_log_float64(X, positions, theta=10000.0):
    X = np.array(X, dtype=np.float64)  # a copy, float64 throughout
    pos = np.asarray(positions, dtype=np.float64)
    d = X.shape[1]
    freqs = np.exp(-(2.0 * np.arange(d // 2) / d) * np.log(np.float64(theta)))
    a = pos[:, None] * freqs[None, :]
    x, y = X[:, 0::2].copy(), X[:, 1::2].copy()
    X[:, 0::2] = x * np.cos(a) - y * np.sin(a)
    X[:, 1::2] = x * np.sin(a) + y * np.cos(a)
    return X


def rope_ok_block_diagonal(X, positions, theta=10000.0):
    n, d = X.shape
    out = np.empty((n, d))
    for t in range(n):
        M = np.zeros((d, d))
        for i in range(d // 2):
            a = positions[t] * theta ** (-2 * i / d)
            M[2 * i:2 * i + 2, 2 * i:2 * i + 2] = [[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]]
        out[t] = X[t] @ M.T  # rows are tokens: x R^T
    return out


def rope_ok_via_halves(X, positions, theta=10000.0):
    # the lesson's halves convention on features reordered even-then-odd, then the order undone
    d = X.shape[1]
    perm = np.concatenate([np.arange(0, d, 2), np.arange(1, d, 2)])
    Xp = X[:, perm]
    a = np.asarray(positions)[:, None] * theta ** (-np.arange(0, d, 2) / d)
    x, y = Xp[:, :d // 2], Xp[:, d // 2:]
    halves = np.concatenate([x * np.cos(a) - y * np.sin(a), x * np.sin(a) + y * np.cos(a)], axis=1)
    out = np.empty(halves.shape)
    out[:, perm] = halves
    return out


def rope_ok_polar(X, positions, theta=10000.0):
    d = X.shape[1]
    x, y = X[:, 0::2], X[:, 1::2]
    r, phi = np.hypot(x, y), np.arctan2(y, x)
    phi = phi + positions[:, None] * theta ** (-np.arange(0, d, 2) / d)
    out = np.empty(X.shape)
    out[:, 0::2], out[:, 1::2] = r * np.cos(phi), r * np.sin(phi)
    return out


# ============================================================================
# rope_attention(Q, K, V, positions, theta=10000.0)
# ============================================================================

def rope(X, positions, theta=10000.0):
    """A correct `rope`: the learners' rope_attention below call it, as the exercise tells them to."""
    d = X.shape[1]
    a = np.asarray(positions)[:, None] * theta ** (-np.arange(0, d, 2) / d)
    x, y = X[:, 0::2], X[:, 1::2]
    out = np.empty(X.shape)
    out[:, 0::2] = x * np.cos(a) - y * np.sin(a)
    out[:, 1::2] = x * np.sin(a) + y * np.cos(a)
    return out


def ra_rotates_v(Q, K, V, positions, theta=10000.0):
    Qr, Kr, Vr = rope(Q, positions, theta), rope(K, positions, theta), rope(V, positions, theta)
    n, d = Q.shape
    S = Qr @ Kr.T / np.sqrt(d)
    S = S + np.triu(np.full((n, n), -np.inf), k=1)
    E = np.exp(S - S.max(axis=1, keepdims=True))
    A = E / E.sum(axis=1, keepdims=True)
    return A @ Vr


def ra_rotates_scores(Q, K, V, positions, theta=10000.0):
    n, d = Q.shape
    S = Q @ K.T / np.sqrt(d)
    S = rope(S, positions, theta)  # rotate the scores by position
    S[np.triu_indices(n, k=1)] = -np.inf
    E = np.exp(S - S.max(axis=1, keepdims=True))
    A = E / E.sum(axis=1, keepdims=True)
    return A @ V


def ra_rotates_output(Q, K, V, positions, theta=10000.0):
    n, d = Q.shape
    S = Q @ K.T / np.sqrt(d)
    S[np.triu_indices(n, k=1)] = -np.inf
    E = np.exp(S - S.max(axis=1, keepdims=True))
    A = E / E.sum(axis=1, keepdims=True)
    return rope(A @ V, positions, theta)


def ra_only_q(Q, K, V, positions, theta=10000.0):
    Qr = rope(Q, positions, theta)
    n, d = Q.shape
    S = Qr @ K.T / np.sqrt(d)
    S = np.where(np.tri(n, dtype=bool), S, -np.inf)
    E = np.exp(S - S.max(axis=-1, keepdims=True))
    return E / E.sum(axis=-1, keepdims=True) @ V


def ra_only_k(Q, K, V, positions, theta=10000.0):
    Kr = rope(K, positions, theta)
    n, d = Q.shape
    S = Q @ Kr.T / np.sqrt(d)
    S = np.where(np.tri(n, dtype=bool), S, -np.inf)
    E = np.exp(S - S.max(axis=-1, keepdims=True))
    return E / E.sum(axis=-1, keepdims=True) @ V


def ra_no_rope(Q, K, V, positions, theta=10000.0):
    n, d = Q.shape
    S = Q @ K.T / np.sqrt(d)
    S = S + np.triu(np.full((n, n), -np.inf), k=1)
    E = np.exp(S - S.max(axis=1, keepdims=True))
    A = E / E.sum(axis=1, keepdims=True)
    return A @ V


def ra_no_mask(Q, K, V, positions, theta=10000.0):
    Qr, Kr = rope(Q, positions, theta), rope(K, positions, theta)
    S = Qr @ Kr.T / np.sqrt(Q.shape[1])
    E = np.exp(S - S.max(axis=1, keepdims=True))
    A = E / E.sum(axis=1, keepdims=True)
    return A @ V


def ra_mask_diagonal(Q, K, V, positions, theta=10000.0):
    Qr, Kr = rope(Q, positions, theta), rope(K, positions, theta)
    n, d = Q.shape
    S = Qr @ Kr.T / np.sqrt(d)
    S[np.triu(np.ones((n, n), dtype=bool))] = -np.inf  # the future
    E = np.exp(S - S.max(axis=1, keepdims=True))
    A = E / E.sum(axis=1, keepdims=True)
    return A @ V


def ra_masks_past(Q, K, V, positions, theta=10000.0):
    Qr, Kr = rope(Q, positions, theta), rope(K, positions, theta)
    n, d = Q.shape
    S = Qr @ Kr.T / np.sqrt(d)
    S[np.tril(np.ones((n, n), dtype=bool), k=-1)] = -np.inf
    E = np.exp(S - S.max(axis=1, keepdims=True))
    A = E / E.sum(axis=1, keepdims=True)
    return A @ V


def ra_mask_after_softmax(Q, K, V, positions, theta=10000.0):
    Qr, Kr = rope(Q, positions, theta), rope(K, positions, theta)
    n, d = Q.shape
    S = Qr @ Kr.T / np.sqrt(d)
    E = np.exp(S - S.max(axis=1, keepdims=True))
    A = E / E.sum(axis=1, keepdims=True)
    A = A * np.tril(np.ones((n, n)))  # no weight on the future
    return A @ V


def ra_mask_multiplied(Q, K, V, positions, theta=10000.0):
    Qr, Kr = rope(Q, positions, theta), rope(K, positions, theta)
    n, d = Q.shape
    S = Qr @ Kr.T / np.sqrt(d)
    S = S * np.tril(np.ones((n, n)))
    E = np.exp(S - S.max(axis=1, keepdims=True))
    A = E / E.sum(axis=1, keepdims=True)
    return A @ V


def ra_mask_by_positions(Q, K, V, positions, theta=10000.0):
    Qr, Kr = rope(Q, positions, theta), rope(K, positions, theta)
    S = Qr @ Kr.T / np.sqrt(Q.shape[1])
    future = positions[None, :] > positions[:, None]  # key later than query
    S = np.where(future, -np.inf, S)
    E = np.exp(S - S.max(axis=1, keepdims=True))
    A = E / E.sum(axis=1, keepdims=True)
    return A @ V


def ra_mask_offset_by_start(Q, K, V, positions, theta=10000.0):
    Qr, Kr = rope(Q, positions, theta), rope(K, positions, theta)
    n, d = Q.shape
    S = Qr @ Kr.T / np.sqrt(d)
    first = int(positions[0])  # the queries start at positions[0], as with a cache
    S[np.triu(np.ones((n, n), dtype=bool), k=first + 1)] = -np.inf
    E = np.exp(S - S.max(axis=1, keepdims=True))
    A = E / E.sum(axis=1, keepdims=True)
    return A @ V


def ra_ones_dtype_crash(Q, K, V, positions, theta=10000.0):
    Qr, Kr = rope(Q, positions, theta), rope(K, positions, theta)
    n, d = Q.shape
    S = Qr @ Kr.T / np.sqrt(d)
    mask = np.triu(np.ones(n, n), k=1)
    S[mask == 1] = -np.inf
    E = np.exp(S - S.max(axis=1, keepdims=True))
    A = E / E.sum(axis=1, keepdims=True)
    return A @ V


def ra_scale_by_d(Q, K, V, positions, theta=10000.0):
    Qr, Kr = rope(Q, positions, theta), rope(K, positions, theta)
    n, d = Q.shape
    S = Qr @ Kr.T / d
    S = S + np.triu(np.full((n, n), -np.inf), k=1)
    E = np.exp(S - S.max(axis=1, keepdims=True))
    A = E / E.sum(axis=1, keepdims=True)
    return A @ V


def ra_no_scale(Q, K, V, positions, theta=10000.0):
    Qr, Kr = rope(Q, positions, theta), rope(K, positions, theta)
    n = Q.shape[0]
    S = Qr @ Kr.T
    S = S + np.triu(np.full((n, n), -np.inf), k=1)
    E = np.exp(S - S.max(axis=1, keepdims=True))
    A = E / E.sum(axis=1, keepdims=True)
    return A @ V


def ra_scale_by_dv(Q, K, V, positions, theta=10000.0):
    Qr, Kr = rope(Q, positions, theta), rope(K, positions, theta)
    n, d_v = V.shape
    S = Qr @ Kr.T / np.sqrt(d_v)
    S = S + np.triu(np.full((n, n), -np.inf), k=1)
    E = np.exp(S - S.max(axis=1, keepdims=True))
    A = E / E.sum(axis=1, keepdims=True)
    return A @ V


def ra_scale_by_n(Q, K, V, positions, theta=10000.0):
    Qr, Kr = rope(Q, positions, theta), rope(K, positions, theta)
    d = len(Q)
    S = Qr @ Kr.T / np.sqrt(d)
    S = S + np.triu(np.full(S.shape, -np.inf), k=1)
    E = np.exp(S - S.max(axis=1, keepdims=True))
    A = E / E.sum(axis=1, keepdims=True)
    return A @ V


def ra_multiplies_sqrt(Q, K, V, positions, theta=10000.0):
    Qr, Kr = rope(Q, positions, theta), rope(K, positions, theta)
    n, d = Q.shape
    S = Qr @ Kr.T * np.sqrt(d)
    S = S + np.triu(np.full((n, n), -np.inf), k=1)
    E = np.exp(S - S.max(axis=1, keepdims=True))
    A = E / E.sum(axis=1, keepdims=True)
    return A @ V


def ra_softmax_axis0(Q, K, V, positions, theta=10000.0):
    Qr, Kr = rope(Q, positions, theta), rope(K, positions, theta)
    n, d = Q.shape
    S = Qr @ Kr.T / np.sqrt(d)
    S = S + np.triu(np.full((n, n), -np.inf), k=1)
    E = np.exp(S - S.max(axis=0, keepdims=True))
    A = E / E.sum(axis=0, keepdims=True)
    return A @ V


def ra_sum_without_keepdims(Q, K, V, positions, theta=10000.0):
    Qr, Kr = rope(Q, positions, theta), rope(K, positions, theta)
    n, d = Q.shape
    S = Qr @ Kr.T / np.sqrt(d)
    S = S + np.triu(np.full((n, n), -np.inf), k=1)
    E = np.exp(S - S.max(axis=1, keepdims=True))
    A = E / E.sum(axis=1)
    return A @ V


def ra_softmax_global_sum(Q, K, V, positions, theta=10000.0):
    Qr, Kr = rope(Q, positions, theta), rope(K, positions, theta)
    n, d = Q.shape
    S = Qr @ Kr.T / np.sqrt(d)
    S = S + np.triu(np.full((n, n), -np.inf), k=1)
    E = np.exp(S - S.max())
    A = E / E.sum()
    return A @ V


def ra_softmax_no_max(Q, K, V, positions, theta=10000.0):
    Qr, Kr = rope(Q, positions, theta), rope(K, positions, theta)
    n, d = Q.shape
    S = Qr @ Kr.T / np.sqrt(d)
    S = S + np.triu(np.full((n, n), -np.inf), k=1)
    E = np.exp(S)
    A = E / E.sum(axis=1, keepdims=True)
    return A @ V


def ra_returns_weights(Q, K, V, positions, theta=10000.0):
    Qr, Kr = rope(Q, positions, theta), rope(K, positions, theta)
    n, d = Q.shape
    S = Qr @ Kr.T / np.sqrt(d)
    S = S + np.triu(np.full((n, n), -np.inf), k=1)
    E = np.exp(S - S.max(axis=1, keepdims=True))
    A = E / E.sum(axis=1, keepdims=True)
    return A


def ra_weights_transposed(Q, K, V, positions, theta=10000.0):
    Qr, Kr = rope(Q, positions, theta), rope(K, positions, theta)
    n, d = Q.shape
    S = Qr @ Kr.T / np.sqrt(d)
    S = S + np.triu(np.full((n, n), -np.inf), k=1)
    E = np.exp(S - S.max(axis=1, keepdims=True))
    A = E / E.sum(axis=1, keepdims=True)
    return A.T @ V


def ra_scores_k_by_q(Q, K, V, positions, theta=10000.0):
    Qr, Kr = rope(Q, positions, theta), rope(K, positions, theta)
    n, d = Q.shape
    S = Kr @ Qr.T / np.sqrt(d)
    S = S + np.triu(np.full((n, n), -np.inf), k=1)
    E = np.exp(S - S.max(axis=1, keepdims=True))
    A = E / E.sum(axis=1, keepdims=True)
    return A @ V


def ra_keys_as_columns(Q, K, V, positions, theta=10000.0):
    Qr = rope(Q, positions, theta)
    Kr = rope(K.T, positions, theta)  # K^T: one key per column
    n, d = Q.shape
    S = Qr @ Kr / np.sqrt(d)
    S = S + np.triu(np.full((n, n), -np.inf), k=1)
    E = np.exp(S - S.max(axis=1, keepdims=True))
    A = E / E.sum(axis=1, keepdims=True)
    return A @ V


def ra_theta_not_passed(Q, K, V, positions, theta=10000.0):
    Qr, Kr = rope(Q, positions), rope(K, positions)
    n, d = Q.shape
    S = Qr @ Kr.T / np.sqrt(d)
    S = S + np.triu(np.full((n, n), -np.inf), k=1)
    E = np.exp(S - S.max(axis=1, keepdims=True))
    A = E / E.sum(axis=1, keepdims=True)
    return A @ V


def ra_rotates_twice(Q, K, V, positions, theta=10000.0):
    Q = rope(Q, positions, theta)
    K = rope(K, positions, theta)
    Qr, Kr = rope(Q, positions, theta), rope(K, positions, theta)
    n, d = Q.shape
    S = Qr @ Kr.T / np.sqrt(d)
    S = S + np.triu(np.full((n, n), -np.inf), k=1)
    E = np.exp(S - S.max(axis=1, keepdims=True))
    A = E / E.sum(axis=1, keepdims=True)
    return A @ V


def ra_keys_from_queries(Q, K, V, positions, theta=10000.0):
    Qr = rope(Q, positions, theta)
    Kr = rope(Q, positions, theta)
    n, d = Q.shape
    S = Qr @ Kr.T / np.sqrt(d)
    S = S + np.triu(np.full((n, n), -np.inf), k=1)
    E = np.exp(S - S.max(axis=1, keepdims=True))
    A = E / E.sum(axis=1, keepdims=True)
    return A @ V


def ra_scales_q_in_place(Q, K, V, positions, theta=10000.0):
    n, d = Q.shape
    Q /= np.sqrt(d)  # scale first, it is linear
    Qr, Kr = rope(Q, positions, theta), rope(K, positions, theta)
    S = Qr @ Kr.T
    S = S + np.triu(np.full((n, n), -np.inf), k=1)
    E = np.exp(S - S.max(axis=1, keepdims=True))
    A = E / E.sum(axis=1, keepdims=True)
    return A @ V


def ra_row_index_positions(Q, K, V, positions, theta=10000.0):
    n, d = Q.shape
    pos = np.arange(n)
    Qr, Kr = rope(Q, pos, theta), rope(K, pos, theta)
    S = Qr @ Kr.T / np.sqrt(d)
    S = S + np.triu(np.full((n, n), -np.inf), k=1)
    E = np.exp(S - S.max(axis=1, keepdims=True))
    A = E / E.sum(axis=1, keepdims=True)
    return A @ V


def ra_inline_halves(Q, K, V, positions, theta=10000.0):
    n, d = Q.shape
    a = positions[:, None] * theta ** (-np.arange(0, d, 2) / d)
    cos, sin = np.cos(a), np.sin(a)

    def rotate(M):
        x, y = M[:, :d // 2], M[:, d // 2:]
        return np.concatenate([x * cos - y * sin, x * sin + y * cos], axis=1)

    S = rotate(Q) @ rotate(K).T / np.sqrt(d)
    S = S + np.triu(np.full((n, n), -np.inf), k=1)
    E = np.exp(S - S.max(axis=1, keepdims=True))
    A = E / E.sum(axis=1, keepdims=True)
    return A @ V


def ra_inline_clockwise(Q, K, V, positions, theta=10000.0):
    n, d = Q.shape
    a = positions[:, None] * theta ** (-np.arange(0, d, 2) / d)
    cos, sin = np.cos(a), np.sin(a)

    def rotate(M):
        out = np.empty(M.shape)
        out[:, 0::2] = M[:, 0::2] * cos + M[:, 1::2] * sin
        out[:, 1::2] = -M[:, 0::2] * sin + M[:, 1::2] * cos
        return out

    S = rotate(Q) @ rotate(K).T / np.sqrt(d)
    S = S + np.triu(np.full((n, n), -np.inf), k=1)
    E = np.exp(S - S.max(axis=1, keepdims=True))
    A = E / E.sum(axis=1, keepdims=True)
    return A @ V


def ra_inline_exponent_i_over_d(Q, K, V, positions, theta=10000.0):
    n, d = Q.shape
    a = positions[:, None] * theta ** (-np.arange(d // 2) / d)
    cos, sin = np.cos(a), np.sin(a)
    Qr, Kr = np.empty(Q.shape), np.empty(K.shape)
    Qr[:, 0::2], Qr[:, 1::2] = Q[:, 0::2] * cos - Q[:, 1::2] * sin, Q[:, 0::2] * sin + Q[:, 1::2] * cos
    Kr[:, 0::2], Kr[:, 1::2] = K[:, 0::2] * cos - K[:, 1::2] * sin, K[:, 0::2] * sin + K[:, 1::2] * cos
    S = Qr @ Kr.T / np.sqrt(d)
    S = S + np.triu(np.full((n, n), -np.inf), k=1)
    E = np.exp(S - S.max(axis=1, keepdims=True))
    A = E / E.sum(axis=1, keepdims=True)
    return A @ V


# ============================================================================
# rope_attention: acceptable variants
# ============================================================================

def ra_ok_standard(Q, K, V, positions, theta=10000.0):
    Qr, Kr = rope(Q, positions, theta), rope(K, positions, theta)
    n, d = Q.shape
    S = Qr @ Kr.T / np.sqrt(d)
    S = S + np.triu(np.full((n, n), -np.inf), k=1)
    E = np.exp(S - S.max(axis=1, keepdims=True))
    A = E / E.sum(axis=1, keepdims=True)
    return A @ V


def ra_ok_large_negative(Q, K, V, positions, theta=10000.0):
    Qr, Kr = rope(Q, positions, theta), rope(K, positions, theta)
    n, d = Q.shape
    S = np.where(np.tril(np.ones((n, n), dtype=bool)), Qr @ Kr.T / np.sqrt(d), -1e9)
    S = S - S.max(axis=-1, keepdims=True)
    A = np.exp(S) / np.exp(S).sum(axis=-1, keepdims=True)
    return A @ V


def ra_ok_zero_then_renormalise(Q, K, V, positions, theta=10000.0):
    Qr, Kr = rope(Q, positions, theta), rope(K, positions, theta)
    n, d = Q.shape
    allowed = np.tril(np.ones((n, n)))
    S = Qr @ Kr.T / np.sqrt(d)
    m = np.where(allowed > 0, S, -np.inf).max(axis=1, keepdims=True)
    E = np.exp(np.minimum(S - m, 0.0)) * allowed  # the future gets weight 0
    return (E / E.sum(axis=1, keepdims=True)) @ V


def ra_ok_row_loop(Q, K, V, positions, theta=10000.0):
    Qr, Kr = rope(Q, positions, theta), rope(K, positions, theta)
    n, d = Q.shape
    O = np.zeros((n, V.shape[1]))
    for i in range(n):
        s = Kr[:i + 1] @ Qr[i] / np.sqrt(d)  # row i sees rows 0..i
        w = np.exp(s - s.max())
        O[i] = (w / w.sum()) @ V[:i + 1]
    return O


def ra_ok_einsum(Q, K, V, positions, theta=10000.0):
    Qr, Kr = rope(Q, positions, theta), rope(K, positions, theta)
    n, d = Q.shape
    S = np.einsum("id,jd->ij", Qr, Kr) / np.sqrt(d)
    S[np.triu_indices(n, k=1)] = -np.inf
    S -= S.max(axis=1, keepdims=True)
    A = np.exp(S)
    A /= A.sum(axis=1, keepdims=True)
    return np.einsum("ij,jv->iv", A, V)


def ra_ok_scale_before_rotating(Q, K, V, positions, theta=10000.0):
    n, d = Q.shape
    Qr = rope(Q / np.sqrt(d), positions, theta)  # the rotation is linear: scaling first is the same
    Kr = rope(K, positions, theta)
    S = Qr @ Kr.T
    S[np.triu(np.ones((n, n), dtype=bool), k=1)] = -np.inf
    E = np.exp(S - S.max(axis=1, keepdims=True))
    return E / E.sum(axis=1, keepdims=True) @ V


def ra_ok_divide_after(Q, K, V, positions, theta=10000.0):
    Qr, Kr = rope(Q, positions, theta), rope(K, positions, theta)
    n, d = Q.shape
    S = Qr @ Kr.T / np.sqrt(d)
    S = S + np.triu(np.full((n, n), -np.inf), k=1)
    E = np.exp(S - S.max(axis=1, keepdims=True))
    return (E @ V) / E.sum(axis=1, keepdims=True)  # n * d_v divisions


def ra_ok_relative_keys(Q, K, V, positions, theta=10000.0):
    # q_m . k_n after rotation = q . (k rotated by n - m): rotate the keys relative to each query
    n, d = Q.shape
    O = np.zeros((n, V.shape[1]))
    for i in range(n):
        Krel = rope(K[:i + 1], positions[:i + 1] - positions[i], theta)
        s = Krel @ Q[i] / np.sqrt(d)
        w = np.exp(s - s.max())
        O[i] = w @ V[:i + 1] / w.sum()
    return O


def ra_ok_complex_scores(Q, K, V, positions, theta=10000.0):
    n, d = Q.shape
    turn = np.exp(1j * positions[:, None] * theta ** (-np.arange(0, d, 2) / d))
    zq = (Q[:, 0::2] + 1j * Q[:, 1::2]) * turn
    zk = (K[:, 0::2] + 1j * K[:, 1::2]) * turn
    S = (zq @ zk.conj().T).real / np.sqrt(d)  # the real part of z w* is the dot product of the pairs
    S[np.triu_indices(n, k=1)] = -np.inf
    E = np.exp(S - S.max(axis=1, keepdims=True))
    return E / E.sum(axis=1, keepdims=True) @ V


def ra_ok_logsumexp(Q, K, V, positions, theta=10000.0):
    Q, K, V = (np.asarray(M, dtype=np.float64) for M in (Q, K, V))
    Qr, Kr = rope(Q, positions, theta), rope(K, positions, theta)
    n, d = Q.shape
    S = np.where(np.tri(n, dtype=bool), Qr @ Kr.T / np.sqrt(d), -np.inf)
    m = S.max(axis=1, keepdims=True)
    lse = m + np.log(np.exp(S - m).sum(axis=1, keepdims=True))
    return np.exp(S - lse) @ V


# ============================================================================
# the set
# ============================================================================

MISTAKES = [
    # ---- rope: pairing
    Mistake("rope", "pairs feature i with feature i + d/2 (the two halves) instead of adjacent features 2i, 2i+1",
            rope_halves),
    Mistake("rope", "mixes conventions: per-column angle tables repeated pair by pair, but the rotate_half partner of "
            "the two-halves convention (-x[d/2:], x[:d/2]), so features of different pairs are combined",
            rope_mixed_conventions),
    Mistake("rope", "pairs overlapping neighbours (columns i and i+1 for i = 0 .. d/2-1) instead of columns 2i and "
            "2i+1, so the second half of the features is left alone and the first is rotated repeatedly",
            rope_overlapping_pairs),
    Mistake("rope", "treats the odd column as x and the even column as y, so each pair turns by -angle (clockwise)",
            rope_odd_is_x),
    Mistake("rope", "expands the per-pair angles to columns with np.tile (pairs 0,1,..,0,1,..) instead of np.repeat "
            "(0,0,1,1,..), so most columns are rotated by another pair's angle", rope_tile_angles),
    Mistake("rope", "rotates the pairs correctly but returns all first components then all second components "
            "(concatenated halves) instead of interleaving them back into columns 2i, 2i+1",
            rope_concat_not_interleaved),
    Mistake("rope", "stacks the rotated components along axis 0 before reshaping to (n, d), scrambling rows and "
            "columns", rope_stack_axis0),
    Mistake("rope", "returns the pairs with shape (n, d/2, 2) without reshaping back to (n, d)", rope_pairs_shape),
    Mistake("rope", "reshapes with d / 2 (a float) instead of d // 2, so X.reshape raises TypeError",
            rope_float_reshape),
    Mistake("rope", "leaves the last pair unrotated (loops over range(d/2 - 1))", rope_skips_last_pair),
    # ---- rope: positions
    Mistake("rope", "counts positions from 1 (uses positions + 1) instead of the positions given",
            rope_positions_from_one),
    Mistake("rope", "ignores positions and uses the row index np.arange(n) as each row's position", rope_row_index),
    Mistake("rope", "ignores positions: loops over rows and uses the row index t as the position", rope_row_index_loop),
    Mistake("rope", "shifts positions so that the smallest is 0 (positions - positions.min()) instead of using the "
            "positions given", rope_shift_to_zero),
    Mistake("rope", "builds the angle table as outer(freqs, positions) (d/2, n) and reshapes it to (n, d/2) instead "
            "of transposing, so rows get the wrong positions and pairs the wrong frequencies", rope_outer_reshape),
    Mistake("rope", "broadcasts the angles the wrong way round, (d/2, n) with pairs along rows, against pairs "
            "(n, d/2): shape error unless n == d/2, then each row gets the transposed angles",
            rope_angles_pairs_by_rows),
    Mistake("rope", "multiplies positions (n,) by the frequencies (d/2,) without positions[:, None]: shape error (or "
            "one angle per row index) instead of the (n, d/2) table", rope_no_newaxis),
    # ---- rope: frequencies
    Mistake("rope", "frequency exponent -i/d instead of -2i/d (pair index i)", rope_exponent_i_over_d),
    Mistake("rope", "frequency exponent -2i/(d-2) (np.linspace(0, 1, d/2)) instead of -2i/d, so the last pair turns "
            "at 1/theta", rope_linspace_exponent),
    Mistake("rope", "frequency theta^(+2i/d) (positive exponent) instead of theta^(-2i/d)", rope_positive_exponent),
    Mistake("rope", "one frequency per feature, theta^(-j/d) for column j, instead of one per pair: the two features "
            "of a pair turn at different rates", rope_frequency_per_feature),
    Mistake("rope", "frequency exponent -4i/d: takes i from np.arange(0, d, 2) (already 2i) and multiplies by 2 again",
            rope_double_two),
    Mistake("rope", "theta^(-2j/d) with j the feature index 0..d-1 applied column by column instead of the pair index "
            "i = 0..d/2-1 shared by both features of the pair", rope_feature_index_table),
    Mistake("rope", "floor division in the exponent (-2 * i // d), so every pair after the first turns at 1/theta",
            rope_floor_division),
    Mistake("rope", "operator precedence: theta ** -2 * i / d is (theta^-2) * i / d, not theta^(-2i/d)",
            rope_precedence),
    Mistake("rope", "misplaced parentheses: theta ** (-2 * i) / d instead of theta ** (-2 * i / d)",
            rope_paren_exponent),
    Mistake("rope", "numbers the pairs from 1 (i = 1 .. d/2) instead of 0, so pair 0 does not turn at 1 radian per "
            "position", rope_pairs_from_one),
    Mistake("rope", "frequency exp(-2i/d * log10(theta)) (log10 instead of the natural log)", rope_log10),
    Mistake("rope", "ignores the theta argument and always uses 10000", rope_ignores_theta),
    Mistake("rope", "changes the default theta to 500000 (Llama 3's base) instead of 10000", rope_llama3_default),
    # ---- rope: the rotation itself
    Mistake("rope", "sin and cos swapped: (x sin a - y cos a, x cos a + y sin a)", rope_sin_cos_swapped),
    Mistake("rope", "sin and cos swapped: reads lesson 08's sinusoid table (sin on even columns, cos on odd) with "
            "the even columns taken as cos", rope_sinusoid_table_swapped),
    Mistake("rope", "rotates by -angle (clockwise): the sine terms have the wrong sign, (x cos a + y sin a, "
            "-x sin a + y cos a)", rope_clockwise),
    Mistake("rope", "rotates by -angle: multiplies the complex pair by exp(-i a) instead of exp(i a)",
            rope_complex_conjugate),
    Mistake("rope", "builds the complex number as X[:, 2i+1] + i X[:, 2i] (x and y swapped) before multiplying by "
            "exp(i a)", rope_complex_swapped),
    Mistake("rope", "second component x sin a - y cos a (a reflection) instead of x sin a + y cos a", rope_reflection),
    Mistake("rope", "updates x before computing y, so the second component uses the already-rotated x",
            rope_sequential_update),
    Mistake("rope", "keeps only the cos terms: multiplies each feature by cos a and drops the -y sin a / x sin a "
            "cross terms", rope_cos_only),
    Mistake("rope", "adds lesson 08's sinusoidal position table to X instead of rotating the pairs",
            rope_adds_sinusoids),
    Mistake("rope", "treats the angle as degrees (converts with np.radians) although it is in radians", rope_degrees),
    Mistake("rope", "multiplies the angle by 2*pi (frequency taken as turns per position, not radians)", rope_two_pi),
    # ---- rope: the returned array
    Mistake("rope", "modifies X in place through views of its columns, so the second component uses the "
            "already-rotated x and the caller's X is overwritten", rope_inplace_views),
    Mistake("rope", "writes the rotation into X in place and returns X (right values for float X, but the input is "
            "modified, and int X gives int output)", rope_inplace_copies),
    Mistake("rope", "rotates X in place and returns nothing (None)", rope_returns_none),
    Mistake("rope", "allocates the output with np.zeros_like(X), so an integer X gives a truncated integer array",
            rope_zeros_like),
    Mistake("rope", "computes in float32 (X, positions and angles), losing the angle at large positions and "
            "returning float32", rope_float32),

    # ---- rope_attention: what is rotated
    Mistake("rope_attention", "rotates V as well as Q and K", ra_rotates_v),
    Mistake("rope_attention", "applies rope to the score matrix S instead of to Q and K", ra_rotates_scores),
    Mistake("rope_attention", "applies rope to the output A @ V instead of to Q and K", ra_rotates_output),
    Mistake("rope_attention", "rotates only Q; K is used unrotated", ra_only_q),
    Mistake("rope_attention", "rotates only K; Q is used unrotated", ra_only_k),
    Mistake("rope_attention", "does not rotate Q or K at all (plain causal attention)", ra_no_rope),
    Mistake("rope_attention", "rotates Q and K twice (rope applied to already-rotated Q and K), doubling every angle",
            ra_rotates_twice),
    Mistake("rope_attention", "copy-paste: Kr = rope(Q, ...) so the keys are the rotated queries",
            ra_keys_from_queries),
    Mistake("rope_attention", "rotates K.T (keys as columns) instead of K, then uses it as Kr.T: shape error unless "
            "n == d", ra_keys_as_columns),
    Mistake("rope_attention", "calls rope(Q, positions) and rope(K, positions) without passing theta",
            ra_theta_not_passed),
    Mistake("rope_attention", "rotates Q and K by the row index np.arange(n) instead of the positions given",
            ra_row_index_positions),
    Mistake("rope_attention", "rotates with the two-halves pairing (i, i + d/2) instead of adjacent pairs",
            ra_inline_halves),
    Mistake("rope_attention", "rotates Q and K by -angle (sign of the sine terms)", ra_inline_clockwise),
    Mistake("rope_attention", "rotates Q and K with frequency exponent -i/d instead of -2i/d",
            ra_inline_exponent_i_over_d),
    # ---- rope_attention: the mask
    Mistake("rope_attention", "no causal mask: every row attends to all rows", ra_no_mask),
    Mistake("rope_attention", "masks the diagonal too (np.triu with k=0), so row 0 sees nothing and gives NaN",
            ra_mask_diagonal),
    Mistake("rope_attention", "masks the past (entries below the diagonal) instead of the future", ra_masks_past),
    Mistake("rope_attention", "masks after the softmax by zeroing the future weights, without renormalising the rows",
            ra_mask_after_softmax),
    Mistake("rope_attention", "multiplies the scores by a 0/1 lower-triangular mask, so future scores become 0 "
            "instead of -inf", ra_mask_multiplied),
    Mistake("rope_attention", "masks by comparing positions (key position > query position) instead of row order, "
            "which differs when positions are not strictly increasing", ra_mask_by_positions),
    Mistake("rope_attention", "shifts the causal diagonal by positions[0] (k = positions[0] + 1, the cache rule of "
            "lesson 06), so rows see future rows when the positions do not start at 0", ra_mask_offset_by_start),
    Mistake("rope_attention", "np.ones(n, n) for the mask (the second argument is a dtype): TypeError",
            ra_ones_dtype_crash),
    # ---- rope_attention: the scale
    Mistake("rope_attention", "divides the scores by d instead of sqrt(d)", ra_scale_by_d),
    Mistake("rope_attention", "does not divide the scores by sqrt(d)", ra_no_scale),
    Mistake("rope_attention", "divides the scores by sqrt(d_v) (V's width) instead of sqrt(d)", ra_scale_by_dv),
    Mistake("rope_attention", "divides the scores by sqrt(n) (len(Q), the number of rows) instead of sqrt(d)",
            ra_scale_by_n),
    Mistake("rope_attention", "multiplies the scores by sqrt(d) instead of dividing", ra_multiplies_sqrt),
    Mistake("rope_attention", "scales Q in place (Q /= sqrt(d)), modifying the caller's Q (and failing on int Q)",
            ra_scales_q_in_place),
    # ---- rope_attention: softmax and output
    Mistake("rope_attention", "softmax over axis 0 (columns) instead of over each row", ra_softmax_axis0),
    Mistake("rope_attention", "divides by E.sum(axis=1) without keepdims, so column j is divided by row j's sum",
            ra_sum_without_keepdims),
    Mistake("rope_attention", "softmax normalised over the whole matrix (one global sum) instead of each row",
            ra_softmax_global_sum),
    Mistake("rope_attention", "softmax without subtracting the row max: overflows to NaN on large scores",
            ra_softmax_no_max),
    Mistake("rope_attention", "scores Kr @ Qr.T (keys by queries, S transposed) instead of Qr @ Kr.T",
            ra_scores_k_by_q),
    Mistake("rope_attention", "returns the weights A instead of O = A @ V", ra_returns_weights),
    Mistake("rope_attention", "returns A.T @ V instead of A @ V", ra_weights_transposed),
]

ACCEPTABLE = [
    Mistake("rope", "rotates each pair as a complex number x + iy times exp(i a)", rope_ok_complex),
    Mistake("rope", "loops over rows and pairs, multiplying each pair by an explicit 2x2 rotation matrix",
            rope_ok_matrix_loop),
    Mistake("rope", "plain Python loops over scalars, angle written as position / theta^(2i/d)", rope_ok_scalar_loops),
    Mistake("rope", "einsum with a (n, d/2, 2, 2) stack of rotation matrices", rope_ok_einsum),
    Mistake("rope", "reshapes X to (n, d/2, 2), rotates, stacks on the last axis and reshapes back",
            rope_ok_reshape_pairs),
    Mistake("rope", "precomputed cos/sin tables repeated per column, x * cos + rotate_every_two(x) * sin (GPT-J style)",
            rope_ok_repeat_tables),
    Mistake("rope", "float64 copy throughout, frequencies as exp(-(2i/d) log theta), writes into the copy",
            rope_ok_exp_log_float64),
    Mistake("rope", "builds each row's (d, d) block-diagonal rotation and computes x R^T", rope_ok_block_diagonal),
    Mistake("rope", "applies the two-halves convention to the features reordered even-then-odd and undoes the order",
            rope_ok_via_halves),
    Mistake("rope", "polar form: radius and arctan2 angle of each pair, angle increased by the rotation",
            rope_ok_polar),

    Mistake("rope_attention", "additive -inf mask from np.triu and a max-subtracted softmax", ra_ok_standard),
    Mistake("rope_attention", "np.where with -1e9 for the future instead of -inf", ra_ok_large_negative),
    Mistake("rope_attention", "exponentials zeroed on the future and each row renormalised",
            ra_ok_zero_then_renormalise),
    Mistake("rope_attention", "loops over query rows, each against keys 0..i only", ra_ok_row_loop),
    Mistake("rope_attention", "einsum for the scores and the output, softmax in place", ra_ok_einsum),
    Mistake("rope_attention", "divides Q by sqrt(d) (a new array) before rotating it", ra_ok_scale_before_rotating),
    Mistake("rope_attention", "divides by the row sums after E @ V", ra_ok_divide_after),
    Mistake("rope_attention", "leaves Q as it is and rotates the keys by their offset from each query's position",
            ra_ok_relative_keys),
    Mistake("rope_attention", "rotates inline as complex numbers; scores are the real part of zq @ conj(zk).T",
            ra_ok_complex_scores),
    Mistake("rope_attention", "casts to float64 and normalises with a log-sum-exp", ra_ok_logsumexp),
]
