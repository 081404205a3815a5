"""A second blind set of learner mistakes, over every exercise of the course and the capstone.

How it was written: from the exercise notebooks (task texts and stub signatures), the lessons, the README and
attnlib's maths modules only, without reading the grader, its tests, any other mistake set or the solutions.
Nothing here was run through the grader.

The learners it imitates are not the obvious ones: a MATLAB/R user (1-based indices, column vectors, a `.T` in an
odd place), a loop-heavy beginner whose bound or accumulator is off, a PyTorch user who keeps a batch axis in mind
and reduces over the wrong one, a learner who misreads the notebook text (d_model for d_head, bits for bytes, the
wrong count in a mean), one who caches state between calls, one who returns the right thing in the wrong container
or order, one who special-cases a size (n == 1) wrongly, and one whose numerical tricks slip (a sign in the
log-sum-exp, clipping, eps in the wrong place). Each mistake is one slip (a few are two at once, and say so) built
from the shared correct helpers below, so that it differs from a right answer in one place.

MISTAKES holds the wrong functions, each with a one-line `what` naming the mistake as an ideal grader would.
ACCEPTABLE holds right answers written differently (loops, einsum, other but equivalent formulas), which must pass.
Every mistake was verified to differ from a right answer (attnlib's public maths, or a right answer written from
the notebook text) on at least one reasonable input, by value, type, shape, a changed input, a call count or its
peak memory; every acceptable answer was verified to agree to about 1e-9 relative on random and edge-case inputs.
That verification is kept outside the repository. This file imports numpy and math only.
"""
import math
from dataclasses import dataclass
from typing import Callable

import numpy as np


@dataclass(frozen=True)
class Mistake:
    exercise: str  # the name passed to check(...)
    what: str  # one precise plain-English line: the mistake, as the ideal grader would name it
    fn: Callable  # the learner's function, with the exercise's exact signature (capstone: the dict of ops)


# =============================================================================
# shared correct helpers: right answers; each mistake differs from them in one place

def _softmax(S, axis=-1):
    S = np.asarray(S, dtype=float)
    E = np.exp(S - np.max(S, axis=axis, keepdims=True))
    return E / np.sum(E, axis=axis, keepdims=True)


def _future_mask(n_q, n_k):
    """Additive (n_q, n_k): -inf where key j is after query i, the queries being the last n_q positions."""
    pos = np.arange(n_q)[:, None] + (n_k - n_q)
    return np.where(np.arange(n_k)[None, :] > pos, -np.inf, 0.0)


def _scores(Q, K, scale=True):
    S = Q @ K.T
    return S / math.sqrt(Q.shape[1]) if scale else S


def _weights(Q, K, causal=True, scale=True):
    S = _scores(Q, K, scale)
    if causal:
        S = S + _future_mask(Q.shape[0], K.shape[0])
    return _softmax(S, axis=-1)


def _attention(Q, K, V, causal=True, scale=True):
    return _weights(Q, K, causal, scale) @ V


def _split(M, n_heads):
    d_head = M.shape[1] // n_heads
    return np.stack([M[:, h * d_head:(h + 1) * d_head] for h in range(n_heads)])


def _mha(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    Q, K, V = _split(X @ Wq, n_heads), _split(X @ Wk, n_heads), _split(X @ Wv, n_heads)
    heads = [_attention(Q[h], K[h], V[h], causal) for h in range(n_heads)]
    return np.concatenate(heads, axis=1) @ Wo


def _layer_norm(X, g, b, eps=1e-5):
    mu = X.mean(axis=-1, keepdims=True)
    var = ((X - mu) ** 2).mean(axis=-1, keepdims=True)
    return (X - mu) / np.sqrt(var + eps) * g + b


_C = math.sqrt(2.0 / math.pi)


def _gelu(X):
    X = np.asarray(X, dtype=float)
    with np.errstate(over="ignore", invalid="ignore"):
        Y = 0.5 * X * (1.0 + np.tanh(_C * (X + 0.044715 * X ** 3)))
    return np.where(np.isneginf(X), 0.0, Y)  # the limit at -inf, where the formula gives -inf * 0


def _mlp(H, p):
    return _gelu(H @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"]


def _block(X, p, n_heads, causal=True):
    Y = X + _mha(_layer_norm(X, p["ln1_g"], p["ln1_b"]), p["Wq"], p["Wk"], p["Wv"], p["Wo"], n_heads, causal)
    return Y + _mlp(_layer_norm(Y, p["ln2_g"], p["ln2_b"]), p)


def _log_softmax(Z):
    Z = Z - Z.max(axis=1, keepdims=True)
    return Z - np.log(np.exp(Z).sum(axis=1, keepdims=True))


def _cross_entropy(logits, targets):
    logits = np.asarray(logits, dtype=float)
    rows, targets = np.arange(logits.shape[0]), np.asarray(targets)
    logp = _log_softmax(logits)
    dlogits = np.exp(logp)
    dlogits[rows, targets] -= 1.0
    return -logp[rows, targets].mean(), dlogits / logits.shape[0]


def _softmax_backward(A, dA):
    return A * (dA - np.sum(A * dA, axis=-1, keepdims=True))


def _attention_backward(Q, K, V, dO, causal=True, scale=True):
    s = 1.0 / math.sqrt(Q.shape[1]) if scale else 1.0
    A = _weights(Q, K, causal, scale)
    dS = _softmax_backward(A, dO @ V.T) * s
    return dS @ K, dS.T @ Q, A.T @ dO


def _ln_hat(X, eps=1e-5):
    Xc = X - X.mean(axis=1, keepdims=True)
    rstd = 1.0 / np.sqrt((Xc ** 2).mean(axis=1, keepdims=True) + eps)
    return Xc * rstd, rstd


def _layer_norm_backward(X, g, dY, eps=1e-5):
    Xhat, rstd = _ln_hat(X, eps)
    dXhat = dY * g
    dX = rstd * (dXhat - dXhat.mean(axis=1, keepdims=True) - Xhat * (dXhat * Xhat).mean(axis=1, keepdims=True))
    return dX, (dY * Xhat).sum(axis=0), dY.sum(axis=0)


def _attend_step(q, K_cache, V_cache):
    s = K_cache @ q / math.sqrt(q.shape[0])
    w = np.exp(s - s.max())
    return (w / w.sum()) @ V_cache


def _cache_step(q, k, v, K_cache, V_cache):
    K_new = np.concatenate([K_cache, k[None, :]], axis=0)
    V_new = np.concatenate([V_cache, v[None, :]], axis=0)
    return _attend_step(q, K_new, V_new), K_new, V_new


def _sample_next(logits, temperature, u):
    logits = np.asarray(logits, dtype=float)
    if temperature == 0:
        return int(np.argmax(logits))
    e = np.exp((logits - logits.max()) / temperature)
    cdf = np.cumsum(e / e.sum())
    cdf = cdf / cdf[-1]
    return int(np.searchsorted(cdf, u, side="right"))


def _per_token(n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    """Bytes one token adds to the cache: a key and a value per layer and head, for every sequence."""
    return 2 * n_layers * n_heads * d_head * batch * bytes_per_value


def _kv_cache_bytes(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return _per_token(n_layers, n_heads, d_head, batch, bytes_per_value) * seq_len


def _row(p, t, i):
    return p["tok_emb"][t] + p["pos_emb"][i]


def _changed_rows(attn, X, j, base, tol):
    moved = X.copy()
    moved[j] += 1.0
    change = np.abs(np.asarray(attn(moved), dtype=float) - base).reshape(len(X), -1).max(axis=1)
    return change > tol


def _future_leak(attn, X):
    X = np.array(X, dtype=float)
    base = np.asarray(attn(X), dtype=float)
    tol = 1e-9 * max(1.0, float(np.abs(base).max()))
    worst = 0
    for j in range(len(X)):
        changed = _changed_rows(attn, X, j, base, tol)
        for i in range(j):
            if changed[i]:
                worst = max(worst, j - i)
    return worst


def _tile_mask(S, q_pos0, k0):
    """-inf where key k0 + c comes after query position q_pos0 + r, in place on the tile S."""
    r = np.arange(S.shape[0])[:, None] + q_pos0
    c = np.arange(S.shape[1])[None, :] + k0
    S[c > r] = -np.inf
    return S


def _tiled(Q, K, V, causal=True, block=64, rescale=True, strip=False, end_short=False, first_aligned=False,
           scale=True, divide_each=False, flip=False, acc_only=False):
    """The right tiled attention; each keyword switches on one learner slip (all off: right)."""
    n_q, n_k = Q.shape[0], K.shape[0]
    offset = 0 if first_aligned else n_k - n_q
    s = 1.0 / math.sqrt(Q.shape[1]) if scale else 1.0
    O = np.empty((n_q, V.shape[1]))
    for q0 in range(0, n_q, block):
        Qb = Q[q0:q0 + block] * s
        bq = Qb.shape[0]
        m = np.full((bq, 1), -np.inf)
        l = np.zeros((bq, 1))
        acc = np.zeros((bq, V.shape[1]))
        k_end = min(n_k, offset + q0 + bq) if causal else n_k
        stop = k_end - block if end_short else k_end
        step = k_end if strip else block
        for k0 in range(0, stop, step):
            k1 = k0 + step
            S = Qb @ K[k0:k1].T
            if causal:
                _tile_mask(S, offset + q0, k0)
            m_new = np.maximum(m, S.max(axis=1, keepdims=True))
            P = np.exp(S - m_new)
            if not rescale:
                r = 1.0
            elif flip:
                r = np.where(np.isneginf(m), 0.0, np.exp(m_new - np.where(np.isneginf(m), 0.0, m)))
            else:
                r = np.exp(m - m_new)
            l = l * (1.0 if acc_only else r) + P.sum(axis=1, keepdims=True)
            acc = acc * r + P @ V[k0:k1]
            if divide_each:
                acc = acc / l
                l = np.ones_like(l)
            m = m_new
        O[q0:q0 + bq] = acc / l
    return O


def _generate(p, prompt, n_new, cache_step, residual=True, pos_shift=0, with_pos=True, extra_feed=False,
              short=False):
    """The right greedy loop; each keyword switches on one learner slip (all at their defaults: right)."""
    seq = [int(t) for t in np.asarray(prompt)]
    T, d = len(seq), p["tok_emb"].shape[1]
    want = T + n_new - (1 if short else 0)  # the length of the answer
    K, V = np.zeros((0, d)), np.zeros((0, d))
    for i in range(want if extra_feed else want - 1):  # the last token never needs feeding
        x = p["tok_emb"][seq[i]] + (p["pos_emb"][i + pos_shift] if with_pos else 0.0)
        o, K, V = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K, V)
        if i >= T - 1 and len(seq) < want:
            seq.append(int(np.argmax(((x + o) if residual else o) @ p["W_out"])))
    return np.array(seq, dtype=int)


# =============================================================================
# 01 project, compose

def _project_W_left(x, W):
    return W @ x  # column-vector habit: x' = W x


def _project_loop_short(x, W):
    out = np.zeros(W.shape[1])
    for j in range(W.shape[1]):
        for i in range(W.shape[0] - 1):
            out[j] += x[i] * W[i, j]
    return out


def _project_sum_over_j(x, W):
    return (x[:, None] * W).sum(axis=1)


def _project_acc_starts_at_row0(x, W):
    out = W[0].copy()
    for i in range(len(x)):
        out = out + x[i] * W[i]
    return out


def _project_2d_row(x, W):
    return x[None, :] @ W


def _compose_reversed(W1, W2):
    return W2 @ W1


def _compose_transposed(W1, W2):
    return (W1 @ W2).T


def _compose_loop_short(W1, W2):
    W = np.zeros((W1.shape[0], W2.shape[1]))
    for i in range(W1.shape[0]):
        for j in range(W2.shape[1]):
            for k in range(1, W1.shape[1]):
                W[i, j] += W1[i, k] * W2[k, j]
    return W


def _compose_mean_over_mid(W1, W2):
    return W1 @ W2 / W1.shape[1]


def _compose_elementwise(W1, W2):
    return W1 * W2


# =============================================================================
# 02 project_rows, matmul_cost

def _project_rows_loop_short(X, W):
    out = np.zeros((X.shape[0], W.shape[1]))
    for i in range(X.shape[0] - 1):
        out[i] = X[i] @ W
    return out


def _project_rows_colmajor(X, W):
    return W.T @ X.T


_PR_MEMO = {}


def _project_rows_memo(X, W):
    key = (X.shape, W.shape)
    if key not in _PR_MEMO:
        _PR_MEMO[key] = X @ W
    return _PR_MEMO[key]


def _project_rows_centred(X, W):
    return (X - X.mean(axis=0)) @ W


def _project_rows_torch_linear(X, W):
    return X @ W.T  # nn.Linear habit: its weight is (d_out, d_in) and it applies x @ W.T


def _matmul_cost_additions(n, d_in, d_out):
    return n * d_out * (d_in - 1)


def _matmul_cost_flops(n, d_in, d_out):
    return 2 * n * d_in * d_out


def _matmul_cost_float(n, d_in, d_out):
    return int(float(n) * d_in * d_out)


def _matmul_cost_int32(n, d_in, d_out):
    with np.errstate(over="ignore"):
        return int(np.int32(n) * np.int32(d_in) * np.int32(d_out))


def _matmul_cost_square(n, d_in, d_out):
    return n * d_in * d_in


def _matmul_cost_numpy_int(n, d_in, d_out):
    return np.prod([n, d_in, d_out])


# =============================================================================
# 03 values, one_hot

def _values_unique(tokens, table, Wv):
    X = np.array([table[w] for w in dict.fromkeys(tokens)])
    return X @ Wv


def _values_sorted(tokens, table, Wv):
    X = np.array([table[w] for w in sorted(tokens)])
    return X @ Wv


def _values_transposed(tokens, table, Wv):
    X = np.array([table[w] for w in tokens])
    return Wv.T @ X.T


def _values_skip_first(tokens, table, Wv):
    X = np.array([table[tokens[i]] for i in range(1, len(tokens))])
    return X @ Wv


def _values_whole_table(tokens, table, Wv):
    X = np.array(list(table.values()))
    return X @ Wv


def _one_hot_one_based(ids, vocab_size):
    out = np.zeros((len(ids), vocab_size))
    for i, t in enumerate(ids):
        out[i, t - 1] = 1.0
    return out


def _one_hot_transposed(ids, vocab_size):
    return np.eye(vocab_size)[ids].T


def _one_hot_max_id(ids, vocab_size):
    return np.eye(int(np.max(ids)) + 1)[ids]


def _one_hot_int(ids, vocab_size):
    return np.eye(vocab_size, dtype=int)[ids]


def _one_hot_unique(ids, vocab_size):
    return np.eye(vocab_size)[np.unique(ids)]


def _one_hot_sorts_ids(ids, vocab_size):
    ids.sort()
    return np.eye(vocab_size)[ids]


# =============================================================================
# 04 uniform_causal_weights, causal_average

def _ucw_divide_by_n(n):
    return np.tril(np.ones((n, n))) / n


def _ucw_columns(n):
    return np.tril(np.ones((n, n))) / np.arange(1, n + 1)


def _ucw_transposed(n):
    return (np.tril(np.ones((n, n))) / np.arange(1, n + 1)[:, None]).T


def _ucw_slice_short(n):
    A = np.zeros((n, n))
    for i in range(n):
        A[i, :i] = 1.0 / (i + 1)
    return A


def _ucw_n1_vector(n):
    if n == 1:
        return np.ones(1)
    return np.tril(np.ones((n, n))) / np.arange(1, n + 1)[:, None]


def _causal_average_feature_axis(V):
    return np.cumsum(V, axis=1) / np.arange(1, V.shape[0] + 1)[:, None]


def _causal_average_divide_n(V):
    return np.cumsum(V, axis=0) / V.shape[0]


def _causal_average_future(V):
    n = V.shape[0]
    return np.cumsum(V[::-1], axis=0)[::-1] / np.arange(n, 0, -1)[:, None]


def _causal_average_exclusive(V):
    out = np.empty(V.shape)
    for i in range(V.shape[0]):
        out[i] = V[:i].mean(axis=0) if i else V[0]
    return out


def _causal_average_in_place(V):
    np.cumsum(V, axis=0, out=V)
    V /= np.arange(1, V.shape[0] + 1)[:, None]
    return V


def _causal_average_n1(V):
    if V.shape[0] == 1:
        return V[0]
    return np.cumsum(V, axis=0) / np.arange(1, V.shape[0] + 1)[:, None]


# =============================================================================
# 05 similarity, learned_scores

def _similarity_QtK(Q, K):
    return Q.T @ K


def _similarity_KQt(Q, K):
    return K @ Q.T


def _similarity_scaled(Q, K):
    return Q @ K.T / np.sqrt(Q.shape[1])


def _similarity_diagonal(Q, K):
    return (Q * K).sum(axis=1)


def _similarity_cosine(Q, K):
    Qn = Q / np.linalg.norm(Q, axis=1, keepdims=True)
    Kn = K / np.linalg.norm(K, axis=1, keepdims=True)
    return Qn @ Kn.T


def _learned_scores_wq_twice(X, Wq, Wk):
    Q = X @ Wq
    return Q @ Q.T


def _learned_scores_keys_rows(X, Wq, Wk):
    return (X @ Wk) @ (X @ Wq).T


def _learned_scores_scaled(X, Wq, Wk):
    return _scores(X @ Wq, X @ Wk, scale=True)


def _learned_scores_masked(X, Wq, Wk):
    n = X.shape[0]
    return (X @ Wq) @ (X @ Wk).T + _future_mask(n, n)


def _learned_scores_no_transpose(X, Wq, Wk):
    return X @ Wq @ Wk @ X.T


# =============================================================================
# 06 causal_mask, softmax, score_scale, attention_weights

def _causal_mask_diagonal(n):
    return np.triu(np.full((n, n), -np.inf), k=0)


def _causal_mask_past(n):
    return np.tril(np.full((n, n), -np.inf), k=-1)


def _causal_mask_big_negative(n):
    return np.triu(np.full((n, n), -1e9), k=1)


def _causal_mask_bool(n):
    return np.triu(np.ones((n, n), dtype=bool), k=1)


def _causal_mask_multiplicative(n):
    return np.tril(np.ones((n, n)))


def _causal_mask_times_inf(n):
    with np.errstate(invalid="ignore"):
        return np.triu(np.ones((n, n)), k=1) * -np.inf


def _softmax_last_axis_only(S, axis=-1):
    return _softmax(S, axis=-1)


def _softmax_no_shift(S, axis=-1):
    E = np.exp(np.asarray(S, dtype=float))
    return E / E.sum(axis=axis, keepdims=True)


def _softmax_global_max(S, axis=-1):
    S = np.asarray(S, dtype=float)
    E = np.exp(S - S.max())
    return E / E.sum(axis=axis, keepdims=True)


def _softmax_lse_sign(S, axis=-1):
    S = np.asarray(S, dtype=float)
    Z = S - S.max(axis=axis, keepdims=True)
    return np.exp(Z + np.log(np.exp(Z).sum(axis=axis, keepdims=True)))


def _softmax_no_keepdims(S, axis=-1):
    S = np.asarray(S, dtype=float)
    E = np.exp(S - S.max(axis=axis, keepdims=True))
    return E / E.sum(axis=axis)


def _softmax_clipped(S, axis=-1):
    E = np.exp(np.clip(np.asarray(S, dtype=float), -50.0, 50.0))
    return E / E.sum(axis=axis, keepdims=True)


def _softmax_no_shift_last_axis(S, axis=-1):
    E = np.exp(np.asarray(S, dtype=float))
    return E / E.sum(axis=-1, keepdims=True)


def _softmax_len1(S, axis=-1):
    S = np.asarray(S, dtype=float)
    if S.shape[axis] == 1:
        return S
    return _softmax(S, axis)


def _score_scale_one_over_d(d):
    return 1.0 / d


def _score_scale_sqrt_d(d):
    return float(np.sqrt(d))


def _score_scale_unbiased(d):
    return 1.0 / math.sqrt(d - 1) if d > 1 else 1.0


def _score_scale_measured(d):
    rng = np.random.default_rng(0)
    dots = (rng.standard_normal((20_000, d)) * rng.standard_normal((20_000, d))).sum(axis=1)
    return float(1.0 / dots.std())


def _score_scale_isqrt(d):
    return 1.0 / math.isqrt(d)


def _aw_first_aligned(Q, K, causal=True, scale=True):
    S = _scores(Q, K, scale)
    if causal:
        S = S + np.triu(np.full(S.shape, -np.inf), k=1)
    return _softmax(S)


def _aw_scale_by_nk(Q, K, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / math.sqrt(K.shape[0])
    if causal:
        S = S + _future_mask(Q.shape[0], K.shape[0])
    return _softmax(S)


def _aw_mask_after_softmax(Q, K, causal=True, scale=True):
    A = _softmax(_scores(Q, K, scale))
    if causal:
        A = A * (_future_mask(Q.shape[0], K.shape[0]) == 0)
    return A


def _aw_always_scaled(Q, K, causal=True, scale=True):
    return _weights(Q, K, causal, True)


def _aw_columns(Q, K, causal=True, scale=True):
    S = _scores(Q, K, scale)
    if causal:
        S = S + _future_mask(Q.shape[0], K.shape[0])
    return _softmax(S, axis=0)


def _aw_times_sqrt(Q, K, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S * math.sqrt(Q.shape[1])
    if causal:
        S = S + _future_mask(Q.shape[0], K.shape[0])
    return _softmax(S)


# =============================================================================
# 07 attention, self_attention, future_leak, tiled_attention

def _attention_At(Q, K, V, causal=True, scale=True):
    return _weights(Q, K, causal, scale).T @ V


def _attention_returns_A(Q, K, V, causal=True, scale=True):
    return _weights(Q, K, causal, scale)


def _attention_always_causal(Q, K, V, causal=True, scale=True):
    return _attention(Q, K, V, True, scale)


def _attention_scale_dv(Q, K, V, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / math.sqrt(V.shape[1])
    if causal:
        S = S + _future_mask(Q.shape[0], K.shape[0])
    return _softmax(S) @ V


def _attention_tuple(Q, K, V, causal=True, scale=True):
    A = _weights(Q, K, causal, scale)
    return A @ V, A


def _attention_no_flags(Q, K, V, causal=True, scale=True):
    return _softmax(Q @ K.T) @ V


def _attention_one_key(Q, K, V, causal=True, scale=True):
    if K.shape[0] == 1:
        return V
    return _attention(Q, K, V, causal, scale)


def _self_attention_ignores_wo(X, Wq, Wk, Wv, Wo=None, causal=True):
    return _attention(X @ Wq, X @ Wk, X @ Wv, causal)


def _self_attention_values_from_wk(X, Wq, Wk, Wv, Wo=None, causal=True):
    O = _attention(X @ Wq, X @ Wk, X @ Wk, causal)
    return O if Wo is None else O @ Wo


def _self_attention_unscaled(X, Wq, Wk, Wv, Wo=None, causal=True):
    O = _attention(X @ Wq, X @ Wk, X @ Wv, causal, scale=False)
    return O if Wo is None else O @ Wo


def _self_attention_scale_d_model(X, Wq, Wk, Wv, Wo=None, causal=True):
    S = (X @ Wq) @ (X @ Wk).T / math.sqrt(X.shape[1])
    if causal:
        S = S + _future_mask(X.shape[0], X.shape[0])
    O = _softmax(S) @ (X @ Wv)
    return O if Wo is None else O @ Wo


def _self_attention_residual(X, Wq, Wk, Wv, Wo=None, causal=True):
    O = _attention(X @ Wq, X @ Wk, X @ Wv, causal)
    return X + (O if Wo is None else O @ Wo)


def _self_attention_never_causal(X, Wq, Wk, Wv, Wo=None, causal=True):
    O = _attention(X @ Wq, X @ Wk, X @ Wv, False)
    return O if Wo is None else O @ Wo


def _future_leak_pairs(attn, X):
    X = np.array(X, dtype=float)
    base = np.asarray(attn(X), dtype=float)
    tol = 1e-9 * max(1.0, float(np.abs(base).max()))
    count = 0
    for j in range(len(X)):
        changed = _changed_rows(attn, X, j, base, tol)
        count += int(changed[:j].sum())
    return count


def _future_leak_inclusive(attn, X):
    X = np.array(X, dtype=float)
    base = np.asarray(attn(X), dtype=float)
    tol = 1e-9 * max(1.0, float(np.abs(base).max()))
    worst = 0
    for j in range(len(X)):
        changed = _changed_rows(attn, X, j, base, tol)
        for i in range(j):
            if changed[i]:
                worst = max(worst, j - i + 1)
    return worst


def _future_leak_absolute_tol(attn, X):
    X = np.array(X, dtype=float)
    base = np.asarray(attn(X), dtype=float)
    worst = 0
    for j in range(len(X)):
        changed = _changed_rows(attn, X, j, base, 1e-9)
        for i in range(j):
            if changed[i]:
                worst = max(worst, j - i)
    return worst


def _future_leak_loose_tol(attn, X):
    X = np.array(X, dtype=float)
    base = np.asarray(attn(X), dtype=float)
    tol = 1e-3 * max(1.0, float(np.abs(base).max()))
    worst = 0
    for j in range(len(X)):
        changed = _changed_rows(attn, X, j, base, tol)
        for i in range(j):
            if changed[i]:
                worst = max(worst, j - i)
    return worst


def _future_leak_next_only(attn, X):
    X = np.array(X, dtype=float)
    base = np.asarray(attn(X), dtype=float)
    tol = 1e-9 * max(1.0, float(np.abs(base).max()))
    for j in range(1, len(X)):
        if _changed_rows(attn, X, j, base, tol)[j - 1]:
            return 1
    return 0


def _future_leak_no_copy(attn, X):
    base = np.asarray(attn(X), dtype=float)
    tol = 1e-9 * max(1.0, float(np.abs(base).max()))
    worst = 0
    for j in range(len(X)):
        moved = X  # no copy: every move stays, and X is the caller's array
        moved[j] += 1.0
        change = np.abs(np.asarray(attn(moved), dtype=float) - base).reshape(len(X), -1).max(axis=1)
        for i in range(j):
            if change[i] > tol:
                worst = max(worst, j - i)
    return worst


def _future_leak_backwards(attn, X):
    X = np.array(X, dtype=float)
    base = np.asarray(attn(X), dtype=float)
    tol = 1e-9 * max(1.0, float(np.abs(base).max()))
    worst = 0
    for j in range(len(X)):
        changed = _changed_rows(attn, X, j, base, tol)
        for i in range(j + 1, len(X)):
            if changed[i]:
                worst = max(worst, i - j)
    return worst


def _tiled_no_rescale(Q, K, V, causal=True, block=64):
    return _tiled(Q, K, V, causal, block, rescale=False)


def _tiled_rescale_sign(Q, K, V, causal=True, block=64):
    with np.errstate(over="ignore"):
        return _tiled(Q, K, V, causal, block, flip=True)


def _tiled_divide_each_tile(Q, K, V, causal=True, block=64):
    return _tiled(Q, K, V, causal, block, divide_each=True)


def _tiled_first_aligned(Q, K, V, causal=True, block=64):
    return _tiled(Q, K, V, causal, block, first_aligned=True)


def _tiled_unscaled(Q, K, V, causal=True, block=64):
    return _tiled(Q, K, V, causal, block, scale=False)


def _tiled_acc_only(Q, K, V, causal=True, block=64):
    return _tiled(Q, K, V, causal, block, acc_only=True)


def _tiled_strip(Q, K, V, causal=True, block=64):
    return _tiled(Q, K, V, causal, block, strip=True)


def _tiled_last_tile_dropped(Q, K, V, causal=True, block=64):
    with np.errstate(invalid="ignore", divide="ignore"):
        return _tiled(Q, K, V, causal, block, end_short=True)


# =============================================================================
# 08 embed, sinusoidal_positions

def _embed(tokens, tok_emb, pos_emb):
    tokens = np.asarray(tokens)
    return tok_emb[tokens] + pos_emb[:len(tokens)]


def _embed_pos_by_id(tokens, tok_emb, pos_emb):
    return tok_emb[tokens] + pos_emb[tokens]


def _embed_last_positions(tokens, tok_emb, pos_emb):
    return tok_emb[tokens] + pos_emb[-len(tokens):]


def _embed_one_based(tokens, tok_emb, pos_emb):
    return tok_emb[tokens] + pos_emb[1:len(tokens) + 1]


def _embed_concat(tokens, tok_emb, pos_emb):
    return np.concatenate([tok_emb[tokens], pos_emb[:len(tokens)]], axis=1)


def _embed_product(tokens, tok_emb, pos_emb):
    return tok_emb[tokens] * pos_emb[:len(tokens)]


def _embed_into_pos_emb(tokens, tok_emb, pos_emb):
    for i, t in enumerate(tokens):
        pos_emb[i] += tok_emb[t]
    return pos_emb[:len(tokens)]


def _sinusoid(n, d, pair_exp=True, swap=False, halves=False, t0=0, multiply=False):
    """The right table; each keyword switches on one learner slip (all at their defaults: right)."""
    t = np.arange(t0, t0 + n, dtype=float)[:, None]
    i = np.arange(d // 2)[None, :]
    rate = 10000.0 ** ((2 * i if pair_exp else i) / d)
    angle = t * rate if multiply else t / rate
    first, second = (np.cos(angle), np.sin(angle)) if swap else (np.sin(angle), np.cos(angle))
    if halves:
        return np.concatenate([first, second], axis=1)
    P = np.empty((n, d))
    P[:, 0::2], P[:, 1::2] = first, second
    return P


def _sinusoidal_i_over_d(n, d):
    return _sinusoid(n, d, pair_exp=False)


def _sinusoidal_swapped(n, d):
    return _sinusoid(n, d, swap=True)


def _sinusoidal_halves(n, d):
    return _sinusoid(n, d, halves=True)


def _sinusoidal_from_one(n, d):
    return _sinusoid(n, d, t0=1)


def _sinusoidal_multiplied(n, d):
    return _sinusoid(n, d, multiply=True)


def _sinusoidal_from_one_swapped(n, d):
    return _sinusoid(n, d, swap=True, t0=1)


def _sinusoidal_column_index(n, d):
    t = np.arange(n)[:, None]
    j = np.arange(d)[None, :]
    angle = t / 10000.0 ** (2 * j / d)
    return np.where(j % 2 == 0, np.sin(angle), np.cos(angle))


# =============================================================================
# 09 split_heads, multi_head_attention

def _split_heads_plain_reshape(M, n_heads):
    n, d_model = M.shape
    return M.reshape(n_heads, n, d_model // n_heads)


def _split_heads_strided(M, n_heads):
    n, d_model = M.shape
    return M.reshape(n, d_model // n_heads, n_heads).transpose(2, 0, 1)


def _split_heads_list(M, n_heads):
    d_head = M.shape[1] // n_heads
    return [M[:, h * d_head:(h + 1) * d_head] for h in range(n_heads)]


def _split_heads_no_swap(M, n_heads):
    n, d_model = M.shape
    return M.reshape(n, n_heads, d_model // n_heads)


def _split_heads_reshapes_M(M, n_heads):
    n, d_model = M.shape
    M.shape = (n, n_heads, d_model // n_heads)
    return M.transpose(1, 0, 2)


def _split_heads_width_n_heads(M, n_heads):
    n, d_model = M.shape
    return M.reshape(n, d_model // n_heads, n_heads).transpose(1, 0, 2)


def _mha_scale_d_model(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    Q, K, V = _split(X @ Wq, n_heads), _split(X @ Wk, n_heads), _split(X @ Wv, n_heads)
    heads = []
    for h in range(n_heads):
        S = Q[h] @ K[h].T / math.sqrt(X.shape[1])
        if causal:
            S = S + _future_mask(len(S), len(S))
        heads.append(_softmax(S) @ V[h])
    return np.concatenate(heads, axis=1) @ Wo


def _mha_strided_heads(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    Q, K, V = (_split_heads_strided(X @ W, n_heads) for W in (Wq, Wk, Wv))
    heads = [_attention(Q[h], K[h], V[h], causal) for h in range(n_heads)]
    return np.concatenate(heads, axis=1) @ Wo


def _mha_reversed_concat(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    Q, K, V = _split(X @ Wq, n_heads), _split(X @ Wk, n_heads), _split(X @ Wv, n_heads)
    heads = [_attention(Q[h], K[h], V[h], causal) for h in range(n_heads)]
    return np.concatenate(heads[::-1], axis=1) @ Wo


def _mha_always_causal(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    return _mha(X, Wq, Wk, Wv, Wo, n_heads, True)


def _mha_softmax_over_heads(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    Q, K, V = _split(X @ Wq, n_heads), _split(X @ Wk, n_heads), _split(X @ Wv, n_heads)
    S = Q @ K.transpose(0, 2, 1) / math.sqrt(Q.shape[2])  # (h, n, n)
    if causal:
        S = S + _future_mask(S.shape[1], S.shape[2])
    A = _softmax(S, axis=0)
    O = A @ V  # (h, n, d_head)
    return np.concatenate(list(O), axis=1) @ Wo


def _mha_strided_scale_d_model(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    Q, K, V = (_split_heads_strided(X @ W, n_heads) for W in (Wq, Wk, Wv))
    heads = []
    for h in range(n_heads):
        S = Q[h] @ K[h].T / math.sqrt(X.shape[1])
        if causal:
            S = S + _future_mask(len(S), len(S))
        heads.append(_softmax(S) @ V[h])
    return np.concatenate(heads, axis=1) @ Wo


def _mha_one_head_no_wo(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    if n_heads == 1:
        return _attention(X @ Wq, X @ Wk, X @ Wv, causal)
    return _mha(X, Wq, Wk, Wv, Wo, n_heads, causal)


# =============================================================================
# 10 layer_norm, gelu, transformer_block

def _layer_norm_unbiased(X, g, b, eps=1e-5):
    mu = X.mean(axis=1, keepdims=True)
    return (X - mu) / np.sqrt(X.var(axis=1, ddof=1, keepdims=True) + eps) * g + b


def _layer_norm_eps_outside(X, g, b, eps=1e-5):
    mu = X.mean(axis=1, keepdims=True)
    return (X - mu) / (X.std(axis=1, keepdims=True) + eps) * g + b


def _layer_norm_torch_std(X, g, b, eps=1e-5):
    mu = X.mean(axis=1, keepdims=True)
    return (X - mu) / (X.std(axis=1, ddof=1, keepdims=True) + eps) * g + b


def _layer_norm_columns(X, g, b, eps=1e-5):
    mu = X.mean(axis=0, keepdims=True)
    return (X - mu) / np.sqrt(X.var(axis=0, keepdims=True) + eps) * g + b


def _layer_norm_rms(X, g, b, eps=1e-5):
    return X / np.sqrt((X ** 2).mean(axis=1, keepdims=True) + eps) * g + b


def _layer_norm_g_b_swapped(X, g, b, eps=1e-5):
    mu = X.mean(axis=1, keepdims=True)
    return (X - mu) / np.sqrt(X.var(axis=1, keepdims=True) + eps) * b + g


def _layer_norm_whole_matrix(X, g, b, eps=1e-5):
    return (X - X.mean()) / np.sqrt(X.var() + eps) * g + b


def _layer_norm_in_place(X, g, b, eps=1e-5):
    X -= X.mean(axis=1, keepdims=True)
    X /= np.sqrt((X ** 2).mean(axis=1, keepdims=True) + eps)
    X *= g
    X += b
    return X


def _gelu_relu(X):
    return np.maximum(np.asarray(X, dtype=float), 0.0)


def _gelu_square(X):
    X = np.asarray(X, dtype=float)
    return 0.5 * X * (1.0 + np.tanh(_C * (X + 0.044715 * X ** 2)))


def _gelu_sqrt_2pi(X):
    X = np.asarray(X, dtype=float)
    return 0.5 * X * (1.0 + np.tanh(math.sqrt(2.0 * math.pi) * (X + 0.044715 * X ** 3)))


_ERF = np.vectorize(math.erf, otypes=[float])


def _gelu_erf(X):
    X = np.asarray(X, dtype=float)
    return 0.5 * X * (1.0 + _ERF(X / math.sqrt(2.0)))


def _gelu_sigmoid_1702(X):
    X = np.asarray(X, dtype=float)
    return X / (1.0 + np.exp(-1.702 * X))


def _gelu_no_half(X):
    X = np.asarray(X, dtype=float)
    return X * (1.0 + np.tanh(_C * (X + 0.044715 * X ** 3)))


def _gelu_2d_loops(X):
    out = np.empty(X.shape)
    for i in range(X.shape[0]):
        for j in range(X.shape[1]):
            out[i, j] = _gelu(X[i, j])
    return out


def _block_post_ln(X, p, n_heads, causal=True):
    Y = _layer_norm(X + _mha(X, p["Wq"], p["Wk"], p["Wv"], p["Wo"], n_heads, causal), p["ln1_g"], p["ln1_b"])
    return _layer_norm(Y + _mlp(Y, p), p["ln2_g"], p["ln2_b"])


def _block_no_first_residual(X, p, n_heads, causal=True):
    Y = _mha(_layer_norm(X, p["ln1_g"], p["ln1_b"]), p["Wq"], p["Wk"], p["Wv"], p["Wo"], n_heads, causal)
    return Y + _mlp(_layer_norm(Y, p["ln2_g"], p["ln2_b"]), p)


def _block_ln1_twice(X, p, n_heads, causal=True):
    Y = X + _mha(_layer_norm(X, p["ln1_g"], p["ln1_b"]), p["Wq"], p["Wk"], p["Wv"], p["Wo"], n_heads, causal)
    return Y + _mlp(_layer_norm(Y, p["ln1_g"], p["ln1_b"]), p)


def _block_no_second_norm(X, p, n_heads, causal=True):
    Y = X + _mha(_layer_norm(X, p["ln1_g"], p["ln1_b"]), p["Wq"], p["Wk"], p["Wv"], p["Wo"], n_heads, causal)
    return Y + _mlp(Y, p)


def _block_b1_after_gelu(X, p, n_heads, causal=True):
    Y = X + _mha(_layer_norm(X, p["ln1_g"], p["ln1_b"]), p["Wq"], p["Wk"], p["Wv"], p["Wo"], n_heads, causal)
    H = _layer_norm(Y, p["ln2_g"], p["ln2_b"])
    return Y + (_gelu(H @ p["W1"]) + p["b1"]) @ p["W2"] + p["b2"]


def _block_mlp_reads_X(X, p, n_heads, causal=True):
    Y = X + _mha(_layer_norm(X, p["ln1_g"], p["ln1_b"]), p["Wq"], p["Wk"], p["Wv"], p["Wo"], n_heads, causal)
    return Y + _mlp(_layer_norm(X, p["ln2_g"], p["ln2_b"]), p)


def _block_always_causal(X, p, n_heads, causal=True):
    return _block(X, p, n_heads, True)


# =============================================================================
# 11 next_token_logits, cross_entropy, softmax_backward, attention_backward, layer_norm_backward

def _next_token_logits(H, W_vocab):
    return H[-1] @ W_vocab


def _ntl_first_row(H, W_vocab):
    return H[0] @ W_vocab


def _ntl_all_rows(H, W_vocab):
    return H @ W_vocab


def _ntl_softmax(H, W_vocab):
    return _softmax(H[-1] @ W_vocab)


def _ntl_mean_row(H, W_vocab):
    return H.mean(axis=0) @ W_vocab


def _ntl_second_last(H, W_vocab):
    return H[len(H) - 2] @ W_vocab


def _ntl_one_row_2d(H, W_vocab):
    if H.shape[0] == 1:
        return H @ W_vocab
    return H[-1] @ W_vocab


def _ce_grad_not_mean(logits, targets):
    loss, d = _cross_entropy(logits, targets)
    return loss, d * logits.shape[0]


def _ce_loss_sum(logits, targets):
    loss, d = _cross_entropy(logits, targets)
    return loss * logits.shape[0], d


def _ce_sum_consistently(logits, targets):
    loss, d = _cross_entropy(logits, targets)
    return loss * logits.shape[0], d * logits.shape[0]


def _ce_log_of_softmax(logits, targets):
    rows = np.arange(logits.shape[0])
    P = _softmax(logits, axis=1)
    with np.errstate(divide="ignore"):
        loss = -np.log(P[rows, targets]).mean()
    d = P.copy()
    d[rows, targets] -= 1.0
    return loss, d / logits.shape[0]


def _ce_lse_sign(logits, targets):
    rows = np.arange(logits.shape[0])
    Z = logits - logits.max(axis=1, keepdims=True)
    logp = Z + np.log(np.exp(Z).sum(axis=1, keepdims=True))
    d = _softmax(logits, axis=1)
    d[rows, targets] -= 1.0
    return -logp[rows, targets].mean(), d / logits.shape[0]


def _ce_grad_sign(logits, targets):
    loss, d = _cross_entropy(logits, targets)
    return loss, -d


def _ce_every_target(logits, targets):
    logp = _log_softmax(np.asarray(logits, dtype=float))
    _, d = _cross_entropy(logits, targets)
    return -logp[:, targets].mean(), d


def _ce_swapped(logits, targets):
    loss, d = _cross_entropy(logits, targets)
    return d, loss


def _ce_grad_over_vocab(logits, targets):
    loss, d = _cross_entropy(logits, targets)
    return loss, d * logits.shape[0] / logits.shape[1]


def _ce_shifts_in_place(logits, targets):
    logits -= logits.max(axis=1, keepdims=True)
    return _cross_entropy(logits, targets)


def _smb_diagonal(A, dA):
    return A * (1.0 - A) * dA


def _smb_plain_sum(A, dA):
    return A * (dA - np.sum(dA, axis=-1, keepdims=True))


def _smb_first_axis(A, dA):
    return A * (dA - np.sum(A * dA, axis=0, keepdims=True))


def _smb_no_keepdims(A, dA):
    return A * (dA - np.sum(A * dA, axis=-1))


def _smb_no_A(A, dA):
    return dA - np.sum(A * dA, axis=-1, keepdims=True)


def _smb_matrix_only(A, dA):
    dS = np.empty(A.shape)
    for i in range(A.shape[0]):
        J = np.diag(A[i]) - np.outer(A[i], A[i])
        dS[i] = J @ dA[i]
    return dS


def _ab_dV_untransposed(Q, K, V, dO, causal=True, scale=True):
    dQ, dK, _ = _attention_backward(Q, K, V, dO, causal, scale)
    return dQ, dK, _weights(Q, K, causal, scale) @ dO


def _ab_no_scale(Q, K, V, dO, causal=True, scale=True):
    A = _weights(Q, K, causal, scale)
    dS = _softmax_backward(A, dO @ V.T)
    return dS @ K, dS.T @ Q, A.T @ dO


def _ab_dK_untransposed(Q, K, V, dO, causal=True, scale=True):
    s = 1.0 / math.sqrt(Q.shape[1]) if scale else 1.0
    A = _weights(Q, K, causal, scale)
    dS = _softmax_backward(A, dO @ V.T) * s
    return dS @ K, dS @ Q, A.T @ dO


def _ab_softmax_identity(Q, K, V, dO, causal=True, scale=True):
    s = 1.0 / math.sqrt(Q.shape[1]) if scale else 1.0
    A = _weights(Q, K, causal, scale)
    dS = (dO @ V.T) * s
    return dS @ K, dS.T @ Q, A.T @ dO


def _ab_scale_twice(Q, K, V, dO, causal=True, scale=True):
    s = 1.0 / math.sqrt(Q.shape[1]) if scale else 1.0
    A = _weights(Q, K, causal, scale)
    dS = _softmax_backward(A, dO @ V.T) * s * s
    return dS @ K, dS.T @ Q, A.T @ dO


def _ab_first_aligned(Q, K, V, dO, causal=True, scale=True):
    s = 1.0 / math.sqrt(Q.shape[1]) if scale else 1.0
    A = _aw_first_aligned(Q, K, causal, scale)
    dS = _softmax_backward(A, dO @ V.T) * s
    return dS @ K, dS.T @ Q, A.T @ dO


def _ab_reversed_order(Q, K, V, dO, causal=True, scale=True):
    dQ, dK, dV = _attention_backward(Q, K, V, dO, causal, scale)
    return dV, dK, dQ


def _ab_dK_doubled(Q, K, V, dO, causal=True, scale=True):
    dQ, dK, dV = _attention_backward(Q, K, V, dO, causal, scale)
    return dQ, 2.0 * dK, dV


def _lnb_constant_stats(X, g, dY, eps=1e-5):
    Xhat, rstd = _ln_hat(X, eps)
    return dY * g * rstd, (dY * Xhat).sum(axis=0), dY.sum(axis=0)


def _lnb_no_variance_term(X, g, dY, eps=1e-5):
    Xhat, rstd = _ln_hat(X, eps)
    dXhat = dY * g
    return rstd * (dXhat - dXhat.mean(axis=1, keepdims=True)), (dY * Xhat).sum(axis=0), dY.sum(axis=0)


def _lnb_dg_is_db(X, g, dY, eps=1e-5):
    dX, _, db = _layer_norm_backward(X, g, dY, eps)
    return dX, dY.sum(axis=0), db


def _lnb_dg_per_row(X, g, dY, eps=1e-5):
    dX, _, db = _layer_norm_backward(X, g, dY, eps)
    return dX, dY * _ln_hat(X, eps)[0], db


def _lnb_unbiased(X, g, dY, eps=1e-5):
    d = X.shape[1]
    Xc = X - X.mean(axis=1, keepdims=True)
    rstd = 1.0 / np.sqrt((Xc ** 2).sum(axis=1, keepdims=True) / (d - 1) + eps)
    Xhat = Xc * rstd
    dXhat = dY * g
    dX = rstd * (dXhat - dXhat.mean(axis=1, keepdims=True) - Xhat * (dXhat * Xhat).mean(axis=1, keepdims=True))
    return dX, (dY * Xhat).sum(axis=0), dY.sum(axis=0)


def _lnb_dg_db_swapped(X, g, dY, eps=1e-5):
    dX, dg, db = _layer_norm_backward(X, g, dY, eps)
    return dX, db, dg


def _lnb_no_g(X, g, dY, eps=1e-5):
    return _layer_norm_backward(X, np.ones_like(g), dY, eps)[0], *_layer_norm_backward(X, g, dY, eps)[1:]


# =============================================================================
# 12 most_attended, attention_entropy

def _most_attended_columns(A, tokens):
    return [tokens[j] for j in np.argmax(A, axis=0)]


def _most_attended_last_tie(A, tokens):
    n_k = A.shape[1]
    return [tokens[n_k - 1 - int(np.argmax(row[::-1]))] for row in A]


def _most_attended_indices(A, tokens):
    return [int(j) for j in np.argmax(A, axis=1)]


def _most_attended_argmin(A, tokens):
    return [tokens[j] for j in np.argmin(A, axis=1)]


def _most_attended_array(A, tokens):
    return np.array(tokens)[np.argmax(A, axis=1)]


def _most_attended_one_based(A, tokens):
    return [tokens[j - 1] for j in np.argmax(A, axis=1)]


def _most_attended_skips_self(A, tokens):
    B = np.array(A, dtype=float)
    np.fill_diagonal(B, -1.0)
    return [tokens[j] for j in np.argmax(B, axis=1)]


def _entropy(A):
    logs = np.log(np.where(A > 0, A, 1.0))
    return -(A * logs).sum(axis=1)


def _entropy_bits(A):
    return _entropy(A) / math.log(2.0)


def _entropy_no_minus(A):
    return -_entropy(A)


def _entropy_nan_zeros(A):
    with np.errstate(divide="ignore", invalid="ignore"):
        return -(A * np.log(A)).sum(axis=1)


def _entropy_columns(A):
    logs = np.log(np.where(A > 0, A, 1.0))
    return -(A * logs).sum(axis=0)


def _entropy_normalised(A):
    return _entropy(A) / math.log(A.shape[1]) if A.shape[1] > 1 else _entropy(A)


def _entropy_mean_over_keys(A):
    logs = np.log(np.where(A > 0, A, 1.0))
    return -(A * logs).mean(axis=1)


# =============================================================================
# 13 padding_mask, cross_attention

def _padding_mask(n_q, n_valid, n_k):
    M = np.zeros((n_q, n_k))
    M[:, n_valid:] = -np.inf
    return M


def _padding_mask_one_late(n_q, n_valid, n_k):
    M = np.zeros((n_q, n_k))
    M[:, n_valid + 1:] = -np.inf
    return M


def _padding_mask_inverted(n_q, n_valid, n_k):
    M = np.zeros((n_q, n_k))
    M[:, :n_valid] = -np.inf
    return M


def _padding_mask_transposed(n_q, n_valid, n_k):
    return _padding_mask(n_q, n_valid, n_k).T


def _padding_mask_one_row(n_q, n_valid, n_k):
    return np.where(np.arange(n_k) < n_valid, 0.0, -np.inf)


def _padding_mask_plus_causal(n_q, n_valid, n_k):
    return _padding_mask(n_q, n_valid, n_k) + _future_mask(n_q, n_k)


def _padding_mask_big_negative(n_q, n_valid, n_k):
    M = np.zeros((n_q, n_k))
    M[:, n_valid:] = -1e9
    return M


def _padding_mask_bool(n_q, n_valid, n_k):
    return np.broadcast_to(np.arange(n_k) >= n_valid, (n_q, n_k)).copy()


def _cross_kv_from_X(X, Z, Wq, Wk, Wv):
    return _attention(X @ Wq, X @ Wk, X @ Wv, causal=False)


def _cross_masked(X, Z, Wq, Wk, Wv):
    Q, K = X @ Wq, Z @ Wk
    S = _scores(Q, K) + np.triu(np.full((Q.shape[0], K.shape[0]), -np.inf), k=1)
    return _softmax(S) @ (Z @ Wv)


def _cross_scale_d_model(X, Z, Wq, Wk, Wv):
    S = (X @ Wq) @ (Z @ Wk).T / math.sqrt(X.shape[1])
    return _softmax(S) @ (Z @ Wv)


def _cross_roles_swapped(X, Z, Wq, Wk, Wv):
    return _attention(Z @ Wq, X @ Wk, X @ Wv, causal=False)


def _cross_unscaled(X, Z, Wq, Wk, Wv):
    return _attention(X @ Wq, Z @ Wk, Z @ Wv, causal=False, scale=False)


def _cross_softmax_over_queries(X, Z, Wq, Wk, Wv):
    return _softmax(_scores(X @ Wq, Z @ Wk), axis=0) @ (Z @ Wv)


# =============================================================================
# 14 attend_step, cache_step, sample_next, generate, kv_cache_bytes, max_cached_tokens

def _attend_step_no_shift(q, K_cache, V_cache):
    with np.errstate(over="ignore", invalid="ignore"):
        w = np.exp(K_cache @ q / math.sqrt(q.shape[0]))
        return (w / w.sum()) @ V_cache


def _attend_step_scale_t(q, K_cache, V_cache):
    s = K_cache @ q / math.sqrt(K_cache.shape[0])
    w = np.exp(s - s.max())
    return (w / w.sum()) @ V_cache


def _attend_step_mixes_keys(q, K_cache, V_cache):
    s = K_cache @ q / math.sqrt(q.shape[0])
    w = np.exp(s - s.max())
    return (w / w.sum()) @ K_cache


def _attend_step_excludes_self(q, K_cache, V_cache):
    if K_cache.shape[0] == 1:
        return V_cache[0]
    return _attend_step(q, K_cache[:-1], V_cache[:-1])


def _attend_step_square_mask(q, K_cache, V_cache):
    return _aw_first_aligned(q[None, :], K_cache)[0] @ V_cache


def _attend_step_2d(q, K_cache, V_cache):
    return _attend_step(q, K_cache, V_cache)[None, :]


def _cache_step_prepends(q, k, v, K_cache, V_cache):
    K_new = np.concatenate([k[None, :], K_cache], axis=0)
    V_new = np.concatenate([v[None, :], V_cache], axis=0)
    return _attend_step(q, K_new, V_new), K_new, V_new


def _cache_step_attends_old(q, k, v, K_cache, V_cache):
    K_new = np.concatenate([K_cache, k[None, :]], axis=0)
    V_new = np.concatenate([V_cache, v[None, :]], axis=0)
    if K_cache.shape[0] == 0:
        return v.copy(), K_new, V_new
    return _attend_step(q, K_cache, V_cache), K_new, V_new


_OWN_CACHE = {}


def _cache_step_own_global(q, k, v, K_cache, V_cache):
    K_old = _OWN_CACHE.get("K", K_cache)
    V_old = _OWN_CACHE.get("V", V_cache)
    _OWN_CACHE["K"] = K_new = np.concatenate([K_old, k[None, :]], axis=0)
    _OWN_CACHE["V"] = V_new = np.concatenate([V_old, v[None, :]], axis=0)
    return _attend_step(q, K_new, V_new), K_new, V_new


def _cache_step_order(q, k, v, K_cache, V_cache):
    o, K_new, V_new = _cache_step(q, k, v, K_cache, V_cache)
    return K_new, V_new, o


def _cache_step_k_v_swapped(q, k, v, K_cache, V_cache):
    K_new = np.concatenate([K_cache, v[None, :]], axis=0)
    V_new = np.concatenate([V_cache, k[None, :]], axis=0)
    return _attend_step(q, K_new, V_new), K_new, V_new


def _cache_step_first_zero(q, k, v, K_cache, V_cache):
    o, K_new, V_new = _cache_step(q, k, v, K_cache, V_cache)
    if K_cache.shape[0] == 0:
        return np.zeros_like(v, dtype=float), K_new, V_new
    return o, K_new, V_new


def _sample_next_at_or_above(logits, temperature, u):
    logits = np.asarray(logits, dtype=float)
    if temperature == 0:
        return int(np.argmax(logits))
    e = np.exp((logits - logits.max()) / temperature)
    cdf = np.cumsum(e / e.sum())
    cdf = cdf / cdf[-1]
    return int(np.searchsorted(cdf, u, side="left"))


def _sample_next_times_temperature(logits, temperature, u):
    logits = np.asarray(logits, dtype=float)
    if temperature == 0:
        return int(np.argmax(logits))
    z = logits * temperature
    e = np.exp(z - z.max())
    cdf = np.cumsum(e / e.sum())
    cdf = cdf / cdf[-1]
    return int(np.searchsorted(cdf, u, side="right"))


def _sample_next_last_tie(logits, temperature, u):
    logits = np.asarray(logits, dtype=float)
    if temperature == 0:
        return int(len(logits) - 1 - np.argmax(logits[::-1]))
    return _sample_next(logits, temperature, u)


def _sample_next_no_rescale(logits, temperature, u):
    logits = np.asarray(logits, dtype=float)
    if temperature == 0:
        return int(np.argmax(logits))
    e = np.exp((logits - logits.max()) / temperature)
    cdf = np.cumsum(e / e.sum())
    return int(np.searchsorted(cdf, u, side="right"))


def _sample_next_numpy_int(logits, temperature, u):
    logits = np.asarray(logits, dtype=float)
    if temperature == 0:
        return np.argmax(logits)
    e = np.exp((logits - logits.max()) / temperature)
    cdf = np.cumsum(e / e.sum())
    return np.searchsorted(cdf / cdf[-1], u, side="right")


def _sample_next_no_shift(logits, temperature, u):
    logits = np.asarray(logits, dtype=float)
    if temperature == 0:
        return int(np.argmax(logits))
    with np.errstate(over="ignore", invalid="ignore"):
        e = np.exp(logits / temperature)
        cdf = np.cumsum(e / e.sum())
        cdf = cdf / cdf[-1]
    return int(np.searchsorted(cdf, u, side="right"))


def _sample_next_own_probability(logits, temperature, u):
    logits = np.asarray(logits, dtype=float)
    if temperature == 0:
        return int(np.argmax(logits))
    p = _softmax(logits / temperature)
    return int(np.argmax(p > u))


def _sample_next_no_zero_case(logits, temperature, u):
    logits = np.asarray(logits, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        z = logits / np.float64(temperature)
        e = np.exp(z - z.max())
        cdf = np.cumsum(e / e.sum())
        cdf = cdf / cdf[-1]
    return int(np.searchsorted(cdf, u, side="right"))


def _generate_right(p, prompt, n_new, cache_step):
    return _generate(p, prompt, n_new, cache_step)


def _generate_no_residual(p, prompt, n_new, cache_step):
    return _generate(p, prompt, n_new, cache_step, residual=False)


def _generate_positions_from_one(p, prompt, n_new, cache_step):
    return _generate(p, prompt, n_new, cache_step, pos_shift=1)


def _generate_no_positions(p, prompt, n_new, cache_step):
    return _generate(p, prompt, n_new, cache_step, with_pos=False)


def _generate_feeds_last(p, prompt, n_new, cache_step):
    return _generate(p, prompt, n_new, cache_step, extra_feed=True)


def _generate_one_short(p, prompt, n_new, cache_step):
    return _generate(p, prompt, n_new, cache_step, short=True)


def _generate_new_only(p, prompt, n_new, cache_step):
    return _generate(p, prompt, n_new, cache_step)[len(prompt):]


def _generate_own_attention(p, prompt, n_new, cache_step):
    return _generate(p, prompt, n_new, _cache_step)


def _generate_floats(p, prompt, n_new, cache_step):
    return _generate(p, prompt, n_new, cache_step).astype(float)


def _kv_no_two(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return n_layers * n_heads * d_head * seq_len * batch * bytes_per_value


def _kv_no_two_no_batch(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return n_layers * n_heads * d_head * seq_len * bytes_per_value


def _kv_bits(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return 8 * _kv_cache_bytes(n_layers, n_heads, d_head, seq_len, batch, bytes_per_value)


def _kv_no_batch(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return 2 * n_layers * n_heads * d_head * seq_len * bytes_per_value


def _kv_gib(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return _kv_cache_bytes(n_layers, n_heads, d_head, seq_len, batch, bytes_per_value) / 2 ** 30


def _kv_float(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return 2.0 * n_layers * n_heads * d_head * seq_len * batch * bytes_per_value


def _kv_fixed_two_bytes(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return 2 * n_layers * n_heads * d_head * seq_len * batch * 2


def _mct_float_division(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    return int(memory_bytes / _per_token(n_layers, n_heads, d_head, batch, bytes_per_value))


def _mct_ceiling(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    return -(-memory_bytes // _per_token(n_layers, n_heads, d_head, batch, bytes_per_value))


def _mct_first_overflow(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    return memory_bytes // _per_token(n_layers, n_heads, d_head, batch, bytes_per_value) + 1


def _mct_no_two(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    return memory_bytes // (n_layers * n_heads * d_head * batch * bytes_per_value)


def _mct_no_batch(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    return memory_bytes // _per_token(n_layers, n_heads, d_head, 1, bytes_per_value)


def _mct_at_least_one(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    return max(1, memory_bytes // _per_token(n_layers, n_heads, d_head, batch, bytes_per_value))


def _mct_strict(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    return (memory_bytes - 1) // _per_token(n_layers, n_heads, d_head, batch, bytes_per_value)


# =============================================================================
# acceptable answers: right, but written differently from the helpers above

def _ok_project_einsum(x, W):
    return np.einsum("i,ij->j", x, W)


def _ok_project_loops(x, W):
    out = np.zeros(W.shape[1])
    for j in range(W.shape[1]):
        for i in range(W.shape[0]):
            out[j] += x[i] * W[i, j]
    return out


def _ok_project_column_vector(x, W):
    return W.T @ x  # the textbook's W x, with the course's W transposed back


def _ok_compose_einsum(W1, W2):
    return np.einsum("ik,kj->ij", W1, W2)


def _ok_compose_transposes(W1, W2):
    return (W2.T @ W1.T).T


def _ok_project_rows_stack(X, W):
    return np.stack([x @ W for x in X])


def _ok_project_rows_einsum(X, W):
    return np.einsum("ni,io->no", X, W)


def _ok_matmul_cost_prod(n, d_in, d_out):
    return math.prod((int(n), int(d_in), int(d_out)))


def _ok_matmul_cost_per_entry(n, d_in, d_out):
    entries = n * d_out
    return entries * d_in


def _ok_values_rows(tokens, table, Wv):
    return np.stack([np.asarray(table[w]) @ Wv for w in tokens])


def _ok_one_hot_compare(ids, vocab_size):
    return (np.asarray(ids)[:, None] == np.arange(vocab_size)[None, :]).astype(float)


def _ok_one_hot_loop(ids, vocab_size):
    out = np.zeros((len(ids), vocab_size))
    for i in range(len(ids)):
        out[i, ids[i]] = 1.0
    return out


def _ok_ucw_loop(n):
    A = np.zeros((n, n))
    for i in range(n):
        for j in range(i + 1):
            A[i, j] = 1.0 / (i + 1)
    return A


def _ok_ucw_row_sums(n):
    L = np.tril(np.ones((n, n)))
    return L / L.sum(axis=1, keepdims=True)


def _ok_causal_average_matrix(V):
    n = V.shape[0]
    L = np.tril(np.ones((n, n)))
    return (L / L.sum(axis=1, keepdims=True)) @ V


def _ok_causal_average_running(V):
    out = np.empty(V.shape)
    total = np.zeros(V.shape[1])
    for i in range(V.shape[0]):
        total = total + V[i]
        out[i] = total / (i + 1)
    return out


def _ok_similarity_einsum(Q, K):
    return np.einsum("id,jd->ij", Q, K)


def _ok_similarity_inner(Q, K):
    return np.inner(Q, K)


def _ok_learned_scores_bilinear(X, Wq, Wk):
    return X @ (Wq @ Wk.T) @ X.T


def _ok_causal_mask_where(n):
    i, j = np.indices((n, n))
    return np.where(j > i, -np.inf, 0.0)


def _ok_causal_mask_loop(n):
    M = np.zeros((n, n))
    for i in range(n):
        M[i, i + 1:] = -np.inf
    return M


def _ok_softmax_lse(S, axis=-1):
    S = np.asarray(S, dtype=float)
    m = S.max(axis=axis, keepdims=True)
    lse = m + np.log(np.exp(S - m).sum(axis=axis, keepdims=True))
    return np.exp(S - lse)


def _ok_softmax_moveaxis(S, axis=-1):
    T = np.moveaxis(np.asarray(S, dtype=float), axis, -1)
    E = np.exp(T - T.max(axis=-1, keepdims=True))
    return np.moveaxis(E / E.sum(axis=-1, keepdims=True), -1, axis)


def _ok_score_scale_power(d):
    return float(d) ** -0.5


def _ok_score_scale_sqrt_inverse(d):
    return math.sqrt(1.0 / d)


def _ok_aw_rows(Q, K, causal=True, scale=True):
    n_q, n_k = Q.shape[0], K.shape[0]
    A = np.zeros((n_q, n_k))
    for i in range(n_q):
        seen = n_k - n_q + i + 1 if causal else n_k
        s = K[:seen] @ Q[i]
        if scale:
            s = s / math.sqrt(Q.shape[1])
        e = np.exp(s - s.max())
        A[i, :seen] = e / e.sum()
    return A


def _ok_attention_einsum(Q, K, V, causal=True, scale=True):
    return np.einsum("qk,kv->qv", _weights(Q, K, causal, scale), V)


def _ok_self_attention_wo_first(X, Wq, Wk, Wv, Wo=None, causal=True):
    V = X @ Wv if Wo is None else X @ (Wv @ Wo)
    return _attention(X @ Wq, X @ Wk, V, causal)


def _ok_future_leak_move_two(attn, X):
    X = np.array(X, dtype=float)
    base = np.asarray(attn(X), dtype=float)
    tol = 1e-9 * max(1.0, float(np.abs(base).max()))
    worst = 0
    for k in range(1, len(X)):
        for i in range(len(X) - k):
            moved = X.copy()
            moved[i + k] = moved[i + k] + 2.0
            if np.abs(np.asarray(attn(moved), dtype=float)[i] - base[i]).max() > tol:
                worst = k
                break
    return worst


def _ok_future_leak_vectorised(attn, X):
    X = np.array(X, dtype=float)
    n = len(X)
    base = np.asarray(attn(X), dtype=float).reshape(n, -1)
    tol = 1e-9 * max(1.0, float(np.abs(base).max()))
    seen = np.zeros((n, n), dtype=bool)  # seen[i, j]: output row i moves with input row j
    for j in range(n):
        moved = X.copy()
        moved[j] += 1.0
        seen[:, j] = np.abs(np.asarray(attn(moved), dtype=float).reshape(n, -1) - base).max(axis=1) > tol
    i, j = np.nonzero(seen & (np.arange(n)[None, :] > np.arange(n)[:, None]))
    return int((j - i).max()) if len(i) else 0


def _ok_tiled_all_tiles(Q, K, V, causal=True, block=64):
    """Walks every key tile, relying on the mask rather than stopping at the diagonal."""
    n_q, n_k = Q.shape[0], K.shape[0]
    O = np.empty((n_q, V.shape[1]))
    for q0 in range(0, n_q, block):
        Qb = Q[q0:q0 + block] / math.sqrt(Q.shape[1])
        m = np.full((Qb.shape[0], 1), -np.inf)
        l = np.zeros((Qb.shape[0], 1))
        acc = np.zeros((Qb.shape[0], V.shape[1]))
        for k0 in range(0, n_k, block):
            S = Qb @ K[k0:k0 + block].T
            if causal:
                _tile_mask(S, n_k - n_q + q0, k0)
            tile_max = S.max(axis=1, keepdims=True)
            if np.isneginf(tile_max).all():
                continue
            m_new = np.maximum(m, tile_max)
            r = np.exp(m - m_new)
            P = np.exp(S - m_new)
            l = r * l + P.sum(axis=1, keepdims=True)
            acc = r * acc + P @ V[k0:k0 + block]
            m = m_new
        O[q0:q0 + block] = acc / l
    return O


def _ok_embed_one_hot(tokens, tok_emb, pos_emb):
    n = len(tokens)
    onehot = (np.asarray(tokens)[:, None] == np.arange(tok_emb.shape[0])).astype(float)
    return onehot @ tok_emb + pos_emb[:n]


def _ok_sinusoidal_loop(n, d):
    P = np.zeros((n, d))
    for t in range(n):
        for i in range(d // 2):
            angle = t / 10000 ** (2 * i / d)
            P[t, 2 * i] = math.sin(angle)
            P[t, 2 * i + 1] = math.cos(angle)
    return P


def _ok_sinusoidal_exp_log(n, d):
    freq = np.exp(-math.log(10000.0) * np.arange(0, d, 2) / d)
    angle = np.outer(np.arange(n), freq)
    return np.stack([np.sin(angle), np.cos(angle)], axis=2).reshape(n, d)


def _ok_split_heads_split(M, n_heads):
    return np.array(np.split(M, n_heads, axis=1))


def _ok_split_heads_reshape(M, n_heads):
    n, d_model = M.shape
    return M.reshape(n, n_heads, d_model // n_heads).transpose(1, 0, 2).copy()


def _ok_mha_sum_of_heads(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    d_head = Wq.shape[1] // n_heads
    out = 0.0
    for h in range(n_heads):
        c = slice(h * d_head, (h + 1) * d_head)
        out = out + _attention(X @ Wq[:, c], X @ Wk[:, c], X @ Wv[:, c], causal) @ Wo[c]
    return out


def _ok_layer_norm_rows(X, g, b, eps=1e-5):
    out = np.empty(X.shape)
    for i, x in enumerate(X):
        out[i] = (x - x.mean()) / math.sqrt(x.var() + eps) * g + b
    return out


def _ok_gelu_sigmoid(X):
    X = np.asarray(X, dtype=float)
    with np.errstate(over="ignore", invalid="ignore"):
        Y = X / (1.0 + np.exp(-2.0 * _C * (X + 0.044715 * X ** 3)))
    return np.where(np.isneginf(X), 0.0, Y)


def _ok_block_steps(X, p, n_heads, causal=True):
    H1 = _ok_layer_norm_rows(X, p["ln1_g"], p["ln1_b"])
    Y = X + _ok_mha_sum_of_heads(H1, p["Wq"], p["Wk"], p["Wv"], p["Wo"], n_heads, causal)
    H2 = _ok_layer_norm_rows(Y, p["ln2_g"], p["ln2_b"])
    hidden = _ok_gelu_sigmoid(H2 @ p["W1"] + p["b1"])
    return Y + hidden @ p["W2"] + p["b2"]


def _ok_ntl_all_then_last(H, W_vocab):
    return (H @ W_vocab)[-1]


def _ok_ntl_column(H, W_vocab):
    return W_vocab.T @ H[H.shape[0] - 1]


def _ok_ce_rows(logits, targets):
    n = logits.shape[0]
    loss = 0.0
    d = np.empty(logits.shape)
    for i in range(n):
        lse = np.logaddexp.reduce(logits[i])
        loss += (lse - logits[i, targets[i]]) / n
        d[i] = np.exp(logits[i] - lse) / n
        d[i, targets[i]] -= 1.0 / n
    return loss, d


def _ok_smb_jacobian(A, dA):
    dS = np.empty(A.shape)
    for idx in np.ndindex(*A.shape[:-1]):
        a = A[idx]
        dS[idx] = (np.diag(a) - np.outer(a, a)) @ dA[idx]
    return dS


def _ok_smb_expanded(A, dA):
    return A * dA - A * np.einsum("...i,...i->...", A, dA)[..., None]


def _ok_ab_einsum(Q, K, V, dO, causal=True, scale=True):
    s = 1.0 / math.sqrt(Q.shape[1]) if scale else 1.0
    A = _weights(Q, K, causal, scale)
    dA = np.einsum("qv,kv->qk", dO, V)
    dS = s * A * (dA - np.einsum("qk,qk->q", A, dA)[:, None])
    return np.einsum("qk,kd->qd", dS, K), np.einsum("qk,qd->kd", dS, Q), np.einsum("qk,qv->kv", A, dO)


def _ok_lnb_compact(X, g, dY, eps=1e-5):
    d = X.shape[1]
    Xhat, rstd = _ln_hat(X, eps)
    dXhat = dY * g
    dX = rstd / d * (d * dXhat - dXhat.sum(axis=1, keepdims=True) - Xhat * (dXhat * Xhat).sum(axis=1, keepdims=True))
    return dX, np.einsum("nd,nd->d", dY, Xhat), dY.sum(axis=0)


def _ok_most_attended_loop(A, tokens):
    out = []
    for row in A:
        best = 0
        for j in range(1, len(row)):
            if row[j] > row[best]:
                best = j
        out.append(tokens[best])
    return out


def _ok_entropy_loop(A):
    out = np.zeros(A.shape[0])
    for i, row in enumerate(A):
        out[i] = -sum(a * math.log(a) for a in row if a > 0)
    return out


def _ok_padding_mask_where(n_q, n_valid, n_k):
    return np.where(np.arange(n_k)[None, :] < n_valid, 0.0, -np.inf) * np.ones((n_q, 1))


def _ok_cross_attention(X, Z, Wq, Wk, Wv):
    return _attention(X @ Wq, Z @ Wk, Z @ Wv, causal=False)


def _ok_attend_step_lse(q, K_cache, V_cache):
    s = K_cache @ q / math.sqrt(len(q))
    return np.exp(s - np.logaddexp.reduce(s)) @ V_cache


def _ok_cache_step_vstack(q, k, v, K_cache, V_cache):
    K_new = np.vstack([K_cache, k])
    V_new = np.vstack([V_cache, v])
    if K_cache.shape[0] == 0:
        return v.astype(float), K_new, V_new  # one key: all the weight on it
    return _attend_step(q, K_new, V_new), K_new, V_new


def _ok_sample_next_loop(logits, temperature, u):
    logits = np.asarray(logits, dtype=float)
    if temperature == 0.0:
        best = 0
        for i in range(1, len(logits)):
            if logits[i] > logits[best]:
                best = i
        return best
    e = np.exp((logits - logits.max()) / temperature)
    cdf = np.cumsum(e / e.sum())
    cdf /= cdf[-1]
    return int(np.count_nonzero(cdf <= u))


def _ok_generate_feeds_prompt(p, prompt, n_new, cache_step):
    """Feeds the whole prompt first, then one new token at a time (n_new = 0 feeds every prompt token)."""
    prompt = np.asarray(prompt)
    d = p["tok_emb"].shape[1]
    K, V = np.zeros((0, d)), np.zeros((0, d))
    out = list(prompt.tolist())
    logits = None
    for i, t in enumerate(out[:]):
        x = _row(p, t, i)
        o, K, V = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K, V)
        logits = (x + o) @ p["W_out"]
    for k in range(n_new):
        out.append(int(np.argmax(logits)))
        if k == n_new - 1:
            break
        i = len(out) - 1
        x = _row(p, out[i], i)
        o, K, V = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K, V)
        logits = (x + o) @ p["W_out"]
    return np.array(out, dtype=np.int64)


def _ok_kv_prod(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return math.prod((2, n_layers, n_heads, d_head, seq_len, batch, bytes_per_value))


def _ok_mct_divmod(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    tokens, _ = divmod(int(memory_bytes), _ok_kv_prod(n_layers, n_heads, d_head, 1, batch, bytes_per_value))
    return tokens


def _ok_mct_bisect(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    lo, hi = 0, 1
    while _kv_cache_bytes(n_layers, n_heads, d_head, hi, batch, bytes_per_value) <= memory_bytes:
        hi *= 2
    while hi - lo > 1:  # fits(lo), not fits(hi)
        mid = (lo + hi) // 2
        if _kv_cache_bytes(n_layers, n_heads, d_head, mid, batch, bytes_per_value) <= memory_bytes:
            lo = mid
        else:
            hi = mid
    return lo


# =============================================================================
# 15 the capstone: a dict of ops, exactly one of them wrong

_RIGHT_OPS = {
    "softmax": _softmax,
    "attention": _attention,
    "embed": _embed,
    "multi_head_attention": _mha,
    "layer_norm": _layer_norm,
    "gelu": _gelu,
    "transformer_block": _block,
    "next_token_logits": _next_token_logits,
    "cross_entropy": _cross_entropy,
    "softmax_backward": _softmax_backward,
    "attention_backward": _attention_backward,
    "layer_norm_backward": _layer_norm_backward,
    "cache_step": _cache_step,
    "sample_next": _sample_next,
}


def _ops_with(name, fn):
    ops = dict(_RIGHT_OPS)
    ops[name] = fn
    return ops


_OK_OPS = {
    "softmax": _ok_softmax_lse,
    "attention": _ok_attention_einsum,
    "embed": _ok_embed_one_hot,
    "multi_head_attention": _ok_mha_sum_of_heads,
    "layer_norm": _ok_layer_norm_rows,
    "gelu": _ok_gelu_sigmoid,
    "transformer_block": _ok_block_steps,
    "next_token_logits": _ok_ntl_all_then_last,
    "cross_entropy": _ok_ce_rows,
    "softmax_backward": _ok_smb_expanded,
    "attention_backward": _ok_ab_einsum,
    "layer_norm_backward": _ok_lnb_compact,
    "cache_step": _ok_cache_step_vstack,
    "sample_next": _ok_sample_next_loop,
}


# =============================================================================

MISTAKES = [
    # 01 project
    Mistake("project", "computes W @ x (column-vector habit), which projects with W transposed instead of x @ W",
            _project_W_left),
    Mistake("project", "the loop over input features stops one short (range(d_in - 1)), dropping the last "
            "x[i] W[i, j] term", _project_loop_short),
    Mistake("project", "sums x[i] * W[i, j] over the output index j instead of the input index i (wrong axis)",
            _project_sum_over_j),
    Mistake("project", "the accumulator starts at W's first row instead of at zero, adding W[0] to the result",
            _project_acc_starts_at_row0),
    Mistake("project", "returns a 2-D (1, d_out) row instead of the 1-D (d_out,) vector", _project_2d_row),
    # 01 compose
    Mistake("compose", "multiplies in the wrong order, W2 @ W1 instead of W1 @ W2", _compose_reversed),
    Mistake("compose", "returns the composed matrix transposed, (W1 @ W2).T (column-vector convention)",
            _compose_transposed),
    Mistake("compose", "the loop over the middle index starts at 1 (1-based habit), dropping the k = 0 term",
            _compose_loop_short),
    Mistake("compose", "divides W1 @ W2 by d_mid, averaging over the middle index instead of summing",
            _compose_mean_over_mid),
    Mistake("compose", "multiplies W1 and W2 elementwise instead of taking the matrix product", _compose_elementwise),
    # 02 project_rows
    Mistake("project_rows", "the loop over rows stops one short (range(n - 1)), so the last output row stays zero",
            _project_rows_loop_short),
    Mistake("project_rows", "returns the result transposed, Wᵀ Xᵀ of shape (d_out, n) (column-major habit)",
            _project_rows_colmajor),
    Mistake("project_rows", "caches the product by input shape between calls, so a new X of the same shape gets a "
            "stale answer", _project_rows_memo),
    Mistake("project_rows", "subtracts the column mean of X before projecting, so every output row depends on the "
            "other rows", _project_rows_centred),
    Mistake("project_rows", "applies W transposed, X @ W.T (nn.Linear habit)",
            _project_rows_torch_linear),
    # 02 matmul_cost
    Mistake("matmul_cost", "counts the additions, (d_in - 1) per entry, instead of the d_in multiplications",
            _matmul_cost_additions),
    Mistake("matmul_cost", "counts 2 n d_in d_out FLOPs (multiply and add) instead of the multiplications alone",
            _matmul_cost_flops),
    Mistake("matmul_cost", "computes the product in floating point, so the count is no longer exact for large sizes",
            _matmul_cost_float),
    Mistake("matmul_cost", "multiplies in 32-bit numpy integers, which overflow for large sizes",
            _matmul_cost_int32),
    Mistake("matmul_cost", "uses d_in twice (n * d_in * d_in) instead of n * d_in * d_out", _matmul_cost_square),
    Mistake("matmul_cost", "uses np.prod, a fixed-width numpy int64 that overflows past 2**63, instead of an exact "
            "Python int", _matmul_cost_numpy_int),
    # 03 values
    Mistake("values", "drops repeated words (one row per distinct word), so the two 'the' rows become one",
            _values_unique),
    Mistake("values", "builds X from the tokens in alphabetical order instead of sentence order", _values_sorted),
    Mistake("values", "returns V transposed, Wvᵀ Xᵀ of shape (d_v, n)", _values_transposed),
    Mistake("values", "starts the token loop at 1 (1-based habit), dropping the first token's row",
            _values_skip_first),
    Mistake("values", "projects every entry of the table instead of the sentence's tokens", _values_whole_table),
    # 03 one_hot
    Mistake("one_hot", "puts the 1 in column ids[i] - 1 (1-based habit), so id 0 lands in the last column",
            _one_hot_one_based),
    Mistake("one_hot", "returns the transpose, shape (vocab_size, n) with one column per token", _one_hot_transposed),
    Mistake("one_hot", "sizes the columns by the largest id present plus one instead of by vocab_size",
            _one_hot_max_id),
    Mistake("one_hot", "returns integers instead of floats", _one_hot_int),
    Mistake("one_hot", "collapses repeated ids to a single row (np.unique), losing order and repeats",
            _one_hot_unique),
    Mistake("one_hot", "sorts ids in place, changing the caller's array and the order of the rows",
            _one_hot_sorts_ids),
    # 04 uniform_causal_weights
    Mistake("uniform_causal_weights", "divides every row by n instead of by i + 1, so rows do not sum to 1",
            _ucw_divide_by_n),
    Mistake("uniform_causal_weights", "divides column j by j + 1 instead of row i by i + 1 (broadcast along the "
            "wrong axis)", _ucw_columns),
    Mistake("uniform_causal_weights", "returns the transpose: upper-triangular, column j holding 1/(j+1)",
            _ucw_transposed),
    Mistake("uniform_causal_weights", "fills columns 0..i-1 only (slice end is exclusive), leaving the diagonal zero",
            _ucw_slice_short),
    Mistake("uniform_causal_weights", "special-cases n == 1 as a 1-D array of shape (1,) instead of the (1, 1) matrix",
            _ucw_n1_vector),
    # 04 causal_average
    Mistake("causal_average", "takes the running sum along the feature axis (axis=1) instead of down the tokens",
            _causal_average_feature_axis),
    Mistake("causal_average", "divides the running sum by n instead of by the i + 1 rows it holds",
            _causal_average_divide_n),
    Mistake("causal_average", "averages rows i..n-1 (the future) instead of rows 0..i", _causal_average_future),
    Mistake("causal_average", "averages rows 0..i-1 (exclusive slice), leaving out row i itself",
            _causal_average_exclusive),
    Mistake("causal_average", "overwrites V in place with the running means (cumsum with out=V)",
            _causal_average_in_place),
    Mistake("causal_average", "special-cases n == 1 by returning the 1-D row V[0] instead of a (1, d) array",
            _causal_average_n1),
    # 05 similarity
    Mistake("similarity", "computes Qᵀ K (feature by feature) instead of Q Kᵀ", _similarity_QtK),
    Mistake("similarity", "returns K Qᵀ, the scores transposed (n_k, n_q)", _similarity_KQt),
    Mistake("similarity", "divides by √d although the scores must be unscaled", _similarity_scaled),
    Mistake("similarity", "dots query i with key i only, returning the diagonal instead of every pair",
            _similarity_diagonal),
    Mistake("similarity", "normalises the rows of Q and K to unit length (cosine similarity) instead of raw dot "
            "products", _similarity_cosine),
    # 05 learned_scores
    Mistake("learned_scores", "uses Wq for the keys as well, giving symmetric scores Q Qᵀ", _learned_scores_wq_twice),
    Mistake("learned_scores", "returns K Qᵀ (keys as rows), the transpose of the scores", _learned_scores_keys_rows),
    Mistake("learned_scores", "divides the scores by √d although no scaling is asked for yet", _learned_scores_scaled),
    Mistake("learned_scores", "adds the causal mask already, although no mask is asked for yet",
            _learned_scores_masked),
    Mistake("learned_scores", "multiplies by Wk instead of Wkᵀ: X Wq Wk Xᵀ instead of X Wq (X Wk)ᵀ",
            _learned_scores_no_transpose),
    # 06 causal_mask
    Mistake("causal_mask", "blanks the diagonal as well (-inf where j >= i), so a token cannot see itself",
            _causal_mask_diagonal),
    Mistake("causal_mask", "puts -inf below the diagonal (the past) instead of above it", _causal_mask_past),
    Mistake("causal_mask", "uses -1e9 instead of -inf for the future", _causal_mask_big_negative),
    Mistake("causal_mask", "returns a boolean mask (True for the future) instead of the additive 0 / -inf mask",
            _causal_mask_bool),
    Mistake("causal_mask", "returns a multiplicative lower-triangular 1/0 mask instead of the additive 0 / -inf mask",
            _causal_mask_multiplicative),
    Mistake("causal_mask", "multiplies a 0/1 upper-triangular matrix by -inf, so 0 * -inf gives NaN below the "
            "diagonal", _causal_mask_times_inf),
    # 06 softmax
    Mistake("softmax", "always normalises along the last axis, ignoring the axis argument", _softmax_last_axis_only),
    Mistake("softmax", "does not subtract the max before exp, so scores around 1000 overflow to NaN",
            _softmax_no_shift),
    Mistake("softmax", "subtracts the global max of S instead of the max along axis, so rows far below it "
            "underflow to 0/0", _softmax_global_max),
    Mistake("softmax", "log-sum-exp sign slip: exp(S - max + log Z) instead of exp(S - max - log Z)",
            _softmax_lse_sign),
    Mistake("softmax", "sums without keepdims, so the division broadcasts along the wrong axis", _softmax_no_keepdims),
    Mistake("softmax", "clips the scores to [-50, 50] instead of subtracting the max, wrong for large scores and "
            "-inf", _softmax_clipped),
    Mistake("softmax", "two slips: no max subtraction before exp (overflow) and always the last axis, ignoring "
            "axis", _softmax_no_shift_last_axis),
    Mistake("softmax", "special-cases an axis of length 1 by returning S unchanged instead of ones",
            _softmax_len1),
    # 06 score_scale
    Mistake("score_scale", "returns 1/d instead of 1/√d (the variance of q·k is d, so its spread is √d)",
            _score_scale_one_over_d),
    Mistake("score_scale", "returns √d, the divisor, instead of the factor 1/√d", _score_scale_sqrt_d),
    Mistake("score_scale", "uses 1/√(d − 1) (unbiased-variance habit) instead of 1/√d", _score_scale_unbiased),
    Mistake("score_scale", "estimates the factor from a random experiment instead of the exact 1/√d",
            _score_scale_measured),
    Mistake("score_scale", "uses the integer square root, 1/isqrt(d), wrong when d is not a perfect square",
            _score_scale_isqrt),
    # 06 attention_weights
    Mistake("attention_weights", "aligns the queries with the first positions when n_q < n_k (mask triu k=1) "
            "instead of the last", _aw_first_aligned),
    Mistake("attention_weights", "divides by √n_k (the number of keys) instead of √d", _aw_scale_by_nk),
    Mistake("attention_weights", "masks after the softmax by zeroing the future weights, so rows no longer sum to 1",
            _aw_mask_after_softmax),
    Mistake("attention_weights", "ignores scale=False and always divides by √d", _aw_always_scaled),
    Mistake("attention_weights", "normalises the softmax over the queries (axis 0) instead of over the keys",
            _aw_columns),
    Mistake("attention_weights", "multiplies the scores by √d instead of dividing", _aw_times_sqrt),
    # 07 attention
    Mistake("attention", "mixes the values with Aᵀ instead of A (O = Aᵀ V)", _attention_At),
    Mistake("attention", "returns the weights A instead of the output O = A V", _attention_returns_A),
    Mistake("attention", "ignores causal=False and always applies the causal mask", _attention_always_causal),
    Mistake("attention", "scales by √d_v (the width of V) instead of √d", _attention_scale_dv),
    Mistake("attention", "returns a tuple (O, A) like torch's MultiheadAttention instead of O alone",
            _attention_tuple),
    Mistake("attention", "two slips: ignores both flags, never masking and never scaling", _attention_no_flags),
    Mistake("attention", "special-cases a single key by returning V itself, one row even when there are several "
            "queries", _attention_one_key),
    # 07 self_attention
    Mistake("self_attention", "ignores Wo when it is given", _self_attention_ignores_wo),
    Mistake("self_attention", "takes the values from Wk instead of Wv", _self_attention_values_from_wk),
    Mistake("self_attention", "leaves the scores unscaled instead of dividing by √d_head", _self_attention_unscaled),
    Mistake("self_attention", "scales by √d_model instead of √d_head", _self_attention_scale_d_model),
    Mistake("self_attention", "adds a residual X to the output, which belongs to the block, not to this function",
            _self_attention_residual),
    Mistake("self_attention", "never applies the causal mask, ignoring causal=True", _self_attention_never_causal),
    # 07 future_leak
    Mistake("future_leak", "counts the leaking (row, future row) pairs instead of returning the largest distance",
            _future_leak_pairs),
    Mistake("future_leak", "reports the distance inclusively, j - i + 1 instead of j - i", _future_leak_inclusive),
    Mistake("future_leak", "uses an absolute 1e-9 threshold, not scaled by the largest output, so rounding noise "
            "counts as a leak", _future_leak_absolute_tol),
    Mistake("future_leak", "uses too loose a threshold (1e-3), missing a tiny weight on a future token",
            _future_leak_loose_tol),
    Mistake("future_leak", "tests only the next row (k = 1), never looking further ahead", _future_leak_next_only),
    Mistake("future_leak", "moves rows of X in place without copying, so the moves accumulate and X is changed",
            _future_leak_no_copy),
    Mistake("future_leak", "measures how far back rows see (i - j for j < i) instead of how far ahead",
            _future_leak_backwards),
    # 07 tiled_attention
    Mistake("tiled_attention", "never rescales l and acc by exp(m_old - m_new) when a tile raises the max",
            _tiled_no_rescale),
    Mistake("tiled_attention", "rescales by exp(m_new - m_old) instead of exp(m_old - m_new) (sign slip)",
            _tiled_rescale_sign),
    Mistake("tiled_attention", "normalises acc by l after every tile and resets l to 1, so earlier tiles lose their "
            "weight", _tiled_divide_each_tile),
    Mistake("tiled_attention", "aligns the causal mask with the first positions, ignoring the n_k - n_q offset",
            _tiled_first_aligned),
    Mistake("tiled_attention", "forgets to scale the scores by 1/√d", _tiled_unscaled),
    Mistake("tiled_attention", "rescales acc but not l when the max rises", _tiled_acc_only),
    Mistake("tiled_attention", "holds a whole strip of scores against every visible key instead of one "
            "(block, block) tile, exceeding the memory budget", _tiled_strip),
    Mistake("tiled_attention", "the key loop stops one tile early (range bound k_end - block), dropping the last "
            "tile of keys", _tiled_last_tile_dropped),
    # 08 embed
    Mistake("embed", "indexes the position table by word id (pos_emb[tokens]) instead of by position",
            _embed_pos_by_id),
    Mistake("embed", "takes the last n rows of pos_emb instead of the first n", _embed_last_positions),
    Mistake("embed", "starts positions at 1 (pos_emb[1:n+1], 1-based habit) instead of 0", _embed_one_based),
    Mistake("embed", "concatenates word and position vectors instead of adding them", _embed_concat),
    Mistake("embed", "multiplies word and position vectors instead of adding them", _embed_product),
    Mistake("embed", "adds the word vectors into pos_emb in place, changing the caller's position table",
            _embed_into_pos_emb),
    # 08 sinusoidal_positions
    Mistake("sinusoidal_positions", "uses 10000^(i/d) instead of 10000^(2i/d) for pair i", _sinusoidal_i_over_d),
    Mistake("sinusoidal_positions", "puts cosines on the even columns and sines on the odd ones", _sinusoidal_swapped),
    Mistake("sinusoidal_positions", "puts all sines in the first half and all cosines in the second instead of "
            "interleaving them", _sinusoidal_halves),
    Mistake("sinusoidal_positions", "starts positions at t = 1 (1-based habit) instead of 0", _sinusoidal_from_one),
    Mistake("sinusoidal_positions", "multiplies t by 10000^(2i/d) instead of dividing", _sinusoidal_multiplied),
    Mistake("sinusoidal_positions", "two slips: positions start at t = 1 and sines and cosines are swapped",
            _sinusoidal_from_one_swapped),
    Mistake("sinusoidal_positions", "uses the column index instead of the pair index in the exponent, so a pair's "
            "sine and cosine get different frequencies", _sinusoidal_column_index),
    # 09 split_heads
    Mistake("split_heads", "reshapes M straight to (n_heads, n, d_head), mixing rows across heads",
            _split_heads_plain_reshape),
    Mistake("split_heads", "takes strided columns (h, h + n_heads, ...) instead of contiguous blocks",
            _split_heads_strided),
    Mistake("split_heads", "returns a Python list of head matrices instead of one (n_heads, n, d_head) array",
            _split_heads_list),
    Mistake("split_heads", "returns (n, n_heads, d_head), forgetting to swap the first two axes",
            _split_heads_no_swap),
    Mistake("split_heads", "reshapes M in place (M.shape = ...), changing the caller's array", _split_heads_reshapes_M),
    Mistake("split_heads", "uses n_heads as the head width (blocks of n_heads columns) instead of d_model // n_heads",
            _split_heads_width_n_heads),
    # 09 multi_head_attention
    Mistake("multi_head_attention", "scales each head by √d_model instead of √d_head", _mha_scale_d_model),
    Mistake("multi_head_attention", "gives head h strided columns (h, h + n_heads, ...) instead of a contiguous block",
            _mha_strided_heads),
    Mistake("multi_head_attention", "concatenates the head outputs in reverse order", _mha_reversed_concat),
    Mistake("multi_head_attention", "ignores causal=False and always masks", _mha_always_causal),
    Mistake("multi_head_attention", "takes the softmax over the heads axis (axis 0 of (h, n, n)) instead of over the "
            "keys", _mha_softmax_over_heads),
    Mistake("multi_head_attention", "two slips: strided head columns (h, h + n_heads, ...) and scaling by √d_model "
            "instead of √d_head", _mha_strided_scale_d_model),
    Mistake("multi_head_attention", "special-cases n_heads == 1 and skips Wo", _mha_one_head_no_wo),
    # 10 layer_norm
    Mistake("layer_norm", "uses the unbiased variance (ddof=1) instead of dividing by d", _layer_norm_unbiased),
    Mistake("layer_norm", "adds eps to the standard deviation instead of inside the square root",
            _layer_norm_eps_outside),
    Mistake("layer_norm", "two slips (torch.std habit): the unbiased variance and eps added to the standard "
            "deviation outside the square root", _layer_norm_torch_std),
    Mistake("layer_norm", "normalises each column (axis 0) instead of each row", _layer_norm_columns),
    Mistake("layer_norm", "divides by the root mean square without subtracting the mean (RMSNorm)", _layer_norm_rms),
    Mistake("layer_norm", "swaps the gain and the bias: * b + g instead of * g + b", _layer_norm_g_b_swapped),
    Mistake("layer_norm", "normalises with the mean and variance of the whole matrix instead of each row",
            _layer_norm_whole_matrix),
    # 10 gelu
    Mistake("gelu", "uses ReLU instead of GELU", _gelu_relu),
    Mistake("gelu", "uses 0.044715 x² instead of 0.044715 x³ inside the tanh", _gelu_square),
    Mistake("gelu", "uses √(2π) instead of √(2/π)", _gelu_sqrt_2pi),
    Mistake("gelu", "computes the exact erf GELU instead of the tanh approximation", _gelu_erf),
    Mistake("gelu", "uses the sigmoid approximation x·σ(1.702 x) instead of the tanh formula", _gelu_sigmoid_1702),
    Mistake("gelu", "drops the factor 0.5", _gelu_no_half),
    Mistake("gelu", "loops over two axes, so only 2-D input works instead of any shape", _gelu_2d_loops),
    # 10 transformer_block
    Mistake("transformer_block", "applies each layer norm after its residual add (post-LN) instead of before the "
            "sublayer", _block_post_ln),
    Mistake("transformer_block", "drops the residual around attention: Y = MHA(LN1(X)) instead of X + MHA(LN1(X))",
            _block_no_first_residual),
    Mistake("transformer_block", "uses ln1_g and ln1_b for the second layer norm as well", _block_ln1_twice),
    Mistake("transformer_block", "skips the second layer norm: the MLP reads Y instead of LN2(Y)",
            _block_no_second_norm),
    Mistake("transformer_block", "adds b1 after the GELU instead of before it", _block_b1_after_gelu),
    Mistake("transformer_block", "the MLP branch reads LN2(X), the block's input, instead of LN2(Y)",
            _block_mlp_reads_X),
    Mistake("transformer_block", "ignores causal=False and always masks", _block_always_causal),
    # 11 next_token_logits
    Mistake("next_token_logits", "uses the first row of H instead of the last", _ntl_first_row),
    Mistake("next_token_logits", "returns the logits of every row, (n, vocab), instead of the last row's",
            _ntl_all_rows),
    Mistake("next_token_logits", "applies a softmax, returning probabilities instead of raw logits", _ntl_softmax),
    Mistake("next_token_logits", "averages all rows of H instead of taking the last", _ntl_mean_row),
    Mistake("next_token_logits", "takes the second-to-last row (index n - 2) instead of the last", _ntl_second_last),
    Mistake("next_token_logits", "special-cases n == 1 and returns a (1, vocab) array instead of (vocab,)",
            _ntl_one_row_2d),
    # 11 cross_entropy
    Mistake("cross_entropy", "does not divide dlogits by n (the gradient of the sum, not of the mean)",
            _ce_grad_not_mean),
    Mistake("cross_entropy", "sums the loss over rows instead of averaging", _ce_loss_sum),
    Mistake("cross_entropy", "two slips: sums the loss over rows instead of averaging and leaves dlogits undivided "
            "by n", _ce_sum_consistently),
    Mistake("cross_entropy", "takes the log of the softmax probabilities, which underflow to log(0) = -inf for "
            "large logits", _ce_log_of_softmax),
    Mistake("cross_entropy", "log-sum-exp sign slip: log p = z + log Σ exp z instead of z - log Σ exp z",
            _ce_lse_sign),
    Mistake("cross_entropy", "the gradient has the wrong sign (one_hot - softmax)", _ce_grad_sign),
    Mistake("cross_entropy", "indexes logp[:, targets] (every row with every target) instead of pairing row i with "
            "targets[i]", _ce_every_target),
    Mistake("cross_entropy", "returns (dlogits, loss) in the wrong order", _ce_swapped),
    Mistake("cross_entropy", "divides the gradient by vocab instead of n", _ce_grad_over_vocab),
    Mistake("cross_entropy", "subtracts each row's max from logits in place, changing the caller's array",
            _ce_shifts_in_place),
    # 11 softmax_backward
    Mistake("softmax_backward", "keeps only the diagonal of the Jacobian: A (1 - A) dA", _smb_diagonal),
    Mistake("softmax_backward", "subtracts the plain row sum of dA instead of sum(A * dA)", _smb_plain_sum),
    Mistake("softmax_backward", "sums A * dA over the first axis instead of the last (batch-axis confusion)",
            _smb_first_axis),
    Mistake("softmax_backward", "sums without keepdims, so the row sums broadcast along the wrong axis",
            _smb_no_keepdims),
    Mistake("softmax_backward", "forgets the leading factor A: dA - sum(A * dA)", _smb_no_A),
    Mistake("softmax_backward", "builds one Jacobian per row of a matrix, so it fails with more than one leading "
            "axis (or none)", _smb_matrix_only),
    # 11 attention_backward
    Mistake("attention_backward", "dV = A dO instead of Aᵀ dO", _ab_dV_untransposed),
    Mistake("attention_backward", "forgets the scale s in dS, so dQ and dK are too large by √d", _ab_no_scale),
    Mistake("attention_backward", "dK = dS Q instead of dSᵀ Q", _ab_dK_untransposed),
    Mistake("attention_backward", "skips the softmax backward: dS = dO Vᵀ · s", _ab_softmax_identity),
    Mistake("attention_backward", "multiplies dS by the scale s twice", _ab_scale_twice),
    Mistake("attention_backward", "recomputes A with the queries aligned to the first positions when n_q < n_k",
            _ab_first_aligned),
    Mistake("attention_backward", "returns the gradients in the order (dV, dK, dQ)", _ab_reversed_order),
    Mistake("attention_backward", "dK is twice the right value (a stray factor 2)", _ab_dK_doubled),
    # 11 layer_norm_backward
    Mistake("layer_norm_backward", "treats the row mean and variance as constants: dX = dY g / √(var + eps)",
            _lnb_constant_stats),
    Mistake("layer_norm_backward", "subtracts mean(dXhat) but drops the Xhat · mean(dXhat Xhat) term of the variance",
            _lnb_no_variance_term),
    Mistake("layer_norm_backward", "dg sums dY (db's formula) instead of dY * Xhat", _lnb_dg_is_db),
    Mistake("layer_norm_backward", "dg is not summed over the rows: shape (n, d) instead of (d,)", _lnb_dg_per_row),
    Mistake("layer_norm_backward", "uses the unbiased variance (d - 1) in the normalisation", _lnb_unbiased),
    Mistake("layer_norm_backward", "returns (dX, db, dg), dg and db swapped", _lnb_dg_db_swapped),
    Mistake("layer_norm_backward", "forgets g in dX: dXhat = dY instead of dY * g", _lnb_no_g),
    # 12 most_attended
    Mistake("most_attended", "takes the argmax down each column (axis 0) instead of along each row",
            _most_attended_columns),
    Mistake("most_attended", "breaks ties towards the later token instead of the earlier", _most_attended_last_tie),
    Mistake("most_attended", "returns the column indices instead of the words", _most_attended_indices),
    Mistake("most_attended", "picks the smallest weight (argmin) instead of the largest", _most_attended_argmin),
    Mistake("most_attended", "returns a numpy array of strings instead of a list", _most_attended_array),
    Mistake("most_attended", "indexes tokens with argmax - 1 (1-based habit)", _most_attended_one_based),
    Mistake("most_attended", "ignores each query's own position (the diagonal) when picking",
            _most_attended_skips_self),
    # 12 attention_entropy
    Mistake("attention_entropy", "uses log base 2 (bits) instead of the natural log (nats)", _entropy_bits),
    Mistake("attention_entropy", "forgets the minus sign, returning sum A log A", _entropy_no_minus),
    Mistake("attention_entropy", "does not count 0 · log 0 as 0, so masked keys give NaN", _entropy_nan_zeros),
    Mistake("attention_entropy", "sums over the queries (axis 0) instead of over each row's keys", _entropy_columns),
    Mistake("attention_entropy", "divides by log n_k (normalised entropy)", _entropy_normalised),
    Mistake("attention_entropy", "averages -A log A over the keys instead of summing", _entropy_mean_over_keys),
    # 13 padding_mask
    Mistake("padding_mask", "masks from column n_valid + 1, leaving the first padding column visible",
            _padding_mask_one_late),
    Mistake("padding_mask", "puts -inf on the real tokens and 0 on the padding (inverted)", _padding_mask_inverted),
    Mistake("padding_mask", "returns the transpose, shape (n_k, n_q)", _padding_mask_transposed),
    Mistake("padding_mask", "returns a single row (n_k,) instead of the (n_q, n_k) mask", _padding_mask_one_row),
    Mistake("padding_mask", "adds a causal mask on top of the padding mask", _padding_mask_plus_causal),
    Mistake("padding_mask", "uses -1e9 instead of -inf on the padding", _padding_mask_big_negative),
    Mistake("padding_mask", "returns a boolean mask (True on the padding) instead of the float 0 / -inf mask",
            _padding_mask_bool),
    # 13 cross_attention
    Mistake("cross_attention", "takes the keys and values from X instead of Z (self-attention)", _cross_kv_from_X),
    Mistake("cross_attention", "applies a causal mask although cross-attention has none", _cross_masked),
    Mistake("cross_attention", "scales by √d_model instead of √d_head", _cross_scale_d_model),
    Mistake("cross_attention", "swaps the roles: queries from Z, keys and values from X", _cross_roles_swapped),
    Mistake("cross_attention", "leaves the scores unscaled", _cross_unscaled),
    Mistake("cross_attention", "normalises the softmax over the queries (axis 0) instead of over the keys",
            _cross_softmax_over_queries),
    # 14 attend_step
    Mistake("attend_step", "does not subtract the max before exp, so huge scores overflow to NaN",
            _attend_step_no_shift),
    Mistake("attend_step", "scales by √t (the number of cached tokens) instead of √d", _attend_step_scale_t),
    Mistake("attend_step", "mixes the rows of K_cache instead of V_cache", _attend_step_mixes_keys),
    Mistake("attend_step", "leaves out the cache's last row, the new token's own key and value",
            _attend_step_excludes_self),
    Mistake("attend_step", "applies a causal mask aligned to the first position, so the query sees only key 0",
            _attend_step_square_mask),
    Mistake("attend_step", "returns a (1, d_v) row instead of a (d_v,) vector", _attend_step_2d),
    # 14 cache_step
    Mistake("cache_step", "puts the new k and v first in the caches instead of last", _cache_step_prepends),
    Mistake("cache_step", "attends over the old caches, before appending, so the token does not see itself",
            _cache_step_attends_old),
    Mistake("cache_step", "keeps its own module-level cache across calls and ignores the K_cache and V_cache it is "
            "given", _cache_step_own_global),
    Mistake("cache_step", "returns (K_new, V_new, o) instead of (o, K_new, V_new)", _cache_step_order),
    Mistake("cache_step", "appends v to the key cache and k to the value cache (swapped)", _cache_step_k_v_swapped),
    Mistake("cache_step", "special-cases the empty cache and returns zeros as the first token's output",
            _cache_step_first_zero),
    # 14 sample_next
    Mistake("sample_next", "picks the first token whose running total is >= u (searchsorted side='left') instead of "
            "> u", _sample_next_at_or_above),
    Mistake("sample_next", "multiplies the logits by the temperature instead of dividing",
            _sample_next_times_temperature),
    Mistake("sample_next", "at temperature 0 breaks ties towards the last largest logit instead of the first",
            _sample_next_last_tie),
    Mistake("sample_next", "does not scale the running total to end at exactly 1, so a u just under 1 can return "
            "vocab (past the end)", _sample_next_no_rescale),
    Mistake("sample_next", "returns a numpy integer instead of a Python int", _sample_next_numpy_int),
    Mistake("sample_next", "divides by the temperature without subtracting the max, overflowing at small "
            "temperatures or large logits", _sample_next_no_shift),
    Mistake("sample_next", "compares u with each token's own probability instead of the running total",
            _sample_next_own_probability),
    Mistake("sample_next", "does not special-case temperature 0 and divides the logits by zero",
            _sample_next_no_zero_case),
    # 14 generate
    Mistake("generate", "takes the logits from o alone, dropping the residual (x + o)", _generate_no_residual),
    Mistake("generate", "starts positions at 1: token i gets pos_emb[i + 1]", _generate_positions_from_one),
    Mistake("generate", "leaves out the position vector: x = tok_emb[t]", _generate_no_positions),
    Mistake("generate", "feeds the last new token as well: one cache_step call too many", _generate_feeds_last),
    Mistake("generate", "stops one token short: n_new - 1 new tokens", _generate_one_short),
    Mistake("generate", "returns only the new tokens, without the prompt first", _generate_new_only),
    Mistake("generate", "ignores the cache_step it is given and uses its own attention", _generate_own_attention),
    Mistake("generate", "returns a float array instead of ints", _generate_floats),
    # 14 kv_cache_bytes
    Mistake("kv_cache_bytes", "counts the keys only, forgetting the factor 2 for the values", _kv_no_two),
    Mistake("kv_cache_bytes", "two slips: forgets the factor 2 for the values and ignores batch",
            _kv_no_two_no_batch),
    Mistake("kv_cache_bytes", "counts bits instead of bytes (a stray factor 8)", _kv_bits),
    Mistake("kv_cache_bytes", "ignores batch", _kv_no_batch),
    Mistake("kv_cache_bytes", "returns GiB (divided by 2**30) instead of bytes", _kv_gib),
    Mistake("kv_cache_bytes", "returns a float instead of an int", _kv_float),
    Mistake("kv_cache_bytes", "hard-codes 2 bytes per value, ignoring bytes_per_value", _kv_fixed_two_bytes),
    # 14 max_cached_tokens
    Mistake("max_cached_tokens", "uses float division, inexact for memories beyond what a float holds",
            _mct_float_division),
    Mistake("max_cached_tokens", "rounds up instead of down, returning a length whose cache no longer fits",
            _mct_ceiling),
    Mistake("max_cached_tokens", "returns the first length that no longer fits (floor + 1)", _mct_first_overflow),
    Mistake("max_cached_tokens", "forgets the factor 2 for keys and values in the bytes per token", _mct_no_two),
    Mistake("max_cached_tokens", "ignores batch", _mct_no_batch),
    Mistake("max_cached_tokens", "returns at least 1 when not even one token fits, instead of 0", _mct_at_least_one),
    Mistake("max_cached_tokens", "requires the cache to be strictly smaller than the memory (< instead of <=)",
            _mct_strict),
    # 15 capstone: exactly one op wrong in each dict
    Mistake("capstone", "attention_backward returns dK twice the right value (a stray factor 2 on one gradient)",
            _ops_with("attention_backward", _ab_dK_doubled)),
    Mistake("capstone", "layer_norm normalises X in place, overwriting the caller's array (the residual stream)",
            _ops_with("layer_norm", _layer_norm_in_place)),
    Mistake("capstone", "embed takes the last n rows of pos_emb instead of the first n",
            _ops_with("embed", _embed_last_positions)),
    Mistake("capstone", "cross_entropy sums the loss over rows instead of averaging",
            _ops_with("cross_entropy", _ce_loss_sum)),
    Mistake("capstone", "gelu uses √(2π) instead of √(2/π)", _ops_with("gelu", _gelu_sqrt_2pi)),
    Mistake("capstone", "cache_step attends over the old caches before appending, so the new token does not see "
            "itself", _ops_with("cache_step", _cache_step_attends_old)),
    Mistake("capstone", "sample_next compares u with each token's own probability instead of the running total",
            _ops_with("sample_next", _sample_next_own_probability)),
    Mistake("capstone", "layer_norm_backward treats the row mean and variance as constants",
            _ops_with("layer_norm_backward", _lnb_constant_stats)),
]

ACCEPTABLE = [
    Mistake("project", "einsum 'i,ij->j'", _ok_project_einsum),
    Mistake("project", "two explicit loops over j and i", _ok_project_loops),
    Mistake("project", "the textbook's column form, Wᵀ x", _ok_project_column_vector),
    Mistake("compose", "einsum 'ik,kj->ij'", _ok_compose_einsum),
    Mistake("compose", "(W2ᵀ W1ᵀ)ᵀ, the column-vector composition transposed back", _ok_compose_transposes),
    Mistake("project_rows", "one projection per row, stacked", _ok_project_rows_stack),
    Mistake("project_rows", "einsum 'ni,io->no'", _ok_project_rows_einsum),
    Mistake("matmul_cost", "math.prod of Python ints", _ok_matmul_cost_prod),
    Mistake("matmul_cost", "entries times the length of each dot product", _ok_matmul_cost_per_entry),
    Mistake("values", "one projected row per token, stacked", _ok_values_rows),
    Mistake("one_hot", "a broadcast comparison of ids with the column numbers, cast to float", _ok_one_hot_compare),
    Mistake("one_hot", "a loop setting one entry per row", _ok_one_hot_loop),
    Mistake("uniform_causal_weights", "a double loop", _ok_ucw_loop),
    Mistake("uniform_causal_weights", "a lower-triangular matrix of ones divided by its row sums", _ok_ucw_row_sums),
    Mistake("causal_average", "the uniform causal weights times V", _ok_causal_average_matrix),
    Mistake("causal_average", "a running sum in a loop", _ok_causal_average_running),
    Mistake("similarity", "einsum 'id,jd->ij'", _ok_similarity_einsum),
    Mistake("similarity", "np.inner(Q, K)", _ok_similarity_inner),
    Mistake("learned_scores", "the bilinear form X (Wq Wkᵀ) Xᵀ", _ok_learned_scores_bilinear),
    Mistake("causal_mask", "np.where on the index grids", _ok_causal_mask_where),
    Mistake("causal_mask", "a loop filling each row's future", _ok_causal_mask_loop),
    Mistake("softmax", "exp(S - logsumexp(S)) with the max-shifted log-sum-exp", _ok_softmax_lse),
    Mistake("softmax", "moves the axis last, normalises, moves it back", _ok_softmax_moveaxis),
    Mistake("score_scale", "d ** -0.5", _ok_score_scale_power),
    Mistake("score_scale", "math.sqrt(1 / d)", _ok_score_scale_sqrt_inverse),
    Mistake("attention_weights", "row by row over the visible keys only", _ok_aw_rows),
    Mistake("attention", "einsum of the weights with V", _ok_attention_einsum),
    Mistake("self_attention", "folds Wo into the values first, A (X Wv Wo)", _ok_self_attention_wo_first),
    Mistake("future_leak", "moves rows by 2 and searches each distance k from 1 up", _ok_future_leak_move_two),
    Mistake("future_leak", "builds the whole (output row, input row) dependency table, then the largest j - i",
            _ok_future_leak_vectorised),
    Mistake("tiled_attention", "walks every key tile and relies on the mask, skipping fully masked tiles",
            _ok_tiled_all_tiles),
    Mistake("embed", "one-hot rows times tok_emb, plus the first n position rows", _ok_embed_one_hot),
    Mistake("sinusoidal_positions", "an explicit loop with math.sin and math.cos", _ok_sinusoidal_loop),
    Mistake("sinusoidal_positions", "frequencies as exp(-log(10000) 2i/d), sines and cosines interleaved by a "
            "stack and reshape", _ok_sinusoidal_exp_log),
    Mistake("split_heads", "np.split along the columns", _ok_split_heads_split),
    Mistake("split_heads", "reshape to (n, n_heads, d_head), then transpose (1, 0, 2)", _ok_split_heads_reshape),
    Mistake("multi_head_attention", "sums each head's output times its own rows of Wo", _ok_mha_sum_of_heads),
    Mistake("layer_norm", "row by row with np.var", _ok_layer_norm_rows),
    Mistake("gelu", "the identity 0.5 (1 + tanh z) = sigmoid(2z)", _ok_gelu_sigmoid),
    Mistake("transformer_block", "explicit steps with other but equivalent pieces", _ok_block_steps),
    Mistake("next_token_logits", "all rows' logits, then the last", _ok_ntl_all_then_last),
    Mistake("next_token_logits", "W_vocabᵀ times the last row", _ok_ntl_column),
    Mistake("cross_entropy", "row by row with np.logaddexp.reduce", _ok_ce_rows),
    Mistake("softmax_backward", "the full Jacobian diag(a) - a aᵀ per row, over any leading axes", _ok_smb_jacobian),
    Mistake("softmax_backward", "expanded: A dA - A sum(A dA)", _ok_smb_expanded),
    Mistake("attention_backward", "all products written as einsums", _ok_ab_einsum),
    Mistake("layer_norm_backward", "the compact form rstd/d (d dXhat - Σ dXhat - Xhat Σ dXhat Xhat)", _ok_lnb_compact),
    Mistake("most_attended", "a loop keeping the first strict maximum", _ok_most_attended_loop),
    Mistake("attention_entropy", "a loop with math.log over the positive weights", _ok_entropy_loop),
    Mistake("padding_mask", "np.where on the column numbers, broadcast to n_q rows", _ok_padding_mask_where),
    Mistake("cross_attention", "ordinary attention without the mask on Q = X Wq, K = Z Wk, V = Z Wv",
            _ok_cross_attention),
    Mistake("attend_step", "weights as exp(s - logsumexp(s))", _ok_attend_step_lse),
    Mistake("cache_step", "np.vstack, and the single-key case answered with v", _ok_cache_step_vstack),
    Mistake("sample_next", "a loop for the argmax, and the count of running totals <= u", _ok_sample_next_loop),
    Mistake("generate", "feeds the whole prompt first, then each new token but the last", _ok_generate_feeds_prompt),
    Mistake("generate", "the plain greedy loop, one cache_step per token fed", _generate_right),
    Mistake("kv_cache_bytes", "math.prod of the seven factors", _ok_kv_prod),
    Mistake("max_cached_tokens", "divmod by the bytes of one token", _ok_mct_divmod),
    Mistake("max_cached_tokens", "an exact bisection on kv_cache_bytes", _ok_mct_bisect),
    Mistake("capstone", "every op a right answer (the shared helpers)", dict(_RIGHT_OPS)),
    Mistake("capstone", "every op a right answer written differently", dict(_OK_OPS)),
]
