"""Lesson 17, shared keys and values: grouped_query_attention (query heads reading n_kv_heads K/V groups) and
grouped_cache_step (the cache holds one row per group and token)."""
import numpy as np

import attnlib as at
from .generation_and_kv_cache import attend_step_steps, cache_update_steps
from .heads import groups_steps, multi_head_steps, queries_steps
from .probes import features, rand
from .properties import argument_mixups, causality, huge_scores
from .spec import Exercise, Probe


# grouped_query_attention(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True): lesson 09's heads, grouped -------

def gqa_steps(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True, *, c):
    """Multi-head attention whose query head h reads K/V group h // (n_heads // n_kv_heads)."""
    return multi_head_steps(X, Wq, Wk, Wv, Wo, n_heads, causal, c=c, n_kv_heads=n_kv_heads)


def _gqa_probe(seed, n, d_model, n_heads, n_kv_heads, d_head, scale=1.0, **kw):
    args = (rand(seed, n, d_model, scale=scale), rand(seed + 1, d_model, n_heads * d_head),
            rand(seed + 2, d_model, n_kv_heads * d_head), rand(seed + 3, d_model, n_kv_heads * d_head),
            rand(seed + 4, n_heads * d_head, d_model), n_heads, n_kv_heads)
    return Probe(args, kw, names=("X", "Wq", "Wk", "Wv", "Wo", "n_heads", "n_kv_heads"), cols=features(d_model))


GQA_PROBES = [_gqa_probe(1700, 5, 8, 8, 4, 2),                 # two query heads per group
              _gqa_probe(1710, 4, 6, 6, 2, 2, causal=False),   # three per group, no mask
              _gqa_probe(1720, 6, 4, 4, 1, 3),                 # one group for every head: MQA
              _gqa_probe(1730, 4, 6, 2, 2, 3),                 # one group per head: lesson 09's attention
              _gqa_probe(1740, 5, 6, 4, 2, 3),
              _gqa_probe(1750, 1, 4, 4, 2, 2),                 # one token
              _gqa_probe(1755, 4, 4, 4, 2, 2, scale=12.0)]     # scores in the thousands


# grouped_cache_step(q, k, v, K_cache, V_cache): lesson 14's cache, one row per group ------------------------------

def grouped_cache_step(q, k, v, K_cache, V_cache):
    """Reference: k, v appended to their groups' caches; head h attends over group h // (n_heads // n_kv_heads)."""
    K_new = np.concatenate([K_cache, k[:, None, :]], axis=1)  # (n_kv_heads, t + 1, d_head)
    V_new = np.concatenate([V_cache, v[:, None, :]], axis=1)
    group = np.arange(len(q)) // (len(q) // len(k))
    return np.stack([at.attend_step(q[h], K_new[g], V_new[g]) for h, g in enumerate(group)]), K_new, V_new


def grouped_cache_steps(q, k, v, K_cache, V_cache, *, c):
    """Lesson 14's cache step for every group at once, each query head reading its group: (o, K_new, V_new)."""
    (K, V), kept = cache_update_steps(k, v, K_cache, V_cache, c)  # (n_kv_heads, t + 1, d_head)
    keys, values = groups_steps(len(q), len(k), c)
    heads = c("heads attended", right=len(q), gqa_heads_counted_from_groups=len(k))
    q = queries_steps(q, len(k), c)
    widths = {"scale_by_d_model": q.size, "scale_by_kv_width": k.size, "scale_by_length": K.shape[1],
              "scale_by_length__cached": K_cache.shape[1], "scale_by_heads": len(q)}
    o = np.stack([attend_step_steps(q[h], K[keys[h]], V[values[h]], c=c, widths=widths) for h in range(heads)])
    per_head = len(q) // len(k)
    kept = c("rows stored", right=kept, gqa_cache_per_query_head=tuple(np.repeat(M, per_head, axis=0) for M in kept))
    return (o, *kept)


def _grouped_probe(seed, n_heads, n_kv_heads, t, d_head, scale=1.0):
    args = (rand(seed, n_heads, d_head, scale=scale), rand(seed + 1, n_kv_heads, d_head, scale=scale),
            rand(seed + 2, n_kv_heads, d_head), rand(seed + 3, n_kv_heads, t, d_head, scale=scale),
            rand(seed + 4, n_kv_heads, t, d_head))
    return Probe(args, names=("q", "k", "v", "K_cache", "V_cache"), cols=features(d_head, "v"))


GROUPED_PROBES = [_grouped_probe(1760, 8, 4, 3, 2),    # two query heads per group
                  _grouped_probe(1770, 6, 2, 4, 3),    # three per group
                  _grouped_probe(1780, 4, 1, 2, 4),    # MQA
                  _grouped_probe(1790, 2, 2, 3, 2),    # one group per head
                  _grouped_probe(1800, 4, 2, 0, 3),    # the first token: empty caches
                  _grouped_probe(1810, 4, 2, 5, 2, scale=30.0)]  # huge scores


CHOICES = {
    "group of each head": "Write down which group each query head reads, head by head: the first n_heads // "
                          "n_kv_heads heads share group 0, the next ones group 1.",
    "groups of keys and values": "Look at where each head's keys and values come from: both from its own group.",
    "query of each head": "Look at which query each head uses: its own, q[h], even when it shares its keys.",
    "group columns": "Look at which columns of Wk and Wv make group g: one contiguous block of d_head, "
                     "g*d_head to (g+1)*d_head.",
    "rows of Wo": "Look at which rows of Wo each head's output meets: its own d_head rows, h*d_head to "
                  "(h+1)*d_head, not its group's.",
    "heads attended": "Count the outputs: one per query head, n_heads of them, more than there are groups.",
    "rows stored": "Count the rows your cache stores per token: one per K/V group, not one per query head.",
}

DIAGNOSES = {
    "head-width-from-keys": "The head width was taken as the width of Wk over n_heads. Wk holds n_kv_heads "
                            "groups, not n_heads heads: d_head is the width of Wq over n_heads, which is also the "
                            "width of Wk over n_kv_heads.",
    "scale-by-heads": "The scores were divided by the square root of the number of heads; the scale uses the width "
                      "of one head.",
    "gqa-routed-by-modulo": "Query head h read group h % n_kv_heads, so neighbouring heads read different groups; "
                            "head h reads group h // (n_heads // n_kv_heads): the heads of a group are neighbours.",
    "gqa-routed-by-group-count": "Query head h read group h // n_kv_heads, dividing by the number of groups instead "
                                 "of by the number of query heads per group, n_heads // n_kv_heads.",
    "gqa-first-group-only": "Every query head read group 0: the other K/V groups were never used.",
    "gqa-keys-and-values-apart": "A head's keys and values came from different groups: each query head reads its "
                                 "keys and its values from the same group.",
    "gqa-group-first-query": "Every head of a group used the query of the group's first head: each query head keeps "
                             "its own query; only the keys and values are shared.",
    "gqa-group-queries-averaged": "The queries of each group were averaged into one: each query head keeps its own "
                                  "query; only the keys and values are shared.",
    "gqa-query-of-group-index": "Head h used the query of head g (its group's number) instead of its own query "
                                "q[h]: the group index picks keys and values, not queries.",
    "gqa-group-columns-strided": "Group g took every n_kv_heads-th column of Wk and Wv instead of its contiguous "
                                 "block of d_head columns, g*d_head to (g+1)*d_head.",
    "gqa-columns-repeated": "Each column of X Wk and X Wv was repeated in place, column by column, "
                            "instead of repeating whole groups for their heads, so the heads read mixed columns.",
    "gqa-heads-counted-from-groups": "Only n_kv_heads outputs came back: the number of query heads is q's first "
                                     "axis, and each of them gets an output.",
    "gqa-wo-rows-of-group": "Head h's output met the rows of Wo of its group (g*d_head to (g+1)*d_head) instead of "
                            "its own rows, h*d_head to (h+1)*d_head: only K and V are shared, Wo has a block per "
                            "query head.",
    "scale-by-kv-width": "The scores were divided by the square root of Wk's whole width (all the groups, "
                         "n_kv_heads * d_head) instead of one head's d_head.",
    "gqa-cache-per-query-head": "The returned cache holds one row per query head (each group repeated for its "
                                "heads) instead of one per K/V group: the memory that GQA saves is spent again.",
}

EXERCISES = [
    Exercise(
        name="grouped_query_attention",
        reference=at.grouped_query_attention,
        probes=GQA_PROBES,
        pipeline=gqa_steps,
        verified="2 and 3 query heads per group, one group (MQA), one group per head (lesson 09), causal and not, "
                 "one token",
        hint1="This is lesson 09's multi-head attention, except that Wk and Wv have fewer blocks of columns: "
              "several neighbouring query heads use the same block.",
        hint2="Each group serves n_heads // n_kv_heads query heads. For head h, take its own block of Wq and the "
              "block of group h // (n_heads // n_kv_heads) of both Wk and Wv, run ordinary scaled attention on "
              "them, then join the heads side by side and multiply by Wo.",
        formula="g(h) = h // (n_heads // n_kv_heads); head_h = attention(X Wq[:, h·d:(h+1)·d], X Wk[:, g·d:(g+1)·d], "
                "X Wv[:, g·d:(g+1)·d]); O = [head_0 | ... ] @ Wo",
    ),
    Exercise(
        name="grouped_cache_step",
        reference=grouped_cache_step,
        probes=GROUPED_PROBES,
        pipeline=grouped_cache_steps,
        verified="k and v appended to each group's cache, every query head attending over its own group, for 2 and "
                 "3 heads per group, MQA, one group per head, empty caches and huge scores",
        hint1="Lesson 14's cache_step, once per group for the cache and once per query head for the attention: the "
              "cache keeps one row per group and token, and several heads read the same group.",
        hint2="Append k[g] and v[g] as the last rows of group g's caches (axis 1 of the (n_kv_heads, t, d_head) "
              "arrays). Then head h scores q[h] against its group h // (n_heads // n_kv_heads), softmax, and "
              "mixes that group's values.",
        formula="K_new[g] = [K_cache[g]; k[g]], V_new likewise; "
                "o[h] = softmax(K_new[g(h)] q[h] / √d_head) V_new[g(h)], g(h) = h // (n_heads // n_kv_heads)",
    ),
]


FINDINGS = {
    "grouped_cache_step": [huge_scores(0)],
    "grouped_query_attention": [
        argument_mixups(at.grouped_query_attention, ("X", "Wq", "Wk", "Wv", "Wo", "n_heads", "n_kv_heads")),
        causality((rand(1745, 5, 6), rand(1746, 6, 6), rand(1747, 6, 3), rand(1748, 6, 3), rand(1749, 6, 6), 2, 1),
                  {}, [0]),
    ],
}
