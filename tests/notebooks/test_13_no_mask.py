"""Notebook 13 (attention without a mask): padding, the padding mask, and the filler of the fill-in-the-blank task.

Attention is written out here in plain numpy, and the trained models are read through a forward pass written out
here too (not TinyLM's own), so the claims are checked against an independent reading.
"""
import math

import numpy as np
import pytest

from helpers import plain_forward, softmax_rows


def plain_attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d) + mask) V, and the weights."""
    S = Q @ K.T / math.sqrt(Q.shape[1])
    A = softmax_rows(S if mask is None else S + mask)
    return A @ V, A


def causal(n):
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
    alone, _ = plain_attention(Q, K, V)
    seen, A_seen = plain_attention(Qp, Kp, Vp)
    assert not np.allclose(seen[:n_valid], alone) and np.all(A_seen[:n_valid, n_valid:].sum(axis=1) > 0)
    pad = np.zeros((n, n))
    pad[:, n_valid:] = -np.inf  # 0 on the real columns, -inf on the filler, every row alike
    hidden, A_hidden = plain_attention(Qp, Kp, Vp, pad)
    assert np.all(A_hidden[:, n_valid:] == 0) and np.allclose(hidden[:n_valid], alone)
    with_causal, _ = plain_attention(Qp, Kp, Vp, causal(n))  # question 5: the causal mask never reaches the filler
    assert np.allclose(with_causal[:n_valid], plain_attention(Q, K, V, causal(n_valid))[0])


def test_13_the_running_example_gives_more_than_a_fifth_of_each_row_to_two_fillers():
    from attnlib.data import essay_example, word_vectors
    ex = essay_example()
    X_pad = word_vectors(ex["tokens"] + [".", "."])
    assert np.allclose(X_pad[:6], ex["X"])
    out, A = plain_attention(X_pad @ ex["Wq"], X_pad @ ex["Wk"], X_pad @ ex["Wv"])
    alone, _ = plain_attention(ex["X"] @ ex["Wq"], ex["X"] @ ex["Wk"], ex["X"] @ ex["Wv"])
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
