"""Notebooks 11, 13, 14: next_token_logits, softmax_backward, cross_attention, the KV cache exercises."""
import numpy as np


def _softmax(s):
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


# next_token_logits ----------------------------------------------------------


def ntl_plain(H, W_vocab):
    return H[H.shape[0] - 1] @ W_vocab


def ntl_einsum(H, W_vocab):
    return np.einsum("d,dv->v", H[-1], W_vocab)


def ntl_float32(H, W_vocab):
    return (H.astype(np.float32) @ W_vocab.astype(np.float32))[-1]


# softmax_backward -----------------------------------------------------------


def smb_diag(A, dA):
    return A * dA


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
    "next_token_logits": [
                          ],
    "softmax_backward": [("softmax-backward-row-sum-missing", smb_diag),

                         ("softmax-backward-own-sign-flipped+softmax-backward-row-sum-sign-flipped", smb_sign),
                         ("precision-loss", smb_float32)],
    "cross_attention": [
                        (None, cross_keys_from_z_values_from_x)],
    "attend_step": [
                    ],
    "cache_step": [("cache-not-appended", cache_forgets),
                   ],
    "kv_cache_bytes": [
                       ("returns-float", kv_float)],
}
RIGHT = {
    "next_token_logits": [ntl_plain, ntl_einsum, ntl_float32],
    "softmax_backward": [smb_jacobian, smb_einsum, smb_loops],
    "cross_attention": [cross_plain, cross_einsum, cross_float32],
    "attend_step": [step_full_attention, step_loop, step_float32],
    "cache_step": [cache_plain, cache_append, cache_list],
    "kv_cache_bytes": [kv_plain, kv_per_token, kv_math_prod],
}


# ---------------------------------------------------------------------------------------------------------------
# Notebook 13: padding_mask


def pad_bool(n_q, n_valid, n_k):
    return np.arange(n_k)[None, :].repeat(n_q, axis=0) < n_valid


def pad_slice(n_q, n_valid, n_k):
    M = np.zeros((n_q, n_k))
    M[:, n_valid:] = -np.inf
    return M


def pad_loops(n_q, n_valid, n_k):
    M = np.empty((n_q, n_k))
    for i in range(n_q):
        for j in range(n_k):
            M[i, j] = 0.0 if j < n_valid else float("-inf")
    return M


def pad_broadcast(n_q, n_valid, n_k):
    row = np.concatenate([np.zeros(n_valid), np.full(n_k - n_valid, -np.inf)])
    return np.broadcast_to(row, (n_q, n_k)).copy()


WRONG.update({
    "padding_mask": [("mask-boolean", pad_bool),

                     ],
})
RIGHT.update({
    "padding_mask": [pad_slice, pad_loops, pad_broadcast],
})


# ---------------------------------------------------------------------------------------------------------------
# Notebook 14: sample_next, generate, max_cached_tokens


def smp_no_zero_branch(logits, temperature, u):
    with np.errstate(all="ignore"):
        p = _softmax(np.asarray(logits, dtype=float) / temperature)
        c = np.cumsum(p)
    return int(np.searchsorted(c / c[-1], u, side="right"))


def smp_overflows(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    e = np.exp(np.asarray(logits, dtype=float) / temperature)
    cdf = np.cumsum(e / e.sum())
    hits = np.nonzero(cdf > u)[0]
    return int(hits[0]) if len(hits) else len(cdf) - 1


def smp_plain(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    z = np.asarray(logits, dtype=float) / temperature
    cdf = np.cumsum(_softmax(z))
    return int(min(np.searchsorted(cdf, u, side="right"), len(cdf) - 1))


def smp_loop(logits, temperature, u):
    import math
    values = [float(x) for x in logits]
    if temperature == 0:
        return values.index(max(values))
    top = max(values)
    weights = [math.exp((x - top) / temperature) for x in values]
    running, total = 0.0, sum(weights)
    for i, w in enumerate(weights):
        running += w / total
        if running > u:
            return i
    return len(weights) - 1


def smp_logsumexp(logits, temperature, u):
    if temperature <= 0:
        return int(np.argmax(logits))
    z = np.asarray(logits, dtype=np.float32) / np.float32(temperature)
    log_p = z - (z.max() + np.log(np.exp(z - z.max()).sum()))
    above = np.flatnonzero(np.cumsum(np.exp(log_p)) > u)
    return int(above[0]) if above.size else len(z) - 1


def _embedding(p, token, position):
    return p["tok_emb"][token] + p["pos_emb"][position]


def gen_own_cache_too(p, prompt, n_new, cache_step):
    seq, d = list(prompt), p["Wq"].shape[0]
    K, V = np.zeros((0, d)), np.zeros((0, d))
    for i in range(len(prompt) + n_new - 1):
        x = _embedding(p, seq[i], i)
        k, v = x @ p["Wk"], x @ p["Wv"]
        K, V = np.vstack([K, k]), np.vstack([V, v])  # appended here and again inside cache_step
        o, K, V = cache_step(x @ p["Wq"], k, v, K, V)
        if i + 1 >= len(prompt):
            seq.append(int(np.argmax((x + o) @ p["W_out"])))
    return np.array(seq)


def gen_feeds_last(p, prompt, n_new, cache_step):
    seq, d = list(prompt), p["Wq"].shape[0]
    K, V = np.zeros((0, d)), np.zeros((0, d))
    i = 0
    while len(seq) < len(prompt) + n_new or i < len(seq):
        x = _embedding(p, seq[i], i)
        o, K, V = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K, V)
        if i + 1 >= len(prompt) and len(seq) < len(prompt) + n_new:
            seq.append(int(np.argmax((x + o) @ p["W_out"])))
        i += 1
    return np.array(seq)


def gen_indexed(p, prompt, n_new, cache_step):
    T, d = len(prompt), p["Wq"].shape[0]
    out = np.zeros(T + n_new, dtype=int)
    out[:T] = prompt
    K, V = np.empty((0, d)), np.empty((0, d))
    for i in range(T + n_new - 1):
        x = p["tok_emb"][out[i]] + p["pos_emb"][i]
        o, K, V = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K, V)
        if i >= T - 1:
            out[i + 1] = np.argmax((x + o) @ p["W_out"])
    return out


def gen_prompt_then_new(p, prompt, n_new, cache_step):
    d = p["Wq"].shape[0]
    K, V = np.zeros((0, d)), np.zeros((0, d))
    seq, logits = [], None
    for t in prompt:  # every prompt token, the last one included
        x = _embedding(p, t, len(seq))
        o, K, V = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K, V)
        seq.append(int(t))
        logits = (x + o) @ p["W_out"]
    for j in range(n_new):
        seq.append(int(np.argmax(logits)))
        if j < n_new - 1:
            x = _embedding(p, seq[-1], len(seq) - 1)
            o, K, V = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K, V)
            logits = (x + o) @ p["W_out"]
    return np.array(seq, dtype=np.int64)


def gen_einsum_probs(p, prompt, n_new, cache_step):
    tokens = [int(t) for t in prompt]
    K = V = np.empty((0, p["Wk"].shape[1]))
    for i in range(len(prompt) + n_new - 1):
        x = np.einsum("d->d", p["tok_emb"][tokens[i]]) + p["pos_emb"][i]
        q, k, v = (np.einsum("d,de->e", x, p[w]) for w in ("Wq", "Wk", "Wv"))
        o, K, V = cache_step(q, k, v, K, V)
        if i >= len(prompt) - 1:
            probs = _softmax(np.einsum("d,dv->v", x + o, p["W_out"]))  # the argmax of the probabilities
            tokens.append(int(np.argmax(probs)))
    return np.asarray(tokens)


def mct_first_too_many(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    return memory_bytes // (2 * n_layers * n_heads * d_head * batch * bytes_per_value) + 1


def mct_floordiv(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    return memory_bytes // (2 * n_layers * n_heads * d_head * batch * bytes_per_value)


def mct_divmod(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    per_token = kv_plain(n_layers, n_heads, d_head, 1, batch, bytes_per_value)
    tokens, _left_over = divmod(memory_bytes, per_token)
    return tokens


def mct_bisect(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    def fits(n):
        return kv_per_token(n_layers, n_heads, d_head, n, batch, bytes_per_value) <= memory_bytes
    lo, hi = 0, 1
    while fits(hi):
        hi *= 2
    while hi - lo > 1:  # fits(lo) and not fits(hi)
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if fits(mid) else (lo, mid)
    return lo


WRONG.update({
    "sample_next": [
                    ("sample-temperature-zero", smp_no_zero_branch), ("softmax-no-max-subtraction", smp_overflows)],
    "generate": [

                 ("cache-not-passed-back", gen_own_cache_too),
                 ("cache-step-extra-call", gen_feeds_last)],
    "max_cached_tokens": [

                          ("max-tokens-does-not-fit", mct_first_too_many)],
})
RIGHT.update({
    "sample_next": [smp_plain, smp_loop, smp_logsumexp],
    "generate": [gen_indexed, gen_prompt_then_new, gen_einsum_probs],
    "max_cached_tokens": [mct_floordiv, mct_divmod, mct_bisect],
})


# top_k_filter and top_p_filter ----------------------------------------------


def tk_sort(logits, k):
    kth = np.sort(logits)[::-1][min(k, len(logits)) - 1]
    return np.where(logits >= kth, logits, -np.inf)


def tk_loop(logits, k):
    out = np.full(len(logits), -np.inf)
    for i, z in enumerate(logits):
        if np.sum(logits > z) < k:  # fewer than k logits beat it: it is among the k largest, ties included
            out[i] = z
    return out


def tk_partition(logits, k):
    k = min(k, len(logits))
    kth = np.partition(logits, len(logits) - k)[len(logits) - k]  # the k-th largest
    out = logits.copy()
    out[logits < kth] = -np.inf
    return out


def _probs(logits):
    e = np.exp(logits - logits.max())
    return e / e.sum()


def tp_sort(logits, p):
    if p == 1:
        return np.array(logits, dtype=float)
    P = _probs(logits)
    order = np.argsort(-P, kind="stable")
    n = np.searchsorted(np.cumsum(P[order]), p) + 1
    out = np.full(len(logits), -np.inf)
    out[order[:n]] = logits[order[:n]]
    return out


def tp_loop(logits, p):
    out, total = np.full(len(logits), -np.inf), 0.0
    P = _probs(logits)
    for i in sorted(range(len(P)), key=lambda i: (-P[i], i)):
        if p < 1 and total >= p:
            break
        out[i], total = logits[i], total + P[i]
    return out


def tp_mask_first(logits, p):
    if p >= 1.0:
        return logits.astype(float)
    P = _probs(logits)
    order = np.argsort(-P, kind="stable")
    before = np.concatenate([[0.0], np.cumsum(P[order])[:-1]])  # the probability ranked above each token
    keep = np.zeros(len(P), dtype=bool)
    keep[order[before < p]] = True  # kept while what ranks above it has not reached p
    return np.where(keep, logits, -np.inf)


WRONG.update({
    "top_k_filter": [
                     ],
    "top_p_filter": [
                     ],
})
RIGHT.update({"top_k_filter": [tk_sort, tk_loop, tk_partition], "top_p_filter": [tp_sort, tp_loop, tp_mask_first]})
