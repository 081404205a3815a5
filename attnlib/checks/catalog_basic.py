"""Exercise checks for notebooks 01-06: projection, values, mixing, scores, mask, softmax."""
import numpy as np

import attnlib as al
from . import wrong as W
from .spec import Exercise, Probe, features, rand, tokens

EXERCISES = []


def add(ex):
    EXERCISES.append(ex)
    return ex


# 01 -------------------------------------------------------------------------
add(Exercise(
    "project", "project(x, W) -> (d_out,)", al.project,
    [Probe((rand(1, 4), rand(2, 4, 3)), names=("x", "W"), cols=features(3)),
     Probe((rand(3, 2), rand(4, 2, 5)), names=("x", "W"), cols=features(5)),
     Probe((rand(5, 3), rand(6, 3, 3)), names=("x", "W"), cols=features(3))],
    [("weights-transposed", lambda x, M: M @ x)],
    "x @ W for three (x, W) pairs, square and non-square",
    "A projection makes each output feature j a weighted sum of the input features, with weights W[:, j].",
    "With a row vector x of shape (d_in,) and W of shape (d_in, d_out), the product is x @ W.",
    "x' = x @ W"))

# 02 -------------------------------------------------------------------------
add(Exercise(
    "project_rows", "project_rows(X, W) -> (n, d_out)", al.project_rows,
    [Probe((rand(7, 5, 4), rand(8, 4, 3)), names=("X", "W"), rows=tokens(5), cols=features(3)),
     Probe((rand(9, 3, 2), rand(10, 2, 6)), names=("X", "W"), rows=tokens(3), cols=features(6)),
     Probe((rand(11, 4, 4), rand(12, 4, 4)), names=("X", "W"), rows=tokens(4), cols=features(4))],
    [("weights-transposed", lambda X, M: X @ M.T),
     ("weights-transposed", lambda X, M: (M @ X.T).T)],
    "X @ W for three batches, each row projected on its own",
    "Stack the inputs as the rows of X: every row is projected by the same W.",
    "One matrix product does all rows at once: X (n, d_in) @ W (d_in, d_out).",
    "X' = X @ W"))

# 03 -------------------------------------------------------------------------


def _values(tokens_, table, Wv):
    X = np.array([table[t] for t in tokens_])  # (n, d_model)
    return X @ Wv  # (n, d_v)


def _table(seed, words, d):
    return {w: rand(seed + i, d) for i, w in enumerate(sorted(set(words)))}


_S1 = "the cat sat on the mat".split()
_S2 = "the dog and the cat and the mat".split()
add(Exercise(
    "values", "values(tokens, table, Wv) -> V (n, d_v)", _values,
    [Probe((_S1, _table(20, _S1 + ["dog"], 6), rand(21, 6, 4)), names=("tokens", "table", "Wv"),
           rows=_S1, cols=features(4, "v")),
     Probe((_S2, _table(30, _S2, 3), rand(31, 3, 5)), names=("tokens", "table", "Wv"),
           rows=_S2, cols=features(5, "v")),
     Probe((_S1, _table(40, _S1, 4), rand(41, 4, 4)), names=("tokens", "table", "Wv"),
           rows=_S1, cols=features(4, "v"))],
    [("tokens-deduplicated", lambda t, tab, M: _values(list(dict.fromkeys(t)), tab, M)),
     ("tokens-deduplicated", lambda t, tab, M: _values(sorted(set(t)), tab, M)),
     ("rows-from-table-not-tokens", lambda t, tab, M: np.array(list(tab.values())) @ M),
     ("weights-transposed", lambda t, tab, M: _values(t, tab, M.T))],
    "one row per token (repeats included), in sentence order, times Wv",
    "First build X: one row per token, looked up in the table; a word that appears twice gives two equal rows.",
    "X = np.array([table[t] for t in tokens]) is (n, d_model); then V = X @ Wv.",
    "V = X @ Wv, X[i] = table[tokens[i]]"))

# 04 -------------------------------------------------------------------------


def _tril_norm(n, k=0, upper=False):
    M = np.triu(np.ones((n, n)), k) if upper else np.tril(np.ones((n, n)), k)
    return M / M.sum(axis=1, keepdims=True)


add(Exercise(
    "uniform_causal_weights", "uniform_causal_weights(n) -> (n, n)", al.uniform_causal_weights,
    [Probe((n,), names=("n",), rows=tokens(n), cols=tokens(n)) for n in (4, 6, 3)],
    [("mask-hides-past", lambda n: _tril_norm(n, upper=True)),
     ("mask-hides-diagonal", lambda n: _tril_norm(n, -1)),
     ("weights-not-normalised", lambda n: np.tril(np.ones((n, n)))),
     ("normalised-by-n", lambda n: np.tril(np.ones((n, n))) / n),
     ("output-transposed", lambda n: _tril_norm(n).T)],
    "rows of 1/(i+1) on columns 0..i for n = 4, 6, 3",
    "Row i mixes tokens 0..i equally, and gives nothing to later tokens.",
    "Start from np.tril(np.ones((n, n))) and divide each row by its sum (keepdims=True).",
    "A[i, j] = 1/(i+1) if j <= i else 0"))


def _cum_mean(V, count_shift=1):
    return np.cumsum(V, axis=0) / (np.arange(V.shape[0])[:, None] + count_shift)


add(Exercise(
    "causal_average", "causal_average(V) -> (n, d)", al.causal_average,
    [Probe((rand(50, 5, 3),), names=("V",), rows=tokens(5), cols=features(3, "v")),
     Probe((rand(51, 4, 7),), names=("V",), rows=tokens(4), cols=features(7, "v")),
     Probe((rand(52, 6, 2),), names=("V",), rows=tokens(6), cols=features(2, "v")),
     Probe((rand(53, 16, 3),), names=("V",), cols=features(3, "v"))],
    [("average-over-all-rows", lambda V: np.broadcast_to(V.mean(axis=0), V.shape).copy()),
     ("weights-not-normalised", lambda V: np.cumsum(V, axis=0)),
     ("off-by-one-count", lambda V: _cum_mean(V, 0)),
     ("mask-hides-past", lambda V: _cum_mean(V[::-1])[::-1]),
     ("average-over-columns", lambda V: np.cumsum(V, axis=1) / np.arange(1, V.shape[1] + 1))],
    "row i = mean of rows 0..i on four V of different shapes, up to 16 rows",
    "Row i of the result is the average of rows 0..i of V: the token itself and everything before it.",
    "Either uniform_causal_weights(n) @ V, or np.cumsum(V, axis=0) divided by the counts 1..n as a column.",
    "O[i] = (V[0] + ... + V[i]) / (i + 1)"))

# 05 -------------------------------------------------------------------------
add(Exercise(
    "similarity", "similarity(Q, K) -> S (n_q, n_k)", al.similarity,
    [Probe((rand(60, 3, 4), rand(61, 5, 4)), names=("Q", "K"), rows=tokens(3, 2), cols=tokens(5)),
     Probe((rand(62, 6, 2), rand(63, 3, 2)), names=("Q", "K"), rows=tokens(6), cols=tokens(3)),
     Probe((rand(64, 4, 3), rand(65, 3, 3)), names=("Q", "K"), rows=tokens(4), cols=tokens(3))],
    [("kq-instead-of-qk", lambda Q, K: K @ Q.T),
     ("k-not-transposed", lambda Q, K: Q @ K),
     ("similarity-scaled", lambda Q, K: Q @ K.T / np.sqrt(Q.shape[1]))],
    "every query-key dot product, for n_q != n_k != d",
    "Entry (i, j) is the dot product of query i with key j: how well key j matches what query i looks for.",
    "Q is (n_q, d) and K is (n_k, d): transpose K so the inner sizes meet, Q @ K.T is (n_q, n_k).",
    "S = Q @ K.T"))

# 06 -------------------------------------------------------------------------


def _mask(n, keep_fn, fill=-np.inf):
    i, j = np.indices((n, n))
    return np.where(keep_fn(i, j), 0.0, fill)


add(Exercise(
    "causal_mask", "causal_mask(n) -> M (n, n)", al.causal_mask,
    [Probe((n,), names=("n",), rows=tokens(n), cols=tokens(n)) for n in (5, 3, 6)],
    [("mask-value-zero", lambda n: np.zeros((n, n))),
     ("mask-multiplicative", lambda n: np.tril(np.ones((n, n)))),
     ("mask-hides-past", lambda n: _mask(n, lambda i, j: j >= i)),
     ("mask-hides-diagonal", lambda n: _mask(n, lambda i, j: j < i)),
     ("mask-finite-value", lambda n: _mask(n, lambda i, j: j <= i, -1e9)),
     ("mask-finite-value", lambda n: _mask(n, lambda i, j: j <= i, -1e30)),
     ("mask-finite-value", lambda n: _mask(n, lambda i, j: j <= i, np.finfo(float).min))],
    "0 on and below the diagonal, -inf above it, for n = 5, 3, 6",
    "Position i may look at itself and the past (j <= i); the future (j > i) must be hidden.",
    "Start from np.zeros((n, n)) and put -np.inf above the diagonal, e.g. with np.triu_indices(n, k=1).",
    "M[i, j] = 0 if j <= i else -inf"))


def _softmax_axis(S, axis=-1, fix=None):
    return W.softmax_rows(S, axis=fix if fix is not None else axis)


_SM_INF = rand(72, 4, 4) + al.causal_mask(4)
add(Exercise(
    "softmax", "softmax(S, axis=-1) -> same shape", al.softmax,
    [Probe((rand(70, 3, 5),), names=("S",), rows=tokens(3), cols=tokens(5)),
     Probe((rand(71, 2, 3, 4),), names=("S",)),
     Probe((_SM_INF,), names=("S",), rows=tokens(4), cols=tokens(4)),
     Probe((rand(73, 4, 6),), {"axis": 0}, names=("S",), rows=tokens(4), cols=tokens(6)),
     Probe((rand(74, 3, 4, scale=900.0),), names=("S",), rows=tokens(3), cols=tokens(4))],
    [("softmax-no-max-subtraction", lambda S, axis=-1: np.exp(S) / np.exp(S).sum(axis=axis, keepdims=True)),
     ("softmax-wrong-axis", lambda S, axis=-1: _softmax_axis(S, fix=-2 if axis in (-1, S.ndim - 1) else -1)),
     ("softmax-wrong-axis", lambda S, axis=-1: _softmax_axis(S, fix=0 if axis in (-1, S.ndim - 1) else -1)),
     ("softmax-wrong-axis", lambda S, axis=-1: _softmax_axis(S, fix=0)),
     ("softmax-ignores-axis", lambda S, axis=-1: _softmax_axis(S, fix=-1)),
     ("softmax-whole-matrix", lambda S, axis=-1: np.exp(S - S.max()) / np.exp(S - S.max()).sum()),
     ("softmax-not-normalised", lambda S, axis=-1: np.exp(S - S.max(axis=axis, keepdims=True)))],
    "rows sum to 1 on 2-D and 3-D inputs, -inf entries, axis=0, and logits near 1e3 that overflow exp",
    "Exponentiate, then divide by the sum along `axis` (keepdims=True so the shapes broadcast).",
    "exp(1000) overflows: subtract the maximum along the same axis first; it cancels in the ratio.",
    "softmax(S)[i, j] = exp(S[i, j] - max_k S[i, k]) / sum_k exp(S[i, k] - max_k S[i, k])"))

_AW_MISTAKES = ["softmax-no-max-subtraction", "mask-multiplied", "mask-hides-diagonal", "mask-after-softmax",
                "mask-value-zero", "mask-hides-past", "mask-ignores-offset", "mask-not-applied",
                "mask-always-applied", "kq-instead-of-qk", "k-not-transposed", "scale-missing", "scale-by-d",
                "scale-ignored", "softmax-wrong-axis", "softmax-whole-matrix"]


def _qk_probes(seed):
    """Probes for (Q, K, causal, scale): n_q != n_k != d, a square one, an overflow one."""
    return [
        Probe((rand(seed, 3, 4), rand(seed + 1, 5, 4)), names=("Q", "K"), rows=tokens(3, 2), cols=tokens(5)),
        Probe((rand(seed + 2, 4, 4), rand(seed + 3, 4, 4)), names=("Q", "K"), rows=tokens(4), cols=tokens(4)),
        Probe((rand(seed + 4, 5, 2), rand(seed + 5, 3, 2)), {"causal": False}, names=("Q", "K"),
              rows=tokens(5), cols=tokens(3)),
        Probe((rand(seed + 6, 3, 4), rand(seed + 7, 5, 4)), {"scale": False}, names=("Q", "K"),
              rows=tokens(3, 2), cols=tokens(5)),
        Probe((rand(seed + 8, 3, 4, scale=60.0), rand(seed + 9, 5, 4, scale=60.0)), names=("Q", "K"),
              rows=tokens(3, 2), cols=tokens(5)),
    ]


def _mistaken(fn, mistake):
    return lambda *args, **kw: fn(*args, mistake=mistake, **kw)


add(Exercise(
    "attention_weights", "attention_weights(Q, K, causal=True, scale=True) -> A (n_q, n_k)", al.attention_weights,
    _qk_probes(80),
    [(m, _mistaken(W.weights, m)) for m in _AW_MISTAKES],
    "scaled, masked, row-wise softmax for n_q < n_k, n_q = n_k, causal=False, scale=False and huge logits",
    "Three steps: scores Q Kᵀ / √d, then -inf on the future, then a softmax along each row.",
    "With fewer queries than keys the queries are the last positions: query i sees keys 0..n_k - n_q + i.",
    "A = softmax(Q Kᵀ / √d + M) along the last axis"))
