"""Notebook 15 (what two layers find): the claims its text makes.

The trained models are read by a forward pass written out in plain numpy (not TinyLM's own); the scores are
counted with loops from their definitions, a head is silenced by zeroing its rows of W_o by hand, and the bound
by position is measured by playing its strategy on generated rows, not by the notebook's count.
"""
import numpy as np
import pytest

from helpers import plain_forward


def plain_maps_and_guesses(model, rows, silence=None):
    """Attention maps (B, n_layers, T, T) of head 0 and argmax guesses (B, T), optionally with (layer, head)
    silenced: its rows of W_o set to zero."""
    p = dict(model.params)
    if silence is not None:
        layer, head = silence
        Wo = p[f"blocks.{layer}.Wo"].copy()
        d = Wo.shape[0] // model.n_heads
        Wo[head * d:(head + 1) * d] = 0
        p[f"blocks.{layer}.Wo"] = Wo
    p = {k: v.astype(np.float64) for k, v in p.items()}
    out = [plain_forward(p, list(x), model.n_layers, model.n_heads, scale=False, mlp=False) for x in rows]
    return np.array([m[:, 0] for _, m in out]), np.array([logits.argmax(axis=1) for logits, _ in out])


def accuracy(guesses, batch):
    return float(np.mean(guesses[batch.mask] == batch.targets[batch.mask]))


@pytest.fixture(scope="module")
def lesson():
    from attnlib.data import RepeatTask
    from attnlib.train import train_task
    runs = {n: train_task("induction", seed=0, progress=False, model_kwargs=dict(n_layers=n)).model for n in (1, 2)}
    batch = RepeatTask().batch(128, np.random.default_rng(2))
    return runs, batch


def test_the_bound_by_position_is_about_9_in_44():
    """Play the strategy on generated rows: at each scored position, bet on the shortest length that scores it."""
    from attnlib.data import RepeatTask
    batch = RepeatTask().batch(4000, np.random.default_rng(5))
    right = []
    for x, y, m in zip(*batch):
        for t in np.flatnonzero(m):
            L = max(3, 25 - t)  # the shortest stretch that puts a scored position at t (the repeat ends at 24)
            right.append(x[t - L + 1] == y[t])
    assert abs(np.mean(right) - 9 / 44) < 0.015


def test_two_layers_copy_one_layer_cannot(lesson):
    runs, batch = lesson
    acc = {n: accuracy(plain_maps_and_guesses(model, batch.tokens)[1], batch) for n, model in runs.items()}
    assert acc[2] > 0.95 and 0.15 < acc[1] < 0.35


def test_a_previous_token_head_below_a_prefix_matching_head(lesson):
    runs, batch = lesson
    maps, _ = plain_maps_and_guesses(runs[2], batch.tokens)
    T = batch.tokens.shape[1]
    prev = [np.mean([A[layer, t, t - 1] for t in range(1, T)]) for A in maps for layer in (0, 1)]
    prev = np.array(prev).reshape(-1, 2).mean(axis=0)
    match = np.mean([A[1, t, np.flatnonzero(x[:t] == x[t])[0] + 1]  # after the earlier copy, at every scored t
                     for A, x, m in zip(maps, batch.tokens, batch.mask) for t in np.flatnonzero(m)])
    assert prev[0] > 0.5 and prev[1] < 0.2 and match > 0.9


def test_silencing_either_head_breaks_the_copy(lesson):
    runs, batch = lesson
    assert accuracy(plain_maps_and_guesses(runs[2], batch.tokens, silence=(1, 0))[1], batch) < 0.05
    assert accuracy(plain_maps_and_guesses(runs[2], batch.tokens, silence=(0, 0))[1], batch) < 0.45


def test_the_circuit_copies_worse_on_shorter_rows(lesson):
    from attnlib.data import RepeatTask
    runs, _ = lesson
    short = RepeatTask(seq_len=14, span=(3, 7)).batch(128, np.random.default_rng(3))
    assert accuracy(plain_maps_and_guesses(runs[2], short.tokens)[1], short) < 0.85
