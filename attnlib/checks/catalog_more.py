"""Exercise checks for notebooks 07-11: attention modules, the block, next token, the cache."""
import numpy as np

import attnlib as al
from . import wrong as W
from .catalog_basic import _AW_MISTAKES, _mistaken, _qk_probes, add
from .spec import Exercise, Probe, features, rand, tokens

# 07 -------------------------------------------------------------------------


def _qkv_probes(seed):
    d_v = (6, 4, 7, 2, 3)
    probes = _qk_probes(seed)
    for p, dv in zip(probes, d_v):
        n_k = p.args[1].shape[0]
        p.args = p.args + (rand(seed + 20 + dv, n_k, dv),)
        p.names = ("Q", "K", "V")
        p.cols = features(dv, "v")
    return probes


add(Exercise(
    "attention", "attention(Q, K, V, causal=True, scale=True) -> O (n_q, d_v)", al.attention,
    _qkv_probes(100),
    [(m, _mistaken(W.attention, m)) for m in _AW_MISTAKES + ["av-transposed", "va-instead-of-av"]],
    "O = A V for n_q < n_k, n_q = n_k, causal=False, scale=False and huge logits",
    "Compute the weights A as in attention_weights, then mix the rows of V with them.",
    "A is (n_q, n_k) and V is (n_k, d_v): O = A @ V is (n_q, d_v).",
    "O = softmax(Q Kᵀ / √d + M) V"))


def _self_attention(X, Wq, Wk, Wv, Wo=None, causal=True, mistake=None):
    if mistake == "weights-transposed":
        Wq, Wk, Wv = Wq.T, Wk.T, Wv.T
        mistake = None
    O = W.attention(X @ Wq, X @ Wk, X @ Wv, causal, True, mistake)
    if mistake == "scale-by-d-model":
        O = W.weights(X @ Wq * np.sqrt(Wq.shape[1] / X.shape[1]), X @ Wk, causal) @ (X @ Wv)
    return O if Wo is None or mistake == "wo-ignored" else O @ Wo


def _sa(seed, d_model, d_head, d_v, d_out=None, **kw):
    n = 5
    args = (rand(seed, n, d_model), rand(seed + 1, d_model, d_head), rand(seed + 2, d_model, d_head),
            rand(seed + 3, d_model, d_v)) + ((rand(seed + 4, d_v, d_out),) if d_out else ())
    return Probe(args, kw, names=("X", "Wq", "Wk", "Wv", "Wo"), rows=tokens(n),
                 cols=features(d_out or d_v, "o"))


add(Exercise(
    "self_attention", "self_attention(X, Wq, Wk, Wv, Wo=None, causal=True) -> (n, d_out)", al.self_attention,
    [_sa(110, 6, 4, 3), _sa(120, 6, 4, 3, 7), _sa(130, 3, 2, 4, causal=False), _sa(140, 4, 4, 4, 4)],
    [(m, _mistaken(_self_attention, m)) for m in
     ["weights-transposed", "scale-by-d-model", "kq-instead-of-qk", "scale-missing", "mask-not-applied",
      "mask-always-applied", "mask-hides-diagonal", "mask-value-zero", "mask-after-softmax", "av-transposed",
      "softmax-wrong-axis", "wo-ignored"]],
    "Q, K, V from X, causal attention, the optional Wo, on non-square weights",
    "Project X three times (Q = X Wq, K = X Wk, V = X Wv), then apply causal attention, then Wo if given.",
    "Scale by √d_head, the width of Q and K (Wq.shape[1]), not by d_model.",
    "O = softmax(X Wq (X Wk)ᵀ / √d_head + M) X Wv [@ Wo]"))

# 08 -------------------------------------------------------------------------


def _mha(seed, n, d_model, width, n_heads, **kw):
    args = (rand(seed, n, d_model), rand(seed + 1, d_model, width), rand(seed + 2, d_model, width),
            rand(seed + 3, d_model, width), rand(seed + 4, width, d_model), n_heads)
    return Probe(args, kw, names=("X", "Wq", "Wk", "Wv", "Wo", "n_heads"), rows=tokens(n),
                 cols=features(d_model))


add(Exercise(
    "multi_head_attention", "multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, causal=True) -> (n, d_model)",
    al.multi_head_attention,
    [_mha(200, 5, 6, 8, 2), _mha(210, 4, 6, 6, 3, causal=False), _mha(220, 6, 4, 4, 2)],
    [(m, _mistaken(W.multi_head, m)) for m in
     ["heads-split-mixed", "heads-merge-mixed", "heads-out-of-order", "scale-by-d-model", "scale-missing",
      "heads-ignored", "wo-ignored", "mask-not-applied", "mask-always-applied", "softmax-wrong-axis"]]
    + [("scale-by-d-model", _mistaken(W.multi_head, "scale-by-full-width"))],
    "2 and 3 heads, head h on columns h*d_head:(h+1)*d_head, concatenated in order, then Wo",
    "Each head is ordinary attention on its own slice of columns of Q, K and V; the results sit side by side.",
    "d_head = Wq.shape[1] // n_heads; head h uses [:, h*d_head:(h+1)*d_head]; np.concatenate(heads, axis=1) @ Wo.",
    "MHA(X) = [head_0 | head_1 | ...] @ Wo"))


def _ln(X, g, b, eps=1e-5, mistake=None):
    axis = 0 if mistake == "layer-norm-wrong-axis" else -1
    mu = X.mean(axis=axis, keepdims=True)
    var = X.var(axis=axis, keepdims=True, ddof=1 if mistake == "layer-norm-unbiased-variance" else 0)
    if mistake == "layer-norm-eps-ignored":
        eps = 1e-5
    if mistake == "layer-norm-gain-bias-swapped":
        g, b = b, g
    if mistake == "layer-norm-eps-outside-sqrt":
        return (X - mu) / (np.sqrt(var) + eps) * g + b
    return (X - mu) / np.sqrt(var + eps) * g + b


def _ln_probe(seed, n, d, spread, offset=1.0, **kw):
    X = rand(seed, n, d, scale=spread) + rand(seed + 1, n, 1, scale=offset)
    return Probe((X, rand(seed + 2, d) + 1.0, rand(seed + 3, d)), kw, names=("X", "g", "b"),
                 rows=tokens(n), cols=features(d))


add(Exercise(
    "layer_norm", "layer_norm(X, g, b, eps=1e-5) -> (n, d)", al.layer_norm,
    [_ln_probe(300, 4, 6, 2.0), _ln_probe(310, 3, 5, 3e-3, offset=1e-3), _ln_probe(320, 5, 3, 0.5, eps=0.1)],
    [(m, _mistaken(_ln, m)) for m in
     ["layer-norm-eps-outside-sqrt", "layer-norm-unbiased-variance", "layer-norm-wrong-axis",
      "layer-norm-eps-ignored", "layer-norm-gain-bias-swapped"]],
    "row-wise mean 0 / variance 1 then * g + b, including nearly constant rows and eps=0.1",
    "Work row by row: subtract the row mean, divide by the row standard deviation, then scale by g and shift by b.",
    "Use keepdims=True, the biased variance (np.var's default) and put eps inside the root: np.sqrt(var + eps).",
    "y = (x - mean(x)) / sqrt(var(x) + eps) * g + b"))


def _erf_gelu(X):
    from math import erf, sqrt
    return 0.5 * X * (1.0 + np.vectorize(erf)(X / sqrt(2.0)))


_G = np.sqrt(2.0 / np.pi)
add(Exercise(
    "gelu", "gelu(X) -> same shape", al.gelu,
    [Probe((np.linspace(-4.0, 4.0, 9),), names=("X",), cols=[f"{v:g}" for v in np.linspace(-4, 4, 9)]),
     Probe((rand(330, 4, 6, scale=2.0),), names=("X",), rows=tokens(4), cols=features(6))],
    [("gelu-exact-erf", _erf_gelu),
     ("gelu-sigmoid-approx", lambda X: X / (1.0 + np.exp(-1.702 * X))),
     ("gelu-missing-half", lambda X: X * (1.0 + np.tanh(_G * (X + 0.044715 * X ** 3)))),
     ("gelu-relu", lambda X: np.maximum(X, 0.0))],
    "the tanh-approximate GELU, elementwise, on a line of values and a matrix",
    "GELU(x) = x · Φ(x): it lets large positive values through, blocks large negative ones, and is smooth near 0.",
    "GPT-2's formula: 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x**3))).",
    "gelu(x) = 0.5 x (1 + tanh(√(2/π) (x + 0.044715 x³)))"))


def _block_params(seed, d, d_ff):
    keys_shapes = {"ln1_g": (d,), "ln1_b": (d,), "Wq": (d, d), "Wk": (d, d), "Wv": (d, d), "Wo": (d, d),
                   "ln2_g": (d,), "ln2_b": (d,), "W1": (d, d_ff), "b1": (d_ff,), "W2": (d_ff, d), "b2": (d,)}
    p = {k: rand(seed + i, *s, scale=0.5) for i, (k, s) in enumerate(keys_shapes.items())}
    p["ln1_g"] += 1.0
    p["ln2_g"] += 1.0
    return p


def _block(X, p, n_heads, causal=True, mistake=None):
    def mha(H):
        return al.multi_head_attention(H, p["Wq"], p["Wk"], p["Wv"], p["Wo"],
                                       1 if mistake == "heads-ignored" else n_heads, causal)

    def mlp(H):
        Z = H @ p["W1"] + p["b1"]
        return (Z if mistake == "mlp-missing-gelu" else al.gelu(Z)) @ p["W2"] + p["b2"]

    ln2 = ("ln1_g", "ln1_b") if mistake == "layer-norm-reused" else ("ln2_g", "ln2_b")
    if mistake == "post-ln":
        Y = al.layer_norm(X + mha(X), p["ln1_g"], p["ln1_b"])
        return al.layer_norm(Y + mlp(Y), p["ln2_g"], p["ln2_b"])
    A = mha(al.layer_norm(X, p["ln1_g"], p["ln1_b"]))
    Y = A if mistake in ("residual-missing", "residual-missing-both") else X + A
    M = mlp(al.layer_norm(Y, p[ln2[0]], p[ln2[1]]))
    return M if mistake in ("residual-missing-mlp", "residual-missing-both") else Y + M


def _block_probe(seed, n, d, n_heads, **kw):
    return Probe((rand(seed, n, d), _block_params(seed + 1, d, 4 * d), n_heads), kw,
                 names=("X", "p", "n_heads"), rows=tokens(n), cols=features(d))


add(Exercise(
    "transformer_block", "transformer_block(X, p, n_heads, causal=True) -> (n, d_model)", al.transformer_block,
    [_block_probe(400, 5, 6, 2), _block_probe(430, 4, 6, 3, causal=False), _block_probe(460, 3, 4, 2)],
    [(m, _mistaken(_block, m)) for m in ["residual-missing", "post-ln", "layer-norm-reused",
                                         "mlp-missing-gelu", "heads-ignored"]]
    + [("residual-missing", _mistaken(_block, m)) for m in ("residual-missing-mlp", "residual-missing-both")],
    "pre-LN attention and MLP sub-layers, each added back to its input, for 2 and 3 heads",
    "Two sub-layers, each wrapped the same way: normalise the input, run the sub-layer, add the result to the input.",
    "Y = X + multi_head_attention(layer_norm(X, ln1_g, ln1_b), ...); out = Y + mlp(layer_norm(Y, ln2_g, ln2_b)).",
    "Y = X + MHA(LN1(X)); out = Y + gelu(LN2(Y) W1 + b1) W2 + b2"))

# 09 -------------------------------------------------------------------------
add(Exercise(
    "next_token_logits", "next_token_logits(H, W_vocab) -> (vocab,)", al.next_token_logits,
    [Probe((rand(500, 5, 6), rand(501, 6, 9)), names=("H", "W_vocab"), cols=features(9, "w")),
     Probe((rand(502, 3, 4), rand(503, 4, 7)), names=("H", "W_vocab"), cols=features(7, "w"))],
    [("first-row-not-last", lambda H, Wv: H[0] @ Wv),
     ("logits-for-every-row", lambda H, Wv: H @ Wv),
     ("softmax-applied-to-logits", lambda H, Wv: W.softmax_rows(H[-1] @ Wv)),
     ("mean-of-rows", lambda H, Wv: H.mean(axis=0) @ Wv)],
    "the last row of H times W_vocab, for two vocabulary sizes",
    "Only the last position predicts the next token: after it, nothing has been seen yet.",
    "H[-1] is (d_model,); H[-1] @ W_vocab is (vocab,). Return the raw logits.",
    "logits = H[-1] @ W_vocab"))


def _sm_bwd_probe(seed, shape, masked=False):
    S = rand(seed, *shape)
    if masked:
        S = S + al.causal_mask(shape[-1])
    return Probe((al.softmax(S), rand(seed + 1, *shape)), names=("A", "dA"),
                 rows=tokens(shape[-2]) if len(shape) == 2 else None,
                 cols=tokens(shape[-1]) if len(shape) == 2 else None)


add(Exercise(
    "softmax_backward", "softmax_backward(A, dA) -> dS (same shape)", al.softmax_backward,
    [_sm_bwd_probe(510, (3, 5)), _sm_bwd_probe(512, (4, 4), masked=True), _sm_bwd_probe(514, (2, 3, 4))],
    [("softmax-backward-diagonal-only", lambda A, dA: A * dA),
     ("softmax-backward-sum-wrong-axis", lambda A, dA: A * (dA - np.sum(dA * A, axis=-2, keepdims=True))),
     ("softmax-backward-sum-wrong-axis", lambda A, dA: A * (dA - np.sum(dA * A, axis=0))),
     ("softmax-backward-missing-a-factor", lambda A, dA: dA - np.sum(dA * A, axis=-1, keepdims=True)),
     ("softmax-backward-sign", lambda A, dA: A * (np.sum(dA * A, axis=-1, keepdims=True) - dA))],
    "dS = A (dA - rowsum(dA A)) on a wide matrix, a masked one and a 3-D stack",
    "Each row is its own softmax. Changing S[i, j] moves A[i, j] up and every other A[i, k] down.",
    "The Jacobian of a softmax row is diag(a) - a aᵀ; applied to dA it becomes a * (dA - sum(dA * a)).",
    "dS = A * (dA - sum(dA * A, axis=-1, keepdims=True))"))

# 10 -------------------------------------------------------------------------


def _cross(X, Z, Wq, Wk, Wv, mistake=None):
    if mistake == "kv-from-wrong-sequence":
        Z = X
    if mistake == "sources-swapped":
        X, Z = Z, X
    causal = mistake == "mask-applied"
    return W.attention(X @ Wq, Z @ Wk, Z @ Wv, causal, True,
                       None if mistake in ("mask-applied", "kv-from-wrong-sequence", "sources-swapped") else mistake)


def cross_attention(X, Z, Wq, Wk, Wv):
    """Reference: queries from X (n_x, d_model), keys and values from Z (n_z, d_model), no mask."""
    return al.attention(X @ Wq, Z @ Wk, Z @ Wv, causal=False)


def _cross_probe(seed, n_x, n_z, d_model, d_head, d_v):
    args = (rand(seed, n_x, d_model), rand(seed + 1, n_z, d_model), rand(seed + 2, d_model, d_head),
            rand(seed + 3, d_model, d_head), rand(seed + 4, d_model, d_v))
    return Probe(args, names=("X", "Z", "Wq", "Wk", "Wv"), rows=tokens(n_x), cols=features(d_v, "v"))


add(Exercise(
    "cross_attention", "cross_attention(X, Z, Wq, Wk, Wv) -> (n_x, d_v)", cross_attention,
    [_cross_probe(600, 3, 5, 4, 2, 6), _cross_probe(610, 4, 6, 5, 3, 2), _cross_probe(620, 5, 5, 3, 3, 3)],
    [(m, _mistaken(_cross, m)) for m in ["mask-applied", "kv-from-wrong-sequence", "sources-swapped",
                                         "scale-missing", "softmax-wrong-axis", "kq-instead-of-qk"]],
    "queries from X, keys and values from Z, no mask, scaled by √d_head",
    "Every query of X may look at every position of Z: nothing in Z is 'the future' of X.",
    "Q = X @ Wq, K = Z @ Wk, V = Z @ Wv, then softmax(Q Kᵀ / √d) V with no mask.",
    "O = softmax((X Wq)(Z Wk)ᵀ / √d) Z Wv"))

# 11 -------------------------------------------------------------------------


def _step(q, K_cache, V_cache, mistake=None):
    if mistake == "kv-swapped":
        K_cache, V_cache = V_cache, K_cache
    return W.attention(q[None, :], K_cache, V_cache, False, True, mistake)[0]


def _step_probe(seed, t, d, d_v, scale=1.0):
    return Probe((rand(seed, d, scale=scale), rand(seed + 1, t, d, scale=scale), rand(seed + 2, t, d_v)),
                 names=("q", "K_cache", "V_cache"), cols=features(d_v, "v"))


add(Exercise(
    "attend_step", "attend_step(q, K_cache, V_cache) -> (d_v,)", al.attend_step,
    [_step_probe(700, 5, 3, 4), _step_probe(710, 3, 6, 2), _step_probe(720, 1, 2, 3),
     _step_probe(730, 4, 4, 4), _step_probe(740, 5, 3, 4, scale=40.0)],
    [(m, _mistaken(_step, m)) for m in ["scale-missing", "scale-applied-twice", "softmax-no-max-subtraction",
                                        "kv-swapped"]],
    "one query against t cached rows for t = 5, 3, 1, 4, including huge scores",
    "The cache holds every earlier key and value plus the new token's own: score q against all of them.",
    "s = K_cache @ q / √d is (t,); a = softmax(s); the output is a @ V_cache, shape (d_v,).",
    "o = softmax(K q / √d) V"))


def cache_step(q, k, v, K_cache, V_cache):
    """Reference: append k, v to the caches, attend q over them; return (o, K_new, V_new)."""
    K_new = np.vstack([K_cache, k[None, :]])  # (t + 1, d)
    V_new = np.vstack([V_cache, v[None, :]])  # (t + 1, d_v)
    return al.attend_step(q, K_new, V_new), K_new, V_new


def _cache_wrong(q, k, v, K_cache, V_cache, mistake):
    K_new, V_new = np.vstack([K_cache, k]), np.vstack([V_cache, v])
    if mistake == "cache-not-appended":
        return _step(q, K_cache, V_cache), K_cache, V_cache
    if mistake == "cache-appended-after-attend":
        return _step(q, K_cache, V_cache), K_new, V_new
    if mistake == "cache-prepended":
        K_new, V_new = np.vstack([k, K_cache]), np.vstack([v, V_cache])
        return _step(q, K_new, V_new), K_new, V_new
    return _step(q, K_new, V_new, mistake), K_new, V_new


def _cache_probe(seed, t, d, d_v):
    return Probe((rand(seed, d), rand(seed + 1, d), rand(seed + 2, d_v), rand(seed + 3, t, d),
                  rand(seed + 4, t, d_v)), names=("q", "k", "v", "K_cache", "V_cache"), cols=features(d_v, "v"))


add(Exercise(
    "cache_step", "cache_step(q, k, v, K_cache, V_cache) -> (o, K_new, V_new)", cache_step,
    [_cache_probe(800, 4, 3, 5), _cache_probe(810, 2, 6, 2), _cache_probe(820, 1, 4, 3)],
    [("cache-not-appended", lambda *a: _cache_wrong(*a, "cache-not-appended")),
     ("cache-not-appended", lambda *a: _cache_wrong(*a, "cache-appended-after-attend")),
     ("cache-prepended", lambda *a: _cache_wrong(*a, "cache-prepended")),
     ("scale-applied-twice", lambda *a: _cache_wrong(*a, "scale-applied-twice")),
     ("scale-missing", lambda *a: _cache_wrong(*a, "scale-missing"))],
    "k, v appended as the last cache rows, then the new query attends over t + 1 positions",
    "The new token's key and value join the cache first, so the new query can also attend to itself.",
    "K_new = np.vstack([K_cache, k]) (and the same for V); o = attend_step(q, K_new, V_new); return o, K_new, V_new.",
    "K ← [K; k], V ← [V; v], o = softmax(K q / √d) V"))


def _kv_bytes(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2, mistake=None):
    factor = {"kv-cache-missing-factor-2": 1}.get(mistake, 2)
    if mistake == "kv-cache-ignores-batch":
        batch = 1
    if mistake == "kv-cache-ignores-layers":
        n_layers = 1
    if mistake == "kv-cache-bits-not-bytes":
        bytes_per_value *= 8
    return factor * n_layers * n_heads * d_head * seq_len * batch * bytes_per_value


def _kv_probe(*args, **kw):
    return Probe(args, kw, names=("n_layers", "n_heads", "d_head", "seq_len"))


add(Exercise(
    "kv_cache_bytes", "kv_cache_bytes(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2) -> int",
    al.kv_cache_bytes,
    [_kv_probe(12, 12, 64, 1024), _kv_probe(32, 32, 128, 4096, batch=3, bytes_per_value=4),
     _kv_probe(3, 5, 7, 11, batch=13, bytes_per_value=2), _kv_probe(80, 8, 128, 131072, batch=8)],
    [(m, _mistaken(_kv_bytes, m)) for m in ["kv-cache-missing-factor-2", "kv-cache-ignores-batch",
                                            "kv-cache-ignores-layers", "kv-cache-bits-not-bytes"]]
    + [("kv-cache-wrong-defaults", lambda *a, batch=1, bytes_per_value=2: _kv_bytes(*a, batch, 4)),
       ("kv-cache-wrong-defaults", lambda *a, batch=1, bytes_per_value=4: _kv_bytes(*a, batch, bytes_per_value))],
    "an exact int for GPT-2 small, a 7B-class shape, odd sizes and a 128k-token batch",
    "Count the numbers stored: for every layer, head, token and sequence, one key and one value of d_head numbers.",
    "2 * n_layers * n_heads * d_head * seq_len * batch * bytes_per_value, returned as a Python int.",
    "bytes = 2 · layers · heads · d_head · tokens · batch · bytes_per_value"))
