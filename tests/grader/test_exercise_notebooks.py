"""Exercise notebooks: generated from solutions/, all solved there, all untouched here, nbgrader-compatible."""
import os
import pathlib
import nbformat
import pytest

from attnlib import checks
from attnlib.course.notebooks import CHECK_CALL, checked_names, exercise_text, how_it_works, make_exercise
from attnlib.course import EXERCISE_LESSONS
from helpers import ROOT, need

STEMS = [les.stem for les in EXERCISE_LESSONS]
SOLUTIONS = [ROOT / "solutions" / f"{s}.ipynb" for s in STEMS]
EXERCISES = [ROOT / "exercises" / f"{s}.ipynb" for s in STEMS]


def run_checks(path):
    """Run a notebook's code cells in this process from the notebook's folder, as Jupyter does (the capstone
    reads its neighbours); return the Report of every check cell."""
    ns, reports, here = {}, [], os.getcwd()
    os.chdir(pathlib.Path(path).parent)
    try:
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type != "code":
                continue
            if CHECK_CALL.search(cell.source):  # a check cell ends with one check(...) expression
                *head, last = cell.source.strip().splitlines()
                exec("\n".join(head), ns)
                reports.append(eval(last, ns))
            else:
                exec(cell.source, ns)
    finally:
        os.chdir(here)
    return reports


def test_one_exercise_notebook_per_lesson_checking_its_names_in_course_order():
    assert all(p.exists() for p in SOLUTIONS + EXERCISES)
    for les, path in zip(EXERCISE_LESSONS, SOLUTIONS):
        assert checked_names(nbformat.read(path, as_version=4)) == list(les.exercises), path.name
    names = [n for les in EXERCISE_LESSONS for n in les.exercises]
    assert sorted(names) == sorted(checks.NAMES)  # each checked exactly once
    assert names.index("softmax") < names.index("attention") < names.index("transformer_block")


def test_check_cells_survive_a_redefined_check():
    """Each check cell imports check itself, so a learner's `check = ...` earlier cannot replace the grader."""
    for path in SOLUTIONS:
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type == "code" and CHECK_CALL.search(cell.source):
                assert cell.source.startswith("from attnlib.checks import check"), (path.name, cell.source)


@pytest.mark.parametrize("path", EXERCISES, ids=STEMS)
def test_exercise_notebooks_ship_without_outputs(path):
    """An untouched stub never shows a stored pass: no code cell carries an output or a run count."""
    for cell in nbformat.read(path, as_version=4).cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, cell.source[:80]


def test_the_shared_intro_lives_in_the_generator_only():
    for sol, ex in zip(SOLUTIONS, EXERCISES):
        assert "**How this works.**" not in sol.read_text(encoding="utf-8")
        first = nbformat.read(ex, as_version=4).cells[0].source
        assert first.endswith(how_it_works(nbformat.read(sol, as_version=4))), ex.name


@pytest.mark.parametrize("path", EXERCISES, ids=STEMS)
def test_exercises_are_exactly_what_the_generator_makes(path):
    assert path.read_text(encoding="utf-8") == exercise_text(ROOT / "solutions" / path.name), \
        "exercises/ is stale: run `make exercises` (python tools/make_exercises.py)"


def test_no_stray_exercise_notebooks():
    assert sorted(p.name for p in (ROOT / "exercises").glob("*.ipynb")) == sorted(p.name for p in EXERCISES)
    assert sorted(p.name for p in (ROOT / "solutions").glob("*.ipynb")) == sorted(p.name for p in SOLUTIONS)


@pytest.mark.parametrize("path", SOLUTIONS, ids=STEMS)
def test_solutions_pass_every_check(path):
    reports = run_checks(path)
    assert reports and all(r.passed for r in reports), [repr(r) for r in reports]


@pytest.mark.parametrize("path", EXERCISES, ids=STEMS)
def test_untouched_exercises_are_not_attempted(path):
    reports = run_checks(path)
    assert reports and all(r.status == "not-attempted" for r in reports), [repr(r) for r in reports]


def test_the_generator_cuts_out_every_solution_line():
    for path in SOLUTIONS:
        sol = nbformat.read(path, as_version=4)
        ex = make_exercise(sol)
        for k, (s_cell, e_cell) in enumerate(zip(sol.cells, ex.cells)):
            if k == 0:
                assert e_cell.source == s_cell.source + how_it_works(sol)
                continue
            if "### BEGIN SOLUTION" not in s_cell.source:
                assert s_cell.source == e_cell.source  # everything else is copied as is, without outputs
                assert e_cell.cell_type == "markdown" or not e_cell.outputs
                continue
            body = s_cell.source.split("### BEGIN SOLUTION")[1].split("### END SOLUTION")[0]
            for line in body.strip().splitlines():
                assert line.strip() not in e_cell.source
            assert "raise NotImplementedError" in e_cell.source


def test_stub_keeps_the_marker_indentation():
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "def f(x):\n    if x:\n        ### BEGIN SOLUTION\n        return 1\n        ### END SOLUTION\n    return 0")])
    assert make_exercise(nb).cells[0].source == (
        "def f(x):\n    if x:\n        # YOUR CODE HERE (numpy only), then run the check cell below\n"
        '        raise NotImplementedError("not attempted yet")\n    return 0')


def test_nbgrader_clears_every_solution():
    need("nbgrader", "instructors run the course with nbgrader")
    from nbgrader.preprocessors import ClearSolutions
    for path in SOLUTIONS:
        nb = nbformat.read(path, as_version=4)
        bodies = [c.source.split("### BEGIN SOLUTION")[1].split("### END SOLUTION")[0]
                  for c in nb.cells if "### BEGIN SOLUTION" in c.source]
        had = [i for i, c in enumerate(nb.cells) if "### BEGIN SOLUTION" in c.source]
        cleared, _ = ClearSolutions().preprocess(nb, {})
        text = "\n".join(c.source for c in cleared.cells)
        assert "BEGIN SOLUTION" not in text and "END SOLUTION" not in text
        stubs = "\n".join(cleared.cells[i].source for i in had)  # a demo cell elsewhere may share a line
        for body in bodies:
            for line in body.strip().splitlines():
                assert line.strip() not in stubs, (path.name, line)
        graded = [c for c in cleared.cells if c.metadata.get("nbgrader", {}).get("grade")]
        assert len(graded) == len(checked_names(nb))  # one graded cell per check (the capstone has no stub)


