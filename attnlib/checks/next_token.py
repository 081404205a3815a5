"""Lesson 11, the next token: next_token_logits, cross_entropy, softmax_backward, attention_backward and
layer_norm_backward.

The three backward exercises return tuples (loss and gradient, or one gradient per input); the grader
compares every part. Their references are attnlib's public functions (in attnlib.loss, attnlib.attention and
attnlib.layers); the mistakes are the neighbours of the pipelines below (choices.py), written apart from those
references.
"""
import numpy as np

import attnlib as at
from .mask_and_softmax import scale_steps, softmax, weights_steps
from .probes import features, rand
from .properties import large_offset, precision, shift_invariance
from .spec import Exercise, Probe


# next_token_logits(H, W_vocab) -----------------------------------------------------------------------------------

def next_token_logits_steps(H, W_vocab, *, c):
    """logits (vocab,) = H[-1] @ W_vocab: the last position predicts the next token."""
    h = c.step("which row", right=lambda: H[-1], first_row_not_last=lambda: H[0], logits_for_every_row=lambda: H,
               mean_of_rows=lambda: H.mean(axis=0), mean_of_rows__summed=lambda: H.sum(axis=0),
               wrong_row=lambda: H[-2], wrong_row__wraps=lambda: H[len(H) - 2],
               last_column_not_last_row=lambda: H[:, -1])
    z = h @ W_vocab
    return c.step("raw scores", right=lambda: z, softmax_applied_to_logits=lambda: softmax(z))


# softmax_backward(A, dA) -----------------------------------------------------------------------------------------

def softmax_backward_steps(A, dA, *, c):
    """dS = A dA - A rowsum(dA A): each entry's own share, minus its row's shared sum."""
    F = c("softmax backward factor", right=A, softmax_backward_missing_a_factor=np.ones_like(A))
    axis = c("softmax backward sum", right=-1, softmax_backward_sum_wrong_axis=-2,
             softmax_backward_sum_wrong_axis__first=0, softmax_backward_sum_wrong_axis__one=1)
    shared = c.step("softmax backward reduction", right=lambda: (dA * A).sum(axis=axis, keepdims=axis != 0),
                    softmax_backward_mean_not_sum=lambda: (dA * A).mean(axis=axis, keepdims=axis != 0),
                    softmax_backward_diagonal_only=lambda: dA * A, softmax_backward_sum_wrong_axis__whole=lambda:
                    (dA * A).sum(), softmax_backward_unweighted_sum=lambda: dA.sum(axis=axis, keepdims=axis != 0))
    return c.terms("softmax-backward", own=F * dA, row_sum=-F * shared)


def _sm_bwd_probe(seed, shape, masked=False, shift=0.0):
    """A = softmax of random scores, dA random; `shift` moves every entry of dA (dS must not change)."""
    S = rand(seed, *shape)
    if masked:
        S = S + at.causal_mask(shape[-1])
    return Probe((at.softmax(S), rand(seed + 1, *shape) + shift), names=("A", "dA"))


# cross_entropy(logits, targets) ----------------------------------------------------------------------------------

def cross_entropy_steps(logits, targets, *, c):
    """(mean_i -log softmax(logits)[i, targets[i]], (softmax - one_hot) / n)."""
    Z = np.asarray(logits, dtype=float)
    n, vocab = Z.shape
    axis = c("probability axis", right=1, cross_entropy_wrong_axis=0)
    top = c("logits max", right=Z.max(axis=axis, keepdims=True), softmax_no_max_subtraction=0.0)
    E = np.exp(Z - top)
    total = E.sum(axis=axis, keepdims=True)
    P = E / total
    with np.errstate(all="ignore"):
        naive = Z - np.log(np.exp(Z).sum(axis=axis, keepdims=True))  # log-sum-exp without the max: overflows
        log_p, P = c("log probability", right=(Z - top - np.log(total), P), cross_entropy_log_underflow=(np.log(P), P),
                     cross_entropy_max_not_added_back=(Z - np.log(total), P),
                     cross_entropy_logit_as_log_probability=(Z, P),
                     softmax_no_max_subtraction__loss=(naive, P),
                     softmax_no_max_subtraction__log_space=(naive, np.exp(naive)),
                     **{f"cross_entropy_probability_clipped__{k}": (np.log(np.maximum(P, 10.0 ** -k)), P)
                        for k in (7, 8, 9, 10, 12, 15)})  # an eps "for safety" under the log
    targets = c("target ids", right=targets, cross_entropy_targets_from_one=targets - 1)  # -1: the last column
    picked = c.step("picked", right=lambda: -log_p[np.arange(n), targets],
                    cross_entropy_target_columns=lambda: -log_p[:, targets])
    reduce, divisor = c("loss reduction", right=(np.mean, n), cross_entropy_not_averaged=(np.sum, 1),
                        cross_entropy_loss_summed=(np.sum, n), cross_entropy_loss_per_row=(lambda v: v, n),
                        cross_entropy_averaged_over_entries=(lambda v: np.sum(v) / (n * vocab), n))
    target = c.step("gradient target", right=lambda: np.eye(vocab)[targets],
                    cross_entropy_one_hot_missing=lambda: np.zeros_like(P),  # below: 1 at every target column
                    cross_entropy_gradient_target_columns=lambda: np.ones_like(P) * np.isin(np.arange(vocab), targets))
    divisor = c("gradient average", right=divisor, cross_entropy_gradient_not_averaged=1,
                cross_entropy_gradient_divided_twice=divisor * n, cross_entropy_gradient_over_vocab=vocab)
    picked = c("loss sign", right=picked, cross_entropy_loss_sign=-picked)
    unit, unit_of_gradient = c("loss unit", right=(1.0, 1.0), cross_entropy_in_bits=(1 / np.log(2), 1.0),
                               cross_entropy_in_bits__gradient_too=(1 / np.log(2), 1 / np.log(2)))
    gradient = c("gradient sign", right=1.0, cross_entropy_gradient_sign=-1.0) * (P - target) / divisor
    return reduce(picked) * unit, gradient * unit_of_gradient


def _ce_probe(seed, n, vocab, targets=None, scale=2.0, dtype=np.float64, pick=np.argmin):
    """Random logits; targets given, or (targets=None) each row's `pick`: with huge logits, the least likely word's
    probability underflows to 0 and the most likely word's exponential overflows unless the max is subtracted."""
    logits = rand(seed, n, vocab, scale=scale)
    targets = pick(logits, axis=1) if targets is None else np.array(targets)
    return Probe((logits.astype(dtype), targets), names=("logits", "targets"),
                 cols=features(vocab, "w"))


# attention_backward(Q, K, V, dO, causal=True, scale=True) --------------------------------------------------------

def attention_backward_steps(Q, K, V, dO, causal=True, scale=True, *, c):
    """The forward pass's weights again, then back through O = A V, the softmax and S = Q Kᵀ s."""
    A = weights_steps(Q, K, causal, scale, c=c)
    full = scale_steps(Q.shape[-1], c)
    s = full if c("scale switch", right=scale, scale_ignored=True) else 1.0
    s = c("backward scale", right=s, attention_backward_scale_dropped=1.0, attention_backward_scale_twice=s * s,
          scale_ignored__backward=full)
    dA = c.step("upstream of A", right=lambda: dO @ V.T, attention_backward_transpose_missing=lambda: V @ dO.T)
    dS_unscaled = c.step("softmax backward", right=lambda: softmax_backward_steps(A, dA, c=c),
                         softmax_backward_arguments_swapped=lambda: softmax_backward_steps(dA, A, c=c),
                         attention_backward_softmax_skipped=lambda: np.where(A > 0, dA, 0.0))
    dS = dS_unscaled * s
    dK = c.step("dK", right=lambda: dS.T @ Q, attention_backward_transpose_missing__dk=lambda: dS @ Q,
                attention_backward_dk_from_k=lambda: dS.T @ K, attention_backward_dk_unscaled=lambda: dS_unscaled.T @ Q,
                attention_backward_dk_scaled_twice=lambda: dS.T @ Q * s)
    dV = c.step("dV", right=lambda: A.T @ dO, attention_backward_transpose_missing__dv=lambda: A @ dO,
                attention_backward_dv_scaled=lambda: A.T @ dO * s,
                attention_backward_dv_from_scores=lambda: (Q @ K.T * (full if scale else 1.0)).T @ dO)
    dQ = c.step("dQ", right=lambda: dS @ K, attention_backward_dq_transposed=lambda: dS.T @ K)
    dQ, dK, dV = (c.terms(f"attention-backward-{name}", product=G) for name, G in (("dq", dQ), ("dk", dK), ("dv", dV)))
    return c("gradient order", right=(dQ, dK, dV), attention_backward_dq_dk_swapped=(dK, dQ, dV))


def _ab_probe(seed, n_q, n_k, d, d_v, size=1.0, dtype=np.float64, **kw):
    """Q (n_q, d), K (n_k, d) of the given spread (60: huge scores), V (n_k, d_v), dO (n_q, d_v)."""
    args = (rand(seed, n_q, d, scale=size), rand(seed + 1, n_k, d, scale=size), rand(seed + 2, n_k, d_v),
            rand(seed + 3, n_q, d_v))
    return Probe(tuple(a.astype(dtype) for a in args), kw, names=("Q", "K", "V", "dO"),
                 cols=features(d))


# layer_norm_backward(X, g, dY, eps=1e-5) -------------------------------------------------------------------------

def layer_norm_backward_steps(X, g, dY, eps=1e-5, *, c):
    """dX = (dx̂ - mean(dx̂) - x̂ mean(dx̂ x̂)) / sqrt(var + eps), dg = Σ_rows dY x̂, db = Σ_rows dY."""
    var = X.var(axis=1, ddof=c("variance", right=0, layer_norm_unbiased_variance=1), keepdims=True)
    eps = c("eps", right=eps, layer_norm_eps_ignored=1e-5, layer_norm_eps_ignored__zero=0.0)
    r = c.step("inverse std", right=lambda: 1.0 / np.sqrt(var + eps),
               layer_norm_eps_outside_sqrt=lambda: 1.0 / (np.sqrt(var) + eps))
    Xhat = (X - X.mean(axis=1, keepdims=True)) * r
    dXhat, late = c("gain", right=(dY * g, 1.0), layer_norm_backward_gain_ignored=(dY, 1.0),
                    layer_norm_backward_gain_applied_late=(dY, g))
    def mean(a):
        return a.mean(axis=1, keepdims=True)

    def total(a):
        return a.sum(axis=1, keepdims=True)

    first, second = c("corrections", right=(mean, mean), layer_norm_backward_sums_not_means=(total, total),
                      layer_norm_backward_mean_correction_summed=(total, mean),
                      layer_norm_backward_variance_correction_summed=(mean, total))
    out = late * c("dX factor", right=r, layer_norm_backward_std_missing=1.0)
    dX = c.terms("layer-norm-backward", own=dXhat * out, mean_term=-first(dXhat) * out,
                 variance_term=-Xhat * second(dXhat * Xhat) * out)
    rows = c("parameter sums", right=0, layer_norm_backward_sums_wrong_axis=1,
             layer_norm_backward_parameters_not_summed=())  # a sum over no axis: one gradient per row
    n_g, n_b = c("parameter reduction", right=(1, 1), layer_norm_backward_parameter_gradients_averaged=(len(X),) * 2,
                 layer_norm_backward_parameter_gradients_averaged__db=(1, len(X)))  # a mean: the sum over n rows
    dg = c.terms("layer-norm-backward-dg", sum=c("dg", right=(dY * Xhat).sum(axis=rows),
                                                 layer_norm_backward_dg_uses_x=(dY * X).sum(axis=rows)) / n_g)
    db = c.terms("layer-norm-backward-db", sum=dY.sum(axis=rows) / n_b)
    return dX, dg, db


def _lnb_probe(seed, n, d, spread=1.0, offset=1.0, dtype=np.float64, **kw):
    """Rows of the given spread around random offsets, a gain around 1 and a random upstream gradient dY."""
    X = rand(seed, n, d, scale=spread) + rand(seed + 1, n, 1, scale=offset)
    args = (X, rand(seed + 2, d, scale=0.5) + 1.0, rand(seed + 3, n, d))
    return Probe(tuple(a.astype(dtype) for a in args), kw, names=("X", "g", "dY"), cols=features(d))


EXERCISES = [
    Exercise(
        name="next_token_logits",
        reference=at.next_token_logits,
        probes=[Probe((rand(500, 5, 6), rand(501, 6, 9)), names=("H", "W_vocab"), cols=features(9, "w")),
                Probe((rand(502, 3, 4), rand(503, 4, 7)), names=("H", "W_vocab"), cols=features(7, "w")),
                Probe((rand(504, 1, 3), rand(505, 3, 5)), names=("H", "W_vocab"), cols=features(5, "w"))],
        pipeline=next_token_logits_steps,
        verified="the last row of H times W_vocab, for three vocabulary sizes and an H of one row",
        hint1="Only the last position predicts the next token: after it, nothing has been seen yet.",
        hint2="Only one row of H matters here. Multiply it by the vocabulary matrix and check that the result "
              "has shape (vocab,): one raw score per word, with no softmax.",
        formula="logits = H[-1] @ W_vocab",
    ),
    Exercise(
        name="cross_entropy",
        reference=at.cross_entropy,
        probes=[_ce_probe(520, 4, 6, [1, 0, 5, 1]), _ce_probe(522, 3, 5, [4, 4, 2], scale=1.0),
                _ce_probe(524, 5, 7, [0, 6, 3, 3, 2], dtype=np.float32), _ce_probe(526, 3, 6, scale=1e4),
                _ce_probe(528, 3, 6, scale=1e4, pick=np.argmax)],
        pipeline=cross_entropy_steps,
        verified="the mean of -log softmax(logits)[target] and its gradient (softmax - one_hot) / n, with a repeated "
                 "target, float32 logits, and logits around 10,000 (with targets of probability 0.0 in floats, and "
                 "with the most likely ones)",
        hint1="Each row is scored by how surprised the model is by the right word: minus the log of the probability "
              "its softmax gives the target. The loss averages that over the n rows. Its gradient with respect to a "
              "row of logits is the row's probabilities minus the one-hot target, shared out over the rows.",
        hint2="Work with log-probabilities, not probabilities: subtract each row's maximum before the exponential, "
              "and take the log of the row's sum instead of the log of a tiny probability. Then check that the loss "
              "and every row of the gradient carry the average over n, and that each gradient row lowers the "
              "target's column by one.",
        formula="loss = mean_i (logsumexp(logits[i]) - logits[i, targets[i]]);  "
                "dlogits = (softmax(logits) - one_hot(targets)) / n",
    ),
    Exercise(
        name="softmax_backward",
        reference=at.softmax_backward,
        probes=[_sm_bwd_probe(510, (3, 5)), _sm_bwd_probe(512, (4, 4), masked=True), _sm_bwd_probe(514, (2, 3, 4)),
                _sm_bwd_probe(516, (3, 5), shift=1e4)],
        pipeline=softmax_backward_steps,
        gradients=(("softmax-backward", None),),
        verified="dS = A (dA - rowsum(dA A)) on a wide matrix, a masked one, a 3-D stack and a dA around 10,000 "
                 "(float64 precision)",
        hint1="Each row is its own softmax. Changing S[i, j] moves A[i, j] up and every other A[i, k] down.",
        hint2="Each entry of dS keeps its own factor from A and subtracts one number shared by its row: the "
              "A-weighted sum of that row of dA. Look at which axis that sum runs along, and keep it as a column "
              "so that it lines up with the row.",
        formula="dS = A * (dA - sum(dA * A, axis=-1, keepdims=True))",
    ),
    Exercise(
        name="attention_backward",
        uses=("softmax_backward",),
        reference=at.attention_backward,
        probes=[_ab_probe(530, 3, 5, 4, 2), _ab_probe(534, 4, 4, 3, 5), _ab_probe(538, 5, 3, 2, 4, causal=False),
                _ab_probe(542, 4, 4, 3, 2, causal=False), _ab_probe(546, 3, 5, 4, 2, scale=False),
                _ab_probe(550, 5, 5, 4, 3, dtype=np.float32), _ab_probe(554, 3, 5, 4, 2, size=60.0)],
        pipeline=attention_backward_steps,
        gradients=(("attention-backward-dq", 0), ("attention-backward-dk", 1), ("attention-backward-dv", 2)),
        verified="dQ, dK, dV of sum(O * dO) with and without the mask and the scale, fewer queries than keys (the "
                 "last positions), a first row that sees only itself, float32 and huge scores",
        hint1="Run the forward pass again, then walk back through its three steps in reverse: O mixes the rows of V "
              "with the weights A, A is the row softmax of the scaled, masked scores, and the scores compare every "
              "query with every key. Each product hands the gradient to both of its factors.",
        hint2="Recompute A exactly as the forward pass does, with the same mask and the same scale. dV comes from A "
              "and dO; the gradient of A comes from dO and V; your softmax backward turns it into the gradient of "
              "the scores, which the scale multiplies once more before it reaches Q and K. Write the shape next to "
              "each product: dQ has one row per query, dK and dV one row per key. Then grad-check it.",
        formula="A = softmax(mask(Q Kᵀ s)) with s = 1/√d (1 if not scale);  dV = Aᵀ dO;  "
                "dS = softmax_backward(A, dO Vᵀ) · s;  dQ = dS K;  dK = dSᵀ Q",
    ),
    Exercise(
        name="layer_norm_backward",
        reference=at.layer_norm_backward,
        probes=[_lnb_probe(560, 4, 6, 2.0), _lnb_probe(565, 5, 5, 1.0), _lnb_probe(570, 3, 5, 0.3, eps=0.1),
                _lnb_probe(575, 6, 3, 3e-3, offset=1e-3), _lnb_probe(580, 4, 8, 1.5, dtype=np.float32)],
        pipeline=layer_norm_backward_steps,
        gradients=(("layer-norm-backward", 0), ("layer-norm-backward-dg", 1), ("layer-norm-backward-db", 2)),
        verified="dX with both corrections (row mean and row variance), dg and db, on a square and a wide X, "
                 "eps=0.1, nearly constant rows where eps dominates, and float32",
        hint1="db and dg collect dY over the rows, dg weighted by the normalised input. For dX, remember that the "
              "row mean and the row variance depend on every entry of the row: moving one entry moves the whole "
              "row's normalisation, so the gradient picks up two corrections.",
        hint2="Multiply dY by g first: that is the gradient of the normalised row. From each row of it remove its "
              "mean and its component along the normalised row, then divide by the same standard deviation the "
              "forward pass used, eps included. The sums for dg and db run over the rows; the corrections run over "
              "the features of one row. Then grad-check it.",
        formula="x̂ = (X - mean) / √(var + eps);  db = Σ_rows dY;  dg = Σ_rows dY x̂;  dx̂ = dY g;  "
                "dX = (dx̂ - mean(dx̂) - x̂ · mean(dx̂ x̂)) / √(var + eps), the means taken along each row",
    ),
]


# property findings (properties.py) -------------------------------------------------------------------------------

def _offset_rows(dA):
    return dA + 1e4


FINDINGS = {
    "softmax_backward": [
        precision(large_offset(1)),
        shift_invariance(1, _offset_rows, "precision-loss",
                         "adding the same constant to every entry of dA changed your result; it must not"),
    ],
}


CHOICES = {
    "which row": "Only one row of H predicts the next token: the last position's.",
    "softmax backward reduction": "Look at the shared term of each row: a sum of dA · A over the keys, not a mean.",
    "loss sign": "Look at the sign of your loss: -log p of the target is positive.",
    "raw scores": "Look at what you return: raw scores, one per word, with no softmax.",
    "logits max": "Look at what you subtract before the exponential: each row's largest logit.",
    "log probability": "Follow one row's log-sum-exp with huge logits: what you take the log of must neither round "
                       "to 0 nor overflow, and the maximum you took out must come back.",
    "target ids": "Look at which column you read for target t: ids count from 0.",
    "picked": "Print the shape of what you average: one log-probability per row, at its own target.",
    "loss reduction": "Look at how the rows' losses become one number: their mean over the n rows.",
    "probability axis": "Look at the axis of every sum and max in your softmax: a row's probabilities run over the "
                        "vocabulary.",
    "loss unit": "Look at the base of your logarithm.",
    "gradient target": "Add up one row of your gradient: it should come to zero, with the one-hot target subtracted "
                       "at one entry per row.",
    "gradient average": "Count the divisions by n on the way to your gradient: the loss's mean brings one.",
    "gradient sign": "Look at the sign of the target's entry in a gradient row: it should be negative.",
    "softmax backward factor": "Look at what multiplies each entry of dS: the softmax's own output A.",
    "softmax backward sum": "Look at the axis of the sum shared by a row: the one that holds one query's weights.",
    "softmax-backward": "Each entry of dS keeps its own share and subtracts its row's A-weighted sum: look at both "
                        "terms and their signs.",
    "backward scale": "Count the times your backward pass multiplies by the scale: the forward pass did it once.",
    "softmax backward": "Look at the order of the arguments you give softmax_backward: the weights first, then their "
                        "gradient.",
    "upstream of A": "Write the shape of the gradient that reaches A: one row per query, one column per key.",
    "dK": "Look at the product that gives dK: one row per key, from the scores' gradient and the queries.",
    "dQ": "Look at the product that gives dQ: one row per query, from dS and K.",
    "dV": "Look at the product that gives dV: one row per key, from the weights and dO.",
    "gradient order": "Look at the order of the gradients you return: dQ, dK, dV.",
    "variance": "Look at the variance your forward pass divides by: the mean of the squared deviations, over d.",
    "eps": "Look at how your function uses its eps argument.",
    "inverse std": "Look at where eps goes: inside the square root, added to the variance.",
    "gain": "Look at where g enters: the gradient of the normalised row is dY times g, before the corrections.",
    "corrections": "Look at the two reductions along each row in your dX: sums or means?",
    "dX factor": "Look at the last step of your dX: the forward pass divided by the standard deviation.",
    "layer-norm-backward": "The row mean and the row variance both depend on every entry of the row: look at the two "
                           "corrections of dX and their signs.",
    "parameter sums": "Look at the axis of the sums for dg and db: over the rows, one entry per feature.",
    "dg": "Look at what dY is weighted by in dg: the normalised input.",
    "parameter reduction": "Look at the reduction over the rows in dg and db: a sum or a mean?",
}


# the diagnoses only these exercises use (registry.py merges them into diagnoses.py's tables) ---------------------

DIAGNOSES = {
    "last-column-not-last-row": "The last column of H was taken instead of its last row: H has one row per "
                                "position, and the last position's row predicts the next token.",
    "cross-entropy-logit-as-log-probability": "The loss used the target's raw logit as its log-probability: the "
                                              "log of the softmax subtracts the log-sum-exp of the row's logits "
                                              "first.",
    "attention-backward-dv-from-scores": "dV was made from the scores S instead of the weights A: the forward pass "
                                         "mixes V with A, the softmax of the masked scores.",
    "attention-backward-dq-transposed": "dQ used dS transposed: dQ has one row per query, so it is dS times K "
                                        "with dS as it is.",
    "attention-backward-softmax-skipped": "The gradient reaching the weights was used as the gradient of the scores: "
                                          "the softmax's backward step between them was skipped.",
    "layer-norm-backward-parameters-not-summed": "dg and db came back with one row per token: g and b are shared by "
                                                 "every row, so their gradients are summed over the rows.",
    "cross-entropy-not-averaged": "The loss was summed over the rows instead of averaged, and the gradient was not "
                                  "divided by n either.",
    "cross-entropy-loss-summed": "The loss was summed over the rows instead of averaged, while the gradient is "
                                 "divided by n: the loss returned is n times the mean, and the gradient no longer "
                                 "belongs to it.",
    "cross-entropy-gradient-not-averaged": "The loss is the mean over the rows, but the gradient was left undivided: "
                                           "it is the gradient of their sum.",
    "cross-entropy-gradient-over-vocab": "The gradient was divided by the vocabulary size; the loss averages over "
                                         "the n rows, so the gradient is divided by n.",
    "cross-entropy-one-hot-missing": "The gradient is the softmax alone, without the one-hot target, so the right word "
                                     "is pushed down like the wrong ones.",
    "cross-entropy-gradient-sign": "The gradient has the wrong sign: a step against it lowers the target's logit and "
                                   "raises the others.",
    "cross-entropy-log-underflow": "For huge logits your loss is infinite while your gradient is finite: the loss "
                                   "takes the log of the target's probability, which underflowed to 0.",
    "cross-entropy-gradient-target-columns": "The gradient subtracted the one in every target column of every "
                                             "row, instead of in one entry per row: row i's own target.",
    "cross-entropy-targets-from-one": "The targets were read as counted from 1 (column target minus 1): token ids "
                                      "count from 0, so target t is column t.",
    "cross-entropy-target-columns": "The loss took the target columns for every row, an n by n block, instead of one "
                                    "entry per row.",
    "cross-entropy-loss-per-row": "The loss came back as one number per row; the exercise asks for their mean, a "
                                  "single number.",
    "attention-backward-dk-from-k": "dK was built from K itself, but a score, query i against key j, changes with key "
                                    "j in proportion to query i.",
    "layer-norm-backward-parameter-gradients-averaged": "db (or dg) was averaged over the rows, although g and b are "
                                                        "used by every row and each row's gradient adds up.",
    "layer-norm-backward-sums-not-means": "The two corrections of dX used row sums where they need row means: the "
                                          "mean and the variance each spread a change of one entry over the d "
                                          "entries of its row, a factor of one over d.",
    "layer-norm-backward-mean-correction-summed": "The first correction of dX, for the row mean, subtracts the row "
                                                  "sum of dx̂ where it needs its row mean: a factor of one over d "
                                                  "is missing.",
    "layer-norm-backward-variance-correction-summed": "The second correction of dX, for the row variance, uses the "
                                                      "row sum of dx̂ x̂ where it needs its row mean: a factor of one "
                                                      "over d is missing.",
    "cross-entropy-probability-clipped": "The probability was guarded by a small eps before its log (clipped "
                                         "to it, or added to it), so a confident wrong prediction costs at most "
                                         "minus the log of eps (27.6 for 1e-12) instead of its true, larger loss.",
    "cross-entropy-in-bits": "The loss was measured in bits (a base-2 logarithm, or divided by ln 2). The course "
                             "measures it in nats, with the natural logarithm, as the softmax's exponential does.",
    "cross-entropy-averaged-over-entries": "The loss was averaged over all n times vocab entries of the one-hot "
                                           "product, although only one entry per row is not zero.",
    "cross-entropy-max-not-added-back": "The log of the row's sum of exponentials was taken after subtracting the "
                                        "row maximum, and the maximum was not added back: each row's loss is off "
                                        "by its largest logit.",
    "cross-entropy-gradient-divided-twice": "The gradient was divided by n twice. The loss's factor of one over n "
                                            "reaches each row of dlogits once.",
    "cross-entropy-wrong-axis": "The softmax was taken down the columns (over the rows) instead of along each row. "
                                "Each row of logits is one prediction over the vocabulary.",
    "attention-backward-scale-dropped": "The gradient of the scores was not multiplied by the scale. The forward "
                                        "pass multiplies the scores by one over the root of d, so the gradient that "
                                        "reaches Q and K carries the same factor (dV does not).",
    "attention-backward-dk-unscaled": "dK left out the scale: the forward pass multiplies the scores by one over "
                                      "the root of d, so dK carries that factor, as dQ does.",
    "attention-backward-dk-scaled-twice": "dK carries the scale twice: the gradient of the scores already holds the "
                                          "factor one over the root of d, and dK multiplied by it once more. dQ and dK "
                                          "each carry it once.",
    "softmax-backward-arguments-swapped": "softmax_backward got its two arguments the other way round: the weights "
                                          "A first, then the gradient dA that reaches them.",
    "attention-backward-scale-twice": "The scale was applied twice on the way back: dQ and dK are one over the root "
                                      "of d too small. The forward pass scales the scores once, so the backward "
                                      "pass multiplies by that factor once.",
    "attention-backward-dq-dk-swapped": "dQ and dK came back in each other's places. dQ has one row per query and "
                                        "dK one row per key; the gradient of the scores reaches Q through K and "
                                        "reaches K through Q.",
    "attention-backward-transpose-missing": "A transpose is missing in one of the backward products.",
    "layer-norm-backward-mean-term-missing": "dX lacks the correction from the row mean, which depends on every entry "
                                             "of the row.",
    "layer-norm-backward-variance-term-missing": "dX lacks the correction from the row variance, which depends on "
                                                 "every entry of the row.",
    "layer-norm-backward-gain-ignored": "g was left out of dX, although the forward pass multiplies the normalised row "
                                        "by g.",
    "layer-norm-backward-gain-applied-late": "g was applied after the two corrections instead of before them.",
    "layer-norm-backward-dg-uses-x": "dg used the raw input X instead of the normalised one.",
    "layer-norm-backward-sums-wrong-axis": "dg and db were summed along each row, over the features, instead of over "
                                           "the rows.",
    "layer-norm-backward-std-missing": "dX was not divided by the row's standard deviation (with eps inside its root), "
                                       "although the forward pass divides each centred row by it.",
}

NUDGES = {
    "layer-norm-backward-mean-term-missing": "Add up each row of your dX: the sums should be zero.",
    "layer-norm-backward-variance-term-missing": "Multiply each row of your dX by the centred row of X and add it "
                                                 "up: it should be almost zero.",
}
