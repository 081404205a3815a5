"""Re-execute notebooks in a fresh kernel and store their outputs.

    python tools/refresh_notebooks.py                 # every notebook in notebooks/ and solutions/
    python tools/refresh_notebooks.py notebooks/04_mixing_rows.ipynb

Each notebook runs top to bottom from its own folder, exactly as a learner (and
nbval) would run it. The tool strips metadata.widgets (widget state is
per-run noise) and every cell's metadata.execution timestamps, joins split print
outputs, gives widget views stable ids, fails on any error or stderr output, and
prints a table of cell counts and execution times. A notebook that differs from its
committed version is backed up to .backups/ before it is rewritten.
"""
import argparse
import hashlib
import pathlib
import sys
import time

import nbformat
from nbclient import NotebookClient

from attnlib.course import EXERCISE_LESSONS, LESSONS
from safe_write import write_text

ROOT = pathlib.Path(__file__).resolve().parent.parent


def course_notebooks():
    """Every notebook the tool refreshes: the lessons (and the gallery), then the solutions, in course order."""
    lessons = [ROOT / "notebooks" / f"{les.stem}.ipynb" for les in LESSONS]
    extra = sorted(set((ROOT / "notebooks").glob("*.ipynb")) - set(lessons))
    return lessons + extra + [ROOT / "solutions" / f"{les.stem}.ipynb" for les in EXERCISE_LESSONS]


def strip_timestamps(nb):
    """Drop per-run metadata: the widget state and each cell's execution timestamps."""
    nb.metadata.pop("widgets", None)
    for cell in nb.cells:
        cell.metadata.pop("execution", None)


def problems(nb):
    """Error or stderr outputs in an executed notebook, as strings."""
    found = []
    for i, cell in enumerate(nb.cells):
        src = cell.get("source", "")
        for out in cell.get("outputs", []):
            if out.get("output_type") == "error" and "NBVAL_RAISES_EXCEPTION" not in src:
                found.append(f"cell {i}: {out.get('ename')}: {out.get('evalue')}")
            if out.get("name") == "stderr":
                found.append(f"cell {i}: wrote to stderr: {''.join(out.get('text', ''))[:200]!r}")
    return found


def merge_streams(nb):
    """Join consecutive stdout (or stderr) outputs of a cell: a print split by timing is one output."""
    for cell in nb.cells:
        merged = []
        for out in cell.get("outputs", []):
            if (merged and out.get("output_type") == "stream" and merged[-1].get("output_type") == "stream"
                    and merged[-1].get("name") == out.get("name")):
                merged[-1]["text"] += out["text"]
            else:
                merged.append(out)
        if "outputs" in cell:
            cell.outputs = merged


def stable_widget_ids(nb, name):
    """Replace each widget view's random model_id by one derived from its place.

    metadata.widgets is stripped, so the id points at no stored state either way;
    a stable id keeps refreshes from rewriting every widget cell.
    """
    for i, cell in enumerate(nb.cells):
        for j, out in enumerate(cell.get("outputs", [])):
            view = out.get("data", {}).get("application/vnd.jupyter.widget-view+json")
            if view is not None:
                view["model_id"] = hashlib.md5(f"{name}:{i}:{j}".encode()).hexdigest()


def refresh(path, timeout=600):
    """Execute one notebook in place; return (n_cells, seconds, problems)."""
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3", allow_errors=True,
                            record_timing=False,  # no per-run timestamps in the stored notebook
                            resources={"metadata": {"path": str(path.parent)}})
    start = time.perf_counter()
    client.execute()
    seconds = time.perf_counter() - start
    strip_timestamps(nb)
    merge_streams(nb)
    stable_widget_ids(nb, path.name)
    found = problems(nb)
    if not found:
        saved = write_text(path, nbformat.writes(nb) + "\n")
        if saved:
            print(f"    {path.name} had local edits: saved them to {saved.relative_to(ROOT)}")
    return len(nb.cells), seconds, found


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs="*", help="notebooks to refresh (default: all)")
    args = parser.parse_args(argv)
    paths = [pathlib.Path(p).resolve() for p in args.paths] or course_notebooks()
    failed = False
    print(f"{'notebook':42} {'cells':>5} {'seconds':>8}")
    for path in paths:
        n_cells, seconds, found = refresh(path)
        print(f"{str(path.relative_to(ROOT)):42} {n_cells:5d} {seconds:8.1f}")
        for line in found:
            failed = True
            print(f"    NOT SAVED: {line}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
