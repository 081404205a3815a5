"""What an exercise check is made of: probes, a reference, known-wrong variants, hints."""
from dataclasses import dataclass, field

import numpy as np

WORDS = "the cat sat on the mat and then it slept all day".split()


@dataclass
class Probe:
    """One call of the learner's function: args, kwargs and labels for the report grid."""
    args: tuple
    kwargs: dict = field(default_factory=dict)
    names: tuple = ()        # argument names, for messages
    rows: list = None        # row labels of the expected output (tokens)
    cols: list = None        # column labels

    def describe(self):
        parts = []
        for name, a in zip(self.names, self.args):
            parts.append(f"{name} {_shape(a)}")
        parts += [f"{k}={v!r}" for k, v in self.kwargs.items()]
        return ", ".join(parts)


def _shape(a):
    if isinstance(a, np.ndarray):
        return f"{a.shape}" if a.ndim else f"= {a.item()!r}"
    if isinstance(a, dict):
        return f"(dict of {len(a)})"
    if isinstance(a, (list, tuple)):
        return f"(list of {len(a)})"
    return f"= {a!r}"


@dataclass
class Exercise:
    name: str
    signature: str
    reference: object        # callable giving the expected output
    probes: list
    wrong: list              # [(diagnosis id, callable)], most specific first
    verified: str            # one-line summary shown on a pass
    hint1: str
    hint2: str
    formula: str             # the equation, shown with the expected values


def rand(seed, *shape, scale=1.0):
    return np.random.default_rng(seed).normal(0.0, scale, shape)


def tokens(n, offset=0):
    return WORDS[offset:offset + n]


def features(d, prefix="d"):
    return [f"{prefix}{j}" for j in range(d)]
