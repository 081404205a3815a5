"""Lesson 13, attention without a mask: cross_attention (queries from X, keys and values from Z)."""
import attnlib as al
from .mask_and_softmax import kq_instead_of_qk, scale_missing, softmax_wrong_axis
from .pieces import attention, weights
from .probes import features, rand, tokens
from .properties import huge_scores, intermediates, scale_finding, visibility
from .spec import Exercise, Probe


def cross_attention(X, Z, Wq, Wk, Wv):
    """Reference: queries from X (n_x, d_model), keys and values from Z (n_z, d_model), no mask."""
    return al.attention(X @ Wq, Z @ Wk, Z @ Wv, causal=False)


def causal_mask_applied(X, Z, Wq, Wk, Wv):
    return attention(X @ Wq, Z @ Wk, Z @ Wv, causal=True)


def keys_and_values_from_x(X, Z, Wq, Wk, Wv):
    return attention(X @ Wq, X @ Wk, X @ Wv, causal=False)


def values_from_x(X, Z, Wq, Wk, Wv):
    return attention(X @ Wq, Z @ Wk, X @ Wv, causal=False)


def keys_from_x(X, Z, Wq, Wk, Wv):
    return attention(X @ Wq, X @ Wk, Z @ Wv, causal=False)


def sources_swapped(X, Z, Wq, Wk, Wv):
    return attention(Z @ Wq, X @ Wk, X @ Wv, causal=False)


def cross_with(wrong_weights):
    """cross_attention whose weights come from a mistaken attention_weights."""
    def wrong_cross(X, Z, Wq, Wk, Wv):
        return attention(X @ Wq, Z @ Wk, Z @ Wv, causal=False, weights=wrong_weights)
    return wrong_cross


def _cross_probe(seed, n_x, n_z, d_model, d_head, d_v, spread=1.0):
    args = (rand(seed, n_x, d_model, scale=spread), rand(seed + 1, n_z, d_model, scale=spread),
            rand(seed + 2, d_model, d_head), rand(seed + 3, d_model, d_head), rand(seed + 4, d_model, d_v))
    return Probe(args, names=("X", "Z", "Wq", "Wk", "Wv"), rows=tokens(n_x), cols=features(d_v, "v"))


EXERCISES = [
    Exercise(
        name="cross_attention",
        uses=('softmax',),
        reference=cross_attention,
        probes=[_cross_probe(600, 3, 5, 4, 2, 6), _cross_probe(610, 4, 6, 5, 3, 2), _cross_probe(620, 5, 5, 3, 3, 3),
                _cross_probe(640, 3, 4, 4, 2, 3, spread=30.0)],
        mistakes=[("mask-applied", causal_mask_applied),
                  ("kv-from-wrong-sequence", keys_and_values_from_x),
                  ("kv-from-wrong-sequence", values_from_x),
                  ("kv-from-wrong-sequence", keys_from_x),
                  ("sources-swapped", sources_swapped),
                  ("scale-missing", cross_with(scale_missing)),
                  ("softmax-wrong-axis", cross_with(softmax_wrong_axis)),
                  ("kq-instead-of-qk", cross_with(kq_instead_of_qk))],
        verified="queries from X, keys and values from Z, no mask, scaled by √d_head, including huge scores",
        hint1="Every query of X may look at every position of Z: nothing in Z is 'the future' of X.",
        hint2="Q = X @ Wq, K = Z @ Wk, V = Z @ Wv, then softmax(Q Kᵀ / √d) V with no mask.",
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


def _cross_intermediates(X, Z, Wq, Wk, Wv):
    return [("returns-weights", weights(X @ Wq, Z @ Wk, causal=False))]


FINDINGS = {
    "cross_attention": [every_key_visible, scale_finding(cross_attention, 2, _cross_sizes), huge_scores(0),
                        intermediates(_cross_intermediates)],
}
