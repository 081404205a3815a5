"""Lesson 01, one vector through one matrix: project, and compose (two projections in a row are one)."""
import numpy as np

import attnlib as at
from .probes import features, rand
from .spec import Exercise, Probe


# project and compose: the order of a product's operands, written once --------------------------------------------

def project_steps(x, W, *, c):
    """x' = x @ W, (d_out,)."""
    return c.step("product", right=lambda: x @ W, weights_transposed=lambda: W @ x,
                  sum_skips_first=lambda: x[1:] @ W[1:], sum_stops_short=lambda: x[:-1] @ W[:-1],
                  products_not_summed=lambda: x[:, None] * W, sum_wrong_axis=lambda: (x[:, None] * W).sum(axis=1),
                  mean_instead_of_sum=lambda: x @ W / len(x))


def compose(W1, W2):
    """Reference: the one matrix W (d_in, d_out) with x @ W1 @ W2 == x @ W for every x."""
    return W1 @ W2  # (d_in, d_mid) @ (d_mid, d_out) -> (d_in, d_out)


def compose_steps(W1, W2, *, c):
    """W = W1 @ W2: first W1, then W2."""
    return c.step("product", right=lambda: W1 @ W2, compose_order_swapped=lambda: W2 @ W1,
                  compose_elementwise=lambda: W1 * W2, compose_added=lambda: W1 + W2,
                  output_transposed=lambda: (W1 @ W2).T, sum_stops_short=lambda: W1[:, :-1] @ W2[:-1],
                  sum_skips_first=lambda: W1[:, 1:] @ W2[1:],
                  weights_transposed=lambda: W1 @ W2.T, weights_transposed__both=lambda: W1.T @ W2.T)


CHOICES = {
    "product": "Write the shape of each operand and of the result, in the order you multiply: a row vector times "
               "W, then the next matrix.",
}


def _pair(seed, d_in, d_mid, d_out, dtype=float):
    return Probe((rand(seed, d_in, d_mid).astype(dtype), rand(seed + 1, d_mid, d_out).astype(dtype)),
                 names=("W1", "W2"), cols=features(d_out))


EXERCISES = [
    Exercise(
        name="project",
        reference=at.project,
        probes=[Probe((rand(1, 4), rand(2, 4, 3)), names=("x", "W"), cols=features(3)),
                Probe((rand(3, 2), rand(4, 2, 5)), names=("x", "W"), cols=features(5)),
                Probe((rand(5, 3), rand(6, 3, 3)), names=("x", "W"), cols=features(3)),
                Probe((rand(7, 1), rand(8, 1, 4)), names=("x", "W"), cols=features(4))],  # d_in = 1
        pipeline=project_steps,
        verified="x @ W for three (x, W) pairs, square and non-square",
        hint1="A projection makes each output feature a weighted sum of the input features; the weights of "
              "output feature j are the entries of column j of W.",
        hint2="Look at the shapes: x has d_in entries and W is (d_in, d_out), so the sum runs over the first "
              "axis of W and leaves d_out numbers.",
        formula="x' = x @ W, i.e. x'[j] = sum over i of x[i] * W[i, j]",
    ),
    Exercise(
        name="compose",
        uses=("project",),
        reference=compose,
        probes=[_pair(100, 4, 3, 5), _pair(102, 3, 3, 3), _pair(104, 2, 6, 2), _pair(106, 5, 1, 3),
                _pair(108, 4, 4, 4, np.float32), _pair(110, 3, 5, 3)],
        pipeline=compose_steps,
        verified="one (d_in, d_out) matrix equal to W1 then W2, for square, non-square, rank-1 and float32 pairs",
        hint1="Applying W1 and then W2 to a row vector is linear in x, so a single matrix does both steps; "
              "its column j says how output feature j is built from the input features.",
        hint2="Follow the shapes: x (d_in,) meets W1 first, and its result (d_mid,) meets W2; the matrix you "
              "return must accept d_in features and give d_out, summing over the d_mid middle features.",
        formula="W = W1 @ W2, since (x @ W1) @ W2 = x @ (W1 @ W2)",
    ),
]


DIAGNOSES = {
    "sum-stops-short": "The sum over the inner index stops one short: the last of the features it runs over never "
                       "contributes to the product.",
    "sum-skips-first": "The sum over the inner index starts at 1: the first of the features it runs over (index 0) "
                       "never contributes to the product.",
    "compose-order-swapped": "The two matrices were multiplied in the opposite order: your product applies W2 to the "
                             "row vector before W1.",
    "compose-elementwise": "The matrices were multiplied entry by entry, so nothing sums over the middle features, as "
                           "chaining two projections does.",
    "compose-added": "The two matrices were added, which applies both to the same x side by side and sums the results, "
                     "instead of one projection after the other.",
}
