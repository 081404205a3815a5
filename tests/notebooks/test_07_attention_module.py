"""Notebook 07 (the attention module): the claims its text makes.

The general claims and the answers hidden in the "Check your intuition" cells are recomputed here with
plain numpy instead of the notebook's own code.
"""
import math

import numpy as np

from claims import causal_scores
from helpers import softmax_rows


def test_07_rows_of_o_are_convex_mixtures_of_v():
    rng = np.random.default_rng(7)
    n = 6
    V = rng.standard_normal((n, 4))
    V[:, 1] = -np.abs(V[:, 1]) - 0.1  # a column that is negative everywhere (question 2)
    A = softmax_rows(causal_scores(3.0 * rng.standard_normal((n, n))))
    O = A @ V
    assert np.all(O[:, 1] < 0)
    for i in range(n):
        assert np.all(V[: i + 1].min(axis=0) - 1e-12 <= O[i])
        assert np.all(O[i] <= V[: i + 1].max(axis=0) + 1e-12)
    assert np.allclose(O[0], V[0])  # question 3


def test_07_tiny_weights_give_the_uniform_average():
    import attnlib as at
    from attnlib.data import essay_example
    ex = essay_example()
    X = ex["X"]
    A = at.attention_weights(X @ (0.01 * ex["Wq"]), X @ (0.01 * ex["Wk"]))  # question 4
    uniform = np.tril(np.ones((6, 6))) / np.arange(1, 7)[:, None]
    assert np.abs(A - uniform).max() < 1e-3


def test_07_scores_are_quadratic_in_x():
    rng = np.random.default_rng(9)
    X, X2 = rng.standard_normal((2, 5, 6))
    Wq, Wk = rng.standard_normal((2, 6, 4))

    def scores(Z):
        return (Z @ Wq) @ (Z @ Wk).T

    assert np.allclose(scores(2 * X), 4 * scores(X))  # doubling X quadruples every score
    assert not np.allclose(scores(X + X2), scores(X) + scores(X2))


def test_07_attention_is_not_linear_but_fixed_mixing_is():
    import attnlib as at
    rng = np.random.default_rng(8)
    X, X2 = rng.uniform(0, 1, (2, 5, 6))
    Wq, Wk, Wv = rng.uniform(-1, 1, (3, 6, 6))
    U = np.tril(np.ones((5, 5))) / np.arange(1, 6)[:, None]
    assert np.allclose(U @ (X + X2) @ Wv, U @ X @ Wv + U @ X2 @ Wv)
    f = lambda Z: at.self_attention(Z, Wq, Wk, Wv)
    assert not np.allclose(f(2 * X), 2 * f(X))
    assert not np.allclose(f(X + X2), f(X) + f(X2))


def test_07_online_softmax_over_key_blocks_gives_the_full_softmax():
    """The running max and running sums, key block by key block, give softmax(S) V for every row, any block size."""
    rng = np.random.default_rng(12)
    n, d = 7, 4
    Q, K, V = rng.standard_normal((3, n, d))
    for scale, block in ((1.0, 1), (1.0, 3), (1.0, 7), (2000.0, 2)):  # 2000: scores far beyond exp's range
        S = causal_scores(scale * Q @ K.T / math.sqrt(d))
        with np.errstate(over="ignore", under="ignore", invalid="ignore"):
            naive = np.exp(S) / np.exp(S).sum(axis=1, keepdims=True)  # no max subtracted
        if scale > 1:
            assert not np.all(np.isfinite(naive @ V))
        for i in range(n):
            m, l, acc = -np.inf, 0.0, np.zeros(d)
            for start in range(0, i + 1, block):  # only the keys row i may see
                s = S[i, start:min(start + block, i + 1)]
                m_new = max(m, s.max())
                l = l * math.exp(m - m_new) + np.exp(s - m_new).sum()
                acc = acc * math.exp(m - m_new) + np.exp(s - m_new) @ V[start:start + len(s)]
                m = m_new
            assert np.allclose(acc / l, softmax_rows(S[i]) @ V)
