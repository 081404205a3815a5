"""Generate exercises/ from solutions/: every solution block becomes a stub.

    python tools/make_exercises.py            # (re)write exercises/NN_topic.ipynb
    python tools/make_exercises.py --check    # exit 1 if exercises/ is out of date

In each code cell, the lines from `### BEGIN SOLUTION` to `### END SOLUTION`
(nbgrader's markers) are replaced by a comment and `raise NotImplementedError`,
at the marker's indentation. Everything else is copied, including the stored
outputs: the check cells keep the solutions' green pass reports, so an exercise
notebook passes `pytest --nbval` exactly when the learner's code reproduces them.
"""
import argparse
import pathlib
import re
import sys

import nbformat

ROOT = pathlib.Path(__file__).resolve().parent.parent
BLOCK = re.compile(r"^([ \t]*)### BEGIN SOLUTION\n.*?^[ \t]*### END SOLUTION[ \t]*$", re.S | re.M)
STUB = '{0}# YOUR CODE HERE (numpy only), then run the check cell below\n{0}raise NotImplementedError("not attempted yet")'


def stub_source(source):
    """The cell source with every solution block replaced by a stub."""
    return BLOCK.sub(lambda m: STUB.format(m.group(1)), source)


def make_exercise(nb):
    """A copy of a solutions notebook with the solutions cut out."""
    nb = nbformat.from_dict(nb)
    for cell in nb.cells:
        if cell.cell_type == "code" and "### BEGIN SOLUTION" in cell.source:
            cell.source = stub_source(cell.source)
            if "### BEGIN SOLUTION" in cell.source or "### END SOLUTION" in cell.source:
                raise ValueError(f"unbalanced solution markers in cell:\n{cell.source}")
    return nb


def expected_exercises(solutions=ROOT / "solutions"):
    """{file name: notebook text} for every exercise the generator would write."""
    out = {}
    for path in sorted(pathlib.Path(solutions).glob("*.ipynb")):
        nb = make_exercise(nbformat.read(path, as_version=4))
        out[path.name] = nbformat.writes(nb) + "\n"
    return out


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
