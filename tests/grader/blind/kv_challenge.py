"""Blind learner mistakes for exercises/17_grouped_queries.ipynb (`grouped_query_attention`, `grouped_cache_step`)
and exercises/18_sliding_window.ipynb (`sliding_window_mask`, `rolling_cache_step`).

A set of realistic wrong answers (MISTAKES) and right answers written differently (ACCEPTABLE), to measure a grader
on mistakes it has never seen. It was written from the two exercise notebooks' task texts and stub signatures alone
(with exercises/notebooks 09 and 14 read only for the conventions, and attnlib.grouped_query_attention used as an
independent reference), before the grader's checks for these four exercises existed and while they were being
written by someone else, without reading the grader (attnlib/checks), its tests, the solutions, the grading folder,
other branches or the git history. Each `fn` has the exercise's exact signature; the entries may call the
notebooks' own helpers `attend` and `attend_step` (copied below as the notebooks give them), as a learner would.

Habits imitated. grouped_query_attention: per-head loops, per-group loops, einsum, reshape/transpose splits,
np.repeat / np.tile (on heads, on columns, on the weights), Wo applied by row blocks; group routing h % n_kv_heads,
h // n_kv_heads, h itself (lesson 09 copied), an upside-down or float group size, K and V from different groups,
one query per group or averaged queries, strided columns, an interleaved reshape, d_head from d_model or from
Wk / n_heads; the scale (sqrt(d_model), none, d_head, whole width, Wk's width), the causal flag ignored either way,
np.triu/np.tril with the wrong k, zeroing after the softmax, softmax axis / keepdims / no max, K @ Q.T, A.T @ V;
heads reversed, stacked without moving the head axis, concatenated on rows, Wo forgotten or sliced wrong, an
"average over heads", an in-place scale of the caller's Wq, an integer buffer. grouped_cache_step: the same routing
slips, q[g] for q[h]; the cache repeated to n_heads before storing, appending on axis 0, prepending, attending
before appending, returning the old caches, the new token counted twice or alone, a fixed-size cache, k appended to
the values, overwriting the last row in place, np.append without axis or without a token axis; the scale (whole
width, none, d_head, the cache length, d_head read from axis 1 = t), a habitual causal mask over the heads, softmax
over heads / without keepdims / without max / unnormalised, keys summed; tuples in the wrong order, o flattened,
q scaled in place, an integer buffer. sliding_window_mask: the window one too wide or too narrow, the current token
excluded, non-causal |i - j| bands, no upper bound, transposed, window ignored, only the diagonal, the first window
positions, window // 2; boolean, 0/1, -1e9 or inverted masks, 0 * -inf = NaN; np.tril/np.triu with k = -window,
+window - 1, -window - 1, -window + 1, k = 0; loops with a wrapping negative slice, from i - window, stopping
before i; an int array, a window clipped to n - 1, diagonals without the main one or above it, an (n, window)
shape, np.ogrid with <=. rolling_cache_step: keeping the oldest rows, cutting at >= window, cutting before appending
or testing t before appending (never cutting), sinks dropped, sinks counted outside the window (two ways), roles
of sinks and recent rows swapped, one sink too many, one recent row too few, cutting on every step (rows
duplicated before the cache is full), the K[-0:] slice, np.delete off by one or without axis, replacing the newest
cached row, ring buffers (out of order, rolled the wrong way, rolled in place in the caller's arrays), prepending,
k and v swapped, np.append without axis; attending over the uncut rows, returning uncut caches, attending before
appending or without the current token, sinks masked out of the scores; the scale (sqrt(d_v), none, sqrt(window)),
softmax without max, keys summed; tuples in the wrong order, integer buffers, q scaled in place.

Verified with a script of its own outside the repository (/tmp/blind_p2/verify.py): references written from the
exercise text with scalar loops; the GQA one agrees with attnlib.grouped_query_attention to 8e-16 relative on 296
inputs, and the rolling-cache one run token by token without sinks equals full attention under the mask one
(windows 4, 1 and 15 > n). Inputs: grouped_query_attention 336 (n 1-7; (n_heads, n_kv_heads) in (1,1) (2,1) (2,2)
(3,1) (3,3) (4,1) (4,2) (4,4) (6,1) (6,2) (6,3) (6,6) (8,2) (8,4) (9,3) (12,4); d_head 1-3; d_model 2-8 and
= n_heads * d_head; causal True and False; 15% with scores in the thousands), grouped_cache_step 288 (the same
pairs, t 0, 1, 2, 3, 5, 8, d_head 1-4, 15% with large scores), sliding_window_mask 120 (n 1-10, window 1-12),
rolling_cache_step 284 (window 1, 2, 3, 4, 5, 8; every n_sinks 0..window-1; every t 0..window, so empty and full
caches; d 1-5, d_v equal to d or not; n_sinks passed or left to its default; 15% with large scores).
All 43 + 36 + 30 + 35 = 144 mistakes differ from the reference on at least one input (a raise, another shape or
a non-tuple, a NaN or inf where the reference has none or a different -inf pattern, a value off by more than 1e-6
relative, or a modified input). All 7 + 6 + 8 + 7 = 28 acceptable variants agree with the reference to 1e-10
relative (max |diff| / max(1, max |ref|); worst 5e-13) on every input and leave their inputs unmodified.

Mistakes that show only on some inputs (each condition below is necessary, checked on every input; besides it,
any slip inside the attention is invisible when there is a single key, n = 1 or t = 0):
- routing h % n_kv_heads (both exercises, also np.tile, the (r, groups) reshapes, values from h % n_kv_heads):
  only when 1 < n_kv_heads < n_heads; h // n_kv_heads: right when n_kv_heads**2 = n_heads (4 heads, 2 groups);
  Wk/Wv sliced at h, the inverted group size, d_head = Wk.shape[1] // n_heads, one or averaged query per group,
  q[g] for q[h], n_heads read from k, the cache repeated to n_heads, Wo rows of the group: only n_kv_heads <
  n_heads; keys or values from group 0, strided Wk columns, sqrt(Wk's width): only n_kv_heads > 1; np.repeat on
  columns: only n_kv_heads < n_heads and d_head > 1; d_head from d_model: only d_model != n_heads * d_head.
- the scale slips with d_head (none, d_head, the in-place Wq or q scale): only d_head > 1; sqrt(d_model): only
  d_model != d_head; sqrt(d_v) in rolling_cache_step: only d != d_v.
- the causal slips: only causal=True and n > 1 (always-causal: only causal=False and n > 1).
- softmax without the max: only on large scores (the exercises do not ask for stability explicitly).
- sliding_window_mask: one too wide, causal only, first positions, k = -window / -window - 1, loop from
  i - window, np.ogrid <=: only window < n; one too narrow (and k = -window + 1): only window <= n; clipped to
  n - 1: only window >= n; the wrapping negative slice: only window > 1 and n > 1; -1e9: only n > 1.
- rolling_cache_step: almost every eviction slip shows only on a full cache (t = window); sinks ignored, sinks
  outside the window, sinks masked: also n_sinks > 0; the ring buffer and replacing the newest row: also
  window - n_sinks >= 2; the K[-0:] slice: only t = window and n_sinks = window - 1; cutting at >= window: only
  t >= window - 1; cutting on every step: only n_sinks > 0 and t + 1 < window; prepending: only t > 0.
- grouped_cache_step: prepending, dropping the oldest row, overwriting the last row, the new token counted twice,
  the causal mask over the heads, the new token alone: only t > 0 (with t = 0 they are right).
"""
from dataclasses import dataclass
from typing import Callable

import numpy as np


@dataclass(frozen=True)
class Mistake:
    exercise: str  # "grouped_query_attention", "grouped_cache_step", "sliding_window_mask" or "rolling_cache_step"
    what: str      # one precise plain-English line naming the mistake, as an ideal grader would
    fn: Callable   # the learner's function, with the exercise's exact signature


# The helpers the notebooks hand the learner (exercises 17 and 18), used by some entries as a learner would.

def attend(Q, K, V, causal=True):
    """Scaled attention for one head: Q (n, d_head), K (n, d_head), V (n, d_v) -> (n, d_v)."""
    S = Q @ K.T / np.sqrt(Q.shape[1])
    if causal:
        S = S + np.triu(np.full(S.shape, -np.inf), k=1)
    E = np.exp(S - S.max(axis=1, keepdims=True))
    return (E / E.sum(axis=1, keepdims=True)) @ V


def attend_step(q, K_cache, V_cache):
    """q (d,), K_cache (t, d), V_cache (t, d_v) -> (d_v,): scaled attention over every cached row."""
    s = K_cache @ q / np.sqrt(q.shape[0])
    a = np.exp(s - s.max())
    return (a / a.sum()) @ V_cache


# ============================================================================
# grouped_query_attention(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True): mistakes
# ============================================================================

def _gqa_loop(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal, group, scale=None, kv_group=None):
    """A learner's per-head loop with a pluggable group rule (used by the routing mistakes below)."""
    d_head = Wq.shape[1] // n_heads
    outs = []
    for h in range(n_heads):
        g = group(h)
        gv = g if kv_group is None else kv_group(h)
        Q = X @ Wq[:, h * d_head:(h + 1) * d_head]
        K = X @ Wk[:, g * d_head:(g + 1) * d_head]
        V = X @ Wv[:, gv * d_head:(gv + 1) * d_head]
        outs.append(attend(Q, K, V, causal))
    return np.concatenate(outs, axis=1) @ Wo


def gqa_group_mod(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    return _gqa_loop(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal, lambda h: h % n_kv_heads)


def gqa_group_div_nkv(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    d_head = Wq.shape[1] // n_heads
    heads = []
    for h in range(n_heads):
        g = h // n_kv_heads  # divides by the number of groups, not by the group size
        q = X @ Wq[:, h * d_head:(h + 1) * d_head]
        k = X @ Wk[:, g * d_head:(g + 1) * d_head]
        v = X @ Wv[:, g * d_head:(g + 1) * d_head]
        heads.append(attend(q, k, v, causal))
    return np.hstack(heads) @ Wo


def gqa_group_is_head(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    d_head = Wq.shape[1] // n_heads
    heads = []
    for h in range(n_heads):  # lesson 09 copied: head h slices Wk and Wv at h as well
        sl = slice(h * d_head, (h + 1) * d_head)
        heads.append(attend(X @ Wq[:, sl], X @ Wk[:, sl], X @ Wv[:, sl], causal))
    return np.concatenate(heads, axis=1) @ Wo


def gqa_v_group_mod(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    r = n_heads // n_kv_heads
    return _gqa_loop(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal, lambda h: h // r,
                     kv_group=lambda h: h % n_kv_heads)


def gqa_v_group_zero(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    r = n_heads // n_kv_heads
    return _gqa_loop(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal, lambda h: h // r, kv_group=lambda h: 0)


def gqa_k_group_zero(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    r = n_heads // n_kv_heads
    d_head = Wq.shape[1] // n_heads
    outs = []
    for h in range(n_heads):
        g = h // r
        Q = X @ Wq[:, h * d_head:(h + 1) * d_head]
        K = X @ Wk[:, :d_head]  # always the first group's keys
        V = X @ Wv[:, g * d_head:(g + 1) * d_head]
        outs.append(attend(Q, K, V, causal))
    return np.concatenate(outs, axis=1) @ Wo


def gqa_tile_heads(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    n, d_head = X.shape[0], Wq.shape[1] // n_heads
    Q = (X @ Wq).reshape(n, n_heads, d_head).transpose(1, 0, 2)
    K = (X @ Wk).reshape(n, n_kv_heads, d_head).transpose(1, 0, 2)
    V = (X @ Wv).reshape(n, n_kv_heads, d_head).transpose(1, 0, 2)
    r = n_heads // n_kv_heads
    K, V = np.tile(K, (r, 1, 1)), np.tile(V, (r, 1, 1))  # order 0,1,..,0,1,..: head h gets group h % n_kv_heads
    S = Q @ K.transpose(0, 2, 1) / np.sqrt(d_head)
    if causal:
        S = S + np.triu(np.full((n, n), -np.inf), k=1)
    E = np.exp(S - S.max(axis=-1, keepdims=True))
    O = (E / E.sum(axis=-1, keepdims=True)) @ V
    return O.transpose(1, 0, 2).reshape(n, -1) @ Wo


def gqa_repeat_columns(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    d_head = Wq.shape[1] // n_heads
    r = n_heads // n_kv_heads
    K_all = np.repeat(X @ Wk, r, axis=1)  # repeats each column, not each group of d_head columns
    V_all = np.repeat(X @ Wv, r, axis=1)
    Q_all = X @ Wq
    outs = [attend(Q_all[:, h * d_head:(h + 1) * d_head], K_all[:, h * d_head:(h + 1) * d_head],
                   V_all[:, h * d_head:(h + 1) * d_head], causal) for h in range(n_heads)]
    return np.concatenate(outs, axis=1) @ Wo


def gqa_tile_columns(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    d_head = Wq.shape[1] // n_heads
    r = n_heads // n_kv_heads
    Wk_full, Wv_full = np.tile(Wk, (1, r)), np.tile(Wv, (1, r))  # columns of all groups, r times over
    outs = []
    for h in range(n_heads):
        sl = slice(h * d_head, (h + 1) * d_head)
        outs.append(attend(X @ Wq[:, sl], X @ Wk_full[:, sl], X @ Wv_full[:, sl], causal))
    return np.concatenate(outs, axis=1) @ Wo


def _gqa_vec(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True, scale=None, mask_k=1, axis=-1, keepdims=True,
             no_max=False, order=None, wo=True, kq=False):
    n, d_head = X.shape[0], Wq.shape[1] // n_heads
    r = n_heads // n_kv_heads
    Q = (X @ Wq).reshape(n, n_heads, d_head).transpose(1, 0, 2)
    K = np.repeat((X @ Wk).reshape(n, n_kv_heads, d_head).transpose(1, 0, 2), r, axis=0)
    V = np.repeat((X @ Wv).reshape(n, n_kv_heads, d_head).transpose(1, 0, 2), r, axis=0)
    S = (K @ Q.transpose(0, 2, 1) if kq else Q @ K.transpose(0, 2, 1)) / (np.sqrt(d_head) if scale is None else scale)
    if causal:
        S = S + np.triu(np.full((n, n), -np.inf), k=mask_k)
    E = np.exp(S) if no_max else np.exp(S - S.max(axis=axis, keepdims=True))
    A = E / (E.sum(axis=axis, keepdims=True) if keepdims else E.sum(axis=axis))
    O = A @ V
    if order is not None:
        O = O[order]
    M = O.transpose(1, 0, 2).reshape(n, -1)
    return M @ Wo if wo else M


def gqa_scale_d_model(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    return _gqa_vec(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal, scale=np.sqrt(X.shape[1]))


def gqa_no_scale(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    return _gqa_vec(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal, scale=1.0)


def gqa_scale_total_width(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    return _gqa_vec(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal, scale=np.sqrt(Wq.shape[1]))


def gqa_scale_d_head_not_sqrt(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    return _gqa_vec(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal, scale=Wq.shape[1] / n_heads)


def gqa_scale_group_width(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    return _gqa_vec(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal, scale=np.sqrt(Wk.shape[1]))


def gqa_always_causal(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    return _gqa_vec(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, True)


def gqa_never_causal(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    return _gqa_vec(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, False)


def gqa_mask_k0(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    return _gqa_vec(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal, mask_k=0)


def gqa_mask_k2(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    return _gqa_vec(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal, mask_k=2)


def gqa_mask_past(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    n, d_head = X.shape[0], Wq.shape[1] // n_heads
    r = n_heads // n_kv_heads
    outs = []
    for h in range(n_heads):
        g = h // r
        Q = X @ Wq[:, h * d_head:(h + 1) * d_head]
        K = X @ Wk[:, g * d_head:(g + 1) * d_head]
        V = X @ Wv[:, g * d_head:(g + 1) * d_head]
        S = Q @ K.T / np.sqrt(d_head)
        if causal:
            S = S + np.tril(np.full((n, n), -np.inf), k=-1)  # masks the past instead of the future
        E = np.exp(S - S.max(axis=1, keepdims=True))
        outs.append(E / E.sum(axis=1, keepdims=True) @ V)
    return np.concatenate(outs, axis=1) @ Wo


def gqa_softmax_axis0(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    return _gqa_vec(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal, axis=-2)


def gqa_sum_no_keepdims(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    return _gqa_vec(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal, keepdims=False)


def gqa_softmax_no_max(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    return _gqa_vec(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal, no_max=True)


def gqa_scores_k_by_q(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    return _gqa_vec(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal, kq=True)


def gqa_heads_reversed(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    return _gqa_vec(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal, order=slice(None, None, -1))


def gqa_no_wo(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    return _gqa_vec(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal, wo=False)


def gqa_stack_reshape(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    n, d_head = X.shape[0], Wq.shape[1] // n_heads
    r = n_heads // n_kv_heads
    outs = []
    for h in range(n_heads):
        g = h // r
        outs.append(attend(X @ Wq[:, h * d_head:(h + 1) * d_head], X @ Wk[:, g * d_head:(g + 1) * d_head],
                           X @ Wv[:, g * d_head:(g + 1) * d_head], causal))
    return np.stack(outs).reshape(n, -1) @ Wo  # (n_heads, n, d_head) reshaped without moving the head axis


def gqa_split_interleaved(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    n, d_head = X.shape[0], Wq.shape[1] // n_heads
    r = n_heads // n_kv_heads
    Q = (X @ Wq).reshape(n, d_head, n_heads).transpose(2, 0, 1)  # (n, d_head, heads): columns taken every n_heads
    K = (X @ Wk).reshape(n, d_head, n_kv_heads).transpose(2, 0, 1)
    V = (X @ Wv).reshape(n, d_head, n_kv_heads).transpose(2, 0, 1)
    outs = [attend(Q[h], K[h // r], V[h // r], causal) for h in range(n_heads)]
    return np.concatenate(outs, axis=1) @ Wo


def gqa_kv_strided(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    d_head = Wq.shape[1] // n_heads
    r = n_heads // n_kv_heads
    outs = []
    for h in range(n_heads):
        g = h // r
        Q = X @ Wq[:, h * d_head:(h + 1) * d_head]
        K = X @ Wk[:, g::n_kv_heads]  # every n_kv_heads-th column instead of a contiguous block
        V = X @ Wv[:, g::n_kv_heads]
        outs.append(attend(Q, K, V, causal))
    return np.concatenate(outs, axis=1) @ Wo


def gqa_d_head_from_d_model(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    d_head = X.shape[1] // n_heads  # lesson 09's d_model = n_heads * d_head, not true here
    r = n_heads // n_kv_heads
    outs = []
    for h in range(n_heads):
        g = h // r
        outs.append(attend(X @ Wq[:, h * d_head:(h + 1) * d_head], X @ Wk[:, g * d_head:(g + 1) * d_head],
                           X @ Wv[:, g * d_head:(g + 1) * d_head], causal))
    return np.concatenate(outs, axis=1) @ Wo


def gqa_d_head_kv_by_n_heads(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    d_head = Wk.shape[1] // n_heads  # Wk has n_kv_heads groups, not n_heads
    r = n_heads // n_kv_heads
    outs = []
    for h in range(n_heads):
        g = h // r
        outs.append(attend(X @ Wq[:, h * d_head:(h + 1) * d_head], X @ Wk[:, g * d_head:(g + 1) * d_head],
                           X @ Wv[:, g * d_head:(g + 1) * d_head], causal))
    return np.concatenate(outs, axis=1) @ Wo


def gqa_group_size_inverted(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    r = n_kv_heads // n_heads  # upside down: 0 when there are fewer groups than heads
    return _gqa_loop(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal, lambda h: h // r)


def gqa_float_group_size(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    r = n_heads / n_kv_heads  # a float: h // r is a float and slicing with it fails
    return _gqa_loop(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal, lambda h: h // r)


def gqa_first_query_of_group(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    d_head = Wq.shape[1] // n_heads
    r = n_heads // n_kv_heads
    outs = []
    for g in range(n_kv_heads):
        h = g * r  # one query per group: the group's output copied to all its heads
        o = attend(X @ Wq[:, h * d_head:(h + 1) * d_head], X @ Wk[:, g * d_head:(g + 1) * d_head],
                   X @ Wv[:, g * d_head:(g + 1) * d_head], causal)
        outs.extend([o] * r)
    return np.concatenate(outs, axis=1) @ Wo


def gqa_mean_queries(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    n, d_head = X.shape[0], Wq.shape[1] // n_heads
    r = n_heads // n_kv_heads
    Q = (X @ Wq).reshape(n, n_kv_heads, r, d_head).mean(axis=2)  # the group's queries averaged into one
    outs = []
    for g in range(n_kv_heads):
        o = attend(Q[:, g], X @ Wk[:, g * d_head:(g + 1) * d_head], X @ Wv[:, g * d_head:(g + 1) * d_head], causal)
        outs.extend([o] * r)
    return np.concatenate(outs, axis=1) @ Wo


def gqa_wo_same_rows(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    d_head = Wq.shape[1] // n_heads
    r = n_heads // n_kv_heads
    Y = 0
    for h in range(n_heads):
        g = h // r
        o = attend(X @ Wq[:, h * d_head:(h + 1) * d_head], X @ Wk[:, g * d_head:(g + 1) * d_head],
                   X @ Wv[:, g * d_head:(g + 1) * d_head], causal)
        Y = Y + o @ Wo[:d_head]  # every head through Wo's first d_head rows
    return Y


def gqa_wo_by_group(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    d_head = Wq.shape[1] // n_heads
    r = n_heads // n_kv_heads
    Y = 0
    for h in range(n_heads):
        g = h // r
        o = attend(X @ Wq[:, h * d_head:(h + 1) * d_head], X @ Wk[:, g * d_head:(g + 1) * d_head],
                   X @ Wv[:, g * d_head:(g + 1) * d_head], causal)
        Y = Y + o @ Wo[g * d_head:(g + 1) * d_head]  # Wo's rows picked by the group, not the head
    return Y


def gqa_heads_averaged(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    d_head = Wq.shape[1] // n_heads
    r = n_heads // n_kv_heads
    outs = [attend(X @ Wq[:, h * d_head:(h + 1) * d_head], X @ Wk[:, (h // r) * d_head:(h // r + 1) * d_head],
                   X @ Wv[:, (h // r) * d_head:(h // r + 1) * d_head], causal) for h in range(n_heads)]
    M = np.concatenate(outs, axis=1) @ Wo
    return M / n_heads  # "average over the heads"


def gqa_scales_wq_in_place(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    n, d_head = X.shape[0], Wq.shape[1] // n_heads
    r = n_heads // n_kv_heads
    Wq /= np.sqrt(d_head)  # folds the scale into the caller's Wq
    outs = []
    for h in range(n_heads):
        g = h // r
        S = (X @ Wq[:, h * d_head:(h + 1) * d_head]) @ (X @ Wk[:, g * d_head:(g + 1) * d_head]).T
        if causal:
            S = S + np.triu(np.full((n, n), -np.inf), k=1)
        E = np.exp(S - S.max(axis=1, keepdims=True))
        outs.append(E / E.sum(axis=1, keepdims=True) @ (X @ Wv[:, g * d_head:(g + 1) * d_head]))
    return np.concatenate(outs, axis=1) @ Wo


def gqa_weights_after_softmax_mask(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    n, d_head = X.shape[0], Wq.shape[1] // n_heads
    r = n_heads // n_kv_heads
    outs = []
    for h in range(n_heads):
        g = h // r
        S = (X @ Wq[:, h * d_head:(h + 1) * d_head]) @ (X @ Wk[:, g * d_head:(g + 1) * d_head]).T / np.sqrt(d_head)
        E = np.exp(S - S.max(axis=1, keepdims=True))
        A = E / E.sum(axis=1, keepdims=True)
        if causal:
            A = A * np.tril(np.ones((n, n)))  # zeroes the future after the softmax, rows no longer sum to 1
        outs.append(A @ (X @ Wv[:, g * d_head:(g + 1) * d_head]))
    return np.concatenate(outs, axis=1) @ Wo


def gqa_weights_transposed(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    n, d_head = X.shape[0], Wq.shape[1] // n_heads
    r = n_heads // n_kv_heads
    outs = []
    for h in range(n_heads):
        g = h // r
        S = (X @ Wq[:, h * d_head:(h + 1) * d_head]) @ (X @ Wk[:, g * d_head:(g + 1) * d_head]).T / np.sqrt(d_head)
        if causal:
            S = S + np.triu(np.full((n, n), -np.inf), k=1)
        E = np.exp(S - S.max(axis=1, keepdims=True))
        outs.append((E / E.sum(axis=1, keepdims=True)).T @ (X @ Wv[:, g * d_head:(g + 1) * d_head]))
    return np.concatenate(outs, axis=1) @ Wo


def gqa_einsum_wrong_group_axis(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    n, d_head = X.shape[0], Wq.shape[1] // n_heads
    r = n_heads // n_kv_heads
    Q = (X @ Wq).reshape(n, r, n_kv_heads, d_head)  # heads split as (r, groups): head h lands in group h % n_kv_heads
    K = (X @ Wk).reshape(n, n_kv_heads, d_head)
    V = (X @ Wv).reshape(n, n_kv_heads, d_head)
    S = np.einsum("irgd,jgd->rgij", Q, K) / np.sqrt(d_head)
    if causal:
        S = S + np.triu(np.full((n, n), -np.inf), k=1)
    E = np.exp(S - S.max(axis=-1, keepdims=True))
    O = np.einsum("rgij,jgd->irgd", E / E.sum(axis=-1, keepdims=True), V)
    return O.reshape(n, -1) @ Wo


def gqa_concat_rows(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    d_head = Wq.shape[1] // n_heads
    r = n_heads // n_kv_heads
    outs = [attend(X @ Wq[:, h * d_head:(h + 1) * d_head], X @ Wk[:, (h // r) * d_head:(h // r + 1) * d_head],
                   X @ Wv[:, (h // r) * d_head:(h // r + 1) * d_head], causal) for h in range(n_heads)]
    return np.concatenate(outs) @ Wo  # axis 0: heads stacked as extra rows


def gqa_int_output(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    n, d_head = X.shape[0], Wq.shape[1] // n_heads
    r = n_heads // n_kv_heads
    M = np.zeros((n, n_heads * d_head), dtype=int)  # integer buffer: head outputs truncated toward 0
    for h in range(n_heads):
        g = h // r
        M[:, h * d_head:(h + 1) * d_head] = attend(X @ Wq[:, h * d_head:(h + 1) * d_head],
                                                   X @ Wk[:, g * d_head:(g + 1) * d_head],
                                                   X @ Wv[:, g * d_head:(g + 1) * d_head], causal)
    return M @ Wo


# ============================================================================
# grouped_cache_step(q, k, v, K_cache, V_cache): mistakes
# ============================================================================

def _gcs(q, k, v, K_cache, V_cache, group=None, v_group=None, scale=None, query=None):
    """A learner's loop with pluggable pieces (used by the routing and scale mistakes below)."""
    n_heads, d_head = q.shape
    n_kv = k.shape[0]
    r = n_heads // n_kv
    K_new = np.concatenate([K_cache, k[:, None, :]], axis=1)
    V_new = np.concatenate([V_cache, v[:, None, :]], axis=1)
    o = np.zeros((n_heads, d_head))
    for h in range(n_heads):
        g = h // r if group is None else group(h)
        gv = g if v_group is None else v_group(h)
        qh = q[h] if query is None else q[query(h)]
        s = K_new[g] @ qh / (np.sqrt(d_head) if scale is None else scale)
        a = np.exp(s - s.max())
        o[h] = a / a.sum() @ V_new[gv]
    return o, K_new, V_new


def gcs_group_mod(q, k, v, K_cache, V_cache):
    n_kv = k.shape[0]
    return _gcs(q, k, v, K_cache, V_cache, group=lambda h: h % n_kv)


def gcs_group_div_nkv(q, k, v, K_cache, V_cache):
    n_kv = k.shape[0]
    return _gcs(q, k, v, K_cache, V_cache, group=lambda h: h // n_kv)


def gcs_v_group_mod(q, k, v, K_cache, V_cache):
    n_kv = k.shape[0]
    return _gcs(q, k, v, K_cache, V_cache, v_group=lambda h: h % n_kv)


def gcs_query_by_group(q, k, v, K_cache, V_cache):
    r = q.shape[0] // k.shape[0]
    return _gcs(q, k, v, K_cache, V_cache, query=lambda h: h // r)  # q[g] instead of q[h]


def gcs_scale_total_width(q, k, v, K_cache, V_cache):
    return _gcs(q, k, v, K_cache, V_cache, scale=np.sqrt(q.size))


def gcs_no_scale(q, k, v, K_cache, V_cache):
    return _gcs(q, k, v, K_cache, V_cache, scale=1.0)


def gcs_scale_by_d_head(q, k, v, K_cache, V_cache):
    return _gcs(q, k, v, K_cache, V_cache, scale=q.shape[1])


def gcs_scale_by_length(q, k, v, K_cache, V_cache):
    t = K_cache.shape[1]
    return _gcs(q, k, v, K_cache, V_cache, scale=np.sqrt(t + 1))  # d_head read from the wrong axis (t + 1 rows)


def gcs_d_head_from_cache_axis1(q, k, v, K_cache, V_cache):
    n_kv, d_head = K_cache.shape[0], K_cache.shape[1]  # axis 1 is t, not d_head
    n_heads = q.shape[0]
    r = n_heads // n_kv
    K_new = np.concatenate([K_cache, k[:, None, :]], axis=1)
    V_new = np.concatenate([V_cache, v[:, None, :]], axis=1)
    outs = []
    for h in range(n_heads):
        s = K_new[h // r] @ q[h] / np.sqrt(d_head)
        a = np.exp(s - s.max())
        outs.append(a / a.sum() @ V_new[h // r])
    return np.array(outs), K_new, V_new


def gcs_cache_repeated(q, k, v, K_cache, V_cache):
    n_heads, n_kv = q.shape[0], k.shape[0]
    r = n_heads // n_kv
    # repeat the new rows to one per query head before storing: the cache grows to n_heads entries
    k_rep, v_rep = np.repeat(k, r, axis=0), np.repeat(v, r, axis=0)
    if K_cache.shape[0] != n_heads:
        K_cache, V_cache = np.repeat(K_cache, r, axis=0), np.repeat(V_cache, r, axis=0)
    K_new = np.concatenate([K_cache, k_rep[:, None]], axis=1)
    V_new = np.concatenate([V_cache, v_rep[:, None]], axis=1)
    o = np.stack([attend_step(q[h], K_new[h], V_new[h]) for h in range(n_heads)])
    return o, K_new, V_new


def gcs_append_axis0(q, k, v, K_cache, V_cache):
    K_new = np.concatenate([K_cache, k[None]], axis=0)  # the new token added as an extra group
    V_new = np.concatenate([V_cache, v[None]], axis=0)
    r = q.shape[0] // k.shape[0]
    o = np.stack([attend_step(q[h], K_new[h // r], V_new[h // r]) for h in range(q.shape[0])])
    return o, K_new, V_new


def gcs_prepend(q, k, v, K_cache, V_cache):
    K_new = np.concatenate([k[:, None], K_cache], axis=1)  # the new row put first
    V_new = np.concatenate([v[:, None], V_cache], axis=1)
    r = q.shape[0] // k.shape[0]
    o = np.stack([attend_step(q[h], K_new[h // r], V_new[h // r]) for h in range(q.shape[0])])
    return o, K_new, V_new


def gcs_attend_before_append(q, k, v, K_cache, V_cache):
    r = q.shape[0] // k.shape[0]
    o = np.stack([attend_step(q[h], K_cache[h // r], V_cache[h // r]) for h in range(q.shape[0])])
    K_new = np.concatenate([K_cache, k[:, None]], axis=1)
    V_new = np.concatenate([V_cache, v[:, None]], axis=1)
    return o, K_new, V_new


def gcs_returns_old_caches(q, k, v, K_cache, V_cache):
    r = q.shape[0] // k.shape[0]
    K_new = np.concatenate([K_cache, k[:, None]], axis=1)
    V_new = np.concatenate([V_cache, v[:, None]], axis=1)
    o = np.stack([attend_step(q[h], K_new[h // r], V_new[h // r]) for h in range(q.shape[0])])
    return o, K_cache, V_cache


def gcs_new_token_twice(q, k, v, K_cache, V_cache):
    r = q.shape[0] // k.shape[0]
    K_new = np.concatenate([K_cache, k[:, None]], axis=1)
    V_new = np.concatenate([V_cache, v[:, None]], axis=1)
    o = np.stack([attend_step(q[h], np.vstack([K_new[h // r], k[h // r]]), np.vstack([V_new[h // r], v[h // r]]))
                  for h in range(q.shape[0])])  # appends the new row again for the attention
    return o, K_new, V_new


def gcs_new_token_only(q, k, v, K_cache, V_cache):
    r = q.shape[0] // k.shape[0]
    K_new = np.concatenate([K_cache, k[:, None]], axis=1)
    V_new = np.concatenate([V_cache, v[:, None]], axis=1)
    o = np.stack([v[h // r] for h in range(q.shape[0])])  # attends over the new token alone
    return o, K_new, V_new


def gcs_drops_oldest(q, k, v, K_cache, V_cache):
    r = q.shape[0] // k.shape[0]
    K_new = np.concatenate([K_cache[:, 1:], k[:, None]], axis=1)  # keeps the cache at t rows
    V_new = np.concatenate([V_cache[:, 1:], v[:, None]], axis=1)
    o = np.stack([attend_step(q[h], K_new[h // r], V_new[h // r]) for h in range(q.shape[0])])
    return o, K_new, V_new


def gcs_v_from_k(q, k, v, K_cache, V_cache):
    r = q.shape[0] // k.shape[0]
    K_new = np.concatenate([K_cache, k[:, None]], axis=1)
    V_new = np.concatenate([V_cache, k[:, None]], axis=1)  # copy-paste: k appended to the values
    o = np.stack([attend_step(q[h], K_new[h // r], V_new[h // r]) for h in range(q.shape[0])])
    return o, K_new, V_new


def gcs_weights_times_keys(q, k, v, K_cache, V_cache):
    r = q.shape[0] // k.shape[0]
    K_new = np.concatenate([K_cache, k[:, None]], axis=1)
    V_new = np.concatenate([V_cache, v[:, None]], axis=1)
    o = np.stack([attend_step(q[h], K_new[h // r], K_new[h // r]) for h in range(q.shape[0])])  # sums keys
    return o, K_new, V_new


def gcs_order_k_v_o(q, k, v, K_cache, V_cache):
    o, K_new, V_new = gcs_ok_loop(q, k, v, K_cache, V_cache)
    return K_new, V_new, o


def gcs_order_o_v_k(q, k, v, K_cache, V_cache):
    o, K_new, V_new = gcs_ok_loop(q, k, v, K_cache, V_cache)
    return o, V_new, K_new


def gcs_output_flat(q, k, v, K_cache, V_cache):
    o, K_new, V_new = gcs_ok_loop(q, k, v, K_cache, V_cache)
    return o.reshape(-1), K_new, V_new  # heads concatenated into one (n_heads * d_head,) row


def gcs_scales_q_in_place(q, k, v, K_cache, V_cache):
    n_heads, d_head = q.shape
    r = n_heads // k.shape[0]
    q /= np.sqrt(d_head)  # modifies the caller's q
    K_new = np.concatenate([K_cache, k[:, None]], axis=1)
    V_new = np.concatenate([V_cache, v[:, None]], axis=1)
    o = np.empty_like(q)
    for h in range(n_heads):
        s = K_new[h // r] @ q[h]
        a = np.exp(s - s.max())
        o[h] = a @ V_new[h // r] / a.sum()
    return o, K_new, V_new


def gcs_overwrites_last_row(q, k, v, K_cache, V_cache):
    r = q.shape[0] // k.shape[0]
    K_new, V_new = K_cache, V_cache
    if K_cache.shape[1] == 0:
        K_new, V_new = k[:, None].copy(), v[:, None].copy()
    else:
        K_new[:, -1], V_new[:, -1] = k, v  # writes over the caller's last row instead of appending
    o = np.stack([attend_step(q[h], K_new[h // r], V_new[h // r]) for h in range(q.shape[0])])
    return o, K_new, V_new


def gcs_np_append_flat(q, k, v, K_cache, V_cache):
    r = q.shape[0] // k.shape[0]
    K_new = np.append(K_cache, k)  # no axis: everything flattened to 1-D
    V_new = np.append(V_cache, v)
    Kg = K_new.reshape(k.shape[0], -1, k.shape[1])
    Vg = V_new.reshape(v.shape[0], -1, v.shape[1])
    o = np.stack([attend_step(q[h], Kg[h // r], Vg[h // r]) for h in range(q.shape[0])])
    return o, K_new, V_new


def gcs_np_append_missing_axis(q, k, v, K_cache, V_cache):
    K_new = np.append(K_cache, k, axis=1)  # k is (n_kv, d_head), needs a token axis: shape error
    V_new = np.append(V_cache, v, axis=1)
    r = q.shape[0] // k.shape[0]
    o = np.stack([attend_step(q[h], K_new[h // r], V_new[h // r]) for h in range(q.shape[0])])
    return o, K_new, V_new


def gcs_causal_mask_on_heads(q, k, v, K_cache, V_cache):
    n_heads, d_head = q.shape
    r = n_heads // k.shape[0]
    K_new = np.concatenate([K_cache, k[:, None]], axis=1)
    V_new = np.concatenate([V_cache, v[:, None]], axis=1)
    Kh, Vh = np.repeat(K_new, r, axis=0), np.repeat(V_new, r, axis=0)
    S = np.einsum("hd,htd->ht", q, Kh) / np.sqrt(d_head)  # (n_heads, t + 1)
    S = S + np.triu(np.full(S.shape, -np.inf), k=1)  # the habitual causal mask: head h sees only tokens 0..h
    A = np.exp(S - S.max(axis=1, keepdims=True))
    A /= A.sum(axis=1, keepdims=True)
    return np.einsum("ht,htd->hd", A, Vh), K_new, V_new


def _gcs_vec(q, k, v, K_cache, V_cache, axis=1, keepdims=True, no_max=False):
    n_heads, d_head = q.shape
    r = n_heads // k.shape[0]
    K_new = np.concatenate([K_cache, k[:, None]], axis=1)
    V_new = np.concatenate([V_cache, v[:, None]], axis=1)
    Kh, Vh = np.repeat(K_new, r, axis=0), np.repeat(V_new, r, axis=0)
    S = np.einsum("hd,htd->ht", q, Kh) / np.sqrt(d_head)
    E = np.exp(S) if no_max else np.exp(S - S.max(axis=axis, keepdims=True))
    A = E / (E.sum(axis=axis, keepdims=True) if keepdims else E.sum(axis=axis))
    return np.einsum("ht,htd->hd", A, Vh), K_new, V_new


def gcs_softmax_over_heads(q, k, v, K_cache, V_cache):
    return _gcs_vec(q, k, v, K_cache, V_cache, axis=0)


def gcs_sum_no_keepdims(q, k, v, K_cache, V_cache):
    return _gcs_vec(q, k, v, K_cache, V_cache, keepdims=False)


def gcs_softmax_no_max(q, k, v, K_cache, V_cache):
    return _gcs_vec(q, k, v, K_cache, V_cache, no_max=True)


def gcs_reshape_wrong_grouping(q, k, v, K_cache, V_cache):
    n_heads, d_head = q.shape
    n_kv = k.shape[0]
    r = n_heads // n_kv
    K_new = np.concatenate([K_cache, k[:, None]], axis=1)
    V_new = np.concatenate([V_cache, v[:, None]], axis=1)
    Qg = q.reshape(r, n_kv, d_head)  # (r, groups) order: head h lands in group h % n_kv
    S = np.einsum("rgd,gtd->rgt", Qg, K_new) / np.sqrt(d_head)
    A = np.exp(S - S.max(axis=-1, keepdims=True))
    A /= A.sum(axis=-1, keepdims=True)
    return np.einsum("rgt,gtd->rgd", A, V_new).reshape(n_heads, d_head), K_new, V_new


def gcs_heads_from_k(q, k, v, K_cache, V_cache):
    n_heads, d_head = k.shape  # n_heads read from k: only n_kv_heads outputs
    K_new = np.concatenate([K_cache, k[:, None]], axis=1)
    V_new = np.concatenate([V_cache, v[:, None]], axis=1)
    o = np.stack([attend_step(q[h], K_new[h], V_new[h]) for h in range(n_heads)])
    return o, K_new, V_new


def gcs_group_size_inverted(q, k, v, K_cache, V_cache):
    r = k.shape[0] // q.shape[0]  # 0 when there are fewer groups than heads
    K_new = np.concatenate([K_cache, k[:, None]], axis=1)
    V_new = np.concatenate([V_cache, v[:, None]], axis=1)
    o = np.stack([attend_step(q[h], K_new[h // r], V_new[h // r]) for h in range(q.shape[0])])
    return o, K_new, V_new


def gcs_mean_queries(q, k, v, K_cache, V_cache):
    n_heads, d_head = q.shape
    n_kv = k.shape[0]
    r = n_heads // n_kv
    K_new = np.concatenate([K_cache, k[:, None]], axis=1)
    V_new = np.concatenate([V_cache, v[:, None]], axis=1)
    qg = q.reshape(n_kv, r, d_head).mean(axis=1)  # one averaged query per group
    og = np.stack([attend_step(qg[g], K_new[g], V_new[g]) for g in range(n_kv)])
    return np.repeat(og, r, axis=0), K_new, V_new


def gcs_int_output(q, k, v, K_cache, V_cache):
    n_heads, d_head = q.shape
    r = n_heads // k.shape[0]
    K_new = np.concatenate([K_cache, k[:, None]], axis=1)
    V_new = np.concatenate([V_cache, v[:, None]], axis=1)
    o = np.zeros((n_heads, d_head), dtype=int)  # integer buffer: outputs truncated toward 0
    for h in range(n_heads):
        o[h] = attend_step(q[h], K_new[h // r], V_new[h // r])
    return o, K_new, V_new


def gcs_weights_not_normalised(q, k, v, K_cache, V_cache):
    n_heads, d_head = q.shape
    r = n_heads // k.shape[0]
    K_new = np.concatenate([K_cache, k[:, None]], axis=1)
    V_new = np.concatenate([V_cache, v[:, None]], axis=1)
    o = np.empty((n_heads, d_head))
    for h in range(n_heads):
        s = K_new[h // r] @ q[h] / np.sqrt(d_head)
        o[h] = np.exp(s - s.max()) @ V_new[h // r]  # forgot to divide by the sum
    return o, K_new, V_new


# ============================================================================
# sliding_window_mask(n, window): mistakes
# ============================================================================

def swm_window_plus_one(n, window):
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    return np.where((j <= i) & (j >= i - window), 0.0, -np.inf)  # i - window <= j: window + 1 positions


def swm_window_minus_one(n, window):
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    return np.where((j <= i) & (j > i - window + 1), 0.0, -np.inf)  # window - 1 positions


def swm_excludes_self(n, window):
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    return np.where((j < i) & (j >= i - window), 0.0, -np.inf)  # the window previous positions, not itself


def swm_symmetric_band(n, window):
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    return np.where(np.abs(i - j) < window, 0.0, -np.inf)  # |i - j| < window: the future too


def swm_symmetric_band_le(n, window):
    idx = np.arange(n)
    return np.where(np.abs(np.subtract.outer(idx, idx)) <= window, 0.0, -np.inf)


def swm_no_upper_bound(n, window):
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    return np.where(i - j < window, 0.0, -np.inf)  # drops the causal half: every future column allowed


def swm_transposed(n, window):
    i, j = np.indices((n, n))
    return np.where((i <= j) & (i > j - window), 0.0, -np.inf)  # i and j swapped: the upper band


def swm_causal_only(n, window):
    return np.triu(np.full((n, n), -np.inf), k=1)  # the window ignored


def swm_window_only_diagonal(n, window):
    M = np.full((n, n), -np.inf)
    np.fill_diagonal(M, 0.0)  # "window = 1 means itself": only the diagonal, for any window
    return M


def swm_bool_allowed(n, window):
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    return (j <= i) & (j > i - window)  # a boolean mask, True where allowed


def swm_multiplicative(n, window):
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    return ((j <= i) & (j > i - window)).astype(float)  # 1.0 where allowed, 0.0 elsewhere


def swm_large_negative(n, window):
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    return np.where((j <= i) & (j > i - window), 0.0, -1e9)  # -1e9 instead of -inf


def swm_inverted(n, window):
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    allowed = (j <= i) & (j > i - window)
    return np.where(allowed, -np.inf, 0.0)  # arguments of np.where swapped


def swm_nan_from_zero_times_inf(n, window):
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    blocked = ~((j <= i) & (j > i - window))
    return -np.inf * blocked.astype(float)  # 0 * -inf is NaN where allowed


def swm_tril_triu_k_minus_window(n, window):
    band = np.triu(np.tril(np.ones((n, n))), k=-window)  # k = -window keeps j = i - window too
    return np.where(band == 1, 0.0, -np.inf)


def swm_tril_triu_k_plus(n, window):
    band = np.tril(np.triu(np.ones((n, n)), k=window - 1))  # sign of k wrong: j >= i + window - 1
    return np.where(band > 0, 0.0, -np.inf)


def swm_two_triangles_k_off(n, window):
    return np.triu(np.full((n, n), -np.inf), k=1) + np.tril(np.full((n, n), -np.inf), k=-window - 1)


def swm_two_triangles_k_under(n, window):
    return np.triu(np.full((n, n), -np.inf), k=1) + np.tril(np.full((n, n), -np.inf), k=-window + 1)


def swm_two_triangles_diag(n, window):
    return np.triu(np.full((n, n), -np.inf), k=0) + np.tril(np.full((n, n), -np.inf), k=-window)  # k=0 hides i


def swm_loop_negative_start(n, window):
    M = np.full((n, n), -np.inf)
    for i in range(n):
        M[i, i - window + 1:i + 1] = 0.0  # negative start near the top wraps to the end: an empty slice
    return M


def swm_loop_range_plus_one(n, window):
    M = np.full((n, n), -np.inf)
    for i in range(n):
        for j in range(max(0, i - window), i + 1):  # from i - window: window + 1 positions
            M[i, j] = 0.0
    return M


def swm_loop_start_at_window(n, window):
    M = np.full((n, n), -np.inf)
    for i in range(n):
        for j in range(i - window + 1 if i >= window else 0, i):  # stops before i: the row never sees itself
            M[i, j] = 0.0
    return M


def swm_int_dtype(n, window):
    M = np.zeros((n, n), dtype=int)
    for i in range(n):
        for j in range(n):
            if not (i - window < j <= i):
                M[i, j] = -np.inf  # an integer array cannot hold -inf: OverflowError
    return M


def swm_window_clipped_n_minus_1(n, window):
    window = min(window, n - 1)  # clips to n - 1: the last row loses column 0 when window >= n (and n = 1 sees nothing)
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    return np.where((j <= i) & (j > i - window), 0.0, -np.inf)


def swm_diagonals_from_one(n, window):
    M = np.full((n, n), -np.inf)
    for d in range(1, window + 1):  # offsets 1..window below the diagonal, the diagonal itself forgotten
        idx = np.arange(d, n)
        M[idx, idx - d] = 0.0
    return M


def swm_diagonals_upward(n, window):
    M = np.full((n, n), -np.inf)
    for d in range(window):
        idx = np.arange(n - d)
        M[idx, idx + d] = 0.0  # diagonals above the main one: the next window - 1 positions
    return M


def swm_distance_from_start(n, window):
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    return np.where((j <= i) & (j < window), 0.0, -np.inf)  # the first window positions, not the last


def swm_shape_n_by_window(n, window):
    M = np.zeros((n, window))  # one column per window slot
    for i in range(n):
        M[i, :max(0, window - i - 1)] = -np.inf
    return M


def swm_row_minus_col_le(n, window):
    i, j = np.ogrid[:n, :n]
    return np.where((i - j >= 0) & (i - j <= window), 0.0, -np.inf)  # i - j <= window: window + 1 positions


def swm_window_fraction(n, window):
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    return np.where((j <= i) & (j > i - window // 2), 0.0, -np.inf)  # half the window back (centred-window habit)


# ============================================================================
# rolling_cache_step(q, k, v, K_cache, V_cache, window, n_sinks=0): mistakes
# ============================================================================

def _cut(M, window, n_sinks):
    return M if len(M) <= window else np.concatenate([M[:n_sinks], M[len(M) - (window - n_sinks):]])


def rcs_keeps_oldest(q, k, v, K_cache, V_cache, window, n_sinks=0):
    K, V = np.vstack([K_cache, k]), np.vstack([V_cache, v])
    K, V = K[:window], V[:window]  # the first window rows: the new token is the one dropped
    return attend_step(q, K, V), K, V


def rcs_cut_at_window(q, k, v, K_cache, V_cache, window, n_sinks=0):
    K, V = np.vstack([K_cache, k]), np.vstack([V_cache, v])
    if len(K) >= window:  # >= instead of >: cuts one row too many
        K = np.concatenate([K[:n_sinks], K[len(K) - (window - n_sinks) + 1:]])
        V = np.concatenate([V[:n_sinks], V[len(V) - (window - n_sinks) + 1:]])
    return attend_step(q, K, V), K, V


def rcs_cut_before_append(q, k, v, K_cache, V_cache, window, n_sinks=0):
    K, V = _cut(K_cache, window, n_sinks), _cut(V_cache, window, n_sinks)  # cut first (never needed), then append
    K, V = np.vstack([K, k]), np.vstack([V, v])
    return attend_step(q, K, V), K, V


def rcs_sinks_ignored(q, k, v, K_cache, V_cache, window, n_sinks=0):
    K, V = np.vstack([K_cache, k])[-window:], np.vstack([V_cache, v])[-window:]  # n_sinks never used
    return attend_step(q, K, V), K, V


def rcs_sinks_outside_window(q, k, v, K_cache, V_cache, window, n_sinks=0):
    K, V = np.vstack([K_cache, k]), np.vstack([V_cache, v])
    if len(K) > window:
        K = np.concatenate([K[:n_sinks], K[-window:]])  # the sinks plus a full window: window + n_sinks rows
        V = np.concatenate([V[:n_sinks], V[-window:]])
    return attend_step(q, K, V), K, V


def rcs_sinks_outside_window_dedup(q, k, v, K_cache, V_cache, window, n_sinks=0):
    K, V = np.vstack([K_cache, k]), np.vstack([V_cache, v])
    if len(K) > window + n_sinks:  # the cache may grow to window + n_sinks rows
        K = np.concatenate([K[:n_sinks], K[len(K) - window:]])
        V = np.concatenate([V[:n_sinks], V[len(V) - window:]])
    return attend_step(q, K, V), K, V


def rcs_newest_as_sinks(q, k, v, K_cache, V_cache, window, n_sinks=0):
    K, V = np.vstack([K_cache, k]), np.vstack([V_cache, v])
    if len(K) > window:  # roles swapped: the oldest window - n_sinks rows and the n_sinks newest
        K = np.concatenate([K[:window - n_sinks], K[len(K) - n_sinks:]])
        V = np.concatenate([V[:window - n_sinks], V[len(V) - n_sinks:]])
    return attend_step(q, K, V), K, V


def rcs_minus_zero_slice(q, k, v, K_cache, V_cache, window, n_sinks=0):
    if len(K_cache) < window:
        K, V = np.vstack([K_cache, k]), np.vstack([V_cache, v])
    else:  # full: keep the sinks and the last window - n_sinks - 1 old rows, then add the new one
        keep = window - n_sinks - 1  # when this is 0, K_cache[-0:] is the WHOLE cache, not an empty slice
        K = np.vstack([K_cache[:n_sinks], K_cache[-keep:], k])
        V = np.vstack([V_cache[:n_sinks], V_cache[-keep:], v])
    return attend_step(q, K, V), K, V


def rcs_uncut_attention(q, k, v, K_cache, V_cache, window, n_sinks=0):
    K, V = np.vstack([K_cache, k]), np.vstack([V_cache, v])
    o = attend_step(q, K, V)  # attends over all t + 1 rows, before the cut
    return o, _cut(K, window, n_sinks), _cut(V, window, n_sinks)


def rcs_returns_uncut(q, k, v, K_cache, V_cache, window, n_sinks=0):
    K, V = np.vstack([K_cache, k]), np.vstack([V_cache, v])
    Kc, Vc = _cut(K, window, n_sinks), _cut(V, window, n_sinks)
    return attend_step(q, Kc, Vc), K, V  # returns the caches before the cut


def rcs_length_before_append(q, k, v, K_cache, V_cache, window, n_sinks=0):
    t = len(K_cache)
    K, V = np.vstack([K_cache, k]), np.vstack([V_cache, v])
    if t > window:  # the old length: never true as t <= window, so nothing is ever dropped
        K, V = _cut(K, window, n_sinks), _cut(V, window, n_sinks)
    return attend_step(q, K, V), K, V


def rcs_attend_before_append(q, k, v, K_cache, V_cache, window, n_sinks=0):
    o = attend_step(q, K_cache, V_cache)  # the new token not yet in the cache
    K, V = np.vstack([K_cache, k]), np.vstack([V_cache, v])
    return o, _cut(K, window, n_sinks), _cut(V, window, n_sinks)


def rcs_excludes_current(q, k, v, K_cache, V_cache, window, n_sinks=0):
    K, V = _cut(np.vstack([K_cache, k]), window, n_sinks), _cut(np.vstack([V_cache, v]), window, n_sinks)
    return attend_step(q, K[:-1], V[:-1]), K, V  # the window without the current token


def rcs_prepend(q, k, v, K_cache, V_cache, window, n_sinks=0):
    K, V = np.vstack([k, K_cache]), np.vstack([v, V_cache])  # newest first
    K, V = _cut(K, window, n_sinks), _cut(V, window, n_sinks)
    return attend_step(q, K, V), K, V


def rcs_k_v_swapped(q, k, v, K_cache, V_cache, window, n_sinks=0):
    K, V = np.vstack([K_cache, v]), np.vstack([V_cache, k])  # v appended to the keys, k to the values
    K, V = _cut(K, window, n_sinks), _cut(V, window, n_sinks)
    return attend_step(q, K, V), K, V


def rcs_ring_overwrite(q, k, v, K_cache, V_cache, window, n_sinks=0):
    if len(K_cache) < window:
        K, V = np.vstack([K_cache, k]), np.vstack([V_cache, v])
    else:
        K, V = K_cache.copy(), V_cache.copy()
        K[n_sinks], V[n_sinks] = k, v  # a ring buffer: the oldest non-sink slot overwritten, rows out of order
    return attend_step(q, K, V), K, V


def rcs_ring_in_place(q, k, v, K_cache, V_cache, window, n_sinks=0):
    if len(K_cache) < window:
        K, V = np.vstack([K_cache, k]), np.vstack([V_cache, v])
    else:
        K, V = K_cache, V_cache
        K[n_sinks:] = np.roll(K[n_sinks:], -1, axis=0)  # shifts the caller's arrays in place
        V[n_sinks:] = np.roll(V[n_sinks:], -1, axis=0)
        K[-1], V[-1] = k, v
    return attend_step(q, K, V), K, V


def rcs_roll_wrong_way(q, k, v, K_cache, V_cache, window, n_sinks=0):
    if len(K_cache) < window:
        K, V = np.vstack([K_cache, k]), np.vstack([V_cache, v])
    else:
        K = np.roll(K_cache, 1, axis=0)  # +1 brings the last row to the front; the previous token is overwritten
        V = np.roll(V_cache, 1, axis=0)
        K[-1], V[-1] = k, v
    return attend_step(q, K, V), K, V


def rcs_replaces_newest(q, k, v, K_cache, V_cache, window, n_sinks=0):
    if len(K_cache) < window:
        K, V = np.vstack([K_cache, k]), np.vstack([V_cache, v])
    else:
        K, V = np.vstack([K_cache[:-1], k]), np.vstack([V_cache[:-1], v])  # drops the previous token, not the oldest
    return attend_step(q, K, V), K, V


def rcs_delete_last_sink(q, k, v, K_cache, V_cache, window, n_sinks=0):
    K, V = np.vstack([K_cache, k]), np.vstack([V_cache, v])
    if len(K) > window:
        K = np.delete(K, n_sinks - 1, axis=0)  # off by one: the last sink (with no sinks, row -1: the new token)
        V = np.delete(V, n_sinks - 1, axis=0)
    return attend_step(q, K, V), K, V


def rcs_delete_no_axis(q, k, v, K_cache, V_cache, window, n_sinks=0):
    K, V = np.vstack([K_cache, k]), np.vstack([V_cache, v])
    if len(K) > window:
        K, V = np.delete(K, n_sinks), np.delete(V, n_sinks)  # no axis: flattened, one number removed
        K, V = K[:window * len(k)].reshape(window, -1), V[:window * len(v)].reshape(window, -1)
    return attend_step(q, K, V), K, V


def rcs_sinks_plus_one(q, k, v, K_cache, V_cache, window, n_sinks=0):
    K, V = np.vstack([K_cache, k]), np.vstack([V_cache, v])
    if len(K) > window:
        K = np.concatenate([K[:n_sinks + 1], K[len(K) - (window - n_sinks):]])  # n_sinks + 1 rows kept at the front
        V = np.concatenate([V[:n_sinks + 1], V[len(V) - (window - n_sinks):]])
    return attend_step(q, K, V), K, V


def rcs_recent_minus_one(q, k, v, K_cache, V_cache, window, n_sinks=0):
    K, V = np.vstack([K_cache, k]), np.vstack([V_cache, v])
    if len(K) > window:
        K = np.concatenate([K[:n_sinks], K[len(K) - (window - n_sinks - 1):]])  # one recent row too few
        V = np.concatenate([V[:n_sinks], V[len(V) - (window - n_sinks - 1):]])
    return attend_step(q, K, V), K, V


def rcs_unconditional_cut(q, k, v, K_cache, V_cache, window, n_sinks=0):
    K, V = np.vstack([K_cache, k]), np.vstack([V_cache, v])
    # cut on every step, even before the cache is full: the sinks are repeated among the recent rows
    K = np.concatenate([K[:n_sinks], K[-(window - n_sinks):]])
    V = np.concatenate([V[:n_sinks], V[-(window - n_sinks):]])
    return attend_step(q, K, V), K, V


def rcs_scale_by_dv(q, k, v, K_cache, V_cache, window, n_sinks=0):
    K, V = _cut(np.vstack([K_cache, k]), window, n_sinks), _cut(np.vstack([V_cache, v]), window, n_sinks)
    s = K @ q / np.sqrt(V.shape[1])  # sqrt(d_v) instead of sqrt(d)
    a = np.exp(s - s.max())
    return a / a.sum() @ V, K, V


def rcs_no_scale(q, k, v, K_cache, V_cache, window, n_sinks=0):
    K, V = _cut(np.vstack([K_cache, k]), window, n_sinks), _cut(np.vstack([V_cache, v]), window, n_sinks)
    s = K @ q
    a = np.exp(s - s.max())
    return a / a.sum() @ V, K, V


def rcs_scale_by_window(q, k, v, K_cache, V_cache, window, n_sinks=0):
    K, V = _cut(np.vstack([K_cache, k]), window, n_sinks), _cut(np.vstack([V_cache, v]), window, n_sinks)
    s = K @ q / np.sqrt(window)
    a = np.exp(s - s.max())
    return a / a.sum() @ V, K, V


def rcs_softmax_no_max(q, k, v, K_cache, V_cache, window, n_sinks=0):
    K, V = _cut(np.vstack([K_cache, k]), window, n_sinks), _cut(np.vstack([V_cache, v]), window, n_sinks)
    a = np.exp(K @ q / np.sqrt(len(q)))
    return a / a.sum() @ V, K, V


def rcs_weights_times_keys(q, k, v, K_cache, V_cache, window, n_sinks=0):
    K, V = _cut(np.vstack([K_cache, k]), window, n_sinks), _cut(np.vstack([V_cache, v]), window, n_sinks)
    return attend_step(q, K, K), K, V  # the weighted sum of the keys


def rcs_order_k_v_o(q, k, v, K_cache, V_cache, window, n_sinks=0):
    o, K, V = rcs_ok_concat(q, k, v, K_cache, V_cache, window, n_sinks)
    return K, V, o


def rcs_order_o_v_k(q, k, v, K_cache, V_cache, window, n_sinks=0):
    o, K, V = rcs_ok_concat(q, k, v, K_cache, V_cache, window, n_sinks)
    return o, V, K


def rcs_int_buffer(q, k, v, K_cache, V_cache, window, n_sinks=0):
    rows = min(len(K_cache) + 1, window)
    K, V = np.zeros((rows, len(k)), dtype=int), np.zeros((rows, len(v)), dtype=int)  # integer buffers
    K[:], V[:] = _cut(np.vstack([K_cache, k]), window, n_sinks), _cut(np.vstack([V_cache, v]), window, n_sinks)
    return attend_step(q, K, V), K, V


def rcs_scales_q_in_place(q, k, v, K_cache, V_cache, window, n_sinks=0):
    q /= np.sqrt(q.shape[0])  # modifies the caller's q
    K, V = _cut(np.vstack([K_cache, k]), window, n_sinks), _cut(np.vstack([V_cache, v]), window, n_sinks)
    s = K @ q
    a = np.exp(s - s.max())
    return a / a.sum() @ V, K, V


def rcs_np_append_flat(q, k, v, K_cache, V_cache, window, n_sinks=0):
    K, V = np.append(K_cache, k), np.append(V_cache, v)  # no axis: flattened to 1-D
    K, V = K.reshape(-1, len(k)), V.reshape(-1, len(v))
    K, V = _cut(K, window, n_sinks), _cut(V, window, n_sinks)
    return attend_step(q, K, V), K.ravel(), V.ravel()


def rcs_mask_on_sinks(q, k, v, K_cache, V_cache, window, n_sinks=0):
    K, V = _cut(np.vstack([K_cache, k]), window, n_sinks), _cut(np.vstack([V_cache, v]), window, n_sinks)
    s = K @ q / np.sqrt(len(q))
    if len(K_cache) + 1 > window:
        s[:n_sinks] = -np.inf  # the sinks kept in the cache but hidden from the attention
    a = np.exp(s - s.max())
    return a / a.sum() @ V, K, V


# ---- grouped_query_attention: acceptable

def gqa_ok_loop_attend(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    d_head = Wq.shape[1] // n_heads
    group_size = n_heads // n_kv_heads
    outs = []
    for h in range(n_heads):
        g = h // group_size
        outs.append(attend(X @ Wq[:, h * d_head:(h + 1) * d_head], X @ Wk[:, g * d_head:(g + 1) * d_head],
                           X @ Wv[:, g * d_head:(g + 1) * d_head], causal))
    return np.concatenate(outs, axis=1) @ Wo


def gqa_ok_repeat_einsum(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    n, d_head = X.shape[0], Wq.shape[1] // n_heads
    r = n_heads // n_kv_heads
    Q = (X @ Wq).reshape(n, n_heads, d_head)
    K = np.repeat((X @ Wk).reshape(n, n_kv_heads, d_head), r, axis=1)  # group g for heads g*r .. g*r + r - 1
    V = np.repeat((X @ Wv).reshape(n, n_kv_heads, d_head), r, axis=1)
    S = np.einsum("ihd,jhd->hij", Q, K) / np.sqrt(d_head)
    if causal:
        S = np.where(np.arange(n)[None, :] > np.arange(n)[:, None], -np.inf, S)
    A = np.exp(S - S.max(axis=-1, keepdims=True))
    A /= A.sum(axis=-1, keepdims=True)
    return np.einsum("hij,jhd->ihd", A, V).reshape(n, -1) @ Wo


def gqa_ok_grouped_einsum(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    n, d_head = X.shape[0], Wq.shape[1] // n_heads
    r = n_heads // n_kv_heads
    Q = (X @ Wq).reshape(n, n_kv_heads, r, d_head)  # (n, group, head within group, d_head)
    K = (X @ Wk).reshape(n, n_kv_heads, d_head)
    V = (X @ Wv).reshape(n, n_kv_heads, d_head)
    S = np.einsum("igrd,jgd->grij", Q, K) / np.sqrt(d_head)
    if causal:
        S = S + np.triu(np.full((n, n), -1e9), k=1)
    E = np.exp(S - S.max(axis=-1, keepdims=True))
    O = np.einsum("grij,jgd->igrd", E / E.sum(axis=-1, keepdims=True), V)
    return O.reshape(n, n_heads * d_head) @ Wo


def gqa_ok_group_formula(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    d_head = Wq.shape[1] // n_heads
    Y = np.zeros((X.shape[0], Wo.shape[1]))
    for h in range(n_heads):
        g = h * n_kv_heads // n_heads  # the same integer as h // (n_heads // n_kv_heads)
        o = attend(X @ Wq[:, h * d_head:(h + 1) * d_head], X @ Wk[:, g * d_head:(g + 1) * d_head],
                   X @ Wv[:, g * d_head:(g + 1) * d_head], causal)
        Y += o @ Wo[h * d_head:(h + 1) * d_head]  # concatenation then Wo, written as a sum of row blocks
    return Y


def gqa_ok_per_group_batch(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    n, d_head = X.shape[0], Wq.shape[1] // n_heads
    r = n_heads // n_kv_heads
    M = np.empty((n, n_heads * d_head))
    for g in range(n_kv_heads):
        K = X @ Wk[:, g * d_head:(g + 1) * d_head]
        V = X @ Wv[:, g * d_head:(g + 1) * d_head]
        for h in range(g * r, (g + 1) * r):
            Q = X @ Wq[:, h * d_head:(h + 1) * d_head] / np.sqrt(d_head)  # scale folded into a new Q
            S = Q @ K.T
            for i in range(n):
                if causal:
                    S[i, i + 1:] = -np.inf
            S = S - S.max(axis=1, keepdims=True)
            A = np.exp(S) / np.exp(S).sum(axis=1, keepdims=True)
            M[:, h * d_head:(h + 1) * d_head] = A @ V
    return M @ Wo


def gqa_ok_row_loops_logsumexp(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    n, d_head = X.shape[0], Wq.shape[1] // n_heads
    r = n_heads // n_kv_heads
    X = np.asarray(X, dtype=np.float64)
    Qa, Ka, Va = X @ Wq, X @ Wk, X @ Wv
    heads = []
    for h in range(n_heads):
        g = h // r
        q, k, v = (Qa[:, h * d_head:(h + 1) * d_head], Ka[:, g * d_head:(g + 1) * d_head],
                   Va[:, g * d_head:(g + 1) * d_head])
        rows = []
        for i in range(n):
            last = i + 1 if causal else n
            s = k[:last] @ q[i] / np.sqrt(d_head)
            lse = s.max() + np.log(np.exp(s - s.max()).sum())
            rows.append(np.exp(s - lse) @ v[:last])
        heads.append(np.array(rows))
    return np.hstack(heads) @ Wo


def gqa_ok_expand_weights(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    d_head = Wq.shape[1] // n_heads
    r = n_heads // n_kv_heads
    # widen Wk and Wv to n_heads groups of columns (each group's block repeated r times), then lesson 09
    Wk_full = np.concatenate([Wk[:, (h // r) * d_head:(h // r + 1) * d_head] for h in range(n_heads)], axis=1)
    Wv_full = np.concatenate([Wv[:, (h // r) * d_head:(h // r + 1) * d_head] for h in range(n_heads)], axis=1)
    outs = [attend(X @ Wq[:, h * d_head:(h + 1) * d_head], X @ Wk_full[:, h * d_head:(h + 1) * d_head],
                   X @ Wv_full[:, h * d_head:(h + 1) * d_head], causal) for h in range(n_heads)]
    return np.concatenate(outs, axis=1) @ Wo


# ---- grouped_cache_step: acceptable

def gcs_ok_loop(q, k, v, K_cache, V_cache):
    n_heads, d_head = q.shape
    n_kv_heads = k.shape[0]
    K_new = np.concatenate([K_cache, k[:, None, :]], axis=1)
    V_new = np.concatenate([V_cache, v[:, None, :]], axis=1)
    o = np.zeros((n_heads, d_head))
    for h in range(n_heads):
        g = h // (n_heads // n_kv_heads)
        o[h] = attend_step(q[h], K_new[g], V_new[g])
    return o, K_new, V_new


def gcs_ok_repeat_einsum(q, k, v, K_cache, V_cache):
    n_heads, d_head = q.shape
    r = n_heads // k.shape[0]
    K_new = np.append(K_cache, k[:, np.newaxis], axis=1)
    V_new = np.append(V_cache, v[:, np.newaxis], axis=1)
    Kh, Vh = np.repeat(K_new, r, axis=0), np.repeat(V_new, r, axis=0)  # for the attention only, not stored
    S = np.einsum("hd,htd->ht", q, Kh) / np.sqrt(d_head)
    A = np.exp(S - S.max(axis=1, keepdims=True))
    return np.einsum("ht,htd->hd", A / A.sum(axis=1, keepdims=True), Vh), K_new, V_new


def gcs_ok_grouped_reshape(q, k, v, K_cache, V_cache):
    n_heads, d_head = q.shape
    n_kv, t = K_cache.shape[0], K_cache.shape[1]
    K_new = np.empty((n_kv, t + 1, d_head))
    K_new[:, :t], K_new[:, t] = K_cache, k
    V_new = np.empty((n_kv, t + 1, V_cache.shape[2]))
    V_new[:, :t], V_new[:, t] = V_cache, v
    Qg = q.reshape(n_kv, n_heads // n_kv, d_head)  # (group, head within group, d_head)
    S = Qg @ K_new.transpose(0, 2, 1) / np.sqrt(d_head)  # (group, r, t + 1)
    A = np.exp(S - S.max(axis=-1, keepdims=True))
    A /= A.sum(axis=-1, keepdims=True)
    return (A @ V_new).reshape(n_heads, -1), K_new, V_new


def gcs_ok_group_formula(q, k, v, K_cache, V_cache):
    n_heads, n_kv = q.shape[0], k.shape[0]
    K_new = np.stack([np.vstack([K_cache[g], k[g]]) for g in range(n_kv)])
    V_new = np.stack([np.vstack([V_cache[g], v[g]]) for g in range(n_kv)])
    rows = []
    for h in range(n_heads):
        g = (h * n_kv) // n_heads
        s = K_new[g] @ q[h] * (1.0 / np.sqrt(q.shape[1]))
        lse = s.max() + np.log(np.sum(np.exp(s - s.max())))
        rows.append(np.exp(s - lse) @ V_new[g])
    return np.array(rows), K_new, V_new


def gcs_ok_old_plus_new(q, k, v, K_cache, V_cache):
    n_heads, d_head = q.shape
    r = n_heads // k.shape[0]
    o = np.empty((n_heads, v.shape[1]))
    for h in range(n_heads):
        g = h // r
        s_old = K_cache[g] @ q[h] / np.sqrt(d_head)  # the cached tokens...
        s_new = k[g] @ q[h] / np.sqrt(d_head)  # ...and the new token, combined in one softmax
        m = max(s_old.max(initial=-np.inf), s_new)
        e_old, e_new = np.exp(s_old - m), np.exp(s_new - m)
        o[h] = (e_old @ V_cache[g] + e_new * v[g]) / (e_old.sum() + e_new)
    return o, np.concatenate((K_cache, k[:, None]), axis=1), np.concatenate((V_cache, v[:, None]), axis=1)


def gcs_ok_hstack_loop(q, k, v, K_cache, V_cache):
    n_heads = len(q)
    group_size = n_heads // len(k)
    K_new = np.array([np.concatenate([K_cache[g], k[g:g + 1]]) for g in range(len(k))]).reshape(
        len(k), K_cache.shape[1] + 1, k.shape[1])
    V_new = np.array([np.concatenate([V_cache[g], v[g:g + 1]]) for g in range(len(v))]).reshape(
        len(v), V_cache.shape[1] + 1, v.shape[1])
    o = np.array([attend_step(q[h], K_new[h // group_size], V_new[h // group_size]) for h in range(n_heads)])
    return o, K_new, V_new


# ---- sliding_window_mask: acceptable

def swm_ok_where_broadcast(n, window):
    i = np.arange(n)[:, None]
    j = np.arange(n)[None, :]
    return np.where((i - window < j) & (j <= i), 0.0, -np.inf)


def swm_ok_two_triangles(n, window):
    future = np.triu(np.full((n, n), -np.inf), k=1)
    too_old = np.tril(np.full((n, n), -np.inf), k=-window)  # j <= i - window
    return future + too_old


def swm_ok_loops(n, window):
    M = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            if j > i or j <= i - window:
                M[i, j] = -np.inf
    return M


def swm_ok_slice_with_max(n, window):
    M = np.full((n, n), -np.inf)
    for i in range(n):
        M[i, max(0, i - window + 1):i + 1] = 0.0
    return M


def swm_ok_band_of_ones(n, window):
    band = np.tril(np.triu(np.ones((n, n)), k=-(window - 1)))  # diagonals -(window - 1) .. 0
    M = np.zeros((n, n))
    M[band == 0] = -np.inf
    return M


def swm_ok_log_of_band(n, window):
    i, j = np.indices((n, n))
    allowed = ((i - j) >= 0) & ((i - j) < window)
    with np.errstate(divide="ignore"):
        return np.log(allowed.astype(np.float64))  # log 1 = 0, log 0 = -inf


def swm_ok_diagonals(n, window):
    M = np.full((n, n), -np.inf)
    for d in range(min(window, n)):
        idx = np.arange(d, n)
        M[idx, idx - d] = 0.0  # diagonal d below the main one
    return M


def swm_ok_clip_window(n, window):
    w = min(window, n)  # a window past n changes nothing
    d = np.subtract.outer(np.arange(n), np.arange(n))  # i - j
    M = np.full((n, n), -np.inf)
    M[(d >= 0) & (d <= w - 1)] = 0
    return M.astype(float)


# ---- rolling_cache_step: acceptable

def rcs_ok_concat(q, k, v, K_cache, V_cache, window, n_sinks=0):
    K = np.concatenate([K_cache, k[None, :]], axis=0)
    V = np.concatenate([V_cache, v[None, :]], axis=0)
    if len(K) > window:
        K = np.concatenate([K[:n_sinks], K[len(K) - (window - n_sinks):]])
        V = np.concatenate([V[:n_sinks], V[len(V) - (window - n_sinks):]])
    return attend_step(q, K, V), K, V


def rcs_ok_evict_then_append(q, k, v, K_cache, V_cache, window, n_sinks=0):
    K, V = K_cache, V_cache
    if len(K) == window:  # full: make room first (row n_sinks is the oldest non-sink)
        K = np.concatenate([K[:n_sinks], K[n_sinks + 1:]])
        V = np.concatenate([V[:n_sinks], V[n_sinks + 1:]])
    K, V = np.vstack([K, k]), np.vstack([V, v])
    return attend_step(q, K, V), K, V


def rcs_ok_np_delete(q, k, v, K_cache, V_cache, window, n_sinks=0):
    K, V = np.append(K_cache, [k], axis=0), np.append(V_cache, [v], axis=0)
    while K.shape[0] > window:
        K, V = np.delete(K, n_sinks, axis=0), np.delete(V, n_sinks, axis=0)
    return attend_step(q, K, V), K, V


def rcs_ok_index_list(q, k, v, K_cache, V_cache, window, n_sinks=0):
    K, V = np.vstack([K_cache, k]), np.vstack([V_cache, v])
    n = len(K)
    keep = list(range(n)) if n <= window else list(range(n_sinks)) + list(range(n - (window - n_sinks), n))
    K, V = np.take(K, keep, axis=0), np.take(V, keep, axis=0)
    s = K @ q / np.sqrt(len(q))
    w = np.exp(s - np.max(s))
    return (w @ V) / w.sum(), K, V


def rcs_ok_boolean_keep(q, k, v, K_cache, V_cache, window, n_sinks=0):
    K, V = np.vstack([K_cache, k]), np.vstack([V_cache, v])
    pos = np.arange(len(K))
    keep = (pos < n_sinks) | (pos >= len(K) - (window - n_sinks))  # sinks, or among the newest window - n_sinks
    K, V = K[keep], V[keep]
    return attend_step(q, K, V), K, V


def rcs_ok_preallocated(q, k, v, K_cache, V_cache, window, n_sinks=0):
    t, d = K_cache.shape
    rows = min(t + 1, window)
    K, V = np.empty((rows, len(k))), np.empty((rows, len(v)))
    if t + 1 <= window:
        K[:t], V[:t] = K_cache, V_cache
    else:
        K[:n_sinks], V[:n_sinks] = K_cache[:n_sinks], V_cache[:n_sinks]
        K[n_sinks:-1], V[n_sinks:-1] = K_cache[n_sinks + 1:], V_cache[n_sinks + 1:]
    K[-1], V[-1] = k, v
    s = K @ q / np.sqrt(q.shape[0])
    s -= s.max()
    a = np.exp(s)
    return a @ V / a.sum(), K, V


def rcs_ok_old_plus_new(q, k, v, K_cache, V_cache, window, n_sinks=0):
    if len(K_cache) == window:
        kept = np.r_[0:n_sinks, n_sinks + 1:window]  # the rows that survive besides the new one
        K_old, V_old = K_cache[kept], V_cache[kept]
    else:
        K_old, V_old = K_cache, V_cache
    K, V = np.vstack([K_old, k]), np.vstack([V_old, v])
    s = K @ q / np.sqrt(len(q))
    lse = s.max() + np.log(np.exp(s - s.max()).sum())
    return np.exp(s - lse) @ V, K, V


GQA, GCS, SWM, RCS = "grouped_query_attention", "grouped_cache_step", "sliding_window_mask", "rolling_cache_step"

MISTAKES = [
    # ---- grouped_query_attention: routing of heads to groups
    Mistake(GQA, "query head h reads group h % n_kv_heads (groups interleaved) instead of h // (n_heads // n_kv_heads)",
            gqa_group_mod),
    Mistake(GQA, "query head h reads group h // n_kv_heads (divides by the number of groups, not the group size)",
            gqa_group_div_nkv),
    Mistake(GQA, "slices Wk and Wv at the query head's index h, as in lesson 09, instead of at its group",
            gqa_group_is_head),
    Mistake(GQA, "keys from the right group h // (n_heads // n_kv_heads) but values from group h % n_kv_heads",
            gqa_v_group_mod),
    Mistake(GQA, "keys from the right group but every head's values from group 0", gqa_v_group_zero),
    Mistake(GQA, "values from the right group but every head's keys from group 0 (Wk[:, :d_head])", gqa_k_group_zero),
    Mistake(GQA, "repeats the groups with np.tile (order 0, 1, .., 0, 1, ..) so head h reads group h % n_kv_heads",
            gqa_tile_heads),
    Mistake(GQA, "np.repeat on the columns of X @ Wk and X @ Wv (each column repeated) instead of on whole groups",
            gqa_repeat_columns),
    Mistake(GQA, "widens Wk and Wv with np.tile(W, (1, r)), so head h reads group h % n_kv_heads", gqa_tile_columns),
    Mistake(GQA, "splits the heads as (n, r, n_kv_heads, d_head) in an einsum, so head h reads group h % n_kv_heads",
            gqa_einsum_wrong_group_axis),
    Mistake(GQA, "group size computed upside down (n_kv_heads // n_heads = 0): ZeroDivisionError when "
            "n_kv_heads < n_heads", gqa_group_size_inverted),
    Mistake(GQA, "group size n_heads / n_kv_heads is a float, so the group index is a float and slicing raises "
            "TypeError", gqa_float_group_size),
    Mistake(GQA, "computes one head per group (the group's first query head) and copies its output to the whole "
            "group", gqa_first_query_of_group),
    Mistake(GQA, "averages the query heads of each group into one query and copies that output to the whole group",
            gqa_mean_queries),
    # ---- grouped_query_attention: how the heads are cut out
    Mistake(GQA, "takes every n_kv_heads-th column of Wk and Wv (Wk[:, g::n_kv_heads]) instead of the contiguous "
            "block g*d_head:(g+1)*d_head", gqa_kv_strided),
    Mistake(GQA, "reshapes to (n, d_head, n_heads) instead of (n, n_heads, d_head): every head gets strided "
            "columns", gqa_split_interleaved),
    Mistake(GQA, "d_head taken as d_model // n_heads (lesson 09's d_model = n_heads * d_head) instead of from Wq's "
            "width", gqa_d_head_from_d_model),
    Mistake(GQA, "d_head of the keys computed as Wk.shape[1] // n_heads (Wk has n_kv_heads groups), so queries and "
            "keys disagree in width", gqa_d_head_kv_by_n_heads),
    # ---- grouped_query_attention: scores, mask and softmax
    Mistake(GQA, "divides the scores by sqrt(d_model) instead of sqrt(d_head)", gqa_scale_d_model),
    Mistake(GQA, "does not divide the scores by sqrt(d_head)", gqa_no_scale),
    Mistake(GQA, "divides the scores by sqrt(n_heads * d_head) (all heads' width) instead of sqrt(d_head)",
            gqa_scale_total_width),
    Mistake(GQA, "divides the scores by d_head instead of sqrt(d_head)", gqa_scale_d_head_not_sqrt),
    Mistake(GQA, "divides the scores by sqrt(n_kv_heads * d_head) (Wk's width) instead of sqrt(d_head)",
            gqa_scale_group_width),
    Mistake(GQA, "applies the causal mask even when causal is False", gqa_always_causal),
    Mistake(GQA, "never applies the causal mask: rows see future tokens when causal is True", gqa_never_causal),
    Mistake(GQA, "causal mask with np.triu(k=0), which also hides the diagonal: row 0 sees nothing (NaN)",
            gqa_mask_k0),
    Mistake(GQA, "causal mask with np.triu(k=2): each row also sees the next token", gqa_mask_k2),
    Mistake(GQA, "causal mask with np.tril(k=-1): hides the past instead of the future", gqa_mask_past),
    Mistake(GQA, "zeroes the future weights after the softmax without renormalising the rows",
            gqa_weights_after_softmax_mask),
    Mistake(GQA, "softmax over the query axis (columns) instead of over each row", gqa_softmax_axis0),
    Mistake(GQA, "divides by E.sum(axis=-1) without keepdims, so column j is divided by row j's sum",
            gqa_sum_no_keepdims),
    Mistake(GQA, "softmax without subtracting the row max: overflows to NaN on large scores", gqa_softmax_no_max),
    Mistake(GQA, "scores K @ Q.T (keys by queries) instead of Q @ K.T", gqa_scores_k_by_q),
    Mistake(GQA, "uses the transposed weights, A.T @ V instead of A @ V", gqa_weights_transposed),
    # ---- grouped_query_attention: concatenation and Wo
    Mistake(GQA, "concatenates the head outputs in reverse order (last head first)", gqa_heads_reversed),
    Mistake(GQA, "forgets Wo: returns the concatenated heads (n, n_heads * d_head)", gqa_no_wo),
    Mistake(GQA, "np.stack(heads).reshape(n, -1) without moving the head axis: rows of different tokens mixed",
            gqa_stack_reshape),
    Mistake(GQA, "concatenates the heads along the rows (axis 0) instead of the columns: shape error at Wo",
            gqa_concat_rows),
    Mistake(GQA, "multiplies every head by Wo's first d_head rows and sums, instead of head h by rows "
            "h*d_head:(h+1)*d_head", gqa_wo_same_rows),
    Mistake(GQA, "multiplies head h by Wo's rows of its group g (g*d_head:(g+1)*d_head) instead of its own rows",
            gqa_wo_by_group),
    Mistake(GQA, "divides the output by n_heads (an 'average over heads' that does not belong)", gqa_heads_averaged),
    Mistake(GQA, "folds the scale into Wq in place (Wq /= sqrt(d_head)), modifying the caller's Wq",
            gqa_scales_wq_in_place),
    Mistake(GQA, "collects the head outputs in an integer array, truncating them toward 0", gqa_int_output),

    # ---- grouped_cache_step: routing
    Mistake(GCS, "query head h reads group h % n_kv_heads instead of h // (n_heads // n_kv_heads)", gcs_group_mod),
    Mistake(GCS, "query head h reads group h // n_kv_heads (divides by the number of groups, not the group size)",
            gcs_group_div_nkv),
    Mistake(GCS, "keys from the right group but values from group h % n_kv_heads", gcs_v_group_mod),
    Mistake(GCS, "uses the query of head g = h // r (q[g]) instead of q[h]: every head of a group gets the same output",
            gcs_query_by_group),
    Mistake(GCS, "splits q as (r, n_kv_heads, d_head) in an einsum, so head h reads group h % n_kv_heads",
            gcs_reshape_wrong_grouping),
    Mistake(GCS, "reads n_heads from k (n_kv_heads rows): returns only n_kv_heads outputs", gcs_heads_from_k),
    Mistake(GCS, "group size computed upside down (n_kv_heads // n_heads = 0): ZeroDivisionError when "
            "n_kv_heads < n_heads", gcs_group_size_inverted),
    Mistake(GCS, "averages the query heads of each group into one query and repeats that output", gcs_mean_queries),
    # ---- grouped_cache_step: the cache
    Mistake(GCS, "repeats k, v and the cache to n_heads before storing: the returned cache has n_heads entries, "
            "not n_kv_heads", gcs_cache_repeated),
    Mistake(GCS, "appends the new rows along axis 0 (as an extra group) instead of axis 1 (the tokens)",
            gcs_append_axis0),
    Mistake(GCS, "prepends the new token (first row) instead of appending it as the last row", gcs_prepend),
    Mistake(GCS, "attends over the old cache, before appending the new token (empty when t = 0)",
            gcs_attend_before_append),
    Mistake(GCS, "attends over the grown cache but returns the caches it was given, not the grown ones",
            gcs_returns_old_caches),
    Mistake(GCS, "appends the new key and value a second time for the attention (the new token counted twice)",
            gcs_new_token_twice),
    Mistake(GCS, "returns the new token's value v[g] for every head of group g (ignores the cached tokens)",
            gcs_new_token_only),
    Mistake(GCS, "drops the oldest cached row when appending: the cache stays at t rows (a window that was not asked "
            "for)", gcs_drops_oldest),
    Mistake(GCS, "appends k to the values as well (copy-paste), instead of v", gcs_v_from_k),
    Mistake(GCS, "writes the new row over the caller's last cached row instead of appending (modifies the inputs, "
            "cache does not grow)", gcs_overwrites_last_row),
    Mistake(GCS, "np.append without an axis: the returned caches are flattened to 1-D", gcs_np_append_flat),
    Mistake(GCS, "np.append(K_cache, k, axis=1) without giving k a token axis: ValueError", gcs_np_append_missing_axis),
    # ---- grouped_cache_step: scores and softmax
    Mistake(GCS, "divides the scores by sqrt(n_heads * d_head) (q.size) instead of sqrt(d_head)",
            gcs_scale_total_width),
    Mistake(GCS, "does not divide the scores by sqrt(d_head)", gcs_no_scale),
    Mistake(GCS, "divides the scores by d_head instead of sqrt(d_head)", gcs_scale_by_d_head),
    Mistake(GCS, "divides the scores by sqrt(t + 1) (the number of keys after appending) instead of sqrt(d_head)",
            gcs_scale_by_length),
    Mistake(GCS, "reads d_head from K_cache.shape[1], which is t: scale sqrt(t) (division by 0 when t = 0)",
            gcs_d_head_from_cache_axis1),
    Mistake(GCS, "adds a causal mask over the (n_heads, t + 1) scores, so head h sees only tokens 0..h",
            gcs_causal_mask_on_heads),
    Mistake(GCS, "softmax over the heads (axis 0) instead of over the tokens", gcs_softmax_over_heads),
    Mistake(GCS, "divides the (n_heads, t + 1) exponentials by E.sum(axis=1) without keepdims: token j divided by "
            "head j's sum, a broadcasting error unless t + 1 = n_heads (right when n_heads = 1)",
            gcs_sum_no_keepdims),
    Mistake(GCS, "softmax without subtracting the max: overflows to NaN on large scores", gcs_softmax_no_max),
    Mistake(GCS, "forgets to divide the exponentials by their sum: weights do not add up to 1",
            gcs_weights_not_normalised),
    Mistake(GCS, "weighted sum of the cached keys instead of the values", gcs_weights_times_keys),
    # ---- grouped_cache_step: what is returned
    Mistake(GCS, "returns (K_new, V_new, o) instead of (o, K_new, V_new)", gcs_order_k_v_o),
    Mistake(GCS, "returns (o, V_new, K_new): the caches swapped", gcs_order_o_v_k),
    Mistake(GCS, "returns o flattened to (n_heads * d_head,) instead of (n_heads, d_head)", gcs_output_flat),
    Mistake(GCS, "scales q in place (q /= sqrt(d_head)), modifying the caller's q", gcs_scales_q_in_place),
    Mistake(GCS, "collects the outputs in an integer array, truncating them toward 0", gcs_int_output),

    # ---- sliding_window_mask
    Mistake(SWM, "window one too wide: allows i - window <= j <= i (window + 1 positions)", swm_window_plus_one),
    Mistake(SWM, "window one too narrow: allows i - window + 1 < j <= i (window - 1 positions; window = 1 sees "
            "nothing)", swm_window_minus_one),
    Mistake(SWM, "excludes the current token: allows i - window <= j < i (the diagonal is -inf)", swm_excludes_self),
    Mistake(SWM, "non-causal band |i - j| < window: the next window - 1 positions are allowed too",
            swm_symmetric_band),
    Mistake(SWM, "non-causal band |i - j| <= window (both sides, one too wide)", swm_symmetric_band_le),
    Mistake(SWM, "only the lower limit i - j < window: every future column is allowed", swm_no_upper_bound),
    Mistake(SWM, "transposed: allows j - window < i <= j (the upper band: the future, not the past)",
            swm_transposed),
    Mistake(SWM, "ignores the window: returns the plain causal mask", swm_causal_only),
    Mistake(SWM, "only the diagonal for every window (each row sees itself alone)", swm_window_only_diagonal),
    Mistake(SWM, "the first window positions (j < window) instead of the last window ones", swm_distance_from_start),
    Mistake(SWM, "looks back window // 2 positions (a centred-window habit) instead of window", swm_window_fraction),
    Mistake(SWM, "returns a boolean array (True where allowed) instead of the additive 0 / -inf mask",
            swm_bool_allowed),
    Mistake(SWM, "returns a multiplicative 0/1 mask (1.0 where allowed) instead of 0 / -inf", swm_multiplicative),
    Mistake(SWM, "uses -1e9 instead of -inf for the blocked positions", swm_large_negative),
    Mistake(SWM, "inverted: -inf where allowed and 0 elsewhere (np.where arguments swapped)", swm_inverted),
    Mistake(SWM, "multiplies -inf by the 0/1 blocked indicator: the allowed entries are 0 * -inf = NaN",
            swm_nan_from_zero_times_inf),
    Mistake(SWM, "np.triu(np.tril(ones), k=-window): keeps j = i - window too (window + 1 positions)",
            swm_tril_triu_k_minus_window),
    Mistake(SWM, "np.tril(np.triu(ones, k=window - 1)) (sign of k wrong): right for window = 1, but for window > 1 "
            "nothing survives and every entry is -inf", swm_tril_triu_k_plus),
    Mistake(SWM, "two -inf triangles with np.tril(k=-window - 1): window + 1 positions allowed",
            swm_two_triangles_k_off),
    Mistake(SWM, "two -inf triangles with np.tril(k=-window + 1): window - 1 positions allowed",
            swm_two_triangles_k_under),
    Mistake(SWM, "two -inf triangles with np.triu(k=0): the diagonal hidden, the row never sees itself",
            swm_two_triangles_diag),
    Mistake(SWM, "loop slice M[i, i - window + 1:i + 1] with a negative start for rows i < window - 1: "
            "the start wraps to the end, so those rows see nothing (or only part of their columns)",
            swm_loop_negative_start),
    Mistake(SWM, "loop from max(0, i - window) to i: window + 1 positions", swm_loop_range_plus_one),
    Mistake(SWM, "loop over j up to i - 1 only: the row never sees itself", swm_loop_start_at_window),
    Mistake(SWM, "integer array: assigning -inf raises OverflowError", swm_int_dtype),
    Mistake(SWM, "clips the window to n - 1: with window >= n the last row loses column 0 (and n = 1 sees nothing)",
            swm_window_clipped_n_minus_1),
    Mistake(SWM, "fills the diagonals 1..window below the main one but not the main diagonal itself",
            swm_diagonals_from_one),
    Mistake(SWM, "fills the main diagonal and the window - 1 above it (j = i .. i + window - 1): the future, "
            "not the past",
            swm_diagonals_upward),
    Mistake(SWM, "returns an (n, window) array (one column per window slot) instead of (n, n)",
            swm_shape_n_by_window),
    Mistake(SWM, "0 <= i - j <= window (np.ogrid): window + 1 positions", swm_row_minus_col_le),

    # ---- rolling_cache_step: what is kept
    Mistake(RCS, "keeps the first window rows (the oldest) instead of the newest: the new token is dropped",
            rcs_keeps_oldest),
    Mistake(RCS, "cuts when len >= window and one row too deep: window - 1 rows kept", rcs_cut_at_window),
    Mistake(RCS, "cuts the old cache before appending (a no-op as t <= window): a full cache grows to window + 1 rows",
            rcs_cut_before_append),
    Mistake(RCS, "tests the length before appending (t > window, never true): nothing is ever dropped",
            rcs_length_before_append),
    Mistake(RCS, "ignores n_sinks: keeps the last window rows, so the sinks are evicted", rcs_sinks_ignored),
    Mistake(RCS, "keeps the sinks outside the window: the sinks plus the last window rows, n_sinks + window rows "
            "(sinks after the first repeated)",
            rcs_sinks_outside_window),
    Mistake(RCS, "lets the cache grow to window + n_sinks rows before cutting (sinks counted outside the window)",
            rcs_sinks_outside_window_dedup),
    Mistake(RCS, "roles swapped: keeps the oldest window - n_sinks rows and the n_sinks newest", rcs_newest_as_sinks),
    Mistake(RCS, "keeps n_sinks + 1 rows at the front (one sink too many): window + 1 rows", rcs_sinks_plus_one),
    Mistake(RCS, "keeps one recent row too few (window - n_sinks - 1): window - 1 rows", rcs_recent_minus_one),
    Mistake(RCS, "cuts on every step, even before the cache is full: with sinks, rows are duplicated (K[:n_sinks] and "
            "K[-(window - n_sinks):] overlap)", rcs_unconditional_cut),
    Mistake(RCS, "K_cache[-keep:] with keep = window - n_sinks - 1 = 0 takes the whole cache, not nothing: the cache "
            "grows when n_sinks = window - 1", rcs_minus_zero_slice),
    Mistake(RCS, "np.delete at n_sinks - 1: evicts the last sink (with no sinks, row -1: the new token)",
            rcs_delete_last_sink),
    Mistake(RCS, "np.delete without axis: flattens the cache and removes one number, not one row",
            rcs_delete_no_axis),
    Mistake(RCS, "when full, replaces the previous token's row (the newest cached) instead of evicting the oldest "
            "non-sink row", rcs_replaces_newest),
    Mistake(RCS, "ring buffer: the new row overwrites the oldest non-sink slot, so the kept rows are out of order",
            rcs_ring_overwrite),
    Mistake(RCS, "np.roll by +1 (wrong direction) then overwrites the last row: keeps the wrong rows, out of order, "
            "and ignores the sinks", rcs_roll_wrong_way),
    Mistake(RCS, "shifts the full cache in place (np.roll into K_cache[n_sinks:]), modifying the caller's caches",
            rcs_ring_in_place),
    Mistake(RCS, "prepends the new token (newest first); the cut then drops the wrong rows", rcs_prepend),
    Mistake(RCS, "appends v to the keys and k to the values", rcs_k_v_swapped),
    Mistake(RCS, "np.append without an axis: the caches come back flattened to 1-D", rcs_np_append_flat),
    # ---- rolling_cache_step: the attention
    Mistake(RCS, "attends over all t + 1 rows, before the cut (the evicted row still counted)", rcs_uncut_attention),
    Mistake(RCS, "attends over the kept rows but returns the caches uncut", rcs_returns_uncut),
    Mistake(RCS, "attends before appending: the new token is not among the keys (empty when t = 0)",
            rcs_attend_before_append),
    Mistake(RCS, "attends over the kept rows without the current token (K[:-1])", rcs_excludes_current),
    Mistake(RCS, "masks the sinks out of the scores once the cache is full (kept but never attended)",
            rcs_mask_on_sinks),
    Mistake(RCS, "divides the scores by sqrt(d_v) instead of sqrt(d)", rcs_scale_by_dv),
    Mistake(RCS, "does not divide the scores by sqrt(d)", rcs_no_scale),
    Mistake(RCS, "divides the scores by sqrt(window) instead of sqrt(d)", rcs_scale_by_window),
    Mistake(RCS, "softmax without subtracting the max: overflows to NaN on large scores", rcs_softmax_no_max),
    Mistake(RCS, "weighted sum of the kept keys instead of the values", rcs_weights_times_keys),
    # ---- rolling_cache_step: what is returned
    Mistake(RCS, "returns (K_new, V_new, o) instead of (o, K_new, V_new)", rcs_order_k_v_o),
    Mistake(RCS, "returns (o, V_new, K_new): the caches swapped", rcs_order_o_v_k),
    Mistake(RCS, "integer buffers for the kept rows: keys and values truncated toward 0", rcs_int_buffer),
    Mistake(RCS, "scales q in place (q /= sqrt(d)), modifying the caller's q", rcs_scales_q_in_place),
]

ACCEPTABLE = [
    Mistake(GQA, "a loop over heads with the notebook's attend, group h // (n_heads // n_kv_heads)",
            gqa_ok_loop_attend),
    Mistake(GQA, "np.repeat of the (n, n_kv_heads, d_head) keys and values along the head axis, einsum, np.where mask",
            gqa_ok_repeat_einsum),
    Mistake(GQA, "queries reshaped to (n, n_kv_heads, r, d_head) and broadcast against each group in one einsum, "
            "-1e9 mask", gqa_ok_grouped_einsum),
    Mistake(GQA, "group written h * n_kv_heads // n_heads; Wo applied as a sum of per-head row blocks",
            gqa_ok_group_formula),
    Mistake(GQA, "outer loop over groups, inner loop over the group's heads, scale folded into a new Q, row-by-row "
            "masking", gqa_ok_per_group_batch),
    Mistake(GQA, "loops over heads and query rows, each row against keys 0..i, log-sum-exp softmax",
            gqa_ok_row_loops_logsumexp),
    Mistake(GQA, "widens Wk and Wv to n_heads blocks (each group's block repeated for its heads), then lesson 09",
            gqa_ok_expand_weights),

    Mistake(GCS, "a loop over heads with the notebook's attend_step, caches grown with np.concatenate on axis 1",
            gcs_ok_loop),
    Mistake(GCS, "np.append on axis 1; np.repeat of the groups to n_heads for the attention only (not stored), einsum",
            gcs_ok_repeat_einsum),
    Mistake(GCS, "preallocated caches filled by slices; q reshaped to (n_kv_heads, r, d_head) and batched matmuls",
            gcs_ok_grouped_reshape),
    Mistake(GCS, "per-group np.vstack, group h * n_kv_heads // n_heads, log-sum-exp softmax", gcs_ok_group_formula),
    Mistake(GCS, "combines the old cache's scores and the new token's score in one softmax without building the "
            "grown cache first", gcs_ok_old_plus_new),
    Mistake(GCS, "list comprehensions over groups and heads, k[g:g + 1] concatenated to each group",
            gcs_ok_hstack_loop),

    Mistake(SWM, "np.where on broadcast row and column indices", swm_ok_where_broadcast),
    Mistake(SWM, "sum of two -inf triangles: np.triu(k=1) for the future and np.tril(k=-window) for the too old",
            swm_ok_two_triangles),
    Mistake(SWM, "double loop setting -inf where j > i or j <= i - window", swm_ok_loops),
    Mistake(SWM, "per-row slice from max(0, i - window + 1) to i + 1", swm_ok_slice_with_max),
    Mistake(SWM, "band of ones np.tril(np.triu(ones, k=-(window - 1))), -inf where it is 0", swm_ok_band_of_ones),
    Mistake(SWM, "log of the 0/1 band (log 1 = 0, log 0 = -inf)", swm_ok_log_of_band),
    Mistake(SWM, "fills the diagonals 0..min(window, n) - 1 below the main one", swm_ok_diagonals),
    Mistake(SWM, "window clipped to n first, then the band on np.subtract.outer", swm_ok_clip_window),

    Mistake(RCS, "append with np.concatenate, then sinks plus the last window - n_sinks rows", rcs_ok_concat),
    Mistake(RCS, "evicts row n_sinks first when the cache is full, then appends", rcs_ok_evict_then_append),
    Mistake(RCS, "np.append on axis 0, then np.delete of row n_sinks while too long", rcs_ok_np_delete),
    Mistake(RCS, "a list of kept indices and np.take, own softmax with the weights divided after", rcs_ok_index_list),
    Mistake(RCS, "a boolean keep mask over the positions (sinks, or among the newest window - n_sinks)",
            rcs_ok_boolean_keep),
    Mistake(RCS, "preallocated output arrays filled by slices", rcs_ok_preallocated),
    Mistake(RCS, "np.r_ index of the surviving old rows, then the new row, log-sum-exp softmax", rcs_ok_old_plus_new),
]
