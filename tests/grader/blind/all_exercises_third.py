"""A blind set of realistic learner mistakes (and acceptable variants) for "Rediscovering Attention".

Written from the exercise notebooks, the lessons, the README and attnlib's maths modules, by a writer who read
neither the grader, its tests, the solutions nor another set, and never ran a check. Its learners: JAX and
functional habits (einsum letters, vmap-like loops), formulas copied from a paper with its conventions, "safety"
steps that change the result (clipping, eps, nan_to_num, normalising twice), general n-D code with the wrong axis
for 2-D, special cases for small inputs, aliases and in-place edits, similar arguments confused, off-by-ones, the
wrong dtype or integer division. Verified outside the repository: every mistake differs from a right answer on
some random or edge-case input, every acceptable variant agrees with one.

Imports numpy, math and the standard library only. Every learner function has the exercise's
signature; the capstone entries hold a dict of ops (the fourteen names of attnlib.learner_ops.NAMES).
Each mistake is built from the shared correct helpers below and differs from a right answer in one
place (a few in two, and their `what` says so).
"""
import math
from dataclasses import dataclass
from typing import Callable

import numpy as np


@dataclass(frozen=True)
class Mistake:
    exercise: str  # the name passed to check(...)
    what: str      # one precise plain-English line naming the mistake
    fn: Callable   # the learner's function (capstone: a dict of ops)


MISTAKES = []
ACCEPTABLE = []


def _mistake(exercise, what):
    def register(fn):
        MISTAKES.append(Mistake(exercise, what, fn))
        return fn
    return register


def _ok(exercise, what):
    def register(fn):
        ACCEPTABLE.append(Mistake(exercise, what, fn))
        return fn
    return register


# =============================================================================
# shared correct helpers (rows are tokens)

GELU_C = math.sqrt(2.0 / math.pi)


def _softmax(S, axis=-1):
    S = np.asarray(S, dtype=float)
    E = np.exp(S - S.max(axis=axis, keepdims=True))
    return E / E.sum(axis=axis, keepdims=True)


def _mask(n_q, n_k):
    """Additive causal mask (n_q, n_k); the queries are the last n_q positions."""
    return np.triu(np.full((n_q, n_k), -np.inf), k=n_k - n_q + 1)


def _scores(Q, K, scale=True):
    S = Q @ K.T
    return S / math.sqrt(Q.shape[1]) if scale else S


def _weights(Q, K, causal=True, scale=True):
    S = _scores(Q, K, scale)
    if causal:
        S = S + _mask(Q.shape[0], K.shape[0])
    return _softmax(S)


def _attention(Q, K, V, causal=True, scale=True):
    return _weights(Q, K, causal, scale) @ V


def _split_heads(M, n_heads):
    n, width = M.shape
    return M.reshape(n, n_heads, width // n_heads).transpose(1, 0, 2)


def _mha(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    Q, K, V = (_split_heads(X @ W, n_heads) for W in (Wq, Wk, Wv))
    heads = [_attention(Q[h], K[h], V[h], causal) for h in range(n_heads)]
    return np.concatenate(heads, axis=1) @ Wo


def _layer_norm(X, g, b, eps=1e-5):
    mean = X.mean(axis=1, keepdims=True)
    var = X.var(axis=1, keepdims=True)
    return (X - mean) / np.sqrt(var + eps) * g + b


def _gelu(X):
    X = np.asarray(X, dtype=float)
    return 0.5 * X * (1.0 + np.tanh(GELU_C * (X + 0.044715 * X ** 3)))


def _mlp(H, p):
    return _gelu(H @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"]


def _block(X, p, n_heads, causal=True):
    Y = X + _mha(_layer_norm(X, p["ln1_g"], p["ln1_b"]), p["Wq"], p["Wk"], p["Wv"], p["Wo"], n_heads, causal)
    return Y + _mlp(_layer_norm(Y, p["ln2_g"], p["ln2_b"]), p)


def _log_softmax(Z):
    Z = Z - Z.max(axis=1, keepdims=True)
    return Z - np.log(np.exp(Z).sum(axis=1, keepdims=True))


def _cross_entropy(logits, targets):
    n = len(targets)
    logp = _log_softmax(logits)
    loss = -logp[np.arange(n), targets].mean()
    dlogits = np.exp(logp)
    dlogits[np.arange(n), targets] -= 1.0
    return loss, dlogits / n


def _softmax_backward(A, dA):
    return A * (dA - (dA * A).sum(axis=-1, keepdims=True))


def _attention_backward(Q, K, V, dO, causal=True, scale=True):
    s = 1.0 / math.sqrt(Q.shape[1]) if scale else 1.0
    A = _weights(Q, K, causal, scale)
    dS = _softmax_backward(A, dO @ V.T) * s
    return dS @ K, dS.T @ Q, A.T @ dO


def _ln_parts(X, eps=1e-5):
    rstd = 1.0 / np.sqrt(X.var(axis=1, keepdims=True) + eps)
    return (X - X.mean(axis=1, keepdims=True)) * rstd, rstd


def _layer_norm_backward(X, g, dY, eps=1e-5):
    Xhat, rstd = _ln_parts(X, eps)
    dXhat = dY * g
    dX = rstd * (dXhat - dXhat.mean(axis=1, keepdims=True) - Xhat * (dXhat * Xhat).mean(axis=1, keepdims=True))
    return dX, (dY * Xhat).sum(axis=0), dY.sum(axis=0)


def _attend_step(q, K_cache, V_cache):
    s = K_cache @ q / math.sqrt(q.shape[0])
    e = np.exp(s - s.max())
    return (e / e.sum()) @ V_cache


def _cache_step(q, k, v, K_cache, V_cache):
    K_new = np.vstack([K_cache, k[None, :]])
    V_new = np.vstack([V_cache, v[None, :]])
    return _attend_step(q, K_new, V_new), K_new, V_new


def _sample_next(logits, temperature, u):
    logits = np.asarray(logits, dtype=float)
    if temperature == 0:
        return int(np.argmax(logits))
    z = (logits - logits.max()) / temperature
    e = np.exp(z)
    cdf = np.cumsum(e / e.sum())
    cdf = cdf / cdf[-1]
    return int(np.searchsorted(cdf, u, side="right"))


def _next_token_logits(H, W_vocab):
    return H[-1] @ W_vocab


def _embed(tokens, tok_emb, pos_emb):
    return tok_emb[tokens] + pos_emb[:len(tokens)]


def _kv_per_token(n_layers, n_heads, d_head, batch, bytes_per_value):
    return 2 * n_layers * n_heads * d_head * batch * bytes_per_value


def _generate_with(p, prompt, n_new, cache_step, pos_offset=0, residual=True):
    """Greedy generation through a given cache_step (one call per token fed)."""
    seq = [int(t) for t in prompt]
    d = p["tok_emb"].shape[1]
    K, V = np.zeros((0, d)), np.zeros((0, d))
    for i in range(len(seq) + n_new - 1):
        x = p["tok_emb"][seq[i]] + p["pos_emb"][i + pos_offset]
        o, K, V = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K, V)
        if i >= len(prompt) - 1:
            h = x + o if residual else o
            seq.append(int(np.argmax(h @ p["W_out"])))
    return np.array(seq, dtype=int)


# =============================================================================
# 01 project(x, W)

@_mistake("project", "computes W @ x, the textbook column-vector product, instead of x @ W (shape error unless "
                     "W is square, and the transposed map when it is)")
def project(x, W):
    return W @ x


@_mistake("project", "np.einsum('i,ij->i') keeps the input index and sums over the output one: returns "
                     "x[i] * sum_j W[i, j], shape (d_in,), instead of summing over i")
def project(x, W):
    return np.einsum("i,ij->i", x, W)


@_mistake("project", "multiplies by W transposed (x @ W.T)")
def project(x, W):
    return x @ W.T


@_mistake("project", "broadcasts x as a column and sums over the wrong axis (axis=1, the outputs), giving "
                     "(d_in,) instead of summing over the inputs (axis=0)")
def project(x, W):
    return (x[:, None] * W).sum(axis=1)


@_mistake("project", "accumulates the loop into an int array (np.zeros(d_out, dtype=int)), so every output is "
                     "truncated to an integer")
def project(x, W):
    out = np.zeros(W.shape[1], dtype=int)
    for j in range(W.shape[1]):
        out[j] = sum(x[i] * W[i, j] for i in range(W.shape[0]))
    return out


@_mistake("project", "loops over i from 1 (1-based indexing copied from the formula), dropping the term of x[0]")
def project(x, W):
    out = np.zeros(W.shape[1])
    for i in range(1, W.shape[0]):
        out += x[i] * W[i]
    return out


@_mistake("project", "scales W in place by x (W *= x[:, None]) before summing its rows: the value is right but "
                     "the caller's W is overwritten")
def project(x, W):
    W *= x[:, None]
    return W.sum(axis=0)


@_mistake("project", "special-cases d_in == 1 with x * W, returning a (1, d_out) array instead of (d_out,)")
def project(x, W):
    if x.shape[0] == 1:
        return x * W
    return x @ W


@_ok("project", "np.einsum('i,ij->j') instead of the @ operator")
def project(x, W):
    return np.einsum("i,ij->j", x, W)


@_ok("project", "an explicit sum of x[i] * W[i] over the rows of W (float accumulator)")
def project(x, W):
    out = np.zeros(W.shape[1])
    for i in range(W.shape[0]):
        out = out + x[i] * W[i]
    return out


# =============================================================================
# 01 compose(W1, W2)

@_mistake("compose", "returns W2 @ W1, the column-vector order of the textbook's W2 W1, instead of W1 @ W2")
def compose(W1, W2):
    return W2 @ W1


@_mistake("compose", "returns the transpose (W1 @ W2).T, shape (d_out, d_in): the column-vector matrix W2ᵀ W1ᵀ")
def compose(W1, W2):
    return W2.T @ W1.T


@_mistake("compose", "np.einsum('ij,jk->ij') sums over the output index k instead of the shared index j: "
                     "returns W1 with column j scaled by the sum of W2's row j, shape (d_in, d_mid)")
def compose(W1, W2):
    return np.einsum("ij,jk->ij", W1, W2)


@_mistake("compose", "the triple loop's shared index runs over range(d_mid - 1), dropping the last term of "
                     "every dot product")
def compose(W1, W2):
    d_in, d_mid = W1.shape
    d_out = W2.shape[1]
    W = np.zeros((d_in, d_out))
    for i in range(d_in):
        for k in range(d_out):
            for j in range(d_mid - 1):
                W[i, k] += W1[i, j] * W2[j, k]
    return W


@_mistake("compose", "overwrites W1's rows in place with W1[i] @ W2 and returns W1: mutates the caller's W1 "
                     "(and fails when d_mid != d_out) — two slips")
def compose(W1, W2):
    for i in range(W1.shape[0]):
        W1[i] = W1[i] @ W2
    return W1


@_mistake("compose", "multiplies elementwise (W1 * W2) instead of taking the matrix product")
def compose(W1, W2):
    return W1 * W2


@_ok("compose", "an explicit triple loop over i, j, k")
def compose(W1, W2):
    W = np.zeros((W1.shape[0], W2.shape[1]))
    for i in range(W1.shape[0]):
        for j in range(W1.shape[1]):
            for k in range(W2.shape[1]):
                W[i, k] += W1[i, j] * W2[j, k]
    return W


@_ok("compose", "projects the identity through both steps: (I @ W1) @ W2")
def compose(W1, W2):
    return (np.eye(W1.shape[0]) @ W1) @ W2


@_ok("compose", "np.einsum('ij,jk->ik') instead of @")
def compose(W1, W2):
    return np.einsum("ij,jk->ik", W1, W2)


# =============================================================================
# 02 project_rows(X, W)

@_mistake("project_rows", "returns Wᵀ Xᵀ (the column-vector formula), i.e. the transpose, shape (d_out, n)")
def project_rows(X, W):
    return W.T @ X.T


@_mistake("project_rows", "the row loop runs over range(n - 1), so the last row is missing (shape (n - 1, d_out))")
def project_rows(X, W):
    return np.stack([X[i] @ W for i in range(X.shape[0] - 1)])


@_mistake("project_rows", "np.tensordot contracts X's row axis (axes=([0], [0])), computing Xᵀ W instead of X W")
def project_rows(X, W):
    return np.tensordot(X, W, axes=([0], [0]))


@_mistake("project_rows", "special-cases one row by returning X[0] @ W, shape (d_out,) instead of (1, d_out)")
def project_rows(X, W):
    if X.shape[0] == 1:
        return X[0] @ W
    return X @ W


@_mistake("project_rows", "clips the result to [-1e6, 1e6] 'to avoid overflow', changing every large output")
def project_rows(X, W):
    return np.clip(X @ W, -1e6, 1e6)


@_mistake("project_rows", "preallocates the output with dtype=int, so every row assigned into it is truncated "
                          "to integers")
def project_rows(X, W):
    out = np.zeros((X.shape[0], W.shape[1]), dtype=int)
    for i in range(X.shape[0]):
        out[i] = X[i] @ W
    return out


@_ok("project_rows", "np.einsum('nd,de->ne') instead of @")
def project_rows(X, W):
    return np.einsum("nd,de->ne", X, W)


@_ok("project_rows", "a vmap-style loop: one project(x, W) per row, stacked")
def project_rows(X, W):
    return np.stack([x @ W for x in X])


# =============================================================================
# 02 matmul_cost(n, d_in, d_out)

@_mistake("matmul_cost", "counts multiplications and additions, n * d_out * (2 d_in - 1), instead of the "
                         "n * d_in * d_out multiplications")
def matmul_cost(n, d_in, d_out):
    return n * d_out * (2 * d_in - 1)


@_mistake("matmul_cost", "counts the additions, d_in - 1 per entry, instead of the d_in multiplications")
def matmul_cost(n, d_in, d_out):
    return n * (d_in - 1) * d_out


@_mistake("matmul_cost", "returns np.prod of the sizes: a numpy int64, not a Python int, which wraps around "
                         "past 2**63")
def matmul_cost(n, d_in, d_out):
    return np.prod([n, d_in, d_out])


@_mistake("matmul_cost", "goes through a float (float(n) * d_in * d_out, then int), so counts above 2**53 round")
def matmul_cost(n, d_in, d_out):
    return int(float(n) * d_in * d_out)


@_mistake("matmul_cost", "counts the entries of the result, n * d_out, forgetting the d_in multiplications of "
                         "each dot product")
def matmul_cost(n, d_in, d_out):
    return n * d_out


@_mistake("matmul_cost", "counts one multiplication per input entry, n * d_in, forgetting the d_out columns")
def matmul_cost(n, d_in, d_out):
    return n * d_in


@_ok("matmul_cost", "math.prod over the three sizes, each converted to a Python int")
def matmul_cost(n, d_in, d_out):
    return math.prod(int(s) for s in (n, d_in, d_out))


@_ok("matmul_cost", "counts entries times dot-product length in another order: (n * d_out) * d_in")
def matmul_cost(n, d_in, d_out):
    entries = n * d_out
    return entries * d_in


# =============================================================================
# 03 values(tokens, table, Wv)

@_mistake("values", "keeps one row per distinct word (dict.fromkeys(tokens)), dropping the repeated 'the'")
def values(tokens, table, Wv):
    X = np.array([table[w] for w in dict.fromkeys(tokens)])
    return X @ Wv


@_mistake("values", "builds X from the table's entries in the table's order instead of from the tokens")
def values(tokens, table, Wv):
    X = np.array(list(table.values()))
    return X @ Wv


@_mistake("values", "returns Vᵀ = Wvᵀ Xᵀ (column-vector convention), shape (d_v, n)")
def values(tokens, table, Wv):
    X = np.array([table[w] for w in tokens])
    return Wv.T @ X.T


@_mistake("values", "skips the first token (tokens[1:], an off-by-one slice), returning n - 1 rows")
def values(tokens, table, Wv):
    X = np.array([table[w] for w in tokens[1:]])
    return X @ Wv


@_mistake("values", "sums the token vectors into one bag-of-words row, returning (d_v,) instead of one row per token")
def values(tokens, table, Wv):
    X = np.array([table[w] for w in tokens])
    return X.sum(axis=0) @ Wv


@_mistake("values", "projects the table entries in place (table[w] = table[w] @ Wv): mutates the caller's dict and "
                    "projects a repeated word twice — two slips")
def values(tokens, table, Wv):
    rows = []
    for w in tokens:
        table[w] = table[w] @ Wv
        rows.append(table[w])
    return np.array(rows)


@_ok("values", "projects each word vector on its own, then stacks the rows")
def values(tokens, table, Wv):
    return np.array([table[w] @ Wv for w in tokens])


@_ok("values", "np.einsum('nd,dv->nv') on the stacked rows")
def values(tokens, table, Wv):
    return np.einsum("nd,dv->nv", np.stack([table[w] for w in tokens]), Wv)


# =============================================================================
# 03 one_hot(ids, vocab_size)

@_mistake("one_hot", "np.eye(vocab_size, dtype=int)[ids]: integer rows instead of floats")
def one_hot(ids, vocab_size):
    return np.eye(vocab_size, dtype=int)[ids]


@_mistake("one_hot", "sets whole rows (out[ids] = 1.0) instead of the entries (i, ids[i])")
def one_hot(ids, vocab_size):
    out = np.zeros((len(ids), vocab_size))
    out[ids] = 1.0
    return out


@_mistake("one_hot", "treats the ids as 1-based and puts the 1 in column ids[i] - 1 (id 0 lands in the last column)")
def one_hot(ids, vocab_size):
    out = np.zeros((len(ids), vocab_size))
    out[np.arange(len(ids)), ids - 1] = 1.0
    return out


@_mistake("one_hot", "returns the transpose, shape (vocab_size, n): one column per token")
def one_hot(ids, vocab_size):
    out = np.zeros((vocab_size, len(ids)))
    out[ids, np.arange(len(ids))] = 1.0
    return out


@_mistake("one_hot", "sizes the columns from ids.max() + 1 instead of vocab_size")
def one_hot(ids, vocab_size):
    out = np.zeros((len(ids), int(ids.max()) + 1))
    out[np.arange(len(ids)), ids] = 1.0
    return out


@_mistake("one_hot", "special-cases a single id by returning the 1-D row (vocab_size,) instead of (1, vocab_size)")
def one_hot(ids, vocab_size):
    if len(ids) == 1:
        return np.eye(vocab_size)[ids[0]]
    return np.eye(vocab_size)[ids]


@_mistake("one_hot", "sorts ids in place first (ids.sort()), mutating the caller's ids and reordering the rows")
def one_hot(ids, vocab_size):
    ids.sort()
    return np.eye(vocab_size)[ids]


@_ok("one_hot", "rows of the float identity matrix, np.eye(vocab_size)[ids]")
def one_hot(ids, vocab_size):
    return np.eye(vocab_size)[ids]


@_ok("one_hot", "compares each id with arange(vocab_size) by broadcasting and casts to float")
def one_hot(ids, vocab_size):
    return (np.asarray(ids)[:, None] == np.arange(vocab_size)[None, :]).astype(float)


# =============================================================================
# 04 uniform_causal_weights(n)

@_mistake("uniform_causal_weights", "divides column j by j + 1 (np.arange as a row vector) instead of row i by i + 1")
def uniform_causal_weights(n):
    return np.tril(np.ones((n, n))) / np.arange(1, n + 1)[None, :]


@_mistake("uniform_causal_weights", "divides every entry by n instead of row i by i + 1")
def uniform_causal_weights(n):
    return np.tril(np.ones((n, n))) / n


@_mistake("uniform_causal_weights", "divides row i by i instead of i + 1, and hides row 0's 0/0 with "
                                    "np.nan_to_num (row 0 becomes 0) — two slips")
def uniform_causal_weights(n):
    with np.errstate(divide="ignore", invalid="ignore"):
        A = np.tril(np.ones((n, n))) / np.arange(n)[:, None]
    return np.nan_to_num(A, nan=0.0, posinf=0.0)


@_mistake("uniform_causal_weights", "returns the transpose: upper-triangular, with columns (not rows) summing to 1")
def uniform_causal_weights(n):
    return (np.tril(np.ones((n, n))) / np.arange(1, n + 1)[:, None]).T


@_mistake("uniform_causal_weights", "uses integer floor division //, so every row after the first is all zeros")
def uniform_causal_weights(n):
    return np.tril(np.ones((n, n), dtype=int)) // np.arange(1, n + 1)[:, None]


@_mistake("uniform_causal_weights", "np.tril(..., k=-1) leaves out the diagonal, so row i covers columns 0..i-1 "
                                    "(row 0 is empty)")
def uniform_causal_weights(n):
    return np.tril(np.ones((n, n)), k=-1) / np.arange(1, n + 1)[:, None]


@_mistake("uniform_causal_weights", "normalises twice: applies a softmax to the finished average matrix, so the "
                                    "zeros above the diagonal get weight too")
def uniform_causal_weights(n):
    return _softmax(np.tril(np.ones((n, n))) / np.arange(1, n + 1)[:, None])


@_ok("uniform_causal_weights", "the softmax of the causal mask (every visible score equal)")
def uniform_causal_weights(n):
    return _softmax(np.triu(np.full((n, n), -np.inf), k=1))


@_ok("uniform_causal_weights", "a double loop filling 1/(i+1) for j <= i")
def uniform_causal_weights(n):
    A = np.zeros((n, n))
    for i in range(n):
        for j in range(i + 1):
            A[i, j] = 1.0 / (i + 1)
    return A


# =============================================================================
# 04 causal_average(V)

@_mistake("causal_average", "takes the running mean along the last axis (features) instead of axis 0 (tokens)")
def causal_average(V):
    return np.cumsum(V, axis=-1) / np.arange(1, V.shape[-1] + 1)


@_mistake("causal_average", "divides the running sums by n instead of by i + 1")
def causal_average(V):
    return np.cumsum(V, axis=0) / V.shape[0]


@_mistake("causal_average", "divides by np.arange(1, n + 1) as a row vector (no [:, None]), so column j is divided "
                            "by j + 1 (a broadcast error when n != d)")
def causal_average(V):
    return np.cumsum(V, axis=0) / np.arange(1, V.shape[0] + 1)


@_mistake("causal_average", "every row is the mean of all n rows (no causality)")
def causal_average(V):
    return np.tile(V.mean(axis=0), (V.shape[0], 1))


@_mistake("causal_average", "slices V[:i] (off by one), so row i averages rows 0..i-1 and row 0 is the mean of "
                            "nothing (NaN)")
def causal_average(V):
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return np.array([V[:i].mean(axis=0) for i in range(V.shape[0])])


@_mistake("causal_average", "computes the running mean in place into V (np.cumsum(out=V), V /= counts) and returns "
                            "V itself, overwriting the caller's array")
def causal_average(V):
    np.cumsum(V, axis=0, out=V)
    V /= np.arange(1, V.shape[0] + 1)[:, None]
    return V


@_mistake("causal_average", "mixes with the transposed weights Aᵀ V, so row i averages the future rows i..n-1 "
                            "with the wrong weights")
def causal_average(V):
    n = V.shape[0]
    A = np.tril(np.ones((n, n))) / np.arange(1, n + 1)[:, None]
    return A.T @ V


@_ok("causal_average", "A @ V with the lower-triangular uniform weights")
def causal_average(V):
    n = V.shape[0]
    return (np.tril(np.ones((n, n))) / np.arange(1, n + 1)[:, None]) @ V


@_ok("causal_average", "a loop: row i is V[:i + 1].mean(axis=0)")
def causal_average(V):
    return np.array([V[:i + 1].mean(axis=0) for i in range(V.shape[0])])


@_ok("causal_average", "np.add.accumulate over the rows divided by the counts")
def causal_average(V):
    return np.add.accumulate(V, axis=0) / np.arange(1, len(V) + 1).reshape(-1, 1)


# =============================================================================
# 05 similarity(Q, K)

@_mistake("similarity", "computes Qᵀ K (d, d), the column-vector product, instead of Q Kᵀ")
def similarity(Q, K):
    return Q.T @ K


@_mistake("similarity", "returns K Qᵀ, the transpose, shape (n_k, n_q)")
def similarity(Q, K):
    return K @ Q.T


@_mistake("similarity", "np.einsum('id,id->i') pairs query i only with key i (the diagonal), shape (n_q,)")
def similarity(Q, K):
    return np.einsum("id,id->i", Q, K)


@_mistake("similarity", "divides by sqrt(d) although the scores must be raw and unscaled")
def similarity(Q, K):
    return Q @ K.T / np.sqrt(Q.shape[1])


@_mistake("similarity", "computes the cosine similarity (normalises each query and key) instead of the raw dot product")
def similarity(Q, K):
    Qn = Q / np.linalg.norm(Q, axis=1, keepdims=True)
    Kn = K / np.linalg.norm(K, axis=1, keepdims=True)
    return Qn @ Kn.T


@_mistake("similarity", "special-cases a single query with (Q * K).sum(axis=1), returning (n_k,) instead of (1, n_k)")
def similarity(Q, K):
    if Q.shape[0] == 1:
        return (Q * K).sum(axis=1)
    return Q @ K.T


@_ok("similarity", "np.einsum('id,jd->ij')")
def similarity(Q, K):
    return np.einsum("id,jd->ij", Q, K)


@_ok("similarity", "broadcast product (Q[:, None, :] * K[None, :, :]).sum(axis=-1)")
def similarity(Q, K):
    return (Q[:, None, :] * K[None, :, :]).sum(axis=-1)


# =============================================================================
# 05 learned_scores(X, Wq, Wk)

@_mistake("learned_scores", "swaps Wq and Wk (queries from Wk, keys from Wq), returning the transpose of the scores")
def learned_scores(X, Wq, Wk):
    return (X @ Wk) @ (X @ Wq).T


@_mistake("learned_scores", "projects the keys with Wq too, giving the symmetric Q Qᵀ")
def learned_scores(X, Wq, Wk):
    Q = X @ Wq
    return Q @ Q.T


@_mistake("learned_scores", "forgets the final Xᵀ: returns X Wq Wkᵀ, shape (n, d_model)")
def learned_scores(X, Wq, Wk):
    return X @ Wq @ Wk.T


@_mistake("learned_scores", "divides the scores by sqrt(d) although no scaling is asked for yet")
def learned_scores(X, Wq, Wk):
    return (X @ Wq) @ (X @ Wk).T / np.sqrt(Wq.shape[1])


@_mistake("learned_scores", "computes Qᵀ K (d, d), the column-vector product, instead of Q Kᵀ (n, n)")
def learned_scores(X, Wq, Wk):
    return (X @ Wq).T @ (X @ Wk)


@_mistake("learned_scores", "adds a causal mask (-inf above the diagonal) although the scores must be unmasked")
def learned_scores(X, Wq, Wk):
    n = X.shape[0]
    return (X @ Wq) @ (X @ Wk).T + np.triu(np.full((n, n), -np.inf), k=1)


@_ok("learned_scores", "one chain X Wq Wkᵀ Xᵀ (the bilinear form)")
def learned_scores(X, Wq, Wk):
    return X @ (Wq @ Wk.T) @ X.T


@_ok("learned_scores", "np.einsum('id,jd->ij') on the projections")
def learned_scores(X, Wq, Wk):
    return np.einsum("id,jd->ij", X @ Wq, X @ Wk)


# =============================================================================
# 06 causal_mask(n)

@_mistake("causal_mask", "np.triu with k=0 also masks the diagonal, so a token cannot see itself")
def causal_mask(n):
    return np.triu(np.full((n, n), -np.inf), k=0)


@_mistake("causal_mask", "np.triu with k=2 leaves position i + 1 visible (leaks one token of the future)")
def causal_mask(n):
    return np.triu(np.full((n, n), -np.inf), k=2)


@_mistake("causal_mask", "puts -inf below the diagonal (np.tril, k=-1): hides the past instead of the future")
def causal_mask(n):
    return np.tril(np.full((n, n), -np.inf), k=-1)


@_mistake("causal_mask", "returns a multiplicative 0/1 keep-mask (np.tril of ones) instead of the additive 0/-inf mask")
def causal_mask(n):
    return np.tril(np.ones((n, n)))


@_mistake("causal_mask", "uses -1e9 instead of -inf above the diagonal")
def causal_mask(n):
    return np.triu(np.full((n, n), -1e9), k=1)


@_mistake("causal_mask", "multiplies a 0/1 upper-triangular matrix by -inf, so the 0 entries become NaN (0 * -inf)")
def causal_mask(n):
    with np.errstate(invalid="ignore"):
        return np.triu(np.ones((n, n)), k=1) * -np.inf


@_ok("causal_mask", "np.where(j > i, -inf, 0.0) on broadcast index grids")
def causal_mask(n):
    i = np.arange(n)[:, None]
    j = np.arange(n)[None, :]
    return np.where(j > i, -np.inf, 0.0)


@_ok("causal_mask", "a double loop writing -inf where j > i into a float zeros array")
def causal_mask(n):
    M = np.zeros((n, n))
    for i in range(n):
        for j in range(i + 1, n):
            M[i, j] = -np.inf
    return M


# =============================================================================
# 06 softmax(S, axis=-1)

@_mistake("softmax", "does not subtract the max before np.exp, so scores around 1000 overflow to inf/NaN")
def softmax(S, axis=-1):
    E = np.exp(S)
    return E / E.sum(axis=axis, keepdims=True)


@_mistake("softmax", "sums without keepdims=True, so the sums broadcast along the wrong axis (wrong values for "
                     "square input, an error otherwise)")
def softmax(S, axis=-1):
    E = np.exp(S - S.max(axis=axis, keepdims=True))
    return E / E.sum(axis=axis)


@_mistake("softmax", "ignores the axis argument and always normalises along the last axis")
def softmax(S, axis=-1):
    E = np.exp(S - S.max(axis=-1, keepdims=True))
    return E / E.sum(axis=-1, keepdims=True)


@_mistake("softmax", "subtracts the global max S.max() instead of the max along axis, so a row far below it "
                     "underflows to 0/0 (NaN)")
def softmax(S, axis=-1):
    E = np.exp(S - S.max())
    return E / E.sum(axis=axis, keepdims=True)


@_mistake("softmax", "adds an eps of 1e-9 to every exponential 'for safety', so -inf entries get a small non-zero "
                     "weight instead of exactly 0")
def softmax(S, axis=-1):
    E = np.exp(S - S.max(axis=axis, keepdims=True)) + 1e-9
    return E / E.sum(axis=axis, keepdims=True)


@_mistake("softmax", "adds 1e-6 to the denominator 'for safety', so the entries no longer sum to 1")
def softmax(S, axis=-1):
    E = np.exp(S - S.max(axis=axis, keepdims=True))
    return E / (E.sum(axis=axis, keepdims=True) + 1e-6)


@_mistake("softmax", "clips the scores to [-50, 50] instead of subtracting the max: large scores saturate and "
                     "-inf becomes exp(-50) > 0")
def softmax(S, axis=-1):
    E = np.exp(np.clip(S, -50, 50))
    return E / E.sum(axis=axis, keepdims=True)


@_mistake("softmax", "hard-codes axis=1, which is the last axis only for 2-D input (wrong for 3-D S or axis=0)")
def softmax(S, axis=-1):
    E = np.exp(S - S.max(axis=1, keepdims=True))
    return E / E.sum(axis=1, keepdims=True)


@_mistake("softmax", "works in place on S (S -= max, np.exp(out=S), S /= sum) and returns it, overwriting the "
                     "caller's scores")
def softmax(S, axis=-1):
    S -= S.max(axis=axis, keepdims=True)
    np.exp(S, out=S)
    S /= S.sum(axis=axis, keepdims=True)
    return S


@_ok("softmax", "exp(S - logsumexp(S)) with the log-sum-exp taken after subtracting the max")
def softmax(S, axis=-1):
    m = S.max(axis=axis, keepdims=True)
    lse = m + np.log(np.exp(S - m).sum(axis=axis, keepdims=True))
    return np.exp(S - lse)


@_ok("softmax", "moves axis to the end, normalises the last axis, and moves it back")
def softmax(S, axis=-1):
    T = np.moveaxis(np.asarray(S, dtype=float), axis, -1)
    E = np.exp(T - T.max(axis=-1, keepdims=True))
    return np.moveaxis(E / E.sum(axis=-1, keepdims=True), -1, axis)


# =============================================================================
# 06 score_scale(d)

@_mistake("score_scale", "returns 1/d instead of 1/sqrt(d)")
def score_scale(d):
    return 1.0 / d


@_mistake("score_scale", "returns sqrt(d), the divisor, instead of its reciprocal 1/sqrt(d)")
def score_scale(d):
    return math.sqrt(d)


@_mistake("score_scale", "writes d ** -1/2, which precedence reads as (d ** -1) / 2 = 1/(2d)")
def score_scale(d):
    return d ** -1 / 2


@_mistake("score_scale", "uses floor division 1 // sqrt(d), which gives 0.0 for every d > 1")
def score_scale(d):
    return 1 // math.sqrt(d)


@_mistake("score_scale", "divides by sqrt(d - 1) (a Bessel-style correction): wrong for every d, and ZeroDivisionError "
                         "at d = 1")
def score_scale(d):
    return 1.0 / math.sqrt(d - 1)


@_mistake("score_scale", "measures the factor by simulation (1 / std of 20 000 sampled dot products) instead of "
                         "the exact 1/sqrt(d)")
def score_scale(d):
    rng = np.random.default_rng(0)
    dots = (rng.standard_normal((20_000, d)) * rng.standard_normal((20_000, d))).sum(axis=1)
    return float(1.0 / dots.std())


@_ok("score_scale", "d ** -0.5")
def score_scale(d):
    return float(d) ** -0.5


@_ok("score_scale", "math.sqrt(1 / d)")
def score_scale(d):
    return math.sqrt(1.0 / d)


# =============================================================================
# 06 attention_weights(Q, K, causal=True, scale=True)

@_mistake("attention_weights", "aligns the mask to the first positions (np.triu k=1 on the (n_q, n_k) scores) "
                               "instead of the last n_q, so with n_q < n_k the queries miss keys they may see")
def attention_weights(Q, K, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(Q.shape[1])
    if causal:
        S = S + np.triu(np.full(S.shape, -np.inf), k=1)
    return _softmax(S)


@_mistake("attention_weights", "divides the scores by d instead of sqrt(d)")
def attention_weights(Q, K, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / Q.shape[1]
    if causal:
        S = S + _mask(Q.shape[0], K.shape[0])
    return _softmax(S)


@_mistake("attention_weights", "scales by sqrt(K.shape[0]), the number of keys, instead of sqrt(d)")
def attention_weights(Q, K, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(K.shape[0])
    if causal:
        S = S + _mask(Q.shape[0], K.shape[0])
    return _softmax(S)


@_mistake("attention_weights", "takes the softmax over axis 0 (each column sums to 1) instead of each row")
def attention_weights(Q, K, causal=True, scale=True):
    S = _scores(Q, K, scale)
    if causal:
        S = S + _mask(Q.shape[0], K.shape[0])
    return _softmax(S, axis=0)


@_mistake("attention_weights", "swaps the two flags: causal decides the scaling and scale decides the mask")
def attention_weights(Q, K, causal=True, scale=True):
    S = _scores(Q, K, causal)
    if scale:
        S = S + _mask(Q.shape[0], K.shape[0])
    return _softmax(S)


@_mistake("attention_weights", "zeros the future weights after an unmasked softmax instead of masking the scores "
                               "before it, so the rows no longer sum to 1")
def attention_weights(Q, K, causal=True, scale=True):
    A = _softmax(_scores(Q, K, scale))
    if causal:
        A = A * np.isfinite(_mask(Q.shape[0], K.shape[0]))
    return A


@_mistake("attention_weights", "wrong default scale=False in the signature: called with the defaults, it does not "
                               "divide by sqrt(d)")
def attention_weights(Q, K, causal=True, scale=False):
    S = _scores(Q, K, scale)
    if causal:
        S = S + _mask(Q.shape[0], K.shape[0])
    return _softmax(S)


@_ok("attention_weights", "np.einsum scores and np.where on index grids with the offset n_k - n_q")
def attention_weights(Q, K, causal=True, scale=True):
    S = np.einsum("id,jd->ij", Q, K) * ((1.0 / math.sqrt(Q.shape[1])) if scale else 1.0)
    if causal:
        n_q, n_k = S.shape
        i = np.arange(n_q)[:, None] + (n_k - n_q)
        S = np.where(np.arange(n_k)[None, :] > i, -np.inf, S)
    E = np.exp(S - S.max(axis=1, keepdims=True))
    return E / E.sum(axis=1, keepdims=True)


@_ok("attention_weights", "one query at a time: softmax over its visible keys only, zeros after")
def attention_weights(Q, K, causal=True, scale=True):
    n_q, n_k = Q.shape[0], K.shape[0]
    A = np.zeros((n_q, n_k))
    for i in range(n_q):
        seen = n_k - n_q + i + 1 if causal else n_k
        s = K[:seen] @ Q[i]
        if scale:
            s = s / math.sqrt(Q.shape[1])
        e = np.exp(s - s.max())
        A[i, :seen] = e / e.sum()
    return A


# =============================================================================
# 07 attention(Q, K, V, causal=True, scale=True)

@_mistake("attention", "aligns the causal mask to the first positions (np.triu k=1) instead of the last n_q, so with "
                       "n_q < n_k the queries ignore keys they may see")
def attention(Q, K, V, causal=True, scale=True):
    S = _scores(Q, K, scale)
    if causal:
        S = S + np.triu(np.full(S.shape, -np.inf), k=1)
    return _softmax(S) @ V


@_mistake("attention", "divides the weights by sqrt(d) after the softmax instead of dividing the scores before it")
def attention(Q, K, V, causal=True, scale=True):
    S = Q @ K.T
    if causal:
        S = S + _mask(Q.shape[0], K.shape[0])
    A = _softmax(S)
    if scale:
        A = A / np.sqrt(Q.shape[1])
    return A @ V


@_mistake("attention", "never divides by sqrt(d): ignores scale=True")
def attention(Q, K, V, causal=True, scale=True):
    S = Q @ K.T
    if causal:
        S = S + _mask(Q.shape[0], K.shape[0])
    return _softmax(S) @ V


@_mistake("attention", "scales by sqrt(V.shape[1]) (d_v) instead of sqrt(d), Q's width")
def attention(Q, K, V, causal=True, scale=True):
    S = Q @ K.T
    if scale:
        S = S / np.sqrt(V.shape[1])
    if causal:
        S = S + _mask(Q.shape[0], K.shape[0])
    return _softmax(S) @ V


@_mistake("attention", "np.einsum('ij,id->jd', A, V) contracts over the queries: computes Aᵀ V instead of A V")
def attention(Q, K, V, causal=True, scale=True):
    A = _weights(Q, K, causal, scale)
    return np.einsum("ij,id->jd", A, V)


@_mistake("attention", "softmax without subtracting the max: large scores overflow to NaN")
def attention(Q, K, V, causal=True, scale=True):
    S = _scores(Q, K, scale)
    if causal:
        S = S + _mask(Q.shape[0], K.shape[0])
    E = np.exp(S)
    return (E / E.sum(axis=1, keepdims=True)) @ V


@_mistake("attention", "wrong default causal=False in the signature: called with the defaults, the future is not masked")
def attention(Q, K, V, causal=False, scale=True):
    return _attention(Q, K, V, causal, scale)


@_ok("attention", "one query at a time over its visible keys (the cache view), stacking the output rows")
def attention(Q, K, V, causal=True, scale=True):
    n_q, n_k = Q.shape[0], K.shape[0]
    rows = []
    for i in range(n_q):
        seen = n_k - n_q + i + 1 if causal else n_k
        s = K[:seen] @ Q[i] / (math.sqrt(Q.shape[1]) if scale else 1.0)
        e = np.exp(s - s.max())
        rows.append(e @ V[:seen] / e.sum())
    return np.array(rows).reshape(n_q, V.shape[1])


@_ok("attention", "divides E V by the row sums at the end instead of normalising A first")
def attention(Q, K, V, causal=True, scale=True):
    S = _scores(Q, K, scale)
    if causal:
        S = S + _mask(Q.shape[0], K.shape[0])
    E = np.exp(S - S.max(axis=1, keepdims=True))
    return (E @ V) / E.sum(axis=1, keepdims=True)


# =============================================================================
# 07 self_attention(X, Wq, Wk, Wv, Wo=None, causal=True)

@_mistake("self_attention", "tests `if Wo:` on an array, which raises ValueError (ambiguous truth value) whenever "
                            "Wo is given")
def self_attention(X, Wq, Wk, Wv, Wo=None, causal=True):
    O = _attention(X @ Wq, X @ Wk, X @ Wv, causal)
    if Wo:
        O = O @ Wo
    return O


@_mistake("self_attention", "swaps the similarly named Wk and Wv: keys from Wv and values from Wk")
def self_attention(X, Wq, Wk, Wv, Wo=None, causal=True):
    O = _attention(X @ Wq, X @ Wv, X @ Wk, causal)
    return O if Wo is None else O @ Wo


@_mistake("self_attention", "never passes causal on, so causal=False still masks the future")
def self_attention(X, Wq, Wk, Wv, Wo=None, causal=True):
    O = _attention(X @ Wq, X @ Wk, X @ Wv)
    return O if Wo is None else O @ Wo


@_mistake("self_attention", "scales by sqrt(d_model), X's width, instead of sqrt(d_head)")
def self_attention(X, Wq, Wk, Wv, Wo=None, causal=True):
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    S = Q @ K.T / np.sqrt(X.shape[1])
    if causal:
        S = S + _mask(len(Q), len(K))
    O = _softmax(S) @ V
    return O if Wo is None else O @ Wo


@_mistake("self_attention", "adds a residual X + ... to the output (a block's job, not the head's)")
def self_attention(X, Wq, Wk, Wv, Wo=None, causal=True):
    O = _attention(X @ Wq, X @ Wk, X @ Wv, causal)
    return X + (O if Wo is None else O @ Wo)


@_mistake("self_attention", "multiplies by Wo.T (column-vector convention) instead of Wo")
def self_attention(X, Wq, Wk, Wv, Wo=None, causal=True):
    O = _attention(X @ Wq, X @ Wk, X @ Wv, causal)
    return O if Wo is None else O @ Wo.T


@_mistake("self_attention", "builds the mask with np.triu k=0, hiding each token from itself")
def self_attention(X, Wq, Wk, Wv, Wo=None, causal=True):
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    S = Q @ K.T / np.sqrt(Q.shape[1])
    if causal:
        S = S + np.triu(np.full(S.shape, -np.inf), k=0)
    with np.errstate(invalid="ignore"):
        O = _softmax(S) @ V
    return O if Wo is None else O @ Wo


@_ok("self_attention", "folds Wo into the values first: A (X Wv Wo), which equals (A X Wv) Wo")
def self_attention(X, Wq, Wk, Wv, Wo=None, causal=True):
    V = X @ Wv if Wo is None else X @ (Wv @ Wo)
    return _attention(X @ Wq, X @ Wk, V, causal)


@_ok("self_attention", "einsum scores and an explicit boolean mask")
def self_attention(X, Wq, Wk, Wv, Wo=None, causal=True):
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    S = np.einsum("id,jd->ij", Q, K) / math.sqrt(Q.shape[1])
    if causal:
        S[np.triu(np.ones(S.shape, dtype=bool), k=1)] = -np.inf
    O = _softmax(S) @ V
    return O @ Wo if Wo is not None else O


# =============================================================================
# 07 future_leak(attn, X)

def _leak_changes(attn, X, j, base, amount=1.0):
    moved = X.copy()
    moved[j] += amount
    return np.abs(np.asarray(attn(moved), dtype=float).reshape(len(X), -1) - base).max(axis=1)


def _leak_base(attn, X):
    base = np.asarray(attn(X), dtype=float).reshape(len(X), -1)
    return base, 1e-9 * max(1.0, float(np.abs(base).max()))


@_mistake("future_leak", "forgets .copy(): moves the rows of X itself, so the caller's X is mutated and every later "
                         "probe also carries the earlier moves")
def future_leak(attn, X):
    base, tol = _leak_base(attn, X)
    worst = 0
    for j in range(len(X)):
        moved = X
        moved[j] += 1.0
        change = np.abs(np.asarray(attn(moved), dtype=float).reshape(len(X), -1) - base).max(axis=1)
        for i in range(j):
            if change[i] > tol:
                worst = max(worst, j - i)
    return worst


@_mistake("future_leak", "returns the smallest leak distance found instead of the largest")
def future_leak(attn, X):
    base, tol = _leak_base(attn, X)
    found = []
    for j in range(len(X)):
        change = _leak_changes(attn, X, j, base)
        found += [j - i for i in range(j) if change[i] > tol]
    return min(found) if found else 0


@_mistake("future_leak", "counts the leaking (row, future row) pairs instead of returning the farthest distance")
def future_leak(attn, X):
    base, tol = _leak_base(attn, X)
    count = 0
    for j in range(len(X)):
        change = _leak_changes(attn, X, j, base)
        count += sum(1 for i in range(j) if change[i] > tol)
    return count


@_mistake("future_leak", "uses an absolute threshold of 1e-9 instead of 1e-9 times the largest output, so rounding "
                         "noise on large outputs counts as a leak")
def future_leak(attn, X):
    base, _ = _leak_base(attn, X)
    worst = 0
    for j in range(len(X)):
        change = _leak_changes(attn, X, j, base)
        for i in range(j):
            if change[i] > 1e-9:
                worst = max(worst, j - i)
    return worst


@_mistake("future_leak", "uses a loose threshold of 1e-3, missing a future token that gets only a tiny weight")
def future_leak(attn, X):
    base, _ = _leak_base(attn, X)
    worst = 0
    for j in range(len(X)):
        change = _leak_changes(attn, X, j, base)
        for i in range(j):
            if change[i] > 1e-3 * max(1.0, float(np.abs(base).max())):
                worst = max(worst, j - i)
    return worst


@_mistake("future_leak", "only tests whether row i sees row i + 1 and returns 1 for any leak, never measuring "
                         "farther distances")
def future_leak(attn, X):
    base, tol = _leak_base(attn, X)
    for j in range(1, len(X)):
        if _leak_changes(attn, X, j, base)[j - 1] > tol:
            return 1
    return 0


@_mistake("future_leak", "never moves the last row (range(len(X) - 1)), missing leaks into it")
def future_leak(attn, X):
    base, tol = _leak_base(attn, X)
    worst = 0
    for j in range(len(X) - 1):
        change = _leak_changes(attn, X, j, base)
        for i in range(j):
            if change[i] > tol:
                worst = max(worst, j - i)
    return worst


@_mistake("future_leak", "counts the distance inclusively, returning j - i + 1 instead of j - i")
def future_leak(attn, X):
    base, tol = _leak_base(attn, X)
    worst = 0
    for j in range(len(X)):
        change = _leak_changes(attn, X, j, base)
        for i in range(j):
            if change[i] > tol:
                worst = max(worst, j - i + 1)
    return worst


@_ok("future_leak", "vectorised: the first leaking row for each moved row, via np.flatnonzero")
def future_leak(attn, X):
    base = np.asarray(attn(X), dtype=float).reshape(len(X), -1)
    tol = 1e-9 * max(1.0, float(np.abs(base).max()))
    worst = 0
    for j in range(len(X)):
        moved = X.copy()
        moved[j] = moved[j] + 1.0
        changed = np.flatnonzero(np.abs(np.asarray(attn(moved), dtype=float).reshape(len(X), -1) - base)
                                 .max(axis=1) > tol)
        earlier = changed[changed < j]
        if earlier.size:
            worst = max(worst, j - int(earlier.min()))
    return int(worst)


@_ok("future_leak", "tries the distances from the largest down and returns the first that leaks")
def future_leak(attn, X):
    n = len(X)
    base, tol = _leak_base(attn, X)
    changes = [_leak_changes(attn, X, j, base) for j in range(n)]
    for k in range(n - 1, 0, -1):
        if any(changes[i + k][i] > tol for i in range(n - k)):
            return k
    return 0


# =============================================================================
# 07 tiled_attention(Q, K, V, causal=True, block=64)

def _tiled_core(Q, K, V, causal=True, block=64, rescale_l=True, rescale_acc=True, divide_each_tile=False,
                offset_in_mask=True, offset_in_range=True, scale=True, inverted=False, strip=False):
    n_q, n_k = Q.shape[0], K.shape[0]
    offset = n_k - n_q
    s = 1.0 / math.sqrt(Q.shape[1]) if scale else 1.0
    O = np.empty((n_q, V.shape[1]))
    step = n_k if strip else block
    for q0 in range(0, n_q, block):
        Qb = Q[q0:q0 + block] * s
        bq = Qb.shape[0]
        m = np.full((bq, 1), -np.inf)
        l = np.zeros((bq, 1))
        acc = np.zeros((bq, V.shape[1]))
        k_end = (min(n_k, (offset if offset_in_range else 0) + q0 + bq) if causal else n_k)
        for k0 in range(0, k_end, step):
            S = Qb @ K[k0:k0 + step].T
            if causal:
                pos = (offset if offset_in_mask else 0) + q0 + np.arange(bq)[:, None]
                S = np.where(k0 + np.arange(S.shape[1])[None, :] > pos, -np.inf, S)
            m_new = np.maximum(m, S.max(axis=1, keepdims=True))
            P = np.exp(S - m_new)
            with np.errstate(invalid="ignore", over="ignore"):
                r = np.exp(m_new - m) if inverted else np.exp(m - m_new)
            with np.errstate(invalid="ignore"):
                l = (l * r if rescale_l else l) + P.sum(axis=1, keepdims=True)
                acc = (acc * r if rescale_acc else acc) + P @ V[k0:k0 + step]
            if divide_each_tile:
                acc = acc / l
                l = np.ones_like(l)
            m = m_new
        O[q0:q0 + bq] = acc / l
    return O


@_mistake("tiled_attention", "never rescales l and acc by exp(m_old - m_new) when a tile raises the running max")
def tiled_attention(Q, K, V, causal=True, block=64):
    return _tiled_core(Q, K, V, causal, block, rescale_l=False, rescale_acc=False)


@_mistake("tiled_attention", "rescales the running sum l but not the running output acc when the max rises")
def tiled_attention(Q, K, V, causal=True, block=64):
    return _tiled_core(Q, K, V, causal, block, rescale_acc=False)


@_mistake("tiled_attention", "divides acc by l after every tile (normalising repeatedly) instead of once at the end")
def tiled_attention(Q, K, V, causal=True, block=64):
    return _tiled_core(Q, K, V, causal, block, divide_each_tile=True)


@_mistake("tiled_attention", "places query i at position q0 + i in the mask, ignoring the n_k - n_q offset, so with "
                             "fewer queries than keys they miss keys they may see")
def tiled_attention(Q, K, V, causal=True, block=64):
    return _tiled_core(Q, K, V, causal, block, offset_in_mask=False)


@_mistake("tiled_attention", "stops walking the keys at q0 + block (forgets the n_k - n_q offset in the loop bound), "
                             "so with fewer queries than keys the last keys are never visited")
def tiled_attention(Q, K, V, causal=True, block=64):
    return _tiled_core(Q, K, V, causal, block, offset_in_range=False)


@_mistake("tiled_attention", "forgets to scale the queries by 1/sqrt(d)")
def tiled_attention(Q, K, V, causal=True, block=64):
    return _tiled_core(Q, K, V, causal, block, scale=False)


@_mistake("tiled_attention", "rescales by exp(m_new - m_old), the inverted sign, instead of exp(m_old - m_new)")
def tiled_attention(Q, K, V, causal=True, block=64):
    return _tiled_core(Q, K, V, causal, block, inverted=True)


@_mistake("tiled_attention", "scores each query block against every key at once (a (block, n_k) strip): the right "
                             "values, but over the memory limit of one (block, block) tile")
def tiled_attention(Q, K, V, causal=True, block=64):
    return _tiled_core(Q, K, V, causal, block, strip=True)


@_mistake("tiled_attention", "computes the whole (n_q, n_k) score matrix and an ordinary softmax: the right values, "
                             "but it holds the full score matrix the exercise forbids")
def tiled_attention(Q, K, V, causal=True, block=64):
    return _attention(Q, K, V, causal)


@_ok("tiled_attention", "walks every key tile (no early stop), masking the fully-future tiles to -inf")
def tiled_attention(Q, K, V, causal=True, block=64):
    n_q, n_k = Q.shape[0], K.shape[0]
    off = n_k - n_q
    O = np.empty((n_q, V.shape[1]))
    for q0 in range(0, n_q, block):
        Qb = Q[q0:q0 + block] / math.sqrt(Q.shape[1])
        bq = len(Qb)
        m = np.full(bq, -np.inf)
        l = np.zeros(bq)
        acc = np.zeros((bq, V.shape[1]))
        for k0 in range(0, n_k, block):
            S = Qb @ K[k0:k0 + block].T
            if causal:
                keys = k0 + np.arange(S.shape[1])
                S[keys[None, :] > (off + q0 + np.arange(bq))[:, None]] = -np.inf
            m_new = np.maximum(m, S.max(axis=1))
            P = np.exp(S - m_new[:, None])
            c = np.exp(m - m_new)
            l = l * c + P.sum(axis=1)
            acc = acc * c[:, None] + P @ V[k0:k0 + block]
            m = m_new
        O[q0:q0 + bq] = acc / l[:, None]
    return O


# =============================================================================
# 08 embed(tokens, tok_emb, pos_emb)

@_mistake("embed", "looks the position vectors up by token id (pos_emb[tokens]) instead of by position 0..n-1")
def embed(tokens, tok_emb, pos_emb):
    return tok_emb[tokens] + pos_emb[tokens]


@_mistake("embed", "uses positions 1..n (1-based, pos_emb[1:n + 1]) instead of 0..n-1")
def embed(tokens, tok_emb, pos_emb):
    n = len(tokens)
    return tok_emb[tokens] + pos_emb[1:n + 1]


@_mistake("embed", "takes the last n rows of pos_emb (pos_emb[-n:]) instead of the first n")
def embed(tokens, tok_emb, pos_emb):
    return tok_emb[tokens] + pos_emb[-len(tokens):]


@_mistake("embed", "adds the whole pos_emb table, which only works when max_len == n (a broadcast error otherwise)")
def embed(tokens, tok_emb, pos_emb):
    return tok_emb[tokens] + pos_emb


@_mistake("embed", "adds into pos_emb[:n], a view, so the caller's pos_emb is modified in place (and returned)")
def embed(tokens, tok_emb, pos_emb):
    X = pos_emb[:len(tokens)]
    X += tok_emb[tokens]
    return X


@_mistake("embed", "concatenates the position vectors to the word vectors (n, 2 d_model) instead of adding them")
def embed(tokens, tok_emb, pos_emb):
    return np.concatenate([tok_emb[tokens], pos_emb[:len(tokens)]], axis=1)


@_mistake("embed", "multiplies the word vectors by sqrt(d_model), as the original paper's embedding layer does")
def embed(tokens, tok_emb, pos_emb):
    return tok_emb[tokens] * math.sqrt(tok_emb.shape[1]) + pos_emb[:len(tokens)]


@_ok("embed", "a one-hot matrix times tok_emb, plus the first n position rows")
def embed(tokens, tok_emb, pos_emb):
    n = len(tokens)
    onehot = np.zeros((n, tok_emb.shape[0]))
    onehot[np.arange(n), tokens] = 1.0
    return onehot @ tok_emb + pos_emb[:n]


@_ok("embed", "a loop building each row as tok_emb[t] + pos_emb[i]")
def embed(tokens, tok_emb, pos_emb):
    return np.array([tok_emb[t] + pos_emb[i] for i, t in enumerate(tokens)]).reshape(len(tokens), tok_emb.shape[1])


# =============================================================================
# 08 sinusoidal_positions(n, d)

def _sin_table(n, d, first=0, expo=2.0, base_log=math.log(10000.0), interleave=True, swap=False, own_index=False):
    t = np.arange(first, first + n)[:, None].astype(float)
    i = np.arange(d // 2)[None, :]
    if own_index:
        ev = t / np.exp(np.arange(0, d, 2)[None, :] / d * base_log)
        od = t / np.exp(np.arange(1, d, 2)[None, :] / d * base_log)
    else:
        ev = od = t / np.exp(expo * i / d * base_log)
    s, c = np.sin(ev), np.cos(od)
    if swap:
        s, c = np.cos(ev), np.sin(od)
    if not interleave:
        return np.concatenate([s, c], axis=1)
    P = np.empty((n, d))
    P[:, 0::2], P[:, 1::2] = s, c
    return P


@_mistake("sinusoidal_positions", "puts all the sines in the first half of the columns and all the cosines in the second "
                                  "(the tensor2tensor layout) instead of interleaving them in pairs")
def sinusoidal_positions(n, d):
    return _sin_table(n, d, interleave=False)


@_mistake("sinusoidal_positions", "uses 10000^(i/d) instead of 10000^(2i/d) for pair i")
def sinusoidal_positions(n, d):
    return _sin_table(n, d, expo=1.0)


@_mistake("sinusoidal_positions", "counts the positions from 1 (t = 1..n) instead of 0")
def sinusoidal_positions(n, d):
    return _sin_table(n, d, first=1)


@_mistake("sinusoidal_positions", "puts each column's own index j in the exponent (10000^(j/d)), so the cosine column "
                                  "2i + 1 uses (2i + 1)/d instead of 2i/d")
def sinusoidal_positions(n, d):
    return _sin_table(n, d, own_index=True)


@_mistake("sinusoidal_positions", "swaps sine and cosine: cosines on the even columns, sines on the odd ones")
def sinusoidal_positions(n, d):
    return _sin_table(n, d, swap=True)


@_mistake("sinusoidal_positions", "in the exp form of the frequencies uses log10(10000) = 4 where the natural log "
                                  "ln(10000) belongs")
def sinusoidal_positions(n, d):
    return _sin_table(n, d, base_log=math.log10(10000.0))


@_mistake("sinusoidal_positions", "computes the exponent 2 * i // d with integer floor division, so every pair gets "
                                  "frequency 1 (one radian per position)")
def sinusoidal_positions(n, d):
    t = np.arange(n)[:, None]
    i = np.arange(d // 2)[None, :]
    angle = t / 10000 ** (2 * i // d)
    P = np.zeros((n, d))
    P[:, 0::2], P[:, 1::2] = np.sin(angle), np.cos(angle)
    return P


@_ok("sinusoidal_positions", "the PyTorch-tutorial form: div_term = exp(arange(0, d, 2) * -ln(10000) / d)")
def sinusoidal_positions(n, d):
    pos = np.arange(n, dtype=float)[:, None]
    div = np.exp(np.arange(0, d, 2) * (-math.log(10000.0) / d))
    P = np.zeros((n, d))
    P[:, 0::2] = np.sin(pos * div)
    P[:, 1::2] = np.cos(pos * div)
    return P


@_ok("sinusoidal_positions", "a double loop with math.sin / math.cos and 10000 ** (2i/d)")
def sinusoidal_positions(n, d):
    P = np.zeros((n, d))
    for t in range(n):
        for i in range(d // 2):
            a = t / 10000 ** (2 * i / d)
            P[t, 2 * i] = math.sin(a)
            P[t, 2 * i + 1] = math.cos(a)
    return P


# =============================================================================
# 09 split_heads(M, n_heads)

@_mistake("split_heads", "reshapes M straight to (n_heads, n, d_head), which scrambles rows and columns across heads")
def split_heads(M, n_heads):
    n, d_model = M.shape
    return M.reshape(n_heads, n, d_model // n_heads)


@_mistake("split_heads", "gives head h every n_heads-th column (reshape (n, d_head, n_heads)) instead of a "
                         "contiguous block")
def split_heads(M, n_heads):
    n, d_model = M.shape
    return M.reshape(n, d_model // n_heads, n_heads).transpose(2, 0, 1)


@_mistake("split_heads", "returns (n, n_heads, d_head): reshapes but never moves the head axis to the front")
def split_heads(M, n_heads):
    n, d_model = M.shape
    return M.reshape(n, n_heads, d_model // n_heads)


@_mistake("split_heads", "splits along the rows (np.split axis=0) instead of the columns")
def split_heads(M, n_heads):
    return np.stack(np.split(M, n_heads, axis=0))


@_mistake("split_heads", "treats n_heads as the head width: returns d_model / n_heads heads of n_heads columns each")
def split_heads(M, n_heads):
    n = M.shape[0]
    return M.reshape(n, -1, n_heads).transpose(1, 0, 2)


@_mistake("split_heads", "reshapes M in place by assigning M.shape, changing the caller's array's shape")
def split_heads(M, n_heads):
    n, d_model = M.shape
    M.shape = (n, n_heads, d_model // n_heads)
    return M.transpose(1, 0, 2)


@_mistake("split_heads", "slices M[:, h*d_head:(h+1)*d_head - 1] (the inclusive end of the text used as an exclusive "
                         "bound), dropping each head's last column")
def split_heads(M, n_heads):
    d_head = M.shape[1] // n_heads
    return np.stack([M[:, h * d_head:(h + 1) * d_head - 1] for h in range(n_heads)])


@_ok("split_heads", "stacks the column slices M[:, h*d_head:(h+1)*d_head]")
def split_heads(M, n_heads):
    d_head = M.shape[1] // n_heads
    return np.stack([M[:, h * d_head:(h + 1) * d_head] for h in range(n_heads)])


@_ok("split_heads", "np.split along axis 1, then np.stack (a fresh copy)")
def split_heads(M, n_heads):
    return np.stack(np.split(M, n_heads, axis=1))


# =============================================================================
# 09 multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, causal=True)

def _mha_core(X, Wq, Wk, Wv, Wo, n_heads, causal=True, scale_width=None, strided=False, use_wo=True,
              pass_causal=True):
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    dh, dv = Q.shape[1] // n_heads, V.shape[1] // n_heads
    heads = []
    for h in range(n_heads):
        if strided:
            cq, cv = slice(h, None, n_heads), slice(h, None, n_heads)
        else:
            cq, cv = slice(h * dh, (h + 1) * dh), slice(h * dv, (h + 1) * dv)
        S = Q[:, cq] @ K[:, cq].T / math.sqrt(scale_width or dh)
        if causal or not pass_causal:
            S = S + _mask(len(X), len(X))
        heads.append(_softmax(S) @ V[:, cv])
    O = np.concatenate(heads, axis=1)
    return O @ Wo if use_wo else O


@_mistake("multi_head_attention", "scales every head by sqrt(n_heads * d_head), the full width, instead of sqrt(d_head)")
def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    return _mha_core(X, Wq, Wk, Wv, Wo, n_heads, causal, scale_width=Wq.shape[1])


@_mistake("multi_head_attention", "gives head h every n_heads-th column (strided) instead of the contiguous block "
                                  "h*d_head:(h+1)*d_head")
def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    return _mha_core(X, Wq, Wk, Wv, Wo, n_heads, causal, strided=True)


@_mistake("multi_head_attention", "forgets the output projection Wo: returns the concatenated heads")
def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    return _mha_core(X, Wq, Wk, Wv, Wo, n_heads, causal, use_wo=False)


@_mistake("multi_head_attention", "does not pass causal to the heads, so causal=False still masks the future")
def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    return _mha_core(X, Wq, Wk, Wv, Wo, n_heads, causal, pass_causal=False)


@_mistake("multi_head_attention", "runs one attention over all the columns (no split into heads), scaled by sqrt(d_head)")
def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    S = Q @ K.T / math.sqrt(Q.shape[1] // n_heads)
    if causal:
        S = S + _mask(len(X), len(X))
    return (_softmax(S) @ V) @ Wo


@_mistake("multi_head_attention", "builds the heads as lambdas in a loop; late binding of h makes every head use the "
                                  "last head's columns")
def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    dh = Q.shape[1] // n_heads
    heads = []
    for h in range(n_heads):
        heads.append(lambda: _attention(Q[:, h * dh:(h + 1) * dh], K[:, h * dh:(h + 1) * dh],
                                        V[:, h * dh:(h + 1) * dh], causal))
    return np.concatenate([f() for f in heads], axis=1) @ Wo


@_mistake("multi_head_attention", "computes d_head from X's width (d_model // n_heads) instead of the projections' "
                                  "width, so the heads get the wrong columns when n_heads * d_head != d_model")
def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    dh = X.shape[1] // n_heads
    heads = [_attention(Q[:, h * dh:(h + 1) * dh], K[:, h * dh:(h + 1) * dh], V[:, h * dh:(h + 1) * dh], causal)
             for h in range(n_heads)]
    return np.concatenate(heads, axis=1) @ Wo


@_ok("multi_head_attention", "batched over heads with einsum on (n_heads, n, d_head) arrays")
def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    n = X.shape[0]
    Q, K, V = (np.moveaxis((X @ W).reshape(n, n_heads, -1), 1, 0) for W in (Wq, Wk, Wv))
    S = np.einsum("hid,hjd->hij", Q, K) / math.sqrt(Q.shape[-1])
    if causal:
        S = S + _mask(n, n)
    A = _softmax(S, axis=-1)
    O = np.einsum("hij,hjd->ihd", A, V).reshape(n, -1)
    return O @ Wo


@_ok("multi_head_attention", "sums each head's output times its own block of Wo rows instead of concatenating first")
def multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, causal=True):
    dh = Wq.shape[1] // n_heads
    dv = Wv.shape[1] // n_heads
    out = 0.0
    for h in range(n_heads):
        c, cv = slice(h * dh, (h + 1) * dh), slice(h * dv, (h + 1) * dv)
        out = out + _attention(X @ Wq[:, c], X @ Wk[:, c], X @ Wv[:, cv], causal) @ Wo[cv]
    return out


# =============================================================================
# 10 layer_norm(X, g, b, eps=1e-5)

@_mistake("layer_norm", "puts eps outside the square root: (X - mean) / (sqrt(var) + eps)")
def layer_norm(X, g, b, eps=1e-5):
    mean = X.mean(axis=1, keepdims=True)
    return (X - mean) / (X.std(axis=1, keepdims=True) + eps) * g + b


@_mistake("layer_norm", "uses the unbiased variance (ddof=1, dividing by d - 1) instead of the biased one")
def layer_norm(X, g, b, eps=1e-5):
    mean = X.mean(axis=1, keepdims=True)
    return (X - mean) / np.sqrt(X.var(axis=1, ddof=1, keepdims=True) + eps) * g + b


@_mistake("layer_norm", "normalises each column (axis 0, over the tokens) instead of each row")
def layer_norm(X, g, b, eps=1e-5):
    mean = X.mean(axis=0, keepdims=True)
    return (X - mean) / np.sqrt(X.var(axis=0, keepdims=True) + eps) * g + b


@_mistake("layer_norm", "ignores eps: divides by the plain standard deviation (a constant row gives 0/0)")
def layer_norm(X, g, b, eps=1e-5):
    with np.errstate(invalid="ignore", divide="ignore"):
        return (X - X.mean(axis=1, keepdims=True)) / X.std(axis=1, keepdims=True) * g + b


@_mistake("layer_norm", "swaps g and b: multiplies by b and adds g")
def layer_norm(X, g, b, eps=1e-5):
    mean = X.mean(axis=1, keepdims=True)
    return (X - mean) / np.sqrt(X.var(axis=1, keepdims=True) + eps) * b + g


@_mistake("layer_norm", "centres X in place (X -= mean), modifying the caller's X")
def layer_norm(X, g, b, eps=1e-5):
    X -= X.mean(axis=1, keepdims=True)
    return X / np.sqrt((X ** 2).mean(axis=1, keepdims=True) + eps) * g + b


@_mistake("layer_norm", "uses mean(X²) (the RMSNorm statistic) as the variance instead of the variance about the mean")
def layer_norm(X, g, b, eps=1e-5):
    mean = X.mean(axis=1, keepdims=True)
    return (X - mean) / np.sqrt((X ** 2).mean(axis=1, keepdims=True) + eps) * g + b


@_mistake("layer_norm", "takes the row mean without keepdims, so it broadcasts across the columns (wrong for square "
                        "X, an error otherwise)")
def layer_norm(X, g, b, eps=1e-5):
    mean = X.mean(axis=1)
    var = ((X - mean) ** 2).mean(axis=1, keepdims=True)
    return (X - mean) / np.sqrt(var + eps) * g + b


@_ok("layer_norm", "multiplies by 1/sqrt(var + eps) computed with einsum on the centred rows")
def layer_norm(X, g, b, eps=1e-5):
    Xc = X - X.mean(axis=1, keepdims=True)
    var = np.einsum("ij,ij->i", Xc, Xc)[:, None] / X.shape[1]
    return Xc * (1.0 / np.sqrt(var + eps)) * g + b


@_ok("layer_norm", "a row-by-row loop with the statistics written out")
def layer_norm(X, g, b, eps=1e-5):
    out = np.empty(X.shape)
    for i, row in enumerate(X):
        mu = row.sum() / row.size
        var = ((row - mu) ** 2).sum() / row.size
        out[i] = (row - mu) / math.sqrt(var + eps) * g + b
    return out


# =============================================================================
# 10 gelu(X)

@_mistake("gelu", "uses the exact erf form 0.5 x (1 + erf(x / sqrt 2)) instead of the tanh approximation")
def gelu(X):
    X = np.asarray(X, dtype=float)
    return 0.5 * X * (1.0 + np.vectorize(math.erf)(X / math.sqrt(2.0)))


@_mistake("gelu", "applies 0.044715 to x instead of x³ inside the tanh")
def gelu(X):
    return 0.5 * X * (1.0 + np.tanh(math.sqrt(2 / math.pi) * (X + 0.044715 * X)))


@_mistake("gelu", "uses sqrt(2 pi) instead of sqrt(2 / pi)")
def gelu(X):
    return 0.5 * X * (1.0 + np.tanh(math.sqrt(2 * math.pi) * (X + 0.044715 * X ** 3)))


@_mistake("gelu", "uses the sigmoid approximation x * sigmoid(1.702 x) instead of the tanh formula")
def gelu(X):
    return X / (1.0 + np.exp(-1.702 * X))


@_mistake("gelu", "forgets the factor 0.5")
def gelu(X):
    return X * (1.0 + np.tanh(math.sqrt(2 / math.pi) * (X + 0.044715 * X ** 3)))


@_mistake("gelu", "computes x³ in place on an alias (cube = X; cube *= X * X), overwriting the caller's X and then "
                  "using x³ where x belongs")
def gelu(X):
    cube = X
    cube *= X * X
    return 0.5 * X * (1.0 + np.tanh(math.sqrt(2 / math.pi) * (X + 0.044715 * cube)))


@_mistake("gelu", "wraps the input in np.atleast_2d, so a 1-D or 0-D input comes back 2-D")
def gelu(X):
    X = np.atleast_2d(X)
    return 0.5 * X * (1.0 + np.tanh(math.sqrt(2 / math.pi) * (X + 0.044715 * X ** 3)))


@_ok("gelu", "the identity 0.5 (1 + tanh u) = 1 / (1 + exp(-2u)): x / (1 + exp(-2u))")
def gelu(X):
    X = np.asarray(X, dtype=float)
    u = math.sqrt(2 / math.pi) * (X + 0.044715 * np.power(X, 3))
    with np.errstate(over="ignore"):
        return X / (1.0 + np.exp(-2.0 * u))


@_ok("gelu", "math.tanh applied entry by entry with np.vectorize")
def gelu(X):
    c = math.sqrt(2 / math.pi)
    f = np.vectorize(lambda x: 0.5 * x * (1 + math.tanh(c * (x + 0.044715 * x * x * x))), otypes=[float])
    return f(np.asarray(X, dtype=float))


# =============================================================================
# 10 transformer_block(X, p, n_heads, causal=True)

def _ln1(X, p):
    return _layer_norm(X, p["ln1_g"], p["ln1_b"])


def _attn(H, p, n_heads, causal=True):
    return _mha(H, p["Wq"], p["Wk"], p["Wv"], p["Wo"], n_heads, causal)


@_mistake("transformer_block", "post-LN instead of pre-LN: normalises after each residual add, "
                               "Y = LN1(X + MHA(X)), Z = LN2(Y + MLP(Y))")
def transformer_block(X, p, n_heads, causal=True):
    Y = _layer_norm(X + _attn(X, p, n_heads, causal), p["ln1_g"], p["ln1_b"])
    return _layer_norm(Y + _mlp(Y, p), p["ln2_g"], p["ln2_b"])


@_mistake("transformer_block", "drops the residual around attention: Y = MHA(LN1(X)) instead of X + MHA(LN1(X))")
def transformer_block(X, p, n_heads, causal=True):
    Y = _attn(_ln1(X, p), p, n_heads, causal)
    return Y + _mlp(_layer_norm(Y, p["ln2_g"], p["ln2_b"]), p)


@_mistake("transformer_block", "uses ln1_g / ln1_b for the second layer norm too")
def transformer_block(X, p, n_heads, causal=True):
    Y = X + _attn(_ln1(X, p), p, n_heads, causal)
    return Y + _mlp(_layer_norm(Y, p["ln1_g"], p["ln1_b"]), p)


@_mistake("transformer_block", "feeds the MLP layer_norm(X) instead of layer_norm(Y)")
def transformer_block(X, p, n_heads, causal=True):
    Y = X + _attn(_ln1(X, p), p, n_heads, causal)
    return Y + _mlp(_layer_norm(X, p["ln2_g"], p["ln2_b"]), p)


@_mistake("transformer_block", "adds b1 after the GELU (gelu(H W1) + b1) instead of inside it")
def transformer_block(X, p, n_heads, causal=True):
    Y = X + _attn(_ln1(X, p), p, n_heads, causal)
    H = _layer_norm(Y, p["ln2_g"], p["ln2_b"])
    return Y + (_gelu(H @ p["W1"]) + p["b1"]) @ p["W2"] + p["b2"]


@_mistake("transformer_block", "does not pass causal to multi_head_attention, so causal=False still masks")
def transformer_block(X, p, n_heads, causal=True):
    Y = X + _attn(_ln1(X, p), p, n_heads)
    return Y + _mlp(_layer_norm(Y, p["ln2_g"], p["ln2_b"]), p)


@_mistake("transformer_block", "adds the attention output to the normalised input (LN1(X) + MHA(LN1(X))) instead of "
                               "to X")
def transformer_block(X, p, n_heads, causal=True):
    H = _ln1(X, p)
    Y = H + _attn(H, p, n_heads, causal)
    return Y + _mlp(_layer_norm(Y, p["ln2_g"], p["ln2_b"]), p)


@_mistake("transformer_block", "adds the attention output to X in place (X += ...), modifying the caller's X")
def transformer_block(X, p, n_heads, causal=True):
    X += _attn(_ln1(X, p), p, n_heads, causal)
    return X + _mlp(_layer_norm(X, p["ln2_g"], p["ln2_b"]), p)


@_ok("transformer_block", "the same pre-LN block with the MLP written inline and the residuals added last")
def transformer_block(X, p, n_heads, causal=True):
    a = _mha(_layer_norm(X, p["ln1_g"], p["ln1_b"]), p["Wq"], p["Wk"], p["Wv"], p["Wo"], n_heads, causal)
    Y = a + X
    h = _layer_norm(Y, p["ln2_g"], p["ln2_b"]) @ p["W1"] + p["b1"]
    h = 0.5 * h * (1 + np.tanh(math.sqrt(2 / math.pi) * (h + 0.044715 * h ** 3)))
    return (h @ p["W2"] + p["b2"]) + Y


# =============================================================================
# 11 next_token_logits(H, W_vocab)

@_mistake("next_token_logits", "uses the first row H[0] instead of the last row")
def next_token_logits(H, W_vocab):
    return H[0] @ W_vocab


@_mistake("next_token_logits", "returns the logits of every row, (n, vocab), instead of only the last row's (vocab,)")
def next_token_logits(H, W_vocab):
    return H @ W_vocab


@_mistake("next_token_logits", "applies a softmax, returning probabilities instead of raw logits")
def next_token_logits(H, W_vocab):
    return _softmax(H[-1] @ W_vocab)


@_mistake("next_token_logits", "pools the rows by their mean instead of taking the last row")
def next_token_logits(H, W_vocab):
    return H.mean(axis=0) @ W_vocab


@_mistake("next_token_logits", "slices H[-1:] and returns shape (1, vocab) instead of (vocab,)")
def next_token_logits(H, W_vocab):
    return H[-1:] @ W_vocab


@_mistake("next_token_logits", "takes H[-2], the second-to-last row (off by one; an IndexError for one row)")
def next_token_logits(H, W_vocab):
    return H[-2] @ W_vocab


@_ok("next_token_logits", "projects every row and keeps the last: (H @ W_vocab)[-1]")
def next_token_logits(H, W_vocab):
    return (H @ W_vocab)[-1]


@_ok("next_token_logits", "np.einsum('d,dv->v') on H[len(H) - 1]")
def next_token_logits(H, W_vocab):
    return np.einsum("d,dv->v", H[len(H) - 1], W_vocab)


# =============================================================================
# 11 cross_entropy(logits, targets)

@_mistake("cross_entropy", "takes np.log of the softmax probabilities: an unlikely target at logits around 1e4 gives "
                           "log(0) = -inf, an infinite loss")
def cross_entropy(logits, targets):
    n = len(targets)
    P = _softmax(logits)
    with np.errstate(divide="ignore"):
        loss = -np.mean(np.log(P[np.arange(n), targets]))
    d = P.copy()
    d[np.arange(n), targets] -= 1.0
    return loss, d / n


@_mistake("cross_entropy", "sums over the rows instead of averaging: the loss and the gradient are n times too large")
def cross_entropy(logits, targets):
    n = len(targets)
    logp = _log_softmax(logits)
    d = np.exp(logp)
    d[np.arange(n), targets] -= 1.0
    return -logp[np.arange(n), targets].sum(), d


@_mistake("cross_entropy", "returns dlogits = softmax - one_hot without dividing by n (the loss is the mean)")
def cross_entropy(logits, targets):
    n = len(targets)
    logp = _log_softmax(logits)
    d = np.exp(logp)
    d[np.arange(n), targets] -= 1.0
    return -logp[np.arange(n), targets].mean(), d


@_mistake("cross_entropy", "returns (one_hot - softmax) / n, the negative of the gradient")
def cross_entropy(logits, targets):
    loss, d = _cross_entropy(logits, targets)
    return loss, -d


@_mistake("cross_entropy", "reports the loss in bits (log base 2) instead of nats")
def cross_entropy(logits, targets):
    loss, d = _cross_entropy(logits, targets)
    return loss / math.log(2), d


@_mistake("cross_entropy", "subtracts the row max from logits in place (logits -= ...), modifying the caller's array")
def cross_entropy(logits, targets):
    n = len(targets)
    logits -= logits.max(axis=1, keepdims=True)
    logp = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
    d = np.exp(logp)
    d[np.arange(n), targets] -= 1.0
    return -logp[np.arange(n), targets].mean(), d / n


@_mistake("cross_entropy", "takes log(p + 1e-12) 'for safety': finite, but wrong wherever the target's probability is "
                           "tiny (and slightly off elsewhere)")
def cross_entropy(logits, targets):
    n = len(targets)
    P = _softmax(logits)
    loss = -np.mean(np.log(P[np.arange(n), targets] + 1e-12))
    d = P.copy()
    d[np.arange(n), targets] -= 1.0
    return loss, d / n


@_mistake("cross_entropy", "indexes logp[:, targets] (an n x n block) instead of logp[arange(n), targets], so the loss "
                           "averages every row's log-probability of every target")
def cross_entropy(logits, targets):
    n = len(targets)
    logp = _log_softmax(logits)
    d = np.exp(logp)
    d[np.arange(n), targets] -= 1.0
    return -logp[:, targets].mean(), d / n


@_ok("cross_entropy", "np.logaddexp.reduce for the log-sum-exp and a one-hot matrix for the gradient")
def cross_entropy(logits, targets):
    n, vocab = logits.shape
    lse = np.logaddexp.reduce(logits, axis=1)
    onehot = np.zeros((n, vocab))
    onehot[np.arange(n), targets] = 1.0
    loss = float(np.mean(lse - logits[np.arange(n), targets]))
    return loss, (np.exp(logits - lse[:, None]) - onehot) / n


@_ok("cross_entropy", "a loop over the rows with a stable log-sum-exp per row")
def cross_entropy(logits, targets):
    n = len(targets)
    total = 0.0
    d = np.empty(logits.shape)
    for i in range(n):
        z = logits[i] - logits[i].max()
        lse = math.log(np.exp(z).sum())
        total += lse - z[targets[i]]
        d[i] = np.exp(z - lse)
        d[i, targets[i]] -= 1.0
    return total / n, d / n


# =============================================================================
# 11 softmax_backward(A, dA)

@_mistake("softmax_backward", "uses only the diagonal of the softmax Jacobian: A (1 - A) dA")
def softmax_backward(A, dA):
    return A * (1 - A) * dA


@_mistake("softmax_backward", "sums dA * A over axis 0 instead of the last axis")
def softmax_backward(A, dA):
    return A * (dA - (dA * A).sum(axis=0, keepdims=True))


@_mistake("softmax_backward", "builds the Jacobian diag(a) - a aᵀ for each A[i] of a 2-D array: wrong for inputs with "
                              "more than one leading axis")
def softmax_backward(A, dA):
    out = np.empty(np.shape(A))
    for i in range(A.shape[0]):
        a = A[i]
        J = np.diag(a) - np.outer(a, a)
        out[i] = (J @ dA[i].reshape(J.shape[1], -1)).reshape(out[i].shape)
    return out


@_mistake("softmax_backward", "adds the weighted sum instead of subtracting it: A (dA + sum(dA A))")
def softmax_backward(A, dA):
    return A * (dA + (dA * A).sum(axis=-1, keepdims=True))


@_mistake("softmax_backward", "subtracts the mean of dA * A over the row instead of its sum")
def softmax_backward(A, dA):
    return A * (dA - (dA * A).mean(axis=-1, keepdims=True))


@_mistake("softmax_backward", "forgets the leading factor A: returns dA - sum(dA A)")
def softmax_backward(A, dA):
    return dA - (dA * A).sum(axis=-1, keepdims=True)


@_mistake("softmax_backward", "computes the result in place in dA (dA -= ..., dA *= A), modifying the caller's gradient")
def softmax_backward(A, dA):
    dA -= (dA * A).sum(axis=-1, keepdims=True)
    dA *= A
    return dA


@_ok("softmax_backward", "the full Jacobian diag(a) - a aᵀ applied row by row over every leading index")
def softmax_backward(A, dA):
    out = np.empty(A.shape)
    for idx in np.ndindex(*A.shape[:-1]):
        a = A[idx]
        out[idx] = (np.diag(a) - np.outer(a, a)) @ dA[idx]
    return out


@_ok("softmax_backward", "A dA - A * einsum('...i,...i->...', A, dA)[..., None]")
def softmax_backward(A, dA):
    return A * dA - A * np.einsum("...i,...i->...", A, dA)[..., None]


# =============================================================================
# 11 attention_backward(Q, K, V, dO, causal=True, scale=True)

def _attn_back_core(Q, K, V, dO, causal=True, scale=True, dV_no_T=False, s_in_dS=1, dK_no_T=False, top_left=False,
                    diag_softmax=False, swap_out=False, always_causal=False):
    s = 1.0 / math.sqrt(Q.shape[1]) if scale else 1.0
    S = Q @ K.T * s
    if causal or always_causal:
        S = S + (np.triu(np.full(S.shape, -np.inf), k=1) if top_left else _mask(len(Q), len(K)))
    A = _softmax(S)
    dA = dO @ V.T
    dS = A * (1 - A) * dA if diag_softmax else _softmax_backward(A, dA)
    dS = dS * s ** s_in_dS
    dV = A @ dO if dV_no_T else A.T @ dO
    dK = dS @ Q if dK_no_T else dS.T @ Q
    dQ = dS @ K
    return (dK, dQ, dV) if swap_out else (dQ, dK, dV)


@_mistake("attention_backward", "computes dV = A dO instead of Aᵀ dO")
def attention_backward(Q, K, V, dO, causal=True, scale=True):
    return _attn_back_core(Q, K, V, dO, causal, scale, dV_no_T=True)


@_mistake("attention_backward", "leaves the 1/sqrt(d) factor out of dS, so dQ and dK are sqrt(d) times too large "
                                "when scale=True")
def attention_backward(Q, K, V, dO, causal=True, scale=True):
    return _attn_back_core(Q, K, V, dO, causal, scale, s_in_dS=0)


@_mistake("attention_backward", "multiplies dS by the scale twice (s²) when scale=True")
def attention_backward(Q, K, V, dO, causal=True, scale=True):
    return _attn_back_core(Q, K, V, dO, causal, scale, s_in_dS=2)


@_mistake("attention_backward", "computes dK = dS Q instead of dSᵀ Q")
def attention_backward(Q, K, V, dO, causal=True, scale=True):
    return _attn_back_core(Q, K, V, dO, causal, scale, dK_no_T=True)


@_mistake("attention_backward", "aligns the mask to the first positions (np.triu k=1) instead of the last n_q, wrong "
                                "when n_q < n_k")
def attention_backward(Q, K, V, dO, causal=True, scale=True):
    return _attn_back_core(Q, K, V, dO, causal, scale, top_left=True)


@_mistake("attention_backward", "uses only the diagonal of the softmax Jacobian, dS = A (1 - A) dA")
def attention_backward(Q, K, V, dO, causal=True, scale=True):
    return _attn_back_core(Q, K, V, dO, causal, scale, diag_softmax=True)


@_mistake("attention_backward", "returns (dK, dQ, dV): the first two gradients in the wrong order")
def attention_backward(Q, K, V, dO, causal=True, scale=True):
    return _attn_back_core(Q, K, V, dO, causal, scale, swap_out=True)


@_mistake("attention_backward", "always applies the causal mask, ignoring causal=False")
def attention_backward(Q, K, V, dO, causal=True, scale=True):
    return _attn_back_core(Q, K, V, dO, causal, scale, always_causal=True)


@_ok("attention_backward", "builds the per-row softmax Jacobian explicitly and loops over the queries")
def attention_backward(Q, K, V, dO, causal=True, scale=True):
    s = 1.0 / math.sqrt(Q.shape[1]) if scale else 1.0
    A = _weights(Q, K, causal, scale)
    dA = dO @ V.T
    dS = np.empty(A.shape)
    for i in range(A.shape[0]):
        a = A[i]
        dS[i] = (np.diag(a) - np.outer(a, a)) @ dA[i] * s
    return dS @ K, dS.T @ Q, A.T @ dO


@_ok("attention_backward", "einsum for every product")
def attention_backward(Q, K, V, dO, causal=True, scale=True):
    s = 1.0 / math.sqrt(Q.shape[1]) if scale else 1.0
    A = _weights(Q, K, causal, scale)
    dA = np.einsum("iv,jv->ij", dO, V)
    dS = A * (dA - np.einsum("ij,ij->i", dA, A)[:, None]) * s
    return np.einsum("ij,jd->id", dS, K), np.einsum("ij,id->jd", dS, Q), np.einsum("ij,iv->jv", A, dO)


# =============================================================================
# 11 layer_norm_backward(X, g, dY, eps=1e-5)

def _lnb_core(X, g, dY, eps=1e-5, xhat_term=True, mean_term=True, swap_gb=False, use_g=True, sum_dg=True, ddof=0,
              eps_outside=False, rstd_factor=True):
    mu = X.mean(axis=1, keepdims=True)
    var = X.var(axis=1, ddof=ddof, keepdims=True)
    rstd = 1.0 / (np.sqrt(var) + eps) if eps_outside else 1.0 / np.sqrt(var + eps)
    Xhat = (X - mu) * rstd
    dXhat = dY * g if use_g else dY
    dX = dXhat.copy()
    if mean_term:
        dX = dX - dXhat.mean(axis=1, keepdims=True)
    if xhat_term:
        dX = dX - Xhat * (dXhat * Xhat).mean(axis=1, keepdims=True)
    if rstd_factor:
        dX = dX * rstd
    dg = (dY * Xhat).sum(axis=0) if sum_dg else dY * Xhat
    db = dY.sum(axis=0)
    return (dX, db, dg) if swap_gb else (dX, dg, db)


@_mistake("layer_norm_backward", "drops the correction along Xhat (the variance's dependence on the row) from dX")
def layer_norm_backward(X, g, dY, eps=1e-5):
    return _lnb_core(X, g, dY, eps, xhat_term=False)


@_mistake("layer_norm_backward", "drops the row-mean correction (the mean's dependence on the row) from dX")
def layer_norm_backward(X, g, dY, eps=1e-5):
    return _lnb_core(X, g, dY, eps, mean_term=False)


@_mistake("layer_norm_backward", "swaps dg and db: returns (dX, sum dY, sum dY*Xhat)")
def layer_norm_backward(X, g, dY, eps=1e-5):
    return _lnb_core(X, g, dY, eps, swap_gb=True)


@_mistake("layer_norm_backward", "forgets to multiply dY by g before the normalisation backward (dXhat = dY)")
def layer_norm_backward(X, g, dY, eps=1e-5):
    return _lnb_core(X, g, dY, eps, use_g=False)


@_mistake("layer_norm_backward", "returns dg = dY * Xhat without summing over the rows, shape (n, d) instead of (d,)")
def layer_norm_backward(X, g, dY, eps=1e-5):
    return _lnb_core(X, g, dY, eps, sum_dg=False)


@_mistake("layer_norm_backward", "recomputes the variance with ddof=1 (unbiased) instead of the biased variance")
def layer_norm_backward(X, g, dY, eps=1e-5):
    return _lnb_core(X, g, dY, eps, ddof=1)


@_mistake("layer_norm_backward", "puts eps outside the square root: 1 / (sqrt(var) + eps)")
def layer_norm_backward(X, g, dY, eps=1e-5):
    return _lnb_core(X, g, dY, eps, eps_outside=True)


@_mistake("layer_norm_backward", "forgets the final factor 1/sqrt(var + eps) in dX")
def layer_norm_backward(X, g, dY, eps=1e-5):
    return _lnb_core(X, g, dY, eps, rstd_factor=False)


@_ok("layer_norm_backward", "the textbook form dX = rstd/d (d dXhat - sum dXhat - Xhat sum(dXhat Xhat))")
def layer_norm_backward(X, g, dY, eps=1e-5):
    d = X.shape[1]
    Xhat, rstd = _ln_parts(X, eps)
    dXhat = dY * g
    dX = rstd / d * (d * dXhat - dXhat.sum(axis=1, keepdims=True) - Xhat * (dXhat * Xhat).sum(axis=1, keepdims=True))
    return dX, np.einsum("nd,nd->d", dY, Xhat), dY.sum(axis=0)


@_ok("layer_norm_backward", "the explicit per-row Jacobian of the normalisation, J = rstd (I - 1/d - Xhat Xhatᵀ / d)")
def layer_norm_backward(X, g, dY, eps=1e-5):
    n, d = X.shape
    Xhat, rstd = _ln_parts(X, eps)
    dX = np.empty(X.shape)
    for i in range(n):
        J = rstd[i, 0] * (np.eye(d) - 1.0 / d - np.outer(Xhat[i], Xhat[i]) / d)
        dX[i] = J.T @ (dY[i] * g)
    return dX, (dY * Xhat).sum(axis=0), dY.sum(axis=0)


# =============================================================================
# 12 most_attended(A, tokens)

@_mistake("most_attended", "takes the argmax of each column (axis 0) instead of each row")
def most_attended(A, tokens):
    return [tokens[j] for j in np.argmax(A, axis=0)]


@_mistake("most_attended", "breaks exact ties toward the later token (argmax of the reversed row) instead of the earlier")
def most_attended(A, tokens):
    n_k = A.shape[1]
    return [tokens[n_k - 1 - int(np.argmax(row[::-1]))] for row in A]


@_mistake("most_attended", "returns the column indices instead of the words")
def most_attended(A, tokens):
    return [int(j) for j in np.argmax(A, axis=1)]


@_mistake("most_attended", "skips the diagonal (a token attending to itself), picking the best other key")
def most_attended(A, tokens):
    B = np.array(A, dtype=float)
    np.fill_diagonal(B, -np.inf)
    return [tokens[int(j)] for j in np.argmax(B, axis=1)]


@_mistake("most_attended", "returns a numpy array of np.str_ (np.array(tokens)[argmax]) instead of a list of str")
def most_attended(A, tokens):
    return np.array(tokens)[np.argmax(A, axis=1)]


@_mistake("most_attended", "looks the column up in the sorted distinct words (sorted(set(tokens))) instead of in tokens")
def most_attended(A, tokens):
    vocab = sorted(set(tokens))
    return [vocab[j] for j in np.argmax(A, axis=1)]


@_mistake("most_attended", "special-cases a single row by returning the bare word instead of a one-element list")
def most_attended(A, tokens):
    words = [tokens[int(j)] for j in np.argmax(A, axis=1)]
    return words[0] if len(words) == 1 else words


@_ok("most_attended", "a loop with max() and list.index on each row (the first maximum)")
def most_attended(A, tokens):
    out = []
    for row in np.asarray(A).tolist():
        out.append(tokens[row.index(max(row))])
    return out


@_ok("most_attended", "np.argmax per row, converted to plain str")
def most_attended(A, tokens):
    return [str(tokens[j]) for j in np.argmax(A, axis=1).tolist()]


# =============================================================================
# 12 attention_entropy(A)

def _xlogx(A):
    A = np.asarray(A, dtype=float)
    safe = np.where(A > 0, A, 1.0)
    return np.where(A > 0, A * np.log(safe), 0.0)


@_mistake("attention_entropy", "uses log base 2 (bits) instead of the natural log (nats)")
def attention_entropy(A):
    safe = np.where(A > 0, A, 1.0)
    return -np.where(A > 0, A * np.log2(safe), 0.0).sum(axis=1)


@_mistake("attention_entropy", "does not treat 0 log 0 as 0, so every row with a zero (masked) weight gives NaN")
def attention_entropy(A):
    with np.errstate(divide="ignore", invalid="ignore"):
        return -(A * np.log(A)).sum(axis=1)


@_mistake("attention_entropy", "adds 1e-6 inside the log 'for safety', biasing every entropy")
def attention_entropy(A):
    return -(A * np.log(A + 1e-6)).sum(axis=1)


@_mistake("attention_entropy", "sums over each column (axis 0) instead of each row")
def attention_entropy(A):
    return -_xlogx(A).sum(axis=0)


@_mistake("attention_entropy", "forgets the minus sign, returning negative entropies")
def attention_entropy(A):
    return _xlogx(A).sum(axis=1)


@_mistake("attention_entropy", "averages over the keys instead of summing")
def attention_entropy(A):
    return -_xlogx(A).mean(axis=1)


@_mistake("attention_entropy", "replaces the zero weights by 1 in place (A[A == 0] = 1, so log 1 = 0), mutating the "
                               "caller's A")
def attention_entropy(A):
    A[A == 0] = 1.0
    return -(np.where(A == 1.0, 0.0, A * np.log(A))).sum(axis=1)


@_ok("attention_entropy", "np.log with where= and out= so that zeros contribute 0")
def attention_entropy(A):
    logA = np.log(A, out=np.zeros(A.shape), where=A > 0)
    return -(A * logA).sum(axis=1)


@_ok("attention_entropy", "a loop with math.log over the positive weights only")
def attention_entropy(A):
    return np.array([-sum(a * math.log(a) for a in row if a > 0) for row in np.asarray(A, dtype=float)])


# =============================================================================
# 13 padding_mask(n_q, n_valid, n_k)

@_mistake("padding_mask", "leaves column n_valid visible too (j <= n_valid): one padding key leaks")
def padding_mask(n_q, n_valid, n_k):
    M = np.zeros((n_q, n_k))
    M[:, n_valid + 1:] = -np.inf
    return M


@_mistake("padding_mask", "hides query rows >= n_valid instead of the padding columns")
def padding_mask(n_q, n_valid, n_k):
    M = np.zeros((n_q, n_k))
    M[n_valid:, :] = -np.inf
    return M


@_mistake("padding_mask", "returns a boolean keep-mask (True on the real keys) instead of the additive 0/-inf floats")
def padding_mask(n_q, n_valid, n_k):
    return np.tile(np.arange(n_k) < n_valid, (n_q, 1))


@_mistake("padding_mask", "uses -1e9 instead of -inf on the padding")
def padding_mask(n_q, n_valid, n_k):
    M = np.zeros((n_q, n_k))
    M[:, n_valid:] = -1e9
    return M


@_mistake("padding_mask", "allocates an int array (np.zeros(..., dtype=int)), so writing -inf into it raises "
                          "OverflowError")
def padding_mask(n_q, n_valid, n_k):
    M = np.zeros((n_q, n_k), dtype=int)
    M[:, n_valid:] = -np.inf
    return M


@_mistake("padding_mask", "confuses n_q with n_valid: hides the columns from n_q on")
def padding_mask(n_q, n_valid, n_k):
    M = np.zeros((n_q, n_k))
    M[:, n_q:] = -np.inf
    return M


@_mistake("padding_mask", "adds a causal mask on top of the padding mask")
def padding_mask(n_q, n_valid, n_k):
    M = np.zeros((n_q, n_k))
    M[:, n_valid:] = -np.inf
    return M + np.triu(np.full((n_q, n_k), -np.inf), k=1)


@_mistake("padding_mask", "returns the single row (n_k,) and leaves the repetition to broadcasting, instead of "
                          "shape (n_q, n_k)")
def padding_mask(n_q, n_valid, n_k):
    return np.where(np.arange(n_k) < n_valid, 0.0, -np.inf)


@_ok("padding_mask", "np.where on broadcast column indices, tiled to n_q rows")
def padding_mask(n_q, n_valid, n_k):
    return np.tile(np.where(np.arange(n_k) < n_valid, 0.0, -np.inf), (n_q, 1))


@_ok("padding_mask", "np.full of -inf with the first n_valid columns set to 0.0")
def padding_mask(n_q, n_valid, n_k):
    M = np.full((n_q, n_k), -np.inf)
    M[:, :n_valid] = 0.0
    return M


# =============================================================================
# 13 cross_attention(X, Z, Wq, Wk, Wv)

@_mistake("cross_attention", "takes the queries from Z and the keys and values from X (the two inputs swapped)")
def cross_attention(X, Z, Wq, Wk, Wv):
    return _attention(Z @ Wq, X @ Wk, X @ Wv, causal=False)


@_mistake("cross_attention", "applies a causal mask, which cross-attention does not have")
def cross_attention(X, Z, Wq, Wk, Wv):
    Q, K, V = X @ Wq, Z @ Wk, Z @ Wv
    S = Q @ K.T / math.sqrt(Q.shape[1]) + np.triu(np.full((len(Q), len(K)), -np.inf), k=1)
    return _softmax(S) @ V


@_mistake("cross_attention", "scales by sqrt(d_model) instead of sqrt(d_head)")
def cross_attention(X, Z, Wq, Wk, Wv):
    Q, K, V = X @ Wq, Z @ Wk, Z @ Wv
    return _softmax(Q @ K.T / math.sqrt(X.shape[1])) @ V


@_mistake("cross_attention", "computes the keys from X instead of Z (values from Z)")
def cross_attention(X, Z, Wq, Wk, Wv):
    return _attention(X @ Wq, X @ Wk, Z @ Wv, causal=False)


@_mistake("cross_attention", "normalises the weights over the queries (softmax axis=0) instead of over the keys")
def cross_attention(X, Z, Wq, Wk, Wv):
    Q, K, V = X @ Wq, Z @ Wk, Z @ Wv
    return _softmax(Q @ K.T / math.sqrt(Q.shape[1]), axis=0) @ V


@_mistake("cross_attention", "swaps the similarly named Wk and Wv: keys from Wv, values from Wk")
def cross_attention(X, Z, Wq, Wk, Wv):
    return _attention(X @ Wq, Z @ Wv, Z @ Wk, causal=False)


@_mistake("cross_attention", "scales by sqrt(d_v) (Wv's width) instead of sqrt(d_head)")
def cross_attention(X, Z, Wq, Wk, Wv):
    Q, K, V = X @ Wq, Z @ Wk, Z @ Wv
    return _softmax(Q @ K.T / math.sqrt(Wv.shape[1])) @ V


@_ok("cross_attention", "einsum for the scores and the mix, softmax written inline")
def cross_attention(X, Z, Wq, Wk, Wv):
    Q, K, V = X @ Wq, Z @ Wk, Z @ Wv
    S = np.einsum("id,jd->ij", Q, K) / math.sqrt(Wq.shape[1])
    E = np.exp(S - S.max(axis=1, keepdims=True))
    return np.einsum("ij,jv->iv", E / E.sum(axis=1, keepdims=True), V)


@_ok("cross_attention", "one query row at a time")
def cross_attention(X, Z, Wq, Wk, Wv):
    K, V = Z @ Wk, Z @ Wv
    return np.stack([_attend_step(x @ Wq, K, V) for x in X])


# =============================================================================
# 14 attend_step(q, K_cache, V_cache)

@_mistake("attend_step", "does not subtract the max before np.exp, so huge scores overflow to NaN")
def attend_step(q, K_cache, V_cache):
    e = np.exp(K_cache @ q / math.sqrt(q.shape[0]))
    return (e / e.sum()) @ V_cache


@_mistake("attend_step", "forgets the 1/sqrt(d) scale")
def attend_step(q, K_cache, V_cache):
    s = K_cache @ q
    e = np.exp(s - s.max())
    return (e / e.sum()) @ V_cache


@_mistake("attend_step", "scales by sqrt(t), the cache length, instead of sqrt(d)")
def attend_step(q, K_cache, V_cache):
    s = K_cache @ q / math.sqrt(K_cache.shape[0])
    e = np.exp(s - s.max())
    return (e / e.sum()) @ V_cache


@_mistake("attend_step", "computes q @ K_cache (Kᵀ q, a shape error unless t = d) instead of K_cache @ q")
def attend_step(q, K_cache, V_cache):
    s = q @ K_cache / math.sqrt(q.shape[0])
    e = np.exp(s - s.max())
    return (e / e.sum()) @ V_cache


@_mistake("attend_step", "drops the cache's last row (K_cache[:-1]), the new token's own key and value")
def attend_step(q, K_cache, V_cache):
    return _attend_step(q, K_cache[:-1], V_cache[:-1])


@_mistake("attend_step", "returns the weights (t,) instead of their weighted sum of V_cache's rows")
def attend_step(q, K_cache, V_cache):
    s = K_cache @ q / math.sqrt(q.shape[0])
    e = np.exp(s - s.max())
    return e / e.sum()


@_mistake("attend_step", "scales K_cache in place (K_cache /= sqrt(d)), modifying the caller's cache")
def attend_step(q, K_cache, V_cache):
    K_cache /= math.sqrt(q.shape[0])
    s = K_cache @ q
    e = np.exp(s - s.max())
    return (e / e.sum()) @ V_cache


@_ok("attend_step", "np.einsum for the scores and the weighted sum")
def attend_step(q, K_cache, V_cache):
    s = np.einsum("td,d->t", K_cache, q) * (q.shape[0] ** -0.5)
    w = np.exp(s - np.max(s))
    return np.einsum("t,tv->v", w / w.sum(), V_cache)


@_ok("attend_step", "the single-row case of masked-free attention: softmax(q Kᵀ / sqrt d) V on a (1, d) query")
def attend_step(q, K_cache, V_cache):
    return _attention(q[None, :], K_cache, V_cache, causal=False)[0]


# =============================================================================
# 14 cache_step(q, k, v, K_cache, V_cache)

@_mistake("cache_step", "puts the new k and v as the first rows of the caches instead of the last")
def cache_step(q, k, v, K_cache, V_cache):
    K_new, V_new = np.vstack([k, K_cache]), np.vstack([v, V_cache])
    return _attend_step(q, K_new, V_new), K_new, V_new


@_mistake("cache_step", "lets q attend over the old caches, before k and v are appended")
def cache_step(q, k, v, K_cache, V_cache):
    o = _attend_step(q, K_cache, V_cache)
    return o, np.vstack([K_cache, k]), np.vstack([V_cache, v])


@_mistake("cache_step", "returns (o, V_new, K_new): the two caches swapped")
def cache_step(q, k, v, K_cache, V_cache):
    o, K_new, V_new = _cache_step(q, k, v, K_cache, V_cache)
    return o, V_new, K_new


@_mistake("cache_step", "overwrites the caches' last row (K_cache[-1] = k) instead of appending a row: mutates the "
                        "caller's caches and keeps their length")
def cache_step(q, k, v, K_cache, V_cache):
    K_cache[-1] = k
    V_cache[-1] = v
    return _attend_step(q, K_cache, V_cache), K_cache, V_cache


@_mistake("cache_step", "uses np.append without axis=0, which flattens the caches to 1-D")
def cache_step(q, k, v, K_cache, V_cache):
    K_new, V_new = np.append(K_cache, k), np.append(V_cache, v)
    return _attend_step(q, K_new.reshape(-1, len(k)), V_new.reshape(-1, len(v))), K_new, V_new


@_mistake("cache_step", "forgets the 1/sqrt(d) scale in its attention")
def cache_step(q, k, v, K_cache, V_cache):
    K_new, V_new = np.vstack([K_cache, k]), np.vstack([V_cache, v])
    s = K_new @ q
    e = np.exp(s - s.max())
    return (e / e.sum()) @ V_new, K_new, V_new


@_ok("cache_step", "np.concatenate with k[None] and v[None], then attend_step")
def cache_step(q, k, v, K_cache, V_cache):
    K_new = np.concatenate([K_cache, k[None]], axis=0)
    V_new = np.concatenate([V_cache, v[None]], axis=0)
    return _attend_step(q, K_new, V_new), K_new, V_new


@_ok("cache_step", "preallocates (t + 1) rows and copies the old caches in")
def cache_step(q, k, v, K_cache, V_cache):
    t = K_cache.shape[0]
    K_new = np.empty((t + 1, K_cache.shape[1]))
    V_new = np.empty((t + 1, V_cache.shape[1]))
    K_new[:t], K_new[t] = K_cache, k
    V_new[:t], V_new[t] = V_cache, v
    s = K_new @ q / math.sqrt(len(q))
    w = np.exp(s - s.max())
    return w @ V_new / w.sum(), K_new, V_new


# =============================================================================
# 14 sample_next(logits, temperature, u)

def _probs(logits, temperature):
    z = (np.asarray(logits, dtype=float) - np.max(logits)) / temperature
    e = np.exp(z)
    return e / e.sum()


@_mistake("sample_next", "takes the first token whose running total is >= u (searchsorted side='left') instead of > u")
def sample_next(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    cdf = np.cumsum(_probs(logits, temperature))
    cdf /= cdf[-1]
    return int(np.searchsorted(cdf, u, side="left"))


@_mistake("sample_next", "does not scale the running total to end at exactly 1, so a u just under 1 can return vocab "
                         "(one past the last token)")
def sample_next(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    cdf = np.cumsum(_probs(logits, temperature))
    return int(np.searchsorted(cdf, u, side="right"))


@_mistake("sample_next", "multiplies the logits by the temperature instead of dividing by it")
def sample_next(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    z = (np.asarray(logits, dtype=float) - np.max(logits)) * temperature
    cdf = np.cumsum(np.exp(z) / np.exp(z).sum())
    cdf /= cdf[-1]
    return int(np.searchsorted(cdf, u, side="right"))


@_mistake("sample_next", "has no greedy branch for temperature 0 and divides by zero (NaN probabilities)")
def sample_next(logits, temperature, u):
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.asarray(logits, dtype=float) / temperature
        z = z - z.max()
        e = np.exp(z)
        cdf = np.cumsum(e / e.sum())
        cdf /= cdf[-1]
    return int(np.searchsorted(cdf, u, side="right"))


@_mistake("sample_next", "returns np.argmax / np.searchsorted's numpy int64 instead of a Python int")
def sample_next(logits, temperature, u):
    if temperature == 0:
        return np.argmax(logits)
    cdf = np.cumsum(_probs(logits, temperature))
    cdf /= cdf[-1]
    return np.searchsorted(cdf, u, side="right")


@_mistake("sample_next", "does not subtract the max before np.exp: logits around 1e4 or a temperature of 1e-8 "
                         "overflow to NaN")
def sample_next(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    with np.errstate(over="ignore", invalid="ignore"):
        e = np.exp(np.asarray(logits, dtype=float) / temperature)
        cdf = np.cumsum(e / e.sum())
        cdf /= cdf[-1]
    return int(np.searchsorted(cdf, u, side="right"))


@_mistake("sample_next", "the loop tests the running total before adding the token's own probability, so it returns "
                         "the token after the right one")
def sample_next(logits, temperature, u):
    if temperature == 0:
        return int(np.argmax(logits))
    p = _probs(logits, temperature)
    total = 0.0
    for i in range(len(p)):
        if total > u:
            return i
        total += p[i]
    return len(p) - 1


@_ok("sample_next", "a loop over the scaled running total, returning the first index whose total exceeds u")
def sample_next(logits, temperature, u):
    logits = np.asarray(logits, dtype=float)
    if temperature == 0:
        return int(np.argmax(logits))
    p = _probs(logits, temperature)
    cdf = np.cumsum(p)
    cdf = cdf / cdf[-1]
    for i, c in enumerate(cdf):
        if c > u:
            return i
    return len(cdf) - 1


@_ok("sample_next", "counts the tokens whose scaled running total is <= u (the same index as searchsorted right)")
def sample_next(logits, temperature, u):
    if temperature == 0:
        return int(np.flatnonzero(logits == np.max(logits))[0])
    cdf = np.cumsum(_probs(logits, temperature))
    return int(np.count_nonzero(cdf / cdf[-1] <= u))


# =============================================================================
# 14 generate(p, prompt, n_new, cache_step)

def _gen_core(p, prompt, n_new, cache_step, pos_offset=0, residual=True, feed_last=False, inplace=False, short=0):
    seq = [int(t) for t in prompt]
    T = len(seq)
    d = p["tok_emb"].shape[1]
    K, V = np.zeros((0, d)), np.zeros((0, d))
    for i in range(T + n_new - 1 + (1 if feed_last else 0) - short):
        if inplace:
            x = p["tok_emb"][seq[i]]
            x += p["pos_emb"][i]
        else:
            x = p["tok_emb"][seq[i]] + p["pos_emb"][i + pos_offset]
        o, K, V = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K, V)
        if i >= T - 1 and len(seq) < T + n_new - short:
            seq.append(int(np.argmax(((x + o) if residual else o) @ p["W_out"])))
    return np.array(seq, dtype=int)


@_mistake("generate", "restarts from empty caches and refeeds the whole sequence for every new token: the right "
                      "tokens, but far more cache_step calls than one per token")
def generate(p, prompt, n_new, cache_step):
    seq = [int(t) for t in prompt]
    d = p["tok_emb"].shape[1]
    for _ in range(n_new):
        K, V = np.zeros((0, d)), np.zeros((0, d))
        for i, t in enumerate(seq):
            x = p["tok_emb"][t] + p["pos_emb"][i]
            o, K, V = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K, V)
        seq.append(int(np.argmax((x + o) @ p["W_out"])))
    return np.array(seq, dtype=int)


@_mistake("generate", "adds pos_emb[i + 1] (1-based positions) instead of pos_emb[i]")
def generate(p, prompt, n_new, cache_step):
    return _gen_core(p, prompt, n_new, cache_step, pos_offset=1)


@_mistake("generate", "computes the logits from o alone, dropping the residual x: o @ W_out instead of (x + o) @ W_out")
def generate(p, prompt, n_new, cache_step):
    return _gen_core(p, prompt, n_new, cache_step, residual=False)


@_mistake("generate", "ignores the cache_step it is given and calls its own (scaled) version")
def generate(p, prompt, n_new, cache_step):
    return _gen_core(p, prompt, n_new, _cache_step)


@_mistake("generate", "adds the position in place to tok_emb[t] (a view), corrupting p['tok_emb']")
def generate(p, prompt, n_new, cache_step):
    return _gen_core(p, prompt, n_new, cache_step, inplace=True)


@_mistake("generate", "also feeds the last new token through cache_step (one call too many)")
def generate(p, prompt, n_new, cache_step):
    return _gen_core(p, prompt, n_new, cache_step, feed_last=True)


@_mistake("generate", "stops one token early: returns T + n_new - 1 tokens")
def generate(p, prompt, n_new, cache_step):
    return _gen_core(p, prompt, n_new, cache_step, short=1)


@_mistake("generate", "returns only the n_new generated tokens, without the prompt")
def generate(p, prompt, n_new, cache_step):
    return _gen_core(p, prompt, n_new, cache_step)[len(prompt):]


@_mistake("generate", "collects the sequence in a float array (np.zeros(T + n_new)), returning floats instead of ints")
def generate(p, prompt, n_new, cache_step):
    seq = _gen_core(p, prompt, n_new, cache_step)
    out = np.zeros(len(prompt) + n_new)
    out[:] = seq
    return out


@_ok("generate", "a preallocated int array, filled as it goes")
def generate(p, prompt, n_new, cache_step):
    T = len(prompt)
    out = np.empty(T + n_new, dtype=int)
    out[:T] = prompt
    d = p["tok_emb"].shape[1]
    K, V = np.empty((0, d)), np.empty((0, d))
    for i in range(T + n_new - 1):
        x = p["tok_emb"][out[i]] + p["pos_emb"][i]
        o, K, V = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K, V)
        if i >= T - 1:
            out[i + 1] = np.argmax((x + o) @ p["W_out"])
    return out


@_ok("generate", "feeds every prompt token even when n_new = 0 (allowed), then one per new token but the last")
def generate(p, prompt, n_new, cache_step):
    seq = [int(t) for t in prompt]
    d = p["tok_emb"].shape[1]
    K, V = np.zeros((0, d)), np.zeros((0, d))
    i = 0
    while i < len(seq) and (i < len(prompt) or len(seq) < len(prompt) + n_new):
        x = p["tok_emb"][seq[i]] + p["pos_emb"][i]
        o, K, V = cache_step(x @ p["Wq"], x @ p["Wk"], x @ p["Wv"], K, V)
        if i == len(seq) - 1 and len(seq) < len(prompt) + n_new:
            seq.append(int(np.argmax((x + o) @ p["W_out"])))
        i += 1
    return np.array(seq, dtype=int)


# =============================================================================
# 14 kv_cache_bytes(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2)

@_mistake("kv_cache_bytes", "forgets the factor 2: counts the keys only, not keys and values")
def kv_cache_bytes(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return n_layers * n_heads * d_head * seq_len * batch * bytes_per_value


@_mistake("kv_cache_bytes", "wrong default bytes_per_value=4 (float32) instead of 2")
def kv_cache_bytes(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=4):
    return 2 * n_layers * n_heads * d_head * seq_len * batch * bytes_per_value


@_mistake("kv_cache_bytes", "starts the product from 2.0, returning a float instead of an int")
def kv_cache_bytes(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return 2.0 * n_layers * n_heads * d_head * seq_len * batch * bytes_per_value


@_mistake("kv_cache_bytes", "returns np.prod of the factors: a numpy int64 that is not a Python int and wraps past 2**63")
def kv_cache_bytes(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return np.prod([2, n_layers, n_heads, d_head, seq_len, batch, bytes_per_value])


@_mistake("kv_cache_bytes", "ignores batch")
def kv_cache_bytes(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return 2 * n_layers * n_heads * d_head * seq_len * bytes_per_value


@_mistake("kv_cache_bytes", "ignores bytes_per_value: counts the values, not the bytes")
def kv_cache_bytes(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return 2 * n_layers * n_heads * d_head * seq_len * batch


@_mistake("kv_cache_bytes", "converts the result to GiB (divides by 2**30) instead of returning bytes")
def kv_cache_bytes(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    return 2 * n_layers * n_heads * d_head * seq_len * batch * bytes_per_value / 2 ** 30


@_ok("kv_cache_bytes", "math.prod over the factors, K and V counted as two tensors")
def kv_cache_bytes(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    one = math.prod((batch, n_layers, n_heads, seq_len, d_head))
    return 2 * one * bytes_per_value


@_ok("kv_cache_bytes", "sums the bytes layer by layer in a loop")
def kv_cache_bytes(n_layers, n_heads, d_head, seq_len, batch=1, bytes_per_value=2):
    total = 0
    for _ in range(n_layers):
        total += 2 * n_heads * d_head * seq_len * batch * bytes_per_value
    return total


# =============================================================================
# 14 max_cached_tokens(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2)

@_mistake("max_cached_tokens", "uses true division then int(), which rounds wrongly beyond 2**53")
def max_cached_tokens(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    return int(memory_bytes / _kv_per_token(n_layers, n_heads, d_head, batch, bytes_per_value))


@_mistake("max_cached_tokens", "rounds up (ceiling division) instead of down, so the last length does not fit")
def max_cached_tokens(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    return -(-memory_bytes // _kv_per_token(n_layers, n_heads, d_head, batch, bytes_per_value))


@_mistake("max_cached_tokens", "forgets the factor 2 for keys and values, so twice the length seems to fit")
def max_cached_tokens(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    return memory_bytes // (n_layers * n_heads * d_head * batch * bytes_per_value)


@_mistake("max_cached_tokens", "returns the first length that no longer fits (one too many): memory // per_token + 1")
def max_cached_tokens(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    return memory_bytes // _kv_per_token(n_layers, n_heads, d_head, batch, bytes_per_value) + 1


@_mistake("max_cached_tokens", "returns np.floor of a float division: a numpy float, not an exact int")
def max_cached_tokens(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    return np.floor(memory_bytes / _kv_per_token(n_layers, n_heads, d_head, batch, bytes_per_value))


@_mistake("max_cached_tokens", "ignores batch")
def max_cached_tokens(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    return memory_bytes // _kv_per_token(n_layers, n_heads, d_head, 1, bytes_per_value)


@_mistake("max_cached_tokens", "never returns 0: clamps to at least one token even when one token does not fit")
def max_cached_tokens(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    return max(1, memory_bytes // _kv_per_token(n_layers, n_heads, d_head, batch, bytes_per_value))


@_ok("max_cached_tokens", "divmod on Python ints")
def max_cached_tokens(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    tokens, _ = divmod(int(memory_bytes), 2 * n_layers * n_heads * d_head * batch * bytes_per_value)
    return tokens


@_ok("max_cached_tokens", "an exponential then binary search on the exact byte count")
def max_cached_tokens(memory_bytes, n_layers, n_heads, d_head, batch=1, bytes_per_value=2):
    def size(t):
        return 2 * n_layers * n_heads * d_head * t * batch * bytes_per_value
    hi = 1
    while size(hi) <= memory_bytes:
        hi *= 2
    lo = 0  # size(lo) <= memory, size(hi) > memory
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if size(mid) <= memory_bytes:
            lo = mid
        else:
            hi = mid
    return lo




# =============================================================================
# 14 top_k_filter(logits, k)

def _kth_largest(logits, k):
    return np.sort(logits)[::-1][min(k, len(logits)) - 1]


@_mistake("top_k_filter", "keeps exactly k indices from np.argsort, dropping logits tied with the k-th largest")
def top_k_filter(logits, k):
    keep = np.argsort(logits)[::-1][:k]
    out = np.full(len(logits), -np.inf)
    out[keep] = logits[keep]
    return out


@_mistake("top_k_filter", "takes index k instead of k - 1 of the descending sort as the threshold (off by one), "
                          "keeping the k + 1 largest")
def top_k_filter(logits, k):
    kth = np.sort(logits)[::-1][min(k, len(logits) - 1)]
    return np.where(logits >= kth, logits, -np.inf)


@_mistake("top_k_filter", "sorts ascending (forgets [::-1]), so the threshold is the k-th smallest logit and almost "
                          "everything is kept")
def top_k_filter(logits, k):
    kth = np.sort(logits)[min(k, len(logits)) - 1]
    return np.where(logits >= kth, logits, -np.inf)


@_mistake("top_k_filter", "sets the cut logits to 0 instead of -inf (they keep a real probability)")
def top_k_filter(logits, k):
    return np.where(logits >= _kth_largest(logits, k), logits, 0.0)


@_mistake("top_k_filter", "writes -inf into logits in place and returns it, modifying the caller's array")
def top_k_filter(logits, k):
    logits[logits < _kth_largest(logits, k)] = -np.inf
    return logits


@_mistake("top_k_filter", "indexes the sorted logits at k - 1 without clipping k to vocab: IndexError when k > vocab")
def top_k_filter(logits, k):
    kth = np.sort(logits)[::-1][k - 1]
    return np.where(logits >= kth, logits, -np.inf)


@_mistake("top_k_filter", "keeps only logits strictly greater than the k-th largest (> instead of >=), dropping the "
                          "k-th itself")
def top_k_filter(logits, k):
    return np.where(logits > _kth_largest(logits, k), logits, -np.inf)


@_mistake("top_k_filter", "applies np.nan_to_num first 'for safety', so -inf logits that survive come back as "
                          "-1.8e308 instead of -inf")
def top_k_filter(logits, k):
    z = np.nan_to_num(np.asarray(logits, dtype=float))
    return np.where(z >= _kth_largest(z, k), z, -np.inf)


@_ok("top_k_filter", "keeps a token when fewer than k logits are strictly larger than its own")
def top_k_filter(logits, k):
    logits = np.asarray(logits, dtype=float)
    larger = (logits[None, :] > logits[:, None]).sum(axis=1)
    return np.where(larger < k, logits, -np.inf)


@_ok("top_k_filter", "np.partition to find the k-th largest (k clipped to vocab)")
def top_k_filter(logits, k):
    k = min(k, len(logits))
    kth = np.partition(logits, len(logits) - k)[len(logits) - k]
    out = np.array(logits, dtype=float)
    out[out < kth] = -np.inf
    return out


# =============================================================================
# 14 top_p_filter(logits, p)

def _nucleus(logits, p, side="left", extra=1, order=None, special_one=True, fill=-np.inf, stable_softmax=True):
    logits = np.asarray(logits, dtype=float)
    if special_one and p == 1.0:
        return logits.copy()
    if stable_softmax:
        P = _softmax(logits)
    else:
        e = np.exp(logits)
        P = e / e.sum()
    if order is None:
        order = np.argsort(-P, kind="stable")
    else:
        order = order(P)
    n = int(np.searchsorted(np.cumsum(P[order]), p, side=side)) + extra
    out = np.full(logits.shape, fill)
    out[order[:n]] = logits[order[:n]]
    return out


@_mistake("top_p_filter", "stops only once the running total exceeds p (searchsorted side='right'), keeping one token "
                          "too many when the total reaches p exactly")
def top_p_filter(logits, p):
    return _nucleus(logits, p, side="right")


@_mistake("top_p_filter", "keeps only the tokens before the one whose running total reaches p (off by one), so the "
                          "kept probability falls short of p")
def top_p_filter(logits, p):
    return _nucleus(logits, p, extra=0)


@_mistake("top_p_filter", "ranks the tokens from the least probable up (np.argsort(P) without reversing)")
def top_p_filter(logits, p):
    return _nucleus(logits, p, order=lambda P: np.argsort(P, kind="stable"))


@_mistake("top_p_filter", "ranks with np.argsort(P)[::-1], which puts the higher id first among equal probabilities")
def top_p_filter(logits, p):
    return _nucleus(logits, p, order=lambda P: np.argsort(P, kind="stable")[::-1])


@_mistake("top_p_filter", "has no p = 1 special case: the running total reaches 1.0 before the tokens whose "
                          "probability rounds to 0, which are cut")
def top_p_filter(logits, p):
    return _nucleus(logits, p, special_one=False)


@_mistake("top_p_filter", "takes the softmax without subtracting the max: NaN for logits around 1e300")
def top_p_filter(logits, p):
    with np.errstate(over="ignore", invalid="ignore"):
        return _nucleus(logits, p, stable_softmax=False)


@_mistake("top_p_filter", "sets the cut entries to 0 instead of -inf")
def top_p_filter(logits, p):
    return _nucleus(logits, p, fill=0.0)


@_mistake("top_p_filter", "writes -inf into logits in place and returns it, modifying the caller's array")
def top_p_filter(logits, p):
    kept = _nucleus(logits, p)
    logits[np.isneginf(kept)] = -np.inf
    return logits


@_ok("top_p_filter", "a loop down the stable ranking, adding probabilities until the total reaches p")
def top_p_filter(logits, p):
    logits = np.asarray(logits, dtype=float)
    if p == 1.0:
        return logits.copy()
    z = np.exp(logits - logits.max())
    P = z / z.sum()
    out = np.full(len(logits), -np.inf)
    total = 0.0
    for i in sorted(range(len(P)), key=lambda j: (-P[j], j)):
        out[i] = logits[i]
        total += P[i]
        if total >= p:
            break
    return out


@_ok("top_p_filter", "np.lexsort by (-probability, id) and a boolean keep-mask from the running total")
def top_p_filter(logits, p):
    logits = np.asarray(logits, dtype=float)
    if p >= 1.0:
        return np.array(logits)
    P = _softmax(logits)
    order = np.lexsort((np.arange(len(P)), -P))
    before = np.concatenate([[0.0], np.cumsum(P[order])[:-1]])
    keep = np.zeros(len(P), dtype=bool)
    keep[order[before < p]] = True
    return np.where(keep, logits, -np.inf)
# =============================================================================
# 15 capstone: a dict of the fourteen ops

def _pick(collection, exercise, start):
    found = [m.fn for m in collection if m.exercise == exercise and m.what.startswith(start)]
    assert len(found) == 1, (exercise, start, len(found))
    return found[0]


_RIGHT_OPS = {"softmax": _softmax, "attention": _attention, "embed": _embed, "multi_head_attention": _mha,
              "layer_norm": _layer_norm, "gelu": _gelu, "transformer_block": _block,
              "next_token_logits": _next_token_logits, "cross_entropy": _cross_entropy,
              "softmax_backward": _softmax_backward, "attention_backward": _attention_backward,
              "layer_norm_backward": _layer_norm_backward, "cache_step": _cache_step, "sample_next": _sample_next}


def _relu_for_gelu(X):
    return np.maximum(X, 0.0)


def _leaky_mask(n):
    return np.triu(np.full((n, n), -np.inf), k=2)


def _leaky_attention(Q, K, V, causal=True, scale=True):
    S = Q @ K.T / (math.sqrt(Q.shape[1]) if scale else 1.0)
    return _softmax(S + _leaky_mask(len(Q)) if causal else S) @ V


def _leaky_attention_backward(Q, K, V, dO, causal=True, scale=True):
    s = 1.0 / math.sqrt(Q.shape[1]) if scale else 1.0
    A = _softmax(Q @ K.T * s + (_leaky_mask(len(Q)) if causal else 0.0))
    dS = _softmax_backward(A, dO @ V.T) * s
    return dS @ K, dS.T @ Q, A.T @ dO


def _capstone(what, **replace):
    MISTAKES.append(Mistake("capstone", what, {**_RIGHT_OPS, **replace}))


_capstone("ops['gelu'] is a ReLU, np.maximum(X, 0), instead of the tanh GELU (the other thirteen ops are right)",
          gelu=_relu_for_gelu)
_capstone("ops['attention'] never divides the scores by sqrt(d_head) (ignores scale); the other ops are right",
          attention=_pick(MISTAKES, "attention", "never divides by sqrt(d)"))
_capstone("ops['layer_norm_backward'] drops the correction along Xhat from dX; the other ops are right",
          layer_norm_backward=_pick(MISTAKES, "layer_norm_backward", "drops the correction along Xhat"))
_capstone("ops['cache_step'] forgets the 1/sqrt(d) scale (changes generation only); the other ops are right",
          cache_step=_pick(MISTAKES, "cache_step", "forgets the 1/sqrt(d) scale"))
_capstone("ops['attention'] and ops['attention_backward'] share a causal mask built with np.triu k=2, which lets row i "
          "see position i + 1 (two ops wrong, consistently: the loss falls too well)",
          attention=_leaky_attention, attention_backward=_leaky_attention_backward)
_capstone("ops['embed'] takes the last n rows of pos_emb instead of the first n; the other ops are right",
          embed=_pick(MISTAKES, "embed", "takes the last n rows of pos_emb"))
_capstone("ops['cross_entropy'] sums the loss over rows instead of averaging (loss and gradient n times too large); "
          "the other ops are right",
          cross_entropy=_pick(MISTAKES, "cross_entropy", "sums over the rows instead of averaging"))
_capstone("ops['transformer_block'] is post-LN instead of pre-LN; the other ops are right",
          transformer_block=_pick(MISTAKES, "transformer_block", "post-LN instead of pre-LN"))
_capstone("ops['next_token_logits'] uses the first row H[0] instead of the last; the other ops are right",
          next_token_logits=_pick(MISTAKES, "next_token_logits", "uses the first row H[0]"))
_capstone("ops['multi_head_attention'] gives each head strided columns instead of a contiguous block; the other ops "
          "are right",
          multi_head_attention=_pick(MISTAKES, "multi_head_attention", "gives head h every n_heads-th column"))
_capstone("ops['layer_norm'] uses the unbiased variance (ddof=1); the other ops are right",
          layer_norm=_pick(MISTAKES, "layer_norm", "uses the unbiased variance"))
_capstone("ops['sample_next'] tests the running total before adding the token's own probability, returning the "
          "token after the right one (shows only when sampling); the other ops are right",
          sample_next=_pick(MISTAKES, "sample_next", "the loop tests the running total"))
_capstone("ops['softmax_backward'] keeps only the diagonal of the Jacobian, A (1 - A) dA (not called while "
          "attention_backward is given, but it fails its own check); the other ops are right",
          softmax_backward=_pick(MISTAKES, "softmax_backward", "uses only the diagonal"))
_capstone("ops['softmax'] subtracts the global max instead of each row's max (0/0 for a row far below it); the other "
          "ops are right",
          softmax=_pick(MISTAKES, "softmax", "subtracts the global max"))

ACCEPTABLE.append(Mistake("capstone", "all fourteen ops written correctly (the shared reference helpers)",
                          dict(_RIGHT_OPS)))
ACCEPTABLE.append(Mistake("capstone", "only the four ops of lesson 15 (softmax, gelu, layer_norm, cross_entropy); "
                                      "attnlib fills in the rest",
                          {k: _RIGHT_OPS[k] for k in ("softmax", "gelu", "layer_norm", "cross_entropy")}))
ACCEPTABLE.append(Mistake("capstone", "all fourteen ops taken from the acceptable variants above (loops, einsum, "
                                      "other equivalent formulas)",
                          {name: [m.fn for m in ACCEPTABLE if m.exercise == name][0] for name in _RIGHT_OPS}))
ACCEPTABLE.append(Mistake("capstone", "all fourteen ops taken from the second acceptable variant of each exercise",
                          {name: [m.fn for m in ACCEPTABLE if m.exercise == name][-1] for name in _RIGHT_OPS}))
