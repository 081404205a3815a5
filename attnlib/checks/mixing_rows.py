"""Lesson 04, mixing rows: uniform_causal_weights and causal_average."""
import numpy as np

import attnlib as at
from .probes import features, rand, tokens
from .properties import causality, count_factor, counts_along_columns, failing, name_pattern, row_factor
from .spec import Exercise, Probe


# uniform_causal_weights and causal_average: which rows count, and what they are divided by ----------------------

def uniform_weights_steps(n, *, c):
    """A (n, n): row i gives 1/(i+1) to columns 0..i."""
    i, j = np.indices((n, n))
    keep, own = c("rows mixed", right=(j <= i, i + 1.0), mask_hides_past=(j >= i, n - i * 1.0),
                  mask_hides_past__counted_from_the_start=(j >= i, i + 1.0), mask_hides_diagonal=(j < i, i + 1.0),
                  mask_hides_diagonal__counted=(j < i, i * 1.0))  # the rows kept, and the count of each row
    keep = keep * 1.0
    count = c.step("divided by", right=lambda: own, weights_not_normalised=lambda: 1.0,
                   normalised_by_n=lambda: float(n), normalised_by_column=lambda: np.arange(1, n + 1),
                   off_by_one_count=lambda: own + 1, normalised_by_column_sums=lambda: keep.sum(axis=0, keepdims=True),
                   normalised_by_column_counts=lambda: keep.sum(axis=0)[:, None])
    A = c.step("fraction", right=lambda: keep / count, weights_floor_division=lambda: keep // count)
    return c("layout", right=A, output_transposed=A.T)


def _halved_running(V):
    """Each row the mean of the previous row's answer and its own row: (out[i-1] + V[i]) / 2."""
    out = np.array(V, dtype=float)
    for i in range(1, len(V)):
        out[i] = (out[i - 1] + V[i]) / 2
    return out


def causal_average_steps(V, *, c):
    """Row i = the mean of rows 0..i of V."""
    n, d = V.shape
    total, count = c.step("rows averaged", right=lambda: (np.cumsum(V, axis=0), np.arange(1, n + 1)[:, None]),
                          average_over_all_rows=lambda: (np.broadcast_to(V.sum(axis=0), V.shape), n),
                          mask_hides_past=lambda: (np.cumsum(V[::-1], axis=0)[::-1], np.arange(n, 0, -1)[:, None]),
                          average_over_columns=lambda: (np.cumsum(V, axis=1), np.arange(1, d + 1)),
                          average_over_columns__rows=lambda: (np.cumsum(V, axis=1), np.arange(1, n + 1)[:, None]),
                          average_over_every_number=lambda: (np.cumsum(V.sum(axis=1))[:, None] + 0.0 * V,
                                                             d * np.arange(1, n + 1)[:, None]),
                          running_mean_flattened=lambda: (np.cumsum(V), np.arange(1, V.size + 1)),
                          running_mean_of_means=lambda: (_halved_running(V), 1.0))
    return total / c("count", right=count, weights_not_normalised=1.0, off_by_one_count=np.arange(n)[:, None],
                     off_by_one_count__clamped=np.maximum(np.arange(n), 1)[:, None],
                     off_by_one_count__over=np.arange(2, n + 2)[:, None],
                     normalised_by_n=float(n))


CHOICES = {
    "rows mixed": "Look at which columns row i keeps: the token itself and everything before it.",
    "divided by": "Add up one row of your weights: each row must sum to 1, over the i + 1 tokens it mixes.",
    "fraction": "Look at the dtype of your ones and the division you use: 1 over 3 must stay a third.",
    "layout": "Look at which axis is the query: rows are the tokens that mix, columns the tokens they read.",
    "rows averaged": "Look at which rows row i adds up, and along which axis: rows 0..i, down the token axis.",
    "count": "Look at what row i is divided by: the number of rows it adds up, i + 1.",
}


EXERCISES = [
    Exercise(
        name="uniform_causal_weights",
        reference=at.uniform_causal_weights,
        probes=[Probe((n,), names=("n",), rows=tokens(n), cols=tokens(n)) for n in (4, 6, 3, 1)],
        pipeline=uniform_weights_steps,
        verified="rows of 1/(i+1) on columns 0..i for n = 4, 6, 3 and 1",
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
                Probe((rand(53, 16, 3),), names=("V",), cols=features(3, "v")),
                Probe((rand(54, 1, 4),), names=("V",), cols=features(4, "v"))],  # one row: still a matrix
        pipeline=causal_average_steps,
        verified="row i = mean of rows 0..i on five V of different shapes, from 1 row to 16",
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
    "running-mean-of-means": "Each row is the mean of the previous row's answer and its own row, which halves the "
                             "weight of every older row at each step. Row i is the plain mean of rows 0..i, each "
                             "weighing 1/(i+1).",
    "weights-floor-division": "The weights were made by floor division of integers, which rounds every 1/(i+1) "
                              "below 1 down to 0: only row 0 keeps its weight. A true division in floats keeps the "
                              "fractions.",
    "running-mean-flattened": "The running sum ran over V flattened into one long vector (a cumulative sum with no "
                              "axis), mixing the features of different rows. It runs down the token axis: one mean "
                              "per row and feature, the shape of V.",
    "normalised-by-column": "Entry (i, j) was divided by j + 1, the count of row j, instead of by i + 1: the "
                            "divisors, one per row, were laid along the columns. A 1-D array of counts does this, "
                            "and so does a row sum that dropped its summed axis.",
    "normalised-by-column-counts": "Row i was divided by n - i, the count of column i, instead of by i + 1, the "
                                   "count of row i: the counts were summed down the columns.",
    "normalised-by-column-sums": "Each column of the triangle was divided by its own sum, so the columns sum to 1; "
                                 "the weights of a row sum to 1: each row is divided by its own count.",
}
