"""Write the course map (attnlib.course.LESSONS) into the README and notebook 00, and the API table (attnlib.__all__)
into the README.

    python tools/course_map.py            # rewrite the maps and the API table
    python tools/course_map.py --check    # exit 1 if any is out of date

The README's map sits between two marker comments; notebook 00's map is the table
in its "## The course map" cell (a Markdown cell: no stored output changes).
"""
import argparse
import pathlib
import re
import sys

import inspect

import nbformat

import attnlib
from attnlib.course import course_map
from safe_write import write_text

ROOT = pathlib.Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
START_HERE = ROOT / "notebooks" / "00_start_here.ipynb"
BEGIN = "<!-- course map: made by tools/course_map.py from attnlib/course/manifest.py -->"
END = "<!-- end of course map -->"
API_BEGIN = "<!-- API table: made by tools/course_map.py from attnlib.__all__ -->"
API_END = "<!-- end of API table -->"
TABLE = re.compile(r"^\|.*\|[ \t]*(?:\n\|.*\|[ \t]*)*", re.M)


def api_table():
    """One row per public name of attnlib, in the order they are declared: its signature and its first line."""
    rows = ["| name | signature | what it is |", "|---|---|---|"]
    for name in attnlib.__all__:
        obj = getattr(attnlib, name)
        first = inspect.getdoc(obj).split("\n\n")[0].replace("\n", " ").replace("|", "\\|")
        signature = str(inspect.signature(obj)).replace("<class 'numpy.float64'>", "np.float64")
        rows.append(f"| `{name}` | `{name}{signature}` | {first} |")
    return "\n".join(rows)


def between(text, begin, end, body):
    if begin not in text or end not in text:
        raise SystemExit(f"README.md lacks the markers {begin} ... {end}")
    head, rest = text.split(begin, 1)
    return head + begin + "\n" + body + "\n" + end + rest.split(end, 1)[1]


def readme_text():
    text = README.read_text(encoding="utf-8")
    return between(between(text, BEGIN, END, course_map("readme")), API_BEGIN, API_END, api_table())


def start_here_text():
    nb = nbformat.read(START_HERE, as_version=4)
    cell = next(c for c in nb.cells if c.cell_type == "markdown" and c.source.startswith("## The course map"))
    cell.source = TABLE.sub(lambda m: course_map("notebook"), cell.source, count=1)
    return nbformat.writes(nb) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="only report whether the maps are up to date")
    args = parser.parse_args(argv)
    stale = [path for path, text in ((README, readme_text()), (START_HERE, start_here_text()))
             if path.read_text(encoding="utf-8") != text]
    if args.check:
        print("course maps are up to date" if not stale else "out of date: " + ", ".join(p.name for p in stale))
        return 1 if stale else 0
    for path, text in ((README, readme_text()), (START_HERE, start_here_text())):
        if path in stale:
            write_text(path, text)
            print(f"wrote the course map into {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
