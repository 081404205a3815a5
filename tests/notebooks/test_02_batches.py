"""Notebook 02 (many inputs at once): the claims its text makes.

The answers hidden in the "Check your intuition" cells are recomputed here with plain numpy rather than with
the notebook's code; the batch explorer (opened in 02 and 03) is driven as a click would.
"""
import numpy as np


def test_02_answers():
    rng = np.random.default_rng(1)
    X, W = rng.normal(size=(4, 6)), rng.normal(size=(6, 3))
    X2 = X.copy()
    X2[0] *= 2
    assert np.allclose((X2 @ W)[0], 2 * (X @ W)[0]) and np.array_equal((X2 @ W)[1], (X @ W)[1])
    assert (np.zeros((1000, 128)) @ np.zeros((128, 256))).size == 256_000
    order = [2, 0, 3, 1]  # question 4: shuffled rows in, the same rows shuffled out
    assert np.array_equal(X[order] @ W, (X @ W)[order])


def test_02_03_the_batch_explorer_opens_with_nothing_edited():
    from attnlib.viewers import widgets
    X = np.round(np.random.default_rng(2).uniform(0.0, 1.0, size=(4, 6)), 1)
    ex = widgets.batch_explorer(X, np.eye(6), tokens=[f"row {i}" for i in range(4)])
    assert (ex.state["row"], ex.state["col"], ex.state["changed"]) == (1, 0, [])  # "opens on row 1, column 0"
    assert "You edited" not in ex.views["note"].value  # no report of an edit nobody made
    ex.controls["value"].value = float(X[1, 0]) + 0.5
    assert ex.state["changed"] == [1] and "You edited" in ex.views["note"].value
