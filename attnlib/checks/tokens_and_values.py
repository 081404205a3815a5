"""Lesson 03, tokens and values: values (a sentence as X, then V = X Wv) and one_hot (a lookup as a product)."""
import numpy as np

from .probes import features, rand
from .spec import Exercise, Probe


def values(tokens, table, Wv):
    """Reference: one row per token, looked up in `table` (word -> (d_model,)), times Wv."""
    X = np.array([table[t] for t in tokens])  # (n, d_model)
    return X @ Wv  # (n, d_v)


def values_steps(tokens, table, Wv, *, c):
    """V = X Wv, X one row per token in sentence order."""
    words = c.step("rows looked up", right=lambda: list(tokens),
                   tokens_deduplicated=lambda: list(dict.fromkeys(tokens)),
                   tokens_deduplicated__sorted=lambda: sorted(set(tokens)),
                   rows_from_table_not_tokens=lambda: list(table), tokens_sorted=lambda: sorted(tokens),
                   rows_from_table_not_tokens__by_position=lambda: [list(table)[i] for i in range(len(tokens))])
    X = np.array([table[w] for w in words])  # (n, d_model)
    return c.step("value weights", right=lambda: X @ Wv, weights_transposed=lambda: X @ Wv.T,
                  projection_missing=lambda: X)


def _table(seed, words, d):
    return {w: rand(seed + i, d) for i, w in enumerate(sorted(set(words)))}


def _probe(sentence, table, Wv):
    return Probe((sentence, table, Wv), names=("tokens", "table", "Wv"), rows=sentence,
                 cols=features(Wv.shape[1], "v"))


# one_hot(ids, vocab_size) ---------------------------------------------------------------------------------------

def one_hot(ids, vocab_size):
    """Reference: (n, vocab_size) floats, row i all zeros except a 1.0 in column ids[i]."""
    out = np.zeros((len(ids), vocab_size))
    out[np.arange(len(ids)), ids] = 1.0
    return out


def one_hot_steps(ids, vocab_size, *, c):
    """(n, vocab_size): row i is 1.0 in column ids[i], 0 elsewhere."""
    ids = np.asarray(ids)
    rows = c.step("one-hot rows", right=lambda: np.eye(vocab_size)[ids],
                  one_hot_width_from_ids=lambda: np.eye(int(ids.max()) + 1)[ids],
                  one_hot_width_from_ids__count=lambda: np.eye(len(ids))[ids],
                  tokens_deduplicated=lambda: np.eye(vocab_size)[np.unique(ids)],
                  one_hot_marks_every_id=lambda: np.tile(np.eye(vocab_size)[ids].max(axis=0), (len(ids), 1)),
                  ids_one_based=lambda: np.eye(vocab_size)[ids - 1])
    return c("one-hot layout", right=rows, output_transposed=rows.T)


def float_result(run):
    """one_hot must return floats, as the exercise says: an int or bool array of the right 0s and 1s is refused."""
    o = run(lambda fn: lambda *a: np.asarray(fn(*a)).dtype.str, (np.array([0, 2, 1]), 4))
    if o.kind == "ok" and isinstance(o.value, str) and np.dtype(o.value).kind != "f":
        return "one-hot-not-float", (f"your function returned an array of dtype {np.dtype(o.value)}; the exercise "
                                     "asks for floats (the rows are vectors a table of floats is multiplied by)")
    return None


REQUIREMENTS = {"one_hot": [float_result]}

CHOICES = {
    "rows looked up": "Walk through the tokens in sentence order: one row per token, a repeated word included.",
    "value weights": "Write the shapes: X is (n, d_model), and Wv has d_model rows.",
    "one-hot rows": "Look at each row: as wide as the vocabulary, one row per id in order, a single 1 in the id's "
                    "own column.",
    "one-hot layout": "Look at which axis holds the tokens: one row per id.",
}


VOCAB = ["and", "cat", "dog", "mat", "on", "sat", "the", "then"]  # a small sorted vocabulary: word i has id i


def _ids_probe(ids, vocab_size, words=None):
    ids = np.asarray(ids)
    return Probe((ids, vocab_size), names=("ids", "vocab_size"), rows=words,
                 cols=VOCAB if vocab_size == len(VOCAB) else features(vocab_size, "id"))


S1 = "the cat sat on the mat".split()
S2 = "the dog and the cat and the mat".split()

EXERCISES = [
    Exercise(
        name="values",
        reference=values,
        probes=[_probe(S1, _table(20, S1 + ["dog"], 6), rand(21, 6, 4)),
                _probe(S2, _table(30, S2, 3), rand(31, 3, 5)),
                _probe(S1, _table(40, S1, 4), rand(41, 4, 4))],
        pipeline=values_steps,
        verified="one row per token (repeats included), in sentence order, times Wv",
        hint1="First build X: one row per token, looked up in the table; "
              "a word that appears twice gives two equal rows.",
        hint2="Walk through the tokens in sentence order and stack their table vectors into an (n, d_model) "
              "matrix, one row per token; then project it with Wv, whose first axis has d_model rows.",
        formula="X = np.array([table[t] for t in tokens])  # (n, d_model);  V = X @ Wv",
    ),
    Exercise(
        name="one_hot",
        reference=one_hot,
        probes=[_ids_probe([VOCAB.index(w) for w in S1], len(VOCAB), S1),
                _ids_probe([0, 1, 1, 0, 2, 2, 1], 3),
                _ids_probe([4], 5),
                _ids_probe(np.array([5, 0, 3, 5], dtype=np.int32), 6),
                _ids_probe([2, 7, 0, 2, 6], 11)],
        pipeline=one_hot_steps,
        verified="one row per id (repeats included) with a single 1.0 in its column, vocab_size columns wide, "
                 "for more ids than words, a single id and int32 ids",
        hint1="A one-hot row stands for one token: as many entries as words in the vocabulary, all 0 except "
              "a 1 in the column of that token's id. Multiplying it with the table picks out that word's row.",
        hint2="Make the result as wide as the vocabulary whatever ids this sentence holds, give every id its "
              "own row in order (a repeated id gives a repeated row), and put exactly one 1 in each row.",
        formula="out = np.zeros((n, vocab_size)); out[np.arange(n), ids] = 1.0  (the same as np.eye(vocab_size)[ids])",
    ),
]


DIAGNOSES = {
    "one-hot-not-float": "The 0s and 1s are right but not floats: the exercise asks for a float array.",
    "ids-one-based": "The 1 went into column ids[i] - 1, as if ids counted from 1. Ids count from 0: id 0 is the "
                     "first column.",
    "one-hot-width-from-ids": "The number of columns came from these ids (their largest, or how many there are) "
                              "instead of vocab_size, so "
                              "the rows no longer line up with the rows of the embedding table whatever words the "
                              "sentence happens to use.",
    "one-hot-marks-every-id": "Every row got a 1 in the column of every id of the sentence. Row i marks only "
                              "the column of its own token.",
}

NUDGES = {
    "one-hot-not-float": "Look at the dtype of the array you fill.",
}
