"""Lesson 07, the attention module: attention, self_attention, future_leak and tiled_attention.

Their mistakes are attention_weights' mistakes carried one step further
(O = A V, then Q, K, V from X), plus the ones only this step can make.
"""
import functools
import tracemalloc

import numpy as np

import attnlib as at
from .choices import variant
from .mask_and_softmax import scale_steps, weights_steps
from .probes import features, qk_probes, rand
from .properties import argument_mixups, causality, huge_scores, scale_finding
from .spec import Exercise, Probe


# attention and self_attention: the weights' steps (mask_and_softmax.py) and the two products around them --------

def attention_steps(Q, K, V, causal=True, scale=True, *, c, widths=None):
    """O = A V, with A from attention_weights' steps (widths: what a learner may scale by instead of d)."""
    K, V = c("roles", right=(K, V), kv_swapped=(V, K))
    last = (K[-len(Q):], V[-len(Q):]) if len(Q) > 1 else (K, V)  # "the queries are the last n_q": keys cut too
    K, V = c("keys read", right=(K, V), keys_cut_to_queries=last)
    A = weights_steps(Q, K, causal, scale, c=c, widths=widths)
    A = c("weights dtype", right=A, computed_in_float16=A.astype(np.float16))  # "to save memory": 3 digits left
    return c.step("mixing product", right=lambda: A @ V, av_transposed=lambda: A.T @ V,
                  va_instead_of_av=lambda: V @ A, returns_weights=lambda: A, keys_mixed=lambda: A @ K,
                  scale_on_output=lambda: weights_steps(Q, K, causal, False, c=c) @ V / np.sqrt(Q.shape[-1])
                  if scale else A @ V)


def self_attention_steps(X, Wq, Wk, Wv, Wo=None, causal=True, *, c):
    """O = attention(X Wq, X Wk, X Wv), then Wo if given."""
    side = c("projections", right=lambda W: W, weights_transposed=lambda W: W.T)  # W.T: the column-vector habit
    Q, K, V = X @ side(Wq), X @ side(Wk), X @ side(Wv)
    O = attention_steps(Q, K, V, causal, True, c=c, widths={"scale_by_d_model": X.shape[1]})
    O = c.step("output projection", right=lambda: O if Wo is None else O @ side(Wo), wo_ignored=lambda: O)
    return c.step("residual", right=lambda: O, extra_residual=lambda: X + O)


attention = variant(attention_steps)  # the reference, for the findings below

CHOICES = {
    "leak comparison": "Look at how you decide that an output row moved: any change larger than rounding noise, "
                       "judged against the largest output.",
    "leak nudge": "Look at how far you move each input row: far enough to show in the outputs.",
    "rows moved": "Look at which input rows your loop moves: every one of them, the last included.",
    "leak reading": "Work out by hand what a mask shifted by one should give: 1; and causal attention: 0.",
    "keys read": "Count the keys your queries read: all of them, each query up to its own position.",
    "weights dtype": "Look at the dtype of your weights: float16 keeps about 3 digits; the output needs float64's.",
    "roles": "Look at which matrix your scores read and which one your weights mix: keys, then values.",
    "mixing product": "Write the shapes of your product: the weights (n_q, n_k) mix the rows of V (n_k, d_v).",
    "projections": "Look at the shapes of your projections: X (n, d_model) times W (d_model, d), rows stay tokens.",
    "output projection": "Look at how your function uses Wo when one is given.",
    "residual": "Look at what your function returns: the attention output alone, with no input added back.",
    "tile remainder": "Look at the last tile when n is not a multiple of block: its rows and keys count too.",
    "key tiles": "Look at where your loop over key tiles stops: the last tile a query may see is included.",
    "tile mask": "Look at the positions your mask compares inside a tile: those of the whole sequence.",
    "tile normalisation": "Look at how the tiles are combined: one softmax over every key, not one per tile.",
    "running max": "Look at what you subtract before the exponential: the running max of the row.",
    "running max start": "Look at the running max's first value: any real score must replace it.",
    "tile max": "Look at the max your exponentials use: the running one, shared by every tile.",
    "division": "Look at when the running output is divided by the running sum: once, after the last tile.",
    "rescale": "Look at what happens to the running sum and the running output when the max grows.",
    "tile order": "Look at the order in which you walk the key tiles.",
}


def qkv_probes(seed):
    """qk_probes with a V of a different width d_v for each."""
    probes = qk_probes(seed)
    for p, d_v in zip(probes, (6, 4, 7, 2, 3)):
        n_k = p.args[1].shape[0]
        p.args = p.args + (rand(seed + 20 + d_v, n_k, d_v),)
        p.names = ("Q", "K", "V")
        p.cols = features(d_v, "v")
    Q = np.abs(rand(seed + 30, 3, 4)) + 1.0
    K = np.vstack([rand(seed + 31, 4, 4), np.full((1, 4), 400.0)])  # the last key, future to the first two queries,
    probes.append(Probe((Q, K, rand(seed + 32, 5, 3)), names=("Q", "K", "V"), cols=features(3, "v")))  # wins by ~1000
    return probes


def _sa_probe(seed, d_model, d_head, d_v, d_out=None, **kw):
    n = 5
    args = (rand(seed, n, d_model), rand(seed + 1, d_model, d_head), rand(seed + 2, d_model, d_head),
            rand(seed + 3, d_model, d_v)) + ((rand(seed + 4, d_v, d_out),) if d_out else ())
    return Probe(args, kw, names=("X", "Wq", "Wk", "Wv", "Wo"), cols=features(d_out or d_v, "o"))


EXERCISES = [
    Exercise(
        name="attention",
        uses=('softmax', 'attention_weights'),
        reference=at.attention,
        probes=qkv_probes(100) + [Probe((rand(140, 3, 4), rand(141, 1, 4), rand(142, 1, 2)), {"causal": False},
                                        names=("Q", "K", "V"), cols=features(2, "v"))],  # one key, three queries
        pipeline=attention_steps,
        verified="O = A V for n_q < n_k, n_q = n_k, causal=False, scale=False, a single key and huge logits",
        hint1="Compute the weights A as in attention_weights, then mix the rows of V with them.",
        hint2="The weights are (n_q, n_k) and V is (n_k, d_v): the product runs over the keys, the axis the two "
              "share, and gives one row of width d_v per query.",
        formula="O = softmax(Q Kᵀ / √d + M) V",
    ),
    Exercise(
        name="self_attention",
        uses=('softmax', 'attention'),
        reference=at.self_attention,
        probes=[_sa_probe(110, 6, 4, 3), _sa_probe(120, 6, 4, 3, 7), _sa_probe(130, 3, 2, 4, causal=False),
                _sa_probe(140, 4, 4, 4, 4)],
        pipeline=self_attention_steps,
        verified="Q, K, V from X, causal attention, the optional Wo, on non-square weights",
        hint1="Project X three times, with Wq, Wk and Wv, to get the queries, the keys and the values; then apply "
              "causal attention, then Wo if one is given.",
        hint2="Make all three projections from the same X. Divide the scores by the square root of the width of the "
              "queries and keys (the number of columns of Wq), not of d_model, and apply Wo only when one is given.",
        formula="O = softmax(X Wq (X Wk)ᵀ / √d_head + M) X Wv [@ Wo]",
    ),
]


# property findings (properties.py) -------------------------------------------------------------------------------

def _sizes(p):
    Q, K, V = p.args[:3]
    return {"d": Q.shape[1], "n_q": Q.shape[0], "n_k": K.shape[0], "d_v": V.shape[1]}


def _sa_sizes(p):
    X, Wq, Wk, Wv = p.args[:4]
    return {"d": Wq.shape[1], "d_model": X.shape[1], "d_v": Wv.shape[1], "n": X.shape[0]}


def weights_axis(args):
    """A finding: with values that make O equal to A (V = I, or X @ Wv = I), the learner's weights have columns
    that sum to 1 instead of rows: a softmax over the queries. Asked first, as it also looks like a leak."""
    def finding(f, seen):
        A = f(*args)
        if A is None:
            return None
        A = np.asarray(A, dtype=float)
        rows, cols = np.allclose(A.sum(axis=1), 1.0), np.allclose(A.sum(axis=0), 1.0)
        if cols and not rows and np.allclose(np.triu(A, 1), 0.0):  # still causal: not the whole output transposed
            return "softmax-wrong-axis", ("with values chosen so that O equals the weights A, the columns of your A "
                                          "sum to 1 and its rows do not: the softmax ran over the queries")
        return None
    return finding


def _x_with_identity_values(seed, n):
    """X (n, n) and Wv = X^-1, so X @ Wv = I and self_attention's output (without Wo) is A itself."""
    X = rand(seed, n, n) + 3.0 * np.eye(n)  # well conditioned
    return X, rand(seed + 1, n, 3), rand(seed + 2, n, 3), np.linalg.inv(X)


FINDINGS = {
    "attention": [
        weights_axis((rand(150, 5, 4), rand(151, 5, 4), np.eye(5))),
        causality((rand(150, 5, 4), rand(151, 5, 4), rand(152, 5, 3)), {}, [1, 2]),
        scale_finding(attention, 0, _sizes, lambda p: p.kwargs.get("scale", True)),
        huge_scores(0),
    ],
    "self_attention": [
        weights_axis(_x_with_identity_values(164, 5)),
        scale_finding(at.self_attention, 1, _sa_sizes),
        argument_mixups(at.self_attention, ("X", "Wq", "Wk", "Wv", "Wo")),
        causality((rand(160, 5, 4), rand(161, 4, 4), rand(162, 4, 4), rand(163, 4, 3)), {}, [0]),
    ],
}


# future_leak(attn, X) --------------------------------------------------------------------------------------------
#
# The probes hand the learner attention functions with known leaks (Attn below); the answer is an int.

def moved_rows(attn, X, seed=0, moved=None, nudge=None, rows=range):
    """seen[i, j]: output row i of attn moves (by more than 1e-9 of the largest output) when input row j alone
    is moved by a random vector. The grader's own measurement; `moved`, `nudge` and `rows` are the choices of
    future_leak's pipeline (how a change is judged, how far a row is moved, which rows are)."""
    X = np.array(X, dtype=float)  # a copy: X itself is never written to
    base = np.asarray(attn(X), dtype=float)
    tol = 1e-9 * max(1.0, float(np.abs(base).max()))
    moved = moved or (lambda out: np.abs(out - base) > tol)
    rng = np.random.default_rng(seed)
    seen = np.zeros((len(base), len(X)), dtype=bool)
    for j in rows(len(X)):
        shifted = X.copy()
        shifted[j] += nudge(X.shape[1]) if nudge else rng.normal(0.0, 1.0, X.shape[1])
        seen[:, j] = moved(np.asarray(attn(shifted), dtype=float)).reshape(len(base), -1).any(axis=1)
    return seen


def future_leak_steps(attn, X, *, c):
    """How far ahead the worst output row sees: measured by moving one input row at a time, then read off."""
    X = np.asarray(X, dtype=float)
    base = np.asarray(attn(X), dtype=float)
    moved = c("leak comparison", right=None, leak_tolerance_too_loose=lambda out: ~np.isclose(out, base),
              leak_rounding_counted=lambda out: out != base,
              leak_tolerance_absolute=lambda out: np.abs(out - base) > 1e-9)
    nudge = c("leak nudge", right=None, leak_never_seen=lambda d: 1e-12)
    rows = c("rows moved", right=range, leak_last_input_never_moved=lambda n: range(n - 1),
             leak_last_input_only=lambda n: [n - 1])
    seen = moved_rows(attn, X, moved=moved, nudge=nudge, rows=rows)
    i, j = np.nonzero(seen)
    ahead = j - i  # how far ahead of its own row each moving input sits
    return c.step("leak reading", right=lambda: int(ahead.max()) if ahead.size and ahead.max() > 0 else 0,
                  leak_counts_own_row=lambda: int(ahead.max()) + 1 if ahead.size else 0,
                  leak_counts_own_row__leaks_only=lambda: int(ahead.max()) + 1 if (ahead > 0).any() else 0,
                  leak_next_row_only=lambda: int((ahead == 1).any()),
                  leak_returns_bool=lambda: bool((ahead > 0).any()),
                  leak_farthest_never_tried=lambda: int(ahead[ahead < len(X) - 1].max(initial=0)),
                  leak_one_short=lambda: max(int(ahead.max()) - 1, 0) if ahead.size else 0,
                  leak_smallest_not_largest=lambda: int(ahead[ahead > 0].min()) if (ahead > 0).any() else 0,
                  leak_counts_the_past=lambda: int(np.abs(ahead).max()) if ahead.size else 0,
                  leak_counts_pairs=lambda: int((ahead > 0).sum()),
                  leak_counts_rows=lambda: int(np.triu(seen, k=1).any(axis=1).sum()),
                  leak_first_row_only=lambda: int(np.flatnonzero(seen[0]).max(initial=0)),
                  leak_returns_input_row=lambda: int(j[ahead > 0].max()) if (ahead > 0).any() else 0)


def future_leak(attn, X):
    """Reference: the largest k >= 1 such that some output row i moves when input row i + k moves; 0 if none."""
    i, j = np.nonzero(moved_rows(attn, X))
    ahead = j - i  # how far ahead of its own row each moving input sits
    return int(ahead.max()) if ahead.size and ahead.max() > 0 else 0


class Attn:
    """A self-attention function X (n, d) -> (n, d + 1) for future_leak's probes, with fixed weights, whose mask
    lets row i see the columns j where `visible(i, j)` holds; `hidden` is the score the other columns get.
    `sink` adds a key every row can always see (score 0, value 0), so that a row hiding everything stays finite.
    The scores are bounded (±3), so moving any row it sees by any visible amount moves an output row clearly.
    `flat` shrinks the scores and lifts the values by 10: a finite `hidden` (-13) then moves the outputs by
    a few parts in ten million, a leak that only a tight tolerance sees; `size` multiplies the outputs (a million:
    only a tolerance relative to the largest output tells rounding noise from a leak). Shown in reports by its
    label; the grader never copies it (deepcopy returns it as is)."""

    def __init__(self, label, visible, hidden=-np.inf, sink=False, flat=False, noise=0.0, seed=0, size=1.0):
        self.label, self.visible, self.hidden = label, visible, hidden
        self.sink, self.flat, self.noise, self.seed, self.size = sink, flat, noise, seed, size

    def __call__(self, X):
        n, d = X.shape
        rng = np.random.default_rng(self.seed + d)
        Wq, Wk, Wv = rng.normal(0.0, 1.0, (d, d)), rng.normal(0.0, 1.0, (d, d)), rng.normal(0.0, 1.0, (d, d + 1))
        S = (X @ Wq) @ (X @ Wk).T / np.sqrt(d)  # (n, n)
        V = X @ Wv  # (n, d + 1)
        if self.flat:
            S, V = 0.1 * S / (1.0 + np.abs(S)), V + 10.0  # scores within ±0.1
        else:
            S = 3.0 * np.tanh(S / 3.0)  # scores within ±3: however far a row moves, no weight saturates to 0
        i, j = np.indices((n, n))
        S = np.where(self.visible(i, j), S, self.hidden)
        if self.sink:
            S, V = np.hstack([S, np.zeros((n, 1))]), np.vstack([V, np.zeros((1, d + 1))])
        E = np.exp(S - S.max(axis=1, keepdims=True))
        O = self.size * (E / E.sum(axis=1, keepdims=True) @ V)
        return O + self.noise * float(np.abs(X).sum()) if self.noise else O  # a rounding-sized tie to every row

    def __repr__(self):
        return self.label

    def __deepcopy__(self, memo):
        return self


def _causal(i, j):
    return j <= i


def _everything(i, j):
    return j >= 0


def _one_ahead(i, j):
    return j <= i + 1


def _two_ahead(i, j):
    return j <= i + 2


def _diagonal_hidden(i, j):
    return j < i


def _chunks_of_three(i, j):
    return j // 3 <= i // 3


def _window_doubles(i, j):
    return j <= 2 * i


def _stray_entry(i, j):
    return (j <= i) | ((i == 1) & (j == 3))


def _two_ahead_only(i, j):
    return (j <= i) | (j == i + 2)


def _next_to_last_row_leaks(i, j):
    last = i.shape[0] - 1
    return (j <= i) | ((i == last - 1) & (j == last))


LEAKY = {
    "causal": Attn("causal attention", _causal),
    "everything": Attn("attention without a mask", _everything),
    "one_ahead": Attn("a mask shifted by one", _one_ahead, seed=10),
    "two_ahead": Attn("a mask shifted by two", _two_ahead, seed=20),
    "diagonal": Attn("an over-strict mask that also hides the diagonal", _diagonal_hidden, sink=True, seed=30),
    "chunks": Attn("a mask over chunks of three tokens", _chunks_of_three, seed=40),
    "doubling": Attn("a mask that lets row i see rows up to 2i", _window_doubles, seed=50),
    "stray": Attn("a causal mask with one stray entry", _stray_entry, seed=60),
    "next_to_last": Attn("a causal mask whose next-to-last row sees the last", _next_to_last_row_leaks, seed=70),
    "finite": Attn("a causal mask with -13 instead of -inf", _causal, hidden=-13.0, flat=True, seed=80),
    "noisy": Attn("causal attention whose outputs carry rounding noise (1e-14) from every row", _causal,
                  noise=1e-14, seed=90),
    "skip": Attn("a causal mask that also lets row i see row i + 2, but not i + 1", _two_ahead_only, seed=110),
    "loud": Attn("causal attention with outputs near a million, and rounding noise (1e-8) from every row", _causal,
                 noise=1e-8, seed=100, size=1e6),
}


def _leak_probe(kind, seed, n, d):
    return Probe((LEAKY[kind], rand(seed, n, d)), names=("attn", "X"))


LEAK_PROBES = [_leak_probe("causal", 300, 6, 3), _leak_probe("everything", 301, 5, 4),
               _leak_probe("two_ahead", 302, 7, 3), _leak_probe("diagonal", 303, 6, 4),
               _leak_probe("one_ahead", 304, 4, 2), _leak_probe("chunks", 305, 7, 3),
               _leak_probe("doubling", 306, 8, 3), _leak_probe("stray", 307, 6, 3),
               _leak_probe("next_to_last", 308, 6, 4), _leak_probe("finite", 309, 6, 3),
               _leak_probe("everything", 310, 1, 3), _leak_probe("noisy", 311, 5, 3), _leak_probe("loud", 312, 5, 3),
               _leak_probe("skip", 313, 6, 3)]



# tiled_attention(Q, K, V, causal=True, block=64) -----------------------------------------------------------------

def tiled_steps(Q, K, V, causal=True, block=64, *, c):
    """Online-softmax attention, tile by tile, with the choices a learner makes in it; with none made, the answer.

    "key tiles" one_short: each block of queries walks its keys up to the last one it may see with
    range(0, end - block, block), one tile short; "tile max" own: each tile's exponentials taken from the tile's own
    max instead of the running max (NaN in a row the tile hides entirely; __finite: such a row skips the tile, as a
    loop over its visible keys only does)."""
    n_q, n_k = len(Q), len(K)
    causal = c("mask switch", right=causal, mask_not_applied=False, mask_always_applied=True)
    shift = c("mask offset", right=n_k - n_q, mask_ignores_offset=0)  # query i sits at position shift + i
    s = scale_steps(Q.shape[1], c)
    whole = c("tile remainder", right=False, tile_remainder_dropped=True)
    stop_q, stop_k = (n_q - n_q % block, n_k - n_k % block) if whole else (n_q, n_k)
    walk_keys = c("key tiles", right="all", last_key_tile_dropped="last dropped", last_key_tile_dropped__short="short",
                  last_key_tile_dropped__partial="partial")
    stop_k = {"last dropped": max(stop_k - block, 0), "partial": n_k - n_k % block}.get(walk_keys, stop_k)
    local = c("tile mask", right=False, tile_mask_local=True, tile_mask_local__stops="stops")  # at the last tile
    separately = c("tile normalisation", right=False, tiles_normalised_separately=True,
                   tiles_normalised_separately__visible="visible")  # visible: each row counts only the tiles it sees
    running = c("running max", right=True, softmax_no_max_subtraction=False)
    start = c("running max start", right=-np.inf, running_max_starts_at_zero=0.0)
    own_max = c("tile max", right=False, tile_own_max=True, tile_own_max__finite="finite")
    rescale = c("rescale", right="both", rescale_missing="neither", rescale_missing__l_only="l only",
                rescale_missing__acc_only="acc only", rescale_inverted="inverted",
                rescale_inverted__raw="inverted raw")
    backwards = c("tile order", right=False, masked_tile_first=True)
    divide = c("division", right="at the end", acc_divided_every_tile="l reset",
               acc_divided_every_tile__l_kept="l kept", acc_divided_every_tile__masked_too="l kept, masked too",
               acc_divided_every_tile__twice="twice")
    O = np.zeros((n_q, V.shape[1]))
    for q0 in range(0, stop_q, block):
        q = Q[q0:q0 + block] * s  # (bq, d)
        m, l, acc, tiles = np.full((len(q), 1), start), np.zeros((len(q), 1)), np.zeros((len(q), V.shape[1])), 0
        end = min(n_k, q0 + shift + len(q)) if causal else n_k  # one past the last key this block may see
        walk = range(0, end - block, block) if walk_keys == "short" else range(0, end if local == "stops" else stop_k,
                                                                              block)
        for k0 in (reversed(walk) if backwards else walk):
            S = q @ K[k0:k0 + block].T  # (bq, bk)
            if causal:
                i = np.arange(len(q))[:, None] + (0 if local else q0 + shift)
                j = np.arange(S.shape[1])[None, :] + (0 if local else k0)
                S = np.where(j <= i, S, -np.inf)
            if separately:
                E = np.exp(S - S.max(axis=1, keepdims=True))
                seen = np.isfinite(S).any(axis=1, keepdims=True) if separately == "visible" else 1
                acc, tiles = acc + np.nan_to_num(E / E.sum(axis=1, keepdims=True)) @ V[k0:k0 + block], tiles + seen
                continue
            m_new = np.maximum(m, S.max(axis=1, keepdims=True)) if running else np.zeros_like(m)
            own = S.max(axis=1, keepdims=True)  # "finite": a row the mask hides in this tile keeps the running max
            P = np.exp(S - (np.where(np.isfinite(own), own, m_new) if own_max == "finite" else own if own_max
                            else m_new))
            kept = np.where(np.isfinite(m), 1.0, 0.0)  # what a factor left out leaves: the old sum as it was
            if not running:
                f = np.ones_like(m)
            elif rescale == "neither":
                f = kept
            elif rescale == "inverted":
                f = np.where(np.isfinite(m), np.exp(np.where(np.isfinite(m), m_new - m, 0.0)), 0.0)
            else:  # inverted raw: inf on the first tile, where m is still -inf
                f = np.exp(m_new - m) if rescale == "inverted raw" else np.exp(m - m_new)
            l = l * (kept if rescale == "acc only" else f) + P.sum(axis=1, keepdims=True)
            acc = acc * (kept if rescale == "l only" else f) + P @ V[k0:k0 + block]
            m = m_new
            hidden = not np.isfinite(S).any()  # a tile the mask hides whole: a loop over the visible keys skips it
            if divide != "at the end" and (not hidden or divide.endswith("too")):
                acc, l = acc / l, (np.ones_like(l) if divide == "l reset" else l)
        O[q0:q0 + block] = acc / np.maximum(tiles, 1) if separately else acc if divide.startswith("l kept") else acc / l
    return O


def _rescale_probe(seed):
    """The max grows late: key 6 (in the fourth tile of 2) scores far above every key before it."""
    Q, K = rand(seed, 3, 2), rand(seed + 1, 8, 2)
    Q[:, 0], K[6] = np.abs(Q[:, 0]) + 1.0, [12.0, 0.0]
    return Probe((Q, K, rand(seed + 2, 8, 3), False, 2), names=("Q", "K", "V", "causal", "block"),
                 cols=features(3, "v"))


def _negative_probe(seed):
    """Every score far below zero (K points away from Q, scores near -1500): exp(score - 0) underflows to 0."""
    Q = 30.0 + rand(seed, 6, 3)
    return Probe((Q, -(30.0 + rand(seed + 1, 6, 3)), rand(seed + 2, 6, 2), True, 2), names=("Q", "K", "V", "causal",
                 "block"), cols=features(2, "v"))


def _tiled_probe(seed, n_q, n_k, d, d_v, block, causal=True, spread=1.0):
    args = (rand(seed, n_q, d, scale=spread), rand(seed + 1, n_k, d, scale=spread), rand(seed + 2, n_k, d_v))
    return Probe(args + (causal, block), names=("Q", "K", "V", "causal", "block"), cols=features(d_v, "v"))


TILED_PROBES = [_tiled_probe(400, 5, 5, 3, 2, 2), _tiled_probe(410, 3, 7, 4, 3, 2),
                _tiled_probe(420, 6, 4, 2, 5, 4, causal=False), _tiled_probe(430, 4, 6, 3, 2, 64),
                _rescale_probe(440), _tiled_probe(450, 5, 7, 4, 3, 3, spread=100.0),
                _tiled_probe(460, 70, 100, 4, 3, 16), _tiled_probe(470, 9, 9, 3, 2, 3, causal=False),
                _negative_probe(490)]


# Memory: the probes' values cannot tell a tiled function from one that holds every score at once, so the
# requirement below measures the peak memory of one call (tracemalloc sees numpy's allocations). It needs the
# grader to run it on a function that passed its probes: see REQUIREMENTS at the end of this module.

MEMORY_N, MEMORY_BLOCK = 2048, 64
MEMORY_BUDGET = MEMORY_N * MEMORY_N * 8 // 64  # bytes: 1/64 of one full (n, n) float64 score matrix


def traced(fn, warmup=()):
    """fn wrapped to return the peak bytes allocated during one call, after an untraced call on `warmup` (a small
    input: a first call may import or cache things once)."""
    def peak_of(*args, **kwargs):
        if warmup:
            fn(*warmup)
        started = not tracemalloc.is_tracing()
        if started:
            tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        try:
            fn(*args, **kwargs)
            return int(tracemalloc.get_traced_memory()[1] - before)
        finally:
            if started:
                tracemalloc.stop()
    return peak_of


def tiled_memory(run):
    """(diagnosis, detail) when a tiled_attention that passed its probes holds far more memory than one tile needs.

    run(wrapper, args) calls wrapper(learner's function)(*args) where learner code runs and returns its Outcome."""
    n, b = MEMORY_N, MEMORY_BLOCK
    Q, K, V = rand(480, n, 4), rand(481, n, 4), rand(482, n, 2)
    warmup = (Q[:2 * b], K[:2 * b], V[:2 * b], True, b)
    o = run(functools.partial(traced, warmup=warmup), (Q, K, V, True, b))
    if o.kind != "ok" or not isinstance(o.value, int):
        return None
    full, strip, peak = n * n * 8, b * n * 8, o.value
    if peak <= MEMORY_BUDGET:
        return None
    mb = f"{peak / 2**20:.1f} MB at its peak for n = {n}, block = {b}"
    if peak >= full // 4:
        return "not-tiled", (f"your function held {mb}; one full ({n}, {n}) score matrix is {full / 2**20:.0f} MB "
                             f"and a ({b}, {b}) tile is {b * b * 8 // 1024} kB")
    return "keys-not-tiled", (f"your function held {mb}; a ({b}, {n}) strip of scores (one block of queries "
                              f"against every key) is {strip / 2**20:.0f} MB, a ({b}, {b}) tile {b * b * 8 // 1024} kB")


EXERCISES += [
    Exercise(
        name="future_leak",
        reference=future_leak,
        probes=LEAK_PROBES,
        pipeline=future_leak_steps,
        verified="the worst distance into the future for causal attention, no mask, masks shifted by one and two, "
                 "an over-strict mask, chunks, a leak in a single row, one that skips a row, one hidden behind a "
                 "finite mask value and outputs near a million with rounding noise",
        hint1="Causal means output row i depends on rows 0 to i of X only. To find out whether a function keeps "
              "that promise, change one input row and watch which output rows move.",
        hint2="Move one row of a copy of X at a time by a clearly visible amount and compare every output row with "
              "the unmoved output, with a tight tolerance (about one part in a billion). An output row that moves "
              "when a later row moved is a leak; return the largest distance between the two rows, or zero.",
        formula="leak = max of (j − i) over the pairs with j > i where output row i moves when input row j moves, "
                "0 when there is no such pair",
    ),
    Exercise(
        name="tiled_attention",
        uses=("attention",),
        reference=at.tiled_attention,
        probes=TILED_PROBES,
        pipeline=tiled_steps,
        verified="attention computed tile by tile: lengths that are not multiples of block, fewer queries than keys, "
                 "causal=False, a max that grows in a late tile and huge scores",
        hint1="Walk over the keys one tile at a time and keep, for each query, three running quantities: the "
              "largest score so far, the sum of the exponentials measured from that max, and the sum of the values "
              "weighted by them. When a new tile raises the max, the old sums were measured from a smaller max and "
              "must shrink before the new tile is added.",
        hint2="Look at the running sum and the running output when the max grows: both are multiplied by the "
              "exponential of the old max minus the new max. Build the causal mask from the positions in the whole "
              "sequence (where the tile's first query and first key sit), and divide by the running sum once, after "
              "the last tile.",
        formula="for each key tile: S = Q_t K_tᵀ / √d (masked by global position), m' = max(m, rowmax S), "
                "P = exp(S − m'), l ← l·exp(m − m') + rowsum P, acc ← acc·exp(m − m') + P V_t, m ← m'; "
                "then O_t = acc / l",
    ),
]


def _tiled_sizes(p):
    Q, K, V = p.args[:3]
    return {"d": Q.shape[1], "n_q": Q.shape[0], "n_k": K.shape[0], "d_v": V.shape[1]}


FINDINGS.update({
    "tiled_attention": [
        causality((rand(490, 5, 3), rand(491, 5, 3), rand(492, 5, 2), True, 2), {}, [1, 2]),
        scale_finding(at.tiled_attention, 0, _tiled_sizes),
        huge_scores(0),
    ],
})

# Checks a function must also pass once its values are right: {name: [requirement(run)]}, see tiled_memory.
REQUIREMENTS = {"tiled_attention": [tiled_memory]}


DIAGNOSES = {
    "keys-cut-to-queries": "Only the last n_q keys and values were kept, one per query. The queries sit at the last "
                           "n_q positions, but each of them may still read every key up to its own position, the "
                           "earlier keys included.",
    "leak-returns-input-row": "You returned the index of the input row that leaks, not how far ahead of the output "
                              "row it sits: the answer is a distance, j - i.",
    # future_leak
    "leak-tolerance-absolute": "Your threshold is a fixed 1e-9, not 1e-9 of the largest output: on outputs near a "
                               "million, rounding noise of about 1e-7 passes it and counts as a leak.",
    "leak-tolerance-too-loose": "Your count misses a small leak: a later row moved an output row by a few parts "
                                "in ten million, and your measurement called that no change (a tolerance as loose as "
                                "numpy's default, or a nudge of the input too small to show past yours). Any change "
                                "larger than about one part in a billion of the largest output is a leak.",
    "leak-one-short": "Your count is one too low: output row i seeing input row i + k is a leak of k, the "
                      "difference of the two row numbers.",
    "leak-last-input-never-moved": "Your loop never moves the last input row, so a leak into the last position is "
                                   "never seen.",
    "leak-never-seen": "Your function saw no leak anywhere, not even in attention without a mask, where every row "
                       "sees every other. Either the rows you move move too little (a nudge of 1e-10 or 1e-12 "
                       "changes the outputs by less than the tolerance), or the comparison looks at the wrong "
                       "outputs.",
    "leak-rounding-counted": "Your function called a change of rounding size a leak. Some functions' outputs "
                             "wobble in the last digits when any row changes; only a change larger than about one "
                             "part in a billion of the outputs counts.",
    "leak-counts-own-row": "Your count is one too high. Row i seeing row i + k is a leak of k, and a row that only "
                           "sees itself and its past leaks nothing: causal attention gives 0.",
    "leak-counts-the-past": "You counted output rows that move when an earlier row changes. That is allowed; only "
                            "later rows (the future) make a leak.",
    "leak-counts-pairs": "You counted every leaking pair of rows; the answer is the largest distance between an "
                         "output row and a future row it sees.",
    "leak-counts-rows": "You counted how many rows see the future; the answer is how far the worst row sees.",
    "leak-smallest-not-largest": "You returned the shortest leak; the answer is the longest one over every row.",
    "leak-first-row-only": "Only the first output row was examined; a leak can sit in any row.",
    "leak-returns-bool": "Your function answers whether some row sees its future (True or False); the exercise "
                         "asks how far ahead the worst row sees, an int.",
    "leak-next-row-only": "Only the next row was looked at (does row i see row i + 1?), so a leak of any size is "
                          "counted as 1, and a leak that skips the next row is not seen at all.",
    "leak-farthest-never-tried": "Your loop over the distances stops one short: a leak of n - 1, from the first row "
                                 "to the last, is never tried.",
    "leak-last-input-only": "Only the last input row was moved, but a leak can come from any later row.",
    # tiled_attention
    "rescale-missing": "When a later tile raised a row's max, the running sum or the running output was not shrunk "
                       "to the new max, so the earlier tiles count too much.",
    "rescale-inverted": "The running sums were rescaled the wrong way: they grew when the max grew, instead of "
                        "shrinking.",
    "tiles-normalised-separately": "Each tile was turned into weights on its own, while a row's weights are normalised "
                                   "once over all its keys.",
    "tile-mask-local": "The causal mask inside a tile compares positions counted from the tile's corner instead of "
                       "positions in the whole sequence.",
    "acc-divided-every-tile": "The running output was divided by the running sum after every tile; it is "
                              "divided once, after the last tile. Divided early, the later tiles' rescaling and "
                              "sums no longer weigh the earlier tiles right.",
    "tile-remainder-dropped": "The last, shorter tile was skipped when the length is not a multiple of block.",
    "last-key-tile-dropped": "The loop over the key tiles stops one tile too early, so the last tile of keys it "
                             "should reach never enters the sums.",
    "masked-tile-first": "The key tiles were walked from the last to the first. The order alone changes nothing, but "
                         "a query's last tiles are entirely hidden by the mask: met first, while the running max is "
                         "still -inf, they give -inf minus -inf, which is NaN.",
    "tile-own-max": "Each tile's exponentials were taken from that tile's own max, while the running sums are "
                    "measured from the running max: the tiles are added on different scales.",
    "running-max-starts-at-zero": "The running max started at 0 instead of -inf. When every score of a row is far "
                                  "below zero, the exponential of each score minus that 0 underflows to 0, the running "
                                  "sum stays 0 and the row divides 0 by 0.",
    "not-tiled": "Your function holds the whole score matrix (or another array as large) at once. Tiled "
                 "attention keeps one small tile of scores at a time.",
    "keys-not-tiled": "Your function holds one block of queries against every key at once: the keys are not tiled.",
}

NUDGES = {
    "not-tiled": "Look for a product of all the queries with all the keys, or a mask as large as the whole score "
                 "matrix.",
    "keys-not-tiled": "Look at your inner loop: does it walk over tiles of keys, or take every key at once?",
}
