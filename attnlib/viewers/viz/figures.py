"""Matplotlib figures on the tables' colour scale: heatmap, heads grid, curves.

Figures are built with matplotlib.figure.Figure (not pyplot), so a notebook shows
one exactly once, when it is the cell's value. matplotlib is imported lazily:
the tables never need it.
"""
import numpy as np

from .tables import MINUS, NEGATIVE, POSITIVE, as_matrix, check_labels, colour_scale, fmt


def colormap(positive_only=False):
    """The tables' colour scale as a matplotlib colormap; -inf ('bad') is grey.

    Diverging (orange, white, blue) for [-vmax, vmax]; with positive_only, the
    white-to-blue half for [0, vmax], as the tables colour weights in [0, 1].
    """
    from matplotlib.colors import LinearSegmentedColormap
    neg = tuple(c / 255 for c in (255 + (c - 255) * 0.85 for c in NEGATIVE))
    pos = tuple(c / 255 for c in (255 + (c - 255) * 0.85 for c in POSITIVE))
    colours = [(1, 1, 1), pos] if positive_only else [neg, (1, 1, 1), pos]
    cmap = LinearSegmentedColormap.from_list("attnlib", colours)
    return cmap.with_extremes(bad="#cfcfcf")


def _imshow(ax, data, vmax):
    """Draw data on the tables' scale: [0, vmax] if nothing is negative, else [-vmax, vmax]."""
    masked = np.ma.masked_invalid(data)
    positive = not np.any(masked < 0)
    return ax.imshow(masked, cmap=colormap(positive), vmin=0 if positive else -vmax, vmax=vmax,
                     interpolation="nearest")


def heatmap(M, rows=None, cols=None, title=None, vmax=None, annotate=None):
    """A matplotlib Figure of M with token labels; -inf cells are grey.

    annotate: print values in the cells (default: when M is at most 16 x 16).
    The array shown is kept as `fig.ra_data`.
    """
    from matplotlib.figure import Figure
    data = as_matrix("M", M)
    n, m = data.shape
    rows = check_labels("rows", rows, n, data.shape)
    cols = check_labels("cols", cols, m, data.shape)
    scale = colour_scale(data, vmax)
    size = min(max(0.24 * max(n, m) + 1.2, 3.0), 10.0)
    fig = Figure(figsize=(size * max(m / max(n, m), 0.5) + 1.0, size * max(n / max(n, m), 0.5)),
                 layout="constrained")
    ax = fig.add_subplot()
    im = _imshow(ax, data, scale)
    ax.set_yticks(range(n), rows, fontsize=8)
    ax.set_xticks(range(m), cols, fontsize=8, rotation=90 if m > 8 else 0)
    if title:
        ax.set_title(title)
    if annotate is None:
        annotate = max(n, m) <= 16
    if annotate:
        for (r, c), v in np.ndenumerate(data):
            ax.text(c, r, fmt(v, 1) if np.isfinite(v) else f"{MINUS}∞", ha="center", va="center",
                    fontsize=7, color="#111")
    fig.colorbar(im, ax=ax, shrink=0.8)
    fig.ra_data = data
    return fig


def heads_grid(A_stack, tokens, title=None):
    """One attention map per (layer, head): A_stack (n_layers, n_heads, n, n) -> Figure."""
    from matplotlib.figure import Figure
    A_stack = np.asarray(A_stack, dtype=np.float64)
    if A_stack.ndim != 4 or A_stack.shape[2] != A_stack.shape[3]:
        raise ValueError(f"A_stack must have shape (n_layers, n_heads, n, n), got {A_stack.shape}")
    n_layers, n_heads, n, _ = A_stack.shape
    tokens = check_labels("tokens", tokens, n, A_stack.shape[2:])
    cell = min(max(0.16 * n + 0.8, 1.6), 3.2)
    fig = Figure(figsize=(cell * n_heads + 1.4, cell * n_layers + 0.9))
    axes = fig.subplots(n_layers, n_heads, squeeze=False,
                        gridspec_kw=dict(wspace=0.08, hspace=0.25, left=0.16, bottom=0.16, top=0.9))
    for l in range(n_layers):
        for h in range(n_heads):
            ax = axes[l, h]
            im = _imshow(ax, A_stack[l, h], 1.0)
            ax.set_title(f"layer {l}, head {h}", fontsize=8)
            if l == n_layers - 1:  # token labels on the outer panels only: ticks are costly to draw
                ax.set_xticks(range(n), tokens, fontsize=6, rotation=90)
            else:
                ax.set_xticks([])
            if h == 0:
                ax.set_yticks(range(n), tokens, fontsize=6)
            else:
                ax.set_yticks([])
    fig.colorbar(im, ax=axes, shrink=0.6)
    if title:
        fig.suptitle(title)
    fig.ra_data = A_stack
    return fig


def curves(series, xlabel="step", ylabel="", title=None, logy=False):
    """Line plots from {label: values} or {label: (x, values)} -> Figure."""
    from matplotlib.figure import Figure
    if not isinstance(series, dict) or not series:
        raise ValueError("series must be a non-empty dict {label: values}")
    fig = Figure(figsize=(6, 3.2), layout="constrained")
    ax = fig.add_subplot()
    for label, values in series.items():
        if isinstance(values, tuple) and len(values) == 2:
            x, y = np.asarray(values[0], dtype=float), np.asarray(values[1], dtype=float)
        else:
            y = np.asarray(values, dtype=float)
            x = np.arange(len(y))
        if y.ndim != 1 or x.shape != y.shape:
            raise ValueError(f"series {label!r} must be 1-D values (or x, values of one length), "
                             f"got x {x.shape}, values {y.shape}")
        ax.plot(x, y, label=str(label), marker="o" if len(y) <= 30 else None, markersize=3)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if logy:
        ax.set_yscale("log")
    if title:
        ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.ra_data = dict(series)
    return fig
