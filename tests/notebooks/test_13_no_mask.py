"""Notebook 13 (attention without a mask): the claims its text makes.

Padding, the padding mask and the filler of the fill-in-the-blank task: attention is written out here in plain
numpy, and the trained models are read through a forward pass written out here too (not TinyLM's own), so the
claims are checked against an independent reading. The answers hidden in the "Check your intuition" cells are
recomputed with plain numpy rather than the notebook's own code.
"""
import math

import numpy as np
import pytest

from claims import plain_attention
from helpers import plain_forward, softmax_rows


# ---------------------------------------------------------------------------
# padding and the fill-in-the-blank task

def attend_with(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d) + mask) V, and the weights."""
    S = Q @ K.T / math.sqrt(Q.shape[1])
    A = softmax_rows(S if mask is None else S + mask)
    return A @ V, A


def future_mask(n):
    M = np.zeros((n, n))
    M[np.triu_indices(n, k=1)] = -np.inf
    return M


def test_13_padding_moves_the_real_rows_only_without_a_mask():
    rng = np.random.default_rng(31)
    n_valid, n = 5, 8
    X = rng.standard_normal((n_valid, 6))
    X_pad = np.vstack([X, np.tile(rng.standard_normal(6), (n - n_valid, 1))])  # the same filler row, three times
    Wq, Wk, Wv = rng.standard_normal((3, 6, 6))
    Q, K, V, Qp, Kp, Vp = X @ Wq, X @ Wk, X @ Wv, X_pad @ Wq, X_pad @ Wk, X_pad @ Wv
    alone, _ = attend_with(Q, K, V)
    seen, A_seen = attend_with(Qp, Kp, Vp)
    assert not np.allclose(seen[:n_valid], alone) and np.all(A_seen[:n_valid, n_valid:].sum(axis=1) > 0)
    pad = np.zeros((n, n))
    pad[:, n_valid:] = -np.inf  # 0 on the real columns, -inf on the filler, every row alike
    hidden, A_hidden = attend_with(Qp, Kp, Vp, pad)
    assert np.all(A_hidden[:, n_valid:] == 0) and np.allclose(hidden[:n_valid], alone)
    with_causal, _ = attend_with(Qp, Kp, Vp, future_mask(n))  # question 5: the causal mask never reaches the filler
    assert np.allclose(with_causal[:n_valid], attend_with(Q, K, V, future_mask(n_valid))[0])


def test_13_the_running_example_gives_more_than_a_fifth_of_each_row_to_two_fillers():
    from attnlib.data import essay_example, word_vectors
    ex = essay_example()
    X_pad = word_vectors(ex["tokens"] + [".", "."])
    assert np.allclose(X_pad[:6], ex["X"])
    out, A = attend_with(X_pad @ ex["Wq"], X_pad @ ex["Wk"], X_pad @ ex["Wv"])
    alone, _ = attend_with(ex["X"] @ ex["Wq"], ex["X"] @ ex["Wk"], ex["X"] @ ex["Wv"])
    assert np.all(A[:6, 6:].sum(axis=1) > 0.2) and np.abs(out[:6] - alone).max() > 0.1


def test_13_blank_task_pads_seven_word_sentences_with_one_more_full_stop():
    from attnlib.data import ADJECTIVES, BlankTask
    task = BlankTask()
    batch = task.batch(500, np.random.default_rng(32))
    assert batch.tokens.shape == (500, 8)
    for row in batch.tokens:
        words = task.tokenizer.decode(row).split()
        has_adjective = words[1] in ADJECTIVES
        assert words[7] == "."
        assert (words[6] == ".") == (not has_adjective)  # 7 words and one filler ".", or 8 words


@pytest.fixture(scope="module")
def blank_runs():
    from attnlib.train import train_task
    return {name: train_task(name, seed=0, progress=False) for name in ("blank_causal", "blank_bidirectional")}


def test_13_causal_guesses_among_four_and_bidirectional_fills_the_blank(blank_runs):
    causal_run, bidirectional_run = blank_runs["blank_causal"], blank_runs["blank_bidirectional"]
    assert 0.15 < causal_run.accuracy < 0.35 and abs(np.mean(causal_run.history[-10:]) - math.log(4)) < 0.02
    assert bidirectional_run.accuracy >= 0.95 and np.mean(bidirectional_run.history[-10:]) < 0.05


def test_13_the_trained_bidirectional_model_reads_past_its_filler(blank_runs):
    from attnlib.data import PLACES, VERBS
    run = blank_runs["blank_bidirectional"]
    model, words = run.model, run.task.tokenizer.words
    ids = [words.index(w) for w in "the _ sat on the mat . .".split()]
    logits, maps = plain_forward(model.params, ids, 2, 2, causal=False)
    assert np.allclose(maps, model.attention_maps(np.array(ids)))
    assert maps[0, :, 1, 5].min() > 0.9 and words[logits[1].argmax()] == "cat"  # layer 0: the blank reads "mat"
    for animal, place in PLACES.items():
        for verb in VERBS:
            s = [words.index(w) for w in f"the _ {verb} on the {place} .".split()]
            short, _ = plain_forward(model.params, s, 2, 2, causal=False)
            long, maps = plain_forward(model.params, s + [words.index(".")], 2, 2, causal=False)
            P7, P8 = softmax_rows(short[1]), softmax_rows(long[1])
            assert words[P7.argmax()] == words[P8.argmax()] == animal
            assert np.abs(P7 - P8).max() < 0.001 and maps[:, :, 1, -1].max() < 0.2


# ---------------------------------------------------------------------------
# order without a mask, the blank and cross-attention

def test_13_unmasked_layers_without_positions_are_permutation_equivariant():
    rng = np.random.default_rng(5)
    X = rng.standard_normal((6, 8))
    perm = rng.permutation(6)
    Ws = rng.standard_normal((10, 3, 8, 8)) / 3
    Y, Yp = X.copy(), X[perm].copy()
    for Wq, Wk, Wv in Ws:  # question 2: ten unmasked layers
        Y = Y + plain_attention(Y, Wq, Wk, Wv, causal=False)
        Yp = Yp + plain_attention(Yp, Wq, Wk, Wv, causal=False)
    assert np.allclose(Yp, Y[perm])
    Yc = X[perm] + plain_attention(X[perm], *Ws[0], causal=True)
    assert not np.allclose(Yc, (X + plain_attention(X, *Ws[0], causal=True))[perm])


def test_13_before_the_blank_nothing_tells_the_animal():
    from attnlib.data import BlankTask
    task = BlankTask()
    b = task.batch(4000, np.random.default_rng(6))
    blank = np.argmax(b.targets >= 0, axis=1)
    answers = b.targets[np.arange(len(blank)), blank]
    prefixes = [tuple(row[:i]) for row, i in zip(b.tokens, blank)]
    best = 0  # the best any causal reader can do: the most common answer for each prefix
    for prefix in set(prefixes):
        picked = answers[[p == prefix for p in prefixes]]
        best += np.bincount(picked).max()
    assert best / len(answers) < 0.3  # about 1 in 4
    after = [tuple(row[i + 1:]) for row, i in zip(b.tokens, blank)]  # the words after the blank do tell
    assert all(len(set(answers[[a == s for a in after]])) == 1 for s in set(after))


def test_13_an_even_average_ignores_order_so_positions_act_only_through_uneven_weights():
    rng = np.random.default_rng(11)
    X, P = rng.standard_normal((6, 6)), rng.standard_normal((6, 6))
    Wq, Wk, Wv = rng.standard_normal((3, 6, 6))
    perm = [0, 5, 2, 3, 4, 1]
    O, O_swapped = (plain_attention(Z + P, 0 * Wq, Wk, Wv, causal=False) for Z in (X, X[perm]))  # zero scores
    assert np.allclose(O, (X + P).mean(axis=0) @ Wv) and np.allclose(O_swapped, O)  # every row: the plain mean
    O, O_swapped = (plain_attention(Z + P, Wq, Wk, Wv, causal=False) for Z in (X, X[perm]))  # uneven weights
    assert not np.allclose(O_swapped[2], O[2])


def test_13_the_trained_bidirectional_model_reaches_past_the_diagonal_where_it_learned_to():
    """The recap's picture, read through a plain forward pass: layer 0, head 0 on 'the _ sat on the mat . .'."""
    from attnlib.train import train_task
    from helpers import plain_forward
    words = "the _ sat on the mat . .".split()
    maps = {}
    for name, causal in (("blank_causal", True), ("blank_bidirectional", False)):
        result = train_task(name, seed=0, progress=False)
        model, ids = result.model, result.task.tokenizer.encode(words)
        maps[name] = plain_forward(model.params, ids, model.n_layers, model.n_heads, causal=causal)[1][0, 0]
    assert np.all(np.triu(maps["blank_causal"], k=1) == 0)
    A = maps["blank_bidirectional"]
    assert A[1, 5] > 0.9 and np.triu(A, k=1)[0].sum() > 0.5  # the blank on "mat"; the first row mostly ahead


def test_13_cross_attention_shapes():
    rng = np.random.default_rng(7)
    X_fr, X_en = rng.standard_normal((7, 6)), rng.standard_normal((6, 6))
    Wq, Wk, Wv = rng.standard_normal((3, 6, 6))
    A = softmax_rows((X_fr @ Wq) @ (X_en @ Wk).T / math.sqrt(6))
    assert A.shape == (7, 6) and (A @ (X_en @ Wv)).shape == (7, 6)  # question 4
    assert np.allclose(A.sum(axis=1), 1)


def test_13_without_the_mask_a_new_token_changes_the_keys_above_the_first_layer():
    rng = np.random.default_rng(10)
    X = rng.standard_normal((6, 8))  # token vectors (embedding plus position) of 6 tokens
    X_more = np.vstack([X, rng.standard_normal((1, 8))])  # one more token appended
    (Wq1, Wk1, Wv1), (_, Wk2, Wv2) = rng.standard_normal((2, 3, 8, 8)) / 3
    for causal in (False, True):  # question 3: layer 1's keys come from X; layer 2's from layer 1's output
        H, H_more = (Z + plain_attention(Z, Wq1, Wk1, Wv1, causal) for Z in (X, X_more))
        assert np.array_equal((X_more @ Wk1)[:6], X @ Wk1) and np.array_equal((X_more @ Wv1)[:6], X @ Wv1)
        assert np.allclose((H_more @ Wk2)[:6], H @ Wk2) == causal
        assert np.allclose((H_more @ Wv2)[:6], H @ Wv2) == causal
