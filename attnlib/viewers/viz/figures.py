"""Matplotlib figures on the tables' colour scale: heatmap, heads grid, curves.

Figures are built with matplotlib.figure.Figure (not pyplot), so a notebook shows
one exactly once, when it is the cell's value. matplotlib is imported lazily:
the tables never need it.

Every figure is shown with alternative text. JupyterLab draws a PNG output as an <img> without any, so a
figure is shown as HTML: `<img class="ra-figure" alt="..." src="data:image/png;base64,...">`, the alt text
made by `alt_text(fig)` from its titles, axis labels, legend and image sizes (or `fig.ra_alt` when set).
The course's own figures (CourseFigure, from the functions here) have that as their _repr_html_ and are
stored with that view only. pyplot's figures get the same view from importing viz in IPython
(register_ipython), and keep their PNG output as well.
"""
import base64
import html
import sys

import numpy as np

from .tables import MINUS, NEGATIVE, POSITIVE, as_matrix, check_labels, colour_scale, fmt

_COURSE_FIGURE = []  # the CourseFigure class, made on first use (matplotlib is imported lazily)


def course_figure(**kwargs):
    """A new CourseFigure: a matplotlib Figure that IPython shows as an <img> with alternative text."""
    if not _COURSE_FIGURE:
        from matplotlib.figure import Figure

        class CourseFigure(Figure):
            """A matplotlib Figure that IPython shows as figure_html(self) (an <img> with alt text), no PNG."""

            def _repr_html_(self):
                return figure_html(self)
        CourseFigure.__module__ = __name__
        _COURSE_FIGURE.append(CourseFigure)
        globals()["CourseFigure"] = CourseFigure
    return _COURSE_FIGURE[0](**kwargs)


def alt_text(fig, limit=600):
    """A figure described in words: its title, then each panel's title, kind and size, axis labels and
    legend. fig.ra_alt, when set, is used instead."""
    given = getattr(fig, "ra_alt", None)
    if given:
        return given
    parts = []
    suptitle = getattr(fig, "_suptitle", None)
    if suptitle is not None and suptitle.get_text():
        parts.append(suptitle.get_text())
    panels = [ax for ax in fig.axes if ax.get_label() != "<colorbar>"]
    for ax in panels:
        bits = [ax.get_title()] if ax.get_title() else []
        if ax.images:
            shape = np.shape(ax.images[0].get_array())
            bits.append(f"a {shape[0]}\u00d7{shape[1]} heatmap" if len(shape) >= 2 else "an image")
        elif ax.lines:
            labels = [line.get_label() for line in ax.lines if not line.get_label().startswith("_")]
            bits.append(f"{len(ax.lines)} line(s)" + (f": {', '.join(labels)}" if labels else ""))
        axes = [f"{name} {label}" for name, label in (("x:", ax.get_xlabel()), ("y:", ax.get_ylabel())) if label]
        if ax.get_yscale() == "log":
            axes.append("y on a log scale")
        bits.extend(axes)
        parts.append(", ".join(b for b in bits if b))
    kind = "figure" if len(panels) <= 1 else f"figure of {len(panels)} panels"
    text = f"{kind}: " + "; ".join(p for p in parts if p)
    return text if len(text) <= limit else text[:limit - 1] + "\u2026"


def figure_html(fig):
    """The figure as an inline PNG <img> (base64 data, no URL) with alternative text."""
    from IPython.core.pylabtools import print_figure
    data = base64.b64encode(print_figure(fig, "png", bbox_inches="tight")).decode("ascii")
    return f'<img class="ra-figure" alt="{html.escape(alt_text(fig))}" src="data:image/png;base64,{data}">'


def _no_png(fig):
    return None  # a CourseFigure's PNG is inside its HTML view already


def register_ipython(shell=None):
    """In this IPython session: a CourseFigure is shown by its HTML view alone (no second copy as PNG), and
    every other matplotlib Figure gets the same HTML view beside its PNG. Called when viz is imported; a no-op
    outside IPython.

    matplotlib's inline backend drops every formatter registered for Figure when it is set up, in the middle of
    the cell that draws the first figure, so for pyplot's figures the view is the Figure's own _repr_html_
    (matplotlib's, which gives nothing outside its web backends, then figure_html), set before each cell once
    matplotlib.figure is imported."""
    if shell is None:
        try:
            from IPython import get_ipython
        except ImportError:
            return
        shell = get_ipython()
    formatters = getattr(getattr(shell, "display_formatter", None), "formatters", None)
    if not formatters or getattr(shell, "_ra_figures_registered", False):
        return

    def register(*args):
        formatters["image/png"].for_type_by_name(__name__, "CourseFigure", _no_png)
        figure = sys.modules.get("matplotlib.figure")
        if figure is not None and not getattr(figure.Figure._repr_html_, "_ra", False):
            own = figure.Figure._repr_html_

            def _repr_html_(fig):
                return own(fig) or figure_html(fig)
            _repr_html_._ra = True
            figure.Figure._repr_html_ = _repr_html_

    register()
    shell.events.register("pre_run_cell", register)
    shell._ra_figures_registered = True


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
    data = as_matrix("M", M)
    n, m = data.shape
    rows = check_labels("rows", rows, n, data.shape)
    cols = check_labels("cols", cols, m, data.shape)
    scale = colour_scale(data, vmax)
    size = min(max(0.24 * max(n, m) + 1.2, 3.0), 10.0)
    fig = course_figure(figsize=(size * max(m / max(n, m), 0.5) + 1.0, size * max(n / max(n, m), 0.5)),
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
    A_stack = np.asarray(A_stack, dtype=np.float64)
    if A_stack.ndim != 4 or A_stack.shape[2] != A_stack.shape[3]:
        raise ValueError(f"A_stack must have shape (n_layers, n_heads, n, n), got {A_stack.shape}")
    n_layers, n_heads, n, _ = A_stack.shape
    tokens = check_labels("tokens", tokens, n, A_stack.shape[2:])
    cell = min(max(0.16 * n + 0.8, 1.6), 3.2)
    fig = course_figure(figsize=(cell * n_heads + 1.4, cell * n_layers + 0.9))
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
    if not isinstance(series, dict) or not series:
        raise ValueError("series must be a non-empty dict {label: values}")
    fig = course_figure(figsize=(6, 3.2), layout="constrained")
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
