"""Gather the learner's own functions from their exercise notebooks, for the capstone.

my_functions() reads, for each wanted name, the exercise notebook of the lesson
that owns it (attnlib.course), in the folder the capstone notebook runs from: the
learner's workspace/exercises/ (or solutions/ for the maintainers). It runs that
notebook's code cells, except the check cells, in a namespace of its own (so one
notebook's helpers never replace another's), and keeps each function whose cell
no longer holds the stub.
"""
import contextlib
import io
import pathlib
import re

import nbformat

from ..course import lesson
from ..ops import OPS
from .notebooks import CHECK_CALL

STUB = 'NotImplementedError("not attempted yet")'


def _defines(source, name):
    return re.search(rf"^def {name}\(", source, flags=re.M) is not None


def _run_cells(path):
    """The namespace left by a notebook's code cells (check cells skipped), and the cells' sources."""
    ns, cells = {"__name__": f"notebook_{path.stem}"}, []
    for cell in nbformat.read(path, as_version=4).cells:
        if cell.cell_type != "code" or CHECK_CALL.search(cell.source):
            continue
        source = "\n".join(line for line in cell.source.splitlines() if not line.lstrip().startswith(("%", "!")))
        cells.append(source)
        with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(Exception):
            exec(compile(source, f"{path.name}", "exec"), ns)  # noqa: S102 - the learner's own notebook
    return ns, cells


def my_functions(names=OPS, folder="."):
    """{name: your function} for every name in `names` you have written; prints where each one came from."""
    folder = pathlib.Path(folder)
    found, rows, runs = {}, [], {}
    for name in names:
        stem = lesson(name).stem
        path = folder / f"{stem}.ipynb"
        if not path.exists():
            rows.append((name, f"attnlib's ({path.name} is not in {folder.resolve().name}/)"))
            continue
        if stem not in runs:
            runs[stem] = _run_cells(path)
        ns, cells = runs[stem]
        cell = next((c for c in cells if _defines(c, name)), "")
        if not callable(ns.get(name)) or STUB in cell:
            rows.append((name, f"attnlib's (not written yet in {path.name})"))
            continue
        found[name] = ns[name]
        rows.append((name, f"yours, from {path.name}"))
    width = max(len(n) for n, _ in rows) if rows else 0
    print("\n".join(f"{n:<{width}}  {where}" for n, where in rows))
    return found
