"""Notebooks 09-11: the attention maps of every head of every layer."""
import ipywidgets as ipw
import numpy as np

from .. import viz
from ..viz.tables import esc, check_labels
from ...attention import attention_weights, split_heads
from ...data import tokenize, word_vectors
from ...block import BLOCK_KEYS, transformer_block
from ...layers import layer_norm
from .explorer import Explorer, _text


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
                 ln2_b=np.zeros(d_model), b1=np.zeros(4 * d_model), b2=np.zeros(d_model),
                 W1=rng.normal(0, 1 / np.sqrt(d_model), (d_model, 4 * d_model)),
                 W2=rng.normal(0, 0.5 / np.sqrt(4 * d_model), (4 * d_model, d_model)))
        H = layer_norm(X, p["ln1_g"], p["ln1_b"])
        Q, K = split_heads(H @ p["Wq"], n_heads), split_heads(H @ p["Wk"], n_heads)  # (n_heads, n, d_head)
        maps.append(np.stack([attention_weights(Q[h], K[h]) for h in range(n_heads)]))  # (n_heads, n, n)
        X = transformer_block(X, {k: p[k] for k in BLOCK_KEYS}, n_heads)
    return np.stack(maps), tokens  # (n_layers, n_heads, n, n)


def heads_layers_state(A_stack, layer, head):
    """The map of one head: A = A_stack[layer, head] (n, n)."""
    A_stack = np.asarray(A_stack, dtype=np.float64)
    return {"A": A_stack[layer, head], "layer": int(layer), "head": int(head)}


def render_heads_layers(s, tokens, heatmap=None):
    """The selected map as a table, or through `heatmap` (a HeatmapPanel) for long sentences."""
    title = f"A, layer {s['layer']}, head {s['head']}"
    top = np.argmax(s["A"], axis=1)
    note = "Each row is a query; its largest weight goes to: " + ", ".join(
        f"{esc(tokens[i])}\u2192{esc(tokens[j])} ({viz.fmt(s['A'][i, j])})" for i, j in enumerate(top))
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
    tokens = check_labels("tokens", tokens, n, A_stack.shape[2:])
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
