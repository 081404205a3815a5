"""A blind set of learner mistakes for the 21 building-block exercises, project to kv_cache_bytes.

Each entry in MISTAKES is a wrong implementation of one exercise, with the exercise's exact signature, written
from the exercise notebooks as a learner might write it. `what` says in one line what the learner got wrong.
ACCEPTABLE holds right answers written differently: the checks must pass them.

Three exercises have no function of the same name in attnlib (values, cross_attention, cache_step); their
reference implementations, written from the exercise text, are in REFERENCES.
"""
import math
from dataclasses import dataclass
from typing import Callable

import numpy as np


@dataclass(frozen=True)
class Mistake:
    exercise: str
    what: str
    fn: Callable


# ----------------------------------------------------------------------------
# Correct building blocks a learner would have written in earlier exercises.
# The mistakes below call them so that each one differs from a right answer in one place only.

def _softmax(S, axis=-1):
    E = np.exp(S - S.max(axis=axis, keepdims=True))
    return E / E.sum(axis=axis, keepdims=True)


def _future(n_q, n_k):
    """Additive mask (n_q, n_k) for queries at the last n_q positions."""
    return np.triu(np.full((n_q, n_k), -np.inf), k=n_k - n_q + 1)


def _attend(Q, K, V, causal=True):
    S = Q @ K.T / np.sqrt(Q.shape[1])  # (n_q, n_k)
    if causal:
        S = S + _future(Q.shape[0], K.shape[0])
    return _softmax(S) @ V  # (n_q, d_v)


def _mha(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    d_head = Wq.shape[1] // n_heads
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_head, (h + 1) * d_head)
        heads.append(_attend(X @ Wq[:, cols], X @ Wk[:, cols], X @ Wv[:, cols], causal))
    return np.concatenate(heads, axis=1) @ Wo  # (n, d_model)


def _layer_norm(X, g, b, eps=1e-5):
    mu = X.mean(axis=1, keepdims=True)
    var = X.var(axis=1, keepdims=True)
    return (X - mu) / np.sqrt(var + eps) * g + b


def _gelu(X):
    return 0.5 * X * (1 + np.tanh(np.sqrt(2 / np.pi) * (X + 0.044715 * X ** 3)))


def _mlp(H, p):
    return _gelu(H @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"]


# ----------------------------------------------------------------------------
# References for the exercises that attnlib has no function for, written from the exercise text.

def reference_values(tokens, table, Wv):
    X = np.array([table[w] for w in tokens], dtype=float)  # (n, d_model)
    return X @ Wv  # (n, d_v)


def reference_cross_attention(X, Z, Wq, Wk, Wv):
    Q, K, V = X @ Wq, Z @ Wk, Z @ Wv
    return _softmax(Q @ K.T / np.sqrt(Q.shape[1])) @ V  # (n_x, d_v)


def reference_cache_step(q, k, v, K_cache, V_cache):
    K_new = np.vstack([K_cache, k])  # (t + 1, d)
    V_new = np.vstack([V_cache, v])  # (t + 1, d_v)
    a = _softmax(K_new @ q / np.sqrt(q.shape[0]))  # (t + 1,)
    return a @ V_new, K_new, V_new


REFERENCES = {
    "values": reference_values,
    "cross_attention": reference_cross_attention,
    "cache_step": reference_cache_step,
}


# ============================================================================
# project(x, W)

def project_column_vector(x, W):
    return W @ x


def project_pytorch_weight(x, W):
    return x @ W.T


def project_sums_wrong_axis(x, W):
    return (x[:, None] * W).sum(axis=1)


def project_forgets_sum(x, W):
    return x[:, None] * W


def project_mean_not_sum(x, W):
    return (x[:, None] * W).mean(axis=0)


def project_loop_swapped_index(x, W):
    out = np.zeros(W.shape[1])
    for i in range(W.shape[0]):
        for j in range(W.shape[1]):
            out[j] += x[i] * W[j, i]
    return out


# ============================================================================
# project_rows(X, W)

def project_rows_column_vectors(X, W):
    return W.T @ X.T


def project_rows_transposed_result(X, W):
    return np.dot(X, W).T


def project_rows_pytorch_weight(X, W):
    return X @ W.T


def project_rows_first_row_only(X, W):
    return X[0] @ W


def project_rows_loop_off_by_one(X, W):
    out = np.zeros((X.shape[0], W.shape[1]))
    for i in range(X.shape[0] - 1):
        out[i] = X[i] @ W
    return out


def project_rows_transposes_X(X, W):
    return X.T @ W


# ============================================================================
# values(tokens, table, Wv)

def values_unique_tokens(tokens, table, Wv):
    X = np.array([table[w] for w in dict.fromkeys(tokens)])
    return X @ Wv


def values_sorted_set(tokens, table, Wv):
    X = np.array([table[w] for w in sorted(set(tokens))])
    return X @ Wv


def values_returns_X(tokens, table, Wv):
    return np.array([table[w] for w in tokens])


def values_column_vectors(tokens, table, Wv):
    X = np.array([table[w] for w in tokens])
    return Wv.T @ X.T


def values_table_order(tokens, table, Wv):
    X = np.array(list(table.values()))
    return X @ Wv


def values_skips_first_token(tokens, table, Wv):
    X = np.array([table[tokens[i]] for i in range(1, len(tokens))])
    return X @ Wv


def values_index_into_table(tokens, table, Wv):
    rows = list(table.values())
    X = np.array([rows[i] for i in range(len(tokens))])
    return X @ Wv


def values_pytorch_weight(tokens, table, Wv):
    X = np.array([table[w] for w in tokens])
    return X @ Wv.T


# ============================================================================
# uniform_causal_weights(n)

def ucw_excludes_diagonal(n):
    return np.tril(np.ones((n, n)), k=-1) / np.arange(1, n + 1)[:, None]


def ucw_divides_by_n(n):
    return np.tril(np.ones((n, n))) / n


def ucw_sum_without_keepdims(n):
    A = np.tril(np.ones((n, n)))
    return A / A.sum(axis=1)


def ucw_count_from_zero(n):
    return np.tril(np.ones((n, n))) / np.arange(n)[:, None]


def ucw_one_future_column(n):
    A = np.tril(np.ones((n, n)), k=1)
    return A / A.sum(axis=1, keepdims=True)


def ucw_not_normalised(n):
    return np.tril(np.ones((n, n)))


def ucw_transposed(n):
    A = np.tril(np.ones((n, n)))
    return (A / A.sum(axis=1, keepdims=True)).T


# ============================================================================
# causal_average(V)

def causal_average_divides_by_n(V):
    return np.cumsum(V, axis=0) / V.shape[0]


def causal_average_includes_next_row(V):
    n = V.shape[0]
    A = np.tril(np.ones((n, n)), k=1)
    return A / A.sum(axis=1, keepdims=True) @ V


def causal_average_cumsum_features(V):
    return np.cumsum(V, axis=1) / np.arange(1, V.shape[1] + 1)


def causal_average_mean_of_all(V):
    return np.tile(V.mean(axis=0), (V.shape[0], 1))


def causal_average_excludes_self(V):
    out = np.zeros_like(V)
    for i in range(1, V.shape[0]):
        out[i] = V[:i].mean(axis=0)
    return out


def causal_average_counts_without_newaxis(V):
    return np.cumsum(V, axis=0) / np.arange(1, V.shape[0] + 1)


def causal_average_transposed_weights(V):
    n = V.shape[0]
    A = np.tril(np.ones((n, n))) / np.arange(1, n + 1)[:, None]
    return A.T @ V


def causal_average_weights_on_right(V):
    n = V.shape[0]
    A = np.tril(np.ones((n, n))) / np.arange(1, n + 1)[:, None]
    return V @ A


# ============================================================================
# similarity(Q, K)

def similarity_feature_gram(Q, K):
    return Q.T @ K


def similarity_keys_by_queries(Q, K):
    return K @ Q.T


def similarity_scaled(Q, K):
    return Q @ K.T / np.sqrt(Q.shape[1])


def similarity_elementwise(Q, K):
    return (Q * K).sum(axis=1)


def similarity_cosine(Q, K):
    Qn = Q / np.linalg.norm(Q, axis=1, keepdims=True)
    Kn = K / np.linalg.norm(K, axis=1, keepdims=True)
    return Qn @ Kn.T


def similarity_no_transpose(Q, K):
    return Q @ K


def similarity_ignores_K(Q, K):
    return Q @ Q.T


# ============================================================================
# causal_mask(n)

def causal_mask_blanks_past(n):
    return np.tril(np.full((n, n), -np.inf), k=-1)


def causal_mask_blanks_diagonal(n):
    return np.triu(np.full((n, n), -np.inf))


def causal_mask_lets_one_future_through(n):
    return np.triu(np.full((n, n), -np.inf), k=2)


def causal_mask_multiplicative(n):
    return np.tril(np.ones((n, n)))


def causal_mask_boolean(n):
    return np.triu(np.ones((n, n)), k=1).astype(bool)


def causal_mask_large_negative(n):
    return np.triu(np.full((n, n), -1e9), k=1)


def causal_mask_where_swapped(n):
    return np.where(np.tril(np.ones((n, n))) == 1, -np.inf, 0.0)


def causal_mask_inf_times_zero(n):
    return -np.inf * np.triu(np.ones((n, n)), k=1)


# ============================================================================
# softmax(S, axis=-1)

def softmax_no_max(S, axis=-1):
    E = np.exp(S)
    return E / E.sum(axis=axis, keepdims=True)


def softmax_global_max(S, axis=-1):
    E = np.exp(S - S.max())
    return E / E.sum(axis=axis, keepdims=True)


def softmax_whole_array(S, axis=-1):
    E = np.exp(S - S.max())
    return E / E.sum()


def softmax_ignores_axis(S, axis=-1):
    E = np.exp(S - S.max(axis=-1, keepdims=True))
    return E / E.sum(axis=-1, keepdims=True)


def softmax_sum_without_keepdims(S, axis=-1):
    E = np.exp(S - S.max(axis=axis, keepdims=True))
    return E / E.sum(axis=axis)


def softmax_axis_zero(S, axis=-1):
    E = np.exp(S - S.max(axis=0, keepdims=True))
    return E / E.sum(axis=0, keepdims=True)


def softmax_max_without_keepdims(S, axis=-1):
    E = np.exp(S - S.max(axis=axis))
    return E / E.sum(axis=axis, keepdims=True)


def softmax_divides_by_max(S, axis=-1):
    E = np.exp(S - S.max(axis=axis, keepdims=True))
    return E / E.max(axis=axis, keepdims=True)


def softmax_returns_log_softmax(S, axis=-1):
    Z = S - S.max(axis=axis, keepdims=True)
    return Z - np.log(np.exp(Z).sum(axis=axis, keepdims=True))


def softmax_in_place(S, axis=-1):
    S -= S.max(axis=axis, keepdims=True)
    np.exp(S, out=S)
    S /= S.sum(axis=axis, keepdims=True)
    return S


def softmax_l2_normalised(S, axis=-1):
    E = np.exp(S - S.max(axis=axis, keepdims=True))
    return E / np.linalg.norm(E, axis=axis, keepdims=True)


def softmax_subtracts_min(S, axis=-1):
    E = np.exp(S - S.min(axis=axis, keepdims=True))
    return E / E.sum(axis=axis, keepdims=True)


def softmax_zeroes_neg_inf(S, axis=-1):
    S = np.where(np.isinf(S), 0.0, S)
    E = np.exp(S - S.max(axis=axis, keepdims=True))
    return E / E.sum(axis=axis, keepdims=True)


def softmax_column_max(S, axis=-1):
    E = np.exp(S - S.max(axis=0, keepdims=True))
    return E / E.sum(axis=axis, keepdims=True)


# ============================================================================
# attention_weights(Q, K, causal=True, scale=True)

def attention_weights_unscaled(Q, K, causal=True, scale=True):
    S = Q @ K.T
    if causal:
        S = S + _future(Q.shape[0], K.shape[0])
    return _softmax(S)


def attention_weights_divides_by_d(Q, K, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / Q.shape[1]
    if causal:
        S = S + _future(Q.shape[0], K.shape[0])
    return _softmax(S)


def attention_weights_multiplies_by_sqrt_d(Q, K, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S * np.sqrt(Q.shape[1])
    if causal:
        S = S + _future(Q.shape[0], K.shape[0])
    return _softmax(S)


def attention_weights_sqrt_of_rows(Q, K, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(Q.shape[0])
    if causal:
        S = S + _future(Q.shape[0], K.shape[0])
    return _softmax(S)


def attention_weights_mask_top_left(Q, K, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(Q.shape[1])
    if causal:
        S = S + np.triu(np.full(S.shape, -np.inf), k=1)
    return _softmax(S)


def attention_weights_offset_plus_one(Q, K, causal=True, scale=True):
    n_q, n_k = Q.shape[0], K.shape[0]
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(Q.shape[1])
    if causal:
        S = S + np.triu(np.full(S.shape, -np.inf), k=n_k - n_q + 2)
    return _softmax(S)


def attention_weights_masks_diagonal(Q, K, causal=True, scale=True):
    n_q, n_k = Q.shape[0], K.shape[0]
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(Q.shape[1])
    if causal:
        S = S + np.triu(np.full(S.shape, -np.inf), k=n_k - n_q)
    return _softmax(S)


def attention_weights_always_causal(Q, K, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(Q.shape[1])
    return _softmax(S + _future(Q.shape[0], K.shape[0]))


def attention_weights_always_scaled(Q, K, causal=True, scale=True):
    S = Q @ K.T / np.sqrt(Q.shape[1])
    if causal:
        S = S + _future(Q.shape[0], K.shape[0])
    return _softmax(S)


def attention_weights_softmax_over_queries(Q, K, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(Q.shape[1])
    if causal:
        S = S + _future(Q.shape[0], K.shape[0])
    return _softmax(S, axis=0)


def attention_weights_zeroes_after_softmax(Q, K, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(Q.shape[1])
    A = _softmax(S)
    if causal:
        A = A * np.isfinite(_future(Q.shape[0], K.shape[0]))
    return A


def attention_weights_returns_scores(Q, K, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(Q.shape[1])
    if causal:
        S = S + _future(Q.shape[0], K.shape[0])
    return S


def attention_weights_no_max(Q, K, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(Q.shape[1])
    if causal:
        S = S + _future(Q.shape[0], K.shape[0])
    E = np.exp(S)
    return E / E.sum(axis=1, keepdims=True)


def attention_weights_keys_by_queries(Q, K, causal=True, scale=True):
    S = K @ Q.T
    if scale:
        S = S / np.sqrt(Q.shape[1])
    if causal:
        S = S + _future(S.shape[0], S.shape[1])
    return _softmax(S)


def attention_weights_multiplies_mask(Q, K, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(Q.shape[1])
    if causal:
        S = S * np.isfinite(_future(Q.shape[0], K.shape[0]))
    return _softmax(S)


# ============================================================================
# attention(Q, K, V, causal=True, scale=True)

def _weights(Q, K, causal, scale):
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(Q.shape[1])
    if causal:
        S = S + _future(Q.shape[0], K.shape[0])
    return _softmax(S)


def attention_returns_weights(Q, K, V, causal=True, scale=True):
    return _weights(Q, K, causal, scale)


def attention_transposed_weights(Q, K, V, causal=True, scale=True):
    return _weights(Q, K, causal, scale).T @ V


def attention_unscaled(Q, K, V, causal=True, scale=True):
    return _weights(Q, K, causal, False) @ V


def attention_divides_by_d(Q, K, V, causal=True, scale=True):
    S = Q @ K.T / (Q.shape[1] if scale else 1)
    if causal:
        S = S + _future(Q.shape[0], K.shape[0])
    return _softmax(S) @ V


def attention_mask_top_left(Q, K, V, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(Q.shape[1])
    if causal:
        S = S + np.triu(np.full(S.shape, -np.inf), k=1)
    return _softmax(S) @ V


def attention_always_causal(Q, K, V, causal=True, scale=True):
    return _weights(Q, K, True, scale) @ V


def attention_softmax_over_queries(Q, K, V, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(Q.shape[1])
    if causal:
        S = S + _future(Q.shape[0], K.shape[0])
    return _softmax(S, axis=0) @ V


def attention_no_max(Q, K, V, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(Q.shape[1])
    if causal:
        S = S + _future(Q.shape[0], K.shape[0])
    E = np.exp(S)
    return E / E.sum(axis=1, keepdims=True) @ V


def attention_masks_diagonal(Q, K, V, causal=True, scale=True):
    n_q, n_k = Q.shape[0], K.shape[0]
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(Q.shape[1])
    if causal:
        S = S + np.triu(np.full(S.shape, -np.inf), k=n_k - n_q)
    return _softmax(S) @ V


def attention_normalises_without_keepdims(Q, K, V, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(Q.shape[1])
    if causal:
        S = S + _future(Q.shape[0], K.shape[0])
    E = np.exp(S - S.max(axis=1, keepdims=True))
    return (E @ V) / E.sum(axis=1)


def attention_mixes_keys(Q, K, V, causal=True, scale=True):
    return _weights(Q, K, causal, scale) @ K


def attention_scales_output(Q, K, V, causal=True, scale=True):
    O = _weights(Q, K, causal, False) @ V
    if scale:
        O = O / np.sqrt(Q.shape[1])
    return O


def attention_always_scaled(Q, K, V, causal=True, scale=True):
    return _weights(Q, K, causal, True) @ V


def attention_scales_Q_in_place(Q, K, V, causal=True, scale=True):
    if scale:
        Q /= np.sqrt(Q.shape[1])
    return _weights(Q, K, causal, False) @ V


# ============================================================================
# self_attention(X, Wq, Wk, Wv, Wo=None, causal=True)

def self_attention_ignores_Wo(X, Wq, Wk, Wv, Wo=None, causal=True):
    return _attend(X @ Wq, X @ Wk, X @ Wv, causal)


def self_attention_never_masks(X, Wq, Wk, Wv, Wo=None, causal=True):
    O = _attend(X @ Wq, X @ Wk, X @ Wv, causal=False)
    return O if Wo is None else O @ Wo


def self_attention_always_masks(X, Wq, Wk, Wv, Wo=None, causal=True):
    O = _attend(X @ Wq, X @ Wk, X @ Wv, causal=True)
    return O if Wo is None else O @ Wo


def self_attention_unscaled(X, Wq, Wk, Wv, Wo=None, causal=True):
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    S = Q @ K.T
    if causal:
        S = S + _future(len(X), len(X))
    O = _softmax(S) @ V
    return O if Wo is None else O @ Wo


def self_attention_scales_by_d_model(X, Wq, Wk, Wv, Wo=None, causal=True):
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    S = Q @ K.T / np.sqrt(X.shape[1])
    if causal:
        S = S + _future(len(X), len(X))
    O = _softmax(S) @ V
    return O if Wo is None else O @ Wo


def self_attention_scales_by_d_v(X, Wq, Wk, Wv, Wo=None, causal=True):
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    S = Q @ K.T / np.sqrt(V.shape[1])
    if causal:
        S = S + _future(len(X), len(X))
    O = _softmax(S) @ V
    return O if Wo is None else O @ Wo


def self_attention_swaps_Q_and_K(X, Wq, Wk, Wv, Wo=None, causal=True):
    O = _attend(X @ Wk, X @ Wq, X @ Wv, causal)
    return O if Wo is None else O @ Wo


def self_attention_pytorch_weights(X, Wq, Wk, Wv, Wo=None, causal=True):
    O = _attend(X @ Wq.T, X @ Wk.T, X @ Wv.T, causal)
    return O if Wo is None else O @ Wo.T


def self_attention_transposes_Wo(X, Wq, Wk, Wv, Wo=None, causal=True):
    O = _attend(X @ Wq, X @ Wk, X @ Wv, causal)
    return O if Wo is None else O @ Wo.T


def self_attention_returns_weights(X, Wq, Wk, Wv, Wo=None, causal=True):
    Q, K = X @ Wq, X @ Wk
    S = Q @ K.T / np.sqrt(Q.shape[1])
    if causal:
        S = S + _future(len(X), len(X))
    return _softmax(S)


def self_attention_keys_from_Wq(X, Wq, Wk, Wv, Wo=None, causal=True):
    O = _attend(X @ Wq, X @ Wq, X @ Wv, causal)
    return O if Wo is None else O @ Wo


def self_attention_adds_residual(X, Wq, Wk, Wv, Wo=None, causal=True):
    O = _attend(X @ Wq, X @ Wk, X @ Wv, causal)
    return X + (O if Wo is None else O @ Wo)


def self_attention_truth_test_on_Wo(X, Wq, Wk, Wv, Wo=None, causal=True):
    O = _attend(X @ Wq, X @ Wk, X @ Wv, causal)
    if Wo:
        O = O @ Wo
    return O


# ============================================================================
# multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, causal=True)

def mha_interleaved_heads(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    heads = []
    for h in range(n_heads):
        heads.append(_attend(X @ Wq[:, h::n_heads], X @ Wk[:, h::n_heads], X @ Wv[:, h::n_heads], causal))
    return np.concatenate(heads, axis=1) @ Wo


def mha_sums_heads(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    d_head = Wq.shape[1] // n_heads
    total = 0
    for h in range(n_heads):
        cols = slice(h * d_head, (h + 1) * d_head)
        total = total + _attend(X @ Wq[:, cols], X @ Wk[:, cols], X @ Wv[:, cols], causal)
    return total @ Wo[:d_head]


def mha_scales_by_d_model(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    d_head = Wq.shape[1] // n_heads
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_head, (h + 1) * d_head)
        Q, K, V = X @ Wq[:, cols], X @ Wk[:, cols], X @ Wv[:, cols]
        S = Q @ K.T / np.sqrt(X.shape[1])
        if causal:
            S = S + _future(len(X), len(X))
        heads.append(_softmax(S) @ V)
    return np.concatenate(heads, axis=1) @ Wo


def mha_one_big_head(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    return _attend(X @ Wq, X @ Wk, X @ Wv, causal) @ Wo


def mha_heads_reversed(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    d_head = Wq.shape[1] // n_heads
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_head, (h + 1) * d_head)
        heads.insert(0, _attend(X @ Wq[:, cols], X @ Wk[:, cols], X @ Wv[:, cols], causal))
    return np.concatenate(heads, axis=1) @ Wo


def mha_forgets_Wo(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    d_head = Wq.shape[1] // n_heads
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_head, (h + 1) * d_head)
        heads.append(_attend(X @ Wq[:, cols], X @ Wk[:, cols], X @ Wv[:, cols], causal))
    return np.concatenate(heads, axis=1)


def mha_reshape_without_transpose(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    n = X.shape[0]
    d_head = Wq.shape[1] // n_heads
    Q = (X @ Wq).reshape(n_heads, n, d_head)
    K = (X @ Wk).reshape(n_heads, n, d_head)
    V = (X @ Wv).reshape(n_heads, n, d_head)
    O = np.stack([_attend(Q[h], K[h], V[h], causal) for h in range(n_heads)])  # (n_heads, n, d_head)
    return O.reshape(n, n_heads * d_head) @ Wo


def mha_ignores_causal(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    d_head = Wq.shape[1] // n_heads
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_head, (h + 1) * d_head)
        heads.append(_attend(X @ Wq[:, cols], X @ Wk[:, cols], X @ Wv[:, cols], True))
    return np.concatenate(heads, axis=1) @ Wo


def mha_same_slice_every_head(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    d_head = Wq.shape[1] // n_heads
    cols = slice(0, d_head)
    heads = []
    for h in range(n_heads):
        heads.append(_attend(X @ Wq[:, cols], X @ Wk[:, cols], X @ Wv[:, cols], causal))
    return np.concatenate(heads, axis=1) @ Wo


def mha_softmax_over_queries(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    d_head = Wq.shape[1] // n_heads
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_head, (h + 1) * d_head)
        Q, K, V = X @ Wq[:, cols], X @ Wk[:, cols], X @ Wv[:, cols]
        S = Q @ K.T / np.sqrt(d_head)
        if causal:
            S = S + _future(len(X), len(X))
        heads.append(_softmax(S, axis=0) @ V)
    return np.concatenate(heads, axis=1) @ Wo


def mha_queries_as_keys(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    d_head = Wq.shape[1] // n_heads
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_head, (h + 1) * d_head)
        Q = X @ Wq[:, cols]
        heads.append(_attend(Q, Q, X @ Wv[:, cols], causal))
    return np.concatenate(heads, axis=1) @ Wo


def mha_splits_only_values(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    d_head = Wq.shape[1] // n_heads
    Q, K = X @ Wq, X @ Wk
    heads = []
    for h in range(n_heads):
        V = X @ Wv[:, h * d_head:(h + 1) * d_head]
        S = Q @ K.T / np.sqrt(d_head)
        if causal:
            S = S + _future(len(X), len(X))
        heads.append(_softmax(S) @ V)
    return np.concatenate(heads, axis=1) @ Wo


def mha_splits_tokens(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    d_head = Wq.shape[1] // n_heads
    Qs = np.split(X @ Wq, n_heads, axis=0)
    Ks = np.split(X @ Wk, n_heads, axis=0)
    Vs = np.split(X @ Wv, n_heads, axis=0)
    heads = []
    for Q, K, V in zip(Qs, Ks, Vs):
        S = Q @ K.T / np.sqrt(d_head)
        if causal:
            S = S + _future(len(Q), len(K))
        heads.append(_softmax(S) @ V)
    return np.concatenate(heads, axis=0) @ Wo


# ============================================================================
# layer_norm(X, g, b, eps=1e-5)

def layer_norm_unbiased_variance(X, g, b, eps=1e-5):
    mu = X.mean(axis=1, keepdims=True)
    var = X.var(axis=1, ddof=1, keepdims=True)
    return (X - mu) / np.sqrt(var + eps) * g + b


def layer_norm_no_eps(X, g, b, eps=1e-5):
    mu = X.mean(axis=1, keepdims=True)
    return (X - mu) / X.std(axis=1, keepdims=True) * g + b


def layer_norm_eps_outside_sqrt(X, g, b, eps=1e-5):
    mu = X.mean(axis=1, keepdims=True)
    return (X - mu) / (X.std(axis=1, keepdims=True) + eps) * g + b


def layer_norm_no_gain_or_bias(X, g, b, eps=1e-5):
    mu = X.mean(axis=1, keepdims=True)
    var = X.var(axis=1, keepdims=True)
    return (X - mu) / np.sqrt(var + eps)


def layer_norm_over_columns(X, g, b, eps=1e-5):
    mu = X.mean(axis=0, keepdims=True)
    var = X.var(axis=0, keepdims=True)
    return (X - mu) / np.sqrt(var + eps) * g + b


def layer_norm_mean_without_keepdims(X, g, b, eps=1e-5):
    mu = X.mean(axis=1)
    var = X.var(axis=1)
    return (X - mu) / np.sqrt(var + eps) * g + b


def layer_norm_moments_float32(X, g, b, eps=1e-5):
    X32 = X.astype(np.float32)
    mu = X32.mean(axis=1, keepdims=True)
    var = (X32 ** 2).mean(axis=1, keepdims=True) - mu ** 2
    return ((X32 - mu) / np.sqrt(var + eps) * g + b).astype(np.float64)


def layer_norm_moments_shortcut(X, g, b, eps=1e-5):
    mu = X.mean(axis=1, keepdims=True)
    var = (X ** 2).mean(axis=1, keepdims=True) - mu ** 2
    return (X - mu) / np.sqrt(var + eps) * g + b


def layer_norm_swaps_g_and_b(X, g, b, eps=1e-5):
    mu = X.mean(axis=1, keepdims=True)
    var = X.var(axis=1, keepdims=True)
    return (X - mu) / np.sqrt(var + eps) * b + g


def layer_norm_divides_by_variance(X, g, b, eps=1e-5):
    mu = X.mean(axis=1, keepdims=True)
    var = X.var(axis=1, keepdims=True)
    return (X - mu) / (var + eps) * g + b


def layer_norm_bias_before_gain(X, g, b, eps=1e-5):
    mu = X.mean(axis=1, keepdims=True)
    var = X.var(axis=1, keepdims=True)
    return ((X - mu) / np.sqrt(var + eps) + b) * g


def layer_norm_whole_matrix(X, g, b, eps=1e-5):
    return (X - X.mean()) / np.sqrt(X.var() + eps) * g + b


def layer_norm_forgets_mean(X, g, b, eps=1e-5):
    var = X.var(axis=1, keepdims=True)
    return X / np.sqrt(var + eps) * g + b


def layer_norm_fixed_eps(X, g, b, eps=1e-5):
    mu = X.mean(axis=1, keepdims=True)
    var = X.var(axis=1, keepdims=True)
    return (X - mu) / np.sqrt(var + 1e-12) * g + b


def layer_norm_in_place(X, g, b, eps=1e-5):
    X -= X.mean(axis=1, keepdims=True)
    X /= np.sqrt((X ** 2).mean(axis=1, keepdims=True) + eps)
    return X * g + b


# ============================================================================
# gelu(X)

def _erf(X):
    return np.vectorize(math.erf)(X)


def gelu_exact_erf(X):
    return 0.5 * X * (1 + _erf(X / np.sqrt(2)))


def gelu_sqrt_two_pi(X):
    return 0.5 * X * (1 + np.tanh(np.sqrt(2 * np.pi) * (X + 0.044715 * X ** 3)))


def gelu_constant_typo(X):
    return 0.5 * X * (1 + np.tanh(np.sqrt(2 / np.pi) * (X + 0.44715 * X ** 3)))


def gelu_missing_half(X):
    return X * (1 + np.tanh(np.sqrt(2 / np.pi) * (X + 0.044715 * X ** 3)))


def gelu_squares_not_cubes(X):
    return 0.5 * X * (1 + np.tanh(np.sqrt(2 / np.pi) * (X + 0.044715 * X ** 2)))


def gelu_sigmoid_approximation(X):
    return X / (1 + np.exp(-1.702 * X))


def gelu_relu(X):
    return np.maximum(X, 0)


def gelu_missing_x(X):
    return 0.5 * (1 + np.tanh(np.sqrt(2 / np.pi) * (X + 0.044715 * X ** 3)))


def gelu_in_place(X):
    inner = X
    inner += 0.044715 * X ** 3
    return 0.5 * X * (1 + np.tanh(np.sqrt(2 / np.pi) * inner))


def gelu_sqrt_two_over_pi_typo(X):
    return 0.5 * X * (1 + np.tanh(np.sqrt(2) / np.pi * (X + 0.044715 * X ** 3)))


# ============================================================================
# transformer_block(X, p, n_heads, causal=True)

def _attn_sublayer(H, p, n_heads, causal):
    return _mha(H, p["Wq"], p["Wk"], p["Wv"], p["Wo"], n_heads, causal)


def block_post_ln(X, p, n_heads, causal=True):
    Y = _layer_norm(X + _attn_sublayer(X, p, n_heads, causal), p["ln1_g"], p["ln1_b"])
    return _layer_norm(Y + _mlp(Y, p), p["ln2_g"], p["ln2_b"])


def block_parallel(X, p, n_heads, causal=True):
    attn = _attn_sublayer(_layer_norm(X, p["ln1_g"], p["ln1_b"]), p, n_heads, causal)
    mlp = _mlp(_layer_norm(X, p["ln2_g"], p["ln2_b"]), p)
    return X + attn + mlp


def block_residual_from_normed(X, p, n_heads, causal=True):
    H = _layer_norm(X, p["ln1_g"], p["ln1_b"])
    Y = H + _attn_sublayer(H, p, n_heads, causal)
    H2 = _layer_norm(Y, p["ln2_g"], p["ln2_b"])
    return H2 + _mlp(H2, p)


def block_no_residuals(X, p, n_heads, causal=True):
    Y = _attn_sublayer(_layer_norm(X, p["ln1_g"], p["ln1_b"]), p, n_heads, causal)
    return _mlp(_layer_norm(Y, p["ln2_g"], p["ln2_b"]), p)


def block_no_second_residual(X, p, n_heads, causal=True):
    Y = X + _attn_sublayer(_layer_norm(X, p["ln1_g"], p["ln1_b"]), p, n_heads, causal)
    return _mlp(_layer_norm(Y, p["ln2_g"], p["ln2_b"]), p)


def block_no_first_residual(X, p, n_heads, causal=True):
    Y = _attn_sublayer(_layer_norm(X, p["ln1_g"], p["ln1_b"]), p, n_heads, causal)
    return Y + _mlp(_layer_norm(Y, p["ln2_g"], p["ln2_b"]), p)


def block_ln1_twice(X, p, n_heads, causal=True):
    Y = X + _attn_sublayer(_layer_norm(X, p["ln1_g"], p["ln1_b"]), p, n_heads, causal)
    return Y + _mlp(_layer_norm(Y, p["ln1_g"], p["ln1_b"]), p)


def block_gelu_after_W2(X, p, n_heads, causal=True):
    Y = X + _attn_sublayer(_layer_norm(X, p["ln1_g"], p["ln1_b"]), p, n_heads, causal)
    H = _layer_norm(Y, p["ln2_g"], p["ln2_b"])
    return Y + _gelu((H @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"])


def block_relu_mlp(X, p, n_heads, causal=True):
    Y = X + _attn_sublayer(_layer_norm(X, p["ln1_g"], p["ln1_b"]), p, n_heads, causal)
    H = _layer_norm(Y, p["ln2_g"], p["ln2_b"])
    return Y + np.maximum(H @ p["W1"] + p["b1"], 0) @ p["W2"] + p["b2"]


def block_no_ln_before_attention(X, p, n_heads, causal=True):
    Y = X + _attn_sublayer(X, p, n_heads, causal)
    return Y + _mlp(_layer_norm(Y, p["ln2_g"], p["ln2_b"]), p)


def block_mlp_reads_X(X, p, n_heads, causal=True):
    Y = X + _attn_sublayer(_layer_norm(X, p["ln1_g"], p["ln1_b"]), p, n_heads, causal)
    return Y + _mlp(_layer_norm(X, p["ln2_g"], p["ln2_b"]), p)


def block_always_causal(X, p, n_heads, causal=True):
    Y = X + _attn_sublayer(_layer_norm(X, p["ln1_g"], p["ln1_b"]), p, n_heads, True)
    return Y + _mlp(_layer_norm(Y, p["ln2_g"], p["ln2_b"]), p)


def block_forgets_b1(X, p, n_heads, causal=True):
    Y = X + _attn_sublayer(_layer_norm(X, p["ln1_g"], p["ln1_b"]), p, n_heads, causal)
    H = _layer_norm(Y, p["ln2_g"], p["ln2_b"])
    return Y + _gelu(H @ p["W1"]) @ p["W2"] + p["b2"]


def block_mlp_on_attention_output(X, p, n_heads, causal=True):
    attn = _attn_sublayer(_layer_norm(X, p["ln1_g"], p["ln1_b"]), p, n_heads, causal)
    Y = X + attn
    return Y + _mlp(_layer_norm(attn, p["ln2_g"], p["ln2_b"]), p)


def block_one_head(X, p, n_heads, causal=True):
    Y = X + _attn_sublayer(_layer_norm(X, p["ln1_g"], p["ln1_b"]), p, 1, causal)
    return Y + _mlp(_layer_norm(Y, p["ln2_g"], p["ln2_b"]), p)


def block_residual_in_place(X, p, n_heads, causal=True):
    X += _attn_sublayer(_layer_norm(X, p["ln1_g"], p["ln1_b"]), p, n_heads, causal)
    return X + _mlp(_layer_norm(X, p["ln2_g"], p["ln2_b"]), p)


def block_final_layer_norm(X, p, n_heads, causal=True):
    Y = X + _attn_sublayer(_layer_norm(X, p["ln1_g"], p["ln1_b"]), p, n_heads, causal)
    Z = Y + _mlp(_layer_norm(Y, p["ln2_g"], p["ln2_b"]), p)
    return _layer_norm(Z, p["ln2_g"], p["ln2_b"])


# ============================================================================
# next_token_logits(H, W_vocab)

def logits_first_row(H, W_vocab):
    return H[0] @ W_vocab


def logits_every_row(H, W_vocab):
    return H @ W_vocab


def logits_softmaxed(H, W_vocab):
    return _softmax(H[-1] @ W_vocab)


def logits_mean_of_rows(H, W_vocab):
    return H.mean(axis=0) @ W_vocab


def logits_column_vector(H, W_vocab):
    return W_vocab @ H[-1]


def logits_second_to_last_row(H, W_vocab):
    return H[-2] @ W_vocab


def logits_sum_of_rows(H, W_vocab):
    return (H @ W_vocab).sum(axis=0)


def logits_keeps_row_axis(H, W_vocab):
    return H[-1:] @ W_vocab


# ============================================================================
# softmax_backward(A, dA)

def softmax_backward_elementwise(A, dA):
    return A * dA


def softmax_backward_diagonal_only(A, dA):
    return A * (1 - A) * dA


def softmax_backward_sums_axis_zero(A, dA):
    return A * (dA - np.sum(dA * A, axis=0, keepdims=True))


def softmax_backward_sum_without_keepdims(A, dA):
    return A * (dA - np.sum(dA * A, axis=-1))


def softmax_backward_forgets_outer_A(A, dA):
    return dA - np.sum(dA * A, axis=-1, keepdims=True)


def softmax_backward_float32(A, dA):
    A32, dA32 = A.astype(np.float32), dA.astype(np.float32)
    return (A32 * (dA32 - np.sum(dA32 * A32, axis=-1, keepdims=True))).astype(np.float64)


def softmax_backward_two_dimensional_only(A, dA):
    dS = np.zeros_like(A)
    for i in range(A.shape[0]):
        J = np.diag(A[i]) - np.outer(A[i], A[i])
        dS[i] = J @ dA[i]
    return dS


def softmax_backward_sums_everything(A, dA):
    return A * (dA - np.sum(dA * A))


def softmax_backward_sign_flipped(A, dA):
    return A * (np.sum(dA * A, axis=-1, keepdims=True) - dA)


def softmax_backward_unweighted_sum(A, dA):
    return A * (dA - dA.sum(axis=-1, keepdims=True))


# ============================================================================
# cross_attention(X, Z, Wq, Wk, Wv)

def cross_attention_causal(X, Z, Wq, Wk, Wv):
    Q, K, V = X @ Wq, Z @ Wk, Z @ Wv
    S = Q @ K.T / np.sqrt(Q.shape[1])
    S = S + np.triu(np.full(S.shape, -np.inf), k=1)
    return _softmax(S) @ V


def cross_attention_roles_swapped(X, Z, Wq, Wk, Wv):
    Q, K, V = Z @ Wq, X @ Wk, X @ Wv
    return _softmax(Q @ K.T / np.sqrt(Q.shape[1])) @ V


def cross_attention_unscaled(X, Z, Wq, Wk, Wv):
    Q, K, V = X @ Wq, Z @ Wk, Z @ Wv
    return _softmax(Q @ K.T) @ V


def cross_attention_no_max(X, Z, Wq, Wk, Wv):
    Q, K, V = X @ Wq, Z @ Wk, Z @ Wv
    E = np.exp(Q @ K.T / np.sqrt(Q.shape[1]))
    return E / E.sum(axis=1, keepdims=True) @ V


def cross_attention_scales_by_d_model(X, Z, Wq, Wk, Wv):
    Q, K, V = X @ Wq, Z @ Wk, Z @ Wv
    return _softmax(Q @ K.T / np.sqrt(X.shape[1])) @ V


def cross_attention_values_from_X(X, Z, Wq, Wk, Wv):
    Q, K, V = X @ Wq, Z @ Wk, X @ Wv
    return _softmax(Q @ K.T / np.sqrt(Q.shape[1])) @ V


def cross_attention_returns_weights(X, Z, Wq, Wk, Wv):
    Q, K = X @ Wq, Z @ Wk
    return _softmax(Q @ K.T / np.sqrt(Q.shape[1]))


def cross_attention_softmax_over_queries(X, Z, Wq, Wk, Wv):
    Q, K, V = X @ Wq, Z @ Wk, Z @ Wv
    return _softmax(Q @ K.T / np.sqrt(Q.shape[1]), axis=0) @ V


def cross_attention_keys_from_X(X, Z, Wq, Wk, Wv):
    Q, K, V = X @ Wq, X @ Wk, Z @ Wv
    return _softmax(Q @ K.T / np.sqrt(Q.shape[1])) @ V


# ============================================================================
# attend_step(q, K_cache, V_cache)

def attend_step_unscaled(q, K_cache, V_cache):
    return _softmax(K_cache @ q) @ V_cache


def attend_step_drops_newest_row(q, K_cache, V_cache):
    a = _softmax(K_cache[:-1] @ q / np.sqrt(q.shape[0]))
    return a @ V_cache[:-1]


def attend_step_no_max(q, K_cache, V_cache):
    e = np.exp(K_cache @ q / np.sqrt(q.shape[0]))
    return e / e.sum() @ V_cache


def attend_step_returns_weights(q, K_cache, V_cache):
    return _softmax(K_cache @ q / np.sqrt(q.shape[0]))


def attend_step_divides_by_d(q, K_cache, V_cache):
    return _softmax(K_cache @ q / q.shape[0]) @ V_cache


def attend_step_scales_by_t(q, K_cache, V_cache):
    return _softmax(K_cache @ q / np.sqrt(K_cache.shape[0])) @ V_cache


def attend_step_newest_value_only(q, K_cache, V_cache):
    return V_cache[-1]


def attend_step_unnormalised(q, K_cache, V_cache):
    s = K_cache @ q / np.sqrt(q.shape[0])
    return np.exp(s - s.max()) @ V_cache


def attend_step_scales_q_in_place(q, K_cache, V_cache):
    q /= np.sqrt(q.shape[0])
    return _softmax(K_cache @ q) @ V_cache


# ============================================================================
# cache_step(q, k, v, K_cache, V_cache)

def _step(q, K, V):
    return _softmax(K @ q / np.sqrt(q.shape[0])) @ V


def cache_step_attends_old_cache(q, k, v, K_cache, V_cache):
    o = _step(q, K_cache, V_cache)
    return o, np.vstack([K_cache, k]), np.vstack([V_cache, v])


def cache_step_prepends(q, k, v, K_cache, V_cache):
    K_new, V_new = np.vstack([k, K_cache]), np.vstack([v, V_cache])
    return _step(q, K_new, V_new), K_new, V_new


def cache_step_returns_old_caches(q, k, v, K_cache, V_cache):
    K_new, V_new = np.vstack([K_cache, k]), np.vstack([V_cache, v])
    return _step(q, K_new, V_new), K_cache, V_cache


def cache_step_appends_k_to_both(q, k, v, K_cache, V_cache):
    K_new, V_new = np.vstack([K_cache, k]), np.vstack([V_cache, k])
    return _step(q, K_new, V_new), K_new, V_new


def cache_step_scales_q_in_place(q, k, v, K_cache, V_cache):
    q /= np.sqrt(q.shape[0])
    K_new, V_new = np.vstack([K_cache, k]), np.vstack([V_cache, v])
    return _softmax(K_new @ q) @ V_new, K_new, V_new


def cache_step_append_flattens(q, k, v, K_cache, V_cache):
    K_new, V_new = np.append(K_cache, k), np.append(V_cache, v)
    return _step(q, K_new, V_new), K_new, V_new


def cache_step_overwrites_last_row(q, k, v, K_cache, V_cache):
    K_cache[-1] = k
    V_cache[-1] = v
    return _step(q, K_cache, V_cache), K_cache, V_cache


def cache_step_wrong_return_order(q, k, v, K_cache, V_cache):
    K_new, V_new = np.vstack([K_cache, k]), np.vstack([V_cache, v])
    return K_new, V_new, _step(q, K_new, V_new)


def cache_step_unscaled(q, k, v, K_cache, V_cache):
    K_new, V_new = np.vstack([K_cache, k]), np.vstack([V_cache, v])
    return _softmax(K_new @ q) @ V_new, K_new, V_new


def cache_step_drops_oldest_row(q, k, v, K_cache, V_cache):
    K_new, V_new = np.vstack([K_cache[1:], k]), np.vstack([V_cache[1:], v])
    return _step(q, K_new, V_new), K_new, V_new


def cache_step_returns_only_output(q, k, v, K_cache, V_cache):
    return _step(q, np.vstack([K_cache, k]), np.vstack([V_cache, v]))


def cache_step_key_as_query(q, k, v, K_cache, V_cache):
    K_new, V_new = np.vstack([K_cache, k]), np.vstack([V_cache, v])
    return _step(k, K_new, V_new), K_new, V_new


# ============================================================================
# kv_cache_bytes(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2)

def kv_bytes_no_factor_two(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return n_layers * n_heads * d_head * seq_len * batch * bytes_per_value


def kv_bytes_ignores_heads(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return 2 * n_layers * d_head * seq_len * batch * bytes_per_value


def kv_bytes_ignores_layers(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return 2 * n_heads * d_head * seq_len * batch * bytes_per_value


def kv_bytes_int32(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    sizes = np.array([2, n_layers, n_heads, d_head, seq_len, batch, bytes_per_value], dtype=np.int32)
    return np.prod(sizes, dtype=np.int32)


def kv_bytes_float(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return 2.0 * n_layers * n_heads * d_head * seq_len * batch * bytes_per_value


def kv_bytes_ignores_batch(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return 2 * n_layers * n_heads * d_head * seq_len * bytes_per_value


def kv_bytes_counts_bits(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return 2 * n_layers * n_heads * d_head * seq_len * batch * bytes_per_value * 8


def kv_bytes_hardcodes_two_bytes(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return 2 * n_layers * n_heads * d_head * seq_len * batch * 2


def kv_bytes_double_counts_kv(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    per_token = 2 * n_heads * d_head * bytes_per_value  # K and V
    return 2 * n_layers * per_token * seq_len * batch


MISTAKES = [
    # project
    Mistake("project", "writes W x with column vectors (W @ x) instead of x @ W", project_column_vector),
    Mistake("project", "uses the PyTorch (d_out, d_in) weight convention: x @ W.T", project_pytorch_weight),
    Mistake("project", "sums the products over the output axis instead of the input axis", project_sums_wrong_axis),
    Mistake("project", "multiplies x into W's rows but never sums: returns a (d_in, d_out) matrix",
            project_forgets_sum),
    Mistake("project", "averages the products over the input axis instead of summing them", project_mean_not_sum),
    Mistake("project", "loops with the two indices of W swapped (W[j, i] instead of W[i, j])",
            project_loop_swapped_index),
    # project_rows
    Mistake("project_rows", "column-vector form W^T X^T: returns the (d_out, n) transpose",
            project_rows_column_vectors),
    Mistake("project_rows", "transposes the correct result at the end", project_rows_transposed_result),
    Mistake("project_rows", "uses the PyTorch (d_out, d_in) weight convention: X @ W.T", project_rows_pytorch_weight),
    Mistake("project_rows", "projects only the first row", project_rows_first_row_only),
    Mistake("project_rows", "row loop stops one short, leaving the last row zero", project_rows_loop_off_by_one),
    Mistake("project_rows", "transposes X before the product (X.T @ W)", project_rows_transposes_X),
    # values
    Mistake("values", "keeps each distinct word once, dropping repeated tokens", values_unique_tokens),
    Mistake("values", "builds X from sorted(set(tokens)): repeats dropped and order lost", values_sorted_set),
    Mistake("values", "returns the embedding matrix X, forgetting to multiply by Wv", values_returns_X),
    Mistake("values", "column-vector form Wv^T X^T: returns the (d_v, n) transpose", values_column_vectors),
    Mistake("values", "builds X from the table's own order (table.values()) instead of the tokens",
            values_table_order),
    Mistake("values", "loop starts at 1 and skips the first token", values_skips_first_token),
    Mistake("values", "takes the i-th entry of the table for position i instead of looking the word up",
            values_index_into_table),
    Mistake("values", "uses the PyTorch (d_v, d_model) weight convention: X @ Wv.T", values_pytorch_weight),
    # uniform_causal_weights
    Mistake("uniform_causal_weights", "excludes the diagonal (row i averages columns 0..i-1 only)",
            ucw_excludes_diagonal),
    Mistake("uniform_causal_weights", "divides every row by n instead of by i+1", ucw_divides_by_n),
    Mistake("uniform_causal_weights", "divides by the row sums without keepdims, so column j is divided by j+1",
            ucw_sum_without_keepdims),
    Mistake("uniform_causal_weights", "divides row i by i instead of i+1 (counts from zero)", ucw_count_from_zero),
    Mistake("uniform_causal_weights", "lower triangle taken with k=1: each row also sees the next column",
            ucw_one_future_column),
    Mistake("uniform_causal_weights", "returns the 0/1 lower-triangular mask without normalising the rows",
            ucw_not_normalised),
    Mistake("uniform_causal_weights", "returns the transpose (upper triangular)", ucw_transposed),
    # causal_average
    Mistake("causal_average", "divides the running sum by n instead of by i+1", causal_average_divides_by_n),
    Mistake("causal_average", "row i averages rows 0..i+1: one future row leaks in",
            causal_average_includes_next_row),
    Mistake("causal_average", "takes the running mean along the features (axis=1) instead of the tokens",
            causal_average_cumsum_features),
    Mistake("causal_average", "every row is the mean of all rows: no causality", causal_average_mean_of_all),
    Mistake("causal_average", "row i averages rows 0..i-1, excluding itself (row 0 becomes zero)",
            causal_average_excludes_self),
    Mistake("causal_average", "divides by the counts without a new axis (column j over j+1; crashes unless n == d)",
            causal_average_counts_without_newaxis),
    Mistake("causal_average", "multiplies by the transposed weight matrix (A.T @ V)",
            causal_average_transposed_weights),
    Mistake("causal_average", "puts the weight matrix on the wrong side (V @ A)", causal_average_weights_on_right),
    # similarity
    Mistake("similarity", "computes Q^T K, a (d, d) matrix over features", similarity_feature_gram),
    Mistake("similarity", "computes K Q^T: keys on the rows, the transpose of the answer",
            similarity_keys_by_queries),
    Mistake("similarity", "divides by sqrt(d) although the exercise asks for raw scores", similarity_scaled),
    Mistake("similarity", "row-wise dot products (Q * K).sum(1): only matching positions", similarity_elementwise),
    Mistake("similarity", "cosine similarity: normalises the rows of Q and K first", similarity_cosine),
    Mistake("similarity", "forgets to transpose K (Q @ K)", similarity_no_transpose),
    Mistake("similarity", "uses Q for both sides (Q @ Q.T), ignoring K", similarity_ignores_K),
    # causal_mask
    Mistake("causal_mask", "blanks the past (below the diagonal) instead of the future", causal_mask_blanks_past),
    Mistake("causal_mask", "np.triu without k=1 also blanks the diagonal", causal_mask_blanks_diagonal),
    Mistake("causal_mask", "k=2 leaves the next position open: one future token leaks",
            causal_mask_lets_one_future_through),
    Mistake("causal_mask", "returns a multiplicative 0/1 mask instead of an additive 0/-inf one",
            causal_mask_multiplicative),
    Mistake("causal_mask", "returns a boolean mask (True on the future) instead of 0/-inf", causal_mask_boolean),
    Mistake("causal_mask", "uses -1e9 instead of -inf for the future", causal_mask_large_negative),
    Mistake("causal_mask", "np.where branches swapped: -inf on and below the diagonal, 0 above",
            causal_mask_where_swapped),
    Mistake("causal_mask", "multiplies -inf by a 0/1 matrix, so the allowed entries become NaN (0 * -inf)",
            causal_mask_inf_times_zero),
    # softmax
    Mistake("softmax", "no max subtraction: np.exp overflows for scores around 1000", softmax_no_max),
    Mistake("softmax", "subtracts the global max of the array, not each row's max", softmax_global_max),
    Mistake("softmax", "normalises by the sum over the whole array instead of along the axis", softmax_whole_array),
    Mistake("softmax", "ignores the axis argument and always uses the last axis", softmax_ignores_axis),
    Mistake("softmax", "sums along the axis without keepdims, so the division broadcasts the wrong way",
            softmax_sum_without_keepdims),
    Mistake("softmax", "hard-codes axis=0 (normalises columns)", softmax_axis_zero),
    Mistake("softmax", "takes the max along the axis without keepdims, subtracting the wrong row's max",
            softmax_max_without_keepdims),
    Mistake("softmax", "divides by the max of exp instead of the sum", softmax_divides_by_max),
    Mistake("softmax", "returns the log-softmax (log-probabilities)", softmax_returns_log_softmax),
    Mistake("softmax", "computes in place, overwriting the caller's S", softmax_in_place),
    Mistake("softmax", "normalises by the L2 norm instead of the sum", softmax_l2_normalised),
    Mistake("softmax", "subtracts the row min instead of the max: overflows for wide rows", softmax_subtracts_min),
    Mistake("softmax", "replaces -inf by 0 before exponentiating, so masked entries get weight",
            softmax_zeroes_neg_inf),
    Mistake("softmax", "subtracts each column's max (axis 0) but normalises along the axis", softmax_column_max),
    # attention_weights
    Mistake("attention_weights", "never divides by sqrt(d)", attention_weights_unscaled),
    Mistake("attention_weights", "divides by d instead of sqrt(d)", attention_weights_divides_by_d),
    Mistake("attention_weights", "multiplies by sqrt(d) instead of dividing", attention_weights_multiplies_by_sqrt_d),
    Mistake("attention_weights", "scales by sqrt(Q.shape[0]) (the number of queries) instead of sqrt(d)",
            attention_weights_sqrt_of_rows),
    Mistake("attention_weights", "mask aligned top-left: with n_q < n_k the queries act as the first positions",
            attention_weights_mask_top_left),
    Mistake("attention_weights", "mask offset one too far: each query also sees the next key",
            attention_weights_offset_plus_one),
    Mistake("attention_weights", "mask offset one too small: each query cannot see its own key",
            attention_weights_masks_diagonal),
    Mistake("attention_weights", "ignores causal=False and always masks", attention_weights_always_causal),
    Mistake("attention_weights", "ignores scale=False and always scales", attention_weights_always_scaled),
    Mistake("attention_weights", "softmax along axis 0 (over queries) instead of over keys",
            attention_weights_softmax_over_queries),
    Mistake("attention_weights", "zeroes the future after the softmax without renormalising the rows",
            attention_weights_zeroes_after_softmax),
    Mistake("attention_weights", "returns the masked scores S instead of the softmax weights",
            attention_weights_returns_scores),
    Mistake("attention_weights", "softmax without max subtraction: NaN for huge scores", attention_weights_no_max),
    Mistake("attention_weights", "computes K Q^T (keys on the rows) instead of Q K^T",
            attention_weights_keys_by_queries),
    Mistake("attention_weights", "multiplies the future scores by 0 instead of adding -inf",
            attention_weights_multiplies_mask),
    # attention
    Mistake("attention", "returns the weights A instead of the output A V", attention_returns_weights),
    Mistake("attention", "multiplies V by A transposed", attention_transposed_weights),
    Mistake("attention", "never divides the scores by sqrt(d)", attention_unscaled),
    Mistake("attention", "divides the scores by d instead of sqrt(d)", attention_divides_by_d),
    Mistake("attention", "mask aligned top-left: with n_q < n_k the queries act as the first positions",
            attention_mask_top_left),
    Mistake("attention", "ignores causal=False and always masks", attention_always_causal),
    Mistake("attention", "softmax along axis 0 (over queries) instead of over keys", attention_softmax_over_queries),
    Mistake("attention", "softmax without max subtraction: NaN for huge scores", attention_no_max),
    Mistake("attention", "mask also blanks the diagonal, so a query cannot see its own key (first row NaN)",
            attention_masks_diagonal),
    Mistake("attention", "divides E V by the row sums without keepdims (crashes unless n_q == d_v)",
            attention_normalises_without_keepdims),
    Mistake("attention", "mixes the rows of K instead of V", attention_mixes_keys),
    Mistake("attention", "divides the output by sqrt(d) instead of the scores", attention_scales_output),
    Mistake("attention", "ignores scale=False and always scales", attention_always_scaled),
    Mistake("attention", "divides Q by sqrt(d) in place, changing the caller's array", attention_scales_Q_in_place),
    # self_attention
    Mistake("self_attention", "never applies Wo, even when it is given", self_attention_ignores_Wo),
    Mistake("self_attention", "never applies the causal mask", self_attention_never_masks),
    Mistake("self_attention", "ignores causal=False and always masks", self_attention_always_masks),
    Mistake("self_attention", "no 1/sqrt(d_head) scaling", self_attention_unscaled),
    Mistake("self_attention", "scales by sqrt(d_model) instead of sqrt(d_head)", self_attention_scales_by_d_model),
    Mistake("self_attention", "scales by sqrt(d_v) (the width of Wv) instead of sqrt(d_head)",
            self_attention_scales_by_d_v),
    Mistake("self_attention", "swaps the roles of Wq and Wk", self_attention_swaps_Q_and_K),
    Mistake("self_attention", "PyTorch weight convention: X @ W.T for every projection",
            self_attention_pytorch_weights),
    Mistake("self_attention", "multiplies by Wo transposed", self_attention_transposes_Wo),
    Mistake("self_attention", "returns the attention weights instead of the output", self_attention_returns_weights),
    Mistake("self_attention", "typo: keys computed with Wq instead of Wk", self_attention_keys_from_Wq),
    Mistake("self_attention", "adds a residual X + attention, which the exercise does not ask for",
            self_attention_adds_residual),
    Mistake("self_attention", "tests `if Wo:` on an array, which raises when Wo is given",
            self_attention_truth_test_on_Wo),
    # multi_head_attention
    Mistake("multi_head_attention", "interleaved heads: head h takes every n_heads-th column starting at h",
            mha_interleaved_heads),
    Mistake("multi_head_attention", "sums the head outputs instead of concatenating them", mha_sums_heads),
    Mistake("multi_head_attention", "scales each head by sqrt(d_model) instead of sqrt(d_head)",
            mha_scales_by_d_model),
    Mistake("multi_head_attention", "ignores n_heads: one head over all columns", mha_one_big_head),
    Mistake("multi_head_attention", "concatenates the heads in reverse order", mha_heads_reversed),
    Mistake("multi_head_attention", "forgets the output projection Wo", mha_forgets_Wo),
    Mistake("multi_head_attention", "reshapes (n, width) to (n_heads, n, d_head) without a transpose",
            mha_reshape_without_transpose),
    Mistake("multi_head_attention", "ignores causal=False and always masks", mha_ignores_causal),
    Mistake("multi_head_attention", "every head uses the first head's columns", mha_same_slice_every_head),
    Mistake("multi_head_attention", "softmax along axis 0 (over queries) in each head", mha_softmax_over_queries),
    Mistake("multi_head_attention", "typo: uses each head's queries as its keys", mha_queries_as_keys),
    Mistake("multi_head_attention", "splits only V into heads; every head uses the full Q and K",
            mha_splits_only_values),
    Mistake("multi_head_attention", "splits the tokens (rows) into head groups instead of the columns",
            mha_splits_tokens),
    # layer_norm
    Mistake("layer_norm", "unbiased variance (ddof=1) instead of dividing by d", layer_norm_unbiased_variance),
    Mistake("layer_norm", "no eps: divides by the plain standard deviation", layer_norm_no_eps),
    Mistake("layer_norm", "adds eps to the standard deviation, outside the square root", layer_norm_eps_outside_sqrt),
    Mistake("layer_norm", "forgets to multiply by g and add b", layer_norm_no_gain_or_bias),
    Mistake("layer_norm", "normalises each column (axis 0) instead of each row", layer_norm_over_columns),
    Mistake("layer_norm", "row mean and variance without keepdims, so they broadcast along the columns",
            layer_norm_mean_without_keepdims),
    Mistake("layer_norm", "variance as E[x^2] - E[x]^2 in float32: cancellation on rows with a large offset",
            layer_norm_moments_float32),
    Mistake("layer_norm", "variance as E[x^2] - E[x]^2 (float64): loses precision on rows with a huge offset",
            layer_norm_moments_shortcut),
    Mistake("layer_norm", "swaps g and b (multiplies by b, adds g)", layer_norm_swaps_g_and_b),
    Mistake("layer_norm", "divides by the variance instead of the standard deviation", layer_norm_divides_by_variance),
    Mistake("layer_norm", "adds b before multiplying by g", layer_norm_bias_before_gain),
    Mistake("layer_norm", "normalises with the mean and variance of the whole matrix", layer_norm_whole_matrix),
    Mistake("layer_norm", "forgets to subtract the mean (divides by the std only)", layer_norm_forgets_mean),
    Mistake("layer_norm", "ignores the eps argument and uses a fixed 1e-12", layer_norm_fixed_eps),
    Mistake("layer_norm", "centres and scales X in place, changing the caller's array", layer_norm_in_place),
    # gelu
    Mistake("gelu", "exact erf GELU instead of the tanh approximation", gelu_exact_erf),
    Mistake("gelu", "constant sqrt(2 pi) instead of sqrt(2 / pi)", gelu_sqrt_two_pi),
    Mistake("gelu", "cubic coefficient typed as 0.44715 instead of 0.044715", gelu_constant_typo),
    Mistake("gelu", "forgets the factor 0.5", gelu_missing_half),
    Mistake("gelu", "x^2 instead of x^3 inside the tanh", gelu_squares_not_cubes),
    Mistake("gelu", "sigmoid approximation x * sigmoid(1.702 x) instead of the tanh one",
            gelu_sigmoid_approximation),
    Mistake("gelu", "ReLU instead of GELU", gelu_relu),
    Mistake("gelu", "forgets the leading factor x: returns the gate 0.5 (1 + tanh(...))", gelu_missing_x),
    Mistake("gelu", "adds the cubic term into X in place, changing the input and the result",
            gelu_in_place),
    Mistake("gelu", "constant sqrt(2) / pi instead of sqrt(2 / pi)", gelu_sqrt_two_over_pi_typo),
    # transformer_block
    Mistake("transformer_block", "post-LN: layer norm after each residual add instead of before each sublayer",
            block_post_ln),
    Mistake("transformer_block", "parallel block: attention and MLP both read X, their outputs are added",
            block_parallel),
    Mistake("transformer_block", "residuals add the normalised input LN(X) instead of X", block_residual_from_normed),
    Mistake("transformer_block", "no residual connections at all", block_no_residuals),
    Mistake("transformer_block", "forgets the second residual (returns the MLP output alone)",
            block_no_second_residual),
    Mistake("transformer_block", "forgets the first residual around attention", block_no_first_residual),
    Mistake("transformer_block", "uses ln1_g, ln1_b for the second layer norm too", block_ln1_twice),
    Mistake("transformer_block", "applies GELU after W2 instead of after W1", block_gelu_after_W2),
    Mistake("transformer_block", "ReLU instead of GELU in the MLP", block_relu_mlp),
    Mistake("transformer_block", "no layer norm before attention", block_no_ln_before_attention),
    Mistake("transformer_block", "the MLP reads LN2(X) instead of LN2(Y)", block_mlp_reads_X),
    Mistake("transformer_block", "ignores causal=False and always masks", block_always_causal),
    Mistake("transformer_block", "forgets the bias b1", block_forgets_b1),
    Mistake("transformer_block", "the MLP reads the attention output instead of the residual stream Y",
            block_mlp_on_attention_output),
    Mistake("transformer_block", "ignores n_heads and runs a single head", block_one_head),
    Mistake("transformer_block", "adds the attention residual into X in place, changing the caller's array",
            block_residual_in_place),
    Mistake("transformer_block", "applies an extra layer norm to the block's output", block_final_layer_norm),
    # next_token_logits
    Mistake("next_token_logits", "uses the first row of H instead of the last", logits_first_row),
    Mistake("next_token_logits", "returns the logits of every row, (n, vocab)", logits_every_row),
    Mistake("next_token_logits", "applies a softmax: returns probabilities, not raw logits", logits_softmaxed),
    Mistake("next_token_logits", "averages the rows of H before projecting", logits_mean_of_rows),
    Mistake("next_token_logits", "column-vector form W_vocab @ h", logits_column_vector),
    Mistake("next_token_logits", "off by one: uses the second-to-last row", logits_second_to_last_row),
    Mistake("next_token_logits", "sums the logits of all rows", logits_sum_of_rows),
    Mistake("next_token_logits", "slices H[-1:] and returns shape (1, vocab)", logits_keeps_row_axis),
    # softmax_backward
    Mistake("softmax_backward", "returns A * dA, forgetting the subtracted weighted sum", softmax_backward_elementwise),
    Mistake("softmax_backward", "uses only the Jacobian diagonal: A (1 - A) dA", softmax_backward_diagonal_only),
    Mistake("softmax_backward", "sums dA * A over axis 0 instead of the last axis", softmax_backward_sums_axis_zero),
    Mistake("softmax_backward", "sums over the last axis without keepdims, so it broadcasts the wrong way",
            softmax_backward_sum_without_keepdims),
    Mistake("softmax_backward", "forgets the outer factor A: returns dA - sum(dA * A)",
            softmax_backward_forgets_outer_A),
    Mistake("softmax_backward", "computes in float32: cancellation when dA has a large common offset",
            softmax_backward_float32),
    Mistake("softmax_backward", "loops over the first axis with a per-row Jacobian: only works for 2-D inputs",
            softmax_backward_two_dimensional_only),
    Mistake("softmax_backward", "sums dA * A over the whole array instead of each row",
            softmax_backward_sums_everything),
    Mistake("softmax_backward", "sign flipped: A (sum - dA)", softmax_backward_sign_flipped),
    Mistake("softmax_backward", "subtracts the plain sum of dA instead of the A-weighted sum",
            softmax_backward_unweighted_sum),
    # cross_attention
    Mistake("cross_attention", "applies a causal mask although cross-attention has none", cross_attention_causal),
    Mistake("cross_attention", "queries from Z and keys, values from X (roles swapped)", cross_attention_roles_swapped),
    Mistake("cross_attention", "never divides by sqrt(d_head)", cross_attention_unscaled),
    Mistake("cross_attention", "softmax without max subtraction: NaN for huge scores", cross_attention_no_max),
    Mistake("cross_attention", "scales by sqrt(d_model) instead of sqrt(d_head)", cross_attention_scales_by_d_model),
    Mistake("cross_attention", "values projected from X instead of Z", cross_attention_values_from_X),
    Mistake("cross_attention", "returns the weights instead of the output", cross_attention_returns_weights),
    Mistake("cross_attention", "softmax along axis 0 (over queries) instead of over keys",
            cross_attention_softmax_over_queries),
    Mistake("cross_attention", "keys projected from X instead of Z", cross_attention_keys_from_X),
    # attend_step
    Mistake("attend_step", "never divides the scores by sqrt(d)", attend_step_unscaled),
    Mistake("attend_step", "drops the newest cache row, thinking the cache holds only the past",
            attend_step_drops_newest_row),
    Mistake("attend_step", "softmax without max subtraction: NaN for huge scores", attend_step_no_max),
    Mistake("attend_step", "returns the weights instead of the weighted values", attend_step_returns_weights),
    Mistake("attend_step", "divides the scores by d instead of sqrt(d)", attend_step_divides_by_d),
    Mistake("attend_step", "divides the scores by sqrt(t), the cache length, instead of sqrt(d)",
            attend_step_scales_by_t),
    Mistake("attend_step", "skips attention and returns the newest value row", attend_step_newest_value_only),
    Mistake("attend_step", "forgets to normalise the exponentials (no division by their sum)",
            attend_step_unnormalised),
    Mistake("attend_step", "divides q by sqrt(d) in place, changing the caller's array", attend_step_scales_q_in_place),
    # cache_step
    Mistake("cache_step", "attends over the old caches, before appending the new row", cache_step_attends_old_cache),
    Mistake("cache_step", "puts the new row first instead of last", cache_step_prepends),
    Mistake("cache_step", "returns the old caches instead of the grown ones", cache_step_returns_old_caches),
    Mistake("cache_step", "appends k to both caches (V gets the key)", cache_step_appends_k_to_both),
    Mistake("cache_step", "divides q by sqrt(d) in place, changing the caller's array", cache_step_scales_q_in_place),
    Mistake("cache_step", "np.append without axis flattens the caches", cache_step_append_flattens),
    Mistake("cache_step", "overwrites the last cache row in place instead of appending a new one",
            cache_step_overwrites_last_row),
    Mistake("cache_step", "returns (K_new, V_new, o) instead of (o, K_new, V_new)", cache_step_wrong_return_order),
    Mistake("cache_step", "never divides the scores by sqrt(d)", cache_step_unscaled),
    Mistake("cache_step", "drops the oldest row when appending (a sliding window)", cache_step_drops_oldest_row),
    Mistake("cache_step", "returns only o, not the grown caches", cache_step_returns_only_output),
    Mistake("cache_step", "typo: the new key k is used as the query", cache_step_key_as_query),
    # kv_cache_bytes
    Mistake("kv_cache_bytes", "forgets the factor 2 for keys and values", kv_bytes_no_factor_two),
    Mistake("kv_cache_bytes", "ignores n_heads", kv_bytes_ignores_heads),
    Mistake("kv_cache_bytes", "ignores n_layers", kv_bytes_ignores_layers),
    Mistake("kv_cache_bytes", "multiplies in int32, which overflows for large models", kv_bytes_int32),
    Mistake("kv_cache_bytes", "returns a float (2.0 * ...) instead of an int", kv_bytes_float),
    Mistake("kv_cache_bytes", "ignores batch", kv_bytes_ignores_batch),
    Mistake("kv_cache_bytes", "multiplies by 8: counts bits, not bytes", kv_bytes_counts_bits),
    Mistake("kv_cache_bytes", "hard-codes 2 bytes per value, ignoring bytes_per_value", kv_bytes_hardcodes_two_bytes),
    Mistake("kv_cache_bytes", "counts keys and values twice (factor 4 instead of 2)", kv_bytes_double_counts_kv),
]


# ============================================================================
# Right answers written differently: the checks must pass every one of these.

def project_einsum(x, W):
    return np.einsum("i,io->o", x, W)


def project_column_form(x, W):
    return W.T @ x


def project_rows_loop(X, W):
    return np.array([x @ W for x in X])


def project_rows_einsum(X, W):
    return np.einsum("ni,io->no", X, W)


def values_stacked(tokens, table, Wv):
    return np.stack([table[w] for w in tokens]) @ Wv


def values_column_form(tokens, table, Wv):
    X = np.column_stack([table[w] for w in tokens])  # (d_model, n)
    return (Wv.T @ X).T


def ucw_loop(n):
    A = np.zeros((n, n))
    for i in range(n):
        A[i, :i + 1] = 1 / (i + 1)
    return A


def causal_average_loop(V):
    return np.array([V[:i + 1].mean(axis=0) for i in range(V.shape[0])])


def similarity_dot(Q, K):
    return np.dot(Q, K.T)


def similarity_einsum(Q, K):
    return np.einsum("id,jd->ij", Q, K)


def causal_mask_triu_full(n):
    return np.triu(np.full((n, n), -np.inf), k=1)


def causal_mask_where(n):
    i, j = np.indices((n, n))
    return np.where(j > i, -np.inf, 0.0)


def softmax_logsumexp(S, axis=-1):
    m = S.max(axis=axis, keepdims=True)
    return np.exp(S - m - np.log(np.exp(S - m).sum(axis=axis, keepdims=True)))


def softmax_moveaxis(S, axis=-1):
    T = np.moveaxis(S, axis, -1)
    E = np.exp(T - T.max(axis=-1, keepdims=True))
    return np.moveaxis(E / E.sum(axis=-1, keepdims=True), -1, axis)


def attention_weights_large_negative_mask(Q, K, causal=True, scale=True):
    n_q, n_k = Q.shape[0], K.shape[0]
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(Q.shape[1])
    if causal:
        S = np.where(np.triu(np.ones((n_q, n_k)), k=n_k - n_q + 1) == 1, -1e9, S)
    return _softmax(S)


def attention_weights_row_loop(Q, K, causal=True, scale=True):
    n_q, n_k = Q.shape[0], K.shape[0]
    A = np.zeros((n_q, n_k))
    for i in range(n_q):
        seen = n_k - n_q + i + 1 if causal else n_k
        s = K[:seen] @ Q[i]
        if scale:
            s = s / np.sqrt(Q.shape[1])
        A[i, :seen] = _softmax(s)
    return A


def attention_normalise_after_product(Q, K, V, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(Q.shape[1])
    if causal:
        S = S + _future(Q.shape[0], K.shape[0])
    E = np.exp(S - S.max(axis=1, keepdims=True))
    return (E @ V) / E.sum(axis=1, keepdims=True)


def self_attention_Wo_on_values(X, Wq, Wk, Wv, Wo=None, causal=True):
    V = X @ Wv if Wo is None else X @ Wv @ Wo
    return _attend(X @ Wq, X @ Wk, V, causal)


def mha_sum_of_projected_heads(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    d_head = Wq.shape[1] // n_heads
    out = np.zeros((X.shape[0], Wo.shape[1]))
    for h in range(n_heads):
        cols = slice(h * d_head, (h + 1) * d_head)
        out += _attend(X @ Wq[:, cols], X @ Wk[:, cols], X @ Wv[:, cols], causal) @ Wo[cols]
    return out


def mha_batched_heads(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    n = X.shape[0]
    Q, K, V = [(X @ W).reshape(n, n_heads, -1).transpose(1, 0, 2) for W in (Wq, Wk, Wv)]
    S = Q @ K.transpose(0, 2, 1) / np.sqrt(Q.shape[2])  # (n_heads, n, n)
    if causal:
        S = S + _future(n, n)
    O = _softmax(S) @ V  # (n_heads, n, d_head)
    return O.transpose(1, 0, 2).reshape(n, -1) @ Wo


def layer_norm_std(X, g, b, eps=1e-5):
    centred = X - X.mean(axis=1, keepdims=True)
    return g * centred / np.sqrt((centred ** 2).mean(axis=1, keepdims=True) + eps) + b


def gelu_power(X):
    c = math.sqrt(2 / math.pi)
    return X * 0.5 * (1.0 + np.tanh(c * (X + 0.044715 * np.power(X, 3))))


def block_named_hidden_layer(X, p, n_heads, causal=True):
    H = _layer_norm(X, p["ln1_g"], p["ln1_b"])
    Y = X + _mha(H, p["Wq"], p["Wk"], p["Wv"], p["Wo"], n_heads, causal)
    H = _layer_norm(Y, p["ln2_g"], p["ln2_b"])
    hidden = _gelu(H @ p["W1"] + p["b1"])  # (n, 4 d_model)
    return Y + hidden @ p["W2"] + p["b2"]


def logits_all_rows_then_last(H, W_vocab):
    return (H @ W_vocab)[-1]


def softmax_backward_jacobian(A, dA):
    flat_A = A.reshape(-1, A.shape[-1])
    flat_dA = dA.reshape(-1, A.shape[-1])
    dS = np.empty_like(flat_A)
    for r in range(flat_A.shape[0]):
        a = flat_A[r]
        dS[r] = (np.diag(a) - np.outer(a, a)) @ flat_dA[r]
    return dS.reshape(A.shape)


def cross_attention_scaled_queries(X, Z, Wq, Wk, Wv):
    Q = X @ Wq / np.sqrt(Wq.shape[1])
    return _softmax(Q @ (Z @ Wk).T) @ (Z @ Wv)


def attend_step_transposed_products(q, K_cache, V_cache):
    s = q @ K_cache.T / math.sqrt(len(q))
    return V_cache.T @ _softmax(s)


def cache_step_concatenate(q, k, v, K_cache, V_cache):
    K_new = np.concatenate([K_cache, k[None, :]], axis=0)
    V_new = np.concatenate([V_cache, v[None, :]], axis=0)
    return _step(q, K_new, V_new), K_new, V_new


def kv_bytes_math_prod(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return 2 * math.prod([n_layers, n_heads, d_head, seq_len, batch, bytes_per_value])


def kv_bytes_per_token(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    per_token = 2 * n_layers * n_heads * d_head * bytes_per_value
    return int(per_token * seq_len * batch)


ACCEPTABLE = [
    Mistake("project", "einsum instead of @", project_einsum),
    Mistake("project", "column-vector form W^T x", project_column_form),
    Mistake("project_rows", "a loop over the rows", project_rows_loop),
    Mistake("project_rows", "einsum instead of @", project_rows_einsum),
    Mistake("values", "np.stack of the rows, then @ Wv", values_stacked),
    Mistake("values", "column-vector form (Wv^T X^T)^T", values_column_form),
    Mistake("uniform_causal_weights", "fills each row in a loop", ucw_loop),
    Mistake("causal_average", "a loop of prefix means", causal_average_loop),
    Mistake("similarity", "np.dot(Q, K.T)", similarity_dot),
    Mistake("similarity", "einsum", similarity_einsum),
    Mistake("causal_mask", "np.triu of a -inf matrix with k=1", causal_mask_triu_full),
    Mistake("causal_mask", "np.where on index grids", causal_mask_where),
    Mistake("softmax", "exp of S minus its log-sum-exp", softmax_logsumexp),
    Mistake("softmax", "moves the axis last, normalises, moves it back", softmax_moveaxis),
    Mistake("attention_weights", "a -1e9 mask instead of -inf", attention_weights_large_negative_mask),
    Mistake("attention_weights", "a loop over query rows, each seeing its visible keys", attention_weights_row_loop),
    Mistake("attention", "normalises after the product: (E V) / row sums", attention_normalise_after_product),
    Mistake("self_attention", "applies Wo to V before mixing (A (V Wo) = (A V) Wo)", self_attention_Wo_on_values),
    Mistake("multi_head_attention", "sums each head's output times its rows of Wo", mha_sum_of_projected_heads),
    Mistake("multi_head_attention", "all heads at once with reshape and transpose", mha_batched_heads),
    Mistake("layer_norm", "centres first, then the mean of squares", layer_norm_std),
    Mistake("gelu", "np.power and math constants", gelu_power),
    Mistake("transformer_block", "the block written out with a named hidden layer", block_named_hidden_layer),
    Mistake("next_token_logits", "logits of every row, then the last one", logits_all_rows_then_last),
    Mistake("softmax_backward", "explicit Jacobian per row, any leading shape", softmax_backward_jacobian),
    Mistake("cross_attention", "scales Q before the product", cross_attention_scaled_queries),
    Mistake("attend_step", "q K^T and V^T a", attend_step_transposed_products),
    Mistake("cache_step", "np.concatenate with an explicit row axis", cache_step_concatenate),
    Mistake("kv_cache_bytes", "math.prod of the sizes", kv_bytes_math_prod),
    Mistake("kv_cache_bytes", "bytes per token times tokens", kv_bytes_per_token),
]
