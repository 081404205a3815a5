"""Notebook 16 (relative positions: RoPE): the claims its text makes.

The rotation facts are checked on hand-worked cases; the trained models are read by a forward pass written out in
plain numpy (helpers.plain_forward, whose RoPE is a loop over rows and pairs, not attnlib.rope); accuracies and
attention weights are counted from the rows; the other pairing convention is written again here as a loop.
"""
import math

import numpy as np
import pytest

from helpers import plain_forward, plain_rotate

LAG = 8


def R(a):
    return np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])


def read(model, rows):
    """Guesses (B, T) and the only head's maps (B, T, T) of a one-layer, one-head model, by the plain forward."""
    p = {k: v.astype(np.float64) for k, v in model.params.items()}
    out = [plain_forward(p, list(x), 1, 1, mlp=False, positions=model.positions) for x in rows]
    return np.array([logits.argmax(axis=1) for logits, _ in out]), np.array([maps[0, 0] for _, maps in out])


def rows(n_words, n_rows, seed):
    """Rows of n_words words drawn at random from 12; the answer at t >= 8 is the word at t - 8."""
    x = np.random.default_rng(seed).integers(0, 12, (n_rows, n_words))
    return x, {t: x[:, t - LAG] for t in range(LAG, n_words)}


def right_at(guesses, answers):
    """{position: fraction of rows whose guess there is the word 8 back}."""
    return {t: float(np.mean(guesses[:, t] == a)) for t, a in answers.items()}


@pytest.fixture(scope="module")
def lesson():
    from attnlib.train import train_task
    return {kind: train_task("look_back", seed=0, progress=False, model_kwargs=dict(positions=kind)).model
            for kind in ("learned", "sinusoid", "rope")}


@pytest.fixture(scope="module")
def read_long(lesson):
    x, answers = rows(32, 128, seed=21)
    return {kind: (*read(model, x), answers) for kind, model in lesson.items()}


# ---------------------------------------------------------------------------
# the rotation, by hand

def test_a_quarter_turn_and_a_half_turn_of_one_pair():
    assert np.allclose(R(math.pi / 2) @ [1.0, 0.0], [0.0, 1.0])  # counter-clockwise: (1, 0) goes to (0, 1)
    assert np.allclose(R(math.pi) @ [1.0, 0.0], [-1.0, 0.0])
    assert np.allclose(R(math.pi / 2) @ [3.0, 4.0], [-4.0, 3.0])  # (x, y) -> (-y, x)


def test_rotations_keep_lengths_add_up_and_leave_only_the_difference():
    for a, b in ((0.3, 1.1), (-2.0, 5.5), (100.0, 100.25)):
        q, k = np.array([1.5, -0.5]), np.array([0.25, 2.0])
        assert math.isclose(np.linalg.norm(R(a) @ q), np.linalg.norm(q))
        assert np.allclose(R(b) @ R(a), R(a + b))
        assert math.isclose((R(a) @ q) @ (R(b) @ k), q @ R(b - a) @ k, abs_tol=1e-12)


def test_scores_of_rotated_queries_and_keys_depend_on_the_offset_only():
    import attnlib as at
    r = np.random.default_rng(4)
    Q, K = r.normal(size=(6, 8)), r.normal(size=(6, 8))
    pos = np.arange(6)

    def turned(M, shift):  # a loop of 2x2 rotations, pair by pair
        return np.array([np.concatenate([R((t + shift) * 10000 ** (-2 * i / 8)) @ M[t, 2 * i:2 * i + 2]
                                         for i in range(4)]) for t in range(6)])
    S = turned(Q, 0) @ turned(K, 0).T
    for shift in (1, 100, 10_000):
        assert np.allclose(turned(Q, shift) @ turned(K, shift).T, S, atol=1e-9)
        assert np.allclose(at.rope(Q, pos + shift) @ at.rope(K, pos + shift).T, S, atol=1e-9)
    assert not np.allclose((turned(Q, 0) @ K.T)[0], (turned(Q, 5) @ K.T)[0])  # one side only: the scores move


def test_the_essays_two_the_rows_score_alike_without_rotation_and_differently_with_it():
    from attnlib.data import essay_example
    ex = essay_example()
    Q, K = ex["X"] @ ex["Wq"], ex["X"] @ ex["Wk"]
    assert ex["tokens"][0] == ex["tokens"][4] == "the"
    assert np.allclose((Q @ K.T)[0], (Q @ K.T)[4])
    S = plain_rotate(Q) @ plain_rotate(K).T
    assert not np.allclose(S[0], S[4])


def test_the_sinusoids_of_lesson_08_are_the_sines_and_cosines_of_ropes_angles():
    from attnlib.positions import angles, sinusoids
    P = sinusoids(32, 16)
    assert math.isclose(P[5, 0], math.sin(5)) and math.isclose(P[5, 1], math.cos(5))
    a = 7 / 10000 ** (6 / 16)  # row 7, pair 3
    assert math.isclose(P[7, 6], math.sin(a)) and math.isclose(P[7, 7], math.cos(a))
    assert math.isclose(angles(np.arange(32), 16)[7, 3], 7 / 10000 ** (6 / 16))


def test_the_two_pairing_conventions_agree_after_reordering_ws_columns():
    from attnlib.data import essay_example
    ex = essay_example()
    X, n, d = ex["X"], 6, 6

    def halves(M):  # pair i = features (i, i + d/2), written as a loop
        out = M.copy()
        for t in range(n):
            for i in range(d // 2):
                out[t, [i, i + d // 2]] = R(t * 10000 ** (-2 * i / d)) @ M[t, [i, i + d // 2]]
        return out
    order = [0, 2, 4, 1, 3, 5]  # even features, then odd
    adjacent = plain_rotate(X @ ex["Wq"]) @ plain_rotate(X @ ex["Wk"]).T
    reordered = halves(X @ ex["Wq"][:, order]) @ halves(X @ ex["Wk"][:, order]).T
    assert np.allclose(reordered, adjacent, atol=1e-12)
    assert not np.allclose(halves(X @ ex["Wq"]) @ halves(X @ ex["Wk"]).T, adjacent)


# ---------------------------------------------------------------------------
# the task and the three trained models

def test_the_task_asks_for_the_word_8_back_and_a_guess_is_right_1_time_in_12():
    from attnlib.data import LookBackTask
    batch = LookBackTask(seq_len=32, lag=LAG).batch(2000, np.random.default_rng(9))
    for x, y, m in zip(*batch):
        for t in range(32):
            assert m[t] == (t >= LAG) and (not m[t] or y[t] == x[t - LAG])
    guess = np.random.default_rng(10).integers(0, 12, batch.targets.shape)
    assert abs(np.mean(guess[batch.mask] == batch.targets[batch.mask]) - 1 / 12) < 0.01


def test_all_three_models_learn_the_rows_they_were_trained_on(lesson):
    x, answers = rows(16, 256, seed=20)
    for kind, model in lesson.items():
        acc = right_at(read(model, x)[0], answers)
        assert min(acc.values()) > 0.97, (kind, acc)


def test_on_rows_of_32_only_rope_still_names_the_word_8_back(read_long):
    for kind, (guesses, _, answers) in read_long.items():
        acc = right_at(guesses, answers)
        first, later = np.mean([acc[t] for t in range(8, 16)]), np.mean([acc[t] for t in range(16, 32)])
        assert first > 0.97, (kind, acc)
        if kind == "rope":
            assert later > 0.97 and min(acc.values()) > 0.95
        else:
            assert later < 0.25, (kind, later)
            assert 0.3 < np.mean(list(acc.values())) < 0.5  # "about 40%": 8 perfect positions and 16 guesses
    assert abs((8 * 1 + 16 / 12) / 24 - 0.39) < 0.005  # the answer to question 1


def test_only_the_rope_head_keeps_looking_8_back_past_position_15(read_long):
    for kind, (_, maps, _) in read_long.items():
        weight = np.array([maps[:, t, t - LAG].mean() for t in range(LAG, 32)])  # positions 8..31
        assert weight[:8].min() > 0.9, kind
        if kind == "rope":
            assert weight.min() > 0.9
        else:
            assert weight[8:].mean() < 0.3, (kind, weight)


def test_the_learned_rows_of_positions_never_trained_on_never_moved(lesson):
    from attnlib import TinyLM
    from attnlib.train import PRESETS
    start = TinyLM(12, seed=0, **PRESETS["look_back"]["model"]).params["pos_emb"]
    trained = lesson["learned"].params["pos_emb"]
    assert trained.shape == (128, 32) and np.array_equal(trained[16:], start[16:])
    assert all(not np.array_equal(trained[t], start[t]) for t in range(16))


def test_the_rope_model_reads_rows_of_64_and_128_and_far_offsets_draw_weight_at_128(lesson):
    model = lesson["rope"]
    found = {}
    for n_words in (64, 128):
        x, answers = rows(n_words, 48, seed=22)
        guesses, maps = read(model, x)
        acc = np.mean([np.mean(guesses[:, t] == a) for t, a in answers.items()])
        last = maps[:, -1]  # (48, n_words): the last position's weights
        found[n_words] = (acc, last[:, -1 - LAG].mean(), last[:, :-1 - LAG].sum(axis=1).mean())
    assert found[64][0] > 0.98 and found[128][0] > 0.95
    assert found[128][1] < found[64][1] and found[128][2] > found[64][2]


def test_the_cache_of_a_rope_model_gives_the_full_passs_logits(lesson):
    model = lesson["rope"]
    x, _ = rows(20, 1, seed=23)
    cache = model.new_cache()
    steps = np.concatenate([model.step(x[0, :5], cache)] + [model.step(x[0, t:t + 1], cache) for t in range(5, 20)])
    p = {k: v.astype(np.float64) for k, v in model.params.items()}
    plain, _ = plain_forward(p, list(x[0]), 1, 1, mlp=False, positions="rope")
    assert np.allclose(steps, plain, atol=1e-4)  # float32 model, float64 reading


def test_the_slowest_pair_of_64_features_turns_once_in_about_47000_positions():
    slowest = 10000 ** (-62 / 64)
    assert 1.3e-4 < slowest < 1.4e-4 and 46_000 < 2 * math.pi / slowest < 48_000
