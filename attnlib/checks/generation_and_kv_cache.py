"""Lesson 14, generation and the KV cache: attend_step, cache_step and kv_cache_bytes."""
import numpy as np

import attnlib as al
from .mask_and_softmax import scale_by_d, scale_missing, softmax_no_max_subtraction
from .pieces import attention, softmax, weights
from .probes import features, rand
from .properties import argument_mixups, huge_scores, intermediates, scale_finding
from .runner import close
from .spec import Exercise, Probe


# attend_step(q, K_cache, V_cache) --------------------------------------------------------------------------------

def step(q, K_cache, V_cache, weights=weights):
    """One query against the cache, (d_v,); `weights` can be swapped for a mistaken attention_weights."""
    return attention(q[None, :], K_cache, V_cache, causal=False, weights=weights)[0]


def step_with(wrong_weights):
    def wrong_step(q, K_cache, V_cache):
        return step(q, K_cache, V_cache, wrong_weights)
    return wrong_step


def keys_and_values_swapped(q, K_cache, V_cache):
    return step(q, V_cache, K_cache)


def _step_probe(seed, t, d, d_v, scale=1.0):
    return Probe((rand(seed, d, scale=scale), rand(seed + 1, t, d, scale=scale), rand(seed + 2, t, d_v)),
                 names=("q", "K_cache", "V_cache"), cols=features(d_v, "v"))


# cache_step(q, k, v, K_cache, V_cache) ---------------------------------------------------------------------------

def cache_step(q, k, v, K_cache, V_cache):
    """Reference: append k, v to the caches, attend q over them; return (o, K_new, V_new)."""
    K_new = np.vstack([K_cache, k[None, :]])  # (t + 1, d)
    V_new = np.vstack([V_cache, v[None, :]])  # (t + 1, d_v)
    return al.attend_step(q, K_new, V_new), K_new, V_new


def cache_not_appended(q, k, v, K_cache, V_cache):
    return step(q, K_cache, V_cache), K_cache, V_cache


def appended_after_attending(q, k, v, K_cache, V_cache):
    return step(q, K_cache, V_cache), np.vstack([K_cache, k]), np.vstack([V_cache, v])


def prepended(q, k, v, K_cache, V_cache):
    K_new, V_new = np.vstack([k, K_cache]), np.vstack([v, V_cache])
    return step(q, K_new, V_new), K_new, V_new


def cache_step_with(wrong_weights):
    def wrong_cache_step(q, k, v, K_cache, V_cache):
        K_new, V_new = np.vstack([K_cache, k]), np.vstack([V_cache, v])
        return step(q, K_new, V_new, wrong_weights), K_new, V_new
    return wrong_cache_step


def _cache_probe(seed, t, d, d_v):
    return Probe((rand(seed, d), rand(seed + 1, d), rand(seed + 2, d_v), rand(seed + 3, t, d), rand(seed + 4, t, d_v)),
                 names=("q", "k", "v", "K_cache", "V_cache"), cols=features(d_v, "v"))


# kv_cache_bytes(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2) ----------------------------------

def without_factor_2(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return n_layers * n_heads * d_head * seq_len * batch * bytes_per_value


def without_batch(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return 2 * n_layers * n_heads * d_head * seq_len * bytes_per_value


def without_layers(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return 2 * n_heads * d_head * seq_len * batch * bytes_per_value


def in_bits(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return 2 * n_layers * n_heads * d_head * seq_len * batch * bytes_per_value * 8


def always_4_bytes(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return 2 * n_layers * n_heads * d_head * seq_len * batch * 4


def default_4_bytes(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=4):
    return 2 * n_layers * n_heads * d_head * seq_len * batch * bytes_per_value


def _kv_probe(*args, **kw):
    return Probe(args, kw, names=("n_layers", "n_heads", "d_head", "seq_len"))


EXERCISES = [
    Exercise(
        name="attend_step",
        uses=('softmax',),
        reference=al.attend_step,
        probes=[_step_probe(700, 5, 3, 4), _step_probe(710, 3, 6, 2), _step_probe(720, 1, 2, 3),
                _step_probe(730, 4, 4, 4), _step_probe(740, 5, 3, 4, scale=40.0)],
        mistakes=[("scale-missing", step_with(scale_missing)),
                  ("scale-applied-twice", step_with(scale_by_d)),
                  ("softmax-no-max-subtraction", step_with(softmax_no_max_subtraction)),
                  ("kv-swapped", keys_and_values_swapped)],
        verified="one query against t cached rows for t = 5, 3, 1, 4, including huge scores",
        hint1="The cache holds every earlier key and value plus the new token's own: score q against all of them.",
        hint2="s = K_cache @ q / √d is (t,); a = softmax(s); the output is a @ V_cache, shape (d_v,).",
        formula="o = softmax(K q / √d) V",
    ),
    Exercise(
        name="cache_step",
        uses=('attend_step',),
        reference=cache_step,
        probes=[_cache_probe(800, 4, 3, 5), _cache_probe(810, 2, 6, 2), _cache_probe(820, 1, 4, 3),
                _cache_probe(830, 3, 4, 4)],
        mistakes=[("cache-not-appended", cache_not_appended),
                  ("cache-not-appended", appended_after_attending),
                  ("cache-prepended", prepended),
                  ("scale-applied-twice", cache_step_with(scale_by_d)),
                  ("scale-missing", cache_step_with(scale_missing))],
        verified="k, v appended as the last cache rows, then the new query attends over t + 1 positions",
        hint1="The new token's key and value join the cache first, so the new query can also attend to itself.",
        hint2="K_new = np.vstack([K_cache, k]) (and the same for V); o = attend_step(q, K_new, V_new); "
              "return o, K_new, V_new.",
        formula="K ← [K; k], V ← [V; v], o = softmax(K q / √d) V",
    ),
    Exercise(
        name="kv_cache_bytes",
        reference=al.kv_cache_bytes,
        probes=[_kv_probe(12, 12, 64, 1024), _kv_probe(32, 32, 128, 4096, batch=3, bytes_per_value=4),
                _kv_probe(3, 5, 7, 11, batch=13, bytes_per_value=2), _kv_probe(80, 8, 128, 131072, batch=8),
                _kv_probe(2, 3, 5, 7, batch=2, bytes_per_value=1)],
        mistakes=[("kv-cache-missing-factor-2", without_factor_2),
                  ("kv-cache-ignores-batch", without_batch),
                  ("kv-cache-ignores-layers", without_layers),
                  ("kv-cache-bits-not-bytes", in_bits),
                  ("kv-cache-wrong-defaults", always_4_bytes),
                  ("kv-cache-wrong-defaults", default_4_bytes)],
        verified="an exact int for GPT-2 small, a 7B-class shape, odd sizes and a 128k-token batch",
        hint1="Count the numbers stored: for every layer, head, token and sequence, one key and one value "
              "of d_head numbers.",
        hint2="2 * n_layers * n_heads * d_head * seq_len * batch * bytes_per_value, returned as a Python int.",
        formula="bytes = 2 · layers · heads · d_head · tokens · batch · bytes_per_value",
    ),
]


# property findings (properties.py) -------------------------------------------------------------------------------

def _step_intermediates(q, K_cache, V_cache):
    s = K_cache @ q / np.sqrt(len(q))
    found = [("returns-weights", softmax(s)), ("attention-skipped", V_cache[-1]),
             ("softmax-not-normalised", np.exp(s - s.max()) @ V_cache)]
    if len(K_cache) > 1:
        found.append(("cache-row-dropped", step(q, K_cache[:-1], V_cache[:-1])))
    return found


def _step_sizes(p):
    q, K_cache, V_cache = p.args
    return {"d": len(q), "t": len(K_cache), "d_v": V_cache.shape[1]}


def _cache_intermediates(q, k, v, K_cache, V_cache):
    K_new, V_new = np.vstack([K_cache, k]), np.vstack([V_cache, v])
    o = step(q, K_new, V_new)
    found = [("cache-not-appended", (o, K_cache, V_cache)),
             ("cache-drops-oldest", (step(q, K_new[1:], V_new[1:]), K_new[1:], V_new[1:]))]
    if len(k) == len(v):
        V_k = np.vstack([V_cache, k])
        found.append(("cache-appends-wrong-row", (step(q, K_new, V_k), K_new, V_k)))
    return found


def kv_scaling(f, seen):
    """Double each argument and see how the count moves; read the constant factor off all-ones sizes."""
    sizes = (3, 5, 7, 11, 13, 4)
    names = ("n_layers", "n_heads", "d_head", "seq_len", "batch", "bytes_per_value")
    ids = ("kv-cache-ignores-layers", "kv-cache-ignores-heads", "kv-cache-ignores-size", "kv-cache-ignores-size",
           "kv-cache-ignores-batch", "kv-cache-ignores-bytes-per-value")
    calls = [(sizes, {})] + [(sizes[:k] + (2 * sizes[k],) + sizes[k + 1:], {}) for k in range(6)]
    calls += [((1, 1, 1, 1, 1, 1), {}), ((3, 5, 7, 11), {})]
    got = f.many(calls)
    if any(not isinstance(g, (int, float, np.integer, np.floating)) for g in got):
        return None
    base = float(got[0])
    for k in range(6):
        if base and float(got[1 + k]) == base:
            return ids[k], f"doubling {names[k]} left your count unchanged"
    ratio = float(got[7]) / 2
    factors = {0.5: "kv-cache-missing-factor-2", 2.0: "kv-cache-counts-twice", 8.0: "kv-cache-bits-not-bytes"}
    if ratio in factors:
        return factors[ratio], f"with every size 1 your count is {got[7]}, expected 2"
    if float(got[8]) != 2 * 3 * 5 * 7 * 11 * 1 * 2 and base == 2 * np.prod(sizes, dtype=float):
        return "kv-cache-wrong-defaults"
    return None


def overflow(f, seen):
    """Right for small sizes, and equal to the true count wrapped to 32 or 64 bits for large ones."""
    for _p, o, e in seen:
        if o.kind != "ok" or not isinstance(e, int) or close(o.value, e):
            continue
        if not isinstance(o.value, (int, np.integer)):
            continue
        for bits in (32, 64):
            wrapped = (e + 2 ** (bits - 1)) % 2 ** bits - 2 ** (bits - 1)
            if int(o.value) == wrapped:
                return "integer-overflow", f"got {int(o.value):,}: the true count {e:,} wrapped around {bits} bits"
    return None


FINDINGS = {
    "attend_step": [intermediates(_step_intermediates), scale_finding(al.attend_step, 0, _step_sizes),
                    huge_scores(0)],
    "cache_step": [intermediates(_cache_intermediates),
                   argument_mixups(cache_step, ("q", "k", "v", "K_cache", "V_cache"))],
    "kv_cache_bytes": [overflow, kv_scaling],
}
