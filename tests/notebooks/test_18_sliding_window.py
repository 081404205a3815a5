"""Notebook 18 (a bounded cache: sliding windows and sinks): the claims its text makes.

The masks and the receptive field are counted from the rule with loops; every cache size is plain integer
arithmetic from the formula (2 x layers x heads x d_head x tokens x bytes), never attnlib's kv_cache_bytes; the
trained model is read by the plain numpy forward of tests/helpers.py with the window written as a loop over cells,
and losses, weights and guesses are counted from its logits and maps.
"""
import numpy as np
import pytest

from helpers import plain_forward

GB = 1e9
LAYERS, HEADS, D_HEAD, TOKENS, BF16 = 32, 32, 128, 32 * 1024, 2


def cache_bytes(layers, tokens):
    return 2 * layers * HEADS * D_HEAD * tokens * BF16


def pattern(window, n_global):
    return cache_bytes(n_global, TOKENS) + cache_bytes(LAYERS - n_global, min(window, TOKENS))


def rule(n, w):
    return np.array([[i - w < j <= i for j in range(n)] for i in range(n)])


# ---------------------------------------------------------------------------
# the window, by its rule

def test_a_window_as_long_as_the_row_is_the_causal_mask_and_a_shorter_one_sees_w_positions():
    import attnlib as at
    for n in (1, 4, 9):
        for w in range(1, n + 3):
            assert np.array_equal(at.sliding_window_mask(n, w) == 0, rule(n, w))
        assert np.array_equal(rule(n, n), np.tril(np.ones((n, n), dtype=bool)))
    assert (rule(9, 3).sum(axis=1) == [1, 2, 3, 3, 3, 3, 3, 3, 3]).all()


def test_l_layers_of_a_window_w_reach_l_times_w_minus_1_positions_back():
    seen = np.eye(101, dtype=int)
    for _ in range(4):  # what position 100's output can depend on, one window of 8 per layer
        seen = (rule(101, 8).astype(int) @ seen > 0).astype(int)  # i sees k, and k already depends on j
    assert np.flatnonzero(seen[100]).min() == 100 - 4 * 7 == 72


# ---------------------------------------------------------------------------
# the cache sizes

def test_the_full_cache_of_the_32_layer_model_is_17_18_gb_and_grows_with_the_tokens():
    assert cache_bytes(LAYERS, TOKENS) == 17_179_869_184 == 16 * 2**30
    assert round(cache_bytes(LAYERS, TOKENS) / GB, 2) == 17.18
    assert [round(cache_bytes(LAYERS, t) / GB, 2) for t in (1024, 8192, 131072)] == [0.54, 4.29, 68.72]


def test_five_local_then_one_global_gives_5_global_layers_and_4_50_gb_at_a_4096_window():
    kinds = ["local"] * 5 + ["global"]
    layers = (kinds * 6)[:LAYERS]
    assert layers.count("global") == 5 and [i + 1 for i, k in enumerate(layers) if k == "global"] == [6, 12, 18, 24, 30]
    assert round(pattern(4096, 5) / GB, 2) == 4.50 and round(pattern(4096, 5) / cache_bytes(LAYERS, TOKENS), 2) == 0.26
    assert round(cache_bytes(5, TOKENS) / GB, 2) == 2.68  # the global layers alone


def test_3_14_gb_follows_from_a_1024_window_with_5_global_layers_and_from_no_other_row_of_the_table():
    table = {(w, g): round(pattern(w, g) / GB, 2) for w in (4096, 2048, 1024, 512) for g in (5, 6)}
    assert table == {(4096, 5): 4.50, (4096, 6): 4.97, (2048, 5): 3.59, (2048, 6): 4.09, (1024, 5): 3.14,
                     (1024, 6): 3.66, (512, 5): 2.91, (512, 6): 3.44}
    assert [k for k, v in table.items() if v == 3.14] == [(1024, 5)]


def test_the_answers_on_a_32k_window_and_on_every_layer_local():
    assert pattern(TOKENS, 5) == cache_bytes(LAYERS, TOKENS)
    assert round(cache_bytes(LAYERS, 4096) / GB, 2) == 2.15 and cache_bytes(LAYERS, 4096) * 8 == cache_bytes(LAYERS,
                                                                                                               TOKENS)


def test_the_small_models_rolling_cache_holds_8_rows_of_2_layers_2_heads_8_features_in_float64():
    import attnlib as at
    model = at.TinyLM(20, 16, 2, 2, 64, seed=0, window=8)
    assert model.new_cache().nbytes == 2 * 2 * 2 * 8 * 8 * 8  # K and V, layers, heads, rows, d_head, bytes


# ---------------------------------------------------------------------------
# the sinks experiment, read by a plain forward

@pytest.fixture(scope="module")
def lesson():
    from attnlib.data import SentenceTask
    from attnlib.train import train_task
    run = train_task("sentences", seed=0, progress=False,
                     model_kwargs=dict(positions="rope", max_len=192, dtype=np.float32))
    long = SentenceTask(seq_len=192).batch(32, np.random.default_rng(7))
    p = {k: v.astype(np.float64) for k, v in run.model.params.items()}
    rows = range(8)
    read = {name: [plain_forward(p, list(long.tokens[r]), 2, 2, positions="rope", **kw) for r in rows]
            for name, kw in (("full", {}), ("window", dict(window=16)), ("sinks", dict(window=16, n_sinks=4)))}
    return run, long, p, read


def losses(read, long):
    out = []
    for r, (logits, _) in enumerate(read):
        z = logits - logits.max(axis=1, keepdims=True)
        logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
        out.append([-logp[t, long.targets[r, t]] for t in range(logits.shape[0])])
    return np.array(out)  # (rows, 192)


def test_full_attention_drifts_past_the_training_length_the_window_stays_flat_and_sinks_cost_loss(lesson):
    run, long, _, read = lesson
    assert run.task.seq_len == 24
    nll = {name: losses(r, long) for name, r in read.items()}
    first, late = {k: v[:, :24].mean() for k, v in nll.items()}, {k: v[:, 64:].mean() for k, v in nll.items()}
    assert max(first.values()) - min(first.values()) < 0.02  # the three agree on the first 24 positions
    assert late["full"] > 1.6 * first["full"] and late["full"] > late["window"] + 0.3
    assert late["window"] < first["window"] + 0.05  # no collapse when the first token leaves at position 16
    assert late["sinks"] > late["window"] + 0.03


def test_no_head_parks_its_weight_on_position_0_at_the_training_length(lesson):
    _, long, p, _ = lesson
    maps = np.array([plain_forward(p, list(long.tokens[r, :24]), 2, 2, positions="rope")[1] for r in range(32)])
    queries = np.arange(8, 24)
    on_first = maps[:, :, :, queries, 0].mean(axis=(0, 3))  # (layers, heads)
    even = np.mean([1 / (i + 1) for i in queries])
    assert on_first.max() < 2 * even and on_first.min() > 0.25 * even


def test_the_sinks_keep_drawing_weight_and_their_wrong_guesses_name_the_first_animals_place(lesson):
    from attnlib.data import PLACES
    run, long, _, read = lesson
    words = run.task.tokenizer.words
    sink_weight = np.mean([maps[:, :, 64:, :4].sum(axis=-1).mean(axis=-1) for _, maps in read["sinks"]], axis=0)
    assert sink_weight.min() > 0.1
    wrong_first, wrong, right = {}, {}, {}
    for name, rows in read.items():
        wrong_first[name] = wrong[name] = right[name] = 0
        for r, (logits, _) in enumerate(rows):
            animal = next(words[i] for i in long.tokens[r, :3] if words[i] in PLACES)
            for t in range(64, 192):
                if long.mask[r, t]:
                    guess = words[int(np.argmax(logits[t]))]
                    right[name] += guess == words[long.targets[r, t]]
                    wrong[name] += guess != words[long.targets[r, t]]
                    wrong_first[name] += guess != words[long.targets[r, t]] and guess == PLACES[animal]
    assert wrong["window"] == 0 and wrong["sinks"] > 0 and wrong["full"] > wrong["sinks"]
    assert wrong_first["sinks"] >= 0.5 * wrong["sinks"]


def test_the_rolling_cache_of_the_trained_model_equals_the_plain_windowed_forward(lesson):
    import attnlib as at
    run, long, p, read = lesson
    twin = at.TinyLM(run.model.vocab_size, 32, 2, 2, 192, positions="rope", window=16, n_sinks=4)
    twin.params = p
    cache = twin.new_cache()
    steps = np.concatenate([twin.step(long.tokens[0, t:t + 1], cache) for t in range(192)])
    np.testing.assert_allclose(steps, read["sinks"][0][0], atol=1e-9)
    assert cache.kept == 16 and cache.positions.tolist() == [0, 1, 2, 3] + list(range(180, 192))


def test_past_the_training_length_full_attention_puts_most_weight_on_offsets_never_trained(lesson):
    _, _, _, read = lesson
    far = [[[sum(maps[layer, head, i, j] for j in range(0, i - 23)) for i in range(64, 192)]
            for head in range(2)] for layer in range(2) for _, maps in read["full"][:2]]
    assert min(np.mean(row) for rows in far for row in rows) > 0.3
