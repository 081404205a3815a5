"""Blind set 8: learner mistakes for every graded exercise of "Rediscovering Attention" (exercises 01-19).

Covered: the 51 check names of exercises 01-18 and the capstone of exercise 19:
project, compose (01); project_rows, matmul_cost (02); values, one_hot (03); uniform_causal_weights,
causal_average (04); similarity, learned_scores (05); causal_mask, softmax, score_scale, attention_weights (06);
attention, self_attention, future_leak, tiled_attention (07); embed, sinusoidal_positions (08); split_heads,
multi_head_attention (09); layer_norm, gelu, transformer_block (10); next_token_logits, cross_entropy,
softmax_backward, attention_backward, layer_norm_backward (11); most_attended, attention_entropy (12);
padding_mask, cross_attention (13); attend_step, cache_step, sample_next, top_k_filter, top_p_filter, generate,
kv_cache_bytes, max_cached_tokens (14); previous_token_score, prefix_matching_score, ablate_head (15); rope,
rope_attention (16); grouped_query_attention, grouped_cache_step (17); sliding_window_mask, rolling_cache_step (18);
capstone (19).

How it was written: blind to the grader. Only the exercise texts and stubs, the lessons, the README and attnlib's
maths modules were read; each function is something a learner could write after reading its exercise's text.

Habits imitated (other than those of earlier sets): reading the lesson's pictures rather than the formulas (heat-map
rows vs columns, "the diagonal", "the last row", the triangle or band on the wrong side); testing only on the
lesson's small example and special-casing what it shows (square shapes, n_q = n_k, one head, max_len = n, t >= 1,
no ties, T > 1); carrying over another library's semantics (torch's top-left is_causal, torch.tril's diagonal
argument, torch.multinomial / torch.topk, GPT-NeoX rotate-half RoPE, tensor2tensor's sine/cosine halves,
scipy.stats.entropy's axis 0, np.linalg.norm's whole-matrix default, Hugging Face's 1/0 attention_mask and
quick-GELU, torch's exact-erf GELU, GPT-J's parallel block, post-LN from the original paper, Longformer's
symmetric band); a sign, a reciprocal or a square root wrong in a one-line formula; "sums to 1 over the keys" read as
over the queries; right numbers in the wrong container or dtype (numpy int for an int, bool or int one-hot, a list
as an array, (1, d) for (d,), GiB float for bytes); a mathematically equivalent formula that breaks at extremes
(log-sum-exp softmax at 1e17, zero-then-renormalise masking, running max started at 0, log of a probability);
1-based positions in one place only; numpy traps (np.append without axis, Wo[:] as a copy, `if Wo:`, unsigned
wrap-around, sums without keepdims); arguments passed on incompletely (causal, theta not forwarded).

How verified: a separate script compared every entry with a reference (attnlib's public function where one
exists, otherwise written from the exercise text) on targeted inputs (edge sizes, ties, n_q < n_k, scores around
1e3 to 1e300, t = 0 caches, T = 1 maps, huge integer sizes, custom theta, uneven positions, sinks) and about 50
random inputs per check. Every mistake differs on at least one input (value beyond 1e-6 relative, shape, a type
the text requires, raising, or modifying an input; for tiled_attention one mistake only by its peak memory against
the stated limit, and for generate two only by the number of cache_step calls). Every right answer matches to
1e-9 relative on all inputs and leaves its inputs unchanged. Each capstone dict trains TinyLM for a few steps.

Counts: 257 mistakes and 52 right answers (one per check name and one for the capstone).
4 each: project, compose, project_rows, values, causal_mask, score_scale, split_heads, layer_norm, most_attended,
cache_step, kv_cache_bytes, sliding_window_mask. 6 each: softmax, future_leak, sample_next, top_k_filter,
top_p_filter, generate. 8: capstone. 5 each: all the other 33 check names.
"""
from dataclasses import dataclass
from typing import Callable
import math

import numpy as np

from attnlib import multi_head_attention  # given in exercise 10 for transformer_block


@dataclass(frozen=True)
class Mistake:
    exercise: str  # the exercise's check name, e.g. "causal_mask"
    what: str      # one precise plain-English line naming the mistake, as an ideal grader would
    fn: Callable   # the learner's function, with the exercise's exact signature (for the capstone: the dict of ops)
# ---------------------------------------------------------------------------------------------------------------
# 01 project, compose


def project__column_vector_Wx(x, W):
    return W @ x  # x' = W x, as in the textbook


def project__square_loop(x, W):
    out = np.zeros(len(x))
    for j in range(len(x)):
        out[j] = sum(x[i] * W[i, j] for i in range(len(x)))
    return out


def project__sum_wrong_axis(x, W):
    return (x[:, None] * W).sum(axis=1)


def project__row_matrix(x, W):
    return x.reshape(1, -1) @ W


def project_ok_einsum(x, W):
    return np.einsum("i,ij->j", x, W)


def compose__reversed(W1, W2):
    return W2 @ W1  # W1 applied first, so it goes on the right


def compose__transposed_result(W1, W2):
    return (W1 @ W2).T


def compose__elementwise(W1, W2):
    return W1 * W2


def compose__into_W1(W1, W2):
    W1[...] = W1 @ W2
    return W1


def compose_ok_loops(W1, W2):
    W = np.zeros((W1.shape[0], W2.shape[1]))
    for k in range(W1.shape[1]):
        W += np.outer(W1[:, k], W2[k])
    return W


# ---------------------------------------------------------------------------------------------------------------
# 02 project_rows, matmul_cost


def project_rows__first_row_only(X, W):
    return X[0] @ W


def project_rows__forgot_transpose_back(X, W):
    return W.T @ X.T


def project_rows__zeros_like_X(X, W):
    out = np.zeros_like(X)
    for i in range(X.shape[0]):
        out[i] = X[i] @ W
    return out


def project_rows__tokens_as_columns(X, W):
    return X.T @ W


def project_rows_ok_stack(X, W):
    return np.stack([np.einsum("i,ij->j", x, W) for x in X]).reshape(X.shape[0], W.shape[1])


def matmul_cost__float_prod(n, d_in, d_out):
    return int(np.prod([n, d_in, d_out], dtype=float))  # float so that it does not overflow


def matmul_cost__flops(n, d_in, d_out):
    return n * d_out * (2 * d_in - 1)


def matmul_cost__dot_products(n, d_in, d_out):
    return n * d_out


def matmul_cost__numpy_int(n, d_in, d_out):
    return np.int64(n) * d_in * d_out


def matmul_cost__square_W(n, d_in, d_out):
    return n * d_in * d_in


def matmul_cost_ok_math_prod(n, d_in, d_out):
    return math.prod((int(n), int(d_in), int(d_out)))


# ---------------------------------------------------------------------------------------------------------------
# 03 values, one_hot


def values__distinct_words(tokens, table, Wv):
    X = np.array([table[w] for w in dict.fromkeys(tokens)])
    return X @ Wv


def values__table_rows(tokens, table, Wv):
    X = np.array(list(table.values()))
    return X @ Wv


def values__sorted_tokens(tokens, table, Wv):
    X = np.array([table[w] for w in sorted(tokens)])
    return X @ Wv


def values__Wv_transposed(tokens, table, Wv):
    X = np.array([table[w] for w in tokens])
    return X @ Wv.T


def values_ok_stack(tokens, table, Wv):
    return np.stack([np.asarray(table[w], dtype=float) for w in tokens]) @ Wv


def one_hot__vocab_from_ids(ids, vocab_size):
    return np.eye(ids.max() + 1)[ids]


def one_hot__columns(ids, vocab_size):
    return np.eye(vocab_size)[:, ids]


def one_hot__sorts_ids(ids, vocab_size):
    ids.sort()
    out = np.zeros((len(ids), vocab_size))
    out[np.arange(len(ids)), ids] = 1.0
    return out


def one_hot__bool(ids, vocab_size):
    return ids[:, None] == np.arange(vocab_size)[None, :]


def one_hot__int_zeros(ids, vocab_size):
    out = np.zeros((len(ids), vocab_size), dtype=int)
    out[np.arange(len(ids)), ids] = 1
    return out


def one_hot_ok_eye(ids, vocab_size):
    return np.eye(vocab_size)[np.asarray(ids)]


# ---------------------------------------------------------------------------------------------------------------
# 04 uniform_causal_weights, causal_average


def uniform_causal_weights__transposed(n):
    A = np.tril(np.ones((n, n))) / np.arange(1, n + 1)[:, None]
    return A.T


def uniform_causal_weights__divide_by_column(n):
    return np.tril(np.ones((n, n))) / np.arange(1, n + 1)[None, :]


def uniform_causal_weights__divide_by_n(n):
    return np.tril(np.ones((n, n))) / n


def uniform_causal_weights__columns_sum_to_one(n):
    L = np.tril(np.ones((n, n)))
    return L / L.sum(axis=0, keepdims=True)


def uniform_causal_weights__n1_vector(n):
    if n == 1:
        return np.ones(1)
    return np.tril(np.ones((n, n))) / np.arange(1, n + 1)[:, None]


def uniform_causal_weights_ok_where(n):
    i, j = np.indices((n, n))
    return np.where(j <= i, 1.0 / (i + 1), 0.0)


def causal_average__features_axis(V):
    return np.cumsum(V, axis=1) / np.arange(1, V.shape[1] + 1)[None, :]


def causal_average__divide_by_n(V):
    return np.cumsum(V, axis=0) / len(V)


def causal_average__previous_rows(V):
    out = np.zeros_like(V, dtype=float)
    out[0] = V[0]
    for i in range(1, len(V)):
        out[i] = V[:i].mean(axis=0)
    return out


def causal_average__from_the_end(V):
    n = len(V)
    return np.cumsum(V[::-1], axis=0)[::-1] / np.arange(n, 0, -1)[:, None]


def causal_average__in_place(V):
    np.cumsum(V, axis=0, out=V)
    V /= np.arange(1, len(V) + 1)[:, None]
    return V


def causal_average_ok_matrix(V):
    n = V.shape[0]
    A = np.tril(np.ones((n, n))) / np.arange(1, n + 1)[:, None]
    return A @ V


# ---------------------------------------------------------------------------------------------------------------
# 05 similarity, learned_scores


def similarity__keys_by_queries(Q, K):
    return K @ Q.T


def similarity__no_transpose(Q, K):
    return Q @ K


def similarity__scaled(Q, K):
    return Q @ K.T / np.sqrt(Q.shape[1])


def similarity__norm_default(Q, K):
    return Q @ K.T / (np.linalg.norm(Q) * np.linalg.norm(K))  # cosine similarity


def similarity__diagonal_only(Q, K):
    return (Q * K).sum(axis=1)


def similarity_ok_einsum(Q, K):
    return np.einsum("id,jd->ij", Q, K)


def learned_scores__keys_by_queries(X, Wq, Wk):
    return (X @ Wk) @ (X @ Wq).T


def learned_scores__combined_wrong(X, Wq, Wk):
    return X @ (Wq.T @ Wk) @ X.T


def learned_scores__scaled(X, Wq, Wk):
    return (X @ Wq) @ (X @ Wk).T / np.sqrt(Wq.shape[1])


def learned_scores__masked(X, Wq, Wk):
    S = (X @ Wq) @ (X @ Wk).T
    return S + np.triu(np.full(S.shape, -np.inf), k=1)


def learned_scores__symmetrised(X, Wq, Wk):
    S = (X @ Wq) @ (X @ Wk).T
    return (S + S.T) / 2


def learned_scores_ok_one_matrix(X, Wq, Wk):
    return X @ (Wq @ Wk.T) @ X.T


# ---------------------------------------------------------------------------------------------------------------
# 06 causal_mask, softmax, score_scale, attention_weights


def causal_mask__diagonal_hidden(n):
    return np.where(np.tril(np.ones((n, n)), k=-1) == 1, 0.0, -np.inf)


def causal_mask__lower_triangle(n):
    return np.triu(np.full((n, n), -np.inf), k=1).T


def causal_mask__times_inf(n):
    return np.triu(np.ones((n, n)), k=1) * -np.inf


def causal_mask__minus_1e9(n):
    return np.triu(np.full((n, n), -1e9), k=1)


def causal_mask_ok_where(n):
    r = np.arange(n)
    return np.where(r[None, :] > r[:, None], -np.inf, 0.0)


def softmax__no_shift(S, axis=-1):
    E = np.exp(S)
    return E / E.sum(axis=axis, keepdims=True)


def softmax__global_max(S, axis=-1):
    E = np.exp(S - np.max(S))
    return E / E.sum(axis=axis, keepdims=True)


def softmax__last_axis_always(S, axis=-1):
    E = np.exp(S - S.max(axis=-1, keepdims=True))
    return E / E.sum(axis=-1, keepdims=True)


def softmax__sum_without_keepdims(S, axis=-1):
    E = np.exp(S - S.max(axis=axis, keepdims=True))
    return E / E.sum(axis=axis)


def softmax__shift_by_min(S, axis=-1):
    E = np.exp(S - S.min(axis=axis, keepdims=True))  # every exponent >= 0, nothing underflows
    return E / E.sum(axis=axis, keepdims=True)


def softmax__logsumexp_form(S, axis=-1):
    m = np.max(S, axis=axis, keepdims=True)
    lse = m + np.log(np.sum(np.exp(S - m), axis=axis, keepdims=True))
    return np.exp(S - lse)  # log-softmax, then exp


def softmax_ok_moveaxis(S, axis=-1):
    Z = np.moveaxis(np.asarray(S, dtype=float), axis, -1)
    E = np.exp(Z - Z.max(axis=-1)[..., None])
    P = E / E.sum(axis=-1)[..., None]
    return np.moveaxis(P, -1, axis)


def score_scale__sqrt_d(d):
    return math.sqrt(d)


def score_scale__one_over_d(d):
    return 1.0 / d  # the variance grows like d


def score_scale__measured(d):
    rng = np.random.default_rng(0)
    dots = (rng.standard_normal((20_000, d)) * rng.standard_normal((20_000, d))).sum(axis=1)
    return float(1.0 / dots.std())


def score_scale__array(d):
    return 1.0 / np.sqrt(np.atleast_1d(d))


def score_scale_ok_power(d):
    return float(d) ** -0.5


def _aw_softmax(S, axis=-1):
    E = np.exp(S - S.max(axis=axis, keepdims=True))
    return E / E.sum(axis=axis, keepdims=True)


def attention_weights__top_left_mask(Q, K, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(Q.shape[1])
    if causal:  # like is_causal=True in torch's scaled_dot_product_attention
        S = S + np.triu(np.full(S.shape, -np.inf), k=1)
    return _aw_softmax(S)


def attention_weights__scale_by_n_k(Q, K, causal=True, scale=True):
    n_q, n_k = Q.shape[0], K.shape[0]
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(K.shape[0])
    if causal:
        S = S + np.triu(np.full((n_q, n_k), -np.inf), k=n_k - n_q + 1)
    return _aw_softmax(S)


def attention_weights__softmax_over_queries(Q, K, causal=True, scale=True):
    n_q, n_k = Q.shape[0], K.shape[0]
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(Q.shape[1])
    if causal:
        S = S + np.triu(np.full((n_q, n_k), -np.inf), k=n_k - n_q + 1)
    return _aw_softmax(S, axis=0)


def attention_weights__scaled_after_softmax(Q, K, causal=True, scale=True):
    n_q, n_k = Q.shape[0], K.shape[0]
    S = Q @ K.T
    if causal:
        S = S + np.triu(np.full((n_q, n_k), -np.inf), k=n_k - n_q + 1)
    A = _aw_softmax(S)
    return A / np.sqrt(Q.shape[1]) if scale else A


def attention_weights__always_scaled(Q, K, causal=True, scale=True):
    n_q, n_k = Q.shape[0], K.shape[0]
    S = Q @ K.T / np.sqrt(Q.shape[1])
    if causal:
        S = S + np.triu(np.full((n_q, n_k), -np.inf), k=n_k - n_q + 1)
    return _aw_softmax(S)


def attention_weights_ok_positions(Q, K, causal=True, scale=True):
    n_q, n_k = Q.shape[0], K.shape[0]
    S = np.einsum("id,jd->ij", Q, K) * (1.0 / math.sqrt(Q.shape[1]) if scale else 1.0)
    if causal:
        q_pos = np.arange(n_k - n_q, n_k)
        S = np.where(np.arange(n_k)[None, :] > q_pos[:, None], -np.inf, S)
    return softmax_ok_moveaxis(S, axis=1)


# ---------------------------------------------------------------------------------------------------------------
# 07 attention, self_attention, future_leak, tiled_attention


def _mask_last(n_q, n_k):
    return np.triu(np.full((n_q, n_k), -np.inf), k=n_k - n_q + 1)


def attention__weights_transposed(Q, K, V, causal=True, scale=True):
    S = Q @ K.T / (np.sqrt(Q.shape[1]) if scale else 1.0)
    if causal:
        S = S + _mask_last(*S.shape)
    return _aw_softmax(S).T @ V


def attention__top_left_mask(Q, K, V, causal=True, scale=True):
    S = Q @ K.T / (np.sqrt(Q.shape[1]) if scale else 1.0)
    if causal:
        S = S + np.triu(np.full(S.shape, -np.inf), k=1)
    return _aw_softmax(S) @ V


def attention__zero_future_after_softmax(Q, K, V, causal=True, scale=True):
    S = Q @ K.T / (np.sqrt(Q.shape[1]) if scale else 1.0)
    A = _aw_softmax(S)
    if causal:
        A = A * np.isfinite(_mask_last(*S.shape))  # blank the future cells of the heat map
    return A @ V


def attention__scale_by_d_v(Q, K, V, causal=True, scale=True):
    S = Q @ K.T / (np.sqrt(V.shape[1]) if scale else 1.0)
    if causal:
        S = S + _mask_last(*S.shape)
    return _aw_softmax(S) @ V


def attention__renormalise_after_zeroing(Q, K, V, causal=True, scale=True):
    S = Q @ K.T / (np.sqrt(Q.shape[1]) if scale else 1.0)
    A = _aw_softmax(S)
    if causal:
        A = A * np.isfinite(_mask_last(*S.shape))
        A = A / A.sum(axis=1, keepdims=True)
    return A @ V


def attention_ok_einsum(Q, K, V, causal=True, scale=True):
    A = attention_weights_ok_positions(Q, K, causal, scale)
    return np.einsum("ij,jv->iv", A, V)


def _sa_attention(Q, K, V, causal=True, scale=True):
    S = Q @ K.T / (np.sqrt(Q.shape[1]) if scale else 1.0)
    if causal:
        S = S + _mask_last(*S.shape)
    return _aw_softmax(S) @ V


def self_attention__if_Wo(X, Wq, Wk, Wv, Wo=None, causal=True):
    O = _sa_attention(X @ Wq, X @ Wk, X @ Wv, causal)
    if Wo:
        O = O @ Wo
    return O


def self_attention__unscaled(X, Wq, Wk, Wv, Wo=None, causal=True):
    O = _sa_attention(X @ Wq, X @ Wk, X @ Wv, causal, scale=False)
    return O if Wo is None else O @ Wo


def self_attention__Wo_transposed(X, Wq, Wk, Wv, Wo=None, causal=True):
    O = _sa_attention(X @ Wq, X @ Wk, X @ Wv, causal)
    return O if Wo is None else O @ Wo.T


def self_attention__scale_by_d_model(X, Wq, Wk, Wv, Wo=None, causal=True):
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    S = Q @ K.T / np.sqrt(X.shape[1])
    if causal:
        S = S + _mask_last(*S.shape)
    O = _aw_softmax(S) @ V
    return O if Wo is None else O @ Wo


def self_attention__residual(X, Wq, Wk, Wv, Wo=None, causal=True):
    O = _sa_attention(X @ Wq, X @ Wk, X @ Wv, causal)
    if Wo is not None:
        O = O @ Wo
    return X + O


def self_attention_ok_calls_attention(X, Wq, Wk, Wv, Wo=None, causal=True):
    O = attention_ok_einsum(X @ Wq, X @ Wk, X @ Wv, causal=causal, scale=True)
    return O @ Wo if Wo is not None else O


def _leak_threshold(out):
    return 1e-9 * max(float(np.abs(out).max()), 1.0)


def future_leak__counts_rows(attn, X):
    base = np.asarray(attn(X)).reshape(len(X), -1)
    leaking = set()
    for j in range(len(X)):
        moved = X.copy()
        moved[j] += 1.0
        change = np.abs(np.asarray(attn(moved)).reshape(len(X), -1) - base).max(axis=1)
        leaking |= {int(i) for i in np.flatnonzero(change > _leak_threshold(base)) if i < j}
    return len(leaking)


def future_leak__exact_equality(attn, X):
    base = np.asarray(attn(X)).reshape(len(X), -1)
    worst = 0
    for j in range(len(X)):
        moved = X.copy()
        moved[j] += 1.0
        out = np.asarray(attn(moved)).reshape(len(X), -1)
        for i in range(j):
            if not np.array_equal(out[i], base[i]):
                worst = max(worst, j - i)
    return worst


def future_leak__absolute_tolerance(attn, X):
    base = np.asarray(attn(X)).reshape(len(X), -1)
    worst = 0
    for j in range(len(X)):
        moved = X.copy()
        moved[j] += 1.0
        change = np.abs(np.asarray(attn(moved)).reshape(len(X), -1) - base).max(axis=1)
        for i in np.flatnonzero(change > 1e-9):
            worst = max(worst, j - int(i))
    return worst


def future_leak__looks_backwards(attn, X):
    base = np.asarray(attn(X)).reshape(len(X), -1)
    worst = 0
    for j in range(len(X)):
        moved = X.copy()
        moved[j] += 1.0
        change = np.abs(np.asarray(attn(moved)).reshape(len(X), -1) - base).max(axis=1)
        for i in np.flatnonzero(change > _leak_threshold(base)):
            worst = max(worst, abs(j - int(i)))  # how far apart the row and the moved row are
    return worst


def future_leak__moves_X_in_place(attn, X):
    base = np.asarray(attn(X)).reshape(len(X), -1).copy()
    worst = 0
    for j in range(len(X)):
        X[j] += 1.0
        change = np.abs(np.asarray(attn(X)).reshape(len(X), -1) - base).max(axis=1)
        X[j] -= 1.0
        for i in np.flatnonzero(change > _leak_threshold(base)):
            worst = max(worst, j - int(i))
    return worst


def future_leak__last_row_only(attn, X):
    base = np.asarray(attn(X)).reshape(len(X), -1)
    moved = X.copy()
    moved[-1] += 1.0  # the last row is the one everybody could peek at
    change = np.abs(np.asarray(attn(moved)).reshape(len(X), -1) - base).max(axis=1)
    rows = np.flatnonzero(change[:-1] > _leak_threshold(base))
    return int(len(X) - 1 - rows.min()) if rows.size else 0


def future_leak_ok_matrix(attn, X):
    n = X.shape[0]
    base = np.asarray(attn(X), dtype=float).reshape(n, -1)
    tol = 1e-9 * max(np.abs(base).max(), 1.0)
    sees = np.zeros((n, n), dtype=bool)  # sees[i, j]: output row i moves with input row j
    for j in range(n):
        moved = np.array(X, dtype=float, copy=True)
        moved[j] = moved[j] + 1.0
        sees[:, j] = np.abs(np.asarray(attn(moved), dtype=float).reshape(n, -1) - base).max(axis=1) > tol
    i, j = np.nonzero(sees)
    ahead = j - i
    return int(ahead.max()) if ahead.size and ahead.max() > 0 else 0


def _tiles(Q, K, V, causal, block, rescale, m0=-np.inf, strip=False, top_left=False):
    n_q, n_k, d = Q.shape[0], K.shape[0], Q.shape[1]
    out = np.empty((n_q, V.shape[1]))
    offset = 0 if top_left else n_k - n_q
    for q0 in range(0, n_q, block):
        q = Q[q0:q0 + block]
        rows = np.arange(q0, q0 + len(q)) + offset
        m = np.full(len(q), m0)
        total = np.zeros(len(q))
        acc = np.zeros((len(q), V.shape[1]))
        step = n_k if strip else block
        for k0 in range(0, n_k, step):
            s = q @ K[k0:k0 + step].T / np.sqrt(d)
            if causal:
                s = np.where(np.arange(k0, k0 + s.shape[1])[None, :] > rows[:, None], -np.inf, s)
            m_new = np.maximum(m, s.max(axis=1))
            safe = np.where(np.isfinite(m_new), m_new, 0.0)
            e = np.exp(s - safe[:, None])
            if rescale == "right":
                shrink = np.exp(np.where(np.isfinite(m), m - safe, -np.inf))
            elif rescale == "flipped":
                shrink = np.exp(np.where(np.isfinite(m), safe - m, -np.inf))
            else:
                shrink = np.ones(len(q))
            total = total * shrink + e.sum(axis=1)
            acc = acc * shrink[:, None] + e @ V[k0:k0 + step]
            m = m_new
        out[q0:q0 + block] = acc / total[:, None]
    return out


def tiled_attention__no_rescale(Q, K, V, causal=True, block=64):
    return _tiles(Q, K, V, causal, block, rescale="none")


def tiled_attention__rescale_flipped(Q, K, V, causal=True, block=64):
    return _tiles(Q, K, V, causal, block, rescale="flipped")


def tiled_attention__full_strip(Q, K, V, causal=True, block=64):
    return _tiles(Q, K, V, causal, block, rescale="right", strip=True)


def tiled_attention__top_left_rows(Q, K, V, causal=True, block=64):
    return _tiles(Q, K, V, causal, block, rescale="right", top_left=True)


def tiled_attention__max_starts_at_zero(Q, K, V, causal=True, block=64):
    return _tiles(Q, K, V, causal, block, rescale="right", m0=0.0)


def tiled_attention_ok_online(Q, K, V, causal=True, block=64):
    n_q, n_k = Q.shape[0], K.shape[0]
    c = 1.0 / math.sqrt(Q.shape[1])
    O = np.zeros((n_q, V.shape[1]))
    for a in range(0, n_q, block):
        qb = Q[a:a + block]
        pos = np.arange(a, a + qb.shape[0]) + (n_k - n_q)
        run_max = np.full(qb.shape[0], -np.inf)
        run_sum = np.zeros(qb.shape[0])
        run_acc = np.zeros((qb.shape[0], V.shape[1]))
        for b in range(0, n_k, block):
            if causal and b > pos[-1]:
                break
            tile = (qb @ K[b:b + block].T) * c
            if causal:
                tile[np.arange(b, b + tile.shape[1])[None, :] > pos[:, None]] = -np.inf
            new_max = np.maximum(run_max, tile.max(axis=1))
            ok = np.isfinite(new_max)
            ref = np.where(ok, new_max, 0.0)
            p = np.exp(tile - ref[:, None])
            alpha = np.where(np.isfinite(run_max), np.exp(run_max - ref), 0.0)
            run_sum = alpha * run_sum + p.sum(axis=1)
            run_acc = alpha[:, None] * run_acc + p @ V[b:b + block]
            run_max = new_max
        O[a:a + block] = run_acc / run_sum[:, None]
    return O


# ---------------------------------------------------------------------------------------------------------------
# 08 embed, sinusoidal_positions


def embed__position_by_word_id(tokens, tok_emb, pos_emb):
    return tok_emb[tokens] + pos_emb[tokens]


def embed__whole_position_table(tokens, tok_emb, pos_emb):
    return tok_emb[tokens] + pos_emb


def embed__positions_from_one(tokens, tok_emb, pos_emb):
    n = len(tokens)
    return tok_emb[tokens] + pos_emb[1:n + 1]  # the first word is position 1


def embed__last_positions(tokens, tok_emb, pos_emb):
    return tok_emb[tokens] + pos_emb[-len(tokens):]


def embed__concatenated(tokens, tok_emb, pos_emb):
    return np.concatenate([tok_emb[tokens], pos_emb[:len(tokens)]], axis=1)


def embed_ok_take(tokens, tok_emb, pos_emb):
    n = np.shape(tokens)[0]
    return np.take(tok_emb, tokens, axis=0) + np.take(pos_emb, np.arange(n), axis=0)


def sinusoidal_positions__halves(n, d):
    t = np.arange(n)[:, None]
    freq = 10000.0 ** (-np.arange(0, d, 2) / d)
    return np.concatenate([np.sin(t * freq), np.cos(t * freq)], axis=1)  # as tensor2tensor lays them out


def sinusoidal_positions__column_index_exponent(n, d):
    t = np.arange(n)[:, None]
    j = np.arange(d)[None, :]
    angle = t / 10000.0 ** (j / d)
    return np.where(j % 2 == 0, np.sin(angle), np.cos(angle))


def sinusoidal_positions__t_from_one(n, d):
    t = np.arange(1, n + 1)[:, None]
    freq = 10000.0 ** (-np.arange(0, d, 2) / d)
    P = np.zeros((n, d))
    P[:, 0::2] = np.sin(t * freq)
    P[:, 1::2] = np.cos(t * freq)
    return P


def sinusoidal_positions__multiplied(n, d):
    t = np.arange(n)[:, None]
    i = np.arange(d // 2)[None, :]
    P = np.zeros((n, d))
    P[:, 0::2] = np.sin(t * 10000.0 ** (2 * i / d))
    P[:, 1::2] = np.cos(t * 10000.0 ** (2 * i / d))
    return P


def sinusoidal_positions__cos_first(n, d):
    t = np.arange(n)[:, None]
    freq = 10000.0 ** (-np.arange(0, d, 2) / d)
    P = np.zeros((n, d))
    P[:, 0::2] = np.cos(t * freq)
    P[:, 1::2] = np.sin(t * freq)
    return P


def sinusoidal_positions_ok_loops(n, d):
    P = np.empty((n, d))
    for t in range(n):
        for i in range(d // 2):
            a = t / 10000.0 ** (2 * i / d)
            P[t, 2 * i], P[t, 2 * i + 1] = math.sin(a), math.cos(a)
    return P


# ---------------------------------------------------------------------------------------------------------------
# 09 split_heads, multi_head_attention


def split_heads__reshape_only(M, n_heads):
    n, d_model = M.shape
    return M.reshape(n_heads, n, d_model // n_heads)


def split_heads__interleaved(M, n_heads):
    return np.stack([M[:, h::n_heads] for h in range(n_heads)])


def split_heads__heads_in_middle(M, n_heads):
    n, d_model = M.shape
    return M.reshape(n, n_heads, d_model // n_heads)


def split_heads__d_head_from_rows(M, n_heads):
    d_head = M.shape[0] // n_heads
    return np.stack([M[:, h * d_head:(h + 1) * d_head] for h in range(n_heads)])


def split_heads_ok_transpose(M, n_heads):
    n, d_model = M.shape
    return M.reshape(n, n_heads, d_model // n_heads).transpose(1, 0, 2).copy()


def _mha_attend(Q, K, V, causal=True):
    S = Q @ K.T / np.sqrt(Q.shape[1])
    if causal:
        S = S + np.triu(np.full(S.shape, -np.inf), k=1)
    E = np.exp(S - S.max(axis=1, keepdims=True))
    return (E / E.sum(axis=1, keepdims=True)) @ V


def multi_head_attention__scale_by_full_width(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    Q, K, V = (split_heads_ok_transpose(X @ W, n_heads) for W in (Wq, Wk, Wv))
    outs = []
    for h in range(n_heads):
        S = Q[h] @ K[h].T / np.sqrt(Wq.shape[1])
        if causal:
            S = S + np.triu(np.full(S.shape, -np.inf), k=1)
        E = np.exp(S - S.max(axis=1, keepdims=True))
        outs.append(E / E.sum(axis=1, keepdims=True) @ V[h])
    return np.concatenate(outs, axis=1) @ Wo


def multi_head_attention__no_Wo(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    Q, K, V = (split_heads_ok_transpose(X @ W, n_heads) for W in (Wq, Wk, Wv))
    return np.concatenate([_mha_attend(Q[h], K[h], V[h], causal) for h in range(n_heads)], axis=1)


def multi_head_attention__interleaved_heads(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    outs = [_mha_attend(Q[:, h::n_heads], K[:, h::n_heads], V[:, h::n_heads], causal) for h in range(n_heads)]
    return np.concatenate(outs, axis=1) @ Wo


def multi_head_attention__one_big_head(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    return _mha_attend(X @ Wq, X @ Wk, X @ Wv, causal) @ Wo


def multi_head_attention__d_head_from_X(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    d_head = X.shape[1] // n_heads
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    outs = []
    for h in range(n_heads):
        cols = slice(h * d_head, (h + 1) * d_head)
        outs.append(_mha_attend(Q[:, cols], K[:, cols], V[:, cols], causal))
    return np.concatenate(outs, axis=1) @ Wo[:n_heads * d_head]


def multi_head_attention_ok_batched(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    n = X.shape[0]
    Q, K, V = (split_heads_ok_transpose(X @ W, n_heads) for W in (Wq, Wk, Wv))  # (h, n, d_head)
    S = np.einsum("hid,hjd->hij", Q, K) / math.sqrt(Q.shape[2])
    if causal:
        S = np.where(np.triu(np.ones((n, n), dtype=bool), k=1), -np.inf, S)
    A = softmax_ok_moveaxis(S, axis=-1)
    O = np.einsum("hij,hjd->hid", A, V)
    return O.transpose(1, 0, 2).reshape(n, -1) @ Wo


# ---------------------------------------------------------------------------------------------------------------
# 10 layer_norm, gelu, transformer_block


def layer_norm__eps_outside_sqrt(X, g, b, eps=1e-5):
    mu = X.mean(axis=1, keepdims=True)
    sd = X.std(axis=1, keepdims=True)
    return (X - mu) / (sd + eps) * g + b


def layer_norm__per_feature(X, g, b, eps=1e-5):
    mu = X.mean(axis=0, keepdims=True)
    var = X.var(axis=0, keepdims=True)
    return (X - mu) / np.sqrt(var + eps) * g + b


def layer_norm__no_square_root(X, g, b, eps=1e-5):
    mu = X.mean(axis=1, keepdims=True)
    var = ((X - mu) ** 2).mean(axis=1, keepdims=True)
    return (X - mu) / (var + eps) * g + b


def layer_norm__whole_matrix_stats(X, g, b, eps=1e-5):
    return (X - X.mean()) / np.sqrt(X.var() + eps) * g + b


def layer_norm_ok_centered(X, g, b, eps=1e-5):
    Xc = X - np.mean(X, axis=-1, keepdims=True)
    var = np.mean(Xc * Xc, axis=-1, keepdims=True)
    return g * (Xc / np.sqrt(var + eps)) + b


def gelu__exact_erf(X):
    erf = np.vectorize(math.erf)
    return 0.5 * X * (1.0 + erf(X / math.sqrt(2.0)))  # torch's default GELU


def gelu__sqrt_pi_over_2(X):
    return 0.5 * X * (1 + np.tanh(np.sqrt(np.pi / 2) * (X + 0.044715 * X ** 3)))


def gelu__squared_term(X):
    return 0.5 * X * (1 + np.tanh(np.sqrt(2 / np.pi) * (X + 0.044715 * X ** 2)))


def gelu__quick_sigmoid(X):
    return X / (1.0 + np.exp(-1.702 * X))


def gelu__cubic_outside_tanh(X):
    return 0.5 * X * (1 + np.tanh(np.sqrt(2 / np.pi) * X) + 0.044715 * X ** 3)


def gelu_ok_constants(X):
    c = math.sqrt(2.0 / math.pi)
    Y = X * 0.5 * (1.0 + np.tanh(c * X * (1.0 + 0.044715 * X * X)))
    return np.where(np.isneginf(X), 0.0, Y)


def transformer_block__post_ln(X, p, n_heads, causal=True):
    Y = layer_norm_ok_centered(X + multi_head_attention(X, p["Wq"], p["Wk"], p["Wv"], p["Wo"], n_heads, causal),
                               p["ln1_g"], p["ln1_b"])
    return layer_norm_ok_centered(Y + gelu_ok_constants(Y @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"],
                                  p["ln2_g"], p["ln2_b"])


def transformer_block__residual_from_normed(X, p, n_heads, causal=True):
    H = layer_norm_ok_centered(X, p["ln1_g"], p["ln1_b"])
    Y = H + multi_head_attention(H, p["Wq"], p["Wk"], p["Wv"], p["Wo"], n_heads, causal)
    H2 = layer_norm_ok_centered(Y, p["ln2_g"], p["ln2_b"])
    return H2 + gelu_ok_constants(H2 @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"]


def transformer_block__gelu_on_output(X, p, n_heads, causal=True):
    Y = X + multi_head_attention(layer_norm_ok_centered(X, p["ln1_g"], p["ln1_b"]), p["Wq"], p["Wk"], p["Wv"],
                                 p["Wo"], n_heads, causal)
    return Y + gelu_ok_constants(gelu_ok_constants(layer_norm_ok_centered(Y, p["ln2_g"], p["ln2_b"]) @ p["W1"]
                                                   + p["b1"]) @ p["W2"] + p["b2"])


def transformer_block__causal_not_passed(X, p, n_heads, causal=True):
    Y = X + multi_head_attention(layer_norm_ok_centered(X, p["ln1_g"], p["ln1_b"]), p["Wq"], p["Wk"], p["Wv"],
                                 p["Wo"], n_heads)
    return Y + gelu_ok_constants(layer_norm_ok_centered(Y, p["ln2_g"], p["ln2_b"]) @ p["W1"] + p["b1"]) @ p["W2"] \
        + p["b2"]


def transformer_block__parallel(X, p, n_heads, causal=True):
    attn = multi_head_attention(layer_norm_ok_centered(X, p["ln1_g"], p["ln1_b"]), p["Wq"], p["Wk"], p["Wv"],
                                p["Wo"], n_heads, causal)
    mlp = gelu_ok_constants(layer_norm_ok_centered(X, p["ln2_g"], p["ln2_b"]) @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"]
    return X + attn + mlp  # attention and MLP side by side, as in GPT-J


def transformer_block_ok_steps(X, p, n_heads, causal=True):
    def ln(Z, g, b):
        return layer_norm_ok_centered(Z, g, b)

    attn_out = multi_head_attention(ln(X, p["ln1_g"], p["ln1_b"]), p["Wq"], p["Wk"], p["Wv"], p["Wo"], n_heads,
                                    causal=causal)
    Y = X + attn_out
    hidden = gelu_ok_constants(ln(Y, p["ln2_g"], p["ln2_b"]) @ p["W1"] + p["b1"])
    return Y + (hidden @ p["W2"] + p["b2"])


# ---------------------------------------------------------------------------------------------------------------
# 11 next_token_logits, cross_entropy, softmax_backward, attention_backward, layer_norm_backward


def next_token_logits__first_row(H, W_vocab):
    return H[0] @ W_vocab


def next_token_logits__softmaxed(H, W_vocab):
    z = H[-1] @ W_vocab
    e = np.exp(z - z.max())
    return e / e.sum()


def next_token_logits__every_row(H, W_vocab):
    return H @ W_vocab


def next_token_logits__mean_pooled(H, W_vocab):
    return H.mean(axis=0) @ W_vocab


def next_token_logits__keeps_row_axis(H, W_vocab):
    return H[-1:] @ W_vocab


def next_token_logits_ok_transpose(H, W_vocab):
    return W_vocab.T @ H[H.shape[0] - 1]


def _ce_probs(logits):
    E = np.exp(logits - logits.max(axis=1, keepdims=True))
    return E / E.sum(axis=1, keepdims=True)


def cross_entropy__log_of_probability(logits, targets):
    n = logits.shape[0]
    P = _ce_probs(logits)
    loss = -np.log(P[np.arange(n), targets]).mean()
    dlogits = P.copy()
    dlogits[np.arange(n), targets] -= 1.0
    return loss, dlogits / n


def cross_entropy__gradient_not_averaged(logits, targets):
    n = logits.shape[0]
    z = logits - logits.max(axis=1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    dlogits = np.exp(logp)
    dlogits[np.arange(n), targets] -= 1.0
    return -logp[np.arange(n), targets].mean(), dlogits


def cross_entropy__summed(logits, targets):
    n = logits.shape[0]
    z = logits - logits.max(axis=1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    dlogits = np.exp(logp)
    dlogits[np.arange(n), targets] -= 1.0
    return -logp[np.arange(n), targets].sum(), dlogits


def cross_entropy__gradient_sign(logits, targets):
    n = logits.shape[0]
    z = logits - logits.max(axis=1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    onehot = np.zeros_like(logp)
    onehot[np.arange(n), targets] = 1.0
    return -logp[np.arange(n), targets].mean(), (onehot - np.exp(logp)) / n


def cross_entropy__column_indexing(logits, targets):
    n = logits.shape[0]
    z = logits - logits.max(axis=1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    dlogits = np.exp(logp)
    dlogits[np.arange(n), targets] -= 1.0
    return -logp[:, targets].mean(), dlogits / n


def cross_entropy_ok_logsumexp(logits, targets):
    logits = np.asarray(logits, dtype=float)
    targets = np.asarray(targets)
    n = logits.shape[0]
    m = logits.max(axis=1, keepdims=True)
    lse = m[:, 0] + np.log(np.exp(logits - m).sum(axis=1))
    picked = logits[np.arange(n), targets]
    loss = float(np.mean(lse - picked))
    dlogits = np.exp(logits - lse[:, None])
    dlogits[np.arange(n), targets] -= 1.0
    return loss, dlogits / n


def softmax_backward__diagonal_only(A, dA):
    return A * (1 - A) * dA


def softmax_backward__rows_of_a_matrix(A, dA):
    dS = np.zeros_like(A)
    for i in range(A.shape[0]):
        J = np.diag(A[i]) - np.outer(A[i], A[i])
        dS[i] = J @ dA[i]
    return dS


def softmax_backward__sum_without_keepdims(A, dA):
    return A * (dA - (A * dA).sum(axis=-1))


def softmax_backward__sum_over_first_axis(A, dA):
    return A * (dA - (A * dA).sum(axis=0, keepdims=True))


def softmax_backward__sign_flipped(A, dA):
    return A * ((A * dA).sum(axis=-1, keepdims=True) - dA)


def softmax_backward_ok_einsum(A, dA):
    inner = np.einsum("...i,...i->...", A, dA)
    return A * dA - A * inner[..., None]


def _ab_forward(Q, K, V, causal, scale, top_left=False, mask_in_grad=True):
    n_q, n_k = Q.shape[0], K.shape[0]
    s = 1.0 / np.sqrt(Q.shape[1]) if scale else 1.0
    S = Q @ K.T * s
    if causal and mask_in_grad:
        S = S + np.triu(np.full((n_q, n_k), -np.inf), k=1 if top_left else n_k - n_q + 1)
    E = np.exp(S - S.max(axis=1, keepdims=True))
    return E / E.sum(axis=1, keepdims=True), s


def attention_backward__dK_unscaled(Q, K, V, dO, causal=True, scale=True):
    A, s = _ab_forward(Q, K, V, causal, scale)
    dA = dO @ V.T
    dS = A * (dA - (A * dA).sum(axis=1, keepdims=True))
    return dS @ K * s, dS.T @ Q, A.T @ dO


def attention_backward__dV_without_transpose(Q, K, V, dO, causal=True, scale=True):
    A, s = _ab_forward(Q, K, V, causal, scale)
    dA = dO @ V.T
    dS = A * (dA - (A * dA).sum(axis=1, keepdims=True)) * s
    return dS @ K, dS.T @ Q, A @ dO


def attention_backward__top_left_mask(Q, K, V, dO, causal=True, scale=True):
    A, s = _ab_forward(Q, K, V, causal, scale, top_left=True)
    dA = dO @ V.T
    dS = A * (dA - (A * dA).sum(axis=1, keepdims=True)) * s
    return dS @ K, dS.T @ Q, A.T @ dO


def attention_backward__scale_twice(Q, K, V, dO, causal=True, scale=True):
    A, s = _ab_forward(Q, K, V, causal, scale)
    dA = dO @ V.T
    dS = A * (dA - (A * dA).sum(axis=1, keepdims=True)) * s
    return dS @ K * s, dS.T @ Q * s, A.T @ dO  # the chain rule through Q K^T * s


def attention_backward__unmasked_weights(Q, K, V, dO, causal=True, scale=True):
    A, s = _ab_forward(Q, K, V, causal, scale, mask_in_grad=False)
    dA = dO @ V.T
    dS = A * (dA - (A * dA).sum(axis=1, keepdims=True)) * s
    return dS @ K, dS.T @ Q, A.T @ dO


def attention_backward_ok_einsum(Q, K, V, dO, causal=True, scale=True):
    A = attention_weights_ok_positions(Q, K, causal, scale)
    c = 1.0 / math.sqrt(Q.shape[1]) if scale else 1.0
    dV = np.einsum("ij,iv->jv", A, dO)
    dA = np.einsum("iv,jv->ij", dO, V)
    dS = softmax_backward_ok_einsum(A, dA) * c
    return np.einsum("ij,jd->id", dS, K), np.einsum("ij,id->jd", dS, Q), dV


def _ln_parts(X, eps):
    mu = X.mean(axis=1, keepdims=True)
    var = X.var(axis=1, keepdims=True)
    return (X - mu) / np.sqrt(var + eps), 1.0 / np.sqrt(var + eps)


def layer_norm_backward__through_scale_only(X, g, dY, eps=1e-5):
    xhat, rstd = _ln_parts(X, eps)
    return dY * g * rstd, (dY * xhat).sum(axis=0), dY.sum(axis=0)


def layer_norm_backward__dg_per_row(X, g, dY, eps=1e-5):
    xhat, rstd = _ln_parts(X, eps)
    dxhat = dY * g
    dX = rstd * (dxhat - dxhat.mean(axis=1, keepdims=True) - xhat * (dxhat * xhat).mean(axis=1, keepdims=True))
    return dX, dY * xhat, dY.sum(axis=0)


def layer_norm_backward__mean_term_only(X, g, dY, eps=1e-5):
    xhat, rstd = _ln_parts(X, eps)
    dxhat = dY * g
    dX = rstd * (dxhat - dxhat.mean(axis=1, keepdims=True))
    return dX, (dY * xhat).sum(axis=0), dY.sum(axis=0)


def layer_norm_backward__db_over_features(X, g, dY, eps=1e-5):
    xhat, rstd = _ln_parts(X, eps)
    dxhat = dY * g
    dX = rstd * (dxhat - dxhat.mean(axis=1, keepdims=True) - xhat * (dxhat * xhat).mean(axis=1, keepdims=True))
    return dX, (dY * xhat).sum(axis=0), dY.sum(axis=1)


def layer_norm_backward__eps_outside(X, g, dY, eps=1e-5):
    mu = X.mean(axis=1, keepdims=True)
    sd = X.std(axis=1, keepdims=True) + eps
    xhat = (X - mu) / sd
    dxhat = dY * g
    dX = (dxhat - dxhat.mean(axis=1, keepdims=True) - xhat * (dxhat * xhat).mean(axis=1, keepdims=True)) / sd
    return dX, (dY * xhat).sum(axis=0), dY.sum(axis=0)


def layer_norm_backward_ok_chain(X, g, dY, eps=1e-5):
    d = X.shape[1]
    Xc = X - X.mean(axis=1, keepdims=True)
    var = (Xc ** 2).sum(axis=1, keepdims=True) / d
    inv = (var + eps) ** -0.5
    xhat = Xc * inv
    dxhat = dY * g
    dvar = (dxhat * Xc).sum(axis=1, keepdims=True) * -0.5 * inv ** 3
    dmu = -(dxhat * inv).sum(axis=1, keepdims=True) - 2.0 * dvar * Xc.mean(axis=1, keepdims=True)
    dX = dxhat * inv + dvar * 2.0 * Xc / d + dmu / d
    return dX, np.einsum("nd,nd->d", dY, xhat), np.einsum("nd->d", dY)


# ---------------------------------------------------------------------------------------------------------------
# 12 most_attended, attention_entropy


def most_attended__per_key(A, tokens):
    return [tokens[i] for i in np.argmax(A, axis=0)]


def most_attended__argsort_last(A, tokens):
    return [tokens[j] for j in np.argsort(A, axis=1, kind="stable")[:, -1]]


def most_attended__numpy_array(A, tokens):
    return np.array(tokens)[np.argmax(A, axis=1)]


def most_attended__skips_diagonal(A, tokens):
    B = A.copy()
    np.fill_diagonal(B, -1.0)  # a token looking at itself tells us nothing
    return [tokens[j] for j in np.argmax(B, axis=1)]


def most_attended_ok_loop(A, tokens):
    out = []
    for row in A:
        best = 0
        for j in range(1, len(row)):
            if row[j] > row[best]:
                best = j
        out.append(tokens[best])
    return out


def attention_entropy__bits(A):
    with np.errstate(divide="ignore", invalid="ignore"):
        return -np.nansum(A * np.log2(A), axis=1)


def attention_entropy__nan_on_zeros(A):
    return -(A * np.log(A)).sum(axis=1)


def attention_entropy__scipy_axis0(A):
    P = A / A.sum(axis=0, keepdims=True)  # scipy.stats.entropy normalises pk along axis 0
    with np.errstate(divide="ignore", invalid="ignore"):
        return -np.nansum(P * np.log(P), axis=0)


def attention_entropy__no_minus(A):
    logs = np.log(np.where(A > 0, A, 1.0))
    return (A * logs).sum(axis=1)


def attention_entropy__mean_over_keys(A):
    logs = np.log(np.where(A > 0, A, 1.0))
    return -(A * logs).mean(axis=1)


def attention_entropy_ok_masked_log(A):
    A = np.asarray(A, dtype=float)
    logs = np.zeros_like(A)
    np.log(A, out=logs, where=A > 0)
    return -np.einsum("ij,ij->i", A, logs)


# ---------------------------------------------------------------------------------------------------------------
# 13 padding_mask, cross_attention


def padding_mask__one_too_many(n_q, n_valid, n_k):
    j = np.arange(n_k)
    return np.tile(np.where(j <= n_valid, 0.0, -np.inf), (n_q, 1))


def padding_mask__padding_rows(n_q, n_valid, n_k):
    i = np.arange(n_q)[:, None]
    return np.where(i >= n_valid, -np.inf, np.zeros((n_q, n_k)))


def padding_mask__one_row(n_q, n_valid, n_k):
    return np.where(np.arange(n_k) < n_valid, 0.0, -np.inf)  # broadcasts over the queries anyway


def padding_mask__plus_causal(n_q, n_valid, n_k):
    M = np.where(np.arange(n_k)[None, :] < n_valid, 0.0, -np.inf) * np.ones((n_q, 1))
    return M + np.triu(np.full((n_q, n_k), -np.inf), k=1)


def padding_mask__attention_mask_ones(n_q, n_valid, n_k):
    return np.tile((np.arange(n_k) < n_valid).astype(float), (n_q, 1))  # 1 = attend, 0 = padding


def padding_mask_ok_full(n_q, n_valid, n_k):
    M = np.full((n_q, n_k), -np.inf)
    M[:, :n_valid] = 0.0
    return M


def cross_attention__causal(X, Z, Wq, Wk, Wv):
    Q, K, V = X @ Wq, Z @ Wk, Z @ Wv
    S = Q @ K.T / np.sqrt(Q.shape[1]) + np.triu(np.full((len(X), len(Z)), -np.inf), k=1)
    return _aw_softmax(S) @ V


def cross_attention__queries_from_Z(X, Z, Wq, Wk, Wv):
    Q, K, V = Z @ Wq, X @ Wk, X @ Wv
    return _aw_softmax(Q @ K.T / np.sqrt(Q.shape[1])) @ V


def cross_attention__values_from_X(X, Z, Wq, Wk, Wv):
    Q, K, V = X @ Wq, Z @ Wk, X @ Wv
    return _aw_softmax(Q @ K.T / np.sqrt(Q.shape[1])) @ V


def cross_attention__scale_by_d_model(X, Z, Wq, Wk, Wv):
    Q, K, V = X @ Wq, Z @ Wk, Z @ Wv
    return _aw_softmax(Q @ K.T / np.sqrt(X.shape[1])) @ V


def cross_attention__softmax_over_queries(X, Z, Wq, Wk, Wv):
    Q, K, V = X @ Wq, Z @ Wk, Z @ Wv
    return _aw_softmax(Q @ K.T / np.sqrt(Q.shape[1]), axis=0) @ V


def cross_attention_ok_attention(X, Z, Wq, Wk, Wv):
    return attention_ok_einsum(X @ Wq, Z @ Wk, Z @ Wv, causal=False, scale=True)


# ---------------------------------------------------------------------------------------------------------------
# 14 attend_step, cache_step, sample_next, top_k_filter, top_p_filter, generate, kv_cache_bytes, max_cached_tokens


def attend_step__no_max_shift(q, K_cache, V_cache):
    e = np.exp(K_cache @ q / np.sqrt(len(q)))
    return (e / e.sum()) @ V_cache


def attend_step__scale_by_t(q, K_cache, V_cache):
    s = K_cache @ q / np.sqrt(K_cache.shape[0])
    a = np.exp(s - s.max())
    return (a / a.sum()) @ V_cache


def attend_step__drops_own_row(q, K_cache, V_cache):
    s = K_cache[:-1] @ q / np.sqrt(len(q))  # the last row is the new token: it only asks
    a = np.exp(s - s.max())
    return (a / a.sum()) @ V_cache[:-1]


def attend_step__row_matrix(q, K_cache, V_cache):
    s = q[None, :] @ K_cache.T / np.sqrt(len(q))
    a = np.exp(s - s.max())
    return (a / a.sum()) @ V_cache


def attend_step__output_scaled(q, K_cache, V_cache):
    s = K_cache @ q
    a = np.exp(s - s.max())
    return (a / a.sum()) @ V_cache / np.sqrt(len(q))


def attend_step_ok_einsum(q, K_cache, V_cache):
    s = np.einsum("td,d->t", K_cache, q) * (1.0 / math.sqrt(q.shape[0]))
    w = np.exp(s - np.max(s))
    return np.einsum("t,tv->v", w, V_cache) / w.sum()


def cache_step__prepends(q, k, v, K_cache, V_cache):
    K_new = np.vstack([k, K_cache])
    V_new = np.vstack([v, V_cache])
    return attend_step_ok_einsum(q, K_new, V_new), K_new, V_new


def cache_step__attends_before_append(q, k, v, K_cache, V_cache):
    o = attend_step_ok_einsum(q, K_cache, V_cache)
    return o, np.vstack([K_cache, k]), np.vstack([V_cache, v])


def cache_step__append_flattens(q, k, v, K_cache, V_cache):
    K_new = np.append(K_cache, k)
    V_new = np.append(V_cache, v)
    o = attend_step_ok_einsum(q, K_new.reshape(-1, len(k)), V_new.reshape(-1, len(v)))
    return o, K_new, V_new


def cache_step__unscaled(q, k, v, K_cache, V_cache):
    K_new, V_new = np.vstack([K_cache, k]), np.vstack([V_cache, v])
    s = K_new @ q
    a = np.exp(s - s.max())
    return (a / a.sum()) @ V_new, K_new, V_new


def cache_step_ok_concatenate(q, k, v, K_cache, V_cache):
    K_new = np.concatenate([K_cache, np.reshape(k, (1, -1))], axis=0)
    V_new = np.concatenate([V_cache, np.reshape(v, (1, -1))], axis=0)
    return attend_step_ok_einsum(q, K_new, V_new), K_new, V_new


def _sample_probs(logits, temperature):
    z = np.asarray(logits, dtype=float) / temperature
    e = np.exp(z - z.max())
    return e / e.sum()


def sample_next__own_random_number(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    p = _sample_probs(logits, temperature)
    return int(np.random.default_rng().choice(len(p), p=p))  # like torch.multinomial


def sample_next__times_temperature(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    z = np.asarray(logits, dtype=float) * temperature
    e = np.exp(z - z.max())
    cdf = np.cumsum(e / e.sum())
    cdf /= cdf[-1]
    return int(np.searchsorted(cdf, u, side="right"))


def sample_next__searchsorted_left(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    cdf = np.cumsum(_sample_probs(logits, temperature))
    cdf /= cdf[-1]
    return int(np.searchsorted(cdf, u))


def sample_next__cdf_not_rescaled(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    cdf = np.cumsum(_sample_probs(logits, temperature))
    return int(np.argmax(cdf > u)) if (cdf > u).any() else len(cdf)


def sample_next__numpy_integer(logits, temperature, u):
    if temperature == 0:
        return np.argmax(logits)
    cdf = np.cumsum(_sample_probs(logits, temperature))
    cdf /= cdf[-1]
    return np.searchsorted(cdf, u, side="right")


def sample_next__exp_before_shift(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    e = np.exp(np.asarray(logits, dtype=float) / temperature)
    cdf = np.cumsum(e / e.sum())
    cdf /= cdf[-1]
    return int(np.searchsorted(cdf, u, side="right"))


def sample_next_ok_loop(logits, temperature, u):
    logits = np.asarray(logits, dtype=float)
    if temperature == 0:
        return int(np.flatnonzero(logits == logits.max())[0])
    z = (logits - logits.max()) / temperature
    p = np.exp(z)
    p = p / p.sum()
    cdf = np.cumsum(p)
    cdf = cdf / cdf[-1]
    for i, c in enumerate(cdf):
        if c > u:
            return int(i)
    return int(len(cdf) - 1)


def top_k_filter__exactly_k(logits, k):
    out = np.full(len(logits), -np.inf)
    keep = np.argsort(logits)[::-1][:k]  # torch.topk
    out[keep] = logits[keep]
    return out


def top_k_filter__kth_by_negative_index(logits, k):
    kth = np.sort(logits)[-k]
    return np.where(logits >= kth, logits, -np.inf)


def top_k_filter__in_place(logits, k):
    kth = np.sort(logits)[::-1][min(k, len(logits)) - 1]
    logits[logits < kth] = -np.inf
    return logits


def top_k_filter__kth_smallest(logits, k):
    kth = np.sort(logits)[min(k, len(logits)) - 1]
    return np.where(logits >= kth, logits, -np.inf)


def top_k_filter__zeros_for_the_rest(logits, k):
    kth = np.sort(logits)[::-1][min(k, len(logits)) - 1]
    return np.where(logits >= kth, logits, 0.0)


def top_k_filter__strictly_greater(logits, k):
    if k >= len(logits):
        return logits.astype(float)
    kth = np.sort(logits)[::-1][k]  # the first one that does not make it
    return np.where(logits > kth, logits, -np.inf)


def top_k_filter_ok_partition(logits, k):
    z = np.array(logits, dtype=float)
    if k >= z.size:
        return z
    kth = np.partition(z, z.size - k)[z.size - k]
    z[z < kth] = -np.inf
    return z


def _tp_probs(logits):
    e = np.exp(logits - logits.max())
    return e / e.sum()


def top_p_filter__strictly_more_than_p(logits, p):
    P = _tp_probs(logits)
    order = np.argsort(-P, kind="stable")
    n = int(np.searchsorted(np.cumsum(P[order]), p, side="right")) + 1
    out = np.full(len(logits), -np.inf)
    out[order[:n]] = logits[order[:n]]
    return out


def top_p_filter__below_p_only(logits, p):
    P = _tp_probs(logits)
    order = np.argsort(-P, kind="stable")
    keep = order[np.cumsum(P[order]) <= p]
    out = np.full(len(logits), -np.inf)
    out[keep] = logits[keep]
    return out


def top_p_filter__reversed_argsort(logits, p):
    if p == 1.0:
        return logits.astype(float)
    P = _tp_probs(logits)
    order = np.argsort(P)[::-1]
    n = int(np.searchsorted(np.cumsum(P[order]), p)) + 1
    out = np.full(len(logits), -np.inf)
    out[order[:n]] = logits[order[:n]]
    return out


def top_p_filter__plain_exp(logits, p):
    if p == 1.0:
        return logits.astype(float)
    e = np.exp(logits)
    P = e / e.sum()
    order = np.argsort(-P, kind="stable")
    n = int(np.searchsorted(np.cumsum(P[order]), p)) + 1
    out = np.full(len(logits), -np.inf)
    out[order[:n]] = logits[order[:n]]
    return out


def top_p_filter__no_p_one_case(logits, p):
    P = _tp_probs(logits)
    order = np.argsort(-P, kind="stable")
    n = int(np.searchsorted(np.cumsum(P[order]), p)) + 1
    out = np.full(len(logits), -np.inf)
    out[order[:n]] = logits[order[:n]]
    return out


def top_p_filter__rank_order_output(logits, p):
    if p == 1.0:
        return logits.astype(float)
    P = _tp_probs(logits)
    order = np.argsort(-P, kind="stable")
    n = int(np.searchsorted(np.cumsum(P[order]), p)) + 1
    ranked = logits[order].astype(float)
    ranked[n:] = -np.inf
    return ranked


def top_p_filter_ok_loop(logits, p):
    z = np.array(logits, dtype=float)
    if p >= 1.0:
        return z
    P = softmax_ok_moveaxis(z)
    ranked = sorted(range(z.size), key=lambda i: (-P[i], i))
    out = np.full(z.size, -np.inf)
    total = 0.0
    for i in ranked:
        out[i] = z[i]
        total += P[i]
        if total >= p:
            break
    return out


def generate__position_by_token(p, prompt, n_new, cache_step):
    d = p["tok_emb"].shape[1]
    K, V = np.zeros((0, d)), np.zeros((0, d))
    seq = [int(t) for t in prompt]
    for i in range(len(prompt) + n_new - 1):
        t = seq[i]
        x = p["tok_emb"][t] + p["pos_emb"][t]
        o, K, V = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K, V)
        if i >= len(prompt) - 1:
            seq.append(int(np.argmax((x + o) @ p["W_out"])))
    return np.array(seq[:len(prompt) + n_new], dtype=int)


def generate__no_residual(p, prompt, n_new, cache_step):
    d = p["tok_emb"].shape[1]
    K, V = np.zeros((0, d)), np.zeros((0, d))
    seq = [int(t) for t in prompt]
    for i in range(len(prompt) + n_new - 1):
        x = p["tok_emb"][seq[i]] + p["pos_emb"][i]
        o, K, V = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K, V)
        if i >= len(prompt) - 1:
            seq.append(int(np.argmax(o @ p["W_out"])))
    return np.array(seq[:len(prompt) + n_new], dtype=int)


def generate__new_positions_from_one(p, prompt, n_new, cache_step):
    d = p["tok_emb"].shape[1]
    K, V = np.zeros((0, d)), np.zeros((0, d))
    seq = [int(t) for t in prompt]
    logits = None
    for i, t in enumerate(seq):
        x = p["tok_emb"][t] + p["pos_emb"][i]
        o, K, V = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K, V)
        logits = (x + o) @ p["W_out"]
    for _ in range(n_new):
        seq.append(int(np.argmax(logits)))
        if len(seq) == len(prompt) + n_new:
            break
        x = p["tok_emb"][seq[-1]] + p["pos_emb"][len(seq)]  # position of the token just added
        o, K, V = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K, V)
        logits = (x + o) @ p["W_out"]
    return np.array(seq, dtype=int)


def generate__own_attention(p, prompt, n_new, cache_step):
    d = p["tok_emb"].shape[1]
    K, V = np.zeros((0, d)), np.zeros((0, d))
    seq = [int(t) for t in prompt]
    for i in range(len(prompt) + n_new - 1):
        x = p["tok_emb"][seq[i]] + p["pos_emb"][i]
        q, K, V = x @ p["Wq"], np.vstack([K, x @ p["Wk"]]), np.vstack([V, x @ p["Wv"]])
        o = attend_step_ok_einsum(q, K, V)
        if i >= len(prompt) - 1:
            seq.append(int(np.argmax((x + o) @ p["W_out"])))
    return np.array(seq[:len(prompt) + n_new], dtype=int)


def generate__extra_call(p, prompt, n_new, cache_step):
    d = p["tok_emb"].shape[1]
    K, V = np.zeros((0, d)), np.zeros((0, d))
    seq = [int(t) for t in prompt]
    i = 0
    while i < len(seq):
        x = p["tok_emb"][seq[i]] + p["pos_emb"][i]
        o, K, V = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K, V)
        if i >= len(prompt) - 1 and len(seq) < len(prompt) + n_new:
            seq.append(int(np.argmax((x + o) @ p["W_out"])))
        i += 1
    return np.array(seq, dtype=int)


def generate__float_sequence(p, prompt, n_new, cache_step):
    d = p["tok_emb"].shape[1]
    K, V = np.zeros((0, d)), np.zeros((0, d))
    out = np.zeros(len(prompt) + n_new)
    out[:len(prompt)] = prompt
    for i in range(len(prompt) + n_new - 1):
        x = p["tok_emb"][int(out[i])] + p["pos_emb"][i]
        o, K, V = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K, V)
        if i >= len(prompt) - 1:
            out[i + 1] = np.argmax((x + o) @ p["W_out"])
    return out


def generate_ok_loop(p, prompt, n_new, cache_step):
    tok_emb, pos_emb = p["tok_emb"], p["pos_emb"]
    d = tok_emb.shape[1]
    K, V = np.zeros((0, d)), np.zeros((0, d))
    seq = [int(t) for t in np.asarray(prompt)]
    T = len(seq)
    pos = 0
    while len(seq) < T + n_new:
        x = tok_emb[seq[pos]] + pos_emb[pos]
        o, K, V = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K, V)
        if pos >= T - 1:
            seq.append(int(np.argmax((x + o) @ p["W_out"])))
        pos += 1
    return np.asarray(seq, dtype=np.int64)


def kv_cache_bytes__keys_only(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return n_layers * n_heads * d_head * seq_len * batch * bytes_per_value


def kv_cache_bytes__batch_ignored(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return 2 * n_layers * n_heads * d_head * seq_len * bytes_per_value


def kv_cache_bytes__in_gib(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return 2 * n_layers * n_heads * d_head * seq_len * batch * bytes_per_value / 2 ** 30


def kv_cache_bytes__numpy_prod(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return int(np.prod([2, n_layers, n_heads, d_head, seq_len, batch, bytes_per_value]))


def kv_cache_bytes_ok_math_prod(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    per_token = 2 * int(n_layers) * int(n_heads) * int(d_head) * int(bytes_per_value)
    return per_token * int(seq_len) * int(batch)


def _per_token(n_layers, n_heads, d_head, batch, bytes_per_value):
    return 2 * n_layers * n_heads * d_head * batch * bytes_per_value


def max_cached_tokens__float_division(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    return int(memory_bytes / _per_token(n_layers, n_heads, d_head, batch, bytes_per_value))


def max_cached_tokens__rounds_up(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    per = _per_token(n_layers, n_heads, d_head, batch, bytes_per_value)
    return -(-memory_bytes // per)


def max_cached_tokens__first_that_spills(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    return memory_bytes // _per_token(n_layers, n_heads, d_head, batch, bytes_per_value) + 1


def max_cached_tokens__keys_only(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    return memory_bytes // (n_layers * n_heads * d_head * batch * bytes_per_value)


def max_cached_tokens__memory_in_gib(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    return memory_bytes * 2 ** 30 // _per_token(n_layers, n_heads, d_head, batch, bytes_per_value)


def max_cached_tokens_ok_divmod(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    per_token = kv_cache_bytes_ok_math_prod(n_layers, n_heads, d_head, 1, batch, bytes_per_value)
    tokens, _ = divmod(int(memory_bytes), per_token)
    return int(tokens)


# ---------------------------------------------------------------------------------------------------------------
# 15 previous_token_score, prefix_matching_score, ablate_head


def previous_token_score__diagonal_above(A):
    T = A.shape[0]
    return float(np.mean([A[t - 1, t] for t in range(1, T)])) if T > 1 else 0.0


def previous_token_score__divides_by_T(A):
    T = A.shape[0]
    return float(sum(A[t, t - 1] for t in range(1, T)) / T)


def previous_token_score__empty_mean(A):
    return float(np.diagonal(A, offset=-1).mean())


def previous_token_score__main_diagonal(A):
    return float(np.diag(A)[1:].mean()) if len(A) > 1 else 0.0


def previous_token_score__last_row_only(A):
    return float(A[-1, -2]) if len(A) > 1 else 0.0


def previous_token_score_ok_diagonal(A):
    sub = np.diagonal(np.asarray(A, dtype=float), offset=-1)
    return float(sub.sum() / sub.size) if sub.size else 0.0


def prefix_matching_score__latest_copy_only(A, tokens):
    sums = []
    for t in range(len(tokens)):
        earlier = [j for j in range(t) if tokens[j] == tokens[t]]
        if earlier:
            sums.append(A[t, earlier[-1] + 1])
    return float(np.mean(sums)) if sums else 0.0


def prefix_matching_score__the_copy_itself(A, tokens):
    sums = []
    for t in range(len(tokens)):
        earlier = [j for j in range(t) if tokens[j] == tokens[t]]
        if earlier:
            sums.append(sum(A[t, j] for j in earlier))
    return float(np.mean(sums)) if sums else 0.0


def prefix_matching_score__mean_over_all_rows(A, tokens):
    total = 0.0
    for t in range(len(tokens)):
        total += sum(A[t, j + 1] for j in range(t) if tokens[j] == tokens[t])
    return total / len(tokens)


def prefix_matching_score__includes_itself(A, tokens):
    sums = []
    for t in range(len(tokens)):
        earlier = [j for j in range(t + 1) if tokens[j] == tokens[t]]
        if len(earlier) > 1:
            sums.append(sum(A[t, j + 1] for j in earlier))
    return float(np.mean(sums)) if sums else 0.0


def prefix_matching_score__nan_without_copies(A, tokens):
    sums = []
    for t in range(len(tokens)):
        earlier = [j for j in range(t) if tokens[j] == tokens[t]]
        if earlier:
            sums.append(sum(A[t, j + 1] for j in earlier))
    return float(np.mean(sums))


def prefix_matching_score_ok_masks(A, tokens):
    tokens = np.asarray(tokens)
    T = len(tokens)
    same = tokens[:, None] == tokens[None, :]
    before = np.tril(np.ones((T, T), dtype=bool), k=-1)
    copies = same & before  # copies[t, j]: j < t holds my token
    target = np.zeros((T, T), dtype=bool)
    target[:, 1:] = copies[:, :-1]
    has = copies.any(axis=1)
    if not has.any():
        return 0.0
    return float(np.where(target, A, 0.0).sum(axis=1)[has].mean())


def ablate_head__in_place(Wo, head, n_heads):
    d_head = Wo.shape[0] // n_heads
    Wo[head * d_head:(head + 1) * d_head] = 0.0
    return Wo


def ablate_head__columns(Wo, head, n_heads):
    out = Wo.copy()
    d_head = out.shape[1] // n_heads
    out[:, head * d_head:(head + 1) * d_head] = 0.0
    return out


def ablate_head__heads_from_one(Wo, head, n_heads):
    out = Wo.copy()
    d_head = Wo.shape[0] // n_heads
    out[(head - 1) * d_head:head * d_head] = 0.0
    return out


def ablate_head__strided_rows(Wo, head, n_heads):
    out = Wo.copy()
    out[head::n_heads] = 0.0
    return out


def ablate_head__slice_copy(Wo, head, n_heads):
    out = Wo[:]  # a copy, as with lists
    d_head = Wo.shape[0] // n_heads
    out[head * d_head:(head + 1) * d_head] = 0
    return out


def ablate_head_ok_mask(Wo, head, n_heads):
    d_head = Wo.shape[0] // n_heads
    rows = np.arange(Wo.shape[0]) // d_head == head
    return np.where(rows[:, None], 0.0, Wo)


# ---------------------------------------------------------------------------------------------------------------
# 16 rope, rope_attention


def rope__rotate_half(X, positions, theta=10000.0):
    n, d = X.shape
    a = np.asarray(positions)[:, None] * theta ** (-np.arange(0, d, 2) / d)
    x, y = X[:, :d // 2], X[:, d // 2:]  # pairs (i, i + d/2), as in GPT-NeoX
    return np.concatenate([x * np.cos(a) - y * np.sin(a), x * np.sin(a) + y * np.cos(a)], axis=1)


def rope__clockwise(X, positions, theta=10000.0):
    d = X.shape[1]
    a = np.asarray(positions)[:, None] * theta ** (-np.arange(0, d, 2) / d)
    out = np.empty_like(X, dtype=float)
    out[:, 0::2] = X[:, 0::2] * np.cos(a) + X[:, 1::2] * np.sin(a)
    out[:, 1::2] = -X[:, 0::2] * np.sin(a) + X[:, 1::2] * np.cos(a)
    return out


def rope__row_index(X, positions, theta=10000.0):
    n, d = X.shape
    a = np.arange(n)[:, None] * theta ** (-np.arange(0, d, 2) / d)
    out = np.empty_like(X, dtype=float)
    out[:, 0::2] = X[:, 0::2] * np.cos(a) - X[:, 1::2] * np.sin(a)
    out[:, 1::2] = X[:, 0::2] * np.sin(a) + X[:, 1::2] * np.cos(a)
    return out


def rope__exponent_without_two(X, positions, theta=10000.0):
    d = X.shape[1]
    a = np.asarray(positions)[:, None] * theta ** (-np.arange(d // 2) / d)
    out = np.empty_like(X, dtype=float)
    out[:, 0::2] = X[:, 0::2] * np.cos(a) - X[:, 1::2] * np.sin(a)
    out[:, 1::2] = X[:, 0::2] * np.sin(a) + X[:, 1::2] * np.cos(a)
    return out


def rope__in_place(X, positions, theta=10000.0):
    d = X.shape[1]
    a = np.asarray(positions)[:, None] * theta ** (-np.arange(0, d, 2) / d)
    x, y = X[:, 0::2].copy(), X[:, 1::2].copy()
    X[:, 0::2] = x * np.cos(a) - y * np.sin(a)
    X[:, 1::2] = x * np.sin(a) + y * np.cos(a)
    return X


def rope_ok_complex(X, positions, theta=10000.0):
    X = np.asarray(X, dtype=float)
    d = X.shape[1]
    a = np.asarray(positions, dtype=float)[:, None] * np.power(theta, -np.arange(0, d, 2) / d)[None, :]
    z = (X[:, 0::2] + 1j * X[:, 1::2]) * np.exp(1j * a)
    out = np.empty_like(X)
    out[:, 0::2], out[:, 1::2] = z.real, z.imag
    return out


def _ra_causal(Qr, Kr, V):
    S = Qr @ Kr.T / np.sqrt(Qr.shape[1])
    S = S + np.triu(np.full(S.shape, -np.inf), k=1)
    E = np.exp(S - S.max(axis=1, keepdims=True))
    return E / E.sum(axis=1, keepdims=True) @ V


def rope_attention__rotates_values(Q, K, V, positions, theta=10000.0):
    return _ra_causal(rope_ok_complex(Q, positions, theta), rope_ok_complex(K, positions, theta),
                      rope_ok_complex(V, positions, theta))


def rope_attention__no_mask(Q, K, V, positions, theta=10000.0):
    Qr, Kr = rope_ok_complex(Q, positions, theta), rope_ok_complex(K, positions, theta)
    S = Qr @ Kr.T / np.sqrt(Q.shape[1])
    E = np.exp(S - S.max(axis=1, keepdims=True))
    return E / E.sum(axis=1, keepdims=True) @ V


def rope_attention__queries_only(Q, K, V, positions, theta=10000.0):
    return _ra_causal(rope_ok_complex(Q, positions, theta), K, V)


def rope_attention__arange_positions(Q, K, V, positions, theta=10000.0):
    pos = np.arange(len(Q))  # only the gaps matter anyway
    return _ra_causal(rope_ok_complex(Q, pos, theta), rope_ok_complex(K, pos, theta), V)


def rope_attention__default_theta(Q, K, V, positions, theta=10000.0):
    return _ra_causal(rope_ok_complex(Q, positions), rope_ok_complex(K, positions), V)


def rope_attention_ok_reuse(Q, K, V, positions, theta=10000.0):
    Qr = rope_ok_complex(Q, positions, theta)
    Kr = rope_ok_complex(K, positions, theta)
    return attention_ok_einsum(Qr, Kr, V, causal=True, scale=True)


# ---------------------------------------------------------------------------------------------------------------
# 17 grouped_query_attention, grouped_cache_step


def _gqa(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal, group_of, d_head=None, pass_causal=True):
    d_head = Wq.shape[1] // n_heads if d_head is None else d_head
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    outs = []
    for h in range(n_heads):
        g = group_of(h)
        cols, gcols = slice(h * d_head, (h + 1) * d_head), slice(g * d_head, (g + 1) * d_head)
        args = (Q[:, cols], K[:, gcols], V[:, gcols])
        outs.append(_mha_attend(*args, causal) if pass_causal else _mha_attend(*args))
    return np.concatenate(outs, axis=1) @ Wo


def grouped_query_attention__tiled_groups(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    return _gqa(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal, lambda h: h % n_kv_heads)


def grouped_query_attention__d_head_from_Wk(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    r = n_heads // n_kv_heads
    return _gqa(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal, lambda h: h // r, d_head=Wk.shape[1] // n_heads)


def grouped_query_attention__divides_by_n_kv(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    return _gqa(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal, lambda h: h // n_kv_heads)


def grouped_query_attention__always_group_zero(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    return _gqa(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal, lambda h: 0)


def grouped_query_attention__causal_not_passed(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    r = n_heads // n_kv_heads
    return _gqa(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal, lambda h: h // r, pass_causal=False)


def grouped_query_attention_ok_repeat(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    n = X.shape[0]
    d_head = Wq.shape[1] // n_heads
    Q = split_heads_ok_transpose(X @ Wq, n_heads)
    K = np.repeat(split_heads_ok_transpose(X @ Wk, n_kv_heads), n_heads // n_kv_heads, axis=0)
    V = np.repeat(split_heads_ok_transpose(X @ Wv, n_kv_heads), n_heads // n_kv_heads, axis=0)
    S = np.einsum("hid,hjd->hij", Q, K) / math.sqrt(d_head)
    if causal:
        S = np.where(np.triu(np.ones((n, n), dtype=bool), k=1), -np.inf, S)
    O = np.einsum("hij,hjd->hid", softmax_ok_moveaxis(S), V)
    return O.transpose(1, 0, 2).reshape(n, n_heads * d_head) @ Wo


def grouped_cache_step__cache_per_query_head(q, k, v, K_cache, V_cache):
    n_heads, n_kv = q.shape[0], k.shape[0]
    r = n_heads // n_kv
    K_new = np.concatenate([K_cache, k[:, None]], axis=1)
    V_new = np.concatenate([V_cache, v[:, None]], axis=1)
    K_new, V_new = np.repeat(K_new, r, axis=0), np.repeat(V_new, r, axis=0)  # one cache per head, simpler
    o = np.stack([attend_step_ok_einsum(q[h], K_new[h], V_new[h]) for h in range(n_heads)])
    return o, K_new, V_new


def grouped_cache_step__tiled_groups(q, k, v, K_cache, V_cache):
    n_kv = k.shape[0]
    K_new = np.concatenate([K_cache, k[:, None]], axis=1)
    V_new = np.concatenate([V_cache, v[:, None]], axis=1)
    o = np.stack([attend_step_ok_einsum(q[h], K_new[h % n_kv], V_new[h % n_kv]) for h in range(q.shape[0])])
    return o, K_new, V_new


def grouped_cache_step__prepends(q, k, v, K_cache, V_cache):
    r = q.shape[0] // k.shape[0]
    K_new = np.concatenate([k[:, None], K_cache], axis=1)
    V_new = np.concatenate([v[:, None], V_cache], axis=1)
    o = np.stack([attend_step_ok_einsum(q[h], K_new[h // r], V_new[h // r]) for h in range(q.shape[0])])
    return o, K_new, V_new


def grouped_cache_step__attend_with_causal_mask(q, k, v, K_cache, V_cache):
    r = q.shape[0] // k.shape[0]
    K_new = np.concatenate([K_cache, k[:, None]], axis=1)
    V_new = np.concatenate([V_cache, v[:, None]], axis=1)
    o = np.stack([_mha_attend(q[h][None], K_new[h // r], V_new[h // r])[0] for h in range(q.shape[0])])
    return o, K_new, V_new


def grouped_cache_step__concatenate_axis0(q, k, v, K_cache, V_cache):
    r = q.shape[0] // k.shape[0]
    K_new = np.concatenate([K_cache, k[:, None]])
    V_new = np.concatenate([V_cache, v[:, None]])
    o = np.stack([attend_step_ok_einsum(q[h], K_new[h // r], V_new[h // r]) for h in range(q.shape[0])])
    return o, K_new, V_new


def grouped_cache_step_ok_broadcast(q, k, v, K_cache, V_cache):
    n_heads, d_head = q.shape
    n_kv = k.shape[0]
    K_new = np.concatenate([K_cache, k.reshape(n_kv, 1, d_head)], axis=1)
    V_new = np.concatenate([V_cache, v.reshape(n_kv, 1, v.shape[1])], axis=1)
    qg = q.reshape(n_kv, n_heads // n_kv, d_head)
    s = np.einsum("grd,gtd->grt", qg, K_new) / math.sqrt(d_head)
    w = softmax_ok_moveaxis(s, axis=-1)
    o = np.einsum("grt,gtv->grv", w, V_new).reshape(n_heads, -1)
    return o, K_new, V_new


# ---------------------------------------------------------------------------------------------------------------
# 18 sliding_window_mask, rolling_cache_step


def sliding_window_mask__one_extra(n, window):
    i, j = np.indices((n, n))
    return np.where((j <= i) & (j >= i - window), 0.0, -np.inf)


def sliding_window_mask__band_above(n, window):
    i, j = np.indices((n, n))
    return np.where((j >= i) & (j < i + window), 0.0, -np.inf)


def sliding_window_mask__symmetric_band(n, window):
    i, j = np.indices((n, n))
    return np.where(np.abs(i - j) < window, 0.0, -np.inf)  # local attention


def sliding_window_mask__unsigned_rows(n, window):
    i = np.arange(n, dtype=np.uint64)[:, None]
    j = np.arange(n, dtype=np.uint64)[None, :]
    return np.where((j <= i) & (j > i - np.uint64(window)), 0.0, -np.inf)


def sliding_window_mask_ok_tril(n, window):
    keep = np.tril(np.ones((n, n), dtype=bool)) & ~np.tril(np.ones((n, n), dtype=bool), k=-window)
    return np.where(keep, 0.0, -np.inf)


def _rc_attend(q, K, V):
    s = K @ q / np.sqrt(q.shape[0])
    a = np.exp(s - s.max())
    return (a / a.sum()) @ V


def rolling_cache_step__cut_before_append(q, k, v, K_cache, V_cache, window, n_sinks=0):
    K, V = K_cache, V_cache
    if len(K) >= window:  # make room first
        K = np.concatenate([K[:n_sinks], K[len(K) - (window - n_sinks):]])
        V = np.concatenate([V[:n_sinks], V[len(V) - (window - n_sinks):]])
    K, V = np.vstack([K, k]), np.vstack([V, v])
    return _rc_attend(q, K, V), K, V


def rolling_cache_step__no_sinks(q, k, v, K_cache, V_cache, window, n_sinks=0):
    K, V = np.vstack([K_cache, k])[-window:], np.vstack([V_cache, v])[-window:]
    return _rc_attend(q, K, V), K, V


def rolling_cache_step__keeps_oldest(q, k, v, K_cache, V_cache, window, n_sinks=0):
    K, V = np.vstack([K_cache, k])[:window], np.vstack([V_cache, v])[:window]
    return _rc_attend(q, K, V), K, V


def rolling_cache_step__attend_before_cut(q, k, v, K_cache, V_cache, window, n_sinks=0):
    K, V = np.vstack([K_cache, k]), np.vstack([V_cache, v])
    o = _rc_attend(q, K, V)
    if len(K) > window:
        K = np.concatenate([K[:n_sinks], K[len(K) - (window - n_sinks):]])
        V = np.concatenate([V[:n_sinks], V[len(V) - (window - n_sinks):]])
    return o, K, V


def rolling_cache_step__sinks_on_top(q, k, v, K_cache, V_cache, window, n_sinks=0):
    K, V = np.vstack([K_cache, k]), np.vstack([V_cache, v])
    if len(K) > window + n_sinks:  # the window, plus the sinks
        K = np.concatenate([K[:n_sinks], K[len(K) - window:]])
        V = np.concatenate([V[:n_sinks], V[len(V) - window:]])
    return _rc_attend(q, K, V), K, V


def rolling_cache_step_ok_index(q, k, v, K_cache, V_cache, window, n_sinks=0):
    K = np.concatenate([K_cache, np.reshape(k, (1, -1))])
    V = np.concatenate([V_cache, np.reshape(v, (1, -1))])
    m = K.shape[0]
    if m > window:
        keep = np.r_[np.arange(n_sinks), np.arange(m - (window - n_sinks), m)]
        K, V = K[keep], V[keep]
    return attend_step_ok_einsum(q, K, V), K, V


# ---------------------------------------------------------------------------------------------------------------
# 19 capstone: every op right but one

_RIGHT_OPS = {
    "softmax": softmax_ok_moveaxis, "attention": attention_ok_einsum, "embed": embed_ok_take,
    "multi_head_attention": multi_head_attention_ok_batched, "layer_norm": layer_norm_ok_centered,
    "gelu": gelu_ok_constants, "transformer_block": transformer_block_ok_steps,
    "next_token_logits": next_token_logits_ok_transpose, "cross_entropy": cross_entropy_ok_logsumexp,
    "softmax_backward": softmax_backward_ok_einsum, "attention_backward": attention_backward_ok_einsum,
    "layer_norm_backward": layer_norm_backward_ok_chain, "cache_step": cache_step_ok_concatenate,
    "sample_next": sample_next_ok_loop, "rope": rope_ok_complex,
    "grouped_query_attention": grouped_query_attention_ok_repeat,
    "grouped_cache_step": grouped_cache_step_ok_broadcast, "rolling_cache_step": rolling_cache_step_ok_index,
}


def _ops_with(**wrong):
    return {**_RIGHT_OPS, **wrong}


M = Mistake
MISTAKES = [
    # 01
    M("project",
      "computes W @ x (the column-vector convention x' = Wx) instead of x @ W, so it fails unless W is "
      "square and then sums over the wrong index",
      project__column_vector_Wx),
    M("project",
      "sizes the output by len(x) (d_in) instead of W.shape[1] (d_out), so it is only right when W is "
      "square",
      project__square_loop),
    M("project",
      "sums x[i] * W[i, j] over j instead of over i, returning x * W.sum(axis=1) of shape (d_in,)",
      project__sum_wrong_axis),
    M("project", "returns a (1, d_out) row matrix instead of a vector of shape (d_out,)", project__row_matrix),
    M("compose", "returns W2 @ W1 (the order of a column-vector composition) instead of W1 @ W2", compose__reversed),
    M("compose", "returns the transpose (W1 @ W2).T, of shape (d_out, d_in)", compose__transposed_result),
    M("compose", "multiplies W1 and W2 elementwise instead of taking their matrix product", compose__elementwise),
    M("compose",
      "writes the product into W1 in place (and returns W1), changing the input and failing unless W1 @ W2 "
      "has W1's shape",
      compose__into_W1),
    # 02
    M("project_rows",
      "projects only the first row X[0], returning (d_out,) instead of (n, d_out)",
      project_rows__first_row_only),
    M("project_rows", "returns W.T @ X.T, the (d_out, n) transpose of the answer", project_rows__forgot_transpose_back),
    M("project_rows",
      "preallocates the output with np.zeros_like(X), so it has X's shape (n, d_in) and dtype, failing when"
      " d_out != d_in and truncating for integer X",
      project_rows__zeros_like_X),
    M("project_rows",
      "multiplies X.T @ W, treating tokens as columns, which only runs when n == d_in and mixes tokens",
      project_rows__tokens_as_columns),
    M("matmul_cost",
      "multiplies the sizes as floats and converts back, so counts above 2**53 are rounded instead of exact",
      matmul_cost__float_prod),
    M("matmul_cost",
      "counts floating-point operations, n * d_out * (2 * d_in - 1) multiplications plus additions, instead"
      " of the n * d_in * d_out multiplications",
      matmul_cost__flops),
    M("matmul_cost",
      "counts the n * d_out dot products instead of the n * d_in * d_out scalar multiplications",
      matmul_cost__dot_products),
    M("matmul_cost", "returns a numpy int64 instead of an exact Python int", matmul_cost__numpy_int),
    M("matmul_cost",
      "uses d_in twice, n * d_in * d_in, ignoring d_out (right only for square W)",
      matmul_cost__square_W),
    # 03
    M("values",
      "keeps each distinct word once, so repeated words lose their rows and V has fewer than n rows",
      values__distinct_words),
    M("values",
      "builds X from the table's rows in the table's order instead of looking up the sentence's tokens",
      values__table_rows),
    M("values",
      "sorts the tokens alphabetically before looking them up, so the rows are not in sentence order",
      values__sorted_tokens),
    M("values", "multiplies by Wv.T instead of Wv", values__Wv_transposed),
    M("one_hot",
      "takes the width from ids.max() + 1 instead of vocab_size, so the result is too narrow when the "
      "largest id is not used",
      one_hot__vocab_from_ids),
    M("one_hot", "returns the (vocab_size, n) transpose, one column per token instead of one row", one_hot__columns),
    M("one_hot",
      "sorts ids in place, changing the caller's array and putting the rows out of sentence order",
      one_hot__sorts_ids),
    M("one_hot", "returns a boolean array (ids[:, None] == arange) instead of floats", one_hot__bool),
    M("one_hot", "builds the array with dtype=int, returning integers instead of floats", one_hot__int_zeros),
    # 04
    M("uniform_causal_weights",
      "returns the transpose: upper-triangular, column j holding 1/(j+1) on rows 0..j, so columns sum to 1 "
      "instead of rows",
      uniform_causal_weights__transposed),
    M("uniform_causal_weights",
      "divides by the column number, entry (i, j) = 1/(j+1), instead of by the row's count i+1",
      uniform_causal_weights__divide_by_column),
    M("uniform_causal_weights",
      "divides every row by n instead of by i+1, so rows do not sum to 1",
      uniform_causal_weights__divide_by_n),
    M("uniform_causal_weights",
      "normalises each column of the lower triangle to sum to 1 (entry 1/(n-j)) instead of each row",
      uniform_causal_weights__columns_sum_to_one),
    M("uniform_causal_weights",
      "special-cases n = 1 by returning a vector of shape (1,) instead of a (1, 1) matrix",
      uniform_causal_weights__n1_vector),
    M("causal_average",
      "takes the running mean along the feature axis (axis=1) instead of over the rows",
      causal_average__features_axis),
    M("causal_average", "divides the running sum by n instead of by i+1", causal_average__divide_by_n),
    M("causal_average",
      "averages only the previous rows 0..i-1, leaving out row i itself",
      causal_average__previous_rows),
    M("causal_average", "averages rows i..n-1 (the later rows) instead of rows 0..i", causal_average__from_the_end),
    M("causal_average",
      "computes the running mean in place in V (cumsum with out=V), overwriting the input",
      causal_average__in_place),
    # 05
    M("similarity", "returns K @ Q.T, the (n_k, n_q) transpose, key by query", similarity__keys_by_queries),
    M("similarity",
      "multiplies Q @ K without transposing K, which only runs when d == n_k and gives the wrong numbers",
      similarity__no_transpose),
    M("similarity",
      "divides the scores by sqrt(d) although the raw, unscaled dot products are asked for",
      similarity__scaled),
    M("similarity",
      "divides by np.linalg.norm(Q) * np.linalg.norm(K), the Frobenius norms of the whole matrices, instead"
      " of returning raw dot products",
      similarity__norm_default),
    M("similarity",
      "returns only the matched pairs (Q * K).sum(axis=1), the diagonal, instead of the full (n_q, n_k) "
      "matrix",
      similarity__diagonal_only),
    M("learned_scores",
      "returns the transpose: entry (i, j) is token i's key against token j's query",
      learned_scores__keys_by_queries),
    M("learned_scores",
      "combines the projections as X (Wq.T Wk) X.T instead of X (Wq Wk.T) X.T",
      learned_scores__combined_wrong),
    M("learned_scores", "divides the scores by sqrt(d) although no scaling is asked for yet", learned_scores__scaled),
    M("learned_scores",
      "adds a causal mask (-inf above the diagonal) although no mask is asked for yet",
      learned_scores__masked),
    M("learned_scores",
      "symmetrises the scores, (S + S.T) / 2, instead of keeping query i against key j",
      learned_scores__symmetrised),
    # 06
    M("causal_mask",
      "hides the diagonal too (only j < i is 0), so a token cannot see itself",
      causal_mask__diagonal_hidden),
    M("causal_mask",
      "puts -inf below the diagonal (j < i) instead of above it, hiding the past instead of the future",
      causal_mask__lower_triangle),
    M("causal_mask",
      "multiplies a 0/1 upper-triangular matrix by -inf, so the visible entries become NaN (0 * -inf) "
      "instead of 0",
      causal_mask__times_inf),
    M("causal_mask", "uses -1e9 instead of -inf for the hidden entries", causal_mask__minus_1e9),
    M("softmax",
      "exponentiates without subtracting the maximum, so scores around 1000 overflow to inf and give NaN",
      softmax__no_shift),
    M("softmax",
      "subtracts the maximum of the whole array instead of each slice's maximum along axis, so a slice far "
      "below the global maximum underflows to 0/0",
      softmax__global_max),
    M("softmax", "always normalises along the last axis, ignoring the axis argument", softmax__last_axis_always),
    M("softmax",
      "divides by the sums taken without keepdims, which broadcasts them along the wrong axis (wrong for "
      "square 2-D input, an error otherwise)",
      softmax__sum_without_keepdims),
    M("softmax",
      "shifts by the minimum instead of the maximum, which overflows for widely spread scores and gives NaN"
      " where a row has -inf",
      softmax__shift_by_min),
    M("softmax",
      "computes exp(S - logsumexp(S)), which loses the log of the sum next to huge scores (around 1e17 and "
      "up) so the weights no longer sum to 1",
      softmax__logsumexp_form),
    M("score_scale", "returns sqrt(d) instead of 1/sqrt(d)", score_scale__sqrt_d),
    M("score_scale",
      "returns 1/d (the reciprocal of the variance) instead of 1/sqrt(d) (the reciprocal of the standard "
      "deviation)",
      score_scale__one_over_d),
    M("score_scale",
      "returns a Monte-Carlo estimate 1/std of sampled dot products instead of the exact 1/sqrt(d)",
      score_scale__measured),
    M("score_scale", "returns a one-element array of shape (1,) instead of a float", score_scale__array),
    M("attention_weights",
      "aligns the causal mask top-left (query i sees keys 0..i, as torch's is_causal does) instead of "
      "treating the queries as the last n_q positions",
      attention_weights__top_left_mask),
    M("attention_weights",
      "scales by sqrt(n_k) (K.shape[0]) instead of sqrt(d) (Q.shape[1])",
      attention_weights__scale_by_n_k),
    M("attention_weights",
      "applies the softmax over the queries (axis 0), so columns sum to 1 instead of rows",
      attention_weights__softmax_over_queries),
    M("attention_weights",
      "divides the weights by sqrt(d) after the softmax instead of dividing the scores before it",
      attention_weights__scaled_after_softmax),
    M("attention_weights", "always divides by sqrt(d), ignoring scale=False", attention_weights__always_scaled),
    # 07
    M("attention", "multiplies the transposed weights A.T @ V instead of A @ V", attention__weights_transposed),
    M("attention",
      "aligns the causal mask top-left (query i sees keys 0..i) instead of treating the queries as the last"
      " n_q positions",
      attention__top_left_mask),
    M("attention",
      "zeros the future weights after an unmasked softmax without renormalising, so the rows no longer sum "
      "to 1",
      attention__zero_future_after_softmax),
    M("attention", "scales the scores by sqrt(d_v) (V's width) instead of sqrt(d)", attention__scale_by_d_v),
    M("attention",
      "masks by zeroing and renormalising the weights of an unmasked softmax, which gives 0/0 NaN when the "
      "future scores dwarf the visible ones",
      attention__renormalise_after_zeroing),
    M("self_attention",
      "tests `if Wo:` on the array, which raises (ambiguous truth value) instead of checking `Wo is not "
      "None`",
      self_attention__if_Wo),
    M("self_attention",
      "leaves the scores unscaled instead of dividing them by sqrt(d_head)",
      self_attention__unscaled),
    M("self_attention", "multiplies by Wo.T instead of Wo", self_attention__Wo_transposed),
    M("self_attention",
      "scales by sqrt(d_model) (X's width) instead of sqrt(d_head)",
      self_attention__scale_by_d_model),
    M("self_attention",
      "adds the input X back (a residual connection) to the attention output",
      self_attention__residual),
    M("future_leak",
      "returns how many output rows see their future instead of how far ahead the worst row sees",
      future_leak__counts_rows),
    M("future_leak",
      "compares outputs for exact equality, so rounding noise (around 1e-15) counts as a leak",
      future_leak__exact_equality),
    M("future_leak",
      "uses an absolute threshold of 1e-9 instead of 1e-9 times the largest output, so rounding noise on "
      "large outputs counts as a leak",
      future_leak__absolute_tolerance),
    M("future_leak",
      "counts distances in both directions (abs(j - i)), so rows that look back at the past count as leaks",
      future_leak__looks_backwards),
    M("future_leak",
      "moves the rows of X in place (adding then subtracting 1), which does not restore small entries "
      "exactly and modifies X",
      future_leak__moves_X_in_place),
    M("future_leak",
      "only moves the last input row, missing leaks into rows that do not reach the last position",
      future_leak__last_row_only),
    M("tiled_attention",
      "never shrinks the old running sum and accumulator when a tile raises the maximum",
      tiled_attention__no_rescale),
    M("tiled_attention",
      "shrinks the old running sum and accumulator by exp(new max - old max) instead of exp(old max - new "
      "max)",
      tiled_attention__rescale_flipped),
    M("tiled_attention",
      "scores a block of queries against all keys at once (a (block, n_k) strip), so its memory exceeds the"
      " limit even though the values are right",
      tiled_attention__full_strip),
    M("tiled_attention",
      "places the queries at positions 0..n_q-1 in the causal mask instead of at the last n_q positions "
      "when n_q < n_k",
      tiled_attention__top_left_rows),
    M("tiled_attention",
      "starts the running maximum at 0 instead of -inf, so rows whose scores are all below about -745 "
      "underflow to 0/0",
      tiled_attention__max_starts_at_zero),
    # 08
    M("embed",
      "looks the position vectors up by word id (pos_emb[tokens]) instead of by position 0..n-1",
      embed__position_by_word_id),
    M("embed",
      "adds the whole position table instead of its first n rows, failing whenever max_len > n",
      embed__whole_position_table),
    M("embed", "counts positions from 1 (pos_emb[1:n+1]) instead of 0", embed__positions_from_one),
    M("embed",
      "adds the last n rows of the position table (pos_emb[-n:]) instead of the first n",
      embed__last_positions),
    M("embed",
      "concatenates the word and position vectors (shape (n, 2 d_model)) instead of adding them",
      embed__concatenated),
    M("sinusoidal_positions",
      "puts all the sines in the first half of the columns and all the cosines in the second half instead "
      "of alternating them",
      sinusoidal_positions__halves),
    M("sinusoidal_positions",
      "uses the column index j in 10000^(j/d), so each cosine column gets the next pair's exponent (2i+1)/d"
      " instead of 2i/d",
      sinusoidal_positions__column_index_exponent),
    M("sinusoidal_positions",
      "counts positions t from 1 instead of 0, so row 0 is not [0, 1, 0, 1, ...]",
      sinusoidal_positions__t_from_one),
    M("sinusoidal_positions",
      "multiplies t by 10000^(2i/d) instead of dividing by it",
      sinusoidal_positions__multiplied),
    M("sinusoidal_positions",
      "puts the cosines in the even columns and the sines in the odd ones",
      sinusoidal_positions__cos_first),
    # 09
    M("split_heads",
      "reshapes M straight to (n_heads, n, d_head) without moving the head axis, which scrambles rows and "
      "columns",
      split_heads__reshape_only),
    M("split_heads",
      "gives head h the strided columns h::n_heads instead of a contiguous block of d_head columns",
      split_heads__interleaved),
    M("split_heads",
      "returns shape (n, n_heads, d_head), the head axis in the middle, instead of (n_heads, n, d_head)",
      split_heads__heads_in_middle),
    M("split_heads",
      "computes d_head from the number of rows, M.shape[0] // n_heads, instead of from d_model",
      split_heads__d_head_from_rows),
    M("multi_head_attention",
      "scales every head by sqrt(n_heads * d_head) (the full width) instead of sqrt(d_head)",
      multi_head_attention__scale_by_full_width),
    M("multi_head_attention",
      "returns the concatenated head outputs without multiplying by Wo",
      multi_head_attention__no_Wo),
    M("multi_head_attention",
      "gives head h the strided columns h::n_heads instead of columns h*d_head:(h+1)*d_head",
      multi_head_attention__interleaved_heads),
    M("multi_head_attention",
      "runs one attention over all n_heads * d_head columns (one big head scaled by the full width) instead"
      " of n_heads separate heads",
      multi_head_attention__one_big_head),
    M("multi_head_attention",
      "takes d_head = X.shape[1] // n_heads (from d_model) instead of Wq.shape[1] // n_heads, wrong when "
      "n_heads * d_head != d_model",
      multi_head_attention__d_head_from_X),
    # 10
    M("layer_norm",
      "adds eps to the standard deviation, (X - mean) / (std + eps), instead of inside the square root",
      layer_norm__eps_outside_sqrt),
    M("layer_norm", "normalises each column (feature, over the rows) instead of each row", layer_norm__per_feature),
    M("layer_norm", "divides by the variance plus eps instead of its square root", layer_norm__no_square_root),
    M("layer_norm",
      "uses the mean and variance of the whole matrix instead of each row's",
      layer_norm__whole_matrix_stats),
    M("gelu", "computes the exact erf GELU instead of the tanh approximation", gelu__exact_erf),
    M("gelu", "uses sqrt(pi/2) instead of sqrt(2/pi) in front of (x + 0.044715 x^3)", gelu__sqrt_pi_over_2),
    M("gelu", "uses 0.044715 x^2 instead of 0.044715 x^3 inside the tanh", gelu__squared_term),
    M("gelu", "uses the sigmoid approximation x * sigmoid(1.702 x) instead of the tanh formula", gelu__quick_sigmoid),
    M("gelu",
      "puts the cubic term outside the tanh: 0.5 x (1 + tanh(sqrt(2/pi) x) + 0.044715 x^3)",
      gelu__cubic_outside_tanh),
    M("transformer_block",
      "builds a post-LN block (layer norm after each residual sum, sublayers on the raw input) instead of "
      "pre-LN",
      transformer_block__post_ln),
    M("transformer_block",
      "adds the residual to the normalised input layer_norm(X) instead of to X itself (and likewise in the "
      "MLP step)",
      transformer_block__residual_from_normed),
    M("transformer_block",
      "applies GELU a second time, to the output of the MLP after W2 and b2",
      transformer_block__gelu_on_output),
    M("transformer_block",
      "does not pass causal on to multi_head_attention, so the block stays causal when causal=False",
      transformer_block__causal_not_passed),
    M("transformer_block",
      "computes attention and MLP in parallel from X (the MLP reads layer_norm(X) instead of layer_norm(Y))",
      transformer_block__parallel),
    # 11
    M("next_token_logits", "uses the first row H[0] instead of the last row", next_token_logits__first_row),
    M("next_token_logits", "returns softmax probabilities instead of raw logits", next_token_logits__softmaxed),
    M("next_token_logits",
      "returns the logits of every row, (n, vocab), instead of only the last row's",
      next_token_logits__every_row),
    M("next_token_logits", "uses the mean of all rows instead of the last row", next_token_logits__mean_pooled),
    M("next_token_logits",
      "slices H[-1:] and returns shape (1, vocab) instead of (vocab,)",
      next_token_logits__keeps_row_axis),
    M("cross_entropy",
      "takes the log of the softmax probability, which gives inf when an unlikely target's probability "
      "underflows at logits around 1e4",
      cross_entropy__log_of_probability),
    M("cross_entropy",
      "returns the gradient P - onehot without dividing by n, the gradient of the summed loss, while the "
      "loss is the mean",
      cross_entropy__gradient_not_averaged),
    M("cross_entropy",
      "returns the sum of the rows' losses instead of their mean (and the summed loss's gradient)",
      cross_entropy__summed),
    M("cross_entropy", "returns the gradient with the wrong sign, (onehot - P) / n", cross_entropy__gradient_sign),
    M("cross_entropy",
      "indexes logp[:, targets] (every row at every target) instead of logp[arange(n), targets] in the loss",
      cross_entropy__column_indexing),
    M("softmax_backward",
      "uses only the diagonal of the Jacobian, A (1 - A) dA, dropping the cross terms",
      softmax_backward__diagonal_only),
    M("softmax_backward",
      "loops over the first axis with 1-D Jacobians, which only works for 2-D input and fails with more "
      "leading axes",
      softmax_backward__rows_of_a_matrix),
    M("softmax_backward",
      "subtracts the sum (A * dA).sum(-1) without keepdims, so it broadcasts along the wrong axis",
      softmax_backward__sum_without_keepdims),
    M("softmax_backward",
      "sums A * dA over the first axis instead of the last (softmax) axis",
      softmax_backward__sum_over_first_axis),
    M("softmax_backward",
      "has the sign flipped: A (sum(A dA) - dA) instead of A (dA - sum(A dA))",
      softmax_backward__sign_flipped),
    M("attention_backward",
      "leaves the 1/sqrt(d) factor out of dK (it is in dQ) when scale is true",
      attention_backward__dK_unscaled),
    M("attention_backward", "computes dV as A @ dO instead of A.T @ dO", attention_backward__dV_without_transpose),
    M("attention_backward",
      "aligns the causal mask top-left (query i sees keys 0..i) instead of treating the queries as the last"
      " n_q positions",
      attention_backward__top_left_mask),
    M("attention_backward",
      "multiplies dQ and dK by the scale a second time, giving s^2 instead of s",
      attention_backward__scale_twice),
    M("attention_backward",
      "recomputes the weights without the causal mask, so the gradients include the hidden future keys",
      attention_backward__unmasked_weights),
    M("layer_norm_backward",
      "returns dX = dY * g / std, ignoring that the row mean and variance depend on X",
      layer_norm_backward__through_scale_only),
    M("layer_norm_backward",
      "returns dg per row, dY * xhat of shape (n, d), without summing over the rows",
      layer_norm_backward__dg_per_row),
    M("layer_norm_backward",
      "subtracts the mean of dxhat but drops the term through the variance (xhat * mean(dxhat * xhat))",
      layer_norm_backward__mean_term_only),
    M("layer_norm_backward",
      "sums db over the features (axis=1) instead of over the rows",
      layer_norm_backward__db_over_features),
    M("layer_norm_backward",
      "normalises with eps added to the standard deviation instead of inside the square root",
      layer_norm_backward__eps_outside),
    # 12
    M("most_attended",
      "takes the argmax over each column (axis 0), one word per key, instead of over each row",
      most_attended__per_key),
    M("most_attended",
      "takes the last index of a stable argsort, so ties go to the later token instead of the earlier",
      most_attended__argsort_last),
    M("most_attended", "returns a numpy array of strings instead of a list", most_attended__numpy_array),
    M("most_attended",
      "sets the diagonal to -1 before the argmax, so a query never picks the key in its own column",
      most_attended__skips_diagonal),
    M("attention_entropy", "uses log base 2 (bits) instead of the natural log (nats)", attention_entropy__bits),
    M("attention_entropy",
      "computes A * log(A) directly, so zero weights give NaN instead of contributing 0",
      attention_entropy__nan_on_zeros),
    M("attention_entropy",
      "normalises and sums along axis 0 as scipy.stats.entropy does by default, returning one entropy per "
      "key column",
      attention_entropy__scipy_axis0),
    M("attention_entropy",
      "drops the minus sign, returning sum A log A (negative) instead of the entropy",
      attention_entropy__no_minus),
    M("attention_entropy",
      "takes the mean of -A log A over the keys instead of the sum",
      attention_entropy__mean_over_keys),
    # 13
    M("padding_mask",
      "keeps column n_valid visible (j <= n_valid) instead of only j < n_valid",
      padding_mask__one_too_many),
    M("padding_mask",
      "masks the padding rows (queries i >= n_valid) instead of the padding columns",
      padding_mask__padding_rows),
    M("padding_mask", "returns one row of shape (n_k,) instead of the (n_q, n_k) mask", padding_mask__one_row),
    M("padding_mask", "adds a causal mask on top of the padding mask", padding_mask__plus_causal),
    M("padding_mask",
      "returns a 1/0 keep-mask (1.0 for real tokens, 0.0 for padding) instead of the additive 0/-inf mask",
      padding_mask__attention_mask_ones),
    M("cross_attention", "applies a causal mask although cross-attention takes none", cross_attention__causal),
    M("cross_attention",
      "takes the queries from Z and the keys and values from X (roles swapped)",
      cross_attention__queries_from_Z),
    M("cross_attention", "takes the values from X instead of Z", cross_attention__values_from_X),
    M("cross_attention", "scales by sqrt(d_model) instead of sqrt(d_head)", cross_attention__scale_by_d_model),
    M("cross_attention",
      "applies the softmax over the queries (axis 0) instead of over the keys",
      cross_attention__softmax_over_queries),
    # 14
    M("attend_step",
      "exponentiates the scores without subtracting their maximum, so huge scores overflow to NaN",
      attend_step__no_max_shift),
    M("attend_step", "scales by sqrt(t), the number of cached rows, instead of sqrt(d)", attend_step__scale_by_t),
    M("attend_step",
      "leaves the cache's last row (the new token itself) out of the attention",
      attend_step__drops_own_row),
    M("attend_step", "returns shape (1, d_v) instead of (d_v,)", attend_step__row_matrix),
    M("attend_step", "divides the output by sqrt(d) instead of the scores", attend_step__output_scaled),
    M("cache_step", "puts k and v as the first rows of the caches instead of the last", cache_step__prepends),
    M("cache_step",
      "attends over the old caches before appending, so the new token does not see itself (and fails at t ="
      " 0)",
      cache_step__attends_before_append),
    M("cache_step", "uses np.append without an axis, which flattens the caches to 1-D", cache_step__append_flattens),
    M("cache_step", "does not divide the scores by sqrt(d)", cache_step__unscaled),
    M("sample_next",
      "ignores u and draws its own random number (a fresh generator), so the token does not follow u",
      sample_next__own_random_number),
    M("sample_next", "multiplies the logits by the temperature instead of dividing", sample_next__times_temperature),
    M("sample_next",
      "uses searchsorted with side='left', returning the first token whose running total is >= u (a zero-"
      "probability token, or the token before an exact boundary) instead of > u",
      sample_next__searchsorted_left),
    M("sample_next",
      "does not rescale the running total to end at 1, so a u just below 1 can fall past the end and return"
      " vocab",
      sample_next__cdf_not_rescaled),
    M("sample_next", "returns a numpy integer instead of a Python int", sample_next__numpy_integer),
    M("sample_next",
      "exponentiates logits / temperature before subtracting the maximum, which overflows for small "
      "temperatures or large logits",
      sample_next__exp_before_shift),
    M("top_k_filter",
      "keeps exactly k tokens by argsort, dropping logits tied with the k-th largest",
      top_k_filter__exactly_k),
    M("top_k_filter",
      "reads the threshold as np.sort(logits)[-k], which raises when k > vocab",
      top_k_filter__kth_by_negative_index),
    M("top_k_filter", "writes -inf into logits in place and returns it instead of a new array", top_k_filter__in_place),
    M("top_k_filter",
      "thresholds at the k-th smallest logit (ascending sort) instead of the k-th largest",
      top_k_filter__kth_smallest),
    M("top_k_filter", "sets the dropped entries to 0 instead of -inf", top_k_filter__zeros_for_the_rest),
    M("top_k_filter",
      "keeps only logits strictly greater than the (k+1)-th largest, so ties across the cut are all dropped"
      " and fewer than k may survive",
      top_k_filter__strictly_greater),
    M("top_p_filter",
      "keeps tokens until the running total exceeds p strictly, so when it reaches p exactly one token too "
      "many is kept",
      top_p_filter__strictly_more_than_p),
    M("top_p_filter",
      "keeps only the tokens whose running total is <= p, leaving out the token that crosses p (possibly "
      "keeping none)",
      top_p_filter__below_p_only),
    M("top_p_filter",
      "ranks by a reversed ascending argsort, so equal probabilities put the higher id first",
      top_p_filter__reversed_argsort),
    M("top_p_filter",
      "exponentiates the logits without subtracting the maximum, so logits around 1e300 overflow",
      top_p_filter__plain_exp),
    M("top_p_filter",
      "does not special-case p = 1, so tokens whose probability rounds to 0 are cut once the running total "
      "reaches 1",
      top_p_filter__no_p_one_case),
    M("top_p_filter",
      "returns the logits in rank order (sorted by probability) instead of at their token ids",
      top_p_filter__rank_order_output),
    M("generate", "adds pos_emb[token id] instead of pos_emb[position]", generate__position_by_token),
    M("generate", "computes the logits from o @ W_out alone, leaving out the residual x", generate__no_residual),
    M("generate",
      "gives each new token the position len(seq) after appending it, one more than its real position",
      generate__new_positions_from_one),
    M("generate", "computes its own attention instead of calling the cache_step it is given", generate__own_attention),
    M("generate", "also feeds the last new token through cache_step, one call more than needed", generate__extra_call),
    M("generate", "returns the sequence as a float array instead of ints", generate__float_sequence),
    M("kv_cache_bytes", "counts only the keys, missing the factor 2 for keys and values", kv_cache_bytes__keys_only),
    M("kv_cache_bytes", "ignores the batch size", kv_cache_bytes__batch_ignored),
    M("kv_cache_bytes",
      "returns GiB as a float (bytes / 2**30) instead of an int number of bytes",
      kv_cache_bytes__in_gib),
    M("kv_cache_bytes",
      "multiplies with np.prod in int64, which overflows silently for huge sizes instead of staying exact",
      kv_cache_bytes__numpy_prod),
    M("max_cached_tokens",
      "divides with float division and truncates, which is inexact for huge memories",
      max_cached_tokens__float_division),
    M("max_cached_tokens",
      "rounds the division up instead of down, returning a length that no longer fits unless the memory "
      "divides exactly",
      max_cached_tokens__rounds_up),
    M("max_cached_tokens",
      "returns the first length that no longer fits, one more than the largest that does",
      max_cached_tokens__first_that_spills),
    M("max_cached_tokens",
      "leaves out the factor 2 for keys and values, doubling the answer",
      max_cached_tokens__keys_only),
    M("max_cached_tokens", "treats memory_bytes as GiB, multiplying it by 2**30", max_cached_tokens__memory_in_gib),
    # 15
    M("previous_token_score",
      "averages the weights above the diagonal, A[t-1, t] (the future), instead of A[t, t-1]",
      previous_token_score__diagonal_above),
    M("previous_token_score",
      "divides the sum of A[t, t-1] by T instead of by T - 1",
      previous_token_score__divides_by_T),
    M("previous_token_score",
      "takes the mean of an empty diagonal when T = 1, returning NaN instead of 0.0",
      previous_token_score__empty_mean),
    M("previous_token_score",
      "averages the main diagonal A[t, t] (attention to itself) instead of A[t, t-1]",
      previous_token_score__main_diagonal),
    M("previous_token_score",
      "returns only the last row's weight A[T-1, T-2] instead of the mean over rows 1..T-1",
      previous_token_score__last_row_only),
    M("prefix_matching_score",
      "adds the weight after only the most recent earlier copy instead of after every earlier copy",
      prefix_matching_score__latest_copy_only),
    M("prefix_matching_score",
      "adds the weight on the earlier copy itself, A[t, j], instead of on the token after it, A[t, j + 1]",
      prefix_matching_score__the_copy_itself),
    M("prefix_matching_score",
      "averages over all T positions instead of only those whose token appeared before",
      prefix_matching_score__mean_over_all_rows),
    M("prefix_matching_score",
      "counts the position itself as an earlier copy (j <= t), adding A[t, t+1], which is out of range at "
      "the last position",
      prefix_matching_score__includes_itself),
    M("prefix_matching_score",
      "returns NaN (the mean of nothing) instead of 0.0 when no position has an earlier copy",
      prefix_matching_score__nan_without_copies),
    M("ablate_head",
      "zeros the head's rows of Wo in place and returns Wo itself instead of a new array",
      ablate_head__in_place),
    M("ablate_head", "zeros a block of columns instead of the head's rows", ablate_head__columns),
    M("ablate_head",
      "counts heads from 1, zeroing the rows of head - 1 (and nothing for head 0)",
      ablate_head__heads_from_one),
    M("ablate_head",
      "zeros the strided rows head::n_heads instead of the contiguous rows head*d_head:(head+1)*d_head",
      ablate_head__strided_rows),
    M("ablate_head",
      "copies with Wo[:], which is a view for numpy arrays, so Wo itself is modified",
      ablate_head__slice_copy),
    # 16
    M("rope",
      "rotates the pairs (i, i + d/2), the GPT-NeoX rotate-half layout, instead of the adjacent pairs (2i, "
      "2i+1)",
      rope__rotate_half),
    M("rope", "rotates clockwise (the sign of the sine terms flipped)", rope__clockwise),
    M("rope", "uses the row index 0..n-1 instead of the given positions", rope__row_index),
    M("rope", "uses the frequency theta^(-i/d) instead of theta^(-2i/d)", rope__exponent_without_two),
    M("rope", "writes the rotated values into X in place", rope__in_place),
    M("rope_attention", "rotates the values V as well as the queries and keys", rope_attention__rotates_values),
    M("rope_attention", "leaves out the causal mask", rope_attention__no_mask),
    M("rope_attention", "rotates only the queries, not the keys", rope_attention__queries_only),
    M("rope_attention",
      "rotates by the row index 0..n-1 instead of the given positions, wrong when the positions are not "
      "evenly spaced",
      rope_attention__arange_positions),
    M("rope_attention",
      "calls rope without passing theta, so a theta other than 10000 is ignored",
      rope_attention__default_theta),
    # 17
    M("grouped_query_attention",
      "assigns head h to group h % n_kv_heads (tiling) instead of h // (n_heads // n_kv_heads)",
      grouped_query_attention__tiled_groups),
    M("grouped_query_attention",
      "takes d_head = Wk.shape[1] // n_heads instead of Wq.shape[1] // n_heads, too narrow when n_kv_heads "
      "< n_heads",
      grouped_query_attention__d_head_from_Wk),
    M("grouped_query_attention",
      "computes the group as h // n_kv_heads instead of h // (n_heads // n_kv_heads)",
      grouped_query_attention__divides_by_n_kv),
    M("grouped_query_attention",
      "always reads group 0 (the multi-query case) whatever n_kv_heads is",
      grouped_query_attention__always_group_zero),
    M("grouped_query_attention",
      "does not pass causal to attend, so the heads stay causal when causal=False",
      grouped_query_attention__causal_not_passed),
    M("grouped_cache_step",
      "repeats the cache to one entry per query head, returning caches of shape (n_heads, t + 1, d_head)",
      grouped_cache_step__cache_per_query_head),
    M("grouped_cache_step",
      "assigns head h to group h % n_kv_heads instead of h // (n_heads // n_kv_heads)",
      grouped_cache_step__tiled_groups),
    M("grouped_cache_step",
      "puts the new key and value first in each group's cache instead of last",
      grouped_cache_step__prepends),
    M("grouped_cache_step",
      "reuses attend with its causal mask on the single query, so each head sees only the first cached "
      "token",
      grouped_cache_step__attend_with_causal_mask),
    M("grouped_cache_step",
      "concatenates the new rows along axis 0 (the groups) instead of axis 1 (the tokens)",
      grouped_cache_step__concatenate_axis0),
    # 18
    M("sliding_window_mask",
      "lets row i see columns i - window .. i, window + 1 positions instead of window",
      sliding_window_mask__one_extra),
    M("sliding_window_mask",
      "opens the band above the diagonal, columns i .. i + window - 1 (the future), instead of the window "
      "before it",
      sliding_window_mask__band_above),
    M("sliding_window_mask",
      "uses a symmetric band |i - j| < window, letting rows see the future",
      sliding_window_mask__symmetric_band),
    M("sliding_window_mask",
      "computes i - window in unsigned integers, which wraps around for i < window and hides the early rows"
      " entirely",
      sliding_window_mask__unsigned_rows),
    M("rolling_cache_step",
      "trims the old cache to window rows before appending, so it ends with window + 1 rows and the query "
      "sees one row too many",
      rolling_cache_step__cut_before_append),
    M("rolling_cache_step", "ignores n_sinks and always keeps the last window rows", rolling_cache_step__no_sinks),
    M("rolling_cache_step",
      "keeps the first window rows (dropping the newest) instead of the sinks and the most recent rows",
      rolling_cache_step__keeps_oldest),
    M("rolling_cache_step",
      "lets the query attend over all t + 1 rows before cutting the cache back to window",
      rolling_cache_step__attend_before_cut),
    M("rolling_cache_step",
      "keeps the sinks on top of a full window (window + n_sinks rows) instead of within it",
      rolling_cache_step__sinks_on_top),
    # 19
    M("capstone",
      "gelu computes the exact erf GELU instead of the tanh approximation (every other op right)",
      _ops_with(gelu=gelu__exact_erf)),
    M("capstone",
      "layer_norm adds eps to the standard deviation instead of inside the square root (every other op "
      "right)",
      _ops_with(layer_norm=layer_norm__eps_outside_sqrt)),
    M("capstone",
      "cross_entropy returns the gradient without dividing by n (every other op right)",
      _ops_with(cross_entropy=cross_entropy__gradient_not_averaged)),
    M("capstone",
      "attention_backward leaves the 1/sqrt(d) factor out of dK (every other op right)",
      _ops_with(attention_backward=attention_backward__dK_unscaled)),
    M("capstone",
      "embed adds the last n rows of the position table instead of the first n (every other op right)",
      _ops_with(embed=embed__last_positions)),
    M("capstone",
      "next_token_logits uses the mean of all rows instead of the last row (every other op right)",
      _ops_with(next_token_logits=next_token_logits__mean_pooled)),
    M("capstone",
      "layer_norm_backward drops the term through the variance (every other op right)",
      _ops_with(layer_norm_backward=layer_norm_backward__mean_term_only)),
    M("capstone",
      "transformer_block computes attention and MLP in parallel from X (every other op right)",
      _ops_with(transformer_block=transformer_block__parallel)),
]

ACCEPTABLE = [
    M("project", "einsum over the shared index", project_ok_einsum),
    M("compose", "a sum of outer products of W1's columns and W2's rows", compose_ok_loops),
    M("project_rows", "stacks the projection of each row, computed with einsum", project_rows_ok_stack),
    M("matmul_cost", "math.prod over the three sizes converted to int", matmul_cost_ok_math_prod),
    M("values", "np.stack of the looked-up vectors, then @ Wv", values_ok_stack),
    M("one_hot", "rows of the identity matrix picked by fancy indexing", one_hot_ok_eye),
    M("uniform_causal_weights", "np.where over index grids", uniform_causal_weights_ok_where),
    M("causal_average", "the averaging matrix times V", causal_average_ok_matrix),
    M("similarity", "einsum over the feature axis", similarity_ok_einsum),
    M("learned_scores", "one combined matrix X (Wq Wk.T) X.T", learned_scores_ok_one_matrix),
    M("causal_mask", "np.where comparing column and row indices", causal_mask_ok_where),
    M("softmax", "moves the axis to the end, normalises there, and moves it back", softmax_ok_moveaxis),
    M("score_scale", "d to the power -0.5", score_scale_ok_power),
    M("attention_weights",
      "mask from explicit query positions n_k - n_q + i, np.where, then softmax",
      attention_weights_ok_positions),
    M("attention", "weights from attention_weights, then einsum with V", attention_ok_einsum),
    M("self_attention", "calls its own attention with keyword arguments", self_attention_ok_calls_attention),
    M("future_leak", "fills a boolean sees[i, j] matrix and takes the largest j - i", future_leak_ok_matrix),
    M("tiled_attention",
      "online softmax with a per-tile alpha factor and an early break past the causal edge",
      tiled_attention_ok_online),
    M("embed", "np.take on both tables", embed_ok_take),
    M("sinusoidal_positions", "two nested Python loops with math.sin and math.cos", sinusoidal_positions_ok_loops),
    M("split_heads", "reshape to (n, n_heads, d_head), transpose, copy", split_heads_ok_transpose),
    M("multi_head_attention", "all heads batched with einsum", multi_head_attention_ok_batched),
    M("layer_norm",
      "centre first, variance as the mean of squares, g times the normalised rows",
      layer_norm_ok_centered),
    M("gelu", "the tanh argument factored as c x (1 + 0.044715 x^2)", gelu_ok_constants),
    M("transformer_block", "named intermediate steps with a local layer-norm wrapper", transformer_block_ok_steps),
    M("next_token_logits", "W_vocab.T @ H[n-1]", next_token_logits_ok_transpose),
    M("cross_entropy",
      "log-sum-exp minus the picked logit, gradient from exp(logits - lse)",
      cross_entropy_ok_logsumexp),
    M("softmax_backward", "einsum for the row inner product, A dA - A <A, dA>", softmax_backward_ok_einsum),
    M("attention_backward", "einsum for every product, softmax backward as a helper", attention_backward_ok_einsum),
    M("layer_norm_backward",
      "the step-by-step chain rule through the variance and the mean",
      layer_norm_backward_ok_chain),
    M("most_attended", "a Python loop that keeps the first strict maximum", most_attended_ok_loop),
    M("attention_entropy",
      "np.log with where=A > 0 into a zero array, einsum for the row sums",
      attention_entropy_ok_masked_log),
    M("padding_mask", "a full -inf array with the first n_valid columns set to 0", padding_mask_ok_full),
    M("cross_attention", "reuses its own attention with causal=False", cross_attention_ok_attention),
    M("attend_step", "einsum, dividing by the sum of weights at the end", attend_step_ok_einsum),
    M("cache_step", "np.concatenate with reshaped rows", cache_step_ok_concatenate),
    M("sample_next", "a Python loop over the rescaled cumulative sum", sample_next_ok_loop),
    M("top_k_filter", "np.partition for the k-th largest", top_k_filter_ok_partition),
    M("top_p_filter", "sorted() with key (-p, id) and a running total in a loop", top_p_filter_ok_loop),
    M("generate", "a single while loop over positions", generate_ok_loop),
    M("kv_cache_bytes", "bytes per token first, then times tokens and batch", kv_cache_bytes_ok_math_prod),
    M("max_cached_tokens", "divmod by the bytes one token takes", max_cached_tokens_ok_divmod),
    M("previous_token_score", "np.diagonal with offset -1, guarded for T = 1", previous_token_score_ok_diagonal),
    M("prefix_matching_score", "boolean masks for earlier copies, shifted one column", prefix_matching_score_ok_masks),
    M("ablate_head", "np.where with a row mask", ablate_head_ok_mask),
    M("rope", "complex multiplication of each pair by exp(i a)", rope_ok_complex),
    M("rope_attention", "reuses its own rope and attention", rope_attention_ok_reuse),
    M("grouped_query_attention",
      "np.repeat of the K/V heads, all heads batched with einsum",
      grouped_query_attention_ok_repeat),
    M("grouped_cache_step",
      "queries reshaped to (n_kv_heads, heads per group, d_head), einsum",
      grouped_cache_step_ok_broadcast),
    M("sliding_window_mask", "difference of two np.tril masks", sliding_window_mask_ok_tril),
    M("rolling_cache_step", "index array np.r_ of the sinks and the newest rows", rolling_cache_step_ok_index),
    M("capstone", "every op the right answer listed above for its exercise", dict(_RIGHT_OPS)),
]
