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


def test_00_map_prose_accounts_for_every_notebook():
    """'The first eight notebooks, 00 to 07, ... The next seven, 08 to 14, ... The last one, 15': the groups
    the text names must be consecutive, cover every lesson once, and hold as many notebooks as it says."""
    cell = next(c.source for c in load("00_start_here").cells
                if c.cell_type == "markdown" and c.source.startswith("## The course map"))
    prose = " ".join(line for line in cell.splitlines() if not line.startswith("|"))
    words = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9}
    groups = re.findall(r"(?:first|next|last) (\w+)(?: notebooks)?, (\d\d)(?: to (\d\d))?,", prose)
    assert len(groups) >= 2, f"no groups of notebooks found in: {prose[:200]}"
    covered = []
    for count, first, last in groups:
        numbers = list(range(int(first), int(last or first) + 1))
        assert words[count] == len(numbers), f"'{count}' notebooks, but {first} to {last or first} is {len(numbers)}"
        covered += numbers
    assert covered == [int(stem[:2]) for stem in STEMS]


def assigns(stem, name):
    """True when a code cell of notebooks/{stem} assigns the name (alone or in a tuple: `Q, K = ...`)."""
    pattern = re.compile(rf"^\s*(?:\w+\s*,\s*)*{name}\s*(?:,\s*\w+\s*)*=(?!=)", re.M)
    return any(pattern.search(c.source) for c in load(stem).cells if c.cell_type == "code")


def test_00_names_table_says_where_each_name_is_first_built():
    cell = next(c.source for c in load("00_start_here").cells
                if c.cell_type == "markdown" and c.source.startswith("## The names"))
    rows = re.findall(r"^\| (\$.+?\$) \|.*\| (\d\d)(?:–\d\d)? \|$", cell, re.M)
    assert len(rows) == 7, rows
    lessons = {stem[:2]: stem for stem in STEMS}
    for names, first in rows:
        for name in re.findall(r"\$(\w)\$", names.replace("$, $", "$ $")):
            if name == "W":
                continue  # W carries subscripts in the code (Wq, Wv): 01 names it W, checked by the map's idea
            assert assigns(lessons[first], name), f"{name}: said to be first seen in {first}, which never builds it"
            earlier = [stem for stem in STEMS[1:] if stem[:2] < first and assigns(stem, name)]
            assert not earlier, f"{name}: said to be first seen in {first}, but {earlier} already build it"


def test_00_05_06_07_the_scale_enters_where_00_says():
    """00: notebooks 05 and 06 call the undivided scores S = Q K^T; from 07 on S is divided by sqrt(d_head)."""
    def s_lines(stem):
        return [line for c in load(stem).cells if c.cell_type == "code"
                for line in c.source.splitlines() if re.match(r"\s*S\s*=(?!=)", line)]
    for stem in ("05_learned_mixing", "06_mask_and_softmax"):
        assert s_lines(stem) and all("sqrt" not in line for line in s_lines(stem)), s_lines(stem)
    assert s_lines("07_attention_module") and all("sqrt" in line for line in s_lines("07_attention_module"))


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


def test_02_03_the_batch_explorer_opens_with_nothing_edited():
    from attnlib.viewers import widgets
    X = np.round(np.random.default_rng(2).uniform(0.0, 1.0, size=(4, 6)), 1)
    ex = widgets.batch_explorer(X, np.eye(6), tokens=[f"row {i}" for i in range(4)])
    assert (ex.state["row"], ex.state["col"], ex.state["changed"]) == (1, 0, [])  # "opens on row 1, column 0"
    assert "You edited" not in ex.views["note"].value  # no report of an edit nobody made
    ex.controls["value"].value = float(X[1, 0]) + 0.5
    assert ex.state["changed"] == [1] and "You edited" in ex.views["note"].value
