"""Known-wrong variants of attention, computed by the grader to name a mistake.

`weights(Q, K, causal, scale, mistake)` is attention_weights with one deliberate
mistake switched on; every mistake id is a key of DIAGNOSES. The exercises
compose these into wrong attention, self-attention and multi-head variants.
"""
import numpy as np


def softmax_rows(S, axis=-1):
    E = np.exp(S - S.max(axis=axis, keepdims=True))
    return E / E.sum(axis=axis, keepdims=True)


def allowed(n_q, n_k, mistake=None):
    """Boolean (n_q, n_k): which keys each query may see (queries are the last n_q positions)."""
    i = np.arange(n_q)[:, None] + (0 if mistake == "mask-ignores-offset" else n_k - n_q)
    j = np.arange(n_k)[None, :]
    if mistake == "mask-hides-diagonal":
        return j < i
    if mistake == "mask-hides-past":
        return j >= i
    return j <= i


def weights(Q, K, causal=True, scale=True, mistake=None):
    """Attention weights (n_q, n_k), with `mistake` (a diagnosis id) or None for the right answer."""
    if mistake == "k-not-transposed":
        S = Q @ K
    elif mistake == "kq-instead-of-qk":
        S = K @ Q.T
    else:
        S = Q @ K.T
    d = Q.shape[-1]
    if mistake == "scale-ignored" or (scale and mistake != "scale-missing"):
        S = S / (d if mistake in ("scale-by-d", "scale-applied-twice") else np.sqrt(d))
    if mistake == "mask-not-applied":
        causal = False
    if mistake == "mask-always-applied":
        causal = True
    n_q, n_k = S.shape
    keep = allowed(n_q, n_k, mistake)
    if causal and mistake == "mask-value-zero":
        S = np.where(keep, S, 0.0)
    elif causal and mistake == "mask-multiplied":
        S = S * np.where(keep, 0.0, -np.inf)
    elif causal and mistake != "mask-after-softmax":
        S = np.where(keep, S, -np.inf)
    if mistake == "softmax-wrong-axis":
        return softmax_rows(S, axis=0)
    if mistake == "softmax-whole-matrix":
        E = np.exp(S - S.max())
        return E / E.sum()
    if mistake == "softmax-no-max-subtraction":
        E = np.exp(S)
        return E / E.sum(axis=-1, keepdims=True)
    A = softmax_rows(S)
    if causal and mistake == "mask-after-softmax":
        A = A * keep
    return A


def attention(Q, K, V, causal=True, scale=True, mistake=None):
    """O = A V with one mistake; av-transposed and va-instead-of-av change the last product."""
    A = weights(Q, K, causal, scale, mistake)
    if mistake == "av-transposed":
        return A.T @ V
    if mistake == "va-instead-of-av":
        return V @ A
    return A @ V


def split(M, n_heads, mistake=None):
    """(n, n_heads * d_head) -> (n_heads, n, d_head), or the head-mixing reshape."""
    n, width = M.shape
    if mistake == "heads-split-mixed":
        return M.reshape(n_heads, n, width // n_heads)
    return M.reshape(n, n_heads, width // n_heads).transpose(1, 0, 2)


def merge(O, mistake=None):
    """(n_heads, n, d_head) -> (n, n_heads * d_head), or one of the out-of-order merges."""
    h, n, d = O.shape
    if mistake == "heads-merge-mixed":
        return O.reshape(n, h * d)
    if mistake == "heads-out-of-order":
        O = O[::-1]
    return O.transpose(1, 0, 2).reshape(n, h * d)


def multi_head(X, Wq, Wk, Wv, Wo, n_heads, causal=True, mistake=None):
    """Multi-head attention with one mistake."""
    if mistake == "heads-ignored":
        n_heads = 1
    Q, K, V = (split(X @ W, n_heads, mistake) for W in (Wq, Wk, Wv))  # (h, n, d_head)
    heads = []
    for q, k, v in zip(Q, K, V):
        if mistake == "scale-by-d-model":
            a = weights(q * np.sqrt(q.shape[1]) / np.sqrt(X.shape[1]), k, causal)
        elif mistake == "scale-by-full-width":
            a = weights(q * np.sqrt(q.shape[1]) / np.sqrt(Wq.shape[1]), k, causal)
        else:
            a = weights(q, k, causal, True, mistake)
        heads.append(a @ v)  # (n, d_head)
    O = merge(np.stack(heads), mistake)  # (n, h * d_head)
    return O if mistake == "wo-ignored" else O @ Wo
