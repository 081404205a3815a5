"""Notebook 10: the transformer block, and the table of ops that every model here is written against.

A pre-LN block (norm="pre", GPT-2's):
    Y = X + MHA(LN1(X))                       attention mixes rows
    Z = Y + MLP(LN2(Y))                       the MLP works on each row alone
A post-LN block (norm="post", the original transformer's; lesson 11 compares them):
    Y = LN1(X + MHA(X)),  Z = LN2(Y + MLP(Y))
The residual adds (X + ...) let signal and gradient pass through deep stacks; layer
norm keeps every row at a steady scale.

`block_forward` and `block_grads` are the only composition of a block: the public
`transformer_block`, TinyLM's training, its forward pass and its cached generation all
run them. They call their layers through `ops`, a dict of Op pairs: OPS holds
attnlib's own; the capstone puts the learner's functions in their place.
"""
import functools

from ._validate import Array, as_float_array, boolean, check_finite_product, contract, positive_int
from .attention import ATTENTION, MULTI_HEAD_ATTENTION, Op
from .cache import cache_step, sample_next
from .layers import EMBED, GELU, LAYER_NORM, mlp_forward, mlp_grads
from .loss import CROSS_ENTROPY, LOGITS

BLOCK_KEYS = ("ln1_g", "ln1_b", "Wq", "Wk", "Wv", "Wo", "ln2_g", "ln2_b", "W1", "b1", "W2", "b2")
ATTENTION_KEYS = BLOCK_KEYS[:6]  # an attention-only block (mlp=False) has no second norm and no MLP
NORMS = ("pre", "post")


def block_forward(X, p, n_heads, causal=True, scale=True, ops=None, norm="pre", step=None, mlp=True, rotary=None,
                  n_kv_heads=None):
    """One block on X (..., T, d_model) -> (..., T, d_model), and its cache. p holds BLOCK_KEYS.

    ops: the table of Op pairs (OPS by default). step: for generation, a callable
    (Q, K, V, scale) -> O over a KV cache; the rows are then new tokens and no cache is kept.
    mlp=False: an attention-only block, Z = Y (p holds ATTENTION_KEYS).
    rotary: None, or the rotation of q and k by the rows' positions (RoPE), passed to the attention.
    n_kv_heads: the K/V groups of grouped-query attention (Wk, Wv hold n_kv_heads * d_head columns); None: n_heads.
    """
    ops = ops or OPS
    ln, mha = ops["layer_norm"], ops["multi_head_attention"]

    def attend(H):
        return mha.forward(H, p["Wq"], p["Wk"], p["Wv"], p["Wo"], n_heads, causal, scale, ops["attention"], step,
                           rotary, n_kv_heads=n_kv_heads)

    def feed_forward(H):
        return mlp_forward(H, p["W1"], p["b1"], p["W2"], p["b2"], ops["gelu"])

    ln2 = ff = None
    if norm == "pre":
        H, ln1 = ln.forward(X, p["ln1_g"], p["ln1_b"])
        U, att = attend(H)
        Z = Y = X + U  # (..., T, d_model)
        if mlp:
            H, ln2 = ln.forward(Y, p["ln2_g"], p["ln2_b"])
            U, ff = feed_forward(H)
            Z = Y + U
    else:
        U, att = attend(X)
        Y, ln1 = ln.forward(X + U, p["ln1_g"], p["ln1_b"])  # the norm after the add
        Z = Y
        if mlp:
            U, ff = feed_forward(Y)
            Z, ln2 = ln.forward(Y + U, p["ln2_g"], p["ln2_b"])
    return Z, (ln1, att, ln2, ff, ops, norm)


def block_grads(dZ, cache):
    """dZ (..., T, d_model) -> dX and a dict of gradients keyed like BLOCK_KEYS.

    Each residual add sends its gradient down both paths: through the layer and straight past it.
    """
    ln1, att, ln2, ff, ops, norm = cache
    ln, mha = ops["layer_norm"], ops["multi_head_attention"]
    g = {}
    if norm == "pre":
        dY = dZ
        if ff is not None:
            dH, g["W1"], g["b1"], g["W2"], g["b2"] = mlp_grads(dZ, ff)
            dY, g["ln2_g"], g["ln2_b"] = ln.backward(dH, ln2)
            dY += dZ  # residual around the MLP
        dH, g["Wq"], g["Wk"], g["Wv"], g["Wo"] = mha.backward(dY, att)
        dX, g["ln1_g"], g["ln1_b"] = ln.backward(dH, ln1)
        dX += dY  # residual around attention
    else:
        dY = dR = dZ
        if ff is not None:
            dR, g["ln2_g"], g["ln2_b"] = ln.backward(dZ, ln2)  # the gradient at Y + MLP(Y)
            dY, g["W1"], g["b1"], g["W2"], g["b2"] = mlp_grads(dR, ff)
            dY += dR  # at Y: through the MLP and past it
        dR, g["ln1_g"], g["ln1_b"] = ln.backward(dY, ln1)  # at X + MHA(X)
        dX, g["Wq"], g["Wk"], g["Wv"], g["Wo"] = mha.backward(dR, att)
        dX += dR  # through attention and past it
    return dX, {k: g[k] for k in BLOCK_KEYS if k in g}


BLOCK = Op(block_forward, block_grads)


def kv_step(ops, cache, layer):
    """The `step` of block_forward for one layer of a KVCache: ops["cache_step"] bound to it."""
    return functools.partial(ops["cache_step"], cache=cache, layer=layer)


def rotary(positions, cos, sin):
    """RoPE's rotation of q and k rows at `positions` (T,), whose angles' cosines and sines are cos, sin (T, d/2):
    an Op on (..., T, d). The table's entry, so that the capstone can put the learner's rope in its place."""
    from .positions import rotation  # imported here: the public names keep the course order (positions after blocks)
    return rotation(cos, sin)


# The ops TinyLM runs on, by name: each a forward/backward Op, but the generation-only
# cache_step(Q, K, V, scale, cache, layer) -> O and sample_next(logits, temperature, u) -> id, and
# rotary(positions, cos, sin) -> the Op that turns q and k (models with positions="rope").
OPS = {"embed": EMBED, "layer_norm": LAYER_NORM, "attention": ATTENTION, "multi_head_attention": MULTI_HEAD_ATTENTION,
       "gelu": GELU, "transformer_block": BLOCK, "logits": LOGITS, "cross_entropy": CROSS_ENTROPY,
       "cache_step": cache_step, "sample_next": sample_next, "rotary": rotary}


def block_params(args, dims):
    """p holds exactly BLOCK_KEYS, shaped for d_model; n_heads divides d_model."""
    p, d_model, n_heads = args["p"], dims["d_model"], args["n_heads"]
    if not isinstance(p, dict):
        raise ValueError(f"p must be a dict with keys {', '.join(BLOCK_KEYS)}, got {type(p).__name__}")
    missing = [k for k in BLOCK_KEYS if k not in p]
    if missing:
        raise ValueError(f"p is missing keys: {', '.join(missing)}")
    extra = [str(k) for k in p if k not in BLOCK_KEYS]
    if extra:
        raise ValueError(f"p has unexpected keys: {', '.join(extra)} (a block has {', '.join(BLOCK_KEYS)})")
    q = {k: as_float_array(f"p[{k!r}]", p[k], 1 if k.startswith("ln") or k in ("b1", "b2") else 2, "")
         for k in BLOCK_KEYS}
    d_ff = q["W1"].shape[1]
    expected = {"ln1_g": (d_model,), "ln1_b": (d_model,), "ln2_g": (d_model,), "ln2_b": (d_model,),
                "b2": (d_model,), "Wq": (d_model, d_model), "Wk": (d_model, d_model), "Wv": (d_model, d_model),
                "Wo": (d_model, d_model), "W1": (d_model, d_ff), "b1": (d_ff,), "W2": (d_ff, d_model)}
    for k, shape in expected.items():
        if q[k].shape != shape:
            raise ValueError(f"p[{k!r}] must have shape {shape} for d_model={d_model}, got {q[k].shape}")
    if d_model % n_heads:
        raise ValueError(f"n_heads={n_heads} does not divide d_model={d_model}")
    args["p"] = q


def block_finite(args, Z):
    inputs = {"X": args["X"], **{f"p[{k!r}]": v for k, v in args["p"].items()}}
    check_finite_product(Z, "transformer_block", **inputs)


@contract(block_params, X=Array("n", "d_model"), n_heads=positive_int, causal=boolean, finite=block_finite)
def transformer_block(X, p, n_heads, causal=True):
    """One pre-LN block on X (n, d_model) -> (n, d_model). p holds BLOCK_KEYS."""
    return block_forward(X, p, n_heads, causal)[0]

