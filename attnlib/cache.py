"""Notebooks 14 and 18: generation with a KV cache (growing, or rolling over a window), and picking the next token.

When a model generates one token at a time, the keys and values of earlier tokens
never change. Keeping them in a cache means each new token costs one query row
against t cached rows, O(t), instead of recomputing all t x t scores. The
next token is then picked from the logits: greedily, or by sampling (sample_next). A rolling
cache (notebook 18) keeps only a window of them, plus the first few positions (the sinks).
"""
import numpy as np

from ._validate import (Array, check_finite_product, check_size, contract, finite_float, float_dtype,
                        non_negative_int, positive_int, public)
from .attention import attend, attention_forward
from .mixing import exp_and_sum, hidden_keys, softmax


@public
class KVCache:
    """Keys and values of the tokens seen so far, for every layer.

    KVCache(n_layers, n_heads, d_head, max_len, dtype=np.float64, window=None, n_sinks=0)

    K and V are preallocated (n_layers, n_heads, rows, d_head); `length` counts the positions
    seen so far. Without a window rows = max_len and the cache grows by one filled row per new
    token. With a window (a rolling cache, notebook 18) rows = min(window, max_len): once full it
    keeps the first n_sinks positions and the newest window - n_sinks, in order, and its bytes stop
    growing. `keys(i)` and `values(i)` are the kept part of layer i, (n_heads, kept, d_head), and
    `positions` says which position each kept row holds. With grouped-query attention n_heads
    counts the K/V groups (the model's n_kv_heads).
    """

    def __init__(self, n_layers, n_heads, d_head, max_len, dtype=np.float64, window=None, n_sinks=0):
        shape = tuple(positive_int(name, value) for name, value in (
            ("n_layers", n_layers), ("n_heads", n_heads), ("max_len", max_len), ("d_head", d_head)))
        self.window, self.n_sinks = window_and_sinks(window, n_sinks)
        dtype = float_dtype("dtype", dtype)
        if self.window is not None:
            shape = (shape[0], shape[1], min(self.window, shape[2]), shape[3])  # a full window, never more
        check_size("n_layers * n_heads * max_len * d_head", shape, dtype)
        self.K = np.zeros(shape, dtype=dtype)  # (n_layers, n_heads, rows, d_head)
        self.V = np.zeros(shape, dtype=dtype)
        self.length = 0  # positions seen in every layer
        self.owner = None  # the model whose keys and values fill it, set by its first step

    @property
    def kept(self):
        """How many rows hold a position: every position seen, up to the window."""
        return min(self.length, self.K.shape[2])

    @property
    def positions(self):
        """(kept,) int: the position each kept row holds, oldest first."""
        return kept_positions(self.length, self.window, self.n_sinks)

    @property
    def nbytes(self):
        """The bytes K and V take, filled or not: with a window, flat however long generation goes on."""
        return self.K.nbytes + self.V.nbytes

    def _layer(self, layer):
        layer = non_negative_int("layer", layer)
        if layer >= self.K.shape[0]:
            raise ValueError(f"layer must be in [0, {self.K.shape[0]}), got {layer}")
        return layer

    def keys(self, layer):
        return self.K[self._layer(layer), :, :self.kept]  # (n_heads, kept, d_head)

    def values(self, layer):
        return self.V[self._layer(layer), :, :self.kept]  # (n_heads, kept, d_head)


def window_and_sinks(window, n_sinks):
    """Check a sliding window (None, or an int >= 1) and its sinks (0 <= n_sinks < window; 0 without a window)."""
    window = None if window is None else positive_int("window", window)
    n_sinks = non_negative_int("n_sinks", n_sinks)
    if window is None and n_sinks:
        raise ValueError(f"n_sinks={n_sinks} needs a window: the sinks are the first positions a sliding "
                         "window keeps, and without a window every position is kept")
    if window is not None and n_sinks >= window:
        raise ValueError(f"n_sinks must be smaller than window, got n_sinks={n_sinks} and window={window}: "
                         "the window keeps the newest token too")
    return window, n_sinks


def kept_positions(length, window=None, n_sinks=0):
    """The positions a cache keeps after `length` tokens, oldest first: all of them up to the window, then the
    first n_sinks and the newest window - n_sinks, the keys the newest position still sees (mixing.hidden_keys)."""
    return np.flatnonzero(~hidden_keys([length - 1], np.arange(length), window, n_sinks)[0])


def cache_step(Q, K, V, scale, cache, layer):
    """The model's cached attention: the m new rows' K, V (n_kv_heads, m, d_head) join layer `layer` of
    `cache` (a KVCache whose .length counts the positions before them) and the new queries Q
    (n_heads, m, d_head) attend to every cached position they may see, query head h to group
    h // (n_heads // n_kv_heads) (n_kv_heads = n_heads without grouped-query attention). With a window
    the cache then drops what fell out of it (kept_positions). Returns O (n_heads, m, d_head)."""
    t0, t1 = cache.length, cache.length + Q.shape[-2]
    (n_heads, m, d_head), n_kv_heads = Q.shape, K.shape[0]
    if t1 <= cache.K.shape[2]:  # room for the new rows: the cache grows in place
        cache.K[layer, :, t0:t1], cache.V[layer, :, t0:t1] = K, V
        K_all, V_all, positions = cache.K[layer, :, :t1], cache.V[layer, :, :t1], None  # positions 0 .. t1 - 1
    else:  # a full window: attend over the kept rows and the new ones, then keep the newest
        kept = cache.kept
        K_all = np.concatenate([cache.K[layer, :, :kept], K], axis=1)  # (n_kv_heads, kept + m, d_head)
        V_all = np.concatenate([cache.V[layer, :, :kept], V], axis=1)
        positions = np.concatenate([cache.positions, np.arange(t0, t1)])  # (kept + m,)
    Qg = Q.reshape(n_kv_heads, n_heads // n_kv_heads, m, d_head)  # query heads g*r .. (g+1)*r - 1 under group g
    # share_kv's routing (head h reads group h // r) as a broadcast: the cache is read in place, never repeated
    O = attention_forward(Qg, K_all[:, None], V_all[:, None], True, scale, cache.window, cache.n_sinks,
                          positions)[0]  # (n_kv_heads, r, m, d_v)
    if positions is not None:  # cut back: the first n_sinks positions and the newest window - n_sinks
        keep = np.isin(positions, kept_positions(t1, cache.window, cache.n_sinks))
        cache.K[layer], cache.V[layer] = K_all[:, keep], V_all[:, keep]
    return O.reshape(n_heads, m, -1)  # (n_heads, m, d_v)


def _scores_then_sum(args, o):
    """Name the scores if they overflowed, else the weighted sum."""
    if not np.isfinite(o).all():
        q, K = args["q"], args["K_cache"]
        check_finite_product(K @ q, "K_cache @ q", q=q, K_cache=K)
        check_finite_product(o, "the weighted sum of V_cache's rows", V_cache=args["V_cache"])


@contract(q=Array("d"), K_cache=Array("t", "d"), V_cache=Array("t", "d_v"), finite=_scores_then_sum)
def attend_step(q, K_cache, V_cache):
    """One new query against the cache: q (d,), K_cache (t, d), V_cache (t, d_v) -> (d_v,), scaled by 1/sqrt(d).

    The cache already holds the new token's own k and v (as its last row), so no
    mask is needed: every cached position is in the past or present.
    """
    return attend(q[None], K_cache, V_cache, causal=False)[0]  # (d_v,)


def _kv_groups(args, dims):
    """n_kv_heads, when given, divides n_heads: each K/V group serves n_heads // n_kv_heads query heads."""
    n_heads, n_kv_heads = args["n_heads"], args["n_kv_heads"]
    if n_kv_heads is not None and n_heads % n_kv_heads:
        raise ValueError(f"n_heads={n_heads} must be a multiple of n_kv_heads={n_kv_heads}")


@contract(_kv_groups, n_layers=positive_int, n_heads=positive_int, d_head=positive_int, seq_len=positive_int,
          batch=positive_int, bytes_per_value=positive_int,
          n_kv_heads=lambda name, value: None if value is None else positive_int(name, value), finite=None)
def kv_cache_bytes(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2, n_kv_heads=None):
    """Memory of a KV cache (K and V, each (batch, n_layers, n_kv_heads, seq_len, d_head)), as a Python int:
    2 * layers * K/V heads * d_head * tokens * batch * bytes.

    bytes_per_value is 2 for float16/bfloat16, 4 for float32. n_kv_heads: the number of
    K/V groups of grouped-query attention (1 for multi-query attention); the cache holds
    one key and one value per group, not per query head. None means n_heads.
    """
    kv_heads = n_heads if n_kv_heads is None else n_kv_heads
    return 2 * n_layers * kv_heads * d_head * seq_len * batch * bytes_per_value  # Python ints never overflow


def _something_to_sample(args, dims):
    if np.isneginf(args["logits"]).all():
        raise ValueError("logits are -inf everywhere: no token can be sampled")


@contract(_something_to_sample, logits=Array("vocab", allow="-inf"), temperature=lambda n, v: finite_float(n, v, 0.0),
          u=lambda n, v: finite_float(n, v, low=0.0, high=1.0, high_open=True), finite=None)
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
    if temperature == 0.0:
        return int(np.argmax(logits))
    z = logits.astype(np.float64)
    z = (z - z.max()) / temperature  # softmax(logits / T), every exponent <= 0: a huge spread gives -inf, p = 0
    e, total = exp_and_sum(z)
    cdf = np.cumsum(e / total)  # as Generator.choice: the cumulative probabilities, scaled to end at exactly 1
    cdf /= cdf[-1]
    return int(np.searchsorted(cdf, u, side="right"))


@contract(_something_to_sample, logits=Array("vocab", allow="-inf"), k=positive_int, finite=None)
def top_k_filter(logits, k):
    """Keep the k largest logits (vocab,), set every other one to -inf; returns a new array.

    Ties at the k-th largest value are all kept, so more than k may survive; k >= vocab
    keeps every token. sample_next then draws only among the kept tokens.
    """
    kth = np.sort(logits)[::-1][min(k, len(logits)) - 1]  # the k-th largest logit
    return np.where(logits >= kth, logits, -np.inf)


@contract(_something_to_sample, logits=Array("vocab", allow="-inf"),
          p=lambda n, v: finite_float(n, v, low=0.0, high=1.0, low_open=True), finite=None)
def top_p_filter(logits, p):
    """Keep the nucleus of logits (vocab,): the fewest most probable tokens whose probabilities add up to at least p.

    Tokens are ranked by probability, softmax(logits), largest first (equal ones: the lower id
    first); the kept ones are the shortest run from the top whose sum is >= p. Every other logit
    becomes -inf; returns a new array. p = 1 keeps every token.
    """
    if p == 1.0:
        return logits.copy()
    P = softmax(logits)                    # (vocab,)
    order = np.argsort(-P, kind="stable")  # most probable first, ties by id
    n = int(np.searchsorted(np.cumsum(P[order]), p)) + 1  # the first rank whose running total reaches p, kept
    kept = np.full_like(logits, -np.inf)
    kept[order[:n]] = logits[order[:n]]
    return kept
