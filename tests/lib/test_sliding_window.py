"""A bounded cache (notebook 18): a sliding window, with or without attention sinks.

Position i sees i - window < j <= i; with n_sinks sinks it sees the first n_sinks positions for good and the newest
window - n_sinks. The full pass masks with that rule, and a rolling cache that keeps exactly those rows gives the same
logits token by token while its bytes stay flat. The references here are loops written from the rule.
"""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import attnlib as at
from attnlib import TinyLM
from attnlib.attention import attention_forward
from helpers import numeric_grad, plain_forward, rel_error, rng, softmax_rows


def loop_mask(n, window, n_sinks=0):
    return np.array([[0.0 if j <= i and (i - j < window - n_sinks or j < n_sinks) else -np.inf for j in range(n)]
                     for i in range(n)])


def loop_rolling(Q, K, V, window, n_sinks=0):
    """One head token by token, as exercise 18 says: append, cut back to the first n_sinks and the newest
    window - n_sinks rows, attend over what is kept."""
    Kc, Vc, out = K[:0], V[:0], []
    for t in range(len(Q)):
        Kc, Vc = np.vstack([Kc, K[t]]), np.vstack([Vc, V[t]])
        if len(Kc) > window:
            Kc = np.vstack([Kc[:n_sinks], Kc[len(Kc) - (window - n_sinks):]])
            Vc = np.vstack([Vc[:n_sinks], Vc[len(Vc) - (window - n_sinks):]])
        s = Kc @ Q[t] / np.sqrt(Q.shape[1])
        a = np.exp(s - s.max())
        out.append(a / a.sum() @ Vc)
    return np.array(out)


@pytest.mark.parametrize("n", [1, 2, 5, 9])
def test_the_mask_is_the_rule_and_a_window_as_long_as_the_row_is_the_causal_mask(n):
    for window in range(1, n + 3):
        M = at.sliding_window_mask(n, window)
        assert M.dtype == np.float64 and M.shape == (n, n)
        np.testing.assert_array_equal(M, loop_mask(n, window))
        if window >= n:
            np.testing.assert_array_equal(M, at.causal_mask(n))
    np.testing.assert_array_equal(at.sliding_window_mask(n, 1), np.where(np.eye(n) > 0, 0.0, -np.inf))


def test_each_row_sees_window_positions_fewer_at_the_start():
    M = at.sliding_window_mask(10, 4)
    assert (M == 0).sum(axis=1).tolist() == [1, 2, 3, 4, 4, 4, 4, 4, 4, 4]


@pytest.mark.parametrize("window, n_sinks", [(1, 0), (3, 0), (4, 1), (5, 2), (6, 5), (20, 3)])
def test_the_kernel_masks_with_the_window_and_sinks_and_equals_the_rolling_loop(window, n_sinks):
    r = rng(window + n_sinks)
    Q, K, V = r.normal(size=(3, 12, 4))
    O, (_, _, _, A, _) = attention_forward(Q, K, V, window=window, n_sinks=n_sinks)
    S = Q @ K.T / 2.0 + loop_mask(12, window, n_sinks)
    np.testing.assert_allclose(A, softmax_rows(S), atol=1e-12)
    np.testing.assert_allclose(A.sum(axis=1), 1.0, atol=1e-12)
    np.testing.assert_allclose(O, loop_rolling(Q, K, V, window, n_sinks), atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 14), window=st.integers(1, 16), sinks=st.integers(0, 15), seed=st.integers(0, 2**16),
       shift=st.floats(-1e3, 1e3))
def test_properties_rows_sum_to_1_the_future_never_moves_the_past_huge_scores_stay_finite(n, window, sinks, seed,
                                                                                         shift):
    n_sinks = min(sinks, window - 1)
    r = rng(seed)
    Q, K, V = r.normal(size=(3, n, 4))
    before = [M.copy() for M in (Q, K, V)]
    O, (_, _, _, A, _) = attention_forward(Q, K, V, window=window, n_sinks=n_sinks)
    np.testing.assert_allclose(A.sum(axis=1), 1.0, atol=1e-12)
    assert all(np.array_equal(M, B) for M, B in zip((Q, K, V), before))
    np.testing.assert_allclose(O, loop_rolling(Q, K, V, window, n_sinks), atol=1e-10)
    t = n // 2
    K2, V2 = K.copy(), V.copy()
    K2[t:] += 1.0 + shift
    V2[t:] -= 2.0
    np.testing.assert_array_equal(attention_forward(Q, K2, V2, window=window, n_sinks=n_sinks)[0][:t], O[:t])
    huge = attention_forward(Q * 1e100, K * 1e100, V, window=window, n_sinks=n_sinks)[0]  # scores ~1e200, finite
    assert np.isfinite(huge).all()


@pytest.mark.parametrize("positions", ["learned", "rope"])
@pytest.mark.parametrize("window, n_sinks", [(1, 0), (4, 0), (4, 2), (7, 1), (40, 0)])
def test_the_windowed_full_pass_equals_generation_with_the_rolling_cache(positions, window, n_sinks):
    model = TinyLM(11, 8, 2, 2, 32, seed=3, init_std=0.5, positions=positions, window=window, n_sinks=n_sinks)
    x = rng(1).integers(0, 11, 30)
    full = model.forward(x)
    for cuts in ([1] * 30, [5] + [1] * 25, [3, 9, 18]):  # token by token, a prompt, chunks longer than the window
        cache, steps, t = model.new_cache(), [], 0
        for m in cuts:
            steps.append(model.step(x[t:t + m], cache))
            t += m
        np.testing.assert_allclose(np.concatenate(steps), full, atol=1e-12)
        assert cache.length == 30 and cache.keys(0).shape == (2, min(30, window), 4)
    want = [j for j in range(30) if j < n_sinks or 30 - j <= window - n_sinks] if window < 30 else list(range(30))
    assert cache.positions.tolist() == want
    p = {k: v for k, v in model.params.items()}
    plain, _ = plain_forward(p, list(x), 2, 2, positions=positions, window=window, n_sinks=n_sinks)
    np.testing.assert_allclose(full, plain, atol=1e-10)
    assert (model.generate(x[:4], 20) == model.generate(x[:4], 20, use_cache=False)).all()


def test_the_rolling_cache_keeps_the_rows_of_the_growing_cache_at_the_kept_positions():
    grown = TinyLM(9, 8, 2, 1, 40, seed=0, positions="rope", init_std=0.3)
    rolled = TinyLM(9, 8, 2, 1, 40, seed=0, positions="rope", init_std=0.3, window=6, n_sinks=2)
    x = rng(2).integers(0, 9, 25)
    big, small = grown.new_cache(), rolled.new_cache()
    for t in range(25):
        grown.step(x[t:t + 1], big), rolled.step(x[t:t + 1], small)
    keep = [0, 1, 21, 22, 23, 24]
    assert small.positions.tolist() == keep
    np.testing.assert_allclose(small.keys(0), big.keys(0)[:, keep], atol=1e-12)  # keys rotated at their own place
    np.testing.assert_allclose(small.values(0), big.values(0)[:, keep], atol=1e-12)


def test_a_window_as_long_as_max_len_is_the_causal_model():
    x = rng(4).integers(0, 9, 16)
    plain = TinyLM(9, 8, 2, 2, 16, seed=5, init_std=0.4)
    np.testing.assert_array_equal(TinyLM(9, 8, 2, 2, 16, seed=5, init_std=0.4, window=16).forward(x), plain.forward(x))
    assert not np.allclose(TinyLM(9, 8, 2, 2, 16, seed=5, init_std=0.4, window=3).forward(x)[3:], plain.forward(x)[3:])


def test_the_caches_bytes_stay_flat_as_generation_goes_on():
    model = TinyLM(9, 16, 4, 2, 400, seed=0, positions="rope", window=32, n_sinks=4)
    grown = TinyLM(9, 16, 4, 2, 400, seed=0, positions="rope")
    cache = model.new_cache()
    nbytes, kept = [], []
    for t in range(300):
        model.step(np.array([t % 9]), cache)
        nbytes.append(cache.nbytes)
        kept.append(cache.kept)
    assert len(set(nbytes)) == 1
    assert nbytes[0] == 2 * cache.K.nbytes == at.kv_cache_bytes(2, 4, 4, 32, bytes_per_value=8)
    assert kept[:32] == list(range(1, 33)) and set(kept[32:]) == {32}
    assert grown.new_cache().nbytes == at.kv_cache_bytes(2, 4, 4, 400, bytes_per_value=8)


def test_gradients_of_a_windowed_model_by_finite_differences():
    model = TinyLM(7, 8, 2, 2, 12, seed=1, init_std=0.5, positions="rope", window=3, n_sinks=1)
    r = rng(6)
    tokens, targets = r.integers(0, 7, (2, 10)), r.integers(0, 7, (2, 10))
    _, grads = model.loss_and_grads(tokens, targets)
    for key in ("blocks.0.Wq", "blocks.0.Wk", "blocks.1.Wv", "tok_emb"):
        M = model.params[key]
        numeric = numeric_grad(lambda: model.loss_and_grads(tokens, targets)[0], M)
        assert rel_error(grads[key], numeric) < 1e-6, key
    # the window is in the gradient: the causal model's differs
    causal = TinyLM(7, 8, 2, 2, 12, seed=1, init_std=0.5, positions="rope")
    assert rel_error(causal.loss_and_grads(tokens, targets)[1]["blocks.0.Wq"], grads["blocks.0.Wq"]) > 1e-3


def test_inputs_are_untouched_and_the_future_never_moves_the_past():
    model = TinyLM(9, 8, 2, 2, 20, seed=0, init_std=0.5, window=4, n_sinks=1)
    x = rng(7).integers(0, 9, 20)
    before = x.copy()
    out = model.forward(x)
    assert (x == before).all()
    y = x.copy()
    y[12:] = (y[12:] + 1) % 9
    np.testing.assert_array_equal(model.forward(y)[:12], out[:12])
    z = x.copy()
    z[5] = (z[5] + 1) % 9  # row 15 sees the sink 0 and 13 .. 15; through two layers 0 and 10 .. 15, never 5
    np.testing.assert_allclose(model.forward(z)[15:], out[15:], atol=1e-12)
    assert not np.allclose(model.forward(z)[5:8], out[5:8])


@pytest.mark.parametrize("call, message", [
    (lambda: at.sliding_window_mask(4, 0), "window must be >= 1"),
    (lambda: at.sliding_window_mask(4, 2.0), "window must be a positive integer"),
    (lambda: at.sliding_window_mask(0, 2), "n must be >= 1"),
    (lambda: at.sliding_window_mask(10**6, 3), "n is too large"),
    (lambda: TinyLM(5, 4, 1, 1, 8, window=0), "window must be >= 1"),
    (lambda: TinyLM(5, 4, 1, 1, 8, window=4, n_sinks=4), "n_sinks must be smaller than window"),
    (lambda: TinyLM(5, 4, 1, 1, 8, window=4, n_sinks=-1), "n_sinks must be a non-negative integer"),
    (lambda: TinyLM(5, 4, 1, 1, 8, n_sinks=2), "n_sinks=2 needs a window"),
    (lambda: TinyLM(5, 4, 1, 1, 8, window=4, causal=False), "window=4 .* needs causal=True"),
    (lambda: TinyLM(5, 4, 1, 1, 8, window=4, ops={"softmax": at.softmax}),
     "ops softmax attend to every earlier position; they cannot run a model with window=4"),
    (lambda: at.KVCache(1, 1, 2, 8, window=3, n_sinks=3), "n_sinks must be smaller than window"),
])
def test_bad_input_names_the_argument(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_a_cache_from_a_model_with_another_window_is_refused():
    windowed = TinyLM(5, 4, 1, 1, 8, window=4)
    with pytest.raises(ValueError, match="cache was made for window=None"):
        windowed.step(np.array([1]), TinyLM(5, 4, 1, 1, 8).new_cache())
    with pytest.raises(ValueError, match="window=4, n_sinks=0, this model has window=4, n_sinks=1"):
        TinyLM(5, 4, 1, 1, 8, window=4, n_sinks=1).step(np.array([1]), windowed.new_cache())
