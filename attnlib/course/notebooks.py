"""Exercise notebooks on disk: generate stubs, run them headless, read the check outcomes.

Used by tools/make_exercises.py, the course command line (python -m attnlib) and grading/ (make grade-pytest).
"""
import pathlib
import re
import subprocess

import nbformat

from .manifest import lesson

BLOCK = re.compile(r"^([ \t]*)### BEGIN SOLUTION\n.*?^[ \t]*### END SOLUTION[ \t]*$", re.S | re.M)
STUB = ('{0}# YOUR CODE HERE (numpy only), then run the check cell below\n'
        '{0}raise NotImplementedError("not attempted yet")')
CHECK_CALL = re.compile(r"""check\(\s*["'](\w+)["']""")
REPORT = re.compile(r'class="ra-check ra-(pass|fail|not-attempted)" data-exercise="(\w+)"')
DIAGNOSIS = re.compile(r'data-diagnosis="([\w+-]*)"')  # two mistakes named together are joined by +

# Appended to the first cell of every exercise notebook (the solutions notebooks do not carry it); the first
# sentence depends on whether the notebook has stubs to fill in (the capstone has none).
WRITE = """Write each function with numpy only (not attnlib's version of it): replace the
`raise NotImplementedError` line, then run the check cell below it."""
GATHER = """There is nothing to write here: this notebook gathers the functions you wrote in the other
exercise notebooks. Run the cells from the top, then the check cell."""
HOW_IT_WORKS = """

**How this works.** {} A check shows a green pass, "not attempted
yet", or a red report that names the mistake and offers hints, each hidden until you ask: first the idea, then
where to look, and last, clearly labelled, the formula with the expected values. Rows are tokens throughout.
This notebook ships with no outputs: nothing is green until your own code makes it so.

This is your own copy (in `workspace/exercises/`): course updates never overwrite it. Grade it with
`python -m attnlib status` (or `make grade`), or see the README for the pytest and nbval routes."""


def how_it_works(nb):
    """The shared intro for this solutions notebook: how to write the stubs, or (no stubs) how to run it."""
    stubs = any("### BEGIN SOLUTION" in c.source for c in nb.cells)
    return HOW_IT_WORKS.format(WRITE if stubs else GATHER)


def make_exercise(nb):
    """A copy of a solutions notebook: solution blocks become stubs, outputs are dropped, the shared intro is added."""
    nb = nbformat.from_dict(nb)
    if nb.cells and nb.cells[0].cell_type == "markdown":
        nb.cells[0].source = nb.cells[0].source.rstrip() + how_it_works(nb)
    for cell in nb.cells:
        if cell.cell_type == "code":  # no stored outputs: an untouched stub never shows a pass
            cell.outputs, cell.execution_count = [], None
        if cell.cell_type == "code" and "### BEGIN SOLUTION" in cell.source:
            cell.source = BLOCK.sub(lambda m: STUB.format(m.group(1)), cell.source)
            if "### BEGIN SOLUTION" in cell.source or "### END SOLUTION" in cell.source:
                raise ValueError(f"unbalanced solution markers in cell:\n{cell.source}")
    return nb


def exercise_text(solution_path):
    """The exact file text of the exercise generated from one solutions notebook."""
    return nbformat.writes(make_exercise(nbformat.read(solution_path, as_version=4))) + "\n"


def checked_names(nb):
    """Exercise names checked by a notebook, in order."""
    return [m for c in nb.cells if c.cell_type == "code" for m in CHECK_CALL.findall(c.source)]


def run(path, timeout=120):
    """Execute a notebook in a fresh kernel from its own folder; return the executed copy (file untouched)."""
    from nbclient import NotebookClient
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3", allow_errors=True,
                            resources={"metadata": {"path": str(pathlib.Path(path).parent)}})
    client.execute(stderr=subprocess.DEVNULL)
    return nb


def outcomes(nb):
    """[{name, status, diagnosis, text}] for every check cell of an executed notebook.

    status is "passed", "failed" or "not attempted"; a check cell that never produced
    a report (e.g. an earlier cell had a syntax error) counts as failed.
    """
    found, first_error = [], None
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        error = next((o for o in cell.get("outputs", []) if o.get("output_type") == "error"), None)
        names = CHECK_CALL.findall(cell.source)
        if error is not None and first_error is None and not names:
            first_error = f"cell {i + 1} failed first: {error.get('ename')}: {error.get('evalue')}"
        for name in names:
            result = {"name": name, "status": "failed", "diagnosis": "raised-error" if first_error else None,
                      "text": first_error or "no report: the cell did not run"}
            for out in cell.get("outputs", []):
                html = out.get("data", {}).get("text/html", "")
                m = REPORT.search(html)
                if m and m.group(2) == name:
                    result["status"] = {"pass": "passed", "fail": "failed"}.get(m.group(1), "not attempted")
                    d = DIAGNOSIS.search(html)
                    result["diagnosis"] = (d.group(1) or None) if d else None
                    result["text"] = out["data"].get("text/plain", "")
                elif out.get("output_type") == "error" and first_error is None \
                        and result["text"].startswith("no report"):
                    result["text"] = f"{out.get('ename')}: {out.get('evalue')}"
                    if out.get("ename") != "CheckFailed":
                        result["diagnosis"] = "raised-error"
            found.append(result)
    return found


# ----------------------------------------------------------------------------
# the cache of `python -m attnlib status` (attnlib.course.workspace): a notebook that has not changed is not run again

def run_outcomes(path):
    """outcomes(run(path)); a notebook that cannot run at all (a top-level cell that never ends, a broken file)
    gives a failed row per check it holds (else per exercise of its lesson), never an error."""
    try:
        return outcomes(run(path))
    except Exception as exc:  # noqa: BLE001 - whatever stops the run is reported in the table
        why = "timeout" if "Timeout" in type(exc).__name__ else "raised-error"
        text = f"the notebook could not be run: {type(exc).__name__}: {str(exc)[:300]}"
        try:
            names = checked_names(nbformat.read(path, as_version=4))
        except Exception:  # noqa: BLE001 - not even valid JSON
            try:
                names = list(lesson(pathlib.Path(path).stem).exercises)
            except ValueError:
                names = []
        return [{"name": n, "status": "failed", "diagnosis": why, "text": text} for n in names or ["(notebook)"]]


def graded(path, use_cache=True):
    """run_outcomes(path), kept in status's cache under workspace.grade_key (the notebook's content, the notebooks
    it gathers from, attnlib's source, the Python that runs it). An unreadable or malformed cache counts as empty;
    a fresh result joins the other notebooks' results in the cache, even with use_cache=False."""
    from . import workspace
    key, grades = workspace.grade_key(path), workspace.load_grades()
    cached = workspace.cached_grades(grades, path, key) if use_cache else None
    if cached is not None:
        return cached
    result = run_outcomes(path)
    workspace.save_grades(grades, path, key, result)  # as status keeps them: a change to the notebook re-runs it
    return result
