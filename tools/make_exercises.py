"""Generate exercises/ from solutions/: every solution block becomes a stub.

    python tools/make_exercises.py            # (re)write exercises/NN_topic.ipynb
    python tools/make_exercises.py --check    # exit 1 if exercises/ is out of date

In each code cell, the lines from `### BEGIN SOLUTION` to `### END SOLUTION`
(nbgrader's markers) are replaced by a comment and `raise NotImplementedError`,
at the marker's indentation (attnlib.checks.notebooks.make_exercise). Everything
else is copied, including the stored outputs: the check cells keep the solutions'
green pass reports, so an exercise notebook passes `pytest --nbval` exactly when
the learner's code reproduces them.
"""
import argparse
import pathlib
import sys

from attnlib.checks.notebooks import exercise_text

ROOT = pathlib.Path(__file__).resolve().parent.parent


def expected_exercises(solutions=ROOT / "solutions"):
    """{file name: notebook text} for every exercise the generator would write."""
    return {p.name: exercise_text(p) for p in sorted(pathlib.Path(solutions).glob("*.ipynb"))}


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
                target.mkdir(exist_ok=True)
                path.write_text(text, encoding="utf-8")
    if args.check:
        print("exercises/ is up to date" if not stale else "out of date: " + ", ".join(stale))
        return 1 if stale else 0
    print(f"wrote {len(stale)} exercise notebook(s)" + (": " + ", ".join(stale) if stale else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
