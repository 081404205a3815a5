"""The essay's running example and toy data, generated in code (no downloads).

Every word gets a fixed vector: the same word always gives the same row of X,
whatever sentence it sits in, so the two "the" rows of "the cat sat on the mat"
are identical. Values are rounded to one decimal so tables stay readable.
"""
import re
import zlib

import numpy as np

from ._validate import as_positive_int

ESSAY_SENTENCE = "the cat sat on the mat"


def tokenize(sentence):
    """Split a sentence into lowercase word tokens: "The cat sat." -> ['the', 'cat', 'sat']."""
    if not isinstance(sentence, str):
        raise ValueError(f"sentence must be a string, got {type(sentence).__name__}")
    tokens = re.findall(r"[a-z0-9']+", sentence.lower())
    if not tokens:
        raise ValueError(f"sentence {sentence!r} has no words to turn into tokens")
    return tokens


def word_vectors(tokens, d_model=6, seed=0):
    """X (n, d_model): one row per token, in [0, 1] rounded to 0.1, fixed per word."""
    d_model = as_positive_int("d_model", d_model)
    if isinstance(tokens, str):
        tokens = tokenize(tokens)
    if len(tokens) == 0:
        raise ValueError("tokens is empty; give at least one word")
    rows = []
    for word in tokens:
        rng = np.random.default_rng([seed, zlib.crc32(word.encode())])
        rows.append(np.round(rng.uniform(0.0, 1.0, d_model), 1))
    return np.array(rows)  # (n, d_model)


def example_weights(d_in=6, d_out=6, seed=0):
    """A weight matrix (d_in, d_out) with entries in [-0.5, 0.5] rounded to 0.01."""
    d_in, d_out = as_positive_int("d_in", d_in), as_positive_int("d_out", d_out)
    rng = np.random.default_rng(seed)
    return np.round(rng.uniform(-0.5, 0.5, (d_in, d_out)), 2)


def essay_example(sentence=ESSAY_SENTENCE, d_model=6, d_head=6, seed=0):
    """The running example: tokens, X and the weights Wq, Wk, Wv, Wo as a dict.

    Wq, Wk, Wv are (d_model, d_head) and Wo is (d_head, d_model), each from its own seed.
    """
    tokens = tokenize(sentence)
    return {
        "tokens": tokens,
        "X": word_vectors(tokens, d_model, seed),
        "Wq": example_weights(d_model, d_head, seed + 1),
        "Wk": example_weights(d_model, d_head, seed + 2),
        "Wv": example_weights(d_model, d_head, seed + 3),
        "Wo": example_weights(d_head, d_model, seed + 4),
    }
