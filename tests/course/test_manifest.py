"""The course manifest (attnlib/course/manifest.py) is the one source of the course order.

The files on disk, the grader, the README's map and notebook 00's map all agree with
it, and no notebook stores per-run timestamps.
"""
import json
import re
import subprocess
import sys

import pytest

from attnlib import checks
from attnlib.course import EXERCISE_LESSONS, LESSONS, STEMS, course_map, lesson
from helpers import ROOT


def test_every_lesson_has_its_files_and_nothing_else_is_numbered():
    for folder, stems in (("notebooks", STEMS), ("solutions", [les.stem for les in EXERCISE_LESSONS]),
                          ("exercises", [les.stem for les in EXERCISE_LESSONS])):
        on_disk = sorted(p.stem for p in (ROOT / folder).glob("*.ipynb") if re.match(r"\d\d_", p.name))
        assert on_disk == sorted(stems), f"{folder}/ and attnlib/course/manifest.py disagree"


def test_lessons_are_numbered_in_order_with_unique_exercise_names():
    assert [les.number for les in LESSONS] == [f"{k:02d}" for k in range(len(LESSONS))]
    names = [n for les in LESSONS for n in les.exercises]
    assert len(names) == len(set(names))
    assert set(names) == set(checks.NAMES), "every checkable exercise belongs to exactly one lesson"


@pytest.mark.parametrize("key, stem", [(6, "06_mask_and_softmax"), ("06", "06_mask_and_softmax"),
                                       ("6", "06_mask_and_softmax"), ("softmax", "06_mask_and_softmax"),
                                       ("14_generation_and_kv_cache", "14_generation_and_kv_cache")])
def test_lesson_lookup(key, stem):
    assert lesson(key).stem == stem


@pytest.mark.parametrize("key", ["42", "06_mask_and_softmax-Copy1", "", "softmaxx"])
def test_lesson_lookup_refuses_what_is_not_a_lesson(key):
    with pytest.raises(ValueError, match="no lesson"):
        lesson(key)


def test_course_maps_are_made_from_the_manifest():
    result = subprocess.run([sys.executable, "tools/course_map.py", "--check"], cwd=ROOT,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr + " (run `make course-map`)"
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert course_map("readme") in readme
    for les in LESSONS:  # the README's links resolve
        assert f"](notebooks/{les.stem}.ipynb)" in readme
        if les.exercises:
            assert f"](exercises/{les.stem}.ipynb)" in readme
    start = json.loads((ROOT / "notebooks" / "00_start_here.ipynb").read_text(encoding="utf-8"))
    assert any(course_map("notebook") in "".join(c["source"]) for c in start["cells"])


@pytest.mark.parametrize("folder", ["notebooks", "solutions", "exercises"])
def test_no_notebook_stores_timestamps_or_widget_state(folder):
    for path in sorted((ROOT / folder).glob("*.ipynb")):
        nb = json.loads(path.read_text(encoding="utf-8"))
        assert "widgets" not in nb["metadata"], path.name
        stamped = [i for i, c in enumerate(nb["cells"]) if "execution" in c.get("metadata", {})]
        assert not stamped, f"{path.name}: cells {stamped} store metadata.execution (run `make refresh`)"
