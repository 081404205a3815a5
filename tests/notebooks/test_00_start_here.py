"""Notebook 00 (start here): the course map, the names table and the claims its text makes.

The course map must link every notebook and exercise that exists and group them as its prose says, and the
names table must say where each name is first built. The answers hidden in the "Check your intuition" cells
are recomputed here with plain numpy rather than with the notebook's code. The notebook rules are checked in
tests/course/test_notebook_rules.py.
"""
import re

from attnlib.course import EXERCISE_LESSONS, STEMS
from helpers import ROOT
from helpers import load_notebook as load


# ---------------------------------------------------------------------------
# the course map

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
    words = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
             "ten": 10, "eleven": 11, "twelve": 12}
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


def test_00_credits_the_essay_the_course_follows():
    text = "\n".join(c.source for c in load("00_start_here").cells if c.cell_type == "markdown")
    assert "interactive walkthrough by Lisa Dlima" in text
