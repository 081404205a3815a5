"""The right pieces of attention, in plain numpy, that the named mistakes are built from.

A named mistake is usually the right computation with one piece swapped, so the
mistakes call these rather than attnlib: a wrong variant never depends on the
code it is meant to differ from.
"""
import numpy as np


def softmax(S, axis=-1):
    E = np.exp(S - S.max(axis=axis, keepdims=True))
    return E / E.sum(axis=axis, keepdims=True)


def positions(n_q, n_k):
    """Grids i (n_q, 1) and j (1, n_k): the position of each query and each key.

    The queries are the last n_q positions (as with a cache), so query 0 sits at n_k - n_q.
    """
    i = np.arange(n_q)[:, None] + (n_k - n_q)
    j = np.arange(n_k)[None, :]
    return i, j


def allowed(n_q, n_k):
    """Boolean (n_q, n_k): True where query i may look at key j (j <= i)."""
    i, j = positions(n_q, n_k)
    return j <= i


def mask(S, causal=True):
    """S with -inf on the future when causal, unchanged otherwise."""
    return np.where(allowed(*S.shape), S, -np.inf) if causal else S


def scores(Q, K, scale=True):
    S = Q @ K.T  # (n_q, n_k)
    return S / np.sqrt(Q.shape[-1]) if scale else S


def weights(Q, K, causal=True, scale=True):
    """A = softmax(mask(Q K^T / sqrt(d))), (n_q, n_k)."""
    return softmax(mask(scores(Q, K, scale), causal))


def attention(Q, K, V, causal=True, scale=True, weights=weights):
    """O = A V, (n_q, d_v); `weights` can be swapped for a mistaken attention_weights."""
    return weights(Q, K, causal, scale) @ V
