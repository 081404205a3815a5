"""attnlib: the numpy library behind the Rediscovering Attention course.

Rows are tokens: X is (n, d_model) and a projection is X @ W with W (d_in, d_out).
The maths, one module per idea, in course order:

    projection   x' = x W, and many rows at once                       (notebooks 01-02)
    mixing       causal average, mask, softmax and its backward        (notebooks 04, 06)
                 and the sliding window, the causal mask's second edge (notebook 18)
    attention    scores, one head, many heads, tiled; the backward     (notebooks 05-07, 09, 11)
                 and heads sharing keys and values (grouped-query attention)
    layers       embedding, layer norm, GELU, the MLP; their backward  (notebooks 03, 10-11)
    loss         next-token logits and the cross-entropy               (notebooks 08, 11)
    block        the transformer block, and the table of ops below it  (notebook 10)
    cache        the KV cache, one cached step, sampling, top-k, top-p  (notebook 14)
                 and the rolling cache of a window, with its sinks     (notebook 18)
    positions    the frequencies of positions from a formula: sinusoids, RoPE  (notebooks 08, 16)
    model        TinyLM: one forward, one backward, one generate loop  (notebooks 08, 11-19)
    circuits     what a head does: previous-token and prefix-matching scores, ablation  (notebook 15)
    learner_ops  the learner's own functions as TinyLM's ops           (notebook 19)
    optim        Adam with weight decay and gradient clipping
    train        the training loop and ready-made experiments (import attnlib.train)
    data         the essay's example, toy tasks, a tokenizer

Every public function declares its input beside it (attnlib._validate states the policy):
bad input raises a ValueError that names the argument, never a NaN or a numpy accident.

The other products are subpackages, each imported on its own; the maths never imports them:
    attnlib.checks    the grader: exercise checks, diagnoses, hints
    attnlib.viewers   figures, HTML tables and interactive explorers (attnlib.viewers.viz, .widgets)
    attnlib.course    the course manifest, the learner's workspace, the lab launcher, the command line
"""
import importlib

from . import projection, mixing, attention, layers, loss, block, cache, positions, model, circuits, optim, data  # noqa: F401
from ._validate import PUBLIC

globals().update(PUBLIC)
__version__ = "0.1.0"
__all__ = list(PUBLIC)  # every public name, listed once: where each is defined, by @contract or @public

# An edited copy of an older notebook in workspace/ may still import these: modules that moved keep working,
# and the engines that became the layers say where their parts went.
_MOVED = {"viz": "attnlib.viewers.viz", "widgets": "attnlib.viewers.widgets", "workspace": "attnlib.course.workspace",
          "lab": "attnlib.course.lab"}
_GONE = {"backprop": "each layer's forward and backward sit beside it, in attnlib.layers, attention, loss and block",
         "gradients": "cross_entropy, attention_backward and layer_norm_backward are attnlib's own names",
         "ops": "the names TinyLM(ops=...) takes are attnlib.learner_ops.NAMES"}


def __getattr__(name):
    if name in _MOVED:
        return importlib.import_module(_MOVED[name])
    if name in _GONE:
        raise ImportError(f"attnlib.{name} is gone: {_GONE[name]}. If this is your copy of a lesson in workspace/, "
                          "`python -m attnlib update NN` backs it up and fetches the lesson's new version")
    raise AttributeError(f"module 'attnlib' has no attribute {name!r}")
