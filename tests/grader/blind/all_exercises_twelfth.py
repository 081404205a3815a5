"""Blind learner-mistake set (twelfth) for "Rediscovering Attention".

What it covers: every check name used in the course's exercise notebooks (51 exercises) plus the capstone.
For each exercise, 4 wrong functions (MISTAKES) and 1 right function written another way (ACCEPTABLE);
for the capstone, 6 op dicts that each swap one right op of RIGHT_OPS for a wrong one, and RIGHT_OPS itself.

How it was written: blind. Only the exercise notebooks, the lessons, the README and attnlib's top-level maths
modules were read; the checker, the tests, the solutions and the tools were never opened. Each `what` line
names the cause of the mistake, as an ideal grader would, not its symptom.

Habits imitated: sizes and vocabularies from the lesson's small example written in; square shapes, one head
or one group assumed; diagrams read too literally ("earlier" as strictly earlier, window of w before the
current token, k largest distinct values, last row of the wrong axis); reorganised computations (cache read
before the append, temperature after the softmax, post-LN residual, scale on the values); related quantities
mixed up (counts/fractions, bits/bytes, tokens/positions, max/argmax, logits/probabilities); numerical
shortcuts (naive exp and log, float division for exact ints, in-place edits of inputs); backward slips (a
sign, a missing sum over a broadcast axis, a transposed factor, a missing scale).

Verification: a separate script compares every entry with a reference (attnlib's public function where one
exists, otherwise one written from the exercise text) on targeted and random inputs, each call on fresh
copies: every mistake differs on at least one input, every right answer matches within 1e-9 and leaves its
inputs unchanged; the capstone's RIGHT_OPS reproduces attnlib's own TinyLM training and generation in the
learned, rope, grouped and windowed configurations.

Counts: 51 exercises x 4 = 204 mistakes + 6 capstone = 210 MISTAKES; 52 ACCEPTABLE entries.
"""
import math
from dataclasses import dataclass
from typing import Callable

import numpy as np


@dataclass(frozen=True)
class Mistake:
    exercise: str
    what: str
    fn: Callable


M = Mistake

# ---------------------------------------------------------------------------------------------------------
# correct helpers a learner would reuse


def _softmax(S, axis=-1):
    S = np.asarray(S, dtype=float)
    m = np.max(S, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    E = np.exp(S - m)
    return E / E.sum(axis=axis, keepdims=True)


def _mask(n_q, n_k):
    return np.triu(np.full((n_q, n_k), -np.inf), k=1 + n_k - n_q)


def _attention(Q, K, V, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(Q.shape[1])
    if causal:
        S = S + _mask(Q.shape[0], K.shape[0])
    return _softmax(S) @ V


def attend(Q, K, V, causal=True):
    S = Q @ K.T / np.sqrt(Q.shape[1])
    if causal:
        S = S + np.triu(np.full(S.shape, -np.inf), k=1)
    E = np.exp(S - S.max(axis=1, keepdims=True))
    return (E / E.sum(axis=1, keepdims=True)) @ V


def _split(M_, h):
    n, dm = M_.shape
    return M_.reshape(n, h, dm // h).transpose(1, 0, 2)


def _mha(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    Q, K, V = _split(X @ Wq, n_heads), _split(X @ Wk, n_heads), _split(X @ Wv, n_heads)
    return np.concatenate([attend(Q[h], K[h], V[h], causal) for h in range(n_heads)], axis=1) @ Wo


def _ln(X, g, b, eps=1e-5):
    mu = X.mean(axis=-1, keepdims=True)
    return (X - mu) / np.sqrt(X.var(axis=-1, keepdims=True) + eps) * g + b


def _gelu(X):
    return 0.5 * X * (1 + np.tanh(np.sqrt(2 / np.pi) * (X + 0.044715 * X ** 3)))


def _attend_step(q, K_cache, V_cache):
    s = K_cache @ q / np.sqrt(q.shape[0])
    a = np.exp(s - s.max())
    return (a / a.sum()) @ V_cache


def _rope(X, positions, theta=10000.0):
    n, d = X.shape
    ang = np.asarray(positions, dtype=float)[:, None] * theta ** (-np.arange(0, d, 2) / d)
    c, s = np.cos(ang), np.sin(ang)
    x, y = X[:, 0::2], X[:, 1::2]
    out = np.empty((n, d))
    out[:, 0::2], out[:, 1::2] = x * c - y * s, x * s + y * c
    return out


def _softmax_backward(A, dA):
    return A * (dA - (A * dA).sum(axis=-1, keepdims=True))


# =========================================================================================================
# 01 project / compose

def project__W_at_x(x, W): return W @ x
def project__W_transposed(x, W): return x @ W.T
def project__sum_wrong_axis(x, W): return (x[:, None] * W).sum(axis=1)
def project__row_matrix(x, W): return x[None, :] @ W
def project_ok(x, W): return np.einsum("i,ij->j", x, W)


def compose__reversed(W1, W2): return W2 @ W1
def compose__elementwise(W1, W2): return W1 * W2
def compose__transposed_result(W1, W2): return W2.T @ W1.T
def compose__in_place(W1, W2):
    W1[:] = W1 @ W2
    return W1
def compose_ok(W1, W2): return np.einsum("im,mo->io", W1, W2)


# 02 project_rows / matmul_cost

def project_rows__W_transposed(X, W): return X @ W.T
def project_rows__first_row(X, W): return X[0] @ W
def project_rows__loop_over_d_out(X, W): return np.array([X[i] @ W for i in range(W.shape[1])])
def project_rows__mean_not_sum(X, W): return X @ W / X.shape[1]
def project_rows_ok(X, W): return np.stack([W.T @ x for x in X]) if len(X) else X @ W


def matmul_cost__counts_adds(n, d_in, d_out): return 2 * n * d_in * d_out
def matmul_cost__output_entries(n, d_in, d_out): return n * d_out
def matmul_cost__float(n, d_in, d_out): return n * d_in * d_out / 1
def matmul_cost__square(n, d_in, d_out): return n * d_in * d_in
def matmul_cost_ok(n, d_in, d_out): return math.prod((int(n), int(d_in), int(d_out)))


# 03 values / one_hot

def values__dedup(tokens, table, Wv):
    return np.array([table[t] for t in dict.fromkeys(tokens)]) @ Wv
def values__sorted_vocab(tokens, table, Wv):
    return np.array([table[t] for t in sorted(set(tokens))]) @ Wv
def values__transposed(tokens, table, Wv):
    X = np.array([table[t] for t in tokens])
    return Wv.T @ X.T
def values__table_order(tokens, table, Wv):
    return np.array(list(table.values()))[: len(tokens)] @ Wv
def values_ok(tokens, table, Wv):
    return np.stack(list(map(table.__getitem__, tokens))) @ Wv


def one_hot__n_as_vocab(ids, vocab_size): return np.eye(len(ids))[ids]
def one_hot__transposed(ids, vocab_size):
    out = np.zeros((vocab_size, len(ids)))
    out[ids, np.arange(len(ids))] = 1.0
    return out
def one_hot__int_dtype(ids, vocab_size):
    out = np.zeros((len(ids), vocab_size), dtype=int)
    out[np.arange(len(ids)), ids] = 1
    return out
def one_hot__vocab_five(ids, vocab_size): return np.eye(5)[ids]
def one_hot_ok(ids, vocab_size):
    return (np.asarray(ids)[:, None] == np.arange(vocab_size)[None, :]).astype(float)


# 04 uniform_causal_weights / causal_average

def ucw__divide_by_n(n): return np.tril(np.ones((n, n))) / n
def ucw__strictly_earlier(n):
    A = np.tril(np.ones((n, n)), -1)
    return A / np.maximum(A.sum(axis=1, keepdims=True), 1)
def ucw__transposed(n): return (np.tril(np.ones((n, n))) / np.arange(1, n + 1)[:, None]).T
def ucw__column_index(n): return np.tril(np.ones((n, n))) / np.arange(1, n + 1)[None, :]
def ucw_ok(n):
    A = np.zeros((n, n))
    for i in range(n):
        A[i, : i + 1] = 1.0 / (i + 1)
    return A


def causal_average__divide_by_n(V): return np.cumsum(V, axis=0) / V.shape[0]
def causal_average__mean_of_means(V):
    out = np.array(V, dtype=float)
    for i in range(1, len(V)):
        out[i] = (out[i - 1] + V[i]) / 2
    return out
def causal_average__wrong_axis(V): return np.cumsum(V, axis=1) / np.arange(1, V.shape[1] + 1)[None, :]
def causal_average__strictly_earlier(V):
    out = np.array(V, dtype=float)
    cs = np.cumsum(V, axis=0)
    out[1:] = cs[:-1] / np.arange(1, len(V))[:, None]
    return out
def causal_average_ok(V): return ucw_ok(len(V)) @ V


# 05 similarity / learned_scores

def similarity__QT_K(Q, K): return Q.T @ K
def similarity__scaled(Q, K): return Q @ K.T / np.sqrt(Q.shape[1])
def similarity__transposed(Q, K): return K @ Q.T
def similarity__rowwise(Q, K): return (Q * K).sum(axis=1)
def similarity_ok(Q, K): return np.einsum("id,jd->ij", Q, K)


def learned_scores__swapped(X, Wq, Wk): return (X @ Wk) @ (X @ Wq).T
def learned_scores__Wq_twice(X, Wq, Wk): return (X @ Wq) @ (X @ Wq).T
def learned_scores__keys_not_projected(X, Wq, Wk): return X @ Wq @ Wk.T
def learned_scores__scaled(X, Wq, Wk): return (X @ Wq) @ (X @ Wk).T / np.sqrt(Wq.shape[1])
def learned_scores_ok(X, Wq, Wk): return X @ (Wq @ Wk.T) @ X.T


# 06 causal_mask / softmax / score_scale / attention_weights

def causal_mask__diag_masked(n): return np.triu(np.full((n, n), -np.inf), k=0)
def causal_mask__lower(n): return np.tril(np.full((n, n), -np.inf), k=-1)
def causal_mask__big_negative(n): return np.triu(np.full((n, n), -1e9), k=1)
def causal_mask__multiplicative(n): return np.tril(np.ones((n, n)))
def causal_mask_ok(n):
    i, j = np.indices((n, n))
    return np.where(j > i, -np.inf, 0.0)


def softmax__no_max(S, axis=-1):
    E = np.exp(S)
    return E / E.sum(axis=axis, keepdims=True)
def softmax__global_max(S, axis=-1):
    E = np.exp(S - np.max(S))
    return E / E.sum(axis=axis, keepdims=True)
def softmax__axis0_sum(S, axis=-1):
    E = np.exp(S - np.max(S, axis=axis, keepdims=True))
    return E / E.sum(axis=0, keepdims=True)
def softmax__no_keepdims(S, axis=-1):
    E = np.exp(S - np.max(S, axis=axis, keepdims=True))
    return E / E.sum(axis=axis)
def softmax_ok(S, axis=-1):
    S = np.asarray(S, dtype=float)
    m = np.max(S, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    lse = m + np.log(np.sum(np.exp(S - m), axis=axis, keepdims=True))
    return np.exp(S - lse)


def score_scale__one_over_d(d): return 1.0 / d
def score_scale__sqrt_d(d): return float(np.sqrt(d))
def score_scale__hard_coded(d): return 0.125
def score_scale__he_init(d): return math.sqrt(2.0 / d)
def score_scale_ok(d): return float(d) ** -0.5


def attention_weights__top_left_mask(Q, K, causal=True, scale=True):
    S = Q @ K.T / (np.sqrt(Q.shape[1]) if scale else 1.0)
    if causal:
        S = S + np.triu(np.full(S.shape, -np.inf), k=1)
    return _softmax(S)
def attention_weights__ignores_causal(Q, K, causal=True, scale=True):
    S = Q @ K.T / (np.sqrt(Q.shape[1]) if scale else 1.0)
    return _softmax(S + _mask(Q.shape[0], K.shape[0]))
def attention_weights__mask_after_softmax(Q, K, causal=True, scale=True):
    A = _softmax(Q @ K.T / (np.sqrt(Q.shape[1]) if scale else 1.0))
    if causal:
        A = A * (_mask(Q.shape[0], K.shape[0]) == 0)
    return A
def attention_weights__d_from_nq(Q, K, causal=True, scale=True):
    S = Q @ K.T / (np.sqrt(Q.shape[0]) if scale else 1.0)
    if causal:
        S = S + _mask(Q.shape[0], K.shape[0])
    return _softmax(S)
def attention_weights_ok(Q, K, causal=True, scale=True):
    n_q, n_k = Q.shape[0], K.shape[0]
    A = np.zeros((n_q, n_k))
    for i in range(n_q):
        last = n_k - n_q + i if causal else n_k - 1
        s = np.array([Q[i] @ K[j] for j in range(last + 1)]) * (1 / math.sqrt(Q.shape[1]) if scale else 1.0)
        e = np.exp(s - s.max())
        A[i, : last + 1] = e / e.sum()
    return A


# 07 attention / self_attention / future_leak / tiled_attention

def attention__scale_on_values(Q, K, V, causal=True, scale=True):
    S = Q @ K.T + (_mask(Q.shape[0], K.shape[0]) if causal else 0)
    return _softmax(S) @ (V / np.sqrt(Q.shape[1]) if scale else V)
def attention__top_left_mask(Q, K, V, causal=True, scale=True):
    S = Q @ K.T / (np.sqrt(Q.shape[1]) if scale else 1.0)
    if causal:
        S = S + np.triu(np.full(S.shape, -np.inf), k=1)
    return _softmax(S) @ V
def attention__unnormalised(Q, K, V, causal=True, scale=True):
    S = Q @ K.T / (np.sqrt(Q.shape[1]) if scale else 1.0)
    if causal:
        S = S + _mask(Q.shape[0], K.shape[0])
    return np.exp(S - S.max(axis=1, keepdims=True)) @ V
def attention__softmax_over_queries(Q, K, V, causal=True, scale=True):
    S = Q @ K.T / (np.sqrt(Q.shape[1]) if scale else 1.0)
    if causal:
        S = S + _mask(Q.shape[0], K.shape[0])
    return _softmax(S, axis=0) @ V
def attention_ok(Q, K, V, causal=True, scale=True):
    return np.einsum("qk,kv->qv", attention_weights_ok(Q, K, causal, scale), V)


def self_attention__scale_d_model(X, Wq, Wk, Wv, Wo=None, causal=True):
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    S = Q @ K.T / np.sqrt(X.shape[1]) + (_mask(len(X), len(X)) if causal else 0)
    O = _softmax(S) @ V
    return O if Wo is None else O @ Wo
def self_attention__truthy_Wo(X, Wq, Wk, Wv, Wo=None, causal=True):
    O = _attention(X @ Wq, X @ Wk, X @ Wv, causal)
    if Wo:
        O = O @ Wo
    return O
def self_attention__always_causal(X, Wq, Wk, Wv, Wo=None, causal=True):
    O = _attention(X @ Wq, X @ Wk, X @ Wv, True)
    return O if Wo is None else O @ Wo
def self_attention__q_k_swapped(X, Wq, Wk, Wv, Wo=None, causal=True):
    O = _attention(X @ Wk, X @ Wq, X @ Wv, causal)
    return O if Wo is None else O @ Wo
def self_attention_ok(X, Wq, Wk, Wv, Wo=None, causal=True):
    dq, dk = Wq.shape[1], Wk.shape[1]
    P = X @ np.concatenate([Wq, Wk, Wv], axis=1)
    O = attention_ok(P[:, :dq], P[:, dq:dq + dk], P[:, dq + dk:], causal)
    return O if Wo is None else O @ Wo


def _leak_threshold(base):
    return 1e-9 * max(1.0, float(np.abs(base).max()))


def _row_changes(attn, X, j):
    moved = X.copy()
    moved[j] += 1.0
    return moved


def future_leak__counts_rows(attn, X):
    base, tol = attn(X), _leak_threshold(attn(X))
    leaking = set()
    for j in range(len(X)):
        moved = X.copy()
        moved[j] += 1.0
        ch = np.abs(attn(moved) - base).max(axis=1)
        leaking |= {i for i in range(j) if ch[i] > tol}
    return len(leaking)
def future_leak__never_restored(attn, X):
    base = attn(X.copy())
    tol, worst = _leak_threshold(base), 0
    for j in range(len(X)):
        X[j] += 1.0
        ch = np.abs(attn(X) - base).max(axis=1)
        worst = max([worst] + [j - i for i in range(j) if ch[i] > tol])
    return worst
def future_leak__exact_zero(attn, X):
    base, worst = attn(X), 0
    for j in range(len(X)):
        moved = X.copy()
        moved[j] += 1.0
        ch = np.abs(attn(moved) - base).max(axis=1)
        worst = max([worst] + [j - i for i in range(j) if ch[i] > 0])
    return worst
def future_leak__distance_one_only(attn, X):
    base = attn(X)
    tol = _leak_threshold(base)
    for i in range(len(X) - 1):
        moved = X.copy()
        moved[i + 1] += 1.0
        if np.abs(attn(moved) - base)[i].max() > tol:
            return 1
    return 0
def future_leak_ok(attn, X):
    base = np.asarray(attn(X))
    tol = _leak_threshold(base)
    for k in range(len(X) - 1, 0, -1):
        for i in range(len(X) - k):
            moved = X.copy()
            moved[i + k] = moved[i + k] + 1.0
            if np.abs(np.asarray(attn(moved))[i] - base[i]).max() > tol:
                return k
    return 0


def _tiled(Q, K, V, causal, block, rescale_acc=True, per_tile_norm=False, local_mask=False, offset=True):
    n_q, n_k, d = Q.shape[0], K.shape[0], Q.shape[1]
    off = n_k - n_q if offset else 0
    O = np.empty((n_q, V.shape[1]))
    for q0 in range(0, n_q, block):
        q1 = min(q0 + block, n_q)
        m = np.full(q1 - q0, -np.inf)
        l = np.zeros(q1 - q0)
        acc = np.zeros((q1 - q0, V.shape[1]))
        for k0 in range(0, n_k, block):
            k1 = min(k0 + block, n_k)
            if causal and k0 > off + q1 - 1:
                break
            S = Q[q0:q1] @ K[k0:k1].T / math.sqrt(d)
            if causal:
                if local_mask:
                    qi, kj = np.indices(S.shape)
                else:
                    qi = np.arange(q0, q1)[:, None] + off
                    kj = np.arange(k0, k1)[None, :]
                S = np.where(kj > qi, -np.inf, S)
            m_new = np.maximum(m, S.max(axis=1))
            m_safe = np.where(np.isfinite(m_new), m_new, 0.0)
            P = np.exp(S - m_safe[:, None])
            alpha = np.exp(np.where(np.isfinite(m), m - m_safe, -np.inf))
            if per_tile_norm:
                tile = P @ V[k0:k1] / np.maximum(P.sum(axis=1), 1e-300)[:, None]
                acc = acc + tile
                l = l + (P.sum(axis=1) > 0)
            else:
                l = alpha * l + P.sum(axis=1)
                acc = (alpha[:, None] * acc if rescale_acc else acc) + P @ V[k0:k1]
            m = m_new
        O[q0:q1] = acc / l[:, None]
    return O


def tiled_attention__acc_not_rescaled(Q, K, V, causal=True, block=64):
    return _tiled(Q, K, V, causal, block, rescale_acc=False)
def tiled_attention__mean_of_tiles(Q, K, V, causal=True, block=64):
    return _tiled(Q, K, V, causal, block, per_tile_norm=True)
def tiled_attention__local_tile_mask(Q, K, V, causal=True, block=64):
    return _tiled(Q, K, V, causal, block, local_mask=True)
def tiled_attention__first_positions(Q, K, V, causal=True, block=64):
    return _tiled(Q, K, V, causal, block, offset=False)
def tiled_attention_ok(Q, K, V, causal=True, block=64):
    # the same online softmax, kept in log space: lse instead of (m, l)
    n_q, n_k, d = Q.shape[0], K.shape[0], Q.shape[1]
    off = n_k - n_q
    O = np.empty((n_q, V.shape[1]))
    for q0 in range(0, n_q, block):
        q1 = min(q0 + block, n_q)
        lse = np.full(q1 - q0, -np.inf)
        out = np.zeros((q1 - q0, V.shape[1]))
        for k0 in range(0, n_k, block):
            if causal and k0 > off + q1 - 1:
                break
            k1 = min(k0 + block, n_k)
            S = Q[q0:q1] @ K[k0:k1].T / math.sqrt(d)
            if causal:
                S = np.where(np.arange(k0, k1)[None, :] > np.arange(q0, q1)[:, None] + off, -np.inf, S)
            t_max = S.max(axis=1)
            t_safe = np.where(np.isfinite(t_max), t_max, 0.0)
            P = np.exp(S - t_safe[:, None])
            t_lse = t_safe + np.log(np.maximum(P.sum(axis=1), 1e-300))
            t_lse = np.where(P.sum(axis=1) > 0, t_lse, -np.inf)
            new = np.logaddexp(lse, t_lse)
            w_old = np.exp(np.where(np.isfinite(lse), lse - new, -np.inf))
            out = w_old[:, None] * out + np.exp(t_safe - new)[:, None] * (P @ V[k0:k1])
            lse = new
        O[q0:q1] = out
    return O


# 08 embed / sinusoidal_positions

def embed__pos_by_token(tokens, tok_emb, pos_emb): return tok_emb[tokens] + pos_emb[tokens]
def embed__last_positions(tokens, tok_emb, pos_emb): return tok_emb[tokens] + pos_emb[-len(tokens):]
def embed__positions_from_one(tokens, tok_emb, pos_emb): return tok_emb[tokens] + pos_emb[1:len(tokens) + 1]
def embed__whole_table(tokens, tok_emb, pos_emb): return tok_emb[tokens] + pos_emb
def embed_ok(tokens, tok_emb, pos_emb):
    n = len(tokens)
    oh = (np.asarray(tokens)[:, None] == np.arange(tok_emb.shape[0])).astype(float)
    return oh @ tok_emb + np.take(pos_emb, np.arange(n), axis=0)


def sinusoidal__i_over_d(n, d):
    t, i = np.arange(n)[:, None], np.arange(d // 2)[None, :]
    P = np.empty((n, d))
    P[:, 0::2], P[:, 1::2] = np.sin(t / 10000 ** (i / d)), np.cos(t / 10000 ** (i / d))
    return P
def sinusoidal__halves(n, d):
    t, i = np.arange(n)[:, None], np.arange(d // 2)[None, :]
    a = t / 10000 ** (2 * i / d)
    return np.concatenate([np.sin(a), np.cos(a)], axis=1)
def sinusoidal__cos_first(n, d):
    t, i = np.arange(n)[:, None], np.arange(d // 2)[None, :]
    a = t / 10000 ** (2 * i / d)
    P = np.empty((n, d))
    P[:, 0::2], P[:, 1::2] = np.cos(a), np.sin(a)
    return P
def sinusoidal__column_exponent(n, d):
    t, c = np.arange(n)[:, None], np.arange(d)[None, :]
    a = t / 10000 ** (c / d)
    return np.where(c % 2 == 0, np.sin(a), np.cos(a))
def sinusoidal_ok(n, d):
    P = np.zeros((n, d))
    for t in range(n):
        for i in range(d // 2):
            a = t * math.exp(-math.log(10000.0) * 2 * i / d)
            P[t, 2 * i], P[t, 2 * i + 1] = math.sin(a), math.cos(a)
    return P


# 09 split_heads / multi_head_attention

def split_heads__plain_reshape(M_, n_heads):
    n, dm = M_.shape
    return M_.reshape(n_heads, n, dm // n_heads)
def split_heads__strided(M_, n_heads):
    n, dm = M_.shape
    return M_.reshape(n, dm // n_heads, n_heads).transpose(2, 0, 1)
def split_heads__no_transpose(M_, n_heads):
    n, dm = M_.shape
    return M_.reshape(n, n_heads, dm // n_heads)
def split_heads__d_head_from_n(M_, n_heads):
    dh = M_.shape[0] // n_heads
    return np.stack([M_[:, h * dh:(h + 1) * dh] for h in range(n_heads)])
def split_heads_ok(M_, n_heads):
    return np.stack(np.split(M_, n_heads, axis=1))


def mha__scale_d_model(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    Q, K, V = _split(X @ Wq, n_heads), _split(X @ Wk, n_heads), _split(X @ Wv, n_heads)
    f = math.sqrt(Q.shape[2]) / math.sqrt(Wq.shape[1])
    return np.concatenate([attend(Q[h] * f, K[h], V[h], causal) for h in range(n_heads)], axis=1) @ Wo
def mha__one_head(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    return attend(X @ Wq, X @ Wk, X @ Wv, causal) @ Wo
def mha__strided_heads(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    Q, K, V = (split_heads__strided(X @ W, n_heads) for W in (Wq, Wk, Wv))
    return np.concatenate([attend(Q[h], K[h], V[h], causal) for h in range(n_heads)], axis=1) @ Wo
def mha__always_causal(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    return _mha(X, Wq, Wk, Wv, Wo, n_heads, True)
def mha_ok(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    dh = Wq.shape[1] // n_heads
    out = np.zeros((X.shape[0], Wo.shape[1]))
    for h in range(n_heads):
        c = slice(h * dh, (h + 1) * dh)
        out += attention_ok(X @ Wq[:, c], X @ Wk[:, c], X @ Wv[:, c], causal) @ Wo[c]
    return out


# 10 layer_norm / gelu / transformer_block

def layer_norm__unbiased(X, g, b, eps=1e-5):
    return (X - X.mean(-1, keepdims=True)) / np.sqrt(X.var(-1, ddof=1, keepdims=True) + eps) * g + b
def layer_norm__eps_outside(X, g, b, eps=1e-5):
    return (X - X.mean(-1, keepdims=True)) / (X.std(-1, keepdims=True) + eps) * g + b
def layer_norm__columns(X, g, b, eps=1e-5):
    return (X - X.mean(0, keepdims=True)) / np.sqrt(X.var(0, keepdims=True) + eps) * g + b
def layer_norm__eps_hard_coded(X, g, b, eps=1e-5):
    return (X - X.mean(-1, keepdims=True)) / np.sqrt(X.var(-1, keepdims=True) + 1e-5) * g + b
def layer_norm_ok(X, g, b, eps=1e-5):
    C = X - X.sum(axis=-1, keepdims=True) / X.shape[-1]
    return g * C / np.sqrt((C * C).sum(axis=-1, keepdims=True) / X.shape[-1] + eps) + b


def gelu__relu(X): return np.maximum(X, 0.0)
def gelu__no_half(X): return X * (1 + np.tanh(np.sqrt(2 / np.pi) * (X + 0.044715 * X ** 3)))
def gelu__sqrt_2pi(X): return 0.5 * X * (1 + np.tanh(np.sqrt(2 * np.pi) * (X + 0.044715 * X ** 3)))
def gelu__erf(X): return 0.5 * X * (1 + np.vectorize(math.erf)(np.asarray(X, dtype=float) / math.sqrt(2)))
def gelu_ok(X):
    X = np.asarray(X, dtype=float)
    u = math.sqrt(2 / math.pi) * (X + 0.044715 * X * X * X)
    return X / 2 + X / 2 * np.tanh(u)


def block__post_ln(X, p, n_heads, causal=True):
    Y = _ln(X + _mha(X, p["Wq"], p["Wk"], p["Wv"], p["Wo"], n_heads, causal), p["ln1_g"], p["ln1_b"])
    return _ln(Y + _gelu(Y @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"], p["ln2_g"], p["ln2_b"])
def block__residual_from_norm(X, p, n_heads, causal=True):
    N = _ln(X, p["ln1_g"], p["ln1_b"])
    Y = N + _mha(N, p["Wq"], p["Wk"], p["Wv"], p["Wo"], n_heads, causal)
    N2 = _ln(Y, p["ln2_g"], p["ln2_b"])
    return N2 + _gelu(N2 @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"]
def block__ln2_on_input(X, p, n_heads, causal=True):
    Y = X + _mha(_ln(X, p["ln1_g"], p["ln1_b"]), p["Wq"], p["Wk"], p["Wv"], p["Wo"], n_heads, causal)
    return Y + _gelu(_ln(X, p["ln2_g"], p["ln2_b"]) @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"]
def block__gelu_after_W2(X, p, n_heads, causal=True):
    Y = X + _mha(_ln(X, p["ln1_g"], p["ln1_b"]), p["Wq"], p["Wk"], p["Wv"], p["Wo"], n_heads, causal)
    return Y + _gelu((_ln(Y, p["ln2_g"], p["ln2_b"]) @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"])
def block_ok(X, p, n_heads, causal=True):
    attn_out = mha_ok(layer_norm_ok(X, p["ln1_g"], p["ln1_b"]), p["Wq"], p["Wk"], p["Wv"], p["Wo"], n_heads, causal)
    Y = attn_out + X
    h = gelu_ok(layer_norm_ok(Y, p["ln2_g"], p["ln2_b"]) @ p["W1"] + p["b1"])
    return Y + (h @ p["W2"] + p["b2"])


# 11 next_token_logits / cross_entropy / softmax_backward / attention_backward / layer_norm_backward

def ntl__first_row(H, W_vocab): return H[0] @ W_vocab
def ntl__softmaxed(H, W_vocab): return _softmax(H[-1] @ W_vocab)
def ntl__last_column(H, W_vocab): return H[:, -1] @ W_vocab
def ntl__mean_over_positions(H, W_vocab): return H.mean(axis=0) @ W_vocab
def ntl_ok(H, W_vocab): return (H @ W_vocab)[-1]


def _logsoftmax(Z):
    m = Z.max(axis=1, keepdims=True)
    return Z - m - np.log(np.exp(Z - m).sum(axis=1, keepdims=True))


def ce__grad_not_averaged(logits, targets):
    n = len(targets)
    lp = _logsoftmax(logits)
    G = np.exp(lp)
    G[np.arange(n), targets] -= 1
    return -lp[np.arange(n), targets].mean(), G
def ce__naive_log(logits, targets):
    n = len(targets)
    P = _softmax(logits)
    G = P.copy()
    G[np.arange(n), targets] -= 1
    with np.errstate(divide="ignore"):
        return -np.log(P[np.arange(n), targets]).mean(), G / n
def ce__grad_sign(logits, targets):
    n = len(targets)
    lp = _logsoftmax(logits)
    G = np.exp(lp)
    G[np.arange(n), targets] -= 1
    return -lp[np.arange(n), targets].mean(), -G / n
def ce__logits_as_logprobs(logits, targets):
    n = len(targets)
    G = _softmax(logits)
    G[np.arange(n), targets] -= 1
    return -logits[np.arange(n), targets].mean(), G / n
def ce_ok(logits, targets):
    n, v = logits.shape
    loss, G = 0.0, np.zeros((n, v))
    for r in range(n):
        z = logits[r] - logits[r].max()
        lse = math.log(np.exp(z).sum())
        loss += lse - z[targets[r]]
        G[r] = np.exp(z - lse)
        G[r, targets[r]] -= 1.0
    return loss / n, G / n


def smb__no_subtraction(A, dA): return A * dA
def smb__wrong_axis(A, dA): return A * (dA - (A * dA).sum(axis=0, keepdims=True))
def smb__no_keepdims(A, dA): return A * (dA - (A * dA).sum(axis=-1))
def smb__sum_of_dA(A, dA): return A * (dA - dA.sum(axis=-1, keepdims=True))
def smb_ok(A, dA):
    J = np.einsum("...i,ij->...ij", A, np.eye(A.shape[-1])) - A[..., :, None] * A[..., None, :]
    return np.einsum("...ij,...i->...j", J, dA)


def _attn_fwd(Q, K, V, causal, scale):
    s = 1 / math.sqrt(Q.shape[1]) if scale else 1.0
    S = Q @ K.T * s
    if causal:
        S = S + _mask(Q.shape[0], K.shape[0])
    return _softmax(S), s


def ab__no_scale(Q, K, V, dO, causal=True, scale=True):
    A, s = _attn_fwd(Q, K, V, causal, scale)
    dS = _softmax_backward(A, dO @ V.T)
    return dS @ K, dS.T @ Q, A.T @ dO
def ab__scores_for_weights(Q, K, V, dO, causal=True, scale=True):
    A, s = _attn_fwd(Q, K, V, causal, scale)
    dS = _softmax_backward(A, dO @ V.T) * s
    return dS @ K, dS.T @ Q, (Q @ K.T * s).T @ dO
def ab__top_left_mask(Q, K, V, dO, causal=True, scale=True):
    s = 1 / math.sqrt(Q.shape[1]) if scale else 1.0
    S = Q @ K.T * s
    if causal:
        S = S + np.triu(np.full(S.shape, -np.inf), k=1)
    A = _softmax(S)
    dS = _softmax_backward(A, dO @ V.T) * s
    return dS @ K, dS.T @ Q, A.T @ dO
def ab__dQ_transposed(Q, K, V, dO, causal=True, scale=True):
    A, s = _attn_fwd(Q, K, V, causal, scale)
    dS = _softmax_backward(A, dO @ V.T) * s
    return dS.T @ K, dS.T @ Q, A.T @ dO
def ab_ok(Q, K, V, dO, causal=True, scale=True):
    A, s = _attn_fwd(Q, K, V, causal, scale)
    dA = np.einsum("qv,kv->qk", dO, V)
    dS = smb_ok(A, dA)
    return s * np.einsum("qk,kd->qd", dS, K), s * np.einsum("qk,qd->kd", dS, Q), np.einsum("qk,qv->kv", A, dO)


def _ln_parts(X, eps):
    mu = X.mean(axis=1, keepdims=True)
    r = 1 / np.sqrt(X.var(axis=1, keepdims=True) + eps)
    return (X - mu) * r, r


def lnb__no_stat_terms(X, g, dY, eps=1e-5):
    xh, r = _ln_parts(X, eps)
    return dY * g * r, (dY * xh).sum(0), dY.sum(0)
def lnb__dg_not_summed(X, g, dY, eps=1e-5):
    xh, r = _ln_parts(X, eps)
    dx = dY * g
    dX = r * (dx - dx.mean(1, keepdims=True) - xh * (dx * xh).mean(1, keepdims=True))
    return dX, dY * xh, dY.sum(0)
def lnb__dg_from_raw(X, g, dY, eps=1e-5):
    xh, r = _ln_parts(X, eps)
    dx = dY * g
    dX = r * (dx - dx.mean(1, keepdims=True) - xh * (dx * xh).mean(1, keepdims=True))
    return dX, (dY * X).sum(0), dY.sum(0)
def lnb__no_variance_term(X, g, dY, eps=1e-5):
    xh, r = _ln_parts(X, eps)
    dx = dY * g
    return r * (dx - dx.mean(1, keepdims=True)), (dY * xh).sum(0), dY.sum(0)
def lnb_ok(X, g, dY, eps=1e-5):
    n, d = X.shape
    dX = np.empty((n, d))
    for i in range(n):
        c = X[i] - X[i].mean()
        r = 1 / math.sqrt((c @ c) / d + eps)
        J = r * (np.eye(d) - 1.0 / d - np.outer(c, c) * r * r / d)
        dX[i] = J.T @ (dY[i] * g)
    xh, _ = _ln_parts(X, eps)
    return dX, np.einsum("nd,nd->d", dY, xh), np.einsum("nd->d", dY)


# 12 most_attended / attention_entropy

def most_attended__per_column(A, tokens): return [tokens[j] for j in A.argmax(axis=0)]
def most_attended__last_tie(A, tokens):
    n_k = A.shape[1]
    return [tokens[n_k - 1 - j] for j in A[:, ::-1].argmax(axis=1)]
def most_attended__indices(A, tokens): return [int(j) for j in A.argmax(axis=1)]
def most_attended__array(A, tokens): return np.array(tokens)[A.argmax(axis=1)]
def most_attended_ok(A, tokens):
    return [tokens[max(range(len(row)), key=lambda j: row[j])] for row in A.tolist()]


def entropy__bits(A):
    with np.errstate(divide="ignore", invalid="ignore"):
        return -np.where(A > 0, A * np.log2(np.where(A > 0, A, 1)), 0).sum(axis=1)
def entropy__naive(A):
    with np.errstate(divide="ignore", invalid="ignore"):
        return -(A * np.log(A)).sum(axis=1)
def entropy__axis0(A):
    return -np.where(A > 0, A * np.log(np.where(A > 0, A, 1)), 0).sum(axis=0)
def entropy__mean(A):
    return -np.where(A > 0, A * np.log(np.where(A > 0, A, 1)), 0).mean(axis=1)
def entropy_ok(A):
    return np.array([-sum(a * math.log(a) for a in row if a > 0) for row in np.asarray(A, dtype=float)])


# 13 padding_mask / cross_attention

def padding_mask__off_by_one(n_q, n_valid, n_k):
    return np.where(np.arange(n_k)[None, :] <= n_valid, 0.0, -np.inf) * np.ones((n_q, 1))
def padding_mask__rows(n_q, n_valid, n_k):
    return np.where(np.arange(n_q)[:, None] < n_valid, 0.0, -np.inf) * np.ones((1, n_k))
def padding_mask__square(n_q, n_valid, n_k):
    return np.where(np.arange(n_k)[None, :] < n_valid, 0.0, -np.inf) * np.ones((n_k, 1))
def padding_mask__boolean(n_q, n_valid, n_k):
    return np.tile(np.arange(n_k) < n_valid, (n_q, 1))
def padding_mask_ok(n_q, n_valid, n_k):
    M_ = np.full((n_q, n_k), -np.inf)
    M_[:, :n_valid] = 0.0
    return M_


def cross__causal(X, Z, Wq, Wk, Wv): return _attention(X @ Wq, Z @ Wk, Z @ Wv, causal=True)
def cross__swapped(X, Z, Wq, Wk, Wv): return _attention(Z @ Wq, X @ Wk, X @ Wv, causal=False)
def cross__scale_d_model(X, Z, Wq, Wk, Wv):
    return _softmax((X @ Wq) @ (Z @ Wk).T / np.sqrt(X.shape[1])) @ (Z @ Wv)
def cross__softmax_queries(X, Z, Wq, Wk, Wv):
    return _softmax((X @ Wq) @ (Z @ Wk).T / np.sqrt(Wq.shape[1]), axis=0) @ (Z @ Wv)
def cross_ok(X, Z, Wq, Wk, Wv): return attention_ok(X @ Wq, Z @ Wk, Z @ Wv, causal=False)


# 14 attend_step / cache_step / sample_next / top_k / top_p / generate / kv_cache_bytes / max_cached_tokens

def attend_step__no_max(q, K_cache, V_cache):
    a = np.exp(K_cache @ q / np.sqrt(q.shape[0]))
    return (a / a.sum()) @ V_cache
def attend_step__no_scale(q, K_cache, V_cache):
    s = K_cache @ q
    a = np.exp(s - s.max())
    return (a / a.sum()) @ V_cache
def attend_step__excludes_self(q, K_cache, V_cache):
    return _attend_step(q, K_cache[:-1], V_cache[:-1]) if len(K_cache) > 1 else V_cache[0].astype(float)
def attend_step__scale_by_t(q, K_cache, V_cache):
    s = K_cache @ q / np.sqrt(K_cache.shape[0])
    a = np.exp(s - s.max())
    return (a / a.sum()) @ V_cache
def attend_step_ok(q, K_cache, V_cache):
    s = K_cache @ q / math.sqrt(len(q))
    lse = s.max() + math.log(np.exp(s - s.max()).sum())
    return np.exp(s - lse) @ V_cache


def cache_step__read_before_append(q, k, v, K_cache, V_cache):
    o = _attend_step(q, K_cache, V_cache)
    return o, np.vstack([K_cache, k]), np.vstack([V_cache, v])
def cache_step__prepend(q, k, v, K_cache, V_cache):
    K, V = np.vstack([k, K_cache]), np.vstack([v, V_cache])
    return _attend_step(q, K, V), K, V
def cache_step__only_new(q, k, v, K_cache, V_cache):
    K, V = k[None, :], v[None, :]
    return _attend_step(q, K, V), np.vstack([K_cache, k]), np.vstack([V_cache, v])
def cache_step__k_in_values(q, k, v, K_cache, V_cache):
    K, V = np.vstack([K_cache, k]), np.vstack([V_cache, k[: V_cache.shape[1]]])
    return _attend_step(q, K, V), K, V
def cache_step_ok(q, k, v, K_cache, V_cache):
    K = np.concatenate([K_cache, k[None, :]], axis=0)
    V = np.concatenate([V_cache, v[None, :]], axis=0)
    return attend_step_ok(q, K, V), K, V


def _pick(p, u):
    c = np.cumsum(p)
    c = c / c[-1]
    return int(min(np.searchsorted(c, u, side="right"), len(p) - 1))


def sample_next__temperature_after(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    p = _softmax(logits) / temperature
    return _pick(p / p.sum(), u)
def sample_next__ge_u(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    c = np.cumsum(_softmax(np.asarray(logits) / temperature))
    c = c / c[-1]
    return int(np.searchsorted(c, u, side="left"))
def sample_next__no_max(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    with np.errstate(over="ignore", invalid="ignore"):
        e = np.exp(np.asarray(logits) / temperature)
        c = np.cumsum(e / e.sum())
    return int(np.argmax(c > u))
def sample_next__max_not_argmax(logits, temperature, u):
    if temperature == 0:
        return int(np.max(logits))
    return _pick(_softmax(np.asarray(logits) / temperature), u)
def sample_next_ok(logits, temperature, u):
    logits = np.asarray(logits, dtype=float)
    if temperature == 0:
        best = 0
        for i in range(len(logits)):
            if logits[i] > logits[best]:
                best = i
        return best
    p = _softmax(logits / temperature)
    total, c = 0.0, []
    for x in p:
        total += x
        c.append(total)
    for i, x in enumerate(c):
        if x / c[-1] > u:
            return i
    return len(p) - 1


def top_k__distinct(logits, k):
    vals = np.unique(logits[np.isfinite(logits)])
    thr = vals[-k] if k <= len(vals) else -np.inf
    return np.where(logits >= thr, logits, -np.inf).astype(float)
def top_k__exactly_k(logits, k):
    out = np.full(len(logits), -np.inf)
    keep = np.argsort(-logits, kind="stable")[:k]
    out[keep] = logits[keep]
    return out
def top_k__in_place(logits, k):
    if k < len(logits):
        logits[logits < np.sort(logits)[-k]] = -np.inf
    return logits
def top_k__zeros(logits, k):
    if k >= len(logits):
        return np.array(logits, dtype=float)
    return np.where(logits >= np.sort(logits)[-k], logits, 0.0)
def top_k_ok(logits, k):
    logits = np.asarray(logits, dtype=float)
    if k >= logits.size:
        return logits.copy()
    thr = -np.partition(-logits, k - 1)[k - 1]
    out = logits.copy()
    out[out < thr] = -np.inf
    return out


def _probs_safe(logits):
    z = logits - np.max(logits)
    return np.exp(z) / np.exp(z).sum()


def top_p__strict(logits, p):
    pr = _probs_safe(logits)
    order = np.argsort(-pr, kind="stable")
    c = np.cumsum(pr[order])
    n = min(int(np.searchsorted(c, p, side="right")) + 1, len(pr))
    out = np.full(len(pr), -np.inf)
    out[order[:n]] = logits[order[:n]]
    return out
def top_p__ties_high_id(logits, p):
    pr = _probs_safe(logits)
    order = np.argsort(pr, kind="stable")[::-1]
    c = np.cumsum(pr[order])
    n = len(pr) if p >= 1 else min(int(np.searchsorted(c, p, side="left")) + 1, len(pr))
    out = np.full(len(pr), -np.inf)
    out[order[:n]] = logits[order[:n]]
    return out
def top_p__naive_softmax(logits, p):
    with np.errstate(over="ignore", invalid="ignore"):
        pr = np.exp(logits) / np.exp(logits).sum()
    order = np.argsort(-pr, kind="stable")
    c = np.cumsum(pr[order])
    n = len(pr) if p >= 1 else min(int(np.searchsorted(c, p, side="left")) + 1, len(pr))
    out = np.full(len(pr), -np.inf)
    out[order[:n]] = logits[order[:n]]
    return out
def top_p__unsorted(logits, p):
    pr = _probs_safe(logits)
    c = np.cumsum(pr)
    n = len(pr) if p >= 1 else min(int(np.searchsorted(c, p, side="left")) + 1, len(pr))
    out = np.full(len(pr), -np.inf)
    out[:n] = logits[:n]
    return out
def top_p_ok(logits, p):
    logits = np.asarray(logits, dtype=float)
    out = np.full(logits.shape, -np.inf)
    if p >= 1:
        return logits.copy()
    pr = _softmax(logits)
    order = sorted(range(len(pr)), key=lambda i: (-pr[i], i))
    total = 0.0
    for i in order:
        out[i] = logits[i]
        total += pr[i]
        if total >= p:
            break
    return out


def _gen(p, prompt, n_new, cache_step, pos_by_token=False, residual=True):
    seq = [int(t) for t in prompt]
    T, d = len(seq), p["Wq"].shape[0]
    K = V = np.zeros((0, d))
    feeds = T + n_new - 1 if n_new > 0 else T
    for i in range(feeds):
        t = seq[i]
        x = p["tok_emb"][t] + p["pos_emb"][t if pos_by_token else i]
        o, K, V = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K, V)
        if i >= T - 1 and len(seq) < T + n_new:
            seq.append(int(np.argmax(((x + o) if residual else o) @ p["W_out"])))
    return np.array(seq, dtype=int)


def generate__pos_by_token(p, prompt, n_new, cache_step): return _gen(p, prompt, n_new, cache_step, pos_by_token=True)
def generate__no_residual(p, prompt, n_new, cache_step): return _gen(p, prompt, n_new, cache_step, residual=False)
def generate__positions_restart(p, prompt, n_new, cache_step):
    seq = [int(t) for t in prompt]
    T, d = len(seq), p["Wq"].shape[0]
    K = V = np.zeros((0, d))
    for i in range(T + n_new - 1 if n_new > 0 else T):
        x = p["tok_emb"][seq[i]] + p["pos_emb"][i if i < T else i - T]
        o, K, V = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K, V)
        if i >= T - 1 and len(seq) < T + n_new:
            seq.append(int(np.argmax((x + o) @ p["W_out"])))
    return np.array(seq, dtype=int)
def generate__own_attention(p, prompt, n_new, cache_step): return _gen(p, prompt, n_new, cache_step_ok)
def generate_ok(p, prompt, n_new, cache_step):
    seq = list(np.asarray(prompt, dtype=int).tolist())
    d = p["Wq"].shape[0]
    K, V = np.empty((0, d)), np.empty((0, d))
    i = 0
    while i < len(seq) and (len(seq) < len(prompt) + n_new or i < len(prompt)):
        x = p["tok_emb"][seq[i]] + p["pos_emb"][i]
        o, K, V = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K, V)
        if i == len(seq) - 1 and len(seq) < len(prompt) + n_new:
            seq.append(int(np.argmax((x + o) @ p["W_out"])))
        i += 1
    return np.asarray(seq, dtype=int)


def kv_bytes__keys_only(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return n_layers * n_heads * d_head * seq_len * batch * bytes_per_value
def kv_bytes__bits(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return 2 * n_layers * n_heads * d_head * seq_len * batch * bytes_per_value * 8
def kv_bytes__no_batch(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return 2 * n_layers * n_heads * d_head * seq_len * bytes_per_value
def kv_bytes__fixed_two_bytes(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return 2 * n_layers * n_heads * d_head * seq_len * batch * 2
def kv_bytes_ok(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return math.prod([2, n_layers, n_heads, d_head, seq_len, batch, bytes_per_value])


def max_tok__float_div(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    return int(memory_bytes / (2 * n_layers * n_heads * d_head * batch * bytes_per_value))
def max_tok__ceil(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    per = 2 * n_layers * n_heads * d_head * batch * bytes_per_value
    return -(-memory_bytes // per)
def max_tok__keys_only(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    return memory_bytes // (n_layers * n_heads * d_head * batch * bytes_per_value)
def max_tok__no_batch(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    return memory_bytes // (2 * n_layers * n_heads * d_head * bytes_per_value)
def max_tok_ok(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    per = kv_bytes_ok(n_layers, n_heads, d_head, 1, batch, bytes_per_value)
    q, _ = divmod(int(memory_bytes), per)
    return int(q)


# 15 previous_token_score / prefix_matching_score / ablate_head

def prev__includes_row0(A): return float(np.diagonal(A, -1).sum() / len(A))
def prev__superdiagonal(A): return float(np.diagonal(A, 1).mean()) if len(A) > 1 else 0.0
def prev__no_guard(A):
    with np.errstate(invalid="ignore"):
        return float(np.mean([A[t, t - 1] for t in range(1, len(A))])) if len(A) > 1 else float("nan")
def prev__self(A): return float(np.diagonal(A)[1:].mean()) if len(A) > 1 else 0.0
def prev_ok(A):
    T = len(A)
    return float(sum(A[t, t - 1] for t in range(1, T)) / (T - 1)) if T > 1 else 0.0


def _prefix(A, tokens, last_only=False, shift=1, all_rows=False, include_self=False):
    sums = []
    T = len(tokens)
    for t in range(T):
        js = [j for j in range(t + (1 if include_self else 0)) if tokens[j] == tokens[t] and j + shift < T]
        if include_self:
            js = [j for j in js if j < t] + ([t] if t + shift < T else [])
            if len(js) == 1 and js[0] == t and not any(tokens[j] == tokens[t] for j in range(t)):
                sums.append(0.0)
                continue
        if not js:
            if all_rows:
                sums.append(0.0)
            continue
        if last_only:
            js = [max(js)]
        sums.append(sum(A[t, j + shift] for j in js))
    return float(np.mean(sums)) if sums else 0.0


def prefix__last_copy_only(A, tokens): return _prefix(A, tokens, last_only=True)
def prefix__copy_itself(A, tokens): return _prefix(A, tokens, shift=0)
def prefix__all_rows(A, tokens): return _prefix(A, tokens, all_rows=True)
def prefix__includes_self(A, tokens): return _prefix(A, tokens, include_self=True)
def prefix_ok(A, tokens):
    tokens = np.asarray(tokens)
    same = (tokens[:, None] == tokens[None, :]) & np.tri(len(tokens), k=-1, dtype=bool)
    rows = same.any(axis=1)
    if not rows.any():
        return 0.0
    B = np.zeros(A.shape)
    B[:, :-1] = same[:, :-1]  # earlier copy j -> weight on column j + 1
    shifted = np.zeros(A.shape)
    shifted[:, 1:] = B[:, :-1]
    return float((A * shifted).sum(axis=1)[rows].mean())


def ablate__in_place(Wo, head, n_heads):
    dh = Wo.shape[0] // n_heads
    Wo[head * dh:(head + 1) * dh] = 0
    return Wo
def ablate__columns(Wo, head, n_heads):
    out = Wo.copy()
    dh = Wo.shape[1] // n_heads
    out[:, head * dh:(head + 1) * dh] = 0
    return out
def ablate__d_head_from_cols(Wo, head, n_heads):
    out = Wo.copy()
    dh = Wo.shape[1] // n_heads
    out[head * dh:(head + 1) * dh] = 0
    return out
def ablate__counted_from_one(Wo, head, n_heads):
    out = Wo.copy()
    dh = Wo.shape[0] // n_heads
    out[(head - 1) * dh:head * dh] = 0
    return out
def ablate_ok(Wo, head, n_heads):
    dh = Wo.shape[0] // n_heads
    keep = (np.arange(Wo.shape[0]) // dh != head).astype(float)
    return Wo * keep[:, None]


# 16 rope / rope_attention

def rope__row_index(X, positions, theta=10000.0): return _rope(X, np.arange(len(X)), theta)
def rope__half_split(X, positions, theta=10000.0):
    n, d = X.shape
    h = d // 2
    ang = np.asarray(positions, dtype=float)[:, None] * theta ** (-2 * np.arange(h) / d)
    c, s = np.cos(ang), np.sin(ang)
    x, y = X[:, :h], X[:, h:]
    return np.concatenate([x * c - y * s, x * s + y * c], axis=1)
def rope__clockwise(X, positions, theta=10000.0): return _rope(X, -np.asarray(positions), theta)
def rope__theta_hard_coded(X, positions, theta=10000.0): return _rope(X, positions, 10000.0)
def rope_ok(X, positions, theta=10000.0):
    n, d = X.shape
    z = X[:, 0::2] + 1j * X[:, 1::2]
    freq = np.exp(-np.log(theta) * np.arange(0, d, 2) / d)
    z = z * np.exp(1j * np.asarray(positions, dtype=float)[:, None] * freq)
    out = np.empty((n, d))
    out[:, 0::2], out[:, 1::2] = z.real, z.imag
    return out


def rope_attn__rotates_V(Q, K, V, positions, theta=10000.0):
    dv = V.shape[1]
    Vr = _rope(V, positions, theta) if dv % 2 == 0 else V
    return _attention(_rope(Q, positions, theta), _rope(K, positions, theta), Vr)
def rope_attn__only_Q(Q, K, V, positions, theta=10000.0):
    return _attention(_rope(Q, positions, theta), K, V)
def rope_attn__no_mask(Q, K, V, positions, theta=10000.0):
    return _attention(_rope(Q, positions, theta), _rope(K, positions, theta), V, causal=False)
def rope_attn__arange(Q, K, V, positions, theta=10000.0):
    p = np.arange(len(Q))
    return _attention(_rope(Q, p, theta), _rope(K, p, theta), V)
def rope_attn_ok(Q, K, V, positions, theta=10000.0):
    Qr, Kr = rope_ok(Q, positions, theta), rope_ok(K, positions, theta)
    n = len(Q)
    S = np.where(np.tri(n, dtype=bool), Qr @ Kr.T / math.sqrt(Q.shape[1]), -np.inf)
    return _softmax(S) @ V


# 17 grouped_query_attention / grouped_cache_step

def _gqa(X, Wq, Wk, Wv, Wo, n_heads, n_kv, causal, group_of, dh=None):
    dh = Wq.shape[1] // n_heads if dh is None else dh
    outs = []
    for h in range(n_heads):
        g = group_of(h)
        outs.append(attend(X @ Wq[:, h * dh:(h + 1) * dh], X @ Wk[:, g * dh:(g + 1) * dh],
                           X @ Wv[:, g * dh:(g + 1) * dh], causal))
    return np.concatenate(outs, axis=1) @ Wo


def gqa__interleaved(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    return _gqa(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal, lambda h: h % n_kv_heads)
def gqa__d_head_from_d_model(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    return _gqa(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal, lambda h: h // (n_heads // n_kv_heads),
                dh=X.shape[1] // n_heads)
def gqa__divide_by_n_kv(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    return _gqa(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal, lambda h: h // n_kv_heads)
def gqa__one_group(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    return _gqa(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal, lambda h: 0)
def gqa_ok(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    rep = n_heads // n_kv_heads
    Q = _split(X @ Wq, n_heads)
    K = np.repeat(_split(X @ Wk, n_kv_heads), rep, axis=0)
    V = np.repeat(_split(X @ Wv, n_kv_heads), rep, axis=0)
    n = X.shape[0]
    return np.concatenate([attention_ok(Q[h], K[h], V[h], causal) for h in range(n_heads)], axis=1) @ Wo \
        if n else np.zeros((0, Wo.shape[1]))


def _gcs(q, k, v, Kc, Vc, group_of, before=False, scale=True):
    Kn = np.concatenate([Kc, k[:, None, :]], axis=1)
    Vn = np.concatenate([Vc, v[:, None, :]], axis=1)
    Kr, Vr = (Kc, Vc) if before else (Kn, Vn)
    o = np.empty(q.shape)
    for h in range(q.shape[0]):
        g = group_of(h)
        s = Kr[g] @ q[h] / (math.sqrt(q.shape[1]) if scale else 1.0)
        a = np.exp(s - s.max())
        o[h] = (a / a.sum()) @ Vr[g]
    return o, Kn, Vn


def gcs__interleaved(q, k, v, K_cache, V_cache):
    return _gcs(q, k, v, K_cache, V_cache, lambda h: h % k.shape[0])
def gcs__cache_per_head(q, k, v, K_cache, V_cache):
    rep = q.shape[0] // k.shape[0]
    o, Kn, Vn = _gcs(q, k, v, K_cache, V_cache, lambda h: h // rep)
    return o, np.repeat(Kn, rep, axis=0), np.repeat(Vn, rep, axis=0)
def gcs__read_before_append(q, k, v, K_cache, V_cache):
    rep = q.shape[0] // k.shape[0]
    return _gcs(q, k, v, K_cache, V_cache, lambda h: h // rep, before=True)
def gcs__no_scale(q, k, v, K_cache, V_cache):
    rep = q.shape[0] // k.shape[0]
    return _gcs(q, k, v, K_cache, V_cache, lambda h: h // rep, scale=False)
def gcs_ok(q, k, v, K_cache, V_cache):
    rep = q.shape[0] // k.shape[0]
    Kn = np.concatenate([K_cache, k[:, None, :]], axis=1)
    Vn = np.concatenate([V_cache, v[:, None, :]], axis=1)
    o = np.stack([attend_step_ok(q[h], Kn[h // rep], Vn[h // rep]) for h in range(q.shape[0])])
    return o, Kn, Vn


# 18 sliding_window_mask / rolling_cache_step

def swm__one_too_many(n, window):
    i, j = np.indices((n, n))
    return np.where((j <= i) & (j >= i - window), 0.0, -np.inf)
def swm__symmetric(n, window):
    i, j = np.indices((n, n))
    return np.where(np.abs(i - j) < window, 0.0, -np.inf)
def swm__boolean(n, window):
    i, j = np.indices((n, n))
    return (j <= i) & (j > i - window)
def swm__excludes_self(n, window):
    i, j = np.indices((n, n))
    return np.where((j < i) & (j >= i - window), 0.0, -np.inf)
def swm_ok(n, window):
    return np.triu(np.full((n, n), -np.inf), 1) + np.tril(np.full((n, n), -np.inf), -window)


def _cut(K, window, n_sinks):
    if len(K) <= window:
        return K
    return np.concatenate([K[:n_sinks], K[len(K) - (window - n_sinks):]], axis=0)


def rcs__attend_before_cut(q, k, v, K_cache, V_cache, window, n_sinks=0):
    K, V = np.vstack([K_cache, k]), np.vstack([V_cache, v])
    o = _attend_step(q, K, V)
    return o, _cut(K, window, n_sinks), _cut(V, window, n_sinks)
def rcs__ignores_sinks(q, k, v, K_cache, V_cache, window, n_sinks=0):
    K, V = np.vstack([K_cache, k])[-window:], np.vstack([V_cache, v])[-window:]
    return _attend_step(q, K, V), K, V
def rcs__sinks_plus_window(q, k, v, K_cache, V_cache, window, n_sinks=0):
    K, V = np.vstack([K_cache, k]), np.vstack([V_cache, v])
    if len(K) > window:
        K = np.concatenate([K[:n_sinks], K[-window:]]) if n_sinks else K[-window:]
        V = np.concatenate([V[:n_sinks], V[-window:]]) if n_sinks else V[-window:]
    return _attend_step(q, K, V), K, V
def rcs__cut_then_append(q, k, v, K_cache, V_cache, window, n_sinks=0):
    K, V = np.vstack([_cut(K_cache, window, n_sinks), k]), np.vstack([_cut(V_cache, window, n_sinks), v])
    return _attend_step(q, K, V), K, V
def rcs_ok(q, k, v, K_cache, V_cache, window, n_sinks=0):
    t1 = len(K_cache) + 1
    keep = np.arange(t1)
    if t1 > window:
        keep = np.concatenate([keep[:n_sinks], keep[t1 - (window - n_sinks):]])
    K = np.concatenate([K_cache, k[None]])[keep]
    V = np.concatenate([V_cache, v[None]])[keep]
    return attend_step_ok(q, K, V), K, V


# =========================================================================================================
# capstone

RIGHT_OPS = {
    "softmax": softmax_ok, "attention": attention_ok, "embed": embed_ok, "multi_head_attention": mha_ok,
    "layer_norm": layer_norm_ok, "gelu": gelu_ok, "transformer_block": block_ok, "next_token_logits": ntl_ok,
    "cross_entropy": ce_ok, "softmax_backward": smb_ok, "attention_backward": ab_ok,
    "layer_norm_backward": lnb_ok, "cache_step": cache_step_ok, "sample_next": sample_next_ok, "rope": rope_ok,
    "grouped_query_attention": gqa_ok, "grouped_cache_step": gcs_ok, "rolling_cache_step": rcs_ok,
}


def _with(name, fn):
    return {**RIGHT_OPS, name: fn}


CAPSTONE_SWAPS = [
    ("layer_norm", layer_norm__unbiased, "layer_norm divides by d - 1 (unbiased variance) instead of d"),
    ("gelu", gelu__no_half, "gelu drops the factor 0.5 in front of x (1 + tanh(...))"),
    ("embed", embed__positions_from_one, "embed adds position rows 1..n instead of 0..n-1 (positions counted from 1)"),
    ("cross_entropy", ce__grad_not_averaged,
     "cross_entropy's gradient is not divided by the number of rows (loss averaged, gradient summed)"),
    ("attention_backward", ab__no_scale,
     "attention_backward forgets the 1/sqrt(d) factor on dQ and dK (the chain rule through the scaling)"),
    ("cache_step", cache_step__read_before_append,
     "cache_step lets the query attend over the old cache before appending the new key and value"),
]

# =========================================================================================================

MISTAKES = [
    M("project", "computes W @ x (column-vector habit), i.e. multiplies by W transposed instead of x @ W", project__W_at_x),
    M("project", "multiplies by W.T instead of W: x @ W.T", project__W_transposed),
    M("project", "broadcasts x along W's rows and sums over the output axis (axis 1) instead of the input axis", project__sum_wrong_axis),
    M("project", "returns a (1, d_out) row matrix (x[None] @ W) instead of a (d_out,) vector", project__row_matrix),
    M("compose", "multiplies in the wrong order, W2 @ W1 instead of W1 @ W2", compose__reversed),
    M("compose", "multiplies W1 and W2 element by element (W1 * W2) instead of the matrix product", compose__elementwise),
    M("compose", "returns W2.T @ W1.T, the transpose of the composed matrix", compose__transposed_result),
    M("compose", "writes the product into W1 in place (W1[:] = W1 @ W2), modifying the input", compose__in_place),
    M("project_rows", "multiplies by W.T instead of W (square weights assumed)", project_rows__W_transposed),
    M("project_rows", "projects only the first row X[0] instead of every row", project_rows__first_row),
    M("project_rows", "loops over range(d_out) (W.shape[1]) instead of over the n rows of X", project_rows__loop_over_d_out),
    M("project_rows", "divides the product by d_in (a mean over features) instead of the plain sum", project_rows__mean_not_sum),
    M("matmul_cost", "counts multiplications and additions, 2 n d_in d_out, instead of multiplications only", matmul_cost__counts_adds),
    M("matmul_cost", "counts the entries of the result, n d_out, and forgets the d_in multiplications per entry", matmul_cost__output_entries),
    M("matmul_cost", "uses true division (/ 1), so it returns a float instead of an exact int", matmul_cost__float),
    M("matmul_cost", "uses d_in twice (n * d_in * d_in), assuming square W with d_in == d_out", matmul_cost__square),
    M("values", "drops repeated tokens (one row per distinct word) instead of one row per token", values__dedup),
    M("values", "builds X from the sorted set of words (the vocabulary) instead of the tokens in sentence order", values__sorted_vocab),
    M("values", "returns Wv.T @ X.T, the transpose (d_v, n) of V", values__transposed),
    M("values", "takes the table's rows in dict order instead of looking each token up", values__table_order),
    M("one_hot", "uses the number of tokens n as the vocabulary size (np.eye(len(ids)))", one_hot__n_as_vocab),
    M("one_hot", "returns the transposed (vocab_size, n) matrix: ones at [ids[i], i]", one_hot__transposed),
    M("one_hot", "builds an int array instead of floats", one_hot__int_dtype),
    M("one_hot", "hard-codes the lesson's vocabulary of 5 words (np.eye(5)) instead of vocab_size", one_hot__vocab_five),
    M("uniform_causal_weights", "divides every kept entry by n instead of by i + 1", ucw__divide_by_n),
    M("uniform_causal_weights", "averages over the strictly earlier columns 0..i-1, excluding the diagonal", ucw__strictly_earlier),
    M("uniform_causal_weights", "returns the transpose: upper-triangular, columns holding 1/(j+1)", ucw__transposed),
    M("uniform_causal_weights", "divides by the column index j + 1 instead of the row index i + 1", ucw__column_index),
    M("causal_average", "divides the running sum by n instead of by i + 1", causal_average__divide_by_n),
    M("causal_average", "averages the previous average with the new row (a mean of means) instead of all rows 0..i", causal_average__mean_of_means),
    M("causal_average", "takes the running mean along the feature axis (axis 1) instead of over rows", causal_average__wrong_axis),
    M("causal_average", "averages rows 0..i-1 (strictly earlier), excluding row i itself", causal_average__strictly_earlier),
    M("similarity", "computes Q.T @ K (a d x d matrix) instead of Q @ K.T", similarity__QT_K),
    M("similarity", "divides by sqrt(d) although raw, unscaled scores are asked for", similarity__scaled),
    M("similarity", "returns K @ Q.T, the transposed (n_k, n_q) scores", similarity__transposed),
    M("similarity", "takes row-wise dot products (Q * K).sum(1), assuming n_q == n_k and pairing query i with key i only", similarity__rowwise),
    M("learned_scores", "swaps the roles: keys from Wk as the left factor, (X Wk)(X Wq)^T, the transposed scores", learned_scores__swapped),
    M("learned_scores", "uses Wq for both queries and keys, ignoring Wk", learned_scores__Wq_twice),
    M("learned_scores", "forgets to project X for the keys: returns X Wq Wk^T instead of (X Wq)(X Wk)^T", learned_scores__keys_not_projected),
    M("learned_scores", "divides the scores by sqrt(d) although no scaling is asked for", learned_scores__scaled),
    M("causal_mask", "masks the diagonal too (triu with k=0): each token may only see strictly earlier ones", causal_mask__diag_masked),
    M("causal_mask", "puts -inf below the diagonal (tril) instead of above it", causal_mask__lower),
    M("causal_mask", "uses -1e9 instead of -np.inf for the blocked entries", causal_mask__big_negative),
    M("causal_mask", "returns a multiplicative 0/1 mask (1 where allowed) instead of the additive 0/-inf mask", causal_mask__multiplicative),
    M("softmax", "exponentiates without subtracting the max, so np.exp overflows for large scores", softmax__no_max),
    M("softmax", "subtracts the max of the whole array instead of the max along axis, so low rows underflow to 0/0", softmax__global_max),
    M("softmax", "normalises by the sum over axis 0 (hard-coded) instead of over the given axis", softmax__axis0_sum),
    M("softmax", "divides by a sum taken without keepdims, so it broadcasts against the wrong axis", softmax__no_keepdims),
    M("score_scale", "returns 1/d (variance's reciprocal) instead of 1/sqrt(d)", score_scale__one_over_d),
    M("score_scale", "returns sqrt(d), the standard deviation itself, instead of its reciprocal", score_scale__sqrt_d),
    M("score_scale", "hard-codes 0.125, the factor for the experiment's d = 64, instead of writing it from d", score_scale__hard_coded),
    M("score_scale", "returns sqrt(2/d) (the He-initialisation factor) instead of 1/sqrt(d)", score_scale__he_init),
    M("attention_weights", "aligns the causal mask top-left (triu k=1), treating the queries as the first n_q positions", attention_weights__top_left_mask),
    M("attention_weights", "always adds the causal mask, ignoring causal=False", attention_weights__ignores_causal),
    M("attention_weights", "applies the softmax before the mask and zeroes the future afterwards, so rows no longer sum to 1", attention_weights__mask_after_softmax),
    M("attention_weights", "divides by sqrt(Q.shape[0]) (the number of queries) instead of sqrt(d)", attention_weights__d_from_nq),
    M("attention", "applies the 1/sqrt(d) scale to the values instead of the scores", attention__scale_on_values),
    M("attention", "aligns the causal mask top-left, treating the queries as the first n_q positions when n_q < n_k", attention__top_left_mask),
    M("attention", "forgets to divide the exponentials by their row sum (unnormalised weights)", attention__unnormalised),
    M("attention", "takes the softmax over the query axis (axis 0) instead of over the keys", attention__softmax_over_queries),
    M("self_attention", "scales by sqrt(d_model) (X's width) instead of sqrt(d_head) (the query width)", self_attention__scale_d_model),
    M("self_attention", "tests `if Wo:` on an array (truthiness) instead of `Wo is not None`", self_attention__truthy_Wo),
    M("self_attention", "always applies the causal mask, ignoring causal=False", self_attention__always_causal),
    M("self_attention", "swaps queries and keys (Q = X Wk, K = X Wq), so the scores are transposed", self_attention__q_k_swapped),
    M("future_leak", "returns how many rows leak (a count) instead of the largest distance k", future_leak__counts_rows),
    M("future_leak", "moves row j of X in place and never restores it, modifying X and accumulating moves", future_leak__never_restored),
    M("future_leak", "counts any change > 0 (exact float comparison) instead of the 1e-9 relative threshold", future_leak__exact_zero),
    M("future_leak", "only tests distance 1 (row i against row i + 1) and returns 1 or 0", future_leak__distance_one_only),
    M("tiled_attention", "rescales the running sum l but not the accumulator acc when a tile raises the max", tiled_attention__acc_not_rescaled),
    M("tiled_attention", "normalises each tile on its own and adds the per-tile averages (a mean of means) instead of dividing by l once", tiled_attention__mean_of_tiles),
    M("tiled_attention", "builds the causal mask from the tile's local indices instead of the global query and key positions", tiled_attention__local_tile_mask),
    M("tiled_attention", "ignores the n_k - n_q offset: treats the queries as the first positions when n_q < n_k", tiled_attention__first_positions),
    M("embed", "looks the position rows up by token id (pos_emb[tokens]) instead of by position", embed__pos_by_token),
    M("embed", "adds the last n rows of pos_emb instead of the first n", embed__last_positions),
    M("embed", "counts positions from 1 (pos_emb[1:n+1]) instead of from 0", embed__positions_from_one),
    M("embed", "adds the whole pos_emb table, assuming max_len == n", embed__whole_table),
    M("sinusoidal_positions", "uses the exponent i/d instead of 2i/d in the frequency", sinusoidal__i_over_d),
    M("sinusoidal_positions", "puts all sines in the first half and all cosines in the second instead of interleaving them", sinusoidal__halves),
    M("sinusoidal_positions", "swaps sin and cos: cosines on the even columns, sines on the odd ones", sinusoidal__cos_first),
    M("sinusoidal_positions", "uses each column's own index c in 10000^(c/d), so the cos column gets a different frequency from its sin", sinusoidal__column_exponent),
    M("split_heads", "reshapes straight to (n_heads, n, d_head) without moving axes, mixing rows and columns", split_heads__plain_reshape),
    M("split_heads", "reshapes to (n, d_head, n_heads), so head h gets every n_heads-th column instead of a contiguous block", split_heads__strided),
    M("split_heads", "returns shape (n, n_heads, d_head): reshapes but forgets the transpose", split_heads__no_transpose),
    M("split_heads", "computes d_head from the number of rows n instead of d_model (square M assumed)", split_heads__d_head_from_n),
    M("multi_head_attention", "scales every head by sqrt(d_model) (the full projection width) instead of sqrt(d_head)", mha__scale_d_model),
    M("multi_head_attention", "runs one head over the full projections, ignoring n_heads", mha__one_head),
    M("multi_head_attention", "splits heads by strided columns (h::n_heads) instead of contiguous blocks", mha__strided_heads),
    M("multi_head_attention", "always passes causal=True to the heads, ignoring causal=False", mha__always_causal),
    M("layer_norm", "uses the unbiased variance (ddof=1, divide by d - 1) instead of dividing by d", layer_norm__unbiased),
    M("layer_norm", "adds eps to the standard deviation outside the square root instead of to the variance inside", layer_norm__eps_outside),
    M("layer_norm", "normalises each column (axis 0) instead of each row", layer_norm__columns),
    M("layer_norm", "hard-codes eps = 1e-5 inside, ignoring the eps argument", layer_norm__eps_hard_coded),
    M("gelu", "uses ReLU, max(x, 0), instead of the tanh GELU", gelu__relu),
    M("gelu", "drops the factor 0.5 in front of x (1 + tanh(...))", gelu__no_half),
    M("gelu", "uses sqrt(2 pi) instead of sqrt(2 / pi) inside the tanh", gelu__sqrt_2pi),
    M("gelu", "uses the exact erf GELU instead of the tanh approximation asked for", gelu__erf),
    M("transformer_block", "post-LN: adds each residual first and normalises the sum, instead of normalising the sublayer input", block__post_ln),
    M("transformer_block", "takes the residual from the normalised input (LN(X) + attention) instead of from X", block__residual_from_norm),
    M("transformer_block", "feeds the MLP layer_norm(X) instead of layer_norm(Y), the output of the attention sublayer", block__ln2_on_input),
    M("transformer_block", "applies gelu after the second linear layer (W2, b2) instead of after the first", block__gelu_after_W2),
    M("next_token_logits", "uses the first row H[0] instead of the last position", ntl__first_row),
    M("next_token_logits", "applies a softmax, returning probabilities instead of raw logits", ntl__softmaxed),
    M("next_token_logits", "takes the last column H[:, -1] (wrong axis) instead of the last row H[-1]", ntl__last_column),
    M("next_token_logits", "averages the rows over all positions instead of taking the last one", ntl__mean_over_positions),
    M("cross_entropy", "forgets to divide the gradient by n (loss averaged, gradient summed)", ce__grad_not_averaged),
    M("cross_entropy", "computes log(softmax) naively, so the log of an underflowed probability gives inf", ce__naive_log),
    M("cross_entropy", "flips the gradient's sign: (onehot - softmax)/n instead of (softmax - onehot)/n", ce__grad_sign),
    M("cross_entropy", "uses the raw logit of the target as its log-probability (no log-sum-exp) in the loss", ce__logits_as_logprobs),
    M("softmax_backward", "returns A * dA, dropping the subtraction of sum(A * dA)", smb__no_subtraction),
    M("softmax_backward", "sums A * dA over axis 0 instead of the last axis", smb__wrong_axis),
    M("softmax_backward", "sums A * dA without keepdims, so it broadcasts against the wrong axis", smb__no_keepdims),
    M("softmax_backward", "subtracts the sum of dA instead of the sum of A * dA", smb__sum_of_dA),
    M("attention_backward", "forgets the scale factor s in dQ and dK (the chain rule through Q K^T s)", ab__no_scale),
    M("attention_backward", "uses the scores S instead of the weights A in dV = A^T dO", ab__scores_for_weights),
    M("attention_backward", "aligns the causal mask top-left in the forward pass (queries as the first n_q positions)", ab__top_left_mask),
    M("attention_backward", "transposes dS in dQ (dS.T @ K instead of dS @ K)", ab__dQ_transposed),
    M("layer_norm_backward", "drops the mean and variance terms: dX = dY g / std, as if mean and std were constants", lnb__no_stat_terms),
    M("layer_norm_backward", "forgets to sum dg over the rows: returns dY * x_hat of shape (n, d)", lnb__dg_not_summed),
    M("layer_norm_backward", "computes dg from the raw X instead of the normalised x_hat", lnb__dg_from_raw),
    M("layer_norm_backward", "keeps the mean term but drops the variance term x_hat * mean(dx_hat * x_hat) in dX", lnb__no_variance_term),
    M("most_attended", "takes the argmax down each column (axis 0) instead of along each row", most_attended__per_column),
    M("most_attended", "breaks ties towards the later token instead of the earlier one", most_attended__last_tie),
    M("most_attended", "returns the column indices (the argmax) instead of the token words", most_attended__indices),
    M("most_attended", "returns a numpy array instead of a list of strings", most_attended__array),
    M("attention_entropy", "uses log2 (bits) instead of the natural log (nats)", entropy__bits),
    M("attention_entropy", "computes A log A naively, so zero weights give 0 * -inf = nan", entropy__naive),
    M("attention_entropy", "sums over axis 0 (per key) instead of per row", entropy__axis0),
    M("attention_entropy", "takes the mean over the keys instead of the sum", entropy__mean),
    M("padding_mask", "keeps column n_valid too (j <= n_valid instead of j < n_valid)", padding_mask__off_by_one),
    M("padding_mask", "masks the rows i >= n_valid instead of the padding columns", padding_mask__rows),
    M("padding_mask", "returns shape (n_k, n_k), assuming n_q == n_k", padding_mask__square),
    M("padding_mask", "returns a boolean keep-mask instead of the additive 0/-inf float mask", padding_mask__boolean),
    M("cross_attention", "applies a causal mask although cross-attention has none", cross__causal),
    M("cross_attention", "takes the queries from Z and the keys and values from X (roles swapped)", cross__swapped),
    M("cross_attention", "scales by sqrt(d_model) instead of sqrt(d_head), the query width", cross__scale_d_model),
    M("cross_attention", "takes the softmax over the queries (axis 0) instead of over the keys", cross__softmax_queries),
    M("attend_step", "exponentiates the scores without subtracting the max, so huge scores overflow", attend_step__no_max),
    M("attend_step", "forgets to divide the scores by sqrt(d)", attend_step__no_scale),
    M("attend_step", "leaves out the cache's last row (the token itself), attending to strictly earlier tokens", attend_step__excludes_self),
    M("attend_step", "divides the scores by sqrt(t), the cache length, instead of sqrt(d)", attend_step__scale_by_t),
    M("cache_step", "lets q attend over the old cache before appending the new key and value", cache_step__read_before_append),
    M("cache_step", "puts the new key and value at the front of the caches instead of the end", cache_step__prepend),
    M("cache_step", "attends over the new token's row only, not the grown cache", cache_step__only_new),
    M("cache_step", "appends k to the value cache instead of v (copy-paste slip)", cache_step__k_in_values),
    M("sample_next", "applies the temperature after the softmax (p / T renormalised), so it has no effect", sample_next__temperature_after),
    M("sample_next", "picks the first token whose running total is >= u instead of > u", sample_next__ge_u),
    M("sample_next", "exponentiates logits / T without subtracting the max, so it overflows for small T or big logits", sample_next__no_max),
    M("sample_next", "at temperature 0 returns the largest logit's value (max) instead of its index (argmax)", sample_next__max_not_argmax),
    M("top_k_filter", "keeps the k largest distinct values instead of the k largest entries (ties counted once)", top_k__distinct),
    M("top_k_filter", "keeps exactly k tokens via argsort, dropping ties with the k-th largest value", top_k__exactly_k),
    M("top_k_filter", "writes -inf into logits in place instead of returning a new array", top_k__in_place),
    M("top_k_filter", "sets the cut tokens to 0 (a probability habit) instead of -inf", top_k__zeros),
    M("top_p_filter", "stops only when the running total exceeds p strictly, keeping one extra token when it equals p", top_p__strict),
    M("top_p_filter", "ranks equal probabilities with the higher id first (reversed stable argsort)", top_p__ties_high_id),
    M("top_p_filter", "computes the softmax as exp(logits) without subtracting the max, overflowing for huge logits", top_p__naive_softmax),
    M("top_p_filter", "accumulates the probabilities in token-id order instead of from the most probable down", top_p__unsorted),
    M("generate", "looks the position vector up by token id (pos_emb[t]) instead of by position i", generate__pos_by_token),
    M("generate", "computes the logits from the attention output o alone, forgetting the residual x + o", generate__no_residual),
    M("generate", "gives the generated tokens positions counted again from 0 (index among the new tokens) instead of their place in the sequence", generate__positions_restart),
    M("generate", "calls its own full attention step instead of the cache_step it is given", generate__own_attention),
    M("kv_cache_bytes", "counts only the keys, forgetting the factor 2 for keys and values", kv_bytes__keys_only),
    M("kv_cache_bytes", "multiplies by 8, returning bits instead of bytes", kv_bytes__bits),
    M("kv_cache_bytes", "leaves out the batch factor", kv_bytes__no_batch),
    M("kv_cache_bytes", "hard-codes 2 bytes per value, ignoring bytes_per_value", kv_bytes__fixed_two_bytes),
    M("max_cached_tokens", "uses float division then int(), which loses exactness for huge memories", max_tok__float_div),
    M("max_cached_tokens", "rounds the division up (ceil) instead of down, allowing a cache that does not fit", max_tok__ceil),
    M("max_cached_tokens", "forgets the factor 2 for keys and values in the bytes per token", max_tok__keys_only),
    M("max_cached_tokens", "leaves the batch out of the bytes per token", max_tok__no_batch),
    M("previous_token_score", "divides the sum by T (row 0 counted) instead of by T - 1", prev__includes_row0),
    M("previous_token_score", "reads the superdiagonal A[t, t+1] (the next position) instead of A[t, t-1]", prev__superdiagonal),
    M("previous_token_score", "returns nan for T = 1 instead of 0.0 (no guard on an empty mean)", prev__no_guard),
    M("previous_token_score", "averages the diagonal A[t, t] (the position itself) instead of A[t, t-1]", prev__self),
    M("prefix_matching_score", "adds the weight after the most recent earlier copy only, not after all earlier copies", prefix__last_copy_only),
    M("prefix_matching_score", "adds A[t, j] (the earlier copy itself) instead of A[t, j + 1]", prefix__copy_itself),
    M("prefix_matching_score", "averages over all positions, counting positions without an earlier copy as 0", prefix__all_rows),
    M("prefix_matching_score", "treats a position as its own earlier copy (j <= t), so first occurrences count and A[t, t+1] is added", prefix__includes_self),
    M("ablate_head", "zeroes the rows of Wo in place, modifying the input instead of a copy", ablate__in_place),
    M("ablate_head", "zeroes the head's columns instead of its rows", ablate__columns),
    M("ablate_head", "computes d_head from Wo.shape[1] (d_model) instead of Wo.shape[0]", ablate__d_head_from_cols),
    M("ablate_head", "counts heads from 1: zeroes the rows of head - 1", ablate__counted_from_one),
    M("rope", "rotates by the row index instead of the given positions", rope__row_index),
    M("rope", "pairs column i with column i + d/2 (half split) instead of adjacent columns 2i, 2i+1", rope__half_split),
    M("rope", "rotates clockwise (the sign of the sine terms flipped)", rope__clockwise),
    M("rope", "hard-codes theta = 10000, ignoring the theta argument", rope__theta_hard_coded),
    M("rope_attention", "rotates the values V as well as the queries and keys", rope_attn__rotates_V),
    M("rope_attention", "rotates only the queries, leaving the keys unrotated", rope_attn__only_Q),
    M("rope_attention", "leaves out the causal mask", rope_attn__no_mask),
    M("rope_attention", "rotates by the row index 0..n-1 instead of the given positions", rope_attn__arange),
    M("grouped_query_attention", "assigns query head h to group h % n_kv_heads (interleaved) instead of h // (n_heads // n_kv_heads)", gqa__interleaved),
    M("grouped_query_attention", "computes d_head as d_model // n_heads instead of from the projection widths", gqa__d_head_from_d_model),
    M("grouped_query_attention", "divides h by n_kv_heads instead of by the group size n_heads // n_kv_heads", gqa__divide_by_n_kv),
    M("grouped_query_attention", "lets every head read group 0 (one group assumed, multi-query)", gqa__one_group),
    M("grouped_cache_step", "assigns query head h to group h % n_kv_heads (interleaved) instead of h // group size", gcs__interleaved),
    M("grouped_cache_step", "returns the cache repeated per query head instead of one row per group", gcs__cache_per_head),
    M("grouped_cache_step", "attends over the old cache before appending the new keys and values", gcs__read_before_append),
    M("grouped_cache_step", "forgets to divide the scores by sqrt(d_head)", gcs__no_scale),
    M("sliding_window_mask", "lets row i see window + 1 positions (i - window <= j) instead of window", swm__one_too_many),
    M("sliding_window_mask", "uses a symmetric band |i - j| < window, letting rows see the future", swm__symmetric),
    M("sliding_window_mask", "returns a boolean keep-mask instead of the additive 0.0/-inf float mask", swm__boolean),
    M("sliding_window_mask", "reads the window as the w positions before the current one, excluding itself", swm__excludes_self),
    M("rolling_cache_step", "attends over all t + 1 rows before cutting the cache back to the window", rcs__attend_before_cut),
    M("rolling_cache_step", "keeps the last window rows and ignores the sinks", rcs__ignores_sinks),
    M("rolling_cache_step", "keeps the sinks plus the last window rows (window + n_sinks) instead of window - n_sinks recent rows", rcs__sinks_plus_window),
    M("rolling_cache_step", "cuts the old cache to the window before appending, so window + 1 rows remain", rcs__cut_then_append),
] + [M("capstone", what, _with(name, fn)) for name, fn, what in CAPSTONE_SWAPS]

ACCEPTABLE = [
    M("project", "einsum over the shared index", project_ok),
    M("compose", "einsum over the middle index", compose_ok),
    M("project_rows", "row by row W.T @ x, stacked", project_rows_ok),
    M("matmul_cost", "math.prod of the three sizes as Python ints", matmul_cost_ok),
    M("values", "map over table.__getitem__, stacked", values_ok),
    M("one_hot", "comparison of ids with arange(vocab), cast to float", one_hot_ok),
    M("uniform_causal_weights", "explicit loop filling each row", ucw_ok),
    M("causal_average", "the uniform causal weights times V", causal_average_ok),
    M("similarity", "einsum", similarity_ok),
    M("learned_scores", "X (Wq Wk^T) X^T", learned_scores_ok),
    M("causal_mask", "np.where on index grids", causal_mask_ok),
    M("softmax", "exp of S minus log-sum-exp", softmax_ok),
    M("score_scale", "d ** -0.5 as a float", score_scale_ok),
    M("attention_weights", "row-by-row loop over the visible keys", attention_weights_ok),
    M("attention", "einsum on the loop-built weights", attention_ok),
    M("self_attention", "one concatenated projection, split afterwards", self_attention_ok),
    M("future_leak", "search from the largest distance down, returning the first leak found", future_leak_ok),
    M("tiled_attention", "online softmax kept as a running log-sum-exp", tiled_attention_ok),
    M("embed", "one-hot product plus np.take of positions", embed_ok),
    M("sinusoidal_positions", "double loop with exp(-log(10000) 2i/d)", sinusoidal_ok),
    M("split_heads", "np.split along columns, stacked", split_heads_ok),
    M("multi_head_attention", "sum over heads of each head's output times its Wo rows", mha_ok),
    M("layer_norm", "centred sums divided by d by hand", layer_norm_ok),
    M("gelu", "x/2 + x/2 tanh(u)", gelu_ok),
    M("transformer_block", "sublayers computed separately and added", block_ok),
    M("next_token_logits", "all logits, then the last row", ntl_ok),
    M("cross_entropy", "row-by-row loop with log-sum-exp", ce_ok),
    M("softmax_backward", "the explicit Jacobian diag(A) - A A^T", smb_ok),
    M("attention_backward", "einsum forms of each gradient", ab_ok),
    M("layer_norm_backward", "explicit per-row Jacobian", lnb_ok),
    M("most_attended", "Python max over indices (first maximum wins)", most_attended_ok),
    M("attention_entropy", "Python sum over the positive weights", entropy_ok),
    M("padding_mask", "full -inf then zero the real columns", padding_mask_ok),
    M("cross_attention", "the loop-built attention with causal=False", cross_ok),
    M("attend_step", "weights as exp(s - logsumexp)", attend_step_ok),
    M("cache_step", "np.concatenate of the new rows", cache_step_ok),
    M("sample_next", "loops: first maximum, then running totals", sample_next_ok),
    M("top_k_filter", "threshold from np.partition", top_k_ok),
    M("top_p_filter", "Python sort by (-p, id) and a running total", top_p_ok),
    M("generate", "while loop over the growing sequence", generate_ok),
    M("kv_cache_bytes", "math.prod of all factors", kv_bytes_ok),
    M("max_cached_tokens", "divmod by the bytes of one token", max_tok_ok),
    M("previous_token_score", "explicit sum divided by T - 1", prev_ok),
    M("prefix_matching_score", "vectorised with a shifted match matrix", prefix_ok),
    M("ablate_head", "multiply by a 0/1 row mask (a new array)", ablate_ok),
    M("rope", "complex multiplication by exp(i angle)", rope_ok),
    M("rope_attention", "np.where with a lower-triangular mask", rope_attn_ok),
    M("grouped_query_attention", "K/V groups repeated per head with np.repeat", gqa_ok),
    M("grouped_cache_step", "attend_step per head on its group", gcs_ok),
    M("sliding_window_mask", "sum of two triangular -inf blocks", swm_ok),
    M("rolling_cache_step", "index list of kept rows", rcs_ok),
    M("capstone", "the dict of right answers above", dict(RIGHT_OPS)),
]
