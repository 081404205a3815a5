"""Driving a JupyterLab notebook the way a learner does: open, Run All, read the page.

Every helper takes a Playwright `page`; selectors are JupyterLab 4's.
"""
import pathlib
import re
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "artifacts" / "screenshots"
VIEWPORT = {"width": 1366, "height": 900}  # a common laptop screen
# (resource type, URL) of every request any page made in the session, websockets
# included; filled by the browser fixture in conftest.py
REQUESTS = []

IDLE = re.compile(r"\|\s*Idle\b")
STDERR = '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]'
WIDGET_FAILURES = ("Error displaying widget", "Error rendering output", "Loading widget...")


def load(page, lab):
    """Load JupyterLab with an empty (reset) workspace and wait until it is ready."""
    page.goto(f"{lab.url}/lab?reset&token={lab.token}")
    page.wait_for_function("() => window.jupyterapp && window.jupyterapp.shell", timeout=90_000)
    page.locator("#jp-main-statusbar").wait_for(timeout=60_000)


def open_notebook(page, relpath):
    """Open a notebook (a copy under the run folder) as the file browser would, and
    wait until its kernel is idle."""
    # return nothing: serialising the returned panel would cost Playwright ~20 s
    page.evaluate("async path => { await window.jupyterapp.commands.execute('docmanager:open', "
                  "{path, factory: 'Notebook'}); }", relpath)
    page.locator(".jp-NotebookPanel:visible .jp-Notebook .jp-Cell").first.wait_for(timeout=60_000)
    wait_idle(page)


def close_all(page):
    """Close every open document without saving (the copies are throwaway)."""
    page.evaluate("""async () => {
        const app = window.jupyterapp;
        for (const w of [...app.shell.widgets('main')]) {
            if (w.context && w.context.model) w.context.model.dirty = false;
            w.close();
        }
    }""")
    page.keyboard.press("Escape")  # any menu or dialog a failed test left open


def kernel_status(page):
    """The kernel status text of JupyterLab's status bar, e.g. 'Python 3 (ipykernel) | Idle'."""
    return page.locator("#jp-main-statusbar").inner_text()


def wait_idle(page, timeout=60):
    """Wait for the status bar to read Idle (kernel started and nothing running)."""
    deadline = time.monotonic() + timeout
    while not IDLE.search(kernel_status(page)):
        if time.monotonic() > deadline:
            raise AssertionError(f"kernel never idle; status bar: {kernel_status(page)!r}")
        page.wait_for_timeout(200)


def prompts(page):
    """The input prompts of all code cells, e.g. ['[1]:', '[*]:', '[ ]:']."""
    return page.locator(".jp-Notebook .jp-CodeCell .jp-InputPrompt").all_inner_texts()


def wait_done(page, timeout=120):
    """Wait until no cell is queued or running and the kernel is idle, twice in a row
    (a cell can finish and the next start between two looks)."""
    deadline = time.monotonic() + timeout
    calm = 0
    while calm < 2:
        if time.monotonic() > deadline:
            raise AssertionError(f"cells still running after {timeout} s: {prompts(page)}; "
                                 f"status bar: {kernel_status(page)!r}")
        busy = any("*" in p for p in prompts(page)) or not IDLE.search(kernel_status(page))
        calm = 0 if busy else calm + 1
        page.wait_for_timeout(250)


def menu(page, top, command):
    """Click a main-menu entry, e.g. menu(page, "Run", "runmenu:run-all")."""
    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(rf"^{top}$")).click()
    page.locator(f'.lm-Menu-item[data-command="{command}"]').click()


def not_run(page):
    """Indices of code cells with code but no execution count yet."""
    return page.evaluate("""() => [...document.querySelectorAll('.jp-Notebook .jp-CodeCell')]
        .map((cell, k) => [k, cell.querySelector('.cm-content').textContent.trim(),
                           cell.querySelector('.jp-InputPrompt').textContent])
        .filter(([k, code, prompt]) => code && !/\\[\\d+\\]/.test(prompt))
        .map(([k]) => k)""")


def run_all(page, timeout=180):
    """Run > Run All Cells, then wait until every cell has run (or one failed, which
    stops Run All: the caller's error check reports it)."""
    menu(page, "Run", "runmenu:run-all")
    deadline = time.monotonic() + timeout
    while True:
        wait_done(page, timeout=max(1, deadline - time.monotonic()))
        if not not_run(page) or page.locator(STDERR).count():
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"code cells {not_run(page)} never ran")
        page.wait_for_timeout(250)


def run_cell(page, cell):
    """Select a cell and run it with Shift+Enter-like Ctrl+Enter, then wait."""
    cell.locator(".jp-InputPrompt").click()
    page.keyboard.press("Control+Enter")
    wait_done(page)


def errors(page):
    """Texts of error/stderr outputs and of widgets that failed to render."""
    found = [t[:400] for t in page.locator(STDERR).all_inner_texts()]
    outputs = page.locator(".jp-Notebook .jp-OutputArea-output")
    for text in WIDGET_FAILURES:
        n = outputs.filter(has_text=text).count()
        if n:
            found.append(f"{n} output(s) show {text!r}")
    return found


def code_cells(page):
    return page.locator(".jp-Notebook .jp-CodeCell")


def set_cell_source(page, cell, source):
    """Replace a code cell's source by typing, as a learner would (select all, type).
    Auto-closing brackets and indentation are undone by inserting the text as one paste."""
    editor = cell.locator(".jp-InputArea-editor .cm-content")
    editor.click()
    page.keyboard.press("Control+a")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(source)
    typed = cell_source(cell)
    assert typed.rstrip() == source.rstrip(), f"cell holds {typed!r}, typed {source!r}"


def cell_source(cell):
    """The text in a cell's editor (CodeMirror 6 draws one .cm-line per line)."""
    lines = cell.locator(".jp-InputArea-editor .cm-line").all_text_contents()
    return "\n".join(lines)


def screenshot_at(page, element, path):
    """Screenshot the window as the learner sees it, scrolled so `element` starts at the top."""
    element.evaluate("e => e.scrollIntoView({block: 'start'})")
    page.wait_for_timeout(100)
    page.screenshot(path=path)
