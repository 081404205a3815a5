"""Notebook 19 (your own model): the claims its text makes.

The pieces handed to TinyLM(ops=...) here are written again in plain numpy, independently of the notebook's
(loops, other formulas, other mistakes of the same kind); the forward pass is recomputed by a loop over positions;
the grammar's floor is estimated by counting what follows each prefix in many rows, not from the grammar's rules.
"""
import math
from collections import Counter, defaultdict

import numpy as np
import pytest

from helpers import softmax_rows

SIZE = dict(d_model=16, n_heads=2, n_layers=2, max_len=8, seed=0)  # the notebook's model


def task():
    from attnlib.data import SentenceTask
    return SentenceTask(seq_len=8)


def trained(ops=None, steps=40):
    """The notebook's run: TinyLM on the cat sentences, Adam lr 1e-2, batch 8, warm-up 5, seed 0."""
    from attnlib import TinyLM
    from attnlib.train import train
    t = task()
    model = TinyLM(len(t.tokenizer), ops=ops, **SIZE)
    return model, np.array(train(model, t, steps, lr=1e-2, batch_size=8, seed=0, warmup=5, progress=False))


def parts_at(losses, ref, tol=1e-12):
    for step, (a, b) in enumerate(zip(losses, ref)):
        if not abs(a - b) <= tol * abs(b):
            return step
    return None


@pytest.fixture(scope="module")
def reference():
    return trained()


# ---------------------------------------------------------------------------
# pieces, correct and broken, written for these tests

def loop_softmax(S):
    out = np.empty_like(S, dtype=float)
    for i, row in enumerate(np.atleast_2d(S)):
        e = np.exp(row - row.max())
        out.reshape(-1, S.shape[-1])[i] = e / e.sum()
    return out


def erf_free_gelu(X):
    c = math.sqrt(2 / math.pi)
    return X * (1 + np.tanh(c * X * (1 + 0.044715 * X * X))) / 2


def centred_layer_norm(X, g, b, eps=1e-5):
    C = X - X.sum(axis=1, keepdims=True) / X.shape[1]
    return C / np.sqrt((C * C).sum(axis=1, keepdims=True) / X.shape[1] + eps) * g + b


def logsumexp_cross_entropy(logits, targets):
    n = logits.shape[0]
    m = logits.max(axis=1, keepdims=True)
    lse = m[:, 0] + np.log(np.exp(logits - m).sum(axis=1))
    loss = float(np.sum(lse - logits[np.arange(n), targets]) / n)
    d = np.exp(logits - lse[:, None])
    d[np.arange(n), targets] -= 1
    return loss, d / n


def first_row_logits(H, W):  # broken: the first row predicts instead of the last
    return H[0] @ W


def swapped_attention_backward(Q, K, V, dO, causal=True, scale=True):  # broken: dQ and dK exchanged
    s = 1 / math.sqrt(Q.shape[1])
    n = len(Q)
    S = Q @ K.T * s
    S[np.triu_indices(n, k=1)] = -np.inf
    A = softmax_rows(S)
    G = dO @ V.T
    dS = A * (G - np.sum(G * A, axis=1, keepdims=True)) * s
    return dS.T @ Q, dS @ K, A.T @ dO


def cache_step_without_scale(q, k, v, K_cache, V_cache):  # broken for generation only
    K = np.concatenate([K_cache, k[None]])
    V = np.concatenate([V_cache, v[None]])
    w = np.exp(K @ q - np.max(K @ q))
    return (w / w.sum()) @ V, K, V


# ---------------------------------------------------------------------------
# the model is a composition of the exercises' functions

def test_19_the_eighteen_ops_belong_to_lessons_06_to_18_and_rope_only_turns_a_rope_model():
    from attnlib import TinyLM
    from attnlib.course import lesson
    from attnlib.learner_ops import NAMES
    assert len(NAMES) == 18 and NAMES[-4:] == ("rope", "grouped_query_attention", "grouped_cache_step",
                                               "rolling_cache_step")
    assert {lesson(name).number for name in NAMES} <= {f"{n:02d}" for n in range(6, 19)}
    assert [lesson(name).number for name in NAMES[-4:]] == ["16", "17", "17", "18"]
    t = task()
    tokens = np.arange(8) % len(t.tokenizer)
    calls = []

    def counted_rope(X, positions, theta=10000.0):
        calls.append(X.shape)
        from attnlib import rope
        return rope(X, positions, theta)
    TinyLM(len(t.tokenizer), **SIZE, ops={"rope": counted_rope}).forward(tokens)  # learned positions, as here
    assert calls == []
    TinyLM(len(t.tokenizer), **SIZE, positions="rope", ops={"rope": counted_rope}).forward(tokens)
    assert len(calls) == 2 * 2 * 2 and calls[0] == (8, 8)  # q and k, per head, per layer; d_head = 8


def test_19_the_forward_pass_is_the_composition_position_by_position():
    from attnlib import TinyLM
    t = task()
    model = TinyLM(len(t.tokenizer), **SIZE, init_std=0.3)
    p, dh = model.params, model.d_head
    ids = t.tokenizer.encode("the cat sat on the mat .".split())
    X = p["tok_emb"][ids] + p["pos_emb"][:len(ids)]
    for i in range(2):
        b = {k.split(".")[-1]: v for k, v in p.items() if k.startswith(f"blocks.{i}.")}
        H = centred_layer_norm(X, b["ln1_g"], b["ln1_b"])
        O = np.zeros_like(X)
        for row in range(len(ids)):  # one query row at a time, seeing positions 0..row
            for h in range(2):
                c = slice(h * dh, (h + 1) * dh)
                q, K, V = H[row] @ b["Wq"][:, c], H[:row + 1] @ b["Wk"][:, c], H[:row + 1] @ b["Wv"][:, c]
                O[row, c] = loop_softmax(K @ q / math.sqrt(dh)) @ V
        X = X + O @ b["Wo"]
        X = X + erf_free_gelu(centred_layer_norm(X, b["ln2_g"], b["ln2_b"]) @ b["W1"] + b["b1"]) @ b["W2"] + b["b2"]
    logits = centred_layer_norm(X, p["ln_f_g"], p["ln_f_b"]) @ p["W_out"]
    np.testing.assert_allclose(model.forward(ids), logits, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(TinyLM(len(t.tokenizer), **SIZE, init_std=0.3, ops={}).forward(ids), logits,
                               rtol=1e-10, atol=1e-12)


def test_19_correct_pieces_reproduce_attnlibs_loss_curve(reference):
    ref_model, ref = reference
    assert abs(ref[0] - math.log(19)) < 0.01 and ref[-1] < 0.4 * ref[0]
    mine = {"softmax": loop_softmax, "gelu": erf_free_gelu, "layer_norm": centred_layer_norm,
            "cross_entropy": logsumexp_cross_entropy}
    model, losses = trained(mine)
    assert np.abs(losses - ref).max() < 1e-12
    assert max(np.abs(model.params[k] - ref_model.params[k]).max() for k in model.params) < 1e-12


# ---------------------------------------------------------------------------
# fingerprints

def test_19_a_forward_piece_parts_at_step_0_a_backward_piece_at_step_1_a_generation_piece_never(reference):
    _, ref = reference
    found = {name: parts_at(trained({name: fn}, steps=4)[1], ref) for name, fn in (
        ("next_token_logits", first_row_logits), ("attention_backward", swapped_attention_backward),
        ("cache_step", cache_step_without_scale))}
    assert found == {"next_token_logits": 0, "attention_backward": 1, "cache_step": None}
    backward = trained({"attention_backward": swapped_attention_backward}, steps=2)[1]
    assert abs(backward[0] - ref[0]) < 1e-14  # step 0 is computed before any gradient


def test_19_an_unscaled_attention_parts_at_step_0_but_by_only_about_2e_6(reference):
    _, ref = reference

    def attention_without_scale(Q, K, V, causal=True, scale=True):
        S = Q @ K.T
        S[np.triu_indices(len(Q), k=1)] = -np.inf
        return softmax_rows(S) @ V

    losses = trained({"attention": attention_without_scale}, steps=3)[1]
    assert parts_at(losses, ref) == 0 and 5e-7 < abs(losses[0] - ref[0]) < 5e-6
    assert abs(losses[2] - ref[2]) > 5 * abs(losses[0] - ref[0])  # the gap grows as the weights grow


def test_19_a_relu_trains_about_as_well_a_broken_layer_norm_gradient_does_not(reference):
    _, ref = reference
    relu = trained({"gelu": lambda X: np.where(X > 0, X, 0.0)})[1]

    def layer_norm_backward_one_correction(X, g, dY, eps=1e-5):
        mu = X.mean(axis=1, keepdims=True)
        sd = np.sqrt(((X - mu) ** 2).mean(axis=1, keepdims=True) + eps)
        G = dY * g
        return (G - G.mean(axis=1, keepdims=True)) / sd, np.sum(dY * (X - mu) / sd, axis=0), dY.sum(axis=0)

    crippled = trained({"layer_norm_backward": layer_norm_backward_one_correction})[1]
    assert parts_at(relu, ref) == 0 and abs(relu[-1] - ref[-1]) < 0.02
    assert parts_at(crippled, ref) == 1 and crippled[-1] > ref[-1] + 0.5


def test_19_an_unscaled_cache_step_changes_the_generation_logits_not_the_trained_weights(reference):
    from attnlib import TinyLM, sample_next
    ref_model, _ = reference
    t = task()
    prompt = t.tokenizer.encode(["the", "cat"])

    def logits_seen(ops):
        seen = []

        def spy(z, temperature, u):
            seen.append(np.array(z))
            return sample_next(z, temperature, u)
        m = TinyLM(len(t.tokenizer), ops={**ops, "sample_next": spy}, **SIZE)
        m.params = {k: v.copy() for k, v in ref_model.params.items()}
        return m.generate(prompt, 6), np.array(seen)

    tokens, good = logits_seen({})
    _, bad = logits_seen({"cache_step": cache_step_without_scale})
    np.testing.assert_allclose(good, ref_model.forward(tokens[:-1])[1:], atol=1e-10)
    assert np.abs(bad[0] - good[0]).max() > 1e-3
    weights, losses = trained({"cache_step": cache_step_without_scale})
    assert all(np.abs(weights.params[k] - ref_model.params[k]).max() < 1e-12 for k in weights.params)

    def sample(ops, seed):
        m = TinyLM(len(t.tokenizer), ops=ops, **SIZE)
        m.params = ref_model.params
        return tuple(m.generate(prompt, 6, temperature=1.0, rng=np.random.default_rng(seed)))
    assert any(sample({}, s) != sample({"cache_step": cache_step_without_scale}, s) for s in range(20))


# ---------------------------------------------------------------------------
# the leak and the floor

def counted_floor(rows=20000, seed=11):
    """Estimate the best honest loss by counting: for each prefix of a row, the entropy of the word that follows."""
    batch = task().batch(rows, np.random.default_rng(seed))
    follow = defaultdict(Counter)
    for tokens, targets in zip(batch.tokens, batch.targets):
        for t in range(len(tokens)):
            follow[tuple(tokens[:t + 1])][int(targets[t])] += 1
    total = sum(c * -math.log(c / sum(counts.values())) for counts in follow.values() for c in counts.values())
    return total / batch.targets.size


def test_19_the_grammars_floor_is_about_0_65():
    assert abs(counted_floor() - 0.651) < 0.01


def test_19_a_leaky_mask_goes_below_the_floor_and_is_worse_than_attnlib_once_fixed():
    from attnlib import TinyLM

    def peek_one_mask(n):
        return np.array([[0.0 if j <= i + 1 else -np.inf for j in range(n)] for i in range(n)])

    def leaky(Q, K, V, causal=True, scale=True):
        return softmax_rows(Q @ K.T / math.sqrt(Q.shape[1]) + peek_one_mask(len(Q))) @ V

    def leaky_backward(Q, K, V, dO, causal=True, scale=True):
        s = 1 / math.sqrt(Q.shape[1])
        A = softmax_rows(Q @ K.T * s + peek_one_mask(len(Q)))
        G = dO @ V.T
        dS = (A * G - A * np.sum(A * G, axis=1, keepdims=True)) * s
        return dS @ K, dS.T @ Q, A.T @ dO

    ref_model, ref = trained(steps=100)
    leak_model, leak = trained({"attention": leaky, "attention_backward": leaky_backward}, steps=100)
    floor = 0.651
    assert leak[-10:].mean() < floor < ref.min()
    fresh = task().batch(256, np.random.default_rng(99))
    honest = TinyLM(len(task().tokenizer), **SIZE)
    honest.params = leak_model.params
    scores = [m.loss_and_grads(fresh.tokens, fresh.targets)[0] for m in (leak_model, ref_model, honest)]
    assert scores[0] < floor < scores[1] < scores[2]


# ---------------------------------------------------------------------------
# one at a time, and the check that does it

def test_19_one_at_a_time_names_the_broken_softmax_backward_and_so_does_the_check(reference):
    from attnlib.checks import capstone
    from attnlib.learner_ops import NAMES
    _, ref = reference

    def softmax_backward_no_subtraction(A, dA):
        return np.multiply(A, dA)

    suspects = {"softmax": loop_softmax, "gelu": erf_free_gelu, "layer_norm": centred_layer_norm,
                "cross_entropy": logsumexp_cross_entropy, "softmax_backward": softmax_backward_no_subtraction}
    k = parts_at(trained(suspects, steps=3)[1], ref)
    assert k == 1
    alone = [n for n in NAMES if n in suspects and parts_at(trained({n: suspects[n]}, steps=k + 1)[1], ref) is not None]
    assert alone == ["softmax_backward"]
    assert (capstone.STEPS, capstone.PROMPT, capstone.BATCH, capstone.LR) == (30, "the cat", 8, 1e-2)
    assert capstone.MODEL == SIZE
    report = capstone.grade(suspects)
    assert report.status == "fail" and "your softmax_backward alone" in report.problems[0]
