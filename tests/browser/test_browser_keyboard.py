"""Every explorer works with the keyboard alone, in a real JupyterLab.

One throwaway notebook (in the run folder) opens one explorer of each kind. For each explorer the test
focuses its first control, then presses Tab and only Tab to go from control to control: every control
(text box, number box, checkbox, drop-down, toggle button, slider, play button) must be reached, in page
order, without leaving the explorer. At each control it presses the keys a keyboard user would (arrow
keys on a slider, a number box or a drop-down; Space on a checkbox or a button; typing and Enter in a
text box) and waits until the explorer's panels change. Scrollable equations are Tab stops too (they
must be reachable to scroll them); they are passed over.
"""
import json

import jlab

# name -> the cell that opens it (the kinds of test_browser_notebooks.EXPLORERS, in course order)
EXPLORERS = {
    "projection": "widgets.projection_explorer()",
    "batch": "widgets.batch_explorer()",
    "mixing": "widgets.mixing_explorer()",
    "similarity": "widgets.similarity_explorer()",
    "softmax": "widgets.softmax_explorer()",
    "attention": "widgets.attention_explorer()",
    "positions": "widgets.positions_explorer()",
    "heads-layers": "widgets.heads_layers_explorer(*widgets.random_stack_maps())",
    "kv-cache": "widgets.kv_cache_explorer()",
    "induction": "widgets.induction_explorer(at.TinyLM(64, 8, 2, 2, 24, mlp=False), at.data.RepeatTask().tokenizer)",
    "rope": "widgets.rope_explorer()",
    "gqa": "widgets.gqa_explorer()",
    "window": "widgets.window_explorer()",
    "ops": "widgets.ops_explorer(steps=10)",
}
SENTENCE = "a dog sat on the rug"  # a new first word: even step 1 of the KV cache changes
FOCUSABLE = ("input, select, button, textarea, [tabindex]:not([tabindex='-1'])")


def keyboard_notebook(lab):
    """The notebook with every explorer, written into the run folder; its path relative to the root."""
    cells = ["import attnlib as at\nfrom attnlib.viewers import widgets"] + list(EXPLORERS.values())
    nb = {"cells": [{"cell_type": "code", "execution_count": None, "id": f"c{k}", "metadata": {}, "outputs": [],
                     "source": src} for k, src in enumerate(cells)],
          "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}},
          "nbformat": 4, "nbformat_minor": 5}
    path = lab.run_dir / "keyboard" / "every_explorer.ipynb"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(nb), encoding="utf-8")
    return path.relative_to(jlab.ROOT).as_posix()


def panels(explorer):
    """What the explorer shows, without its controls: the HTML of its panels."""
    return explorer.evaluate("e => [...e.querySelectorAll('.widget-html-content')].map(p => p.innerHTML).join('')")


def mark_controls(explorer):
    """Number the explorer's focusable elements (data-kb) in page order; return their descriptions."""
    return explorer.evaluate("""(e, sel) => [...e.querySelectorAll(sel)]
        .filter(el => !el.disabled && el.offsetParent !== null)
        .map((el, k) => { el.dataset.kb = k; return {
            k, tag: el.tagName.toLowerCase(), type: el.type || '', cls: el.className.toString(),
            text: (el.textContent || '').trim().slice(0, 40), pressed: el.getAttribute('aria-pressed'),
            active: el.classList.contains('mod-active'), value: el.value === undefined ? null : String(el.value),
            min: el.min || null, max: el.max || null,
            last: el.tagName === 'SELECT' ? el.selectedIndex === el.options.length - 1 : null}; })""", FOCUSABLE)


def focused(explorer):
    """The place of the focused element among the explorer's focusable ones (panels are redrawn on every
    change, so they are counted again), or None when the focus is outside the explorer."""
    return explorer.evaluate("""(e, sel) => {
        const all = [...e.querySelectorAll(sel)].filter(el => !el.disabled && el.offsetParent !== null);
        const k = all.indexOf(document.activeElement);
        return k < 0 ? null : k; }""", FOCUSABLE)


def act(page, control):
    """Operate the focused control with keys; return what was pressed, or None (nothing to do)."""
    tag, kind = control["tag"], control["type"]
    if tag == "input" and kind == "range":
        key = "ArrowLeft" if control["value"] == control["max"] else "ArrowRight"
        page.keyboard.press(key)
        return key
    if tag == "input" and kind == "number":
        page.keyboard.press("ArrowUp")
        page.keyboard.press("Enter")
        return "ArrowUp, Enter"
    if tag == "input" and kind == "checkbox":
        page.keyboard.press("Space")
        return "Space"
    if tag == "input" and kind == "text":
        page.keyboard.press("Control+a")
        page.keyboard.type(SENTENCE, delay=5)
        page.keyboard.press("Enter")
        return f"typed {SENTENCE!r}, Enter"
    if tag == "select":
        key = "ArrowUp" if control["last"] else "ArrowDown"
        page.keyboard.press(key)
        return key
    if tag == "button":
        if control["active"] or "stop" in control["text"]:
            return None  # the option already chosen; stop (which only rewinds) is checked after play
        page.keyboard.press("Space")
        return "Space"
    return None  # a scrollable equation: a Tab stop, nothing to change


def changed(page, explorer, before, timeout=15_000):
    step = 100
    for _ in range(timeout // step):
        if panels(explorer) != before:
            page.wait_for_timeout(200)
            return True
        page.wait_for_timeout(step)
    return False


def drive(page, name):
    """Tab through one explorer's controls, operating each; return what was done."""
    explorer = page.locator(f".jp-Notebook .ra-explorer-{name}")
    assert explorer.count() == 1, f"the {name} explorer did not render"
    explorer.scroll_into_view_if_needed()
    controls = mark_controls(explorer)
    inputs = [c for c in controls if c["tag"] in ("input", "select", "button", "textarea")]
    assert inputs, f"{name}: no control can take the keyboard focus"
    page.locator(f'.ra-explorer-{name} [data-kb="0"]').focus()
    done, k = [], 0
    while True:
        control = controls[k]
        before = panels(explorer)
        keys = act(page, control)
        if keys is not None:
            assert changed(page, explorer, before), \
                f"{name}: {keys} on {control['tag']} {control['text'] or control['cls']!r} changed nothing"
            if "pause" in page.evaluate("() => document.activeElement.textContent"):
                page.keyboard.press("Space")  # a play button was started: pause it again
                page.wait_for_timeout(300)
            done.append(f"{control['tag']}{'/' + control['type'] if control['type'] else ''}: {keys}")
        assert focused(explorer) == k, f"{name}: the focus left control #{k} ({control}) while operating it"
        if k == len(controls) - 1:
            return len(inputs), done
        page.keyboard.press("Tab")
        now = focused(explorer)
        assert now == k + 1, f"{name}: Tab from control #{k} went to {now}, expected #{k + 1} ({controls[k + 1]})"
        k = now


def test_every_explorer_is_operable_with_the_keyboard_alone(page, lab):
    jlab.open_notebook(page, keyboard_notebook(lab))
    jlab.run_all(page)
    assert not jlab.errors(page), jlab.errors(page)
    failures, lines = [], []
    for name in EXPLORERS:
        try:
            n, done = drive(page, name)
            lines.append(f"{name}: {n} controls reached by Tab, {len(done)} operated ({'; '.join(done)})")
        except AssertionError as exc:
            failures.append(str(exc).split("\n")[0])
    print("\n" + "\n".join(lines))
    assert not failures, f"{len(failures)} explorer(s) not operable with the keyboard: {failures}"
    assert not jlab.errors(page), jlab.errors(page)
