"""Write a tracked file only after saving any local edit it holds.

Maintainer commands (`make exercises`, `make refresh`) rewrite files under git. A
file that differs from what git has committed may hold someone's work (a learner
who edited exercises/ in place, say), so it is copied to .backups/ first.
"""
import pathlib
import subprocess

from attnlib.course.workspace import timestamped_copy

ROOT = pathlib.Path(__file__).resolve().parent.parent


def locally_edited(path):
    """True if `path` differs from the committed version (or git cannot tell)."""
    path = pathlib.Path(path)
    if not path.exists():
        return False
    try:
        result = subprocess.run(["git", "diff", "--quiet", "HEAD", "--", str(path)], cwd=ROOT,
                                capture_output=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return True
    return result.returncode != 0


def backup(path):
    """Copy `path` to .backups/<folder>/<stem>.<timestamp><suffix>; return the copy's path."""
    path = pathlib.Path(path).resolve()
    return timestamped_copy(path, ROOT / ".backups" / path.parent.name)


def write_text(path, text):
    """Write `text` to `path`, backing up a locally edited file first. Returns the backup's path or None."""
    path = pathlib.Path(path)
    saved = backup(path) if locally_edited(path) and path.read_text(encoding="utf-8") != text else None
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return saved
