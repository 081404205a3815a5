"""Blind set 5: realistic learner mistakes for every graded exercise of "Rediscovering Attention".

Covered: all 51 check names of exercises/01_*.ipynb .. 18_*.ipynb plus the capstone (19): 275 mistakes and 52
acceptable right answers written differently (one per check name). Written only from the exercise texts, the
lessons, the README and attnlib's maths modules; the grader, tests, solutions and workspace were never opened,
and the grader was never run on these entries.

Habits imitated: the functional programmer (reduce/map/zip truncation, comprehensions), the statistics student
(ddof=1, log base 2, normalised entropy, cosine similarity), the C programmer (off-by-one loop bounds, integer
buffers, integer division, inclusive slice ends, ring buffers), the TensorFlow user (1/0 masks, -1e9, keepdims
forgotten, last-axis defaults, 0 instead of -inf), the einsum enthusiast (a summed index that should stay), the
copy-paster (causal flag dropped, ln1 reused, default theta), the physicist (sqrt of the wrong dimension,
0.04715, sqrt(pi/2), exact erf), misreading (return order, first vs last row, 1-based positions/heads, top-left
vs last-positions mask), in-place edits of inputs, and numerical traps (overflow without max shift, log of an
underflowed probability, 0*log 0, 0*inf, int32 overflow, float rounding of huge counts).

Verification (script kept outside this file): for every check name a reference (attnlib's public function where
one exists, else written from the text), targeted inputs (sizes 1, n_q < n_k, ties, exact running totals,
u just under 1, logits ~1e4 and ~1e300, t = 0 caches, full windows with sinks, huge memories) plus 100 random
inputs. Every mistake differs from the reference on at least one input by more than 1e-6 relative, in shape,
dtype/type, by raising, by modifying an input or returning a view of one; generate also compares the number of
cache_step calls and is probed with a softer cache_step; tiled_attention__score_strip is correct in value and
is verified by tracemalloc (about 6 MB peak against the 512 kB limit; the others stay near 170 kB). Every
acceptable variant (and every helper below) matches to 1e-10 relative on all inputs without modifying them.
Signatures match the stubs. Capstone dicts hold all 18 names of attnlib.learner_ops.NAMES; the one wrong op is
a verified mistake of its exercise, the others verified correct; the dicts also run in TinyLM(ops=...).

Counts (mistakes/acceptable): project 5/1, compose 5/1, project_rows 5/1, matmul_cost 5/1, values 5/1,
one_hot 5/1, uniform_causal_weights 5/1, causal_average 5/1, similarity 5/1, learned_scores 5/1, causal_mask 5/1,
softmax 5/1, score_scale 5/1, attention_weights 5/1, attention 5/1, self_attention 5/1, future_leak 5/1,
tiled_attention 6/1, embed 5/1, sinusoidal_positions 6/1, split_heads 5/1, multi_head_attention 5/1,
layer_norm 5/1, gelu 5/1, transformer_block 5/1, next_token_logits 5/1, cross_entropy 6/1, softmax_backward 5/1,
attention_backward 5/1, layer_norm_backward 5/1, most_attended 5/1, attention_entropy 5/1, padding_mask 5/1,
cross_attention 5/1, attend_step 5/1, cache_step 5/1, sample_next 6/1, top_k_filter 6/1, top_p_filter 6/1,
generate 6/1, kv_cache_bytes 5/1, max_cached_tokens 5/1, previous_token_score 5/1, prefix_matching_score 5/1,
ablate_head 5/1, rope 6/1, rope_attention 6/1, grouped_query_attention 5/1, grouped_cache_step 5/1,
sliding_window_mask 5/1, rolling_cache_step 5/1, capstone 11/1.

Notes: a few mistakes are invisible in capstone training alone and only show in their own check (softmax when
attention computes its own, cross_entropy's gradient scale under Adam, grouped_cache_step round robin with
n_kv_heads = 1); the capstone text says it runs each function's own check first.
"""
from dataclasses import dataclass
from functools import reduce
from typing import Callable
import math

import numpy as np

from attnlib import multi_head_attention  # exercise 10's block uses the given multi_head_attention


@dataclass(frozen=True)
class Mistake:
    exercise: str  # the exercise's check name, e.g. "causal_mask"
    what: str      # one precise plain-English line naming the mistake, as an ideal grader would
    fn: Callable   # the learner's function, with the exercise's exact signature (for the capstone: the dict of ops)


# ============================================================================
# helpers: the learner's own correct earlier functions
# ============================================================================

def _softmax(S, axis=-1):
    S = np.asarray(S, dtype=float)
    m = np.max(S, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    E = np.exp(S - m)
    return E / E.sum(axis=axis, keepdims=True)


def _future(n_q, n_k):
    """True where query i (at position n_k - n_q + i) would see a future key."""
    return np.arange(n_k)[None, :] > (n_k - n_q + np.arange(n_q))[:, None]


def _attention_weights(Q, K, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(Q.shape[1])
    if causal:
        S = np.where(_future(Q.shape[0], K.shape[0]), -np.inf, S)
    return _softmax(S, axis=-1)


def _attention(Q, K, V, causal=True, scale=True):
    return _attention_weights(Q, K, causal, scale) @ V


def _attend(Q, K, V, causal=True):
    """The helper the notebooks give (exercises 09 and 17)."""
    S = Q @ K.T / np.sqrt(Q.shape[1])
    if causal:
        S = S + np.triu(np.full(S.shape, -np.inf), k=1)
    E = np.exp(S - S.max(axis=1, keepdims=True))
    return (E / E.sum(axis=1, keepdims=True)) @ V


def _split_heads(M, n_heads):
    n, d_model = M.shape
    d_head = d_model // n_heads
    return np.stack([M[:, h * d_head:(h + 1) * d_head] for h in range(n_heads)])


def _multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    Qh, Kh, Vh = _split_heads(X @ Wq, n_heads), _split_heads(X @ Wk, n_heads), _split_heads(X @ Wv, n_heads)
    heads = [_attend(Qh[h], Kh[h], Vh[h], causal) for h in range(n_heads)]
    return np.concatenate(heads, axis=1) @ Wo


def _embed(tokens, tok_emb, pos_emb):
    return tok_emb[tokens] + pos_emb[:len(tokens)]


def _layer_norm(X, g, b, eps=1e-5):
    mu = X.mean(axis=1, keepdims=True)
    var = ((X - mu) ** 2).mean(axis=1, keepdims=True)
    return (X - mu) / np.sqrt(var + eps) * g + b


def _gelu(X):
    return 0.5 * X * (1 + np.tanh(np.sqrt(2 / np.pi) * (X + 0.044715 * X ** 3)))


def _transformer_block(X, p, n_heads, causal=True):
    Y = X + multi_head_attention(_layer_norm(X, p["ln1_g"], p["ln1_b"]), p["Wq"], p["Wk"], p["Wv"], p["Wo"],
                                 n_heads, causal)
    return Y + _gelu(_layer_norm(Y, p["ln2_g"], p["ln2_b"]) @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"]


def _next_token_logits(H, W_vocab):
    return H[-1] @ W_vocab


def _cross_entropy(logits, targets):
    n = logits.shape[0]
    m = logits.max(axis=1, keepdims=True)
    logp = logits - m - np.log(np.exp(logits - m).sum(axis=1, keepdims=True))
    loss = -logp[np.arange(n), targets].mean()
    d = np.exp(logp)
    d[np.arange(n), targets] -= 1.0
    return loss, d / n


def _softmax_backward(A, dA):
    return A * (dA - (A * dA).sum(axis=-1, keepdims=True))


def _attention_backward(Q, K, V, dO, causal=True, scale=True):
    s = 1.0 / np.sqrt(Q.shape[1]) if scale else 1.0
    A = _attention_weights(Q, K, causal, scale)
    dA = dO @ V.T
    dS = _softmax_backward(A, dA) * s
    return dS @ K, dS.T @ Q, A.T @ dO


def _layer_norm_backward(X, g, dY, eps=1e-5):
    mu = X.mean(axis=1, keepdims=True)
    var = ((X - mu) ** 2).mean(axis=1, keepdims=True)
    inv = 1.0 / np.sqrt(var + eps)
    xhat = (X - mu) * inv
    dxhat = dY * g
    dX = inv * (dxhat - dxhat.mean(axis=1, keepdims=True) - xhat * (dxhat * xhat).mean(axis=1, keepdims=True))
    return dX, (dY * xhat).sum(axis=0), dY.sum(axis=0)


def _attend_step(q, K_cache, V_cache):
    s = K_cache @ q / np.sqrt(q.shape[0])
    a = np.exp(s - s.max())
    return (a / a.sum()) @ V_cache


def _cache_step(q, k, v, K_cache, V_cache):
    K_new = np.vstack([K_cache, k[None, :]])
    V_new = np.vstack([V_cache, v[None, :]])
    return _attend_step(q, K_new, V_new), K_new, V_new


def _sample_next(logits, temperature, u):
    logits = np.asarray(logits, dtype=float)
    if temperature == 0:
        return int(np.argmax(logits))
    p = _softmax(logits / temperature)
    c = np.cumsum(p)
    c = c / c[-1]
    return int(min(np.searchsorted(c, u, side="right"), len(c) - 1))


def _rope(X, positions, theta=10000.0):
    n, d = X.shape
    freq = theta ** (-2.0 * np.arange(d // 2) / d)
    a = np.asarray(positions, dtype=float)[:, None] * freq[None, :]
    x, y = X[:, 0::2], X[:, 1::2]
    out = np.empty((n, d))
    out[:, 0::2] = x * np.cos(a) - y * np.sin(a)
    out[:, 1::2] = x * np.sin(a) + y * np.cos(a)
    return out


def _grouped_query_attention(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    d_head = Wq.shape[1] // n_heads
    r = n_heads // n_kv_heads
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    outs = []
    for h in range(n_heads):
        g = h // r
        sl = slice(g * d_head, (g + 1) * d_head)
        outs.append(_attend(Q[:, h * d_head:(h + 1) * d_head], K[:, sl], V[:, sl], causal))
    return np.concatenate(outs, axis=1) @ Wo


def _grouped_cache_step(q, k, v, K_cache, V_cache):
    n_heads, d_head = q.shape
    n_kv = k.shape[0]
    K_new = np.concatenate([K_cache, k[:, None, :]], axis=1)
    V_new = np.concatenate([V_cache, v[:, None, :]], axis=1)
    r = n_heads // n_kv
    o = np.stack([_attend_step(q[h], K_new[h // r], V_new[h // r]) for h in range(n_heads)])
    return o, K_new, V_new


def _rolling_cache_step(q, k, v, K_cache, V_cache, window, n_sinks=0):
    K = np.vstack([K_cache, k[None, :]])
    V = np.vstack([V_cache, v[None, :]])
    if len(K) > window:
        keep = np.r_[np.arange(n_sinks), np.arange(len(K) - (window - n_sinks), len(K))]
        K, V = K[keep], V[keep]
    return _attend_step(q, K, V), K, V


CORRECT_OPS = {
    "softmax": _softmax, "attention": _attention, "embed": _embed, "multi_head_attention": _multi_head_attention,
    "layer_norm": _layer_norm, "gelu": _gelu, "transformer_block": _transformer_block,
    "next_token_logits": _next_token_logits, "cross_entropy": _cross_entropy, "softmax_backward": _softmax_backward,
    "attention_backward": _attention_backward, "layer_norm_backward": _layer_norm_backward,
    "cache_step": _cache_step, "sample_next": _sample_next, "rope": _rope,
    "grouped_query_attention": _grouped_query_attention, "grouped_cache_step": _grouped_cache_step,
    "rolling_cache_step": _rolling_cache_step,
}


# ============================================================================
# 01 project, compose
# ============================================================================

def project__w_times_x(x, W):
    return W @ x  # textbook x' = Wx with column vectors


def project__sum_wrong_axis(x, W):
    return (x[:, None] * W).sum(axis=1)


def project__loop_skips_last(x, W):
    d_in, d_out = W.shape
    out = np.zeros(d_out)
    for j in range(d_out):
        for i in range(d_in - 1):
            out[j] += x[i] * W[i, j]
    return out


def project__int_buffer(x, W):
    out = np.zeros(W.shape[1], dtype=int)
    for j in range(W.shape[1]):
        out[j] = np.dot(x, W[:, j])
    return out


def project__w_transposed(x, W):
    return x @ W.T


def project_ok_einsum(x, W):
    return np.einsum("i,ij->j", x, W)


def compose__reversed(W1, W2):
    return W2 @ W1


def compose__elementwise(W1, W2):
    return W1 * W2


def compose__einsum_wrong_letters(W1, W2):
    return np.einsum("ij,kj->ik", W1, W2)


def compose__inplace_out(W1, W2):
    if W1.shape[1] == W2.shape[1]:
        return np.matmul(W1, W2, out=W1)  # reuse W1's memory for the result
    return W1 @ W2


def compose__added(W1, W2):
    return W1 + W2


def compose_ok_rows(W1, W2):
    return np.array([reduce(lambda acc, j: acc + W1[i, j] * W2[j], range(W1.shape[1]), np.zeros(W2.shape[1]))
                     for i in range(W1.shape[0])])


# ============================================================================
# 02 project_rows, matmul_cost
# ============================================================================

def project_rows__loop_off_by_one(X, W):
    out = np.zeros((X.shape[0], W.shape[1]))
    for i in range(X.shape[0] - 1):
        out[i] = X[i] @ W
    return out


def project_rows__int_buffer(X, W):
    out = np.zeros((X.shape[0], W.shape[1]), dtype=np.int64)
    for i in range(X.shape[0]):
        out[i] = X[i] @ W
    return out


def project_rows__transposed_result(X, W):
    return W.T @ X.T


def project_rows__sums_output_axis(X, W):
    return (X[:, :, None] * W[None, :, :]).sum(axis=2)


def project_rows__einsum_drops_row_index(X, W):
    return np.einsum("ij,jk->k", X, W)


def project_rows_ok_map(X, W):
    return np.array(list(map(lambda row: np.einsum("i,ij->j", row, W), X))).reshape(X.shape[0], W.shape[1])


def matmul_cost__float(n, d_in, d_out):
    return float(n) * d_in * d_out


def matmul_cost__int32(n, d_in, d_out):
    return int(np.prod(np.array([n, d_in, d_out], dtype=np.int32), dtype=np.int32))


def matmul_cost__counts_adds(n, d_in, d_out):
    return n * d_out * (2 * d_in - 1)


def matmul_cost__entries_only(n, d_in, d_out):
    return n * d_out


def matmul_cost__via_logs(n, d_in, d_out):
    return int(round(10 ** (math.log10(n) + math.log10(d_in) + math.log10(d_out))))


def matmul_cost_ok_prod(n, d_in, d_out):
    return math.prod((int(n), int(d_in), int(d_out)))


# ============================================================================
# 03 values, one_hot
# ============================================================================

def values__unique_words(tokens, table, Wv):
    X = np.array([table[w] for w in sorted(set(tokens))])
    return X @ Wv


def values__whole_table(tokens, table, Wv):
    return np.array(list(table.values())) @ Wv


def values__transposed(tokens, table, Wv):
    X = np.array([table[w] for w in tokens])
    return Wv.T @ X.T


def values__zip_truncates(tokens, table, Wv):
    X = np.array([table[w] for w, _ in zip(tokens, table)])
    return X @ Wv


def values__loop_from_one(tokens, table, Wv):
    X = np.zeros((len(tokens), Wv.shape[0]))
    for i in range(1, len(tokens)):
        X[i] = table[tokens[i]]
    return X @ Wv


def values_ok_einsum(tokens, table, Wv):
    return np.einsum("nd,dv->nv", np.stack([np.asarray(table[w], dtype=float) for w in tokens]), Wv)


def one_hot__int_dtype(ids, vocab_size):
    M = np.zeros((len(ids), vocab_size), dtype=int)
    M[np.arange(len(ids)), ids] = 1
    return M


def one_hot__one_based(ids, vocab_size):
    return np.eye(vocab_size)[ids - 1]


def one_hot__width_from_ids(ids, vocab_size):
    return np.eye(ids.max() + 1)[ids]


def one_hot__transposed(ids, vocab_size):
    return np.eye(vocab_size)[:, ids]


def one_hot__sorts_ids(ids, vocab_size):
    ids.sort()
    return np.eye(vocab_size)[ids]


def one_hot_ok_compare(ids, vocab_size):
    return (np.asarray(ids)[:, None] == np.arange(vocab_size)[None, :]).astype(float)


# ============================================================================
# 04 uniform_causal_weights, causal_average
# ============================================================================

def uniform_causal_weights__divides_columns(n):
    return np.tril(np.ones((n, n))) / np.arange(1, n + 1)[None, :]


def uniform_causal_weights__upper(n):
    return np.triu(np.ones((n, n))) / np.arange(n, 0, -1)[:, None]


def uniform_causal_weights__no_diagonal(n):
    return np.tril(np.ones((n, n)), k=-1) / np.maximum(np.arange(n), 1)[:, None]


def uniform_causal_weights__over_n(n):
    return np.tril(np.ones((n, n))) / n


def uniform_causal_weights__int_division(n):
    return np.tril(np.ones((n, n), dtype=int)) // np.arange(1, n + 1)[:, None]


def uniform_causal_weights_ok_rownorm(n):
    A = np.tril(np.ones((n, n)))
    return A / A.sum(axis=1, keepdims=True)


def causal_average__cumsum_last_axis(V):
    return np.cumsum(V, axis=-1) / np.arange(1, V.shape[0] + 1)[:, None]


def causal_average__over_n(V):
    return np.cumsum(V, axis=0) / V.shape[0]


def causal_average__count_is_index(V):
    return np.cumsum(V, axis=0) / np.maximum(np.arange(V.shape[0]), 1)[:, None]


def causal_average__global_mean(V):
    return np.tile(V.mean(axis=0), (V.shape[0], 1))


def causal_average__inplace(V):
    np.cumsum(V, axis=0, out=V)
    V /= np.arange(1, V.shape[0] + 1)[:, None]
    return V


def causal_average_ok_loop(V):
    return np.array([V[:i + 1].mean(axis=0) for i in range(V.shape[0])])


# ============================================================================
# 05 similarity, learned_scores
# ============================================================================

def similarity__keys_first(Q, K):
    return K @ Q.T


def similarity__scaled(Q, K):
    return Q @ K.T / np.sqrt(Q.shape[1])


def similarity__cosine(Q, K):
    return (Q / np.linalg.norm(Q, axis=1, keepdims=True)) @ (K / np.linalg.norm(K, axis=1, keepdims=True)).T


def similarity__einsum_sums_keys(Q, K):
    return np.einsum("id,jd->i", Q, K)


def similarity__paired_rows(Q, K):
    return np.array([np.dot(q, k) for q, k in zip(Q, K)])


def similarity_ok_einsum(Q, K):
    return np.einsum("qd,kd->qk", Q, K)


def learned_scores__swapped(X, Wq, Wk):
    return (X @ Wk) @ (X @ Wq).T


def learned_scores__scaled(X, Wq, Wk):
    return (X @ Wq) @ (X @ Wk).T / np.sqrt(Wq.shape[1])


def learned_scores__wq_twice(X, Wq, Wk):
    Q = X @ Wq
    return Q @ Q.T


def learned_scores__missing_xt(X, Wq, Wk):
    return X @ Wq @ Wk.T


def learned_scores__masked(X, Wq, Wk):
    S = (X @ Wq) @ (X @ Wk).T
    return S + np.triu(np.full(S.shape, -np.inf), k=1)


def learned_scores_ok_bilinear(X, Wq, Wk):
    return X @ (Wq @ Wk.T) @ X.T


# ============================================================================
# 06 causal_mask, softmax, score_scale, attention_weights
# ============================================================================

def causal_mask__hides_diagonal(n):
    return np.triu(np.full((n, n), -np.inf), k=0)


def causal_mask__ones_and_zeros(n):
    return np.tril(np.ones((n, n)))


def causal_mask__minus_1e9(n):
    return np.triu(np.full((n, n), -1e9), k=1)


def causal_mask__lower_triangle(n):
    return np.tril(np.full((n, n), -np.inf), k=-1)


def causal_mask__zero_times_inf(n):
    return np.triu(np.ones((n, n)), k=1) * -np.inf


def causal_mask_ok_where(n):
    i, j = np.indices((n, n))
    return np.where(j > i, -np.inf, 0.0)


def softmax__no_max_shift(S, axis=-1):
    E = np.exp(S)
    return E / E.sum(axis=axis, keepdims=True)


def softmax__global_max(S, axis=-1):
    E = np.exp(S - np.max(S))
    return E / E.sum(axis=axis, keepdims=True)


def softmax__keepdims_forgotten(S, axis=-1):
    E = np.exp(S - S.max(axis=axis, keepdims=True))
    return E / E.sum(axis=axis)


def softmax__ignores_axis(S, axis=-1):
    E = np.exp(S - S.max(axis=-1, keepdims=True))
    return E / E.sum(axis=-1, keepdims=True)


def softmax__base_two(S, axis=-1):
    E = 2.0 ** (S - S.max(axis=axis, keepdims=True))
    return E / E.sum(axis=axis, keepdims=True)


def softmax_ok_logsumexp(S, axis=-1):
    S = np.asarray(S, dtype=float)
    m = np.max(S, axis=axis, keepdims=True)
    lse = m + np.log(np.sum(np.exp(S - m), axis=axis, keepdims=True))
    return np.exp(S - lse)


def score_scale__one_over_d(d):
    return 1.0 / d


def score_scale__sqrt_d(d):
    return math.sqrt(d)


def score_scale__precedence(d):
    return d ** -1 / 2


def score_scale__ddof(d):
    return 1.0 / math.sqrt(d - 1)


def score_scale__integer_division(d):
    return 1 // math.sqrt(d)


def score_scale_ok_power(d):
    return float(d) ** -0.5


def attention_weights__mask_top_left(Q, K, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(Q.shape[1])
    if causal:
        S = S + np.triu(np.full(S.shape, -np.inf), k=1)
    return _softmax(S)


def attention_weights__sqrt_n_keys(Q, K, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(K.shape[0])
    if causal:
        S = np.where(_future(Q.shape[0], K.shape[0]), -np.inf, S)
    return _softmax(S)


def attention_weights__always_scaled(Q, K, causal=True, scale=True):
    S = Q @ K.T / np.sqrt(Q.shape[1])
    if causal:
        S = np.where(_future(Q.shape[0], K.shape[0]), -np.inf, S)
    return _softmax(S)


def attention_weights__mask_after_softmax(Q, K, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(Q.shape[1])
    A = _softmax(S)
    if causal:
        A = A * ~_future(Q.shape[0], K.shape[0])
    return A


def attention_weights__softmax_columns(Q, K, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(Q.shape[1])
    if causal:
        S = np.where(_future(Q.shape[0], K.shape[0]), -np.inf, S)
    return _softmax(S, axis=0)


def attention_weights_ok_rows(Q, K, causal=True, scale=True):
    n_q, n_k = Q.shape[0], K.shape[0]
    c = 1.0 / math.sqrt(Q.shape[1]) if scale else 1.0
    A = np.zeros((n_q, n_k))
    for i in range(n_q):
        last = n_k - n_q + i if causal else n_k - 1
        s = np.array([Q[i] @ K[j] * c for j in range(last + 1)])
        e = np.exp(s - s.max())
        A[i, :last + 1] = e / e.sum()
    return A


# ============================================================================
# 07 attention, self_attention, future_leak, tiled_attention
# ============================================================================

def attention__mask_top_left(Q, K, V, causal=True, scale=True):
    return attention_weights__mask_top_left(Q, K, causal, scale) @ V


def attention__scale_by_dv(Q, K, V, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(V.shape[1])
    if causal:
        S = np.where(_future(Q.shape[0], K.shape[0]), -np.inf, S)
    return _softmax(S) @ V


def attention__weights_transposed(Q, K, V, causal=True, scale=True):
    return _attention_weights(Q, K, causal, scale).T @ V


def attention__always_causal(Q, K, V, causal=True, scale=True):
    return _attention_weights(Q, K, True, scale) @ V


def attention__adds_one_zero_mask(Q, K, V, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(Q.shape[1])
    if causal:
        S = S + (~_future(Q.shape[0], K.shape[0])).astype(float)  # 1 = keep, 0 = drop (tf style)
    return _softmax(S) @ V


def attention_ok_einsum(Q, K, V, causal=True, scale=True):
    S = np.einsum("qd,kd->qk", Q, K) * (Q.shape[1] ** -0.5 if scale else 1.0)
    if causal:
        S[_future(*S.shape)] = -np.inf
    return np.einsum("qk,kv->qv", _softmax(S, axis=1), V)


def self_attention__truthy_wo(X, Wq, Wk, Wv, Wo=None, causal=True):
    O = _attention(X @ Wq, X @ Wk, X @ Wv, causal)
    if Wo:
        O = O @ Wo
    return O


def self_attention__ignores_wo(X, Wq, Wk, Wv, Wo=None, causal=True):
    return _attention(X @ Wq, X @ Wk, X @ Wv, causal)


def self_attention__always_causal(X, Wq, Wk, Wv, Wo=None, causal=True):
    O = _attention(X @ Wq, X @ Wk, X @ Wv)
    return O if Wo is None else O @ Wo


def self_attention__sqrt_d_model(X, Wq, Wk, Wv, Wo=None, causal=True):
    S = (X @ Wq) @ (X @ Wk).T / np.sqrt(X.shape[1])
    if causal:
        S = S + np.triu(np.full(S.shape, -np.inf), k=1)
    O = _softmax(S) @ (X @ Wv)
    return O if Wo is None else O @ Wo


def self_attention__queries_from_wk(X, Wq, Wk, Wv, Wo=None, causal=True):
    O = _attention(X @ Wk, X @ Wq, X @ Wv, causal)
    return O if Wo is None else O @ Wo


def self_attention_ok_einsum(X, Wq, Wk, Wv, Wo=None, causal=True):
    Q, K, V = (np.einsum("nm,md->nd", X, W) for W in (Wq, Wk, Wv))
    O = attention_ok_einsum(Q, K, V, causal, True)
    return O if Wo is None else np.einsum("nv,vo->no", O, Wo)


def _leak_threshold(out):
    return 1e-9 * max(1.0, float(np.abs(out).max()))


def future_leak__counts_pairs(attn, X):
    base = attn(X)
    thr, count = _leak_threshold(base), 0
    for j in range(len(X)):
        moved = X.copy()
        moved[j] += 1.0
        change = np.abs(attn(moved) - base).max(axis=1)
        count += int(np.sum(change[:j] > thr))
    return count


def future_leak__exact_change(attn, X):
    base, worst = attn(X), 0
    for j in range(len(X)):
        moved = X.copy()
        moved[j] += 1.0
        rows = np.flatnonzero(np.abs(attn(moved) - base).max(axis=1) > 0)
        rows = rows[rows < j]
        if len(rows):
            worst = max(worst, int(j - rows.min()))
    return worst


def future_leak__off_by_one(attn, X):
    base, worst = attn(X), 0
    thr = _leak_threshold(base)
    for j in range(len(X)):
        moved = X.copy()
        moved[j] += 1.0
        rows = np.flatnonzero(np.abs(attn(moved) - base).max(axis=1) > thr)
        rows = rows[rows < j]
        if len(rows):
            worst = max(worst, int(j - rows.min()) + 1)
    return worst


def future_leak__next_row_only(attn, X):
    base = attn(X)
    thr = _leak_threshold(base)
    for i in range(len(X) - 1):
        moved = X.copy()
        moved[i + 1] += 1.0
        if np.abs(attn(moved)[i] - base[i]).max() > thr:
            return 1
    return 0


def future_leak__moves_x_in_place(attn, X):
    base, worst = attn(X), 0
    thr = _leak_threshold(base)
    for j in range(len(X)):
        X[j] += 1.0
        rows = np.flatnonzero(np.abs(attn(X) - base).max(axis=1) > thr)
        X[j] -= 1.0
        rows = rows[rows < j]
        if len(rows):
            worst = max(worst, int(j - rows.min()))
    return worst


def future_leak_ok_pairs(attn, X):
    base = np.asarray(attn(X.copy()))
    thr = _leak_threshold(base)
    leaks = [j - i for j in range(len(X)) for i in range(j)
             if np.abs(np.asarray(attn(X + (np.arange(len(X)) == j)[:, None] * 1.0))[i] - base[i]).max() > thr]
    return int(max(leaks, default=0))


def _tiled(Q, K, V, causal, block, rescale_sign=1, rescale=True, top_left=False, scale_dim=None,
           normalise_each_tile=False):
    n_q, n_k = Q.shape[0], K.shape[0]
    offset = 0 if top_left else n_k - n_q
    c = 1.0 / np.sqrt(Q.shape[1] if scale_dim is None else scale_dim)
    O = np.empty((n_q, V.shape[1]))
    for q0 in range(0, n_q, block):
        Qb = Q[q0:q0 + block] * c
        bq = Qb.shape[0]
        m = np.full((bq, 1), -np.inf)
        l = np.zeros((bq, 1))
        acc = np.zeros((bq, V.shape[1]))
        for k0 in range(0, n_k, block):
            S = Qb @ K[k0:k0 + block].T
            if causal:
                qpos = offset + q0 + np.arange(bq)[:, None]
                kpos = k0 + np.arange(S.shape[1])[None, :]
                S = np.where(kpos > qpos, -np.inf, S)
            m_new = np.maximum(m, S.max(axis=1, keepdims=True))
            safe = np.where(np.isfinite(m_new), m_new, 0.0)
            P = np.exp(S - safe)
            f = np.exp(rescale_sign * (np.where(np.isfinite(m), m, safe) - safe)) if rescale else 1.0
            if normalise_each_tile:
                ps = P.sum(axis=1, keepdims=True)
                acc = acc + (P / np.where(ps > 0, ps, 1.0)) @ V[k0:k0 + block]
                l = l + (ps > 0)
            else:
                l = l * f + P.sum(axis=1, keepdims=True)
                acc = acc * f + P @ V[k0:k0 + block]
            m = m_new
        O[q0:q0 + bq] = acc / l
    return O


def tiled_attention__no_rescale(Q, K, V, causal=True, block=64):
    return _tiled(Q, K, V, causal, block, rescale=False)


def tiled_attention__rescale_sign_flipped(Q, K, V, causal=True, block=64):
    return _tiled(Q, K, V, causal, block, rescale_sign=-1)


def tiled_attention__mask_top_left(Q, K, V, causal=True, block=64):
    return _tiled(Q, K, V, causal, block, top_left=True)


def tiled_attention__scale_by_dv(Q, K, V, causal=True, block=64):
    return _tiled(Q, K, V, causal, block, scale_dim=V.shape[1])


def tiled_attention__normalises_each_tile(Q, K, V, causal=True, block=64):
    return _tiled(Q, K, V, causal, block, normalise_each_tile=True)


def tiled_attention__score_strip(Q, K, V, causal=True, block=64):
    n_q, n_k = Q.shape[0], K.shape[0]
    O = np.empty((n_q, V.shape[1]))
    for q0 in range(0, n_q, block):
        S = Q[q0:q0 + block] @ K.T / np.sqrt(Q.shape[1])  # one strip against every key
        if causal:
            S = np.where(_future(n_q, n_k)[q0:q0 + block], -np.inf, S)
        O[q0:q0 + block] = _softmax(S) @ V
    return O


def tiled_attention_ok_logsumexp(Q, K, V, causal=True, block=64):
    n_q, n_k = Q.shape[0], K.shape[0]
    offset = n_k - n_q
    O = np.empty((n_q, V.shape[1]))
    for q0 in range(0, n_q, block):
        Qb = Q[q0:q0 + block] / math.sqrt(Q.shape[1])
        bq = Qb.shape[0]
        m = np.full((bq, 1), -np.inf)
        l = np.zeros((bq, 1))
        acc = np.zeros((bq, V.shape[1]))
        stop = min(n_k, offset + q0 + bq) if causal else n_k
        for k0 in range(0, stop, block):
            S = Qb @ K[k0:k0 + block].T
            if causal:
                S[(k0 + np.arange(S.shape[1]))[None, :] > (offset + q0 + np.arange(bq))[:, None]] = -np.inf
            m_new = np.maximum(m, S.max(axis=1, keepdims=True))
            P = np.exp(S - m_new)
            shrink = np.exp(m - m_new)
            l = shrink * l + P.sum(axis=1, keepdims=True)
            acc = shrink * acc + P @ V[k0:k0 + block]
            m = m_new
        O[q0:q0 + bq] = acc / l
    return O


# ============================================================================
# 08 embed, sinusoidal_positions
# ============================================================================

def embed__last_positions(tokens, tok_emb, pos_emb):
    return tok_emb[tokens] + pos_emb[-len(tokens):]


def embed__positions_by_token(tokens, tok_emb, pos_emb):
    return tok_emb[tokens] + pos_emb[tokens]


def embed__one_based_positions(tokens, tok_emb, pos_emb):
    return tok_emb[tokens] + pos_emb[1:len(tokens) + 1]


def embed__concatenates(tokens, tok_emb, pos_emb):
    return np.concatenate([tok_emb[tokens], pos_emb[:len(tokens)]], axis=1)


def embed__adds_into_pos_emb(tokens, tok_emb, pos_emb):
    X = pos_emb[:len(tokens)]
    X += tok_emb[tokens]
    return X


def embed_ok_onehot(tokens, tok_emb, pos_emb):
    n = len(tokens)
    onehot = (np.asarray(tokens)[:, None] == np.arange(tok_emb.shape[0])[None, :]).astype(float)
    return onehot @ tok_emb + pos_emb[np.arange(n)]


def _sinusoids(n, d, exponent, swap=False, halves=False, start=0):
    t = np.arange(start, start + n, dtype=float)[:, None]
    ang = t / exponent[None, :]
    s, c = (np.cos(ang), np.sin(ang)) if swap else (np.sin(ang), np.cos(ang))
    if halves:
        return np.concatenate([s, c], axis=1)
    P = np.empty((n, d))
    P[:, 0::2], P[:, 1::2] = s, c
    return P


def sinusoidal_positions__column_index_exponent(n, d):
    return _sinusoids(n, d, 10000.0 ** (2 * np.arange(0, d, 2) / d))


def sinusoidal_positions__sin_cos_swapped(n, d):
    return _sinusoids(n, d, 10000.0 ** (2 * np.arange(d // 2) / d), swap=True)


def sinusoidal_positions__halves(n, d):
    return _sinusoids(n, d, 10000.0 ** (2 * np.arange(d // 2) / d), halves=True)


def sinusoidal_positions__precedence(n, d):
    i = np.arange(d // 2)
    t = np.arange(n, dtype=float)[:, None]
    ang = t / 10000.0 ** (2 * i) / d
    P = np.empty((n, d))
    P[:, 0::2], P[:, 1::2] = np.sin(ang), np.cos(ang)
    return P


def sinusoidal_positions__one_based(n, d):
    return _sinusoids(n, d, 10000.0 ** (2 * np.arange(d // 2) / d), start=1)


def sinusoidal_positions__integer_exponent(n, d):
    return _sinusoids(n, d, 10000.0 ** (2 * np.arange(d // 2) // d))


def sinusoidal_positions_ok_loops(n, d):
    P = np.zeros((n, d))
    for t in range(n):
        for i in range(d // 2):
            a = t * math.exp(-(2 * i / d) * math.log(10000.0))
            P[t, 2 * i], P[t, 2 * i + 1] = math.sin(a), math.cos(a)
    return P


# ============================================================================
# 09 split_heads, multi_head_attention
# ============================================================================

def split_heads__reshape_only(M, n_heads):
    n, d_model = M.shape
    return M.reshape(n_heads, n, d_model // n_heads).copy()


def split_heads__strided_columns(M, n_heads):
    return np.stack([M[:, h::n_heads] for h in range(n_heads)])


def split_heads__no_transpose(M, n_heads):
    n, d_model = M.shape
    return M.reshape(n, n_heads, d_model // n_heads).copy()


def split_heads__float_d_head(M, n_heads):
    d_head = M.shape[1] / n_heads
    return np.stack([M[:, h * d_head:(h + 1) * d_head] for h in range(n_heads)])


def split_heads__n_heads_columns(M, n_heads):
    return np.stack([M[:, h * n_heads:(h + 1) * n_heads] for h in range(n_heads)])


def split_heads_ok_split(M, n_heads):
    return np.array(np.split(M, n_heads, axis=1))


def multi_head_attention__sqrt_d_model(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    Qh, Kh, Vh = _split_heads(X @ Wq, n_heads), _split_heads(X @ Wk, n_heads), _split_heads(X @ Wv, n_heads)
    outs = []
    for h in range(n_heads):
        S = Qh[h] @ Kh[h].T / np.sqrt(Wq.shape[1])
        if causal:
            S = S + np.triu(np.full(S.shape, -np.inf), k=1)
        outs.append(_softmax(S) @ Vh[h])
    return np.concatenate(outs, axis=1) @ Wo


def multi_head_attention__interleaved_heads(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    Qh, Kh, Vh = (split_heads__strided_columns(X @ W, n_heads) for W in (Wq, Wk, Wv))
    return np.concatenate([_attend(Qh[h], Kh[h], Vh[h], causal) for h in range(n_heads)], axis=1) @ Wo


def multi_head_attention__always_causal(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    Qh, Kh, Vh = _split_heads(X @ Wq, n_heads), _split_heads(X @ Wk, n_heads), _split_heads(X @ Wv, n_heads)
    return np.concatenate([_attend(Qh[h], Kh[h], Vh[h]) for h in range(n_heads)], axis=1) @ Wo


def multi_head_attention__head0_kv(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    Qh, Kh, Vh = _split_heads(X @ Wq, n_heads), _split_heads(X @ Wk, n_heads), _split_heads(X @ Wv, n_heads)
    return np.concatenate([_attend(Qh[h], Kh[0], Vh[0], causal) for h in range(n_heads)], axis=1) @ Wo


def multi_head_attention__drops_last_head(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    Qh, Kh, Vh = _split_heads(X @ Wq, n_heads), _split_heads(X @ Wk, n_heads), _split_heads(X @ Wv, n_heads)
    return np.concatenate([_attend(Qh[h], Kh[h], Vh[h], causal) for h in range(n_heads - 1)], axis=1) @ Wo


def multi_head_attention_ok_sum_of_heads(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    d_head = Wq.shape[1] // n_heads
    out = np.zeros((X.shape[0], Wo.shape[1]))
    for h in range(n_heads):
        c = slice(h * d_head, (h + 1) * d_head)
        out += _attend(X @ Wq[:, c], X @ Wk[:, c], X @ Wv[:, c], causal) @ Wo[c]
    return out


# ============================================================================
# 10 layer_norm, gelu, transformer_block
# ============================================================================

def layer_norm__ddof_one(X, g, b, eps=1e-5):
    return (X - X.mean(axis=1, keepdims=True)) / np.sqrt(X.var(axis=1, ddof=1, keepdims=True) + eps) * g + b


def layer_norm__eps_outside_sqrt(X, g, b, eps=1e-5):
    return (X - X.mean(axis=1, keepdims=True)) / (X.std(axis=1, keepdims=True) + eps) * g + b


def layer_norm__over_columns(X, g, b, eps=1e-5):
    return (X - X.mean(axis=0)) / np.sqrt(X.var(axis=0) + eps) * g + b


def layer_norm__keepdims_forgotten(X, g, b, eps=1e-5):
    return (X - X.mean(axis=1)) / np.sqrt(X.var(axis=1) + eps) * g + b


def layer_norm__gain_bias_swapped(X, g, b, eps=1e-5):
    return (X - X.mean(axis=1, keepdims=True)) / np.sqrt(X.var(axis=1, keepdims=True) + eps) * b + g


def layer_norm_ok_rows(X, g, b, eps=1e-5):
    out = np.empty(X.shape)
    for i, row in enumerate(X):
        c = row - row.sum() / row.size
        out[i] = c * (1.0 / math.sqrt(np.dot(c, c) / row.size + eps)) * g + b
    return out


def gelu__constant_misremembered(X):
    return 0.5 * X * (1 + np.tanh(np.sqrt(2 / np.pi) * (X + 0.04715 * X ** 3)))


def gelu__sqrt_pi_over_2(X):
    return 0.5 * X * (1 + np.tanh(np.sqrt(np.pi / 2) * (X + 0.044715 * X ** 3)))


def gelu__missing_half(X):
    return X * (1 + np.tanh(np.sqrt(2 / np.pi) * (X + 0.044715 * X ** 3)))


def gelu__squared(X):
    return 0.5 * X * (1 + np.tanh(np.sqrt(2 / np.pi) * (X + 0.044715 * X ** 2)))


def gelu__exact_erf(X):
    X = np.asarray(X, dtype=float)
    return 0.5 * X * (1 + np.vectorize(math.erf)(X / math.sqrt(2))) if X.size else X.copy()


def gelu_ok_horner(X):
    X = np.asarray(X, dtype=float)
    return X * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * X * (1.0 + 0.044715 * X * X))) / 2.0


def transformer_block__post_ln(X, p, n_heads, causal=True):
    Y = _layer_norm(X + multi_head_attention(X, p["Wq"], p["Wk"], p["Wv"], p["Wo"], n_heads, causal),
                    p["ln1_g"], p["ln1_b"])
    return _layer_norm(Y + _gelu(Y @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"], p["ln2_g"], p["ln2_b"])


def transformer_block__no_mlp_residual(X, p, n_heads, causal=True):
    Y = X + multi_head_attention(_layer_norm(X, p["ln1_g"], p["ln1_b"]), p["Wq"], p["Wk"], p["Wv"], p["Wo"],
                                 n_heads, causal)
    return _gelu(_layer_norm(Y, p["ln2_g"], p["ln2_b"]) @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"]


def transformer_block__ln1_twice(X, p, n_heads, causal=True):
    Y = X + multi_head_attention(_layer_norm(X, p["ln1_g"], p["ln1_b"]), p["Wq"], p["Wk"], p["Wv"], p["Wo"],
                                 n_heads, causal)
    return Y + _gelu(_layer_norm(Y, p["ln1_g"], p["ln1_b"]) @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"]


def transformer_block__causal_dropped(X, p, n_heads, causal=True):
    Y = X + multi_head_attention(_layer_norm(X, p["ln1_g"], p["ln1_b"]), p["Wq"], p["Wk"], p["Wv"], p["Wo"],
                                 n_heads)
    return Y + _gelu(_layer_norm(Y, p["ln2_g"], p["ln2_b"]) @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"]


def transformer_block__gelu_after_w2(X, p, n_heads, causal=True):
    Y = X + multi_head_attention(_layer_norm(X, p["ln1_g"], p["ln1_b"]), p["Wq"], p["Wk"], p["Wv"], p["Wo"],
                                 n_heads, causal)
    return Y + _gelu((_layer_norm(Y, p["ln2_g"], p["ln2_b"]) @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"])


def transformer_block_ok_steps(X, p, n_heads, causal=True):
    def sublayer(H, f, g, b):
        return H + f(layer_norm_ok_rows(H, g, b))
    attn = lambda H: multi_head_attention(H, p["Wq"], p["Wk"], p["Wv"], p["Wo"], n_heads, causal)
    mlp = lambda H: gelu_ok_horner(H @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"]
    return sublayer(sublayer(X, attn, p["ln1_g"], p["ln1_b"]), mlp, p["ln2_g"], p["ln2_b"])


# ============================================================================
# 11 next_token_logits, cross_entropy, softmax_backward, attention_backward, layer_norm_backward
# ============================================================================

def next_token_logits__first_row(H, W_vocab):
    return H[0] @ W_vocab


def next_token_logits__every_row(H, W_vocab):
    return H @ W_vocab


def next_token_logits__mean_pooled(H, W_vocab):
    return H.mean(axis=0) @ W_vocab


def next_token_logits__softmaxed(H, W_vocab):
    return _softmax(H[-1] @ W_vocab)


def next_token_logits__second_to_last(H, W_vocab):
    return H[-2] @ W_vocab if len(H) > 1 else H[-1] @ W_vocab


def next_token_logits_ok_einsum(H, W_vocab):
    return np.einsum("d,dv->v", H[H.shape[0] - 1], W_vocab)


def cross_entropy__grad_not_averaged(logits, targets):
    loss, d = _cross_entropy(logits, targets)
    return loss, d * logits.shape[0]


def cross_entropy__log_of_probability(logits, targets):
    n = logits.shape[0]
    P = _softmax(logits)
    loss = -np.log(P[np.arange(n), targets]).mean()
    d = P.copy()
    d[np.arange(n), targets] -= 1
    return loss, d / n


def cross_entropy__loss_summed(logits, targets):
    loss, d = _cross_entropy(logits, targets)
    return loss * logits.shape[0], d


def cross_entropy__grad_sign_flipped(logits, targets):
    loss, d = _cross_entropy(logits, targets)
    return loss, -d


def cross_entropy__log2(logits, targets):
    loss, d = _cross_entropy(logits, targets)
    return loss / np.log(2), d / np.log(2)


def cross_entropy__column_indexing(logits, targets):
    n = logits.shape[0]
    m = logits.max(axis=1, keepdims=True)
    logp = logits - m - np.log(np.exp(logits - m).sum(axis=1, keepdims=True))
    loss = -logp[:, targets].mean()  # (n, n) by mistake
    d = np.exp(logp)
    d[np.arange(n), targets] -= 1
    return loss, d / n


def cross_entropy_ok_onehot(logits, targets):
    n, v = logits.shape
    Y = np.eye(v)[targets]
    z = logits - logits.max(axis=1, keepdims=True)
    lse = np.log(np.exp(z).sum(axis=1))
    loss = float(np.sum(lse - (z * Y).sum(axis=1)) / n)
    return loss, (np.exp(z - lse[:, None]) - Y) / n


def softmax_backward__keepdims_forgotten(A, dA):
    return A * (dA - (A * dA).sum(axis=-1))


def softmax_backward__diagonal_only(A, dA):
    return A * (1 - A) * dA


def softmax_backward__sum_over_first_axis(A, dA):
    return A * (dA - (A * dA).sum(axis=0, keepdims=True))


def softmax_backward__unweighted_sum(A, dA):
    return A * (dA - dA.sum(axis=-1, keepdims=True))


def softmax_backward__no_subtraction(A, dA):
    return A * dA


def softmax_backward_ok_jacobian(A, dA):
    J = np.einsum("...i,ij->...ij", A, np.eye(A.shape[-1])) - np.einsum("...i,...j->...ij", A, A)
    return np.einsum("...ij,...j->...i", J, dA)


def _attn_backward_variant(Q, K, V, dO, causal, scale, use_scale=True, top_left=False, always_causal=False):
    s = 1.0 / np.sqrt(Q.shape[1]) if scale else 1.0
    if top_left:
        A = attention_weights__mask_top_left(Q, K, causal, scale)
    else:
        A = _attention_weights(Q, K, causal or always_causal, scale)
    dS = _softmax_backward(A, dO @ V.T) * (s if use_scale else 1.0)
    return dS @ K, dS.T @ Q, A.T @ dO


def attention_backward__scale_forgotten(Q, K, V, dO, causal=True, scale=True):
    return _attn_backward_variant(Q, K, V, dO, causal, scale, use_scale=False)


def attention_backward__mask_top_left(Q, K, V, dO, causal=True, scale=True):
    return _attn_backward_variant(Q, K, V, dO, causal, scale, top_left=True)


def attention_backward__dk_untransposed(Q, K, V, dO, causal=True, scale=True):
    s = 1.0 / np.sqrt(Q.shape[1]) if scale else 1.0
    A = _attention_weights(Q, K, causal, scale)
    dS = _softmax_backward(A, dO @ V.T) * s
    return dS @ K, dS @ Q, A.T @ dO


def attention_backward__always_causal(Q, K, V, dO, causal=True, scale=True):
    return _attn_backward_variant(Q, K, V, dO, causal, scale, always_causal=True)


def attention_backward__returns_dv_before_dk(Q, K, V, dO, causal=True, scale=True):
    dQ, dK, dV = _attention_backward(Q, K, V, dO, causal, scale)
    return dQ, dV, dK


def attention_backward_ok_einsum(Q, K, V, dO, causal=True, scale=True):
    s = Q.shape[1] ** -0.5 if scale else 1.0
    S = np.einsum("qd,kd->qk", Q, K) * s
    if causal:
        S = np.where(_future(*S.shape), -np.inf, S)
    A = softmax_ok_logsumexp(S, axis=1)
    dA = np.einsum("qv,kv->qk", dO, V)
    dS = softmax_backward_ok_jacobian(A, dA)
    return s * np.einsum("qk,kd->qd", dS, K), s * np.einsum("qk,qd->kd", dS, Q), np.einsum("qk,qv->kv", A, dO)


def layer_norm_backward__through_xhat_only(X, g, dY, eps=1e-5):
    inv = 1.0 / np.sqrt(X.var(axis=1, keepdims=True) + eps)
    xhat = (X - X.mean(axis=1, keepdims=True)) * inv
    return dY * g * inv, (dY * xhat).sum(axis=0), dY.sum(axis=0)


def layer_norm_backward__mean_term_only(X, g, dY, eps=1e-5):
    inv = 1.0 / np.sqrt(X.var(axis=1, keepdims=True) + eps)
    xhat = (X - X.mean(axis=1, keepdims=True)) * inv
    dxhat = dY * g
    return (dxhat - dxhat.mean(axis=1, keepdims=True)) * inv, (dY * xhat).sum(axis=0), dY.sum(axis=0)


def layer_norm_backward__param_grads_over_rows(X, g, dY, eps=1e-5):
    dX, _, _ = _layer_norm_backward(X, g, dY, eps)
    xhat = (X - X.mean(axis=1, keepdims=True)) / np.sqrt(X.var(axis=1, keepdims=True) + eps)
    return dX, (dY * xhat).sum(axis=1), dY.sum(axis=1)


def layer_norm_backward__ddof_one(X, g, dY, eps=1e-5):
    d = X.shape[1]
    mu = X.mean(axis=1, keepdims=True)
    var = X.var(axis=1, ddof=1, keepdims=True)
    inv = 1.0 / np.sqrt(var + eps)
    xhat = (X - mu) * inv
    dxhat = dY * g
    dX = inv * (dxhat - dxhat.mean(axis=1, keepdims=True) - xhat * (dxhat * xhat).sum(axis=1, keepdims=True) / (d - 1))
    return dX, (dY * xhat).sum(axis=0), dY.sum(axis=0)


def layer_norm_backward__db_dg_swapped(X, g, dY, eps=1e-5):
    dX, dg, db = _layer_norm_backward(X, g, dY, eps)
    return dX, db, dg


def layer_norm_backward_ok_jacobian(X, g, dY, eps=1e-5):
    n, d = X.shape
    dX = np.empty(X.shape)
    for i in range(n):
        c = X[i] - X[i].sum() / d
        inv = 1.0 / math.sqrt(c @ c / d + eps)
        xhat = c * inv
        dxhat = dY[i] * g
        dX[i] = (inv / d) * (d * dxhat - dxhat.sum() - xhat * (dxhat @ xhat))
    return dX, np.einsum("nd,nd->d", dY, (X - X.mean(axis=1, keepdims=True)) / np.sqrt(X.var(axis=1, keepdims=True) + eps)), dY.sum(axis=0)


# ============================================================================
# 12 most_attended, attention_entropy
# ============================================================================

def most_attended__argmax_columns(A, tokens):
    return [tokens[j] for j in np.argmax(A, axis=0)]


def most_attended__last_of_ties(A, tokens):
    n_k = A.shape[1]
    return [tokens[n_k - 1 - j] for j in np.argmax(A[:, ::-1], axis=1)]


def most_attended__returns_indices(A, tokens):
    return [int(j) for j in np.argmax(A, axis=1)]


def most_attended__skips_itself(A, tokens):
    B = A.copy()
    n = min(B.shape)
    B[np.arange(n), np.arange(n)] = -1.0
    return [tokens[j] for j in np.argmax(B, axis=1)]


def most_attended__vocabulary_index(A, tokens):
    vocab = sorted(set(tokens))
    return [vocab[j] if j < len(vocab) else tokens[j] for j in np.argmax(A, axis=1)]


def most_attended_ok_max_loop(A, tokens):
    out = []
    for row in A:
        best = max(range(len(row)), key=lambda j: (row[j], -j))
        out.append(tokens[best])
    return out


def attention_entropy__log2(A):
    with np.errstate(divide="ignore", invalid="ignore"):
        return -np.sum(np.where(A > 0, A * np.log2(A), 0.0), axis=1)


def attention_entropy__nan_on_zeros(A):
    with np.errstate(divide="ignore", invalid="ignore"):
        return -np.sum(A * np.log(A), axis=1)


def attention_entropy__sign_dropped(A):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.sum(np.where(A > 0, A * np.log(A), 0.0), axis=1)


def attention_entropy__over_columns(A):
    with np.errstate(divide="ignore", invalid="ignore"):
        return -np.sum(np.where(A > 0, A * np.log(A), 0.0), axis=0)


def attention_entropy__normalised(A):
    with np.errstate(divide="ignore", invalid="ignore"):
        H = -np.sum(np.where(A > 0, A * np.log(A), 0.0), axis=1)
    return H / np.log(A.shape[1]) if A.shape[1] > 1 else H


def attention_entropy_ok_masked_log(A):
    safe = np.where(A > 0, A, 1.0)
    return -(A * np.log(safe)).sum(axis=1)


# ============================================================================
# 13 padding_mask, cross_attention
# ============================================================================

def padding_mask__off_by_one(n_q, n_valid, n_k):
    M = np.zeros((n_q, n_k))
    M[:, n_valid + 1:] = -np.inf
    return M


def padding_mask__boolean(n_q, n_valid, n_k):
    return np.tile(np.arange(n_k) < n_valid, (n_q, 1))


def padding_mask__hides_padded_queries(n_q, n_valid, n_k):
    i, j = np.indices((n_q, n_k))
    return np.where((j >= n_valid) | (i >= n_valid), -np.inf, 0.0)


def padding_mask__int_buffer(n_q, n_valid, n_k):
    M = np.zeros((n_q, n_k), dtype=int)
    M[:, n_valid:] = -np.inf
    return M


def padding_mask__minus_1e9(n_q, n_valid, n_k):
    M = np.zeros((n_q, n_k))
    M[:, n_valid:] = -1e9
    return M


def padding_mask_ok_outer(n_q, n_valid, n_k):
    row = np.where(np.arange(n_k) >= n_valid, -np.inf, 0.0)
    return np.repeat(row[None, :], n_q, axis=0)


def cross_attention__causal(X, Z, Wq, Wk, Wv):
    return _attention(X @ Wq, Z @ Wk, Z @ Wv, causal=True)


def cross_attention__roles_swapped(X, Z, Wq, Wk, Wv):
    return _attention(Z @ Wq, X @ Wk, X @ Wv, causal=False)


def cross_attention__sqrt_d_model(X, Z, Wq, Wk, Wv):
    S = (X @ Wq) @ (Z @ Wk).T / np.sqrt(X.shape[1])
    return _softmax(S) @ (Z @ Wv)


def cross_attention__values_from_x(X, Z, Wq, Wk, Wv):
    return _attention(X @ Wq, Z @ Wk, X @ Wv, causal=False)


def cross_attention__softmax_columns(X, Z, Wq, Wk, Wv):
    S = (X @ Wq) @ (Z @ Wk).T / np.sqrt(Wq.shape[1])
    return _softmax(S, axis=0) @ (Z @ Wv)


def cross_attention_ok_einsum(X, Z, Wq, Wk, Wv):
    return attention_ok_einsum(X @ Wq, Z @ Wk, Z @ Wv, causal=False)


# ============================================================================
# 14 attend_step, cache_step, sample_next, top_k_filter, top_p_filter, generate, kv_cache_bytes, max_cached_tokens
# ============================================================================

def attend_step__no_max_shift(q, K_cache, V_cache):
    a = np.exp(K_cache @ q / np.sqrt(q.shape[0]))
    return (a / a.sum()) @ V_cache


def attend_step__sqrt_t(q, K_cache, V_cache):
    s = K_cache @ q / np.sqrt(K_cache.shape[0])
    a = np.exp(s - s.max())
    return (a / a.sum()) @ V_cache


def attend_step__drops_own_row(q, K_cache, V_cache):
    K, V = (K_cache[:-1], V_cache[:-1]) if len(K_cache) > 1 else (K_cache, V_cache)
    s = K @ q / np.sqrt(q.shape[0])
    a = np.exp(s - s.max())
    return (a / a.sum()) @ V


def attend_step__unnormalised(q, K_cache, V_cache):
    s = K_cache @ q / np.sqrt(q.shape[0])
    return np.exp(s - s.max()) @ V_cache


def attend_step__divides_by_d(q, K_cache, V_cache):
    s = K_cache @ q / q.shape[0]
    a = np.exp(s - s.max())
    return (a / a.sum()) @ V_cache


def attend_step_ok_einsum(q, K_cache, V_cache):
    s = np.einsum("td,d->t", K_cache, q) * q.shape[0] ** -0.5
    w = np.exp(s - np.max(s))
    return np.einsum("t,tv->v", w, V_cache) / w.sum()


def cache_step__prepends(q, k, v, K_cache, V_cache):
    K_new, V_new = np.vstack([k, K_cache]), np.vstack([v, V_cache])
    return _attend_step(q, K_new, V_new), K_new, V_new


def cache_step__attends_before_append(q, k, v, K_cache, V_cache):
    o = _attend_step(q, K_cache, V_cache) if len(K_cache) else np.zeros(V_cache.shape[1])
    return o, np.vstack([K_cache, k]), np.vstack([V_cache, v])


def cache_step__return_order(q, k, v, K_cache, V_cache):
    o, K_new, V_new = _cache_step(q, k, v, K_cache, V_cache)
    return K_new, V_new, o


def cache_step__appends_query_as_key(q, k, v, K_cache, V_cache):
    K_new, V_new = np.vstack([K_cache, q]), np.vstack([V_cache, v])
    return _attend_step(q, K_new, V_new), K_new, V_new


def cache_step__concatenate_1d(q, k, v, K_cache, V_cache):
    K_new, V_new = np.concatenate([K_cache, k]), np.concatenate([V_cache, v])
    return _attend_step(q, K_new, V_new), K_new, V_new


def cache_step_ok_append(q, k, v, K_cache, V_cache):
    K_new = np.append(K_cache, k.reshape(1, -1), axis=0)
    V_new = np.append(V_cache, v.reshape(1, -1), axis=0)
    return attend_step_ok_einsum(q, K_new, V_new), K_new, V_new


def sample_next__ties_at_u(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    c = np.cumsum(_softmax(np.asarray(logits) / temperature))
    return int(min(np.searchsorted(c / c[-1], u, side="left"), len(c) - 1))


def sample_next__multiplies_temperature(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    c = np.cumsum(_softmax(np.asarray(logits) * temperature))
    return int(min(np.searchsorted(c / c[-1], u, side="right"), len(c) - 1))


def sample_next__no_max_shift(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    with np.errstate(over="ignore", invalid="ignore"):
        e = np.exp(np.asarray(logits) / temperature)
        c = np.cumsum(e / e.sum())
    return int(min(np.searchsorted(c / c[-1], u, side="right"), len(c) - 1))


def sample_next__numpy_int(logits, temperature, u):
    if temperature == 0:
        return np.argmax(logits)
    c = np.cumsum(_softmax(np.asarray(logits) / temperature))
    return np.minimum(np.searchsorted(c / c[-1], u, side="right"), len(c) - 1)


def sample_next__no_rescale(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    c = np.cumsum(_softmax(np.asarray(logits) / temperature))
    return int(np.searchsorted(c, u, side="right"))


def sample_next__greedy_last_of_ties(logits, temperature, u):
    logits = np.asarray(logits, dtype=float)
    if temperature == 0:
        return int(len(logits) - 1 - np.argmax(logits[::-1]))
    c = np.cumsum(_softmax(logits / temperature))
    return int(min(np.searchsorted(c / c[-1], u, side="right"), len(c) - 1))


def sample_next_ok_loop(logits, temperature, u):
    z = np.asarray(logits, dtype=float)
    if temperature == 0:
        best = 0
        for i in range(len(z)):
            if z[i] > z[best]:
                best = i
        return best
    p = softmax_ok_logsumexp(z / temperature)
    total = 0.0
    running = []
    for x in p:
        total += x
        running.append(total)
    running = np.array(running) / running[-1]
    for i, r in enumerate(running):
        if r > u:
            return i
    return len(p) - 1


def _kth_largest(logits, k):
    return np.sort(logits)[::-1][min(k, len(logits)) - 1]


def top_k_filter__exactly_k(logits, k):
    out = np.full(len(logits), -np.inf)
    keep = np.argsort(-logits, kind="stable")[:k]
    out[keep] = logits[keep]
    return out


def top_k_filter__keeps_k_plus_one(logits, k):
    s = np.sort(logits)
    kth = s[-k - 1] if k < len(s) else s[0]
    return np.where(logits >= kth, logits, -np.inf)


def top_k_filter__in_place(logits, k):
    logits[logits < _kth_largest(logits, k)] = -np.inf
    return logits


def top_k_filter__ascending_index(logits, k):
    kth = np.sort(logits)[min(k, len(logits) - 1)]
    return np.where(logits >= kth, logits, -np.inf)


def top_k_filter__index_error_big_k(logits, k):
    kth = np.sort(logits)[-k]
    return np.where(logits >= kth, logits, -np.inf)


def top_k_filter__zeros_not_inf(logits, k):
    return np.where(logits >= _kth_largest(logits, k), logits, 0.0)


def top_k_filter_ok_partition(logits, k):
    z = np.array(logits, dtype=float)
    if k >= len(z):
        return z
    kth = np.partition(z, len(z) - k)[len(z) - k]
    z[z < kth] = -np.inf
    return z


def _nucleus(logits, p, strict=False, below=False, ascending=False, high_id_first=False, shift=True,
             keep_all_at_one=True):
    z = np.asarray(logits, dtype=float)
    if shift:
        probs = _softmax(z)
    else:
        with np.errstate(over="ignore", invalid="ignore"):
            e = np.exp(z)
            probs = e / e.sum()
    if ascending:
        order = np.argsort(probs, kind="stable")
    elif high_id_first:
        order = np.argsort(probs, kind="stable")[::-1]
    else:
        order = np.argsort(-probs, kind="stable")
    cum = np.cumsum(probs[order])
    if keep_all_at_one and p >= 1:
        n_keep = len(z)
    elif strict:
        n_keep = int(np.searchsorted(cum, p, side="right")) + 1
    elif below:
        n_keep = max(int(np.searchsorted(cum, p, side="left")), 1)
    else:
        n_keep = int(np.searchsorted(cum, p, side="left")) + 1
    keep = order[:min(n_keep, len(z))]
    out = np.full(len(z), -np.inf)
    out[keep] = z[keep]
    return out


def top_p_filter__stops_above_p(logits, p):
    return _nucleus(logits, p, strict=True)


def top_p_filter__stops_before_p(logits, p):
    return _nucleus(logits, p, below=True)


def top_p_filter__ascending(logits, p):
    return _nucleus(logits, p, ascending=True)


def top_p_filter__ties_high_id_first(logits, p):
    return _nucleus(logits, p, high_id_first=True)


def top_p_filter__no_max_shift(logits, p):
    return _nucleus(logits, p, shift=False)


def top_p_filter__p_one_drops_zeros(logits, p):
    return _nucleus(logits, p, keep_all_at_one=False)


def top_p_filter_ok_loop(logits, p):
    z = np.array(logits, dtype=float)
    if p >= 1:
        return z
    probs = softmax_ok_logsumexp(z)
    order = sorted(range(len(z)), key=lambda i: (-probs[i], i))
    out = np.full(len(z), -np.inf)
    total = 0.0
    for i in order:
        out[i] = z[i]
        total += probs[i]
        if total >= p:
            break
    return out


def _generate(p, prompt, n_new, cache_step, residual=True, pos_shift=0, own_attention=False, only_new=False,
              feed_last=False, reset_cache=False):
    d = p["Wq"].shape[0]
    seq = [int(t) for t in prompt]
    K, V = np.zeros((0, d)), np.zeros((0, d))
    n_feed = len(seq) + n_new - (0 if feed_last else 1)
    Xs = []
    for i in range(n_feed):
        x = p["tok_emb"][seq[i]] + p["pos_emb"][i + pos_shift]
        q, k, v = x @ p["Wq"], x @ p["Wk"], x @ p["Wv"]
        if own_attention:
            Xs.append(x)
            Xa = np.array(Xs)
            K, V = Xa @ p["Wk"], Xa @ p["Wv"]
            o = _attend_step(q, K, V)
        elif reset_cache:
            o, _, _ = cache_step(q, k, v, np.zeros((0, d)), np.zeros((0, d)))
        else:
            o, K, V = cache_step(q, k, v, K, V)
        if i >= len(prompt) - 1 and len(seq) < len(prompt) + n_new:
            seq.append(int(np.argmax(((x + o) if residual else o) @ p["W_out"])))
    out = np.array(seq, dtype=int)
    return out[len(prompt):] if only_new else out


def generate__no_residual(p, prompt, n_new, cache_step):
    return _generate(p, prompt, n_new, cache_step, residual=False)


def generate__one_based_positions(p, prompt, n_new, cache_step):
    return _generate(p, prompt, n_new, cache_step, pos_shift=1)


def generate__own_attention(p, prompt, n_new, cache_step):
    return _generate(p, prompt, n_new, cache_step, own_attention=True)


def generate__new_tokens_only(p, prompt, n_new, cache_step):
    return _generate(p, prompt, n_new, cache_step, only_new=True)


def generate__feeds_last_token(p, prompt, n_new, cache_step):
    return _generate(p, prompt, n_new, cache_step, feed_last=True)


def generate__resets_cache(p, prompt, n_new, cache_step):
    return _generate(p, prompt, n_new, cache_step, reset_cache=True)


def generate_ok_while(p, prompt, n_new, cache_step):
    tokens = list(np.asarray(prompt).tolist())
    d = p["tok_emb"].shape[1]
    K = V = np.zeros((0, d))
    pos = 0
    target = len(tokens) + n_new
    while len(tokens) < target:
        x = p["tok_emb"][tokens[pos]] + p["pos_emb"][pos]
        o, K, V = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K, V)
        if pos == len(tokens) - 1:
            tokens.append(int(((x + o) @ p["W_out"]).argmax()))
        pos += 1
    return np.array(tokens, dtype=np.int64)


def kv_cache_bytes__keys_only(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return n_layers * n_heads * d_head * seq_len * batch * bytes_per_value


def kv_cache_bytes__float32_assumed(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return 2 * n_layers * n_heads * d_head * seq_len * batch * 4


def kv_cache_bytes__float_result(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return 2.0 * n_layers * n_heads * d_head * seq_len * batch * bytes_per_value


def kv_cache_bytes__batch_ignored(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return 2 * n_layers * n_heads * d_head * seq_len * bytes_per_value


def kv_cache_bytes__int32_product(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return int(np.prod(np.array([2, n_layers, n_heads, d_head, seq_len, batch, bytes_per_value], dtype=np.int32),
                       dtype=np.int32))


def kv_cache_bytes_ok_prod(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    per_token = math.prod([n_layers, n_heads, d_head, 2])
    return int(per_token * seq_len * batch * bytes_per_value)


def _per_token(n_layers, n_heads, d_head, batch, bytes_per_value):
    return 2 * n_layers * n_heads * d_head * batch * bytes_per_value


def max_cached_tokens__float_division(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    return int(memory_bytes / _per_token(n_layers, n_heads, d_head, batch, bytes_per_value))


def max_cached_tokens__keys_only(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    return memory_bytes // (n_layers * n_heads * d_head * batch * bytes_per_value)


def max_cached_tokens__rounds_up(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    per = _per_token(n_layers, n_heads, d_head, batch, bytes_per_value)
    return -(-memory_bytes // per)


def max_cached_tokens__full_does_not_fit(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    per = _per_token(n_layers, n_heads, d_head, batch, bytes_per_value)
    return max((memory_bytes - 1) // per, 0)  # counts only caches strictly smaller than the memory


def max_cached_tokens__batch_ignored(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    return memory_bytes // _per_token(n_layers, n_heads, d_head, 1, bytes_per_value)


def max_cached_tokens_ok_bisect(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    lo, hi = 0, 1
    while kv_cache_bytes_ok_prod(n_layers, n_heads, d_head, hi, batch, bytes_per_value) <= memory_bytes:
        hi *= 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if kv_cache_bytes_ok_prod(n_layers, n_heads, d_head, mid, batch, bytes_per_value) <= memory_bytes:
            lo = mid
        else:
            hi = mid
    return lo


# ============================================================================
# 15 previous_token_score, prefix_matching_score, ablate_head
# ============================================================================

def previous_token_score__above_diagonal(A):
    return float(np.mean(np.diag(A, 1))) if len(A) > 1 else 0.0


def previous_token_score__divides_by_T(A):
    return float(np.diag(A, -1).sum() / len(A))


def previous_token_score__nan_for_one_row(A):
    return float(np.mean(np.diag(A, -1)))


def previous_token_score__main_diagonal(A):
    return float(np.mean(np.diag(A)[1:])) if len(A) > 1 else 0.0


def previous_token_score__sum_not_mean(A):
    return float(np.diag(A, -1).sum())


def previous_token_score_ok_loop(A):
    T = A.shape[0]
    if T < 2:
        return 0.0
    return sum(float(A[t, t - 1]) for t in range(1, T)) / (T - 1)


def _prefix(A, tokens, shift=1, which="all", over_all=False, nan_if_none=False):
    sums = []
    T = len(tokens)
    for t in range(T):
        js = [j for j in range(t) if tokens[j] == tokens[t]]
        if not js:
            if over_all:
                sums.append(0.0)
            continue
        if which == "last":
            js = js[-1:]
        elif which == "first":
            js = js[:1]
        sums.append(sum(A[t, j + shift] for j in js))
    if not sums:
        return float("nan") if nan_if_none else 0.0
    return float(np.mean(sums))


def prefix_matching_score__the_copy_itself(A, tokens):
    return _prefix(A, tokens, shift=0)


def prefix_matching_score__latest_copy_only(A, tokens):
    return _prefix(A, tokens, which="last")


def prefix_matching_score__first_copy_only(A, tokens):
    return _prefix(A, tokens, which="first")


def prefix_matching_score__mean_over_all_rows(A, tokens):
    return _prefix(A, tokens, over_all=True)


def prefix_matching_score__nan_without_copies(A, tokens):
    return _prefix(A, tokens, nan_if_none=True)


def prefix_matching_score_ok_matrix(A, tokens):
    tokens = np.asarray(tokens)
    T = len(tokens)
    same = (tokens[:, None] == tokens[None, :]) & (np.arange(T)[None, :] < np.arange(T)[:, None])  # [t, j]
    shifted = np.zeros((T, T), dtype=bool)
    shifted[:, 1:] = same[:, :-1]  # [t, j + 1]
    has = same.any(axis=1)
    if not has.any():
        return 0.0
    return float((A * shifted).sum(axis=1)[has].mean())


def ablate_head__in_place(Wo, head, n_heads):
    d_head = Wo.shape[0] // n_heads
    Wo[head * d_head:(head + 1) * d_head] = 0
    return Wo


def ablate_head__columns(Wo, head, n_heads):
    W = Wo.copy()
    d_head = W.shape[1] // n_heads
    W[:, head * d_head:(head + 1) * d_head] = 0
    return W


def ablate_head__counts_from_one(Wo, head, n_heads):
    W = Wo.copy()
    d_head = W.shape[0] // n_heads
    W[(head - 1) * d_head:head * d_head] = 0
    return W


def ablate_head__inclusive_end(Wo, head, n_heads):
    W = Wo.copy()
    d_head = W.shape[0] // n_heads
    W[head * d_head:(head + 1) * d_head + 1] = 0
    return W


def ablate_head__d_head_from_d_model(Wo, head, n_heads):
    W = Wo.copy()
    d_head = W.shape[1] // n_heads
    W[head * d_head:(head + 1) * d_head] = 0
    return W


def ablate_head_ok_mask(Wo, head, n_heads):
    keep = (np.arange(Wo.shape[0]) // (Wo.shape[0] // n_heads)) != head
    return np.where(keep[:, None], Wo, 0.0)


# ============================================================================
# 16 rope, rope_attention
# ============================================================================

def rope__half_split_pairs(X, positions, theta=10000.0):
    n, d = X.shape
    h = d // 2
    a = np.asarray(positions, dtype=float)[:, None] * theta ** (-2.0 * np.arange(h) / d)
    x, y = X[:, :h], X[:, h:]
    return np.concatenate([x * np.cos(a) - y * np.sin(a), x * np.sin(a) + y * np.cos(a)], axis=1)


def rope__row_index(X, positions, theta=10000.0):
    return _rope(X, np.arange(X.shape[0]), theta)


def rope__clockwise(X, positions, theta=10000.0):
    return _rope(X, -np.asarray(positions), theta)


def rope__frequency_missing_two(X, positions, theta=10000.0):
    n, d = X.shape
    a = np.asarray(positions, dtype=float)[:, None] * theta ** (-np.arange(d // 2) / d)
    out = X.astype(float).copy()
    x, y = X[:, 0::2], X[:, 1::2]
    out[:, 0::2], out[:, 1::2] = x * np.cos(a) - y * np.sin(a), x * np.sin(a) + y * np.cos(a)
    return out


def rope__in_place(X, positions, theta=10000.0):
    n, d = X.shape
    a = np.asarray(positions, dtype=float)[:, None] * theta ** (-2.0 * np.arange(d // 2) / d)
    x, y = X[:, 0::2].copy(), X[:, 1::2].copy()
    X[:, 0::2] = x * np.cos(a) - y * np.sin(a)
    X[:, 1::2] = x * np.sin(a) + y * np.cos(a)
    return X


def rope__sequential_overwrite(X, positions, theta=10000.0):
    out = np.array(X, dtype=float)
    n, d = out.shape
    for t in range(n):
        for i in range(d // 2):
            a = positions[t] * theta ** (-2 * i / d)
            out[t, 2 * i] = out[t, 2 * i] * np.cos(a) - out[t, 2 * i + 1] * np.sin(a)
            out[t, 2 * i + 1] = out[t, 2 * i] * np.sin(a) + out[t, 2 * i + 1] * np.cos(a)  # uses the new x
    return out


def rope_ok_complex(X, positions, theta=10000.0):
    n, d = X.shape
    z = X[:, 0::2] + 1j * X[:, 1::2]
    a = np.outer(np.asarray(positions, dtype=float), np.exp(-2.0 * np.arange(d // 2) / d * np.log(theta)))
    w = z * np.exp(1j * a)
    out = np.empty((n, d))
    out[:, 0::2], out[:, 1::2] = w.real, w.imag
    return out


def rope_attention__rotates_values(Q, K, V, positions, theta=10000.0):
    return _attention(_rope(Q, positions, theta), _rope(K, positions, theta), _rope(V, positions, theta))


def rope_attention__queries_only(Q, K, V, positions, theta=10000.0):
    return _attention(_rope(Q, positions, theta), K, V)


def rope_attention__no_mask(Q, K, V, positions, theta=10000.0):
    return _attention(_rope(Q, positions, theta), _rope(K, positions, theta), V, causal=False)


def rope_attention__row_index_positions(Q, K, V, positions, theta=10000.0):
    p = np.arange(Q.shape[0])
    return _attention(_rope(Q, p, theta), _rope(K, p, theta), V)


def rope_attention__default_theta(Q, K, V, positions, theta=10000.0):
    return _attention(_rope(Q, positions), _rope(K, positions), V)


def rope_attention__sqrt_half_d(Q, K, V, positions, theta=10000.0):
    Qr, Kr = _rope(Q, positions, theta), _rope(K, positions, theta)
    S = Qr @ Kr.T / np.sqrt(Q.shape[1] // 2)
    S = S + np.triu(np.full(S.shape, -np.inf), k=1)
    return _softmax(S) @ V


def rope_attention_ok_einsum(Q, K, V, positions, theta=10000.0):
    Qr, Kr = rope_ok_complex(Q, positions, theta), rope_ok_complex(K, positions, theta)
    return attention_ok_einsum(Qr, Kr, V, True, True)


# ============================================================================
# 17 grouped_query_attention, grouped_cache_step
# ============================================================================

def _gqa(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal, kgroup, vgroup, scale_dim=None):
    d_head = Wq.shape[1] // n_heads
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    outs = []
    for h in range(n_heads):
        gk, gv = kgroup(h), vgroup(h)
        q = Q[:, h * d_head:(h + 1) * d_head]
        k = K[:, gk * d_head:(gk + 1) * d_head]
        v = V[:, gv * d_head:(gv + 1) * d_head]
        if scale_dim is None:
            outs.append(_attend(q, k, v, causal))
        else:
            S = q @ k.T / np.sqrt(scale_dim)
            if causal:
                S = S + np.triu(np.full(S.shape, -np.inf), k=1)
            outs.append(_softmax(S) @ v)
    return np.concatenate(outs, axis=1) @ Wo


def grouped_query_attention__round_robin(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    g = lambda h: h % n_kv_heads
    return _gqa(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal, g, g)


def grouped_query_attention__values_round_robin(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    r = n_heads // n_kv_heads
    return _gqa(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal, lambda h: h // r, lambda h: h % n_kv_heads)


def grouped_query_attention__divides_by_n_kv(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    g = lambda h: h // n_kv_heads
    return _gqa(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal, g, g)


def grouped_query_attention__sqrt_kv_width(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    r = n_heads // n_kv_heads
    g = lambda h: h // r
    return _gqa(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal, g, g, scale_dim=Wk.shape[1])


def grouped_query_attention__always_causal(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    r = n_heads // n_kv_heads
    g = lambda h: h // r
    return _gqa(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, True, g, g)


def grouped_query_attention_ok_repeat(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    d_head = Wq.shape[1] // n_heads
    r = n_heads // n_kv_heads
    Kh = np.repeat(_split_heads(X @ Wk, n_kv_heads), r, axis=0)
    Vh = np.repeat(_split_heads(X @ Wv, n_kv_heads), r, axis=0)
    Qh = _split_heads(X @ Wq, n_heads)
    O = np.stack([attention_ok_einsum(Qh[h], Kh[h], Vh[h], causal, True) for h in range(n_heads)])
    return O.transpose(1, 0, 2).reshape(X.shape[0], n_heads * d_head) @ Wo


def grouped_cache_step__round_robin(q, k, v, K_cache, V_cache):
    n_heads, n_kv = q.shape[0], k.shape[0]
    K_new = np.concatenate([K_cache, k[:, None, :]], axis=1)
    V_new = np.concatenate([V_cache, v[:, None, :]], axis=1)
    o = np.stack([_attend_step(q[h], K_new[h % n_kv], V_new[h % n_kv]) for h in range(n_heads)])
    return o, K_new, V_new


def grouped_cache_step__cache_per_query_head(q, k, v, K_cache, V_cache):
    n_heads, n_kv = q.shape[0], k.shape[0]
    r = n_heads // n_kv
    K_full = np.repeat(K_cache, r, axis=0) if K_cache.shape[0] != n_heads else K_cache
    V_full = np.repeat(V_cache, r, axis=0) if V_cache.shape[0] != n_heads else V_cache
    K_new = np.concatenate([K_full, np.repeat(k, r, axis=0)[:, None, :]], axis=1)
    V_new = np.concatenate([V_full, np.repeat(v, r, axis=0)[:, None, :]], axis=1)
    o = np.stack([_attend_step(q[h], K_new[h], V_new[h]) for h in range(n_heads)])
    return o, K_new, V_new


def grouped_cache_step__unscaled(q, k, v, K_cache, V_cache):
    n_heads, n_kv = q.shape[0], k.shape[0]
    r = n_heads // n_kv
    K_new = np.concatenate([K_cache, k[:, None, :]], axis=1)
    V_new = np.concatenate([V_cache, v[:, None, :]], axis=1)
    o = np.stack([_softmax(K_new[h // r] @ q[h]) @ V_new[h // r] for h in range(n_heads)])
    return o, K_new, V_new


def grouped_cache_step__appends_on_axis0(q, k, v, K_cache, V_cache):
    n_heads, n_kv = q.shape[0], k.shape[0]
    r = n_heads // n_kv
    K_new = np.concatenate([K_cache, k[:, None, :]], axis=0)
    V_new = np.concatenate([V_cache, v[:, None, :]], axis=0)
    o = np.stack([_attend_step(q[h], K_new[h // r], V_new[h // r]) for h in range(n_heads)])
    return o, K_new, V_new


def grouped_cache_step__prepends(q, k, v, K_cache, V_cache):
    n_heads, n_kv = q.shape[0], k.shape[0]
    r = n_heads // n_kv
    K_new = np.concatenate([k[:, None, :], K_cache], axis=1)
    V_new = np.concatenate([v[:, None, :], V_cache], axis=1)
    o = np.stack([_attend_step(q[h], K_new[h // r], V_new[h // r]) for h in range(n_heads)])
    return o, K_new, V_new


def grouped_cache_step_ok_einsum(q, k, v, K_cache, V_cache):
    n_heads, d_head = q.shape
    n_kv = k.shape[0]
    K_new = np.append(K_cache, k[:, None, :], axis=1)
    V_new = np.append(V_cache, v[:, None, :], axis=1)
    qg = q.reshape(n_kv, n_heads // n_kv, d_head)
    s = np.einsum("grd,gtd->grt", qg, K_new) / math.sqrt(d_head)
    w = np.exp(s - s.max(axis=-1, keepdims=True))
    w /= w.sum(axis=-1, keepdims=True)
    return np.einsum("grt,gtd->grd", w, V_new).reshape(n_heads, d_head), K_new, V_new


# ============================================================================
# 18 sliding_window_mask, rolling_cache_step
# ============================================================================

def _band(n, lo_ok, causal=True):
    i, j = np.indices((n, n))
    ok = lo_ok(i, j) & ((j <= i) if causal else True)
    return np.where(ok, 0.0, -np.inf)


def sliding_window_mask__one_too_many(n, window):
    return _band(n, lambda i, j: j >= i - window)


def sliding_window_mask__one_too_few(n, window):
    return _band(n, lambda i, j: j > i - window + 1)


def sliding_window_mask__symmetric_band(n, window):
    return _band(n, lambda i, j: np.abs(i - j) < window, causal=False)


def sliding_window_mask__ones_and_zeros(n, window):
    i, j = np.indices((n, n))
    return ((j <= i) & (j > i - window)).astype(float)


def sliding_window_mask__minus_1e9(n, window):
    i, j = np.indices((n, n))
    return np.where((j <= i) & (j > i - window), 0.0, -1e9)


def sliding_window_mask_ok_triangles(n, window):
    M = np.triu(np.full((n, n), -np.inf), k=1)
    M += np.tril(np.full((n, n), -np.inf), k=-window) if window < n else 0.0
    return M


def rolling_cache_step__cuts_before_append(q, k, v, K_cache, V_cache, window, n_sinks=0):
    K, V = K_cache, V_cache
    if len(K) >= window:
        keep = np.r_[np.arange(n_sinks), np.arange(len(K) - (window - n_sinks), len(K))]
        K, V = K[keep], V[keep]
    K, V = np.vstack([K, k]), np.vstack([V, v])
    return _attend_step(q, K, V), K, V


def rolling_cache_step__sinks_ignored(q, k, v, K_cache, V_cache, window, n_sinks=0):
    K, V = np.vstack([K_cache, k])[-window:], np.vstack([V_cache, v])[-window:]
    return _attend_step(q, K, V), K, V


def rolling_cache_step__sinks_dropped(q, k, v, K_cache, V_cache, window, n_sinks=0):
    K, V = np.vstack([K_cache, k]), np.vstack([V_cache, v])
    if len(K) > window:
        K, V = K[-(window - n_sinks):], V[-(window - n_sinks):]
    return _attend_step(q, K, V), K, V


def rolling_cache_step__keeps_window_minus_one(q, k, v, K_cache, V_cache, window, n_sinks=0):
    K, V = np.vstack([K_cache, k]), np.vstack([V_cache, v])
    if len(K) > window:
        recent = window - n_sinks - 1
        keep = np.r_[np.arange(n_sinks), np.arange(len(K) - recent, len(K))]
        K, V = K[keep], V[keep]
    return _attend_step(q, K, V), K, V


def rolling_cache_step__ring_buffer(q, k, v, K_cache, V_cache, window, n_sinks=0):
    if len(K_cache) < window:
        K, V = np.vstack([K_cache, k]), np.vstack([V_cache, v])
    else:  # overwrite the oldest non-sink slot (cycling), like a C ring buffer
        K, V = K_cache.copy(), V_cache.copy()
        slot = n_sinks  # the oldest non-sink row
        K[slot], V[slot] = k, v
    return _attend_step(q, K, V), K, V


def rolling_cache_step_ok_indices(q, k, v, K_cache, V_cache, window, n_sinks=0):
    t = len(K_cache)
    K_all = np.concatenate([K_cache, k[None]], axis=0)
    V_all = np.concatenate([V_cache, v[None]], axis=0)
    rows = [i for i in range(t + 1) if t + 1 <= window or i < n_sinks or i >= t + 1 - (window - n_sinks)]
    K_new, V_new = K_all[rows], V_all[rows]
    return attend_step_ok_einsum(q, K_new, V_new), K_new, V_new


# ============================================================================
# 19 capstone: dicts of ops, every op correct except the one the `what` names
# ============================================================================

def _ops(**wrong):
    ops = dict(CORRECT_OPS)
    ops.update(wrong)
    return ops


OK_OPS = {
    "softmax": softmax_ok_logsumexp, "attention": attention_ok_einsum, "embed": embed_ok_onehot,
    "multi_head_attention": multi_head_attention_ok_sum_of_heads, "layer_norm": layer_norm_ok_rows,
    "gelu": gelu_ok_horner, "transformer_block": transformer_block_ok_steps,
    "next_token_logits": next_token_logits_ok_einsum, "cross_entropy": cross_entropy_ok_onehot,
    "softmax_backward": softmax_backward_ok_jacobian, "attention_backward": attention_backward_ok_einsum,
    "layer_norm_backward": layer_norm_backward_ok_jacobian, "cache_step": cache_step_ok_append,
    "sample_next": sample_next_ok_loop, "rope": rope_ok_complex,
    "grouped_query_attention": grouped_query_attention_ok_repeat, "grouped_cache_step": grouped_cache_step_ok_einsum,
    "rolling_cache_step": rolling_cache_step_ok_indices,
}


M = Mistake
MISTAKES = [
    # 01
    M("project", "multiplies from the wrong side, W @ x (column-vector habit): wrong shape, or x W^T when W is square", project__w_times_x),
    M("project", "sums the product x[i] W[i, j] over the output index j instead of the input index i", project__sum_wrong_axis),
    M("project", "loop bound off by one: the last input feature x[d_in - 1] is never used", project__loop_skips_last),
    M("project", "writes into a preallocated integer array, so every output is truncated to an int", project__int_buffer),
    M("project", "projects with the transpose of W (x W^T)", project__w_transposed),
    M("compose", "composes in the wrong order, W2 @ W1", compose__reversed),
    M("compose", "multiplies W1 and W2 element by element instead of as matrices", compose__elementwise),
    M("compose", "einsum with a wrong index: 'ij,kj->ik', i.e. W1 @ W2.T", compose__einsum_wrong_letters),
    M("compose", "writes the product into W1 (np.matmul out=W1), overwriting an input", compose__inplace_out),
    M("compose", "adds the two matrices instead of multiplying them", compose__added),
    # 02
    M("project_rows", "row loop stops one short: the last output row stays zero", project_rows__loop_off_by_one),
    M("project_rows", "fills a preallocated integer array, truncating every output to an int", project_rows__int_buffer),
    M("project_rows", "returns W^T X^T, the transpose (d_out, n) of the answer", project_rows__transposed_result),
    M("project_rows", "sums the broadcast product over the output axis instead of d_in: shape (n, d_in)", project_rows__sums_output_axis),
    M("project_rows", "einsum 'ij,jk->k' sums over the rows too: one summed vector (d_out,) instead of (n, d_out)", project_rows__einsum_drops_row_index),
    M("matmul_cost", "computes with floats: returns a float, inexact for huge sizes", matmul_cost__float),
    M("matmul_cost", "multiplies in 32-bit integers, which overflow for large sizes", matmul_cost__int32),
    M("matmul_cost", "counts the additions too: n d_out (2 d_in - 1) instead of n d_in d_out", matmul_cost__counts_adds),
    M("matmul_cost", "counts only the n * d_out output entries, not the d_in multiplications of each", matmul_cost__entries_only),
    M("matmul_cost", "goes through logarithms (10 ** sum of log10), which rounds the count", matmul_cost__via_logs),
    # 03
    M("values", "uses each distinct word once (sorted set of tokens): repeats dropped and order lost", values__unique_words),
    M("values", "projects every row of the table instead of one row per token of the sentence", values__whole_table),
    M("values", "returns Wv^T X^T, the transpose (d_v, n) of V", values__transposed),
    M("values", "zips the tokens with the table, so only the first len(table) tokens are kept", values__zip_truncates),
    M("values", "row loop starts at 1: the first token's row of X stays zero", values__loop_from_one),
    M("one_hot", "returns an integer array instead of floats", one_hot__int_dtype),
    M("one_hot", "treats ids as 1-based: the 1.0 lands in column ids[i] - 1", one_hot__one_based),
    M("one_hot", "takes the width from ids.max() + 1 instead of vocab_size", one_hot__width_from_ids),
    M("one_hot", "returns the transpose, shape (vocab_size, n)", one_hot__transposed),
    M("one_hot", "sorts ids in place: the input is modified and the rows come out in sorted order", one_hot__sorts_ids),
    # 04
    M("uniform_causal_weights", "divides each column j by j + 1 instead of each row i by i + 1", uniform_causal_weights__divides_columns),
    M("uniform_causal_weights", "upper-triangular: row i averages columns i..n-1, the future", uniform_causal_weights__upper),
    M("uniform_causal_weights", "mask offset by one: the diagonal is excluded and row 0 is all zeros", uniform_causal_weights__no_diagonal),
    M("uniform_causal_weights", "divides every row by n instead of i + 1: rows do not sum to 1", uniform_causal_weights__over_n),
    M("uniform_causal_weights", "integer division: only row 0 keeps a 1, every other weight is 0 (and ints)", uniform_causal_weights__int_division),
    M("causal_average", "cumulative sum along the feature axis (last axis) instead of along the rows", causal_average__cumsum_last_axis),
    M("causal_average", "divides the running sums by n instead of by the count i + 1", causal_average__over_n),
    M("causal_average", "divides row i by i (index for count, 0 clamped to 1) instead of i + 1", causal_average__count_is_index),
    M("causal_average", "every row is the mean of all rows: no causality", causal_average__global_mean),
    M("causal_average", "computes the running mean in place in V (cumsum out=V), modifying the input", causal_average__inplace),
    # 05
    M("similarity", "returns K Q^T, the transpose (n_k, n_q)", similarity__keys_first),
    M("similarity", "scales by 1/sqrt(d) although raw unscaled scores are asked for", similarity__scaled),
    M("similarity", "cosine similarity: normalises queries and keys to unit length", similarity__cosine),
    M("similarity", "einsum drops the key index ('id,jd->i'): sums over keys, shape (n_q,)", similarity__einsum_sums_keys),
    M("similarity", "zips queries with keys: only the dot products q_i . k_i, shape (min(n_q, n_k),)", similarity__paired_rows),
    M("learned_scores", "queries and keys swapped: (X Wk)(X Wq)^T, the transpose of S", learned_scores__swapped),
    M("learned_scores", "divides by sqrt(d) although no scaling is asked for", learned_scores__scaled),
    M("learned_scores", "uses Wq for the keys too: (X Wq)(X Wq)^T, symmetric", learned_scores__wq_twice),
    M("learned_scores", "forgets the second X: X Wq Wk^T, shape (n, d_model)", learned_scores__missing_xt),
    M("learned_scores", "adds a causal mask although no mask is asked for", learned_scores__masked),
    # 06
    M("causal_mask", "mask offset by one: the diagonal is hidden too (triu with k=0)", causal_mask__hides_diagonal),
    M("causal_mask", "multiplicative 1/0 mask (1 on and below the diagonal, 0 above) instead of additive 0/-inf", causal_mask__ones_and_zeros),
    M("causal_mask", "uses -1e9 instead of -inf for the future", causal_mask__minus_1e9),
    M("causal_mask", "transposed: -inf below the diagonal (the past) and 0 on and above it", causal_mask__lower_triangle),
    M("causal_mask", "multiplies a 0/1 triangle by -inf: 0 * -inf gives NaN on and below the diagonal", causal_mask__zero_times_inf),
    M("softmax", "no max subtraction: exp overflows for scores around 1000 (NaN)", softmax__no_max_shift),
    M("softmax", "subtracts the global max instead of each slice's max: a slice far below it underflows to 0/0", softmax__global_max),
    M("softmax", "keepdims forgotten on the sum: wrong broadcasting (error or columns divided)", softmax__keepdims_forgotten),
    M("softmax", "ignores the axis argument and always normalises along the last axis", softmax__ignores_axis),
    M("softmax", "uses base 2 (2 ** x) instead of exp", softmax__base_two),
    M("score_scale", "returns 1/d instead of 1/sqrt(d)", score_scale__one_over_d),
    M("score_scale", "returns sqrt(d) instead of 1/sqrt(d)", score_scale__sqrt_d),
    M("score_scale", "precedence: d ** -1 / 2 computes 1/(2d), not d ** -0.5", score_scale__precedence),
    M("score_scale", "uses 1/sqrt(d - 1), a sample-variance (ddof=1) correction (ZeroDivisionError at d = 1)", score_scale__ddof),
    M("score_scale", "integer division 1 // sqrt(d): 1.0 for d = 1 and 0.0 for every larger d", score_scale__integer_division),
    M("attention_weights", "causal mask anchored top-left (triu k=1) when n_q < n_k: queries treated as the first positions", attention_weights__mask_top_left),
    M("attention_weights", "scales by sqrt(n_k), the number of keys, instead of sqrt(d)", attention_weights__sqrt_n_keys),
    M("attention_weights", "always divides by sqrt(d): the scale flag is ignored", attention_weights__always_scaled),
    M("attention_weights", "masks after the softmax (zeroes the future weights) without renormalising: rows sum below 1", attention_weights__mask_after_softmax),
    M("attention_weights", "softmax over axis 0 (columns) instead of over each row", attention_weights__softmax_columns),
    # 07
    M("attention", "causal mask anchored top-left when n_q < n_k instead of the last-n_q-positions rule", attention__mask_top_left),
    M("attention", "scales by sqrt(d_v), the value width, instead of sqrt(d)", attention__scale_by_dv),
    M("attention", "multiplies V by the transposed weights A^T", attention__weights_transposed),
    M("attention", "always applies the causal mask: the causal flag is ignored", attention__always_causal),
    M("attention", "tf-style mask: adds 1 to the allowed scores and 0 to the future instead of 0/-inf, so the future leaks", attention__adds_one_zero_mask),
    M("self_attention", "tests `if Wo:` on an array, which raises (truth value of an array is ambiguous)", self_attention__truthy_wo),
    M("self_attention", "never applies Wo even when it is given", self_attention__ignores_wo),
    M("self_attention", "always causal: the causal flag is not passed on", self_attention__always_causal),
    M("self_attention", "scales by sqrt(d_model) instead of sqrt(d_head)", self_attention__sqrt_d_model),
    M("self_attention", "queries from Wk and keys from Wq (projections swapped)", self_attention__queries_from_wk),
    M("future_leak", "counts the leaking (row, future row) pairs instead of returning the largest distance", future_leak__counts_pairs),
    M("future_leak", "treats any change at all (> 0) as a leak, so rounding noise counts", future_leak__exact_change),
    M("future_leak", "off by one: returns j - i + 1 instead of the distance j - i", future_leak__off_by_one),
    M("future_leak", "only tests whether a row sees the very next row: returns 1 or 0, never a longer distance", future_leak__next_row_only),
    M("future_leak", "moves X[j] in place and subtracts 1 back, leaving X changed by rounding", future_leak__moves_x_in_place),
    M("tiled_attention", "never rescales l and acc when the running max grows (online softmax without the correction)", tiled_attention__no_rescale),
    M("tiled_attention", "rescales by exp(new max - old max): the correction factor's sign is flipped", tiled_attention__rescale_sign_flipped),
    M("tiled_attention", "causal mask anchored top-left in the tiles: ignores the n_k - n_q offset when n_q < n_k", tiled_attention__mask_top_left),
    M("tiled_attention", "scales the scores by sqrt(d_v) instead of sqrt(d)", tiled_attention__scale_by_dv),
    M("tiled_attention", "normalises each tile by its own sum and averages the tiles instead of carrying a running sum", tiled_attention__normalises_each_tile),
    M("tiled_attention", "computes each query block's scores against every key at once (a (block, n_k) strip): too much memory", tiled_attention__score_strip),
    # 08
    M("embed", "adds the last n position vectors pos_emb[-n:] instead of the first n", embed__last_positions),
    M("embed", "looks the position vectors up by token id (pos_emb[tokens]) instead of by position", embed__positions_by_token),
    M("embed", "positions counted from 1: adds pos_emb[1:n+1]", embed__one_based_positions),
    M("embed", "concatenates word and position vectors instead of adding them: shape (n, 2 d_model)", embed__concatenates),
    M("embed", "adds the word vectors in place into a view of pos_emb, modifying the input", embed__adds_into_pos_emb),
    M("sinusoidal_positions", "exponent uses the column index 2i in place of i: frequency 10000^(4i/d)", sinusoidal_positions__column_index_exponent),
    M("sinusoidal_positions", "sin and cos swapped: cosines on the even columns, sines on the odd", sinusoidal_positions__sin_cos_swapped),
    M("sinusoidal_positions", "all sines in the first half of the columns and all cosines in the second instead of interleaved pairs", sinusoidal_positions__halves),
    M("sinusoidal_positions", "operator precedence: t / 10000**(2i) / d instead of t / 10000**(2i/d)", sinusoidal_positions__precedence),
    M("sinusoidal_positions", "positions counted from 1: row 0 is position 1", sinusoidal_positions__one_based),
    M("sinusoidal_positions", "integer division 2i // d in the exponent: every pair turns at one radian per position", sinusoidal_positions__integer_exponent),
    # 09
    M("split_heads", "reshapes M straight to (n_heads, n, d_head) without the transpose: scrambles rows and columns", split_heads__reshape_only),
    M("split_heads", "strided columns M[:, h::n_heads]: interleaved heads instead of contiguous blocks", split_heads__strided_columns),
    M("split_heads", "reshape to (n, n_heads, d_head) but no transpose: wrong axis order", split_heads__no_transpose),
    M("split_heads", "d_head = d_model / n_heads is a float, so slicing raises a TypeError", split_heads__float_d_head),
    M("split_heads", "confuses the head count with the head width: slices n_heads columns per head", split_heads__n_heads_columns),
    M("multi_head_attention", "scales each head by sqrt(n_heads * d_head), the full width, instead of sqrt(d_head)", multi_head_attention__sqrt_d_model),
    M("multi_head_attention", "takes head h's columns strided (h::n_heads) instead of the contiguous block", multi_head_attention__interleaved_heads),
    M("multi_head_attention", "always causal: the causal flag is not passed to the heads", multi_head_attention__always_causal),
    M("multi_head_attention", "every head uses head 0's keys and values", multi_head_attention__head0_kv),
    M("multi_head_attention", "loop runs to n_heads - 1: the last head is dropped (concatenation too narrow for Wo)", multi_head_attention__drops_last_head),
    # 10
    M("layer_norm", "uses the sample variance (ddof=1) instead of the biased variance", layer_norm__ddof_one),
    M("layer_norm", "adds eps to the standard deviation instead of inside the square root", layer_norm__eps_outside_sqrt),
    M("layer_norm", "normalises each column (axis 0) instead of each row", layer_norm__over_columns),
    M("layer_norm", "keepdims forgotten: the row means and variances broadcast along the wrong axis", layer_norm__keepdims_forgotten),
    M("layer_norm", "gain and bias swapped: multiplies by b and adds g", layer_norm__gain_bias_swapped),
    M("gelu", "constant misremembered: 0.04715 instead of 0.044715", gelu__constant_misremembered),
    M("gelu", "sqrt(pi/2) instead of sqrt(2/pi)", gelu__sqrt_pi_over_2),
    M("gelu", "forgets the factor 0.5", gelu__missing_half),
    M("gelu", "x squared instead of x cubed inside the tanh", gelu__squared),
    M("gelu", "exact erf GELU instead of the asked tanh approximation", gelu__exact_erf),
    M("transformer_block", "post-LN: layer norm after each residual sum instead of before each sub-layer", transformer_block__post_ln),
    M("transformer_block", "no residual around the MLP: returns only the MLP output", transformer_block__no_mlp_residual),
    M("transformer_block", "copy-paste: the second layer norm uses ln1_g and ln1_b", transformer_block__ln1_twice),
    M("transformer_block", "causal not passed to multi_head_attention: always causal", transformer_block__causal_dropped),
    M("transformer_block", "GELU applied after W2 (and b2) instead of between W1 and W2", transformer_block__gelu_after_w2),
    # 11
    M("next_token_logits", "uses the first row H[0] instead of the last", next_token_logits__first_row),
    M("next_token_logits", "returns the logits of every position, shape (n, vocab)", next_token_logits__every_row),
    M("next_token_logits", "mean-pools the rows of H before projecting", next_token_logits__mean_pooled),
    M("next_token_logits", "applies a softmax: returns probabilities instead of raw logits", next_token_logits__softmaxed),
    M("next_token_logits", "uses the second-to-last row H[-2]", next_token_logits__second_to_last),
    M("cross_entropy", "gradient not divided by n (gradient of the summed loss, loss averaged)", cross_entropy__grad_not_averaged),
    M("cross_entropy", "takes the log of the softmax probability, which underflows to log 0 = -inf for logits ~1e4", cross_entropy__log_of_probability),
    M("cross_entropy", "loss summed over the rows instead of averaged", cross_entropy__loss_summed),
    M("cross_entropy", "gradient sign flipped: one-hot minus softmax", cross_entropy__grad_sign_flipped),
    M("cross_entropy", "loss and gradient in bits (log base 2) instead of nats", cross_entropy__log2),
    M("cross_entropy", "indexes logp[:, targets] (an (n, n) block) and averages it instead of logp[range(n), targets]", cross_entropy__column_indexing),
    M("softmax_backward", "keepdims forgotten on the row sum of A*dA: broadcasts along the wrong axis", softmax_backward__keepdims_forgotten),
    M("softmax_backward", "only the diagonal of the Jacobian: A (1 - A) dA", softmax_backward__diagonal_only),
    M("softmax_backward", "sums A*dA over the first axis instead of the last", softmax_backward__sum_over_first_axis),
    M("softmax_backward", "subtracts the plain sum of dA instead of the A-weighted sum", softmax_backward__unweighted_sum),
    M("softmax_backward", "returns A * dA, forgetting the subtracted term", softmax_backward__no_subtraction),
    M("attention_backward", "forgets the 1/sqrt(d) factor in dQ and dK", attention_backward__scale_forgotten),
    M("attention_backward", "causal mask anchored top-left when n_q < n_k", attention_backward__mask_top_left),
    M("attention_backward", "dK = dS Q instead of dS^T Q", attention_backward__dk_untransposed),
    M("attention_backward", "always applies the causal mask: the causal flag is ignored", attention_backward__always_causal),
    M("attention_backward", "returns (dQ, dV, dK): dK and dV in the wrong order", attention_backward__returns_dv_before_dk),
    M("layer_norm_backward", "dX = dY g / std only: ignores that the mean and variance depend on the row", layer_norm_backward__through_xhat_only),
    M("layer_norm_backward", "dX keeps the mean term but drops the variance term", layer_norm_backward__mean_term_only),
    M("layer_norm_backward", "dg and db summed over the features (axis 1) instead of over the rows: shape (n,)", layer_norm_backward__param_grads_over_rows),
    M("layer_norm_backward", "uses the sample variance (ddof=1) in the forward and the gradient", layer_norm_backward__ddof_one),
    M("layer_norm_backward", "returns (dX, db, dg): dg and db swapped", layer_norm_backward__db_dg_swapped),
    # 12
    M("most_attended", "argmax over axis 0 (for each key, the query) instead of over each row", most_attended__argmax_columns),
    M("most_attended", "ties go to the later token instead of the earlier one", most_attended__last_of_ties),
    M("most_attended", "returns the column indices instead of the words", most_attended__returns_indices),
    M("most_attended", "skips the diagonal: never returns the token itself", most_attended__skips_itself),
    M("most_attended", "maps the column index into the sorted vocabulary instead of the list of key tokens", most_attended__vocabulary_index),
    M("attention_entropy", "log base 2 (bits) instead of the natural log", attention_entropy__log2),
    M("attention_entropy", "zero weights give 0 * log 0 = NaN", attention_entropy__nan_on_zeros),
    M("attention_entropy", "minus sign dropped: returns sum A log A (<= 0)", attention_entropy__sign_dropped),
    M("attention_entropy", "sums over the queries (axis 0) instead of over each row", attention_entropy__over_columns),
    M("attention_entropy", "divides by log(n_k): a normalised entropy", attention_entropy__normalised),
    # 13
    M("padding_mask", "off by one: the first padding column (j = n_valid) stays visible", padding_mask__off_by_one),
    M("padding_mask", "returns a boolean keep-mask instead of the additive 0/-inf float mask", padding_mask__boolean),
    M("padding_mask", "also hides every key from the query rows i >= n_valid (2-D padding): those rows are all -inf", padding_mask__hides_padded_queries),
    M("padding_mask", "preallocates an integer array: assigning -inf raises OverflowError", padding_mask__int_buffer),
    M("padding_mask", "-1e9 instead of -inf on the padding", padding_mask__minus_1e9),
    M("cross_attention", "applies a causal mask although cross-attention has none", cross_attention__causal),
    M("cross_attention", "queries from Z and keys/values from X: roles swapped", cross_attention__roles_swapped),
    M("cross_attention", "scales by sqrt(d_model) instead of sqrt(d_head)", cross_attention__sqrt_d_model),
    M("cross_attention", "values from X (X Wv) instead of Z", cross_attention__values_from_x),
    M("cross_attention", "softmax over axis 0 (over the queries) instead of over each row", cross_attention__softmax_columns),
    # 14
    M("attend_step", "no max subtraction: exp overflows for huge scores (NaN)", attend_step__no_max_shift),
    M("attend_step", "scales by sqrt(t), the cache length, instead of sqrt(d)", attend_step__sqrt_t),
    M("attend_step", "leaves out the cache's last row (the new token's own key and value)", attend_step__drops_own_row),
    M("attend_step", "forgets to divide the exponentials by their sum", attend_step__unnormalised),
    M("attend_step", "divides the scores by d instead of sqrt(d)", attend_step__divides_by_d),
    M("cache_step", "prepends k and v (first rows) instead of appending them as the last rows", cache_step__prepends),
    M("cache_step", "q attends over the old cache before k and v are appended (and returns zeros when it is empty)", cache_step__attends_before_append),
    M("cache_step", "returns (K_new, V_new, o) instead of (o, K_new, V_new)", cache_step__return_order),
    M("cache_step", "appends q instead of k to the key cache", cache_step__appends_query_as_key),
    M("cache_step", "np.concatenate with the 1-D k and v: raises on the dimension mismatch", cache_step__concatenate_1d),
    M("sample_next", "picks the first running total >= u instead of > u (wrong token when u hits a boundary exactly)", sample_next__ties_at_u),
    M("sample_next", "multiplies the logits by the temperature instead of dividing", sample_next__multiplies_temperature),
    M("sample_next", "softmax without max subtraction: overflows at temperature 1e-8 or logits ~1e4", sample_next__no_max_shift),
    M("sample_next", "returns a numpy integer instead of a Python int", sample_next__numpy_int),
    M("sample_next", "does not rescale the running total to end at 1: u just under 1 gives index vocab (out of range)", sample_next__no_rescale),
    M("sample_next", "greedy ties go to the last largest logit instead of the first", sample_next__greedy_last_of_ties),
    M("top_k_filter", "keeps exactly k tokens (argsort): logits tied with the k-th largest are dropped", top_k_filter__exactly_k),
    M("top_k_filter", "threshold off by one: uses the (k+1)-th largest value and keeps k + 1 tokens", top_k_filter__keeps_k_plus_one),
    M("top_k_filter", "writes -inf into the input logits in place", top_k_filter__in_place),
    M("top_k_filter", "indexes the ascending sort with k: threshold at the (k+1)-th smallest value", top_k_filter__ascending_index),
    M("top_k_filter", "np.sort(logits)[-k] raises IndexError when k > vocab", top_k_filter__index_error_big_k),
    M("top_k_filter", "sets the dropped logits to 0 instead of -inf (tf-style)", top_k_filter__zeros_not_inf),
    M("top_p_filter", "stops only when the running total exceeds p: keeps one token too many when it reaches p exactly", top_p_filter__stops_above_p),
    M("top_p_filter", "keeps only the tokens before the one whose running total reaches p (one too few)", top_p_filter__stops_before_p),
    M("top_p_filter", "ranks from the least probable up", top_p_filter__ascending),
    M("top_p_filter", "equal probabilities ranked higher id first (reversed ascending argsort)", top_p_filter__ties_high_id_first),
    M("top_p_filter", "softmax without max subtraction: overflows (NaN) for logits around 1e300", top_p_filter__no_max_shift),
    M("top_p_filter", "p = 1 not special-cased: drops tokens whose probability rounds to 0", top_p_filter__p_one_drops_zeros),
    M("generate", "logits from the attention output alone, o @ W_out, forgetting the residual x", generate__no_residual),
    M("generate", "position vectors counted from 1: pos_emb[i + 1]", generate__one_based_positions),
    M("generate", "ignores the given cache_step and computes attention itself", generate__own_attention),
    M("generate", "returns only the n_new generated tokens, not the prompt first", generate__new_tokens_only),
    M("generate", "also feeds the last new token: one cache_step call too many", generate__feeds_last_token),
    M("generate", "passes empty caches to every cache_step call: each token attends only to itself", generate__resets_cache),
    M("kv_cache_bytes", "counts the keys only: the factor 2 for keys and values is missing", kv_cache_bytes__keys_only),
    M("kv_cache_bytes", "assumes 4-byte floats, ignoring bytes_per_value", kv_cache_bytes__float32_assumed),
    M("kv_cache_bytes", "returns a float instead of an int", kv_cache_bytes__float_result),
    M("kv_cache_bytes", "ignores batch", kv_cache_bytes__batch_ignored),
    M("kv_cache_bytes", "multiplies in 32-bit integers, which overflow for big caches", kv_cache_bytes__int32_product),
    M("max_cached_tokens", "float division then int(): rounds wrongly for huge memories", max_cached_tokens__float_division),
    M("max_cached_tokens", "per-token bytes without the factor 2 for keys and values", max_cached_tokens__keys_only),
    M("max_cached_tokens", "rounds up (ceil) instead of down: one token too many when the memory is not an exact multiple", max_cached_tokens__rounds_up),
    M("max_cached_tokens", "strict <: a cache that fills the memory exactly is counted as not fitting", max_cached_tokens__full_does_not_fit),
    M("max_cached_tokens", "ignores batch", max_cached_tokens__batch_ignored),
    # 15
    M("previous_token_score", "reads the diagonal above (A[t-1, t], the future) instead of A[t, t-1]", previous_token_score__above_diagonal),
    M("previous_token_score", "divides the sum by T instead of by T - 1 rows", previous_token_score__divides_by_T),
    M("previous_token_score", "returns NaN (mean of nothing) when T = 1 instead of 0.0", previous_token_score__nan_for_one_row),
    M("previous_token_score", "reads the main diagonal A[t, t] (the token itself)", previous_token_score__main_diagonal),
    M("previous_token_score", "returns the sum of A[t, t-1] instead of the mean", previous_token_score__sum_not_mean),
    M("prefix_matching_score", "adds A[t, j], the earlier copy itself, instead of A[t, j + 1]", prefix_matching_score__the_copy_itself),
    M("prefix_matching_score", "uses only the most recent earlier copy instead of all of them", prefix_matching_score__latest_copy_only),
    M("prefix_matching_score", "uses only the first earlier copy instead of all of them", prefix_matching_score__first_copy_only),
    M("prefix_matching_score", "averages over all positions, counting those without an earlier copy as 0", prefix_matching_score__mean_over_all_rows),
    M("prefix_matching_score", "returns NaN instead of 0.0 when no position has an earlier copy", prefix_matching_score__nan_without_copies),
    M("ablate_head", "zeroes the rows in Wo itself (in place) and returns it", ablate_head__in_place),
    M("ablate_head", "zeroes the head's columns instead of its rows", ablate_head__columns),
    M("ablate_head", "counts heads from 1: zeroes the rows of head - 1 (nothing for head 0)", ablate_head__counts_from_one),
    M("ablate_head", "end row inclusive: also zeroes the first row of the next head", ablate_head__inclusive_end),
    M("ablate_head", "d_head taken from Wo.shape[1] (d_model) instead of Wo.shape[0]", ablate_head__d_head_from_d_model),
    # 16
    M("rope", "pairs column i with column i + d/2 (half split) instead of adjacent columns 2i, 2i+1", rope__half_split_pairs),
    M("rope", "uses the row index instead of the given positions", rope__row_index),
    M("rope", "rotates clockwise: the sign of the sine terms is flipped", rope__clockwise),
    M("rope", "frequency theta ** (-i/d) instead of theta ** (-2i/d)", rope__frequency_missing_two),
    M("rope", "rotates X in place and returns it, modifying the input", rope__in_place),
    M("rope", "updates x before computing y in the loop, so y is rotated from the already-rotated x", rope__sequential_overwrite),
    M("rope_attention", "rotates V as well as Q and K", rope_attention__rotates_values),
    M("rope_attention", "rotates the queries only; the keys are left unrotated", rope_attention__queries_only),
    M("rope_attention", "no causal mask", rope_attention__no_mask),
    M("rope_attention", "rotates by the row index instead of the given positions", rope_attention__row_index_positions),
    M("rope_attention", "theta not passed on to rope: always 10000", rope_attention__default_theta),
    M("rope_attention", "scales by sqrt(d/2), the number of pairs, instead of sqrt(d)", rope_attention__sqrt_half_d),
    # 17
    M("grouped_query_attention", "head h reads group h % n_kv_heads (round robin) instead of h // (n_heads // n_kv_heads)", grouped_query_attention__round_robin),
    M("grouped_query_attention", "keys from the right group but values from group h % n_kv_heads", grouped_query_attention__values_round_robin),
    M("grouped_query_attention", "group index h // n_kv_heads instead of h // (n_heads // n_kv_heads)", grouped_query_attention__divides_by_n_kv),
    M("grouped_query_attention", "scales by sqrt(n_kv_heads * d_head), the whole K width, instead of sqrt(d_head)", grouped_query_attention__sqrt_kv_width),
    M("grouped_query_attention", "always causal: the causal flag is not passed on", grouped_query_attention__always_causal),
    M("grouped_cache_step", "head h reads group h % n_kv_heads instead of h // (n_heads // n_kv_heads)", grouped_cache_step__round_robin),
    M("grouped_cache_step", "stores one cache row per query head (repeats k, v) instead of one per group", grouped_cache_step__cache_per_query_head),
    M("grouped_cache_step", "no 1/sqrt(d_head) scaling of the scores", grouped_cache_step__unscaled),
    M("grouped_cache_step", "appends along axis 0 (the groups) instead of axis 1 (the tokens)", grouped_cache_step__appends_on_axis0),
    M("grouped_cache_step", "prepends the new row instead of appending it as the last row", grouped_cache_step__prepends),
    # 18
    M("sliding_window_mask", "window off by one: i - window <= j lets each row see window + 1 positions", sliding_window_mask__one_too_many),
    M("sliding_window_mask", "window off by one: j > i - window + 1 lets each row see only window - 1 positions", sliding_window_mask__one_too_few),
    M("sliding_window_mask", "symmetric band |i - j| < window: the future inside the window is visible", sliding_window_mask__symmetric_band),
    M("sliding_window_mask", "returns a 1/0 keep-mask instead of the additive 0/-inf mask", sliding_window_mask__ones_and_zeros),
    M("sliding_window_mask", "-1e9 instead of -inf outside the window", sliding_window_mask__minus_1e9),
    M("rolling_cache_step", "cuts the cache before appending: it ends with window + 1 rows", rolling_cache_step__cuts_before_append),
    M("rolling_cache_step", "ignores n_sinks: keeps the last window rows", rolling_cache_step__sinks_ignored),
    M("rolling_cache_step", "drops the sinks: keeps only the last window - n_sinks rows", rolling_cache_step__sinks_dropped),
    M("rolling_cache_step", "keeps one recent row too few: window - n_sinks - 1 recent rows", rolling_cache_step__keeps_window_minus_one),
    M("rolling_cache_step", "ring buffer: writes the new row into the evicted slot instead of keeping the rows in order, newest last", rolling_cache_step__ring_buffer),
    # 19 capstone
    M("capstone", "softmax: no max subtraction, overflows for large scores", _ops(softmax=softmax__no_max_shift)),
    M("capstone", "gelu: constant 0.04715 instead of 0.044715", _ops(gelu=gelu__constant_misremembered)),
    M("capstone", "cross_entropy: gradient not divided by n", _ops(cross_entropy=cross_entropy__grad_not_averaged)),
    M("capstone", "layer_norm_backward: dX drops the variance term", _ops(layer_norm_backward=layer_norm_backward__mean_term_only)),
    M("capstone", "embed: position vectors counted from 1 (pos_emb[1:n+1])", _ops(embed=embed__one_based_positions)),
    M("capstone", "attention_backward: the 1/sqrt(d) factor missing from dQ and dK", _ops(attention_backward=attention_backward__scale_forgotten)),
    M("capstone", "rope: pairs column i with i + d/2 instead of adjacent columns", _ops(rope=rope__half_split_pairs)),
    M("capstone", "rolling_cache_step: ignores the sinks, keeps the last window rows", _ops(rolling_cache_step=rolling_cache_step__sinks_ignored)),
    M("capstone", "grouped_cache_step: head h reads group h % n_kv_heads", _ops(grouped_cache_step=grouped_cache_step__round_robin)),
    M("capstone", "grouped_cache_step: no 1/sqrt(d_head) scaling of the scores", _ops(grouped_cache_step=grouped_cache_step__unscaled)),
    M("capstone", "sample_next: multiplies the logits by the temperature instead of dividing", _ops(sample_next=sample_next__multiplies_temperature)),
]

ACCEPTABLE = [
    M("project", "einsum 'i,ij->j'", project_ok_einsum),
    M("compose", "row by row with functools.reduce over the middle index", compose_ok_rows),
    M("project_rows", "map over rows, einsum per row", project_rows_ok_map),
    M("matmul_cost", "math.prod of Python ints", matmul_cost_ok_prod),
    M("values", "np.stack of the rows, then einsum", values_ok_einsum),
    M("one_hot", "comparison of ids with arange, cast to float", one_hot_ok_compare),
    M("uniform_causal_weights", "lower triangle of ones divided by its row sums", uniform_causal_weights_ok_rownorm),
    M("causal_average", "list comprehension of prefix means", causal_average_ok_loop),
    M("similarity", "einsum 'qd,kd->qk'", similarity_ok_einsum),
    M("learned_scores", "X (Wq Wk^T) X^T in one bilinear form", learned_scores_ok_bilinear),
    M("causal_mask", "np.where on np.indices", causal_mask_ok_where),
    M("softmax", "exp(S - logsumexp(S))", softmax_ok_logsumexp),
    M("score_scale", "float(d) ** -0.5", score_scale_ok_power),
    M("attention_weights", "row-by-row loop over the visible keys only", attention_weights_ok_rows),
    M("attention", "einsum with a boolean future mask", attention_ok_einsum),
    M("self_attention", "einsum projections, `Wo is not None`", self_attention_ok_einsum),
    M("future_leak", "comprehension over all (i, j) pairs with a fresh moved copy", future_leak_ok_pairs),
    M("tiled_attention", "online softmax that stops at the causal diagonal", tiled_attention_ok_logsumexp),
    M("embed", "one-hot matrix product for the words, fancy index for the positions", embed_ok_onehot),
    M("sinusoidal_positions", "double loop with exp(-(2i/d) ln 10000)", sinusoidal_positions_ok_loops),
    M("split_heads", "np.split along the columns", split_heads_ok_split),
    M("multi_head_attention", "sum over heads of each head's output times its block of Wo rows", multi_head_attention_ok_sum_of_heads),
    M("layer_norm", "row loop with the centred dot product", layer_norm_ok_rows),
    M("gelu", "factored form x (1 + tanh(c x (1 + 0.044715 x^2))) / 2", gelu_ok_horner),
    M("transformer_block", "a generic residual sub-layer helper", transformer_block_ok_steps),
    M("next_token_logits", "einsum on H[n - 1]", next_token_logits_ok_einsum),
    M("cross_entropy", "one-hot targets and a log-sum-exp", cross_entropy_ok_onehot),
    M("softmax_backward", "explicit Jacobian diag(A) - A A^T", softmax_backward_ok_jacobian),
    M("attention_backward", "einsum throughout with the explicit softmax Jacobian", attention_backward_ok_einsum),
    M("layer_norm_backward", "per-row loop with the (1/d) inv (d dxhat - sum - xhat sum) form", layer_norm_backward_ok_jacobian),
    M("most_attended", "max over indices keyed by (weight, -index)", most_attended_ok_max_loop),
    M("attention_entropy", "log of A with zeros replaced by 1", attention_entropy_ok_masked_log),
    M("padding_mask", "one row repeated n_q times", padding_mask_ok_outer),
    M("cross_attention", "reuses its einsum attention with causal=False", cross_attention_ok_einsum),
    M("attend_step", "einsum, dividing by the sum at the end", attend_step_ok_einsum),
    M("cache_step", "np.append with reshape(1, -1)", cache_step_ok_append),
    M("sample_next", "explicit loops for argmax and the running total", sample_next_ok_loop),
    M("top_k_filter", "np.partition for the k-th largest", top_k_filter_ok_partition),
    M("top_p_filter", "sorted() with a (-p, id) key and an explicit running total", top_p_filter_ok_loop),
    M("generate", "while loop over positions", generate_ok_while),
    M("kv_cache_bytes", "per-token product, then times seq_len, batch and bytes", kv_cache_bytes_ok_prod),
    M("max_cached_tokens", "integer bisection on kv_cache_bytes", max_cached_tokens_ok_bisect),
    M("previous_token_score", "explicit loop over rows 1 .. T-1", previous_token_score_ok_loop),
    M("prefix_matching_score", "boolean matrices shifted by one column", prefix_matching_score_ok_matrix),
    M("ablate_head", "np.where with a per-row head index", ablate_head_ok_mask),
    M("rope", "complex multiplication by exp(i a)", rope_ok_complex),
    M("rope_attention", "complex rope then einsum attention", rope_attention_ok_einsum),
    M("grouped_query_attention", "np.repeat of the K/V heads, then per-head attention", grouped_query_attention_ok_repeat),
    M("grouped_cache_step", "einsum over (group, head-in-group, token)", grouped_cache_step_ok_einsum),
    M("sliding_window_mask", "sum of two -inf triangles", sliding_window_mask_ok_triangles),
    M("rolling_cache_step", "list of kept row indices", rolling_cache_step_ok_indices),
    M("capstone", "every op written a different correct way", dict(OK_OPS)),
]
del M
