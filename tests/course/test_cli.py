"""python -m attnlib on a temporary copy of the course: status, check, hint, reset and update (with backups)."""
import re
import shutil
import subprocess
import sys

import nbformat
import pytest

from attnlib.checks.grade import nudge_for
from helpers import ROOT


def cli(*args, root, env_home):
    env = {"PATH": "/usr/bin:/bin", "HOME": str(env_home), "XDG_CACHE_HOME": str(env_home / "cache")}
    return subprocess.run([sys.executable, "-m", "attnlib", "--root", str(root), *args],
                          capture_output=True, text=True, timeout=600, env=env)


@pytest.fixture
def course(tmp_path):
    """A course with three exercise notebooks; in the learner's workspace 01 is solved, 02 wrong, 05 untouched."""
    root = tmp_path / "course"
    (root / "exercises").mkdir(parents=True)
    shutil.copytree(ROOT / "solutions", root / "solutions")
    for stem in ("01_projection", "02_batches", "05_learned_mixing"):
        shutil.copy(ROOT / "exercises" / f"{stem}.ipynb", root / "exercises")
    from attnlib.course import workspace
    workspace.sync(root)
    solve(root, "01_projection", None)
    solve(root, "02_batches", "    return (W.T @ X.T)  # a learner's transposed attempt")
    return root


def solve(root, stem, body):
    """Write workspace/exercises/<stem>: the course's stub replaced by the solution (body None) or by `body`."""
    path = root / "workspace" / "exercises" / f"{stem}.ipynb"
    nb = nbformat.read(root / "exercises" / f"{stem}.ipynb", as_version=4)
    sol = nbformat.read(root / "solutions" / f"{stem}.ipynb", as_version=4)
    for cell, s in zip(nb.cells, sol.cells):
        if "raise NotImplementedError" in cell.source:
            head = cell.source.split("    # YOUR CODE HERE")[0]
            cell.source = s.source if body is None else head + body
    nbformat.write(nb, path)
    return path

def test_status_reports_passed_failed_with_diagnosis_and_not_attempted(course, tmp_path):
    cache = tmp_path / "cache" / "attnlib"
    cache.mkdir(parents=True)
    for name in ("status.json", "grades.json"):  # valid JSON of the wrong shape, in status's cache and the old one
        (cache / name).write_text("[]")
    result = cli("status", root=course, env_home=tmp_path)
    assert result.returncode == 0, result.stderr
    lines = {ln.split()[1]: ln.split()[2:] for ln in result.stdout.splitlines()[1:] if ln[:2].isdigit()}
    assert lines["project"] == ["passed"]
    assert lines["project_rows"] == ["failed", "output-transposed"]
    assert lines["similarity"] == ["not", "attempted"]
    assert lines["compose"] == ["passed"] and lines["matmul_cost"][0] == "failed"  # 02 holds the same wrong body
    assert "2/6 passed, 2 failed, 2 not attempted" in result.stdout
    # one line on stderr per notebook run in a kernel; 05 is untouched and needs none
    ran = re.findall(r"^  \[\d/2\] workspace/exercises/(\w+)\.ipynb: ", result.stderr, flags=re.M)
    assert sorted(ran) == ["01_projection", "02_batches"], result.stderr
    again = cli("status", root=course, env_home=tmp_path)  # from the cache, same answer, no kernel
    assert again.stdout == result.stdout and again.stderr == ""


def test_check_runs_one_notebook_in_a_fresh_kernel(course, tmp_path):
    ok = cli("check", "01", root=course, env_home=tmp_path)
    assert ok.returncode == 0 and "✓ project passed" in ok.stdout
    bad = cli("check", "2", root=course, env_home=tmp_path)
    assert bad.returncode == 1
    assert "✗ project_rows failed" in bad.stdout and "output-transposed" in bad.stdout


def test_check_keeps_the_hints_hidden_behind_their_levels(course, tmp_path):
    """As in the notebook, where each hint is a reveal: check names the command that shows them, level by level."""
    from attnlib.checks import hints
    bad = cli("check", "02", root=course, env_home=tmp_path)
    assert "python -m attnlib hint 02 --level 1 (the idea), --level 2 (where to look), --level 3 (the answer)" \
        in bad.stdout
    for name in ("project_rows", "matmul_cost"):
        h1, h2, h3 = hints(name)
        assert h1 not in bad.stdout and h2 not in bad.stdout and h3 not in bad.stdout
    assert nudge_for("project_rows", "output-transposed") not in bad.stdout


def test_hint_levels(course, tmp_path):
    from attnlib.checks import hints
    h1, h2, h3 = hints("similarity")
    one = cli("hint", "05", root=course, env_home=tmp_path)
    assert one.returncode == 0 and h1 in one.stdout and h2 not in one.stdout and h3 not in one.stdout
    two = cli("hint", "05", "--level", "2", root=course, env_home=tmp_path)
    assert "your copy is not attempted yet, so this is the exercise's general hint" in two.stdout
    assert h2 in two.stdout and h3 not in two.stdout  # the nudge, never the answer
    assert "attnlib check" not in two.stdout  # it graded the copy itself: running check would name nothing more
    three = cli("hint", "05", "--level", "3", root=course, env_home=tmp_path)
    assert f"hint 3, the formula (this is the answer): {h3}" in three.stdout


def test_hint_for_one_exercise_shows_that_exercise_alone(course, tmp_path):
    """A lesson with many exercises: asking for the answer to one must not show the others' answers."""
    from attnlib.checks import hints
    three = cli("hint", "learned_scores", "--level", "3", root=course, env_home=tmp_path)
    assert three.returncode == 0 and hints("learned_scores")[2] in three.stdout
    assert "\nsimilarity\n" not in three.stdout and hints("similarity")[2] not in three.stdout
    one = cli("hint", "learned_scores", root=course, env_home=tmp_path)
    assert "hint learned_scores --level 2" in one.stdout


def test_hint_2_says_so_when_no_specific_mistake_was_named(course, tmp_path):
    from attnlib.checks import hints
    solve(course, "05_learned_mixing", "    return np.zeros((len(Q), len(K)))  # a learner's placeholder")
    two = cli("hint", "05", "--level", "2", root=course, env_home=tmp_path)
    assert "your copy fails this check, but no specific mistake was named" in two.stdout, two.stdout
    assert "they compare your values with the expected ones), then level 3 gives the formula" in two.stdout
    assert hints("similarity")[1] in two.stdout and "attnlib check" not in two.stdout


def test_hint_2_is_the_nudge_for_the_mistake_in_your_copy(course, tmp_path):
    status = cli("status", root=course, env_home=tmp_path)
    name, diagnosis = next(ln.split()[1:4:2] for ln in status.stdout.splitlines() if ln.startswith("02_batches"))
    two = cli("hint", "02", "--level", "2", root=course, env_home=tmp_path)
    nudge = nudge_for(name, diagnosis)  # the nudge of the choice that names the mistake, as the report shows
    assert nudge and f"(for {diagnosis}" in two.stdout and nudge in two.stdout
    solve(course, "02_batches", None)
    assert "your copy passes this check" in cli("hint", "02", "--level", "2", root=course, env_home=tmp_path).stdout


def test_reset_backs_up_the_learners_file_then_restores_the_stub(course, tmp_path):
    path = course / "workspace" / "exercises" / "02_batches.ipynb"
    mine = path.read_text()
    for _ in range(2):  # two resets in the same second still keep two distinct backups
        result = cli("reset", "02", root=course, env_home=tmp_path)
        assert result.returncode == 0, result.stderr
    backups = sorted((course / "workspace" / ".backups" / "exercises").glob("02_batches.*.ipynb"))
    assert len(backups) == 2
    assert backups[0].read_text() == mine or backups[1].read_text() == mine
    assert path.read_text() == (ROOT / "exercises" / "02_batches.ipynb").read_text()
    assert (course / "exercises" / "02_batches.ipynb").read_text() == path.read_text()  # the course's copy untouched


def test_unknown_lessons_are_a_clear_error(course, tmp_path):
    for command in ("reset", "check", "hint"):
        result = cli(command, "42", root=course, env_home=tmp_path)
        assert result.returncode != 0 and "no lesson '42'" in result.stderr, (command, result.stderr)
    result = cli("hint", "00", root=course, env_home=tmp_path)
    assert result.returncode != 0 and "has no exercises" in result.stderr


def test_check_grades_the_canonical_copy_never_a_duplicate(course, tmp_path):
    """JupyterLab's Duplicate makes 02_batches-Copy1.ipynb next to the original; check 02 must ignore it."""
    copy = course / "workspace" / "exercises" / "02_batches-Copy1.ipynb"
    shutil.copy(course / "solutions" / "02_batches.ipynb", copy)  # a passing duplicate
    result = cli("check", "02", root=course, env_home=tmp_path)
    assert result.returncode == 1 and "02_batches.ipynb" in result.stdout and "Copy1" not in result.stdout


def test_check_shows_the_real_error_of_the_first_failing_cell(course, tmp_path):
    solve(course, "02_batches", "    return X @ W)  # a syntax error")
    result = cli("check", "02", root=course, env_home=tmp_path)
    assert result.returncode == 1
    assert "SyntaxError" in result.stdout and "NameError" not in result.stdout, result.stdout
