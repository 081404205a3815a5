"""Lesson 05, learned mixing: similarity (the scores Q K^T)."""
import numpy as np

import attnlib as al
from .probes import rand, tokens
from .properties import argument_mixups, intermediates
from .spec import Exercise, Probe


def kq_instead_of_qk(Q, K):
    return K @ Q.T


def k_not_transposed(Q, K):
    return Q @ K


def scaled_already(Q, K):
    return Q @ K.T / np.sqrt(Q.shape[1])


EXERCISES = [
    Exercise(
        name="similarity",
        reference=al.similarity,
        probes=[Probe((rand(60, 3, 4), rand(61, 5, 4)), names=("Q", "K"), rows=tokens(3, 2), cols=tokens(5)),
                Probe((rand(62, 6, 2), rand(63, 3, 2)), names=("Q", "K"), rows=tokens(6), cols=tokens(3)),
                Probe((rand(64, 3, 3), rand(65, 3, 3)), names=("Q", "K"), rows=tokens(3), cols=tokens(3))],
        mistakes=[("kq-instead-of-qk", kq_instead_of_qk),
                  ("k-not-transposed", k_not_transposed),
                  ("similarity-scaled", scaled_already)],
        verified="every query-key dot product, for n_q != n_k != d",
        hint1="Entry (i, j) is the dot product of query i with key j: how well key j matches what query i looks for.",
        hint2="Q is (n_q, d) and K is (n_k, d): transpose K so the inner sizes meet, Q @ K.T is (n_q, n_k).",
        formula="S = Q @ K.T",
    ),
]


def _unit_rows(M):
    return M / np.linalg.norm(M, axis=1, keepdims=True)


FINDINGS = {
    "similarity": [argument_mixups(al.similarity, ("Q", "K")),
                   intermediates(lambda Q, K: [("cosine-similarity", _unit_rows(Q) @ _unit_rows(K).T)])],
}
