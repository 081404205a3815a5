"""Blind set of learner mistakes (and acceptable variants) for `top_k_filter` and `top_p_filter`.

Written only from the task texts of exercises/14_generation_and_kv_cache.ipynb:

top_k_filter(logits, k): keep the k largest logits as they are, every other entry -inf; all logits tied with
the k-th largest value are kept (so more than k may survive); k >= vocab keeps every token; a new float
(vocab,) array; `logits` unchanged; entries already -inf stay -inf.

top_p_filter(logits, p): softmax (finite for logits around 1e300), rank from the most probable down (equal
probabilities: lower id first), keep the shortest run from the top whose probabilities add up to at least p
(running total reaching p exactly stops there); kept tokens keep their logit, others -inf; new float (vocab,)
array; `logits` unchanged; p = 1 keeps every token, even those whose probability rounds to 0.

It was written before the two checks existed, by a writer who read neither the grader nor its tests, and verified
outside the repository: every mistake differs from a right answer written from the text on some of 115 (top_k)
and 176 (top_p) random and edge-case inputs, and every acceptable variant agrees with it exactly.
"""
import heapq
import math
from dataclasses import dataclass
from typing import Callable

import numpy as np


@dataclass(frozen=True)
class Mistake:
    exercise: str  # "top_k_filter" or "top_p_filter"
    what: str      # one precise plain-English line naming the mistake, as an ideal grader would
    fn: Callable   # the learner's function, with the exercise's exact signature


NEG = -np.inf


# ----------------------------------------------------------------------------------------------------------
# shared correct helpers
# ----------------------------------------------------------------------------------------------------------
def _f(logits):
    """A new float64 copy of the logits."""
    return np.array(logits, dtype=float)


def _kth_largest(x, k):
    """The k-th largest value of x (k clipped to the vocabulary)."""
    k = min(int(k), x.size)
    return np.sort(x)[::-1][k - 1]


def _topk_keep(x, k):
    """Boolean mask of the tokens top-k keeps (ties with the k-th largest kept)."""
    if k >= x.size:
        return np.ones(x.size, dtype=bool)
    return x >= _kth_largest(x, k)


def _softmax(x):
    """Max-subtracted softmax, finite for logits around 1e300."""
    e = np.exp(x - np.max(x))
    return e / e.sum()


def _rank(probs):
    """Token ids from the most probable down, equal probabilities in increasing id order."""
    return np.argsort(-probs, kind="stable")


def _nucleus_count(sorted_probs, p):
    """Length of the shortest run from the top whose running total reaches p (>= p)."""
    cum = np.cumsum(sorted_probs)
    return min(int(np.searchsorted(cum, p, side="left")) + 1, len(cum))


def _topp_keep(x, p):
    """Boolean mask of the nucleus."""
    keep = np.zeros(x.size, dtype=bool)
    if p >= 1:
        keep[:] = True
        return keep
    probs = _softmax(x)
    order = _rank(probs)
    keep[order[:_nucleus_count(probs[order], p)]] = True
    return keep


def top_k_right(logits, k):
    x = _f(logits)
    return np.where(_topk_keep(x, k), x, NEG)


def top_p_right(logits, p):
    x = _f(logits)
    return np.where(_topp_keep(x, p), x, NEG)


# ----------------------------------------------------------------------------------------------------------
# top_k_filter mistakes
# ----------------------------------------------------------------------------------------------------------
def k_exactly_k_argsort_tail(logits, k):
    x = _f(logits)
    idx = np.argsort(x)[-k:]                      # ascending sort, take the last k indices
    out = np.full(x.size, NEG)
    out[idx] = x[idx]
    return out


def k_exactly_k_torch_topk(logits, k):
    x = _f(logits)
    idx = np.argsort(-x, kind="stable")[:k]       # torch.topk(logits, k).indices habit
    out = np.full(x.size, NEG)
    out[idx] = x[idx]
    return out


def k_exactly_k_argpartition(logits, k):
    x = _f(logits)
    k = min(k, x.size)
    idx = np.argpartition(x, -k)[-k:]
    out = np.full(x.size, NEG)
    out[idx] = x[idx]
    return out


def k_strict_above_next(logits, k):
    x = _f(logits)
    if k >= x.size:
        return x
    nxt = np.sort(x)[::-1][k]                     # the (k+1)-th largest value
    return np.where(x > nxt, x, NEG)


def k_keeps_k_plus_1(logits, k):
    x = _f(logits)
    if k >= x.size:
        return x
    thr = np.sort(x)[-k - 1]                      # one step too far from the end
    return np.where(x >= thr, x, NEG)


def k_ascending_wrong_end(logits, k):
    x = _f(logits)
    if k >= x.size:
        return x
    thr = np.sort(x)[k - 1]                       # ascending sort indexed from the front: k-th smallest
    return np.where(x >= thr, x, NEG)


def k_strict_greater_than_kth(logits, k):
    x = _f(logits)
    if k >= x.size:
        return x
    thr = _kth_largest(x, k)
    return np.where(x > thr, x, NEG)              # > instead of >=


def k_keeps_k_smallest(logits, k):
    x = _f(logits)
    if k >= x.size:
        return x
    thr = np.sort(x)[k - 1]
    return np.where(x <= thr, x, NEG)             # torch.topk(..., largest=False)


def k_masks_k_smallest(logits, k):
    x = _f(logits)
    out = x.copy()
    out[np.argsort(x, kind="stable")[:k]] = NEG   # removes the k smallest instead of keeping the k largest
    return out


def k_crash_k_above_vocab(logits, k):
    x = _f(logits)
    thr = np.sort(x)[::-1][k - 1]                 # IndexError once k > vocab
    return np.where(x >= thr, x, NEG)


def k_alias_when_all_kept(logits, k):
    if k >= len(logits):
        return logits                             # the caller's own array
    x = _f(logits)
    return np.where(_topk_keep(x, k), x, NEG)


def k_in_place(logits, k):
    keep = _topk_keep(np.asarray(logits, dtype=float), k)
    logits[~keep] = NEG
    return logits


def k_asarray_no_copy(logits, k):
    x = np.asarray(logits, dtype=float)           # no copy when logits is already float64
    x[~_topk_keep(x, k)] = NEG
    return x


def k_rest_zero(logits, k):
    x = _f(logits)
    return np.where(_topk_keep(x, k), x, 0.0)


def k_rest_big_negative(logits, k):
    x = _f(logits)
    return np.where(_topk_keep(x, k), x, -1e9)


def k_rest_nan(logits, k):
    x = _f(logits)
    return np.where(_topk_keep(x, k), x, np.nan)


def k_rest_finfo_min(logits, k):
    x = _f(logits)
    return np.where(_topk_keep(x, k), x, np.finfo(float).min)


def k_returns_probs(logits, k):
    x = _f(logits)
    return _softmax(np.where(_topk_keep(x, k), x, NEG))


def k_returns_mask(logits, k):
    return _topk_keep(_f(logits), k)


def k_returns_indices(logits, k):
    return np.flatnonzero(_topk_keep(_f(logits), k))


def k_sorted_order(logits, k):
    x = _f(logits)
    s = np.sort(x)[::-1]
    return np.where(_topk_keep(s, k), s, NEG)


def k_only_kept_values(logits, k):
    x = _f(logits)
    return x[_topk_keep(x, k)]


def k_torch_tuple(logits, k):
    x = _f(logits)
    idx = np.argsort(-x, kind="stable")[:k]
    return x[idx], idx


def k_full_like_dtype(logits, k):
    logits = np.asarray(logits)
    out = np.full_like(logits, NEG)               # takes the input's dtype
    keep = _topk_keep(logits.astype(float), k)
    out[keep] = logits[keep]
    return out


def k_returns_log_probs(logits, k):
    x = _f(logits)
    logp = x - np.max(x) - np.log(np.sum(np.exp(x - np.max(x))))
    return np.where(_topk_keep(x, k), logp, NEG)


def k_shifted_by_max(logits, k):
    x = _f(logits)
    return np.where(_topk_keep(x, k), x - np.max(x), NEG)


def k_nan_to_num(logits, k):
    x = np.nan_to_num(_f(logits))                 # -inf becomes -1.797e308
    return np.where(_topk_keep(x, k), x, NEG)


def k_k1_argmax_shortcut(logits, k):
    x = _f(logits)
    if k == 1:
        out = np.full(x.size, NEG)
        i = int(np.argmax(x))
        out[i] = x[i]
        return out
    return np.where(_topk_keep(x, k), x, NEG)


def k_distinct_values(logits, k):
    x = _f(logits)
    u = np.unique(x)[::-1]                        # distinct values, largest first
    thr = u[min(k, u.size) - 1]
    return np.where(x >= thr, x, NEG)


def k_returns_list(logits, k):
    x = _f(logits)
    return np.where(_topk_keep(x, k), x, NEG).tolist()


def k_rank_by_probs(logits, k):
    x = _f(logits)
    probs = _softmax(x)
    keep = _topk_keep(probs, k)                   # ties among rounded probabilities
    return np.where(keep, x, NEG)


def k_rank_by_probs_no_max(logits, k):
    x = _f(logits)
    e = np.exp(x)
    probs = e / e.sum()
    keep = _topk_keep(probs, k)
    return np.where(keep, x, NEG)


def k_negated_threshold(logits, k):
    x = _f(logits)
    if k >= x.size:
        return x
    thr = np.sort(-x)[k - 1]                      # descending via -x, but not negated back
    return np.where(x >= thr, x, NEG)


def k_argsort_as_ranks(logits, k):
    x = _f(logits)
    ranks = np.argsort(-x, kind="stable")         # these are ids in rank order, not ranks
    return np.where(ranks < k, x, NEG)


def k_float32(logits, k):
    x = np.array(logits, dtype=np.float32)        # PyTorch's default dtype
    return np.where(_topk_keep(x, k), x, np.float32(NEG))


# ----------------------------------------------------------------------------------------------------------
# top_p_filter mistakes
# ----------------------------------------------------------------------------------------------------------
def _nucleus_mask_from(x, p, count_fn, order_fn=_rank, probs_fn=_softmax):
    keep = np.zeros(x.size, dtype=bool)
    if p >= 1:
        keep[:] = True
        return keep
    probs = probs_fn(x)
    order = order_fn(probs)
    keep[order[:count_fn(probs[order], p)]] = True
    return keep


def p_strict_greater(logits, p):
    x = _f(logits)
    keep = _nucleus_mask_from(
        x, p, lambda s, p: min(int(np.searchsorted(np.cumsum(s), p, side="right")) + 1, s.size))
    return np.where(keep, x, NEG)


def p_hf_shift(logits, p):
    x = _f(logits)
    if p >= 1:
        return x
    probs = _softmax(x)
    order = _rank(probs)
    cum = np.cumsum(probs[order])
    remove = cum > p
    remove[1:] = remove[:-1].copy()               # the transformers recipe
    remove[0] = False
    out = x.copy()
    out[order[remove]] = NEG
    return out


def p_keep_cum_le_p(logits, p):
    x = _f(logits)
    if p >= 1:
        return x
    probs = _softmax(x)
    order = _rank(probs)
    cum = np.cumsum(probs[order])
    out = np.full(x.size, NEG)
    sel = order[cum <= p]
    out[sel] = x[sel]
    return out


def p_keep_cum_le_p_first_forced(logits, p):
    x = _f(logits)
    if p >= 1:
        return x
    probs = _softmax(x)
    order = _rank(probs)
    cum = np.cumsum(probs[order])
    keep_sorted = cum <= p
    keep_sorted[0] = True
    out = np.full(x.size, NEG)
    sel = order[keep_sorted]
    out[sel] = x[sel]
    return out


def p_searchsorted_no_plus_one(logits, p):
    x = _f(logits)
    keep = _nucleus_mask_from(x, p, lambda s, p: int(np.searchsorted(np.cumsum(s), p)))
    return np.where(keep, x, NEG)


def p_one_extra(logits, p):
    x = _f(logits)
    keep = _nucleus_mask_from(x, p, lambda s, p: _nucleus_count(s, p) + 1)
    return np.where(keep, x, NEG)


def p_drops_top_token(logits, p):
    x = _f(logits)
    if p >= 1:
        return x
    probs = _softmax(x)
    order = _rank(probs)
    n = _nucleus_count(probs[order], p)
    out = np.full(x.size, NEG)
    sel = order[1:n]                              # off by one at the start
    out[sel] = x[sel]
    return out


def _softmax_no_max(x):
    e = np.exp(x)
    return e / e.sum()


def p_no_max_subtraction(logits, p):
    x = _f(logits)
    keep = _nucleus_mask_from(x, p, _nucleus_count, probs_fn=_softmax_no_max)
    return np.where(keep, x, NEG)


def _softmax_min(x):
    e = np.exp(x - np.min(x))
    return e / e.sum()


def p_subtracts_min(logits, p):
    x = _f(logits)
    keep = _nucleus_mask_from(x, p, _nucleus_count, probs_fn=_softmax_min)
    return np.where(keep, x, NEG)


def p_unnormalised_exp(logits, p):
    x = _f(logits)
    keep = _nucleus_mask_from(x, p, _nucleus_count, probs_fn=lambda z: np.exp(z - np.max(z)))
    return np.where(keep, x, NEG)


def p_logits_over_sum(logits, p):
    x = _f(logits)
    keep = _nucleus_mask_from(x, p, _nucleus_count, probs_fn=lambda z: z / z.sum())
    return np.where(keep, x, NEG)


def p_accumulates_log_probs(logits, p):
    x = _f(logits)
    if p >= 1:
        return x
    m = np.max(x)
    logp = x - m - np.log(np.sum(np.exp(x - m)))
    order = _rank(logp)
    out = np.full(x.size, NEG)
    total = 0.0
    for i in order:
        out[i] = x[i]
        total += logp[i]                          # log-probabilities: the total only goes down
        if total >= p:
            break
    return out


def p_ascending_order(logits, p):
    x = _f(logits)
    keep = _nucleus_mask_from(x, p, _nucleus_count, order_fn=lambda q: np.argsort(q, kind="stable"))
    return np.where(keep, x, NEG)


def p_inverted_mask(logits, p):
    x = _f(logits)
    return np.where(_topp_keep(x, p), NEG, x)


def p_ties_higher_id_first(logits, p):
    x = _f(logits)
    keep = _nucleus_mask_from(x, p, _nucleus_count,
                              order_fn=lambda q: np.argsort(q, kind="stable")[::-1])
    return np.where(keep, x, NEG)


def p_no_p1_case(logits, p):
    x = _f(logits)
    probs = _softmax(x)
    order = _rank(probs)
    keep = np.zeros(x.size, dtype=bool)
    keep[order[:_nucleus_count(probs[order], p)]] = True
    return np.where(keep, x, NEG)


def p_argmax_cut(logits, p):
    x = _f(logits)
    probs = _softmax(x)
    order = _rank(probs)
    cum = np.cumsum(probs[order])
    n = int(np.argmax(cum >= p)) + 1              # 0 when no entry reaches p
    out = np.full(x.size, NEG)
    out[order[:n]] = x[order[:n]]
    return out


def p_isclose_one(logits, p):
    x = _f(logits)
    if np.isclose(p, 1.0):
        return x
    probs = _softmax(x)
    order = _rank(probs)
    keep = np.zeros(x.size, dtype=bool)
    keep[order[:_nucleus_count(probs[order], p)]] = True
    return np.where(keep, x, NEG)


def p_returns_probs_renormalised(logits, p):
    x = _f(logits)
    probs = np.where(_topp_keep(x, p), _softmax(x), 0.0)
    return probs / probs.sum()


def p_returns_probs(logits, p):
    x = _f(logits)
    return np.where(_topp_keep(x, p), _softmax(x), 0.0)


def p_returns_mask(logits, p):
    return _topp_keep(_f(logits), p)


def p_returns_indices(logits, p):
    x = _f(logits)
    if p >= 1:
        return np.arange(x.size)
    probs = _softmax(x)
    order = _rank(probs)
    return order[:_nucleus_count(probs[order], p)]


def p_sorted_order(logits, p):
    x = _f(logits)
    probs = _softmax(x)
    order = _rank(probs)
    s = x[order]
    if p < 1:
        s[_nucleus_count(probs[order], p):] = NEG
    return s


def p_no_scatter_back(logits, p):
    x = _f(logits)
    if p >= 1:
        return x
    probs = _softmax(x)
    order = _rank(probs)
    n = _nucleus_count(probs[order], p)
    keep_sorted = np.arange(x.size) < n           # a mask in sorted positions ...
    return np.where(keep_sorted, x, NEG)          # ... applied to ids in their original order


def p_in_place(logits, p):
    x = np.asarray(logits, dtype=float)           # no copy for float64 input
    x[~_topp_keep(x, p)] = NEG
    return x.copy()


def p_alias_at_one(logits, p):
    if p == 1:
        return logits
    return top_p_right(logits, p)


def p_rest_zero(logits, p):
    x = _f(logits)
    return np.where(_topp_keep(x, p), x, 0.0)


def p_rest_big_negative(logits, p):
    x = _f(logits)
    return np.where(_topp_keep(x, p), x, -1e9)


def p_rest_nan(logits, p):
    x = _f(logits)
    return np.where(_topp_keep(x, p), x, np.nan)


def p_copy_keeps_int(logits, p):
    out = np.array(logits)                        # keeps an integer dtype
    out[~_topp_keep(out.astype(float), p)] = NEG
    return out


def p_unsorted_cumsum(logits, p):
    x = _f(logits)
    keep = _nucleus_mask_from(x, p, _nucleus_count, order_fn=lambda q: np.arange(q.size))
    return np.where(keep, x, NEG)


def p_ties_with_last_kept(logits, p):
    x = _f(logits)
    if p >= 1:
        return x
    probs = _softmax(x)
    order = _rank(probs)
    n = _nucleus_count(probs[order], p)
    last = probs[order[n - 1]]
    return np.where(probs >= last, x, NEG)


def p_fraction_of_vocab(logits, p):
    x = _f(logits)
    n = math.ceil(p * x.size)
    order = _rank(_softmax(x))
    out = np.full(x.size, NEG)
    out[order[:n]] = x[order[:n]]
    return out


def p_own_prob_at_least_p(logits, p):
    x = _f(logits)
    if p >= 1:
        return x
    return np.where(_softmax(x) >= p, x, NEG)


def p_neginf_to_zero(logits, p):
    x = _f(logits)
    clean = np.where(np.isneginf(x), 0.0, x)      # "avoid -inf in exp"
    return np.where(_topp_keep(clean, p), x, NEG)


def p_float32(logits, p):
    x = np.array(logits, dtype=np.float32)
    return np.where(_topp_keep(x.astype(float), p), x, np.float32(NEG))


def p_returns_log_probs(logits, p):
    x = _f(logits)
    m = np.max(x)
    logp = x - m - np.log(np.sum(np.exp(x - m)))
    return np.where(_topp_keep(x, p), logp, NEG)


# ----------------------------------------------------------------------------------------------------------
# acceptable answers
# ----------------------------------------------------------------------------------------------------------
def k_ok_partition(logits, k):
    x = np.asarray(logits, dtype=float)
    k = min(k, x.size)
    thr = np.partition(x, -k)[-k]
    return np.where(x >= thr, x, -np.inf)


def k_ok_copy_and_assign(logits, k):
    out = np.array(logits, dtype=float, copy=True)
    if k < out.size:
        thr = np.sort(out)[-k]
        out[out < thr] = -np.inf
    return out


def k_ok_count_greater(logits, k):
    x = [float(v) for v in logits]
    out = np.empty(len(x))
    for i, v in enumerate(x):
        bigger = sum(1 for w in x if w > v)
        out[i] = v if bigger < k else -math.inf
    return out


def k_ok_heapq(logits, k):
    x = np.asarray(logits, dtype=float)
    thr = heapq.nlargest(k, x.tolist())[-1]
    out = np.full(x.shape, -np.inf)
    keep = x >= thr
    out[keep] = x[keep]
    return out


def k_ok_argsort_threshold(logits, k):
    x = np.asarray(logits, dtype=float)
    order = np.argsort(-x, kind="stable")
    thr = x[order[min(k, x.size) - 1]]
    return np.where(x >= thr, x, -np.inf)


def k_ok_torch_topk_values(logits, k):
    x = np.asarray(logits, dtype=float)
    vals = -np.sort(-x)[:k]                        # topk values (any length <= vocab)
    return np.where(x >= vals[-1], x, -np.inf)


def p_ok_prev_total(logits, p):
    x = np.asarray(logits, dtype=float)
    if p >= 1:
        return x.copy()
    e = np.exp(x - x.max())
    probs = e / e.sum()
    order = np.argsort(-probs, kind="stable")
    cum = np.cumsum(probs[order])
    prev = np.concatenate(([0.0], cum[:-1]))
    keep = np.zeros(x.size, dtype=bool)
    keep[order[prev < p]] = True
    return np.where(keep, x, -np.inf)


def p_ok_count_below(logits, p):
    x = np.asarray(logits, dtype=float)
    probs = np.exp(x - np.max(x))
    probs = probs / probs.sum()
    order = np.argsort(-probs, kind="mergesort")
    n = x.size if p == 1 else min(int(np.sum(np.cumsum(probs[order]) < p)) + 1, x.size)
    out = np.full(x.size, -np.inf)
    out[order[:n]] = x[order[:n]]
    return out


def p_ok_loop(logits, p):
    x = np.asarray(logits, dtype=float)
    if p == 1:
        return x.copy()
    e = np.exp(x - np.max(x))
    probs = e / np.sum(e)
    out = np.full(x.size, -np.inf)
    total = 0.0
    for i in sorted(range(x.size), key=lambda j: (-probs[j], j)):
        if total >= p:
            break
        out[i] = x[i]
        total += probs[i]
    return out


def p_ok_lexsort_flatnonzero(logits, p):
    x = np.asarray(logits, dtype=float)
    e = np.exp(x - x.max())
    probs = e / e.sum()
    order = np.lexsort((np.arange(x.size), -probs))
    if p >= 1:
        n = x.size
    else:
        hits = np.flatnonzero(np.cumsum(probs[order]) >= p)
        n = hits[0] + 1 if hits.size else x.size
    keep = np.zeros(x.size, dtype=bool)
    keep[order[:n]] = True
    out = x.copy()
    out[~keep] = -np.inf
    return out


def p_ok_ascending_reversed_by_ids(logits, p):
    x = np.asarray(logits, dtype=float)
    if p >= 1:
        return np.array(x)
    e = np.exp(x - x.max())
    probs = e / e.sum()
    # ascending sort on (prob, -id), then read from the end: largest prob first, lower id first among ties
    order = np.lexsort((-np.arange(x.size), probs))[::-1]
    cum = np.cumsum(probs[order])
    n = min(int(np.searchsorted(cum, p)) + 1, x.size)
    out = np.full_like(x, -np.inf)
    out[order[:n]] = x[order[:n]]
    return out


def p_ok_sorted_mask_scatter(logits, p):
    x = np.array(logits, dtype=np.float64)
    if p >= 1:
        return x
    e = np.exp(x - np.max(x))
    probs = e / e.sum()
    order = np.argsort(-probs, kind="stable")
    cum = np.cumsum(probs[order])
    remove_sorted = np.zeros(x.size, dtype=bool)
    n = int(np.searchsorted(cum, p, side="left")) + 1
    remove_sorted[n:] = True
    remove = np.empty_like(remove_sorted)
    remove[order] = remove_sorted                  # scatter back through the permutation
    x[remove] = -np.inf
    return x


# ----------------------------------------------------------------------------------------------------------
MISTAKES = [
    # ---------------- top_k_filter
    Mistake("top_k_filter", "keeps exactly k tokens (the last k of an ascending argsort), so logits tied with the k-th largest value are dropped instead of all kept", k_exactly_k_argsort_tail),
    Mistake("top_k_filter", "keeps exactly k tokens like torch.topk (first k of a descending argsort), dropping the tokens tied with the k-th largest value", k_exactly_k_torch_topk),
    Mistake("top_k_filter", "keeps exactly the k indices returned by np.argpartition, so an arbitrary subset of the tokens tied with the k-th largest value is dropped", k_exactly_k_argpartition),
    Mistake("top_k_filter", "keeps the logits strictly greater than the (k+1)-th largest value, so when the k-th and (k+1)-th largest are tied the whole tied group is dropped (fewer than k kept)", k_strict_above_next),
    Mistake("top_k_filter", "off by one: takes the threshold at the (k+1)-th largest value (np.sort(x)[-k-1]), keeping k+1 tokens", k_keeps_k_plus_1),
    Mistake("top_k_filter", "sorts ascending and indexes from the wrong end: the threshold is the k-th smallest logit (np.sort(x)[k-1]), so vocab-k+1 tokens are kept", k_ascending_wrong_end),
    Mistake("top_k_filter", "compares with > instead of >= against the k-th largest value, so the k-th largest token (and its ties) is dropped and only k-1 survive", k_strict_greater_than_kth),
    Mistake("top_k_filter", "keeps the k smallest logits instead of the k largest (like torch.topk with largest=False)", k_keeps_k_smallest),
    Mistake("top_k_filter", "sets the k smallest logits to -inf instead of keeping the k largest, so vocab-k tokens survive", k_masks_k_smallest),
    Mistake("top_k_filter", "crashes with an IndexError when k is larger than the vocabulary instead of keeping every token", k_crash_k_above_vocab),
    Mistake("top_k_filter", "returns the caller's logits array itself (an alias, not a new array) when k >= vocab", k_alias_when_all_kept),
    Mistake("top_k_filter", "writes -inf into the caller's logits in place and returns that same array instead of a new one", k_in_place),
    Mistake("top_k_filter", "uses np.asarray(logits, dtype=float) as the output, which is the caller's own array for float64 input, so the input logits are overwritten with -inf", k_asarray_no_copy),
    Mistake("top_k_filter", "sets the filtered-out entries to 0 instead of -inf", k_rest_zero),
    Mistake("top_k_filter", "sets the filtered-out entries to a large finite negative number (-1e9) instead of -inf", k_rest_big_negative),
    Mistake("top_k_filter", "sets the filtered-out entries to NaN instead of -inf", k_rest_nan),
    Mistake("top_k_filter", "sets the filtered-out entries to the most negative finite float (np.finfo(float).min) instead of -inf", k_rest_finfo_min),
    Mistake("top_k_filter", "returns the softmax probabilities of the kept tokens (renormalised, 0 elsewhere) instead of the filtered logits", k_returns_probs),
    Mistake("top_k_filter", "returns the boolean keep-mask instead of the filtered logits", k_returns_mask),
    Mistake("top_k_filter", "returns the indices of the kept tokens instead of a (vocab,) array of filtered logits", k_returns_indices),
    Mistake("top_k_filter", "returns the filtered logits in descending sorted order instead of each token at its original position", k_sorted_order),
    Mistake("top_k_filter", "returns only the kept logits (a short array) instead of a (vocab,) array with -inf for the others", k_only_kept_values),
    Mistake("top_k_filter", "returns a torch.topk-style (values, indices) pair of the k largest instead of a filtered (vocab,) array", k_torch_tuple),
    Mistake("top_k_filter", "builds the output with np.full_like(logits, -inf), which takes the input's dtype: integer logits give an integer array with garbage instead of -inf", k_full_like_dtype),
    Mistake("top_k_filter", "returns the log-softmax (log-probabilities) of the kept tokens instead of their original logits", k_returns_log_probs),
    Mistake("top_k_filter", "returns the kept logits shifted by the maximum (x - max) instead of unchanged", k_shifted_by_max),
    Mistake("top_k_filter", "runs np.nan_to_num on the logits first, so entries already -inf come back as -1.797e308 when they are kept (k >= number of finite logits)", k_nan_to_num),
    Mistake("top_k_filter", "special-cases k = 1 with argmax, keeping only one token when the largest logit is tied", k_k1_argmax_shortcut),
    Mistake("top_k_filter", "counts distinct values (np.unique): the threshold is the k-th largest distinct logit, so with repeated values above it more than the k largest (with ties) survive", k_distinct_values),
    Mistake("top_k_filter", "returns a Python list instead of a numpy array", k_returns_list),
    Mistake("top_k_filter", "ranks by softmax probabilities instead of logits, so distinct logits whose probabilities round to the same value (e.g. 0) are treated as tied with the k-th and kept", k_rank_by_probs),
    Mistake("top_k_filter", "two slips: ranks by softmax probabilities instead of logits, and computes them without subtracting the max, so logits around 1e300 overflow to NaN and the wrong tokens are kept", k_rank_by_probs_no_max),
    Mistake("top_k_filter", "sorts -logits to get descending order but forgets to negate the threshold back, comparing logits with minus the k-th largest value", k_negated_threshold),
    Mistake("top_k_filter", "treats the argsort output as ranks (ranks = argsort(-x); keep ranks < k) instead of inverting the permutation, so the wrong tokens are kept", k_argsort_as_ranks),
    Mistake("top_k_filter", "converts the logits to float32 (PyTorch habit), so the kept values lose precision and the result is float32", k_float32),
    # ---------------- top_p_filter
    Mistake("top_p_filter", "stops only once the running total exceeds p (cumsum > p), so when it reaches p exactly one extra token is kept", p_strict_greater),
    Mistake("top_p_filter", "uses the transformers recipe (remove cumsum > p, shifted right by one), which stops only after p is exceeded: when the running total hits p exactly one token too many is kept", p_hf_shift),
    Mistake("top_p_filter", "keeps only the tokens whose running total is <= p, dropping the token that crosses p (and keeping nothing when the top token alone exceeds p)", p_keep_cum_le_p),
    Mistake("top_p_filter", "keeps the tokens whose running total is <= p plus always the top token, so the token that crosses p is dropped", p_keep_cum_le_p_first_forced),
    Mistake("top_p_filter", "off by one: keeps only the tokens whose running total is strictly below p (searchsorted without +1), dropping the token that reaches or crosses p", p_searchsorted_no_plus_one),
    Mistake("top_p_filter", "keeps one token more than the nucleus (the token after the one whose running total reaches p)", p_one_extra),
    Mistake("top_p_filter", "slices the sorted order from 1 instead of 0, so the most probable token is always dropped", p_drops_top_token),
    Mistake("top_p_filter", "computes the softmax without subtracting the max, so logits around 1e300 overflow (inf/inf = NaN) and the nucleus is wrong", p_no_max_subtraction),
    Mistake("top_p_filter", "subtracts the minimum instead of the maximum before exp, which overflows to NaN when the logits span more than ~709 (or contain -inf)", p_subtracts_min),
    Mistake("top_p_filter", "forgets to divide exp(x - max) by its sum, so the unnormalised running total reaches p at the first token and only the top token is kept", p_unnormalised_exp),
    Mistake("top_p_filter", "turns logits into 'probabilities' by dividing them by their sum instead of a softmax", p_logits_over_sum),
    Mistake("top_p_filter", "accumulates log-probabilities instead of probabilities, so the running total never reaches p and every token is kept", p_accumulates_log_probs),
    Mistake("top_p_filter", "sorts ascending and accumulates from the least probable token up, keeping the improbable tail instead of the head", p_ascending_order),
    Mistake("top_p_filter", "inverts the mask: keeps the tokens outside the nucleus and sets the nucleus to -inf", p_inverted_mask),
    Mistake("top_p_filter", "ranks with argsort ascending then reversed, so among equal probabilities the higher id comes first instead of the lower", p_ties_higher_id_first),
    Mistake("top_p_filter", "has no special case for p = 1: the running total reaches 1.0 by rounding before the tokens whose probability rounds to 0, which are then dropped", p_no_p1_case),
    Mistake("top_p_filter", "two slips: no special case for p = 1, and the cut is found with argmax(cumsum >= p), which returns 0 when rounding leaves the total below p, so p = 1 can keep only the top token", p_argmax_cut),
    Mistake("top_p_filter", "treats any p within np.isclose of 1 (e.g. 0.999995) as p = 1 and keeps every token", p_isclose_one),
    Mistake("top_p_filter", "returns the renormalised probabilities of the nucleus (0 elsewhere) instead of the filtered logits", p_returns_probs_renormalised),
    Mistake("top_p_filter", "returns the softmax probabilities of the kept tokens (0 elsewhere, not renormalised) instead of the filtered logits", p_returns_probs),
    Mistake("top_p_filter", "returns the boolean nucleus mask instead of the filtered logits", p_returns_mask),
    Mistake("top_p_filter", "returns the ids of the nucleus tokens instead of a (vocab,) array of filtered logits", p_returns_indices),
    Mistake("top_p_filter", "returns the filtered logits in sorted (most probable first) order instead of each token at its original position", p_sorted_order),
    Mistake("top_p_filter", "builds the keep-mask in sorted positions and applies it to the logits in id order without scattering it back, so the first n ids are kept instead of the n most probable tokens", p_no_scatter_back),
    Mistake("top_p_filter", "writes -inf into the caller's logits in place (np.asarray gives no copy for float64 input) before returning a copy", p_in_place),
    Mistake("top_p_filter", "returns the caller's logits array itself (an alias, not a new array) when p = 1", p_alias_at_one),
    Mistake("top_p_filter", "sets the entries outside the nucleus to 0 instead of -inf", p_rest_zero),
    Mistake("top_p_filter", "sets the entries outside the nucleus to a large finite negative number (-1e9) instead of -inf", p_rest_big_negative),
    Mistake("top_p_filter", "sets the entries outside the nucleus to NaN instead of -inf", p_rest_nan),
    Mistake("top_p_filter", "copies the logits keeping their dtype, so integer logits cannot hold -inf (OverflowError) and the output is not a float array", p_copy_keeps_int),
    Mistake("top_p_filter", "accumulates the probabilities in token-id order without ranking them first", p_unsorted_cumsum),
    Mistake("top_p_filter", "keeps every token whose probability is at least that of the last nucleus token, so tokens tied with it beyond the cut are kept too", p_ties_with_last_kept),
    Mistake("top_p_filter", "keeps the ceil(p * vocab) most probable tokens (a fraction p of the vocabulary) instead of a probability mass p", p_fraction_of_vocab),
    Mistake("top_p_filter", "keeps the tokens whose own probability is at least p (a min-p threshold) instead of the shortest run whose total reaches p", p_own_prob_at_least_p),
    Mistake("top_p_filter", "replaces -inf logits by 0 before the softmax, giving already-excluded tokens probability mass and shrinking the nucleus", p_neginf_to_zero),
    Mistake("top_p_filter", "converts the logits to float32 (PyTorch habit), so the kept values lose precision, the result is float32 and the nucleus is computed from the rounded logits", p_float32),
    Mistake("top_p_filter", "returns the log-softmax (log-probabilities) of the nucleus tokens instead of their original logits", p_returns_log_probs),
]

ACCEPTABLE = [
    Mistake("top_k_filter", "threshold from np.partition(x, -k)[-k] with k clipped to the vocabulary, then np.where(x >= thr, x, -inf)", k_ok_partition),
    Mistake("top_k_filter", "copies the logits and assigns -inf to entries below the ascending-sorted np.sort(x)[-k], skipping the cut when k >= vocab", k_ok_copy_and_assign),
    Mistake("top_k_filter", "pure-Python O(vocab^2) rule: a token is kept when fewer than k logits are strictly larger than it", k_ok_count_greater),
    Mistake("top_k_filter", "threshold is the last of heapq.nlargest(k, logits), which handles k >= vocab by itself", k_ok_heapq),
    Mistake("top_k_filter", "threshold is the logit of the k-th id of a stable descending argsort (clipped), compared with >=", k_ok_argsort_threshold),
    Mistake("top_k_filter", "torch.topk-like: takes the k largest values by sorting -logits, then keeps every logit >= the smallest of them (so ties survive)", k_ok_torch_topk_values),
    Mistake("top_p_filter", "keeps each ranked token whose running total before it is still below p (the shifted cumsum < p), p >= 1 keeps all", p_ok_prev_total),
    Mistake("top_p_filter", "nucleus size = (number of running totals below p) + 1, with a mergesort ranking and p == 1 keeping all", p_ok_count_below),
    Mistake("top_p_filter", "Python loop over ids sorted by (-prob, id), stopping before a token once the total already reached p", p_ok_loop),
    Mistake("top_p_filter", "ranks with np.lexsort (ties by id), finds the first running total >= p with flatnonzero (all kept if none), and writes -inf into a copy", p_ok_lexsort_flatnonzero),
    Mistake("top_p_filter", "ascending lexsort on (prob, -id) read from the end, which gives the same ranking (lower id first among ties)", p_ok_ascending_reversed_by_ids),
    Mistake("top_p_filter", "builds a removal mask in sorted positions and scatters it back through the permutation (remove[order] = remove_sorted)", p_ok_sorted_mask_scatter),
]
