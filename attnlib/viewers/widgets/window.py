"""Notebook 18: a sliding window over A, the rows a rolling cache keeps, and what they cost."""
import ipywidgets as ipw

from .. import viz
from ..viz.tables import esc
from ...attention import weights_forward
from ...cache import kept_positions
from ...data import essay_example, tokenize
from .controls import IntSlider, Play
from .explorer import Explorer, _text

SENTENCE = "the cat sat on the mat and the dog slept on the rug"


def window_state(sentence=SENTENCE, window=4, n_sinks=0, t=None, seed=0):
    """The essay's head on a sentence, with a sliding window of `window` positions and n_sinks sinks.

    A (n, n): the weights with the window's mask (row i sees j < n_sinks and the newest window - n_sinks
    positions up to i). At generation step t (1..n, the last by default) the rolling cache holds the rows
    `kept` (positions, oldest first): the first n_sinks and the newest window - n_sinks, at most window
    rows, while a growing cache would hold all t. Bytes count K and V of this one head in float64.
    window is clipped to 1..n and n_sinks to 0..window - 1.
    """
    ex = essay_example(sentence, seed=seed)
    tokens = ex["tokens"]
    n, d_head = len(tokens), ex["Wk"].shape[1]
    window = int(min(max(int(window), 1), n))
    n_sinks = int(min(max(int(n_sinks), 0), window - 1))
    t = n if t is None else int(min(max(int(t), 1), n))
    Q, K = ex["X"] @ ex["Wq"], ex["X"] @ ex["Wk"]  # (n, d_head)
    A = weights_forward(Q, K, True, True, window, n_sinks)[0]  # (n, n)
    kept = kept_positions(t, window, n_sinks)  # the rows the rolling cache holds after t tokens
    per_row = 2 * d_head * 8  # one key and one value of d_head float64 numbers
    return {"tokens": tokens, "n": n, "window": window, "n_sinks": n_sinks, "t": t, "A": A, "K": K,
            "kept": [int(j) for j in kept], "cache_rows": len(kept), "growing_rows": t,
            "cache_bytes": len(kept) * per_row, "growing_bytes": t * per_row, "bytes_per_row": per_row}


def render_window(s):
    tokens, t, kept = s["tokens"], s["t"], s["kept"]
    labels = [f"{w} @{i}" for i, w in enumerate(tokens)]
    weights = viz.matrix(s["A"], labels, labels, f"A with a window of {s['window']}"
                         + (f" and {s['n_sinks']} sink{'s' * (s['n_sinks'] > 1)}" if s["n_sinks"] else ""),
                         vmax=1.0, name="A", highlight_cells=[(t - 1, j) for j in kept])
    dims = [f"d{c}" for c in range(s["K"].shape[1])]
    cache = viz.matrix(s["K"][kept], [labels[j] for j in kept], dims, f"K cache after {t} tokens", name="K",
                       highlight_rows=[i for i, j in enumerate(kept) if j < s["n_sinks"]])
    dropped = t - len(kept)
    note = (f"Step {t} of {s['n']}: '{esc(tokens[t - 1])}' looks at the ringed cells of its row, the {len(kept)} "
            f"position{'s' * (len(kept) != 1)} the cache keeps ({', '.join(map(str, kept))}). The rolling cache holds "
            f"{s['cache_rows']} row{'s' * (s['cache_rows'] != 1)} of K and of V, {s['cache_bytes']} bytes; a growing "
            f"cache would hold {s['growing_rows']}, {s['growing_bytes']} bytes. ")
    note += (f"{dropped} position{'s' * (dropped != 1)} fell out of the window and left the cache for good."
             if dropped else "Nothing has left the window yet.")
    if s["n_sinks"]:
        first = "Position 0 (ringed in the cache) stays" if s["n_sinks"] == 1 else \
            f"Positions 0 to {s['n_sinks'] - 1} (ringed in the cache) stay"
        note += f" {first} as {'a sink' if s['n_sinks'] == 1 else 'sinks'}, whatever the step."
    return {"weights": weights.html, "cache": cache.html, "note": _text(note)}


def window_explorer(sentence=SENTENCE, window=4, n_sinks=0, step=1, seed=0):
    """Slide a window over A: choose its size and its sinks, step through generation (from `step`, 1..n), see the
    rows the cache keeps."""
    s = window_state(sentence, window, n_sinks, step, seed)  # a bad first sentence raises here, before any widget
    n = s["n"]
    controls = {"sentence": ipw.Text(value=sentence, description="sentence", continuous_update=False,
                                     layout=ipw.Layout(width="420px")),
                "window": IntSlider(value=s["window"], min=1, max=n, description="window"),
                "sinks": IntSlider(value=s["n_sinks"], min=0, max=max(s["window"] - 1, 0), description="sinks"),
                "play": Play(value=s["t"], min=1, max=n, step=1, interval=900,
                             description="play through the generation"),
                "step": IntSlider(value=s["t"], min=1, max=n, description="step")}
    ipw.link((controls["play"], "value"), (controls["step"], "value"))

    def compute():
        n_words = len(tokenize(controls["sentence"].value))
        for key in ("play", "step", "window"):  # one step per token of the new sentence
            controls[key].max = max(n_words, 1)
        controls["sinks"].max = max(min(controls["window"].value, n_words) - 1, 0)
        return window_state(controls["sentence"].value, controls["window"].value, controls["sinks"].value,
                            controls["step"].value, seed)

    rows = [controls["sentence"], ipw.HBox([controls["window"], controls["sinks"]]),
            ipw.HBox([controls["play"], controls["step"]])]
    return Explorer("window", controls, compute, render_window, watch=["sentence", "window", "sinks", "step"],
                    layout_controls=rows)
