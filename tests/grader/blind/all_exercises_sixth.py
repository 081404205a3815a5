"""Blind set 6: realistic learner mistakes for every graded exercise of "Rediscovering Attention".

What is covered
---------------
All 51 check names of exercises 01-18, plus the capstone of exercise 19:
  01 project, compose
  02 project_rows, matmul_cost
  03 values, one_hot
  04 uniform_causal_weights, causal_average
  05 similarity, learned_scores
  06 causal_mask, softmax, score_scale, attention_weights
  07 attention, self_attention, future_leak, tiled_attention
  08 embed, sinusoidal_positions
  09 split_heads, multi_head_attention
  10 layer_norm, gelu, transformer_block
  11 next_token_logits, cross_entropy, softmax_backward, attention_backward, layer_norm_backward
  12 most_attended, attention_entropy
  13 padding_mask, cross_attention
  14 attend_step, cache_step, sample_next, top_k_filter, top_p_filter, generate, kv_cache_bytes,
     max_cached_tokens
  15 previous_token_score, prefix_matching_score, ablate_head
  16 rope, rope_attention
  17 grouped_query_attention, grouped_cache_step
  18 sliding_window_mask, rolling_cache_step
  19 capstone (fn is a dict over every name of attnlib.learner_ops.NAMES: all ops right but one)

How it was written
------------------
Blind to the grader: written only from the exercise notebooks' task text and stub signatures, the
lesson notebooks, README.md and attnlib's top-level maths modules. Nothing under attnlib/checks,
tests, solutions, workspace, grading or classroom was opened or run. Each MISTAKE is one module-level
learner function <check>__<slug> with the exercise's exact signature; each ACCEPTABLE is a right
answer <check>_ok_<slug> written in a different style from the obvious one. Private helpers (_sm,
_attention, _attend, _attend_step, _ln, _gelu, _split, ...) stand for the correct functions a
learner already has "from above" or that the notebook gives (attend, attend_step); exercise 10's
block uses attnlib's multi_head_attention, as that notebook says.

Habits imitated (different from sets 1-5)
-----------------------------------------
- MATLAB/Julia users: 1-based ids, heads, positions and targets; column-major reshapes (order='F');
  ' read as a transpose (W2' * W1', Q' * K); cumsum/sum/max along MATLAB's default dimension;
  inclusive end indices used as Python slice ends; x^3 for a power.
- Hard-coders of the running example or a default: n = 6 ("the cat sat on the mat"), 256 outputs,
  d_k = 64, eps = 1e-5, theta = 10000, batch = 1, the causal flag's default.
- Paper readers with another convention: x' = Wx, FLOPs as 2 per multiply-add, d_model instead of
  d_head in the scale, post-LN, RMSNorm, eps outside the root, exact erf GELU and x*sigmoid(1.702x),
  half-split (NeoX) rotary pairs, half-split sinusoids, Bessel 1/sqrt(d-1), [CLS]-style first row,
  left padding, symmetric (Longformer) windows, round-robin GQA groups.
- Over-vectorisers: None / keepdims on the wrong axis, np.tril/np.triu with the wrong k, reshape
  without transpose, np.append without axis, np.diag with the wrong offset.
- Argument-order and return-order confusions: K @ Q.T, swapped X/Z roles, softmax_backward(dA, A),
  (dlogits, loss), (K, V, o), g and b swapped.
- Shadowers: n reused for column counts, X overwritten by its layer norm, the parameter dict p
  reused for the probabilities.
- "To be safe" normalisers/rescalers: unit vectors, cosine similarity, centring the batch,
  symmetrised scores, normalised entropy, rescaled composition, averaged gradients.
- Edge-case handlers: T = 1 and no-repeat means of empty lists, t = 0 caches, ties at boundaries,
  k > vocab, p = 1, u just below 1, window >= n, huge and tiny scores (global max, mean shift,
  first-score shift, running max starting at 0).
- Literal misreaders: the rows "before" a token without itself, the moved row's index instead of
  the distance, the smallest instead of the largest leak, log of the support, padded rows masked,
  sinks kept on top of the window, the oldest rows kept, only the new tokens returned.
Subtle mistakes (wrong only on some inputs: n_q < n_k, ties, non-default eps/theta/batch, exact
fits, huge values) are mixed with blatant ones (wrong shape, raising).

How it was verified
-------------------
A separate script (verify.py, not part of this set) has a reference for every check name
(attnlib's public function where one exists, else written from the exercise text) and runs every
entry on targeted inputs (sizes 1, n_q < n_k, ties, scores near +-1000 and 1e4, logits near 1e300,
t = 0 caches, T = 1, window >= n, exact memory fits, sizes beyond int64, non-default eps/theta/
batch, tiny leaks) plus about 50 random inputs per name. Every mistake differs from the reference
on at least one input (value beyond 1e-6 relative to the array's scale, shape, a required Python
type, raising, or a modified input); every acceptable entry matches to 1e-9 on all inputs and
leaves its inputs unchanged. The capstone dicts were run in TinyLM(ops=...) for 3 training steps
and greedy and sampled generation, with learned positions, positions="rope", n_kv_heads=1 and
window=4/n_sinks=1 (ops a configuration refuses left out): the acceptable dict matches attnlib's
model in every configuration; 8 of the 10 mistake dicts change the loss or the tokens, and the
other two (cross_entropy's unaveraged gradient, which Adam absorbs, and sample_next's multiplied
temperature, equal at temperature 1) are visible only through their op's own exercise check.

Counts per exercise (mistakes; plus exactly one acceptable answer each)
-----------------------------------------------------------------------
project 4, compose 4, project_rows 4, matmul_cost 4, values 4, one_hot 4, uniform_causal_weights 4
causal_average 4, similarity 4, learned_scores 4, causal_mask 4, softmax 4, score_scale 4
attention_weights 4, attention 4, self_attention 4, future_leak 4, tiled_attention 4
embed 4, sinusoidal_positions 4, split_heads 4, multi_head_attention 4, layer_norm 5
gelu 4, transformer_block 4, next_token_logits 4, cross_entropy 5, softmax_backward 4
attention_backward 5, layer_norm_backward 4, most_attended 4, attention_entropy 4
padding_mask 4, cross_attention 4, attend_step 4, cache_step 4, sample_next 4, top_k_filter 4
top_p_filter 4, generate 5, kv_cache_bytes 4, max_cached_tokens 4, previous_token_score 4
prefix_matching_score 4, ablate_head 4, rope 4, rope_attention 4, grouped_query_attention 4
grouped_cache_step 4, sliding_window_mask 4, rolling_cache_step 4, capstone 10
Total: 218 mistakes (208 for the 51 check names, 10 capstone), 52 acceptable answers.
"""
from dataclasses import dataclass
from typing import Callable
import math

import numpy as np

from attnlib import multi_head_attention as _given_mha  # exercise 10 gives attnlib's multi_head_attention


@dataclass(frozen=True)
class Mistake:
    exercise: str  # the exercise's check name, e.g. "causal_mask"
    what: str      # one precise plain-English line naming the mistake, as an ideal grader would
    fn: Callable   # the learner's function, with the exercise's exact signature (for the capstone: the dict of ops)


# ---------------------------------------------------------------------------
# private helpers: correct building blocks a learner has "from above" (their own softmax, attend, ...)

def _sm(S, axis=-1):
    m = np.max(S, axis=axis, keepdims=True)
    E = np.exp(S - m)
    return E / E.sum(axis=axis, keepdims=True)


def _offset_mask(n_q, n_k):
    """(n_q, n_k) additive mask, queries are the last n_q positions."""
    j = np.arange(n_k)[None, :]
    i = np.arange(n_q)[:, None] + (n_k - n_q)
    return np.where(j > i, -np.inf, 0.0)


def _attention(Q, K, V, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(Q.shape[1])
    if causal:
        S = S + _offset_mask(Q.shape[0], K.shape[0])
    return _sm(S) @ V


def _attend(Q, K, V, causal=True):
    """The notebook's helper (exercises 09 and 17)."""
    S = Q @ K.T / np.sqrt(Q.shape[1])
    if causal:
        S = S + np.triu(np.full(S.shape, -np.inf), k=1)
    E = np.exp(S - S.max(axis=1, keepdims=True))
    return (E / E.sum(axis=1, keepdims=True)) @ V


def _attend_step(q, K_cache, V_cache):
    """The notebook's helper (exercise 18)."""
    s = K_cache @ q / np.sqrt(q.shape[0])
    a = np.exp(s - s.max())
    return (a / a.sum()) @ V_cache


def _ln(X, g, b, eps=1e-5):
    mu = X.mean(axis=1, keepdims=True)
    var = ((X - mu) ** 2).mean(axis=1, keepdims=True)
    return (X - mu) / np.sqrt(var + eps) * g + b


def _gelu(X):
    return 0.5 * X * (1 + np.tanh(np.sqrt(2 / np.pi) * (X + 0.044715 * X ** 3)))


def _split(M, n_heads):
    n, d_model = M.shape
    return M.reshape(n, n_heads, d_model // n_heads).transpose(1, 0, 2)


# ===========================================================================
# 01 project
def project__column_vector_Wx(x, W):
    # textbook x' = Wx, column vectors
    return W @ x


def project__broadcast_wrong_axis(x, W):
    return (x[None, :] * W).sum(axis=0)


def project__unit_length(x, W):
    y = x @ W
    return y / np.linalg.norm(y)


def project__hardcoded_256(x, W):
    out = np.zeros(256)  # "128 numbers in, 256 out"
    for j in range(256):
        out[j] = np.sum(x * W[:, j])
    return out


def project_ok_loops(x, W):
    d_in, d_out = W.shape
    out = np.zeros(d_out)
    for j in range(d_out):
        for i in range(d_in):
            out[j] += x[i] * W[i, j]
    return out


# 01 compose
def compose__textbook_order(W1, W2):
    # W = W2 W1, as for column vectors
    return W2 @ W1


def compose__matlab_primes(W1, W2):
    # W = W2' * W1'
    return W2.T @ W1.T


def compose__rescaled_by_dmid(W1, W2):
    return W1 @ W2 / np.sqrt(W1.shape[1])


def compose__dot_with_transpose(W1, W2):
    return np.dot(W1, W2.T)


def compose_ok_einsum(W1, W2):
    return np.einsum("im,mo->io", W1, W2)


# 02 project_rows
def project_rows__fortran_reshape(X, W):
    n, d_out = X.shape[0], W.shape[1]
    flat = np.zeros(n * d_out)
    k = 0
    for i in range(n):
        for j in range(d_out):
            flat[k] = X[i] @ W[:, j]
            k += 1
    return flat.reshape((n, d_out), order="F")


def project_rows__hardcoded_six_rows(X, W):
    Y = np.zeros((6, W.shape[1]))  # one row per word of "the cat sat on the mat"
    for i in range(len(X)):
        Y[i] = X[i] @ W
    return Y


def project_rows__centred_batch(X, W):
    return (X - X.mean(axis=0)) @ W


def project_rows__column_major_result(X, W):
    return W.T @ X.T


def project_rows_ok_stack(X, W):
    return np.stack([np.dot(x, W) for x in X]).reshape(X.shape[0], W.shape[1])


# 02 matmul_cost
def matmul_cost__flops_two_per_mac(n, d_in, d_out):
    return 2 * n * d_in * d_out


def matmul_cost__square_weights(n, d_in, d_out):
    return n * d_in * d_in


def matmul_cost__numpy_prod(n, d_in, d_out):
    return np.prod([n, d_in, d_out])


def matmul_cost__dot_products_only(n, d_in, d_out):
    return n * d_out


def matmul_cost_ok_sum(n, d_in, d_out):
    per_row = int(d_in) * int(d_out)
    return int(n) * per_row


# 03 values
def values__repeats_dropped(tokens, table, Wv):
    words = list(dict.fromkeys(tokens))
    X = np.array([table[w] for w in words])
    return X @ Wv


def values__table_order(tokens, table, Wv):
    X = np.array(list(table.values()))
    return X @ Wv


def values__matlab_transpose(tokens, table, Wv):
    X = np.array([table[w] for w in tokens])
    return X @ Wv.T


def values__unit_word_vectors(tokens, table, Wv):
    X = np.array([table[w] / np.linalg.norm(table[w]) for w in tokens])
    return X @ Wv


def values_ok_rowwise(tokens, table, Wv):
    return np.vstack([np.asarray(table[w], dtype=float) @ Wv for w in tokens]).reshape(len(tokens), Wv.shape[1])


# 03 one_hot
def one_hot__one_based_ids(ids, vocab_size):
    out = np.zeros((len(ids), vocab_size))
    for i, t in enumerate(ids):
        out[i, t - 1] = 1.0  # ids counted from 1
    return out


def one_hot__eye_columns(ids, vocab_size):
    return np.eye(vocab_size)[:, ids]


def one_hot__int_dtype(ids, vocab_size):
    return np.eye(vocab_size, dtype=int)[ids]


def one_hot__width_from_max_id(ids, vocab_size):
    return np.eye(int(np.max(ids)) + 1)[ids]


def one_hot_ok_compare(ids, vocab_size):
    return (np.asarray(ids)[:, None] == np.arange(vocab_size)[None, :]).astype(np.float64)


# 04 uniform_causal_weights
def uniform_causal_weights__divide_columns(n):
    return np.tril(np.ones((n, n))) / np.arange(1, n + 1)[None, :]


def uniform_causal_weights__strict_lower(n):
    A = np.tril(np.ones((n, n)), k=-1)
    return A / np.maximum(A.sum(axis=1, keepdims=True), 1)


def uniform_causal_weights__upper_triangle(n):
    return np.triu(np.ones((n, n))) / np.arange(1, n + 1)[None, :]


def uniform_causal_weights__column_counts(n):
    A = np.tril(np.ones((n, n)))
    n = A.sum(axis=0)  # how many ones ... per column
    return A / n[:, None]


def uniform_causal_weights_ok_loop(n):
    A = np.zeros((n, n))
    for i in range(1, n + 1):
        A[i - 1, :i] = 1 / i
    return A


# 04 causal_average
def causal_average__matlab_cumsum_dim(V):
    return np.cumsum(V, axis=1) / np.arange(1, len(V) + 1)[:, None]


def causal_average__divide_by_n(V):
    return np.cumsum(V, axis=0) / len(V)


def causal_average__counts_unbroadcast(V):
    return np.cumsum(V, axis=0) / np.arange(1, len(V) + 1)


def causal_average__rows_before_only(V):
    out = np.array(V, dtype=float)
    C = np.cumsum(V, axis=0)
    out[1:] = C[:-1] / np.arange(1, len(V))[:, None]
    return out


def causal_average_ok_matrix(V):
    n = V.shape[0]
    A = np.tril(np.ones((n, n)))
    A /= A.sum(axis=1, keepdims=True)
    return A @ V


# 05 similarity
def similarity__keys_first(Q, K):
    return K @ Q.T


def similarity__scaled(Q, K):
    return Q @ K.T / np.sqrt(Q.shape[1])


def similarity__cosine(Q, K):
    Qn = Q / np.linalg.norm(Q, axis=1, keepdims=True)
    Kn = K / np.linalg.norm(K, axis=1, keepdims=True)
    return Qn @ Kn.T


def similarity__matlab_QtK(Q, K):
    return Q.T @ K


def similarity_ok_einsum(Q, K):
    return np.einsum("qd,kd->qk", Q, K)


# 05 learned_scores
def learned_scores__keys_as_queries(X, Wq, Wk):
    Q, K = X @ Wq, X @ Wk
    return K @ Q.T


def learned_scores__symmetrised(X, Wq, Wk):
    S = (X @ Wq) @ (X @ Wk).T
    return (S + S.T) / 2


def learned_scores__scaled_by_d_model(X, Wq, Wk):
    return (X @ Wq) @ (X @ Wk).T / np.sqrt(X.shape[1])


def learned_scores__lower_triangle(X, Wq, Wk):
    return np.tril((X @ Wq) @ (X @ Wk).T)


def learned_scores_ok_bilinear(X, Wq, Wk):
    return X @ (Wq @ Wk.T) @ X.T


# 06 causal_mask
def causal_mask__diagonal_masked(n):
    return np.triu(np.full((n, n), -np.inf), k=0)


def causal_mask__past_masked(n):
    return np.tril(np.full((n, n), -np.inf), k=-1)


def causal_mask__ones_times_inf(n):
    return np.triu(np.ones((n, n)), k=1) * -np.inf


def causal_mask__hardcoded_six(n):
    M = np.triu(np.full((6, 6), -np.inf), k=1)  # the cat sat on the mat
    return M[:n, :n]


def causal_mask_ok_where(n):
    r = np.arange(n)
    return np.where(r[None, :] > r[:, None], -np.inf, 0.0)


# 06 softmax
def softmax__sum_without_keepdims(S, axis=-1):
    E = np.exp(S - np.max(S, axis=axis, keepdims=True))
    return E / E.sum(axis=axis)


def softmax__global_max(S, axis=-1):
    E = np.exp(S - np.max(S))
    return E / E.sum(axis=axis, keepdims=True)


def softmax__axis_ignored(S, axis=-1):
    E = np.exp(S - S.max(axis=-1, keepdims=True))
    return E / E.sum(axis=-1, keepdims=True)


def softmax__shift_by_mean(S, axis=-1):
    E = np.exp(S - np.mean(S, axis=axis, keepdims=True))
    return E / E.sum(axis=axis, keepdims=True)


def softmax_ok_logsumexp(S, axis=-1):
    S = np.asarray(S, dtype=float)
    m = np.max(S, axis=axis, keepdims=True)
    lse = m + np.log(np.sum(np.exp(S - m), axis=axis, keepdims=True))
    return np.exp(S - lse)


# 06 score_scale
def score_scale__sqrt_d(d):
    return float(np.sqrt(d))


def score_scale__one_over_d(d):
    return 1.0 / d


def score_scale__bessel(d):
    return 1.0 / math.sqrt(d - 1)


def score_scale__paper_d_k_64(d):
    return 1.0 / math.sqrt(64)  # d_k = 64 in "Attention Is All You Need"


def score_scale_ok_power(d):
    return float(d) ** -0.5


# 06 attention_weights
def attention_weights__mask_top_left(Q, K, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(Q.shape[1])
    if causal:
        S = S + np.triu(np.full(S.shape, -np.inf), k=1)
    return _sm(S)


def attention_weights__d_from_rows(Q, K, causal=True, scale=True):
    d = Q.shape[0]  # d x n as in the column-major notes
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(d)
    if causal:
        S = S + _offset_mask(Q.shape[0], K.shape[0])
    return _sm(S)


def attention_weights__zero_after_softmax(Q, K, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(Q.shape[1])
    A = _sm(S)
    if causal:
        A = A * np.tril(np.ones(A.shape), k=K.shape[0] - Q.shape[0])
    return A


def attention_weights__offset_sign(Q, K, causal=True, scale=True):
    n_q, n_k = Q.shape[0], K.shape[0]
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(Q.shape[1])
    if causal:
        S = np.where(np.tril(np.ones((n_q, n_k)), k=n_q - n_k) > 0, S, -np.inf)
    return _sm(S)


def attention_weights_ok_tri(Q, K, causal=True, scale=True):
    n_q, n_k = len(Q), len(K)
    S = np.einsum("id,jd->ij", Q, K) * (1 / math.sqrt(Q.shape[1]) if scale else 1.0)
    if causal:
        S = np.where(np.tri(n_q, n_k, k=n_k - n_q, dtype=bool), S, -np.inf)
    S = S - S.max(axis=1, keepdims=True)
    E = np.exp(S)
    return E / np.sum(E, axis=1, keepdims=True)


# 07 attention
def attention__transposed_weights(Q, K, V, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(Q.shape[1])
    if causal:
        S = S + _offset_mask(Q.shape[0], K.shape[0])
    A = _sm(S)
    return A.T @ V


def attention__scaled_by_d_v(Q, K, V, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(V.shape[1])
    if causal:
        S = S + _offset_mask(Q.shape[0], K.shape[0])
    return _sm(S) @ V


def attention__mask_only_when_square(Q, K, V, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(Q.shape[1])
    if causal and Q.shape[0] == K.shape[0]:
        S = S + np.triu(np.full(S.shape, -np.inf), k=1)
    return _sm(S) @ V


def attention__softmax_over_queries(Q, K, V, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(Q.shape[1])
    if causal:
        S = S + _offset_mask(Q.shape[0], K.shape[0])
    return _sm(S, axis=0) @ V


def attention_ok_einsum(Q, K, V, causal=True, scale=True):
    A = attention_weights_ok_tri(Q, K, causal, scale)
    return np.einsum("qk,kv->qv", A, V)


# 07 self_attention
def self_attention__truthy_Wo(X, Wq, Wk, Wv, Wo=None, causal=True):
    O = _attention(X @ Wq, X @ Wk, X @ Wv, causal)
    if Wo:
        O = O @ Wo
    return O


def self_attention__causal_flag_dropped(X, Wq, Wk, Wv, Wo=None, causal=True):
    O = _attention(X @ Wq, X @ Wk, X @ Wv)
    return O if Wo is None else O @ Wo


def self_attention__scaled_by_d_model(X, Wq, Wk, Wv, Wo=None, causal=True):
    S = (X @ Wq) @ (X @ Wk).T / np.sqrt(X.shape[1])
    if causal:
        S = S + _offset_mask(len(X), len(X))
    O = _sm(S) @ (X @ Wv)
    return O if Wo is None else O @ Wo


def self_attention__residual_added(X, Wq, Wk, Wv, Wo=None, causal=True):
    O = _attention(X @ Wq, X @ Wk, X @ Wv, causal)
    if Wo is not None:
        O = O @ Wo
    return X + O


def self_attention_ok_weights_first(X, Wq, Wk, Wv, Wo=None, causal=True):
    A = attention_weights_ok_tri(X @ Wq, X @ Wk, causal=causal)
    Wvo = Wv if Wo is None else Wv @ Wo
    return A @ (X @ Wvo)


# 07 future_leak
def _changed(a, b, ref):
    tol = 1e-9 * max(1.0, float(np.abs(ref).max()))
    return np.abs(a - b).max(axis=1) > tol


def future_leak__counts_pairs(attn, X):
    base = attn(X)
    count = 0
    for j in range(len(X)):
        moved = X.copy()
        moved[j] += 1.0
        ch = _changed(attn(moved), base, base)
        count += int(np.sum(ch[:j]))
    return count


def future_leak__smallest_distance(attn, X):
    base = attn(X)
    best = 0
    for j in range(len(X)):
        moved = X.copy()
        moved[j] += 1.0
        ch = _changed(attn(moved), base, base)
        for i in range(j):
            if ch[i] and (best == 0 or j - i < best):
                best = j - i
    return best


def future_leak__allclose_default(attn, X):
    base = attn(X)
    worst = 0
    for j in range(len(X)):
        moved = X.copy()
        moved[j] += 1.0
        out = attn(moved)
        for i in range(j):
            if not np.allclose(out[i], base[i]):
                worst = max(worst, j - i)
    return worst


def future_leak__returns_input_row(attn, X):
    base = attn(X)
    worst = 0
    for j in range(len(X)):
        moved = X.copy()
        moved[j] += 1.0
        ch = _changed(attn(moved), base, base)
        if ch[:j].any():
            worst = max(worst, j)
    return worst


def future_leak_ok_descending(attn, X):
    X0 = np.array(X, dtype=float, copy=True)
    out0 = np.asarray(attn(X0))
    tol = 1e-9 * max(1.0, np.max(np.abs(out0)))
    n = len(X0)
    for k in range(n - 1, 0, -1):
        for i in range(n - k):
            Y = X0.copy()
            Y[i + k] = Y[i + k] + 1.0
            if np.max(np.abs(np.asarray(attn(Y))[i] - out0[i])) > tol:
                return k
    return 0


# 07 tiled_attention
def _tiled(Q, K, V, causal, block, rescale_acc=True, sign=1.0, m0=-np.inf, offset=True):
    n_q, n_k = Q.shape[0], K.shape[0]
    off = (n_k - n_q) if offset else 0
    O = np.empty((n_q, V.shape[1]))
    s = 1.0 / math.sqrt(Q.shape[1])
    for q0 in range(0, n_q, block):
        Qb = Q[q0:q0 + block] * s
        bq = Qb.shape[0]
        m = np.full((bq, 1), m0)
        l = np.zeros((bq, 1))
        acc = np.zeros((bq, V.shape[1]))
        for k0 in range(0, n_k, block):
            S = Qb @ K[k0:k0 + block].T
            if causal:
                qi = (q0 + np.arange(bq) + off)[:, None]
                kj = (k0 + np.arange(S.shape[1]))[None, :]
                S = np.where(kj > qi, -np.inf, S)
            m_new = np.maximum(m, S.max(axis=1, keepdims=True))
            with np.errstate(invalid="ignore"):
                r = np.exp(sign * (m - m_new))
            r = np.where(np.isneginf(m), 0.0, r) if np.isneginf(m0) else r
            with np.errstate(invalid="ignore"):
                P = np.exp(S - m_new)
            P = np.where(np.isneginf(S), 0.0, P)
            l = l * r + P.sum(axis=1, keepdims=True)
            acc = (acc * r if rescale_acc else acc) + P @ V[k0:k0 + block]
            m = m_new
        O[q0:q0 + bq] = acc / l
    return O


def tiled_attention__acc_not_rescaled(Q, K, V, causal=True, block=64):
    return _tiled(Q, K, V, causal, block, rescale_acc=False)


def tiled_attention__rescale_sign_flipped(Q, K, V, causal=True, block=64):
    return _tiled(Q, K, V, causal, block, sign=-1.0)


def tiled_attention__max_starts_at_zero(Q, K, V, causal=True, block=64):
    return _tiled(Q, K, V, causal, block, m0=0.0)


def tiled_attention__mask_top_left(Q, K, V, causal=True, block=64):
    return _tiled(Q, K, V, causal, block, offset=False)


def tiled_attention_ok_per_query_block(Q, K, V, causal=True, block=64):
    n_q, n_k = len(Q), len(K)
    d_v = V.shape[1]
    out = np.zeros((n_q, d_v))
    c = 1.0 / np.sqrt(Q.shape[1])
    for a in range(0, n_q, block):
        q = Q[a:a + block]
        last = (n_k - n_q + a + len(q)) if causal else n_k  # keys beyond are future for the whole block
        m = np.full(len(q), -np.inf)
        l = np.zeros(len(q))
        acc = np.zeros((len(q), d_v))
        for b in range(0, last, block):
            s = (q @ K[b:b + block].T) * c
            if causal:
                pos_q = n_k - n_q + a + np.arange(len(q))
                pos_k = b + np.arange(s.shape[1])
                s[pos_k[None, :] > pos_q[:, None]] = -np.inf
            m2 = np.maximum(m, s.max(axis=1))
            shrink = np.exp(m - m2)
            p = np.exp(s - m2[:, None])
            l = shrink * l + p.sum(axis=1)
            acc = shrink[:, None] * acc + p @ V[b:b + block]
            m = m2
        out[a:a + len(q)] = acc / l[:, None]
    return out


# 08 embed
def embed__positions_from_one(tokens, tok_emb, pos_emb):
    n = len(tokens)
    return tok_emb[tokens] + pos_emb[1:n + 1]


def embed__positions_indexed_by_token(tokens, tok_emb, pos_emb):
    return tok_emb[tokens] + pos_emb[tokens]


def embed__concatenated(tokens, tok_emb, pos_emb):
    n = len(tokens)
    return np.concatenate([tok_emb[tokens], pos_emb[:n]], axis=1)


def embed__whole_position_table(tokens, tok_emb, pos_emb):
    return tok_emb[tokens] + pos_emb


def embed_ok_take(tokens, tok_emb, pos_emb):
    n = np.asarray(tokens).shape[0]
    return np.take(tok_emb, tokens, axis=0) + np.take(pos_emb, np.arange(n), axis=0)


# 08 sinusoidal_positions
def sinusoidal_positions__half_split(n, d):
    t = np.arange(n)[:, None]
    freq = 10000.0 ** (-2 * np.arange(d // 2) / d)
    return np.concatenate([np.sin(t * freq), np.cos(t * freq)], axis=1)


def sinusoidal_positions__column_index_exponent(n, d):
    P = np.zeros((n, d))
    for t in range(n):
        for j in range(d):
            angle = t / 10000 ** (2 * j / d)  # j is the column
            P[t, j] = np.sin(angle) if j % 2 == 0 else np.cos(angle)
    return P


def sinusoidal_positions__cos_on_even(n, d):
    t = np.arange(n)[:, None]
    a = t / 10000.0 ** (2 * np.arange(d // 2) / d)
    P = np.zeros((n, d))
    P[:, 0::2], P[:, 1::2] = np.cos(a), np.sin(a)
    return P


def sinusoidal_positions__positions_from_one(n, d):
    t = np.arange(1, n + 1)[:, None]
    a = t / 10000.0 ** (2 * np.arange(d // 2) / d)
    P = np.zeros((n, d))
    P[:, 0::2], P[:, 1::2] = np.sin(a), np.cos(a)
    return P


def sinusoidal_positions_ok_stack(n, d):
    t = np.arange(n, dtype=float)
    cols = []
    for i in range(d // 2):
        w = np.exp(-(2 * i / d) * np.log(10000.0))
        cols += [np.sin(t * w), np.cos(t * w)]
    return np.stack(cols, axis=1).reshape(n, d)


# 09 split_heads
def split_heads__reshape_without_transpose(M, n_heads):
    n, d_model = M.shape
    return M.reshape(n_heads, n, d_model // n_heads)


def split_heads__column_major_interleaved(M, n_heads):
    n, d_model = M.shape
    return M.reshape((n, n_heads, d_model // n_heads), order="F").transpose(1, 0, 2)


def split_heads__head_axis_left_in_middle(M, n_heads):
    n, d_model = M.shape
    return M.reshape(n, n_heads, d_model // n_heads)


def split_heads__inclusive_end_as_slice(M, n_heads):
    d_head = M.shape[1] // n_heads
    return np.stack([M[:, h * d_head:(h + 1) * d_head - 1] for h in range(n_heads)])


def split_heads_ok_split(M, n_heads):
    return np.stack(np.split(M, n_heads, axis=1), axis=0)


# 09 multi_head_attention
def multi_head_attention__scaled_by_d_model(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    Q, K, V = _split(X @ Wq, n_heads), _split(X @ Wk, n_heads), _split(X @ Wv, n_heads)
    heads = []
    for h in range(n_heads):
        S = Q[h] @ K[h].T / np.sqrt(Wq.shape[1])
        if causal:
            S = S + np.triu(np.full(S.shape, -np.inf), k=1)
        heads.append(_sm(S) @ V[h])
    return np.concatenate(heads, axis=1) @ Wo


def multi_head_attention__merge_without_transpose(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    Q, K, V = _split(X @ Wq, n_heads), _split(X @ Wk, n_heads), _split(X @ Wv, n_heads)
    O = np.stack([_attend(Q[h], K[h], V[h], causal) for h in range(n_heads)])  # (n_heads, n, d_head)
    return O.reshape(X.shape[0], -1) @ Wo


def multi_head_attention__causal_flag_dropped(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    Q, K, V = _split(X @ Wq, n_heads), _split(X @ Wk, n_heads), _split(X @ Wv, n_heads)
    return np.concatenate([_attend(Q[h], K[h], V[h]) for h in range(n_heads)], axis=1) @ Wo


def multi_head_attention__strided_heads(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    n = X.shape[0]
    d_head = Wq.shape[1] // n_heads

    def heads(M):
        return M.reshape(n, d_head, n_heads).transpose(2, 0, 1)  # head h: columns h, h + n_heads, ...
    Q, K, V = heads(X @ Wq), heads(X @ Wk), heads(X @ Wv)
    return np.concatenate([_attend(Q[h], K[h], V[h], causal) for h in range(n_heads)], axis=1) @ Wo


def multi_head_attention_ok_per_head_wo(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    d_head = Wq.shape[1] // n_heads
    out = np.zeros((X.shape[0], Wo.shape[1]))
    for h in range(n_heads):
        c = slice(h * d_head, (h + 1) * d_head)
        out += _attention(X @ Wq[:, c], X @ Wk[:, c], X @ Wv[:, c], causal) @ Wo[c]
    return out


# 10 layer_norm
def layer_norm__eps_outside_sqrt(X, g, b, eps=1e-5):
    mu = X.mean(axis=1, keepdims=True)
    return (X - mu) / (X.std(axis=1, keepdims=True) + eps) * g + b


def layer_norm__normalises_columns(X, g, b, eps=1e-5):
    mu = X.mean(axis=0)
    var = X.var(axis=0)
    return (X - mu) / np.sqrt(var + eps) * g + b


def layer_norm__rms_norm(X, g, b, eps=1e-5):
    ms = (X ** 2).mean(axis=1, keepdims=True)
    return X / np.sqrt(ms + eps) * g + b


def layer_norm__eps_hardcoded(X, g, b, eps=1e-5):
    mu = X.mean(axis=1, keepdims=True)
    var = X.var(axis=1, keepdims=True)
    return (X - mu) / np.sqrt(var + 1e-5) * g + b


def layer_norm__gain_and_bias_swapped(X, g, b, eps=1e-5):
    mu = X.mean(axis=1, keepdims=True)
    var = X.var(axis=1, keepdims=True)
    return (X - mu) / np.sqrt(var + eps) * b + g


def layer_norm_ok_centred(X, g, b, eps=1e-5):
    C = X - X.sum(axis=1, keepdims=True) / X.shape[1]
    var = np.einsum("ij,ij->i", C, C)[:, None] / X.shape[1]
    return g * (C / np.sqrt(var + eps)) + b


# 10 gelu
def gelu__sigmoid_approximation(X):
    return X / (1 + np.exp(-1.702 * X))


def gelu__exact_erf(X):
    erf = np.vectorize(math.erf)
    return 0.5 * X * (1 + erf(X / np.sqrt(2)))


def gelu__caret_power(X):
    return 0.5 * X * (1 + np.tanh(np.sqrt(2 / np.pi) * (X + 0.044715 * X ^ 3)))


def gelu__math_tanh(X):
    return 0.5 * X * (1 + math.tanh(math.sqrt(2 / math.pi) * (X + 0.044715 * X ** 3)))


def gelu_ok_factored(X):
    X = np.asarray(X, dtype=float)
    c = math.sqrt(2.0 / math.pi)
    return X * (0.5 + 0.5 * np.tanh(c * X * (1.0 + 0.044715 * X * X)))


# 10 transformer_block
def transformer_block__post_ln(X, p, n_heads, causal=True):
    Y = _ln(X + _given_mha(X, p["Wq"], p["Wk"], p["Wv"], p["Wo"], n_heads, causal), p["ln1_g"], p["ln1_b"])
    return _ln(Y + _gelu(Y @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"], p["ln2_g"], p["ln2_b"])


def transformer_block__normed_input_reused(X, p, n_heads, causal=True):
    X = _ln(X, p["ln1_g"], p["ln1_b"])
    Y = X + _given_mha(X, p["Wq"], p["Wk"], p["Wv"], p["Wo"], n_heads, causal)
    return Y + _gelu(_ln(Y, p["ln2_g"], p["ln2_b"]) @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"]


def transformer_block__causal_flag_dropped(X, p, n_heads, causal=True):
    Y = X + _given_mha(_ln(X, p["ln1_g"], p["ln1_b"]), p["Wq"], p["Wk"], p["Wv"], p["Wo"], n_heads)
    return Y + _gelu(_ln(Y, p["ln2_g"], p["ln2_b"]) @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"]


def transformer_block__second_residual_from_X(X, p, n_heads, causal=True):
    Y = X + _given_mha(_ln(X, p["ln1_g"], p["ln1_b"]), p["Wq"], p["Wk"], p["Wv"], p["Wo"], n_heads, causal)
    return X + _gelu(_ln(Y, p["ln2_g"], p["ln2_b"]) @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"]


def transformer_block_ok_named_steps(X, p, n_heads, causal=True):
    h = layer_norm_ok_centred(X, p["ln1_g"], p["ln1_b"])
    attn_out = _given_mha(h, p["Wq"], p["Wk"], p["Wv"], p["Wo"], n_heads, causal=causal)
    resid = attn_out + X
    hidden = gelu_ok_factored(layer_norm_ok_centred(resid, p["ln2_g"], p["ln2_b"]) @ p["W1"] + p["b1"])
    return resid + (hidden @ p["W2"] + p["b2"])


# 11 next_token_logits
def next_token_logits__first_row(H, W_vocab):
    return H[0] @ W_vocab  # the summary token, as in BERT's [CLS]


def next_token_logits__softmaxed(H, W_vocab):
    return _sm(H[-1] @ W_vocab)


def next_token_logits__mean_pooled(H, W_vocab):
    return H.mean(axis=0) @ W_vocab


def next_token_logits__every_position(H, W_vocab):
    return H @ W_vocab


def next_token_logits_ok_transposed(H, W_vocab):
    return W_vocab.T @ H[H.shape[0] - 1]


# 11 cross_entropy
def _log_softmax(Z):
    m = Z.max(axis=1, keepdims=True)
    return Z - m - np.log(np.exp(Z - m).sum(axis=1, keepdims=True))


def cross_entropy__summed_over_rows(logits, targets):
    n = len(targets)
    L = _log_softmax(logits)
    loss = -L[np.arange(n), targets].sum()
    d = np.exp(L)
    d[np.arange(n), targets] -= 1
    return loss, d


def cross_entropy__gradient_not_averaged(logits, targets):
    n = len(targets)
    L = _log_softmax(logits)
    loss = -L[np.arange(n), targets].mean()
    d = np.exp(L)
    d[np.arange(n), targets] -= 1
    return loss, d


def cross_entropy__log_of_probabilities(logits, targets):
    n = len(targets)
    P = _sm(logits)
    with np.errstate(divide="ignore"):
        loss = -np.log(P[np.arange(n), targets]).mean()
    d = P.copy()
    d[np.arange(n), targets] -= 1
    return loss, d / n


def cross_entropy__gradient_first(logits, targets):
    n = len(targets)
    L = _log_softmax(logits)
    d = np.exp(L)
    d[np.arange(n), targets] -= 1
    return d / n, -L[np.arange(n), targets].mean()


def cross_entropy__one_based_targets(logits, targets):
    n = len(targets)
    idx = targets - 1  # word ids start at 1
    L = _log_softmax(logits)
    d = np.exp(L)
    d[np.arange(n), idx] -= 1
    return -L[np.arange(n), idx].mean(), d / n


def cross_entropy_ok_onehot(logits, targets):
    n, vocab = logits.shape
    Y = (np.asarray(targets)[:, None] == np.arange(vocab)).astype(float)
    shifted = logits - logits.max(axis=1, keepdims=True)
    logZ = np.log(np.exp(shifted).sum(axis=1))
    loss = float(np.sum(logZ - (shifted * Y).sum(axis=1)) / n)
    P = np.exp(shifted - logZ[:, None])
    return loss, (P - Y) / n


# 11 softmax_backward
def softmax_backward__diagonal_only(A, dA):
    return A * (1 - A) * dA


def softmax_backward__sum_without_keepdims(A, dA):
    return A * (dA - (A * dA).sum(axis=-1))


def softmax_backward__sum_over_first_axis(A, dA):
    return A * (dA - (A * dA).sum(axis=0, keepdims=True))


def softmax_backward__jacobian_per_row(A, dA):
    out = np.zeros_like(A)
    for r, (a, da) in enumerate(zip(A, dA)):
        J = np.diag(a) - np.outer(a, a)
        out[r] = J @ da
    return out


def softmax_backward_ok_einsum(A, dA):
    dot = np.einsum("...i,...i->...", A, dA)
    return A * dA - A * dot[..., None]


# 11 attention_backward
def _ab(Q, K, V, dO, causal, scale, *, scale_dK=True, offset=True, swap_sb=False, force_scale=False, dS_untransposed=False):
    s = 1.0 / np.sqrt(Q.shape[1]) if (scale or force_scale) else 1.0
    S = Q @ K.T * s
    if causal:
        if offset:
            S = S + _offset_mask(Q.shape[0], K.shape[0])
        else:
            S = S + np.triu(np.full(S.shape, -np.inf), k=1)
    A = _sm(S)
    dA = dO @ V.T
    if swap_sb:
        dS = dA * (A - (dA * A).sum(axis=1, keepdims=True))  # softmax_backward(dA, A)
    else:
        dS = A * (dA - (A * dA).sum(axis=1, keepdims=True))
    dQ = dS @ K * s
    dK = (dS @ Q if dS_untransposed else dS.T @ Q) * (s if scale_dK else 1.0)
    dV = A.T @ dO
    return dQ, dK, dV


def attention_backward__dK_unscaled(Q, K, V, dO, causal=True, scale=True):
    return _ab(Q, K, V, dO, causal, scale, scale_dK=False)


def attention_backward__mask_top_left(Q, K, V, dO, causal=True, scale=True):
    return _ab(Q, K, V, dO, causal, scale, offset=False)


def attention_backward__softmax_backward_args_swapped(Q, K, V, dO, causal=True, scale=True):
    return _ab(Q, K, V, dO, causal, scale, swap_sb=True)


def attention_backward__always_scaled(Q, K, V, dO, causal=True, scale=True):
    return _ab(Q, K, V, dO, causal, scale, force_scale=True)


def attention_backward__dK_without_transpose(Q, K, V, dO, causal=True, scale=True):
    return _ab(Q, K, V, dO, causal, scale, dS_untransposed=True)


def attention_backward_ok_einsum(Q, K, V, dO, causal=True, scale=True):
    c = (1.0 / math.sqrt(Q.shape[1])) if scale else 1.0
    A = attention_weights_ok_tri(Q, K, causal=causal, scale=scale)
    dV = np.einsum("qk,qv->kv", A, dO)
    dA = np.einsum("qv,kv->qk", dO, V)
    dS = A * (dA - np.einsum("qk,qk->q", A, dA)[:, None]) * c
    return np.einsum("qk,kd->qd", dS, K), np.einsum("qk,qd->kd", dS, Q), dV


# 11 layer_norm_backward
def _ln_stats(X, eps):
    mu = X.mean(axis=1, keepdims=True)
    inv = 1.0 / np.sqrt(X.var(axis=1, keepdims=True) + eps)
    return (X - mu) * inv, inv


def layer_norm_backward__statistics_as_constants(X, g, dY, eps=1e-5):
    Xh, inv = _ln_stats(X, eps)
    return dY * g * inv, (dY * Xh).sum(axis=0), dY.sum(axis=0)


def layer_norm_backward__gain_grad_over_features(X, g, dY, eps=1e-5):
    Xh, inv = _ln_stats(X, eps)
    G = dY * g
    dX = inv * (G - G.mean(axis=1, keepdims=True) - Xh * (G * Xh).mean(axis=1, keepdims=True))
    return dX, (dY * Xh).sum(axis=1), dY.sum(axis=1)


def layer_norm_backward__averaged_over_rows(X, g, dY, eps=1e-5):
    Xh, inv = _ln_stats(X, eps)
    G = dY * g
    dX = inv * (G - G.mean(axis=1, keepdims=True) - Xh * (G * Xh).mean(axis=1, keepdims=True))
    return dX, (dY * Xh).mean(axis=0), dY.mean(axis=0)


def layer_norm_backward__mean_term_only(X, g, dY, eps=1e-5):
    Xh, inv = _ln_stats(X, eps)
    G = dY * g
    dX = inv * (G - G.mean(axis=1, keepdims=True))
    return dX, (dY * Xh).sum(axis=0), dY.sum(axis=0)


def layer_norm_backward_ok_chain(X, g, dY, eps=1e-5):
    d = X.shape[1]
    C = X - X.mean(axis=1, keepdims=True)
    var = (C * C).sum(axis=1, keepdims=True) / d
    r = (var + eps) ** -0.5
    Xh = C * r
    dXh = dY * g
    dvar = (dXh * C).sum(axis=1, keepdims=True) * (-0.5) * r ** 3
    dC = dXh * r + dvar * 2 * C / d
    dX = dC - dC.mean(axis=1, keepdims=True)
    return dX, np.einsum("nd,nd->d", dY, Xh), np.einsum("nd->d", dY)


# 12 most_attended
def most_attended__max_down_columns(A, tokens):
    return [tokens[i] for i in np.argmax(A, axis=0)]


def most_attended__last_of_ties(A, tokens):
    out = []
    for row in A:
        j = max(range(len(row)), key=lambda c: (row[c], c))
        out.append(tokens[j])
    return out


def most_attended__indices_not_words(A, tokens):
    return [int(j) for j in np.argmax(A, axis=1)]


def most_attended__numpy_array(A, tokens):
    return np.array(tokens)[np.argmax(A, axis=1)]


def most_attended_ok_loop(A, tokens):
    words = []
    for i in range(A.shape[0]):
        best = 0
        for j in range(1, A.shape[1]):
            if A[i, j] > A[i, best]:
                best = j
        words.append(tokens[best])
    return words


# 12 attention_entropy
def attention_entropy__zero_gives_nan(A):
    return -(A * np.log(A)).sum(axis=1)


def attention_entropy__normalised_by_log_n(A):
    with np.errstate(divide="ignore", invalid="ignore"):
        H = -np.nansum(A * np.log(A), axis=1)
    return H / np.log(A.shape[1])


def attention_entropy__summed_down_columns(A):
    with np.errstate(divide="ignore", invalid="ignore"):
        return -np.nansum(A * np.log(A), axis=0)


def attention_entropy__log_of_support(A):
    return np.log((A > 0).sum(axis=1)).astype(float)


def attention_entropy_ok_masked_log(A):
    L = np.log(np.where(A > 0, A, 1.0))
    return -np.einsum("ij,ij->i", A, L)


# 13 padding_mask
def padding_mask__inclusive_boundary(n_q, n_valid, n_k):
    j = np.arange(n_k)
    return np.tile(np.where(j <= n_valid, 0.0, -np.inf), (n_q, 1))


def padding_mask__padded_rows(n_q, n_valid, n_k):
    M = np.zeros((n_q, n_k))
    M[n_valid:, :] = -np.inf
    return M


def padding_mask__with_causal(n_q, n_valid, n_k):
    M = np.triu(np.full((n_q, n_k), -np.inf), k=1)
    M[:, n_valid:] = -np.inf
    return M


def padding_mask__left_padding(n_q, n_valid, n_k):
    M = np.zeros((n_q, n_k))
    M[:, :n_k - n_valid] = -np.inf
    return M


def padding_mask_ok_broadcast(n_q, n_valid, n_k):
    row = np.full(n_k, -np.inf)
    row[:n_valid] = 0.0
    return np.broadcast_to(row, (n_q, n_k)).copy()


# 13 cross_attention
def cross_attention__causal_mask(X, Z, Wq, Wk, Wv):
    S = (X @ Wq) @ (Z @ Wk).T / np.sqrt(Wq.shape[1])
    S = S + np.triu(np.full(S.shape, -np.inf), k=1)
    return _sm(S) @ (Z @ Wv)


def cross_attention__roles_swapped(X, Z, Wq, Wk, Wv):
    return _attention(Z @ Wq, X @ Wk, X @ Wv, causal=False)


def cross_attention__scaled_by_d_model(X, Z, Wq, Wk, Wv):
    S = (X @ Wq) @ (Z @ Wk).T / np.sqrt(X.shape[1])
    return _sm(S) @ (Z @ Wv)


def cross_attention__softmax_over_queries(X, Z, Wq, Wk, Wv):
    S = (X @ Wq) @ (Z @ Wk).T / np.sqrt(Wq.shape[1])
    return _sm(S, axis=0) @ (Z @ Wv)


def cross_attention_ok_weights(X, Z, Wq, Wk, Wv):
    A = attention_weights_ok_tri(X @ Wq, Z @ Wk, causal=False)
    return A @ Z @ Wv


# 14 attend_step
def attend_step__shift_by_own_first_score(q, K_cache, V_cache):
    s = K_cache @ q / np.sqrt(q.shape[0])
    a = np.exp(s - s[0])
    return (a / a.sum()) @ V_cache


def attend_step__own_row_left_out(q, K_cache, V_cache):
    K, V = K_cache[:-1], V_cache[:-1]  # only the past
    s = K @ q / np.sqrt(q.shape[0])
    a = np.exp(s - s.max())
    return (a / a.sum()) @ V


def attend_step__scaled_by_cache_length(q, K_cache, V_cache):
    s = K_cache @ q / np.sqrt(K_cache.shape[0])
    a = np.exp(s - s.max())
    return (a / a.sum()) @ V_cache


def attend_step__returns_weights(q, K_cache, V_cache):
    s = K_cache @ q / np.sqrt(q.shape[0])
    a = np.exp(s - s.max())
    return a / a.sum()


def attend_step_ok_einsum(q, K_cache, V_cache):
    s = np.einsum("td,d->t", K_cache, q) * (1.0 / math.sqrt(len(q)))
    w = np.exp(s - np.max(s))
    w /= w.sum()
    return np.einsum("t,tv->v", w, V_cache)


# 14 cache_step
def cache_step__new_row_first(q, k, v, K_cache, V_cache):
    K_new = np.vstack([k, K_cache])
    V_new = np.vstack([v, V_cache])
    return _attend_step(q, K_new, V_new), K_new, V_new


def cache_step__attend_before_append(q, k, v, K_cache, V_cache):
    o = _attend_step(q, K_cache, V_cache)
    return o, np.vstack([K_cache, k]), np.vstack([V_cache, v])


def cache_step__caches_returned_first(q, k, v, K_cache, V_cache):
    K_new = np.vstack([K_cache, k])
    V_new = np.vstack([V_cache, v])
    return K_new, V_new, _attend_step(q, K_new, V_new)


def cache_step__np_append_flattens(q, k, v, K_cache, V_cache):
    K_new = np.append(K_cache, k)
    V_new = np.append(V_cache, v)
    o = _attend_step(q, K_new.reshape(-1, len(k)), V_new.reshape(-1, len(v)))
    return o, K_new, V_new


def cache_step_ok_concatenate(q, k, v, K_cache, V_cache):
    K_new = np.concatenate([K_cache, k[None, :]], axis=0)
    V_new = np.concatenate([V_cache, v[None, :]], axis=0)
    return attend_step_ok_einsum(q, K_new, V_new), K_new, V_new


# 14 sample_next
def _sample(logits, temperature, u, *, multiply=False, side="right", rescale=True, as_int=True):
    if temperature == 0:
        i = np.argmax(logits)
        return int(i) if as_int else i
    z = logits * temperature if multiply else logits / temperature
    z = z - np.max(z)
    p = np.exp(z)
    p = p / p.sum()
    c = np.cumsum(p)
    if rescale:
        c = c / c[-1]
    i = np.searchsorted(c, u, side=side)
    return int(i) if as_int else i


def sample_next__multiplies_by_temperature(logits, temperature, u):
    return _sample(logits, temperature, u, multiply=True)


def sample_next__searchsorted_left(logits, temperature, u):
    return _sample(logits, temperature, u, side="left")


def sample_next__total_not_rescaled(logits, temperature, u):
    return _sample(logits, temperature, u, rescale=False)


def sample_next__numpy_integer(logits, temperature, u):
    return _sample(logits, temperature, u, as_int=False)


def sample_next_ok_loop(logits, temperature, u):
    logits = np.asarray(logits, dtype=float)
    if temperature == 0:
        return int(np.flatnonzero(logits == logits.max())[0])
    z = (logits - logits.max()) / temperature
    w = np.exp(z)
    cdf = np.cumsum(w / w.sum())
    cdf = cdf / cdf[-1]
    for i, c in enumerate(cdf):
        if c > u:
            return int(i)
    return len(cdf) - 1


# 14 top_k_filter
def top_k_filter__exactly_k_by_argsort(logits, k):
    out = np.full(logits.shape, -np.inf)
    keep = np.argsort(-logits, kind="stable")[:k]
    out[keep] = logits[keep]
    return out


def top_k_filter__kth_index_one_based(logits, k):
    kth = np.sort(logits)[::-1][min(k, len(logits) - 1)]  # the k-th largest
    return np.where(logits >= kth, logits, -np.inf)


def top_k_filter__large_k_raises(logits, k):
    kth = np.sort(logits)[::-1][k - 1]
    return np.where(logits >= kth, logits, -np.inf)


def top_k_filter__others_set_to_zero(logits, k):
    kth = np.sort(logits)[::-1][min(k, len(logits)) - 1]
    return np.where(logits >= kth, logits, 0.0)


def top_k_filter_ok_partition(logits, k):
    logits = np.asarray(logits, dtype=float)
    if k >= logits.size:
        return logits.copy()
    kth = np.partition(logits, logits.size - k)[logits.size - k]
    out = logits.copy()
    out[out < kth] = -np.inf
    return out


# 14 top_p_filter
def _top_p(logits, p, *, strict=False, reverse_ties=False, special_one=True, naive=False):
    if special_one and p == 1.0:
        return logits.copy()
    if naive:
        e = np.exp(logits)
        P = e / e.sum()
    else:
        P = _sm(logits)
    order = np.argsort(P)[::-1] if reverse_ties else np.argsort(-P, kind="stable")
    c = np.cumsum(P[order])
    n = int(np.searchsorted(c, p, side="right" if strict else "left")) + 1
    out = np.full(logits.shape, -np.inf)
    out[order[:n]] = logits[order[:n]]
    return out


def top_p_filter__stops_only_above_p(logits, p):
    return _top_p(logits, p, strict=True)


def top_p_filter__ties_higher_id_first(logits, p):
    return _top_p(logits, p, reverse_ties=True)


def top_p_filter__p_one_not_special(logits, p):
    return _top_p(logits, p, special_one=False)


def top_p_filter__softmax_without_shift(logits, p):
    return _top_p(logits, p, naive=True)


def top_p_filter_ok_loop(logits, p):
    logits = np.asarray(logits, dtype=float)
    out = np.full(logits.shape, -np.inf)
    if p >= 1.0:
        return logits.copy()
    z = logits - logits.max()
    prob = np.exp(z) / np.exp(z).sum()
    ranked = sorted(range(len(prob)), key=lambda i: (-prob[i], i))
    total = 0.0
    for i in ranked:
        out[i] = logits[i]
        total += prob[i]
        if total >= p:
            break
    return out


# 14 generate
def _gen(p, prompt, n_new, cache_step, *, pos_shift=0, residual=True, new_only=False):
    tok_emb, pos_emb = p["tok_emb"], p["pos_emb"]
    d = tok_emb.shape[1]
    K, V = np.zeros((0, d)), np.zeros((0, d))
    seq = [int(t) for t in prompt]
    T = len(seq)
    logits = None
    for i in range(T + n_new - 1 if n_new > 0 else T):
        x = tok_emb[seq[i]] + pos_emb[i + pos_shift]
        o, K, V = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K, V)
        logits = ((x + o) if residual else o) @ p["W_out"]
        if i >= T - 1 and len(seq) < T + n_new:
            seq.append(int(np.argmax(logits)))
    out = np.array(seq, dtype=int)
    return out[T:] if new_only else out


def generate__positions_from_one(p, prompt, n_new, cache_step):
    return _gen(p, prompt, n_new, cache_step, pos_shift=1)


def generate__attention_output_only(p, prompt, n_new, cache_step):
    return _gen(p, prompt, n_new, cache_step, residual=False)


def generate__new_tokens_only(p, prompt, n_new, cache_step):
    return _gen(p, prompt, n_new, cache_step, new_only=True)


def generate__p_reused_for_probabilities(p, prompt, n_new, cache_step):
    d = p["tok_emb"].shape[1]
    K, V = np.zeros((0, d)), np.zeros((0, d))
    seq = list(np.asarray(prompt, dtype=int))
    T = len(seq)
    for i in range(T + n_new - 1 if n_new > 0 else T):
        x = p["tok_emb"][seq[i]] + p["pos_emb"][i]
        o, K, V = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K, V)
        logits = (x + o) @ p["W_out"]
        if i >= T - 1 and len(seq) < T + n_new:
            p = np.exp(logits - logits.max())  # probabilities
            p = p / p.sum()
            seq.append(int(np.argmax(p)))
    return np.array(seq, dtype=int)


def generate__own_attention_not_given_step(p, prompt, n_new, cache_step):
    def mine(q, k, v, K, V):
        K, V = np.vstack([K, k]), np.vstack([V, v])
        return _attend_step(q, K, V), K, V
    return _gen(p, prompt, n_new, mine)


def generate_ok_while(p, prompt, n_new, cache_step):
    tokens = np.asarray(prompt, dtype=int).tolist()
    d = p["tok_emb"].shape[1]
    K_c, V_c = np.empty((0, d)), np.empty((0, d))
    fed = 0
    while len(tokens) < len(prompt) + n_new:
        while fed < len(tokens):
            x = p["tok_emb"][tokens[fed]] + p["pos_emb"][fed]
            o, K_c, V_c = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K_c, V_c)
            nxt = (x + o) @ p["W_out"]
            fed += 1
        tokens.append(int(np.argmax(nxt)))
    return np.array(tokens, dtype=int)


# 14 kv_cache_bytes
def kv_cache_bytes__keys_only(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return n_layers * n_heads * d_head * seq_len * batch * bytes_per_value


def kv_cache_bytes__in_gib(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return 2 * n_layers * n_heads * d_head * seq_len * batch * bytes_per_value / 2 ** 30


def kv_cache_bytes__batch_ignored(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return 2 * n_layers * n_heads * d_head * seq_len * bytes_per_value


def kv_cache_bytes__numpy_product(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return np.prod([2, n_layers, n_heads, d_head, seq_len, batch, bytes_per_value])


def kv_cache_bytes_ok_steps(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    per_token = 2 * int(d_head) * int(n_heads) * int(n_layers)
    return per_token * int(seq_len) * int(batch) * int(bytes_per_value)


# 14 max_cached_tokens
def max_cached_tokens__float_division(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    return int(memory_bytes / (2 * n_layers * n_heads * d_head * batch * bytes_per_value))


def max_cached_tokens__rounded_up(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    per = 2 * n_layers * n_heads * d_head * batch * bytes_per_value
    return -(-memory_bytes // per)


def max_cached_tokens__keys_only(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    return memory_bytes // (n_layers * n_heads * d_head * batch * bytes_per_value)


def max_cached_tokens__strictly_less(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    per = 2 * n_layers * n_heads * d_head * batch * bytes_per_value
    return (memory_bytes - 1) // per


def max_cached_tokens_ok_divmod(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    per = kv_cache_bytes_ok_steps(n_layers, n_heads, d_head, 1, batch, bytes_per_value)
    q, _ = divmod(int(memory_bytes), per)
    return max(int(q), 0)


# 15 previous_token_score
def previous_token_score__row_zero_counted(A):
    T = A.shape[0]
    return float(np.diag(A, k=-1).sum() / T)


def previous_token_score__superdiagonal(A):
    T = A.shape[0]
    return float(np.diag(A, k=1).mean()) if T > 1 else 0.0


def previous_token_score__empty_mean(A):
    return float(np.diag(A, k=-1).mean())


def previous_token_score__argmax_fraction(A):
    T = A.shape[0]
    if T == 1:
        return 0.0
    t = np.arange(1, T)
    return float(np.mean(np.argmax(A[1:], axis=1) == t - 1))


def previous_token_score_ok_loop(A):
    T = len(A)
    total = 0.0
    for t in range(1, T):
        total += A[t, t - 1]
    return float(total / (T - 1)) if T > 1 else 0.0


# 15 prefix_matching_score
def prefix_matching_score__latest_copy_only(A, tokens):
    sums = []
    for t in range(len(tokens)):
        earlier = [j for j in range(t) if tokens[j] == tokens[t]]
        if earlier:
            sums.append(A[t, earlier[-1] + 1])
    return float(np.mean(sums)) if sums else 0.0


def prefix_matching_score__weight_on_copy_itself(A, tokens):
    sums = []
    for t in range(len(tokens)):
        earlier = [j for j in range(t) if tokens[j] == tokens[t]]
        if earlier:
            sums.append(sum(A[t, j] for j in earlier))
    return float(np.mean(sums)) if sums else 0.0


def prefix_matching_score__mean_over_all_positions(A, tokens):
    T = len(tokens)
    sums = np.zeros(T)
    for t in range(T):
        for j in range(t):
            if tokens[j] == tokens[t]:
                sums[t] += A[t, j + 1]
    return float(sums.mean())


def prefix_matching_score__no_copy_gives_nan(A, tokens):
    sums = []
    for t in range(len(tokens)):
        earlier = [j for j in range(t) if tokens[j] == tokens[t]]
        if earlier:
            sums.append(sum(A[t, j + 1] for j in earlier))
    return float(np.mean(sums))


def prefix_matching_score_ok_vectorised(A, tokens):
    tokens = np.asarray(tokens)
    T = len(tokens)
    same = (tokens[:, None] == tokens[None, :]) & np.tri(T, T, k=-1, dtype=bool)  # same[t, j], j < t
    shifted = np.zeros((T, T), dtype=bool)
    shifted[:, 1:] = same[:, :-1]
    has = same.any(axis=1)
    if not has.any():
        return 0.0
    return float((np.where(shifted, A, 0.0).sum(axis=1))[has].mean())


# 15 ablate_head
def ablate_head__columns_zeroed(Wo, head, n_heads):
    out = Wo.copy()
    d = Wo.shape[1] // n_heads
    out[:, head * d:(head + 1) * d] = 0
    return out


def ablate_head__head_counted_from_one(Wo, head, n_heads):
    out = Wo.copy()
    d_head = Wo.shape[0] // n_heads
    out[(head - 1) * d_head:head * d_head] = 0.0
    return out


def ablate_head__d_head_from_d_model(Wo, head, n_heads):
    out = Wo.copy()
    d_head = Wo.shape[1] // n_heads
    out[head * d_head:(head + 1) * d_head] = 0.0
    return out


def ablate_head__inclusive_end_row(Wo, head, n_heads):
    out = Wo.copy()
    d_head = Wo.shape[0] // n_heads
    out[head * d_head:(head + 1) * d_head + 1] = 0.0
    return out


def ablate_head_ok_mask(Wo, head, n_heads):
    d_head = Wo.shape[0] // n_heads
    keep = (np.arange(Wo.shape[0]) // d_head != head).astype(Wo.dtype)
    return Wo * keep[:, None]


# 16 rope
def _rope(X, positions, theta=10000.0, *, half=False, sign=1.0):
    n, d = X.shape
    a = np.asarray(positions, dtype=float)[:, None] * theta ** (-np.arange(0, d, 2) / d)
    c, s = np.cos(a), sign * np.sin(a)
    out = np.empty((n, d))
    if half:
        x, y = X[:, :d // 2], X[:, d // 2:]
        out[:, :d // 2], out[:, d // 2:] = x * c - y * s, x * s + y * c
    else:
        x, y = X[:, 0::2], X[:, 1::2]
        out[:, 0::2], out[:, 1::2] = x * c - y * s, x * s + y * c
    return out


def rope__half_split_pairs(X, positions, theta=10000.0):
    return _rope(X, positions, theta, half=True)


def rope__row_index_as_position(X, positions, theta=10000.0):
    return _rope(X, np.arange(X.shape[0]), theta)


def rope__clockwise(X, positions, theta=10000.0):
    return _rope(X, positions, theta, sign=-1.0)


def rope__theta_hardcoded(X, positions, theta=10000.0):
    return _rope(X, positions, 10000.0)


def rope_ok_complex(X, positions, theta=10000.0):
    n, d = X.shape
    z = X[:, 0::2] + 1j * X[:, 1::2]
    freq = np.power(float(theta), -np.arange(d // 2) * 2.0 / d)
    z = z * np.exp(1j * np.outer(np.asarray(positions, dtype=float), freq))
    out = np.empty((n, d))
    out[:, 0::2], out[:, 1::2] = z.real, z.imag
    return out


# 16 rope_attention
def _causal_sm_attend(Qr, Kr, V):
    S = Qr @ Kr.T / np.sqrt(Qr.shape[1])
    S = S + np.triu(np.full(S.shape, -np.inf), k=1)
    return _sm(S) @ V


def rope_attention__values_rotated(Q, K, V, positions, theta=10000.0):
    return _causal_sm_attend(_rope(Q, positions, theta), _rope(K, positions, theta), _rope(V, positions, theta))


def rope_attention__theta_not_passed(Q, K, V, positions, theta=10000.0):
    return _causal_sm_attend(_rope(Q, positions), _rope(K, positions), V)


def rope_attention__queries_only(Q, K, V, positions, theta=10000.0):
    return _causal_sm_attend(_rope(Q, positions, theta), K, V)


def rope_attention__row_order_positions(Q, K, V, positions, theta=10000.0):
    pos = np.arange(Q.shape[0])
    return _causal_sm_attend(_rope(Q, pos, theta), _rope(K, pos, theta), V)


def rope_attention_ok_relative(Q, K, V, positions, theta=10000.0):
    Qr, Kr = rope_ok_complex(Q, positions, theta), rope_ok_complex(K, positions, theta)
    return attention_ok_einsum(Qr, Kr, V, causal=True, scale=True)


# 17 grouped_query_attention
def _gqa(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal, group_of, scale_width=None):
    d_head = Wq.shape[1] // n_heads
    outs = []
    for h in range(n_heads):
        g = group_of(h)
        q = X @ Wq[:, h * d_head:(h + 1) * d_head]
        k = X @ Wk[:, g * d_head:(g + 1) * d_head]
        v = X @ Wv[:, g * d_head:(g + 1) * d_head]
        if scale_width is None:
            outs.append(_attend(q, k, v, causal))
        else:
            S = q @ k.T / np.sqrt(scale_width)
            if causal:
                S = S + np.triu(np.full(S.shape, -np.inf), k=1)
            outs.append(_sm(S) @ v)
    return np.concatenate(outs, axis=1) @ Wo


def grouped_query_attention__groups_round_robin(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    return _gqa(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal, lambda h: h % n_kv_heads)


def grouped_query_attention__divides_by_n_kv_heads(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    return _gqa(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal, lambda h: h // n_kv_heads)


def grouped_query_attention__scaled_by_full_width(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    return _gqa(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal, lambda h: h // (n_heads // n_kv_heads),
                scale_width=Wq.shape[1])


def grouped_query_attention__causal_flag_dropped(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    return _gqa(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, True, lambda h: h // (n_heads // n_kv_heads))


def grouped_query_attention_ok_repeat(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    n = X.shape[0]
    d_head = Wq.shape[1] // n_heads
    Q = (X @ Wq).reshape(n, n_heads, d_head).transpose(1, 0, 2)
    K = np.repeat((X @ Wk).reshape(n, n_kv_heads, d_head).transpose(1, 0, 2), n_heads // n_kv_heads, axis=0)
    V = np.repeat((X @ Wv).reshape(n, n_kv_heads, d_head).transpose(1, 0, 2), n_heads // n_kv_heads, axis=0)
    O = np.stack([_attention(Q[h], K[h], V[h], causal) for h in range(n_heads)])
    return O.transpose(1, 0, 2).reshape(n, n_heads * d_head) @ Wo


# 17 grouped_cache_step
def _gcs(q, k, v, K_cache, V_cache, *, group_of=None, per_head_cache=False, axis=-1, prepend=False):
    n_heads, d_head = q.shape
    n_kv = k.shape[0]
    size = n_heads // n_kv
    if prepend:
        K_new = np.concatenate([k[:, None, :], K_cache], axis=1)
        V_new = np.concatenate([v[:, None, :], V_cache], axis=1)
    else:
        K_new = np.concatenate([K_cache, k[:, None, :]], axis=1)
        V_new = np.concatenate([V_cache, v[:, None, :]], axis=1)
    groups = [group_of(h) if group_of else h // size for h in range(n_heads)]
    S = np.stack([K_new[groups[h]] @ q[h] for h in range(n_heads)]) / np.sqrt(d_head)  # (n_heads, t + 1)
    A = _sm(S, axis=axis)
    o = np.stack([A[h] @ V_new[groups[h]] for h in range(n_heads)])
    if per_head_cache:
        K_new, V_new = np.repeat(K_new, size, axis=0), np.repeat(V_new, size, axis=0)
    return o, K_new, V_new


def grouped_cache_step__groups_round_robin(q, k, v, K_cache, V_cache):
    n_kv = k.shape[0]
    return _gcs(q, k, v, K_cache, V_cache, group_of=lambda h: h % n_kv)


def grouped_cache_step__cache_per_query_head(q, k, v, K_cache, V_cache):
    return _gcs(q, k, v, K_cache, V_cache, per_head_cache=True)


def grouped_cache_step__softmax_across_heads(q, k, v, K_cache, V_cache):
    return _gcs(q, k, v, K_cache, V_cache, axis=0)


def grouped_cache_step__new_row_first(q, k, v, K_cache, V_cache):
    return _gcs(q, k, v, K_cache, V_cache, prepend=True)


def grouped_cache_step_ok_loop(q, k, v, K_cache, V_cache):
    n_heads = q.shape[0]
    n_kv = k.shape[0]
    K_new = np.stack([np.vstack([K_cache[g], k[g]]) for g in range(n_kv)])
    V_new = np.stack([np.vstack([V_cache[g], v[g]]) for g in range(n_kv)])
    o = np.stack([attend_step_ok_einsum(q[h], K_new[h * n_kv // n_heads], V_new[h * n_kv // n_heads])
                  for h in range(n_heads)])
    return o, K_new, V_new


# 18 sliding_window_mask
def sliding_window_mask__tril_k_off(n, window):
    allowed = np.tril(np.ones((n, n))) - np.tril(np.ones((n, n)), k=-window - 1)
    return np.where(allowed > 0, 0.0, -np.inf)


def sliding_window_mask__symmetric_band(n, window):
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    return np.where(np.abs(i - j) < window, 0.0, -np.inf)


def sliding_window_mask__first_column_kept(n, window):
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    ok = ((j <= i) & (j > i - window)) | (j == 0)
    return np.where(ok, 0.0, -np.inf)


def sliding_window_mask__no_mask_for_big_window(n, window):
    if window >= n:
        return np.zeros((n, n))  # the window covers everything
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    return np.where((j <= i) & (j > i - window), 0.0, -np.inf)


def sliding_window_mask_ok_two_triangles(n, window):
    M = np.triu(np.full((n, n), -np.inf), k=1)
    M[np.tril(np.ones((n, n), dtype=bool), k=-window)] = -np.inf
    return M


# 18 rolling_cache_step
def rolling_cache_step__cut_before_append(q, k, v, K_cache, V_cache, window, n_sinks=0):
    def cut(C):
        return np.concatenate([C[:n_sinks], C[n_sinks:][-(window - n_sinks):]]) if len(C) > window else C
    K_new = np.vstack([cut(K_cache), k])
    V_new = np.vstack([cut(V_cache), v])
    return _attend_step(q, K_new, V_new), K_new, V_new


def rolling_cache_step__sinks_ignored(q, k, v, K_cache, V_cache, window, n_sinks=0):
    K_new = np.vstack([K_cache, k])[-window:]
    V_new = np.vstack([V_cache, v])[-window:]
    return _attend_step(q, K_new, V_new), K_new, V_new


def rolling_cache_step__sinks_on_top_of_window(q, k, v, K_cache, V_cache, window, n_sinks=0):
    K_all, V_all = np.vstack([K_cache, k]), np.vstack([V_cache, v])
    if len(K_all) > window + n_sinks:
        K_all = np.concatenate([K_all[:n_sinks], K_all[-window:]])
        V_all = np.concatenate([V_all[:n_sinks], V_all[-window:]])
    return _attend_step(q, K_all, V_all), K_all, V_all


def rolling_cache_step__keeps_oldest_rows(q, k, v, K_cache, V_cache, window, n_sinks=0):
    K_new = np.vstack([K_cache, k])[:window]
    V_new = np.vstack([V_cache, v])[:window]
    return _attend_step(q, K_new, V_new), K_new, V_new


def rolling_cache_step_ok_delete(q, k, v, K_cache, V_cache, window, n_sinks=0):
    K_new = np.concatenate([K_cache, k[None]], axis=0)
    V_new = np.concatenate([V_cache, v[None]], axis=0)
    while K_new.shape[0] > window:
        K_new = np.delete(K_new, n_sinks, axis=0)
        V_new = np.delete(V_new, n_sinks, axis=0)
    return attend_step_ok_einsum(q, K_new, V_new), K_new, V_new


# 19 capstone: every op of attnlib.learner_ops.NAMES, all correct but one
_CAPSTONE_OK = {
    "softmax": softmax_ok_logsumexp,
    "attention": attention_ok_einsum,
    "embed": embed_ok_take,
    "multi_head_attention": multi_head_attention_ok_per_head_wo,
    "layer_norm": layer_norm_ok_centred,
    "gelu": gelu_ok_factored,
    "transformer_block": transformer_block_ok_named_steps,
    "next_token_logits": next_token_logits_ok_transposed,
    "cross_entropy": cross_entropy_ok_onehot,
    "softmax_backward": softmax_backward_ok_einsum,
    "attention_backward": attention_backward_ok_einsum,
    "layer_norm_backward": layer_norm_backward_ok_chain,
    "cache_step": cache_step_ok_concatenate,
    "sample_next": sample_next_ok_loop,
    "rope": rope_ok_complex,
    "grouped_query_attention": grouped_query_attention_ok_repeat,
    "grouped_cache_step": grouped_cache_step_ok_loop,
    "rolling_cache_step": rolling_cache_step_ok_delete,
}

# a plainer correct set, the base of the capstone mistakes (one op swapped for a wrong one in each)
_CAPSTONE_BASE = {
    "softmax": lambda S, axis=-1: _sm(S, axis),
    "attention": _attention,
    "embed": lambda tokens, tok_emb, pos_emb: tok_emb[tokens] + pos_emb[:len(tokens)],
    "multi_head_attention": multi_head_attention_ok_per_head_wo,
    "layer_norm": _ln,
    "gelu": _gelu,
    "transformer_block": transformer_block_ok_named_steps,
    "next_token_logits": lambda H, W_vocab: H[-1] @ W_vocab,
    "cross_entropy": cross_entropy_ok_onehot,
    "softmax_backward": softmax_backward_ok_einsum,
    "attention_backward": attention_backward_ok_einsum,
    "layer_norm_backward": layer_norm_backward_ok_chain,
    "cache_step": cache_step_ok_concatenate,
    "sample_next": sample_next_ok_loop,
    "rope": rope_ok_complex,
    "grouped_query_attention": grouped_query_attention_ok_repeat,
    "grouped_cache_step": grouped_cache_step_ok_loop,
    "rolling_cache_step": rolling_cache_step_ok_delete,
}


def _with(name, fn):
    ops = dict(_CAPSTONE_BASE)
    ops[name] = fn
    return ops


capstone__embed_positions_from_one = _with("embed", embed__positions_from_one)
capstone__gelu_sigmoid_approximation = _with("gelu", gelu__sigmoid_approximation)
capstone__layer_norm_eps_outside_sqrt = _with("layer_norm", layer_norm__eps_outside_sqrt)
capstone__cross_entropy_gradient_not_averaged = _with("cross_entropy", cross_entropy__gradient_not_averaged)
capstone__attention_backward_dK_unscaled = _with("attention_backward", attention_backward__dK_unscaled)
capstone__next_token_logits_first_row = _with("next_token_logits", next_token_logits__first_row)
capstone__rope_half_split_pairs = _with("rope", rope__half_split_pairs)
capstone__sample_next_multiplies_by_temperature = _with("sample_next", sample_next__multiplies_by_temperature)
capstone__rolling_cache_step_sinks_ignored = _with("rolling_cache_step", rolling_cache_step__sinks_ignored)
capstone__transformer_block_post_ln = _with("transformer_block", transformer_block__post_ln)
capstone_ok_all_rewritten = dict(_CAPSTONE_OK)


M = Mistake
MISTAKES = [
    M("project", "computes W @ x with the column-vector convention x' = Wx, pairing x[i] with W[j, i] instead of W[i, j] (and failing unless W is square)", project__column_vector_Wx),
    M("project", "broadcasts x along the wrong axis (x[None, :] * W summed over rows), so output j is x[j] times the column sum of W instead of sum_i x[i] W[i, j]", project__broadcast_wrong_axis),
    M("project", "divides the projected vector by its Euclidean norm, returning a unit vector instead of x @ W", project__unit_length),
    M("project", "hard-codes d_out = 256 from the lesson's example instead of using W.shape[1], so any other output width is wrong or raises", project__hardcoded_256),
    M("compose", "multiplies in the column-vector order W2 @ W1 instead of W1 @ W2 (raises unless the shapes happen to match)", compose__textbook_order),
    M("compose", "returns W2.T @ W1.T, the transpose (d_out, d_in) of the composed matrix W1 @ W2", compose__matlab_primes),
    M("compose", "divides the product W1 @ W2 by sqrt(d_mid), rescaling the composed projection", compose__rescaled_by_dmid),
    M("compose", "multiplies W1 by the transpose of W2 (np.dot(W1, W2.T)) instead of by W2 itself", compose__dot_with_transpose),
    M("project_rows", "fills the result in row-major order but reshapes it column-major (order='F'), scrambling the entries whenever n > 1 and d_out > 1", project_rows__fortran_reshape),
    M("project_rows", "allocates a hard-coded 6-row output (the running example's length), so the shape is wrong unless n = 6 and it raises for n > 6", project_rows__hardcoded_six_rows),
    M("project_rows", "subtracts the column mean of X over all rows before projecting, so each output row depends on the other rows", project_rows__centred_batch),
    M("project_rows", "returns W.T @ X.T, the (d_out, n) transpose of the answer", project_rows__column_major_result),
    M("matmul_cost", "counts 2 * n * d_in * d_out FLOPs (a multiply and an add per term) instead of n * d_in * d_out multiplications", matmul_cost__flops_two_per_mac),
    M("matmul_cost", "assumes W is square and returns n * d_in * d_in, ignoring d_out", matmul_cost__square_weights),
    M("matmul_cost", "returns np.prod of the sizes, a numpy int64 instead of an exact Python int (which overflows for huge sizes)", matmul_cost__numpy_prod),
    M("matmul_cost", "counts only the n * d_out dot products, forgetting that each takes d_in multiplications", matmul_cost__dot_products_only),
    M("values", "drops repeated words (one row per distinct token), so the second 'the' row is missing", values__repeats_dropped),
    M("values", "builds X from the table's rows in dictionary order instead of one row per token in sentence order", values__table_order),
    M("values", "multiplies X by Wv.T instead of Wv (raises unless Wv is square)", values__matlab_transpose),
    M("values", "normalises every word vector to unit length before projecting", values__unit_word_vectors),
    M("one_hot", "treats ids as 1-based and puts the 1.0 in column ids[i] - 1 (id 0 wraps to the last column)", one_hot__one_based_ids),
    M("one_hot", "indexes the identity's columns instead of its rows, returning the (vocab_size, n) transpose", one_hot__eye_columns),
    M("one_hot", "returns an integer array instead of floats", one_hot__int_dtype),
    M("one_hot", "takes the width from max(ids) + 1 instead of vocab_size, so the array is too narrow when the largest id is below vocab_size - 1", one_hot__width_from_max_id),
    M("uniform_causal_weights", "divides by the column number j + 1 instead of the row number i + 1 (broadcasts the counts along the wrong axis), so rows do not sum to 1", uniform_causal_weights__divide_columns),
    M("uniform_causal_weights", "leaves out the diagonal (np.tril with k=-1): row i averages columns 0..i-1 and row 0 is all zeros", uniform_causal_weights__strict_lower),
    M("uniform_causal_weights", "builds the upper-triangular transpose: column j holds 1/(j+1) on rows 0..j instead of row i holding 1/(i+1) on columns 0..i", uniform_causal_weights__upper_triangle),
    M("uniform_causal_weights", "divides row i by the column count n - i (sums over axis 0) instead of by i + 1", uniform_causal_weights__column_counts),
    M("causal_average", "takes the cumulative sum along the feature axis (axis=1) instead of down the rows (axis=0)", causal_average__matlab_cumsum_dim),
    M("causal_average", "divides every cumulative sum by n instead of by i + 1, the number of rows averaged", causal_average__divide_by_n),
    M("causal_average", "divides by the counts 1..n broadcast along the columns instead of the rows (missing [:, None]), wrong or raising unless d = n", causal_average__counts_unbroadcast),
    M("causal_average", "averages only the rows before i (0..i-1), leaving row i itself out (row 0 is kept as V[0])", causal_average__rows_before_only),
    M("similarity", "returns K @ Q.T, the (n_k, n_q) transpose of the scores", similarity__keys_first),
    M("similarity", "divides the scores by sqrt(d) although raw, unscaled scores are asked for", similarity__scaled),
    M("similarity", "normalises queries and keys to unit length, returning cosine similarities instead of dot products", similarity__cosine),
    M("similarity", "computes Q.T @ K, a (d, d) product over tokens, instead of Q @ K.T", similarity__matlab_QtK),
    M("learned_scores", "puts keys on the rows and queries on the columns (K @ Q.T), returning the transpose of the scores", learned_scores__keys_as_queries),
    M("learned_scores", "symmetrises the scores by averaging S with S.T", learned_scores__symmetrised),
    M("learned_scores", "divides the scores by sqrt(d_model) although no scaling is asked for", learned_scores__scaled_by_d_model),
    M("learned_scores", "applies a causal mask by zeroing the scores above the diagonal (np.tril) although no mask is asked for", learned_scores__lower_triangle),
    M("causal_mask", "masks the diagonal as well (np.triu with k=0), so each position cannot see itself", causal_mask__diagonal_masked),
    M("causal_mask", "puts -inf below the diagonal (np.tril with k=-1), hiding the past and showing the future", causal_mask__past_masked),
    M("causal_mask", "multiplies a 0/1 upper-triangular matrix by -inf, so the allowed entries become 0 * -inf = NaN instead of 0", causal_mask__ones_times_inf),
    M("causal_mask", "builds a hard-coded 6 x 6 mask (the running example's length) and slices it, so any n > 6 gets a 6 x 6 mask", causal_mask__hardcoded_six),
    M("softmax", "divides by the sums taken without keepdims, so for a 2-D array normalised along its last axis the row sums broadcast across the columns (wrong values, or a shape error unless square)", softmax__sum_without_keepdims),
    M("softmax", "subtracts the global maximum of the whole array instead of the maximum along the axis, so a row far below it underflows to 0/0 = NaN", softmax__global_max),
    M("softmax", "ignores the axis argument and always normalises along the last axis", softmax__axis_ignored),
    M("softmax", "subtracts the mean instead of the maximum before exponentiating, so widely spread scores overflow (and a -inf entry makes the row NaN)", softmax__shift_by_mean),
    M("score_scale", "returns sqrt(d), the standard deviation of q . k, instead of its reciprocal 1/sqrt(d)", score_scale__sqrt_d),
    M("score_scale", "returns 1/d (one over the variance) instead of 1/sqrt(d)", score_scale__one_over_d),
    M("score_scale", "returns 1/sqrt(d - 1), an unbiased-variance correction, instead of 1/sqrt(d) (and divides by zero at d = 1)", score_scale__bessel),
    M("score_scale", "hard-codes the paper's d_k = 64 and returns 1/8 for every d", score_scale__paper_d_k_64),
    M("attention_weights", "applies the square causal mask from the top-left corner, so when n_q < n_k the queries are treated as the first positions instead of the last", attention_weights__mask_top_left),
    M("attention_weights", "scales by sqrt(Q.shape[0]) (the number of queries) instead of sqrt(d) = sqrt(Q.shape[1])", attention_weights__d_from_rows),
    M("attention_weights", "applies the mask after the softmax by zeroing future weights without renormalising, so masked rows no longer sum to 1", attention_weights__zero_after_softmax),
    M("attention_weights", "uses the wrong sign for the diagonal offset (np.tril k = n_q - n_k), so with n_q < n_k each query sees 2(n_k - n_q) keys too few", attention_weights__offset_sign),
    M("attention", "multiplies the transposed weights A.T by V instead of A @ V", attention__transposed_weights),
    M("attention", "scales the scores by sqrt(d_v) = sqrt(V.shape[1]) instead of sqrt(d) = sqrt(Q.shape[1])", attention__scaled_by_d_v),
    M("attention", "applies the causal mask only when n_q == n_k, so with fewer queries than keys the queries see future keys", attention__mask_only_when_square),
    M("attention", "takes the softmax over the queries (axis 0) instead of over the keys of each row", attention__softmax_over_queries),
    M("self_attention", "tests `if Wo:` on the weight matrix, which raises for any array Wo (ambiguous truth value) instead of testing `Wo is not None`", self_attention__truthy_Wo),
    M("self_attention", "never passes the causal flag to attention, so causal=False still applies the causal mask", self_attention__causal_flag_dropped),
    M("self_attention", "scales the scores by sqrt(d_model) instead of sqrt(d_head)", self_attention__scaled_by_d_model),
    M("self_attention", "adds the input X to the output as a residual connection, which the module does not have", self_attention__residual_added),
    M("future_leak", "counts the leaking (output row, future input row) pairs instead of returning the largest distance k", future_leak__counts_pairs),
    M("future_leak", "returns the smallest leaking distance instead of the largest", future_leak__smallest_distance),
    M("future_leak", "detects changes with np.allclose's default tolerances (rtol 1e-5, atol 1e-8), so small but real leaks are missed", future_leak__allclose_default),
    M("future_leak", "returns the index j of the moved input row that leaks instead of the distance j - i to the output row", future_leak__returns_input_row),
    M("tiled_attention", "rescales the running sum l when the max rises but not the running weighted sum acc", tiled_attention__acc_not_rescaled),
    M("tiled_attention", "rescales by exp(new max - old max) instead of exp(old max - new max), inflating the old sums", tiled_attention__rescale_sign_flipped),
    M("tiled_attention", "starts the running max at 0 instead of -inf, so rows whose scores are all very negative underflow to 0/0 = NaN", tiled_attention__max_starts_at_zero),
    M("tiled_attention", "masks query i against key i (top-left diagonal), ignoring that with n_q < n_k the queries are the last positions", tiled_attention__mask_top_left),
    M("embed", "adds the position rows 1..n instead of 0..n-1 (positions counted from 1), shifting every position by one", embed__positions_from_one),
    M("embed", "indexes the position table with the token ids (pos_emb[tokens]) instead of the positions 0..n-1", embed__positions_indexed_by_token),
    M("embed", "concatenates the word and position vectors into (n, 2 d_model) instead of adding them", embed__concatenated),
    M("embed", "adds the whole position table instead of its first n rows, which only works when max_len == n", embed__whole_position_table),
    M("sinusoidal_positions", "puts all the sines in the first d/2 columns and all the cosines in the last d/2 instead of interleaving them in even/odd columns", sinusoidal_positions__half_split),
    M("sinusoidal_positions", "uses the column index j in the exponent 2j/d instead of the pair index i, so every frequency after the first is wrong and the cos column differs from its sin partner", sinusoidal_positions__column_index_exponent),
    M("sinusoidal_positions", "puts the cosines on the even columns and the sines on the odd ones (row 0 becomes [1, 0, 1, 0, ...])", sinusoidal_positions__cos_on_even),
    M("sinusoidal_positions", "counts positions from 1 instead of 0, so row 0 is not [0, 1, 0, 1, ...]", sinusoidal_positions__positions_from_one),
    M("split_heads", "reshapes M straight to (n_heads, n, d_head) without moving the head axis, mixing rows and columns across heads", split_heads__reshape_without_transpose),
    M("split_heads", "reshapes in column-major order, so head h gets the interleaved columns h, h + n_heads, ... instead of a contiguous block", split_heads__column_major_interleaved),
    M("split_heads", "returns the reshape (n, n_heads, d_head) without transposing to (n_heads, n, d_head)", split_heads__head_axis_left_in_middle),
    M("split_heads", "uses the inclusive end (h+1)*d_head - 1 as a Python slice end, dropping the last column of every head", split_heads__inclusive_end_as_slice),
    M("multi_head_attention", "scales each head by sqrt(n_heads * d_head) (the full projection width) instead of sqrt(d_head)", multi_head_attention__scaled_by_d_model),
    M("multi_head_attention", "merges the (n_heads, n, d_head) head outputs with a plain reshape to (n, n_heads*d_head) without transposing, scrambling tokens across heads", multi_head_attention__merge_without_transpose),
    M("multi_head_attention", "never passes the causal flag to the heads, so causal=False is still masked", multi_head_attention__causal_flag_dropped),
    M("multi_head_attention", "gives head h the strided columns h, h + n_heads, ... instead of the contiguous block h*d_head:(h+1)*d_head", multi_head_attention__strided_heads),
    M("layer_norm", "adds eps to the standard deviation outside the square root instead of to the variance inside it", layer_norm__eps_outside_sqrt),
    M("layer_norm", "normalises each column (over the tokens, axis 0) instead of each row", layer_norm__normalises_columns),
    M("layer_norm", "divides by the root mean square without subtracting the mean (RMSNorm)", layer_norm__rms_norm),
    M("layer_norm", "ignores the eps argument and always uses 1e-5", layer_norm__eps_hardcoded),
    M("layer_norm", "multiplies by b and adds g instead of multiplying by g and adding b", layer_norm__gain_and_bias_swapped),
    M("gelu", "uses the sigmoid approximation x * sigmoid(1.702 x) instead of the tanh approximation", gelu__sigmoid_approximation),
    M("gelu", "uses the exact erf GELU 0.5 x (1 + erf(x / sqrt 2)) instead of the tanh approximation", gelu__exact_erf),
    M("gelu", "writes x^3 for the cube, which in Python is bitwise XOR and raises on float arrays", gelu__caret_power),
    M("gelu", "uses math.tanh and math.sqrt, which only accept scalars, so any array input raises", gelu__math_tanh),
    M("transformer_block", "uses post-LN: layer norm applied after each residual sum instead of to the input of each sub-layer", transformer_block__post_ln),
    M("transformer_block", "overwrites X with its layer-normed version, so the first residual adds layer_norm(X) instead of X", transformer_block__normed_input_reused),
    M("transformer_block", "never passes the causal flag to multi_head_attention, so causal=False still applies the mask", transformer_block__causal_flag_dropped),
    M("transformer_block", "adds the MLP output to X instead of to Y, discarding the attention sub-layer's residual", transformer_block__second_residual_from_X),
    M("next_token_logits", "projects the first row H[0] instead of the last row H[-1]", next_token_logits__first_row),
    M("next_token_logits", "applies a softmax to the logits, returning probabilities instead of raw scores", next_token_logits__softmaxed),
    M("next_token_logits", "projects the mean of all rows of H instead of the last row", next_token_logits__mean_pooled),
    M("next_token_logits", "returns the logits of every position, shape (n, vocab), instead of the last position's (vocab,)", next_token_logits__every_position),
    M("cross_entropy", "sums the loss and its gradient over the rows instead of averaging them over n", cross_entropy__summed_over_rows),
    M("cross_entropy", "averages the loss over the rows but does not divide the gradient dlogits by n", cross_entropy__gradient_not_averaged),
    M("cross_entropy", "takes the log of the softmax probabilities, so for logits around 1e4 an unlikely target's probability underflows and the loss is infinite", cross_entropy__log_of_probabilities),
    M("cross_entropy", "returns (dlogits, loss) instead of (loss, dlogits)", cross_entropy__gradient_first),
    M("cross_entropy", "treats the targets as 1-based and reads column targets - 1 (target 0 wraps to the last column)", cross_entropy__one_based_targets),
    M("softmax_backward", "uses only the diagonal of the softmax Jacobian, A (1 - A) dA, dropping the -A_i A_j cross terms", softmax_backward__diagonal_only),
    M("softmax_backward", "subtracts the sums of A * dA over the last axis without keepdims, so for input with leading axes they broadcast across the wrong axis (wrong values, or a shape error)", softmax_backward__sum_without_keepdims),
    M("softmax_backward", "sums A * dA over the first axis instead of the last (softmax) axis", softmax_backward__sum_over_first_axis),
    M("softmax_backward", "loops over the first axis building a 2-D Jacobian per row, so it only handles 2-D input (raises for 1-D, wrong or raising for 3-D)", softmax_backward__jacobian_per_row),
    M("attention_backward", "leaves the 1/sqrt(d) factor out of dK (dQ is scaled, dK is not)", attention_backward__dK_unscaled),
    M("attention_backward", "applies the causal mask from the top-left corner, ignoring that with n_q < n_k the queries are the last positions", attention_backward__mask_top_left),
    M("attention_backward", "calls softmax_backward with its arguments swapped (dA in place of A and A in place of dA)", attention_backward__softmax_backward_args_swapped),
    M("attention_backward", "always applies the 1/sqrt(d) scale, even when scale=False", attention_backward__always_scaled),
    M("attention_backward", "computes dK as dS @ Q instead of dS.T @ Q (wrong shape when n_q != n_k, wrong values otherwise)", attention_backward__dK_without_transpose),
    M("layer_norm_backward", "treats the row mean and variance as constants, returning dX = dY g / sqrt(var + eps) without the mean and variance terms", layer_norm_backward__statistics_as_constants),
    M("layer_norm_backward", "sums dg and db over the features (axis 1) instead of over the rows, returning (n,) instead of (d,)", layer_norm_backward__gain_grad_over_features),
    M("layer_norm_backward", "averages dg and db over the rows instead of summing them", layer_norm_backward__averaged_over_rows),
    M("layer_norm_backward", "keeps the mean term in dX but leaves out the variance term", layer_norm_backward__mean_term_only),
    M("most_attended", "takes the argmax down each column (axis 0) instead of along each row, returning n_k words", most_attended__max_down_columns),
    M("most_attended", "breaks ties towards the later column (max with key (weight, index)) instead of the earlier one", most_attended__last_of_ties),
    M("most_attended", "returns the column indices instead of the token words", most_attended__indices_not_words),
    M("most_attended", "returns a numpy array of strings instead of a list", most_attended__numpy_array),
    M("attention_entropy", "computes A log A directly, so a zero weight gives 0 * -inf = NaN instead of contributing 0", attention_entropy__zero_gives_nan),
    M("attention_entropy", "divides each entropy by log(n_k), returning a normalised entropy instead of nats", attention_entropy__normalised_by_log_n),
    M("attention_entropy", "sums over the rows (axis 0) instead of over each row's keys, returning one value per key", attention_entropy__summed_down_columns),
    M("attention_entropy", "returns log of the number of nonzero weights in each row instead of -sum A log A", attention_entropy__log_of_support),
    M("padding_mask", "uses j <= n_valid instead of j < n_valid, leaving the first padding column visible", padding_mask__inclusive_boundary),
    M("padding_mask", "masks the rows i >= n_valid (the padded queries) instead of the padding columns", padding_mask__padded_rows),
    M("padding_mask", "adds a causal mask on top of the padding mask, although the padding mask is the same in every row", padding_mask__with_causal),
    M("padding_mask", "puts the padding at the start (masks the first n_k - n_valid columns) instead of after the real tokens", padding_mask__left_padding),
    M("cross_attention", "applies a causal mask, although cross-attention has no mask", cross_attention__causal_mask),
    M("cross_attention", "swaps the roles of X and Z: queries from Z and keys and values from X", cross_attention__roles_swapped),
    M("cross_attention", "scales the scores by sqrt(d_model) instead of sqrt(d_head)", cross_attention__scaled_by_d_model),
    M("cross_attention", "takes the softmax over the queries (axis 0) instead of over the keys", cross_attention__softmax_over_queries),
    M("attend_step", "subtracts the first score s[0] instead of the maximum before exponentiating, so a much larger later score overflows", attend_step__shift_by_own_first_score),
    M("attend_step", "drops the last cache row (the new token's own key and value) and attends over the past only", attend_step__own_row_left_out),
    M("attend_step", "scales by sqrt(t), the number of cached rows, instead of sqrt(d)", attend_step__scaled_by_cache_length),
    M("attend_step", "returns the softmax weights over the cached rows, shape (t,), instead of their weighted sum of V_cache rows", attend_step__returns_weights),
    M("cache_step", "puts the new key and value as the first rows of the caches instead of the last", cache_step__new_row_first),
    M("cache_step", "lets q attend over the old caches before appending k and v, so the new token does not see itself (and an empty cache fails)", cache_step__attend_before_append),
    M("cache_step", "returns (K_new, V_new, o) instead of (o, K_new, V_new)", cache_step__caches_returned_first),
    M("cache_step", "appends with np.append without an axis, returning flattened 1-D caches instead of (t + 1, d) and (t + 1, d_v)", cache_step__np_append_flattens),
    M("sample_next", "multiplies the logits by the temperature instead of dividing by it", sample_next__multiplies_by_temperature),
    M("sample_next", "picks the first token whose running total is >= u (searchsorted side='left') instead of > u, so u exactly on a boundary picks the earlier token", sample_next__searchsorted_left),
    M("sample_next", "does not rescale the running total to end at exactly 1, so a u just below 1 can fall past the end and return vocab", sample_next__total_not_rescaled),
    M("sample_next", "returns a numpy integer instead of a Python int", sample_next__numpy_integer),
    M("top_k_filter", "keeps exactly k tokens by argsort, dropping tokens tied with the k-th largest logit", top_k_filter__exactly_k_by_argsort),
    M("top_k_filter", "indexes the descending sorted logits at k instead of k - 1 (reading k-th as a 1-based index), so k < vocab keeps the k + 1 largest", top_k_filter__kth_index_one_based),
    M("top_k_filter", "indexes the sorted logits at k - 1 without capping k, so k > vocab raises IndexError instead of keeping every token", top_k_filter__large_k_raises),
    M("top_k_filter", "sets the filtered-out logits to 0 instead of -inf", top_k_filter__others_set_to_zero),
    M("top_p_filter", "stops only when the running total exceeds p, so a total that reaches p exactly keeps one token too many", top_p_filter__stops_only_above_p),
    M("top_p_filter", "ranks by np.argsort(P)[::-1], so of two equal probabilities the higher id comes first", top_p_filter__ties_higher_id_first),
    M("top_p_filter", "has no special case for p = 1, so tokens whose probability rounds to 0 are dropped", top_p_filter__p_one_not_special),
    M("top_p_filter", "exponentiates the logits without subtracting the maximum, so logits around 1e300 overflow to NaN", top_p_filter__softmax_without_shift),
    M("generate", "adds position row i + 1 instead of i (positions counted from 1)", generate__positions_from_one),
    M("generate", "computes the logits from the attention output o alone instead of x + o", generate__attention_output_only),
    M("generate", "returns only the n_new generated tokens instead of the prompt followed by them", generate__new_tokens_only),
    M("generate", "reuses the name p for the probabilities, overwriting the parameter dict, so the next step's p['tok_emb'] fails", generate__p_reused_for_probabilities),
    M("generate", "ignores the cache_step it is given and runs its own attention step instead", generate__own_attention_not_given_step),
    M("kv_cache_bytes", "counts only the keys, leaving out the factor 2 for keys and values", kv_cache_bytes__keys_only),
    M("kv_cache_bytes", "returns the size in GiB as a float instead of the number of bytes as an int", kv_cache_bytes__in_gib),
    M("kv_cache_bytes", "ignores the batch argument (always one sequence)", kv_cache_bytes__batch_ignored),
    M("kv_cache_bytes", "multiplies with np.prod, returning a numpy int64 (which overflows for huge sizes) instead of a Python int", kv_cache_bytes__numpy_product),
    M("max_cached_tokens", "divides with float division and truncates, which is inexact for huge memories", max_cached_tokens__float_division),
    M("max_cached_tokens", "rounds the quotient up instead of down, returning a length whose cache exceeds the memory", max_cached_tokens__rounded_up),
    M("max_cached_tokens", "leaves out the factor 2 for keys and values, returning twice the fitting length", max_cached_tokens__keys_only),
    M("max_cached_tokens", "requires the cache to take strictly less than memory_bytes, so an exact fit returns one token fewer", max_cached_tokens__strictly_less),
    M("previous_token_score", "divides the sum of A[t, t-1] by T instead of T - 1, counting row 0 as a zero", previous_token_score__row_zero_counted),
    M("previous_token_score", "reads the superdiagonal (np.diag with k=1, the future, always 0) instead of the subdiagonal k=-1", previous_token_score__superdiagonal),
    M("previous_token_score", "takes the mean of an empty diagonal when T = 1, returning NaN instead of 0.0", previous_token_score__empty_mean),
    M("previous_token_score", "returns the fraction of rows whose largest weight is on t-1 instead of the mean weight A[t, t-1]", previous_token_score__argmax_fraction),
    M("prefix_matching_score", "uses only the most recent earlier copy instead of summing A[t, j + 1] over all earlier copies", prefix_matching_score__latest_copy_only),
    M("prefix_matching_score", "sums the weight on the earlier copies themselves, A[t, j], instead of on the positions after them, A[t, j + 1]", prefix_matching_score__weight_on_copy_itself),
    M("prefix_matching_score", "averages over all T positions, counting positions without an earlier copy as 0, instead of over the positions that have one", prefix_matching_score__mean_over_all_positions),
    M("prefix_matching_score", "takes the mean of an empty list when no token repeats, returning NaN instead of 0.0", prefix_matching_score__no_copy_gives_nan),
    M("ablate_head", "zeros a block of columns of Wo instead of the head's rows", ablate_head__columns_zeroed),
    M("ablate_head", "counts heads from 1, zeroing the rows of head - 1 (and nothing at all for head 0)", ablate_head__head_counted_from_one),
    M("ablate_head", "computes d_head from the number of columns (d_model // n_heads) instead of the rows (Wo.shape[0] // n_heads)", ablate_head__d_head_from_d_model),
    M("ablate_head", "zeros one row too many, up to and including row (head + 1) * d_head", ablate_head__inclusive_end_row),
    M("rope", "pairs feature i with feature i + d/2 (half-split, GPT-NeoX style) instead of adjacent features 2i and 2i+1", rope__half_split_pairs),
    M("rope", "uses the row index 0..n-1 as the position instead of the given positions", rope__row_index_as_position),
    M("rope", "rotates clockwise (by -a: x cos a + y sin a, -x sin a + y cos a) instead of counter-clockwise", rope__clockwise),
    M("rope", "ignores the theta argument and always uses 10000", rope__theta_hardcoded),
    M("rope_attention", "rotates the values V as well as the queries and keys", rope_attention__values_rotated),
    M("rope_attention", "calls rope without passing theta, so a non-default theta is ignored", rope_attention__theta_not_passed),
    M("rope_attention", "rotates only the queries and leaves the keys unrotated", rope_attention__queries_only),
    M("rope_attention", "rotates by the row indices 0..n-1 instead of the given positions", rope_attention__row_order_positions),
    M("grouped_query_attention", "assigns query head h to group h % n_kv_heads (round robin) instead of h // (n_heads // n_kv_heads)", grouped_query_attention__groups_round_robin),
    M("grouped_query_attention", "computes the group as h // n_kv_heads instead of h // (n_heads // n_kv_heads)", grouped_query_attention__divides_by_n_kv_heads),
    M("grouped_query_attention", "scales the scores by sqrt(n_heads * d_head) instead of sqrt(d_head)", grouped_query_attention__scaled_by_full_width),
    M("grouped_query_attention", "never passes the causal flag to the heads, so causal=False is still masked", grouped_query_attention__causal_flag_dropped),
    M("grouped_cache_step", "assigns query head h to group h % n_kv_heads (round robin) instead of h // (n_heads // n_kv_heads)", grouped_cache_step__groups_round_robin),
    M("grouped_cache_step", "returns caches repeated to one entry per query head, (n_heads, t + 1, d_head), instead of one per group", grouped_cache_step__cache_per_query_head),
    M("grouped_cache_step", "takes the softmax across the heads (axis 0) of the (n_heads, t + 1) scores instead of across each head's cached tokens", grouped_cache_step__softmax_across_heads),
    M("grouped_cache_step", "puts the new key and value as the first row of each group's cache instead of the last", grouped_cache_step__new_row_first),
    M("sliding_window_mask", "subtracts np.tril with k = -window - 1 instead of -window, so each row sees window + 1 positions", sliding_window_mask__tril_k_off),
    M("sliding_window_mask", "uses a symmetric band |i - j| < window, letting rows see up to window - 1 future positions", sliding_window_mask__symmetric_band),
    M("sliding_window_mask", "always leaves column 0 visible (as a sink) in addition to the window", sliding_window_mask__first_column_kept),
    M("sliding_window_mask", "returns all zeros (no mask at all) when window >= n instead of the causal mask", sliding_window_mask__no_mask_for_big_window),
    M("rolling_cache_step", "cuts the old cache back to window rows before appending, so the cache can hold window + 1 rows", rolling_cache_step__cut_before_append),
    M("rolling_cache_step", "ignores n_sinks and keeps the last window rows, evicting the sinks", rolling_cache_step__sinks_ignored),
    M("rolling_cache_step", "keeps the n_sinks sinks plus the last window rows (window + n_sinks in all) instead of window rows in all", rolling_cache_step__sinks_on_top_of_window),
    M("rolling_cache_step", "keeps the first window rows when the cache overflows, dropping the newest token instead of the oldest non-sink", rolling_cache_step__keeps_oldest_rows),
    M("capstone", "every op correct except embed, which adds position rows 1..n instead of 0..n-1", capstone__embed_positions_from_one),
    M("capstone", "every op correct except gelu, which uses the sigmoid approximation x * sigmoid(1.702 x) instead of the tanh approximation", capstone__gelu_sigmoid_approximation),
    M("capstone", "every op correct except layer_norm, which adds eps to the standard deviation outside the square root", capstone__layer_norm_eps_outside_sqrt),
    M("capstone", "every op correct except cross_entropy, whose gradient dlogits is not divided by n", capstone__cross_entropy_gradient_not_averaged),
    M("capstone", "every op correct except attention_backward, which leaves the 1/sqrt(d) factor out of dK", capstone__attention_backward_dK_unscaled),
    M("capstone", "every op correct except next_token_logits, which projects the first row H[0] instead of the last", capstone__next_token_logits_first_row),
    M("capstone", "every op correct except rope, which rotates the half-split pairs (i, i + d/2) instead of adjacent pairs (2i, 2i+1)", capstone__rope_half_split_pairs),
    M("capstone", "every op correct except sample_next, which multiplies the logits by the temperature instead of dividing", capstone__sample_next_multiplies_by_temperature),
    M("capstone", "every op correct except rolling_cache_step, which ignores n_sinks and evicts the sinks", capstone__rolling_cache_step_sinks_ignored),
    M("capstone", "every op correct except transformer_block, which applies post-LN instead of pre-LN", capstone__transformer_block_post_ln),
]

ACCEPTABLE = [
    M("project", "explicit double loop over i and j", project_ok_loops),
    M("compose", "np.einsum over the middle index", compose_ok_einsum),
    M("project_rows", "one np.dot per row, stacked", project_rows_ok_stack),
    M("matmul_cost", "Python ints multiplied in two steps", matmul_cost_ok_sum),
    M("values", "each word vector projected separately, then stacked", values_ok_rowwise),
    M("one_hot", "broadcast comparison of ids with arange(vocab_size), cast to float", one_hot_ok_compare),
    M("uniform_causal_weights", "1-based loop filling row i-1 with 1/i", uniform_causal_weights_ok_loop),
    M("causal_average", "builds the row-normalised lower-triangular matrix and multiplies", causal_average_ok_matrix),
    M("similarity", "np.einsum over the feature index", similarity_ok_einsum),
    M("learned_scores", "X (Wq Wk^T) X^T as one bilinear form", learned_scores_ok_bilinear),
    M("causal_mask", "np.where on a broadcast comparison of column and row indices", causal_mask_ok_where),
    M("softmax", "exp of S minus its log-sum-exp", softmax_ok_logsumexp),
    M("score_scale", "float(d) ** -0.5", score_scale_ok_power),
    M("attention_weights", "np.tri with offset n_k - n_q as a boolean mask, einsum scores", attention_weights_ok_tri),
    M("attention", "weights from an own helper, then einsum with V", attention_ok_einsum),
    M("self_attention", "folds Wo into Wv before mixing", self_attention_ok_weights_first),
    M("future_leak", "searches k from the largest down and returns at the first leak", future_leak_ok_descending),
    M("tiled_attention", "1-D running statistics per query block, skipping key tiles entirely in the future", tiled_attention_ok_per_query_block),
    M("embed", "np.take on both tables", embed_ok_take),
    M("sinusoidal_positions", "one sin/cos column pair per frequency, stacked; frequency written as exp(-(2i/d) ln 10000)", sinusoidal_positions_ok_stack),
    M("split_heads", "np.split into n_heads column blocks, stacked", split_heads_ok_split),
    M("multi_head_attention", "sums each head's output times its own rows of Wo (equal to concatenating first)", multi_head_attention_ok_per_head_wo),
    M("layer_norm", "variance from an einsum of the centred rows; g multiplies first", layer_norm_ok_centred),
    M("gelu", "x factored out of the cubic, 0.5 distributed over (1 + tanh)", gelu_ok_factored),
    M("transformer_block", "named intermediate steps, residual sums written the other way round", transformer_block_ok_named_steps),
    M("next_token_logits", "W_vocab.T times the last row, indexed by its length", next_token_logits_ok_transposed),
    M("cross_entropy", "one-hot targets, log-sum-exp per row", cross_entropy_ok_onehot),
    M("softmax_backward", "einsum row dot product, expanded into two products", softmax_backward_ok_einsum),
    M("attention_backward", "einsum contractions throughout", attention_backward_ok_einsum),
    M("layer_norm_backward", "step-by-step chain rule through the variance and the centring", layer_norm_backward_ok_chain),
    M("most_attended", "explicit loop keeping the first strict maximum", most_attended_ok_loop),
    M("attention_entropy", "log of the weights with zeros replaced by 1, einsum per row", attention_entropy_ok_masked_log),
    M("padding_mask", "one row built then broadcast and copied", padding_mask_ok_broadcast),
    M("cross_attention", "weights from the own unmasked helper, then multiplies by Z and Wv in turn", cross_attention_ok_weights),
    M("attend_step", "einsum scores and weighted sum, in-place normalisation of a fresh array", attend_step_ok_einsum),
    M("cache_step", "np.concatenate with k[None, :], own einsum attend step", cache_step_ok_concatenate),
    M("sample_next", "explicit loop over the rescaled cumulative sum; greedy via flatnonzero", sample_next_ok_loop),
    M("top_k_filter", "np.partition to find the k-th largest", top_k_filter_ok_partition),
    M("top_p_filter", "Python sort by (-probability, id) and a running total loop", top_p_filter_ok_loop),
    M("generate", "while loop feeding every not-yet-fed token, then appending the argmax", generate_ok_while),
    M("kv_cache_bytes", "per-token size first, then times length, batch and bytes", kv_cache_bytes_ok_steps),
    M("max_cached_tokens", "divmod of the memory by the per-token size", max_cached_tokens_ok_divmod),
    M("previous_token_score", "explicit loop over t with a T = 1 guard", previous_token_score_ok_loop),
    M("prefix_matching_score", "boolean matrices of earlier copies, shifted one column", prefix_matching_score_ok_vectorised),
    M("ablate_head", "multiplies Wo by a 0/1 row mask, producing a new array", ablate_head_ok_mask),
    M("rope", "complex-number rotation of each adjacent pair", rope_ok_complex),
    M("rope_attention", "own complex rope, then own masked attention helper", rope_attention_ok_relative),
    M("grouped_query_attention", "np.repeat of the K/V groups to one per query head, then batched heads", grouped_query_attention_ok_repeat),
    M("grouped_cache_step", "per-group vstack and group index written h * n_kv // n_heads", grouped_cache_step_ok_loop),
    M("sliding_window_mask", "two triangles of -inf: above the diagonal and at or below diagonal -window", sliding_window_mask_ok_two_triangles),
    M("rolling_cache_step", "deletes the first non-sink row while the cache is over the window", rolling_cache_step_ok_delete),
    M("capstone", "all eighteen ops from this set's rewritten right answers", capstone_ok_all_rewritten),
]
