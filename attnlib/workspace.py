"""The learner's workspace: your own copies of the notebooks, which no update touches.

The course's `notebooks/` and `exercises/` belong to the maintainers: `git pull`,
`make exercises` and `make refresh` rewrite them. You work in `workspace/` (ignored
by git), which mirrors them:

    workspace/notebooks/NN_topic.ipynb     your copy of a lesson (run it, edit it)
    workspace/exercises/NN_topic.ipynb     your copy of its exercises (graded by `status`)

`sync` makes a copy of every course notebook you do not have yet and never
overwrites one you have. When the course's version of a notebook changes, a copy
you never edited is replaced by the new version (nothing of yours is lost); a copy
you did edit is kept and flagged, and `update` fetches the new version after
backing yours up in `workspace/.backups/`.

`workspace/.course.json` remembers, for each copy, the fingerprint of the course
file it came from and of the copy as written, which is how an edit is told apart
from an update.
"""
import datetime
import hashlib
import json
import pathlib
import shutil
from dataclasses import dataclass

from .course import LESSONS, lesson

FOLDER = "workspace"
FOLDERS = ("notebooks", "exercises")
RECORD = ".course.json"


@dataclass
class Copy:
    """One learner copy and its state after a sync."""
    kind: str          # "notebooks" or "exercises"
    stem: str
    path: pathlib.Path
    state: str         # "new", "current", "updated" (replaced, was untouched) or "outdated" (yours kept)


def fingerprint(path):
    return hashlib.sha256(pathlib.Path(path).read_bytes()).hexdigest()


def course_files(root):
    """[(kind, stem, path)] of every course notebook a learner gets a copy of, in course order."""
    root = pathlib.Path(root)
    found = []
    for les in LESSONS:
        for kind in FOLDERS:
            path = root / kind / f"{les.stem}.ipynb"
            if path.exists():
                found.append((kind, les.stem, path))
    extra = sorted(p for p in (root / "notebooks").glob("*.ipynb") if p.stem not in {s for _, s, _ in found})
    return found + [("notebooks", p.stem, p) for p in extra]  # e.g. the gallery


def copy_path(root, kind, stem):
    return pathlib.Path(root) / FOLDER / kind / f"{stem}.ipynb"


def exercise_copy(root, key):
    """The learner's exercise notebook for a lesson number, stem or exercise name (exactly that file, never a copy)."""
    les = lesson(key)
    if not les.exercises:
        raise ValueError(f"lesson {les.stem} has no exercises")
    return copy_path(root, "exercises", les.stem)


def _load_record(root):
    path = pathlib.Path(root) / FOLDER / RECORD
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return {}


def _save_record(root, record):
    path = pathlib.Path(root) / FOLDER / RECORD
    path.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")


def _place(source, target, record, key):
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)
    record[key] = {"source": fingerprint(source), "copy": fingerprint(target)}


def sync(root):
    """Bring the workspace up to date without losing anything; return a Copy per course notebook."""
    root = pathlib.Path(root)
    (root / FOLDER).mkdir(exist_ok=True)
    record = _load_record(root)
    result = []
    for kind, stem, source in course_files(root):
        target, key = copy_path(root, kind, stem), f"{kind}/{stem}"
        seen = record.get(key)
        if not target.exists():
            _place(source, target, record, key)
            state = "new"
        elif seen and seen["source"] == fingerprint(source):
            state = "current"
        elif fingerprint(target) == fingerprint(source):
            record[key] = {"source": fingerprint(source), "copy": fingerprint(target)}
            state = "current"
        elif seen and seen["copy"] == fingerprint(target):
            _place(source, target, record, key)  # untouched since we wrote it: nothing to lose
            state = "updated"
        else:
            state = "outdated"  # edited by the learner and changed upstream: keep theirs, flag it
        result.append(Copy(kind, stem, target, state))
    _save_record(root, record)
    return result


def timestamped_copy(path, folder):
    """Copy `path` to folder/<stem>.<timestamp><suffix> (never overwriting a copy); return the copy's path."""
    path, folder = pathlib.Path(path), pathlib.Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    target, k = folder / f"{path.stem}.{stamp}{path.suffix}", 1
    while target.exists():
        target, k = folder / f"{path.stem}.{stamp}-{k}{path.suffix}", k + 1
    shutil.copy2(path, target)
    return target


def backup(path, root):
    """Copy `path` to workspace/.backups/<kind>/<stem>.<timestamp>.ipynb; return the copy's path."""
    path = pathlib.Path(path)
    return timestamped_copy(path, pathlib.Path(root) / FOLDER / ".backups" / path.parent.name)


def replace(root, kind, stem):
    """Back up the learner's copy (if any), then copy the course's current version. Returns the backup or None."""
    root = pathlib.Path(root)
    source, target = root / kind / f"{stem}.ipynb", copy_path(root, kind, stem)
    if not source.exists():
        raise ValueError(f"the course has no {kind}/{stem}.ipynb")
    saved = backup(target, root) if target.exists() else None
    record = _load_record(root)
    _place(source, target, record, f"{kind}/{stem}")
    _save_record(root, record)
    return saved
