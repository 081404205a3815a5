"""The learner's workspace: copies that no update, regeneration or test run can overwrite.

The scenario runs in temporary git repositories: an upstream course and a learner's
clone of it. The learner works in workspace/, upstream changes an exercise the
learner solved and adds a new one, the learner pulls, and then the maintainers'
commands run in the clone. The learner's work must come through all of it.
"""
import hashlib
import json
import os
import shutil
import subprocess
import sys

import nbformat
import pytest

from attnlib.course import workspace
from attnlib.course.notebooks import exercise_text
from helpers import ROOT

GIT_ENV = {**os.environ, "GIT_AUTHOR_NAME": "course", "GIT_AUTHOR_EMAIL": "course@example.org",
           "GIT_COMMITTER_NAME": "course", "GIT_COMMITTER_EMAIL": "course@example.org"}
LATER = "14_generation_and_kv_cache"  # upstream adds this lesson after the learner's first clone


def git(cwd, *args):
    result = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, env=GIT_ENV, timeout=120)
    assert result.returncode == 0, f"git {' '.join(args)}: {result.stdout}{result.stderr}"
    return result


def cli(root, *args):
    env = {**os.environ, "XDG_CACHE_HOME": str(root.parent / "cache")}
    return subprocess.run([sys.executable, "-m", "attnlib", "--root", str(root), *args],
                          capture_output=True, text=True, timeout=600, env=env)


def tree_digest(folder):
    """{relative path: sha256} of every file under folder."""
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def solve(path, solution):
    """Replace every stub of an exercise notebook by the solution's cell; return the written text."""
    nb = nbformat.read(path, as_version=4)
    sol = nbformat.read(solution, as_version=4)
    for cell, s in zip(nb.cells, sol.cells):
        if "raise NotImplementedError" in cell.source:
            cell.source = s.source
    nbformat.write(nb, path)
    return path.read_text()


def status_rows(stdout):
    return {ln.split()[1]: " ".join(ln.split()[2:]) for ln in stdout.splitlines() if ln[:2].isdigit()}


@pytest.fixture
def upstream(tmp_path):
    """A git repository holding the course, without the lesson that arrives later."""
    up = tmp_path / "upstream"
    for folder in ("notebooks", "exercises", "solutions", "tools", "tests"):
        shutil.copytree(ROOT / folder, up / folder, ignore=shutil.ignore_patterns("__pycache__", ".backups"))
    for name in (".gitignore", "pyproject.toml"):
        shutil.copy(ROOT / name, up / name)
    for folder in ("notebooks", "exercises", "solutions"):
        (up / folder / f"{LATER}.ipynb").unlink()
    git(up, "init", "-q", "-b", "main")
    git(up, "add", "-A")
    git(up, "commit", "-q", "-m", "the course")
    return up


def test_pull_update_regenerate_and_test_leave_the_learners_work_intact(upstream, tmp_path):
    learner = tmp_path / "learner"
    git(tmp_path, "clone", "-q", str(upstream), str(learner))

    # the learner's first `make grade` makes the workspace; they solve exercise 01 and edit lesson 02
    first = cli(learner, "status")
    assert first.returncode == 0, first.stderr
    mine = solve(learner / "workspace" / "exercises" / "01_projection.ipynb",
                 learner / "solutions" / "01_projection.ipynb")
    lesson = learner / "workspace" / "notebooks" / "02_batches.ipynb"
    lesson.write_text(lesson.read_text().replace("Many inputs at once", "Many inputs at once (my notes)"))
    assert git(learner, "status", "--porcelain").stdout == "", "workspace/ must be invisible to git"

    # upstream changes exercise 01 (which the learner solved) and 03 (which they never opened), adds lesson 14
    for stem in ("01_projection", "03_tokens_and_values"):  # as maintainers do: edit solutions/, regenerate
        path = upstream / "solutions" / f"{stem}.ipynb"
        nb = nbformat.read(path, as_version=4)
        nb.cells[0].source += "\n\nA clearer sentence from the latest course update."
        nbformat.write(nb, path)
        (upstream / "exercises" / f"{stem}.ipynb").write_text(exercise_text(path), encoding="utf-8")
    for folder in ("notebooks", "exercises", "solutions"):
        shutil.copy(ROOT / folder / f"{LATER}.ipynb", upstream / folder)
    git(upstream, "add", "-A")
    git(upstream, "commit", "-q", "-m", "update 01 and 03, add lesson 14")

    pulled = subprocess.run(["git", "pull", "-q"], cwd=learner, capture_output=True, text=True, env=GIT_ENV)
    assert pulled.returncode == 0, pulled.stderr
    assert "CONFLICT" not in pulled.stdout + pulled.stderr

    after = cli(learner, "status")
    assert after.returncode == 0, after.stderr
    ws = learner / "workspace"
    assert (ws / "exercises" / "01_projection.ipynb").read_text() == mine, "the learner's solved exercise is intact"
    assert "(my notes)" in (ws / "notebooks" / "02_batches.ipynb").read_text()
    rows = status_rows(after.stdout)
    assert rows["project"] == "passed", after.stdout  # and it is graded
    assert rows["attend_step"] == "not attempted"  # the new lesson's exercises appear
    assert (ws / "exercises" / f"{LATER}.ipynb").exists() and (ws / "notebooks" / f"{LATER}.ipynb").exists()
    assert "changed exercises/01_projection.ipynb" in after.stdout and f"--root {learner} update 01" in after.stdout
    assert "changed exercises/03_tokens_and_values" not in after.stdout  # never opened: silently replaced
    assert "clearer sentence" in (ws / "exercises" / "03_tokens_and_values.ipynb").read_text()

    # the maintainers' commands in the same clone leave workspace/ alone
    before = tree_digest(ws)
    regen = subprocess.run([sys.executable, "tools/make_exercises.py"], cwd=learner, capture_output=True, text=True)
    assert regen.returncode == 0, regen.stderr
    tests = subprocess.run([sys.executable, "-m", "pytest", "-q", "-o", "addopts=", "-p", "no:cacheprovider",
                            "tests/grader/test_exercise_notebooks.py", "-k", "generator or stray or intro"],
                           cwd=learner, capture_output=True, text=True, timeout=600)
    assert tests.returncode == 0, tests.stdout[-2000:]
    collected = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"],
                               cwd=learner, capture_output=True, text=True, timeout=600)
    assert "workspace/" not in collected.stdout and "solutions/" in collected.stdout
    assert tree_digest(ws) == before

    # update takes the new version of 01 after a backup of the learner's
    updated = cli(learner, "update", "01")
    assert updated.returncode == 0, updated.stderr
    backups = list((ws / ".backups" / "exercises").glob("01_projection.*.ipynb"))
    assert len(backups) == 1 and backups[0].read_text() == mine
    assert "clearer sentence" in (ws / "exercises" / "01_projection.ipynb").read_text()
    assert "update 01" not in cli(learner, "status").stdout


def test_sync_never_overwrites_and_remembers_what_it_copied(tmp_path):
    root = tmp_path / "course"
    shutil.copytree(ROOT / "exercises", root / "exercises")
    copies = workspace.sync(root)
    assert {c.state for c in copies} == {"new"}
    path = workspace.copy_path(root, "exercises", "06_mask_and_softmax")
    path.write_text(path.read_text().replace("causal", "CAUSAL"))
    assert {c.state for c in workspace.sync(root)} == {"current"}
    assert "CAUSAL" in path.read_text()
    record = json.loads((root / "workspace" / ".course.json").read_text())
    assert set(record) == {f"exercises/{p.stem}" for p in (root / "exercises").glob("*.ipynb")}


def test_a_renumbered_lesson_takes_the_learners_copy_along(tmp_path):
    """The learner's copy of a lesson that had another number moves to the lesson's new name, every line kept, and
    is never replaced; a copy already at the new name is never overwritten."""
    root = tmp_path / "course"
    shutil.copytree(ROOT / "exercises", root / "exercises")
    workspace.sync(root)
    folder = root / "workspace" / "exercises"
    mine = folder / "19_your_own_model.ipynb"
    solved = mine.read_text().replace("raise NotImplementedError", "return 'my own line'")
    mine.unlink()
    old = folder / "15_your_own_model.ipynb"  # the capstone's number before lessons 15 to 18 were inserted
    old.write_text(solved)
    record_path = root / "workspace" / ".course.json"
    record = json.loads(record_path.read_text())
    record["exercises/15_your_own_model"] = record.pop("exercises/19_your_own_model")
    record_path.write_text(json.dumps(record))
    states = {c.stem: c.state for c in workspace.sync(root)}
    assert mine.read_text() == solved and not old.exists()
    assert states["19_your_own_model"] == "current"  # the course file is the same: the copy is simply kept
    assert "exercises/19_your_own_model" in json.loads(record_path.read_text())
    stray = folder / "12_heads.ipynb"  # a renumbered copy whose new name is already taken stays apart
    stray.write_text("my older copy")
    heads = (folder / "09_heads.ipynb").read_text()
    workspace.sync(root)
    assert stray.read_text() == "my older copy" and (folder / "09_heads.ipynb").read_text() == heads


def capstone_as_lesson_17(text):
    """The capstone's course file as it was before lessons 17 (GQA) and 18 (sliding windows) came in: its own number
    and links said 17."""
    return text.replace("19_your_own_model", "17_your_own_model").replace("Exercises 19:", "Exercises 17:") \
        .replace("# 19 \u00b7 Your own model", "# 17 \u00b7 Your own model")


def workspace_before_gqa(root):
    """A learner's workspace as the course left it while the capstone was lesson 17: their own copies of the
    capstone's lesson and exercises, edited (a solved capstone: their notes and a changed line), each recorded
    with the fingerprint of the course file it came from. Returns {kind: the learner's text}."""
    ws = root / "workspace"
    record, mine = {}, {}
    for kind in ("notebooks", "exercises"):
        course_text = capstone_as_lesson_17((ROOT / kind / "19_your_own_model.ipynb").read_text())
        nb = nbformat.reads(course_text, as_version=4)
        nb.cells.append(nbformat.v4.new_markdown_cell("My notes: my softmax passed, then the capstone did."))
        nb.cells[1].source += "\nprint('my own line')"
        copy = ws / kind / "17_your_own_model.ipynb"
        copy.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, copy)
        digest = hashlib.sha256(course_text.encode()).hexdigest()
        record[f"{kind}/17_your_own_model"] = {"source": digest, "copy": digest}  # recorded pristine, edited since
        mine[kind] = copy.read_text()
    (ws / ".course.json").write_text(json.dumps(record))
    return mine


def test_a_solved_capstone_moves_from_17_to_19_with_every_line_and_the_new_lessons_arrive_fresh(tmp_path):
    """Lessons 17 (GQA) and 18 (sliding windows) pushed the capstone to 19: the learner's edited copies of the capstone
    follow it to 19, every line kept and flagged as theirs (the course's version changed too: its number and links),
    and lessons 17 and 18 arrive as new, pristine copies, never mistaken for the learner's old 17."""
    root = tmp_path / "course"
    for kind in ("notebooks", "exercises"):
        shutil.copytree(ROOT / kind, root / kind)
    mine = workspace_before_gqa(root)
    copies = {(c.kind, c.stem): c.state for c in workspace.sync(root)}
    ws = root / "workspace"
    for kind in ("notebooks", "exercises"):
        assert (ws / kind / "19_your_own_model.ipynb").read_text() == mine[kind]
        assert copies[kind, "19_your_own_model"] == "outdated"  # kept as the learner's; `update 19` would fetch
        assert not (ws / kind / "17_your_own_model.ipynb").exists()
        for new in ("17_grouped_queries", "18_sliding_window"):
            assert (ws / kind / f"{new}.ipynb").read_text() == (root / kind / f"{new}.ipynb").read_text()
            assert copies[kind, new] == "new"
    record = json.loads((ws / ".course.json").read_text())
    assert "exercises/17_your_own_model" not in record and "exercises/19_your_own_model" in record
    again = {(c.kind, c.stem): c.state for c in workspace.sync(root)}  # a second sync changes nothing
    assert again[("exercises", "19_your_own_model")] == "outdated"
    assert again[("exercises", "17_grouped_queries")] == again[("exercises", "18_sliding_window")] == "current"
    assert (ws / "exercises" / "19_your_own_model.ipynb").read_text() == mine["exercises"]


def test_make_grade_after_the_renumbering_keeps_the_solved_capstone_and_lists_the_new_exercises(tmp_path):
    """The same move through the learner's command (`make grade` is `python -m attnlib status`): their capstone is
    graded from its new name with every line kept, and lessons 17 and 18's exercises are listed, not attempted."""
    root = tmp_path / "course"
    for kind in ("notebooks", "exercises"):
        shutil.copytree(ROOT / kind, root / kind)
    mine = workspace_before_gqa(root)
    result = cli(root, "status")
    assert result.returncode == 0, result.stderr
    for kind in ("notebooks", "exercises"):
        assert (root / "workspace" / kind / "19_your_own_model.ipynb").read_text() == mine[kind]
    rows = status_rows(result.stdout)
    for name in ("grouped_query_attention", "grouped_cache_step", "sliding_window_mask", "rolling_cache_step"):
        assert rows[name] == "not attempted", result.stdout
    assert "capstone" in rows and "19_your_own_model" in result.stdout, result.stdout


def test_a_copy_deleted_by_the_learner_comes_back_from_the_course(tmp_path):
    root = tmp_path / "course"
    shutil.copytree(ROOT / "exercises", root / "exercises")
    workspace.sync(root)
    path = workspace.copy_path(root, "exercises", "04_mixing_rows")
    path.unlink()
    states = {c.stem: c.state for c in workspace.sync(root)}
    assert states["04_mixing_rows"] == "new" and path.read_text() == (root / "exercises" / path.name).read_text()


def test_maintainer_tools_back_up_a_locally_edited_file_before_rewriting_it(tmp_path):
    """make exercises on an exercises/ file someone edited in place: the edit is saved to .backups/ first."""
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import safe_write
    finally:
        sys.path.remove(str(ROOT / "tools"))
    repo = tmp_path / "repo"
    (repo / "exercises").mkdir(parents=True)
    path = repo / "exercises" / "01_projection.ipynb"
    path.write_text("committed\n")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "c")
    old_root = safe_write.ROOT
    safe_write.ROOT = repo
    try:
        assert safe_write.write_text(path, "regenerated\n") is None  # unedited: no backup needed
        git(repo, "commit", "-q", "-am", "regenerated")
        path.write_text("a learner's edit\n")
        saved = safe_write.write_text(path, "regenerated again\n")
    finally:
        safe_write.ROOT = old_root
    assert saved is not None and saved.read_text() == "a learner's edit\n"
    assert path.read_text() == "regenerated again\n"
