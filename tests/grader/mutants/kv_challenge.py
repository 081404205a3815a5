"""Notebooks 17 and 18: grouped_query_attention, grouped_cache_step, sliding_window_mask and rolling_cache_step,
right answers written differently (their mistakes are the pipelines' options, graded whole in test_choices.py,
and the blind set blind/kv_challenge.py)."""
import numpy as np


def _softmax(S):
    E = np.exp(S - S.max(axis=-1, keepdims=True))
    return E / E.sum(axis=-1, keepdims=True)


def gqa_repeat(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    n = X.shape[0]
    d = Wq.shape[1] // n_heads
    Q = (X @ Wq).reshape(n, n_heads, d).transpose(1, 0, 2)  # (h, n, d)
    K, V = ((X @ W).reshape(n, n_kv_heads, d).transpose(1, 0, 2) for W in (Wk, Wv))  # (g, n, d)
    K, V = (np.repeat(M, n_heads // n_kv_heads, axis=0) for M in (K, V))  # each group next to its heads
    S = Q @ K.transpose(0, 2, 1) / np.sqrt(d)
    if causal:
        S = np.where(np.tril(np.ones((n, n), dtype=bool)), S, -np.inf)
    return (_softmax(S) @ V).transpose(1, 0, 2).reshape(n, -1) @ Wo


def gqa_einsum(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    n = X.shape[0]
    d = Wq.shape[1] // n_heads
    Q = (X @ Wq).reshape(n, n_kv_heads, n_heads // n_kv_heads, d)  # (n, g, heads per group, d)
    K, V = ((X @ W).reshape(n, n_kv_heads, d) for W in (Wk, Wv))
    S = np.einsum("igpd,jgd->gpij", Q, K) / d ** 0.5
    if causal:
        S = S + np.triu(np.full((n, n), -np.inf), 1)
    return np.einsum("gpij,jgd->igpd", _softmax(S), V).reshape(n, -1) @ Wo


def grouped_loops(q, k, v, K_cache, V_cache):
    n_heads, d = q.shape
    K_new = np.array([np.vstack([K_cache[g], k[g]]) for g in range(len(k))])
    V_new = np.array([np.vstack([V_cache[g], v[g]]) for g in range(len(v))])
    o = np.zeros((n_heads, d))
    for h in range(n_heads):
        g = h * len(k) // n_heads
        o[h] = _softmax(K_new[g] @ q[h] / np.sqrt(d)) @ V_new[g]
    return o, K_new, V_new


def grouped_broadcast(q, k, v, K_cache, V_cache):
    n_heads, d = q.shape
    g = k.shape[0]
    K_new, V_new = np.concatenate([K_cache, k[:, None]], 1), np.concatenate([V_cache, v[:, None]], 1)
    qg = q.reshape(g, n_heads // g, d)  # the heads of each group together
    A = _softmax(np.einsum("gpd,gtd->gpt", qg, K_new) / np.sqrt(d))
    return np.einsum("gpt,gtd->gpd", A, V_new).reshape(n_heads, d), K_new, V_new


def window_tril(n, window):
    return np.where(np.tril(np.ones((n, n))) - np.tril(np.ones((n, n)), -window) > 0, 0.0, -np.inf)


def window_loops(n, window):
    M = np.full((n, n), -np.inf)
    for i in range(n):
        M[i, max(0, i - window + 1):i + 1] = 0.0
    return M


def rolling_evict_first(q, k, v, K_cache, V_cache, window, n_sinks=0):
    K, V = K_cache, V_cache
    if len(K) == window:  # full: make room, the oldest row after the sinks goes
        K, V = np.delete(K, n_sinks, axis=0), np.delete(V, n_sinks, axis=0)
    K, V = np.vstack([K, k]), np.vstack([V, v])
    return _softmax(K @ q / np.sqrt(len(q))) @ V, K, V


def rolling_lists(q, k, v, K_cache, V_cache, window, n_sinks=0):
    keys, values = list(K_cache) + [k], list(V_cache) + [v]
    while len(keys) > window:
        del keys[n_sinks], values[n_sinks]
    K, V = np.array(keys).reshape(len(keys), -1), np.array(values).reshape(len(values), -1)
    return _softmax(K @ q / np.sqrt(len(q))) @ V, K, V


def gqa_loops(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    n, d = X.shape[0], Wq.shape[1] // n_heads
    outs = []
    for h in range(n_heads):
        g = h * n_kv_heads // n_heads  # the same group as h // (n_heads // n_kv_heads)
        q, kk, vv = X @ Wq[:, h * d:(h + 1) * d], X @ Wk[:, g * d:(g + 1) * d], X @ Wv[:, g * d:(g + 1) * d]
        rows = []
        for i in range(n):
            seen = range(i + 1) if causal else range(n)
            s = np.array([q[i] @ kk[j] for j in seen]) / np.sqrt(d)
            rows.append(_softmax(s) @ vv[list(seen)])
        outs.append(np.array(rows))
    return np.hstack(outs) @ Wo


def grouped_take(q, k, v, K_cache, V_cache):
    n_heads, d = q.shape
    K_new, V_new = np.append(K_cache, k[:, None, :], axis=1), np.append(V_cache, v[:, None, :], axis=1)
    group = np.arange(n_heads) // (n_heads // len(k))
    Kh, Vh = np.take(K_new, group, axis=0), np.take(V_new, group, axis=0)  # (n_heads, t + 1, d)
    w = _softmax(np.einsum("htd,hd->ht", Kh, q) / d ** 0.5)
    return np.einsum("ht,htd->hd", w, Vh), K_new, V_new


def window_offsets(n, window):
    offset = np.subtract.outer(np.arange(n), np.arange(n))  # i - j
    return np.where((offset >= 0) & (offset < window), 0.0, -np.inf)


def rolling_indices(q, k, v, K_cache, V_cache, window, n_sinks=0):
    K, V = np.concatenate([K_cache, k[None]]), np.concatenate([V_cache, v[None]])
    t = len(K)
    rows = list(range(t)) if t <= window else list(range(n_sinks)) + list(range(t - window + n_sinks, t))
    K, V = K[rows], V[rows]
    return np.einsum("t,tv->v", _softmax(np.einsum("td,d->t", K, q) / np.sqrt(q.size)), V), K, V


WRONG = {}
RIGHT = {"grouped_query_attention": [gqa_repeat, gqa_einsum, gqa_loops],
         "grouped_cache_step": [grouped_loops, grouped_broadcast, grouped_take],
         "sliding_window_mask": [window_tril, window_loops, window_offsets],
         "rolling_cache_step": [rolling_evict_first, rolling_lists, rolling_indices]}
