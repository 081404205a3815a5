"""Matrix tables as HTML: the labelled table, the equation, the matmul step.

Each view is an IPython.display.HTML subclass that keeps its numbers (`.data`,
`.rows`, `.cols`) next to its markup (`.html`). Colours, formatting and the
markup conventions are described in attnlib.viewers.viz.

The notebooks store this markup as outputs and nbval compares it byte for byte:
a change to the HTML (even a style) means refreshing every notebook's outputs.
"""
import html as _html
import math
from decimal import ROUND_HALF_UP, Decimal

import numpy as np
from IPython.display import HTML

POSITIVE = (33, 102, 172)   # blue
NEGATIVE = (230, 97, 1)     # orange
HIGHLIGHT = "#c51b7d"       # magenta outline for the cell being computed
FONT = "font-family:ui-monospace,Menlo,Consolas,'DejaVu Sans Mono',monospace;font-size:12px"
MINUS = "\u2212"
PANEL = "background:#fff;color:#111;padding:2px"  # the explorers' light panels
MUTED = "#595959"  # grey text (sizes, zeros, notes): 7:1 on white, never below WCAG's 4.5:1
# text that only a screen reader reads (the label of a table's corner cell)
HIDDEN = "position:absolute;width:1px;height:1px;margin:-1px;padding:0;overflow:hidden;clip:rect(0 0 0 0);border:0"

CSS = f"""<style>
.ra-view {{color:#111;{FONT};line-height:1.25}}
.ra-view table.ra-matrix {{border-collapse:collapse;margin:0}}
.ra-view .ra-matrix td, .ra-view .ra-matrix th {{padding:2px 6px;text-align:right;border:1px solid #e4e4e4;
  height:20px;white-space:nowrap}}
.ra-view .ra-matrix th {{background:#f6f6f6;font-weight:normal;color:#444}}
.ra-view .ra-matrix th.ra-row {{text-align:left}}
</style>"""


# ----------------------------------------------------------------------------
# checks and formatting

def as_matrix(name, M):
    """M as a 2-D float array (inf and NaN allowed: a view shows what it is given)."""
    arr = np.asarray(M)
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool):
        raise ValueError(f"{name} must be a numeric array, got dtype {arr.dtype}")
    if arr.ndim == 1:
        raise ValueError(f"{name} must be 2-D, got shape {arr.shape}; "
                         f"show a vector as one row with {name}[None, :]")
    if arr.ndim != 2:
        raise ValueError(f"{name} must be a 2-D array (rows, cols), got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} is empty (shape {arr.shape})")
    return arr.astype(np.float64)


def check_labels(what, labels, size, M_shape):
    if labels is None:
        return [str(i) for i in range(size)]
    labels = [str(s) for s in labels]
    if len(labels) != size:
        axis = "rows" if what == "rows" else "columns"
        raise ValueError(f"{what} has {len(labels)} labels but the matrix has {size} {axis} "
                         f"(matrix shape {M_shape})")
    return labels


def number(v, precision=2):
    """v at `precision` decimals, by the course's one rounding rule; also numpy's float formatter.

    Half away from zero, after the noise below the 9th decimal is rounded away: 0.395 and
    0.39499999999999996 both print 0.40, so no printed digit depends on a CPU's last bit.
    ASCII minus, never "-0.00"; width 5 at least, so numpy's columns line up.
    """
    v = float(v)
    if not math.isfinite(v):
        return f"{v:>5}"
    rounded = Decimal(f"{v:.9f}").quantize(Decimal(1).scaleb(-precision), rounding=ROUND_HALF_UP)
    return f"{rounded + 0:>5}"  # + 0 turns -0.00 into 0.00


def fmt(v, precision=2):
    """A value as the tables print it: number()'s digits, −∞ for -inf, a real minus sign."""
    v = float(v)
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "+∞" if v > 0 else f"{MINUS}∞"
    return number(v, precision).strip().replace("-", MINUS)


def _paren(text):
    return f"({text})" if text.startswith(MINUS) else text


def _mix(rgb, t):
    """White blended toward rgb by t in [0, 1], as a CSS colour."""
    r, g, b = (round(255 + (c - 255) * t) for c in rgb)
    return f"#{r:02x}{g:02x}{b:02x}"


def _luminance(colour):
    """WCAG relative luminance of a #rrggbb (or #rgb) colour."""
    if len(colour) == 4:
        colour = "#" + "".join(c * 2 for c in colour[1:])

    def channel(c):
        c /= 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (channel(int(colour[k:k + 2], 16)) for k in (1, 3, 5))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a, b):
    """WCAG contrast ratio of two #rrggbb (or #rgb) colours, from 1 to 21."""
    la, lb = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def text_colour(bg):
    """The text colour for a cell background: white where it reaches 4.5:1, else near-black, else black
    (mid-tones reach 4.5:1 only with black)."""
    return next(fg for fg in ("#fff", "#111", "#000") if fg == "#000" or contrast(bg, fg) >= 4.5)


def cell_colour(v, vmax):
    """(background, text colour) for a finite value on the scale [-vmax, vmax]; the text has a contrast of
    4.5:1 or more on its background."""
    t = min(abs(v) / vmax, 1.0) * 0.85 if vmax > 0 else 0.0
    bg = _mix(POSITIVE if v > 0 else NEGATIVE, t)
    return bg, text_colour(bg)


def colour_scale(data, vmax):
    if vmax is not None:
        vmax = float(vmax)
        if not vmax > 0:
            raise ValueError(f"vmax must be > 0, got {vmax}")
        return vmax
    finite = np.abs(data[np.isfinite(data)])
    return float(finite.max()) if finite.size and finite.max() > 0 else 1.0


NEGINF_STYLE = "background:repeating-linear-gradient(135deg,#d9d9d9 0 4px,#cacaca 4px 8px);color:#222;"
RINGS = {None: ("", ""),
         "line": (" ra-hl", "box-shadow:inset 0 0 0 2px #333;font-weight:bold;"),
         "target": (" ra-hl-target", f"box-shadow:inset 0 0 0 3px {HIGHLIGHT};font-weight:bold;")}


def _td(v, vmax, precision, ring=None):
    """One value cell for a Python float v. ring: None, 'line' (row/column in use)
    or 'target' (the result cell)."""
    if v == -math.inf:
        cls, style, text, value = "ra-cell ra-neginf", NEGINF_STYLE, f"{MINUS}\u221e", "-inf"
    elif math.isnan(v) or math.isinf(v):
        cls, style, text, value = "ra-cell ra-nonfinite", "background:#fff;color:#b00;font-weight:bold;", \
            fmt(v), str(v)
    elif v == 0:
        cls, style, text, value = "ra-cell ra-zero", f"background:#fff;color:{MUTED};", "0", repr(v)
    else:
        bg, fg = cell_colour(v, vmax)
        cls, style, text, value = "ra-cell", f"background:{bg};color:{fg};", fmt(v, precision), repr(v)
    ring_cls, ring_style = RINGS[ring]
    return f'<td class="{cls}{ring_cls}" data-value="{value}" style="{style}{ring_style}">{text}</td>'


# ----------------------------------------------------------------------------
# HTML views

class View(HTML):
    """An HTML display object that keeps its markup in `.html` (and `str(view)`)."""

    def __init__(self, html):
        self.html = html
        super().__init__(html)

    def _repr_html_(self):
        return self.html

    def __html__(self):
        return self.html

    def __str__(self):
        return self.html

    def __repr__(self):
        return f"<{type(self).__name__}>"


def esc(s):
    return _html.escape(str(s))


class MatrixView(View):
    """A labelled matrix table. `.data` (rows, cols) floats, `.rows`, `.cols`, `.title`, `.vmax`."""

    def __init__(self, data, rows, cols, title, name, precision, vmax, body):
        self.data, self.rows, self.cols, self.title = data, rows, cols, title
        self.name, self.precision, self.vmax, self.body = name, precision, vmax, body
        super().__init__(CSS + f'<div class="ra-view">{body}</div>')
        self.data = data  # HTML.__init__ stored the markup in .data; keep the numbers there


def matrix(M, rows=None, cols=None, title=None, precision=2, vmax=None, *, name=None,
           highlight_rows=(), highlight_cols=(), highlight_cells=(), target=None):
    """A labelled table of M (rows, cols) as a MatrixView: one printed value and one colour per cell.

    rows / cols: labels (tokens) for the rows / columns, default 0, 1, ...
    vmax: the colour scale runs over [-vmax, vmax]; pass the same vmax to compare tables.
    name: the table's data-name (default: the title). highlight_rows / highlight_cols /
    highlight_cells ((i, j) pairs) get a dark ring; target (i, j) gets a magenta ring.
    """
    data = as_matrix("M", M)
    n, m = data.shape
    rows = check_labels("rows", rows, n, data.shape)
    cols = check_labels("cols", cols, m, data.shape)
    precision = int(precision)
    scale = colour_scale(data, vmax)
    name = title if name is None else name
    hr, hc = set(highlight_rows), set(highlight_cols)
    hcells = {tuple(c) for c in highlight_cells}
    head = "".join(f'<th class="ra-col" scope="col">{esc(c)}</th>' for c in cols)
    corner = f'<span style="{HIDDEN}">{esc(name or "matrix")}: rows, columns</span>'
    lines = [f'<tr><th class="ra-corner" scope="col">{corner}</th>{head}</tr>']
    target = tuple(target) if target is not None else None
    for i, values in enumerate(data.tolist()):
        tds = []
        for j, v in enumerate(values):
            ring = "target" if (i, j) == target else \
                "line" if (i in hr or j in hc or (i, j) in hcells) else None
            tds.append(_td(v, scale, precision, ring))
        lines.append(f'<tr><th class="ra-row" scope="row">{esc(rows[i])}</th>{"".join(tds)}</tr>')
    title_html = (f'<b>{esc(title)}</b> ' if title else "") + \
        f'<span style="color:{MUTED}">({n}\u00d7{m})</span>'
    body = (f'<div class="ra-block" style="display:inline-block;vertical-align:top">'
            f'<div class="ra-title" style="height:20px;white-space:nowrap">{title_html}</div>'
            f'<table class="ra-matrix" data-name="{esc(name or "")}" '
            f'style="border-collapse:collapse;{FONT}">{"".join(lines)}</table></div>')
    return MatrixView(data, rows, cols, title, name, precision, scale, body)


class EquationView(View):
    """Tables and operators side by side. `.items`: the MatrixViews and operator strings."""

    def __init__(self, items, body):
        self.items, self.body = items, body
        super().__init__(CSS + f'<div class="ra-view">{body}</div>')


def _op(text):
    return (f'<div class="ra-op" style="align-self:center;font-size:20px;padding:0 2px;'
            f'color:#333;white-space:nowrap">{esc(text)}</div>')


def equation(*items):
    """Lay out matrix views (or arrays) and operator strings in one row: A, "×", V, "=", O.

    Tables are top-aligned and share row heights, so row i of A sits beside row i of O.
    """
    if not items:
        raise ValueError("equation needs at least one item")
    parts, kept, said = [], [], []
    for k, item in enumerate(items):
        if isinstance(item, str):
            said.append(item.strip())
            parts.append(_op(item))
        elif isinstance(item, (MatrixView, EquationView)):
            parts.append(item.body)
        elif isinstance(item, np.ndarray):
            item = matrix(item)
            parts.append(item.body)
        else:
            raise ValueError(f"equation item {k} must be a matrix view, an array or an operator "
                             f"string, got {type(item).__name__}")
        if not isinstance(item, str):
            said.append(getattr(item, "title", None) or getattr(item, "name", None) or "matrix")
        kept.append(item)
    # a wide equation scrolls sideways: it takes the keyboard focus (arrow keys scroll it) and says what it is
    label = esc("equation: " + " ".join(w for w in said if w))
    body = (f'<div class="ra-equation" tabindex="0" role="group" aria-label="{label}" '
            'style="display:flex;flex-wrap:nowrap;align-items:flex-start;'
            f'gap:8px;overflow-x:auto">{"".join(parts)}</div>')
    return EquationView(kept, body)


class MatmulStepView(View):
    """One cell of L @ R. `.data` the full product, `.i`, `.j`, `.terms` (L[i,t] R[t,j]), `.value`."""


def matmul_step(L, R, i, j, rows=None, cols=None, inner=None, names=("L", "R", "O"),
                precision=2, vmax=None):
    """Row i of L and column j of R highlighted, cell (i, j) of O = L @ R ringed,
    and the dot product written out: O[i, j] = L[i,0]·R[0,j] + ... = value.

    L (n, k), R (k, m). rows: n labels, cols: m labels, inner: k labels.
    """
    L, R = as_matrix("L", L), as_matrix("R", R)
    if L.shape[1] != R.shape[0]:
        raise ValueError(f"L has {L.shape[1]} columns but R has {R.shape[0]} rows (L {L.shape}, R {R.shape})")
    n, m = L.shape[0], R.shape[1]
    for what, idx, size in (("i", i, n), ("j", j, m)):
        if isinstance(idx, bool) or not isinstance(idx, (int, np.integer)) or not 0 <= idx < size:
            raise ValueError(f"{what} must be an integer in [0, {size}), got {idx!r} "
                             f"(L {L.shape}, R {R.shape})")
    i, j = int(i), int(j)
    O = L @ R  # (n, m)
    terms = L[i] * R[:, j]  # (k,)
    ln, rn, on = names
    lv = matrix(L, rows, inner, ln, precision, vmax, highlight_rows=[i])
    rv = matrix(R, inner, cols, rn, precision, vmax, highlight_cols=[j])
    ov = matrix(O, rows, cols, on, precision, vmax, target=(i, j))
    shown = [f"{fmt(a, precision)}\u00b7{_paren(fmt(b, precision))}" for a, b in zip(L[i], R[:, j])]
    if len(shown) > 12:
        shown = shown[:6] + [f"\u2026 ({len(shown) - 12} more) \u2026"] + shown[-6:]
    label = f"{esc(on)}[{esc(ov.rows[i])}, {esc(ov.cols[j])}]"
    sum_text = (f'<div class="ra-dot" style="margin-top:6px">{label} = '
                f'{" + ".join(esc(s) for s in shown)} = <b>{fmt(O[i, j], precision)}</b></div>')
    eq = equation(lv, "\u00d7", rv, "=", ov)
    view = MatmulStepView(CSS + f'<div class="ra-view ra-matmul-step">{eq.body}{sum_text}</div>')
    view.data, view.i, view.j, view.terms, view.value = O, i, j, terms, float(O[i, j])
    view.left, view.right, view.result = lv, rv, ov
    return view
