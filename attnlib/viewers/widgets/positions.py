"""Notebook 08: without positions a repeated word gets identical attention outputs; with them it does not."""
import ipywidgets as ipw
import numpy as np

from .. import viz
from ...attention import attention_weights
from ...data import essay_example
from ..viz.tables import as_matrix, esc
from .explorer import Explorer, _checkbox, _num, _text


def position_table(max_len=16, d_model=6, seed=8):
    """P (max_len, d_model): one vector per position, in [-0.5, 0.5] rounded to 0.1, as notebook 08 draws it."""
    return np.round(np.random.default_rng(seed).uniform(-0.5, 0.5, (max_len, d_model)), 1)


def repeated_words(tokens):
    """{word: [positions]} for every word that appears more than once, in order of first appearance."""
    seen = {}
    for i, word in enumerate(tokens):
        seen.setdefault(word, []).append(i)
    return {word: where for word, where in seen.items() if len(where) > 1}


def positions_state(sentence="the cat sat on the mat", positions=False, causal=False, P=None, seed=0):
    """One attention head on a sentence, with or without a position vector added to each row of X.

    X = word vectors (+ P[:n] when positions), then Q, K, V = X Wq, X Wk, X Wv, A and O = A V.
    `gaps` maps each repeated word to the largest difference between its rows of O.
    """
    ex = essay_example(sentence, seed=seed)
    tokens, words = ex["tokens"], ex["X"]  # (n, d_model): the same word always gives the same row
    n, d_model = words.shape
    P = position_table(max(16, n), d_model) if P is None else as_matrix("P", P)
    if P.shape[1] != d_model:
        raise ValueError(f"P must have {d_model} columns to add to X {words.shape}, got P {P.shape}")
    if n > P.shape[0]:
        raise ValueError(f"the sentence has {n} words but P has only {P.shape[0]} positions (P {P.shape})")
    X = words + P[:n] if positions else words  # (n, d_model)
    Q, K, V = X @ ex["Wq"], X @ ex["Wk"], X @ ex["Wv"]  # (n, d_head)
    A = attention_weights(Q, K, causal=causal)  # (n, n)
    O = A @ V  # (n, d_head)
    repeats = repeated_words(tokens)
    gaps = {word: float(max(np.abs(O[i] - O[where[0]]).max() for i in where)) for word, where in repeats.items()}
    return {"tokens": tokens, "words": words, "P": P[:n], "X": X, "V": V, "A": A, "O": O,
            "positions": bool(positions), "causal": bool(causal), "repeats": repeats, "gaps": gaps}


def render_positions(s):
    t = s["tokens"]
    n = len(t)
    if s["positions"]:
        inputs = viz.equation(viz.matrix(s["words"], t, title="word vectors", name="words"), "+",
                              viz.matrix(s["P"], [str(i) for i in range(n)], title="P[:n]", name="P"), "=",
                              viz.matrix(s["X"], t, title="X"))
    else:
        inputs = viz.equation(viz.matrix(s["X"], t, title="X = word vectors only", name="X"))
    rows = [i for where in s["repeats"].values() for i in where]
    output = viz.equation(viz.matrix(s["A"], t, t, "A", vmax=1.0), "\u00d7", viz.matrix(s["V"], t, title="V"), "=",
                          viz.matrix(s["O"], t, title="O = A V", name="O", highlight_rows=rows))
    lines = []
    for word, where in s["repeats"].items():
        places = ", ".join(str(i) for i in where)
        gap = s["gaps"][word]
        verdict = "<b>identical</b>" if gap < 1e-12 else f"<b>different</b> (by up to {_num(gap, 3)})"
        lines.append(f"\u201c{esc(word)}\u201d at positions {places}: its rows of O are {verdict}.")
    if not lines:
        lines.append("No word repeats in this sentence: type one with a repeated word, such as "
                     "\u201cthe cat sat on the mat\u201d.")
    shown = ("with" if s["positions"] else "without") + " positions, " + \
        ("with the causal mask" if s["causal"] else "without a mask")
    lines.append(f"Shown: {shown}. Without positions and without a mask, a row of O depends only on its own word "
                 "and on the set of words in the sentence, never on where the word stands.")
    return {"inputs": inputs.html, "output": output.html, "note": _text("<br>".join(lines))}


def positions_explorer(sentence="the cat sat on the mat", P=None, seed=0):
    """Type a sentence; add position vectors (or not) and the causal mask (or not); compare repeated words."""
    positions_state(sentence, P=P, seed=seed)  # a bad first sentence raises here, before any widget exists
    controls = {"sentence": ipw.Text(value=sentence, description="sentence", continuous_update=False,
                                     layout=ipw.Layout(width="420px")),
                "positions": _checkbox("add positions", False),
                "causal": _checkbox("causal mask", False)}

    def compute():
        return positions_state(controls["sentence"].value, controls["positions"].value, controls["causal"].value,
                               P, seed)

    return Explorer("positions", controls, compute, render_positions)
