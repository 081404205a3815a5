"""The learner's workspace: your own copies of the notebooks, which no update touches.

The course's `notebooks/` and `exercises/` belong to the maintainers: `git pull`,
`make exercises` and `make refresh` rewrite them. You work in `workspace/` (ignored
by git), which mirrors them:

    workspace/notebooks/NN_topic.ipynb     your copy of a lesson (run it, edit it)
    workspace/exercises/NN_topic.ipynb     your copy of its exercises (graded by `status`)

`sync` makes a copy of every course notebook you do not have yet and never
overwrites one you have. When a lesson is renumbered, your copies move to its new
name (`09_heads.ipynb` stays yours as `10_heads.ipynb`). When the course's version of a notebook changes, a copy
you never edited is replaced by the new version (nothing of yours is lost); a copy
you did edit is kept and flagged, and `update` fetches the new version after
backing yours up in `workspace/.backups/`.

`workspace/.course.json` remembers, for each copy, the fingerprint of the course
file it came from and of the copy as written, which is how an edit is told apart
from an update.

Grading (`python -m attnlib status`) needs a kernel only for the exercise notebooks
you changed: `untouched` tells, without running anything, that a copy still holds the
course's code, so every check in it is "not attempted". Results of the notebooks that
did run are kept in your cache folder (`$XDG_CACHE_HOME/attnlib/status.json`, else
`~/.cache/attnlib/status.json`) under a key of their content (`grade_key`): a notebook
is run again only when it, the notebooks it reads or attnlib itself changed. A cache
that cannot be read, or holds anything but well-formed results, counts as empty.
"""
import datetime
import functools
import hashlib
import json
import os
import pathlib
import shutil
import sys
import tempfile
from dataclasses import dataclass

from .manifest import LESSONS, lesson

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


def _read_json(path):
    """The JSON value in `path`, or None when it is missing or unreadable."""
    try:
        return json.loads(pathlib.Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):  # RecursionError: absurdly deep nesting
        return None


def _is_entry(entry):
    return isinstance(entry, dict) and all(isinstance(entry.get(k), str) for k in ("source", "copy"))


def _load_record(root):
    """{"kind/stem": {"source": fingerprint, "copy": fingerprint}}; anything malformed is dropped."""
    record = _read_json(pathlib.Path(root) / FOLDER / RECORD)
    if not isinstance(record, dict):
        return {}
    return {key: entry for key, entry in record.items() if _is_entry(entry)}


def _save_record(root, record):
    path = pathlib.Path(root) / FOLDER / RECORD
    path.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")


def _place(source, target, record, key):
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)
    record[key] = {"source": fingerprint(source), "copy": fingerprint(target)}


def _follow_renumbering(root, record):
    """Move each copy whose lesson was renumbered (its topic, the stem after "NN_", now has another number) to the
    lesson's new name, with its record entry, so the learner's work follows the lesson. A copy already at the new
    name is never overwritten: then the old one stays where it is."""
    topics = {les.stem[3:]: les.stem for les in LESSONS}
    for kind in FOLDERS:
        for old in sorted((root / FOLDER / kind).glob("[0-9][0-9]_*.ipynb")):
            stem = topics.get(old.stem[3:], old.stem)
            new = copy_path(root, kind, stem)
            if stem != old.stem and not new.exists():
                old.rename(new)
                if f"{kind}/{old.stem}" in record:
                    record[f"{kind}/{stem}"] = record.pop(f"{kind}/{old.stem}")


def sync(root):
    """Bring the workspace up to date without losing anything; return a Copy per course notebook."""
    root = pathlib.Path(root)
    (root / FOLDER).mkdir(exist_ok=True)
    record = _load_record(root)
    _follow_renumbering(root, record)
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


# ----------------------------------------------------------------------------
# Grading the learner's copies: which need a kernel, and the results kept from earlier runs

STATUSES = ("passed", "failed", "not attempted")
GATHERS = "my_functions("  # a notebook that calls it reads the exercise notebooks beside it (the capstone)


def code_cells(path):
    """The sources of a notebook's code cells, blank cells left out and trailing spaces trimmed, or None when the
    file is not a readable notebook. Outputs, metadata and Markdown cells play no part."""
    nb = _read_json(path)
    cells = nb.get("cells") if isinstance(nb, dict) else None
    if not isinstance(cells, list):
        return None
    found = []
    for cell in cells:
        if not isinstance(cell, dict):
            return None
        if cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        if isinstance(source, list) and all(isinstance(line, str) for line in source):
            source = "".join(source)
        if not isinstance(source, str):
            return None
        if source.strip():
            found.append("\n".join(line.rstrip() for line in source.rstrip().splitlines()))
    return found


def untouched(root, stem):
    """True when workspace/exercises/<stem>.ipynb holds exactly the code of the course's exercises/<stem>.ipynb.

    Its checks can then only say "not attempted": every stub still raises NotImplementedError (the test suite
    proves it of the course's exercise notebooks). Running it, saving it or editing its text changes nothing
    here; any change to its code, an added code cell included, does. A notebook that gathers the functions of
    the others (the capstone) is untouched only when every notebook it reads is untouched as well.
    """
    mine = _same_code(root, stem)
    if mine is None:
        return False
    if any(GATHERS in source for source in mine):
        return all(_same_code(root, other) is not None for other in _gathered_stems(stem)
                   if copy_path(root, "exercises", other).exists())
    return True


def _same_code(root, stem):
    """The code cells of the learner's copy when they are the course's, else None."""
    mine = code_cells(copy_path(root, "exercises", stem))
    return mine if mine is not None and mine == code_cells(pathlib.Path(root) / "exercises" / f"{stem}.ipynb") else None


def _gathered_stems(stem):
    """The lessons whose exercise notebooks a gathering notebook reads: the owners of the ops (learner_ops.NAMES)."""
    from ..learner_ops import NAMES
    return sorted({lesson(name).stem for name in NAMES} - {stem})


def not_attempted(stem):
    """The outcomes of an untouched exercise notebook, as a kernel would report them."""
    return [{"name": name, "status": "not attempted", "diagnosis": None,
             "text": f"{name}: not attempted yet (the code in your copy is still the course's)"}
            for name in lesson(stem).exercises]


def grade_key(path):
    """A fingerprint of everything a notebook's grades depend on: its own bytes; for a notebook that gathers
    functions from the others, every notebook beside it; attnlib's source; the Python and numpy that run it;
    and the switches that make "not attempted" fail (ATTNLIB_STRICT, NBGRADER_EXECUTION)."""
    import numpy as np
    path = pathlib.Path(path)
    text = path.read_bytes()
    h = hashlib.sha256(text)
    if GATHERS.encode() in text:
        for f in sorted(path.parent.glob("*.ipynb")):
            h.update(f.name.encode() + b"\0" + f.read_bytes())
    h.update(_package_fingerprint().encode())
    switches = [os.environ.get(k, "") for k in ("ATTNLIB_STRICT", "NBGRADER_EXECUTION")]
    h.update(json.dumps([sys.executable, sys.version, np.__version__, switches]).encode())
    return h.hexdigest()


@functools.lru_cache(maxsize=1)
def _package_fingerprint():
    """attnlib's source, hashed once per process (status asks for it once per notebook)."""
    package, h = pathlib.Path(__file__).resolve().parents[1], hashlib.sha256()  # all of attnlib
    for f in sorted(package.rglob("*.py")):
        h.update(str(f.relative_to(package)).encode() + b"\0" + f.read_bytes())
    return h.hexdigest()


def grades_file():
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return pathlib.Path(base) / "attnlib" / "status.json"


def _is_outcome(r):
    return (isinstance(r, dict) and isinstance(r.get("name"), str) and r.get("status") in STATUSES
            and (r.get("diagnosis") is None or isinstance(r.get("diagnosis"), str)) and isinstance(r.get("text"), str))


def load_grades():
    """{resolved notebook path: {"key": grade_key, "outcomes": [...]}} from the cache; malformed entries are dropped."""
    cache = _read_json(grades_file())
    if not isinstance(cache, dict):
        return {}
    return {path: entry for path, entry in cache.items()
            if isinstance(entry, dict) and isinstance(entry.get("key"), str)
            and isinstance(entry.get("outcomes"), list) and all(map(_is_outcome, entry["outcomes"]))}


def cached_grades(grades, path, key):
    """The outcomes kept for `path` under `key`, or None."""
    entry = grades.get(str(pathlib.Path(path).resolve()))
    return entry["outcomes"] if entry and entry["key"] == key else None


def save_grades(grades, path, key, outcomes):
    """Keep `outcomes` for `path` under `key`, in `grades` and in the cache file (written whole, then renamed
    into place, so that a reader never sees half a file). A cache that cannot be written only costs time."""
    grades[str(pathlib.Path(path).resolve())] = {"key": key, "outcomes": outcomes}
    target, written = grades_file(), None
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", dir=target.parent, prefix=".status-", suffix=".json",
                                         delete=False, encoding="utf-8") as f:
            written = f.name
            json.dump(grades, f)
        os.replace(written, target)
    except OSError:
        if written:
            pathlib.Path(written).unlink(missing_ok=True)
