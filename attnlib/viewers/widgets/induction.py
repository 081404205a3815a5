"""Notebook 15: one head of a trained model on a sequence you type, with its two scores."""
import ipywidgets as ipw
import numpy as np

from .. import viz
from ...circuits import prefix_matching_score, previous_token_score
from ...data import RepeatTask
from .explorer import Explorer, _num, _text

def induction_state(model, tokenizer, sentence, layer, head):
    """The map A (T, T) of one head of `model` on `sentence` (words of `tokenizer`), and its two scores."""
    words = sentence.split()
    if not 2 <= len(words) <= model.max_len:
        raise ValueError(f"type between 2 and {model.max_len} words, got {len(words)}")
    tokens = tokenizer.encode(words)  # a word outside the vocabulary: a ValueError that lists the known ones
    A = model.attention_maps(tokens)[layer, head].astype(np.float64)  # (T, T)
    P = model.forward(tokens).argmax(axis=-1)  # (T,) the model's guess for each next word
    return {"words": words, "A": A, "layer": int(layer), "head": int(head), "guesses": [tokenizer.words[i] for i in P],
            "previous": float(previous_token_score(A)),
            "prefix": float(prefix_matching_score(A, tokens))}


def render_induction(s):
    words = s["words"]
    title = f"A, layer {s['layer']}, head {s['head']}"
    table = viz.matrix(s["A"], words, words, title, vmax=1.0, name="A").html
    seen = {}
    right = []
    for t, w in enumerate(words):  # where a word was seen before, the word after that copy is the induction guess
        if w in seen:
            right.append(s["guesses"][t] == words[seen[w] + 1])
        seen[w] = t
    copies = "; no word is repeated, so there is nothing to copy"
    if right:
        copies = (f"; at the {len(right)} repeated words, the model's guess for the next word is the word that "
                  f"followed the latest earlier copy {sum(right)} times")
    note = (f"previous-token score {_num(s['previous'])} (the mean weight one position back), prefix-matching score "
            f"{_num(s['prefix'])} (the mean weight right after an earlier copy of the current word){copies}.")
    return {"A": table, "note": _text(note)}


def induction_explorer(model, tokenizer, sentence=None, seed=0):
    """Pick a layer and a head of a trained `model`, type a sequence (or draw a new repeat), and see A and both scores.

    sentence: words of `tokenizer`; None draws a row like the training rows (RepeatTask, max_len long, from `seed`)."""
    task = RepeatTask(seq_len=model.max_len, span=(3, min(10, (model.max_len + 1) // 2)))
    rng = np.random.default_rng(seed)
    if sentence is None:
        sentence = tokenizer.decode(task.batch(1, rng).tokens[0])
    controls = {"sentence": ipw.Text(value=sentence, description="words", continuous_update=False,
                                     layout=ipw.Layout(width="640px")),
                "layer": ipw.ToggleButtons(options=[(f"layer {l}", l) for l in range(model.n_layers)],
                                           value=model.n_layers - 1, description="layer",
                                           style={"button_width": "70px"}),
                "head": ipw.ToggleButtons(options=[(f"head {h}", h) for h in range(model.n_heads)], value=0,
                                          description="head", style={"button_width": "70px"})}
    draw = ipw.Button(description="new repeated sequence", tooltip="draw a random sequence with a repeat at its end")

    def new_repeat(_button=None):
        controls["sentence"].value = tokenizer.decode(task.batch(1, rng).tokens[0])

    draw.on_click(new_repeat)

    def compute():
        return induction_state(model, tokenizer, controls["sentence"].value, controls["layer"].value,
                               controls["head"].value)

    rows = [ipw.VBox([controls["sentence"], draw]), ipw.VBox([controls["layer"], controls["head"]])]
    ex = Explorer("induction", controls, compute, render_induction, layout_controls=rows)
    ex.new_repeat = new_repeat  # what a click on the button does
    return ex
