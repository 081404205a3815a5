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


def att_a_transposed(Q, K, V, causal=True, scale=True):
    return _weights(Q, K, causal, scale).T @ V


def att_v_times_a(Q, K, V, causal=True, scale=True):
    return V @ _weights(Q, K, causal, scale)


def att_no_scale(Q, K, V, causal=True, scale=True):
    return _weights(Q, K, causal, False) @ V


def att_mask_zero(Q, K, V, causal=True, scale=True):
    S = Q @ K.T / (np.sqrt(Q.shape[1]) if scale else 1.0)
    if causal:
        S = S * np.tril(np.ones(S.shape), k=S.shape[1] - S.shape[0])
    return _softmax(S) @ V


def att_never_masks(Q, K, V, causal=True, scale=True):
    return _weights(Q, K, False, scale) @ V


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


def sa_transposed_weights(X, Wq, Wk, Wv, Wo=None, causal=True):
    O = _weights(X @ Wq.T, X @ Wk.T, causal) @ (X @ Wv.T)
    return O if Wo is None else O @ Wo


def sa_scale_d_model(X, Wq, Wk, Wv, Wo=None, causal=True):
    S = (X @ Wq) @ (X @ Wk).T / np.sqrt(X.shape[1])
    O = _softmax(_causal(S) if causal else S) @ (X @ Wv)
    return O if Wo is None else O @ Wo


def sa_forgets_wo(X, Wq, Wk, Wv, Wo=None, causal=True):
    return _weights(X @ Wq, X @ Wk, causal) @ (X @ Wv)


def sa_always_causal(X, Wq, Wk, Wv, Wo=None, causal=True):
    O = _weights(X @ Wq, X @ Wk, True) @ (X @ Wv)
    return O if Wo is None else O @ Wo


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


def _heads(M, n_heads):
    n, width = M.shape
    return M.reshape(n, n_heads, width // n_heads).transpose(1, 0, 2)  # (h, n, d_head)


def mha_reshape_mixes(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    n = X.shape[0]
    Q, K, V = ((X @ W).reshape(n_heads, n, -1) for W in (Wq, Wk, Wv))
    heads = [_weights(q, k, causal) @ v for q, k, v in zip(Q, K, V)]
    return np.concatenate(heads, axis=1) @ Wo


def mha_reversed(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    d = Wq.shape[1] // n_heads
    cols = [slice(h * d, (h + 1) * d) for h in range(n_heads)]
    heads = [_weights(X @ Wq[:, c], X @ Wk[:, c], causal) @ (X @ Wv[:, c]) for c in cols]
    return np.concatenate(heads[::-1], axis=1) @ Wo


def mha_merge_reshape(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    Q, K, V = (_heads(X @ W, n_heads) for W in (Wq, Wk, Wv))
    O = np.stack([_weights(q, k, causal) @ v for q, k, v in zip(Q, K, V)])  # (h, n, d_head)
    return O.reshape(X.shape[0], -1) @ Wo


def mha_scale_d_model(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    Q, K, V = (_heads(X @ W, n_heads) for W in (Wq, Wk, Wv))
    heads = []
    for q, k, v in zip(Q, K, V):
        S = q @ k.T / np.sqrt(X.shape[1])
        heads.append(_softmax(_causal(S) if causal else S) @ v)
    return np.concatenate(heads, axis=1) @ Wo


def mha_one_head(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    return _weights(X @ Wq, X @ Wk, causal) @ (X @ Wv) @ Wo


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


def ln_eps_outside(X, g, b, eps=1e-5):
    mu = X.mean(axis=1, keepdims=True)
    return (X - mu) / (X.std(axis=1, keepdims=True) + eps) * g + b


def ln_unbiased(X, g, b, eps=1e-5):
    mu = X.mean(axis=1, keepdims=True)
    var = X.var(axis=1, ddof=1, keepdims=True)
    return (X - mu) / np.sqrt(var + eps) * g + b


def ln_columns(X, g, b, eps=1e-5):
    mu = X.mean(axis=0)
    return (X - mu) / np.sqrt(X.var(axis=0) + eps) * g + b


def ln_hardcoded_eps(X, g, b, eps=1e-5):
    mu = X.mean(axis=1, keepdims=True)
    return (X - mu) / np.sqrt(X.var(axis=1, keepdims=True) + 1e-5) * g + b


def ln_swapped(X, g, b, eps=1e-5):
    mu = X.mean(axis=1, keepdims=True)
    return (X - mu) / np.sqrt(X.var(axis=1, keepdims=True) + eps) * b + g


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


def gelu_erf(X):
    from math import erf
    return np.vectorize(lambda x: 0.5 * x * (1.0 + erf(x / np.sqrt(2.0))))(X)


def gelu_sigmoid(X):
    return X / (1.0 + np.exp(-1.702 * X))


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


def block_no_residual(X, p, n_heads, causal=True):
    Y = _mha(_ln(X, p["ln1_g"], p["ln1_b"]), p, n_heads, causal)
    return Y + _mlp(_ln(Y, p["ln2_g"], p["ln2_b"]), p)


def block_no_mlp_residual(X, p, n_heads, causal=True):
    Y = X + _mha(_ln(X, p["ln1_g"], p["ln1_b"]), p, n_heads, causal)
    return _mlp(_ln(Y, p["ln2_g"], p["ln2_b"]), p)


def block_post_ln(X, p, n_heads, causal=True):
    Y = _ln(X + _mha(X, p, n_heads, causal), p["ln1_g"], p["ln1_b"])
    return _ln(Y + _mlp(Y, p), p["ln2_g"], p["ln2_b"])


def block_same_ln(X, p, n_heads, causal=True):
    Y = X + _mha(_ln(X, p["ln1_g"], p["ln1_b"]), p, n_heads, causal)
    return Y + _mlp(_ln(Y, p["ln1_g"], p["ln1_b"]), p)


def block_no_gelu(X, p, n_heads, causal=True):
    Y = X + _mha(_ln(X, p["ln1_g"], p["ln1_b"]), p, n_heads, causal)
    H = _ln(Y, p["ln2_g"], p["ln2_b"])
    return Y + (H @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"]


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
    "attention": [("av-transposed", att_a_transposed), ("va-instead-of-av", att_v_times_a),
                  ("scale-missing", att_no_scale), ("mask-value-zero", att_mask_zero),
                  ("mask-not-applied", att_never_masks)],
    "self_attention": [("weights-transposed", sa_transposed_weights), ("scale-by-d-model", sa_scale_d_model),
                       ("wo-ignored", sa_forgets_wo), ("mask-always-applied", sa_always_causal)],
    "multi_head_attention": [("heads-split-mixed", mha_reshape_mixes), ("heads-out-of-order", mha_reversed),
                             ("heads-merge-mixed", mha_merge_reshape), ("scale-by-d-model", mha_scale_d_model),
                             ("heads-ignored", mha_one_head)],
    "layer_norm": [("layer-norm-eps-outside-sqrt", ln_eps_outside), ("layer-norm-unbiased-variance", ln_unbiased),
                   ("layer-norm-wrong-axis", ln_columns), ("layer-norm-eps-ignored", ln_hardcoded_eps),
                   ("layer-norm-gain-bias-swapped", ln_swapped), ("precision-loss", ln_float32),
                   ("variance-cancellation", ln_moments)],
    "gelu": [("gelu-exact-erf", gelu_erf), ("gelu-sigmoid-approx", gelu_sigmoid), ("gelu-relu", gelu_relu),
             ("gelu-missing-half", gelu_no_half)],
    "transformer_block": [("residual-missing", block_no_residual), ("residual-missing", block_no_mlp_residual),
                          ("post-ln", block_post_ln), ("layer-norm-reused", block_same_ln),
                          ("mlp-missing-gelu", block_no_gelu)],
}
RIGHT = {
    "attention": [att_einsum, att_loops, att_normalise_after, att_float32],
    "self_attention": [sa_plain, sa_einsum, sa_float32],
    "multi_head_attention": [mha_slices, mha_einsum, mha_float32],
    "layer_norm": [ln_loops, ln_einsum, ln_std, ln_two_pass_loop],
    "gelu": [gelu_plain, gelu_loop, gelu_float32],
    "transformer_block": [block_plain, block_einsum, block_float32],
}
