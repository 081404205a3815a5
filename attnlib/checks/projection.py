"""Lesson 01, one vector through one matrix: project."""
import attnlib as al
from .probes import features, rand
from .properties import intermediates
from .spec import Exercise, Probe


def w_times_x(x, W):
    return W @ x


EXERCISES = [
    Exercise(
        name="project",
        reference=al.project,
        probes=[Probe((rand(1, 4), rand(2, 4, 3)), names=("x", "W"), cols=features(3)),
                Probe((rand(3, 2), rand(4, 2, 5)), names=("x", "W"), cols=features(5)),
                Probe((rand(5, 3), rand(6, 3, 3)), names=("x", "W"), cols=features(3))],
        mistakes=[("weights-transposed", w_times_x)],
        verified="x @ W for three (x, W) pairs, square and non-square",
        hint1="A projection makes each output feature j a weighted sum of the input features, with weights W[:, j].",
        hint2="With a row vector x of shape (d_in,) and W of shape (d_in, d_out), the product is x @ W.",
        formula="x' = x @ W",
    ),
]


FINDINGS = {
    "project": [intermediates(lambda x, W: [
        ("products-not-summed", x[:, None] * W),
        ("sum-wrong-axis", (x[:, None] * W).sum(axis=1)),
        ("mean-instead-of-sum", x @ W / len(x)),
    ])],
}
