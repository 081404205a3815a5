"""Notebook 06: causal_mask, softmax, attention_weights."""
import numpy as np

# causal_mask ------------------------------------------------------------------


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
    "causal_mask": [

                    ],
    "softmax": [

                ("mutates-input", sm_inplace),
                ("keepdims-missing", sm_max_no_keepdims),
                ("softmax-ignores-axis+softmax-sum-wrong-axis", sm_sum_axis0)],
    "attention_weights": [





                          ],
}
RIGHT = {
    "causal_mask": [mask_loops, mask_where, mask_float32],
    "softmax": [sm_moveaxis_loop, sm_logsumexp, sm_float32],
    "attention_weights": [aw_einsum, aw_loops, aw_renormalise, aw_float32],
}


# -- the exercise score_scale (06) ------------------------------------------------------------------------------
import math  # noqa: E402


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


WRONG["score_scale"] = [
                        ("score-scale-measured", ss_measured)]
RIGHT["score_scale"] = [ss_numpy, ss_power, ss_root_of_inverse, ss_math]
