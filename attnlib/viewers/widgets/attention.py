"""Notebook 07: one attention head on a sentence, every matrix at once, stepped cell by cell."""
import ipywidgets as ipw
import numpy as np

from .. import viz
from ..viz.tables import esc
from ...data import essay_example, tokenize
from ...mixing import causal_mask, softmax
from .controls import IntSlider, Play
from .explorer import Explorer, _cached_render, _checkbox, _text


def attention_frames(n, d):
    """The step control's frames: 0 = overview, then each cell of S = Q K^T, then each cell of O = A V."""
    return [("overview", 0, 0)] + [("S", i, j) for i in range(n) for j in range(n)] + \
        [("O", i, c) for i in range(n) for c in range(d)]


def attention_state(sentence="the cat sat on the mat", causal=True, scale=True, step=0, seed=0,
                    embed=None, Wq=None, Wk=None, Wv=None):
    """Every matrix of one attention head on a sentence: X, Q, K, V, S, mask, A, O.

    By default X holds the example's word vectors and Wq, Wk, Wv are the example's
    weights. To show another head (e.g. a trained one), give all four of embed, a
    function from the list of words to X (n, d_in), and Wq, Wk, Wv (d_in, d_head).
    """
    given = [w is not None for w in (embed, Wq, Wk, Wv)]
    if any(given) and not all(given):
        raise ValueError("give all of embed, Wq, Wk and Wv, or none of them")
    if embed is None:
        ex = essay_example(sentence, seed=seed)
        tokens, X, Wq, Wk, Wv = ex["tokens"], ex["X"], ex["Wq"], ex["Wk"], ex["Wv"]
    else:
        tokens = tokenize(sentence)
        X = np.asarray(embed(tokens), dtype=np.float64)
        if X.ndim != 2 or X.shape[0] != len(tokens) or X.shape[1] != np.shape(Wq)[0]:
            raise ValueError(f"embed must return X (n, d_in) with n = {len(tokens)} words and d_in = "
                             f"Wq.shape[0] = {np.shape(Wq)[0]}, got {X.shape}")
    n = len(tokens)
    Q, K, V = X @ Wq, X @ Wk, X @ Wv  # (n, d_head)
    d = Q.shape[1]
    S = Q @ K.T  # (n, n)
    if scale:
        S = S / np.sqrt(d)
    mask = causal_mask(n) if causal else np.zeros((n, n))
    A = softmax(S + mask)  # (n, n)
    O = A @ V  # (n, d_head)
    frames = attention_frames(n, V.shape[1])
    step = int(min(max(step, 0), len(frames) - 1))
    return {"tokens": tokens, "X": X, "Wq": Wq, "Wk": Wk, "Wv": Wv, "Q": Q, "K": K,
            "V": V, "S": S, "mask": mask, "A": A, "O": O, "causal": causal, "scale": scale,
            "step": step, "frame": frames[step], "n_frames": len(frames)}


def render_attention_projections(s):
    t = s["tokens"]
    dims = [f"d{c}" for c in range(s["Q"].shape[1])]
    proj = viz.equation(viz.matrix(s["X"], t, title="X"), "\u2192",
                        viz.matrix(s["Q"], t, dims, "Q = X Wq"), viz.matrix(s["K"], t, dims, "K = X Wk"),
                        viz.matrix(s["V"], t, dims, "V = X Wv"))
    return {"projections": proj.html}


def render_attention_mixing(s):
    t = s["tokens"]
    dims = [f"d{c}" for c in range(s["Q"].shape[1])]
    s_title = "S = Q K\u1d40 / \u221ad" if s["scale"] else "S = Q K\u1d40"
    scores = viz.equation(viz.matrix(s["S"], t, t, s_title, name="S"), "+",
                          viz.matrix(s["mask"], t, t, "mask"), "\u2192 softmax \u2192",
                          viz.matrix(s["A"], t, t, "A", precision=2, vmax=1.0))
    out = viz.equation(viz.matrix(s["A"], t, t, "A", vmax=1.0, name="A (mix)"), "\u00d7",
                       viz.matrix(s["V"], t, dims, "V"), "=", viz.matrix(s["O"], t, dims, "O"))
    return {"scores": scores.html, "output": out.html}


def render_attention_frame(s):
    t = s["tokens"]
    dims = [f"d{c}" for c in range(s["Q"].shape[1])]
    stage, i, j = s["frame"]
    if stage == "overview":
        frame = _text(f"Step 0 of {s['n_frames'] - 1}: press play (or move the step slider) to walk "
                      f"through every product, one cell at a time.")
    elif stage == "S":
        R = s["K"].T / (np.sqrt(s["Q"].shape[1]) if s["scale"] else 1.0)
        frame = viz.matmul_step(s["Q"], R, i, j, rows=t, cols=t, inner=dims,
                                names=("Q", "K\u1d40/\u221ad" if s["scale"] else "K\u1d40", "S")).html
        if s["causal"] and j > i:
            frame += _text(f"{esc(t[j])} comes after {esc(t[i])}: the mask turns this score into "
                           f"\u2212\u221e, so its weight in A is exactly 0.")
    else:
        frame = viz.matmul_step(s["A"], s["V"], i, j, rows=t, cols=dims, inner=t, names=("A", "V", "O")).html
    return {"frame": frame}


def render_attention(s):
    """Every panel of the attention explorer: projections, scores, output, frame."""
    return {**render_attention_projections(s), **render_attention_mixing(s), **render_attention_frame(s)}


def attention_explorer(sentence="the cat sat on the mat", seed=0, embed=None, Wq=None, Wk=None, Wv=None):
    """Type a sentence; toggle the causal mask and the 1/sqrt(d) scale; step through the products.

    embed, Wq, Wk, Wv: another head to show instead of the example's (see attention_state).
    """
    weights = dict(embed=embed, Wq=Wq, Wk=Wk, Wv=Wv)
    s0 = attention_state(sentence, seed=seed, **weights)
    controls = {"sentence": ipw.Text(value=sentence, description="sentence", continuous_update=False,
                                   layout=ipw.Layout(width="420px")),
                "causal": _checkbox("causal mask", True),
                "scale": _checkbox("scale by 1/\u221ad", True),
                "play": Play(value=0, min=0, max=s0["n_frames"] - 1, step=1, interval=700,
                             description="play through the products"),
                "step": IntSlider(value=0, min=0, max=s0["n_frames"] - 1, description="step")}
    ipw.link((controls["play"], "value"), (controls["step"], "value"))

    def compute():
        s = attention_state(controls["sentence"].value, controls["causal"].value, controls["scale"].value,
                            controls["step"].value, seed, **weights)
        for key in ("play", "step"):  # a new sentence has a different number of frames
            controls[key].max = s["n_frames"] - 1
        return s

    rows = [ipw.HBox([controls["sentence"], controls["causal"], controls["scale"]]),
            ipw.HBox([controls["play"], controls["step"]])]
    render = _cached_render([
        (lambda s: tuple(s["tokens"]), render_attention_projections),
        (lambda s: (tuple(s["tokens"]), s["causal"], s["scale"]), render_attention_mixing),
        (lambda s: (tuple(s["tokens"]), s["causal"], s["scale"], s["step"]), render_attention_frame)])
    return Explorer("attention", controls, compute, render,
                    watch=["sentence", "causal", "scale", "step"], layout_controls=rows)
