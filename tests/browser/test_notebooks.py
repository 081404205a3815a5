"""Every course notebook in a real JupyterLab: run all, no errors, explorers render
and respond to their controls.

The tests are parametrised over notebooks/*.ipynb, so a new notebook is tested
without new code. Each explorer container carries the classes `ra-explorer` and
`ra-explorer-<name>`; EXPLORERS below maps each name to one interaction (what a
learner does) and the check that the page changed accordingly. A new kind of
explorer needs one new row there.
"""
import json
import re

import pytest

import jlab
from jlab import ROOT, SCREENSHOTS

NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


# ----------------------------------------------------------------------------
# reading what an explorer shows

def tables(explorer):
    """Every matrix table inside an explorer: name -> (row labels, values as text).
    Values stay strings ('-inf' included) so a comparison never hides a change."""
    out = explorer.evaluate("""root => {
        const found = {};
        root.querySelectorAll('table.ra-matrix').forEach((t, k) => {
            let name = t.dataset.name || `#${k}`;
            while (name in found) name += "'";
            const rows = [...t.querySelectorAll('tr')].filter(r => r.querySelector('td.ra-cell'));
            found[name] = {
                labels: rows.map(r => (r.querySelector('th') || {textContent: ''}).textContent.trim()),
                values: rows.map(r => [...r.querySelectorAll('td.ra-cell')].map(c => c.dataset.value)),
                neginf: t.querySelectorAll('td.ra-neginf').length,
            };
        });
        return found;
    }""")
    return out


def numbers(rows):
    return [[float(v) for v in row] for row in rows]


def upper(values):
    """Entries strictly above the diagonal of a square-ish table (the future)."""
    return [float(v) for i, row in enumerate(values) for j, v in enumerate(row) if j > i]


def settle(page, explorer, before, timeout=10_000):
    """Wait until the explorer's tables differ from `before` (the kernel answers
    asynchronously); return the new tables, or the unchanged ones at timeout."""
    step = 100
    for _ in range(timeout // step):
        now = tables(explorer)
        if now != before:
            page.wait_for_timeout(300)  # let a burst of updates finish
            return tables(explorer)
        page.wait_for_timeout(step)
    return tables(explorer)


def table_named(found, *names):
    for name in names:
        if name in found:
            return found[name]
    raise AssertionError(f"no table named any of {names}; tables shown: {sorted(found)}")


# ----------------------------------------------------------------------------
# controls, found by what a learner sees (ipywidgets 8 DOM)

def toggle(explorer, label):
    """Click the checkbox or toggle button whose label matches `label`."""
    pattern = re.compile(label, re.I)
    box = explorer.locator(".widget-checkbox").filter(has_text=pattern)
    if box.count():
        box.first.locator("input[type=checkbox]").click()
        return
    button = explorer.locator("button.widget-toggle-button, .widget-toggle-buttons button").filter(
        has_text=pattern)
    assert button.count(), f"no toggle labelled {label!r} in the explorer"
    button.first.click()


def type_text(explorer, text, nth=0):
    """Type into a text box as a learner would, then press Enter."""
    box = explorer.locator(".widget-text input[type=text], .widget-textarea textarea").nth(nth)
    box.click()
    box.press("Control+a")
    box.press_sequentially(text, delay=5)
    box.press("Enter")


def slide(explorer, presses=3, key="ArrowRight", nth=0):
    """Move a slider with the keyboard: focus its handle and press arrow keys."""
    handle = explorer.locator(".widget-slider .noUi-handle").nth(nth)
    handle.focus()
    for _ in range(presses):
        handle.press(key)


# ----------------------------------------------------------------------------
# one interaction per explorer kind: do something, assert the page followed

def attention_explorer(page, explorer):
    """Causal toggle off: the −∞ (masked) future disappears from A; then a new
    sentence re-labels the rows."""
    before = tables(explorer)
    A = table_named(before, "A")
    assert A["neginf"] > 0 or (upper(A["values"]) and all(v == 0 for v in upper(A["values"]))), \
        "with the causal mask on, A should show its masked future"
    toggle(explorer, "causal")
    after = settle(page, explorer, before)
    A = table_named(after, "A")
    assert A["neginf"] == 0 and any(v != 0 for v in upper(A["values"])), \
        f"the causal toggle did not unmask A: {A}"
    for name, t in after.items():
        assert t["neginf"] == 0, f"table {name} still shows −∞ with the mask off"
    words = ["a", "dog", "chased", "the", "red", "ball", "today"]
    type_text(explorer, " ".join(words))
    renamed = settle(page, explorer, after)
    labels = table_named(renamed, "A")["labels"]
    assert len(labels) == len(words) and all(w in l.lower() for w, l in zip(words, labels)), \
        f"new sentence {words} but A's rows are labelled {labels}"
    return "causal toggle off (−∞ cells vanish), then typed a 7-word sentence (rows relabelled)"


EXPLORERS = {
    "attention": attention_explorer,
}


def stored_widget_outputs(path):
    nb = json.loads(path.read_text())
    return sum(WIDGET_VIEW in out.get("data", {})
               for cell in nb["cells"] if cell["cell_type"] == "code"
               for out in cell.get("outputs", []))


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs_and_explorers_respond(page, lab, notebook):
    rel = notebook.relative_to(ROOT).as_posix()
    jlab.open_notebook(page, lab, lab.copy(rel))
    jlab.run_all(page)
    assert not jlab.errors(page), f"{rel}: {jlab.errors(page)}"

    rendered = page.locator(".jp-Notebook .jp-OutputArea-output").filter(
        has=page.locator(".jupyter-widgets")).count()
    assert rendered >= stored_widget_outputs(notebook), \
        f"{rel}: {stored_widget_outputs(notebook)} widget outputs stored, {rendered} rendered"

    explorers = page.locator(".jp-Notebook .ra-explorer")
    done = []
    for k in range(explorers.count()):
        explorer = explorers.nth(k)
        classes = explorer.get_attribute("class").split()
        names = [c[len("ra-explorer-"):] for c in classes if c.startswith("ra-explorer-")]
        assert len(names) == 1, f"{rel}: explorer #{k} needs one ra-explorer-<name> class: {classes}"
        assert names[0] in EXPLORERS, f"{rel}: no interaction registered for explorer {names[0]!r}"
        explorer.scroll_into_view_if_needed()
        what = EXPLORERS[names[0]](page, explorer)
        explorer.screenshot(path=SCREENSHOTS / f"{notebook.stem}--{k}-{names[0]}.png")
        done.append(f"{names[0]}: {what}")
    assert not jlab.errors(page), f"{rel} after interaction: {jlab.errors(page)}"

    if explorers.count():
        explorers.first.scroll_into_view_if_needed()
    page.screenshot(path=SCREENSHOTS / f"{notebook.stem}.png")
    print(f"{rel}: {len(done)} explorer(s); " + "; ".join(done))
