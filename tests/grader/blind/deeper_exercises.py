"""A blind set of learner mistakes for the 17 deeper exercises of the course.

The exercises: compose, matmul_cost, one_hot, learned_scores, score_scale, future_leak, tiled_attention,
sinusoidal_positions, split_heads, cross_entropy, attention_backward, layer_norm_backward, attention_entropy,
padding_mask, sample_next, generate and max_cached_tokens.

Each entry in MISTAKES is a wrong implementation of one of them, with the exercise's exact signature, written as a
learner might write it. `what` says in one line what the learner got wrong. ACCEPTABLE holds right answers written
differently: the checks must pass them. REFERENCES holds a right answer for each of the 17 exercises.

The set was written from the exercise specs (name, signature and behaviour), without reading any check, diagnosis
or mutant. Every mistake differs from a right answer in one place and is either wrong on some reasonable input or
breaks a rule of the exercise: it edits an input in place, holds the full (n_q, n_k) score matrix in
tiled_attention, or does not let the given cache_step do the attention in generate. Numpy only: nothing here
imports attnlib.
"""
import math

import numpy as np

from .building_blocks import Mistake

# ----------------------------------------------------------------------------
# Correct building blocks a learner would have written in earlier exercises.


def _softmax(S, axis=-1):
    E = np.exp(S - S.max(axis=axis, keepdims=True))
    return E / E.sum(axis=axis, keepdims=True)


def _future(n_q, n_k):
    """Additive mask (n_q, n_k) for queries at the last n_q positions."""
    return np.triu(np.full((n_q, n_k), -np.inf), k=n_k - n_q + 1)


def _changed_rows(attn, X, Xp, base):
    """Which output rows change (by more than 1e-9 relative) when attn sees Xp instead of X."""
    diff = np.abs(np.asarray(attn(Xp)) - base).max(axis=1)  # (n,)
    return diff > 1e-9 * max(1.0, float(np.abs(base).max()))


def _kv_token_bytes(n_layers, n_heads, d_head, batch, bytes_per_value):
    return 2 * n_layers * n_heads * d_head * batch * bytes_per_value


# ============================================================================
# References: one right answer per exercise, written from the spec.

def reference_compose(W1, W2):
    return W1 @ W2  # (d_in, d_out)


def reference_matmul_cost(n, d_in, d_out):
    return int(n) * int(d_in) * int(d_out)


def reference_one_hot(ids, vocab_size):
    n = len(ids)
    out = np.zeros((n, vocab_size))
    out[np.arange(n), ids] = 1.0
    return out  # (n, vocab_size)


def reference_learned_scores(X, Wq, Wk):
    return (X @ Wq) @ (X @ Wk).T  # (n, n)


def reference_score_scale(d):
    return 1.0 / math.sqrt(d)


def reference_future_leak(attn, X):
    base = np.asarray(attn(X))  # (n, d_v)
    rng = np.random.default_rng(0)
    n = X.shape[0]
    worst = 0
    for j in range(n):
        Xp = X.copy()
        Xp[j] += rng.standard_normal(X.shape[1])
        changed = _changed_rows(attn, X, Xp, base)
        for i in range(j):
            if changed[i]:
                worst = max(worst, j - i)
    return worst


def reference_tiled_attention(Q, K, V, causal=True, block=64):
    n_q, n_k = Q.shape[0], K.shape[0]
    offset = n_k - n_q  # query i sits at position offset + i
    s = 1.0 / math.sqrt(Q.shape[1])
    O = np.empty((n_q, V.shape[1]), dtype=np.result_type(Q, K, V))
    for q0 in range(0, n_q, block):
        q1 = min(q0 + block, n_q)
        Qb = Q[q0:q1] * s  # (bq, d)
        m = np.full(q1 - q0, -np.inf)  # running max
        l = np.zeros(q1 - q0)  # running sum of exp(s - m)
        acc = np.zeros((q1 - q0, V.shape[1]))  # running sum of exp(s - m) v
        k_end = min(n_k, offset + q1) if causal else n_k
        for k0 in range(0, k_end, block):
            k1 = min(k0 + block, k_end)
            S = Qb @ K[k0:k1].T  # (bq, bk)
            if causal:
                rows = offset + np.arange(q0, q1)[:, None]
                S = np.where(np.arange(k0, k1)[None, :] > rows, -np.inf, S)
            m_new = np.maximum(m, S.max(axis=1))
            P = np.exp(S - m_new[:, None])
            r = np.exp(m - m_new)
            l = l * r + P.sum(axis=1)
            acc = acc * r[:, None] + P @ V[k0:k1]
            m = m_new
        O[q0:q1] = acc / l[:, None]
    return O


def reference_sinusoidal_positions(n, d):
    t = np.arange(n)[:, None]  # (n, 1)
    i = np.arange(d // 2)[None, :]  # (1, d/2)
    angle = t / 10000 ** (2 * i / d)  # (n, d/2)
    P = np.empty((n, d))
    P[:, 0::2] = np.sin(angle)
    P[:, 1::2] = np.cos(angle)
    return P


def reference_split_heads(M, n_heads):
    n, d_model = M.shape
    return M.reshape(n, n_heads, d_model // n_heads).transpose(1, 0, 2)  # (n_heads, n, d_head)


def reference_cross_entropy(logits, targets):
    n = logits.shape[0]
    Z = logits - logits.max(axis=1, keepdims=True)
    logp = Z - np.log(np.exp(Z).sum(axis=1, keepdims=True))  # (n, vocab)
    rows = np.arange(n)
    loss = -logp[rows, targets].mean()
    dlogits = np.exp(logp)
    dlogits[rows, targets] -= 1.0
    return float(loss), dlogits / n


def reference_attention_backward(Q, K, V, dO, causal=True, scale=True):
    s = 1.0 / math.sqrt(Q.shape[1]) if scale else 1.0
    S = Q @ K.T * s  # (n_q, n_k)
    if causal:
        S = S + _future(Q.shape[0], K.shape[0])
    A = _softmax(S)
    dV = A.T @ dO  # (n_k, d_v)
    dA = dO @ V.T  # (n_q, n_k)
    dS = A * (dA - (dA * A).sum(axis=1, keepdims=True))
    dQ = dS @ K * s  # (n_q, d)
    dK = dS.T @ Q * s  # (n_k, d)
    return dQ, dK, dV


def reference_layer_norm_backward(X, g, dY, eps=1e-5):
    mu = X.mean(axis=1, keepdims=True)
    inv = 1.0 / np.sqrt(X.var(axis=1, keepdims=True) + eps)  # (n, 1)
    xhat = (X - mu) * inv
    dg = (dY * xhat).sum(axis=0)
    db = dY.sum(axis=0)
    dxhat = dY * g
    dX = (dxhat - dxhat.mean(axis=1, keepdims=True) - xhat * (dxhat * xhat).mean(axis=1, keepdims=True)) * inv
    return dX, dg, db


def reference_attention_entropy(A):
    logA = np.log(np.where(A > 0, A, 1.0))  # 0 log 0 = 0
    return -(A * logA).sum(axis=1)  # (n_q,)


def reference_padding_mask(n_q, n_valid, n_k):
    M = np.zeros((n_q, n_k))
    M[:, n_valid:] = -np.inf
    return M


def reference_sample_next(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    p = _softmax(logits / temperature)  # (vocab,)
    c = np.cumsum(p)
    return int(min(np.searchsorted(c, u, side="right"), len(c) - 1))  # first i with c[i] > u


def reference_generate(p, prompt, n_new, cache_step):
    K = np.zeros((0, p["Wk"].shape[1]))
    V = np.zeros((0, p["Wv"].shape[1]))
    seq = [int(t) for t in prompt]
    T = len(seq)
    for i in range(T + n_new - 1):
        x = p["tok_emb"][seq[i]] + p["pos_emb"][i]  # (d,)
        o, K, V = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K, V)
        if i >= T - 1:
            seq.append(int(np.argmax((x + o) @ p["W_out"])))
    return np.array(seq, dtype=int)


def reference_max_cached_tokens(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    return int(memory_bytes) // _kv_token_bytes(n_layers, n_heads, d_head, batch, bytes_per_value)


REFERENCES = {
    "compose": reference_compose,
    "matmul_cost": reference_matmul_cost,
    "one_hot": reference_one_hot,
    "learned_scores": reference_learned_scores,
    "score_scale": reference_score_scale,
    "future_leak": reference_future_leak,
    "tiled_attention": reference_tiled_attention,
    "sinusoidal_positions": reference_sinusoidal_positions,
    "split_heads": reference_split_heads,
    "cross_entropy": reference_cross_entropy,
    "attention_backward": reference_attention_backward,
    "layer_norm_backward": reference_layer_norm_backward,
    "attention_entropy": reference_attention_entropy,
    "padding_mask": reference_padding_mask,
    "sample_next": reference_sample_next,
    "generate": reference_generate,
    "max_cached_tokens": reference_max_cached_tokens,
}


# ============================================================================
# compose(W1, W2)

def compose_reversed(W1, W2):
    return W2 @ W1


def compose_transposed(W1, W2):
    return W2.T @ W1.T




def compose_pytorch_weight(W1, W2):
    return W1 @ W2.T


def compose_in_place(W1, W2):
    W = W1
    W @= W2
    return W


def compose_loop_short(W1, W2):
    W = np.zeros((W1.shape[0], W2.shape[1]))
    for i in range(W1.shape[0]):
        for j in range(W2.shape[1]):
            for m in range(W1.shape[1] - 1):
                W[i, j] += W1[i, m] * W2[m, j]
    return W


def compose_float32(W1, W2):
    return W1.astype(np.float32) @ W2.astype(np.float32)


# ============================================================================
# matmul_cost(n, d_in, d_out)

def matmul_cost_counts_additions(n, d_in, d_out):
    return n * (d_in - 1) * d_out


def matmul_cost_float(n, d_in, d_out):
    return 1.0 * n * d_in * d_out


def matmul_cost_int32(n, d_in, d_out):
    return np.prod([n, d_in, d_out], dtype=np.int32)


def matmul_cost_float64_product(n, d_in, d_out):
    return int(np.prod(np.array([n, d_in, d_out], dtype=float)))


def matmul_cost_output_entries(n, d_in, d_out):
    return n * d_out


def matmul_cost_one_row(n, d_in, d_out):
    return d_in * d_out


def matmul_cost_multiply_add(n, d_in, d_out):
    return 2 * n * d_in * d_out


# ============================================================================
# one_hot(ids, vocab_size)

def one_hot_whole_columns(ids, vocab_size):
    out = np.zeros((len(ids), vocab_size))
    out[:, ids] = 1.0
    return out


def one_hot_transposed(ids, vocab_size):
    out = np.zeros((vocab_size, len(ids)))
    out[ids, np.arange(len(ids))] = 1.0
    return out


def one_hot_one_based(ids, vocab_size):
    out = np.zeros((len(ids), vocab_size))
    out[np.arange(len(ids)), ids - 1] = 1.0
    return out




def one_hot_sorts_in_place(ids, vocab_size):
    ids.sort()
    out = np.zeros((len(ids), vocab_size))
    out[np.arange(len(ids)), ids] = 1.0
    return out


def one_hot_unique_ids(ids, vocab_size):
    ids = np.unique(ids)
    out = np.zeros((len(ids), vocab_size))
    out[np.arange(len(ids)), ids] = 1.0
    return out


def one_hot_width_from_ids(ids, vocab_size):
    return np.eye(ids.max() + 1)[ids]


# ============================================================================
# learned_scores(X, Wq, Wk)

def learned_scores_scaled(X, Wq, Wk):
    return (X @ Wq) @ (X @ Wk).T / np.sqrt(Wq.shape[1])


def learned_scores_keys_on_rows(X, Wq, Wk):
    return (X @ Wk) @ (X @ Wq).T


def learned_scores_queries_only(X, Wq, Wk):
    return (X @ Wq) @ (X @ Wq).T


def learned_scores_masked(X, Wq, Wk):
    n = X.shape[0]
    return (X @ Wq) @ (X @ Wk).T + _future(n, n)


def learned_scores_softmaxed(X, Wq, Wk):
    return _softmax((X @ Wq) @ (X @ Wk).T)


def learned_scores_rowwise(X, Wq, Wk):
    return ((X @ Wq) * (X @ Wk)).sum(axis=1)


def learned_scores_pytorch_weight(X, Wq, Wk):
    return (X @ Wq.T) @ (X @ Wk.T).T


# ============================================================================
# score_scale(d)

def score_scale_one_over_d(d):
    return 1.0 / d


def score_scale_sqrt_d(d):
    return math.sqrt(d)


def score_scale_precedence(d):
    return d ** -1 / 2


def score_scale_float32(d):
    return np.float32(1.0) / np.sqrt(np.float32(d))


def score_scale_measured(d):
    rng = np.random.default_rng(0)
    q = rng.standard_normal((2000, d))
    k = rng.standard_normal((2000, d))
    return 1.0 / np.sqrt(((q * k).sum(axis=1)).var())


def score_scale_floor_division(d):
    return 1 // math.sqrt(d)




# ============================================================================
# future_leak(attn, X)

def future_leak_one_short(attn, X):
    base = np.asarray(attn(X))
    rng = np.random.default_rng(0)
    n = X.shape[0]
    worst = 0
    for j in range(n):
        Xp = X.copy()
        Xp[j] += rng.standard_normal(X.shape[1])
        changed = _changed_rows(attn, X, Xp, base)
        for i in range(j):
            if changed[i]:
                worst = max(worst, j - i - 1)
    return worst


def future_leak_one_too_many(attn, X):
    base = np.asarray(attn(X))
    rng = np.random.default_rng(0)
    n = X.shape[0]
    worst = 0
    for j in range(n):
        Xp = X.copy()
        Xp[j] += rng.standard_normal(X.shape[1])
        changed = _changed_rows(attn, X, Xp, base)
        for i in range(j):
            if changed[i]:
                worst = max(worst, j - i + 1)
    return worst


def future_leak_counts_pairs(attn, X):
    base = np.asarray(attn(X))
    rng = np.random.default_rng(0)
    n = X.shape[0]
    worst = 0
    for j in range(n):
        Xp = X.copy()
        Xp[j] += rng.standard_normal(X.shape[1])
        changed = _changed_rows(attn, X, Xp, base)
        for i in range(j):
            if changed[i]:
                worst += 1
    return worst


def future_leak_first_found(attn, X):
    base = np.asarray(attn(X))
    rng = np.random.default_rng(0)
    n = X.shape[0]
    for j in range(n):
        Xp = X.copy()
        Xp[j] += rng.standard_normal(X.shape[1])
        changed = _changed_rows(attn, X, Xp, base)
        for i in range(j):
            if changed[i]:
                return j - i
    return 0


def future_leak_in_place(attn, X):
    base = np.asarray(attn(X))
    rng = np.random.default_rng(0)
    n = X.shape[0]
    worst = 0
    for j in range(n):
        Xp = X
        Xp[j] += rng.standard_normal(X.shape[1])
        changed = _changed_rows(attn, X, Xp, base)
        for i in range(j):
            if changed[i]:
                worst = max(worst, j - i)
    return worst


def future_leak_next_row_only(attn, X):
    base = np.asarray(attn(X))
    rng = np.random.default_rng(0)
    n = X.shape[0]
    worst = 0
    for j in range(n):
        Xp = X.copy()
        Xp[j] += rng.standard_normal(X.shape[1])
        changed = _changed_rows(attn, X, Xp, base)
        for i in range(max(j - 1, 0), j):
            if changed[i]:
                worst = max(worst, j - i)
    return worst


def future_leak_looks_back(attn, X):
    base = np.asarray(attn(X))
    rng = np.random.default_rng(0)
    n = X.shape[0]
    worst = 0
    for j in range(n):
        Xp = X.copy()
        Xp[j] += rng.standard_normal(X.shape[1])
        changed = _changed_rows(attn, X, Xp, base)
        for i in range(j + 1, n):
            if changed[i]:
                worst = max(worst, i - j)
    return worst




def future_leak_tiny_nudge(attn, X):
    base = np.asarray(attn(X))
    rng = np.random.default_rng(0)
    n = X.shape[0]
    worst = 0
    for j in range(n):
        Xp = X.copy()
        Xp[j] += 1e-12 * rng.standard_normal(X.shape[1])
        changed = _changed_rows(attn, X, Xp, base)
        for i in range(j):
            if changed[i]:
                worst = max(worst, j - i)
    return worst


# ============================================================================
# tiled_attention(Q, K, V, causal=True, block=64)

def tiled_attention_full_scores(Q, K, V, causal=True, block=64):
    n_q, n_k = Q.shape[0], K.shape[0]
    offset = n_k - n_q
    S_all = Q @ K.T / math.sqrt(Q.shape[1])  # (n_q, n_k), sliced into tiles below
    O = np.empty((n_q, V.shape[1]))
    for q0 in range(0, n_q, block):
        q1 = min(q0 + block, n_q)
        m = np.full(q1 - q0, -np.inf)
        l = np.zeros(q1 - q0)
        acc = np.zeros((q1 - q0, V.shape[1]))
        k_end = min(n_k, offset + q1) if causal else n_k
        for k0 in range(0, k_end, block):
            k1 = min(k0 + block, k_end)
            S = S_all[q0:q1, k0:k1]
            if causal:
                rows = offset + np.arange(q0, q1)[:, None]
                S = np.where(np.arange(k0, k1)[None, :] > rows, -np.inf, S)
            m_new = np.maximum(m, S.max(axis=1))
            P = np.exp(S - m_new[:, None])
            r = np.exp(m - m_new)
            l = l * r + P.sum(axis=1)
            acc = acc * r[:, None] + P @ V[k0:k1]
            m = m_new
        O[q0:q1] = acc / l[:, None]
    return O


def tiled_attention_no_rescale(Q, K, V, causal=True, block=64):
    n_q, n_k = Q.shape[0], K.shape[0]
    offset = n_k - n_q
    s = 1.0 / math.sqrt(Q.shape[1])
    O = np.empty((n_q, V.shape[1]))
    for q0 in range(0, n_q, block):
        q1 = min(q0 + block, n_q)
        Qb = Q[q0:q1] * s
        m = np.full(q1 - q0, -np.inf)
        l = np.zeros(q1 - q0)
        acc = np.zeros((q1 - q0, V.shape[1]))
        k_end = min(n_k, offset + q1) if causal else n_k
        for k0 in range(0, k_end, block):
            k1 = min(k0 + block, k_end)
            S = Qb @ K[k0:k1].T
            if causal:
                rows = offset + np.arange(q0, q1)[:, None]
                S = np.where(np.arange(k0, k1)[None, :] > rows, -np.inf, S)
            m_new = np.maximum(m, S.max(axis=1))
            P = np.exp(S - m_new[:, None])
            l = l + P.sum(axis=1)
            acc = acc + P @ V[k0:k1]
            m = m_new
        O[q0:q1] = acc / l[:, None]
    return O


def tiled_attention_rescales_sum_only(Q, K, V, causal=True, block=64):
    n_q, n_k = Q.shape[0], K.shape[0]
    offset = n_k - n_q
    s = 1.0 / math.sqrt(Q.shape[1])
    O = np.empty((n_q, V.shape[1]))
    for q0 in range(0, n_q, block):
        q1 = min(q0 + block, n_q)
        Qb = Q[q0:q1] * s
        m = np.full(q1 - q0, -np.inf)
        l = np.zeros(q1 - q0)
        acc = np.zeros((q1 - q0, V.shape[1]))
        k_end = min(n_k, offset + q1) if causal else n_k
        for k0 in range(0, k_end, block):
            k1 = min(k0 + block, k_end)
            S = Qb @ K[k0:k1].T
            if causal:
                rows = offset + np.arange(q0, q1)[:, None]
                S = np.where(np.arange(k0, k1)[None, :] > rows, -np.inf, S)
            m_new = np.maximum(m, S.max(axis=1))
            P = np.exp(S - m_new[:, None])
            r = np.exp(m - m_new)
            l = l * r + P.sum(axis=1)
            acc = acc + P @ V[k0:k1]
            m = m_new
        O[q0:q1] = acc / l[:, None]
    return O


def tiled_attention_unscaled(Q, K, V, causal=True, block=64):
    n_q, n_k = Q.shape[0], K.shape[0]
    offset = n_k - n_q
    O = np.empty((n_q, V.shape[1]))
    for q0 in range(0, n_q, block):
        q1 = min(q0 + block, n_q)
        Qb = Q[q0:q1]
        m = np.full(q1 - q0, -np.inf)
        l = np.zeros(q1 - q0)
        acc = np.zeros((q1 - q0, V.shape[1]))
        k_end = min(n_k, offset + q1) if causal else n_k
        for k0 in range(0, k_end, block):
            k1 = min(k0 + block, k_end)
            S = Qb @ K[k0:k1].T
            if causal:
                rows = offset + np.arange(q0, q1)[:, None]
                S = np.where(np.arange(k0, k1)[None, :] > rows, -np.inf, S)
            m_new = np.maximum(m, S.max(axis=1))
            P = np.exp(S - m_new[:, None])
            r = np.exp(m - m_new)
            l = l * r + P.sum(axis=1)
            acc = acc * r[:, None] + P @ V[k0:k1]
            m = m_new
        O[q0:q1] = acc / l[:, None]
    return O


def tiled_attention_no_running_max(Q, K, V, causal=True, block=64):
    n_q, n_k = Q.shape[0], K.shape[0]
    offset = n_k - n_q
    s = 1.0 / math.sqrt(Q.shape[1])
    O = np.empty((n_q, V.shape[1]))
    for q0 in range(0, n_q, block):
        q1 = min(q0 + block, n_q)
        Qb = Q[q0:q1] * s
        l = np.zeros(q1 - q0)
        acc = np.zeros((q1 - q0, V.shape[1]))
        k_end = min(n_k, offset + q1) if causal else n_k
        for k0 in range(0, k_end, block):
            k1 = min(k0 + block, k_end)
            S = Qb @ K[k0:k1].T
            if causal:
                rows = offset + np.arange(q0, q1)[:, None]
                S = np.where(np.arange(k0, k1)[None, :] > rows, -np.inf, S)
            P = np.exp(S)
            l = l + P.sum(axis=1)
            acc = acc + P @ V[k0:k1]
        O[q0:q1] = acc / l[:, None]
    return O


def tiled_attention_mask_top_left(Q, K, V, causal=True, block=64):
    n_q, n_k = Q.shape[0], K.shape[0]
    offset = 0
    s = 1.0 / math.sqrt(Q.shape[1])
    O = np.empty((n_q, V.shape[1]))
    for q0 in range(0, n_q, block):
        q1 = min(q0 + block, n_q)
        Qb = Q[q0:q1] * s
        m = np.full(q1 - q0, -np.inf)
        l = np.zeros(q1 - q0)
        acc = np.zeros((q1 - q0, V.shape[1]))
        k_end = min(n_k, offset + q1) if causal else n_k
        for k0 in range(0, k_end, block):
            k1 = min(k0 + block, k_end)
            S = Qb @ K[k0:k1].T
            if causal:
                rows = offset + np.arange(q0, q1)[:, None]
                S = np.where(np.arange(k0, k1)[None, :] > rows, -np.inf, S)
            m_new = np.maximum(m, S.max(axis=1))
            P = np.exp(S - m_new[:, None])
            r = np.exp(m - m_new)
            l = l * r + P.sum(axis=1)
            acc = acc * r[:, None] + P @ V[k0:k1]
            m = m_new
        O[q0:q1] = acc / l[:, None]
    return O


def tiled_attention_never_masks(Q, K, V, causal=True, block=64):
    n_q, n_k = Q.shape[0], K.shape[0]
    s = 1.0 / math.sqrt(Q.shape[1])
    O = np.empty((n_q, V.shape[1]))
    for q0 in range(0, n_q, block):
        q1 = min(q0 + block, n_q)
        Qb = Q[q0:q1] * s
        m = np.full(q1 - q0, -np.inf)
        l = np.zeros(q1 - q0)
        acc = np.zeros((q1 - q0, V.shape[1]))
        for k0 in range(0, n_k, block):
            k1 = min(k0 + block, n_k)
            S = Qb @ K[k0:k1].T
            m_new = np.maximum(m, S.max(axis=1))
            P = np.exp(S - m_new[:, None])
            r = np.exp(m - m_new)
            l = l * r + P.sum(axis=1)
            acc = acc * r[:, None] + P @ V[k0:k1]
            m = m_new
        O[q0:q1] = acc / l[:, None]
    return O


def tiled_attention_drops_last_key_block(Q, K, V, causal=True, block=64):
    n_q, n_k = Q.shape[0], K.shape[0]
    offset = n_k - n_q
    s = 1.0 / math.sqrt(Q.shape[1])
    O = np.empty((n_q, V.shape[1]))
    for q0 in range(0, n_q, block):
        q1 = min(q0 + block, n_q)
        Qb = Q[q0:q1] * s
        m = np.full(q1 - q0, -np.inf)
        l = np.zeros(q1 - q0)
        acc = np.zeros((q1 - q0, V.shape[1]))
        k_end = min(n_k, offset + q1) if causal else n_k
        for k0 in range(0, k_end - block, block):
            k1 = min(k0 + block, k_end)
            S = Qb @ K[k0:k1].T
            if causal:
                rows = offset + np.arange(q0, q1)[:, None]
                S = np.where(np.arange(k0, k1)[None, :] > rows, -np.inf, S)
            m_new = np.maximum(m, S.max(axis=1))
            P = np.exp(S - m_new[:, None])
            r = np.exp(m - m_new)
            l = l * r + P.sum(axis=1)
            acc = acc * r[:, None] + P @ V[k0:k1]
            m = m_new
        O[q0:q1] = acc / l[:, None]
    return O


def tiled_attention_float32_accumulator(Q, K, V, causal=True, block=64):
    n_q, n_k = Q.shape[0], K.shape[0]
    offset = n_k - n_q
    s = 1.0 / math.sqrt(Q.shape[1])
    O = np.empty((n_q, V.shape[1]))
    for q0 in range(0, n_q, block):
        q1 = min(q0 + block, n_q)
        Qb = Q[q0:q1] * s
        m = np.full(q1 - q0, -np.inf)
        l = np.zeros(q1 - q0)
        acc = np.zeros((q1 - q0, V.shape[1]), dtype=np.float32)
        k_end = min(n_k, offset + q1) if causal else n_k
        for k0 in range(0, k_end, block):
            k1 = min(k0 + block, k_end)
            S = Qb @ K[k0:k1].T
            if causal:
                rows = offset + np.arange(q0, q1)[:, None]
                S = np.where(np.arange(k0, k1)[None, :] > rows, -np.inf, S)
            m_new = np.maximum(m, S.max(axis=1))
            P = np.exp(S - m_new[:, None])
            r = np.exp(m - m_new)
            l = l * r + P.sum(axis=1)
            acc = (acc * r[:, None] + P @ V[k0:k1]).astype(np.float32)
            m = m_new
        O[q0:q1] = acc / l[:, None]
    return O


def tiled_attention_scales_Q_in_place(Q, K, V, causal=True, block=64):
    n_q, n_k = Q.shape[0], K.shape[0]
    offset = n_k - n_q
    Q *= 1.0 / math.sqrt(Q.shape[1])
    O = np.empty((n_q, V.shape[1]))
    for q0 in range(0, n_q, block):
        q1 = min(q0 + block, n_q)
        Qb = Q[q0:q1]
        m = np.full(q1 - q0, -np.inf)
        l = np.zeros(q1 - q0)
        acc = np.zeros((q1 - q0, V.shape[1]))
        k_end = min(n_k, offset + q1) if causal else n_k
        for k0 in range(0, k_end, block):
            k1 = min(k0 + block, k_end)
            S = Qb @ K[k0:k1].T
            if causal:
                rows = offset + np.arange(q0, q1)[:, None]
                S = np.where(np.arange(k0, k1)[None, :] > rows, -np.inf, S)
            m_new = np.maximum(m, S.max(axis=1))
            P = np.exp(S - m_new[:, None])
            r = np.exp(m - m_new)
            l = l * r + P.sum(axis=1)
            acc = acc * r[:, None] + P @ V[k0:k1]
            m = m_new
        O[q0:q1] = acc / l[:, None]
    return O


# ============================================================================
# sinusoidal_positions(n, d)

def _interleave(S, C):
    P = np.empty((S.shape[0], 2 * S.shape[1]))
    P[:, 0::2] = S
    P[:, 1::2] = C
    return P


def sinusoidal_half_exponent(n, d):
    t = np.arange(n)[:, None]
    i = np.arange(d // 2)[None, :]
    angle = t / 10000 ** (i / d)
    return _interleave(np.sin(angle), np.cos(angle))


def sinusoidal_sin_cos_swapped(n, d):
    t = np.arange(n)[:, None]
    i = np.arange(d // 2)[None, :]
    angle = t / 10000 ** (2 * i / d)
    return _interleave(np.cos(angle), np.sin(angle))


def sinusoidal_halves_concatenated(n, d):
    t = np.arange(n)[:, None]
    i = np.arange(d // 2)[None, :]
    angle = t / 10000 ** (2 * i / d)
    return np.concatenate([np.sin(angle), np.cos(angle)], axis=1)


def sinusoidal_positions_from_one(n, d):
    t = np.arange(1, n + 1)[:, None]
    i = np.arange(d // 2)[None, :]
    angle = t / 10000 ** (2 * i / d)
    return _interleave(np.sin(angle), np.cos(angle))


def sinusoidal_multiplies(n, d):
    t = np.arange(n)[:, None]
    i = np.arange(d // 2)[None, :]
    angle = t * 10000 ** (2 * i / d)
    return _interleave(np.sin(angle), np.cos(angle))


def sinusoidal_transposed(n, d):
    t = np.arange(n)[:, None]
    i = np.arange(d // 2)[None, :]
    angle = t / 10000 ** (2 * i / d)
    return _interleave(np.sin(angle), np.cos(angle)).T


def sinusoidal_float32(n, d):
    t = np.arange(n, dtype=np.float32)[:, None]
    i = np.arange(d // 2, dtype=np.float32)[None, :]
    angle = t / np.float32(10000) ** (2 * i / d)
    P = np.empty((n, d), dtype=np.float32)
    P[:, 0::2] = np.sin(angle)
    P[:, 1::2] = np.cos(angle)
    return P


# ============================================================================
# split_heads(M, n_heads)

def split_heads_direct_reshape(M, n_heads):
    n, d_model = M.shape
    return M.reshape(n_heads, n, d_model // n_heads)


def split_heads_interleaved(M, n_heads):
    return np.stack([M[:, h::n_heads] for h in range(n_heads)])


def split_heads_splits_rows(M, n_heads):
    return np.stack(np.split(M, n_heads, axis=0))


def split_heads_no_transpose(M, n_heads):
    n, d_model = M.shape
    return M.reshape(n, n_heads, d_model // n_heads)


def split_heads_width_n_heads(M, n_heads):
    return np.stack([M[:, h * n_heads:(h + 1) * n_heads] for h in range(n_heads)])


def split_heads_sets_shape_in_place(M, n_heads):
    M.shape = (M.shape[0], n_heads, M.shape[1] // n_heads)
    return M.transpose(1, 0, 2)


def split_heads_columns_first(M, n_heads):
    n, d_model = M.shape
    return M.T.reshape(n_heads, d_model // n_heads, n)


# ============================================================================
# cross_entropy(logits, targets)

def cross_entropy_no_divide_by_n(logits, targets):
    n = logits.shape[0]
    Z = logits - logits.max(axis=1, keepdims=True)
    logp = Z - np.log(np.exp(Z).sum(axis=1, keepdims=True))
    rows = np.arange(n)
    loss = -logp[rows, targets].mean()
    dlogits = np.exp(logp)
    dlogits[rows, targets] -= 1.0
    return float(loss), dlogits


def cross_entropy_summed_loss(logits, targets):
    n = logits.shape[0]
    Z = logits - logits.max(axis=1, keepdims=True)
    logp = Z - np.log(np.exp(Z).sum(axis=1, keepdims=True))
    rows = np.arange(n)
    loss = -logp[rows, targets].sum()
    dlogits = np.exp(logp)
    dlogits[rows, targets] -= 1.0
    return float(loss), dlogits / n


def cross_entropy_unstable(logits, targets):
    n = logits.shape[0]
    Z = logits
    logp = Z - np.log(np.exp(Z).sum(axis=1, keepdims=True))
    rows = np.arange(n)
    loss = -logp[rows, targets].mean()
    dlogits = np.exp(logp)
    dlogits[rows, targets] -= 1.0
    return float(loss), dlogits / n


def cross_entropy_log_of_softmax(logits, targets):
    n = logits.shape[0]
    P = _softmax(logits, axis=1)
    rows = np.arange(n)
    loss = -np.log(P[rows, targets]).mean()
    dlogits = P.copy()
    dlogits[rows, targets] -= 1.0
    return float(loss), dlogits / n


def cross_entropy_gradient_sign(logits, targets):
    n = logits.shape[0]
    Z = logits - logits.max(axis=1, keepdims=True)
    logp = Z - np.log(np.exp(Z).sum(axis=1, keepdims=True))
    rows = np.arange(n)
    loss = -logp[rows, targets].mean()
    dlogits = -np.exp(logp)
    dlogits[rows, targets] += 1.0
    return float(loss), dlogits / n


def cross_entropy_in_place(logits, targets):
    n = logits.shape[0]
    logits -= logits.max(axis=1, keepdims=True)
    logp = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
    rows = np.arange(n)
    loss = -logp[rows, targets].mean()
    dlogits = np.exp(logp)
    dlogits[rows, targets] -= 1.0
    return float(loss), dlogits / n


def cross_entropy_swapped_tuple(logits, targets):
    n = logits.shape[0]
    Z = logits - logits.max(axis=1, keepdims=True)
    logp = Z - np.log(np.exp(Z).sum(axis=1, keepdims=True))
    rows = np.arange(n)
    loss = -logp[rows, targets].mean()
    dlogits = np.exp(logp)
    dlogits[rows, targets] -= 1.0
    return dlogits / n, float(loss)




def cross_entropy_log2(logits, targets):
    n = logits.shape[0]
    Z = logits - logits.max(axis=1, keepdims=True)
    logp = Z - np.log(np.exp(Z).sum(axis=1, keepdims=True))
    rows = np.arange(n)
    loss = -logp[rows, targets].mean() / np.log(2)
    dlogits = np.exp(logp)
    dlogits[rows, targets] -= 1.0
    return float(loss), dlogits / n


# ============================================================================
# attention_backward(Q, K, V, dO, causal=True, scale=True)

def attention_backward_no_mask(Q, K, V, dO, causal=True, scale=True):
    s = 1.0 / math.sqrt(Q.shape[1]) if scale else 1.0
    S = Q @ K.T * s
    A = _softmax(S)
    dV = A.T @ dO
    dA = dO @ V.T
    dS = A * (dA - (dA * A).sum(axis=1, keepdims=True))
    return dS @ K * s, dS.T @ Q * s, dV


def attention_backward_forgets_scale_in_grads(Q, K, V, dO, causal=True, scale=True):
    s = 1.0 / math.sqrt(Q.shape[1]) if scale else 1.0
    S = Q @ K.T * s
    if causal:
        S = S + _future(Q.shape[0], K.shape[0])
    A = _softmax(S)
    dV = A.T @ dO
    dA = dO @ V.T
    dS = A * (dA - (dA * A).sum(axis=1, keepdims=True))
    return dS @ K, dS.T @ Q, dV


def attention_backward_dK_first(Q, K, V, dO, causal=True, scale=True):
    s = 1.0 / math.sqrt(Q.shape[1]) if scale else 1.0
    S = Q @ K.T * s
    if causal:
        S = S + _future(Q.shape[0], K.shape[0])
    A = _softmax(S)
    dV = A.T @ dO
    dA = dO @ V.T
    dS = A * (dA - (dA * A).sum(axis=1, keepdims=True))
    return dS.T @ Q * s, dS @ K * s, dV


def attention_backward_dV_untransposed(Q, K, V, dO, causal=True, scale=True):
    s = 1.0 / math.sqrt(Q.shape[1]) if scale else 1.0
    S = Q @ K.T * s
    if causal:
        S = S + _future(Q.shape[0], K.shape[0])
    A = _softmax(S)
    dV = A @ dO
    dA = dO @ V.T
    dS = A * (dA - (dA * A).sum(axis=1, keepdims=True))
    return dS @ K * s, dS.T @ Q * s, dV


def attention_backward_softmax_diagonal_only(Q, K, V, dO, causal=True, scale=True):
    s = 1.0 / math.sqrt(Q.shape[1]) if scale else 1.0
    S = Q @ K.T * s
    if causal:
        S = S + _future(Q.shape[0], K.shape[0])
    A = _softmax(S)
    dV = A.T @ dO
    dA = dO @ V.T
    dS = A * dA
    return dS @ K * s, dS.T @ Q * s, dV


def attention_backward_dK_from_K(Q, K, V, dO, causal=True, scale=True):
    s = 1.0 / math.sqrt(Q.shape[1]) if scale else 1.0
    S = Q @ K.T * s
    if causal:
        S = S + _future(Q.shape[0], K.shape[0])
    A = _softmax(S)
    dV = A.T @ dO
    dA = dO @ V.T
    dS = A * (dA - (dA * A).sum(axis=1, keepdims=True))
    return dS @ K * s, dS.T @ K * s, dV


def attention_backward_mask_top_left(Q, K, V, dO, causal=True, scale=True):
    s = 1.0 / math.sqrt(Q.shape[1]) if scale else 1.0
    S = Q @ K.T * s
    if causal:
        S = S + np.triu(np.full((Q.shape[0], K.shape[0]), -np.inf), k=1)
    A = _softmax(S)
    dV = A.T @ dO
    dA = dO @ V.T
    dS = A * (dA - (dA * A).sum(axis=1, keepdims=True))
    return dS @ K * s, dS.T @ Q * s, dV


def attention_backward_always_scaled(Q, K, V, dO, causal=True, scale=True):
    s = 1.0 / math.sqrt(Q.shape[1])
    S = Q @ K.T * s
    if causal:
        S = S + _future(Q.shape[0], K.shape[0])
    A = _softmax(S)
    dV = A.T @ dO
    dA = dO @ V.T
    dS = A * (dA - (dA * A).sum(axis=1, keepdims=True))
    return dS @ K * s, dS.T @ Q * s, dV


def attention_backward_sum_over_queries(Q, K, V, dO, causal=True, scale=True):
    s = 1.0 / math.sqrt(Q.shape[1]) if scale else 1.0
    S = Q @ K.T * s
    if causal:
        S = S + _future(Q.shape[0], K.shape[0])
    A = _softmax(S)
    dV = A.T @ dO
    dA = dO @ V.T
    dS = A * (dA - (dA * A).sum(axis=0, keepdims=True))
    return dS @ K * s, dS.T @ Q * s, dV


# ============================================================================
# layer_norm_backward(X, g, dY, eps=1e-5)

def layer_norm_backward_no_mean_term(X, g, dY, eps=1e-5):
    mu = X.mean(axis=1, keepdims=True)
    inv = 1.0 / np.sqrt(X.var(axis=1, keepdims=True) + eps)
    xhat = (X - mu) * inv
    dxhat = dY * g
    dX = (dxhat - xhat * (dxhat * xhat).mean(axis=1, keepdims=True)) * inv
    return dX, (dY * xhat).sum(axis=0), dY.sum(axis=0)


def layer_norm_backward_no_variance_term(X, g, dY, eps=1e-5):
    mu = X.mean(axis=1, keepdims=True)
    inv = 1.0 / np.sqrt(X.var(axis=1, keepdims=True) + eps)
    xhat = (X - mu) * inv
    dxhat = dY * g
    dX = (dxhat - dxhat.mean(axis=1, keepdims=True)) * inv
    return dX, (dY * xhat).sum(axis=0), dY.sum(axis=0)


def layer_norm_backward_constant_statistics(X, g, dY, eps=1e-5):
    mu = X.mean(axis=1, keepdims=True)
    inv = 1.0 / np.sqrt(X.var(axis=1, keepdims=True) + eps)
    xhat = (X - mu) * inv
    dxhat = dY * g
    dX = dxhat * inv
    return dX, (dY * xhat).sum(axis=0), dY.sum(axis=0)


def layer_norm_backward_forgets_gain(X, g, dY, eps=1e-5):
    mu = X.mean(axis=1, keepdims=True)
    inv = 1.0 / np.sqrt(X.var(axis=1, keepdims=True) + eps)
    xhat = (X - mu) * inv
    dxhat = dY
    dX = (dxhat - dxhat.mean(axis=1, keepdims=True) - xhat * (dxhat * xhat).mean(axis=1, keepdims=True)) * inv
    return dX, (dY * xhat).sum(axis=0), dY.sum(axis=0)


def layer_norm_backward_dg_from_X(X, g, dY, eps=1e-5):
    mu = X.mean(axis=1, keepdims=True)
    inv = 1.0 / np.sqrt(X.var(axis=1, keepdims=True) + eps)
    xhat = (X - mu) * inv
    dxhat = dY * g
    dX = (dxhat - dxhat.mean(axis=1, keepdims=True) - xhat * (dxhat * xhat).mean(axis=1, keepdims=True)) * inv
    return dX, (dY * X).sum(axis=0), dY.sum(axis=0)


def layer_norm_backward_eps_outside_sqrt(X, g, dY, eps=1e-5):
    mu = X.mean(axis=1, keepdims=True)
    inv = 1.0 / (np.sqrt(X.var(axis=1, keepdims=True)) + eps)
    xhat = (X - mu) * inv
    dxhat = dY * g
    dX = (dxhat - dxhat.mean(axis=1, keepdims=True) - xhat * (dxhat * xhat).mean(axis=1, keepdims=True)) * inv
    return dX, (dY * xhat).sum(axis=0), dY.sum(axis=0)


def layer_norm_backward_unbiased_variance(X, g, dY, eps=1e-5):
    mu = X.mean(axis=1, keepdims=True)
    inv = 1.0 / np.sqrt(X.var(axis=1, ddof=1, keepdims=True) + eps)
    xhat = (X - mu) * inv
    dxhat = dY * g
    dX = (dxhat - dxhat.mean(axis=1, keepdims=True) - xhat * (dxhat * xhat).mean(axis=1, keepdims=True)) * inv
    return dX, (dY * xhat).sum(axis=0), dY.sum(axis=0)


def layer_norm_backward_db_dg_swapped(X, g, dY, eps=1e-5):
    mu = X.mean(axis=1, keepdims=True)
    inv = 1.0 / np.sqrt(X.var(axis=1, keepdims=True) + eps)
    xhat = (X - mu) * inv
    dxhat = dY * g
    dX = (dxhat - dxhat.mean(axis=1, keepdims=True) - xhat * (dxhat * xhat).mean(axis=1, keepdims=True)) * inv
    return dX, dY.sum(axis=0), (dY * xhat).sum(axis=0)


# ============================================================================
# attention_entropy(A)

def attention_entropy_log2(A):
    logA = np.log2(np.where(A > 0, A, 1.0))
    return -(A * logA).sum(axis=1)


def attention_entropy_nan_on_zeros(A):
    return -(A * np.log(A)).sum(axis=1)


def attention_entropy_over_queries(A):
    logA = np.log(np.where(A > 0, A, 1.0))
    return -(A * logA).sum(axis=0)


def attention_entropy_wrong_sign(A):
    logA = np.log(np.where(A > 0, A, 1.0))
    return (A * logA).sum(axis=1)


def attention_entropy_mean_not_sum(A):
    logA = np.log(np.where(A > 0, A, 1.0))
    return -(A * logA).mean(axis=1)


def attention_entropy_normalised(A):
    logA = np.log(np.where(A > 0, A, 1.0))
    return -(A * logA).sum(axis=1) / np.log(A.shape[1])


def attention_entropy_unweighted_logs(A):
    logA = np.log(np.where(A > 0, A, 1.0))
    return -logA.sum(axis=1)


def attention_entropy_fills_zeros_in_place(A):
    A[A == 0] = 1.0
    return -(A * np.log(A)).sum(axis=1)


# ============================================================================
# padding_mask(n_q, n_valid, n_k)

def padding_mask_zero_one(n_q, n_valid, n_k):
    M = np.ones((n_q, n_k))
    M[:, n_valid:] = 0.0
    return M


def padding_mask_boolean(n_q, n_valid, n_k):
    M = np.zeros((n_q, n_k), dtype=bool)
    M[:, n_valid:] = True
    return M


def padding_mask_keeps_one_pad(n_q, n_valid, n_k):
    M = np.zeros((n_q, n_k))
    M[:, n_valid + 1:] = -np.inf
    return M


def padding_mask_large_negative(n_q, n_valid, n_k):
    M = np.zeros((n_q, n_k))
    M[:, n_valid:] = -1e9
    return M


def padding_mask_rows(n_q, n_valid, n_k):
    M = np.zeros((n_q, n_k))
    M[n_valid:, :] = -np.inf
    return M


def padding_mask_one_row(n_q, n_valid, n_k):
    M = np.zeros(n_k)
    M[n_valid:] = -np.inf
    return M


def padding_mask_inverted(n_q, n_valid, n_k):
    M = np.zeros((n_q, n_k))
    M[:, :n_valid] = -np.inf
    return M




# ============================================================================
# sample_next(logits, temperature, u)

def sample_next_greater_or_equal(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    c = np.cumsum(_softmax(logits / temperature))
    return int(min(np.searchsorted(c, u, side="left"), len(c) - 1))


def sample_next_ignores_temperature(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    c = np.cumsum(_softmax(logits))
    return int(min(np.searchsorted(c, u, side="right"), len(c) - 1))


def sample_next_multiplies_temperature(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    c = np.cumsum(_softmax(logits * temperature))
    return int(min(np.searchsorted(c, u, side="right"), len(c) - 1))


def sample_next_divides_by_zero(logits, temperature, u):
    c = np.cumsum(_softmax(logits / temperature))
    return int(min(np.searchsorted(c, u, side="right"), len(c) - 1))


def sample_next_unstable(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    E = np.exp(logits / temperature)
    c = np.cumsum(E / E.sum())
    return int(min(np.searchsorted(c, u, side="right"), len(c) - 1))


def sample_next_always_greedy(logits, temperature, u):
    return int(np.argmax(logits))


def sample_next_index_before(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    c = np.cumsum(_softmax(logits / temperature))
    return int(min(np.searchsorted(c, u, side="right") - 1, len(c) - 1))


def sample_next_no_cumsum(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    c = _softmax(logits / temperature)
    return int(np.argmax(c > u)) if (c > u).any() else len(c) - 1




# ============================================================================
# generate(p, prompt, n_new, cache_step)

def generate_recomputes_attention(p, prompt, n_new, cache_step):
    seq = [int(t) for t in prompt]
    for _ in range(n_new):
        X = p["tok_emb"][seq] + p["pos_emb"][:len(seq)]  # (t, d)
        Q, K, V = X @ p["Wq"], X @ p["Wk"], X @ p["Wv"]
        n = len(seq)
        O = _softmax(Q @ K.T / np.sqrt(K.shape[1]) + _future(n, n)) @ V
        seq.append(int(np.argmax((X[-1] + O[-1]) @ p["W_out"])))
    return np.array(seq, dtype=int)


def generate_recomputes_o_from_cache(p, prompt, n_new, cache_step):
    K = np.zeros((0, p["Wk"].shape[1]))
    V = np.zeros((0, p["Wv"].shape[1]))
    seq = [int(t) for t in prompt]
    T = len(seq)
    for i in range(T + n_new - 1):
        x = p["tok_emb"][seq[i]] + p["pos_emb"][i]
        q = x @ p["Wq"]
        _, K, V = cache_step(q, x @ p["Wk"], x @ p["Wv"], K, V)
        o = _softmax(K @ q / np.sqrt(len(q))) @ V
        if i >= T - 1:
            seq.append(int(np.argmax((x + o) @ p["W_out"])))
    return np.array(seq, dtype=int)


def generate_no_positions(p, prompt, n_new, cache_step):
    K = np.zeros((0, p["Wk"].shape[1]))
    V = np.zeros((0, p["Wv"].shape[1]))
    seq = [int(t) for t in prompt]
    T = len(seq)
    for i in range(T + n_new - 1):
        x = p["tok_emb"][seq[i]]
        o, K, V = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K, V)
        if i >= T - 1:
            seq.append(int(np.argmax((x + o) @ p["W_out"])))
    return np.array(seq, dtype=int)


def generate_positions_from_one(p, prompt, n_new, cache_step):
    K = np.zeros((0, p["Wk"].shape[1]))
    V = np.zeros((0, p["Wv"].shape[1]))
    seq = [int(t) for t in prompt]
    T = len(seq)
    for i in range(T + n_new - 1):
        x = p["tok_emb"][seq[i]] + p["pos_emb"][i + 1]
        o, K, V = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K, V)
        if i >= T - 1:
            seq.append(int(np.argmax((x + o) @ p["W_out"])))
    return np.array(seq, dtype=int)


def generate_no_residual(p, prompt, n_new, cache_step):
    K = np.zeros((0, p["Wk"].shape[1]))
    V = np.zeros((0, p["Wv"].shape[1]))
    seq = [int(t) for t in prompt]
    T = len(seq)
    for i in range(T + n_new - 1):
        x = p["tok_emb"][seq[i]] + p["pos_emb"][i]
        o, K, V = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K, V)
        if i >= T - 1:
            seq.append(int(np.argmax(o @ p["W_out"])))
    return np.array(seq, dtype=int)


def generate_returns_new_only(p, prompt, n_new, cache_step):
    K = np.zeros((0, p["Wk"].shape[1]))
    V = np.zeros((0, p["Wv"].shape[1]))
    seq = [int(t) for t in prompt]
    T = len(seq)
    for i in range(T + n_new - 1):
        x = p["tok_emb"][seq[i]] + p["pos_emb"][i]
        o, K, V = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K, V)
        if i >= T - 1:
            seq.append(int(np.argmax((x + o) @ p["W_out"])))
    return np.array(seq[T:], dtype=int)


def generate_one_token_short(p, prompt, n_new, cache_step):
    K = np.zeros((0, p["Wk"].shape[1]))
    V = np.zeros((0, p["Wv"].shape[1]))
    seq = [int(t) for t in prompt]
    T = len(seq)
    for i in range(T + n_new - 2):
        x = p["tok_emb"][seq[i]] + p["pos_emb"][i]
        o, K, V = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K, V)
        if i >= T - 1:
            seq.append(int(np.argmax((x + o) @ p["W_out"])))
    return np.array(seq, dtype=int)


def generate_skips_prompt(p, prompt, n_new, cache_step):
    K = np.zeros((0, p["Wk"].shape[1]))
    V = np.zeros((0, p["Wv"].shape[1]))
    seq = [int(t) for t in prompt]
    T = len(seq)
    for i in range(T - 1, T + n_new - 1):
        x = p["tok_emb"][seq[i]] + p["pos_emb"][i]
        o, K, V = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K, V)
        if i >= T - 1:
            seq.append(int(np.argmax((x + o) @ p["W_out"])))
    return np.array(seq, dtype=int)


def generate_discards_cache(p, prompt, n_new, cache_step):
    K = np.zeros((0, p["Wk"].shape[1]))
    V = np.zeros((0, p["Wv"].shape[1]))
    seq = [int(t) for t in prompt]
    T = len(seq)
    for i in range(T + n_new - 1):
        x = p["tok_emb"][seq[i]] + p["pos_emb"][i]
        o, _, _ = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K, V)
        if i >= T - 1:
            seq.append(int(np.argmax((x + o) @ p["W_out"])))
    return np.array(seq, dtype=int)


def generate_adds_position_in_place(p, prompt, n_new, cache_step):
    K = np.zeros((0, p["Wk"].shape[1]))
    V = np.zeros((0, p["Wv"].shape[1]))
    seq = [int(t) for t in prompt]
    T = len(seq)
    for i in range(T + n_new - 1):
        x = p["tok_emb"][seq[i]]
        x += p["pos_emb"][i]
        o, K, V = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K, V)
        if i >= T - 1:
            seq.append(int(np.argmax((x + o) @ p["W_out"])))
    return np.array(seq, dtype=int)


# ============================================================================
# max_cached_tokens(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2)

def max_cached_tokens_rounds(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    return round(memory_bytes / _kv_token_bytes(n_layers, n_heads, d_head, batch, bytes_per_value))


def max_cached_tokens_true_division(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    return memory_bytes / _kv_token_bytes(n_layers, n_heads, d_head, batch, bytes_per_value)


def max_cached_tokens_keys_only(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    return memory_bytes // (n_layers * n_heads * d_head * batch * bytes_per_value)


def max_cached_tokens_ignores_batch(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    return memory_bytes // (2 * n_layers * n_heads * d_head * bytes_per_value)


def max_cached_tokens_counts_values(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    return memory_bytes // (2 * n_layers * n_heads * d_head * batch)


def max_cached_tokens_strict_fit(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    return (memory_bytes - 1) // _kv_token_bytes(n_layers, n_heads, d_head, batch, bytes_per_value)


def max_cached_tokens_first_too_many(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    return memory_bytes // _kv_token_bytes(n_layers, n_heads, d_head, batch, bytes_per_value) + 1


def max_cached_tokens_int32(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    per_token = np.prod([2, n_layers, n_heads, d_head, batch, bytes_per_value], dtype=np.int32)
    return memory_bytes // per_token


MISTAKES = [
    # compose
    Mistake("compose", "multiplies in the wrong order (W2 @ W1)", compose_reversed),
    Mistake("compose", "returns the transpose of the answer (W2^T W1^T)", compose_transposed),
    Mistake("compose", "uses the PyTorch (d_out, d_in) convention for W2: W1 @ W2.T", compose_pytorch_weight),
    Mistake("compose", "multiplies in place (W1 @= W2), overwriting the caller's W1", compose_in_place),
    Mistake("compose", "triple loop whose inner sum stops one short, skipping the last middle index",
            compose_loop_short),
    Mistake("compose", "casts both matrices to float32 before the product", compose_float32),
    # matmul_cost
    Mistake("matmul_cost", "counts the additions (d_in - 1 per entry) instead of the multiplications",
            matmul_cost_counts_additions),
    Mistake("matmul_cost", "returns a float (1.0 * n * d_in * d_out) instead of an int", matmul_cost_float),
    Mistake("matmul_cost", "np.prod with dtype=np.int32 overflows for large sizes", matmul_cost_int32),
    Mistake("matmul_cost", "multiplies in float64 then converts to int: rounds above 2**53",
            matmul_cost_float64_product),
    Mistake("matmul_cost", "counts output entries (n * d_out), not the multiplications inside each",
            matmul_cost_output_entries),
    Mistake("matmul_cost", "counts one row only (d_in * d_out), forgetting the n rows", matmul_cost_one_row),
    Mistake("matmul_cost", "counts a multiply and an add per term (2 n d_in d_out)", matmul_cost_multiply_add),
    # one_hot
    Mistake("one_hot", "out[:, ids] = 1 sets the columns of every id in every row", one_hot_whole_columns),
    Mistake("one_hot", "returns the (vocab_size, n) transpose", one_hot_transposed),
    Mistake("one_hot", "treats ids as 1-based (column ids - 1)", one_hot_one_based),
    Mistake("one_hot", "sorts ids in place (ids.sort()), changing the caller's ids and the row order",
            one_hot_sorts_in_place),
    Mistake("one_hot", "np.unique(ids) first: repeated ids lose their rows and the order is lost",
            one_hot_unique_ids),
    Mistake("one_hot", "np.eye(ids.max() + 1)[ids]: the width follows the largest id, not vocab_size",
            one_hot_width_from_ids),
    # learned_scores
    Mistake("learned_scores", "divides by sqrt(d) although the exercise asks for unscaled scores",
            learned_scores_scaled),
    Mistake("learned_scores", "computes (X Wk)(X Wq)^T: keys on the rows, the transpose of the answer",
            learned_scores_keys_on_rows),
    Mistake("learned_scores", "uses Wq on both sides ((X Wq)(X Wq)^T), ignoring Wk", learned_scores_queries_only),
    Mistake("learned_scores", "adds a causal mask although the exercise asks for no mask", learned_scores_masked),
    Mistake("learned_scores", "returns the softmax weights instead of the raw scores", learned_scores_softmaxed),
    Mistake("learned_scores", "row-wise dot products ((X Wq) * (X Wk)).sum(1): only token i with itself",
            learned_scores_rowwise),
    Mistake("learned_scores", "uses the PyTorch (d, d_model) weight convention: X @ Wq.T and X @ Wk.T",
            learned_scores_pytorch_weight),
    # score_scale
    Mistake("score_scale", "returns 1 / d instead of 1 / sqrt(d)", score_scale_one_over_d),
    Mistake("score_scale", "returns sqrt(d), the standard deviation, instead of its inverse", score_scale_sqrt_d),
    Mistake("score_scale", "writes d ** -1 / 2, which is (1 / d) / 2 by operator precedence",
            score_scale_precedence),
    Mistake("score_scale", "computes 1 / sqrt(d) in float32: off by about 1e-8 relative", score_scale_float32),
    Mistake("score_scale", "returns the measured 1 / std of q . k from 2000 samples, not the exact value",
            score_scale_measured),
    Mistake("score_scale", "integer division 1 // sqrt(d): 0.0 for every d > 1", score_scale_floor_division),
    # future_leak
    Mistake("future_leak", "off by one: reports k - 1 (j - i - 1) for the worst leak", future_leak_one_short),
    Mistake("future_leak", "off by one: reports k + 1 (j - i + 1) for the worst leak", future_leak_one_too_many),
    Mistake("future_leak", "counts the leaking (row, future row) pairs instead of the largest distance",
            future_leak_counts_pairs),
    Mistake("future_leak", "returns the first leak found (the nearest), not the largest distance",
            future_leak_first_found),
    Mistake("future_leak", "perturbs X in place (Xp = X without a copy), changing the caller's X",
            future_leak_in_place),
    Mistake("future_leak", "only checks whether row j - 1 changes: any leak is reported as 1",
            future_leak_next_row_only),
    Mistake("future_leak", "looks at rows after the perturbed one: measures how far back rows look",
            future_leak_looks_back),
    Mistake("future_leak", "nudges the rows by 1e-12, below the tolerance: no leak is ever seen",
            future_leak_tiny_nudge),
    # tiled_attention
    Mistake("tiled_attention", "computes the full (n_q, n_k) score matrix first, then walks its tiles",
            tiled_attention_full_scores),
    Mistake("tiled_attention", "forgets the rescale by exp(m_old - m_new) when the running max grows",
            tiled_attention_no_rescale),
    Mistake("tiled_attention", "rescales the running sum l but not the running output acc",
            tiled_attention_rescales_sum_only),
    Mistake("tiled_attention", "forgets the 1 / sqrt(d) scale", tiled_attention_unscaled),
    Mistake("tiled_attention", "exponentiates the raw scores without a running max: overflows for huge scores",
            tiled_attention_no_running_max),
    Mistake("tiled_attention", "mask aligned top-left: with n_q < n_k the queries act as the first positions",
            tiled_attention_mask_top_left),
    Mistake("tiled_attention", "never masks, ignoring causal=True", tiled_attention_never_masks),
    Mistake("tiled_attention", "key loop range(0, k_end - block, block) drops the last key block",
            tiled_attention_drops_last_key_block),
    Mistake("tiled_attention", "keeps the running output acc in float32", tiled_attention_float32_accumulator),
    Mistake("tiled_attention", "scales Q in place (Q *= 1 / sqrt(d)), changing the caller's Q",
            tiled_attention_scales_Q_in_place),
    # sinusoidal_positions
    Mistake("sinusoidal_positions", "exponent i / d instead of 2i / d", sinusoidal_half_exponent),
    Mistake("sinusoidal_positions", "cos in the even columns and sin in the odd ones", sinusoidal_sin_cos_swapped),
    Mistake("sinusoidal_positions", "puts all the sines first and all the cosines after instead of interleaving",
            sinusoidal_halves_concatenated),
    Mistake("sinusoidal_positions", "positions start at 1 instead of 0", sinusoidal_positions_from_one),
    Mistake("sinusoidal_positions", "multiplies t by 10000^(2i/d) instead of dividing", sinusoidal_multiplies),
    Mistake("sinusoidal_positions", "returns the (d, n) transpose", sinusoidal_transposed),
    Mistake("sinusoidal_positions", "computes in float32", sinusoidal_float32),
    # split_heads
    Mistake("split_heads", "reshapes straight to (n_heads, n, d_head), scrambling rows and columns",
            split_heads_direct_reshape),
    Mistake("split_heads", "takes every n_heads-th column (M[:, h::n_heads]) instead of a contiguous block",
            split_heads_interleaved),
    Mistake("split_heads", "splits the rows (tokens) into n_heads groups instead of the columns",
            split_heads_splits_rows),
    Mistake("split_heads", "reshapes to (n, n_heads, d_head) but forgets to move the head axis first",
            split_heads_no_transpose),
    Mistake("split_heads", "slices blocks of n_heads columns instead of d_head columns", split_heads_width_n_heads),
    Mistake("split_heads", "reshapes M in place (assigns M.shape), changing the caller's array",
            split_heads_sets_shape_in_place),
    Mistake("split_heads", "reshapes M.T: each head comes out as (d_head, n)", split_heads_columns_first),
    # cross_entropy
    Mistake("cross_entropy", "forgets to divide dlogits by n (the gradient of the summed loss)",
            cross_entropy_no_divide_by_n),
    Mistake("cross_entropy", "sums the loss over the rows instead of taking the mean", cross_entropy_summed_loss),
    Mistake("cross_entropy", "no max subtraction: np.exp overflows for logits around 1e4", cross_entropy_unstable),
    Mistake("cross_entropy", "takes np.log of the softmax: log(0) = -inf when the target's probability underflows",
            cross_entropy_log_of_softmax),
    Mistake("cross_entropy", "wrong sign: dlogits = (one_hot - softmax) / n", cross_entropy_gradient_sign),
    Mistake("cross_entropy", "subtracts the row max in place, changing the caller's logits",
            cross_entropy_in_place),
    Mistake("cross_entropy", "returns (dlogits, loss) instead of (loss, dlogits)", cross_entropy_swapped_tuple),
    Mistake("cross_entropy", "loss in bits (divides by log 2) instead of nats", cross_entropy_log2),
    # attention_backward
    Mistake("attention_backward", "forgets the causal mask in the backward pass", attention_backward_no_mask),
    Mistake("attention_backward", "forgets the scale s in dQ and dK", attention_backward_forgets_scale_in_grads),
    Mistake("attention_backward", "returns (dK, dQ, dV): dQ and dK swapped", attention_backward_dK_first),
    Mistake("attention_backward", "dV = A @ dO instead of A^T @ dO", attention_backward_dV_untransposed),
    Mistake("attention_backward", "softmax backward dS = A * dA, dropping the row-sum term",
            attention_backward_softmax_diagonal_only),
    Mistake("attention_backward", "dK = dS^T K s instead of dS^T Q s", attention_backward_dK_from_K),
    Mistake("attention_backward", "mask aligned top-left: with n_q < n_k the queries act as the first positions",
            attention_backward_mask_top_left),
    Mistake("attention_backward", "ignores scale=False and always scales by 1 / sqrt(d)",
            attention_backward_always_scaled),
    Mistake("attention_backward", "softmax backward sums dA * A over the queries (axis 0) instead of the keys",
            attention_backward_sum_over_queries),
    # layer_norm_backward
    Mistake("layer_norm_backward", "drops the mean correction term (through the row mean)",
            layer_norm_backward_no_mean_term),
    Mistake("layer_norm_backward", "drops the xhat * mean(dxhat * xhat) correction term (through the variance)",
            layer_norm_backward_no_variance_term),
    Mistake("layer_norm_backward", "treats mean and variance as constants: dX = dY g / sqrt(var + eps)",
            layer_norm_backward_constant_statistics),
    Mistake("layer_norm_backward", "forgets the gain g in dX", layer_norm_backward_forgets_gain),
    Mistake("layer_norm_backward", "dg = sum(dY * X) instead of sum(dY * xhat)", layer_norm_backward_dg_from_X),
    Mistake("layer_norm_backward", "adds eps outside the square root", layer_norm_backward_eps_outside_sqrt),
    Mistake("layer_norm_backward", "uses the unbiased variance (ddof=1)", layer_norm_backward_unbiased_variance),
    Mistake("layer_norm_backward", "returns (dX, db, dg): dg and db swapped", layer_norm_backward_db_dg_swapped),
    # attention_entropy
    Mistake("attention_entropy", "uses log2 (bits) instead of ln (nats)", attention_entropy_log2),
    Mistake("attention_entropy", "A * np.log(A) gives NaN (0 * -inf) on zero weights", attention_entropy_nan_on_zeros),
    Mistake("attention_entropy", "sums over the queries (axis 0) instead of the keys", attention_entropy_over_queries),
    Mistake("attention_entropy", "forgets the minus sign", attention_entropy_wrong_sign),
    Mistake("attention_entropy", "takes the mean over the keys instead of the sum", attention_entropy_mean_not_sum),
    Mistake("attention_entropy", "divides by log n_k (normalised entropy)", attention_entropy_normalised),
    Mistake("attention_entropy", "sums -log A over the nonzero weights, forgetting the weights A",
            attention_entropy_unweighted_logs),
    Mistake("attention_entropy", "replaces the zeros of A by 1 in place to avoid log 0, changing the caller's A",
            attention_entropy_fills_zeros_in_place),
    # padding_mask
    Mistake("padding_mask", "returns a multiplicative 1/0 mask instead of an additive 0/-inf one",
            padding_mask_zero_one),
    Mistake("padding_mask", "returns a boolean mask (True on padding) instead of 0/-inf", padding_mask_boolean),
    Mistake("padding_mask", "off by one: the first padding column stays open", padding_mask_keeps_one_pad),
    Mistake("padding_mask", "uses -1e9 instead of -inf for padding", padding_mask_large_negative),
    Mistake("padding_mask", "masks the rows i >= n_valid instead of the columns", padding_mask_rows),
    Mistake("padding_mask", "returns one (n_k,) row instead of repeating it for the n_q rows", padding_mask_one_row),
    Mistake("padding_mask", "inverted: -inf on the real tokens, 0 on the padding", padding_mask_inverted),
    # sample_next
    Mistake("sample_next", "first index whose cumulative probability is >= u instead of > u",
            sample_next_greater_or_equal),
    Mistake("sample_next", "ignores the temperature (softmax of the raw logits)", sample_next_ignores_temperature),
    Mistake("sample_next", "multiplies the logits by the temperature instead of dividing",
            sample_next_multiplies_temperature),
    Mistake("sample_next", "no special case for temperature 0: divides by zero", sample_next_divides_by_zero),
    Mistake("sample_next", "softmax without max subtraction: overflows for tiny temperatures", sample_next_unstable),
    Mistake("sample_next", "always returns argmax(logits), ignoring temperature and u", sample_next_always_greedy),
    Mistake("sample_next", "off by one: returns the index before the first cumulative probability > u",
            sample_next_index_before),
    Mistake("sample_next", "compares each probability with u instead of the cumulative sum", sample_next_no_cumsum),
    # generate
    Mistake("generate", "never calls cache_step: recomputes attention over the whole sequence each step",
            generate_recomputes_attention),
    Mistake("generate", "calls cache_step for the caches but recomputes o itself from them",
            generate_recomputes_o_from_cache),
    Mistake("generate", "forgets the position embeddings", generate_no_positions),
    Mistake("generate", "positions start at 1 (pos_emb[i + 1])", generate_positions_from_one),
    Mistake("generate", "logits from o alone, forgetting the residual x + o", generate_no_residual),
    Mistake("generate", "returns only the new tokens, without the prompt", generate_returns_new_only),
    Mistake("generate", "stops one token early (n_new - 1 new tokens)", generate_one_token_short),
    Mistake("generate", "feeds only the last prompt token: the cache never sees the rest of the prompt",
            generate_skips_prompt),
    Mistake("generate", "discards the grown caches returned by cache_step: each token attends only to itself",
            generate_discards_cache),
    Mistake("generate", "adds pos_emb in place into a row view of tok_emb, changing the caller's p",
            generate_adds_position_in_place),
    # max_cached_tokens
    Mistake("max_cached_tokens", "rounds to the nearest token count instead of flooring", max_cached_tokens_rounds),
    Mistake("max_cached_tokens", "true division: returns a fractional float", max_cached_tokens_true_division),
    Mistake("max_cached_tokens", "forgets the factor 2 (counts the keys only, not the values)",
            max_cached_tokens_keys_only),
    Mistake("max_cached_tokens", "ignores batch", max_cached_tokens_ignores_batch),
    Mistake("max_cached_tokens", "ignores bytes_per_value: counts values, not bytes", max_cached_tokens_counts_values),
    Mistake("max_cached_tokens", "requires a strict fit (<): an exact fit loses its last token",
            max_cached_tokens_strict_fit),
    Mistake("max_cached_tokens", "returns the first seq_len that does not fit (one too many)",
            max_cached_tokens_first_too_many),
    Mistake("max_cached_tokens", "np.prod with dtype=np.int32: the bytes per token or the division overflow",
            max_cached_tokens_int32),
]


# ============================================================================
# Right answers written differently: the checks must pass every one of these.

def compose_einsum(W1, W2):
    return np.einsum("im,mo->io", W1, W2)


def compose_identity_through_both(W1, W2):
    basis = np.eye(W1.shape[0])  # row i is the input that picks row i of W
    return (basis @ W1) @ W2


def compose_row_loop(W1, W2):
    return np.array([w @ W2 for w in W1])


def matmul_cost_math_prod(n, d_in, d_out):
    return math.prod([n, d_in, d_out])


def matmul_cost_per_row(n, d_in, d_out):
    per_row = d_in * d_out  # one row of X against all of W
    return n * per_row


def one_hot_eye_rows(ids, vocab_size):
    return np.eye(vocab_size)[ids]


def one_hot_comparison(ids, vocab_size):
    return (np.asarray(ids)[:, None] == np.arange(vocab_size)[None, :]).astype(float)


def one_hot_loop(ids, vocab_size):
    out = np.zeros((len(ids), vocab_size))
    for i, t in enumerate(ids):
        out[i, t] = 1.0
    return out


def learned_scores_bilinear(X, Wq, Wk):
    M = Wq @ Wk.T  # (d_model, d_model)
    return X @ M @ X.T


def learned_scores_einsum(X, Wq, Wk):
    return np.einsum("id,jd->ij", X @ Wq, X @ Wk)


def score_scale_power(d):
    return d ** -0.5


def score_scale_numpy(d):
    return 1.0 / np.sqrt(d)


def score_scale_sqrt_of_inverse(d):
    return math.sqrt(1.0 / d)


def future_leak_replaces_rows(attn, X):
    base = np.asarray(attn(X))
    rng = np.random.default_rng(1)
    n = X.shape[0]
    worst = 0
    for j in range(n):
        Xp = np.array(X, copy=True)
        Xp[j] = rng.standard_normal(X.shape[1]) * (1.0 + np.abs(X).max())
        diff = np.abs(np.asarray(attn(Xp)) - base).max(axis=1)
        rows = np.flatnonzero(diff[:j] > 1e-9 * max(1.0, float(np.abs(base).max())))
        if rows.size:
            worst = max(worst, j - int(rows.min()))
    return worst


def future_leak_influence_matrix(attn, X):
    base = np.asarray(attn(X))
    rng = np.random.default_rng(2)
    n = X.shape[0]
    tol = 1e-9 * max(1.0, float(np.abs(base).max()))
    seen = np.zeros((n, n), dtype=bool)  # seen[i, j]: output row i moves when input row j moves
    for j in range(n):
        Xp = X.copy()
        Xp[j] += 10.0 * rng.standard_normal(X.shape[1])
        seen[:, j] = np.abs(np.asarray(attn(Xp)) - base).max(axis=1) > tol
    i, j = np.nonzero(np.triu(seen, k=1))
    return int((j - i).max()) if i.size else 0


def tiled_attention_normalised_merge(Q, K, V, causal=True, block=64):
    n_q, n_k = Q.shape[0], K.shape[0]
    offset = n_k - n_q
    s = 1.0 / math.sqrt(Q.shape[1])
    O = np.empty((n_q, V.shape[1]))
    for q0 in range(0, n_q, block):
        q1 = min(q0 + block, n_q)
        Qb = Q[q0:q1]
        m = np.full((q1 - q0, 1), -np.inf)
        l = np.zeros((q1 - q0, 1))
        o = np.zeros((q1 - q0, V.shape[1]))  # normalised output so far
        for k0 in range(0, n_k, block):  # walks every key block, masking the future ones entirely
            k1 = min(k0 + block, n_k)
            S = (Qb @ K[k0:k1].T) * s
            if causal:
                S = S + np.where(np.arange(k0, k1)[None, :] > offset + np.arange(q0, q1)[:, None], -np.inf, 0.0)
            m_new = np.maximum(m, S.max(axis=1, keepdims=True))  # finite: key 0 is in the first block
            P = np.exp(S - m_new)
            kept = l * np.exp(m - m_new)  # old weight, on the new max
            l_new = kept + P.sum(axis=1, keepdims=True)
            o = (o * kept + P @ V[k0:k1]) / l_new
            m, l = m_new, l_new
        O[q0:q1] = o
    return O


def tiled_attention_large_negative_mask(Q, K, V, causal=True, block=64):
    n_q, n_k = Q.shape[0], K.shape[0]
    offset = n_k - n_q
    Qs = Q / np.sqrt(Q.shape[1])  # a scaled copy: (n_q, d), not (n_q, n_k)
    O = np.empty((n_q, V.shape[1]))
    for q0 in range(0, n_q, block):
        rows = slice(q0, min(q0 + block, n_q))
        m = np.full((Qs[rows].shape[0], 1), -1e300)
        l = np.zeros_like(m)
        acc = np.zeros((m.shape[0], V.shape[1]))
        for k0 in range(0, n_k, block):
            cols = slice(k0, min(k0 + block, n_k))
            S = Qs[rows] @ K[cols].T
            if causal:
                i = offset + np.arange(rows.start, rows.stop)[:, None]
                j = np.arange(cols.start, cols.stop)[None, :]
                S = np.where(j > i, -1e30, S)
            m_new = np.maximum(m, S.max(axis=1, keepdims=True))
            P = np.exp(S - m_new)
            c = np.exp(m - m_new)
            l = c * l + P.sum(axis=1, keepdims=True)
            acc = c * acc + P @ V[cols]
            m = m_new
        O[rows] = acc / l
    return O


def sinusoidal_loops(n, d):
    P = np.zeros((n, d))
    for t in range(n):
        for i in range(d // 2):
            angle = t / 10000 ** (2 * i / d)
            P[t, 2 * i] = math.sin(angle)
            P[t, 2 * i + 1] = math.cos(angle)
    return P


def sinusoidal_exp_log(n, d):
    freq = np.exp(-math.log(10000.0) * np.arange(0, d, 2) / d)  # (d/2,)
    angle = np.outer(np.arange(n), freq)
    return np.stack([np.sin(angle), np.cos(angle)], axis=2).reshape(n, d)


def split_heads_stack_slices(M, n_heads):
    d_head = M.shape[1] // n_heads
    return np.stack([M[:, h * d_head:(h + 1) * d_head] for h in range(n_heads)])


def split_heads_array_split(M, n_heads):
    return np.array(np.array_split(M, n_heads, axis=1))


def split_heads_swapaxes(M, n_heads):
    return np.swapaxes(M.reshape(M.shape[0], n_heads, -1), 0, 1).copy()


def cross_entropy_one_hot_matrix(logits, targets):
    n, vocab = logits.shape
    Y = np.zeros((n, vocab))
    Y[np.arange(n), targets] = 1.0
    m = logits.max(axis=1, keepdims=True)
    lse = m + np.log(np.exp(logits - m).sum(axis=1, keepdims=True))  # (n, 1)
    loss = -(Y * (logits - lse)).sum() / n
    return loss, (np.exp(logits - lse) - Y) / n


def cross_entropy_row_loop(logits, targets):
    n = logits.shape[0]
    loss = 0.0
    dlogits = np.empty(logits.shape)
    for i in range(n):
        z = logits[i] - logits[i].max()
        e = np.exp(z)
        loss += np.log(e.sum()) - z[targets[i]]
        dlogits[i] = e / e.sum()
        dlogits[i, targets[i]] -= 1.0
    return loss / n, dlogits / n


def attention_backward_row_jacobians(Q, K, V, dO, causal=True, scale=True):
    n_q, n_k = Q.shape[0], K.shape[0]
    s = 1.0 / math.sqrt(Q.shape[1]) if scale else 1.0
    dQ, dK, dV = np.zeros(Q.shape), np.zeros(K.shape), np.zeros(V.shape)
    for i in range(n_q):
        seen = n_k - n_q + i + 1 if causal else n_k
        a = _softmax(K[:seen] @ Q[i] * s)  # (seen,)
        dV[:seen] += np.outer(a, dO[i])
        ds = (np.diag(a) - np.outer(a, a)) @ (V[:seen] @ dO[i])
        dQ[i] = ds @ K[:seen] * s
        dK[:seen] += np.outer(ds, Q[i]) * s
    return dQ, dK, dV


def attention_backward_output_dot(Q, K, V, dO, causal=True, scale=True):
    s = 1.0 / math.sqrt(Q.shape[1]) if scale else 1.0
    S = np.einsum("id,jd->ij", Q, K) * s
    if causal:
        S = np.where(_future(Q.shape[0], K.shape[0]) < 0, -np.inf, S)
    A = _softmax(S)
    O = A @ V
    D = (dO * O).sum(axis=1, keepdims=True)  # sum_j A_ij dA_ij = dO_i . O_i
    dS = A * (dO @ V.T - D)
    return np.einsum("ij,jd->id", dS, K) * s, np.einsum("ij,id->jd", dS, Q) * s, A.T @ dO


def layer_norm_backward_staged(X, g, dY, eps=1e-5):
    N = X.shape[1]
    mu = X.mean(axis=1, keepdims=True)
    xc = X - mu
    var = (xc ** 2).mean(axis=1, keepdims=True)
    std = np.sqrt(var + eps)
    xhat = xc / std
    dxhat = dY * g
    dvar = (dxhat * xc).sum(axis=1, keepdims=True) * -0.5 * std ** -3
    dmu = -(dxhat / std).sum(axis=1, keepdims=True) + dvar * (-2.0 * xc).mean(axis=1, keepdims=True)
    dX = dxhat / std + dvar * 2.0 * xc / N + dmu / N
    return dX, (dY * xhat).sum(axis=0), dY.sum(axis=0)


def layer_norm_backward_row_jacobians(X, g, dY, eps=1e-5):
    n, N = X.shape
    dX = np.empty(X.shape)
    xhats = np.empty(X.shape)
    for r in range(n):
        xc = X[r] - X[r].mean()
        std = np.sqrt((xc ** 2).mean() + eps)
        xhat = xc / std
        xhats[r] = xhat
        J = (np.eye(N) - 1.0 / N - np.outer(xhat, xhat) / N) / std  # d xhat / d x
        dX[r] = J.T @ (dY[r] * g)
    return dX, np.einsum("nd,nd->d", dY, xhats), dY.sum(axis=0)


def attention_entropy_log_where(A):
    logA = np.log(A, out=np.zeros(A.shape), where=A > 0)
    return -np.einsum("ij,ij->i", A, logA)


def attention_entropy_nan_to_num(A):
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = A * np.log(A)
    return -np.nan_to_num(terms, nan=0.0).sum(axis=1)


def attention_entropy_loop(A):
    H = np.zeros(A.shape[0])
    for i, row in enumerate(A):
        a = row[row > 0]
        H[i] = -(a * np.log(a)).sum()
    return H


def padding_mask_where(n_q, n_valid, n_k):
    j = np.arange(n_k)[None, :].repeat(n_q, axis=0)
    return np.where(j < n_valid, 0.0, -np.inf)


def padding_mask_tile(n_q, n_valid, n_k):
    row = np.concatenate([np.zeros(n_valid), np.full(n_k - n_valid, -np.inf)])
    return np.tile(row, (n_q, 1))


def sample_next_loop(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    p = _softmax(logits / temperature)
    total = 0.0
    for i, pi in enumerate(p):
        total += pi
        if total > u:
            return i
    return len(p) - 1  # rounding left the total just below u


def sample_next_argmax_of_mask(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    z = logits / temperature
    e = np.exp(z - np.max(z))
    above = np.cumsum(e / e.sum()) > u
    return int(np.argmax(above)) if above.any() else len(z) - 1


def generate_prefill_then_decode(p, prompt, n_new, cache_step):
    d = p["Wk"].shape[1]
    K, V = np.empty((0, d)), np.empty((0, p["Wv"].shape[1]))
    out = list(np.asarray(prompt).tolist())

    def feed(token, pos, K, V):
        x = p["tok_emb"][token] + p["pos_emb"][pos]
        o, K, V = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K, V)
        return (x + o) @ p["W_out"], K, V

    for pos in range(len(out) - 1):  # prefill: the prompt except its last token
        _, K, V = feed(out[pos], pos, K, V)
    for pos in range(len(out) - 1, len(out) - 1 + n_new):
        logits, K, V = feed(out[pos], pos, K, V)
        out.append(int(logits.argmax()))
    return np.array(out, dtype=np.int64)


def generate_preallocated(p, prompt, n_new, cache_step):
    T = len(prompt)
    seq = np.zeros(T + n_new, dtype=int)
    seq[:T] = prompt
    K = np.zeros((0, p["Wk"].shape[1]))
    V = np.zeros((0, p["Wv"].shape[1]))
    for i in range(T + n_new - 1):
        x = p["tok_emb"][seq[i]] + p["pos_emb"][i]
        o, K, V = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K, V)
        if i + 1 >= T:
            seq[i + 1] = np.argmax((x + o) @ p["W_out"])
    return seq


def max_cached_tokens_divmod(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    per_token = math.prod([2, n_layers, n_heads, d_head, batch, bytes_per_value])
    tokens, _ = divmod(memory_bytes, per_token)
    return tokens


def max_cached_tokens_binary_search(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    def cache_bytes(seq_len):
        return 2 * n_layers * n_heads * d_head * seq_len * batch * bytes_per_value

    lo, hi = 0, 1
    while cache_bytes(hi) <= memory_bytes:
        hi *= 2
    while hi - lo > 1:  # cache_bytes(lo) fits, cache_bytes(hi) does not
        mid = (lo + hi) // 2
        if cache_bytes(mid) <= memory_bytes:
            lo = mid
        else:
            hi = mid
    return lo


ACCEPTABLE = [
    Mistake("compose", "einsum instead of @", compose_einsum),
    Mistake("compose", "pushes the identity through both projections", compose_identity_through_both),
    Mistake("compose", "a loop over the rows of W1", compose_row_loop),
    Mistake("matmul_cost", "math.prod of the sizes", matmul_cost_math_prod),
    Mistake("matmul_cost", "cost of one row times the number of rows", matmul_cost_per_row),
    Mistake("one_hot", "rows of the identity matrix np.eye(vocab_size)[ids]", one_hot_eye_rows),
    Mistake("one_hot", "compares ids with arange(vocab_size) and casts to float", one_hot_comparison),
    Mistake("one_hot", "a loop setting one entry per row", one_hot_loop),
    Mistake("learned_scores", "the bilinear form X (Wq Wk^T) X^T", learned_scores_bilinear),
    Mistake("learned_scores", "einsum of the projected queries and keys", learned_scores_einsum),
    Mistake("score_scale", "d ** -0.5", score_scale_power),
    Mistake("score_scale", "1.0 / np.sqrt(d) (a numpy float)", score_scale_numpy),
    Mistake("score_scale", "math.sqrt(1 / d)", score_scale_sqrt_of_inverse),
    Mistake("future_leak", "replaces each row with a large random row, takes the earliest row that moved",
            future_leak_replaces_rows),
    Mistake("future_leak", "builds the (n, n) influence matrix, then the widest entry above the diagonal",
            future_leak_influence_matrix),
    Mistake("tiled_attention", "keeps a normalised running output and walks every key block",
            tiled_attention_normalised_merge),
    Mistake("tiled_attention", "scaled copy of Q, a -1e30 mask and slices", tiled_attention_large_negative_mask),
    Mistake("sinusoidal_positions", "double loop with math.sin and math.cos", sinusoidal_loops),
    Mistake("sinusoidal_positions", "frequencies as exp(-log(10000) 2i/d), sin and cos stacked then reshaped",
            sinusoidal_exp_log),
    Mistake("split_heads", "np.stack of the column blocks", split_heads_stack_slices),
    Mistake("split_heads", "np.array_split along the columns", split_heads_array_split),
    Mistake("split_heads", "reshape, swapaxes and a copy", split_heads_swapaxes),
    Mistake("cross_entropy", "one-hot target matrix and log-sum-exp", cross_entropy_one_hot_matrix),
    Mistake("cross_entropy", "a loop over the rows", cross_entropy_row_loop),
    Mistake("attention_backward", "per query row, the softmax Jacobian diag(a) - a a^T",
            attention_backward_row_jacobians),
    Mistake("attention_backward", "einsum, with the row term computed as dO . O", attention_backward_output_dot),
    Mistake("layer_norm_backward", "staged backprop through the variance and the mean",
            layer_norm_backward_staged),
    Mistake("layer_norm_backward", "the explicit Jacobian of each row", layer_norm_backward_row_jacobians),
    Mistake("attention_entropy", "np.log with where= and out=, then einsum", attention_entropy_log_where),
    Mistake("attention_entropy", "A log A under np.errstate, NaNs turned into 0", attention_entropy_nan_to_num),
    Mistake("attention_entropy", "a loop over the rows keeping the nonzero weights", attention_entropy_loop),
    Mistake("padding_mask", "np.where on the column index", padding_mask_where),
    Mistake("padding_mask", "one row built by concatenation, then np.tile", padding_mask_tile),
    Mistake("sample_next", "a loop accumulating the probabilities", sample_next_loop),
    Mistake("sample_next", "argmax of the boolean cumsum > u", sample_next_argmax_of_mask),
    Mistake("generate", "a prefill loop over the prompt, then a decode loop", generate_prefill_then_decode),
    Mistake("generate", "writes into a preallocated int array", generate_preallocated),
    Mistake("max_cached_tokens", "divmod by the bytes per token", max_cached_tokens_divmod),
    Mistake("max_cached_tokens", "binary search on seq_len with exact integer sizes", max_cached_tokens_binary_search),
]
