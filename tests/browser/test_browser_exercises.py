"""A generated exercise notebook in a real JupyterLab: the learner's three outcomes.

On the untouched stub the check cell says "not attempted"; after typing a softmax
over the wrong axis it shows the red report naming that mistake; after typing a
correct softmax it shows the green pass. The code is typed into the exercise
cell and run with Shift+Enter, as a learner does.
"""
import json
import re

import jlab
from jlab import ROOT, SCREENSHOTS

EXERCISE = "softmax"


def exercise_notebook(name):
    """The first exercise notebook with a check cell for `name`, or None."""
    call = re.compile(rf"""check\(\s*["']{name}["']""")
    for path in sorted((ROOT / "exercises").glob("*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        if any(c["cell_type"] == "code" and call.search("".join(c["source"])) for c in cells):
            return path
    return None


WRONG_AXIS = '''def softmax(S, axis=-1):
    S = np.asarray(S, dtype=float)
    E = np.exp(S - S.max(axis=0, keepdims=True))
    return E / E.sum(axis=0, keepdims=True)
'''

CORRECT = '''def softmax(S, axis=-1):
    S = np.asarray(S, dtype=float)
    E = np.exp(S - S.max(axis=axis, keepdims=True))
    return E / E.sum(axis=axis, keepdims=True)
'''


def cell_defining(page, function):
    """The code cell whose source starts with `def <function>(` and the check cell after it."""
    cells = jlab.code_cells(page)
    for k in range(cells.count()):
        if jlab.cell_source(cells.nth(k)).startswith(f"def {function}("):
            return cells.nth(k), cells.nth(k + 1)
    raise AssertionError(f"no exercise cell defines {function}()")


def type_and_check(page, cell, source):
    """Replace the exercise cell's code, then Shift+Enter twice: run it, run its check."""
    jlab.set_cell_source(page, cell, source)
    page.keyboard.press("Shift+Enter")
    jlab.wait_done(page)
    page.keyboard.press("Shift+Enter")
    jlab.wait_done(page)


def report(check_cell):
    """(status classes, diagnosis) of the check report shown under a check cell."""
    box = check_cell.locator(f'.ra-check[data-exercise="{EXERCISE}"]')
    box.wait_for(timeout=20_000)
    classes = box.get_attribute("class").split()
    diagnosis = box.locator(".ra-diagnosis")
    return classes, (diagnosis.get_attribute("data-diagnosis") if diagnosis.count() else None)


def test_softmax_exercise_not_attempted_then_diagnosed_then_passed(page, lab):
    path = exercise_notebook(EXERCISE)
    assert path is not None, f"no exercise notebook checks {EXERCISE!r}"
    rel = path.relative_to(ROOT).as_posix()
    jlab.open_notebook(page, lab.copy(rel, clear_outputs=True))  # no stored pass reports
    jlab.run_all(page)
    exercise, check_cell = cell_defining(page, EXERCISE)

    classes, _ = report(check_cell)
    assert "ra-not-attempted" in classes, f"untouched stub: {classes}"
    assert "not attempted" in check_cell.locator(".ra-check").inner_text().lower()

    type_and_check(page, exercise, WRONG_AXIS)
    classes, diagnosis = report(check_cell)
    assert "ra-fail" in classes, f"softmax over axis 0 should fail: {classes}"
    assert diagnosis == "softmax-wrong-axis", f"diagnosis shown: {diagnosis!r}"
    check_cell.scroll_into_view_if_needed()
    page.screenshot(path=SCREENSHOTS / f"exercise-{path.stem}--fail.png")

    type_and_check(page, exercise, CORRECT)
    classes, _ = report(check_cell)
    assert "ra-pass" in classes, f"a correct softmax should pass: {classes}"
    check_cell.scroll_into_view_if_needed()
    page.screenshot(path=SCREENSHOTS / f"exercise-{path.stem}--pass.png")
    print(f"\n{rel}: not attempted -> ra-fail (softmax-wrong-axis) -> ra-pass")
