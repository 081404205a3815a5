"""Notebook 06 (mask and softmax): the claims its text makes.

The general claims and the answers hidden in the "Check your intuition" cells are recomputed here with
plain numpy (or PyTorch autograd) instead of the notebook's own code.
"""
import math

import numpy as np

from claims import causal_scores
from helpers import need, softmax_rows


def test_06_answers_softmax_facts():
    import attnlib as at
    assert at.softmax(np.array([2.0, -np.inf, -np.inf])).tolist() == [1.0, 0.0, 0.0]  # question 1
    s = np.random.default_rng(3).standard_normal(6)
    assert np.allclose(at.softmax(s + 100.0), softmax_rows(s))  # question 2, adding
    assert at.softmax(100.0 * s).max() > 0.99  # question 2, multiplying
    assert at.softmax(np.array([0.0, -1e9]))[1] == 0.0 and np.exp(-30.0) > 0.0  # question 3


def test_06_variance_of_q_dot_k_grows_with_d():
    rng = np.random.default_rng(4)
    var = {}
    for d in (64, 256):
        q, k = rng.standard_normal((2, 20000, d))
        var[d] = np.sum(q * k, axis=1).var()
    assert 3.6 < var[256] / var[64] < 4.4  # question 4: 4 times the variance, 2 times the size


def test_06_mask_after_softmax_breaks_the_row_sums():
    S = np.random.default_rng(5).standard_normal((5, 5))
    late = np.tril(softmax_rows(S))  # question 5: zero the future after the softmax
    assert not np.allclose(late.sum(axis=1)[:-1], 1.0)
    assert np.allclose(softmax_rows(causal_scores(S)).sum(axis=1), 1.0)


def test_06_dividing_the_scores_moves_every_row_toward_an_even_split():
    """06: with the scores divided by sqrt(d), each row's largest weight shrinks and its smallest grows."""
    rng = np.random.default_rng(6)
    for _ in range(200):
        s = rng.normal(0.0, rng.uniform(0.1, 5.0), size=rng.integers(2, 9))
        before, after = softmax_rows(s), softmax_rows(s / np.sqrt(rng.uniform(1.5, 64.0)))
        assert after.max() <= before.max() + 1e-15 and after.min() >= before.min() - 1e-15


def test_06_fewer_queries_than_keys_are_the_last_positions():
    """06: with n_q < n_k the queries are the last n_q positions: "the" and "mat" get rows 4 and 5 of A."""
    import attnlib as at
    from attnlib.data import essay_example
    ex = essay_example()
    Q, K = ex["X"] @ ex["Wq"], ex["X"] @ ex["Wk"]
    S = np.array([[Q[i] @ K[j] for j in range(6)] for i in range(6)]) / math.sqrt(6)
    full = softmax_rows(causal_scores(S))  # (6, 6), written out here
    last = at.attention_weights(Q[4:], K)  # (2, 6)
    assert np.allclose(last, full[4:]) and (last[0] == 0).tolist() == [False] * 5 + [True]
    top_rows_mask = softmax_rows(causal_scores(S)[:2] - S[:2] + S[4:])  # the first two rows' mask: the wrong offset
    assert not np.allclose(last, top_rows_mask)


def test_06_softmax_gradient_vanishes_as_scores_grow_torch():
    torch = need("torch", "PyTorch autograd is the independent reference for the softmax gradient")
    import attnlib as at
    rng = np.random.default_rng(6)
    rows, upstream = rng.standard_normal((2, 200, 8))
    norms = []
    for c in (1.0, 8.0, 64.0):
        S = torch.tensor(c * rows, dtype=torch.float64, requires_grad=True)
        torch.softmax(S, dim=-1).backward(torch.tensor(upstream))
        dS = S.grad.numpy()
        A = at.softmax(c * rows)
        assert np.allclose(at.softmax_backward(A, upstream), dS, atol=1e-12)
        norms.append(np.median(np.linalg.norm(dS, axis=1)))
    assert norms[0] > norms[1] > norms[2] and norms[2] < 1e-6 * norms[0]
