"""Notebooks 04 and 06: mixing rows, the causal mask and the softmax.

Row i of a mixed output is a weighted average of rows 0..i of V: O = A @ V with a
lower-triangular A whose rows sum to 1. Attention computes A from scores S by
blanking the future with -inf and taking a row-wise softmax.
"""
import numpy as np

from ._validate import as_float_array, as_positive_int


def uniform_causal_weights(n):
    """The fixed mixing matrix (n, n): row i is 1/(i+1) on columns 0..i, 0 after."""
    n = as_positive_int("n", n)
    A = np.tril(np.ones((n, n)))  # (n, n)
    return A / A.sum(axis=1, keepdims=True)


def causal_average(V):
    """Row i of the result is the mean of rows 0..i of V (n, d) -> (n, d)."""
    V = as_float_array("V", V, 2, "(n, d)")
    counts = np.arange(1, V.shape[0] + 1)[:, None]  # (n, 1)
    return np.cumsum(V, axis=0) / counts  # (n, d)


def causal_mask(n):
    """Additive mask (n, n): 0 where column j <= row i, -inf where j > i (the future)."""
    n = as_positive_int("n", n)
    M = np.zeros((n, n))
    M[np.triu_indices(n, k=1)] = -np.inf
    return M


def softmax(S, axis=-1):
    """Softmax along `axis`: exp(S - max) / sum, same shape as S.

    Subtracting the row max first keeps every exp() <= 1, so any finite input is
    safe. -inf entries (masked positions) become exact zeros. A row that is
    entirely -inf has nothing to attend to and raises ValueError.
    """
    S = np.asarray(S)
    if S.dtype == object or not np.issubdtype(S.dtype, np.floating):
        raise ValueError(f"S must be a float array, got dtype {S.dtype}")
    if S.ndim == 0 or S.size == 0:
        raise ValueError(f"S must have at least one entry along axis {axis}, got shape {S.shape}")
    if not -S.ndim <= axis < S.ndim:
        raise ValueError(f"axis={axis} is out of range for S with shape {S.shape}")
    if np.isnan(S).any() or np.isposinf(S).any():
        bad = tuple(int(i) for i in np.argwhere(np.isnan(S) | np.isposinf(S))[0])
        raise ValueError(f"S contains NaN or +inf (first at index {bad})")
    m = S.max(axis=axis, keepdims=True)
    if np.isneginf(m).any():
        row = tuple(int(i) for i in np.argwhere(np.isneginf(m))[0])
        raise ValueError(
            f"S is -inf everywhere along axis {axis} at index {row} (shape {S.shape}): "
            "that row has nothing to attend to"
        )
    E = np.exp(S - m)
    return E / E.sum(axis=axis, keepdims=True)


def softmax_backward(A, dA):
    """Gradient through a row-wise softmax.

    Given A = softmax(S, axis=-1) and dA = dL/dA, returns dS = dL/dS (same shape):
    dS = A * (dA - sum(dA * A, axis=-1)). Masked entries (A == 0) get zero gradient.
    """
    A = np.asarray(A)
    dA = np.asarray(dA)
    for name, arr in (("A", A), ("dA", dA)):
        if arr.dtype == object or not np.issubdtype(arr.dtype, np.floating):
            raise ValueError(f"{name} must be a float array, got dtype {arr.dtype}")
    if A.shape != dA.shape:
        raise ValueError(f"A and dA must have the same shape, got A {A.shape} and dA {dA.shape}")
    if A.ndim == 0 or A.size == 0:
        raise ValueError(f"A must have at least one entry per row, got shape {A.shape}")
    return A * (dA - np.sum(dA * A, axis=-1, keepdims=True))
