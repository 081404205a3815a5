"""Generate exercises/ from solutions/: every solution block becomes a stub.

    python tools/make_exercises.py            # (re)write exercises/NN_topic.ipynb
    python tools/make_exercises.py --check    # exit 1 if exercises/ is out of date

The lessons come from attnlib.course.LESSONS. In each code cell, the lines from
`### BEGIN SOLUTION` to `### END SOLUTION` (nbgrader's markers) are replaced by a
comment and `raise NotImplementedError`, at the marker's indentation, and the
shared "How this works" paragraph is added to the first cell
(attnlib.course.notebooks.make_exercise). Everything else is copied, including the
stored outputs: the check cells keep the solutions' green pass reports, so an
exercise notebook passes `pytest --nbval` exactly when the learner's code
reproduces them.

Learners work in workspace/, which this never touches. A file in exercises/ that
differs from its committed version is backed up to .backups/ before it is rewritten.
"""
import argparse
import pathlib
import sys

from attnlib.course.notebooks import exercise_text
from attnlib.course import EXERCISE_LESSONS
from safe_write import write_text

ROOT = pathlib.Path(__file__).resolve().parent.parent


def expected_exercises(root=ROOT):
    """{file name: notebook text} for every exercise notebook the generator would write."""
    return {f"{les.stem}.ipynb": exercise_text(pathlib.Path(root) / "solutions" / f"{les.stem}.ipynb")
            for les in EXERCISE_LESSONS}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="only report whether exercises/ is up to date")
    args = parser.parse_args(argv)
    target = ROOT / "exercises"
    stale = []
    for name, text in expected_exercises().items():
        path = target / name
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            stale.append(name)
            if not args.check:
                saved = write_text(path, text)
                if saved:
                    print(f"{path.relative_to(ROOT)} had local edits: saved them to {saved.relative_to(ROOT)}")
    if args.check:
        print("exercises/ is up to date" if not stale else "out of date: " + ", ".join(stale))
        return 1 if stale else 0
    print(f"wrote {len(stale)} exercise notebook(s)" + (": " + ", ".join(stale) if stale else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
