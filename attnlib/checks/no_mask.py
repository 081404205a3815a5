"""Lesson 13, attention without a mask: padding_mask and cross_attention (queries from X, keys and values
from Z)."""
import numpy as np

import attnlib as at
from .attention_module import attention_steps
from .mask_and_softmax import mask_value_steps
from .probes import features, rand, tokens
from .properties import huge_scores, scale_finding, visibility
from .spec import Exercise, Probe


def cross_attention(X, Z, Wq, Wk, Wv):
    """Reference: queries from X (n_x, d_model), keys and values from Z (n_z, d_model), no mask."""
    return at.attention(X @ Wq, Z @ Wk, Z @ Wv, causal=False)


def cross_attention_steps(X, Z, Wq, Wk, Wv, *, c):
    """Queries from X, keys and values from Z, attention without a mask."""
    q, k, v = c("sources", right=(X, Z, Z), kv_from_wrong_sequence=(X, X, X), kv_from_wrong_sequence__values=(X, Z, X),
                kv_from_wrong_sequence__keys=(X, X, Z), sources_swapped=(Z, X, X))
    Q, K, V = q @ Wq, k @ Wk, v @ Wv
    return attention_steps(Q, K, V, causal=c("cross mask", right=False, mask_applied=True), c=c)


def padding_mask(n_q, n_valid, n_k):
    """Reference: (n_q, n_k) additive mask, 0.0 on the n_valid real keys, -inf on the padding after them."""
    row = np.where(np.arange(n_k) < n_valid, 0.0, -np.inf)  # (n_k,)
    return np.tile(row, (n_q, 1))


def padding_mask_steps(n_q, n_valid, n_k, *, c):
    """(n_q, n_k): 0.0 on the n_valid real keys, -inf on the padding after them, the same for every query."""
    i, j = c("padding shape", right=np.indices((n_q, n_k)), padding_mask_transposed=np.indices((n_k, n_q))[::-1].T,
             padding_mask_square=np.indices((n_k, n_k)))
    keep = c("padding boundary", right=j < n_valid,
             padding_mask_off_by_one=j <= n_valid, padding_mask_off_by_one__few=j < n_valid - 1,
             padding_mask_on_queries=i < n_valid, padding_mask_causal=(j < n_valid) & (j <= i + n_k - n_q),
             padding_mask_causal__top_left=(j < n_valid) & (j <= i),
             padding_mask_on_queries__and_keys=(j < n_valid) & (i < n_valid),
             padding_mask_on_the_left=j >= n_k - n_valid)
    return mask_value_steps(keep, c)


CHOICES = {
    "sources": "Look at where each of Q, K and V comes from: the queries from X, the keys and values both from Z.",
    "cross mask": "Look for a mask: every query of X may look at every position of Z.",
    "padding shape": "Print the shape of your mask: rows are queries, columns are keys.",
    "padding boundary": "Look at the condition that decides which columns stay visible: the first n_valid keys, "
                        "whatever the row.",
}


def _padding_probe(n_q, n_valid, n_k):
    return Probe((n_q, n_valid, n_k), names=("n_q", "n_valid", "n_k"), rows=tokens(n_q),
                 cols=tokens(n_valid) + ["<pad>"] * (n_k - n_valid))


PADDING_MASK = Exercise(
    name="padding_mask",
    reference=padding_mask,
    probes=[_padding_probe(3, 4, 6), _padding_probe(5, 2, 4), _padding_probe(4, 4, 4), _padding_probe(2, 1, 5),
            _padding_probe(6, 5, 7), _padding_probe(1, 3, 3)],
    pipeline=padding_mask_steps,
    verified="0 on the first n_valid keys and −∞ on the padding, the same for every query, with and without "
             "padding and with more or fewer queries than keys",
    hint1="A batch of sentences of different lengths is padded to one length with filler tokens. Nobody may attend "
          "to the filler: every query hides the same columns, the keys from n_valid on.",
    hint2="The mask depends on the column (the key) only, never on the row: columns before n_valid stay 0, the "
          "padding columns get minus infinity. The result is a float array of shape (n_q, n_k), with no causal "
          "part.",
    formula="M[i, j] = 0 if j < n_valid else −∞, for every row i",
)


def _cross_probe(seed, n_x, n_z, d_model, d_head, d_v, spread=1.0):
    args = (rand(seed, n_x, d_model, scale=spread), rand(seed + 1, n_z, d_model, scale=spread),
            rand(seed + 2, d_model, d_head), rand(seed + 3, d_model, d_head), rand(seed + 4, d_model, d_v))
    return Probe(args, names=("X", "Z", "Wq", "Wk", "Wv"), cols=features(d_v, "v"))


EXERCISES = [
    PADDING_MASK,
    Exercise(
        name="cross_attention",
        uses=('softmax',),
        reference=cross_attention,
        probes=[_cross_probe(600, 3, 5, 4, 2, 6), _cross_probe(610, 4, 6, 5, 3, 2), _cross_probe(620, 5, 5, 3, 3, 3),
                _cross_probe(640, 3, 4, 4, 2, 3, spread=30.0)],
        pipeline=cross_attention_steps,
        verified="queries from X, keys and values from Z, no mask, scaled by √d_head, including huge scores",
        hint1="Every query of X may look at every position of Z: nothing in Z is 'the future' of X.",
        hint2="The queries come from X, the keys and the values both from Z, each through its own weight matrix. "
              "Scale the scores by the square root of the query width, take the softmax along each row and leave "
              "out any mask: the result has one row per row of X.",
        formula="O = softmax((X Wq)(Z Wk)ᵀ / √d) Z Wv",
    ),
]


# property findings (properties.py) -------------------------------------------------------------------------------

def every_key_visible(f, seen):
    """Every query may use every position of Z: moving any row of Z must move every output row."""
    args = (rand(630, 4, 3), rand(631, 5, 3), rand(632, 3, 2), rand(633, 3, 2), rand(634, 3, 2))
    pattern = visibility(f, args, {}, [1])
    if pattern is None or pattern.all() or not pattern.any(axis=1).all():
        return None
    return "mask-applied", "some rows of your output do not change when a row of Z changes"


def _cross_sizes(p):
    X, Z, Wq, Wk, Wv = p.args
    return {"d": Wq.shape[1], "d_model": X.shape[1], "n_q": X.shape[0], "n_k": Z.shape[0], "d_v": Wv.shape[1]}


FINDINGS = {
    "cross_attention": [every_key_visible, scale_finding(cross_attention, 2, _cross_sizes), huge_scores(0)],
}


DIAGNOSES = {
    "padding-mask-off-by-one": "The boundary is one column off: the real tokens are columns 0 to n_valid − 1, and "
                               "the padding starts at column n_valid.",
    "padding-mask-on-the-left": "The padding was hidden at the start of the row; here the n_valid real tokens come "
                                "first and the padding after them.",
    "padding-mask-on-queries": "The mask hides rows (queries), instead of or besides the columns (keys); padding "
                               "is a key that no query may attend to, so every row hides the same columns and "
                               "keeps the real ones.",
    "padding-mask-causal": "A causal mask was added to the padding mask; this mask hides the padding only.",
    "padding-mask-transposed": "The mask has its rows and columns swapped: rows are queries, columns are keys.",
    "padding-mask-square": "The mask is n_k by n_k: it has one row per key, not one per query (n_q of them).",
}
