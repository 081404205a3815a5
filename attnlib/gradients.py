"""Notebook 11: the backward passes as public functions, one sequence at a time.

    cross_entropy(logits, targets)            the loss and its gradient dlogits
    attention_backward(Q, K, V, dO)           dQ, dK, dV for O = attention(Q, K, V)
    layer_norm_backward(X, g, dY)             dX, dg, db for Y = layer_norm(X, g, b)

Each one checks its input like the rest of the public API, then runs the maths of
attnlib.backprop, the engine TinyLM trains with (whose functions take a cache from
their forward pass instead). Constants stay Python floats, so float32 inputs give
float32 gradients. These are the references of lesson 11's exercises, and the
functions TinyLM(ops=...) falls back on for the backward ops a learner has not
written.
"""
import numpy as np

from . import backprop
from ._validate import (as_float_array, as_int_array, boolean, check_finite_product, check_size,
                        finite_positive_float, overflow_error)
from .attention import _check_qkv


def cross_entropy(logits, targets):
    """The mean cross-entropy of n predictions and its gradient with respect to the logits.

    logits (n, vocab) float, targets (n,) int in [0, vocab). Returns (loss, dlogits):
    loss = mean over rows i of -log softmax(logits[i])[targets[i]], a numpy scalar of the logits' dtype
    (np.float64, itself a Python float, or np.float32);
    dlogits (n, vocab) = (softmax(logits) - one_hot(targets)) / n. The log-probabilities
    are taken as logit - log-sum-exp after subtracting each row's max, so huge logits
    neither overflow nor turn a tiny probability into log(0).
    """
    logits = as_float_array("logits", logits, 2, "(n, vocab)")
    targets = as_int_array("targets", targets, "(n,)")
    n, vocab = logits.shape
    if targets.shape != (n,):
        raise ValueError(f"targets must have shape ({n},), one id per row of logits, got targets {targets.shape} "
                         f"for logits {logits.shape}")
    outside = (targets < 0) | (targets >= vocab)
    if outside.any():
        i = int(np.argmax(outside))
        raise ValueError(f"targets[{i}] = {int(targets[i])} is not a column of logits {logits.shape}: "
                         f"ids run from 0 to {vocab - 1}")
    with np.errstate(over="ignore", invalid="ignore"):
        loss, cache = backprop.cross_entropy_forward(logits, targets, ignore_index=-1)  # no id is -1 here
        dlogits = backprop.cross_entropy_backward(cache)  # (n, vocab)
    if not np.isfinite(loss):  # a target logit more than the float range below its row's max
        raise overflow_error("the cross-entropy", logits.dtype, logits=logits)
    return logits.dtype.type(loss), dlogits


def attention_backward(Q, K, V, dO, causal=True, scale=True):
    """The gradients of sum(O * dO) for O = attention(Q, K, V, causal, scale).

    Q (n_q, d), K (n_k, d), V (n_k, d_v), dO (n_q, d_v). Returns (dQ (n_q, d),
    dK (n_k, d), dV (n_k, d_v)). With A = softmax(Q K^T s + mask), s = 1/sqrt(d) if scale:
    dV = A^T dO, dS = softmax_backward(A, dO V^T) * s, dQ = dS K, dK = dS^T Q. Masked
    entries have A = 0 and get no gradient. With causal=True and n_q < n_k the queries
    are the last n_q positions, as in attention.
    """
    causal = boolean("causal", causal)
    Q, K, V = _check_qkv(Q, K, V, causal)
    scale = boolean("scale", scale)
    dO = as_float_array("dO", dO, 2, "(n_q, d_v)")
    if dO.shape != (Q.shape[0], V.shape[1]):
        raise ValueError(f"dO must have the shape of the output O, ({Q.shape[0]}, {V.shape[1]}), "
                         f"got dO {dO.shape} (Q {Q.shape}, V {V.shape})")
    check_size("Q and K", (Q.shape[0], K.shape[0]), np.result_type(Q, K))  # the backward holds all of A
    with np.errstate(over="ignore", invalid="ignore"):
        _, cache = backprop.attention_forward(Q, K, V, causal, scale)
        grads = backprop.attention_backward(dO, cache)
    if all(np.isfinite(G).all() for G in grads):
        return grads
    with np.errstate(over="ignore", invalid="ignore"):  # only when something overflowed: name it
        check_finite_product(Q @ K.T, "Q @ K.T", Q=Q, K=K)
    raise overflow_error("the backward pass", np.result_type(*grads), dO=dO, V=V, Q=Q, K=K)


def layer_norm_backward(X, g, dY, eps=1e-5):
    """The gradients of sum(Y * dY) for Y = layer_norm(X, g, b, eps), row-wise with the biased variance.

    X (n, d), g (d,), dY (n, d). Returns (dX (n, d), dg (d,), db (d,)). With
    Xhat = (X - mean) / sqrt(var + eps) per row: db = the column sums of dY,
    dg = the column sums of dY * Xhat, and dX = (dXhat - mean(dXhat) - Xhat mean(dXhat Xhat))
    / sqrt(var + eps) with dXhat = dY * g: the mean and the variance depend on every entry
    of the row, so the gradient loses its row mean and its component along Xhat. b does
    not change any gradient, so it is not an argument.
    """
    X = as_float_array("X", X, 2, "(n, d)")
    d = X.shape[1]
    g = as_float_array("g", g, 1, "(d,)")
    if g.shape != (d,):
        raise ValueError(f"g must have shape ({d},) to match X {X.shape}, got g {g.shape}")
    dY = as_float_array("dY", dY, 2, "(n, d)")
    if dY.shape != X.shape:
        raise ValueError(f"dY must have the shape of X (and Y), {X.shape}, got dY {dY.shape}")
    eps = finite_positive_float("eps", eps)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        _, cache = backprop.layer_norm_forward(X, g, 0.0, eps)
        Xhat, rstd, _ = cache
        if not (np.isfinite(Xhat).all() and (rstd > 0).all()):  # the variance overflowed
            raise overflow_error("the variance of X's rows", X.dtype, X=X)
        dX, dg, db = backprop.layer_norm_backward(dY, cache)
    for G in (dX, dg, db):
        check_finite_product(G, "dY * g", dY=dY, g=g)
    return dX, dg, db
