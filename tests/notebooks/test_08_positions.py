"""Notebook 08, positions: the claims its text makes, recomputed with plain numpy.

Attention is written out here loop by loop (no attnlib.attention); the inputs are
the course's fixed word vectors and example weights. The ablation is re-run with a
different seed than the notebook's, and its order-blind baseline is counted with
collections.Counter rather than the notebook's bincount.
"""
import math
from collections import Counter
from itertools import permutations

import numpy as np
import pytest

import attnlib as at
from attnlib.checks.positions import embed
from attnlib.data import essay_example
from attnlib.train import blas_threads
from helpers import softmax_rows


def attend(X, Wq, Wk, Wv, causal):
    """One head, written out: scores q_i . k_j / sqrt(d), -inf above the diagonal when causal, row softmax, A V."""
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    n, d = Q.shape
    S = np.array([[Q[i] @ K[j] / math.sqrt(d) for j in range(n)] for i in range(n)])
    if causal:
        S[np.triu_indices(n, k=1)] = -np.inf
    return softmax_rows(S) @ V


def sentence(text):
    ex = essay_example(text)
    return ex["tokens"], ex["X"], (ex["Wq"], ex["Wk"], ex["Wv"])


def position_table():
    """The notebook's P: 16 positions x 6, uniform in [-0.5, 0.5], rounded to 0.1, seed 8."""
    return np.round(np.random.default_rng(8).uniform(-0.5, 0.5, (16, 6)), 1)


def test_without_mask_or_positions_every_permutation_only_permutes_the_outputs():
    tokens, X, W = sentence("the cat sat on the mat")
    O = attend(X, *W, causal=False)
    for perm in list(permutations(range(6)))[::37]:  # 20 of the 720 orders
        perm = list(perm)
        np.testing.assert_allclose(attend(X[perm], *W, causal=False), O[perm], atol=1e-12)
    np.testing.assert_allclose(O[0], O[4], atol=1e-12)  # the two "the" rows


def test_opposite_sentences_give_each_word_the_same_output():
    _, Xa, W = sentence("the cat chased the dog")
    _, Xb, _ = sentence("the dog chased the cat")
    Oa, Ob = attend(Xa, *W, causal=False), attend(Xb, *W, causal=False)
    for i, j in ((0, 0), (1, 4), (2, 2), (3, 3), (4, 1)):
        np.testing.assert_allclose(Oa[i], Ob[j], atol=1e-12)


def test_the_mask_sees_a_set_not_an_order():
    tokens, X, W = sentence("the cat sat on the mat")
    O = attend(X, *W, causal=True)
    assert not np.allclose(O[0], O[4])  # the mask separates the two "the"
    order = [2, 0, 3, 1, 4, 5]  # "sat the on cat the mat"
    O2 = attend(X[order], *W, causal=True)
    np.testing.assert_allclose(O2[4:], O[4:], atol=1e-12)
    changed = [i for i in range(6) if not np.allclose(O2[i], O[order[i]])]
    assert changed == [0, 1, 2, 3]


def test_answer_2_swapping_positions_1_and_3_under_the_mask_changes_rows_1_to_3():
    for text in ("the cat sat on the mat", "a big dog ran to me"):
        _, X, W = sentence(text)
        O = attend(X, *W, causal=True)
        swapped = attend(X[[0, 3, 2, 1, 4, 5]], *W, causal=True)
        changed = [i for i in range(6) if not np.allclose(swapped[i], O[i])]
        assert changed == [1, 2, 3], text


def test_position_vectors_separate_repeated_words_and_break_the_symmetry():
    tokens, X, W = sentence("the cat sat on the mat")
    P = position_table()
    X_pos = X + P[:6]
    O = attend(X_pos, *W, causal=False)
    assert not np.allclose(O[0], O[4])
    perm = [3, 0, 5, 1, 2, 4]
    assert not np.allclose(attend(X[perm] + P[:6], *W, causal=False), O[perm])
    # the notebook's remark: X rows differ a lot, O rows only a little (A is almost uniform)
    assert np.abs(X_pos[0] - X_pos[4]).max() > 0.5 > 0.1 > np.abs(O[0] - O[4]).max() > 0.005


def test_tinylm_without_positions_and_mask_is_a_bag_of_words():
    model = at.TinyLM(vocab_size=7, d_model=8, n_heads=2, n_layers=3, max_len=10, seed=5, causal=False)
    ids = np.array([3, 1, 6, 3, 0, 2, 5])
    perm = np.array([6, 2, 0, 5, 1, 3, 4])
    assert not np.allclose(model.forward(ids[perm]), model.forward(ids)[perm])
    model.params["pos_emb"][:] = 0.0
    np.testing.assert_allclose(model.forward(ids[perm]), model.forward(ids)[perm], atol=1e-12)


def test_tinylm_refuses_a_sequence_longer_than_its_position_table():
    model = at.TinyLM(vocab_size=5, d_model=8, n_heads=2, n_layers=1, max_len=16, seed=0)
    with pytest.raises(ValueError, match="max_len=16"):
        model.forward(np.zeros(17, dtype=int))


def test_sinusoidal_dot_products_depend_only_on_the_offset():
    d = 16
    freqs = [10000 ** (-(2 * i) / d) for i in range(d // 2)]

    def p(t):
        return np.array([f(t * w) for w in freqs for f in (math.sin, math.cos)])  # sin, cos interleaved

    for offset in (1, 5, 20):
        expected = sum(math.cos(offset * w) for w in freqs)
        for t in (0, 3, 11):
            assert math.isclose(p(t) @ p(t + offset), expected, abs_tol=1e-12)


def test_embed_reference_by_hand():
    tok_emb = np.array([[1.0, 0.0], [0.0, 1.0], [2.0, 2.0]])
    pos_emb = np.array([[10.0, 0.0], [0.0, 10.0], [5.0, 5.0], [7.0, 7.0]])
    X = embed(np.array([2, 0, 2]), tok_emb, pos_emb)
    np.testing.assert_array_equal(X, [[12, 2], [1, 10], [7, 7]])


def look_back(rng, batch_size, T=16, k=8, vocab=12):
    seq = rng.integers(0, vocab, (batch_size, T))
    answers = -np.ones((batch_size, T), dtype=int)
    answers[:, k:] = seq[:, :T - k]
    return seq, answers


def trained_accuracy(use_positions, seed, test):
    model = at.TinyLM(vocab_size=12, d_model=32, n_heads=2, n_layers=2, max_len=16, seed=seed)
    if not use_positions:
        model.params["pos_emb"].fill(0.0)
    optimizer = at.Adam(model.params, lr=1e-2)
    rng = np.random.default_rng(seed)
    for _ in range(120):
        _, grads = model.loss_and_grads(*look_back(rng, 32))
        if not use_positions:
            grads["pos_emb"].fill(0.0)
        optimizer.step(grads)
    if not use_positions:
        assert not model.params["pos_emb"].any()
    seq, answers = test
    right = model.forward(seq).argmax(axis=-1) == answers
    return right[answers >= 0].mean()


def test_the_look_back_task_needs_positions_with_another_seed():
    test = look_back(np.random.default_rng(2024), 400)
    seq, answers = test
    order_blind = []
    for s, a in zip(seq, answers):
        for t in range(8, 16):
            counts = Counter(s[:t + 1].tolist())
            top = max(counts.values())
            favourites = [w for w, c in counts.items() if c == top]
            order_blind.append((a[t] in favourites) / len(favourites))
    baseline = float(np.mean(order_blind))
    assert 1 / 12 < baseline < 0.35
    with blas_threads(1):  # small matrices: a second BLAS thread only waits on a busy machine
        assert trained_accuracy(True, seed=1, test=test) > 0.95
        assert trained_accuracy(False, seed=1, test=test) < baseline + 0.05
