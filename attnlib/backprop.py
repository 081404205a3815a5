"""The backprop engine behind TinyLM's training: every layer as a forward/backward pair.

Each `*_forward` returns its output and a cache; the matching `*_backward` turns
the gradient of the output into the gradients of the inputs and parameters, using
that cache. TinyLM.loss_and_grads calls the forwards in order and the backwards in
reverse. Every pair is checked against finite differences and PyTorch.

These work on stacked arrays (B, T, d): the batch (and the heads) are leading
axes. They skip input checks: TinyLM checks its inputs once and then calls them
in a loop. Constants are Python floats, so float32 arrays stay float32. The
maths of the forwards is the maths of the public functions (attnlib.layers,
attnlib.attention, attnlib.mixing), reused where it has no checks.
"""
import math

import numpy as np

from .attention import merge_heads, split_heads
from .layers import BLOCK_KEYS
from .mixing import exp_and_sum, mask_future, softmax_grad

_GELU_C = math.sqrt(2.0 / math.pi)


def _dW(X, dY):
    """Weight gradient of Y = X @ W for stacked rows: X (..., d_in), dY (..., d_out) -> (d_in, d_out)."""
    return X.reshape(-1, X.shape[-1]).T @ dY.reshape(-1, dY.shape[-1])


def embed_forward(tokens, tok_emb, pos_emb):
    """X (B, T, d_model) = tok_emb[tokens] + pos_emb[:T] for tokens (B, T) int."""
    T = tokens.shape[-1]
    X = tok_emb[tokens] + pos_emb[:T]  # (B, T, d_model)
    return X, (tokens, tok_emb.shape, pos_emb.shape)


def embed_backward(dX, cache):
    """dX (B, T, d_model) -> d tok_emb (vocab, d_model), d pos_emb (max_len, d_model)."""
    tokens, tok_shape, pos_shape = cache
    T, d = dX.shape[-2:]
    dtok_emb = np.zeros(tok_shape, dtype=dX.dtype)
    np.add.at(dtok_emb, tokens.ravel(), dX.reshape(-1, d))  # a token used twice gets both rows
    dpos_emb = np.zeros(pos_shape, dtype=dX.dtype)
    dpos_emb[:T] = dX.reshape(-1, T, d).sum(axis=0)  # every sequence uses positions 0..T-1
    return dtok_emb, dpos_emb


def layer_norm_forward(X, g, b, eps=1e-5):
    """Y = (X - mean) / sqrt(var + eps) * g + b over the last axis of X (..., d)."""
    inv_d = 1.0 / X.shape[-1]
    Xc = X - X.sum(axis=-1, keepdims=True) * inv_d  # (..., d) centred rows
    rstd = 1.0 / np.sqrt(np.einsum("...i,...i->...", Xc, Xc)[..., None] * inv_d + eps)  # (..., 1)
    Xhat = Xc
    Xhat *= rstd  # (..., d) mean 0, variance 1
    Y = Xhat * g
    Y += b
    return Y, (Xhat, rstd, g)


def layer_norm_backward(dY, cache):
    """dY (..., d) -> dX (..., d), dg (d,), db (d,).

    Xhat has mean 0 and variance 1 per row, so the gradient loses its row mean and
    its component along Xhat: dX = rstd (dXhat - mean(dXhat) - Xhat mean(dXhat Xhat)).
    """
    Xhat, rstd, g = cache
    d = dY.shape[-1]
    dg = (dY * Xhat).reshape(-1, d).sum(axis=0)  # (d,)
    db = dY.reshape(-1, d).sum(axis=0)  # (d,)
    dXhat = dY * g  # (..., d)
    mean_dXhat = dXhat.sum(axis=-1, keepdims=True) * (1.0 / d)  # (..., 1)
    mean_dXhat_Xhat = np.einsum("...i,...i->...", dXhat, Xhat)[..., None] * (1.0 / d)  # (..., 1)
    dX = dXhat
    dX -= mean_dXhat
    dX -= Xhat * mean_dXhat_Xhat
    dX *= rstd
    return dX, dg, db


def gelu_forward(X):
    """Y = 0.5 X (1 + tanh(c (X + 0.044715 X^3))), elementwise (in-place steps, same maths)."""
    u = X * X
    u *= 0.044715 * _GELU_C
    u += _GELU_C
    u *= X  # c (X + 0.044715 X^3)
    t = np.tanh(u, out=u)
    Y = t + 1.0
    Y *= X
    Y *= 0.5
    return Y, (X, t)


def gelu_backward(dY, cache):
    """dX = dY * gelu'(X) = dY * 0.5 (1 + t + X (1 - t^2) c (1 + 3 * 0.044715 X^2)), t = tanh(...)."""
    X, t = cache
    du = X * X
    du *= 3 * 0.044715 * _GELU_C
    du += _GELU_C  # d/dX of c (X + 0.044715 X^3)
    s = t * t
    np.subtract(1.0, s, out=s)  # 1 - tanh^2
    s *= X
    s *= du
    s += t
    s += 1.0
    s *= 0.5  # gelu'(X)
    s *= dY
    return s


def mlp_forward(X, W1, b1, W2, b2):
    """Y = gelu(X W1 + b1) W2 + b2. X (..., d_model) -> (..., d_model)."""
    H = X @ W1  # (..., d_ff)
    H += b1
    G, gelu_cache = gelu_forward(H)  # (..., d_ff)
    Y = G @ W2  # (..., d_model)
    Y += b2
    return Y, (X, W1, G, gelu_cache, W2)


def mlp_backward(dY, cache):
    """dY (..., d_model) -> dX, dW1, db1, dW2, db2."""
    X, W1, G, gelu_cache, W2 = cache
    d_ff = G.shape[-1]
    dW2 = _dW(G, dY)  # (d_ff, d_model)
    db2 = dY.reshape(-1, dY.shape[-1]).sum(axis=0)  # (d_model,)
    dG = dY @ W2.T  # (..., d_ff)
    dH = gelu_backward(dG, gelu_cache)  # (..., d_ff)
    dW1 = _dW(X, dH)  # (d_model, d_ff)
    db1 = dH.reshape(-1, d_ff).sum(axis=0)  # (d_ff,)
    dX = dH @ W1.T  # (..., d_model)
    return dX, dW1, db1, dW2, db2


def attention_forward(Q, K, V, causal=True, scale=True):
    """O (..., n_q, d_v) = softmax(Q K^T s + mask) V with s = 1/sqrt(d) (or 1 if not scale).

    Q (..., n_q, d), K (..., n_k, d), V (..., n_k, d_v); leading axes are batch and heads.
    """
    s = 1.0 / math.sqrt(Q.shape[-1]) if scale else 1.0
    S = Q @ np.swapaxes(K, -1, -2)  # (..., n_q, n_k)
    S *= s
    if causal:
        mask_future(S)
    A, Z = exp_and_sum(S)  # softmax, in place on S
    A /= Z  # (..., n_q, n_k)
    return A @ V, (Q, K, V, A, s)


def attention_backward(dO, cache):
    """dO (..., n_q, d_v) -> dQ, dK, dV: the forward's three products, mirrored.

    Masked entries have A = 0, so the softmax backward gives them zero gradient.
    """
    Q, K, V, A, s = cache
    dV = np.swapaxes(A, -1, -2) @ dO  # (..., n_k, d_v)
    dA = dO @ np.swapaxes(V, -1, -2)  # (..., n_q, n_k)
    dS = softmax_grad(A, dA)  # (..., n_q, n_k)
    dS *= s
    dQ = dS @ K  # (..., n_q, d)
    dK = np.swapaxes(dS, -1, -2) @ Q  # (..., n_k, d)
    return dQ, dK, dV


def mha_forward(X, Wq, Wk, Wv, Wo, n_heads, causal=True, scale=True):
    """Multi-head attention on X (..., T, d_model) -> (..., T, d_model), heads as a leading axis."""
    Q = split_heads(X @ Wq, n_heads)  # (..., n_heads, T, d_head)
    K = split_heads(X @ Wk, n_heads)  # (..., n_heads, T, d_head)
    V = split_heads(X @ Wv, n_heads)  # (..., n_heads, T, d_head)
    O, attn_cache = attention_forward(Q, K, V, causal, scale)  # (..., n_heads, T, d_head)
    M = merge_heads(O)  # (..., T, d_model)
    return M @ Wo, (X, Wq, Wk, Wv, Wo, n_heads, M, attn_cache)


def mha_backward(dY, cache):
    """dY (..., T, d_model) -> dX, dWq, dWk, dWv, dWo."""
    X, Wq, Wk, Wv, Wo, n_heads, M, attn_cache = cache
    dWo = _dW(M, dY)  # (d_model, d_model)
    dM = dY @ Wo.T  # (..., T, d_model)
    dQ, dK, dV = attention_backward(split_heads(dM, n_heads), attn_cache)  # (..., n_heads, T, d_head) each
    dQ, dK, dV = merge_heads(dQ), merge_heads(dK), merge_heads(dV)  # (..., T, d_model) each
    dX = dQ @ Wq.T + dK @ Wk.T + dV @ Wv.T  # (..., T, d_model)
    return dX, _dW(X, dQ), _dW(X, dK), _dW(X, dV), dWo


def block_forward(X, p, n_heads, causal=True, scale=True):
    """The pre-LN block of transformer_block on X (..., T, d_model), keeping caches."""
    H, ln1 = layer_norm_forward(X, p["ln1_g"], p["ln1_b"])
    U, att = mha_forward(H, p["Wq"], p["Wk"], p["Wv"], p["Wo"], n_heads, causal, scale)
    Y = X + U  # (..., T, d_model)
    H, ln2 = layer_norm_forward(Y, p["ln2_g"], p["ln2_b"])
    U, ff = mlp_forward(H, p["W1"], p["b1"], p["W2"], p["b2"])
    return Y + U, (ln1, att, ln2, ff)


def block_backward(dZ, cache):
    """dZ (..., T, d_model) -> dX and a dict of gradients keyed like BLOCK_KEYS.

    Each residual add sends its gradient down both paths: through the layer and
    straight past it.
    """
    ln1, att, ln2, ff = cache
    g = {}
    dH, g["W1"], g["b1"], g["W2"], g["b2"] = mlp_backward(dZ, ff)
    dY, g["ln2_g"], g["ln2_b"] = layer_norm_backward(dH, ln2)
    dY += dZ  # residual around the MLP
    dH, g["Wq"], g["Wk"], g["Wv"], g["Wo"] = mha_backward(dY, att)
    dX, g["ln1_g"], g["ln1_b"] = layer_norm_backward(dH, ln1)
    dX += dY  # residual around attention
    return dX, {k: g[k] for k in BLOCK_KEYS}


def head_forward(H, g, b, W_out):
    """Final layer norm and output head: logits (..., T, vocab) = LN(H) @ W_out."""
    N, ln = layer_norm_forward(H, g, b)  # (..., T, d_model)
    return N @ W_out, (N, ln, W_out)


def head_backward(dlogits, cache):
    """dlogits (..., T, vocab) -> dH, dg, db, dW_out."""
    N, ln, W_out = cache
    dW_out = _dW(N, dlogits)  # (d_model, vocab)
    dH, dg, db = layer_norm_backward(dlogits @ W_out.T, ln)
    return dH, dg, db, dW_out


def cross_entropy_forward(logits, targets, ignore_index=-1):
    """Mean of -log softmax(logits)[target] over positions whose target is not ignore_index.

    logits (..., vocab), targets (...) int. Returns (loss as a float, cache).
    """
    vocab = logits.shape[-1]
    Z = logits.reshape(-1, vocab)  # (N, vocab)
    t = targets.reshape(-1)  # (N,)
    keep = t != ignore_index  # (N,)
    count = int(keep.sum())
    if count == 0:
        raise ValueError("targets has no position to score: every entry equals ignore_index")
    Z = Z - Z.max(axis=1, keepdims=True)  # log softmax, shifted so that exp() <= 1
    logp = Z - np.log(np.exp(Z).sum(axis=1, keepdims=True))  # (N, vocab) log-probabilities
    rows = np.flatnonzero(keep)
    loss = -float(logp[rows, t[rows]].sum()) / count
    return loss, (logp, rows, t[rows], count, logits.shape)


def cross_entropy_backward(cache, dloss=1.0):
    """d loss / d logits (..., vocab) = (softmax - one_hot(target)) / count on scored rows, 0 elsewhere."""
    logp, rows, t, count, shape = cache
    dZ = np.zeros_like(logp)  # (N, vocab)
    dZ[rows] = np.exp(logp[rows])
    dZ[rows, t] -= 1.0
    dZ *= dloss / count
    return dZ.reshape(shape)
