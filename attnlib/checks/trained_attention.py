"""Lesson 12, attention trained: most_attended."""
import numpy as np

import attnlib as al
from .probes import WORDS, rand
from .spec import Exercise, Probe


def most_attended(A, tokens):
    """A (n_q, n_k), tokens (n_k,) -> the key token with the largest weight in each row (ties: the earliest)."""
    return [tokens[j] for j in np.argmax(A, axis=1)]  # np.argmax keeps the first of equal maxima


# named mistakes ---------------------------------------------------------------------------------------------------

def down_the_columns(A, tokens):
    return [tokens[i] for i in np.argmax(A, axis=0)]


def indices_not_words(A, tokens):
    return np.argmax(A, axis=1)


def least_attended(A, tokens):
    return [tokens[j] for j in np.argmin(A, axis=1)]


def ties_to_the_latest(A, tokens):
    n_k = A.shape[1]
    return [tokens[n_k - 1 - j] for j in np.argmax(A[:, ::-1], axis=1)]


# probes -------------------------------------------------------------------------------------------------------------

def _causal_probe(seed, n, spread=2.0):
    """A trained-looking causal A over the first n words: a softmax of random scores, the future masked."""
    A = al.softmax(rand(seed, n, n, scale=spread) + al.causal_mask(n))  # (n, n)
    return Probe((A, WORDS[:n]), names=("A", "tokens"), rows=WORDS[:n])


def _cache_probe(seed, n_q, n_k):
    """The last n_q queries against n_k keys, as with a KV cache: query i sees keys 0 .. n_k - n_q + i."""
    A = al.attention_weights(rand(seed, n_q, 4, scale=2.0), rand(seed + 1, n_k, 4, scale=2.0))  # (n_q, n_k)
    return Probe((A, WORDS[:n_k]), names=("A", "tokens"), rows=WORDS[n_k - n_q:n_k])


def _ties_probe(n):
    """The uniform causal average: row i gives its i + 1 keys exactly equal weights."""
    return Probe((al.uniform_causal_weights(n), WORDS[:n]), names=("A", "tokens"), rows=WORDS[:n])


def _bidirectional_probe(seed, n_q, n_k):
    """No mask (cross-attention): any key may win; new words, so the answer cannot be guessed from WORDS."""
    keys = ["dog", "slept", "under", "a", "big", "old", "tree"][:n_k]
    A = al.softmax(rand(seed, n_q, n_k, scale=2.0))  # (n_q, n_k)
    return Probe((A, keys), names=("A", "tokens"), rows=[f"q{i}" for i in range(n_q)])


EXERCISES = [
    Exercise(
        name="most_attended",
        reference=most_attended,
        probes=[_causal_probe(600, 6), _cache_probe(602, 3, 5), _ties_probe(5), _bidirectional_probe(604, 4, 7)],
        mistakes=[("most-attended-indices", indices_not_words),
                  ("most-attended-wrong-axis", down_the_columns),
                  ("most-attended-least", least_attended),
                  ("most-attended-ties-latest", ties_to_the_latest)],
        verified="the word with the largest weight in each row: a causal A, a cached one (fewer queries than "
                 "keys), exact ties and an unmasked A over new words",
        hint1="Row i of A is how query i shares its attention among the keys; the word it attends to most is the "
              "key whose column holds the largest weight of that row.",
        hint2="Work along each row (axis 1, the keys), keep the column of the largest weight, then turn that column "
              "number into the word at that position of tokens. Of two equal weights, keep the earlier column.",
        formula="answer[i] = tokens[j] for the first j with A[i, j] = max(A[i, :])",
    ),
]
