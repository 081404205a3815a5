"""How long the whole course takes: every lesson notebook run top to bottom, each in a fresh kernel, in course order.

Nothing is written: each notebook runs from a copy in memory, from its own folder, as a learner (and nbval)
runs it. Prints each notebook's seconds, the slowest, and the total; asserts nothing about seconds. A lesson
should take at most 20 s on the course's machine.

    python bench/course.py
"""
import pathlib
import time

import nbformat
from nbclient import NotebookClient

from attnlib.course import LESSONS

ROOT = pathlib.Path(__file__).resolve().parent.parent


def run(path):
    """Seconds to execute one notebook in a fresh kernel; raises if a cell fails."""
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}})
    start = time.perf_counter()
    client.execute()
    return time.perf_counter() - start


def main():
    seconds = {}
    for lesson in LESSONS:
        seconds[lesson.stem] = run(ROOT / "notebooks" / f"{lesson.stem}.ipynb")
        print(f"{lesson.stem:32} {seconds[lesson.stem]:6.1f} s", flush=True)
    slowest = max(seconds, key=seconds.get)
    print(f"{'total':32} {sum(seconds.values()):6.1f} s for {len(seconds)} notebooks; slowest {slowest}")


if __name__ == "__main__":
    main()
