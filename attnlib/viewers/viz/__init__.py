"""Static views: essay-style matrix tables (HTML) and matplotlib figures.

    matrix(M, rows, cols, title)        a labelled table, a number and a colour per cell
    equation(a, "×", b, "=", c)         tables side by side with operators, aligned on rows
    matmul_step(L, R, i, j)             one cell of L @ R with its dot product written out
    heatmap(M, rows, cols, title)       a matplotlib Figure, for matrices above ~16 tokens
    heads_grid(A_stack, tokens)         one heatmap per (layer, head)
    curves({label: values}, ...)        line plots: loss curves, time per token
    number(v, precision=2)              the one rounding rule; notebooks give it to numpy:
                                        np.set_printoptions(formatter={"float": viz.number})

The HTML views are IPython.display.HTML subclasses. They keep their numbers, so a
test can inspect them without parsing: `.data` is the float array shown, `.rows`
and `.cols` the labels, `.html` the markup (also `str(view)`). Markup conventions:
`<table class="ra-matrix" data-name=...>` (the `name` argument, else the title),
value cells `<td class="ra-cell" data-value=...>`, -inf cells also `ra-neginf`
(shown as −∞), exact zeros `ra-zero` (a grey "0"), ringed cells `ra-hl` and the
cell being computed `ra-hl-target`.

Colours come from a blue (positive) / orange (negative) diverging scale, safe for
the common colour-vision deficiencies; `vmax` fixes the scale so that several
tables can be compared. Colour is never the only channel: every value is printed.
Everything is inline (no scripts, no fonts, no URLs), so it renders offline and
in static HTML.

In IPython, importing viz makes every matplotlib figure show as an <img> with alternative text
(figures.register_ipython): JupyterLab gives a plain PNG output none.

Modules: tables (the HTML views), figures (matplotlib, imported lazily).
"""
from .tables import (CSS, MINUS, MUTED, NEGATIVE, PANEL, POSITIVE, EquationView, MatmulStepView, MatrixView, View,
                     cell_colour, contrast, equation, fmt, matmul_step, matrix, number, text_colour)
from .figures import alt_text, colormap, course_figure, curves, figure_html, heads_grid, heatmap, register_ipython

__all__ = ["CSS", "MINUS", "MUTED", "NEGATIVE", "PANEL", "POSITIVE", "contrast", "text_colour",
           "matrix", "equation", "matmul_step", "heatmap", "heads_grid", "curves", "colormap",
           "cell_colour", "fmt", "number", "alt_text", "figure_html", "course_figure", "register_ipython",
           "View", "MatrixView", "EquationView", "MatmulStepView"]

register_ipython()  # figures show with alternative text in a notebook (see figures)
