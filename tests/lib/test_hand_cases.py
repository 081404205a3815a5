"""Hand-checked small cases for the maths core (every expected number worked out by hand)."""
import math

import numpy as np
import pytest

import attnlib as at
from helpers import rng


def test_project_hand_case():
    x = np.array([1.0, 2.0])
    W = np.array([[1.0, 0.0, 2.0],
                  [0.0, 1.0, 3.0]])
    np.testing.assert_array_equal(at.project(x, W), [1.0, 2.0, 8.0])


def test_project_is_column_form_transposed():
    # the essay's x' = W x with column vectors is x @ W.T in the row convention
    r = rng(1)
    x, W_col = r.normal(size=3), r.normal(size=(4, 3))
    np.testing.assert_allclose(at.project(x, W_col.T), W_col @ x, rtol=1e-12)


def test_project_rows_hand_case_and_row_independence():
    X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    W = np.array([[2.0, 3.0], [5.0, 7.0]])
    np.testing.assert_array_equal(at.project_rows(X, W), [[2, 3], [5, 7], [7, 10]])
    X2 = X.copy()
    X2[2] = [-4.0, 9.0]
    Y, Y2 = at.project_rows(X, W), at.project_rows(X2, W)
    np.testing.assert_array_equal(Y[:2], Y2[:2])
    assert not np.allclose(Y[2], Y2[2])


def test_uniform_causal_weights_hand_case():
    expected = [[1, 0, 0], [1 / 2, 1 / 2, 0], [1 / 3, 1 / 3, 1 / 3]]
    np.testing.assert_allclose(at.uniform_causal_weights(3), expected, rtol=1e-15)


def test_causal_average_hand_case():
    V = np.array([[1.0, 10.0], [3.0, 20.0], [5.0, 0.0]])
    np.testing.assert_allclose(at.causal_average(V), [[1, 10], [2, 15], [3, 10]])


def test_causal_mask_hand_case():
    M = at.causal_mask(3)
    inf = np.inf
    np.testing.assert_array_equal(M, [[0, -inf, -inf], [0, 0, -inf], [0, 0, 0]])


def test_softmax_hand_cases():
    np.testing.assert_allclose(at.softmax(np.array([0.0, math.log(3.0)])), [0.25, 0.75], rtol=1e-15)
    np.testing.assert_array_equal(at.softmax(np.array([-np.inf, 0.0, -np.inf])), [0.0, 1.0, 0.0])
    S = np.array([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_allclose(at.softmax(S, axis=0), [[1 / (1 + math.e ** 2), 1 / (1 + math.e ** 2)],
                                                       [1 / (1 + math.e ** -2), 1 / (1 + math.e ** -2)]])


@pytest.mark.parametrize("big", [1e4, -1e4])
def test_softmax_large_logits_stay_finite_and_correct(big):
    A = at.softmax(np.array([[big, big - math.log(3.0)], [0.0, big]]))
    np.testing.assert_allclose(A[0], [0.75, 0.25], rtol=1e-9)
    np.testing.assert_allclose(A[1], [0.0, 1.0] if big > 0 else [1.0, 0.0], atol=1e-300)


def test_softmax_huge_logits_do_not_overflow():
    A = at.softmax(np.array([1e300, -1e300, 1e300]))
    np.testing.assert_array_equal(A, [0.5, 0.0, 0.5])


def test_softmax_all_masked_row_names_the_row():
    S = np.array([[0.0, -np.inf], [-np.inf, -np.inf]])
    with pytest.raises(ValueError, match=r"index \(1, 0\)"):
        at.softmax(S)


def test_similarity_hand_case():
    Q = np.array([[1.0, 0.0], [1.0, 2.0]])
    K = np.array([[3.0, 4.0], [0.0, 1.0], [1.0, 1.0]])
    np.testing.assert_array_equal(at.similarity(Q, K), [[3, 0, 1], [11, 2, 3]])


def _two_token_case():
    # d = 4 so the scale is 1/2. Query 1 . key 1 = 2 * 2 ln 3 = 4 ln 3 -> scaled 2 ln 3 -> exp = 9.
    Q = np.array([[0.0, 0, 0, 0], [2.0, 0, 0, 0]])
    K = np.array([[0.0, 0, 0, 0], [2 * math.log(3.0), 0, 0, 0]])
    return Q, K


def test_attention_weights_hand_case():
    Q, K = _two_token_case()
    np.testing.assert_allclose(at.attention_weights(Q, K), [[1, 0], [0.1, 0.9]], rtol=1e-12)
    # no mask: row 0 scores are both 0 -> uniform; no scale: row 1 scores 0, 4 ln 3 -> 1 : 81
    np.testing.assert_allclose(at.attention_weights(Q, K, causal=False), [[0.5, 0.5], [0.1, 0.9]], rtol=1e-12)
    np.testing.assert_allclose(at.attention_weights(Q, K, scale=False)[1], [1 / 82, 81 / 82], rtol=1e-12)


def test_attention_hand_case():
    Q, K = _two_token_case()
    V = np.array([[1.0, 0.0, 5.0], [0.0, 1.0, 5.0]])
    np.testing.assert_allclose(at.attention(Q, K, V), [[1, 0, 5], [0.1, 0.9, 5]], rtol=1e-12)


def test_attention_with_fewer_queries_uses_last_positions():
    # one query against 3 keys sits at position 2 and sees all of them; two queries sit at 1 and 2
    r = rng(2)
    Q, K = r.normal(size=(3, 4)), r.normal(size=(3, 4))
    full = at.attention_weights(Q, K)
    np.testing.assert_allclose(at.attention_weights(Q[1:], K), full[1:], rtol=1e-12)
    assert at.attention_weights(Q[1:], K)[0, 2] == 0.0


def test_self_attention_matches_spelled_out_steps():
    r = rng(3)
    X = r.normal(size=(5, 4))
    Wq, Wk, Wv, Wo = r.normal(size=(4, 3)), r.normal(size=(4, 3)), r.normal(size=(4, 2)), r.normal(size=(2, 4))
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    S = Q @ K.T / math.sqrt(3)
    A = np.zeros((5, 5))
    for i in range(5):  # the softmax written as a loop over the visible keys
        e = np.exp(S[i, :i + 1] - S[i, :i + 1].max())
        A[i, :i + 1] = e / e.sum()
    np.testing.assert_allclose(at.self_attention(X, Wq, Wk, Wv), A @ V, rtol=1e-12)
    np.testing.assert_allclose(at.self_attention(X, Wq, Wk, Wv, Wo), A @ V @ Wo, rtol=1e-12)


def test_multi_head_matches_a_loop_over_heads():
    r = rng(4)
    n, d_model, n_heads = 5, 6, 3
    X = r.normal(size=(n, d_model))
    Wq, Wk, Wv, Wo = (r.normal(size=(d_model, d_model)) for _ in range(4))
    d_head = d_model // n_heads
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_head, (h + 1) * d_head)
        heads.append(at.self_attention(X, Wq[:, cols], Wk[:, cols], Wv[:, cols]))
    expected = np.concatenate(heads, axis=1) @ Wo
    np.testing.assert_allclose(at.multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads), expected, rtol=1e-12)


def test_layer_norm_hand_case():
    X = np.array([[1.0, 2.0, 3.0]])  # mean 2, biased variance 2/3
    Y = at.layer_norm(X, np.ones(3), np.zeros(3), eps=1e-300)  # eps too small to change the variance
    s = math.sqrt(2 / 3)
    np.testing.assert_allclose(Y, [[-1 / s, 0, 1 / s]], rtol=1e-12)
    Y = at.layer_norm(X, np.array([2.0, 2, 2]), np.array([1.0, 1, 1]), eps=1 / 3)  # sqrt(2/3 + 1/3) = 1
    np.testing.assert_allclose(Y, [[-1, 1, 3]], rtol=1e-12)


def test_gelu_reference_values():
    # tanh-approximate GELU at 0, 1, -1, 3 (values from the closed form, worked by hand to 1e-9)
    X = np.array([0.0, 1.0, -1.0, 3.0, 50.0, -50.0])
    expected = [0.0, 0.8411919906, -0.1588080094, 2.9963625152, 50.0, 0.0]
    np.testing.assert_allclose(at.gelu(X), expected, atol=1e-9)


def test_next_token_logits_uses_last_row():
    H = np.array([[9.0, 9.0], [1.0, 2.0]])
    W = np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]])
    np.testing.assert_array_equal(at.next_token_logits(H, W), [1.0, 2.0, 3.0])


def test_softmax_backward_matches_finite_differences():
    r = rng(5)
    S, dA = r.normal(size=(3, 4)), r.normal(size=(3, 4))
    loss = lambda S: float(np.sum(at.softmax(S) * dA))  # noqa: E731
    num = np.zeros_like(S)
    eps = 1e-6
    for idx in np.ndindex(S.shape):
        Sp, Sm = S.copy(), S.copy()
        Sp[idx] += eps
        Sm[idx] -= eps
        num[idx] = (loss(Sp) - loss(Sm)) / (2 * eps)
    np.testing.assert_allclose(at.softmax_backward(at.softmax(S), dA), num, rtol=1e-6, atol=1e-9)


def test_attend_step_hand_case():
    # d = 1: scores = K q / 1 = [0, ln 3] -> weights [1/4, 3/4]
    q = np.array([1.0])
    K = np.array([[0.0], [math.log(3.0)]])
    V = np.array([[4.0, 0.0], [0.0, 4.0]])
    np.testing.assert_allclose(at.attend_step(q, K, V), [1.0, 3.0], rtol=1e-12)


def test_kv_cache_bytes_gpt2_small():
    # 2 (K, V) * 12 layers * 12 heads * 64 * 1024 tokens * 2 bytes = 37,748,736
    assert at.kv_cache_bytes(12, 12, 64, 1024) == 37_748_736
    assert at.kv_cache_bytes(12, 12, 64, 1024, batch=4, bytes_per_value=4) == 37_748_736 * 8


def test_tiled_attention_small_blocks_hand_case():
    Q, K = _two_token_case()
    V = np.array([[1.0, 0.0], [0.0, 1.0]])
    np.testing.assert_allclose(at.tiled_attention(Q, K, V, block=1), [[1, 0], [0.1, 0.9]], rtol=1e-12)


def test_float32_in_float32_out():
    r = rng(6)
    Q, K, V = (r.normal(size=(4, 3)).astype(np.float32) for _ in range(3))
    assert at.attention(Q, K, V).dtype == np.float32
    np.testing.assert_allclose(at.attention(Q, K, V), at.attention(*(a.astype(float) for a in (Q, K, V))), rtol=1e-5)


@pytest.mark.parametrize("n_q, n_k", [(300, 300), (200, 333), (129, 129)])
def test_long_causal_attention_matches_plain_numpy(n_q, n_k):
    # long enough that attention() works through its causal row blocks
    r = rng(7)
    Q, K, V = r.normal(size=(n_q, 8)), r.normal(size=(n_k, 8)), r.normal(size=(n_k, 5))
    S = Q @ K.T / math.sqrt(8)
    future = np.arange(n_k)[None, :] > (n_k - n_q + np.arange(n_q))[:, None]
    S[future] = -np.inf
    E = np.exp(S - S.max(axis=1, keepdims=True))
    expected = E / E.sum(axis=1, keepdims=True) @ V
    np.testing.assert_allclose(at.attention(Q, K, V), expected, rtol=1e-12, atol=1e-14)
    Qh, Kh, Vh = (np.stack([a, a[::-1]]) for a in (Q, K, V))  # stacked heads take the same path
    from attnlib.attention import attend
    np.testing.assert_allclose(attend(Qh, Kh, Vh)[0], expected, rtol=1e-12, atol=1e-14)


def test_float32_stays_float32_everywhere():
    r = rng(8)
    X = r.normal(size=(200, 8)).astype(np.float32)
    assert at.attention(X, X, X).dtype == np.float32
    assert at.tiled_attention(X, X, X).dtype == np.float32
    assert at.attend_step(X[-1], X, X).dtype == np.float32
    assert at.gelu(X).dtype == np.float32


def test_rope_hand_case():
    # d = 4: pair 0 turns 1 radian per position, pair 1 turns 10000^(-2/4) = 0.01
    X = np.array([[1.0, 0.0, 1.0, 0.0], [1.0, 0.0, 0.0, 2.0], [3.0, 4.0, 5.0, 6.0]])
    out = at.rope(X, np.array([1, 2, 0]))
    c1, s1, c2, s2 = math.cos(1), math.sin(1), math.cos(2), math.sin(2)
    expected = [[c1, s1, math.cos(0.01), math.sin(0.01)],
                [c2, s2, -2 * math.sin(0.02), 2 * math.cos(0.02)],  # (0, 2) turned by 0.02
                [3.0, 4.0, 5.0, 6.0]]  # position 0: unchanged
    np.testing.assert_allclose(out, expected, rtol=1e-15, atol=1e-15)
    # a quarter turn of pair 0 with theta = 1 (every pair at 1 radian per position, so pi/2 needs a float angle):
    # (x, y) -> (-y, x) is the counter-clockwise direction
    quarter = at.rope(np.array([[2.0, 5.0]]), np.array([3]), theta=1.0)
    np.testing.assert_allclose(quarter, [[2 * math.cos(3) - 5 * math.sin(3), 2 * math.sin(3) + 5 * math.cos(3)]])


def test_rope_scores_depend_only_on_the_offset():
    r = rng(16)
    Q, K = r.normal(size=(5, 8)), r.normal(size=(5, 8))
    pos = np.arange(5)
    S = at.rope(Q, pos) @ at.rope(K, pos).T
    for shift in (1, 7, 1000):
        np.testing.assert_allclose(at.rope(Q, pos + shift) @ at.rope(K, pos + shift).T, S, atol=1e-12)
    # and without rotating, or rotating one side only, the scores move
    assert not np.allclose(at.rope(Q, pos + 3) @ K.T, S)
