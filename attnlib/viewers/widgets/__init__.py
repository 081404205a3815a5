"""Interactive explorers: ipywidgets controls wired to pure functions.

Every explorer is built by one function and returned as an `Explorer`, an
ipywidgets.VBox with the CSS classes `ra-explorer` and `ra-explorer-<name>`:

    ex = attention_explorer("the cat sat on the mat")
    ex.controls["causal"].value = False      # what a click does
    ex.state["A"]                            # the recomputed arrays (a dict)
    ex.views                                 # {panel: ipywidgets.HTML}, re-rendered on every change
    ex.error                                 # the last input error message (also shown), or None
    ex.update()                              # recompute and re-render from the current controls

Setting a control's value recomputes and re-renders, exactly as in the browser.
The recomputation itself is a pure module-level function that tests can call
without widgets (`attention_state(sentence, causal, scale, step, seed)`, ...);
`render_<name>(state)` turns its result into HTML strings. A bad input (a
sentence without words) shows its message and keeps the last good state.

Displayed in a notebook, an explorer also carries a static HTML snapshot of its
panels (class `ra-snapshot`), which renderers without a kernel show instead.

    name          builder                                  pure function
    projection    projection_explorer(x, W)                projection_state
    batch         batch_explorer(X, W, tokens)             batch_state
    mixing        mixing_explorer(V, tokens)               mixing_state
    similarity    similarity_explorer(q, k, Q=, K=)        similarity_state
    softmax       softmax_explorer(scores)                 softmax_state
    attention     attention_explorer(sentence, seed,       attention_state
                    embed=, Wq=, Wk=, Wv=)  (a trained head)
    heads-layers  heads_layers_explorer(A_stack, tokens)   heads_layers_state
    kv-cache      kv_cache_explorer(sentence, seed)        kv_cache_state
    positions     positions_explorer(sentence, P, seed)    positions_state
    induction     induction_explorer(model, tokenizer)     induction_state
    rope          rope_explorer(sentence, shift, theta)    rope_state
    gqa           gqa_explorer(n_heads, n_kv_heads, ...)   gqa_state
    window        window_explorer(sentence, window,        window_state
                    n_sinks)
    ops           ops_explorer(broken, steps, seed)        ops_state (BROKEN: the catalogue)

`random_stack_maps(sentence, n_layers, n_heads, seed)` builds an A_stack from
random transformer blocks, so the heads-layers explorer works without a trained model.

Every explorer can be used with the keyboard alone: its sliders and play buttons are native, labelled
HTML controls (controls: FloatSlider, IntSlider, LogSlider, Play, drawn by anywidget), whose readout and
aria-valuetext say the value; JupyterLab's notebook shortcuts leave its keys to its controls.

Modules, in course order: explorer (the container), controls (sliders, play), rows (projection, batch,
mixing), scores (similarity, softmax), attention, positions, heads, kv_cache, induction, rope, gqa, window, ops.
"""
from .controls import FloatSlider, IntSlider, KeyboardScope, LogSlider, Play
from .explorer import Explorer, snapshot_html
from .rows import (batch_explorer, batch_state, mixing_explorer, mixing_state, mixing_weights,
                   projection_explorer, projection_state, render_batch, render_mixing, render_projection)
from .scores import (render_similarity, render_softmax, similarity_explorer, similarity_state,
                     softmax_explorer, softmax_state)
from .attention import attention_explorer, attention_frames, attention_state, render_attention
from .heads import (HeatmapPanel, heads_layers_explorer, heads_layers_state, random_stack_maps,
                    render_heads_layers)
from .kv_cache import kv_cache_explorer, kv_cache_state, render_kv_cache
from .positions import positions_explorer, positions_state
from .induction import induction_explorer, induction_state, render_induction
from .rope import render_rope, rope_explorer, rope_state
from .gqa import gqa_explorer, gqa_state, render_gqa
from .window import render_window, window_explorer, window_state
from .ops import BROKEN, ops_explorer, ops_state, render_ops

__all__ = ["Explorer", "projection_explorer", "batch_explorer", "mixing_explorer", "similarity_explorer",
           "softmax_explorer", "attention_explorer", "heads_layers_explorer", "kv_cache_explorer",
           "random_stack_maps", "projection_state", "batch_state", "mixing_state", "similarity_state",
           "softmax_state", "attention_state", "heads_layers_state", "kv_cache_state",
           "positions_explorer", "positions_state", "snapshot_html", "mixing_weights", "attention_frames",
           "HeatmapPanel", "render_projection", "render_batch", "render_mixing", "render_similarity",
           "render_softmax", "render_attention", "render_heads_layers", "render_kv_cache",
           "induction_explorer", "induction_state", "render_induction", "rope_explorer", "rope_state", "render_rope",
           "gqa_explorer", "gqa_state", "render_gqa",
           "window_explorer", "window_state", "render_window",
           "ops_explorer", "ops_state", "render_ops", "BROKEN",
           "FloatSlider", "IntSlider", "LogSlider", "Play", "KeyboardScope"]
