"""Notebook 14: generation with a KV cache.

When a model generates one token at a time, the keys and values of earlier tokens
never change. Keeping them in a cache means each new token costs one query row
against t cached rows, O(t), instead of recomputing all t x t scores. The
next token is then picked from the logits: greedily, or by sampling (sample_next).
"""
import math

import numpy as np

from ._validate import as_float_array, check_finite_product, finite_float, positive_int
from .mixing import exp_and_sum


def attend_step(q, K_cache, V_cache):
    """One new query against the cache: q (d,), K_cache (t, d), V_cache (t, d_v) -> (d_v,).

    The cache already holds the new token's own k and v (as its last row), so no
    mask is needed: every cached position is in the past or present.
    """
    q = as_float_array("q", q, 1, "(d,)")
    K_cache = as_float_array("K_cache", K_cache, 2, "(t, d)")
    V_cache = as_float_array("V_cache", V_cache, 2, "(t, d_v)")
    if q.shape[0] != K_cache.shape[1]:
        raise ValueError(f"q has d={q.shape[0]} but K_cache has d={K_cache.shape[1]} "
                         f"(q {q.shape}, K_cache {K_cache.shape})")
    if K_cache.shape[0] != V_cache.shape[0]:
        raise ValueError(f"K_cache has {K_cache.shape[0]} rows but V_cache has {V_cache.shape[0]} "
                         f"(K_cache {K_cache.shape}, V_cache {V_cache.shape})")
    with np.errstate(over="ignore", invalid="ignore"):
        s = K_cache @ q / math.sqrt(q.shape[0])  # (t,)
        check_finite_product(s, "K_cache @ q", q=q, K_cache=K_cache)
        e, z = exp_and_sum(s)
        o = (e / z) @ V_cache  # softmax(s) @ V_cache, (d_v,)
    return check_finite_product(o, "the weighted sum of V_cache's rows", V_cache=V_cache)


def kv_cache_bytes(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    """Memory of a KV cache: 2 (K and V) * layers * heads * d_head * tokens * batch * bytes.

    bytes_per_value is 2 for float16/bfloat16, 4 for float32. For grouped-query
    attention pass the number of K/V heads as n_heads.
    """
    sizes = [positive_int(name, value) for name, value in (
        ("n_layers", n_layers), ("n_heads", n_heads), ("d_head", d_head),
        ("seq_len", seq_len), ("batch", batch), ("bytes_per_value", bytes_per_value))]
    return 2 * int(np.prod(sizes, dtype=object))


def sample_next(logits, temperature, u):
    """The next token id from logits (vocab,): greedy at temperature 0, else inverse-CDF sampling.

    temperature 0 returns argmax(logits) (the first index on ties) and ignores u.
    Above 0, p = softmax(logits / temperature) and the answer is the first index i
    whose cumulative probability p[0] + ... + p[i] is greater than u, a uniform
    random number in [0, 1). This is what np.random.Generator.choice(vocab, p=p)
    does with u = rng.random(), so a seeded rng gives the same tokens. A small
    temperature sharpens p towards the argmax, a large one flattens it. Returns a
    Python int. -inf logits (masked tokens) are never sampled.
    """
    logits = as_float_array("logits", logits, 1, "(vocab,)", allow="-inf")
    temperature = finite_float("temperature", temperature, low=0.0)
    u = finite_float("u", u, low=0.0, high=1.0, high_open=True)
    if np.isneginf(logits).all():
        raise ValueError("logits are -inf everywhere: no token can be sampled")
    if temperature == 0.0:
        return int(np.argmax(logits))
    z = logits.astype(np.float64)
    with np.errstate(over="ignore"):  # a huge spread over a tiny temperature gives -inf: probability 0, as it should
        z = (z - z.max()) / temperature  # softmax(logits / T), with every exponent <= 0: nothing overflows
    e, total = exp_and_sum(z)
    cdf = np.cumsum(e / total)  # as Generator.choice: the cumulative probabilities, scaled to end at exactly 1
    cdf /= cdf[-1]
    return int(np.searchsorted(cdf, u, side="right"))
