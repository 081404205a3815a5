"""Notebooks 03, 08, 10 and 11: the layers around attention, each with its backward pass.

    X = tok_emb[tokens] + pos_emb[:T]                 embedding: one row per token
    LN(X) = (X - mean) / sqrt(var + eps) * g + b      layer norm: every row at a steady scale
    gelu(X) = 0.5 X (1 + tanh(c (X + 0.044715 X^3)))  the MLP's non-linearity, c = sqrt(2/pi)
    mlp(X) = gelu(X W1 + b1) W2 + b2                  works on each row alone

Each layer is written once: `*_forward` returns its output and a cache, `*_grads` turns the
gradient of the output into the gradients of its inputs and parameters using that cache,
and the public function is the forward behind a declared contract. The cores work on
stacked arrays (..., T, d) and keep Python-float constants, so float32 stays float32.
"""
import math

import numpy as np

from ._validate import Array, check_finite_product, contract, finite_positive_float
from .attention import Op
from .projection import weight_grad

GELU_C = math.sqrt(2.0 / math.pi)


# ----------------------------------------------------------------------------
# embedding

def embed_forward(tokens, tok_emb, pos_emb, start=0):
    """X (..., T, d_model) = tok_emb[tokens] + pos_emb[start:start + T] for tokens (..., T) int."""
    T = tokens.shape[-1]
    return tok_emb[tokens] + pos_emb[start:start + T], (tokens, tok_emb.shape, pos_emb.shape, start)


def embed_grads(dX, cache):
    """dX (..., T, d_model) -> d tok_emb (vocab, d_model), d pos_emb (max_len, d_model)."""
    tokens, tok_shape, pos_shape, start = cache
    T, d = dX.shape[-2:]
    dtok_emb = np.zeros(tok_shape, dtype=dX.dtype)
    np.add.at(dtok_emb, tokens.ravel(), dX.reshape(-1, d))  # a token used twice gets both rows
    dpos_emb = np.zeros(pos_shape, dtype=dX.dtype)
    dpos_emb[start:start + T] = dX.reshape(-1, T, d).sum(axis=0)  # every sequence uses the same positions
    return dtok_emb, dpos_emb


EMBED = Op(embed_forward, embed_grads)


# ----------------------------------------------------------------------------
# layer norm

def layer_norm_forward(X, g, b, eps=1e-5):
    """Y = (X - mean) / sqrt(var + eps) * g + b over the last axis of X (..., d); biased variance."""
    inv_d = 1.0 / X.shape[-1]
    Xc = X - X.sum(axis=-1, keepdims=True) * inv_d  # (..., d) centred rows
    rstd = 1.0 / np.sqrt(np.einsum("...i,...i->...", Xc, Xc)[..., None] * inv_d + eps)  # (..., 1)
    Xhat = Xc
    Xhat *= rstd  # (..., d) mean 0, variance 1
    Y = Xhat * g
    Y += b
    return Y, (Xhat, rstd, g)


def layer_norm_grads(dY, cache):
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


LAYER_NORM = Op(layer_norm_forward, layer_norm_grads)


def _gains_match(args, dims):
    d = args["X"].shape[1]
    if args["g"].shape != (d,) or args.get("b", args["g"]).shape != (d,):
        if "b" in args:
            raise ValueError(f"g and b must have shape ({d},) to match X {args['X'].shape}, "
                             f"got g {args['g'].shape}, b {args['b'].shape}")
        raise ValueError(f"g must have shape ({d},) to match X {args['X'].shape}, got g {args['g'].shape}")


def _dY_like_X(args, dims):
    if args["dY"].shape != args["X"].shape:
        raise ValueError(f"dY must have the shape of X (and Y), {args['X'].shape}, got dY {args['dY'].shape}")


def _variance(args, result):
    """The variance of a row may overflow even where the normalised rows would not."""
    X = args["X"]
    check_finite_product(X.var(axis=1), "the variance of X's rows", X=X)
    for R in result if isinstance(result, tuple) else (result,):
        check_finite_product(R, "dY * g" if "dY" in args else "the normalised X * g + b",
                             **{k: args[k] for k in ("dY", "g", "b") if k in args})


@contract(_gains_match, X=Array("n", "d"), g=Array(None, what="(d,)"), b=Array(None, what="(d,)"),
          eps=finite_positive_float,
          finite=_variance)
def layer_norm(X, g, b, eps=1e-5):
    """Normalise each row of X (n, d) to mean 0 and (biased) variance 1, then * g + b.

    g, b (d,). eps sits inside the square root: (X - mean) / sqrt(var + eps).
    """
    return layer_norm_forward(X, g, b, eps)[0]  # (n, d)


@contract(_gains_match, _dY_like_X, X=Array("n", "d"), g=Array(None, what="(d,)"), dY=Array(None, None, what="(n, d)"),
          eps=finite_positive_float, finite=_variance)
def layer_norm_backward(X, g, dY, eps=1e-5):
    """The gradients of sum(Y * dY) for Y = layer_norm(X, g, b, eps), row-wise with the biased variance.

    X (n, d), g (d,), dY (n, d). Returns (dX (n, d), dg (d,), db (d,)). With
    Xhat = (X - mean) / sqrt(var + eps) per row: db = the column sums of dY,
    dg = the column sums of dY * Xhat, and dX = (dXhat - mean(dXhat) - Xhat mean(dXhat Xhat))
    / sqrt(var + eps) with dXhat = dY * g: the mean and the variance depend on every entry
    of the row, so the gradient loses its row mean and its component along Xhat. b does
    not change any gradient, so it is not an argument.
    """
    return layer_norm_grads(dY, layer_norm_forward(X, g, 0.0, eps)[1])


# ----------------------------------------------------------------------------
# GELU and the MLP

def gelu_forward(X):
    """Y = 0.5 X (1 + tanh(c (X + 0.044715 X^3))), elementwise (in-place steps, same maths)."""
    u = X * X
    u *= 0.044715 * GELU_C
    u += GELU_C
    u *= X  # c (X + 0.044715 X^3)
    t = np.tanh(u, out=u)
    Y = t + 1.0
    Y *= X
    Y *= 0.5
    return Y, (X, t)


def gelu_grads(dY, cache):
    """dX = dY * gelu'(X) = dY * 0.5 (1 + t + X (1 - t^2) c (1 + 3 * 0.044715 X^2)), t = tanh(...)."""
    X, t = cache
    du = X * X
    du *= 3 * 0.044715 * GELU_C
    du += GELU_C  # d/dX of c (X + 0.044715 X^3)
    s = t * t
    np.subtract(1.0, s, out=s)  # 1 - tanh^2
    s *= X
    s *= du
    s += t
    s += 1.0
    s *= 0.5  # gelu'(X)
    s *= dY
    return s


GELU = Op(gelu_forward, gelu_grads)


@contract(X=Array(allow="inf", empty=True), finite=None)
def gelu(X):
    """GELU, tanh approximation as in GPT-2, entry by entry: X (any shape) -> Y (the same shape).

    gelu(x) = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
    """
    Y = gelu_forward(X.reshape(-1))[0].reshape(X.shape)  # 1-D, so that the in-place steps also work for a 0-D X
    return np.where(np.isneginf(X), 0.0, Y)  # the limit as x -> -inf, where the formula gives -inf * 0


def mlp_forward(X, W1, b1, W2, b2, gelu=GELU):
    """Y = gelu(X W1 + b1) W2 + b2. X (..., d_model) -> (..., d_model); gelu is an Op."""
    H = X @ W1  # (..., d_ff)
    H += b1
    G, gelu_cache = gelu.forward(H)  # (..., d_ff)
    Y = G @ W2  # (..., d_model)
    Y += b2
    return Y, (X, W1, G, gelu, gelu_cache, W2)


def mlp_grads(dY, cache):
    """dY (..., d_model) -> dX, dW1, db1, dW2, db2."""
    X, W1, G, gelu, gelu_cache, W2 = cache
    dH = gelu.backward(dY @ W2.T, gelu_cache)  # (..., d_ff)
    dX = dH @ W1.T  # (..., d_model)
    db1 = dH.reshape(-1, dH.shape[-1]).sum(axis=0)  # (d_ff,)
    db2 = dY.reshape(-1, dY.shape[-1]).sum(axis=0)  # (d_model,)
    return dX, weight_grad(X, dH), db1, weight_grad(G, dY), db2


def mlp(X, W1, b1, W2, b2):
    """Row-wise MLP: gelu(X W1 + b1) W2 + b2. X (n, d_model), W1 (d_model, d_ff), W2 (d_ff, d_model)."""
    return mlp_forward(X, W1, b1, W2, b2)[0]  # (n, d_model)
