"""Stored outputs that hold on any CPU.

nbval compares a notebook's stored outputs with a fresh run on this machine. Two things
make such a comparison pass here and fail elsewhere, and nbval cannot see either:

- a marker nbval does not honour: it recognises `# NBVAL_IGNORE_OUTPUT` only when the
  comment holds the marker and nothing else, so `# NBVAL_IGNORE_OUTPUT: because ...`
  silently leaves the cell compared. Every line that mentions NBVAL_ is fed to nbval's
  own marker parser, and must be recognised by it.
- a printed digit that depends on the CPU's rounding: training amplifies a difference
  in the last bit of a sum until the printed loss moves. Another CPU is simulated by
  perturbing every initial weight of every TinyLM by a relative 1e-12 (for float32
  weights, by its own rounding step, since 1e-12 is below it); every compared cell of a
  notebook that builds a model must then print exactly what is stored.
"""
import re

import nbformat
import pytest
from nbval.plugin import find_comment_markers, get_sanitize_patterns, transform_streams_for_comparison

from attnlib.course import EXERCISE_LESSONS, LESSONS
from helpers import ROOT, output_ignored

FOLDERS = ("notebooks", "solutions", "exercises")
ALL_NOTEBOOKS = sorted(p.relative_to(ROOT).as_posix() for f in FOLDERS for p in (ROOT / f).glob("*.ipynb"))
MODEL_CELL = re.compile(r"\bTinyLM\(|attnlib\.train\b|from attnlib\.train import|\bat\.train\.")


def nbval_markers(line):
    """The markers nbval's own parser finds on one line."""
    return list(find_comment_markers(line))


def compared(cell):
    """True when nbval compares this code cell's outputs with the stored ones."""
    return not output_ignored(cell)


def test_every_notebook_is_seen():
    stems = {les.stem for les in LESSONS}
    assert {f"notebooks/{s}.ipynb" for s in stems} <= set(ALL_NOTEBOOKS)
    assert {f"solutions/{les.stem}.ipynb" for les in EXERCISE_LESSONS} <= set(ALL_NOTEBOOKS)


@pytest.mark.parametrize("path", ALL_NOTEBOOKS)
def test_every_nbval_marker_is_one_nbval_honours(path):
    nb = nbformat.read(ROOT / path, as_version=4)
    unrecognised = [(i, line.strip()) for i, cell in enumerate(nb.cells) if cell.cell_type == "code"
                    for line in cell.source.splitlines() if "NBVAL_" in line and not nbval_markers(line)]
    assert not unrecognised, (
        f"{path}: nbval does not recognise these lines, so it ignores them (a marker must be alone on its "
        f"comment line; put the reason on the next line): {unrecognised}")


def test_the_marker_check_can_fail():
    """The parser the test relies on really refuses a marker followed by a reason."""
    assert nbval_markers("# NBVAL_IGNORE_OUTPUT") == [("check", False)]
    assert nbval_markers("# NBVAL_IGNORE_OUTPUT: a reason") == []
    assert not compared(nbformat.v4.new_code_cell("# NBVAL_IGNORE_OUTPUT\nprint(1)"))
    assert compared(nbformat.v4.new_code_cell("# NBVAL_IGNORE_OUTPUT: unstable\nprint(1)"))


# --- another CPU, simulated --------------------------------------------------------------------------

PERTURB = '''\
import numpy as _np
import attnlib.model as _model
_plain_init = _model.TinyLM._init_params
def _perturbed_init(self, seed):
    """Every initial weight moved by a relative 1e-12 (float32: its own rounding step)."""
    p = _plain_init(self, seed)
    noise = _np.random.default_rng(20261202 + seed)
    for key, W in p.items():
        rel = max(1e-12, float(_np.finfo(W.dtype).eps))
        p[key] = (W * (1.0 + rel * noise.standard_normal(W.shape))).astype(W.dtype)
    return p
_model.TinyLM._init_params = _perturbed_init
'''
SKIP_KEYS = {"metadata", "traceback", "output_type", "execution_count", "image/png", "image/jpeg",
             "application/vnd.jupyter.widget-view+json"}  # what nbval leaves out of its comparison


def sanitizers():
    """The (regex, replacement) pairs of tests/sanitize.cfg, read as nbval reads them."""
    pairs = get_sanitize_patterns((ROOT / "tests" / "sanitize.cfg").read_text())
    return [(re.compile(regex), replace) for regex, replace in pairs]


def comparable(outputs, subs):
    """What nbval compares of a cell's outputs, as nbval arranges it: the sanitised values under each key."""
    merged = []  # consecutive prints to one stream are one output, as the kernel's messages may split them
    for out in outputs:
        if merged and out.output_type == "stream" == merged[-1].output_type and out.name == merged[-1].name:
            merged[-1] = nbformat.from_dict({**merged[-1], "text": merged[-1].text + out.text})
        else:
            merged.append(out)
    found = {}
    for out in transform_streams_for_comparison(merged):
        flat = {**{k: v for k, v in out.items() if k != "data"}, **out.get("data", {})}
        for key, text in flat.items():
            if key not in SKIP_KEYS:
                text = "".join(text) if isinstance(text, list) else text
                for regex, replace in subs if isinstance(text, str) else ():
                    text = regex.sub(replace, text)
                found.setdefault(key, []).append(text)
    return found


def builds_a_model(path):
    nb = nbformat.read(ROOT / path, as_version=4)
    return any(c.cell_type == "code" and MODEL_CELL.search(c.source) for c in nb.cells)


MODEL_NOTEBOOKS = [p for p in ALL_NOTEBOOKS if not p.startswith("exercises/") and builds_a_model(p)]


def unstable_cells(path):
    """Run the notebook with perturbed initial weights; the compared cells whose printed text changed."""
    from nbclient import NotebookClient
    stored = nbformat.read(ROOT / path, as_version=4)
    nb = nbformat.read(ROOT / path, as_version=4)
    nb.cells.insert(0, nbformat.v4.new_code_cell(PERTURB))
    NotebookClient(nb, timeout=600, kernel_name="python3", allow_errors=True,
                   resources={"metadata": {"path": str((ROOT / path).parent)}}).execute()
    subs, moved = sanitizers(), []
    for i, (before, after) in enumerate(zip(stored.cells, nb.cells[1:])):
        if before.cell_type != "code" or not compared(before):
            continue
        errors = [o for o in after.outputs if o.output_type == "error"]
        assert not errors, f"{path} cell {i} failed with perturbed weights: {errors[0].ename}: {errors[0].evalue}"
        if comparable(before.outputs, subs) != comparable(after.outputs, subs):
            moved.append(i)
    return moved


def test_model_notebooks_are_found():
    assert "notebooks/11_next_token.ipynb" in MODEL_NOTEBOOKS
    assert "notebooks/19_your_own_model.ipynb" in MODEL_NOTEBOOKS and "notebooks/16_rope.ipynb" in MODEL_NOTEBOOKS


@pytest.mark.parametrize("path", MODEL_NOTEBOOKS)
def test_stored_outputs_survive_another_cpus_rounding(path):
    moved = unstable_cells(path)
    assert not moved, (
        f"{path}: cells {moved} print different text once the initial weights move by a relative 1e-12, as "
        f"another CPU's rounding moves them: print only what holds (bounds, orderings, asserted claims), or "
        f"mark the cell `# NBVAL_IGNORE_OUTPUT` (alone on its line) and say why on the next line")
