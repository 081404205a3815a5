"""Interactive explorers: ipywidgets controls wired to pure functions.

Every explorer is built by one function and returned as an `Explorer`, an
ipywidgets.VBox with the CSS classes `ra-explorer` and `ra-explorer-<name>`:

    ex = attention_explorer("the cat sat on the mat")
    ex.controls["causal"].value = False      # what a click does
    ex.state["A"]                            # the recomputed arrays (a dict)
    ex.views                                 # {panel: ipywidgets.HTML}, re-rendered on every change
    ex.error                                 # the last input error message (also shown), or None
    ex.update()                              # recompute and re-render from the current controls

Setting a control's value recomputes and re-renders, exactly as in the browser.
The recomputation itself is a pure module-level function that tests can call
without widgets (`attention_state(sentence, causal, scale, step, seed)`, ...);
`render_<name>(state)` turns its result into HTML strings. A bad input (a
sentence without words) shows its message and keeps the last good state.

Displayed in a notebook, an explorer also carries a static HTML snapshot of its
panels (class `ra-snapshot`), which renderers without a kernel show instead.

    name          builder                                  pure function
    projection    projection_explorer(x, W)                projection_state
    batch         batch_explorer(X, W, tokens)             batch_state
    mixing        mixing_explorer(V, tokens)               mixing_state
    similarity    similarity_explorer(q, k)                similarity_state
    softmax       softmax_explorer(scores)                 softmax_state
    attention     attention_explorer(sentence, seed)       attention_state
    heads-layers  heads_layers_explorer(A_stack, tokens)   heads_layers_state
    kv-cache      kv_cache_explorer(sentence, seed)        kv_cache_state

`random_stack_maps(sentence, n_layers, n_heads, seed)` builds an A_stack from
random transformer blocks, so the heads-layers explorer works without a trained model.
"""
import ipywidgets as ipw
import numpy as np

from . import viz
from .attention import attention_weights, attention, split_heads
from .cache import attend_step
from .data import essay_example, tokenize, word_vectors, example_weights
from .layers import layer_norm, transformer_block, BLOCK_KEYS
from .mixing import causal_mask, softmax, uniform_causal_weights


# ----------------------------------------------------------------------------
# the explorer container

class Explorer(ipw.VBox):
    """Controls on top, HTML panels below. `compute()` reads the controls and returns
    the state dict; `render(state)` returns one HTML string per panel."""

    def __init__(self, name, controls, compute, render, watch=None, layout_controls=None):
        super().__init__()
        self.name, self.controls, self.error = name, controls, None
        self._compute, self._render, self._busy = compute, render, False
        self.state = compute()
        html = render(self.state)
        self.views = {key: ipw.HTML(value=value) for key, value in html.items()}
        self.message = ipw.HTML(value="")
        rows = layout_controls or [ipw.HBox(list(controls.values()))]
        self.children = [*rows, self.message, *self.views.values()]
        self.add_class("ra-explorer")
        self.add_class(f"ra-explorer-{name}")
        for key in (watch or controls):
            controls[key].observe(self._on_change, names="value")

    def __repr__(self):
        return f"<{self.name} explorer: run the notebook to use its controls>"

    def _repr_mimebundle_(self, **kwargs):
        """The live widget for JupyterLab, plus a static HTML snapshot of the panels
        for renderers without a kernel (nbconvert, GitHub)."""
        data = super()._repr_mimebundle_(**kwargs) or {}
        data["text/plain"] = repr(self)
        data["text/html"] = snapshot_html(self)
        return data

    def _on_change(self, change):
        if not self._busy:
            self.update()

    def update(self):
        """Recompute from the controls and re-render every panel."""
        self._busy = True
        try:
            state = self._compute()
        except ValueError as exc:
            self.error = str(exc)
            self.message.value = f'<div style="color:#b00;font-weight:bold">{viz._esc(exc)}</div>'
            return
        finally:
            self._busy = False
        self.state, self.error = state, None
        self.message.value = ""
        for key, value in self._render(state).items():
            self.views[key].value = value


def snapshot_html(explorer):
    """The explorer's panels as static HTML (no controls). Its classes are ra-snapshot and
    ra-snapshot-<name>, never ra-explorer, so a page search finds only the live widget."""
    panels = "".join(v.value for v in explorer.views.values())
    return (f'<div class="ra-snapshot ra-snapshot-{explorer.name}">'
            f'<div class="ra-view" style="color:#666;margin:2px 0">{viz._esc(explorer.name)} explorer '
            f'(a static snapshot: run the notebook to use the controls)</div>{panels}</div>')


def _text(html):
    return f'<div class="ra-view" style="margin:4px 0">{html}</div>'


def _num(v, p=2):
    return viz.fmt(float(v), p)


def _float_text(description, value, width="150px"):
    return ipw.FloatText(value=float(value), description=description, step=0.1,
                         layout=ipw.Layout(width=width), style={"description_width": "40px"})


def _checkbox(description, value):
    return ipw.Checkbox(value=value, description=description, indent=False, layout=ipw.Layout(width="auto"))


def _token_dropdown(description, tokens, value=0):
    options = [(f"{i}: {t}", i) for i, t in enumerate(tokens)]
    return ipw.Dropdown(options=options, value=value, description=description,
                        layout=ipw.Layout(width="180px"), style={"description_width": "50px"})


# ----------------------------------------------------------------------------
# projection: x' = x W

def projection_state(x, W):
    """x (d_in,), W (d_in, d_out) -> dict(x, W, x_prime)."""
    x = np.asarray(x, dtype=np.float64)
    W = np.asarray(W, dtype=np.float64)
    if x.ndim != 1 or W.ndim != 2 or W.shape[0] != x.shape[0]:
        raise ValueError(f"x must be (d_in,) and W (d_in, d_out), got x {x.shape}, W {W.shape}")
    return {"x": x, "W": W, "x_prime": x @ W}  # (d_out,)


def render_projection(s, big=(128, 256)):
    d_in, d_out = s["W"].shape
    eq = viz.equation(viz.matrix(s["x"][None, :], ["x"], title="x"), "\u00d7",
                      viz.matrix(s["W"], title="W"), "=",
                      viz.matrix(s["x_prime"][None, :], ["x'"], title="x'"))
    story = (f"x has {d_in} entries and W is {d_in}\u00d7{d_out}, so x' has {d_out} "
             f"({d_in * d_out} multiply-adds). A model layer does the same product at a larger size: "
             f"x (1\u00d7{big[0]}) \u00d7 W ({big[0]}\u00d7{big[1]}) = x' (1\u00d7{big[1]}), "
             f"{big[0] * big[1]:,} multiply-adds. Entry j of x' is x \u00b7 (column j of W).")
    return {"equation": eq.html, "story": _text(story)}


def projection_explorer(x=None, W=None):
    """Edit the entries of x (and of W when it is small) and watch x' = x W change."""
    if x is None:
        x = word_vectors(["cat"], 4)[0]
    if W is None:
        W = example_weights(len(x), 3, seed=1)
    s0 = projection_state(x, W)
    x, W = s0["x"], s0["W"]
    controls = {f"x{i}": _float_text(f"x[{i}]", v) for i, v in enumerate(x)}
    editable_W = W.size <= 64
    if editable_W:
        for (r, c), v in np.ndenumerate(W):
            controls[f"W{r}{c}" if max(W.shape) <= 10 else f"W{r}_{c}"] = _float_text(f"W{r}{c}", v, "130px")
    xkeys = [f"x{i}" for i in range(len(x))]
    wkeys = [k for k in controls if k.startswith("W")]

    def compute():
        xv = [controls[k].value for k in xkeys]
        Wv = np.array([controls[k].value for k in wkeys]).reshape(W.shape) if editable_W else W
        return projection_state(xv, Wv)

    rows = [ipw.HBox([controls[k] for k in xkeys])]
    if editable_W:
        d_out = W.shape[1]
        rows.append(ipw.VBox([ipw.HBox([controls[k] for k in wkeys[r * d_out:(r + 1) * d_out]])
                              for r in range(W.shape[0])]))
    return Explorer("projection", controls, compute, render_projection, layout_controls=rows)


# ----------------------------------------------------------------------------
# batch: many rows at once, each output row depends on its own input row only

def batch_state(X, W, row, col, value):
    """X with X[row, col] = value, projected; compares Y = X W before and after."""
    X = np.asarray(X, dtype=np.float64)
    X_edited = X.copy()
    X_edited[row, col] = value
    Y, Y_edited = X @ W, X_edited @ W  # (n, d_out)
    changed = [int(i) for i in np.flatnonzero(np.any(Y != Y_edited, axis=1))]
    return {"X": X, "W": W, "X_edited": X_edited, "Y": Y, "Y_edited": Y_edited,
            "row": int(row), "col": int(col), "changed": changed}


def render_batch(s, tokens):
    row, col = s["row"], s["col"]
    vmax = max(np.abs(s["X_edited"]).max(), 1e-12)
    eq = viz.equation(viz.matrix(s["X_edited"], tokens, title="X", vmax=vmax, highlight_rows=[row],
                                 target=(row, col)), "\u00d7",
                      viz.matrix(s["W"], title="W"), "=",
                      viz.matrix(s["Y_edited"], tokens, title="Y = X W", highlight_rows=s["changed"]))
    names = ", ".join(tokens[i] for i in s["changed"]) or "none"
    note = (f"You edited X[{viz._esc(tokens[row])}, {col}]. Output rows that changed: <b>{viz._esc(names)}</b>. "
            f"Every other row of Y is identical, because row i of Y is X[i] \u00d7 W and uses no other row.")
    return {"equation": eq.html, "note": _text(note)}


def batch_explorer(X=None, W=None, tokens=None):
    """Change one entry of X with a slider: only its row of Y = X W changes."""
    if X is None:
        ex = essay_example()
        X, tokens = ex["X"], ex["tokens"] if tokens is None else tokens
        W = ex["Wv"] if W is None else W
    X = viz._as_matrix("X", X)
    if W is None:
        W = example_weights(X.shape[1], X.shape[1], seed=3)
    W = viz._as_matrix("W", W)
    if W.shape[0] != X.shape[1]:
        raise ValueError(f"W must have {X.shape[1]} rows to match X {X.shape}, got W {W.shape}")
    tokens = viz._labels("tokens", tokens, X.shape[0], X.shape)
    row0 = min(1, len(tokens) - 1)
    limit = max(2.0, float(np.ceil(2 * np.abs(X).max())))  # the slider must reach every entry of X
    controls = {"row": _token_dropdown("row", tokens, row0),
                "col": ipw.Dropdown(options=list(range(X.shape[1])), value=0, description="column",
                                    layout=ipw.Layout(width="140px"), style={"description_width": "50px"}),
                "value": ipw.FloatSlider(value=float(X[row0, 0]), min=-limit, max=limit, step=0.1,
                                         description="value", continuous_update=True)}

    def compute():
        return batch_state(X, W, controls["row"].value, controls["col"].value, controls["value"].value)

    ex_ = Explorer("batch", controls, compute, lambda s: render_batch(s, tokens), watch=["value"])

    def reset_slider(change):  # a new cell starts from its original value
        ex_._busy = True
        controls["value"].value = float(X[controls["row"].value, controls["col"].value])
        ex_._busy = False
        ex_.update()

    controls["row"].observe(reset_slider, names="value")
    controls["col"].observe(reset_slider, names="value")
    return ex_


# ----------------------------------------------------------------------------
# mixing: each output row averages rows 0..i of V

def mixing_weights(n, kind, seed=0):
    """(n, n) lower-triangular rows summing to 1: 'uniform' or 'arbitrary' (random, seeded)."""
    if kind == "uniform":
        return uniform_causal_weights(n)
    if kind != "arbitrary":
        raise ValueError(f"kind must be 'uniform' or 'arbitrary', got {kind!r}")
    A = np.tril(np.random.default_rng(seed).uniform(0.05, 1.0, (n, n)))  # (n, n)
    return A / A.sum(axis=1, keepdims=True)


def mixing_state(V, row, kind="uniform", seed=0):
    """O = A V with causal weights A of the given kind; row i uses rows 0..i of V."""
    V = np.asarray(V, dtype=np.float64)
    A = mixing_weights(V.shape[0], kind, seed)
    return {"V": V, "A": A, "O": A @ V, "row": int(row), "kind": kind,
            "used": [int(j) for j in np.flatnonzero(A[row])]}


def render_mixing(s, tokens):
    i, V = s["row"], s["V"]
    eq = viz.equation(viz.matrix(s["A"], tokens, tokens, "A", highlight_rows=[i], vmax=1.0), "\u00d7",
                      viz.matrix(V, tokens, title="V", highlight_rows=s["used"]), "=",
                      viz.matrix(s["O"], tokens, title="O", highlight_rows=[i]))
    parts = " + ".join(f"{_num(s['A'][i, j])}\u00b7V[{viz._esc(tokens[j])}]" for j in s["used"])
    note = (f"O[{viz._esc(tokens[i])}] = {parts}. The weights of a row sum to 1 and stop at the diagonal: "
            f"a row never looks ahead. Row 0 can only average itself, so O[{viz._esc(tokens[0])}] = "
            f"V[{viz._esc(tokens[0])}] whatever the weights.")
    return {"equation": eq.html, "note": _text(note)}


def mixing_explorer(V=None, tokens=None):
    """Pick a row and see which rows of V it averages, with uniform or arbitrary weights."""
    if V is None:
        ex = essay_example()
        V, tokens = ex["X"] @ ex["Wv"], ex["tokens"] if tokens is None else tokens
    V = viz._as_matrix("V", V)
    tokens = viz._labels("tokens", tokens, V.shape[0], V.shape)
    controls = {"row": _token_dropdown("row", tokens, min(2, len(tokens) - 1)),
                "weights": ipw.ToggleButtons(options=["uniform", "arbitrary"], value="uniform",
                                             description="weights", style={"button_width": "80px"})}

    def compute():
        return mixing_state(V, controls["row"].value, controls["weights"].value)

    return Explorer("mixing", controls, compute, lambda s: render_mixing(s, tokens))


# ----------------------------------------------------------------------------
# similarity: a dot product and its place in Q K^T

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


def similarity_explorer(q=None, k=None, sentence="the cat sat on the mat"):
    """Edit q and k with sliders: their dot product, and the cell of Q K^T it fills.

    Q and K come from the sentence (d_head = len(q), 3 by default); q starts as
    row 1 of Q and k as row 0 of K.
    """
    d = 3 if q is None else len(q)
    ex = essay_example(sentence, d_head=d)
    tokens = ex["tokens"]
    Q0, K0 = ex["X"] @ ex["Wq"], ex["X"] @ ex["Wk"]  # (n, d)
    i0, j0 = min(1, len(tokens) - 1), 0
    q = Q0[i0] if q is None else np.asarray(q, dtype=np.float64)
    k = K0[j0] if k is None else np.asarray(k, dtype=np.float64)
    if q.shape != (d,) or k.shape != (d,):
        raise ValueError(f"q and k must both be 1-D of the same length, got q {q.shape}, k {k.shape}")
    Q0[i0], K0[j0] = q, k

    limit = max(2.0, float(np.ceil(2 * max(np.abs(Q0).max(), np.abs(K0).max()))))

    def slider(name, v):
        return ipw.FloatSlider(value=float(np.round(v, 2)), min=-limit, max=limit, step=0.01,
                               description=name, readout_format=".2f", layout=ipw.Layout(width="260px"))

    controls = {"i": _token_dropdown("query", tokens, i0), "j": _token_dropdown("key", tokens, j0)}
    controls.update({f"q{c}": slider(f"q[{c}]", q[c]) for c in range(d)})
    controls.update({f"k{c}": slider(f"k[{c}]", k[c]) for c in range(d)})

    def compute():
        qv = [controls[f"q{c}"].value for c in range(d)]
        kv = [controls[f"k{c}"].value for c in range(d)]
        return similarity_state(qv, kv, controls["i"].value, controls["j"].value, Q0, K0)

    rows = [ipw.HBox([controls["i"], controls["j"]]),
            ipw.HBox([ipw.VBox([controls[f"q{c}"] for c in range(d)]),
                      ipw.VBox([controls[f"k{c}"] for c in range(d)])])]
    ex_ = Explorer("similarity", controls, compute, lambda s: render_similarity(s, tokens),
                   watch=[f"q{c}" for c in range(d)] + [f"k{c}" for c in range(d)], layout_controls=rows)

    def load(change):  # choosing another query/key loads its row into the sliders
        ex_._busy = True
        for c in range(d):
            controls[f"q{c}"].value = float(np.round(Q0[controls["i"].value, c], 2))
            controls[f"k{c}"].value = float(np.round(K0[controls["j"].value, c], 2))
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
        f'<span style="width:60px;text-align:right">{viz._esc(t)}</span>'
        f'<span style="display:inline-block;height:12px;width:{200 * a:.1f}px;background:#2166ac"></span>'
        f'<span>{MASKED_ZERO if np.isneginf(x) else viz.fmt(a, 3)}</span></div>'
        for t, a, x in zip(labels, s["a"], s["scores"]))
    eq = viz.equation(viz.matrix(s["scaled"][None, :], ["s / T"], labels, "scores / T"), "\u2192 softmax \u2192",
                      viz.matrix(s["a"][None, :], ["a"], labels, "a", precision=3, vmax=1.0))
    note = (f"T = {_num(s['temperature'])}. Sum of the weights = {s['total']:.6f}. Largest weight "
            f"{viz.fmt(s['max'], 3)}. Exact zeros: {s['zeros']} (from the \u2212\u221e entries: exp(\u2212\u221e) = 0). "
            f"A small T sharpens the row toward one-hot; a large T flattens it toward uniform.")
    return {"equation": eq.html, "bars": f'<div class="ra-view">{bars}</div>', "note": _text(note)}


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
    controls = {"temperature": ipw.FloatLogSlider(value=1.0, base=10, min=-2.5, max=1.0, step=0.05,
                                                  description="T", readout_format=".2f")}

    def compute():
        return softmax_state(scores, controls["temperature"].value)

    return Explorer("softmax", controls, compute, lambda s: render_softmax(s, labels))


# ----------------------------------------------------------------------------
# attention: the whole head on a sentence

def attention_frames(n, d):
    """The step control's frames: 0 = overview, then each cell of S = Q K^T, then each cell of O = A V."""
    return [("overview", 0, 0)] + [("S", i, j) for i in range(n) for j in range(n)] + \
        [("O", i, c) for i in range(n) for c in range(d)]


def attention_state(sentence="the cat sat on the mat", causal=True, scale=True, step=0, seed=0):
    """Every matrix of one attention head on a sentence: X, Q, K, V, S, mask, A, O."""
    ex = essay_example(sentence, seed=seed)
    tokens, X = ex["tokens"], ex["X"]
    n = len(tokens)
    Q, K, V = X @ ex["Wq"], X @ ex["Wk"], X @ ex["Wv"]  # (n, d_head)
    d = Q.shape[1]
    S = Q @ K.T  # (n, n)
    if scale:
        S = S / np.sqrt(d)
    mask = causal_mask(n) if causal else np.zeros((n, n))
    A = softmax(S + mask)  # (n, n)
    O = A @ V  # (n, d_head)
    frames = attention_frames(n, V.shape[1])
    step = int(min(max(step, 0), len(frames) - 1))
    return {"tokens": tokens, "X": X, "Wq": ex["Wq"], "Wk": ex["Wk"], "Wv": ex["Wv"], "Q": Q, "K": K,
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
            frame += _text(f"{viz._esc(t[j])} comes after {viz._esc(t[i])}: the mask turns this score into "
                           f"\u2212\u221e, so its weight in A is exactly 0.")
    else:
        frame = viz.matmul_step(s["A"], s["V"], i, j, rows=t, cols=dims, inner=t, names=("A", "V", "O")).html
    return {"frame": frame}


def render_attention(s):
    """Every panel of the attention explorer: projections, scores, output, frame."""
    return {**render_attention_projections(s), **render_attention_mixing(s), **render_attention_frame(s)}


def _cached_render(parts):
    """Combine panel renderers [(key(state), render(state))], re-running each only when its key changes:
    the step control then redraws one panel, not every table."""
    memo = {}

    def render(s):
        html = {}
        for k, (key, part) in enumerate(parts):
            kv = key(s)
            if k not in memo or memo[k][0] != kv:
                memo[k] = (kv, part(s))
            html.update(memo[k][1])
        return html
    return render


def attention_explorer(sentence="the cat sat on the mat", seed=0):
    """Type a sentence; toggle the causal mask and the 1/sqrt(d) scale; step through the products."""
    s0 = attention_state(sentence, seed=seed)
    controls = {"sentence": ipw.Text(value=sentence, description="sentence", continuous_update=False,
                                   layout=ipw.Layout(width="420px")),
                "causal": _checkbox("causal mask", True),
                "scale": _checkbox("scale by 1/\u221ad", True),
                "play": ipw.Play(value=0, min=0, max=s0["n_frames"] - 1, step=1, interval=700),
                "step": ipw.IntSlider(value=0, min=0, max=s0["n_frames"] - 1, description="step")}
    ipw.link((controls["play"], "value"), (controls["step"], "value"))

    def compute():
        s = attention_state(controls["sentence"].value, controls["causal"].value, controls["scale"].value,
                            controls["step"].value, seed)
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


# ----------------------------------------------------------------------------
# heads and layers

def random_stack_maps(sentence="the cat sat on the mat", n_layers=2, n_heads=2, d_model=8, seed=0):
    """(A_stack, tokens): the attention maps of random pre-LN blocks run on a sentence.

    A_stack is (n_layers, n_heads, n, n). Word vectors plus random position vectors go
    through n_layers blocks with random weights; each block's maps are recorded.
    """
    tokens = tokenize(sentence)
    n = len(tokens)
    rng = np.random.default_rng(seed)
    X = word_vectors(tokens, d_model, seed) + 0.5 * rng.normal(size=(n, d_model))  # (n, d_model)
    maps = []
    for _ in range(n_layers):
        p = {k: rng.normal(0, 1 / np.sqrt(d_model), (d_model, d_model)) for k in ("Wq", "Wk", "Wv", "Wo")}
        p["Wq"] *= 2.0  # sharper maps than a plain random init, closer to a trained model's
        p.update(ln1_g=np.ones(d_model), ln1_b=np.zeros(d_model), ln2_g=np.ones(d_model),
                 ln2_b=np.zeros(d_model), W1=rng.normal(0, 1 / np.sqrt(d_model), (d_model, 4 * d_model)),
                 b1=np.zeros(4 * d_model), W2=rng.normal(0, 0.5 / np.sqrt(4 * d_model), (4 * d_model, d_model)),
                 b2=np.zeros(d_model))
        H = layer_norm(X, p["ln1_g"], p["ln1_b"])
        Q, K = split_heads(H @ p["Wq"], n_heads), split_heads(H @ p["Wk"], n_heads)  # (n_heads, n, d_head)
        maps.append(np.stack([attention_weights(Q[h], K[h]) for h in range(n_heads)]))  # (n_heads, n, n)
        X = transformer_block(X, {k: p[k] for k in BLOCK_KEYS}, n_heads)
    return np.stack(maps), tokens  # (n_layers, n_heads, n, n)


def heads_layers_state(A_stack, layer, head):
    A_stack = np.asarray(A_stack, dtype=np.float64)
    return {"A": A_stack[layer, head], "layer": int(layer), "head": int(head),
            "entropy": -np.sum(np.where(A_stack[layer, head] > 0,
                                        A_stack[layer, head] * np.log(np.maximum(A_stack[layer, head], 1e-300)),
                                        0.0), axis=1)}


def render_heads_layers(s, tokens, heatmap=None):
    """The selected map as a table, or through `heatmap` (a HeatmapPanel) for long sentences."""
    title = f"A, layer {s['layer']}, head {s['head']}"
    top = np.argmax(s["A"], axis=1)
    note = "Each row is a query; its largest weight goes to: " + ", ".join(
        f"{viz._esc(t)}\u2192{viz._esc(tokens[j])} ({viz.fmt(s['A'][i, j])})" for i, (t, j) in enumerate(zip(tokens, top)))
    if heatmap is None:
        return {"A": viz.matrix(s["A"], tokens, tokens, title, vmax=1.0, name="A").html, "note": _text(note)}
    return {"A": heatmap.render(s["A"], title), "note": _text(note)}


def _png_html(png_bytes):
    """PNG bytes as an inline <img> (base64 data, no URL): works in an HTML panel and offline."""
    import base64
    data = base64.b64encode(png_bytes).decode("ascii")
    return f'<img class="ra-figure" alt="heatmap" src="data:image/png;base64,{data}">'


class HeatmapPanel:
    """A heatmap Figure (without per-cell numbers: it is for long sentences) drawn
    once; each update redraws only what changes.

    The axes, labels and colorbar are rendered once and kept as a background. An
    update restores that background, draws the new image and title on top
    (matplotlib "blitting") and encodes the canvas as PNG. Rebuilding the
    whole figure on every click would cost ten times more.
    """

    def __init__(self, A, tokens, title, dpi=72):
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        self.fig = viz.heatmap(A, tokens, tokens, title, vmax=1.0, annotate=False)
        self.fig.set_dpi(dpi)
        self.canvas = FigureCanvasAgg(self.fig)
        self.ax = self.fig.axes[0]
        self.canvas.draw()  # the constrained layout is computed here, once
        self.fig.set_layout_engine("none")
        self.moving = [self.ax.images[0], self.ax.title, *self.ax.spines.values()]
        for artist in self.moving:
            artist.set_animated(True)
        self.canvas.draw()
        self.background = self.canvas.copy_from_bbox(self.fig.bbox)

    def render(self, A, title):
        from PIL import Image
        import io
        A = np.asarray(A, dtype=np.float64)
        self.ax.images[0].set_data(np.ma.masked_invalid(A))
        self.ax.set_title(title)
        self.canvas.restore_region(self.background)
        for artist in self.moving:
            self.ax.draw_artist(artist)
        buf = io.BytesIO()
        Image.fromarray(np.asarray(self.canvas.buffer_rgba())).save(buf, format="png", compress_level=1)
        self.fig.ra_data = A
        return _png_html(buf.getvalue())


def heads_layers_explorer(A_stack, tokens, view="auto"):
    """Choose a layer and a head of A_stack (n_layers, n_heads, n, n) and see its attention map.

    view: 'table' (HTML), 'heatmap' (matplotlib) or 'auto' (a table up to 16 tokens).
    """
    A_stack = np.asarray(A_stack, dtype=np.float64)
    if A_stack.ndim != 4 or A_stack.shape[2] != A_stack.shape[3]:
        raise ValueError(f"A_stack must have shape (n_layers, n_heads, n, n), got {A_stack.shape}")
    n_layers, n_heads, n, _ = A_stack.shape
    tokens = viz._labels("tokens", tokens, n, A_stack.shape[2:])
    if view not in ("auto", "table", "heatmap"):
        raise ValueError(f"view must be 'auto', 'table' or 'heatmap', got {view!r}")
    table = view == "table" or (view == "auto" and n <= 16)
    controls = {"layer": ipw.ToggleButtons(options=[(f"layer {l}", l) for l in range(n_layers)], value=0,
                                         description="layer", style={"button_width": "70px"}),
                "head": ipw.ToggleButtons(options=[(f"head {h}", h) for h in range(n_heads)], value=0,
                                        description="head", style={"button_width": "70px"})}

    def compute():
        return heads_layers_state(A_stack, controls["layer"].value, controls["head"].value)

    panel = None if table else HeatmapPanel(A_stack[0, 0], tokens, "A")
    ex = Explorer("heads-layers", controls, compute, lambda s: render_heads_layers(s, tokens, panel),
                  layout_controls=[ipw.VBox([controls["layer"], controls["head"]])])
    ex.heatmap = panel  # None in table mode
    return ex


# ----------------------------------------------------------------------------
# KV cache: one token at a time

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
    row = viz.equation(viz.matrix(s["s"][None, :], [seen[-1]], seen, "s = q K\u1d40/\u221ad", name="s"), "\u2192",
                       viz.matrix(s["a"][None, :], [seen[-1]], seen, "a = softmax(s)", vmax=1.0, name="a"),
                       "\u2192", viz.matrix(s["o"][None, :], [seen[-1]], dims, "o = a V", name="o"))
    same = np.allclose(s["o"], s["o_recomputed"], rtol=1e-12, atol=1e-12)
    note = (f"Step {t} of {s['n']}: the cache holds {t} rows of K and V; the new token "
            f"'{viz._esc(seen[-1])}' adds one row to each and computes one query row, so the score row has "
            f"{t} columns: {s['cached_dots']} dot products now, instead of {s['recompute_dots']} for "
            f"recomputing every row of the causal score matrix. o equals the last row of attention "
            f"recomputed from scratch: {'yes' if same else 'NO'}.")
    return {"caches": caches.html, "row": row.html, "note": _text(note)}


def kv_cache_explorer(sentence="the cat sat on the mat", seed=0):
    """Step through generation one token at a time: the caches grow by one row per step."""
    n = len(tokenize(sentence))
    controls = {"sentence": ipw.Text(value=sentence, description="sentence", continuous_update=False,
                                     layout=ipw.Layout(width="420px")),
                "play": ipw.Play(value=1, min=1, max=n, step=1, interval=900),
                "step": ipw.IntSlider(value=1, min=1, max=n, description="step")}
    ipw.link((controls["play"], "value"), (controls["step"], "value"))

    def compute():
        s = kv_cache_state(controls["sentence"].value, controls["step"].value, seed)
        for key in ("play", "step"):  # one step per token of the new sentence
            controls[key].max = s["n"]
        return s

    rows = [controls["sentence"], ipw.HBox([controls["play"], controls["step"]])]
    return Explorer("kv-cache", controls, compute, render_kv_cache, watch=["sentence", "step"],
                    layout_controls=rows)
