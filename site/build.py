"""Build the course's static website into artifacts/site/ (`make site`), from the stored outputs.

    python site/build.py                  # stage, build, print the build time and the page count
    python site/build.py --out DIR        # build somewhere else (the browser test builds into a temp folder)

Nothing is executed and nothing is fetched. The sources are staged under artifacts/site-src/: site/index.md,
every notebook of notebooks/ as stored, and every notebook of exercises/ with a short note under its
title saying that the page is read-only and how to run it (the source notebooks are never touched).
MathJax 3 comes from the pinned npm package in .node/site/ (`make site-js` installs it) and is staged under
artifacts/site-mathjax/, which conf.py adds to the site's static files. Sphinx runs with -W: a broken link
between pages, or any other warning, fails the build.
"""
import argparse
import json
import pathlib
import shutil
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
SITE = ROOT / "site"
MATHJAX = ROOT / ".node" / "site" / "node_modules" / "mathjax"
# the parts of MathJax's es5 bundle that a page with TeX maths loads (fonts and TeX extensions on demand)
MATHJAX_PARTS = ["tex-chtml.js", "input", "output/chtml", "ui", "a11y", "sre"]
EXERCISE_NOTE = """```{{admonition}} A read-only page
:class: ra-exercise-note
This is exercise notebook {number} as the course ships it: its stubs are empty and nothing runs on this page.
To do the exercises, get the course and run `make lab` in it. Your own copy opens as
`workspace/exercises/{stem}.ipynb`; each exercise's check cell grades your function where you wrote it,
and `make grade` shows your progress over every lesson.
```"""


def stage_mathjax(dest):
    """Copy the pinned MathJax 3 into dest/mathjax/, the folder conf.py adds to the static files."""
    package = MATHJAX / "package.json"
    if not package.exists():
        sys.exit(f"MathJax is missing: {MATHJAX.relative_to(ROOT)} (run `make site-js`, which installs the "
                 f"pinned npm package)")
    version = json.loads(package.read_text())["version"]
    if not version.startswith("3."):
        sys.exit(f"the site needs MathJax 3, found {version} in {MATHJAX.relative_to(ROOT)}")
    out = dest / "mathjax"
    stamp = dest.with_name(dest.name + ".version")
    if stamp.exists() and stamp.read_text() == version and out.exists():
        return version
    shutil.rmtree(dest, ignore_errors=True)
    for part in MATHJAX_PARTS:
        src = MATHJAX / "es5" / part
        target = out / part
        target.parent.mkdir(parents=True, exist_ok=True)
        if src.is_dir():
            shutil.copytree(src, target, ignore=shutil.ignore_patterns("svg*"))
        else:
            shutil.copy2(src, target)
    shutil.copy2(MATHJAX / "LICENSE", out / "LICENSE")
    stamp.write_text(version)
    return version


def with_note(nb, stem):
    """The exercise notebook with the read-only note under its title (a cell of its own)."""
    first = nb["cells"][0]
    lines = "".join(first["source"]).splitlines(keepends=True)
    title, rest = lines[0], "".join(lines[1:]).lstrip("\n")
    note = {"cell_type": "markdown", "id": "ra-site-note", "metadata": {},
            "source": EXERCISE_NOTE.format(number=stem[:2], stem=stem)}
    head = {"cell_type": "markdown", "id": "ra-site-title", "metadata": {}, "source": title.rstrip("\n")}
    cells = [head, note] + ([dict(first, source=rest)] if rest.strip() else []) + nb["cells"][1:]
    return dict(nb, cells=cells)


def stage_sources(src):
    """artifacts/site-src/: index.md, notebooks/ as stored, exercises/ with their note."""
    shutil.rmtree(src, ignore_errors=True)
    (src / "notebooks").mkdir(parents=True)
    (src / "exercises").mkdir()
    shutil.copy2(SITE / "index.md", src / "index.md")
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        shutil.copy2(path, src / "notebooks" / path.name)
    for path in sorted((ROOT / "exercises").glob("*.ipynb")):
        nb = json.loads(path.read_text(encoding="utf-8"))
        (src / "exercises" / path.name).write_text(json.dumps(with_note(nb, path.stem), indent=1,
                                                              ensure_ascii=False), encoding="utf-8")


def build(out, quiet=True):
    """Stage and build the site into `out`; return (seconds, pages)."""
    from sphinx.cmd.build import build_main
    start = time.perf_counter()
    stage_mathjax(ROOT / "artifacts" / "site-mathjax")
    src = ROOT / "artifacts" / "site-src"
    stage_sources(src)
    shutil.rmtree(out, ignore_errors=True)
    args = ["-b", "html", "-c", str(SITE), "-W", "--keep-going", "-d", str(ROOT / "artifacts" / "site-doctrees"),
            "-E", "-j", "auto"] + (["-q"] if quiet else []) + [str(src), str(out)]
    if build_main(args) != 0:
        raise SystemExit("the site did not build (warnings are errors: see above)")
    special = ("genindex.html", "search.html")  # Sphinx's own pages, not the course's
    pages = sorted(p.relative_to(out).as_posix() for p in out.rglob("*.html")
                   if not p.relative_to(out).parts[0].startswith("_") and p.name not in special)
    return time.perf_counter() - start, pages


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=str(ROOT / "artifacts" / "site"), help="output folder")
    parser.add_argument("-v", "--verbose", action="store_true", help="Sphinx's progress lines")
    args = parser.parse_args(argv)
    out = pathlib.Path(args.out).resolve()
    seconds, pages = build(out, quiet=not args.verbose)
    shown = out.relative_to(ROOT) if out.is_relative_to(ROOT) else out
    print(f"site: {len(pages)} pages in {shown}/ built in {seconds:.1f} s; open {shown}/index.html")
    return 0


if __name__ == "__main__":
    sys.exit(main())
