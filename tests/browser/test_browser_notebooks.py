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
import time

import pytest

import a11y
import jlab
from jlab import ROOT, SCREENSHOTS

NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
# axe-core looks only at what the course draws: the notebook's output areas (JupyterLab's own interface is
# not the course's to fix)
OUTPUTS = ".jp-Notebook .jp-OutputArea-output"


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
# controls, found by what a learner sees (ipywidgets 8 DOM; sliders and play buttons: widgets.controls)

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
    """Move a slider with the keyboard: focus it (a labelled <input type="range">) and press arrow keys."""
    handle = explorer.locator(".ra-slider input[type=range]").nth(nth)
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
    words = ["the", "big", "dog", "sat", "on", "the", "rug"]  # words a trained head knows too (lesson 12)
    type_text(explorer, " ".join(words))
    renamed = settle(page, explorer, after)
    labels = table_named(renamed, "A")["labels"]
    assert len(labels) == len(words) and all(w in l.lower() for w, l in zip(words, labels)), \
        f"new sentence {words} but A's rows are labelled {labels}"
    return "causal toggle off (−∞ cells vanish), then typed a 7-word sentence (rows relabelled)"


def projection_explorer(page, explorer):
    """Type a new x[0]: x' changes and still equals x W (checked from the shown values)."""
    before = tables(explorer)
    box = explorer.locator(".widget-text input").first
    old = float(box.input_value())
    box.fill(f"{old + 1.5:g}")
    box.press("Enter")
    after = settle(page, explorer, before)
    x, W, x_prime = (numbers(table_named(after, name)["values"]) for name in ("x", "W", "x'"))
    assert abs(x[0][0] - (old + 1.5)) < 1e-9, f"x[0] shows {x[0][0]}, typed {old + 1.5}"
    assert x_prime != numbers(table_named(before, "x'")["values"]), "x' did not change"
    for j in range(len(W[0])):
        expected = sum(x[0][i] * W[i][j] for i in range(len(W)))
        assert abs(x_prime[0][j] - expected) < 1e-9, f"x'[{j}] = {x_prime[0][j]}, x W gives {expected}"
    return f"typed x[0] = {old + 1.5:g} (x' recomputed, equals x W)"


def batch_explorer(page, explorer):
    """Move the value slider by keyboard: exactly one row of Y = X W changes."""
    before = tables(explorer)
    slide(explorer, presses=4)
    after = settle(page, explorer, before)
    Y0, Y1 = (table_named(t, "Y = X W")["values"] for t in (before, after))
    changed = [i for i, (r0, r1) in enumerate(zip(Y0, Y1)) if r0 != r1]
    assert len(changed) == 1, f"one edited entry of X changed rows {changed} of Y"
    return f"slider moved 4 steps by keyboard: only row {changed[0]} of Y changed"


def mixing_explorer(page, explorer):
    """Switch uniform -> arbitrary weights: A changes, rows still sum to 1, the first
    row of O stays V's first row."""
    before = tables(explorer)
    toggle(explorer, "^arbitrary$")
    after = settle(page, explorer, before)
    A0, A1 = (numbers(table_named(t, "A")["values"]) for t in (before, after))
    assert A0 != A1, "the weights did not change"
    for i, row in enumerate(A1):
        assert abs(sum(row) - 1) < 1e-9 and all(v == 0 for v in row[i + 1:]), f"row {i} of A: {row}"
    V, O = (table_named(after, name)["values"] for name in ("V", "O"))
    assert O[0] == V[0], f"first row of O {O[0]} is not V's first row {V[0]}"
    return "weights toggled to arbitrary (A changed, rows sum to 1, O[0] = V[0])"


def similarity_explorer(page, explorer):
    """Move q[0] by keyboard: the dot product shown and one row of S change."""
    before = tables(explorer)
    text0 = explorer.inner_text()
    slide(explorer, presses=25)
    after = settle(page, explorer, before)
    assert explorer.inner_text() != text0
    name = next(n for n in after if n.startswith("S"))
    S0, S1 = table_named(before, name)["values"], table_named(after, name)["values"]
    changed = [i for i, (r0, r1) in enumerate(zip(S0, S1)) if r0 != r1]
    assert len(changed) == 1, f"changing q changed rows {changed} of {name}, expected one"
    return f"slider q[0] moved by keyboard: row {changed[0]} of S changed"


def softmax_explorer(page, explorer):
    """Lower the temperature by keyboard: the weights sharpen (largest weight grows),
    still sum to 1, and the −∞ entries (if any) stay exact zeros."""
    before = tables(explorer)
    slide(explorer, presses=10, key="ArrowLeft")
    after = settle(page, explorer, before)
    a0, a1 = (numbers(table_named(t, "a")["values"])[0] for t in (before, after))
    assert max(a1) > max(a0), f"lower temperature should sharpen: max {max(a0)} -> {max(a1)}"
    assert abs(sum(a1) - 1) < 1e-9, f"weights sum to {sum(a1)}"
    assert all(v1 == 0 for v0, v1 in zip(a0, a1) if v0 == 0), "masked (−∞) entries should stay exact zeros"
    return f"temperature lowered by keyboard: largest weight {max(a0):.3f} -> {max(a1):.3f}"


def heads_layers_explorer(page, explorer):
    """Pick another head: its attention map is shown instead."""
    before = tables(explorer)
    img = explorer.locator("img")
    src0 = img.first.get_attribute("src") if img.count() else None
    toggle(explorer, "^head 1$")
    after = settle(page, explorer, before)
    if before:
        A1 = numbers(table_named(after, "A")["values"])
        assert A1 != numbers(table_named(before, "A")["values"]), "head 1 shows the same map"
        assert all(abs(sum(r) - 1) < 1e-9 for r in A1), "rows of A should sum to 1"
    else:
        page.wait_for_timeout(1000)
        assert img.first.get_attribute("src") != src0, "the heatmap did not change"
    return "clicked head 1: A changed" + (" (table)" if before else " (heatmap image)")


def kv_cache_explorer(page, explorer):
    """Step generation forward twice by keyboard: K and V gain two rows, the score row
    two columns."""
    before = tables(explorer)
    slide(explorer, presses=2)
    after = settle(page, explorer, before)
    sizes = [(len(table_named(t, "K")["values"]), len(table_named(t, "s")["values"][0]))
             for t in (before, after)]
    assert sizes[1][0] == sizes[0][0] + 2 and sizes[1][1] == sizes[0][1] + 2, \
        f"(K rows, score columns) went {sizes[0]} -> {sizes[1]}, expected +2 each"
    return f"step +2 by keyboard: K rows {sizes[0][0]} -> {sizes[1][0]}"


def positions_explorer(page, explorer):
    """Tick "add positions": the rows of O of a repeated word, identical without positions, now differ,
    and the table P appears."""
    before = tables(explorer)
    O = table_named(before, "O")
    word = next(w for w in O["labels"] if O["labels"].count(w) > 1)
    rows = [numbers(O["values"])[i] for i, w in enumerate(O["labels"]) if w == word]
    assert all(max(abs(a - b) for a, b in zip(r, rows[0])) < 1e-9 for r in rows), \
        f"without positions the rows of {word!r} in O should be identical: {rows}"
    assert "P" not in before, "P is shown before positions are added"
    toggle(explorer, "positions")
    after = settle(page, explorer, before)
    O = table_named(after, "O")
    rows = [numbers(O["values"])[i] for i, w in enumerate(O["labels"]) if w == word]
    assert "P" in after, f"ticking 'add positions' shows no table P: {sorted(after)}"
    assert any(max(abs(a - b) for a, b in zip(r, rows[0])) > 1e-6 for r in rows[1:]), \
        f"with positions the rows of {word!r} in O should differ: {rows}"
    return f"ticked 'add positions': the {len(rows)} rows of {word!r} in O went from identical to different"


def induction_explorer(page, explorer):
    """Click "layer 0": the map changes from the prefix-matching head of layer 1 to the previous-token head of
    layer 0, and the note's previous-token score rises above 0.5."""
    def score(text, name):
        return float(re.search(name + r" score (-?[0-9.]+)", text).group(1))
    before = tables(explorer)
    assert score(explorer.inner_text(), "prefix-matching") > 0.9, explorer.inner_text()[:300]
    explorer.locator("button", has_text="layer 0").click()
    settle(page, explorer, before)
    text = explorer.inner_text()
    assert score(text, "previous-token") > 0.5 and score(text, "prefix-matching") < 0.2, text[:300]
    return f"clicked layer 0: previous-token score {score(text, 'previous-token')}"


def rope_explorer(page, explorer):
    """Move the shift slider by keyboard: every word stands further on, so every angle changes; the scores S,
    made from q and k rotated by those angles, stay as they were (up to rounding)."""
    before = tables(explorer)
    slide(explorer, presses=3)
    after = settle(page, explorer, before)
    angle0, angle1 = (numbers(table_named(t, "angle")["values"]) for t in (before, after))
    assert all(a1 > a0 for r0, r1 in zip(angle0, angle1) for a0, a1 in zip(r0[:1], r1[:1])), \
        f"pair 0's angles should grow with the shift: {angle0} -> {angle1}"
    assert table_named(after, "angle")["labels"] != table_named(before, "angle")["labels"], "positions not shown"
    S0, S1 = (numbers(table_named(t, "S")["values"]) for t in (before, after))
    assert max(abs(a - b) for r0, r1 in zip(S0, S1) for a, b in zip(r0, r1)) < 1e-9, \
        f"the scores moved with the shift: {S0} -> {S1}"
    return f"shift +3 by keyboard: pair 0 of the first word turned {angle0[0][0]} -> {angle1[0][0]} rad, S unchanged"


def gqa_explorer(page, explorer):
    """Press ArrowLeft once on the K/V groups slider: it moves on to the next divisor of the query heads below (from
    8 groups of 32 heads to 4), every query head is redrawn under group h // 8, and the cache shown halves to the
    bytes of the formula."""
    def shown():
        groups = [int(v) for v in table_named(tables(explorer), "heads")["values"][0]]
        nbytes = explorer.evaluate("e => [...e.querySelectorAll('.ra-bytes')].map(s => Number(s.dataset.bytes))")
        return groups, nbytes
    groups0, bytes0 = shown()
    assert groups0 == [h // 4 for h in range(32)], f"32 heads, 8 groups should read h // 4: {groups0}"
    before = tables(explorer)
    slide(explorer, presses=1, key="ArrowLeft", nth=1)
    settle(page, explorer, before)
    groups1, bytes1 = shown()
    assert groups1 == [h // 8 for h in range(32)], f"32 heads, 4 groups should read h // 8: {groups1}"
    assert bytes1[0] == bytes0[0] == 2 * 32 * 32 * 128 * 32768 * 2, f"the MHA cache moved: {bytes0} -> {bytes1}"
    assert bytes1[1] == 2 * 32 * 4 * 128 * 32768 * 2 == bytes0[1] // 2, f"cache {bytes0[1]} -> {bytes1[1]}"
    value = explorer.locator(".ra-slider input[type=range]").nth(1).input_value()
    assert value == "4", f"the K/V slider shows {value}, not the divisor 4"
    return f"K/V groups 8 -> 4 by one ArrowLeft: heads regrouped by h // 8, cache {bytes0[1]:,} -> {bytes1[1]:,} bytes"


def window_explorer(page, explorer):
    """Narrow the window by keyboard (its slider, ArrowLeft once): A gives one more position zero weight in every
    full row, and the K cache beside it keeps one row fewer, the oldest one dropped."""
    before = tables(explorer)
    kept0 = table_named(before, "K")["labels"]
    slide(explorer, presses=1, key="ArrowLeft")
    after = settle(page, explorer, before)
    kept1 = table_named(after, "K")["labels"]
    assert len(kept1) == len(kept0) - 1 and kept1 == kept0[1:], \
        f"the cache should drop its oldest row: {kept0} -> {kept1}"
    hidden0, hidden1 = (sum(v == 0.0 for row in numbers(table_named(t, "A")["values"]) for v in row)
                        for t in (before, after))
    assert hidden1 > hidden0, f"the window should give more of A zero weight: {hidden0} -> {hidden1} cells"
    return f"window -1 by keyboard: the cache went from {len(kept0)} rows ({kept0[0]}..) to {len(kept1)} ({kept1[0]}..)"


def ops_explorer(page, explorer):
    """Pick a generation-only broken piece from the dropdown: the explorer retrains, and its note now says the
    two loss curves are identical (it opened on a backward piece, which parts at step 1)."""
    text0 = explorer.inner_text()
    assert "step 1" in text0, f"the explorer should open on a piece that parts at step 1: {text0[:300]}"
    explorer.locator(".widget-dropdown select").select_option(label="cache_step: no 1/\u221ad")
    text = text0
    for _ in range(300):  # retraining takes a second or two
        page.wait_for_timeout(100)
        text = explorer.inner_text()
        if text != text0:
            break
    assert "cache_step" in text and "identical at every one" in text, f"after choosing cache_step: {text[:300]}"
    return "chose cache_step: no 1/\u221ad (retrained: the loss curves became identical)"


EXPLORERS = {
    "projection": projection_explorer,
    "batch": batch_explorer,
    "mixing": mixing_explorer,
    "similarity": similarity_explorer,
    "softmax": softmax_explorer,
    "attention": attention_explorer,
    "heads-layers": heads_layers_explorer,
    "kv-cache": kv_cache_explorer,
    "positions": positions_explorer,
    "induction": induction_explorer,
    "rope": rope_explorer,
    "gqa": gqa_explorer,
    "window": window_explorer,
    "ops": ops_explorer,
}


def stored_widget_outputs(path):
    nb = json.loads(path.read_text())
    return sum(WIDGET_VIEW in out.get("data", {})
               for cell in nb["cells"] if cell["cell_type"] == "code"
               for out in cell.get("outputs", []))


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs_and_explorers_respond(page, lab, notebook):
    rel = notebook.relative_to(ROOT).as_posix()
    clock = [time.monotonic()]
    jlab.open_notebook(page, lab.copy(rel, clear_outputs=True))
    clock.append(time.monotonic())
    jlab.run_all(page)
    clock.append(time.monotonic())
    assert not jlab.errors(page), f"{rel}: {jlab.errors(page)}"

    rendered = page.locator(".jp-Notebook .jp-OutputArea-output").filter(
        has=page.locator(".jupyter-widgets")).count()
    assert rendered >= stored_widget_outputs(notebook), \
        f"{rel}: {stored_widget_outputs(notebook)} widget outputs stored, {rendered} rendered"

    axe_found = {"after Run All": a11y.axe_scrolled(page, OUTPUTS)}

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
        jlab.screenshot_at(page, explorer, SCREENSHOTS / f"{notebook.stem}--{k}-{names[0]}.png")
        done.append(f"{names[0]}: {what}")
    assert not jlab.errors(page), f"{rel} after interaction: {jlab.errors(page)}"
    if explorers.count():
        axe_found["after the interactions"] = a11y.axe_scrolled(page, OUTPUTS)
    print(f"\n{rel}: serious/critical axe violations in the outputs: " +
          ", ".join(f"{when} {a11y.count(found)}" for when, found in axe_found.items()))
    for when, found in axe_found.items():
        assert not found, f"{rel} {when}: {a11y.count(found)} serious/critical axe violation(s) in the outputs: " \
            f"{a11y.describe(found)}"

    if explorers.count():
        jlab.screenshot_at(page, explorers.first, SCREENSHOTS / f"{notebook.stem}.png")
    else:
        page.screenshot(path=SCREENSHOTS / f"{notebook.stem}.png")
    clock.append(time.monotonic())
    open_s, run_s, explore_s = (b - a for a, b in zip(clock, clock[1:]))
    print(f"\n{rel}: open {open_s:.1f} s, run all {run_s:.1f} s, explore {explore_s:.1f} s; "
          f"{len(done)} explorer(s); " + "; ".join(done))
