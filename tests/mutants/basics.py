"""Notebooks 01-05: project, project_rows, values, uniform_causal_weights, causal_average, similarity."""
import numpy as np

# 01 project -----------------------------------------------------------------


def project_w_times_x(x, W):
    return W @ x


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


def rows_transposed_weights(X, W):
    return X @ W.T


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


def values_unique(tokens, table, Wv):
    X = np.array([table[w] for w in sorted(set(tokens))])
    return X @ Wv


def values_from_table(tokens, table, Wv):
    return np.array(list(table.values())) @ Wv


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


def ucw_upper(n):
    A = np.triu(np.ones((n, n)))
    return A / A.sum(axis=1, keepdims=True)


def ucw_unnormalised(n):
    return np.tril(np.ones((n, n)))


def ucw_divide_by_n(n):
    return np.tril(np.ones((n, n))) / n


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


def avg_all_rows(V):
    return np.tile(V.mean(axis=0), (V.shape[0], 1))


def avg_cumsum_only(V):
    return np.cumsum(V, axis=0)


def avg_divide_by_i(V):
    return np.cumsum(V, axis=0) / np.arange(V.shape[0]).reshape(-1, 1)


def avg_columns(V):
    return np.cumsum(V, axis=1) / np.arange(1, V.shape[1] + 1)


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


def sim_no_transpose(Q, K):
    return Q @ K


def sim_kq(Q, K):
    return K @ Q.T


def sim_scaled(Q, K):
    return Q @ K.T / np.sqrt(Q.shape[1])


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
    "project": [("weights-transposed", project_w_times_x), ("sum-wrong-axis", project_elementwise)],
    "project_rows": [("weights-transposed", rows_transposed_weights), ("output-transposed", rows_output_transposed),
                     ("only-one-row", rows_first_only)],
    "values": [("tokens-deduplicated", values_unique), ("rows-from-table-not-tokens", values_from_table),
               ("projection-missing", values_returns_X)],
    "uniform_causal_weights": [("mask-hides-past", ucw_upper), ("weights-not-normalised", ucw_unnormalised),
                               ("normalised-by-n", ucw_divide_by_n)],
    "causal_average": [("average-over-all-rows", avg_all_rows), ("weights-not-normalised", avg_cumsum_only),
                       ("off-by-one-count", avg_divide_by_i), ("average-over-columns", avg_columns)],
    "similarity": [("k-not-transposed", sim_no_transpose), ("kq-instead-of-qk", sim_kq),
                   ("similarity-scaled", sim_scaled)],
}
RIGHT = {
    "project": [project_einsum, project_loops, project_float32],
    "project_rows": [rows_loop, rows_einsum, rows_float32],
    "values": [values_loop, values_one_hot, values_einsum],
    "uniform_causal_weights": [ucw_loops, ucw_broadcast, ucw_float32],
    "causal_average": [avg_loop, avg_matrix, avg_float32],
    "similarity": [sim_einsum, sim_loops, sim_float32],
}
