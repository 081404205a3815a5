"""Notebooks 04, 06 and 18: mixing rows, the causal mask (and its sliding window) and the softmax.

Row i of a mixed output is a weighted average of rows 0..i of V: O = A @ V with a
lower-triangular A whose rows sum to 1. Attention computes A from scores S by
blanking the future with -inf and taking a row-wise softmax.

The mask and the softmax are written once, here. The public functions check
their input; `mask_future`, `exp_and_sum` and `softmax_grad` are the same maths
without checks, working in place where they can, for attnlib's own hot loops.
"""
import numpy as np

from ._validate import Array, axis_index, check_size, contract, positive_int


# ----------------------------------------------------------------------------
# the maths, unchecked

def hidden_keys(q_pos, k_pos, window=None, n_sinks=0):
    """Bool (n_q, n_k): True where the query at position q_pos[i] may not see the key at position k_pos[j].

    A key is hidden when it comes after the query (the causal mask) or, with a window, when it has
    fallen out of it: it is not among the newest window - n_sinks positions (the query's own included)
    and not one of the first n_sinks positions, which are kept for good. With n_sinks = 0 the query at
    i sees exactly i - window < j <= i; window=None (or any window past the first key) is causal only.
    """
    q_pos, k_pos = np.asarray(q_pos)[:, None], np.asarray(k_pos)[None, :]
    hidden = k_pos > q_pos  # (n_q, n_k): the future
    if window is not None:
        hidden |= (q_pos - k_pos >= window - n_sinks) & (k_pos >= n_sinks)  # out of the window, not a sink
    return hidden


def future_keys(n_q, n_k, first=None):
    """Bool (n_q, n_k): True where key j comes after query i, the entries the causal mask hides.

    Query i sits at position first + i; by default the queries are the last n_q of
    the n_k positions (new tokens attending to a cache).
    """
    first = n_k - n_q if first is None else first
    return hidden_keys(np.arange(first, first + n_q), np.arange(n_k))


def mask_future(S, window=None, n_sinks=0, positions=None):
    """In place: S[..., i, j] = -inf where query i may not see key j (hidden_keys); returns S.

    The queries are the last n_q keys. positions (n_k,): the position of every key, 0 .. n_k - 1 by
    default; a rolling cache passes its own (its first n_sinks rows, then the newest ones).
    """
    n_q, n_k = S.shape[-2:]
    if positions is None and (window is None or window >= n_k):
        # nothing has left the window: keys before the first query are in nobody's future,
        # so only the last n_q columns need the mask
        np.copyto(S[..., n_k - n_q:], -np.inf, where=future_keys(n_q, n_q))
        return S
    k_pos = np.arange(n_k) if positions is None else positions
    np.copyto(S, -np.inf, where=hidden_keys(k_pos[n_k - n_q:], k_pos, window, n_sinks))
    return S


def exp_and_sum(S, axis=-1):
    """The softmax before its division, in place: S <- exp(S - max along axis). Returns (S, sums).

    softmax(S) = E / Z. Attention divides O = E @ V by Z instead: n * d_v
    divisions rather than n * n.
    """
    S -= S.max(axis=axis, keepdims=True)  # every exponent <= 0, so exp() <= 1 never overflows
    np.exp(S, out=S)
    return S, S.sum(axis=axis, keepdims=True)


def softmax_grad(A, dA):
    """dS = A * (dA - sum(dA * A)) over the last axis, for A = softmax(S): dL/dS from dL/dA."""
    return A * (dA - np.sum(dA * A, axis=-1, keepdims=True))


# ----------------------------------------------------------------------------
# public API

def _rows_have_something(args, dims):
    """A row of S that is -inf everywhere has nothing to attend to."""
    S = args["S"]
    if S.ndim == 0:
        raise ValueError(f"S must have at least one axis, got shape {S.shape}")
    args["axis"] = axis = axis_index("axis", args["axis"], S.ndim)
    empty = np.isneginf(S.max(axis=axis, keepdims=True))
    if empty.any():
        row = tuple(int(i) for i in np.argwhere(empty)[0])
        raise ValueError(f"S is -inf everywhere along axis {axis} at index {row} (shape {S.shape}): "
                         "that row has nothing to attend to")


def _same_shape(args, dims):
    A, dA = args["A"], args["dA"]
    if A.shape != dA.shape:
        raise ValueError(f"A and dA must have the same shape, got A {A.shape} and dA {dA.shape}")
    if A.ndim == 0:
        raise ValueError(f"A must have at least one axis, got shape {A.shape}")


def _size(args, dims):
    check_size("n", (args["n"], args["n"]))


@contract(_size, n=positive_int)
def uniform_causal_weights(n):
    """The fixed mixing matrix (n, n): row i is 1/(i+1) on columns 0..i, 0 after."""
    return softmax(causal_mask(n))  # every visible score equal: row i shares 1 among i + 1 columns


@contract(V=Array("n", "d"), finite="the running sum of V's rows")
def causal_average(V):
    """Row i of the result is the mean of rows 0..i of V (n, d) -> (n, d)."""
    counts = np.arange(1, V.shape[0] + 1)[:, None]  # (n, 1)
    return np.cumsum(V, axis=0) / counts  # (n, d)


@contract(_size, n=positive_int, finite=None)
def causal_mask(n):
    """Additive mask (n, n): 0 where column j <= row i, -inf where j > i (the future)."""
    return mask_future(np.zeros((n, n)))  # sliding_window_mask(n, n): a window as long as the row


@contract(_size, n=positive_int, window=positive_int, finite=None)
def sliding_window_mask(n, window):
    """Additive mask (n, n) of a causal sliding window: 0 where i - window < j <= i, -inf elsewhere.

    Row i sees the `window` most recent positions, itself included (fewer near the start).
    window=1 sees only itself; any window >= n is causal_mask(n).
    """
    return mask_future(np.zeros((n, n)), window)


@contract(_rows_have_something, S=Array(allow="-inf", what="of scores"), finite=None)
def softmax(S, axis=-1):
    """Softmax along `axis`: exp(S - max) / sum, same shape as S.

    Subtracting the max first keeps every exp() <= 1, so any finite input is safe.
    -inf entries (masked positions) become exact zeros. A row that is entirely
    -inf has nothing to attend to and raises ValueError.
    """
    E, Z = exp_and_sum(S.copy(), axis)  # -1e308 - 1e308 overflows to -inf, whose exp is the right 0
    E /= Z
    return E


@contract(_same_shape, A=Array(what="of softmax weights"), dA=Array(what="(the shape of A)"), finite="dA * A")
def softmax_backward(A, dA):
    """Gradient through a row-wise softmax.

    Given A = softmax(S, axis=-1) and dA = dL/dA, returns dS = dL/dS (same shape):
    dS = A * (dA - sum(dA * A, axis=-1)). Masked entries (A == 0) get zero gradient.
    """
    return softmax_grad(A, dA)
