"""Blind set 7: realistic learner mistakes for every graded exercise of "Rediscovering Attention".

Covered: the 51 check names of exercises 01-18 and the capstone of exercise 19:
  01 project, compose                  02 project_rows, matmul_cost          03 values, one_hot
  04 uniform_causal_weights, causal_average                                  05 similarity, learned_scores
  06 causal_mask, softmax, score_scale, attention_weights
  07 attention, self_attention, future_leak, tiled_attention                 08 embed, sinusoidal_positions
  09 split_heads, multi_head_attention 10 layer_norm, gelu, transformer_block
  11 next_token_logits, cross_entropy, softmax_backward, attention_backward, layer_norm_backward
  12 most_attended, attention_entropy  13 padding_mask, cross_attention
  14 attend_step, cache_step, sample_next, top_k_filter, top_p_filter, generate, kv_cache_bytes, max_cached_tokens
  15 previous_token_score, prefix_matching_score, ablate_head               16 rope, rope_attention
  17 grouped_query_attention, grouped_cache_step                             18 sliding_window_mask, rolling_cache_step
  19 capstone (a dict over attnlib.learner_ops.NAMES: every op right but one)

How it was written: blind to the grader. Only the exercise notebooks (task text, stub signatures), the lesson
notebooks, README.md and attnlib's maths modules were read; nothing under attnlib/checks, tests, solutions,
workspace, grading or classroom, and no check() was ever called. Each mistake was written from the exercise
text alone, as a learner who read that text could plausibly write it.

Habits imitated (different from earlier sets): transcribing the formula symbol by symbol with an index or
sum-range slip (range(1, d_in), range(i) for 0..i, theta^(-i/d), the column index j in place of the pair index i);
explicit Python loops with one range, nesting or accumulator reset wrong (total reset in the inner loop,
running best not reset per row, moves accumulated in one copy, = instead of +=); lists of lists converted at the
end (zip truncation over rows of W2, list.index-style loops); mixing up similarly named sizes (d vs d_model vs
d_head, n vs d_in, n_q vs n_k, t vs d, n_heads vs d_head, K_cache vs V_cache, X vs Xhat, X vs Y, ln1 vs ln2,
group size vs number of groups); copying a previous exercise and adapting it incompletely (causal mask kept in
padding/cross attention, self-attention's K and V from X, attend's default causal=True); np.where / boolean /
fancy indexing with a wrong broadcast or index array (out[:, ids], logp[:, targets], d[targets], A[A > 0],
A[t, t-1] for t = 0, np.repeat vs np.tile); loose dtypes (bool one-hot, integer floor division, int buffer
for -inf, int(sqrt(d)), float products and divisions of exact ints, numpy ints for Python ints); returning an
intermediate (weights instead of outputs, scores instead of weights, probabilities instead of logits, sums
instead of means, indices instead of words, GiB instead of bytes, old caches); applying a step twice or in the
wrong order (scale twice, softmax before the mask, attend before append, cut before append, bias before gain,
y from the already-rotated x); misreading which argument is optional or what a default means (ignoring scale,
causal, axis, theta, batch; `if Wo:`; no temperature-0 branch; no p = 1 case). Subtle mistakes (ties, a u on a
boundary, exact-p totals, n_q < n_k, large values, t = 0 and full caches, non-increasing positions, huge ints)
are mixed with blatant ones.

How verified (by a script kept outside this set): for every check a reference (attnlib's public
function where one exists, otherwise written from the exercise text), targeted inputs (edge sizes, ties,
n_q < n_k, scores near 1000 and 1e4, logits near 1e300, t = 0 and full caches, exact fits, ints beyond 2**63)
plus about 50 random inputs. Every mistake differs from the reference on at least one input (value beyond 1e-6
relative, shape, a type the text requires, raising, a modified input, the number of cache_step calls for
generate, or peak memory above 512 kB for tiled_attention); every acceptable entry matches to 1e-9 relative on
all inputs and leaves its inputs unchanged. Each capstone dict was run in TinyLM(ops=...) (16 numbers per token,
2 heads, 2 layers) for 3 training steps plus greedy and sampled generation, in the plain model and, with the ops
such models refuse left out, with positions="rope", n_kv_heads=1 and window=4, n_sinks=1; the acceptable dict
reproduces attnlib's losses and tokens in all four. Two capstone mistakes (cross_entropy's unaveraged gradient,
which Adam nearly absorbs, and softmax_backward, which the model does not call when attention_backward is given)
leave 3-step training unchanged and are meant to be caught by their own exercise checks.

Counts: 260 mistakes, 52 acceptable (one per check name and one for the capstone). Mistakes per check: 4 each for
uniform_causal_weights, similarity, learned_scores, causal_mask, score_scale, self_attention, kv_cache_bytes;
6 each for attention_backward, cache_step, sample_next, top_p_filter; 5 for each of the other 40 checks;
8 for the capstone.
"""
from dataclasses import dataclass
from typing import Callable
import math
import numpy as np
from attnlib import multi_head_attention as _given_mha  # exercise 10 says this one is given


@dataclass(frozen=True)
class Mistake:
    exercise: str  # the exercise's check name, e.g. "causal_mask"
    what: str      # one precise plain-English line naming the mistake, as an ideal grader would
    fn: Callable   # the learner's function, with the exercise's exact signature (for the capstone: the dict of ops)


# ----------------------------------------------------------------------------
# helpers the notebooks give, or that the learner wrote correctly in an earlier cell

def _softmax(S, axis=-1):
    E = np.exp(S - S.max(axis=axis, keepdims=True))
    return E / E.sum(axis=axis, keepdims=True)


def attend(Q, K, V, causal=True):
    """Exercise 09/17's helper, as given."""
    S = Q @ K.T / np.sqrt(Q.shape[1])
    if causal:
        S = S + np.triu(np.full(S.shape, -np.inf), k=1)
    E = np.exp(S - S.max(axis=1, keepdims=True))
    return (E / E.sum(axis=1, keepdims=True)) @ V


def attend_step18(q, K_cache, V_cache):
    """Exercise 18's helper, as given."""
    s = K_cache @ q / np.sqrt(q.shape[0])
    a = np.exp(s - s.max())
    return (a / a.sum()) @ V_cache


def _future(n_q, n_k):
    i = np.arange(n_q)[:, None] + (n_k - n_q)
    j = np.arange(n_k)[None, :]
    return j > i


def _weights(Q, K, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(Q.shape[1])
    if causal:
        S = np.where(_future(*S.shape), -np.inf, S)
    return _softmax(S, axis=-1)


def _attention(Q, K, V, causal=True, scale=True):
    return _weights(Q, K, causal, scale) @ V


def _layer_norm(X, g, b, eps=1e-5):
    mu = X.mean(axis=1, keepdims=True)
    var = ((X - mu) ** 2).mean(axis=1, keepdims=True)
    return (X - mu) / np.sqrt(var + eps) * g + b


def _gelu(X):
    return 0.5 * X * (1 + np.tanh(np.sqrt(2 / np.pi) * (X + 0.044715 * X ** 3)))


def _split_heads(M, n_heads):
    n, d_model = M.shape
    return M.reshape(n, n_heads, d_model // n_heads).transpose(1, 0, 2)


# ============================================================================
# 01 project

def project__inner_accumulator_reset(x, W):
    d_in, d_out = W.shape
    out = np.zeros(d_out)
    for j in range(d_out):
        for i in range(d_in):
            total = 0.0  # reset in the wrong loop
            total += x[i] * W[i, j]
        out[j] = total
    return out


def project__sum_range_stops_early(x, W):
    # transcribed "sum over i = 1 .. d_in" as range(1, d_in): term i = 0 is dropped
    out = np.zeros(W.shape[1])
    for j in range(W.shape[1]):
        for i in range(1, W.shape[0]):
            out[j] += x[i] * W[i, j]
    return out


def project__output_sized_like_x(x, W):
    out = np.zeros_like(x, dtype=float)  # length d_in, not d_out
    for j in range(len(out)):
        out[j] = sum(x[i] * W[i, j] for i in range(len(x)))
    return out


def project__products_not_summed(x, W):
    return x[:, None] * W  # the terms x[i] * W[i, j], never summed over i


def project__summed_over_j(x, W):
    return (x[:, None] * W).sum(axis=1)  # sums over the output index j instead of i


def project_ok_einsum(x, W):
    return np.einsum("i,ij->j", x, W)


# 01 compose

def compose__wrong_order(W1, W2):
    return W2 @ W1


def compose__loop_over_d_in_not_d_mid(W1, W2):
    d_in, d_mid = W1.shape
    d_out = W2.shape[1]
    W = np.zeros((d_in, d_out))
    for i in range(d_in):
        for j in range(d_out):
            for k in range(d_in):  # the sum index runs over d_in, not d_mid
                W[i, j] += W1[i, k] * W2[k, j]
    return W


def compose__assign_not_accumulate(W1, W2):
    W = np.zeros((W1.shape[0], W2.shape[1]))
    for i in range(W1.shape[0]):
        for j in range(W2.shape[1]):
            for k in range(W1.shape[1]):
                W[i, j] = W1[i, k] * W2[k, j]  # = instead of +=: only the last term survives
    return W


def compose__lists_iterate_rows_of_W2(W1, W2):
    rows1, rows2 = W1.tolist(), W2.tolist()
    # "for col in W2" walks the rows of W2, and zip silently truncates
    return np.array([[sum(a * b for a, b in zip(row, col)) for col in rows2] for row in rows1])


def compose__projects_then_sums(W1, W2):
    # projects the single all-ones input through both steps and spreads the result over the rows
    y = np.ones(W1.shape[0]) @ W1 @ W2
    return np.tile(y / W1.shape[0], (W1.shape[0], 1))


def compose_ok_loops(W1, W2):
    d_in, d_mid = W1.shape
    d_out = W2.shape[1]
    W = np.zeros((d_in, d_out))
    for i in range(d_in):
        for j in range(d_out):
            s = 0.0
            for k in range(d_mid):
                s += W1[i, k] * W2[k, j]
            W[i, j] = s
    return W


# ============================================================================
# 02 project_rows

def project_rows__loop_starts_at_one(X, W):
    out = np.zeros((X.shape[0], W.shape[1]))
    for i in range(1, X.shape[0]):  # row 0 never filled
        out[i] = X[i] @ W
    return out


def project_rows__list_over_len_W(X, W):
    return np.array([list(X[i] @ W) for i in range(len(W))])  # len(W) is d_in, not n


def project_rows__sum_over_d_out(X, W):
    n, d_in = X.shape
    d_out = W.shape[1]
    Y = np.zeros((n, d_out))
    for i in range(n):
        for j in range(d_out):
            for k in range(d_out):  # the inner sum runs over d_out, not d_in
                Y[i, j] += X[i, k] * W[k, j]
    return Y


def project_rows__summed_rows(X, W):
    return (X @ W).sum(axis=0)  # adds the projected rows up into one vector


def project_rows__buffer_like_X(X, W):
    out = np.zeros_like(X, dtype=float)  # shape (n, d_in), not (n, d_out)
    for i in range(X.shape[0]):
        out[i] = X[i] @ W
    return out


def project_rows_ok_stack(X, W):
    return np.stack([np.einsum("i,ij->j", x, W) for x in X])


# 02 matmul_cost

def matmul_cost__np_prod_int64(n, d_in, d_out):
    return np.prod([n, d_in, d_out])  # an int64 that wraps past 2**63


def matmul_cost__counts_adds_too(n, d_in, d_out):
    return n * d_out * (2 * d_in - 1)  # multiplications plus additions (FLOPs)


def matmul_cost__entries_not_mults(n, d_in, d_out):
    return n * d_out  # the number of dot products (entries), not the multiplications in them


def matmul_cost__float_product(n, d_in, d_out):
    return int(float(n) * float(d_in) * float(d_out))  # rounds beyond 2**53


def matmul_cost__d_in_squared(n, d_in, d_out):
    return n * d_in * d_in  # d_in used where d_out belongs


def matmul_cost_ok_math_prod(n, d_in, d_out):
    return math.prod((int(n), int(d_in), int(d_out)))


# ============================================================================
# 03 values

def values__unique_words(tokens, table, Wv):
    X = np.array([table[w] for w in dict.fromkeys(tokens)])  # repeats dropped
    return X @ Wv


def values__table_order(tokens, table, Wv):
    X = np.array(list(table.values()))  # one row per vocabulary word, not per token
    return X @ Wv


def values__returns_X(tokens, table, Wv):
    X = np.array([table[w] for w in tokens])
    return X  # forgot the projection by Wv


def values__sorted_tokens(tokens, table, Wv):
    X = np.array([table[w] for w in sorted(tokens)])  # alphabetical, not sentence order
    return X @ Wv


def values__lists_wrong_sum_range(tokens, table, Wv):
    W = Wv.tolist()
    d_model, d_v = len(W), len(W[0])  # noqa: F841 - as the learner wrote it
    rows = []
    for w in tokens:
        x = list(table[w])
        rows.append([sum(x[i] * W[i][j] for i in range(d_v)) for j in range(d_v)])  # i over d_v
    return np.array(rows)


def values_ok_lists(tokens, table, Wv):
    X = np.vstack([np.asarray(table[w], dtype=float) for w in tokens])
    return np.einsum("nm,mv->nv", X, Wv)


# 03 one_hot

def one_hot__bool_matrix(ids, vocab_size):
    return ids[:, None] == np.arange(vocab_size)  # booleans, not floats


def one_hot__sets_whole_columns(ids, vocab_size):
    out = np.zeros((len(ids), vocab_size))
    out[:, ids] = 1.0  # every row gets a 1 in every id's column
    return out


def one_hot__width_from_ids(ids, vocab_size):
    out = np.zeros((len(ids), int(np.max(ids)) + 1))  # width from the ids, not vocab_size
    out[np.arange(len(ids)), ids] = 1.0
    return out


def one_hot__unique_ids(ids, vocab_size):
    return np.eye(vocab_size)[np.unique(ids)]  # sorted, repeats dropped


def one_hot__columns_indexed(ids, vocab_size):
    return np.eye(vocab_size)[:, ids]  # (vocab_size, n): picks columns of the identity


def one_hot_ok_loop(ids, vocab_size):
    out = np.zeros((len(ids), vocab_size), dtype=float)
    for r, i in enumerate(ids):
        out[r, int(i)] = 1.0
    return out


# ============================================================================
# 04 uniform_causal_weights

def uniform_causal_weights__range_excludes_diagonal(n):
    A = np.zeros((n, n))
    for i in range(n):
        for j in range(i):  # columns 0 .. i-1: the diagonal is missed
            A[i, j] = 1 / (i + 1)
    return A


def uniform_causal_weights__divides_by_n(n):
    return np.tril(np.ones((n, n))) / n


def uniform_causal_weights__integer_division(n):
    A = np.zeros((n, n))
    for i in range(n):
        for j in range(i + 1):
            A[i, j] = 1 // (i + 1)  # floor division: 0 for every row but the first
    return A


def uniform_causal_weights__counts_broadcast_on_columns(n):
    return np.tril(np.ones((n, n))) / np.arange(1, n + 1)  # (n,) broadcasts along columns, not rows


def uniform_causal_weights_ok_where(n):
    i = np.arange(n)[:, None]
    j = np.arange(n)[None, :]
    return np.where(j <= i, 1.0 / (i + 1.0), 0.0)


# 04 causal_average

def causal_average__cumsum_over_features(V):
    return np.cumsum(V, axis=1) / np.arange(1, V.shape[0] + 1)[:, None]


def causal_average__divides_by_n(V):
    return np.cumsum(V, axis=0) / V.shape[0]


def causal_average__slice_excludes_row(V):
    out = np.zeros(V.shape)
    for i in range(V.shape[0]):
        out[i] = V[:i].mean(axis=0) if i > 0 else 0.0  # rows 0 .. i-1, not 0 .. i
    return out


def causal_average__returns_running_sum(V):
    return np.cumsum(V, axis=0)


def causal_average__running_on_updated_rows(V):
    out = np.array(V, dtype=float)
    for i in range(out.shape[0]):
        out[i] = out[:i + 1].mean(axis=0)  # averages rows that were already replaced by means
    return out


def causal_average_ok_matrix(V):
    n = V.shape[0]
    A = np.tril(np.ones((n, n))) / np.arange(1, n + 1)[:, None]
    return A @ V


# ============================================================================
# 05 similarity

def similarity__keys_by_queries(Q, K):
    return K @ Q.T  # (n_k, n_q)


def similarity__loops_n_q_twice(Q, K):
    n_q = Q.shape[0]
    S = np.zeros((n_q, n_q))
    for i in range(n_q):
        for j in range(n_q):  # j also runs to n_q
            S[i, j] = Q[i] @ K[j]
    return S


def similarity__rowwise_dots(Q, K):
    return (Q * K).sum(axis=1)  # only the matching pairs (i, i)


def similarity__scaled(Q, K):
    return Q @ K.T / np.sqrt(Q.shape[1])  # scaled although the text asks for raw scores


def similarity_ok_einsum(Q, K):
    return np.einsum("id,jd->ij", Q, K)


# 05 learned_scores

def learned_scores__keys_as_queries(X, Wq, Wk):
    Q, K = X @ Wq, X @ Wk
    return K @ Q.T  # entry (i, j) is key i with query j


def learned_scores__scaled_by_d_model(X, Wq, Wk):
    Q, K = X @ Wq, X @ Wk
    return Q @ K.T / np.sqrt(X.shape[1])


def learned_scores__forgets_second_X(X, Wq, Wk):
    return X @ Wq @ Wk.T  # (n, d_model): the keys' X never applied


def learned_scores__masked_with_tril(X, Wq, Wk):
    return np.tril((X @ Wq) @ (X @ Wk).T)  # zeroes the future though no mask is asked for


def learned_scores_ok_bilinear(X, Wq, Wk):
    return X @ (Wq @ Wk.T) @ X.T


# ============================================================================
# 06 causal_mask

def causal_mask__hides_diagonal(n):
    i, j = np.indices((n, n))
    return np.where(j >= i, -np.inf, 0.0)


def causal_mask__loop_stops_before_last_column(n):
    M = np.zeros((n, n))
    for i in range(n):
        for j in range(i + 1, n - 1):  # the last column is never reached
            M[i, j] = -np.inf
    return M


def causal_mask__ones_times_inf(n):
    return np.triu(np.ones((n, n)), 1) * -np.inf  # 0 * -inf is nan below the diagonal


def causal_mask__comparison_swapped(n):
    i, j = np.indices((n, n))
    M = np.zeros((n, n))
    M[i > j] = -np.inf  # hides the past instead of the future
    return M


def causal_mask_ok_loops(n):
    M = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            if j > i:
                M[i, j] = -np.inf
    return M


# 06 softmax

def softmax__global_max(S, axis=-1):
    E = np.exp(S - np.max(S))  # one max for the whole array
    return E / E.sum(axis=axis, keepdims=True)


def softmax__max_without_keepdims(S, axis=-1):
    E = np.exp(S - S.max(axis=axis))  # broadcasts along the wrong axis
    return E / E.sum(axis=axis, keepdims=True)


def softmax__normalises_whole_array(S, axis=-1):
    E = np.exp(S - S.max(axis=axis, keepdims=True))
    return E / E.sum()


def softmax__ignores_axis(S, axis=-1):
    E = np.exp(S - S.max(axis=-1, keepdims=True))  # always the last axis, whatever axis says
    return E / E.sum(axis=-1, keepdims=True)


def softmax__no_max_shift(S, axis=-1):
    E = np.exp(S)
    return E / E.sum(axis=axis, keepdims=True)


def softmax_ok_logsumexp(S, axis=-1):
    m = np.max(S, axis=axis, keepdims=True)
    lse = m + np.log(np.sum(np.exp(S - m), axis=axis, keepdims=True))
    return np.exp(S - lse)


# 06 score_scale

def score_scale__one_over_d(d):
    return 1.0 / d  # the variance is d, so divides by d instead of its square root


def score_scale__sqrt_d(d):
    return float(np.sqrt(d))  # the factor inverted: multiplies by sqrt(d)


def score_scale__integer_sqrt(d):
    return 1.0 / int(np.sqrt(d))  # exact only when d is a perfect square (1, 4, 16, 64, 256)


def score_scale__measured(d):
    rng = np.random.default_rng(0)
    q = rng.standard_normal((20_000, d))
    k = rng.standard_normal((20_000, d))
    return float(1.0 / np.sqrt((q * k).sum(axis=1).var()))  # a measurement, not the exact factor


def score_scale_ok_power(d):
    return float(d) ** -0.5


# 06 attention_weights

def attention_weights__first_positions_rule(Q, K, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(Q.shape[1])
    if causal:
        S = S + np.triu(np.full(S.shape, -np.inf), k=1)  # query i sees keys 0..i even when n_q < n_k
    return _softmax(S)


def attention_weights__sqrt_of_n_k(Q, K, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(K.shape[0])  # n_k, not d
    if causal:
        S = np.where(_future(*S.shape), -np.inf, S)
    return _softmax(S)


def attention_weights__returns_masked_scores(Q, K, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(Q.shape[1])
    if causal:
        S = np.where(_future(*S.shape), -np.inf, S)
    return S  # the masked scores, never passed through the softmax


def attention_weights__softmax_then_zero(Q, K, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(Q.shape[1])
    A = _softmax(S)
    if causal:
        A = np.where(_future(*A.shape), 0.0, A)  # the mask after the softmax: rows no longer sum to 1
    return A


def attention_weights__offset_sign_flipped(Q, K, causal=True, scale=True):
    n_q, n_k = Q.shape[0], K.shape[0]
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(Q.shape[1])
    if causal:
        S = S + np.triu(np.full(S.shape, -np.inf), k=n_q - n_k + 1)  # offset n_q - n_k instead of n_k - n_q
    return _softmax(S)


def attention_weights_ok_loops(Q, K, causal=True, scale=True):
    n_q, n_k = Q.shape[0], K.shape[0]
    d = Q.shape[1]
    A = np.zeros((n_q, n_k))
    for i in range(n_q):
        last = n_k - n_q + i if causal else n_k - 1
        s = np.array([Q[i] @ K[j] for j in range(last + 1)])
        if scale:
            s = s / math.sqrt(d)
        e = np.exp(s - s.max())
        A[i, :last + 1] = e / e.sum()
    return A


# ============================================================================
# 07 attention

def attention__returns_weights(Q, K, V, causal=True, scale=True):
    return _weights(Q, K, causal, scale)  # A, never multiplied by V


def attention__key_limit_excludes_self(Q, K, V, causal=True, scale=True):
    n_q, n_k = Q.shape[0], K.shape[0]
    S = Q @ K.T / (np.sqrt(Q.shape[1]) if scale else 1.0)
    if causal:
        i = np.arange(n_q)[:, None]
        j = np.arange(n_k)[None, :]
        S = np.where(j >= n_k - n_q + i, -np.inf, S)  # ">=" hides the query's own key
    return _softmax(S) @ V


def attention__always_scales(Q, K, V, causal=True, scale=True):
    S = Q @ K.T / np.sqrt(Q.shape[1])  # the scale flag is never read
    if causal:
        S = np.where(_future(*S.shape), -np.inf, S)
    return _softmax(S) @ V


def attention__softmax_over_queries(Q, K, V, causal=True, scale=True):
    S = Q @ K.T / (np.sqrt(Q.shape[1]) if scale else 1.0)
    if causal:
        S = np.where(_future(*S.shape), -np.inf, S)
    E = np.exp(S - S.max(axis=0, keepdims=True))
    A = E / E.sum(axis=0, keepdims=True)  # columns sum to 1
    return np.nan_to_num(A) @ V


def attention__scales_twice(Q, K, V, causal=True, scale=True):
    Qs = Q / np.sqrt(Q.shape[1]) if scale else Q
    return _weights(Qs, K, causal, scale) @ V  # attention_weights divides again


def attention_ok_einsum(Q, K, V, causal=True, scale=True):
    S = np.einsum("id,jd->ij", Q, K) * (Q.shape[1] ** -0.5 if scale else 1.0)
    if causal:
        S[_future(*S.shape)] = -np.inf
    A = np.exp(S - S.max(axis=1, keepdims=True))
    A /= A.sum(axis=1, keepdims=True)
    return np.einsum("ij,jv->iv", A, V)


# 07 self_attention

def self_attention__if_Wo_truthiness(X, Wq, Wk, Wv, Wo=None, causal=True):
    O = _attention(X @ Wq, X @ Wk, X @ Wv, causal)
    if Wo:  # the truth value of an array is ambiguous
        O = O @ Wo
    return O


def self_attention__causal_not_passed(X, Wq, Wk, Wv, Wo=None, causal=True):
    O = _attention(X @ Wq, X @ Wk, X @ Wv)  # always causal
    return O if Wo is None else O @ Wo


def self_attention__sqrt_d_model(X, Wq, Wk, Wv, Wo=None, causal=True):
    S = (X @ Wq) @ (X @ Wk).T / np.sqrt(X.shape[1])  # d_model, not d_head
    if causal:
        S = np.where(_future(*S.shape), -np.inf, S)
    O = _softmax(S) @ (X @ Wv)
    return O if Wo is None else O @ Wo


def self_attention__values_from_Wk(X, Wq, Wk, Wv, Wo=None, causal=True):
    Q, K = X @ Wq, X @ Wk
    V = X @ Wk  # Wk where Wv belongs
    O = _attention(Q, K, V, causal)
    return O if Wo is None else O @ Wo


def self_attention_ok_project_first(X, Wq, Wk, Wv, Wo=None, causal=True):
    Vo = X @ Wv if Wo is None else X @ (Wv @ Wo)  # A (V Wo) = (A V) Wo
    return _weights(X @ Wq, X @ Wk, causal, True) @ Vo


# 07 future_leak

def _leak_rows(attn, X, j):
    moved = X.copy()
    moved[j] += 1.0
    base = attn(X)
    change = np.abs(attn(moved) - base).reshape(len(base), -1).max(axis=1)
    tol = 1e-9 * max(1.0, float(np.abs(base).max()))
    return change > tol


def future_leak__counts_leaky_pairs(attn, X):
    count = 0
    for j in range(len(X)):
        changed = _leak_rows(attn, X, j)
        count += int(changed[:j].sum())  # how many (row, future row) pairs leak, not how far
    return count


def future_leak__zero_threshold(attn, X):
    worst = 0
    base = attn(X)
    for j in range(len(X)):
        moved = X.copy()
        moved[j] += 1.0
        change = np.abs(attn(moved) - base).reshape(len(base), -1).max(axis=1)
        for i in range(j):
            if change[i] > 0:  # rounding noise counts as a leak
                worst = max(worst, j - i)
    return worst


def future_leak__only_next_row(attn, X):
    for i in range(len(X) - 1):
        if _leak_rows(attn, X, i + 1)[i]:  # only ever tries k = 1
            return 1
    return 0


def future_leak__moves_accumulate(attn, X):
    base = attn(X)
    tol = 1e-9 * max(1.0, float(np.abs(base).max()))
    moved = X.copy()  # copied once, outside the loop: every move stays in
    worst = 0
    for j in range(len(X)):
        moved[j] += 1.0
        change = np.abs(attn(moved) - base).reshape(len(base), -1).max(axis=1)
        for i in range(j):
            if change[i] > tol:
                worst = max(worst, j - i)
    return worst


def future_leak__returns_row_index(attn, X):
    worst = 0
    for j in range(len(X)):
        if _leak_rows(attn, X, j)[:j].any():
            worst = max(worst, j)  # the index of the moved row, not its distance ahead
    return worst


def future_leak_ok_vectorised(attn, X):
    n = len(X)
    base = np.asarray(attn(X))
    tol = 1e-9 * max(1.0, float(np.abs(base).max()))
    worst = 0
    for j in range(n - 1, 0, -1):
        moved = np.array(X, dtype=float, copy=True)
        moved[j] = moved[j] + 1.0
        change = np.abs(np.asarray(attn(moved)) - base).reshape(n, -1).max(axis=1)
        rows = np.flatnonzero(change[:j] > tol)
        if rows.size:
            worst = max(worst, j - int(rows.min()))
    return worst


# 07 tiled_attention

def _tiled(Q, K, V, causal, block, variant):
    n_q, n_k = Q.shape[0], K.shape[0]
    offset = n_k - n_q
    scale = 1.0 if variant == "noscale" else 1.0 / math.sqrt(Q.shape[1])
    O = np.empty((n_q, V.shape[1]))
    for q0 in range(0, n_q, block):
        Qb = Q[q0:q0 + block] * scale
        bq = Qb.shape[0]
        m = np.full((bq, 1), -np.inf)
        l = np.zeros((bq, 1))
        acc = np.zeros((bq, V.shape[1]))
        for k0 in range(0, n_k, block):
            S = Qb @ K[k0:k0 + block].T
            if causal:
                first = q0 if variant == "first" else offset + q0
                qi = first + np.arange(bq)[:, None]
                kj = k0 + np.arange(S.shape[1])[None, :]
                S = np.where(kj > qi, -np.inf, S)
            m_new = np.maximum(m, S.max(axis=1, keepdims=True))  # finite: key 0 is always visible
            P = np.exp(S - m_new)
            if variant == "inverted":
                rescale = np.where(np.isneginf(m), 0.0, np.exp(np.minimum(m_new - m, 700.0)))  # new minus old
            else:
                rescale = np.exp(m - m_new)
            l = l * rescale + P.sum(axis=1, keepdims=True)
            acc = (acc if variant == "noacc" else acc * rescale) + P @ V[k0:k0 + block]
            m = m_new
        O[q0:q0 + bq] = acc / l
    return O


def tiled_attention__acc_not_rescaled(Q, K, V, causal=True, block=64):
    return _tiled(Q, K, V, causal, block, "noacc")


def tiled_attention__first_positions_mask(Q, K, V, causal=True, block=64):
    return _tiled(Q, K, V, causal, block, "first")


def tiled_attention__rescale_inverted(Q, K, V, causal=True, block=64):
    return _tiled(Q, K, V, causal, block, "inverted")


def tiled_attention__no_scale(Q, K, V, causal=True, block=64):
    return _tiled(Q, K, V, causal, block, "noscale")


def tiled_attention__full_key_strip(Q, K, V, causal=True, block=64):
    n_q, n_k = Q.shape[0], K.shape[0]
    O = np.empty((n_q, V.shape[1]))
    for q0 in range(0, n_q, block):
        S = Q[q0:q0 + block] @ K.T / math.sqrt(Q.shape[1])  # a (block, n_k) strip against every key
        if causal:
            qi = n_k - n_q + q0 + np.arange(S.shape[0])[:, None]
            S = np.where(np.arange(n_k)[None, :] > qi, -np.inf, S)
        E = np.exp(S - S.max(axis=1, keepdims=True))
        O[q0:q0 + block] = E @ V / E.sum(axis=1, keepdims=True)
    return O


def tiled_attention_ok_lists(Q, K, V, causal=True, block=64):
    n_q, n_k = Q.shape[0], K.shape[0]
    s = 1.0 / math.sqrt(Q.shape[1])
    out = []
    for q0 in range(0, n_q, block):
        q1 = min(q0 + block, n_q)
        m = np.full(q1 - q0, -np.inf)
        l = np.zeros(q1 - q0)
        acc = np.zeros((q1 - q0, V.shape[1]))
        last_key = n_k - n_q + q1 if causal else n_k
        for k0 in range(0, last_key, block):
            k1 = min(k0 + block, n_k)
            S = (Q[q0:q1] @ K[k0:k1].T) * s
            if causal:
                pos = n_k - n_q + np.arange(q0, q1)
                S[np.arange(k0, k1)[None, :] > pos[:, None]] = -np.inf
            m_new = np.maximum(m, S.max(axis=1))
            c = np.exp(m - m_new)
            P = np.exp(S - m_new[:, None])
            l = c * l + P.sum(axis=1)
            acc = c[:, None] * acc + P @ V[k0:k1]
            m = m_new
        out.append(acc / l[:, None])
    return np.concatenate(out, axis=0)


# ============================================================================
# 08 embed

def embed__positions_by_token_id(tokens, tok_emb, pos_emb):
    return tok_emb[tokens] + pos_emb[tokens]  # the word id used as the position


def embed__last_positions(tokens, tok_emb, pos_emb):
    return tok_emb[tokens] + pos_emb[-len(tokens):]  # the last n rows of the table


def embed__row_index_as_word(tokens, tok_emb, pos_emb):
    n = len(tokens)
    return tok_emb[:n] + pos_emb[:n]  # the first n words of the vocabulary, not tokens


def embed__single_position_row(tokens, tok_emb, pos_emb):
    n = len(tokens)
    return tok_emb[tokens] + pos_emb[n - 1]  # one position row (the last) for every token


def embed__whole_table_added(tokens, tok_emb, pos_emb):
    return tok_emb[tokens] + pos_emb  # the whole table, max_len rows, not the first n


def embed_ok_loop(tokens, tok_emb, pos_emb):
    X = np.empty((len(tokens), tok_emb.shape[1]))
    for i, t in enumerate(tokens):
        X[i] = tok_emb[int(t)] + pos_emb[i]
    return X


# 08 sinusoidal_positions

def sinusoidal_positions__exponent_i_not_2i(n, d):
    t = np.arange(n)[:, None]
    i = np.arange(d // 2)[None, :]
    P = np.zeros((n, d))
    P[:, 0::2] = np.sin(t / 10000 ** (i / d))
    P[:, 1::2] = np.cos(t / 10000 ** (i / d))
    return P


def sinusoidal_positions__column_index_in_exponent(n, d):
    P = np.zeros((n, d))
    for t in range(n):
        for j in range(d):
            angle = t / 10000 ** (j / d)  # j is the column, so the cosine of pair i uses 2i + 1
            P[t, j] = np.sin(angle) if j % 2 == 0 else np.cos(angle)
    return P


def sinusoidal_positions__cos_on_even(n, d):
    t = np.arange(n)[:, None]
    w = 10000 ** (-np.arange(0, d, 2) / d)
    P = np.zeros((n, d))
    P[:, 0::2] = np.cos(t * w)
    P[:, 1::2] = np.sin(t * w)
    return P


def sinusoidal_positions__multiplies_by_10000_power(n, d):
    t = np.arange(n)[:, None]
    P = np.zeros((n, d))
    P[:, 0::2] = np.sin(t * 10000 ** (np.arange(0, d, 2) / d))
    P[:, 1::2] = np.cos(t * 10000 ** (np.arange(0, d, 2) / d))
    return P


def sinusoidal_positions__last_pair_skipped(n, d):
    P = np.zeros((n, d))
    for i in range(d // 2 - 1):  # stops one pair early
        for t in range(n):
            P[t, 2 * i] = math.sin(t / 10000 ** (2 * i / d))
            P[t, 2 * i + 1] = math.cos(t / 10000 ** (2 * i / d))
    return P


def sinusoidal_positions_ok_outer(n, d):
    angle = np.outer(np.arange(n, dtype=float), np.exp(-np.log(10000.0) * np.arange(0, d, 2) / d))
    return np.stack([np.sin(angle), np.cos(angle)], axis=-1).reshape(n, d)


# ============================================================================
# 09 split_heads

def split_heads__plain_reshape(M, n_heads):
    n, d_model = M.shape
    return M.reshape(n_heads, n, d_model // n_heads)


def split_heads__strided_columns(M, n_heads):
    n, d_model = M.shape
    return M.reshape(n, d_model // n_heads, n_heads).transpose(2, 0, 1)  # head h gets columns h::n_heads


def split_heads__d_head_from_rows(M, n_heads):
    d_head = M.shape[0] // n_heads  # n // n_heads, not d_model // n_heads
    return np.stack([M[:, h * d_head:(h + 1) * d_head] for h in range(n_heads)])


def split_heads__splits_tokens(M, n_heads):
    return np.stack(np.split(M, n_heads, axis=0))  # splits the tokens (rows), not the features


def split_heads__returns_list(M, n_heads):
    return np.split(M, n_heads, axis=1)  # a list of arrays, not one array


def split_heads_ok_loop(M, n_heads):
    n, d_model = M.shape
    d_head = d_model // n_heads
    out = np.empty((n_heads, n, d_head))
    for h in range(n_heads):
        out[h] = M[:, h * d_head:(h + 1) * d_head]
    return out


# 09 multi_head_attention

def multi_head_attention__scale_sqrt_d_model(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    Qh, Kh, Vh = (_split_heads(X @ W, n_heads) for W in (Wq, Wk, Wv))
    outs = []
    for h in range(n_heads):
        S = Qh[h] @ Kh[h].T / np.sqrt(Wq.shape[1])  # the full width, not d_head
        if causal:
            S = np.where(_future(*S.shape), -np.inf, S)
        outs.append(_softmax(S) @ Vh[h])
    return np.concatenate(outs, axis=1) @ Wo


def multi_head_attention__d_head_from_X(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    d_head = X.shape[1] // n_heads  # d_model // n_heads, but the heads are Wq.shape[1] // n_heads wide
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    dv = V.shape[1] // n_heads
    outs = [attend(Q[:, h * d_head:(h + 1) * d_head], K[:, h * d_head:(h + 1) * d_head],
                   V[:, h * dv:(h + 1) * dv], causal) for h in range(n_heads)]
    return np.concatenate(outs, axis=1) @ Wo


def multi_head_attention__causal_ignored(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    Qh, Kh, Vh = (_split_heads(X @ W, n_heads) for W in (Wq, Wk, Wv))
    return np.concatenate([attend(Qh[h], Kh[h], Vh[h]) for h in range(n_heads)], axis=1) @ Wo


def multi_head_attention__slice_at_h(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    d_head = Q.shape[1] // n_heads
    outs = [attend(Q[:, h:h + d_head], K[:, h:h + d_head], V[:, h:h + d_head], causal)
            for h in range(n_heads)]  # starts at column h, not h * d_head
    return np.concatenate(outs, axis=1) @ Wo


def multi_head_attention__heads_stacked_on_rows(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    Qh, Kh, Vh = (_split_heads(X @ W, n_heads) for W in (Wq, Wk, Wv))
    O = np.stack([attend(Qh[h], Kh[h], Vh[h], causal) for h in range(n_heads)])  # (n_heads, n, d_head)
    return O.reshape(X.shape[0], -1) @ Wo  # a plain reshape interleaves heads and tokens


def multi_head_attention_ok_batched(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    Qh, Kh, Vh = (_split_heads(X @ W, n_heads) for W in (Wq, Wk, Wv))
    S = np.einsum("hid,hjd->hij", Qh, Kh) / np.sqrt(Qh.shape[2])
    if causal:
        S = np.where(_future(S.shape[1], S.shape[2])[None], -np.inf, S)
    O = np.einsum("hij,hjv->hiv", _softmax(S), Vh)
    return O.transpose(1, 0, 2).reshape(X.shape[0], -1) @ Wo


# ============================================================================
# 10 layer_norm

def layer_norm__eps_outside_sqrt(X, g, b, eps=1e-5):
    mu = X.mean(axis=1, keepdims=True)
    return (X - mu) / (X.std(axis=1, keepdims=True) + eps) * g + b


def layer_norm__over_columns(X, g, b, eps=1e-5):
    mu = X.mean(axis=0, keepdims=True)
    return (X - mu) / np.sqrt(X.var(axis=0, keepdims=True) + eps) * g + b


def layer_norm__std_without_keepdims(X, g, b, eps=1e-5):
    mu = X.mean(axis=1, keepdims=True)
    sd = np.sqrt(X.var(axis=1) + eps)  # (n,): broadcasts along the columns
    return (X - mu) / sd * g + b


def layer_norm__mean_square_not_variance(X, g, b, eps=1e-5):
    mu = X.mean(axis=1, keepdims=True)
    ms = (X ** 2).mean(axis=1, keepdims=True)  # E[x^2], not E[(x - mean)^2]
    return (X - mu) / np.sqrt(ms + eps) * g + b


def layer_norm__bias_before_gain(X, g, b, eps=1e-5):
    mu = X.mean(axis=1, keepdims=True)
    Xhat = (X - mu) / np.sqrt(X.var(axis=1, keepdims=True) + eps)
    return (Xhat + b) * g


def layer_norm_ok_loops(X, g, b, eps=1e-5):
    out = np.empty(X.shape)
    d = X.shape[1]
    for r in range(X.shape[0]):
        mu = sum(X[r]) / d
        var = sum((x - mu) ** 2 for x in X[r]) / d
        out[r] = (X[r] - mu) / math.sqrt(var + eps) * g + b
    return out


# 10 gelu

def gelu__x_squared(X):
    return 0.5 * X * (1 + np.tanh(np.sqrt(2 / np.pi) * (X + 0.044715 * X ** 2)))


def gelu__sqrt_two_pi(X):
    return 0.5 * X * (1 + np.tanh(np.sqrt(2 * np.pi) * (X + 0.044715 * X ** 3)))


def gelu__leading_x_dropped(X):
    return 0.5 * (1 + np.tanh(np.sqrt(2 / np.pi) * (X + 0.044715 * X ** 3)))


def gelu__constant_on_x_only(X):
    return 0.5 * X * (1 + np.tanh(np.sqrt(2 / np.pi) * X + 0.044715 * X ** 3))  # bracket closed too early


def gelu__flattened_loop(X):
    out = []
    for x in np.asarray(X, dtype=float).flat:
        out.append(0.5 * x * (1 + math.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3))))
    return np.array(out)  # the input's shape is lost


def gelu_ok_sigmoid_form(X):
    # 0.5 (1 + tanh z) = sigmoid(2 z)
    z = math.sqrt(2 / math.pi) * (X + 0.044715 * X ** 3)
    return X / (1 + np.exp(-2 * z))


# 10 transformer_block

def transformer_block__mlp_residual_on_X(X, p, n_heads, causal=True):
    Y = X + _given_mha(_layer_norm(X, p["ln1_g"], p["ln1_b"]), p["Wq"], p["Wk"], p["Wv"], p["Wo"], n_heads, causal)
    return X + _gelu(_layer_norm(Y, p["ln2_g"], p["ln2_b"]) @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"]


def transformer_block__ln1_params_twice(X, p, n_heads, causal=True):
    Y = X + _given_mha(_layer_norm(X, p["ln1_g"], p["ln1_b"]), p["Wq"], p["Wk"], p["Wv"], p["Wo"], n_heads, causal)
    return Y + _gelu(_layer_norm(Y, p["ln1_g"], p["ln1_b"]) @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"]


def transformer_block__causal_dropped(X, p, n_heads, causal=True):
    Y = X + _given_mha(_layer_norm(X, p["ln1_g"], p["ln1_b"]), p["Wq"], p["Wk"], p["Wv"], p["Wo"], n_heads)
    return Y + _gelu(_layer_norm(Y, p["ln2_g"], p["ln2_b"]) @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"]


def transformer_block__mlp_without_norm(X, p, n_heads, causal=True):
    Y = X + _given_mha(_layer_norm(X, p["ln1_g"], p["ln1_b"]), p["Wq"], p["Wk"], p["Wv"], p["Wo"], n_heads, causal)
    return Y + _gelu(Y @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"]


def transformer_block__second_norm_of_X(X, p, n_heads, causal=True):
    Y = X + _given_mha(_layer_norm(X, p["ln1_g"], p["ln1_b"]), p["Wq"], p["Wk"], p["Wv"], p["Wo"], n_heads, causal)
    H2 = _layer_norm(X, p["ln2_g"], p["ln2_b"])  # X where Y belongs
    return Y + _gelu(H2 @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"]


def transformer_block_ok_named_steps(X, p, n_heads, causal=True):
    h = _layer_norm(X, p["ln1_g"], p["ln1_b"])
    attn_out = _given_mha(h, p["Wq"], p["Wk"], p["Wv"], p["Wo"], n_heads, causal)
    Y = X + attn_out
    hidden = _gelu(_layer_norm(Y, p["ln2_g"], p["ln2_b"]) @ p["W1"] + p["b1"])
    return Y + (hidden @ p["W2"] + p["b2"])


# ============================================================================
# 11 next_token_logits

def next_token_logits__first_row(H, W_vocab):
    return H[0] @ W_vocab


def next_token_logits__every_row(H, W_vocab):
    return H @ W_vocab  # (n, vocab): logits for every position


def next_token_logits__probabilities(H, W_vocab):
    return _softmax(H[-1] @ W_vocab)  # softmaxed though raw scores are asked for


def next_token_logits__mean_row(H, W_vocab):
    return H.mean(axis=0) @ W_vocab


def next_token_logits__slice_keeps_axis(H, W_vocab):
    return H[-1:] @ W_vocab  # (1, vocab), not (vocab,)


def next_token_logits_ok_einsum(H, W_vocab):
    return np.einsum("d,dv->v", H[H.shape[0] - 1], W_vocab)


# 11 cross_entropy

def _log_softmax(Z):
    Z = Z - Z.max(axis=1, keepdims=True)
    return Z - np.log(np.exp(Z).sum(axis=1, keepdims=True))


def cross_entropy__gradient_not_averaged(logits, targets):
    n = len(targets)
    logp = _log_softmax(logits)
    d = np.exp(logp)
    d[np.arange(n), targets] -= 1.0  # the gradient of the sum, while the loss is the mean
    return -logp[np.arange(n), targets].mean(), d


def cross_entropy__summed_loss(logits, targets):
    n = len(targets)
    logp = _log_softmax(logits)
    d = np.exp(logp)
    d[np.arange(n), targets] -= 1.0
    return -logp[np.arange(n), targets].sum(), d / n  # the loss is a sum, not a mean


def cross_entropy__log_of_probability(logits, targets):
    n = len(targets)
    P = _softmax(logits, axis=1)
    loss = -np.log(P[np.arange(n), targets]).mean()  # log(0) = -inf for an unlikely target at 1e4
    d = P.copy()
    d[np.arange(n), targets] -= 1.0
    return loss, d / n


def cross_entropy__column_fancy_index(logits, targets):
    n = len(targets)
    logp = _log_softmax(logits)
    loss = -logp[:, targets].mean()  # (n, n): every row scored on every target
    d = np.exp(logp)
    d[np.arange(n), targets] -= 1.0
    return loss, d / n


def cross_entropy__gradient_rows_indexed(logits, targets):
    n = len(targets)
    logp = _log_softmax(logits)
    d = np.exp(logp)
    d[targets] -= 1.0  # subtracts 1 from whole rows picked by the target ids
    return -logp[np.arange(n), targets].mean(), d / n


def cross_entropy_ok_onehot(logits, targets):
    n, vocab = logits.shape
    Y = np.zeros((n, vocab))
    Y[np.arange(n), targets] = 1.0
    m = logits.max(axis=1, keepdims=True)
    lse = m + np.log(np.exp(logits - m).sum(axis=1, keepdims=True))
    loss = float(-(Y * (logits - lse)).sum() / n)
    return loss, (np.exp(logits - lse) - Y) / n


# 11 softmax_backward

def softmax_backward__sum_without_keepdims(A, dA):
    return A * (dA - (dA * A).sum(axis=-1))  # (..., n) minus (...,): broadcasts on the wrong axis


def softmax_backward__diagonal_only(A, dA):
    return A * (1 - A) * dA  # the diagonal of the Jacobian only


def softmax_backward__leading_A_dropped(A, dA):
    return dA - (dA * A).sum(axis=-1, keepdims=True)


def softmax_backward__A_missing_in_sum(A, dA):
    return A * dA - A * dA.sum(axis=-1, keepdims=True)  # sum of dA, not of dA * A


def softmax_backward__jacobian_assumes_2d(A, dA):
    dS = np.zeros_like(A)
    for i in range(A.shape[0]):  # one row per i: right for (n_q, n_k), breaks with more leading axes
        a = A[i]
        J = np.diag(a) - np.outer(a, a)
        dS[i] = J @ dA[i]
    return dS


def softmax_backward_ok_jacobian(A, dA):
    flatA = A.reshape(-1, A.shape[-1])
    flatd = dA.reshape(-1, A.shape[-1])
    out = np.empty(flatA.shape)
    for r in range(flatA.shape[0]):
        a = flatA[r]
        J = np.diag(a) - np.outer(a, a)
        out[r] = J @ flatd[r]
    return out.reshape(A.shape)


# 11 attention_backward

def _fwd(Q, K, V, causal, scale, rule="last"):
    s = 1.0 / math.sqrt(Q.shape[1]) if scale else 1.0
    S = Q @ K.T * s
    if causal:
        n_q, n_k = S.shape
        M = _future(n_q, n_k) if rule == "last" else np.triu(np.ones((n_q, n_k), bool), 1)
        S = np.where(M, -np.inf, S)
    return _softmax(S), s


def _sm_back(A, dA):
    return A * (dA - (dA * A).sum(axis=-1, keepdims=True))


def attention_backward__scale_forgotten(Q, K, V, dO, causal=True, scale=True):
    A, s = _fwd(Q, K, V, causal, scale)
    dS = _sm_back(A, dO @ V.T)  # the chain rule's factor s is never applied
    return dS @ K, dS.T @ Q, A.T @ dO


def attention_backward__dK_not_transposed(Q, K, V, dO, causal=True, scale=True):
    A, s = _fwd(Q, K, V, causal, scale)
    dS = _sm_back(A, dO @ V.T) * s
    return dS @ K, dS @ Q, A.T @ dO  # dS Q, not dSᵀ Q


def attention_backward__unmasked_weights(Q, K, V, dO, causal=True, scale=True):
    A, s = _fwd(Q, K, V, False, scale)  # recomputes A without the mask for the backward
    dS = _sm_back(A, dO @ V.T) * s
    return dS @ K, dS.T @ Q, A.T @ dO


def attention_backward__first_positions_mask(Q, K, V, dO, causal=True, scale=True):
    A, s = _fwd(Q, K, V, causal, scale, rule="first")
    dS = _sm_back(A, dO @ V.T) * s
    return dS @ K, dS.T @ Q, A.T @ dO


def attention_backward__scale_applied_twice(Q, K, V, dO, causal=True, scale=True):
    A, s = _fwd(Q, K, V, causal, scale)
    dS = _sm_back(A, dO @ V.T) * s
    return dS @ K * s, dS.T @ Q * s, A.T @ dO


def attention_backward__softmax_skipped(Q, K, V, dO, causal=True, scale=True):
    A, s = _fwd(Q, K, V, causal, scale)
    dS = (dO @ V.T) * s * (A > 0)  # dA treated as dS: the softmax's backward skipped
    return dS @ K, dS.T @ Q, A.T @ dO


def attention_backward_ok_einsum(Q, K, V, dO, causal=True, scale=True):
    A, s = _fwd(Q, K, V, causal, scale)
    dA = np.einsum("iv,jv->ij", dO, V)
    dS = np.einsum("ij,ij->ij", A, dA - np.einsum("ij,ij->i", A, dA)[:, None]) * s
    return np.einsum("ij,jd->id", dS, K), np.einsum("ij,id->jd", dS, Q), np.einsum("ij,iv->jv", A, dO)


# 11 layer_norm_backward

def _ln_parts(X, eps):
    mu = X.mean(axis=1, keepdims=True)
    rstd = 1.0 / np.sqrt(X.var(axis=1, keepdims=True) + eps)
    return (X - mu) * rstd, rstd


def layer_norm_backward__treats_stats_constant(X, g, dY, eps=1e-5):
    Xhat, rstd = _ln_parts(X, eps)
    return dY * g * rstd, (dY * Xhat).sum(axis=0), dY.sum(axis=0)


def layer_norm_backward__variance_term_dropped(X, g, dY, eps=1e-5):
    Xhat, rstd = _ln_parts(X, eps)
    dXhat = dY * g
    dX = (dXhat - dXhat.mean(axis=1, keepdims=True)) * rstd  # the mean's term only
    return dX, (dY * Xhat).sum(axis=0), dY.sum(axis=0)


def layer_norm_backward__dg_from_raw_X(X, g, dY, eps=1e-5):
    Xhat, rstd = _ln_parts(X, eps)
    dXhat = dY * g
    dX = rstd * (dXhat - dXhat.mean(axis=1, keepdims=True) - Xhat * (dXhat * Xhat).mean(axis=1, keepdims=True))
    return dX, (dY * X).sum(axis=0), dY.sum(axis=0)  # X where the normalised Xhat belongs


def layer_norm_backward__eps_left_out(X, g, dY, eps=1e-5):
    mu = X.mean(axis=1, keepdims=True)
    rstd = 1.0 / np.sqrt(X.var(axis=1, keepdims=True))  # eps forgotten
    Xhat = (X - mu) * rstd
    dXhat = dY * g
    dX = rstd * (dXhat - dXhat.mean(axis=1, keepdims=True) - Xhat * (dXhat * Xhat).mean(axis=1, keepdims=True))
    return dX, (dY * Xhat).sum(axis=0), dY.sum(axis=0)


def layer_norm_backward__gains_per_row(X, g, dY, eps=1e-5):
    Xhat, rstd = _ln_parts(X, eps)
    dXhat = dY * g
    dX = rstd * (dXhat - dXhat.mean(axis=1, keepdims=True) - Xhat * (dXhat * Xhat).mean(axis=1, keepdims=True))
    return dX, dY * Xhat, dY  # never summed over the rows


def layer_norm_backward_ok_explicit_chain(X, g, dY, eps=1e-5):
    n, d = X.shape
    mu = X.mean(axis=1, keepdims=True)
    xc = X - mu
    var = (xc ** 2).mean(axis=1, keepdims=True)
    inv = (var + eps) ** -0.5
    dXhat = dY * g
    dvar = (dXhat * xc).sum(axis=1, keepdims=True) * -0.5 * inv ** 3
    dmu = -(dXhat * inv).sum(axis=1, keepdims=True) + dvar * (-2.0 * xc).mean(axis=1, keepdims=True)
    dX = dXhat * inv + dvar * 2.0 * xc / d + dmu / d
    return dX, (dY * xc * inv).sum(axis=0), dY.sum(axis=0)


# ============================================================================
# 12 most_attended

def most_attended__argmax_over_queries(A, tokens):
    return [tokens[j] for j in A.argmax(axis=0)]  # one pick per key column


def most_attended__later_tie_wins(A, tokens):
    out = []
    for row in A:
        best, best_j = -1.0, 0
        for j, w in enumerate(row):
            if w >= best:  # >= lets a later equal weight win
                best, best_j = w, j
        out.append(tokens[best_j])
    return out


def most_attended__returns_indices(A, tokens):
    return [int(j) for j in A.argmax(axis=1)]  # column indices, not words


def most_attended__best_not_reset(A, tokens):
    out = []
    best, best_j = -1.0, 0  # set once, outside the row loop
    for row in A:
        for j, w in enumerate(row):
            if w > best:
                best, best_j = w, j
        out.append(tokens[best_j])
    return out


def most_attended__numpy_array_of_words(A, tokens):
    return np.array(tokens)[A.argmax(axis=1)]  # an array of numpy strings, not a list


def most_attended_ok_loop(A, tokens):
    out = []
    for i in range(A.shape[0]):
        row = list(A[i])
        out.append(str(tokens[row.index(max(row))]))
    return out


# 12 attention_entropy

def attention_entropy__boolean_index_flattens(A):
    nz = A[A > 0]
    return -(nz * np.log(nz)).sum()  # one number for the whole matrix


def attention_entropy__mean_not_sum(A):
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(A > 0, A * np.log(np.where(A > 0, A, 1.0)), 0.0)
    return -terms.mean(axis=1)


def attention_entropy__sign_dropped(A):
    logs = np.log(np.where(A > 0, A, 1.0))
    return (A * logs).sum(axis=1)


def attention_entropy__summed_over_queries(A):
    logs = np.log(np.where(A > 0, A, 1.0))
    return -(A * logs).sum(axis=0)  # (n_k,): sums down the columns


def attention_entropy__log_of_support(A):
    return np.log((A > 0).sum(axis=1))  # log of how many keys are used: right only for even rows


def attention_entropy_ok_xlogy(A):
    out = np.zeros(A.shape[0])
    for i in range(A.shape[0]):
        for w in A[i]:
            if w > 0:
                out[i] -= w * math.log(w)
    return out


# ============================================================================
# 13 padding_mask

def padding_mask__keeps_first_pad(n_q, n_valid, n_k):
    j = np.arange(n_k)
    return np.tile(np.where(j <= n_valid, 0.0, -np.inf), (n_q, 1))  # <= keeps column n_valid


def padding_mask__masks_rows(n_q, n_valid, n_k):
    M = np.zeros((n_q, n_k))
    M[n_valid:, :] = -np.inf  # hides padding queries instead of padding keys
    return M


def padding_mask__integer_buffer(n_q, n_valid, n_k):
    M = np.zeros((n_q, n_k), dtype=int)
    M[:, n_valid:] = -np.inf  # cannot put -inf in an int array
    return M


def padding_mask__adds_causal_mask(n_q, n_valid, n_k):
    M = np.zeros((n_q, n_k))
    M[:, n_valid:] = -np.inf
    return M + np.where(_future(n_q, n_k), -np.inf, 0.0)  # the causal mask carried over from lesson 06


def padding_mask__left_padding(n_q, n_valid, n_k):
    M = np.zeros((n_q, n_k))
    M[:, :n_k - n_valid] = -np.inf  # the filler assumed at the start
    return M


def padding_mask_ok_broadcast(n_q, n_valid, n_k):
    row = np.full(n_k, -np.inf)
    row[:n_valid] = 0.0
    return np.broadcast_to(row, (n_q, n_k)).copy()


# 13 cross_attention

def cross_attention__keys_from_X(X, Z, Wq, Wk, Wv):
    Q, K, V = X @ Wq, X @ Wk, X @ Wv  # self-attention's lines kept: K and V from X
    return _attention(Q, K, V, causal=False)


def cross_attention__causal_default_kept(X, Z, Wq, Wk, Wv):
    return _attention(X @ Wq, Z @ Wk, Z @ Wv)  # attention's default causal=True left on


def cross_attention__queries_from_Z(X, Z, Wq, Wk, Wv):
    return _attention(Z @ Wq, X @ Wk, X @ Wv, causal=False)


def cross_attention__sqrt_d_model(X, Z, Wq, Wk, Wv):
    S = (X @ Wq) @ (Z @ Wk).T / np.sqrt(X.shape[1])
    return _softmax(S) @ (Z @ Wv)


def cross_attention__softmax_over_queries(X, Z, Wq, Wk, Wv):
    S = (X @ Wq) @ (Z @ Wk).T / np.sqrt(Wq.shape[1])
    return _softmax(S, axis=0) @ (Z @ Wv)


def cross_attention_ok_loop(X, Z, Wq, Wk, Wv):
    K, V = Z @ Wk, Z @ Wv
    out = []
    for x in X:
        s = K @ (x @ Wq) / math.sqrt(Wq.shape[1])
        a = np.exp(s - s.max())
        out.append(a @ V / a.sum())
    return np.array(out)


# ============================================================================
# 14 attend_step

def attend_step__no_max_shift(q, K_cache, V_cache):
    a = np.exp(K_cache @ q / np.sqrt(len(q)))
    return a @ V_cache / a.sum()


def attend_step__sqrt_t(q, K_cache, V_cache):
    s = K_cache @ q / np.sqrt(K_cache.shape[0])  # t, the cache length, not d
    a = np.exp(s - s.max())
    return a @ V_cache / a.sum()


def attend_step__own_row_excluded(q, K_cache, V_cache):
    K, V = K_cache[:-1], V_cache[:-1]  # leaves out the new token, thinking it is in the future
    if len(K) == 0:
        return np.zeros(V_cache.shape[1])
    s = K @ q / np.sqrt(len(q))
    a = np.exp(s - s.max())
    return a @ V / a.sum()


def attend_step__returns_weights(q, K_cache, V_cache):
    s = K_cache @ q / np.sqrt(len(q))
    a = np.exp(s - s.max())
    return a / a.sum()


def attend_step__mean_of_weighted_rows(q, K_cache, V_cache):
    s = K_cache @ q / np.sqrt(len(q))
    a = np.exp(s - s.max())
    a = a / a.sum()
    return (a[:, None] * V_cache).mean(axis=0)  # mean instead of sum over the rows


def attend_step_ok_logsumexp(q, K_cache, V_cache):
    s = np.einsum("td,d->t", K_cache, q) / math.sqrt(q.shape[0])
    m = s.max()
    w = np.exp(s - (m + np.log(np.exp(s - m).sum())))
    return np.einsum("t,tv->v", w, V_cache)


def _attend_step_ok(q, K_cache, V_cache):
    s = K_cache @ q / np.sqrt(q.shape[0])
    a = np.exp(s - s.max())
    return (a / a.sum()) @ V_cache


# 14 cache_step

def cache_step__attends_before_append(q, k, v, K_cache, V_cache):
    if len(K_cache) == 0:
        o = np.zeros(v.shape[0])
    else:
        o = _attend_step_ok(q, K_cache, V_cache)  # the old cache, without the new token
    return o, np.vstack([K_cache, k]), np.vstack([V_cache, v])


def cache_step__prepends(q, k, v, K_cache, V_cache):
    K_new = np.vstack([k, K_cache])  # the new row first
    V_new = np.vstack([v, V_cache])
    return _attend_step_ok(q, K_new, V_new), K_new, V_new


def cache_step__values_onto_key_cache(q, k, v, K_cache, V_cache):
    K_new = np.vstack([K_cache, k])
    V_new = np.vstack([K_cache, v])  # K_cache where V_cache belongs
    return _attend_step_ok(q, K_new, V_new), K_new, V_new


def cache_step__np_append_flattens(q, k, v, K_cache, V_cache):
    K_new = np.append(K_cache, k)  # no axis: flattened to 1-D
    V_new = np.append(V_cache, v)
    o = _attend_step_ok(q, K_new.reshape(-1, len(k)), V_new.reshape(-1, len(v)))
    return o, K_new, V_new


def cache_step__returns_old_caches(q, k, v, K_cache, V_cache):
    K_new = np.vstack([K_cache, k])
    V_new = np.vstack([V_cache, v])
    return _attend_step_ok(q, K_new, V_new), K_cache, V_cache


def cache_step__empty_cache_special_case(q, k, v, K_cache, V_cache):
    if len(K_cache):
        K_new = np.concatenate([K_cache, [k]])
        V_new = np.concatenate([V_cache, [v]])
    else:
        K_new, V_new = k, v  # the first row returned as a 1-D vector
    return _attend_step_ok(q, np.atleast_2d(K_new), np.atleast_2d(V_new)), K_new, V_new


def cache_step_ok_preallocated(q, k, v, K_cache, V_cache):
    t = K_cache.shape[0]
    K_new = np.empty((t + 1, K_cache.shape[1]))
    V_new = np.empty((t + 1, V_cache.shape[1]))
    K_new[:t], K_new[t] = K_cache, k
    V_new[:t], V_new[t] = V_cache, v
    return _attend_step_ok(q, K_new, V_new), K_new, V_new


# 14 sample_next

def _probs(logits, temperature):
    z = np.asarray(logits, dtype=float) / temperature
    z = z - z.max()
    e = np.exp(z)
    return e / e.sum()


def sample_next__left_search(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    cdf = np.cumsum(_probs(logits, temperature))
    cdf /= cdf[-1]
    return int(np.searchsorted(cdf, u))  # side="left": a u on a boundary picks the earlier token


def sample_next__multiplies_by_temperature(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    z = np.asarray(logits, dtype=float) * temperature
    e = np.exp(z - z.max())
    cdf = np.cumsum(e / e.sum())
    cdf /= cdf[-1]
    return int(np.searchsorted(cdf, u, side="right"))


def sample_next__cdf_not_rescaled(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    cdf = np.cumsum(_probs(logits, temperature))
    for i, c in enumerate(cdf):
        if c > u:
            return i
    return len(cdf)  # past the end when rounding leaves the total below u


def sample_next__no_greedy_branch(logits, temperature, u):
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.asarray(logits, dtype=float) / temperature  # temperature 0 divides by zero
        e = np.exp(z - z.max())
        cdf = np.cumsum(e / e.sum())
        cdf /= cdf[-1]
    return int(np.searchsorted(cdf, u, side="right"))


def sample_next__no_max_shift(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    with np.errstate(over="ignore", invalid="ignore"):
        e = np.exp(np.asarray(logits, dtype=float) / temperature)  # overflows for logits / T large
        cdf = np.cumsum(e / e.sum())
        cdf /= cdf[-1]
    return int(np.searchsorted(cdf, u, side="right"))


def sample_next__numpy_int(logits, temperature, u):
    if temperature == 0:
        return np.argmax(logits)  # numpy integer, not a Python int
    cdf = np.cumsum(_probs(logits, temperature))
    cdf /= cdf[-1]
    return np.argmax(cdf > u)


def sample_next_ok_loop(logits, temperature, u):
    logits = np.asarray(logits, dtype=float)
    if temperature == 0:
        best = 0
        for i in range(len(logits)):
            if logits[i] > logits[best]:
                best = i
        return best
    p = _probs(logits, temperature)
    cdf = np.cumsum(p)
    cdf = cdf / cdf[-1]
    for i in range(len(cdf)):
        if cdf[i] > u:
            return i
    return len(cdf) - 1


# 14 top_k_filter

def top_k_filter__exactly_k_indices(logits, k):
    out = np.full(len(logits), -np.inf)
    idx = np.argsort(logits)[-k:]  # exactly k: ties at the k-th value are split arbitrarily
    out[idx] = logits[idx]
    return out


def top_k_filter__kth_index_slip(logits, k):
    kth = np.sort(logits)[::-1][min(k, len(logits) - 1)]  # index k: the (k+1)-th largest
    return np.where(logits >= kth, logits, -np.inf)


def top_k_filter__negative_index_k(logits, k):
    kth = np.sort(logits)[-k]  # IndexError once k > vocab
    return np.where(logits >= kth, logits, -np.inf)


def top_k_filter__strict_comparison(logits, k):
    kth = np.sort(logits)[::-1][min(k, len(logits)) - 1]
    return np.where(logits > kth, logits, -np.inf)  # drops the k-th value itself


def top_k_filter__zeros_not_minus_inf(logits, k):
    kth = np.sort(logits)[::-1][min(k, len(logits)) - 1]
    return np.where(logits >= kth, logits, 0.0)  # 0 is still a sampleable logit


def top_k_filter_ok_partition(logits, k):
    logits = np.asarray(logits, dtype=float)
    k = min(k, len(logits))
    kth = np.partition(logits, len(logits) - k)[len(logits) - k]
    out = logits.copy()
    out[out < kth] = -np.inf
    return out


# 14 top_p_filter

def _stable_probs(logits):
    z = np.asarray(logits, dtype=float)
    e = np.exp(z - z.max())
    return e / e.sum()


def top_p_filter__stops_before_reaching_p(logits, p):
    P = _stable_probs(logits)
    order = np.argsort(-P, kind="stable")
    keep = order[np.cumsum(P[order]) < p]  # the token that reaches p is left out
    if keep.size == 0:
        keep = order[:1]
    out = np.full(len(logits), -np.inf)
    out[keep] = np.asarray(logits)[keep]
    return out


def top_p_filter__right_search_on_equality(logits, p):
    P = _stable_probs(logits)
    order = np.argsort(-P, kind="stable")
    n = min(int(np.searchsorted(np.cumsum(P[order]), p, side="right")) + 1, len(P))  # exact p keeps one more
    out = np.full(len(logits), -np.inf)
    out[order[:n]] = np.asarray(logits)[order[:n]]
    return out


def top_p_filter__reversed_ascending_sort(logits, p):
    if p == 1.0:
        return np.array(logits, dtype=float)
    P = _stable_probs(logits)
    order = np.argsort(P, kind="stable")[::-1]  # ties: the higher id first
    n = int(np.searchsorted(np.cumsum(P[order]), p)) + 1
    out = np.full(len(logits), -np.inf)
    out[order[:n]] = np.asarray(logits)[order[:n]]
    return out


def top_p_filter__plain_softmax(logits, p):
    if p == 1.0:
        return np.array(logits, dtype=float)
    with np.errstate(over="ignore", invalid="ignore"):
        e = np.exp(np.asarray(logits, dtype=float))  # inf at 1e300
        P = e / e.sum()
    order = np.argsort(-P, kind="stable")
    n = min(int(np.searchsorted(np.cumsum(P[order]), p)) + 1, len(P))
    out = np.full(len(logits), -np.inf)
    out[order[:n]] = np.asarray(logits)[order[:n]]
    return out


def top_p_filter__p_one_not_special(logits, p):
    P = _stable_probs(logits)
    order = np.argsort(-P, kind="stable")
    n = min(int(np.searchsorted(np.cumsum(P[order]), p)) + 1, len(P))  # tokens after the total reaches 1 are cut
    out = np.full(len(logits), -np.inf)
    out[order[:n]] = np.asarray(logits)[order[:n]]
    return out


def top_p_filter__returns_probabilities(logits, p):
    if p == 1.0:
        return _stable_probs(logits)
    P = _stable_probs(logits)
    order = np.argsort(-P, kind="stable")
    n = int(np.searchsorted(np.cumsum(P[order]), p)) + 1
    out = np.full(len(logits), -np.inf)
    out[order[:n]] = P[order[:n]]  # the kept tokens' probabilities, not their logits
    return out


def top_p_filter_ok_loop(logits, p):
    logits = np.asarray(logits, dtype=float)
    out = np.full(len(logits), -np.inf)
    if p >= 1.0:
        return logits.copy()
    P = _stable_probs(logits)
    order = sorted(range(len(P)), key=lambda i: (-P[i], i))
    total = 0.0
    for i in order:
        out[i] = logits[i]
        total += P[i]
        if total >= p:
            break
    return out


# 14 generate

def _gen(p, prompt, n_new, cache_step, variant=None):
    tok_emb, pos_emb = p["tok_emb"], p["pos_emb"]
    d = tok_emb.shape[1]
    K, V = np.zeros((0, d)), np.zeros((0, d))
    seq = [int(t) for t in prompt]
    T = len(seq)
    i = 0
    while True:
        t = seq[i]
        pos = i if (variant != "pos_stuck" or i < T) else T - 1
        x = tok_emb[t] + pos_emb[pos]
        if variant == "fresh_cache":
            o, _, _ = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], np.zeros((0, d)), np.zeros((0, d)))
        else:
            o, K, V = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K, V)
        i += 1
        if i < T:
            continue
        if len(seq) == T + n_new:
            break
        logits = (o if variant == "no_residual" else x + o) @ p["W_out"]
        seq.append(int(np.argmax(logits)))
        if variant != "extra_call" and len(seq) == T + n_new:
            break
    out = np.array(seq, dtype=int)
    return out[T:] if variant == "new_only" else out


def generate__position_stuck_at_prompt_end(p, prompt, n_new, cache_step):
    return _gen(p, prompt, n_new, cache_step, "pos_stuck")


def generate__residual_dropped(p, prompt, n_new, cache_step):
    return _gen(p, prompt, n_new, cache_step, "no_residual")


def generate__caches_not_kept(p, prompt, n_new, cache_step):
    return _gen(p, prompt, n_new, cache_step, "fresh_cache")


def generate__feeds_last_new_token(p, prompt, n_new, cache_step):
    return _gen(p, prompt, n_new, cache_step, "extra_call")


def generate__new_tokens_only(p, prompt, n_new, cache_step):
    return _gen(p, prompt, n_new, cache_step, "new_only")


def generate_ok_for_loop(p, prompt, n_new, cache_step):
    d = p["tok_emb"].shape[1]
    K, V = np.zeros((0, d)), np.zeros((0, d))
    tokens = list(np.asarray(prompt).tolist())
    logits = None
    for i in range(len(tokens) + n_new - 1 if n_new > 0 else len(tokens)):
        x = p["tok_emb"][tokens[i]] + p["pos_emb"][i]
        o, K, V = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K, V)
        logits = (x + o) @ p["W_out"]
        if i >= len(prompt) - 1 and len(tokens) < len(prompt) + n_new:
            tokens.append(int(np.argmax(logits)))
    return np.array(tokens, dtype=int)


# 14 kv_cache_bytes

def kv_cache_bytes__keys_only(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return n_layers * n_heads * d_head * seq_len * batch * bytes_per_value  # K or V, not both


def kv_cache_bytes__batch_ignored(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return 2 * n_layers * n_heads * d_head * seq_len * bytes_per_value


def kv_cache_bytes__in_gib(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return 2 * n_layers * n_heads * d_head * seq_len * batch * bytes_per_value / 2 ** 30  # GiB, as printed


def kv_cache_bytes__np_prod(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return np.prod([2, n_layers, n_heads, d_head, seq_len, batch, bytes_per_value])  # int64: wraps, numpy type


def kv_cache_bytes_ok_per_token(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    per_token = 2 * n_heads * d_head * bytes_per_value
    return int(per_token * n_layers * batch * seq_len)


# 14 max_cached_tokens

def _per_token(n_layers, n_heads, d_head, batch, bytes_per_value):
    return 2 * n_layers * n_heads * d_head * batch * bytes_per_value


def max_cached_tokens__float_division(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    return int(memory_bytes / _per_token(n_layers, n_heads, d_head, batch, bytes_per_value))


def max_cached_tokens__rounds(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    return round(memory_bytes / _per_token(n_layers, n_heads, d_head, batch, bytes_per_value))


def max_cached_tokens__strict_fit(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    per = _per_token(n_layers, n_heads, d_head, batch, bytes_per_value)
    n = memory_bytes // per
    return n - 1 if n * per == memory_bytes else n  # "fits" read as strictly less than memory


def max_cached_tokens__factor_two_missing(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    return memory_bytes // (n_layers * n_heads * d_head * batch * bytes_per_value)


def max_cached_tokens__batch_ignored(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    return memory_bytes // (2 * n_layers * n_heads * d_head * bytes_per_value)


def max_cached_tokens_ok_divmod(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    q, _ = divmod(int(memory_bytes), 2 * int(n_layers) * int(n_heads) * int(d_head) * int(batch) * int(bytes_per_value))
    return max(q, 0)


# ============================================================================
# 15 previous_token_score

def previous_token_score__fancy_index_includes_row0(A):
    T = A.shape[0]
    t = np.arange(T)
    return float(A[t, t - 1].mean())  # t = 0 reads A[0, -1] and the mean is over T rows


def previous_token_score__superdiagonal(A):
    T = A.shape[0]
    return float(np.diag(A, 1).mean()) if T > 1 else 0.0  # k=1 is the entry after, not before


def previous_token_score__sum_not_mean(A):
    return float(np.diag(A, -1).sum())


def previous_token_score__empty_mean(A):
    return float(np.mean(np.diag(A, -1)))  # nan when T = 1


def previous_token_score__loop_misses_last_row(A):
    T = A.shape[0]
    if T == 1:
        return 0.0
    total = 0.0
    for t in range(1, T - 1):  # stops before the last row
        total += A[t, t - 1]
    return total / (T - 1)


def previous_token_score_ok_loop(A):
    T = A.shape[0]
    vals = [A[t][t - 1] for t in range(1, T)]
    return float(sum(vals) / len(vals)) if vals else 0.0


# 15 prefix_matching_score

def prefix_matching_score__copy_not_next(A, tokens):
    T = len(tokens)
    sums = []
    for t in range(T):
        js = [j for j in range(t) if tokens[j] == tokens[t]]
        if js:
            sums.append(sum(A[t, j] for j in js))  # the earlier copy itself, not the token after it
    return float(np.mean(sums)) if sums else 0.0


def prefix_matching_score__latest_copy_only(A, tokens):
    T = len(tokens)
    sums = []
    for t in range(T):
        for j in range(t - 1, -1, -1):
            if tokens[j] == tokens[t]:
                sums.append(A[t, j + 1])  # stops at the most recent copy
                break
    return float(np.mean(sums)) if sums else 0.0


def prefix_matching_score__mean_over_all_positions(A, tokens):
    T = len(tokens)
    total = 0.0
    found = False
    for t in range(T):
        for j in range(t):
            if tokens[j] == tokens[t]:
                total += A[t, j + 1]
                found = True
    return total / T if found else 0.0  # divides by every position, not the ones with a copy


def prefix_matching_score__range_includes_self(A, tokens):
    T = len(tokens)
    sums = []
    for t in range(T):
        js = [j for j in range(t + 1) if tokens[j] == tokens[t]]  # j <= t: every token matches itself
        if js:
            sums.append(sum(A[t, j + 1] for j in js))
    return float(np.mean(sums)) if sums else 0.0


def prefix_matching_score__nan_without_copies(A, tokens):
    tokens = np.asarray(tokens)
    T = len(tokens)
    sums = []
    for t in range(T):
        js = np.flatnonzero(tokens[:t] == tokens[t])
        if js.size:
            sums.append(A[t, js + 1].sum())
    return float(np.mean(sums))  # nan (with a warning) when no token repeats


def prefix_matching_score_ok_masks(A, tokens):
    tokens = np.asarray(tokens)
    T = len(tokens)
    same = tokens[:, None] == tokens[None, :]
    earlier = same & np.tril(np.ones((T, T), bool), -1)  # [t, j] with j < t
    shifted = np.zeros((T, T), bool)
    shifted[:, 1:] = earlier[:, :-1]  # [t, j + 1]
    rows = earlier.any(axis=1)
    if not rows.any():
        return 0.0
    return float((A * shifted).sum(axis=1)[rows].mean())


# 15 ablate_head

def ablate_head__aliased_copy(Wo, head, n_heads):
    out = Wo  # not a copy: Wo itself is zeroed
    d_head = Wo.shape[0] // n_heads
    out[head * d_head:(head + 1) * d_head] = 0
    return out


def ablate_head__zeroes_columns(Wo, head, n_heads):
    out = Wo.copy()
    d_head = Wo.shape[0] // n_heads
    out[:, head * d_head:(head + 1) * d_head] = 0.0
    return out


def ablate_head__d_head_from_d_model(Wo, head, n_heads):
    out = Wo.copy()
    d_head = Wo.shape[1] // n_heads  # d_model // n_heads
    out[head * d_head:(head + 1) * d_head] = 0.0
    return out


def ablate_head__end_excluded_twice(Wo, head, n_heads):
    out = Wo.copy()
    d_head = Wo.shape[0] // n_heads
    out[head * d_head:(head + 1) * d_head - 1] = 0.0  # "not including" applied to a slice end again
    return out


def ablate_head__keeps_only_that_head(Wo, head, n_heads):
    d_head = Wo.shape[0] // n_heads
    out = np.zeros_like(Wo)
    out[head * d_head:(head + 1) * d_head] = Wo[head * d_head:(head + 1) * d_head]
    return out


def ablate_head_ok_mask(Wo, head, n_heads):
    d_head = Wo.shape[0] // n_heads
    keep = (np.arange(Wo.shape[0]) // d_head != head)[:, None]
    return np.where(keep, Wo, 0.0)


# ============================================================================
# 16 rope

def _rope_ok(X, positions, theta=10000.0):
    n, d = X.shape
    a = np.asarray(positions, dtype=float)[:, None] * theta ** (-np.arange(0, d, 2) / d)
    x, y = X[:, 0::2], X[:, 1::2]
    out = np.empty((n, d))
    out[:, 0::2] = x * np.cos(a) - y * np.sin(a)
    out[:, 1::2] = x * np.sin(a) + y * np.cos(a)
    return out


def rope__row_index_as_position(X, positions, theta=10000.0):
    return _rope_ok(X, np.arange(X.shape[0]), theta)  # ignores positions


def rope__clockwise(X, positions, theta=10000.0):
    n, d = X.shape
    a = np.asarray(positions, dtype=float)[:, None] * theta ** (-np.arange(0, d, 2) / d)
    x, y = X[:, 0::2], X[:, 1::2]
    out = np.empty((n, d))
    out[:, 0::2] = x * np.cos(a) + y * np.sin(a)
    out[:, 1::2] = -x * np.sin(a) + y * np.cos(a)
    return out


def rope__frequency_without_2(X, positions, theta=10000.0):
    n, d = X.shape
    i = np.arange(d // 2)
    a = np.asarray(positions, dtype=float)[:, None] * theta ** (-i / d)  # -i/d, not -2i/d
    x, y = X[:, 0::2], X[:, 1::2]
    out = np.empty((n, d))
    out[:, 0::2] = x * np.cos(a) - y * np.sin(a)
    out[:, 1::2] = x * np.sin(a) + y * np.cos(a)
    return out


def rope__y_from_rotated_x(X, positions, theta=10000.0):
    out = np.array(X, dtype=float)
    d = X.shape[1]
    for i in range(d // 2):
        a = np.asarray(positions, dtype=float) * theta ** (-2 * i / d)
        out[:, 2 * i] = out[:, 2 * i] * np.cos(a) - out[:, 2 * i + 1] * np.sin(a)
        out[:, 2 * i + 1] = out[:, 2 * i] * np.sin(a) + out[:, 2 * i + 1] * np.cos(a)  # x already rotated
    return out


def rope__column_index_in_exponent(X, positions, theta=10000.0):
    out = np.array(X, dtype=float)
    d = X.shape[1]
    for j in range(0, d, 2):  # j is the column 2i, then used as if it were i
        a = np.asarray(positions, dtype=float) * theta ** (-2 * j / d)
        x, y = X[:, j], X[:, j + 1]
        out[:, j] = x * np.cos(a) - y * np.sin(a)
        out[:, j + 1] = x * np.sin(a) + y * np.cos(a)
    return out


def rope_ok_complex(X, positions, theta=10000.0):
    n, d = X.shape
    z = X[:, 0::2] + 1j * X[:, 1::2]
    w = np.exp(1j * np.outer(np.asarray(positions, dtype=float), theta ** (-np.arange(d // 2) * 2.0 / d)))
    r = z * w
    out = np.empty((n, d))
    out[:, 0::2], out[:, 1::2] = r.real, r.imag
    return out


# 16 rope_attention

def _causal_rows(Qr, Kr, V):
    n, d = Qr.shape
    S = Qr @ Kr.T / np.sqrt(d)
    S = S + np.triu(np.full((n, n), -np.inf), 1)
    return _softmax(S) @ V


def rope_attention__values_rotated(Q, K, V, positions, theta=10000.0):
    Vr = _rope_ok(V, positions, theta) if V.shape[1] % 2 == 0 else V
    return _causal_rows(_rope_ok(Q, positions, theta), _rope_ok(K, positions, theta), Vr)


def rope_attention__keys_not_rotated(Q, K, V, positions, theta=10000.0):
    return _causal_rows(_rope_ok(Q, positions, theta), K, V)


def rope_attention__mask_from_positions(Q, K, V, positions, theta=10000.0):
    Qr, Kr = _rope_ok(Q, positions, theta), _rope_ok(K, positions, theta)
    pos = np.asarray(positions)
    S = Qr @ Kr.T / np.sqrt(Q.shape[1])
    S = np.where(pos[None, :] > pos[:, None], -np.inf, S)  # by position value, not by row order
    return _softmax(S) @ V


def rope_attention__theta_not_passed(Q, K, V, positions, theta=10000.0):
    return _causal_rows(_rope_ok(Q, positions), _rope_ok(K, positions), V)  # default theta always


def rope_attention__sqrt_d_v(Q, K, V, positions, theta=10000.0):
    Qr, Kr = _rope_ok(Q, positions, theta), _rope_ok(K, positions, theta)
    n = Q.shape[0]
    S = Qr @ Kr.T / np.sqrt(V.shape[1])  # d_v, not d
    S = S + np.triu(np.full((n, n), -np.inf), 1)
    return _softmax(S) @ V


def rope_attention_ok_loop(Q, K, V, positions, theta=10000.0):
    Qr, Kr = rope_ok_complex(Q, positions, theta), rope_ok_complex(K, positions, theta)
    out = np.zeros((Q.shape[0], V.shape[1]))
    for i in range(Q.shape[0]):
        s = Kr[:i + 1] @ Qr[i] / math.sqrt(Q.shape[1])
        a = np.exp(s - s.max())
        out[i] = a @ V[:i + 1] / a.sum()
    return out


# ============================================================================
# 17 grouped_query_attention

def _gqa(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal, group_of, d_head=None, vgroup_of=None):
    d_head = d_head or Wq.shape[1] // n_heads
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    outs = []
    for h in range(n_heads):
        g = group_of(h)
        gv = g if vgroup_of is None else vgroup_of(h)
        outs.append(attend(Q[:, h * d_head:(h + 1) * d_head], K[:, g * d_head:(g + 1) * d_head],
                           V[:, gv * d_head:(gv + 1) * d_head], causal))
    return np.concatenate(outs, axis=1) @ Wo


def grouped_query_attention__interleaved_groups(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    return _gqa(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal, lambda h: h % n_kv_heads)  # tile, not repeat


def grouped_query_attention__divides_by_n_kv_heads(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    r = n_heads // n_kv_heads  # noqa: F841 - as the learner wrote it
    return _gqa(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal,
                lambda h: h // n_kv_heads)  # divides by the number of groups, not the group size r


def grouped_query_attention__d_head_from_Wk(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    d_head = Wk.shape[1] // n_heads  # Wk holds n_kv_heads groups, not n_heads
    r = n_heads // n_kv_heads
    return _gqa(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal, lambda h: h // r, d_head=d_head)


def grouped_query_attention__causal_ignored(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    r = n_heads // n_kv_heads
    return _gqa(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, True, lambda h: h // r)


def grouped_query_attention__values_tiled_keys_repeated(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    r = n_heads // n_kv_heads
    return _gqa(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal, lambda h: h // r,
                vgroup_of=lambda h: h % n_kv_heads)  # np.repeat for K, np.tile for V


def grouped_query_attention_ok_repeat(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=True):
    Qh = _split_heads(X @ Wq, n_heads)
    Kh = np.repeat(_split_heads(X @ Wk, n_kv_heads), n_heads // n_kv_heads, axis=0)
    Vh = np.repeat(_split_heads(X @ Wv, n_kv_heads), n_heads // n_kv_heads, axis=0)
    O = np.stack([_attention(Qh[h], Kh[h], Vh[h], causal) for h in range(n_heads)])
    return O.transpose(1, 0, 2).reshape(X.shape[0], -1) @ Wo


# 17 grouped_cache_step

def _gcs(q, k, v, K_cache, V_cache, group_of=None, order="append_first", causal_helper=False, dh_from=None,
         expand=False):
    n_heads, d_head = q.shape
    n_kv = k.shape[0]
    r = n_heads // n_kv
    group_of = group_of or (lambda h: h // r)
    K_new = np.concatenate([K_cache, k[:, None, :]], axis=1)
    V_new = np.concatenate([V_cache, v[:, None, :]], axis=1)
    Ks, Vs = (K_new, V_new) if order == "append_first" else (K_cache, V_cache)
    o = np.zeros((n_heads, d_head))
    for h in range(n_heads):
        g = group_of(h)
        if Ks.shape[1] == 0:
            continue
        if causal_helper:
            o[h] = attend(q[h][None], Ks[g], Vs[g])[0]
            continue
        scale = math.sqrt(dh_from if dh_from else d_head)
        s = Ks[g] @ q[h] / scale
        a = np.exp(s - s.max())
        o[h] = a @ Vs[g] / a.sum()
    if expand:
        return o, np.repeat(K_new, r, axis=0), np.repeat(V_new, r, axis=0)
    return o, K_new, V_new


def grouped_cache_step__interleaved_groups(q, k, v, K_cache, V_cache):
    return _gcs(q, k, v, K_cache, V_cache, group_of=lambda h: h % k.shape[0])


def grouped_cache_step__cache_per_query_head(q, k, v, K_cache, V_cache):
    return _gcs(q, k, v, K_cache, V_cache, expand=True)  # the grown cache repeated for every query head


def grouped_cache_step__d_head_from_n_heads(q, k, v, K_cache, V_cache):
    return _gcs(q, k, v, K_cache, V_cache, dh_from=q.shape[0])  # q.shape[0] is n_heads, not d_head


def grouped_cache_step__helper_left_causal(q, k, v, K_cache, V_cache):
    return _gcs(q, k, v, K_cache, V_cache, causal_helper=True)  # attend's causal mask: only key 0 seen


def grouped_cache_step__attends_before_append(q, k, v, K_cache, V_cache):
    return _gcs(q, k, v, K_cache, V_cache, order="attend_first")


def grouped_cache_step_ok_broadcast(q, k, v, K_cache, V_cache):
    n_heads, d_head = q.shape
    n_kv = k.shape[0]
    K_new = np.concatenate([K_cache, k[:, None]], axis=1)
    V_new = np.concatenate([V_cache, v[:, None]], axis=1)
    qg = q.reshape(n_kv, n_heads // n_kv, d_head)
    s = np.einsum("grd,gtd->grt", qg, K_new) / math.sqrt(d_head)
    a = np.exp(s - s.max(axis=-1, keepdims=True))
    a /= a.sum(axis=-1, keepdims=True)
    o = np.einsum("grt,gtd->grd", a, V_new).reshape(n_heads, d_head)
    return o, K_new, V_new


# ============================================================================
# 18 sliding_window_mask

def sliding_window_mask__one_extra_position(n, window):
    i, j = np.indices((n, n))
    return np.where((i - window <= j) & (j <= i), 0.0, -np.inf)  # sees window + 1 positions


def sliding_window_mask__band_both_sides(n, window):
    i, j = np.indices((n, n))
    return np.where(np.abs(i - j) < window, 0.0, -np.inf)  # no causal edge: the future inside the band shows


def sliding_window_mask__negative_indices_wrap(n, window):
    M = np.full((n, n), -np.inf)
    for i in range(n):
        for j in range(i - window + 1, i + 1):  # negative j wraps to the last columns
            M[i, j] = 0.0
    return M


def sliding_window_mask__transposed(n, window):
    i, j = np.indices((n, n))
    return np.where((j - window < i) & (i <= j), 0.0, -np.inf)


def sliding_window_mask__window_edge_only(n, window):
    i, j = np.indices((n, n))
    return np.where(i - j < window, 0.0, -np.inf)  # the old edge kept, the causal edge forgotten


def sliding_window_mask_ok_sum_of_masks(n, window):
    future = np.triu(np.full((n, n), -np.inf), 1)
    past = np.tril(np.full((n, n), -np.inf), -window)
    return np.where(np.isneginf(future) | np.isneginf(past), -np.inf, 0.0)


# 18 rolling_cache_step

def _roll(q, k, v, K_cache, V_cache, window, n_sinks, variant=None):
    K_all = np.vstack([K_cache, k[None]])
    V_all = np.vstack([V_cache, v[None]])
    if variant == "cut_first":
        K_all, V_all = K_cache, V_cache
    before = (K_all, V_all)
    if (len(K_cache) if variant == "old_length" else len(K_all)) > window:
        if variant == "no_sinks":
            K_all, V_all = K_all[-window:], V_all[-window:]
        elif variant == "sinks_plus_window":
            K_all = np.vstack([K_all[:n_sinks], K_all[-window:]])
            V_all = np.vstack([V_all[:n_sinks], V_all[-window:]])
        else:
            recent = window - n_sinks
            K_all = np.vstack([K_all[:n_sinks], K_all[len(K_all) - recent:]])
            V_all = np.vstack([V_all[:n_sinks], V_all[len(V_all) - recent:]])
    if variant == "cut_first":
        K_all, V_all = np.vstack([K_all, k[None]]), np.vstack([V_all, v[None]])
    if variant == "attend_before_cut":
        o = attend_step18(q, *before)
    else:
        o = attend_step18(q, K_all, V_all)
    return o, K_all, V_all


def rolling_cache_step__sinks_ignored(q, k, v, K_cache, V_cache, window, n_sinks=0):
    return _roll(q, k, v, K_cache, V_cache, window, n_sinks, "no_sinks")


def rolling_cache_step__cut_before_append(q, k, v, K_cache, V_cache, window, n_sinks=0):
    return _roll(q, k, v, K_cache, V_cache, window, n_sinks, "cut_first")


def rolling_cache_step__sinks_on_top_of_window(q, k, v, K_cache, V_cache, window, n_sinks=0):
    return _roll(q, k, v, K_cache, V_cache, window, n_sinks, "sinks_plus_window")


def rolling_cache_step__attends_before_cut(q, k, v, K_cache, V_cache, window, n_sinks=0):
    return _roll(q, k, v, K_cache, V_cache, window, n_sinks, "attend_before_cut")


def rolling_cache_step__old_length_tested(q, k, v, K_cache, V_cache, window, n_sinks=0):
    return _roll(q, k, v, K_cache, V_cache, window, n_sinks, "old_length")  # t > window, not t + 1 > window


def rolling_cache_step_ok_index_list(q, k, v, K_cache, V_cache, window, n_sinks=0):
    K_all = np.concatenate([K_cache, k[None, :]], axis=0)
    V_all = np.concatenate([V_cache, v[None, :]], axis=0)
    m = len(K_all)
    keep = list(range(m)) if m <= window else list(range(n_sinks)) + list(range(m - (window - n_sinks), m))
    K_new, V_new = K_all[keep], V_all[keep]
    return attend_step18(q, K_new, V_new), K_new, V_new


# ============================================================================
# 19 capstone: every op right but one

CAPSTONE_OK = {
    "softmax": softmax_ok_logsumexp,
    "attention": attention_ok_einsum,
    "embed": embed_ok_loop,
    "multi_head_attention": multi_head_attention_ok_batched,
    "layer_norm": layer_norm_ok_loops,
    "gelu": gelu_ok_sigmoid_form,
    "transformer_block": transformer_block_ok_named_steps,
    "next_token_logits": next_token_logits_ok_einsum,
    "cross_entropy": cross_entropy_ok_onehot,
    "softmax_backward": softmax_backward_ok_jacobian,
    "attention_backward": attention_backward_ok_einsum,
    "layer_norm_backward": layer_norm_backward_ok_explicit_chain,
    "cache_step": cache_step_ok_preallocated,
    "sample_next": sample_next_ok_loop,
    "rope": rope_ok_complex,
    "grouped_query_attention": grouped_query_attention_ok_repeat,
    "grouped_cache_step": grouped_cache_step_ok_broadcast,
    "rolling_cache_step": rolling_cache_step_ok_index_list,
}


def _with(name, fn):
    ops = dict(CAPSTONE_OK)
    ops[name] = fn
    return ops


M = Mistake
MISTAKES = [
    # 01 project
    M("project", "the running total is reset inside the inner loop over i, so each output keeps only the last term x[d_in-1] * W[d_in-1, j]", project__inner_accumulator_reset),
    M("project", "the sum over i runs over range(1, d_in) and leaves out the term for i = 0", project__sum_range_stops_early),
    M("project", "the output buffer is sized like x (d_in entries) instead of d_out: too short when d_in < d_out, IndexError when d_in > d_out", project__output_sized_like_x),
    M("project", "returns the (d_in, d_out) matrix of products x[i] * W[i, j] without summing over i", project__products_not_summed),
    M("project", "sums x[i] * W[i, j] over the output index j instead of the input index i, giving a (d_in,) vector", project__summed_over_j),
    # 01 compose
    M("compose", "multiplies in the wrong order, W2 @ W1 instead of W1 @ W2", compose__wrong_order),
    M("compose", "the inner sum runs over range(d_in) instead of range(d_mid): terms are missing when d_in < d_mid and it raises IndexError when d_in > d_mid", compose__loop_over_d_in_not_d_mid),
    M("compose", "the innermost loop assigns W[i, j] = W1[i, k] * W2[k, j] instead of adding, so only the last k term survives", compose__assign_not_accumulate),
    M("compose", "iterating `for col in W2` walks the rows of W2, not its columns, so it dots rows of W1 with rows of W2 (zip truncates) and returns a (d_in, d_mid) matrix", compose__lists_iterate_rows_of_W2),
    M("compose", "pushes only the all-ones vector through W1 and W2 and spreads the result over the rows, instead of forming the matrix product W1 @ W2", compose__projects_then_sums),
    # 02 project_rows
    M("project_rows", "the loop over rows starts at 1, so row 0 of the output stays zero", project_rows__loop_starts_at_one),
    M("project_rows", "the list comprehension runs over len(W) (d_in) instead of the n rows of X: too few rows when d_in < n, IndexError when d_in > n", project_rows__list_over_len_W),
    M("project_rows", "the inner sum runs over range(d_out) instead of range(d_in): terms are dropped when d_out < d_in and it raises IndexError when d_out > d_in", project_rows__sum_over_d_out),
    M("project_rows", "adds the projected rows together and returns one (d_out,) vector instead of the (n, d_out) matrix", project_rows__summed_rows),
    M("project_rows", "the output buffer is np.zeros_like(X), (n, d_in), instead of (n, d_out), so filling its rows fails unless d_in == d_out", project_rows__buffer_like_X),
    # 02 matmul_cost
    M("matmul_cost", "computes the count with np.prod, which returns a numpy int64 that silently wraps around for large sizes instead of an exact Python int", matmul_cost__np_prod_int64),
    M("matmul_cost", "counts the additions as well (n * d_out * (2 * d_in - 1) FLOPs) instead of only the n * d_in * d_out multiplications", matmul_cost__counts_adds_too),
    M("matmul_cost", "returns n * d_out, the number of entries (dot products), instead of the multiplications n * d_in * d_out", matmul_cost__entries_not_mults),
    M("matmul_cost", "multiplies the sizes as floats, so the count is rounded once it exceeds 2**53", matmul_cost__float_product),
    M("matmul_cost", "uses d_in twice, n * d_in * d_in, instead of n * d_in * d_out", matmul_cost__d_in_squared),
    # 03 values
    M("values", "builds X from the distinct words only (dict.fromkeys), so a repeated word like the second 'the' loses its row", values__unique_words),
    M("values", "builds X from table.values(), one row per vocabulary word in table order, instead of one row per token in sentence order", values__table_order),
    M("values", "returns X itself and never multiplies by Wv", values__returns_X),
    M("values", "builds X from the tokens in alphabetical order (sorted) instead of sentence order", values__sorted_tokens),
    M("values", "the list-of-lists product sums over range(d_v) instead of range(d_model): terms are dropped when d_v < d_model, IndexError when d_v > d_model", values__lists_wrong_sum_range),
    # 03 one_hot
    M("one_hot", "returns the boolean comparison ids[:, None] == arange(vocab_size) instead of a float array", one_hot__bool_matrix),
    M("one_hot", "out[:, ids] = 1 puts a 1 in every row at every id's column instead of one 1 per row", one_hot__sets_whole_columns),
    M("one_hot", "takes the width from max(ids) + 1 instead of vocab_size, so the shape is too narrow when the largest id is below vocab_size - 1", one_hot__width_from_ids),
    M("one_hot", "indexes the identity with np.unique(ids), so rows come out sorted and repeated ids lose their repeated rows", one_hot__unique_ids),
    M("one_hot", "indexes the identity's columns, np.eye(vocab_size)[:, ids], returning the (vocab_size, n) transpose", one_hot__columns_indexed),
    # 04 uniform_causal_weights
    M("uniform_causal_weights", "the inner loop runs over range(i), so the diagonal entry (column i) is left at 0", uniform_causal_weights__range_excludes_diagonal),
    M("uniform_causal_weights", "divides the lower triangle by n instead of by i + 1, so rows do not sum to 1", uniform_causal_weights__divides_by_n),
    M("uniform_causal_weights", "uses integer floor division 1 // (i + 1), which is 0 for every row after the first", uniform_causal_weights__integer_division),
    M("uniform_causal_weights", "divides by arange(1, n+1) without making it a column, so column j is divided by j + 1 instead of row i by i + 1", uniform_causal_weights__counts_broadcast_on_columns),
    # 04 causal_average
    M("causal_average", "takes the cumulative sum along the features (axis=1) instead of down the rows", causal_average__cumsum_over_features),
    M("causal_average", "divides every running sum by n instead of by i + 1", causal_average__divides_by_n),
    M("causal_average", "averages rows 0..i-1 (V[:i]) instead of 0..i, so each row leaves itself out and row 0 is zero", causal_average__slice_excludes_row),
    M("causal_average", "returns the running sum (cumsum) without dividing by the count", causal_average__returns_running_sum),
    M("causal_average", "overwrites rows while looping, so later rows average earlier means instead of the original rows", causal_average__running_on_updated_rows),
    # 05 similarity
    M("similarity", "computes K @ Q.T, the (n_k, n_q) transpose of the scores", similarity__keys_by_queries),
    M("similarity", "both loops run to n_q, so the result is (n_q, n_q): keys are missed when n_k > n_q and it raises IndexError when n_k < n_q", similarity__loops_n_q_twice),
    M("similarity", "multiplies Q and K elementwise and sums each row, giving only the (n,) matching pairs (i, i) instead of the (n_q, n_k) matrix (and failing when n_q != n_k)", similarity__rowwise_dots),
    M("similarity", "divides the scores by sqrt(d) although the exercise asks for raw, unscaled scores", similarity__scaled),
    # 05 learned_scores
    M("learned_scores", "returns K @ Q.T, so entry (i, j) is key i against query j: the transpose of the scores", learned_scores__keys_as_queries),
    M("learned_scores", "divides the scores by sqrt(d_model) although no scaling is asked for yet", learned_scores__scaled_by_d_model),
    M("learned_scores", "computes X @ Wq @ Wk.T and forgets the final X.T, returning (n, d_model) instead of (n, n)", learned_scores__forgets_second_X),
    M("learned_scores", "zeroes the upper triangle with np.tril although the exercise says no mask yet", learned_scores__masked_with_tril),
    # 06 causal_mask
    M("causal_mask", "uses j >= i, so the diagonal is masked as well and each row cannot see itself", causal_mask__hides_diagonal),
    M("causal_mask", "the inner loop runs j over range(i + 1, n - 1), so the last column is never set to -inf", causal_mask__loop_stops_before_last_column),
    M("causal_mask", "multiplies np.triu(ones, 1) by -inf, so the zeros on and below the diagonal become nan (0 * -inf)", causal_mask__ones_times_inf),
    M("causal_mask", "compares i > j instead of j > i, masking the past (below the diagonal) instead of the future", causal_mask__comparison_swapped),
    # 06 softmax
    M("softmax", "subtracts the maximum of the whole array instead of each slice's maximum along axis, so a slice far below the global max underflows to 0/0", softmax__global_max),
    M("softmax", "subtracts S.max(axis) without keepdims, which broadcasts along the wrong axis and changes the result (or fails) for 2-D input", softmax__max_without_keepdims),
    M("softmax", "divides by the sum of the whole array instead of the sum along axis, so rows do not sum to 1", softmax__normalises_whole_array),
    M("softmax", "always normalises along the last axis and ignores the axis argument", softmax__ignores_axis),
    M("softmax", "exponentiates without subtracting the maximum, so scores around 1000 overflow to inf/nan", softmax__no_max_shift),
    # 06 score_scale
    M("score_scale", "returns 1/d, the inverse of the variance, instead of 1/sqrt(d), the inverse of the standard deviation", score_scale__one_over_d),
    M("score_scale", "returns sqrt(d) instead of its inverse 1/sqrt(d)", score_scale__sqrt_d),
    M("score_scale", "truncates sqrt(d) to an int before inverting, so the factor is exact only for perfect squares like the experiment's 1, 4, 16, 64, 256", score_scale__integer_sqrt),
    M("score_scale", "returns a simulated estimate 1/sqrt(measured variance) instead of the exact factor 1/sqrt(d)", score_scale__measured),
    # 06 attention_weights
    M("attention_weights", "masks with np.triu(..., k=1) on the (n_q, n_k) scores, so with n_q < n_k query i sees only keys 0..i instead of keys up to n_k - n_q + i", attention_weights__first_positions_rule),
    M("attention_weights", "divides the scores by sqrt(n_k) (K.shape[0]) instead of sqrt(d)", attention_weights__sqrt_of_n_k),
    M("attention_weights", "returns the scaled, masked scores without applying the softmax", attention_weights__returns_masked_scores),
    M("attention_weights", "applies the softmax first and zeroes the future afterwards, so masked rows no longer sum to 1", attention_weights__softmax_then_zero),
    M("attention_weights", "the mask's diagonal offset is n_q - n_k + 1 instead of n_k - n_q + 1, so with n_q < n_k queries lose keys they may see (the first rows are entirely masked)", attention_weights__offset_sign_flipped),
    # 07 attention
    M("attention", "returns the weight matrix A instead of O = A @ V", attention__returns_weights),
    M("attention", "masks keys j >= n_k - n_q + i, so every query is also hidden from its own key (and row 0 becomes nan)", attention__key_limit_excludes_self),
    M("attention", "always divides by sqrt(d) and ignores scale=False", attention__always_scales),
    M("attention", "normalises each column (softmax over the queries, axis 0) instead of each row", attention__softmax_over_queries),
    M("attention", "divides Q by sqrt(d) and then calls attention_weights, which divides again: the scores are scaled by 1/d", attention__scales_twice),
    # 07 self_attention
    M("self_attention", "tests `if Wo:` on an array, which raises 'truth value of an array is ambiguous' whenever Wo is given", self_attention__if_Wo_truthiness),
    M("self_attention", "never passes causal on to attention, so causal=False still applies the causal mask", self_attention__causal_not_passed),
    M("self_attention", "scales the scores by sqrt(d_model) (X.shape[1]) instead of sqrt(d_head)", self_attention__sqrt_d_model),
    M("self_attention", "computes the values with Wk instead of Wv", self_attention__values_from_Wk),
    # 07 future_leak
    M("future_leak", "returns how many (row, future row) pairs leak instead of the largest distance k", future_leak__counts_leaky_pairs),
    M("future_leak", "counts any change above 0 as a leak, so rounding noise around 1e-15 is reported as seeing the future", future_leak__zero_threshold),
    M("future_leak", "only tests whether row i sees row i + 1 and returns 1, never measuring leaks further ahead", future_leak__only_next_row),
    M("future_leak", "copies X once outside the loop, so the moves accumulate and a causal row i looks changed when a later row is moved (its own earlier rows were moved too)", future_leak__moves_accumulate),
    M("future_leak", "returns the index j of the furthest moved row that leaks instead of the distance j - i", future_leak__returns_row_index),
    # 07 tiled_attention
    M("tiled_attention", "rescales the running sum l when the max rises but not the running output acc", tiled_attention__acc_not_rescaled),
    M("tiled_attention", "masks each tile as if query i sat at position q0 + i, ignoring the n_k - n_q offset, so with fewer queries than keys they see too few keys", tiled_attention__first_positions_mask),
    M("tiled_attention", "shrinks the old l and acc by exp(new max - old max) instead of exp(old max - new max)", tiled_attention__rescale_inverted),
    M("tiled_attention", "never divides the scores by sqrt(d), since the function has no scale argument", tiled_attention__no_scale),
    M("tiled_attention", "computes each query block's scores against all keys at once, a (block, n_k) strip, breaking the one-tile memory bound", tiled_attention__full_key_strip),
    # 08 embed
    M("embed", "adds pos_emb[tokens], the position rows picked by the word ids, instead of pos_emb[:n]", embed__positions_by_token_id),
    M("embed", "adds the last n rows of pos_emb (pos_emb[-n:]) instead of the first n", embed__last_positions),
    M("embed", "takes tok_emb[:n], the first n vocabulary rows, instead of tok_emb[tokens]", embed__row_index_as_word),
    M("embed", "adds the single row pos_emb[n - 1] to every token instead of row i to token i", embed__single_position_row),
    M("embed", "adds the whole pos_emb table instead of its first n rows, which fails whenever max_len > n", embed__whole_table_added),
    # 08 sinusoidal_positions
    M("sinusoidal_positions", "uses the exponent i/d instead of 2i/d in 10000^(2i/d)", sinusoidal_positions__exponent_i_not_2i),
    M("sinusoidal_positions", "uses the column index j in the exponent, so the cosine column 2i + 1 gets 10000^((2i+1)/d) instead of sharing its pair's frequency", sinusoidal_positions__column_index_in_exponent),
    M("sinusoidal_positions", "puts the cosines on the even columns and the sines on the odd ones", sinusoidal_positions__cos_on_even),
    M("sinusoidal_positions", "multiplies t by 10000^(2i/d) instead of dividing by it", sinusoidal_positions__multiplies_by_10000_power),
    M("sinusoidal_positions", "the loop over pairs runs to d/2 - 1 exclusive, so the last pair of columns stays zero", sinusoidal_positions__last_pair_skipped),
    # 09 split_heads
    M("split_heads", "reshapes M straight to (n_heads, n, d_head) without the transpose, mixing tokens and heads", split_heads__plain_reshape),
    M("split_heads", "reshapes to (n, d_head, n_heads) and transposes, so head h gets the strided columns h, h + n_heads, ... instead of a contiguous block", split_heads__strided_columns),
    M("split_heads", "computes d_head from the rows, M.shape[0] // n_heads, instead of the columns d_model // n_heads", split_heads__d_head_from_rows),
    M("split_heads", "splits along the token axis (axis 0) instead of the feature axis", split_heads__splits_tokens),
    M("split_heads", "returns the Python list from np.split instead of one (n_heads, n, d_head) array", split_heads__returns_list),
    # 09 multi_head_attention
    M("multi_head_attention", "scales each head by the full width sqrt(n_heads * d_head) instead of sqrt(d_head)", multi_head_attention__scale_sqrt_d_model),
    M("multi_head_attention", "computes d_head as d_model // n_heads from X instead of from the projections' width, wrong when n_heads * d_head != d_model", multi_head_attention__d_head_from_X),
    M("multi_head_attention", "never passes causal to the heads, so causal=False is still masked", multi_head_attention__causal_ignored),
    M("multi_head_attention", "slices head h as columns h:h + d_head instead of h*d_head:(h+1)*d_head, so heads overlap", multi_head_attention__slice_at_h),
    M("multi_head_attention", "stacks the head outputs as (n_heads, n, d_head) and reshapes to (n, -1) without transposing, interleaving heads and tokens instead of concatenating side by side", multi_head_attention__heads_stacked_on_rows),
    # 10 layer_norm
    M("layer_norm", "adds eps to the standard deviation, (X - mean) / (std + eps), instead of inside the square root", layer_norm__eps_outside_sqrt),
    M("layer_norm", "normalises each column (axis 0) instead of each row", layer_norm__over_columns),
    M("layer_norm", "computes the standard deviation without keepdims, so the (n,) vector divides the columns instead of the rows (or fails when n != d)", layer_norm__std_without_keepdims),
    M("layer_norm", "uses the mean of the squares E[x^2] instead of the variance E[(x - mean)^2]", layer_norm__mean_square_not_variance),
    M("layer_norm", "adds b before multiplying by g, (Xhat + b) * g instead of Xhat * g + b", layer_norm__bias_before_gain),
    # 10 gelu
    M("gelu", "uses 0.044715 x^2 instead of 0.044715 x^3 inside the tanh", gelu__x_squared),
    M("gelu", "uses sqrt(2 pi) instead of sqrt(2 / pi)", gelu__sqrt_two_pi),
    M("gelu", "drops the leading factor x, returning 0.5 (1 + tanh(...))", gelu__leading_x_dropped),
    M("gelu", "closes the bracket too early: sqrt(2/pi) multiplies only x, and 0.044715 x^3 is added outside", gelu__constant_on_x_only),
    M("gelu", "loops over X.flat and returns a 1-D array, losing the input's shape", gelu__flattened_loop),
    # 10 transformer_block
    M("transformer_block", "adds the MLP output to X instead of to Y, dropping the attention residual from the output", transformer_block__mlp_residual_on_X),
    M("transformer_block", "uses ln1_g and ln1_b for the second layer norm instead of ln2_g and ln2_b", transformer_block__ln1_params_twice),
    M("transformer_block", "does not pass causal to multi_head_attention, so causal=False is still masked", transformer_block__causal_dropped),
    M("transformer_block", "feeds Y to the MLP without the second layer norm", transformer_block__mlp_without_norm),
    M("transformer_block", "the second layer norm normalises X instead of Y", transformer_block__second_norm_of_X),
    # 11 next_token_logits
    M("next_token_logits", "uses the first row H[0] instead of the last row H[-1]", next_token_logits__first_row),
    M("next_token_logits", "returns H @ W_vocab for every position, (n, vocab), instead of only the last row's (vocab,)", next_token_logits__every_row),
    M("next_token_logits", "applies a softmax and returns probabilities instead of the raw logits", next_token_logits__probabilities),
    M("next_token_logits", "uses the mean of H's rows instead of the last row", next_token_logits__mean_row),
    M("next_token_logits", "slices H[-1:], so the result has shape (1, vocab) instead of (vocab,)", next_token_logits__slice_keeps_axis),
    # 11 cross_entropy
    M("cross_entropy", "the gradient softmax - one_hot is not divided by n, so it is n times the gradient of the mean loss", cross_entropy__gradient_not_averaged),
    M("cross_entropy", "the loss is the sum over rows instead of the mean", cross_entropy__summed_loss),
    M("cross_entropy", "takes the log of the softmax probability, which is log(0) = inf for unlikely targets at logits around 1e4", cross_entropy__log_of_probability),
    M("cross_entropy", "indexes logp[:, targets], an (n, n) block, so the loss averages every row's log-probability of every target", cross_entropy__column_fancy_index),
    M("cross_entropy", "subtracts 1 from whole rows d[targets] instead of the entries d[arange(n), targets]", cross_entropy__gradient_rows_indexed),
    # 11 softmax_backward
    M("softmax_backward", "sums dA * A without keepdims, so the (..., ) sums broadcast along the wrong axis", softmax_backward__sum_without_keepdims),
    M("softmax_backward", "uses only the Jacobian's diagonal, A (1 - A) dA, dropping the cross terms", softmax_backward__diagonal_only),
    M("softmax_backward", "forgets the leading factor A: returns dA - sum(dA * A) instead of A * (dA - sum(dA * A))", softmax_backward__leading_A_dropped),
    M("softmax_backward", "subtracts A * sum(dA) instead of A * sum(dA * A)", softmax_backward__A_missing_in_sum),
    M("softmax_backward", "builds the Jacobian row by row assuming A is 2-D, so it fails with more than one leading axis", softmax_backward__jacobian_assumes_2d),
    # 11 attention_backward
    M("attention_backward", "omits the scale factor s = 1/sqrt(d) from dS, so dQ and dK are sqrt(d) times too large when scale=True", attention_backward__scale_forgotten),
    M("attention_backward", "computes dK = dS @ Q instead of dS.T @ Q (fails, or is wrong, unless n_q = n_k)", attention_backward__dK_not_transposed),
    M("attention_backward", "recomputes A without the causal mask for the backward pass, so masked entries get gradient", attention_backward__unmasked_weights),
    M("attention_backward", "masks with the (n_q, n_k) upper triangle, so with n_q < n_k query i is treated as position i instead of n_k - n_q + i", attention_backward__first_positions_mask),
    M("attention_backward", "multiplies dQ and dK by s again after dS was already scaled, applying the scale twice", attention_backward__scale_applied_twice),
    M("attention_backward", "skips the softmax backward and uses dA = dO V^T (masked) as if it were dS", attention_backward__softmax_skipped),
    # 11 layer_norm_backward
    M("layer_norm_backward", "treats the row mean and variance as constants: dX = dY * g / sqrt(var + eps)", layer_norm_backward__treats_stats_constant),
    M("layer_norm_backward", "subtracts the row mean of dXhat but drops the Xhat * mean(dXhat * Xhat) term from the variance", layer_norm_backward__variance_term_dropped),
    M("layer_norm_backward", "computes dg from the raw X, sum(dY * X), instead of the normalised Xhat", layer_norm_backward__dg_from_raw_X),
    M("layer_norm_backward", "leaves eps out of 1/sqrt(var + eps), wrong for rows with small variance", layer_norm_backward__eps_left_out),
    M("layer_norm_backward", "returns dg and db per row, (n, d), instead of summing them over the rows to (d,)", layer_norm_backward__gains_per_row),
    # 12 most_attended
    M("most_attended", "takes argmax down each column (axis 0) instead of along each row", most_attended__argmax_over_queries),
    M("most_attended", "the loop keeps a weight when it is >= the best so far, so a tie goes to the later token instead of the earlier one", most_attended__later_tie_wins),
    M("most_attended", "returns the column indices instead of the words", most_attended__returns_indices),
    M("most_attended", "the running best weight is initialised once before the row loop, so a row whose maximum is below an earlier row's keeps the earlier row's word", most_attended__best_not_reset),
    M("most_attended", "returns a numpy array of strings instead of a list", most_attended__numpy_array_of_words),
    # 12 attention_entropy
    M("attention_entropy", "boolean indexing A[A > 0] flattens the matrix, so it returns one entropy for the whole matrix instead of one per row", attention_entropy__boolean_index_flattens),
    M("attention_entropy", "takes the mean of -A log A over each row instead of the sum", attention_entropy__mean_not_sum),
    M("attention_entropy", "drops the minus sign and returns sum A log A, which is negative", attention_entropy__sign_dropped),
    M("attention_entropy", "sums over the queries (axis 0) instead of over each row's keys", attention_entropy__summed_over_queries),
    M("attention_entropy", "returns log(number of nonzero weights) per row, which is the entropy only for one-hot and evenly spread rows", attention_entropy__log_of_support),
    # 13 padding_mask
    M("padding_mask", "uses j <= n_valid, so the first padding column stays visible", padding_mask__keeps_first_pad),
    M("padding_mask", "sets rows n_valid: to -inf, hiding padding queries instead of padding key columns", padding_mask__masks_rows),
    M("padding_mask", "builds the mask in an int array, so assigning -inf raises OverflowError", padding_mask__integer_buffer),
    M("padding_mask", "adds the causal mask on top of the padding mask, hiding future real tokens too", padding_mask__adds_causal_mask),
    M("padding_mask", "puts the padding at the start, hiding the first n_k - n_valid columns instead of the last ones", padding_mask__left_padding),
    # 13 cross_attention
    M("cross_attention", "takes keys and values from X instead of Z (self-attention)", cross_attention__keys_from_X),
    M("cross_attention", "leaves attention's causal mask on, although cross-attention has no mask", cross_attention__causal_default_kept),
    M("cross_attention", "takes queries from Z and keys and values from X, returning (n_z, d_v)", cross_attention__queries_from_Z),
    M("cross_attention", "scales by sqrt(d_model) instead of sqrt(d_head)", cross_attention__sqrt_d_model),
    M("cross_attention", "applies the softmax over the queries (axis 0) instead of over the keys", cross_attention__softmax_over_queries),
    # 14 attend_step
    M("attend_step", "exponentiates the scores without subtracting their maximum, overflowing to nan for huge scores", attend_step__no_max_shift),
    M("attend_step", "divides the scores by sqrt(t), the cache length, instead of sqrt(d)", attend_step__sqrt_t),
    M("attend_step", "leaves out the last cached row (the new token's own), attending over K_cache[:-1] only", attend_step__own_row_excluded),
    M("attend_step", "returns the (t,) attention weights instead of the weighted sum of V_cache's rows", attend_step__returns_weights),
    M("attend_step", "takes the mean of the weighted value rows instead of their sum, dividing the output by t", attend_step__mean_of_weighted_rows),
    # 14 cache_step
    M("cache_step", "attends over the old caches before appending k and v, so the new token does not see itself (and an empty cache gives zeros)", cache_step__attends_before_append),
    M("cache_step", "puts the new k and v as the first rows of the caches instead of the last", cache_step__prepends),
    M("cache_step", "builds V_new from K_cache instead of V_cache", cache_step__values_onto_key_cache),
    M("cache_step", "np.append without an axis flattens the caches, returning 1-D K_new and V_new", cache_step__np_append_flattens),
    M("cache_step", "returns the old K_cache and V_cache instead of the grown ones", cache_step__returns_old_caches),
    M("cache_step", "with an empty cache returns k and v themselves as 1-D arrays instead of (1, d) and (1, d_v) caches", cache_step__empty_cache_special_case),
    # 14 sample_next
    M("sample_next", "searches the cumulative probabilities with side='left', so a u exactly on a boundary picks the earlier token instead of the first whose total is greater than u", sample_next__left_search),
    M("sample_next", "multiplies the logits by the temperature instead of dividing", sample_next__multiplies_by_temperature),
    M("sample_next", "does not rescale the cumulative total to end at 1, so a u just under 1 can return vocab, past the last token", sample_next__cdf_not_rescaled),
    M("sample_next", "has no greedy branch for temperature 0 and divides by zero", sample_next__no_greedy_branch),
    M("sample_next", "exponentiates logits / temperature without subtracting the max, overflowing for a tiny temperature or logits around 1e4", sample_next__no_max_shift),
    M("sample_next", "returns a numpy integer from np.argmax instead of a Python int", sample_next__numpy_int),
    # 14 top_k_filter
    M("top_k_filter", "keeps exactly the k indices from argsort, so logits tied with the k-th largest are not all kept", top_k_filter__exactly_k_indices),
    M("top_k_filter", "takes the sorted value at index k (the (k+1)-th largest) as the threshold, keeping one token too many", top_k_filter__kth_index_slip),
    M("top_k_filter", "reads the threshold with np.sort(logits)[-k], which raises IndexError when k > vocab", top_k_filter__negative_index_k),
    M("top_k_filter", "keeps logits > the k-th largest instead of >=, dropping the k-th token and its ties", top_k_filter__strict_comparison),
    M("top_k_filter", "sets the filtered entries to 0 instead of -inf", top_k_filter__zeros_not_minus_inf),
    # 14 top_p_filter
    M("top_p_filter", "keeps tokens while the running total is below p, leaving out the token that makes it reach p", top_p_filter__stops_before_reaching_p),
    M("top_p_filter", "uses searchsorted side='right', so when the running total equals p exactly one extra token is kept", top_p_filter__right_search_on_equality),
    M("top_p_filter", "ranks with argsort(P)[::-1], which puts the higher id first among equal probabilities", top_p_filter__reversed_ascending_sort),
    M("top_p_filter", "takes the softmax without subtracting the max, so logits around 1e300 give nan", top_p_filter__plain_softmax),
    M("top_p_filter", "has no special case for p = 1, so tokens whose probability rounds to 0 are cut once the running total reaches 1", top_p_filter__p_one_not_special),
    M("top_p_filter", "writes the kept tokens' probabilities instead of their logits", top_p_filter__returns_probabilities),
    # 14 generate
    M("generate", "gives every generated token the position of the last prompt token instead of its own position", generate__position_stuck_at_prompt_end),
    M("generate", "computes the logits from o alone, o @ W_out, dropping the residual x + o", generate__residual_dropped),
    M("generate", "passes empty caches to every cache_step call and discards the returned ones, so each token attends only to itself", generate__caches_not_kept),
    M("generate", "also feeds the last generated token through cache_step, one call more than needed", generate__feeds_last_new_token),
    M("generate", "returns only the new tokens, without the prompt in front", generate__new_tokens_only),
    # 14 kv_cache_bytes
    M("kv_cache_bytes", "counts only one of K and V, missing the factor 2", kv_cache_bytes__keys_only),
    M("kv_cache_bytes", "ignores the batch argument", kv_cache_bytes__batch_ignored),
    M("kv_cache_bytes", "returns GiB as a float (bytes / 2**30) instead of bytes as an int", kv_cache_bytes__in_gib),
    M("kv_cache_bytes", "multiplies with np.prod, returning a numpy int64 that wraps around for huge caches instead of an exact Python int", kv_cache_bytes__np_prod),
    # 14 max_cached_tokens
    M("max_cached_tokens", "divides with / and truncates, so the answer is wrong once the numbers are beyond what a float holds exactly", max_cached_tokens__float_division),
    M("max_cached_tokens", "rounds memory / bytes-per-token to the nearest integer instead of flooring, so it can return a length that does not fit", max_cached_tokens__rounds),
    M("max_cached_tokens", "requires the cache to take strictly less than memory_bytes, so a cache that fills memory exactly is one token short", max_cached_tokens__strict_fit),
    M("max_cached_tokens", "leaves out the factor 2 for K and V, doubling the answer", max_cached_tokens__factor_two_missing),
    M("max_cached_tokens", "ignores the batch argument", max_cached_tokens__batch_ignored),
    # 15 previous_token_score
    M("previous_token_score", "fancy-indexes A[t, t - 1] over t = 0..T-1, so row 0 contributes A[0, -1] and the mean is over T rows instead of T - 1", previous_token_score__fancy_index_includes_row0),
    M("previous_token_score", "reads the superdiagonal np.diag(A, 1) (the next position) instead of np.diag(A, -1)", previous_token_score__superdiagonal),
    M("previous_token_score", "returns the sum of A[t, t-1] instead of its mean", previous_token_score__sum_not_mean),
    M("previous_token_score", "takes the mean of an empty diagonal when T = 1 and returns nan instead of 0.0", previous_token_score__empty_mean),
    M("previous_token_score", "the loop runs t over range(1, T - 1), leaving out the last row while still dividing by T - 1", previous_token_score__loop_misses_last_row),
    # 15 prefix_matching_score
    M("prefix_matching_score", "adds A[t, j], the weight on the earlier copy itself, instead of A[t, j + 1]", prefix_matching_score__copy_not_next),
    M("prefix_matching_score", "stops at the most recent earlier copy instead of adding over all earlier copies", prefix_matching_score__latest_copy_only),
    M("prefix_matching_score", "divides the total by T, all positions, instead of the number of positions that have an earlier copy", prefix_matching_score__mean_over_all_positions),
    M("prefix_matching_score", "lets j run to t inclusive, so every position matches itself (adding A[t, t + 1], or failing at the last row)", prefix_matching_score__range_includes_self),
    M("prefix_matching_score", "returns nan instead of 0.0 when no token repeats", prefix_matching_score__nan_without_copies),
    # 15 ablate_head
    M("ablate_head", "out = Wo is not a copy, so Wo itself is zeroed", ablate_head__aliased_copy),
    M("ablate_head", "zeroes the head's columns instead of its rows", ablate_head__zeroes_columns),
    M("ablate_head", "computes d_head from Wo.shape[1] (d_model) instead of Wo.shape[0]", ablate_head__d_head_from_d_model),
    M("ablate_head", "the slice ends at (head + 1) * d_head - 1, leaving the head's last row unzeroed", ablate_head__end_excluded_twice),
    M("ablate_head", "keeps only the chosen head's rows and zeroes every other head instead", ablate_head__keeps_only_that_head),
    # 16 rope
    M("rope", "rotates row t by its row index instead of positions[t]", rope__row_index_as_position),
    M("rope", "rotates clockwise, (x cos a + y sin a, -x sin a + y cos a)", rope__clockwise),
    M("rope", "uses the frequency theta^(-i/d) instead of theta^(-2i/d)", rope__frequency_without_2),
    M("rope", "overwrites x before computing y, so the second feature is built from the already-rotated first one", rope__y_from_rotated_x),
    M("rope", "uses the column index j = 2i in place of i, so pair i turns at theta^(-4i/d)", rope__column_index_in_exponent),
    # 16 rope_attention
    M("rope_attention", "rotates V as well as Q and K", rope_attention__values_rotated),
    M("rope_attention", "rotates only the queries and leaves the keys unrotated", rope_attention__keys_not_rotated),
    M("rope_attention", "builds the causal mask from the position values instead of the row order, which differs when positions are not increasing", rope_attention__mask_from_positions),
    M("rope_attention", "does not pass theta on to rope, so a non-default theta is ignored", rope_attention__theta_not_passed),
    M("rope_attention", "scales the scores by sqrt(d_v) instead of sqrt(d)", rope_attention__sqrt_d_v),
    # 17 grouped_query_attention
    M("grouped_query_attention", "head h reads group h % n_kv_heads (groups tiled) instead of h // (n_heads // n_kv_heads)", grouped_query_attention__interleaved_groups),
    M("grouped_query_attention", "head h reads group h // n_kv_heads instead of h // (n_heads // n_kv_heads), wrong (or out of range) whenever n_kv_heads^2 != n_heads", grouped_query_attention__divides_by_n_kv_heads),
    M("grouped_query_attention", "computes d_head as Wk.shape[1] // n_heads, too narrow whenever n_kv_heads < n_heads", grouped_query_attention__d_head_from_Wk),
    M("grouped_query_attention", "always applies the causal mask, ignoring causal=False", grouped_query_attention__causal_ignored),
    M("grouped_query_attention", "takes keys from group h // r but values from group h % n_kv_heads, so a head's keys and values come from different groups", grouped_query_attention__values_tiled_keys_repeated),
    # 17 grouped_cache_step
    M("grouped_cache_step", "query head h reads group h % n_kv_heads instead of h // (n_heads // n_kv_heads)", grouped_cache_step__interleaved_groups),
    M("grouped_cache_step", "returns the grown caches repeated once per query head, (n_heads, t + 1, d_head), instead of one row per group", grouped_cache_step__cache_per_query_head),
    M("grouped_cache_step", "scales the scores by sqrt(n_heads) (q.shape[0]) instead of sqrt(d_head)", grouped_cache_step__d_head_from_n_heads),
    M("grouped_cache_step", "calls the helper attend with its default causal=True on one query row, so each head sees only the first cached token", grouped_cache_step__helper_left_causal),
    M("grouped_cache_step", "attends over the old caches before appending k and v, so the new token is not seen (and t = 0 gives zeros)", grouped_cache_step__attends_before_append),
    # 18 sliding_window_mask
    M("sliding_window_mask", "uses i - window <= j, letting each row see window + 1 positions", sliding_window_mask__one_extra_position),
    M("sliding_window_mask", "uses |i - j| < window, a band on both sides with no causal edge, so near future positions are visible", sliding_window_mask__band_both_sides),
    M("sliding_window_mask", "loops j from i - window + 1, and negative j wraps around to the last columns near the start", sliding_window_mask__negative_indices_wrap),
    M("sliding_window_mask", "swaps the roles of i and j, returning the transposed window (rows see the future)", sliding_window_mask__transposed),
    M("sliding_window_mask", "keeps only the window's old edge (i - j < window) and forgets j <= i, so the whole future is visible", sliding_window_mask__window_edge_only),
    # 18 rolling_cache_step
    M("rolling_cache_step", "keeps the last window rows and ignores n_sinks, so the sink rows are evicted", rolling_cache_step__sinks_ignored),
    M("rolling_cache_step", "cuts the cache back before appending the new row, so a full cache returns window + 1 rows", rolling_cache_step__cut_before_append),
    M("rolling_cache_step", "keeps the first n_sinks rows plus the last window rows instead of the last window - n_sinks", rolling_cache_step__sinks_on_top_of_window),
    M("rolling_cache_step", "lets q attend over all t + 1 rows before the cut, including the evicted one", rolling_cache_step__attends_before_cut),
    M("rolling_cache_step", "tests the old length t instead of t + 1 against the window, so appending to a full cache returns window + 1 rows and attends over all of them", rolling_cache_step__old_length_tested),
    # 19 capstone
    M("capstone", "every op right but gelu, which uses 0.044715 x^2 instead of x^3", _with("gelu", gelu__x_squared)),
    M("capstone", "every op right but layer_norm, which adds eps to the standard deviation instead of inside the square root", _with("layer_norm", layer_norm__eps_outside_sqrt)),
    M("capstone", "every op right but cross_entropy, whose gradient is not divided by n", _with("cross_entropy", cross_entropy__gradient_not_averaged)),
    M("capstone", "every op right but softmax_backward, which keeps only the Jacobian's diagonal A (1 - A) dA", _with("softmax_backward", softmax_backward__diagonal_only)),
    M("capstone", "every op right but embed, which adds the last n rows of pos_emb instead of the first n", _with("embed", embed__last_positions)),
    M("capstone", "every op right but next_token_logits, which uses the first row H[0] instead of the last", _with("next_token_logits", next_token_logits__first_row)),
    M("capstone", "every op right but attention_backward, which omits the 1/sqrt(d) scale from dS", _with("attention_backward", attention_backward__scale_forgotten)),
    M("capstone", "every op right but rolling_cache_step, which ignores n_sinks and keeps only the last window rows", _with("rolling_cache_step", rolling_cache_step__sinks_ignored)),
]

ACCEPTABLE = [
    M("project", "einsum 'i,ij->j'", project_ok_einsum),
    M("compose", "three explicit loops with a fresh accumulator per entry", compose_ok_loops),
    M("project_rows", "projects each row with einsum and stacks them", project_rows_ok_stack),
    M("matmul_cost", "math.prod of the three sizes as Python ints", matmul_cost_ok_math_prod),
    M("values", "np.vstack of the looked-up rows, then einsum with Wv", values_ok_lists),
    M("one_hot", "a Python loop setting out[r, id] = 1.0 in a float zero array", one_hot_ok_loop),
    M("uniform_causal_weights", "np.where(j <= i, 1/(i+1), 0) on broadcast index grids", uniform_causal_weights_ok_where),
    M("causal_average", "the explicit averaging matrix tril(ones) / row counts, times V", causal_average_ok_matrix),
    M("similarity", "einsum 'id,jd->ij'", similarity_ok_einsum),
    M("learned_scores", "X (Wq Wkᵀ) Xᵀ, the bilinear form", learned_scores_ok_bilinear),
    M("causal_mask", "two loops setting -inf where j > i", causal_mask_ok_loops),
    M("softmax", "exp(S - logsumexp(S)) along axis", softmax_ok_logsumexp),
    M("score_scale", "float(d) ** -0.5", score_scale_ok_power),
    M("attention_weights", "per-query loop over the visible keys only, softmax of that slice", attention_weights_ok_loops),
    M("attention", "einsum scores, boolean -inf mask, in-place softmax, einsum mix", attention_ok_einsum),
    M("self_attention", "folds Wo into the values first, A (X Wv Wo)", self_attention_ok_project_first),
    M("future_leak", "walks the moved row from the last one down and takes the earliest changed row", future_leak_ok_vectorised),
    M("tiled_attention", "online softmax with 1-D running max and sum, skipping key tiles wholly in the future", tiled_attention_ok_lists),
    M("embed", "a loop over tokens adding tok_emb[t] + pos_emb[i]", embed_ok_loop),
    M("sinusoidal_positions", "np.outer angles with exp(-log(10000) 2i/d), sin and cos interleaved by stack and reshape", sinusoidal_positions_ok_outer),
    M("split_heads", "a loop copying each contiguous column block into a preallocated array", split_heads_ok_loop),
    M("multi_head_attention", "all heads at once with batched einsum, then transpose and reshape", multi_head_attention_ok_batched),
    M("layer_norm", "a row loop with Python sums for the mean and biased variance", layer_norm_ok_loops),
    M("gelu", "the identity 0.5 (1 + tanh z) = sigmoid(2z): x / (1 + exp(-2z))", gelu_ok_sigmoid_form),
    M("transformer_block", "the same two residual steps with named intermediates", transformer_block_ok_named_steps),
    M("next_token_logits", "einsum on H[n-1]", next_token_logits_ok_einsum),
    M("cross_entropy", "an explicit one-hot target matrix and log-sum-exp", cross_entropy_ok_onehot),
    M("softmax_backward", "the full Jacobian diag(a) - a aᵀ per flattened row", softmax_backward_ok_jacobian),
    M("attention_backward", "einsum for every product of the backward pass", attention_backward_ok_einsum),
    M("layer_norm_backward", "the textbook chain rule through the variance and the mean (dvar, dmu)", layer_norm_backward_ok_explicit_chain),
    M("most_attended", "list.index(max(row)), which returns the first maximum", most_attended_ok_loop),
    M("attention_entropy", "a double loop adding -w log w for positive weights only", attention_entropy_ok_xlogy),
    M("padding_mask", "one row built then broadcast to (n_q, n_k) and copied", padding_mask_ok_broadcast),
    M("cross_attention", "a loop over queries, one softmax per query over Z's keys", cross_attention_ok_loop),
    M("attend_step", "weights as exp(s - logsumexp(s)), einsum for the products", attend_step_ok_logsumexp),
    M("cache_step", "preallocated (t + 1)-row caches filled by slices", cache_step_ok_preallocated),
    M("sample_next", "explicit loops for the argmax and the first cumulative total above u", sample_next_ok_loop),
    M("top_k_filter", "np.partition for the k-th largest value, then a copy with smaller entries set to -inf", top_k_filter_ok_partition),
    M("top_p_filter", "sorted by (-p, id) in Python and accumulated until the total reaches p", top_p_filter_ok_loop),
    M("generate", "one for loop over all fed positions, appending greedily from the last prompt token on", generate_ok_for_loop),
    M("kv_cache_bytes", "bytes per token first, then times layers, batch and length", kv_cache_bytes_ok_per_token),
    M("max_cached_tokens", "divmod of the memory by the bytes one token takes", max_cached_tokens_ok_divmod),
    M("previous_token_score", "a list of A[t][t-1] for t = 1..T-1, averaged, 0.0 when empty", previous_token_score_ok_loop),
    M("prefix_matching_score", "boolean (T, T) match masks shifted by one column", prefix_matching_score_ok_masks),
    M("ablate_head", "np.where with a per-row keep mask, which makes a new array", ablate_head_ok_mask),
    M("rope", "rotation as multiplication of complex numbers x + iy by exp(i a)", rope_ok_complex),
    M("rope_attention", "a loop over rows, each query against keys 0..i only", rope_attention_ok_loop),
    M("grouped_query_attention", "np.repeat of the K/V heads to the query heads, then per-head attention", grouped_query_attention_ok_repeat),
    M("grouped_cache_step", "query heads reshaped to (n_kv_heads, r, d_head) and broadcast against each group with einsum", grouped_cache_step_ok_broadcast),
    M("sliding_window_mask", "the union of a future mask (triu) and a too-old mask (tril at -window)", sliding_window_mask_ok_sum_of_masks),
    M("rolling_cache_step", "an explicit list of kept row indices", rolling_cache_step_ok_index_list),
    M("capstone", "every op right, each written in a different style from the reference", dict(CAPSTONE_OK)),
]
