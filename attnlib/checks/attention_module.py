"""Lesson 07, the attention module: attention and self_attention.

Their mistakes are attention_weights' mistakes carried one step further
(O = A V, then Q, K, V from X), plus the ones only this step can make.
"""
import numpy as np

import attnlib as al
from .mask_and_softmax import WEIGHTS_MISTAKES
from .pieces import attention, mask, softmax, weights
from .probes import features, qk_probes, rand, tokens
from .properties import argument_mixups, causality, huge_scores, intermediates, scale_finding
from .spec import Exercise, Probe


# attention(Q, K, V, causal=True, scale=True) ---------------------------------------------------------------------

def attention_with(wrong_weights):
    """attention(Q, K, V, causal, scale) whose weights come from a mistaken attention_weights."""
    def wrong_attention(Q, K, V, causal=True, scale=True):
        return attention(Q, K, V, causal, scale, weights=wrong_weights)
    return wrong_attention


def av_transposed(Q, K, V, causal=True, scale=True):
    return weights(Q, K, causal, scale).T @ V


def va_instead_of_av(Q, K, V, causal=True, scale=True):
    return V @ weights(Q, K, causal, scale)


ATTENTION_MISTAKES = [(diagnosis, attention_with(wrong)) for diagnosis, wrong in WEIGHTS_MISTAKES] + [
    ("av-transposed", av_transposed),
    ("va-instead-of-av", va_instead_of_av),
]


def qkv_probes(seed):
    """qk_probes with a V of a different width d_v for each."""
    probes = qk_probes(seed)
    for p, d_v in zip(probes, (6, 4, 7, 2, 3)):
        n_k = p.args[1].shape[0]
        p.args = p.args + (rand(seed + 20 + d_v, n_k, d_v),)
        p.names = ("Q", "K", "V")
        p.cols = features(d_v, "v")
    return probes


# self_attention(X, Wq, Wk, Wv, Wo=None, causal=True) -------------------------------------------------------------

def self_attention_with(wrong_attention):
    """self_attention built on a mistaken attention: Q, K, V from X, scaled, then Wo if given."""
    def wrong_self_attention(X, Wq, Wk, Wv, Wo=None, causal=True):
        O = wrong_attention(X @ Wq, X @ Wk, X @ Wv, causal, True)  # (n, d_v)
        return O if Wo is None else O @ Wo
    return wrong_self_attention


def projections_transposed(X, Wq, Wk, Wv, Wo=None, causal=True):
    O = attention(X @ Wq.T, X @ Wk.T, X @ Wv.T, causal)
    return O if Wo is None else O @ Wo


def scaled_by_d_model(X, Wq, Wk, Wv, Wo=None, causal=True):
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    O = softmax(mask(Q @ K.T / np.sqrt(X.shape[1]), causal)) @ V
    return O if Wo is None else O @ Wo


def wo_ignored(X, Wq, Wk, Wv, Wo=None, causal=True):
    return attention(X @ Wq, X @ Wk, X @ Wv, causal)


_ATTENTION = dict(ATTENTION_MISTAKES)
SELF_ATTENTION_MISTAKES = [
    ("weights-transposed", projections_transposed),
    ("scale-by-d-model", scaled_by_d_model),
] + [(diagnosis, self_attention_with(_ATTENTION[diagnosis])) for diagnosis in (
    "kq-instead-of-qk", "scale-missing", "mask-not-applied", "mask-always-applied", "mask-hides-diagonal",
    "mask-value-zero", "mask-after-softmax", "av-transposed", "softmax-wrong-axis")] + [
    ("wo-ignored", wo_ignored),
]


def _sa_probe(seed, d_model, d_head, d_v, d_out=None, **kw):
    n = 5
    args = (rand(seed, n, d_model), rand(seed + 1, d_model, d_head), rand(seed + 2, d_model, d_head),
            rand(seed + 3, d_model, d_v)) + ((rand(seed + 4, d_v, d_out),) if d_out else ())
    return Probe(args, kw, names=("X", "Wq", "Wk", "Wv", "Wo"), rows=tokens(n), cols=features(d_out or d_v, "o"))


EXERCISES = [
    Exercise(
        name="attention",
        uses=('softmax', 'attention_weights'),
        reference=al.attention,
        probes=qkv_probes(100),
        mistakes=ATTENTION_MISTAKES,
        verified="O = A V for n_q < n_k, n_q = n_k, causal=False, scale=False and huge logits",
        hint1="Compute the weights A as in attention_weights, then mix the rows of V with them.",
        hint2="A is (n_q, n_k) and V is (n_k, d_v): O = A @ V is (n_q, d_v).",
        formula="O = softmax(Q Kᵀ / √d + M) V",
    ),
    Exercise(
        name="self_attention",
        uses=('softmax', 'attention'),
        reference=al.self_attention,
        probes=[_sa_probe(110, 6, 4, 3), _sa_probe(120, 6, 4, 3, 7), _sa_probe(130, 3, 2, 4, causal=False),
                _sa_probe(140, 4, 4, 4, 4)],
        mistakes=SELF_ATTENTION_MISTAKES,
        verified="Q, K, V from X, causal attention, the optional Wo, on non-square weights",
        hint1="Project X three times (Q = X Wq, K = X Wk, V = X Wv), then apply causal attention, then Wo if given.",
        hint2="Scale by √d_head, the width of Q and K (Wq.shape[1]), not by d_model.",
        formula="O = softmax(X Wq (X Wk)ᵀ / √d_head + M) X Wv [@ Wo]",
    ),
]


# property findings (properties.py) -------------------------------------------------------------------------------

def _attention_intermediates(Q, K, V, causal=True, scale=True):
    A = weights(Q, K, causal, scale)
    found = [("returns-weights", A), ("wrong-argument-used", A @ K)]
    if scale:
        found.append(("scale-on-output", attention(Q, K, V, causal, False) / np.sqrt(Q.shape[1])))
    return found


def _sizes(p):
    Q, K, V = p.args[:3]
    return {"d": Q.shape[1], "n_q": Q.shape[0], "n_k": K.shape[0], "d_v": V.shape[1]}


def _self_attention_intermediates(X, Wq, Wk, Wv, Wo=None, causal=True):
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    O = attention(Q, K, V, causal)
    found = [("returns-weights", weights(Q, K, causal)), ("extra-residual", X + (O if Wo is None else O @ Wo))]
    if Wo is not None and Wq.shape[0] == Wq.shape[1] == Wv.shape[1]:
        O_t = attention(X @ Wq.T, X @ Wk.T, X @ Wv.T, causal)
        found.append(("weights-transposed", O_t @ Wo.T))
    return found


def _sa_sizes(p):
    X, Wq, Wk, Wv = p.args[:4]
    return {"d": Wq.shape[1], "d_model": X.shape[1], "d_v": Wv.shape[1], "n": X.shape[0]}


FINDINGS = {
    "attention": [
        causality((rand(150, 5, 4), rand(151, 5, 4), rand(152, 5, 3)), {}, [1, 2]),
        scale_finding(attention, 0, _sizes, lambda p: p.kwargs.get("scale", True)),
        intermediates(_attention_intermediates),
        huge_scores(0),
    ],
    "self_attention": [
        scale_finding(al.self_attention, 1, _sa_sizes),
        intermediates(_self_attention_intermediates),
        argument_mixups(al.self_attention, ("X", "Wq", "Wk", "Wv", "Wo")),
        causality((rand(160, 5, 4), rand(161, 4, 4), rand(162, 4, 4), rand(163, 4, 3)), {}, [0]),
    ],
}
