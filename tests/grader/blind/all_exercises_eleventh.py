"""A blind set of learner mistakes for every exercise of "Rediscovering Attention" (the eleventh set).

What it covers
    Every check named in the exercise notebooks 01-18 (51 checks) and the capstone of notebook 19.
    MISTAKES holds wrong learner functions, each with the exercise's exact signature and a one-line
    `what` that names the cause of the mistake. ACCEPTABLE holds one right answer per check, written
    in a way that differs from the obvious solution (einsum, complex numbers, loops, np.where, ...).
    A capstone entry is a dict of ops for TinyLM(ops=...): RIGHT_OPS gathers the right answers, and
    each capstone mistake swaps one or two of its ops for wrong ones from the list below.

How it was written
    Blind: only the exercise notebooks (texts and stubs), the lesson notebooks, the README and the
    top-level maths modules of attnlib were read. The checker, the tests, the solutions, the tools and
    the history of the repository were not opened, and no other mistake set was looked at. Every
    function was written by hand from the exercise text.

Habits imitated
    numpy defaults and near-namesakes (axis-less sum/max/argmax, repeat vs tile, triu vs tril and k,
    ascending argsort, ddof, integer dtypes, reshape for transpose); formulas transcribed literally
    (1-based indices, loop bounds from the sum, column-vector order); copy-paste slips between
    exercises (a mask or scale carried over, a hard-coded default); confused names (d vs d_head vs
    d_model, n_q vs n_k, group count vs heads per group, window vs window - 1); edge cases handled
    wrongly (empty caches, T = 1, p == 1, k >= vocab, temperature 0); wrong return values (extra
    output, tuple order, lists, numpy ints, (1, d) rows); one-liners with one index wrong; and
    backward passes with a dropped, doubled or mis-summed term.

How it was verified
    A separate script compares every function with a reference (attnlib's public function where one
    exists, otherwise one written from the exercise text) on targeted edge inputs plus about 30
    random ones, each call on fresh copies. Every mistake differs on at least one input (values,
    shape, required type, an exception, or an input changed in place); every right answer matches
    to 1e-9 relative everywhere and leaves its inputs alone. The capstone's right ops reproduce
    attnlib's own TinyLM (learned positions, RoPE, one K/V group, a window with a sink).

Counts
    51 checks plus the capstone; 249 mistakes (4 to 5 per check, 38 checks with 5, 8 for the capstone);
    52 right answers, one per check and one for the capstone.
"""
import math
from dataclasses import dataclass
from typing import Callable

import numpy as np


@dataclass(frozen=True)
class Mistake:
    exercise: str  # the exercise's check name, e.g. "causal_mask"
    what: str      # one precise plain-English line naming the mistake, as an ideal grader would
    fn: Callable   # the learner's function, with the exercise's exact signature (for the capstone: the dict of ops)


M = Mistake


# ============================================================================
# helpers a learner reuses (all correct)

def _softmax(S, axis=-1):
    S = np.asarray(S, dtype=float)
    m = np.max(S, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    E = np.exp(S - m)
    return E / np.sum(E, axis=axis, keepdims=True)


def _future(n_q, n_k):
    """Additive mask with the last-n_q-positions rule."""
    return np.triu(np.full((n_q, n_k), -np.inf), k=n_k - n_q + 1)


def _attention(Q, K, V, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(Q.shape[1])
    if causal:
        S = S + _future(Q.shape[0], K.shape[0])
    return _softmax(S, axis=-1) @ V


def attend(Q, K, V, causal=True):
    """The notebooks' helper: scaled attention for one head."""
    S = Q @ K.T / np.sqrt(Q.shape[1])
    if causal:
        S = S + np.triu(np.full(S.shape, -np.inf), k=1)
    E = np.exp(S - S.max(axis=1, keepdims=True))
    return (E / E.sum(axis=1, keepdims=True)) @ V


def _split(M_, n_heads):
    n, dm = M_.shape
    return M_.reshape(n, n_heads, dm // n_heads).transpose(1, 0, 2)


def _mha(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    Q, K, V = _split(X @ Wq, n_heads), _split(X @ Wk, n_heads), _split(X @ Wv, n_heads)
    heads = [attend(Q[h], K[h], V[h], causal) for h in range(n_heads)]
    return np.concatenate(heads, axis=1) @ Wo


def _layer_norm(X, g, b, eps=1e-5):
    mu = X.mean(axis=-1, keepdims=True)
    var = X.var(axis=-1, keepdims=True)
    return (X - mu) / np.sqrt(var + eps) * g + b


def _gelu(X):
    X = np.asarray(X, dtype=float)
    return 0.5 * X * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (X + 0.044715 * X ** 3)))


def _rope(X, positions, theta=10000.0):
    n, d = X.shape
    freq = theta ** (-np.arange(0, d, 2) / d)
    a = np.asarray(positions, dtype=float)[:, None] * freq[None, :]
    c, s = np.cos(a), np.sin(a)
    x, y = X[:, 0::2], X[:, 1::2]
    out = np.empty((n, d))
    out[:, 0::2] = x * c - y * s
    out[:, 1::2] = x * s + y * c
    return out


def _attend_step(q, K_cache, V_cache):
    s = K_cache @ q / np.sqrt(q.shape[0])
    a = np.exp(s - s.max())
    return (a / a.sum()) @ V_cache


def _softmax_backward(A, dA):
    return A * (dA - np.sum(A * dA, axis=-1, keepdims=True))


# ============================================================================
# 01 project

def project__column_order(x, W):
    return W @ x


def project__sum_no_axis(x, W):
    return np.sum(x[:, None] * W)


def project__wrong_axis(x, W):
    return (x[:, None] * W).sum(axis=1)


def project__one_based_loop(x, W):
    out = np.zeros(W.shape[1])
    for j in range(W.shape[1]):
        for i in range(1, W.shape[0]):
            out[j] += x[i] * W[i, j]
    return out


def project__row_matrix(x, W):
    return x[np.newaxis, :] @ W


def project_ok_einsum(x, W):
    return np.einsum("i,ij->j", x, W)


# 01 compose

def compose__column_order(W1, W2):
    return W2 @ W1


def compose__elementwise(W1, W2):
    return W1 * W2


def compose__transposes(W1, W2):
    return W1.T @ W2.T


def compose__transposed_result(W1, W2):
    return (W1 @ W2).T


def compose_ok_loop(W1, W2):
    W = np.zeros((W1.shape[0], W2.shape[1]))
    for m in range(W1.shape[1]):
        W += np.outer(W1[:, m], W2[m, :])
    return W


# 02 project_rows

def project_rows__first_row(X, W):
    return X[0] @ W


def project_rows__transposed(X, W):
    return W.T @ X.T


def project_rows__stack_axis(X, W):
    return np.stack([x @ W for x in X], axis=1)


def project_rows__loop_from_one(X, W):
    Y = np.zeros((X.shape[0], W.shape[1]))
    for i in range(1, X.shape[0]):
        Y[i] = X[i] @ W
    return Y


def project_rows_ok_einsum(X, W):
    return np.einsum("nd,de->ne", X, W)


# 02 matmul_cost

def matmul_cost__additions(n, d_in, d_out):
    return n * (d_in - 1) * d_out


def matmul_cost__flops(n, d_in, d_out):
    return 2 * n * d_in * d_out


def matmul_cost__float(n, d_in, d_out):
    return float(n) * d_in * d_out


def matmul_cost__int32(n, d_in, d_out):
    return int(np.int32(n) * np.int32(d_in) * np.int32(d_out))


def matmul_cost_ok_prod(n, d_in, d_out):
    return math.prod((int(n), int(d_in), int(d_out)))


# 03 values

def values__table_order(tokens, table, Wv):
    X = np.array(list(table.values()))
    return X @ Wv


def values__dedup(tokens, table, Wv):
    X = np.array([table[w] for w in dict.fromkeys(tokens)])
    return X @ Wv


def values__sorted(tokens, table, Wv):
    X = np.array([table[w] for w in sorted(tokens)])
    return X @ Wv


def values__column_form(tokens, table, Wv):
    X = np.array([table[w] for w in tokens])
    return Wv.T @ X.T


def values_ok_einsum(tokens, table, Wv):
    X = np.vstack([np.asarray(table[w], dtype=float)[None, :] for w in tokens])
    return np.einsum("nd,dv->nv", X, Wv)


# 03 one_hot

def one_hot__int_dtype(ids, vocab_size):
    O = np.zeros((len(ids), vocab_size), dtype=int)
    O[np.arange(len(ids)), ids] = 1
    return O


def one_hot__whole_columns(ids, vocab_size):
    O = np.zeros((len(ids), vocab_size))
    O[:, ids] = 1.0
    return O


def one_hot__one_based(ids, vocab_size):
    O = np.zeros((len(ids), vocab_size))
    O[np.arange(len(ids)), ids - 1] = 1.0
    return O


def one_hot__sorts_ids(ids, vocab_size):
    ids.sort()
    return np.eye(vocab_size)[ids]


def one_hot_ok_compare(ids, vocab_size):
    return (np.asarray(ids)[:, None] == np.arange(vocab_size)[None, :]).astype(float)


# 04 uniform_causal_weights

def uniform_causal_weights__triu(n):
    return np.triu(np.ones((n, n))) / np.arange(1, n + 1)[:, None]


def uniform_causal_weights__columns(n):
    return np.tril(np.ones((n, n))) / np.arange(1, n + 1)


def uniform_causal_weights__over_n(n):
    return np.tril(np.ones((n, n))) / n


def uniform_causal_weights__int_division(n):
    return np.tril(np.ones((n, n), dtype=int)) // np.arange(1, n + 1)[:, None]


def uniform_causal_weights__strict(n):
    A = np.tril(np.ones((n, n)), k=-1)
    return A / np.maximum(A.sum(axis=1, keepdims=True), 1)


def uniform_causal_weights_ok_where(n):
    i, j = np.indices((n, n))
    return np.where(j <= i, 1.0 / (i + 1), 0.0)


# 04 causal_average

def causal_average__cumsum_flat(V):
    return np.cumsum(V) / np.arange(1, V.size + 1)


def causal_average__over_n(V):
    return np.cumsum(V, axis=0) / V.shape[0]


def causal_average__exclusive(V):
    out = np.zeros(V.shape)
    for i in range(V.shape[0]):
        out[i] = V[:max(i, 1)].mean(axis=0)
    return out


def causal_average__global_mean(V):
    return np.tile(V.mean(axis=0), (V.shape[0], 1))


def causal_average_ok_loop(V):
    out = np.empty(V.shape, dtype=float)
    total = np.zeros(V.shape[1])
    for i, row in enumerate(V):
        total = total + row
        out[i] = total / (i + 1)
    return out


# 05 similarity

def similarity__gram_of_features(Q, K):
    return Q.T @ K


def similarity__swapped(Q, K):
    return K @ Q.T


def similarity__scaled(Q, K):
    return Q @ K.T / np.sqrt(Q.shape[1])


def similarity__rowwise(Q, K):
    return (Q * K).sum(axis=1)


def similarity_ok_einsum(Q, K):
    return np.einsum("id,jd->ij", Q, K)


# 05 learned_scores

def learned_scores__swapped(X, Wq, Wk):
    return (X @ Wk) @ (X @ Wq).T


def learned_scores__Wq_twice(X, Wq, Wk):
    Q = X @ Wq
    K = X @ Wq
    return Q @ K.T


def learned_scores__scaled(X, Wq, Wk):
    return (X @ Wq) @ (X @ Wk).T / np.sqrt(Wq.shape[1])


def learned_scores__masked(X, Wq, Wk):
    S = (X @ Wq) @ (X @ Wk).T
    return S + np.triu(np.full(S.shape, -np.inf), k=1)


def learned_scores_ok_bilinear(X, Wq, Wk):
    return X @ (Wq @ Wk.T) @ X.T


# 06 causal_mask

def causal_mask__tril(n):
    return np.tril(np.full((n, n), -np.inf), k=-1)


def causal_mask__triu_no_k(n):
    return np.triu(np.full((n, n), -np.inf))


def causal_mask__times_inf(n):
    return np.triu(np.ones((n, n)), k=1) * -np.inf


def causal_mask__big_negative(n):
    return np.triu(np.full((n, n), -1e9), k=1)


def causal_mask__boolean(n):
    return np.triu(np.ones((n, n), dtype=bool), k=1)


def causal_mask_ok_where(n):
    return np.where(np.arange(n)[:, None] >= np.arange(n)[None, :], 0.0, -np.inf)


# 06 softmax

def softmax__no_shift(S, axis=-1):
    E = np.exp(S)
    return E / E.sum(axis=axis, keepdims=True)


def softmax__global_max(S, axis=-1):
    E = np.exp(S - np.max(S))
    return E / E.sum(axis=axis, keepdims=True)


def softmax__axis_ignored(S, axis=-1):
    E = np.exp(S - S.max(axis=-1, keepdims=True))
    return E / E.sum(axis=-1, keepdims=True)


def softmax__max_no_keepdims(S, axis=-1):
    E = np.exp(S - S.max(axis=axis))
    return E / E.sum(axis=axis, keepdims=True)


def softmax__sum_axis0(S, axis=-1):
    E = np.exp(S - S.max(axis=axis, keepdims=True))
    return E / E.sum(axis=0, keepdims=True)


def softmax_ok_logsumexp(S, axis=-1):
    S = np.asarray(S, dtype=float)
    m = np.max(S, axis=axis, keepdims=True)
    lse = m + np.log(np.sum(np.exp(S - m), axis=axis, keepdims=True))
    return np.exp(S - lse)


# 06 score_scale

def score_scale__one_over_d(d):
    return 1.0 / d


def score_scale__sqrt_d(d):
    return float(np.sqrt(d))


def score_scale__isqrt(d):
    return 1.0 / math.isqrt(d)


def score_scale__rounded(d):
    return round(1 / np.sqrt(d), 3)


def score_scale_ok_power(d):
    return float(d) ** -0.5


# 06 attention_weights

def attention_weights__top_left_mask(Q, K, causal=True, scale=True):
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
        S = S + _future(Q.shape[0], K.shape[0])
    return _softmax(S, axis=-1)


def attention_weights__softmax_axis0(Q, K, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(Q.shape[1])
    if causal:
        S = S + _future(Q.shape[0], K.shape[0])
    return _softmax(S, axis=0)


def attention_weights__mask_always(Q, K, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(Q.shape[1])
    S = S + _future(Q.shape[0], K.shape[0])
    return _softmax(S, axis=-1)


def attention_weights__offset_k(Q, K, causal=True, scale=True):
    n_q, n_k = Q.shape[0], K.shape[0]
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(Q.shape[1])
    if causal:
        S = S + np.triu(np.full(S.shape, -np.inf), k=n_k - n_q)
    return _softmax(S, axis=-1)


def attention_weights_ok_where(Q, K, causal=True, scale=True):
    n_q, n_k = Q.shape[0], K.shape[0]
    S = np.einsum("id,jd->ij", Q, K) * (Q.shape[1] ** -0.5 if scale else 1.0)
    if causal:
        allowed = np.arange(n_k)[None, :] <= (np.arange(n_q) + n_k - n_q)[:, None]
        S = np.where(allowed, S, -np.inf)
    return softmax_ok_logsumexp(S, axis=1)


# 07 attention

def attention__top_left_mask(Q, K, V, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(Q.shape[1])
    if causal:
        S = S + np.triu(np.full(S.shape, -np.inf), k=1)
    return _softmax(S) @ V


def attention__always_scaled(Q, K, V, causal=True, scale=True):
    S = Q @ K.T / np.sqrt(Q.shape[1])
    if causal:
        S = S + _future(Q.shape[0], K.shape[0])
    return _softmax(S) @ V


def attention__no_shift(Q, K, V, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(Q.shape[1])
    if causal:
        S = S + _future(Q.shape[0], K.shape[0])
    E = np.exp(S)
    return E / E.sum(axis=1, keepdims=True) @ V


def attention__returns_weights_too(Q, K, V, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(Q.shape[1])
    if causal:
        S = S + _future(Q.shape[0], K.shape[0])
    A = _softmax(S)
    return A @ V, A


def attention__scale_by_d_v(Q, K, V, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(V.shape[1])
    if causal:
        S = S + _future(Q.shape[0], K.shape[0])
    return _softmax(S) @ V


def attention_ok_einsum(Q, K, V, causal=True, scale=True):
    A = attention_weights_ok_where(Q, K, causal, scale)
    return np.einsum("ij,jv->iv", A, V)


# 07 self_attention

def self_attention__if_Wo(X, Wq, Wk, Wv, Wo=None, causal=True):
    O = _attention(X @ Wq, X @ Wk, X @ Wv, causal)
    if Wo:
        O = O @ Wo
    return O


def self_attention__unscaled(X, Wq, Wk, Wv, Wo=None, causal=True):
    O = _attention(X @ Wq, X @ Wk, X @ Wv, causal, scale=False)
    return O if Wo is None else O @ Wo


def self_attention__scale_d_model(X, Wq, Wk, Wv, Wo=None, causal=True):
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    S = Q @ K.T / np.sqrt(X.shape[1])
    if causal:
        S = S + np.triu(np.full(S.shape, -np.inf), k=1)
    O = _softmax(S) @ V
    return O if Wo is None else O @ Wo


def self_attention__causal_ignored(X, Wq, Wk, Wv, Wo=None, causal=True):
    O = _attention(X @ Wq, X @ Wk, X @ Wv)
    return O if Wo is None else O @ Wo


def self_attention__Wo_dropped(X, Wq, Wk, Wv, Wo=None, causal=True):
    return _attention(X @ Wq, X @ Wk, X @ Wv, causal)


def self_attention_ok_keyword(X, Wq, Wk, Wv, Wo=None, causal=True):
    out = attention_ok_einsum(np.dot(X, Wq), np.dot(X, Wk), np.dot(X, Wv), causal=causal, scale=True)
    return out if Wo is None else np.dot(out, Wo)


# 07 future_leak

def _moved_rows(attn, X, j):
    moved = X.copy()
    moved[j] += 1.0
    base = np.asarray(attn(X))
    change = np.abs(np.asarray(attn(moved)) - base).max(axis=1)
    tol = 1e-9 * max(np.abs(base).max(), 1.0)
    return np.flatnonzero(change > tol)


def future_leak__no_tolerance(attn, X):
    worst = 0
    base = np.asarray(attn(X))
    for j in range(len(X)):
        moved = X.copy()
        moved[j] += 1.0
        change = np.abs(np.asarray(attn(moved)) - base).max(axis=1)
        for i in np.flatnonzero(change > 0):
            if j > i:
                worst = max(worst, j - i)
    return worst


def future_leak__smallest(attn, X):
    best = 0
    for j in range(len(X)):
        for i in _moved_rows(attn, X, j):
            if j > i and (best == 0 or j - i < best):
                best = int(j - i)
    return best


def future_leak__counts_rows(attn, X):
    leaking = set()
    for j in range(len(X)):
        for i in _moved_rows(attn, X, j):
            if j > i:
                leaking.add(int(i))
    return len(leaking)


def future_leak__moves_X(attn, X):
    worst = 0
    base = np.asarray(attn(X))
    tol = 1e-9 * max(np.abs(base).max(), 1.0)
    for j in range(len(X)):
        moved = X
        moved[j] += 1.0
        change = np.abs(np.asarray(attn(moved)) - base).max(axis=1)
        for i in np.flatnonzero(change > tol):
            if j > i:
                worst = max(worst, int(j - i))
    return worst


def future_leak__next_row_only(attn, X):
    for j in range(1, len(X)):
        if j - 1 in _moved_rows(attn, X, j):
            return 1
    return 0


def future_leak_ok_matrix(attn, X):
    n = len(X)
    base = np.asarray(attn(X), dtype=float)
    tol = 1e-9 * max(float(np.abs(base).max()), 1.0)
    seen = np.zeros((n, n), dtype=bool)  # seen[i, j]: output row i moves when input row j moves
    for j in range(n):
        Xj = np.array(X, dtype=float, copy=True)
        Xj[j] = Xj[j] + 1.0
        seen[:, j] = np.abs(np.asarray(attn(Xj)) - base).max(axis=1) > tol
    gaps = [j - i for i in range(n) for j in range(i + 1, n) if seen[i, j]]
    return int(max(gaps)) if gaps else 0


# 07 tiled_attention

def tiled_attention__no_acc_rescale(Q, K, V, causal=True, block=64):
    n_q, d = Q.shape
    n_k = K.shape[0]
    O = np.zeros((n_q, V.shape[1]))
    for a in range(0, n_q, block):
        q = Q[a:a + block]
        rows = np.arange(a, a + len(q)) + n_k - n_q
        m = np.full(len(q), -np.inf)
        l = np.zeros(len(q))
        acc = np.zeros((len(q), V.shape[1]))
        for b in range(0, n_k, block):
            S = q @ K[b:b + block].T / np.sqrt(d)
            if causal:
                S = np.where(np.arange(b, b + S.shape[1])[None, :] <= rows[:, None], S, -np.inf)
            m_new = np.maximum(m, S.max(axis=1))
            safe = np.where(np.isfinite(m_new), m_new, 0.0)
            P = np.exp(S - safe[:, None])
            l = l * np.exp(m - safe) + P.sum(axis=1)
            acc = acc + P @ V[b:b + block]
            m = m_new
        O[a:a + block] = acc / l[:, None]
    return O


def tiled_attention__top_left(Q, K, V, causal=True, block=64):
    n_q, d = Q.shape
    n_k = K.shape[0]
    O = np.zeros((n_q, V.shape[1]))
    for a in range(0, n_q, block):
        q = Q[a:a + block]
        rows = np.arange(a, a + len(q))
        m = np.full(len(q), -np.inf)
        l = np.zeros(len(q))
        acc = np.zeros((len(q), V.shape[1]))
        for b in range(0, n_k, block):
            S = q @ K[b:b + block].T / np.sqrt(d)
            if causal:
                S = np.where(np.arange(b, b + S.shape[1])[None, :] <= rows[:, None], S, -np.inf)
            m_new = np.maximum(m, S.max(axis=1))
            safe = np.where(np.isfinite(m_new), m_new, 0.0)
            shrink = np.exp(m - safe)
            P = np.exp(S - safe[:, None])
            l = l * shrink + P.sum(axis=1)
            acc = acc * shrink[:, None] + P @ V[b:b + block]
            m = m_new
        O[a:a + block] = acc / l[:, None]
    return O


def tiled_attention__unscaled(Q, K, V, causal=True, block=64):
    n_q, d = Q.shape
    n_k = K.shape[0]
    O = np.zeros((n_q, V.shape[1]))
    for a in range(0, n_q, block):
        q = Q[a:a + block]
        rows = np.arange(a, a + len(q)) + n_k - n_q
        m = np.full(len(q), -np.inf)
        l = np.zeros(len(q))
        acc = np.zeros((len(q), V.shape[1]))
        for b in range(0, n_k, block):
            S = q @ K[b:b + block].T
            if causal:
                S = np.where(np.arange(b, b + S.shape[1])[None, :] <= rows[:, None], S, -np.inf)
            m_new = np.maximum(m, S.max(axis=1))
            safe = np.where(np.isfinite(m_new), m_new, 0.0)
            shrink = np.exp(m - safe)
            P = np.exp(S - safe[:, None])
            l = l * shrink + P.sum(axis=1)
            acc = acc * shrink[:, None] + P @ V[b:b + block]
            m = m_new
        O[a:a + block] = acc / l[:, None]
    return O


def tiled_attention__max_starts_at_zero(Q, K, V, causal=True, block=64):
    n_q, d = Q.shape
    n_k = K.shape[0]
    O = np.zeros((n_q, V.shape[1]))
    for a in range(0, n_q, block):
        q = Q[a:a + block]
        rows = np.arange(a, a + len(q)) + n_k - n_q
        m = np.zeros(len(q))
        l = np.zeros(len(q))
        acc = np.zeros((len(q), V.shape[1]))
        for b in range(0, n_k, block):
            S = q @ K[b:b + block].T / np.sqrt(d)
            if causal:
                S = np.where(np.arange(b, b + S.shape[1])[None, :] <= rows[:, None], S, -np.inf)
            m_new = np.maximum(m, S.max(axis=1))
            shrink = np.exp(m - m_new)
            P = np.exp(S - m_new[:, None])
            l = l * shrink + P.sum(axis=1)
            acc = acc * shrink[:, None] + P @ V[b:b + block]
            m = m_new
        O[a:a + block] = acc / l[:, None]
    return O


def tiled_attention_ok_early_stop(Q, K, V, causal=True, block=64):
    n_q, d = Q.shape
    n_k = K.shape[0]
    out = np.empty((n_q, V.shape[1]))
    qs = Q * (1.0 / math.sqrt(d))
    for a in range(0, n_q, block):
        q = qs[a:a + block]
        last = np.arange(a, a + len(q)) + (n_k - n_q)  # the last key each query may see
        m = np.full(len(q), -np.inf)
        l = np.zeros(len(q))
        acc = np.zeros((len(q), V.shape[1]))
        for b in range(0, n_k, block):
            if causal and b > last[-1]:
                break  # every later tile is in the future of this whole block
            S = q @ K[b:b + block].T
            if causal:
                S[np.arange(b, b + S.shape[1])[None, :] > last[:, None]] = -np.inf
            m_new = np.maximum(m, S.max(axis=1))
            ref = np.where(np.isneginf(m_new), 0.0, m_new)
            alpha = np.exp(m - ref)
            P = np.exp(S - ref[:, None])
            l = alpha * l + P.sum(axis=1)
            acc = alpha[:, None] * acc + P @ V[b:b + block]
            m = m_new
        out[a:a + len(q)] = acc / l[:, None]
    return out


# 08 embed

def embed__pos_by_token(tokens, tok_emb, pos_emb):
    return tok_emb[tokens] + pos_emb[tokens]


def embed__tok_by_position(tokens, tok_emb, pos_emb):
    n = len(tokens)
    return tok_emb[:n] + pos_emb[:n]


def embed__one_based_positions(tokens, tok_emb, pos_emb):
    n = len(tokens)
    return tok_emb[tokens] + pos_emb[1:n + 1]


def embed__last_positions(tokens, tok_emb, pos_emb):
    n = len(tokens)
    return tok_emb[tokens] + pos_emb[-n:]


def embed__concatenated(tokens, tok_emb, pos_emb):
    n = len(tokens)
    return np.concatenate([tok_emb[tokens], pos_emb[:n]], axis=1)


def embed_ok_take(tokens, tok_emb, pos_emb):
    n = len(tokens)
    return np.take(tok_emb, tokens, axis=0) + np.take(pos_emb, np.arange(n), axis=0)


# 08 sinusoidal_positions

def sinusoidal_positions__sin_cos_swapped(n, d):
    t = np.arange(n)[:, None]
    w = 10000.0 ** (-np.arange(0, d, 2) / d)
    P = np.zeros((n, d))
    P[:, 0::2] = np.cos(t * w)
    P[:, 1::2] = np.sin(t * w)
    return P


def sinusoidal_positions__halves(n, d):
    t = np.arange(n)[:, None]
    w = 10000.0 ** (-np.arange(0, d, 2) / d)
    return np.concatenate([np.sin(t * w), np.cos(t * w)], axis=1)


def sinusoidal_positions__i_over_d(n, d):
    t = np.arange(n)[:, None]
    w = 10000.0 ** (-np.arange(d // 2) / d)
    P = np.zeros((n, d))
    P[:, 0::2] = np.sin(t * w)
    P[:, 1::2] = np.cos(t * w)
    return P


def sinusoidal_positions__column_index(n, d):
    P = np.zeros((n, d))
    for t in range(n):
        for j in range(d):
            angle = t / 10000 ** (j / d)
            P[t, j] = np.sin(angle) if j % 2 == 0 else np.cos(angle)
    return P


def sinusoidal_positions__one_based(n, d):
    t = np.arange(1, n + 1)[:, None]
    w = 10000.0 ** (-np.arange(0, d, 2) / d)
    P = np.zeros((n, d))
    P[:, 0::2] = np.sin(t * w)
    P[:, 1::2] = np.cos(t * w)
    return P


def sinusoidal_positions_ok_stack(n, d):
    t = np.arange(n, dtype=float)
    ang = np.outer(t, np.exp(-np.log(10000.0) * np.arange(0, d, 2) / d))
    return np.stack([np.sin(ang), np.cos(ang)], axis=-1).reshape(n, d)


# 09 split_heads

def split_heads__plain_reshape(M, n_heads):
    n, dm = M.shape
    return M.reshape(n_heads, n, dm // n_heads)


def split_heads__strided(M, n_heads):
    n, dm = M.shape
    return M.reshape(n, dm // n_heads, n_heads).transpose(2, 0, 1)


def split_heads__list(M, n_heads):
    return np.split(M, n_heads, axis=1)


def split_heads__rows(M, n_heads):
    return np.stack(np.array_split(M, n_heads, axis=0))


def split_heads__head_last(M, n_heads):
    n, dm = M.shape
    return M.reshape(n, n_heads, dm // n_heads).transpose(1, 2, 0)


def split_heads_ok_hsplit(M, n_heads):
    return np.stack(np.hsplit(M, n_heads))


# 09 multi_head_attention

def multi_head_attention__scale_d_model(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    Q, K, V = _split(X @ Wq, n_heads), _split(X @ Wk, n_heads), _split(X @ Wv, n_heads)
    outs = []
    for h in range(n_heads):
        S = Q[h] @ K[h].T / np.sqrt(X.shape[1])
        if causal:
            S = S + np.triu(np.full(S.shape, -np.inf), k=1)
        outs.append(_softmax(S) @ V[h])
    return np.concatenate(outs, axis=1) @ Wo


def multi_head_attention__strided_heads(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    def split(M_):
        return [M_[:, h::n_heads] for h in range(n_heads)]
    Q, K, V = split(X @ Wq), split(X @ Wk), split(X @ Wv)
    return np.concatenate([attend(Q[h], K[h], V[h], causal) for h in range(n_heads)], axis=1) @ Wo


def multi_head_attention__causal_not_passed(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    Q, K, V = _split(X @ Wq, n_heads), _split(X @ Wk, n_heads), _split(X @ Wv, n_heads)
    return np.concatenate([attend(Q[h], K[h], V[h]) for h in range(n_heads)], axis=1) @ Wo


def multi_head_attention__keys_head0(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    d_head = Wq.shape[1] // n_heads
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    outs = []
    for h in range(n_heads):
        cols = slice(h * d_head, (h + 1) * d_head)
        outs.append(attend(Q[:, cols], K[:, :d_head], V[:, cols], causal))
    return np.concatenate(outs, axis=1) @ Wo


def multi_head_attention__heads_summed(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    Q, K, V = _split(X @ Wq, n_heads), _split(X @ Wk, n_heads), _split(X @ Wv, n_heads)
    d_head = Wq.shape[1] // n_heads
    total = sum(attend(Q[h], K[h], V[h], causal) for h in range(n_heads))
    return total @ Wo[:d_head]


def multi_head_attention_ok_einsum(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    n = X.shape[0]
    d_head = Wq.shape[1] // n_heads
    Q = np.einsum("nm,mhd->hnd", X, Wq.reshape(-1, n_heads, d_head))
    K = np.einsum("nm,mhd->hnd", X, Wk.reshape(-1, n_heads, d_head))
    V = np.einsum("nm,mhd->hnd", X, Wv.reshape(-1, n_heads, d_head))
    S = np.einsum("hid,hjd->hij", Q, K) / math.sqrt(d_head)
    if causal:
        S = np.where(np.tri(n, dtype=bool), S, -np.inf)
    O = np.einsum("hij,hjd->ihd", softmax_ok_logsumexp(S, axis=-1), V).reshape(n, n_heads * d_head)
    return O @ Wo


# 10 layer_norm

def layer_norm__unbiased(X, g, b, eps=1e-5):
    mu = X.mean(axis=1, keepdims=True)
    return (X - mu) / np.sqrt(X.var(axis=1, ddof=1, keepdims=True) + eps) * g + b


def layer_norm__eps_outside(X, g, b, eps=1e-5):
    mu = X.mean(axis=1, keepdims=True)
    return (X - mu) / (X.std(axis=1, keepdims=True) + eps) * g + b


def layer_norm__columns(X, g, b, eps=1e-5):
    mu = X.mean(axis=0, keepdims=True)
    return (X - mu) / np.sqrt(X.var(axis=0, keepdims=True) + eps) * g + b


def layer_norm__g_b_swapped(X, g, b, eps=1e-5):
    mu = X.mean(axis=1, keepdims=True)
    return (X - mu) / np.sqrt(X.var(axis=1, keepdims=True) + eps) * b + g


def layer_norm__eps_hardcoded(X, g, b, eps=1e-5):
    mu = X.mean(axis=1, keepdims=True)
    return (X - mu) / np.sqrt(X.var(axis=1, keepdims=True) + 1e-5) * g + b


def layer_norm_ok_loop(X, g, b, eps=1e-5):
    out = np.empty(X.shape, dtype=float)
    d = X.shape[1]
    for i, row in enumerate(X):
        c = row - row.sum() / d
        out[i] = c * (1.0 / math.sqrt(float(c @ c) / d + eps)) * g + b
    return out


# 10 gelu

def gelu__sqrt_2pi(X):
    return 0.5 * X * (1 + np.tanh(np.sqrt(2 * np.pi) * (X + 0.044715 * X ** 3)))


def gelu__square(X):
    return 0.5 * X * (1 + np.tanh(np.sqrt(2 / np.pi) * (X + 0.044715 * X ** 2)))


def gelu__no_half(X):
    return X * (1 + np.tanh(np.sqrt(2 / np.pi) * (X + 0.044715 * X ** 3)))


def gelu__bracket(X):
    return 0.5 * X * (1 + np.tanh(np.sqrt(2 / np.pi) * X + 0.044715 * X ** 3))


def gelu__relu(X):
    return np.maximum(X, 0.0)


def gelu_ok_sigmoid(X):
    X = np.asarray(X, dtype=float)
    z = 2.0 * math.sqrt(2.0 / math.pi) * (X + 0.044715 * X * X * X)
    return X * 0.5 * (1.0 + np.tanh(z / 2.0))


# 10 transformer_block

def transformer_block__post_ln(X, p, n_heads, causal=True):
    Y = _layer_norm(X + _mha(X, p["Wq"], p["Wk"], p["Wv"], p["Wo"], n_heads, causal), p["ln1_g"], p["ln1_b"])
    return _layer_norm(Y + _gelu(Y @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"], p["ln2_g"], p["ln2_b"])


def transformer_block__no_mlp_residual(X, p, n_heads, causal=True):
    Y = X + _mha(_layer_norm(X, p["ln1_g"], p["ln1_b"]), p["Wq"], p["Wk"], p["Wv"], p["Wo"], n_heads, causal)
    return _gelu(_layer_norm(Y, p["ln2_g"], p["ln2_b"]) @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"]


def transformer_block__ln2_on_X(X, p, n_heads, causal=True):
    Y = X + _mha(_layer_norm(X, p["ln1_g"], p["ln1_b"]), p["Wq"], p["Wk"], p["Wv"], p["Wo"], n_heads, causal)
    return Y + _gelu(_layer_norm(X, p["ln2_g"], p["ln2_b"]) @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"]


def transformer_block__ln1_params_twice(X, p, n_heads, causal=True):
    Y = X + _mha(_layer_norm(X, p["ln1_g"], p["ln1_b"]), p["Wq"], p["Wk"], p["Wv"], p["Wo"], n_heads, causal)
    return Y + _gelu(_layer_norm(Y, p["ln1_g"], p["ln1_b"]) @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"]


def transformer_block__causal_dropped(X, p, n_heads, causal=True):
    Y = X + _mha(_layer_norm(X, p["ln1_g"], p["ln1_b"]), p["Wq"], p["Wk"], p["Wv"], p["Wo"], n_heads)
    return Y + _gelu(_layer_norm(Y, p["ln2_g"], p["ln2_b"]) @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"]


def transformer_block_ok_steps(X, p, n_heads, causal=True):
    def mlp(Z):
        return gelu_ok_sigmoid(Z @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"]
    h = layer_norm_ok_loop(X, p["ln1_g"], p["ln1_b"])
    Y = X + multi_head_attention_ok_einsum(h, p["Wq"], p["Wk"], p["Wv"], p["Wo"], n_heads, causal)
    return Y + mlp(layer_norm_ok_loop(Y, p["ln2_g"], p["ln2_b"]))


# 11 next_token_logits

def next_token_logits__first_row(H, W_vocab):
    return H[0] @ W_vocab


def next_token_logits__keeps_row_axis(H, W_vocab):
    return (H @ W_vocab)[-1:]


def next_token_logits__mean_row(H, W_vocab):
    return H.mean(axis=0) @ W_vocab


def next_token_logits__softmaxed(H, W_vocab):
    return _softmax(H[-1] @ W_vocab)


def next_token_logits__summed(H, W_vocab):
    return (H @ W_vocab).sum(axis=0)


def next_token_logits_ok_einsum(H, W_vocab):
    return np.einsum("d,dv->v", H[H.shape[0] - 1], W_vocab)


# 11 cross_entropy

def cross_entropy__log_of_prob(logits, targets):
    n = logits.shape[0]
    P = _softmax(logits, axis=1)
    loss = -np.log(P[np.arange(n), targets]).mean()
    dl = P.copy()
    dl[np.arange(n), targets] -= 1
    return loss, dl / n


def cross_entropy__sum(logits, targets):
    n = logits.shape[0]
    z = logits - logits.max(axis=1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    dl = np.exp(logp)
    dl[np.arange(n), targets] -= 1
    return -logp[np.arange(n), targets].sum(), dl


def cross_entropy__grad_not_averaged(logits, targets):
    n = logits.shape[0]
    z = logits - logits.max(axis=1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    dl = np.exp(logp)
    dl[np.arange(n), targets] -= 1
    return -logp[np.arange(n), targets].mean(), dl


def cross_entropy__grad_sign(logits, targets):
    n = logits.shape[0]
    z = logits - logits.max(axis=1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    onehot = np.zeros(logits.shape)
    onehot[np.arange(n), targets] = 1
    return -logp[np.arange(n), targets].mean(), (onehot - np.exp(logp)) / n


def cross_entropy__target_columns(logits, targets):
    n = logits.shape[0]
    z = logits - logits.max(axis=1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    dl = np.exp(logp)
    dl[np.arange(n), targets] -= 1
    return -logp[:, targets].mean(), dl / n


def cross_entropy_ok_logsumexp(logits, targets):
    logits = np.asarray(logits, dtype=float)
    n, v = logits.shape
    m = logits.max(axis=1)
    lse = m + np.log(np.exp(logits - m[:, None]).sum(axis=1))
    picked = np.take_along_axis(logits, np.asarray(targets)[:, None], axis=1)[:, 0]
    loss = float(np.sum(lse - picked) / n)
    onehot = np.asarray(targets)[:, None] == np.arange(v)[None, :]
    return loss, (np.exp(logits - lse[:, None]) - onehot) / n


# 11 softmax_backward

def softmax_backward__diagonal_only(A, dA):
    return A * (1 - A) * dA


def softmax_backward__sum_no_keepdims(A, dA):
    return A * (dA - np.sum(A * dA, axis=-1))


def softmax_backward__sum_axis0(A, dA):
    return A * (dA - np.sum(A * dA, axis=0, keepdims=True))


def softmax_backward__no_leading_A(A, dA):
    return dA - np.sum(A * dA, axis=-1, keepdims=True)


def softmax_backward__global_sum(A, dA):
    return A * (dA - np.sum(A * dA))


def softmax_backward_ok_jacobian(A, dA):
    J = np.einsum("...i,ij->...ij", A, np.eye(A.shape[-1])) - np.einsum("...i,...j->...ij", A, A)
    return np.einsum("...ij,...j->...i", J, dA)


# 11 attention_backward

def _attn_forward(Q, K, V, causal, scale):
    s = 1.0 / np.sqrt(Q.shape[1]) if scale else 1.0
    S = Q @ K.T * s
    if causal:
        S = S + _future(Q.shape[0], K.shape[0])
    return _softmax(S), s


def attention_backward__scale_dropped(Q, K, V, dO, causal=True, scale=True):
    A, s = _attn_forward(Q, K, V, causal, scale)
    dS = _softmax_backward(A, dO @ V.T)
    return dS @ K, dS.T @ Q, A.T @ dO


def attention_backward__scale_twice(Q, K, V, dO, causal=True, scale=True):
    A, s = _attn_forward(Q, K, V, causal, scale)
    dS = _softmax_backward(A, dO @ V.T) * s * s
    return dS @ K, dS.T @ Q, A.T @ dO


def attention_backward__top_left_mask(Q, K, V, dO, causal=True, scale=True):
    s = 1.0 / np.sqrt(Q.shape[1]) if scale else 1.0
    S = Q @ K.T * s
    if causal:
        S = S + np.triu(np.full(S.shape, -np.inf), k=1)
    A = _softmax(S)
    dS = _softmax_backward(A, dO @ V.T) * s
    return dS @ K, dS.T @ Q, A.T @ dO


def attention_backward__diag_softmax(Q, K, V, dO, causal=True, scale=True):
    A, s = _attn_forward(Q, K, V, causal, scale)
    dS = A * (1 - A) * (dO @ V.T) * s
    return dS @ K, dS.T @ Q, A.T @ dO


def attention_backward__order(Q, K, V, dO, causal=True, scale=True):
    A, s = _attn_forward(Q, K, V, causal, scale)
    dS = _softmax_backward(A, dO @ V.T) * s
    return dS @ K, A.T @ dO, dS.T @ Q


def attention_backward_ok_einsum(Q, K, V, dO, causal=True, scale=True):
    A = attention_weights_ok_where(Q, K, causal, scale)
    s = Q.shape[1] ** -0.5 if scale else 1.0
    dA = np.einsum("iv,jv->ij", dO, V)
    dS = softmax_backward_ok_jacobian(A, dA) * s
    return np.einsum("ij,jd->id", dS, K), np.einsum("ij,id->jd", dS, Q), np.einsum("ij,iv->jv", A, dO)


# 11 layer_norm_backward

def layer_norm_backward__stats_constant(X, g, dY, eps=1e-5):
    mu = X.mean(axis=1, keepdims=True)
    inv = 1 / np.sqrt(X.var(axis=1, keepdims=True) + eps)
    xhat = (X - mu) * inv
    return dY * g * inv, (dY * xhat).sum(axis=0), dY.sum(axis=0)


def layer_norm_backward__dg_db_swapped(X, g, dY, eps=1e-5):
    d = X.shape[1]
    mu = X.mean(axis=1, keepdims=True)
    inv = 1 / np.sqrt(X.var(axis=1, keepdims=True) + eps)
    xhat = (X - mu) * inv
    dxh = dY * g
    dX = inv / d * (d * dxh - dxh.sum(axis=1, keepdims=True) - xhat * (dxh * xhat).sum(axis=1, keepdims=True))
    return dX, dY.sum(axis=0), (dY * xhat).sum(axis=0)


def layer_norm_backward__dg_from_X(X, g, dY, eps=1e-5):
    d = X.shape[1]
    mu = X.mean(axis=1, keepdims=True)
    inv = 1 / np.sqrt(X.var(axis=1, keepdims=True) + eps)
    xhat = (X - mu) * inv
    dxh = dY * g
    dX = inv / d * (d * dxh - dxh.sum(axis=1, keepdims=True) - xhat * (dxh * xhat).sum(axis=1, keepdims=True))
    return dX, (dY * X).sum(axis=0), dY.sum(axis=0)


def layer_norm_backward__mean_term_only(X, g, dY, eps=1e-5):
    mu = X.mean(axis=1, keepdims=True)
    inv = 1 / np.sqrt(X.var(axis=1, keepdims=True) + eps)
    xhat = (X - mu) * inv
    dxh = dY * g
    dX = inv * (dxh - dxh.mean(axis=1, keepdims=True))
    return dX, (dY * xhat).sum(axis=0), dY.sum(axis=0)


def layer_norm_backward__wrong_axis(X, g, dY, eps=1e-5):
    d = X.shape[1]
    mu = X.mean(axis=1, keepdims=True)
    inv = 1 / np.sqrt(X.var(axis=1, keepdims=True) + eps)
    xhat = (X - mu) * inv
    dxh = dY * g
    dX = inv / d * (d * dxh - dxh.sum(axis=1, keepdims=True) - xhat * (dxh * xhat).sum(axis=1, keepdims=True))
    return dX, (dY * xhat).sum(axis=1), dY.sum(axis=1)


def layer_norm_backward_ok_chain(X, g, dY, eps=1e-5):
    d = X.shape[1]
    mu = X.mean(axis=1, keepdims=True)
    c = X - mu
    var = (c * c).mean(axis=1, keepdims=True)
    r = (var + eps) ** -0.5
    dxh = dY * g
    dvar = np.sum(dxh * c, axis=1, keepdims=True) * -0.5 * r ** 3
    dc = dxh * r + dvar * 2.0 * c / d
    dX = dc - dc.mean(axis=1, keepdims=True)
    return dX, np.sum(dY * c * r, axis=0), np.sum(dY, axis=0)


# 12 most_attended

def most_attended__axis0(A, tokens):
    return [tokens[j] for j in np.argmax(A, axis=0)][:A.shape[0]]


def most_attended__argsort_last(A, tokens):
    return [tokens[j] for j in np.argsort(A, axis=1, kind="stable")[:, -1]]


def most_attended__indices(A, tokens):
    return list(np.argmax(A, axis=1))


def most_attended__numpy_array(A, tokens):
    return np.array(tokens)[np.argmax(A, axis=1)]


def most_attended_ok_loop(A, tokens):
    out = []
    for row in A:
        best = 0
        for j in range(1, len(row)):
            if row[j] > row[best]:
                best = j
        out.append(tokens[best])
    return out


# 12 attention_entropy

def attention_entropy__nan_zeros(A):
    return -np.sum(A * np.log(A), axis=1)


def attention_entropy__no_axis(A):
    P = A[A > 0]
    return -np.sum(P * np.log(P))


def attention_entropy__axis0(A):
    L = np.log(np.where(A > 0, A, 1.0))
    return -np.sum(A * L, axis=0)


def attention_entropy__sign(A):
    L = np.log(np.where(A > 0, A, 1.0))
    return np.sum(A * L, axis=1)


def attention_entropy__bits(A):
    L = np.log2(np.where(A > 0, A, 1.0))
    return -np.sum(A * L, axis=1)


def attention_entropy_ok_rows(A):
    return np.array([-sum(a * math.log(a) for a in row if a > 0) for row in np.asarray(A, dtype=float)])


# 13 padding_mask

def padding_mask__one_based(n_q, n_valid, n_k):
    Mk = np.zeros((n_q, n_k))
    Mk[:, n_valid + 1:] = -np.inf
    return Mk


def padding_mask__rows(n_q, n_valid, n_k):
    Mk = np.zeros((n_q, n_k))
    Mk[n_valid:, :] = -np.inf
    return Mk


def padding_mask__transposed(n_q, n_valid, n_k):
    Mk = np.zeros((n_k, n_q))
    Mk[n_valid:] = -np.inf
    return Mk


def padding_mask__one_row(n_q, n_valid, n_k):
    Mk = np.zeros(n_k)
    Mk[n_valid:] = -np.inf
    return Mk


def padding_mask_ok_tile(n_q, n_valid, n_k):
    row = np.where(np.arange(n_k) < n_valid, 0.0, -np.inf)
    return np.tile(row, (n_q, 1))


# 13 cross_attention

def cross_attention__causal(X, Z, Wq, Wk, Wv):
    return _attention(X @ Wq, Z @ Wk, Z @ Wv, causal=True)


def cross_attention__keys_from_X(X, Z, Wq, Wk, Wv):
    return _attention(X @ Wq, X @ Wk, Z @ Wv, causal=False)


def cross_attention__scale_d_model(X, Z, Wq, Wk, Wv):
    S = (X @ Wq) @ (Z @ Wk).T / np.sqrt(X.shape[1])
    return _softmax(S) @ (Z @ Wv)


def cross_attention__unscaled(X, Z, Wq, Wk, Wv):
    return _attention(X @ Wq, Z @ Wk, Z @ Wv, causal=False, scale=False)


def cross_attention__softmax_axis0(X, Z, Wq, Wk, Wv):
    S = (X @ Wq) @ (Z @ Wk).T / np.sqrt(Wq.shape[1])
    return _softmax(S, axis=0) @ (Z @ Wv)


def cross_attention_ok_einsum(X, Z, Wq, Wk, Wv):
    Q, K, V = np.einsum("nm,md->nd", X, Wq), np.einsum("nm,md->nd", Z, Wk), np.einsum("nm,md->nd", Z, Wv)
    return attention_ok_einsum(Q, K, V, causal=False, scale=True)


# 14 attend_step

def attend_step__no_shift(q, K_cache, V_cache):
    a = np.exp(K_cache @ q / np.sqrt(q.shape[0]))
    return a / a.sum() @ V_cache


def attend_step__scale_by_t(q, K_cache, V_cache):
    s = K_cache @ q / np.sqrt(K_cache.shape[0])
    a = np.exp(s - s.max())
    return a / a.sum() @ V_cache


def attend_step__drops_own_row(q, K_cache, V_cache):
    if len(K_cache) == 1:
        return V_cache[0].copy()
    s = K_cache[:-1] @ q / np.sqrt(q.shape[0])
    a = np.exp(s - s.max())
    return a / a.sum() @ V_cache[:-1]


def attend_step__unscaled(q, K_cache, V_cache):
    s = K_cache @ q
    a = np.exp(s - s.max())
    return a / a.sum() @ V_cache


def attend_step__row_matrix(q, K_cache, V_cache):
    s = q[None, :] @ K_cache.T / np.sqrt(q.shape[0])
    a = np.exp(s - s.max())
    return a / a.sum() @ V_cache


def attend_step_ok_logsumexp(q, K_cache, V_cache):
    s = np.einsum("td,d->t", K_cache, q) / math.sqrt(len(q))
    m = s.max()
    w = np.exp(s - (m + np.log(np.exp(s - m).sum())))
    return np.einsum("t,tv->v", w, V_cache)


# 14 cache_step

def cache_step__old_cache(q, k, v, K_cache, V_cache):
    K_new, V_new = np.vstack([K_cache, k]), np.vstack([V_cache, v])
    if len(K_cache) == 0:
        return v.copy(), K_new, V_new
    return _attend_step(q, K_cache, V_cache), K_new, V_new


def cache_step__flat_append(q, k, v, K_cache, V_cache):
    K_new, V_new = np.append(K_cache, k), np.append(V_cache, v)
    o = _attend_step(q, K_new.reshape(-1, len(k)), V_new.reshape(-1, len(v)))
    return o, K_new, V_new


def cache_step__tuple_order(q, k, v, K_cache, V_cache):
    K_new, V_new = np.vstack([K_cache, k]), np.vstack([V_cache, v])
    return K_new, V_new, _attend_step(q, K_new, V_new)


def cache_step__prepend(q, k, v, K_cache, V_cache):
    K_new, V_new = np.vstack([k, K_cache]), np.vstack([v, V_cache])
    return _attend_step(q, K_new, V_new), K_new, V_new


def cache_step__empty_guard_zeros(q, k, v, K_cache, V_cache):
    K_new, V_new = np.vstack([K_cache, k]), np.vstack([V_cache, v])
    if len(K_cache) == 0:
        return np.zeros(len(v)), K_new, V_new
    return _attend_step(q, K_new, V_new), K_new, V_new


def cache_step_ok_concatenate(q, k, v, K_cache, V_cache):
    K_new = np.concatenate([K_cache, k[np.newaxis, :]], axis=0)
    V_new = np.concatenate([V_cache, v[np.newaxis, :]], axis=0)
    return attend_step_ok_logsumexp(q, K_new, V_new), K_new, V_new


# 14 sample_next

def sample_next__numpy_int(logits, temperature, u):
    if temperature == 0:
        return np.argmax(logits)
    z = logits / temperature
    p = np.exp(z - z.max())
    c = np.cumsum(p / p.sum())
    c = c / c[-1]
    return np.searchsorted(c, u, side="right")


def sample_next__greater_equal(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    z = logits / temperature
    p = np.exp(z - z.max())
    c = np.cumsum(p / p.sum())
    c = c / c[-1]
    return int(np.argmax(c >= u))


def sample_next__multiply(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    z = logits * temperature
    p = np.exp(z - z.max())
    c = np.cumsum(p / p.sum())
    c = c / c[-1]
    return int(np.searchsorted(c, u, side="right"))


def sample_next__no_rescale(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    z = logits / temperature
    p = np.exp(z - z.max())
    c = np.cumsum(p / p.sum())
    return int(np.searchsorted(c, u, side="right"))


def sample_next__no_shift(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    p = np.exp(logits / temperature)
    c = np.cumsum(p / p.sum())
    c = c / c[-1]
    return int(np.searchsorted(c, u, side="right"))


def sample_next_ok_loop(logits, temperature, u):
    z = np.asarray(logits, dtype=float)
    if temperature == 0:
        return int(np.flatnonzero(z == z.max())[0])
    w = np.exp((z - z.max()) / temperature)
    c = np.cumsum(w / w.sum())
    c = c / c[-1]
    for i, total in enumerate(c):
        if total > u:
            return i
    return len(c) - 1


# 14 top_k_filter

def top_k_filter__ascending(logits, k):
    out = np.full(logits.shape, -np.inf)
    keep = np.argsort(logits)[:k]
    out[keep] = logits[keep]
    return out


def top_k_filter__exactly_k(logits, k):
    out = np.full(logits.shape, -np.inf)
    keep = np.argsort(logits, kind="stable")[-k:]
    out[keep] = logits[keep]
    return out


def top_k_filter__in_place(logits, k):
    if k >= len(logits):
        return logits
    kth = np.sort(logits)[-k]
    logits[logits < kth] = -np.inf
    return logits


def top_k_filter__k_plus_one(logits, k):
    if k >= len(logits):
        return logits.astype(float)
    kth = np.sort(logits)[-k - 1]
    return np.where(logits >= kth, logits, -np.inf)


def top_k_filter__partition(logits, k):
    if k >= len(logits):
        return logits.astype(float)
    kth = np.partition(logits, k)[k]
    return np.where(logits >= kth, logits, -np.inf)


def top_k_filter_ok_partition(logits, k):
    z = np.array(logits, dtype=float)
    if k >= z.size:
        return z
    kth = np.partition(z, z.size - k)[z.size - k]
    z[z < kth] = -np.inf
    return z


# 14 top_p_filter

def _probs(z):
    e = np.exp(z - z.max())
    return e / e.sum()


def top_p_filter__stop_before(logits, p):
    pr = _probs(logits)
    order = np.argsort(-pr, kind="stable")
    keep = order[np.cumsum(pr[order]) < p]
    if len(keep) == 0:
        keep = order[:1]
    out = np.full(len(logits), -np.inf)
    out[keep] = logits[keep]
    return out


def top_p_filter__strict_greater(logits, p):
    pr = _probs(logits)
    order = np.argsort(-pr, kind="stable")
    cum = np.cumsum(pr[order])
    n = int(np.searchsorted(cum, p, side="right")) + 1
    keep = order[:min(n, len(order))]
    out = np.full(len(logits), -np.inf)
    out[keep] = logits[keep]
    return out


def top_p_filter__reversed_ties(logits, p):
    pr = _probs(logits)
    order = np.argsort(pr, kind="stable")[::-1]
    cum = np.cumsum(pr[order])
    n = int(np.searchsorted(cum, p, side="left")) + 1
    keep = order[:min(n, len(order))]
    out = np.full(len(logits), -np.inf)
    out[keep] = logits[keep]
    return out


def top_p_filter__no_shift(logits, p):
    e = np.exp(logits)
    pr = e / e.sum()
    order = np.argsort(-pr, kind="stable")
    cum = np.cumsum(pr[order])
    n = int(np.searchsorted(cum, p, side="left")) + 1
    keep = order[:min(n, len(order))]
    out = np.full(len(logits), -np.inf)
    out[keep] = logits[keep]
    return out


def top_p_filter__no_p1_case(logits, p):
    pr = _probs(logits)
    order = np.argsort(-pr, kind="stable")
    cum = np.cumsum(pr[order])
    n = int(np.argmax(cum >= p)) + 1 if (cum >= p).any() else len(order)
    keep = order[:n]
    out = np.full(len(logits), -np.inf)
    out[keep] = logits[keep]
    return out


def top_p_filter_ok_loop(logits, p):
    z = np.array(logits, dtype=float)
    if p >= 1:
        return z
    e = np.exp(z - z.max())
    pr = e / e.sum()
    keep = np.zeros(z.size, dtype=bool)
    total = 0.0
    for i in sorted(range(z.size), key=lambda i: (-pr[i], i)):
        keep[i] = True
        total += pr[i]
        if total >= p:
            break
    z[~keep] = -np.inf
    return z


# 14 generate

def generate__positions_one_based(p, prompt, n_new, cache_step):
    seq = [int(t) for t in prompt]
    K = np.zeros((0, p["Wk"].shape[1]))
    V = np.zeros((0, p["Wv"].shape[1]))
    for i in range(len(prompt) + n_new - 1):
        x = p["tok_emb"][seq[i]] + p["pos_emb"][i + 1]
        o, K, V = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K, V)
        if i >= len(prompt) - 1:
            seq.append(int(np.argmax((x + o) @ p["W_out"])))
    return np.array(seq, dtype=int)


def generate__logits_from_o(p, prompt, n_new, cache_step):
    seq = [int(t) for t in prompt]
    K = np.zeros((0, p["Wk"].shape[1]))
    V = np.zeros((0, p["Wv"].shape[1]))
    for i in range(len(prompt) + n_new - 1):
        x = p["tok_emb"][seq[i]] + p["pos_emb"][i]
        o, K, V = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K, V)
        if i >= len(prompt) - 1:
            seq.append(int(np.argmax(o @ p["W_out"])))
    return np.array(seq, dtype=int)


def generate__own_attention(p, prompt, n_new, cache_step):
    seq = [int(t) for t in prompt]
    K = np.zeros((0, p["Wk"].shape[1]))
    V = np.zeros((0, p["Wv"].shape[1]))
    for i in range(len(prompt) + n_new - 1):
        x = p["tok_emb"][seq[i]] + p["pos_emb"][i]
        K = np.vstack([K, x @ p["Wk"]])
        V = np.vstack([V, x @ p["Wv"]])
        o = _attend_step(x @ p["Wq"], K, V)
        if i >= len(prompt) - 1:
            seq.append(int(np.argmax((x + o) @ p["W_out"])))
    return np.array(seq, dtype=int)


def generate__new_tokens_only(p, prompt, n_new, cache_step):
    seq = [int(t) for t in prompt]
    K = np.zeros((0, p["Wk"].shape[1]))
    V = np.zeros((0, p["Wv"].shape[1]))
    for i in range(len(prompt) + n_new - 1):
        x = p["tok_emb"][seq[i]] + p["pos_emb"][i]
        o, K, V = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K, V)
        if i >= len(prompt) - 1:
            seq.append(int(np.argmax((x + o) @ p["W_out"])))
    return np.array(seq[len(prompt):], dtype=int)


def generate__cache_reset(p, prompt, n_new, cache_step):
    seq = [int(t) for t in prompt]
    for i in range(len(prompt) + n_new - 1):
        K = np.zeros((0, p["Wk"].shape[1]))
        V = np.zeros((0, p["Wv"].shape[1]))
        x = p["tok_emb"][seq[i]] + p["pos_emb"][i]
        o, K, V = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K, V)
        if i >= len(prompt) - 1:
            seq.append(int(np.argmax((x + o) @ p["W_out"])))
    return np.array(seq, dtype=int)


def generate_ok_feed_queue(p, prompt, n_new, cache_step):
    out = list(np.asarray(prompt).tolist())
    d = p["Wk"].shape[0]
    K, V = np.zeros((0, p["Wk"].shape[1])), np.zeros((0, p["Wv"].shape[1]))
    pos = 0
    pending = list(out)
    while len(out) < len(prompt) + n_new:
        logits = None
        for t in pending:
            x = p["tok_emb"][t] + p["pos_emb"][pos]
            o, K, V = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K, V)
            logits = (x + o) @ p["W_out"]
            pos += 1
        nxt = int(np.argmax(logits))
        out.append(nxt)
        pending = [nxt]
    del d
    return np.array(out, dtype=int)


# 14 kv_cache_bytes

def kv_cache_bytes__keys_only(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return n_layers * n_heads * d_head * seq_len * batch * bytes_per_value


def kv_cache_bytes__values_not_bytes(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return 2 * n_layers * n_heads * d_head * seq_len * batch


def kv_cache_bytes__batch_ignored(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return 2 * n_layers * n_heads * d_head * seq_len * bytes_per_value


def kv_cache_bytes__float(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return 2.0 * n_layers * n_heads * d_head * seq_len * batch * bytes_per_value


def kv_cache_bytes_ok_prod(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return math.prod(int(x) for x in (2, n_layers, n_heads, d_head, seq_len, batch, bytes_per_value))


# 14 max_cached_tokens

def max_cached_tokens__float_division(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    per = 2 * n_layers * n_heads * d_head * batch * bytes_per_value
    return int(memory_bytes / per)


def max_cached_tokens__ceil(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    per = 2 * n_layers * n_heads * d_head * batch * bytes_per_value
    return -(-memory_bytes // per)


def max_cached_tokens__no_two(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    per = n_layers * n_heads * d_head * batch * bytes_per_value
    return memory_bytes // per


def max_cached_tokens__strictly_less(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    per = 2 * n_layers * n_heads * d_head * batch * bytes_per_value
    return (memory_bytes - 1) // per


def max_cached_tokens__numpy_floor(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    per = 2 * n_layers * n_heads * d_head * batch * bytes_per_value
    return int(np.int64(memory_bytes) // np.int64(per))


def max_cached_tokens_ok_divmod(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    per = math.prod(int(x) for x in (2, n_layers, n_heads, d_head, batch, bytes_per_value))
    tokens, _ = divmod(int(memory_bytes), per)
    return max(tokens, 0)


# 15 previous_token_score

def previous_token_score__superdiagonal(A):
    if A.shape[0] == 1:
        return 0.0
    return float(np.mean(np.diag(A, 1)))


def previous_token_score__over_T(A):
    return float(np.sum(np.diag(A, -1)) / A.shape[0])


def previous_token_score__no_guard(A):
    return float(np.mean([A[t, t - 1] for t in range(1, A.shape[0])]))


def previous_token_score__loop_bounds(A):
    T = A.shape[0]
    if T == 1:
        return 0.0
    vals = [A[t, t - 1] for t in range(1, T - 1)]
    return float(np.mean(vals)) if vals else float(A[T - 1, T - 2])


def previous_token_score_ok_diagonal(A):
    d = np.diagonal(A, offset=-1)
    return float(d.sum() / d.size) if d.size else 0.0


# 15 prefix_matching_score

def prefix_matching_score__the_copy(A, tokens):
    sums = []
    for t in range(len(tokens)):
        js = [j for j in range(t) if tokens[j] == tokens[t]]
        if js:
            sums.append(sum(A[t, j] for j in js))
    return float(np.mean(sums)) if sums else 0.0


def prefix_matching_score__latest_copy(A, tokens):
    sums = []
    for t in range(len(tokens)):
        js = [j for j in range(t) if tokens[j] == tokens[t]]
        if js:
            sums.append(A[t, js[-1] + 1])
    return float(np.mean(sums)) if sums else 0.0


def prefix_matching_score__over_T(A, tokens):
    total = 0.0
    for t in range(len(tokens)):
        total += sum(A[t, j + 1] for j in range(t) if tokens[j] == tokens[t])
    return float(total / len(tokens))


def prefix_matching_score__per_pair(A, tokens):
    vals = [A[t, j + 1] for t in range(len(tokens)) for j in range(t) if tokens[j] == tokens[t]]
    return float(np.mean(vals)) if vals else 0.0


def prefix_matching_score__no_guard(A, tokens):
    sums = []
    for t in range(len(tokens)):
        js = [j for j in range(t) if tokens[j] == tokens[t]]
        if js:
            sums.append(sum(A[t, j + 1] for j in js))
    return float(np.mean(sums))


def prefix_matching_score_ok_matrix(A, tokens):
    tok = np.asarray(tokens)
    T = len(tok)
    same = (tok[:, None] == tok[None, :]) & (np.arange(T)[None, :] < np.arange(T)[:, None])  # [t, j]: j < t copy
    W = np.zeros((T, T))
    W[:, :T - 1] = A[:, 1:]  # W[t, j] = A[t, j + 1]
    rows = same.any(axis=1)
    if not rows.any():
        return 0.0
    return float((W * same).sum(axis=1)[rows].mean())


# 15 ablate_head

def ablate_head__in_place(Wo, head, n_heads):
    d_head = Wo.shape[0] // n_heads
    Wo[head * d_head:(head + 1) * d_head] = 0
    return Wo


def ablate_head__columns(Wo, head, n_heads):
    W = Wo.copy()
    d_head = Wo.shape[0] // n_heads
    W[:, head * d_head:(head + 1) * d_head] = 0
    return W


def ablate_head__one_based(Wo, head, n_heads):
    W = Wo.copy()
    d_head = Wo.shape[0] // n_heads
    W[(head - 1) * d_head:head * d_head] = 0
    return W


def ablate_head__d_model(Wo, head, n_heads):
    W = Wo.copy()
    d_head = Wo.shape[1] // n_heads
    W[head * d_head:(head + 1) * d_head] = 0
    return W


def ablate_head__strided(Wo, head, n_heads):
    W = Wo.copy()
    W[head::n_heads] = 0
    return W


def ablate_head_ok_where(Wo, head, n_heads):
    d_head = Wo.shape[0] // n_heads
    rows = np.arange(Wo.shape[0]) // d_head
    return np.where((rows == head)[:, None], 0.0, Wo)


# 16 rope

def rope__rotate_half(X, positions, theta=10000.0):
    n, d = X.shape
    h = d // 2
    freq = theta ** (-np.arange(0, d, 2) / d)
    a = np.asarray(positions)[:, None] * freq
    x, y = X[:, :h], X[:, h:]
    return np.concatenate([x * np.cos(a) - y * np.sin(a), x * np.sin(a) + y * np.cos(a)], axis=1)


def rope__clockwise(X, positions, theta=10000.0):
    n, d = X.shape
    freq = theta ** (-np.arange(0, d, 2) / d)
    a = np.asarray(positions)[:, None] * freq
    out = np.empty((n, d))
    out[:, 0::2] = X[:, 0::2] * np.cos(a) + X[:, 1::2] * np.sin(a)
    out[:, 1::2] = -X[:, 0::2] * np.sin(a) + X[:, 1::2] * np.cos(a)
    return out


def rope__row_index(X, positions, theta=10000.0):
    n, d = X.shape
    freq = theta ** (-np.arange(0, d, 2) / d)
    a = np.arange(n)[:, None] * freq
    out = np.empty((n, d))
    out[:, 0::2] = X[:, 0::2] * np.cos(a) - X[:, 1::2] * np.sin(a)
    out[:, 1::2] = X[:, 0::2] * np.sin(a) + X[:, 1::2] * np.cos(a)
    return out


def rope__pair_not_doubled(X, positions, theta=10000.0):
    n, d = X.shape
    freq = theta ** (-np.arange(d // 2) / d)
    a = np.asarray(positions)[:, None] * freq
    out = np.empty((n, d))
    out[:, 0::2] = X[:, 0::2] * np.cos(a) - X[:, 1::2] * np.sin(a)
    out[:, 1::2] = X[:, 0::2] * np.sin(a) + X[:, 1::2] * np.cos(a)
    return out


def rope__in_place(X, positions, theta=10000.0):
    n, d = X.shape
    freq = theta ** (-np.arange(0, d, 2) / d)
    a = np.asarray(positions)[:, None] * freq
    x, y = X[:, 0::2].copy(), X[:, 1::2].copy()
    X[:, 0::2] = x * np.cos(a) - y * np.sin(a)
    X[:, 1::2] = x * np.sin(a) + y * np.cos(a)
    return X


def rope_ok_complex(X, positions, theta=10000.0):
    X = np.asarray(X, dtype=float)
    n, d = X.shape
    z = X[:, 0::2] + 1j * X[:, 1::2]
    ang = np.outer(np.asarray(positions, dtype=float), theta ** (-np.arange(d // 2) * 2.0 / d))
    z = z * np.exp(1j * ang)
    return np.stack([z.real, z.imag], axis=-1).reshape(n, d)


# 16 rope_attention

def rope_attention__values_rotated(Q, K, V, positions, theta=10000.0):
    Qr, Kr, Vr = _rope(Q, positions, theta), _rope(K, positions, theta), _rope(V, positions, theta)
    S = Qr @ Kr.T / np.sqrt(Q.shape[1]) + np.triu(np.full((len(Q), len(Q)), -np.inf), k=1)
    return _softmax(S) @ Vr


def rope_attention__queries_only(Q, K, V, positions, theta=10000.0):
    Qr = _rope(Q, positions, theta)
    S = Qr @ K.T / np.sqrt(Q.shape[1]) + np.triu(np.full((len(Q), len(Q)), -np.inf), k=1)
    return _softmax(S) @ V


def rope_attention__theta_not_passed(Q, K, V, positions, theta=10000.0):
    Qr, Kr = _rope(Q, positions), _rope(K, positions)
    S = Qr @ Kr.T / np.sqrt(Q.shape[1]) + np.triu(np.full((len(Q), len(Q)), -np.inf), k=1)
    return _softmax(S) @ V


def rope_attention__arange_positions(Q, K, V, positions, theta=10000.0):
    pos = np.arange(len(Q))
    Qr, Kr = _rope(Q, pos, theta), _rope(K, pos, theta)
    S = Qr @ Kr.T / np.sqrt(Q.shape[1]) + np.triu(np.full((len(Q), len(Q)), -np.inf), k=1)
    return _softmax(S) @ V


def rope_attention__no_mask(Q, K, V, positions, theta=10000.0):
    Qr, Kr = _rope(Q, positions, theta), _rope(K, positions, theta)
    S = Qr @ Kr.T / np.sqrt(Q.shape[1])
    return _softmax(S) @ V


def rope_attention_ok_einsum(Q, K, V, positions, theta=10000.0):
    Qr, Kr = rope_ok_complex(Q, positions, theta), rope_ok_complex(K, positions, theta)
    n = Q.shape[0]
    S = np.einsum("id,jd->ij", Qr, Kr) / math.sqrt(Q.shape[1])
    S = np.where(np.tri(n, dtype=bool), S, -np.inf)
    return np.einsum("ij,jv->iv", softmax_ok_logsumexp(S, axis=1), V)


# 17 grouped_query_attention

def grouped_query_attention__tile(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    d_head = Wq.shape[1] // n_heads
    Q = (X @ Wq).reshape(len(X), n_heads, d_head).transpose(1, 0, 2)
    K = (X @ Wk).reshape(len(X), n_kv_heads, d_head).transpose(1, 0, 2)
    V = (X @ Wv).reshape(len(X), n_kv_heads, d_head).transpose(1, 0, 2)
    K, V = np.tile(K, (n_heads // n_kv_heads, 1, 1)), np.tile(V, (n_heads // n_kv_heads, 1, 1))
    return np.concatenate([attend(Q[h], K[h], V[h], causal) for h in range(n_heads)], axis=1) @ Wo


def grouped_query_attention__divide_by_groups(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    d_head = Wq.shape[1] // n_heads
    outs = []
    for h in range(n_heads):
        g = h // n_kv_heads
        q = X @ Wq[:, h * d_head:(h + 1) * d_head]
        k = X @ Wk[:, g * d_head:(g + 1) * d_head]
        v = X @ Wv[:, g * d_head:(g + 1) * d_head]
        outs.append(attend(q, k, v, causal))
    return np.concatenate(outs, axis=1) @ Wo


def grouped_query_attention__values_per_head(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    d_head = Wq.shape[1] // n_heads
    per = n_heads // n_kv_heads
    outs = []
    for h in range(n_heads):
        g = h // per
        q = X @ Wq[:, h * d_head:(h + 1) * d_head]
        k = X @ Wk[:, g * d_head:(g + 1) * d_head]
        v = X @ Wv[:, (h % n_kv_heads) * d_head:(h % n_kv_heads + 1) * d_head]
        outs.append(attend(q, k, v, causal))
    return np.concatenate(outs, axis=1) @ Wo


def grouped_query_attention__scale_d_model(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    d_head = Wq.shape[1] // n_heads
    per = n_heads // n_kv_heads
    outs = []
    for h in range(n_heads):
        g = h // per
        q = X @ Wq[:, h * d_head:(h + 1) * d_head]
        k = X @ Wk[:, g * d_head:(g + 1) * d_head]
        v = X @ Wv[:, g * d_head:(g + 1) * d_head]
        S = q @ k.T / np.sqrt(X.shape[1])
        if causal:
            S = S + np.triu(np.full(S.shape, -np.inf), k=1)
        outs.append(_softmax(S) @ v)
    return np.concatenate(outs, axis=1) @ Wo


def grouped_query_attention__causal_not_passed(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    d_head = Wq.shape[1] // n_heads
    per = n_heads // n_kv_heads
    outs = []
    for h in range(n_heads):
        g = h // per
        outs.append(attend(X @ Wq[:, h * d_head:(h + 1) * d_head], X @ Wk[:, g * d_head:(g + 1) * d_head],
                           X @ Wv[:, g * d_head:(g + 1) * d_head]))
    return np.concatenate(outs, axis=1) @ Wo


def grouped_query_attention_ok_repeat(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    d_head = Wq.shape[1] // n_heads
    per = n_heads // n_kv_heads
    Wk_full = np.repeat(Wk.reshape(-1, n_kv_heads, d_head), per, axis=1).reshape(-1, n_heads * d_head)
    Wv_full = np.repeat(Wv.reshape(-1, n_kv_heads, d_head), per, axis=1).reshape(-1, n_heads * d_head)
    return multi_head_attention_ok_einsum(X, Wq, Wk_full, Wv_full, Wo, n_heads, causal)


# 17 grouped_cache_step

def grouped_cache_step__tile(q, k, v, K_cache, V_cache):
    n_heads, n_kv = q.shape[0], k.shape[0]
    K_new = np.concatenate([K_cache, k[:, None, :]], axis=1)
    V_new = np.concatenate([V_cache, v[:, None, :]], axis=1)
    Kf, Vf = np.tile(K_new, (n_heads // n_kv, 1, 1)), np.tile(V_new, (n_heads // n_kv, 1, 1))
    o = np.stack([_attend_step(q[h], Kf[h], Vf[h]) for h in range(n_heads)])
    return o, K_new, V_new


def grouped_cache_step__cache_per_head(q, k, v, K_cache, V_cache):
    n_heads, n_kv = q.shape[0], k.shape[0]
    per = n_heads // n_kv
    if K_cache.shape[0] != n_heads:
        K_cache, V_cache = np.repeat(K_cache, per, axis=0), np.repeat(V_cache, per, axis=0)
    K_new = np.concatenate([K_cache, np.repeat(k, per, axis=0)[:, None, :]], axis=1)
    V_new = np.concatenate([V_cache, np.repeat(v, per, axis=0)[:, None, :]], axis=1)
    o = np.stack([_attend_step(q[h], K_new[h], V_new[h]) for h in range(n_heads)])
    return o, K_new, V_new


def grouped_cache_step__old_cache(q, k, v, K_cache, V_cache):
    n_heads, n_kv = q.shape[0], k.shape[0]
    per = n_heads // n_kv
    K_new = np.concatenate([K_cache, k[:, None, :]], axis=1)
    V_new = np.concatenate([V_cache, v[:, None, :]], axis=1)
    if K_cache.shape[1] == 0:
        o = np.stack([v[h // per] for h in range(n_heads)])
    else:
        o = np.stack([_attend_step(q[h], K_cache[h // per], V_cache[h // per]) for h in range(n_heads)])
    return o, K_new, V_new


def grouped_cache_step__no_shift(q, k, v, K_cache, V_cache):
    n_heads, n_kv = q.shape[0], k.shape[0]
    per = n_heads // n_kv
    K_new = np.concatenate([K_cache, k[:, None, :]], axis=1)
    V_new = np.concatenate([V_cache, v[:, None, :]], axis=1)
    o = []
    for h in range(n_heads):
        a = np.exp(K_new[h // per] @ q[h] / np.sqrt(q.shape[1]))
        o.append(a / a.sum() @ V_new[h // per])
    return np.array(o), K_new, V_new


def grouped_cache_step__scale_by_t(q, k, v, K_cache, V_cache):
    n_heads, n_kv = q.shape[0], k.shape[0]
    per = n_heads // n_kv
    K_new = np.concatenate([K_cache, k[:, None, :]], axis=1)
    V_new = np.concatenate([V_cache, v[:, None, :]], axis=1)
    o = []
    for h in range(n_heads):
        s = K_new[h // per] @ q[h] / np.sqrt(K_new.shape[1])
        a = np.exp(s - s.max())
        o.append(a / a.sum() @ V_new[h // per])
    return np.array(o), K_new, V_new


def grouped_cache_step_ok_einsum(q, k, v, K_cache, V_cache):
    n_heads, d_head = q.shape
    n_kv = k.shape[0]
    K_new = np.concatenate([K_cache, k[:, np.newaxis]], axis=1)
    V_new = np.concatenate([V_cache, v[:, np.newaxis]], axis=1)
    qg = q.reshape(n_kv, n_heads // n_kv, d_head)  # heads in order, grouped
    S = np.einsum("gpd,gtd->gpt", qg, K_new) / math.sqrt(d_head)
    A = softmax_ok_logsumexp(S, axis=-1)
    return np.einsum("gpt,gtd->gpd", A, V_new).reshape(n_heads, d_head), K_new, V_new


# 18 sliding_window_mask

def sliding_window_mask__one_too_many(n, window):
    i, j = np.indices((n, n))
    return np.where((j <= i) & (j >= i - window), 0.0, -np.inf)


def sliding_window_mask__one_too_few(n, window):
    i, j = np.indices((n, n))
    return np.where((j <= i) & (j > i - window + 1), 0.0, -np.inf)


def sliding_window_mask__symmetric(n, window):
    i, j = np.indices((n, n))
    return np.where(np.abs(i - j) < window, 0.0, -np.inf)


def sliding_window_mask__guard_zeros(n, window):
    if window >= n:
        return np.zeros((n, n))
    i, j = np.indices((n, n))
    return np.where((j <= i) & (j > i - window), 0.0, -np.inf)


def sliding_window_mask__tril_k(n, window):
    Mk = np.triu(np.full((n, n), -np.inf), k=1)
    return Mk + np.tril(np.full((n, n), -np.inf), k=window)


def sliding_window_mask_ok_bands(n, window):
    allowed = np.tri(n, dtype=bool) & ~np.tri(n, k=-window, dtype=bool)
    out = np.full((n, n), -np.inf)
    out[allowed] = 0.0
    return out


# 18 rolling_cache_step

def rolling_cache_step__sinks_ignored(q, k, v, K_cache, V_cache, window, n_sinks=0):
    K_new, V_new = np.vstack([K_cache, k])[-window:], np.vstack([V_cache, v])[-window:]
    return _attend_step(q, K_new, V_new), K_new, V_new


def rolling_cache_step__sinks_extra(q, k, v, K_cache, V_cache, window, n_sinks=0):
    K_all, V_all = np.vstack([K_cache, k]), np.vstack([V_cache, v])
    if len(K_all) > window + n_sinks:
        K_all = np.vstack([K_all[:n_sinks], K_all[-window:]])
        V_all = np.vstack([V_all[:n_sinks], V_all[-window:]])
    return _attend_step(q, K_all, V_all), K_all, V_all


def rolling_cache_step__attend_before_cut(q, k, v, K_cache, V_cache, window, n_sinks=0):
    K_all, V_all = np.vstack([K_cache, k]), np.vstack([V_cache, v])
    o = _attend_step(q, K_all, V_all)
    if len(K_all) > window:
        keep = window - n_sinks
        K_all = np.vstack([K_all[:n_sinks], K_all[-keep:]])
        V_all = np.vstack([V_all[:n_sinks], V_all[-keep:]])
    return o, K_all, V_all


def rolling_cache_step__window_minus_one(q, k, v, K_cache, V_cache, window, n_sinks=0):
    K_all, V_all = np.vstack([K_cache, k]), np.vstack([V_cache, v])
    if len(K_all) >= window:
        keep = window - 1 - n_sinks
        K_all = np.vstack([K_all[:n_sinks], K_all[len(K_all) - keep:]])
        V_all = np.vstack([V_all[:n_sinks], V_all[len(V_all) - keep:]])
    return _attend_step(q, K_all, V_all), K_all, V_all


def rolling_cache_step__drops_newest(q, k, v, K_cache, V_cache, window, n_sinks=0):
    K_all, V_all = np.vstack([K_cache, k]), np.vstack([V_cache, v])
    o = _attend_step(q, K_all[:window], V_all[:window])
    return o, K_all[:window], V_all[:window]


def rolling_cache_step_ok_index(q, k, v, K_cache, V_cache, window, n_sinks=0):
    K_all = np.concatenate([K_cache, k[None]], axis=0)
    V_all = np.concatenate([V_cache, v[None]], axis=0)
    t1 = K_all.shape[0]
    idx = np.arange(t1)
    if t1 > window:
        idx = idx[(idx < n_sinks) | (idx >= t1 - (window - n_sinks))]
    K_new, V_new = K_all[idx], V_all[idx]
    return attend_step_ok_logsumexp(q, K_new, V_new), K_new, V_new


# ============================================================================
# 19 capstone: dicts of ops for TinyLM(ops=...)

RIGHT_OPS = {
    "softmax": softmax_ok_logsumexp,
    "attention": attention_ok_einsum,
    "embed": embed_ok_take,
    "multi_head_attention": multi_head_attention_ok_einsum,
    "layer_norm": layer_norm_ok_loop,
    "gelu": gelu_ok_sigmoid,
    "transformer_block": transformer_block_ok_steps,
    "next_token_logits": next_token_logits_ok_einsum,
    "cross_entropy": cross_entropy_ok_logsumexp,
    "softmax_backward": softmax_backward_ok_jacobian,
    "attention_backward": attention_backward_ok_einsum,
    "layer_norm_backward": layer_norm_backward_ok_chain,
    "cache_step": cache_step_ok_concatenate,
    "sample_next": sample_next_ok_loop,
    "rope": rope_ok_complex,
    "grouped_query_attention": grouped_query_attention_ok_repeat,
    "grouped_cache_step": grouped_cache_step_ok_einsum,
    "rolling_cache_step": rolling_cache_step_ok_index,
}


def _ops(**wrong):
    d = dict(RIGHT_OPS)
    d.update(wrong)
    return d


CAPSTONE_MISTAKES = [
    ("its embed adds the position rows from 1 (pos_emb[1:n+1]) instead of from position 0",
     _ops(embed=embed__one_based_positions)),
    ("its layer_norm divides by the unbiased variance (np.var with ddof=1) instead of the biased one",
     _ops(layer_norm=layer_norm__unbiased)),
    ("its gelu uses sqrt(2*pi) instead of sqrt(2/pi) inside the tanh",
     _ops(gelu=gelu__sqrt_2pi)),
    ("its cross_entropy returns the summed loss and an unaveraged gradient instead of the mean over the rows",
     _ops(cross_entropy=cross_entropy__sum)),
    ("its attention_backward forgets the 1/sqrt(d) scale on dS, and its layer_norm_backward swaps dg and db",
     _ops(attention_backward=attention_backward__scale_dropped, layer_norm_backward=layer_norm_backward__dg_db_swapped)),
    ("its cache_step lets the new query attend over the old cache, before appending the new key and value",
     _ops(cache_step=cache_step__old_cache)),
    ("its rope rotates the pairs clockwise (the sine terms' signs swapped)",
     _ops(rope=rope__clockwise)),
    ("its rolling_cache_step keeps only the last window rows, evicting the sinks, and its grouped_cache_step "
     "reads group h % n_kv_heads (np.tile instead of np.repeat)",
     _ops(rolling_cache_step=rolling_cache_step__sinks_ignored, grouped_cache_step=grouped_cache_step__tile)),
]


# ============================================================================
# the lists

MISTAKES = [
    # 01 project
    M("project", "writes the textbook column-vector product W @ x instead of the row form x @ W", project__column_order),
    M("project", "sums x[:, None] * W with np.sum and no axis, returning one scalar instead of a (d_out,) vector",
      project__sum_no_axis),
    M("project", "sums x[:, None] * W over axis 1 (the output features) instead of axis 0 (the inputs i)",
      project__wrong_axis),
    M("project", "the loop over i starts at 1 (1-based index from the formula), leaving out x[0] * W[0, j]",
      project__one_based_loop),
    M("project", "turns x into a (1, d_in) row with np.newaxis and returns the (1, d_out) matrix instead of (d_out,)",
      project__row_matrix),
    # 01 compose
    M("compose", "multiplies in column-vector order, W2 @ W1, instead of W1 @ W2", compose__column_order),
    M("compose", "multiplies W1 and W2 elementwise (W1 * W2) instead of taking the matrix product",
      compose__elementwise),
    M("compose", "transposes both factors, W1.T @ W2.T, instead of W1 @ W2", compose__transposes),
    M("compose", "returns the transpose (W1 @ W2).T, shape (d_out, d_in), instead of W1 @ W2",
      compose__transposed_result),
    # 02 project_rows
    M("project_rows", "projects only the first row X[0] instead of every row of X", project_rows__first_row),
    M("project_rows", "returns W.T @ X.T, the (d_out, n) transpose, instead of X @ W", project_rows__transposed),
    M("project_rows", "stacks the projected rows with np.stack(axis=1), giving (d_out, n) instead of (n, d_out)",
      project_rows__stack_axis),
    M("project_rows", "the row loop starts at 1, leaving row 0 of the result zero", project_rows__loop_from_one),
    # 02 matmul_cost
    M("matmul_cost", "counts d_in - 1 per entry (the additions of a dot product) instead of d_in multiplications",
      matmul_cost__additions),
    M("matmul_cost", "counts multiplications and additions (2 n d_in d_out FLOPs) instead of the multiplications",
      matmul_cost__flops),
    M("matmul_cost", "returns a float (float(n) * d_in * d_out), which rounds for large sizes, not an exact int",
      matmul_cost__float),
    M("matmul_cost", "multiplies the sizes as np.int32 scalars, which overflow for large sizes",
      matmul_cost__int32),
    # 03 values
    M("values", "builds X from the table's rows in dict order (one per vocabulary word) instead of one per token",
      values__table_order),
    M("values", "drops repeated words (dict.fromkeys) so a word that appears twice gets one row",
      values__dedup),
    M("values", "builds X from the tokens in sorted order instead of sentence order", values__sorted),
    M("values", "returns the column form Wv.T @ X.T, shape (d_v, n), instead of X @ Wv", values__column_form),
    # 03 one_hot
    M("one_hot", "builds the matrix with np.zeros(dtype=int), returning integers instead of a float array",
      one_hot__int_dtype),
    M("one_hot", "sets O[:, ids] = 1, which fills whole columns for every row, instead of O[arange(n), ids]",
      one_hot__whole_columns),
    M("one_hot", "puts the 1 at column ids[i] - 1 (1-based ids) instead of ids[i]", one_hot__one_based),
    M("one_hot", "sorts ids in place (ids.sort()), changing the input and the row order", one_hot__sorts_ids),
    # 04 uniform_causal_weights
    M("uniform_causal_weights", "uses np.triu instead of np.tril, filling the upper triangle (the future)",
      uniform_causal_weights__triu),
    M("uniform_causal_weights", "divides by np.arange(1, n+1) without [:, None], so column j is divided by j+1 "
      "instead of row i by i+1", uniform_causal_weights__columns),
    M("uniform_causal_weights", "divides every row by n instead of by i+1, the row's own count",
      uniform_causal_weights__over_n),
    M("uniform_causal_weights", "builds the triangle with dtype=int and divides with //, so every 1/(i+1) "
      "below 1 becomes 0", uniform_causal_weights__int_division),
    M("uniform_causal_weights", "uses np.tril(..., k=-1), which excludes the diagonal (each row's own column)",
      uniform_causal_weights__strict),
    # 04 causal_average
    M("causal_average", "np.cumsum without axis flattens V, returning a 1-D running mean of all entries",
      causal_average__cumsum_flat),
    M("causal_average", "divides the running sums by n instead of by i+1", causal_average__over_n),
    M("causal_average", "averages rows 0..i-1 (range(i) excludes row i itself) instead of rows 0..i",
      causal_average__exclusive),
    M("causal_average", "gives every row the mean of all n rows, ignoring causality", causal_average__global_mean),
    # 05 similarity
    M("similarity", "computes Q.T @ K, a (d, d) matrix of feature products, instead of Q @ K.T",
      similarity__gram_of_features),
    M("similarity", "computes K @ Q.T, shape (n_k, n_q), the transpose of the scores", similarity__swapped),
    M("similarity", "divides by sqrt(d) (the later scaling carried over); the scores must be unscaled",
      similarity__scaled),
    M("similarity", "multiplies Q and K elementwise and sums each row, pairing query i only with key i",
      similarity__rowwise),
    # 05 learned_scores
    M("learned_scores", "swaps the roles of Wq and Wk, returning (X Wk)(X Wq)^T, the transpose of the scores",
      learned_scores__swapped),
    M("learned_scores", "projects the keys with Wq as well (Wq used twice) instead of Wk", learned_scores__Wq_twice),
    M("learned_scores", "divides the scores by sqrt(d); the exercise asks for unscaled scores",
      learned_scores__scaled),
    M("learned_scores", "adds a causal -inf mask; the exercise asks for no mask yet", learned_scores__masked),
    # 06 causal_mask
    M("causal_mask", "uses np.tril(..., k=-1), putting -inf below the diagonal (the past) instead of above it",
      causal_mask__tril),
    M("causal_mask", "uses np.triu without k=1, so the diagonal (each token itself) is -inf too",
      causal_mask__triu_no_k),
    M("causal_mask", "multiplies a 0/1 triangle by -inf, so 0 * -inf makes the allowed entries NaN",
      causal_mask__times_inf),
    M("causal_mask", "uses -1e9 instead of -np.inf for the future", causal_mask__big_negative),
    M("causal_mask", "returns a boolean mask (True above the diagonal) instead of the additive 0 / -inf floats",
      causal_mask__boolean),
    # 06 softmax
    M("softmax", "exponentiates without subtracting the maximum, so scores around 1000 overflow to inf/NaN",
      softmax__no_shift),
    M("softmax", "subtracts the global maximum (np.max without axis) instead of each row's maximum, so rows far "
      "below it underflow to 0/0", softmax__global_max),
    M("softmax", "ignores the axis argument and always normalises along the last axis", softmax__axis_ignored),
    M("softmax", "takes the max without keepdims=True, so it is broadcast along the wrong axis and each entry "
      "is shifted by another row's maximum", softmax__max_no_keepdims),
    M("softmax", "divides by the sum over axis 0 instead of over the given axis", softmax__sum_axis0),
    # 06 score_scale
    M("score_scale", "returns 1/d instead of 1/sqrt(d): the variance is d, so the standard deviation is sqrt(d)",
      score_scale__one_over_d),
    M("score_scale", "returns sqrt(d), the factor to divide by, instead of 1/sqrt(d) to multiply by",
      score_scale__sqrt_d),
    M("score_scale", "uses math.isqrt (the integer square root), which is wrong for d that are not squares",
      score_scale__isqrt),
    M("score_scale", "rounds the factor to 3 decimals with round() instead of returning it exactly",
      score_scale__rounded),
    # 06 attention_weights
    M("attention_weights", "masks with np.triu(k=1) on the (n_q, n_k) scores, aligning queries with the first keys "
      "instead of the last n_q positions", attention_weights__top_left_mask),
    M("attention_weights", "scales by sqrt(K.shape[0]) (n_k) instead of sqrt(d) (Q.shape[1])",
      attention_weights__scale_by_n_k),
    M("attention_weights", "takes the softmax over axis 0 (over the queries) instead of over the keys",
      attention_weights__softmax_axis0),
    M("attention_weights", "adds the causal mask even when causal=False", attention_weights__mask_always),
    M("attention_weights", "uses k = n_k - n_q instead of n_k - n_q + 1 in np.triu, hiding each query's own key",
      attention_weights__offset_k),
    # 07 attention
    M("attention", "masks with np.triu(k=1) on the (n_q, n_k) scores instead of the last-n_q-positions offset",
      attention__top_left_mask),
    M("attention", "always divides by sqrt(d), even when scale=False", attention__always_scaled),
    M("attention", "exponentiates the scores without subtracting the row maximum, overflowing for large scores",
      attention__no_shift),
    M("attention", "returns the tuple (O, A) instead of O alone", attention__returns_weights_too),
    M("attention", "scales by sqrt(d_v) (V.shape[1]) instead of sqrt(d) (Q.shape[1])", attention__scale_by_d_v),
    # 07 self_attention
    M("self_attention", "tests `if Wo:` on an array, which raises for a matrix, instead of `if Wo is not None`",
      self_attention__if_Wo),
    M("self_attention", "does not scale the scores by 1/sqrt(d_head)", self_attention__unscaled),
    M("self_attention", "scales by sqrt(d_model) (X.shape[1]) instead of sqrt(d_head)", self_attention__scale_d_model),
    M("self_attention", "does not pass causal on to attention, so causal=False still masks",
      self_attention__causal_ignored),
    M("self_attention", "never applies Wo, even when it is given", self_attention__Wo_dropped),
    # 07 future_leak
    M("future_leak", "counts any change (> 0) as a change, so rounding noise of about 1e-15 reads as a leak",
      future_leak__no_tolerance),
    M("future_leak", "returns the smallest leak distance instead of the largest", future_leak__smallest),
    M("future_leak", "returns the number of output rows that leak instead of how far ahead the worst one sees",
      future_leak__counts_rows),
    M("future_leak", "moves rows of X itself (moved = X, no copy), modifying the input in place",
      future_leak__moves_X),
    M("future_leak", "only tests the next row (k = 1) and returns 1 or 0, never a larger distance",
      future_leak__next_row_only),
    # 07 tiled_attention
    M("tiled_attention", "rescales l but not acc when a tile raises the running max", tiled_attention__no_acc_rescale),
    M("tiled_attention", "puts the causal boundary at the query's own row index, ignoring the n_k - n_q offset "
      "when there are fewer queries than keys", tiled_attention__top_left),
    M("tiled_attention", "does not scale the scores by 1/sqrt(d)", tiled_attention__unscaled),
    M("tiled_attention", "starts the running max at 0 instead of -inf, so rows whose scores are all far below 0 "
      "underflow to 0/0", tiled_attention__max_starts_at_zero),
    # 08 embed
    M("embed", "looks the position vectors up by token id (pos_emb[tokens]) instead of by position",
      embed__pos_by_token),
    M("embed", "takes the word vectors by position (tok_emb[:n]) instead of by token id", embed__tok_by_position),
    M("embed", "adds position rows 1..n (1-based) instead of 0..n-1", embed__one_based_positions),
    M("embed", "adds the last n rows of pos_emb (pos_emb[-n:]) instead of the first n", embed__last_positions),
    M("embed", "concatenates the word and position vectors (np.concatenate) instead of adding them",
      embed__concatenated),
    # 08 sinusoidal_positions
    M("sinusoidal_positions", "puts the cosines on the even columns and the sines on the odd ones",
      sinusoidal_positions__sin_cos_swapped),
    M("sinusoidal_positions", "concatenates all sines then all cosines (two halves) instead of interleaving them",
      sinusoidal_positions__halves),
    M("sinusoidal_positions", "uses the exponent i/d instead of 2i/d for pair i", sinusoidal_positions__i_over_d),
    M("sinusoidal_positions", "uses each column's own index j in 10000^(j/d), so the cosine of pair i gets "
      "(2i+1)/d", sinusoidal_positions__column_index),
    M("sinusoidal_positions", "counts positions from 1 (t = 1..n) instead of from 0", sinusoidal_positions__one_based),
    # 09 split_heads
    M("split_heads", "reshapes M to (n_heads, n, d_head) directly instead of reshaping to (n, n_heads, d_head) and "
      "transposing", split_heads__plain_reshape),
    M("split_heads", "reshapes to (n, d_head, n_heads), so head h gets every n_heads-th column instead of a "
      "contiguous block", split_heads__strided),
    M("split_heads", "returns the list from np.split instead of one (n_heads, n, d_head) array", split_heads__list),
    M("split_heads", "splits the rows (axis 0) instead of the columns", split_heads__rows),
    M("split_heads", "transposes to (n_heads, d_head, n) with transpose(1, 2, 0) instead of (1, 0, 2)",
      split_heads__head_last),
    # 09 multi_head_attention
    M("multi_head_attention", "scales each head by sqrt(d_model) instead of sqrt(d_head)",
      multi_head_attention__scale_d_model),
    M("multi_head_attention", "gives head h the strided columns h::n_heads instead of the contiguous block",
      multi_head_attention__strided_heads),
    M("multi_head_attention", "does not pass causal to the helper, so causal=False still masks",
      multi_head_attention__causal_not_passed),
    M("multi_head_attention", "every head takes its keys from head 0's columns K[:, :d_head] (copy-paste slip)",
      multi_head_attention__keys_head0),
    M("multi_head_attention", "sums the head outputs and multiplies by the first d_head rows of Wo instead of "
      "concatenating them", multi_head_attention__heads_summed),
    # 10 layer_norm
    M("layer_norm", "uses the unbiased variance (ddof=1) instead of dividing by d", layer_norm__unbiased),
    M("layer_norm", "adds eps to the standard deviation instead of inside the square root", layer_norm__eps_outside),
    M("layer_norm", "normalises over the rows (axis 0, each feature) instead of over each row's features",
      layer_norm__columns),
    M("layer_norm", "swaps the gain and the bias: multiplies by b and adds g", layer_norm__g_b_swapped),
    M("layer_norm", "hard-codes eps = 1e-5 instead of using the eps argument", layer_norm__eps_hardcoded),
    # 10 gelu
    M("gelu", "uses sqrt(2*pi) instead of sqrt(2/pi) in the tanh", gelu__sqrt_2pi),
    M("gelu", "uses x**2 instead of x**3 in the cubic term", gelu__square),
    M("gelu", "drops the leading 0.5", gelu__no_half),
    M("gelu", "closes the bracket early: sqrt(2/pi) multiplies x only, not x + 0.044715 x^3", gelu__bracket),
    M("gelu", "returns a ReLU (max(x, 0)) instead of the tanh GELU", gelu__relu),
    # 10 transformer_block
    M("transformer_block", "applies layer norm after each residual sum (post-LN) instead of before each sublayer",
      transformer_block__post_ln),
    M("transformer_block", "forgets the MLP's residual: returns the MLP output instead of Y + MLP",
      transformer_block__no_mlp_residual),
    M("transformer_block", "applies the second layer norm to X instead of Y", transformer_block__ln2_on_X),
    M("transformer_block", "uses ln1_g and ln1_b for the second layer norm too (copy-paste)",
      transformer_block__ln1_params_twice),
    M("transformer_block", "does not pass causal to multi_head_attention, so causal=False still masks",
      transformer_block__causal_dropped),
    # 11 next_token_logits
    M("next_token_logits", "takes the first row H[0] instead of the last row", next_token_logits__first_row),
    M("next_token_logits", "slices [-1:], returning a (1, vocab) array instead of (vocab,)",
      next_token_logits__keeps_row_axis),
    M("next_token_logits", "averages all rows of H instead of taking the last one", next_token_logits__mean_row),
    M("next_token_logits", "applies a softmax; the exercise asks for raw logits", next_token_logits__softmaxed),
    M("next_token_logits", "sums the logits of every position instead of taking the last position's",
      next_token_logits__summed),
    # 11 cross_entropy
    M("cross_entropy", "takes the log of the softmax probability, which is log(0) = -inf for unlikely targets at "
      "large logits, instead of using log-sum-exp", cross_entropy__log_of_prob),
    M("cross_entropy", "sums the loss over the rows and leaves the gradient unaveraged instead of the mean",
      cross_entropy__sum),
    M("cross_entropy", "returns the mean loss but forgets to divide dlogits by n", cross_entropy__grad_not_averaged),
    M("cross_entropy", "flips the gradient's sign: onehot - softmax instead of softmax - onehot",
      cross_entropy__grad_sign),
    M("cross_entropy", "indexes logp[:, targets], which picks whole columns (every row at every target), instead of "
      "logp[arange(n), targets]", cross_entropy__target_columns),
    # 11 softmax_backward
    M("softmax_backward", "keeps only the Jacobian's diagonal: A * (1 - A) * dA, dropping the cross terms",
      softmax_backward__diagonal_only),
    M("softmax_backward", "sums A * dA without keepdims=True, so the row sums broadcast along the wrong axis",
      softmax_backward__sum_no_keepdims),
    M("softmax_backward", "sums A * dA over axis 0 instead of the last axis", softmax_backward__sum_axis0),
    M("softmax_backward", "forgets the leading factor A: returns dA - sum(A * dA)", softmax_backward__no_leading_A),
    M("softmax_backward", "sums A * dA over the whole array (np.sum with no axis) instead of each row",
      softmax_backward__global_sum),
    # 11 attention_backward
    M("attention_backward", "forgets the chain rule through the scale: dS is not multiplied by s",
      attention_backward__scale_dropped),
    M("attention_backward", "multiplies dS by the scale s twice", attention_backward__scale_twice),
    M("attention_backward", "recomputes A with np.triu(k=1) on the (n_q, n_k) scores, ignoring the last-n_q offset",
      attention_backward__top_left_mask),
    M("attention_backward", "uses only the softmax Jacobian's diagonal, A * (1 - A) * dA",
      attention_backward__diag_softmax),
    M("attention_backward", "returns (dQ, dV, dK) instead of (dQ, dK, dV)", attention_backward__order),
    # 11 layer_norm_backward
    M("layer_norm_backward", "treats the row mean and variance as constants: dX = dY * g / std",
      layer_norm_backward__stats_constant),
    M("layer_norm_backward", "swaps dg and db in the returned tuple", layer_norm_backward__dg_db_swapped),
    M("layer_norm_backward", "computes dg from X instead of the normalised x_hat", layer_norm_backward__dg_from_X),
    M("layer_norm_backward", "drops the variance's term in dX, keeping only the mean's", layer_norm_backward__mean_term_only),
    M("layer_norm_backward", "sums dg and db over axis 1 (each row) instead of axis 0 (over the rows)",
      layer_norm_backward__wrong_axis),
    # 12 most_attended
    M("most_attended", "takes the argmax over axis 0 (per key, over the queries) instead of per row",
      most_attended__axis0),
    M("most_attended", "takes the last index of an ascending argsort, which picks the later token on ties",
      most_attended__argsort_last),
    M("most_attended", "returns the column indices instead of the words", most_attended__indices),
    M("most_attended", "returns a numpy array of strings instead of a list", most_attended__numpy_array),
    # 12 attention_entropy
    M("attention_entropy", "computes A * log(A) directly, so a zero weight gives 0 * -inf = NaN instead of 0",
      attention_entropy__nan_zeros),
    M("attention_entropy", "filters A[A > 0], which flattens the matrix, and returns one total instead of one "
      "entropy per row", attention_entropy__no_axis),
    M("attention_entropy", "sums over axis 0 (the queries) instead of each row", attention_entropy__axis0),
    M("attention_entropy", "forgets the minus sign", attention_entropy__sign),
    M("attention_entropy", "uses log2 (bits) instead of the natural log (nats)", attention_entropy__bits),
    # 13 padding_mask
    M("padding_mask", "masks from column n_valid + 1 (off by one), leaving the first padding column visible",
      padding_mask__one_based),
    M("padding_mask", "masks the rows from n_valid on instead of the columns", padding_mask__rows),
    M("padding_mask", "returns shape (n_k, n_q), rows and columns swapped", padding_mask__transposed),
    M("padding_mask", "returns one (n_k,) row instead of the (n_q, n_k) matrix", padding_mask__one_row),
    # 13 cross_attention
    M("cross_attention", "keeps the causal mask from self-attention; cross-attention has no mask",
      cross_attention__causal),
    M("cross_attention", "takes the keys from X (K = X Wk) instead of from Z", cross_attention__keys_from_X),
    M("cross_attention", "scales by sqrt(d_model) (X.shape[1]) instead of sqrt(d_head)", cross_attention__scale_d_model),
    M("cross_attention", "does not scale the scores by 1/sqrt(d_head)", cross_attention__unscaled),
    M("cross_attention", "takes the softmax over axis 0 (the queries) instead of over the keys",
      cross_attention__softmax_axis0),
    # 14 attend_step
    M("attend_step", "exponentiates the scores without subtracting their maximum, overflowing for huge scores",
      attend_step__no_shift),
    M("attend_step", "scales by sqrt(t) (K_cache.shape[0]) instead of sqrt(d)", attend_step__scale_by_t),
    M("attend_step", "leaves out the cache's last row, assuming the new token is not yet in the cache",
      attend_step__drops_own_row),
    M("attend_step", "does not scale the scores by 1/sqrt(d)", attend_step__unscaled),
    M("attend_step", "writes q as a (1, d) row (q[None, :]) and returns a (1, d_v) array instead of (d_v,)",
      attend_step__row_matrix),
    # 14 cache_step
    M("cache_step", "lets q attend over the old cache, before the new k and v are appended",
      cache_step__old_cache),
    M("cache_step", "appends with np.append and no axis, returning flattened 1-D caches", cache_step__flat_append),
    M("cache_step", "returns (K_new, V_new, o) instead of (o, K_new, V_new)", cache_step__tuple_order),
    M("cache_step", "puts the new row first (prepends) instead of appending it as the last row",
      cache_step__prepend),
    M("cache_step", "returns zeros for o when the cache is empty, instead of attending over the one new row",
      cache_step__empty_guard_zeros),
    # 14 sample_next
    M("sample_next", "returns the numpy integer from np.argmax / np.searchsorted instead of a Python int",
      sample_next__numpy_int),
    M("sample_next", "picks the first running total >= u instead of > u", sample_next__greater_equal),
    M("sample_next", "multiplies the logits by the temperature instead of dividing", sample_next__multiply),
    M("sample_next", "does not rescale the running total to end at exactly 1, so a u just below 1 returns vocab",
      sample_next__no_rescale),
    M("sample_next", "divides by the temperature and exponentiates without subtracting the max, overflowing for "
      "tiny temperatures or large logits", sample_next__no_shift),
    # 14 top_k_filter
    M("top_k_filter", "keeps np.argsort(logits)[:k], the k smallest, taking the ascending argsort as descending",
      top_k_filter__ascending),
    M("top_k_filter", "keeps exactly k indices from an argsort, dropping logits tied with the k-th largest",
      top_k_filter__exactly_k),
    M("top_k_filter", "writes -inf into logits itself (in place) instead of a new array", top_k_filter__in_place),
    M("top_k_filter", "takes the threshold np.sort(logits)[-k - 1], keeping k + 1 tokens", top_k_filter__k_plus_one),
    M("top_k_filter", "takes the threshold from np.partition(logits, k)[k], the (k+1)-th smallest, not the k-th "
      "largest", top_k_filter__partition),
    # 14 top_p_filter
    M("top_p_filter", "keeps only the tokens whose running total is below p, dropping the token that reaches p",
      top_p_filter__stop_before),
    M("top_p_filter", "stops when the running total exceeds p strictly, keeping one more token when it reaches p "
      "exactly", top_p_filter__strict_greater),
    M("top_p_filter", "ranks with an ascending argsort reversed ([::-1]), so of two equal probabilities the higher "
      "id comes first", top_p_filter__reversed_ties),
    M("top_p_filter", "exponentiates without subtracting the max, so logits around 1e300 overflow",
      top_p_filter__no_shift),
    M("top_p_filter", "has no p = 1 case, so tokens whose probability rounds to 0 are dropped at p = 1",
      top_p_filter__no_p1_case),
    # 14 generate
    M("generate", "adds position row i + 1 instead of i (1-based positions)", generate__positions_one_based),
    M("generate", "computes the logits from o alone instead of (x + o) @ W_out", generate__logits_from_o),
    M("generate", "ignores the cache_step it is given and computes the attention itself", generate__own_attention),
    M("generate", "returns only the new tokens instead of the prompt followed by them", generate__new_tokens_only),
    M("generate", "starts the caches empty again for every token, so each token attends only to itself",
      generate__cache_reset),
    # 14 kv_cache_bytes
    M("kv_cache_bytes", "counts only the keys (no factor 2 for the values)", kv_cache_bytes__keys_only),
    M("kv_cache_bytes", "counts numbers, not bytes: forgets bytes_per_value", kv_cache_bytes__values_not_bytes),
    M("kv_cache_bytes", "ignores the batch size", kv_cache_bytes__batch_ignored),
    M("kv_cache_bytes", "starts the product with 2.0, returning a float instead of an int", kv_cache_bytes__float),
    # 14 max_cached_tokens
    M("max_cached_tokens", "divides with / and truncates with int(), which is inexact for huge memories",
      max_cached_tokens__float_division),
    M("max_cached_tokens", "rounds the division up (ceil) instead of down", max_cached_tokens__ceil),
    M("max_cached_tokens", "leaves out the factor 2 for keys and values in the bytes per token",
      max_cached_tokens__no_two),
    M("max_cached_tokens", "takes (memory - 1) // per_token, so an exact fit loses its last token",
      max_cached_tokens__strictly_less),
    M("max_cached_tokens", "divides in np.int64, which wraps for memories beyond 2**63", max_cached_tokens__numpy_floor),
    # 15 previous_token_score
    M("previous_token_score", "reads the diagonal above (np.diag(A, 1), A[t, t+1]) instead of below (k=-1)",
      previous_token_score__superdiagonal),
    M("previous_token_score", "divides the sum by T instead of by the T - 1 rows that have a previous position",
      previous_token_score__over_T),
    M("previous_token_score", "has no T = 1 case: the mean of an empty list gives NaN instead of 0.0",
      previous_token_score__no_guard),
    M("previous_token_score", "the loop range(1, T - 1) leaves out the last row", previous_token_score__loop_bounds),
    # 15 prefix_matching_score
    M("prefix_matching_score", "adds A[t, j], the weight on the earlier copy itself, instead of A[t, j + 1]",
      prefix_matching_score__the_copy),
    M("prefix_matching_score", "uses only the most recent earlier copy instead of summing over all of them",
      prefix_matching_score__latest_copy),
    M("prefix_matching_score", "divides by T (every position) instead of by the positions that have an earlier copy",
      prefix_matching_score__over_T),
    M("prefix_matching_score", "averages over every (t, j) pair instead of summing per position and averaging the "
      "positions", prefix_matching_score__per_pair),
    M("prefix_matching_score", "has no case for no repeats: the mean of an empty list gives NaN instead of 0.0",
      prefix_matching_score__no_guard),
    # 15 ablate_head
    M("ablate_head", "zeroes the rows in Wo itself (in place) instead of in a copy", ablate_head__in_place),
    M("ablate_head", "zeroes the head's columns instead of its rows", ablate_head__columns),
    M("ablate_head", "counts heads from 1, zeroing the block of head - 1", ablate_head__one_based),
    M("ablate_head", "computes d_head from Wo.shape[1] (d_model) instead of Wo.shape[0]", ablate_head__d_model),
    M("ablate_head", "zeroes the strided rows head::n_heads instead of the contiguous block", ablate_head__strided),
    # 16 rope
    M("rope", "pairs column i with column i + d/2 (rotate-half) instead of adjacent columns 2i and 2i+1",
      rope__rotate_half),
    M("rope", "rotates clockwise: the signs of the sine terms are swapped", rope__clockwise),
    M("rope", "uses the row index (np.arange(n)) instead of the given positions", rope__row_index),
    M("rope", "uses theta ** (-i/d) instead of theta ** (-2i/d) for pair i", rope__pair_not_doubled),
    M("rope", "writes the rotated pairs back into X (in place) instead of a new array", rope__in_place),
    # 16 rope_attention
    M("rope_attention", "rotates V as well as Q and K", rope_attention__values_rotated),
    M("rope_attention", "rotates the queries only, leaving K unrotated", rope_attention__queries_only),
    M("rope_attention", "does not pass theta on to rope, so the default 10000 is always used",
      rope_attention__theta_not_passed),
    M("rope_attention", "rotates by np.arange(n) instead of the given positions", rope_attention__arange_positions),
    M("rope_attention", "leaves out the causal mask", rope_attention__no_mask),
    # 17 grouped_query_attention
    M("grouped_query_attention", "expands the groups with np.tile instead of np.repeat, so head h reads group "
      "h % n_kv_heads", grouped_query_attention__tile),
    M("grouped_query_attention", "computes the group as h // n_kv_heads (the group count) instead of "
      "h // (n_heads // n_kv_heads)", grouped_query_attention__divide_by_groups),
    M("grouped_query_attention", "takes the values from group h % n_kv_heads while the keys come from "
      "h // (n_heads // n_kv_heads)", grouped_query_attention__values_per_head),
    M("grouped_query_attention", "scales by sqrt(d_model) instead of sqrt(d_head)",
      grouped_query_attention__scale_d_model),
    M("grouped_query_attention", "does not pass causal to attend, so causal=False still masks",
      grouped_query_attention__causal_not_passed),
    # 17 grouped_cache_step
    M("grouped_cache_step", "expands the groups with np.tile instead of np.repeat, so head h reads group "
      "h % n_kv_heads", grouped_cache_step__tile),
    M("grouped_cache_step", "stores the cache per query head (repeats k and v to n_heads rows) instead of per group",
      grouped_cache_step__cache_per_head),
    M("grouped_cache_step", "lets the queries attend over the old cache, before the new k and v are appended",
      grouped_cache_step__old_cache),
    M("grouped_cache_step", "exponentiates the scores without subtracting their maximum, overflowing for large scores",
      grouped_cache_step__no_shift),
    M("grouped_cache_step", "scales by sqrt(t + 1) (the cache length) instead of sqrt(d_head)",
      grouped_cache_step__scale_by_t),
    # 18 sliding_window_mask
    M("sliding_window_mask", "allows j >= i - window, window + 1 positions instead of window",
      sliding_window_mask__one_too_many),
    M("sliding_window_mask", "allows j > i - window + 1 (window - 1 used), one position too few",
      sliding_window_mask__one_too_few),
    M("sliding_window_mask", "uses |i - j| < window, dropping the causal half (the future is visible)",
      sliding_window_mask__symmetric),
    M("sliding_window_mask", "returns all zeros when window >= n, forgetting the causal mask",
      sliding_window_mask__guard_zeros),
    M("sliding_window_mask", "cuts the lower edge with np.tril(k=window) instead of k=-window, so every "
      "position on and below the diagonal is hidden too", sliding_window_mask__tril_k),
    # 18 rolling_cache_step
    M("rolling_cache_step", "keeps the last window rows and ignores n_sinks", rolling_cache_step__sinks_ignored),
    M("rolling_cache_step", "keeps n_sinks sinks plus the last window rows (window + n_sinks in all)",
      rolling_cache_step__sinks_extra),
    M("rolling_cache_step", "lets q attend over all t + 1 rows before cutting the cache back to the window",
      rolling_cache_step__attend_before_cut),
    M("rolling_cache_step", "cuts at window - 1 rows (confusing window with window - 1)",
      rolling_cache_step__window_minus_one),
    M("rolling_cache_step", "keeps the first window rows (K[:window]), evicting the newest instead of the oldest",
      rolling_cache_step__drops_newest),
] + [M("capstone", what, ops) for what, ops in CAPSTONE_MISTAKES]


ACCEPTABLE = [
    M("project", "einsum 'i,ij->j'", project_ok_einsum),
    M("compose", "a sum of outer products of W1's columns and W2's rows", compose_ok_loop),
    M("project_rows", "einsum 'nd,de->ne'", project_rows_ok_einsum),
    M("matmul_cost", "math.prod of Python ints", matmul_cost_ok_prod),
    M("values", "np.vstack of (1, d) rows, then einsum", values_ok_einsum),
    M("one_hot", "a broadcast comparison of ids with arange, cast to float", one_hot_ok_compare),
    M("uniform_causal_weights", "np.where on np.indices", uniform_causal_weights_ok_where),
    M("causal_average", "a running total in a loop", causal_average_ok_loop),
    M("similarity", "einsum 'id,jd->ij'", similarity_ok_einsum),
    M("learned_scores", "the bilinear form X (Wq Wk^T) X^T", learned_scores_ok_bilinear),
    M("causal_mask", "np.where on a broadcast comparison", causal_mask_ok_where),
    M("softmax", "exp(S - logsumexp(S))", softmax_ok_logsumexp),
    M("score_scale", "float(d) ** -0.5", score_scale_ok_power),
    M("attention_weights", "np.where with an allowed-keys matrix, einsum scores", attention_weights_ok_where),
    M("attention", "the weights, then einsum", attention_ok_einsum),
    M("self_attention", "np.dot projections through the attention above", self_attention_ok_keyword),
    M("future_leak", "a full (n, n) matrix of who moves whom", future_leak_ok_matrix),
    M("tiled_attention", "queries pre-scaled; stops at the first tile wholly in the future", tiled_attention_ok_early_stop),
    M("embed", "np.take on both tables", embed_ok_take),
    M("sinusoidal_positions", "np.stack of sin and cos on a last axis, reshaped", sinusoidal_positions_ok_stack),
    M("split_heads", "np.stack of np.hsplit", split_heads_ok_hsplit),
    M("multi_head_attention", "every head at once with einsum", multi_head_attention_ok_einsum),
    M("layer_norm", "a row loop with math.sqrt", layer_norm_ok_loop),
    M("gelu", "the tanh written with its argument halved twice", gelu_ok_sigmoid),
    M("transformer_block", "the same block from the alternative pieces", transformer_block_ok_steps),
    M("next_token_logits", "einsum on the last row", next_token_logits_ok_einsum),
    M("cross_entropy", "log-sum-exp with take_along_axis", cross_entropy_ok_logsumexp),
    M("softmax_backward", "the full Jacobian diag(A) - A A^T applied with einsum", softmax_backward_ok_jacobian),
    M("attention_backward", "einsum for every product", attention_backward_ok_einsum),
    M("layer_norm_backward", "the chain rule through the variance, then the mean", layer_norm_backward_ok_chain),
    M("most_attended", "a strict > loop keeping the first maximum", most_attended_ok_loop),
    M("attention_entropy", "a Python sum over the positive weights of each row", attention_entropy_ok_rows),
    M("padding_mask", "np.tile of one row", padding_mask_ok_tile),
    M("cross_attention", "einsum projections through the attention above", cross_attention_ok_einsum),
    M("attend_step", "weights as exp(s - logsumexp(s))", attend_step_ok_logsumexp),
    M("cache_step", "np.concatenate with np.newaxis", cache_step_ok_concatenate),
    M("sample_next", "a loop over the rescaled running total", sample_next_ok_loop),
    M("top_k_filter", "the threshold from np.partition at vocab - k", top_k_filter_ok_partition),
    M("top_p_filter", "a loop over the tokens sorted by (-p, id)", top_p_filter_ok_loop),
    M("generate", "a queue of tokens not yet fed", generate_ok_feed_queue),
    M("kv_cache_bytes", "math.prod of Python ints", kv_cache_bytes_ok_prod),
    M("max_cached_tokens", "divmod of Python ints", max_cached_tokens_ok_divmod),
    M("previous_token_score", "np.diagonal(offset=-1), its sum over its size", previous_token_score_ok_diagonal),
    M("prefix_matching_score", "a boolean matrix of earlier copies against A shifted one column",
      prefix_matching_score_ok_matrix),
    M("ablate_head", "np.where on each row's head number", ablate_head_ok_where),
    M("rope", "complex multiplication by exp(i * angle)", rope_ok_complex),
    M("rope_attention", "complex rope, einsum scores, np.tri mask", rope_attention_ok_einsum),
    M("grouped_query_attention", "Wk and Wv's groups repeated into per-head matrices, then multi-head attention",
      grouped_query_attention_ok_repeat),
    M("grouped_cache_step", "queries reshaped into (group, head in group) and einsum", grouped_cache_step_ok_einsum),
    M("sliding_window_mask", "two np.tri bands", sliding_window_mask_ok_bands),
    M("rolling_cache_step", "an index array of the kept rows", rolling_cache_step_ok_index),
    M("capstone", "every op from the right answers above", RIGHT_OPS),
]
