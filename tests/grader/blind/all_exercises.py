"""A blind set of learner mistakes over every exercise of the course, one or more per name passed to check(...).

Written without reading the grader, its catalogue of mistakes, its tests, the solutions or the grading folder:
only from the exercise notebooks' task texts and stub signatures, the lessons, the README and the maths modules
of attnlib. Each mistake is one slip a learner could make in answer to what the exercise text actually asks
(habits of PyTorch users, column-vector mathematicians, hurried learners: a wrong axis, a missing keepdims, an
off-by-one in a mask, a wrong scale, a dropped or sign-flipped term of a backward pass, two steps in the wrong
order, a mutated input, a numpy integer where a Python int is asked, a size the text allows that breaks the code),
written as the learner's whole function, built from the shared correct helpers below so that it differs from a
right answer in one place only. ACCEPTABLE holds right answers written differently (loops, einsum, other but
equivalent formulas), which must pass. Every mistake was run against a right answer (attnlib's maths functions or
an independent one) on random and edge-case inputs the exercise allows and differs from it on at least one (in
its value, shape, type, a mutated input, the number of cache_step calls, or the memory tiled_attention takes);
every acceptable answer agrees to about 1e-9 relative on all of them. That verification lives outside the
repository. The file imports numpy and math only.
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


# ============================================================================
# shared correct helpers (right answers; a mistake differs from them in one place)

def _softmax(S, axis=-1):
    E = np.exp(S - np.max(S, axis=axis, keepdims=True))
    return E / np.sum(E, axis=axis, keepdims=True)


def _future(n_q, n_k):
    """Bool (n_q, n_k): True where key j is in the future of query i; the queries are the last n_q positions."""
    return np.triu(np.ones((n_q, n_k), dtype=bool), k=n_k - n_q + 1)


def _causal_mask(n):
    return np.where(_future(n, n), -np.inf, 0.0)


def _scores(Q, K, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / math.sqrt(Q.shape[1])
    if causal:
        S = np.where(_future(Q.shape[0], K.shape[0]), -np.inf, S)
    return S


def _attention_weights(Q, K, causal=True, scale=True):
    return _softmax(_scores(Q, K, causal, scale), axis=-1)


def _attention(Q, K, V, causal=True, scale=True):
    return _attention_weights(Q, K, causal, scale) @ V


def _split_heads(M, n_heads):
    n, width = M.shape
    return M.reshape(n, n_heads, width // n_heads).transpose(1, 0, 2)


def _merge_heads(H):
    n_heads, n, d_head = H.shape
    return H.transpose(1, 0, 2).reshape(n, n_heads * d_head)


def _mha(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    Q, K, V = _split_heads(X @ Wq, n_heads), _split_heads(X @ Wk, n_heads), _split_heads(X @ Wv, n_heads)
    O = np.stack([_attention(Q[h], K[h], V[h], causal) for h in range(n_heads)])
    return _merge_heads(O) @ Wo


def _layer_norm(X, g, b, eps=1e-5):
    mu = X.mean(axis=-1, keepdims=True)
    var = ((X - mu) ** 2).mean(axis=-1, keepdims=True)
    return (X - mu) / np.sqrt(var + eps) * g + b


_GELU_C = math.sqrt(2.0 / math.pi)


def _gelu(X):
    return 0.5 * X * (1.0 + np.tanh(_GELU_C * (X + 0.044715 * X ** 3)))


def _mlp(H, p):
    return _gelu(H @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"]


def _block(X, p, n_heads, causal=True):
    Y = X + _mha(_layer_norm(X, p["ln1_g"], p["ln1_b"]), p["Wq"], p["Wk"], p["Wv"], p["Wo"], n_heads, causal)
    return Y + _mlp(_layer_norm(Y, p["ln2_g"], p["ln2_b"]), p)


def _embed(tokens, tok_emb, pos_emb):
    return tok_emb[tokens] + pos_emb[:len(tokens)]


def _next_token_logits(H, W_vocab):
    return H[-1] @ W_vocab


def _log_softmax_rows(Z):
    Z = Z - Z.max(axis=1, keepdims=True)
    return Z - np.log(np.exp(Z).sum(axis=1, keepdims=True))


def _cross_entropy(logits, targets):
    n = logits.shape[0]
    logp = _log_softmax_rows(logits)
    loss = -logp[np.arange(n), targets].mean()
    dlogits = np.exp(logp)
    dlogits[np.arange(n), targets] -= 1.0
    return loss, dlogits / n


def _softmax_backward(A, dA):
    return A * (dA - np.sum(A * dA, axis=-1, keepdims=True))


def _attention_backward(Q, K, V, dO, causal=True, scale=True):
    s = 1.0 / math.sqrt(Q.shape[1]) if scale else 1.0
    A = _attention_weights(Q, K, causal, scale)
    dV = A.T @ dO
    dS = _softmax_backward(A, dO @ V.T) * s
    return dS @ K, dS.T @ Q, dV


def _ln_stats(X, eps):
    mu = X.mean(axis=1, keepdims=True)
    var = ((X - mu) ** 2).mean(axis=1, keepdims=True)
    rstd = 1.0 / np.sqrt(var + eps)
    return (X - mu) * rstd, rstd


def _layer_norm_backward(X, g, dY, eps=1e-5):
    Xhat, rstd = _ln_stats(X, eps)
    dXhat = dY * g
    dX = (dXhat - dXhat.mean(axis=1, keepdims=True) - Xhat * (dXhat * Xhat).mean(axis=1, keepdims=True)) * rstd
    return dX, (dY * Xhat).sum(axis=0), dY.sum(axis=0)


def _attend_step(q, K_cache, V_cache):
    s = K_cache @ q / math.sqrt(q.shape[0])
    w = np.exp(s - s.max())
    return (w / w.sum()) @ V_cache


def _cache_step(q, k, v, K_cache, V_cache):
    K_new = np.vstack([K_cache, k[None, :]])
    V_new = np.vstack([V_cache, v[None, :]])
    return _attend_step(q, K_new, V_new), K_new, V_new


def _sample_next(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    z = (np.asarray(logits, dtype=np.float64) - np.max(logits)) / temperature
    e = np.exp(z)
    cdf = np.cumsum(e / e.sum())
    cdf = cdf / cdf[-1]
    return int(np.searchsorted(cdf, u, side="right"))


def _kv_per_token(n_layers, n_heads, d_head, batch, bytes_per_value):
    return 2 * n_layers * n_heads * d_head * batch * bytes_per_value


def _row_change(a, b):
    """How far each output row moved: max |a - b| over the row."""
    a, b = np.asarray(a), np.asarray(b)
    return np.abs(a - b).reshape(a.shape[0], -1).max(axis=1)


def _leak_tol(base):
    return 1e-9 * max(1.0, float(np.abs(np.asarray(base)).max()))


def _sinusoidal(n, d):
    t = np.arange(n)[:, None]
    i = np.arange(d // 2)[None, :]
    angle = t / 10000.0 ** (2 * i / d)
    P = np.zeros((n, d))
    P[:, 0::2] = np.sin(angle)
    P[:, 1::2] = np.cos(angle)
    return P


# ============================================================================
# 01 project(x, W)

def project__column_vector(x, W):
    return W @ x  # the textbook x' = Wx


def project__sums_over_outputs(x, W):
    return (x[:, None] * W).sum(axis=1)


def project__keeps_row_matrix(x, W):
    return x[None, :] @ W


def project__output_sized_d_in(x, W):
    out = np.zeros(len(x))
    for j in range(len(x)):
        out[j] = x @ W[:, j]
    return out


def project__int_accumulator(x, W):
    out = np.zeros(W.shape[1], dtype=int)
    for j in range(W.shape[1]):
        out[j] = x @ W[:, j]
    return out


# 01 compose(W1, W2)

def compose__column_order(W1, W2):
    return W2 @ W1  # x' = W2 W1 x with column vectors


def compose__elementwise(W1, W2):
    return W1 * W2


def compose__in_place(W1, W2):
    W1 @= W2
    return W1


def compose__transposed(W1, W2):
    return W2.T @ W1.T


# 02 project_rows(X, W)

def project_rows__transposed(X, W):
    return W.T @ X.T


def project_rows__first_row_only(X, W):
    return X[0] @ W


def project_rows__skips_last_row(X, W):
    Y = np.zeros((X.shape[0], W.shape[1]))
    for i in range(X.shape[0] - 1):
        Y[i] = X[i] @ W
    return Y


def project_rows__squeezes(X, W):
    return np.squeeze(X @ W)


# 02 matmul_cost(n, d_in, d_out)

def matmul_cost__flops(n, d_in, d_out):
    return 2 * n * d_in * d_out


def matmul_cost__entries_only(n, d_in, d_out):
    return n * d_out


def matmul_cost__additions(n, d_in, d_out):
    return n * d_out * (d_in - 1)


def matmul_cost__float(n, d_in, d_out):
    return float(n) * d_in * d_out


def matmul_cost__numpy_prod(n, d_in, d_out):
    return np.prod([n, d_in, d_out])


# 03 values(tokens, table, Wv)

def values__unique_words(tokens, table, Wv):
    X = np.stack([table[w] for w in dict.fromkeys(tokens)])
    return X @ Wv


def values__table_order(tokens, table, Wv):
    X = np.stack([table[w] for w in table])
    return X @ Wv


def values__transposed(tokens, table, Wv):
    X = np.stack([table[w] for w in tokens])
    return Wv.T @ X.T


def values__forgets_Wv(tokens, table, Wv):
    return np.stack([table[w] for w in tokens])


def values__sorted_tokens(tokens, table, Wv):
    X = np.stack([table[w] for w in sorted(tokens)])
    return X @ Wv


# 03 one_hot(ids, vocab_size)

def one_hot__width_from_ids(ids, vocab_size):
    out = np.zeros((len(ids), int(ids.max()) + 1))
    out[np.arange(len(ids)), ids] = 1.0
    return out


def one_hot__int_dtype(ids, vocab_size):
    out = np.zeros((len(ids), vocab_size), dtype=int)
    out[np.arange(len(ids)), ids] = 1
    return out


def one_hot__unique(ids, vocab_size):
    ids = np.unique(ids)
    out = np.zeros((len(ids), vocab_size))
    out[np.arange(len(ids)), ids] = 1.0
    return out


def one_hot__transposed(ids, vocab_size):
    out = np.zeros((vocab_size, len(ids)))
    out[ids, np.arange(len(ids))] = 1.0
    return out


def one_hot__one_based(ids, vocab_size):
    out = np.zeros((len(ids), vocab_size))
    out[np.arange(len(ids)), ids - 1] = 1.0
    return out


def one_hot__whole_columns(ids, vocab_size):
    out = np.zeros((len(ids), vocab_size))
    out[:, ids] = 1.0
    return out


# 04 uniform_causal_weights(n)

def uniform_causal_weights__divides_by_n(n):
    return np.tril(np.ones((n, n))) / n


def uniform_causal_weights__divides_by_column(n):
    return np.tril(np.ones((n, n))) / np.arange(1, n + 1)


def uniform_causal_weights__no_diagonal(n):
    return np.tril(np.ones((n, n)), k=-1) / np.arange(1, n + 1)[:, None]


def uniform_causal_weights__transposed(n):
    return (np.tril(np.ones((n, n))) / np.arange(1, n + 1)[:, None]).T


def uniform_causal_weights__integer_division(n):
    A = np.zeros((n, n))
    for i in range(n):
        A[i, :i + 1] = 1 // (i + 1)
    return A


# 04 causal_average(V)

def causal_average__divides_by_n(V):
    return np.cumsum(V, axis=0) / V.shape[0]


def causal_average__counts_along_columns(V):
    return np.cumsum(V, axis=0) / np.arange(1, V.shape[0] + 1)


def causal_average__mean_of_all_rows(V):
    return np.tile(V.mean(axis=0), (V.shape[0], 1))


def causal_average__along_features(V):
    return np.cumsum(V, axis=1) / np.arange(1, V.shape[1] + 1)


def causal_average__divides_by_i(V):
    return np.cumsum(V, axis=0) / np.arange(V.shape[0])[:, None]


# 05 similarity(Q, K)

def similarity__QT_K(Q, K):
    return Q.T @ K


def similarity__K_QT(Q, K):
    return K @ Q.T


def similarity__scaled(Q, K):
    return Q @ K.T / np.sqrt(Q.shape[1])


def similarity__rowwise(Q, K):
    return (Q * K).sum(axis=1)


def similarity__cosine(Q, K):
    Qn = Q / np.linalg.norm(Q, axis=1, keepdims=True)
    Kn = K / np.linalg.norm(K, axis=1, keepdims=True)
    return Qn @ Kn.T


# 05 learned_scores(X, Wq, Wk)

def learned_scores__Wq_for_keys(X, Wq, Wk):
    Q = X @ Wq
    return Q @ Q.T


def learned_scores__swapped(X, Wq, Wk):
    return (X @ Wk) @ (X @ Wq).T


def learned_scores__scaled(X, Wq, Wk):
    return (X @ Wq) @ (X @ Wk).T / np.sqrt(Wq.shape[1])


def learned_scores__masked(X, Wq, Wk):
    S = (X @ Wq) @ (X @ Wk).T
    return S + np.triu(np.full(S.shape, -np.inf), k=1)


def learned_scores__softmax(X, Wq, Wk):
    return _softmax((X @ Wq) @ (X @ Wk).T, axis=-1)


# 06 causal_mask(n)

def causal_mask__masks_diagonal(n):
    return np.triu(np.full((n, n), -np.inf), k=0)


def causal_mask__masks_past(n):
    return np.tril(np.full((n, n), -np.inf), k=-1)


def causal_mask__large_negative(n):
    return np.triu(np.full((n, n), -1e9), k=1)


def causal_mask__multiplicative(n):
    return np.tril(np.ones((n, n)))


def causal_mask__zero_times_inf(n):
    return np.triu(np.ones((n, n)), k=1) * -np.inf


# 06 softmax(S, axis=-1)

def softmax__no_max(S, axis=-1):
    E = np.exp(S)
    return E / E.sum(axis=axis, keepdims=True)


def softmax__ignores_axis(S, axis=-1):
    E = np.exp(S - S.max(axis=-1, keepdims=True))
    return E / E.sum(axis=-1, keepdims=True)


def softmax__axis0(S, axis=-1):
    E = np.exp(S - S.max(axis=0, keepdims=True))
    return E / E.sum(axis=0, keepdims=True)


def softmax__max_no_keepdims(S, axis=-1):
    E = np.exp(S - S.max(axis=axis))
    return E / E.sum(axis=axis, keepdims=True)


def softmax__sum_no_keepdims(S, axis=-1):
    E = np.exp(S - S.max(axis=axis, keepdims=True))
    return E / E.sum(axis=axis)


def softmax__global_max(S, axis=-1):
    E = np.exp(S - S.max())
    return E / E.sum(axis=axis, keepdims=True)


def softmax__global_sum(S, axis=-1):
    E = np.exp(S - S.max(axis=axis, keepdims=True))
    return E / E.sum()


def softmax__inf_to_zero(S, axis=-1):
    S = np.where(np.isinf(S), 0.0, S)
    E = np.exp(S - S.max(axis=axis, keepdims=True))
    return E / E.sum(axis=axis, keepdims=True)


def softmax__in_place(S, axis=-1):
    S -= S.max(axis=axis, keepdims=True)
    np.exp(S, out=S)
    S /= S.sum(axis=axis, keepdims=True)
    return S


# 06 score_scale(d)

def score_scale__one_over_d(d):
    return 1.0 / d


def score_scale__sqrt_d(d):
    return math.sqrt(d)


def score_scale__precedence(d):
    return d ** -1/2


def score_scale__measured(d):
    rng = np.random.default_rng(0)
    q, k = rng.standard_normal((1000, d)), rng.standard_normal((1000, d))
    return float(1.0 / np.sqrt((q * k).sum(axis=1).var()))


# 06 attention_weights(Q, K, causal=True, scale=True)

def attention_weights__mask_top_left(Q, K, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(Q.shape[1])
    if causal:
        S = S + np.triu(np.full(S.shape, -np.inf), k=1)
    return _softmax(S, axis=-1)


def attention_weights__scale_by_d(Q, K, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / Q.shape[1]
    if causal:
        S = np.where(_future(*S.shape), -np.inf, S)
    return _softmax(S, axis=-1)


def attention_weights__mask_after_softmax(Q, K, causal=True, scale=True):
    A = _softmax(_scores(Q, K, causal=False, scale=scale), axis=-1)
    if causal:
        A = np.where(_future(*A.shape), 0.0, A)
    return A


def attention_weights__softmax_over_queries(Q, K, causal=True, scale=True):
    return _softmax(_scores(Q, K, causal, scale), axis=0)


def attention_weights__always_masks(Q, K, causal=True, scale=True):
    return _softmax(_scores(Q, K, True, scale), axis=-1)


def attention_weights__always_scales(Q, K, causal=True, scale=True):
    return _softmax(_scores(Q, K, causal, True), axis=-1)


def attention_weights__scale_by_n_k(Q, K, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(K.shape[0])
    if causal:
        S = np.where(_future(*S.shape), -np.inf, S)
    return _softmax(S, axis=-1)


def attention_weights__mask_one_too_far(Q, K, causal=True, scale=True):
    S = _scores(Q, K, causal=False, scale=scale)
    if causal:
        n_q, n_k = S.shape
        S = S + np.triu(np.full(S.shape, -np.inf), k=n_k - n_q + 2)
    return _softmax(S, axis=-1)


def attention_weights__scale_after_softmax(Q, K, causal=True, scale=True):
    A = _softmax(_scores(Q, K, causal, scale=False), axis=-1)
    return A / np.sqrt(Q.shape[1]) if scale else A


# 07 attention(Q, K, V, causal=True, scale=True)

def attention__weights_transposed(Q, K, V, causal=True, scale=True):
    A = _attention_weights(Q, K, causal, scale)
    return A.T @ V


def attention__softmax_over_queries(Q, K, V, causal=True, scale=True):
    return _softmax(_scores(Q, K, causal, scale), axis=0) @ V


def attention__mask_top_left(Q, K, V, causal=True, scale=True):
    S = _scores(Q, K, causal=False, scale=scale)
    if causal:
        S = S + np.triu(np.full(S.shape, -np.inf), k=1)
    return _softmax(S, axis=-1) @ V


def attention__scale_by_d_v(Q, K, V, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(V.shape[1])
    if causal:
        S = np.where(_future(*S.shape), -np.inf, S)
    return _softmax(S, axis=-1) @ V


def attention__no_max_subtraction(Q, K, V, causal=True, scale=True):
    E = np.exp(_scores(Q, K, causal, scale))
    return (E / E.sum(axis=1, keepdims=True)) @ V


def attention__never_masks(Q, K, V, causal=True, scale=True):
    return _softmax(_scores(Q, K, False, scale), axis=-1) @ V


def attention__forgets_scale(Q, K, V, causal=True, scale=True):
    return _softmax(_scores(Q, K, causal, False), axis=-1) @ V


def attention__multiplicative_mask(Q, K, V, causal=True, scale=True):
    S = _scores(Q, K, causal=False, scale=scale)
    if causal:
        S = S * ~_future(*S.shape)  # future scores become 0, not -inf
    return _softmax(S, axis=-1) @ V


def attention__zero_future_after_exp(Q, K, V, causal=True, scale=True):
    S = _scores(Q, K, causal=False, scale=scale)
    S = S - S.max(axis=1, keepdims=True)
    E = np.exp(S)
    if causal:
        E = E * ~_future(*E.shape)
    return (E / E.sum(axis=1, keepdims=True)) @ V


# 07 self_attention(X, Wq, Wk, Wv, Wo=None, causal=True)

def self_attention__ignores_Wo(X, Wq, Wk, Wv, Wo=None, causal=True):
    return _attention(X @ Wq, X @ Wk, X @ Wv, causal)


def self_attention__scale_d_model(X, Wq, Wk, Wv, Wo=None, causal=True):
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    S = Q @ K.T / np.sqrt(X.shape[1])
    if causal:
        S = np.where(_future(*S.shape), -np.inf, S)
    O = _softmax(S, axis=-1) @ V
    return O if Wo is None else O @ Wo


def self_attention__always_causal(X, Wq, Wk, Wv, Wo=None, causal=True):
    O = _attention(X @ Wq, X @ Wk, X @ Wv, True)
    return O if Wo is None else O @ Wo


def self_attention__Wq_for_keys(X, Wq, Wk, Wv, Wo=None, causal=True):
    O = _attention(X @ Wq, X @ Wq, X @ Wv, causal)
    return O if Wo is None else O @ Wo


def self_attention__mixes_X(X, Wq, Wk, Wv, Wo=None, causal=True):
    O = _attention_weights(X @ Wq, X @ Wk, causal) @ X
    return O if Wo is None else O @ Wo


def self_attention__truthiness_of_Wo(X, Wq, Wk, Wv, Wo=None, causal=True):
    O = _attention(X @ Wq, X @ Wk, X @ Wv, causal)
    if Wo:
        O = O @ Wo
    return O


# 07 future_leak(attn, X)

def future_leak__counts_pairs(attn, X):
    base = attn(X)
    tol = _leak_tol(base)
    count = 0
    for j in range(X.shape[0]):
        moved = X.copy()
        moved[j] += 1.0
        change = _row_change(attn(moved), base)
        count += int(np.sum(change[:j] > tol))
    return count


def future_leak__any_direction(attn, X):
    base = attn(X)
    tol = _leak_tol(base)
    worst = 0
    for j in range(X.shape[0]):
        moved = X.copy()
        moved[j] += 1.0
        change = _row_change(attn(moved), base)
        for i in range(X.shape[0]):
            if i != j and change[i] > tol:
                worst = max(worst, abs(j - i))
    return worst


def future_leak__absolute_threshold(attn, X):
    base = attn(X)
    worst = 0
    for j in range(X.shape[0]):
        moved = X.copy()
        moved[j] += 1.0
        change = _row_change(attn(moved), base)
        for i in range(j):
            if change[i] > 1e-9:
                worst = max(worst, j - i)
    return worst


def future_leak__any_change(attn, X):
    base = attn(X)
    worst = 0
    for j in range(X.shape[0]):
        moved = X.copy()
        moved[j] += 1.0
        change = _row_change(attn(moved), base)
        for i in range(j):
            if change[i] != 0:
                worst = max(worst, j - i)
    return worst


def future_leak__tiny_move(attn, X):
    base = attn(X)
    tol = _leak_tol(base)
    worst = 0
    for j in range(X.shape[0]):
        moved = X.copy()
        moved[j] += 1e-6
        change = _row_change(attn(moved), base)
        for i in range(j):
            if change[i] > tol:
                worst = max(worst, j - i)
    return worst


def future_leak__moves_X_in_place(attn, X):
    base = attn(X)
    tol = _leak_tol(base)
    worst = 0
    for j in range(X.shape[0]):
        X[j] += 1.0
        change = _row_change(attn(X), base)
        X[j] -= 1.0
        for i in range(j):
            if change[i] > tol:
                worst = max(worst, j - i)
    return worst


def future_leak__only_next_row(attn, X):
    base = attn(X)
    tol = _leak_tol(base)
    for i in range(X.shape[0] - 1):
        moved = X.copy()
        moved[i + 1] += 1.0
        if _row_change(attn(moved), base)[i] > tol:
            return 1
    return 0


def future_leak__none_when_causal(attn, X):
    base = attn(X)
    tol = _leak_tol(base)
    worst = None
    for j in range(X.shape[0]):
        moved = X.copy()
        moved[j] += 1.0
        change = _row_change(attn(moved), base)
        for i in range(j):
            if change[i] > tol:
                worst = j - i if worst is None else max(worst, j - i)
    return worst


# 07 tiled_attention(Q, K, V, causal=True, block=64)

def _tiled_right(Q, K, V, causal=True, block=64):
    n_q, d = Q.shape
    n_k = K.shape[0]
    offset = n_k - n_q
    s = 1.0 / math.sqrt(d)
    O = np.empty((n_q, V.shape[1]))
    for q0 in range(0, n_q, block):
        Qb = Q[q0:q0 + block] * s
        bq = Qb.shape[0]
        m = np.full((bq, 1), -np.inf)
        l = np.zeros((bq, 1))
        acc = np.zeros((bq, V.shape[1]))
        k_end = min(n_k, offset + q0 + bq) if causal else n_k
        for k0 in range(0, k_end, block):
            S = Qb @ K[k0:k0 + block].T
            if causal:
                qpos = offset + q0 + np.arange(bq)[:, None]
                kpos = k0 + np.arange(S.shape[1])[None, :]
                S = np.where(kpos > qpos, -np.inf, S)
            m_new = np.maximum(m, S.max(axis=1, keepdims=True))
            P = np.exp(S - m_new)
            r = np.exp(m - m_new)
            l = l * r + P.sum(axis=1, keepdims=True)
            acc = acc * r + P @ V[k0:k0 + block]
            m = m_new
        O[q0:q0 + bq] = acc / l
    return O


def tiled_attention__no_rescale(Q, K, V, causal=True, block=64):
    n_q, d = Q.shape
    n_k = K.shape[0]
    offset = n_k - n_q
    s = 1.0 / math.sqrt(d)
    O = np.empty((n_q, V.shape[1]))
    for q0 in range(0, n_q, block):
        Qb = Q[q0:q0 + block] * s
        bq = Qb.shape[0]
        m = np.full((bq, 1), -np.inf)
        l = np.zeros((bq, 1))
        acc = np.zeros((bq, V.shape[1]))
        k_end = min(n_k, offset + q0 + bq) if causal else n_k
        for k0 in range(0, k_end, block):
            S = Qb @ K[k0:k0 + block].T
            if causal:
                qpos = offset + q0 + np.arange(bq)[:, None]
                kpos = k0 + np.arange(S.shape[1])[None, :]
                S = np.where(kpos > qpos, -np.inf, S)
            m_new = np.maximum(m, S.max(axis=1, keepdims=True))
            P = np.exp(S - m_new)
            l = l + P.sum(axis=1, keepdims=True)  # old l and acc not shrunk
            acc = acc + P @ V[k0:k0 + block]
            m = m_new
        O[q0:q0 + bq] = acc / l
    return O


def tiled_attention__rescales_acc_only(Q, K, V, causal=True, block=64):
    n_q, d = Q.shape
    n_k = K.shape[0]
    offset = n_k - n_q
    s = 1.0 / math.sqrt(d)
    O = np.empty((n_q, V.shape[1]))
    for q0 in range(0, n_q, block):
        Qb = Q[q0:q0 + block] * s
        bq = Qb.shape[0]
        m = np.full((bq, 1), -np.inf)
        l = np.zeros((bq, 1))
        acc = np.zeros((bq, V.shape[1]))
        k_end = min(n_k, offset + q0 + bq) if causal else n_k
        for k0 in range(0, k_end, block):
            S = Qb @ K[k0:k0 + block].T
            if causal:
                qpos = offset + q0 + np.arange(bq)[:, None]
                kpos = k0 + np.arange(S.shape[1])[None, :]
                S = np.where(kpos > qpos, -np.inf, S)
            m_new = np.maximum(m, S.max(axis=1, keepdims=True))
            P = np.exp(S - m_new)
            r = np.exp(m - m_new)
            l = l + P.sum(axis=1, keepdims=True)  # l not shrunk
            acc = acc * r + P @ V[k0:k0 + block]
            m = m_new
        O[q0:q0 + bq] = acc / l
    return O


def tiled_attention__rescale_sign_flipped(Q, K, V, causal=True, block=64):
    n_q, d = Q.shape
    n_k = K.shape[0]
    offset = n_k - n_q
    s = 1.0 / math.sqrt(d)
    O = np.empty((n_q, V.shape[1]))
    for q0 in range(0, n_q, block):
        Qb = Q[q0:q0 + block] * s
        bq = Qb.shape[0]
        m = np.full((bq, 1), -np.inf)
        l = np.zeros((bq, 1))
        acc = np.zeros((bq, V.shape[1]))
        k_end = min(n_k, offset + q0 + bq) if causal else n_k
        for k0 in range(0, k_end, block):
            S = Qb @ K[k0:k0 + block].T
            if causal:
                qpos = offset + q0 + np.arange(bq)[:, None]
                kpos = k0 + np.arange(S.shape[1])[None, :]
                S = np.where(kpos > qpos, -np.inf, S)
            m_new = np.maximum(m, S.max(axis=1, keepdims=True))
            P = np.exp(S - m_new)
            r = np.exp(m_new - m)  # new max minus old
            l = l * r + P.sum(axis=1, keepdims=True)
            acc = acc * r + P @ V[k0:k0 + block]
            m = m_new
        O[q0:q0 + bq] = acc / l
    return O


def tiled_attention__mask_every_tile(Q, K, V, causal=True, block=64):
    n_q, d = Q.shape
    n_k = K.shape[0]
    offset = n_k - n_q
    s = 1.0 / math.sqrt(d)
    O = np.empty((n_q, V.shape[1]))
    for q0 in range(0, n_q, block):
        Qb = Q[q0:q0 + block] * s
        bq = Qb.shape[0]
        m = np.full((bq, 1), -np.inf)
        l = np.zeros((bq, 1))
        acc = np.zeros((bq, V.shape[1]))
        k_end = min(n_k, offset + q0 + bq) if causal else n_k
        for k0 in range(0, k_end, block):
            S = Qb @ K[k0:k0 + block].T
            if causal:
                S = np.where(np.triu(np.ones(S.shape, dtype=bool), k=1), -np.inf, S)  # tile-local triangle
            m_new = np.maximum(m, S.max(axis=1, keepdims=True))
            P = np.exp(S - m_new)
            r = np.exp(m - m_new)
            l = l * r + P.sum(axis=1, keepdims=True)
            acc = acc * r + P @ V[k0:k0 + block]
            m = m_new
        O[q0:q0 + bq] = acc / l
    return O


def tiled_attention__queries_at_start(Q, K, V, causal=True, block=64):
    n_q, d = Q.shape
    n_k = K.shape[0]
    offset = 0  # the queries taken as positions 0..n_q-1
    s = 1.0 / math.sqrt(d)
    O = np.empty((n_q, V.shape[1]))
    for q0 in range(0, n_q, block):
        Qb = Q[q0:q0 + block] * s
        bq = Qb.shape[0]
        m = np.full((bq, 1), -np.inf)
        l = np.zeros((bq, 1))
        acc = np.zeros((bq, V.shape[1]))
        k_end = min(n_k, offset + q0 + bq) if causal else n_k
        for k0 in range(0, k_end, block):
            S = Qb @ K[k0:k0 + block].T
            if causal:
                qpos = offset + q0 + np.arange(bq)[:, None]
                kpos = k0 + np.arange(S.shape[1])[None, :]
                S = np.where(kpos > qpos, -np.inf, S)
            m_new = np.maximum(m, S.max(axis=1, keepdims=True))
            P = np.exp(S - m_new)
            r = np.exp(m - m_new)
            l = l * r + P.sum(axis=1, keepdims=True)
            acc = acc * r + P @ V[k0:k0 + block]
            m = m_new
        O[q0:q0 + bq] = acc / l
    return O


def tiled_attention__whole_strip(Q, K, V, causal=True, block=64):
    n_q, d = Q.shape
    n_k = K.shape[0]
    offset = n_k - n_q
    s = 1.0 / math.sqrt(d)
    O = np.empty((n_q, V.shape[1]))
    for q0 in range(0, n_q, block):
        Qb = Q[q0:q0 + block] * s
        bq = Qb.shape[0]
        k_end = min(n_k, offset + q0 + bq) if causal else n_k
        S = Qb @ K[:k_end].T  # a (block, n_k) strip against every visible key at once
        if causal:
            qpos = offset + q0 + np.arange(bq)[:, None]
            S = np.where(np.arange(k_end)[None, :] > qpos, -np.inf, S)
        P = np.exp(S - S.max(axis=1, keepdims=True))
        O[q0:q0 + bq] = (P @ V[:k_end]) / P.sum(axis=1, keepdims=True)
    return O


def tiled_attention__drops_partial_tile(Q, K, V, causal=True, block=64):
    n_q, d = Q.shape
    n_k = K.shape[0]
    offset = n_k - n_q
    s = 1.0 / math.sqrt(d)
    O = np.empty((n_q, V.shape[1]))
    for q0 in range(0, n_q, block):
        Qb = Q[q0:q0 + block] * s
        bq = Qb.shape[0]
        m = np.full((bq, 1), -np.inf)
        l = np.zeros((bq, 1))
        acc = np.zeros((bq, V.shape[1]))
        k_end = min(n_k, offset + q0 + bq) if causal else n_k
        for k0 in range(0, k_end - block + 1, block):  # whole tiles only
            S = Qb @ K[k0:k0 + block].T
            if causal:
                qpos = offset + q0 + np.arange(bq)[:, None]
                kpos = k0 + np.arange(S.shape[1])[None, :]
                S = np.where(kpos > qpos, -np.inf, S)
            m_new = np.maximum(m, S.max(axis=1, keepdims=True))
            P = np.exp(S - m_new)
            r = np.exp(m - m_new)
            l = l * r + P.sum(axis=1, keepdims=True)
            acc = acc * r + P @ V[k0:k0 + block]
            m = m_new
        O[q0:q0 + bq] = acc / l
    return O


def tiled_attention__forgets_scale(Q, K, V, causal=True, block=64):
    n_q, d = Q.shape
    n_k = K.shape[0]
    offset = n_k - n_q
    O = np.empty((n_q, V.shape[1]))
    for q0 in range(0, n_q, block):
        Qb = Q[q0:q0 + block]  # no 1/sqrt(d)
        bq = Qb.shape[0]
        m = np.full((bq, 1), -np.inf)
        l = np.zeros((bq, 1))
        acc = np.zeros((bq, V.shape[1]))
        k_end = min(n_k, offset + q0 + bq) if causal else n_k
        for k0 in range(0, k_end, block):
            S = Qb @ K[k0:k0 + block].T
            if causal:
                qpos = offset + q0 + np.arange(bq)[:, None]
                kpos = k0 + np.arange(S.shape[1])[None, :]
                S = np.where(kpos > qpos, -np.inf, S)
            m_new = np.maximum(m, S.max(axis=1, keepdims=True))
            P = np.exp(S - m_new)
            r = np.exp(m - m_new)
            l = l * r + P.sum(axis=1, keepdims=True)
            acc = acc * r + P @ V[k0:k0 + block]
            m = m_new
        O[q0:q0 + bq] = acc / l
    return O


def tiled_attention__max_starts_at_zero(Q, K, V, causal=True, block=64):
    n_q, d = Q.shape
    n_k = K.shape[0]
    offset = n_k - n_q
    s = 1.0 / math.sqrt(d)
    O = np.empty((n_q, V.shape[1]))
    for q0 in range(0, n_q, block):
        Qb = Q[q0:q0 + block] * s
        bq = Qb.shape[0]
        m = np.zeros((bq, 1))  # running max starts at 0, not -inf
        l = np.zeros((bq, 1))
        acc = np.zeros((bq, V.shape[1]))
        k_end = min(n_k, offset + q0 + bq) if causal else n_k
        for k0 in range(0, k_end, block):
            S = Qb @ K[k0:k0 + block].T
            if causal:
                qpos = offset + q0 + np.arange(bq)[:, None]
                kpos = k0 + np.arange(S.shape[1])[None, :]
                S = np.where(kpos > qpos, -np.inf, S)
            m_new = np.maximum(m, S.max(axis=1, keepdims=True))
            P = np.exp(S - m_new)
            r = np.exp(m - m_new)
            l = l * r + P.sum(axis=1, keepdims=True)
            acc = acc * r + P @ V[k0:k0 + block]
            m = m_new
        O[q0:q0 + bq] = acc / l
    return O


# 08 embed(tokens, tok_emb, pos_emb)

def embed__positions_by_word_id(tokens, tok_emb, pos_emb):
    return tok_emb[tokens] + pos_emb[tokens]


def embed__whole_position_table(tokens, tok_emb, pos_emb):
    return tok_emb[tokens] + pos_emb


def embed__positions_from_1(tokens, tok_emb, pos_emb):
    return tok_emb[tokens] + pos_emb[1:len(tokens) + 1]


def embed__concatenates(tokens, tok_emb, pos_emb):
    return np.concatenate([tok_emb[tokens], pos_emb[:len(tokens)]], axis=1)


def embed__adds_into_table(tokens, tok_emb, pos_emb):
    tok_emb[tokens] += pos_emb[:len(tokens)]
    return tok_emb[tokens]


# 08 sinusoidal_positions(n, d)

def sinusoidal_positions__exponent_i_over_d(n, d):
    t = np.arange(n)[:, None]
    i = np.arange(d // 2)[None, :]
    angle = t / 10000.0 ** (i / d)
    P = np.zeros((n, d))
    P[:, 0::2] = np.sin(angle)
    P[:, 1::2] = np.cos(angle)
    return P


def sinusoidal_positions__column_index_exponent(n, d):
    t = np.arange(n)[:, None]
    j = np.arange(d)[None, :]
    angle = t / 10000.0 ** (j / d)  # each column its own frequency
    P = np.where(j % 2 == 0, np.sin(angle), np.cos(angle))
    return P


def sinusoidal_positions__halves(n, d):
    t = np.arange(n)[:, None]
    i = np.arange(d // 2)[None, :]
    angle = t / 10000.0 ** (2 * i / d)
    return np.concatenate([np.sin(angle), np.cos(angle)], axis=1)


def sinusoidal_positions__sin_cos_swapped(n, d):
    t = np.arange(n)[:, None]
    i = np.arange(d // 2)[None, :]
    angle = t / 10000.0 ** (2 * i / d)
    P = np.zeros((n, d))
    P[:, 0::2] = np.cos(angle)
    P[:, 1::2] = np.sin(angle)
    return P


def sinusoidal_positions__multiplies(n, d):
    t = np.arange(n)[:, None]
    i = np.arange(d // 2)[None, :]
    angle = t * 10000.0 ** (2 * i / d)
    P = np.zeros((n, d))
    P[:, 0::2] = np.sin(angle)
    P[:, 1::2] = np.cos(angle)
    return P


def sinusoidal_positions__positions_from_1(n, d):
    t = np.arange(1, n + 1)[:, None]
    i = np.arange(d // 2)[None, :]
    angle = t / 10000.0 ** (2 * i / d)
    P = np.zeros((n, d))
    P[:, 0::2] = np.sin(angle)
    P[:, 1::2] = np.cos(angle)
    return P


def sinusoidal_positions__log10(n, d):
    t = np.arange(n)[:, None]
    i = np.arange(d // 2)[None, :]
    angle = t * np.exp(-2 * i * np.log10(10000.0) / d)
    P = np.zeros((n, d))
    P[:, 0::2] = np.sin(angle)
    P[:, 1::2] = np.cos(angle)
    return P


# 09 split_heads(M, n_heads)

def split_heads__plain_reshape(M, n_heads):
    return M.reshape(n_heads, M.shape[0], M.shape[1] // n_heads)


def split_heads__interleaved(M, n_heads):
    return M.reshape(M.shape[0], M.shape[1] // n_heads, n_heads).transpose(2, 0, 1)


def split_heads__no_transpose(M, n_heads):
    return M.reshape(M.shape[0], n_heads, M.shape[1] // n_heads)


def split_heads__counts_swapped(M, n_heads):
    d_head = M.shape[1] // n_heads
    return M.reshape(M.shape[0], d_head, n_heads).transpose(1, 0, 2)


def split_heads__assigns_shape(M, n_heads):
    M.shape = (M.shape[0], n_heads, M.shape[1] // n_heads)
    return M.transpose(1, 0, 2)


def split_heads__wrong_transpose(M, n_heads):
    return M.reshape(M.shape[0], n_heads, M.shape[1] // n_heads).transpose(1, 2, 0)


# 09 multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, causal=True)

def multi_head_attention__scale_d_model(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    Q, K, V = _split_heads(X @ Wq, n_heads), _split_heads(X @ Wk, n_heads), _split_heads(X @ Wv, n_heads)
    heads = []
    for h in range(n_heads):
        S = Q[h] @ K[h].T / np.sqrt(X.shape[1])
        if causal:
            S = np.where(_future(*S.shape), -np.inf, S)
        heads.append(_softmax(S, axis=-1) @ V[h])
    return np.concatenate(heads, axis=1) @ Wo


def multi_head_attention__interleaved(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    heads = [_attention(Q[:, h::n_heads], K[:, h::n_heads], V[:, h::n_heads], causal) for h in range(n_heads)]
    return np.concatenate(heads, axis=1) @ Wo


def multi_head_attention__forgets_Wo(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    Q, K, V = _split_heads(X @ Wq, n_heads), _split_heads(X @ Wk, n_heads), _split_heads(X @ Wv, n_heads)
    return np.concatenate([_attention(Q[h], K[h], V[h], causal) for h in range(n_heads)], axis=1)


def multi_head_attention__reshape_merge(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    Q, K, V = _split_heads(X @ Wq, n_heads), _split_heads(X @ Wk, n_heads), _split_heads(X @ Wv, n_heads)
    O = np.stack([_attention(Q[h], K[h], V[h], causal) for h in range(n_heads)])  # (n_heads, n, d_head)
    return O.reshape(X.shape[0], -1) @ Wo  # head axis never moved back


def multi_head_attention__always_causal(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    Q, K, V = _split_heads(X @ Wq, n_heads), _split_heads(X @ Wk, n_heads), _split_heads(X @ Wv, n_heads)
    return np.concatenate([_attention(Q[h], K[h], V[h], True) for h in range(n_heads)], axis=1) @ Wo


def multi_head_attention__one_wide_head(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    return _attention(X @ Wq, X @ Wk, X @ Wv, causal) @ Wo


def multi_head_attention__squeezes_heads(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    n = X.shape[0]
    Q = (X @ Wq).reshape(n, n_heads, -1).transpose(1, 0, 2).squeeze()
    K = (X @ Wk).reshape(n, n_heads, -1).transpose(1, 0, 2).squeeze()
    V = (X @ Wv).reshape(n, n_heads, -1).transpose(1, 0, 2).squeeze()
    return np.concatenate([_attention(Q[h], K[h], V[h], causal) for h in range(n_heads)], axis=1) @ Wo


def multi_head_attention__d_head_from_d_model(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    d_head = X.shape[1] // n_heads
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_head, (h + 1) * d_head)
        heads.append(_attention(Q[:, cols], K[:, cols], V[:, cols], causal))
    return np.concatenate(heads, axis=1) @ Wo


# 10 layer_norm(X, g, b, eps=1e-5)

def layer_norm__eps_outside_sqrt(X, g, b, eps=1e-5):
    mu = X.mean(axis=1, keepdims=True)
    return (X - mu) / (X.std(axis=1, keepdims=True) + eps) * g + b


def layer_norm__unbiased_variance(X, g, b, eps=1e-5):
    mu = X.mean(axis=1, keepdims=True)
    return (X - mu) / np.sqrt(X.var(axis=1, ddof=1, keepdims=True) + eps) * g + b


def layer_norm__over_columns(X, g, b, eps=1e-5):
    mu = X.mean(axis=0, keepdims=True)
    return (X - mu) / np.sqrt(X.var(axis=0, keepdims=True) + eps) * g + b


def layer_norm__mean_no_keepdims(X, g, b, eps=1e-5):
    Xc = X - X.mean(axis=1)
    return Xc / np.sqrt(X.var(axis=1, keepdims=True) + eps) * g + b


def layer_norm__divides_by_variance(X, g, b, eps=1e-5):
    mu = X.mean(axis=1, keepdims=True)
    return (X - mu) / (X.var(axis=1, keepdims=True) + eps) * g + b


def layer_norm__gain_bias_swapped(X, g, b, eps=1e-5):
    mu = X.mean(axis=1, keepdims=True)
    return (X - mu) / np.sqrt(X.var(axis=1, keepdims=True) + eps) * b + g


def layer_norm__hard_coded_eps(X, g, b, eps=1e-5):
    mu = X.mean(axis=1, keepdims=True)
    return (X - mu) / np.sqrt(X.var(axis=1, keepdims=True) + 1e-5) * g + b


def layer_norm__no_eps(X, g, b, eps=1e-5):
    mu = X.mean(axis=1, keepdims=True)
    return (X - mu) / X.std(axis=1, keepdims=True) * g + b


def layer_norm__whole_matrix_stats(X, g, b, eps=1e-5):
    return (X - X.mean()) / np.sqrt(X.var() + eps) * g + b


# 10 gelu(X)

def gelu__exact_erf(X):
    return 0.5 * X * (1.0 + np.vectorize(math.erf, otypes=[float])(X / math.sqrt(2.0)))


def gelu__square_term(X):
    return 0.5 * X * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (X + 0.044715 * X ** 2)))


def gelu__sqrt_2pi(X):
    return 0.5 * X * (1.0 + np.tanh(math.sqrt(2.0 * math.pi) * (X + 0.044715 * X ** 3)))


def gelu__no_half(X):
    return X * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (X + 0.044715 * X ** 3)))


def gelu__relu(X):
    return np.maximum(X, 0.0)


def gelu__assumes_2d(X):
    Y = np.zeros(X.shape)
    for i in range(X.shape[0]):
        for j in range(X.shape[1]):
            x = X[i, j]
            Y[i, j] = 0.5 * x * (1.0 + math.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))
    return Y


def gelu__sigmoid_approximation(X):
    return X / (1.0 + np.exp(-1.702 * X))


# 10 transformer_block(X, p, n_heads, causal=True)

def transformer_block__post_ln(X, p, n_heads, causal=True):
    Y = _layer_norm(X + _mha(X, p["Wq"], p["Wk"], p["Wv"], p["Wo"], n_heads, causal), p["ln1_g"], p["ln1_b"])
    return _layer_norm(Y + _mlp(Y, p), p["ln2_g"], p["ln2_b"])


def transformer_block__no_attention_residual(X, p, n_heads, causal=True):
    Y = _mha(_layer_norm(X, p["ln1_g"], p["ln1_b"]), p["Wq"], p["Wk"], p["Wv"], p["Wo"], n_heads, causal)
    return Y + _mlp(_layer_norm(Y, p["ln2_g"], p["ln2_b"]), p)


def transformer_block__residual_from_normed(X, p, n_heads, causal=True):
    H = _layer_norm(X, p["ln1_g"], p["ln1_b"])
    Y = H + _mha(H, p["Wq"], p["Wk"], p["Wv"], p["Wo"], n_heads, causal)
    return Y + _mlp(_layer_norm(Y, p["ln2_g"], p["ln2_b"]), p)


def transformer_block__ln1_params_twice(X, p, n_heads, causal=True):
    Y = X + _mha(_layer_norm(X, p["ln1_g"], p["ln1_b"]), p["Wq"], p["Wk"], p["Wv"], p["Wo"], n_heads, causal)
    return Y + _mlp(_layer_norm(Y, p["ln1_g"], p["ln1_b"]), p)


def transformer_block__no_second_norm(X, p, n_heads, causal=True):
    Y = X + _mha(_layer_norm(X, p["ln1_g"], p["ln1_b"]), p["Wq"], p["Wk"], p["Wv"], p["Wo"], n_heads, causal)
    return Y + _mlp(Y, p)


def transformer_block__gelu_after_W2(X, p, n_heads, causal=True):
    Y = X + _mha(_layer_norm(X, p["ln1_g"], p["ln1_b"]), p["Wq"], p["Wk"], p["Wv"], p["Wo"], n_heads, causal)
    H = _layer_norm(Y, p["ln2_g"], p["ln2_b"])
    return Y + _gelu((H @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"])


def transformer_block__always_causal(X, p, n_heads, causal=True):
    Y = X + _mha(_layer_norm(X, p["ln1_g"], p["ln1_b"]), p["Wq"], p["Wk"], p["Wv"], p["Wo"], n_heads, True)
    return Y + _mlp(_layer_norm(Y, p["ln2_g"], p["ln2_b"]), p)


def transformer_block__second_norm_of_X(X, p, n_heads, causal=True):
    Y = X + _mha(_layer_norm(X, p["ln1_g"], p["ln1_b"]), p["Wq"], p["Wk"], p["Wv"], p["Wo"], n_heads, causal)
    return Y + _mlp(_layer_norm(X, p["ln2_g"], p["ln2_b"]), p)


def transformer_block__forgets_b1(X, p, n_heads, causal=True):
    Y = X + _mha(_layer_norm(X, p["ln1_g"], p["ln1_b"]), p["Wq"], p["Wk"], p["Wv"], p["Wo"], n_heads, causal)
    H = _layer_norm(Y, p["ln2_g"], p["ln2_b"])
    return Y + _gelu(H @ p["W1"]) @ p["W2"] + p["b2"]


# 11 next_token_logits(H, W_vocab)

def next_token_logits__first_row(H, W_vocab):
    return H[0] @ W_vocab


def next_token_logits__every_row(H, W_vocab):
    return H @ W_vocab


def next_token_logits__softmax(H, W_vocab):
    return _softmax(H[-1] @ W_vocab)


def next_token_logits__mean_of_rows(H, W_vocab):
    return H.mean(axis=0) @ W_vocab


def next_token_logits__keeps_row_matrix(H, W_vocab):
    return H[-1:] @ W_vocab


# 11 cross_entropy(logits, targets)

def cross_entropy__sums_rows(logits, targets):
    n = logits.shape[0]
    logp = _log_softmax_rows(logits)
    loss = -logp[np.arange(n), targets].sum()
    dlogits = np.exp(logp)
    dlogits[np.arange(n), targets] -= 1.0
    return loss, dlogits


def cross_entropy__gradient_not_averaged(logits, targets):
    n = logits.shape[0]
    logp = _log_softmax_rows(logits)
    loss = -logp[np.arange(n), targets].mean()
    dlogits = np.exp(logp)
    dlogits[np.arange(n), targets] -= 1.0
    return loss, dlogits


def cross_entropy__log_of_probabilities(logits, targets):
    n = logits.shape[0]
    P = _softmax(logits, axis=1)
    loss = -np.log(P[np.arange(n), targets]).mean()
    dlogits = P.copy()
    dlogits[np.arange(n), targets] -= 1.0
    return loss, dlogits / n


def cross_entropy__no_max_subtraction(logits, targets):
    n = logits.shape[0]
    logp = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
    loss = -logp[np.arange(n), targets].mean()
    dlogits = np.exp(logp)
    dlogits[np.arange(n), targets] -= 1.0
    return loss, dlogits / n


def cross_entropy__gradient_sign(logits, targets):
    n = logits.shape[0]
    logp = _log_softmax_rows(logits)
    loss = -logp[np.arange(n), targets].mean()
    onehot = np.zeros(logits.shape)
    onehot[np.arange(n), targets] = 1.0
    return loss, (onehot - np.exp(logp)) / n


def cross_entropy__loss_sign(logits, targets):
    n = logits.shape[0]
    logp = _log_softmax_rows(logits)
    loss = logp[np.arange(n), targets].mean()
    dlogits = np.exp(logp)
    dlogits[np.arange(n), targets] -= 1.0
    return loss, dlogits / n


def cross_entropy__loss_indexes_every_row(logits, targets):
    n = logits.shape[0]
    logp = _log_softmax_rows(logits)
    loss = -logp[:, targets].mean()
    dlogits = np.exp(logp)
    dlogits[np.arange(n), targets] -= 1.0
    return loss, dlogits / n


def cross_entropy__gradient_indexes_every_row(logits, targets):
    n = logits.shape[0]
    logp = _log_softmax_rows(logits)
    loss = -logp[np.arange(n), targets].mean()
    dlogits = np.exp(logp)
    dlogits[:, targets] -= 1.0
    return loss, dlogits / n


def cross_entropy__gradient_no_one_hot(logits, targets):
    n = logits.shape[0]
    logp = _log_softmax_rows(logits)
    loss = -logp[np.arange(n), targets].mean()
    return loss, np.exp(logp) / n


def cross_entropy__mean_over_vocab(logits, targets):
    n = logits.shape[0]
    logp = _log_softmax_rows(logits)
    onehot = np.zeros(logits.shape)
    onehot[np.arange(n), targets] = 1.0
    loss = -np.mean(onehot * logp)
    return loss, (np.exp(logp) - onehot) / n


# 11 softmax_backward(A, dA)

def softmax_backward__no_sum_term(A, dA):
    return A * dA


def softmax_backward__sum_term_sign(A, dA):
    return A * (dA + np.sum(A * dA, axis=-1, keepdims=True))


def softmax_backward__sum_no_keepdims(A, dA):
    return A * (dA - np.sum(A * dA, axis=-1))


def softmax_backward__sum_over_axis0(A, dA):
    return A * (dA - np.sum(A * dA, axis=0, keepdims=True))


def softmax_backward__unweighted_sum(A, dA):
    return A * (dA - np.sum(dA, axis=-1, keepdims=True))


def softmax_backward__rows_of_2d_only(A, dA):
    dS = np.zeros(A.shape)
    for i in range(A.shape[0]):
        J = np.diag(A[i]) - np.outer(A[i], A[i])
        dS[i] = J @ dA[i]
    return dS


def softmax_backward__jacobian_diagonal_only(A, dA):
    return dA * A * (1.0 - A)


# 11 attention_backward(Q, K, V, dO, causal=True, scale=True)

def attention_backward__forgets_scale(Q, K, V, dO, causal=True, scale=True):
    A = _attention_weights(Q, K, causal, scale)
    dS = _softmax_backward(A, dO @ V.T)  # the scale s never multiplies dS
    return dS @ K, dS.T @ Q, A.T @ dO


def attention_backward__dV_untransposed(Q, K, V, dO, causal=True, scale=True):
    s = 1.0 / math.sqrt(Q.shape[1]) if scale else 1.0
    A = _attention_weights(Q, K, causal, scale)
    dS = _softmax_backward(A, dO @ V.T) * s
    return dS @ K, dS.T @ Q, A @ dO


def attention_backward__dK_untransposed(Q, K, V, dO, causal=True, scale=True):
    s = 1.0 / math.sqrt(Q.shape[1]) if scale else 1.0
    A = _attention_weights(Q, K, causal, scale)
    dS = _softmax_backward(A, dO @ V.T) * s
    return dS @ K, dS @ Q, A.T @ dO


def attention_backward__skips_softmax_backward(Q, K, V, dO, causal=True, scale=True):
    s = 1.0 / math.sqrt(Q.shape[1]) if scale else 1.0
    A = _attention_weights(Q, K, causal, scale)
    dS = (dO @ V.T) * s
    return dS @ K, dS.T @ Q, A.T @ dO


def attention_backward__mask_top_left(Q, K, V, dO, causal=True, scale=True):
    s = 1.0 / math.sqrt(Q.shape[1]) if scale else 1.0
    S = Q @ K.T * s
    if causal:
        S = S + np.triu(np.full(S.shape, -np.inf), k=1)
    A = _softmax(S, axis=-1)
    dS = _softmax_backward(A, dO @ V.T) * s
    return dS @ K, dS.T @ Q, A.T @ dO


def attention_backward__always_scales(Q, K, V, dO, causal=True, scale=True):
    s = 1.0 / math.sqrt(Q.shape[1])
    A = _attention_weights(Q, K, causal, True)
    dS = _softmax_backward(A, dO @ V.T) * s
    return dS @ K, dS.T @ Q, A.T @ dO


def attention_backward__never_masks(Q, K, V, dO, causal=True, scale=True):
    s = 1.0 / math.sqrt(Q.shape[1]) if scale else 1.0
    A = _attention_weights(Q, K, False, scale)
    dS = _softmax_backward(A, dO @ V.T) * s
    return dS @ K, dS.T @ Q, A.T @ dO


def attention_backward__scale_twice(Q, K, V, dO, causal=True, scale=True):
    s = 1.0 / math.sqrt(Q.shape[1]) if scale else 1.0
    A = _attention_weights(Q, K, causal, scale)
    dS = _softmax_backward(A, dO @ V.T) * s
    return dS @ K * s, dS.T @ Q * s, A.T @ dO


# 11 layer_norm_backward(X, g, dY, eps=1e-5)

def layer_norm_backward__no_mean_term(X, g, dY, eps=1e-5):
    Xhat, rstd = _ln_stats(X, eps)
    dXhat = dY * g
    dX = (dXhat - Xhat * (dXhat * Xhat).mean(axis=1, keepdims=True)) * rstd
    return dX, (dY * Xhat).sum(axis=0), dY.sum(axis=0)


def layer_norm_backward__no_variance_term(X, g, dY, eps=1e-5):
    Xhat, rstd = _ln_stats(X, eps)
    dXhat = dY * g
    dX = (dXhat - dXhat.mean(axis=1, keepdims=True)) * rstd
    return dX, (dY * Xhat).sum(axis=0), dY.sum(axis=0)


def layer_norm_backward__constant_statistics(X, g, dY, eps=1e-5):
    Xhat, rstd = _ln_stats(X, eps)
    return dY * g * rstd, (dY * Xhat).sum(axis=0), dY.sum(axis=0)


def layer_norm_backward__forgets_gain(X, g, dY, eps=1e-5):
    Xhat, rstd = _ln_stats(X, eps)
    dXhat = dY
    dX = (dXhat - dXhat.mean(axis=1, keepdims=True) - Xhat * (dXhat * Xhat).mean(axis=1, keepdims=True)) * rstd
    return dX, (dY * Xhat).sum(axis=0), dY.sum(axis=0)


def layer_norm_backward__dg_from_raw_X(X, g, dY, eps=1e-5):
    dX, _, db = _layer_norm_backward(X, g, dY, eps)
    return dX, (dY * X).sum(axis=0), db


def layer_norm_backward__dg_db_swapped(X, g, dY, eps=1e-5):
    dX, dg, db = _layer_norm_backward(X, g, dY, eps)
    return dX, db, dg


def layer_norm_backward__unbiased_variance(X, g, dY, eps=1e-5):
    mu = X.mean(axis=1, keepdims=True)
    rstd = 1.0 / np.sqrt(X.var(axis=1, ddof=1, keepdims=True) + eps)
    Xhat = (X - mu) * rstd
    dXhat = dY * g
    dX = (dXhat - dXhat.mean(axis=1, keepdims=True) - Xhat * (dXhat * Xhat).mean(axis=1, keepdims=True)) * rstd
    return dX, (dY * Xhat).sum(axis=0), dY.sum(axis=0)


def layer_norm_backward__param_grads_per_row(X, g, dY, eps=1e-5):
    dX, _, _ = _layer_norm_backward(X, g, dY, eps)
    Xhat, _ = _ln_stats(X, eps)
    return dX, (dY * Xhat).sum(axis=1), dY.sum(axis=1)


# 12 most_attended(A, tokens)

def most_attended__per_column(A, tokens):
    return [tokens[j] for j in np.argmax(A, axis=0)]


def most_attended__argmin(A, tokens):
    return [tokens[j] for j in np.argmin(A, axis=1)]


def most_attended__ties_to_last(A, tokens):
    last = A.shape[1] - 1 - np.argmax(A[:, ::-1], axis=1)
    return [tokens[j] for j in last]


def most_attended__indices(A, tokens):
    return list(np.argmax(A, axis=1))


def most_attended__numpy_array(A, tokens):
    return np.array(tokens)[np.argmax(A, axis=1)]


# 12 attention_entropy(A)

def attention_entropy__log2(A):
    with np.errstate(divide="ignore", invalid="ignore"):
        return -np.sum(np.where(A > 0, A * np.log2(A), 0.0), axis=1)


def attention_entropy__zero_gives_nan(A):
    return -np.sum(A * np.log(A), axis=1)


def attention_entropy__no_minus_sign(A):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.sum(np.where(A > 0, A * np.log(A), 0.0), axis=1)


def attention_entropy__over_queries(A):
    with np.errstate(divide="ignore", invalid="ignore"):
        return -np.sum(np.where(A > 0, A * np.log(A), 0.0), axis=0)


def attention_entropy__mean_not_sum(A):
    with np.errstate(divide="ignore", invalid="ignore"):
        return -np.mean(np.where(A > 0, A * np.log(A), 0.0), axis=1)


# 13 padding_mask(n_q, n_valid, n_k)

def padding_mask__hides_last_real_token(n_q, n_valid, n_k):
    M = np.zeros((n_q, n_k))
    M[:, n_valid - 1:] = -np.inf
    return M


def padding_mask__hides_rows(n_q, n_valid, n_k):
    M = np.zeros((n_q, n_k))
    M[n_valid:, :] = -np.inf
    return M


def padding_mask__boolean(n_q, n_valid, n_k):
    return np.tile(np.arange(n_k) >= n_valid, (n_q, 1))


def padding_mask__square(n_q, n_valid, n_k):
    M = np.zeros((n_k, n_k))
    M[:, n_valid:] = -np.inf
    return M


def padding_mask__adds_causal(n_q, n_valid, n_k):
    M = np.zeros((n_q, n_k))
    M[:, n_valid:] = -np.inf
    return np.where(_future(n_q, n_k), -np.inf, M)


def padding_mask__large_negative(n_q, n_valid, n_k):
    M = np.zeros((n_q, n_k))
    M[:, n_valid:] = -1e9
    return M


# 13 cross_attention(X, Z, Wq, Wk, Wv)

def cross_attention__causal_mask(X, Z, Wq, Wk, Wv):
    S = _scores(X @ Wq, Z @ Wk, causal=False)
    S = S + np.triu(np.full(S.shape, -np.inf), k=1)
    return _softmax(S, axis=-1) @ (Z @ Wv)


def cross_attention__keys_from_X(X, Z, Wq, Wk, Wv):
    return _attention(X @ Wq, X @ Wk, X @ Wv, causal=False)


def cross_attention__roles_swapped(X, Z, Wq, Wk, Wv):
    return _attention(Z @ Wq, X @ Wk, X @ Wv, causal=False)


def cross_attention__scale_d_model(X, Z, Wq, Wk, Wv):
    S = (X @ Wq) @ (Z @ Wk).T / np.sqrt(X.shape[1])
    return _softmax(S, axis=-1) @ (Z @ Wv)


def cross_attention__softmax_over_queries(X, Z, Wq, Wk, Wv):
    return _softmax(_scores(X @ Wq, Z @ Wk, causal=False), axis=0) @ (Z @ Wv)


def cross_attention__values_from_X(X, Z, Wq, Wk, Wv):
    return _attention_weights(X @ Wq, Z @ Wk, causal=False) @ (X @ Wv)


# 14 attend_step(q, K_cache, V_cache)

def attend_step__no_max_subtraction(q, K_cache, V_cache):
    w = np.exp(K_cache @ q / math.sqrt(q.shape[0]))
    return (w / w.sum()) @ V_cache


def attend_step__scale_by_d(q, K_cache, V_cache):
    s = K_cache @ q / q.shape[0]
    w = np.exp(s - s.max())
    return (w / w.sum()) @ V_cache


def attend_step__forgets_scale(q, K_cache, V_cache):
    s = K_cache @ q
    w = np.exp(s - s.max())
    return (w / w.sum()) @ V_cache


def attend_step__leaves_out_own_row(q, K_cache, V_cache):
    return _attend_step(q, K_cache[:-1], V_cache[:-1])


def attend_step__square_causal_mask(q, K_cache, V_cache):
    S = q[None, :] @ K_cache.T / math.sqrt(q.shape[0])  # (1, t)
    S = S + np.triu(np.full(S.shape, -np.inf), k=1)  # the query taken as position 0
    return (_softmax(S, axis=-1) @ V_cache)[0]


def attend_step__scale_by_d_v(q, K_cache, V_cache):
    s = K_cache @ q / math.sqrt(V_cache.shape[1])
    w = np.exp(s - s.max())
    return (w / w.sum()) @ V_cache


# 14 cache_step(q, k, v, K_cache, V_cache)

def cache_step__prepends(q, k, v, K_cache, V_cache):
    K_new = np.vstack([k[None, :], K_cache])
    V_new = np.vstack([v[None, :], V_cache])
    return _attend_step(q, K_new, V_new), K_new, V_new


def cache_step__attends_before_append(q, k, v, K_cache, V_cache):
    o = _attend_step(q, K_cache, V_cache)
    return o, np.vstack([K_cache, k[None, :]]), np.vstack([V_cache, v[None, :]])


def cache_step__forgets_scale(q, k, v, K_cache, V_cache):
    K_new = np.vstack([K_cache, k[None, :]])
    V_new = np.vstack([V_cache, v[None, :]])
    s = K_new @ q
    w = np.exp(s - s.max())
    return (w / w.sum()) @ V_new, K_new, V_new


def cache_step__returns_only_o(q, k, v, K_cache, V_cache):
    K_new = np.vstack([K_cache, k[None, :]])
    V_new = np.vstack([V_cache, v[None, :]])
    return _attend_step(q, K_new, V_new)


def cache_step__returns_old_caches(q, k, v, K_cache, V_cache):
    K_new = np.vstack([K_cache, k[None, :]])
    V_new = np.vstack([V_cache, v[None, :]])
    return _attend_step(q, K_new, V_new), K_cache, V_cache


def cache_step__k_and_v_swapped(q, k, v, K_cache, V_cache):
    K_new = np.vstack([K_cache, v[None, :]])
    V_new = np.vstack([V_cache, k[None, :]])
    return _attend_step(q, K_new, V_new), K_new, V_new


def cache_step__caches_in_wrong_order(q, k, v, K_cache, V_cache):
    K_new = np.vstack([K_cache, k[None, :]])
    V_new = np.vstack([V_cache, v[None, :]])
    return _attend_step(q, K_new, V_new), V_new, K_new


def cache_step__append_flattens(q, k, v, K_cache, V_cache):
    K_new = np.append(K_cache, k)
    V_new = np.append(V_cache, v)
    return _attend_step(q, K_new, V_new), K_new, V_new


# 14 sample_next(logits, temperature, u)

def sample_next__multiplies_temperature(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    z = (logits - np.max(logits)) * temperature
    e = np.exp(z)
    cdf = np.cumsum(e / e.sum())
    cdf = cdf / cdf[-1]
    return int(np.searchsorted(cdf, u, side="right"))


def sample_next__numpy_integer(logits, temperature, u):
    if temperature == 0:
        return np.argmax(logits)
    z = (logits - np.max(logits)) / temperature
    e = np.exp(z)
    cdf = np.cumsum(e / e.sum())
    cdf = cdf / cdf[-1]
    return np.searchsorted(cdf, u, side="right")


def sample_next__at_least_u(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    z = (logits - np.max(logits)) / temperature
    e = np.exp(z)
    cdf = np.cumsum(e / e.sum())
    cdf = cdf / cdf[-1]
    return int(np.searchsorted(cdf, u, side="left"))


def sample_next__cdf_not_rescaled(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    z = (logits - np.max(logits)) / temperature
    e = np.exp(z)
    cdf = np.cumsum(e / e.sum())
    return int(np.searchsorted(cdf, u, side="right"))


def sample_next__no_greedy_branch(logits, temperature, u):
    z = (logits - np.max(logits)) / temperature
    e = np.exp(z)
    cdf = np.cumsum(e / e.sum())
    cdf = cdf / cdf[-1]
    return int(np.searchsorted(cdf, u, side="right"))


def sample_next__no_max_subtraction(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    e = np.exp(logits / temperature)
    cdf = np.cumsum(e / e.sum())
    cdf = cdf / cdf[-1]
    return int(np.searchsorted(cdf, u, side="right"))


def sample_next__own_probability(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    z = (logits - np.max(logits)) / temperature
    e = np.exp(z)
    p = e / e.sum()
    above = np.flatnonzero(p > u)
    return int(above[0]) if len(above) else int(np.argmax(p))


def sample_next__temperature_after_softmax(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    z = logits - np.max(logits)
    e = np.exp(z)
    p = e / e.sum() / temperature
    cdf = np.cumsum(p)
    cdf = cdf / cdf[-1]
    return int(np.searchsorted(cdf, u, side="right"))


def sample_next__greedy_ties_to_last(logits, temperature, u):
    if temperature == 0:
        return int(np.flatnonzero(logits == np.max(logits))[-1])
    return _sample_next(logits, temperature, u)


# 14 generate(p, prompt, n_new, cache_step)

def _generate_right(p, prompt, n_new, cache_step):
    d = p["tok_emb"].shape[1]
    K, V = np.zeros((0, d)), np.zeros((0, d))
    seq = [int(t) for t in prompt]
    logits = None
    for i, t in enumerate(seq):
        x = p["tok_emb"][t] + p["pos_emb"][i]
        o, K, V = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K, V)
        logits = (x + o) @ p["W_out"]
    for j in range(n_new):
        seq.append(int(np.argmax(logits)))
        if j == n_new - 1:
            break
        x = p["tok_emb"][seq[-1]] + p["pos_emb"][len(seq) - 1]
        o, K, V = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K, V)
        logits = (x + o) @ p["W_out"]
    return np.array(seq, dtype=int)


def generate__positions_restart(p, prompt, n_new, cache_step):
    d = p["tok_emb"].shape[1]
    K, V = np.zeros((0, d)), np.zeros((0, d))
    seq = [int(t) for t in prompt]
    logits = None
    for i, t in enumerate(seq):
        x = p["tok_emb"][t] + p["pos_emb"][i]
        o, K, V = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K, V)
        logits = (x + o) @ p["W_out"]
    for j in range(n_new):
        seq.append(int(np.argmax(logits)))
        if j == n_new - 1:
            break
        x = p["tok_emb"][seq[-1]] + p["pos_emb"][j]  # position j of the new tokens, not len(seq) - 1
        o, K, V = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K, V)
        logits = (x + o) @ p["W_out"]
    return np.array(seq, dtype=int)


def generate__logits_from_o_only(p, prompt, n_new, cache_step):
    d = p["tok_emb"].shape[1]
    K, V = np.zeros((0, d)), np.zeros((0, d))
    seq = [int(t) for t in prompt]
    logits = None
    for i, t in enumerate(seq):
        x = p["tok_emb"][t] + p["pos_emb"][i]
        o, K, V = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K, V)
        logits = o @ p["W_out"]
    for j in range(n_new):
        seq.append(int(np.argmax(logits)))
        if j == n_new - 1:
            break
        x = p["tok_emb"][seq[-1]] + p["pos_emb"][len(seq) - 1]
        o, K, V = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K, V)
        logits = o @ p["W_out"]
    return np.array(seq, dtype=int)


def generate__logits_from_x_only(p, prompt, n_new, cache_step):
    d = p["tok_emb"].shape[1]
    K, V = np.zeros((0, d)), np.zeros((0, d))
    seq = [int(t) for t in prompt]
    logits = None
    for i, t in enumerate(seq):
        x = p["tok_emb"][t] + p["pos_emb"][i]
        o, K, V = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K, V)
        logits = x @ p["W_out"]
    for j in range(n_new):
        seq.append(int(np.argmax(logits)))
        if j == n_new - 1:
            break
        x = p["tok_emb"][seq[-1]] + p["pos_emb"][len(seq) - 1]
        o, K, V = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K, V)
        logits = x @ p["W_out"]
    return np.array(seq, dtype=int)


def generate__own_cache_step(p, prompt, n_new, cache_step):
    return _generate_right(p, prompt, n_new, _cache_step)  # its own step, not the one it is given


def generate__feeds_last_new_token(p, prompt, n_new, cache_step):
    d = p["tok_emb"].shape[1]
    K, V = np.zeros((0, d)), np.zeros((0, d))
    seq = [int(t) for t in prompt]
    logits = None
    for i, t in enumerate(seq):
        x = p["tok_emb"][t] + p["pos_emb"][i]
        o, K, V = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K, V)
        logits = (x + o) @ p["W_out"]
    for j in range(n_new):
        seq.append(int(np.argmax(logits)))
        x = p["tok_emb"][seq[-1]] + p["pos_emb"][len(seq) - 1]  # also for the last new token
        o, K, V = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K, V)
        logits = (x + o) @ p["W_out"]
    return np.array(seq, dtype=int)


def generate__refeeds_everything(p, prompt, n_new, cache_step):
    d = p["tok_emb"].shape[1]
    seq = [int(t) for t in prompt]
    for j in range(n_new):
        K, V = np.zeros((0, d)), np.zeros((0, d))  # a fresh cache for every new token
        for i, t in enumerate(seq):
            x = p["tok_emb"][t] + p["pos_emb"][i]
            o, K, V = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K, V)
        seq.append(int(np.argmax((x + o) @ p["W_out"])))
    return np.array(seq, dtype=int)


def generate__only_new_tokens(p, prompt, n_new, cache_step):
    return _generate_right(p, prompt, n_new, cache_step)[len(prompt):]


def generate__one_token_short(p, prompt, n_new, cache_step):
    d = p["tok_emb"].shape[1]
    K, V = np.zeros((0, d)), np.zeros((0, d))
    seq = [int(t) for t in prompt]
    logits = None
    for i, t in enumerate(seq):
        x = p["tok_emb"][t] + p["pos_emb"][i]
        o, K, V = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K, V)
        logits = (x + o) @ p["W_out"]
    for j in range(n_new - 1):
        seq.append(int(np.argmax(logits)))
        x = p["tok_emb"][seq[-1]] + p["pos_emb"][len(seq) - 1]
        o, K, V = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K, V)
        logits = (x + o) @ p["W_out"]
    return np.array(seq, dtype=int)


def generate__float_output(p, prompt, n_new, cache_step):
    T = len(prompt)
    out = np.zeros(T + n_new)
    out[:T] = prompt
    d = p["tok_emb"].shape[1]
    K, V = np.zeros((0, d)), np.zeros((0, d))
    logits = None
    for i in range(T + n_new - 1):
        t = int(out[i])
        x = p["tok_emb"][t] + p["pos_emb"][i]
        o, K, V = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K, V)
        logits = (x + o) @ p["W_out"]
        if i >= T - 1:
            out[i + 1] = np.argmax(logits)
    return out


# 14 kv_cache_bytes(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2)

def kv_cache_bytes__keys_only(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return n_layers * n_heads * d_head * seq_len * batch * bytes_per_value


def kv_cache_bytes__ignores_batch(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return 2 * n_layers * n_heads * d_head * seq_len * bytes_per_value


def kv_cache_bytes__counts_values(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return 2 * n_layers * n_heads * d_head * seq_len * batch


def kv_cache_bytes__numpy_prod(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return 2 * np.prod([n_layers, n_heads, d_head, seq_len, batch, bytes_per_value])


def kv_cache_bytes__hard_coded_two_bytes(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return 2 * n_layers * n_heads * d_head * seq_len * batch * 2


# 14 max_cached_tokens(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2)

def max_cached_tokens__float_division(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    return int(memory_bytes / _kv_per_token(n_layers, n_heads, d_head, batch, bytes_per_value))


def max_cached_tokens__rounds_up(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    per_token = _kv_per_token(n_layers, n_heads, d_head, batch, bytes_per_value)
    return -(-memory_bytes // per_token)


def max_cached_tokens__first_that_overflows(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    return memory_bytes // _kv_per_token(n_layers, n_heads, d_head, batch, bytes_per_value) + 1


def max_cached_tokens__forgets_factor_2(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    return memory_bytes // (n_layers * n_heads * d_head * batch * bytes_per_value)


def max_cached_tokens__ignores_batch(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    return memory_bytes // _kv_per_token(n_layers, n_heads, d_head, 1, bytes_per_value)


def max_cached_tokens__numpy_integers(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    per_token = np.prod([2, n_layers, n_heads, d_head, batch, bytes_per_value])
    return np.floor_divide(np.int64(memory_bytes), per_token)


# ============================================================================
# right answers written differently (for ACCEPTABLE)

def project__einsum(x, W):
    return np.einsum("i,ij->j", x, W)


def project__loop_over_inputs(x, W):
    out = np.zeros(W.shape[1])
    for i in range(len(x)):
        out += x[i] * W[i]
    return out


def compose__through_identity(W1, W2):
    return (np.eye(W1.shape[0]) @ W1) @ W2


def compose__einsum(W1, W2):
    return np.einsum("ik,kj->ij", W1, W2)


def project_rows__stacked_rows(X, W):
    return np.stack([x @ W for x in X])


def project_rows__einsum(X, W):
    return np.einsum("ni,io->no", X, W)


def matmul_cost__math_prod(n, d_in, d_out):
    return math.prod((int(n), int(d_in), int(d_out)))


def matmul_cost__entries_times_length(n, d_in, d_out):
    entries = n * d_out
    return entries * d_in


def values__row_by_row(tokens, table, Wv):
    return np.array([table[w] @ Wv for w in tokens])


def values__one_hot_lookup(tokens, table, Wv):
    words = list(table)
    E = np.stack([table[w] for w in words])
    ids = [words.index(w) for w in tokens]
    X = np.eye(len(words))[ids] @ E
    return X @ Wv


def one_hot__put_along_axis(ids, vocab_size):
    out = np.zeros((len(ids), vocab_size))
    np.put_along_axis(out, np.asarray(ids).reshape(-1, 1), 1.0, axis=1)
    return out


def one_hot__broadcast_compare(ids, vocab_size):
    return (ids[:, None] == np.arange(vocab_size)[None, :]).astype(float)


def uniform_causal_weights__loop(n):
    A = np.zeros((n, n))
    for i in range(n):
        A[i, :i + 1] = 1.0 / (i + 1)
    return A


def uniform_causal_weights__row_sums(n):
    L = np.tril(np.ones((n, n)))
    return L / L.sum(axis=1, keepdims=True)


def causal_average__weights_matrix(V):
    n = V.shape[0]
    A = np.tril(np.ones((n, n))) / np.arange(1, n + 1)[:, None]
    return A @ V


def causal_average__loop(V):
    return np.stack([V[:i + 1].mean(axis=0) for i in range(V.shape[0])])


def similarity__einsum(Q, K):
    return np.einsum("id,jd->ij", Q, K)


def similarity__loops(Q, K):
    S = np.zeros((Q.shape[0], K.shape[0]))
    for i in range(Q.shape[0]):
        for j in range(K.shape[0]):
            S[i, j] = Q[i] @ K[j]
    return S


def learned_scores__bilinear_form(X, Wq, Wk):
    return X @ (Wq @ Wk.T) @ X.T


def learned_scores__einsum(X, Wq, Wk):
    return np.einsum("nd,md->nm", np.einsum("ni,id->nd", X, Wq), np.einsum("ni,id->nd", X, Wk))


def causal_mask__where(n):
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    return np.where(j > i, -np.inf, 0.0)


def causal_mask__loop(n):
    M = np.zeros((n, n))
    for i in range(n):
        M[i, i + 1:] = -np.inf
    return M


def softmax__log_sum_exp(S, axis=-1):
    m = np.max(S, axis=axis, keepdims=True)
    return np.exp(S - m - np.log(np.sum(np.exp(S - m), axis=axis, keepdims=True)))


def softmax__moveaxis_rows(S, axis=-1):
    T = np.moveaxis(S, axis, -1)
    out = np.empty(T.shape)
    for idx in np.ndindex(*T.shape[:-1]):
        row = T[idx]
        e = np.exp(row - row.max())
        out[idx] = e / e.sum()
    return np.moveaxis(out, -1, axis)


def score_scale__negative_half_power(d):
    return float(d) ** -0.5


def score_scale__sqrt_of_reciprocal(d):
    return math.sqrt(1.0 / d)


def attention_weights__row_loop(Q, K, causal=True, scale=True):
    n_q, n_k = Q.shape[0], K.shape[0]
    A = np.zeros((n_q, n_k))
    for i in range(n_q):
        last = n_k - n_q + i if causal else n_k - 1
        s = K[:last + 1] @ Q[i]
        if scale:
            s = s / math.sqrt(Q.shape[1])
        e = np.exp(s - s.max())
        A[i, :last + 1] = e / e.sum()
    return A


def attention_weights__scale_after_mask(Q, K, causal=True, scale=True):
    S = Q @ K.T
    if causal:
        S = np.where(_future(*S.shape), -np.inf, S)
    if scale:
        S = S * (1.0 / math.sqrt(Q.shape[1]))
    return _softmax(S, axis=-1)


def attention__row_loop(Q, K, V, causal=True, scale=True):
    n_q, n_k = Q.shape[0], K.shape[0]
    O = np.zeros((n_q, V.shape[1]))
    for i in range(n_q):
        seen = n_k - n_q + i + 1 if causal else n_k
        s = K[:seen] @ Q[i] / (math.sqrt(Q.shape[1]) if scale else 1.0)
        w = np.exp(s - s.max())
        O[i] = w @ V[:seen] / w.sum()
    return O


def attention__einsum(Q, K, V, causal=True, scale=True):
    S = np.einsum("qd,kd->qk", Q, K)
    if scale:
        S = S / math.sqrt(Q.shape[1])
    if causal:
        S = np.where(_future(*S.shape), -np.inf, S)
    return np.einsum("qk,kv->qv", _softmax(S, axis=-1), V)


def self_attention__Wo_folded_into_V(X, Wq, Wk, Wv, Wo=None, causal=True):
    Wvo = Wv if Wo is None else Wv @ Wo
    return _attention_weights(X @ Wq, X @ Wk, causal) @ (X @ Wvo)


def self_attention__step_by_step(X, Wq, Wk, Wv, Wo=None, causal=True):
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    S = Q @ K.T * (1.0 / math.sqrt(Wq.shape[1]))
    if causal:
        S[np.triu_indices(len(X), k=1)] = -np.inf
    S -= S.max(axis=1, keepdims=True)
    A = np.exp(S)
    A /= A.sum(axis=1, keepdims=True)
    O = A @ V
    if Wo is not None:
        O = O @ Wo
    return O


def future_leak__moves_by_three(attn, X):
    base = np.asarray(attn(X))
    tol = 1e-9 * max(1.0, float(np.abs(base).max()))
    n = X.shape[0]
    worst = 0
    for j in range(1, n):
        moved = np.array(X, copy=True)
        moved[j] = moved[j] + 3.0
        change = np.abs(np.asarray(attn(moved)) - base).reshape(n, -1).max(axis=1)
        leaking = np.flatnonzero(change[:j] > tol)
        if len(leaking):
            worst = max(worst, j - int(leaking[0]))
    return worst


def future_leak__by_distance(attn, X):
    n = X.shape[0]
    base = attn(X)
    tol = _leak_tol(base)
    changes = []
    for j in range(n):
        moved = X.copy()
        moved[j] += 1.0
        changes.append(_row_change(attn(moved), base))
    for k in range(n - 1, 0, -1):  # the largest distance first
        if any(changes[i + k][i] > tol for i in range(n - k)):
            return k
    return 0


def tiled_attention__visits_every_tile(Q, K, V, causal=True, block=64):
    n_q, d = Q.shape
    n_k = K.shape[0]
    offset = n_k - n_q
    O = np.empty((n_q, V.shape[1]))
    for q0 in range(0, n_q, block):
        Qb = Q[q0:q0 + block] / math.sqrt(d)
        bq = Qb.shape[0]
        m = np.full(bq, -np.inf)
        l = np.zeros(bq)
        acc = np.zeros((bq, V.shape[1]))
        for k0 in range(0, n_k, block):  # every key tile, masked ones included
            S = Qb @ K[k0:k0 + block].T
            if causal:
                future = (k0 + np.arange(S.shape[1]))[None, :] > (offset + q0 + np.arange(bq))[:, None]
                S[future] = -np.inf
            m_new = np.maximum(m, S.max(axis=1))
            r = np.exp(m - m_new)
            P = np.exp(S - m_new[:, None])
            l = l * r + P.sum(axis=1)
            acc = acc * r[:, None] + P @ V[k0:k0 + block]
            m = m_new
        O[q0:q0 + bq] = acc / l[:, None]
    return O


def embed__one_hot_product(tokens, tok_emb, pos_emb):
    onehot = np.zeros((len(tokens), tok_emb.shape[0]))
    onehot[np.arange(len(tokens)), tokens] = 1.0
    return onehot @ tok_emb + pos_emb[:len(tokens)]


def embed__row_loop(tokens, tok_emb, pos_emb):
    return np.stack([tok_emb[t] + pos_emb[i] for i, t in enumerate(tokens)])


def sinusoidal_positions__exp_log(n, d):
    t = np.arange(n)[:, None]
    freq = np.exp(-np.arange(0, d, 2) * math.log(10000.0) / d)[None, :]
    P = np.zeros((n, d))
    P[:, 0::2] = np.sin(t * freq)
    P[:, 1::2] = np.cos(t * freq)
    return P


def sinusoidal_positions__loop_over_pairs(n, d):
    t = np.arange(n, dtype=float)
    P = np.empty((n, d))
    for i in range(d // 2):
        P[:, 2 * i] = np.sin(t / 10000 ** (2 * i / d))
        P[:, 2 * i + 1] = np.cos(t / 10000 ** (2 * i / d))
    return P


def split_heads__stacked_slices(M, n_heads):
    d_head = M.shape[1] // n_heads
    return np.stack([M[:, h * d_head:(h + 1) * d_head] for h in range(n_heads)])


def split_heads__np_split(M, n_heads):
    return np.array(np.split(M, n_heads, axis=1))


def multi_head_attention__sum_of_Wo_blocks(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    d_head = Wq.shape[1] // n_heads
    d_v = Wv.shape[1] // n_heads
    out = 0
    for h in range(n_heads):
        c, cv = slice(h * d_head, (h + 1) * d_head), slice(h * d_v, (h + 1) * d_v)
        O_h = _attention(X @ Wq[:, c], X @ Wk[:, c], X @ Wv[:, cv], causal)
        out = out + O_h @ Wo[cv]
    return out


def multi_head_attention__batched_einsum(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    n = X.shape[0]
    Q, K, V = (np.einsum("nhd->hnd", (X @ W).reshape(n, n_heads, -1)) for W in (Wq, Wk, Wv))
    S = np.einsum("hqd,hkd->hqk", Q, K) / math.sqrt(Q.shape[-1])
    if causal:
        S = np.where(_future(n, n)[None], -np.inf, S)
    O = np.einsum("hqk,hkd->hqd", _softmax(S, axis=-1), V)
    return np.einsum("hnd->nhd", O).reshape(n, -1) @ Wo


def layer_norm__np_var(X, g, b, eps=1e-5):
    return g * (X - X.mean(axis=1, keepdims=True)) / np.sqrt(X.var(axis=1, keepdims=True) + eps) + b


def layer_norm__sums_over_d(X, g, b, eps=1e-5):
    d = X.shape[1]
    Xc = X - X.sum(axis=1, keepdims=True) / d
    return Xc * (1.0 / np.sqrt((Xc * Xc).sum(axis=1, keepdims=True) / d + eps)) * g + b


def gelu__factored(X):
    return 0.5 * X * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * X * (1.0 + 0.044715 * X * X)))


def gelu__reordered(X):
    u = math.sqrt(2 / math.pi) * (X + 0.044715 * np.power(X, 3))
    return X * (0.5 + 0.5 * np.tanh(u))


def transformer_block__step_by_step(X, p, n_heads, causal=True):
    H1 = _layer_norm(X, p["ln1_g"], p["ln1_b"])
    Y = X.copy()
    Y += _mha(H1, p["Wq"], p["Wk"], p["Wv"], p["Wo"], n_heads, causal)
    H2 = _layer_norm(Y, p["ln2_g"], p["ln2_b"])
    hidden = _gelu(H2 @ p["W1"] + p["b1"])
    return Y + (hidden @ p["W2"] + p["b2"])


def transformer_block__rows_through_mlp(X, p, n_heads, causal=True):
    Y = X + _mha(_layer_norm(X, p["ln1_g"], p["ln1_b"]), p["Wq"], p["Wk"], p["Wv"], p["Wo"], n_heads, causal)
    H = _layer_norm(Y, p["ln2_g"], p["ln2_b"])
    return np.stack([Y[i] + _gelu(H[i] @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"] for i in range(len(Y))])


def next_token_logits__all_rows_then_last(H, W_vocab):
    return (H @ W_vocab)[-1]


def next_token_logits__einsum(H, W_vocab):
    return np.einsum("d,dv->v", H[H.shape[0] - 1], W_vocab)


def cross_entropy__log_sum_exp(logits, targets):
    n = logits.shape[0]
    m = logits.max(axis=1, keepdims=True)
    lse = m + np.log(np.exp(logits - m).sum(axis=1, keepdims=True))  # (n, 1)
    loss = float(np.mean(lse[:, 0] - logits[np.arange(n), targets]))
    grad = np.exp(logits - lse)
    grad[np.arange(n), targets] -= 1.0
    return loss, grad / n


def cross_entropy__one_hot_matrix(logits, targets):
    n, vocab = logits.shape
    Y = np.zeros((n, vocab))
    Y[np.arange(n), targets] = 1.0
    logp = _log_softmax_rows(logits)
    return -np.sum(Y * logp) / n, (np.exp(logp) - Y) / n


def softmax_backward__jacobian_per_row(A, dA):
    dS = np.empty(A.shape)
    for idx in np.ndindex(*A.shape[:-1]):
        a = A[idx]
        dS[idx] = (np.diag(a) - np.outer(a, a)) @ dA[idx]
    return dS


def softmax_backward__einsum(A, dA):
    inner = np.einsum("...i,...i->...", A, dA)[..., None]
    return A * dA - A * inner


def attention_backward__per_query(Q, K, V, dO, causal=True, scale=True):
    n_q, d = Q.shape
    n_k = K.shape[0]
    s = 1.0 / math.sqrt(d) if scale else 1.0
    dQ, dK, dV = np.zeros(Q.shape), np.zeros(K.shape), np.zeros(V.shape)
    for i in range(n_q):
        seen = n_k - n_q + i + 1 if causal else n_k
        z = K[:seen] @ Q[i] * s
        a = np.exp(z - z.max())
        a /= a.sum()
        da = V[:seen] @ dO[i]
        ds = a * (da - a @ da) * s
        dQ[i] = ds @ K[:seen]
        dK[:seen] += np.outer(ds, Q[i])
        dV[:seen] += np.outer(a, dO[i])
    return dQ, dK, dV


def layer_norm_backward__jacobian_per_row(X, g, dY, eps=1e-5):
    n, d = X.shape
    dX = np.zeros(X.shape)
    Xhat, rstd = _ln_stats(X, eps)
    for r in range(n):
        J = rstd[r, 0] * (np.eye(d) - 1.0 / d - np.outer(Xhat[r], Xhat[r]) / d)  # d Xhat / d X, symmetric
        dX[r] = J @ (dY[r] * g)
    return dX, np.einsum("nd,nd->d", dY, Xhat), np.einsum("nd->d", dY)


def layer_norm_backward__sum_form(X, g, dY, eps=1e-5):
    d = X.shape[1]
    mu = X.mean(axis=1, keepdims=True)
    rstd = 1.0 / np.sqrt(X.var(axis=1, keepdims=True) + eps)
    Xhat = (X - mu) * rstd
    dXhat = dY * g
    dX = rstd / d * (d * dXhat - dXhat.sum(axis=1, keepdims=True) - Xhat * (dXhat * Xhat).sum(axis=1, keepdims=True))
    return dX, (dY * Xhat).sum(axis=0), dY.sum(axis=0)


def most_attended__python_max(A, tokens):
    return [tokens[max(range(len(row)), key=lambda j: row[j])] for row in A.tolist()]


def most_attended__argmax_as_int(A, tokens):
    return [str(tokens[int(j)]) for j in np.argmax(A, axis=1)]


def attention_entropy__log_where_positive(A):
    logA = np.zeros(A.shape)
    np.log(A, out=logA, where=A > 0)
    return -(A * logA).sum(axis=1)


def attention_entropy__loops(A):
    return np.array([-sum(a * math.log(a) for a in row if a > 0) for row in A.tolist()])


def padding_mask__tiled_row(n_q, n_valid, n_k):
    row = np.where(np.arange(n_k) < n_valid, 0.0, -np.inf)
    return np.tile(row, (n_q, 1))


def padding_mask__fill(n_q, n_valid, n_k):
    M = np.full((n_q, n_k), -np.inf)
    M[:, :n_valid] = 0.0
    return M


def cross_attention__einsum(X, Z, Wq, Wk, Wv):
    Q, K, V = X @ Wq, Z @ Wk, Z @ Wv
    S = np.einsum("id,jd->ij", Q, K) / math.sqrt(Q.shape[1])
    return np.einsum("ij,jv->iv", _softmax(S, axis=1), V)


def cross_attention__unmasked_attention(X, Z, Wq, Wk, Wv):
    return _attention(X @ Wq, Z @ Wk, Z @ Wv, causal=False)


def attend_step__log_sum_exp(q, K_cache, V_cache):
    s = (K_cache @ q) * (1.0 / math.sqrt(len(q)))
    m = s.max()
    w = np.exp(s - m - np.log(np.exp(s - m).sum()))
    return w @ V_cache


def attend_step__einsum(q, K_cache, V_cache):
    s = np.einsum("td,d->t", K_cache, q) / math.sqrt(q.shape[0])
    w = np.exp(s - s.max())
    return np.einsum("t,tv->v", w, V_cache) / w.sum()


def cache_step__concatenate(q, k, v, K_cache, V_cache):
    K_new = np.concatenate([K_cache, k.reshape(1, -1)], axis=0)
    V_new = np.concatenate([V_cache, v.reshape(1, -1)], axis=0)
    return _attend_step(q, K_new, V_new), K_new, V_new


def cache_step__r_(q, k, v, K_cache, V_cache):
    K_new, V_new = np.r_[K_cache, [k]], np.r_[V_cache, [v]]
    return _attend_step(q, K_new, V_new), K_new, V_new


def sample_next__python_loop(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    z = (np.asarray(logits, dtype=np.float64) - np.max(logits)) / temperature
    e = np.exp(z)
    p = e / e.sum()
    running, cdf = 0.0, []
    for pi in p.tolist():
        running += pi
        cdf.append(running)
    for i, c in enumerate(cdf):
        if c / cdf[-1] > u:
            return i
    return len(cdf) - 1


def sample_next__first_true(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    z = (logits.astype(np.float64) - logits.max()) / temperature
    p = np.exp(z) / np.exp(z).sum()
    cdf = np.cumsum(p)
    cdf /= cdf[-1]
    return int(np.argmax(cdf > u))


def generate__while_loop(p, prompt, n_new, cache_step):
    d = p["tok_emb"].shape[1]
    K, V = np.empty((0, d)), np.empty((0, d))
    seq = [int(t) for t in prompt]
    T, pos = len(seq), 0
    while len(seq) < T + n_new or pos < T:
        x = p["tok_emb"][seq[pos]] + p["pos_emb"][pos]
        o, K, V = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K, V)
        pos += 1
        if pos == len(seq) and len(seq) < T + n_new:  # every token so far fed: pick the next one
            seq.append(int(np.argmax((x + o) @ p["W_out"])))
    return np.array(seq, dtype=np.int64)


def kv_cache_bytes__math_prod(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return math.prod((2, n_layers, n_heads, d_head, seq_len, batch, bytes_per_value))


def kv_cache_bytes__per_token_times_tokens(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    per_token = 2 * n_layers * n_heads * d_head * bytes_per_value  # one K and one V row per layer and head
    return int(per_token * seq_len * batch)


def max_cached_tokens__binary_search(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    def fits(t):
        return 2 * n_layers * n_heads * d_head * t * batch * bytes_per_value <= memory_bytes
    lo, hi = 0, 1
    while fits(hi):
        hi *= 2
    while hi - lo > 1:  # fits(lo), not fits(hi)
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if fits(mid) else (lo, mid)
    return lo


def max_cached_tokens__divmod(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    tokens, _ = divmod(int(memory_bytes), _kv_per_token(n_layers, n_heads, d_head, batch, bytes_per_value))
    return int(tokens)


# ============================================================================
# 15 capstone: the dict check("capstone", mine) receives (attnlib.learner_ops.NAMES)

def _capstone_ops(**changes):
    ops = {"softmax": _softmax, "attention": _attention, "embed": _embed, "multi_head_attention": _mha,
           "layer_norm": _layer_norm, "gelu": _gelu, "transformer_block": _block,
           "next_token_logits": _next_token_logits, "cross_entropy": _cross_entropy,
           "softmax_backward": _softmax_backward, "attention_backward": _attention_backward,
           "layer_norm_backward": _layer_norm_backward, "cache_step": _cache_step, "sample_next": _sample_next}
    ops.update(changes)
    return ops


def _cap_gelu_float32(X):
    return _gelu(np.asarray(X, dtype=np.float32))


def _capstone_cache_step_scale_by_d(q, k, v, K_cache, V_cache):
    K_new = np.vstack([K_cache, k[None, :]])
    V_new = np.vstack([V_cache, v[None, :]])
    return attend_step__scale_by_d(q, K_new, V_new), K_new, V_new


# ============================================================================
# the set

_M = Mistake

MISTAKES = [
    # 01 project
    _M("project", "computes W @ x (the column-vector x' = Wx) instead of x @ W: sums over the output index, "
       "wrong for square W and a shape error otherwise", project__column_vector),
    _M("project", "sums x[i] * W[i, j] over j (axis=1) instead of over i, returning d_in numbers instead of d_out",
       project__sums_over_outputs),
    _M("project", "returns shape (1, d_out): projects x as a one-row matrix x[None, :] @ W instead of a vector",
       project__keeps_row_matrix),
    _M("project", "sizes the output by len(x) (d_in) instead of W.shape[1] (d_out): too few or too many outputs",
       project__output_sized_d_in),
    _M("project", "accumulates into an integer array (np.zeros(..., dtype=int)), truncating every output to an int",
       project__int_accumulator),
    # 01 compose
    _M("compose", "multiplies in the column-vector order W2 @ W1 instead of W1 @ W2", compose__column_order),
    _M("compose", "multiplies elementwise (W1 * W2) instead of taking the matrix product W1 @ W2",
       compose__elementwise),
    _M("compose", "computes the product in place in W1 (W1 @= W2), overwriting the caller's W1", compose__in_place),
    _M("compose", "returns the transpose (d_out, d_in): W2.T @ W1.T instead of W1 @ W2", compose__transposed),
    # 02 project_rows
    _M("project_rows", "returns the transpose (d_out, n): W.T @ X.T instead of X @ W", project_rows__transposed),
    _M("project_rows", "projects only the first row, X[0] @ W, returning (d_out,) instead of (n, d_out)",
       project_rows__first_row_only),
    _M("project_rows", "loops over range(n - 1), leaving the last output row zero", project_rows__skips_last_row),
    _M("project_rows", "squeezes the result, so n = 1 (or d_out = 1) loses an axis: (d_out,) instead of (1, d_out)",
       project_rows__squeezes),
    # 02 matmul_cost
    _M("matmul_cost", "counts multiplications and additions (2·n·d_in·d_out FLOPs) instead of the n·d_in·d_out "
       "multiplications", matmul_cost__flops),
    _M("matmul_cost", "counts the entries of the result (n·d_out), forgetting each is a dot product of d_in "
       "multiplications", matmul_cost__entries_only),
    _M("matmul_cost", "counts the additions n·d_out·(d_in − 1) instead of the multiplications n·d_in·d_out",
       matmul_cost__additions),
    _M("matmul_cost", "computes in floating point (float(n) * d_in * d_out): returns a float, which rounds once "
       "the count passes 2**53", matmul_cost__float),
    _M("matmul_cost", "returns np.prod([n, d_in, d_out]), a numpy int64 instead of a Python int, which silently "
       "overflows past 2**63", matmul_cost__numpy_prod),
    # 03 values
    _M("values", "builds X from the distinct words only (dict.fromkeys(tokens)), dropping the repeated 'the' row",
       values__unique_words),
    _M("values", "builds X from the table's words in table order instead of from the tokens in sentence order",
       values__table_order),
    _M("values", "returns V transposed, shape (d_v, n): Wv.T @ X.T instead of X @ Wv", values__transposed),
    _M("values", "returns X itself, forgetting to multiply by Wv", values__forgets_Wv),
    _M("values", "sorts the tokens alphabetically before building X, so the rows are not in sentence order",
       values__sorted_tokens),
    # 03 one_hot
    _M("one_hot", "sizes the columns by ids.max() + 1 instead of vocab_size", one_hot__width_from_ids),
    _M("one_hot", "returns an integer array (np.zeros(..., dtype=int)) instead of floats", one_hot__int_dtype),
    _M("one_hot", "one-hot encodes np.unique(ids): repeated ids lose their rows and the rows come out sorted",
       one_hot__unique),
    _M("one_hot", "returns the transpose (vocab_size, n): the 1 of token i at (ids[i], i)", one_hot__transposed),
    _M("one_hot", "puts the 1 at column ids[i] − 1 (1-based ids), so id 0 lands in the last column",
       one_hot__one_based),
    _M("one_hot", "sets out[:, ids] = 1 (whole columns), so every row has a 1 at every id of the sentence",
       one_hot__whole_columns),
    # 04 uniform_causal_weights
    _M("uniform_causal_weights", "divides every row by n instead of by i + 1, so the rows do not sum to 1",
       uniform_causal_weights__divides_by_n),
    _M("uniform_causal_weights", "divides by the counts without [:, None], so column j is divided by j + 1 "
       "instead of row i by i + 1", uniform_causal_weights__divides_by_column),
    _M("uniform_causal_weights", "leaves out the diagonal (np.tril(..., k=-1)): row i has no weight on column i",
       uniform_causal_weights__no_diagonal),
    _M("uniform_causal_weights", "returns the transpose: upper triangular, column j holding 1/(j+1) on rows 0..j",
       uniform_causal_weights__transposed),
    _M("uniform_causal_weights", "uses integer division 1 // (i + 1), so every row after row 0 is all zeros",
       uniform_causal_weights__integer_division),
    # 04 causal_average
    _M("causal_average", "divides the running sum by n instead of by i + 1", causal_average__divides_by_n),
    _M("causal_average", "divides by counts of shape (n,) without [:, None], so the counts run along the columns "
       "(wrong, or a shape error when d != n)", causal_average__counts_along_columns),
    _M("causal_average", "replaces every row by the mean of all n rows (not causal: row i sees the future)",
       causal_average__mean_of_all_rows),
    _M("causal_average", "takes the running mean along the features (axis=1) instead of down the rows (axis=0)",
       causal_average__along_features),
    _M("causal_average", "divides the running sum by i instead of i + 1 (row 0 divided by zero)",
       causal_average__divides_by_i),
    # 05 similarity
    _M("similarity", "computes Q.T @ K, a (d, d) matrix, instead of Q @ K.T", similarity__QT_K),
    _M("similarity", "returns K @ Q.T, the transpose (n_k, n_q) of the scores", similarity__K_QT),
    _M("similarity", "divides the scores by sqrt(d) although they must be raw and unscaled", similarity__scaled),
    _M("similarity", "takes row-by-row dot products (Q * K).sum(axis=1), only the diagonal, instead of every pair",
       similarity__rowwise),
    _M("similarity", "normalises queries and keys to unit length (cosine similarity) instead of raw dot products",
       similarity__cosine),
    # 05 learned_scores
    _M("learned_scores", "uses Wq for the keys as well (Q @ Q.T), giving symmetric scores",
       learned_scores__Wq_for_keys),
    _M("learned_scores", "swaps the roles: queries from Wk and keys from Wq, returning the transpose of the scores",
       learned_scores__swapped),
    _M("learned_scores", "divides by sqrt(d) although the text asks for no scaling", learned_scores__scaled),
    _M("learned_scores", "adds the causal mask (−inf above the diagonal) although the text asks for no mask yet",
       learned_scores__masked),
    _M("learned_scores", "applies a row softmax, returning weights instead of the raw scores",
       learned_scores__softmax),
    # 06 causal_mask
    _M("causal_mask", "masks the diagonal as well (np.triu(..., k=0)): −inf where j >= i, so no row sees itself",
       causal_mask__masks_diagonal),
    _M("causal_mask", "puts −inf below the diagonal (the past, np.tril(k=-1)) instead of above it",
       causal_mask__masks_past),
    _M("causal_mask", "uses −1e9 instead of −np.inf above the diagonal", causal_mask__large_negative),
    _M("causal_mask", "returns a multiplicative 0/1 lower-triangular matrix (np.tril(ones)) instead of the additive "
       "0/−inf mask", causal_mask__multiplicative),
    _M("causal_mask", "builds it as np.triu(ones, k=1) * −inf, which gives NaN (0 · −inf) instead of 0 on and below "
       "the diagonal", causal_mask__zero_times_inf),
    # 06 softmax
    _M("softmax", "does not subtract the max before np.exp, so scores around 1000 overflow to inf/NaN",
       softmax__no_max),
    _M("softmax", "ignores the axis argument and always normalises along the last axis", softmax__ignores_axis),
    _M("softmax", "hard-codes axis=0: normalises down the columns whatever axis is asked", softmax__axis0),
    _M("softmax", "subtracts the max without keepdims=True, so on a square matrix row j's max is subtracted from "
       "column j (a shape error otherwise)", softmax__max_no_keepdims),
    _M("softmax", "divides by the sum without keepdims=True, so on a square matrix entry (i, j) is divided by row "
       "j's sum (a shape error otherwise)", softmax__sum_no_keepdims),
    _M("softmax", "subtracts the global max of S instead of the max along axis, so a row far below the top "
       "underflows to 0/0 = NaN", softmax__global_max),
    _M("softmax", "divides by the sum of the whole array instead of the sum along axis", softmax__global_sum),
    _M("softmax", "replaces −inf entries by 0 before the exp, so masked positions get weight instead of exact zeros",
       softmax__inf_to_zero),
    _M("softmax", "works in place on S (S -= max, np.exp(S, out=S), S /= sum), overwriting the caller's scores",
       softmax__in_place),
    # 06 score_scale
    _M("score_scale", "returns 1/d instead of 1/sqrt(d): the variance of q·k is d, so its spread is sqrt(d)",
       score_scale__one_over_d),
    _M("score_scale", "returns sqrt(d), the divisor, instead of the factor 1/sqrt(d)", score_scale__sqrt_d),
    _M("score_scale", "writes d ** -1/2, which Python reads as (d ** -1) / 2 = 1/(2d), instead of d ** -0.5",
       score_scale__precedence),
    _M("score_scale", "returns 1/sqrt of a variance measured on 1000 random pairs instead of the exact 1/sqrt(d)",
       score_scale__measured),
    # 06 attention_weights
    _M("attention_weights", "aligns the mask to the first n_q positions (np.triu(..., k=1) on (n_q, n_k)), so with "
       "n_q < n_k query i sees only keys 0..i instead of 0..n_k − n_q + i", attention_weights__mask_top_left),
    _M("attention_weights", "divides the scores by d instead of sqrt(d)", attention_weights__scale_by_d),
    _M("attention_weights", "applies the mask after the softmax (zeroing future weights) without renormalising, so "
       "rows sum to less than 1", attention_weights__mask_after_softmax),
    _M("attention_weights", "normalises over the queries (softmax axis=0) instead of over the keys (axis=-1)",
       attention_weights__softmax_over_queries),
    _M("attention_weights", "always applies the causal mask, ignoring causal=False", attention_weights__always_masks),
    _M("attention_weights", "always divides by sqrt(d), ignoring scale=False", attention_weights__always_scales),
    _M("attention_weights", "divides by sqrt(n_k) (K.shape[0]) instead of sqrt(d) (Q.shape[1])",
       attention_weights__scale_by_n_k),
    _M("attention_weights", "mask offset one too far (np.triu(..., k=n_k − n_q + 2)): every query also sees the "
       "next key, one position into the future", attention_weights__mask_one_too_far),
    _M("attention_weights", "divides the weights by sqrt(d) after the softmax instead of the scores before it",
       attention_weights__scale_after_softmax),
    # 07 attention
    _M("attention", "multiplies the transposed weights by V (A.T @ V) instead of A @ V", attention__weights_transposed),
    _M("attention", "normalises over the queries (softmax axis=0) instead of over the keys",
       attention__softmax_over_queries),
    _M("attention", "aligns the causal mask to the first n_q positions (np.triu(k=1) on (n_q, n_k)), so with "
       "n_q < n_k the queries are not the last positions", attention__mask_top_left),
    _M("attention", "scales by sqrt(d_v) (V.shape[1]) instead of sqrt(d) (Q.shape[1])", attention__scale_by_d_v),
    _M("attention", "computes the softmax without subtracting the row max, so large scores overflow to NaN",
       attention__no_max_subtraction),
    _M("attention", "never applies the causal mask (ignores causal=True): every query sees the future",
       attention__never_masks),
    _M("attention", "never divides the scores by sqrt(d) (ignores scale=True)", attention__forgets_scale),
    _M("attention", "masks by multiplying the scores by a 0/1 lower-triangular matrix, so future scores become 0 "
       "instead of −inf and still get weight", attention__multiplicative_mask),
    _M("attention", "masks after the exponentials: subtracts the max over all keys (the future included), zeroes "
       "the future and renormalises, so a row whose largest score is in the future underflows to 0/0 = NaN",
       attention__zero_future_after_exp),
    # 07 self_attention
    _M("self_attention", "ignores Wo: returns the attention output without the final @ Wo",
       self_attention__ignores_Wo),
    _M("self_attention", "divides the scores by sqrt(d_model) (X.shape[1]) instead of sqrt(d_head)",
       self_attention__scale_d_model),
    _M("self_attention", "always applies the causal mask, ignoring causal=False", self_attention__always_causal),
    _M("self_attention", "computes the keys with Wq instead of Wk (K = X @ Wq)", self_attention__Wq_for_keys),
    _M("self_attention", "mixes the rows of X instead of V = X @ Wv (forgets the value projection)",
       self_attention__mixes_X),
    _M("self_attention", "tests `if Wo:` instead of `if Wo is not None:`, which raises for an array Wo",
       self_attention__truthiness_of_Wo),
    # 07 future_leak
    _M("future_leak", "counts the leaking (row, future row) pairs instead of returning the largest distance k",
       future_leak__counts_pairs),
    _M("future_leak", "counts changes from earlier input rows too (uses |i − j| over all pairs), so a causal "
       "function gets n − 1 instead of 0", future_leak__any_direction),
    _M("future_leak", "uses an absolute threshold of 1e-9 instead of 1e-9 times the largest output, so rounding noise "
       "on large outputs counts as a leak", future_leak__absolute_threshold),
    _M("future_leak", "treats any nonzero difference (even 1e-15 rounding noise) as a change instead of the 1e-9 "
       "relative threshold", future_leak__any_change),
    _M("future_leak", "moves each row by 1e-6 instead of a clearly visible amount, so a tiny weight on a future "
       "token stays under the threshold", future_leak__tiny_move),
    _M("future_leak", "moves row j of X in place (X[j] += 1, then X[j] -= 1) instead of on a copy, changing the "
       "caller's X in its last bits", future_leak__moves_X_in_place),
    _M("future_leak", "only checks whether row i changes when row i + 1 moves, so a leak of several positions is "
       "reported as 1", future_leak__only_next_row),
    _M("future_leak", "returns None instead of 0 when no row sees its future", future_leak__none_when_causal),
    # 07 tiled_attention
    _M("tiled_attention", "does not shrink l and acc by exp(m_old − m_new) when a tile raises the running max",
       tiled_attention__no_rescale),
    _M("tiled_attention", "rescales acc but not the running sum l when a tile raises the max",
       tiled_attention__rescales_acc_only),
    _M("tiled_attention", "rescales by exp(m_new − m_old) (sign flipped) instead of exp(m_old − m_new)",
       tiled_attention__rescale_sign_flipped),
    _M("tiled_attention", "applies the tile-local triangle (np.triu(k=1)) to every tile, also to tiles wholly in "
       "the past, hiding keys the query may see", tiled_attention__mask_every_tile),
    _M("tiled_attention", "places the queries at positions 0..n_q − 1 instead of the last n_q positions when "
       "n_q < n_k", tiled_attention__queries_at_start),
    _M("tiled_attention", "computes a (block, n_k) strip of scores against every key at once instead of one "
       "(block, block) tile: right values, but over the memory limit", tiled_attention__whole_strip),
    _M("tiled_attention", "walks the key tiles with range(0, n_k − block + 1, block), dropping the last partial "
       "tile when the keys are not a multiple of block", tiled_attention__drops_partial_tile),
    _M("tiled_attention", "forgets to scale the scores by 1/sqrt(d)", tiled_attention__forgets_scale),
    _M("tiled_attention", "starts the running max at 0 instead of −inf, so rows whose scores are all below about "
       "−745 underflow to 0/0", tiled_attention__max_starts_at_zero),
    # 08 embed
    _M("embed", "looks the position table up by word id (pos_emb[tokens]) instead of by position (pos_emb[:n])",
       embed__positions_by_word_id),
    _M("embed", "adds the whole position table (all max_len rows) instead of its first n rows",
       embed__whole_position_table),
    _M("embed", "adds the position rows 1..n instead of 0..n − 1", embed__positions_from_1),
    _M("embed", "concatenates word and position vectors (width 2·d_model) instead of adding them",
       embed__concatenates),
    _M("embed", "adds the positions into tok_emb in place (tok_emb[tokens] += ...), changing the caller's table "
       "(and a repeated word keeps only one position)", embed__adds_into_table),
    # 08 sinusoidal_positions
    _M("sinusoidal_positions", "uses 10000^(i/d) instead of 10000^(2i/d) for pair i",
       sinusoidal_positions__exponent_i_over_d),
    _M("sinusoidal_positions", "uses the column index j in the exponent (10000^(j/d)), so each cosine column gets a "
       "different frequency from its sine", sinusoidal_positions__column_index_exponent),
    _M("sinusoidal_positions", "puts all sines in the first d/2 columns and all cosines in the last d/2 instead of "
       "interleaving them", sinusoidal_positions__halves),
    _M("sinusoidal_positions", "puts the cosines on the even columns and the sines on the odd ones",
       sinusoidal_positions__sin_cos_swapped),
    _M("sinusoidal_positions", "multiplies t by 10000^(2i/d) instead of dividing by it",
       sinusoidal_positions__multiplies),
    _M("sinusoidal_positions", "counts positions from 1 instead of 0 (row 0 is not [0, 1, 0, 1, ...])",
       sinusoidal_positions__positions_from_1),
    _M("sinusoidal_positions", "uses log10(10000) = 4 instead of ln(10000) in exp(−2i·ln(10000)/d)",
       sinusoidal_positions__log10),
    # 09 split_heads
    _M("split_heads", "reshapes M straight to (n_heads, n, d_head), scrambling rows and columns instead of "
       "splitting the columns", split_heads__plain_reshape),
    _M("split_heads", "gives head h the interleaved columns h, h + n_heads, h + 2·n_heads, ... instead of a "
       "contiguous block", split_heads__interleaved),
    _M("split_heads", "returns shape (n, n_heads, d_head): forgets to move the head axis first",
       split_heads__no_transpose),
    _M("split_heads", "swaps n_heads and d_head: splits into d_model/n_heads heads of n_heads columns",
       split_heads__counts_swapped),
    _M("split_heads", "reshapes M in place by assigning M.shape, changing the caller's array",
       split_heads__assigns_shape),
    _M("split_heads", "transposes to (n_heads, d_head, n) (transpose(1, 2, 0)) instead of (n_heads, n, d_head)",
       split_heads__wrong_transpose),
    # 09 multi_head_attention
    _M("multi_head_attention", "scales each head's scores by sqrt(d_model) instead of sqrt(d_head)",
       multi_head_attention__scale_d_model),
    _M("multi_head_attention", "routes head h to the interleaved columns h::n_heads instead of the block "
       "h·d_head:(h+1)·d_head", multi_head_attention__interleaved),
    _M("multi_head_attention", "returns the concatenated heads without multiplying by Wo",
       multi_head_attention__forgets_Wo),
    _M("multi_head_attention", "merges the (n_heads, n, d_head) stack with a plain reshape to (n, n_heads·d_head) "
       "without moving the head axis back, mixing tokens and heads", multi_head_attention__reshape_merge),
    _M("multi_head_attention", "always applies the causal mask, ignoring causal=False",
       multi_head_attention__always_causal),
    _M("multi_head_attention", "runs one wide head over all n_heads·d_head columns (scaled by their sqrt) instead "
       "of n_heads separate heads", multi_head_attention__one_wide_head),
    _M("multi_head_attention", "calls .squeeze() on the split heads, which drops the head axis when n_heads = 1 "
       "(or the token axis when n = 1) and breaks", multi_head_attention__squeezes_heads),
    _M("multi_head_attention", "computes d_head as d_model // n_heads (X.shape[1]) instead of Wq.shape[1] // n_heads, "
       "wrong when n_heads·d_head != d_model", multi_head_attention__d_head_from_d_model),
    # 10 layer_norm
    _M("layer_norm", "adds eps outside the square root: (X − mean) / (std + eps) instead of / sqrt(var + eps)",
       layer_norm__eps_outside_sqrt),
    _M("layer_norm", "uses the unbiased variance (ddof=1, dividing by d − 1) instead of the biased one",
       layer_norm__unbiased_variance),
    _M("layer_norm", "normalises each column (axis=0) instead of each row", layer_norm__over_columns),
    _M("layer_norm", "subtracts the row means without keepdims, so on a square X column j gets row j's mean "
       "(a shape error otherwise)", layer_norm__mean_no_keepdims),
    _M("layer_norm", "divides by (var + eps) instead of sqrt(var + eps)", layer_norm__divides_by_variance),
    _M("layer_norm", "swaps the gain and the bias: multiplies by b and adds g", layer_norm__gain_bias_swapped),
    _M("layer_norm", "hard-codes eps = 1e-5 instead of using the eps argument", layer_norm__hard_coded_eps),
    _M("layer_norm", "leaves eps out: divides by sqrt(var), so a constant row gives 0/0 = NaN", layer_norm__no_eps),
    _M("layer_norm", "takes the mean and variance over the whole matrix instead of each row",
       layer_norm__whole_matrix_stats),
    # 10 gelu
    _M("gelu", "uses the exact erf GELU 0.5x(1 + erf(x/√2)) instead of the tanh approximation", gelu__exact_erf),
    _M("gelu", "uses 0.044715·x² instead of 0.044715·x³ inside the tanh", gelu__square_term),
    _M("gelu", "uses √(2π) instead of √(2/π)", gelu__sqrt_2pi),
    _M("gelu", "leaves out the factor 0.5 (returns twice the GELU)", gelu__no_half),
    _M("gelu", "returns ReLU max(x, 0) instead of GELU", gelu__relu),
    _M("gelu", "loops over two indices (assumes a 2-D X), failing for the other shapes the text allows",
       gelu__assumes_2d),
    _M("gelu", "uses the sigmoid approximation x·σ(1.702x) instead of the tanh formula", gelu__sigmoid_approximation),
    # 10 transformer_block
    _M("transformer_block", "normalises after each residual add (post-LN) instead of before each sublayer (pre-LN)",
       transformer_block__post_ln),
    _M("transformer_block", "drops the residual around attention: Y = MHA(LN1(X)) instead of X + MHA(LN1(X))",
       transformer_block__no_attention_residual),
    _M("transformer_block", "adds the attention residual to LN1(X) instead of to X",
       transformer_block__residual_from_normed),
    _M("transformer_block", "uses ln1_g, ln1_b for the second layer norm instead of ln2_g, ln2_b",
       transformer_block__ln1_params_twice),
    _M("transformer_block", "feeds Y to the MLP without the second layer norm", transformer_block__no_second_norm),
    _M("transformer_block", "applies GELU after the second linear layer (gelu(... @ W2 + b2)) instead of between W1 "
       "and W2", transformer_block__gelu_after_W2),
    _M("transformer_block", "always calls multi_head_attention with causal=True, ignoring the causal argument",
       transformer_block__always_causal),
    _M("transformer_block", "normalises X instead of Y before the MLP (LN2(X))", transformer_block__second_norm_of_X),
    _M("transformer_block", "leaves out the bias b1 inside the GELU", transformer_block__forgets_b1),
    # 11 next_token_logits
    _M("next_token_logits", "uses the first row H[0] instead of the last row H[-1]", next_token_logits__first_row),
    _M("next_token_logits", "returns logits for every row (n, vocab) instead of only the last (vocab,)",
       next_token_logits__every_row),
    _M("next_token_logits", "applies a softmax, returning probabilities instead of raw logits",
       next_token_logits__softmax),
    _M("next_token_logits", "averages all rows of H instead of taking the last", next_token_logits__mean_of_rows),
    _M("next_token_logits", "returns shape (1, vocab) (H[-1:] @ W_vocab) instead of (vocab,)",
       next_token_logits__keeps_row_matrix),
    # 11 cross_entropy
    _M("cross_entropy", "sums over the rows instead of averaging: the loss and the gradient are n times too large",
       cross_entropy__sums_rows),
    _M("cross_entropy", "returns dlogits = softmax − one_hot without dividing by n (the loss is averaged, its "
       "gradient is not)", cross_entropy__gradient_not_averaged),
    _M("cross_entropy", "takes np.log of the softmax probabilities, so an unlikely target at logits around 1e4 gives "
       "log(0) = −inf and an infinite loss", cross_entropy__log_of_probabilities),
    _M("cross_entropy", "does not subtract the row max before np.exp, so logits around 1e4 overflow to inf/NaN",
       cross_entropy__no_max_subtraction),
    _M("cross_entropy", "returns the gradient with the wrong sign: (one_hot − softmax) / n",
       cross_entropy__gradient_sign),
    _M("cross_entropy", "forgets the minus sign: returns the mean log-probability (negative) as the loss",
       cross_entropy__loss_sign),
    _M("cross_entropy", "indexes logp[:, targets] (every row at every target) instead of logp[arange(n), targets] "
       "in the loss", cross_entropy__loss_indexes_every_row),
    _M("cross_entropy", "subtracts the 1 at dlogits[:, targets] (every row at every target column) instead of at "
       "(i, targets[i])", cross_entropy__gradient_indexes_every_row),
    _M("cross_entropy", "returns softmax / n as the gradient, forgetting to subtract the one-hot target",
       cross_entropy__gradient_no_one_hot),
    _M("cross_entropy", "averages −one_hot·logp over all n·vocab entries (np.mean) instead of over the n rows, so the "
       "loss is vocab times too small", cross_entropy__mean_over_vocab),
    # 11 softmax_backward
    _M("softmax_backward", "returns A * dA, missing the − A·sum(A * dA) term", softmax_backward__no_sum_term),
    _M("softmax_backward", "adds the sum(A * dA) term instead of subtracting it", softmax_backward__sum_term_sign),
    _M("softmax_backward", "sums without keepdims=True, so the row sums broadcast along the wrong axis (wrong on a "
       "square A, a shape error otherwise)", softmax_backward__sum_no_keepdims),
    _M("softmax_backward", "takes the sum over axis 0 instead of the last axis", softmax_backward__sum_over_axis0),
    _M("softmax_backward", "subtracts sum(dA) instead of sum(A * dA)", softmax_backward__unweighted_sum),
    _M("softmax_backward", "loops over the rows of a 2-D A only (np.diag(A[i]) − outer), failing for the leading "
       "axes the text allows", softmax_backward__rows_of_2d_only),
    _M("softmax_backward", "keeps only the diagonal of the Jacobian: dA · A(1 − A), dropping the off-diagonal "
       "−A_i A_j terms", softmax_backward__jacobian_diagonal_only),
    # 11 attention_backward
    _M("attention_backward", "does not multiply dS by the scale 1/sqrt(d), so dQ and dK are sqrt(d) times too large",
       attention_backward__forgets_scale),
    _M("attention_backward", "computes dV = A @ dO instead of A.T @ dO", attention_backward__dV_untransposed),
    _M("attention_backward", "computes dK = dS @ Q instead of dS.T @ Q", attention_backward__dK_untransposed),
    _M("attention_backward", "skips the softmax backward: uses dS = dO V^T (times the scale) as if the softmax were "
       "the identity", attention_backward__skips_softmax_backward),
    _M("attention_backward", "recomputes A with the mask aligned to the first n_q positions instead of the last, "
       "wrong when n_q < n_k", attention_backward__mask_top_left),
    _M("attention_backward", "always uses the scale 1/sqrt(d), ignoring scale=False",
       attention_backward__always_scales),
    _M("attention_backward", "recomputes A without the causal mask even when causal=True",
       attention_backward__never_masks),
    _M("attention_backward", "multiplies dQ and dK by the scale again after scaling dS (s² in total)",
       attention_backward__scale_twice),
    # 11 layer_norm_backward
    _M("layer_norm_backward", "leaves out the − mean(dXhat) term (the mean's dependence on X)",
       layer_norm_backward__no_mean_term),
    _M("layer_norm_backward", "leaves out the − Xhat·mean(dXhat·Xhat) term (the variance's dependence on X)",
       layer_norm_backward__no_variance_term),
    _M("layer_norm_backward", "treats the mean and the variance as constants: dX = dY·g / sqrt(var + eps)",
       layer_norm_backward__constant_statistics),
    _M("layer_norm_backward", "forgets the gain: uses dXhat = dY instead of dY * g", layer_norm_backward__forgets_gain),
    _M("layer_norm_backward", "computes dg from the raw X (column sums of dY * X) instead of the normalised Xhat",
       layer_norm_backward__dg_from_raw_X),
    _M("layer_norm_backward", "returns dg and db swapped: (dX, db, dg)", layer_norm_backward__dg_db_swapped),
    _M("layer_norm_backward", "recomputes the variance with ddof=1 (unbiased) instead of the biased variance",
       layer_norm_backward__unbiased_variance),
    _M("layer_norm_backward", "sums dg and db over each row (axis=1, shape (n,)) instead of down the rows (axis=0)",
       layer_norm_backward__param_grads_per_row),
    # 12 most_attended
    _M("most_attended", "takes the argmax of each column (axis=0) instead of each row", most_attended__per_column),
    _M("most_attended", "picks the smallest weight (argmin) instead of the largest", most_attended__argmin),
    _M("most_attended", "on exact ties returns the later token (last index of the maximum) instead of the earlier",
       most_attended__ties_to_last),
    _M("most_attended", "returns the column indices instead of the token strings", most_attended__indices),
    _M("most_attended", "returns a numpy array of np.str_ instead of a list of str", most_attended__numpy_array),
    # 12 attention_entropy
    _M("attention_entropy", "uses log base 2 (bits) instead of the natural log (nats)", attention_entropy__log2),
    _M("attention_entropy", "computes A·log(A) directly, so a zero weight gives NaN (0·−inf) instead of 0",
       attention_entropy__zero_gives_nan),
    _M("attention_entropy", "forgets the minus sign: returns sum A log A (≤ 0)", attention_entropy__no_minus_sign),
    _M("attention_entropy", "sums over the queries (axis=0) instead of over the keys of each row",
       attention_entropy__over_queries),
    _M("attention_entropy", "averages −A log A over the keys (np.mean) instead of summing it",
       attention_entropy__mean_not_sum),
    # 13 padding_mask
    _M("padding_mask", "hides the last real token too: −inf from column n_valid − 1 instead of n_valid",
       padding_mask__hides_last_real_token),
    _M("padding_mask", "hides the rows i >= n_valid instead of the columns j >= n_valid", padding_mask__hides_rows),
    _M("padding_mask", "returns a boolean array (True on the padding) instead of the additive 0/−inf float mask",
       padding_mask__boolean),
    _M("padding_mask", "ignores n_q and returns an (n_k, n_k) mask", padding_mask__square),
    _M("padding_mask", "also adds a causal mask (hides the future), though every row must be the same",
       padding_mask__adds_causal),
    _M("padding_mask", "uses −1e9 instead of −inf on the padding columns", padding_mask__large_negative),
    # 13 cross_attention
    _M("cross_attention", "applies a causal mask, though cross-attention uses no mask", cross_attention__causal_mask),
    _M("cross_attention", "takes the keys and values from X instead of Z (self-attention on X)",
       cross_attention__keys_from_X),
    _M("cross_attention", "swaps the roles: queries from Z, keys and values from X", cross_attention__roles_swapped),
    _M("cross_attention", "scales by sqrt(d_model) instead of sqrt(d_head)", cross_attention__scale_d_model),
    _M("cross_attention", "normalises over the queries (softmax axis=0) instead of over the keys",
       cross_attention__softmax_over_queries),
    _M("cross_attention", "takes the values from X instead of Z (keys from Z)", cross_attention__values_from_X),
    # 14 attend_step
    _M("attend_step", "does not subtract the max before np.exp, so huge scores overflow to NaN",
       attend_step__no_max_subtraction),
    _M("attend_step", "divides the scores by d instead of sqrt(d)", attend_step__scale_by_d),
    _M("attend_step", "forgets the 1/sqrt(d) scale", attend_step__forgets_scale),
    _M("attend_step", "leaves the last cached row (the new token itself) out of the attention",
       attend_step__leaves_out_own_row),
    _M("attend_step", "applies a square causal mask with the query at position 0, so it attends only to the first "
       "cached key", attend_step__square_causal_mask),
    _M("attend_step", "scales by sqrt(d_v) (V_cache.shape[1]) instead of sqrt(d)", attend_step__scale_by_d_v),
    # 14 cache_step
    _M("cache_step", "puts k and v as the first rows of the caches instead of the last", cache_step__prepends),
    _M("cache_step", "lets q attend over the old caches, before appending k and v", cache_step__attends_before_append),
    _M("cache_step", "attends without the 1/sqrt(d) scale", cache_step__forgets_scale),
    _M("cache_step", "returns only o instead of (o, K_new, V_new)", cache_step__returns_only_o),
    _M("cache_step", "returns the old K_cache and V_cache instead of the grown ones", cache_step__returns_old_caches),
    _M("cache_step", "appends v to the keys and k to the values (swapped)", cache_step__k_and_v_swapped),
    _M("cache_step", "returns the caches in the wrong order: (o, V_new, K_new)", cache_step__caches_in_wrong_order),
    _M("cache_step", "uses np.append without axis=0, which flattens the caches into 1-D arrays",
       cache_step__append_flattens),
    # 14 sample_next
    _M("sample_next", "multiplies the logits by the temperature instead of dividing by it",
       sample_next__multiplies_temperature),
    _M("sample_next", "returns a numpy integer (np.argmax / np.searchsorted) instead of a Python int",
       sample_next__numpy_integer),
    _M("sample_next", "returns the first token whose running total is >= u (searchsorted side='left') instead of "
       "> u", sample_next__at_least_u),
    _M("sample_next", "does not scale the running total to end at exactly 1, so a u just below 1 can return vocab "
       "(one past the last token)", sample_next__cdf_not_rescaled),
    _M("sample_next", "has no greedy branch: divides by the temperature 0 too, giving NaN probabilities",
       sample_next__no_greedy_branch),
    _M("sample_next", "does not subtract the max before np.exp, so logits around 1e4 (or a temperature of 1e-8) "
       "overflow", sample_next__no_max_subtraction),
    _M("sample_next", "returns the first token whose own probability exceeds u instead of its running total",
       sample_next__own_probability),
    _M("sample_next", "divides the probabilities by the temperature after the softmax, which the final scaling "
       "undoes, so the temperature has no effect", sample_next__temperature_after_softmax),
    _M("sample_next", "at temperature 0 returns the last of several equal largest logits instead of the first",
       sample_next__greedy_ties_to_last),
    # 14 generate
    _M("generate", "gives the generated tokens positions 0, 1, ... again instead of continuing after the prompt",
       generate__positions_restart),
    _M("generate", "computes the logits from o alone (o @ W_out) instead of (x + o) @ W_out",
       generate__logits_from_o_only),
    _M("generate", "computes the logits from x alone (x @ W_out), ignoring the attention output",
       generate__logits_from_x_only),
    _M("generate", "uses its own attention step instead of the cache_step it is given", generate__own_cache_step),
    _M("generate", "also feeds the last new token through cache_step (one call too many)",
       generate__feeds_last_new_token),
    _M("generate", "re-feeds the whole sequence through a fresh cache for every new token instead of one cache_step "
       "per token", generate__refeeds_everything),
    _M("generate", "returns only the n_new generated tokens, without the prompt", generate__only_new_tokens),
    _M("generate", "stops one token early: loops range(n_new − 1), returning T + n_new − 1 tokens",
       generate__one_token_short),
    _M("generate", "preallocates the output with np.zeros, returning a float array instead of ints",
       generate__float_output),
    # 14 kv_cache_bytes
    _M("kv_cache_bytes", "counts only the keys: forgets the factor 2 for K and V", kv_cache_bytes__keys_only),
    _M("kv_cache_bytes", "ignores batch", kv_cache_bytes__ignores_batch),
    _M("kv_cache_bytes", "returns the number of values, forgetting to multiply by bytes_per_value",
       kv_cache_bytes__counts_values),
    _M("kv_cache_bytes", "returns 2 * np.prod([...]), a numpy int64 instead of a Python int, which overflows past "
       "2**63", kv_cache_bytes__numpy_prod),
    _M("kv_cache_bytes", "hard-codes 2 bytes per value, ignoring bytes_per_value", kv_cache_bytes__hard_coded_two_bytes),
    # 14 max_cached_tokens
    _M("max_cached_tokens", "divides in floating point (int(memory_bytes / per_token)), which rounds for answers "
       "beyond 2**53", max_cached_tokens__float_division),
    _M("max_cached_tokens", "rounds up (ceiling division) instead of down, returning a length whose cache no longer "
       "fits", max_cached_tokens__rounds_up),
    _M("max_cached_tokens", "returns the first length that does not fit (memory_bytes // per_token + 1)",
       max_cached_tokens__first_that_overflows),
    _M("max_cached_tokens", "forgets the factor 2 for K and V, returning twice the length",
       max_cached_tokens__forgets_factor_2),
    _M("max_cached_tokens", "ignores batch", max_cached_tokens__ignores_batch),
    _M("max_cached_tokens", "computes with numpy int64 (np.prod, np.floor_divide): not a Python int, and it overflows "
       "or raises for huge memories", max_cached_tokens__numpy_integers),
    # 15 capstone: the dict of ops, all right but one
    _M("capstone", "gelu uses √(2π) instead of √(2/π) inside the tanh (a forward piece: the loss parts at step 0)",
       _capstone_ops(gelu=gelu__sqrt_2pi)),
    _M("capstone", "embed adds the position rows 1..T instead of 0..T − 1", _capstone_ops(embed=embed__positions_from_1)),
    _M("capstone", "layer_norm_backward leaves out the − Xhat·mean(dXhat·Xhat) term (a backward piece: the loss "
       "parts from step 1)", _capstone_ops(layer_norm_backward=layer_norm_backward__no_variance_term)),
    _M("capstone", "attention_backward does not multiply dS by the scale 1/sqrt(d)",
       _capstone_ops(attention_backward=attention_backward__forgets_scale)),
    _M("capstone", "cross_entropy returns dlogits without dividing by n", _capstone_ops(
        cross_entropy=cross_entropy__gradient_not_averaged)),
    _M("capstone", "sample_next returns the first token whose own probability exceeds u instead of its running "
       "total (a generation piece: only the sampled tokens part)",
       _capstone_ops(sample_next=sample_next__own_probability)),
    _M("capstone", "cache_step divides the scores by d instead of sqrt(d) (only the generated tokens part)",
       _capstone_ops(cache_step=_capstone_cache_step_scale_by_d)),
    _M("capstone", "multi_head_attention routes head h to the interleaved columns h::n_heads",
       _capstone_ops(multi_head_attention=multi_head_attention__interleaved)),
    _M("capstone", "softmax hard-codes axis=0 (the model's attention computes its own, so softmax must be tried alone)",
       _capstone_ops(softmax=softmax__axis0)),
    _M("capstone", "transformer_block normalises after the residual adds (post-LN) instead of before (pre-LN)",
       _capstone_ops(transformer_block=transformer_block__post_ln)),
    _M("capstone", "next_token_logits uses the first row H[0] instead of the last", _capstone_ops(
        next_token_logits=next_token_logits__first_row)),
    _M("capstone", "softmax_backward returns A * dA, missing the − A·sum(A * dA) term (attention_backward computes "
       "its own, so it must be tried alone)", _capstone_ops(softmax_backward=softmax_backward__no_sum_term)),
    _M("capstone", "layer_norm uses the unbiased variance (ddof=1)", _capstone_ops(
        layer_norm=layer_norm__unbiased_variance)),
]

ACCEPTABLE = [
    _M("project", "einsum 'i,ij->j' instead of x @ W", project__einsum),
    _M("project", "a loop over the inputs adding x[i] * W[i]", project__loop_over_inputs),
    _M("compose", "projects the identity: (eye(d_in) @ W1) @ W2", compose__through_identity),
    _M("compose", "einsum 'ik,kj->ij'", compose__einsum),
    _M("project_rows", "stacks the projection of each row", project_rows__stacked_rows),
    _M("project_rows", "einsum 'ni,io->no'", project_rows__einsum),
    _M("matmul_cost", "math.prod of the three sizes", matmul_cost__math_prod),
    _M("matmul_cost", "entries of the result times the length of each dot product", matmul_cost__entries_times_length),
    _M("values", "projects each token's vector on its own and stacks the rows", values__row_by_row),
    _M("values", "looks the rows up with a one-hot product before projecting", values__one_hot_lookup),
    _M("one_hot", "np.put_along_axis of 1.0 at each row's id", one_hot__put_along_axis),
    _M("one_hot", "broadcast comparison ids[:, None] == arange(vocab_size), cast to float",
       one_hot__broadcast_compare),
    _M("uniform_causal_weights", "a loop filling row i with 1/(i+1)", uniform_causal_weights__loop),
    _M("uniform_causal_weights", "a lower-triangular matrix of ones divided by its row sums",
       uniform_causal_weights__row_sums),
    _M("causal_average", "the uniform causal weights matrix times V", causal_average__weights_matrix),
    _M("causal_average", "a loop taking V[:i + 1].mean(axis=0)", causal_average__loop),
    _M("similarity", "einsum 'id,jd->ij'", similarity__einsum),
    _M("similarity", "two loops of dot products", similarity__loops),
    _M("learned_scores", "the bilinear form X @ (Wq @ Wk.T) @ X.T", learned_scores__bilinear_form),
    _M("learned_scores", "einsum for the projections and the scores", learned_scores__einsum),
    _M("causal_mask", "np.where(j > i, -inf, 0.0) from broadcast index grids", causal_mask__where),
    _M("causal_mask", "a loop setting M[i, i + 1:] = -inf", causal_mask__loop),
    _M("softmax", "log-sum-exp form exp(S − m − log(sum exp(S − m)))", softmax__log_sum_exp),
    _M("softmax", "moves axis last and loops over every row", softmax__moveaxis_rows),
    _M("score_scale", "float(d) ** -0.5", score_scale__negative_half_power),
    _M("score_scale", "math.sqrt(1 / d)", score_scale__sqrt_of_reciprocal),
    _M("attention_weights", "a loop over queries, each softmaxed over only the keys it may see",
       attention_weights__row_loop),
    _M("attention_weights", "masks first, then multiplies by 1/sqrt(d)", attention_weights__scale_after_mask),
    _M("attention", "a loop over the queries, each over only the keys it may see", attention__row_loop),
    _M("attention", "einsum for both products", attention__einsum),
    _M("self_attention", "folds Wo into the values: A @ (X @ (Wv @ Wo))", self_attention__Wo_folded_into_V),
    _M("self_attention", "written out step by step with in-place mask, max subtraction and normalisation",
       self_attention__step_by_step),
    _M("future_leak", "moves rows by 3.0 instead of 1 and takes the earliest leaking row per moved row",
       future_leak__moves_by_three),
    _M("future_leak", "collects every row's change first, then searches the distances from the largest down",
       future_leak__by_distance),
    _M("tiled_attention", "visits every key tile (fully masked ones too) and keeps m and l as 1-D arrays",
       tiled_attention__visits_every_tile),
    _M("embed", "looks the words up with a one-hot product", embed__one_hot_product),
    _M("embed", "a loop adding tok_emb[t] + pos_emb[i] per token", embed__row_loop),
    _M("sinusoidal_positions", "frequencies as exp(−2i·ln(10000)/d)", sinusoidal_positions__exp_log),
    _M("sinusoidal_positions", "a loop over the column pairs, vectorised over positions",
       sinusoidal_positions__loop_over_pairs),
    _M("split_heads", "stacks the column slices", split_heads__stacked_slices),
    _M("split_heads", "np.split along the columns", split_heads__np_split),
    _M("multi_head_attention", "sums each head's output times its own block of Wo's rows instead of concatenating",
       multi_head_attention__sum_of_Wo_blocks),
    _M("multi_head_attention", "all heads at once with einsum", multi_head_attention__batched_einsum),
    _M("layer_norm", "np.var and np.mean, gain applied first", layer_norm__np_var),
    _M("layer_norm", "sums divided by d instead of mean and var", layer_norm__sums_over_d),
    _M("gelu", "factored x·(1 + 0.044715·x²) inside the tanh", gelu__factored),
    _M("gelu", "x·(0.5 + 0.5·tanh(u)) with np.power", gelu__reordered),
    _M("transformer_block", "in-place residual add on a copy of X, MLP written out", transformer_block__step_by_step),
    _M("transformer_block", "the MLP applied row by row", transformer_block__rows_through_mlp),
    _M("next_token_logits", "all rows' logits, then the last", next_token_logits__all_rows_then_last),
    _M("next_token_logits", "einsum on H[n − 1]", next_token_logits__einsum),
    _M("cross_entropy", "log-sum-exp with the max added back; a Python float loss", cross_entropy__log_sum_exp),
    _M("cross_entropy", "a one-hot target matrix for both the loss and the gradient", cross_entropy__one_hot_matrix),
    _M("softmax_backward", "the full Jacobian diag(a) − a aᵀ for every row of every leading index",
       softmax_backward__jacobian_per_row),
    _M("softmax_backward", "einsum for the inner product", softmax_backward__einsum),
    _M("attention_backward", "one query at a time over the keys it sees, accumulating dK and dV",
       attention_backward__per_query),
    _M("layer_norm_backward", "the full per-row Jacobian of Xhat, einsum for dg and db",
       layer_norm_backward__jacobian_per_row),
    _M("layer_norm_backward", "the (1/d)·rstd·(d·dXhat − Σ dXhat − Xhat Σ dXhat·Xhat) form",
       layer_norm_backward__sum_form),
    _M("most_attended", "Python max over the column indices (first on ties)", most_attended__python_max),
    _M("most_attended", "np.argmax with int() and str() conversions", most_attended__argmax_as_int),
    _M("attention_entropy", "np.log with where=A > 0 into a zero array", attention_entropy__log_where_positive),
    _M("attention_entropy", "loops with math.log, skipping zero weights", attention_entropy__loops),
    _M("padding_mask", "one row from np.where, tiled n_q times", padding_mask__tiled_row),
    _M("padding_mask", "starts from −inf and opens the first n_valid columns", padding_mask__fill),
    _M("cross_attention", "einsum for both products", cross_attention__einsum),
    _M("cross_attention", "unmasked attention on Q = X Wq, K = Z Wk, V = Z Wv", cross_attention__unmasked_attention),
    _M("attend_step", "log-sum-exp weights", attend_step__log_sum_exp),
    _M("attend_step", "einsum, dividing by the sum after the product", attend_step__einsum),
    _M("cache_step", "np.concatenate with reshaped rows", cache_step__concatenate),
    _M("cache_step", "np.r_ to append the rows", cache_step__r_),
    _M("sample_next", "a Python loop for the running total, scaled by its last value", sample_next__python_loop),
    _M("sample_next", "argmax of the boolean cdf > u", sample_next__first_true),
    _M("generate", "a while loop that feeds the next unfed token and appends when all are fed",
       generate__while_loop),
    _M("kv_cache_bytes", "math.prod of all factors", kv_cache_bytes__math_prod),
    _M("kv_cache_bytes", "bytes per token times tokens times batch", kv_cache_bytes__per_token_times_tokens),
    _M("max_cached_tokens", "binary search on exact integer cache sizes", max_cached_tokens__binary_search),
    _M("max_cached_tokens", "divmod on exact ints", max_cached_tokens__divmod),
    _M("capstone", "every op right, several written differently (log-sum-exp softmax, row-loop attention, "
       "one-hot embed, summed Wo blocks, loop-based backward passes, np.r_ cache)", _capstone_ops(
        softmax=softmax__log_sum_exp, attention=attention__row_loop, embed=embed__one_hot_product,
        multi_head_attention=multi_head_attention__sum_of_Wo_blocks, layer_norm=layer_norm__np_var,
        gelu=gelu__factored, transformer_block=transformer_block__step_by_step,
        next_token_logits=next_token_logits__all_rows_then_last, cross_entropy=cross_entropy__log_sum_exp,
        softmax_backward=softmax_backward__einsum, attention_backward=attention_backward__per_query,
        layer_norm_backward=layer_norm_backward__sum_form, cache_step=cache_step__r_,
        sample_next=sample_next__python_loop)),
    _M("capstone", "only some functions written yet (layer_norm, gelu, cross_entropy, sample_next): attnlib's fill "
       "in the rest", {"layer_norm": _layer_norm, "gelu": _gelu, "cross_entropy": _cross_entropy,
                       "sample_next": _sample_next}),
    _M("capstone", "every op right, gelu computed in float32 (the text says float32 pieces pass)",
       _capstone_ops(gelu=_cap_gelu_float32)),
]
