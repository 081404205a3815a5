"""Training: determinism, the optimizer by hand, and the course's experiments reaching their targets."""
import numpy as np
import pytest

from attnlib.data import BlankTask, CopyTask, LookBackTask
from attnlib.model import TinyLM
from attnlib.optim import Adam, clip_grad_norm
from attnlib.train import accuracy, evaluate, lr_at, train, train_task


def test_training_is_deterministic():
    def run(seed):
        model = TinyLM(13, 16, 2, 2, 16, seed=seed)
        history = train(model, CopyTask(span=8), steps=15, batch_size=8, seed=seed, progress=False)
        return history, model.params["W_out"].copy()

    h1, w1 = run(0)
    h2, w2 = run(0)
    assert h1 == h2 and np.array_equal(w1, w2)
    h3, _ = run(1)
    assert h1 != h3


def test_first_adam_step_moves_every_weight_by_lr_against_its_gradient_sign():
    # after one step m / sqrt(v) = g / |g| exactly (bias-corrected), so each entry moves by lr
    params = {"W": np.array([[1.0, -2.0], [0.5, 3.0]]), "b": np.array([0.0, 1.0])}
    grads = {"W": np.array([[0.3, -0.01], [2.0, 0.0]]), "b": np.array([-1e-3, 0.5])}
    Adam(params, lr=0.1, eps=1e-12, clip=None).step(grads)
    np.testing.assert_allclose(params["W"], [[0.9, -1.9], [0.4, 3.0]])  # zero gradient: no move
    np.testing.assert_allclose(params["b"], [0.1, 0.9])


def test_weight_decay_shrinks_matrices_only():
    params = {"W": np.full((2, 2), 2.0), "b": np.full(2, 2.0)}
    zero = {"W": np.zeros((2, 2)), "b": np.zeros(2)}
    Adam(params, lr=0.1, weight_decay=0.5).step(zero)
    np.testing.assert_allclose(params["W"], 2.0 * (1 - 0.1 * 0.5))
    np.testing.assert_allclose(params["b"], 2.0)


def test_clip_grad_norm():
    grads = {"a": np.array([3.0, 0.0]), "b": np.array([[4.0]])}
    assert clip_grad_norm(grads, 1.0) == pytest.approx(5.0)
    np.testing.assert_allclose(grads["a"], [0.6, 0.0])
    np.testing.assert_allclose(grads["b"], [[0.8]])
    small = {"a": np.array([0.3, 0.4])}
    clip_grad_norm(small, 1.0)
    np.testing.assert_allclose(small["a"], [0.3, 0.4])


def test_learning_rate_schedule():
    assert lr_at(0, 100, 1.0, warmup=10) == pytest.approx(0.1)
    assert lr_at(9, 100, 1.0, warmup=10) == pytest.approx(1.0)
    assert lr_at(10, 100, 1.0, warmup=10) == pytest.approx(1.0)
    assert lr_at(100, 100, 1.0, warmup=10) == pytest.approx(0.1)


def test_accuracy_counts_only_masked_positions():
    model = TinyLM(5, 8, 2, 1, 4)
    tokens = np.array([[0, 1, 2, 3]])
    predictions = model.forward(tokens).argmax(-1)
    targets = predictions.copy()
    targets[0, 0] = (targets[0, 0] + 1) % 5  # wrong, but not scored
    targets[0, 3] = (targets[0, 3] + 1) % 5  # wrong and scored
    mask = np.array([[False, True, True, True]])
    assert accuracy(model, (tokens, targets, mask)) == pytest.approx(2 / 3)


def test_train_accepts_a_callable_and_reduces_the_loss():
    model = TinyLM(13, 16, 2, 2, 16, seed=0)
    task = CopyTask(span=8)
    history = train(model, lambda r: task.batch(16, r)[:2], steps=40, lr=1e-2, progress=False)
    assert len(history) == 40 and np.mean(history[-5:]) < np.mean(history[:5]) - 0.15


def test_a_finite_list_of_batches_must_cover_the_steps():
    model = TinyLM(13, 8, 2, 1, 16)
    batches = [CopyTask(span=8).batch(4, np.random.default_rng(i)) for i in range(3)]
    assert len(train(model, batches, steps=3, progress=False)) == 3
    with pytest.raises(ValueError, match="ran out of batches after 3 of 5 steps"):
        train(model, batches, steps=5, progress=False)


def test_progress_bar_writes_to_stdout_not_stderr(capsys):
    train(TinyLM(13, 8, 2, 1, 16), CopyTask(span=8), steps=3, batch_size=4, progress=True)
    out, err = capsys.readouterr()
    assert err == "" and "training" in out


def test_copy_task_reaches_its_target_and_its_attention_shows_the_rule():
    result = train_task("copy", progress=False)
    assert result.accuracy >= 0.99
    # after the bar, position t must read the word at t - span: some head's map is that stripe
    span = result.task.span
    tokens = result.task.batch(1, np.random.default_rng(3)).tokens[0]
    maps = result.model.attention_maps(tokens)  # (n_layers, n_heads, T, T)
    rows = np.arange(span + 1, 2 * span)
    on_stripe = maps[:, :, rows, rows - span].min(axis=-1)  # (n_layers, n_heads): weakest stripe weight
    assert on_stripe.max() > 0.5


def test_bidirectional_beats_causal_on_fill_in_the_blank():
    causal = train_task("blank_causal", progress=False)
    bidirectional = train_task("blank_bidirectional", progress=False)
    assert bidirectional.accuracy >= 0.95
    assert causal.accuracy <= 0.5  # it cannot see the place word: about 1 in 4
    assert evaluate(bidirectional.model, BlankTask())["loss"] < evaluate(causal.model, BlankTask())["loss"]


def test_look_back_preset_builds_longer_rows_than_it_trains_on_and_rope_reads_them():
    result = train_task("look_back", progress=False, model_kwargs=dict(positions="rope"))
    assert result.task.seq_len == 16 and result.model.max_len == 128 and result.model.positions == "rope"
    assert result.accuracy >= 0.99
    longer = LookBackTask(seq_len=32, lag=8).batch(128, np.random.default_rng(5))
    assert accuracy(result.model, longer) >= 0.95


def test_unknown_preset():
    with pytest.raises(ValueError, match="unknown preset 'nope'"):
        train_task("nope")


def test_stop_ends_the_run_early_on_the_full_runs_schedule():
    """A run stopped after 6 of 12 steps is the start of the 12-step run; a 6-step run has its own schedule."""
    from attnlib.data import SentenceTask

    def losses(steps, stop=None):
        task = SentenceTask(seq_len=8)
        model = TinyLM(len(task.tokenizer), d_model=8, n_heads=2, n_layers=1, max_len=8, seed=0)
        return train(model, task, steps, lr=1e-2, batch_size=4, warmup=2, progress=False,
                     stop=stop)

    full, stopped, short = losses(12), losses(12, stop=6), losses(6)
    assert len(stopped) == 6 and stopped == full[:6]
    assert short[:3] == full[:3] and short[5] != full[5]  # after the warm-up the 6-step schedule decays sooner
    with pytest.raises(ValueError, match="stop must be at most steps=12"):
        losses(12, stop=13)
