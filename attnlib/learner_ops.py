"""The capstone's adapter: the learner's own functions as ops of TinyLM's table.

TinyLM(..., ops={"softmax": my_softmax, ...}) runs the one model of attnlib.model
through the learner's functions. Each takes the exercise signature and one sequence
(T, d), rows as tokens; the model's table holds batched forward/backward pairs on
(..., T, d). This module turns each learner function into such a pair: the forward
calls it on every sequence (and head) and checks the shape it returns; the backward
is the learner's own backward function where one is given, attnlib's otherwise.
`multi_head_attention` and `transformer_block` supply the value of their layer (so the
loss sees them); the gradients flow through the pieces. In generation the learner's
cache_step is called one new row at a time, and the learner's next-token pick
(sample_next) picks. In a model with positions="rope" the learner's rope turns every
head's q and k, one sequence and head at a time; its backward is attnlib's (the
rotation by minus the angle). In a model with n_kv_heads < n_heads the learner's
grouped_query_attention supplies each layer's value and their grouped_cache_step keeps
one cache row per group (their cache_step, given alone, reads each head's group). In a
model with a window the learner's rolling_cache_step keeps each head's bounded cache (a
model without one never calls it); there attention itself is attnlib's windowed kernel,
so the ops that compute attention over every earlier position are refused.
"""
import math

import numpy as np

from .attention import ATTENTION, MULTI_HEAD_ATTENTION, Op, attention_forward, attention_grads, mha_forward
from .block import BLOCK, OPS, block_forward
from .layers import EMBED, GELU, LAYER_NORM, gelu_forward, layer_norm_forward
from .loss import LOGITS
from .mixing import mask_future
from .positions import rotation

# The names TinyLM(ops=...) accepts, in course order.
NAMES = ("softmax", "attention", "embed", "multi_head_attention", "layer_norm", "gelu", "transformer_block",
         "next_token_logits", "cross_entropy", "softmax_backward", "attention_backward", "layer_norm_backward",
         "cache_step", "sample_next", "rope", "grouped_query_attention", "grouped_cache_step", "rolling_cache_step")
ONE_KV_PER_HEAD = ("multi_head_attention", "transformer_block")  # ops that cannot run a grouped model
UNROTATED = ("multi_head_attention", "transformer_block", "grouped_query_attention")  # q and k computed, never turned
WINDOWLESS = ("softmax", "attention", "softmax_backward", "attention_backward", "multi_head_attention",
              "transformer_block", "grouped_query_attention", "cache_step", "grouped_cache_step")  # see every key


def check(ops, attn_scale=True, mlp=True, positions="learned", grouped=False, window=None):
    """The ops dict as given, after checking its names and values (ValueError otherwise)."""
    if not isinstance(ops, dict):
        raise ValueError(f"ops must be a dict mapping op names to functions, got {type(ops).__name__}")
    unknown = [k for k in ops if k not in NAMES]
    if unknown:
        raise ValueError(f"ops has unknown names {unknown}; the ops are {', '.join(NAMES)}")
    bad = [k for k, fn in ops.items() if not callable(fn)]
    if bad:
        raise ValueError(f"ops[{bad[0]!r}] must be a function, got {type(ops[bad[0]]).__name__}")
    if not attn_scale and {"multi_head_attention", "transformer_block"} & set(ops):
        raise ValueError("ops multi_head_attention and transformer_block always scale the scores; "
                         "they cannot run a model with attn_scale=False")
    if positions == "rope" and set(UNROTATED) & set(ops):
        raise ValueError(f"ops {', '.join(n for n in UNROTATED if n in ops)} compute q and k without rotating them; "
                         "they cannot run a model with positions='rope'")
    if window is not None and set(WINDOWLESS) & set(ops):
        raise ValueError(f"ops {', '.join(n for n in WINDOWLESS if n in ops)} attend to every earlier position; "
                         f"they cannot run a model with window={window} (rolling_cache_step can)")
    if grouped and set(ONE_KV_PER_HEAD) & set(ops):
        raise ValueError(f"ops {', '.join(n for n in ONE_KV_PER_HEAD if n in ops)} take one key and value per head; "
                         "they cannot run a model with n_kv_heads < n_heads (grouped_query_attention can)")
    if not mlp and "transformer_block" in ops:
        raise ValueError("op transformer_block is a whole block with its MLP; it cannot run a model with mlp=False")
    return dict(ops)


def _array(value, shape, what):
    """The learner's output as a float array of the expected shape, or a ValueError naming the op."""
    out = np.asarray(value, dtype=float)
    if out.shape != shape:
        raise ValueError(f"{what} returned shape {out.shape}, the model needs {shape}")
    return out


def per_sequence(fn, what, out_shape, *arrays):
    """Stack fn(*(a[i] for a in arrays)) over the leading axes of the first array (..., T, d)."""
    lead = arrays[0].shape[:-2]
    out = np.empty(lead + out_shape)
    for i in np.ndindex(*lead):
        out[i] = _array(fn(*(a[i] for a in arrays)), out_shape, what)
    return out


# ----------------------------------------------------------------------------
# one adapter per layer

def attention_op(ops):
    """attention from the learner's attention, or from attnlib's on the learner's softmax (and backwards)."""
    if "attention" in ops:
        attend = ops["attention"]
    elif "softmax" in ops:
        attend = attention_from(ops["softmax"])
    else:
        attend = None
    if "attention_backward" in ops:
        back = ops["attention_backward"]
    elif "softmax_backward" in ops:
        back = attention_backward_from(ops["softmax_backward"])
    else:
        back = None

    def forward(Q, K, V, causal=True, scale=True):
        if attend is None:
            O = attention_forward(Q, K, V, causal, scale)[0]
        else:
            O = per_sequence(lambda q, k, v: attend(q, k, v, causal, scale), "attention", Q.shape[-2:-1] +
                             V.shape[-1:], Q, K, V)
        return O, (Q, K, V, causal, scale)

    def backward(dO, cache):
        Q, K, V, causal, scale = cache
        if back is None:
            return attention_grads(dO, attention_forward(Q, K, V, causal, scale)[1])
        grads = [np.empty(Q.shape), np.empty(K.shape), np.empty(V.shape)]
        for i in np.ndindex(*Q.shape[:-2]):
            got = back(Q[i], K[i], V[i], dO[i], causal, scale)
            for G, g, name in zip(grads, got, ("dQ", "dK", "dV")):
                G[i] = _array(g, G.shape[-2:], f"attention_backward (its {name})")
        return tuple(grads)
    return Op(forward, backward)


def attention_from(softmax):
    """attention(Q, K, V, causal, scale) built on a given softmax."""
    def attention(Q, K, V, causal=True, scale=True):
        S = Q @ K.T * (1.0 / math.sqrt(Q.shape[1]) if scale else 1.0)  # (n_q, n_k)
        return softmax(mask_future(S) if causal else S) @ V  # (n_q, d_v)
    return attention


def attention_backward_from(softmax_backward):
    """attention_backward(Q, K, V, dO, causal, scale) built on a given softmax_backward."""
    def attention_backward(Q, K, V, dO, causal=True, scale=True):
        _, (_, _, _, A, s) = attention_forward(Q, K, V, causal, scale)  # A (n_q, n_k)
        dS = softmax_backward(A, dO @ V.T) * s  # (n_q, n_k)
        return dS @ K, dS.T @ Q, A.T @ dO
    return attention_backward


def layer_norm_op(ops):
    norm, back = ops.get("layer_norm"), ops.get("layer_norm_backward")

    def forward(X, g, b, eps=1e-5):
        Y, cache = layer_norm_forward(X, g, b, eps)  # attnlib's cache: its 1/std shows an overflowed variance
        if norm is not None:
            Y = per_sequence(lambda x: norm(x, g, b), "layer_norm", X.shape[-2:], X) if X.ndim > 2 else \
                _array(norm(X, g, b), X.shape, "layer_norm")
        return Y, (*cache, X)

    def backward(dY, cache):
        *cache, X = cache
        if back is None:
            return LAYER_NORM.backward(dY, tuple(cache))
        rows, d = X.reshape(-1, X.shape[-2], X.shape[-1]), dY.reshape(-1, *dY.shape[-2:])
        dX, dg, db = np.empty(rows.shape), 0.0, 0.0
        for i in range(rows.shape[0]):
            got = back(rows[i], cache[2], d[i])
            dX[i] = _array(got[0], rows.shape[1:], "layer_norm_backward (its dX)")
            dg = dg + _array(got[1], cache[2].shape, "layer_norm_backward (its dg)")
            db = db + _array(got[2], cache[2].shape, "layer_norm_backward (its db)")
        return dX.reshape(X.shape), dg, db
    return Op(forward, backward)


def gelu_op(gelu):
    def forward(X):
        _, cache = gelu_forward(X)  # attnlib's derivative is used on the way back
        return _array(gelu(X), X.shape, "gelu"), cache
    return Op(forward, GELU.backward)


def embed_op(embed):
    def forward(tokens, tok_emb, pos_emb, start=0):
        _, cache = EMBED.forward(tokens, tok_emb, pos_emb, start)
        one = tokens.ndim == 1
        rows = tokens[None] if one else tokens
        X = np.stack([_array(embed(t, tok_emb, pos_emb[start:]), (len(t), tok_emb.shape[1]), "embed") for t in rows])
        return (X[0] if one else X), cache
    return Op(forward, EMBED.backward)


def logits_op(next_token_logits):
    """logits[t] = next_token_logits(N[:t + 1], W_out) for every row t of every sequence."""
    def forward(N, W_out):
        def sequence(M):
            return np.stack([_array(next_token_logits(M[:t + 1], W_out), W_out.shape[1:], "next_token_logits")
                             for t in range(M.shape[0])])
        return per_sequence(sequence, "next_token_logits", (N.shape[-2], W_out.shape[1]), N), (N, W_out)
    return Op(forward, LOGITS.backward)


def cross_entropy_op(cross_entropy):
    def forward(logits, targets):
        loss, dlogits = cross_entropy(logits, targets)
        return float(loss), _array(dlogits, logits.shape, "cross_entropy (its dlogits)")
    return Op(forward, lambda dloss, dlogits: dloss * dlogits)


def mha_op(multi_head_attention, grouped=False):
    """The layer's value from the learner's multi_head_attention (or, grouped, their grouped_query_attention)."""
    def forward(X, Wq, Wk, Wv, Wo, n_heads, causal=True, scale=True, attention=ATTENTION, step=None, rotary=None,
                n_kv_heads=None):
        U, cache = mha_forward(X, Wq, Wk, Wv, Wo, n_heads, causal, scale, attention, step, rotary, n_kv_heads)
        if step is None:  # generation feeds new rows only: there the pieces compute the layer
            groups = (n_kv_heads or n_heads,) if grouped else ()
            U = per_sequence(lambda x: multi_head_attention(x, Wq, Wk, Wv, Wo, n_heads, *groups, causal),
                             "grouped_query_attention" if grouped else "multi_head_attention", X.shape[-2:], X)
        return U, cache
    return Op(forward, MULTI_HEAD_ATTENTION.backward)


def block_op(transformer_block):
    def forward(X, p, n_heads, causal=True, scale=True, ops=None, norm="pre", step=None, mlp=True, rotary=None,
                n_kv_heads=None):
        Z, cache = block_forward(X, p, n_heads, causal, scale, ops, norm, step, mlp, rotary, n_kv_heads)
        if step is None:
            Z = per_sequence(lambda x: transformer_block(x, p, n_heads, causal), "transformer_block", X.shape[-2:], X)
        return Z, cache
    return Op(forward, BLOCK.backward)


def cache_step_op(cache_step, rolling=False):
    """The model's cache step from the learner's cache_step(q, k, v, K_cache, V_cache) -> (o, K_new, V_new)
    (rolling: their rolling_cache_step, given the cache's window and n_sinks too): one head and one new row at a
    time, keeping the caches the learner's function returns. Query head h reads group h // (n_heads // n_kv_heads)
    of a grouped model, in a cache of its own."""
    name = "rolling_cache_step" if rolling else "cache_step"

    def step(Q, K, V, scale, cache, layer):
        kept = cache.__dict__.setdefault("learner_rows", {})  # (layer, head) -> (K_cache, V_cache)
        bound = (cache.window, cache.n_sinks) if rolling else ()
        O = np.empty(Q.shape[:-1] + V.shape[-1:])  # (n_heads, m, d_v)
        per_group = Q.shape[0] // K.shape[0]
        for h in range(Q.shape[0]):
            K_h, V_h = kept.get((layer, h), (np.zeros((0, K.shape[-1])), np.zeros((0, V.shape[-1]))))
            for r in range(Q.shape[1]):
                o, K_h, V_h = cache_step(Q[h, r], K[h // per_group, r], V[h // per_group, r], K_h, V_h, *bound)
                O[h, r] = _array(o, V.shape[-1:], name)
            kept[(layer, h)] = K_h, V_h
        return O
    return step


def grouped_cache_step_op(grouped_cache_step):
    """The model's cache step from the learner's grouped_cache_step(q, k, v, K_cache, V_cache): every head at once,
    one new row at a time, keeping the grouped caches (n_kv_heads, t, d_head) the learner's function returns."""
    def step(Q, K, V, scale, cache, layer):
        kept = cache.__dict__.setdefault("learner_groups", {})  # layer -> (K_cache, V_cache)
        n_kv_heads = K.shape[0]
        K_l, V_l = kept.get(layer, (np.zeros((n_kv_heads, 0, K.shape[-1])), np.zeros((n_kv_heads, 0, V.shape[-1]))))
        O = np.empty(Q.shape[:-1] + V.shape[-1:])  # (n_heads, m, d_v)
        for r in range(Q.shape[1]):
            o, K_l, V_l = grouped_cache_step(Q[:, r], K[:, r], V[:, r], K_l, V_l)
            O[:, r] = _array(o, (Q.shape[0], V.shape[-1]), "grouped_cache_step")
        kept[layer] = K_l, V_l
        return O
    return step


def rope_op(rope):
    """The model's rotary(positions, cos, sin) from the learner's rope(X, positions): each head's rows (T, d_head)
    turned by the learner's function; the gradient turned back by attnlib's rotation."""
    def rotary(positions, cos, sin):
        def forward(X):  # (..., T, d_head)
            return per_sequence(lambda x: rope(x, positions), "rope", X.shape[-2:], X)
        return Op(forward, rotation(cos, sin).backward)
    return rotary


def table(ops, grouped=False, window=False):
    """TinyLM's table (attnlib.block.OPS) with the learner's functions in place of attnlib's. grouped: the model's
    heads share K/V groups, so the learner's grouped attention and grouped cache step go first where both kinds
    are given (the per-head ones otherwise). window: the model has a sliding window, whose cache only the
    learner's rolling_cache_step keeps."""
    t = dict(OPS)
    if {"softmax", "attention", "softmax_backward", "attention_backward"} & set(ops):
        t["attention"] = attention_op(ops)
    if {"layer_norm", "layer_norm_backward"} & set(ops):
        t["layer_norm"] = layer_norm_op(ops)
    adapters = {"gelu": ("gelu", gelu_op), "embed": ("embed", embed_op), "next_token_logits": ("logits", logits_op),
                "cross_entropy": ("cross_entropy", cross_entropy_op), "cache_step": ("cache_step", cache_step_op),
                "grouped_cache_step": ("cache_step", grouped_cache_step_op),
                "rolling_cache_step": ("cache_step", lambda f: cache_step_op(f, rolling=True)),
                "multi_head_attention": ("multi_head_attention", mha_op),
                "grouped_query_attention": ("multi_head_attention", lambda f: mha_op(f, grouped=True)),
                "transformer_block": ("transformer_block", block_op), "rope": ("rotary", rope_op)}
    preferred = ("grouped_query_attention", "grouped_cache_step") if grouped else ("multi_head_attention", "cache_step")
    for name, (slot, adapt) in sorted(adapters.items(), key=lambda item: item[0] in preferred):  # preferred last
        if name in ops and (name != "rolling_cache_step" or window):  # a model without a window never rolls
            t[slot] = adapt(ops[name])
    if "sample_next" in ops:
        t["sample_next"] = ops["sample_next"]
    return t
