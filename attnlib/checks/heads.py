"""Lesson 09, many heads: split_heads and multi_head_attention."""
import numpy as np

import attnlib as at
from ..attention import split_heads
from .attention_module import attention_steps
from .probes import features, rand
from .properties import argument_mixups, causality, scale_finding
from .spec import Exercise, Probe


# split_heads and multi_head_attention: the split and the merge written once, the heads on attention_weights' steps

def split_heads_steps(M, n_heads, *, c, d_head=None):
    """(n, n_heads * d_head) -> (n_heads, n, d_head): head h gets columns h*d_head:(h+1)*d_head (d_head: a width
    a learner may take from elsewhere, the heads then sliced with it)."""
    n, width = M.shape
    if d_head is not None:
        return np.stack([M[:, h * d_head:(h + 1) * d_head] for h in range(n_heads)])
    d_head = width // n_heads
    return c.step("split", right=lambda: M.reshape(n, n_heads, d_head).transpose(1, 0, 2),
                  heads_split_mixed=lambda: M.reshape(n_heads, n, d_head),
                  heads_interleaved=lambda: M.reshape(n, d_head, n_heads).transpose(2, 0, 1),
                  heads_not_moved_first=lambda: M.reshape(n, n_heads, d_head),
                  heads_count_and_width_swapped=lambda: M.reshape(n, n_heads, d_head).transpose(2, 0, 1),
                  heads_count_and_width_swapped__blocks=lambda: np.stack(
                      [M[:, h * n_heads:(h + 1) * n_heads] for h in range(d_head)]),
                  heads_tokens_last=lambda: M.reshape(n, n_heads, d_head).transpose(1, 2, 0),
                  heads_out_of_order=lambda: M.reshape(n, n_heads, d_head).transpose(1, 0, 2)[::-1],
                  head_slice_one_short=lambda: np.stack([M[:, h * d_head:(h + 1) * d_head - 1]
                                                         for h in range(n_heads)]),
                  heads_count_and_width_swapped__slices=lambda: np.stack(
                      [M[:, h * n_heads:(h + 1) * n_heads] for h in range(n_heads)]),
                  heads_split_rows=lambda: np.stack(np.split(M, n_heads, axis=0)),
                  heads_overlap=lambda: np.stack([M[:, h:h + d_head] for h in range(n_heads)]))


def split_heads_exercise_steps(M, n_heads, *, c):
    """split_heads as its exercise grades it: also the head width taken from the rows, as if M were square."""
    d_head = c("head width", right=None, head_width_from_rows=len(M) // n_heads)  # None: the columns' width
    return split_heads_steps(M, n_heads, c=c, d_head=d_head)


def merge_heads_steps(O, c):
    """(n_heads, n, d_head) -> (n, n_heads * d_head), heads side by side in order."""
    h, n, d = O.shape
    return c.step("merge", right=lambda: O.transpose(1, 0, 2).reshape(n, h * d),
                  heads_merge_mixed=lambda: O.reshape(n, h * d),
                  heads_out_of_order__merge=lambda: O[::-1].transpose(1, 0, 2).reshape(n, h * d),
                  heads_interleaved__merge=lambda: O.transpose(1, 2, 0).reshape(n, h * d))


def groups_steps(n_heads, n_groups, c):
    """The K/V group each query head reads, for its keys and for its values: h // (n_heads // n_groups)."""
    h = np.arange(n_heads)
    route = c("group of each head", right=h // (n_heads // n_groups), gqa_routed_by_modulo=h % n_groups,
              gqa_routed_by_group_count=h // n_groups, gqa_first_group_only=0 * h)
    other = h // (n_heads // n_groups) if np.array_equal(route, h % n_groups) else h % n_groups
    return c("groups of keys and values", right=(route, route), gqa_keys_and_values_apart=(route, other),
             gqa_keys_and_values_apart__values_first=(route, 0 * h),
             gqa_keys_and_values_apart__keys_first=(0 * h, route))


def queries_steps(Q, n_groups, c):
    """Each query head's own query, (n_heads, ...); the wrong options share one query within a group."""
    per, route = len(Q) // n_groups, np.arange(len(Q)) // (len(Q) // n_groups)
    return c.step("query of each head", right=lambda: Q, gqa_group_first_query=lambda: Q[route * per],
                  gqa_group_queries_averaged=lambda: np.repeat(Q.reshape(n_groups, per, *Q.shape[1:]).mean(axis=1),
                                                               per, axis=0),
                  gqa_query_of_group_index=lambda: Q[route])


def multi_head_steps(X, Wq, Wk, Wv, Wo, n_heads, causal=True, *, c, n_kv_heads=None):
    """Each head: attention on its block of columns (its group's block of Wk and Wv when n_kv_heads is given);
    the heads side by side, then Wo."""
    h = n_heads if n_kv_heads else c("head count", right=n_heads, heads_ignored=1)  # grouped: a shape, no choice
    g = n_kv_heads or h
    keys = {"head_width_from_keys": Wk.shape[1] // h} if n_kv_heads else {}  # grouped: Wk is narrower than Wq
    d = c("head width", right=None, head_width_from_d_model=X.shape[1] // h, **keys)  # None: the width of Wq's heads
    Q = split_heads_steps(X @ Wq, h, c=c, d_head=d)  # (h, n, d_head)
    K, V = (split_heads_steps(X @ W, g, c=c, d_head=d) for W in (Wk, Wv))  # (g, n, d_head)
    if not n_kv_heads:  # grouped heads choose their group instead (groups_steps)
        K = c("keys of each head", right=K, heads_read_first_keys=np.repeat(K[:1], len(K), axis=0))
    wider = {"scale_by_d_model": X.shape[1], "scale_by_d_model__width": Wq.shape[1]}
    if n_kv_heads:  # each query head reads its group's K and V
        keys, values = groups_steps(h, g, c)
        Q = queries_steps(Q, g, c)
        K, V = c.step("group columns", right=lambda: (K[keys], V[values]),
                      gqa_group_columns_strided=lambda: tuple(
                          (X @ W).reshape(len(X), -1, g).transpose(2, 0, 1)[keys] for W in (Wk, Wv)),
                      gqa_columns_repeated=lambda: tuple(
                          np.repeat(X @ W, h // g, axis=1).reshape(len(X), h, -1).transpose(1, 0, 2) for W in (Wk, Wv)))
        wider["scale_by_kv_width"] = Wk.shape[1]
    heads = np.stack([attention_steps(q, k, v, causal, True, c=c, widths=wider) for q, k, v in zip(Q, K, V)])
    heads = c("heads computed", right=heads, last_head_dropped=np.concatenate([heads[:-1], 0.0 * heads[-1:]]))
    O = merge_heads_steps(heads, c)
    Y = c("heads projected", right=O @ Wo, wo_ignored=O, output_divided_by_heads=O @ Wo / h)
    if n_kv_heads:  # a head's rows of Wo are its own, not its group's
        d = heads.shape[-1]
        Y = c.step("rows of Wo", right=lambda: Y, gqa_wo_rows_of_group=lambda: sum(
            heads[i] @ Wo[a * d:(a + 1) * d] for i, a in enumerate(keys)))
    return Y


def _split_probe(seed, n, d_model, n_heads):
    return Probe((rand(seed, n, d_model), n_heads), names=("M", "n_heads"))


SPLIT_HEADS = Exercise(
    name="split_heads",
    reference=split_heads,  # attnlib.attention's own, written apart from the pipeline
    probes=[_split_probe(190, 5, 6, 2), _split_probe(191, 4, 12, 3), _split_probe(192, 3, 8, 4),
            _split_probe(193, 2, 4, 1), _split_probe(194, 7, 6, 6)],
    pipeline=split_heads_exercise_steps,
    verified="head h holds the h-th contiguous block of columns, for 1, 2, 3, 4 and 6 heads",
    hint1="The columns of M are n_heads groups of d_head columns laid side by side; head h owns the h-th group. "
          "Splitting gives each head its own (n, d_head) matrix, stacked along a new first axis.",
    hint2="A reshape alone cannot move the heads in front of the tokens: first give the column axis its two parts "
          "(which head, then which column inside the head), then swap the token axis and the head axis. Check "
          "that head 0 of your result equals the first d_head columns of M.",
    formula="out[h] = M[:, h·d_head:(h+1)·d_head], i.e. M.reshape(n, n_heads, d_head).transpose(1, 0, 2)",
)


def _mha_probe(seed, n, d_model, width, n_heads, **kw):
    args = (rand(seed, n, d_model), rand(seed + 1, d_model, width), rand(seed + 2, d_model, width),
            rand(seed + 3, d_model, width), rand(seed + 4, width, d_model), n_heads)
    return Probe(args, kw, names=("X", "Wq", "Wk", "Wv", "Wo", "n_heads"), cols=features(d_model))


EXERCISES = [
    SPLIT_HEADS,
    Exercise(
        name="multi_head_attention",
        uses=('split_heads', 'attention'),
        reference=at.multi_head_attention,
        probes=[_mha_probe(200, 5, 6, 8, 2), _mha_probe(210, 4, 6, 6, 3, causal=False), _mha_probe(220, 6, 4, 4, 2),
                _mha_probe(230, 4, 5, 3, 1), _mha_probe(240, 1, 4, 4, 2)],  # one head; one token
        pipeline=multi_head_steps,
        verified="2 and 3 heads, head h on columns h*d_head:(h+1)*d_head, concatenated in order, then Wo",
        hint1="Each head is ordinary attention on its own slice of columns of Q, K and V; "
              "the results sit side by side.",
        hint2="d_head is the width of Wq divided by n_heads. Head h takes the h-th contiguous block of d_head "
              "columns of Wq, Wk and Wv (the same block in all three), runs ordinary scaled attention on it, and the "
              "head outputs are joined side by side in head order before the one multiplication by Wo.",
        formula="d_head = Wq.shape[1] // n_heads; head_h = attention(X Wq[:, h·d_head:(h+1)·d_head], X Wk[...], "
                "X Wv[...]); MHA(X) = [head_0 | head_1 | ...] @ Wo",
    ),
]


# property findings (properties.py) -------------------------------------------------------------------------------

def head_layout(f, seen):
    """With Wo = I the output columns are the heads side by side. Move one column of Wv (or Wq) and watch
    which output columns move: column c of Wv must move output column c only, and a column of Wq must move
    its own head's block only."""
    n, d, n_heads = 5, 6, 2
    d_head = d // n_heads
    X, Wq, Wk, Wv = rand(230, n, d), rand(231, d, d), rand(232, d, d), rand(233, d, d)
    calls = [((X, Wq, Wk, Wv, np.eye(d), n_heads), {})]
    for c in range(d):
        for which in (1, 3):
            args = [X, Wq, Wk, Wv, np.eye(d), n_heads]
            args[which] = args[which].copy()
            args[which][:, c] += 1.0
            calls.append((tuple(args), {}))
    outs = f.many(calls)
    if any(not isinstance(o, np.ndarray) or o.shape != (n, d) for o in outs):
        return None
    base = outs[0]
    moved_by_q, moved_by_v = [], []
    for c in range(d):
        for which, moved in ((1, moved_by_q), (3, moved_by_v)):
            out = outs[1 + 2 * c + (which == 3)]
            moved.append(set(np.flatnonzero(~np.isclose(out, base, rtol=1e-9, atol=1e-12).all(axis=0))))
    if all(moved_by_v[c] == {c} for c in range(d)):
        if any(moved_by_q[c] == set(range(d)) for c in range(d)):  # a column of Wq that moves every head
            return "heads-share-scores", "moving one column of Wq changed the output of every head"
        return None
    if all(len(m) == 1 for m in moved_by_v):
        target = [min(m) for m in moved_by_v]
        if target == [(c % n_heads) * d_head + c // n_heads for c in range(d)]:
            return "heads-interleaved", "column c of Wv reached output column (c % n_heads) * d_head + c // n_heads"
        if sorted(target) == list(range(d)):
            return "heads-out-of-order"
    if all(not moved_by_v[c] for c in range(d_head, d)):
        return "heads-share-columns", "the columns of Wv after the first head's block changed nothing"
    if all(moved_by_v[c] and moved_by_v[c] == moved_by_v[c % d_head] for c in range(d)):
        return "heads-summed", "columns c and c + d_head of Wv move the same output columns: the heads were added"
    return None


def _mha_sizes(p):
    X, Wq = p.args[:2]
    n_heads = p.args[5]
    return {"d": Wq.shape[1] // n_heads, "d_model": X.shape[1], "width": Wq.shape[1], "n": X.shape[0]}


FINDINGS = {
    "multi_head_attention": [
        head_layout,
        scale_finding(at.multi_head_attention, 1, _mha_sizes),
        argument_mixups(at.multi_head_attention, ("X", "Wq", "Wk", "Wv", "Wo", "n_heads")),
        causality((rand(240, 5, 6), rand(241, 6, 6), rand(242, 6, 6), rand(243, 6, 6), rand(244, 6, 6), 2), {},
                  [0]),
    ],
}


DIAGNOSES = {
    "head-width-from-rows": "The head width was taken from the number of rows (the tokens) over n_heads, as if M "
                            "were square: d_head is the number of columns over n_heads.",
    "heads-read-first-keys": "Every head read the keys of head 0, the first d_head columns of K, instead of its "
                             "own block: each head takes its own columns of K, as it does of Q and V.",
    "heads-overlap": "Head h started at column h instead of h times d_head, so the heads' slices overlap; head h "
                     "owns the block of d_head columns that starts at h times d_head.",
    "heads-not-moved-first": "The columns were grouped by head, but the heads are not the first axis: the result "
                             "must be (n_heads, n, d_head), head first, then tokens.",
    "heads-count-and-width-swapped": "The number of heads and the width of a head were swapped: there are n_heads "
                                     "heads of d_head columns each.",
    "heads-tokens-last": "The tokens ended up on the last axis; each head is a matrix with one row per token, "
                         "(n, d_head).",
    "output-divided-by-heads": "The output was divided by the number of heads: the heads are joined side by side and "
                               "multiplied by Wo, never averaged.",
    "last-head-dropped": "The loop over the heads stops one short: the last head's output stays zero.",
    "head-slice-one-short": "Each head's slice of columns stops one short: the slice's end is exclusive, so the last "
                            "column of every head was dropped.",
}


CHOICES = {
    "keys of each head": "Look at which columns of K each head reads: its own block, as for Q and V.",
    "heads computed": "Count the heads your loop computes: every one of the n_heads.",
    "split": "Check that head 0 of your split equals the first d_head columns of M: which columns does each head "
             "get, and which axis holds the heads?",
    "merge": "Look at how you put the heads back side by side: head 0's columns first, one row per token.",
    "head width": "Look at where your head width comes from: the projections' width over n_heads.",
    "head count": "Look at how many heads your function runs: n_heads of them, each d_head wide.",
    "heads projected": "Look at what happens after the heads are joined: one multiplication by Wo, nothing else.",
}
