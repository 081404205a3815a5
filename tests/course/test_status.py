"""`python -m attnlib status` without waiting: untouched copies need no kernel, unchanged ones come from the
cache, malformed caches count as empty, and each notebook that does run says so on stderr.

The kernel is replaced by a stand-in that records which notebooks it was asked to run (tests/course/test_cli.py runs
the real one)."""
import json
import pathlib
import re
import shutil

import pytest

from attnlib.course import cli
from attnlib.course import workspace
from helpers import ROOT

STEMS = ("01_projection", "02_batches", "06_mask_and_softmax", "19_your_own_model")


@pytest.fixture
def course(tmp_path, monkeypatch):
    """A course with four exercise notebooks, a fresh workspace and a private cache folder."""
    root = tmp_path / "course"
    (root / "exercises").mkdir(parents=True)
    for stem in STEMS:
        shutil.copy(ROOT / "exercises" / f"{stem}.ipynb", root / "exercises")
    workspace.sync(root)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return root


@pytest.fixture
def kernel(monkeypatch):
    """Stands in for a kernel run: records the stems it runs, and passes every check it finds."""
    ran = []

    def run(path):
        ran.append(pathlib.Path(path).stem)
        return [{"name": name, "status": "passed", "diagnosis": None, "text": f"✓ {name} passed"}
                for name in checked(path)]
    monkeypatch.setattr(cli, "run_notebook", run)
    return ran


def checked(path):
    """The exercise names a notebook's check cells name, read from its JSON (independently of attnlib)."""
    cells = json.loads(pathlib.Path(path).read_text())["cells"]
    code = ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]
    return [m for source in code for m in re.findall(r"""check\(\s*["'](\w+)["']""", source)]


def mine(root, stem):
    return root / "workspace" / "exercises" / f"{stem}.ipynb"


def edit(root, stem, change):
    """Apply `change` to the JSON of the learner's copy of `stem`."""
    path = mine(root, stem)
    nb = json.loads(path.read_text())
    change(nb)
    path.write_text(json.dumps(nb, indent=1))


def write_code(root, stem, old, new):
    """Replace `old` by `new` in the first code cell of the learner's copy that holds it."""
    def change(nb):
        cell = next(c for c in nb["cells"] if c["cell_type"] == "code" and old in "".join(c["source"]))
        cell["source"] = "".join(cell["source"]).replace(old, new, 1)
    edit(root, stem, change)


STUB = 'raise NotImplementedError("not attempted yet")'


def status(root, capsys, *extra):
    code = cli.main(["--root", str(root), "status", *extra])
    out = capsys.readouterr()
    rows = {ln.split()[1]: " ".join(ln.split()[2:]) for ln in out.out.splitlines() if ln[:2].isdigit()}
    return code, rows, out.out, out.err


def test_a_fresh_workspace_is_graded_without_a_kernel(course, kernel, capsys):
    code, rows, out, err = status(course, capsys)
    assert code == 0 and kernel == [] and err == ""
    expected = [name for stem in STEMS for name in checked(ROOT / "exercises" / f"{stem}.ipynb")]
    assert list(rows) == expected and set(rows.values()) == {"not attempted"}
    assert f"0/{len(expected)} passed, 0 failed, {len(expected)} not attempted" in out


def test_running_or_saving_a_copy_leaves_it_untouched_but_any_code_change_does_not(course):
    def outputs_and_metadata(nb):  # what running the cells in JupyterLab and saving writes
        for cell in nb["cells"]:
            if cell["cell_type"] == "code":
                cell["outputs"] = [{"output_type": "stream", "name": "stdout", "text": ["hello\n"]}]
                cell["execution_count"] = 3
                cell["metadata"]["collapsed"] = True
            cell["source"] = "".join(cell["source"])  # one string instead of a list of lines
        nb["metadata"]["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
        nb["cells"].append({"cell_type": "code", "metadata": {}, "source": "  \n", "outputs": [],
                            "execution_count": None})  # the empty cell JupyterLab leaves at the end
        nb["cells"].insert(1, {"cell_type": "markdown", "metadata": {}, "source": "my notes"})
    edit(course, "02_batches", outputs_and_metadata)
    assert workspace.untouched(course, "02_batches")

    write_code(course, "02_batches", STUB, STUB + "  # later")
    assert not workspace.untouched(course, "02_batches")
    workspace.replace(course, "exercises", "02_batches")
    assert workspace.untouched(course, "02_batches")
    edit(course, "02_batches", lambda nb: nb["cells"].append(
        {"cell_type": "code", "metadata": {}, "source": "def project_rows(X, W):\n    return X @ W",
         "outputs": [], "execution_count": None}))  # a new cell can redefine a function the check reads
    assert not workspace.untouched(course, "02_batches")
    mine(course, "01_projection").write_text("{ not a notebook")
    assert not workspace.untouched(course, "01_projection")


def test_the_capstone_runs_once_a_notebook_it_gathers_from_changed(course, kernel, capsys):
    write_code(course, "01_projection", STUB, "return x @ W")  # project is not one of the capstone's ops
    status(course, capsys)
    assert kernel == ["01_projection"]
    write_code(course, "06_mask_and_softmax", STUB, "return S")  # softmax is: lesson 06 owns it
    kernel.clear()
    _, rows, _, _ = status(course, capsys)
    assert sorted(kernel) == ["06_mask_and_softmax", "19_your_own_model"]
    assert rows["capstone"] == "passed" and rows["softmax"] == "passed"


def test_only_notebooks_that_changed_run_again_and_each_says_so(course, kernel, capsys):
    write_code(course, "01_projection", STUB, "return x @ W")
    write_code(course, "02_batches", STUB, "return X @ W")
    code, rows, first, err = status(course, capsys)
    assert sorted(kernel) == ["01_projection", "02_batches"]
    assert rows["project"] == "passed" and rows["softmax"] == "not attempted"
    progress = [ln for ln in err.splitlines() if ln.strip().startswith("[")]
    assert len(progress) == 2 and all("2/2 passed" in ln for ln in progress)
    assert {re.search(r"exercises/(\w+)\.ipynb", ln).group(1) for ln in progress} == {"01_projection", "02_batches"}

    kernel.clear()
    code, rows, again, err = status(course, capsys)
    assert kernel == [] and again == first and err == ""  # nothing changed: all from the cache

    write_code(course, "02_batches", "return X @ W", "return X.dot(W)")
    code, rows, _, err = status(course, capsys)
    assert kernel == ["02_batches"] and "02_batches" in err and "01_projection" not in err

    kernel.clear()
    status(course, capsys, "--no-cache")
    assert sorted(kernel) == ["01_projection", "02_batches"]  # the untouched ones still need no kernel


def test_a_change_in_attnlib_runs_the_notebooks_again(course, kernel, capsys, monkeypatch):
    write_code(course, "01_projection", STUB, "return x @ W")
    status(course, capsys)
    key = workspace.grade_key(mine(course, "01_projection"))
    monkeypatch.setenv("ATTNLIB_STRICT", "1")  # a switch that changes what a check reports
    assert workspace.grade_key(mine(course, "01_projection")) != key
    kernel.clear()
    status(course, capsys)
    assert kernel == ["01_projection"]


MALFORMED = {
    "a list": "[]",
    "a number": "3",
    "null": "null",
    "not JSON": "{ truncated",
    "not UTF-8": b"\xff\xfe\x00",
    "an entry that is a list": json.dumps({"PATH": []}),
    "a key that is a number": json.dumps({"PATH": {"key": 7, "outcomes": []}}),
    "outcomes that are a dict": json.dumps({"PATH": {"key": "KEY", "outcomes": {"project": "passed"}}}),
    "an unknown status": json.dumps({"PATH": {"key": "KEY", "outcomes": [
        {"name": "project", "status": "great", "diagnosis": None, "text": ""}]}}),
    "an outcome without a name": json.dumps({"PATH": {"key": "KEY", "outcomes": [
        {"status": "passed", "diagnosis": None, "text": ""}]}}),
    "deeply nested": "[" * 100_000 + "]" * 100_000,
}


@pytest.mark.parametrize("label", list(MALFORMED))
def test_a_malformed_cache_counts_as_empty(course, kernel, capsys, label):
    write_code(course, "01_projection", STUB, "return x @ W")
    path = mine(course, "01_projection")
    content = MALFORMED[label]
    if isinstance(content, str):  # the right path and key, so only the shape is wrong
        content = content.replace("PATH", str(path.resolve())).replace("KEY", workspace.grade_key(path)).encode()
    cache = workspace.grades_file()
    cache.parent.mkdir(parents=True)
    cache.write_bytes(content)

    code, rows, _, _ = status(course, capsys)
    assert code == 0 and kernel == ["01_projection"] and rows["project"] == "passed"
    assert json.loads(cache.read_text())[str(path.resolve())]["outcomes"][0]["status"] == "passed"  # rewritten
    kernel.clear()
    status(course, capsys)
    assert kernel == []


@pytest.mark.parametrize("content", ["[]", "7", '{"exercises/02_batches": []}', "{ truncated"])
def test_a_malformed_workspace_record_counts_as_empty(course, content):
    (course / "workspace" / workspace.RECORD).write_text(content)
    states = {c.stem: c.state for c in workspace.sync(course) if c.kind == "exercises"}
    assert set(states.values()) == {"current"}  # the copies equal the course's, so nothing to do
    assert isinstance(json.loads((course / "workspace" / workspace.RECORD).read_text()), dict)


def test_a_notebook_that_cannot_be_run_is_a_failed_row(course, tmp_path):
    path = mine(course, "02_batches")
    path.write_text("{ not a notebook")
    results = cli.run_notebook(path)
    assert [r["name"] for r in results] == ["project_rows", "matmul_cost"]
    assert {r["status"] for r in results} == {"failed"} and "could not be run" in results[0]["text"]


# ---------------------------------------------------------------------------
# grading/ (make grade-pytest) reads and writes the same cache through course.notebooks.graded

@pytest.fixture
def graded_runs(tmp_path, monkeypatch):
    """course.notebooks.graded with its kernel replaced: records the stems it runs, passes every check."""
    from attnlib.course import notebooks
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    ran = []

    def run(path, timeout=120):
        ran.append(pathlib.Path(path).stem)
        return pathlib.Path(path)
    monkeypatch.setattr(notebooks, "run", run)
    monkeypatch.setattr(notebooks, "outcomes", lambda path: [
        {"name": name, "status": "passed", "diagnosis": None, "text": f"✓ {name} passed"} for name in checked(path)])
    folder = tmp_path / "exercises"
    folder.mkdir()
    for stem in STEMS[:2]:
        shutil.copy(ROOT / "exercises" / f"{stem}.ipynb", folder)
    return notebooks.graded, folder, ran


@pytest.mark.parametrize("content", ["[]", '{"x": 1}', '{"x": {"key": 3}}', "{", "\x00"])
def test_grade_pytest_treats_a_malformed_cache_as_empty(graded_runs, tmp_path, content):
    graded, folder, ran = graded_runs
    cache = tmp_path / "cache" / "attnlib"
    cache.mkdir(parents=True)
    for name in ("status.json", "grades.json"):
        (cache / name).write_text(content)
    first = graded(folder / "01_projection.ipynb")
    assert [r["name"] for r in first] == checked(folder / "01_projection.ipynb") and ran == ["01_projection"]
    assert graded(folder / "01_projection.ipynb") == first and ran == ["01_projection"]  # now from the cache


def test_grade_pytest_without_the_cache_adds_its_result_beside_the_others(graded_runs):
    graded, folder, ran = graded_runs
    one, two = folder / "01_projection.ipynb", folder / "02_batches.ipynb"
    graded(one)
    graded(two, use_cache=False)
    kept = json.loads(workspace.grades_file().read_text())
    assert {str(one.resolve()), str(two.resolve())} <= set(kept)  # one's result survives two's run
    graded(one)
    assert ran == ["01_projection", "02_batches"]  # and is still used


def test_a_report_naming_two_mistakes_keeps_both_in_the_outcome():
    """The check's report joins two mistakes named together with +; status and hint read the whole id."""
    import nbformat
    from attnlib.checks.report import Report
    from attnlib.course.notebooks import outcomes
    report = Report("rope_attention", "fail", diagnosis="rope-values-rotated+rope-halves", probe="1 of 1")
    cell = nbformat.v4.new_code_cell('check("rope_attention", rope_attention)', outputs=[
        nbformat.v4.new_output("display_data", {"text/html": report._repr_html_(), "text/plain": str(report)})])
    (found,) = outcomes(nbformat.v4.new_notebook(cells=[cell]))
    assert (found["status"], found["diagnosis"]) == ("failed", "rope-values-rotated+rope-halves")
