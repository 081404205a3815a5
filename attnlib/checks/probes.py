"""Probe builders shared by the lessons: seeded random arrays and the labels of the report grid."""
import numpy as np

from .spec import Probe

WORDS = "the cat sat on the mat and then it slept all day".split()


def rand(seed, *shape, scale=1.0):
    return np.random.default_rng(seed).normal(0.0, scale, shape)


def tokens(n, offset=0):
    """Labels: n words of the running example, starting at `offset`. Only for probes whose rows stand for a sentence's
    tokens (its ids, its words, or its positions 0..n-1); a probe of random numbers leaves its rows unlabelled, and the
    grid numbers them."""
    return WORDS[offset:offset + n]


def features(d, prefix="d"):
    """Column labels d0, d1, ..."""
    return [f"{prefix}{j}" for j in range(d)]


def qk_probes(seed):
    """Probes for (Q, K, causal, scale): n_q < n_k != d, a square one, causal=False, scale=False, huge scores."""
    return [
        Probe((rand(seed, 3, 4), rand(seed + 1, 5, 4)), names=("Q", "K")),
        Probe((rand(seed + 2, 4, 4), rand(seed + 3, 4, 4)), names=("Q", "K")),
        Probe((rand(seed + 4, 5, 2), rand(seed + 5, 3, 2)), {"causal": False}, names=("Q", "K")),
        Probe((rand(seed + 6, 3, 4), rand(seed + 7, 5, 4)), {"scale": False}, names=("Q", "K")),
        Probe((rand(seed + 8, 3, 4, scale=60.0), rand(seed + 9, 5, 4, scale=60.0)), names=("Q", "K")),
    ]
