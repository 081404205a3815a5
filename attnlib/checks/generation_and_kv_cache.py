"""Lesson 14, generation and the KV cache: attend_step, cache_step, sample_next, generate, kv_cache_bytes and
max_cached_tokens."""
import numpy as np

import attnlib as at
from .attention_module import attention, attention_steps
from .choices import Choices
from .mask_and_softmax import softmax, softmax_steps
from .probes import features, rand
from .properties import (argument_mixups, huge_scores, only_failing, returns_a_new_array,
                         scale_finding)
from .runner import close, is_number_array
from .spec import Exercise, Probe


# attend_step, cache_step and sample_next: pipelines on attention's and the softmax's steps --------------------

def attend_step_steps(q, K_cache, V_cache, *, c, widths=None):
    """One query against the cache: softmax(K q / sqrt(d)) V, (d_v,) (widths: what a learner may scale by instead)."""
    K, V = c("cached rows read", right=(K_cache, V_cache), attend_step_first_key_only=(K_cache[:1], V_cache[:1]))
    if not len(K):  # only a cache read before its append is empty here: a learner's guard may return zeros
        return c.step("empty cache", right=lambda: attention_steps(q[None, :], K, V, causal=False, c=c)[0],
                      empty_cache_read_as_zeros=lambda: np.zeros(V.shape[-1]))
    return c.step("attended", right=lambda: attention_steps(q[None, :], K, V, causal=False, c=c, widths=widths)[0],
                  attention_skipped=lambda: V_cache[-1])


def attend_step_exercise_steps(q, K_cache, V_cache, *, c):
    """attend_step as its exercise grades it: also the newest row left out (in a cache step, the append's choice)."""
    one = (K_cache[:-1], V_cache[:-1]) if len(K_cache) > 1 else (K_cache, V_cache)  # a lone row kept: no row left
    K, V = c("newest row", right=(K_cache, V_cache), cache_row_dropped=(K_cache[:-1], V_cache[:-1]),
             cache_row_dropped__lone_row_kept=one)
    return attend_step_steps(q, K, V, c=c)


def step(q, K_cache, V_cache):
    return attend_step_steps(q, K_cache, V_cache, c=Choices())


def _step_probe(seed, t, d, d_v, scale=1.0):
    return Probe((rand(seed, d, scale=scale), rand(seed + 1, t, d, scale=scale), rand(seed + 2, t, d_v)),
                 names=("q", "K_cache", "V_cache"), cols=features(d_v, "v"))


# cache_step(q, k, v, K_cache, V_cache) ---------------------------------------------------------------------------

def cache_step(q, k, v, K_cache, V_cache):
    """Reference: append k, v to the caches, attend q over them; return (o, K_new, V_new)."""
    K_new = np.vstack([K_cache, k[None, :]])  # (t + 1, d)
    V_new = np.vstack([V_cache, v[None, :]])  # (t + 1, d_v)
    return at.attend_step(q, K_new, V_new), K_new, V_new


def cache_update_steps(k, v, K_cache, V_cache, c):
    """k, v appended as the caches' last rows, (..., t + 1, d): (the caches q reads, the caches returned)."""
    K_new, V_new = c.step("cache update",
                          right=lambda: (np.concatenate([K_cache, k[..., None, :]], axis=-2),
                                         np.concatenate([V_cache, v[..., None, :]], axis=-2)),
                          cache_prepended=lambda: (np.concatenate([k[..., None, :], K_cache], axis=-2),
                                                   np.concatenate([v[..., None, :], V_cache], axis=-2)),
                          cache_drops_oldest=lambda: (np.concatenate([K_cache[..., 1:, :], k[..., None, :]], axis=-2),
                                                      np.concatenate([V_cache[..., 1:, :], v[..., None, :]], axis=-2)),
                          cache_appends_wrong_row=lambda: (np.concatenate([K_cache, k[..., None, :]], axis=-2),
                                                           np.concatenate([V_cache, k[..., None, :]], axis=-2)),
                          cache_appends_swapped=lambda: (np.concatenate([K_cache, v[..., None, :]], axis=-2),
                                                         np.concatenate([V_cache, k[..., None, :]], axis=-2)))
    guarded = (K_cache, V_cache) if K_cache.shape[-2] else (K_new, V_new)  # an empty cache special-cased right
    read = c("cache read", right=(K_new, V_new), cache_not_appended=(K_cache, V_cache),
             cache_not_appended__empty_guarded=guarded)
    kept = c("cache returned", right=(K_new, V_new), cache_not_appended__returned=(K_cache, V_cache))
    return read, kept


def cache_step_steps(q, k, v, K_cache, V_cache, *, c):
    """k, v appended as the caches' last rows, then q attends over them: (o, K_new, V_new)."""
    read, kept = cache_update_steps(k, v, K_cache, V_cache, c)
    return (attend_step_steps(q, *read, c=c), *kept)


def _cache_probe(seed, t, d, d_v):
    return Probe((rand(seed, d), rand(seed + 1, d), rand(seed + 2, d_v), rand(seed + 3, t, d), rand(seed + 4, t, d_v)),
                 names=("q", "k", "v", "K_cache", "V_cache"), cols=features(d_v, "v"))


# sample_next(logits, temperature, u) -----------------------------------------------------------------------------

def _inverse_cdf(p, u, side="right"):
    """The first index whose cumulative probability is > u (side "right") or >= u (side "left")."""
    cdf = np.cumsum(p)
    return int(min(np.searchsorted(cdf / cdf[-1], u, side=side), len(p) - 1))


def _sharpened(p, temperature):
    """p ** (1 / T), renormalised: softmax(z / T) in exact arithmetic, 0 / 0 once the powers underflow."""
    with np.errstate(all="ignore"):
        q = p ** (1.0 / temperature)
        return q / q.sum()


def sample_next_steps(logits, temperature, u, *, c):
    """argmax at temperature 0 (ties to the first); else the first index whose running total of softmax(z / T)
    rises above u."""
    z = np.asarray(logits, dtype=float)
    if c("greedy", right=temperature == 0, sample_always_greedy=True):
        return c.step("greedy pick", right=lambda: int(np.argmax(z)), sample_greedy_returns_logit=lambda: int(z.max()),
                      sample_ties_to_the_last=lambda: int(len(z) - 1 - np.argmax(z[::-1])))
    scaled = c("temperature", right=z / temperature, sample_ignores_temperature=z,
               sample_temperature_multiplied=z * temperature)
    p = c.step("probabilities", right=lambda: softmax_steps(scaled, c=c),
               sample_temperature_after_softmax=lambda: _sharpened(softmax(z), temperature))
    above = np.flatnonzero(p > u)
    return c.step("pick", right=lambda: _inverse_cdf(p, u),
                  sample_cumulative_at_least_u=lambda: _inverse_cdf(p, u, "left"),
                  sample_not_cumulative=lambda: int(above[0]) if len(above) else len(p) - 1,
                  sample_past_the_end=lambda: int(np.searchsorted(np.cumsum(p), u, side="right")),
                  sample_uniform=lambda: int(u * len(z)), sample_index_before=lambda: max(_inverse_cdf(p, u) - 1, 0),
                  sample_total_not_rescaled=lambda: int(np.argmax(np.cumsum(p) > u)))



# top_k_filter(logits, k) and top_p_filter(logits, p): which tokens survive, and what the others become --------

def _filtered(z, kept, c, order=None):
    """The logits z with only the tokens `kept` (a boolean mask) left, as the text asks: a new float array.
    `order` ranks the tokens, most likely first (for a result wrongly left in that order)."""
    fill = c("filler", right=-np.inf, filter_fills_zero=0.0, filter_fills_finite=-1e9,
             filter_fills_finite__lowest=np.finfo(float).min, filter_fills_nan=np.nan)
    out = np.where(kept, z, fill)
    order = np.argsort(-z, kind="stable") if order is None else order

    def P():  # the kept tokens' probabilities, asked only by the variants that return them
        return softmax(out) if kept.any() or np.isfinite(fill) else out
    with np.errstate(all="ignore"):
        return c.step("filter returns", right=lambda: out, filter_returns_mask=lambda: kept,
                      filter_returns_probabilities=P,
                      filter_returns_probabilities__not_renormalised=lambda: np.where(kept, softmax(z), 0.0),
                      filter_returns_log_probabilities=lambda: np.log(P()),
                      filter_returns_log_probabilities__not_renormalised=lambda: np.where(kept, np.log(softmax(z)),
                                                                                          fill),
                      filter_returns_shifted=lambda: out - z.max(),
                      filter_returns_sorted=lambda: out[order], filter_returns_ids=lambda: np.flatnonzero(kept),
                      filter_returns_ids__ranked=lambda: order[kept[order]],
                      filter_returns_kept_only=lambda: z[kept])


def top_k_filter_steps(logits, k, *, c):
    """Keep every logit >= the k-th largest (ties all kept; k >= vocab keeps all); the rest -inf."""
    z = np.asarray(logits, dtype=float)
    s = c("end kept", right=1.0, top_k_smallest_kept=-1.0)  # the largest k, or (wrongly) the smallest
    n = c("count kept", right=k, top_k_one_too_many=k + 1, top_k_one_too_few=k - 1,
          top_k_drops_the_k_smallest=len(z) - k)
    n = c.step("k past the vocabulary", right=lambda: min(n, len(z)), top_k_large_k_fails=lambda: n)
    if n < 1:
        return _filtered(z, np.zeros(len(z), dtype=bool), c)
    every = k >= len(z)  # a learner may keep every token here first: the same, unless a slip follows
    ranked = c.step("sort direction", right=lambda: np.sort(s * z)[::-1],
                    top_k_threshold_from_the_wrong_end=lambda: np.sort(s * z),
                    top_k_threshold_from_the_wrong_end__all_past_the_vocabulary=lambda: np.sort(s * z) if not every
                    else np.full(len(z), -np.inf))
    kth = ranked[n - 1]  # IndexError when n > vocab: the slip above
    kept = c.step("ties at the k-th", right=lambda: c("comparison", right=s * z >= kth, top_k_strict=s * z > kth,
                                                      top_k_strict__all_past_the_vocabulary=(s * z > kth) | every),
                  top_k_ties_cut=lambda: np.isin(np.arange(len(z)), np.argsort(-s * z, kind="stable")[:n]),
                  top_k_ties_cut__higher_ids=lambda: np.isin(np.arange(len(z)), np.argsort(s * z)[::-1][:n]),
                  top_k_ties_cut__stable_last=lambda: np.isin(np.arange(len(z)),
                                                              np.argsort(s * z, kind="stable")[len(z) - n:]),
                  top_k_argsort_as_ranks=lambda: np.argsort(-s * z, kind="stable") < n,
                  top_k_distinct_values=lambda: s * z >= np.unique(s * z)[::-1][min(n, len(np.unique(z))) - 1])
    return _filtered(z, kept, c)


def top_p_filter_steps(logits, p, *, c):
    """The fewest most probable tokens (ties: lower id first) whose probabilities sum to >= p; p = 1 keeps all."""
    z = np.asarray(logits, dtype=float)
    order = None
    if c("p of 1", right=p == 1.0, top_p_one_not_special=False, top_p_near_one_kept_whole=bool(np.isclose(p, 1.0))):
        kept = np.ones(len(z), dtype=bool)
    else:
        P = softmax_steps(z, c=c)  # (vocab,)
        order = c.step("ranking", right=lambda: np.argsort(-P, kind="stable"),
                       top_p_ascending=lambda: np.argsort(P, kind="stable"),
                       top_p_ties_to_the_higher_id=lambda: len(P) - 1 - np.argsort(-P[::-1], kind="stable"),
                       top_p_ties_to_the_higher_id__reversed=lambda: np.argsort(P)[::-1],  # unstable past 16 tokens
                       top_p_not_ranked=lambda: np.arange(len(P)), top_p_unstable_sort=lambda: np.argsort(-P))
        total = np.cumsum(P[order])
        n = c.step("where the run stops", right=lambda: np.searchsorted(total, p) + 1,
                   top_p_stops_past_p=lambda: np.searchsorted(total, p, side="right") + 1,
                   top_p_one_extra_token=lambda: np.searchsorted(total, p) + 2,
                   top_p_crossing_token_dropped=lambda: np.searchsorted(total, p),
                   top_p_crossing_token_dropped__at_most=lambda: np.searchsorted(total, p, side="right"),
                   top_p_crossing_token_dropped__top_kept=lambda: max(np.searchsorted(total, p, side="right"), 1),
                   top_p_crossing_token_dropped__top_kept_reaching=lambda: max(np.searchsorted(total, p), 1),
                   top_p_fraction_of_the_vocabulary=lambda: int(np.ceil(p * len(P))))
        kept = c.step("nucleus", right=lambda: np.isin(np.arange(len(z)), order[:n]),
                      top_p_drops_the_top=lambda: np.isin(np.arange(len(z)), order[1:n]),
                      top_p_mask_left_in_rank_order=lambda: np.arange(len(z)) < n,
                      top_p_ties_all_kept=lambda: P >= P[order[min(n, len(P)) - 1]],
                      top_p_min_p=lambda: P >= p)
    return _filtered(z, c("tokens kept", right=kept, top_p_keeps_the_tail=~kept), c, order)


CHOICES = {
    "cache update": "Look at where k and v join the caches: as their last rows.",
    "empty cache": "Look at what your function does with an empty cache: can the cache it reads ever be empty?",
    "cache read": "Look at the order of your steps: k and v join the caches before q attends.",
    "cache returned": "Look at the caches you return: the grown ones, as new arrays.",
    "greedy": "Look at when your function picks the most likely token: only at temperature 0.",
    "greedy pick": "At temperature 0 the answer is a position, the largest logit's; of two equal logits, the first.",
    "temperature": "Look at where the temperature enters: the logits are divided by it before the softmax.",
    "default bytes": "Look at the default of bytes_per_value in your signature: the text gives it.",
    "bytes per value": "Look at the last factor of your product: bytes, as many as each value takes.",
    "layers": "Look at which arguments appear in your product: every layer has its own cache.",
    "batch": "Look at which arguments appear in your product: every sequence of the batch has its own cache.",
    "keys and values": "Count the caches: one for the keys and one for the values.",
    "whole tokens": "Look at how you turn memory into tokens: only whole tokens fit, counted exactly.",
    "projection roles": "Look at which weight matrix makes each of q, k and v (Wq, Wk and Wv, in that order), and "
                        "at its side: the token's vector times the matrix.",
    "newest row": "Look at which cached rows the query reads: the last one is the new token's own.",
    "attended": "Look at what your function returns: the values mixed by the weights of every cached row.",
    "cached rows read": "Look at which cached rows the query reads: every one of them, its own included.",
    "probabilities": "Look at where the temperature enters: it divides the logits, before the softmax.",
    "cache used": "Look at how each new token's attention is computed: by cache_step, once per token.",
    "new tokens": "Count the tokens you add: n_new of them.",
    "position": "Look at the position vector each fed token gets: its own place, counted from 0.",
    "caches kept": "Look at the caches your loop passes to the next step: the ones cache_step returned.",
    "read out": "Look at the row that the vocabulary matrix reads: the token's vector plus its attention output.",
    "returned": "Look at what you return: the whole sequence, prompt first.",
    "pick": "Walk the running total of the probabilities: the answer is the first token where it rises above u.",
    "filler": "Look at what the tokens you drop become: a logit of minus infinity, whose probability is exactly 0.",
    "filter returns": "Look at what you return: the logits themselves, the kept ones unchanged, in their original "
                      "order.",
    "end kept": "Look at which end of the sorted logits you keep: the largest.",
    "count kept": "Count the tokens your filter keeps when no two logits are equal: exactly k.",
    "k past the vocabulary": "Try your filter with k larger than the vocabulary: it keeps every token.",
    "ties at the k-th": "Try logits where two tokens share the k-th largest value: both stay.",
    "comparison": "Look at how you compare each logit with the k-th largest: a logit equal to it stays.",
    "sort direction": "Look at which end of your sorted logits the k-th largest is taken from.",
    "nucleus": "Look at which tokens you mark as kept: the first n of the ranking, each at its own id.",
    "p of 1": "Look at what your filter does when p is 1: every token stays, even one whose probability rounds to 0.",
    "ranking": "Look at the order you add the probabilities in: the most probable first, and of two equal ones "
               "the lower id first.",
    "where the run stops": "Check the token at which the running total first reaches p: it is the last one kept.",
    "tokens kept": "Look at which side of the cut you keep: the most probable tokens, the nucleus.",
}


def _sample_probe(logits, temperature, u):
    return Probe((np.asarray(logits), temperature, u), names=("logits", "temperature", "u"))


def _filter_probe(logits, **k_or_p):
    ((name, value),) = k_or_p.items()
    logits = logits if isinstance(logits, np.ndarray) else np.array(logits, dtype=float)
    return Probe((logits, value), names=("logits", name))


# generate(p, prompt, n_new, cache_step) --------------------------------------------------------------------------

class CacheStepMisuse(Exception):
    """Raised by the grader's cache_step when generate calls it with caches it did not return, or too often."""


class GraderCacheStep:
    """The cache_step the check hands to the learner's generate: `step` (the reference cache_step) behind a watch.

    It records the caches each call returns; the next call must pass them back (a call with empty caches
    starts a new sequence), so K grows by exactly one row per call. A prompt of T tokens and n_new new ones
    needs T + n_new - 1 calls (the last new token is never fed; T calls are fine when n_new is 0): `limit`
    calls. A misuse raises CacheStepMisuse, whose message the learner sees and misuse_finding names.
    Every call of generate gets its own copy (the grader copies arguments), so the record starts empty.
    """

    def __init__(self, limit, step, label):
        self.limit, self.step, self.label = limit, step, label
        self.K = self.V = None  # the caches the last call returned
        self.calls = 0

    def __call__(self, q, k, v, K_cache, V_cache):
        K_cache, V_cache = np.asarray(K_cache), np.asarray(V_cache)
        if K_cache.ndim != 2 or V_cache.ndim != 2:
            raise CacheStepMisuse(f"cache_step got caches of shapes {K_cache.shape} and {V_cache.shape}; caches "
                                  "are 2-D, one row per token: start with empty ones of shape (0, d)")
        t = len(K_cache)
        if t and not (self._returned(K_cache, self.K) and self._returned(V_cache, self.V)):
            before = "nothing before" if self.K is None else f"{len(self.K)} rows last time"
            raise CacheStepMisuse(f"cache_step got a K_cache of {t} row{'s' if t > 1 else ''} that is not the "
                                  f"cache it returned ({before}): pass back the K_new and V_new of its previous "
                                  "call, and empty caches (0 rows) for the first token; it appends k and v itself")
        if t >= self.limit:
            raise CacheStepMisuse(f"cache_step was called too often: its caches would hold {t + 1} rows where "
                                  f"{self.limit} are needed, one per token fed (each token is fed once, and the "
                                  "last new token is never fed back: nothing is predicted after it)")
        self.calls += 1
        if self.calls > self.limit:
            raise CacheStepMisuse(f"cache_step was called {self.calls} times where {self.limit} are needed, one per "
                                  "token fed: starting again from empty caches feeds the same tokens twice")
        o, self.K, self.V = self.step(q, k, v, K_cache, V_cache)
        return o, self.K.copy(), self.V.copy()

    @staticmethod
    def _returned(given, returned):
        return returned is not None and given.shape == returned.shape and np.array_equal(given, returned)

    def __eq__(self, other):  # the grader compares arguments before and after a call: the record may change
        return type(other) is type(self) and (other.limit, other.step) == (self.limit, self.step)

    def __hash__(self):
        return hash((self.limit, self.step))

    def __repr__(self):
        return f"<{self.label}>"


def softer_cache_step(q, k, v, K_cache, V_cache):
    """A cache_step whose attention is four times softer: only a generate that uses what it returns follows it."""
    return cache_step(0.25 * np.asarray(q), k, v, K_cache, V_cache)


def generate(p, prompt, n_new, cache_step):
    """Reference: greedy generation with a one-layer, one-head, attention-only model, one cache_step per token."""
    tokens = [int(t) for t in prompt]
    K, V = np.zeros((0, p["Wk"].shape[1])), np.zeros((0, p["Wv"].shape[1]))  # empty caches
    for i in range(len(tokens) + n_new - 1):  # the last new token is never fed
        x = p["tok_emb"][tokens[i]] + p["pos_emb"][i]  # (d,)
        o, K, V = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K, V)
        if i >= len(prompt) - 1:
            tokens.append(int(np.argmax((x + o) @ p["W_out"])))
    return np.array(tokens)


def generate_steps(p, prompt, n_new, cache_step, *, c):
    """Greedy generation, one cache_step per fed token: the prompt, then each new token but the last."""
    if c("cache used", right=True, cache_step_not_used=False) is False:
        tokens = [int(t) for t in prompt]
        while len(tokens) < len(prompt) + n_new:  # full causal attention over the whole sequence every step
            X = p["tok_emb"][tokens] + p["pos_emb"][:len(tokens)]  # (t, d)
            O = attention(X @ p["Wq"], X @ p["Wk"], X @ p["Wv"])
            tokens.append(int(np.argmax((X[-1] + O[-1]) @ p["W_out"])))
        return np.array(tokens)
    tokens = [int(t) for t in prompt]
    empty = np.zeros((0, p["Wk"].shape[1])), np.zeros((0, p["Wv"].shape[1]))
    K, V = empty
    for i in range(len(tokens) + c("new tokens", right=n_new, generate_stops_early=max(n_new - 1, 0)) - 1):
        place = c("position", right=i, positions_not_added=None, positions_off_by_one=i + 1,
                  generate_positions_restart=i if i < len(prompt) else i - len(prompt),
                  generate_position_from_token_id=tokens[i])
        x = p["tok_emb"][tokens[i]] + (0.0 if place is None else p["pos_emb"][place])
        Wq, Wk, Wv = c("projection roles", right=(p["Wq"], p["Wk"], p["Wv"]), kv_swapped=(p["Wq"], p["Wv"], p["Wk"]),
                       q_from_wk=(p["Wk"], p["Wk"], p["Wv"]), q_from_wv=(p["Wv"], p["Wk"], p["Wv"]),
                       qk_swapped=(p["Wk"], p["Wq"], p["Wv"]), weights_transposed=(p["Wq"].T, p["Wk"].T, p["Wv"].T))
        o, K, V = cache_step(x @ Wq, x @ Wk, x @ Wv, K, V)
        K, V = c("caches kept", right=(K, V), cache_not_passed_back=empty)
        if i >= len(prompt) - 1:
            h = c("read out", right=x + o, cache_step_not_used__output=x, residual_missing=o)
            tokens.append(int(np.argmax(h @ p["W_out"])))
    return c("returned", right=np.array(tokens), generate_prompt_missing=np.array(tokens)[len(prompt):])


def _model(seed, vocab, d, max_len):
    """A small random one-layer model, every entry standard normal: the attention output then weighs about as much
    in the logits as the token's own vector, so positions, the residual and the cache all change the tokens."""
    names = ("tok_emb", "pos_emb", "Wq", "Wk", "Wv", "W_out")
    shapes = ((vocab, d), (max_len, d), (d, d), (d, d), (d, d), (d, vocab))
    return {name: rand(seed + k, *shape) for k, (name, shape) in enumerate(zip(names, shapes))}


def _generate_probe(seed, vocab, d, T, n_new, softer=False):
    prompt = np.random.default_rng(seed + 9).integers(0, vocab, T)
    limit = T + n_new - 1 if n_new else T
    step = (GraderCacheStep(limit, softer_cache_step, "a cache_step whose attention is four times softer")
            if softer else GraderCacheStep(limit, cache_step, "the grader's cache_step"))
    return Probe((_model(seed, vocab, d, T + n_new + 1), prompt, n_new, step),
                 names=("p", "prompt", "n_new", "cache_step"))


# kv_cache_bytes(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2) ----------------------------------

def kv_cache_bytes_steps(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=None, *, c):
    """2 (a key and a value) · layers · heads · d_head · tokens · batch · bytes per value, a Python int."""
    if bytes_per_value is None:  # not given: the default
        bytes_per_value = c("default bytes", right=2, kv_cache_wrong_defaults=4)
    per_value = c("bytes per value", right=bytes_per_value, kv_cache_ignores_bytes_per_value__four=4,
                  kv_cache_ignores_bytes_per_value=2,
                  kv_cache_ignores_bytes_per_value__none=1, kv_cache_bits_not_bytes=8 * bytes_per_value)
    layers = c("layers", right=n_layers, kv_cache_ignores_layers=1)
    sequences = c("batch", right=batch, kv_cache_ignores_batch=1)
    return c("keys and values", right=2, kv_cache_missing_factor_2=1) * layers * n_heads * d_head * seq_len * \
        sequences * per_value


def _kv_probe(*args, **kw):
    return Probe(args, kw, names=("n_layers", "n_heads", "d_head", "seq_len"))


# max_cached_tokens(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2) ---------------------------

def max_cached_tokens(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    """Reference: the largest seq_len whose KV cache fits in memory_bytes, an exact Python int (0 if none fits)."""
    per_token = 2 * int(n_layers) * int(n_heads) * int(d_head) * int(batch) * int(bytes_per_value)
    return int(memory_bytes) // per_token


def max_cached_tokens_steps(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=None, *, c):
    """The whole tokens of kv_cache_bytes' cost per token that fit in memory_bytes."""
    per_token, m = kv_cache_bytes_steps(n_layers, n_heads, d_head, 1, batch, bytes_per_value, c=c), int(memory_bytes)
    return c.step("whole tokens", right=lambda: m // per_token,
                  max_tokens_exact_fit_excluded=lambda: (m - 1) // per_token,
                  max_tokens_rounded_up=lambda: -(-m // per_token),
                  max_tokens_rounded_up__nearest=lambda: round(m / per_token), count_rounded=lambda: int(m / per_token),
                  max_tokens_at_least_one=lambda: max(m // per_token, 1))


def _max_probe(memory_bytes, *sizes, **kw):
    return Probe((memory_bytes,) + sizes, kw, names=("memory_bytes", "n_layers", "n_heads", "d_head"))


EXERCISES = [
    Exercise(
        name="attend_step",
        uses=('softmax',),
        reference=at.attend_step,
        probes=[_step_probe(700, 5, 3, 4), _step_probe(710, 3, 6, 2), _step_probe(720, 1, 2, 3),
                _step_probe(730, 4, 4, 4), _step_probe(740, 5, 3, 4, scale=40.0)],
        pipeline=attend_step_exercise_steps,
        verified="one query against t cached rows for t = 5, 3, 1, 4, including huge scores",
        hint1="The cache holds every earlier key and value plus the new token's own: score q against all of them.",
        hint2="One score per cached row: the scores form a vector of length t, scaled by the square root of d "
              "before the softmax. The t weights then mix the rows of V_cache into one vector of length d_v.",
        formula="s = K_cache @ q / √d (t,); a = softmax(s); o = a @ V_cache (d_v,), i.e. o = softmax(K q / √d) V",
    ),
    Exercise(
        name="cache_step",
        uses=('attend_step',),
        reference=cache_step,
        probes=[_cache_probe(800, 4, 3, 5), _cache_probe(810, 2, 6, 2), _cache_probe(820, 1, 4, 3),
                _cache_probe(830, 3, 4, 4), _cache_probe(840, 0, 3, 2)],  # the first token: empty caches
        pipeline=cache_step_steps,
        verified="k, v appended as the last cache rows, then the new query attends over t + 1 positions, from an "
                 "empty cache on",
        hint1="The new token's key and value join the cache first, so the new query can also attend to itself.",
        hint2="Look at the order of your steps: k and v become the new last rows of the two caches before q "
              "attends, and the function returns three things, the output and both grown caches (new arrays: "
              "the caches you were given stay as they are).",
        formula="K_new = np.vstack([K_cache, k]), V_new = np.vstack([V_cache, v]); "
                "o = attend_step(q, K_new, V_new) = softmax(K_new q / √d) V_new; return o, K_new, V_new",
    ),
    Exercise(
        name="sample_next",
        returns=int,
        reference=at.sample_next,
        probes=[_sample_probe([2.0, 1.0, 0.5, -1.0, 0.0], 1.0, 0.5),
                _sample_probe([2.0, 1.0, 0.5, -1.0, 0.0], 0.5, 0.9),
                _sample_probe(rand(900, 7, scale=2.0), 2.0, 0.3),
                _sample_probe(rand(901, 6).astype(np.float32), 0.7, 0.42),
                _sample_probe([0.3, 2.2, -1.0, 2.1], 0.0, 0.99),
                _sample_probe([1.0, 3.0, 3.0, 0.0], 0.0, 0.5),                   # a tie: the first index
                _sample_probe([1.0, 3.0, 2.0, 2.5], 1e-8, 0.0),                  # almost greedy; u on a boundary
                _sample_probe([0.0, 3e-7, 2e-7, 0.0], 1e-7, 0.9),  # logits as close as T: T = 1e-7 samples
                _sample_probe([1.0, 2.0, 0.0], 1.0, 0.2),  # a small u: the first token, not the most likely one
                _sample_probe([1e4, 1e4 - 1.0, 1e4 - 3.0, -1e4], 1.0, 0.8),      # huge logits
                _sample_probe([0.5, -0.5, 1.5], 4.0, 0.97),
                _sample_probe(rand(1302, 6, scale=2.0), 1.0, float(np.nextafter(1.0, 0.0)))],  # total ends below u
        pipeline=sample_next_steps,
        verified="argmax at temperature 0 (a tie goes to the first), inverse-CDF sampling at temperatures from 1e-8 "
                 "to 4, float32 logits and logits of 1e4",
        hint1="Temperature 0 means no randomness: take the most likely token. Above 0, the logits divided by the "
              "temperature become probabilities through a softmax. Laid end to end, the probabilities cover the "
              "interval from 0 to 1 with one stretch per token, and u lands in exactly one stretch.",
        hint2="Handle temperature 0 first, before anything divides by it. Then walk through the running total of "
              "the probabilities, token by token: the answer is the first token where that total rises above u. "
              "Subtract the largest scaled logit before the exponential, so a tiny temperature cannot overflow.",
        formula="T = 0: i = argmax(logits); else p = softmax(logits / T), c = cumsum(p), i = the first index with "
                "c[i] > u, i.e. np.searchsorted(c, u, side='right')",
    ),
    Exercise(
        name="top_k_filter",
        reference=at.top_k_filter,
        probes=[_filter_probe([1.0, 3.0, -2.0, 2.0, 0.5], k=2),
                _filter_probe(rand(910, 7, scale=2.0), k=3),
                _filter_probe([2.0, 5.0, 2.0, 0.0, -1.0], k=2),             # a tie at the k-th value: both stay
                _filter_probe([1.0, 3.0, 3.0, 2.0], k=1),                   # a tie at the top
                _filter_probe([0.5, 1.5, -1.0], k=3),                       # k = vocab
                _filter_probe([0.5, 1.5, -1.0, 0.2], k=9),                  # k > vocab
                _filter_probe([0.5, -np.inf, 2.0, 1.0], k=2),               # a token already masked
                _filter_probe([0.7], k=1),                                  # one token
                _filter_probe([1e300, -1e300, 0.0, 1.0], k=2),              # huge logits
                _filter_probe(rand(911, 6).astype(np.float32), k=4),
                _filter_probe([3.0, 3.0, 1.0, 0.0], k=2),                   # a tie above: the next value goes
                _filter_probe([0.5, -np.inf, 2.0], k=3)],                   # k = vocab with a masked token
        pipeline=top_k_filter_steps,
        verified="the k largest logits kept as they were and the rest -inf, with ties at the k-th value, k at and "
                 "past the vocabulary, masked tokens, one token and logits of 1e300",
        hint1="Only the k most likely tokens stay candidates: the others get a logit of minus infinity, so the "
              "softmax gives them probability 0 and sampling never picks them.",
        hint2="Find the k-th largest logit; every logit at least as large stays, every other one becomes minus "
              "infinity. With k at least the vocabulary, nothing is cut.",
        formula="kth = sorted(logits, descending)[min(k, vocab) - 1]; out = np.where(logits >= kth, logits, -inf)",
    ),
    Exercise(
        name="top_p_filter",
        reference=at.top_p_filter,
        probes=[_filter_probe(np.zeros(8), p=0.25),                          # each 1/8: p reached exactly at 2
                _filter_probe(rand(912, 7, scale=2.0), p=0.9),
                _filter_probe([2.0, 1.0, 2.0, 0.0], p=0.3),                 # a tie at the top: the lower id
                _filter_probe([0.0, 1.0, 0.5], p=0.1),                      # the top token alone
                _filter_probe([3.0, -800.0, 0.0, 2.0], p=1.0),              # p = 1 keeps a probability of 0
                _filter_probe([1e300, 0.0, -np.inf], p=0.5),                # a huge logit
                _filter_probe([0.0, -np.inf, 1.0, 0.5, -0.5], p=0.95),      # a token already masked
                _filter_probe([4.0], p=0.7),                                # one token
                _filter_probe(rand(913, 9, scale=1.5), p=0.6),
                _filter_probe(rand(914, 5).astype(np.float32), p=0.8),
                _filter_probe([14.0, 0.0, 13.0], p=0.99999),                # close to 1, and still a cut
                _filter_probe([0.0, -np.inf, -np.inf, 1.0, 0.2], p=0.5),    # masked tokens stay out
                _filter_probe([2.0, 1, 1, 0, 0, 0, 0, 0, 0, 2, 1, 2, 1, 1, 2, 2, 1, 1, 1, 2], p=0.3)],  # an unstable
                # sort reorders these ties (numpy's default argsort does, from 17 entries on)
        pipeline=top_p_filter_steps,
        verified="the nucleus kept (the fewest most probable tokens reaching p, ties to the lower id) and the rest "
                 "-inf, with p reached exactly, p = 1, a huge logit, masked tokens and one token",
        hint1="The nucleus is the smallest group of the most likely tokens that holds at least p of the "
              "probability: a confident model keeps few tokens, an unsure one many.",
        hint2="Rank the tokens by probability, largest first; walk down the ranking adding up probabilities and "
              "stop at the first token where the total reaches p, keeping that token. When p is 1, every "
              "token stays: settle that case first.",
        formula="P = softmax(logits); order = argsort(-P, stable); n = 1 + the first rank with cumsum(P[order]) >= p; "
                "keep order[:n], the rest -inf (p = 1 keeps all)",
    ),
    Exercise(
        name="generate",
        reference=generate,
        probes=[_generate_probe(1100, 7, 4, 3, 5), _generate_probe(1110, 9, 6, 1, 6),
                _generate_probe(1120, 11, 8, 4, 3), _generate_probe(1130, 8, 5, 2, 0),
                _generate_probe(1140, 10, 7, 4, 2), _generate_probe(1180, 9, 4, 2, 6),
                _generate_probe(1230, 7, 6, 2, 4, softer=True), _generate_probe(1160, 11, 5, 3, 6, softer=True)],
        pipeline=generate_steps,
        verified="greedy tokens of 8 small random models (prompts of 1 to 4 tokens, 0 to 6 new ones), every token "
                 "fed through the given cache_step with the caches it returned",
        hint1="Generation is a loop over positions. Each token is embedded (its word vector plus its position "
              "vector), projected to q, k and v, and handed to cache_step, which keeps every earlier key and "
              "value. From the last prompt token on, the newest token's logits pick the next token, which is "
              "fed in on the following turn.",
        hint2="Look at three places: the position you add (the first token sits at position 0), what the logits "
              "are computed from (the token's own vector plus the attention output), and when a new token is "
              "appended (after the last prompt token, then after each new one, until n_new are there). Pass the "
              "caches that cache_step returns into its next call, starting from empty ones.",
        formula="K, V start as np.zeros((0, d)); for the token t at position i: x = tok_emb[t] + pos_emb[i]; "
                "o, K, V = cache_step(x @ Wq, x @ Wk, x @ Wv, K, V); logits = (x + o) @ W_out; from the last "
                "prompt token on, append argmax(logits); T + n_new - 1 calls in all",
    ),
    Exercise(
        name="kv_cache_bytes",
        returns=int,
        reference=at.kv_cache_bytes,
        probes=[_kv_probe(12, 12, 64, 1024), _kv_probe(32, 32, 128, 4096, batch=3, bytes_per_value=4),
                _kv_probe(3, 5, 7, 11, batch=13, bytes_per_value=2), _kv_probe(80, 8, 128, 131072, batch=8),
                _kv_probe(2, 3, 5, 7, batch=2, bytes_per_value=1),
                _kv_probe(10 ** 6, 10 ** 4, 10 ** 4, 10 ** 6)],  # past 2 ** 63: only exact ints hold it
        pipeline=kv_cache_bytes_steps,
        verified="an exact int for GPT-2 small, a 7B-class shape, odd sizes, a 128k-token batch and a count past "
                 "2 to the 63",
        hint1="Count the numbers stored: for every layer, head, token and sequence, one key and one value "
              "of d_head numbers.",
        hint2="Every argument counts something, and each one multiplies the total; keys and values are two "
              "separate caches. Keep the result a Python int so that huge sizes stay exact.",
        formula="bytes = 2 · layers · heads · d_head · tokens · batch · bytes_per_value, i.e. "
                "2 * n_layers * n_heads * d_head * seq_len * batch * bytes_per_value",
    ),
    Exercise(
        name="max_cached_tokens",
        returns=int,
        uses=('kv_cache_bytes',),
        reference=max_cached_tokens,
        probes=[_max_probe(80 * 2**30, 32, 32, 128),                                 # fills 80 GiB exactly
                _max_probe(24 * 2**30, 12, 12, 64, batch=8),
                _max_probe(10**6, 3, 5, 7, batch=2, bytes_per_value=4),
                _max_probe(1000, 2, 4, 64),                                          # not one token fits
                _max_probe(9240 * 13, 3, 5, 7, batch=11, bytes_per_value=4),         # an exact fit
                _max_probe(2**40, 80, 8, 128),
                _max_probe(141 * 10**9, 80, 8, 128, batch=4, bytes_per_value=1),
                _max_probe(2310 * 2**60 - 1, 3, 5, 7, batch=11, bytes_per_value=1)],  # past 2**53
        pipeline=max_cached_tokens_steps,
        verified="exact ints for a 7B-class model on 80 GiB, exact fits, a cache too big for even one token and "
                 "an answer past 2**60",
        hint1="Every token adds the same number of bytes to the cache, whatever the length: the cache grows in "
              "equal steps. Find the size of one step, then count how many whole steps fit.",
        hint2="Run the experiment with a length of one token: that is the cost of each token. Then count the "
              "whole tokens that fit: round down, since part of a token cannot be cached, and keep everything "
              "a Python int so that huge memories stay exact.",
        formula="per_token = kv_cache_bytes(n_layers, n_heads, d_head, 1, batch, bytes_per_value) "
                "= 2 * n_layers * n_heads * d_head * batch * bytes_per_value; answer = memory_bytes // per_token",
    ),
]


# property findings (properties.py) -------------------------------------------------------------------------------

def _step_sizes(p):
    q, K_cache, V_cache = p.args
    return {"d": len(q), "t": len(K_cache), "d_v": V_cache.shape[1]}


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


def _greedy_probe(p):
    return p.args[1] == 0


def _overflowing_probe(p):
    """exp(logits / temperature) overflows float64 here unless the largest scaled logit is subtracted first."""
    logits, temperature, _u = p.args
    z = np.asarray(logits, dtype=float)
    return temperature > 0 and float(z.max() - z.min()) / temperature > 700


_MISUSE = {"caches of shapes": "cache-not-passed-back", "not the cache it returned": "cache-not-passed-back",
           "called too often": "cache-step-extra-call", "feeds the same tokens twice": "cache-restarted"}


def misuse_finding(f, seen):
    """The grader's cache_step refused a call (GraderCacheStep): name how generate misused it."""
    for _p, o, _e in seen:
        if o.kind == "error" and o.error.startswith(CacheStepMisuse.__name__):
            return next((d for phrase, d in _MISUSE.items() if phrase in o.error), None)
    return None


def first_wrong_token(f, seen):
    """Where the tokens of the first failing probe part from the expected ones: in the prompt, at the first new
    token, or later."""
    for p, o, e in seen:
        if o.kind != "ok" or not isinstance(e, np.ndarray) or close(o.value, e):
            continue
        got = np.asarray(o.value) if is_number_array(o.value) else None
        if got is None or got.shape != e.shape:
            return None
        T, pos = len(p.args[1]), int(np.flatnonzero(got != e)[0])
        if pos < T:
            return "generate-prompt-changed", f"position {pos} holds {got[pos]}, but the prompt has {e[pos]} there"
        if pos == T:
            return "generate-first-token-wrong", "the very first new token is already wrong"
        right = f"the first {pos - T} new tokens are" if pos - T > 1 else "the first new token is"
        return "generate-later-token-wrong", f"{right} right, then the tokens part ways"
    return None


def fit_finding(f, seen):
    """Does the cache for the learner's length fit, and would one more token still fit?"""
    for p, o, e in seen:
        got = o.value
        if o.kind != "ok" or close(got, e) or not isinstance(got, (int, np.integer)) or isinstance(got, bool):
            continue
        memory, (n_layers, n_heads, d_head) = p.args[0], p.args[1:4]
        per = at.kv_cache_bytes(n_layers, n_heads, d_head, 1, p.kwargs.get("batch", 1),
                                p.kwargs.get("bytes_per_value", 2))
        n = int(got)
        if n * per > memory:
            return "max-tokens-does-not-fit", (f"a cache of {n:,} tokens needs {n * per:,} bytes, more than the "
                                               f"{memory:,} available")
        if (n + 1) * per <= memory:
            return "max-tokens-more-fit", (f"{n + 1:,} tokens need {(n + 1) * per:,} bytes, which still fit in "
                                           f"{memory:,}")
    return None


REQUIREMENTS = {"top_k_filter": [returns_a_new_array((np.array([0.5, 2.0, -1.0]), 3))],
                "top_p_filter": [returns_a_new_array((np.array([0.5, 2.0, -1.0]), 1.0))]}


FINDINGS = {
    "attend_step": [scale_finding(at.attend_step, 0, _step_sizes),
                    huge_scores(0)],
    "cache_step": [argument_mixups(cache_step, ("q", "k", "v", "K_cache", "V_cache"))],
    "sample_next": [only_failing(_greedy_probe, "sample-temperature-zero", "only the probes with temperature 0 fail"),
                    only_failing(_overflowing_probe, "softmax-no-max-subtraction",
                                 "only the probes with a tiny temperature or huge logits fail")],
    "top_p_filter": [only_failing(lambda p: p.args[1] == 1.0, "top-p-one-not-special",
                                  "only the probes with p at 1 fail")],
    "generate": [misuse_finding, first_wrong_token],
    "kv_cache_bytes": [kv_scaling],
    "max_cached_tokens": [fit_finding],
}


DIAGNOSES = {
    "sample-ties-to-the-last": "At temperature 0 two equal largest logits must give the first of them; you returned "
                               "the last.",
    "sample-always-greedy": "Your function always returns the largest logit. Above temperature 0 the next token is "
                            "drawn: u picks it from the probabilities, so a less likely token comes out too.",
    "sample-ignores-temperature": "The temperature was left out: the probabilities come from the logits divided by "
                                  "the temperature, so a small temperature sharpens them and a large one flattens "
                                  "them.",
    "sample-temperature-multiplied": "The logits were multiplied by the temperature instead of divided by it, so a "
                                     "small temperature flattens the probabilities instead of sharpening them.",
    "sample-cumulative-at-least-u": "You took the first token whose running total reaches u; the answer is the first "
                                    "whose running total is greater than u. The two differ when u falls exactly on a "
                                    "boundary: with u at 0, a token of probability 0 came out.",
    "sample-uniform": "Every token got the same stretch of [0, 1): the probabilities never entered the choice. Each "
                      "token's stretch is as long as its probability.",
    "sample-index-before": "Your function returned the token just before the right one: the answer is the first "
                           "token whose running total is greater than u, not the last one whose total is not.",
    "generate-position-from-token-id": "Each position vector was picked by the token's id instead of by its place "
                                       "in the sequence: the token at place i, counting from 0, gets position row i "
                                       "whatever token it is.",
    "sample-greedy-returns-logit": "At temperature 0 your function returned the largest logit itself, not its "
                                   "position: the token is the index of the largest logit.",
    "sample-total-not-rescaled": "Your function returned token 0 where u (just below 1) was above the running total, "
                                 "which ended a hair below 1 through rounding: no total was greater than u, and the "
                                 "first index of an all-False test is 0. Dividing the running total by its last value "
                                 "makes it end at exactly 1.",
    "sample-past-the-end": "Your function returned vocab, one past the last id. The probabilities' running total ended "
                           "a hair below 1 through rounding, and u (just below 1) was above it.",
    "sample-not-cumulative": "u was compared with each probability on its own instead of with the running total of the "
                             "probabilities.",
    "filter-fills-zero": "The dropped tokens got a logit of 0, and the exponential of 0 is 1: they keep a real "
                         "probability. A dropped token's logit is minus infinity, so its probability is exactly 0.",
    "filter-fills-finite": "The dropped tokens got a large negative number instead of minus infinity: their "
                           "probability is tiny but not 0, and next to huge logits it is not even tiny.",
    "filter-fills-nan": "The dropped tokens became NaN; a NaN spreads through the softmax and spoils every "
                        "probability. A dropped token's logit is minus infinity.",
    "filter-returns-mask": "You returned which tokens stay (True or False); the filter returns the logits "
                           "themselves, the kept ones unchanged and the others minus infinity.",
    "filter-returns-sorted": "Your result lists the logits from the most likely token down; the filter keeps "
                             "every token at its own place (entry i is still token i), the dropped ones as minus "
                             "infinity.",
    "filter-returns-probabilities": "You returned probabilities (a softmax of the kept logits); the filter returns "
                                    "logits, and sampling turns them into probabilities later.",
    "filter-returns-log-probabilities": "You returned log-probabilities (a log-softmax) of the kept tokens; the "
                                        "filter returns their logits unchanged.",
    "filter-returns-shifted": "The kept logits came back shifted by the largest one (the max subtracted for the "
                              "softmax stayed in); the filter returns the kept logits unchanged.",
    "filter-returns-ids": "You returned the ids of the kept tokens; the filter returns an array as long as the "
                          "vocabulary, the kept logits at their places and minus infinity elsewhere.",
    "filter-returns-kept-only": "You returned only the kept logits, a shorter array; the filter returns one entry "
                                "per token of the vocabulary, minus infinity for the dropped ones.",
    "top-k-drops-the-k-smallest": "You dropped the k smallest logits and kept the rest; the filter keeps the k "
                                  "largest and drops the rest.",
    "top-k-threshold-from-the-wrong-end": "The threshold was taken from the wrong end of the sorted logits (the "
                                          "k-th smallest instead of the k-th largest).",
    "top-k-strict": "You kept only the logits strictly above the k-th largest, so the k-th largest itself (and "
                    "every tie with it) was dropped; compare with at least, not strictly more.",
    "top-k-argsort-as-ranks": "argsort's output was read as each token's rank, but it lists token ids in rank "
                              "order: entry i of argsort is the id of the token ranked i, not the rank of token i.",
    "top-k-distinct-values": "You counted distinct values: the threshold became the k-th largest different "
                             "logit, so with repeated values more than k tokens (and more than the ties) stay.",
    "top-p-near-one-kept-whole": "A p close to 1 (within a tolerance such as isclose's) kept every token, "
                                 "but only a p of exactly 1 does: 0.99999 still cuts a tail of tiny probability.",
    "top-p-unstable-sort": "Your ranking does not keep equal probabilities in id order: numpy's default argsort "
                           "is not stable, and past 16 entries it reorders ties, so the cut can keep a higher id.",
    "top-p-not-ranked": "You added up the probabilities in id order; the nucleus adds them from the most probable "
                        "token down.",
    "top-p-one-extra-token": "Your nucleus holds one token more than needed: the token at which the running total "
                             "reaches p is the last one kept.",
    "top-p-fraction-of-the-vocabulary": "You kept a fraction p of the tokens (p times the vocabulary size); top-p "
                                        "keeps a share p of the probability, however many tokens that takes.",
    "top-p-drops-the-top": "The most probable token was dropped: the nucleus starts with it (a slice that starts "
                           "at 1 instead of 0).",
    "top-p-mask-left-in-rank-order": "The kept marks were made in rank order but applied by token id, so the first "
                                     "n ids were kept instead of the n most probable tokens: map the ranks back to "
                                     "ids.",
    "top-p-ties-all-kept": "Tokens as probable as the last one of the nucleus were all kept; the text ranks equal "
                           "probabilities by id and stops at the token where the total reaches p.",
    "top-p-min-p": "You kept every token whose own probability is at least p; top-p keeps the most probable tokens "
                   "until their probabilities add up to p.",
    "top-k-smallest-kept": "You kept the k smallest logits, the least likely tokens, instead of the k largest.",
    "top-k-one-too-many": "Your filter keeps k + 1 tokens: the k-th largest logit is the last one kept.",
    "top-k-one-too-few": "Your filter keeps k - 1 tokens: the k-th largest logit itself must stay.",
    "top-k-large-k-fails": "With k larger than the vocabulary your filter fails; a k that large keeps every token.",
    "top-k-ties-cut": "Of several logits equal to the k-th largest, your filter keeps only some; the text keeps "
                      "them all, so more than k tokens can stay.",
    "top-p-one-not-special": "With p at 1 a token whose probability rounds to 0 (or whose running total rounds "
                             "to 1 early) was dropped; a p of 1 keeps every token.",
    "top-p-ascending": "You added up the probabilities from the least probable token up; the nucleus starts at "
                       "the most probable one.",
    "top-p-ties-to-the-higher-id": "Of two equally probable tokens your ranking put the higher id first; the text "
                                   "ranks the lower id first, so at the cut the lower id stays.",
    "top-p-stops-past-p": "When the running total reaches p exactly, you kept one more token; the run stops at the "
                          "token where the total first reaches p (at least p, not more than p).",
    "top-p-crossing-token-dropped": "You kept only the tokens before the running total reaches p, dropping the "
                                    "one that reaches it; that token is the last one kept, so the nucleus always "
                                    "holds at least p of the probability (and never nothing).",
    "top-p-keeps-the-tail": "You kept the tokens outside the nucleus and dropped the nucleus itself.",
    "sample-temperature-zero": "Only temperature 0 goes wrong: dividing by a zero temperature gives infinities and "
                               "NaN.",
    "cache-step-not-used": "The tokens do not follow the cache_step your generate was given: your generate computed "
                           "attention itself, or skipped it, instead of using what that cache_step returned. (The "
                           "check hands in its own cache_step; on two probes its attention is softer than usual.)",
    "cache-not-passed-back": "A call of cache_step did not get the two caches its previous call returned (or the first "
                             "call did not get empty caches of 0 rows and d columns).",
    "cache-restarted": "Your generate starts again from empty caches and feeds the whole sequence once more for every "
                       "new token. The tokens come out right, but that is the recomputation the cache exists to avoid.",
    "cache-step-extra-call": "cache_step was called more often than needed: each token is fed once, and the last "
                             "new token is never fed back, since nothing is predicted after it. A prompt of T tokens "
                             "and n_new new ones needs T plus n_new minus 1 calls.",
    "generate-stops-early": "The sequence is one token short: the loop stopped one new token early. The result "
                            "holds the T prompt tokens followed by all n_new new ones.",
    "generate-prompt-missing": "Only the new tokens were returned. The result is the whole sequence: the prompt "
                               "first, then the n_new new tokens.",
    "generate-prompt-changed": "The returned sequence must start with the prompt, unchanged.",
    "generate-first-token-wrong": "The first new token is already wrong: the logits of the last prompt token "
                                  "differ. No single known mistake reproduces your tokens, so this says only where "
                                  "they part.",
    "generate-later-token-wrong": "The first new token is right and a later one is wrong. No single known mistake "
                                  "reproduces your tokens, so this says only where they part: the logits of the "
                                  "last prompt token agree (or happen to pick the same token), and a later step "
                                  "differs.",
    "empty-cache-read-as-zeros": "An empty cache gave an output of zeros. The cache the query reads is never empty: it "
                                 "holds the new token's own row.",
    "qk-swapped": "q and k were made with each other's weights: q comes from Wq and k from Wk.",
    "generate-positions-restart": "The new tokens' positions start again at 0 after the prompt; each token sits at "
                                  "its place in the whole sequence, prompt included.",
    "attend-step-first-key-only": "The query read only the first cached row, as if it were position 0 under a "
                                  "causal mask; the new query is the last position and reads every cached row.",
    "sample-temperature-after-softmax": "The temperature was applied to the probabilities (p to the power 1/T) "
                                        "instead of dividing the logits: equal in exact arithmetic, it underflows "
                                        "to 0/0 for a tiny temperature.",
    "max-tokens-at-least-one": "The answer is never below 1, but when not one token's cache fits in the memory the "
                               "answer is 0.",
    "q-from-wk": "The query was made with Wk: q must come from the token's vector times Wq.",
    "q-from-wv": "The query was made with Wv: q must come from the token's vector times Wq.",
    "max-tokens-exact-fit-excluded": "A cache that fills the memory exactly still fits: the test is at most the "
                                     "memory, not strictly less, so an exact quotient is itself the answer.",
    "max-tokens-rounded-up": "The quotient was rounded up or to the nearest whole number; at that length the cache can "
                             "need more bytes than the memory holds.",
    "max-tokens-does-not-fit": "At the length you returned the cache needs more bytes than the memory holds. The "
                               "answer is the largest length whose cache still fits.",
    "max-tokens-more-fit": "One more token would still fit in the memory. The answer is the largest length whose "
                           "cache fits, so the next length must no longer fit.",
}

NUDGES = {
    "empty-cache-read-as-zeros": "Look at the order of your steps: once k and v are appended, the cache is never "
                                 "empty.",
    "sample-temperature-zero": "Look at what your function does before it divides by the temperature.",
    "cache-step-extra-call": "Count the calls your loop makes for a prompt of one token and one new token.",
    "cache-restarted": "Look at where your caches are set to empty: once, before the first token, or inside the "
                       "loop over new tokens?",
    "generate-prompt-changed": "Look at the first T entries of your result: are they the prompt as given?",
    "generate-first-token-wrong": "Print the position you add for each prompt token, and what your logits are "
                                  "computed from.",
    "generate-later-token-wrong": "Print, for each new token fed back, its id and its position.",
    "max-tokens-does-not-fit": "Compute the bytes of the cache at your answer and compare them with the memory.",
    "max-tokens-more-fit": "Compute the bytes of the cache at your answer plus one and compare them with the memory.",
}
