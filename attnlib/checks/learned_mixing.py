"""Lesson 05, learned mixing: similarity (the scores Q K^T) and learned_scores (X Wq (X Wk)^T)."""
import numpy as np

import attnlib as at
from .mask_and_softmax import product_steps
from .probes import rand
from .properties import argument_mixups
from .spec import Exercise, Probe


def similarity_steps(Q, K, *, c):
    """S = Q Kᵀ, unscaled: the scores' own product, and no scale, softmax or mask yet (a learner may add them)."""
    Q, K = c("rows normalised", right=(Q, K), cosine_similarity=(_unit_rows(Q), _unit_rows(K)))
    S = c.step("what is compared", right=lambda: product_steps(Q, K, c), scores_feature_by_feature=lambda: Q.T @ K)
    S = S / c("similarity scale", right=1.0, similarity_scaled=np.sqrt(Q.shape[-1]))
    return c.step("scores returned", right=lambda: S, scores_softmaxed=lambda: at.softmax(S),
                  scores_masked=lambda: S + at.causal_mask(len(S)), scores_masked__zeroed=lambda: np.tril(S))


def _unit_rows(M):
    return M / np.linalg.norm(M, axis=-1, keepdims=True)


def learned_scores(X, Wq, Wk):
    """Reference: S (n, n) = (X Wq)(X Wk)^T, unscaled and unmasked."""
    Q, K = X @ Wq, X @ Wk  # (n, d) each
    return Q @ K.T  # (n, n): row i is query i against every key


def learned_scores_steps(X, Wq, Wk, *, c):
    """S = (X Wq)(X Wk)ᵀ."""
    Q, K = c.step("projections", right=lambda: (X @ Wq, X @ Wk), projection_missing=lambda: (X, X),
                  weights_transposed=lambda: (X @ Wq.T, X @ Wk.T), keys_without_x=lambda: (X @ Wq, Wk))
    S = similarity_steps(Q, K, c=c)  # (n, n)
    return c.step("query and key apart", right=lambda: S, scores_symmetrised=lambda: (S + S.T) / 2)


CHOICES = {
    "similarity scale": "similarity is the raw product: look for a division, which comes later.",
    "rows normalised": "Look at the lengths of your queries and keys: the scores use them as they are.",
    "what is compared": "Write the shape next to each operand of your product: one score per pair of tokens.",
    "scores returned": "Look at what your function does after the product: the raw scores come back, nothing more.",
    "query and key apart": "Look at entry (i, j): query i against key j, which is not query j against key i.",
}


def _xqk(seed, n, d_model, d, dtype=float):
    X, Wq, Wk = rand(seed, n, d_model), rand(seed + 1, d_model, d), rand(seed + 2, d_model, d)
    return Probe((X.astype(dtype), Wq.astype(dtype), Wk.astype(dtype)), names=("X", "Wq", "Wk"))


EXERCISES = [
    Exercise(
        name="similarity",
        reference=at.similarity,
        probes=[Probe((rand(60, 3, 4), rand(61, 5, 4)), names=("Q", "K")),
                Probe((rand(62, 6, 2), rand(63, 3, 2)), names=("Q", "K")),
                Probe((rand(64, 3, 3), rand(65, 3, 3)), names=("Q", "K")),
                Probe((rand(66, 1, 3), rand(67, 4, 3)), names=("Q", "K"))],  # one query
        pipeline=similarity_steps,
        verified="every query-key dot product, for n_q != n_k != d",
        hint1="Entry (i, j) is the dot product of query i with key j: how well key j matches what query i looks for.",
        hint2="Q is (n_q, d) and K is (n_k, d): the inner sizes of a product must meet, so swap the two axes "
              "of K first; the result has one row per query and one column per key.",
        formula="S = Q @ K.T",
    ),
    Exercise(
        name="learned_scores",
        uses=("project_rows", "similarity"),
        reference=learned_scores,
        probes=[_xqk(160, 5, 4, 3), _xqk(163, 3, 6, 2), _xqk(166, 4, 4, 4), _xqk(169, 6, 3, 5),
                _xqk(172, 4, 5, 3, np.float32)],
        pipeline=learned_scores_steps,
        verified="(X Wq)(X Wk)ᵀ, queries on the rows, for d_model != d, square weights and float32",
        hint1="Each token plays two roles: projected with Wq it asks a question (its query), projected with "
              "Wk it offers an answer (its key). Score (i, j) compares token i's query with token j's key.",
        hint2="Project X twice, once with each weight matrix, then compare every query with every key as in "
              "similarity: queries give the rows, keys the columns. No scaling and no mask yet.",
        formula="S = (X @ Wq) @ (X @ Wk).T",
    ),
]


FINDINGS = {
    "similarity": [argument_mixups(at.similarity, ("Q", "K"))],
    "learned_scores": [argument_mixups(learned_scores, ("X", "Wq", "Wk"))],
}


DIAGNOSES = {
    "scores-symmetrised": "The scores were made symmetric, (S + Sᵀ) / 2. Queries and keys come from two different "
                          "projections, so query i against key j is not query j against key i.",
    "scores-softmaxed": "You returned weights (each row sums to 1) instead of the raw scores; the softmax comes later, "
                        "in lesson 06.",
    "scores-masked": "You hid the future with a mask. The scores of this lesson have no mask yet: every query is "
                     "compared with every key.",
    "scores-diagonal-only": "You compared each token's query with its own key only, one number per token, instead of "
                            "every query with every key.",
    "scores-feature-by-feature": "You multiplied Qᵀ by K, a (d, d) matrix of features against features, while the "
                                 "scores compare tokens with tokens.",
    "keys-without-x": "The keys were never made from X: the queries met Wk itself, one column per input feature, "
                      "instead of the keys X Wk, one row per token.",
}
