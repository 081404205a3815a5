"""Notebook 06: causal_mask, softmax, attention_weights."""
import numpy as np

# causal_mask ------------------------------------------------------------------


def mask_zeros(n):
    return np.zeros((n, n))


def mask_ones_tril(n):
    return np.tril(np.ones((n, n)))


def mask_lower(n):
    return np.tril(np.full((n, n), -np.inf), k=-1)


def mask_strict(n):
    return np.where(np.tril(np.ones((n, n)), k=-1) == 1, 0.0, -np.inf)


def mask_big_negative(n):
    return np.triu(np.full((n, n), -1e9), k=1)


def mask_loops(n):
    M = np.zeros((n, n))
    for i in range(n):
        for j in range(i + 1, n):
            M[i, j] = -np.inf
    return M


def mask_where(n):
    i, j = np.indices((n, n))
    return np.where(j > i, -np.inf, 0.0)


def mask_float32(n):
    M = np.zeros((n, n), dtype=np.float32)
    M[np.triu_indices(n, 1)] = -np.inf
    return M


# softmax ----------------------------------------------------------------------


def sm_no_max(S, axis=-1):
    E = np.exp(S)
    return E / E.sum(axis=axis, keepdims=True)


def sm_axis0(S, axis=-1):
    E = np.exp(S - S.max(axis=0, keepdims=True))
    return E / E.sum(axis=0, keepdims=True)


def sm_whole(S, axis=-1):
    E = np.exp(S - np.max(S))
    return E / np.sum(E)


def sm_ignores_axis(S, axis=-1):
    E = np.exp(S - S.max(axis=-1, keepdims=True))
    return E / E.sum(axis=-1, keepdims=True)


def sm_no_division(S, axis=-1):
    return np.exp(S - S.max(axis=axis, keepdims=True))


def sm_inplace(S, axis=-1):
    S -= S.max(axis=axis, keepdims=True)  # writes into the caller's array
    np.exp(S, out=S)
    S /= S.sum(axis=axis, keepdims=True)
    return S


def sm_max_no_keepdims(S, axis=-1):
    E = np.exp(S - S.max(axis=axis))  # broadcasts the wrong way when the shape allows it
    return E / E.sum(axis=axis)


def sm_sum_axis0(S, axis=-1):
    E = np.exp(S - S.max(axis=-1, keepdims=True))  # the max along the rows, as it should be
    return E / E.sum(axis=0, keepdims=True)  # the sum down the columns


def sm_moveaxis_loop(S, axis=-1):
    T = np.moveaxis(S, axis, -1)
    out = np.empty_like(T)
    for idx in np.ndindex(T.shape[:-1]):
        row = T[idx]
        e = np.exp(row - row.max())
        out[idx] = e / e.sum()
    return np.moveaxis(out, -1, axis)


def sm_logsumexp(S, axis=-1):
    m = np.max(S, axis=axis, keepdims=True)
    lse = m + np.log(np.sum(np.exp(S - m), axis=axis, keepdims=True))
    return np.exp(S - lse)


def sm_float32(S, axis=-1):
    S = S.astype(np.float32)
    E = np.exp(S - S.max(axis=axis, keepdims=True))
    return E / E.sum(axis=axis, keepdims=True)


# attention_weights -----------------------------------------------------------


def _future(n_q, n_k):
    """True where key j is in the future of query i (queries are the last n_q positions)."""
    return np.arange(n_k)[None, :] > np.arange(n_q)[:, None] + (n_k - n_q)


def _rows(S):
    E = np.exp(S - S.max(axis=1, keepdims=True))
    return E / E.sum(axis=1, keepdims=True)


def aw_no_scale(Q, K, causal=True, scale=True):
    S = Q @ K.T
    if causal:
        S[_future(*S.shape)] = -np.inf
    return _rows(S)


def aw_scale_by_d(Q, K, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / Q.shape[1]
    if causal:
        S[_future(*S.shape)] = -np.inf
    return _rows(S)


def aw_mask_after(Q, K, causal=True, scale=True):
    S = Q @ K.T / (np.sqrt(Q.shape[1]) if scale else 1.0)
    A = _rows(S)
    if causal:
        A[_future(*A.shape)] = 0.0
    return A


def aw_mask_zero(Q, K, causal=True, scale=True):
    S = Q @ K.T / (np.sqrt(Q.shape[1]) if scale else 1.0)
    if causal:
        S[_future(*S.shape)] = 0.0
    return _rows(S)


def aw_mask_multiplied(Q, K, causal=True, scale=True):
    S = Q @ K.T / (np.sqrt(Q.shape[1]) if scale else 1.0)
    if causal:
        M = np.where(_future(*S.shape), -np.inf, 0.0)
        S = S * M
    return _rows(S)


def aw_hides_diagonal(Q, K, causal=True, scale=True):
    S = Q @ K.T / (np.sqrt(Q.shape[1]) if scale else 1.0)
    if causal:
        n_q, n_k = S.shape
        S[np.arange(n_k)[None, :] >= np.arange(n_q)[:, None] + (n_k - n_q)] = -np.inf
    return _rows(S)


def aw_hides_past(Q, K, causal=True, scale=True):
    S = Q @ K.T / (np.sqrt(Q.shape[1]) if scale else 1.0)
    if causal:
        n_q, n_k = S.shape
        S[np.arange(n_k)[None, :] < np.arange(n_q)[:, None] + (n_k - n_q)] = -np.inf
    return _rows(S)


def aw_no_offset(Q, K, causal=True, scale=True):
    S = Q @ K.T / (np.sqrt(Q.shape[1]) if scale else 1.0)
    if causal:
        S = S + np.triu(np.full(S.shape, -np.inf), k=1)
    return _rows(S)


def aw_axis0(Q, K, causal=True, scale=True):
    S = Q @ K.T / (np.sqrt(Q.shape[1]) if scale else 1.0)
    if causal:
        S[_future(*S.shape)] = -np.inf
    E = np.exp(S - S.max(axis=0))
    return E / E.sum(axis=0)


def aw_k_untransposed(Q, K, causal=True, scale=True):
    S = Q @ K / (np.sqrt(Q.shape[1]) if scale else 1.0)
    if causal:
        S[_future(*S.shape)] = -np.inf
    return _rows(S)


def aw_kq(Q, K, causal=True, scale=True):
    S = K @ Q.T / (np.sqrt(Q.shape[1]) if scale else 1.0)
    if causal:
        S[_future(*S.shape)] = -np.inf
    return _rows(S)


def aw_no_max(Q, K, causal=True, scale=True):
    S = Q @ K.T / (np.sqrt(Q.shape[1]) if scale else 1.0)
    if causal:
        S[_future(*S.shape)] = -np.inf
    E = np.exp(S)
    return E / E.sum(axis=1, keepdims=True)


def aw_ignores_causal_flag(Q, K, causal=True, scale=True):
    S = Q @ K.T / (np.sqrt(Q.shape[1]) if scale else 1.0)
    S[_future(*S.shape)] = -np.inf
    return _rows(S)


def aw_einsum(Q, K, causal=True, scale=True):
    S = np.einsum("qd,kd->qk", Q, K)
    if scale:
        S = S / np.sqrt(Q.shape[-1])
    if causal:
        S = np.where(_future(*S.shape), -np.inf, S)
    return _rows(S)


def aw_loops(Q, K, causal=True, scale=True):
    n_q, n_k = Q.shape[0], K.shape[0]
    A = np.zeros((n_q, n_k))
    for i in range(n_q):
        last = i + n_k - n_q if causal else n_k - 1
        s = np.array([Q[i] @ K[j] for j in range(last + 1)])
        if scale:
            s = s / np.sqrt(Q.shape[1])
        e = np.exp(s - s.max())
        A[i, :last + 1] = e / e.sum()
    return A


def aw_renormalise(Q, K, causal=True, scale=True):
    """Mask-then-renormalise: exp with the max over visible keys, zero the future, divide by the row sum."""
    S = Q @ K.T / (np.sqrt(Q.shape[1]) if scale else 1.0)
    keep = ~_future(*S.shape) if causal else np.ones(S.shape, dtype=bool)
    m = np.where(keep, S, -np.inf).max(axis=1, keepdims=True)
    E = np.exp(np.where(keep, S - m, 0.0)) * keep
    return E / E.sum(axis=1, keepdims=True)


def aw_float32(Q, K, causal=True, scale=True):
    Q, K = Q.astype(np.float32), K.astype(np.float32)
    S = Q @ K.T
    if scale:
        S /= np.float32(np.sqrt(Q.shape[1]))
    if causal:
        S[_future(*S.shape)] = -np.inf
    return _rows(S)


WRONG = {
    "causal_mask": [("mask-value-zero", mask_zeros), ("mask-multiplicative", mask_ones_tril),
                    ("mask-hides-past", mask_lower), ("mask-hides-diagonal", mask_strict),
                    ("mask-finite-value", mask_big_negative)],
    "softmax": [("softmax-no-max-subtraction", sm_no_max), ("softmax-wrong-axis", sm_axis0),
                ("softmax-whole-matrix", sm_whole), ("softmax-ignores-axis", sm_ignores_axis),
                ("softmax-not-normalised", sm_no_division), ("mutates-input", sm_inplace),
                ("keepdims-missing", sm_max_no_keepdims),
                ("softmax-ignores-axis+softmax-sum-wrong-axis", sm_sum_axis0)],
    "attention_weights": [("scale-missing", aw_no_scale), ("scale-by-d", aw_scale_by_d),
                          ("mask-after-softmax", aw_mask_after), ("mask-value-zero", aw_mask_zero),
                          ("mask-multiplied", aw_mask_multiplied), ("mask-hides-diagonal", aw_hides_diagonal),
                          ("mask-hides-past", aw_hides_past), ("mask-ignores-offset", aw_no_offset),
                          ("softmax-wrong-axis", aw_axis0), ("k-not-transposed", aw_k_untransposed),
                          ("kq-instead-of-qk", aw_kq), ("softmax-no-max-subtraction", aw_no_max),
                          ("mask-always-applied", aw_ignores_causal_flag)],
}
RIGHT = {
    "causal_mask": [mask_loops, mask_where, mask_float32],
    "softmax": [sm_moveaxis_loop, sm_logsumexp, sm_float32],
    "attention_weights": [aw_einsum, aw_loops, aw_renormalise, aw_float32],
}


# -- the exercise score_scale (06) ------------------------------------------------------------------------------
import math  # noqa: E402


def ss_over_d(d):
    return 1.0 / np.asarray(d)


def ss_sqrt_d(d):
    return np.sqrt(d)


def ss_one(d):
    return np.float64(1)


def ss_precedence(d):
    return np.float64(d) ** -1 / 2


def ss_measured(d):
    rng = np.random.default_rng(0)
    q, k = rng.standard_normal((1000, d)), rng.standard_normal((1000, d))
    return 1.0 / np.std((q * k).sum(axis=1))


def ss_numpy(d):
    return 1 / np.sqrt(d)


def ss_power(d):
    return np.float64(d) ** -0.5


def ss_root_of_inverse(d):
    return np.sqrt(1.0 / d)


def ss_math(d):
    return 1 / math.sqrt(d)  # a Python float


WRONG["score_scale"] = [("scale-by-d", ss_over_d), ("scale-inverted", ss_sqrt_d), ("scale-missing", ss_one),
                        ("power-precedence", ss_precedence), ("score-scale-measured", ss_measured)]
RIGHT["score_scale"] = [ss_numpy, ss_power, ss_root_of_inverse, ss_math]
