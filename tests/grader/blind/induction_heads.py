"""Blind set of learner mistakes (and acceptable variants) for previous_token_score, prefix_matching_score and ablate_head.

Written only from the task texts of exercises/15_induction_heads.ipynb: previous_token_score(A) takes one head's causal
(T, T) attention map and returns a float, the mean of A[t, t-1] over rows t = 1 .. T-1 (row 0 left out), and 0.0 when
T = 1; prefix_matching_score(A, tokens) takes the map and the (T,) int token ids and, for every position t whose token
already appeared at some j < t, sums A[t, j+1] over ALL such earlier copies j, then returns the mean of those sums over
just those positions as a float (0.0 when no position has an earlier copy); ablate_head(Wo, head, n_heads) returns a NEW
copy of Wo (n_heads*d_head, d_model), d_head = Wo.shape[0] // n_heads, with rows head*d_head .. (head+1)*d_head - 1
(head counted from 0) set to 0 and every other entry unchanged, leaving Wo itself unmodified.
It was written before the three checks existed, by a writer who read neither the grader nor its tests, and verified
outside the repository: a separate script (/tmp/blind15/verify.py) with its own reference answers written from the text
ran every function on 132 maps for previous_token_score (T = 1..12, eleven per size: six random causal softmax maps at
three temperatures, a one-hot previous-token map, the identity, a first-token map, the uniform causal map and a
previous/self mix), on 756 (A, tokens) pairs for prefix_matching_score (T = 1..12, nine token sequences per size: no
repeats, all one token, repeated halves, a block repeated three times, random vocabularies of 2, 3 and 5, back-to-back
repeats, first token repeated at the end; each with seven maps, one of them an exact induction map) and on 240
(Wo, head, n_heads) cases for ablate_head (n_heads 1..4, d_head 1..4, d_model in {1, 2, 3, 4, 5, 8}, every head). A
score counts as right only if it is a (numpy or Python) float, finite, within 1e-12 of the reference and returned
without an exception; an ablation counts as right only if it is a new float64 array, not sharing memory with Wo, of the
reference's shape, within 1e-12 of it, with Wo left unchanged. Result: all 104 mistakes (32 previous_token_score,
36 prefix_matching_score, 36 ablate_head) differ from the reference on at least one input (at least 11, 53 and 108
inputs respectively; medians 90 of 132, 354 of 756, 240 of 240), and all 23 acceptable variants (8, 7, 8) agree with it
on every input.
"""
from dataclasses import dataclass
from typing import Callable

import numpy as np


@dataclass(frozen=True)
class Mistake:
    exercise: str  # "previous_token_score", "prefix_matching_score" or "ablate_head"
    what: str      # one precise plain-English line naming the mistake, as an ideal grader would
    fn: Callable   # the learner's function, with the exercise's exact signature


# ---------------------------------------------------------------------------------------------------------------------
# previous_token_score(A): mistakes
# ---------------------------------------------------------------------------------------------------------------------

def pts_superdiagonal(A):
    T = A.shape[0]
    if T < 2:
        return 0.0
    return float(np.mean(np.diagonal(A, 1)))


def pts_transposed(A):
    T = A.shape[0]
    if T < 2:
        return 0.0
    At = A.T
    return float(np.mean([At[t, t - 1] for t in range(1, T)]))


def pts_main_diagonal_rows_1(A):
    T = A.shape[0]
    if T < 2:
        return 0.0
    return float(np.mean([A[t, t] for t in range(1, T)]))


def pts_trace_over_T(A):
    T = A.shape[0]
    if T < 2:
        return 0.0
    return float(np.trace(A) / T)


def pts_sub_block_self(A):
    T = A.shape[0]
    if T < 2:
        return 0.0
    return float(np.diagonal(A[:-1, :-1]).mean())


def pts_divide_by_T(A):
    T = A.shape[0]
    if T < 2:
        return 0.0
    return float(np.sum(np.diagonal(A, -1)) / T)


def pts_row0_clipped(A):
    T = A.shape[0]
    vals = [A[t, max(t - 1, 0)] for t in range(T)]
    return float(np.mean(vals))


def pts_row0_wraps(A):
    T = A.shape[0]
    total = 0.0
    for t in range(T):
        total += A[t, t - 1]
    return total / (T - 1)


def pts_sum(A):
    T = A.shape[0]
    if T < 2:
        return 0.0
    return float(np.sum(np.diagonal(A, -1)))


def pts_max(A):
    T = A.shape[0]
    if T < 2:
        return 0.0
    return float(np.max(np.diagonal(A, -1)))


def pts_min(A):
    T = A.shape[0]
    if T < 2:
        return 0.0
    return float(np.min(np.diagonal(A, -1)))


def pts_median(A):
    T = A.shape[0]
    if T < 2:
        return 0.0
    return float(np.median(np.diagonal(A, -1)))


def pts_nan_at_T1(A):
    return float(np.mean(np.diagonal(A, -1)))


def pts_wrong_guard_size(A):
    if A.size == 0:
        return 0.0
    return float(np.diagonal(A, -1).mean())


def pts_zero_division_T1(A):
    T = A.shape[0]
    return sum(A[t, t - 1] for t in range(1, T)) / (T - 1)


def pts_none_at_T1(A):
    T = A.shape[0]
    if T == 1:
        return
    return float(np.mean(np.diagonal(A, -1)))


def pts_returns_diagonal(A):
    return np.diagonal(A, -1)


def pts_returns_length1_array(A):
    T = A.shape[0]
    if T < 2:
        return 0.0
    col = A[np.arange(1, T), np.arange(T - 1)].reshape(-1, 1)
    return col.mean(axis=0)


def pts_skip_last_row(A):
    T = A.shape[0]
    if T < 2:
        return 0.0
    vals = [A[t, t - 1] for t in range(1, T - 1)]
    return float(np.mean(vals)) if vals else 0.0


def pts_skip_row1(A):
    T = A.shape[0]
    vals = [A[t, t - 1] for t in range(2, T)]
    return float(np.mean(vals)) if vals else 0.0


def pts_two_back(A):
    T = A.shape[0]
    if T < 3:
        return 0.0
    return float(np.mean(np.diagonal(A, -2)))


def pts_all_past_mean(A):
    T = A.shape[0]
    if T < 2:
        return 0.0
    return float(A[np.tril_indices(T, -1)].mean())


def pts_all_past_sum_per_row(A):
    T = A.shape[0]
    if T < 2:
        return 0.0
    return float(np.tril(A, -1).sum() / (T - 1))


def pts_first_column(A):
    T = A.shape[0]
    if T < 2:
        return 0.0
    return float(np.mean(A[1:, 0]))


def pts_last_row_only(A):
    T = A.shape[0]
    if T < 2:
        return 0.0
    return float(A[-1, -2])


def pts_renormalised_without_self(A):
    T = A.shape[0]
    if T < 2:
        return 0.0
    vals = [A[t, t - 1] / (1.0 - A[t, t]) for t in range(1, T)]
    return float(np.mean(vals))


def pts_argmax_fraction(A):
    T = A.shape[0]
    if T < 2:
        return 0.0
    return float(np.mean(A[1:].argmax(axis=1) == np.arange(T - 1)))


def pts_threshold_fraction(A):
    T = A.shape[0]
    if T < 2:
        return 0.0
    return float(np.mean(np.diagonal(A, -1) > 0.5))


def pts_resoftmax(A):
    T = A.shape[0]
    if T < 2:
        return 0.0
    e = np.exp(A - A.max(axis=1, keepdims=True))
    P = e / e.sum(axis=1, keepdims=True)
    return float(np.mean(np.diagonal(P, -1)))


def pts_rounded(A):
    T = A.shape[0]
    if T < 2:
        return 0.0
    return round(float(np.mean(np.diagonal(A, -1))), 2)


def pts_percent(A):
    T = A.shape[0]
    if T < 2:
        return 0.0
    return float(100.0 * np.mean(np.diagonal(A, -1)))


def pts_one_at_T1(A):
    T = A.shape[0]
    if T == 1:
        return 1.0
    return float(np.mean(np.diagonal(A, -1)))


# ---------------------------------------------------------------------------------------------------------------------
# previous_token_score(A): acceptable variants
# ---------------------------------------------------------------------------------------------------------------------

def pts_ok_loop(A):
    T = A.shape[0]
    if T == 1:
        return 0.0
    total = 0.0
    for t in range(1, T):
        total += A[t, t - 1]
    return total / (T - 1)


def pts_ok_diagonal(A):
    d = np.diagonal(A, offset=-1)
    return float(d.mean()) if d.size else 0.0


def pts_ok_trace(A):
    T = A.shape[0]
    return float(np.trace(A, offset=-1) / (T - 1)) if T > 1 else 0.0


def pts_ok_fancy_index(A):
    T = len(A)
    if T < 2:
        return 0.0
    rows = np.arange(1, T)
    return float(A[rows, rows - 1].mean())


def pts_ok_einsum_shift(A):
    T = A.shape[0]
    if T <= 1:
        return 0.0
    return float(np.einsum("ij,ij->", A, np.eye(T, k=-1)) / (T - 1))


def pts_ok_subblock(A):
    if A.shape[0] == 1:
        return 0.0
    return float(np.diag(A[1:, :-1]).mean())


def pts_ok_mask(A):
    T = A.shape[0]
    if T == 1:
        return 0.0
    i, j = np.indices((T, T))
    return float(A[i - j == 1].mean())


def pts_ok_ravel_stride(A):
    T = A.shape[0]
    if T == 1:
        return 0.0
    return float(np.mean(A.ravel()[T::T + 1]))


# ---------------------------------------------------------------------------------------------------------------------
# prefix_matching_score(A, tokens): mistakes
# ---------------------------------------------------------------------------------------------------------------------

def pms_copy_itself(A, tokens):
    sums = []
    for t in range(len(tokens)):
        js = [j for j in range(t) if tokens[j] == tokens[t]]
        if js:
            sums.append(sum(A[t, j] for j in js))
    return float(np.mean(sums)) if sums else 0.0


def pms_j_minus_1(A, tokens):
    sums = []
    for t in range(len(tokens)):
        js = [j for j in range(t) if tokens[j] == tokens[t]]
        if js:
            sums.append(sum(A[t, j - 1] for j in js))
    return float(np.mean(sums)) if sums else 0.0


def pms_first_copy_only(A, tokens):
    sums = []
    for t in range(len(tokens)):
        js = [j for j in range(t) if tokens[j] == tokens[t]]
        if js:
            sums.append(A[t, js[0] + 1])
    return float(np.mean(sums)) if sums else 0.0


def pms_most_recent_copy_only(A, tokens):
    T = len(tokens)
    last = {}
    sums = []
    for t in range(T):
        tok = int(tokens[t])
        if tok in last:
            sums.append(A[t, last[tok] + 1])
        last[tok] = t
    return float(np.mean(sums)) if sums else 0.0


def pms_includes_t_index_error(A, tokens):
    sums = []
    for t in range(len(tokens)):
        js = [j for j in range(t + 1) if tokens[j] == tokens[t]]
        if js:
            sums.append(sum(A[t, j + 1] for j in js))
    return float(np.mean(sums)) if sums else 0.0


def pms_includes_t_guarded(A, tokens):
    T = len(tokens)
    sums = []
    for t in range(T):
        js = [j for j in range(t + 1) if tokens[j] == tokens[t] and j + 1 < T]
        if js:
            sums.append(sum(A[t, j + 1] for j in js))
    return float(np.mean(sums)) if sums else 0.0


def pms_whole_sequence(A, tokens):
    T = len(tokens)
    sums = []
    for t in range(T):
        js = [j for j in np.flatnonzero(tokens == tokens[t]) if j != t and j + 1 < T]
        if js:
            sums.append(sum(A[t, j + 1] for j in js))
    return float(np.mean(sums)) if sums else 0.0


def pms_upper_triangle_mask(A, tokens):
    M = np.triu(tokens[:, None] == tokens[None, :], k=1).astype(float)
    S = np.zeros_like(M)
    S[:, 1:] = M[:, :-1]
    has = M.any(axis=1)
    if not has.any():
        return 0.0
    return float((A * S).sum(axis=1)[has].mean())


def pms_mean_over_all_positions(A, tokens):
    T = len(tokens)
    total = 0.0
    for t in range(T):
        for j in range(t):
            if tokens[j] == tokens[t]:
                total += A[t, j + 1]
    return float(total / T)


def pms_mean_over_T_minus_1(A, tokens):
    T = len(tokens)
    if T < 2:
        return 0.0
    total = 0.0
    for t in range(1, T):
        for j in range(t):
            if tokens[j] == tokens[t]:
                total += A[t, j + 1]
    return float(total / (T - 1))


def pms_divide_by_copies(A, tokens):
    means = []
    for t in range(len(tokens)):
        js = [j for j in range(t) if tokens[j] == tokens[t]]
        if js:
            means.append(np.mean([A[t, j + 1] for j in js]))
    return float(np.mean(means)) if means else 0.0


def pms_mean_over_pairs(A, tokens):
    vals = []
    for t in range(len(tokens)):
        for j in range(t):
            if tokens[j] == tokens[t]:
                vals.append(A[t, j + 1])
    return float(np.mean(vals)) if vals else 0.0


def pms_total_not_mean(A, tokens):
    total = 0.0
    for t in range(len(tokens)):
        for j in range(t):
            if tokens[j] == tokens[t]:
                total += A[t, j + 1]
    return float(total)


def pms_max_over_copies(A, tokens):
    sums = []
    for t in range(len(tokens)):
        js = [j for j in range(t) if tokens[j] == tokens[t]]
        if js:
            sums.append(max(A[t, j + 1] for j in js))
    return float(np.mean(sums)) if sums else 0.0


def pms_max_over_positions(A, tokens):
    sums = []
    for t in range(len(tokens)):
        js = [j for j in range(t) if tokens[j] == tokens[t]]
        if js:
            sums.append(sum(A[t, j + 1] for j in js))
    return float(np.max(sums)) if sums else 0.0


def pms_median_over_positions(A, tokens):
    sums = []
    for t in range(len(tokens)):
        js = [j for j in range(t) if tokens[j] == tokens[t]]
        if js:
            sums.append(sum(A[t, j + 1] for j in js))
    return float(np.median(sums)) if sums else 0.0


def pms_identity_comparison(A, tokens):
    sums = []
    for t in range(len(tokens)):
        js = [j for j in range(t) if tokens[j] is tokens[t]]
        if js:
            sums.append(sum(A[t, j + 1] for j in js))
    return float(np.mean(sums)) if sums else 0.0


def pms_shifted_comparison(A, tokens):
    sums = []
    for t in range(len(tokens)):
        js = [j for j in range(t) if tokens[j + 1] == tokens[t]]
        if js:
            sums.append(sum(A[t, j + 1] for j in js))
    return float(np.mean(sums)) if sums else 0.0


def pms_previous_token_copies(A, tokens):
    sums = []
    for t in range(1, len(tokens)):
        js = [j for j in range(t) if tokens[j] == tokens[t - 1] and j != t - 1]
        if js:
            sums.append(sum(A[t, j + 1] for j in js))
    return float(np.mean(sums)) if sums else 0.0


def pms_transposed_index(A, tokens):
    sums = []
    for t in range(len(tokens)):
        js = [j for j in range(t) if tokens[j] == tokens[t]]
        if js:
            sums.append(sum(A[j + 1, t] for j in js))
    return float(np.mean(sums)) if sums else 0.0


def pms_nan_when_none(A, tokens):
    sums = []
    for t in range(len(tokens)):
        js = np.flatnonzero(tokens[:t] == tokens[t])
        if js.size:
            sums.append(A[t, js + 1].sum())
    return float(np.mean(sums))


def pms_none_when_none(A, tokens):
    sums = []
    for t in range(len(tokens)):
        js = np.flatnonzero(tokens[:t] == tokens[t])
        if js.size:
            sums.append(A[t, js + 1].sum())
    if not sums:
        return None
    return float(np.mean(sums))


def pms_returns_per_position(A, tokens):
    sums = []
    for t in range(len(tokens)):
        js = np.flatnonzero(tokens[:t] == tokens[t])
        if js.size:
            sums.append(A[t, js + 1].sum())
    return np.array(sums)


def pms_skips_adjacent_copy(A, tokens):
    sums = []
    for t in range(len(tokens)):
        js = [j for j in range(t - 1) if tokens[j] == tokens[t]]
        if js:
            sums.append(sum(A[t, j + 1] for j in js))
    return float(np.mean(sums)) if sums else 0.0


def pms_skips_j0(A, tokens):
    sums = []
    for t in range(len(tokens)):
        js = [j for j in range(1, t) if tokens[j] == tokens[t]]
        if js:
            sums.append(sum(A[t, j + 1] for j in js))
    return float(np.mean(sums)) if sums else 0.0


def pms_skips_last_position(A, tokens):
    T = len(tokens)
    sums = []
    for t in range(T - 1):
        js = [j for j in range(t) if tokens[j] == tokens[t]]
        if js:
            sums.append(sum(A[t, j + 1] for j in js))
    return float(np.mean(sums)) if sums else 0.0


def pms_argmax_finds_copy(A, tokens):
    sums = []
    for t in range(1, len(tokens)):
        j = int(np.argmax(tokens[:t] == tokens[t]))
        sums.append(A[t, j + 1])
    return float(np.mean(sums)) if sums else 0.0


def pms_count_first_occurrences(A, tokens):
    T = len(tokens)
    total = 0.0
    for t in range(T):
        for j in range(t):
            if tokens[j] == tokens[t]:
                total += A[t, j + 1]
    n_repeated = sum(1 for t in range(T) if np.sum(tokens == tokens[t]) > 1)
    return float(total / n_repeated) if n_repeated else 0.0


def pms_only_first_repeat(A, tokens):
    seen = {}
    sums = []
    for t in range(len(tokens)):
        tok = int(tokens[t])
        seen[tok] = seen.get(tok, 0) + 1
        if seen[tok] == 2:
            js = [j for j in range(t) if tokens[j] == tokens[t]]
            sums.append(sum(A[t, j + 1] for j in js))
    return float(np.mean(sums)) if sums else 0.0


def pms_only_single_earlier_copy(A, tokens):
    sums = []
    for t in range(len(tokens)):
        mask = tokens[:t] == tokens[t]
        if np.sum(mask) == 1:
            j = int(np.flatnonzero(mask)[0])
            sums.append(A[t, j + 1])
    return float(np.mean(sums)) if sums else 0.0


def pms_nonzero_score_selects(A, tokens):
    T = len(tokens)
    M = np.tril(tokens[:, None] == tokens[None, :], k=-1)
    S = np.zeros((T, T))
    S[:, 1:] = M[:, :-1]
    per_row = (A * S).sum(axis=1)
    picked = per_row[per_row > 0]
    return float(picked.mean()) if picked.size else 0.0


def pms_column_sums(A, tokens):
    T = len(tokens)
    M = np.tril(tokens[:, None] == tokens[None, :], k=-1)
    S = np.zeros((T, T))
    S[:, 1:] = M[:, :-1]
    has = M.any(axis=1)
    if not has.any():
        return 0.0
    return float((A * S).sum(axis=0)[has].mean())


def pms_unshifted_mask(A, tokens):
    M = np.tril(tokens[:, None] == tokens[None, :], k=-1)
    has = M.any(axis=1)
    if not has.any():
        return 0.0
    return float((A * M).sum(axis=1)[has].mean())


def pms_mask_with_diagonal(A, tokens):
    T = len(tokens)
    M = np.tril(tokens[:, None] == tokens[None, :], k=0)
    S = np.zeros((T, T))
    S[:, 1:] = M[:, :-1]
    has = M.any(axis=1)
    if not has.any():
        return 0.0
    return float((A * S).sum(axis=1)[has].mean())


def pms_shift_wrong_way(A, tokens):
    M = np.tril(tokens[:, None] == tokens[None, :], k=-1)
    S = np.roll(M, -1, axis=1)
    has = M.any(axis=1)
    if not has.any():
        return 0.0
    return float((A * S).sum(axis=1)[has].mean())


def pms_row_after(A, tokens):
    T = len(tokens)
    sums = []
    for t in range(T - 1):
        js = [j for j in range(t) if tokens[j] == tokens[t]]
        if js:
            sums.append(sum(A[t + 1, j + 1] for j in js))
    return float(np.mean(sums)) if sums else 0.0


# ---------------------------------------------------------------------------------------------------------------------
# prefix_matching_score(A, tokens): acceptable variants
# ---------------------------------------------------------------------------------------------------------------------

def pms_ok_loop(A, tokens):
    T = len(tokens)
    sums = []
    for t in range(T):
        s = 0.0
        found = False
        for j in range(t):
            if tokens[j] == tokens[t]:
                s += A[t, j + 1]
                found = True
        if found:
            sums.append(s)
    if not sums:
        return 0.0
    return sum(sums) / len(sums)


def pms_ok_flatnonzero(A, tokens):
    sums = []
    for t in range(1, len(tokens)):
        js = np.flatnonzero(tokens[:t] == tokens[t])
        if js.size > 0:
            sums.append(A[t, js + 1].sum())
    return float(np.mean(sums)) if sums else 0.0


def pms_ok_slice_mask(A, tokens):
    sums = []
    for t in range(len(tokens)):
        mask = tokens[:t] == tokens[t]
        if mask.any():
            sums.append(A[t, 1:t + 1][mask].sum())
    return float(np.mean(sums)) if len(sums) > 0 else 0.0


def pms_ok_roll_mask(A, tokens):
    M = np.tril(tokens[:, None] == tokens[None, :], k=-1)
    has = M.any(axis=1)
    if not has.any():
        return 0.0
    S = np.roll(M, 1, axis=1)
    return float((A * S).sum(axis=1)[has].mean())


def pms_ok_pad_shift_einsum(A, tokens):
    T = len(tokens)
    M = np.tril(np.equal.outer(tokens, tokens), k=-1).astype(float)
    S = np.pad(M, ((0, 0), (1, 0)))[:, :T]
    has = M.sum(axis=1) > 0
    n = int(has.sum())
    if n == 0:
        return 0.0
    per_row = np.einsum("tj,tj->t", A, S)
    return float(per_row[has].sum() / n)


def pms_ok_dict_positions(A, tokens):
    positions = {}
    sums = []
    for t, tok in enumerate(tokens.tolist()):
        earlier = positions.setdefault(tok, [])
        if earlier:
            sums.append(sum(A[t, j + 1] for j in earlier))
        earlier.append(t)
    return float(sum(sums) / len(sums)) if sums else 0.0


def pms_ok_shift_matrix(A, tokens):
    T = len(tokens)
    M = np.tril(tokens[:, None] == tokens, -1).astype(float)
    shift = np.eye(T, k=1)
    per_row = ((M @ shift) * A).sum(axis=1)
    has = M.any(axis=1)
    return float(per_row[has].mean()) if has.any() else 0.0


# ---------------------------------------------------------------------------------------------------------------------
# ablate_head(Wo, head, n_heads): mistakes
# ---------------------------------------------------------------------------------------------------------------------

def ab_columns(Wo, head, n_heads):
    d = Wo.shape[0] // n_heads
    out = Wo.copy()
    out[:, head * d:(head + 1) * d] = 0
    return out


def ab_columns_dmodel(Wo, head, n_heads):
    d = Wo.shape[1] // n_heads
    out = Wo.copy()
    out[:, head * d:(head + 1) * d] = 0
    return out


def ab_in_place_returns_wo(Wo, head, n_heads):
    d = Wo.shape[0] // n_heads
    Wo[head * d:(head + 1) * d] = 0
    return Wo


def ab_in_place_returns_copy(Wo, head, n_heads):
    d = Wo.shape[0] // n_heads
    Wo[head * d:(head + 1) * d] = 0
    return Wo.copy()


def ab_alias(Wo, head, n_heads):
    out = Wo
    d = Wo.shape[0] // n_heads
    out[head * d:(head + 1) * d, :] = 0.0
    return out


def ab_slice_view(Wo, head, n_heads):
    out = Wo[:]
    d = Wo.shape[0] // n_heads
    out[head * d:(head + 1) * d] = 0
    return out


def ab_asarray(Wo, head, n_heads):
    out = np.asarray(Wo)
    d = Wo.shape[0] // n_heads
    out[head * d:(head + 1) * d] = 0
    return out


def ab_reshape_view(Wo, head, n_heads):
    d = Wo.shape[0] // n_heads
    blocks = Wo.reshape(n_heads, d, Wo.shape[1])
    blocks[head] = 0
    return blocks.reshape(n_heads * d, Wo.shape[1])


def ab_list_rows(Wo, head, n_heads):
    d = Wo.shape[0] // n_heads
    rows = list(Wo)
    for r in range(head * d, (head + 1) * d):
        rows[r][:] = 0
    return np.array(rows)


def ab_zeroes_copy_returns_wo(Wo, head, n_heads):
    d = Wo.shape[0] // n_heads
    out = Wo.copy()
    out[head * d:(head + 1) * d] = 0
    return Wo


def ab_slice_one_too_long(Wo, head, n_heads):
    d = Wo.shape[0] // n_heads
    out = Wo.copy()
    out[head * d:(head + 1) * d + 1] = 0
    return out


def ab_slice_inclusive_end(Wo, head, n_heads):
    d = Wo.shape[0] // n_heads
    out = Wo.copy()
    out[head * d:(head + 1) * d - 1] = 0
    return out


def ab_slice_shifted(Wo, head, n_heads):
    d = Wo.shape[0] // n_heads
    out = Wo.copy()
    out[head * d + 1:(head + 1) * d + 1] = 0
    return out


def ab_keeps_only_head(Wo, head, n_heads):
    d = Wo.shape[0] // n_heads
    out = np.zeros_like(Wo)
    out[head * d:(head + 1) * d] = Wo[head * d:(head + 1) * d]
    return out


def ab_dhead_from_columns(Wo, head, n_heads):
    d = Wo.shape[1] // n_heads
    out = Wo.copy()
    out[head * d:(head + 1) * d] = 0
    return out


def ab_head_from_one(Wo, head, n_heads):
    d = Wo.shape[0] // n_heads
    out = Wo.copy()
    out[(head - 1) * d:head * d] = 0
    return out


def ab_float_division(Wo, head, n_heads):
    d = Wo.shape[0] / n_heads
    out = Wo.copy()
    out[head * d:(head + 1) * d] = 0
    return out


def ab_nheads_as_dhead(Wo, head, n_heads):
    out = Wo.copy()
    out[head * n_heads:(head + 1) * n_heads] = 0
    return out


def ab_start_at_head(Wo, head, n_heads):
    d = Wo.shape[0] // n_heads
    out = Wo.copy()
    out[head:head + d] = 0
    return out


def ab_single_row(Wo, head, n_heads):
    out = Wo.copy()
    out[head] = 0
    return out


def ab_first_row_of_block(Wo, head, n_heads):
    d = Wo.shape[0] // n_heads
    out = Wo.copy()
    out[head * d] = 0
    return out


def ab_strided_rows(Wo, head, n_heads):
    out = Wo.copy()
    out[head::n_heads] = 0
    return out


def ab_tile_mask(Wo, head, n_heads):
    d = Wo.shape[0] // n_heads
    keep = np.ones(n_heads)
    keep[head] = 0.0
    return Wo * np.tile(keep, d)[:, None]


def ab_reshape_wrong_order(Wo, head, n_heads):
    d = Wo.shape[0] // n_heads
    out = Wo.copy().reshape(d, n_heads, Wo.shape[1])
    out[:, head] = 0
    return out.reshape(Wo.shape)


def ab_head_and_after(Wo, head, n_heads):
    d = Wo.shape[0] // n_heads
    out = Wo.copy()
    out[head * d:] = 0
    return out


def ab_up_to_head(Wo, head, n_heads):
    d = Wo.shape[0] // n_heads
    out = Wo.copy()
    out[:(head + 1) * d] = 0
    return out


def ab_returns_head_rows(Wo, head, n_heads):
    d = Wo.shape[0] // n_heads
    return Wo[head * d:(head + 1) * d].copy()


def ab_returns_zeroed_head_rows(Wo, head, n_heads):
    d = Wo.shape[0] // n_heads
    return np.zeros((d, Wo.shape[1]))


def ab_deletes_rows(Wo, head, n_heads):
    d = Wo.shape[0] // n_heads
    return np.delete(Wo, np.s_[head * d:(head + 1) * d], axis=0)


def ab_mean_ablation(Wo, head, n_heads):
    d = Wo.shape[0] // n_heads
    out = Wo.copy()
    block = out[head * d:(head + 1) * d]
    out[head * d:(head + 1) * d] = block.mean(axis=0)
    return out


def ab_product_not_assigned(Wo, head, n_heads):
    d = Wo.shape[0] // n_heads
    out = Wo.copy()
    out[head * d:(head + 1) * d] * 0  # noqa: B018
    return out


def ab_comparison_not_assignment(Wo, head, n_heads):
    d = Wo.shape[0] // n_heads
    out = Wo.copy()
    out[head * d:(head + 1) * d] == 0  # noqa: B015
    return out


def ab_transposed_block(Wo, head, n_heads):
    d = Wo.shape[0] // n_heads
    zeros = np.zeros((Wo.shape[1], d))
    return np.concatenate([Wo[:head * d], zeros, Wo[(head + 1) * d:]], axis=0)


def ab_forgot_transpose_back(Wo, head, n_heads):
    d = Wo.shape[0] // n_heads
    W = Wo.T.copy()
    W[:, head * d:(head + 1) * d] = 0
    return W


def ab_only_rows_before(Wo, head, n_heads):
    d = Wo.shape[0] // n_heads
    out = np.zeros(Wo.shape)
    out[:head * d] = Wo[:head * d]
    return out


def ab_float32(Wo, head, n_heads):
    d = Wo.shape[0] // n_heads
    out = Wo.astype(np.float32)
    out[head * d:(head + 1) * d] = 0
    return out


# ---------------------------------------------------------------------------------------------------------------------
# ablate_head(Wo, head, n_heads): acceptable variants
# ---------------------------------------------------------------------------------------------------------------------

def ab_ok_copy_slice(Wo, head, n_heads):
    d_head = Wo.shape[0] // n_heads
    out = Wo.copy()
    out[head * d_head:(head + 1) * d_head, :] = 0.0
    return out


def ab_ok_np_array(Wo, head, n_heads):
    d_head = len(Wo) // n_heads
    out = np.array(Wo, copy=True)
    out[head * d_head:(head + 1) * d_head] = 0
    return out


def ab_ok_concatenate(Wo, head, n_heads):
    d = Wo.shape[0] // n_heads
    zeros = np.zeros((d, Wo.shape[1]))
    return np.concatenate([Wo[:head * d], zeros, Wo[(head + 1) * d:]], axis=0)


def ab_ok_repeat_mask(Wo, head, n_heads):
    d = Wo.shape[0] // n_heads
    keep = np.ones(n_heads)
    keep[head] = 0.0
    return Wo * np.repeat(keep, d)[:, None]


def ab_ok_where(Wo, head, n_heads):
    d = Wo.shape[0] // n_heads
    in_head = (np.arange(Wo.shape[0]) // d) == head
    return np.where(in_head[:, None], 0.0, Wo)


def ab_ok_reshape_copy(Wo, head, n_heads):
    d = Wo.shape[0] // n_heads
    blocks = Wo.reshape(n_heads, d, Wo.shape[1]).copy()
    blocks[head] = 0
    return blocks.reshape(Wo.shape)


def ab_ok_row_loop(Wo, head, n_heads):
    d = Wo.shape[0] // n_heads
    out = np.empty_like(Wo)
    for r in range(Wo.shape[0]):
        out[r] = 0.0 if head * d <= r < (head + 1) * d else Wo[r]
    return out


def ab_ok_list_replace(Wo, head, n_heads):
    d = Wo.shape[0] // n_heads
    rows = list(Wo)
    for r in range(head * d, (head + 1) * d):
        rows[r] = np.zeros(Wo.shape[1])
    return np.array(rows)


# ---------------------------------------------------------------------------------------------------------------------

P, PM, AB = "previous_token_score", "prefix_matching_score", "ablate_head"

MISTAKES = [
    Mistake(P,
            "reads the superdiagonal A[t, t+1] (np.diagonal(A, 1), k=+1 instead of -1): the weight on the next "
            "position, always 0 on a causal map",
            pts_superdiagonal),
    Mistake(P,
            "reads the map transposed (A.T[t, t-1] = A[t-1, t]): columns taken as rows, so it averages future "
            "weights that are 0 on a causal map",
            pts_transposed),
    Mistake(P,
            "averages the main diagonal A[t, t] over t = 1..T-1 (weight on the position itself) instead of A[t, "
            "t-1]",
            pts_main_diagonal_rows_1),
    Mistake(P,
            "uses the main diagonal over all rows, trace(A) / T (self-attention weight) instead of the diagonal "
            "just below it",
            pts_trace_over_T),
    Mistake(P,
            "takes the diagonal of the wrong sub-block A[:-1, :-1] (the self-weights A[t-1, t-1]) instead of "
            "A[1:, :-1]",
            pts_sub_block_self),
    Mistake(P, "divides the sum of A[t, t-1] by T instead of T-1 (row 0 counted in the denominator)", pts_divide_by_T),
    Mistake(P,
            "includes row 0, clipping its 'previous' index to 0 so A[0, 0] = 1 enters the mean over T rows",
            pts_row0_clipped),
    Mistake(P,
            "loops over all T rows so A[0, -1] wraps to the last column; harmless for T > 1 but at T = 1 it reads"
            " A[0, 0] and divides by zero (inf) instead of returning 0.0",
            pts_row0_wraps),
    Mistake(P, "returns the sum of A[t, t-1] over t = 1..T-1 instead of the mean", pts_sum),
    Mistake(P, "returns the max of A[t, t-1] instead of the mean", pts_max),
    Mistake(P, "returns the min of A[t, t-1] instead of the mean", pts_min),
    Mistake(P, "returns the median of A[t, t-1] instead of the mean", pts_median),
    Mistake(P, "no special case for T = 1: the mean of an empty diagonal returns nan instead of 0.0", pts_nan_at_T1),
    Mistake(P,
            "guards on A.size == 0 instead of T == 1, so a (1, 1) map still gives nan instead of 0.0",
            pts_wrong_guard_size),
    Mistake(P,
            "divides by T-1 with no T = 1 case: raises ZeroDivisionError on a (1, 1) map instead of returning 0.0",
            pts_zero_division_T1),
    Mistake(P, "returns None (bare return) at T = 1 instead of 0.0", pts_none_at_T1),
    Mistake(P,
            "returns the array of A[t, t-1] values (the diagonal itself) instead of their mean as a float",
            pts_returns_diagonal),
    Mistake(P, "returns a length-1 array (mean over axis 0 of a column) instead of a float", pts_returns_length1_array),
    Mistake(P, "off-by-one in the row range: range(1, T-1) leaves out the last row", pts_skip_last_row),
    Mistake(P, "starts at row 2 (range(2, T)), leaving out row 1 as well as row 0", pts_skip_row1),
    Mistake(P, "looks two positions back, A[t, t-2] (np.diagonal(A, -2)), instead of one", pts_two_back),
    Mistake(P,
            "averages every strictly-past weight (the whole lower triangle) instead of only A[t, t-1]",
            pts_all_past_mean),
    Mistake(P,
            "sums each row's weight on all earlier positions (np.tril(A, -1)) and averages that, instead of the "
            "weight on t-1 only",
            pts_all_past_sum_per_row),
    Mistake(P,
            "averages the weight on the first position A[t, 0] instead of the previous position A[t, t-1]",
            pts_first_column),
    Mistake(P,
            "returns only the last row's weight A[T-1, T-2] instead of the mean over all rows t = 1..T-1",
            pts_last_row_only),
    Mistake(P,
            "renormalises A[t, t-1] by the non-self weight 1 - A[t, t] before averaging",
            pts_renormalised_without_self),
    Mistake(P,
            "counts the fraction of rows whose argmax is t-1 instead of averaging the weight A[t, t-1]",
            pts_argmax_fraction),
    Mistake(P,
            "counts the fraction of rows with A[t, t-1] > 0.5 instead of averaging the weight",
            pts_threshold_fraction),
    Mistake(P,
            "applies softmax to A again (treats the attention map as scores) before reading A[t, t-1]",
            pts_resoftmax),
    Mistake(P, "rounds the mean to 2 decimals", pts_rounded),
    Mistake(P, "returns a percentage (100 x the mean) instead of a fraction in 0..1", pts_percent),
    Mistake(P, "returns 1.0 instead of 0.0 when T = 1", pts_one_at_T1),

    Mistake(PM,
            "weights the earlier copy itself, A[t, j], instead of the position after it, A[t, j+1]",
            pms_copy_itself),
    Mistake(PM,
            "weights the position before the earlier copy, A[t, j-1] (wrapping to the last column when j = 0), "
            "instead of A[t, j+1]",
            pms_j_minus_1),
    Mistake(PM,
            "uses only the first earlier copy of the token instead of summing over all earlier copies",
            pms_first_copy_only),
    Mistake(PM,
            "uses only the most recent earlier copy of the token instead of summing over all earlier copies",
            pms_most_recent_copy_only),
    Mistake(PM,
            "includes j = t (j <= t) among the copies, so A[t, t+1] is read and the last row raises IndexError",
            pms_includes_t_index_error),
    Mistake(PM,
            "includes j = t (j <= t, guarded against running off the end), so every position counts as having a "
            "copy and the mean is diluted",
            pms_includes_t_guarded),
    Mistake(PM,
            "searches the whole sequence (any j != t) instead of only earlier positions j < t, so later copies "
            "make positions count",
            pms_whole_sequence),
    Mistake(PM,
            "builds the token-match mask from the upper triangle (later copies j > t) instead of the strict lower"
            " triangle",
            pms_upper_triangle_mask),
    Mistake(PM,
            "divides the total by T (all positions) instead of by the number of positions that have an earlier "
            "copy",
            pms_mean_over_all_positions),
    Mistake(PM,
            "divides the total by T-1 (all positions after the first) instead of by the number of positions that "
            "have an earlier copy",
            pms_mean_over_T_minus_1),
    Mistake(PM,
            "averages A[t, j+1] over the copies at each position (divides each sum by the number of copies) "
            "instead of summing them",
            pms_divide_by_copies),
    Mistake(PM,
            "takes one flat mean over all (t, j) copy pairs instead of the mean over positions of the "
            "per-position sums",
            pms_mean_over_pairs),
    Mistake(PM, "returns the total of all per-position sums instead of their mean", pms_total_not_mean),
    Mistake(PM, "takes the max of A[t, j+1] over the copies at each position instead of the sum", pms_max_over_copies),
    Mistake(PM, "returns the max of the per-position sums instead of their mean", pms_max_over_positions),
    Mistake(PM, "returns the median of the per-position sums instead of their mean", pms_median_over_positions),
    Mistake(PM,
            "compares tokens with `is` (object identity) instead of ==, so numpy ints never match and the score "
            "is always 0.0",
            pms_identity_comparison),
    Mistake(PM,
            "shifts the comparison instead of the index: matches tokens[j+1] == tokens[t], so position t matches "
            "itself and the weight lands on the copies",
            pms_shifted_comparison),
    Mistake(PM,
            "looks for earlier copies of the previous token tokens[t-1] instead of the current token tokens[t]",
            pms_previous_token_copies),
    Mistake(PM, "indexes the map transposed, A[j+1, t] instead of A[t, j+1]", pms_transposed_index),
    Mistake(PM,
            "returns nan (mean of an empty list) instead of 0.0 when no position has an earlier copy",
            pms_nan_when_none),
    Mistake(PM, "returns None instead of 0.0 when no position has an earlier copy", pms_none_when_none),
    Mistake(PM, "returns the array of per-position sums instead of their mean as a float", pms_returns_per_position),
    Mistake(PM,
            "off-by-one in the copy range: range(t-1) leaves out the copy at j = t-1 (a token repeated back to "
            "back)",
            pms_skips_adjacent_copy),
    Mistake(PM, "off-by-one in the copy range: range(1, t) leaves out a copy at position j = 0", pms_skips_j0),
    Mistake(PM, "off-by-one in the position range: range(T-1) leaves out the last position", pms_skips_last_position),
    Mistake(PM,
            "finds the copy with np.argmax on the match mask, which returns 0 when there is no copy, so every "
            "position t >= 1 counts (with A[t, 1]) and only the first copy is used",
            pms_argmax_finds_copy),
    Mistake(PM,
            "counts in the denominator every position whose token occurs more than once anywhere (first "
            "occurrences included) instead of only positions with an earlier copy",
            pms_count_first_occurrences),
    Mistake(PM,
            "scores only the first repeat (second occurrence) of each token, leaving out third and later "
            "occurrences",
            pms_only_first_repeat),
    Mistake(PM,
            "keeps only positions with exactly one earlier copy, leaving out tokens that appeared twice or more "
            "before",
            pms_only_single_earlier_copy),
    Mistake(PM,
            "decides which positions have a copy from the score being > 0, so positions whose copies get zero "
            "weight are left out of the mean",
            pms_nonzero_score_selects),
    Mistake(PM,
            "sums the masked map over the wrong axis (column sums, axis=0) before selecting the positions with a "
            "copy",
            pms_column_sums),
    Mistake(PM,
            "vectorised with the token-match mask but forgets to shift it one column right, so the weight is on "
            "the copy j instead of j+1",
            pms_unshifted_mask),
    Mistake(PM,
            "builds the match mask with np.tril(k=0), keeping the diagonal, so every position counts as having a "
            "copy of itself",
            pms_mask_with_diagonal),
    Mistake(PM,
            "shifts the match mask the wrong way (np.roll by -1), putting the weight on j-1 instead of j+1",
            pms_shift_wrong_way),
    Mistake(PM, "reads the next row, A[t+1, j+1], instead of row t", pms_row_after),

    Mistake(AB, "zeroes columns head*d_head..(head+1)*d_head-1 instead of rows", ab_columns),
    Mistake(AB,
            "zeroes columns, with d_head taken as Wo.shape[1] // n_heads, instead of the head's rows",
            ab_columns_dmodel),
    Mistake(AB, "zeroes the rows of Wo in place and returns Wo itself instead of a new array", ab_in_place_returns_wo),
    Mistake(AB,
            "zeroes the rows of Wo in place, then returns a copy: the result is right but Wo is modified",
            ab_in_place_returns_copy),
    Mistake(AB, "assigns out = Wo (an alias, not a copy) before zeroing, so Wo is modified and returned", ab_alias),
    Mistake(AB, "copies with Wo[:], which is a numpy view not a copy, so zeroing it modifies Wo", ab_slice_view),
    Mistake(AB, "copies with np.asarray(Wo), which does not copy, so zeroing it modifies Wo", ab_asarray),
    Mistake(AB,
            "zeroes the head through Wo.reshape(n_heads, d_head, d_model), a view, so Wo is modified",
            ab_reshape_view),
    Mistake(AB,
            "copies with list(Wo), a list of row views, then zeroes the rows in place, so Wo is modified",
            ab_list_rows),
    Mistake(AB, "zeroes the rows of a copy but returns the unchanged Wo", ab_zeroes_copy_returns_wo),
    Mistake(AB,
            "slice one row too long: rows head*d_head .. (head+1)*d_head inclusive, zeroing the next head's first"
            " row",
            ab_slice_one_too_long),
    Mistake(AB,
            "slice one row too short: treats the end as inclusive and stops at (head+1)*d_head - 1, leaving the "
            "head's last row",
            ab_slice_inclusive_end),
    Mistake(AB, "slice shifted by one row: head*d_head+1 .. (head+1)*d_head", ab_slice_shifted),
    Mistake(AB, "zeroes every other head, keeping only the chosen head's rows", ab_keeps_only_head),
    Mistake(AB,
            "computes d_head as Wo.shape[1] // n_heads (from d_model) instead of Wo.shape[0] // n_heads",
            ab_dhead_from_columns),
    Mistake(AB,
            "counts heads from 1: zeroes rows (head-1)*d_head .. head*d_head-1 (nothing at all for head 0)",
            ab_head_from_one),
    Mistake(AB,
            "computes d_head with / instead of //, so the slice bounds are floats and indexing raises TypeError",
            ab_float_division),
    Mistake(AB, "swaps d_head and n_heads: zeroes rows head*n_heads .. (head+1)*n_heads-1", ab_nheads_as_dhead),
    Mistake(AB, "starts the block at row head instead of head*d_head (rows head .. head+d_head-1)", ab_start_at_head),
    Mistake(AB, "zeroes the single row Wo[head] instead of the head's d_head rows", ab_single_row),
    Mistake(AB, "zeroes only the first row of the head's block, head*d_head", ab_first_row_of_block),
    Mistake(AB,
            "assumes interleaved heads: zeroes rows head, head+n_heads, ... (head::n_heads) instead of the "
            "contiguous block",
            ab_strided_rows),
    Mistake(AB,
            "expands the per-head mask with np.tile instead of np.repeat, so it zeroes the interleaved rows "
            "head::n_heads instead of the head's block",
            ab_tile_mask),
    Mistake(AB,
            "reshapes to (d_head, n_heads, d_model) instead of (n_heads, d_head, d_model), so the zeroed rows are"
            " interleaved",
            ab_reshape_wrong_order),
    Mistake(AB,
            "zeroes from the head's first row to the end (rows head*d_head:), silencing every later head too",
            ab_head_and_after),
    Mistake(AB,
            "zeroes from row 0 to the end of the head's block (rows :(head+1)*d_head), silencing every earlier "
            "head too",
            ab_up_to_head),
    Mistake(AB,
            "returns only the head's rows of Wo (d_head, d_model) instead of the whole matrix with them zeroed",
            ab_returns_head_rows),
    Mistake(AB,
            "returns only the head's block, zeroed, (d_head, d_model), instead of the whole matrix",
            ab_returns_zeroed_head_rows),
    Mistake(AB, "deletes the head's rows (np.delete) instead of zeroing them, so the shape shrinks", ab_deletes_rows),
    Mistake(AB, "mean-ablates: replaces the head's rows by their mean row instead of zeros", ab_mean_ablation),
    Mistake(AB,
            "computes out[rows] * 0 without assigning it back, so the copy is returned unchanged",
            ab_product_not_assigned),
    Mistake(AB,
            "writes out[rows] == 0 (a comparison) instead of out[rows] = 0, so the copy is returned unchanged",
            ab_comparison_not_assignment),
    Mistake(AB,
            "builds the zero block with the transposed shape (d_model, d_head) when concatenating, so the result "
            "has the wrong shape (or raises)",
            ab_transposed_block),
    Mistake(AB,
            "zeroes the columns of Wo.T (the right entries) but forgets to transpose back, returning a (d_model, "
            "n_heads*d_head) array",
            ab_forgot_transpose_back),
    Mistake(AB,
            "starts from zeros and copies back only the rows before the head's block, so every later head is "
            "zeroed too",
            ab_only_rows_before),
    Mistake(AB, "casts the copy to float32 (Wo.astype(np.float32)), so the kept entries lose precision", ab_float32),
]

ACCEPTABLE = [
    Mistake(P, "plain loop over t = 1..T-1 summing A[t, t-1], divided by T-1, 0.0 at T = 1", pts_ok_loop),
    Mistake(P, "np.diagonal(A, offset=-1).mean(), 0.0 when the diagonal is empty", pts_ok_diagonal),
    Mistake(P, "np.trace(A, offset=-1) / (T-1)", pts_ok_trace),
    Mistake(P, "fancy indexing A[rows, rows-1] with rows = 1..T-1", pts_ok_fancy_index),
    Mistake(P, "einsum of A with the shift matrix np.eye(T, k=-1), divided by T-1", pts_ok_einsum_shift),
    Mistake(P, "np.diag of the sub-block A[1:, :-1], then mean", pts_ok_subblock),
    Mistake(P, "boolean mask i - j == 1 from np.indices", pts_ok_mask),
    Mistake(P, "strided view of the flattened map, A.ravel()[T::T+1]", pts_ok_ravel_stride),

    Mistake(PM, "double loop with a found flag, per-position sums averaged by hand", pms_ok_loop),
    Mistake(PM, "np.flatnonzero of tokens[:t] == tokens[t], then A[t, js + 1].sum()", pms_ok_flatnonzero),
    Mistake(PM, "boolean mask on the shifted row slice A[t, 1:t+1]", pms_ok_slice_mask),
    Mistake(PM,
            "strict-lower match matrix rolled one column right (np.roll wraps only a column of zeros)",
            pms_ok_roll_mask),
    Mistake(PM,
            "match matrix padded on the left to shift it, einsum row sums, divided by the count",
            pms_ok_pad_shift_einsum),
    Mistake(PM, "single pass with a dict of earlier positions per token", pms_ok_dict_positions),
    Mistake(PM, "match matrix times the shift matrix np.eye(T, k=1), elementwise with A", pms_ok_shift_matrix),

    Mistake(AB, "Wo.copy() then zero the row slice", ab_ok_copy_slice),
    Mistake(AB, "np.array(Wo, copy=True) with d_head = len(Wo) // n_heads", ab_ok_np_array),
    Mistake(AB,
            "np.concatenate of the rows before, a (d_head, d_model) zero block and the rows after",
            ab_ok_concatenate),
    Mistake(AB, "multiply by a per-head keep mask expanded with np.repeat", ab_ok_repeat_mask),
    Mistake(AB, "np.where on a row mask (row // d_head == head)", ab_ok_where),
    Mistake(AB, "reshape a copy to (n_heads, d_head, d_model), zero blocks[head], reshape back", ab_ok_reshape_copy),
    Mistake(AB, "row-by-row loop into np.empty_like(Wo)", ab_ok_row_loop),
    Mistake(AB,
            "list of rows with the head's rows replaced (not modified) by new zero rows, then np.array",
            ab_ok_list_replace),
]
