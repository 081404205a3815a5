"""TinyLM: the API contract, agreement with the per-sentence reference, causality,
the KV cache, and errors that name the bad argument."""
import numpy as np
import pytest

from attnlib import attention_weights, layer_norm, transformer_block
from attnlib.block import BLOCK_KEYS
from attnlib.model import TinyLM
from helpers import rng


def small(**kw):
    args = dict(vocab_size=11, d_model=16, n_heads=4, n_layers=2, max_len=40, seed=0, init_std=0.3)
    args.update(kw)
    return TinyLM(**args)


def reference_logits(model, tokens):
    """The same model written with the public one-sentence functions of attnlib.layers."""
    p = model.params
    X = p["tok_emb"][tokens] + p["pos_emb"][:len(tokens)]
    for i in range(model.n_layers):
        X = transformer_block(X, {k: p[f"blocks.{i}.{k}"] for k in BLOCK_KEYS}, model.n_heads, model.causal)
    return layer_norm(X, p["ln_f_g"], p["ln_f_b"]) @ p["W_out"]


def test_params_follow_the_contract():
    model = TinyLM(13, 8, 2, 3, 20)
    expected = {"tok_emb": (13, 8), "pos_emb": (20, 8), "ln_f_g": (8,), "ln_f_b": (8,), "W_out": (8, 13)}
    shapes = {"ln1_g": (8,), "ln1_b": (8,), "Wq": (8, 8), "Wk": (8, 8), "Wv": (8, 8), "Wo": (8, 8),
              "ln2_g": (8,), "ln2_b": (8,), "W1": (8, 32), "b1": (32,), "W2": (32, 8), "b2": (8,)}
    for i in range(3):
        for k in BLOCK_KEYS:
            expected[f"blocks.{i}.{k}"] = shapes[k]
    assert {k: v.shape for k, v in model.params.items()} == expected
    assert all(v.dtype == np.float64 for v in model.params.values())
    assert all(v.dtype == np.float32 for v in TinyLM(13, 8, 2, 3, 20, dtype=np.float32).params.values())


def test_init_is_gpt2_like_and_seeded():
    model = TinyLM(50, 64, 2, 4, 64, seed=5)
    W = model.params["blocks.0.W1"]
    assert W.std() == pytest.approx(0.02, rel=0.05)
    assert model.params["blocks.3.Wo"].std() == pytest.approx(0.02 / np.sqrt(8), rel=0.1)  # residual scaling
    assert np.all(model.params["blocks.1.ln1_g"] == 1) and np.all(model.params["blocks.1.b1"] == 0)
    assert TinyLM(50, 64, 2, 4, 64, seed=5, init_std=1.0).params["blocks.0.W1"].std() == pytest.approx(1.0, rel=0.05)
    again = TinyLM(50, 64, 2, 4, 64, seed=5)
    assert all(np.array_equal(model.params[k], again.params[k]) for k in model.params)
    assert not np.array_equal(W, TinyLM(50, 64, 2, 4, 64, seed=6).params["blocks.0.W1"])


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_init_std_has_a_range_and_every_accepted_value_builds_finite_weights(dtype):
    from attnlib.model import MAX_INIT_STD
    assert MAX_INIT_STD == 1000.0
    model = TinyLM(30, 16, 2, 2, 12, init_std=MAX_INIT_STD, dtype=dtype)
    assert all(np.isfinite(v).all() for v in model.params.values())
    assert model.params["blocks.0.W1"].std() == pytest.approx(MAX_INIT_STD, rel=0.1)
    tokens = rng(0).integers(0, 30, (2, 12))
    loss, grads = model.loss_and_grads(tokens, tokens)
    assert np.isfinite(loss) and all(np.isfinite(g).all() for g in grads.values())
    for too_large in (np.nextafter(MAX_INIT_STD, np.inf), 1e200, np.finfo(np.float64).max):
        with pytest.raises(ValueError, match=r"^init_std must be <= 1000, got "):
            TinyLM(30, 16, 2, 2, 12, init_std=too_large, dtype=dtype)


@pytest.mark.parametrize("causal", [True, False])
def test_forward_matches_the_one_sentence_reference(causal):
    model = small(causal=causal)
    tokens = rng(1).integers(0, 11, (3, 9))
    logits = model.forward(tokens)
    assert logits.shape == (3, 9, 11)
    for b in range(3):
        np.testing.assert_allclose(logits[b], reference_logits(model, tokens[b]), atol=1e-12)
    np.testing.assert_allclose(model.forward(tokens[0]), logits[0], atol=1e-12)  # 1-D convenience


def test_without_the_scale_scores_are_not_divided():
    model = small(attn_scale=False)
    scaled = small()
    # with the scale off, dividing Wq by sqrt(d_head) gives back the scaled model
    for i in range(model.n_layers):
        model.params[f"blocks.{i}.Wq"] = scaled.params[f"blocks.{i}.Wq"] / np.sqrt(scaled.d_head)
    tokens = rng(2).integers(0, 11, (2, 7))
    np.testing.assert_allclose(model.forward(tokens), scaled.forward(tokens), atol=1e-12)


def test_later_tokens_never_change_earlier_logits():
    model = small()
    tokens = rng(3).integers(0, 11, 12)
    base = model.forward(tokens)
    for t in range(12):
        changed = tokens.copy()
        changed[t:] = (changed[t:] + 1 + rng(t).integers(0, 10, 12 - t)) % 11
        out = model.forward(changed)
        np.testing.assert_array_equal(out[:t], base[:t])
        assert not np.allclose(out[t], base[t])
    # the bidirectional model does look ahead
    bi = small(causal=False)
    changed = tokens.copy()
    changed[-1] = (changed[-1] + 1) % 11
    assert not np.allclose(bi.forward(changed)[0], bi.forward(tokens)[0])


def test_attention_maps_are_each_heads_softmax():
    model = small()
    tokens = rng(4).integers(0, 11, 6)
    maps = model.attention_maps(tokens)
    assert maps.shape == (2, 4, 6, 6)
    np.testing.assert_allclose(maps.sum(-1), 1.0)
    assert np.all(np.triu(maps, 1) == 0)
    # layer 0's heads, recomputed from the embeddings with the public attention_weights
    p = model.params
    H = layer_norm(p["tok_emb"][tokens] + p["pos_emb"][:6], p["blocks.0.ln1_g"], p["blocks.0.ln1_b"])
    Q, K = H @ p["blocks.0.Wq"], H @ p["blocks.0.Wk"]
    for h in range(4):
        cols = slice(4 * h, 4 * h + 4)
        np.testing.assert_allclose(maps[0, h], attention_weights(Q[:, cols], K[:, cols]), atol=1e-12)
    other = rng(5).integers(0, 11, 6)  # a batch gives each row's maps, as one sequence at a time does
    batch = model.attention_maps(np.stack([tokens, other]))
    assert batch.shape == (2, 2, 4, 6, 6)
    np.testing.assert_allclose(batch[0], maps, atol=1e-12)
    np.testing.assert_allclose(batch[1], model.attention_maps(other), atol=1e-12)


def test_cached_and_uncached_generation_agree():
    model = small()
    prompt = rng(5).integers(0, 11, 4)
    cached = model.generate(prompt, 30)
    uncached = model.generate(prompt, 30, use_cache=False)
    assert cached.shape == (34,) and np.array_equal(cached[:4], prompt)
    np.testing.assert_array_equal(cached, uncached)
    # greedy means: each new token is the argmax of the full forward pass on what came before
    for t in range(4, 34):
        assert cached[t] == np.argmax(reference_logits(model, cached[:t])[-1])
    hot = model.generate(prompt, 30, temperature=1.5, rng=np.random.default_rng(1))
    hot_uncached = model.generate(prompt, 30, temperature=1.5, use_cache=False, rng=np.random.default_rng(1))
    np.testing.assert_array_equal(hot, hot_uncached)
    assert not np.array_equal(hot, cached)


def test_the_cache_grows_one_row_per_token_and_matches_the_full_pass():
    model = small()
    tokens = rng(6).integers(0, 11, 10)
    cache = model.new_cache()
    rows = [model.step(tokens[:3], cache)]  # prefill 3 tokens at once
    assert cache.length == 3 and cache.keys(0).shape == (4, 3, 4)
    for t in range(3, 10):
        rows.append(model.step(tokens[t:t + 1], cache))
        assert cache.keys(1).shape == (4, t + 1, 4) and cache.values(1).shape == (4, t + 1, 4)
    np.testing.assert_allclose(np.concatenate(rows), reference_logits(model, tokens), atol=1e-12)


def test_float32_model_runs_in_float32():
    model = small(dtype=np.float32)
    tokens = rng(7).integers(0, 11, (2, 5))
    assert model.forward(tokens).dtype == np.float32
    loss, grads = model.loss_and_grads(tokens, tokens)
    assert all(g.dtype == np.float32 for g in grads.values())
    wide = small()
    wide.params = {k: v.astype(np.float64) for k, v in model.params.items()}
    np.testing.assert_allclose(model.forward(tokens), wide.forward(tokens), atol=1e-4)


def test_inputs_are_not_mutated():
    model = small()
    tokens = rng(8).integers(0, 11, (2, 6))
    before = {k: v.copy() for k, v in model.params.items()}
    kept = tokens.copy()
    model.loss_and_grads(tokens, tokens)
    model.generate(tokens[0], 3)
    assert np.array_equal(tokens, kept)
    assert all(np.array_equal(before[k], model.params[k]) for k in before)


@pytest.mark.parametrize("call, words", [
    (lambda m: m.forward(np.array([[1, 2, 11]])), ["tokens", "vocab_size=11"]),
    (lambda m: m.forward(np.array([[1.0, 2.0]])), ["tokens", "float64"]),
    (lambda m: m.forward(np.zeros((2, 41), dtype=int)), ["tokens", "max_len=40", "(2, 41)"]),
    (lambda m: m.forward(np.zeros((1, 2, 3), dtype=int)), ["tokens", "(1, 2, 3)"]),
    (lambda m: m.loss_and_grads(np.zeros((2, 3), dtype=int), np.zeros((2, 4), dtype=int)), ["targets", "(2, 4)"]),
    (lambda m: m.loss_and_grads(np.zeros((2, 3), dtype=int), np.full((2, 3), 12)), ["targets", "12"]),
    (lambda m: m.generate(np.array([1, 2]), 39), ["n_new=39", "max_len=40"]),
    (lambda m: m.generate(np.array([[1, 2]]), 3), ["prompt", "(1, 2)"]),
    (lambda m: m.generate(np.array([1, 2]), -1), ["n_new"]),
    (lambda m: m.generate(np.array([1, 2]), 3, temperature=-1), ["temperature"]),
    (lambda m: m.attention_maps(np.zeros((2, 2, 3), dtype=int)), ["tokens", "(2, 2, 3)"]),
])
def test_bad_input_names_the_argument(call, words):
    with pytest.raises(ValueError) as info:
        call(small())
    for word in words:
        assert word in str(info.value)


def test_bad_construction_and_cache_misuse():
    with pytest.raises(ValueError, match="n_heads=3 does not divide d_model=16"):
        TinyLM(11, 16, 3, 2, 8)
    with pytest.raises(ValueError, match="vocab_size"):
        TinyLM(0, 16, 2, 2, 8)
    with pytest.raises(ValueError, match="dtype"):
        TinyLM(11, 16, 2, 2, 8, dtype=np.int64)
    with pytest.raises(ValueError, match="causal"):
        small(causal=False).generate(np.array([1, 2]), 3)
    assert len(small(causal=False).generate(np.array([1, 2]), 3, use_cache=False)) == 5


# ---------------------------------------------------------------------------
# positions: learned rows, fixed sinusoids, or rotated q and k (RoPE)

def rotate_rows(M, positions, theta=10000.0):
    """Each adjacent pair (2i, 2i+1) of row t turned by positions[t] * theta^(-2i/d), pair by pair."""
    out = M.copy()
    d = M.shape[1]
    for t, pos in enumerate(positions):
        for i in range(d // 2):
            a = pos * theta ** (-2 * i / d)
            x, y = M[t, 2 * i], M[t, 2 * i + 1]
            out[t, 2 * i], out[t, 2 * i + 1] = x * np.cos(a) - y * np.sin(a), x * np.sin(a) + y * np.cos(a)
    return out


def positions_reference(model, tokens):
    """TinyLM's logits for one sequence, head by head, with its positions written out from their formulas."""
    p, T, d = model.params, len(tokens), model.d_model
    X = p["tok_emb"][tokens].copy()
    if model.positions == "learned":
        X += p["pos_emb"][:T]
    elif model.positions == "sinusoid":
        for t in range(T):
            for i in range(d // 2):
                X[t, 2 * i] += np.sin(t / 10000 ** (2 * i / d))
                X[t, 2 * i + 1] += np.cos(t / 10000 ** (2 * i / d))
    dh = model.d_head
    for layer in range(model.n_layers):
        b = {k: p[f"blocks.{layer}.{k}"] for k in BLOCK_KEYS}
        H = layer_norm(X, b["ln1_g"], b["ln1_b"])
        heads = []
        for h in range(model.n_heads):
            cols = slice(h * dh, (h + 1) * dh)
            Q, K, V = H @ b["Wq"][:, cols], H @ b["Wk"][:, cols], H @ b["Wv"][:, cols]
            if model.positions == "rope":
                Q, K = rotate_rows(Q, range(T)), rotate_rows(K, range(T))  # V is never rotated
            S = Q @ K.T / np.sqrt(dh)
            S[np.triu_indices(T, 1)] = -np.inf
            heads.append(np.exp(S - S.max(1, keepdims=True)) / np.exp(S - S.max(1, keepdims=True)).sum(1,
                                                                                                     keepdims=True) @ V)
        X = X + np.concatenate(heads, axis=1) @ b["Wo"]
        Hm = layer_norm(X, b["ln2_g"], b["ln2_b"]) @ b["W1"] + b["b1"]
        X = X + 0.5 * Hm * (1 + np.tanh(np.sqrt(2 / np.pi) * (Hm + 0.044715 * Hm ** 3))) @ b["W2"] + b["b2"]
    return layer_norm(X, p["ln_f_g"], p["ln_f_b"]) @ p["W_out"]


@pytest.mark.parametrize("positions", ["learned", "sinusoid", "rope"])
def test_each_kind_of_positions_matches_its_formula(positions):
    model = small(positions=positions, max_len=20)
    assert ("pos_emb" in model.params) == (positions == "learned")
    assert (positions != "learned") == (f"positions={positions!r}" in repr(model))
    tokens = rng(20).integers(0, 11, 12)
    np.testing.assert_allclose(model.forward(tokens), positions_reference(model, tokens), atol=1e-10)


@pytest.mark.parametrize("n_kv_heads", [4, 2])
def test_rope_model_sees_offsets_only_and_its_cache_holds_rotated_keys(n_kv_heads):
    model = small(positions="rope", n_kv_heads=n_kv_heads, max_len=24)
    tokens = rng(21).integers(0, 11, 14)
    cache = model.new_cache()
    rows = [model.step(tokens[:5], cache)] + [model.step(tokens[t:t + 1], cache) for t in range(5, 14)]
    np.testing.assert_allclose(np.concatenate(rows), model.forward(tokens), atol=1e-12)
    # the cached keys are layer 0's keys (one per group) rotated by their positions: the rows a full pass computes
    p = model.params
    H = layer_norm(p["tok_emb"][tokens], p["blocks.0.ln1_g"], p["blocks.0.ln1_b"])
    for g in range(n_kv_heads):
        cols = slice(g * model.d_head, (g + 1) * model.d_head)
        np.testing.assert_allclose(cache.keys(0)[g], rotate_rows(H @ p["blocks.0.Wk"][:, cols], range(14)),
                                   atol=1e-12)
        np.testing.assert_allclose(cache.values(0)[g], H @ p["blocks.0.Wv"][:, cols], atol=1e-12)
    prompt = tokens[:3]
    np.testing.assert_array_equal(model.generate(prompt, 20), model.generate(prompt, 20, use_cache=False))
    hot = dict(temperature=1.0)
    np.testing.assert_array_equal(model.generate(prompt, 20, rng=np.random.default_rng(2), **hot),
                                  model.generate(prompt, 20, use_cache=False, rng=np.random.default_rng(2), **hot))


def test_a_rope_model_has_no_position_to_learn_and_refuses_what_cannot_rotate():
    model = small(positions="rope")
    _, grads = model.loss_and_grads(rng(22).integers(0, 11, (2, 6)), rng(23).integers(0, 11, (2, 6)))
    assert set(grads) == set(model.params) and "pos_emb" not in grads
    with pytest.raises(ValueError, match="cannot run a model with positions='rope'"):
        small(positions="rope", ops={"multi_head_attention": lambda *a: None})
    with pytest.raises(ValueError, match="d_model must be even"):
        TinyLM(11, 5, 1, 1, 8, positions="sinusoid")
    with pytest.raises(ValueError, match="positions must be one of"):
        small(positions=None)


# ---------------------------------------------------------------------------
# shared keys and values: n_kv_heads groups for n_heads query heads (GQA; 1 is MQA)

def grouped_reference_logits(model, tokens):
    """A pre-LN model whose attention is the public grouped_query_attention, block by block."""
    from attnlib import gelu, grouped_query_attention
    p = model.params
    X = p["tok_emb"][tokens] + p["pos_emb"][:len(tokens)]
    for i in range(model.n_layers):
        b = {k: p[f"blocks.{i}.{k}"] for k in BLOCK_KEYS}
        X = X + grouped_query_attention(layer_norm(X, b["ln1_g"], b["ln1_b"]), b["Wq"], b["Wk"], b["Wv"], b["Wo"],
                                        model.n_heads, model.n_kv_heads)
        X = X + gelu(layer_norm(X, b["ln2_g"], b["ln2_b"]) @ b["W1"] + b["b1"]) @ b["W2"] + b["b2"]
    return layer_norm(X, p["ln_f_g"], p["ln_f_b"]) @ p["W_out"]


@pytest.mark.parametrize("n_kv_heads", [4, 2, 1])
def test_grouped_model_is_grouped_query_attention_and_its_cache_holds_the_groups(n_kv_heads):
    model = small(n_kv_heads=n_kv_heads)  # 4 heads of d_head 4
    assert model.params["blocks.0.Wk"].shape == model.params["blocks.1.Wv"].shape == (16, 4 * n_kv_heads)
    tokens = rng(30).integers(0, 11, 12)
    np.testing.assert_allclose(model.forward(tokens), grouped_reference_logits(model, tokens), atol=1e-12)
    maps = model.attention_maps(tokens)  # one map per query head: heads sharing a group still ask their own queries
    assert maps.shape == (2, 4, 12, 12)
    np.testing.assert_allclose(maps.sum(axis=-1), 1.0, atol=1e-12)
    cache = model.new_cache()
    rows = [model.step(tokens[:4], cache)] + [model.step(tokens[t:t + 1], cache) for t in range(4, 12)]
    assert cache.keys(0).shape == cache.values(1).shape == (n_kv_heads, 12, 4)  # one key and value per group
    assert cache.K.nbytes == 2 * 40 * n_kv_heads * 4 * 8  # n_layers * max_len * groups * d_head float64s
    np.testing.assert_allclose(np.concatenate(rows), model.forward(tokens), atol=1e-12)
    prompt = tokens[:3]
    np.testing.assert_array_equal(model.generate(prompt, 25), model.generate(prompt, 25, use_cache=False))


def test_as_many_groups_as_heads_is_the_plain_model():
    tokens = rng(31).integers(0, 11, (2, 9))
    np.testing.assert_array_equal(small(n_kv_heads=4).forward(tokens), small().forward(tokens))
    assert "n_kv_heads" not in repr(small(n_kv_heads=4)) and "n_kv_heads=2" in repr(small(n_kv_heads=2))


def test_bad_groups_are_named():
    with pytest.raises(ValueError, match=r"n_heads=4 must be a multiple of n_kv_heads=3"):
        small(n_kv_heads=3)
    with pytest.raises(ValueError, match=r"n_kv_heads must be >= 1"):
        small(n_kv_heads=0)
    with pytest.raises(ValueError, match=r"ops multi_head_attention take one key and value per head; they cannot "
                                         r"run a model with n_kv_heads < n_heads"):
        small(n_kv_heads=2, ops={"multi_head_attention": lambda *a: None})
    with pytest.raises(ValueError, match=r"cache was made for another model size"):
        small(n_kv_heads=2).step(np.array([1]), small().new_cache())
