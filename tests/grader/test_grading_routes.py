"""The three ways to grade a learner's exercise notebooks, each passing on solutions and failing on stubs.

    python -m attnlib status --strict      (make grade shows the same table)
    pytest grading/                        one test per exercise (make grade-pytest)
    ATTNLIB_STRICT=1 pytest --nbval-lax    every cell must run; a failing or unattempted check fails
                                           its cell (make grade-nbval)

Each route runs here on a folder holding lesson 04's notebook three ways: solved (the
solutions notebook), untouched (the generated stub) and with one learner mistake.
"""
import os
import shutil
import subprocess
import sys

import nbformat
import pytest

from helpers import ROOT

STEM = "04_mixing_rows"


def env(tmp_path, **extra):
    return {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), **extra}


@pytest.fixture
def folders(tmp_path):
    """{kind: folder holding 04_mixing_rows.ipynb} for kind in solved, untouched, mistaken."""
    made = {}
    for kind in ("solved", "untouched", "mistaken"):
        made[kind] = tmp_path / kind
        made[kind].mkdir()
    shutil.copy(ROOT / "solutions" / f"{STEM}.ipynb", made["solved"])
    shutil.copy(ROOT / "exercises" / f"{STEM}.ipynb", made["untouched"])
    nb = nbformat.read(ROOT / "solutions" / f"{STEM}.ipynb", as_version=4)
    for cell in nb.cells:
        if cell.source.startswith("def causal_average"):  # the mean over every row, not rows 0..i
            cell.source = "def causal_average(V):\n    return np.tile(V.mean(axis=0), (len(V), 1))"
    nbformat.write(nb, made["mistaken"] / f"{STEM}.ipynb")
    return made


def course(tmp_path, folder):
    """A course root whose workspace/exercises/ is `folder` (what `status` grades)."""
    root = tmp_path / f"course-{folder.name}"
    (root / "exercises").mkdir(parents=True)
    shutil.copy(ROOT / "exercises" / f"{STEM}.ipynb", root / "exercises")
    (root / "workspace").mkdir()
    shutil.copytree(folder, root / "workspace" / "exercises")
    return root


def run(cmd, tmp_path, **extra):
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600, env=env(tmp_path, **extra))


def test_the_command_line_route(folders, tmp_path):
    results = {kind: run([sys.executable, "-m", "attnlib", "--root", str(course(tmp_path, folder)), "status",
                          "--strict"], tmp_path) for kind, folder in folders.items()}
    assert results["solved"].returncode == 0 and "2/2 passed" in results["solved"].stdout
    assert results["untouched"].returncode == 1 and "0 failed, 2 not attempted" in results["untouched"].stdout
    assert results["mistaken"].returncode == 1 and "1/2 passed, 1 failed" in results["mistaken"].stdout


def test_the_pytest_route_gives_one_test_per_exercise_with_the_diagnosis(folders, tmp_path):
    def grade(kind):
        return run([sys.executable, "-m", "pytest", "-o", "addopts=", "-p", "no:cacheprovider", "-q", "-k", "04-",
                    "grading/"], tmp_path, ATTNLIB_EXERCISES=str(folders[kind]))
    solved, untouched, mistaken = grade("solved"), grade("untouched"), grade("mistaken")
    assert solved.returncode == 0 and "2 passed" in solved.stdout, solved.stdout[-2000:]
    assert untouched.returncode == 1 and "2 failed" in untouched.stdout
    assert "uniform_causal_weights: not attempted" in untouched.stdout
    assert mistaken.returncode == 1 and "1 failed, 1 passed" in mistaken.stdout
    assert "causal_average: failed (diagnosis: " in mistaken.stdout


def test_the_nbval_route_fails_a_cell_whose_check_fails_or_was_not_attempted(folders, tmp_path):
    def grade(kind):
        return run([sys.executable, "-m", "pytest", "-o", "addopts=", "-p", "no:cacheprovider", "-q",
                    "--nbval-lax", "--nbval-current-env", str(folders[kind])], tmp_path, ATTNLIB_STRICT="1")
    solved, untouched, mistaken = grade("solved"), grade("untouched"), grade("mistaken")
    assert solved.returncode == 0, solved.stdout[-2000:]
    assert untouched.returncode == 1 and "not attempted yet" in untouched.stdout
    assert mistaken.returncode == 1 and "CheckFailed" in mistaken.stdout
    assert mistaken.stdout.count("FAILED") == 1  # the causal_average check cell only
