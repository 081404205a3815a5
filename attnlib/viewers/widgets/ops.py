"""Notebook 19: break one op of TinyLM(ops=...) and watch where its training and its text part from attnlib's.

BROKEN is a small catalogue of wrong versions of the exercises' functions, each
with one line saying what is wrong. `ops_state(broken, steps)` trains a TinyLM on
the cat sentences twice from the same seed (attnlib's own model, then the same
model with the broken ops), has both continue "the cat", and returns the two loss
curves, where they part and the texts. attnlib's own run is computed once per
(steps, seed) and kept.
"""
import base64
import functools
import io
import math

import ipywidgets as ipw
import numpy as np

from .. import viz
from ..viz.tables import esc
from .controls import IntSlider
from .explorer import Explorer, _text

MODEL = dict(d_model=16, n_heads=2, n_layers=2, max_len=8)
LR, BATCH, WARMUP = 1e-2, 8, 5
PROMPT, N_NEW = "the cat", 6
TOL = 1e-12  # relative: learner-style ops that are right agree with attnlib's layers to ~1e-15
FLOOR = 1e-16  # a zero gap is drawn here on the log scale


# ---------------------------------------------------------------------------
# the broken ops, in numpy, one sequence at a time (rows are tokens)

def _softmax(S):
    E = np.exp(S - S.max(axis=-1, keepdims=True))
    return E / E.sum(axis=-1, keepdims=True)


def _relu_gelu(X):
    return np.maximum(X, 0.0)


def _unscaled_attention(Q, K, V, causal=True, scale=True):
    S = Q @ K.T  # (n, n): no division by sqrt(d_head)
    if causal:
        S = S + np.triu(np.full(S.shape, -np.inf), k=1)
    return _softmax(S) @ V


def _leaky_mask(n):
    return np.triu(np.full((n, n), -np.inf), k=2)  # k=2: row i also sees position i + 1


def _leaky_attention(Q, K, V, causal=True, scale=True):
    S = Q @ K.T / math.sqrt(Q.shape[1])
    return _softmax(S + _leaky_mask(len(S)) if causal else S) @ V


def _leaky_attention_backward(Q, K, V, dO, causal=True, scale=True):
    s = 1.0 / math.sqrt(Q.shape[1])
    A = _softmax(Q @ K.T * s + (_leaky_mask(len(Q)) if causal else 0.0))  # (n, n)
    dA = dO @ V.T
    dS = A * (dA - (dA * A).sum(axis=1, keepdims=True)) * s
    return dS @ K, dS.T @ Q, A.T @ dO


def _softmax_backward_no_subtraction(A, dA):
    return A * dA


def _layer_norm_backward_missing_term(X, g, dY, eps=1e-5):
    mu = X.mean(axis=1, keepdims=True)
    rstd = 1.0 / np.sqrt(X.var(axis=1, keepdims=True) + eps)
    Xhat = (X - mu) * rstd
    dXhat = dY * g
    dX = rstd * (dXhat - dXhat.mean(axis=1, keepdims=True))  # the term along Xhat is missing
    return dX, (dY * Xhat).sum(axis=0), dY.sum(axis=0)


def _unscaled_cache_step(q, k, v, K_cache, V_cache):
    K_new, V_new = np.vstack([K_cache, k]), np.vstack([V_cache, v])
    return _softmax(K_new @ q) @ V_new, K_new, V_new  # no division by sqrt(d_head)


def _argmax_sample_next(logits, temperature, u):
    return int(np.argmax(logits))  # ignores the temperature and u


# label -> (the ops to swap in, what is wrong, the kind of piece)
BROKEN = {
    "gelu: a ReLU": ({"gelu": _relu_gelu},
                     "gelu returns max(x, 0), a ReLU instead of the GELU curve.", "forward"),
    "attention: no 1/\u221ad": ({"attention": _unscaled_attention},
                                "attention forgets to divide the scores by \u221ad_head.", "forward"),
    "mask: leaks one position": ({"attention": _leaky_attention, "attention_backward": _leaky_attention_backward},
                                 "the causal mask (used by attention and its backward) hides only positions two "
                                 "or more ahead: every row can read the word it must predict (try 100 steps).",
                                 "forward"),
    "softmax_backward: no subtraction": ({"softmax_backward": _softmax_backward_no_subtraction},
                                         "softmax_backward returns A \u2299 dA, forgetting to subtract each "
                                         "row's weighted sum.", "backward"),
    "layer_norm_backward: a term missing": ({"layer_norm_backward": _layer_norm_backward_missing_term},
                                            "layer_norm_backward drops the term along the normalised row.",
                                            "backward"),
    "cache_step: no 1/\u221ad": ({"cache_step": _unscaled_cache_step},
                                 "cache_step forgets to divide the new query's scores by \u221ad_head.",
                                 "generation"),
    "sample_next: always argmax": ({"sample_next": _argmax_sample_next},
                                   "sample_next ignores the temperature and always takes the largest logit.",
                                   "generation"),
}
FIRST_USE = {"forward": "a forward piece is used to compute the very first loss, step 0",
             "backward": "a backward piece is first used to compute the update after step 0, so the first "
                         "loss it can change is step 1's",
             "generation": "a generation piece is never used in training: only the text can show it"}


# ---------------------------------------------------------------------------
# the pure part

@functools.lru_cache(maxsize=32)
def _run(label, steps, seed):
    """(losses, greedy words, sampled words) of a run: attnlib's model (label None) or with BROKEN[label]."""
    from ...data import SentenceTask
    from ...model import TinyLM
    from ...train import train
    task = SentenceTask(seq_len=MODEL["max_len"])
    ops = None if label is None else dict(BROKEN[label][0])
    model = TinyLM(len(task.tokenizer), seed=seed, ops=ops, **MODEL)
    with np.errstate(all="ignore"):
        losses = np.array(train(model, task, steps, lr=LR, batch_size=BATCH, seed=seed, warmup=WARMUP,
                                progress=False))
        prompt = task.tokenizer.encode(PROMPT.split())
        greedy = model.generate(prompt, N_NEW)
        sampled = model.generate(prompt, N_NEW, temperature=1.0, rng=np.random.default_rng(1))
    losses.setflags(write=False)  # shared by every caller of the cache
    return losses, task.tokenizer.decode(greedy), task.tokenizer.decode(sampled)


def first_apart(losses, ref_losses, tol=TOL):
    """The first step whose loss differs from the reference by more than tol (relative), or None."""
    losses, ref_losses = np.asarray(losses, dtype=float), np.asarray(ref_losses, dtype=float)
    apart = ~(np.abs(losses - ref_losses) <= tol * np.abs(ref_losses))  # NaN counts as apart
    return int(np.argmax(apart)) if apart.any() else None


def ops_state(broken="layer_norm_backward: a term missing", steps=40, seed=0):
    """attnlib's TinyLM and the same model with one broken piece, trained from the same seed.

    Returns the two loss curves, their gap |loss - attnlib's loss| per step, the first step where they
    part (None when training matched) and the greedy and sampled continuations of "the cat" from each.
    """
    if broken not in BROKEN:
        raise ValueError(f"broken must be one of {', '.join(BROKEN)}, got {broken!r}")
    steps = int(steps)
    if not 1 <= steps <= 200:
        raise ValueError(f"steps must be in [1, 200], got {steps}")
    ref, mine = _run(None, steps, seed), _run(broken, steps, seed)
    ops, description, kind = BROKEN[broken]
    return {"broken": broken, "description": description, "kind": kind, "ops": sorted(ops), "steps": steps,
            "ref_losses": ref[0].copy(), "losses": mine[0].copy(), "gap": np.abs(mine[0] - ref[0]),
            "first": first_apart(mine[0], ref[0]),
            "ref_text": {"greedy": ref[1], "sampled": ref[2]}, "text": {"greedy": mine[1], "sampled": mine[2]}}


def ops_figure(s):
    """Two panels: the loss curves, and their gap on a log scale (a zero gap drawn at 1e-16)."""
    from matplotlib.figure import Figure
    steps = np.arange(s["steps"])
    fig = Figure(figsize=(8.4, 3.0), layout="constrained")
    left, right = fig.subplots(1, 2)
    marker = dict(marker="o", markersize=3) if s["steps"] <= 30 else {}
    blue, orange = (tuple(c / 255 for c in rgb) for rgb in (viz.POSITIVE, viz.NEGATIVE))  # the tables' colours
    left.plot(steps, s["ref_losses"], label="attnlib's ops", color=blue, **marker)
    left.plot(steps, s["losses"], label=s["broken"], color=orange, linestyle="--", **marker)
    left.set_xlabel("step")
    left.set_ylabel("training loss")
    left.legend(fontsize=8)
    right.plot(steps, np.maximum(s["gap"], FLOOR), color=orange, **marker)
    right.set_yscale("log")
    right.set_ylim(FLOOR / 3, max(1.0, float(np.nanmax(s["gap"], initial=0.0)) * 3))
    right.set_xlabel("step")
    right.set_ylabel("|loss \u2212 attnlib's loss|")
    if s["first"] is not None:
        right.axvline(s["first"], color="#888", linewidth=0.8)
    for ax in (left, right):
        ax.grid(alpha=0.3)
    fig.ra_data = {"ref_losses": s["ref_losses"], "losses": s["losses"], "gap": s["gap"]}
    return fig


def _png(fig):
    """The figure as an inline PNG <img> (base64 data, no URL): works in an HTML panel and offline."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=72)
    data = base64.b64encode(buf.getvalue()).decode("ascii")
    return f'<img class="ra-figure" alt="the two loss curves and their gap" src="data:image/png;base64,{data}">'


def render_ops(s):
    if s["first"] is None:
        where = (f"The two loss curves are identical at every one of the {s['steps']} steps "
                 f"(to {TOL:g} relative).")
    else:
        k = s["first"]
        where = (f"The loss curves part at <b>step {k}</b>: {viz.fmt(s['losses'][k], 6)} against attnlib's "
                 f"{viz.fmt(s['ref_losses'][k], 6)}. After {s['steps']} steps: "
                 f"{viz.fmt(s['losses'][-1], 3)} against {viz.fmt(s['ref_losses'][-1], 3)}.")
    note = (f"<b>{esc(s['broken'])}</b> ({esc(', '.join(s['ops']))}): {esc(s['description'])}<br>{where} "
            f"Expected: {esc(FIRST_USE[s['kind']])}.")
    rows = "".join(
        f"<tr><th scope='row' style='text-align:left;padding:2px 8px'>{kind}</th>"
        f"<td class='ra-text-ref' style='padding:2px 8px'>{esc(s['ref_text'][kind])}</td>"
        f"<td class='ra-text-broken' style='padding:2px 8px'>{esc(s['text'][kind])}</td>"
        f"<td style='padding:2px 8px'>{'same' if s['ref_text'][kind] == s['text'][kind] else '<b>differs</b>'}"
        f"</td></tr>" for kind in ("greedy", "sampled"))
    table = (f"<table class='ra-texts'><tr><th scope='col' style='padding:2px 8px'>text</th>"
             f"<th scope='col' style='padding:2px 8px'>attnlib's ops</th>"
             f"<th scope='col' style='padding:2px 8px'>{esc(s['broken'])}</th>"
             f"<th scope='col' style='padding:2px 8px'>the two</th></tr>{rows}</table>")
    return {"curves": _text(_png(ops_figure(s))), "note": _text(note), "texts": _text(table)}


def ops_explorer(broken="layer_norm_backward: a term missing", steps=40, seed=0):
    """Choose a broken op: TinyLM trains with it in place, beside attnlib's own run from the same seed."""
    ops_state(broken, steps, seed)  # a bad first choice raises here, before any widget exists
    controls = {"broken": ipw.Dropdown(options=list(BROKEN), value=broken, description="break",
                                       layout=ipw.Layout(width="420px")),
                "steps": IntSlider(value=int(steps), min=10, max=100, step=10, description="steps",
                                   continuous_update=False)}

    def compute():
        return ops_state(controls["broken"].value, controls["steps"].value, seed)

    return Explorer("ops", controls, compute, render_ops)
