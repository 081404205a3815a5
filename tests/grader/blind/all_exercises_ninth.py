"""Blind set 9: learner mistakes for every check of the course, and one right answer per check written another way.

Covered: all 52 check names (project, compose, project_rows, matmul_cost, values, one_hot, uniform_causal_weights,
causal_average, similarity, learned_scores, causal_mask, softmax, score_scale, attention_weights, attention,
self_attention, future_leak, tiled_attention, embed, sinusoidal_positions, split_heads, multi_head_attention,
layer_norm, gelu, transformer_block, next_token_logits, cross_entropy, softmax_backward, attention_backward,
layer_norm_backward, most_attended, attention_entropy, padding_mask, cross_attention, attend_step, cache_step,
sample_next, top_k_filter, top_p_filter, generate, kv_cache_bytes, max_cached_tokens, previous_token_score,
prefix_matching_score, ablate_head, rope, rope_attention, grouped_query_attention, grouped_cache_step,
sliding_window_mask, rolling_cache_step and the capstone).

How it was written: blind. Only the exercise notebooks (their texts and stubs), the lessons, the README and attnlib's
maths modules were read; never the grader, its tests and mutants, the earlier blind sets or the solutions. Each
function is a whole function with the exercise's exact signature, as a learner could write it after reading that
exercise; where the notebooks hand out a helper (attend, attend_step) or a learner reuses an earlier passing piece
(my_softmax, my_weights, my_layer_norm, my_gelu, my_multi_head_attention, my_rope), that helper is defined once at
the top and is correct. A capstone entry is the dict of ops TinyLM(ops=...) takes (attnlib.learner_ops.NAMES), built
from this set's right answers (RIGHT_OPS) with one or two ops replaced by a wrong one.

Habits imitated (new in this set):
- PyTorch translated imperfectly: F.linear's and nn.Linear's (out, in) weight layout, out_proj / lm_head weights,
  torch.triu(diagonal=1) kept for rectangular or inverted masks, masked_fill with the mask's meaning inverted,
  boolean attn_mask / key_padding_mask returned, -1e9 for -inf, F.softmax(dim=0), size(0) for size(-1), h[:, -1],
  torch.var's unbiased default, F.gelu's exact erf default, F.one_hot's inferred width, torch.stack/chunk/index_select
  dims, .T on a 3-D array, view/reshape where a transpose was needed, (output, weights) returned like
  nn.MultiheadAttention;
- the previous exercise's code adapted incompletely: a flag not passed on (scale, causal, theta), a leftover variable
  (X for Y, Wq for Wk, X for Z), a scale or mask copied where none belongs, the earlier function's axis or
  "last n positions" rule kept, attend reused with its default causal=True;
- vectorised tricks with one index wrong: einsum subscripts, a missing None in broadcasting, np.subtract.outer /
  np.equal.outer taken the wrong way, np.take_along_axis, np.put_along_axis, sliding_window_view strides,
  tensordot axes, argsort / argpartition ends;
- the text's words misread: the last token, the previous token, the k largest, at most, at least, inclusive bounds,
  the first n_valid, the sinks, per head against per group, repeats included, counts against distances;
- state mishandled: inputs changed in place (+=, out=, views, aliases, a ring buffer), mutable default lists, a
  module-level memo keyed on shapes, a view of an input returned;
- numerical habits: clipping or eps inside a log, float16 / float32 "to save memory", float or np.int64 / np.int32
  where an exact int is needed, integer division and math.isqrt where floats were needed, rounding, a max taken
  globally or only in the numerator, the running max started at 0;
- backward passes: a sign flipped, a term dropped, a transpose on the wrong factor, the 1/n of a mean forgotten or
  applied twice, the chain rule through the scale skipped or applied twice, the forward recomputed with the wrong
  mask or variance.

How it was verified: a separate script compares every entry, for every check name, with a reference (attnlib's public
function where one exists, otherwise written from the exercise text) on targeted inputs (edge sizes, ties,
n_q < n_k, scores around 1e3 to 1e300, t = 0 caches, full and partial windows, custom theta, eps, batch and bytes,
memories past 2**63) and 50 random inputs, each call on its own copy of the inputs. Every mistake differs on at
least one input (a value beyond 1e-6 relative, a shape, a type the text requires, an exception, an input modified
in place, tiled_attention's peak memory over 1/64 of an (n, n) float64 matrix, or a cache_step call count the text
does not allow); every right answer matches to 1e-9 relative on all inputs and leaves them unchanged. Each capstone
dict builds TinyLM in the four configurations the capstone uses (learned positions, rope, one K/V group, a window of
4 with 1 sink) and trains; the right dict reproduces attnlib's losses (1e-6) and tokens, and every replaced op
differs from its right counterpart on its own exercise's inputs.

Counts: 239 mistakes (5 each for 27 checks, 4 each for the other 24, 8 for the capstone) and 52 right answers.
"""
from dataclasses import dataclass
from typing import Callable
import math
import numpy as np


@dataclass(frozen=True)
class Mistake:
    exercise: str  # the exercise's check name, e.g. "causal_mask"
    what: str      # one precise plain-English line naming the mistake, as an ideal grader would
    fn: Callable   # the learner's function, with the exercise's exact signature (for the capstone: the dict of ops)


M = Mistake


# ============================================================================
# Helpers the notebooks hand out, and a learner's own earlier (correct) pieces that later cells reuse

def attend(Q, K, V, causal=True):
    """Scaled attention for one head (the helper printed in exercises 09 and 17)."""
    S = Q @ K.T / np.sqrt(Q.shape[1])
    if causal:
        S = S + np.triu(np.full(S.shape, -np.inf), k=1)
    E = np.exp(S - S.max(axis=1, keepdims=True))
    return (E / E.sum(axis=1, keepdims=True)) @ V


def attend_step_helper(q, K_cache, V_cache):
    """Lesson 14's attend_step as exercise 18 prints it."""
    s = K_cache @ q / np.sqrt(q.shape[0])
    a = np.exp(s - s.max())
    return (a / a.sum()) @ V_cache


def my_softmax(S, axis=-1):
    E = np.exp(S - S.max(axis=axis, keepdims=True))
    return E / E.sum(axis=axis, keepdims=True)


def my_weights(Q, K, causal=True, scale=True):
    """The learner's passing attention_weights from exercise 06, pasted into later notebooks."""
    n_q, n_k = Q.shape[0], K.shape[0]
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(Q.shape[1])
    if causal:
        S = S + np.triu(np.full((n_q, n_k), -np.inf), k=n_k - n_q + 1)
    return my_softmax(S, axis=1)


def my_layer_norm(X, g, b, eps=1e-5):
    mu = X.mean(axis=-1, keepdims=True)
    var = X.var(axis=-1, keepdims=True)
    return (X - mu) / np.sqrt(var + eps) * g + b


def my_gelu(X):
    return 0.5 * X * (1 + np.tanh(np.sqrt(2 / np.pi) * (X + 0.044715 * X ** 3)))


def my_multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    d_head = Wq.shape[1] // n_heads
    outs = []
    for h in range(n_heads):
        c = slice(h * d_head, (h + 1) * d_head)
        outs.append(attend(X @ Wq[:, c], X @ Wk[:, c], X @ Wv[:, c], causal))
    return np.concatenate(outs, axis=1) @ Wo


def my_rope(X, positions, theta=10000.0):
    n, d = X.shape
    a = np.asarray(positions, dtype=float)[:, None] * theta ** (-np.arange(0, d, 2) / d)
    cos, sin = np.cos(a), np.sin(a)
    out = np.empty((n, d))
    out[:, 0::2] = X[:, 0::2] * cos - X[:, 1::2] * sin
    out[:, 1::2] = X[:, 0::2] * sin + X[:, 1::2] * cos
    return out


# ============================================================================
# 01 project, compose

def project__pytorch_linear_layout(x, W):
    # F.linear(x, weight) computes x @ weight.T, so the learner transposes W as if it were stored (d_out, d_in)
    return x @ W.T


def project__einsum_keeps_input_index(x, W):
    return np.einsum("i,ij->i", x, W)


def project__broadcast_missing_none(x, W):
    # meant x[:, None] * W: multiply row i of W by x[i]
    return (x * W).sum(axis=0)


def project__half_precision(x, W):
    # "half precision saves memory"
    return x.astype(np.float16) @ W.astype(np.float16)


def project_ok_weighted_rows(x, W):
    # the output is x[0] * row 0 of W + x[1] * row 1 + ...
    return (x[:, None] * W).sum(axis=0)


def compose__pytorch_sequential_order(W1, W2):
    # nn.Linear weights compose as W2 @ W1 (out x in); the course stores W as (in, out)
    return W2 @ W1


def compose__einsum_output_transposed(W1, W2):
    return np.einsum("ij,jk->ki", W1, W2)


def compose__identity_of_middle_size(W1, W2):
    # push every basis vector through both projections: but the basis is of size d_mid, not d_in
    return np.stack([(e @ W1) @ W2 for e in np.eye(W1.shape[1])])


def compose__product_written_into_W1(W1, W2):
    # out=W1 "to save an allocation": overwrites the caller's W1
    return np.matmul(W1, W2, out=W1)


def compose_ok_multi_dot(W1, W2):
    return np.linalg.multi_dot([W1, W2])


# ============================================================================
# 02 project_rows, matmul_cost

def project_rows__pytorch_weight_layout(X, W):
    # the einsum of F.linear: weight indexed (out, in)
    return np.einsum("ni,oi->no", X, W)


def project_rows__list_default_argument(X, W, rows=[]):
    for x in X:
        rows.append(x @ W)
    return np.array(rows)


_projected = {}


def project_rows__memoised_by_shape(X, W):
    # a module-level cache "so the explorer does not recompute": keyed on the shapes only
    key = (X.shape, W.shape)
    if key not in _projected:
        _projected[key] = X @ W
    return _projected[key]


def project_rows__loop_over_d_in(X, W):
    # copied the loop of exercise 01 and ran it over the rows of W instead of the rows of X
    return np.array([X[i] @ W for i in range(W.shape[0])])


def project_rows_ok_einsum(X, W):
    return np.einsum("ni,io->no", X, W)


def matmul_cost__np_prod(n, d_in, d_out):
    return np.prod([n, d_in, d_out])


def matmul_cost__counts_additions(n, d_in, d_out):
    # a dot product of length d_in takes d_in - 1 additions
    return n * (d_in - 1) * d_out


def matmul_cost__flops_multiply_add(n, d_in, d_out):
    return 2 * n * d_in * d_out


def matmul_cost__through_float(n, d_in, d_out):
    # converted to float "so it cannot overflow", then back to int
    return int(float(n) * d_in * d_out)


def matmul_cost_ok_entries_times_length(n, d_in, d_out):
    entries = int(n) * int(d_out)  # one dot product per entry of the (n, d_out) result
    return entries * int(d_in)


# ============================================================================
# 03 values, one_hot

def values__repeats_removed(tokens, table, Wv):
    # "the" only needs projecting once
    X = np.array([table[w] for w in dict.fromkeys(tokens)])
    return X @ Wv


def values__table_rows_not_tokens(tokens, table, Wv):
    X = np.array(list(table.values()))
    return X @ Wv


def values__stack_dim1(tokens, table, Wv):
    # torch.stack(rows, dim=1)
    X = np.stack([table[w] for w in tokens], axis=1)
    return X @ Wv


def values__table_overwritten(tokens, table, Wv):
    # projects each word once and stores it back in the caller's table
    for w in set(tokens):
        table[w] = table[w] @ Wv
    return np.array([table[w] for w in tokens])


def values_ok_project_table_then_look_up(tokens, table, Wv):
    words = list(table)
    projected = np.array([table[w] for w in words]) @ Wv  # one row per vocabulary word
    return projected[[words.index(w) for w in tokens]]


def one_hot__columns_of_identity(ids, vocab_size):
    return np.eye(vocab_size)[:, ids]


def one_hot__integer_array(ids, vocab_size):
    out = np.zeros((len(ids), vocab_size), dtype=int)
    out[np.arange(len(ids)), ids] = 1
    return out


def one_hot__classes_inferred_from_ids(ids, vocab_size):
    # F.one_hot(ids) with num_classes=-1 infers ids.max() + 1
    return np.eye(ids.max() + 1)[ids]


def one_hot__put_along_axis_wrong_none(ids, vocab_size):
    out = np.zeros((len(ids), vocab_size))
    np.put_along_axis(out, ids[None, :], 1.0, axis=1)
    return out


def one_hot_ok_compare_with_range(ids, vocab_size):
    return (np.asarray(ids)[:, None] == np.arange(vocab_size)[None, :]).astype(np.float64)


# ============================================================================
# 04 uniform_causal_weights, causal_average

def uniform_causal_weights__missing_none(n):
    return np.tril(np.ones((n, n))) / np.arange(1, n + 1)


def uniform_causal_weights__triu_diagonal1_not_inverted(n):
    keep = np.triu(np.ones((n, n)), k=1)  # torch.triu(ones, diagonal=1): these are the masked entries
    return keep / keep.sum(axis=1, keepdims=True)


def uniform_causal_weights__normalised_dim0(n):
    L = np.tril(np.ones((n, n)))
    return L / L.sum(axis=0, keepdims=True)


def uniform_causal_weights__integer_division(n):
    L = np.tril(np.ones((n, n), dtype=int))
    return L // np.arange(1, n + 1)[:, None]


def uniform_causal_weights_ok_fromfunction(n):
    return np.fromfunction(lambda i, j: (j <= i) / (i + 1), (n, n))


def causal_average__cumsum_along_features(V):
    return np.cumsum(V, axis=1) / np.arange(1, V.shape[0] + 1)[:, None]


def causal_average__missing_none(V):
    return np.cumsum(V, axis=0) / np.arange(1, len(V) + 1)


def causal_average__divides_by_n(V):
    return np.cumsum(V, axis=0) / len(V)


def causal_average__in_place(V):
    np.cumsum(V, axis=0, out=V)
    V /= np.arange(1, len(V) + 1)[:, None]
    return V


def causal_average_ok_prefix_means(V):
    return np.array([V[:i + 1].mean(axis=0) for i in range(len(V))]).reshape(V.shape)


# ============================================================================
# 05 similarity, learned_scores

def similarity__transpose_on_queries(Q, K):
    return Q.T @ K


def similarity__einsum_output_swapped(Q, K):
    return np.einsum("id,jd->ji", Q, K)


def similarity__scaled_anyway(Q, K):
    return Q @ K.T / np.sqrt(Q.shape[1])


def similarity__cosine(Q, K):
    Qn = Q / np.linalg.norm(Q, axis=1, keepdims=True)
    Kn = K / np.linalg.norm(K, axis=1, keepdims=True)
    return Qn @ Kn.T


def similarity_ok_tensordot(Q, K):
    return np.tensordot(Q, K, axes=(1, 1))


def learned_scores__keys_not_transposed(X, Wq, Wk):
    return X @ Wq @ Wk @ X.T


def learned_scores__query_line_pasted_for_keys(X, Wq, Wk):
    Q = X @ Wq
    K = X @ Wq  # copied the line above and forgot to change the matrix
    return Q @ K.T


def learned_scores__mask_copied_in(X, Wq, Wk):
    S = (X @ Wq) @ (X @ Wk).T
    n = S.shape[0]
    return S + np.triu(np.full((n, n), -np.inf), k=1)


def learned_scores__einsum_output_swapped(X, Wq, Wk):
    return np.einsum("ia,ab,jc,cb->ji", X, Wq, X, Wk)


def learned_scores_ok_bilinear_form(X, Wq, Wk):
    return X @ (Wq @ Wk.T) @ X.T


# ============================================================================
# 06 causal_mask, softmax, score_scale, attention_weights

def causal_mask__triu_k0_hides_diagonal(n):
    return np.triu(np.full((n, n), -np.inf), k=0)


def causal_mask__past_masked(n):
    # masked_fill with the mask's meaning inverted: the past gets -inf
    return np.tril(np.full((n, n), -np.inf), k=-1)


def causal_mask__ones_times_minus_inf(n):
    return np.triu(np.ones((n, n)), k=1) * -np.inf


def causal_mask__boolean_attn_mask(n):
    # PyTorch's boolean attn_mask: True where attention is not allowed
    return np.triu(np.ones((n, n), dtype=bool), k=1)


def causal_mask__minus_1e9(n):
    # masked_fill(mask, -1e9), the PyTorch tutorial habit
    return np.where(np.tri(n, dtype=bool), 0.0, -1e9)


def causal_mask_ok_log_of_tri(n):
    with np.errstate(divide="ignore"):
        return np.log(np.tri(n))  # log 1 = 0 on and below the diagonal, log 0 = -inf above


def softmax__global_max(S, axis=-1):
    E = np.exp(S - S.max())
    return E / E.sum(axis=axis, keepdims=True)


def softmax__sum_without_keepdims(S, axis=-1):
    E = np.exp(S - S.max(axis=axis, keepdims=True))
    return E / E.sum(axis=axis)


def softmax__axis_1_hard_coded(S, axis=-1):
    # written for the (n, n) scores of the lesson: dim=1
    E = np.exp(S - S.max(axis=1, keepdims=True))
    return E / E.sum(axis=1, keepdims=True)


def softmax__no_max_subtracted(S, axis=-1):
    E = np.exp(S)
    return E / E.sum(axis=axis, keepdims=True)


def softmax__in_place(S, axis=-1):
    S -= S.max(axis=axis, keepdims=True)
    np.exp(S, out=S)
    S /= S.sum(axis=axis, keepdims=True)
    return S


def softmax_ok_log_sum_exp(S, axis=-1):
    shifted = S - S.max(axis=axis, keepdims=True)  # every entry <= 0
    return np.exp(shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True)))  # exp(S - logsumexp(S))


def score_scale__one_over_d(d):
    return 1.0 / d


def score_scale__sqrt_d(d):
    return float(np.sqrt(d))


def score_scale__integer_sqrt(d):
    # the experiment's widths 1, 4, 16, 64, 256 are all squares
    return 1.0 / math.isqrt(d)


def score_scale__unbiased_d_minus_1(d):
    return 1.0 / np.sqrt(d - 1)


def score_scale_ok_power(d):
    return d ** -0.5


def attention_weights__mask_top_left(Q, K, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(Q.shape[1])
    if causal:
        S = S + np.triu(np.full(S.shape, -np.inf), k=1)  # torch.triu(..., diagonal=1)
    E = np.exp(S - S.max(axis=1, keepdims=True))
    return E / E.sum(axis=1, keepdims=True)


def attention_weights__size0_for_d(Q, K, causal=True, scale=True):
    n_q, n_k = Q.shape[0], K.shape[0]
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(Q.shape[0])  # q.size(0) where q.size(-1) was meant
    if causal:
        S = S + np.triu(np.full((n_q, n_k), -np.inf), k=n_k - n_q + 1)
    E = np.exp(S - S.max(axis=1, keepdims=True))
    return E / E.sum(axis=1, keepdims=True)


def attention_weights__softmax_dim0(Q, K, causal=True, scale=True):
    n_q, n_k = Q.shape[0], K.shape[0]
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(Q.shape[1])
    if causal:
        S = S + np.triu(np.full((n_q, n_k), -np.inf), k=n_k - n_q + 1)
    E = np.exp(S - S.max(axis=0, keepdims=True))  # F.softmax(S, dim=0)
    return E / E.sum(axis=0, keepdims=True)


def attention_weights__masked_fill_inverted(Q, K, causal=True, scale=True):
    n_q, n_k = Q.shape[0], K.shape[0]
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(Q.shape[1])
    if causal:
        allowed = np.tril(np.ones((n_q, n_k), dtype=bool), k=n_k - n_q)
        S = np.where(allowed, -np.inf, S)  # masked_fill(allowed, -inf): the meaning of the mask inverted
    E = np.exp(S - S.max(axis=1, keepdims=True))
    return E / E.sum(axis=1, keepdims=True)


def attention_weights__mask_after_softmax(Q, K, causal=True, scale=True):
    n_q, n_k = Q.shape[0], K.shape[0]
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(Q.shape[1])
    E = np.exp(S - S.max(axis=1, keepdims=True))
    A = E / E.sum(axis=1, keepdims=True)
    if causal:
        A = A * np.tril(np.ones((n_q, n_k)), k=n_k - n_q)  # zero the future, no renormalisation
    return A


def attention_weights_ok_position_offsets(Q, K, causal=True, scale=True):
    n_q, n_k = Q.shape[0], K.shape[0]
    S = np.einsum("qd,kd->qk", Q, K) * (1 / math.sqrt(Q.shape[1]) if scale else 1.0)
    if causal:
        q_pos = np.arange(n_q) + (n_k - n_q)  # the queries are the last n_q positions
        S = np.where(np.subtract.outer(q_pos, np.arange(n_k)) >= 0, S, -np.inf)
    S = S - S.max(axis=1, keepdims=True)
    P = np.exp(S)
    return P / P.sum(axis=1, keepdims=True)


# ============================================================================
# 07 attention, self_attention, future_leak, tiled_attention

def attention__scale_flag_not_passed(Q, K, V, causal=True, scale=True):
    return my_weights(Q, K, causal) @ V  # scale falls back to the default True


def attention__last_n_q_keys_only(Q, K, V, causal=True, scale=True):
    # "the queries are the last n_q positions", so keep the last n_q keys as well
    n_q = Q.shape[0]
    return my_weights(Q, K[-n_q:], causal, scale) @ V[-n_q:]


def attention__delayed_division_without_keepdims(Q, K, V, causal=True, scale=True):
    n_q, n_k = Q.shape[0], K.shape[0]
    S = Q @ K.T / (np.sqrt(Q.shape[1]) if scale else 1.0)
    if causal:
        S = S + np.triu(np.full((n_q, n_k), -np.inf), k=n_k - n_q + 1)
    E = np.exp(S - S.max(axis=1, keepdims=True))
    return (E @ V) / E.sum(axis=1)  # divide after the product, as the lesson suggests


def attention__half_precision_weights(Q, K, V, causal=True, scale=True):
    A = my_weights(Q, K, causal, scale).astype(np.float16)  # the (n, n) matrix is the big one
    return A @ V


def attention__always_masked(Q, K, V, causal=True, scale=True):
    n_q, n_k = Q.shape[0], K.shape[0]
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(Q.shape[1])
    S = S + np.triu(np.full((n_q, n_k), -np.inf), k=n_k - n_q + 1)  # the causal flag is never read
    return my_softmax(S, axis=1) @ V


def attention_ok_row_by_row(Q, K, V, causal=True, scale=True):
    n_q, n_k = Q.shape[0], K.shape[0]
    s = 1 / math.sqrt(Q.shape[1]) if scale else 1.0
    out = np.empty((n_q, V.shape[1]))
    for i in range(n_q):
        last = n_k - n_q + i + 1 if causal else n_k  # keys 0 .. last - 1 are visible
        scores = (K[:last] @ Q[i]) * s
        w = np.exp(scores - scores.max())
        out[i] = (w / w.sum()) @ V[:last]
    return out


def self_attention__if_wo_truthiness(X, Wq, Wk, Wv, Wo=None, causal=True):
    O = my_weights(X @ Wq, X @ Wk, causal) @ (X @ Wv)
    if Wo:  # "if Wo is given"
        O = O @ Wo
    return O


def self_attention__causal_not_forwarded(X, Wq, Wk, Wv, Wo=None, causal=True):
    O = my_weights(X @ Wq, X @ Wk) @ (X @ Wv)
    return O if Wo is None else O @ Wo


def self_attention__out_proj_weight_layout(X, Wq, Wk, Wv, Wo=None, causal=True):
    O = my_weights(X @ Wq, X @ Wk, causal) @ (X @ Wv)
    if Wo is not None:
        O = O @ Wo.T  # out_proj.weight is (d_out, d_v) in PyTorch
    return O


def self_attention__returns_output_and_weights(X, Wq, Wk, Wv, Wo=None, causal=True):
    # nn.MultiheadAttention returns (attn_output, attn_weights)
    A = my_weights(X @ Wq, X @ Wk, causal)
    O = A @ (X @ Wv)
    return (O if Wo is None else O @ Wo), A


def self_attention_ok_value_projection_first(X, Wq, Wk, Wv, Wo=None, causal=True):
    Wvo = Wv if Wo is None else Wv @ Wo  # A (X Wv) Wo = A X (Wv Wo)
    return attention_ok_row_by_row(X @ Wq, X @ Wk, X @ Wvo, causal)


def _leak_threshold(out):
    return 1e-9 * max(1.0, float(np.abs(out).max()))


def future_leak__counts_leaking_rows(attn, X):
    base = attn(X)
    tol = _leak_threshold(base)
    leaking = set()
    for j in range(len(X)):
        moved = X.copy()
        moved[j] += 1.0
        change = np.abs(attn(moved) - base).max(axis=1)
        leaking |= {i for i in range(j) if change[i] > tol}
    return len(leaking)  # how many rows see the future, not how far


def future_leak__exact_comparison(attn, X):
    base = attn(X)
    worst = 0
    for j in range(len(X)):
        moved = X.copy()
        moved[j] += 1.0
        changed = np.any(attn(moved) != base, axis=1)
        for i in range(j):
            if changed[i]:
                worst = max(worst, j - i)
    return worst


def future_leak__allclose_defaults(attn, X):
    base = attn(X)
    worst = 0
    for j in range(len(X)):
        moved = X.copy()
        moved[j] += 1.0
        out = attn(moved)
        for i in range(j):
            if not np.allclose(out[i], base[i]):
                worst = max(worst, j - i)
    return worst


def future_leak__moves_rows_of_X_and_back(attn, X):
    base = attn(X)
    tol = _leak_threshold(base)
    worst = 0
    for j in range(len(X)):
        X[j] += 1.0  # no copy: moved in place, moved back below
        change = np.abs(attn(X) - base).max(axis=1)
        X[j] -= 1.0
        for i in range(j):
            if change[i] > tol:
                worst = max(worst, j - i)
    return worst


def future_leak__absolute_threshold(attn, X):
    base = attn(X)
    worst = 0
    for j in range(len(X)):
        moved = X.copy()
        moved[j] += 1.0
        change = np.abs(attn(moved) - base).max(axis=1)
        for i in range(j):
            if change[i] > 1e-9:  # not scaled by the size of the outputs
                worst = max(worst, j - i)
    return worst


def future_leak_ok_longest_distance_first(attn, X):
    X = np.array(X, dtype=float)
    base = np.asarray(attn(X))
    tol = _leak_threshold(base)
    n = len(X)
    moved_out = {}
    for k in range(n - 1, 0, -1):  # the first distance found, from the largest down, is the answer
        for i in range(n - k):
            j = i + k
            if j not in moved_out:
                moved = X.copy()
                moved[j] = moved[j] + 1.0
                moved_out[j] = np.asarray(attn(moved))
            if np.abs(moved_out[j][i] - base[i]).max() > tol:
                return k
    return 0


def _tiles(Q, K, V, causal, block, init_m, rescale_acc=True, offset_aware=True, divide_each_tile=False):
    """A learner's tiled loop; the keyword flags are the places where the variants below differ."""
    n_q, n_k = Q.shape[0], K.shape[0]
    offset = n_k - n_q if offset_aware else 0
    s = 1 / np.sqrt(Q.shape[1])
    O = np.empty((n_q, V.shape[1]))
    for q0 in range(0, n_q, block):
        Qb = Q[q0:q0 + block] * s
        bq = len(Qb)
        m = np.full((bq, 1), init_m)
        l = np.zeros((bq, 1))
        acc = np.zeros((bq, V.shape[1]))
        for k0 in range(0, n_k, block):
            S = Qb @ K[k0:k0 + block].T
            if causal:
                qi = np.arange(q0, q0 + bq)[:, None] + offset
                kj = np.arange(k0, k0 + S.shape[1])[None, :]
                S = np.where(kj > qi, -np.inf, S)
                if np.all(np.isneginf(S)):
                    continue
            m_new = np.maximum(m, S.max(axis=1, keepdims=True))
            P = np.exp(S - m_new)
            shrink = np.exp(m - m_new)
            l = l * shrink + P.sum(axis=1, keepdims=True)
            acc = (acc * shrink if rescale_acc else acc) + P @ V[k0:k0 + block]
            if divide_each_tile:
                acc = acc / l
            m = m_new
        O[q0:q0 + bq] = acc if divide_each_tile else acc / l
    return O


def tiled_attention__acc_not_rescaled(Q, K, V, causal=True, block=64):
    return _tiles(Q, K, V, causal, block, -np.inf, rescale_acc=False)


def tiled_attention__divides_by_l_every_tile(Q, K, V, causal=True, block=64):
    # normalises acc by the running sum after each tile instead of once at the end
    return _tiles(Q, K, V, causal, block, -np.inf, divide_each_tile=True)


def tiled_attention__running_max_starts_at_zero(Q, K, V, causal=True, block=64):
    return _tiles(Q, K, V, causal, block, 0.0)


def tiled_attention__tile_mask_ignores_offset(Q, K, V, causal=True, block=64):
    # query i compared with key j as if both were counted from 0, the mask of the square case
    return _tiles(Q, K, V, causal, block, -np.inf, offset_aware=False)


def tiled_attention__strip_of_scores(Q, K, V, causal=True, block=64):
    # one block of queries against every key at once: a (block, n_k) strip
    n_q, n_k = Q.shape[0], K.shape[0]
    O = np.empty((n_q, V.shape[1]))
    for q0 in range(0, n_q, block):
        S = Q[q0:q0 + block] @ K.T / np.sqrt(Q.shape[1])
        if causal:
            qi = np.arange(q0, q0 + len(S))[:, None] + n_k - n_q
            S[np.arange(n_k)[None, :] > qi] = -np.inf
        P = np.exp(S - S.max(axis=1, keepdims=True))
        O[q0:q0 + block] = P @ V / P.sum(axis=1, keepdims=True)
    return O


def tiled_attention_ok_online_softmax(Q, K, V, causal=True, block=64):
    n_q, n_k, d_v = Q.shape[0], K.shape[0], V.shape[1]
    first = n_k - n_q  # position of query 0
    O = np.zeros((n_q, d_v))
    for q0 in range(0, n_q, block):
        q1 = min(q0 + block, n_q)
        Qb = Q[q0:q1] / math.sqrt(Q.shape[1])
        run_max = np.full(q1 - q0, -np.inf)
        run_sum = np.zeros(q1 - q0)
        run_acc = np.zeros((q1 - q0, d_v))
        stop = min(n_k, first + q1) if causal else n_k  # no key after the last query of the block
        for k0 in range(0, stop, block):
            k1 = min(k0 + block, stop)
            T = Qb @ K[k0:k1].T
            if causal:
                future = np.subtract.outer(np.arange(k0, k1), np.arange(first + q0, first + q1)).T > 0
                T[future] = -np.inf
            new_max = np.maximum(run_max, T.max(axis=1))
            factor = np.exp(run_max - new_max)
            W = np.exp(T - new_max[:, None])
            run_sum = run_sum * factor + W.sum(axis=1)
            run_acc = run_acc * factor[:, None] + W @ V[k0:k1]
            run_max = new_max
        O[q0:q1] = run_acc / run_sum[:, None]
    return O


# ============================================================================
# 08 embed, sinusoidal_positions

def embed__last_n_positions(tokens, tok_emb, pos_emb):
    # the "last n positions" rule of attention_weights, carried over
    n = len(tokens)
    return tok_emb[tokens] + pos_emb[-n:]


def embed__adds_into_pos_emb_view(tokens, tok_emb, pos_emb):
    X = pos_emb[:len(tokens)]  # a view, not a copy
    X += tok_emb[tokens]
    return X


def embed__index_select_dim1(tokens, tok_emb, pos_emb):
    # torch.index_select(tok_emb, 1, tokens)
    n = len(tokens)
    return np.take(tok_emb, tokens, axis=1).T + pos_emb[:n]


def embed__positions_from_one(tokens, tok_emb, pos_emb):
    n = len(tokens)
    return tok_emb[tokens] + pos_emb[1:n + 1]


def embed_ok_take_rows(tokens, tok_emb, pos_emb):
    positions = np.arange(len(tokens))
    return np.take(tok_emb, tokens, axis=0) + np.take(pos_emb, positions, axis=0)


def sinusoidal_positions__missing_none(n, d):
    t = np.arange(n)
    freqs = 10000.0 ** (-np.arange(0, d, 2) / d)
    a = t * freqs  # meant t[:, None] * freqs
    P = np.empty((n, d))
    P[:, 0::2], P[:, 1::2] = np.sin(a), np.cos(a)
    return P


def sinusoidal_positions__integer_exponent(n, d):
    i = np.arange(d // 2)
    freqs = 1.0 / 10000 ** (2 * i // d)
    a = np.arange(n)[:, None] * freqs
    P = np.empty((n, d))
    P[:, 0::2], P[:, 1::2] = np.sin(a), np.cos(a)
    return P


def sinusoidal_positions__float32_table(n, d):
    # float32 "like a real model's embeddings"
    t = np.arange(n, dtype=np.float32)[:, None]
    freqs = (10000.0 ** (-np.arange(0, d, 2) / d)).astype(np.float32)
    a = t * freqs
    P = np.empty((n, d), dtype=np.float32)
    P[:, 0::2], P[:, 1::2] = np.sin(a), np.cos(a)
    return P


def sinusoidal_positions__stack_then_view(n, d):
    a = np.arange(n)[:, None] / 10000.0 ** (np.arange(0, d, 2) / d)
    return np.stack([np.sin(a), np.cos(a)]).reshape(n, d)  # .view(n, d) where the pair axis had to come last


def sinusoidal_positions_ok_interleave_last_axis(n, d):
    a = np.outer(np.arange(n), 10000.0 ** (-np.arange(0, d, 2) / d))
    return np.stack([np.sin(a), np.cos(a)], axis=-1).reshape(n, d)


# ============================================================================
# 09 split_heads, multi_head_attention

def split_heads__view_without_transpose(M, n_heads):
    n, d_model = M.shape
    return M.reshape(n_heads, n, d_model // n_heads)  # x.view(n_heads, n, d_head)


def split_heads__interleaved_columns(M, n_heads):
    n, d_model = M.shape
    return M.reshape(n, d_model // n_heads, n_heads).transpose(2, 0, 1)


def split_heads__dot_T_on_3d(M, n_heads):
    n, d_model = M.shape
    return M.reshape(n, n_heads, d_model // n_heads).T  # .T meant to swap the first two axes


def split_heads__split_rows(M, n_heads):
    return np.array(np.split(M, n_heads, axis=0))  # torch.chunk(M, n_heads) splits dim 0


def split_heads__window_stride_n_heads(M, n_heads):
    d_head = M.shape[1] // n_heads
    windows = np.lib.stride_tricks.sliding_window_view(M, d_head, axis=1)  # (n, d_model - d_head + 1, d_head)
    return windows[:, ::n_heads].transpose(1, 0, 2)  # every n_heads-th window, meant every d_head-th


def split_heads_ok_hsplit(M, n_heads):
    return np.stack(np.hsplit(M, n_heads))


def multi_head_attention__scaled_by_d_model(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    n = X.shape[0]
    d_head = Wq.shape[1] // n_heads
    outs = []
    for h in range(n_heads):
        c = slice(h * d_head, (h + 1) * d_head)
        S = (X @ Wq[:, c]) @ (X @ Wk[:, c]).T / np.sqrt(X.shape[1])
        if causal:
            S = S + np.triu(np.full((n, n), -np.inf), k=1)
        outs.append(my_softmax(S, axis=1) @ (X @ Wv[:, c]))
    return np.concatenate(outs, axis=1) @ Wo


def multi_head_attention__merge_by_reshape(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    n = X.shape[0]
    d_head = Wq.shape[1] // n_heads
    heads = [attend(X @ Wq[:, h * d_head:(h + 1) * d_head], X @ Wk[:, h * d_head:(h + 1) * d_head],
                    X @ Wv[:, h * d_head:(h + 1) * d_head], causal) for h in range(n_heads)]
    O = np.stack(heads)  # (n_heads, n, d_head)
    return O.reshape(n, -1) @ Wo  # .view(n, -1) without transposing back first


def multi_head_attention__causal_not_forwarded(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    d_head = Wq.shape[1] // n_heads
    heads = []
    for h in range(n_heads):
        c = slice(h * d_head, (h + 1) * d_head)
        heads.append(attend(X @ Wq[:, c], X @ Wk[:, c], X @ Wv[:, c]))
    return np.concatenate(heads, axis=1) @ Wo


def multi_head_attention__einsum_sums_queries(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    n = X.shape[0]
    d_head = Wq.shape[1] // n_heads
    Qh, Kh, Vh = [(X @ W).reshape(n, n_heads, d_head).transpose(1, 0, 2) for W in (Wq, Wk, Wv)]
    S = np.einsum("hid,hjd->hij", Qh, Kh) / np.sqrt(d_head)
    if causal:
        S = S + np.triu(np.full((n, n), -np.inf), k=1)
    A = my_softmax(S, axis=-1)
    O = np.einsum("hij,hid->hjd", A, Vh)  # meant "hij,hjd->hid"
    return O.transpose(1, 0, 2).reshape(n, -1) @ Wo


def multi_head_attention__heads_interleaved(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    n = X.shape[0]
    d_head = Wq.shape[1] // n_heads
    Qh, Kh, Vh = [(X @ W).reshape(n, d_head, n_heads).transpose(2, 0, 1) for W in (Wq, Wk, Wv)]
    O = np.stack([attend(Qh[h], Kh[h], Vh[h], causal) for h in range(n_heads)])
    return O.transpose(1, 2, 0).reshape(n, -1) @ Wo


def multi_head_attention_ok_sum_of_head_projections(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    d_head = Wq.shape[1] // n_heads
    out = np.zeros((X.shape[0], Wo.shape[1]))
    for h in range(n_heads):
        c = slice(h * d_head, (h + 1) * d_head)
        out += attend(X @ Wq[:, c], X @ Wk[:, c], X @ Wv[:, c], causal) @ Wo[c]  # head h meets its rows of Wo
    return out


# ============================================================================
# 10 layer_norm, gelu, transformer_block

def layer_norm__unbiased_variance(X, g, b, eps=1e-5):
    # torch.var's default unbiased=True
    mu = X.mean(axis=-1, keepdims=True)
    var = X.var(axis=-1, ddof=1, keepdims=True)
    return (X - mu) / np.sqrt(var + eps) * g + b


def layer_norm__eps_outside_sqrt(X, g, b, eps=1e-5):
    mu = X.mean(axis=-1, keepdims=True)
    return (X - mu) / (X.std(axis=-1, keepdims=True) + eps) * g + b


def layer_norm__mean_without_keepdims(X, g, b, eps=1e-5):
    Xc = X - X.mean(axis=-1)
    var = (Xc ** 2).mean(axis=-1, keepdims=True)
    return Xc / np.sqrt(var + eps) * g + b


def layer_norm__in_place(X, g, b, eps=1e-5):
    X -= X.mean(axis=1, keepdims=True)
    X /= np.sqrt((X ** 2).mean(axis=1, keepdims=True) + eps)
    return X * g + b


def layer_norm_ok_inverse_std(X, g, b, eps=1e-5):
    Xc = X - X.sum(axis=1, keepdims=True) / X.shape[1]
    inv_std = 1.0 / np.sqrt(np.einsum("ij,ij->i", Xc, Xc)[:, None] / X.shape[1] + eps)
    return g * (Xc * inv_std) + b


def gelu__sqrt_two_pi(X):
    return 0.5 * X * (1 + np.tanh(np.sqrt(2 * np.pi) * (X + 0.044715 * X ** 3)))


def gelu__square_not_cube(X):
    return 0.5 * X * (1 + np.tanh(np.sqrt(2 / np.pi) * (X + 0.044715 * X ** 2)))


def gelu__exact_erf(X):
    # F.gelu's default, approximate='none'
    erf = np.vectorize(math.erf, otypes=[float])
    return 0.5 * X * (1 + erf(X / math.sqrt(2)))


def gelu__constant_not_distributed(X):
    return 0.5 * X * (1 + np.tanh(np.sqrt(2 / np.pi) * X + 0.044715 * X ** 3))


def gelu__in_place_on_alias(X):
    inner = X  # an alias, not a copy
    inner += 0.044715 * X ** 3
    return 0.5 * X * (1 + np.tanh(np.sqrt(2 / np.pi) * inner))


def gelu_ok_factored_cubic(X):
    X = np.asarray(X, dtype=float)
    c = math.sqrt(2 / math.pi)
    with np.errstate(invalid="ignore"):
        Y = X * 0.5 * (1.0 + np.tanh(c * X * (1.0 + 0.044715 * X * X)))
    return np.where(np.isneginf(X), 0.0, Y)


def transformer_block__second_norm_on_X(X, p, n_heads, causal=True):
    Y = X + my_multi_head_attention(my_layer_norm(X, p["ln1_g"], p["ln1_b"]), p["Wq"], p["Wk"], p["Wv"], p["Wo"],
                                    n_heads, causal)
    H = my_layer_norm(X, p["ln2_g"], p["ln2_b"])  # X left over from the line above
    return Y + my_gelu(H @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"]


def transformer_block__first_norm_params_reused(X, p, n_heads, causal=True):
    Y = X + my_multi_head_attention(my_layer_norm(X, p["ln1_g"], p["ln1_b"]), p["Wq"], p["Wk"], p["Wv"], p["Wo"],
                                    n_heads, causal)
    H = my_layer_norm(Y, p["ln1_g"], p["ln1_b"])  # pasted from the first norm
    return Y + my_gelu(H @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"]


def transformer_block__causal_not_forwarded(X, p, n_heads, causal=True):
    Y = X + my_multi_head_attention(my_layer_norm(X, p["ln1_g"], p["ln1_b"]), p["Wq"], p["Wk"], p["Wv"], p["Wo"],
                                    n_heads)
    H = my_layer_norm(Y, p["ln2_g"], p["ln2_b"])
    return Y + my_gelu(H @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"]


def transformer_block__residual_added_in_place(X, p, n_heads, causal=True):
    X += my_multi_head_attention(my_layer_norm(X, p["ln1_g"], p["ln1_b"]), p["Wq"], p["Wk"], p["Wv"], p["Wo"],
                                 n_heads, causal)  # x = x + attn(...) written as x += ...
    X += my_gelu(my_layer_norm(X, p["ln2_g"], p["ln2_b"]) @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"]
    return X


def transformer_block__bias_after_gelu(X, p, n_heads, causal=True):
    Y = X + my_multi_head_attention(my_layer_norm(X, p["ln1_g"], p["ln1_b"]), p["Wq"], p["Wk"], p["Wv"], p["Wo"],
                                    n_heads, causal)
    H = my_layer_norm(Y, p["ln2_g"], p["ln2_b"])
    return Y + (my_gelu(H @ p["W1"]) + p["b1"]) @ p["W2"] + p["b2"]


def transformer_block_ok_loop_over_sublayers(X, p, n_heads, causal=True):
    def attention_sublayer(H):
        return multi_head_attention_ok_sum_of_head_projections(H, p["Wq"], p["Wk"], p["Wv"], p["Wo"], n_heads, causal)

    def mlp_sublayer(H):
        return gelu_ok_factored_cubic(H @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"]

    for norm, sublayer in (("ln1", attention_sublayer), ("ln2", mlp_sublayer)):
        X = X + sublayer(layer_norm_ok_inverse_std(X, p[norm + "_g"], p[norm + "_b"]))
    return X


# ============================================================================
# 11 next_token_logits, cross_entropy, softmax_backward, attention_backward, layer_norm_backward

def next_token_logits__last_column(H, W_vocab):
    # h[:, -1] picks the last position of a (batch, seq, d) tensor; on (n, d_model) it is the last feature
    return H[:, -1] @ W_vocab


def next_token_logits__softmax_applied(H, W_vocab):
    z = H[-1] @ W_vocab
    e = np.exp(z - z.max())
    return e / e.sum()


def next_token_logits__slice_keeps_dim(H, W_vocab):
    return H[-1:] @ W_vocab  # (1, vocab), the keepdim of a slice


def next_token_logits__lm_head_weight_layout(H, W_vocab):
    # lm_head.weight is (vocab, d_model) in PyTorch
    return H[-1] @ W_vocab.T


def next_token_logits_ok_einsum_last_index(H, W_vocab):
    return np.einsum("d,dv->v", H[len(H) - 1], W_vocab)


def cross_entropy__clipped_log(logits, targets):
    n = len(targets)
    Z = logits - logits.max(axis=1, keepdims=True)
    P = np.exp(Z) / np.exp(Z).sum(axis=1, keepdims=True)
    loss = -np.log(np.clip(P[np.arange(n), targets], 1e-12, 1.0)).mean()  # clip "to avoid log(0)"
    dlogits = P.copy()
    dlogits[np.arange(n), targets] -= 1.0
    return loss, dlogits / n


def cross_entropy__gradient_not_averaged(logits, targets):
    n = len(targets)
    Z = logits - logits.max(axis=1, keepdims=True)
    logp = Z - np.log(np.exp(Z).sum(axis=1, keepdims=True))
    loss = -logp[np.arange(n), targets].mean()
    dlogits = np.exp(logp)
    dlogits[np.arange(n), targets] -= 1.0
    return loss, dlogits  # the 1/n of the mean forgotten


def cross_entropy__column_indexing(logits, targets):
    Z = logits - logits.max(axis=1, keepdims=True)
    logp = Z - np.log(np.exp(Z).sum(axis=1, keepdims=True))
    loss = -logp[:, targets].mean()  # (n, n): every row at every target
    dlogits = np.exp(logp)
    dlogits[:, targets] -= 1.0
    return loss, dlogits / len(targets)


def cross_entropy__shifts_logits_in_place(logits, targets):
    n = len(targets)
    logits -= logits.max(axis=1, keepdims=True)
    logp = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
    dlogits = np.exp(logp)
    dlogits[np.arange(n), targets] -= 1.0
    return -logp[np.arange(n), targets].mean(), dlogits / n


def cross_entropy__mean_applied_twice(logits, targets):
    n = len(targets)
    Z = logits - logits.max(axis=1, keepdims=True)
    logp = Z - np.log(np.exp(Z).sum(axis=1, keepdims=True))
    loss = -logp[np.arange(n), targets].mean()
    dlogits = np.exp(logp)
    dlogits[np.arange(n), targets] -= 1.0
    dlogits /= n
    return loss, dlogits / n  # and once more at the end, "because the loss is a mean"


def cross_entropy_ok_take_along_axis(logits, targets):
    n = logits.shape[0]
    Z = logits - logits.max(axis=1, keepdims=True)  # every exponent <= 0
    logp = Z - np.log(np.exp(Z).sum(axis=1, keepdims=True))  # log-probabilities, no log of a probability
    picked = np.take_along_axis(logp, np.asarray(targets)[:, None], axis=1)[:, 0]
    one_hot = np.zeros_like(logp)
    np.put_along_axis(one_hot, np.asarray(targets)[:, None], 1.0, axis=1)
    return -picked.mean(), (np.exp(logp) - one_hot) / n


def softmax_backward__sign_flipped(A, dA):
    return A * (dA + (dA * A).sum(axis=-1, keepdims=True))


def softmax_backward__sum_without_keepdims(A, dA):
    return A * (dA - (dA * A).sum(axis=-1))


def softmax_backward__diagonal_only(A, dA):
    # only the diagonal of the Jacobian, A_i (1 - A_i)
    return A * (1 - A) * dA


def softmax_backward__axis_1_hard_coded(A, dA):
    return A * (dA - (dA * A).sum(axis=1, keepdims=True))


def softmax_backward_ok_distributed(A, dA):
    # the Jacobian diag(A) - A A^T applied to dA without building it: A dA - A (A . dA)
    return A * dA - A * np.einsum("...i,...i->...", A, dA)[..., None]


def _forward_for_backward(Q, K, causal, scale, top_left=False):
    n_q, n_k = Q.shape[0], K.shape[0]
    s = 1 / np.sqrt(Q.shape[1]) if scale else 1.0
    S = Q @ K.T * s
    if causal:
        S = S + np.triu(np.full((n_q, n_k), -np.inf), k=1 if top_left else n_k - n_q + 1)
    return my_softmax(S, axis=1), s


def attention_backward__scale_skipped_in_chain(Q, K, V, dO, causal=True, scale=True):
    A, s = _forward_for_backward(Q, K, causal, scale)
    dA = dO @ V.T
    dS = A * (dA - (dA * A).sum(axis=1, keepdims=True))  # the step back through "* s" left out
    return dS @ K, dS.T @ Q, A.T @ dO


def attention_backward__transposes_swapped(Q, K, V, dO, causal=True, scale=True):
    A, s = _forward_for_backward(Q, K, causal, scale)
    dA = dO @ V.T
    dS = A * (dA - (dA * A).sum(axis=1, keepdims=True)) * s
    return dS.T @ K, dS @ Q, A.T @ dO


def attention_backward__dV_without_transpose(Q, K, V, dO, causal=True, scale=True):
    A, s = _forward_for_backward(Q, K, causal, scale)
    dA = dO @ V.T
    dS = A * (dA - (dA * A).sum(axis=1, keepdims=True)) * s
    return dS @ K, dS.T @ Q, A @ dO


def attention_backward__scale_applied_twice(Q, K, V, dO, causal=True, scale=True):
    A, s = _forward_for_backward(Q, K, causal, scale)
    dA = dO @ V.T
    dS = A * (dA - (dA * A).sum(axis=1, keepdims=True)) * s
    return dS @ K * s, dS.T @ Q * s, A.T @ dO


def attention_backward__forward_mask_top_left(Q, K, V, dO, causal=True, scale=True):
    A, s = _forward_for_backward(Q, K, causal, scale, top_left=True)  # torch.triu(diagonal=1) on (n_q, n_k)
    dA = dO @ V.T
    dS = A * (dA - (dA * A).sum(axis=1, keepdims=True)) * s
    return dS @ K, dS.T @ Q, A.T @ dO


def attention_backward_ok_einsum(Q, K, V, dO, causal=True, scale=True):
    A = attention_weights_ok_position_offsets(Q, K, causal, scale)
    s = 1 / math.sqrt(Q.shape[1]) if scale else 1.0
    dV = np.einsum("qk,qv->kv", A, dO)
    dA = np.einsum("qv,kv->qk", dO, V)
    dS = softmax_backward_ok_distributed(A, dA) * s
    return np.einsum("qk,kd->qd", dS, K), np.einsum("qk,qd->kd", dS, Q), dV


def _ln_parts(X, eps, ddof=0):
    mu = X.mean(axis=1, keepdims=True)
    rstd = 1 / np.sqrt(X.var(axis=1, ddof=ddof, keepdims=True) + eps)
    return (X - mu) * rstd, rstd


def layer_norm_backward__variance_term_dropped(X, g, dY, eps=1e-5):
    Xhat, rstd = _ln_parts(X, eps)
    dXhat = dY * g
    dX = rstd * (dXhat - dXhat.mean(axis=1, keepdims=True))  # as if the variance did not depend on X
    return dX, (dY * Xhat).sum(axis=0), dY.sum(axis=0)


def layer_norm_backward__sum_for_mean(X, g, dY, eps=1e-5):
    Xhat, rstd = _ln_parts(X, eps)
    dXhat = dY * g
    dX = rstd * (dXhat - dXhat.sum(axis=1, keepdims=True) - Xhat * (dXhat * Xhat).mean(axis=1, keepdims=True))
    return dX, (dY * Xhat).sum(axis=0), dY.sum(axis=0)


def layer_norm_backward__gain_left_out_of_dX(X, g, dY, eps=1e-5):
    Xhat, rstd = _ln_parts(X, eps)
    dXhat = dY  # the "* g" of the forward pass not carried back
    dX = rstd * (dXhat - dXhat.mean(axis=1, keepdims=True) - Xhat * (dXhat * Xhat).mean(axis=1, keepdims=True))
    return dX, (dY * Xhat).sum(axis=0), dY.sum(axis=0)


def layer_norm_backward__gain_grad_summed_over_features(X, g, dY, eps=1e-5):
    Xhat, rstd = _ln_parts(X, eps)
    dXhat = dY * g
    dX = rstd * (dXhat - dXhat.mean(axis=1, keepdims=True) - Xhat * (dXhat * Xhat).mean(axis=1, keepdims=True))
    return dX, (dY * Xhat).sum(axis=1), dY.sum(axis=1)  # dim=1


def layer_norm_backward__unbiased_variance(X, g, dY, eps=1e-5):
    Xhat, rstd = _ln_parts(X, eps, ddof=1)  # torch.var default
    dXhat = dY * g
    dX = rstd * (dXhat - dXhat.mean(axis=1, keepdims=True) - Xhat * (dXhat * Xhat).mean(axis=1, keepdims=True))
    return dX, (dY * Xhat).sum(axis=0), dY.sum(axis=0)


def layer_norm_backward_ok_times_d(X, g, dY, eps=1e-5):
    d = X.shape[1]
    Xc = X - X.mean(axis=1, keepdims=True)
    sigma = np.sqrt((Xc * Xc).mean(axis=1, keepdims=True) + eps)
    Xhat = Xc / sigma
    G = dY * g
    dX = (d * G - G.sum(axis=1, keepdims=True) - Xhat * (G * Xhat).sum(axis=1, keepdims=True)) / (d * sigma)
    return dX, np.einsum("nd,nd->d", dY, Xhat), np.einsum("nd->d", dY)


# ============================================================================
# 12 most_attended, attention_entropy

def most_attended__argmax_dim0(A, tokens):
    return [tokens[j] for j in np.argmax(A, axis=0)]


def most_attended__argsort_last(A, tokens):
    # the last column of the ascending sort is the largest, but of equal weights it is the later one
    return [tokens[j] for j in np.argsort(A, axis=1, kind="stable")[:, -1]]


def most_attended__numpy_array_of_words(A, tokens):
    return np.array(tokens)[A.argmax(axis=1)]


def most_attended__half_precision(A, tokens):
    A16 = A.astype(np.float16)  # "weights only need a few digits"
    return [tokens[j] for j in A16.argmax(axis=1)]


def most_attended_ok_python_max(A, tokens):
    # Python's max returns the first of equal maxima
    rows = np.asarray(A).tolist()
    return [tokens[max(range(len(row)), key=row.__getitem__)] for row in rows]


def attention_entropy__log2(A):
    with np.errstate(divide="ignore", invalid="ignore"):
        return -np.nansum(A * np.log2(A), axis=1)


def attention_entropy__sum_over_queries(A):
    with np.errstate(divide="ignore", invalid="ignore"):
        return -np.nansum(A * np.log(A), axis=0)


def attention_entropy__mean_over_keys(A):
    with np.errstate(divide="ignore", invalid="ignore"):
        return -np.nanmean(np.where(A > 0, A * np.log(A), 0.0), axis=1)


def attention_entropy__zeros_give_nan(A):
    with np.errstate(divide="ignore", invalid="ignore"):
        return -(A * np.log(A)).sum(axis=1)


def attention_entropy__eps_inside_log(A):
    return -(A * np.log(A + 1e-8)).sum(axis=1)


def attention_entropy_ok_only_positive_terms(A):
    A = np.asarray(A, dtype=float)
    out = np.zeros(A.shape[0])
    for i, row in enumerate(A):
        w = row[row > 0]
        out[i] = -np.dot(w, np.log(w))
    return out


# ============================================================================
# 13 padding_mask, cross_attention

def padding_mask__inclusive_bound(n_q, n_valid, n_k):
    return np.where(np.arange(n_k) <= n_valid, 0.0, -np.inf) * np.ones((n_q, 1))


def padding_mask__real_tokens_hidden(n_q, n_valid, n_k):
    M = np.zeros((n_q, n_k))
    M[:, :n_valid] = -np.inf  # masked_fill where the mask marks the real tokens
    return M


def padding_mask__boolean_key_padding_mask(n_q, n_valid, n_k):
    # PyTorch's key_padding_mask: True on the padding
    return np.tile(np.arange(n_k) >= n_valid, (n_q, 1))


def padding_mask__padding_on_the_left(n_q, n_valid, n_k):
    M = np.full((n_q, n_k), -np.inf)
    M[:, n_k - n_valid:] = 0.0  # real tokens taken as the last n_valid
    return M


def padding_mask__rows_and_columns_swapped(n_q, n_valid, n_k):
    row = np.where(np.arange(n_k) < n_valid, 0.0, -np.inf)
    return np.tile(row[:, None], (1, n_q))  # (n_k, n_q)


def padding_mask_ok_log_of_indicator(n_q, n_valid, n_k):
    real = (np.arange(n_k) < n_valid).astype(float)
    with np.errstate(divide="ignore"):
        return np.repeat(np.log(real)[None, :], n_q, axis=0)


def cross_attention__causal_mask_copied(X, Z, Wq, Wk, Wv):
    Q, K, V = X @ Wq, Z @ Wk, Z @ Wv
    S = Q @ K.T / np.sqrt(Q.shape[1])
    S = S + np.triu(np.full(S.shape, -np.inf), k=1)  # pasted from self_attention
    return my_softmax(S, axis=1) @ V


def cross_attention__keys_from_X(X, Z, Wq, Wk, Wv):
    Q, K, V = X @ Wq, X @ Wk, Z @ Wv  # K line kept from self_attention
    return my_softmax(Q @ K.T / np.sqrt(Q.shape[1]), axis=1) @ V


def cross_attention__softmax_dim0(X, Z, Wq, Wk, Wv):
    Q, K, V = X @ Wq, Z @ Wk, Z @ Wv
    return my_softmax(Q @ K.T / np.sqrt(Q.shape[1]), axis=0) @ V


def cross_attention__queries_from_Z(X, Z, Wq, Wk, Wv):
    # "the decoder reads the encoder": queries taken from the sentence being read
    Q, K, V = Z @ Wq, X @ Wk, X @ Wv
    return my_softmax(Q @ K.T / np.sqrt(Q.shape[1]), axis=1) @ V


def cross_attention_ok_unmasked_rows(X, Z, Wq, Wk, Wv):
    Q, K, V = X @ Wq, Z @ Wk, Z @ Wv
    return attention_ok_row_by_row(Q, K, V, causal=False)


# ============================================================================
# 14 attend_step, cache_step, sample_next, top_k_filter, top_p_filter, generate, kv_cache_bytes, max_cached_tokens

def attend_step__no_max_subtracted(q, K_cache, V_cache):
    a = np.exp(K_cache @ q / np.sqrt(q.shape[0]))
    return (a / a.sum()) @ V_cache


def attend_step__scaled_by_cache_length(q, K_cache, V_cache):
    s = K_cache @ q / np.sqrt(K_cache.shape[0])  # K.size(0): the number of cached tokens
    a = np.exp(s - s.max())
    return (a / a.sum()) @ V_cache


def attend_step__own_row_dropped(q, K_cache, V_cache):
    # "the caches already hold the new token's own row", so leave it out
    K, V = K_cache[:-1], V_cache[:-1]
    s = K @ q / np.sqrt(q.shape[0])
    a = np.exp(s - s.max())
    return (a / a.sum()) @ V


def attend_step__max_only_in_numerator(q, K_cache, V_cache):
    s = K_cache @ q / np.sqrt(q.shape[0])
    return (np.exp(s - s.max()) / np.exp(s).sum()) @ V_cache


def attend_step_ok_weighted_sum(q, K_cache, V_cache):
    s = np.einsum("td,d->t", K_cache, q) / math.sqrt(len(q))
    w = np.exp(s - np.max(s))
    return np.einsum("t,tv->v", w, V_cache) / w.sum()


def cache_step__attends_before_appending(q, k, v, K_cache, V_cache):
    o = attend_step_helper(q, K_cache, V_cache)  # the caches without the new token
    return o, np.vstack([K_cache, k]), np.vstack([V_cache, v])


def cache_step__np_append_without_axis(q, k, v, K_cache, V_cache):
    K_new = np.append(K_cache, k)  # flattens: no axis given
    V_new = np.append(V_cache, v)
    o = attend_step_helper(q, K_new.reshape(-1, len(q)), V_new.reshape(-1, len(v)))
    return o, K_new, V_new


def cache_step__own_history_in_default_lists(q, k, v, K_cache, V_cache, keys=[], vals=[]):
    keys.append(k)
    vals.append(v)
    K_new, V_new = np.array(keys), np.array(vals)
    return attend_step_helper(q, K_new, V_new), K_new, V_new


def cache_step__new_row_first(q, k, v, K_cache, V_cache):
    K_new = np.vstack([k, K_cache])  # torch.cat([k, K]) in the wrong order
    V_new = np.vstack([v, V_cache])
    return attend_step_helper(q, K_new, V_new), K_new, V_new


def cache_step__scale_forgotten(q, k, v, K_cache, V_cache):
    K_new = np.concatenate([K_cache, k[None, :]], axis=0)
    V_new = np.concatenate([V_cache, v[None, :]], axis=0)
    s = K_new @ q
    a = np.exp(s - s.max())
    return (a / a.sum()) @ V_new, K_new, V_new


def cache_step_ok_preallocated(q, k, v, K_cache, V_cache):
    t = K_cache.shape[0]
    K_new = np.empty((t + 1, K_cache.shape[1]))
    V_new = np.empty((t + 1, V_cache.shape[1]))
    K_new[:t], K_new[t] = K_cache, k
    V_new[:t], V_new[t] = V_cache, v
    return attend_step_ok_weighted_sum(q, K_new, V_new), K_new, V_new


def _probs(logits, temperature):
    z = np.asarray(logits, dtype=float)
    z = (z - z.max()) / temperature
    e = np.exp(z)
    return e / e.sum()


def sample_next__searchsorted_left(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    cdf = np.cumsum(_probs(logits, temperature))
    cdf /= cdf[-1]
    return int(np.searchsorted(cdf, u))  # side="left": a running total equal to u is taken


def sample_next__total_not_rescaled(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    cdf = np.cumsum(_probs(logits, temperature))
    return int(np.argmax(cdf > u))  # no True when the total ends below u: argmax gives 0


def sample_next__temperature_multiplies(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    z = logits * temperature
    p = np.exp(z - z.max())
    cdf = np.cumsum(p / p.sum())
    cdf /= cdf[-1]
    return int(np.searchsorted(cdf, u, side="right"))


def sample_next__numpy_integer(logits, temperature, u):
    if temperature == 0:
        return np.argmax(logits)
    cdf = np.cumsum(_probs(logits, temperature))
    cdf /= cdf[-1]
    return np.searchsorted(cdf, u, side="right")  # an np.int64, not a Python int


def sample_next__eps_for_zero_temperature(logits, temperature, u):
    t = max(temperature, 1e-8)  # no special case: "a tiny temperature is greedy anyway"
    cdf = np.cumsum(_probs(logits, t))
    cdf /= cdf[-1]
    return int(np.searchsorted(cdf, u, side="right"))


def sample_next_ok_first_total_above_u(logits, temperature, u):
    if temperature == 0:
        return int(np.flatnonzero(np.asarray(logits) == np.max(logits))[0])
    z = np.array(logits, dtype=float)
    z = (z - z.max()) / temperature
    e = np.exp(z)
    totals = np.cumsum(e / e.sum())
    totals = totals / totals[-1]
    return int(np.argmax(totals > u))  # the last total is exactly 1 > u, so some entry is True


def top_k_filter__argsort_exactly_k(logits, k):
    keep = np.argsort(logits)[-k:]
    out = np.full(len(logits), -np.inf)
    out[keep] = logits[keep]
    return out


def top_k_filter__argpartition_smallest(logits, k):
    k = min(k, len(logits))
    keep = np.argpartition(logits, k - 1)[:k]  # the k smallest: the partition is ascending
    out = np.full(len(logits), -np.inf)
    out[keep] = logits[keep]
    return out


def top_k_filter__in_place(logits, k):
    kth = np.sort(logits)[::-1][min(k, len(logits)) - 1]
    logits[logits < kth] = -np.inf
    return logits


def top_k_filter__zero_based_kth(logits, k):
    desc = np.sort(logits)[::-1]
    kth = desc[min(k, len(logits) - 1)]  # desc[k] is the (k+1)-th largest
    return np.where(logits >= kth, logits, -np.inf)


def top_k_filter__negative_index_past_vocab(logits, k):
    kth = np.sort(logits)[-k]  # IndexError once k > vocab
    return np.where(logits >= kth, logits, -np.inf)


def top_k_filter_ok_partition(logits, k):
    logits = np.asarray(logits, dtype=float)
    k = min(k, logits.size)
    kth = np.partition(logits, logits.size - k)[logits.size - k]  # the k-th largest value
    return np.where(logits >= kth, logits, -np.inf)


def _nucleus_probs(logits):
    e = np.exp(logits - logits.max())
    return e / e.sum()


def top_p_filter__stops_below_p(logits, p):
    P = _nucleus_probs(logits)
    order = np.argsort(-P, kind="stable")
    keep = order[np.cumsum(P[order]) <= p]  # the token that crosses p is dropped
    out = np.full(len(logits), -np.inf)
    out[keep] = logits[keep]
    return out


def top_p_filter__reversed_ascending_sort(logits, p):
    P = _nucleus_probs(logits)
    order = np.argsort(P, kind="stable")[::-1]  # of equal probabilities, the higher id first
    n = int(np.searchsorted(np.cumsum(P[order]), p)) + 1
    out = np.full(len(logits), -np.inf)
    out[order[:n]] = logits[order[:n]]
    return out


def top_p_filter__no_max_subtracted(logits, p):
    e = np.exp(logits)
    P = e / e.sum()
    order = np.argsort(-P, kind="stable")
    n = int(np.searchsorted(np.cumsum(P[order]), p)) + 1
    out = np.full(len(logits), -np.inf)
    out[order[:n]] = logits[order[:n]]
    return out


def top_p_filter__total_before_below_p(logits, p):
    P = _nucleus_probs(logits)
    order = np.argsort(-P, kind="stable")
    cum = np.cumsum(P[order])
    before = np.concatenate([[0.0], cum[:-1]])
    keep = order[before < p]  # at p = 1, tokens after the total has reached 1.0 are dropped
    out = np.full(len(logits), -np.inf)
    out[keep] = logits[keep]
    return out


def top_p_filter__in_place(logits, p):
    if p >= 1:
        return logits
    P = _nucleus_probs(logits)
    order = np.argsort(-P, kind="stable")
    n = int(np.searchsorted(np.cumsum(P[order]), p)) + 1
    logits[order[n:]] = -np.inf
    return logits


def top_p_filter_ok_running_total(logits, p):
    logits = np.array(logits, dtype=float)
    if p >= 1.0:
        return logits
    e = np.exp(logits - logits.max())
    P = e / e.sum()
    out = np.full(logits.shape, -np.inf)
    total = 0.0
    for i in sorted(range(len(P)), key=lambda i: -P[i]):  # sorted is stable: lower id first on ties
        out[i] = logits[i]
        total += P[i]
        if total >= p:
            break
    return out


def _feed(p, t, i, cache_step, K, V):
    x = p["tok_emb"][t] + p["pos_emb"][i]
    o, K, V = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K, V)
    return (x + o) @ p["W_out"], K, V


def generate__position_after_append(p, prompt, n_new, cache_step):
    d = p["Wq"].shape[0]
    K, V = np.zeros((0, d)), np.zeros((0, d))
    seq = [int(t) for t in prompt]
    for i, t in enumerate(seq):
        logits, K, V = _feed(p, t, i, cache_step, K, V)
    for step in range(n_new):
        seq.append(int(np.argmax(logits)))
        if step < n_new - 1:
            logits, K, V = _feed(p, seq[-1], len(seq), cache_step, K, V)  # len(seq) after the append
    return np.array(seq)


def generate__residual_left_out(p, prompt, n_new, cache_step):
    d = p["Wq"].shape[0]
    K, V = np.zeros((0, d)), np.zeros((0, d))
    seq = list(prompt)
    logits = None
    for i in range(len(prompt) + n_new - 1):
        x = p["tok_emb"][seq[i]] + p["pos_emb"][i]
        o, K, V = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K, V)
        logits = o @ p["W_out"]  # the x + of (x + o) forgotten
        if i >= len(prompt) - 1:
            seq.append(int(np.argmax(logits)))
    return np.array(seq[:len(prompt) + n_new], dtype=int)


def generate__whole_sequence_refed(p, prompt, n_new, cache_step):
    d = p["Wq"].shape[0]
    seq = [int(t) for t in prompt]
    for _ in range(n_new):
        K, V = np.zeros((0, d)), np.zeros((0, d))  # a fresh cache for every new token
        for i, t in enumerate(seq):
            logits, K, V = _feed(p, t, i, cache_step, K, V)
        seq.append(int(np.argmax(logits)))
    return np.array(seq)


def generate__embedding_row_updated_in_place(p, prompt, n_new, cache_step):
    d = p["Wq"].shape[0]
    K, V = np.zeros((0, d)), np.zeros((0, d))
    seq = [int(t) for t in prompt]
    for i in range(len(prompt) + n_new - 1):
        x = p["tok_emb"][seq[i]]  # a view of the table's row
        x += p["pos_emb"][i]
        o, K, V = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K, V)
        if i >= len(prompt) - 1:
            seq.append(int(np.argmax((x + o) @ p["W_out"])))
    return np.array(seq)


def generate__float_output(p, prompt, n_new, cache_step):
    T = len(prompt)
    d = p["Wq"].shape[0]
    out = np.zeros(T + n_new)  # float zeros
    out[:T] = prompt
    K, V = np.zeros((0, d)), np.zeros((0, d))
    for i in range(T + n_new - 1):
        logits, K, V = _feed(p, int(out[i]), i, cache_step, K, V)
        if i >= T - 1:
            out[i + 1] = np.argmax(logits)
    return out


def generate_ok_feed_then_pick(p, prompt, n_new, cache_step):
    d = p["Wq"].shape[0]
    K, V = np.zeros((0, d)), np.zeros((0, d))
    T = len(prompt)
    out = np.empty(T + n_new, dtype=np.int64)
    out[:T] = prompt
    for i in range(T + n_new - 1):  # the last token of the sequence never needs feeding
        x = p["tok_emb"][out[i]] + p["pos_emb"][i]
        o, K, V = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K, V)
        if i + 1 >= T:  # from the last prompt token on, each fed token picks the next one
            out[i + 1] = np.argmax((x + o) @ p["W_out"])
    return out


def kv_cache_bytes__one_tensor(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return n_layers * n_heads * d_head * seq_len * batch * bytes_per_value  # K only


def kv_cache_bytes__two_bytes_hard_coded(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return 2 * n_layers * n_heads * d_head * seq_len * batch * 2  # fp16, as in the example


def kv_cache_bytes__np_prod(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return np.prod([2, n_layers, n_heads, d_head, seq_len, batch, bytes_per_value])


def kv_cache_bytes__float_factor(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return 2.0 * n_layers * n_heads * d_head * seq_len * batch * bytes_per_value


def kv_cache_bytes_ok_math_prod(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    per_token = math.prod(int(v) for v in (n_heads, d_head, bytes_per_value)) * 2  # a key and a value
    return per_token * int(n_layers) * int(seq_len) * int(batch)


def _per_token(n_layers, n_heads, d_head, batch, bytes_per_value):
    return 2 * n_layers * n_heads * d_head * batch * bytes_per_value


def max_cached_tokens__float_division(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    return int(memory_bytes / _per_token(n_layers, n_heads, d_head, batch, bytes_per_value))


def max_cached_tokens__rounded_up(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    return math.ceil(memory_bytes / _per_token(n_layers, n_heads, d_head, batch, bytes_per_value))


def max_cached_tokens__search_strictly_below(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    per = _per_token(n_layers, n_heads, d_head, batch, bytes_per_value)
    lo, hi = 0, memory_bytes
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if per * mid < memory_bytes:  # "fits" read as strictly less than the memory
            lo = mid
        else:
            hi = mid - 1
    return lo


def max_cached_tokens__numpy_int64(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    per = np.int64(_per_token(n_layers, n_heads, d_head, batch, bytes_per_value))
    return int(np.int64(memory_bytes) // per)


def max_cached_tokens__rounded(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    return round(memory_bytes / _per_token(n_layers, n_heads, d_head, batch, bytes_per_value))


def max_cached_tokens_ok_divmod(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    per_token = kv_cache_bytes_ok_math_prod(n_layers, n_heads, d_head, 1, batch, bytes_per_value)
    tokens, _left_over = divmod(int(memory_bytes), per_token)
    return tokens


# ============================================================================
# 15 previous_token_score, prefix_matching_score, ablate_head

def previous_token_score__superdiagonal(A):
    # torch.diagonal(A, offset=1): the sign of the offset taken the other way round
    return float(np.diag(A, k=1).mean()) if len(A) > 1 else 0.0


def previous_token_score__empty_mean_at_T1(A):
    with np.errstate(invalid="ignore", divide="ignore"):
        return float(np.diag(A, k=-1).mean())  # nan when T = 1


def previous_token_score__fraction_of_rows_looking_back(A):
    # "a head that always looks exactly one back scores 1": counts the rows whose largest weight is one back
    T = len(A)
    if T == 1:
        return 0.0
    return float(np.mean(A[1:].argmax(axis=1) == np.arange(T - 1)))


def previous_token_score__take_along_self(A):
    T = len(A)
    if T == 1:
        return 0.0
    picked = np.take_along_axis(A[1:], np.arange(1, T)[:, None], axis=1)  # column t, meant t - 1
    return float(picked.mean())


def previous_token_score_ok_explicit_sum(A):
    T = A.shape[0]
    if T < 2:
        return 0.0
    return float(sum(A[t, t - 1] for t in range(1, T)) / (T - 1))


def prefix_matching_score__latest_copy_only(A, tokens):
    sums = []
    for t in range(len(tokens)):
        earlier = [j for j in range(t) if tokens[j] == tokens[t]]
        if earlier:
            sums.append(A[t, earlier[-1] + 1])  # only the most recent copy
    return float(np.mean(sums)) if sums else 0.0


def prefix_matching_score__weight_on_the_copy(A, tokens):
    sums = []
    for t in range(len(tokens)):
        earlier = [j for j in range(t) if tokens[j] == tokens[t]]
        if earlier:
            sums.append(sum(A[t, j] for j in earlier))  # the copy itself, not the token after it
    return float(np.mean(sums)) if sums else 0.0


def prefix_matching_score__mean_over_all_positions(A, tokens):
    T = len(tokens)
    total = 0.0
    for t in range(T):
        total += sum(A[t, j + 1] for j in range(t) if tokens[j] == tokens[t])
    return total / T  # positions without an earlier copy counted as 0


def prefix_matching_score__triu_of_matches(A, tokens):
    tokens = np.asarray(tokens)
    same = np.equal.outer(tokens, tokens)
    earlier = np.triu(same, k=1)  # meant tril(k=-1): j < t
    after = np.zeros_like(earlier)
    after[:, 1:] = earlier[:, :-1]
    rows = earlier.any(axis=1)
    return float((A * after).sum(axis=1)[rows].mean()) if rows.any() else 0.0


def prefix_matching_score__empty_mean(A, tokens):
    tokens = np.asarray(tokens)
    T = len(tokens)
    scores = []
    for t in range(T):
        js = np.flatnonzero(tokens[:t] == tokens[t])
        if len(js):
            scores.append(A[t, js + 1].sum())
    with np.errstate(invalid="ignore", divide="ignore"):
        return float(np.mean(scores)) if T else 0.0  # nan when no token repeats


def prefix_matching_score_ok_rolled_matches(A, tokens):
    tokens = np.asarray(tokens)
    earlier = np.tril(tokens[:, None] == tokens[None, :], k=-1)  # earlier[t, j]: j < t holds my token
    after = np.roll(earlier, 1, axis=1)  # column j moves to j + 1; the last column is never an earlier copy
    rows = earlier.any(axis=1)
    if not rows.any():
        return 0.0
    return float(np.sum(A * after, axis=1)[rows].mean())


def ablate_head__slice_is_a_view(Wo, head, n_heads):
    out = Wo[:]  # [:] copies a list, not an array
    d_head = Wo.shape[0] // n_heads
    out[head * d_head:(head + 1) * d_head] = 0.0
    return out


def ablate_head__columns_zeroed(Wo, head, n_heads):
    out = Wo.copy()
    d_head = Wo.shape[0] // n_heads
    out[:, head * d_head:(head + 1) * d_head] = 0.0
    return out


def ablate_head__end_row_included(Wo, head, n_heads):
    out = Wo.copy()
    d_head = Wo.shape[0] // n_heads
    out[head * d_head:(head + 1) * d_head + 1] = 0.0  # "up to (h + 1) * d_head"
    return out


def ablate_head__every_n_heads_th_row(Wo, head, n_heads):
    out = Wo.copy()
    out[head::n_heads] = 0.0
    return out


def ablate_head__d_head_from_columns(Wo, head, n_heads):
    out = Wo.copy()
    d_head = Wo.shape[1] // n_heads  # d_model // n_heads, as in lesson 09
    out[head * d_head:(head + 1) * d_head] = 0.0
    return out


def ablate_head_ok_row_mask(Wo, head, n_heads):
    d_head = Wo.shape[0] // n_heads
    silenced = (np.arange(Wo.shape[0]) // d_head) == head
    return np.where(silenced[:, None], 0.0, Wo)


# ============================================================================
# 16 rope, rope_attention

def rope__row_index_for_positions(X, positions, theta=10000.0):
    return my_rope(X, np.arange(len(X)), theta)


def rope__clockwise(X, positions, theta=10000.0):
    n, d = X.shape
    a = np.asarray(positions)[:, None] * theta ** (-np.arange(0, d, 2) / d)
    x, y = X[:, 0::2], X[:, 1::2]
    out = np.empty((n, d))
    out[:, 0::2] = x * np.cos(a) + y * np.sin(a)
    out[:, 1::2] = -x * np.sin(a) + y * np.cos(a)
    return out


def rope__pair_index_over_d(X, positions, theta=10000.0):
    n, d = X.shape
    a = np.asarray(positions)[:, None] * theta ** (-np.arange(d // 2) / d)  # i / d where 2i / d was asked
    x, y = X[:, 0::2], X[:, 1::2]
    out = np.empty((n, d))
    out[:, 0::2] = x * np.cos(a) - y * np.sin(a)
    out[:, 1::2] = x * np.sin(a) + y * np.cos(a)
    return out


def rope__rotated_in_place_through_views(X, positions, theta=10000.0):
    d = X.shape[1]
    a = np.asarray(positions)[:, None] * theta ** (-np.arange(0, d, 2) / d)
    x, y = X[:, 0::2], X[:, 1::2]  # views of X
    X[:, 0::2] = x * np.cos(a) - y * np.sin(a)  # x now holds the rotated values
    X[:, 1::2] = x * np.sin(a) + y * np.cos(a)
    return X


def rope__float32_angles(X, positions, theta=10000.0):
    d = X.shape[1]
    a = np.asarray(positions, dtype=np.float32)[:, None] * (theta ** (-np.arange(0, d, 2) / d)).astype(np.float32)
    cos, sin = np.cos(a), np.sin(a)
    out = np.empty(X.shape)
    out[:, 0::2] = X[:, 0::2] * cos - X[:, 1::2] * sin
    out[:, 1::2] = X[:, 0::2] * sin + X[:, 1::2] * cos
    return out


def rope_ok_complex_multiply(X, positions, theta=10000.0):
    n, d = X.shape
    z = X[:, 0::2] + 1j * X[:, 1::2]  # each pair as one complex number
    a = np.asarray(positions, dtype=float)[:, None] * theta ** (-np.arange(0, d, 2) / d)
    z = z * np.exp(1j * a)  # a counter-clockwise turn by a
    out = np.empty((n, d))
    out[:, 0::2], out[:, 1::2] = z.real, z.imag
    return out


def _causal_rows(S):
    n = S.shape[0]
    return S + np.triu(np.full((n, n), -np.inf), k=1)


def rope_attention__values_rotated_too(Q, K, V, positions, theta=10000.0):
    Qr, Kr, Vr = my_rope(Q, positions, theta), my_rope(K, positions, theta), my_rope(V, positions, theta)
    return my_softmax(_causal_rows(Qr @ Kr.T / np.sqrt(Q.shape[1])), axis=1) @ Vr


def rope_attention__keys_not_rotated(Q, K, V, positions, theta=10000.0):
    Qr = my_rope(Q, positions, theta)
    return my_softmax(_causal_rows(Qr @ K.T / np.sqrt(Q.shape[1])), axis=1) @ V


def rope_attention__scaled_by_d_v(Q, K, V, positions, theta=10000.0):
    Qr, Kr = my_rope(Q, positions, theta), my_rope(K, positions, theta)
    return my_softmax(_causal_rows(Qr @ Kr.T / np.sqrt(V.shape[1])), axis=1) @ V


def rope_attention__theta_not_passed(Q, K, V, positions, theta=10000.0):
    Qr, Kr = my_rope(Q, positions), my_rope(K, positions)
    return my_softmax(_causal_rows(Qr @ Kr.T / np.sqrt(Q.shape[1])), axis=1) @ V


def rope_attention_ok_rows(Q, K, V, positions, theta=10000.0):
    Qr, Kr = rope_ok_complex_multiply(Q, positions, theta), rope_ok_complex_multiply(K, positions, theta)
    return attention_ok_row_by_row(Qr, Kr, V, causal=True)


# ============================================================================
# 17 grouped_query_attention, grouped_cache_step

def _group_heads(W, width, count):
    return [W[:, g * width:(g + 1) * width] for g in range(count)]


def grouped_query_attention__groups_tiled(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    d_head = Wq.shape[1] // n_heads
    Ks = _group_heads(X @ Wk, d_head, n_kv_heads) * (n_heads // n_kv_heads)  # list * r: like np.tile
    Vs = _group_heads(X @ Wv, d_head, n_kv_heads) * (n_heads // n_kv_heads)
    Qs = _group_heads(X @ Wq, d_head, n_heads)
    return np.concatenate([attend(Qs[h], Ks[h], Vs[h], causal) for h in range(n_heads)], axis=1) @ Wo


def grouped_query_attention__divides_by_n_kv_heads(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    d_head = Wq.shape[1] // n_heads
    Qs, Ks, Vs = (_group_heads(X @ Wq, d_head, n_heads), _group_heads(X @ Wk, d_head, n_kv_heads),
                  _group_heads(X @ Wv, d_head, n_kv_heads))
    heads = []
    for h in range(n_heads):
        g = h // n_kv_heads  # meant h // (n_heads // n_kv_heads)
        heads.append(attend(Qs[h], Ks[g], Vs[g], causal))
    return np.concatenate(heads, axis=1) @ Wo


def grouped_query_attention__keys_split_like_queries(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    # split_heads from exercise 09 reused with n_heads for K and V as well
    n = X.shape[0]
    r = n_heads // n_kv_heads
    Qh = (X @ Wq).reshape(n, n_heads, -1).transpose(1, 0, 2)
    Kh = (X @ Wk).reshape(n, n_heads, -1).transpose(1, 0, 2)
    Vh = (X @ Wv).reshape(n, n_heads, -1).transpose(1, 0, 2)
    heads = [attend(Qh[h], Kh[h // r], Vh[h // r], causal) for h in range(n_heads)]
    return np.concatenate(heads, axis=1) @ Wo


def grouped_query_attention__causal_not_forwarded(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    d_head = Wq.shape[1] // n_heads
    r = n_heads // n_kv_heads
    Qs, Ks, Vs = (_group_heads(X @ Wq, d_head, n_heads), _group_heads(X @ Wk, d_head, n_kv_heads),
                  _group_heads(X @ Wv, d_head, n_kv_heads))
    return np.concatenate([attend(Qs[h], Ks[h // r], Vs[h // r]) for h in range(n_heads)], axis=1) @ Wo


def grouped_query_attention_ok_repeat_columns(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    d_head = Wq.shape[1] // n_heads
    r = n_heads // n_kv_heads
    # widen Wk and Wv to one block of columns per query head: group g's block repeated r times
    cols = np.concatenate([np.arange((h // r) * d_head, (h // r + 1) * d_head) for h in range(n_heads)])
    return multi_head_attention_ok_sum_of_head_projections(X, Wq, Wk[:, cols], Wv[:, cols], Wo, n_heads, causal)


def grouped_cache_step__group_by_modulo(q, k, v, K_cache, V_cache):
    n_heads, d_head = q.shape
    n_kv = k.shape[0]
    K_new = np.concatenate([K_cache, k[:, None]], axis=1)
    V_new = np.concatenate([V_cache, v[:, None]], axis=1)
    o = np.stack([attend_step_helper(q[h], K_new[h % n_kv], V_new[h % n_kv]) for h in range(n_heads)])
    return o, K_new, V_new


def grouped_cache_step__cache_per_query_head(q, k, v, K_cache, V_cache):
    n_heads = q.shape[0]
    r = n_heads // k.shape[0]
    K_rep = np.concatenate([np.repeat(K_cache, r, axis=0), np.repeat(k, r, axis=0)[:, None]], axis=1)
    V_rep = np.concatenate([np.repeat(V_cache, r, axis=0), np.repeat(v, r, axis=0)[:, None]], axis=1)
    o = np.stack([attend_step_helper(q[h], K_rep[h], V_rep[h]) for h in range(n_heads)])
    return o, K_rep, V_rep  # one row per query head and token


def grouped_cache_step__new_axis_in_front(q, k, v, K_cache, V_cache):
    n_heads = q.shape[0]
    r = n_heads // k.shape[0]
    K_new = np.concatenate([K_cache, k[None]], axis=1)  # meant k[:, None]
    V_new = np.concatenate([V_cache, v[None]], axis=1)
    o = np.stack([attend_step_helper(q[h], K_new[h // r], V_new[h // r]) for h in range(n_heads)])
    return o, K_new, V_new


def grouped_cache_step__scaled_by_n_heads(q, k, v, K_cache, V_cache):
    n_heads = q.shape[0]
    r = n_heads // k.shape[0]
    K_new = np.concatenate([K_cache, k[:, None]], axis=1)
    V_new = np.concatenate([V_cache, v[:, None]], axis=1)
    o = np.empty(q.shape)
    for h in range(n_heads):
        s = K_new[h // r] @ q[h] / np.sqrt(q.shape[0])  # q.shape[0] is n_heads here, not d_head
        a = np.exp(s - s.max())
        o[h] = (a / a.sum()) @ V_new[h // r]
    return o, K_new, V_new


def grouped_cache_step__attend_left_causal(q, k, v, K_cache, V_cache):
    n_heads = q.shape[0]
    r = n_heads // k.shape[0]
    K_new = np.concatenate([K_cache, k[:, None]], axis=1)
    V_new = np.concatenate([V_cache, v[:, None]], axis=1)
    o = np.concatenate([attend(q[h][None], K_new[h // r], V_new[h // r]) for h in range(n_heads)])
    return o, K_new, V_new


def grouped_cache_step_ok_broadcast_groups(q, k, v, K_cache, V_cache):
    n_heads, d_head = q.shape
    n_kv, t = K_cache.shape[0], K_cache.shape[1]
    K_new = np.empty((n_kv, t + 1, d_head))
    V_new = np.empty((n_kv, t + 1, V_cache.shape[2]))
    K_new[:, :t], K_new[:, t] = K_cache, k
    V_new[:, :t], V_new[:, t] = V_cache, v
    qg = q.reshape(n_kv, n_heads // n_kv, d_head)  # query heads g*r .. (g+1)*r - 1 under group g
    s = np.einsum("grd,gtd->grt", qg, K_new) / math.sqrt(d_head)
    w = np.exp(s - s.max(axis=-1, keepdims=True))
    o = np.einsum("grt,gtv->grv", w / w.sum(axis=-1, keepdims=True), V_new)
    return o.reshape(n_heads, -1), K_new, V_new


# ============================================================================
# 18 sliding_window_mask, rolling_cache_step

def sliding_window_mask__one_position_too_many(n, window):
    allowed = np.tril(np.ones((n, n))) * np.triu(np.ones((n, n)), k=-window)  # k=-window keeps window + 1
    return np.where(allowed == 1, 0.0, -np.inf)


def sliding_window_mask__band_both_sides(n, window):
    i, j = np.indices((n, n))
    return np.where(np.abs(i - j) < window, 0.0, -np.inf)  # the causal half left out


def sliding_window_mask__itself_excluded(n, window):
    i, j = np.indices((n, n))
    return np.where((j < i) & (j >= i - window), 0.0, -np.inf)  # "the window positions before it"


def sliding_window_mask__boolean(n, window):
    i, j = np.indices((n, n))
    return (j > i) | (j <= i - window)  # True where masked, as a PyTorch attn_mask


def sliding_window_mask__outer_reversed(n, window):
    offset = np.subtract.outer(np.arange(n), np.arange(n)).T  # j - i, meant i - j
    return np.where((offset >= 0) & (offset < window), 0.0, -np.inf)


def sliding_window_mask_ok_tril_indices(n, window):
    M = np.full((n, n), -np.inf)
    M[np.tril_indices(n)] = 0.0  # the causal part
    M[np.tril_indices(n, -window)] = -np.inf  # and everything window or more positions back
    return M


def _rolled(K, V, window, n_sinks):
    if len(K) > window:
        keep = np.r_[0:n_sinks, len(K) - (window - n_sinks):len(K)]
        K, V = K[keep], V[keep]
    return K, V


def rolling_cache_step__attends_before_cut(q, k, v, K_cache, V_cache, window, n_sinks=0):
    K, V = np.vstack([K_cache, k]), np.vstack([V_cache, v])
    o = attend_step_helper(q, K, V)  # over window + 1 rows
    K, V = _rolled(K, V, window, n_sinks)
    return o, K, V


def rolling_cache_step__sinks_ignored(q, k, v, K_cache, V_cache, window, n_sinks=0):
    K, V = np.vstack([K_cache, k])[-window:], np.vstack([V_cache, v])[-window:]
    return attend_step_helper(q, K, V), K, V


def rolling_cache_step__keeps_first_window(q, k, v, K_cache, V_cache, window, n_sinks=0):
    K, V = np.vstack([K_cache, k])[:window], np.vstack([V_cache, v])[:window]  # "cut them back to window"
    return attend_step_helper(q, K, V), K, V


def rolling_cache_step__cut_without_condition(q, k, v, K_cache, V_cache, window, n_sinks=0):
    K, V = np.vstack([K_cache, k]), np.vstack([V_cache, v])
    recent = window - n_sinks
    K = np.concatenate([K[:n_sinks], K[-recent:]])  # also when nothing has to go
    V = np.concatenate([V[:n_sinks], V[-recent:]])
    return attend_step_helper(q, K, V), K, V


def rolling_cache_step__ring_buffer_in_place(q, k, v, K_cache, V_cache, window, n_sinks=0):
    if len(K_cache) == window:  # full: shift the non-sink rows up by one and write the new row last
        K_cache[n_sinks:-1] = K_cache[n_sinks + 1:].copy()
        V_cache[n_sinks:-1] = V_cache[n_sinks + 1:].copy()
        K_cache[-1], V_cache[-1] = k, v
        K, V = K_cache, V_cache
    else:
        K, V = np.vstack([K_cache, k]), np.vstack([V_cache, v])
    return attend_step_helper(q, K, V), K, V


def rolling_cache_step_ok_kept_indices(q, k, v, K_cache, V_cache, window, n_sinks=0):
    t = len(K_cache)
    rows = list(range(t + 1))
    if t + 1 > window:
        rows = rows[:n_sinks] + rows[t + 1 - (window - n_sinks):]  # the sinks, then the newest ones
    K_all = np.concatenate([K_cache, np.reshape(k, (1, -1))])
    V_all = np.concatenate([V_cache, np.reshape(v, (1, -1))])
    K_new, V_new = K_all[rows], V_all[rows]
    return attend_step_ok_weighted_sum(q, K_new, V_new), K_new, V_new


# ============================================================================
# 19 capstone: the dict of ops TinyLM(ops=...) takes (attnlib.learner_ops.NAMES), all right, then one or two replaced

RIGHT_OPS = {
    "softmax": softmax_ok_log_sum_exp,
    "attention": attention_ok_row_by_row,
    "embed": embed_ok_take_rows,
    "multi_head_attention": multi_head_attention_ok_sum_of_head_projections,
    "layer_norm": layer_norm_ok_inverse_std,
    "gelu": gelu_ok_factored_cubic,
    "transformer_block": transformer_block_ok_loop_over_sublayers,
    "next_token_logits": next_token_logits_ok_einsum_last_index,
    "cross_entropy": cross_entropy_ok_take_along_axis,
    "softmax_backward": softmax_backward_ok_distributed,
    "attention_backward": attention_backward_ok_einsum,
    "layer_norm_backward": layer_norm_backward_ok_times_d,
    "cache_step": cache_step_ok_preallocated,
    "sample_next": sample_next_ok_first_total_above_u,
    "rope": rope_ok_complex_multiply,
    "grouped_query_attention": grouped_query_attention_ok_repeat_columns,
    "grouped_cache_step": grouped_cache_step_ok_broadcast_groups,
    "rolling_cache_step": rolling_cache_step_ok_kept_indices,
}

capstone__gelu_sqrt_two_pi = {**RIGHT_OPS, "gelu": gelu__sqrt_two_pi}
capstone__layer_norm_unbiased = {**RIGHT_OPS, "layer_norm": layer_norm__unbiased_variance}
capstone__attention_backward_scale_skipped = {**RIGHT_OPS, "attention_backward": attention_backward__scale_skipped_in_chain}
capstone__unscaled_cache_and_hot_sampler = {**RIGHT_OPS, "cache_step": cache_step__scale_forgotten,
                                            "sample_next": sample_next__temperature_multiplies}
capstone__embed_last_positions = {**RIGHT_OPS, "embed": embed__last_n_positions}
capstone__rope_clockwise = {**RIGHT_OPS, "rope": rope__clockwise}
capstone__grouped_cache_scaled_by_heads = {**RIGHT_OPS, "grouped_cache_step": grouped_cache_step__scaled_by_n_heads}
capstone__sinks_dropped_and_loss_gradient_halved = {**RIGHT_OPS, "rolling_cache_step": rolling_cache_step__sinks_ignored,
                                                    "cross_entropy": cross_entropy__mean_applied_twice}


# ============================================================================
# the lists

MISTAKES = [
    # 01
    M("project", "computes x @ W.T (PyTorch's F.linear layout, weight stored (d_out, d_in)) instead of x @ W", project__pytorch_linear_layout),
    M("project", "einsum 'i,ij->i' keeps the input index in the output: returns x[i] times the row sums of W, shape (d_in,)", project__einsum_keeps_input_index),
    M("project", "broadcasts x against W's last axis (missing [:, None]): output j is x[j] times column sum j of W", project__broadcast_missing_none),
    M("project", "casts x and W to float16 to save memory, so the product is only good to about 3 digits", project__half_precision),
    M("compose", "returns W2 @ W1 (the order in which nn.Linear weights compose) instead of W1 @ W2", compose__pytorch_sequential_order),
    M("compose", "einsum 'ij,jk->ki' returns the transpose of W1 @ W2, shape (d_out, d_in)", compose__einsum_output_transposed),
    M("compose", "pushes the rows of an identity of size d_mid (not d_in) through both matrices: fails whenever d_in != d_mid", compose__identity_of_middle_size),
    M("compose", "writes the product into W1 with np.matmul(..., out=W1), overwriting the caller's W1 (and failing unless d_mid == d_out)", compose__product_written_into_W1),
    # 02
    M("project_rows", "einsum 'ni,oi->no' (F.linear's weight layout) computes X @ W.T instead of X @ W", project_rows__pytorch_weight_layout),
    M("project_rows", "appends the projected rows to a mutable default list argument, so every call returns the rows of all previous calls too", project_rows__list_default_argument),
    M("project_rows", "caches the result in a module-level dict keyed only on the shapes, returning a stale answer for new X or W of the same shapes", project_rows__memoised_by_shape),
    M("project_rows", "loops i over range(W.shape[0]) (d_in) instead of over the n rows of X", project_rows__loop_over_d_in),
    M("matmul_cost", "returns np.prod of the sizes: an np.int64, not a Python int, that overflows past 2**63", matmul_cost__np_prod),
    M("matmul_cost", "counts the additions, n * (d_in - 1) * d_out, instead of the multiplications", matmul_cost__counts_additions),
    M("matmul_cost", "counts a multiply and an add per term (2 * n * d_in * d_out, the FLOP count)", matmul_cost__flops_multiply_add),
    M("matmul_cost", "multiplies in float and converts back with int(): inexact once the count passes 2**53", matmul_cost__through_float),
    # 03
    M("values", "removes repeated words before building X (one row per distinct word), so the two 'the' rows become one", values__repeats_removed),
    M("values", "builds X from the table's values in the table's order instead of from the tokens", values__table_rows_not_tokens),
    M("values", "stacks the word vectors along axis 1 (torch.stack(dim=1)), giving X of shape (d_model, n)", values__stack_dim1),
    M("values", "writes the projected vectors back into the caller's table dict", values__table_overwritten),
    M("one_hot", "indexes columns of the identity, np.eye(vocab)[:, ids]: the transpose, shape (vocab_size, n)", one_hot__columns_of_identity),
    M("one_hot", "returns an integer array instead of floats", one_hot__integer_array),
    M("one_hot", "infers the width from ids.max() + 1 (F.one_hot's num_classes=-1) instead of using vocab_size", one_hot__classes_inferred_from_ids),
    M("one_hot", "np.put_along_axis with ids[None, :] instead of ids[:, None]: every row gets a 1 at every id", one_hot__put_along_axis_wrong_none),
    # 04
    M("uniform_causal_weights", "divides by np.arange(1, n+1) without [:, None], so column j (not row i) is divided by j + 1", uniform_causal_weights__missing_none),
    M("uniform_causal_weights", "normalises torch.triu(ones, diagonal=1), the entries to mask, instead of its complement: the future gets the weight and the last row is 0/0", uniform_causal_weights__triu_diagonal1_not_inverted),
    M("uniform_causal_weights", "normalises the lower triangle along axis 0, so columns sum to 1 instead of rows", uniform_causal_weights__normalised_dim0),
    M("uniform_causal_weights", "integer floor division of an int triangle: every row after the first becomes 0", uniform_causal_weights__integer_division),
    M("causal_average", "takes the cumulative sum along axis 1 (the features) instead of axis 0 (the tokens)", causal_average__cumsum_along_features),
    M("causal_average", "divides by np.arange(1, n+1) without [:, None]: feature column j divided by j + 1 (or a broadcast error)", causal_average__missing_none),
    M("causal_average", "divides every running sum by n instead of by i + 1", causal_average__divides_by_n),
    M("causal_average", "computes the running mean in place in V (cumsum out=V, then /=), overwriting the caller's V", causal_average__in_place),
    # 05
    M("similarity", "computes Q.T @ K (the transpose on the wrong factor): shape (d, d), or an error when n_q != n_k", similarity__transpose_on_queries),
    M("similarity", "einsum 'id,jd->ji' returns the transpose, shape (n_k, n_q)", similarity__einsum_output_swapped),
    M("similarity", "divides by sqrt(d) although raw, unscaled scores were asked", similarity__scaled_anyway),
    M("similarity", "normalises Q and K rows first: cosine similarity instead of the dot product", similarity__cosine),
    M("learned_scores", "forgets the transpose on Wk: X Wq Wk X^T instead of X Wq Wk^T X^T", learned_scores__keys_not_transposed),
    M("learned_scores", "the keys line was pasted from the queries line and still uses Wq, so the scores are symmetric", learned_scores__query_line_pasted_for_keys),
    M("learned_scores", "adds the causal -inf mask although the exercise says no mask yet", learned_scores__mask_copied_in),
    M("learned_scores", "einsum output written '->ji': returns the transposed scores (key i against query j)", learned_scores__einsum_output_swapped),
    # 06
    M("causal_mask", "np.triu(full(-inf), k=0) also masks the diagonal: a token cannot see itself and row 0 is all -inf", causal_mask__triu_k0_hides_diagonal),
    M("causal_mask", "masks the past (below the diagonal) instead of the future: the mask's meaning inverted", causal_mask__past_masked),
    M("causal_mask", "multiplies triu(ones, 1) by -inf, so 0 * -inf gives NaN on and below the diagonal", causal_mask__ones_times_minus_inf),
    M("causal_mask", "returns PyTorch's boolean attn_mask (True = masked) instead of the additive 0 / -inf float mask", causal_mask__boolean_attn_mask),
    M("causal_mask", "uses -1e9 (masked_fill's habit) instead of -inf above the diagonal", causal_mask__minus_1e9),
    M("softmax", "subtracts the global max instead of the max along axis: a row far below the others underflows to 0/0 = NaN", softmax__global_max),
    M("softmax", "divides by the sum along axis without keepdims, so the sums broadcast along the wrong axis (or fail)", softmax__sum_without_keepdims),
    M("softmax", "hard-codes axis=1 (the lesson's 2-D rows) and ignores the axis argument", softmax__axis_1_hard_coded),
    M("softmax", "does not subtract the max before np.exp, so scores around 1000 overflow to inf/inf = NaN", softmax__no_max_subtracted),
    M("softmax", "computes the softmax in place in S (-=, exp(out=S), /=), overwriting the caller's scores", softmax__in_place),
    M("score_scale", "returns 1/d (the variance's factor) instead of 1/sqrt(d) (the factor for q . k itself)", score_scale__one_over_d),
    M("score_scale", "returns sqrt(d), the spread of q . k, instead of its inverse", score_scale__sqrt_d),
    M("score_scale", "uses math.isqrt(d), exact only for the experiment's square widths (wrong for d = 2, 3, 5 ...)", score_scale__integer_sqrt),
    M("score_scale", "divides by sqrt(d - 1) as in an unbiased variance (infinite at d = 1)", score_scale__unbiased_d_minus_1),
    M("attention_weights", "masks with triu(k=1) on the (n_q, n_k) scores: with n_q < n_k the queries are treated as the first positions, not the last", attention_weights__mask_top_left),
    M("attention_weights", "scales by sqrt(Q.shape[0]) (n_q, PyTorch's size(0)) instead of sqrt(d = Q.shape[1])", attention_weights__size0_for_d),
    M("attention_weights", "takes the softmax along axis 0 (F.softmax(dim=0)): columns sum to 1 instead of rows", attention_weights__softmax_dim0),
    M("attention_weights", "puts -inf where the keys are allowed (masked_fill with the mask's meaning inverted): the past is hidden and the last row is all -inf", attention_weights__masked_fill_inverted),
    M("attention_weights", "zeroes the future after the softmax instead of masking before it, so rows no longer sum to 1", attention_weights__mask_after_softmax),
    # 07
    M("attention", "calls the weights function without passing scale, so scale=False still divides by sqrt(d)", attention__scale_flag_not_passed),
    M("attention", "keeps only the last n_q keys and values when n_q < n_k (misreading 'the queries are the last n_q positions')", attention__last_n_q_keys_only),
    M("attention", "divides E @ V by E.sum(axis=1) without keepdims, so the sums broadcast along the value features (or fail)", attention__delayed_division_without_keepdims),
    M("attention", "casts the attention weights to float16 to save memory, so the output is good to about 3 digits", attention__half_precision_weights),
    M("attention", "applies the causal mask whatever the causal flag says", attention__always_masked),
    M("self_attention", "tests 'if Wo:' on an array, which raises for any Wo with more than one entry", self_attention__if_wo_truthiness),
    M("self_attention", "does not pass causal on, so causal=False is still masked", self_attention__causal_not_forwarded),
    M("self_attention", "multiplies by Wo.T (out_proj.weight's (d_out, d_v) layout) instead of Wo", self_attention__out_proj_weight_layout),
    M("self_attention", "returns (output, weights) like nn.MultiheadAttention instead of the output alone", self_attention__returns_output_and_weights),
    M("future_leak", "returns how many rows see the future instead of how far ahead the worst row sees", future_leak__counts_leaking_rows),
    M("future_leak", "compares outputs with != (zero tolerance), so rounding noise of a causal function counts as a leak", future_leak__exact_comparison),
    M("future_leak", "uses np.allclose's default tolerances (rtol 1e-5), so a tiny weight on a future token is missed", future_leak__allclose_defaults),
    M("future_leak", "moves the rows of X in place (+1, then -1), which leaves X changed by rounding", future_leak__moves_rows_of_X_and_back),
    M("future_leak", "uses an absolute 1e-9 threshold not scaled by the largest output, so rounding noise of large outputs counts as a leak", future_leak__absolute_threshold),
    M("tiled_attention", "rescales the running sum l when the max rises but not the running output acc", tiled_attention__acc_not_rescaled),
    M("tiled_attention", "divides acc by l after every tile instead of once at the end", tiled_attention__divides_by_l_every_tile),
    M("tiled_attention", "starts the running max at 0 instead of -inf: scores far below 0 underflow to l = 0 and the output is NaN", tiled_attention__running_max_starts_at_zero),
    M("tiled_attention", "masks each tile as if query i sat at position i, ignoring the offset n_k - n_q when there are fewer queries than keys", tiled_attention__tile_mask_ignores_offset),
    M("tiled_attention", "scores each block of queries against all keys at once: a (block, n_k) strip, over the memory budget", tiled_attention__strip_of_scores),
    # 08
    M("embed", "adds the last n rows of pos_emb (the 'last positions' rule of the cache) instead of rows 0..n-1", embed__last_n_positions),
    M("embed", "adds the word vectors into a slice of pos_emb (a view), changing the caller's position table and returning a view of it", embed__adds_into_pos_emb_view),
    M("embed", "np.take(tok_emb, tokens, axis=1) (index_select on dim 1) picks columns of tok_emb instead of rows", embed__index_select_dim1),
    M("embed", "adds position rows 1..n instead of 0..n-1", embed__positions_from_one),
    M("sinusoidal_positions", "multiplies positions by frequencies without [:, None]: an elementwise product instead of the outer product", sinusoidal_positions__missing_none),
    M("sinusoidal_positions", "integer floor division 2*i // d in the exponent makes every pair turn at one radian per position", sinusoidal_positions__integer_exponent),
    M("sinusoidal_positions", "computes the angles in float32, which loses ~1e-4 radians at positions in the thousands", sinusoidal_positions__float32_table),
    M("sinusoidal_positions", "stacks sin and cos on a new first axis and reshapes to (n, d): a view where the pair axis had to come last", sinusoidal_positions__stack_then_view),
    # 09
    M("split_heads", "reshapes (view) M to (n_heads, n, d_head) directly instead of to (n, n_heads, d_head) then transposing", split_heads__view_without_transpose),
    M("split_heads", "reshapes to (n, d_head, n_heads), so head h gets every n_heads-th column instead of a contiguous block", split_heads__interleaved_columns),
    M("split_heads", "uses .T on the 3-D (n, n_heads, d_head) array, which reverses all three axes", split_heads__dot_T_on_3d),
    M("split_heads", "np.split along axis 0 (torch.chunk's default dim) splits the tokens instead of the columns", split_heads__split_rows),
    M("split_heads", "takes sliding windows of d_head columns with a stride of n_heads instead of d_head", split_heads__window_stride_n_heads),
    M("multi_head_attention", "scales each head by sqrt(d_model) instead of sqrt(d_head)", multi_head_attention__scaled_by_d_model),
    M("multi_head_attention", "merges the (n_heads, n, d_head) outputs with reshape(n, -1) without transposing back, scrambling rows and heads", multi_head_attention__merge_by_reshape),
    M("multi_head_attention", "does not pass causal to attend, so causal=False is still masked", multi_head_attention__causal_not_forwarded),
    M("multi_head_attention", "einsum 'hij,hid->hjd' sums over the queries (A^T V) instead of 'hij,hjd->hid'", multi_head_attention__einsum_sums_queries),
    M("multi_head_attention", "splits the heads with reshape(n, d_head, n_heads): each head takes interleaved columns", multi_head_attention__heads_interleaved),
    # 10
    M("layer_norm", "uses the unbiased variance (ddof=1, torch.var's default) instead of the biased one", layer_norm__unbiased_variance),
    M("layer_norm", "adds eps to the standard deviation instead of inside the square root", layer_norm__eps_outside_sqrt),
    M("layer_norm", "subtracts the row means without keepdims, so they broadcast along the features (or fail)", layer_norm__mean_without_keepdims),
    M("layer_norm", "centres and scales X in place, overwriting the caller's X", layer_norm__in_place),
    M("gelu", "uses sqrt(2 pi) instead of sqrt(2 / pi) inside the tanh", gelu__sqrt_two_pi),
    M("gelu", "uses 0.044715 x^2 instead of 0.044715 x^3", gelu__square_not_cube),
    M("gelu", "computes the exact erf GELU (F.gelu's default) instead of the tanh approximation asked", gelu__exact_erf),
    M("gelu", "multiplies only x by sqrt(2/pi): tanh(c x + 0.044715 x^3) instead of tanh(c (x + 0.044715 x^3))", gelu__constant_not_distributed),
    M("gelu", "adds the cubic term with += on an alias of X, changing the caller's X and the x outside the tanh", gelu__in_place_on_alias),
    M("transformer_block", "normalises X instead of Y before the MLP (X left over from the attention line)", transformer_block__second_norm_on_X),
    M("transformer_block", "uses ln1_g and ln1_b for the second layer norm (pasted from the first)", transformer_block__first_norm_params_reused),
    M("transformer_block", "does not pass causal to multi_head_attention, so causal=False is still masked", transformer_block__causal_not_forwarded),
    M("transformer_block", "adds both residuals into X with +=, overwriting the caller's X", transformer_block__residual_added_in_place),
    M("transformer_block", "adds b1 after the GELU instead of before it", transformer_block__bias_after_gelu),
    # 11
    M("next_token_logits", "takes H[:, -1] (the last position of a (batch, seq, d) tensor), which on (n, d_model) is the last feature column", next_token_logits__last_column),
    M("next_token_logits", "applies a softmax: returns probabilities instead of raw logits", next_token_logits__softmax_applied),
    M("next_token_logits", "slices H[-1:], keeping the token axis: shape (1, vocab) instead of (vocab,)", next_token_logits__slice_keeps_dim),
    M("next_token_logits", "multiplies by W_vocab.T (lm_head.weight's (vocab, d_model) layout) instead of W_vocab", next_token_logits__lm_head_weight_layout),
    M("cross_entropy", "clips the target probability at 1e-12 before the log, capping the loss at 27.6 for huge logits", cross_entropy__clipped_log),
    M("cross_entropy", "returns softmax - one_hot without the 1/n of the mean", cross_entropy__gradient_not_averaged),
    M("cross_entropy", "indexes logp[:, targets] (every row at every target) instead of logp[arange(n), targets]", cross_entropy__column_indexing),
    M("cross_entropy", "subtracts the row max from logits in place, overwriting the caller's logits", cross_entropy__shifts_logits_in_place),
    M("cross_entropy", "divides dlogits by n twice", cross_entropy__mean_applied_twice),
    M("softmax_backward", "adds the row sum of dA * A instead of subtracting it (sign flipped)", softmax_backward__sign_flipped),
    M("softmax_backward", "takes the row sum of dA * A without keepdims, so it broadcasts along the wrong axis (or fails)", softmax_backward__sum_without_keepdims),
    M("softmax_backward", "keeps only the Jacobian's diagonal, A (1 - A) dA, dropping the cross terms", softmax_backward__diagonal_only),
    M("softmax_backward", "sums over axis 1 instead of the last axis, wrong for 1-D and 3-D inputs", softmax_backward__axis_1_hard_coded),
    M("attention_backward", "leaves out the chain rule through the scale: dS is not multiplied by 1/sqrt(d)", attention_backward__scale_skipped_in_chain),
    M("attention_backward", "puts the transpose on the wrong gradient: dQ = dS^T K and dK = dS Q", attention_backward__transposes_swapped),
    M("attention_backward", "computes dV = A dO instead of A^T dO", attention_backward__dV_without_transpose),
    M("attention_backward", "multiplies dQ and dK by the scale a second time", attention_backward__scale_applied_twice),
    M("attention_backward", "recomputes the forward with a top-left triu(k=1) mask, wrong when n_q < n_k", attention_backward__forward_mask_top_left),
    M("layer_norm_backward", "drops the term through the variance, Xhat * mean(dXhat * Xhat)", layer_norm_backward__variance_term_dropped),
    M("layer_norm_backward", "subtracts the row sum of dXhat instead of its mean (the 1/d forgotten)", layer_norm_backward__sum_for_mean),
    M("layer_norm_backward", "uses dY instead of dY * g as the gradient at Xhat", layer_norm_backward__gain_left_out_of_dX),
    M("layer_norm_backward", "sums dg and db over axis 1 (the features) instead of over the rows: shape (n,)", layer_norm_backward__gain_grad_summed_over_features),
    M("layer_norm_backward", "recomputes Xhat with the unbiased variance (ddof=1)", layer_norm_backward__unbiased_variance),
    # 12
    M("most_attended", "takes argmax along axis 0: the most attending query of each key, n_k words", most_attended__argmax_dim0),
    M("most_attended", "takes the last column of argsort, which breaks ties towards the later token", most_attended__argsort_last),
    M("most_attended", "returns a numpy array of strings instead of a list", most_attended__numpy_array_of_words),
    M("most_attended", "casts A to float16, so weights closer than float16 resolution tie and the earlier token wins", most_attended__half_precision),
    M("attention_entropy", "uses log2 (bits) instead of the natural log (nats)", attention_entropy__log2),
    M("attention_entropy", "sums over axis 0 (the queries) instead of over each row", attention_entropy__sum_over_queries),
    M("attention_entropy", "averages the terms over the keys instead of summing them", attention_entropy__mean_over_keys),
    M("attention_entropy", "computes A * log(A) with no care for zeros, so masked weights give 0 * -inf = NaN", attention_entropy__zeros_give_nan),
    M("attention_entropy", "adds 1e-8 inside the log, which biases the entropy of rows with many small weights (and makes one-hot rows slightly negative)", attention_entropy__eps_inside_log),
    # 13
    M("padding_mask", "keeps columns j <= n_valid (inclusive), so the first padding key is visible", padding_mask__inclusive_bound),
    M("padding_mask", "puts -inf on the real tokens and 0 on the padding (the mask's meaning inverted)", padding_mask__real_tokens_hidden),
    M("padding_mask", "returns PyTorch's boolean key_padding_mask (True on the padding) instead of the additive float mask", padding_mask__boolean_key_padding_mask),
    M("padding_mask", "treats the real tokens as the last n_valid keys (padding on the left)", padding_mask__padding_on_the_left),
    M("padding_mask", "returns the mask transposed, shape (n_k, n_q)", padding_mask__rows_and_columns_swapped),
    M("cross_attention", "adds the causal mask copied from self-attention although cross-attention has no mask", cross_attention__causal_mask_copied),
    M("cross_attention", "takes the keys from X (the line kept from self-attention) instead of from Z", cross_attention__keys_from_X),
    M("cross_attention", "takes the softmax along axis 0, over the queries", cross_attention__softmax_dim0),
    M("cross_attention", "takes the queries from Z and the keys and values from X: roles reversed, shape (n_z, d_v)", cross_attention__queries_from_Z),
    # 14
    M("attend_step", "does not subtract the max before np.exp, so huge scores overflow to NaN", attend_step__no_max_subtracted),
    M("attend_step", "scales by sqrt(t) (K_cache.shape[0]) instead of sqrt(d)", attend_step__scaled_by_cache_length),
    M("attend_step", "drops the last cached row, the new token's own key and value", attend_step__own_row_dropped),
    M("attend_step", "subtracts the max in the numerator only: exp(s - max) / sum(exp(s)), off by exp(max) and overflowing", attend_step__max_only_in_numerator),
    M("cache_step", "attends over the old caches before appending the new key and value", cache_step__attends_before_appending),
    M("cache_step", "np.append without axis flattens the caches to 1-D", cache_step__np_append_without_axis),
    M("cache_step", "keeps its own history in mutable default lists and ignores the caches it is given", cache_step__own_history_in_default_lists),
    M("cache_step", "puts the new key and value first instead of last", cache_step__new_row_first),
    M("cache_step", "forgets the 1/sqrt(d) scale of the scores", cache_step__scale_forgotten),
    M("sample_next", "uses searchsorted's default side='left', so a running total equal to u is taken (not the first one greater than u)", sample_next__searchsorted_left),
    M("sample_next", "does not rescale the running total to end at 1 and takes argmax(cdf > u), which returns 0 when the total ends below u", sample_next__total_not_rescaled),
    M("sample_next", "multiplies the logits by the temperature instead of dividing", sample_next__temperature_multiplies),
    M("sample_next", "returns an np.int64 instead of a Python int", sample_next__numpy_integer),
    M("sample_next", "replaces temperature 0 by 1e-8 instead of taking the argmax, so ties are sampled with u", sample_next__eps_for_zero_temperature),
    M("top_k_filter", "keeps exactly k tokens with argsort, dropping logits tied with the k-th largest", top_k_filter__argsort_exactly_k),
    M("top_k_filter", "keeps the first k of np.argpartition(logits, k - 1): the k smallest logits", top_k_filter__argpartition_smallest),
    M("top_k_filter", "sets the filtered logits to -inf in the caller's array and returns it", top_k_filter__in_place),
    M("top_k_filter", "takes the k-th largest as desc[k] (0-based slip), keeping k + 1 tokens", top_k_filter__zero_based_kth),
    M("top_k_filter", "indexes np.sort(logits)[-k], which raises once k > vocab instead of keeping every token", top_k_filter__negative_index_past_vocab),
    M("top_p_filter", "keeps the tokens whose running total is <= p, dropping the one that reaches p ('at least' misread)", top_p_filter__stops_below_p),
    M("top_p_filter", "ranks with argsort(P)[::-1], which puts the higher id first among equal probabilities", top_p_filter__reversed_ascending_sort),
    M("top_p_filter", "takes the softmax without subtracting the max, so logits around 1e300 overflow to NaN", top_p_filter__no_max_subtracted),
    M("top_p_filter", "keeps a token when the total before it is below p, with no special case for p = 1: zero-probability tokens are dropped at p = 1", top_p_filter__total_before_below_p),
    M("top_p_filter", "writes -inf into the caller's logits and returns that array (the input itself at p = 1)", top_p_filter__in_place),
    M("generate", "feeds each generated token at position len(seq) after appending it, one position too far", generate__position_after_append),
    M("generate", "computes the logits from o @ W_out, leaving out the residual x", generate__residual_left_out),
    M("generate", "re-feeds the whole sequence through a fresh cache for every new token: right tokens, far too many cache_step calls", generate__whole_sequence_refed),
    M("generate", "x = tok_emb[t] is a view, so x += pos_emb[i] changes the caller's embedding table", generate__embedding_row_updated_in_place),
    M("generate", "builds the sequence in np.zeros (floats) and returns a float array instead of ints", generate__float_output),
    M("kv_cache_bytes", "counts the keys only, forgetting the factor 2 for K and V", kv_cache_bytes__one_tensor),
    M("kv_cache_bytes", "hard-codes 2 bytes per value and ignores bytes_per_value", kv_cache_bytes__two_bytes_hard_coded),
    M("kv_cache_bytes", "returns np.prod of the factors: an np.int64 that overflows for huge caches, not a Python int", kv_cache_bytes__np_prod),
    M("kv_cache_bytes", "writes the factor as 2.0, returning a float instead of an int", kv_cache_bytes__float_factor),
    M("max_cached_tokens", "int(memory / per_token) in float: wrong once the numbers pass 2**53", max_cached_tokens__float_division),
    M("max_cached_tokens", "rounds memory / per_token up with math.ceil, so the last token does not fit ('at most' misread)", max_cached_tokens__rounded_up),
    M("max_cached_tokens", "binary search with a strict < memory test: one token short when the cache fills memory exactly", max_cached_tokens__search_strictly_below),
    M("max_cached_tokens", "divides in np.int64, which overflows for memories past 2**63", max_cached_tokens__numpy_int64),
    M("max_cached_tokens", "round(memory / per_token) rounds to the nearest length instead of down", max_cached_tokens__rounded),
    # 15
    M("previous_token_score", "averages np.diag(A, k=1), the weights one position ahead (the offset's sign reversed), instead of k=-1", previous_token_score__superdiagonal),
    M("previous_token_score", "takes the mean of an empty diagonal at T = 1, returning NaN instead of 0.0", previous_token_score__empty_mean_at_T1),
    M("previous_token_score", "returns the fraction of rows whose largest weight is one back, not the mean weight on it", previous_token_score__fraction_of_rows_looking_back),
    M("previous_token_score", "np.take_along_axis with indices 1..T-1 on A[1:] picks A[t, t] (the token itself) instead of A[t, t-1]", previous_token_score__take_along_self),
    M("prefix_matching_score", "adds only the weight after the most recent earlier copy instead of after all earlier copies", prefix_matching_score__latest_copy_only),
    M("prefix_matching_score", "adds the weight on the earlier copy itself, A[t, j], instead of on the token after it, A[t, j+1]", prefix_matching_score__weight_on_the_copy),
    M("prefix_matching_score", "averages over all T positions, counting those without an earlier copy as 0", prefix_matching_score__mean_over_all_positions),
    M("prefix_matching_score", "uses np.triu(k=1) of the match matrix: later copies (j > t) instead of earlier ones", prefix_matching_score__triu_of_matches),
    M("prefix_matching_score", "takes the mean of an empty list when no token repeats, returning NaN instead of 0.0", prefix_matching_score__empty_mean),
    M("ablate_head", "Wo[:] is a view, not a copy, so the caller's Wo is zeroed too", ablate_head__slice_is_a_view),
    M("ablate_head", "zeroes the head's block of columns instead of rows", ablate_head__columns_zeroed),
    M("ablate_head", "zeroes one row too many, up to and including row (head + 1) * d_head", ablate_head__end_row_included),
    M("ablate_head", "zeroes every n_heads-th row (interleaved) instead of the head's contiguous block", ablate_head__every_n_heads_th_row),
    M("ablate_head", "computes d_head from Wo.shape[1] (d_model) instead of Wo.shape[0]", ablate_head__d_head_from_columns),
    # 16
    M("rope", "rotates row t by its row index instead of by positions[t]", rope__row_index_for_positions),
    M("rope", "rotates clockwise: (x cos + y sin, -x sin + y cos)", rope__clockwise),
    M("rope", "uses the pair index i / d in the exponent instead of 2i / d", rope__pair_index_over_d),
    M("rope", "writes the rotated x into X through views before computing y, changing the caller's X and using the new x for y", rope__rotated_in_place_through_views),
    M("rope", "computes the angles in float32, off by ~1e-3 radians at positions in the thousands", rope__float32_angles),
    M("rope_attention", "rotates V as well as Q and K", rope_attention__values_rotated_too),
    M("rope_attention", "rotates the queries but not the keys", rope_attention__keys_not_rotated),
    M("rope_attention", "scales by sqrt(d_v) (V.shape[1]) instead of sqrt(d)", rope_attention__scaled_by_d_v),
    M("rope_attention", "does not pass theta to rope, so a custom theta is ignored", rope_attention__theta_not_passed),
    # 17
    M("grouped_query_attention", "repeats the list of groups (like np.tile), so head h reads group h % n_kv_heads instead of h // (n_heads // n_kv_heads)", grouped_query_attention__groups_tiled),
    M("grouped_query_attention", "maps head h to group h // n_kv_heads instead of h // (n_heads // n_kv_heads)", grouped_query_attention__divides_by_n_kv_heads),
    M("grouped_query_attention", "splits K and V into n_heads blocks like the queries instead of n_kv_heads groups", grouped_query_attention__keys_split_like_queries),
    M("grouped_query_attention", "does not pass causal to attend, so causal=False is still masked", grouped_query_attention__causal_not_forwarded),
    M("grouped_cache_step", "reads group h % n_kv_heads instead of h // (n_heads // n_kv_heads)", grouped_cache_step__group_by_modulo),
    M("grouped_cache_step", "repeats the caches per query head and returns them, shape (n_heads, t + 1, d_head)", grouped_cache_step__cache_per_query_head),
    M("grouped_cache_step", "appends k[None] (a new first axis) instead of k[:, None], failing whenever n_kv_heads > 1", grouped_cache_step__new_axis_in_front),
    M("grouped_cache_step", "scales by sqrt(q.shape[0]) = sqrt(n_heads) instead of sqrt(d_head)", grouped_cache_step__scaled_by_n_heads),
    M("grouped_cache_step", "reuses attend with its default causal=True, so the one query sees only the first cached token", grouped_cache_step__attend_left_causal),
    # 18
    M("sliding_window_mask", "np.triu(ones, k=-window) lets each row see window + 1 positions", sliding_window_mask__one_position_too_many),
    M("sliding_window_mask", "keeps |i - j| < window, a band on both sides that also sees the future", sliding_window_mask__band_both_sides),
    M("sliding_window_mask", "lets row i see the window positions before it but not itself", sliding_window_mask__itself_excluded),
    M("sliding_window_mask", "returns a boolean mask (True = hidden, PyTorch's attn_mask) instead of the additive float mask", sliding_window_mask__boolean),
    M("sliding_window_mask", "transposes the np.subtract.outer offsets (j - i instead of i - j), so each row sees the next window positions", sliding_window_mask__outer_reversed),
    M("rolling_cache_step", "attends over all window + 1 rows before cutting the cache back", rolling_cache_step__attends_before_cut),
    M("rolling_cache_step", "keeps the last window rows and ignores the sinks", rolling_cache_step__sinks_ignored),
    M("rolling_cache_step", "keeps the first window rows, dropping the new token", rolling_cache_step__keeps_first_window),
    M("rolling_cache_step", "cuts to sinks + newest rows even when the cache is not full, duplicating the first rows", rolling_cache_step__cut_without_condition),
    M("rolling_cache_step", "shifts a full cache in place like a ring buffer, overwriting the caller's K_cache and V_cache", rolling_cache_step__ring_buffer_in_place),
    # 19
    M("capstone", "gelu uses sqrt(2 pi) for sqrt(2 / pi): every forward pass changes and the loss parts within the first steps", capstone__gelu_sqrt_two_pi),
    M("capstone", "layer_norm uses the unbiased variance (ddof=1): every forward pass changes", capstone__layer_norm_unbiased),
    M("capstone", "attention_backward leaves out the chain rule through the 1/sqrt(d) scale: the loss parts after the first updates", capstone__attention_backward_scale_skipped),
    M("capstone", "cache_step forgets the 1/sqrt(d) scale and sample_next multiplies by the temperature: only generation changes", capstone__unscaled_cache_and_hot_sampler),
    M("capstone", "embed adds the last n position rows, which differ from rows 0..n-1 when a row is shorter than max_len", capstone__embed_last_positions),
    M("capstone", "rope rotates clockwise: the positions='rope' model's loss parts", capstone__rope_clockwise),
    M("capstone", "grouped_cache_step scales by sqrt(n_heads) instead of sqrt(d_head): the grouped model generates differently", capstone__grouped_cache_scaled_by_heads),
    M("capstone", "rolling_cache_step ignores the sinks and cross_entropy divides dlogits by n twice", capstone__sinks_dropped_and_loss_gradient_halved),
]

ACCEPTABLE = [
    M("project", "sums x[i] times row i of W, written as a broadcast sum over axis 0", project_ok_weighted_rows),
    M("compose", "np.linalg.multi_dot([W1, W2])", compose_ok_multi_dot),
    M("project_rows", "einsum 'ni,io->no'", project_rows_ok_einsum),
    M("matmul_cost", "(n * d_out) entries times d_in multiplications each, in Python ints", matmul_cost_ok_entries_times_length),
    M("values", "projects the whole table once, then looks the tokens' rows up by id", values_ok_project_table_then_look_up),
    M("one_hot", "compares ids[:, None] with arange(vocab_size) and casts to float64", one_hot_ok_compare_with_range),
    M("uniform_causal_weights", "np.fromfunction of (j <= i) / (i + 1)", uniform_causal_weights_ok_fromfunction),
    M("causal_average", "the mean of V[:i + 1] for each i, stacked", causal_average_ok_prefix_means),
    M("similarity", "np.tensordot over the feature axes", similarity_ok_tensordot),
    M("learned_scores", "the bilinear form X (Wq Wk^T) X^T", learned_scores_ok_bilinear_form),
    M("causal_mask", "np.log of the lower-triangular ones (log 1 = 0, log 0 = -inf)", causal_mask_ok_log_of_tri),
    M("softmax", "exp(S - logsumexp(S)) with the max taken out first", softmax_ok_log_sum_exp),
    M("score_scale", "d ** -0.5", score_scale_ok_power),
    M("attention_weights", "masks with np.subtract.outer of query and key positions, the queries offset by n_k - n_q", attention_weights_ok_position_offsets),
    M("attention", "one query at a time over the keys it may see", attention_ok_row_by_row),
    M("self_attention", "folds Wo into the value projection, Wv @ Wo, before attending", self_attention_ok_value_projection_first),
    M("future_leak", "searches the distances from the largest down and returns the first that moves a row", future_leak_ok_longest_distance_first),
    M("tiled_attention", "online softmax over (block, block) tiles, skipping tiles past the diagonal", tiled_attention_ok_online_softmax),
    M("embed", "np.take of the token rows plus np.take of rows 0..n-1 of pos_emb", embed_ok_take_rows),
    M("sinusoidal_positions", "sin and cos stacked on a last axis and reshaped to interleave", sinusoidal_positions_ok_interleave_last_axis),
    M("split_heads", "np.stack(np.hsplit(M, n_heads))", split_heads_ok_hsplit),
    M("multi_head_attention", "sums each head's output times its own rows of Wo", multi_head_attention_ok_sum_of_head_projections),
    M("layer_norm", "centres with sum / d and multiplies by an inverse standard deviation from an einsum", layer_norm_ok_inverse_std),
    M("gelu", "the tanh formula with the cubic factored, x (1 + 0.044715 x^2), and the -inf limit kept", gelu_ok_factored_cubic),
    M("transformer_block", "a loop over the two (norm, sublayer) pairs with residuals", transformer_block_ok_loop_over_sublayers),
    M("next_token_logits", "einsum of row len(H) - 1 with W_vocab", next_token_logits_ok_einsum_last_index),
    M("cross_entropy", "log-softmax after taking out the row max; target and one-hot by take/put_along_axis", cross_entropy_ok_take_along_axis),
    M("softmax_backward", "the Jacobian applied without building it: A dA - A (A . dA) with an einsum row dot", softmax_backward_ok_distributed),
    M("attention_backward", "every product written as an einsum, the softmax step as A dA - A (A . dA)", attention_backward_ok_einsum),
    M("layer_norm_backward", "the compact form (d G - sum G - Xhat sum(G Xhat)) / (d sigma)", layer_norm_backward_ok_times_d),
    M("most_attended", "Python's max over column indices, which returns the first of equal maxima", most_attended_ok_python_max),
    M("attention_entropy", "sums -w log w over the positive weights of each row only", attention_entropy_ok_only_positive_terms),
    M("padding_mask", "the log of the 0/1 indicator of real tokens, repeated for every query", padding_mask_ok_log_of_indicator),
    M("cross_attention", "unmasked row-by-row attention of X's queries over Z's keys and values", cross_attention_ok_unmasked_rows),
    M("attend_step", "einsum weighted sum of V rows, divided by the total weight at the end", attend_step_ok_weighted_sum),
    M("cache_step", "preallocates (t + 1)-row caches and copies the old rows and the new one in", cache_step_ok_preallocated),
    M("sample_next", "argmax of (rescaled running total > u); flatnonzero for the first maximum at temperature 0", sample_next_ok_first_total_above_u),
    M("top_k_filter", "the k-th largest value from np.partition, kept with >=", top_k_filter_ok_partition),
    M("top_p_filter", "a running total over Python's stable sort of -P, stopping at the first total >= p", top_p_filter_ok_running_total),
    M("generate", "feeds tokens 0 .. T + n_new - 2 and, from the last prompt token on, writes each argmax into a preallocated int array", generate_ok_feed_then_pick),
    M("kv_cache_bytes", "math.prod of the per-token bytes per layer, times layers, tokens and batch", kv_cache_bytes_ok_math_prod),
    M("max_cached_tokens", "divmod of the memory by the bytes of one token", max_cached_tokens_ok_divmod),
    M("previous_token_score", "a Python sum of A[t, t-1] divided by T - 1", previous_token_score_ok_explicit_sum),
    M("prefix_matching_score", "the lower-triangular match matrix rolled one column right", prefix_matching_score_ok_rolled_matches),
    M("ablate_head", "np.where over a boolean mask of the head's rows", ablate_head_ok_row_mask),
    M("rope", "each pair as a complex number multiplied by exp(i a)", rope_ok_complex_multiply),
    M("rope_attention", "complex-number rope, then row-by-row causal attention", rope_attention_ok_rows),
    M("grouped_query_attention", "widens Wk and Wv to one block per query head and runs ordinary multi-head attention", grouped_query_attention_ok_repeat_columns),
    M("grouped_cache_step", "queries reshaped to (n_kv_heads, r, d_head) and broadcast against each group's cache by einsum", grouped_cache_step_ok_broadcast_groups),
    M("sliding_window_mask", "fills -inf, opens tril_indices(n), closes tril_indices(n, -window)", sliding_window_mask_ok_tril_indices),
    M("rolling_cache_step", "lists the kept row indices (the sinks, then the newest) and takes those rows", rolling_cache_step_ok_kept_indices),
    M("capstone", "every op of TinyLM's table from this set's right answers", RIGHT_OPS),
]
