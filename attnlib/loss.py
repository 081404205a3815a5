"""Notebooks 08 and 11: from the last rows to next-token scores, and the loss that trains them.

    logits = H W_out                                  one score per vocabulary word, per row
    loss = mean over rows of -log softmax(logits)[target]
    dlogits = (softmax(logits) - one_hot(target)) / n

`logits_forward` / `cross_entropy_forward` and their `*_grads` are the model's cores;
`next_token_logits` and `cross_entropy` are the public functions built on them.
"""
import numpy as np

from ._validate import Array, as_int_array, contract, overflow_error
from .attention import Op
from .projection import weight_grad


def logits_forward(N, W_out):
    """Logits (..., T, vocab) = N (..., T, d_model) @ W_out (d_model, vocab)."""
    return N @ W_out, (N, W_out)


def logits_grads(dlogits, cache):
    """dlogits (..., T, vocab) -> dN (..., T, d_model), dW_out (d_model, vocab)."""
    N, W_out = cache
    return dlogits @ W_out.T, weight_grad(N, dlogits)


LOGITS = Op(logits_forward, logits_grads)


def cross_entropy_forward(logits, targets):
    """Mean of -log softmax(logits)[target] over the rows of logits (N, vocab), targets (N,) int.

    Returns (loss as a float, cache). The log-probabilities are logit - log-sum-exp after
    subtracting each row's max, so huge logits neither overflow nor give log(0).
    """
    Z = logits - logits.max(axis=1, keepdims=True)  # every exponent <= 0
    logp = Z - np.log(np.exp(Z).sum(axis=1, keepdims=True))  # (N, vocab) log-probabilities
    n = targets.shape[0]
    loss = -float(logp[np.arange(n), targets].sum()) / n
    return loss, (logp, targets)


def cross_entropy_grads(dloss, cache):
    """d loss / d logits (N, vocab) = dloss * (softmax - one_hot(target)) / N."""
    logp, targets = cache
    dZ = np.exp(logp)  # (N, vocab)
    dZ[np.arange(targets.shape[0]), targets] -= 1.0
    dZ *= dloss / targets.shape[0]
    return dZ


CROSS_ENTROPY = Op(cross_entropy_forward, cross_entropy_grads)


@contract(H=Array("n", "d_model"), W_vocab=Array("d_model", "vocab"), finite="H[-1] @ W_vocab")
def next_token_logits(H, W_vocab):
    """Logits for the next token: the last row of H (n, d_model) @ W_vocab (d_model, vocab) -> (vocab,)."""
    return H[-1] @ W_vocab  # (vocab,)


def targets_in_range(args, dims):
    """One id per row of logits, each a column of logits."""
    logits, targets = args["logits"], as_int_array("targets", args["targets"], "(n,)")
    n, vocab = logits.shape
    if targets.shape != (n,):
        raise ValueError(f"targets must have shape ({n},), one id per row of logits, got targets {targets.shape} "
                         f"for logits {logits.shape}")
    outside = (targets < 0) | (targets >= vocab)
    if outside.any():
        i = int(np.argmax(outside))
        raise ValueError(f"targets[{i}] = {int(targets[i])} is not a column of logits {logits.shape}: "
                         f"ids run from 0 to {vocab - 1}")
    args["targets"] = targets


def loss_finite(args, result):
    if not np.isfinite(result[0]):  # a target logit more than the float range below its row's max
        raise overflow_error("the cross-entropy", args["logits"].dtype, logits=args["logits"])


@contract(targets_in_range, logits=Array("n", "vocab"), finite=loss_finite)
def cross_entropy(logits, targets):
    """The mean cross-entropy of n predictions and its gradient with respect to the logits.

    logits (n, vocab) float, targets (n,) int in [0, vocab). Returns (loss, dlogits):
    loss = mean over rows i of -log softmax(logits[i])[targets[i]], a numpy scalar of the logits' dtype
    (np.float64, itself a Python float, or np.float32);
    dlogits (n, vocab) = (softmax(logits) - one_hot(targets)) / n. The log-probabilities
    are taken as logit - log-sum-exp after subtracting each row's max, so huge logits
    neither overflow nor turn a tiny probability into log(0).
    """
    loss, cache = cross_entropy_forward(logits, targets)
    return logits.dtype.type(loss), cross_entropy_grads(1.0, cache)  # dlogits (n, vocab)
