"""Gather the learner's own functions from their exercise notebooks, for the capstone.

my_functions() reads, for each wanted name, the exercise notebook of the lesson
that owns it (attnlib.course), in the folder the capstone notebook runs from: the
learner's workspace/exercises/ (or solutions/ for the maintainers). It runs that
notebook's code cells, except the check cells, in a namespace of its own (so one
notebook's helpers never replace another's), and keeps each function whose cell
no longer holds the stub.

Then it links the notebooks into one model. A notebook that needs another
exercise's function so that it stands on its own borrows a stand-in: attnlib's
version (exercise 10 imports attnlib's multi_head_attention) or a helper it
defines (exercise 09's `attend` is one head's attention). Wherever the learner
wrote that other function, the stand-in is replaced by it, so their block calls
their heads, and their heads call their attention: a broken attention then
changes the forward pass, as it would in a model built from their code alone.
"""
import contextlib
import io
import pathlib
import re

import nbformat

from ..course import lesson
from ..learner_ops import NAMES
from ..course.notebooks import CHECK_CALL

STUB = 'NotImplementedError("not attempted yet")'
# Helpers an exercise notebook defines in place of another exercise's function: {stem: {helper: op name}}.
HELPERS = {"09_heads": {"attend": "attention"}}


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


def _stand_ins(ns, stem, found):
    """{name in this namespace: the op it stands in for}: attnlib's functions under an op's name, and the
    notebook's own helpers (HELPERS), for every op the learner wrote in another notebook."""
    borrowed = {name: name for name in NAMES if getattr(ns.get(name), "__module__", "").split(".")[0] == "attnlib"}
    links = {**borrowed, **{h: op for h, op in HELPERS.get(stem, {}).items() if callable(ns.get(h))}}
    return {name: op for name, op in links.items() if op in found and lesson(op).stem != stem}


def my_functions(names=NAMES, folder="."):
    """{name: your function} for every name in `names` you have written; prints where each one came from.

    Where one of your notebooks used a stand-in for a function you wrote in another one (attnlib's
    multi_head_attention in exercise 10, the helper attend in exercise 09), your own version takes its place."""
    folder = pathlib.Path(folder)
    found, rows, runs = {}, {}, {}
    for name in names:
        stem = lesson(name).stem
        path = folder / f"{stem}.ipynb"
        if not path.exists():
            rows[name] = f"attnlib's ({path.name} is not in {folder.resolve().name}/)"
            continue
        if stem not in runs:
            runs[stem] = _run_cells(path)
        ns, cells = runs[stem]
        cell = next((c for c in cells if _defines(c, name)), "")
        if not callable(ns.get(name)) or STUB in cell:
            rows[name] = f"attnlib's (not written yet in {path.name})"
            continue
        found[name] = ns[name]
        rows[name] = f"yours, from {path.name}"
    linked = {}
    for stem, (ns, _) in runs.items():
        for helper, op in _stand_ins(ns, stem, found).items():
            ns[helper] = found[op]
            linked[stem] = linked.get(stem, []) + [(helper, op)]
    for name, fn in found.items():  # say so beside each function that calls a replaced stand-in
        used = [(helper, op) for helper, op in linked.get(lesson(name).stem, [])
                if helper in getattr(getattr(fn, "__code__", None), "co_names", ())]
        if used:
            rows[name] += ", with " + " and ".join(
                f"your {op}" + (f" as its {helper}" if helper != op else "") for helper, op in used)
    width = max(map(len, rows), default=0)
    print("\n".join(f"{n:<{width}}  {where}" for n, where in rows.items()))
    return found
