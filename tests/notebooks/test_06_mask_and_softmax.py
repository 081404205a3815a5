"""Notebooks 04-07: the claims their text makes.

The notebook rules of DESIGN.md section 4 are checked in test_notebook_rules.py;
these tests check that the general claims and the answers hidden in the "Check your intuition"
cells are true, recomputed here with plain numpy (or PyTorch autograd) instead of the notebooks'
own code. The motivation of 05 is checked against the trained model that notebook 12 shows.
"""

import math

import numpy as np

from helpers import need, softmax_rows


def causal(S):
    S = S.copy()
    S[np.triu_indices(S.shape[0], k=1)] = -np.inf
    return S


# ---------------------------------------------------------------------------
# 04: mixing rows

def test_04_causal_average_leaves_the_past_alone():
    rng = np.random.default_rng(0)
    V = rng.standard_normal((6, 4))
    mixed = np.array([V[: i + 1].mean(axis=0) for i in range(6)])
    V2 = V.copy()
    V2[2] += 1.0  # edit position 2 (question 4)
    mixed2 = np.array([V2[: i + 1].mean(axis=0) for i in range(6)])
    changed = ~np.all(np.isclose(mixed, mixed2), axis=1)
    assert changed.tolist() == [False, False, True, True, True, True]
    assert np.array_equal(mixed[0], V[0])


def test_04_answers_uniform_weights_and_row_sums():
    import attnlib as at
    A = at.uniform_causal_weights(100)
    assert np.allclose(A[-1], 0.01)  # question 2: 1/100 each
    V = np.random.default_rng(1).standard_normal((4, 3))
    w = np.array([0.5, 0.5, 0.5, 0.5])  # a row summing to 2 gives twice an average (question 3)
    assert np.allclose(w @ V, 2 * V.mean(axis=0))


# ---------------------------------------------------------------------------
# 05: learned scores

def test_05_answers_shapes_and_key_scaling():
    from attnlib.data import essay_example
    ex = essay_example(d_head=4)
    Q, K = ex["X"] @ ex["Wq"], ex["X"] @ ex["Wk"]
    assert Q.shape == K.shape == (6, 4) and (Q @ K.T).shape == (6, 6)  # question 1
    K10 = K.copy()
    K10[2] *= 10.0
    S, S10 = Q @ K.T, Q @ K10.T
    assert np.allclose(S10[:, 2], 10 * S[:, 2]) and np.allclose(np.delete(S10, 2, 1), np.delete(S, 2, 1))


def test_05_xxt_is_symmetric_but_qkt_is_not():
    rng = np.random.default_rng(2)
    X = rng.standard_normal((5, 6))
    Wq, Wk = rng.standard_normal((2, 6, 6))
    assert np.allclose(X @ X.T, (X @ X.T).T)
    S = (X @ Wq) @ (X @ Wk).T
    assert not np.allclose(S, S.T)
    assert np.allclose(S, X @ (Wq @ Wk.T) @ X.T)


def test_05_in_the_grammar_the_place_is_fixed_by_the_animal():
    from attnlib.data import cat_sentences
    place_of = {}
    for sentence in cat_sentences(300, seed=4):
        words = sentence.split()
        animal = words[words.index("the", 1) - 3]  # "... animal verb on the place ."
        place_of.setdefault(animal, set()).add(words[-2])
    assert place_of["cat"] == {"mat"} and place_of["dog"] == {"rug"} and place_of["bird"] == {"branch"}
    assert all(len(places) == 1 for places in place_of.values())


def test_05_motivation_the_trained_second_the_looks_at_cat():
    from attnlib.train import train_task
    run = train_task("sentences", seed=0, progress=False)  # the model notebook 12 shows
    words = "the cat sat on the mat .".split()
    tokens = run.task.tokenizer.encode(words)
    maps = run.model.attention_maps(tokens)  # (layers, heads, T, T)
    for layer_maps in maps:
        for A in layer_maps:
            assert words[int(np.argmax(A[4]))] == "cat"  # every head of every layer
    next_word = run.task.tokenizer.words[int(run.model.forward(tokens[None])[0, 4].argmax())]
    assert next_word == "mat"
    strong = [(l, h) for l in range(maps.shape[0]) for h in range(maps.shape[1]) if maps[l, h, 4, 1] > 0.5]
    assert len(strong) >= 3  # most heads give "cat" more than half of the row


def test_05_a_fixed_three_back_rule_picks_the_hat():
    s1, s2 = "the cat sat on the mat".split(), "the cat with the hat sat on the mat".split()
    assert s1[4 - 3] == "cat" and s2[7 - 3] == "hat"


def test_05_q_and_k_entries_end_at_the_third_decimal():
    """05 prints the factors of one score with three decimals and says that is all they have."""
    from attnlib.data import essay_example
    ex = essay_example()
    tenths, hundredths = ex["X"] * 10, np.stack([ex["Wq"], ex["Wk"]]) * 100
    assert np.allclose(tenths, np.round(tenths), atol=1e-9) and np.allclose(hundredths, np.round(hundredths), atol=1e-9)
    ints = [np.round(tenths).astype(int) @ np.round(h).astype(int) for h in hundredths]  # exact integer products
    Q, K = (ex["X"] @ ex[w] for w in ("Wq", "Wk"))
    assert np.allclose(Q * 1000, ints[0], rtol=0, atol=1e-9) and np.allclose(K * 1000, ints[1], rtol=0, atol=1e-9)
    assert int(ints[0][4] @ ints[1][1]) == -351002  # the score by hand: -0.351002, exactly


# ---------------------------------------------------------------------------
# 06: mask, softmax and the scale

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
    assert np.allclose(softmax_rows(causal(S)).sum(axis=1), 1.0)


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
    full = softmax_rows(causal(S))  # (6, 6), written out here
    last = at.attention_weights(Q[4:], K)  # (2, 6)
    assert np.allclose(last, full[4:]) and (last[0] == 0).tolist() == [False] * 5 + [True]
    top_rows_mask = softmax_rows(causal(S)[:2] - S[:2] + S[4:])  # the first two rows' mask: the wrong offset
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


# ---------------------------------------------------------------------------
# 07: the module

def test_07_rows_of_o_are_convex_mixtures_of_v():
    rng = np.random.default_rng(7)
    n = 6
    V = rng.standard_normal((n, 4))
    V[:, 1] = -np.abs(V[:, 1]) - 0.1  # a column that is negative everywhere (question 2)
    A = softmax_rows(causal(3.0 * rng.standard_normal((n, n))))
    O = A @ V
    assert np.all(O[:, 1] < 0)
    for i in range(n):
        assert np.all(V[: i + 1].min(axis=0) - 1e-12 <= O[i])
        assert np.all(O[i] <= V[: i + 1].max(axis=0) + 1e-12)
    assert np.allclose(O[0], V[0])  # question 3


def test_07_tiny_weights_give_the_uniform_average():
    import attnlib as at
    from attnlib.data import essay_example
    ex = essay_example()
    X = ex["X"]
    A = at.attention_weights(X @ (0.01 * ex["Wq"]), X @ (0.01 * ex["Wk"]))  # question 4
    uniform = np.tril(np.ones((6, 6))) / np.arange(1, 7)[:, None]
    assert np.abs(A - uniform).max() < 1e-3


def test_07_scores_are_quadratic_in_x():
    rng = np.random.default_rng(9)
    X, X2 = rng.standard_normal((2, 5, 6))
    Wq, Wk = rng.standard_normal((2, 6, 4))

    def scores(Z):
        return (Z @ Wq) @ (Z @ Wk).T

    assert np.allclose(scores(2 * X), 4 * scores(X))  # doubling X quadruples every score
    assert not np.allclose(scores(X + X2), scores(X) + scores(X2))


def test_07_attention_is_not_linear_but_fixed_mixing_is():
    import attnlib as at
    rng = np.random.default_rng(8)
    X, X2 = rng.uniform(0, 1, (2, 5, 6))
    Wq, Wk, Wv = rng.uniform(-1, 1, (3, 6, 6))
    U = np.tril(np.ones((5, 5))) / np.arange(1, 6)[:, None]
    assert np.allclose(U @ (X + X2) @ Wv, U @ X @ Wv + U @ X2 @ Wv)
    f = lambda Z: at.self_attention(Z, Wq, Wk, Wv)
    assert not np.allclose(f(2 * X), 2 * f(X))
    assert not np.allclose(f(X + X2), f(X) + f(X2))


def test_07_online_softmax_over_key_blocks_gives_the_full_softmax():
    """The running max and running sums, key block by key block, give softmax(S) V for every row, any block size."""
    rng = np.random.default_rng(12)
    n, d = 7, 4
    Q, K, V = rng.standard_normal((3, n, d))
    for scale, block in ((1.0, 1), (1.0, 3), (1.0, 7), (2000.0, 2)):  # 2000: scores far beyond exp's range
        S = causal(scale * Q @ K.T / math.sqrt(d))
        with np.errstate(over="ignore", under="ignore", invalid="ignore"):
            naive = np.exp(S) / np.exp(S).sum(axis=1, keepdims=True)  # no max subtracted
        if scale > 1:
            assert not np.all(np.isfinite(naive @ V))
        for i in range(n):
            m, l, acc = -np.inf, 0.0, np.zeros(d)
            for start in range(0, i + 1, block):  # only the keys row i may see
                s = S[i, start:min(start + block, i + 1)]
                m_new = max(m, s.max())
                l = l * math.exp(m - m_new) + np.exp(s - m_new).sum()
                acc = acc * math.exp(m - m_new) + np.exp(s - m_new) @ V[start:start + len(s)]
                m = m_new
            assert np.allclose(acc / l, softmax_rows(S[i]) @ V)
