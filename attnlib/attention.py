"""Notebooks 05-07, 09 and 14: scores, single-head and multi-head attention.

    S = Q K^T / sqrt(d)          scores, one dot product per (query, key) pair
    A = softmax(S + mask)        weights: each row sums to 1, the future gets 0
    O = A V                      each output row is a mixture of V's rows

`tiled_attention` computes the same O block by block with an online softmax, so
the full (n, n) score matrix is never built.
"""
import math

import numpy as np

from ._validate import as_float_array, boolean, check_finite_product, check_inner, check_size, positive_int
from .mixing import exp_and_sum, future_keys, mask_future


# ----------------------------------------------------------------------------
# input checks

def _check_qk(Q, K):
    Q = as_float_array("Q", Q, 2, "(n_q, d)")
    K = as_float_array("K", K, 2, "(n_k, d)")
    if Q.shape[1] != K.shape[1]:
        raise ValueError(f"Q has d={Q.shape[1]} but K has d={K.shape[1]} (Q {Q.shape}, K {K.shape})")
    return Q, K


def _check_qkv(Q, K, V, causal):
    Q, K = _check_qk(Q, K)
    V = as_float_array("V", V, 2, "(n_k, d_v)")
    if V.shape[0] != K.shape[0]:
        raise ValueError(f"K has {K.shape[0]} rows but V has {V.shape[0]}; each key needs one value row "
                         f"(K {K.shape}, V {V.shape})")
    _check_causal_lengths(Q, K, causal)
    return Q, K, V


def _check_causal_lengths(Q, K, causal):
    if causal and Q.shape[0] > K.shape[0]:
        raise ValueError(f"causal attention needs n_q <= n_k (the queries are the last n_q positions), "
                         f"got Q {Q.shape} and K {K.shape}")


def _finite_output(O, Q, K, V, scale):
    """Return O if finite; else name the product that overflowed (run only when something did)."""
    if np.isfinite(O).all():
        return O
    with np.errstate(over="ignore", invalid="ignore"):
        S = (Q * (1.0 / math.sqrt(Q.shape[1]) if scale else Q)) @ K.T  # (n_q, n_k)
    check_finite_product(S, "Q @ K.T", Q=Q, K=K)
    return check_finite_product(O, "the weighted sum of V's rows", V=V)


# ----------------------------------------------------------------------------
# the core, on arrays whose last two axes are (tokens, features); no checks

def masked_scores(Q, K, causal, scale):
    """S (..., n_q, n_k) = Q K^T (/ sqrt(d)), with -inf on the future if causal."""
    if scale:
        Q = Q * (1.0 / math.sqrt(Q.shape[-1]))  # scaling Q costs n*d, scaling S would cost n*n
    S = Q @ np.swapaxes(K, -1, -2)  # (..., n_q, n_k)
    return mask_future(S) if causal else S


def attend(Q, K, V, causal=True, scale=True, block=128):
    """Attention on stacked arrays, no input checks: (..., n_q, d) -> (..., n_q, d_v).

    Used by multi-head attention and the model, where the heads (and the batch)
    are leading axes. Two savings that change no result:
    - normalise after the product (divide O, not A): n*d_v divisions, not n^2;
    - with the causal mask, take the queries `block` rows at a time and give each
      block only the keys it can see, so the masked half of S is never computed.
    """
    n_q, n_k = Q.shape[-2], K.shape[-2]
    if not causal or n_q <= block:
        E, Z = exp_and_sum(masked_scores(Q, K, causal, scale))
        return (E @ V) / Z  # (..., n_q, d_v)
    O = np.empty(Q.shape[:-1] + V.shape[-1:], dtype=np.result_type(Q, K, V))  # (..., n_q, d_v)
    for q0 in range(0, n_q, block):
        q1 = min(q0 + block, n_q)
        seen = n_k - n_q + q1  # keys visible to the last query of this block
        O[..., q0:q1, :] = attend(Q[..., q0:q1, :], K[..., :seen, :], V[..., :seen, :], causal, scale)
    return O


# ----------------------------------------------------------------------------
# public API

def similarity(Q, K):
    """Raw scores Q (n_q, d) @ K^T (d, n_k) -> (n_q, n_k): every pairwise dot product."""
    Q, K = _check_qk(Q, K)
    check_size("Q and K", (Q.shape[0], K.shape[0]), np.result_type(Q, K))
    with np.errstate(over="ignore", invalid="ignore"):
        S = Q @ K.T  # (n_q, n_k)
    return check_finite_product(S, "Q @ K.T", Q=Q, K=K)


def attention_weights(Q, K, causal=True, scale=True):
    """A (n_q, n_k) = softmax(Q K^T / sqrt(d) + mask), rows sum to 1.

    With causal=True and n_q < n_k the queries are the last n_q positions (as with
    a KV cache): query i may look at keys 0 .. n_k - n_q + i.
    """
    Q, K = _check_qk(Q, K)
    causal, scale = boolean("causal", causal), boolean("scale", scale)
    _check_causal_lengths(Q, K, causal)
    check_size("Q and K", (Q.shape[0], K.shape[0]), np.result_type(Q, K))
    with np.errstate(over="ignore", invalid="ignore"):
        E, Z = exp_and_sum(masked_scores(Q, K, causal, scale))
        A = E / Z  # (n_q, n_k)
    return check_finite_product(A, "Q @ K.T", Q=Q, K=K)


def attention(Q, K, V, causal=True, scale=True):
    """O (n_q, d_v) = attention_weights(Q, K) @ V: each row mixes the rows of V."""
    Q, K, V = _check_qkv(Q, K, V, boolean("causal", causal))
    scale = boolean("scale", scale)
    if not causal:  # causal attention takes the queries in blocks, never holding all of S
        check_size("Q and K", (Q.shape[0], K.shape[0]), np.result_type(Q, K))
    with np.errstate(over="ignore", invalid="ignore"):
        O = attend(Q, K, V, causal, scale)  # (n_q, d_v)
    return _finite_output(O, Q, K, V, scale)


def self_attention(X, Wq, Wk, Wv, Wo=None, causal=True):
    """One attention head on X (n, d_model): Q, K, V = X Wq, X Wk, X Wv.

    Wq, Wk (d_model, d_head); Wv (d_model, d_v); optional Wo (d_v, d_out).
    Returns (n, d_v), or (n, d_out) with Wo.
    """
    X = as_float_array("X", X, 2, "(n, d_model)")
    causal = boolean("causal", causal)
    Ws = {"Wq": Wq, "Wk": Wk, "Wv": Wv}
    for name in Ws:
        Ws[name] = as_float_array(name, Ws[name], 2, "(d_model, d_head)")
        check_inner("X", X.shape, name, Ws[name].shape)
    if Ws["Wq"].shape[1] != Ws["Wk"].shape[1]:
        raise ValueError(f"Wq and Wk must give the same d_head, got Wq {Ws['Wq'].shape} and Wk {Ws['Wk'].shape}")
    if Wo is not None:
        Ws["Wo"] = as_float_array("Wo", Wo, 2, "(d_v, d_out)")
        check_inner("O", (X.shape[0], Ws["Wv"].shape[1]), "Wo", Ws["Wo"].shape)
    with np.errstate(over="ignore", invalid="ignore"):
        Q, K, V = X @ Ws["Wq"], X @ Ws["Wk"], X @ Ws["Wv"]  # (n, d_head), (n, d_head), (n, d_v)
        O = attend(Q, K, V, causal)  # (n, d_v)
        if Wo is not None:
            O = O @ Ws["Wo"]  # (n, d_out)
    return check_finite_product(O, "self_attention", X=X, **Ws)


def split_heads(M, n_heads):
    """(n, n_heads * d_head) -> (n_heads, n, d_head): head h takes columns h*d_head:(h+1)*d_head."""
    n, width = M.shape[-2:]
    M = M.reshape(*M.shape[:-1], n_heads, width // n_heads)  # (..., n, n_heads, d_head)
    return np.swapaxes(M, -3, -2)  # (..., n_heads, n, d_head)


def merge_heads(O):
    """(..., n_heads, n, d_head) -> (..., n, n_heads * d_head), heads side by side in order."""
    O = np.swapaxes(O, -3, -2)  # (..., n, n_heads, d_head)
    return O.reshape(*O.shape[:-2], -1)


def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    """n_heads attention heads side by side, concatenated, then @ Wo.

    X (n, d_model); Wq, Wk, Wv (d_model, n_heads * d_head); Wo (n_heads * d_head, d_model).
    Head h uses columns h*d_head:(h+1)*d_head of Wq, Wk and Wv. Returns (n, d_model).
    """
    X = as_float_array("X", X, 2, "(n, d_model)")
    n_heads = positive_int("n_heads", n_heads)
    causal = boolean("causal", causal)
    Ws = {}
    for name, W in (("Wq", Wq), ("Wk", Wk), ("Wv", Wv)):
        Ws[name] = as_float_array(name, W, 2, "(d_model, n_heads * d_head)")
        check_inner("X", X.shape, name, Ws[name].shape)
        if Ws[name].shape[1] % n_heads:
            raise ValueError(f"n_heads={n_heads} does not divide the {Ws[name].shape[1]} columns of "
                             f"{name} {Ws[name].shape} (d_model={X.shape[1]})")
    if Ws["Wq"].shape[1] != Ws["Wk"].shape[1]:
        raise ValueError(f"Wq and Wk must have the same width, got Wq {Ws['Wq'].shape} and Wk {Ws['Wk'].shape}")
    Wo = as_float_array("Wo", Wo, 2, "(n_heads * d_head, d_model)")
    check_inner("concatenated heads", (X.shape[0], Ws["Wv"].shape[1]), "Wo", Wo.shape)
    with np.errstate(over="ignore", invalid="ignore"):
        Q = split_heads(X @ Ws["Wq"], n_heads)  # (n_heads, n, d_head)
        K = split_heads(X @ Ws["Wk"], n_heads)  # (n_heads, n, d_head)
        V = split_heads(X @ Ws["Wv"], n_heads)  # (n_heads, n, d_v)
        O = attend(Q, K, V, causal)  # (n_heads, n, d_v)
        Y = merge_heads(O) @ Wo  # (n, d_model)
    return check_finite_product(Y, "multi_head_attention", X=X, Wo=Wo, **Ws)


def tiled_attention(Q, K, V, causal=True, block=64):
    """The same O as attention(Q, K, V, causal), computed block by block.

    For each block of queries, walk over blocks of keys keeping a running row max
    m, a running sum l of exp(s - m) and a running output acc. When a new block
    raises the max, the old sums are rescaled by exp(m_old - m_new). Memory holds
    one (block, block) score tile at a time, never the (n_q, n_k) matrix.
    """
    Q, K, V = _check_qkv(Q, K, V, boolean("causal", causal))
    block = positive_int("block", block)
    n_q, n_k = Q.shape[0], K.shape[0]
    offset = n_k - n_q
    dtype = np.result_type(Q, K, V)
    scale = 1.0 / math.sqrt(Q.shape[1])  # a Python float keeps float32 inputs float32
    O = np.empty((n_q, V.shape[1]), dtype=dtype)  # (n_q, d_v)
    with np.errstate(over="ignore", invalid="ignore"):
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
    return _finite_output(O, Q, K, V, True)
