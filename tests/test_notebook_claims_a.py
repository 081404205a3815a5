"""Notebooks 00-03: the course map, and the claims their text makes.

The notebook rules are checked in test_notebook_rules.py. These tests check that
the course map in 00 links every notebook and exercise that exists, and that the
answers hidden in the "Check your intuition" cells (and the PyTorch remark in 01) are true, each
recomputed here with plain numpy or PyTorch rather than with the notebook's code.
"""
import re

import numpy as np
import pytest

from attnlib.course import EXERCISE_LESSONS, STEMS
from helpers import ROOT, need
from helpers import load_notebook as load


# ---------------------------------------------------------------------------
# the course map in 00

def map_links():
    table = next(c.source for c in load("00_start_here").cells
                 if c.cell_type == "markdown" and c.source.startswith("## The course map"))
    notebooks = re.findall(r"\]\((\d\d_\w+)\.ipynb\)", table)
    exercises = re.findall(r"\]\(\.\./exercises/(\d\d_\w+)\.ipynb\)", table)
    return notebooks, exercises


def test_course_map_lists_the_lessons_in_course_order():
    notebooks, exercises = map_links()
    assert notebooks[:len(STEMS)] == list(STEMS)
    assert exercises == [les.stem for les in EXERCISE_LESSONS]
    assert set(exercises) <= set(notebooks), "each exercise notebook shares its narrative notebook's name"


def test_course_map_links_every_notebook_and_exercise_on_disk():
    notebooks, exercises = map_links()
    for folder, linked in (("notebooks", notebooks), ("exercises", exercises)):
        on_disk = sorted(p.stem for p in (ROOT / folder).glob("[0-9][0-9]_*.ipynb"))
        missing = sorted(set(on_disk) - set(linked))
        assert not missing, f"{folder}/ has notebooks the course map does not link: {missing}"


# ---------------------------------------------------------------------------
# the hidden answers, recomputed independently

def test_00_answers_shapes_for_the_cat_sat():
    from attnlib.data import essay_example
    ex = essay_example("the cat sat")
    X = ex["X"]
    Q, K, V = X @ ex["Wq"], X @ ex["Wk"], X @ ex["Wv"]
    S = Q @ K.T  # one score per (token, token) pair; A has the same shape
    assert X.shape == (3, 6) and V.shape == (3, 6) and S.shape == (3, 3)


def test_01_answers():
    W = np.zeros((300, 50))
    assert (np.ones(300) @ W).shape == (50,) and W.size == 15_000
    x, W = np.arange(1.0, 7.0), np.arange(36.0).reshape(6, 6)
    x[2] = 0.0
    W2 = W.copy()
    W2[2] = 1e6  # the row that meets the zero entry no longer matters
    assert np.array_equal(x @ W, x @ W2)
    with pytest.raises(ValueError):
        np.zeros((128, 256)) @ np.zeros(128)


def test_01_answer_4_products_of_inputs_need_two_projections_multiplied():
    rng = np.random.default_rng(3)
    x = rng.uniform(-1, 1, (200, 2))
    target = x[:, 0] * x[:, 1]
    design = np.column_stack([x, np.ones(200)])  # the best linear (even affine) fit of x0 * x1
    residual = target - design @ np.linalg.lstsq(design, target, rcond=None)[0]
    assert np.abs(residual).max() > 0.5
    a, b = np.array([1.0, 0.0]), np.array([0.0, 1.0])  # two projections of the same input, multiplied
    assert np.allclose((x @ a) * (x @ b), target)


def test_00_credits_the_essay_the_course_follows():
    text = "\n".join(c.source for c in load("00_start_here").cells if c.cell_type == "markdown")
    assert "interactive walkthrough by Lisa Dlima" in text


def test_01_pytorch_linear_stores_the_transposed_matrix():
    torch = need("torch", "the remark about nn.Linear in notebook 01")
    rng = np.random.default_rng(0)
    x, W = rng.normal(size=(3, 5)), rng.normal(size=(5, 4))  # rows are inputs, W (d_in, d_out)
    lin = torch.nn.Linear(5, 4, bias=False).double()
    assert tuple(lin.weight.shape) == (4, 5)  # (d_out, d_in)
    with torch.no_grad():
        lin.weight.copy_(torch.from_numpy(W.T))
        y = lin(torch.from_numpy(x)).numpy()
    assert np.allclose(y, x @ W)


def test_02_answers():
    rng = np.random.default_rng(1)
    X, W = rng.normal(size=(4, 6)), rng.normal(size=(6, 3))
    X2 = X.copy()
    X2[0] *= 2
    assert np.allclose((X2 @ W)[0], 2 * (X @ W)[0]) and np.array_equal((X2 @ W)[1], (X @ W)[1])
    assert (np.zeros((1000, 128)) @ np.zeros((128, 256))).size == 256_000
    order = [2, 0, 3, 1]  # question 4: shuffled rows in, the same rows shuffled out
    assert np.array_equal(X[order] @ W, (X @ W)[order])


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


def test_02_03_the_batch_explorer_opens_with_nothing_edited():
    from attnlib import widgets
    X = np.round(np.random.default_rng(2).uniform(0.0, 1.0, size=(4, 6)), 1)
    ex = widgets.batch_explorer(X, np.eye(6), tokens=[f"row {i}" for i in range(4)])
    assert (ex.state["row"], ex.state["col"], ex.state["changed"]) == (1, 0, [])  # "opens on row 1, column 0"
    assert "You edited" not in ex.views["note"].value  # no report of an edit nobody made
    ex.controls["value"].value = float(X[1, 0]) + 0.5
    assert ex.state["changed"] == [1] and "You edited" in ex.views["note"].value
