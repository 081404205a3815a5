"""Hypothesis property tests: the facts the course asserts, over random shapes and values."""
import numpy as np
import pytest
from hypothesis import given, strategies as st
from hypothesis.extra.numpy import arrays

import attnlib as at

values = st.floats(-5, 5, allow_nan=False, allow_infinity=False)
sizes = st.integers(1, 9)


@st.composite
def qkv(draw, equal_lengths=False):
    n_k = draw(sizes)
    n_q = n_k if equal_lengths else draw(st.integers(1, n_k))
    d, d_v = draw(st.integers(1, 6)), draw(st.integers(1, 6))
    Q = draw(arrays(np.float64, (n_q, d), elements=values))
    K = draw(arrays(np.float64, (n_k, d), elements=values))
    V = draw(arrays(np.float64, (n_k, d_v), elements=values))
    return Q, K, V


@st.composite
def block_inputs(draw):
    n, n_heads, d_head = draw(st.integers(2, 7)), draw(st.integers(1, 3)), draw(st.integers(1, 3))
    d_model = n_heads * d_head
    seed = draw(st.integers(0, 2**32 - 1))
    r = np.random.default_rng(seed)
    p = {k: r.normal(size=(d_model,)) * 0.1 + (1.0 if k.endswith("_g") else 0.0)
         for k in ("ln1_g", "ln1_b", "ln2_g", "ln2_b", "b2")}
    for k in ("Wq", "Wk", "Wv", "Wo"):
        p[k] = r.normal(size=(d_model, d_model)) / np.sqrt(d_model)
    p["W1"], p["b1"] = r.normal(size=(d_model, 4 * d_model)) / np.sqrt(d_model), r.normal(size=4 * d_model) * 0.1
    p["W2"] = r.normal(size=(4 * d_model, d_model)) / np.sqrt(4 * d_model)
    return r.normal(size=(n, d_model)), p, n_heads


@given(qkv(), st.booleans(), st.booleans())
def test_rows_of_A_sum_to_one_and_are_nonnegative(data, causal, scale):
    Q, K, _ = data
    A = at.attention_weights(Q, K, causal=causal, scale=scale)
    assert A.shape == (Q.shape[0], K.shape[0])
    assert (A >= 0).all()
    np.testing.assert_allclose(A.sum(axis=1), 1.0, rtol=1e-12)
    if causal:  # the future gets exactly zero weight
        offset = K.shape[0] - Q.shape[0]
        for i in range(Q.shape[0]):
            assert (A[i, offset + i + 1:] == 0).all()


@given(block_inputs(), st.data())
def test_changing_tokens_at_or_after_t_never_changes_earlier_outputs(inputs, data):
    X, p, n_heads = inputs
    n = X.shape[0]
    t = data.draw(st.integers(1, n - 1))
    X2 = X.copy()
    X2[t:] += data.draw(arrays(np.float64, X2[t:].shape, elements=st.floats(-3, 3).filter(lambda v: abs(v) > 0.1)))
    W = [p[k] for k in ("Wq", "Wk", "Wv", "Wo")]
    for f in (lambda X: at.self_attention(X, *W),
              lambda X: at.multi_head_attention(X, *W, n_heads),
              lambda X: at.transformer_block(X, p, n_heads),
              lambda X: at.transformer_block(at.transformer_block(X, p, n_heads), p, n_heads)):
        Y, Y2 = f(X), f(X2)
        np.testing.assert_allclose(Y[:t], Y2[:t], rtol=1e-12, atol=1e-12)
        assert not np.allclose(Y[t:], Y2[t:])  # the change did reach the later rows


@given(block_inputs(), st.randoms(use_true_random=False))
def test_without_mask_permuting_tokens_permutes_outputs(inputs, random):
    X, p, n_heads = inputs
    perm = np.array(random.sample(range(X.shape[0]), X.shape[0]))
    W = [p[k] for k in ("Wq", "Wk", "Wv", "Wo")]
    for f in (lambda X: at.attention(X, X, X, causal=False),
              lambda X: at.self_attention(X, *W, causal=False),
              lambda X: at.multi_head_attention(X, *W, n_heads, causal=False),
              lambda X: at.transformer_block(X, p, n_heads, causal=False)):
        np.testing.assert_allclose(f(X[perm]), f(X)[perm], rtol=1e-10, atol=1e-12)


@given(qkv(), st.booleans(), st.integers(1, 10))
def test_tiled_attention_equals_attention(data, causal, block):
    Q, K, V = data
    np.testing.assert_allclose(at.tiled_attention(Q, K, V, causal=causal, block=block),
                               at.attention(Q, K, V, causal=causal), rtol=0, atol=1e-12)


@given(qkv(equal_lengths=True))
def test_attend_step_on_caches_equals_last_row_of_full_attention(data):
    Q, K, V = data
    for t in range(1, Q.shape[0] + 1):  # generation: the cache holds rows 0..t-1
        np.testing.assert_allclose(at.attend_step(Q[t - 1], K[:t], V[:t]),
                                   at.attention(Q[:t], K[:t], V[:t])[-1], rtol=1e-12, atol=1e-14)


@given(qkv(equal_lengths=True), block_inputs())
def test_inputs_are_never_mutated(data, inputs):
    Q, K, V = data
    X, p, n_heads = inputs
    W = [p[k] for k in ("Wq", "Wk", "Wv", "Wo")]
    args = [Q, K, V, X, *W, *p.values()]
    before = [a.copy() for a in args]
    at.project(X[0], W[0]); at.project_rows(X, W[0])  # noqa: E702
    at.causal_average(V); at.softmax(Q); at.similarity(Q, K)  # noqa: E702
    at.attention_weights(Q, K); at.attention(Q, K, V); at.tiled_attention(Q, K, V, block=2)  # noqa: E702
    at.self_attention(X, *W); at.multi_head_attention(X, *W, n_heads)  # noqa: E702
    at.layer_norm(X, p["ln1_g"], p["ln1_b"]); at.gelu(X); at.transformer_block(X, p, n_heads)  # noqa: E702
    at.next_token_logits(X, W[0]); at.attend_step(Q[-1], K, V)  # noqa: E702
    A = at.softmax(Q)
    at.softmax_backward(A, np.ones_like(A))
    for a, b in zip(args, before):
        np.testing.assert_array_equal(a, b)


@given(st.integers(1, 6), st.integers(1, 6), st.integers(1, 6))
def test_bad_inner_sizes_raise_value_error(n, d, extra):
    r = np.random.default_rng(0)
    X, W = r.normal(size=(n, d)), r.normal(size=(d + extra, 3))
    with pytest.raises(ValueError, match=f"W expects {d + extra} input features, X rows have {d}"):
        at.project_rows(X, W)
    with pytest.raises(ValueError, match=f"Q has d={d} but K has d={d + extra}"):
        at.attention(X, r.normal(size=(n, d + extra)), X)
    with pytest.raises(ValueError, match="K has .* rows but V has"):
        at.attention(X, X, r.normal(size=(n + extra, 2)))
