"""Lesson 04, mixing rows: uniform_causal_weights and causal_average."""
import numpy as np

import attnlib as at
from .probes import features, rand, tokens
from .properties import causality, count_factor, counts_along_columns, failing, name_pattern, row_factor
from .spec import Exercise, Probe


# uniform_causal_weights(n) ---------------------------------------------------------------------------------------

def _rows_normalised(M):
    return M / M.sum(axis=1, keepdims=True)


def upper_triangle(n):
    return _rows_normalised(np.triu(np.ones((n, n))))


def below_diagonal_only(n):
    return _rows_normalised(np.tril(np.ones((n, n)), -1))


def ones_not_averaged(n):
    return np.tril(np.ones((n, n)))


def every_row_over_n(n):
    return np.tril(np.ones((n, n))) / n


def transposed_weights(n):
    return _rows_normalised(np.tril(np.ones((n, n)))).T


def divided_by_column_count(n):
    return np.tril(np.ones((n, n))) / np.arange(1, n + 1)  # (n,) lines up with the columns


# causal_average(V) -----------------------------------------------------------------------------------------------

def mean_of_all_rows(V):
    return np.broadcast_to(V.mean(axis=0), V.shape).copy()


def running_sum(V):
    return np.cumsum(V, axis=0)


def running_sum_over_i(V):
    return np.cumsum(V, axis=0) / np.arange(V.shape[0])[:, None]  # row 0 divides by 0


def mean_of_later_rows(V):
    return (np.cumsum(V[::-1], axis=0) / np.arange(1, V.shape[0] + 1)[:, None])[::-1]


def running_mean_of_columns(V):
    return np.cumsum(V, axis=1) / np.arange(1, V.shape[1] + 1)


EXERCISES = [
    Exercise(
        name="uniform_causal_weights",
        reference=at.uniform_causal_weights,
        probes=[Probe((n,), names=("n",), rows=tokens(n), cols=tokens(n)) for n in (4, 6, 3)],
        mistakes=[("mask-hides-past", upper_triangle),
                  ("mask-hides-diagonal", below_diagonal_only),
                  ("weights-not-normalised", ones_not_averaged),
                  ("normalised-by-n", every_row_over_n),
                  ("output-transposed", transposed_weights),
                  ("normalised-by-column", divided_by_column_count)],
        verified="rows of 1/(i+1) on columns 0..i for n = 4, 6, 3",
        hint1="Row i mixes tokens 0..i equally, and gives nothing to later tokens.",
        hint2="Start from a lower-triangular matrix of ones, the diagonal included, then divide each row by "
              "its own sum, keeping the summed axis so that the shapes line up.",
        formula="A[i, j] = 1/(i+1) if j <= i else 0; e.g. A = np.tril(np.ones((n, n))), "
                "then A / A.sum(axis=1, keepdims=True)",
    ),
    Exercise(
        name="causal_average",
        reference=at.causal_average,
        probes=[Probe((rand(50, 5, 3),), names=("V",), cols=features(3, "v")),
                Probe((rand(51, 4, 7),), names=("V",), cols=features(7, "v")),
                Probe((rand(52, 6, 2),), names=("V",), cols=features(2, "v")),
                Probe((rand(53, 16, 3),), names=("V",), cols=features(3, "v"))],
        mistakes=[("average-over-all-rows", mean_of_all_rows),
                  ("weights-not-normalised", running_sum),
                  ("off-by-one-count", running_sum_over_i),
                  ("mask-hides-past", mean_of_later_rows),
                  ("average-over-columns", running_mean_of_columns)],
        verified="row i = mean of rows 0..i on four V of different shapes, up to 16 rows",
        hint1="Row i of the result is the average of rows 0..i of V: the token itself and everything before it.",
        hint2="Either multiply the uniform causal weights with V, or take a running sum down the rows (the "
              "token axis) and divide row i by its count, i + 1, laid out as a column.",
        formula="O[i] = (V[0] + ... + V[i]) / (i + 1); e.g. np.cumsum(V, axis=0) / np.arange(1, n + 1)[:, None]",
    ),
]


# property findings (properties.py) -------------------------------------------------------------------------------

COLUMN_COUNTS = "entry (i, j) was divided by j + 1 instead of i + 1"


def weights_pattern(f, seen):
    """Read the mistake off the weights themselves: which columns each row uses, and by how much."""
    for _p, got, e in failing(seen):
        visible = np.isfinite(got) & (got != 0)
        found = name_pattern(visible, everything="average-over-all-rows")
        if found:
            return found
        c = row_factor(got, e)
        if c is not None:
            return count_factor(c)
        if counts_along_columns(got, e):
            return "normalised-by-column", COLUMN_COUNTS
    return None


def average_factor(f, seen):
    for _p, got, e in failing(seen):
        c = row_factor(got, e)
        if c is not None:
            return count_factor(c)
        if counts_along_columns(got, e):
            return "normalised-by-column", COLUMN_COUNTS
    return None


FINDINGS = {
    "uniform_causal_weights": [weights_pattern],
    "causal_average": [causality((rand(54, 6, 3),), {}, [0], everything="average-over-all-rows"), average_factor],
}

DIAGNOSES = {
    "normalised-by-column": "Entry (i, j) was divided by j + 1, the count of row j, instead of by i + 1: the "
                            "divisors, one per row, were laid along the columns. A 1-D array of counts does this, "
                            "and so does a row sum that dropped its summed axis.",
}

NUDGES = {
    "normalised-by-column": "Print the shape of what you divide by: one divisor per row lines up with the rows "
                            "only as a column, of shape (n, 1).",
}
