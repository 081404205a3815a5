"""Notebooks 07, 09 and 10: attention, self_attention, multi_head_attention, layer_norm, gelu, transformer_block."""
import numpy as np


def _softmax(S):
    E = np.exp(S - S.max(axis=-1, keepdims=True))
    return E / E.sum(axis=-1, keepdims=True)


def _causal(S):
    n_q, n_k = S.shape[-2:]
    future = np.arange(n_k)[None, :] > np.arange(n_q)[:, None] + (n_k - n_q)
    return np.where(future, -np.inf, S)


def _weights(Q, K, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(Q.shape[1])
    return _softmax(_causal(S) if causal else S)


# attention ------------------------------------------------------------------


def att_einsum(Q, K, V, causal=True, scale=True):
    S = np.einsum("qd,kd->qk", Q, K) / (np.sqrt(Q.shape[1]) if scale else 1.0)
    A = _softmax(_causal(S) if causal else S)
    return np.einsum("qk,kv->qv", A, V)


def att_loops(Q, K, V, causal=True, scale=True):
    n_q, n_k = Q.shape[0], K.shape[0]
    O = np.zeros((n_q, V.shape[1]))
    for i in range(n_q):
        visible = range(i + n_k - n_q + 1) if causal else range(n_k)
        s = np.array([Q[i] @ K[j] for j in visible]) / (np.sqrt(Q.shape[1]) if scale else 1.0)
        a = np.exp(s - s.max())
        a /= a.sum()
        for w, j in zip(a, visible):
            O[i] += w * V[j]
    return O


def att_normalise_after(Q, K, V, causal=True, scale=True):
    S = Q @ K.T / (np.sqrt(Q.shape[1]) if scale else 1.0)
    if causal:
        S = _causal(S)
    E = np.exp(S - S.max(axis=1, keepdims=True))
    return (E @ V) / E.sum(axis=1, keepdims=True)


def att_float32(Q, K, V, causal=True, scale=True):
    Q, K, V = (M.astype(np.float32) for M in (Q, K, V))
    return _weights(Q, K, causal, scale) @ V


# self_attention -------------------------------------------------------------


def sa_plain(X, Wq, Wk, Wv, Wo=None, causal=True):
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    O = _weights(Q, K, causal) @ V
    return O if Wo is None else O @ Wo


def sa_einsum(X, Wq, Wk, Wv, Wo=None, causal=True):
    Q, K, V = (np.einsum("nd,dh->nh", X, W) for W in (Wq, Wk, Wv))
    O = np.einsum("qk,kv->qv", _weights(Q, K, causal), V)
    return O if Wo is None else np.einsum("nv,vo->no", O, Wo)


def sa_float32(X, Wq, Wk, Wv, Wo=None, causal=True):
    X, Wq, Wk, Wv = (M.astype(np.float32) for M in (X, Wq, Wk, Wv))
    O = _weights(X @ Wq, X @ Wk, causal) @ (X @ Wv)
    return O if Wo is None else O @ Wo.astype(np.float32)


# multi_head_attention -------------------------------------------------------


def mha_slices(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    d = Wq.shape[1] // n_heads
    heads = []
    for h in range(n_heads):
        cols = slice(h * d, (h + 1) * d)
        heads.append(_weights(X @ Wq[:, cols], X @ Wk[:, cols], causal) @ (X @ Wv[:, cols]))
    return np.concatenate(heads, axis=1) @ Wo


def mha_einsum(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    n = X.shape[0]
    Q, K, V = ((X @ W).reshape(n, n_heads, -1) for W in (Wq, Wk, Wv))  # (n, h, d_head)
    S = np.einsum("qhd,khd->hqk", Q, K) / np.sqrt(Q.shape[-1])
    A = _softmax(_causal(S) if causal else S)
    O = np.einsum("hqk,khd->qhd", A, V).reshape(n, -1)
    return O @ Wo


def mha_float32(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    X, Wq, Wk, Wv, Wo = (M.astype(np.float32) for M in (X, Wq, Wk, Wv, Wo))
    return mha_slices(X, Wq, Wk, Wv, Wo, n_heads, causal)


# layer_norm, gelu -----------------------------------------------------------


def ln_loops(X, g, b, eps=1e-5):
    out = np.empty_like(X)
    for i, x in enumerate(X):
        mu = sum(x) / len(x)
        var = sum((v - mu) ** 2 for v in x) / len(x)
        out[i] = (x - mu) / np.sqrt(var + eps) * g + b
    return out


def ln_einsum(X, g, b, eps=1e-5):
    d = X.shape[1]
    Xc = X - np.einsum("nd->n", X)[:, None] / d
    var = np.einsum("nd,nd->n", Xc, Xc)[:, None] / d
    return Xc / np.sqrt(var + eps) * g + b


def ln_float32(X, g, b, eps=1e-5):
    X = X.astype(np.float32)  # rows around ten million keep only a few digits after the point
    mu = X.mean(axis=-1, keepdims=True)
    var = ((X - mu) ** 2).mean(axis=-1, keepdims=True)
    return (X - mu) / np.sqrt(var + np.float32(eps)) * g.astype(np.float32) + b.astype(np.float32)


def ln_moments(X, g, b, eps=1e-5):
    mu = X.mean(axis=1, keepdims=True)
    var = (X * X).mean(axis=1, keepdims=True) - mu * mu  # E[x^2] - E[x]^2: two huge, nearly equal numbers
    return (X - mu) / np.sqrt(var + eps) * g + b


def ln_std(X, g, b, eps=1e-5):
    Xc = X - X.mean(axis=1, keepdims=True)
    sigma = np.std(Xc, axis=1, keepdims=True)
    return g * (Xc / np.sqrt(sigma ** 2 + eps)) + b


def ln_two_pass_loop(X, g, b, eps=1e-5):
    out = np.empty_like(X)
    d = X.shape[1]
    for i in range(X.shape[0]):
        mu = np.sum(X[i]) / d
        centred = X[i] - mu
        var = np.dot(centred, centred) / d  # centre first, then square: no cancellation
        out[i] = g * centred / np.sqrt(var + eps) + b
    return out


def gelu_relu(X):
    return np.where(X > 0, X, 0.0)


def gelu_no_half(X):
    return X * (1 + np.tanh(np.sqrt(2 / np.pi) * (X + 0.044715 * X ** 3)))


def gelu_plain(X):
    return 0.5 * X * (1 + np.tanh(np.sqrt(2 / np.pi) * (X + 0.044715 * np.power(X, 3))))


def gelu_loop(X):
    out = np.empty_like(X)
    for idx, x in np.ndenumerate(X):
        out[idx] = 0.5 * x * (1 + np.tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)))
    return out


def gelu_float32(X):
    X = X.astype(np.float32)
    return 0.5 * X * (1 + np.tanh(np.float32(np.sqrt(2 / np.pi)) * (X + 0.044715 * X ** 3)))


# transformer_block ----------------------------------------------------------


def _ln(X, g, b):
    mu = X.mean(axis=-1, keepdims=True)
    return (X - mu) / np.sqrt(X.var(axis=-1, keepdims=True) + 1e-5) * g + b


def _mlp(H, p):
    Z = H @ p["W1"] + p["b1"]
    return gelu_plain(Z) @ p["W2"] + p["b2"]


def _mha(H, p, n_heads, causal):
    return mha_slices(H, p["Wq"], p["Wk"], p["Wv"], p["Wo"], n_heads, causal)


def block_no_mlp_residual(X, p, n_heads, causal=True):
    Y = X + _mha(_ln(X, p["ln1_g"], p["ln1_b"]), p, n_heads, causal)
    return _mlp(_ln(Y, p["ln2_g"], p["ln2_b"]), p)


def block_post_ln(X, p, n_heads, causal=True):
    Y = _ln(X + _mha(X, p, n_heads, causal), p["ln1_g"], p["ln1_b"])
    return _ln(Y + _mlp(Y, p), p["ln2_g"], p["ln2_b"])


def block_plain(X, p, n_heads, causal=True):
    Y = X + _mha(_ln(X, p["ln1_g"], p["ln1_b"]), p, n_heads, causal)
    return Y + _mlp(_ln(Y, p["ln2_g"], p["ln2_b"]), p)


def block_einsum(X, p, n_heads, causal=True):
    Y = X + mha_einsum(_ln(X, p["ln1_g"], p["ln1_b"]), p["Wq"], p["Wk"], p["Wv"], p["Wo"], n_heads, causal)
    H = _ln(Y, p["ln2_g"], p["ln2_b"])
    Z = gelu_plain(np.einsum("nd,df->nf", H, p["W1"]) + p["b1"])
    return Y + np.einsum("nf,fd->nd", Z, p["W2"]) + p["b2"]


def block_float32(X, p, n_heads, causal=True):
    p = {k: v.astype(np.float32) for k, v in p.items()}
    return block_plain(X.astype(np.float32), p, n_heads, causal)


WRONG = {
    "attention": [

                  ],
    "self_attention": [
                       ],
    "multi_head_attention": [

                             ],
    "layer_norm": [

                   ("precision-loss", ln_float32),
                   ("variance-cancellation", ln_moments)],
    "gelu": [
             ],
    "transformer_block": [

                          ],
}
RIGHT = {
    "attention": [att_einsum, att_loops, att_normalise_after, att_float32],
    "self_attention": [sa_plain, sa_einsum, sa_float32],
    "multi_head_attention": [mha_slices, mha_einsum, mha_float32],
    "layer_norm": [ln_loops, ln_einsum, ln_std, ln_two_pass_loop],
    "gelu": [gelu_plain, gelu_loop, gelu_float32],
    "transformer_block": [block_plain, block_einsum, block_float32],
}


# ---------------------------------------------------------------------------------------------------------------
# Notebooks 07 and 09: future_leak, tiled_attention, split_heads


# future_leak ----------------------------------------------------------------


def fl_pairs(attn, X):
    base = attn(X)
    count = 0
    for j in range(1, len(X)):
        Y = X.copy()
        Y[j] += 1.0
        moved = np.abs(attn(Y) - base).max(axis=1) > 1e-9
        count += int(moved[:j].sum())  # every leaking (row, future row) pair
    return count


def fl_counts_itself(attn, X):
    base = attn(X)
    worst = 0
    for j in range(len(X)):
        Y = X.copy()
        Y[j] += 1.0
        moved = np.flatnonzero(np.abs(attn(Y) - base).max(axis=1) > 1e-9)
        for i in moved[moved <= j]:
            worst = max(worst, j - i + 1)  # "row i sees positions i..j": j - i + 1 of them
    return worst


def fl_row_zero(attn, X):
    base = attn(X)[0]
    worst = 0
    for j in range(1, len(X)):
        Y = X.copy()
        Y[j] += 1.0
        if np.abs(attn(Y)[0] - base).max() > 1e-9:
            worst = j
    return worst


def fl_in_place(attn, X):
    base = attn(X)
    worst = 0
    for j in range(1, len(X)):
        X[j] += 1.0  # writes into the caller's X
        moved = np.flatnonzero(np.abs(attn(X) - base).max(axis=1) > 1e-9)
        if moved.size and moved[0] < j:
            worst = max(worst, j - moved[0])
    return worst


def fl_isclose(attn, X):
    base = attn(X)
    for k in range(len(X) - 1, 0, -1):  # the largest distance first
        for i in range(len(X) - k):
            Y = X.copy()
            Y[i + k] += 0.5
            if not np.isclose(attn(Y)[i], base[i], rtol=1e-12, atol=1e-12).all():
                return k
    return 0


def fl_matrix(attn, X):
    rng = np.random.default_rng(1)
    base = attn(X)
    scale = np.abs(base).max()
    n = len(X)
    seen = np.zeros((n, n), dtype=bool)
    for j in range(n):
        Y = X + np.outer(np.arange(n) == j, rng.normal(size=X.shape[1]))
        seen[:, j] = (np.abs(attn(Y) - base) > 1e-10 * scale).any(axis=1)
    i, j = np.nonzero(np.triu(seen, k=1))
    return int((j - i).max()) if len(i) else 0


def fl_relative_norm(attn, X):
    base = attn(X)
    worst = 0
    for j in range(1, len(X)):
        Y = X.copy()
        Y[j] = 2.0 * Y[j] + 1.0
        rel = np.linalg.norm(attn(Y) - base, axis=1) / np.linalg.norm(base)
        for i in np.flatnonzero(rel[:j] > 1e-10):
            worst = max(worst, j - int(i))
    return worst


# tiled_attention -------------------------------------------------------------


def ta_one_tile_per_block_of_queries(Q, K, V, causal=True, block=64):
    out = []
    for a in range(0, len(Q), block):  # only the queries are tiled: every key at once
        s = Q[a:a + block] @ K.T / np.sqrt(Q.shape[1])
        if causal:
            rows = np.arange(a, a + len(s))[:, None] + len(K) - len(Q)
            s = np.where(np.arange(len(K)) > rows, -np.inf, s)
        e = np.exp(s - s.max(axis=1, keepdims=True))
        out.append(e / e.sum(axis=1, keepdims=True) @ V)
    return np.vstack(out)


def ta_full_matrix(Q, K, V, causal=True, block=64):
    return _weights(Q, K, causal) @ V  # the whole (n_q, n_k) matrix at once


def ta_loops(Q, K, V, causal=True, block=64):
    n_q, n_k = len(Q), len(K)
    O = np.zeros((n_q, V.shape[1]))
    for i in range(n_q):
        q = Q[i] / np.sqrt(len(Q[i]))
        last = i + n_k - n_q if causal else n_k - 1
        m, total, acc = -np.inf, 0.0, np.zeros(V.shape[1])
        for b in range(0, last + 1, block):
            s = K[b:min(b + block, last + 1)] @ q
            new_m = max(m, s.max())
            p = np.exp(s - new_m)
            total = total * np.exp(m - new_m) + p.sum()
            acc = acc * np.exp(m - new_m) + p @ V[b:b + len(s)]
            m = new_m
        O[i] = acc / total
    return O


def ta_skip_future_einsum(Q, K, V, causal=True, block=64):
    n_q, n_k = len(Q), len(K)
    O = np.empty((n_q, V.shape[1]))
    for a in range(0, n_q, block):
        q = Q[a:a + block] * Q.shape[1] ** -0.5
        pos = np.arange(a, a + len(q)) + n_k - n_q
        m, total, acc = None, None, None
        stop = min(n_k, pos[-1] + 1) if causal else n_k  # tiles after the last query are all future
        for b in range(0, stop, block):
            s = np.einsum("id,jd->ij", q, K[b:b + block])
            if causal:
                s = np.where(np.arange(b, b + s.shape[1])[None, :] <= pos[:, None], s, -np.inf)
            tile_max = s.max(axis=1, keepdims=True)
            if m is None:
                m, total, acc = tile_max, np.zeros_like(tile_max), np.zeros((len(q), V.shape[1]))
            new_m = np.maximum(m, tile_max)
            p = np.exp(s - new_m)
            total = total * np.exp(m - new_m) + p.sum(axis=1, keepdims=True)
            acc = acc * np.exp(m - new_m) + np.einsum("ij,jv->iv", p, V[b:b + block])
            m = new_m
        O[a:a + block] = acc / total
    return O


def ta_lists(Q, K, V, causal=True, block=64):
    n_q, n_k = len(Q), len(K)
    rows = []
    for a in range(0, n_q, block):
        q = Q[a:a + block] / np.sqrt(Q.shape[1])
        m = np.full((len(q), 1), -np.inf)
        num, den = 0.0, 0.0
        for b in range(0, n_k, block):
            k, v = K[b:b + block], V[b:b + block]
            s = q @ k.T
            if causal:
                i = np.arange(len(q))[:, None] + a + (n_k - n_q)
                j = np.arange(len(k))[None, :] + b
                s = s + np.where(j > i, -np.inf, 0.0)
            new_m = np.maximum(m, s.max(axis=1, keepdims=True))
            num = num * np.exp(m - new_m) + np.exp(s - new_m) @ v
            den = den * np.exp(m - new_m) + np.exp(s - new_m).sum(axis=1, keepdims=True)
            m = new_m
        rows.append(num / den)
    return np.concatenate(rows, axis=0)


# split_heads -----------------------------------------------------------------


def sh_slices(M, n_heads):
    d_head = M.shape[1] // n_heads
    return np.stack([M[:, h * d_head:(h + 1) * d_head] for h in range(n_heads)])


def sh_split(M, n_heads):
    return np.array(np.split(M, n_heads, axis=1))


def sh_swapaxes(M, n_heads):
    return np.swapaxes(M.reshape(len(M), n_heads, -1), 0, 1).copy()


def sh_loop(M, n_heads):
    n, width = M.shape
    d_head = width // n_heads
    out = np.zeros((n_heads, n, d_head))
    for h in range(n_heads):
        for c in range(d_head):
            out[h, :, c] = M[:, h * d_head + c]
    return out


WRONG.update({
    # the three with a fixed threshold of 1e-9 make two mistakes: the outputs near a million show it
    "future_leak": [("leak-tolerance-absolute+leak-counts-pairs", fl_pairs),
                    ("leak-tolerance-absolute+leak-counts-own-row", fl_counts_itself),
                    ("leak-tolerance-absolute+leak-first-row-only", fl_row_zero), ("mutates-input", fl_in_place)],
    "tiled_attention": [


                        ],
    "split_heads": [
                    ],
})
RIGHT.update({
    "future_leak": [fl_isclose, fl_matrix, fl_relative_norm],
    "tiled_attention": [ta_loops, ta_skip_future_einsum, ta_lists],
    "split_heads": [sh_slices, sh_split, sh_swapaxes, sh_loop],
})
# Rejected only by the memory requirement of tiled_attention (attention_module.tiled_memory), which the grader
# runs once it calls each lesson module's REQUIREMENTS: their values are right.
NEEDS_REQUIREMENTS = {
    "tiled_attention": [("keys-not-tiled", ta_one_tile_per_block_of_queries), ("not-tiled", ta_full_matrix)],
}


# ---------------------------------------------------------------------------------------------------------------
# Notebook 11: cross_entropy, attention_backward, layer_norm_backward (written as a learner would, numpy only)


def ce_naive(logits, targets):
    e = np.exp(logits)
    p = e / e.sum(axis=1, keepdims=True)
    n = len(targets)
    y = np.zeros_like(p)
    y[np.arange(n), targets] = 1
    return -np.mean(np.log(p[np.arange(n), targets])), (p - y) / n


def ce_rows_loop(logits, targets):
    n = len(targets)
    loss, d = 0.0, np.zeros(logits.shape)
    for i in range(n):
        row = logits[i].astype(float)
        m = row.max()
        lse = m + np.log(np.sum(np.exp(row - m)))
        loss += (lse - row[targets[i]]) / n
        d[i] = np.exp(row - lse) / n
        d[i, targets[i]] -= 1 / n
    return loss, d


def ce_logaddexp(logits, targets):
    lse = np.logaddexp.reduce(logits, axis=1)
    picked = np.take_along_axis(logits, targets[:, None], axis=1)[:, 0]
    onehot = np.eye(logits.shape[1])[targets]
    return np.mean(lse - picked), (np.exp(logits - lse[:, None]) - onehot) / len(targets)


def ce_float32(logits, targets):
    z = logits.astype(np.float32)
    z = z - z.max(axis=1, keepdims=True)
    lse = np.log(np.exp(z).sum(axis=1, keepdims=True))
    n = np.float32(len(targets))
    d = np.exp(z - lse)
    d[np.arange(len(targets)), targets] -= np.float32(1)
    return np.sum(lse[:, 0] - z[np.arange(len(targets)), targets]) / n, d / n


def ce_one_hot_matrix(logits, targets):
    Y = (np.arange(logits.shape[1])[None, :] == targets[:, None]).astype(float)
    shifted = logits - logits.max(axis=-1, keepdims=True)
    logp = shifted - np.log(np.sum(np.exp(shifted), axis=-1, keepdims=True))
    return -np.sum(Y * logp) / len(targets), (np.exp(logp) - Y) / len(targets)


def _ab_weights(Q, K, causal, scale):
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(Q.shape[1])
    if causal:
        n_q, n_k = S.shape
        S = np.where(np.arange(n_k)[None, :] > np.arange(n_k - n_q, n_k)[:, None], -np.inf, S)
    E = np.exp(S - S.max(axis=1, keepdims=True))
    return E / E.sum(axis=1, keepdims=True)


def ab_no_subtraction(Q, K, V, dO, causal=True, scale=True):
    A = _ab_weights(Q, K, causal, scale)
    dS = A * (dO @ V.T)
    if scale:
        dS = dS / np.sqrt(Q.shape[1])
    return dS @ K, dS.T @ Q, A.T @ dO


def ab_scale_twice(Q, K, V, dO, causal=True, scale=True):
    A = _ab_weights(Q, K, causal, scale)
    dA = dO @ V.T
    dS = A * (dA - (A * dA).sum(axis=1, keepdims=True)) * (1 / Q.shape[1] if scale else 1)  # 1/sqrt(d), twice
    return dS @ K, dS.T @ Q, A.T @ dO


def ab_einsum(Q, K, V, dO, causal=True, scale=True):
    s = Q.shape[1] ** -0.5 if scale else 1.0
    A = _ab_weights(Q, K, causal, scale)
    dA = np.einsum("qv,kv->qk", dO, V)
    dS = np.einsum("qk,qk->qk", A, dA - np.einsum("qk,qk->q", A, dA)[:, None]) * s
    return np.einsum("qk,kd->qd", dS, K), np.einsum("qk,qd->kd", dS, Q), np.einsum("qk,qv->kv", A, dO)


def ab_row_by_row(Q, K, V, dO, causal=True, scale=True):
    n_q, n_k = Q.shape[0], K.shape[0]
    s = 1 / np.sqrt(Q.shape[1]) if scale else 1.0
    dQ, dK, dV = np.zeros(Q.shape), np.zeros(K.shape), np.zeros(V.shape)
    for i in range(n_q):
        seen = n_k - n_q + i + 1 if causal else n_k
        sc = K[:seen] @ Q[i] * s
        a = np.exp(sc - sc.max())
        a /= a.sum()
        da = V[:seen] @ dO[i]
        ds = (np.diag(a) - np.outer(a, a)) @ da * s  # the softmax Jacobian is symmetric
        dQ[i] = ds @ K[:seen]
        dK[:seen] += np.outer(ds, Q[i])
        dV[:seen] += np.outer(a, dO[i])
    return dQ, dK, dV


def ab_scaled_queries(Q, K, V, dO, causal=True, scale=True):
    s = 1 / np.sqrt(Q.shape[1]) if scale else 1.0
    Qs = Q * s  # scale the queries, then the chain rule through that step
    S = Qs @ K.T
    if causal:
        S[np.triu_indices(S.shape[0], k=S.shape[1] - S.shape[0] + 1, m=S.shape[1])] = -np.inf
    A = np.exp(S - S.max(axis=1, keepdims=True))
    A = A / A.sum(axis=1, keepdims=True)
    dA = dO @ V.T
    dS = A * dA - A * (A * dA).sum(axis=1, keepdims=True)
    return (dS @ K) * s, dS.T @ Qs, A.T @ dO


def ab_float32(Q, K, V, dO, causal=True, scale=True):
    Q, K, V, dO = (a.astype(np.float32) for a in (Q, K, V, dO))
    A = _ab_weights(Q, K, causal, scale).astype(np.float32)
    dA = dO @ V.T
    dS = A * (dA - (A * dA).sum(axis=1, keepdims=True)) * np.float32(1 / np.sqrt(Q.shape[1]) if scale else 1)
    return dS @ K, dS.T @ Q, A.T @ dO


def _lnb_stats(X, eps, ddof=0):
    mu = X.mean(axis=1, keepdims=True)
    std = np.sqrt(X.var(axis=1, ddof=ddof, keepdims=True) + eps)
    return (X - mu) / std, std


def lnb_mean_only(X, g, dY, eps=1e-5):
    xh, std = _lnb_stats(X, eps)
    dxh = dY * g
    return (dxh - dxh.mean(axis=1, keepdims=True)) / std, (dY * xh).sum(axis=0), dY.sum(axis=0)


def lnb_as_if_constant(X, g, dY, eps=1e-5):
    xh, std = _lnb_stats(X, eps)
    return dY * g / std, (dY * xh).sum(axis=0), dY.sum(axis=0)


def lnb_compact(X, g, dY, eps=1e-5):
    xh, std = _lnb_stats(X, eps)
    d = X.shape[1]
    dxh = dY * g
    dX = (d * dxh - dxh.sum(axis=1, keepdims=True) - xh * (dxh * xh).sum(axis=1, keepdims=True)) / (d * std)
    return dX, (dY * xh).sum(axis=0), dY.sum(axis=0)


def lnb_graph(X, g, dY, eps=1e-5):
    d = X.shape[1]
    mu = X.mean(axis=1, keepdims=True)
    xc = X - mu
    var = (xc ** 2).mean(axis=1, keepdims=True)
    inv = 1 / np.sqrt(var + eps)
    dxh = dY * g
    dvar = (dxh * xc).sum(axis=1, keepdims=True) * -0.5 * inv ** 3
    dmu = -(dxh * inv).sum(axis=1, keepdims=True) + dvar * (-2 * xc).mean(axis=1, keepdims=True)
    dX = dxh * inv + dvar * 2 * xc / d + dmu / d
    return dX, (dY * xc * inv).sum(axis=0), dY.sum(axis=0)


def lnb_jacobian(X, g, dY, eps=1e-5):
    n, d = X.shape
    dX = np.zeros((n, d))
    xh_all = np.zeros((n, d))
    for i in range(n):
        x = X[i]
        std = np.sqrt(np.mean((x - x.mean()) ** 2) + eps)
        xh = (x - x.mean()) / std
        J = (np.eye(d) - 1 / d - np.outer(xh, xh) / d) / std  # d xh / d x, symmetric
        dX[i] = J @ (dY[i] * g)
        xh_all[i] = xh
    return dX, np.einsum("nd,nd->d", dY, xh_all), np.einsum("nd->d", dY)


def lnb_float32(X, g, dY, eps=1e-5):
    X, g, dY = (a.astype(np.float32) for a in (X, g, dY))
    xh, std = _lnb_stats(X, np.float32(eps))
    dxh = dY * g
    dX = (dxh - dxh.mean(1, keepdims=True) - xh * (dxh * xh).mean(1, keepdims=True)) / std
    return dX, (dY * xh).sum(0), dY.sum(0)


WRONG.update({
    "cross_entropy": [


                      ("softmax-no-max-subtraction+cross-entropy-log-underflow", ce_naive),

                      ],
    "attention_backward": [("softmax-backward-row-sum-missing", ab_no_subtraction),






                           ],
    "layer_norm_backward": [("layer-norm-backward-variance-term-missing", lnb_mean_only),
                            ("layer-norm-backward-mean-term-missing+layer-norm-backward-variance-term-missing",
                             lnb_as_if_constant),



                            ],
})
RIGHT.update({
    "cross_entropy": [ce_rows_loop, ce_logaddexp, ce_float32, ce_one_hot_matrix],
    "attention_backward": [ab_einsum, ab_row_by_row, ab_scaled_queries, ab_float32],
    "layer_norm_backward": [lnb_compact, lnb_graph, lnb_jacobian, lnb_float32],
})
