"""Plain-numpy pieces that several lessons' claims tests share (no attnlib, not the notebooks' code)."""
import math

import numpy as np

from helpers import softmax_rows


def causal_scores(S):
    """S with -inf above the diagonal: the future hidden."""
    S = S.copy()
    S[np.triu_indices(S.shape[0], k=1)] = -np.inf
    return S


def plain_attention(X, Wq, Wk, Wv, causal):
    """One head in plain numpy: softmax(Q K^T / sqrt(d) (+ mask)) V."""
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    S = Q @ K.T / math.sqrt(Q.shape[1])
    if causal:
        S[np.triu_indices(S.shape[0], k=1)] = -np.inf
    return softmax_rows(S) @ V


def plain_heads(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    """Multi-head attention in plain numpy: one head per group of columns, side by side, then Wo."""
    d = Wq.shape[1] // n_heads
    groups = [slice(h * d, (h + 1) * d) for h in range(n_heads)]
    return np.concatenate([plain_attention(X, Wq[:, c], Wk[:, c], Wv[:, c], causal) for c in groups], axis=1) @ Wo
