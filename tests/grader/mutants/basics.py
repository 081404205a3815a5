"""Notebooks 01-05: project, project_rows, values, uniform_causal_weights, causal_average, similarity."""
import numpy as np

# 01 project -----------------------------------------------------------------


def project_elementwise(x, W):
    return (x * W.T).T.sum(axis=1)  # sums over the output axis: wrong shape when d_in != d_out


def project_einsum(x, W):
    return np.einsum("i,ij->j", x, W)


def project_loops(x, W):
    out = np.zeros(W.shape[1])
    for j in range(W.shape[1]):
        for i in range(W.shape[0]):
            out[j] += x[i] * W[i, j]
    return out


def project_float32(x, W):
    return x.astype(np.float32) @ W.astype(np.float32)


# 02 project_rows ------------------------------------------------------------


def rows_output_transposed(X, W):
    return W.T @ X.T


def rows_first_only(X, W):
    return X[0] @ W


def rows_loop(X, W):
    return np.stack([x @ W for x in X])


def rows_einsum(X, W):
    return np.einsum("ni,io->no", X, W)


def rows_float32(X, W):
    return (X.astype(np.float32) @ W.astype(np.float32))


# 03 values ------------------------------------------------------------------


def values_returns_X(tokens, table, Wv):
    return np.array([table[w] for w in tokens])


def values_loop(tokens, table, Wv):
    V = np.zeros((len(tokens), Wv.shape[1]))
    for i, w in enumerate(tokens):
        V[i] = table[w] @ Wv
    return V


def values_one_hot(tokens, table, Wv):
    vocab = list(table)
    E = np.array([table[w] for w in vocab])
    onehot = np.zeros((len(tokens), len(vocab)))
    onehot[np.arange(len(tokens)), [vocab.index(w) for w in tokens]] = 1.0
    return onehot @ E @ Wv


def values_einsum(tokens, table, Wv):
    return np.einsum("nd,dv->nv", np.stack([table[w] for w in tokens]), Wv)


# 04 uniform_causal_weights, causal_average ----------------------------------


def ucw_loops(n):
    A = np.zeros((n, n))
    for i in range(n):
        for j in range(i + 1):
            A[i, j] = 1.0 / (i + 1)
    return A


def ucw_broadcast(n):
    i = np.arange(n)[:, None]
    j = np.arange(n)[None, :]
    return np.where(j <= i, 1.0 / (i + 1), 0.0)


def ucw_float32(n):
    A = np.tril(np.ones((n, n), dtype=np.float32))
    return A / A.sum(axis=1, keepdims=True)


def avg_loop(V):
    return np.array([V[:i + 1].mean(axis=0) for i in range(V.shape[0])])


def avg_matrix(V):
    n = V.shape[0]
    A = np.tril(np.ones((n, n))) / np.arange(1, n + 1)[:, None]
    return A @ V


def avg_float32(V):
    V = V.astype(np.float32)
    return np.cumsum(V, axis=0) / np.arange(1, V.shape[0] + 1, dtype=np.float32)[:, None]


# 05 similarity ---------------------------------------------------------------


def sim_einsum(Q, K):
    return np.einsum("id,jd->ij", Q, K)


def sim_loops(Q, K):
    S = np.empty((Q.shape[0], K.shape[0]))
    for i in range(Q.shape[0]):
        for j in range(K.shape[0]):
            S[i, j] = np.dot(Q[i], K[j])
    return S


def sim_float32(Q, K):
    return Q.astype(np.float32) @ K.astype(np.float32).T


WRONG = {
    "project": [("sum-wrong-axis", project_elementwise)],
    "project_rows": [("output-transposed", rows_output_transposed),
                     ("only-one-row", rows_first_only)],
    "values": [
               ("projection-missing", values_returns_X)],
    "uniform_causal_weights": [
                               ],
    "causal_average": [
                       ],
    "similarity": [
                   ],
}
RIGHT = {
    "project": [project_einsum, project_loops, project_float32],
    "project_rows": [rows_loop, rows_einsum, rows_float32],
    "values": [values_loop, values_one_hot, values_einsum],
    "uniform_causal_weights": [ucw_loops, ucw_broadcast, ucw_float32],
    "causal_average": [avg_loop, avg_matrix, avg_float32],
    "similarity": [sim_einsum, sim_loops, sim_float32],
}


# -- the exercises compose (01), matmul_cost (02), one_hot (03), learned_scores (05) ---------------------------
import functools  # noqa: E402
import math  # noqa: E402
import operator  # noqa: E402

# 01 compose -------------------------------------------------------------------


def compose_sum(W1, W2):
    return W1 + W2


def compose_einsum(W1, W2):
    return np.einsum("im,mo->io", W1, W2)


def compose_loops(W1, W2):
    W = np.zeros((W1.shape[0], W2.shape[1]))
    for i in range(W1.shape[0]):
        for j in range(W2.shape[1]):
            for m in range(W1.shape[1]):
                W[i, j] += W1[i, m] * W2[m, j]
    return W


def compose_basis_vectors(W1, W2):
    rows = [(e @ W1) @ W2 for e in np.eye(W1.shape[0])]  # where each input feature ends up
    return np.array(rows)


def compose_float32(W1, W2):
    return np.matmul(W1.astype(np.float32), W2.astype(np.float32))


# 02 matmul_cost ---------------------------------------------------------------


def cost_as_float(n, d_in, d_out):
    return n * d_in * d_out * 1.0


def cost_math_prod(n, d_in, d_out):
    return math.prod([n, d_in, d_out])


def cost_per_row(n, d_in, d_out):
    per_entry = d_in
    per_row = per_entry * d_out
    return n * per_row


def cost_reduce(n, d_in, d_out):
    return functools.reduce(operator.mul, (n, d_in, d_out), 1)


def cost_int64(n, d_in, d_out):  # the right count, as a numpy integer: the text asks for an exact Python int
    return np.array([n, d_in, d_out], dtype=np.int64).prod()


# 03 one_hot -------------------------------------------------------------------


def oh_boolean(ids, vocab_size):
    return ids[:, None] == np.arange(vocab_size)[None, :]


def oh_eye(ids, vocab_size):
    return np.eye(vocab_size)[ids]


def oh_loop(ids, vocab_size):
    rows = []
    for t in ids:
        row = [0.0] * vocab_size
        row[int(t)] = 1.0
        rows.append(row)
    return np.array(rows).reshape(len(ids), vocab_size)


def oh_compare(ids, vocab_size):
    return (ids.reshape(-1, 1) == np.arange(vocab_size)).astype(float)


def oh_float32(ids, vocab_size):
    out = np.zeros((ids.shape[0], vocab_size), dtype=np.float32)
    out[np.arange(ids.shape[0]), ids] = 1
    return out


# 05 learned_scores ------------------------------------------------------------


def ls_wq_twice(X, Wq, Wk):
    Q = X @ Wq
    return Q @ Q.T


def ls_einsum(X, Wq, Wk):
    return np.einsum("ia,ad,jb,bd->ij", X, Wq, X, Wk)


def ls_bilinear(X, Wq, Wk):
    return X @ (Wq @ Wk.T) @ X.T  # one (d_model, d_model) matrix between the tokens


def ls_loops(X, Wq, Wk):
    n = X.shape[0]
    S = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            S[i, j] = (X[i] @ Wq) @ (X[j] @ Wk)
    return S


def ls_float32(X, Wq, Wk):
    Q = X.astype(np.float32) @ Wq.astype(np.float32)
    K = X.astype(np.float32) @ Wk.astype(np.float32)
    return Q @ K.T


WRONG.update({
    "compose": [
                ],
    "matmul_cost": [("not-a-python-int", cost_int64),


                    ("returns-float", cost_as_float)],
    "one_hot": [
                ("returned-booleans", oh_boolean),
                ],
    "learned_scores": [("wrong-argument-used", ls_wq_twice),
                       ],
})
RIGHT.update({
    "compose": [compose_einsum, compose_loops, compose_basis_vectors, compose_float32],
    "matmul_cost": [cost_math_prod, cost_per_row, cost_reduce],
    "one_hot": [oh_eye, oh_loop, oh_compare, oh_float32],
    "learned_scores": [ls_einsum, ls_bilinear, ls_loops, ls_float32],
})
