"""Notebooks 05-06: a dot product and its place in Q K^T; the softmax of one row of scores."""
import ipywidgets as ipw
import numpy as np

from .. import viz
from ..viz.tables import esc
from ...data import essay_example, tokenize
from ...mixing import causal_mask, softmax
from .controls import FloatSlider, LogSlider
from .explorer import Explorer, _num, _text, _token_dropdown


def similarity_state(q, k, i, j, Q, K):
    """Q with row i = q, K with row j = k; S = Q K^T and the dot product q . k = S[i, j]."""
    Q = np.array(Q, dtype=np.float64)
    K = np.array(K, dtype=np.float64)
    q, k = np.asarray(q, dtype=np.float64), np.asarray(k, dtype=np.float64)
    Q[i], K[j] = q, k
    norms = np.linalg.norm(q) * np.linalg.norm(k)
    return {"q": q, "k": k, "i": int(i), "j": int(j), "Q": Q, "K": K, "S": Q @ K.T,
            "dot": float(q @ k), "cosine": float(q @ k / norms) if norms > 0 else 0.0}


def render_similarity(s, tokens):
    d = len(s["q"])
    step = viz.matmul_step(s["Q"], s["K"].T, s["i"], s["j"], rows=tokens, cols=tokens,
                           names=("Q", "K\u1d40", "S = Q K\u1d40"))
    note = (f"q \u00b7 k = {_num(s['dot'])}; cosine = {_num(s['cosine'])}. "
            f"Pointing the same way gives a large positive score, opposite ways a negative one, "
            f"at right angles zero. Every cell of S is one such dot product over d = {d} features.")
    return {"step": step.html, "note": _text(note)}


def similarity_explorer(q=None, k=None, sentence="the cat sat on the mat", Q=None, K=None, query=1, key=0):
    """Edit q and k with sliders: their dot product, and the cell of Q K^T it fills.

    Q and K come from the sentence and the example weights (d_head = len(q), 3 by
    default), or are given as (n, d) arrays for the sentence's n words (e.g. a
    trained head's). q starts as row `query` of Q and k as row `key` of K.

    The sliders move in steps of 0.01, so they show a loaded row rounded to 2 decimals
    (by the tables' rule).
    A slider still at its loaded position stands for the exact loaded value: the view
    opens on exactly Q K^T, the numbers of the notebook that passed Q and K.
    """
    if (Q is None) != (K is None):
        raise ValueError("give both Q and K, or neither")
    if Q is None:
        d = 3 if q is None else len(q)
        ex = essay_example(sentence, d_head=d)
        tokens = ex["tokens"]
        Q0, K0 = ex["X"] @ ex["Wq"], ex["X"] @ ex["Wk"]  # (n, d)
    else:
        tokens = tokenize(sentence)
        Q0, K0 = np.array(Q, dtype=np.float64), np.array(K, dtype=np.float64)  # copies, (n, d)
        if Q0.ndim != 2 or Q0.shape != K0.shape or Q0.shape[0] != len(tokens):
            raise ValueError(f"Q and K must both have shape (n, d) with n = {len(tokens)} words, "
                             f"got Q {Q0.shape} and K {K0.shape}")
        d = Q0.shape[1]
    i0, j0 = min(query, len(tokens) - 1), min(key, len(tokens) - 1)
    q = Q0[i0] if q is None else np.asarray(q, dtype=np.float64)
    k = K0[j0] if k is None else np.asarray(k, dtype=np.float64)
    if q.shape != (d,) or k.shape != (d,):
        raise ValueError(f"q and k must both be 1-D of the same length, got q {q.shape}, k {k.shape}")
    Q0[i0], K0[j0] = q, k

    limit = max(2.0, float(np.ceil(2 * max(np.abs(Q0).max(), np.abs(K0).max()))))

    def on_grid(v):  # the slider position for v: 2 decimals, rounded as the tables round (0.345 -> 0.35)
        return float(viz.number(v, 2))

    def slider(name, v):
        return FloatSlider(value=on_grid(v), min=-limit, max=limit, step=0.01,
                           description=name, readout_format=".2f", layout=ipw.Layout(width="260px"))

    controls = {"i": _token_dropdown("query", tokens, i0), "j": _token_dropdown("key", tokens, j0)}
    controls.update({f"q{c}": slider(f"q[{c}]", q[c]) for c in range(d)})
    controls.update({f"k{c}": slider(f"k[{c}]", k[c]) for c in range(d)})

    loaded = {"q": q.copy(), "k": k.copy()}  # the exact rows the sliders were last loaded with

    def value(name, c):  # a slider left where it was loaded means the exact loaded value
        v, exact = controls[f"{name}{c}"].value, loaded[name][c]
        return float(exact) if v == on_grid(exact) else v

    def compute():
        qv = [value("q", c) for c in range(d)]
        kv = [value("k", c) for c in range(d)]
        return similarity_state(qv, kv, controls["i"].value, controls["j"].value, Q0, K0)

    rows = [ipw.HBox([controls["i"], controls["j"]]),
            ipw.HBox([ipw.VBox([controls[f"q{c}"] for c in range(d)]),
                      ipw.VBox([controls[f"k{c}"] for c in range(d)])])]
    ex_ = Explorer("similarity", controls, compute, lambda s: render_similarity(s, tokens),
                   watch=[f"q{c}" for c in range(d)] + [f"k{c}" for c in range(d)], layout_controls=rows)

    def load(change):  # choosing another query/key loads its row into the sliders
        ex_._busy = True
        loaded["q"], loaded["k"] = Q0[controls["i"].value].copy(), K0[controls["j"].value].copy()
        for c in range(d):
            controls[f"q{c}"].value = on_grid(loaded["q"][c])
            controls[f"k{c}"].value = on_grid(loaded["k"][c])
        ex_._busy = False
        ex_.update()

    controls["i"].observe(load, names="value")
    controls["j"].observe(load, names="value")
    return ex_


# ----------------------------------------------------------------------------
# softmax: temperature, saturation, exact zeros from -inf

def softmax_state(scores, temperature=1.0):
    """a = softmax(scores / temperature); -inf entries give exact zeros."""
    scores = np.asarray(scores, dtype=np.float64)
    if scores.ndim != 1:
        raise ValueError(f"scores must be one row (1-D), got shape {scores.shape}")
    if not temperature > 0:
        raise ValueError(f"temperature must be > 0, got {temperature}")
    scaled = scores / temperature
    a = softmax(scaled)
    return {"scores": scores, "temperature": float(temperature), "scaled": scaled, "a": a,
            "total": float(a.sum()), "max": float(a.max()), "zeros": int(np.sum(a == 0.0))}


MASKED_ZERO = "0 (score \u2212\u221e)"


def render_softmax(s, labels):
    bars = "".join(
        f'<div style="display:flex;align-items:center;gap:6px;height:18px">'
        f'<span style="width:60px;text-align:right">{esc(t)}</span>'
        f'<span style="display:inline-block;height:12px;width:{200 * a:.1f}px;background:#2166ac"></span>'
        f'<span>{MASKED_ZERO if np.isneginf(x) else viz.fmt(a, 3)}</span></div>'
        for t, a, x in zip(labels, s["a"], s["scores"]))
    eq = viz.equation(viz.matrix(s["scaled"][None, :], ["s / T"], labels, "scores / T"),
                      "\u2192 softmax \u2192",
                      viz.matrix(s["a"][None, :], ["a"], labels, "a", precision=3, vmax=1.0))
    note = (f"T = {_num(s['temperature'])}. Sum of the weights = {s['total']:.6f}. Largest weight "
            f"{viz.fmt(s['max'], 3)}. Exact zeros: {s['zeros']} "
            f"(from the \u2212\u221e entries: exp(\u2212\u221e) = 0). "
            f"A small T sharpens the row toward one-hot; a large T flattens it toward uniform.")
    bars = f'<div class="ra-view" style="{viz.PANEL}">{bars}</div>'
    return {"equation": eq.html, "bars": bars, "note": _text(note)}


def softmax_explorer(scores=None):
    """A temperature slider on one row of scores.

    By default: random scores (seed 0, spread 1.5) for the query 'sat' of the essay
    sentence, with its future masked. The essay's own scores are nearly equal, which
    hides how the temperature sharpens a row.
    """
    labels = None
    if scores is None:
        labels = tokenize("the cat sat on the mat")
        scores = np.random.default_rng(0).normal(0.0, 1.5, len(labels)) + causal_mask(len(labels))[2]
    scores = np.asarray(scores, dtype=np.float64)
    if scores.ndim != 1:
        raise ValueError(f"scores must be one row (1-D), got shape {scores.shape}")
    labels = labels or [str(j) for j in range(len(scores))]
    controls = {"temperature": LogSlider(value=1.0, base=10, min=-2.5, max=1.0, step=0.05,
                                         description="temperature T", readout_format=".3f")}

    def compute():
        return softmax_state(scores, controls["temperature"].value)

    return Explorer("softmax", controls, compute, lambda s: render_softmax(s, labels))
