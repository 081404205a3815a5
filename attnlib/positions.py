"""Notebooks 08 and 16: positions from a formula, with the frequencies written once.

Pair i of d features (columns 2i and 2i + 1, i = 0 .. d/2 - 1) turns at theta^(-2i/d)
radians per position: pair 0 one radian, each later pair more slowly. At position t it
has turned by

    angle[t, i] = t / theta^(2i/d)                          (theta = 10000 by default)

Two ways to use the angles:
    sinusoids (notebook 08)   P[t, 2i] = sin(angle[t, i]), P[t, 2i+1] = cos(angle[t, i]), a fixed
                              table added to X before the first layer (TinyLM(positions="sinusoid"))
    rope (notebook 16)        the pair (x[2i], x[2i+1]) of a query or a key at position t is
                              rotated by angle[t, i]: (x, y) -> (x cos a - y sin a, x sin a + y cos a)

A rotation by a then the inverse rotation of b is a rotation by a - b, so a query rotated
at position m and a key rotated at position n score q . k as if only m - n had been
applied: scores see the offset, never the place. attnlib pairs ADJACENT features
(2i, 2i + 1), as the RoPE paper writes it; some libraries pair the two halves (i, i + d/2)
instead, which is the same rotation after a fixed permutation of the features.

`rotate_pairs` is the rotation without checks on stacked arrays (..., n, d): TinyLM's
attention runs it on q and k, and its backward is the same rotation by -angle.
"""
import functools

import numpy as np

from ._validate import Array, as_int_array, contract, finite_positive_float
from .attention import Op

THETA = 10000.0  # the base of the frequencies, as in the original transformer


def frequencies(d, theta=THETA):
    """(d/2,): the radians per position of each pair i, theta^(-2i/d)."""
    return theta ** (-np.arange(0, d, 2) / d)


def angles(positions, d, theta=THETA):
    """angle (n, d/2) = positions[t] * theta^(-2i/d) for positions (n,) and pairs i = 0 .. d/2 - 1."""
    return np.asarray(positions, dtype=np.float64)[:, None] * frequencies(d, theta)  # (n, d/2)


def sinusoids(n, d, theta=THETA):
    """P (n, d) for positions 0 .. n-1: sin(angle) on the even columns, cos(angle) on the odd ones (d even)."""
    a = angles(np.arange(n), d, theta)  # (n, d/2)
    P = np.empty((n, d))
    P[:, 0::2], P[:, 1::2] = np.sin(a), np.cos(a)
    return P


def rotate_pairs(X, cos, sin):
    """X (..., n, d) with pair (2i, 2i+1) of row t rotated by the angle whose cosine and sine are cos[t, i] and
    sin[t, i], each (n, d/2). The dtype of X is kept. rotate_pairs(dY, cos, -sin) is its backward: a rotation's
    transpose is the rotation by minus its angle."""
    x, y = X[..., 0::2], X[..., 1::2]  # (..., n, d/2) each: the two features of every pair
    out = np.empty_like(X)
    out[..., 0::2] = x * cos - y * sin
    out[..., 1::2] = x * sin + y * cos
    return out


def rotation_tables(n, d, theta=THETA, dtype=np.float64):
    """(cos, sin), each (n, d/2) in dtype: the rotation of every pair at positions 0 .. n-1."""
    a = angles(np.arange(n), d, theta)
    return np.cos(a).astype(dtype), np.sin(a).astype(dtype)


def rotation(cos, sin):
    """The rotation of rows by (cos, sin) (n, d/2) as an Op: forward(X) rotates X (..., n, d), backward(dY) rotates
    the gradient back. TinyLM's attention applies it to q and k (attention.mha_forward's `rotary`)."""
    return Op(functools.partial(rotate_pairs, cos=cos, sin=sin), functools.partial(rotate_pairs, cos=cos, sin=-sin))


# ----------------------------------------------------------------------------
# declared contract

def _pairs_and_positions(args, dims):
    """d is even (features come in pairs); positions are n integers counted from 0."""
    X = args["X"]
    if X.shape[1] % 2:
        raise ValueError(f"X must have an even number of features to pair them, got d={X.shape[1]} (X {X.shape})")
    positions = as_int_array("positions", args["positions"], "(n,)")
    if positions.shape != (X.shape[0],):
        raise ValueError(f"positions must have one entry per row of X, shape ({X.shape[0]},), "
                         f"got positions {positions.shape} (X {X.shape})")
    if positions.size and positions.min() < 0:
        raise ValueError(f"positions are counted from 0 and cannot be negative, got {int(positions.min())}")
    args["positions"] = positions


@contract(_pairs_and_positions, X=Array("n", "d"), theta=finite_positive_float, finite="rope")
def rope(X, positions, theta=10000.0):
    """Rotary position embedding: X (n, d), d even, positions (n,) int counted from 0 -> (n, d), a new array.

    Adjacent pairs: the features (X[t, 2i], X[t, 2i+1]) of row t are rotated counter-clockwise by
    positions[t] * theta^(-2i/d) radians, i = 0 .. d/2 - 1. Applied to the queries and the keys (never the
    values), it makes every score depend on the offset between the two positions only.
    """
    a = angles(positions, X.shape[1], theta)  # (n, d/2)
    return rotate_pairs(X, np.cos(a), np.sin(a))
