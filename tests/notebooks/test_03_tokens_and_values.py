"""Notebook 03 (tokens and values): the claims its text makes.

The answers hidden in the "Check your intuition" cells and the lookup of its exercise are recomputed here
with plain numpy rather than with the notebook's code.
"""
import numpy as np

from helpers import load_notebook as load


def test_03_answers():
    from attnlib.data import word_vectors
    X = word_vectors("a dog saw a dog")
    equal = {(i, j) for i in range(5) for j in range(i + 1, 5) if np.array_equal(X[i], X[j])}
    assert X.shape[0] == 5 and equal == {(0, 3), (1, 4)}
    Wv = np.random.default_rng(2).normal(size=(6, 6))
    V = word_vectors("the cat sat on the mat") @ Wv
    V_swapped = word_vectors("the mat sat on the cat") @ Wv
    assert np.allclose(V_swapped, V[[0, 5, 2, 3, 4, 1]])
    assert np.allclose(np.full(6, 1 / 6) @ V, V.mean(axis=0))


def test_03_exercise_a_lookup_is_a_product():
    """Exercise 03: one_hot(ids, vocab_size) @ table gives table[ids], shape (n, d_model)."""
    vocab_size, d_model = 8, 5
    table = np.random.default_rng(4).normal(size=(vocab_size, d_model))
    ids = np.array([6, 1, 5, 4, 6, 3])  # "the cat sat on the mat" in a sorted 8-word vocabulary
    one_hot = np.array([[1.0 if column == i else 0.0 for column in range(vocab_size)] for i in ids])
    assert (one_hot @ table).shape == (len(ids), d_model)
    assert np.array_equal(one_hot @ table, table[ids])
    text = next(c.source for c in load("03_tokens_and_values", "solutions").cells
                if c.cell_type == "markdown" and "one_hot(ids, vocab_size) @ table" in c.source)
    assert "(vocab_size, d_model)" in text and "one_hot(ids, V)" not in text
