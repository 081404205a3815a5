"""Lesson 03, tokens and values: values (a sentence as X, then V = X Wv)."""
import numpy as np

from .probes import features, rand
from .properties import intermediates
from .spec import Exercise, Probe


def values(tokens, table, Wv):
    """Reference: one row per token, looked up in `table` (word -> (d_model,)), times Wv."""
    X = np.array([table[t] for t in tokens])  # (n, d_model)
    return X @ Wv  # (n, d_v)


def first_occurrences_only(tokens, table, Wv):
    return values(list(dict.fromkeys(tokens)), table, Wv)


def sorted_unique_words(tokens, table, Wv):
    return values(sorted(set(tokens)), table, Wv)


def rows_of_the_table(tokens, table, Wv):
    return np.array(list(table.values())) @ Wv


def wv_transposed(tokens, table, Wv):
    return values(tokens, table, Wv.T)


def _table(seed, words, d):
    return {w: rand(seed + i, d) for i, w in enumerate(sorted(set(words)))}


def _probe(sentence, table, Wv):
    return Probe((sentence, table, Wv), names=("tokens", "table", "Wv"), rows=sentence,
                 cols=features(Wv.shape[1], "v"))


S1 = "the cat sat on the mat".split()
S2 = "the dog and the cat and the mat".split()

EXERCISES = [
    Exercise(
        name="values",
        reference=values,
        probes=[_probe(S1, _table(20, S1 + ["dog"], 6), rand(21, 6, 4)),
                _probe(S2, _table(30, S2, 3), rand(31, 3, 5)),
                _probe(S1, _table(40, S1, 4), rand(41, 4, 4))],
        mistakes=[("tokens-deduplicated", first_occurrences_only),
                  ("tokens-deduplicated", sorted_unique_words),
                  ("rows-from-table-not-tokens", rows_of_the_table),
                  ("weights-transposed", wv_transposed)],
        verified="one row per token (repeats included), in sentence order, times Wv",
        hint1="First build X: one row per token, looked up in the table; "
              "a word that appears twice gives two equal rows.",
        hint2="X = np.array([table[t] for t in tokens]) is (n, d_model); then V = X @ Wv.",
        formula="V = X @ Wv, X[i] = table[tokens[i]]",
    ),
]


FINDINGS = {
    "values": [intermediates(lambda tokens, table, Wv: [
        ("projection-missing", np.array([table[t] for t in tokens])),
    ])],
}
