"""attnlib.viewers.viz: the tables are checked by parsing their HTML with the standard
library and comparing against hand-written expectations."""
from html.parser import HTMLParser

import numpy as np
import pytest

from attnlib.viewers import viz

NEG_INF = -np.inf


class Cells(HTMLParser):
    """Collect every <td>/<th> with its classes, data-value, style and text, per table."""

    def __init__(self, html):
        super().__init__()
        self.tables, self._cell = [], None
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "table":
            self.tables.append({"name": attrs.get("data-name"), "classes": attrs.get("class", "").split(),
                                "td": [], "row_labels": [], "col_labels": []})
        elif tag in ("td", "th"):
            self._cell = {"tag": tag, "classes": attrs.get("class", "").split(),
                          "value": attrs.get("data-value"), "style": attrs.get("style", ""), "text": ""}

    def handle_data(self, data):
        if self._cell is not None:
            self._cell["text"] += data

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            c, t = self._cell, self.tables[-1]
            if c["tag"] == "td":
                t["td"].append(c)
            elif "ra-row" in c["classes"]:
                t["row_labels"].append(c["text"])
            elif "ra-col" in c["classes"]:
                t["col_labels"].append(c["text"])
            self._cell = None


def background(cell):
    for part in cell["style"].split(";"):
        if part.startswith("background:"):
            return part.split(":", 1)[1]
    return None


# ----------------------------------------------------------------------------
# matrix

def test_matrix_keeps_data_and_labels_and_prints_every_value():
    M = np.array([[0.25, -1.5], [0.0, NEG_INF]])
    view = viz.matrix(M, rows=["the", "cat"], cols=["k0", "k1"], title="A")
    np.testing.assert_array_equal(view.data, M)
    assert view.rows == ["the", "cat"] and view.cols == ["k0", "k1"]
    (table,) = Cells(view.html).tables
    assert table["name"] == "A" and "ra-matrix" in table["classes"]
    assert table["row_labels"] == ["the", "cat"] and table["col_labels"] == ["k0", "k1"]
    assert [c["text"] for c in table["td"]] == ["0.25", "\u22121.50", "0", "\u2212\u221e"]
    assert [c["value"] for c in table["td"]] == ["0.25", "-1.5", "0.0", "-inf"]
    assert all("ra-cell" in c["classes"] for c in table["td"])
    assert "ra-neginf" in table["td"][3]["classes"]
    assert "ra-zero" in table["td"][2]["classes"]
    assert "ra-neginf" not in table["td"][0]["classes"] and "ra-zero" not in table["td"][0]["classes"]


def test_matrix_default_labels_precision_and_no_negative_zero():
    view = viz.matrix(np.array([[1 / 3, -0.0001]]), precision=3)
    (table,) = Cells(view.html).tables
    assert table["row_labels"] == ["0"] and table["col_labels"] == ["0", "1"]
    assert [c["text"] for c in table["td"]] == ["0.333", "0.000"]


def test_matrix_colours_diverge_and_share_a_scale():
    view = viz.matrix(np.array([[1.0, -1.0, 0.5]]), vmax=1.0)
    pos, neg, half = (background(c) for c in Cells(view.html).tables[0]["td"])
    assert pos != neg and pos != half and neg != half
    # blue for positive (blue channel highest), orange for negative (red channel highest)
    rgb = lambda h: tuple(int(h[k:k + 2], 16) for k in (1, 3, 5))
    assert rgb(pos)[2] > rgb(pos)[0] and rgb(neg)[0] > rgb(neg)[2]
    # the same value on the same vmax gets the same colour in another table
    other = viz.matrix(np.array([[0.5, 7.0]]), vmax=1.0)
    assert background(Cells(other.html).tables[0]["td"][0]) == half
    # without a shared vmax the scale follows the table's own largest value
    alone = viz.matrix(np.array([[0.5]]))
    assert background(Cells(alone.html).tables[0]["td"][0]) == pos


def test_matrix_highlights():
    view = viz.matrix(np.ones((3, 3)), highlight_rows=[1], target=(2, 0))
    tds = Cells(view.html).tables[0]["td"]
    ringed = [k for k, c in enumerate(tds) if "ra-hl" in c["classes"]]
    assert ringed == [3, 4, 5]
    assert [k for k, c in enumerate(tds) if "ra-hl-target" in c["classes"]] == [6]


@pytest.mark.parametrize("kwargs, words", [
    (dict(M=np.zeros((2, 3)), rows=["a"]), "rows has 1 labels but the matrix has 2 rows"),
    (dict(M=np.zeros((2, 3)), cols=["a", "b"]), "cols has 2 labels but the matrix has 3 columns"),
    (dict(M=np.zeros(3)), "must be 2-D, got shape (3,)"),
    (dict(M=np.zeros((2, 2, 2))), "2-D array (rows, cols), got shape (2, 2, 2)"),
    (dict(M=np.zeros((0, 2))), "empty"),
    (dict(M=np.array([["a", "b"]])), "numeric"),
    (dict(M=np.ones((1, 1)), vmax=0), "vmax must be > 0"),
])
def test_matrix_rejects_bad_input(kwargs, words):
    with pytest.raises(ValueError) as err:
        viz.matrix(**kwargs)
    assert words in str(err.value)


# ----------------------------------------------------------------------------
# equation and matmul step

def test_equation_lays_out_tables_and_operators_in_order():
    A = viz.matrix(np.eye(2), title="A")
    O = viz.matrix(np.array([[1.0], [2.0]]), title="O")
    eq = viz.equation(A, "\u00d7", np.array([[1.0], [2.0]]), "=", O)
    assert [type(x).__name__ for x in eq.items] == ["MatrixView", "str", "MatrixView", "str", "MatrixView"]
    assert [t["name"] for t in Cells(eq.html).tables] == ["A", "", "O"]
    html = eq.html
    ops = [html.index('class="ra-op"', html.index('data-name="A"'))]
    ops.append(html.index('class="ra-op"', ops[0] + 1))
    assert html[ops[0]:].split(">", 1)[1].startswith("\u00d7<")
    assert html[ops[1]:].split(">", 1)[1].startswith("=<")
    assert html.index('data-name="A"') < ops[0] < ops[1] < html.index('data-name="O"')


def test_equation_rejects_other_items():
    with pytest.raises(ValueError, match="equation item 1"):
        viz.equation(np.eye(2), 3.0)
    with pytest.raises(ValueError):
        viz.equation()


def test_matmul_step_highlights_and_writes_the_dot_product():
    L = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    R = np.array([[1.0, -1.0], [0.5, 2.0]])
    step = viz.matmul_step(L, R, 2, 1, rows=["a", "b", "c"], names=("L", "R", "O"))
    # by hand: row 2 of L is (5, 6), column 1 of R is (-1, 2): -5 + 12 = 7
    assert step.value == 7.0 and step.i == 2 and step.j == 1
    np.testing.assert_array_equal(step.terms, [-5.0, 12.0])
    left, right, out = Cells(step.html).tables
    assert [k for k, c in enumerate(left["td"]) if "ra-hl" in c["classes"]] == [4, 5]
    assert [k for k, c in enumerate(right["td"]) if "ra-hl" in c["classes"]] == [1, 3]
    (target,) = [c for c in out["td"] if "ra-hl-target" in c["classes"]]
    assert target["value"] == "7.0"
    assert "O[c, 1] = 5.00\u00b7(\u22121.00) + 6.00\u00b72.00 = <b>7.00</b>" in step.html


def test_matmul_step_rejects_bad_input():
    with pytest.raises(ValueError, match="L has 2 columns but R has 3 rows"):
        viz.matmul_step(np.ones((2, 2)), np.ones((3, 2)), 0, 0)
    with pytest.raises(ValueError, match=r"i must be an integer in \[0, 2\)"):
        viz.matmul_step(np.ones((2, 2)), np.ones((2, 2)), 2, 0)
    with pytest.raises(ValueError, match="rows has 1 labels"):
        viz.matmul_step(np.ones((2, 2)), np.ones((2, 2)), 0, 0, rows=["x"])


# ----------------------------------------------------------------------------
# figures

def test_heatmap_shows_the_matrix_with_token_labels_and_masks_neg_inf():
    from matplotlib.figure import Figure
    tokens = [f"t{k}" for k in range(20)]
    M = np.triu(np.full((20, 20), NEG_INF), k=1) + np.tril(np.ones((20, 20)))
    fig = viz.heatmap(M, tokens, tokens, title="A")
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    shown = ax.images[0].get_array()
    assert shown.mask[0, 1] and not shown.mask[1, 0]
    assert shown[1, 0] == 1.0
    assert [t.get_text() for t in ax.get_yticklabels()] == tokens
    assert ax.get_title() == "A"
    with pytest.raises(ValueError, match="rows has 3 labels"):
        viz.heatmap(M, tokens[:3])


def test_heads_grid_has_one_panel_per_layer_and_head():
    A = np.random.default_rng(0).uniform(size=(2, 3, 4, 4))
    fig = viz.heads_grid(A, list("abcd"))
    panels = [ax for ax in fig.axes if ax.images]
    assert len(panels) == 6
    np.testing.assert_array_equal(panels[4].images[0].get_array(), A[1, 1])
    assert panels[4].get_title() == "layer 1, head 1"
    with pytest.raises(ValueError, match="n_layers, n_heads, n, n"):
        viz.heads_grid(A[0], list("abcd"))
    with pytest.raises(ValueError, match="tokens has 3 labels"):
        viz.heads_grid(A, list("abc"))


def test_curves_plots_each_series():
    fig = viz.curves({"train": [3.0, 2.0, 1.5], "val": ([0, 2], [3.1, 1.9])}, "step", "loss")
    lines = fig.axes[0].get_lines()
    assert [l.get_label() for l in lines] == ["train", "val"]
    np.testing.assert_array_equal(lines[1].get_xdata(), [0, 2])
    np.testing.assert_array_equal(lines[0].get_ydata(), [3.0, 2.0, 1.5])
    with pytest.raises(ValueError):
        viz.curves({})
    with pytest.raises(ValueError, match="series 'x'"):
        viz.curves({"x": ([0, 1, 2], [1.0, 2.0])})


def test_colormap_matches_the_tables():
    cmap = viz.colormap()
    top = tuple(round(255 * c) for c in cmap(1.0)[:3])
    table = viz.cell_colour(1.0, 1.0)[0]
    assert "#%02x%02x%02x" % top == table


def test_heatmap_colours_match_the_tables():
    # weights in [0, 1]: white to blue, the same colour as a table cell on vmax=1
    fig = viz.heatmap(np.array([[0.5, 0.0], [1.0, 0.25]]), vmax=1.0)
    im = fig.axes[0].images[0]
    for v in (0.25, 0.5, 1.0):
        rgb = [round(255 * c) for c in im.cmap(im.norm(v))[:3]]
        table = viz.cell_colour(v, 1.0)[0]
        expected = [int(table[k:k + 2], 16) for k in (1, 3, 5)]
        assert max(abs(a - b) for a, b in zip(rgb, expected)) <= 2  # the colormap has 256 levels
    # with negative values the scale is symmetric around white
    fig = viz.heatmap(np.array([[-2.0, 1.0]]))
    im = fig.axes[0].images[0]
    assert (im.norm.vmin, im.norm.vmax) == (-2.0, 2.0)


def test_data_values_round_trip_exactly():
    M = np.random.default_rng(7).normal(size=(5, 7))
    M[0, 3] = 0.0
    M[np.triu_indices(5, k=4)] = -np.inf
    tds = Cells(viz.matrix(M, precision=1).html).tables[0]["td"]
    shown = np.array([float(c["value"]) for c in tds]).reshape(M.shape)
    np.testing.assert_array_equal(shown, M)  # data-value keeps full precision, -inf included
    assert sum("ra-neginf" in c["classes"] for c in tds) == int(np.isneginf(M).sum())


@pytest.mark.parametrize("v, shown", [
    (0.395, "0.40"), (0.39499999999999996, "0.40"), (0.3950000000000001, "0.40"),  # a tie, whatever its last bit
    (0.345, "0.35"), (0.34499999999999997, "0.35"), (-0.035, "-0.04"), (-0.03500000000000002, "-0.04"),
    (0.3949, "0.39"), (0.0951, "0.10"), (-0.001, "0.00"), (-0.0, "0.00"), (12.3, "12.30"), (2.0, "2.00")])
def test_one_rounding_rule_for_tables_and_numpy(v, shown):
    """Half away from zero at the printed decimal, on the value without its last-bit noise (checked by hand)."""
    assert viz.number(v).strip() == shown
    assert viz.fmt(v) == shown.replace("-", viz.MINUS)
    with np.printoptions(formatter={"float": viz.number}):
        assert np.array2string(np.array([v])) == f"[{shown:>5}]"
