"""Lesson 11, the next token: next_token_logits and softmax_backward."""
import numpy as np

import attnlib as al
from .pieces import softmax
from .probes import features, rand, tokens
from .properties import intermediates, large_offset, precision, shift_invariance
from .spec import Exercise, Probe


# next_token_logits(H, W_vocab) -----------------------------------------------------------------------------------

def first_row(H, W_vocab):
    return H[0] @ W_vocab


def every_row(H, W_vocab):
    return H @ W_vocab


def probabilities(H, W_vocab):
    return softmax(H[-1] @ W_vocab)


def mean_row(H, W_vocab):
    return H.mean(axis=0) @ W_vocab


# softmax_backward(A, dA) -----------------------------------------------------------------------------------------

def diagonal_only(A, dA):
    return A * dA


def sum_over_second_last_axis(A, dA):
    return A * (dA - np.sum(dA * A, axis=-2, keepdims=True))


def sum_over_first_axis(A, dA):
    return A * (dA - np.sum(dA * A, axis=0))


def missing_a_factor(A, dA):
    return dA - np.sum(dA * A, axis=-1, keepdims=True)


def sign_flipped(A, dA):
    return A * (np.sum(dA * A, axis=-1, keepdims=True) - dA)


def _sm_bwd_probe(seed, shape, masked=False, shift=0.0):
    """A = softmax of random scores, dA random; `shift` moves every entry of dA (dS must not change)."""
    S = rand(seed, *shape)
    if masked:
        S = S + al.causal_mask(shape[-1])
    labelled = len(shape) == 2
    return Probe((al.softmax(S), rand(seed + 1, *shape) + shift), names=("A", "dA"),
                 rows=tokens(shape[-2]) if labelled else None, cols=tokens(shape[-1]) if labelled else None)


EXERCISES = [
    Exercise(
        name="next_token_logits",
        reference=al.next_token_logits,
        probes=[Probe((rand(500, 5, 6), rand(501, 6, 9)), names=("H", "W_vocab"), cols=features(9, "w")),
                Probe((rand(502, 3, 4), rand(503, 4, 7)), names=("H", "W_vocab"), cols=features(7, "w"))],
        mistakes=[("first-row-not-last", first_row),
                  ("logits-for-every-row", every_row),
                  ("softmax-applied-to-logits", probabilities),
                  ("mean-of-rows", mean_row)],
        verified="the last row of H times W_vocab, for two vocabulary sizes",
        hint1="Only the last position predicts the next token: after it, nothing has been seen yet.",
        hint2="H[-1] is (d_model,); H[-1] @ W_vocab is (vocab,). Return the raw logits.",
        formula="logits = H[-1] @ W_vocab",
    ),
    Exercise(
        name="softmax_backward",
        reference=al.softmax_backward,
        probes=[_sm_bwd_probe(510, (3, 5)), _sm_bwd_probe(512, (4, 4), masked=True), _sm_bwd_probe(514, (2, 3, 4)),
                _sm_bwd_probe(516, (3, 5), shift=1e4)],
        mistakes=[("softmax-backward-diagonal-only", diagonal_only),
                  ("softmax-backward-sum-wrong-axis", sum_over_second_last_axis),
                  ("softmax-backward-sum-wrong-axis", sum_over_first_axis),
                  ("softmax-backward-missing-a-factor", missing_a_factor),
                  ("softmax-backward-sign", sign_flipped)],
        verified="dS = A (dA - rowsum(dA A)) on a wide matrix, a masked one, a 3-D stack and a dA around 10,000 "
                 "(float64 precision)",
        hint1="Each row is its own softmax. Changing S[i, j] moves A[i, j] up and every other A[i, k] down.",
        hint2="The Jacobian of a softmax row is diag(a) - a aᵀ; applied to dA it becomes a * (dA - sum(dA * a)).",
        formula="dS = A * (dA - sum(dA * A, axis=-1, keepdims=True))",
    ),
]


# property findings (properties.py) -------------------------------------------------------------------------------

def _logit_intermediates(H, W_vocab):
    rows = [("wrong-row", H[k] @ W_vocab) for k in range(1, len(H) - 1)]
    return rows + [("mean-of-rows", H.sum(axis=0) @ W_vocab)]


def _backward_intermediates(A, dA):
    return [("softmax-backward-diagonal-only", A * (1 - A) * dA),
            ("softmax-backward-sum-wrong-axis", A * (dA - np.sum(dA * A))),
            ("softmax-backward-unweighted-sum", A * (dA - dA.sum(axis=-1, keepdims=True)))]


def _offset_rows(dA):
    return dA + 1e4


FINDINGS = {
    "next_token_logits": [intermediates(_logit_intermediates)],
    "softmax_backward": [
        precision(large_offset(1)),
        intermediates(_backward_intermediates),
        shift_invariance(1, _offset_rows, "precision-loss",
                         "adding the same constant to every entry of dA changed your result; it must not"),
    ],
}
