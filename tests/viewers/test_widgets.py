"""attnlib.viewers.widgets: drive each explorer by setting control values, as a click would,
and compare the recomputed state with independent numpy written here."""
import re

import numpy as np
import pytest

import attnlib as at
from attnlib.viewers import viz, widgets
from attnlib.data import essay_example

from helpers import softmax_rows
from test_viz import Cells, background


def ref_softmax(S):
    """Row softmax written out: exp of each entry over the row's sum (-inf -> 0)."""
    out = np.zeros_like(S)
    for i, row in enumerate(S):
        m = max(v for v in row if v != -np.inf)
        e = [0.0 if v == -np.inf else np.exp(v - m) for v in row]
        out[i] = np.array(e) / sum(e)
    return out


def ref_attention(sentence, causal, scale):
    ex = essay_example(sentence)
    Q, K, V = ex["X"] @ ex["Wq"], ex["X"] @ ex["Wk"], ex["X"] @ ex["Wv"]
    n, d = Q.shape
    S = np.array([[Q[i] @ K[j] for j in range(n)] for i in range(n)]) / (np.sqrt(d) if scale else 1.0)
    if causal:
        S = S + np.array([[0.0 if j <= i else -np.inf for j in range(n)] for i in range(n)])
    A = ref_softmax(S)
    return ex, Q, K, V, A, A @ V


def row_labels(html, name):
    (table,) = [t for t in Cells(html).tables if t["name"] == name]
    return table["row_labels"]


ALL = {
    "projection": lambda: widgets.projection_explorer(),
    "batch": lambda: widgets.batch_explorer(),
    "mixing": lambda: widgets.mixing_explorer(),
    "similarity": lambda: widgets.similarity_explorer(),
    "softmax": lambda: widgets.softmax_explorer(),
    "attention": lambda: widgets.attention_explorer(),
    "heads-layers": lambda: widgets.heads_layers_explorer(*widgets.random_stack_maps()),
    "kv-cache": lambda: widgets.kv_cache_explorer(),
    "positions": lambda: widgets.positions_explorer(),
    "induction": lambda: widgets.induction_explorer(*untrained_induction_model()),
    "rope": lambda: widgets.rope_explorer(),
    "gqa": lambda: widgets.gqa_explorer(),
    "window": lambda: widgets.window_explorer(),
    "ops": lambda: widgets.ops_explorer(steps=10),
}


def untrained_induction_model():
    """A small attention-only TinyLM over the repeat task's syllables, untrained (fast), and its tokenizer."""
    from attnlib.data import RepeatTask
    return at.TinyLM(64, d_model=8, n_heads=2, n_layers=2, max_len=24, mlp=False), RepeatTask().tokenizer


@pytest.mark.parametrize("name", ALL)
def test_every_explorer_is_a_tagged_container(name):
    ex = ALL[name]()
    assert "ra-explorer" in ex._dom_classes and f"ra-explorer-{name}" in ex._dom_classes
    assert ex.name == name and ex.error is None and ex.controls and ex.views
    assert all(v.value for v in ex.views.values())


# ----------------------------------------------------------------------------
# attention

def test_attention_default_matches_an_independent_computation():
    ex = widgets.attention_explorer()
    _, Q, K, V, A, O = ref_attention("the cat sat on the mat", causal=True, scale=True)
    np.testing.assert_allclose(ex.state["Q"], Q, rtol=1e-12)
    np.testing.assert_allclose(ex.state["A"], A, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(ex.state["O"], O, rtol=1e-12)
    assert np.all(np.triu(ex.state["A"], k=1) == 0.0)


def test_causal_toggle_zeroes_the_upper_triangle_and_back():
    ex = widgets.attention_explorer()
    ex.controls["causal"].value = False
    _, _, _, _, A_full, _ = ref_attention("the cat sat on the mat", causal=False, scale=True)
    np.testing.assert_allclose(ex.state["A"], A_full, rtol=1e-12)
    assert np.all(ex.state["A"] > 0)
    assert 'data-value="-inf"' not in ex.views["scores"].value
    ex.controls["causal"].value = True
    assert np.all(np.triu(ex.state["A"], k=1) == 0.0)
    assert ex.views["scores"].value.count("ra-neginf") == 15  # 6 * 5 / 2 future cells


def test_scale_toggle_divides_the_scores_by_sqrt_d():
    ex = widgets.attention_explorer()
    scaled = ex.state["S"].copy()
    ex.controls["scale"].value = False
    np.testing.assert_allclose(ex.state["S"], scaled * np.sqrt(6), rtol=1e-12)
    _, _, _, _, A, _ = ref_attention("the cat sat on the mat", causal=True, scale=False)
    np.testing.assert_allclose(ex.state["A"], A, rtol=1e-12, atol=1e-15)


def test_new_sentence_changes_row_labels_and_frame_count():
    ex = widgets.attention_explorer()
    assert row_labels(ex.views["output"].value, "O") == ["the", "cat", "sat", "on", "the", "mat"]
    ex.controls["sentence"].value = "A dog ran."
    assert ex.state["tokens"] == ["a", "dog", "ran"]
    assert row_labels(ex.views["output"].value, "O") == ["a", "dog", "ran"]
    assert row_labels(ex.views["scores"].value, "A") == ["a", "dog", "ran"]
    # frames: overview + 3 * 3 score cells + 3 * 6 output cells
    assert ex.controls["step"].max == 27 and ex.controls["play"].max == 27


def test_bad_sentence_shows_an_error_and_keeps_the_last_state():
    ex = widgets.attention_explorer()
    ex.controls["sentence"].value = "?!"
    assert "no words" in ex.error and "no words" in ex.message.value
    assert ex.state["tokens"] == ["the", "cat", "sat", "on", "the", "mat"]
    ex.controls["sentence"].value = "the end"
    assert ex.error is None and ex.message.value == ""


def test_step_walks_through_score_cells_then_output_cells():
    ex = widgets.attention_explorer()
    _, Q, K, V, A, O = ref_attention("the cat sat on the mat", causal=True, scale=True)
    ex.controls["play"].value = 1 + 2 * 6 + 1  # the play control drives the step slider
    assert ex.controls["step"].value == 14 and ex.state["frame"] == ("S", 2, 1)
    out = Cells(ex.views["frame"].value).tables[-1]
    (target,) = [c for c in out["td"] if "ra-hl-target" in c["classes"]]
    assert float(target["value"]) == pytest.approx(Q[2] @ K[1] / np.sqrt(6), rel=1e-12)
    ex.controls["step"].value = 1 + 36 + 4 * 6 + 5
    assert ex.state["frame"] == ("O", 4, 5)
    out = Cells(ex.views["frame"].value).tables[-1]
    (target,) = [c for c in out["td"] if "ra-hl-target" in c["classes"]]
    assert float(target["value"]) == pytest.approx(O[4, 5], rel=1e-12)


# ----------------------------------------------------------------------------
# KV cache

@pytest.mark.parametrize("t", [1, 3, 6])
def test_kv_cache_step_t_has_t_rows_and_one_query(t):
    ex = widgets.kv_cache_explorer()
    ex.controls["step"].value = t
    e, Q, K, V, _, O = ref_attention("the cat sat on the mat", causal=True, scale=True)
    assert ex.state["K"].shape == (t, 6) and ex.state["V"].shape == (t, 6)
    np.testing.assert_allclose(ex.state["K"], K[:t], rtol=1e-12)
    np.testing.assert_allclose(ex.state["q"], Q[t - 1], rtol=1e-12)
    assert ex.state["s"].shape == (t,)
    np.testing.assert_allclose(ex.state["o"], O[t - 1], rtol=1e-12)  # the cache equals recomputation
    assert len(row_labels(ex.views["caches"].value, "K")) == t
    (s_table,) = [x for x in Cells(ex.views["row"].value).tables if x["name"] == "s"]
    assert len(s_table["td"]) == t


def test_kv_cache_new_sentence_resets_the_step_range():
    ex = widgets.kv_cache_explorer()
    ex.controls["sentence"].value = "one two three four five six seven eight"
    assert ex.controls["step"].max == 8
    ex.controls["step"].value = 8
    assert ex.state["K"].shape == (8, 6) and ex.state["tokens"][-1] == "eight"


# ----------------------------------------------------------------------------
# the smaller explorers

def test_projection_edits_x_and_w():
    ex = widgets.projection_explorer(x=[1.0, 2.0], W=[[1.0, 0.0, 2.0], [0.5, 1.0, -1.0]])
    np.testing.assert_allclose(ex.state["x_prime"], [2.0, 2.0, 0.0])
    ex.controls["x0"].value = 0.0
    np.testing.assert_allclose(ex.state["x_prime"], [1.0, 2.0, -2.0])
    ex.controls["W12"].value = 3.0
    np.testing.assert_allclose(ex.state["x_prime"], [1.0, 2.0, 6.0])
    assert "1\u00d7128" in ex.views["story"].value and "32,768" in ex.views["story"].value


def test_batch_only_the_edited_row_of_the_output_changes():
    ex = widgets.batch_explorer()
    ex.controls["row"].value = 3
    ex.controls["col"].value = 2
    ex.controls["value"].value = 1.7
    s = ex.state
    assert s["changed"] == [3]
    expected = s["X"].copy()
    expected[3, 2] = 1.7
    np.testing.assert_allclose(s["Y_edited"], expected @ s["W"], rtol=1e-12)
    np.testing.assert_array_equal(np.delete(s["Y_edited"], 3, axis=0), np.delete(s["Y"], 3, axis=0))
    # choosing another cell starts from its original value: nothing has changed yet
    ex.controls["row"].value = 0
    assert ex.controls["value"].value == s["X"][0, 2] and ex.state["changed"] == []


def test_mixing_rows_average_the_past_only():
    V = np.arange(12.0).reshape(4, 3)
    ex = widgets.mixing_explorer(V, ["a", "b", "c", "d"])
    ex.controls["row"].value = 2
    np.testing.assert_allclose(ex.state["O"][2], (V[0] + V[1] + V[2]) / 3)
    assert ex.state["used"] == [0, 1, 2]
    ex.controls["weights"].value = "arbitrary"
    A = ex.state["A"]
    np.testing.assert_allclose(A.sum(axis=1), 1.0)
    assert np.all(np.triu(A, k=1) == 0) and np.all(A[np.tril_indices(4)] > 0)
    assert not np.allclose(A, np.tril(np.ones((4, 4))) / np.arange(1, 5)[:, None])
    np.testing.assert_array_equal(ex.state["O"][0], V[0])  # the first row never changes


def test_similarity_dot_product_lands_in_its_cell():
    ex = widgets.similarity_explorer()
    ex.controls["i"].value = 3
    ex.controls["j"].value = 5
    for c, (qc, kc) in enumerate([(1.0, 0.5), (-1.0, 2.0), (0.5, 0.5)]):
        ex.controls[f"q{c}"].value = qc
        ex.controls[f"k{c}"].value = kc
    assert ex.state["dot"] == pytest.approx(1.0 * 0.5 - 1.0 * 2.0 + 0.5 * 0.5)
    assert ex.state["S"][3, 5] == pytest.approx(-1.25)
    e = essay_example(d_head=3)
    Q0, K0 = e["X"] @ e["Wq"], e["X"] @ e["Wk"]
    assert ex.state["S"][0, 0] == pytest.approx(Q0[0] @ K0[0])  # the other cells are untouched
    assert "<b>\u22121.25</b>" in ex.views["step"].value


def test_similarity_explorer_opens_on_exactly_the_notebooks_numbers():
    """Notebook 05 opens the explorer on its own Q[1] and K[0]. The sliders show them at 2 decimals,
    but the tables must hold the notebook's numbers: the two "the" columns of S stay equal."""
    e = essay_example()
    Q, K = e["X"] @ e["Wq"], e["X"] @ e["Wk"]  # (6, 6) each
    S_loops = np.array([[sum(Q[i, c] * K[j, c] for c in range(6)) for j in range(6)] for i in range(6)])
    ex = widgets.similarity_explorer(Q[1], K[0])
    np.testing.assert_array_equal(ex.state["Q"], Q)
    np.testing.assert_array_equal(ex.state["K"], K)
    np.testing.assert_allclose(ex.state["S"], S_loops, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(ex.state["S"][:, 0], ex.state["S"][:, 4])  # "the" is keys 0 and 4
    np.testing.assert_array_equal(ex.state["S"][0], ex.state["S"][4])  # and queries 0 and 4
    assert ex.controls["q0"].value == 0.23 and ex.controls["k0"].value == -0.84  # Q[1, 0] = 0.23, K[0, 0] = -0.836
    (S_table,) = [t for t in Cells(ex.views["step"].value).tables if t["name"].startswith("S")]
    S_shown = np.array([c["text"] for c in S_table["td"]]).reshape(6, 6)  # the digits on screen
    np.testing.assert_array_equal(S_shown[:, 0], S_shown[:, 4])
    assert S_shown[2, 0] == "\u22120.32" and S_shown[3, 0] == "\u22120.56"  # -0.3246 and -0.5638

    ex.controls["k0"].value = 0.5  # an edit is used as set...
    assert ex.state["K"][0, 0] == 0.5
    assert ex.state["S"][1, 0] == pytest.approx(S_loops[1, 0] + Q[1, 0] * (0.5 - K[0, 0]))
    ex.controls["k0"].value = -0.84  # ...and back at its loaded position, the slider means the exact value again
    np.testing.assert_array_equal(ex.state["K"], K)
    ex.controls["i"].value = 3  # loading another query: its exact row, shown as the tables round it
    np.testing.assert_array_equal(ex.state["Q"], Q)
    assert Q[3, 0] == pytest.approx(0.345) and ex.controls["q0"].value == 0.35 == float(viz.number(Q[3, 0]))
    np.testing.assert_allclose(ex.state["S"], S_loops, rtol=0, atol=1e-12)


def test_softmax_temperature_saturates_and_masked_entries_are_exact_zeros():
    ex = widgets.softmax_explorer(np.array([2.0, 1.0, 0.0, -np.inf]))
    a = ex.state["a"]
    e = np.exp([2.0, 1.0, 0.0])
    np.testing.assert_allclose(a, list(e / e.sum()) + [0.0], rtol=1e-12)
    assert a[3] == 0.0 and ex.state["total"] == pytest.approx(1.0)
    ex.controls["temperature"].value = 0.05
    assert ex.state["max"] > 0.999 and ex.state["a"][3] == 0.0
    ex.controls["temperature"].value = 10.0
    np.testing.assert_allclose(ex.state["a"][:3], 1 / 3, atol=0.04)
    assert ex.state["zeros"] == 1


def test_heads_layers_selects_a_map():
    A_stack, tokens = widgets.random_stack_maps("the cat sat on the mat", n_layers=3, n_heads=2)
    ex = widgets.heads_layers_explorer(A_stack, tokens)
    ex.controls["layer"].value = 2
    ex.controls["head"].value = 1
    np.testing.assert_array_equal(ex.state["A"], A_stack[2, 1])
    (table,) = Cells(ex.views["A"].value).tables
    np.testing.assert_allclose([float(c["value"]) for c in table["td"]], A_stack[2, 1].ravel())


def test_random_stack_maps_are_causal_attention_maps():
    A_stack, tokens = widgets.random_stack_maps("the cat sat on the mat", n_layers=2, n_heads=2)
    assert A_stack.shape == (2, 2, 6, 6) and tokens == ["the", "cat", "sat", "on", "the", "mat"]
    np.testing.assert_allclose(A_stack.sum(axis=-1), 1.0)
    assert np.all(np.triu(A_stack, k=1) == 0)
    # changing the last word never changes the earlier rows, in any layer
    other, _ = widgets.random_stack_maps("the cat sat on the rug", n_layers=2, n_heads=2)
    np.testing.assert_allclose(other[..., :5, :5], A_stack[..., :5, :5], rtol=1e-12)
    assert not np.allclose(other[..., 5, :], A_stack[..., 5, :])


def test_heads_layers_uses_a_heatmap_for_long_sentences():
    A_stack, tokens = widgets.random_stack_maps(" ".join(f"w{k}" for k in range(20)), 1, 2)
    ex = widgets.heads_layers_explorer(A_stack, tokens)
    assert ex.views["A"].value.startswith('<img class="ra-figure"')
    assert "data:image/png;base64," in ex.views["A"].value
    before = ex.views["A"].value
    ex.controls["head"].value = 1
    assert ex.views["A"].value != before
    shown = ex.heatmap.ax.images[0].get_array()
    np.testing.assert_array_equal(shown, A_stack[0, 1])
    assert ex.heatmap.ax.get_title() == "A, layer 0, head 1"


# ----------------------------------------------------------------------------
# positions

def notebook_08_positions():
    """The position table notebook 08 draws: 16 x 6, uniform in [-0.5, 0.5], rounded to 0.1, seed 8."""
    return np.round(np.random.default_rng(8).uniform(-0.5, 0.5, (16, 6)), 1)


def ref_positions(sentence, positions, causal):
    ex = essay_example(sentence)
    X = ex["X"] + (notebook_08_positions()[:len(ex["tokens"])] if positions else 0.0)
    _, _, _, _, A, O = ref_attention_on(X, ex, causal)
    return X, A, O


def ref_attention_on(X, ex, causal):
    Q, K, V = X @ ex["Wq"], X @ ex["Wk"], X @ ex["Wv"]
    n, d = Q.shape
    S = np.array([[Q[i] @ K[j] for j in range(n)] for i in range(n)]) / np.sqrt(d)
    if causal:
        S = S + np.array([[0.0 if j <= i else -np.inf for j in range(n)] for i in range(n)])
    A = ref_softmax(S)
    return Q, K, V, S, A, A @ V


def test_positions_opens_without_positions_and_the_two_the_rows_are_identical():
    ex = widgets.positions_explorer()
    assert not ex.controls["positions"].value and not ex.controls["causal"].value
    X, A, O = ref_positions("the cat sat on the mat", positions=False, causal=False)
    np.testing.assert_allclose(ex.state["X"], X, rtol=1e-12)
    np.testing.assert_allclose(ex.state["O"], O, rtol=1e-12)
    np.testing.assert_array_equal(ex.state["O"][0], ex.state["O"][4])
    assert ex.state["repeats"] == {"the": [0, 4]} and ex.state["gaps"] == {"the": 0.0}
    assert "<b>identical</b>" in ex.views["note"].value
    assert [t["name"] for t in Cells(ex.views["inputs"].value).tables] == ["X"]


def test_positions_toggle_adds_p_and_separates_the_repeated_word():
    ex = widgets.positions_explorer()
    ex.controls["positions"].value = True
    X, A, O = ref_positions("the cat sat on the mat", positions=True, causal=False)
    np.testing.assert_allclose(ex.state["X"], X, rtol=1e-12)
    np.testing.assert_allclose(ex.state["A"], A, rtol=1e-12)
    np.testing.assert_allclose(ex.state["O"], O, rtol=1e-12)
    assert ex.state["gaps"]["the"] == pytest.approx(np.abs(O[0] - O[4]).max(), rel=1e-12) and O[0, 0] != O[4, 0]
    tables = {t["name"]: t for t in Cells(ex.views["inputs"].value).tables}
    assert list(tables) == ["words", "P", "X"] and tables["P"]["row_labels"] == ["0", "1", "2", "3", "4", "5"]
    assert "<b>different</b>" in ex.views["note"].value
    ex.controls["positions"].value = False
    assert ex.state["gaps"] == {"the": 0.0}


def test_positions_under_the_mask_a_row_sees_a_set_not_an_order():
    ex = widgets.positions_explorer()
    ex.controls["causal"].value = True
    O = ex.state["O"].copy()
    assert np.all(np.triu(ex.state["A"], k=1) == 0.0) and ex.state["gaps"]["the"] > 0
    ex.controls["sentence"].value = "sat the on cat the mat"  # the first four words shuffled
    _, _, O_ref = ref_positions("sat the on cat the mat", positions=False, causal=True)
    np.testing.assert_allclose(ex.state["O"], O_ref, rtol=1e-12)
    np.testing.assert_allclose(ex.state["O"][4:], O[4:], rtol=1e-12)  # rows 4 and 5 cannot tell
    ex.controls["positions"].value = True
    O_pos = ex.state["O"]
    ex.controls["sentence"].value = "the cat sat on the mat"
    assert not np.allclose(ex.state["O"][4:], O_pos[4:])  # with positions they can


def test_positions_state_permutes_with_the_words_only_without_positions():
    base = widgets.positions_state("a dog saw a cat")
    moved = widgets.positions_state("cat a saw dog a")  # positions 4, 0, 2, 1, 3
    np.testing.assert_allclose(moved["O"], base["O"][[4, 0, 2, 1, 3]], rtol=1e-12)
    with_p = [widgets.positions_state(s, positions=True) for s in ("a dog saw a cat", "cat a saw dog a")]
    assert not np.allclose(with_p[1]["O"], with_p[0]["O"][[4, 0, 2, 1, 3]])


def test_positions_explorer_uses_the_p_it_is_given_and_reports_bad_input():
    P = np.arange(24.0).reshape(4, 6) / 100
    P0 = P.copy()
    ex = widgets.positions_explorer("the end", P)
    ex.controls["positions"].value = True
    np.testing.assert_allclose(ex.state["X"], essay_example("the end")["X"] + P[:2], rtol=1e-12)
    assert "no word repeats" in ex.views["note"].value.lower()
    ex.controls["sentence"].value = "one two three four five"
    assert "5 words but P has only 4 positions" in ex.error
    assert ex.state["tokens"] == ["the", "end"]
    np.testing.assert_array_equal(P, P0)
    with pytest.raises(ValueError, match="P must have 6 columns"):
        widgets.positions_explorer("the end", np.zeros((4, 5)))
    with pytest.raises(ValueError, match="no words"):
        widgets.positions_explorer("...")


# ----------------------------------------------------------------------------
# bad input, offline rendering

@pytest.mark.parametrize("build, words", [
    (lambda: widgets.batch_explorer(np.ones((3, 2)), tokens=["a", "b"]), "tokens has 2 labels"),
    (lambda: widgets.batch_explorer(np.ones((3, 2)), np.ones((3, 2))), "W must have 2 rows"),
    (lambda: widgets.mixing_explorer(np.ones(3)), "must be 2-D"),
    (lambda: widgets.softmax_explorer(np.ones((2, 2))), "one row"),
    (lambda: widgets.similarity_explorer([1.0, 2.0], [1.0]), "same length"),
    (lambda: widgets.heads_layers_explorer(np.ones((2, 4, 4)), list("abcd")), "n_layers, n_heads, n, n"),
    (lambda: widgets.heads_layers_explorer(np.ones((1, 1, 4, 4)), list("abc")), "tokens has 3 labels"),
    (lambda: widgets.projection_explorer([1.0, 2.0], np.ones((3, 2))), "x must be (d_in,)"),
    (lambda: widgets.attention_explorer("..."), "no words"),
    (lambda: widgets.rope_explorer("..."), "no words"),
    (lambda: widgets.rope_explorer(theta=0.0), "theta must be > 0"),
    (lambda: widgets.gqa_explorer(8, 3), "n_kv_heads=3 must divide n_heads=8"),
    (lambda: widgets.gqa_explorer(0, 1), "n_heads must be >= 1"),
    (lambda: widgets.window_explorer("..."), "no words"),
])
def test_explorers_reject_bad_input(build, words):
    with pytest.raises(ValueError) as err:
        build()
    assert words in str(err.value)


URL = re.compile(r"https?://|<script|src=\"(?!data:)", re.IGNORECASE)


def all_rendered_html():
    """Every static view and every explorer panel, including after some clicks."""
    M = np.tril(np.ones((4, 4))) + np.triu(np.full((4, 4), -np.inf), k=1)
    out = [viz.matrix(M, list("abcd"), title="M").html,
           viz.equation(viz.matrix(M), "\u00d7", np.eye(4), "=", viz.matrix(M)).html,
           viz.matmul_step(np.eye(4), np.ones((4, 2)), 1, 1).html]
    for build in ALL.values():
        ex = build()
        out += [v.value for v in ex.views.values()]
        for control in ex.controls.values():
            if hasattr(control, "max") and not isinstance(control.value, str):
                control.value = control.max
                out += [v.value for v in ex.views.values()]
        out.append(ex._repr_mimebundle_()["text/html"])
    A_stack, tokens = widgets.random_stack_maps(" ".join(f"w{k}" for k in range(18)), 1, 1)
    out += [v.value for v in widgets.heads_layers_explorer(A_stack, tokens).views.values()]
    return out


def test_nothing_rendered_points_at_the_network():
    pages = all_rendered_html()
    assert len(pages) > 30
    for html in pages:
        assert not URL.search(html), URL.search(html).group(0)


def test_explorer_display_has_a_static_snapshot_for_renderers_without_a_kernel():
    ex = widgets.attention_explorer("a dog ran")
    bundle = ex._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert bundle["text/plain"] == "<attention explorer: run the notebook to use its controls>"
    html = bundle["text/html"]
    assert 'class="ra-snapshot ra-snapshot-attention"' in html and "ra-explorer" not in html
    assert row_labels(html, "O") == ["a", "dog", "ran"]


def test_explorers_never_modify_the_arrays_they_are_given():
    X = np.arange(12.0).reshape(4, 3) / 10
    W = np.ones((3, 2))
    X0, W0 = X.copy(), W.copy()
    ex = widgets.batch_explorer(X, W, tokens=list("abcd"))
    ex.controls["row"].value = 2
    ex.controls["value"].value = -1.5
    V = X.copy()
    widgets.mixing_explorer(V, list("abcd")).controls["weights"].value = "arbitrary"
    x = np.array([1.0, 2.0, 3.0])
    widgets.projection_explorer(x, W).controls["x0"].value = 9.0
    np.testing.assert_array_equal(X, X0)
    np.testing.assert_array_equal(W, W0)
    np.testing.assert_array_equal(V, X0)
    np.testing.assert_array_equal(x, [1.0, 2.0, 3.0])




def test_similarity_explorer_opens_on_a_given_Q_and_K():
    rng = np.random.default_rng(0)
    Q, K = rng.normal(size=(2, 6, 4))
    ex = widgets.similarity_explorer(sentence="the cat sat on the mat", Q=Q, K=K, query=2, key=1)
    assert (ex.state["i"], ex.state["j"]) == (2, 1)
    S_loops = np.array([[sum(Q[i, c] * K[j, c] for c in range(4)) for j in range(6)] for i in range(6)])
    assert ex.state["dot"] == pytest.approx(S_loops[2, 1], abs=1e-12)  # not the sliders' 2-decimal copy
    np.testing.assert_allclose(ex.state["S"], S_loops, rtol=0, atol=1e-12)
    with pytest.raises(ValueError, match="both Q and K"):
        widgets.similarity_explorer(Q=Q)
    with pytest.raises(ValueError, match="n = 2 words"):
        widgets.similarity_explorer(sentence="the cat", Q=Q, K=K)


def test_attention_explorer_shows_a_given_head():
    rng = np.random.default_rng(1)
    table = {w: rng.normal(size=5) for w in "the cat sat on mat".split()}
    Wq, Wk, Wv = rng.normal(size=(3, 5, 4))

    def embed(words):
        unknown = [w for w in words if w not in table]
        if unknown:
            raise ValueError(f"unknown words {unknown}")
        return np.array([table[w] for w in words])

    ex = widgets.attention_explorer("the cat sat on the mat", embed=embed, Wq=Wq, Wk=Wk, Wv=Wv)
    X = embed("the cat sat on the mat".split())
    S = (X @ Wq) @ (X @ Wk).T / 2
    S[np.triu_indices(6, k=1)] = -np.inf
    np.testing.assert_allclose(ex.state["A"], softmax_rows(S))
    np.testing.assert_allclose(ex.state["O"], softmax_rows(S) @ X @ Wv)
    ex.controls["sentence"].value = "the dog sat"  # a word the head has no row for
    assert "dog" in ex.error and ex.state["A"].shape == (6, 6)  # the message, and the last good state
    ex.controls["sentence"].value = "the mat"
    assert ex.error is None and ex.state["A"].shape == (2, 2)
    with pytest.raises(ValueError, match="all of embed"):
        widgets.attention_explorer(embed=embed)


# ----------------------------------------------------------------------------
# ops (notebook 19): one broken piece inside TinyLM, against attnlib's own run

def plain_training(ops, steps):
    """TinyLM on the cat sentences from seed 0, trained as the explorer says it does: the loss of every step."""
    from attnlib import TinyLM
    from attnlib.data import SentenceTask
    from attnlib.train import train
    task = SentenceTask(seq_len=8)
    model = TinyLM(len(task.tokenizer), d_model=16, n_heads=2, n_layers=2, max_len=8, seed=0, ops=ops)
    return np.array(train(model, task, steps, lr=1e-2, batch_size=8, seed=0, warmup=5, progress=False))


def test_ops_state_reference_is_attnlibs_own_training_and_the_broken_run_uses_the_broken_op():
    s = widgets.ops_state("gelu: a ReLU", steps=6)
    np.testing.assert_array_equal(s["ref_losses"], plain_training(None, 6))
    np.testing.assert_array_equal(s["losses"], plain_training({"gelu": lambda X: np.maximum(X, 0.0)}, 6))
    np.testing.assert_array_equal(s["gap"], np.abs(s["losses"] - s["ref_losses"]))
    assert s["ops"] == ["gelu"] and s["kind"] == "forward" and s["first"] == 0


@pytest.mark.parametrize("label", list(widgets.BROKEN))
def test_ops_state_every_broken_piece_parts_at_the_first_step_it_is_used(label):
    s = widgets.ops_state(label, steps=10)
    expected = {"forward": 0, "backward": 1, "generation": None}[s["kind"]]
    assert s["first"] == expected, (label, s["gap"][:3])
    if expected == 1:
        assert s["gap"][0] <= 1e-12 * s["ref_losses"][0]  # the first loss comes before any gradient
    if expected is None:
        assert s["gap"].max() <= 1e-12 * s["ref_losses"].max()


def test_ops_state_generation_pieces_change_only_the_text():
    s = widgets.ops_state("sample_next: always argmax", steps=10)
    assert s["first"] is None and s["text"]["sampled"] == s["text"]["greedy"] == s["ref_text"]["greedy"]
    assert s["ref_text"]["sampled"] != s["ref_text"]["greedy"]  # attnlib's sampler really samples
    assert all(t.startswith("the cat ") and len(t.split()) == 8 for t in (*s["text"].values(), *s["ref_text"].values()))


def test_ops_state_keeps_attnlibs_run_and_rejects_unknown_input():
    from attnlib.viewers.widgets import ops as ops_module
    widgets.ops_state("gelu: a ReLU", steps=10)
    hits = ops_module._run.cache_info().hits
    a = widgets.ops_state("cache_step: no 1/\u221ad", steps=10)
    assert ops_module._run.cache_info().hits >= hits + 1  # attnlib's run of 10 steps was not trained again
    a["ref_losses"][0] = 99.0  # a caller's copy: the kept run is untouched
    assert widgets.ops_state("gelu: a ReLU", steps=10)["ref_losses"][0] != 99.0
    with pytest.raises(ValueError, match="broken must be one of"):
        widgets.ops_state("softmax: wrong axis")
    with pytest.raises(ValueError, match="steps"):
        widgets.ops_state("gelu: a ReLU", steps=0)


def test_ops_explorer_dropdown_retrains_and_redraws():
    ex = widgets.ops_explorer(steps=10)
    assert ex.state["broken"] == "layer_norm_backward: a term missing" and ex.state["first"] == 1
    assert "step 1" in ex.views["note"].value and 'src="data:image/png;base64,' in ex.views["curves"].value
    image = ex.views["curves"].value
    ex.controls["broken"].value = "cache_step: no 1/\u221ad"
    assert ex.state["first"] is None and ex.state["ops"] == ["cache_step"]
    assert "identical at every one of the 10 steps" in ex.views["note"].value
    assert ex.views["curves"].value != image
    ex.controls["steps"].value = 20
    assert len(ex.state["losses"]) == 20 and ex.error is None



# ----------------------------------------------------------------------------
# induction (notebook 15): one head's map on a typed sequence, and its two scores counted by hand

def test_induction_explorer_scores_the_chosen_head_by_hand():
    model, tokenizer = untrained_induction_model()
    ex = widgets.induction_explorer(model, tokenizer, sentence="ba ko ma ba ko ma ba")
    ex.controls["layer"].value, ex.controls["head"].value = 0, 1
    A = model.attention_maps(tokenizer.encode("ba ko ma ba ko ma ba"))[0, 1]  # (7, 7)
    assert np.array_equal(ex.state["A"], A.astype(np.float64))
    assert np.isclose(ex.state["previous"], np.mean([A[t, t - 1] for t in range(1, 7)]))
    # positions 3..6 repeat; "ba" at 6 has two earlier copies (0 and 3): weights after them, at 1 and 4, add up
    by_hand = [A[3, 1], A[4, 2], A[5, 3], A[6, 1] + A[6, 4]]
    assert np.isclose(ex.state["prefix"], np.mean(by_hand))


def test_induction_explorer_refuses_unknown_words_and_draws_new_repeats():
    ex = widgets.induction_explorer(*untrained_induction_model())
    first = ex.controls["sentence"].value
    assert len(first.split()) == 24
    ex.new_repeat()
    assert ex.controls["sentence"].value != first and ex.error is None
    ex.controls["sentence"].value = "ba dog ko"
    assert "dog" in ex.error and ex.state["words"] != ["ba", "dog", "ko"]


# ----------------------------------------------------------------------------
# rope (notebook 16): each pair's angle by position, and scores that a shift of every position leaves alone

def turned(M, positions, theta):
    """Pair (2i, 2i+1) of row t times the rotation matrix of positions[t] * theta^(-2i/d), pair by pair."""
    out, d = np.array(M, dtype=float), M.shape[1]
    for t, p in enumerate(positions):
        for i in range(d // 2):
            a = p / theta ** (2 * i / d)
            R = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
            out[t, 2 * i:2 * i + 2] = R @ M[t, 2 * i:2 * i + 2]
    return out


def test_rope_explorer_shows_each_pairs_angle_and_scores_from_rotated_q_and_k():
    ex = widgets.rope_explorer()
    ex.controls["shift"].value, ex.controls["theta"].value = 7, 100.0
    e = essay_example("the cat sat on the mat")
    Q, K = e["X"] @ e["Wq"], e["X"] @ e["Wk"]
    pos = np.arange(6) + 7
    assert ex.state["angle"].shape == (6, 3)
    for t in range(6):
        for i in range(3):
            assert ex.state["angle"][t, i] == pytest.approx(pos[t] * 100.0 ** (-2 * i / 6), rel=1e-12)
    S = turned(Q, pos, 100.0) @ turned(K, pos, 100.0).T / np.sqrt(6)
    np.testing.assert_allclose(ex.state["S"], S, atol=1e-12)
    (table,) = [t for t in Cells(ex.views["angles"].value).tables if t["name"] == "angle"]
    assert table["row_labels"] == ["the @7", "cat @8", "sat @9", "on @10", "the @11", "mat @12"]


def test_rope_explorer_scores_do_not_move_with_the_sentence_and_tell_repeats_apart_only_when_rotated():
    ex = widgets.rope_explorer()
    S0 = ex.state["S"].copy()
    assert not np.allclose(S0[0], S0[4])  # the two "the" rows: rotated by 0 and by 4, they score differently
    for shift in (1, 50, 100):
        ex.controls["shift"].value = shift
        np.testing.assert_allclose(ex.state["S"], S0, atol=1e-12)
        assert ex.state["moved"] < 1e-12 and "rounding only" in ex.views["note"].value
    ex.controls["rotate"].value = False
    np.testing.assert_allclose(ex.state["S"][0], ex.state["S"][4], atol=1e-15)  # unrotated: the same row
    assert "No rotation" in ex.views["note"].value
    ex.controls["sentence"].value = "?!"
    assert "no words" in ex.error and ex.state["tokens"] == ["the", "cat", "sat", "on", "the", "mat"]


# ----------------------------------------------------------------------------
# gqa (notebook 17): which K/V group each query head reads, and the cache it leaves

def groups_by_loop(n_heads, n_kv_heads):
    """Query heads dealt out in order, n_heads / n_kv_heads to a group: head -> group."""
    size, out = n_heads // n_kv_heads, {}
    for g in range(n_kv_heads):
        for j in range(size):
            out[g * size + j] = g
    return [out[h] for h in range(n_heads)]


def cache_bytes_by_hand(n_layers, kv_heads, d_head, tokens, bytes_per_value):
    """K and V, for every layer, K/V head, feature and token."""
    return 2 * n_layers * kv_heads * d_head * tokens * bytes_per_value


def drawn(ex):
    """(the group each query head is drawn in, its colour), (the groups drawn below them, their colours),
    and the byte counts shown, from the HTML."""
    (table,) = [t for t in Cells(ex.views["picture"].value).tables if t["name"] == "heads"]
    n = ex.state["n_heads"]
    heads, groups = table["td"][:n], table["td"][n:]
    shown = [int(b) for b in re.findall(r'data-bytes="(\d+)"', ex.views["picture"].value)]
    return ([int(c["value"]) for c in heads], [background(c) for c in heads],
            [int(c["value"]) for c in groups], [background(c) for c in groups], shown)


def test_gqa_explorer_colours_each_query_head_by_the_group_it_reads():
    ex = widgets.gqa_explorer()
    for n_heads, n_kv_heads in ((32, 8), (8, 2), (8, 8), (8, 1), (12, 3), (12, 4), (6, 6), (1, 1)):
        ex.controls["heads"].value = n_heads
        ex.controls["kv"].value = n_kv_heads
        assert (ex.state["n_heads"], ex.state["n_kv_heads"]) == (n_heads, n_kv_heads)
        head_groups, head_colours, group_ids, group_colours, _ = drawn(ex)
        assert head_groups == groups_by_loop(n_heads, n_kv_heads) == list(ex.state["group"])
        assert group_ids == list(range(n_kv_heads))
        for h, g in enumerate(head_groups):  # a head is drawn in the colour of the group it reads
            assert head_colours[h] == group_colours[g]
        assert len(set(group_colours)) == n_kv_heads  # and the groups are told apart


def test_gqa_explorer_shows_the_cache_bytes_of_the_formula():
    ex = widgets.gqa_explorer()  # 32 layers, 32 heads of 128, 32,768 tokens, 2 bytes a number; 8 groups
    *_, shown = drawn(ex)
    assert shown == [cache_bytes_by_hand(32, 32, 128, 32768, 2), cache_bytes_by_hand(32, 8, 128, 32768, 2)]
    assert shown == [17_179_869_184, 4_294_967_296]
    assert "17,179,869,184 bytes" in ex.views["picture"].value and "4\u00d7 smaller" in ex.views["note"].value
    for kv in (32, 16, 4, 2, 1):
        ex.controls["kv"].value = kv
        *_, shown = drawn(ex)
        assert shown[1] == cache_bytes_by_hand(32, kv, 128, 32768, 2) and shown[0] == 17_179_869_184
        assert ex.state["per_token"] == cache_bytes_by_hand(32, kv, 128, 1, 2)
    assert "multi-query attention" in ex.views["picture"].value
    small = widgets.gqa_explorer(8, 2, n_layers=2, d_head=16, seq_len=100, bytes_per_value=4)
    assert drawn(small)[-1] == [2 * 2 * 8 * 16 * 100 * 4, 2 * 2 * 2 * 16 * 100 * 4]


def test_gqa_explorer_k_v_slider_lands_only_on_divisors_moving_the_way_it_was_pushed():
    ex = widgets.gqa_explorer(12, 12)
    divisors = [d for d in range(1, 13) if 12 % d == 0]
    seen = [12]
    while ex.controls["kv"].value > 1:  # one step left at a time, as the arrow key does
        ex.controls["kv"].value -= 1
        seen.append(ex.controls["kv"].value)
        assert ex.state["n_kv_heads"] == ex.controls["kv"].value and 12 % ex.state["n_kv_heads"] == 0
    assert seen == divisors[::-1]
    seen = [1]
    while ex.controls["kv"].value < 12:
        ex.controls["kv"].value += 1
        seen.append(ex.controls["kv"].value)
    assert seen == divisors
    ex.controls["kv"].value = 4
    ex.controls["heads"].value = 7  # 4 does not divide 7: down to the largest divisor below it
    assert ex.state["n_kv_heads"] == 1 and ex.controls["kv"].max == 7 and ex.error is None
    ex.controls["heads"].value = 2
    ex.controls["kv"].value = 2
    ex.controls["heads"].value = 3
    assert ex.state["n_kv_heads"] == 1


# ----------------------------------------------------------------------------
# window (notebook 18): a sliding window over A, and the rows a rolling cache keeps

def kept_by_loop(t, window, n_sinks):
    """Positions 0 .. t-1 appended one at a time, cut back to the first n_sinks and the newest window - n_sinks."""
    rows = []
    for p in range(t):
        rows.append(p)
        if len(rows) > window:
            rows = rows[:n_sinks] + rows[len(rows) - (window - n_sinks):]
    return rows


@pytest.mark.parametrize("window, n_sinks", [(1, 0), (4, 0), (4, 2), (6, 1), (13, 0)])
def test_window_explorer_masks_a_with_the_window_and_keeps_the_rows_a_loop_keeps(window, n_sinks):
    sentence = "the cat sat on the mat and the dog slept on the rug"
    ex = widgets.window_explorer(sentence, window=window, n_sinks=n_sinks)
    e = essay_example(sentence)
    Q, K = e["X"] @ e["Wq"], e["X"] @ e["Wk"]
    n = len(e["tokens"])
    S = np.array([[Q[i] @ K[j] / np.sqrt(6) if j <= i and (i - j < window - n_sinks or j < n_sinks) else -np.inf
                   for j in range(n)] for i in range(n)])
    np.testing.assert_allclose(ex.state["A"], softmax_rows(S), atol=1e-12)
    for t in (1, 3, 7, n):
        ex.controls["step"].value = t
        assert ex.state["kept"] == kept_by_loop(t, window, n_sinks)
        assert ex.state["cache_rows"] == min(t, window) and ex.state["cache_bytes"] == min(t, window) * 2 * 6 * 8
        assert ex.state["growing_bytes"] == t * 96
        (table,) = [x for x in Cells(ex.views["cache"].value).tables if x["name"] == "K"]
        assert table["row_labels"] == [f"{e['tokens'][j]} @{j}" for j in ex.state["kept"]]
        (a,) = [x for x in Cells(ex.views["weights"].value).tables if x["name"] == "A"]
        ringed = [i for i, c in enumerate(a["td"]) if "ra-hl" in c["classes"]]
        assert ringed == [(t - 1) * n + j for j in ex.state["kept"]]  # the row of step t, the kept columns
        assert f"{ex.state['cache_bytes']} bytes" in ex.views["note"].value


def test_window_explorer_sliders_clip_the_sinks_and_follow_the_sentence():
    ex = widgets.window_explorer()
    assert ex.state["t"] == 1 and ex.state["kept"] == [0]  # generation starts at its first token
    ex.controls["step"].value = 13
    ex.controls["window"].value = 5
    ex.controls["sinks"].value = 4
    assert ex.state["n_sinks"] == 4 and ex.state["kept"] == [0, 1, 2, 3, 12]
    assert "Positions 0 to 3" in ex.views["note"].value and "8 positions fell out" in ex.views["note"].value
    ex.controls["window"].value = 2
    assert ex.controls["sinks"].value == 1 and ex.state["kept"] == [0, 12]
    ex.controls["sentence"].value = "a b c"
    assert ex.state["n"] == 3 and ex.controls["step"].max == 3 and ex.controls["window"].max == 3
    assert ex.state["t"] == 3 and ex.state["kept"] == [0, 2]
    ex.controls["window"].value = 3
    assert ex.state["kept"] == [0, 1, 2] and "Nothing has left the window yet" in ex.views["note"].value
    ex.controls["sentence"].value = "?!"
    assert "no words" in ex.error and ex.state["n"] == 3
