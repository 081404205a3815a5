"""Notebook 16: rope and rope_attention, right answers written differently (their mistakes are the pipelines'
options, graded whole in test_choices.py, and the blind set blind/rope.py)."""
import numpy as np


def rope_complex(X, positions, theta=10000.0):
    d = X.shape[1]
    z = X[:, 0::2] + 1j * X[:, 1::2]  # each pair as one complex number
    turned = z * np.exp(1j * np.outer(positions, theta ** (-np.arange(d // 2) * 2.0 / d)))
    out = np.empty(X.shape)
    out[:, 0::2], out[:, 1::2] = turned.real, turned.imag
    return out


def rope_matrices(X, positions, theta=10000.0):
    n, d = X.shape
    out = np.zeros((n, d))
    for t in range(n):
        for i in range(d // 2):
            a = positions[t] / theta ** (2 * i / d)
            R = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
            out[t, 2 * i:2 * i + 2] = R @ X[t, 2 * i:2 * i + 2]
    return out


def rope_tables(X, positions, theta=10000.0):
    n, d = X.shape
    a = np.repeat(np.asarray(positions, dtype=float)[:, None] * theta ** (-np.arange(0, d, 2) / d), 2, axis=1)
    partner = np.stack([-X[:, 1::2], X[:, 0::2]], axis=2).reshape(n, d)  # (-y, x) in each pair's place
    return X * np.cos(a) + partner * np.sin(a)


def _softmax_rows(S):
    E = np.exp(S - S.max(axis=1, keepdims=True))
    return E / E.sum(axis=1, keepdims=True)


def ra_tables(Q, K, V, positions, theta=10000.0):
    n, d = Q.shape
    S = rope_tables(Q, positions, theta) @ rope_tables(K, positions, theta).T / np.sqrt(d)
    S[np.triu_indices(n, 1)] = -np.inf
    return _softmax_rows(S) @ V


def ra_loops(Q, K, V, positions, theta=10000.0):
    n, d = Q.shape
    Qr, Kr = rope_matrices(Q, positions, theta), rope_matrices(K, positions, theta)
    O = np.zeros((n, V.shape[1]))
    for i in range(n):
        s = np.array([Qr[i] @ Kr[j] for j in range(i + 1)]) / np.sqrt(d)  # row i sees rows 0 .. i
        w = np.exp(s - s.max())
        O[i] = (w / w.sum()) @ V[:i + 1]
    return O


def ra_einsum(Q, K, V, positions, theta=10000.0):
    n, d = Q.shape
    S = np.einsum("id,jd->ij", rope_complex(Q, positions, theta), rope_complex(K, positions, theta)) / d ** 0.5
    S = np.where(np.tril(np.ones((n, n), dtype=bool)), S, -np.inf)
    return np.einsum("ij,jv->iv", _softmax_rows(S), V)


WRONG = {}
RIGHT = {"rope": [rope_complex, rope_matrices, rope_tables], "rope_attention": [ra_tables, ra_loops, ra_einsum]}
