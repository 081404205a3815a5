"""Notebooks 11, 13, 14: next_token_logits, softmax_backward, cross_attention, the KV cache exercises."""
import numpy as np


def _softmax(s):
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


# next_token_logits ----------------------------------------------------------


def ntl_first(H, W_vocab):
    return H[0] @ W_vocab


def ntl_all(H, W_vocab):
    return H @ W_vocab


def ntl_probs(H, W_vocab):
    return _softmax(H[-1] @ W_vocab)


def ntl_plain(H, W_vocab):
    return H[H.shape[0] - 1] @ W_vocab


def ntl_einsum(H, W_vocab):
    return np.einsum("d,dv->v", H[-1], W_vocab)


def ntl_float32(H, W_vocab):
    return (H.astype(np.float32) @ W_vocab.astype(np.float32))[-1]


# softmax_backward -----------------------------------------------------------


def smb_diag(A, dA):
    return A * dA


def smb_axis0(A, dA):
    return A * (dA - (dA * A).sum(axis=0))


def smb_no_a(A, dA):
    return dA - (dA * A).sum(axis=-1, keepdims=True)


def smb_sign(A, dA):
    return A * ((dA * A).sum(axis=-1, keepdims=True) - dA)


def smb_jacobian(A, dA):
    out = np.empty_like(A)
    for idx in np.ndindex(A.shape[:-1]):
        a = A[idx]
        J = np.diag(a) - np.outer(a, a)  # d a / d s
        out[idx] = J.T @ dA[idx]
    return out


def smb_einsum(A, dA):
    return A * dA - A * np.einsum("...k,...k->...", dA, A)[..., None]


def smb_float32(A, dA):
    A, dA = A.astype(np.float32), dA.astype(np.float32)  # a dA around 10,000 keeps three decimals
    return A * (dA - (dA * A).sum(axis=-1, keepdims=True))


def smb_loops(A, dA):
    dS = np.zeros_like(A)
    for idx in np.ndindex(A.shape[:-1]):
        a, g = A[idx], dA[idx]
        weighted = sum(a[k] * g[k] for k in range(len(a)))
        for j in range(len(a)):
            dS[idx + (j,)] = a[j] * (g[j] - weighted)
    return dS


# cross_attention ------------------------------------------------------------


def _attend(Q, K, V, causal=False):
    S = Q @ K.T / np.sqrt(Q.shape[1])
    if causal:
        n_q, n_k = S.shape
        S = np.where(np.arange(n_k)[None, :] > np.arange(n_q)[:, None] + n_k - n_q, -np.inf, S)
    return _softmax(S) @ V


def cross_masked(X, Z, Wq, Wk, Wv):
    return _attend(X @ Wq, Z @ Wk, Z @ Wv, causal=True)


def cross_self(X, Z, Wq, Wk, Wv):
    return _attend(X @ Wq, X @ Wk, X @ Wv)


def cross_swapped(X, Z, Wq, Wk, Wv):
    return _attend(Z @ Wq, X @ Wk, X @ Wv)


def cross_keys_from_z_values_from_x(X, Z, Wq, Wk, Wv):
    S = (X @ Wq) @ (Z @ Wk).T / np.sqrt(Wq.shape[1])
    return _softmax(S) @ (X @ Wv)[:S.shape[1]] if X.shape[0] >= S.shape[1] else _softmax(S) @ (Z @ Wv) * 0


def cross_plain(X, Z, Wq, Wk, Wv):
    return _attend(X @ Wq, Z @ Wk, Z @ Wv)


def cross_einsum(X, Z, Wq, Wk, Wv):
    S = np.einsum("xd,dh,zc,ch->xz", X, Wq, Z, Wk) / np.sqrt(Wq.shape[1])
    return np.einsum("xz,zc,cv->xv", _softmax(S), Z, Wv)


def cross_float32(X, Z, Wq, Wk, Wv):
    X, Z, Wq, Wk, Wv = (M.astype(np.float32) for M in (X, Z, Wq, Wk, Wv))
    return _attend(X @ Wq, Z @ Wk, Z @ Wv)


# attend_step ----------------------------------------------------------------


def step_no_scale(q, K_cache, V_cache):
    return _softmax(K_cache @ q) @ V_cache


def step_scaled_twice(q, K_cache, V_cache):
    d = q.shape[0]
    q = q / np.sqrt(d)
    return _softmax(K_cache @ q / np.sqrt(d)) @ V_cache


def step_no_max(q, K_cache, V_cache):
    e = np.exp(K_cache @ q / np.sqrt(q.shape[0]))
    return (e / e.sum()) @ V_cache


def step_swapped(q, K_cache, V_cache):
    return _softmax(V_cache @ q / np.sqrt(q.shape[0])) @ K_cache


def step_full_attention(q, K_cache, V_cache):
    """Recompute as one row of ordinary attention: legitimate."""
    return _attend(q[None, :], K_cache, V_cache)[0]


def step_loop(q, K_cache, V_cache):
    s = [float(k @ q) / np.sqrt(len(q)) for k in K_cache]
    m = max(s)
    w = [np.exp(x - m) for x in s]
    total = sum(w)
    return sum((wi / total) * v for wi, v in zip(w, V_cache))


def step_float32(q, K_cache, V_cache):
    q, K, V = (M.astype(np.float32) for M in (q, K_cache, V_cache))
    return _softmax(K @ q / np.float32(np.sqrt(q.shape[0]))) @ V


# cache_step -----------------------------------------------------------------


def cache_forgets(q, k, v, K_cache, V_cache):
    return step_full_attention(q, K_cache, V_cache), K_cache, V_cache


def cache_after(q, k, v, K_cache, V_cache):
    o = step_full_attention(q, K_cache, V_cache)
    return o, np.vstack([K_cache, k]), np.vstack([V_cache, v])


def cache_front(q, k, v, K_cache, V_cache):
    K, V = np.vstack([k, K_cache]), np.vstack([v, V_cache])
    return step_full_attention(q, K, V), K, V


def cache_twice(q, k, v, K_cache, V_cache):
    K, V = np.vstack([K_cache, k]), np.vstack([V_cache, v])
    return step_scaled_twice(q, K, V), K, V


def cache_plain(q, k, v, K_cache, V_cache):
    K = np.concatenate([K_cache, k[None, :]], axis=0)
    V = np.concatenate([V_cache, v[None, :]], axis=0)
    return step_full_attention(q, K, V), K, V


def cache_append(q, k, v, K_cache, V_cache):
    K = np.append(K_cache, [k], axis=0)
    V = np.append(V_cache, [v], axis=0)
    return step_loop(q, K, V), K, V


def cache_list(q, k, v, K_cache, V_cache):
    K = np.array(list(K_cache) + [k])
    V = np.array(list(V_cache) + [v])
    return step_float32(q, K, V), K, V


# kv_cache_bytes -------------------------------------------------------------


def kv_no_two(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return n_layers * n_heads * d_head * seq_len * batch * bytes_per_value


def kv_no_batch(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return 2 * n_layers * n_heads * d_head * seq_len * bytes_per_value


def kv_bits(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return 2 * n_layers * n_heads * d_head * seq_len * batch * bytes_per_value * 8


def kv_float(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return 2.0 * n_layers * n_heads * d_head * seq_len * batch * bytes_per_value


def kv_plain(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return 2 * n_layers * n_heads * d_head * seq_len * batch * bytes_per_value


def kv_per_token(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    per_token = 2 * n_layers * n_heads * d_head * bytes_per_value  # K and V in every layer
    return per_token * seq_len * batch


def kv_math_prod(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    import math
    return math.prod([2, n_layers, n_heads, d_head, seq_len, batch, bytes_per_value])


WRONG = {
    "next_token_logits": [("first-row-not-last", ntl_first), ("logits-for-every-row", ntl_all),
                          ("softmax-applied-to-logits", ntl_probs)],
    "softmax_backward": [("softmax-backward-diagonal-only", smb_diag), ("softmax-backward-sum-wrong-axis", smb_axis0),
                         ("softmax-backward-missing-a-factor", smb_no_a), ("softmax-backward-sign", smb_sign),
                         ("precision-loss", smb_float32)],
    "cross_attention": [("mask-applied", cross_masked), ("kv-from-wrong-sequence", cross_self),
                        ("sources-swapped", cross_swapped), (None, cross_keys_from_z_values_from_x)],
    "attend_step": [("scale-missing", step_no_scale), ("scale-applied-twice", step_scaled_twice),
                    ("softmax-no-max-subtraction", step_no_max), ("kv-swapped", step_swapped)],
    "cache_step": [("cache-not-appended", cache_forgets), ("cache-not-appended", cache_after),
                   ("cache-prepended", cache_front), ("scale-applied-twice", cache_twice)],
    "kv_cache_bytes": [("kv-cache-missing-factor-2", kv_no_two), ("kv-cache-ignores-batch", kv_no_batch),
                       ("kv-cache-bits-not-bytes", kv_bits), ("returns-float", kv_float)],
}
RIGHT = {
    "next_token_logits": [ntl_plain, ntl_einsum, ntl_float32],
    "softmax_backward": [smb_jacobian, smb_einsum, smb_loops],
    "cross_attention": [cross_plain, cross_einsum, cross_float32],
    "attend_step": [step_full_attention, step_loop, step_float32],
    "cache_step": [cache_plain, cache_append, cache_list],
    "kv_cache_bytes": [kv_plain, kv_per_token, kv_math_prod],
}
