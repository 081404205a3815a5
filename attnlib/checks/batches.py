"""Lesson 02, many inputs at once: project_rows."""
import attnlib as al
from .probes import features, rand, tokens
from .properties import argument_mixups
from .spec import Exercise, Probe


def x_times_w_transposed(X, W):
    return X @ W.T


def w_times_x_transposed(X, W):
    return (W @ X.T).T


EXERCISES = [
    Exercise(
        name="project_rows",
        reference=al.project_rows,
        probes=[Probe((rand(7, 5, 4), rand(8, 4, 3)), names=("X", "W"), rows=tokens(5), cols=features(3)),
                Probe((rand(9, 3, 2), rand(10, 2, 6)), names=("X", "W"), rows=tokens(3), cols=features(6)),
                Probe((rand(11, 4, 4), rand(12, 4, 4)), names=("X", "W"), rows=tokens(4), cols=features(4))],
        mistakes=[("weights-transposed", x_times_w_transposed),
                  ("weights-transposed", w_times_x_transposed)],
        verified="X @ W for three batches, each row projected on its own",
        hint1="Stack the inputs as the rows of X: every row is projected by the same W.",
        hint2="One matrix product does all rows at once: X (n, d_in) @ W (d_in, d_out).",
        formula="X' = X @ W",
    ),
]


FINDINGS = {"project_rows": [argument_mixups(al.project_rows, ("X", "W"))]}
