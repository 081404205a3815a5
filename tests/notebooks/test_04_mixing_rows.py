"""Notebook 04 (mixing rows): the claims its text makes.

The general claims and the answers hidden in the "Check your intuition" cells are recomputed here with
plain numpy instead of the notebook's own code.
"""
import numpy as np


def test_04_causal_average_leaves_the_past_alone():
    rng = np.random.default_rng(0)
    V = rng.standard_normal((6, 4))
    mixed = np.array([V[: i + 1].mean(axis=0) for i in range(6)])
    V2 = V.copy()
    V2[2] += 1.0  # edit position 2 (question 4)
    mixed2 = np.array([V2[: i + 1].mean(axis=0) for i in range(6)])
    changed = ~np.all(np.isclose(mixed, mixed2), axis=1)
    assert changed.tolist() == [False, False, True, True, True, True]
    assert np.array_equal(mixed[0], V[0])


def test_04_answers_uniform_weights_and_row_sums():
    import attnlib as at
    A = at.uniform_causal_weights(100)
    assert np.allclose(A[-1], 0.01)  # question 2: 1/100 each
    V = np.random.default_rng(1).standard_normal((4, 3))
    w = np.array([0.5, 0.5, 0.5, 0.5])  # a row summing to 2 gives twice an average (question 3)
    assert np.allclose(w @ V, 2 * V.mean(axis=0))
