"""Notebook 17 (shared keys and values: GQA): the claims its text makes.

Grouped attention is checked against loops written here from the rule "query head h reads group h // r" (plain
numpy, claims.plain_attention); cache sizes against the product written out; the trained models are read by the
plain forward pass of helpers.plain_forward (its groups routed by the same rule), on copy rows built here by hand;
the mean-pooling is a loop over each block's heads.
"""
import numpy as np
import pytest

from claims import plain_attention, plain_heads
from helpers import plain_forward, softmax_rows

SPAN, WORDS, BAR = 8, 12, 12  # the copy task: 8 of 12 words, the bar (id 12), the same 8 words


def plain_gqa(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, group=None):
    """Causal grouped attention as a loop over query heads; group(h) is the K/V group head h reads."""
    d = Wq.shape[1] // n_heads
    group = group or (lambda h: h // (n_heads // n_kv_heads))
    outs = []
    for h in range(n_heads):
        g = group(h)
        outs.append(plain_attention(X, Wq[:, h * d:(h + 1) * d], Wk[:, g * d:(g + 1) * d], Wv[:, g * d:(g + 1) * d],
                                    causal=True))
    return np.concatenate(outs, axis=1) @ Wo


def weights(d_model=8, n_heads=4, n_kv_heads=4, d_head=2, seed=17):
    r = np.random.default_rng(seed)
    return (r.normal(size=(6, d_model)), r.normal(0, 0.5, (d_model, n_heads * d_head)),
            r.normal(0, 0.5, (d_model, n_kv_heads * d_head)), r.normal(0, 0.5, (d_model, n_kv_heads * d_head)),
            r.normal(0, 0.5, (n_heads * d_head, d_model)))


def copy_rows(n_rows, seed):
    """Copy rows by hand: (tokens (n_rows, 16), {position: the word it must name}) for positions 8..15."""
    run = np.random.default_rng(seed).integers(0, WORDS, (n_rows, SPAN))
    tokens = np.concatenate([run, np.full((n_rows, 1), BAR), run[:, :-1]], axis=1)  # (n_rows, 16)
    return tokens, {SPAN + i: run[:, i] for i in range(SPAN)}


def read(model, tokens, answers, n_kv_heads):
    """(accuracy, mean cross-entropy) on the copied positions, by the plain forward pass in float64."""
    p = {k: v.astype(np.float64) for k, v in model.params.items()}
    right, nats = [], []
    for b, row in enumerate(tokens):
        logits, _ = plain_forward(p, list(row), 2, 4, n_kv_heads=n_kv_heads)
        probs = softmax_rows(logits)
        for t, words in answers.items():
            right.append(logits[t].argmax() == words[b])
            nats.append(-np.log(probs[t, words[b]]))
    return float(np.mean(right)), float(np.mean(nats))


@pytest.fixture(scope="module")
def lesson():
    from attnlib.train import train_task
    return {g: train_task("copy", seed=0, progress=False, model_kwargs=dict(n_heads=4, n_kv_heads=g)).model
            for g in (4, 2, 1)}


@pytest.fixture(scope="module")
def held_out():
    return copy_rows(96, seed=31)


# ---------------------------------------------------------------------------
# the routing, by loops

def test_query_heads_read_contiguous_blocks_of_groups():
    for n_kv in (8, 4, 2, 1):
        r, dealt = 8 // n_kv, []
        for g in range(n_kv):
            dealt += [g] * r
        assert dealt == [h // r for h in range(8)]
    assert 13 // (32 // 8) == 3 and [h for h in range(32) if h // 4 == 3] == [12, 13, 14, 15]  # question 1


def test_as_many_groups_as_heads_is_multi_head_attention_to_the_last_bit():
    import attnlib as at
    X, Wq, Wk, Wv, Wo = weights()
    out = at.grouped_query_attention(X, Wq, Wk, Wv, Wo, 4, 4)
    assert np.array_equal(out, at.multi_head_attention(X, Wq, Wk, Wv, Wo, 4))
    np.testing.assert_allclose(out, plain_heads(X, Wq, Wk, Wv, Wo, 4), rtol=0, atol=1e-12)


def test_one_group_is_every_head_reading_the_same_keys_and_values_yet_attending_differently():
    import attnlib as at
    X, Wq, Wk, Wv, Wo = weights(n_kv_heads=1)
    np.testing.assert_allclose(at.grouped_query_attention(X, Wq, Wk, Wv, Wo, 4, 1),
                               plain_gqa(X, Wq, Wk, Wv, Wo, 4, 1, group=lambda h: 0), rtol=0, atol=1e-12)
    K = X @ Wk
    S = [(X @ Wq[:, 2 * h:2 * h + 2]) @ K.T / np.sqrt(2) + np.triu(np.full((6, 6), -np.inf), 1) for h in range(2)]
    assert not np.allclose(softmax_rows(S[0]), softmax_rows(S[1]))


def test_two_groups_equal_multi_head_attention_with_each_groups_columns_copied_to_its_heads():
    import attnlib as at
    X, Wq, Wk, Wv, Wo = weights(n_kv_heads=2)
    copied = lambda W: np.concatenate([W[:, 0:2], W[:, 0:2], W[:, 2:4], W[:, 2:4]], axis=1)
    out = at.grouped_query_attention(X, Wq, Wk, Wv, Wo, 4, 2)
    np.testing.assert_allclose(out, plain_heads(X, Wq, copied(Wk), copied(Wv), Wo, 4), rtol=0, atol=1e-12)
    np.testing.assert_allclose(out, plain_gqa(X, Wq, Wk, Wv, Wo, 4, 2), rtol=0, atol=1e-12)


def test_round_robin_routing_is_another_layer_until_the_query_heads_are_reordered():
    X, Wq, Wk, Wv, Wo = weights(n_kv_heads=2)
    contiguous = plain_gqa(X, Wq, Wk, Wv, Wo, 4, 2)
    dealt = plain_gqa(X, Wq, Wk, Wv, Wo, 4, 2, group=lambda h: h % 2)
    assert np.abs(dealt - contiguous).max() > 0.1
    order = [0, 2, 1, 3]
    Wq_r = np.concatenate([Wq[:, 2 * h:2 * h + 2] for h in order], axis=1)
    Wo_r = np.concatenate([Wo[2 * h:2 * h + 2] for h in order], axis=0)
    np.testing.assert_allclose(plain_gqa(X, Wq_r, Wk, Wv, Wo_r, 4, 2, group=lambda h: h % 2), contiguous, atol=1e-12)


# ---------------------------------------------------------------------------
# cache bytes, by the product written out

def test_the_7b_class_cache_at_32768_tokens():
    from attnlib import kv_cache_bytes
    by_hand = {g: 2 * 32 * g * 128 * 32768 * 2 for g in (32, 16, 8, 4, 2, 1)}
    assert by_hand[32] == 17_179_869_184 and by_hand[8] == 4_294_967_296 and by_hand[1] == 536_870_912
    for g, nbytes in by_hand.items():
        assert kv_cache_bytes(32, 32, 128, 32768, n_kv_heads=g) == nbytes
        assert by_hand[32] // nbytes == 32 // g
    per_token = 2 * 32 * 32 * 128 * 2
    assert per_token == 524_288 and 26_000 < 7e9 * 2 / per_token < 27_000  # when the cache outweighs the weights


# ---------------------------------------------------------------------------
# the three trained models

def test_the_three_models_differ_only_in_wk_and_wv(lesson):
    for g, model in lesson.items():
        for i in range(2):
            assert model.params[f"blocks.{i}.Wk"].shape == model.params[f"blocks.{i}.Wv"].shape == (32, 8 * g)
            assert model.params[f"blocks.{i}.Wq"].shape == (32, 32)
    sizes = {g: sum(v.size for v in m.params.values()) for g, m in lesson.items()}
    assert sizes == {4: 26_560, 2: 26_560 - 2 * 2 * 32 * 16, 1: 26_560 - 2 * 2 * 32 * 24}


def test_every_grouping_copies_the_held_out_rows(lesson, held_out):
    for g, model in lesson.items():
        acc, loss = read(model, *held_out, n_kv_heads=g)
        assert acc > 0.99 and loss < 0.05, (g, acc, loss)


def test_which_grouping_has_the_lowest_loss_changes_with_the_seed():
    from attnlib.train import train_task
    tokens, answers = copy_rows(64, seed=32)
    best = []
    for seed in (0, 1):
        losses = {}
        for g in (4, 2, 1):
            model = train_task("copy", seed=seed, progress=False, model_kwargs=dict(n_heads=4, n_kv_heads=g)).model
            losses[g] = read(model, tokens, answers, g)[1]
        assert max(losses.values()) < 0.03, losses
        best.append(min(losses, key=losses.get))
    assert best[0] != best[1], best


def test_the_cache_holds_one_key_and_one_value_per_group_and_gives_the_full_passs_logits(lesson, held_out):
    for g, model in lesson.items():
        cache = model.new_cache()
        row = held_out[0][0]
        steps = np.concatenate([model.step(row[:9], cache)] + [model.step(row[t:t + 1], cache) for t in range(9, 16)])
        assert cache.K.shape == cache.V.shape == (2, g, 16, 8)
        assert cache.K.nbytes + cache.V.nbytes == 2 * 2 * g * 8 * 16 * 8  # K, V x layers x groups x d_head x 16 x 8 B
        p = {k: v.astype(np.float64) for k, v in model.params.items()}
        np.testing.assert_allclose(steps, plain_forward(p, list(row), 2, 4, n_kv_heads=g)[0], atol=1e-9)


def test_averaging_each_blocks_heads_keeps_more_with_two_groups_and_a_little_training_repairs_both(lesson, held_out):
    from attnlib import TinyLM
    from attnlib.data import CopyTask
    from attnlib.train import train
    mha, found = lesson[4], {}
    for g in (2, 1):
        model = TinyLM(13, 32, 4, 2, 16, n_kv_heads=g)
        for key, W in mha.params.items():
            if key.endswith((".Wk", ".Wv")):
                r = 4 // g
                W = np.concatenate([sum(W[:, 8 * h:8 * h + 8] for h in range(j * r, (j + 1) * r)) / r
                                    for j in range(g)], axis=1)  # block j: the mean of heads jr .. jr + r - 1
            model.params[key][...] = W
        before = read(model, *held_out, n_kv_heads=g)
        train(model, CopyTask(span=8), steps=30, lr=3e-3, seed=1, rule_only=True, progress=False)
        found[g] = before, read(model, *held_out, n_kv_heads=g)
    assert found[2][0][0] > 0.8 and found[1][0][0] < 0.6 and found[2][0][1] < found[1][0][1]
    assert all(after[0] > 0.99 and after[1] < 0.05 for _, after in found.values()), found
