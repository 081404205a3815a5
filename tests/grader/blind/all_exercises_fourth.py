"""Blind set 4: realistic learner mistakes and acceptable variants for every exercise of exercises/01_*.ipynb to
exercises/16_your_own_model.ipynb (45 function exercises and the capstone).

Written from the exercise notebooks' task texts and stub signatures alone (with the lessons and attnlib's maths
modules for conventions). The grader, its checks, the tests, the solutions and the other blind sets were not read.

Habits imitated: the spreadsheet and loop learner (1-based loops, int accumulators, ^ for powers, per-column
formulas); the column-vector thinker (W @ x, W.T @ X.T never transposed back, W read as (d_out, d_in)); the paper
copier (x' = Wx order, 1-based positions and heads, sample variance); the rusher (a dropped term, residual, scale,
edge case or axis); the over-defensive (-1e9 for -inf, clipping at 1e-12, max(1, ...), float32 casts); name and axis
confusions (K vs V, Q vs K, rows vs columns, n vs n - 1, keepdims, axis 0 vs -1, d vs d_v vs n_k); in-place
edits of the inputs (X -=, Q /=, views of pos_emb / tok_emb / Wo, W = W1 aliases); and precision traps (np.exp
overflow, underflow to 0/0, int32 wrap-around, float rounding above 2**53, np.int64 where a Python int is asked).
float32 arithmetic alone is not counted as a mistake: exercise 16 says the checks accept it.

Capstone entries are dicts of ops (keys from attnlib.learner_ops.NAMES): all correct except the op(s) the line
names; one is a partial dict, as a learner who skipped exercises would have.

Verification (outside the repository, against reference answers written from the texts; the
references were cross-checked against attnlib's public functions where attnlib has one):
- 329 mistakes, 52 acceptable variants (mistakes/acceptable per exercise): project 5/1, compose 5/1,
  project_rows 5/1, matmul_cost 6/1, values 5/1, one_hot 5/1, uniform_causal_weights 6/1, causal_average 6/1,
  similarity 6/1, learned_scores 6/1, causal_mask 7/1, softmax 6/1, score_scale 5/1, attention_weights 7/1,
  attention 8/1, self_attention 6/1, future_leak 7/1, tiled_attention 9/2, embed 6/1, sinusoidal_positions 7/1,
  split_heads 5/1, multi_head_attention 7/1, layer_norm 7/1, gelu 7/1, transformer_block 9/1,
  next_token_logits 6/1, cross_entropy 12/2, softmax_backward 7/1, attention_backward 10/2,
  layer_norm_backward 9/1, most_attended 6/1, attention_entropy 7/1, padding_mask 9/1, cross_attention 7/1,
  attend_step 6/1, cache_step 6/1, sample_next 9/1, top_k_filter 7/1, top_p_filter 10/2, generate 12/2,
  kv_cache_bytes 5/1, max_cached_tokens 6/1, previous_token_score 6/1, prefix_matching_score 8/1, ablate_head 7/1,
  capstone 16/2.
- Targeted inputs per exercise (sizes, seeds and the edge cases the texts name: n_q < n_k, scale/causal flags,
  scores around 1000, -inf entries, logits around 1e4 and 1e300, temperature 0 and 1e-8, ties, u on a boundary and
  above the rounded total, p reached exactly, p = 1, k > vocab, T = 1, no repeated token, empty caches, sizes
  beyond 2**53 and 2**63): project 6, compose 5, project_rows 5, matmul_cost 8, values 4, one_hot 5,
  uniform_causal_weights 4, causal_average 4, similarity 5, learned_scores 4, causal_mask 4, softmax 9,
  score_scale 6, attention_weights 9, attention 8, self_attention 5, future_leak 9 (exact, leaking, noisy and
  tiny-weight attention functions), tiled_attention 9 (plus a tracemalloc peak for n = 2048, d = 4, d_v = 2,
  block = 64 against 512 kB), embed 4, sinusoidal_positions 5, split_heads 7, multi_head_attention 6, layer_norm 6,
  gelu 6, transformer_block 4, next_token_logits 4, cross_entropy 5, softmax_backward 6, attention_backward 16,
  layer_norm_backward 5, most_attended 4, attention_entropy 5, padding_mask 6, cross_attention 4, attend_step 5,
  cache_step 4, sample_next 15, top_k_filter 8, top_p_filter 11, generate 7 (cache_step calls counted; two
  probes with a softer cache_step), kv_cache_bytes 6, max_cached_tokens 8, previous_token_score 6,
  prefix_matching_score 6, ablate_head 6.
- Every mistake differs from the reference on at least one targeted input: a different value (beyond 1e-6 relative
  for every numeric one), shape, dtype or type, an exception, a modified input, a returned view of the input, the
  wrong number of cache_step calls, or (tiled_scores_strip) a peak over 512 kB.
- Every acceptable variant agrees with the reference to 1e-10 (relative to the output's scale) on all targeted
  inputs and on 150 further random valid inputs per exercise, leaves its inputs unmodified, raises no
  RuntimeWarning, and (tiled) stays under 200 kB.
- Capstone: in each wrong dict the wrong op(s) differ from the right op on that exercise's targeted inputs. Run in
  TinyLM (d_model 16, 2 heads, 2 layers, max_len 8, 30 steps on 7-word rows, then greedy and sampled generation)
  against ops={}: 12 of the 16 change the loss or the tokens (cross_entropy's dlogits off by the factor n moves the
  loss by only 6e-3 relative); 3 leave training and generation untouched and show only in their own exercise's
  check (layer_norm in place, cache_step prepending, sample_next side='left'); 1 (cross_entropy with shifted
  targets) makes the model raise on the shape of dlogits. Both acceptable dicts reproduce the ops={} loss
  curve to 6e-16 and the same greedy and sampled tokens; each of their ops also passes the random inputs above.
"""
from dataclasses import dataclass
from typing import Callable

import numpy as np

# exercise 10's block calls the given multi_head_attention, imported as its notebook does
from attnlib import multi_head_attention as given_multi_head_attention


@dataclass(frozen=True)
class Mistake:
    exercise: str  # the exercise's check name, e.g. "causal_mask"
    what: str      # one precise plain-English line naming the mistake, as an ideal grader would
    fn: Callable   # the learner's function, with the exercise's exact signature (for the capstone: the dict of ops)


# ----------------------------------------------------------------------------
# The learner's own correct earlier functions, which later exercises may call ("you may use your softmax ...").

def _softmax(S, axis=-1):
    E = np.exp(S - S.max(axis=axis, keepdims=True))
    return E / E.sum(axis=axis, keepdims=True)


def _causal_mask(n_q, n_k):
    """0 where key j <= n_k - n_q + i, -inf after: the queries are the last n_q positions."""
    return np.triu(np.full((n_q, n_k), -np.inf), k=n_k - n_q + 1)


def _attention_weights(Q, K, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(Q.shape[1])
    if causal:
        S = S + _causal_mask(Q.shape[0], K.shape[0])
    return _softmax(S)


def _attention(Q, K, V, causal=True, scale=True):
    return _attention_weights(Q, K, causal, scale) @ V


def _attend(Q, K, V, causal=True):
    """The helper exercise 09 gives: scaled attention for one head."""
    S = Q @ K.T / np.sqrt(Q.shape[1])
    if causal:
        S = S + np.triu(np.full(S.shape, -np.inf), k=1)
    E = np.exp(S - S.max(axis=1, keepdims=True))
    return (E / E.sum(axis=1, keepdims=True)) @ V


def _split_heads(M, n_heads):
    d_head = M.shape[1] // n_heads
    return np.stack([M[:, h * d_head:(h + 1) * d_head] for h in range(n_heads)])


def _multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    Q, K, V = _split_heads(X @ Wq, n_heads), _split_heads(X @ Wk, n_heads), _split_heads(X @ Wv, n_heads)
    heads = [_attend(Q[h], K[h], V[h], causal) for h in range(n_heads)]
    return np.concatenate(heads, axis=1) @ Wo


def _layer_norm(X, g, b, eps=1e-5):
    mu = X.mean(axis=1, keepdims=True)
    var = ((X - mu) ** 2).mean(axis=1, keepdims=True)
    return (X - mu) / np.sqrt(var + eps) * g + b


def _gelu(X):
    return 0.5 * X * (1 + np.tanh(np.sqrt(2 / np.pi) * (X + 0.044715 * X ** 3)))


def _attend_step(q, K_cache, V_cache):
    s = K_cache @ q / np.sqrt(q.shape[0])
    w = np.exp(s - s.max())
    return (w / w.sum()) @ V_cache


def _softmax_backward(A, dA):
    return A * (dA - (A * dA).sum(axis=-1, keepdims=True))


# ============================================================================
# 01 project

def project_column_vector_habit(x, W):
    return W @ x  # x' = Wx, as in the paper


def project_keeps_row_matrix(x, W):
    row = x.reshape(1, -1)  # a row vector is a 1 x d_in matrix
    return row @ W


def project_loop_from_one(x, W):
    d_in, d_out = W.shape
    out = np.zeros(d_out)
    for j in range(d_out):
        for i in range(1, d_in):
            out[j] += x[i] * W[i, j]
    return out


def project_loop_swapped_indices(x, W):
    out = np.zeros(W.shape[1])
    for j in range(W.shape[1]):
        for i in range(W.shape[0]):
            out[j] += x[i] * W[j, i]
    return out


def project_mean_not_sum(x, W):
    return (x[:, None] * W).mean(axis=0)


def project_ok_column_vectors(x, W):
    col = x.reshape(-1, 1)  # (d_in, 1)
    return (W.T @ col)[:, 0]  # x' = W^T x with column vectors


# 01 compose

def compose_paper_order(W1, W2):
    return W2 @ W1  # "first W1 then W2" written as W2 W1, column-vector style


def compose_column_form_not_transposed_back(W1, W2):
    return W2.T @ W1.T  # the column-vector matrix, never turned back into the course's layout


def compose_elementwise(W1, W2):
    return W1 * W2


def compose_overwrites_W1(W1, W2):
    W = W1  # not a copy
    W @= W2
    return W


def compose_transposes_W2(W1, W2):
    return W1 @ W2.T


def compose_ok_through_basis(W1, W2):
    rows = [(e @ W1) @ W2 for e in np.eye(W1.shape[0])]  # where each basis vector lands
    return np.array(rows)


# ============================================================================
# 02 project_rows

def project_rows_column_habit(X, W):
    return W.T @ X.T  # columns are tokens: (d_out, n)


def project_rows_torch_layout(X, W):
    return X @ W.T  # W read as (d_out, d_in)


def project_rows_zeros_like(X, W):
    out = np.zeros_like(X)
    for i in range(X.shape[0]):
        out[i] = X[i] @ W
    return out


def project_rows_skips_first(X, W):
    out = np.zeros((X.shape[0], W.shape[1]))
    for i in range(1, X.shape[0]):
        out[i] = X[i] @ W
    return out


def project_rows_sums_wrong_axis(X, W):
    return (X[:, :, None] * W[None, :, :]).sum(axis=2)


def project_rows_ok_loop(X, W):
    return np.array([X[i] @ W for i in range(X.shape[0])])


# 02 matmul_cost

def matmul_cost_flops(n, d_in, d_out):
    return 2 * n * d_in * d_out  # a multiply and an add per term


def matmul_cost_additions(n, d_in, d_out):
    return n * d_out * (d_in - 1)


def matmul_cost_output_entries(n, d_in, d_out):
    return n * d_out


def matmul_cost_np_prod(n, d_in, d_out):
    return np.prod([n, d_in, d_out])


def matmul_cost_int32(n, d_in, d_out):
    sizes = np.array([n, d_in, d_out], dtype=np.int32)
    return int(sizes[0] * sizes[1] * sizes[2])


def matmul_cost_float_product(n, d_in, d_out):
    return int(np.prod([n, d_in, d_out], dtype=float))


def matmul_cost_ok_cast(n, d_in, d_out):
    return int(n) * int(d_in) * int(d_out)


# ============================================================================
# 03 values

def values_unique_words(tokens, table, Wv):
    words = list(dict.fromkeys(tokens))  # each word once
    X = np.array([table[w] for w in words])
    return X @ Wv


def values_whole_table(tokens, table, Wv):
    X = np.array(list(table.values()))
    return X @ Wv


def values_np_unique(tokens, table, Wv):
    X = np.array([table[w] for w in np.unique(tokens)])
    return X @ Wv


def values_column_habit(tokens, table, Wv):
    X = np.array([table[w] for w in tokens])
    return Wv.T @ X.T


def values_skips_first_token(tokens, table, Wv):
    X = np.array([table[tokens[i]] for i in range(1, len(tokens))])
    return X @ Wv


def values_ok_row_by_row(tokens, table, Wv):
    return np.array([table[w] @ Wv for w in tokens])


# 03 one_hot

def one_hot_int_dtype(ids, vocab_size):
    out = np.zeros((len(ids), vocab_size), dtype=int)
    out[np.arange(len(ids)), ids] = 1
    return out


def one_hot_size_from_ids(ids, vocab_size):
    return np.eye(ids.max() + 1)[ids]


def one_hot_columns(ids, vocab_size):
    out = np.zeros((vocab_size, len(ids)))
    out[ids, np.arange(len(ids))] = 1.0
    return out


def one_hot_eye_of_n(ids, vocab_size):
    return np.eye(len(ids))[ids]


def one_hot_one_based(ids, vocab_size):
    out = np.zeros((len(ids), vocab_size))
    out[np.arange(len(ids)), ids - 1] = 1.0
    return out


def one_hot_ok_compare(ids, vocab_size):
    return (np.asarray(ids)[:, None] == np.arange(vocab_size)[None, :]).astype(float)


# ============================================================================
# 04 uniform_causal_weights

def ucw_upper_triangle(n):
    T = np.triu(np.ones((n, n)))
    return T / T.sum(axis=1, keepdims=True)


def ucw_normalises_columns(n):
    T = np.tril(np.ones((n, n)))
    return T / T.sum(axis=0, keepdims=True)


def ucw_divides_columns(n):
    return np.tril(np.ones((n, n))) / np.arange(1, n + 1)


def ucw_strictly_lower(n):
    return np.tril(np.ones((n, n)), k=-1) / np.arange(1, n + 1)[:, None]


def ucw_int_rows(n):
    A = np.tril(np.ones((n, n), dtype=int))
    for i in range(n):
        A[i] = A[i] / (i + 1)
    return A


def ucw_divides_by_n(n):
    return np.tril(np.ones((n, n))) / n


def ucw_ok_loops(n):
    A = np.zeros((n, n))
    for i in range(n):
        for j in range(i + 1):
            A[i, j] = 1 / (i + 1)
    return A


# 04 causal_average

def ca_divides_columns(V):
    return np.cumsum(V, axis=0) / np.arange(1, V.shape[0] + 1)


def ca_divides_by_n(V):
    return np.cumsum(V, axis=0) / V.shape[0]


def ca_cumsum_along_features(V):
    return np.cumsum(V, axis=1) / np.arange(1, V.shape[0] + 1)[:, None]


def ca_excludes_own_row(V):
    out = V.astype(float)
    for i in range(1, V.shape[0]):
        out[i] = V[:i].mean(axis=0)
    return out


def ca_mean_of_everything(V):
    out = np.zeros(V.shape)
    for i in range(V.shape[0]):
        out[i] = V[:i + 1].mean()
    return out


def ca_in_place(V):
    np.cumsum(V, axis=0, out=V)
    V /= np.arange(1, V.shape[0] + 1)[:, None]
    return V


def ca_ok_weights(V):
    n = V.shape[0]
    A = np.tril(np.ones((n, n))) / np.arange(1, n + 1)[:, None]
    return A @ V


# ============================================================================
# 05 similarity

def similarity_transposes_Q(Q, K):
    return Q.T @ K


def similarity_keys_first(Q, K):
    return K @ Q.T


def similarity_scaled(Q, K):
    return Q @ K.T / np.sqrt(Q.shape[1])


def similarity_elementwise(Q, K):
    return (Q * K).sum(axis=1)


def similarity_no_transpose(Q, K):
    return Q @ K


def similarity_cosine(Q, K):
    Qn = Q / np.linalg.norm(Q, axis=1, keepdims=True)
    Kn = K / np.linalg.norm(K, axis=1, keepdims=True)
    return Qn @ Kn.T


def similarity_ok_loops(Q, K):
    S = np.zeros((Q.shape[0], K.shape[0]))
    for i in range(Q.shape[0]):
        for j in range(K.shape[0]):
            S[i, j] = np.dot(Q[i], K[j])
    return S


# 05 learned_scores

def learned_scores_swapped(X, Wq, Wk):
    Q = X @ Wk
    K = X @ Wq
    return Q @ K.T


def learned_scores_Wq_twice(X, Wq, Wk):
    Q = X @ Wq
    K = X @ Wq
    return Q @ K.T


def learned_scores_scaled(X, Wq, Wk):
    return (X @ Wq) @ (X @ Wk).T / np.sqrt(Wq.shape[1])


def learned_scores_masked(X, Wq, Wk):
    S = (X @ Wq) @ (X @ Wk).T
    return S + np.triu(np.full(S.shape, -np.inf), k=1)


def learned_scores_column_vectors(X, Wq, Wk):
    Q = Wq.T @ X.T  # (d, n): tokens are columns
    K = Wk.T @ X.T
    return Q @ K.T


def learned_scores_softmaxed(X, Wq, Wk):
    return _softmax((X @ Wq) @ (X @ Wk).T)


def learned_scores_ok_chain(X, Wq, Wk):
    return X @ Wq @ Wk.T @ X.T


# ============================================================================
# 06 causal_mask

def causal_mask_hides_diagonal(n):
    return np.triu(np.full((n, n), -np.inf))


def causal_mask_hides_past(n):
    return np.tril(np.full((n, n), -np.inf), k=-1)


def causal_mask_boolean(n):
    return np.triu(np.ones((n, n), dtype=bool), k=1)


def causal_mask_minus_1e9(n):
    return np.triu(np.full((n, n), -1e9), k=1)


def causal_mask_multiplicative(n):
    return np.tril(np.ones((n, n)))


def causal_mask_ones_times_inf(n):
    return np.triu(np.ones((n, n)), k=1) * -np.inf


def causal_mask_plus_inf(n):
    return np.triu(np.full((n, n), np.inf), k=1)


def causal_mask_ok_where(n):
    i = np.arange(n)[:, None]
    j = np.arange(n)[None, :]
    return np.where(j > i, -np.inf, 0.0)


# 06 softmax

def softmax_no_max(S, axis=-1):
    E = np.exp(S)
    return E / E.sum(axis=axis, keepdims=True)


def softmax_global_max(S, axis=-1):
    E = np.exp(S - S.max())
    return E / E.sum(axis=axis, keepdims=True)


def softmax_global_sum(S, axis=-1):
    E = np.exp(S - S.max(axis=axis, keepdims=True))
    return E / E.sum()


def softmax_max_without_keepdims(S, axis=-1):
    E = np.exp(S - S.max(axis=axis))
    return E / E.sum(axis=axis, keepdims=True)


def softmax_ignores_axis(S, axis=-1):
    E = np.exp(S - S.max(axis=-1, keepdims=True))
    return E / E.sum(axis=-1, keepdims=True)


def softmax_clipped(S, axis=-1):
    E = np.exp(S - S.max(axis=axis, keepdims=True))
    return np.clip(E / E.sum(axis=axis, keepdims=True), 1e-12, 1.0)  # never exactly 0 or above 1


def softmax_ok_logsumexp(S, axis=-1):
    m = S.max(axis=axis, keepdims=True)
    lse = m + np.log(np.exp(S - m).sum(axis=axis, keepdims=True))
    return np.exp(S - lse)


def softmax_ok_rows_loop(S, axis=-1):
    T = np.moveaxis(S, axis, -1)
    flat = T.reshape(-1, T.shape[-1])
    out = np.empty(flat.shape)
    for r in range(flat.shape[0]):
        e = np.exp(flat[r] - flat[r].max())
        out[r] = e / e.sum()
    return np.moveaxis(out.reshape(T.shape), -1, axis)


# 06 score_scale

def score_scale_one_over_d(d):
    return 1.0 / d


def score_scale_sqrt_d(d):
    return float(np.sqrt(d))


def score_scale_sample_variance(d):
    return 1.0 / np.sqrt(d - 1)


def score_scale_precedence(d):
    return 1 / d ** 1 / 2


def score_scale_measured(d):
    rng = np.random.default_rng(0)
    q = rng.standard_normal((5_000, d))
    k = rng.standard_normal((5_000, d))
    return float(1.0 / np.sqrt(((q * k).sum(axis=1)).var()))


def score_scale_ok_power(d):
    return d ** -0.5


# 06 attention_weights

def aw_mask_from_top_left(Q, K, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(Q.shape[1])
    if causal:
        S = S + np.triu(np.full(S.shape, -np.inf), k=1)
    return _softmax(S)


def aw_mask_after_softmax(Q, K, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(Q.shape[1])
    A = _softmax(S)
    if causal:
        n_q, n_k = S.shape
        A = A * np.tril(np.ones((n_q, n_k)), k=n_k - n_q)
    return A


def aw_divides_by_d(Q, K, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / Q.shape[1]
    if causal:
        S = S + _causal_mask(Q.shape[0], K.shape[0])
    return _softmax(S)


def aw_scale_from_n_k(Q, K, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(K.shape[0])
    if causal:
        S = S + _causal_mask(Q.shape[0], K.shape[0])
    return _softmax(S)


def aw_softmax_over_queries(Q, K, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(Q.shape[1])
    if causal:
        S = S + _causal_mask(Q.shape[0], K.shape[0])
    return _softmax(S, axis=0)


def aw_hides_own_position(Q, K, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(Q.shape[1])
    if causal:
        n_q, n_k = S.shape
        S = S + np.triu(np.full((n_q, n_k), -np.inf), k=n_k - n_q)
    return _softmax(S)


def aw_always_scales(Q, K, causal=True, scale=True):
    S = Q @ K.T / np.sqrt(Q.shape[1])
    if causal:
        S = S + _causal_mask(Q.shape[0], K.shape[0])
    return _softmax(S)


def aw_ok_slice_of_square_mask(Q, K, causal=True, scale=True):
    n_q, n_k = Q.shape[0], K.shape[0]
    S = Q @ K.T / (np.sqrt(Q.shape[1]) if scale else 1.0)
    if causal:
        S = S + np.triu(np.full((n_k, n_k), -np.inf), k=1)[n_k - n_q:]  # the last n_q rows of the n_k mask
    return _softmax(S)


# ============================================================================
# 07 attention

def attention_transposed_output(Q, K, V, causal=True, scale=True):
    A = _attention_weights(Q, K, causal, scale)
    return V.T @ A.T


def attention_keys_and_values_swapped(Q, K, V, causal=True, scale=True):
    A = _attention_weights(Q, V, causal, scale)
    return A @ K


def attention_mask_from_top_left(Q, K, V, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(Q.shape[1])
    if causal:
        S = S + np.triu(np.full(S.shape, -np.inf), k=1)
    return _softmax(S) @ V


def attention_never_scales(Q, K, V, causal=True, scale=True):
    S = Q @ K.T
    if causal:
        S = S + _causal_mask(Q.shape[0], K.shape[0])
    return _softmax(S) @ V


def attention_zeroes_future_scores(Q, K, V, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(Q.shape[1])
    if causal:
        n_q, n_k = S.shape
        S = np.tril(S, k=n_k - n_q)  # future scores set to 0
    return _softmax(S) @ V


def attention_scale_from_d_v(Q, K, V, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(V.shape[1])
    if causal:
        S = S + _causal_mask(Q.shape[0], K.shape[0])
    return _softmax(S) @ V


def attention_scales_Q_in_place(Q, K, V, causal=True, scale=True):
    if scale:
        Q /= np.sqrt(Q.shape[1])
    S = Q @ K.T
    if causal:
        S = S + _causal_mask(Q.shape[0], K.shape[0])
    return _softmax(S) @ V


def attention_returns_weights_too(Q, K, V, causal=True, scale=True):
    A = _attention_weights(Q, K, causal, scale)
    return A @ V, A


def attention_ok_row_loop(Q, K, V, causal=True, scale=True):
    n_q, n_k = Q.shape[0], K.shape[0]
    O = np.zeros((n_q, V.shape[1]))
    for i in range(n_q):
        seen = n_k - n_q + i + 1 if causal else n_k
        s = K[:seen] @ Q[i]
        if scale:
            s = s / np.sqrt(Q.shape[1])
        w = np.exp(s - s.max())
        O[i] = (w / w.sum()) @ V[:seen]
    return O


# 07 self_attention

def self_attention_ignores_Wo(X, Wq, Wk, Wv, Wo=None, causal=True):
    return _attention(X @ Wq, X @ Wk, X @ Wv, causal)


def self_attention_truthiness_of_Wo(X, Wq, Wk, Wv, Wo=None, causal=True):
    O = _attention(X @ Wq, X @ Wk, X @ Wv, causal)
    if Wo:
        O = O @ Wo
    return O


def self_attention_always_causal(X, Wq, Wk, Wv, Wo=None, causal=True):
    O = _attention(X @ Wq, X @ Wk, X @ Wv)
    return O if Wo is None else O @ Wo


def self_attention_unscaled(X, Wq, Wk, Wv, Wo=None, causal=True):
    O = _attention(X @ Wq, X @ Wk, X @ Wv, causal, scale=False)
    return O if Wo is None else O @ Wo


def self_attention_q_k_swapped(X, Wq, Wk, Wv, Wo=None, causal=True):
    O = _attention(X @ Wk, X @ Wq, X @ Wv, causal)
    return O if Wo is None else O @ Wo


def self_attention_Wo_transposed(X, Wq, Wk, Wv, Wo=None, causal=True):
    O = _attention(X @ Wq, X @ Wk, X @ Wv, causal)
    return O if Wo is None else O @ Wo.T


def self_attention_ok_Wo_folded(X, Wq, Wk, Wv, Wo=None, causal=True):
    Wvo = Wv if Wo is None else Wv @ Wo  # A (X Wv) Wo = A X (Wv Wo)
    return _attention(X @ Wq, X @ Wk, X @ Wvo, causal)


# 07 future_leak

def future_leak_smallest_k(attn, X):
    base = attn(X)
    tol = 1e-9 * max(1.0, np.abs(base).max())
    n = X.shape[0]
    for k in range(1, n):
        for i in range(n - k):
            moved = X.copy()
            moved[i + k] += 1.0
            if np.abs(attn(moved)[i] - base[i]).max() > tol:
                return k
    return 0


def future_leak_counts_pairs(attn, X):
    base = attn(X)
    tol = 1e-9 * max(1.0, np.abs(base).max())
    count = 0
    for j in range(X.shape[0]):
        moved = X.copy()
        moved[j] += 1.0
        change = np.abs(attn(moved) - base).max(axis=1)
        count += int((change[:j] > tol).sum())
    return count


def future_leak_looks_back(attn, X):
    base = attn(X)
    tol = 1e-9 * max(1.0, np.abs(base).max())
    worst = 0
    for j in range(X.shape[0]):
        moved = X.copy()
        moved[j] += 1.0
        change = np.abs(attn(moved) - base).max(axis=1)
        for i in range(j + 1, X.shape[0]):  # rows after the moved one
            if change[i] > tol:
                worst = max(worst, i - j)
    return worst


def future_leak_absolute_threshold(attn, X):
    base = attn(X)
    worst = 0
    for j in range(X.shape[0]):
        moved = X.copy()
        moved[j] += 1.0
        change = np.abs(attn(moved) - base).max(axis=1)
        for i in range(j):
            if change[i] > 1e-9:
                worst = max(worst, j - i)
    return worst


def future_leak_nudges_X_in_place(attn, X):
    base = attn(X)
    tol = 1e-9 * max(1.0, np.abs(base).max())
    worst = 0
    for j in range(X.shape[0]):
        X[j] += 1.0
        change = np.abs(attn(X) - base).max(axis=1)
        X[j] -= 1.0  # put it back
        for i in range(j):
            if change[i] > tol:
                worst = max(worst, j - i)
    return worst


def future_leak_range_too_short(attn, X):
    base = attn(X)
    tol = 1e-9 * max(1.0, np.abs(base).max())
    n = X.shape[0]
    worst = 0
    for k in range(1, n - 1):
        for i in range(n - k):
            moved = X.copy()
            moved[i + k] += 1.0
            if np.abs(attn(moved)[i] - base[i]).max() > tol:
                worst = k
    return worst


def future_leak_tiny_nudge(attn, X):
    base = attn(X)
    tol = 1e-9 * max(1.0, np.abs(base).max())
    worst = 0
    for j in range(X.shape[0]):
        moved = X.copy()
        moved[j] += 1e-6  # a small step, like a derivative
        change = np.abs(attn(moved) - base).max(axis=1)
        for i in range(j):
            if change[i] > tol:
                worst = max(worst, j - i)
    return worst


def future_leak_ok_largest_first(attn, X):
    base = attn(X)
    tol = 1e-9 * max(1.0, float(np.abs(base).max()))
    n = X.shape[0]
    for k in range(n - 1, 0, -1):
        for i in range(n - k):
            moved = X.copy()
            moved[i + k] = moved[i + k] + 1.0
            if np.abs(attn(moved)[i] - base[i]).max() > tol:
                return k
    return 0


# 07 tiled_attention

def tiled_no_rescale(Q, K, V, causal=True, block=64):
    n_q, n_k = Q.shape[0], K.shape[0]
    O = np.zeros((n_q, V.shape[1]))
    for q0 in range(0, n_q, block):
        Qb = Q[q0:q0 + block] / np.sqrt(Q.shape[1])
        m = np.full((len(Qb), 1), -np.inf)
        l = np.zeros((len(Qb), 1))
        acc = np.zeros((len(Qb), V.shape[1]))
        for k0 in range(0, n_k, block):
            S = Qb @ K[k0:k0 + block].T
            if causal:
                qpos = n_k - n_q + q0 + np.arange(len(Qb))[:, None]
                S = np.where(k0 + np.arange(S.shape[1])[None, :] > qpos, -np.inf, S)
            m = np.maximum(m, S.max(axis=1, keepdims=True))
            P = np.exp(S - m)
            l = l + P.sum(axis=1, keepdims=True)
            acc = acc + P @ V[k0:k0 + block]
        O[q0:q0 + block] = acc / l
    return O


def tiled_rescales_l_only(Q, K, V, causal=True, block=64):
    n_q, n_k = Q.shape[0], K.shape[0]
    O = np.zeros((n_q, V.shape[1]))
    for q0 in range(0, n_q, block):
        Qb = Q[q0:q0 + block] / np.sqrt(Q.shape[1])
        m = np.full((len(Qb), 1), -np.inf)
        l = np.zeros((len(Qb), 1))
        acc = np.zeros((len(Qb), V.shape[1]))
        for k0 in range(0, n_k, block):
            S = Qb @ K[k0:k0 + block].T
            if causal:
                qpos = n_k - n_q + q0 + np.arange(len(Qb))[:, None]
                S = np.where(k0 + np.arange(S.shape[1])[None, :] > qpos, -np.inf, S)
            m_new = np.maximum(m, S.max(axis=1, keepdims=True))
            P = np.exp(S - m_new)
            l = l * np.exp(m - m_new) + P.sum(axis=1, keepdims=True)
            acc = acc + P @ V[k0:k0 + block]
            m = m_new
        O[q0:q0 + block] = acc / l
    return O


def tiled_rescale_inverted(Q, K, V, causal=True, block=64):
    n_q, n_k = Q.shape[0], K.shape[0]
    O = np.zeros((n_q, V.shape[1]))
    for q0 in range(0, n_q, block):
        Qb = Q[q0:q0 + block] / np.sqrt(Q.shape[1])
        m = np.full((len(Qb), 1), -np.inf)
        l = np.zeros((len(Qb), 1))
        acc = np.zeros((len(Qb), V.shape[1]))
        for k0 in range(0, n_k, block):
            S = Qb @ K[k0:k0 + block].T
            if causal:
                qpos = n_k - n_q + q0 + np.arange(len(Qb))[:, None]
                S = np.where(k0 + np.arange(S.shape[1])[None, :] > qpos, -np.inf, S)
            m_new = np.maximum(m, S.max(axis=1, keepdims=True))
            P = np.exp(S - m_new)
            shrink = np.exp(m_new - m) if np.isfinite(m).all() else np.zeros_like(m)
            l = l * shrink + P.sum(axis=1, keepdims=True)
            acc = acc * shrink + P @ V[k0:k0 + block]
            m = m_new
        O[q0:q0 + block] = acc / l
    return O


def tiled_mask_from_top_left(Q, K, V, causal=True, block=64):
    n_q, n_k = Q.shape[0], K.shape[0]
    O = np.zeros((n_q, V.shape[1]))
    for q0 in range(0, n_q, block):
        Qb = Q[q0:q0 + block] / np.sqrt(Q.shape[1])
        m = np.full((len(Qb), 1), -np.inf)
        l = np.zeros((len(Qb), 1))
        acc = np.zeros((len(Qb), V.shape[1]))
        for k0 in range(0, n_k, block):
            S = Qb @ K[k0:k0 + block].T
            if causal:
                qpos = q0 + np.arange(len(Qb))[:, None]  # query i at position i
                S = np.where(k0 + np.arange(S.shape[1])[None, :] > qpos, -np.inf, S)
            m_new = np.maximum(m, S.max(axis=1, keepdims=True))
            P = np.exp(S - m_new)
            l = l * np.exp(m - m_new) + P.sum(axis=1, keepdims=True)
            acc = acc * np.exp(m - m_new) + P @ V[k0:k0 + block]
            m = m_new
        O[q0:q0 + block] = acc / l
    return O


def tiled_normalises_each_tile(Q, K, V, causal=True, block=64):
    n_q, n_k = Q.shape[0], K.shape[0]
    O = np.zeros((n_q, V.shape[1]))
    for q0 in range(0, n_q, block):
        Qb = Q[q0:q0 + block] / np.sqrt(Q.shape[1])
        m = np.full((len(Qb), 1), -np.inf)
        l = np.zeros((len(Qb), 1))
        acc = np.zeros((len(Qb), V.shape[1]))
        for k0 in range(0, n_k, block):
            S = Qb @ K[k0:k0 + block].T
            if causal:
                qpos = n_k - n_q + q0 + np.arange(len(Qb))[:, None]
                S = np.where(k0 + np.arange(S.shape[1])[None, :] > qpos, -np.inf, S)
            m_new = np.maximum(m, S.max(axis=1, keepdims=True))
            P = np.exp(S - m_new)
            r = np.exp(m - m_new)
            l = l * r + P.sum(axis=1, keepdims=True)
            acc = (acc * r + P @ V[k0:k0 + block]) / l  # keep acc normalised as we go
            l = np.ones_like(l)
            m = m_new
        O[q0:q0 + block] = acc
    return O


def tiled_scores_strip(Q, K, V, causal=True, block=64):
    n_q, n_k = Q.shape[0], K.shape[0]
    O = np.zeros((n_q, V.shape[1]))
    for q0 in range(0, n_q, block):
        S = Q[q0:q0 + block] @ K.T / np.sqrt(Q.shape[1])  # the block's queries against every key
        if causal:
            qpos = n_k - n_q + q0 + np.arange(S.shape[0])[:, None]
            S = np.where(np.arange(n_k)[None, :] > qpos, -np.inf, S)
        E = np.exp(S - S.max(axis=1, keepdims=True))
        O[q0:q0 + block] = (E / E.sum(axis=1, keepdims=True)) @ V
    return O


def tiled_unscaled(Q, K, V, causal=True, block=64):
    n_q, n_k = Q.shape[0], K.shape[0]
    O = np.zeros((n_q, V.shape[1]))
    for q0 in range(0, n_q, block):
        Qb = Q[q0:q0 + block]
        m = np.full((len(Qb), 1), -np.inf)
        l = np.zeros((len(Qb), 1))
        acc = np.zeros((len(Qb), V.shape[1]))
        for k0 in range(0, n_k, block):
            S = Qb @ K[k0:k0 + block].T
            if causal:
                qpos = n_k - n_q + q0 + np.arange(len(Qb))[:, None]
                S = np.where(k0 + np.arange(S.shape[1])[None, :] > qpos, -np.inf, S)
            m_new = np.maximum(m, S.max(axis=1, keepdims=True))
            P = np.exp(S - m_new)
            l = l * np.exp(m - m_new) + P.sum(axis=1, keepdims=True)
            acc = acc * np.exp(m - m_new) + P @ V[k0:k0 + block]
            m = m_new
        O[q0:q0 + block] = acc / l
    return O


def tiled_drops_last_block(Q, K, V, causal=True, block=64):
    n_q, n_k = Q.shape[0], K.shape[0]
    O = np.zeros((n_q, V.shape[1]))
    for b in range(n_q // block):  # whole blocks only
        q0 = b * block
        Qb = Q[q0:q0 + block] / np.sqrt(Q.shape[1])
        m = np.full((block, 1), -np.inf)
        l = np.zeros((block, 1))
        acc = np.zeros((block, V.shape[1]))
        for k0 in range(0, n_k, block):
            S = Qb @ K[k0:k0 + block].T
            if causal:
                qpos = n_k - n_q + q0 + np.arange(block)[:, None]
                S = np.where(k0 + np.arange(S.shape[1])[None, :] > qpos, -np.inf, S)
            m_new = np.maximum(m, S.max(axis=1, keepdims=True))
            P = np.exp(S - m_new)
            l = l * np.exp(m - m_new) + P.sum(axis=1, keepdims=True)
            acc = acc * np.exp(m - m_new) + P @ V[k0:k0 + block]
            m = m_new
        O[q0:q0 + block] = acc / l
    return O


def tiled_max_starts_at_zero(Q, K, V, causal=True, block=64):
    n_q, n_k = Q.shape[0], K.shape[0]
    O = np.zeros((n_q, V.shape[1]))
    for q0 in range(0, n_q, block):
        Qb = Q[q0:q0 + block] / np.sqrt(Q.shape[1])
        m = np.zeros((len(Qb), 1))  # running max
        l = np.zeros((len(Qb), 1))
        acc = np.zeros((len(Qb), V.shape[1]))
        for k0 in range(0, n_k, block):
            S = Qb @ K[k0:k0 + block].T
            if causal:
                qpos = n_k - n_q + q0 + np.arange(len(Qb))[:, None]
                S = np.where(k0 + np.arange(S.shape[1])[None, :] > qpos, -np.inf, S)
            m_new = np.maximum(m, S.max(axis=1, keepdims=True))
            P = np.exp(S - m_new)
            l = l * np.exp(m - m_new) + P.sum(axis=1, keepdims=True)
            acc = acc * np.exp(m - m_new) + P @ V[k0:k0 + block]
            m = m_new
        O[q0:q0 + block] = acc / l
    return O


def tiled_ok_skips_future_tiles(Q, K, V, causal=True, block=64):
    n_q, n_k = Q.shape[0], K.shape[0]
    offset = n_k - n_q
    s = 1.0 / np.sqrt(Q.shape[1])
    O = np.empty((n_q, V.shape[1]))
    for q0 in range(0, n_q, block):
        q1 = min(q0 + block, n_q)
        m = np.full(q1 - q0, -np.inf)
        l = np.zeros(q1 - q0)
        acc = np.zeros((q1 - q0, V.shape[1]))
        k_end = min(n_k, offset + q1) if causal else n_k  # later keys are every query's future
        for k0 in range(0, k_end, block):
            k1 = min(k0 + block, k_end)
            S = (Q[q0:q1] @ K[k0:k1].T) * s
            if causal:
                future = np.arange(k0, k1)[None, :] > (offset + np.arange(q0, q1))[:, None]
                S[future] = -np.inf
            m_new = np.maximum(m, S.max(axis=1))
            alpha = np.exp(m - m_new)
            P = np.exp(S - m_new[:, None])
            l = alpha * l + P.sum(axis=1)
            acc = alpha[:, None] * acc + P @ V[k0:k1]
            m = m_new
        O[q0:q1] = acc / l[:, None]
    return O


def tiled_ok_key_loop_first(Q, K, V, causal=True, block=64):
    n_q, n_k = Q.shape[0], K.shape[0]
    O = np.zeros((n_q, V.shape[1]))
    for q0 in range(0, n_q, block):
        Qb = Q[q0:q0 + block]
        rows = Qb.shape[0]
        state_m = np.full((rows, 1), -np.inf)
        state_l = np.zeros((rows, 1))
        state_acc = np.zeros((rows, V.shape[1]))
        for k0 in range(0, n_k, block):
            Kb, Vb = K[k0:k0 + block], V[k0:k0 + block]
            S = Qb @ Kb.T / np.sqrt(Q.shape[1])
            if causal:
                i = np.arange(rows)[:, None] + q0 + n_k - n_q
                j = np.arange(Kb.shape[0])[None, :] + k0
                S = S + np.where(j > i, -np.inf, 0.0)
            tile_max = S.max(axis=1, keepdims=True)
            new_m = np.maximum(state_m, tile_max)
            state_l = state_l * np.exp(state_m - new_m)
            state_acc = state_acc * np.exp(state_m - new_m)
            E = np.exp(S - new_m)
            state_l += E.sum(axis=1, keepdims=True)
            state_acc += E @ Vb
            state_m = new_m
        O[q0:q0 + rows] = state_acc / state_l
    return O


# ============================================================================
# 08 embed

def embed_positions_by_token_id(tokens, tok_emb, pos_emb):
    return tok_emb[tokens] + pos_emb[tokens]


def embed_whole_position_table(tokens, tok_emb, pos_emb):
    return tok_emb[tokens] + pos_emb


def embed_last_positions(tokens, tok_emb, pos_emb):
    return tok_emb[tokens] + pos_emb[-len(tokens):]


def embed_positions_from_one(tokens, tok_emb, pos_emb):
    n = len(tokens)
    return tok_emb[tokens] + pos_emb[1:n + 1]  # positions 1..n


def embed_concatenates(tokens, tok_emb, pos_emb):
    return np.concatenate([tok_emb[tokens], pos_emb[:len(tokens)]], axis=1)


def embed_adds_into_pos_table(tokens, tok_emb, pos_emb):
    X = pos_emb[:len(tokens)]
    X += tok_emb[tokens]
    return X


def embed_ok_one_hot_product(tokens, tok_emb, pos_emb):
    onehot = np.eye(tok_emb.shape[0])[tokens]  # (n, vocab)
    return onehot @ tok_emb + pos_emb[:len(tokens)]


def embed_ok_take(tokens, tok_emb, pos_emb):
    return np.take(tok_emb, tokens, axis=0) + pos_emb[np.arange(len(tokens))]


# 08 sinusoidal_positions

def sinusoidal_doubles_the_two(n, d):
    t = np.arange(n)[:, None]
    cols = np.arange(0, d, 2)[None, :]  # 0, 2, 4, ... = 2i already
    angle = t / 10000 ** (2 * cols / d)
    P = np.zeros((n, d))
    P[:, 0::2] = np.sin(angle)
    P[:, 1::2] = np.cos(angle)
    return P


def sinusoidal_drops_the_two(n, d):
    t = np.arange(n)[:, None]
    i = np.arange(d // 2)[None, :]
    angle = t / 10000 ** (i / d)
    P = np.zeros((n, d))
    P[:, 0::2] = np.sin(angle)
    P[:, 1::2] = np.cos(angle)
    return P


def sinusoidal_sin_cos_swapped(n, d):
    t = np.arange(n)[:, None]
    i = np.arange(d // 2)[None, :]
    angle = t / 10000 ** (2 * i / d)
    P = np.zeros((n, d))
    P[:, 0::2] = np.cos(angle)
    P[:, 1::2] = np.sin(angle)
    return P


def sinusoidal_halves(n, d):
    t = np.arange(n)[:, None]
    i = np.arange(d // 2)[None, :]
    angle = t / 10000 ** (2 * i / d)
    return np.concatenate([np.sin(angle), np.cos(angle)], axis=1)  # sines first, then cosines


def sinusoidal_exponent_per_column(n, d):
    P = np.zeros((n, d))
    for t in range(n):
        for c in range(d):
            angle = t / 10000 ** (c / d)  # column c = 2i or 2i + 1
            P[t, c] = np.sin(angle) if c % 2 == 0 else np.cos(angle)
    return P


def sinusoidal_positions_from_one(n, d):
    t = np.arange(1, n + 1)[:, None]
    i = np.arange(d // 2)[None, :]
    angle = t / 10000 ** (2 * i / d)
    P = np.zeros((n, d))
    P[:, 0::2] = np.sin(angle)
    P[:, 1::2] = np.cos(angle)
    return P


def sinusoidal_multiplies(n, d):
    t = np.arange(n)[:, None]
    i = np.arange(d // 2)[None, :]
    angle = t * 10000 ** (2 * i / d)
    P = np.zeros((n, d))
    P[:, 0::2] = np.sin(angle)
    P[:, 1::2] = np.cos(angle)
    return P


def sinusoidal_ok_stacked(n, d):
    angle = np.outer(np.arange(n), 1.0 / np.power(10000.0, np.arange(0, d, 2) / d))  # (n, d/2)
    return np.stack([np.sin(angle), np.cos(angle)], axis=2).reshape(n, d)


# ============================================================================
# 09 split_heads

def split_heads_plain_reshape(M, n_heads):
    n, d_model = M.shape
    return M.reshape(n_heads, n, d_model // n_heads)


def split_heads_strided(M, n_heads):
    n, d_model = M.shape
    return M.reshape(n, d_model // n_heads, n_heads).transpose(2, 0, 1)


def split_heads_each_transposed(M, n_heads):
    n, d_model = M.shape
    return M.T.reshape(n_heads, d_model // n_heads, n)


def split_heads_no_swap(M, n_heads):
    n, d_model = M.shape
    return M.reshape(n, n_heads, d_model // n_heads)


def split_heads_sets_shape(M, n_heads):
    n, d_model = M.shape
    M.shape = (n, n_heads, d_model // n_heads)
    return M.transpose(1, 0, 2)


def split_heads_ok_np_split(M, n_heads):
    return np.stack(np.split(M, n_heads, axis=1))


# 09 multi_head_attention

def mha_scales_by_d_model(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    d_head = Wq.shape[1] // n_heads
    outs = []
    for h in range(n_heads):
        cols = slice(h * d_head, (h + 1) * d_head)
        Q, K, V = X @ Wq[:, cols], X @ Wk[:, cols], X @ Wv[:, cols]
        S = Q @ K.T / np.sqrt(X.shape[1])
        if causal:
            S = S + np.triu(np.full(S.shape, -np.inf), k=1)
        outs.append(_softmax(S) @ V)
    return np.concatenate(outs, axis=1) @ Wo


def mha_heads_by_plain_reshape(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    n = X.shape[0]
    d_head = Wq.shape[1] // n_heads
    Q = (X @ Wq).reshape(n_heads, n, d_head)
    K = (X @ Wk).reshape(n_heads, n, d_head)
    V = (X @ Wv).reshape(n_heads, n, d_head)
    heads = [_attend(Q[h], K[h], V[h], causal) for h in range(n_heads)]
    return np.concatenate(heads, axis=1) @ Wo


def mha_strided_head_columns(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    heads = []
    for h in range(n_heads):
        Q, K, V = X @ Wq[:, h::n_heads], X @ Wk[:, h::n_heads], X @ Wv[:, h::n_heads]
        heads.append(_attend(Q, K, V, causal))
    return np.concatenate(heads, axis=1) @ Wo


def mha_merges_without_transpose(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    Q, K, V = _split_heads(X @ Wq, n_heads), _split_heads(X @ Wk, n_heads), _split_heads(X @ Wv, n_heads)
    O = np.stack([_attend(Q[h], K[h], V[h], causal) for h in range(n_heads)])  # (n_heads, n, d_head)
    return O.reshape(X.shape[0], -1) @ Wo


def mha_forgets_Wo(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    Q, K, V = _split_heads(X @ Wq, n_heads), _split_heads(X @ Wk, n_heads), _split_heads(X @ Wv, n_heads)
    return np.concatenate([_attend(Q[h], K[h], V[h], causal) for h in range(n_heads)], axis=1)


def mha_always_causal(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    Q, K, V = _split_heads(X @ Wq, n_heads), _split_heads(X @ Wk, n_heads), _split_heads(X @ Wv, n_heads)
    return np.concatenate([_attend(Q[h], K[h], V[h]) for h in range(n_heads)], axis=1) @ Wo


def mha_d_head_from_d_model(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    d_head = X.shape[1] // n_heads
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_head, (h + 1) * d_head)
        heads.append(_attend(X @ Wq[:, cols], X @ Wk[:, cols], X @ Wv[:, cols], causal))
    return np.concatenate(heads, axis=1) @ Wo


def mha_ok_sum_over_heads(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    d_head = Wq.shape[1] // n_heads
    out = np.zeros((X.shape[0], Wo.shape[1]))
    for h in range(n_heads):
        c = slice(h * d_head, (h + 1) * d_head)
        out += _attend(X @ Wq[:, c], X @ Wk[:, c], X @ Wv[:, c], causal) @ Wo[c]  # each head through its rows of Wo
    return out


def mha_ok_batched(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    n = X.shape[0]
    d_head = Wq.shape[1] // n_heads
    Q = (X @ Wq).reshape(n, n_heads, d_head).transpose(1, 0, 2)
    K = (X @ Wk).reshape(n, n_heads, d_head).transpose(1, 0, 2)
    V = (X @ Wv).reshape(n, n_heads, d_head).transpose(1, 0, 2)
    S = Q @ K.transpose(0, 2, 1) / np.sqrt(d_head)  # (n_heads, n, n)
    if causal:
        S = S + np.triu(np.full((n, n), -np.inf), k=1)
    O = _softmax(S) @ V  # (n_heads, n, d_head)
    return O.transpose(1, 0, 2).reshape(n, n_heads * d_head) @ Wo


# ============================================================================
# 10 layer_norm

def layer_norm_unbiased_variance(X, g, b, eps=1e-5):
    mu = X.mean(axis=1, keepdims=True)
    var = X.var(axis=1, ddof=1, keepdims=True)
    return (X - mu) / np.sqrt(var + eps) * g + b


def layer_norm_eps_outside_sqrt(X, g, b, eps=1e-5):
    mu = X.mean(axis=1, keepdims=True)
    std = X.std(axis=1, keepdims=True)
    return (X - mu) / (std + eps) * g + b


def layer_norm_over_columns(X, g, b, eps=1e-5):
    mu = X.mean(axis=0, keepdims=True)
    var = X.var(axis=0, keepdims=True)
    return (X - mu) / np.sqrt(var + eps) * g + b


def layer_norm_no_sqrt(X, g, b, eps=1e-5):
    mu = X.mean(axis=1, keepdims=True)
    var = X.var(axis=1, keepdims=True)
    return (X - mu) / (var + eps) * g + b


def layer_norm_bias_before_gain(X, g, b, eps=1e-5):
    mu = X.mean(axis=1, keepdims=True)
    var = X.var(axis=1, keepdims=True)
    return ((X - mu) / np.sqrt(var + eps) + b) * g


def layer_norm_centres_in_place(X, g, b, eps=1e-5):
    X -= X.mean(axis=1, keepdims=True)
    var = (X ** 2).mean(axis=1, keepdims=True)
    return X / np.sqrt(var + eps) * g + b


def layer_norm_whole_matrix(X, g, b, eps=1e-5):
    return (X - X.mean()) / np.sqrt(X.var() + eps) * g + b


def layer_norm_ok_row_loop(X, g, b, eps=1e-5):
    Y = np.zeros(X.shape)
    for r in range(X.shape[0]):
        row = X[r]
        mu = row.sum() / len(row)
        var = ((row - mu) ** 2).sum() / len(row)
        Y[r] = (row - mu) / np.sqrt(var + eps) * g + b
    return Y


# 10 gelu

def gelu_sigmoid_approximation(X):
    return X / (1 + np.exp(-1.702 * X))


def gelu_sqrt_two_pi(X):
    return 0.5 * X * (1 + np.tanh(np.sqrt(2 * np.pi) * (X + 0.044715 * X ** 3)))


def gelu_squares(X):
    return 0.5 * X * (1 + np.tanh(np.sqrt(2 / np.pi) * (X + 0.044715 * X ** 2)))


def gelu_no_half(X):
    return X * (1 + np.tanh(np.sqrt(2 / np.pi) * (X + 0.044715 * X ** 3)))


def gelu_cubic_outside(X):
    return 0.5 * X * (1 + np.tanh(np.sqrt(2 / np.pi) * X + 0.044715 * X ** 3))


def gelu_caret_power(X):
    return 0.5 * X * (1 + np.tanh(np.sqrt(2 / np.pi) * (X + 0.044715 * X ^ 3)))


def gelu_loops_over_a_vector(X):
    out = np.zeros(len(X))
    for i in range(len(X)):
        x = float(X[i])
        out[i] = 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))
    return out


def gelu_ok_expanded(X):
    c = np.sqrt(2.0 / np.pi)
    return X * 0.5 * (1.0 + np.tanh(c * X * (1.0 + 0.044715 * X * X)))  # x factored out of the cubic


# 10 transformer_block

def block_post_ln(X, p, n_heads, causal=True):
    Y = _layer_norm(X + given_multi_head_attention(X, p["Wq"], p["Wk"], p["Wv"], p["Wo"], n_heads, causal),
                    p["ln1_g"], p["ln1_b"])
    return _layer_norm(Y + _gelu(Y @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"], p["ln2_g"], p["ln2_b"])


def block_no_attention_residual(X, p, n_heads, causal=True):
    Y = given_multi_head_attention(_layer_norm(X, p["ln1_g"], p["ln1_b"]), p["Wq"], p["Wk"], p["Wv"], p["Wo"],
                                   n_heads, causal)
    return Y + _gelu(_layer_norm(Y, p["ln2_g"], p["ln2_b"]) @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"]


def block_no_mlp_residual(X, p, n_heads, causal=True):
    Y = X + given_multi_head_attention(_layer_norm(X, p["ln1_g"], p["ln1_b"]), p["Wq"], p["Wk"], p["Wv"], p["Wo"],
                                       n_heads, causal)
    return _gelu(_layer_norm(Y, p["ln2_g"], p["ln2_b"]) @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"]


def block_ln1_params_twice(X, p, n_heads, causal=True):
    Y = X + given_multi_head_attention(_layer_norm(X, p["ln1_g"], p["ln1_b"]), p["Wq"], p["Wk"], p["Wv"], p["Wo"],
                                       n_heads, causal)
    return Y + _gelu(_layer_norm(Y, p["ln1_g"], p["ln1_b"]) @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"]


def block_residual_from_normalised(X, p, n_heads, causal=True):
    H = _layer_norm(X, p["ln1_g"], p["ln1_b"])
    Y = H + given_multi_head_attention(H, p["Wq"], p["Wk"], p["Wv"], p["Wo"], n_heads, causal)
    return Y + _gelu(_layer_norm(Y, p["ln2_g"], p["ln2_b"]) @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"]


def block_b1_after_gelu(X, p, n_heads, causal=True):
    Y = X + given_multi_head_attention(_layer_norm(X, p["ln1_g"], p["ln1_b"]), p["Wq"], p["Wk"], p["Wv"], p["Wo"],
                                       n_heads, causal)
    return Y + (_gelu(_layer_norm(Y, p["ln2_g"], p["ln2_b"]) @ p["W1"]) + p["b1"]) @ p["W2"] + p["b2"]


def block_mlp_reads_X(X, p, n_heads, causal=True):
    Y = X + given_multi_head_attention(_layer_norm(X, p["ln1_g"], p["ln1_b"]), p["Wq"], p["Wk"], p["Wv"], p["Wo"],
                                       n_heads, causal)
    return Y + _gelu(_layer_norm(X, p["ln2_g"], p["ln2_b"]) @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"]


def block_always_causal(X, p, n_heads, causal=True):
    Y = X + given_multi_head_attention(_layer_norm(X, p["ln1_g"], p["ln1_b"]), p["Wq"], p["Wk"], p["Wv"], p["Wo"],
                                       n_heads)
    return Y + _gelu(_layer_norm(Y, p["ln2_g"], p["ln2_b"]) @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"]


def block_adds_into_X(X, p, n_heads, causal=True):
    X += given_multi_head_attention(_layer_norm(X, p["ln1_g"], p["ln1_b"]), p["Wq"], p["Wk"], p["Wv"], p["Wo"],
                                    n_heads, causal)
    X += _gelu(_layer_norm(X, p["ln2_g"], p["ln2_b"]) @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"]
    return X


def block_ok_named_steps(X, p, n_heads, causal=True):
    h1 = _layer_norm(X, p["ln1_g"], p["ln1_b"])
    attn = given_multi_head_attention(h1, p["Wq"], p["Wk"], p["Wv"], p["Wo"], n_heads, causal)
    Y = X + attn
    h2 = _layer_norm(Y, p["ln2_g"], p["ln2_b"])
    hidden = _gelu(h2 @ p["W1"] + p["b1"])
    return Y + (hidden @ p["W2"] + p["b2"])


def block_ok_own_heads(X, p, n_heads, causal=True):
    Y = X + _multi_head_attention(_layer_norm(X, p["ln1_g"], p["ln1_b"]), p["Wq"], p["Wk"], p["Wv"], p["Wo"],
                                  n_heads, causal)  # exercise 09's own heads instead of the given ones
    return Y + _gelu(_layer_norm(Y, p["ln2_g"], p["ln2_b"]) @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"]


# ============================================================================
# 11 next_token_logits

def next_token_logits_first_row(H, W_vocab):
    return H[0] @ W_vocab


def next_token_logits_every_row(H, W_vocab):
    return H @ W_vocab


def next_token_logits_softmaxed(H, W_vocab):
    return _softmax(H[-1] @ W_vocab)


def next_token_logits_mean_row(H, W_vocab):
    return H.mean(axis=0) @ W_vocab


def next_token_logits_second_last(H, W_vocab):
    return H[-2] @ W_vocab  # the row before the new token


def next_token_logits_column_habit(H, W_vocab):
    return W_vocab @ H[-1]


def next_token_logits_ok_last_of_all(H, W_vocab):
    return (H @ W_vocab)[-1]


def next_token_logits_ok_column_thinker(H, W_vocab):
    return W_vocab.T @ H[H.shape[0] - 1]


# 11 cross_entropy

def _log_softmax_rows(Z):
    Z = Z - Z.max(axis=1, keepdims=True)
    return Z - np.log(np.exp(Z).sum(axis=1, keepdims=True))


def ce_gradient_not_averaged(logits, targets):
    n = logits.shape[0]
    logp = _log_softmax_rows(logits)
    loss = -logp[np.arange(n), targets].mean()
    d = np.exp(logp)
    d[np.arange(n), targets] -= 1.0
    return loss, d


def ce_sums_over_rows(logits, targets):
    n = logits.shape[0]
    logp = _log_softmax_rows(logits)
    loss = -logp[np.arange(n), targets].sum()
    d = np.exp(logp)
    d[np.arange(n), targets] -= 1.0
    return loss, d


def ce_log_of_probabilities(logits, targets):
    n = logits.shape[0]
    P = _softmax(logits, axis=1)
    loss = -np.log(P[np.arange(n), targets]).mean()
    d = P.copy()
    d[np.arange(n), targets] -= 1.0
    return loss, d / n


def ce_no_max_shift(logits, targets):
    n = logits.shape[0]
    logp = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
    loss = -logp[np.arange(n), targets].mean()
    d = np.exp(logp)
    d[np.arange(n), targets] -= 1.0
    return loss, d / n


def ce_gradient_sign_flipped(logits, targets):
    n = logits.shape[0]
    logp = _log_softmax_rows(logits)
    loss = -logp[np.arange(n), targets].mean()
    onehot = np.zeros(logits.shape)
    onehot[np.arange(n), targets] = 1.0
    return loss, (onehot - np.exp(logp)) / n


def ce_indexes_every_target_column(logits, targets):
    n = logits.shape[0]
    logp = _log_softmax_rows(logits)
    loss = -logp[:, targets].mean()  # (n, n): every row at every target
    d = np.exp(logp)
    d[np.arange(n), targets] -= 1.0
    return loss, d / n


def ce_shifts_logits_in_place(logits, targets):
    n = logits.shape[0]
    logits -= logits.max(axis=1, keepdims=True)
    logp = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
    loss = -logp[np.arange(n), targets].mean()
    d = np.exp(logp)
    d[np.arange(n), targets] -= 1.0
    return loss, d / n


def ce_gradient_without_one_hot(logits, targets):
    n = logits.shape[0]
    logp = _log_softmax_rows(logits)
    loss = -logp[np.arange(n), targets].mean()
    return loss, np.exp(logp) / n


def ce_log_base_two(logits, targets):
    n = logits.shape[0]
    logp = _log_softmax_rows(logits) / np.log(2)
    loss = -logp[np.arange(n), targets].mean()
    d = _softmax(logits, axis=1)
    d[np.arange(n), targets] -= 1.0
    return loss, d / n


def ce_loss_per_row(logits, targets):
    n = logits.shape[0]
    logp = _log_softmax_rows(logits)
    loss = -logp[np.arange(n), targets]  # one loss per position
    d = np.exp(logp)
    d[np.arange(n), targets] -= 1.0
    return loss, d / n


def ce_clips_probabilities(logits, targets):
    n = logits.shape[0]
    P = _softmax(logits, axis=1)
    loss = -np.log(np.clip(P[np.arange(n), targets], 1e-12, 1.0)).mean()
    d = P.copy()
    d[np.arange(n), targets] -= 1.0
    return loss, d / n


def ce_shifts_targets(logits, targets):
    # the next word of row i is targets[i + 1]
    logits, targets = logits[:-1], targets[1:]
    n = logits.shape[0]
    logp = _log_softmax_rows(logits)
    loss = -logp[np.arange(n), targets].mean()
    d = np.exp(logp)
    d[np.arange(n), targets] -= 1.0
    return loss, d / n


def ce_ok_row_loop(logits, targets):
    n, vocab = logits.shape
    loss = 0.0
    d = np.zeros((n, vocab))
    for i in range(n):
        z = logits[i] - logits[i].max()
        lse = np.log(np.exp(z).sum())
        loss += -(z[targets[i]] - lse)
        d[i] = np.exp(z - lse)
        d[i, targets[i]] -= 1.0
    return loss / n, d / n


def ce_ok_one_hot_matrix(logits, targets):
    n, vocab = logits.shape
    Y = np.eye(vocab)[targets]  # (n, vocab)
    m = logits.max(axis=1, keepdims=True)
    logp = logits - m - np.log(np.sum(np.exp(logits - m), axis=1, keepdims=True))
    loss = -(Y * logp).sum() / n
    return loss, (np.exp(logp) - Y) / n


def ce_ok_take_along_axis(logits, targets):
    Z = logits - logits.max(axis=1, keepdims=True)
    lse = np.log(np.exp(Z).sum(axis=1))  # (n,)
    picked = np.take_along_axis(Z, np.asarray(targets)[:, None], axis=1)[:, 0]
    n = len(targets)
    d = np.exp(Z - lse[:, None])
    d[np.arange(n), targets] -= 1.0
    return float(np.mean(lse - picked)), d / n


# 11 softmax_backward

def softmax_backward_elementwise(A, dA):
    return A * dA


def softmax_backward_diagonal_only(A, dA):
    return A * (1 - A) * dA


def softmax_backward_missing_A(A, dA):
    return dA - (A * dA).sum(axis=-1, keepdims=True)


def softmax_backward_sum_over_first_axis(A, dA):
    return A * (dA - (A * dA).sum(axis=0, keepdims=True))


def softmax_backward_without_keepdims(A, dA):
    return A * (dA - (A * dA).sum(axis=-1))


def softmax_backward_matrices_only(A, dA):
    dS = np.zeros(A.shape)
    for i in range(A.shape[0]):
        a = A[i]
        J = np.diag(a) - np.outer(a, a)  # the softmax Jacobian of row i
        dS[i] = J @ dA[i]
    return dS


def softmax_backward_sum_over_everything(A, dA):
    return A * (dA - (A * dA).sum())


def softmax_backward_ok_einsum(A, dA):
    inner = np.einsum("...i,...i->...", A, dA)[..., None]
    return A * dA - A * inner


def softmax_backward_ok_jacobian_rows(A, dA):
    flat_A = A.reshape(-1, A.shape[-1])
    flat_dA = dA.reshape(-1, A.shape[-1])
    out = np.empty(flat_A.shape)
    for r in range(flat_A.shape[0]):
        a = flat_A[r]
        out[r] = (np.diag(a) - np.outer(a, a)) @ flat_dA[r]
    return out.reshape(A.shape)


# 11 attention_backward

def _weights_for_backward(Q, K, causal, scale):
    s = 1 / np.sqrt(Q.shape[1]) if scale else 1.0
    S = Q @ K.T * s
    if causal:
        S = S + _causal_mask(Q.shape[0], K.shape[0])
    return _softmax(S), s


def ab_forgets_scale(Q, K, V, dO, causal=True, scale=True):
    A, s = _weights_for_backward(Q, K, causal, scale)
    dV = A.T @ dO
    dS = _softmax_backward(A, dO @ V.T)
    return dS @ K, dS.T @ Q, dV


def ab_scale_twice(Q, K, V, dO, causal=True, scale=True):
    A, s = _weights_for_backward(Q, K, causal, scale)
    dV = A.T @ dO
    dS = _softmax_backward(A, dO @ V.T) * s
    return dS @ K * s, dS.T @ Q * s, dV


def ab_mask_from_top_left(Q, K, V, dO, causal=True, scale=True):
    s = 1 / np.sqrt(Q.shape[1]) if scale else 1.0
    S = Q @ K.T * s
    if causal:
        S = S + np.triu(np.full(S.shape, -np.inf), k=1)
    A = _softmax(S)
    dS = _softmax_backward(A, dO @ V.T) * s
    return dS @ K, dS.T @ Q, A.T @ dO


def ab_softmax_backward_elementwise(Q, K, V, dO, causal=True, scale=True):
    A, s = _weights_for_backward(Q, K, causal, scale)
    dS = A * (dO @ V.T) * s
    return dS @ K, dS.T @ Q, A.T @ dO


def ab_dK_from_K(Q, K, V, dO, causal=True, scale=True):
    A, s = _weights_for_backward(Q, K, causal, scale)
    dS = _softmax_backward(A, dO @ V.T) * s
    return dS @ K, dS.T @ K, A.T @ dO


def ab_scale_from_d_v(Q, K, V, dO, causal=True, scale=True):
    s = 1 / np.sqrt(V.shape[1]) if scale else 1.0
    S = Q @ K.T * s
    if causal:
        S = S + _causal_mask(Q.shape[0], K.shape[0])
    A = _softmax(S)
    dS = _softmax_backward(A, dO @ V.T) * s
    return dS @ K, dS.T @ Q, A.T @ dO


def ab_backward_without_mask(Q, K, V, dO, causal=True, scale=True):
    s = 1 / np.sqrt(Q.shape[1]) if scale else 1.0
    A = _softmax(Q @ K.T * s)  # recomputed for the backward pass
    dS = _softmax_backward(A, dO @ V.T) * s
    return dS @ K, dS.T @ Q, A.T @ dO


def ab_dK_not_transposed(Q, K, V, dO, causal=True, scale=True):
    A, s = _weights_for_backward(Q, K, causal, scale)
    dS = _softmax_backward(A, dO @ V.T) * s
    return dS @ K, dS @ Q, A.T @ dO


def ab_dV_not_transposed(Q, K, V, dO, causal=True, scale=True):
    A, s = _weights_for_backward(Q, K, causal, scale)
    dS = _softmax_backward(A, dO @ V.T) * s
    return dS @ K, dS.T @ Q, A @ dO


def ab_multiplies_by_sqrt_d(Q, K, V, dO, causal=True, scale=True):
    A, _ = _weights_for_backward(Q, K, causal, scale)
    s = np.sqrt(Q.shape[1]) if scale else 1.0
    dS = _softmax_backward(A, dO @ V.T) * s
    return dS @ K, dS.T @ Q, A.T @ dO


def ab_ok_einsum(Q, K, V, dO, causal=True, scale=True):
    n_q, n_k = Q.shape[0], K.shape[0]
    s = Q.shape[1] ** -0.5 if scale else 1.0
    S = np.einsum("qd,kd->qk", Q, K) * s
    if causal:
        S = np.where(np.arange(n_k)[None, :] > np.arange(n_q)[:, None] + n_k - n_q, -np.inf, S)
    A = _softmax(S)
    dA = np.einsum("qv,kv->qk", dO, V)
    dS = A * (dA - np.einsum("qk,qk->q", A, dA)[:, None]) * s
    return np.einsum("qk,kd->qd", dS, K), np.einsum("qk,qd->kd", dS, Q), np.einsum("qk,qv->kv", A, dO)


def ab_ok_per_query(Q, K, V, dO, causal=True, scale=True):
    n_q, n_k = Q.shape[0], K.shape[0]
    s = 1 / np.sqrt(Q.shape[1]) if scale else 1.0
    dQ, dK, dV = np.zeros(Q.shape), np.zeros(K.shape), np.zeros(V.shape)
    for i in range(n_q):
        seen = n_k - n_q + i + 1 if causal else n_k
        z = K[:seen] @ Q[i] * s
        a = np.exp(z - z.max())
        a /= a.sum()
        da = V[:seen] @ dO[i]
        dz = a * (da - a @ da) * s
        dQ[i] = dz @ K[:seen]
        dK[:seen] += np.outer(dz, Q[i])
        dV[:seen] += np.outer(a, dO[i])
    return dQ, dK, dV


# 11 layer_norm_backward

def _ln_parts(X, eps):
    mu = X.mean(axis=1, keepdims=True)
    rstd = 1 / np.sqrt(((X - mu) ** 2).mean(axis=1, keepdims=True) + eps)
    return (X - mu) * rstd, rstd


def lnb_ignores_statistics(X, g, dY, eps=1e-5):
    Xhat, rstd = _ln_parts(X, eps)
    return dY * g * rstd, (dY * Xhat).sum(axis=0), dY.sum(axis=0)


def lnb_no_variance_term(X, g, dY, eps=1e-5):
    Xhat, rstd = _ln_parts(X, eps)
    dXhat = dY * g
    dX = (dXhat - dXhat.mean(axis=1, keepdims=True)) * rstd
    return dX, (dY * Xhat).sum(axis=0), dY.sum(axis=0)


def lnb_no_mean_term(X, g, dY, eps=1e-5):
    Xhat, rstd = _ln_parts(X, eps)
    dXhat = dY * g
    dX = (dXhat - Xhat * (dXhat * Xhat).mean(axis=1, keepdims=True)) * rstd
    return dX, (dY * Xhat).sum(axis=0), dY.sum(axis=0)


def lnb_dg_db_swapped(X, g, dY, eps=1e-5):
    Xhat, rstd = _ln_parts(X, eps)
    dXhat = dY * g
    dX = (dXhat - dXhat.mean(axis=1, keepdims=True) - Xhat * (dXhat * Xhat).mean(axis=1, keepdims=True)) * rstd
    return dX, dY.sum(axis=0), (dY * Xhat).sum(axis=0)


def lnb_sums_per_row(X, g, dY, eps=1e-5):
    Xhat, rstd = _ln_parts(X, eps)
    dXhat = dY * g
    dX = (dXhat - dXhat.mean(axis=1, keepdims=True) - Xhat * (dXhat * Xhat).mean(axis=1, keepdims=True)) * rstd
    return dX, (dY * Xhat).sum(axis=1), dY.sum(axis=1)


def lnb_unbiased_variance(X, g, dY, eps=1e-5):
    mu = X.mean(axis=1, keepdims=True)
    rstd = 1 / np.sqrt(X.var(axis=1, ddof=1, keepdims=True) + eps)
    Xhat = (X - mu) * rstd
    dXhat = dY * g
    dX = (dXhat - dXhat.mean(axis=1, keepdims=True) - Xhat * (dXhat * Xhat).mean(axis=1, keepdims=True)) * rstd
    return dX, (dY * Xhat).sum(axis=0), dY.sum(axis=0)


def lnb_forgets_gain_in_dX(X, g, dY, eps=1e-5):
    Xhat, rstd = _ln_parts(X, eps)
    dXhat = dY
    dX = (dXhat - dXhat.mean(axis=1, keepdims=True) - Xhat * (dXhat * Xhat).mean(axis=1, keepdims=True)) * rstd
    return dX, (dY * Xhat).sum(axis=0), dY.sum(axis=0)


def lnb_dg_from_raw_X(X, g, dY, eps=1e-5):
    Xhat, rstd = _ln_parts(X, eps)
    dXhat = dY * g
    dX = (dXhat - dXhat.mean(axis=1, keepdims=True) - Xhat * (dXhat * Xhat).mean(axis=1, keepdims=True)) * rstd
    return dX, (dY * X).sum(axis=0), dY.sum(axis=0)


def lnb_averages_over_rows(X, g, dY, eps=1e-5):
    Xhat, rstd = _ln_parts(X, eps)
    dXhat = dY * g
    dX = (dXhat - dXhat.mean(axis=1, keepdims=True) - Xhat * (dXhat * Xhat).mean(axis=1, keepdims=True)) * rstd
    return dX, (dY * Xhat).mean(axis=0), dY.mean(axis=0)


def lnb_ok_classic_formula(X, g, dY, eps=1e-5):
    d = X.shape[1]
    mu = X.mean(axis=1, keepdims=True)
    var = X.var(axis=1, keepdims=True)
    rstd = 1.0 / np.sqrt(var + eps)
    xhat = (X - mu) * rstd
    dxhat = dY * g
    dX = rstd / d * (d * dxhat - dxhat.sum(axis=1, keepdims=True) - xhat * (dxhat * xhat).sum(axis=1, keepdims=True))
    return dX, (dY * xhat).sum(axis=0), dY.sum(axis=0)


def lnb_ok_row_loop(X, g, dY, eps=1e-5):
    n, d = X.shape
    dX = np.zeros((n, d))
    dg = np.zeros(d)
    db = np.zeros(d)
    for i in range(n):
        xc = X[i] - X[i].mean()
        rstd = 1.0 / np.sqrt(np.dot(xc, xc) / d + eps)
        xhat = xc * rstd
        dxhat = dY[i] * g
        dX[i] = rstd * (dxhat - dxhat.mean() - xhat * np.dot(dxhat, xhat) / d)
        dg += dY[i] * xhat
        db += dY[i]
    return dX, dg, db


# ============================================================================
# 12 most_attended

def most_attended_over_queries(A, tokens):
    return [tokens[j] for j in A.argmax(axis=0)]


def most_attended_last_of_ties(A, tokens):
    out = []
    for row in A:
        best = 0
        for j in range(len(row)):
            if row[j] >= row[best]:
                best = j
        out.append(tokens[best])
    return out


def most_attended_indices(A, tokens):
    return list(A.argmax(axis=1))


def most_attended_numpy_array(A, tokens):
    return np.array(tokens)[A.argmax(axis=1)]


def most_attended_sorted_last(A, tokens):
    return [tokens[np.argsort(row, kind="stable")[-1]] for row in A]


def most_attended_dict_by_word(A, tokens):
    out = []
    for row in A:
        weight = dict(zip(tokens, row))  # word -> its weight
        out.append(max(weight, key=weight.get))
    return out


def most_attended_ok_loop(A, tokens):
    out = []
    for i in range(A.shape[0]):
        best = 0
        for j in range(1, A.shape[1]):
            if A[i, j] > A[i, best]:
                best = j
        out.append(tokens[best])
    return out


# 12 attention_entropy

def entropy_in_bits(A):
    with np.errstate(divide="ignore", invalid="ignore"):
        return -np.nansum(A * np.log2(A), axis=1)


def entropy_zero_log_zero(A):
    return -(A * np.log(A)).sum(axis=1)


def entropy_no_minus(A):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.nansum(A * np.log(A), axis=1)


def entropy_mean_not_sum(A):
    with np.errstate(divide="ignore", invalid="ignore"):
        return -np.nanmean(np.where(A > 0, A * np.log(A), 0.0), axis=1)


def entropy_over_columns(A):
    with np.errstate(divide="ignore", invalid="ignore"):
        return -np.where(A > 0, A * np.log(A), 0.0).sum(axis=0)


def entropy_normalised(A):
    with np.errstate(divide="ignore", invalid="ignore"):
        H = -np.where(A > 0, A * np.log(A), 0.0).sum(axis=1)
    return H / np.log(A.shape[1])  # as a fraction of the largest possible entropy


def entropy_log_of_count(A):
    return np.log((A > 0).sum(axis=1))  # spread evenly over m keys gives log m


def entropy_ok_masked_log(A):
    logA = np.zeros(A.shape)
    np.log(A, out=logA, where=A > 0)
    return -(A * logA).sum(axis=1)


# ============================================================================
# 13 padding_mask

def padding_mask_hides_last_real(n_q, n_valid, n_k):
    M = np.zeros((n_q, n_k))
    M[:, n_valid - 1:] = -np.inf
    return M


def padding_mask_one_based(n_q, n_valid, n_k):
    M = np.zeros((n_q, n_k))
    M[:, n_valid + 1:] = -np.inf  # tokens 1..n_valid are real
    return M


def padding_mask_transposed(n_q, n_valid, n_k):
    M = np.zeros((n_k, n_q))
    M[n_valid:, :] = -np.inf
    return M


def padding_mask_hides_query_rows(n_q, n_valid, n_k):
    M = np.zeros((n_q, n_k))
    M[n_valid:, :] = -np.inf
    return M


def padding_mask_boolean(n_q, n_valid, n_k):
    return np.tile(np.arange(n_k) >= n_valid, (n_q, 1))


def padding_mask_minus_1e9(n_q, n_valid, n_k):
    M = np.zeros((n_q, n_k))
    M[:, n_valid:] = -1e9
    return M


def padding_mask_plus_causal(n_q, n_valid, n_k):
    M = np.zeros((n_q, n_k))
    M[:, n_valid:] = -np.inf
    return M + np.triu(np.full((n_q, n_k), -np.inf), k=1)


def padding_mask_int_zeros(n_q, n_valid, n_k):
    M = np.zeros((n_q, n_k), dtype=int)
    M[:, n_valid:] = -np.inf
    return M


def padding_mask_one_row(n_q, n_valid, n_k):
    m = np.zeros(n_k)
    m[n_valid:] = -np.inf
    return m  # broadcasts over the queries anyway


def padding_mask_ok_where_tile(n_q, n_valid, n_k):
    row = np.where(np.arange(n_k) < n_valid, 0.0, -np.inf)
    return np.tile(row, (n_q, 1))


# 13 cross_attention

def cross_attention_causal(X, Z, Wq, Wk, Wv):
    return _attention(X @ Wq, Z @ Wk, Z @ Wv, causal=True)


def cross_attention_sides_swapped(X, Z, Wq, Wk, Wv):
    return _attention(Z @ Wq, X @ Wk, X @ Wv, causal=False)


def cross_attention_values_from_X(X, Z, Wq, Wk, Wv):
    Q, K, V = X @ Wq, Z @ Wk, X @ Wv
    return _softmax(Q @ K.T / np.sqrt(Q.shape[1])) @ V


def cross_attention_scale_d_model(X, Z, Wq, Wk, Wv):
    Q, K, V = X @ Wq, Z @ Wk, Z @ Wv
    return _softmax(Q @ K.T / np.sqrt(X.shape[1])) @ V


def cross_attention_unscaled(X, Z, Wq, Wk, Wv):
    Q, K, V = X @ Wq, Z @ Wk, Z @ Wv
    return _softmax(Q @ K.T) @ V


def cross_attention_softmax_over_queries(X, Z, Wq, Wk, Wv):
    Q, K, V = X @ Wq, Z @ Wk, Z @ Wv
    return _softmax(Q @ K.T / np.sqrt(Q.shape[1]), axis=0) @ V


def cross_attention_scale_d_v(X, Z, Wq, Wk, Wv):
    Q, K, V = X @ Wq, Z @ Wk, Z @ Wv
    return _softmax(Q @ K.T / np.sqrt(V.shape[1])) @ V


def cross_attention_ok_einsum(X, Z, Wq, Wk, Wv):
    Q, K, V = X @ Wq, Z @ Wk, Z @ Wv
    S = np.einsum("id,jd->ij", Q, K) / np.sqrt(Wq.shape[1])
    return np.einsum("ij,jv->iv", _softmax(S, axis=1), V)


# ============================================================================
# 14 attend_step

def attend_step_no_max(q, K_cache, V_cache):
    w = np.exp(K_cache @ q / np.sqrt(q.shape[0]))
    return (w / w.sum()) @ V_cache


def attend_step_scale_from_t(q, K_cache, V_cache):
    s = K_cache @ q / np.sqrt(K_cache.shape[0])
    w = np.exp(s - s.max())
    return (w / w.sum()) @ V_cache


def attend_step_skips_own_row(q, K_cache, V_cache):
    K, V = K_cache[:-1], V_cache[:-1]  # the earlier tokens
    s = K @ q / np.sqrt(q.shape[0])
    w = np.exp(s - s.max())
    return (w / w.sum()) @ V


def attend_step_unscaled(q, K_cache, V_cache):
    s = K_cache @ q
    w = np.exp(s - s.max())
    return (w / w.sum()) @ V_cache


def attend_step_keeps_query_axis(q, K_cache, V_cache):
    Q = q[None, :]  # (1, d)
    S = Q @ K_cache.T / np.sqrt(q.shape[0])
    return _softmax(S) @ V_cache  # (1, d_v)


def attend_step_q_times_K(q, K_cache, V_cache):
    s = q @ K_cache / np.sqrt(q.shape[0])
    w = np.exp(s - s.max())
    return (w / w.sum()) @ V_cache


def attend_step_ok_loop(q, K_cache, V_cache):
    t = K_cache.shape[0]
    s = np.array([np.dot(K_cache[j], q) for j in range(t)]) / np.sqrt(len(q))
    w = np.exp(s - s.max())
    w = w / w.sum()
    out = np.zeros(V_cache.shape[1])
    for j in range(t):
        out += w[j] * V_cache[j]
    return out


# 14 cache_step

def cache_step_prepends(q, k, v, K_cache, V_cache):
    K_new = np.vstack([k[None, :], K_cache])
    V_new = np.vstack([v[None, :], V_cache])
    return _attend_step(q, K_new, V_new), K_new, V_new


def cache_step_returns_old_caches(q, k, v, K_cache, V_cache):
    K_new = np.vstack([K_cache, k[None, :]])
    V_new = np.vstack([V_cache, v[None, :]])
    return _attend_step(q, K_new, V_new), K_cache, V_cache


def cache_step_attends_before_append(q, k, v, K_cache, V_cache):
    o = _attend_step(q, K_cache, V_cache)
    return o, np.vstack([K_cache, k[None, :]]), np.vstack([V_cache, v[None, :]])


def cache_step_returns_V_before_K(q, k, v, K_cache, V_cache):
    K_new = np.vstack([K_cache, k[None, :]])
    V_new = np.vstack([V_cache, v[None, :]])
    return _attend_step(q, K_new, V_new), V_new, K_new


def cache_step_np_append_flattens(q, k, v, K_cache, V_cache):
    K_new = np.append(K_cache, k)
    V_new = np.append(V_cache, v)
    K2, V2 = K_new.reshape(-1, k.shape[0]), V_new.reshape(-1, v.shape[0])  # to attend
    return _attend_step(q, K2, V2), K_new, V_new


def cache_step_scales_q_in_place(q, k, v, K_cache, V_cache):
    q /= np.sqrt(q.shape[0])
    K_new = np.vstack([K_cache, k[None, :]])
    V_new = np.vstack([V_cache, v[None, :]])
    s = K_new @ q
    w = np.exp(s - s.max())
    return (w / w.sum()) @ V_new, K_new, V_new


def cache_step_ok_concatenate(q, k, v, K_cache, V_cache):
    K_new = np.concatenate([K_cache, k.reshape(1, -1)], axis=0)
    V_new = np.concatenate([V_cache, v.reshape(1, -1)], axis=0)
    return _attend_step(q, K_new, V_new), K_new, V_new


def cache_step_ok_append_axis0(q, k, v, K_cache, V_cache):
    K_new = np.append(K_cache, [k], axis=0)
    V_new = np.append(V_cache, [v], axis=0)
    return _attention(q[None], K_new, V_new, causal=False)[0], K_new, V_new


# 14 sample_next

def _probs(logits, temperature):
    z = logits / temperature
    e = np.exp(z - z.max())
    return e / e.sum()


def sample_next_last_of_ties(logits, temperature, u):
    if temperature == 0:
        return int(np.argsort(logits)[-1])
    cdf = np.cumsum(_probs(logits, temperature))
    return int(np.searchsorted(cdf / cdf[-1], u, side="right"))


def sample_next_multiplies_temperature(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    z = logits * temperature
    e = np.exp(z - z.max())
    cdf = np.cumsum(e / e.sum())
    return int(np.searchsorted(cdf / cdf[-1], u, side="right"))


def sample_next_at_least_u(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    cdf = np.cumsum(_probs(logits, temperature))
    return int(np.searchsorted(cdf / cdf[-1], u))  # first total >= u


def sample_next_total_not_rescaled(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    cdf = np.cumsum(_probs(logits, temperature))
    return int(np.searchsorted(cdf, u, side="right"))


def sample_next_no_max_shift(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    e = np.exp(logits / temperature)
    cdf = np.cumsum(e / e.sum())
    return int(np.searchsorted(cdf / cdf[-1], u, side="right"))


def sample_next_sharpens_probabilities(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    p = _softmax(logits) ** (1.0 / temperature)
    p = p / p.sum()
    cdf = np.cumsum(p)
    return int(np.searchsorted(cdf / cdf[-1], u, side="right"))


def sample_next_numpy_integer(logits, temperature, u):
    if temperature == 0:
        return np.argmax(logits)
    cdf = np.cumsum(_probs(logits, temperature))
    return np.searchsorted(cdf / cdf[-1], u, side="right")


def sample_next_no_greedy_case(logits, temperature, u):
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (logits - logits.max()) / temperature
        e = np.exp(z)
        cdf = np.cumsum(e / e.sum())
        return int(np.searchsorted(cdf / cdf[-1], u, side="right"))


def sample_next_own_random_draw(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    p = _probs(logits, temperature)
    return int(np.random.default_rng(0).choice(len(p), p=p))


def sample_next_ok_running_total(logits, temperature, u):
    if temperature == 0:
        best = 0
        for i in range(len(logits)):
            if logits[i] > logits[best]:
                best = i
        return best
    z = (logits - np.max(logits)) / temperature
    e = np.exp(z)
    p = e / e.sum()
    totals = np.cumsum(p)
    totals = totals / totals[-1]
    for i, total in enumerate(totals):
        if total > u:
            return i
    return len(totals) - 1


def sample_next_ok_argmax_of_mask(logits, temperature, u):
    if temperature == 0:
        return int(np.flatnonzero(logits == logits.max())[0])
    z = logits / temperature
    p = np.exp(z - z.max())
    cdf = np.cumsum(p / p.sum())
    cdf /= cdf[-1]
    return int(np.argmax(cdf > u))


# 14 top_k_filter

def top_k_strictly_above(logits, k):
    kth = np.sort(logits)[::-1][min(k, len(logits)) - 1]
    return np.where(logits > kth, logits, -np.inf)


def top_k_exactly_k_indices(logits, k):
    keep = np.argsort(logits)[-k:]
    out = np.full(len(logits), -np.inf)
    out[keep] = logits[keep]
    return out


def top_k_kth_smallest(logits, k):
    kth = np.sort(logits)[k - 1]
    return np.where(logits >= kth, logits, -np.inf)


def top_k_no_clamp(logits, k):
    kth = np.sort(logits)[::-1][k - 1]
    return np.where(logits >= kth, logits, -np.inf)


def top_k_in_place(logits, k):
    kth = np.sort(logits)[::-1][min(k, len(logits)) - 1]
    logits[logits < kth] = -np.inf
    return logits


def top_k_zeros_for_the_rest(logits, k):
    kth = np.sort(logits)[::-1][min(k, len(logits)) - 1]
    return np.where(logits >= kth, logits, 0.0)


def top_k_distinct_values(logits, k):
    values = sorted(set(logits.tolist()), reverse=True)
    kth = values[min(k, len(values)) - 1]
    return np.where(logits >= kth, logits, -np.inf)


def top_k_ok_partition(logits, k):
    k = min(k, len(logits))
    kth = np.partition(logits, len(logits) - k)[len(logits) - k]
    out = logits.astype(float)
    out[out < kth] = -np.inf
    return out


# 14 top_p_filter

def _stable_probs(logits):
    e = np.exp(logits - logits.max())
    return e / e.sum()


def top_p_stops_before_p(logits, p):
    if p == 1.0:
        return logits.astype(float)
    P = _stable_probs(logits)
    order = np.argsort(-P, kind="stable")
    keep = order[np.cumsum(P[order]) < p]
    out = np.full(len(logits), -np.inf)
    out[keep] = logits[keep]
    return out


def top_p_total_at_most_p(logits, p):
    if p == 1.0:
        return logits.astype(float)
    P = _stable_probs(logits)
    order = np.argsort(-P, kind="stable")
    keep = order[np.cumsum(P[order]) <= p]
    out = np.full(len(logits), -np.inf)
    out[keep] = logits[keep]
    return out


def top_p_one_past_exact_p(logits, p):
    if p == 1.0:
        return logits.astype(float)
    P = _stable_probs(logits)
    order = np.argsort(-P, kind="stable")
    n = int(np.searchsorted(np.cumsum(P[order]), p, side="right")) + 1  # first total above p
    out = np.full(len(logits), -np.inf)
    out[order[:n]] = logits[order[:n]]
    return out


def top_p_no_max_shift(logits, p):
    if p == 1.0:
        return logits.astype(float)
    e = np.exp(logits)
    P = e / e.sum()
    order = np.argsort(-P, kind="stable")
    n = int(np.searchsorted(np.cumsum(P[order]), p)) + 1
    out = np.full(len(logits), -np.inf)
    out[order[:n]] = logits[order[:n]]
    return out


def top_p_least_probable_first(logits, p):
    if p == 1.0:
        return logits.astype(float)
    P = _stable_probs(logits)
    order = np.argsort(P, kind="stable")
    n = int(np.searchsorted(np.cumsum(P[order]), p)) + 1
    out = np.full(len(logits), -np.inf)
    out[order[:n]] = logits[order[:n]]
    return out


def top_p_reversed_ascending_sort(logits, p):
    if p == 1.0:
        return logits.astype(float)
    P = _stable_probs(logits)
    order = np.argsort(P, kind="stable")[::-1]
    n = int(np.searchsorted(np.cumsum(P[order]), p)) + 1
    out = np.full(len(logits), -np.inf)
    out[order[:n]] = logits[order[:n]]
    return out


def top_p_no_special_case_for_one(logits, p):
    P = _stable_probs(logits)
    order = np.argsort(-P, kind="stable")
    n = int(np.searchsorted(np.cumsum(P[order]), p)) + 1
    out = np.full(len(logits), -np.inf)
    out[order[:n]] = logits[order[:n]]
    return out


def top_p_in_place(logits, p):
    if p == 1.0:
        return logits
    P = _stable_probs(logits)
    order = np.argsort(-P, kind="stable")
    n = int(np.searchsorted(np.cumsum(P[order]), p)) + 1
    logits[order[n:]] = -np.inf
    return logits


def top_p_writes_in_rank_order(logits, p):
    if p == 1.0:
        return logits.astype(float)
    P = _stable_probs(logits)
    order = np.argsort(-P, kind="stable")
    n = int(np.searchsorted(np.cumsum(P[order]), p)) + 1
    out = np.full(len(logits), -np.inf)
    out[:n] = logits[order][:n]
    return out


def top_p_float32(logits, p):
    if p == 1.0:
        return logits.astype(float)
    z = logits.astype(np.float32)  # probabilities do not need double precision
    e = np.exp(z - z.max())
    P = (e / e.sum()).astype(float)
    order = np.argsort(-P, kind="stable")
    n = int(np.searchsorted(np.cumsum(P[order]), p)) + 1
    out = np.full(len(logits), -np.inf)
    out[order[:n]] = logits[order[:n]]
    return out


def top_p_ok_loop(logits, p):
    out = np.full(len(logits), -np.inf)
    if p >= 1.0:
        out[:] = logits
        return out
    P = _stable_probs(logits)
    ranked = sorted(range(len(logits)), key=lambda i: (-P[i], i))
    total = 0.0
    for i in ranked:
        out[i] = logits[i]
        total += P[i]
        if total >= p:
            break
    return out


def top_p_ok_argmax_reached(logits, p):
    if p == 1:
        return np.array(logits, dtype=float)
    m = np.max(logits)
    P = np.exp(logits - m)
    P = P / P.sum()
    order = np.argsort(-P, kind="stable")
    cum = np.cumsum(P[order])
    reached = cum >= p
    n = int(np.argmax(reached)) + 1 if reached.any() else len(logits)
    keep = np.zeros(len(logits), dtype=bool)
    keep[order[:n]] = True
    return np.where(keep, logits, -np.inf)


# 14 generate

def generate_feeds_the_last_token(p, prompt, n_new, cache_step):
    d = p["tok_emb"].shape[1]
    K, V = np.zeros((0, d)), np.zeros((0, d))
    seq = [int(t) for t in prompt]
    i = 0
    while i < len(seq):
        x = p["tok_emb"][seq[i]] + p["pos_emb"][i]
        o, K, V = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K, V)
        if i == len(seq) - 1 and len(seq) < len(prompt) + n_new:
            seq.append(int(np.argmax((x + o) @ p["W_out"])))
        i += 1
    return np.array(seq)


def generate_without_the_cache(p, prompt, n_new, cache_step):
    d = p["tok_emb"].shape[1]
    seq = [int(t) for t in prompt]
    for _ in range(n_new):
        K, V = np.zeros((0, d)), np.zeros((0, d))  # start over for every new token
        for i, t in enumerate(seq):
            x = p["tok_emb"][t] + p["pos_emb"][i]
            o, K, V = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K, V)
        seq.append(int(np.argmax((x + o) @ p["W_out"])))
    return np.array(seq)


def generate_own_attention(p, prompt, n_new, cache_step):
    d = p["tok_emb"].shape[1]
    K, V = np.zeros((0, d)), np.zeros((0, d))
    seq = [int(t) for t in prompt]
    logits = None
    for i in range(len(prompt) + n_new - 1):
        x = p["tok_emb"][seq[i]] + p["pos_emb"][i]
        K = np.vstack([K, x @ p["Wk"]])
        V = np.vstack([V, x @ p["Wv"]])
        s = K @ (x @ p["Wq"]) / np.sqrt(d)
        w = np.exp(s - s.max())
        o = (w / w.sum()) @ V
        logits = (x + o) @ p["W_out"]
        if i >= len(prompt) - 1:
            seq.append(int(np.argmax(logits)))
    return np.array(seq)


def _generate_with(p, prompt, n_new, cache_step, logits_of, position_of=None):
    """The learner's generate loop; each generate_* variant below changes one line of it."""
    d = p["tok_emb"].shape[1]
    K, V = np.zeros((0, d)), np.zeros((0, d))
    seq = [int(t) for t in prompt]
    T = len(seq)
    for i in range(T + n_new - 1):
        pos = i if position_of is None else position_of(i, T)
        x = p["tok_emb"][seq[i]] + p["pos_emb"][pos]
        o, K, V = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K, V)
        if i >= T - 1:
            seq.append(int(np.argmax(logits_of(x, o))))
    return np.array(seq)


def generate_logits_from_attention_only(p, prompt, n_new, cache_step):
    return _generate_with(p, prompt, n_new, cache_step, lambda x, o: o @ p["W_out"])


def generate_logits_skip_attention(p, prompt, n_new, cache_step):
    return _generate_with(p, prompt, n_new, cache_step, lambda x, o: x @ p["W_out"])


def generate_position_not_advanced(p, prompt, n_new, cache_step):
    return _generate_with(p, prompt, n_new, cache_step, lambda x, o: (x + o) @ p["W_out"],
                          position_of=lambda i, T: min(i, T))  # every new token at position T


def generate_positions_from_one(p, prompt, n_new, cache_step):
    return _generate_with(p, prompt, n_new, cache_step, lambda x, o: (x + o) @ p["W_out"],
                          position_of=lambda i, T: i + 1)


def generate_adds_into_tok_emb(p, prompt, n_new, cache_step):
    d = p["tok_emb"].shape[1]
    K, V = np.zeros((0, d)), np.zeros((0, d))
    seq = [int(t) for t in prompt]
    T = len(seq)
    for i in range(T + n_new - 1):
        x = p["tok_emb"][seq[i]]
        x += p["pos_emb"][i]  # x is a view of tok_emb's row
        o, K, V = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K, V)
        if i >= T - 1:
            seq.append(int(np.argmax((x + o) @ p["W_out"])))
    return np.array(seq)


def generate_returns_new_tokens_only(p, prompt, n_new, cache_step):
    out = _generate_with(p, prompt, n_new, cache_step, lambda x, o: (x + o) @ p["W_out"])
    return out[len(prompt):]


def generate_float_array(p, prompt, n_new, cache_step):
    d = p["tok_emb"].shape[1]
    K, V = np.zeros((0, d)), np.zeros((0, d))
    T = len(prompt)
    out = np.zeros(T + n_new)
    out[:T] = prompt
    for i in range(T + n_new - 1):
        x = p["tok_emb"][int(out[i])] + p["pos_emb"][i]
        o, K, V = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K, V)
        if i >= T - 1:
            out[i + 1] = np.argmax((x + o) @ p["W_out"])
    return out


def generate_keys_from_Wq(p, prompt, n_new, cache_step):
    d = p["tok_emb"].shape[1]
    K, V = np.zeros((0, d)), np.zeros((0, d))
    seq = [int(t) for t in prompt]
    T = len(seq)
    for i in range(T + n_new - 1):
        x = p["tok_emb"][seq[i]] + p["pos_emb"][i]
        o, K, V = cache_step(x @ p["Wq"], x @ p["Wq"], x @ p["Wv"], K, V)
        if i >= T - 1:
            seq.append(int(np.argmax((x + o) @ p["W_out"])))
    return np.array(seq)


def generate_one_token_short(p, prompt, n_new, cache_step):
    d = p["tok_emb"].shape[1]
    K, V = np.zeros((0, d)), np.zeros((0, d))
    seq = [int(t) for t in prompt]
    for i, t in enumerate(seq):
        x = p["tok_emb"][t] + p["pos_emb"][i]
        o, K, V = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K, V)
    for _ in range(1, n_new):
        seq.append(int(np.argmax((x + o) @ p["W_out"])))
        x = p["tok_emb"][seq[-1]] + p["pos_emb"][len(seq) - 1]
        o, K, V = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K, V)
    return np.array(seq)


def generate_ok_two_loops(p, prompt, n_new, cache_step):
    tok_emb, pos_emb = p["tok_emb"], p["pos_emb"]
    K = np.zeros((0, tok_emb.shape[1]))
    V = np.zeros((0, p["Wv"].shape[1]))
    out = list(np.asarray(prompt).tolist())

    def feed(token, position):
        nonlocal K, V
        x = tok_emb[token] + pos_emb[position]
        o, K, V = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K, V)
        return (x + o) @ p["W_out"]

    for position, token in enumerate(out):
        logits = feed(token, position)
    for step in range(n_new):
        out.append(int(np.argmax(logits)))
        if step < n_new - 1:
            logits = feed(out[-1], len(out) - 1)
    return np.asarray(out, dtype=int)


def generate_ok_preallocated(p, prompt, n_new, cache_step):
    T = len(prompt)
    d = p["tok_emb"].shape[1]
    seq = np.zeros(T + n_new, dtype=int)
    seq[:T] = prompt
    K, V = np.empty((0, d)), np.empty((0, d))
    for i in range(T + n_new - 1 if n_new else T):
        x = p["tok_emb"][seq[i]] + p["pos_emb"][i]
        o, K, V = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K, V)
        if i + 1 >= T and i + 1 < T + n_new:
            seq[i + 1] = int(np.argmax(_softmax((x + o) @ p["W_out"])))
    return seq


# 14 kv_cache_bytes

def kv_cache_bytes_keys_only(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return n_layers * n_heads * d_head * seq_len * batch * bytes_per_value


def kv_cache_bytes_no_batch(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return 2 * n_layers * n_heads * d_head * seq_len * bytes_per_value


def kv_cache_bytes_two_bytes_always(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return 2 * n_layers * n_heads * d_head * seq_len * batch * 2  # fp16


def kv_cache_bytes_np_prod(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return np.prod([2, n_layers, n_heads, d_head, seq_len, batch, bytes_per_value])


def kv_cache_bytes_in_gib(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return 2 * n_layers * n_heads * d_head * seq_len * batch * bytes_per_value / 2 ** 30


def kv_cache_bytes_ok_loop(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    total = 1
    for size in (2, n_layers, n_heads, d_head, seq_len, batch, bytes_per_value):
        total *= int(size)
    return total


# 14 max_cached_tokens

def _bytes_per_token(n_layers, n_heads, d_head, batch, bytes_per_value):
    return 2 * n_layers * n_heads * d_head * batch * bytes_per_value


def max_cached_tokens_float_division(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    return int(memory_bytes / _bytes_per_token(n_layers, n_heads, d_head, batch, bytes_per_value))


def max_cached_tokens_rounds(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    return round(memory_bytes / _bytes_per_token(n_layers, n_heads, d_head, batch, bytes_per_value))


def max_cached_tokens_first_too_long(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    return memory_bytes // _bytes_per_token(n_layers, n_heads, d_head, batch, bytes_per_value) + 1


def max_cached_tokens_int64(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    per_token = np.int64(_bytes_per_token(n_layers, n_heads, d_head, batch, bytes_per_value))
    return np.floor_divide(np.int64(memory_bytes), per_token)


def max_cached_tokens_keys_only(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    return memory_bytes // (n_layers * n_heads * d_head * batch * bytes_per_value)


def max_cached_tokens_at_least_one(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    return max(1, memory_bytes // _bytes_per_token(n_layers, n_heads, d_head, batch, bytes_per_value))


def max_cached_tokens_ok_bisection(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    def fits(seq_len):
        return 2 * n_layers * n_heads * d_head * seq_len * batch * bytes_per_value <= memory_bytes
    lo, hi = 0, 1
    while fits(hi):
        hi *= 2
    while hi - lo > 1:  # fits(lo) and not fits(hi)
        mid = (lo + hi) // 2
        if fits(mid):
            lo = mid
        else:
            hi = mid
    return lo


# ============================================================================
# 15 previous_token_score

def previous_token_includes_row_zero(A):
    T = A.shape[0]
    return float(np.mean([A[t, t - 1] for t in range(T)]))  # A[0, -1] wraps to the last column


def previous_token_above_diagonal(A):
    if A.shape[0] == 1:
        return 0.0
    return float(np.diag(A, k=1).mean())


def previous_token_sum(A):
    return float(sum(A[t, t - 1] for t in range(1, A.shape[0])))


def previous_token_divides_by_T(A):
    T = A.shape[0]
    return float(sum(A[t, t - 1] for t in range(1, T)) / T)


def previous_token_no_edge_case(A):
    return float(np.diag(A, k=-1).mean())  # T = 1: the mean of nothing


def previous_token_block_mean(A):
    if A.shape[0] == 1:
        return 0.0
    return float(A[1:, :-1].mean())


def previous_token_ok_loop(A):
    T = A.shape[0]
    if T < 2:
        return 0.0
    total = 0.0
    for t in range(1, T):
        total += A[t, t - 1]
    return total / (T - 1)


# 15 prefix_matching_score

def prefix_matching_on_the_copy(A, tokens):
    sums = []
    for t in range(len(tokens)):
        copies = [j for j in range(t) if tokens[j] == tokens[t]]
        if copies:
            sums.append(sum(A[t, j] for j in copies))
    return float(np.mean(sums)) if sums else 0.0


def prefix_matching_latest_copy_only(A, tokens):
    sums = []
    for t in range(len(tokens)):
        copies = [j for j in range(t) if tokens[j] == tokens[t]]
        if copies:
            sums.append(A[t, copies[-1] + 1])
    return float(np.mean(sums)) if sums else 0.0


def prefix_matching_first_copy_only(A, tokens):
    sums = []
    for t in range(len(tokens)):
        copies = [j for j in range(t) if tokens[j] == tokens[t]]
        if copies:
            sums.append(A[t, copies[0] + 1])
    return float(np.mean(sums)) if sums else 0.0


def prefix_matching_averages_copies(A, tokens):
    sums = []
    for t in range(len(tokens)):
        copies = [j for j in range(t) if tokens[j] == tokens[t]]
        if copies:
            sums.append(np.mean([A[t, j + 1] for j in copies]))
    return float(np.mean(sums)) if sums else 0.0


def prefix_matching_mean_over_all_positions(A, tokens):
    T = len(tokens)
    total = 0.0
    for t in range(T):
        total += sum(A[t, j + 1] for j in range(t) if tokens[j] == tokens[t])
    return float(total / T)


def prefix_matching_nan_without_repeats(A, tokens):
    sums = []
    for t in range(len(tokens)):
        copies = [j for j in range(t) if tokens[j] == tokens[t]]
        if copies:
            sums.append(sum(A[t, j + 1] for j in copies))
    return float(np.mean(sums))


def prefix_matching_indices_swapped(A, tokens):
    sums = []
    for t in range(len(tokens)):
        copies = [j for j in range(t) if tokens[j] == tokens[t]]
        if copies:
            sums.append(sum(A[j + 1, t] for j in copies))
    return float(np.mean(sums)) if sums else 0.0


def prefix_matching_counts_itself(A, tokens):
    T = len(tokens)
    sums = []
    for t in range(T):
        copies = [j for j in range(t + 1) if tokens[j] == tokens[t]]  # j <= t
        if copies:
            sums.append(sum(A[t, j + 1] for j in copies if j + 1 < T))
    return float(np.mean(sums)) if sums else 0.0


def prefix_matching_ok_seen_positions(A, tokens):
    seen = {}
    sums = []
    for t, tok in enumerate(np.asarray(tokens).tolist()):
        if tok in seen:
            sums.append(sum(A[t, j + 1] for j in seen[tok]))
        seen.setdefault(tok, []).append(t)
    return float(sum(sums) / len(sums)) if sums else 0.0


# 15 ablate_head

def ablate_head_in_place(Wo, head, n_heads):
    d_head = Wo.shape[0] // n_heads
    Wo[head * d_head:(head + 1) * d_head] = 0.0
    return Wo


def ablate_head_slice_copy(Wo, head, n_heads):
    out = Wo[:]  # a copy, as with lists
    d_head = Wo.shape[0] // n_heads
    out[head * d_head:(head + 1) * d_head] = 0.0
    return out


def ablate_head_columns(Wo, head, n_heads):
    out = Wo.copy()
    d_head = Wo.shape[0] // n_heads
    out[:, head * d_head:(head + 1) * d_head] = 0.0
    return out


def ablate_head_one_based(Wo, head, n_heads):
    out = Wo.copy()
    d_head = Wo.shape[0] // n_heads
    out[(head - 1) * d_head:head * d_head] = 0.0
    return out


def ablate_head_inclusive_end(Wo, head, n_heads):
    out = Wo.copy()
    d_head = Wo.shape[0] // n_heads
    out[head * d_head:(head + 1) * d_head + 1] = 0.0  # rows h*d_head to (h+1)*d_head
    return out


def ablate_head_d_head_from_columns(Wo, head, n_heads):
    out = Wo.copy()
    d_head = Wo.shape[1] // n_heads  # d_model // n_heads
    out[head * d_head:(head + 1) * d_head] = 0.0
    return out


def ablate_head_strided_rows(Wo, head, n_heads):
    out = Wo.copy()
    out[head::n_heads] = 0.0
    return out


def ablate_head_ok_concatenate(Wo, head, n_heads):
    d_head = Wo.shape[0] // n_heads
    blocks = [Wo[h * d_head:(h + 1) * d_head] for h in range(n_heads)]
    blocks[head] = np.zeros_like(blocks[head])
    return np.concatenate(blocks, axis=0)


# ============================================================================
# 16 capstone: the dict of ops my_functions() gathers. All correct but the op(s) named in each entry.

def _embed(tokens, tok_emb, pos_emb):
    return tok_emb[tokens] + pos_emb[:len(tokens)]


def _next_token_logits(H, W_vocab):
    return H[-1] @ W_vocab


def _attention_backward(Q, K, V, dO, causal=True, scale=True):
    A, s = _weights_for_backward(Q, K, causal, scale)
    dS = _softmax_backward(A, dO @ V.T) * s
    return dS @ K, dS.T @ Q, A.T @ dO


def capstone_attention_backward_on_its_softmax_backward(Q, K, V, dO, causal=True, scale=True):
    A, s = _weights_for_backward(Q, K, causal, scale)
    dS = softmax_backward_diagonal_only(A, dO @ V.T) * s  # the learner's own softmax_backward
    return dS @ K, dS.T @ Q, A.T @ dO


_CAPSTONE_OPS = {
    "softmax": _softmax, "attention": _attention, "embed": _embed, "multi_head_attention": _multi_head_attention,
    "layer_norm": _layer_norm, "gelu": _gelu, "transformer_block": block_ok_named_steps,
    "next_token_logits": _next_token_logits, "cross_entropy": ce_ok_one_hot_matrix,
    "softmax_backward": _softmax_backward, "attention_backward": _attention_backward,
    "layer_norm_backward": lnb_ok_classic_formula, "cache_step": cache_step_ok_concatenate,
    "sample_next": sample_next_ok_argmax_of_mask,
}


def _ops(**changes):
    ops = dict(_CAPSTONE_OPS)
    ops.update(changes)
    return ops


_CAPSTONE_OPS_OTHER_FORMS = {
    "softmax": softmax_ok_rows_loop, "attention": attention_ok_row_loop, "embed": embed_ok_take,
    "multi_head_attention": mha_ok_batched, "layer_norm": layer_norm_ok_row_loop, "gelu": gelu_ok_expanded,
    "transformer_block": block_ok_own_heads, "next_token_logits": next_token_logits_ok_last_of_all,
    "cross_entropy": ce_ok_row_loop, "softmax_backward": softmax_backward_ok_einsum,
    "attention_backward": ab_ok_per_query, "layer_norm_backward": lnb_ok_row_loop,
    "cache_step": cache_step_ok_append_axis0, "sample_next": sample_next_ok_running_total,
}


# ============================================================================

MISTAKES = [
    # 01 project
    Mistake("project", "column-vector habit: returns W @ x instead of x @ W (wrong "
            "for a square W, a shape error otherwise)", project_column_vector_habit),
    Mistake("project", "returns a (1, d_out) matrix (x reshaped to a 1 x d_in row) instead of a (d_out,) vector",
            project_keeps_row_matrix),
    Mistake("project", "the loop over i starts at 1, so the term x[0] * W[0, j] is left out of every output",
            project_loop_from_one),
    Mistake("project", "indexes W[j, i] instead of W[i, j] in the loop, i.e. "
            "computes x @ W.T (only runs for a square W)", project_loop_swapped_indices),
    Mistake("project", "averages x[i] * W[i, j] over i (divides by d_in) instead of summing", project_mean_not_sum),
    # 01 compose
    Mistake("compose", "multiplies in column-vector order, W2 @ W1, instead of W1 @ W2", compose_paper_order),
    Mistake("compose", "returns the column-vector matrix W2.T @ W1.T, the transpose of W1 @ W2 (shape (d_out, d_in))",
            compose_column_form_not_transposed_back),
    Mistake("compose", "multiplies W1 and W2 element by element instead of as matrices", compose_elementwise),
    Mistake("compose", "W = W1 is an alias, so W @= W2 overwrites the caller's W1 (and fails unless W2 is square)",
            compose_overwrites_W1),
    Mistake("compose", "transposes W2: returns W1 @ W2.T instead of W1 @ W2", compose_transposes_W2),
    # 02 project_rows
    Mistake("project_rows", "column-vector habit: returns W.T @ X.T, shape "
            "(d_out, n), never transposed back to (n, d_out)", project_rows_column_habit),
    Mistake("project_rows", "reads W as (d_out, d_in) and returns X @ W.T instead of X @ W", project_rows_torch_layout),
    Mistake("project_rows", "allocates the output with np.zeros_like(X): shape (n, d_in) and X's dtype, so it fails "
            "when d_out != d_in and truncates for an integer X", project_rows_zeros_like),
    Mistake("project_rows", "the row loop starts at 1: row 0 of the output is left at zeros", project_rows_skips_first),
    Mistake("project_rows", "broadcasts X[:, :, None] * W and sums over the "
            "output axis (axis 2) instead of d_in (axis 1)", project_rows_sums_wrong_axis),
    # 02 matmul_cost
    Mistake("matmul_cost", "counts multiplications and additions, 2 * n * d_in * d_out, instead of n * d_in * d_out",
            matmul_cost_flops),
    Mistake("matmul_cost", "counts the additions, n * d_out * (d_in - 1), instead of the multiplications",
            matmul_cost_additions),
    Mistake("matmul_cost", "counts only the output entries, n * d_out, forgetting each is a dot product of length d_in",
            matmul_cost_output_entries),
    Mistake("matmul_cost", "returns np.prod([n, d_in, d_out]): a np.int64, not a Python int, which wraps past 2**63",
            matmul_cost_np_prod),
    Mistake("matmul_cost", "multiplies in np.int32, which overflows and wraps for large sizes", matmul_cost_int32),
    Mistake("matmul_cost", "multiplies in float64 (np.prod with dtype=float), which rounds counts above 2**53",
            matmul_cost_float_product),
    # 03 values
    Mistake("values", "builds X from each distinct word once (dict.fromkeys), dropping repeated tokens",
            values_unique_words),
    Mistake("values", "builds X from every word of the table (table.values()) instead of from the tokens",
            values_whole_table),
    Mistake("values", "builds X from np.unique(tokens): repeats dropped and "
            "rows in alphabetical order, not sentence order", values_np_unique),
    Mistake("values", "column-vector habit: returns Wv.T @ X.T, shape (d_v, n), instead of X @ Wv",
            values_column_habit),
    Mistake("values", "the token loop starts at 1, so the first token's row is missing (n - 1 rows)",
            values_skips_first_token),
    # 03 one_hot
    Mistake("one_hot", "returns an integer array (np.zeros(..., dtype=int)) instead of floats", one_hot_int_dtype),
    Mistake("one_hot", "takes the width from ids.max() + 1 instead of vocab_size", one_hot_size_from_ids),
    Mistake("one_hot", "returns the transpose, shape (vocab_size, n): one column per token", one_hot_columns),
    Mistake("one_hot", "indexes np.eye(len(ids)): the width is n, not vocab_size", one_hot_eye_of_n),
    Mistake("one_hot", "treats ids as 1-based: puts the 1.0 in column ids[i] - 1 (id 0 lands in the last column)",
            one_hot_one_based),
    # 04 uniform_causal_weights
    Mistake("uniform_causal_weights", "averages over the future: upper triangle, row i is 1/(n-i) on columns i..n-1",
            ucw_upper_triangle),
    Mistake("uniform_causal_weights", "normalises the lower triangle by its column sums instead of its row sums",
            ucw_normalises_columns),
    Mistake("uniform_causal_weights", "divides by np.arange(1, n + 1) without [:, "
            "None]: entry (i, j) is 1/(j+1), not 1/(i+1)", ucw_divides_columns),
    Mistake("uniform_causal_weights", "uses the strictly lower triangle "
            "(k=-1): the diagonal is 0 and rows do not sum to 1", ucw_strictly_lower),
    Mistake("uniform_causal_weights", "divides the rows of an integer array in place, so "
            "every 1/(i+1) truncates to 0 below row 0", ucw_int_rows),
    Mistake("uniform_causal_weights", "divides the lower triangle by n instead of by i + 1", ucw_divides_by_n),
    # 04 causal_average
    Mistake("causal_average", "divides the running sum by np.arange(1, n + 1) without [:, None]: "
            "column j by j+1 (a shape error unless d == n)", ca_divides_columns),
    Mistake("causal_average", "divides the running sum by n instead of by i + 1", ca_divides_by_n),
    Mistake("causal_average", "takes the running sum along the features (axis=1) instead of along the rows",
            ca_cumsum_along_features),
    Mistake("causal_average", "row i averages rows 0..i-1, leaving out row i itself", ca_excludes_own_row),
    Mistake("causal_average", "calls .mean() without axis=0: every entry of "
            "row i is the mean of all numbers in rows 0..i", ca_mean_of_everything),
    Mistake("causal_average", "computes the running sum in place in V (np.cumsum(..., "
            "out=V), then V /=), overwriting the caller's V", ca_in_place),
    # 05 similarity
    Mistake("similarity", "transposes the wrong factor: Q.T @ K, a (d, d) matrix (a shape error unless n_q == n_k)",
            similarity_transposes_Q),
    Mistake("similarity", "returns K @ Q.T, shape (n_k, n_q), the transpose of Q @ K.T", similarity_keys_first),
    Mistake("similarity", "divides by sqrt(d) although the text asks for raw, unscaled scores", similarity_scaled),
    Mistake("similarity", "(Q * K).sum(axis=1): pairs query i only with key i, "
            "giving (n,) instead of all (n_q, n_k) pairs", similarity_elementwise),
    Mistake("similarity", "forgets the transpose: Q @ K (only runs when d == n_k, then wrong)",
            similarity_no_transpose),
    Mistake("similarity", "normalises the rows of Q and K first (cosine similarity) instead of raw dot products",
            similarity_cosine),
    # 05 learned_scores
    Mistake("learned_scores", "swaps the projections: queries from Wk and keys "
            "from Wq, giving the transpose of the scores", learned_scores_swapped),
    Mistake("learned_scores", "projects the keys with Wq as well (copy-paste), so the scores are symmetric",
            learned_scores_Wq_twice),
    Mistake("learned_scores", "divides the scores by sqrt(d) although the text says no scaling yet",
            learned_scores_scaled),
    Mistake("learned_scores", "adds a causal mask (-inf above the diagonal) although the text says no mask yet",
            learned_scores_masked),
    Mistake("learned_scores", "column-vector habit: Q = Wq.T @ X.T and K = "
            "Wk.T @ X.T (d, n), then Q @ K.T gives (d, d)", learned_scores_column_vectors),
    Mistake("learned_scores", "returns the row softmax of the scores (weights) instead of the raw scores",
            learned_scores_softmaxed),
    # 06 causal_mask
    Mistake("causal_mask", "the mask is offset by one: -inf on the diagonal "
            "too, so each row also hides its own position", causal_mask_hides_diagonal),
    Mistake("causal_mask", "uses tril instead of triu: -inf below the diagonal (the past) instead of above it",
            causal_mask_hides_past),
    Mistake("causal_mask", "returns a boolean mask (True on the future) instead of the additive 0 / -inf floats",
            causal_mask_boolean),
    Mistake("causal_mask", "uses -1e9 for the future instead of -np.inf", causal_mask_minus_1e9),
    Mistake("causal_mask", "returns the multiplicative mask, 1 on and below the "
            "diagonal and 0 above, instead of 0 / -inf", causal_mask_multiplicative),
    Mistake("causal_mask", "multiplies a 0/1 triangle by -inf: 0 * -inf gives "
            "nan on and below the diagonal instead of 0", causal_mask_ones_times_inf),
    Mistake("causal_mask", "puts +inf instead of -inf above the diagonal", causal_mask_plus_inf),
    # 06 softmax
    Mistake("softmax", "no max subtraction: np.exp overflows for scores around 1000 and gives nan", softmax_no_max),
    Mistake("softmax", "subtracts the global max S.max() instead of the max along axis, "
            "so a slice far below it underflows to 0/0", softmax_global_max),
    Mistake("softmax", "divides by the sum over the whole array instead of the sum along axis", softmax_global_sum),
    Mistake("softmax", "takes the max along axis without keepdims, so it broadcasts along the "
            "wrong axis (a shape error unless square)", softmax_max_without_keepdims),
    Mistake("softmax", "ignores the axis argument and always normalises along the last axis", softmax_ignores_axis),
    Mistake("softmax", "clips the result to [1e-12, 1], so -inf entries become 1e-12 instead of exact zeros",
            softmax_clipped),
    # 06 score_scale
    Mistake("score_scale", "returns 1/d (the inverse of the variance) instead of 1/sqrt(d)", score_scale_one_over_d),
    Mistake("score_scale", "returns sqrt(d), multiplying by the standard deviation instead of dividing",
            score_scale_sqrt_d),
    Mistake("score_scale", "returns 1/sqrt(d - 1), a sample-variance n-1 habit (infinite for d = 1)",
            score_scale_sample_variance),
    Mistake("score_scale", "operator precedence: 1 / d ** 1 / 2 computes 1/(2d), not 1/sqrt(d)",
            score_scale_precedence),
    Mistake("score_scale", "returns a measurement, 1/std of 5000 sampled q.k, instead of the exact 1/sqrt(d)",
            score_scale_measured),
    # 06 attention_weights
    Mistake("attention_weights", "with n_q < n_k the mask is aligned top-left: "
            "query i sees keys 0..i instead of 0..n_k-n_q+i", aw_mask_from_top_left),
    Mistake("attention_weights", "masks after the softmax (multiplies by a 0/1 triangle) "
            "without renormalising: rows sum to less than 1", aw_mask_after_softmax),
    Mistake("attention_weights", "divides the scores by d instead of sqrt(d)", aw_divides_by_d),
    Mistake("attention_weights", "scales by sqrt(K.shape[0]) (the number of keys) instead of sqrt(d)",
            aw_scale_from_n_k),
    Mistake("attention_weights", "softmax along axis 0 (over the queries) instead of along each row",
            aw_softmax_over_queries),
    Mistake("attention_weights", "the causal mask also hides the query's own position (diagonal offset one too small)",
            aw_hides_own_position),
    Mistake("attention_weights", "always divides by sqrt(d), ignoring scale=False", aw_always_scales),
    # 07 attention
    Mistake("attention", "returns V.T @ A.T, shape (d_v, n_q), the transpose of A @ V", attention_transposed_output),
    Mistake("attention", "K and V swapped: the weights come from Q and V, and mix the rows of K",
            attention_keys_and_values_swapped),
    Mistake("attention", "with n_q < n_k the mask is aligned top-left: query i sees keys 0..i instead of 0..n_k-n_q+i",
            attention_mask_from_top_left),
    Mistake("attention", "never divides by sqrt(d), ignoring scale=True", attention_never_scales),
    Mistake("attention", "masks by setting future scores to 0 (np.tril) instead of -inf, so the future keeps weight",
            attention_zeroes_future_scores),
    Mistake("attention", "scales by sqrt(d_v) (V.shape[1]) instead of sqrt(d) (Q.shape[1])", attention_scale_from_d_v),
    Mistake("attention", "divides Q in place (Q /= sqrt(d)), changing the caller's Q", attention_scales_Q_in_place),
    Mistake("attention", "returns the tuple (O, A) instead of O alone", attention_returns_weights_too),
    # 07 self_attention
    Mistake("self_attention", "never applies Wo: returns the (n, d_v) head output even when Wo is given",
            self_attention_ignores_Wo),
    Mistake("self_attention", "tests `if Wo:` on an array, which raises ValueError whenever Wo is given",
            self_attention_truthiness_of_Wo),
    Mistake("self_attention", "does not pass causal on, so causal=False is still masked", self_attention_always_causal),
    Mistake("self_attention", "calls attention with scale=False: the scores are not divided by sqrt(d_head)",
            self_attention_unscaled),
    Mistake("self_attention", "queries from Wk and keys from Wq, which transposes the scores",
            self_attention_q_k_swapped),
    Mistake("self_attention", "multiplies by Wo.T instead of Wo (only runs for a square Wo)",
            self_attention_Wo_transposed),
    # 07 future_leak
    Mistake("future_leak", "returns the smallest leaking distance k instead of the largest", future_leak_smallest_k),
    Mistake("future_leak", "returns the number of leaking (row, future row) pairs instead of the largest distance",
            future_leak_counts_pairs),
    Mistake("future_leak", "looks in the wrong direction: measures how far back "
            "rows depend (rows i > j) instead of ahead", future_leak_looks_back),
    Mistake("future_leak", "uses an absolute threshold of 1e-9, not 1e-9 times the largest output, so "
            "rounding noise on large outputs counts as a leak", future_leak_absolute_threshold),
    Mistake("future_leak", "nudges X in place (X[j] += 1 then X[j] -= 1), which "
            "leaves rounding changes in the caller's X", future_leak_nudges_X_in_place),
    Mistake("future_leak", "loops k over range(1, n - 1), so the largest possible distance n - 1 is never tested",
            future_leak_range_too_short),
    Mistake("future_leak", "moves rows by 1e-6 instead of a visible amount, so a tiny "
            "weight on the future falls under the threshold", future_leak_tiny_nudge),
    # 07 tiled_attention
    Mistake("tiled_attention", "never rescales l and acc when a tile raises the running max, so earlier tiles "
            "keep exponentials taken from the old max", tiled_no_rescale),
    Mistake("tiled_attention", "rescales the running sum l by exp(m_old - m_new) but not the accumulator acc",
            tiled_rescales_l_only),
    Mistake("tiled_attention", "rescales l and acc by exp(m_new - m_old), the inverse of the correction factor",
            tiled_rescale_inverted),
    Mistake("tiled_attention", "with n_q < n_k the causal mask is aligned top-left: query i "
            "sits at position i instead of n_k - n_q + i", tiled_mask_from_top_left),
    Mistake("tiled_attention", "divides acc by l after every tile and resets l to "
            "1, so tiles are mixed with the wrong weights", tiled_normalises_each_tile),
    Mistake("tiled_attention", "computes a whole (block, n_k) strip of scores per query block: right values, but 2048 "
            "x 64 floats (1 MB) exceed the 512 kB memory limit", tiled_scores_strip),
    Mistake("tiled_attention", "never divides the scores by sqrt(d)", tiled_unscaled),
    Mistake("tiled_attention", "loops over n_q // block whole blocks only: the last partial block of queries stays 0",
            tiled_drops_last_block),
    Mistake("tiled_attention", "starts the running max at 0 instead of -inf, so rows whose scores "
            "are all below about -745 underflow to 0/0", tiled_max_starts_at_zero),
    # 08 embed
    Mistake("embed", "looks the position vectors up by token id (pos_emb[tokens]) instead of by position",
            embed_positions_by_token_id),
    Mistake("embed", "adds the whole pos_emb table (max_len rows) instead of its first n rows",
            embed_whole_position_table),
    Mistake("embed", "adds the last n rows of pos_emb (pos_emb[-n:]) instead of the first n", embed_last_positions),
    Mistake("embed", "counts positions from 1: adds pos_emb[1:n+1] instead of pos_emb[:n]", embed_positions_from_one),
    Mistake("embed", "concatenates the word and position vectors (n, 2 d_model) instead of adding them",
            embed_concatenates),
    Mistake("embed", "adds the word vectors into a slice (a view) of pos_emb, overwriting the caller's position table",
            embed_adds_into_pos_table),
    # 08 sinusoidal_positions
    Mistake("sinusoidal_positions", "uses the column index 2i where i belongs: exponent 2*(2i)/d, frequencies too slow",
            sinusoidal_doubles_the_two),
    Mistake("sinusoidal_positions", "drops the 2 in the exponent: 10000^(i/d) instead of 10000^(2i/d)",
            sinusoidal_drops_the_two),
    Mistake("sinusoidal_positions", "cosines on the even columns and sines on the odd ones (swapped)",
            sinusoidal_sin_cos_swapped),
    Mistake("sinusoidal_positions", "puts all sines in the first d/2 columns and all "
            "cosines after, instead of interleaving them", sinusoidal_halves),
    Mistake("sinusoidal_positions", "uses each column's own index c in 10000^(c/d), so the cosine column 2i+1 "
            "gets the exponent (2i+1)/d instead of 2i/d", sinusoidal_exponent_per_column),
    Mistake("sinusoidal_positions", "positions run from 1 to n instead of 0 to n-1 (row 0 is not [0, 1, 0, 1, ...])",
            sinusoidal_positions_from_one),
    Mistake("sinusoidal_positions", "multiplies t by 10000^(2i/d) instead of dividing", sinusoidal_multiplies),
    # 09 split_heads
    Mistake("split_heads", "reshapes M straight to (n_heads, n, d_head), which scrambles rows and columns across heads",
            split_heads_plain_reshape),
    Mistake("split_heads", "strided split: head h gets columns h, h + n_heads, ... instead of a contiguous block",
            split_heads_strided),
    Mistake("split_heads", "returns each head transposed, shape (n_heads, d_head, n), from M.T.reshape",
            split_heads_each_transposed),
    Mistake("split_heads", "reshapes to (n, n_heads, d_head) and forgets to swap the first two axes",
            split_heads_no_swap),
    Mistake("split_heads", "assigns M.shape = (n, n_heads, d_head), changing the caller's M", split_heads_sets_shape),
    # 09 multi_head_attention
    Mistake("multi_head_attention", "scales each head by sqrt(d_model) instead of sqrt(d_head)", mha_scales_by_d_model),
    Mistake("multi_head_attention", "splits heads with a plain reshape to (n_heads, "
            "n, d_head), scrambling tokens and columns", mha_heads_by_plain_reshape),
    Mistake("multi_head_attention", "head h takes the strided columns h::n_heads "
            "instead of the block h*d_head:(h+1)*d_head", mha_strided_head_columns),
    Mistake("multi_head_attention", "merges the (n_heads, n, d_head) outputs with reshape(n, -1) without "
            "moving the head axis back, scrambling rows", mha_merges_without_transpose),
    Mistake("multi_head_attention", "forgets the final multiplication by Wo", mha_forgets_Wo),
    Mistake("multi_head_attention", "does not pass causal to the heads, so causal=False is still masked",
            mha_always_causal),
    Mistake("multi_head_attention", "takes d_head = d_model // n_heads from X instead of from the projections' width "
            "(wrong when n_heads * d_head != d_model)", mha_d_head_from_d_model),
    # 10 layer_norm
    Mistake("layer_norm", "uses the unbiased variance (ddof=1, divides by d - 1) instead of dividing by d",
            layer_norm_unbiased_variance),
    Mistake("layer_norm", "puts eps outside the square root: divides by std + eps", layer_norm_eps_outside_sqrt),
    Mistake("layer_norm", "normalises each column (axis=0) instead of each row", layer_norm_over_columns),
    Mistake("layer_norm", "divides by the variance + eps instead of its square root", layer_norm_no_sqrt),
    Mistake("layer_norm", "adds b before multiplying by g: (xhat + b) * g", layer_norm_bias_before_gain),
    Mistake("layer_norm", "centres X in place (X -= mean), overwriting the caller's X", layer_norm_centres_in_place),
    Mistake("layer_norm", "uses one mean and variance over the whole matrix instead of per row",
            layer_norm_whole_matrix),
    # 10 gelu
    Mistake("gelu", "uses the sigmoid approximation x * sigmoid(1.702 x) instead of the tanh formula",
            gelu_sigmoid_approximation),
    Mistake("gelu", "uses sqrt(2 * pi) instead of sqrt(2 / pi) inside the tanh", gelu_sqrt_two_pi),
    Mistake("gelu", "squares instead of cubes: 0.044715 x^2 inside the tanh", gelu_squares),
    Mistake("gelu", "drops the factor 0.5: returns x (1 + tanh(...))", gelu_no_half),
    Mistake("gelu", "misplaced bracket: sqrt(2/pi) multiplies x only, the 0.044715 x^3 term is added unscaled",
            gelu_cubic_outside),
    Mistake("gelu", "writes x^3 with the spreadsheet caret, which numpy reads as bitwise xor (TypeError on floats)",
            gelu_caret_power),
    Mistake("gelu", "loops over range(len(X)) with float(X[i]): only works for a 1-D array, fails for other shapes",
            gelu_loops_over_a_vector),
    # 10 transformer_block
    Mistake("transformer_block", "post-LN order: layer norm after each residual add instead of before each sub-layer",
            block_post_ln),
    Mistake("transformer_block", "drops the residual around attention: Y = MHA(LN1(X)) without + X",
            block_no_attention_residual),
    Mistake("transformer_block", "drops the residual around the MLP: returns the MLP output without + Y",
            block_no_mlp_residual),
    Mistake("transformer_block", "uses ln1_g and ln1_b for the second layer norm too (ln2 parameters unused)",
            block_ln1_params_twice),
    Mistake("transformer_block", "the attention residual adds the normalised LN1(X) instead of X",
            block_residual_from_normalised),
    Mistake("transformer_block", "adds b1 after the GELU instead of inside it: gelu(H W1) + b1", block_b1_after_gelu),
    Mistake("transformer_block", "the MLP reads layer_norm(X, ln2) instead of layer_norm(Y, ln2) (a parallel block)",
            block_mlp_reads_X),
    Mistake("transformer_block", "does not pass causal to multi_head_attention, so causal=False is still masked",
            block_always_causal),
    Mistake("transformer_block", "adds the residuals into X in place (X += ...), overwriting the caller's X",
            block_adds_into_X),
    # 11 next_token_logits
    Mistake("next_token_logits", "uses the first row H[0] instead of the last row H[-1]", next_token_logits_first_row),
    Mistake("next_token_logits", "returns the logits of every row, (n, vocab), instead of the last row's (vocab,)",
            next_token_logits_every_row),
    Mistake("next_token_logits", "applies a softmax: returns probabilities instead of raw logits",
            next_token_logits_softmaxed),
    Mistake("next_token_logits", "projects the mean of all rows instead of the last row", next_token_logits_mean_row),
    Mistake("next_token_logits", "uses the second-to-last row H[-2] (fails for n = 1)", next_token_logits_second_last),
    Mistake("next_token_logits", "column-vector habit: W_vocab @ H[-1] (only runs when d_model == vocab, then wrong)",
            next_token_logits_column_habit),
    # 11 cross_entropy
    Mistake("cross_entropy", "dlogits is softmax - one_hot without the division by n: the gradient of "
            "the summed loss while the loss is the mean", ce_gradient_not_averaged),
    Mistake("cross_entropy", "sums over the rows instead of averaging: loss and dlogits are both n times too large",
            ce_sums_over_rows),
    Mistake("cross_entropy", "takes np.log of the softmax probabilities, giving an infinite loss when a target's "
            "probability underflows (logits around 1e4)", ce_log_of_probabilities),
    Mistake("cross_entropy", "log-sum-exp without subtracting the row max: np.exp overflows for logits around 1e4",
            ce_no_max_shift),
    Mistake("cross_entropy", "gradient sign flipped: (one_hot - softmax) / n", ce_gradient_sign_flipped),
    Mistake("cross_entropy", "indexes logp[:, targets] (an (n, n) block) "
            "instead of logp[arange(n), targets] in the loss", ce_indexes_every_target_column),
    Mistake("cross_entropy", "subtracts the row max from logits in place (logits -= ...), changing the caller's logits",
            ce_shifts_logits_in_place),
    Mistake("cross_entropy", "dlogits forgets to subtract the one-hot target: returns softmax / n",
            ce_gradient_without_one_hot),
    Mistake("cross_entropy", "measures the loss in bits (log base 2) instead of nats", ce_log_base_two),
    Mistake("cross_entropy", "returns the vector of per-row losses (n,) instead of their mean", ce_loss_per_row),
    Mistake("cross_entropy", "clips the target probability at 1e-12 before the "
            "log, capping each row's loss at about 27.6", ce_clips_probabilities),
    Mistake("cross_entropy", "shifts the targets by one (logits[:-1] against targets[1:]): one row lost and "
            "every prediction paired with the wrong target", ce_shifts_targets),
    # 11 softmax_backward
    Mistake("softmax_backward", "returns A * dA, dropping the subtraction of sum(A * dA) along the last axis",
            softmax_backward_elementwise),
    Mistake("softmax_backward", "uses only the Jacobian's diagonal: A * (1 - A) * dA", softmax_backward_diagonal_only),
    Mistake("softmax_backward", "forgets the outer factor A: returns dA - sum(A * dA)", softmax_backward_missing_A),
    Mistake("softmax_backward", "sums A * dA along axis 0 instead of the last axis",
            softmax_backward_sum_over_first_axis),
    Mistake("softmax_backward", "sums along the last axis without keepdims, so the sum broadcasts along the wrong axis",
            softmax_backward_without_keepdims),
    Mistake("softmax_backward", "loops over the first axis with one Jacobian per row: only handles 2-D input, "
            "fails with more leading axes or a 1-D vector", softmax_backward_matrices_only),
    Mistake("softmax_backward", "sums A * dA over the whole array instead of along the last axis",
            softmax_backward_sum_over_everything),
    # 11 attention_backward
    Mistake("attention_backward", "forgets the scale s in dS: dQ and dK are sqrt(d) times too large when scale=True",
            ab_forgets_scale),
    Mistake("attention_backward", "applies the scale twice: dQ and dK carry s**2 instead of s", ab_scale_twice),
    Mistake("attention_backward", "with n_q < n_k the causal mask is aligned top-left (query i sees keys 0..i)",
            ab_mask_from_top_left),
    Mistake("attention_backward", "dS = A * dA * s: the softmax backward misses the subtraction of sum(A * dA)",
            ab_softmax_backward_elementwise),
    Mistake("attention_backward", "dK = dS.T @ K instead of dS.T @ Q", ab_dK_from_K),
    Mistake("attention_backward", "the scale uses d_v (V.shape[1]) instead of d (Q.shape[1])", ab_scale_from_d_v),
    Mistake("attention_backward", "recomputes A for the backward pass without the causal mask",
            ab_backward_without_mask),
    Mistake("attention_backward", "dK = dS @ Q instead of dS.T @ Q (only runs when n_q == n_k)", ab_dK_not_transposed),
    Mistake("attention_backward", "dV = A @ dO instead of A.T @ dO (only runs when n_q == n_k)", ab_dV_not_transposed),
    Mistake("attention_backward", "multiplies dS by sqrt(d) instead of 1/sqrt(d)", ab_multiplies_by_sqrt_d),
    # 11 layer_norm_backward
    Mistake("layer_norm_backward", "dX = dY * g / sqrt(var + eps): ignores that the row mean and variance depend on X",
            lnb_ignores_statistics),
    Mistake("layer_norm_backward", "dX keeps the mean term but drops the variance term - xhat * mean(dxhat * xhat)",
            lnb_no_variance_term),
    Mistake("layer_norm_backward", "dX keeps the variance term but drops the mean term - mean(dxhat)",
            lnb_no_mean_term),
    Mistake("layer_norm_backward", "dg and db swapped: returns sum(dY) as dg and sum(dY * xhat) as db",
            lnb_dg_db_swapped),
    Mistake("layer_norm_backward", "sums dg and db along axis 1 (per row, shape (n,)) instead of over the rows",
            lnb_sums_per_row),
    Mistake("layer_norm_backward", "recomputes xhat with the unbiased variance (ddof=1)", lnb_unbiased_variance),
    Mistake("layer_norm_backward", "forgets g in dX: uses dxhat = dY instead of dY * g", lnb_forgets_gain_in_dX),
    Mistake("layer_norm_backward", "dg = sum(dY * X) with the raw X instead of the normalised xhat", lnb_dg_from_raw_X),
    Mistake("layer_norm_backward", "averages dg and db over the rows instead of summing", lnb_averages_over_rows),
    # 12 most_attended
    Mistake("most_attended", "argmax along axis 0: for each key the query that attends to it most, not per query row",
            most_attended_over_queries),
    Mistake("most_attended", "compares with >= in the loop, so ties go to the later token instead of the earlier",
            most_attended_last_of_ties),
    Mistake("most_attended", "returns the column indices instead of the token strings", most_attended_indices),
    Mistake("most_attended", "returns a numpy array of strings instead of a list", most_attended_numpy_array),
    Mistake("most_attended", "takes the last entry of a stable ascending "
            "argsort, which picks the later of tied weights", most_attended_sorted_last),
    Mistake("most_attended", "keys a dict by word, so a repeated word keeps only its last column's weight",
            most_attended_dict_by_word),
    # 12 attention_entropy
    Mistake("attention_entropy", "uses log base 2 (bits) instead of the natural log (nats)", entropy_in_bits),
    Mistake("attention_entropy", "computes A * log(A) directly: zero weights give 0 * -inf = nan",
            entropy_zero_log_zero),
    Mistake("attention_entropy", "drops the minus sign: returns sum A log A, which is negative", entropy_no_minus),
    Mistake("attention_entropy", "averages A log A over the keys instead of summing (divides by n_k)",
            entropy_mean_not_sum),
    Mistake("attention_entropy", "sums along axis 0 (one value per key) instead of along each row",
            entropy_over_columns),
    Mistake("attention_entropy", "divides by log(n_k): returns the normalised entropy instead of nats",
            entropy_normalised),
    Mistake("attention_entropy", "returns log of the number of nonzero weights, exact only for evenly spread rows",
            entropy_log_of_count),
    # 13 padding_mask
    Mistake("padding_mask", "off by one: the mask starts at column n_valid - 1, hiding the last real token",
            padding_mask_hides_last_real),
    Mistake("padding_mask", "off by one: the mask starts at column n_valid + 1, "
            "leaving the first padding column visible", padding_mask_one_based),
    Mistake("padding_mask", "returns the transpose, shape (n_k, n_q), with the padding rows masked",
            padding_mask_transposed),
    Mistake("padding_mask", "masks the query rows i >= n_valid instead of the key columns j >= n_valid",
            padding_mask_hides_query_rows),
    Mistake("padding_mask", "returns a boolean mask (True on padding) instead of the additive 0.0 / -inf floats",
            padding_mask_boolean),
    Mistake("padding_mask", "uses -1e9 on the padding instead of -inf", padding_mask_minus_1e9),
    Mistake("padding_mask", "adds a causal mask on top, although padding hides the same columns in every row",
            padding_mask_plus_causal),
    Mistake("padding_mask", "allocates an integer array (dtype=int), so assigning -inf raises OverflowError",
            padding_mask_int_zeros),
    Mistake("padding_mask", "returns one (n_k,) row instead of the (n_q, n_k) matrix", padding_mask_one_row),
    # 13 cross_attention
    Mistake("cross_attention", "applies a causal mask although cross-attention has none", cross_attention_causal),
    Mistake("cross_attention", "sides swapped: queries from Z and keys and values from X (shape (n_z, d_v))",
            cross_attention_sides_swapped),
    Mistake("cross_attention", "takes the values from X (X @ Wv) instead of from Z", cross_attention_values_from_X),
    Mistake("cross_attention", "scales by sqrt(d_model) (X.shape[1]) instead of sqrt(d_head)",
            cross_attention_scale_d_model),
    Mistake("cross_attention", "never divides the scores by sqrt(d_head)", cross_attention_unscaled),
    Mistake("cross_attention", "softmax along axis 0 (over the queries) instead of over the keys",
            cross_attention_softmax_over_queries),
    Mistake("cross_attention", "scales by sqrt(d_v) (Wv's width) instead of sqrt(d_head)", cross_attention_scale_d_v),
    # 14 attend_step
    Mistake("attend_step", "no max subtraction before np.exp: huge scores overflow to inf/nan", attend_step_no_max),
    Mistake("attend_step", "scales by sqrt(t) (the number of cached rows) instead of sqrt(d)",
            attend_step_scale_from_t),
    Mistake("attend_step", "leaves out the cache's last row (the new token's own key and value)",
            attend_step_skips_own_row),
    Mistake("attend_step", "never divides the scores by sqrt(d)", attend_step_unscaled),
    Mistake("attend_step", "returns shape (1, d_v) (q kept as a 1 x d matrix) instead of (d_v,)",
            attend_step_keeps_query_axis),
    Mistake("attend_step", "scores q @ K_cache instead of K_cache @ q (only runs when t == d, then wrong)",
            attend_step_q_times_K),
    # 14 cache_step
    Mistake("cache_step", "puts k and v in front of the caches (first row) instead of appending them as the last row",
            cache_step_prepends),
    Mistake("cache_step", "attends over the grown caches but returns the old, unextended K_cache and V_cache",
            cache_step_returns_old_caches),
    Mistake("cache_step", "attends before appending, so q never sees its own k and v (fails on an empty cache)",
            cache_step_attends_before_append),
    Mistake("cache_step", "returns (o, V_new, K_new): the two caches in swapped order", cache_step_returns_V_before_K),
    Mistake("cache_step", "np.append without axis flattens the caches to 1-D arrays", cache_step_np_append_flattens),
    Mistake("cache_step", "divides q in place (q /= sqrt(d)), changing the caller's q", cache_step_scales_q_in_place),
    # 14 sample_next
    Mistake("sample_next", "at temperature 0 takes np.argsort(logits)[-1], the "
            "last of tied maxima instead of the first", sample_next_last_of_ties),
    Mistake("sample_next", "multiplies the logits by the temperature instead of dividing",
            sample_next_multiplies_temperature),
    Mistake("sample_next", "np.searchsorted with the default side='left' picks the first running total >= u, not > u "
            "(a zero-probability token can be drawn at u = 0)", sample_next_at_least_u),
    Mistake("sample_next", "does not rescale the running total to end at exactly 1, so a u above the "
            "rounded total returns vocab (out of range)", sample_next_total_not_rescaled),
    Mistake("sample_next", "no max subtraction: exp(logits / temperature) overflows "
            "for logits around 1e4 or a tiny temperature", sample_next_no_max_shift),
    Mistake("sample_next", "applies the temperature as softmax(logits) ** (1/T), which underflows to 0/0 at T = 1e-8",
            sample_next_sharpens_probabilities),
    Mistake("sample_next", "returns a numpy integer (np.argmax / np.searchsorted result) instead of a Python int",
            sample_next_numpy_integer),
    Mistake("sample_next", "no greedy case: at temperature 0 it divides by 0 instead of returning the argmax",
            sample_next_no_greedy_case),
    Mistake("sample_next", "ignores u and draws with its own np.random.default_rng(0).choice",
            sample_next_own_random_draw),
    # 14 top_k_filter
    Mistake("top_k_filter", "keeps logits strictly greater than the k-th "
            "largest, dropping the k-th itself and its ties", top_k_strictly_above),
    Mistake("top_k_filter", "keeps exactly the k indices of argsort, so ties at the k-th value are cut arbitrarily",
            top_k_exactly_k_indices),
    Mistake("top_k_filter", "takes the threshold from the ascending sort, np.sort(logits)[k - 1]: the k-th smallest",
            top_k_kth_smallest),
    Mistake("top_k_filter", "does not clamp k to vocab: IndexError when k > vocab", top_k_no_clamp),
    Mistake("top_k_filter", "writes -inf into logits in place and returns the caller's array", top_k_in_place),
    Mistake("top_k_filter", "sets the dropped tokens to 0 instead of -inf", top_k_zeros_for_the_rest),
    Mistake("top_k_filter", "takes the k-th largest distinct value "
            "(sorted(set(...))), keeping too many when values repeat", top_k_distinct_values),
    # 14 top_p_filter
    Mistake("top_p_filter", "keeps only tokens whose running total is < p, dropping the token that reaches p (nothing "
            "kept when the top token alone exceeds p)", top_p_stops_before_p),
    Mistake("top_p_filter", "keeps tokens whose running total is <= p, dropping the token that crosses p",
            top_p_total_at_most_p),
    Mistake("top_p_filter", "stops at the first running total > p (searchsorted side='right'), keeping one token "
            "too many when the total reaches p exactly", top_p_one_past_exact_p),
    Mistake("top_p_filter", "softmax without subtracting the max: np.exp overflows for logits around 1e300",
            top_p_no_max_shift),
    Mistake("top_p_filter", "ranks from the least probable up (ascending "
            "argsort) instead of from the most probable down", top_p_least_probable_first),
    Mistake("top_p_filter", "ranks by a reversed ascending stable argsort, so of two "
            "equal probabilities the higher id comes first", top_p_reversed_ascending_sort),
    Mistake("top_p_filter", "no special case for p = 1: tokens whose probability rounds to 0 are cut",
            top_p_no_special_case_for_one),
    Mistake("top_p_filter", "writes -inf into logits in place and returns the caller's array", top_p_in_place),
    Mistake("top_p_filter", "writes the kept logits into the first n slots (rank order) instead of at their token ids",
            top_p_writes_in_rank_order),
    Mistake("top_p_filter", "casts the logits to float32 first, so logits around 1e300 become inf and the softmax nan",
            top_p_float32),
    # 14 generate
    Mistake("generate", "feeds the last new token through cache_step too: one call more than needed",
            generate_feeds_the_last_token),
    Mistake("generate", "restarts with empty caches and re-feeds the whole "
            "sequence for every new token (no cache reuse)", generate_without_the_cache),
    Mistake("generate", "computes its own attention over its own K and V instead of calling the cache_step it is given",
            generate_own_attention),
    Mistake("generate", "logits from the attention output alone, o @ W_out, without the residual x",
            generate_logits_from_attention_only),
    Mistake("generate", "logits from x alone, x @ W_out: the attention output o is dropped",
            generate_logits_skip_attention),
    Mistake("generate", "every generated token gets position T (the position "
            "counter does not advance after the prompt)", generate_position_not_advanced),
    Mistake("generate", "counts positions from 1: the token at index i gets pos_emb[i + 1]",
            generate_positions_from_one),
    Mistake("generate", "x = tok_emb[t] is a view, so x += pos_emb[i] writes into p['tok_emb']",
            generate_adds_into_tok_emb),
    Mistake("generate", "returns only the n_new generated tokens, without the prompt",
            generate_returns_new_tokens_only),
    Mistake("generate", "returns a float array (filled into np.zeros) instead of an int array", generate_float_array),
    Mistake("generate", "computes the keys with Wq instead of Wk (copy-paste)", generate_keys_from_Wq),
    Mistake("generate", "the generation loop runs range(1, n_new): one new token short", generate_one_token_short),
    # 14 kv_cache_bytes
    Mistake("kv_cache_bytes", "counts the keys only: forgets the factor 2 for the values", kv_cache_bytes_keys_only),
    Mistake("kv_cache_bytes", "ignores batch", kv_cache_bytes_no_batch),
    Mistake("kv_cache_bytes", "hard-codes 2 bytes per number, ignoring bytes_per_value",
            kv_cache_bytes_two_bytes_always),
    Mistake("kv_cache_bytes", "returns np.prod(...): a np.int64, not a Python int, which wraps past 2**63",
            kv_cache_bytes_np_prod),
    Mistake("kv_cache_bytes", "returns GiB (divides by 2**30, a float) instead of bytes", kv_cache_bytes_in_gib),
    # 14 max_cached_tokens
    Mistake("max_cached_tokens", "float division then int(): rounds wrongly for memories or models beyond 2**53",
            max_cached_tokens_float_division),
    Mistake("max_cached_tokens", "rounds memory / bytes_per_token to the nearest integer instead of flooring it",
            max_cached_tokens_rounds),
    Mistake("max_cached_tokens", "returns floor + 1, the first length that does not fit, instead of the last that does",
            max_cached_tokens_first_too_long),
    Mistake("max_cached_tokens", "computes in np.int64: returns a numpy "
            "integer and overflows for memories beyond 2**63", max_cached_tokens_int64),
    Mistake("max_cached_tokens", "forgets the factor 2 for K and V, so twice the tokens are said to fit",
            max_cached_tokens_keys_only),
    Mistake("max_cached_tokens", "returns at least 1 (max(1, ...)) even when not one token fits",
            max_cached_tokens_at_least_one),
    # 15 previous_token_score
    Mistake("previous_token_score", "averages over t = 0 .. T-1, so row 0 adds A[0, -1] (the last column) to the mean",
            previous_token_includes_row_zero),
    Mistake("previous_token_score", "reads the diagonal above the main one, "
            "A[t, t+1] (the future), instead of A[t, t-1]", previous_token_above_diagonal),
    Mistake("previous_token_score", "returns the sum over t = 1 .. T-1 instead of the mean", previous_token_sum),
    Mistake("previous_token_score", "divides the sum by T instead of T - 1", previous_token_divides_by_T),
    Mistake("previous_token_score", "no case for T = 1: the mean of an empty diagonal is nan instead of 0.0",
            previous_token_no_edge_case),
    Mistake("previous_token_score", "averages the whole block A[1:, :-1] instead of its diagonal",
            previous_token_block_mean),
    # 15 prefix_matching_score
    Mistake("prefix_matching_score", "adds A[t, j] (the earlier copy itself) "
            "instead of A[t, j + 1] (the token after it)", prefix_matching_on_the_copy),
    Mistake("prefix_matching_score", "uses only the most recent earlier copy instead of adding over all copies",
            prefix_matching_latest_copy_only),
    Mistake("prefix_matching_score", "uses only the first earlier copy instead of adding over all copies",
            prefix_matching_first_copy_only),
    Mistake("prefix_matching_score", "averages A[t, j + 1] over the copies instead of summing them",
            prefix_matching_averages_copies),
    Mistake("prefix_matching_score", "divides by T (all positions) instead of by the "
            "number of positions with an earlier copy", prefix_matching_mean_over_all_positions),
    Mistake("prefix_matching_score", "no case for sequences without repeats: the mean of nothing is nan instead of 0.0",
            prefix_matching_nan_without_repeats),
    Mistake("prefix_matching_score", "indexes A[j + 1, t] instead of A[t, j + 1] (row and column swapped)",
            prefix_matching_indices_swapped),
    Mistake("prefix_matching_score", "compares j <= t, so every position counts itself as an earlier copy",
            prefix_matching_counts_itself),
    # 15 ablate_head
    Mistake("ablate_head", "zeroes the rows in Wo itself and returns it, changing the model's weights",
            ablate_head_in_place),
    Mistake("ablate_head", "copies with Wo[:], which is a view in numpy, so the caller's Wo is zeroed too",
            ablate_head_slice_copy),
    Mistake("ablate_head", "zeroes the columns h*d_head:(h+1)*d_head instead of the rows", ablate_head_columns),
    Mistake("ablate_head", "counts heads from 1: zeroes the rows of head - 1 (and nothing for head 0)",
            ablate_head_one_based),
    Mistake("ablate_head", "end bound off by one: also zeroes row (h+1)*d_head, the next head's first row",
            ablate_head_inclusive_end),
    Mistake("ablate_head", "takes d_head = Wo.shape[1] // n_heads from the columns (d_model) instead of the rows",
            ablate_head_d_head_from_columns),
    Mistake("ablate_head", "zeroes the strided rows head::n_heads instead of a contiguous block",
            ablate_head_strided_rows),
    # 16 capstone (each entry: the dict of ops, all correct except the op(s) named)
    Mistake("capstone", "embed adds the last n rows of pos_emb (pos_emb[-n:]) instead of the first n",
            _ops(embed=embed_last_positions)),
    Mistake("capstone", "cross_entropy's dlogits is not divided by n (gradient of the summed loss, loss is the mean)",
            _ops(cross_entropy=ce_gradient_not_averaged)),
    Mistake("capstone", "next_token_logits uses the first row H[0] instead of the last row",
            _ops(next_token_logits=next_token_logits_first_row)),
    Mistake("capstone", "gelu uses sqrt(2 * pi) instead of sqrt(2 / pi)", _ops(gelu=gelu_sqrt_two_pi)),
    Mistake("capstone", "layer_norm centres X in place (X -= mean), overwriting its input",
            _ops(layer_norm=layer_norm_centres_in_place)),
    Mistake("capstone", "softmax_backward uses only the Jacobian's diagonal, A * (1 - A) * "
            "dA, and attention_backward is built on it",
            _ops(softmax_backward=softmax_backward_diagonal_only,
                 attention_backward=capstone_attention_backward_on_its_softmax_backward)),
    Mistake("capstone", "attention_backward forgets the scale s in dS (dQ and dK sqrt(d) times too large)",
            _ops(attention_backward=ab_forgets_scale)),
    Mistake("capstone", "cache_step puts k and v in front of the caches instead of appending them as the last row",
            _ops(cache_step=cache_step_prepends)),
    Mistake("capstone", "sample_next searches with side='left' (first running total >= u instead of > u)",
            _ops(sample_next=sample_next_at_least_u)),
    Mistake("capstone", "transformer_block drops the residual around the MLP",
            _ops(transformer_block=block_no_mlp_residual)),
    Mistake("capstone", "multi_head_attention merges the heads with reshape(n, -1) without moving the head axis back",
            _ops(multi_head_attention=mha_merges_without_transpose)),
    Mistake("capstone", "attention masks by setting future scores to 0 instead of -inf",
            _ops(attention=attention_zeroes_future_scores)),
    Mistake("capstone", "layer_norm_backward drops the variance term - xhat * mean(dxhat * xhat) from dX",
            _ops(layer_norm_backward=lnb_no_variance_term)),
    Mistake("capstone", "softmax divides by the sum over the whole array instead of along the axis "
            "(only softmax, layer_norm and gelu written)",
            {"softmax": softmax_global_sum, "layer_norm": _layer_norm, "gelu": _gelu}),
    Mistake("capstone", "cross_entropy shifts the targets by one (logits[:-1] against targets[1:])",
            _ops(cross_entropy=ce_shifts_targets)),
    Mistake("capstone", "embed adds the word vectors into a view of pos_emb, overwriting the model's position table",
            _ops(embed=embed_adds_into_pos_table)),
]

ACCEPTABLE = [
    Mistake("project", "column-vector form W.T @ x with x as a (d_in, 1) column", project_ok_column_vectors),
    Mistake("compose", "projects each basis vector through W1 then W2 and stacks the results",
            compose_ok_through_basis),
    Mistake("project_rows", "projects row by row in a list comprehension", project_rows_ok_loop),
    Mistake("matmul_cost", "casts each size to int before multiplying", matmul_cost_ok_cast),
    Mistake("values", "projects each word's vector separately", values_ok_row_by_row),
    Mistake("one_hot", "compares ids[:, None] with arange(vocab_size) and casts to float", one_hot_ok_compare),
    Mistake("uniform_causal_weights", "double loop filling 1/(i+1)", ucw_ok_loops),
    Mistake("causal_average", "the uniform causal weights matrix times V", ca_ok_weights),
    Mistake("similarity", "double loop of np.dot", similarity_ok_loops),
    Mistake("learned_scores", "one chain X @ Wq @ Wk.T @ X.T", learned_scores_ok_chain),
    Mistake("causal_mask", "np.where on index grids", causal_mask_ok_where),
    Mistake("softmax", "exp(S - logsumexp(S)) along axis", softmax_ok_logsumexp),
    Mistake("score_scale", "d ** -0.5", score_scale_ok_power),
    Mistake("attention_weights", "the last n_q rows of the (n_k, n_k) causal mask", aw_ok_slice_of_square_mask),
    Mistake("attention", "row loop over queries, each over its visible keys", attention_ok_row_loop),
    Mistake("self_attention", "folds Wo into the value projection: X @ (Wv @ Wo)", self_attention_ok_Wo_folded),
    Mistake("future_leak", "tries distances from the largest down and returns the first that leaks",
            future_leak_ok_largest_first),
    Mistake("tiled_attention", "1-D running statistics, skips key tiles entirely in the future",
            tiled_ok_skips_future_tiles),
    Mistake("tiled_attention", "additive np.where mask per tile, in-place updates of the running state",
            tiled_ok_key_loop_first),
    Mistake("embed", "one-hot matrix times tok_emb, plus the first n position rows", embed_ok_one_hot_product),
    Mistake("sinusoidal_positions", "stacks sin and cos on a new last axis and reshapes to interleave",
            sinusoidal_ok_stacked),
    Mistake("split_heads", "np.stack(np.split(M, n_heads, axis=1))", split_heads_ok_np_split),
    Mistake("multi_head_attention", "sums each head's output times its own rows of Wo", mha_ok_sum_over_heads),
    Mistake("layer_norm", "row loop with explicit sums", layer_norm_ok_row_loop),
    Mistake("gelu", "factors x out of the cubic: 0.5 x (1 + tanh(c x (1 + 0.044715 x x)))", gelu_ok_expanded),
    Mistake("transformer_block", "uses the learner's own exercise-09 multi-head attention instead of the given one",
            block_ok_own_heads),
    Mistake("next_token_logits", "W_vocab.T @ H[n - 1]", next_token_logits_ok_column_thinker),
    Mistake("cross_entropy", "row loop with a per-row log-sum-exp", ce_ok_row_loop),
    Mistake("cross_entropy", "np.take_along_axis for the target logits, loss as a Python float", ce_ok_take_along_axis),
    Mistake("softmax_backward", "explicit Jacobian per row after flattening the leading axes",
            softmax_backward_ok_jacobian_rows),
    Mistake("attention_backward", "einsum throughout, mask through np.where", ab_ok_einsum),
    Mistake("attention_backward", "one query row at a time, accumulating dK and dV", ab_ok_per_query),
    Mistake("layer_norm_backward", "row loop with np.dot, accumulating dg and db", lnb_ok_row_loop),
    Mistake("most_attended", "double loop with a strict > comparison", most_attended_ok_loop),
    Mistake("attention_entropy", "np.log with where=A > 0 into a zero array", entropy_ok_masked_log),
    Mistake("padding_mask", "one row from np.where, tiled n_q times", padding_mask_ok_where_tile),
    Mistake("cross_attention", "einsum with scale from Wq's width", cross_attention_ok_einsum),
    Mistake("attend_step", "loops over the cached rows", attend_step_ok_loop),
    Mistake("cache_step", "np.append(..., [k], axis=0)", cache_step_ok_append_axis0),
    Mistake("sample_next", "explicit running total and first-max loop", sample_next_ok_running_total),
    Mistake("top_k_filter", "threshold from np.partition", top_k_ok_partition),
    Mistake("top_p_filter", "loop over tokens ranked by (-p, id) until the total reaches p", top_p_ok_loop),
    Mistake("top_p_filter", "np.argmax(cum >= p) for the cut", top_p_ok_argmax_reached),
    Mistake("generate", "a feed() helper, prompt loop then generation loop", generate_ok_two_loops),
    Mistake("generate", "preallocated int array, argmax of the softmax of the logits", generate_ok_preallocated),
    Mistake("kv_cache_bytes", "loop multiplying Python ints", kv_cache_bytes_ok_loop),
    Mistake("max_cached_tokens", "integer bisection on the largest length that fits", max_cached_tokens_ok_bisection),
    Mistake("previous_token_score", "loop sum divided by T - 1", previous_token_ok_loop),
    Mistake("prefix_matching_score", "dict of earlier positions per token", prefix_matching_ok_seen_positions),
    Mistake("ablate_head", "concatenates the head blocks with a zero block in place of the head",
            ablate_head_ok_concatenate),
    Mistake("capstone", "every op written, all correct", dict(_CAPSTONE_OPS)),
    Mistake("capstone", "every op written in another correct form (loops, einsum, batched heads)",
            dict(_CAPSTONE_OPS_OTHER_FORMS)),
]
