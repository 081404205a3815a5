"""attnlib: the numpy library behind the Rediscovering Attention course.

Rows are tokens: X is (n, d_model) and a projection is X @ W with W (d_in, d_out).
One module per idea, in course order:

    projection   x' = x W, and many rows at once            (notebooks 01-02)
    mixing       causal average, mask, softmax              (notebooks 04, 06)
    attention    scores, one head, many heads, tiled        (notebooks 05-07, 09, 14)
    layers       layer norm, GELU, MLP, the block           (notebook 10)
    backprop     every layer as a forward/backward pair, for training
    gradients    cross-entropy and the backward passes as public functions (notebook 11)
    cache        one cached generation step, cache size     (notebook 14)
    model        TinyLM: forward, backward, KV-cache generate (notebooks 08, 11-14)
    optim        Adam with weight decay and gradient clipping
    train        the training loop and ready-made experiments (import attnlib.train)
    data         the essay's example, toy tasks, a tokenizer

Every public function checks its input first (attnlib._validate states the policy):
bad input raises a ValueError that names the argument, never a NaN or a numpy accident.

The viewers (attnlib.viz, attnlib.widgets) and the exercise checks
(attnlib.checks) are imported on their own; the maths never imports them.
"""
from .projection import project, project_rows
from .mixing import uniform_causal_weights, causal_average, causal_mask, softmax, softmax_backward
from .attention import (similarity, attention_weights, attention, self_attention,
                        multi_head_attention, tiled_attention)
from .layers import layer_norm, gelu, transformer_block, next_token_logits
from .cache import attend_step, kv_cache_bytes, sample_next
from .gradients import cross_entropy, attention_backward, layer_norm_backward
from .model import TinyLM, KVCache
from .optim import Adam
from .data import Tokenizer

__version__ = "0.1.0"

__all__ = [
    "project", "project_rows",
    "uniform_causal_weights", "causal_average", "causal_mask", "softmax", "softmax_backward",
    "similarity", "attention_weights", "attention", "self_attention", "multi_head_attention",
    "tiled_attention",
    "layer_norm", "gelu", "transformer_block", "next_token_logits",
    "attend_step", "kv_cache_bytes", "sample_next",
    "cross_entropy", "attention_backward", "layer_norm_backward",
    "TinyLM", "KVCache", "Adam", "Tokenizer",
]
