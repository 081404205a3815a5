"""Notebook 11: generation with a KV cache, one token at a time."""
import ipywidgets as ipw
import numpy as np

from .. import viz
from ..viz.tables import esc
from ...attention import attention
from ...cache import attend_step
from ...data import essay_example, tokenize
from ...mixing import softmax
from .controls import IntSlider, Play
from .explorer import Explorer, _text


def kv_cache_state(sentence="the cat sat on the mat", t=1, seed=0):
    """Generation step t (1..n): K, V caches with t rows, only query row t-1 computed."""
    ex = essay_example(sentence, seed=seed)
    tokens = ex["tokens"]
    n = len(tokens)
    t = int(min(max(t, 1), n))
    X = ex["X"][:t]  # tokens seen so far, (t, d_model)
    K_cache, V_cache = X @ ex["Wk"], X @ ex["Wv"]  # (t, d_head): one new row per step
    q = X[-1] @ ex["Wq"]  # (d_head,): only the newest token's query
    s = K_cache @ q / np.sqrt(q.shape[0])  # (t,)
    a = softmax(s)  # (t,)
    o = attend_step(q, K_cache, V_cache)  # (d_head,)
    X_all = ex["X"][:t]
    O_full = attention(X_all @ ex["Wq"], X_all @ ex["Wk"], X_all @ ex["Wv"])  # recomputed from scratch
    return {"tokens": tokens, "t": t, "n": n, "K": K_cache, "V": V_cache, "q": q, "s": s, "a": a, "o": o,
            "o_recomputed": O_full[-1], "cached_dots": t, "recompute_dots": t * (t + 1) // 2}


def render_kv_cache(s):
    seen, t = s["tokens"][:s["t"]], s["t"]
    dims = [f"d{c}" for c in range(len(s["q"]))]
    new = [t - 1]
    caches = viz.equation(viz.matrix(s["q"][None, :], [seen[-1]], dims, "q (new row only)"), "   ",
                          viz.matrix(s["K"], seen, dims, "K cache", highlight_rows=new, name="K"),
                          viz.matrix(s["V"], seen, dims, "V cache", highlight_rows=new, name="V"))
    row = viz.equation(viz.matrix(s["s"][None, :], [seen[-1]], seen, "s = q K\u1d40/\u221ad", name="s"),
                       "\u2192",
                       viz.matrix(s["a"][None, :], [seen[-1]], seen, "a = softmax(s)", vmax=1.0, name="a"),
                       "\u2192", viz.matrix(s["o"][None, :], [seen[-1]], dims, "o = a V", name="o"))
    same = np.allclose(s["o"], s["o_recomputed"], rtol=1e-12, atol=1e-12)
    rows, cols = ("row", "column") if t == 1 else ("rows", "columns")
    dots = "dot product" if s["cached_dots"] == 1 else "dot products"
    note = (f"Step {t} of {s['n']}: the cache holds {t} {rows} of K and V; the new token "
            f"'{esc(seen[-1])}' adds one row to each and computes one query row, so the score row has "
            f"{t} {cols}: {s['cached_dots']} {dots} now, instead of {s['recompute_dots']} for "
            f"recomputing every row of the causal score matrix. o equals the last row of attention "
            f"recomputed from scratch: {'yes' if same else 'NO'}.")
    return {"caches": caches.html, "row": row.html, "note": _text(note)}


def kv_cache_explorer(sentence="the cat sat on the mat", seed=0):
    """Step through generation one token at a time: the caches grow by one row per step."""
    n = len(tokenize(sentence))
    controls = {"sentence": ipw.Text(value=sentence, description="sentence", continuous_update=False,
                                     layout=ipw.Layout(width="420px")),
                "play": Play(value=1, min=1, max=n, step=1, interval=900, description="play through the generation"),
                "step": IntSlider(value=1, min=1, max=n, description="step")}
    ipw.link((controls["play"], "value"), (controls["step"], "value"))

    def compute():
        s = kv_cache_state(controls["sentence"].value, controls["step"].value, seed)
        for key in ("play", "step"):  # one step per token of the new sentence
            controls[key].max = s["n"]
        return s

    rows = [controls["sentence"], ipw.HBox([controls["play"], controls["step"]])]
    return Explorer("kv-cache", controls, compute, render_kv_cache, watch=["sentence", "step"],
                    layout_controls=rows)
