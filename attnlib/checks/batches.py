"""Lesson 02, many inputs at once: project_rows, and matmul_cost (what one product costs)."""
import numpy as np

import attnlib as at
from .probes import features, rand
from .spec import Exercise, Probe


# project_rows and matmul_cost ----------------------------------------------------------------------------------

def project_rows_steps(X, W, *, c):
    """X' = X @ W: every row projected by the same W."""
    return c.step("rows product", right=lambda: X @ W, weights_transposed=lambda: X @ W.T,
                  weights_transposed__columns=lambda: (W @ X.T).T,
                  weights_transposed__einsum=lambda: np.einsum("ni,oi->no", X, W),  # a 1-wide W broadcasts
                  sum_wrong_axis=lambda: (X[:, :, None] * W).sum(axis=2),
                  rows_counted_from_w=lambda: np.array([X[i] @ W for i in range(len(W))]),  # d_in rows, not n
                  rows_counted_from_w__columns=lambda: np.array([X[i] @ W for i in range(W.shape[1])]),
                  buffer_shaped_like_x=lambda: _written_into(np.zeros_like(X), X @ W))


def _written_into(out, Y):
    """Y written into a buffer made beforehand (numpy broadcasts it in, or raises when it cannot)."""
    out[:] = Y
    return out


def matmul_cost(n, d_in, d_out):
    """Reference: scalar multiplications in X (n, d_in) @ W (d_in, d_out), an exact Python int."""
    return int(n) * int(d_in) * int(d_out)  # n * d_out dot products of length d_in


def matmul_cost_steps(n, d_in, d_out, *, c):
    """n * d_out entries, d_in multiplications each, counted in Python ints."""
    entries = c("entries", right=int(n) * int(d_out), cost_one_row=int(d_out))
    each = c("per entry", right=int(d_in), cost_counts_outputs=1, cost_counts_additions=2 * int(d_in),
             cost_counts_only_additions=int(d_in) - 1, cost_counts_additions__exact=2 * int(d_in) - 1)
    return c.step("arithmetic", right=lambda: entries * each, count_rounded=lambda: int(float(entries) * float(each)),
                  integer_overflow=lambda: int(np.int32(n) * np.int32(d_in) * np.int32(d_out)),
                  cost_size_used_twice=lambda: int(n) * int(d_in) * int(d_in))


CHOICES = {
    "rows product": "Write the shapes: X is (n, d_in) and W is (d_in, d_out); the result has one row per input row.",
    "entries": "Count the numbers the result holds: its shape gives them.",
    "per entry": "Count the multiplications in one entry: a dot product as long as the input rows.",
    "arithmetic": "Look at the type of the numbers you multiply: Python ints stay exact however large.",
}


def _cost_probe(n, d_in, d_out):
    return Probe((n, d_in, d_out), names=("n", "d_in", "d_out"))


EXERCISES = [
    Exercise(
        name="project_rows",
        reference=at.project_rows,
        probes=[Probe((rand(7, 5, 4), rand(8, 4, 3)), names=("X", "W"), cols=features(3)),
                Probe((rand(9, 3, 2), rand(10, 2, 6)), names=("X", "W"), cols=features(6)),
                Probe((rand(11, 4, 4), rand(12, 4, 4)), names=("X", "W"), cols=features(4)),
                Probe((rand(13, 1, 3), rand(14, 3, 1)), names=("X", "W"), cols=features(1)),  # one row, one column
                Probe((rand(15, 2, 3, scale=1e4), rand(16, 3, 2, scale=1e3)), names=("X", "W"), cols=features(2))],
        pipeline=project_rows_steps,
        verified="X @ W for four batches, each row projected on its own, down to one row and one output",
        hint1="Stack the inputs as the rows of X: every row is projected by the same W.",
        hint2="One matrix product handles every row at once: X is (n, d_in) and W is (d_in, d_out), so the "
              "inner sizes meet and the result has one row per input row.",
        formula="X' = X @ W",
    ),
    Exercise(
        name="matmul_cost",
        returns=int,
        reference=matmul_cost,
        probes=[_cost_probe(5, 4, 3), _cost_probe(1, 1, 1), _cost_probe(3, 7, 2), _cost_probe(6, 1, 9),
                _cost_probe(1024, 768, 3072),                       # a GPT-2 MLP layer: past int32
                _cost_probe(10**6 + 1, 10**5 + 3, 10**5 + 7)],      # past 2**53: floats round it
        pipeline=matmul_cost_steps,
        verified="an exact int for small sizes, a GPT-2 layer past int32 and a count past 2**53",
        hint1="Each entry of the result is the dot product of one row of X with one column of W: "
              "one multiplication per input feature. Count the entries, then the multiplications in each.",
        hint2="Count in two steps: how many numbers the result holds (its shape), and how long each dot "
              "product is. Keep the count a Python int so that huge sizes stay exact.",
        formula="cost = n * d_in * d_out  (n * d_out entries, d_in multiplications each)",
    ),
]


DIAGNOSES = {
    "buffer-shaped-like-x": "The result was written into an array made like X, (n, d_in), where it is (n, d_out): "
                            "it only fits when W is square (and an integer X makes it an integer array).",
    "rows-counted-from-w": "Your loop over the rows of X runs once per row (or column) of W, d_in (or d_out) times, "
                           "instead of once per row of X: the result has that many rows (or indexes past X's last "
                           "row).",
    "cost-counts-only-additions": "You counted the additions, d_in - 1 per output entry, instead of the "
                                  "multiplications.",
    "cost-size-used-twice": "The count uses d_in twice, as if W were square.",
    "cost-counts-outputs": "You counted the entries of the result (n times d_out), not the multiplications each of "
                           "them takes.",
    "cost-counts-additions": "You counted the additions as well (two operations per term, the usual FLOP "
                             "count). This exercise counts the multiplications only.",
    "cost-one-row": "You counted the multiplications for one row of X only, not for all n rows.",
    "count-rounded": "The count went through floating point, which holds whole numbers exactly only up to 2 to the "
                     "power 53 (about 9e15); larger counts come back rounded.",
}
