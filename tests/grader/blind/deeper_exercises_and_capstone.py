"""A blind set of learner mistakes for the 17 deeper exercises and the capstone.

`MISTAKES` holds realistic wrong implementations of compose, matmul_cost, one_hot, learned_scores, score_scale,
future_leak, tiled_attention, sinusoidal_positions, split_heads, cross_entropy, attention_backward,
layer_norm_backward, attention_entropy, padding_mask, sample_next, generate, max_cached_tokens and the capstone
(whose `fn` is an ops dict for `TinyLM(ops=...)`, names to functions, with one wrong op or one wrong pair).
`ACCEPTABLE` holds right answers written differently. Each entry is a `Mistake(exercise, what, fn)` record with
the exercise's exact signature.

The set was written from the exercise notebooks (their task text and stub signatures), the narrative notebooks
and attnlib's maths modules only, without reading the checks, their diagnoses, the mutant catalogue, the
solutions or the other blind sets. It imitates learners with different habits: PyTorch conventions (weights as
(out, in), dim=0), column-vector maths, off-by-ones, a forgotten 1/sqrt(d), sums for means, wrong axes, in-place
edits of inputs, the wrong element of a tuple, integer overflow and floats where an exact int is asked, and
overflow at big logits. Every mistake differs from a right answer in one place and is wrong on some input the
exercise text allows (each was checked numerically against attnlib's reference or, where attnlib has none, the
reference written from the task text in `REFERENCES`); every acceptable variant matches.
"""
import math

import numpy as np

from .building_blocks import Mistake

# ----------------------------------------------------------------------------------------------------------------
# shared correct helpers: each mistake below differs from these in one place


def _softmax(S, axis=-1):
    """Stable softmax: -inf entries become exact zeros."""
    E = np.exp(S - S.max(axis=axis, keepdims=True))
    return E / E.sum(axis=axis, keepdims=True)


def _future(n_q, n_k):
    """Bool (n_q, n_k): True where key j is in query i's future; the queries are the last n_q positions."""
    return np.triu(np.ones((n_q, n_k), dtype=bool), k=n_k - n_q + 1)


def _mask(n_q, n_k):
    """The additive causal mask (n_q, n_k), queries at the last n_q positions."""
    return np.where(_future(n_q, n_k), -np.inf, 0.0)


def _weights(Q, K, causal=True, scale=True):
    """A = softmax(Q K^T s + mask)."""
    S = Q @ K.T * (1.0 / math.sqrt(Q.shape[1]) if scale else 1.0)
    return _softmax(S + _mask(len(Q), len(K)) if causal else S)


def _softmax_backward(A, dA):
    return A * (dA - (dA * A).sum(axis=-1, keepdims=True))


def _layer_norm(X, g, b, eps=1e-5):
    mu, var = X.mean(axis=1, keepdims=True), X.var(axis=1, keepdims=True)
    return (X - mu) / np.sqrt(var + eps) * g + b


def _gelu(X):
    return 0.5 * X * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (X + 0.044715 * X ** 3)))


def _log_softmax(Z):
    Z = Z - Z.max(axis=1, keepdims=True)
    return Z - np.log(np.exp(Z).sum(axis=1, keepdims=True))


def _kv_bytes_per_token(n_layers, n_heads, d_head, batch, bytes_per_value):
    return 2 * n_layers * n_heads * d_head * batch * bytes_per_value


# ================================================================================================================
# 01 compose(W1, W2): the single matrix for x -> W1 -> W2


def compose_ref(W1, W2):
    return W1 @ W2


def compose_column_order(W1, W2):
    return W2 @ W1


def compose_column_transpose(W1, W2):
    return W2.T @ W1.T


def compose_elementwise(W1, W2):
    return W1 * W2


def compose_sum(W1, W2):
    return W1 + W2


def compose_loop_short(W1, W2):
    W = np.zeros((W1.shape[0], W2.shape[1]))
    for k in range(W1.shape[1] - 1):
        W += np.outer(W1[:, k], W2[k])
    return W


def compose_in_place(W1, W2):
    W = W1
    W @= W2
    return W


def compose_torch(W1, W2):
    return W1 @ W2.T


def compose_einsum(W1, W2):
    return np.einsum("im,mo->io", W1, W2)


def compose_outer_sum(W1, W2):
    return sum(np.outer(W1[:, k], W2[k]) for k in range(W1.shape[1]))


def compose_project_identity(W1, W2):
    return (np.eye(W1.shape[0]) @ W1) @ W2


# ================================================================================================================
# 02 matmul_cost(n, d_in, d_out): scalar multiplications in X @ W, an exact int


def matmul_cost_ref(n, d_in, d_out):
    return n * d_in * d_out


def matmul_cost_flops(n, d_in, d_out):
    return 2 * n * d_in * d_out


def matmul_cost_additions(n, d_in, d_out):
    return n * (d_in - 1) * d_out


def matmul_cost_entries(n, d_in, d_out):
    return n * d_out


def matmul_cost_one_row(n, d_in, d_out):
    return d_in * d_out


def matmul_cost_square(n, d_in, d_out):
    return n * d_in * d_in


def matmul_cost_int32(n, d_in, d_out):
    return int(np.prod([n, d_in, d_out], dtype=np.int32))


def matmul_cost_float(n, d_in, d_out):
    return float(n) * d_in * d_out


def matmul_cost_float_then_int(n, d_in, d_out):
    return int(float(n) * float(d_in) * float(d_out))


def matmul_cost_math_prod(n, d_in, d_out):
    return math.prod((int(n), int(d_in), int(d_out)))


def matmul_cost_object_prod(n, d_in, d_out):
    return int(np.prod([n, d_out, d_in], dtype=object))


# ================================================================================================================
# 03 one_hot(ids, vocab_size)


def one_hot_ref(ids, vocab_size):
    Y = np.zeros((len(ids), vocab_size))
    Y[np.arange(len(ids)), ids] = 1.0
    return Y


def one_hot_columns(ids, vocab_size):
    Y = np.zeros((len(ids), vocab_size))
    Y[:, ids] = 1.0
    return Y


def one_hot_transposed(ids, vocab_size):
    return np.eye(vocab_size)[ids].T


def one_hot_int(ids, vocab_size):
    Y = np.zeros((len(ids), vocab_size), dtype=int)
    Y[np.arange(len(ids)), ids] = 1
    return Y


def one_hot_one_based(ids, vocab_size):
    Y = np.zeros((len(ids), vocab_size))
    Y[np.arange(len(ids)), ids - 1] = 1.0
    return Y


def one_hot_width_from_ids(ids, vocab_size):
    Y = np.zeros((len(ids), int(ids.max()) + 1))
    Y[np.arange(len(ids)), ids] = 1.0
    return Y


def one_hot_unique(ids, vocab_size):
    return np.eye(vocab_size)[np.unique(ids)]


def one_hot_flat_in_place(ids, vocab_size):
    n = len(ids)
    flat = ids
    flat += np.arange(n) * vocab_size  # row-major position of each 1, computed in ids' own memory
    Y = np.zeros(n * vocab_size)
    Y[flat] = 1.0
    return Y.reshape(n, vocab_size)


def one_hot_bool(ids, vocab_size):
    return ids[:, None] == np.arange(vocab_size)


def one_hot_eye(ids, vocab_size):
    return np.eye(vocab_size)[ids]


def one_hot_compare(ids, vocab_size):
    return (np.asarray(ids)[:, None] == np.arange(vocab_size)[None, :]).astype(float)


def one_hot_loop(ids, vocab_size):
    rows = []
    for t in ids:
        row = np.zeros(vocab_size)
        row[t] = 1.0
        rows.append(row)
    return np.array(rows).reshape(len(ids), vocab_size)


# ================================================================================================================
# 05 learned_scores(X, Wq, Wk): Q K^T with Q = X Wq, K = X Wk, unscaled, no mask


def learned_scores_ref(X, Wq, Wk):
    return (X @ Wq) @ (X @ Wk).T


def learned_scores_keys_on_rows(X, Wq, Wk):
    return (X @ Wk) @ (X @ Wq).T


def learned_scores_scaled(X, Wq, Wk):
    return (X @ Wq) @ (X @ Wk).T / np.sqrt(Wq.shape[1])


def learned_scores_same_matrix(X, Wq, Wk):
    Q = X @ Wq
    return Q @ Q.T


def learned_scores_torch(X, Wq, Wk):
    return (X @ Wq.T) @ (X @ Wk.T).T


def learned_scores_masked(X, Wq, Wk):
    return (X @ Wq) @ (X @ Wk).T + _mask(len(X), len(X))


def learned_scores_softmax(X, Wq, Wk):
    return _softmax((X @ Wq) @ (X @ Wk).T)


def learned_scores_elementwise(X, Wq, Wk):
    return ((X @ Wq) * (X @ Wk)).sum(axis=1)


def learned_scores_feature_gram(X, Wq, Wk):
    return (X @ Wq).T @ (X @ Wk)


def learned_scores_bilinear(X, Wq, Wk):
    return X @ (Wq @ Wk.T) @ X.T


def learned_scores_einsum(X, Wq, Wk):
    return np.einsum("id,jd->ij", X @ Wq, X @ Wk)


# ================================================================================================================
# 06 score_scale(d): the exact c with Var(c q.k) = 1


def score_scale_ref(d):
    return 1.0 / math.sqrt(d)


def score_scale_one_over_d(d):
    return 1.0 / d


def score_scale_sqrt(d):
    return math.sqrt(d)


def score_scale_precedence(d):
    return d ** -1 / 2


def score_scale_float32(d):
    return np.float32(1.0 / np.sqrt(d))


def score_scale_rounded(d):
    return round(1.0 / math.sqrt(d), 3)


def score_scale_measured(d):
    rng = np.random.default_rng(0)
    dots = (rng.standard_normal((20_000, d)) * rng.standard_normal((20_000, d))).sum(axis=1)
    return float(1.0 / dots.std())


def score_scale_isqrt(d):
    return 1.0 / math.isqrt(d)


def score_scale_power(d):
    return d ** -0.5


def score_scale_sqrt_of_inverse(d):
    return math.sqrt(1.0 / d)


# ================================================================================================================
# 07 future_leak(attn, X): how many positions ahead the worst output row sees

_LEAK_TOL = 1e-9  # one part in a billion of the outputs


def _leak_tol(base):
    return _LEAK_TOL * max(float(np.abs(base).max()), 1.0)


def future_leak_ref(attn, X):
    base = np.asarray(attn(X), dtype=float)
    tol = _leak_tol(base)
    worst = 0
    for j in range(1, len(X)):
        moved = X.copy()
        moved[j] += 1.0
        change = np.abs(np.asarray(attn(moved), dtype=float) - base).max(axis=1)  # (n,)
        seeing = np.flatnonzero(change[:j] > tol)  # output rows before j that moved
        if seeing.size:
            worst = max(worst, j - int(seeing[0]))
    return worst


def future_leak_counts_rows(attn, X):
    base = np.asarray(attn(X), dtype=float)
    tol = _leak_tol(base)
    leaking = set()
    for j in range(1, len(X)):
        moved = X.copy()
        moved[j] += 1.0
        change = np.abs(np.asarray(attn(moved), dtype=float) - base).max(axis=1)
        leaking.update(np.flatnonzero(change[:j] > tol).tolist())
    return len(leaking)


def future_leak_plus_one(attn, X):
    base = np.asarray(attn(X), dtype=float)
    tol = _leak_tol(base)
    worst = 0
    for j in range(1, len(X)):
        moved = X.copy()
        moved[j] += 1.0
        change = np.abs(np.asarray(attn(moved), dtype=float) - base).max(axis=1)
        seeing = np.flatnonzero(change[:j] > tol)
        if seeing.size:
            worst = max(worst, j - int(seeing[0]) + 1)
    return worst


def future_leak_no_copy(attn, X):
    base = np.asarray(attn(X), dtype=float)
    tol = _leak_tol(base)
    worst = 0
    for j in range(1, len(X)):
        moved = X
        moved[j] += 1.0
        change = np.abs(np.asarray(attn(moved), dtype=float) - base).max(axis=1)
        seeing = np.flatnonzero(change[:j] > tol)
        if seeing.size:
            worst = max(worst, j - int(seeing[0]))
    return worst


def future_leak_exact(attn, X):
    base = np.asarray(attn(X), dtype=float)
    worst = 0
    for j in range(1, len(X)):
        moved = X.copy()
        moved[j] += 1.0
        change = np.abs(np.asarray(attn(moved), dtype=float) - base).max(axis=1)
        seeing = np.flatnonzero(change[:j] > 0)
        if seeing.size:
            worst = max(worst, j - int(seeing[0]))
    return worst


def future_leak_allclose(attn, X):
    base = np.asarray(attn(X), dtype=float)
    worst = 0
    for j in range(1, len(X)):
        moved = X.copy()
        moved[j] += 1.0
        out = np.asarray(attn(moved), dtype=float)
        for i in range(j):
            if not np.allclose(out[i], base[i]):
                worst = max(worst, j - i)
    return worst


def future_leak_next_only(attn, X):
    base = np.asarray(attn(X), dtype=float)
    tol = _leak_tol(base)
    for i in range(len(X) - 1):
        moved = X.copy()
        moved[i + 1] += 1.0
        if np.abs(np.asarray(attn(moved), dtype=float)[i] - base[i]).max() > tol:
            return 1
    return 0


def future_leak_tiny_nudge(attn, X):
    base = np.asarray(attn(X), dtype=float)
    tol = _leak_tol(base)
    worst = 0
    for j in range(1, len(X)):
        moved = X.copy()
        moved[j] += 1e-10
        change = np.abs(np.asarray(attn(moved), dtype=float) - base).max(axis=1)
        seeing = np.flatnonzero(change[:j] > tol)
        if seeing.size:
            worst = max(worst, j - int(seeing[0]))
    return worst


def future_leak_nearest(attn, X):
    base = np.asarray(attn(X), dtype=float)
    tol = _leak_tol(base)
    distances = []
    for j in range(1, len(X)):
        moved = X.copy()
        moved[j] += 1.0
        change = np.abs(np.asarray(attn(moved), dtype=float) - base).max(axis=1)
        seeing = np.flatnonzero(change[:j] > tol)
        if seeing.size:
            distances.append(j - int(seeing[-1]))
    return min(distances) if distances else 0


def future_leak_wrong_direction(attn, X):
    base = np.asarray(attn(X), dtype=float)
    tol = _leak_tol(base)
    worst = 0
    for j in range(len(X)):
        moved = X.copy()
        moved[j] += 1.0
        change = np.abs(np.asarray(attn(moved), dtype=float) - base).max(axis=1)
        later = np.flatnonzero(change[j + 1:] > tol)  # rows after the moved one: the past they may read
        if later.size:
            worst = max(worst, int(later[-1]) + 1)
    return worst


def future_leak_skips_last(attn, X):
    base = np.asarray(attn(X), dtype=float)
    tol = _leak_tol(base)
    worst = 0
    for j in range(1, len(X) - 1):
        moved = X.copy()
        moved[j] += 1.0
        change = np.abs(np.asarray(attn(moved), dtype=float) - base).max(axis=1)
        seeing = np.flatnonzero(change[:j] > tol)
        if seeing.size:
            worst = max(worst, j - int(seeing[0]))
    return worst


def future_leak_per_pair(attn, X):
    base = np.asarray(attn(X), dtype=float)
    scale = max(float(np.abs(base).max()), 1.0)
    worst = 0
    for j in range(len(X)):
        moved = np.array(X, dtype=float, copy=True)
        moved[j] = moved[j] + 1.0
        out = np.asarray(attn(moved), dtype=float)
        for i in range(j):
            if np.max(np.abs(out[i] - base[i])) > 1e-9 * scale:
                worst = max(worst, j - i)
    return worst


def future_leak_farthest_first(attn, X):
    n = len(X)
    base = np.asarray(attn(X), dtype=float)
    tol = 1e-9 * max(float(np.abs(base).max()), 1.0)
    outs = []
    for j in range(n):
        moved = X.copy()
        moved[j] += 1.0
        outs.append(np.abs(np.asarray(attn(moved), dtype=float) - base).max(axis=1))
    for k in range(n - 1, 0, -1):  # the largest distance first
        if any(outs[i + k][i] > tol for i in range(n - k)):
            return k
    return 0


# ================================================================================================================
# 07 tiled_attention(Q, K, V, causal=True, block=64): online softmax, one (block, block) tile at a time


def _key_positions_after(q_pos, k_pos):
    """True where key position k_pos is after query position q_pos (the causal mask of one tile)."""
    return k_pos[None, :] > q_pos[:, None]


def _online_step(m, lsum, acc, S, Vt):
    """Fold one tile of scores S (bq, bk) and its value rows Vt (bk, d_v) into the running m, lsum, acc."""
    m_new = np.maximum(m, S.max(axis=1, keepdims=True))
    P = np.exp(S - m_new)
    shrink = np.exp(m - m_new)  # the old sums were measured from the smaller max
    return m_new, lsum * shrink + P.sum(axis=1, keepdims=True), acc * shrink + P @ Vt


def _key_tiles(n_k, block):
    return range(0, n_k, block)


def _tiled(Q, K, V, causal, block, *, scale=None, first=None, future=_key_positions_after, step=_online_step,
           key_tiles=_key_tiles, m0=-np.inf):
    """The correct tiled attention; the keyword arguments are where the mistakes below differ."""
    n_q, n_k = len(Q), len(K)
    s = 1.0 / math.sqrt(Q.shape[1]) if scale is None else scale
    first = n_k - n_q if first is None else first  # the position of query 0
    dtype = np.result_type(Q, K, V)
    out = np.empty((n_q, V.shape[1]), dtype=dtype)
    for q0 in range(0, n_q, block):
        Qb = Q[q0:q0 + block] * s
        q_pos = first + q0 + np.arange(len(Qb))
        m = np.full((len(Qb), 1), m0, dtype=dtype)
        lsum = np.zeros((len(Qb), 1), dtype=dtype)
        acc = np.zeros((len(Qb), V.shape[1]), dtype=dtype)
        for k0 in key_tiles(n_k, block):
            S = Qb @ K[k0:k0 + block].T  # (bq, bk): one tile
            if causal:
                S = np.where(future(q_pos, k0 + np.arange(S.shape[1])), -np.inf, S)
            m, lsum, acc = step(m, lsum, acc, S, V[k0:k0 + block])
        out[q0:q0 + block] = acc / lsum
    return out


def tiled_attention_ref(Q, K, V, causal=True, block=64):
    return _tiled(Q, K, V, causal, block)


def _step_acc_not_shrunk(m, lsum, acc, S, Vt):
    m_new = np.maximum(m, S.max(axis=1, keepdims=True))
    P = np.exp(S - m_new)
    shrink = np.exp(m - m_new)
    return m_new, lsum * shrink + P.sum(axis=1, keepdims=True), acc + P @ Vt


def _step_l_not_shrunk(m, lsum, acc, S, Vt):
    m_new = np.maximum(m, S.max(axis=1, keepdims=True))
    P = np.exp(S - m_new)
    shrink = np.exp(m - m_new)
    return m_new, lsum + P.sum(axis=1, keepdims=True), acc * shrink + P @ Vt


def _step_shrink_inverted(m, lsum, acc, S, Vt):
    m_new = np.maximum(m, S.max(axis=1, keepdims=True))
    P = np.exp(S - m_new)
    shrink = np.exp(m_new - m)
    return m_new, lsum * shrink + P.sum(axis=1, keepdims=True), acc * shrink + P @ Vt


def _step_tile_max_only(m, lsum, acc, S, Vt):
    m_tile = S.max(axis=1, keepdims=True)
    P = np.exp(S - m_tile)  # measured from this tile's own max, not the running one
    m_new = np.maximum(m, m_tile)
    shrink = np.exp(m - m_new)
    return m_new, lsum * shrink + P.sum(axis=1, keepdims=True), acc * shrink + P @ Vt


def tiled_attention_acc_not_shrunk(Q, K, V, causal=True, block=64):
    return _tiled(Q, K, V, causal, block, step=_step_acc_not_shrunk)


def tiled_attention_l_not_shrunk(Q, K, V, causal=True, block=64):
    return _tiled(Q, K, V, causal, block, step=_step_l_not_shrunk)


def tiled_attention_shrink_inverted(Q, K, V, causal=True, block=64):
    return _tiled(Q, K, V, causal, block, step=_step_shrink_inverted)


def tiled_attention_tile_max(Q, K, V, causal=True, block=64):
    return _tiled(Q, K, V, causal, block, step=_step_tile_max_only)


def tiled_attention_unscaled(Q, K, V, causal=True, block=64):
    return _tiled(Q, K, V, causal, block, scale=1.0)


def tiled_attention_scale_one_over_d(Q, K, V, causal=True, block=64):
    return _tiled(Q, K, V, causal, block, scale=1.0 / Q.shape[1])


def tiled_attention_first_positions(Q, K, V, causal=True, block=64):
    return _tiled(Q, K, V, causal, block, first=0)


def tiled_attention_sees_next(Q, K, V, causal=True, block=64):
    return _tiled(Q, K, V, causal, block, future=lambda q_pos, k_pos: k_pos[None, :] > q_pos[:, None] + 1)


def tiled_attention_tile_local_mask(Q, K, V, causal=True, block=64):
    return _tiled(Q, K, V, causal, block,
                  future=lambda q_pos, k_pos: (k_pos - k_pos[0])[None, :] > (q_pos - q_pos[0])[:, None])


def tiled_attention_drops_last_tile(Q, K, V, causal=True, block=64):
    return _tiled(Q, K, V, causal, block, key_tiles=lambda n_k, b: range(0, n_k - b, b))


def tiled_attention_reversed_tiles(Q, K, V, causal=True, block=64):
    return _tiled(Q, K, V, causal, block, key_tiles=lambda n_k, b: reversed(range(0, n_k, b)))


def tiled_attention_max_from_zero(Q, K, V, causal=True, block=64):
    return _tiled(Q, K, V, causal, block, m0=0.0)


def tiled_attention_always_causal(Q, K, V, causal=True, block=64):
    return _tiled(Q, K, V, True, block)


def tiled_attention_strip(Q, K, V, causal=True, block=64):
    n_q, n_k = len(Q), len(K)
    out = np.empty((n_q, V.shape[1]), dtype=np.result_type(Q, K, V))
    for q0 in range(0, n_q, block):
        S = Q[q0:q0 + block] @ K.T / math.sqrt(Q.shape[1])  # (bq, n_k): a strip against every key
        if causal:
            S = np.where(np.arange(n_k)[None, :] > (n_k - n_q + q0 + np.arange(len(S)))[:, None], -np.inf, S)
        out[q0:q0 + block] = _softmax(S) @ V
    return out


def tiled_attention_1d_running(Q, K, V, causal=True, block=64):
    n_q, n_k, d = Q.shape[0], K.shape[0], Q.shape[1]
    offset = n_k - n_q
    out = np.zeros((n_q, V.shape[1]), dtype=np.result_type(Q, K, V))
    qs = 0
    while qs < n_q:
        qe = min(qs + block, n_q)
        m = np.full(qe - qs, -np.inf)
        lsum = np.zeros(qe - qs)
        acc = np.zeros((qe - qs, V.shape[1]))
        last_key = offset + qe if causal else n_k  # keys from here on are in every query's future
        ks = 0
        while ks < last_key:
            ke = min(ks + block, last_key)
            S = (Q[qs:qe] @ K[ks:ke].T) / math.sqrt(d)
            if causal:
                hide = np.arange(ks, ke)[None, :] > (offset + np.arange(qs, qe))[:, None]
                S[hide] = -np.inf
            m_new = np.maximum(m, S.max(axis=1))
            P = np.exp(S - m_new[:, None])
            alpha = np.exp(m - m_new)
            lsum = alpha * lsum + P.sum(axis=1)
            acc = alpha[:, None] * acc + P @ V[ks:ke]
            m = m_new
            ks = ke
        out[qs:qe] = acc / lsum[:, None]
        qs = qe
    return out


def tiled_attention_copyto(Q, K, V, causal=True, block=64):
    n_q, n_k = len(Q), len(K)
    c = 1.0 / np.sqrt(Q.shape[1])
    out = np.zeros((n_q, V.shape[1]), dtype=np.result_type(Q, K, V))
    for q0 in range(0, n_q, block):
        q1 = min(q0 + block, n_q)
        m = np.full((q1 - q0, 1), -np.inf)
        lsum = np.zeros((q1 - q0, 1))
        acc = np.zeros((q1 - q0, V.shape[1]))
        for k0 in range(0, n_k, block):
            k1 = min(k0 + block, n_k)
            S = Q[q0:q1] @ K[k0:k1].T
            S *= c  # the scale on the tile of scores
            if causal:
                future = np.arange(k0, k1)[None, :] - np.arange(q0, q1)[:, None] > n_k - n_q
                np.copyto(S, -np.inf, where=future)
            m_new = np.maximum(m, np.max(S, axis=1, keepdims=True))
            E = np.exp(S - m_new)
            r = np.exp(m - m_new)
            lsum, acc, m = r * lsum + E.sum(axis=1, keepdims=True), r * acc + E @ V[k0:k1], m_new
        out[q0:q1] = acc / lsum
    return out


# ================================================================================================================
# 08 sinusoidal_positions(n, d)


def _pair_angles(n, d):
    return np.arange(n)[:, None] / 10000 ** (np.arange(0, d, 2) / d)  # (n, d / 2)


def _interleave(sines, cosines):
    P = np.zeros((sines.shape[0], 2 * sines.shape[1]))
    P[:, 0::2], P[:, 1::2] = sines, cosines
    return P


def sinusoidal_positions_ref(n, d):
    a = _pair_angles(n, d)
    return _interleave(np.sin(a), np.cos(a))


def sinusoidal_positions_swapped(n, d):
    a = _pair_angles(n, d)
    return _interleave(np.cos(a), np.sin(a))


def sinusoidal_positions_half_exponent(n, d):
    a = np.arange(n)[:, None] / 10000 ** (np.arange(d // 2) / d)
    return _interleave(np.sin(a), np.cos(a))


def sinusoidal_positions_column_exponent(n, d):
    a = np.arange(n)[:, None] / 10000 ** (np.arange(d) / d)  # (n, d): each column its own frequency
    return _interleave(np.sin(a[:, 0::2]), np.cos(a[:, 1::2]))


def sinusoidal_positions_halves(n, d):
    a = _pair_angles(n, d)
    return np.concatenate([np.sin(a), np.cos(a)], axis=1)


def sinusoidal_positions_from_one(n, d):
    a = np.arange(1, n + 1)[:, None] / 10000 ** (np.arange(0, d, 2) / d)
    return _interleave(np.sin(a), np.cos(a))


def sinusoidal_positions_times(n, d):
    a = np.arange(n)[:, None] * 10000 ** (np.arange(0, d, 2) / d)
    return _interleave(np.sin(a), np.cos(a))


def sinusoidal_positions_floor_division(n, d):
    a = np.arange(n)[:, None] / 10000 ** (np.arange(0, d, 2) // d)
    return _interleave(np.sin(a), np.cos(a))


def sinusoidal_positions_transposed(n, d):
    a = _pair_angles(n, d)
    return _interleave(np.sin(a), np.cos(a)).T


def sinusoidal_positions_loop(n, d):
    P = np.empty((n, d))
    for t in range(n):
        for i in range(d // 2):
            w = t / 10000 ** (2 * i / d)
            P[t, 2 * i], P[t, 2 * i + 1] = math.sin(w), math.cos(w)
    return P


def sinusoidal_positions_exp_log(n, d):
    freq = np.exp(-math.log(10000.0) * np.arange(0, d, 2) / d)  # (d / 2,)
    a = np.outer(np.arange(n), freq)
    return np.stack([np.sin(a), np.cos(a)], axis=-1).reshape(n, d)


# ================================================================================================================
# 09 split_heads(M, n_heads)


def split_heads_ref(M, n_heads):
    n, d_model = M.shape
    return M.reshape(n, n_heads, d_model // n_heads).transpose(1, 0, 2)


def split_heads_plain_reshape(M, n_heads):
    n, d_model = M.shape
    return M.reshape(n_heads, n, d_model // n_heads)


def split_heads_strided(M, n_heads):
    n, d_model = M.shape
    return M.reshape(n, d_model // n_heads, n_heads).transpose(2, 0, 1)


def split_heads_no_transpose(M, n_heads):
    n, d_model = M.shape
    return M.reshape(n, n_heads, d_model // n_heads)


def split_heads_features_first(M, n_heads):
    n, d_model = M.shape
    return M.reshape(n, n_heads, d_model // n_heads).transpose(1, 2, 0)


def split_heads_sets_shape(M, n_heads):
    n, d_model = M.shape
    M.shape = (n, n_heads, d_model // n_heads)
    return M.transpose(1, 0, 2)


def split_heads_short_slices(M, n_heads):
    d_head = M.shape[1] // n_heads
    return np.stack([M[:, h * d_head:(h + 1) * d_head - 1] for h in range(n_heads)])


def split_heads_rows(M, n_heads):
    return np.stack(np.split(M, n_heads, axis=0))


def split_heads_reversed(M, n_heads):
    n, d_model = M.shape
    return M.reshape(n, n_heads, d_model // n_heads).transpose(1, 0, 2)[::-1]


def split_heads_slices(M, n_heads):
    d_head = M.shape[1] // n_heads
    return np.stack([M[:, h * d_head:(h + 1) * d_head] for h in range(n_heads)])


def split_heads_np_split(M, n_heads):
    return np.array(np.split(M, n_heads, axis=1))


def split_heads_swapaxes(M, n_heads):
    return np.swapaxes(M.reshape(M.shape[0], n_heads, -1), 0, 1).copy()


# ================================================================================================================
# 11 cross_entropy(logits, targets) -> (loss, dlogits)


def cross_entropy_ref(logits, targets):
    n = len(targets)
    logp = _log_softmax(logits)
    loss = -logp[np.arange(n), targets].mean()
    dlogits = np.exp(logp)
    dlogits[np.arange(n), targets] -= 1.0
    return loss, dlogits / n


def cross_entropy_grad_not_averaged(logits, targets):
    n = len(targets)
    logp = _log_softmax(logits)
    loss = -logp[np.arange(n), targets].mean()
    dlogits = np.exp(logp)
    dlogits[np.arange(n), targets] -= 1.0
    return loss, dlogits


def cross_entropy_summed(logits, targets):
    n = len(targets)
    logp = _log_softmax(logits)
    loss = -logp[np.arange(n), targets].sum()
    dlogits = np.exp(logp)
    dlogits[np.arange(n), targets] -= 1.0
    return loss, dlogits / n


def cross_entropy_divided_twice(logits, targets):
    n = len(targets)
    logp = _log_softmax(logits)
    loss = -logp[np.arange(n), targets].mean()
    dlogits = np.exp(logp) / n
    dlogits[np.arange(n), targets] -= 1.0 / n
    return loss, dlogits / n


def cross_entropy_log_of_probs(logits, targets):
    n = len(targets)
    P = _softmax(logits)
    loss = -np.log(P[np.arange(n), targets]).mean()
    dlogits = P.copy()
    dlogits[np.arange(n), targets] -= 1.0
    return loss, dlogits / n


def cross_entropy_no_max(logits, targets):
    n = len(targets)
    E = np.exp(logits)
    logp = logits - np.log(E.sum(axis=1, keepdims=True))
    loss = -logp[np.arange(n), targets].mean()
    dlogits = E / E.sum(axis=1, keepdims=True)
    dlogits[np.arange(n), targets] -= 1.0
    return loss, dlogits / n


def cross_entropy_axis0(logits, targets):
    n = len(targets)
    Z = logits - logits.max(axis=0, keepdims=True)
    logp = Z - np.log(np.exp(Z).sum(axis=0, keepdims=True))
    loss = -logp[np.arange(n), targets].mean()
    dlogits = np.exp(logp)
    dlogits[np.arange(n), targets] -= 1.0
    return loss, dlogits / n


def cross_entropy_column_fancy_index(logits, targets):
    n = len(targets)
    logp = _log_softmax(logits)
    loss = -logp[np.arange(n), targets].mean()
    dlogits = np.exp(logp)
    dlogits[:, targets] -= 1.0
    return loss, dlogits / n


def cross_entropy_in_place_shift(logits, targets):
    n = len(targets)
    logits -= logits.max(axis=1, keepdims=True)
    logp = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
    loss = -logp[np.arange(n), targets].mean()
    dlogits = np.exp(logp)
    dlogits[np.arange(n), targets] -= 1.0
    return loss, dlogits / n


def cross_entropy_swapped(logits, targets):
    loss, dlogits = cross_entropy_ref(logits, targets)
    return dlogits, loss


def cross_entropy_sign(logits, targets):
    n = len(targets)
    logp = _log_softmax(logits)
    loss = -logp[np.arange(n), targets].mean()
    dlogits = -np.exp(logp)
    dlogits[np.arange(n), targets] += 1.0
    return loss, dlogits / n


def cross_entropy_bits(logits, targets):
    n = len(targets)
    logp = _log_softmax(logits)
    loss = -(logp[np.arange(n), targets] / np.log(2.0)).mean()
    dlogits = np.exp(logp)
    dlogits[np.arange(n), targets] -= 1.0
    return loss, dlogits / n


def cross_entropy_lse_without_max(logits, targets):
    n = len(targets)
    m = logits.max(axis=1, keepdims=True)
    lse = np.log(np.exp(logits - m).sum(axis=1))  # the max is never added back
    loss = (lse - logits[np.arange(n), targets]).mean()
    dlogits = _softmax(logits)
    dlogits[np.arange(n), targets] -= 1.0
    return loss, dlogits / n


def cross_entropy_mean_over_entries(logits, targets):
    n, vocab = logits.shape
    Y = np.zeros((n, vocab))
    Y[np.arange(n), targets] = 1.0
    logp = _log_softmax(logits)
    loss = -(Y * logp).mean()
    return loss, (np.exp(logp) - Y) / n


def cross_entropy_logaddexp(logits, targets):
    n = logits.shape[0]
    lse = np.logaddexp.reduce(logits, axis=1)  # (n,)
    loss = np.mean(lse - logits[np.arange(n), targets])
    Y = np.eye(logits.shape[1])[targets]
    return loss, (np.exp(logits - lse[:, None]) - Y) / n


def cross_entropy_rows(logits, targets):
    n = len(targets)
    losses, grads = [], []
    for z, t in zip(logits, targets):
        z = z - z.max()
        logz = math.log(np.exp(z).sum())
        losses.append(logz - z[t])
        g = np.exp(z - logz)
        g[t] -= 1.0
        grads.append(g / n)
    return np.mean(losses), np.array(grads)


# ================================================================================================================
# 11 attention_backward(Q, K, V, dO, causal=True, scale=True) -> (dQ, dK, dV)


def attention_backward_ref(Q, K, V, dO, causal=True, scale=True):
    s = 1.0 / math.sqrt(Q.shape[1]) if scale else 1.0
    A = _weights(Q, K, causal, scale)
    dS = _softmax_backward(A, dO @ V.T) * s
    return dS @ K, dS.T @ Q, A.T @ dO


def attention_backward_no_scale(Q, K, V, dO, causal=True, scale=True):
    A = _weights(Q, K, causal, scale)
    dS = _softmax_backward(A, dO @ V.T)
    return dS @ K, dS.T @ Q, A.T @ dO


def attention_backward_scale_twice(Q, K, V, dO, causal=True, scale=True):
    s = 1.0 / math.sqrt(Q.shape[1]) if scale else 1.0
    A = _weights(Q, K, causal, scale)
    dS = _softmax_backward(A, dO @ V.T) * s
    return dS @ K * s, dS.T @ Q * s, A.T @ dO


def attention_backward_dv_no_transpose(Q, K, V, dO, causal=True, scale=True):
    s = 1.0 / math.sqrt(Q.shape[1]) if scale else 1.0
    A = _weights(Q, K, causal, scale)
    dS = _softmax_backward(A, dO @ V.T) * s
    return dS @ K, dS.T @ Q, A @ dO


def attention_backward_dk_no_transpose(Q, K, V, dO, causal=True, scale=True):
    s = 1.0 / math.sqrt(Q.shape[1]) if scale else 1.0
    A = _weights(Q, K, causal, scale)
    dS = _softmax_backward(A, dO @ V.T) * s
    return dS @ K, dS @ Q, A.T @ dO


def attention_backward_elementwise_softmax(Q, K, V, dO, causal=True, scale=True):
    s = 1.0 / math.sqrt(Q.shape[1]) if scale else 1.0
    A = _weights(Q, K, causal, scale)
    dS = A * (dO @ V.T) * s
    return dS @ K, dS.T @ Q, A.T @ dO


def attention_backward_softmax_axis0(Q, K, V, dO, causal=True, scale=True):
    s = 1.0 / math.sqrt(Q.shape[1]) if scale else 1.0
    A = _weights(Q, K, causal, scale)
    dA = dO @ V.T
    dS = A * (dA - (dA * A).sum(axis=0, keepdims=True)) * s
    return dS @ K, dS.T @ Q, A.T @ dO


def attention_backward_no_mask(Q, K, V, dO, causal=True, scale=True):
    s = 1.0 / math.sqrt(Q.shape[1]) if scale else 1.0
    A = _weights(Q, K, False, scale)
    dS = _softmax_backward(A, dO @ V.T) * s
    return dS @ K, dS.T @ Q, A.T @ dO


def attention_backward_mask_from_corner(Q, K, V, dO, causal=True, scale=True):
    s = 1.0 / math.sqrt(Q.shape[1]) if scale else 1.0
    S = Q @ K.T * s
    if causal:
        S = S + np.triu(np.full(S.shape, -np.inf), k=1)  # as if the queries were the first positions
    A = _softmax(S)
    dS = _softmax_backward(A, dO @ V.T) * s
    return dS @ K, dS.T @ Q, A.T @ dO


def attention_backward_scale_one_over_d(Q, K, V, dO, causal=True, scale=True):
    s = 1.0 / Q.shape[1] if scale else 1.0
    S = Q @ K.T * s
    A = _softmax(S + _mask(len(Q), len(K)) if causal else S)
    dS = _softmax_backward(A, dO @ V.T) * s
    return dS @ K, dS.T @ Q, A.T @ dO


def attention_backward_always_scaled(Q, K, V, dO, causal=True, scale=True):
    s = 1.0 / math.sqrt(Q.shape[1])
    A = _weights(Q, K, causal, True)
    dS = _softmax_backward(A, dO @ V.T) * s
    return dS @ K, dS.T @ Q, A.T @ dO


def attention_backward_always_causal(Q, K, V, dO, causal=True, scale=True):
    s = 1.0 / math.sqrt(Q.shape[1]) if scale else 1.0
    A = _weights(Q, K, True, scale)
    dS = _softmax_backward(A, dO @ V.T) * s
    return dS @ K, dS.T @ Q, A.T @ dO


def attention_backward_order(Q, K, V, dO, causal=True, scale=True):
    s = 1.0 / math.sqrt(Q.shape[1]) if scale else 1.0
    A = _weights(Q, K, causal, scale)
    dS = _softmax_backward(A, dO @ V.T) * s
    return dS @ K, A.T @ dO, dS.T @ Q


def attention_backward_da_transposed(Q, K, V, dO, causal=True, scale=True):
    s = 1.0 / math.sqrt(Q.shape[1]) if scale else 1.0
    A = _weights(Q, K, causal, scale)
    dS = _softmax_backward(A, V @ dO.T) * s
    return dS @ K, dS.T @ Q, A.T @ dO


def attention_backward_jacobian_rows(Q, K, V, dO, causal=True, scale=True):
    s = 1.0 / np.sqrt(Q.shape[1]) if scale else 1.0
    A = _weights(Q, K, causal, scale)
    dA = dO @ V.T
    dS = np.empty_like(A)
    for i, a in enumerate(A):
        J = np.diag(a) - np.outer(a, a)  # d softmax / d scores for one row
        dS[i] = J @ dA[i]
    dS *= s
    return dS @ K, dS.T @ Q, A.T @ dO


def attention_backward_einsum(Q, K, V, dO, causal=True, scale=True):
    s = 1.0 / math.sqrt(Q.shape[1]) if scale else 1.0
    S = np.einsum("id,jd->ij", Q * s, K)
    if causal:
        S = np.where(_future(*S.shape), -np.inf, S)
    A = _softmax(S)
    dV = np.einsum("ij,iv->jv", A, dO)
    dA = np.einsum("iv,jv->ij", dO, V)
    dS = A * (dA - np.einsum("ij,ij->i", dA, A)[:, None])
    return np.einsum("ij,jd->id", dS, K) * s, np.einsum("ij,id->jd", dS, Q) * s, dV


# ================================================================================================================
# 11 layer_norm_backward(X, g, dY, eps=1e-5) -> (dX, dg, db)


def layer_norm_backward_ref(X, g, dY, eps=1e-5):
    rstd = 1.0 / np.sqrt(X.var(axis=1, keepdims=True) + eps)
    Xhat = (X - X.mean(axis=1, keepdims=True)) * rstd
    dXhat = dY * g
    dX = rstd * (dXhat - dXhat.mean(axis=1, keepdims=True) - Xhat * (dXhat * Xhat).mean(axis=1, keepdims=True))
    return dX, (dY * Xhat).sum(axis=0), dY.sum(axis=0)


def layer_norm_backward_no_xhat_term(X, g, dY, eps=1e-5):
    rstd = 1.0 / np.sqrt(X.var(axis=1, keepdims=True) + eps)
    Xhat = (X - X.mean(axis=1, keepdims=True)) * rstd
    dXhat = dY * g
    dX = rstd * (dXhat - dXhat.mean(axis=1, keepdims=True))
    return dX, (dY * Xhat).sum(axis=0), dY.sum(axis=0)


def layer_norm_backward_no_mean_term(X, g, dY, eps=1e-5):
    rstd = 1.0 / np.sqrt(X.var(axis=1, keepdims=True) + eps)
    Xhat = (X - X.mean(axis=1, keepdims=True)) * rstd
    dXhat = dY * g
    dX = rstd * (dXhat - Xhat * (dXhat * Xhat).mean(axis=1, keepdims=True))
    return dX, (dY * Xhat).sum(axis=0), dY.sum(axis=0)


def layer_norm_backward_unbiased(X, g, dY, eps=1e-5):
    rstd = 1.0 / np.sqrt(X.var(axis=1, ddof=1, keepdims=True) + eps)
    Xhat = (X - X.mean(axis=1, keepdims=True)) * rstd
    dXhat = dY * g
    dX = rstd * (dXhat - dXhat.mean(axis=1, keepdims=True) - Xhat * (dXhat * Xhat).mean(axis=1, keepdims=True))
    return dX, (dY * Xhat).sum(axis=0), dY.sum(axis=0)


def layer_norm_backward_eps_outside(X, g, dY, eps=1e-5):
    rstd = 1.0 / (X.std(axis=1, keepdims=True) + eps)
    Xhat = (X - X.mean(axis=1, keepdims=True)) * rstd
    dXhat = dY * g
    dX = rstd * (dXhat - dXhat.mean(axis=1, keepdims=True) - Xhat * (dXhat * Xhat).mean(axis=1, keepdims=True))
    return dX, (dY * Xhat).sum(axis=0), dY.sum(axis=0)


def layer_norm_backward_no_gain(X, g, dY, eps=1e-5):
    rstd = 1.0 / np.sqrt(X.var(axis=1, keepdims=True) + eps)
    Xhat = (X - X.mean(axis=1, keepdims=True)) * rstd
    dXhat = dY
    dX = rstd * (dXhat - dXhat.mean(axis=1, keepdims=True) - Xhat * (dXhat * Xhat).mean(axis=1, keepdims=True))
    return dX, (dY * Xhat).sum(axis=0), dY.sum(axis=0)


def layer_norm_backward_dg_raw_x(X, g, dY, eps=1e-5):
    rstd = 1.0 / np.sqrt(X.var(axis=1, keepdims=True) + eps)
    Xhat = (X - X.mean(axis=1, keepdims=True)) * rstd
    dXhat = dY * g
    dX = rstd * (dXhat - dXhat.mean(axis=1, keepdims=True) - Xhat * (dXhat * Xhat).mean(axis=1, keepdims=True))
    return dX, (dY * X).sum(axis=0), dY.sum(axis=0)


def layer_norm_backward_param_axis1(X, g, dY, eps=1e-5):
    rstd = 1.0 / np.sqrt(X.var(axis=1, keepdims=True) + eps)
    Xhat = (X - X.mean(axis=1, keepdims=True)) * rstd
    dXhat = dY * g
    dX = rstd * (dXhat - dXhat.mean(axis=1, keepdims=True) - Xhat * (dXhat * Xhat).mean(axis=1, keepdims=True))
    return dX, (dY * Xhat).sum(axis=1), dY.sum(axis=1)


def layer_norm_backward_db_mean(X, g, dY, eps=1e-5):
    rstd = 1.0 / np.sqrt(X.var(axis=1, keepdims=True) + eps)
    Xhat = (X - X.mean(axis=1, keepdims=True)) * rstd
    dXhat = dY * g
    dX = rstd * (dXhat - dXhat.mean(axis=1, keepdims=True) - Xhat * (dXhat * Xhat).mean(axis=1, keepdims=True))
    return dX, (dY * Xhat).sum(axis=0), dY.mean(axis=0)


def layer_norm_backward_constant_stats(X, g, dY, eps=1e-5):
    rstd = 1.0 / np.sqrt(X.var(axis=1, keepdims=True) + eps)
    Xhat = (X - X.mean(axis=1, keepdims=True)) * rstd
    dX = dY * g * rstd  # as if the mean and the variance did not depend on X
    return dX, (dY * Xhat).sum(axis=0), dY.sum(axis=0)


def layer_norm_backward_sums(X, g, dY, eps=1e-5):
    rstd = 1.0 / np.sqrt(X.var(axis=1, keepdims=True) + eps)
    Xhat = (X - X.mean(axis=1, keepdims=True)) * rstd
    dXhat = dY * g
    dX = rstd * (dXhat - dXhat.sum(axis=1, keepdims=True) - Xhat * (dXhat * Xhat).sum(axis=1, keepdims=True))
    return dX, (dY * Xhat).sum(axis=0), dY.sum(axis=0)


def layer_norm_backward_order(X, g, dY, eps=1e-5):
    dX, dg, db = layer_norm_backward_ref(X, g, dY, eps)
    return dX, db, dg


def layer_norm_backward_in_place(X, g, dY, eps=1e-5):
    rstd = 1.0 / np.sqrt(X.var(axis=1, keepdims=True) + eps)
    Xhat = (X - X.mean(axis=1, keepdims=True)) * rstd
    db = dY.sum(axis=0)
    dg = (dY * Xhat).sum(axis=0)
    dXhat = dY
    dXhat *= g  # scales the caller's dY
    dX = rstd * (dXhat - dXhat.mean(axis=1, keepdims=True) - Xhat * (dXhat * Xhat).mean(axis=1, keepdims=True))
    return dX, dg, db


def layer_norm_backward_one_line(X, g, dY, eps=1e-5):
    d = X.shape[1]
    std = np.sqrt(X.var(axis=1, keepdims=True) + eps)
    Xhat = (X - X.mean(axis=1, keepdims=True)) / std
    dXhat = dY * g
    dX = (d * dXhat - dXhat.sum(axis=1, keepdims=True) - Xhat * (dXhat * Xhat).sum(axis=1, keepdims=True)) / (d * std)
    return dX, np.sum(dY * Xhat, axis=0), np.sum(dY, axis=0)


def layer_norm_backward_chain_rule(X, g, dY, eps=1e-5):
    d = X.shape[1]
    mu = X.mean(axis=1, keepdims=True)
    Xc = X - mu
    var = (Xc ** 2).sum(axis=1, keepdims=True) / d
    inv = (var + eps) ** -0.5
    dXhat = dY * g
    dvar = (dXhat * Xc).sum(axis=1, keepdims=True) * -0.5 * inv ** 3
    dmu = -(dXhat * inv).sum(axis=1, keepdims=True) + dvar * (-2.0 * Xc).sum(axis=1, keepdims=True) / d
    dX = dXhat * inv + dvar * 2.0 * Xc / d + dmu / d
    return dX, (dY * Xc * inv).sum(axis=0), dY.sum(axis=0)


# ================================================================================================================
# 12 attention_entropy(A)


def attention_entropy_ref(A):
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(A > 0, A * np.log(A), 0.0)
    return -terms.sum(axis=1)


def attention_entropy_bits(A):
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(A > 0, A * np.log2(A), 0.0)
    return -terms.sum(axis=1)


def attention_entropy_clipped(A):
    C = np.clip(A, 1e-6, 1.0)
    return -(C * np.log(C)).sum(axis=1)


def attention_entropy_nan(A):
    with np.errstate(divide="ignore", invalid="ignore"):
        return -(A * np.log(A)).sum(axis=1)


def attention_entropy_axis0(A):
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(A > 0, A * np.log(A), 0.0)
    return -terms.sum(axis=0)


def attention_entropy_mean(A):
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(A > 0, A * np.log(A), 0.0)
    return -terms.mean(axis=1)


def attention_entropy_no_minus(A):
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(A > 0, A * np.log(A), 0.0)
    return terms.sum(axis=1)


def attention_entropy_flattened(A):
    a = A[A > 0]
    return -(a * np.log(a)).sum()


def attention_entropy_log1p(A):
    return -(A * np.log1p(A)).sum(axis=1)


def attention_entropy_normalised(A):
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(A > 0, A * np.log(A), 0.0)
    return -terms.sum(axis=1) / np.log(A.shape[1])


def attention_entropy_safe_log(A):
    return -(A * np.log(np.where(A > 0, A, 1.0))).sum(axis=1)


def attention_entropy_rows(A):
    out = np.zeros(A.shape[0])
    for i, row in enumerate(A):
        p = row[row > 0]
        out[i] = -np.dot(p, np.log(p))
    return out


# ================================================================================================================
# 13 padding_mask(n_q, n_valid, n_k)


def padding_mask_ref(n_q, n_valid, n_k):
    M = np.zeros((n_q, n_k))
    M[:, n_valid:] = -np.inf
    return M


def padding_mask_one_late(n_q, n_valid, n_k):
    M = np.zeros((n_q, n_k))
    M[:, n_valid + 1:] = -np.inf
    return M


def padding_mask_one_early(n_q, n_valid, n_k):
    M = np.zeros((n_q, n_k))
    M[:, n_valid - 1:] = -np.inf
    return M


def padding_mask_transposed(n_q, n_valid, n_k):
    M = np.zeros((n_k, n_q))
    M[n_valid:] = -np.inf
    return M


def padding_mask_inverted(n_q, n_valid, n_k):
    M = np.zeros((n_q, n_k))
    M[:, :n_valid] = -np.inf
    return M


def padding_mask_bool(n_q, n_valid, n_k):
    return np.tile(np.arange(n_k) >= n_valid, (n_q, 1))


def padding_mask_big_negative(n_q, n_valid, n_k):
    M = np.zeros((n_q, n_k))
    M[:, n_valid:] = -1e9
    return M


def padding_mask_multiplicative(n_q, n_valid, n_k):
    M = np.ones((n_q, n_k))
    M[:, n_valid:] = 0.0
    return M


def padding_mask_plus_causal(n_q, n_valid, n_k):
    M = np.zeros((n_q, n_k))
    M[:, n_valid:] = -np.inf
    return M + _mask(n_q, n_k)


def padding_mask_one_row(n_q, n_valid, n_k):
    m = np.zeros(n_k)
    m[n_valid:] = -np.inf
    return m


def padding_mask_where(n_q, n_valid, n_k):
    row = np.where(np.arange(n_k) < n_valid, 0.0, -np.inf)
    return np.repeat(row[None, :], n_q, axis=0)


def padding_mask_full(n_q, n_valid, n_k):
    M = np.full((n_q, n_k), -np.inf)
    M[:, :n_valid] = 0.0
    return M


# ================================================================================================================
# 14 sample_next(logits, temperature, u)


def _first_above(p, u):
    """The first index whose running total of p is greater than u (the total scaled to end at exactly 1)."""
    cdf = np.cumsum(p)
    cdf /= cdf[-1]
    return int(np.searchsorted(cdf, u, side="right"))


def _tempered(logits, temperature):
    z = np.asarray(logits, dtype=float)
    return _softmax((z - z.max()) / temperature)


def sample_next_ref(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    return _first_above(_tempered(logits, temperature), u)


def sample_next_ignores_temperature(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    return _first_above(_softmax(np.asarray(logits, dtype=float)), u)


def sample_next_times_temperature(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    z = np.asarray(logits, dtype=float)
    return _first_above(_softmax((z - z.max()) * temperature), u)


def sample_next_at_least_u(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    cdf = np.cumsum(_tempered(logits, temperature))
    cdf /= cdf[-1]
    return int(np.searchsorted(cdf, u, side="left"))


def sample_next_each_probability(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    return int(np.argmax(_tempered(logits, temperature) > u))


def sample_next_no_greedy_case(logits, temperature, u):
    with np.errstate(divide="ignore", invalid="ignore"):
        return _first_above(_tempered(logits, temperature), u)


def sample_next_no_max(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    e = np.exp(np.asarray(logits, dtype=float) / temperature)
    return _first_above(e / e.sum(), u)


def sample_next_numpy_int(logits, temperature, u):
    if temperature == 0:
        return np.argmax(logits)
    cdf = np.cumsum(_tempered(logits, temperature))
    cdf /= cdf[-1]
    return np.searchsorted(cdf, u, side="right")


def sample_next_uniform(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    return int(u * len(logits))


def sample_next_one_before(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    cdf = np.cumsum(_tempered(logits, temperature))
    cdf /= cdf[-1]
    return max(int(np.sum(cdf <= u)) - 1, 0)


def sample_next_power_sharpening(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    p = _softmax(np.asarray(logits, dtype=float)) ** (1.0 / temperature)
    with np.errstate(invalid="ignore"):
        return _first_above(p / p.sum(), u)


def sample_next_unguarded_total(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    cdf = np.cumsum(_tempered(logits, temperature))  # the last total may round to just below 1
    return int(np.searchsorted(cdf, u, side="right"))


def sample_next_last_of_ties(logits, temperature, u):
    if temperature == 0:
        z = np.asarray(logits)
        return int(np.flatnonzero(z == z.max())[-1])
    return _first_above(_tempered(logits, temperature), u)


def sample_next_loop(logits, temperature, u):
    z = np.array(logits, dtype=float)
    if temperature <= 0:
        return int(np.argmax(z))
    w = np.exp((z - np.max(z)) / temperature)
    p = w / w.sum()
    total = 0.0
    for i, pi in enumerate(p):
        total += pi
        if total > u:
            return i
    return int(np.flatnonzero(p > 0)[-1])  # rounding left the total at or below u: the last possible token


def sample_next_log_space(logits, temperature, u):
    if not temperature:
        return int(np.argmax(logits))
    z = np.asarray(logits, dtype=np.float64) / temperature
    with np.errstate(invalid="ignore"):
        logp = z - z.max()
    logp -= np.log(np.exp(logp).sum())
    cdf = np.cumsum(np.exp(logp))
    return int(np.argmax(cdf / cdf[-1] > u))


# ================================================================================================================
# 14 generate(p, prompt, n_new, cache_step)


def _row(p, t, i):
    """The input row of token t at position i."""
    return p["tok_emb"][t] + p["pos_emb"][i]


def _qkv(p, x):
    return x @ p["Wq"], x @ p["Wk"], x @ p["Wv"]


def _next_logits(p, x, o):
    return (x + o) @ p["W_out"]


def _empty_caches(p):
    d = p["tok_emb"].shape[1]
    return np.zeros((0, d)), np.zeros((0, p["Wv"].shape[1]))


def _generate(p, prompt, n_new, cache_step, *, row=_row, qkv=_qkv, logits=_next_logits, caches=_empty_caches):
    """The correct loop; the keyword arguments are where the mistakes below differ."""
    seq = [int(t) for t in prompt]
    K, V = caches(p)
    for i in range(len(prompt) + n_new - 1):
        x = row(p, seq[i], i)
        q, k, v = qkv(p, x)
        o, K, V = cache_step(q, k, v, K, V)
        if i >= len(prompt) - 1:  # the last prompt token and every new one predict the next
            seq.append(int(np.argmax(logits(p, x, o))))
    return np.array(seq, dtype=int)


def generate_ref(p, prompt, n_new, cache_step):
    return _generate(p, prompt, n_new, cache_step)


def generate_positions_from_one(p, prompt, n_new, cache_step):
    return _generate(p, prompt, n_new, cache_step, row=lambda p, t, i: p["tok_emb"][t] + p["pos_emb"][i + 1])


def generate_no_residual(p, prompt, n_new, cache_step):
    return _generate(p, prompt, n_new, cache_step, logits=lambda p, x, o: o @ p["W_out"])


def generate_skips_attention(p, prompt, n_new, cache_step):
    return _generate(p, prompt, n_new, cache_step, logits=lambda p, x, o: x @ p["W_out"])


def _row_in_place(p, t, i):
    x = p["tok_emb"][t]  # a view of the table's row
    x += p["pos_emb"][i]
    return x


def generate_edits_table(p, prompt, n_new, cache_step):
    return _generate(p, prompt, n_new, cache_step, row=_row_in_place)


def generate_zero_row_cache(p, prompt, n_new, cache_step):
    d = p["tok_emb"].shape[1]
    return _generate(p, prompt, n_new, cache_step, caches=lambda p: (np.zeros((1, d)), np.zeros((1, d))))


def generate_q_k_swapped(p, prompt, n_new, cache_step):
    return _generate(p, prompt, n_new, cache_step, qkv=lambda p, x: (x @ p["Wk"], x @ p["Wq"], x @ p["Wv"]))


def generate_torch_weights(p, prompt, n_new, cache_step):
    return _generate(p, prompt, n_new, cache_step, qkv=lambda p, x: (p["Wq"] @ x, p["Wk"] @ x, p["Wv"] @ x))


def generate_feeds_last(p, prompt, n_new, cache_step):
    seq = [int(t) for t in prompt]
    K, V = _empty_caches(p)
    for i in range(len(prompt) + n_new):
        x = _row(p, seq[i], i)
        q, k, v = _qkv(p, x)
        o, K, V = cache_step(q, k, v, K, V)
        if len(prompt) - 1 <= i < len(prompt) + n_new - 1:
            seq.append(int(np.argmax(_next_logits(p, x, o))))
    return np.array(seq, dtype=int)


def generate_from_scratch(p, prompt, n_new, cache_step):
    seq = [int(t) for t in prompt]
    for _ in range(n_new):
        K, V = _empty_caches(p)  # a fresh cache for every new token: the whole sequence again
        for i, t in enumerate(seq):
            x = _row(p, t, i)
            q, k, v = _qkv(p, x)
            o, K, V = cache_step(q, k, v, K, V)
        seq.append(int(np.argmax(_next_logits(p, x, o))))
    return np.array(seq, dtype=int)


def generate_own_attention(p, prompt, n_new, cache_step):
    seq = [int(t) for t in prompt]
    K, V = _empty_caches(p)
    for i in range(len(prompt) + n_new - 1):
        x = _row(p, seq[i], i)
        q, k, v = _qkv(p, x)
        K, V = np.vstack([K, k]), np.vstack([V, v])
        o = _softmax(K @ q / math.sqrt(len(q))) @ V  # its own attention, not the cache_step it was given
        if i >= len(prompt) - 1:
            seq.append(int(np.argmax(_next_logits(p, x, o))))
    return np.array(seq, dtype=int)


def generate_drops_caches(p, prompt, n_new, cache_step):
    seq = [int(t) for t in prompt]
    K, V = _empty_caches(p)
    for i in range(len(prompt) + n_new - 1):
        x = _row(p, seq[i], i)
        q, k, v = _qkv(p, x)
        o, _, _ = cache_step(q, k, v, K, V)  # the grown caches are thrown away
        if i >= len(prompt) - 1:
            seq.append(int(np.argmax(_next_logits(p, x, o))))
    return np.array(seq, dtype=int)


def generate_new_only(p, prompt, n_new, cache_step):
    return _generate(p, prompt, n_new, cache_step)[len(prompt):]


def generate_float_array(p, prompt, n_new, cache_step):
    T = len(prompt)
    out = np.zeros(T + n_new)
    out[:T] = prompt
    K, V = _empty_caches(p)
    for i in range(T + n_new - 1):
        x = _row(p, int(out[i]), i)
        q, k, v = _qkv(p, x)
        o, K, V = cache_step(q, k, v, K, V)
        if i >= T - 1:
            out[i + 1] = np.argmax(_next_logits(p, x, o))
    return out


def generate_preallocated(p, prompt, n_new, cache_step):
    T = len(prompt)
    out = np.empty(T + n_new, dtype=np.int64)
    out[:T] = prompt
    d = p["Wq"].shape[0]
    K, V = np.empty((0, d)), np.empty((0, p["Wv"].shape[1]))
    for i in range(T + n_new - 1):
        x = p["tok_emb"][out[i]] + p["pos_emb"][i]
        o, K, V = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K, V)
        if i + 1 >= T:
            out[i + 1] = np.argmax(x @ p["W_out"] + o @ p["W_out"])
    return out


def generate_position_from_cache(p, prompt, n_new, cache_step):
    tokens = list(np.asarray(prompt).tolist())
    d = p["tok_emb"].shape[1]
    K, V = np.zeros((0, d)), np.zeros((0, d))
    while len(tokens) < len(prompt) + n_new:
        i = len(K)  # the position of the token fed next
        x = p["tok_emb"][tokens[i]] + p["pos_emb"][i]
        o, K, V = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K, V)
        if len(K) >= len(prompt):
            tokens.append(int(((x + o) @ p["W_out"]).argmax()))
    return np.asarray(tokens, dtype=int)


# ================================================================================================================
# 14 max_cached_tokens(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2)


def max_cached_tokens_ref(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    return int(memory_bytes) // _kv_bytes_per_token(n_layers, n_heads, d_head, batch, bytes_per_value)


def max_cached_tokens_float_division(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    return int(memory_bytes / _kv_bytes_per_token(n_layers, n_heads, d_head, batch, bytes_per_value))


def max_cached_tokens_keys_only(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    return memory_bytes // (n_layers * n_heads * d_head * batch * bytes_per_value)


def max_cached_tokens_no_batch(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    return memory_bytes // _kv_bytes_per_token(n_layers, n_heads, d_head, 1, bytes_per_value)


def max_cached_tokens_first_too_long(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    return memory_bytes // _kv_bytes_per_token(n_layers, n_heads, d_head, batch, bytes_per_value) + 1


def max_cached_tokens_ceil(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    return math.ceil(memory_bytes / _kv_bytes_per_token(n_layers, n_heads, d_head, batch, bytes_per_value))


def max_cached_tokens_ratio(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    return memory_bytes / _kv_bytes_per_token(n_layers, n_heads, d_head, batch, bytes_per_value)


def max_cached_tokens_int64(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    per_token = np.int64(_kv_bytes_per_token(n_layers, n_heads, d_head, batch, bytes_per_value))
    return int(np.int64(memory_bytes) // per_token)


def max_cached_tokens_at_least_one(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    return max(1, memory_bytes // _kv_bytes_per_token(n_layers, n_heads, d_head, batch, bytes_per_value))


def max_cached_tokens_fp16_always(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    return memory_bytes // _kv_bytes_per_token(n_layers, n_heads, d_head, batch, 2)


def max_cached_tokens_bisect(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    def used(seq_len):
        return 2 * n_layers * n_heads * d_head * seq_len * batch * bytes_per_value

    lo, hi = 0, 1
    while used(hi) <= memory_bytes:
        hi *= 2
    while hi - lo > 1:  # used(lo) fits, used(hi) does not
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if used(mid) <= memory_bytes else (lo, mid)
    return lo


def max_cached_tokens_divmod(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    per_token = math.prod([2, n_layers, n_heads, d_head, batch, bytes_per_value])
    tokens, _ = divmod(memory_bytes, per_token)
    return int(tokens)


# ================================================================================================================
# 15 the capstone: ops dicts for TinyLM(ops=...), names -> functions with the exercises' signatures


def _op_softmax(S, axis=-1):
    return _softmax(S, axis)


def _op_embed(tokens, tok_emb, pos_emb):
    return tok_emb[tokens] + pos_emb[:len(tokens)]


def _op_layer_norm(X, g, b, eps=1e-5):
    return _layer_norm(X, g, b, eps)


def _op_gelu(X):
    return _gelu(X)


def _op_next_token_logits(H, W_vocab):
    return H[-1] @ W_vocab


def _op_cross_entropy(logits, targets):
    return cross_entropy_ref(logits, targets)


def _op_softmax_backward(A, dA):
    return _softmax_backward(A, dA)


def _op_layer_norm_backward(X, g, dY, eps=1e-5):
    return layer_norm_backward_ref(X, g, dY, eps)


def _op_cache_step(q, k, v, K_cache, V_cache):
    K_new, V_new = np.vstack([K_cache, k]), np.vstack([V_cache, v])
    return _softmax(K_new @ q / math.sqrt(len(q))) @ V_new, K_new, V_new


def _op_sample_next(logits, temperature, u):
    return sample_next_ref(logits, temperature, u)


# the pieces a learner wrote; attnlib's attention and attention_backward then run on this softmax and
# softmax_backward
_CAPSTONE = {"softmax": _op_softmax, "embed": _op_embed, "layer_norm": _op_layer_norm, "gelu": _op_gelu,
             "next_token_logits": _op_next_token_logits, "cross_entropy": _op_cross_entropy,
             "softmax_backward": _op_softmax_backward, "layer_norm_backward": _op_layer_norm_backward,
             "cache_step": _op_cache_step, "sample_next": _op_sample_next}


def _capstone_with(**ops):
    """The correct pieces with some replaced or added."""
    return {**_CAPSTONE, **ops}


def _bad_softmax_axis0(S, axis=-1):
    return _softmax(S, axis=0)


def _bad_layer_norm_unbiased(X, g, b, eps=1e-5):
    mu, var = X.mean(axis=1, keepdims=True), X.var(axis=1, ddof=1, keepdims=True)
    return (X - mu) / np.sqrt(var + eps) * g + b


_erf = np.vectorize(math.erf)


def _bad_gelu_erf(X):
    return 0.5 * X * (1.0 + _erf(X / math.sqrt(2.0)))


def _bad_cache_step_no_append(q, k, v, K_cache, V_cache):
    K_new, V_new = np.vstack([K_cache, k]), np.vstack([V_cache, v])
    return _softmax(K_new @ q / math.sqrt(len(q))) @ V_new, K_cache, V_cache


def _bad_sample_next_no_temperature(logits, temperature, u):
    return _first_above(_softmax(np.asarray(logits, dtype=float)), u)


def _bad_attention_unscaled(Q, K, V, causal=True, scale=True):
    S = Q @ K.T
    return _softmax(S + _mask(len(Q), len(K)) if causal else S) @ V


def _bad_next_token_logits_first_row(H, W_vocab):
    return H[0] @ W_vocab


def _bad_embed_no_positions(tokens, tok_emb, pos_emb):
    return tok_emb[tokens]


def _bad_softmax_backward_axis0(A, dA):
    return A * (dA - (dA * A).sum(axis=0, keepdims=True))


def _leaky_mask(n):
    return np.triu(np.full((n, n), -np.inf), k=2)  # row i also sees i + 1


def _bad_attention_leaky(Q, K, V, causal=True, scale=True):
    s = 1.0 / math.sqrt(Q.shape[1]) if scale else 1.0
    S = Q @ K.T * s
    return _softmax(S + _leaky_mask(len(Q)) if causal else S) @ V


def _bad_attention_backward_leaky(Q, K, V, dO, causal=True, scale=True):
    s = 1.0 / math.sqrt(Q.shape[1]) if scale else 1.0
    S = Q @ K.T * s
    A = _softmax(S + _leaky_mask(len(Q)) if causal else S)
    dS = _softmax_backward(A, dO @ V.T) * s
    return dS @ K, dS.T @ Q, A.T @ dO


def _bad_mha_model_width(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    d_head = Wq.shape[1] // n_heads
    heads = []
    for h in range(n_heads):
        c = slice(h * d_head, (h + 1) * d_head)
        S = (X @ Wq[:, c]) @ (X @ Wk[:, c]).T / math.sqrt(X.shape[1])  # sqrt(d_model), not sqrt(d_head)
        heads.append(_softmax(S + _mask(len(X), len(X)) if causal else S) @ (X @ Wv[:, c]))
    return np.concatenate(heads, axis=1) @ Wo


def _capstone_full():
    """Every one of the fourteen ops, written as one learner would: the bigger ones call the smaller ones."""
    def softmax(S, axis=-1):
        Z = S - np.max(S, axis=axis, keepdims=True)
        return np.exp(Z - np.log(np.sum(np.exp(Z), axis=axis, keepdims=True)))

    def attention(Q, K, V, causal=True, scale=True):
        S = Q @ K.T / (np.sqrt(Q.shape[1]) if scale else 1.0)
        if causal:
            S = S + np.triu(np.full(S.shape, -np.inf), k=S.shape[1] - S.shape[0] + 1)
        return softmax(S) @ V

    def embed(tokens, tok_emb, pos_emb):
        return np.take(tok_emb, tokens, axis=0) + pos_emb[np.arange(len(tokens))]

    def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
        Q, K, V = (split_heads_ref(X @ W, n_heads) for W in (Wq, Wk, Wv))
        heads = [attention(Q[h], K[h], V[h], causal) for h in range(n_heads)]
        return np.hstack(heads) @ Wo

    def layer_norm(X, g, b, eps=1e-5):
        Xc = X - X.mean(axis=-1, keepdims=True)
        return g * Xc / np.sqrt((Xc * Xc).mean(axis=-1, keepdims=True) + eps) + b

    def gelu(X):
        return X * 0.5 * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (X + 0.044715 * np.power(X, 3))))

    def transformer_block(X, p, n_heads, causal=True):
        Y = X + multi_head_attention(layer_norm(X, p["ln1_g"], p["ln1_b"]), p["Wq"], p["Wk"], p["Wv"], p["Wo"],
                                     n_heads, causal)
        return Y + gelu(layer_norm(Y, p["ln2_g"], p["ln2_b"]) @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"]

    def next_token_logits(H, W_vocab):
        return H[H.shape[0] - 1] @ W_vocab

    def softmax_backward(A, dA):
        return A * dA - A * np.sum(A * dA, axis=-1, keepdims=True)

    def attention_backward(Q, K, V, dO, causal=True, scale=True):
        s = 1 / np.sqrt(Q.shape[1]) if scale else 1.0
        S = Q @ K.T * s
        if causal:
            S = S + np.triu(np.full(S.shape, -np.inf), k=S.shape[1] - S.shape[0] + 1)
        A = softmax(S)
        dS = softmax_backward(A, dO @ V.T) * s
        return dS @ K, dS.T @ Q, A.T @ dO

    def cache_step(q, k, v, K_cache, V_cache):
        K_new = np.concatenate([K_cache, k[None, :]], axis=0)
        V_new = np.concatenate([V_cache, v[None, :]], axis=0)
        return softmax(K_new @ q / np.sqrt(q.shape[0])) @ V_new, K_new, V_new

    return {"softmax": softmax, "attention": attention, "embed": embed,
            "multi_head_attention": multi_head_attention, "layer_norm": layer_norm, "gelu": gelu,
            "transformer_block": transformer_block, "next_token_logits": next_token_logits,
            "cross_entropy": cross_entropy_logaddexp, "softmax_backward": softmax_backward,
            "attention_backward": attention_backward, "layer_norm_backward": layer_norm_backward_one_line,
            "cache_step": cache_step, "sample_next": sample_next_loop}


# ================================================================================================================
# the records

MISTAKES = [
    # compose
    Mistake("compose", "multiplies in column-vector order, W2 @ W1", compose_column_order),
    Mistake("compose", "writes the column-vector composite W2ᵀ W1ᵀ: the transpose of the answer",
            compose_column_transpose),
    Mistake("compose", "multiplies the two matrices element by element", compose_elementwise),
    Mistake("compose", "adds the two matrices instead of multiplying them", compose_sum),
    Mistake("compose", "sums the outer products over range(d_mid - 1): the last middle feature is missing",
            compose_loop_short),
    Mistake("compose", "composes in place with W @= W2 on W = W1, overwriting W1", compose_in_place),
    Mistake("compose", "PyTorch habit: treats W2 as (out, in) and multiplies by W2.T", compose_torch),
    # matmul_cost
    Mistake("matmul_cost", "counts two FLOPs per multiply-add: 2 n d_in d_out", matmul_cost_flops),
    Mistake("matmul_cost", "counts the additions, d_in - 1 per entry, instead of the multiplications",
            matmul_cost_additions),
    Mistake("matmul_cost", "counts the entries of the result, n d_out, not the multiplications in each",
            matmul_cost_entries),
    Mistake("matmul_cost", "forgets the n rows: counts one row's d_in d_out", matmul_cost_one_row),
    Mistake("matmul_cost", "uses d_in twice, as if W were square", matmul_cost_square),
    Mistake("matmul_cost", "multiplies in np.int32, which wraps around for large sizes", matmul_cost_int32),
    Mistake("matmul_cost", "returns a float instead of an exact int", matmul_cost_float),
    Mistake("matmul_cost", "multiplies in floating point and converts to int: rounds above 2**53",
            matmul_cost_float_then_int),
    # one_hot
    Mistake("one_hot", "Y[:, ids] = 1 sets whole columns: every row gets a 1 at every id", one_hot_columns),
    Mistake("one_hot", "returns the (vocab_size, n) transpose, one column per token", one_hot_transposed),
    Mistake("one_hot", "builds an integer array instead of floats", one_hot_int),
    Mistake("one_hot", "treats the ids as 1-based: puts the 1 in column ids[i] - 1", one_hot_one_based),
    Mistake("one_hot", "sizes the columns from the largest id seen instead of vocab_size", one_hot_width_from_ids),
    Mistake("one_hot", "drops repeated ids (and sorts them) with np.unique", one_hot_unique),
    Mistake("one_hot", "computes flat indices with += in ids' own memory, changing ids", one_hot_flat_in_place),
    Mistake("one_hot", "returns the boolean comparison without converting it to floats", one_hot_bool),
    # learned_scores
    Mistake("learned_scores", "puts the keys on the rows: returns K Qᵀ, the transpose", learned_scores_keys_on_rows),
    Mistake("learned_scores", "already divides by √d, though the exercise asks for raw scores", learned_scores_scaled),
    Mistake("learned_scores", "uses Wq for the keys too, so the scores come out symmetric", learned_scores_same_matrix),
    Mistake("learned_scores", "PyTorch habit: projects with Wq.T and Wk.T", learned_scores_torch),
    Mistake("learned_scores", "adds the causal mask, though there is no mask yet", learned_scores_masked),
    Mistake("learned_scores", "returns the softmax weights instead of the raw scores", learned_scores_softmax),
    Mistake("learned_scores", "multiplies Q and K element-wise and sums: one score per token (the diagonal)",
            learned_scores_elementwise),
    Mistake("learned_scores", "computes Qᵀ K (d, d) instead of Q Kᵀ (n, n)", learned_scores_feature_gram),
    # score_scale
    Mistake("score_scale", "returns 1/d: divides by the variance instead of the standard deviation",
            score_scale_one_over_d),
    Mistake("score_scale", "returns √d instead of 1/√d", score_scale_sqrt),
    Mistake("score_scale", "operator precedence: d ** -1 / 2 is 1/(2d), not d ** -0.5", score_scale_precedence),
    Mistake("score_scale", "returns the factor rounded to float32", score_scale_float32),
    Mistake("score_scale", "rounds the factor to 3 decimals, as the experiment prints it", score_scale_rounded),
    Mistake("score_scale", "returns a simulated measurement, 1 / std of sampled dot products", score_scale_measured),
    Mistake("score_scale", "uses the integer square root math.isqrt: wrong unless d is a perfect square",
            score_scale_isqrt),
    # future_leak
    Mistake("future_leak", "counts the rows that see their future instead of how far the worst one sees",
            future_leak_counts_rows),
    Mistake("future_leak", "off by one: counts the row itself, returning the distance + 1", future_leak_plus_one),
    Mistake("future_leak", "moved = X without .copy(): moves X itself, and the moves pile up", future_leak_no_copy),
    Mistake("future_leak", "treats any change at all as a leak, so rounding noise counts", future_leak_exact),
    Mistake("future_leak", "compares with np.allclose, whose tolerance hides a tiny weight on the future",
            future_leak_allclose),
    Mistake("future_leak", "only checks whether row i sees row i + 1, so answers 1 or 0", future_leak_next_only),
    Mistake("future_leak", "nudges rows by 1e-10, as in a gradient check: too small to see past the threshold",
            future_leak_tiny_nudge),
    Mistake("future_leak", "returns the smallest leak distance instead of the largest", future_leak_nearest),
    Mistake("future_leak", "looks at the rows after the moved one (the allowed past) instead of those before",
            future_leak_wrong_direction),
    Mistake("future_leak", "loops over range(1, n - 1) and never moves the last row", future_leak_skips_last),
    # tiled_attention
    Mistake("tiled_attention", "shrinks l when the max rises but forgets to shrink acc",
            tiled_attention_acc_not_shrunk),
    Mistake("tiled_attention", "shrinks acc when the max rises but forgets to shrink l", tiled_attention_l_not_shrunk),
    Mistake("tiled_attention", "inverts the correction: multiplies by exp(m_new - m_old)",
            tiled_attention_shrink_inverted),
    Mistake("tiled_attention", "exponentiates each tile from its own max but corrects only the old sums",
            tiled_attention_tile_max),
    Mistake("tiled_attention", "forgets the 1/√d scale", tiled_attention_unscaled),
    Mistake("tiled_attention", "scales by 1/d instead of 1/√d", tiled_attention_scale_one_over_d),
    Mistake("tiled_attention", "places the queries at the first positions when n_q < n_k (no offset)",
            tiled_attention_first_positions),
    Mistake("tiled_attention", "masks with key > query + 1, so each query also sees the next key",
            tiled_attention_sees_next),
    Mistake("tiled_attention", "masks every tile with tile-local indices, as if each tile sat on the diagonal",
            tiled_attention_tile_local_mask),
    Mistake("tiled_attention", "walks the keys with range(0, n_k - block, block), skipping the last tile",
            tiled_attention_drops_last_tile),
    Mistake("tiled_attention", "walks the key tiles from last to first: fully masked first tiles give NaN",
            tiled_attention_reversed_tiles),
    Mistake("tiled_attention", "starts the running max at 0 instead of -inf: underflows when every score is very "
            "negative", tiled_attention_max_from_zero),
    Mistake("tiled_attention", "always applies the causal mask, ignoring causal=False", tiled_attention_always_causal),
    Mistake("tiled_attention", "scores each block of queries against all keys at once: a (block, n_k) strip",
            tiled_attention_strip),
    # sinusoidal_positions
    Mistake("sinusoidal_positions", "puts the cosines on the even columns and the sines on the odd ones",
            sinusoidal_positions_swapped),
    Mistake("sinusoidal_positions", "uses i/d instead of 2i/d in the exponent", sinusoidal_positions_half_exponent),
    Mistake("sinusoidal_positions", "gives every column its own exponent j/d instead of one per pair (2i/d)",
            sinusoidal_positions_column_exponent),
    Mistake("sinusoidal_positions", "puts all sines in the first half and all cosines in the second, not interleaved",
            sinusoidal_positions_halves),
    Mistake("sinusoidal_positions", "counts positions from 1 instead of 0", sinusoidal_positions_from_one),
    Mistake("sinusoidal_positions", "multiplies t by 10000^(2i/d) instead of dividing", sinusoidal_positions_times),
    Mistake("sinusoidal_positions", "floor division 2i // d makes every exponent 0: one frequency for all pairs",
            sinusoidal_positions_floor_division),
    Mistake("sinusoidal_positions", "returns the (d, n) transpose", sinusoidal_positions_transposed),
    # split_heads
    Mistake("split_heads", "reshapes straight to (n_heads, n, d_head), mixing rows", split_heads_plain_reshape),
    Mistake("split_heads", "reshapes to (n, d_head, n_heads): head h gets every n_heads-th column",
            split_heads_strided),
    Mistake("split_heads", "forgets the transpose: returns (n, n_heads, d_head)", split_heads_no_transpose),
    Mistake("split_heads", "transposes to (n_heads, d_head, n): features before tokens", split_heads_features_first),
    Mistake("split_heads", "sets M.shape in place, changing the caller's M", split_heads_sets_shape),
    Mistake("split_heads", "ends each block at (h+1)*d_head - 1 as an exclusive bound: drops a column per head",
            split_heads_short_slices),
    Mistake("split_heads", "splits the rows (tokens) instead of the columns", split_heads_rows),
    Mistake("split_heads", "stacks the heads in reverse order", split_heads_reversed),
    # cross_entropy
    Mistake("cross_entropy", "forgets to divide dlogits by n", cross_entropy_grad_not_averaged),
    Mistake("cross_entropy", "sums the loss over the rows instead of averaging", cross_entropy_summed),
    Mistake("cross_entropy", "divides dlogits by n twice", cross_entropy_divided_twice),
    Mistake("cross_entropy", "takes the log of the probabilities: log(0) = -inf for logits around 1e4",
            cross_entropy_log_of_probs),
    Mistake("cross_entropy", "exponentiates without subtracting the row max: overflows at logits around 1e4",
            cross_entropy_no_max),
    Mistake("cross_entropy", "PyTorch dim=0 habit: normalises over the rows (axis=0)", cross_entropy_axis0),
    Mistake("cross_entropy", "dlogits[:, targets] -= 1 subtracts 1 in every target column of every row",
            cross_entropy_column_fancy_index),
    Mistake("cross_entropy", "subtracts the row max from logits in place, changing the caller's array",
            cross_entropy_in_place_shift),
    Mistake("cross_entropy", "returns (dlogits, loss): the tuple in the wrong order", cross_entropy_swapped),
    Mistake("cross_entropy", "flips the sign of the gradient: one-hot minus softmax", cross_entropy_sign),
    Mistake("cross_entropy", "measures the loss in bits (log base 2) instead of nats", cross_entropy_bits),
    Mistake("cross_entropy", "log-sum-exp without adding the max back: the loss is off by each row's max",
            cross_entropy_lse_without_max),
    Mistake("cross_entropy", "averages -Y log p over all n * vocab entries instead of over the n rows",
            cross_entropy_mean_over_entries),
    # attention_backward
    Mistake("attention_backward", "forgets the scale s in dS, so dQ and dK are √d too large",
            attention_backward_no_scale),
    Mistake("attention_backward", "applies the scale twice to dQ and dK", attention_backward_scale_twice),
    Mistake("attention_backward", "dV = A dO instead of Aᵀ dO", attention_backward_dv_no_transpose),
    Mistake("attention_backward", "dK = dS Q instead of dSᵀ Q", attention_backward_dk_no_transpose),
    Mistake("attention_backward", "softmax backward as A * dA, without subtracting the row sum",
            attention_backward_elementwise_softmax),
    Mistake("attention_backward", "softmax backward sums over the query axis (axis=0)",
            attention_backward_softmax_axis0),
    Mistake("attention_backward", "forgets the causal mask when recomputing A in the backward",
            attention_backward_no_mask),
    Mistake("attention_backward", "builds the mask with np.triu(k=1) on (n_q, n_k): wrong when n_q < n_k",
            attention_backward_mask_from_corner),
    Mistake("attention_backward", "scales by 1/d instead of 1/√d", attention_backward_scale_one_over_d),
    Mistake("attention_backward", "always scales, ignoring scale=False", attention_backward_always_scaled),
    Mistake("attention_backward", "always masks, ignoring causal=False", attention_backward_always_causal),
    Mistake("attention_backward", "returns (dQ, dV, dK): the tuple in the wrong order", attention_backward_order),
    Mistake("attention_backward", "uses V dOᵀ for dA: the transpose of dO Vᵀ", attention_backward_da_transposed),
    # layer_norm_backward
    Mistake("layer_norm_backward", "drops the term along Xhat (the variance's dependence on X)",
            layer_norm_backward_no_xhat_term),
    Mistake("layer_norm_backward", "drops the row mean of dXhat (the mean's dependence on X)",
            layer_norm_backward_no_mean_term),
    Mistake("layer_norm_backward", "uses the unbiased variance (ddof=1)", layer_norm_backward_unbiased),
    Mistake("layer_norm_backward", "puts eps outside the square root: 1 / (std + eps)",
            layer_norm_backward_eps_outside),
    Mistake("layer_norm_backward", "forgets the gain: dXhat = dY instead of dY * g", layer_norm_backward_no_gain),
    Mistake("layer_norm_backward", "dg sums dY * X instead of dY * Xhat", layer_norm_backward_dg_raw_x),
    Mistake("layer_norm_backward", "sums dg and db over the features (axis=1) instead of the rows",
            layer_norm_backward_param_axis1),
    Mistake("layer_norm_backward", "averages db over the rows instead of summing", layer_norm_backward_db_mean),
    Mistake("layer_norm_backward", "treats the mean and variance as constants: dX = dY * g / std",
            layer_norm_backward_constant_stats),
    Mistake("layer_norm_backward", "uses row sums instead of row means in both corrections",
            layer_norm_backward_sums),
    Mistake("layer_norm_backward", "returns (dX, db, dg): dg and db swapped", layer_norm_backward_order),
    Mistake("layer_norm_backward", "dXhat = dY; dXhat *= g scales the caller's dY in place",
            layer_norm_backward_in_place),
    # attention_entropy
    Mistake("attention_entropy", "uses log base 2 (bits) instead of the natural log", attention_entropy_bits),
    Mistake("attention_entropy", "clips the weights to 1e-6 before A log A, so masked keys contribute",
            attention_entropy_clipped),
    Mistake("attention_entropy", "computes A * log(A) with no special case: 0 * -inf gives NaN",
            attention_entropy_nan),
    Mistake("attention_entropy", "sums over the queries (axis=0) instead of along each row", attention_entropy_axis0),
    Mistake("attention_entropy", "averages over the keys instead of summing", attention_entropy_mean),
    Mistake("attention_entropy", "forgets the minus sign", attention_entropy_no_minus),
    Mistake("attention_entropy", "A[A > 0] flattens the matrix: returns one number for all rows",
            attention_entropy_flattened),
    Mistake("attention_entropy", "uses np.log1p to dodge log(0): log(1 + A) is another function",
            attention_entropy_log1p),
    Mistake("attention_entropy", "divides by log(n_k): returns the normalised entropy", attention_entropy_normalised),
    # padding_mask
    Mistake("padding_mask", "off by one: the first padding column stays visible (n_valid + 1:)",
            padding_mask_one_late),
    Mistake("padding_mask", "off by one: hides the last real token too (n_valid - 1:)", padding_mask_one_early),
    Mistake("padding_mask", "returns the (n_k, n_q) transpose", padding_mask_transposed),
    Mistake("padding_mask", "hides the real tokens and shows the padding", padding_mask_inverted),
    Mistake("padding_mask", "returns a boolean mask (True on the padding) instead of an additive float one",
            padding_mask_bool),
    Mistake("padding_mask", "PyTorch habit: -1e9 instead of -inf on the padding", padding_mask_big_negative),
    Mistake("padding_mask", "returns a multiplicative 1/0 mask instead of the additive 0/-inf",
            padding_mask_multiplicative),
    Mistake("padding_mask", "also adds the causal mask", padding_mask_plus_causal),
    Mistake("padding_mask", "returns one row (n_k,) instead of the (n_q, n_k) matrix", padding_mask_one_row),
    # sample_next
    Mistake("sample_next", "ignores the temperature above 0: samples from softmax(logits)",
            sample_next_ignores_temperature),
    Mistake("sample_next", "multiplies the logits by the temperature instead of dividing",
            sample_next_times_temperature),
    Mistake("sample_next", "returns the first token whose running total is >= u, not > u", sample_next_at_least_u),
    Mistake("sample_next", "compares u with each probability instead of the running total",
            sample_next_each_probability),
    Mistake("sample_next", "no special case for temperature 0: divides by zero", sample_next_no_greedy_case),
    Mistake("sample_next", "exponentiates logits / temperature without subtracting the max: overflows",
            sample_next_no_max),
    Mistake("sample_next", "returns a numpy integer instead of a Python int", sample_next_numpy_int),
    Mistake("sample_next", "int(u * vocab): picks uniformly, ignoring the probabilities", sample_next_uniform),
    Mistake("sample_next", "off by one: the last token whose running total is <= u", sample_next_one_before),
    Mistake("sample_next", "sharpens softmax(logits) ** (1 / T): underflows to all zeros at tiny temperatures",
            sample_next_power_sharpening),
    Mistake("sample_next", "does not scale the running total to end at 1: can return vocab for u close to 1",
            sample_next_unguarded_total),
    Mistake("sample_next", "at temperature 0 returns the last of several equal largest logits",
            sample_next_last_of_ties),
    # generate
    Mistake("generate", "counts positions from 1: token at position i gets pos_emb[i + 1]",
            generate_positions_from_one),
    Mistake("generate", "forgets the residual: logits from o @ W_out alone", generate_no_residual),
    Mistake("generate", "drops the attention output: logits from x @ W_out alone", generate_skips_attention),
    Mistake("generate", "x = tok_emb[t]; x += pos_emb[i] adds the positions into the table itself",
            generate_edits_table),
    Mistake("generate", "starts the caches with one zero row instead of empty (0, d)", generate_zero_row_cache),
    Mistake("generate", "swaps the query and key projections", generate_q_k_swapped),
    Mistake("generate", "PyTorch habit: W @ x for q, k and v, as if the weights were (out, in)",
            generate_torch_weights),
    Mistake("generate", "also feeds the last new token through cache_step: one call too many", generate_feeds_last),
    Mistake("generate", "re-feeds the whole sequence with a fresh cache for every new token", generate_from_scratch),
    Mistake("generate", "computes its own attention instead of calling the cache_step it is given",
            generate_own_attention),
    Mistake("generate", "throws away the grown caches cache_step returns, so every token sees only itself",
            generate_drops_caches),
    Mistake("generate", "returns only the new tokens, without the prompt", generate_new_only),
    Mistake("generate", "fills a float array, so the tokens come back as floats", generate_float_array),
    # max_cached_tokens
    Mistake("max_cached_tokens", "divides as floats, then int(): wrong beyond 2**53", max_cached_tokens_float_division),
    Mistake("max_cached_tokens", "forgets the factor 2 for keys and values", max_cached_tokens_keys_only),
    Mistake("max_cached_tokens", "ignores the batch", max_cached_tokens_no_batch),
    Mistake("max_cached_tokens", "returns the first length that does not fit (one too many)",
            max_cached_tokens_first_too_long),
    Mistake("max_cached_tokens", "rounds the ratio up with math.ceil", max_cached_tokens_ceil),
    Mistake("max_cached_tokens", "returns the float ratio memory / bytes per token", max_cached_tokens_ratio),
    Mistake("max_cached_tokens", "computes in np.int64, which overflows for huge memories", max_cached_tokens_int64),
    Mistake("max_cached_tokens", "returns at least 1, even when not one token fits", max_cached_tokens_at_least_one),
    Mistake("max_cached_tokens", "always assumes 2-byte floats, ignoring bytes_per_value",
            max_cached_tokens_fp16_always),
    # capstone: ops dicts with one wrong op (or a pair)
    Mistake("capstone", "softmax normalises over axis 0 (the queries) whatever axis says",
            _capstone_with(softmax=_bad_softmax_axis0)),
    Mistake("capstone", "layer_norm uses the unbiased variance (ddof=1)",
            _capstone_with(layer_norm=_bad_layer_norm_unbiased)),
    Mistake("capstone", "gelu uses the exact erf form instead of the course's tanh approximation",
            _capstone_with(gelu=_bad_gelu_erf)),
    Mistake("capstone", "cross_entropy forgets to divide dlogits by n",
            _capstone_with(cross_entropy=cross_entropy_grad_not_averaged)),
    Mistake("capstone", "cache_step attends over the grown caches but returns the old ones",
            _capstone_with(cache_step=_bad_cache_step_no_append)),
    Mistake("capstone", "sample_next ignores the temperature: always samples, even at temperature 0",
            _capstone_with(sample_next=_bad_sample_next_no_temperature)),
    Mistake("capstone", "attention forgets the 1/√d_head scale", _capstone_with(attention=_bad_attention_unscaled)),
    Mistake("capstone", "attention_backward forgets the causal mask",
            _capstone_with(attention_backward=attention_backward_no_mask)),
    Mistake("capstone", "layer_norm_backward drops the row mean of dXhat",
            _capstone_with(layer_norm_backward=layer_norm_backward_no_mean_term)),
    Mistake("capstone", "next_token_logits reads the first row of H instead of the last",
            _capstone_with(next_token_logits=_bad_next_token_logits_first_row)),
    Mistake("capstone", "embed forgets the position vectors", _capstone_with(embed=_bad_embed_no_positions)),
    Mistake("capstone", "softmax_backward sums over axis 0 instead of the last axis",
            _capstone_with(softmax_backward=_bad_softmax_backward_axis0)),
    Mistake("capstone", "attention and attention_backward share a mask one diagonal too high: row i sees i + 1",
            _capstone_with(attention=_bad_attention_leaky, attention_backward=_bad_attention_backward_leaky)),
    Mistake("capstone", "multi_head_attention scales every head by √d_model instead of √d_head",
            _capstone_with(multi_head_attention=_bad_mha_model_width)),
]

ACCEPTABLE = [
    Mistake("compose", "np.einsum over the middle index", compose_einsum),
    Mistake("compose", "the sum of the outer products of W1's columns and W2's rows", compose_outer_sum),
    Mistake("compose", "projects the rows of the identity with W1, then with W2", compose_project_identity),
    Mistake("matmul_cost", "math.prod of the three sizes as Python ints", matmul_cost_math_prod),
    Mistake("matmul_cost", "np.prod with dtype=object (exact Python ints), converted to int", matmul_cost_object_prod),
    Mistake("one_hot", "rows of the identity matrix, np.eye(vocab_size)[ids]", one_hot_eye),
    Mistake("one_hot", "a broadcast comparison of ids with the column numbers, as floats", one_hot_compare),
    Mistake("one_hot", "a Python loop building one row per id", one_hot_loop),
    Mistake("learned_scores", "X (Wq Wkᵀ) Xᵀ: the two weights combined first", learned_scores_bilinear),
    Mistake("learned_scores", "np.einsum over the head features", learned_scores_einsum),
    Mistake("score_scale", "d ** -0.5", score_scale_power),
    Mistake("score_scale", "math.sqrt(1 / d)", score_scale_sqrt_of_inverse),
    Mistake("future_leak", "one pair (i, j) at a time, against a relative threshold", future_leak_per_pair),
    Mistake("future_leak", "all moves first, then the distances from the largest down", future_leak_farthest_first),
    Mistake("tiled_attention", "1-D running arrays, while loops, and no work on key tiles entirely in the future",
            tiled_attention_1d_running),
    Mistake("tiled_attention", "scales each tile of scores in place and masks it with np.copyto",
            tiled_attention_copyto),
    Mistake("sinusoidal_positions", "a double Python loop over positions and pairs", sinusoidal_positions_loop),
    Mistake("sinusoidal_positions", "frequencies as exp(-log(10000) 2i/d), sin and cos stacked and reshaped",
            sinusoidal_positions_exp_log),
    Mistake("split_heads", "a stack of column slices", split_heads_slices),
    Mistake("split_heads", "np.split along the columns, as an array", split_heads_np_split),
    Mistake("split_heads", "reshape then np.swapaxes, copied", split_heads_swapaxes),
    Mistake("cross_entropy", "log-sum-exp with np.logaddexp.reduce and a one-hot from np.eye", cross_entropy_logaddexp),
    Mistake("cross_entropy", "a loop over the rows", cross_entropy_rows),
    Mistake("attention_backward", "the softmax Jacobian diag(a) - a aᵀ, one row at a time",
            attention_backward_jacobian_rows),
    Mistake("attention_backward", "every product as an np.einsum, the scale folded into Q",
            attention_backward_einsum),
    Mistake("layer_norm_backward", "the one-line formula (d dXhat - sum - Xhat sum) / (d std)",
            layer_norm_backward_one_line),
    Mistake("layer_norm_backward", "the chain rule through the variance and the mean", layer_norm_backward_chain_rule),
    Mistake("attention_entropy", "logs of np.where(A > 0, A, 1), so zeros contribute 0 log 1",
            attention_entropy_safe_log),
    Mistake("attention_entropy", "a loop over the rows keeping the positive weights", attention_entropy_rows),
    Mistake("padding_mask", "one row from np.where, repeated n_q times", padding_mask_where),
    Mistake("padding_mask", "start from -inf everywhere, then open the real columns", padding_mask_full),
    Mistake("sample_next", "a loop adding up the probabilities until the total passes u", sample_next_loop),
    Mistake("sample_next", "log-probabilities first, then argmax of the normalised running total > u",
            sample_next_log_space),
    Mistake("generate", "a preallocated int64 array filled in place", generate_preallocated),
    Mistake("generate", "a while loop that reads the position from the cache's length", generate_position_from_cache),
    Mistake("max_cached_tokens", "an exact integer bisection on the cache size", max_cached_tokens_bisect),
    Mistake("max_cached_tokens", "divmod by the bytes per token from math.prod", max_cached_tokens_divmod),
    Mistake("capstone", "the ten basic pieces in plain numpy; attnlib's attention runs on this softmax",
            dict(_CAPSTONE)),
    Mistake("capstone", "all fourteen ops, the bigger ones built from the smaller ones", _capstone_full()),
]

# references written from the task text, for the exercises attnlib has no public function of the same name
REFERENCES = {
    "compose": compose_ref, "matmul_cost": matmul_cost_ref, "one_hot": one_hot_ref,
    "learned_scores": learned_scores_ref, "score_scale": score_scale_ref, "future_leak": future_leak_ref,
    "tiled_attention": tiled_attention_ref, "sinusoidal_positions": sinusoidal_positions_ref,
    "split_heads": split_heads_ref, "cross_entropy": cross_entropy_ref, "attention_backward": attention_backward_ref,
    "layer_norm_backward": layer_norm_backward_ref, "attention_entropy": attention_entropy_ref,
    "padding_mask": padding_mask_ref, "sample_next": sample_next_ref, "generate": generate_ref,
    "max_cached_tokens": max_cached_tokens_ref,
}
