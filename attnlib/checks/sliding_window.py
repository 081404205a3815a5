"""Lesson 18, a bounded cache: sliding_window_mask (each query sees the last `window` positions, itself included) and
rolling_cache_step (append, cut back to the sinks and the newest rows, attend)."""
import numpy as np

import attnlib as at
from .generation_and_kv_cache import attend_step_steps, cache_update_steps
from .mask_and_softmax import keep_steps, mask_value_steps
from .probes import features, rand, tokens
from .properties import huge_scores
from .spec import Exercise, Probe


# sliding_window_mask(n, window) ------------------------------------------------------------------------------------

def window_steps(n, window, *, c):
    """The causal mask (lesson 06's steps) cut to the `window` most recent positions, the query's own included."""
    causal = keep_steps(n, n, c)  # (n, n): j <= i
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    w = c("window width", right=window, window_one_too_wide=window + 1, window_one_too_narrow=window - 1)
    keep = c.step("window band", right=lambda: causal & (j > i - w),
                  window_excludes_current=lambda: (j < i) & (j >= i - w),
                  window_not_causal=lambda: np.abs(i - j) < w, window_ignored=lambda: causal,
                  window_keeps_oldest=lambda: causal & (j < w), window_transposed=lambda: (causal & (j > i - w)).T,
                  window_future_open=lambda: j > i - w, window_diagonal_only=lambda: j == i,
                  window_keeps_first=lambda: causal & ((j > i - w) | (j == 0)),
                  window_edge_sign_flipped=lambda: causal & (j > i + w),
                  window_full_unmasked=lambda: np.ones((n, n), dtype=bool) if w >= n else causal & (j > i - w))
    return mask_value_steps(keep, c)


WINDOW_PROBES = [Probe((n, w), names=("n", "window"), rows=tokens(n), cols=tokens(n), resize=True)
                 for n, w in ((6, 3), (5, 1), (7, 2), (4, 4), (3, 5), (1, 1))]  # window = n and past it: causal


# rolling_cache_step(q, k, v, K_cache, V_cache, window, n_sinks=0) -------------------------------------------------

def rolling_cache_step(q, k, v, K_cache, V_cache, window, n_sinks=0):
    """Reference: k, v appended; past `window` rows, the first n_sinks and the newest window - n_sinks kept;
    then q attends."""
    K, V = np.vstack([K_cache, k]), np.vstack([V_cache, v])  # (t + 1, d), (t + 1, d_v)
    if len(K) > window:
        keep = np.r_[0:n_sinks, len(K) - (window - n_sinks):len(K)]
        K, V = K[keep], V[keep]
    return at.attend_step(q, K, V), K, V


def evict_steps(K, V, window, n_sinks, c):
    """The rows a bounded cache keeps of (t, ...) rows: all of them up to `window`, else the sinks and the newest."""
    w = c("cache window", right=window, cache_window_one_too_wide=window + 1, cache_window_one_too_narrow=window - 1)
    s = c("sinks kept", right=n_sinks, sinks_dropped=0, sinks_one_too_many=n_sinks + 1)
    t = len(K)
    full = c("cut when", right=t > w, sinks_outside_window=t > w + s, cache_cut_before_full="always")
    if full == "always":  # a cut by slices from the end: a short cache keeps every row, after its sinks again
        rows = np.r_[0:s, np.arange(t)[-(w - s):]]
        return K[rows], V[rows]
    if not full:
        return K, V
    rows = c.step("rows evicted", right=lambda: np.r_[0:s, t - (w - s):t], cache_evicts_newest=lambda: np.arange(w),
                  sinks_outside_window=lambda: np.r_[0:s, t - w:t],
                  cache_window_one_too_narrow__recent=lambda: np.r_[0:s, t - (w - s - 1):t],
                  sinks_roles_swapped=lambda: np.r_[0:w - s, t - s:t],
                  sinks_newest=lambda: np.r_[t - (w - s):t, 0:s],  # the sinks moved behind the newest rows
                  sinks_dropped__recent_only=lambda: np.arange(t)[t - (w - s):],
                  cache_ring_buffer=lambda: np.r_[0:s, t - 1, t - (w - s):t - 1])  # the new row in the freed slot
    return K[rows], V[rows]


def rolling_cache_steps(q, k, v, K_cache, V_cache, window, n_sinks=0, *, c):
    """Lesson 14's cache step with the cache cut back to `window` rows after the append: (o, K_new, V_new)."""
    read, kept = cache_update_steps(k, v, K_cache, V_cache, c)
    cut = evict_steps(*read, window, n_sinks, c)
    full = len(cut[0]) < len(read[0])
    read = c("rows read", right=cut, cache_read_before_cut=read, cache_read_without_new=tuple(M[:-1] for M in cut),
             sinks_not_attended=tuple(M[n_sinks:] for M in cut) if full else cut)
    kept = c("rows returned", right=evict_steps(*kept, window, n_sinks, c), cache_returned_uncut=kept)
    widths = {"scale_by_d_v": V_cache.shape[1], "scale_by_length": window}
    return (attend_step_steps(q, *read, c=c, widths=widths), *kept)


def _rolling_probe(seed, t, d, d_v, window, n_sinks=None, scale=1.0):
    args = (rand(seed, d, scale=scale), rand(seed + 1, d, scale=scale), rand(seed + 2, d_v),
            rand(seed + 3, t, d, scale=scale), rand(seed + 4, t, d_v), window)
    return Probe(args, {} if n_sinks is None else {"n_sinks": n_sinks},
                 names=("q", "k", "v", "K_cache", "V_cache", "window"), cols=features(d_v, "v"))


ROLLING_PROBES = [_rolling_probe(1820, 4, 3, 2, 4),               # a full cache: the oldest row goes
                  _rolling_probe(1830, 5, 4, 3, 5, n_sinks=2),    # full, with two sinks: row 2 goes
                  _rolling_probe(1840, 2, 3, 3, 5, n_sinks=1),    # not full yet: nothing goes
                  _rolling_probe(1850, 3, 2, 4, 4),               # fills up exactly
                  _rolling_probe(1860, 0, 3, 2, 3, n_sinks=1),    # the first token: empty caches
                  _rolling_probe(1870, 1, 2, 2, 1),               # a window of one: only the new token
                  _rolling_probe(1880, 6, 4, 2, 6, n_sinks=5),    # every row but one a sink
                  _rolling_probe(1890, 4, 3, 2, 4, n_sinks=1, scale=30.0)]  # huge scores


CHOICES = {
    "window width": "Count the positions row i may see: the `window` most recent ones, itself included.",
    "window band": "Look at which columns stay for row i: from i - window + 1 up to i itself, never a later one.",
    "cache window": "Count the rows your cache keeps once it is full: `window` of them, the new one included.",
    "sinks kept": "Look at what happens to the first n_sinks rows: they are never evicted.",
    "cut when": "Look at when your cache is cut: only once it holds more than `window` rows, the sinks among them.",
    "rows read": "Look at the rows the query attends over: exactly the ones the cache keeps, the new token and the "
                 "sinks among them.",
    "rows returned": "Look at the caches you return: the cut ones, at most `window` rows.",
    "rows evicted": "Look at which rows you drop when the cache is too long: the oldest ones after the sinks, so "
                    "that the newest stay.",
}

DIAGNOSES = {
    "window-edge-sign-flipped": "The band's lower edge was put at i + window instead of i - window: with the causal "
                                "edge, every key is hidden. Query i sees keys i - window + 1 up to i.",
    "window-full-unmasked": "When the window covers the whole sequence, your mask hid nothing, the future included. "
                            "A window that wide is the plain causal mask: each query still sees no later key.",
    "window-keeps-first": "Column 0 stayed visible to every row besides the window, as a sink would; the window "
                          "mask has no sink: only the window most recent positions stay.",
    "window-one-too-wide": "Each row sees window + 1 positions: the window counts the query's own position, so it "
                           "reaches back only to i - window + 1.",
    "window-one-too-narrow": "Each row sees only window - 1 positions: the window counts the query's own position "
                             "and the window - 1 before it.",
    "window-excludes-current": "The window left out the query's own position (the diagonal) and took one more "
                               "from the past: a token always sees itself.",
    "window-not-causal": "The window reached as far into the future as into the past: a causal window hides every "
                         "later position.",
    "window-ignored": "The window was not applied: every earlier position stayed visible, which is the causal mask.",
    "window-keeps-oldest": "Each row kept the first `window` positions of the sentence instead of its own "
                           "`window` most recent ones.",
    "window-transposed": "The mask was transposed: each column, not each row, holds the positions a query sees.",
    "cache-window-one-too-wide": "The cache kept window + 1 rows: the new token counts among the `window` rows "
                                 "(cutting the cache before appending has this effect).",
    "cache-window-one-too-narrow": "The cache kept only window - 1 rows: the new token counts among the `window`, "
                                   "so a full cache holds exactly `window` rows.",
    "sinks-one-too-many": "One sink too many was kept (the first n_sinks + 1 rows), so one recent row too few: the "
                          "sinks are exactly the first n_sinks rows.",
    "sinks-dropped": "The first n_sinks rows were evicted like the others: the sinks stay in the cache for good.",
    "cache-evicts-newest": "The cache dropped its newest rows and kept the oldest: a sliding window keeps the most "
                           "recent positions, the new token's first of all.",
    "sinks-outside-window": "The sinks were kept in addition to the `window` newest rows, so a full cache held "
                            "window + n_sinks rows: the sinks count within the window.",
    "window-future-open": "Only the old side of the window was closed: every later position stayed visible. A causal "
                          "window also hides the future.",
    "window-diagonal-only": "Each row saw only itself, whatever the window: the window reaches back to i - window + 1.",
    "cache-cut-before-full": "The cache was cut on every step, even before it was full: with sinks, the first rows "
                             "came back twice. Cut only once it holds more than `window` rows.",
    "sinks-roles-swapped": "The cache kept the oldest window - n_sinks rows and the n_sinks newest: the roles are the "
                           "other way round, n_sinks sinks at the start and window - n_sinks recent rows.",
    "cache-read-before-cut": "The query attended over every row before the cut, the evicted one included: it attends "
                             "over the rows the cache keeps.",
    "cache-read-without-new": "The query attended over the kept rows without the new token's own: the new token is "
                              "among the rows it attends over.",
    "sinks-not-attended": "The sinks were kept in the cache but left out of the attention: they are kept so that the "
                          "query can attend to them.",
    "cache-returned-uncut": "The attention used the cut cache, but the caches returned were not cut: they keep "
                            "growing past `window` rows.",
    "cache-ring-buffer": "The new row took the evicted row's slot (a ring buffer): the right rows are kept, but "
                         "out of order. The cache keeps its rows in order, oldest first and the new one last.",
    "sinks-newest": "The kept rows were put in another order (the sinks after the newest rows); the cache keeps its "
                    "rows oldest first.",
}

EXERCISES = [
    Exercise(
        name="sliding_window_mask",
        reference=at.sliding_window_mask,
        probes=WINDOW_PROBES,
        pipeline=window_steps,
        verified="0 for the window most recent positions, itself included, -inf elsewhere, for windows of 1, 2 and "
                 "3, a window equal to n and wider than n (the causal mask), and fresh sizes",
        hint1="Start from the causal mask: row i sees the columns j <= i. The window takes away the columns that are "
              "too old: those at window or more positions before i.",
        hint2="Compare the row index i and the column index j as a broadcast pair of aranges: keep j <= i and "
              "j > i - window, and put -inf everywhere else.",
        formula="M[i, j] = 0 if i - window < j <= i else -inf",
    ),
    Exercise(
        name="rolling_cache_step",
        reference=rolling_cache_step,
        probes=ROLLING_PROBES,
        pipeline=rolling_cache_steps,
        verified="k, v appended, the cache cut to window rows (sinks first, then the newest) before q attends: for a "
                 "full cache with and without sinks, a cache not full yet, empty caches, a window of one and huge "
                 "scores",
        hint1="Lesson 14's cache_step, with one more step between the append and the attention: once the cache is "
              "longer than the window, the oldest rows after the sinks go.",
        hint2="After appending, if there are more than window rows, keep rows 0 .. n_sinks - 1 and the last "
              "window - n_sinks rows, in order; then score q against the kept keys and mix the kept values.",
        formula="K = [K_cache; k]; if len(K) > window: K = K[0:n_sinks] followed by the last window - n_sinks rows "
                "(V likewise); o = softmax(K q / √d) V",
    ),
]


FINDINGS = {"rolling_cache_step": [huge_scores(0)]}
