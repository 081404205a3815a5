"""Notebooks 05-07, 09, 11, 14 and 18: scores, single-head and multi-head attention, and their backward pass.

    S = Q K^T / sqrt(d)          scores, one dot product per (query, key) pair
    A = softmax(S + mask)        weights: each row sums to 1, the future gets 0
    O = A V                      each output row is a mixture of V's rows

One kernel, `attention_forward`, computes O on stacked arrays (batch and heads as
leading axes) and keeps what `attention_grads` needs to run it backwards; every
public function here is that kernel behind a declared contract. Multi-head attention
runs it on every head at once; grouped-query attention is the same path with fewer
key/value heads, each group repeated for the query heads that read it. `windowed` is the
kernel with a sliding window (notebook 18). `tiled_attention` computes the same O block by
block with an online softmax, so the full (n, n) score matrix is never built.
"""
import functools
import math
from collections import namedtuple

import numpy as np

from ._validate import Array, boolean, check_finite_product, check_size, contract, overflow_error, positive_int
from .mixing import exp_and_sum, future_keys, mask_future, softmax_grad
from .projection import weight_grad

Op = namedtuple("Op", "forward backward")  # forward(...) -> (out, cache); backward(d_out, cache) -> d_inputs
BLOCK = 128  # causal queries taken this many rows at a time by the public functions: S is never (n, n)


# ----------------------------------------------------------------------------
# the kernel, on arrays whose last two axes are (tokens, features); no checks

def weights_forward(Q, K, causal=True, scale=True, window=None, n_sinks=0, positions=None):
    """A (..., n_q, n_k) = softmax(Q K^T s + mask) with s = 1/sqrt(d) (or 1), and s.

    Q (..., n_q, d), K (..., n_k, d). With causal=True and n_q < n_k the queries are the
    last n_q positions (new tokens against a cache). window: a sliding window (the query sees
    its newest window - n_sinks positions and the first n_sinks ones, mixing.hidden_keys);
    None for the causal mask alone. positions (n_k,): the keys' positions, 0 .. n_k - 1 by default.
    """
    s = 1.0 / math.sqrt(Q.shape[-1]) if scale else 1.0  # a Python float keeps float32 float32
    S = Q @ np.swapaxes(K, -1, -2)  # (..., n_q, n_k)
    S *= s
    if causal:
        mask_future(S, window, n_sinks, positions)
    A, Z = exp_and_sum(S)  # softmax, in place on S
    A /= Z
    return A, s


def attention_forward(Q, K, V, causal=True, scale=True, window=None, n_sinks=0, positions=None):
    """O (..., n_q, d_v) = A V for V (..., n_k, d_v), and the cache attention_grads reads (window: weights_forward)."""
    A, s = weights_forward(Q, K, causal, scale, window, n_sinks, positions)
    return A @ V, (Q, K, V, A, s)


def attention_grads(dO, cache):
    """dO (..., n_q, d_v) -> dQ, dK, dV: the forward's three products, mirrored.

    Masked entries have A = 0, so the softmax backward gives them zero gradient.
    """
    Q, K, V, A, s = cache
    dV = np.swapaxes(A, -1, -2) @ dO  # (..., n_k, d_v)
    dS = softmax_grad(A, dO @ np.swapaxes(V, -1, -2))  # (..., n_q, n_k)
    dS *= s
    return dS @ K, np.swapaxes(dS, -1, -2) @ Q, dV  # dQ (..., n_q, d), dK (..., n_k, d), dV


ATTENTION = Op(attention_forward, attention_grads)


def windowed(window, n_sinks=0):
    """The kernel with a sliding window, an Op like ATTENTION: each query sees its newest window - n_sinks
    positions and the first n_sinks. The backward is attention_grads unchanged: a hidden key has A = 0.
    window=None is ATTENTION itself."""
    if window is None:
        return ATTENTION
    return Op(functools.partial(attention_forward, window=window, n_sinks=n_sinks), attention_grads)


def attend(Q, K, V, causal=True, scale=True):
    """O of attention_forward without its cache; causal queries BLOCK rows at a time, each block seeing only
    the keys it may (the masked half of S is never computed)."""
    n_q, n_k = Q.shape[-2], K.shape[-2]
    if not causal or n_q <= BLOCK:
        return attention_forward(Q, K, V, causal, scale)[0]
    O = np.empty(Q.shape[:-1] + V.shape[-1:], dtype=np.result_type(Q, K, V))  # (..., n_q, d_v)
    for q0 in range(0, n_q, BLOCK):
        q1 = min(q0 + BLOCK, n_q)
        seen = n_k - n_q + q1  # keys visible to the last query of this block
        O[..., q0:q1, :] = attention_forward(Q[..., q0:q1, :], K[..., :seen, :], V[..., :seen, :], causal, scale)[0]
    return O


def split_heads(M, n_heads):
    """(..., n, n_heads * d_head) -> (..., n_heads, n, d_head): head h takes columns h*d_head:(h+1)*d_head."""
    M = M.reshape(*M.shape[:-1], n_heads, M.shape[-1] // n_heads)  # (..., n, n_heads, d_head)
    return np.swapaxes(M, -3, -2)


def share_kv(M, n_heads):
    """(..., n_kv_heads, n, d) -> (..., n_heads, n, d): group g repeated for query heads g*r .. (g+1)*r - 1,
    r = n_heads // n_kv_heads, so query head h reads group h // r. With r = 1 it is M itself."""
    r = n_heads // M.shape[-3]
    return M if r == 1 else np.repeat(M, r, axis=-3)


def share_kv_grad(dM, n_kv_heads):
    """share_kv backwards: (..., n_heads, n, d) -> (..., n_kv_heads, n, d), each group's gradient summed over the
    query heads that read it."""
    if dM.shape[-3] == n_kv_heads:
        return dM
    return dM.reshape(*dM.shape[:-3], n_kv_heads, -1, *dM.shape[-2:]).sum(axis=-3)  # (..., n_kv_heads, r, n, d)


def merge_heads(O):
    """(..., n_heads, n, d_head) -> (..., n, n_heads * d_head), heads side by side in order."""
    O = np.swapaxes(O, -3, -2)  # (..., n, n_heads, d_head)
    return O.reshape(*O.shape[:-2], -1)


def mha_forward(X, Wq, Wk, Wv, Wo, n_heads, causal=True, scale=True, attention=ATTENTION, step=None, rotary=None,
                n_kv_heads=None):
    """Multi-head attention on X (..., T, d_model) -> (..., T, d_model), and its cache.

    attention: the kernel, an Op. step: for generation, a callable (Q, K, V, scale) -> O that
    adds the new rows' K and V to a cache and attends over all of it (no backward then).
    rotary: None, or an Op that rotates each head's q and k rows by their positions (RoPE,
    attnlib.positions.rotation); V is never rotated, and a cache receives the rotated keys.
    n_kv_heads: the number of K/V groups (grouped-query attention), n_heads when None. Wk and Wv
    then hold n_kv_heads groups of d_head columns; query head h reads group h // (n_heads // n_kv_heads),
    each group repeated for its query heads (share_kv) before the kernel. A cache receives the groups.
    """
    n_kv_heads = n_kv_heads or n_heads
    Q = split_heads(X @ Wq, n_heads)  # (..., n_heads, T, d_head)
    K = split_heads(X @ Wk, n_kv_heads)  # (..., n_kv_heads, T, d_head)
    V = split_heads(X @ Wv, n_kv_heads)  # (..., n_kv_heads, T, d_v)
    if rotary is not None:
        Q, K = rotary.forward(Q), rotary.forward(K)  # each row turned by its position's angles
    if step is None:
        O, att = attention.forward(Q, share_kv(K, n_heads), share_kv(V, n_heads), causal, scale)
    else:
        O, att = step(Q, K, V, scale), None
    M = merge_heads(O)  # (..., T, n_heads * d_v)
    return M @ Wo, (X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, M, attention, rotary, att)


def mha_grads(dY, cache):
    """dY (..., T, d_model) -> dX, dWq, dWk, dWv, dWo."""
    X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, M, attention, rotary, att = cache
    dM = dY @ Wo.T  # (..., T, n_heads * d_v)
    dQ, dK, dV = attention.backward(split_heads(dM, n_heads), att)
    dK, dV = share_kv_grad(dK, n_kv_heads), share_kv_grad(dV, n_kv_heads)  # (..., n_kv_heads, T, d_head)
    if rotary is not None:
        dQ, dK = rotary.backward(dQ), rotary.backward(dK)  # back through the rotation: turned by -angle
    dQ, dK, dV = merge_heads(dQ), merge_heads(dK), merge_heads(dV)  # (..., T, n_heads or n_kv_heads * d_head)
    dX = dQ @ Wq.T + dK @ Wk.T + dV @ Wv.T  # (..., T, d_model)
    return dX, weight_grad(X, dQ), weight_grad(X, dK), weight_grad(X, dV), weight_grad(M, dY)


MULTI_HEAD_ATTENTION = Op(mha_forward, mha_grads)


# ----------------------------------------------------------------------------
# declared contracts

def causal_lengths(args, dims):
    """Causal attention needs n_q <= n_k: the queries are the last n_q positions."""
    if args.get("causal", True) and dims["n_q"] > dims["n_k"]:
        raise ValueError(f"causal attention needs n_q <= n_k (the queries are the last n_q positions), "
                         f"got Q {args['Q'].shape} and K {args['K'].shape}")


def all_scores(args, dims):
    """S (n_q, n_k) is held whole: refuse a size that cannot be allocated."""
    check_size("Q and K", (dims["n_q"], dims["n_k"]), np.result_type(args["Q"], args["K"]))


def unmasked_scores(args, dims):
    """Causal attention takes the queries in blocks, never holding all of S; without the mask it does."""
    if not args["causal"]:
        all_scores(args, dims)


def overflow(args, O):
    """Raise if O is not finite, naming the scores when they overflowed, else the weighted sum."""
    if np.isfinite(O).all():
        return
    Q, K = args["Q"], args["K"]
    S = (Q * (1.0 / math.sqrt(Q.shape[1]) if args.get("scale", True) else Q)) @ K.T  # (n_q, n_k)
    check_finite_product(S, "Q @ K.T", Q=Q, K=K)
    check_finite_product(O, "the weighted sum of V's rows", V=args["V"])


QK = dict(Q=Array("n_q", "d"), K=Array("n_k", "d"))
QKV = dict(QK, V=Array("n_k", "d_v"), causal=boolean)


@contract(all_scores, finite="Q @ K.T", **QK)
def similarity(Q, K):
    """Raw scores Q (n_q, d) @ K^T (d, n_k) -> (n_q, n_k): every pairwise dot product."""
    return Q @ K.T  # (n_q, n_k)


@contract(causal_lengths, all_scores, causal=boolean, scale=boolean, finite="Q @ K.T", **QK)
def attention_weights(Q, K, causal=True, scale=True):
    """A (n_q, n_k) = softmax(Q K^T / sqrt(d) + mask), rows sum to 1.

    With causal=True and n_q < n_k the queries are the last n_q positions (as with
    a KV cache): query i may look at keys 0 .. n_k - n_q + i.
    """
    return weights_forward(Q, K, causal, scale)[0]  # (n_q, n_k)


@contract(causal_lengths, unmasked_scores, scale=boolean, finite=overflow, **QKV)
def attention(Q, K, V, causal=True, scale=True):
    """O (n_q, d_v) = attention_weights(Q, K) @ V: each row mixes the rows of V."""
    return attend(Q, K, V, causal, scale)  # (n_q, d_v)


def output_shaped(args, dims):
    """dO is the gradient of O: one row per query, one column per value feature."""
    want = (dims["n_q"], dims["d_v"])
    if args["dO"].shape != want:
        raise ValueError(f"dO must have the shape of the output O, {want}, got dO {args['dO'].shape} "
                         f"(Q {args['Q'].shape}, V {args['V'].shape})")


def grads_overflow(args, grads):
    """Name the scores if they overflowed, else the backward pass."""
    if all(np.isfinite(G).all() for G in grads):
        return
    Q, K = args["Q"], args["K"]
    check_finite_product(Q @ K.T, "Q @ K.T", Q=Q, K=K)
    raise overflow_error("the backward pass", np.result_type(*grads), dO=args["dO"], V=args["V"], Q=Q, K=K)


@contract(causal_lengths, output_shaped, all_scores, scale=boolean, dO=Array(None, None, what="(n_q, d_v)"),
          finite=grads_overflow, **QKV)
def attention_backward(Q, K, V, dO, causal=True, scale=True):
    """The gradients of sum(O * dO) for O = attention(Q, K, V, causal, scale).

    Q (n_q, d), K (n_k, d), V (n_k, d_v), dO (n_q, d_v). Returns (dQ (n_q, d),
    dK (n_k, d), dV (n_k, d_v)). With A = softmax(Q K^T s + mask), s = 1/sqrt(d) if scale:
    dV = A^T dO, dS = softmax_backward(A, dO V^T) * s, dQ = dS K, dK = dS^T Q. Masked
    entries have A = 0 and get no gradient. With causal=True and n_q < n_k the queries
    are the last n_q positions, as in attention.
    """
    return attention_grads(dO, attention_forward(Q, K, V, causal, scale)[1])


def same_d_head(args, dims):
    if args["Wq"].shape[1] != args["Wk"].shape[1]:
        raise ValueError(f"Wq and Wk must give the same d_head, got Wq {args['Wq'].shape} and Wk {args['Wk'].shape}")


@contract(same_d_head, X=Array("n", "d_model"), Wq=Array("d_model", "d_head"), Wk=Array("d_model", "d_head_k"),
          Wv=Array("d_model", "d_v"), Wo=Array("d_v", "d_out", optional=True), causal=boolean,
          finite="self_attention")
def self_attention(X, Wq, Wk, Wv, Wo=None, causal=True):
    """One attention head on X (n, d_model): Q, K, V = X Wq, X Wk, X Wv.

    Wq, Wk (d_model, d_head); Wv (d_model, d_v); optional Wo (d_v, d_out).
    Returns (n, d_v), or (n, d_out) with Wo.
    """
    O = attend(X @ Wq, X @ Wk, X @ Wv, causal)  # (n, d_v)
    return O if Wo is None else O @ Wo  # (n, d_out)


def heads_divide(args, dims):
    n_heads = args["n_heads"]
    for name in ("Wq", "Wk", "Wv"):
        if args[name].shape[1] % n_heads:
            raise ValueError(f"n_heads={n_heads} does not divide the {args[name].shape[1]} columns of "
                             f"{name} {args[name].shape} (d_model={dims['d_model']})")
    if args["Wq"].shape[1] != args["Wk"].shape[1]:
        raise ValueError(f"Wq and Wk must have the same width, got Wq {args['Wq'].shape} and Wk {args['Wk'].shape}")


@contract(heads_divide, X=Array("n", "d_model"), Wq=Array("d_model", "width_q"), Wk=Array("d_model", "width_k"),
          Wv=Array("d_model", "width_v"), Wo=Array("width_v", "d_out"), n_heads=positive_int, causal=boolean,
          finite="multi_head_attention")
def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    """n_heads attention heads side by side, concatenated, then @ Wo.

    X (n, d_model); Wq, Wk, Wv (d_model, n_heads * d_head); Wo (n_heads * d_head, d_model).
    Head h uses columns h*d_head:(h+1)*d_head of Wq, Wk and Wv. Returns (n, d_model).
    """
    return mha_forward(X, Wq, Wk, Wv, Wo, n_heads, causal)[0]  # (n, d_model)


def kv_groups_divide(args, dims):
    """n_kv_heads divides n_heads, and Wq, Wk, Wv, Wo agree on d_head."""
    n_heads, n_kv_heads = args["n_heads"], args["n_kv_heads"]
    if n_heads % n_kv_heads:
        raise ValueError(f"n_heads={n_heads} must be a multiple of n_kv_heads={n_kv_heads}: each K/V group is "
                         f"shared by n_heads // n_kv_heads query heads")
    for name, count in (("Wq", n_heads), ("Wk", n_kv_heads), ("Wv", n_kv_heads)):
        if args[name].shape[1] % count:
            raise ValueError(f"{'n_heads' if name == 'Wq' else 'n_kv_heads'}={count} does not divide the "
                             f"{args[name].shape[1]} columns of {name} {args[name].shape}")
    d_q, d_k = args["Wq"].shape[1] // n_heads, args["Wk"].shape[1] // n_kv_heads
    if d_q != d_k:
        raise ValueError(f"queries and keys must have the same d_head: Wq {args['Wq'].shape} gives {d_q} per head "
                         f"(n_heads={n_heads}), Wk {args['Wk'].shape} gives {d_k} (n_kv_heads={n_kv_heads})")
    width_o = n_heads * (args["Wv"].shape[1] // n_kv_heads)
    if args["Wo"].shape[0] != width_o:
        raise ValueError(f"Wo must have n_heads * d_v = {n_heads} * {args['Wv'].shape[1] // n_kv_heads} = {width_o} "
                         f"rows, one per column of the heads side by side, got Wo {args['Wo'].shape} "
                         f"(Wv {args['Wv'].shape}, n_kv_heads={n_kv_heads})")


@contract(kv_groups_divide, X=Array("n", "d_model"), Wq=Array("d_model", "width_q"), Wk=Array("d_model", "width_k"),
          Wv=Array("d_model", "width_v"), Wo=Array("width_o", "d_out"), n_heads=positive_int, n_kv_heads=positive_int,
          causal=boolean, finite="grouped_query_attention")
def grouped_query_attention(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    """Multi-head attention whose n_heads query heads share n_kv_heads key/value groups.

    X (n, d_model); Wq (d_model, n_heads * d_head); Wk, Wv (d_model, n_kv_heads * d_head);
    Wo (n_heads * d_head, d_model). Group g uses columns g*d_head:(g+1)*d_head of Wk and Wv;
    query head h reads group h // (n_heads // n_kv_heads). n_kv_heads = n_heads is
    multi_head_attention, n_kv_heads = 1 is multi-query attention (MQA). Returns (n, d_model).
    """
    return mha_forward(X, Wq, Wk, Wv, Wo, n_heads, causal, n_kv_heads=n_kv_heads)[0]  # (n, d_model)


@contract(causal_lengths, block=positive_int, finite=overflow, **QKV)
def tiled_attention(Q, K, V, causal=True, block=64):
    """The same O as attention(Q, K, V, causal), computed block by block.

    For each block of queries, walk over blocks of keys keeping a running row max
    m, a running sum l of exp(s - m) and a running output acc. When a new block
    raises the max, the old sums are rescaled by exp(m_old - m_new). Memory holds
    one (block, block) score tile at a time, never the (n_q, n_k) matrix.
    """
    n_q, n_k = Q.shape[0], K.shape[0]
    offset = n_k - n_q
    dtype = np.result_type(Q, K, V)
    scale = 1.0 / math.sqrt(Q.shape[1])  # a Python float keeps float32 inputs float32
    O = np.empty((n_q, V.shape[1]), dtype=dtype)  # (n_q, d_v)
    for q0 in range(0, n_q, block):
        Qb = Q[q0:q0 + block] * scale  # (bq, d)
        bq = Qb.shape[0]
        m = np.full((bq, 1), -np.inf, dtype=dtype)  # running max
        l = np.zeros((bq, 1), dtype=dtype)  # running sum of exp
        acc = np.zeros((bq, V.shape[1]), dtype=dtype)  # running sum of exp * V
        k_end = min(n_k, offset + q0 + bq) if causal else n_k  # keys past this are all future
        for k0 in range(0, k_end, block):
            S = Qb @ K[k0:k0 + block].T  # (bq, bk)
            if causal and k0 + S.shape[1] > offset + q0 + 1:  # tile touches the diagonal
                S[future_keys(bq, S.shape[1], first=offset + q0 - k0)] = -np.inf  # query i at offset + q0 + i
            m_new = np.maximum(m, S.max(axis=1, keepdims=True))
            P = np.exp(S - m_new)  # (bq, bk)
            rescale = np.exp(m - m_new)
            l = l * rescale + P.sum(axis=1, keepdims=True)
            acc = acc * rescale + P @ V[k0:k0 + block]
            m = m_new
        O[q0:q0 + bq] = acc / l
    return O
