"""Notebook 16: RoPE's angle for every pair and position, and the scores that do not move when the sentence does."""
import ipywidgets as ipw
import numpy as np

from .. import viz
from ...data import essay_example
from ...positions import angles, rope
from ..viz.tables import esc
from .controls import IntSlider, LogSlider
from .explorer import Explorer, _checkbox, _text


def rope_state(sentence="the cat sat on the mat", shift=0, theta=10000.0, rotate=True, seed=0):
    """The essay's head on a sentence whose words stand at positions shift, shift + 1, ...

    angle (n, d_head/2): positions[t] * theta^(-2i/d_head), the turn of pair i of row t. With rotate,
    S = rope(Q) rope(K)^T / sqrt(d_head), else S = Q K^T / sqrt(d_head). S0 is the same at shift 0, and
    `moved` the largest |S - S0|: rounding only, whatever the shift, when q and k are rotated.
    """
    ex = essay_example(sentence, seed=seed)
    tokens, X = ex["tokens"], ex["X"]
    n, d_head = len(tokens), ex["Wq"].shape[1]
    positions = np.arange(n) + int(shift)  # (n,)
    Q, K = X @ ex["Wq"], X @ ex["Wk"]  # (n, d_head)

    def scores(pos):
        q, k = (rope(Q, pos, theta), rope(K, pos, theta)) if rotate else (Q, K)
        return q @ k.T / np.sqrt(d_head)  # (n, n)

    S, S0 = scores(positions), scores(np.arange(n))
    return {"tokens": tokens, "positions": positions, "shift": int(shift), "theta": float(theta),
            "rotate": bool(rotate), "angle": angles(positions, d_head, theta), "S": S, "S0": S0,
            "moved": float(np.abs(S - S0).max())}


def render_rope(s):
    rows = [f"{w} @{p}" for w, p in zip(s["tokens"], s["positions"])]
    pairs = [f"pair {i}" for i in range(s["angle"].shape[1])]
    turns = viz.matrix(s["angle"], rows, pairs, "angle (radians) = position \u00d7 \u03b8^(\u22122i/d)",
                       name="angle").html
    what = "rope(Q) rope(K)\u1d40 / \u221ad" if s["rotate"] else "Q K\u1d40 / \u221ad (no rotation)"
    S = viz.matrix(s["S"], rows, rows, f"S = {what}", name="S").html
    theta = f"\u03b8 = {viz.fmt(s['theta'], 0)}"
    if not s["rotate"]:
        note = (f"No rotation: the scores ignore where the words stand, and the two rows of a repeated word are the "
                f"same. Tick \u201crotate q and k\u201d to turn each pair by its angle ({theta}).")
    elif s["shift"] == 0:
        note = (f"Every word at its place in the sentence ({theta}). Pair 0 turns one radian per position, each "
                "later pair more slowly, and the two rows of a repeated word now differ. Move the shift: every "
                "angle changes, the scores do not.")
    else:
        note = (f"Every word moved {s['shift']} positions on ({theta}): each angle grew by {s['shift']} \u00d7 the "
                f"pair's frequency, yet the largest change in S from shift 0 is {s['moved']:.1e}, rounding only: "
                "q and k turned by the same extra angle, so their dot product kept its value.")
    return {"angles": turns, "scores": S, "note": _text(esc(note))}


def rope_explorer(sentence="the cat sat on the mat", shift=0, theta=10000.0, seed=0):
    """Type a sentence, move every word along (shift) and change theta: see each pair's angle and the scores."""
    rope_state(sentence, shift, theta, True, seed)  # a bad first sentence raises here, before any widget exists
    controls = {"sentence": ipw.Text(value=sentence, description="sentence", continuous_update=False,
                                     layout=ipw.Layout(width="420px")),
                "shift": IntSlider(value=shift, min=0, max=100, description="shift every position by"),
                "theta": LogSlider(value=theta, base=10, min=1, max=5, step=0.5, description="theta",
                                   readout_format=".0f"),
                "rotate": _checkbox("rotate q and k", True)}

    def compute():
        return rope_state(controls["sentence"].value, controls["shift"].value, controls["theta"].value,
                          controls["rotate"].value, seed)

    rows = [ipw.HBox([controls["sentence"], controls["rotate"]]), ipw.HBox([controls["shift"], controls["theta"]])]
    return Explorer("rope", controls, compute, render_rope, layout_controls=rows)
