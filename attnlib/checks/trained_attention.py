"""Lesson 12, attention trained: most_attended and attention_entropy."""
import numpy as np

import attnlib as at
from .probes import WORDS, rand
from .spec import Exercise, Probe


def most_attended(A, tokens):
    """A (n_q, n_k), tokens (n_k,) -> the key token with the largest weight in each row (ties: the earliest)."""
    return [tokens[j] for j in np.argmax(A, axis=1)]  # np.argmax keeps the first of equal maxima


def most_attended_steps(A, tokens, *, c):
    """The word of the largest weight along each row; of equal weights, the earliest."""
    A = c("weights precision", right=A, computed_in_float16=A.astype(np.float16))  # near ties become ties
    j = c.step("which key", right=lambda: np.argmax(A, axis=1), most_attended_wrong_axis=lambda: np.argmax(A, axis=0),
               most_attended_wrong_axis__cut=lambda: np.argmax(A, axis=0)[:len(A)],
               most_attended_least=lambda: np.argmin(A, axis=1),
               most_attended_ties_latest=lambda: A.shape[1] - 1 - np.argmax(A[:, ::-1], axis=1),
               most_attended_skips_itself=lambda: np.argmax(np.where(np.eye(*A.shape, dtype=bool), -np.inf, A), axis=1))
    return c.step("answer", right=lambda: [tokens[k] for k in j], most_attended_indices=lambda: [int(k) for k in j],
                  most_attended_word_before=lambda: [tokens[k - 1] for k in j],
                  most_attended_distinct_words=lambda: [sorted(set(tokens))[k] for k in j])


# probes -------------------------------------------------------------------------------------------------------------

def _causal_probe(seed, n, spread=2.0):
    """A trained-looking causal A over the first n words: a softmax of random scores, the future masked."""
    A = at.softmax(rand(seed, n, n, scale=spread) + at.causal_mask(n))  # (n, n)
    return Probe((A, WORDS[:n]), names=("A", "tokens"), rows=WORDS[:n])


def _cache_probe(seed, n_q, n_k):
    """The last n_q queries against n_k keys, as with a KV cache: query i sees keys 0 .. n_k - n_q + i."""
    A = at.attention_weights(rand(seed, n_q, 4, scale=2.0), rand(seed + 1, n_k, 4, scale=2.0))  # (n_q, n_k)
    return Probe((A, WORDS[:n_k]), names=("A", "tokens"), rows=WORDS[n_k - n_q:n_k])


def _ties_probe(n):
    """The uniform causal average: row i gives its i + 1 keys exactly equal weights."""
    return Probe((at.uniform_causal_weights(n), WORDS[:n]), names=("A", "tokens"), rows=WORDS[:n])


def _near_ties_probe(n):
    """Row i's largest weight, at key i, beats key 0's by one part in 10^4: apart in float32, tied in float16."""
    A = np.tril(np.full((n, n), 0.1))  # (n, n)
    A[:, 0], A[np.arange(n), np.arange(n)] = 0.3, 0.3 * (1 + 1e-4)
    return Probe((A / A.sum(axis=1, keepdims=True), WORDS[:n]), names=("A", "tokens"), rows=WORDS[:n])


def _bidirectional_probe(seed, n_q, n_k):
    """No mask (cross-attention): any key may win; new words, so the answer cannot be guessed from WORDS."""
    keys = ["dog", "slept", "under", "a", "big", "old", "tree"][:n_k]
    A = at.softmax(rand(seed, n_q, n_k, scale=2.0))  # (n_q, n_k)
    return Probe((A, keys), names=("A", "tokens"), rows=[f"q{i}" for i in range(n_q)])


EXERCISES = [
    Exercise(
        name="most_attended",
        returns=list,
        reference=most_attended,
        probes=[_causal_probe(600, 6), _cache_probe(602, 3, 5), _ties_probe(5), _bidirectional_probe(604, 4, 7),
                _cache_probe(606, 1, 4), _near_ties_probe(5)],  # one query row; near ties
        pipeline=most_attended_steps,
        verified="the word with the largest weight in each row: a causal A, a cached one (fewer queries than "
                 "keys), exact ties, near ties and an unmasked A over new words",
        hint1="Row i of A is how query i shares its attention among the keys; the word it attends to most is the "
              "key whose column holds the largest weight of that row.",
        hint2="Work along each row (axis 1, the keys), keep the column of the largest weight, then turn that column "
              "number into the word at that position of tokens. Of two equal weights, keep the earlier column.",
        formula="answer[i] = tokens[j] for the first j with A[i, j] = max(A[i, :])",
    ),
]


# attention_entropy(A) --------------------------------------------------------------------------------------------

def attention_entropy(A):
    """Reference: A (n_q, n_k) rows of weights -> (n_q,) entropy of each row in nats, with 0 log 0 = 0."""
    logs = np.log(np.where(A > 0, A, 1.0))  # log 1 = 0 where a weight is 0
    return 0.0 - (A * logs).sum(axis=1)  # 0.0 - keeps a one-hot row at +0.0


def entropy_steps(A, *, c):
    """H (n_q,): -Σ A log A along each row, in nats, 0 log 0 = 0."""
    W, inside = c.step("log of a zero", right=lambda: (A, np.where(A > 0, A, 1.0)),
                       entropy_nan_from_zeros=lambda: (A, A),
                       entropy_zeros_clipped=lambda: (np.clip(A, 1e-6, None), np.clip(A, 1e-6, None)))
    logs = c.step("log", right=lambda: np.log(inside), entropy_log_of_one_plus=lambda: np.log1p(A),
                  entropy_in_bits=lambda: np.log2(inside))
    weight = c("weighted by", right=W, entropy_weights_left_out=1.0)
    terms = weight * logs
    total = c.step("sum", right=lambda: terms.sum(axis=1), entropy_wrong_axis=lambda: terms.sum(axis=0),
                   entropy_whole_matrix=lambda: np.full(A.shape[0], terms.sum()),
                   entropy_whole_matrix__one_number=lambda: terms.sum(),
                   entropy_mean_not_sum=lambda: terms.sum(axis=1) / A.shape[1],
                   entropy_normalised=lambda: terms.sum(axis=1) / np.log(A.shape[1]),
                   entropy_uniform_assumed=lambda: -np.log((A > 0).sum(axis=1)))
    return c("sign", right=0.0 - total, entropy_sign=total)


CHOICES = {
    "which key": "Work along each row, over the keys: the largest weight, the earliest of equal ones.",
    "answer": "Look at what you return: the words at those columns.",
    "weights precision": "Look at the dtype your weights are compared in: two weights one part in 10^4 apart must "
                         "stay apart.",
    "log of a zero": "Look at what a masked weight, exactly 0, contributes: its term must count as 0.",
    "log": "Look at your logarithm: the natural log of the weight itself.",
    "weighted by": "Look at each term: the weight times its own logarithm.",
    "sum": "Look at what you add up: the terms of one row, over its keys.",
    "sign": "Look at the sign: every entropy is zero or positive.",
}


def _entropy_probe(A):
    return Probe((A,), names=("A",))


def _peaked_and_flat(n):
    """Rows that are one-hot (entropy 0) and rows spread evenly over 1, 2, ... keys (entropy log m)."""
    A = np.zeros((n, n + 1))
    for i in range(n):
        if i % 2:
            A[i, : i + 1] = 1.0 / (i + 1)
        else:
            A[i, i] = 1.0
    return A


ENTROPY_PROBES = [
    _entropy_probe(at.softmax(rand(650, 6, 6, scale=2.0) + at.causal_mask(6))),
    _entropy_probe(at.attention_weights(rand(652, 3, 4, scale=2.0), rand(653, 5, 4, scale=2.0))),
    _entropy_probe(at.uniform_causal_weights(5)),
    _entropy_probe(_peaked_and_flat(4)),
    _entropy_probe(at.softmax(rand(654, 4, 7, scale=3.0))),
]

EXERCISES.append(Exercise(
    name="attention_entropy",
    reference=attention_entropy,
    probes=ENTROPY_PROBES,
    pipeline=entropy_steps,
    verified="the entropy of each row in nats: causal rows with masked zeros, a cached A, exact one-hot and "
             "evenly spread rows, and an unmasked A",
    hint1="Entropy measures how spread out a row of weights is: 0 when all the weight sits on one key, log m when it "
          "is shared evenly by m keys. Each weight contributes minus itself times its own logarithm.",
    hint2="Work along each row (over the keys) and use the natural logarithm. A masked weight is exactly 0 and its "
          "logarithm is minus infinity; its term must count as 0, so keep the zeros away from the logarithm "
          "instead of multiplying 0 by minus infinity. Every entropy is zero or positive.",
    formula="H[i] = −Σ_j A[i, j] · ln A[i, j], with 0 · ln 0 = 0",
))


DIAGNOSES = {
    "most-attended-skips-itself": "Your function never picks a token's own position (the diagonal); a token may "
                                  "attend most to itself, and then the answer is its own word.",
    "most-attended-word-before": "The column is right, but the word is read one place early (tokens[j - 1]): "
                                 "Python counts from 0, so column j is tokens[j].",
    "most-attended-distinct-words": "The column is right, but the word is read from the sorted distinct words; "
                                    "column j of A is the key at position j, tokens[j], repeats included.",
    "entropy-uniform-assumed": "You returned the log of the number of keys a row attends to, the entropy of a "
                               "uniform row; the entropy depends on the weights themselves.",
    "entropy-weights-left-out": "You added up -log A over the keys without weighting each term by its A.",
    "entropy-log-of-one-plus": "You took the log of one plus each weight, a different function from the log of the "
                               "weight.",
    "entropy-zeros-clipped": "You clipped the zero weights to a small number before A log A, so every masked key "
                             "adds a small term of its own. A zero weight contributes exactly 0.",
    "entropy-nan-from-zeros": "A weight of 0 gave 0 times minus infinity, which is NaN, although by convention a zero "
                              "weight contributes 0 to the entropy.",
    "entropy-sign": "The entropy came out negative: the log of a weight below 1 is negative, and the sum has no minus "
                    "sign in front.",
    "entropy-in-bits": "The entropy is in bits (base-2 logarithm); this exercise measures it in nats, with the "
                       "natural logarithm.",
    "entropy-wrong-axis": "The sum ran down the columns, but one query's weights are a row.",
    "entropy-whole-matrix": "The terms of the whole matrix were summed into one entropy (returned alone, or given to "
                            "every row); each row, one query's weights, has its own.",
    "entropy-mean-not-sum": "The terms were averaged over the keys; the entropy is their sum.",
    "entropy-normalised": "The entropy was divided by the log of the number of keys.",
}
