"""Notebooks 01-04: projection (x' = x W), a batch of rows, mixing rows of V."""
import ipywidgets as ipw
import numpy as np

from .. import viz
from ..viz.tables import as_matrix, esc, check_labels
from ...data import essay_example, example_weights, word_vectors
from ...mixing import uniform_causal_weights
from .controls import FloatSlider
from .explorer import Explorer, _float_text, _num, _text, _token_dropdown


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
    if np.array_equal(s["X_edited"], s["X"]):  # nothing edited yet: say what to do, not what happened
        note = (f"Move the slider to change X[{esc(tokens[row])}, {col}] (now {_num(s['X'][row, col])}), "
                f"or pick another row and column. Row i of Y is X[i] \u00d7 W, so only the edited row "
                f"can change.")
        return {"equation": eq.html, "note": _text(note)}
    names = ", ".join(tokens[i] for i in s["changed"]) or "none"
    note = (f"You edited X[{esc(tokens[row])}, {col}]. Output rows that changed: <b>{esc(names)}</b>. "
            f"Every other row of Y is identical, because row i of Y is X[i] \u00d7 W and uses no other row.")
    return {"equation": eq.html, "note": _text(note)}


def batch_explorer(X=None, W=None, tokens=None):
    """Change one entry of X with a slider: only its row of Y = X W changes."""
    if X is None:
        ex = essay_example()
        X, tokens = ex["X"], ex["tokens"] if tokens is None else tokens
        W = ex["Wv"] if W is None else W
    X = as_matrix("X", X)
    if W is None:
        W = example_weights(X.shape[1], X.shape[1], seed=3)
    W = as_matrix("W", W)
    if W.shape[0] != X.shape[1]:
        raise ValueError(f"W must have {X.shape[1]} rows to match X {X.shape}, got W {W.shape}")
    tokens = check_labels("tokens", tokens, X.shape[0], X.shape)
    row0 = min(1, len(tokens) - 1)
    limit = max(2.0, float(np.ceil(2 * np.abs(X).max())))  # the slider must reach every entry of X
    controls = {"row": _token_dropdown("row", tokens, row0),
                "col": ipw.Dropdown(options=list(range(X.shape[1])), value=0, description="column",
                                    layout=ipw.Layout(width="140px"), style={"description_width": "50px"}),
                "value": FloatSlider(value=float(X[row0, 0]), min=-limit, max=limit, step=0.1,
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
    parts = " + ".join(f"{_num(s['A'][i, j])}\u00b7V[{esc(tokens[j])}]" for j in s["used"])
    note = (f"O[{esc(tokens[i])}] = {parts}. The weights of a row sum to 1 and stop at the diagonal: "
            f"a row never looks ahead. Row 0 can only average itself, so O[{esc(tokens[0])}] = "
            f"V[{esc(tokens[0])}] whatever the weights.")
    return {"equation": eq.html, "note": _text(note)}


def mixing_explorer(V=None, tokens=None):
    """Pick a row and see which rows of V it averages, with uniform or arbitrary weights."""
    if V is None:
        ex = essay_example()
        V, tokens = ex["X"] @ ex["Wv"], ex["tokens"] if tokens is None else tokens
    V = as_matrix("V", V)
    tokens = check_labels("tokens", tokens, V.shape[0], V.shape)
    controls = {"row": _token_dropdown("row", tokens, min(2, len(tokens) - 1)),
                "weights": ipw.ToggleButtons(options=["uniform", "arbitrary"], value="uniform",
                                             description="weights", style={"button_width": "80px"})}

    def compute():
        return mixing_state(V, controls["row"].value, controls["weights"].value)

    return Explorer("mixing", controls, compute, lambda s: render_mixing(s, tokens))
