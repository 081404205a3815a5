"""A blind set of learner mistakes for "Rediscovering Attention" (all exercises, the tenth set).

WHAT IT COVERS
Every check name of the exercise notebooks (51 exercise checks plus the capstone). MISTAKES holds
243 wrong functions (235 on the exercise checks): 4 per check for 21 checks, 5 for 29, 6 for
tiled_attention, and 8 capstone dicts of ops.
ACCEPTABLE holds one right answer per check (52 including the capstone), each written another way
than the obvious solution (loops, einsum, tensordot, complex numbers for RoPE, the sigmoid form of the
tanh GELU, a bisection for max_cached_tokens, the full softmax Jacobian, ...). Each entry is
Mistake(exercise, what, fn): `what` names the mistake itself (not its symptom) in one line.

HOW IT WAS WRITTEN (blind)
Only these were read: the exercise notebooks (texts, stubs and the helpers they hand out), the README,
and attnlib's top-level maths modules (attnlib/*.py, incl. learner_ops.py for the capstone's op names).
The checker (attnlib/checks/), the tests, the solutions, tools/ and the git history were never opened,
listed or searched, and no other mistake set was looked at. Every function here was written from the
exercise texts. Helpers a learner would reuse (their passing softmax, attention, layer norm, GELU,
split_heads/multi-head attention, rope, attend_step, cache_step, and the notebooks' `attend`) are
defined once at the top, correct, and reused by the mistakes of later exercises. The module needs
numpy, math and the standard library only (no attnlib import).

HABITS IMITATED
- JAX/TF/Keras ports: tf.matmul(transpose_b=True) translated wrongly, Keras LayerNormalization's
  epsilon=1e-3, jax.nn.gelu(approximate=False), band_part bands swapped, tf.nn.top_k dropping ties,
  jnp.where with swapped branches, -1e9 instead of -inf, keepdims forgotten.
- Loop index slips: range(1, n), range(n - 1), j < i against j <= i, inclusive slice ends, >= in an
  argmax loop, loops that stop at the first offset found.
- Notation confusions: W x against x W, Wᵀ Xᵀ transposed outputs, softmax over queries against keys,
  d_model against d_head, sqrt(n_k) or sqrt(d_v) against sqrt(d), log2 against ln, sum against mean,
  rows against columns, per-head against per-group caches, h % g against h // (n_heads / g).
- Defensive code that changes results: np.clip before a log or an exp, max(1, ...) guards, special
  cases for an empty cache or T == 1 handled wrongly, nan from missing special cases.
- Types and containers: lists where arrays are asked (and arrays where a list is), np.int64 or
  floats where an exact int is required, tuples in the wrong order, int dtypes, M.shape assigned in
  place, inputs modified in place, np.append flattening.
- Half-remembered formulas: GELU constants (sqrt(2 pi), x², 1.702 sigmoid, missing 0.5), eps outside
  the square root, RoPE rotate-half layout and theta^(-i/d), sinusoid sin/cos order, halves layout and
  exponent, FLOPs counted twice, the KV cache's bytes missing K+V, layers, batch or bytes per value.
- Backward passes: a term dropped, the sign flipped, a transpose on the wrong factor, the scale
  dropped or doubled, the softmax Jacobian's diagonal only, the mean's 1/n forgotten.
- Capstone: each dict is RIGHT_OPS with one or two ops replaced by a wrong one from its own exercise.

HOW IT WAS VERIFIED
A separate script compared every function with a reference (attnlib's public function where one
exists, otherwise one written from the exercise text) on targeted inputs (n_q < n_k, ties, huge
scores, -inf entries, empty and full caches, windows with and without sinks, custom eps and theta,
non-square shapes, sizes beyond float precision, ...) and about 30 random inputs per check, each call
on its own deep copy. Every mistake differs somewhere (beyond 1e-6 relative, in shape, in a type the
text requires, by raising, by modifying an input, by a wrong number of cache_step calls, or, for
tiled_attention, by a peak memory above 512 kB); every right answer matches within 1e-9 on all inputs
and leaves them unchanged. For the capstone, TinyLM(ops=RIGHT_OPS) trains 30 steps and generates
exactly like attnlib's own model with learned positions, RoPE, one K/V group and a window of 4 with 1
sink, and every replaced op differs from its right counterpart on its own exercise's inputs.
Result: all 243 mistakes differ from the reference on some input; all 52 right answers match within
1e-9 and leave their inputs unchanged.
"""
from dataclasses import dataclass
from typing import Callable
import math

import numpy as np


@dataclass(frozen=True)
class Mistake:
    exercise: str  # the exercise's check name, e.g. "causal_mask"
    what: str      # one precise plain-English line naming the mistake, as an ideal grader would
    fn: Callable   # the learner's function, with the exercise's exact signature (for the capstone: the dict of ops)


M = Mistake


# =====================================================================================================
# Helpers a learner has already written (correct) and reuses; also the helper the notebooks hand out.
# =====================================================================================================

def _softmax(S, axis=-1):
    """The learner's own passing softmax (max-subtracted)."""
    S = np.asarray(S, dtype=float)
    E = np.exp(S - S.max(axis=axis, keepdims=True))
    return E / E.sum(axis=axis, keepdims=True)


def _mask_last(n_q, n_k):
    """Additive causal mask for n_q queries that are the last n_q of n_k positions."""
    q_pos = np.arange(n_q)[:, None] + (n_k - n_q)
    return np.where(np.arange(n_k)[None, :] > q_pos, -np.inf, 0.0)


def _attention(Q, K, V, causal=True, scale=True):
    """The learner's passing attention from exercise 07."""
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(Q.shape[1])
    if causal:
        S = S + _mask_last(Q.shape[0], K.shape[0])
    return _softmax(S) @ V


def attend(Q, K, V, causal=True):
    """Scaled attention for one head (the helper handed out in exercises 09 and 17)."""
    S = Q @ K.T / np.sqrt(Q.shape[1])
    if causal:
        S = S + np.triu(np.full(S.shape, -np.inf), k=1)
    E = np.exp(S - S.max(axis=1, keepdims=True))
    return (E / E.sum(axis=1, keepdims=True)) @ V


def _split_heads(M, n_heads):
    n, d_model = M.shape
    return M.reshape(n, n_heads, d_model // n_heads).transpose(1, 0, 2).copy()


def _mha(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    """The learner's passing multi_head_attention from exercise 09."""
    Qh, Kh, Vh = _split_heads(X @ Wq, n_heads), _split_heads(X @ Wk, n_heads), _split_heads(X @ Wv, n_heads)
    heads = [attend(Qh[h], Kh[h], Vh[h], causal) for h in range(n_heads)]
    return np.concatenate(heads, axis=1) @ Wo


def _layer_norm(X, g, b, eps=1e-5):
    mu = X.mean(axis=1, keepdims=True)
    var = X.var(axis=1, keepdims=True)
    return (X - mu) / np.sqrt(var + eps) * g + b


def _gelu(X):
    X = np.asarray(X, dtype=float)
    with np.errstate(invalid="ignore", over="ignore"):
        Y = 0.5 * X * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (X + 0.044715 * X ** 3)))
    return np.where(np.isneginf(X), 0.0, Y)


def _angles(positions, d, theta=10000.0):
    return np.asarray(positions, dtype=float)[:, None] * theta ** (-np.arange(0, d, 2) / d)


def _rope(X, positions, theta=10000.0):
    a = _angles(positions, X.shape[1], theta)
    x, y = X[:, 0::2], X[:, 1::2]
    out = np.empty(X.shape)
    out[:, 0::2] = x * np.cos(a) - y * np.sin(a)
    out[:, 1::2] = x * np.sin(a) + y * np.cos(a)
    return out


def _attend_step(q, K_cache, V_cache):
    s = K_cache @ q / np.sqrt(q.shape[0])
    a = np.exp(s - s.max())
    return (a / a.sum()) @ V_cache


def _cache_step(q, k, v, K_cache, V_cache):
    K_new = np.vstack([K_cache, k[None, :]])
    V_new = np.vstack([V_cache, v[None, :]])
    return _attend_step(q, K_new, V_new), K_new, V_new


# =====================================================================================================
# 01 project
# =====================================================================================================

def project__column_vector(x, W):
    return W @ x


def project__sums_output_axis(x, W):
    return (x[:, None] * W).sum(axis=1)


def project__loop_skips_first(x, W):
    out = np.zeros(W.shape[1])
    for i in range(1, len(x)):
        out += x[i] * W[i]
    return out


def project__row_matrix(x, W):
    return x.reshape(1, -1) @ W


def project_ok_loop(x, W):
    out = np.zeros(W.shape[1])
    for j in range(W.shape[1]):
        out[j] = sum(x[i] * W[i, j] for i in range(len(x)))
    return out


# 01 compose

def compose__column_order(W1, W2):
    return W2 @ W1


def compose__transpose_b(W1, W2):
    return W1 @ W2.T  # tf.matmul(W1, W2, transpose_b=True)


def compose__transposed_result(W1, W2):
    return W2.T @ W1.T


def compose__loop_drops_last_mid(W1, W2):
    d_in, d_mid = W1.shape
    W = np.zeros((d_in, W2.shape[1]))
    for i in range(d_in):
        for j in range(W2.shape[1]):
            for m in range(d_mid - 1):
                W[i, j] += W1[i, m] * W2[m, j]
    return W


def compose_ok_tensordot(W1, W2):
    return np.tensordot(W1, W2, axes=([1], [0]))


# =====================================================================================================
# 02 project_rows, matmul_cost
# =====================================================================================================

def project_rows__transposed(X, W):
    return W.T @ X.T


def project_rows__range_n_minus_1(X, W):
    out = np.zeros((X.shape[0], W.shape[1]))
    for i in range(X.shape[0] - 1):
        out[i] = X[i] @ W
    return out


def project_rows__list_of_rows(X, W):
    return [x @ W for x in X]


def project_rows__einsum_transposed_W(X, W):
    return np.einsum("ni,oi->no", X, W)


def project_rows_ok_einsum(X, W):
    return np.einsum("ni,io->no", X, W)


def matmul_cost__numpy_prod(n, d_in, d_out):
    return np.prod([n, d_in, d_out])


def matmul_cost__flops_twice(n, d_in, d_out):
    return 2 * n * d_in * d_out


def matmul_cost__mults_and_adds(n, d_in, d_out):
    return n * d_out * (2 * d_in - 1)


def matmul_cost__d_in_twice(n, d_in, d_out):
    return n * d_in * d_in


def matmul_cost__float(n, d_in, d_out):
    return np.float64(n) * d_in * d_out


def matmul_cost_ok_prod(n, d_in, d_out):
    return math.prod((d_out, d_in, n))


# =====================================================================================================
# 03 values, one_hot
# =====================================================================================================

def values__drops_repeats(tokens, table, Wv):
    X = np.array([table[w] for w in dict.fromkeys(tokens)])
    return X @ Wv


def values__sorted_vocabulary(tokens, table, Wv):
    X = np.array([table[w] for w in sorted(set(tokens))])
    return X @ Wv


def values__whole_table(tokens, table, Wv):
    X = np.array(list(table.values()))
    return X @ Wv


def values__column_vectors(tokens, table, Wv):
    X = np.array([table[w] for w in tokens])
    return Wv.T @ X.T


def values_ok_per_token(tokens, table, Wv):
    return np.stack([np.asarray(table[w], dtype=float) @ Wv for w in tokens])


def one_hot__int_dtype(ids, vocab_size):
    out = np.zeros((len(ids), vocab_size), dtype=int)
    out[np.arange(len(ids)), ids] = 1
    return out


def one_hot__eye_columns(ids, vocab_size):
    return np.eye(vocab_size)[:, ids]


def one_hot__width_from_max_id(ids, vocab_size):
    out = np.zeros((len(ids), int(ids.max()) + 1))
    out[np.arange(len(ids)), ids] = 1.0
    return out


def one_hot__loop_skips_first(ids, vocab_size):
    out = np.zeros((len(ids), vocab_size))
    for i in range(1, len(ids)):
        out[i, ids[i]] = 1.0
    return out


def one_hot__one_based_ids(ids, vocab_size):
    out = np.zeros((len(ids), vocab_size))
    out[np.arange(len(ids)), ids - 1] = 1.0
    return out


def one_hot_ok_compare(ids, vocab_size):
    return (np.asarray(ids)[:, None] == np.arange(vocab_size)[None, :]).astype(float)


# =====================================================================================================
# 04 uniform_causal_weights, causal_average
# =====================================================================================================

def uniform_causal_weights__columns_normalised(n):
    L = np.tril(np.ones((n, n)))
    return L / L.sum(axis=0, keepdims=True)


def uniform_causal_weights__excludes_diagonal(n):
    A = np.zeros((n, n))
    for i in range(n):
        A[i, :i] = 1.0 / (i + 1)
    return A


def uniform_causal_weights__upper_triangle(n):
    U = np.triu(np.ones((n, n)))
    return U / U.sum(axis=1, keepdims=True)


def uniform_causal_weights__divides_by_n(n):
    return np.tril(np.ones((n, n))) / n


def uniform_causal_weights_ok_loop(n):
    A = np.zeros((n, n))
    for i in range(n):
        for j in range(i + 1):
            A[i, j] = 1.0 / (i + 1)
    return A


def causal_average__divides_by_n(V):
    return np.cumsum(V, axis=0) / V.shape[0]


def causal_average__cumsum_features(V):
    return np.cumsum(V, axis=1) / np.arange(1, V.shape[0] + 1)[:, None]


def causal_average__excludes_self(V):
    out = np.empty(V.shape)
    for i in range(V.shape[0]):
        out[i] = V[:i].mean(axis=0) if i > 0 else V[0]
    return out


def causal_average__counts_not_a_column(V):
    return np.cumsum(V, axis=0) / np.arange(1, V.shape[0] + 1)


def causal_average_ok_matrix(V):
    n = V.shape[0]
    A = np.tril(np.ones((n, n))) / np.arange(1, n + 1)[:, None]
    return A @ V


# =====================================================================================================
# 05 similarity, learned_scores
# =====================================================================================================

def similarity__keys_by_queries(Q, K):
    return K @ Q.T


def similarity__contracts_tokens(Q, K):
    return Q.T @ K


def similarity__scaled(Q, K):
    return Q @ K.T / np.sqrt(Q.shape[1])


def similarity__cosine(Q, K):
    Qn = Q / np.linalg.norm(Q, axis=1, keepdims=True)
    Kn = K / np.linalg.norm(K, axis=1, keepdims=True)
    return Qn @ Kn.T


def similarity_ok_einsum(Q, K):
    return np.einsum("id,jd->ij", Q, K)


def learned_scores__roles_swapped(X, Wq, Wk):
    return (X @ Wk) @ (X @ Wq).T


def learned_scores__Wq_twice(X, Wq, Wk):
    Q = X @ Wq
    return Q @ Q.T


def learned_scores__causal_masked(X, Wq, Wk):
    S = (X @ Wq) @ (X @ Wk).T
    return S + np.triu(np.full(S.shape, -np.inf), k=1)


def learned_scores__scaled(X, Wq, Wk):
    return (X @ Wq) @ (X @ Wk).T / np.sqrt(Wq.shape[1])


def learned_scores_ok_bilinear(X, Wq, Wk):
    return X @ (Wq @ Wk.T) @ X.T


# =====================================================================================================
# 06 causal_mask, softmax, score_scale, attention_weights
# =====================================================================================================

def causal_mask__masks_diagonal(n):
    return np.triu(np.full((n, n), -np.inf), k=0)


def causal_mask__masks_past(n):
    return np.tril(np.full((n, n), -np.inf), k=-1)


def causal_mask__zero_one(n):
    return np.tril(np.ones((n, n)))


def causal_mask__minus_1e9(n):
    return np.triu(np.full((n, n), -1e9), k=1)


def causal_mask__times_inf(n):
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


def softmax__ignores_axis(S, axis=-1):
    E = np.exp(S - S.max(axis=-1, keepdims=True))
    return E / E.sum(axis=-1, keepdims=True)


def softmax__no_keepdims(S, axis=-1):
    E = np.exp(S - S.max(axis=axis))
    return E / E.sum(axis=axis)


def softmax__clipped(S, axis=-1):
    S = np.clip(S, -50.0, 50.0)
    E = np.exp(S - S.max(axis=axis, keepdims=True))
    return E / E.sum(axis=axis, keepdims=True)


def softmax_ok_logsumexp(S, axis=-1):
    S = np.asarray(S, dtype=float)
    m = S.max(axis=axis, keepdims=True)
    lse = m + np.log(np.exp(S - m).sum(axis=axis, keepdims=True))
    return np.exp(S - lse)


def score_scale__one_over_d(d):
    return 1.0 / d


def score_scale__sqrt_d(d):
    return math.sqrt(d)


def score_scale__floor_division(d):
    return 1 // math.sqrt(d)


def score_scale__precedence(d):
    return 1 / d ** 1 / 2


def score_scale_ok_sqrt_of_inverse(d):
    return math.sqrt(1.0 / d)


def attention_weights__mask_first_positions(Q, K, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(Q.shape[1])
    if causal:
        S = S + np.triu(np.full(S.shape, -np.inf), k=1)
    return _softmax(S, axis=-1)


def attention_weights__scale_by_n_k(Q, K, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(K.shape[0])
    if causal:
        S = S + _mask_last(Q.shape[0], K.shape[0])
    return _softmax(S, axis=-1)


def attention_weights__softmax_over_queries(Q, K, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(Q.shape[1])
    if causal:
        S = S + _mask_last(Q.shape[0], K.shape[0])
    return _softmax(S, axis=0)


def attention_weights__mask_after_softmax(Q, K, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(Q.shape[1])
    A = _softmax(S, axis=-1)
    if causal:
        A = A * (_mask_last(Q.shape[0], K.shape[0]) == 0)
    return A


def attention_weights__always_masked(Q, K, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(Q.shape[1])
    S = S + _mask_last(Q.shape[0], K.shape[0])
    return _softmax(S, axis=-1)


def attention_weights_ok_loop(Q, K, causal=True, scale=True):
    n_q, n_k = Q.shape[0], K.shape[0]
    c = 1.0 / math.sqrt(Q.shape[1]) if scale else 1.0
    A = np.zeros((n_q, n_k))
    for i in range(n_q):
        last = n_k - n_q + i if causal else n_k - 1
        s = np.array([c * float(np.dot(Q[i], K[j])) for j in range(last + 1)])
        e = np.exp(s - s.max())
        A[i, :last + 1] = e / e.sum()
    return A

# =====================================================================================================
# 07 attention, self_attention, future_leak, tiled_attention
# =====================================================================================================

def attention__mask_first_positions(Q, K, V, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(Q.shape[1])
    if causal:
        S = S + np.triu(np.full(S.shape, -np.inf), k=1)
    return _softmax(S) @ V


def attention__scale_by_d_v(Q, K, V, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(V.shape[1])
    if causal:
        S = S + _mask_last(Q.shape[0], K.shape[0])
    return _softmax(S) @ V


def attention__scale_after_softmax(Q, K, V, causal=True, scale=True):
    S = Q @ K.T
    if causal:
        S = S + _mask_last(Q.shape[0], K.shape[0])
    A = _softmax(S)
    if scale:
        A = A / np.sqrt(Q.shape[1])
    return A @ V


def attention__where_branches_swapped(Q, K, V, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(Q.shape[1])
    if causal:
        future = _mask_last(Q.shape[0], K.shape[0]) < 0
        S = np.where(future, S, -np.inf)  # jnp.where(mask, S, -inf) with mask marking the future
    return _softmax(S) @ V


def attention__scale_only_when_causal(Q, K, V, causal=True, scale=True):
    S = Q @ K.T
    if causal:
        if scale:
            S = S / np.sqrt(Q.shape[1])
        S = S + _mask_last(Q.shape[0], K.shape[0])
    return _softmax(S) @ V


def attention_ok_einsum(Q, K, V, causal=True, scale=True):
    A = attention_weights_ok_loop(Q, K, causal, scale)
    return np.einsum("qk,kv->qv", A, V)


def self_attention__truthy_Wo(X, Wq, Wk, Wv, Wo=None, causal=True):
    O = _attention(X @ Wq, X @ Wk, X @ Wv, causal)
    if Wo:
        O = O @ Wo
    return O


def self_attention__scale_d_model(X, Wq, Wk, Wv, Wo=None, causal=True):
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    S = Q @ K.T / np.sqrt(X.shape[1])
    if causal:
        S = S + _mask_last(len(Q), len(K))
    O = _softmax(S) @ V
    return O if Wo is None else O @ Wo


def self_attention__ignores_causal(X, Wq, Wk, Wv, Wo=None, causal=True):
    O = _attention(X @ Wq, X @ Wk, X @ Wv)
    return O if Wo is None else O @ Wo


def self_attention__values_from_Wk(X, Wq, Wk, Wv, Wo=None, causal=True):
    O = _attention(X @ Wq, X @ Wk, X @ Wk, causal)
    return O if Wo is None else O @ Wo


def self_attention_ok_folded(X, Wq, Wk, Wv, Wo=None, causal=True):
    A = attention_weights_ok_loop(X @ Wq, X @ Wk, causal, True)
    W_out = Wv if Wo is None else Wv @ Wo
    return A @ (X @ W_out)


def _leak_threshold(out):
    return 1e-9 * max(1.0, float(np.abs(out).max()))


def future_leak__smallest_offset(attn, X):
    n = X.shape[0]
    base = np.asarray(attn(X))
    tol = _leak_threshold(base)
    for k in range(1, n):
        for i in range(n - k):
            moved = X.copy()
            moved[i + k] += 1.0
            if np.abs(np.asarray(attn(moved))[i] - base[i]).max() > tol:
                return k
    return 0


def future_leak__absolute_threshold(attn, X):
    n = X.shape[0]
    base = np.asarray(attn(X))
    worst = 0
    for j in range(n):
        moved = X.copy()
        moved[j] += 1.0
        change = np.abs(np.asarray(attn(moved)) - base).reshape(n, -1).max(axis=1)
        for i in np.flatnonzero(change > 1e-9):
            worst = max(worst, j - int(i))
    return worst


def future_leak__next_row_only(attn, X):
    n = X.shape[0]
    base = np.asarray(attn(X))
    tol = _leak_threshold(base)
    for i in range(n - 1):
        moved = X.copy()
        moved[i + 1] += 1.0
        if np.abs(np.asarray(attn(moved))[i] - base[i]).max() > tol:
            return 1
    return 0


def future_leak__in_place_nudge(attn, X):
    n = X.shape[0]
    base = np.asarray(attn(X))
    tol = _leak_threshold(base)
    worst = 0
    for j in range(n):
        X[j] += 1.0
        change = np.abs(np.asarray(attn(X)) - base).reshape(n, -1).max(axis=1)
        X[j] -= 1.0
        for i in np.flatnonzero(change > tol):
            worst = max(worst, j - int(i))
    return worst


def future_leak__never_moves_last_row(attn, X):
    n = X.shape[0]
    base = np.asarray(attn(X))
    tol = _leak_threshold(base)
    worst = 0
    for j in range(n - 1):
        moved = X.copy()
        moved[j] += 1.0
        change = np.abs(np.asarray(attn(moved)) - base).reshape(n, -1).max(axis=1)
        for i in np.flatnonzero(change > tol):
            worst = max(worst, j - int(i))
    return worst



def future_leak_ok_by_offset(attn, X):
    n = X.shape[0]
    base = np.asarray(attn(X.copy())).reshape(n, -1)
    tol = _leak_threshold(base)
    for k in range(n - 1, 0, -1):  # widest offset first: the first one found is the answer
        for i in range(n - k):
            moved = X.copy()
            moved[i + k] = moved[i + k] + 1.0
            row = np.asarray(attn(moved)).reshape(n, -1)[i]
            if np.max(np.abs(row - base[i])) > tol:
                return k
    return 0



def tiled_attention__acc_not_rescaled(Q, K, V, causal=True, block=64):
    n_q, n_k = Q.shape[0], K.shape[0]
    O = np.empty((n_q, V.shape[1]))
    for q0 in range(0, n_q, block):
        Qb = Q[q0:q0 + block] / math.sqrt(Q.shape[1])
        bq = Qb.shape[0]
        m, l, acc = np.full((bq, 1), -np.inf), np.zeros((bq, 1)), np.zeros((bq, V.shape[1]))
        for k0 in range(0, n_k, block):
            S = Qb @ K[k0:k0 + block].T
            if causal:
                future = k0 + np.arange(S.shape[1])[None, :] > n_k - n_q + q0 + np.arange(bq)[:, None]
                S[future] = -np.inf
            m_new = np.maximum(m, S.max(axis=1, keepdims=True))
            P = np.exp(S - m_new)
            l = l * np.exp(m - m_new) + P.sum(axis=1, keepdims=True)
            acc = acc + P @ V[k0:k0 + block]  # forgot to shrink acc as well
            m = m_new
        O[q0:q0 + bq] = acc / l
    return O


def tiled_attention__rescale_sign_flipped(Q, K, V, causal=True, block=64):
    n_q, n_k = Q.shape[0], K.shape[0]
    O = np.empty((n_q, V.shape[1]))
    for q0 in range(0, n_q, block):
        Qb = Q[q0:q0 + block] / math.sqrt(Q.shape[1])
        bq = Qb.shape[0]
        m, l, acc = np.full((bq, 1), -np.inf), np.zeros((bq, 1)), np.zeros((bq, V.shape[1]))
        for k0 in range(0, n_k, block):
            S = Qb @ K[k0:k0 + block].T
            if causal:
                future = k0 + np.arange(S.shape[1])[None, :] > n_k - n_q + q0 + np.arange(bq)[:, None]
                S[future] = -np.inf
            m_new = np.maximum(m, S.max(axis=1, keepdims=True))
            P = np.exp(S - m_new)
            with np.errstate(invalid="ignore", over="ignore"):
                shrink = np.exp(m_new - m)  # new max minus old, the wrong way round
            l = l * shrink + P.sum(axis=1, keepdims=True)
            acc = acc * shrink + P @ V[k0:k0 + block]
            m = m_new
        O[q0:q0 + bq] = acc / l
    return O


def tiled_attention__mask_ignores_offset(Q, K, V, causal=True, block=64):
    n_q, n_k = Q.shape[0], K.shape[0]
    O = np.empty((n_q, V.shape[1]))
    for q0 in range(0, n_q, block):
        Qb = Q[q0:q0 + block] / math.sqrt(Q.shape[1])
        bq = Qb.shape[0]
        m, l, acc = np.full((bq, 1), -np.inf), np.zeros((bq, 1)), np.zeros((bq, V.shape[1]))
        for k0 in range(0, n_k, block):
            S = Qb @ K[k0:k0 + block].T
            if causal:
                future = k0 + np.arange(S.shape[1])[None, :] > q0 + np.arange(bq)[:, None]  # query i at position i
                S[future] = -np.inf
            m_new = np.maximum(m, S.max(axis=1, keepdims=True))
            P = np.exp(S - m_new)
            r = np.exp(m - m_new)
            l = l * r + P.sum(axis=1, keepdims=True)
            acc = acc * r + P @ V[k0:k0 + block]
            m = m_new
        O[q0:q0 + bq] = acc / l
    return O


def tiled_attention__unscaled(Q, K, V, causal=True, block=64):
    n_q, n_k = Q.shape[0], K.shape[0]
    O = np.empty((n_q, V.shape[1]))
    for q0 in range(0, n_q, block):
        Qb = Q[q0:q0 + block]
        bq = Qb.shape[0]
        m, l, acc = np.full((bq, 1), -np.inf), np.zeros((bq, 1)), np.zeros((bq, V.shape[1]))
        for k0 in range(0, n_k, block):
            S = Qb @ K[k0:k0 + block].T
            if causal:
                future = k0 + np.arange(S.shape[1])[None, :] > n_k - n_q + q0 + np.arange(bq)[:, None]
                S[future] = -np.inf
            m_new = np.maximum(m, S.max(axis=1, keepdims=True))
            P = np.exp(S - m_new)
            r = np.exp(m - m_new)
            l = l * r + P.sum(axis=1, keepdims=True)
            acc = acc * r + P @ V[k0:k0 + block]
            m = m_new
        O[q0:q0 + bq] = acc / l
    return O


def tiled_attention__normalised_every_tile(Q, K, V, causal=True, block=64):
    n_q, n_k = Q.shape[0], K.shape[0]
    O = np.empty((n_q, V.shape[1]))
    for q0 in range(0, n_q, block):
        Qb = Q[q0:q0 + block] / math.sqrt(Q.shape[1])
        bq = Qb.shape[0]
        m, l, acc = np.full((bq, 1), -np.inf), np.zeros((bq, 1)), np.zeros((bq, V.shape[1]))
        for k0 in range(0, n_k, block):
            S = Qb @ K[k0:k0 + block].T
            if causal:
                future = k0 + np.arange(S.shape[1])[None, :] > n_k - n_q + q0 + np.arange(bq)[:, None]
                S[future] = -np.inf
            m_new = np.maximum(m, S.max(axis=1, keepdims=True))
            P = np.exp(S - m_new)
            r = np.exp(m - m_new)
            l = l * r + P.sum(axis=1, keepdims=True)
            acc = (acc * r + P @ V[k0:k0 + block]) / l  # divided every tile, never multiplied back
            m = m_new
        O[q0:q0 + bq] = acc
    return O


def tiled_attention__strip_against_all_keys(Q, K, V, causal=True, block=64):
    n_q, n_k = Q.shape[0], K.shape[0]
    O = np.empty((n_q, V.shape[1]))
    for q0 in range(0, n_q, block):
        S = Q[q0:q0 + block] @ K.T / math.sqrt(Q.shape[1])  # (block, n_k): a whole strip of scores
        if causal:
            S = S + _mask_last(n_q, n_k)[q0:q0 + block]
        O[q0:q0 + block] = _softmax(S) @ V
    return O


def tiled_attention_ok_vectors(Q, K, V, causal=True, block=64):
    n_q, n_k, d = Q.shape[0], K.shape[0], Q.shape[1]
    off = n_k - n_q
    O = np.empty((n_q, V.shape[1]))
    for q0 in range(0, n_q, block):
        q1 = min(q0 + block, n_q)
        Qb = Q[q0:q1] * (1.0 / math.sqrt(d))
        m = np.full(q1 - q0, -np.inf)
        l = np.zeros(q1 - q0)
        acc = np.zeros((q1 - q0, V.shape[1]))
        stop = min(n_k, off + q1) if causal else n_k  # later keys are in every query's future
        k0 = 0
        while k0 < stop:
            k1 = min(k0 + block, stop)
            S = Qb @ K[k0:k1].T
            if causal:
                S = np.where(np.arange(k0, k1)[None, :] > off + np.arange(q0, q1)[:, None], -np.inf, S)
            m_new = np.maximum(m, S.max(axis=1))
            shrink = np.exp(m - m_new)
            P = np.exp(S - m_new[:, None])
            l = l * shrink + P.sum(axis=1)
            acc = acc * shrink[:, None] + P @ V[k0:k1]
            m = m_new
            k0 = k1
        O[q0:q1] = acc / l[:, None]
    return O


# =====================================================================================================
# 08 embed, sinusoidal_positions
# =====================================================================================================

def embed__positions_by_token_id(tokens, tok_emb, pos_emb):
    return tok_emb[tokens] + pos_emb[tokens]


def embed__last_position_rows(tokens, tok_emb, pos_emb):
    return tok_emb[tokens] + pos_emb[-len(tokens):]


def embed__positions_from_one(tokens, tok_emb, pos_emb):
    n = len(tokens)
    return tok_emb[tokens] + pos_emb[1:n + 1]


def embed__concatenated(tokens, tok_emb, pos_emb):
    n = len(tokens)
    return np.concatenate([tok_emb[tokens], pos_emb[:n]], axis=1)


def embed_ok_one_hot(tokens, tok_emb, pos_emb):
    n = len(tokens)
    one_hot = (np.asarray(tokens)[:, None] == np.arange(tok_emb.shape[0])).astype(float)
    return one_hot @ tok_emb + np.take(pos_emb, np.arange(n), axis=0)


def sinusoidal_positions__cos_first(n, d):
    t = np.arange(n)[:, None]
    a = t / 10000 ** (np.arange(0, d, 2) / d)
    P = np.empty((n, d))
    P[:, 0::2], P[:, 1::2] = np.cos(a), np.sin(a)
    return P


def sinusoidal_positions__exponent_i_over_d(n, d):
    t = np.arange(n)[:, None]
    a = t / 10000 ** (np.arange(d // 2) / d)
    P = np.empty((n, d))
    P[:, 0::2], P[:, 1::2] = np.sin(a), np.cos(a)
    return P


def sinusoidal_positions__halves(n, d):
    t = np.arange(n)[:, None]
    a = t / 10000 ** (np.arange(0, d, 2) / d)
    return np.concatenate([np.sin(a), np.cos(a)], axis=1)


def sinusoidal_positions__positions_from_one(n, d):
    t = np.arange(1, n + 1)[:, None]
    a = t / 10000 ** (np.arange(0, d, 2) / d)
    P = np.empty((n, d))
    P[:, 0::2], P[:, 1::2] = np.sin(a), np.cos(a)
    return P


def sinusoidal_positions__column_index_exponent(n, d):
    P = np.empty((n, d))
    for t in range(n):
        for j in range(d):
            a = t / 10000 ** (2 * j / d)
            P[t, j] = math.sin(a) if j % 2 == 0 else math.cos(a)
    return P


def sinusoidal_positions_ok_loops(n, d):
    P = np.zeros((n, d))
    for t in range(n):
        for i in range(d // 2):
            a = t * math.exp(-math.log(10000.0) * (2 * i) / d)
            P[t, 2 * i] = math.sin(a)
            P[t, 2 * i + 1] = math.cos(a)
    return P


# =====================================================================================================
# 09 split_heads, multi_head_attention
# =====================================================================================================

def split_heads__plain_reshape(M, n_heads):
    n, d_model = M.shape
    return M.reshape(n_heads, n, d_model // n_heads)


def split_heads__interleaved(M, n_heads):
    n, d_model = M.shape
    return M.reshape(n, d_model // n_heads, n_heads).transpose(2, 0, 1)


def split_heads__list(M, n_heads):
    d_head = M.shape[1] // n_heads
    return [M[:, h * d_head:(h + 1) * d_head] for h in range(n_heads)]


def split_heads__shape_assigned(M, n_heads):
    n, d_model = M.shape
    M.shape = (n, n_heads, d_model // n_heads)
    return M.transpose(1, 0, 2)


def split_heads_ok_stack(M, n_heads):
    d_head = M.shape[1] // n_heads
    return np.stack([M[:, h * d_head:(h + 1) * d_head].copy() for h in range(n_heads)])


def multi_head_attention__scale_d_model(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    Qh, Kh, Vh = _split_heads(X @ Wq, n_heads), _split_heads(X @ Wk, n_heads), _split_heads(X @ Wv, n_heads)
    heads = []
    for h in range(n_heads):
        S = Qh[h] @ Kh[h].T / np.sqrt(X.shape[1])
        if causal:
            S = S + _mask_last(len(X), len(X))
        heads.append(_softmax(S) @ Vh[h])
    return np.concatenate(heads, axis=1) @ Wo


def multi_head_attention__interleaved_heads(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    def split(M):
        return M.reshape(M.shape[0], M.shape[1] // n_heads, n_heads).transpose(2, 0, 1)
    Qh, Kh, Vh = split(X @ Wq), split(X @ Wk), split(X @ Wv)
    return np.concatenate([attend(Qh[h], Kh[h], Vh[h], causal) for h in range(n_heads)], axis=1) @ Wo


def multi_head_attention__ignores_causal(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    Qh, Kh, Vh = _split_heads(X @ Wq, n_heads), _split_heads(X @ Wk, n_heads), _split_heads(X @ Wv, n_heads)
    return np.concatenate([attend(Qh[h], Kh[h], Vh[h]) for h in range(n_heads)], axis=1) @ Wo


def multi_head_attention__no_Wo(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    Qh, Kh, Vh = _split_heads(X @ Wq, n_heads), _split_heads(X @ Wk, n_heads), _split_heads(X @ Wv, n_heads)
    return np.concatenate([attend(Qh[h], Kh[h], Vh[h], causal) for h in range(n_heads)], axis=1)


def multi_head_attention__d_head_from_d_model(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    d_head = X.shape[1] // n_heads
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_head, (h + 1) * d_head)
        heads.append(attend(Q[:, cols], K[:, cols], V[:, cols], causal))
    return np.concatenate(heads, axis=1) @ Wo


def multi_head_attention_ok_batched(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    n = X.shape[0]
    d_head = Wq.shape[1] // n_heads
    Q = (X @ Wq).reshape(n, n_heads, d_head)
    K = (X @ Wk).reshape(n, n_heads, d_head)
    V = (X @ Wv).reshape(n, n_heads, Wv.shape[1] // n_heads)
    S = np.einsum("ihd,jhd->hij", Q, K) / math.sqrt(d_head)
    if causal:
        S = np.where(np.arange(n)[None, None, :] > np.arange(n)[None, :, None], -np.inf, S)
    A = np.exp(S - S.max(axis=-1, keepdims=True))
    A /= A.sum(axis=-1, keepdims=True)
    O = np.einsum("hij,jhv->ihv", A, V).reshape(n, -1)
    return O @ Wo


# =====================================================================================================
# 10 layer_norm, gelu, transformer_block
# =====================================================================================================

def layer_norm__eps_outside_sqrt(X, g, b, eps=1e-5):
    mu = X.mean(axis=1, keepdims=True)
    return (X - mu) / (X.std(axis=1, keepdims=True) + eps) * g + b


def layer_norm__unbiased_variance(X, g, b, eps=1e-5):
    mu = X.mean(axis=1, keepdims=True)
    var = X.var(axis=1, ddof=1, keepdims=True)
    return (X - mu) / np.sqrt(var + eps) * g + b


def layer_norm__keras_epsilon(X, g, b, eps=1e-5):
    epsilon = 1e-3  # tf.keras.layers.LayerNormalization default
    mu = X.mean(axis=-1, keepdims=True)
    var = X.var(axis=-1, keepdims=True)
    return (X - mu) / np.sqrt(var + epsilon) * g + b


def layer_norm__over_tokens(X, g, b, eps=1e-5):
    mu = X.mean(axis=0, keepdims=True)
    var = X.var(axis=0, keepdims=True)
    return (X - mu) / np.sqrt(var + eps) * g + b


def layer_norm__no_keepdims(X, g, b, eps=1e-5):
    mu = X.mean(axis=1)
    var = X.var(axis=1)
    return (X - mu) / np.sqrt(var + eps) * g + b


def layer_norm_ok_rows(X, g, b, eps=1e-5):
    out = np.empty(X.shape)
    d = X.shape[1]
    for r in range(X.shape[0]):
        c = X[r] - X[r].sum() / d
        out[r] = c * (1.0 / math.sqrt(float(c @ c) / d + eps)) * g + b
    return out


def gelu__exact_erf(X):
    erf = np.vectorize(math.erf, otypes=[float])
    return 0.5 * X * (1.0 + erf(X / math.sqrt(2.0)))  # jax.nn.gelu(x, approximate=False)


def gelu__sigmoid_1702(X):
    return X / (1.0 + np.exp(-1.702 * X))


def gelu__sqrt_two_pi(X):
    return 0.5 * X * (1.0 + np.tanh(np.sqrt(2.0 * np.pi) * (X + 0.044715 * X ** 3)))


def gelu__square_not_cube(X):
    return 0.5 * X * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (X + 0.044715 * X ** 2)))


def gelu__missing_half(X):
    return X * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (X + 0.044715 * X ** 3)))


def gelu_ok_sigmoid(X):
    X = np.asarray(X, dtype=float)
    u = math.sqrt(2.0 / math.pi) * (X + 0.044715 * X ** 3)
    with np.errstate(over="ignore", invalid="ignore"):
        Y = X / (1.0 + np.exp(-2.0 * u))  # 0.5 (1 + tanh u) = sigmoid(2u)
    return np.where(np.isneginf(X), 0.0, Y)


multi_head_attention = _mha  # the stand-in the block exercise imports (attnlib's; here the learner's own, equal)


def transformer_block__post_ln(X, p, n_heads, causal=True):
    Y = _layer_norm(X + multi_head_attention(X, p["Wq"], p["Wk"], p["Wv"], p["Wo"], n_heads, causal),
                    p["ln1_g"], p["ln1_b"])
    return _layer_norm(Y + _gelu(Y @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"], p["ln2_g"], p["ln2_b"])


def transformer_block__mlp_residual_from_X(X, p, n_heads, causal=True):
    Y = X + multi_head_attention(_layer_norm(X, p["ln1_g"], p["ln1_b"]), p["Wq"], p["Wk"], p["Wv"], p["Wo"],
                                 n_heads, causal)
    return X + _gelu(_layer_norm(Y, p["ln2_g"], p["ln2_b"]) @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"]


def transformer_block__ln1_params_twice(X, p, n_heads, causal=True):
    Y = X + multi_head_attention(_layer_norm(X, p["ln1_g"], p["ln1_b"]), p["Wq"], p["Wk"], p["Wv"], p["Wo"],
                                 n_heads, causal)
    return Y + _gelu(_layer_norm(Y, p["ln1_g"], p["ln1_b"]) @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"]


def transformer_block__no_second_norm(X, p, n_heads, causal=True):
    Y = X + multi_head_attention(_layer_norm(X, p["ln1_g"], p["ln1_b"]), p["Wq"], p["Wk"], p["Wv"], p["Wo"],
                                 n_heads, causal)
    return Y + _gelu(Y @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"]


def transformer_block__no_attention_residual(X, p, n_heads, causal=True):
    Y = multi_head_attention(_layer_norm(X, p["ln1_g"], p["ln1_b"]), p["Wq"], p["Wk"], p["Wv"], p["Wo"],
                             n_heads, causal)
    return Y + _gelu(_layer_norm(Y, p["ln2_g"], p["ln2_b"]) @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"]


def transformer_block_ok_steps(X, p, n_heads, causal=True):
    attn_out = multi_head_attention(layer_norm_ok_rows(X, p["ln1_g"], p["ln1_b"]), p["Wq"], p["Wk"], p["Wv"],
                                    p["Wo"], n_heads, causal)
    Y = attn_out + X
    H = np.einsum("nd,df->nf", layer_norm_ok_rows(Y, p["ln2_g"], p["ln2_b"]), p["W1"]) + p["b1"]
    return np.einsum("nf,fd->nd", gelu_ok_sigmoid(H), p["W2"]) + p["b2"] + Y

# =====================================================================================================
# 11 next_token_logits, cross_entropy, softmax_backward, attention_backward, layer_norm_backward
# =====================================================================================================

def next_token_logits__first_row(H, W_vocab):
    return H[0] @ W_vocab


def next_token_logits__mean_of_rows(H, W_vocab):
    return H.mean(axis=0) @ W_vocab


def next_token_logits__every_row(H, W_vocab):
    return H @ W_vocab


def next_token_logits__probabilities(H, W_vocab):
    return _softmax(H[-1] @ W_vocab)


def next_token_logits_ok_all_then_last(H, W_vocab):
    return (H @ W_vocab)[H.shape[0] - 1]


def _log_softmax(Z):
    Z = Z - Z.max(axis=1, keepdims=True)
    return Z - np.log(np.exp(Z).sum(axis=1, keepdims=True))


def cross_entropy__summed(logits, targets):
    logp = _log_softmax(logits)
    n = len(targets)
    loss = -logp[np.arange(n), targets].sum()
    d = np.exp(logp)
    d[np.arange(n), targets] -= 1.0
    return loss, d


def cross_entropy__gradient_not_averaged(logits, targets):
    logp = _log_softmax(logits)
    n = len(targets)
    loss = -logp[np.arange(n), targets].mean()
    d = np.exp(logp)
    d[np.arange(n), targets] -= 1.0
    return loss, d


def cross_entropy__log_of_probability(logits, targets):
    P = _softmax(logits, axis=1)
    n = len(targets)
    loss = -np.log(P[np.arange(n), targets]).mean()
    d = P.copy()
    d[np.arange(n), targets] -= 1.0
    return loss, d / n


def cross_entropy__log2(logits, targets):
    Z = logits - logits.max(axis=1, keepdims=True)
    log2p = Z / np.log(2) - np.log2(np.exp(Z).sum(axis=1, keepdims=True))
    n = len(targets)
    loss = -log2p[np.arange(n), targets].mean()
    d = _softmax(logits, axis=1)
    d[np.arange(n), targets] -= 1.0
    return loss, d / n


def cross_entropy__gradient_sign(logits, targets):
    logp = _log_softmax(logits)
    n = len(targets)
    loss = -logp[np.arange(n), targets].mean()
    onehot = np.zeros(logits.shape)
    onehot[np.arange(n), targets] = 1.0
    return loss, (onehot - np.exp(logp)) / n


def cross_entropy_ok_rows(logits, targets):
    n, vocab = logits.shape
    total = 0.0
    d = np.empty((n, vocab))
    for r in range(n):
        z = logits[r] - logits[r].max()
        lse = math.log(float(np.exp(z).sum()))
        total += lse - z[targets[r]]
        d[r] = np.exp(z - lse) / n
        d[r, targets[r]] -= 1.0 / n
    return total / n, d


def softmax_backward__diagonal_only(A, dA):
    return A * (1.0 - A) * dA


def softmax_backward__sum_over_axis0(A, dA):
    return A * (dA - (dA * A).sum(axis=0, keepdims=True))


def softmax_backward__plus_sign(A, dA):
    return A * (dA + (dA * A).sum(axis=-1, keepdims=True))


def softmax_backward__outer_A_dropped(A, dA):
    return dA - (dA * A).sum(axis=-1, keepdims=True)


def softmax_backward__sums_dA_alone(A, dA):
    return A * (dA - dA.sum(axis=-1, keepdims=True))


def softmax_backward_ok_jacobian(A, dA):
    n = A.shape[-1]
    J = np.einsum("...i,ij->...ij", A, np.eye(n)) - np.einsum("...i,...j->...ij", A, A)  # dA_i/dS_j
    return np.einsum("...ij,...i->...j", J, dA)


def _forward_weights(Q, K, causal, scale, first_positions=False):
    s = 1.0 / np.sqrt(Q.shape[1]) if scale else 1.0
    S = Q @ K.T * s
    if causal:
        if first_positions:
            S = S + np.triu(np.full(S.shape, -np.inf), k=1)
        else:
            S = S + _mask_last(Q.shape[0], K.shape[0])
    return _softmax(S), s


def attention_backward__dV_wrong_transpose(Q, K, V, dO, causal=True, scale=True):
    A, s = _forward_weights(Q, K, causal, scale)
    dA = dO @ V.T
    dS = A * (dA - (dA * A).sum(axis=1, keepdims=True)) * s
    return dS @ K, dS.T @ Q, A @ dO


def attention_backward__scale_dropped(Q, K, V, dO, causal=True, scale=True):
    A, s = _forward_weights(Q, K, causal, scale)
    dA = dO @ V.T
    dS = A * (dA - (dA * A).sum(axis=1, keepdims=True))
    return dS @ K, dS.T @ Q, A.T @ dO


def attention_backward__diagonal_jacobian(Q, K, V, dO, causal=True, scale=True):
    A, s = _forward_weights(Q, K, causal, scale)
    dS = A * (1.0 - A) * (dO @ V.T) * s
    return dS @ K, dS.T @ Q, A.T @ dO


def attention_backward__mask_first_positions(Q, K, V, dO, causal=True, scale=True):
    A, s = _forward_weights(Q, K, causal, scale, first_positions=True)
    dA = dO @ V.T
    dS = A * (dA - (dA * A).sum(axis=1, keepdims=True)) * s
    return dS @ K, dS.T @ Q, A.T @ dO


def attention_backward__scale_twice_in_dK(Q, K, V, dO, causal=True, scale=True):
    A, s = _forward_weights(Q, K, causal, scale)
    dA = dO @ V.T
    dS = A * (dA - (dA * A).sum(axis=1, keepdims=True)) * s
    return dS @ K, dS.T @ (Q * s), A.T @ dO


def attention_backward_ok_einsum(Q, K, V, dO, causal=True, scale=True):
    A = attention_weights_ok_loop(Q, K, causal, scale)
    s = 1.0 / math.sqrt(Q.shape[1]) if scale else 1.0
    dV = np.einsum("qk,qv->kv", A, dO)
    dA = np.einsum("qv,kv->qk", dO, V)
    dS = softmax_backward_ok_jacobian(A, dA) * s
    return np.einsum("qk,kd->qd", dS, K), np.einsum("qk,qd->kd", dS, Q), dV


def _ln_parts(X, eps):
    mu = X.mean(axis=1, keepdims=True)
    rstd = 1.0 / np.sqrt(X.var(axis=1, keepdims=True) + eps)
    return (X - mu) * rstd, rstd


def layer_norm_backward__stats_constant(X, g, dY, eps=1e-5):
    Xhat, rstd = _ln_parts(X, eps)
    return dY * g * rstd, (dY * Xhat).sum(axis=0), dY.sum(axis=0)


def layer_norm_backward__no_variance_term(X, g, dY, eps=1e-5):
    Xhat, rstd = _ln_parts(X, eps)
    dXhat = dY * g
    dX = rstd * (dXhat - dXhat.mean(axis=1, keepdims=True))
    return dX, (dY * Xhat).sum(axis=0), dY.sum(axis=0)


def layer_norm_backward__no_mean_term(X, g, dY, eps=1e-5):
    Xhat, rstd = _ln_parts(X, eps)
    dXhat = dY * g
    dX = rstd * (dXhat - Xhat * (dXhat * Xhat).mean(axis=1, keepdims=True))
    return dX, (dY * Xhat).sum(axis=0), dY.sum(axis=0)


def layer_norm_backward__dg_from_raw_X(X, g, dY, eps=1e-5):
    Xhat, rstd = _ln_parts(X, eps)
    dXhat = dY * g
    dX = rstd * (dXhat - dXhat.mean(axis=1, keepdims=True) - Xhat * (dXhat * Xhat).mean(axis=1, keepdims=True))
    return dX, (dY * X).sum(axis=0), dY.sum(axis=0)


def layer_norm_backward__dg_db_swapped(X, g, dY, eps=1e-5):
    Xhat, rstd = _ln_parts(X, eps)
    dXhat = dY * g
    dX = rstd * (dXhat - dXhat.mean(axis=1, keepdims=True) - Xhat * (dXhat * Xhat).mean(axis=1, keepdims=True))
    return dX, dY.sum(axis=0), (dY * Xhat).sum(axis=0)


def layer_norm_backward_ok_classic(X, g, dY, eps=1e-5):
    n, d = X.shape
    dX = np.empty(X.shape)
    dg = np.zeros(d)
    db = np.zeros(d)
    for r in range(n):
        c = X[r] - X[r].mean()
        std = math.sqrt(float(c @ c) / d + eps)
        xhat = c / std
        dxhat = dY[r] * g
        dX[r] = (d * dxhat - dxhat.sum() - xhat * float(dxhat @ xhat)) / (d * std)
        dg += dY[r] * xhat
        db += dY[r]
    return dX, dg, db


# =====================================================================================================
# 12 most_attended, attention_entropy
# =====================================================================================================

def most_attended__argmax_over_queries(A, tokens):
    return [tokens[j] for j in A.argmax(axis=0)]


def most_attended__last_of_ties(A, tokens):
    out = []
    for row in A:
        best = 0
        for j in range(len(row)):
            if row[j] >= row[best]:
                best = j
        out.append(tokens[best])
    return out


def most_attended__numpy_array(A, tokens):
    return np.array(tokens)[A.argmax(axis=1)]


def most_attended__indices(A, tokens):
    return [int(j) for j in A.argmax(axis=1)]


def most_attended_ok_loop(A, tokens):
    out = []
    for row in np.asarray(A):
        best = max(range(len(row)), key=lambda j: (row[j], -j))
        out.append(tokens[best])
    return out


def attention_entropy__bits(A):
    with np.errstate(divide="ignore", invalid="ignore"):
        return -np.nansum(A * np.log2(A), axis=1)


def attention_entropy__zero_times_log_zero(A):
    with np.errstate(divide="ignore", invalid="ignore"):
        return -(A * np.log(A)).sum(axis=1)


def attention_entropy__clipped(A):
    Ac = np.clip(A, 1e-6, 1.0)
    return -(Ac * np.log(Ac)).sum(axis=1)


def attention_entropy__mean_not_sum(A):
    with np.errstate(divide="ignore", invalid="ignore"):
        return -np.where(A > 0, A * np.log(A), 0.0).mean(axis=1)


def attention_entropy__over_keys_axis0(A):
    with np.errstate(divide="ignore", invalid="ignore"):
        return -np.where(A > 0, A * np.log(A), 0.0).sum(axis=0)


def attention_entropy_ok_loop(A):
    out = np.zeros(A.shape[0])
    for i, row in enumerate(A):
        out[i] = -sum(float(a) * math.log(a) for a in row if a > 0)
    return out


# =====================================================================================================
# 13 padding_mask, cross_attention
# =====================================================================================================

def padding_mask__keeps_one_pad(n_q, n_valid, n_k):
    M = np.zeros((n_q, n_k))
    M[:, np.arange(n_k) > n_valid] = -np.inf
    return M


def padding_mask__masks_query_rows(n_q, n_valid, n_k):
    M = np.zeros((n_q, n_k))
    M[n_valid:, :] = -np.inf
    return M


def padding_mask__boolean(n_q, n_valid, n_k):
    return np.tile(np.arange(n_k) >= n_valid, (n_q, 1))


def padding_mask__plus_causal(n_q, n_valid, n_k):
    M = np.zeros((n_q, n_k))
    M[:, n_valid:] = -np.inf
    return M + _mask_last(n_q, n_k)


def padding_mask_ok_tile(n_q, n_valid, n_k):
    row = np.where(np.arange(n_k) < n_valid, 0.0, -np.inf)
    return np.tile(row, (n_q, 1))


def cross_attention__causal(X, Z, Wq, Wk, Wv):
    return _attention(X @ Wq, Z @ Wk, Z @ Wv, causal=True)


def cross_attention__roles_swapped(X, Z, Wq, Wk, Wv):
    return _attention(Z @ Wq, X @ Wk, X @ Wv, causal=False)


def cross_attention__scale_d_model(X, Z, Wq, Wk, Wv):
    S = (X @ Wq) @ (Z @ Wk).T / np.sqrt(X.shape[1])
    return _softmax(S) @ (Z @ Wv)


def cross_attention__softmax_over_queries(X, Z, Wq, Wk, Wv):
    S = (X @ Wq) @ (Z @ Wk).T / np.sqrt(Wq.shape[1])
    return _softmax(S, axis=0) @ (Z @ Wv)


def cross_attention_ok_einsum(X, Z, Wq, Wk, Wv):
    Q = np.einsum("xm,md->xd", X, Wq)
    K = np.einsum("zm,md->zd", Z, Wk)
    V = np.einsum("zm,mv->zv", Z, Wv)
    return attention_weights_ok_loop(Q, K, causal=False) @ V


# =====================================================================================================
# 14 attend_step, cache_step, sample_next, top_k_filter, top_p_filter, generate, kv_cache_bytes,
#    max_cached_tokens
# =====================================================================================================

def attend_step__no_max_shift(q, K_cache, V_cache):
    a = np.exp(K_cache @ q / np.sqrt(q.shape[0]))
    return (a / a.sum()) @ V_cache


def attend_step__scale_by_t(q, K_cache, V_cache):
    s = K_cache @ q / np.sqrt(K_cache.shape[0])
    a = np.exp(s - s.max())
    return (a / a.sum()) @ V_cache


def attend_step__skips_own_row(q, K_cache, V_cache):
    K, V = K_cache[:-1], V_cache[:-1]  # "the new token cannot attend to itself"
    s = K @ q / np.sqrt(q.shape[0])
    a = np.exp(s - s.max())
    return (a / a.sum()) @ V


def attend_step__keeps_row_axis(q, K_cache, V_cache):
    s = q[None, :] @ K_cache.T / np.sqrt(q.shape[0])
    a = np.exp(s - s.max())
    return (a / a.sum()) @ V_cache


def attend_step_ok_logsumexp(q, K_cache, V_cache):
    s = np.einsum("td,d->t", K_cache, q) / math.sqrt(q.shape[0])
    m = s.max()
    w = np.exp(s - (m + math.log(float(np.exp(s - m).sum()))))
    return np.einsum("t,tv->v", w, V_cache)


def cache_step__prepends(q, k, v, K_cache, V_cache):
    K_new = np.vstack([k[None, :], K_cache])
    V_new = np.vstack([v[None, :], V_cache])
    return _attend_step(q, K_new, V_new), K_new, V_new


def cache_step__tuple_order(q, k, v, K_cache, V_cache):
    K_new = np.vstack([K_cache, k])
    V_new = np.vstack([V_cache, v])
    return K_new, V_new, _attend_step(q, K_new, V_new)


def cache_step__np_append_flat(q, k, v, K_cache, V_cache):
    K_new = np.append(K_cache, k)
    V_new = np.append(V_cache, v)
    o = _attend_step(q, K_new.reshape(-1, len(q)), V_new.reshape(-1, len(v)))
    return o, K_new, V_new


def cache_step__key_into_values(q, k, v, K_cache, V_cache):
    K_new = np.concatenate([K_cache, k[None]], axis=0)
    V_new = np.concatenate([V_cache, k[None]], axis=0)
    return _attend_step(q, K_new, V_new), K_new, V_new


def cache_step_ok_preallocated(q, k, v, K_cache, V_cache):
    t = K_cache.shape[0]
    K_new = np.empty((t + 1, K_cache.shape[1]))
    V_new = np.empty((t + 1, V_cache.shape[1]))
    K_new[:t], K_new[t] = K_cache, k
    V_new[:t], V_new[t] = V_cache, v
    return attend_step_ok_logsumexp(q, K_new, V_new), K_new, V_new


def sample_next__left_side(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    p = _softmax(logits / temperature)
    cdf = np.cumsum(p)
    cdf /= cdf[-1]
    return int(np.searchsorted(cdf, u, side="left"))


def sample_next__times_temperature(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    p = _softmax(logits * temperature)
    cdf = np.cumsum(p)
    cdf /= cdf[-1]
    return int(np.searchsorted(cdf, u, side="right"))


def sample_next__numpy_int(logits, temperature, u):
    if temperature == 0:
        return np.argmax(logits)
    p = _softmax(logits / temperature)
    cdf = np.cumsum(p)
    cdf /= cdf[-1]
    return np.searchsorted(cdf, u, side="right")


def sample_next__cdf_not_rescaled(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    p = _softmax(logits / temperature)
    return int(np.searchsorted(np.cumsum(p), u, side="right"))


def sample_next__no_max_shift(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    e = np.exp(logits / temperature)
    cdf = np.cumsum(e / e.sum())
    cdf /= cdf[-1]
    return int(np.searchsorted(cdf, u, side="right"))


def sample_next_ok_walk(logits, temperature, u):
    z = np.asarray(logits, dtype=float)
    if temperature == 0.0:
        best = 0
        for i in range(len(z)):
            if z[i] > z[best]:
                best = i
        return best
    z = (z - z.max()) / temperature
    e = np.exp(z)
    cdf = np.cumsum(e / e.sum())
    total = cdf[-1]
    for i in range(len(cdf)):
        if cdf[i] / total > u:
            return i
    return len(cdf) - 1


def top_k_filter__exactly_k_indices(logits, k):
    out = np.full(logits.shape, -np.inf)
    idx = np.argsort(-logits, kind="stable")[:k]  # tf.nn.top_k(logits, k).indices
    out[idx] = logits[idx]
    return out


def top_k_filter__kth_smallest(logits, k):
    kth = np.sort(logits)[min(k, len(logits)) - 1]
    return np.where(logits >= kth, logits, -np.inf)


def top_k_filter__in_place(logits, k):
    kth = np.sort(logits)[::-1][min(k, len(logits)) - 1]
    logits[logits < kth] = -np.inf
    return logits


def top_k_filter__no_guard_for_large_k(logits, k):
    kth = np.sort(logits)[-k]
    return np.where(logits >= kth, logits, -np.inf)


def top_k_filter__strict_greater(logits, k):
    kth = np.sort(logits)[::-1][min(k, len(logits)) - 1]
    return np.where(logits > kth, logits, -np.inf)


def top_k_filter_ok_partition(logits, k):
    logits = np.asarray(logits, dtype=float)
    if k >= len(logits):
        return logits.copy()
    kth = np.partition(logits, len(logits) - k)[len(logits) - k]
    out = logits.copy()
    out[out < kth] = -np.inf
    return out


def _probs(logits):
    z = logits - logits.max()
    e = np.exp(z)
    return e / e.sum()


def top_p_filter__stops_below_p(logits, p):
    P = _probs(logits)
    order = np.argsort(-P, kind="stable")
    keep = order[np.cumsum(P[order]) < p]
    out = np.full(logits.shape, -np.inf)
    out[keep] = logits[keep]
    return out


def top_p_filter__one_past_equality(logits, p):
    P = _probs(logits)
    order = np.argsort(-P, kind="stable")
    n = int(np.searchsorted(np.cumsum(P[order]), p, side="right")) + 1
    out = np.full(logits.shape, -np.inf)
    out[order[:n]] = logits[order[:n]]
    return out


def top_p_filter__ties_higher_id_first(logits, p):
    P = _probs(logits)
    order = np.argsort(P, kind="stable")[::-1]
    n = int(np.searchsorted(np.cumsum(P[order]), p)) + 1
    out = np.full(logits.shape, -np.inf)
    out[order[:n]] = logits[order[:n]]
    return out


def top_p_filter__no_p_one_case(logits, p):
    P = _probs(logits)
    order = np.argsort(-P, kind="stable")
    n = int(np.searchsorted(np.cumsum(P[order]), p)) + 1
    out = np.full(logits.shape, -np.inf)
    out[order[:n]] = logits[order[:n]]
    return out


def top_p_filter__no_max_shift(logits, p):
    if p == 1.0:
        return logits.copy()
    e = np.exp(logits)
    P = e / e.sum()
    order = np.argsort(-P, kind="stable")
    n = int(np.searchsorted(np.cumsum(P[order]), p)) + 1
    out = np.full(logits.shape, -np.inf)
    out[order[:n]] = logits[order[:n]]
    return out


def top_p_filter_ok_loop(logits, p):
    logits = np.asarray(logits, dtype=float)
    out = np.full(logits.shape, -np.inf)
    if p >= 1.0:
        return logits.copy()
    P = _probs(logits)
    ranked = sorted(range(len(P)), key=lambda i: (-P[i], i))
    total = 0.0
    for i in ranked:
        out[i] = logits[i]
        total += P[i]
        if total >= p:
            break
    return out


def _gen_run(p, prompt, n_new, cache_step, *, residual=True, pos_by_id=False, reset=False, column=False):
    d = p["tok_emb"].shape[1]
    seq = [int(t) for t in prompt]
    K, V = np.zeros((0, d)), np.zeros((0, d))
    logits = None
    i = 0
    while len(seq) < len(prompt) + n_new:
        t = seq[i]
        x = p["tok_emb"][t] + p["pos_emb"][t if pos_by_id else i]
        if reset:
            K, V = np.zeros((0, d)), np.zeros((0, d))
        if column:
            q, k, v = p["Wq"] @ x, p["Wk"] @ x, p["Wv"] @ x
        else:
            q, k, v = x @ p["Wq"], x @ p["Wk"], x @ p["Wv"]
        o, K, V = cache_step(q, k, v, K, V)
        logits = ((x + o) if residual else o) @ p["W_out"]
        i += 1
        if i >= len(prompt):
            seq.append(int(np.argmax(logits)))
    return seq


def generate__logits_from_o_only(p, prompt, n_new, cache_step):
    return np.array(_gen_run(p, prompt, n_new, cache_step, residual=False))


def generate__position_by_token_id(p, prompt, n_new, cache_step):
    return np.array(_gen_run(p, prompt, n_new, cache_step, pos_by_id=True))


def generate__cache_reset_each_token(p, prompt, n_new, cache_step):
    return np.array(_gen_run(p, prompt, n_new, cache_step, reset=True))


def generate__column_vector_projections(p, prompt, n_new, cache_step):
    return np.array(_gen_run(p, prompt, n_new, cache_step, column=True))


def generate__returns_list(p, prompt, n_new, cache_step):
    return _gen_run(p, prompt, n_new, cache_step)


def generate_ok_two_phases(p, prompt, n_new, cache_step):
    tok_emb, pos_emb = p["tok_emb"], p["pos_emb"]
    d = tok_emb.shape[1]
    K, V = np.zeros((0, d)), np.zeros((0, d))
    out = np.zeros(len(prompt) + n_new, dtype=int)
    out[:len(prompt)] = prompt
    if n_new == 0:
        return out
    for i in range(len(prompt) + n_new - 1):  # every token but the last new one is fed
        x = tok_emb[out[i]] + pos_emb[i]
        o, K, V = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K, V)
        if i >= len(prompt) - 1:
            out[i + 1] = int(np.argmax((x + o) @ p["W_out"]))
    return out



def kv_cache_bytes__keys_only(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return n_layers * n_heads * d_head * seq_len * batch * bytes_per_value


def kv_cache_bytes__no_layers(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return 2 * n_heads * d_head * seq_len * batch * bytes_per_value


def kv_cache_bytes__no_batch(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return 2 * n_layers * n_heads * d_head * seq_len * bytes_per_value


def kv_cache_bytes__counts_numbers(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return 2 * n_layers * n_heads * d_head * seq_len * batch


def kv_cache_bytes_ok_prod(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    per_token = math.prod((n_layers, n_heads, d_head, bytes_per_value)) * 2
    return per_token * seq_len * batch


def _per_token(n_layers, n_heads, d_head, batch, bytes_per_value):
    return 2 * n_layers * n_heads * d_head * batch * bytes_per_value


def max_cached_tokens__float_division(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    return int(memory_bytes / _per_token(n_layers, n_heads, d_head, batch, bytes_per_value))


def max_cached_tokens__rounds_up(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    return -(-memory_bytes // _per_token(n_layers, n_heads, d_head, batch, bytes_per_value))


def max_cached_tokens__keys_only(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    return memory_bytes // (n_layers * n_heads * d_head * batch * bytes_per_value)


def max_cached_tokens__at_least_one(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    return max(1, memory_bytes // _per_token(n_layers, n_heads, d_head, batch, bytes_per_value))


def max_cached_tokens__strictly_less(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    return (memory_bytes - 1) // _per_token(n_layers, n_heads, d_head, batch, bytes_per_value)


def max_cached_tokens_ok_bisect(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    lo, hi = 0, 1
    while kv_cache_bytes_ok_prod(n_layers, n_heads, d_head, hi, batch, bytes_per_value) <= memory_bytes:
        hi *= 2
    while hi - lo > 1:  # lo fits (or is 0), hi does not
        mid = (lo + hi) // 2
        if kv_cache_bytes_ok_prod(n_layers, n_heads, d_head, mid, batch, bytes_per_value) <= memory_bytes:
            lo = mid
        else:
            hi = mid
    return int(lo)

# =====================================================================================================
# 15 previous_token_score, prefix_matching_score, ablate_head
# =====================================================================================================

def previous_token_score__divides_by_T(A):
    T = A.shape[0]
    return float(sum(A[t, t - 1] for t in range(1, T)) / T)


def previous_token_score__superdiagonal(A):
    T = A.shape[0]
    if T == 1:
        return 0.0
    return float(np.mean([A[t - 1, t] for t in range(1, T)]))


def previous_token_score__no_T1_case(A):
    with np.errstate(invalid="ignore", divide="ignore"):
        return float(np.diagonal(A, offset=-1).mean()) if A.shape[0] > 1 else float(np.nan)


def previous_token_score__skips_last_row(A):
    T = A.shape[0]
    if T == 1:
        return 0.0
    vals = [A[t, t - 1] for t in range(1, T - 1)]
    return float(np.mean(vals)) if vals else 0.0


def previous_token_score_ok_trace(A):
    T = A.shape[0]
    return float(np.trace(A, offset=-1) / (T - 1)) if T > 1 else 0.0


def prefix_matching_score__latest_copy_only(A, tokens):
    sums = []
    for t in range(len(tokens)):
        for j in range(t - 1, -1, -1):
            if tokens[j] == tokens[t]:
                sums.append(A[t, j + 1])
                break
    return float(np.mean(sums)) if sums else 0.0


def prefix_matching_score__weight_on_copy(A, tokens):
    sums = []
    for t in range(len(tokens)):
        js = [j for j in range(t) if tokens[j] == tokens[t]]
        if js:
            sums.append(sum(A[t, j] for j in js))
    return float(np.mean(sums)) if sums else 0.0


def prefix_matching_score__mean_over_all_rows(A, tokens):
    T = len(tokens)
    total = 0.0
    for t in range(T):
        total += sum(A[t, j + 1] for j in range(t) if tokens[j] == tokens[t])
    return float(total / T)


def prefix_matching_score__nan_without_copies(A, tokens):
    sums = []
    for t in range(len(tokens)):
        js = [j for j in range(t) if tokens[j] == tokens[t]]
        if js:
            sums.append(sum(A[t, j + 1] for j in js))
    with np.errstate(invalid="ignore"):
        return float(np.mean(sums)) if sums else float("nan")


def prefix_matching_score__mean_over_copies(A, tokens):
    vals = []
    for t in range(len(tokens)):
        js = [j for j in range(t) if tokens[j] == tokens[t]]
        if js:
            vals.append(np.mean([A[t, j + 1] for j in js]))
    return float(np.mean(vals)) if vals else 0.0


def prefix_matching_score_ok_matrix(A, tokens):
    tokens = np.asarray(tokens)
    T = len(tokens)
    same = tokens[:, None] == tokens[None, :]
    earlier = np.tril(same, k=-1)  # [t, j]: j < t and the same token
    shifted = np.zeros((T, T))
    shifted[:, 1:] = earlier[:, :-1]  # [t, j + 1]
    rows = earlier.any(axis=1)
    if not rows.any():
        return 0.0
    return float(np.einsum("tj,tj->t", A, shifted)[rows].mean())


def ablate_head__in_place(Wo, head, n_heads):
    d_head = Wo.shape[0] // n_heads
    Wo[head * d_head:(head + 1) * d_head] = 0.0
    return Wo


def ablate_head__columns(Wo, head, n_heads):
    out = Wo.copy()
    d_head = Wo.shape[0] // n_heads
    out[:, head * d_head:(head + 1) * d_head] = 0.0
    return out


def ablate_head__inclusive_end(Wo, head, n_heads):
    out = Wo.copy()
    d_head = Wo.shape[0] // n_heads
    out[head * d_head:(head + 1) * d_head + 1] = 0.0
    return out


def ablate_head__one_based_head(Wo, head, n_heads):
    out = Wo.copy()
    d_head = Wo.shape[0] // n_heads
    out[(head - 1) * d_head:head * d_head] = 0.0
    return out


def ablate_head__strided_rows(Wo, head, n_heads):
    out = Wo.copy()
    out[head::n_heads] = 0.0
    return out


def ablate_head_ok_mask(Wo, head, n_heads):
    d_head = Wo.shape[0] // n_heads
    keep = (np.arange(Wo.shape[0]) // d_head != head).astype(Wo.dtype)
    return Wo * keep[:, None]


# =====================================================================================================
# 16 rope, rope_attention
# =====================================================================================================

def rope__rotate_half(X, positions, theta=10000.0):
    d = X.shape[1]
    a = _angles(positions, d, theta)
    x, y = X[:, :d // 2], X[:, d // 2:]
    return np.concatenate([x * np.cos(a) - y * np.sin(a), x * np.sin(a) + y * np.cos(a)], axis=1)


def rope__exponent_i_over_d(X, positions, theta=10000.0):
    d = X.shape[1]
    a = np.asarray(positions, dtype=float)[:, None] * theta ** (-np.arange(d // 2) / d)
    out = np.empty(X.shape)
    out[:, 0::2] = X[:, 0::2] * np.cos(a) - X[:, 1::2] * np.sin(a)
    out[:, 1::2] = X[:, 0::2] * np.sin(a) + X[:, 1::2] * np.cos(a)
    return out


def rope__row_index(X, positions, theta=10000.0):
    return _rope(X, np.arange(X.shape[0]), theta)


def rope__clockwise(X, positions, theta=10000.0):
    a = _angles(positions, X.shape[1], theta)
    out = np.empty(X.shape)
    out[:, 0::2] = X[:, 0::2] * np.cos(a) + X[:, 1::2] * np.sin(a)
    out[:, 1::2] = -X[:, 0::2] * np.sin(a) + X[:, 1::2] * np.cos(a)
    return out


def rope__theta_ignored(X, positions, theta=10000.0):
    return _rope(X, positions, 10000.0)


def rope_ok_complex(X, positions, theta=10000.0):
    d = X.shape[1]
    z = X[:, 0::2] + 1j * X[:, 1::2]
    freq = np.exp(-np.log(theta) * np.arange(d // 2) * 2.0 / d)
    z = z * np.exp(1j * np.outer(np.asarray(positions, dtype=float), freq))
    out = np.empty((X.shape[0], d))
    out[:, 0::2], out[:, 1::2] = z.real, z.imag
    return out


def rope_attention__rotates_values(Q, K, V, positions, theta=10000.0):
    return _attention(_rope(Q, positions, theta), _rope(K, positions, theta), _rope(V, positions, theta))


def rope_attention__queries_only(Q, K, V, positions, theta=10000.0):
    return _attention(_rope(Q, positions, theta), K, V)


def rope_attention__theta_not_passed(Q, K, V, positions, theta=10000.0):
    return _attention(_rope(Q, positions), _rope(K, positions), V)


def rope_attention__no_causal_mask(Q, K, V, positions, theta=10000.0):
    Qr, Kr = _rope(Q, positions, theta), _rope(K, positions, theta)
    return _softmax(Qr @ Kr.T / np.sqrt(Q.shape[1])) @ V


def rope_attention_ok_einsum(Q, K, V, positions, theta=10000.0):
    Qr, Kr = rope_ok_complex(Q, positions, theta), rope_ok_complex(K, positions, theta)
    return np.einsum("ij,jv->iv", attention_weights_ok_loop(Qr, Kr, causal=True), V)


# =====================================================================================================
# 17 grouped_query_attention, grouped_cache_step
# =====================================================================================================

def _gqa(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal, group_of, scale_width=False):
    d_head = Wq.shape[1] // n_heads
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    heads = []
    for h in range(n_heads):
        g = group_of(h)
        q = Q[:, h * d_head:(h + 1) * d_head]
        k = K[:, g * d_head:(g + 1) * d_head]
        v = V[:, g * d_head:(g + 1) * d_head]
        if scale_width:
            S = q @ k.T / np.sqrt(Wk.shape[1])
            if causal:
                S = S + _mask_last(len(q), len(k))
            heads.append(_softmax(S) @ v)
        else:
            heads.append(attend(q, k, v, causal))
    return np.concatenate(heads, axis=1) @ Wo


def grouped_query_attention__groups_interleaved(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    return _gqa(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal, lambda h: h % n_kv_heads)


def grouped_query_attention__divides_by_n_kv(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    return _gqa(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal, lambda h: h // n_kv_heads)


def grouped_query_attention__scale_kv_width(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    r = n_heads // n_kv_heads
    return _gqa(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal, lambda h: h // r, scale_width=True)


def grouped_query_attention__ignores_causal(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    r = n_heads // n_kv_heads
    return _gqa(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, True, lambda h: h // r)


def grouped_query_attention__d_head_from_Wk(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    d_head = Wk.shape[1] // n_heads
    r = n_heads // n_kv_heads
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    heads = []
    for h in range(n_heads):
        g = h // r
        heads.append(attend(Q[:, h * d_head:(h + 1) * d_head], K[:, g * d_head:(g + 1) * d_head],
                            V[:, g * d_head:(g + 1) * d_head], causal))
    return np.concatenate(heads, axis=1) @ Wo


def grouped_query_attention_ok_repeat(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    n = X.shape[0]
    d_head = Wq.shape[1] // n_heads
    Q = (X @ Wq).reshape(n, n_heads, d_head).transpose(1, 0, 2)
    K = np.repeat((X @ Wk).reshape(n, n_kv_heads, d_head).transpose(1, 0, 2), n_heads // n_kv_heads, axis=0)
    V = np.repeat((X @ Wv).reshape(n, n_kv_heads, -1).transpose(1, 0, 2), n_heads // n_kv_heads, axis=0)
    S = Q @ K.transpose(0, 2, 1) / math.sqrt(d_head)
    if causal:
        S = S + np.triu(np.full((n, n), -np.inf), k=1)
    A = np.exp(S - S.max(axis=-1, keepdims=True))
    A = A / A.sum(axis=-1, keepdims=True)
    return (A @ V).transpose(1, 0, 2).reshape(n, -1) @ Wo


def _grouped_step(q, K_new, V_new, group_of, scale_dim=None):
    n_heads, d_head = q.shape
    o = np.empty((n_heads, V_new.shape[2]))
    for h in range(n_heads):
        g = group_of(h)
        s = K_new[g] @ q[h] / np.sqrt(d_head if scale_dim is None else scale_dim)
        a = np.exp(s - s.max())
        o[h] = (a / a.sum()) @ V_new[g]
    return o


def grouped_cache_step__groups_interleaved(q, k, v, K_cache, V_cache):
    n_kv = k.shape[0]
    K_new = np.concatenate([K_cache, k[:, None, :]], axis=1)
    V_new = np.concatenate([V_cache, v[:, None, :]], axis=1)
    return _grouped_step(q, K_new, V_new, lambda h: h % n_kv), K_new, V_new


def grouped_cache_step__cache_per_query_head(q, k, v, K_cache, V_cache):
    r = q.shape[0] // k.shape[0]
    K_new = np.concatenate([K_cache, k[:, None, :]], axis=1)
    V_new = np.concatenate([V_cache, v[:, None, :]], axis=1)
    K_new, V_new = np.repeat(K_new, r, axis=0), np.repeat(V_new, r, axis=0)  # "expand the groups for the heads"
    return _grouped_step(q, K_new, V_new, lambda h: h), K_new, V_new


def grouped_cache_step__prepends(q, k, v, K_cache, V_cache):
    r = q.shape[0] // k.shape[0]
    K_new = np.concatenate([k[:, None, :], K_cache], axis=1)
    V_new = np.concatenate([v[:, None, :], V_cache], axis=1)
    return _grouped_step(q, K_new, V_new, lambda h: h // r), K_new, V_new


def grouped_cache_step__empty_cache_returns_v(q, k, v, K_cache, V_cache):
    r = q.shape[0] // k.shape[0]
    K_new = np.concatenate([K_cache, k[:, None, :]], axis=1)
    V_new = np.concatenate([V_cache, v[:, None, :]], axis=1)
    if K_cache.shape[1] == 0:  # one key: its weight is 1, so the output is the value
        return v.copy(), K_new, V_new
    return _grouped_step(q, K_new, V_new, lambda h: h // r), K_new, V_new


def grouped_cache_step__scale_from_head_count(q, k, v, K_cache, V_cache):
    r = q.shape[0] // k.shape[0]
    K_new = np.concatenate([K_cache, k[:, None, :]], axis=1)
    V_new = np.concatenate([V_cache, v[:, None, :]], axis=1)
    return _grouped_step(q, K_new, V_new, lambda h: h // r, scale_dim=q.shape[0]), K_new, V_new


def grouped_cache_step_ok_einsum(q, k, v, K_cache, V_cache):
    n_heads, d_head = q.shape
    n_kv, t = K_cache.shape[0], K_cache.shape[1]
    K_new = np.empty((n_kv, t + 1, d_head))
    V_new = np.empty((n_kv, t + 1, V_cache.shape[2]))
    K_new[:, :t], K_new[:, t] = K_cache, k
    V_new[:, :t], V_new[:, t] = V_cache, v
    qg = q.reshape(n_kv, n_heads // n_kv, d_head)  # heads g*r .. g*r + r - 1 under group g
    s = np.einsum("grd,gtd->grt", qg, K_new) / math.sqrt(d_head)
    w = np.exp(s - s.max(axis=-1, keepdims=True))
    w /= w.sum(axis=-1, keepdims=True)
    o = np.einsum("grt,gtv->grv", w, V_new).reshape(n_heads, -1)
    return o, K_new, V_new


# =====================================================================================================
# 18 sliding_window_mask, rolling_cache_step
# =====================================================================================================

def sliding_window_mask__one_too_many(n, window):
    i, j = np.indices((n, n))
    return np.where((j <= i) & (j >= i - window), 0.0, -np.inf)


def sliding_window_mask__band_part_swapped(n, window):
    ones = np.ones((n, n))
    band = np.triu(np.tril(ones, window - 1), 0)  # band_part(ones, 0, window - 1): num_lower and num_upper swapped
    return np.where(band > 0, 0.0, -np.inf)


def sliding_window_mask__not_causal(n, window):
    i, j = np.indices((n, n))
    return np.where(np.abs(i - j) < window, 0.0, -np.inf)


def sliding_window_mask__zero_one(n, window):
    i, j = np.indices((n, n))
    return ((j <= i) & (j > i - window)).astype(float)


def sliding_window_mask__where_swapped(n, window):
    i, j = np.indices((n, n))
    visible = (j <= i) & (j > i - window)
    return np.where(visible, -np.inf, 0.0)


def sliding_window_mask_ok_loops(n, window):
    Mk = np.full((n, n), -np.inf)
    for i in range(n):
        for j in range(max(0, i - window + 1), i + 1):
            Mk[i, j] = 0.0
    return Mk


def rolling_cache_step__cut_before_append(q, k, v, K_cache, V_cache, window, n_sinks=0):
    if len(K_cache) >= window:
        keep = list(range(n_sinks)) + list(range(len(K_cache) - (window - n_sinks), len(K_cache)))
        K_cache, V_cache = K_cache[keep], V_cache[keep]
    K_new, V_new = np.vstack([K_cache, k]), np.vstack([V_cache, v])
    return _attend_step(q, K_new, V_new), K_new, V_new


def rolling_cache_step__sinks_ignored(q, k, v, K_cache, V_cache, window, n_sinks=0):
    K_new, V_new = np.vstack([K_cache, k])[-window:], np.vstack([V_cache, v])[-window:]
    return _attend_step(q, K_new, V_new), K_new, V_new


def rolling_cache_step__window_after_sinks(q, k, v, K_cache, V_cache, window, n_sinks=0):
    K_all, V_all = np.vstack([K_cache, k]), np.vstack([V_cache, v])
    if len(K_all) > window + n_sinks:
        K_all = np.vstack([K_all[:n_sinks], K_all[-window:]])
        V_all = np.vstack([V_all[:n_sinks], V_all[-window:]])
    return _attend_step(q, K_all, V_all), K_all, V_all


def rolling_cache_step__attends_before_cut(q, k, v, K_cache, V_cache, window, n_sinks=0):
    K_all, V_all = np.vstack([K_cache, k]), np.vstack([V_cache, v])
    o = _attend_step(q, K_all, V_all)
    if len(K_all) > window:
        keep = list(range(n_sinks)) + list(range(len(K_all) - (window - n_sinks), len(K_all)))
        K_all, V_all = K_all[keep], V_all[keep]
    return o, K_all, V_all


def rolling_cache_step__always_splices(q, k, v, K_cache, V_cache, window, n_sinks=0):
    K_all, V_all = np.vstack([K_cache, k]), np.vstack([V_cache, v])
    if n_sinks > 0:  # splice sinks + recent even while the cache is not full
        K_all = np.vstack([K_all[:n_sinks], K_all[-(window - n_sinks):]])
        V_all = np.vstack([V_all[:n_sinks], V_all[-(window - n_sinks):]])
    else:
        K_all, V_all = K_all[-window:], V_all[-window:]
    return _attend_step(q, K_all, V_all), K_all, V_all


def rolling_cache_step_ok_indices(q, k, v, K_cache, V_cache, window, n_sinks=0):
    t = K_cache.shape[0]
    rows = list(range(t + 1))
    if t + 1 > window:
        rows = rows[:n_sinks] + rows[t + 1 - (window - n_sinks):]
    K_all = np.concatenate([K_cache, np.asarray(k, dtype=float)[None]], axis=0)
    V_all = np.concatenate([V_cache, np.asarray(v, dtype=float)[None]], axis=0)
    K_new, V_new = K_all[rows], V_all[rows]
    return attend_step_ok_logsumexp(q, K_new, V_new), K_new, V_new

# =====================================================================================================
# 19 capstone: dicts of ops for TinyLM(ops=...)
# =====================================================================================================

RIGHT_OPS = {
    "softmax": softmax_ok_logsumexp,
    "attention": attention_ok_einsum,
    "embed": embed_ok_one_hot,
    "multi_head_attention": multi_head_attention_ok_batched,
    "layer_norm": layer_norm_ok_rows,
    "gelu": gelu_ok_sigmoid,
    "transformer_block": transformer_block_ok_steps,
    "next_token_logits": next_token_logits_ok_all_then_last,
    "cross_entropy": cross_entropy_ok_rows,
    "softmax_backward": softmax_backward_ok_jacobian,
    "attention_backward": attention_backward_ok_einsum,
    "layer_norm_backward": layer_norm_backward_ok_classic,
    "cache_step": cache_step_ok_preallocated,
    "sample_next": sample_next_ok_walk,
    "rope": rope_ok_complex,
    "grouped_query_attention": grouped_query_attention_ok_repeat,
    "grouped_cache_step": grouped_cache_step_ok_einsum,
    "rolling_cache_step": rolling_cache_step_ok_indices,
}


def _ops(**wrong):
    return {**RIGHT_OPS, **wrong}


CAPSTONE_MISTAKES = [
    M("capstone", "ops['gelu'] is the sigmoid approximation x * sigmoid(1.702 x) instead of the tanh GELU formula",
      _ops(gelu=gelu__sigmoid_1702)),
    M("capstone", "ops['layer_norm'] adds eps to the standard deviation, outside the square root, instead of to the "
                  "variance inside it", _ops(layer_norm=layer_norm__eps_outside_sqrt)),
    M("capstone", "ops['cross_entropy'] sums the loss and its gradient over the rows instead of averaging, and "
                  "ops['attention_backward'] leaves the 1/sqrt(d) scale out of dQ and dK",
      _ops(cross_entropy=cross_entropy__summed, attention_backward=attention_backward__scale_dropped)),
    M("capstone", "ops['embed'] counts positions from 1, adding pos_emb[1:n+1] instead of pos_emb[:n]",
      _ops(embed=embed__positions_from_one)),
    M("capstone", "ops['softmax_backward'] keeps only the diagonal of the softmax Jacobian, A(1-A) dA, and drops the "
                  "-A (A . dA) cross terms", _ops(softmax_backward=softmax_backward__diagonal_only)),
    M("capstone", "ops['rope'] pairs feature i with feature i + d/2 (rotate-half layout) instead of the adjacent "
                  "features 2i and 2i+1", _ops(rope=rope__rotate_half)),
    M("capstone", "ops['rolling_cache_step'] ignores n_sinks and keeps only the last window rows, evicting the sinks",
      _ops(rolling_cache_step=rolling_cache_step__sinks_ignored)),
    M("capstone", "ops['cache_step'] appends the new key k to the value cache instead of v, and ops['sample_next'] "
                  "returns the first token whose running total is >= u instead of > u",
      _ops(cache_step=cache_step__key_into_values, sample_next=sample_next__left_side)),
]


# =====================================================================================================
# The set
# =====================================================================================================

MISTAKES = [
    # 01
    M("project", "multiplies W @ x (the column-vector form x' = Wx) instead of x @ W, i.e. uses Wᵀ; fails unless W "
                 "is square", project__column_vector),
    M("project", "sums over the output index j instead of the input index i ((x[:, None] * W).sum(axis=1)), giving "
                 "d_in numbers", project__sums_output_axis),
    M("project", "the loop over input features starts at 1 (range(1, d_in)), leaving out x[0] * W[0]",
      project__loop_skips_first),
    M("project", "returns a (1, d_out) row matrix (x.reshape(1, -1) @ W) instead of a (d_out,) vector",
      project__row_matrix),
    M("compose", "composes in the column-vector order W2 @ W1 instead of W1 @ W2", compose__column_order),
    M("compose", "transposes the second factor (tf.matmul(W1, W2, transpose_b=True) habit): W1 @ W2.T",
      compose__transpose_b),
    M("compose", "returns W2ᵀ W1ᵀ, the transpose of the composite, shape (d_out, d_in) instead of (d_in, d_out)",
      compose__transposed_result),
    M("compose", "the inner loop over the middle dimension runs range(d_mid - 1), dropping the last term of every "
                 "dot product", compose__loop_drops_last_mid),
    # 02
    M("project_rows", "returns Wᵀ Xᵀ (column-vector convention), the (d_out, n) transpose of the answer",
      project_rows__transposed),
    M("project_rows", "the row loop runs range(n - 1), so the last output row stays zero",
      project_rows__range_n_minus_1),
    M("project_rows", "returns a Python list of projected rows instead of an (n, d_out) array",
      project_rows__list_of_rows),
    M("project_rows", "einsum subscripts 'ni,oi->no' contract X with the rows of Wᵀ, computing X Wᵀ instead of X W",
      project_rows__einsum_transposed_W),
    M("matmul_cost", "uses np.prod, which returns a numpy int64 (not a Python int) that silently wraps around past "
                     "2**63", matmul_cost__numpy_prod),
    M("matmul_cost", "counts FLOPs as 2 n d_in d_out (a multiply and an add each) instead of the n d_in d_out "
                     "multiplications", matmul_cost__flops_twice),
    M("matmul_cost", "counts multiplications and additions, n d_out (2 d_in - 1), instead of multiplications only",
      matmul_cost__mults_and_adds),
    M("matmul_cost", "uses d_in twice (n * d_in * d_in) instead of n * d_in * d_out", matmul_cost__d_in_twice),
    M("matmul_cost", "computes the count in floating point (np.float64), returning a float that rounds for large "
                     "sizes instead of an exact int", matmul_cost__float),
    # 03
    M("values", "drops repeated words (dict.fromkeys(tokens)), so the second 'the' gets no row",
      values__drops_repeats),
    M("values", "builds X from the sorted set of words instead of the tokens in sentence order, losing order and "
                "repeats", values__sorted_vocabulary),
    M("values", "builds X from every word of the table (table.values()) instead of one row per token",
      values__whole_table),
    M("values", "returns Wvᵀ Xᵀ (column-vector convention), the (d_v, n) transpose of V", values__column_vectors),
    M("one_hot", "allocates an integer array (dtype=int) instead of a float array", one_hot__int_dtype),
    M("one_hot", "indexes the columns of the identity (np.eye(vocab)[:, ids]), returning the (vocab, n) transpose",
      one_hot__eye_columns),
    M("one_hot", "sizes the columns from ids.max() + 1 instead of vocab_size", one_hot__width_from_max_id),
    M("one_hot", "the row loop starts at 1 (range(1, n)), leaving row 0 all zeros", one_hot__loop_skips_first),
    M("one_hot", "treats ids as 1-based and puts the 1 in column ids[i] - 1 (id 0 wraps to the last column)",
      one_hot__one_based_ids),
    # 04
    M("uniform_causal_weights", "normalises the lower triangle by its column sums (axis 0) instead of its row sums",
      uniform_causal_weights__columns_normalised),
    M("uniform_causal_weights", "fills columns j < i only (A[i, :i]), leaving out the diagonal: j < i instead of "
                                "j <= i", uniform_causal_weights__excludes_diagonal),
    M("uniform_causal_weights", "uses the upper triangle (np.triu), giving row i weight on columns i..n-1 (the "
                                "future)", uniform_causal_weights__upper_triangle),
    M("uniform_causal_weights", "divides every entry of the lower triangle by n instead of by i + 1",
      uniform_causal_weights__divides_by_n),
    M("causal_average", "divides the running sum by n (the total count) instead of by i + 1",
      causal_average__divides_by_n),
    M("causal_average", "takes the running sum along the features (axis=1) instead of down the rows",
      causal_average__cumsum_features),
    M("causal_average", "averages rows 0..i-1 (excludes the row itself, j < i instead of j <= i)",
      causal_average__excludes_self),
    M("causal_average", "divides by the counts np.arange(1, n+1) as a row (no [:, None]), so they broadcast over the "
                        "columns instead of the rows", causal_average__counts_not_a_column),
    # 05
    M("similarity", "returns K Qᵀ, the (n_k, n_q) transpose, instead of Q Kᵀ", similarity__keys_by_queries),
    M("similarity", "computes Qᵀ K, contracting over the tokens instead of the features", similarity__contracts_tokens),
    M("similarity", "divides by sqrt(d) although the exercise asks for the raw, unscaled scores", similarity__scaled),
    M("similarity", "normalises the rows of Q and K first (cosine similarity) instead of the raw dot products",
      similarity__cosine),
    M("learned_scores", "swaps the roles of Wq and Wk, returning (X Wk)(X Wq)ᵀ = Sᵀ", learned_scores__roles_swapped),
    M("learned_scores", "uses Wq for both queries and keys (Wk ignored), giving a symmetric matrix",
      learned_scores__Wq_twice),
    M("learned_scores", "adds a causal mask (-inf above the diagonal) although the exercise asks for no mask yet",
      learned_scores__causal_masked),
    M("learned_scores", "divides the scores by sqrt(d) although the exercise asks for no scaling yet",
      learned_scores__scaled),
    # 06
    M("causal_mask", "np.triu with k=0 also masks the diagonal: -inf where j >= i instead of j > i",
      causal_mask__masks_diagonal),
    M("causal_mask", "masks below the diagonal (np.tril(..., k=-1)), hiding the past instead of the future",
      causal_mask__masks_past),
    M("causal_mask", "returns a 0/1 multiplicative mask (ones on and below the diagonal) instead of the additive "
                     "0/-inf mask", causal_mask__zero_one),
    M("causal_mask", "uses -1e9 (the TensorFlow habit) instead of -inf for the future", causal_mask__minus_1e9),
    M("causal_mask", "multiplies a 0/1 upper triangle by -inf, so the allowed entries become 0 * -inf = nan instead "
                     "of 0", causal_mask__times_inf),
    M("softmax", "exponentiates without subtracting the max, so scores around 1000 overflow to inf/nan",
      softmax__no_max_shift),
    M("softmax", "subtracts the global max of the whole array instead of the max along axis, so rows far below it "
                 "underflow to 0/0", softmax__global_max),
    M("softmax", "ignores the axis argument and always normalises along the last axis", softmax__ignores_axis),
    M("softmax", "forgets keepdims=True on the max and the sum, so they broadcast along the wrong axis",
      softmax__no_keepdims),
    M("softmax", "clips the scores to [-50, 50] before exponentiating, changing large differences and giving -inf "
                 "entries a nonzero weight", softmax__clipped),
    M("score_scale", "returns 1/d (the inverse of the variance) instead of 1/sqrt(d)", score_scale__one_over_d),
    M("score_scale", "returns sqrt(d) (the standard deviation) instead of its inverse 1/sqrt(d)",
      score_scale__sqrt_d),
    M("score_scale", "uses floor division 1 // sqrt(d), which gives 0.0 for every d > 1", score_scale__floor_division),
    M("score_scale", "writes 1 / d ** 1/2, which Python evaluates as 1/(2d), not 1/sqrt(d)", score_scale__precedence),
    M("attention_weights", "aligns the causal mask to the first n_q positions (query i sees keys 0..i) instead of the "
                           "last n_q when n_q < n_k", attention_weights__mask_first_positions),
    M("attention_weights", "divides by sqrt(K.shape[0]) = sqrt(n_k) instead of sqrt(d)",
      attention_weights__scale_by_n_k),
    M("attention_weights", "takes the softmax over the queries (axis 0) instead of over the keys (each row)",
      attention_weights__softmax_over_queries),
    M("attention_weights", "applies the mask after the softmax by zeroing future weights, so the rows no longer sum "
                           "to 1", attention_weights__mask_after_softmax),
    M("attention_weights", "always applies the causal mask, ignoring causal=False", attention_weights__always_masked),
    # 07
    M("attention", "aligns the causal mask to the first n_q positions (np.triu k=1 on the (n_q, n_k) scores) instead "
                   "of the last n_q", attention__mask_first_positions),
    M("attention", "divides the scores by sqrt(d_v) (V.shape[1]) instead of sqrt(d) (Q.shape[1])",
      attention__scale_by_d_v),
    M("attention", "divides the weights A by sqrt(d) after the softmax instead of the scores before it",
      attention__scale_after_softmax),
    M("attention", "np.where(future, S, -inf) has its branches swapped (jnp.where habit): it hides the past and "
                   "keeps the future", attention__where_branches_swapped),
    M("attention", "divides by sqrt(d) only inside the `if causal` branch, so causal=False leaves the scores "
                   "unscaled", attention__scale_only_when_causal),
    M("self_attention", "tests `if Wo:` instead of `if Wo is not None`, which raises on an array (truth value "
                        "ambiguous)", self_attention__truthy_Wo),
    M("self_attention", "divides the scores by sqrt(d_model) (X.shape[1]) instead of sqrt(d_head)",
      self_attention__scale_d_model),
    M("self_attention", "never passes causal on, so causal=False still masks the future",
      self_attention__ignores_causal),
    M("self_attention", "makes the values with Wk (V = X Wk) instead of Wv", self_attention__values_from_Wk),
    M("future_leak", "returns the smallest leaking offset (loops k upwards and stops at the first) instead of the "
                     "largest", future_leak__smallest_offset),
    M("future_leak", "uses an absolute threshold of 1e-9 instead of 1e-9 times the largest output, so rounding noise "
                     "of large outputs counts as a leak", future_leak__absolute_threshold),
    M("future_leak", "only tests the next row (k = 1), returning 1 or 0 instead of the largest offset",
      future_leak__next_row_only),
    M("future_leak", "nudges X in place (X[j] += 1, then X[j] -= 1), which leaves X changed by rounding instead of "
                     "working on a copy", future_leak__in_place_nudge),
    M("future_leak", "moves rows range(n - 1) only, never the last row, so leaks into the last position are missed",
      future_leak__never_moves_last_row),
    M("tiled_attention", "rescales the running sum l when the max rises but not the accumulator acc",
      tiled_attention__acc_not_rescaled),
    M("tiled_attention", "rescales by exp(m_new - m_old) instead of exp(m_old - m_new) (sign of the exponent flipped)",
      tiled_attention__rescale_sign_flipped),
    M("tiled_attention", "masks as if query i sat at position i (ignores the n_k - n_q offset when n_q < n_k)",
      tiled_attention__mask_ignores_offset),
    M("tiled_attention", "never divides the scores by sqrt(d)", tiled_attention__unscaled),
    M("tiled_attention", "divides acc by l after every tile without multiplying the old normalisation back, instead "
                         "of dividing once at the end", tiled_attention__normalised_every_tile),
    M("tiled_attention", "computes each query block against all keys at once (a (block, n_k) strip and an ordinary "
                         "softmax), exceeding the memory bound instead of one (block, block) tile at a time",
      tiled_attention__strip_against_all_keys),
    # 08
    M("embed", "indexes the position table by the token ids (pos_emb[tokens]) instead of by the positions 0..n-1",
      embed__positions_by_token_id),
    M("embed", "adds the last n rows of the position table (pos_emb[-n:]) instead of the first n",
      embed__last_position_rows),
    M("embed", "counts positions from 1 (pos_emb[1:n+1]) instead of 0", embed__positions_from_one),
    M("embed", "concatenates word and position vectors (n, 2 d_model) instead of adding them", embed__concatenated),
    M("sinusoidal_positions", "puts the cosine on the even columns and the sine on the odd ones (swapped)",
      sinusoidal_positions__cos_first),
    M("sinusoidal_positions", "uses the exponent i/d instead of 2i/d in 10000^(2i/d)",
      sinusoidal_positions__exponent_i_over_d),
    M("sinusoidal_positions", "lays out all sines in the first half and all cosines in the second half instead of "
                              "interleaving them in pairs", sinusoidal_positions__halves),
    M("sinusoidal_positions", "counts positions from t = 1 instead of t = 0", sinusoidal_positions__positions_from_one),
    M("sinusoidal_positions", "uses the column index j in the exponent (10000^(2j/d)) instead of the pair index i = "
                              "j // 2", sinusoidal_positions__column_index_exponent),
    # 09
    M("split_heads", "reshapes M straight to (n_heads, n, d_head) without first splitting the columns, scrambling "
                     "rows and heads", split_heads__plain_reshape),
    M("split_heads", "reshapes to (n, d_head, n_heads), so head h gets every n_heads-th column (interleaved) instead "
                     "of a contiguous block", split_heads__interleaved),
    M("split_heads", "returns a Python list of per-head matrices instead of one (n_heads, n, d_head) array",
      split_heads__list),
    M("split_heads", "assigns M.shape = (n, n_heads, d_head), modifying the caller's M in place (and returning a view "
                     "of it)", split_heads__shape_assigned),
    M("multi_head_attention", "scales every head by sqrt(d_model) instead of sqrt(d_head)",
      multi_head_attention__scale_d_model),
    M("multi_head_attention", "splits the heads interleaved (reshape (n, d_head, n_heads)) instead of contiguous "
                              "column blocks", multi_head_attention__interleaved_heads),
    M("multi_head_attention", "never passes causal to the heads, so causal=False still masks",
      multi_head_attention__ignores_causal),
    M("multi_head_attention", "returns the concatenated heads without multiplying by Wo",
      multi_head_attention__no_Wo),
    M("multi_head_attention", "computes d_head from d_model (X.shape[1] // n_heads) instead of from the projection "
                              "width (Wq.shape[1] // n_heads)", multi_head_attention__d_head_from_d_model),
    # 10
    M("layer_norm", "adds eps to the standard deviation, outside the square root, instead of to the variance inside "
                    "it", layer_norm__eps_outside_sqrt),
    M("layer_norm", "uses the unbiased variance (ddof=1, dividing by d - 1) instead of the biased one",
      layer_norm__unbiased_variance),
    M("layer_norm", "hard-codes Keras LayerNormalization's epsilon=1e-3, ignoring the eps argument (default 1e-5)",
      layer_norm__keras_epsilon),
    M("layer_norm", "normalises over the tokens (axis 0, batch-norm style) instead of over each row's features",
      layer_norm__over_tokens),
    M("layer_norm", "forgets keepdims=True on the mean and variance, so the (n,) statistics broadcast across the "
                    "columns instead of the rows", layer_norm__no_keepdims),
    M("gelu", "uses the exact erf GELU (jax.nn.gelu with approximate=False) instead of the tanh approximation",
      gelu__exact_erf),
    M("gelu", "uses the sigmoid approximation x * sigmoid(1.702 x) instead of the tanh formula", gelu__sigmoid_1702),
    M("gelu", "uses sqrt(2 pi) instead of sqrt(2/pi) inside the tanh", gelu__sqrt_two_pi),
    M("gelu", "uses 0.044715 x² instead of 0.044715 x³ inside the tanh", gelu__square_not_cube),
    M("gelu", "drops the factor 0.5 in front, returning twice the GELU", gelu__missing_half),
    M("transformer_block", "builds a post-LN block (layer norm after each residual add) instead of pre-LN",
      transformer_block__post_ln),
    M("transformer_block", "adds the MLP output to X instead of Y, dropping the attention branch from the output",
      transformer_block__mlp_residual_from_X),
    M("transformer_block", "uses ln1_g and ln1_b for the second layer norm too, instead of ln2_g and ln2_b",
      transformer_block__ln1_params_twice),
    M("transformer_block", "feeds Y to the MLP without the second layer norm", transformer_block__no_second_norm),
    M("transformer_block", "drops the residual around attention: Y = MHA(LN1(X)) instead of X + MHA(LN1(X))",
      transformer_block__no_attention_residual),
    # 11
    M("next_token_logits", "uses the first row H[0] instead of the last row", next_token_logits__first_row),
    M("next_token_logits", "averages all rows of H (H.mean(axis=0)) instead of taking the last row",
      next_token_logits__mean_of_rows),
    M("next_token_logits", "returns the logits of every position, (n, vocab), instead of the last row's (vocab,)",
      next_token_logits__every_row),
    M("next_token_logits", "applies a softmax, returning probabilities instead of raw logits",
      next_token_logits__probabilities),
    M("cross_entropy", "sums the loss and the gradient over the rows instead of averaging (no 1/n)",
      cross_entropy__summed),
    M("cross_entropy", "averages the loss but forgets the 1/n in dlogits", cross_entropy__gradient_not_averaged),
    M("cross_entropy", "takes np.log of the softmax probabilities, so a target probability that underflows gives "
                       "log(0) = -inf, instead of log-sum-exp", cross_entropy__log_of_probability),
    M("cross_entropy", "measures the loss in bits (log base 2) instead of the natural log", cross_entropy__log2),
    M("cross_entropy", "flips the gradient's sign: (one_hot - softmax) / n instead of (softmax - one_hot) / n",
      cross_entropy__gradient_sign),
    M("softmax_backward", "keeps only the diagonal of the softmax Jacobian, A(1-A) dA, dropping the cross terms",
      softmax_backward__diagonal_only),
    M("softmax_backward", "sums A * dA over axis 0 instead of the last axis", softmax_backward__sum_over_axis0),
    M("softmax_backward", "adds the sum instead of subtracting it: A (dA + sum(A dA))", softmax_backward__plus_sign),
    M("softmax_backward", "drops the outer factor A: dA - sum(A dA) instead of A (dA - sum(A dA))",
      softmax_backward__outer_A_dropped),
    M("softmax_backward", "subtracts sum(dA) instead of the A-weighted sum(A dA)", softmax_backward__sums_dA_alone),
    M("attention_backward", "computes dV = A dO instead of Aᵀ dO (transpose on the wrong factor)",
      attention_backward__dV_wrong_transpose),
    M("attention_backward", "leaves the scale s = 1/sqrt(d) out of dS, so dQ and dK are too large by sqrt(d)",
      attention_backward__scale_dropped),
    M("attention_backward", "uses only the diagonal of the softmax Jacobian, dS = A(1-A)(dO Vᵀ) s",
      attention_backward__diagonal_jacobian),
    M("attention_backward", "aligns the causal mask to the first n_q positions instead of the last when n_q < n_k",
      attention_backward__mask_first_positions),
    M("attention_backward", "multiplies dK by the scale twice: dSᵀ (Q s) with dS already scaled",
      attention_backward__scale_twice_in_dK),
    M("layer_norm_backward", "treats the row mean and variance as constants: dX = dY g / sqrt(var + eps)",
      layer_norm_backward__stats_constant),
    M("layer_norm_backward", "drops the variance term -Xhat mean(dXhat Xhat) from dX, keeping only the mean term",
      layer_norm_backward__no_variance_term),
    M("layer_norm_backward", "drops the mean term -mean(dXhat) from dX, keeping only the variance term",
      layer_norm_backward__no_mean_term),
    M("layer_norm_backward", "computes dg from the raw X (sum of dY * X) instead of the normalised Xhat",
      layer_norm_backward__dg_from_raw_X),
    M("layer_norm_backward", "returns the tuple as (dX, db, dg): dg and db swapped", layer_norm_backward__dg_db_swapped),
    # 12
    M("most_attended", "takes argmax over the queries (axis 0) instead of along each row",
      most_attended__argmax_over_queries),
    M("most_attended", "compares with >= in its loop, so ties go to the later token instead of the earlier",
      most_attended__last_of_ties),
    M("most_attended", "returns a numpy array of words (np.array(tokens)[...]) instead of a list",
      most_attended__numpy_array),
    M("most_attended", "returns the column indices instead of the token words", most_attended__indices),
    M("attention_entropy", "uses log base 2 (bits) instead of the natural log (nats)", attention_entropy__bits),
    M("attention_entropy", "computes A * log(A) directly, so zero weights give 0 * -inf = nan instead of 0",
      attention_entropy__zero_times_log_zero),
    M("attention_entropy", "clips the weights to at least 1e-6 before the log, so zero weights contribute instead of "
                           "counting as 0", attention_entropy__clipped),
    M("attention_entropy", "averages -A log A over the keys instead of summing", attention_entropy__mean_not_sum),
    M("attention_entropy", "sums over axis 0 (per key) instead of along each row", attention_entropy__over_keys_axis0),
    # 13
    M("padding_mask", "masks columns j > n_valid instead of j >= n_valid, leaving the first padding key visible",
      padding_mask__keeps_one_pad),
    M("padding_mask", "masks the query rows i >= n_valid instead of the key columns", padding_mask__masks_query_rows),
    M("padding_mask", "returns a boolean mask (True on padding) instead of the float 0/-inf additive mask",
      padding_mask__boolean),
    M("padding_mask", "adds a causal mask as well, although padding attention has no causal part",
      padding_mask__plus_causal),
    M("cross_attention", "applies a causal mask, although cross-attention has none", cross_attention__causal),
    M("cross_attention", "swaps the roles: queries from Z and keys/values from X, returning (n_z, d_v)",
      cross_attention__roles_swapped),
    M("cross_attention", "divides the scores by sqrt(d_model) instead of sqrt(d_head)", cross_attention__scale_d_model),
    M("cross_attention", "takes the softmax over the queries (axis 0) instead of over the keys",
      cross_attention__softmax_over_queries),
    # 14
    M("attend_step", "exponentiates without subtracting the max score, so huge scores overflow to inf/nan",
      attend_step__no_max_shift),
    M("attend_step", "divides the scores by sqrt(t) (the number of cached rows) instead of sqrt(d)",
      attend_step__scale_by_t),
    M("attend_step", "leaves out the last cached row (the new token's own key and value)",
      attend_step__skips_own_row),
    M("attend_step", "computes with q as a (1, d) row and returns a (1, d_v) array instead of (d_v,)",
      attend_step__keeps_row_axis),
    M("cache_step", "inserts the new k and v as the first rows of the caches instead of the last",
      cache_step__prepends),
    M("cache_step", "returns (K_new, V_new, o) instead of (o, K_new, V_new)", cache_step__tuple_order),
    M("cache_step", "uses np.append without axis, which flattens the caches to 1-D", cache_step__np_append_flat),
    M("cache_step", "appends k to the value cache instead of v", cache_step__key_into_values),
    M("sample_next", "picks the first token whose running total is >= u (searchsorted side='left') instead of > u",
      sample_next__left_side),
    M("sample_next", "multiplies the logits by the temperature instead of dividing", sample_next__times_temperature),
    M("sample_next", "returns a numpy integer (np.int64) instead of a Python int", sample_next__numpy_int),
    M("sample_next", "does not rescale the running total to end at exactly 1, so a u just under 1 can fall past the "
                     "last token", sample_next__cdf_not_rescaled),
    M("sample_next", "exponentiates logits / temperature without subtracting the max, overflowing for large logits "
                     "or tiny temperatures", sample_next__no_max_shift),
    M("top_k_filter", "keeps exactly k indices from a sort (tf.nn.top_k habit), dropping logits tied with the k-th "
                      "largest", top_k_filter__exactly_k_indices),
    M("top_k_filter", "takes np.sort(logits)[k - 1], the k-th smallest, as the threshold instead of the k-th largest",
      top_k_filter__kth_smallest),
    M("top_k_filter", "writes -inf into the logits array it was given and returns it, instead of a new array",
      top_k_filter__in_place),
    M("top_k_filter", "no guard for k >= vocab: np.sort(logits)[-k] fails (or wraps) instead of keeping every token",
      top_k_filter__no_guard_for_large_k),
    M("top_k_filter", "keeps logits strictly greater than the k-th largest (>) instead of >=, dropping it and its "
                      "ties", top_k_filter__strict_greater),
    M("top_p_filter", "keeps the tokens whose running total is < p, dropping the token that makes the total reach p",
      top_p_filter__stops_below_p),
    M("top_p_filter", "when the running total equals p exactly, keeps one more token (searchsorted side='right')",
      top_p_filter__one_past_equality),
    M("top_p_filter", "ranks with argsort(P)[::-1], so equal probabilities put the higher id first instead of the "
                      "lower", top_p_filter__ties_higher_id_first),
    M("top_p_filter", "has no special case for p = 1, so tokens whose probability rounds to 0 are dropped",
      top_p_filter__no_p_one_case),
    M("top_p_filter", "computes the softmax without subtracting the max, so logits around 1e300 overflow to nan",
      top_p_filter__no_max_shift),
    M("generate", "computes the logits from the attention output alone, o @ W_out, instead of (x + o) @ W_out",
      generate__logits_from_o_only),
    M("generate", "adds the position row of the token id, pos_emb[t], instead of the position pos_emb[i]",
      generate__position_by_token_id),
    M("generate", "creates the empty caches inside the loop, so each token attends only to itself",
      generate__cache_reset_each_token),
    M("generate", "projects with the column-vector form Wq @ x (and Wk, Wv) instead of x @ Wq",
      generate__column_vector_projections),
    M("generate", "returns a Python list instead of an int array", generate__returns_list),
    M("kv_cache_bytes", "counts the keys only, missing the factor 2 for K and V", kv_cache_bytes__keys_only),
    M("kv_cache_bytes", "leaves out the factor n_layers", kv_cache_bytes__no_layers),
    M("kv_cache_bytes", "leaves out the factor batch", kv_cache_bytes__no_batch),
    M("kv_cache_bytes", "counts numbers, leaving out bytes_per_value", kv_cache_bytes__counts_numbers),
    M("max_cached_tokens", "divides with / and truncates with int(), which loses exactness for huge memories instead "
                           "of integer floor division", max_cached_tokens__float_division),
    M("max_cached_tokens", "rounds the quotient up (ceiling) instead of down, so the returned length does not fit",
      max_cached_tokens__rounds_up),
    M("max_cached_tokens", "per-token bytes miss the factor 2 for K and V", max_cached_tokens__keys_only),
    M("max_cached_tokens", "returns at least 1 (max(1, ...)) instead of 0 when not even one token fits",
      max_cached_tokens__at_least_one),
    M("max_cached_tokens", "requires the cache to be strictly smaller than the memory ((memory - 1) // per_token), "
                           "one short when it fits exactly", max_cached_tokens__strictly_less),
    # 15
    M("previous_token_score", "divides the sum of A[t, t-1] by T instead of T - 1 (counts row 0)",
      previous_token_score__divides_by_T),
    M("previous_token_score", "reads the superdiagonal A[t-1, t] (the next position) instead of A[t, t-1]",
      previous_token_score__superdiagonal),
    M("previous_token_score", "has no special case for T = 1 and returns nan (mean of nothing) instead of 0.0",
      previous_token_score__no_T1_case),
    M("previous_token_score", "the loop runs range(1, T - 1), leaving out the last row",
      previous_token_score__skips_last_row),
    M("prefix_matching_score", "adds only the most recent earlier copy instead of all earlier copies",
      prefix_matching_score__latest_copy_only),
    M("prefix_matching_score", "adds the weight on the earlier copy itself, A[t, j], instead of on the token after "
                               "it, A[t, j + 1]", prefix_matching_score__weight_on_copy),
    M("prefix_matching_score", "averages over all T positions instead of only those whose token appeared before",
      prefix_matching_score__mean_over_all_rows),
    M("prefix_matching_score", "returns nan (mean of an empty list) instead of 0.0 when no token repeats",
      prefix_matching_score__nan_without_copies),
    M("prefix_matching_score", "averages A[t, j + 1] over the earlier copies instead of summing them per position",
      prefix_matching_score__mean_over_copies),
    M("ablate_head", "zeroes the rows in Wo itself and returns it, instead of a copy", ablate_head__in_place),
    M("ablate_head", "zeroes the head's columns instead of its rows", ablate_head__columns),
    M("ablate_head", "zeroes rows up to and including (head + 1) * d_head, one row too many",
      ablate_head__inclusive_end),
    M("ablate_head", "counts heads from 1, zeroing rows (head - 1) * d_head .. head * d_head - 1",
      ablate_head__one_based_head),
    M("ablate_head", "zeroes every n_heads-th row from head (Wo[head::n_heads]) instead of a contiguous block",
      ablate_head__strided_rows),
    # 16
    M("rope", "pairs feature i with feature i + d/2 (the rotate-half layout) instead of adjacent features 2i, 2i+1",
      rope__rotate_half),
    M("rope", "uses the frequency theta^(-i/d) instead of theta^(-2i/d)", rope__exponent_i_over_d),
    M("rope", "rotates by the row index instead of the given positions", rope__row_index),
    M("rope", "rotates clockwise (the sign of the sin terms flipped)", rope__clockwise),
    M("rope", "ignores the theta argument and always uses 10000", rope__theta_ignored),
    M("rope_attention", "rotates the values V as well as the queries and keys", rope_attention__rotates_values),
    M("rope_attention", "rotates the queries only, leaving the keys unrotated", rope_attention__queries_only),
    M("rope_attention", "does not pass theta on to rope, so the default 10000 is always used",
      rope_attention__theta_not_passed),
    M("rope_attention", "leaves out the causal mask (step 3), so every row also attends to later rows",
      rope_attention__no_causal_mask),
    # 17
    M("grouped_query_attention", "sends query head h to group h % n_kv_heads (interleaved) instead of "
                                 "h // (n_heads // n_kv_heads)", grouped_query_attention__groups_interleaved),
    M("grouped_query_attention", "sends query head h to group h // n_kv_heads instead of h // (n_heads // n_kv_heads)",
      grouped_query_attention__divides_by_n_kv),
    M("grouped_query_attention", "divides the scores by sqrt(n_kv_heads * d_head) (Wk's width) instead of "
                                 "sqrt(d_head)", grouped_query_attention__scale_kv_width),
    M("grouped_query_attention", "never passes causal on, so causal=False still masks",
      grouped_query_attention__ignores_causal),
    M("grouped_query_attention", "computes d_head as Wk.shape[1] // n_heads (the K/V width over the query-head "
                                 "count) instead of Wq.shape[1] // n_heads", grouped_query_attention__d_head_from_Wk),
    M("grouped_cache_step", "sends query head h to group h % n_kv_heads instead of h // (n_heads // n_kv_heads)",
      grouped_cache_step__groups_interleaved),
    M("grouped_cache_step", "repeats each group for its query heads in the returned caches, (n_heads, t+1, d_head), "
                            "instead of one row per group", grouped_cache_step__cache_per_query_head),
    M("grouped_cache_step", "inserts the new k and v as the first row of each group instead of the last",
      grouped_cache_step__prepends),
    M("grouped_cache_step", "special-cases the empty cache by returning o = v, one row per group instead of one per "
                            "query head", grouped_cache_step__empty_cache_returns_v),
    M("grouped_cache_step", "divides the scores by sqrt(n_heads) (q.shape[0]) instead of sqrt(d_head)",
      grouped_cache_step__scale_from_head_count),
    # 18
    M("sliding_window_mask", "lets row i see i - window <= j <= i, window + 1 positions instead of window",
      sliding_window_mask__one_too_many),
    M("sliding_window_mask", "translates tf.linalg.band_part(ones, window - 1, 0) with the bands swapped, keeping the "
                             "next window - 1 positions (the future) instead of the previous",
      sliding_window_mask__band_part_swapped),
    M("sliding_window_mask", "uses |i - j| < window, a symmetric band that also sees the future",
      sliding_window_mask__not_causal),
    M("sliding_window_mask", "returns a 0/1 mask (1 where visible) instead of 0/-inf", sliding_window_mask__zero_one),
    M("sliding_window_mask", "np.where(visible, -inf, 0) has its branches swapped: -inf where a row may look",
      sliding_window_mask__where_swapped),
    M("rolling_cache_step", "cuts the old cache to window rows before appending, so a full cache grows to window + 1 "
                            "rows", rolling_cache_step__cut_before_append),
    M("rolling_cache_step", "ignores n_sinks and keeps the last window rows, evicting the sinks",
      rolling_cache_step__sinks_ignored),
    M("rolling_cache_step", "keeps the sinks plus the last window rows (window + n_sinks in all) instead of the last "
                            "window - n_sinks", rolling_cache_step__window_after_sinks),
    M("rolling_cache_step", "lets q attend over all t + 1 rows before cutting, so it still sees the evicted row",
      rolling_cache_step__attends_before_cut),
    M("rolling_cache_step", "splices sinks + recent rows even when the cache is not full, duplicating rows",
      rolling_cache_step__always_splices),
] + CAPSTONE_MISTAKES


ACCEPTABLE = [
    M("project", "explicit double loop: output j is the sum over i of x[i] * W[i, j]", project_ok_loop),
    M("compose", "np.tensordot over W1's columns and W2's rows", compose_ok_tensordot),
    M("project_rows", "np.einsum('ni,io->no')", project_rows_ok_einsum),
    M("matmul_cost", "math.prod of the three sizes, an exact Python int", matmul_cost_ok_prod),
    M("values", "projects each token's vector one at a time and stacks the rows", values_ok_per_token),
    M("one_hot", "compares ids[:, None] with np.arange(vocab_size) and casts to float", one_hot_ok_compare),
    M("uniform_causal_weights", "double loop writing 1/(i+1) into columns 0..i", uniform_causal_weights_ok_loop),
    M("causal_average", "builds the uniform causal matrix and returns A @ V", causal_average_ok_matrix),
    M("similarity", "np.einsum('id,jd->ij')", similarity_ok_einsum),
    M("learned_scores", "the bilinear form X (Wq Wkᵀ) Xᵀ", learned_scores_ok_bilinear),
    M("causal_mask", "np.where(j > i, -inf, 0.0) on np.indices", causal_mask_ok_where),
    M("softmax", "exp(S - logsumexp(S)) with a max-shifted log-sum-exp", softmax_ok_logsumexp),
    M("score_scale", "sqrt(1/d)", score_scale_ok_sqrt_of_inverse),
    M("attention_weights", "a loop over queries, each softmaxing only the keys it may see", attention_weights_ok_loop),
    M("attention", "the loop-built weights, then np.einsum with V", attention_ok_einsum),
    M("self_attention", "folds Wv and Wo into one matrix: A (X (Wv Wo))", self_attention_ok_folded),
    M("future_leak", "tries the offsets from widest to narrowest and returns the first that leaks",
      future_leak_ok_by_offset),
    M("tiled_attention", "online softmax with 1-D running max and sum and the key loop stopped at the last visible "
                         "key", tiled_attention_ok_vectors),
    M("embed", "one-hot matrix product for the words, np.take for the positions", embed_ok_one_hot),
    M("sinusoidal_positions", "double loop with the frequency written as exp(-ln(10000) 2i/d)",
      sinusoidal_positions_ok_loops),
    M("split_heads", "np.stack of the column blocks", split_heads_ok_stack),
    M("multi_head_attention", "all heads at once with einsum on a (n, n_heads, d_head) reshape",
      multi_head_attention_ok_batched),
    M("layer_norm", "row-by-row loop with the centred dot product for the variance", layer_norm_ok_rows),
    M("gelu", "x * sigmoid(2u), equal to 0.5 x (1 + tanh u)", gelu_ok_sigmoid),
    M("transformer_block", "the same pre-LN block with einsum for the MLP", transformer_block_ok_steps),
    M("next_token_logits", "projects every row and takes the last", next_token_logits_ok_all_then_last),
    M("cross_entropy", "row-by-row log-sum-exp loop", cross_entropy_ok_rows),
    M("softmax_backward", "builds the full Jacobian diag(A) - A Aᵀ per row and contracts it with dA",
      softmax_backward_ok_jacobian),
    M("attention_backward", "einsum for every product, the Jacobian softmax backward in the middle",
      attention_backward_ok_einsum),
    M("layer_norm_backward", "the classic (d dxhat - sum dxhat - xhat sum(dxhat xhat)) / (d std) per row",
      layer_norm_backward_ok_classic),
    M("most_attended", "max over columns keyed by (weight, -index)", most_attended_ok_loop),
    M("attention_entropy", "loop over positive weights with math.log", attention_entropy_ok_loop),
    M("padding_mask", "one row built with np.where, tiled n_q times", padding_mask_ok_tile),
    M("cross_attention", "einsum projections and the loop-built unmasked weights", cross_attention_ok_einsum),
    M("attend_step", "weights exp(s - logsumexp(s)) and an einsum", attend_step_ok_logsumexp),
    M("cache_step", "preallocates the grown caches and copies into them", cache_step_ok_preallocated),
    M("sample_next", "explicit loops for the argmax and for the running total", sample_next_ok_walk),
    M("top_k_filter", "the threshold from np.partition", top_k_filter_ok_partition),
    M("top_p_filter", "sorted() with (-p, id) keys and a running-total loop", top_p_filter_ok_loop),
    M("generate", "writes into a preallocated int array and feeds positions 0 .. T + n_new - 2",
      generate_ok_two_phases),
    M("kv_cache_bytes", "bytes per token (math.prod) times tokens times batch", kv_cache_bytes_ok_prod),
    M("max_cached_tokens", "exponential then binary search on kv_cache_bytes", max_cached_tokens_ok_bisect),
    M("previous_token_score", "np.trace with offset -1 over T - 1", previous_token_score_ok_trace),
    M("prefix_matching_score", "boolean matrix of earlier copies, shifted one column, with einsum",
      prefix_matching_score_ok_matrix),
    M("ablate_head", "multiplies Wo by a 0/1 row mask", ablate_head_ok_mask),
    M("rope", "complex multiplication of (x + iy) by exp(i a)", rope_ok_complex),
    M("rope_attention", "complex-number rope, loop-built causal weights, einsum", rope_attention_ok_einsum),
    M("grouped_query_attention", "np.repeat of the groups, then batched attention", grouped_query_attention_ok_repeat),
    M("grouped_cache_step", "reshapes q to (n_kv_heads, group size, d_head) and uses einsum",
      grouped_cache_step_ok_einsum),
    M("sliding_window_mask", "double loop opening columns max(0, i - window + 1) .. i", sliding_window_mask_ok_loops),
    M("rolling_cache_step", "list of kept row indices, then logsumexp attention", rolling_cache_step_ok_indices),
    M("capstone", "every op from the right answers above", RIGHT_OPS),
]
