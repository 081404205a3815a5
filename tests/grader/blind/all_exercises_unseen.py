"""A blind set of learner mistakes for every exercise of "Rediscovering Attention".

What it is: realistic wrong answers (MISTAKES) and right answers written differently (ACCEPTABLE) for
every exercise the course grades with `attnlib.checks.check(name, fn)`, from `project` to `capstone`. It
measures how well the grader names mistakes it has never seen: each MISTAKE carries, in `what`, one
plain-English line naming the mistake as an ideal grader would.

How it was written: from the exercise notebooks (task texts and stub signatures), the lessons, the README
and attnlib's maths modules only, without reading the grader (attnlib/checks), its tests, the mutant
catalogue, the other blind sets or the solutions. Every function has the exact signature of its exercise's
stub; the capstone entries are dicts of ops keyed by the fourteen names TinyLM(ops=...) takes, in which
exactly one op is wrong and the others are right answers.

The learner habits it imitates: column-vector maths (W @ x, W2 @ W1), PyTorch habits (in-place `/=` and
`+=` on inputs and views, float32, `view`-style reshapes without a transpose, other libraries' defaults),
hurried off-by-ones in masks, loops and positions, wrong axes and missing keepdims, wrong scales (none,
1/d, sqrt(d), sqrt(d_model), sqrt(n_k)), two steps in the wrong order, dropped, doubled or sign-flipped
terms of backward passes, numpy integers and floats where an exact Python int is asked, overflow and
underflow on large but valid inputs, and a few compound mistakes (two slips at once, about a tenth).

Verification: every MISTAKE was run against a right answer (attnlib's public maths functions where one
exists, else a right answer written from the notebook's text) on random and edge-case inputs the exercise
allows (several sizes, n_q < n_k, causal on and off, huge values, ties, defaults omitted), and differs from
it on at least one of them (in value, shape, dtype or type, by raising, by modifying an input, or, for
tiled_attention, by exceeding the memory budget); every ACCEPTABLE entry agrees with it to about 1e-9
relative on all of them, modifies no input and stays within budget. For the capstone, each wrong op alone
was verified to differ from the right op. The verification script lives outside the repository.

Counts: 403 mistakes (about 50 of them compound) over all 41 exercise names, and 86 acceptable entries.
Imports numpy and math only (plus dataclasses and typing for the record type).
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


# ============================================================================================================
# shared correct helpers: right answers; each mistake below differs from them in one place (compounds in two)
# ============================================================================================================

GELU_C = math.sqrt(2.0 / math.pi)


def _project(x, W):
    return x @ W


def _compose(W1, W2):
    return W1 @ W2


def _project_rows(X, W):
    return X @ W


def _matmul_cost(n, d_in, d_out):
    return int(n) * int(d_in) * int(d_out)


def _values(tokens, table, Wv):
    X = np.array([table[w] for w in tokens], dtype=float)  # (n, d_model), repeats included, in order
    return X @ Wv


def _one_hot(ids, vocab_size):
    out = np.zeros((len(ids), vocab_size))
    out[np.arange(len(ids)), ids] = 1.0
    return out


def _uniform_causal_weights(n):
    return np.tril(np.ones((n, n))) / np.arange(1, n + 1)[:, None]


def _causal_average(V):
    return np.cumsum(V, axis=0) / np.arange(1, V.shape[0] + 1)[:, None]


def _similarity(Q, K):
    return Q @ K.T


def _learned_scores(X, Wq, Wk):
    return (X @ Wq) @ (X @ Wk).T


def _future(n_q, n_k):
    """Bool (n_q, n_k): True where key j comes after query i; the queries are the last n_q positions."""
    return np.triu(np.ones((n_q, n_k), dtype=bool), k=n_k - n_q + 1)


def _causal_mask(n):
    return np.where(_future(n, n), -np.inf, 0.0)


def _softmax(S, axis=-1):
    E = np.exp(S - np.max(S, axis=axis, keepdims=True))
    return E / np.sum(E, axis=axis, keepdims=True)


def _score_scale(d):
    return 1.0 / math.sqrt(d)


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


def _self_attention(X, Wq, Wk, Wv, Wo=None, causal=True):
    O = _attention(X @ Wq, X @ Wk, X @ Wv, causal)
    return O if Wo is None else O @ Wo


def _future_leak(attn, X):
    n = X.shape[0]
    base = np.asarray(attn(X), dtype=float).reshape(n, -1)
    tol = 1e-9 * max(1.0, float(np.abs(base).max()))
    worst = 0
    for j in range(1, n):
        moved = X.copy()
        moved[j] += 1.0
        change = np.abs(np.asarray(attn(moved), dtype=float).reshape(n, -1) - base).max(axis=1)  # (n,)
        for i in range(j):  # the smallest i that moves gives the largest distance j - i for this j
            if change[i] > tol:
                worst = max(worst, j - i)
                break
    return worst


def _tiled_core(Q, K, V, causal=True, block=64, *, scale=None, m0=-np.inf, rescale_acc=True, rescale_l=True,
                flip=False, anchor_top_left=False, diag_off=0, normalise_each_tile=False, drop_partial=False):
    """The online-softmax tiled attention. The keyword knobs (defaults = right) each switch on one slip."""
    n_q, n_k, d = Q.shape[0], K.shape[0], Q.shape[1]
    offset = 0 if anchor_top_left else n_k - n_q
    s = 1.0 / math.sqrt(d) if scale is None else scale
    O = np.zeros((n_q, V.shape[1]))
    stop = n_q - block + 1 if drop_partial else n_q
    for q0 in range(0, max(stop, 0), block):
        Qb = Q[q0:q0 + block] * s
        bq = Qb.shape[0]
        m = np.full((bq, 1), m0)
        l = np.zeros((bq, 1))
        acc = np.zeros((bq, V.shape[1]))
        k_end = min(n_k, offset + q0 + bq) if causal else n_k
        for k0 in range(0, k_end, block):
            S = Qb @ K[k0:k0 + block].T  # (bq, bk): one tile of scores
            if causal:
                qpos = offset + q0 + np.arange(bq)[:, None]
                kpos = k0 + np.arange(S.shape[1])[None, :]
                S = np.where(kpos > qpos - diag_off, -np.inf, S)
            m_new = np.maximum(m, S.max(axis=1, keepdims=True))
            P = np.exp(S - m_new)
            r = np.exp(m_new - m) if flip else np.exp(m - m_new)
            l = (l * r if rescale_l else l) + P.sum(axis=1, keepdims=True)
            acc = (acc * r if rescale_acc else acc) + P @ V[k0:k0 + block]
            if normalise_each_tile:
                acc = acc / l
            m = m_new
        O[q0:q0 + bq] = acc if normalise_each_tile else acc / l
    return O


def _tiled_attention(Q, K, V, causal=True, block=64):
    return _tiled_core(Q, K, V, causal, block)


def _embed(tokens, tok_emb, pos_emb):
    return tok_emb[tokens] + pos_emb[:len(tokens)]


def _sinusoidal_positions(n, d):
    t = np.arange(n)[:, None]  # (n, 1)
    freq = 1.0 / 10000 ** (2 * np.arange(d // 2) / d)  # (d/2,)
    P = np.zeros((n, d))
    P[:, 0::2] = np.sin(t * freq)
    P[:, 1::2] = np.cos(t * freq)
    return P


def _split_heads(M, n_heads):
    n, d_model = M.shape
    return M.reshape(n, n_heads, d_model // n_heads).transpose(1, 0, 2)


def _merge_heads(O):
    h, n, d_head = O.shape
    return O.transpose(1, 0, 2).reshape(n, h * d_head)


def _multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    Q, K, V = _split_heads(X @ Wq, n_heads), _split_heads(X @ Wk, n_heads), _split_heads(X @ Wv, n_heads)
    O = np.stack([_attention(Q[h], K[h], V[h], causal) for h in range(n_heads)])
    return _merge_heads(O) @ Wo


def _layer_norm(X, g, b, eps=1e-5):
    mu = X.mean(axis=-1, keepdims=True)
    var = ((X - mu) ** 2).mean(axis=-1, keepdims=True)
    return (X - mu) / np.sqrt(var + eps) * g + b


def _gelu(X):
    return 0.5 * X * (1.0 + np.tanh(GELU_C * (X + 0.044715 * X ** 3)))


def _mlp(H, p, act=_gelu):
    return act(H @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"]


def _transformer_block(X, p, n_heads, causal=True):
    Y = X + _multi_head_attention(_layer_norm(X, p["ln1_g"], p["ln1_b"]), p["Wq"], p["Wk"], p["Wv"], p["Wo"],
                                  n_heads, causal)
    return Y + _mlp(_layer_norm(Y, p["ln2_g"], p["ln2_b"]), p)


def _next_token_logits(H, W_vocab):
    return H[-1] @ W_vocab


def _log_softmax(Z):
    Z = Z - Z.max(axis=1, keepdims=True)
    return Z - np.log(np.exp(Z).sum(axis=1, keepdims=True))


def _cross_entropy(logits, targets):
    n = logits.shape[0]
    logp = _log_softmax(logits)
    loss = -logp[np.arange(n), targets].mean()
    dlogits = np.exp(logp)
    dlogits[np.arange(n), targets] -= 1.0
    return loss, dlogits / n


def _softmax_backward(A, dA):
    return A * (dA - np.sum(dA * A, axis=-1, keepdims=True))


def _attention_backward(Q, K, V, dO, causal=True, scale=True):
    s = 1.0 / math.sqrt(Q.shape[1]) if scale else 1.0
    A = _attention_weights(Q, K, causal, scale)  # (n_q, n_k)
    dV = A.T @ dO
    dS = _softmax_backward(A, dO @ V.T) * s
    return dS @ K, dS.T @ Q, dV


def _ln_stats(X, eps):
    mu = X.mean(axis=1, keepdims=True)
    rstd = 1.0 / np.sqrt(((X - mu) ** 2).mean(axis=1, keepdims=True) + eps)
    return (X - mu) * rstd, rstd  # Xhat (n, d), rstd (n, 1)


def _layer_norm_backward(X, g, dY, eps=1e-5):
    Xhat, rstd = _ln_stats(X, eps)
    dXhat = dY * g
    dX = rstd * (dXhat - dXhat.mean(axis=1, keepdims=True) - Xhat * (dXhat * Xhat).mean(axis=1, keepdims=True))
    return dX, (dY * Xhat).sum(axis=0), dY.sum(axis=0)


def _most_attended(A, tokens):
    return [tokens[int(j)] for j in np.argmax(A, axis=1)]


def _attention_entropy(A):
    logA = np.log(np.where(A > 0, A, 1.0))  # log 1 = 0 where A is 0: a zero weight contributes 0
    return -(A * logA).sum(axis=1)


def _padding_mask(n_q, n_valid, n_k):
    M = np.zeros((n_q, n_k))
    M[:, n_valid:] = -np.inf
    return M


def _cross_attention(X, Z, Wq, Wk, Wv):
    return _attention(X @ Wq, Z @ Wk, Z @ Wv, causal=False)


def _attend_step(q, K_cache, V_cache):
    w = _softmax(K_cache @ q / math.sqrt(q.shape[0]))  # (t,)
    return w @ V_cache


def _cache_step(q, k, v, K_cache, V_cache):
    K_new = np.concatenate([K_cache, k[None, :]], axis=0)
    V_new = np.concatenate([V_cache, v[None, :]], axis=0)
    return _attend_step(q, K_new, V_new), K_new, V_new


def _sample_next(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    z = (logits - np.max(logits)) / temperature
    p = np.exp(z)
    cdf = np.cumsum(p / p.sum())
    cdf = cdf / cdf[-1]
    return int(np.searchsorted(cdf, u, side="right"))


def _generate_core(p, prompt, n_new, cache_step, *, pos_shift=0, residual=True, use_attention=True,
                   keep_caches=True, swap_qk=False):
    """Greedy generation through a cache. The keyword knobs (defaults = right) each switch on one slip."""
    tok_emb, pos_emb, Wq, Wk, Wv, W_out = (p[k] for k in ("tok_emb", "pos_emb", "Wq", "Wk", "Wv", "W_out"))
    K, V = np.zeros((0, Wk.shape[1])), np.zeros((0, Wv.shape[1]))
    out = [int(t) for t in prompt]
    T = len(out)
    for i in range(T + n_new - 1):  # every token but the last new one is fed once
        x = tok_emb[out[i]] + pos_emb[i + pos_shift]
        q, k = (x @ Wk, x @ Wq) if swap_qk else (x @ Wq, x @ Wk)
        o, K_new, V_new = cache_step(q, k, x @ Wv, K, V)
        if keep_caches:
            K, V = K_new, V_new
        h = (x + o if residual else o) if use_attention else x
        logits = h @ W_out
        if i >= T - 1:
            out.append(int(np.argmax(logits)))
    return np.array(out, dtype=np.int64)


def _generate(p, prompt, n_new, cache_step):
    return _generate_core(p, prompt, n_new, cache_step)


def _kv_cache_bytes(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return 2 * n_layers * n_heads * d_head * seq_len * batch * bytes_per_value


def _max_cached_tokens(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    return int(memory_bytes) // (2 * n_layers * n_heads * d_head * batch * bytes_per_value)


# ============================================================================================================
# 01 project, compose
# ============================================================================================================

def _project_column_habit(x, W):
    return W @ x  # x' = Wx with column vectors


def _project_sum_wrong_axis(x, W):
    return (x[:, None] * W).sum(axis=1)


def _project_skips_first_input(x, W):
    out = np.zeros(W.shape[1])
    for i in range(1, len(x)):  # 1-based habit
        out += x[i] * W[i]
    return out


def _project_keeps_row_axis(x, W):
    return x[None, :] @ W  # (1, d_out)


def _project_output_like_x(x, W):
    out = np.zeros_like(x)  # length d_in, not d_out
    for j in range(min(W.shape[1], len(x))):
        out[j] = x @ W[:, j]
    return out


def _project_ok_transpose(x, W):
    return W.T @ x


def _project_ok_loop(x, W):
    return np.array([sum(x[i] * W[i, j] for i in range(W.shape[0])) for j in range(W.shape[1])], dtype=float)


def _project_ok_einsum(x, W):
    return np.einsum("i,ij->j", x, W)


def _compose_order_swapped(W1, W2):
    return W2 @ W1  # column-vector order


def _compose_transposed(W1, W2):
    return W2.T @ W1.T


def _compose_elementwise(W1, W2):
    return W1 * W2


def _compose_in_place(W1, W2):
    W1 @= W2  # overwrites W1 (only works when W2 is square)
    return W1


def _compose_ok_einsum(W1, W2):
    return np.einsum("ij,jk->ik", W1, W2)


def _compose_ok_basis(W1, W2):
    return np.stack([_project(_project(e, W1), W2) for e in np.eye(W1.shape[0])])


def _compose_ok_transpose_twice(W1, W2):
    return (W2.T @ W1.T).T


# ============================================================================================================
# 02 project_rows, matmul_cost
# ============================================================================================================

def _project_rows_transposed(X, W):
    return W.T @ X.T  # (d_out, n)


def _project_rows_loop_off_by_one(X, W):
    out = np.zeros((X.shape[0], W.shape[1]))
    for i in range(X.shape[0] - 1):
        out[i] = X[i] @ W
    return out


def _project_rows_zeros_like(X, W):
    out = np.zeros_like(X)
    for i in range(X.shape[0]):
        out[i] = X[i] @ W
    return out


def _project_rows_overwrites_X(X, W):
    for i in range(X.shape[0]):
        X[i] = X[i] @ W
    return X


def _project_rows_centres(X, W):
    return (X - X.mean(axis=0)) @ W


def _project_rows_float32(X, W):
    return (X.astype(np.float32) @ W.astype(np.float32)).astype(float)


def _project_rows_ok_loop(X, W):
    return np.stack([_project(x, W) for x in X])


def _project_rows_ok_einsum(X, W):
    return np.einsum("ni,io->no", X, W)


def _matmul_cost_flops(n, d_in, d_out):
    return 2 * n * d_in * d_out


def _matmul_cost_additions(n, d_in, d_out):
    return n * (d_in - 1) * d_out


def _matmul_cost_numpy_int(n, d_in, d_out):
    return np.prod([n, d_in, d_out])


def _matmul_cost_through_float(n, d_in, d_out):
    return int(float(n) * d_in * d_out)


def _matmul_cost_int32(n, d_in, d_out):
    return int(np.int32(n) * np.int32(d_in) * np.int32(d_out))


def _matmul_cost_n_for_d_in(n, d_in, d_out):
    return n * n * d_out


def _matmul_cost_dot_products(n, d_in, d_out):
    return n * d_out


def _matmul_cost_flops_numpy(n, d_in, d_out):
    return 2 * np.prod([n, d_in, d_out])


def _matmul_cost_ok_prod(n, d_in, d_out):
    return math.prod((n, d_in, d_out))


def _matmul_cost_ok_reordered(n, d_in, d_out):
    per_entry = d_in
    entries = n * d_out
    return entries * per_entry


# ============================================================================================================
# 03 values, one_hot
# ============================================================================================================

def _values_set(tokens, table, Wv):
    X = np.array([table[w] for w in set(tokens)])
    return X @ Wv


def _values_unique_in_order(tokens, table, Wv):
    X = np.array([table[w] for w in dict.fromkeys(tokens)])
    return X @ Wv


def _values_whole_table(tokens, table, Wv):
    X = np.array(list(table.values()))
    return X @ Wv


def _values_transposed(tokens, table, Wv):
    X = np.array([table[w] for w in tokens])
    return Wv.T @ X.T


def _values_sorted(tokens, table, Wv):
    X = np.array([table[w] for w in sorted(tokens)])
    return X @ Wv


def _values_drops_last(tokens, table, Wv):
    X = np.array([table[tokens[i]] for i in range(len(tokens) - 1)])
    return X @ Wv


def _values_ok_rowwise(tokens, table, Wv):
    return np.stack([np.asarray(table[w], dtype=float) @ Wv for w in tokens])


def _values_ok_one_hot(tokens, table, Wv):
    words = list(table)
    E = np.array([table[w] for w in words], dtype=float)  # (vocab, d_model)
    ids = np.array([words.index(w) for w in tokens])
    return (_one_hot(ids, len(words)) @ E) @ Wv


def _one_hot_int(ids, vocab_size):
    return np.eye(vocab_size, dtype=int)[ids]


def _one_hot_bool(ids, vocab_size):
    return np.eye(vocab_size, dtype=bool)[ids]


def _one_hot_width_from_data(ids, vocab_size):
    out = np.zeros((len(ids), ids.max() + 1))
    out[np.arange(len(ids)), ids] = 1.0
    return out


def _one_hot_transposed(ids, vocab_size):
    return np.eye(vocab_size)[:, ids]  # (vocab, n)


def _one_hot_sorts_ids(ids, vocab_size):
    ids.sort()
    return np.eye(vocab_size)[ids]


def _one_hot_one_based(ids, vocab_size):
    out = np.zeros((len(ids), vocab_size))
    out[np.arange(len(ids)), ids - 1] = 1.0
    return out


def _one_hot_ok_compare(ids, vocab_size):
    return (np.asarray(ids)[:, None] == np.arange(vocab_size)[None, :]).astype(float)


def _one_hot_ok_loop(ids, vocab_size):
    out = np.zeros((len(ids), vocab_size))
    for i, t in enumerate(ids):
        out[i, int(t)] = 1.0
    return out


def _one_hot_ok_eye(ids, vocab_size):
    return np.eye(vocab_size)[ids]


# ============================================================================================================
# 04 uniform_causal_weights, causal_average
# ============================================================================================================

def _ucw_divides_columns(n):
    return np.tril(np.ones((n, n))) / np.arange(1, n + 1)  # missing [:, None]


def _ucw_upper(n):
    return np.triu(np.ones((n, n))) / np.arange(1, n + 1)


def _ucw_by_n(n):
    return np.tril(np.ones((n, n))) / n


def _ucw_integer_division(n):
    return np.tril(np.ones((n, n), dtype=int)) // np.arange(1, n + 1)[:, None]


def _ucw_strict(n):
    A = np.tril(np.ones((n, n)), k=-1)
    return A / np.maximum(A.sum(axis=1, keepdims=True), 1)


def _ucw_counts_from_two(n):
    return np.tril(np.ones((n, n))) / np.arange(2, n + 2)[:, None]


def _ucw_ok_loop(n):
    A = np.zeros((n, n))
    for i in range(n):
        A[i, :i + 1] = 1.0 / (i + 1)
    return A


def _ucw_ok_softmax_of_mask(n):
    return _softmax(_causal_mask(n))


def _ucw_ok_rowsum(n):
    L = np.tril(np.ones((n, n)))
    return L / L.sum(axis=1, keepdims=True)


def _ca_cumsum_axis1(V):
    return np.cumsum(V, axis=1) / np.arange(1, V.shape[0] + 1)[:, None]


def _ca_divide_by_n(V):
    return np.cumsum(V, axis=0) / V.shape[0]


def _ca_counts_along_columns(V):
    return np.cumsum(V, axis=0) / np.arange(1, V.shape[0] + 1)


def _ca_full_mean(V):
    return np.tile(V.mean(axis=0), (V.shape[0], 1))


def _ca_excludes_self(V):
    out = np.zeros(V.shape)
    for i in range(V.shape[0]):
        out[i] = V[:i].mean(axis=0)  # rows 0..i-1
    return out


def _ca_in_place(V):
    np.cumsum(V, axis=0, out=V)
    V /= np.arange(1, V.shape[0] + 1)[:, None]
    return V


def _ca_ok_weights(V):
    return _uniform_causal_weights(V.shape[0]) @ V


def _ca_ok_loop(V):
    return np.stack([V[:i + 1].mean(axis=0) for i in range(V.shape[0])])


# ============================================================================================================
# 05 similarity, learned_scores
# ============================================================================================================

def _sim_transposed(Q, K):
    return K @ Q.T


def _sim_scaled(Q, K):
    return Q @ K.T / np.sqrt(Q.shape[1])


def _sim_rowwise(Q, K):
    return (Q * K).sum(axis=1)


def _sim_cosine(Q, K):
    Qn = Q / np.linalg.norm(Q, axis=1, keepdims=True)
    Kn = K / np.linalg.norm(K, axis=1, keepdims=True)
    return Qn @ Kn.T


def _sim_feature_outer(Q, K):
    return Q.T @ K


def _sim_ok_einsum(Q, K):
    return np.einsum("id,jd->ij", Q, K)


def _sim_ok_loop(Q, K):
    S = np.zeros((Q.shape[0], K.shape[0]))
    for i in range(Q.shape[0]):
        for j in range(K.shape[0]):
            S[i, j] = np.dot(Q[i], K[j])
    return S


def _sim_ok_transpose_back(Q, K):
    return (K @ Q.T).T


def _ls_queries_twice(X, Wq, Wk):
    Q = X @ Wq
    return Q @ Q.T


def _ls_transposed(X, Wq, Wk):
    return (X @ Wk) @ (X @ Wq).T


def _ls_scaled(X, Wq, Wk):
    return (X @ Wq) @ (X @ Wk).T / np.sqrt(Wq.shape[1])


def _ls_masked(X, Wq, Wk):
    return (X @ Wq) @ (X @ Wk).T + _causal_mask(X.shape[0])


def _ls_softmaxed(X, Wq, Wk):
    return _softmax((X @ Wq) @ (X @ Wk).T)


def _ls_ok_bilinear(X, Wq, Wk):
    return X @ (Wq @ Wk.T) @ X.T


def _ls_ok_similarity(X, Wq, Wk):
    return _similarity(X @ Wq, X @ Wk)


# ============================================================================================================
# 06 causal_mask, softmax, score_scale, attention_weights
# ============================================================================================================

def _cm_hides_diagonal(n):
    return np.triu(np.full((n, n), -np.inf), k=0)


def _cm_masks_past(n):
    return np.tril(np.full((n, n), -np.inf), k=-1)


def _cm_large_negative(n):
    return np.triu(np.full((n, n), -1e9), k=1)


def _cm_multiplicative(n):
    return np.tril(np.ones((n, n)))


def _cm_nan_below(n):
    return -np.inf * np.triu(np.ones((n, n)), k=1)  # 0 * -inf = nan on and below the diagonal


def _cm_leaks_one(n):
    return np.triu(np.full((n, n), -np.inf), k=2)


def _cm_bool(n):
    return np.triu(np.ones((n, n), dtype=bool), k=1)


def _cm_diag_and_large_negative(n):
    return np.triu(np.full((n, n), -1e9), k=0)


def _cm_ok_where(n):
    i, j = np.indices((n, n))
    return np.where(j > i, -np.inf, 0.0)


def _cm_ok_loop(n):
    M = np.zeros((n, n))
    for i in range(n):
        for j in range(i + 1, n):
            M[i, j] = -np.inf
    return M


def _sm_no_max(S, axis=-1):
    E = np.exp(S)
    return E / E.sum(axis=axis, keepdims=True)


def _sm_max_axis0(S, axis=-1):
    E = np.exp(S - S.max(axis=0, keepdims=True))
    return E / E.sum(axis=axis, keepdims=True)


def _sm_sum_no_keepdims(S, axis=-1):
    E = np.exp(S - S.max(axis=axis, keepdims=True))
    return E / E.sum(axis=axis)


def _sm_ignores_axis(S, axis=-1):
    E = np.exp(S - S.max(axis=-1, keepdims=True))
    return E / E.sum(axis=-1, keepdims=True)


def _sm_default_axis0(S, axis=0):
    E = np.exp(S - S.max(axis=axis, keepdims=True))
    return E / E.sum(axis=axis, keepdims=True)


def _sm_global_max(S, axis=-1):
    E = np.exp(S - S.max())
    return E / E.sum(axis=axis, keepdims=True)


def _sm_in_place(S, axis=-1):
    S -= S.max(axis=axis, keepdims=True)
    np.exp(S, out=S)
    S /= S.sum(axis=axis, keepdims=True)
    return S


def _sm_inf_to_zero(S, axis=-1):
    S = np.where(np.isinf(S), 0.0, S)
    E = np.exp(S - S.max(axis=axis, keepdims=True))
    return E / E.sum(axis=axis, keepdims=True)


def _sm_unshifted_denominator(S, axis=-1):
    return np.exp(S - S.max(axis=axis, keepdims=True)) / np.exp(S).sum(axis=axis, keepdims=True)


def _sm_log_softmax(S, axis=-1):
    Z = S - S.max(axis=axis, keepdims=True)
    return Z - np.log(np.exp(Z).sum(axis=axis, keepdims=True))


def _sm_no_max_no_keepdims(S, axis=-1):
    E = np.exp(S)
    return E / E.sum(axis=axis)


def _sm_ok_logsumexp(S, axis=-1):
    m = np.max(S, axis=axis, keepdims=True)
    lse = m + np.log(np.sum(np.exp(S - m), axis=axis, keepdims=True))
    return np.exp(S - lse)


def _sm_ok_moveaxis(S, axis=-1):
    T = np.moveaxis(np.asarray(S, dtype=np.float64), axis, -1)
    flat = T.reshape(-1, T.shape[-1])
    out = np.empty(flat.shape)
    for r in range(flat.shape[0]):
        e = np.exp(flat[r] - flat[r].max())
        out[r] = e / e.sum()
    return np.moveaxis(out.reshape(T.shape), -1, axis)


def _sm_ok_apply_along_axis(S, axis=-1):
    def one(row):
        e = np.exp(row - row.max())
        return e / e.sum()
    return np.apply_along_axis(one, axis, S)


def _ss_one_over_d(d):
    return 1.0 / d


def _ss_sqrt_d(d):
    return math.sqrt(d)


def _ss_precedence(d):
    return 1 / d ** 1 / 2  # meant 1 / d ** (1/2)


def _ss_unbiased(d):
    return 1.0 / math.sqrt(d - 1)


def _ss_floor_division(d):
    return 1 // math.sqrt(d)


def _ss_float32(d):
    return np.float32(1.0 / np.sqrt(d))



def _ss_ok_power(d):
    return d ** -0.5


def _ss_ok_sqrt_of_inverse(d):
    return math.sqrt(1.0 / d)


def _ss_ok_numpy(d):
    return float(1.0 / np.sqrt(d))


def _aw_square_mask(Q, K, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / math.sqrt(Q.shape[1])
    if causal:
        S = np.where(np.triu(np.ones(S.shape, dtype=bool), k=1), -np.inf, S)  # anchored at the top-left
    return _softmax(S)


def _aw_mask_after_softmax(Q, K, causal=True, scale=True):
    A = _attention_weights(Q, K, False, scale)
    if causal:
        A = A * ~_future(Q.shape[0], K.shape[0])  # zeroes the future but does not renormalise
    return A


def _aw_scale_by_d(Q, K, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / Q.shape[1]
    if causal:
        S = np.where(_future(Q.shape[0], K.shape[0]), -np.inf, S)
    return _softmax(S)


def _aw_always_scaled(Q, K, causal=True, scale=True):
    return _attention_weights(Q, K, causal, True)


def _aw_scale_by_n_k(Q, K, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / math.sqrt(K.shape[0])
    if causal:
        S = np.where(_future(Q.shape[0], K.shape[0]), -np.inf, S)
    return _softmax(S)


def _aw_softmax_axis0(Q, K, causal=True, scale=True):
    return _softmax(_scores(Q, K, causal, scale), axis=0)


def _aw_hides_diagonal(Q, K, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / math.sqrt(Q.shape[1])
    if causal:
        S = np.where(np.triu(np.ones(S.shape, dtype=bool), k=K.shape[0] - Q.shape[0]), -np.inf, S)
    return _softmax(S)


def _aw_multiplies_sqrt(Q, K, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S * math.sqrt(Q.shape[1])
    if causal:
        S = np.where(_future(Q.shape[0], K.shape[0]), -np.inf, S)
    return _softmax(S)


def _aw_always_masked(Q, K, causal=True, scale=True):
    return _attention_weights(Q, K, True, scale)


def _aw_diag_no_scale(Q, K, causal=True, scale=True):
    S = Q @ K.T
    if causal:
        S = np.where(np.triu(np.ones(S.shape, dtype=bool), k=K.shape[0] - Q.shape[0]), -np.inf, S)
    return _softmax(S)


def _aw_ok_loop(Q, K, causal=True, scale=True):
    n_q, n_k = Q.shape[0], K.shape[0]
    A = np.zeros((n_q, n_k))
    s = 1.0 / math.sqrt(Q.shape[1]) if scale else 1.0
    for i in range(n_q):
        last = n_k - n_q + i if causal else n_k - 1
        row = np.array([Q[i] @ K[j] * s for j in range(last + 1)])
        e = np.exp(row - row.max())
        A[i, :last + 1] = e / e.sum()
    return A


def _aw_ok_scale_queries(Q, K, causal=True, scale=True):
    Qs = Q / np.sqrt(Q.shape[1]) if scale else Q
    S = Qs @ K.T
    if causal:
        S[_future(Q.shape[0], K.shape[0])] = -np.inf
    return _softmax(S)


# ============================================================================================================
# 07 attention, self_attention, future_leak, tiled_attention
# ============================================================================================================

def _att_masked_scores(S, Q, K, causal):
    return np.where(_future(Q.shape[0], K.shape[0]), -np.inf, S) if causal else S


def _att_no_scale(Q, K, V, causal=True, scale=True):
    return _softmax(_att_masked_scores(Q @ K.T, Q, K, causal)) @ V


def _att_scale_by_d(Q, K, V, causal=True, scale=True):
    S = Q @ K.T / (Q.shape[1] if scale else 1.0)
    return _softmax(_att_masked_scores(S, Q, K, causal)) @ V


def _att_softmax_axis0(Q, K, V, causal=True, scale=True):
    return _softmax(_scores(Q, K, causal, scale), axis=0) @ V


def _att_weights_transposed(Q, K, V, causal=True, scale=True):
    return _attention_weights(Q, K, causal, scale).T @ V


def _att_hides_diagonal(Q, K, V, causal=True, scale=True):
    S = Q @ K.T / (math.sqrt(Q.shape[1]) if scale else 1.0)
    if causal:
        S = np.where(np.triu(np.ones(S.shape, dtype=bool), k=K.shape[0] - Q.shape[0]), -np.inf, S)
    return _softmax(S) @ V


def _att_leaks_one(Q, K, V, causal=True, scale=True):
    S = Q @ K.T / (math.sqrt(Q.shape[1]) if scale else 1.0)
    if causal:
        S = np.where(np.triu(np.ones(S.shape, dtype=bool), k=K.shape[0] - Q.shape[0] + 2), -np.inf, S)
    return _softmax(S) @ V


def _att_square_mask(Q, K, V, causal=True, scale=True):
    S = Q @ K.T / (math.sqrt(Q.shape[1]) if scale else 1.0)
    if causal:
        S = np.where(np.triu(np.ones(S.shape, dtype=bool), k=1), -np.inf, S)  # anchored at the top-left
    return _softmax(S) @ V


def _att_always_causal(Q, K, V, causal=True, scale=True):
    return _attention(Q, K, V, True, scale)


def _att_always_scaled(Q, K, V, causal=True, scale=True):
    return _attention(Q, K, V, causal, True)


def _att_no_max(Q, K, V, causal=True, scale=True):
    E = np.exp(_scores(Q, K, causal, scale))
    return E / E.sum(axis=1, keepdims=True) @ V


def _att_mask_after_softmax(Q, K, V, causal=True, scale=True):
    A = _attention_weights(Q, K, False, scale)
    if causal:
        A = A * ~_future(Q.shape[0], K.shape[0])  # no renormalisation
    return A @ V


def _att_mask_after_softmax_renormalised(Q, K, V, causal=True, scale=True):
    A = _attention_weights(Q, K, False, scale)
    if causal:
        A = A * ~_future(Q.shape[0], K.shape[0])
        A = A / A.sum(axis=1, keepdims=True)  # 0/0 when a future score dominates the row
    return A @ V


def _att_scale_by_d_v(Q, K, V, causal=True, scale=True):
    S = Q @ K.T / (math.sqrt(V.shape[1]) if scale else 1.0)
    return _softmax(_att_masked_scores(S, Q, K, causal)) @ V


def _att_scales_output(Q, K, V, causal=True, scale=True):
    O = _attention(Q, K, V, causal, False)
    return O / math.sqrt(Q.shape[1]) if scale else O


def _att_float32(Q, K, V, causal=True, scale=True):
    Q32, K32, V32 = Q.astype(np.float32), K.astype(np.float32), V.astype(np.float32)
    S = Q32 @ K32.T / (np.float32(math.sqrt(Q.shape[1])) if scale else np.float32(1))
    return (_softmax(_att_masked_scores(S, Q, K, causal)) @ V32).astype(np.float64)


def _att_keys_as_values(Q, K, V, causal=True, scale=True):
    return _attention_weights(Q, K, causal, scale) @ K


def _att_scales_Q_in_place(Q, K, V, causal=True, scale=True):
    if scale:
        Q /= math.sqrt(Q.shape[1])  # PyTorch habit: q *= scale, on the caller's array
    return _softmax(_att_masked_scores(Q @ K.T, Q, K, causal)) @ V


def _att_multiplicative_mask(Q, K, V, causal=True, scale=True):
    S = _scores(Q, K, False, scale)
    if causal:
        S = S * ~_future(Q.shape[0], K.shape[0])  # future scores become 0, not -inf
    return _softmax(S) @ V


def _att_no_scale_axis0(Q, K, V, causal=True, scale=True):
    return _softmax(_att_masked_scores(Q @ K.T, Q, K, causal), axis=0) @ V


def _att_square_mask_scale_d(Q, K, V, causal=True, scale=True):
    S = Q @ K.T / (Q.shape[1] if scale else 1.0)
    if causal:
        S = np.where(np.triu(np.ones(S.shape, dtype=bool), k=1), -np.inf, S)
    return _softmax(S) @ V


def _att_leak_no_max(Q, K, V, causal=True, scale=True):
    S = Q @ K.T / (math.sqrt(Q.shape[1]) if scale else 1.0)
    if causal:
        S = np.where(np.triu(np.ones(S.shape, dtype=bool), k=K.shape[0] - Q.shape[0] + 2), -np.inf, S)
    E = np.exp(S)
    return E / E.sum(axis=1, keepdims=True) @ V


def _att_ok_mask_then_scale(Q, K, V, causal=True, scale=True):
    S = Q @ K.T
    if causal:
        S = np.where(_future(Q.shape[0], K.shape[0]), -np.inf, S)
    if scale:
        S = S / np.sqrt(Q.shape[1])
    return _softmax(S) @ V


def _att_ok_loop(Q, K, V, causal=True, scale=True):
    n_q, n_k = Q.shape[0], K.shape[0]
    s = 1.0 / math.sqrt(Q.shape[1]) if scale else 1.0
    O = np.zeros((n_q, V.shape[1]))
    for i in range(n_q):
        last = n_k - n_q + i if causal else n_k - 1
        sc = K[:last + 1] @ Q[i] * s
        w = np.exp(sc - sc.max())
        O[i] = (w / w.sum()) @ V[:last + 1]
    return O


def _att_ok_einsum(Q, K, V, causal=True, scale=True):
    S = np.einsum("qd,kd->qk", Q, K) * (1.0 / math.sqrt(Q.shape[1]) if scale else 1.0)
    if causal:
        S = S + np.where(_future(Q.shape[0], K.shape[0]), -np.inf, 0.0)
    A = np.exp(S - S.max(axis=-1, keepdims=True))
    return np.einsum("qk,kv->qv", A / A.sum(axis=-1, keepdims=True), V)


def _att_ok_divide_after(Q, K, V, causal=True, scale=True):
    E = np.exp(_scores(Q, K, causal, scale) - _scores(Q, K, causal, scale).max(axis=1, keepdims=True))
    return (E @ V) / E.sum(axis=1, keepdims=True)  # divide O, not A


def _sa_ignores_Wo(X, Wq, Wk, Wv, Wo=None, causal=True):
    return _attention(X @ Wq, X @ Wk, X @ Wv, causal)


def _sa_truthy_Wo(X, Wq, Wk, Wv, Wo=None, causal=True):
    O = _attention(X @ Wq, X @ Wk, X @ Wv, causal)
    if Wo:  # the truth value of an array is ambiguous
        O = O @ Wo
    return O


def _sa_no_scale(X, Wq, Wk, Wv, Wo=None, causal=True):
    O = _attention(X @ Wq, X @ Wk, X @ Wv, causal, scale=False)
    return O if Wo is None else O @ Wo


def _sa_scale_d_model(X, Wq, Wk, Wv, Wo=None, causal=True):
    Q, K = X @ Wq, X @ Wk
    S = _att_masked_scores(Q @ K.T / math.sqrt(X.shape[1]), Q, K, causal)
    O = _softmax(S) @ (X @ Wv)
    return O if Wo is None else O @ Wo


def _sa_q_k_swapped(X, Wq, Wk, Wv, Wo=None, causal=True):
    O = _attention(X @ Wk, X @ Wq, X @ Wv, causal)
    return O if Wo is None else O @ Wo


def _sa_always_causal(X, Wq, Wk, Wv, Wo=None, causal=True):
    O = _attention(X @ Wq, X @ Wk, X @ Wv, True)
    return O if Wo is None else O @ Wo


def _sa_Wo_transposed(X, Wq, Wk, Wv, Wo=None, causal=True):
    O = _attention(X @ Wq, X @ Wk, X @ Wv, causal)
    return O if Wo is None else O @ Wo.T


def _sa_default_not_causal(X, Wq, Wk, Wv, Wo=None, causal=False):
    O = _attention(X @ Wq, X @ Wk, X @ Wv, causal)
    return O if Wo is None else O @ Wo


def _sa_swapped_and_no_Wo(X, Wq, Wk, Wv, Wo=None, causal=True):
    return _attention(X @ Wk, X @ Wq, X @ Wv, causal)


def _sa_ok_Wo_into_values(X, Wq, Wk, Wv, Wo=None, causal=True):
    V = X @ Wv if Wo is None else X @ (Wv @ Wo)
    return _attention(X @ Wq, X @ Wk, V, causal)


def _sa_ok_own_attention(X, Wq, Wk, Wv, Wo=None, causal=True):
    O = _att_ok_loop(X @ Wq, X @ Wk, X @ Wv, causal)
    if Wo is not None:
        O = O @ Wo
    return O


def _fl_counts_rows(attn, X):
    n = X.shape[0]
    base = np.asarray(attn(X), dtype=float).reshape(n, -1)
    tol = 1e-9 * max(1.0, float(np.abs(base).max()))
    leaking = set()
    for j in range(1, n):
        moved = X.copy()
        moved[j] += 1.0
        change = np.abs(np.asarray(attn(moved), dtype=float).reshape(n, -1) - base).max(axis=1)
        leaking |= {i for i in range(j) if change[i] > tol}
    return len(leaking)  # how many rows leak, not how far


def _fl_first_found(attn, X):
    n = X.shape[0]
    base = np.asarray(attn(X), dtype=float).reshape(n, -1)
    tol = 1e-9 * max(1.0, float(np.abs(base).max()))
    for k in range(1, n):  # returns the smallest distance that leaks
        for i in range(n - k):
            moved = X.copy()
            moved[i + k] += 1.0
            if np.abs(np.asarray(attn(moved), dtype=float).reshape(n, -1)[i] - base[i]).max() > tol:
                return k
    return 0


def _fl_absolute_threshold(attn, X):
    n = X.shape[0]
    base = np.asarray(attn(X), dtype=float).reshape(n, -1)
    worst = 0
    for j in range(1, n):
        moved = X.copy()
        moved[j] += 1.0
        change = np.abs(np.asarray(attn(moved), dtype=float).reshape(n, -1) - base).max(axis=1)
        for i in range(j):
            if change[i] > 1e-9:  # not scaled by the size of the outputs
                worst = max(worst, j - i)
                break
    return worst


def _fl_allclose(attn, X):
    n = X.shape[0]
    base = np.asarray(attn(X), dtype=float).reshape(n, -1)
    worst = 0
    for j in range(1, n):
        moved = X.copy()
        moved[j] += 1.0
        out = np.asarray(attn(moved), dtype=float).reshape(n, -1)
        for i in range(j):
            if not np.allclose(out[i], base[i]):  # rtol 1e-5, atol 1e-8: misses a small leak
                worst = max(worst, j - i)
                break
    return worst


def _fl_moves_X_in_place(attn, X):
    n = X.shape[0]
    base = np.asarray(attn(X), dtype=float).reshape(n, -1)
    tol = 1e-9 * max(1.0, float(np.abs(base).max()))
    worst = 0
    for j in range(1, n):
        moved = X  # no copy: every move stays in X
        moved[j] += 1.0
        change = np.abs(np.asarray(attn(moved), dtype=float).reshape(n, -1) - base).max(axis=1)
        for i in range(j):
            if change[i] > tol:
                worst = max(worst, j - i)
                break
    return worst


def _fl_misses_last_row(attn, X):
    n = X.shape[0]
    base = np.asarray(attn(X), dtype=float).reshape(n, -1)
    tol = 1e-9 * max(1.0, float(np.abs(base).max()))
    worst = 0
    for j in range(1, n - 1):  # never moves the last row
        moved = X.copy()
        moved[j] += 1.0
        change = np.abs(np.asarray(attn(moved), dtype=float).reshape(n, -1) - base).max(axis=1)
        for i in range(j):
            if change[i] > tol:
                worst = max(worst, j - i)
                break
    return worst


def _fl_plus_one(attn, X):
    n = X.shape[0]
    base = np.asarray(attn(X), dtype=float).reshape(n, -1)
    tol = 1e-9 * max(1.0, float(np.abs(base).max()))
    worst = 0
    for j in range(1, n):
        moved = X.copy()
        moved[j] += 1.0
        change = np.abs(np.asarray(attn(moved), dtype=float).reshape(n, -1) - base).max(axis=1)
        for i in range(j):
            if change[i] > tol:
                worst = max(worst, j - i + 1)  # counts the row itself
                break
    return worst


def _fl_neighbours_only(attn, X):
    n = X.shape[0]
    base = np.asarray(attn(X), dtype=float).reshape(n, -1)
    tol = 1e-9 * max(1.0, float(np.abs(base).max()))
    for i in range(n - 1):
        moved = X.copy()
        moved[i + 1] += 1.0
        if np.abs(np.asarray(attn(moved), dtype=float).reshape(n, -1)[i] - base[i]).max() > tol:
            return 1
    return 0


def _fl_returns_bool(attn, X):
    return _future_leak(attn, X) > 0


def _fl_ok_from_far(attn, X):
    n = X.shape[0]
    base = np.asarray(attn(X), dtype=float).reshape(n, -1)
    tol = 1e-9 * max(1.0, float(np.abs(base).max()))
    outs = []
    for j in range(n):
        moved = np.array(X, dtype=float, copy=True)
        moved[j] = moved[j] + 1.0
        outs.append(np.asarray(attn(moved), dtype=float).reshape(n, -1))
    for k in range(n - 1, 0, -1):  # the largest distance first
        if any(np.abs(outs[i + k][i] - base[i]).max() > tol for i in range(n - k)):
            return k
    return 0


def _ta_no_acc_rescale(Q, K, V, causal=True, block=64):
    return _tiled_core(Q, K, V, causal, block, rescale_acc=False)


def _ta_no_l_rescale(Q, K, V, causal=True, block=64):
    return _tiled_core(Q, K, V, causal, block, rescale_l=False)


def _ta_rescale_flipped(Q, K, V, causal=True, block=64):
    return _tiled_core(Q, K, V, causal, block, flip=True)


def _ta_top_left_mask(Q, K, V, causal=True, block=64):
    return _tiled_core(Q, K, V, causal, block, anchor_top_left=True)


def _ta_normalise_each_tile(Q, K, V, causal=True, block=64):
    return _tiled_core(Q, K, V, causal, block, normalise_each_tile=True)


def _ta_no_scale(Q, K, V, causal=True, block=64):
    return _tiled_core(Q, K, V, causal, block, scale=1.0)


def _ta_scale_by_d(Q, K, V, causal=True, block=64):
    return _tiled_core(Q, K, V, causal, block, scale=1.0 / Q.shape[1])


def _ta_max_starts_at_zero(Q, K, V, causal=True, block=64):
    return _tiled_core(Q, K, V, causal, block, m0=0.0)


def _ta_drops_partial_block(Q, K, V, causal=True, block=64):
    return _tiled_core(Q, K, V, causal, block, drop_partial=True)


def _ta_hides_diagonal(Q, K, V, causal=True, block=64):
    return _tiled_core(Q, K, V, causal, block, diag_off=1)


def _ta_no_scale_no_acc_rescale(Q, K, V, causal=True, block=64):
    return _tiled_core(Q, K, V, causal, block, scale=1.0, rescale_acc=False)


def _ta_strip_of_scores(Q, K, V, causal=True, block=64):
    n_q, n_k = Q.shape[0], K.shape[0]
    O = np.zeros((n_q, V.shape[1]))
    for q0 in range(0, n_q, block):  # queries in blocks, but each against every key at once
        Qb = Q[q0:q0 + block]
        S = Qb @ K.T / math.sqrt(Q.shape[1])  # (bq, n_k): a whole strip
        if causal:
            qpos = n_k - n_q + q0 + np.arange(Qb.shape[0])[:, None]
            S = np.where(np.arange(n_k)[None, :] > qpos, -np.inf, S)
        O[q0:q0 + block] = _softmax(S) @ V
    return O


def _ta_whole_matrix(Q, K, V, causal=True, block=64):
    return _attention(Q, K, V, causal)


def _ta_ok_per_tile_loop(Q, K, V, causal=True, block=64):
    n_q, n_k = Q.shape[0], K.shape[0]
    s = 1.0 / math.sqrt(Q.shape[1])
    O = np.empty((n_q, V.shape[1]))
    for q0 in range(0, n_q, block):
        q1 = min(q0 + block, n_q)
        pos = np.arange(n_k - n_q + q0, n_k - n_q + q1)  # positions of these queries
        m = np.full(q1 - q0, -np.inf)
        l = np.zeros(q1 - q0)
        acc = np.zeros((q1 - q0, V.shape[1]))
        for k0 in range(0, n_k, block):
            k1 = min(k0 + block, n_k)
            if causal and k0 > pos[-1]:
                break
            S = (Q[q0:q1] @ K[k0:k1].T) * s
            if causal:
                S[np.arange(k0, k1)[None, :] > pos[:, None]] = -np.inf
            m_new = np.maximum(m, S.max(axis=1))
            alpha = np.exp(m - m_new)
            P = np.exp(S - m_new[:, None])
            l = alpha * l + P.sum(axis=1)
            acc = alpha[:, None] * acc + P @ V[k0:k1]
            m = m_new
        O[q0:q1] = acc / l[:, None]
    return O


# ============================================================================================================
# 08 embed, sinusoidal_positions
# ============================================================================================================

def _em_positions_by_token(tokens, tok_emb, pos_emb):
    return tok_emb[tokens] + pos_emb[tokens]


def _em_last_positions(tokens, tok_emb, pos_emb):
    return tok_emb[tokens] + pos_emb[-len(tokens):]


def _em_positions_from_one(tokens, tok_emb, pos_emb):
    return tok_emb[tokens] + pos_emb[1:len(tokens) + 1]


def _em_ignores_tokens(tokens, tok_emb, pos_emb):
    n = len(tokens)
    return tok_emb[:n] + pos_emb[:n]


def _em_concatenates(tokens, tok_emb, pos_emb):
    return np.concatenate([tok_emb[tokens], pos_emb[:len(tokens)]], axis=1)


def _em_adds_into_pos_emb(tokens, tok_emb, pos_emb):
    X = pos_emb[:len(tokens)]  # a view of pos_emb
    X += tok_emb[tokens]
    return X


def _em_whole_pos_table(tokens, tok_emb, pos_emb):
    return tok_emb[tokens] + pos_emb


def _em_ok_one_hot(tokens, tok_emb, pos_emb):
    return _one_hot(np.asarray(tokens), tok_emb.shape[0]) @ tok_emb + pos_emb[:len(tokens)]


def _em_ok_loop(tokens, tok_emb, pos_emb):
    return np.stack([tok_emb[int(t)] + pos_emb[i] for i, t in enumerate(tokens)])


def _sp_pair_index_over_d(n, d):
    t = np.arange(n)[:, None]
    freq = 1.0 / 10000 ** (np.arange(d // 2) / d)  # i/d, not 2i/d
    P = np.zeros((n, d))
    P[:, 0::2], P[:, 1::2] = np.sin(t * freq), np.cos(t * freq)
    return P


def _sp_sin_cos_swapped(n, d):
    t = np.arange(n)[:, None]
    freq = 1.0 / 10000 ** (2 * np.arange(d // 2) / d)
    P = np.zeros((n, d))
    P[:, 0::2], P[:, 1::2] = np.cos(t * freq), np.sin(t * freq)
    return P


def _sp_halves(n, d):
    t = np.arange(n)[:, None]
    freq = 1.0 / 10000 ** (2 * np.arange(d // 2) / d)
    return np.concatenate([np.sin(t * freq), np.cos(t * freq)], axis=1)  # sines then cosines


def _sp_column_index_exponent(n, d):
    t = np.arange(n)[:, None]
    angle = t / 10000 ** (np.arange(d) / d)  # each column its own frequency
    P = np.zeros((n, d))
    P[:, 0::2], P[:, 1::2] = np.sin(angle[:, 0::2]), np.cos(angle[:, 1::2])
    return P


def _sp_positions_from_one(n, d):
    t = np.arange(1, n + 1)[:, None]
    freq = 1.0 / 10000 ** (2 * np.arange(d // 2) / d)
    P = np.zeros((n, d))
    P[:, 0::2], P[:, 1::2] = np.sin(t * freq), np.cos(t * freq)
    return P


def _sp_multiplies(n, d):
    t = np.arange(n)[:, None]
    P = np.zeros((n, d))
    angle = t * 10000 ** (2 * np.arange(d // 2) / d)
    P[:, 0::2], P[:, 1::2] = np.sin(angle), np.cos(angle)
    return P


def _sp_transposed(n, d):
    return _sinusoidal_positions(n, d).T


def _sp_swapped_and_pair_over_d(n, d):
    t = np.arange(n)[:, None]
    freq = 1.0 / 10000 ** (np.arange(d // 2) / d)
    P = np.zeros((n, d))
    P[:, 0::2], P[:, 1::2] = np.cos(t * freq), np.sin(t * freq)
    return P


def _sp_ok_loop(n, d):
    P = np.zeros((n, d))
    for t in range(n):
        for i in range(d // 2):
            a = t / 10000 ** (2 * i / d)
            P[t, 2 * i], P[t, 2 * i + 1] = math.sin(a), math.cos(a)
    return P


def _sp_ok_exp_log(n, d):
    t = np.arange(n, dtype=float)[:, None]
    freq = np.exp(-(2 * np.arange(d // 2) / d) * math.log(10000.0))
    ang = t * freq
    return np.stack([np.sin(ang), np.cos(ang)], axis=-1).reshape(n, d)


# ============================================================================================================
# 09 split_heads, multi_head_attention
# ============================================================================================================

def _sh_reshape_only(M, n_heads):
    n, d_model = M.shape
    return M.reshape(n_heads, n, d_model // n_heads)


def _sh_interleaved(M, n_heads):
    n, d_model = M.shape
    return M.reshape(n, d_model // n_heads, n_heads).transpose(2, 0, 1)


def _sh_no_transpose(M, n_heads):
    n, d_model = M.shape
    return M.reshape(n, n_heads, d_model // n_heads)


def _sh_sets_shape_in_place(M, n_heads):
    n, d_model = M.shape
    M.shape = (n, n_heads, d_model // n_heads)  # reshapes the caller's array
    return M.transpose(1, 0, 2)


def _sh_assumes_two_heads(M, n_heads):
    n, d_model = M.shape
    d_head = d_model // 2
    return np.stack([M[:, h * d_head:(h + 1) * d_head] for h in range(n_heads)])


def _sh_last_head_missing(M, n_heads):
    d_head = M.shape[1] // n_heads
    return np.stack([M[:, h * d_head:(h + 1) * d_head] for h in range(max(n_heads - 1, 1))])


def _sh_ok_stack(M, n_heads):
    d_head = M.shape[1] // n_heads
    return np.stack([M[:, h * d_head:(h + 1) * d_head] for h in range(n_heads)])


def _sh_ok_split(M, n_heads):
    return np.array(np.split(M, n_heads, axis=1))


def _sh_ok_swapaxes_copy(M, n_heads):
    return np.swapaxes(M.reshape(M.shape[0], n_heads, -1), 0, 1).copy()


def _mha_heads_from(X, Wq, Wk, Wv, n_heads, split):
    return split(X @ Wq, n_heads), split(X @ Wk, n_heads), split(X @ Wv, n_heads)


def _mha_interleaved(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    Q, K, V = _mha_heads_from(X, Wq, Wk, Wv, n_heads, _sh_interleaved)
    return _merge_heads(np.stack([_attention(Q[h], K[h], V[h], causal) for h in range(n_heads)])) @ Wo


def _mha_scale_d_model(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    Q, K, V = _mha_heads_from(X, Wq, Wk, Wv, n_heads, _split_heads)
    heads = []
    for h in range(n_heads):
        S = Q[h] @ K[h].T / math.sqrt(Wq.shape[1])  # the full width, not d_head
        heads.append(_softmax(_att_masked_scores(S, Q[h], K[h], causal)) @ V[h])
    return _merge_heads(np.stack(heads)) @ Wo


def _mha_no_scale(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    Q, K, V = _mha_heads_from(X, Wq, Wk, Wv, n_heads, _split_heads)
    return _merge_heads(np.stack([_attention(Q[h], K[h], V[h], causal, False) for h in range(n_heads)])) @ Wo


def _mha_forgets_Wo(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    Q, K, V = _mha_heads_from(X, Wq, Wk, Wv, n_heads, _split_heads)
    return _merge_heads(np.stack([_attention(Q[h], K[h], V[h], causal) for h in range(n_heads)]))


def _mha_reversed_concat(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    Q, K, V = _mha_heads_from(X, Wq, Wk, Wv, n_heads, _split_heads)
    heads = [_attention(Q[h], K[h], V[h], causal) for h in range(n_heads)]
    return np.concatenate(heads[::-1], axis=1) @ Wo


def _mha_first_head_every_time(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    d_head = Wq.shape[1] // n_heads
    heads = []
    for h in range(n_heads):
        sl = slice(0, d_head)  # should be h * d_head:(h + 1) * d_head
        heads.append(_attention(Q[:, sl], K[:, sl], V[:, sl], causal))
    return np.concatenate(heads, axis=1) @ Wo


def _mha_split_by_reshape(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    Q, K, V = _mha_heads_from(X, Wq, Wk, Wv, n_heads, _sh_reshape_only)
    O = np.stack([_attention(Q[h], K[h], V[h], causal) for h in range(n_heads)])  # (h, n, d_head)
    return O.reshape(X.shape[0], -1) @ Wo  # and merged back by the inverse reshape


def _mha_merge_without_transpose(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    Q, K, V = _mha_heads_from(X, Wq, Wk, Wv, n_heads, _split_heads)
    O = np.stack([_attention(Q[h], K[h], V[h], causal) for h in range(n_heads)])  # (h, n, d_head)
    return O.reshape(X.shape[0], -1) @ Wo  # rows of different heads end up side by side


def _mha_d_head_from_d_model(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    d_head = X.shape[1] // n_heads  # d_model, not the projections' width
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    heads = [_attention(Q[:, h * d_head:(h + 1) * d_head], K[:, h * d_head:(h + 1) * d_head],
                        V[:, h * d_head:(h + 1) * d_head], causal) for h in range(n_heads)]
    return np.concatenate(heads, axis=1) @ Wo


def _mha_last_head_missing(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    Q, K, V = _mha_heads_from(X, Wq, Wk, Wv, n_heads, _split_heads)
    O = np.zeros(Q.shape[:2] + (V.shape[2],))
    for h in range(n_heads - 1):
        O[h] = _attention(Q[h], K[h], V[h], causal)
    return _merge_heads(O) @ Wo


def _mha_always_causal(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    Q, K, V = _mha_heads_from(X, Wq, Wk, Wv, n_heads, _split_heads)
    return _merge_heads(np.stack([_attention(Q[h], K[h], V[h], True) for h in range(n_heads)])) @ Wo


def _mha_softmax_axis0(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    Q, K, V = _mha_heads_from(X, Wq, Wk, Wv, n_heads, _split_heads)
    heads = [_softmax(_scores(Q[h], K[h], causal), axis=0) @ V[h] for h in range(n_heads)]
    return _merge_heads(np.stack(heads)) @ Wo


def _mha_shared_scores(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    Q, K, V = _mha_heads_from(X, Wq, Wk, Wv, n_heads, _split_heads)
    A = _attention_weights(Q[0], K[0], causal)  # one pattern reused by every head
    return _merge_heads(np.stack([A @ V[h] for h in range(n_heads)])) @ Wo


def _mha_interleaved_scale_d_model(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    Q, K, V = _mha_heads_from(X, Wq, Wk, Wv, n_heads, _sh_interleaved)
    heads = []
    for h in range(n_heads):
        S = Q[h] @ K[h].T / math.sqrt(Wq.shape[1])
        heads.append(_softmax(_att_masked_scores(S, Q[h], K[h], causal)) @ V[h])
    return _merge_heads(np.stack(heads)) @ Wo


def _mha_no_Wo_no_scale(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    Q, K, V = _mha_heads_from(X, Wq, Wk, Wv, n_heads, _split_heads)
    return _merge_heads(np.stack([_attention(Q[h], K[h], V[h], causal, False) for h in range(n_heads)]))


def _mha_ok_sum_over_heads(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    d_head = Wq.shape[1] // n_heads
    d_v = Wv.shape[1] // n_heads
    out = 0.0
    for h in range(n_heads):
        q, k, v = (slice(h * d_head, (h + 1) * d_head),) * 2 + (slice(h * d_v, (h + 1) * d_v),)
        out = out + _attention(X @ Wq[:, q], X @ Wk[:, k], X @ Wv[:, v], causal) @ Wo[v]
    return out


def _mha_ok_batched_einsum(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    n = X.shape[0]
    Q = (X @ Wq).reshape(n, n_heads, -1)
    K = (X @ Wk).reshape(n, n_heads, -1)
    V = (X @ Wv).reshape(n, n_heads, -1)
    S = np.einsum("ihd,jhd->hij", Q, K) / np.sqrt(Q.shape[-1])
    if causal:
        S = np.where(_future(n, n)[None], -np.inf, S)
    A = np.exp(S - S.max(axis=-1, keepdims=True))
    A /= A.sum(axis=-1, keepdims=True)
    return np.einsum("hij,jhd->ihd", A, V).reshape(n, -1) @ Wo


# ============================================================================================================
# 10 layer_norm, gelu, transformer_block
# ============================================================================================================

def _ln_unbiased(X, g, b, eps=1e-5):
    mu = X.mean(axis=1, keepdims=True)
    return (X - mu) / np.sqrt(X.var(axis=1, ddof=1, keepdims=True) + eps) * g + b


def _ln_eps_outside(X, g, b, eps=1e-5):
    mu = X.mean(axis=1, keepdims=True)
    return (X - mu) / (X.std(axis=1, keepdims=True) + eps) * g + b


def _ln_columns(X, g, b, eps=1e-5):
    mu = X.mean(axis=0, keepdims=True)
    return (X - mu) / np.sqrt(X.var(axis=0, keepdims=True) + eps) * g + b


def _ln_no_eps(X, g, b, eps=1e-5):
    mu = X.mean(axis=1, keepdims=True)
    return (X - mu) / X.std(axis=1, keepdims=True) * g + b


def _ln_g_b_swapped(X, g, b, eps=1e-5):
    mu = X.mean(axis=1, keepdims=True)
    return (X - mu) / np.sqrt(X.var(axis=1, keepdims=True) + eps) * b + g


def _ln_no_keepdims(X, g, b, eps=1e-5):
    mu = X.mean(axis=1)
    var = X.var(axis=1)
    return (X - mu) / np.sqrt(var + eps) * g + b


def _ln_one_pass_variance(X, g, b, eps=1e-5):
    mu = X.mean(axis=1, keepdims=True)
    var = (X ** 2).mean(axis=1, keepdims=True) - mu ** 2  # E[x^2] - E[x]^2 cancels for a large mean
    return (X - mu) / np.sqrt(var + eps) * g + b


def _ln_float32(X, g, b, eps=1e-5):
    X32 = X.astype(np.float32)
    mu = X32.mean(axis=1, keepdims=True)
    var = ((X32 - mu) ** 2).mean(axis=1, keepdims=True)
    return ((X32 - mu) / np.sqrt(var + np.float32(eps))).astype(np.float64) * g + b


def _ln_divides_by_variance(X, g, b, eps=1e-5):
    mu = X.mean(axis=1, keepdims=True)
    return (X - mu) / (X.var(axis=1, keepdims=True) + eps) * g + b


def _ln_in_place(X, g, b, eps=1e-5):
    X -= X.mean(axis=1, keepdims=True)
    X /= np.sqrt((X ** 2).mean(axis=1, keepdims=True) + eps)
    return X * g + b


def _ln_eps_default_bert(X, g, b, eps=1e-12):
    return _layer_norm(X, g, b, eps)


def _ln_unbiased_eps_outside(X, g, b, eps=1e-5):
    mu = X.mean(axis=1, keepdims=True)
    return (X - mu) / (X.std(axis=1, ddof=1, keepdims=True) + eps) * g + b


def _ln_ok_np_var(X, g, b, eps=1e-5):
    return (X - X.mean(axis=1, keepdims=True)) / np.sqrt(np.var(X, axis=1, keepdims=True) + eps) * g + b


def _ln_ok_rows(X, g, b, eps=1e-5):
    out = np.empty(X.shape)
    for i, x in enumerate(X):
        c = x - x.sum() / len(x)
        out[i] = c / math.sqrt(float(c @ c) / len(x) + eps) * g + b
    return out


def _gelu_relu(X):
    return np.maximum(X, 0.0)


def _gelu_exact_erf(X):
    return 0.5 * X * (1.0 + np.vectorize(math.erf)(X / math.sqrt(2.0)))


def _gelu_no_half(X):
    return X * (1.0 + np.tanh(GELU_C * (X + 0.044715 * X ** 3)))


def _gelu_sqrt_2pi(X):
    return 0.5 * X * (1.0 + np.tanh(math.sqrt(2.0 * math.pi) * (X + 0.044715 * X ** 3)))


def _gelu_no_sqrt(X):
    return 0.5 * X * (1.0 + np.tanh(2.0 / math.pi * (X + 0.044715 * X ** 3)))


def _gelu_square(X):
    return 0.5 * X * (1.0 + np.tanh(GELU_C * (X + 0.044715 * X ** 2)))


def _gelu_sigmoid(X):
    return X / (1.0 + np.exp(-1.702 * X))


def _gelu_no_cubic(X):
    return 0.5 * X * (1.0 + np.tanh(GELU_C * X))


def _gelu_bracket(X):
    return 0.5 * X * (1.0 + np.tanh(GELU_C * X + 0.044715 * X ** 3))


def _gelu_math_tanh(X):
    return 0.5 * X * (1.0 + math.tanh(GELU_C * (X + 0.044715 * X ** 3)))


def _gelu_ok_sigmoid_form(X):
    u = GELU_C * (X + 0.044715 * X * X * X)
    return X / (1.0 + np.exp(-2.0 * u))  # 0.5 (1 + tanh u) = sigmoid(2u)


def _gelu_ok_staged(X):
    inner = X + 0.044715 * np.power(X, 3)
    return X * 0.5 * (np.tanh(inner * math.sqrt(2 / math.pi)) + 1)


def _tb_attn(X, p, n_heads, causal):
    return _multi_head_attention(X, p["Wq"], p["Wk"], p["Wv"], p["Wo"], n_heads, causal)


def _tb_post_ln(X, p, n_heads, causal=True):
    Y = _layer_norm(X + _tb_attn(X, p, n_heads, causal), p["ln1_g"], p["ln1_b"])
    return _layer_norm(Y + _mlp(Y, p), p["ln2_g"], p["ln2_b"])


def _tb_no_attention_residual(X, p, n_heads, causal=True):
    Y = _tb_attn(_layer_norm(X, p["ln1_g"], p["ln1_b"]), p, n_heads, causal)
    return Y + _mlp(_layer_norm(Y, p["ln2_g"], p["ln2_b"]), p)


def _tb_no_mlp_residual(X, p, n_heads, causal=True):
    Y = X + _tb_attn(_layer_norm(X, p["ln1_g"], p["ln1_b"]), p, n_heads, causal)
    return _mlp(_layer_norm(Y, p["ln2_g"], p["ln2_b"]), p)


def _tb_parallel_mlp(X, p, n_heads, causal=True):
    Y = X + _tb_attn(_layer_norm(X, p["ln1_g"], p["ln1_b"]), p, n_heads, causal)
    return Y + _mlp(_layer_norm(X, p["ln2_g"], p["ln2_b"]), p)  # LN2 of X, not of Y


def _tb_ln1_twice(X, p, n_heads, causal=True):
    Y = X + _tb_attn(_layer_norm(X, p["ln1_g"], p["ln1_b"]), p, n_heads, causal)
    return Y + _mlp(_layer_norm(Y, p["ln1_g"], p["ln1_b"]), p)


def _tb_gelu_after_W2(X, p, n_heads, causal=True):
    Y = X + _tb_attn(_layer_norm(X, p["ln1_g"], p["ln1_b"]), p, n_heads, causal)
    H = _layer_norm(Y, p["ln2_g"], p["ln2_b"])
    return Y + _gelu((H @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"])


def _tb_relu(X, p, n_heads, causal=True):
    Y = X + _tb_attn(_layer_norm(X, p["ln1_g"], p["ln1_b"]), p, n_heads, causal)
    return Y + _mlp(_layer_norm(Y, p["ln2_g"], p["ln2_b"]), p, act=_gelu_relu)


def _tb_residual_from_normed(X, p, n_heads, causal=True):
    H = _layer_norm(X, p["ln1_g"], p["ln1_b"])
    Y = H + _tb_attn(H, p, n_heads, causal)
    return Y + _mlp(_layer_norm(Y, p["ln2_g"], p["ln2_b"]), p)


def _tb_b1_after_gelu(X, p, n_heads, causal=True):
    Y = X + _tb_attn(_layer_norm(X, p["ln1_g"], p["ln1_b"]), p, n_heads, causal)
    H = _layer_norm(Y, p["ln2_g"], p["ln2_b"])
    return Y + (_gelu(H @ p["W1"]) + p["b1"]) @ p["W2"] + p["b2"]


def _tb_always_causal(X, p, n_heads, causal=True):
    return _transformer_block(X, p, n_heads, True)


def _tb_forgets_b2(X, p, n_heads, causal=True):
    Y = X + _tb_attn(_layer_norm(X, p["ln1_g"], p["ln1_b"]), p, n_heads, causal)
    return Y + _gelu(_layer_norm(Y, p["ln2_g"], p["ln2_b"]) @ p["W1"] + p["b1"]) @ p["W2"]


def _tb_attention_not_normed(X, p, n_heads, causal=True):
    Y = X + _tb_attn(X, p, n_heads, causal)  # skips ln1
    return Y + _mlp(_layer_norm(Y, p["ln2_g"], p["ln2_b"]), p)


def _tb_post_ln_relu(X, p, n_heads, causal=True):
    Y = _layer_norm(X + _tb_attn(X, p, n_heads, causal), p["ln1_g"], p["ln1_b"])
    return _layer_norm(Y + _mlp(Y, p, act=_gelu_relu), p["ln2_g"], p["ln2_b"])


def _tb_ok_staged(X, p, n_heads, causal=True):
    h = _ln_ok_rows(X, p["ln1_g"], p["ln1_b"])
    a = _mha_ok_sum_over_heads(h, p["Wq"], p["Wk"], p["Wv"], p["Wo"], n_heads, causal)
    y = X + a
    h2 = _ln_ok_rows(y, p["ln2_g"], p["ln2_b"])
    f = np.stack([_gelu(r @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"] for r in h2])  # the MLP row by row
    return y + f


# ============================================================================================================
# 11 next_token_logits, cross_entropy, softmax_backward, attention_backward, layer_norm_backward
# ============================================================================================================

def _ntl_first_row(H, W_vocab):
    return H[0] @ W_vocab


def _ntl_all_rows(H, W_vocab):
    return H @ W_vocab


def _ntl_softmax(H, W_vocab):
    return _softmax(H[-1] @ W_vocab)


def _ntl_mean_of_rows(H, W_vocab):
    return H.mean(axis=0) @ W_vocab


def _ntl_keeps_row_axis(H, W_vocab):
    return H[-1:] @ W_vocab  # (1, vocab)


def _ntl_second_to_last(H, W_vocab):
    return H[-2] @ W_vocab


def _ntl_ok_all_then_last(H, W_vocab):
    return (H @ W_vocab)[-1]


def _ntl_ok_einsum(H, W_vocab):
    return np.einsum("d,dv->v", H[H.shape[0] - 1], W_vocab)


def _ce_log_of_softmax(logits, targets):
    n = logits.shape[0]
    P = _softmax(logits, axis=1)
    loss = -np.log(P[np.arange(n), targets]).mean()  # log(0) = -inf for a very unlikely target
    dlogits = P.copy()
    dlogits[np.arange(n), targets] -= 1.0
    return loss, dlogits / n


def _ce_sum_not_mean(logits, targets):
    n = logits.shape[0]
    logp = _log_softmax(logits)
    dlogits = np.exp(logp)
    dlogits[np.arange(n), targets] -= 1.0
    return -logp[np.arange(n), targets].sum(), dlogits


def _ce_grad_not_divided(logits, targets):
    n = logits.shape[0]
    logp = _log_softmax(logits)
    dlogits = np.exp(logp)
    dlogits[np.arange(n), targets] -= 1.0
    return -logp[np.arange(n), targets].mean(), dlogits


def _ce_grad_sign(logits, targets):
    loss, dlogits = _cross_entropy(logits, targets)
    return loss, -dlogits


def _ce_grad_without_one_hot(logits, targets):
    n = logits.shape[0]
    logp = _log_softmax(logits)
    return -logp[np.arange(n), targets].mean(), np.exp(logp) / n


def _ce_loss_sign(logits, targets):
    n = logits.shape[0]
    loss, dlogits = _cross_entropy(logits, targets)
    return _log_softmax(logits)[np.arange(n), targets].mean(), dlogits


def _ce_no_max(logits, targets):
    n = logits.shape[0]
    E = np.exp(logits)
    logp = logits - np.log(E.sum(axis=1, keepdims=True))
    dlogits = E / E.sum(axis=1, keepdims=True)
    dlogits[np.arange(n), targets] -= 1.0
    return -logp[np.arange(n), targets].mean(), dlogits / n


def _ce_softmax_over_rows(logits, targets):
    n = logits.shape[0]
    Z = logits - logits.max(axis=0, keepdims=True)
    logp = Z - np.log(np.exp(Z).sum(axis=0, keepdims=True))
    dlogits = np.exp(logp)
    dlogits[np.arange(n), targets] -= 1.0
    return -logp[np.arange(n), targets].mean(), dlogits / n


def _ce_fancy_index_all(logits, targets):
    logp = _log_softmax(logits)
    loss = -logp[:, targets].mean()  # an (n, n) block: every row's log-prob of every target
    _, dlogits = _cross_entropy(logits, targets)
    return loss, dlogits


def _ce_in_place(logits, targets):
    n = logits.shape[0]
    logits -= logits.max(axis=1, keepdims=True)
    logp = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
    dlogits = np.exp(logp)
    dlogits[np.arange(n), targets] -= 1.0
    return -logp[np.arange(n), targets].mean(), dlogits / n


def _ce_log2(logits, targets):
    n = logits.shape[0]
    logp = _log_softmax(logits)
    _, dlogits = _cross_entropy(logits, targets)
    return -(logp[np.arange(n), targets] / math.log(2)).mean(), dlogits


def _ce_swapped_outputs(logits, targets):
    loss, dlogits = _cross_entropy(logits, targets)
    return dlogits, loss


def _ce_sign_and_not_divided(logits, targets):
    n = logits.shape[0]
    logp = _log_softmax(logits)
    dlogits = np.exp(logp)
    dlogits[np.arange(n), targets] -= 1.0
    return -logp[np.arange(n), targets].mean(), -dlogits


def _ce_ok_logaddexp(logits, targets):
    n = logits.shape[0]
    lse = np.logaddexp.reduce(logits, axis=1)  # (n,)
    loss = float(np.mean(lse - logits[np.arange(n), targets]))
    P = np.exp(logits - lse[:, None])
    P[np.arange(n), targets] -= 1.0
    return loss, P / n


def _ce_ok_loop(logits, targets):
    n = logits.shape[0]
    total = 0.0
    grad = np.zeros(logits.shape)
    for i in range(n):
        z = logits[i] - logits[i].max()
        lse = math.log(np.exp(z).sum())
        total += lse - z[targets[i]]
        grad[i] = np.exp(z - lse)
        grad[i, targets[i]] -= 1.0
    return total / n, grad / n


def _sb_drops_sum(A, dA):
    return A * dA


def _sb_sum_axis0(A, dA):
    return A * (dA - np.sum(dA * A, axis=0, keepdims=True))


def _sb_no_keepdims(A, dA):
    return A * (dA - np.sum(dA * A, axis=-1))


def _sb_sign(A, dA):
    return A * (np.sum(dA * A, axis=-1, keepdims=True) - dA)


def _sb_diagonal_only(A, dA):
    return A * (1.0 - A) * dA


def _sb_unweighted_sum(A, dA):
    return A * (dA - np.sum(dA, axis=-1, keepdims=True))


def _sb_two_d_only(A, dA):
    dS = np.zeros_like(dA)
    for i in range(A.shape[0]):  # one row at a time: right for 2-D only
        J = np.diag(A[i]) - np.outer(A[i], A[i])
        dS[i] = J @ dA[i]
    return dS


def _sb_in_place(A, dA):
    dA -= np.sum(dA * A, axis=-1, keepdims=True)
    dA *= A
    return dA


def _sb_mean_not_sum(A, dA):
    return A * (dA - np.mean(dA * A, axis=-1, keepdims=True))


def _sb_drops_sum_and_sign(A, dA):
    return -A * dA


def _sb_ok_jacobian(A, dA):
    a = A.reshape(-1, A.shape[-1])
    g = dA.reshape(-1, A.shape[-1])
    out = np.empty(a.shape)
    for r in range(a.shape[0]):
        J = np.diag(a[r]) - np.outer(a[r], a[r])  # symmetric
        out[r] = J @ g[r]
    return out.reshape(A.shape)


def _sb_ok_einsum(A, dA):
    return A * dA - A * np.einsum("...i,...i->...", A, dA)[..., None]


def _ab_parts(Q, K, V, dO, causal, scale):
    s = 1.0 / math.sqrt(Q.shape[1]) if scale else 1.0
    return s, _attention_weights(Q, K, causal, scale)


def _ab_no_scale(Q, K, V, dO, causal=True, scale=True):
    s, A = _ab_parts(Q, K, V, dO, causal, scale)
    dS = _softmax_backward(A, dO @ V.T)  # forgets * s
    return dS @ K, dS.T @ Q, A.T @ dO


def _ab_scale_twice(Q, K, V, dO, causal=True, scale=True):
    s, A = _ab_parts(Q, K, V, dO, causal, scale)
    dS = _softmax_backward(A, dO @ V.T) * s
    return dS @ K * s, dS.T @ Q * s, A.T @ dO


def _ab_dK_no_transpose(Q, K, V, dO, causal=True, scale=True):
    s, A = _ab_parts(Q, K, V, dO, causal, scale)
    dS = _softmax_backward(A, dO @ V.T) * s
    return dS @ K, dS @ Q, A.T @ dO


def _ab_dQ_transposed(Q, K, V, dO, causal=True, scale=True):
    s, A = _ab_parts(Q, K, V, dO, causal, scale)
    dS = _softmax_backward(A, dO @ V.T) * s
    return dS.T @ K, dS.T @ Q, A.T @ dO


def _ab_drops_softmax_sum(Q, K, V, dO, causal=True, scale=True):
    s, A = _ab_parts(Q, K, V, dO, causal, scale)
    dS = A * (dO @ V.T) * s
    return dS @ K, dS.T @ Q, A.T @ dO


def _ab_unmasked_weights(Q, K, V, dO, causal=True, scale=True):
    s, A = _ab_parts(Q, K, V, dO, False, scale)  # the mask forgotten in the backward pass
    dS = _softmax_backward(A, dO @ V.T) * s
    return dS @ K, dS.T @ Q, A.T @ dO


def _ab_square_mask(Q, K, V, dO, causal=True, scale=True):
    s = 1.0 / math.sqrt(Q.shape[1]) if scale else 1.0
    A = _aw_square_mask(Q, K, causal, scale)
    dS = _softmax_backward(A, dO @ V.T) * s
    return dS @ K, dS.T @ Q, A.T @ dO


def _ab_dK_uses_K(Q, K, V, dO, causal=True, scale=True):
    s, A = _ab_parts(Q, K, V, dO, causal, scale)
    dS = _softmax_backward(A, dO @ V.T) * s
    return dS @ K, dS.T @ K, A.T @ dO


def _ab_dA_transposed(Q, K, V, dO, causal=True, scale=True):
    s, A = _ab_parts(Q, K, V, dO, causal, scale)
    dS = _softmax_backward(A, V @ dO.T) * s
    return dS @ K, dS.T @ Q, A.T @ dO


def _ab_dS_sign(Q, K, V, dO, causal=True, scale=True):
    s, A = _ab_parts(Q, K, V, dO, causal, scale)
    dS = -_softmax_backward(A, dO @ V.T) * s
    return dS @ K, dS.T @ Q, A.T @ dO


def _ab_always_scaled(Q, K, V, dO, causal=True, scale=True):
    return _attention_backward(Q, K, V, dO, causal, True)


def _ab_scale_one_over_d(Q, K, V, dO, causal=True, scale=True):
    s = 1.0 / Q.shape[1] if scale else 1.0
    A = _attention_weights(Q, K, causal, scale)
    dS = _softmax_backward(A, dO @ V.T) * s
    return dS @ K, dS.T @ Q, A.T @ dO


def _ab_wrong_order(Q, K, V, dO, causal=True, scale=True):
    dQ, dK, dV = _attention_backward(Q, K, V, dO, causal, scale)
    return dQ, dV, dK


def _ab_dV_no_transpose(Q, K, V, dO, causal=True, scale=True):
    s, A = _ab_parts(Q, K, V, dO, causal, scale)
    dS = _softmax_backward(A, dO @ V.T) * s
    return dS @ K, dS.T @ Q, A @ dO


def _ab_softmax_sum_axis0(Q, K, V, dO, causal=True, scale=True):
    s, A = _ab_parts(Q, K, V, dO, causal, scale)
    dA = dO @ V.T
    dS = A * (dA - np.sum(dA * A, axis=0, keepdims=True)) * s
    return dS @ K, dS.T @ Q, A.T @ dO


def _ab_scales_dV(Q, K, V, dO, causal=True, scale=True):
    s, A = _ab_parts(Q, K, V, dO, causal, scale)
    dS = _softmax_backward(A, dO @ V.T) * s
    return dS @ K, dS.T @ Q, A.T @ dO * s


def _ab_no_scale_no_sum(Q, K, V, dO, causal=True, scale=True):
    s, A = _ab_parts(Q, K, V, dO, causal, scale)
    dS = A * (dO @ V.T)
    return dS @ K, dS.T @ Q, A.T @ dO


def _ab_swaps_dQ_dK(Q, K, V, dO, causal=True, scale=True):
    s, A = _ab_parts(Q, K, V, dO, causal, scale)
    dS = _softmax_backward(A, dO @ V.T) * s
    return dS @ Q, dS.T @ K, A.T @ dO  # each gradient built from its own matrix


def _ab_ok_jacobian_rows(Q, K, V, dO, causal=True, scale=True):
    n_q, n_k = Q.shape[0], K.shape[0]
    s = 1.0 / np.sqrt(Q.shape[1]) if scale else 1.0
    dQ, dK, dV = np.zeros(Q.shape), np.zeros(K.shape), np.zeros(V.shape)
    for i in range(n_q):
        last = n_k - n_q + i if causal else n_k - 1
        Kv, Vv = K[:last + 1], V[:last + 1]
        sc = Kv @ Q[i] * s
        a = np.exp(sc - sc.max())
        a /= a.sum()
        dV[:last + 1] += np.outer(a, dO[i])
        da = Vv @ dO[i]
        ds = (np.diag(a) - np.outer(a, a)) @ da * s
        dQ[i] = ds @ Kv
        dK[:last + 1] += np.outer(ds, Q[i])
    return dQ, dK, dV


def _ab_ok_einsum(Q, K, V, dO, causal=True, scale=True):
    s = 1.0 / math.sqrt(Q.shape[1]) if scale else 1.0
    A = _att_ok_einsum(Q, K, np.eye(K.shape[0]), causal, scale)  # A = attention with V = I
    dA = np.einsum("qv,kv->qk", dO, V)
    dS = s * A * (dA - np.einsum("qk,qk->q", A, dA)[:, None])
    return np.einsum("qk,kd->qd", dS, K), np.einsum("qk,qd->kd", dS, Q), np.einsum("qk,qv->kv", A, dO)


def _lnb_constant_stats(X, g, dY, eps=1e-5):
    Xhat, rstd = _ln_stats(X, eps)
    return dY * g * rstd, (dY * Xhat).sum(axis=0), dY.sum(axis=0)


def _lnb_drops_mean_term(X, g, dY, eps=1e-5):
    Xhat, rstd = _ln_stats(X, eps)
    dXhat = dY * g
    dX = rstd * (dXhat - Xhat * (dXhat * Xhat).mean(axis=1, keepdims=True))
    return dX, (dY * Xhat).sum(axis=0), dY.sum(axis=0)


def _lnb_drops_variance_term(X, g, dY, eps=1e-5):
    Xhat, rstd = _ln_stats(X, eps)
    dXhat = dY * g
    dX = rstd * (dXhat - dXhat.mean(axis=1, keepdims=True))
    return dX, (dY * Xhat).sum(axis=0), dY.sum(axis=0)


def _lnb_dg_db_swapped(X, g, dY, eps=1e-5):
    dX, dg, db = _layer_norm_backward(X, g, dY, eps)
    return dX, db, dg


def _lnb_dg_not_summed(X, g, dY, eps=1e-5):
    Xhat, _ = _ln_stats(X, eps)
    dX, _, db = _layer_norm_backward(X, g, dY, eps)
    return dX, dY * Xhat, db


def _lnb_unbiased(X, g, dY, eps=1e-5):
    d = X.shape[1]
    mu = X.mean(axis=1, keepdims=True)
    rstd = 1.0 / np.sqrt(((X - mu) ** 2).sum(axis=1, keepdims=True) / (d - 1) + eps)
    Xhat = (X - mu) * rstd
    dXhat = dY * g
    dX = rstd * (dXhat - dXhat.mean(axis=1, keepdims=True) - Xhat * (dXhat * Xhat).mean(axis=1, keepdims=True))
    return dX, (dY * Xhat).sum(axis=0), dY.sum(axis=0)


def _lnb_forgets_g(X, g, dY, eps=1e-5):
    Xhat, rstd = _ln_stats(X, eps)
    dXhat = dY  # not dY * g
    dX = rstd * (dXhat - dXhat.mean(axis=1, keepdims=True) - Xhat * (dXhat * Xhat).mean(axis=1, keepdims=True))
    return dX, (dY * Xhat).sum(axis=0), dY.sum(axis=0)


def _lnb_variance_term_sign(X, g, dY, eps=1e-5):
    Xhat, rstd = _ln_stats(X, eps)
    dXhat = dY * g
    dX = rstd * (dXhat - dXhat.mean(axis=1, keepdims=True) + Xhat * (dXhat * Xhat).mean(axis=1, keepdims=True))
    return dX, (dY * Xhat).sum(axis=0), dY.sum(axis=0)


def _lnb_eps_outside(X, g, dY, eps=1e-5):
    mu = X.mean(axis=1, keepdims=True)
    rstd = 1.0 / (X.std(axis=1, keepdims=True) + eps)
    Xhat = (X - mu) * rstd
    dXhat = dY * g
    dX = rstd * (dXhat - dXhat.mean(axis=1, keepdims=True) - Xhat * (dXhat * Xhat).mean(axis=1, keepdims=True))
    return dX, (dY * Xhat).sum(axis=0), dY.sum(axis=0)


def _lnb_dg_uses_X(X, g, dY, eps=1e-5):
    dX, _, db = _layer_norm_backward(X, g, dY, eps)
    return dX, (dY * X).sum(axis=0), db


def _lnb_wrong_order(X, g, dY, eps=1e-5):
    dX, dg, db = _layer_norm_backward(X, g, dY, eps)
    return dg, db, dX


def _lnb_db_mean(X, g, dY, eps=1e-5):
    dX, dg, _ = _layer_norm_backward(X, g, dY, eps)
    return dX, dg, dY.mean(axis=0)


def _lnb_constant_stats_swapped(X, g, dY, eps=1e-5):
    Xhat, rstd = _ln_stats(X, eps)
    return dY * g * rstd, dY.sum(axis=0), (dY * Xhat).sum(axis=0)


def _lnb_ok_jacobian(X, g, dY, eps=1e-5):
    n, d = X.shape
    dX = np.zeros(X.shape)
    for i in range(n):
        x = X[i]
        c = x - x.mean()
        var = (c @ c) / d
        r = 1.0 / np.sqrt(var + eps)
        # d xhat_k / d x_j = r (delta_kj - 1/d) - r^3 c_k c_j / d
        J = r * (np.eye(d) - 1.0 / d) - (r ** 3) * np.outer(c, c) / d
        dX[i] = J.T @ (dY[i] * g)
    Xhat, _ = _ln_stats(X, eps)
    return dX, np.einsum("nd,nd->d", dY, Xhat), dY.sum(axis=0)


def _lnb_ok_textbook(X, g, dY, eps=1e-5):
    d = X.shape[1]
    Xhat, rstd = _ln_stats(X, eps)
    dXhat = dY * g
    dX = (rstd / d) * (d * dXhat - dXhat.sum(axis=1, keepdims=True)
                       - Xhat * (dXhat * Xhat).sum(axis=1, keepdims=True))
    return dX, (dY * Xhat).sum(axis=0), dY.sum(axis=0)


# ============================================================================================================
# 12 most_attended, attention_entropy
# ============================================================================================================

def _ma_columns(A, tokens):
    return [tokens[int(j)] for j in np.argmax(A, axis=0)]


def _ma_last_on_ties(A, tokens):
    n_k = A.shape[1]
    return [tokens[n_k - 1 - int(j)] for j in np.argmax(A[:, ::-1], axis=1)]


def _ma_indices(A, tokens):
    return [int(j) for j in np.argmax(A, axis=1)]


def _ma_argmin(A, tokens):
    return [tokens[int(j)] for j in np.argmin(A, axis=1)]


def _ma_numpy_array(A, tokens):
    return np.array(tokens)[np.argmax(A, axis=1)]


def _ma_sorted_descending(A, tokens):
    order = np.argsort(A, axis=1, kind="stable")[:, ::-1]  # descending by reversing: ties come out last-first
    return [tokens[int(j)] for j in order[:, 0]]


def _ma_ok_loop(A, tokens):
    out = []
    for row in A:
        best = 0
        for j in range(1, len(row)):
            if row[j] > row[best]:
                best = j
        out.append(tokens[best])
    return out


def _ma_ok_list_index(A, tokens):
    return [tokens[list(row).index(max(row))] for row in A]


def _ae_log2(A):
    return -(A * np.log2(np.where(A > 0, A, 1.0))).sum(axis=1)


def _ae_no_minus(A):
    return (A * np.log(np.where(A > 0, A, 1.0))).sum(axis=1)


def _ae_nan_on_zeros(A):
    return -(A * np.log(A)).sum(axis=1)  # 0 * log 0 = 0 * -inf = nan


def _ae_columns(A):
    return -(A * np.log(np.where(A > 0, A, 1.0))).sum(axis=0)


def _ae_mean_not_sum(A):
    return -(A * np.log(np.where(A > 0, A, 1.0))).mean(axis=1)


def _ae_normalised(A):
    return -(A * np.log(np.where(A > 0, A, 1.0))).sum(axis=1) / np.log(A.shape[1])


def _ae_log_of_support(A):
    return np.log((A > 0).sum(axis=1))  # as if every row were uniform over its keys


def _ae_log2_no_minus(A):
    return (A * np.log2(np.where(A > 0, A, 1.0))).sum(axis=1)


def _ae_ok_nan_to_num(A):
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(A > 0, A * np.log(A), 0.0)
    return -terms.sum(axis=1)


def _ae_ok_loop(A):
    return np.array([-sum(a * math.log(a) for a in row if a > 0) for row in A], dtype=float)


# ============================================================================================================
# 13 padding_mask, cross_attention
# ============================================================================================================

def _pm_off_by_one(n_q, n_valid, n_k):
    M = np.zeros((n_q, n_k))
    M[:, n_valid + 1:] = -np.inf
    return M


def _pm_inverted(n_q, n_valid, n_k):
    M = np.full((n_q, n_k), -np.inf)
    M[:, n_valid:] = 0.0
    return M


def _pm_bool(n_q, n_valid, n_k):
    return np.tile(np.arange(n_k) >= n_valid, (n_q, 1))


def _pm_square(n_q, n_valid, n_k):
    M = np.zeros((n_k, n_k))
    M[:, n_valid:] = -np.inf
    return M


def _pm_large_negative(n_q, n_valid, n_k):
    M = np.zeros((n_q, n_k))
    M[:, n_valid:] = -1e9
    return M


def _pm_masks_padding_rows(n_q, n_valid, n_k):
    M = np.zeros((n_q, n_k))
    M[:, n_valid:] = -np.inf
    M[n_valid:, :] = -np.inf
    return M


def _pm_int_array(n_q, n_valid, n_k):
    M = np.zeros((n_q, n_k), dtype=int)
    M[:, n_valid:] = -np.inf
    return M


def _pm_transposed(n_q, n_valid, n_k):
    M = np.zeros((n_k, n_q))
    M[n_valid:, :] = -np.inf
    return M


def _pm_off_by_one_large_negative(n_q, n_valid, n_k):
    M = np.zeros((n_q, n_k))
    M[:, n_valid + 1:] = -1e9
    return M


def _pm_ok_where(n_q, n_valid, n_k):
    return np.where(np.arange(n_k)[None, :] < n_valid, 0.0, -np.inf) * np.ones((n_q, 1))


def _pm_ok_tile(n_q, n_valid, n_k):
    row = np.concatenate([np.zeros(n_valid), np.full(n_k - n_valid, -np.inf)])
    return np.tile(row, (n_q, 1))


def _xa_roles_swapped(X, Z, Wq, Wk, Wv):
    return _attention(Z @ Wq, X @ Wk, X @ Wv, causal=False)


def _xa_causal(X, Z, Wq, Wk, Wv):
    return _attention(X @ Wq, Z @ Wk, Z @ Wv, causal=True)  # a causal mask where none belongs


def _xa_no_scale(X, Z, Wq, Wk, Wv):
    return _attention(X @ Wq, Z @ Wk, Z @ Wv, causal=False, scale=False)


def _xa_scale_d_model(X, Z, Wq, Wk, Wv):
    S = (X @ Wq) @ (Z @ Wk).T / math.sqrt(X.shape[1])
    return _softmax(S) @ (Z @ Wv)


def _xa_values_from_X(X, Z, Wq, Wk, Wv):
    return _attention(X @ Wq, Z @ Wk, X @ Wv, causal=False)


def _xa_softmax_axis0(X, Z, Wq, Wk, Wv):
    return _softmax((X @ Wq) @ (Z @ Wk).T / math.sqrt(Wq.shape[1]), axis=0) @ (Z @ Wv)


def _xa_scale_n_z(X, Z, Wq, Wk, Wv):
    S = (X @ Wq) @ (Z @ Wk).T / math.sqrt(Z.shape[0])
    return _softmax(S) @ (Z @ Wv)


def _xa_keys_from_X(X, Z, Wq, Wk, Wv):
    return _attention(X @ Wq, X @ Wk, Z @ Wv, causal=False)


def _xa_ok_einsum(X, Z, Wq, Wk, Wv):
    Q, K, V = X @ Wq, Z @ Wk, Z @ Wv
    S = np.einsum("id,jd->ij", Q, K) / math.sqrt(Q.shape[1])
    A = np.exp(S - S.max(axis=1, keepdims=True))
    return np.einsum("ij,jv->iv", A / A.sum(axis=1, keepdims=True), V)


def _xa_ok_loop(X, Z, Wq, Wk, Wv):
    K, V = Z @ Wk, Z @ Wv
    return np.stack([_attend_step(x @ Wq, K, V) for x in X])


# ============================================================================================================
# 14 attend_step, cache_step, sample_next, generate, kv_cache_bytes, max_cached_tokens
# ============================================================================================================

def _as_no_scale(q, K_cache, V_cache):
    return _softmax(K_cache @ q) @ V_cache


def _as_no_max(q, K_cache, V_cache):
    e = np.exp(K_cache @ q / math.sqrt(q.shape[0]))
    return (e / e.sum()) @ V_cache


def _as_scale_by_t(q, K_cache, V_cache):
    return _softmax(K_cache @ q / math.sqrt(K_cache.shape[0])) @ V_cache


def _as_drops_new_row(q, K_cache, V_cache):
    return _softmax(K_cache[:-1] @ q / math.sqrt(q.shape[0])) @ V_cache[:-1]


def _as_square_causal_mask(q, K_cache, V_cache):
    S = (K_cache @ q / math.sqrt(q.shape[0]))[None, :]  # (1, t)
    S = np.where(np.triu(np.ones(S.shape, dtype=bool), k=1), -np.inf, S)  # the first row of a t x t mask
    return (_softmax(S) @ V_cache)[0]


def _as_scale_by_d_v(q, K_cache, V_cache):
    return _softmax(K_cache @ q / math.sqrt(V_cache.shape[1])) @ V_cache


def _as_float32(q, K_cache, V_cache):
    s = K_cache.astype(np.float32) @ q.astype(np.float32) / np.float32(math.sqrt(q.shape[0]))
    return (_softmax(s) @ V_cache.astype(np.float32)).astype(np.float64)


def _as_no_scale_no_max(q, K_cache, V_cache):
    e = np.exp(K_cache @ q)
    return (e / e.sum()) @ V_cache


def _as_ok_two_d(q, K_cache, V_cache):
    return _attention(q[None, :], K_cache, V_cache, causal=True)[0]  # one query: the last position


def _as_ok_loop(q, K_cache, V_cache):
    s = np.array([k @ q for k in K_cache]) / math.sqrt(len(q))
    w = np.exp(s - s.max())
    return sum(wi * v for wi, v in zip(w / w.sum(), V_cache))


def _cs_prepends(q, k, v, K_cache, V_cache):
    K_new = np.concatenate([k[None, :], K_cache], axis=0)
    V_new = np.concatenate([v[None, :], V_cache], axis=0)
    return _attend_step(q, K_new, V_new), K_new, V_new


def _cs_returns_old_caches(q, k, v, K_cache, V_cache):
    o, K_new, V_new = _cache_step(q, k, v, K_cache, V_cache)
    return o, K_cache, V_cache


def _cs_attends_before_append(q, k, v, K_cache, V_cache):
    o = _attend_step(q, K_cache, V_cache)  # the new token cannot see itself
    return o, np.concatenate([K_cache, k[None, :]]), np.concatenate([V_cache, v[None, :]])


def _cs_k_v_swapped(q, k, v, K_cache, V_cache):
    K_new = np.concatenate([K_cache, v[None, :]], axis=0)
    V_new = np.concatenate([V_cache, k[None, :]], axis=0)
    return _attend_step(q, K_new, V_new), K_new, V_new


def _cs_no_scale(q, k, v, K_cache, V_cache):
    K_new = np.concatenate([K_cache, k[None, :]], axis=0)
    V_new = np.concatenate([V_cache, v[None, :]], axis=0)
    return _softmax(K_new @ q) @ V_new, K_new, V_new


def _cs_caches_query(q, k, v, K_cache, V_cache):
    K_new = np.concatenate([K_cache, q[None, :]], axis=0)
    V_new = np.concatenate([V_cache, v[None, :]], axis=0)
    return _attend_step(q, K_new, V_new), K_new, V_new


def _cs_returns_V_before_K(q, k, v, K_cache, V_cache):
    o, K_new, V_new = _cache_step(q, k, v, K_cache, V_cache)
    return o, V_new, K_new


def _cs_scales_q_in_place(q, k, v, K_cache, V_cache):
    q /= math.sqrt(q.shape[0])
    K_new = np.concatenate([K_cache, k[None, :]], axis=0)
    V_new = np.concatenate([V_cache, v[None, :]], axis=0)
    return _softmax(K_new @ q) @ V_new, K_new, V_new


def _cs_append_flattens(q, k, v, K_cache, V_cache):
    K_new = np.append(K_cache, k)  # no axis: a flat array
    V_new = np.append(V_cache, v)
    o = _attend_step(q, K_new.reshape(-1, k.shape[0]), V_new.reshape(-1, v.shape[0]))
    return o, K_new, V_new


def _cs_prepends_no_scale(q, k, v, K_cache, V_cache):
    K_new = np.concatenate([k[None, :], K_cache], axis=0)
    V_new = np.concatenate([v[None, :], V_cache], axis=0)
    return _softmax(K_new @ q) @ V_new, K_new, V_new


def _cs_ok_vstack(q, k, v, K_cache, V_cache):
    K_new, V_new = np.vstack([K_cache, k]), np.vstack([V_cache, v])
    return _as_ok_loop(q, K_new, V_new), K_new, V_new


def _cs_ok_append_axis0(q, k, v, K_cache, V_cache):
    K_new = np.append(K_cache, k.reshape(1, -1), axis=0)
    V_new = np.append(V_cache, v.reshape(1, -1), axis=0)
    return _attend_step(q, K_new, V_new), K_new, V_new


def _sn_cdf(logits, temperature):
    z = (logits - np.max(logits)) / temperature
    p = np.exp(z)
    cdf = np.cumsum(p / p.sum())
    return cdf / cdf[-1]


def _sn_no_greedy_branch(logits, temperature, u):
    z = (logits - np.max(logits)) / temperature  # 0 / 0 at temperature 0
    p = np.exp(z)
    cdf = np.cumsum(p / p.sum())
    return int(np.searchsorted(cdf / cdf[-1], u, side="right"))


def _sn_multiplies_temperature(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    z = (logits - np.max(logits)) * temperature
    p = np.exp(z)
    cdf = np.cumsum(p / p.sum())
    return int(np.searchsorted(cdf / cdf[-1], u, side="right"))


def _sn_side_left(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    return int(np.searchsorted(_sn_cdf(logits, temperature), u))  # first cdf >= u


def _sn_no_rescale(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    z = (logits - np.max(logits)) / temperature
    p = np.exp(z)
    return int(np.searchsorted(np.cumsum(p / p.sum()), u, side="right"))


def _sn_numpy_int(logits, temperature, u):
    if temperature == 0:
        return np.argmax(logits)
    return np.searchsorted(_sn_cdf(logits, temperature), u, side="right")


def _sn_no_max(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    p = np.exp(logits / temperature)
    cdf = np.cumsum(p / p.sum())
    return int(np.searchsorted(cdf / cdf[-1], u, side="right"))


def _sn_greedy_last_tie(logits, temperature, u):
    if temperature == 0:
        return int(len(logits) - 1 - np.argmax(logits[::-1]))
    return int(np.searchsorted(_sn_cdf(logits, temperature), u, side="right"))


def _sn_u_against_probabilities(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    z = (logits - np.max(logits)) / temperature
    p = np.exp(z)
    p = p / p.sum()
    above = np.flatnonzero(p > u)  # the first token whose own probability exceeds u
    return int(above[0]) if len(above) else int(len(p) - 1)


def _sn_power_after_softmax(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    p = _softmax(logits) ** (1.0 / temperature)  # underflows to 0 / 0 for a tiny temperature
    cdf = np.cumsum(p / p.sum())
    return int(np.searchsorted(cdf / cdf[-1], u, side="right"))


def _sn_own_random_number(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    p = np.diff(np.concatenate([[0.0], _sn_cdf(logits, temperature)]))
    return int(np.random.default_rng().choice(len(p), p=p / p.sum()))


def _sn_ignores_temperature(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    return int(np.searchsorted(_sn_cdf(logits, 1.0), u, side="right"))


def _sn_multiplies_and_left(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    z = (logits - np.max(logits)) * temperature
    p = np.exp(z)
    cdf = np.cumsum(p / p.sum())
    return int(np.searchsorted(cdf / cdf[-1], u))


def _sn_ok_running_total(logits, temperature, u):
    if temperature == 0:
        best = 0
        for i in range(1, len(logits)):
            if logits[i] > logits[best]:
                best = i
        return best
    z = np.asarray(logits, dtype=np.float64) / temperature
    p = np.exp(z - z.max())
    p = p / p.sum()
    cdf = np.cumsum(p)
    cdf = cdf / cdf[-1]
    for i, c in enumerate(cdf):
        if c > u:
            return i
    return len(cdf) - 1


def _gen_position_off_by_one(p, prompt, n_new, cache_step):
    return _generate_core(p, prompt, n_new, cache_step, pos_shift=1)


def _gen_no_residual(p, prompt, n_new, cache_step):
    return _generate_core(p, prompt, n_new, cache_step, residual=False)


def _gen_ignores_attention(p, prompt, n_new, cache_step):
    return _generate_core(p, prompt, n_new, cache_step, use_attention=False)


def _gen_caches_not_kept(p, prompt, n_new, cache_step):
    return _generate_core(p, prompt, n_new, cache_step, keep_caches=False)


def _gen_q_k_swapped(p, prompt, n_new, cache_step):
    return _generate_core(p, prompt, n_new, cache_step, swap_qk=True)


def _gen_position_and_no_residual(p, prompt, n_new, cache_step):
    return _generate_core(p, prompt, n_new, cache_step, pos_shift=1, residual=False)


def _gen_stale_logits(p, prompt, n_new, cache_step):
    tok_emb, pos_emb, Wq, Wk, Wv, W_out = (p[k] for k in ("tok_emb", "pos_emb", "Wq", "Wk", "Wv", "W_out"))
    K, V = np.zeros((0, Wk.shape[1])), np.zeros((0, Wv.shape[1]))
    out = [int(t) for t in prompt]
    for i, t in enumerate(list(out)):
        x = tok_emb[t] + pos_emb[i]
        o, K, V = cache_step(x @ Wq, x @ Wk, x @ Wv, K, V)
        logits = (x + o) @ W_out
    for _ in range(n_new):  # the new tokens are never fed: the same logits every time
        out.append(int(np.argmax(logits)))
    return np.array(out, dtype=np.int64)


def _gen_refeeds_everything(p, prompt, n_new, cache_step):
    tok_emb, pos_emb, Wq, Wk, Wv, W_out = (p[k] for k in ("tok_emb", "pos_emb", "Wq", "Wk", "Wv", "W_out"))
    K, V = np.zeros((0, Wk.shape[1])), np.zeros((0, Wv.shape[1]))
    out = [int(t) for t in prompt]
    for _ in range(n_new):
        for i, t in enumerate(out):  # the whole sequence again, into the same growing cache
            x = tok_emb[t] + pos_emb[i]
            o, K, V = cache_step(x @ Wq, x @ Wk, x @ Wv, K, V)
            logits = (x + o) @ W_out
        out.append(int(np.argmax(logits)))
    return np.array(out, dtype=np.int64)


def _gen_positions_restart(p, prompt, n_new, cache_step):
    tok_emb, pos_emb, Wq, Wk, Wv, W_out = (p[k] for k in ("tok_emb", "pos_emb", "Wq", "Wk", "Wv", "W_out"))
    K, V = np.zeros((0, Wk.shape[1])), np.zeros((0, Wv.shape[1]))
    out = [int(t) for t in prompt]
    for i, t in enumerate(list(out)):
        x = tok_emb[t] + pos_emb[i]
        o, K, V = cache_step(x @ Wq, x @ Wk, x @ Wv, K, V)
        logits = (x + o) @ W_out
    for step in range(n_new):
        out.append(int(np.argmax(logits)))
        if step < n_new - 1:
            x = tok_emb[out[-1]] + pos_emb[step]  # the new tokens' positions restart at 0
            o, K, V = cache_step(x @ Wq, x @ Wk, x @ Wv, K, V)
            logits = (x + o) @ W_out
    return np.array(out, dtype=np.int64)


def _gen_adds_into_tok_emb(p, prompt, n_new, cache_step):
    tok_emb, pos_emb, Wq, Wk, Wv, W_out = (p[k] for k in ("tok_emb", "pos_emb", "Wq", "Wk", "Wv", "W_out"))
    K, V = np.zeros((0, Wk.shape[1])), np.zeros((0, Wv.shape[1]))
    out = [int(t) for t in prompt]
    T = len(out)
    for i in range(T + n_new - 1):
        x = tok_emb[out[i]]  # a view of the row
        x += pos_emb[i]  # ... so this writes into p["tok_emb"]
        o, K, V = cache_step(x @ Wq, x @ Wk, x @ Wv, K, V)
        if i >= T - 1:
            out.append(int(np.argmax((x + o) @ W_out)))
    return np.array(out, dtype=np.int64)


def _gen_new_tokens_only(p, prompt, n_new, cache_step):
    return _generate(p, prompt, n_new, cache_step)[len(prompt):]


def _gen_own_attention(p, prompt, n_new, cache_step):
    return _generate_core(p, prompt, n_new, _cache_step)  # ignores the cache_step it is given


def _gen_one_short(p, prompt, n_new, cache_step):
    return _generate(p, prompt, max(n_new - 1, 0), cache_step)


def _gen_caches_swapped(p, prompt, n_new, cache_step):
    tok_emb, pos_emb, Wq, Wk, Wv, W_out = (p[k] for k in ("tok_emb", "pos_emb", "Wq", "Wk", "Wv", "W_out"))
    K, V = np.zeros((0, Wk.shape[1])), np.zeros((0, Wv.shape[1]))
    out = [int(t) for t in prompt]
    T = len(out)
    for i in range(T + n_new - 1):
        x = tok_emb[out[i]] + pos_emb[i]
        o, V, K = cache_step(x @ Wq, x @ Wk, x @ Wv, K, V)  # unpacked in the wrong order
        if i >= T - 1:
            out.append(int(np.argmax((x + o) @ W_out)))
    return np.array(out, dtype=np.int64)


def _gen_float_tokens(p, prompt, n_new, cache_step):
    return _generate(p, prompt, n_new, cache_step).astype(float)


def _gen_ok_list(p, prompt, n_new, cache_step):
    seq = list(np.asarray(prompt).tolist())
    d = p["tok_emb"].shape[1]
    K, V = np.zeros((0, d)), np.zeros((0, p["Wv"].shape[1]))
    logits = None
    fed = 0
    while len(seq) < len(prompt) + n_new:
        while fed < len(seq):
            x = p["tok_emb"][seq[fed]] + p["pos_emb"][fed]
            o, K, V = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K, V)
            logits = (x + o) @ p["W_out"]
            fed += 1
        seq.append(int(np.argmax(logits)))
    return np.asarray(seq, dtype=int)


def _kvb_no_factor_two(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return n_layers * n_heads * d_head * seq_len * batch * bytes_per_value


def _kvb_ignores_batch(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return 2 * n_layers * n_heads * d_head * seq_len * bytes_per_value


def _kvb_default_four_bytes(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=4):
    return 2 * n_layers * n_heads * d_head * seq_len * batch * bytes_per_value


def _kvb_numpy_int(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return np.prod([2, n_layers, n_heads, d_head, seq_len, batch, bytes_per_value])


def _kvb_int32(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    s = np.array([n_layers, n_heads, d_head, seq_len, batch, bytes_per_value], dtype=np.int32)
    return int(2 * s[0] * s[1] * s[2] * s[3] * s[4] * s[5])  # int32 scalars: the product wraps around


def _kvb_float(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return 2.0 * n_layers * n_heads * d_head * seq_len * batch * bytes_per_value


def _kvb_bits(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return 2 * n_layers * n_heads * d_head * seq_len * batch * bytes_per_value * 8


def _kvb_no_two_no_batch(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return n_layers * n_heads * d_head * seq_len * bytes_per_value


def _kvb_ok_prod(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return math.prod((2, n_layers, n_heads, d_head, seq_len, batch, bytes_per_value))


def _kvb_ok_per_token(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    per_token = n_layers * n_heads * d_head * bytes_per_value  # one key or one value, every layer and head
    return 2 * per_token * seq_len * batch


def _mct_float_division(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    return int(memory_bytes / (2 * n_layers * n_heads * d_head * batch * bytes_per_value))


def _mct_ceil(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    per = 2 * n_layers * n_heads * d_head * batch * bytes_per_value
    return -(-memory_bytes // per)


def _mct_no_factor_two(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    return memory_bytes // (n_layers * n_heads * d_head * batch * bytes_per_value)


def _mct_numpy_int(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    return np.int64(memory_bytes) // np.int64(2 * n_layers * n_heads * d_head * batch * bytes_per_value)


def _mct_at_least_one(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    return max(1, memory_bytes // (2 * n_layers * n_heads * d_head * batch * bytes_per_value))


def _mct_strictly_less(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    return (memory_bytes - 1) // (2 * n_layers * n_heads * d_head * batch * bytes_per_value)


def _mct_ignores_bytes_per_value(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    return memory_bytes // (2 * n_layers * n_heads * d_head * batch)


def _mct_float_result(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    return math.floor(memory_bytes / (2 * n_layers * n_heads * d_head * batch * bytes_per_value)) * 1.0


def _mct_ok_binary_search(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    lo, hi = 0, 1
    while _kv_cache_bytes(n_layers, n_heads, d_head, hi, batch, bytes_per_value) <= memory_bytes:
        hi *= 2
    while hi - lo > 1:  # lo fits, hi does not
        mid = (lo + hi) // 2
        if _kv_cache_bytes(n_layers, n_heads, d_head, mid, batch, bytes_per_value) <= memory_bytes:
            lo = mid
        else:
            hi = mid
    return lo


def _mct_ok_divmod(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    tokens, _ = divmod(memory_bytes, _kv_cache_bytes(n_layers, n_heads, d_head, 1, batch, bytes_per_value))
    return int(tokens)


# ============================================================================================================
# 15 capstone: dicts of ops, exactly one wrong
# ============================================================================================================

_RIGHT_OPS = {"softmax": _softmax, "attention": _attention, "embed": _embed,
              "multi_head_attention": _multi_head_attention, "layer_norm": _layer_norm, "gelu": _gelu,
              "transformer_block": _transformer_block, "next_token_logits": _next_token_logits,
              "cross_entropy": _cross_entropy, "softmax_backward": _softmax_backward,
              "attention_backward": _attention_backward, "layer_norm_backward": _layer_norm_backward,
              "cache_step": _cache_step, "sample_next": _sample_next}


def _ops_with(name, fn):
    ops = dict(_RIGHT_OPS)
    ops[name] = fn
    return ops


# ============================================================================================================
# compound mistakes (two slips at once) for the exercises above
# ============================================================================================================

def _values_sorted_transposed(tokens, table, Wv):
    X = np.array([table[w] for w in sorted(tokens)])
    return Wv.T @ X.T


def _one_hot_int_width_from_data(ids, vocab_size):
    return np.eye(ids.max() + 1, dtype=int)[ids]


def _ucw_integer_division_columns(n):
    return np.tril(np.ones((n, n), dtype=int)) // np.arange(1, n + 1)


def _ca_axis1_divide_by_n(V):
    return np.cumsum(V, axis=1) / V.shape[0]


def _sim_transposed_scaled(Q, K):
    return K @ Q.T / np.sqrt(Q.shape[1])


def _ls_scaled_masked(X, Wq, Wk):
    return (X @ Wq) @ (X @ Wk).T / np.sqrt(Wq.shape[1]) + _causal_mask(X.shape[0])


def _sm_in_place_global_max(S, axis=-1):
    S -= S.max()
    np.exp(S, out=S)
    S /= S.sum(axis=axis, keepdims=True)
    return S


def _sa_no_scale_ignores_Wo(X, Wq, Wk, Wv, Wo=None, causal=True):
    return _attention(X @ Wq, X @ Wk, X @ Wv, causal, scale=False)


def _fl_plus_one_misses_last_row(attn, X):
    n = X.shape[0]
    base = np.asarray(attn(X), dtype=float).reshape(n, -1)
    tol = 1e-9 * max(1.0, float(np.abs(base).max()))
    worst = 0
    for j in range(1, n - 1):
        moved = X.copy()
        moved[j] += 1.0
        change = np.abs(np.asarray(attn(moved), dtype=float).reshape(n, -1) - base).max(axis=1)
        for i in range(j):
            if change[i] > tol:
                worst = max(worst, j - i + 1)
                break
    return worst


def _em_last_positions_in_place(tokens, tok_emb, pos_emb):
    X = pos_emb[-len(tokens):]  # the wrong rows, and a view
    X += tok_emb[tokens]
    return X


def _gelu_no_half_no_cubic(X):
    return X * (1.0 + np.tanh(GELU_C * X))


def _tb_no_residuals(X, p, n_heads, causal=True):
    Y = _tb_attn(_layer_norm(X, p["ln1_g"], p["ln1_b"]), p, n_heads, causal)
    return _mlp(_layer_norm(Y, p["ln2_g"], p["ln2_b"]), p)


def _ntl_all_rows_softmax(H, W_vocab):
    return _softmax(H @ W_vocab, axis=-1)


def _ce_log_of_softmax_summed(logits, targets):
    n = logits.shape[0]
    P = _softmax(logits, axis=1)
    dlogits = P.copy()
    dlogits[np.arange(n), targets] -= 1.0
    return -np.log(P[np.arange(n), targets]).sum(), dlogits


def _ab_square_habit_transposes(Q, K, V, dO, causal=True, scale=True):
    s, A = _ab_parts(Q, K, V, dO, causal, scale)
    dS = _softmax_backward(A, dO @ V.T) * s
    return dS @ K, dS @ Q, A @ dO


def _lnb_no_mean_term_no_g(X, g, dY, eps=1e-5):
    Xhat, rstd = _ln_stats(X, eps)
    dX = rstd * (dY - Xhat * (dY * Xhat).mean(axis=1, keepdims=True))
    return dX, (dY * Xhat).sum(axis=0), dY.sum(axis=0)


def _ma_columns_indices(A, tokens):
    return [int(j) for j in np.argmax(A, axis=0)]


def _ae_log2_nan_on_zeros(A):
    return -(A * np.log2(A)).sum(axis=1)


def _pm_keep_mask_bool(n_q, n_valid, n_k):
    return np.tile(np.arange(n_k) < n_valid, (n_q, 1))  # True where a key may be attended (PyTorch-style keep mask)


def _xa_roles_swapped_no_scale(X, Z, Wq, Wk, Wv):
    return _attention(Z @ Wq, X @ Wk, X @ Wv, causal=False, scale=False)


def _as_drops_new_row_no_scale(q, K_cache, V_cache):
    return _softmax(K_cache[:-1] @ q) @ V_cache[:-1]


def _sn_no_rescale_numpy_int(logits, temperature, u):
    if temperature == 0:
        return np.argmax(logits)
    z = (logits - np.max(logits)) / temperature
    p = np.exp(z)
    return np.searchsorted(np.cumsum(p / p.sum()), u, side="right")


def _mct_float_division_no_factor_two(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    return int(memory_bytes / (n_layers * n_heads * d_head * batch * bytes_per_value))


def _cs_attends_before_append_returns_old(q, k, v, K_cache, V_cache):
    return _attend_step(q, K_cache, V_cache), K_cache, V_cache


def _gen_stale_logits_new_only(p, prompt, n_new, cache_step):
    return _gen_stale_logits(p, prompt, n_new, cache_step)[len(prompt):]


# ============================================================================================================
# the set
# ============================================================================================================


MISTAKES = [
    # 01 project
    Mistake("project", "computes W @ x (column-vector habit) instead of x @ W, which contracts x with the output axis of W",
      _project_column_habit),
    Mistake("project", "multiplies x into W and sums along axis 1 (the output axis) instead of axis 0, returning (d_in,)",
      _project_sum_wrong_axis),
    Mistake("project", "the loop over input features starts at 1, so x[0] * W[0] is left out of every output", _project_skips_first_input),
    Mistake("project", "returns a (1, d_out) row matrix (x[None] @ W) instead of the 1-D vector (d_out,)", _project_keeps_row_axis),
    Mistake("project", "allocates the output with x's length (np.zeros_like(x)), so its size is d_in instead of d_out",
      _project_output_like_x),
    # 01 compose
    Mistake("compose", "multiplies in column-vector order, W2 @ W1, instead of W1 @ W2", _compose_order_swapped),
    Mistake("compose", "returns the transpose of the composite, W2.T @ W1.T (the column-vector matrix), shape (d_out, d_in)",
      _compose_transposed),
    Mistake("compose", "multiplies the two matrices entry by entry (W1 * W2) instead of taking their matrix product",
      _compose_elementwise),
    Mistake("compose", "computes W1 @ W2 in place (W1 @= W2), overwriting the caller's W1", _compose_in_place),
    # 02 project_rows
    Mistake("project_rows", "returns W.T @ X.T, the (d_out, n) transpose of the answer", _project_rows_transposed),
    Mistake("project_rows", "the row loop stops at n - 1, so the last output row stays zero", _project_rows_loop_off_by_one),
    Mistake("project_rows", "allocates the output with X's shape (np.zeros_like(X)), which fails or is the wrong shape when d_out != d_in",
      _project_rows_zeros_like),
    Mistake("project_rows", "writes each projected row back into X (X[i] = X[i] @ W), modifying the input", _project_rows_overwrites_X),
    Mistake("project_rows", "subtracts the column means of X before projecting, so rows influence each other", _project_rows_centres),
    Mistake("project_rows", "computes the product in float32, which overflows to inf for large but valid inputs", _project_rows_float32),
    # 02 matmul_cost
    Mistake("matmul_cost", "counts FLOPs (multiplications and additions), 2 * n * d_in * d_out, instead of the multiplications",
      _matmul_cost_flops),
    Mistake("matmul_cost", "counts the additions, n * (d_in - 1) * d_out, instead of the multiplications", _matmul_cost_additions),
    Mistake("matmul_cost", "returns np.prod([n, d_in, d_out]), a numpy int64, instead of a Python int", _matmul_cost_numpy_int),
    Mistake("matmul_cost", "computes the product through a float, so counts above 2**53 are rounded", _matmul_cost_through_float),
    Mistake("matmul_cost", "multiplies numpy int32 values, which overflow and wrap around for large sizes", _matmul_cost_int32),
    Mistake("matmul_cost", "uses n where d_in belongs: n * n * d_out", _matmul_cost_n_for_d_in),
    Mistake("matmul_cost", "counts the dot products (output entries) n * d_out, forgetting each takes d_in multiplications",
      _matmul_cost_dot_products),
    Mistake("matmul_cost", "counts FLOPs (factor 2) and returns a numpy int64 from np.prod instead of a Python int",
      _matmul_cost_flops_numpy),
    # 03 values
    Mistake("values", "builds X from set(tokens), dropping the repeated 'the' and losing the sentence order", _values_set),
    Mistake("values", "keeps only the first occurrence of each word (dict.fromkeys), so repeated tokens get no row",
      _values_unique_in_order),
    Mistake("values", "projects every row of the table (the whole vocabulary) instead of one row per token of the sentence",
      _values_whole_table),
    Mistake("values", "returns Wv.T @ X.T, the (d_v, n) transpose of V", _values_transposed),
    Mistake("values", "sorts the tokens alphabetically before looking them up, so the rows are out of sentence order", _values_sorted),
    Mistake("values", "the loop runs to len(tokens) - 1, so the last token has no row", _values_drops_last),
    Mistake("values", "sorts the tokens and returns the (d_v, n) transpose Wv.T @ X.T", _values_sorted_transposed),
    # 03 one_hot
    Mistake("one_hot", "returns an integer array (np.eye(vocab_size, dtype=int)) instead of floats", _one_hot_int),
    Mistake("one_hot", "returns a boolean array instead of a float array of 0.0 and 1.0", _one_hot_bool),
    Mistake("one_hot", "takes the width from the data (ids.max() + 1) instead of vocab_size", _one_hot_width_from_data),
    Mistake("one_hot", "returns the (vocab_size, n) transpose: one column per token instead of one row", _one_hot_transposed),
    Mistake("one_hot", "sorts ids in place (ids.sort()), modifying the caller's ids and putting the rows in sorted order",
      _one_hot_sorts_ids),
    Mistake("one_hot", "puts the 1.0 in column ids[i] - 1 (1-based habit), so id 0 lands in the last column", _one_hot_one_based),
    Mistake("one_hot", "an int identity sized from the data, np.eye(ids.max() + 1, dtype=int)[ids]: wrong dtype and width", _one_hot_int_width_from_data),
    # 04 uniform_causal_weights
    Mistake("uniform_causal_weights", "divides by the counts along the columns (arange without [:, None]): entry (i, j) is 1/(j+1)",
      _ucw_divides_columns),
    Mistake("uniform_causal_weights", "builds the upper triangle (np.triu), the transpose of the causal weights", _ucw_upper),
    Mistake("uniform_causal_weights", "divides every row by n instead of by i + 1, so rows do not sum to 1", _ucw_by_n),
    Mistake("uniform_causal_weights", "integer division (//) on an int array, giving 0 instead of 1/(i+1) for every row after the first",
      _ucw_integer_division),
    Mistake("uniform_causal_weights", "excludes the diagonal (tril with k=-1): row i averages columns 0..i-1 and row 0 is all zeros",
      _ucw_strict),
    Mistake("uniform_causal_weights", "off-by-one in the counts: row i holds 1/(i+2) instead of 1/(i+1)", _ucw_counts_from_two),
    Mistake("uniform_causal_weights", "integer division on an int array, and the counts divide the columns instead of the rows", _ucw_integer_division_columns),
    # 04 causal_average
    Mistake("causal_average", "takes the running sum along axis 1 (features) instead of axis 0 (rows)", _ca_cumsum_axis1),
    Mistake("causal_average", "divides the running sums by n instead of by i + 1", _ca_divide_by_n),
    Mistake("causal_average", "divides by the counts along the columns (arange without [:, None]), wrong or failing unless d == n",
      _ca_counts_along_columns),
    Mistake("causal_average", "puts the mean of all rows in every row, ignoring causality", _ca_full_mean),
    Mistake("causal_average", "row i averages rows 0..i-1 (V[:i]), leaving out row i itself, so row 0 is NaN", _ca_excludes_self),
    Mistake("causal_average", "computes the running sum in place (np.cumsum(..., out=V)), overwriting the caller's V", _ca_in_place),
    Mistake("causal_average", "running sum along axis 1 (features) and divided by n", _ca_axis1_divide_by_n),
    # 05 similarity
    Mistake("similarity", "returns K @ Q.T, the (n_k, n_q) transpose of the scores", _sim_transposed),
    Mistake("similarity", "divides by sqrt(d) although the task asks for raw, unscaled scores", _sim_scaled),
    Mistake("similarity", "multiplies Q and K row by row and sums: only the dot products of query i with key i, shape (n,)",
      _sim_rowwise),
    Mistake("similarity", "normalises the rows first (cosine similarity) instead of taking raw dot products", _sim_cosine),
    Mistake("similarity", "computes Q.T @ K, a (d, d) matrix over features, instead of Q @ K.T over tokens", _sim_feature_outer),
    Mistake("similarity", "returns K @ Q.T (transposed) and divides by sqrt(d) although no scaling is asked", _sim_transposed_scaled),
    # 05 learned_scores
    Mistake("learned_scores", "uses the queries for both sides, (X Wq)(X Wq)^T, ignoring Wk, so the scores come out symmetric",
      _ls_queries_twice),
    Mistake("learned_scores", "returns keys times queries, (X Wk)(X Wq)^T: the transpose of the scores", _ls_transposed),
    Mistake("learned_scores", "divides the scores by sqrt(d) although the task asks for no scaling", _ls_scaled),
    Mistake("learned_scores", "adds a causal mask (-inf above the diagonal) although the task asks for no mask", _ls_masked),
    Mistake("learned_scores", "applies a row softmax, returning weights instead of raw scores", _ls_softmaxed),
    Mistake("learned_scores", "divides by sqrt(d) and adds a causal mask, although the task asks for neither", _ls_scaled_masked),
    # 06 causal_mask
    Mistake("causal_mask", "the causal mask also hides the diagonal (triu with k=0), so a token cannot attend to itself",
      _cm_hides_diagonal),
    Mistake("causal_mask", "masks the past (below the diagonal) instead of the future", _cm_masks_past),
    Mistake("causal_mask", "uses a large negative number (-1e9) instead of -inf above the diagonal", _cm_large_negative),
    Mistake("causal_mask", "returns a multiplicative 0/1 mask (1 on and below the diagonal) instead of the additive 0/-inf mask",
      _cm_multiplicative),
    Mistake("causal_mask", "multiplies -inf by a 0/1 triangle, so 0 * -inf puts NaN on and below the diagonal", _cm_nan_below),
    Mistake("causal_mask", "starts the mask one diagonal too far (triu with k=2), so each row sees one future position",
      _cm_leaks_one),
    Mistake("causal_mask", "returns a boolean array (True on the future) instead of the float 0/-inf mask", _cm_bool),
    Mistake("causal_mask", "hides the diagonal too (k=0) and uses -1e9 instead of -inf", _cm_diag_and_large_negative),
    # 06 softmax
    Mistake("softmax", "does not subtract the max before np.exp, so scores around 1000 overflow to inf/NaN", _sm_no_max),
    Mistake("softmax", "the max is subtracted along axis 0 while the sum runs along the given axis", _sm_max_axis0),
    Mistake("softmax", "sums without keepdims, so the division broadcasts against the wrong axis (wrong or failing)",
      _sm_sum_no_keepdims),
    Mistake("softmax", "ignores the axis argument and always normalises along the last axis", _sm_ignores_axis),
    Mistake("softmax", "the default for axis is 0 instead of -1, so softmax(S) normalises columns", _sm_default_axis0),
    Mistake("softmax", "subtracts the global max instead of the max along the axis, so a row far below it underflows to 0/0",
      _sm_global_max),
    Mistake("softmax", "works in place (S -= max, np.exp(out=S)), overwriting the caller's scores", _sm_in_place),
    Mistake("softmax", "replaces -inf entries by 0 before the exponential, so masked positions get weight", _sm_inf_to_zero),
    Mistake("softmax", "the numerator is shifted by the max but the denominator sums the unshifted exponentials", _sm_unshifted_denominator),
    Mistake("softmax", "returns the log-softmax (log-probabilities) instead of the probabilities", _sm_log_softmax),
    Mistake("softmax", "no max subtraction (overflow at large scores) and the sum is taken without keepdims",
      _sm_no_max_no_keepdims),
    Mistake("softmax", "subtracts the global max instead of the max along the axis, and works in place on the caller's S", _sm_in_place_global_max),
    # 06 score_scale
    Mistake("score_scale", "returns 1/d, dividing by the variance instead of the standard deviation", _ss_one_over_d),
    Mistake("score_scale", "returns sqrt(d), the divisor, instead of the factor 1/sqrt(d)", _ss_sqrt_d),
    Mistake("score_scale", "operator precedence: 1 / d ** 1 / 2 computes 1/(2d) instead of 1/sqrt(d)", _ss_precedence),
    Mistake("score_scale", "uses the unbiased d - 1: returns 1/sqrt(d - 1)", _ss_unbiased),
    Mistake("score_scale", "floor division 1 // sqrt(d) gives 0.0 for every d > 1", _ss_floor_division),
    Mistake("score_scale", "returns a numpy float32, not a float, and only about 7 digits exact", _ss_float32),
    # 06 attention_weights
    Mistake("attention_weights", "the causal mask is anchored at the top-left for n_q < n_k, so query i sees only keys 0..i",
      _aw_square_mask),
    Mistake("attention_weights", "zeroes the future after the softmax without renormalising, so rows no longer sum to 1",
      _aw_mask_after_softmax),
    Mistake("attention_weights", "scales the scores by 1/d instead of 1/sqrt(d)", _aw_scale_by_d),
    Mistake("attention_weights", "ignores scale=False and always divides by sqrt(d)", _aw_always_scaled),
    Mistake("attention_weights", "divides by sqrt(n_k) (K.shape[0], the number of keys) instead of sqrt(d)", _aw_scale_by_n_k),
    Mistake("attention_weights", "softmax along axis 0 (over queries) instead of along each row", _aw_softmax_axis0),
    Mistake("attention_weights", "the causal mask also hides the diagonal, so a query cannot attend to its own key",
      _aw_hides_diagonal),
    Mistake("attention_weights", "multiplies the scores by sqrt(d) instead of dividing", _aw_multiplies_sqrt),
    Mistake("attention_weights", "ignores causal=False and always applies the causal mask", _aw_always_masked),
    Mistake("attention_weights", "never scales the scores and the causal mask also hides the diagonal", _aw_diag_no_scale),
    # 07 attention
    Mistake("attention", "no 1/sqrt(d) scaling of the scores even when scale=True", _att_no_scale),
    Mistake("attention", "scales the scores by 1/d instead of 1/sqrt(d)", _att_scale_by_d),
    Mistake("attention", "softmax along axis 0 (over queries) instead of over the keys of each row", _att_softmax_axis0),
    Mistake("attention", "mixes the values with the transposed weights, A.T @ V", _att_weights_transposed),
    Mistake("attention", "the causal mask also hides the diagonal, so a token cannot attend to itself", _att_hides_diagonal),
    Mistake("attention", "the causal mask starts one diagonal too far, so each row sees one future token", _att_leaks_one),
    Mistake("attention", "the causal mask is anchored at the top-left for n_q < n_k instead of at the last n_q positions",
      _att_square_mask),
    Mistake("attention", "ignores causal=False and always applies the causal mask", _att_always_causal),
    Mistake("attention", "ignores scale=False and always divides by sqrt(d)", _att_always_scaled),
    Mistake("attention", "no max subtraction in the softmax, so large scores overflow to inf/NaN", _att_no_max),
    Mistake("attention", "masks after the softmax by zeroing future weights, without renormalising the rows", _att_mask_after_softmax),
    Mistake("attention", "softmax over all keys, then zeroes the future and renormalises: the past underflows to 0/0 when a future score dominates",
      _att_mask_after_softmax_renormalised),
    Mistake("attention", "scales by sqrt(d_v) (V's width) instead of sqrt(d) (Q's width)", _att_scale_by_d_v),
    Mistake("attention", "divides the output O by sqrt(d) instead of the scores", _att_scales_output),
    Mistake("attention", "computes in float32, so large but valid scores overflow to inf/NaN", _att_float32),
    Mistake("attention", "mixes the keys instead of the values: A @ K", _att_keys_as_values),
    Mistake("attention", "scales Q in place (Q /= sqrt(d)), modifying the caller's Q", _att_scales_Q_in_place),
    Mistake("attention", "multiplies the scores by a 0/1 mask instead of adding -inf, so future scores become 0 and keep weight",
      _att_multiplicative_mask),
    Mistake("attention", "no scaling and softmax along axis 0", _att_no_scale_axis0),
    Mistake("attention", "causal mask anchored at the top-left for n_q < n_k and scores scaled by 1/d", _att_square_mask_scale_d),
    Mistake("attention", "the mask leaks one future token and the softmax has no max subtraction", _att_leak_no_max),
    # 07 self_attention
    Mistake("self_attention", "ignores Wo: never applies the output projection", _sa_ignores_Wo),
    Mistake("self_attention", "tests `if Wo:`, which raises on an array, instead of `if Wo is not None`", _sa_truthy_Wo),
    Mistake("self_attention", "no 1/sqrt(d_head) scaling of the scores", _sa_no_scale),
    Mistake("self_attention", "scales by sqrt(d_model) instead of sqrt(d_head)", _sa_scale_d_model),
    Mistake("self_attention", "queries from Wk and keys from Wq (swapped), giving the transposed scores", _sa_q_k_swapped),
    Mistake("self_attention", "ignores causal=False and always applies the causal mask", _sa_always_causal),
    Mistake("self_attention", "multiplies by Wo.T instead of Wo", _sa_Wo_transposed),
    Mistake("self_attention", "the default is causal=False instead of causal=True, so the plain call is unmasked", _sa_default_not_causal),
    Mistake("self_attention", "queries and keys swapped, and Wo never applied", _sa_swapped_and_no_Wo),
    Mistake("self_attention", "no 1/sqrt(d_head) scaling, and Wo never applied", _sa_no_scale_ignores_Wo),
    # 07 future_leak
    Mistake("future_leak", "returns how many output rows leak instead of how far ahead the worst row sees", _fl_counts_rows),
    Mistake("future_leak", "returns the smallest distance that leaks (the first found) instead of the largest", _fl_first_found),
    Mistake("future_leak", "uses an absolute 1e-9 threshold not scaled by the largest output, so rounding noise on large outputs counts as a leak",
      _fl_absolute_threshold),
    Mistake("future_leak", "uses np.allclose (rtol 1e-5) as 'unchanged', so a small but real leak is missed", _fl_allclose),
    Mistake("future_leak", "moves the rows of X itself (no copy), modifying X and accumulating the moves", _fl_moves_X_in_place),
    Mistake("future_leak", "never moves the last row (loop to n - 1), so the largest distance n - 1 is missed", _fl_misses_last_row),
    Mistake("future_leak", "off by one: returns j - i + 1 instead of j - i", _fl_plus_one),
    Mistake("future_leak", "only checks the next row (k = 1), returning 1 or 0 however far the leak goes", _fl_neighbours_only),
    Mistake("future_leak", "returns a bool (whether anything leaks) instead of the distance", _fl_returns_bool),
    Mistake("future_leak", "never moves the last row, and returns j - i + 1 instead of j - i", _fl_plus_one_misses_last_row),
    # 07 tiled_attention
    Mistake("tiled_attention", "does not rescale acc by exp(m_old - m_new) when a tile raises the max", _ta_no_acc_rescale),
    Mistake("tiled_attention", "does not rescale the running sum l by exp(m_old - m_new) when a tile raises the max", _ta_no_l_rescale),
    Mistake("tiled_attention", "rescales by exp(m_new - m_old) (sign flipped) instead of exp(m_old - m_new)", _ta_rescale_flipped),
    Mistake("tiled_attention", "the causal mask is anchored at the top-left for n_q < n_k instead of at the last positions",
      _ta_top_left_mask),
    Mistake("tiled_attention", "divides acc by l after every tile instead of once at the end", _ta_normalise_each_tile),
    Mistake("tiled_attention", "no 1/sqrt(d) scaling of the scores", _ta_no_scale),
    Mistake("tiled_attention", "scales the scores by 1/d instead of 1/sqrt(d)", _ta_scale_by_d),
    Mistake("tiled_attention", "the running max starts at 0 instead of -inf, so rows whose scores are all far below 0 underflow to 0/0",
      _ta_max_starts_at_zero),
    Mistake("tiled_attention", "the query loop stops before a last partial block, leaving those rows zero", _ta_drops_partial_block),
    Mistake("tiled_attention", "the mask inside a tile also hides the diagonal", _ta_hides_diagonal),
    Mistake("tiled_attention", "no scaling and no rescaling of acc when the max rises", _ta_no_scale_no_acc_rescale),
    Mistake("tiled_attention", "computes each query block against every key at once (a block x n_k strip), over the memory budget",
      _ta_strip_of_scores),
    Mistake("tiled_attention", "computes the whole (n_q, n_k) score matrix at once: right values, far over the memory budget",
      _ta_whole_matrix),
    # 08 embed
    Mistake("embed", "indexes the position table by the token ids (pos_emb[tokens]) instead of by position", _em_positions_by_token),
    Mistake("embed", "takes the last n rows of the position table (pos_emb[-n:]) instead of the first n", _em_last_positions),
    Mistake("embed", "positions start at 1 (pos_emb[1:n+1]) instead of 0", _em_positions_from_one),
    Mistake("embed", "ignores the token ids: takes the first n rows of tok_emb", _em_ignores_tokens),
    Mistake("embed", "concatenates word and position vectors (n, 2 d_model) instead of adding them", _em_concatenates),
    Mistake("embed", "adds the word vectors into a view of pos_emb (+=), modifying the position table", _em_adds_into_pos_emb),
    Mistake("embed", "adds the whole position table (max_len rows) instead of its first n rows", _em_whole_pos_table),
    Mistake("embed", "takes the last n position rows and adds the word vectors into that view of pos_emb, modifying it", _em_last_positions_in_place),
    # 08 sinusoidal_positions
    Mistake("sinusoidal_positions", "the exponent uses i/d instead of 2i/d for pair i, so frequencies fall too slowly",
      _sp_pair_index_over_d),
    Mistake("sinusoidal_positions", "cosines on the even columns and sines on the odd ones (swapped)", _sp_sin_cos_swapped),
    Mistake("sinusoidal_positions", "all sines in the first half and all cosines in the second, instead of interleaved pairs",
      _sp_halves),
    Mistake("sinusoidal_positions", "uses the column index k in the exponent (k/d) for every column, so a pair's sine and cosine have different frequencies",
      _sp_column_index_exponent),
    Mistake("sinusoidal_positions", "positions run 1..n instead of 0..n-1", _sp_positions_from_one),
    Mistake("sinusoidal_positions", "multiplies the position by 10000^(2i/d) instead of dividing", _sp_multiplies),
    Mistake("sinusoidal_positions", "returns the (d, n) transpose of the table", _sp_transposed),
    Mistake("sinusoidal_positions", "sin and cos swapped, and the exponent uses i/d instead of 2i/d", _sp_swapped_and_pair_over_d),
    # 09 split_heads
    Mistake("split_heads", "reshapes straight to (n_heads, n, d_head) without a transpose, scrambling tokens and columns",
      _sh_reshape_only),
    Mistake("split_heads", "heads interleaved: head h takes every n_heads-th column instead of a contiguous block", _sh_interleaved),
    Mistake("split_heads", "returns (n, n_heads, d_head): reshaped but never transposed", _sh_no_transpose),
    Mistake("split_heads", "assigns M.shape = (n, n_heads, d_head), reshaping the caller's array in place", _sh_sets_shape_in_place),
    Mistake("split_heads", "hard-codes two heads: d_head = d_model // 2 whatever n_heads is", _sh_assumes_two_heads),
    Mistake("split_heads", "the head loop runs to n_heads - 1, so the last head is missing", _sh_last_head_missing),
    # 09 multi_head_attention
    Mistake("multi_head_attention", "heads interleaved: head h takes every n_heads-th column instead of a contiguous block",
      _mha_interleaved),
    Mistake("multi_head_attention", "scales by sqrt(n_heads * d_head) (the full width) instead of sqrt(d_head)", _mha_scale_d_model),
    Mistake("multi_head_attention", "no 1/sqrt(d_head) scaling in the heads", _mha_no_scale),
    Mistake("multi_head_attention", "forgets the output projection Wo after concatenating", _mha_forgets_Wo),
    Mistake("multi_head_attention", "concatenates the heads in reverse order", _mha_reversed_concat),
    Mistake("multi_head_attention", "every head uses the first block of columns (the slice ignores h)", _mha_first_head_every_time),
    Mistake("multi_head_attention", "splits and merges heads with plain reshapes (no transpose), so a 'head' mixes tokens and columns",
      _mha_split_by_reshape),
    Mistake("multi_head_attention", "merges the (n_heads, n, d_head) outputs with a reshape but no transpose, scrambling rows",
      _mha_merge_without_transpose),
    Mistake("multi_head_attention", "takes d_head from d_model (X.shape[1] // n_heads) instead of the projections' width",
      _mha_d_head_from_d_model),
    Mistake("multi_head_attention", "the head loop runs to n_heads - 1, so the last head's output stays zero", _mha_last_head_missing),
    Mistake("multi_head_attention", "ignores causal=False and always masks", _mha_always_causal),
    Mistake("multi_head_attention", "softmax along axis 0 inside each head", _mha_softmax_axis0),
    Mistake("multi_head_attention", "computes one attention pattern (head 0's) and reuses it for every head", _mha_shared_scores),
    Mistake("multi_head_attention", "heads interleaved and scaled by sqrt(d_model) instead of sqrt(d_head)",
      _mha_interleaved_scale_d_model),
    Mistake("multi_head_attention", "no scaling in the heads and no output projection Wo", _mha_no_Wo_no_scale),
    # 10 layer_norm
    Mistake("layer_norm", "uses the unbiased variance (ddof=1, divides by d - 1) instead of the biased one", _ln_unbiased),
    Mistake("layer_norm", "adds eps outside the square root: (X - mean) / (std + eps)", _ln_eps_outside),
    Mistake("layer_norm", "normalises each column (axis 0) instead of each row", _ln_columns),
    Mistake("layer_norm", "no eps at all, so a constant row divides by zero", _ln_no_eps),
    Mistake("layer_norm", "g and b swapped: multiplies by b and adds g", _ln_g_b_swapped),
    Mistake("layer_norm", "mean and variance without keepdims, so they broadcast along columns (wrong or failing)", _ln_no_keepdims),
    Mistake("layer_norm", "variance as E[x^2] - E[x]^2, which cancels catastrophically for rows with a large mean", _ln_one_pass_variance),
    Mistake("layer_norm", "normalises in float32, losing the row's variation when its mean is large", _ln_float32),
    Mistake("layer_norm", "divides by the variance instead of its square root", _ln_divides_by_variance),
    Mistake("layer_norm", "centres and scales X in place (X -= mean), modifying the caller's X", _ln_in_place),
    Mistake("layer_norm", "the default eps is 1e-12 (BERT's) instead of 1e-5", _ln_eps_default_bert),
    Mistake("layer_norm", "unbiased variance and eps outside the square root", _ln_unbiased_eps_outside),
    # 10 gelu
    Mistake("gelu", "ReLU instead of GELU", _gelu_relu),
    Mistake("gelu", "the exact erf GELU instead of the tanh approximation the task asks for", _gelu_exact_erf),
    Mistake("gelu", "drops the factor 0.5", _gelu_no_half),
    Mistake("gelu", "uses sqrt(2 pi) instead of sqrt(2 / pi)", _gelu_sqrt_2pi),
    Mistake("gelu", "uses 2/pi without the square root", _gelu_no_sqrt),
    Mistake("gelu", "x^2 instead of x^3 in the inner term", _gelu_square),
    Mistake("gelu", "the sigmoid approximation x * sigmoid(1.702 x) instead of the tanh formula", _gelu_sigmoid),
    Mistake("gelu", "drops the cubic term: tanh(sqrt(2/pi) x)", _gelu_no_cubic),
    Mistake("gelu", "bracket slip: sqrt(2/pi) multiplies x only, not x + 0.044715 x^3", _gelu_bracket),
    Mistake("gelu", "uses math.tanh, which only takes scalars, so arrays raise", _gelu_math_tanh),
    Mistake("gelu", "drops the factor 0.5 and the cubic term: x (1 + tanh(sqrt(2/pi) x))", _gelu_no_half_no_cubic),
    # 10 transformer_block
    Mistake("transformer_block", "post-LN instead of pre-LN: layer norm after each residual add", _tb_post_ln),
    Mistake("transformer_block", "no residual around attention: Y = MHA(LN1(X))", _tb_no_attention_residual),
    Mistake("transformer_block", "no residual around the MLP: returns MLP(LN2(Y))", _tb_no_mlp_residual),
    Mistake("transformer_block", "the MLP reads LN2(X) instead of LN2(Y) (a parallel block)", _tb_parallel_mlp),
    Mistake("transformer_block", "uses ln1_g, ln1_b for the second layer norm too", _tb_ln1_twice),
    Mistake("transformer_block", "the GELU is applied after W2 (and b2) instead of after W1 + b1", _tb_gelu_after_W2),
    Mistake("transformer_block", "ReLU instead of GELU in the MLP", _tb_relu),
    Mistake("transformer_block", "the attention residual adds LN1(X) instead of X", _tb_residual_from_normed),
    Mistake("transformer_block", "adds b1 after the GELU instead of before it", _tb_b1_after_gelu),
    Mistake("transformer_block", "ignores causal=False and always masks", _tb_always_causal),
    Mistake("transformer_block", "forgets the bias b2 of the second MLP layer", _tb_forgets_b2),
    Mistake("transformer_block", "attention reads X instead of LN1(X) (the first layer norm skipped)", _tb_attention_not_normed),
    Mistake("transformer_block", "post-LN instead of pre-LN, and ReLU instead of GELU", _tb_post_ln_relu),
    Mistake("transformer_block", "no residual connections at all: MLP(LN2(MHA(LN1(X))))", _tb_no_residuals),
    # 11 next_token_logits
    Mistake("next_token_logits", "uses the first row of H instead of the last", _ntl_first_row),
    Mistake("next_token_logits", "returns the logits of every row (n, vocab) instead of the last row's", _ntl_all_rows),
    Mistake("next_token_logits", "applies a softmax: returns probabilities instead of raw logits", _ntl_softmax),
    Mistake("next_token_logits", "uses the mean of the rows of H instead of the last row", _ntl_mean_of_rows),
    Mistake("next_token_logits", "H[-1:] keeps the row axis: returns (1, vocab) instead of (vocab,)", _ntl_keeps_row_axis),
    Mistake("next_token_logits", "uses the second-to-last row H[-2] instead of the last", _ntl_second_to_last),
    Mistake("next_token_logits", "returns a softmax over every row's logits (n, vocab) instead of the last row's raw logits", _ntl_all_rows_softmax),
    # 11 cross_entropy
    Mistake("cross_entropy", "takes the log of the softmax probabilities, so a very unlikely target gives log(0) = -inf",
      _ce_log_of_softmax),
    Mistake("cross_entropy", "sums over the rows instead of averaging (loss and gradient not divided by n)", _ce_sum_not_mean),
    Mistake("cross_entropy", "the loss is averaged but the gradient is not divided by n", _ce_grad_not_divided),
    Mistake("cross_entropy", "the gradient has the wrong sign: one_hot - softmax", _ce_grad_sign),
    Mistake("cross_entropy", "the gradient forgets to subtract the one-hot target: softmax / n", _ce_grad_without_one_hot),
    Mistake("cross_entropy", "the loss is missing its minus sign: mean log p(target)", _ce_loss_sign),
    Mistake("cross_entropy", "no max subtraction before exp, so logits around 1e4 overflow to inf/NaN", _ce_no_max),
    Mistake("cross_entropy", "the softmax runs over axis 0 (positions) instead of over each row's vocabulary", _ce_softmax_over_rows),
    Mistake("cross_entropy", "indexes logp[:, targets], averaging every row's log-probability of every target", _ce_fancy_index_all),
    Mistake("cross_entropy", "subtracts the row max from logits in place, modifying the caller's logits", _ce_in_place),
    Mistake("cross_entropy", "the loss is in bits (log base 2) instead of nats", _ce_log2),
    Mistake("cross_entropy", "returns (dlogits, loss) instead of (loss, dlogits)", _ce_swapped_outputs),
    Mistake("cross_entropy", "gradient sign flipped and not divided by n", _ce_sign_and_not_divided),
    Mistake("cross_entropy", "takes the log of the softmax (log(0) for unlikely targets) and sums the loss over rows instead of averaging", _ce_log_of_softmax_summed),
    # 11 softmax_backward
    Mistake("softmax_backward", "drops the sum term: returns A * dA", _sb_drops_sum),
    Mistake("softmax_backward", "the sum of dA * A runs over axis 0 instead of the last axis", _sb_sum_axis0),
    Mistake("softmax_backward", "the sum is taken without keepdims, so it broadcasts along the wrong axis", _sb_no_keepdims),
    Mistake("softmax_backward", "sign flipped: A * (sum(dA * A) - dA)", _sb_sign),
    Mistake("softmax_backward", "uses only the Jacobian's diagonal: A * (1 - A) * dA", _sb_diagonal_only),
    Mistake("softmax_backward", "subtracts sum(dA) instead of sum(dA * A)", _sb_unweighted_sum),
    Mistake("softmax_backward", "loops over the first axis with a per-row Jacobian, right for 2-D inputs only", _sb_two_d_only),
    Mistake("softmax_backward", "works in place on dA, modifying the caller's gradient", _sb_in_place),
    Mistake("softmax_backward", "subtracts the mean of dA * A instead of its sum", _sb_mean_not_sum),
    Mistake("softmax_backward", "drops the sum term and flips the sign: -A * dA", _sb_drops_sum_and_sign),
    # 11 attention_backward
    Mistake("attention_backward", "forgets the scale s in dS, so dQ and dK are sqrt(d) times too large", _ab_no_scale),
    Mistake("attention_backward", "applies the scale s twice to dQ and dK", _ab_scale_twice),
    Mistake("attention_backward", "dK = dS @ Q instead of dS.T @ Q", _ab_dK_no_transpose),
    Mistake("attention_backward", "dQ = dS.T @ K instead of dS @ K", _ab_dQ_transposed),
    Mistake("attention_backward", "drops the softmax backward's sum term: dS = A * dA * s", _ab_drops_softmax_sum),
    Mistake("attention_backward", "recomputes A without the causal mask in the backward pass", _ab_unmasked_weights),
    Mistake("attention_backward", "the causal mask is anchored at the top-left for n_q < n_k", _ab_square_mask),
    Mistake("attention_backward", "dK = dS.T @ K instead of dS.T @ Q", _ab_dK_uses_K),
    Mistake("attention_backward", "dA = V @ dO.T (transposed) instead of dO @ V.T", _ab_dA_transposed),
    Mistake("attention_backward", "the sign of dS is flipped, so dQ and dK point the wrong way", _ab_dS_sign),
    Mistake("attention_backward", "ignores scale=False and always scales by 1/sqrt(d)", _ab_always_scaled),
    Mistake("attention_backward", "scales dS by 1/d instead of 1/sqrt(d)", _ab_scale_one_over_d),
    Mistake("attention_backward", "returns (dQ, dV, dK) instead of (dQ, dK, dV)", _ab_wrong_order),
    Mistake("attention_backward", "dV = A @ dO instead of A.T @ dO", _ab_dV_no_transpose),
    Mistake("attention_backward", "the softmax backward's sum runs over axis 0 instead of over each row", _ab_softmax_sum_axis0),
    Mistake("attention_backward", "also multiplies dV by the scale s", _ab_scales_dV),
    Mistake("attention_backward", "drops the softmax sum term and forgets the scale", _ab_no_scale_no_sum),
    Mistake("attention_backward", "dQ and dK built from their own matrices (dS @ Q, dS.T @ K) instead of the other one",
      _ab_swaps_dQ_dK),
    Mistake("attention_backward", "dK = dS @ Q and dV = A @ dO: both transposes missing (square-matrix habit)", _ab_square_habit_transposes),
    # 11 layer_norm_backward
    Mistake("layer_norm_backward", "treats the mean and variance as constants: dX = dY * g / sqrt(var + eps)", _lnb_constant_stats),
    Mistake("layer_norm_backward", "drops the mean term of dX (the row mean of dXhat)", _lnb_drops_mean_term),
    Mistake("layer_norm_backward", "drops the variance term of dX (Xhat * mean(dXhat * Xhat))", _lnb_drops_variance_term),
    Mistake("layer_norm_backward", "dg and db swapped", _lnb_dg_db_swapped),
    Mistake("layer_norm_backward", "dg is not summed over the rows: returns dY * Xhat of shape (n, d)", _lnb_dg_not_summed),
    Mistake("layer_norm_backward", "uses the unbiased variance (d - 1) in the forward statistics", _lnb_unbiased),
    Mistake("layer_norm_backward", "forgets to multiply dY by g before the normalisation's backward", _lnb_forgets_g),
    Mistake("layer_norm_backward", "the variance term of dX has the wrong sign (+ instead of -)", _lnb_variance_term_sign),
    Mistake("layer_norm_backward", "eps outside the square root (std + eps)", _lnb_eps_outside),
    Mistake("layer_norm_backward", "dg uses X instead of the normalised Xhat", _lnb_dg_uses_X),
    Mistake("layer_norm_backward", "returns (dg, db, dX) instead of (dX, dg, db)", _lnb_wrong_order),
    Mistake("layer_norm_backward", "db is the column mean of dY instead of its sum", _lnb_db_mean),
    Mistake("layer_norm_backward", "treats mean and variance as constants, and dg and db are swapped", _lnb_constant_stats_swapped),
    Mistake("layer_norm_backward", "drops the mean term of dX and forgets to multiply dY by g", _lnb_no_mean_term_no_g),
    # 12 most_attended
    Mistake("most_attended", "argmax along axis 0 (per key) instead of along each row", _ma_columns),
    Mistake("most_attended", "on exactly equal weights returns the later token instead of the earlier", _ma_last_on_ties),
    Mistake("most_attended", "returns the column indices instead of the tokens", _ma_indices),
    Mistake("most_attended", "argmin instead of argmax: the least attended token", _ma_argmin),
    Mistake("most_attended", "returns a numpy array of strings instead of a list", _ma_numpy_array),
    Mistake("most_attended", "takes the first of a stable ascending argsort reversed, so ties go to the later token",
      _ma_sorted_descending),
    Mistake("most_attended", "argmax along axis 0 (per key), and returns indices instead of tokens", _ma_columns_indices),
    # 12 attention_entropy
    Mistake("attention_entropy", "uses log base 2 (bits) instead of the natural log (nats)", _ae_log2),
    Mistake("attention_entropy", "forgets the minus sign: returns sum A log A, which is <= 0", _ae_no_minus),
    Mistake("attention_entropy", "takes log(A) of zero weights, so 0 * log 0 gives NaN instead of 0", _ae_nan_on_zeros),
    Mistake("attention_entropy", "sums over axis 0 (per key) instead of along each row", _ae_columns),
    Mistake("attention_entropy", "averages over the keys instead of summing", _ae_mean_not_sum),
    Mistake("attention_entropy", "divides by log(n_k) (normalised entropy)", _ae_normalised),
    Mistake("attention_entropy", "returns log of the number of nonzero weights, as if every row were uniform", _ae_log_of_support),
    Mistake("attention_entropy", "log base 2 and no minus sign", _ae_log2_no_minus),
    Mistake("attention_entropy", "log base 2, and log(A) of zero weights gives NaN instead of 0", _ae_log2_nan_on_zeros),
    # 13 padding_mask
    Mistake("padding_mask", "off by one: column n_valid (the first padding key) stays visible", _pm_off_by_one),
    Mistake("padding_mask", "inverted: hides the real tokens and shows the padding", _pm_inverted),
    Mistake("padding_mask", "returns a boolean array (True on padding) instead of the float 0/-inf mask", _pm_bool),
    Mistake("padding_mask", "shape (n_k, n_k) instead of (n_q, n_k)", _pm_square),
    Mistake("padding_mask", "uses -1e9 instead of -inf on the padding", _pm_large_negative),
    Mistake("padding_mask", "also hides every key from the padding rows (rows >= n_valid all -inf)", _pm_masks_padding_rows),
    Mistake("padding_mask", "allocates an int array, which cannot hold -inf", _pm_int_array),
    Mistake("padding_mask", "returns the (n_k, n_q) transpose", _pm_transposed),
    Mistake("padding_mask", "off by one on the first padding column and -1e9 instead of -inf", _pm_off_by_one_large_negative),
    Mistake("padding_mask", "returns a boolean keep-mask (True on the real tokens) instead of the additive float 0/-inf mask", _pm_keep_mask_bool),
    # 13 cross_attention
    Mistake("cross_attention", "queries from Z and keys and values from X (roles swapped)", _xa_roles_swapped),
    Mistake("cross_attention", "applies a causal mask although cross-attention has none", _xa_causal),
    Mistake("cross_attention", "no 1/sqrt(d_head) scaling of the scores", _xa_no_scale),
    Mistake("cross_attention", "scales by sqrt(d_model) instead of sqrt(d_head)", _xa_scale_d_model),
    Mistake("cross_attention", "values from X (X Wv) instead of from Z", _xa_values_from_X),
    Mistake("cross_attention", "softmax along axis 0 instead of along each row", _xa_softmax_axis0),
    Mistake("cross_attention", "scales by sqrt(n_z) (the number of keys) instead of sqrt(d_head)", _xa_scale_n_z),
    Mistake("cross_attention", "keys from X (X Wk) instead of from Z", _xa_keys_from_X),
    Mistake("cross_attention", "queries from Z, keys and values from X (roles swapped), and no scaling", _xa_roles_swapped_no_scale),
    # 14 attend_step
    Mistake("attend_step", "no 1/sqrt(d) scaling of the scores", _as_no_scale),
    Mistake("attend_step", "no max subtraction in the softmax, so huge scores overflow to inf/NaN", _as_no_max),
    Mistake("attend_step", "scales by sqrt(t) (the cache length) instead of sqrt(d)", _as_scale_by_t),
    Mistake("attend_step", "leaves out the last cache row (the new token's own key and value)", _as_drops_new_row),
    Mistake("attend_step", "applies the first row of a t x t causal mask, so the query sees only key 0", _as_square_causal_mask),
    Mistake("attend_step", "scales by sqrt(d_v) instead of sqrt(d)", _as_scale_by_d_v),
    Mistake("attend_step", "computes in float32, so huge scores overflow", _as_float32),
    Mistake("attend_step", "no scaling and no max subtraction", _as_no_scale_no_max),
    Mistake("attend_step", "leaves out the new token's own row and forgets the 1/sqrt(d) scale", _as_drops_new_row_no_scale),
    # 14 cache_step
    Mistake("cache_step", "prepends k and v as the first rows of the caches instead of appending them", _cs_prepends),
    Mistake("cache_step", "returns the old caches instead of the grown ones", _cs_returns_old_caches),
    Mistake("cache_step", "attends before appending, so the new token cannot see its own key and value", _cs_attends_before_append),
    Mistake("cache_step", "appends v to the key cache and k to the value cache (swapped)", _cs_k_v_swapped),
    Mistake("cache_step", "no 1/sqrt(d) scaling of the scores", _cs_no_scale),
    Mistake("cache_step", "appends the query q to the key cache instead of k", _cs_caches_query),
    Mistake("cache_step", "returns (o, V_new, K_new) instead of (o, K_new, V_new)", _cs_returns_V_before_K),
    Mistake("cache_step", "scales q in place (q /= sqrt(d)), modifying the caller's q", _cs_scales_q_in_place),
    Mistake("cache_step", "np.append without axis=0 flattens the caches to 1-D", _cs_append_flattens),
    Mistake("cache_step", "prepends instead of appending, and forgets the scale", _cs_prepends_no_scale),
    Mistake("cache_step", "attends to the old caches before appending, and returns the old caches", _cs_attends_before_append_returns_old),
    # 14 sample_next
    Mistake("sample_next", "no greedy branch: divides by temperature 0 instead of returning the argmax", _sn_no_greedy_branch),
    Mistake("sample_next", "multiplies the logits by the temperature instead of dividing", _sn_multiplies_temperature),
    Mistake("sample_next", "searchsorted with side='left' picks the first cumulative probability >= u instead of > u",
      _sn_side_left),
    Mistake("sample_next", "does not rescale the cumulative sum to end at exactly 1, so u just below 1 runs off the end",
      _sn_no_rescale),
    Mistake("sample_next", "returns a numpy integer instead of a Python int", _sn_numpy_int),
    Mistake("sample_next", "no max subtraction before exp, so logits around 1e4 or tiny temperatures overflow", _sn_no_max),
    Mistake("sample_next", "greedy picks the last of several equal largest logits instead of the first", _sn_greedy_last_tie),
    Mistake("sample_next", "compares u with each token's own probability instead of the running total", _sn_u_against_probabilities),
    Mistake("sample_next", "raises the softmax probabilities to 1/T, which underflows to 0/0 for a tiny temperature",
      _sn_power_after_softmax),
    Mistake("sample_next", "ignores u and draws its own random number", _sn_own_random_number),
    Mistake("sample_next", "forgets to divide by the temperature when sampling", _sn_ignores_temperature),
    Mistake("sample_next", "multiplies by the temperature and uses side='left'", _sn_multiplies_and_left),
    Mistake("sample_next", "no rescale of the cumulative sum to 1, and returns a numpy integer", _sn_no_rescale_numpy_int),
    # 14 generate
    Mistake("generate", "positions off by one: token i gets pos_emb[i + 1]", _gen_position_off_by_one),
    Mistake("generate", "the logits come from o alone, without the residual x + o", _gen_no_residual),
    Mistake("generate", "the logits come from x alone: the attention output o is never used", _gen_ignores_attention),
    Mistake("generate", "does not keep the caches cache_step returns, so every token attends only to itself", _gen_caches_not_kept),
    Mistake("generate", "q from Wk and k from Wq (swapped)", _gen_q_k_swapped),
    Mistake("generate", "never feeds the generated tokens: the same logits pick every new token", _gen_stale_logits),
    Mistake("generate", "re-feeds the whole sequence into the same cache at every step, duplicating rows", _gen_refeeds_everything),
    Mistake("generate", "new tokens' positions restart at 0 instead of continuing after the prompt", _gen_positions_restart),
    Mistake("generate", "adds the position vector into a view of tok_emb (x += ...), modifying p", _gen_adds_into_tok_emb),
    Mistake("generate", "returns only the new tokens, without the prompt", _gen_new_tokens_only),
    Mistake("generate", "ignores the cache_step it is given and uses its own attention", _gen_own_attention),
    Mistake("generate", "off by one: generates n_new - 1 tokens", _gen_one_short),
    Mistake("generate", "unpacks cache_step's result as (o, V, K), swapping the caches", _gen_caches_swapped),
    Mistake("generate", "returns a float array instead of an int array", _gen_float_tokens),
    Mistake("generate", "positions off by one and no residual x + o", _gen_position_and_no_residual),
    Mistake("generate", "never feeds the new tokens (stale logits), and returns only the new tokens", _gen_stale_logits_new_only),
    # 14 kv_cache_bytes
    Mistake("kv_cache_bytes", "forgets the factor 2 (counts the keys only, not keys and values)", _kvb_no_factor_two),
    Mistake("kv_cache_bytes", "ignores batch", _kvb_ignores_batch),
    Mistake("kv_cache_bytes", "the default bytes_per_value is 4 instead of 2", _kvb_default_four_bytes),
    Mistake("kv_cache_bytes", "returns a numpy int64 from np.prod instead of a Python int", _kvb_numpy_int),
    Mistake("kv_cache_bytes", "multiplies in int32, which overflows for large caches", _kvb_int32),
    Mistake("kv_cache_bytes", "returns a float (2.0 * ...) instead of an int", _kvb_float),
    Mistake("kv_cache_bytes", "multiplies by 8: counts bits instead of bytes", _kvb_bits),
    Mistake("kv_cache_bytes", "forgets the factor 2 and ignores batch", _kvb_no_two_no_batch),
    # 14 max_cached_tokens
    Mistake("max_cached_tokens", "float division then int(), which rounds wrong beyond 2**53", _mct_float_division),
    Mistake("max_cached_tokens", "rounds up (ceiling) instead of down, so the answer may not fit", _mct_ceil),
    Mistake("max_cached_tokens", "forgets the factor 2 for keys and values", _mct_no_factor_two),
    Mistake("max_cached_tokens", "returns a numpy int64 (which overflows for huge memories) instead of a Python int", _mct_numpy_int),
    Mistake("max_cached_tokens", "returns at least 1 even when not one token fits", _mct_at_least_one),
    Mistake("max_cached_tokens", "requires the cache to be strictly smaller than memory_bytes, one token short when it fits exactly",
      _mct_strictly_less),
    Mistake("max_cached_tokens", "ignores bytes_per_value", _mct_ignores_bytes_per_value),
    Mistake("max_cached_tokens", "returns a float instead of an int", _mct_float_result),
    Mistake("max_cached_tokens", "forgets the factor 2 and goes through a float division", _mct_float_division_no_factor_two),
    # 15 capstone
    Mistake("capstone", "softmax: the default for axis is 0 instead of -1, so softmax(S) normalises the columns of the scores",
      _ops_with("softmax", _sm_default_axis0)),
    Mistake("capstone", "layer_norm: uses the unbiased variance (d - 1)", _ops_with("layer_norm", _ln_unbiased)),
    Mistake("capstone", "gelu: the exact erf GELU instead of the tanh approximation", _ops_with("gelu", _gelu_exact_erf)),
    Mistake("capstone", "cross_entropy: the gradient is not divided by n", _ops_with("cross_entropy", _ce_grad_not_divided)),
    Mistake("capstone", "attention_backward: forgets the scale in dS", _ops_with("attention_backward", _ab_no_scale)),
    Mistake("capstone", "layer_norm_backward: drops the mean term of dX", _ops_with("layer_norm_backward", _lnb_drops_mean_term)),
    Mistake("capstone", "cache_step: no 1/sqrt(d) scaling of the scores", _ops_with("cache_step", _cs_no_scale)),
    Mistake("capstone", "sample_next: compares u with each token's own probability instead of the running total",
      _ops_with("sample_next", _sn_u_against_probabilities)),
    Mistake("capstone", "embed: positions start at 1 instead of 0", _ops_with("embed", _em_positions_from_one)),
    Mistake("capstone", "softmax_backward: drops the sum term (A * dA)", _ops_with("softmax_backward", _sb_drops_sum)),
    Mistake("capstone", "multi_head_attention: heads interleaved instead of contiguous column blocks",
      _ops_with("multi_head_attention", _mha_interleaved)),
]

ACCEPTABLE = [
    Mistake("project", "W.T @ x", _project_ok_transpose),
    Mistake("project", "a double loop over inputs and outputs", _project_ok_loop),
    Mistake("project", "einsum i,ij->j", _project_ok_einsum),
    Mistake("compose", "einsum ij,jk->ik", _compose_ok_einsum),
    Mistake("compose", "projects each basis vector through W1 then W2 and stacks the rows", _compose_ok_basis),
    Mistake("compose", "(W2.T @ W1.T).T", _compose_ok_transpose_twice),
    Mistake("project_rows", "project() on each row, stacked", _project_rows_ok_loop),
    Mistake("project_rows", "einsum ni,io->no", _project_rows_ok_einsum),
    Mistake("matmul_cost", "math.prod of the three sizes", _matmul_cost_ok_prod),
    Mistake("matmul_cost", "entries times the length of each dot product", _matmul_cost_ok_reordered),
    Mistake("values", "projects one token row at a time", _values_ok_rowwise),
    Mistake("values", "one-hot rows times the table, then Wv", _values_ok_one_hot),
    Mistake("one_hot", "compares ids with arange(vocab_size)", _one_hot_ok_compare),
    Mistake("one_hot", "a loop that sets one entry per row", _one_hot_ok_loop),
    Mistake("one_hot", "rows of the identity matrix", _one_hot_ok_eye),
    Mistake("uniform_causal_weights", "a loop filling row i with 1/(i+1)", _ucw_ok_loop),
    Mistake("uniform_causal_weights", "softmax of the causal mask", _ucw_ok_softmax_of_mask),
    Mistake("uniform_causal_weights", "lower triangle of ones divided by its row sums", _ucw_ok_rowsum),
    Mistake("causal_average", "uniform causal weights @ V", _ca_ok_weights),
    Mistake("causal_average", "the mean of V[:i+1] for each i", _ca_ok_loop),
    Mistake("similarity", "einsum id,jd->ij", _sim_ok_einsum),
    Mistake("similarity", "a double loop of dot products", _sim_ok_loop),
    Mistake("similarity", "(K @ Q.T).T", _sim_ok_transpose_back),
    Mistake("learned_scores", "X (Wq Wk^T) X^T", _ls_ok_bilinear),
    Mistake("learned_scores", "similarity of the projected queries and keys", _ls_ok_similarity),
    Mistake("causal_mask", "np.where on row and column indices", _cm_ok_where),
    Mistake("causal_mask", "a loop writing -inf above the diagonal", _cm_ok_loop),
    Mistake("softmax", "exp(S - logsumexp(S)) with a stable logsumexp", _sm_ok_logsumexp),
    Mistake("softmax", "moves the axis last and normalises row by row in float64", _sm_ok_moveaxis),
    Mistake("softmax", "np.apply_along_axis with a stable 1-D softmax", _sm_ok_apply_along_axis),
    Mistake("score_scale", "d ** -0.5", _ss_ok_power),
    Mistake("score_scale", "math.sqrt(1 / d)", _ss_ok_sqrt_of_inverse),
    Mistake("score_scale", "float(1 / np.sqrt(d))", _ss_ok_numpy),
    Mistake("attention_weights", "a loop over queries with each row's visible keys", _aw_ok_loop),
    Mistake("attention_weights", "scales Q before the product and masks with boolean indexing", _aw_ok_scale_queries),
    Mistake("attention", "masks before scaling (-inf / sqrt(d) is still -inf)", _att_ok_mask_then_scale),
    Mistake("attention", "a loop over queries against their visible keys", _att_ok_loop),
    Mistake("attention", "einsum with an additive -inf mask", _att_ok_einsum),
    Mistake("attention", "divides E @ V by the row sums instead of normalising A", _att_ok_divide_after),
    Mistake("self_attention", "folds Wo into the values (A (X Wv Wo) = (A X Wv) Wo)", _sa_ok_Wo_into_values),
    Mistake("self_attention", "a loop-based attention, then Wo if given", _sa_ok_own_attention),
    Mistake("future_leak", "moves every row once, then scans distances from the largest down", _fl_ok_from_far),
    Mistake("tiled_attention", "1-D running max and sum per block with an alpha rescale, breaking at the first future tile",
      _ta_ok_per_tile_loop),
    Mistake("embed", "one-hot rows times tok_emb, plus the first n positions", _em_ok_one_hot),
    Mistake("embed", "a loop adding word and position rows", _em_ok_loop),
    Mistake("sinusoidal_positions", "a double loop with math.sin and math.cos", _sp_ok_loop),
    Mistake("sinusoidal_positions", "frequencies as exp(-(2i/d) ln 10000), interleaved by stacking", _sp_ok_exp_log),
    Mistake("split_heads", "np.stack of contiguous column slices", _sh_ok_stack),
    Mistake("split_heads", "np.array(np.split(M, n_heads, axis=1))", _sh_ok_split),
    Mistake("split_heads", "reshape, swapaxes and copy", _sh_ok_swapaxes_copy),
    Mistake("multi_head_attention", "sums each head's output times its block of Wo rows", _mha_ok_sum_over_heads),
    Mistake("multi_head_attention", "all heads at once with einsum", _mha_ok_batched_einsum),
    Mistake("layer_norm", "np.var with the default ddof=0", _ln_ok_np_var),
    Mistake("layer_norm", "row by row with math.sqrt", _ln_ok_rows),
    Mistake("gelu", "the same formula as x * sigmoid(2u)", _gelu_ok_sigmoid_form),
    Mistake("gelu", "the tanh formula in stages with np.power", _gelu_ok_staged),
    Mistake("transformer_block", "staged, with per-head Wo blocks and the MLP row by row", _tb_ok_staged),
    Mistake("next_token_logits", "all rows' logits, then the last", _ntl_ok_all_then_last),
    Mistake("next_token_logits", "einsum on the last row", _ntl_ok_einsum),
    Mistake("cross_entropy", "np.logaddexp.reduce for the log-sum-exp, returns a float loss", _ce_ok_logaddexp),
    Mistake("cross_entropy", "a loop over rows", _ce_ok_loop),
    Mistake("softmax_backward", "the full Jacobian diag(a) - a a^T per row, any leading axes", _sb_ok_jacobian),
    Mistake("softmax_backward", "A * dA - A * sum(A * dA) with einsum", _sb_ok_einsum),
    Mistake("attention_backward", "row by row with each row's softmax Jacobian", _ab_ok_jacobian_rows),
    Mistake("attention_backward", "einsum throughout", _ab_ok_einsum),
    Mistake("layer_norm_backward", "the explicit per-row Jacobian of the normalisation", _lnb_ok_jacobian),
    Mistake("layer_norm_backward", "the textbook form (rstd / d)(d dXhat - sum dXhat - Xhat sum(dXhat Xhat))", _lnb_ok_textbook),
    Mistake("most_attended", "a loop keeping the first strict maximum", _ma_ok_loop),
    Mistake("most_attended", "list.index of the row maximum", _ma_ok_list_index),
    Mistake("attention_entropy", "np.where(A > 0, A log A, 0) under errstate", _ae_ok_nan_to_num),
    Mistake("attention_entropy", "a loop with math.log over the positive weights", _ae_ok_loop),
    Mistake("padding_mask", "np.where on the column index, broadcast to n_q rows", _pm_ok_where),
    Mistake("padding_mask", "one row of zeros and -inf, tiled", _pm_ok_tile),
    Mistake("cross_attention", "einsum with a stable softmax", _xa_ok_einsum),
    Mistake("cross_attention", "one attend step per query row", _xa_ok_loop),
    Mistake("attend_step", "2-D attention with a single query (the last position)", _as_ok_two_d),
    Mistake("attend_step", "a loop over the cached rows", _as_ok_loop),
    Mistake("cache_step", "np.vstack and a loop-based attend step", _cs_ok_vstack),
    Mistake("cache_step", "np.append with axis=0", _cs_ok_append_axis0),
    Mistake("sample_next", "a loop for the greedy argmax and for the running total", _sn_ok_running_total),
    Mistake("generate", "a list, feeding tokens lazily only when the next logits are needed", _gen_ok_list),
    Mistake("kv_cache_bytes", "math.prod of every factor", _kvb_ok_prod),
    Mistake("kv_cache_bytes", "bytes per token times tokens times batch", _kvb_ok_per_token),
    Mistake("max_cached_tokens", "binary search with kv_cache_bytes", _mct_ok_binary_search),
    Mistake("max_cached_tokens", "divmod by one token's cache", _mct_ok_divmod),
    Mistake("capstone", "every op a right answer written differently",
      {"softmax": _sm_ok_logsumexp, "attention": _att_ok_loop, "embed": _em_ok_loop,
       "multi_head_attention": _mha_ok_sum_over_heads, "layer_norm": _ln_ok_rows, "gelu": _gelu_ok_staged,
       "transformer_block": _tb_ok_staged, "next_token_logits": _ntl_ok_all_then_last, "cross_entropy": _ce_ok_loop,
       "softmax_backward": _sb_ok_einsum, "attention_backward": _ab_ok_jacobian_rows,
       "layer_norm_backward": _lnb_ok_textbook, "cache_step": _cs_ok_append_axis0, "sample_next": _sn_ok_running_total}),
]
