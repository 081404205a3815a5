"""Notebook 09 (many heads): the claims its text makes.

The general claims and the answers hidden in the "Check your intuition" cells are recomputed here with
plain numpy (or PyTorch) rather than the notebook's own code, and on other random draws than the notebook's
where a claim is about random weights.

For the trained comparison of one head and two heads, the task is written out here from the notebook's text,
and the trained models are read through a forward pass written out in plain numpy (not TinyLM's own), so the
claims are checked against an independent reading.
"""
import math

import numpy as np
import pytest

import attnlib as at
from claims import plain_attention, plain_heads
from helpers import plain_forward, softmax_rows


def test_09_heads_split_columns_and_add_no_parameters():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((5, 8))
    Wq, Wk, Wv, Wo = rng.standard_normal((4, 8, 8))
    for n_heads in (1, 2, 4):  # the same four 8 x 8 matrices for any head count
        assert np.allclose(plain_heads(X, Wq, Wk, Wv, Wo, n_heads), at.multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads))
    one, four = [plain_attention(X, Wq[:, :d], Wk[:, :d], Wv, True) for d in (8, 2)]
    assert not np.allclose(one, four)  # narrower heads do give different patterns
    d_model = 32  # question 1: from 1 to 4 heads, count every head's slices of Wq, Wk, Wv, plus Wo
    for n_heads in (1, 4):
        d_head = d_model // n_heads
        assert n_heads * 3 * d_model * d_head + d_model * d_model == 4 * 32 * 32


def test_09_each_head_divides_by_the_square_root_of_its_own_width():
    rng = np.random.default_rng(11)
    X = rng.standard_normal((6, 32))
    Wq, Wk, Wv, Wo = rng.standard_normal((4, 32, 32)) / 4
    O = at.multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads=4)  # question 2: d_head = 8, scale sqrt(8)
    by_scale = {}
    for scale in (math.sqrt(8), math.sqrt(32)):
        heads = []
        for h in range(4):
            c = slice(8 * h, 8 * h + 8)
            S = (X @ Wq[:, c]) @ (X @ Wk[:, c]).T / scale
            S[np.triu_indices(6, k=1)] = -np.inf
            heads.append(softmax_rows(S) @ (X @ Wv[:, c]))
        by_scale[scale] = np.concatenate(heads, axis=1) @ Wo
    assert np.allclose(O, by_scale[math.sqrt(8)]) and not np.allclose(O, by_scale[math.sqrt(32)])


def test_09_one_average_blends_two_rows_and_two_heads_keep_them_apart():
    V = np.random.default_rng(12).standard_normal((6, 6))
    blend = 0.5 * V[1] + 0.5 * V[3]  # question 3: one head, half on each
    shift = np.random.default_rng(13).standard_normal(6)
    assert np.allclose(0.5 * (V[1] + shift) + 0.5 * (V[3] - shift), blend)  # another pair, the same average
    assert not np.allclose(blend, V[1]) and not np.allclose(blend, V[3])
    two = np.concatenate([V[1, :3], V[3, 3:]])  # two heads, each all on one word, in separate columns
    assert np.array_equal(two[:3], V[1, :3]) and np.array_equal(two[3:], V[3, 3:])


def test_09_wo_splits_into_one_term_per_head_and_one_head_is_self_attention():
    rng = np.random.default_rng(14)
    X = rng.standard_normal((6, 6))
    Wq, Wk, Wv, Wo = rng.standard_normal((4, 6, 6))
    heads = [plain_attention(X, Wq[:, c], Wk[:, c], Wv[:, c], True) for c in (slice(0, 3), slice(3, 6))]
    assert np.allclose(at.multi_head_attention(X, Wq, Wk, Wv, Wo, 2), heads[0] @ Wo[:3] + heads[1] @ Wo[3:])
    assert np.allclose(at.multi_head_attention(X, Wq, Wk, Wv, Wo, 1), plain_attention(X, Wq, Wk, Wv, True) @ Wo)


def test_09_identical_heads_add_nothing():
    rng = np.random.default_rng(15)
    X = rng.standard_normal((6, 8))
    Wq, Wk, Wv = (np.tile(rng.standard_normal((8, 4)), 2) for _ in range(3))  # question 4: both heads the same
    O = at.multi_head_attention(X, Wq, Wk, Wv, np.eye(8), n_heads=2)  # Wo = I shows the concatenation itself
    assert np.allclose(O[:, :4], O[:, 4:])


def test_09_two_causal_layers_never_look_ahead():
    rng = np.random.default_rng(16)
    X = rng.standard_normal((6, 6))
    X2 = X.copy()
    X2[4] = rng.standard_normal(6)  # question 5: change position 4
    layers = rng.standard_normal((2, 4, 6, 6))
    out, out2 = X, X2
    for W in layers:  # two multi-head layers, no residual, the output of one read by the next
        out, out2 = plain_heads(out, *W, n_heads=2), plain_heads(out2, *W, n_heads=2)
    assert np.array_equal(out[:4], out2[:4]) and not np.allclose(out[4:], out2[4:])


# ---------------------------------------------------------------------------
# one head against two, trained

T = 8


def first_and_previous(rng, batch_size=32):
    """The text's task, one loop per answer: from position 2 on, 10 * (first digit) + (previous digit)."""
    from attnlib.data import Batch
    digits = rng.integers(0, 10, (batch_size, T))
    answers = np.full((batch_size, T), -1)
    for b in range(batch_size):
        for t in range(2, T):
            answers[b, t] = 10 * digits[b, 0] + digits[b, t - 1]
    return Batch(digits, answers, answers >= 0)


def trained(n_heads, steps):
    import attnlib as at
    from attnlib.train import blas_threads, train
    model = at.TinyLM(vocab_size=100, d_model=16, n_heads=n_heads, n_layers=1, max_len=T, seed=0)
    with blas_threads(1):
        train(model, first_and_previous, steps=steps, lr=1e-2, seed=0, progress=False)
    return model


def reading(model, n_streams=512):
    """Whole answers, first digits and second digits right; the mean (first, previous) weight of each head."""
    test = first_and_previous(np.random.default_rng(123), batch_size=n_streams)
    whole = first = second = count = 0
    weights = np.zeros((model.n_heads, 2))
    for b, ids in enumerate(test.tokens):
        logits, (maps,) = plain_forward(model.params, ids, 1, model.n_heads)  # maps (n_heads, n, n): layer 0
        for t in range(2, T):
            guess, truth = int(logits[t].argmax()), int(test.targets[b, t])
            whole += guess == truth
            first += guess // 10 == truth // 10
            second += guess % 10 == truth % 10
            count += 1
            if b < 64:
                weights += maps[:, t, [0, t - 1]]
    return whole / count, first / count, second / count, weights / (64 * (T - 2))


@pytest.fixture(scope="module")
def models():
    return {1: trained(1, 200), 2: trained(2, 200), "slow": trained(1, 600)}


def test_09_the_task_needs_two_digits_and_a_blind_guess_is_right_1_percent_of_the_time():
    batch = first_and_previous(np.random.default_rng(0), batch_size=20000)
    answers = batch.targets[batch.mask]
    assert set(answers.tolist()) == set(range(100))  # 100 possible answers, each about equally likely
    assert np.abs(np.bincount(answers, minlength=100) / answers.size - 0.01).max() < 0.003
    assert not batch.mask[:, :2].any() and batch.mask[:, 2:].all()
    row = first_and_previous(np.random.default_rng(5), batch_size=1)  # the notebook's example stream
    assert row.tokens[0].tolist()[:4] == [6, 8, 0, 8] and row.targets[0, 3] == 60


def test_09_one_head_and_two_heads_start_from_the_same_numbers():
    import attnlib as at
    one, two = (at.TinyLM(vocab_size=100, d_model=16, n_heads=h, n_layers=1, max_len=T, seed=0) for h in (1, 2))
    assert one.params.keys() == two.params.keys()
    assert all(np.array_equal(one.params[k], two.params[k]) for k in one.params)
    ids = np.arange(T)
    _, (maps_one,) = plain_forward(one.params, ids, 1, 1)
    _, (maps_two,) = plain_forward(two.params, ids, 1, 2)
    assert np.allclose(maps_one[0], one.attention_maps(ids)[0, 0]) and np.allclose(maps_two, two.attention_maps(ids)[0])
    assert not np.allclose(one.forward(ids), two.forward(ids))  # the same numbers, grouped differently


def test_09_after_200_steps_two_heads_solve_it_and_one_head_reads_only_the_first_digit(models):
    whole2, _, _, w2 = reading(models[2])
    whole1, first1, second1, w1 = reading(models[1])
    assert whole2 >= 0.99 and whole1 < 0.5
    assert first1 > 0.99 and second1 < 0.5
    assert w2[:, 0].max() > 0.9 and w2[:, 1].max() > 0.9 and w2[:, 0].argmax() != w2[:, 1].argmax()
    assert w1[0, 0] > 0.5 and w1[0, 1] < 0.25


def test_09_with_600_steps_one_head_solves_it_with_an_uneven_split(models):
    whole, _, _, w = reading(models["slow"])
    assert whole >= 0.99
    assert 0.5 < w[0, 0] < 0.6 and 0.35 < w[0, 1] < 0.45 and 1 - w[0].sum() < 0.1


def test_09_an_even_split_hides_which_word_sent_what_and_an_uneven_one_does_not():
    rng = np.random.default_rng(17)
    for _ in range(20):
        a, b = rng.standard_normal((2, 6))
        assert np.allclose(0.5 * a + 0.5 * b, 0.5 * b + 0.5 * a)
        for w in (0.6, 0.7, 0.9):
            assert not np.allclose(w * a + (1 - w) * b, w * b + (1 - w) * a)
