"""Notebook 10: the pieces around attention that make a stack of layers work.

A pre-LN transformer block:
    Y = X + MHA(LN1(X))                       attention mixes rows
    Z = Y + W2 gelu(W1 LN2(Y) + b1) + b2      the MLP works on each row alone
The residual adds (X + ...) let signal and gradient pass through deep stacks;
layer norm keeps every row at a steady scale.

Their training versions, with backward passes, are in attnlib.backprop.
"""
import math

import numpy as np

from ._validate import (as_float_array, boolean, check_finite_product, check_inner, finite_positive_float,
                        overflow_error, positive_int)
from .attention import multi_head_attention

BLOCK_KEYS = ("ln1_g", "ln1_b", "Wq", "Wk", "Wv", "Wo", "ln2_g", "ln2_b", "W1", "b1", "W2", "b2")


def layer_norm(X, g, b, eps=1e-5):
    """Normalise each row of X (n, d) to mean 0 and (biased) variance 1, then * g + b.

    g, b (d,). eps sits inside the square root: (X - mean) / sqrt(var + eps).
    """
    X = as_float_array("X", X, 2, "(n, d)")
    d = X.shape[1]
    g = as_float_array("g", g, 1, "(d,)")
    b = as_float_array("b", b, 1, "(d,)")
    if g.shape != (d,) or b.shape != (d,):
        raise ValueError(f"g and b must have shape ({d},) to match X {X.shape}, got g {g.shape}, b {b.shape}")
    eps = finite_positive_float("eps", eps)
    with np.errstate(over="ignore", invalid="ignore"):
        mu = X.mean(axis=1, keepdims=True)  # (n, 1)
        var = X.var(axis=1, keepdims=True)  # (n, 1), biased: divides by d
        Y = (X - mu) / np.sqrt(var + eps) * g + b  # (n, d)
    check_finite_product(var, "the variance of X's rows", X=X)
    return check_finite_product(Y, "the normalised X * g + b", g=g, b=b)


def gelu(X):
    """GELU, tanh approximation as in GPT-2: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))."""
    X = as_float_array("X", X, None, "(any shape)", allow="inf", allow_empty=True)
    with np.errstate(over="ignore", invalid="ignore"):  # X ** 3 may overflow to inf: tanh(inf) = 1 is right
        Y = 0.5 * X * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (X + 0.044715 * X ** 3)))
    return np.where(np.isneginf(X), 0.0, Y)  # the limit as x -> -inf, where the formula gives -inf * 0


def mlp(X, W1, b1, W2, b2):
    """Row-wise MLP: gelu(X W1 + b1) W2 + b2. X (n, d_model), W1 (d_model, d_ff), W2 (d_ff, d_model)."""
    return gelu(X @ W1 + b1) @ W2 + b2  # (n, d_model)


def check_block_params(p, d_model, n_heads):
    """Check the block dict p against d_model; return it with arrays as floats."""
    if not isinstance(p, dict):
        raise ValueError(f"p must be a dict with keys {', '.join(BLOCK_KEYS)}, got {type(p).__name__}")
    missing = [k for k in BLOCK_KEYS if k not in p]
    if missing:
        raise ValueError(f"p is missing keys: {', '.join(missing)}")
    extra = [str(k) for k in p if k not in BLOCK_KEYS]
    if extra:
        raise ValueError(f"p has unexpected keys: {', '.join(extra)} (a block has {', '.join(BLOCK_KEYS)})")
    q = {}
    for k in BLOCK_KEYS:
        ndim = 1 if k.startswith("ln") or k in ("b1", "b2") else 2
        q[k] = as_float_array(f"p[{k!r}]", p[k], ndim, "")
    for k in ("ln1_g", "ln1_b", "ln2_g", "ln2_b", "b2"):
        if q[k].shape != (d_model,):
            raise ValueError(f"p[{k!r}] must have shape ({d_model},) for d_model={d_model}, got {q[k].shape}")
    d_ff = q["W1"].shape[1]
    expected = {"Wq": (d_model, d_model), "Wk": (d_model, d_model), "Wv": (d_model, d_model),
                "Wo": (d_model, d_model), "W1": (d_model, d_ff), "b1": (d_ff,), "W2": (d_ff, d_model)}
    for k, shape in expected.items():
        if q[k].shape != shape:
            raise ValueError(f"p[{k!r}] must have shape {shape} for d_model={d_model}, got {q[k].shape}")
    if d_model % n_heads:
        raise ValueError(f"n_heads={n_heads} does not divide d_model={d_model}")
    return q


def transformer_block(X, p, n_heads, causal=True):
    """One pre-LN block on X (n, d_model) -> (n, d_model). p holds BLOCK_KEYS."""
    X = as_float_array("X", X, 2, "(n, d_model)")
    n_heads = positive_int("n_heads", n_heads)
    causal = boolean("causal", causal)
    p = check_block_params(p, X.shape[1], n_heads)
    inputs = {"X": X, **{f"p[{k!r}]": v for k, v in p.items()}}
    try:
        with np.errstate(over="ignore", invalid="ignore"):
            H = layer_norm(X, p["ln1_g"], p["ln1_b"])
            Y = X + multi_head_attention(H, p["Wq"], p["Wk"], p["Wv"], p["Wo"], n_heads, causal)  # (n, d_model)
            H = layer_norm(Y, p["ln2_g"], p["ln2_b"])
            Z = Y + mlp(H, p["W1"], p["b1"], p["W2"], p["b2"])  # (n, d_model)
    except ValueError:  # every shape is checked above: only an overflow inside a step gets here
        raise overflow_error("transformer_block", **inputs) from None
    return check_finite_product(Z, "transformer_block", **inputs)


def next_token_logits(H, W_vocab):
    """Logits for the next token: the last row of H (n, d_model) @ W_vocab (d_model, vocab) -> (vocab,)."""
    H = as_float_array("H", H, 2, "(n, d_model)")
    W_vocab = as_float_array("W_vocab", W_vocab, 2, "(d_model, vocab)")
    check_inner("H", H.shape, "W_vocab", W_vocab.shape)
    with np.errstate(over="ignore", invalid="ignore"):
        z = H[-1] @ W_vocab  # (vocab,)
    return check_finite_product(z, "H[-1] @ W_vocab", H=H, W_vocab=W_vocab)
