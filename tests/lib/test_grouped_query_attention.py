"""Grouped-query attention: n_heads query heads share n_kv_heads key/value groups, query head h reading group
h // (n_heads // n_kv_heads). n_kv_heads = n_heads is multi-head attention; n_kv_heads = 1 is multi-query
attention (MQA). The cache then holds n_kv_heads groups, and its size is counted from that formula.
"""
import numpy as np
import pytest

import attnlib as at
from helpers import rng


def weights(r, d_model, n_heads, n_kv_heads, d_head):
    """Wq (d_model, n_heads*d_head), Wk, Wv (d_model, n_kv_heads*d_head), Wo (n_heads*d_head, d_model)."""
    return (r.normal(size=(d_model, n_heads * d_head)), r.normal(size=(d_model, n_kv_heads * d_head)),
            r.normal(size=(d_model, n_kv_heads * d_head)), r.normal(size=(n_heads * d_head, d_model)))


def softmax_rows(S):
    E = np.exp(S - S.max(axis=1, keepdims=True))
    return E / E.sum(axis=1, keepdims=True)


def one_head(Q, K, V, causal):
    """softmax(Q K^T / sqrt(d) + mask) V, written out here from the formula."""
    S = Q @ K.T / np.sqrt(Q.shape[1])
    if causal:
        S = np.where(np.tril(np.ones(S.shape, dtype=bool)), S, -np.inf)
    return softmax_rows(S) @ V


def test_a_hand_checked_two_heads_sharing_one_key_and_value():
    # d_head = 1 and Wo = I: the output's columns are the two heads. k = (0, 1), v = (1, 3) for the two tokens.
    X = np.eye(2)
    Wq = np.array([[0.0, 0.0], [0.0, np.log(3.0)]])  # token 1 asks with q = 0 (head 0) and q = ln 3 (head 1)
    Wk, Wv = np.array([[0.0], [1.0]]), np.array([[1.0], [3.0]])
    O = at.grouped_query_attention(X, Wq, Wk, Wv, np.eye(2), n_heads=2, n_kv_heads=1)
    # token 0 sees only itself: v = 1 in both heads. Token 1, head 0: scores (0, 0), weights (1/2, 1/2) -> 2;
    # head 1: scores (0, ln 3), weights (1/4, 3/4) -> 1/4 + 9/4 = 2.5
    np.testing.assert_allclose(O, [[1.0, 1.0], [2.0, 2.5]], rtol=1e-12)
    # without the mask token 0 also sees token 1: its queries are 0, so it averages the two values
    O = at.grouped_query_attention(X, Wq, Wk, Wv, np.eye(2), n_heads=2, n_kv_heads=1, causal=False)
    np.testing.assert_allclose(O, [[2.0, 2.0], [2.0, 2.5]], rtol=1e-12)


@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("n_heads, d_head", [(1, 4), (3, 2), (4, 3)])
def test_as_many_kv_heads_as_query_heads_is_multi_head_attention(n_heads, d_head, causal):
    r = rng(1)
    X = r.normal(size=(7, 5))
    W = weights(r, 5, n_heads, n_heads, d_head)
    np.testing.assert_allclose(at.grouped_query_attention(X, *W, n_heads, n_heads, causal),
                               at.multi_head_attention(X, *W, n_heads, causal), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("causal", [True, False])
def test_one_kv_head_is_multi_query_attention_a_loop_over_heads_reading_the_same_k_and_v(causal):
    r = rng(2)
    n, d_model, n_heads, d_head = 6, 8, 4, 3
    X = r.normal(size=(n, d_model))
    Wq, Wk, Wv, Wo = weights(r, d_model, n_heads, 1, d_head)
    K, V = X @ Wk, X @ Wv  # (n, d_head): one key and one value per token, for every head
    heads = [one_head(X @ Wq[:, h * d_head:(h + 1) * d_head], K, V, causal) for h in range(n_heads)]
    expected = np.concatenate(heads, axis=1) @ Wo  # (n, d_model)
    np.testing.assert_allclose(at.grouped_query_attention(X, Wq, Wk, Wv, Wo, n_heads, 1, causal), expected,
                               rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("n_heads, n_kv_heads", [(4, 2), (6, 3), (6, 2), (8, 4)])
def test_a_loop_over_heads_where_head_h_reads_group_h_over_the_group_size(n_heads, n_kv_heads):
    r = rng(3)
    n, d_model, d_head = 5, 6, 2
    X = r.normal(size=(n, d_model))
    Wq, Wk, Wv, Wo = weights(r, d_model, n_heads, n_kv_heads, d_head)
    size = n_heads // n_kv_heads
    cols = lambda i: slice(i * d_head, (i + 1) * d_head)  # noqa: E731
    heads = [one_head(X @ Wq[:, cols(h)], X @ Wk[:, cols(h // size)], X @ Wv[:, cols(h // size)], True)
             for h in range(n_heads)]
    np.testing.assert_allclose(at.grouped_query_attention(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads),
                               np.concatenate(heads, axis=1) @ Wo, rtol=1e-12, atol=1e-12)


def test_each_query_head_reads_its_own_group_not_h_mod_n_kv_heads():
    # 4 query heads, 2 groups: heads 0 and 1 read group 0, heads 2 and 3 group 1. Group 0's values are all 0 and
    # group 1's all 1; with Wo = I each head's column shows which group it read (h % 2 would give 0, 1, 0, 1).
    r = rng(4)
    X = r.normal(size=(5, 3))
    Wq, Wk = r.normal(size=(3, 4)), r.normal(size=(3, 2))
    Wv = np.zeros((3, 2))
    Wv[0, 1] = 1.0
    X[:, 0] = 1.0  # so group 1's value is exactly 1 for every token
    O = at.grouped_query_attention(X, Wq, Wk, Wv, np.eye(4), n_heads=4, n_kv_heads=2)
    np.testing.assert_allclose(O, np.tile([0.0, 0.0, 1.0, 1.0], (5, 1)), atol=1e-15)


def test_rows_sum_future_and_inputs_are_untouched():
    r = rng(5)
    X = r.normal(size=(6, 4))
    W = weights(r, 4, 4, 2, 2)
    copies = [a.copy() for a in (X, *W)]
    O = at.grouped_query_attention(X, *W, 4, 2)
    X2 = X.copy()
    X2[4:] += 10.0  # a change at and after position 4 never moves the outputs before it
    np.testing.assert_array_equal(at.grouped_query_attention(X2, *W, 4, 2)[:4], O[:4])
    for a, b in zip((X, *W), copies):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("call, message", [
    (lambda: at.grouped_query_attention(np.ones((3, 4)), np.ones((4, 6)), np.ones((4, 4)), np.ones((4, 4)),
                                        np.ones((6, 4)), n_heads=3, n_kv_heads=2),
     r"n_heads=3 must be a multiple of n_kv_heads=2"),
    (lambda: at.grouped_query_attention(np.ones((3, 4)), np.ones((4, 8)), np.ones((4, 4)), np.ones((4, 4)),
                                        np.ones((8, 4)), n_heads=4, n_kv_heads=0), r"n_kv_heads must be >= 1"),
    (lambda: at.grouped_query_attention(np.ones((3, 4)), np.ones((4, 8)), np.ones((4, 3)), np.ones((4, 3)),
                                        np.ones((8, 4)), n_heads=4, n_kv_heads=2),
     r"n_kv_heads=2 does not divide the 3 columns of Wk \(4, 3\)"),
    (lambda: at.grouped_query_attention(np.ones((3, 4)), np.ones((4, 8)), np.ones((4, 6)), np.ones((4, 6)),
                                        np.ones((8, 4)), n_heads=4, n_kv_heads=2),
     r"same d_head: Wq \(4, 8\) gives 2 per head \(n_heads=4\), Wk \(4, 6\) gives 3 \(n_kv_heads=2\)"),
    (lambda: at.grouped_query_attention(np.ones((3, 4)), np.ones((4, 8)), np.ones((4, 4)), np.ones((4, 4)),
                                        np.ones((4, 4)), n_heads=4, n_kv_heads=2),
     r"Wo must have n_heads \* d_v = 4 \* 2 = 8 rows, .* got Wo \(4, 4\) \(Wv \(4, 4\), n_kv_heads=2\)"),
    (lambda: at.grouped_query_attention(np.ones((3, 5)), np.ones((4, 8)), np.ones((4, 4)), np.ones((4, 4)),
                                        np.ones((8, 4)), n_heads=4, n_kv_heads=2),
     r"Wq expects 4 input features, X rows have 5"),
    (lambda: at.grouped_query_attention(np.ones((3, 4)), np.ones((4, 8)), np.ones((4, 4)), np.ones((5, 4)),
                                        np.ones((8, 4)), n_heads=4, n_kv_heads=2), r"Wv .*\(5, 4\)"),
    (lambda: at.grouped_query_attention(np.ones((3, 4)), np.ones((4, 8)), np.ones((4, 4)), np.ones((4, 4)),
                                        np.ones((8, 4)), n_heads=4, n_kv_heads=2, causal="False"),
     r"causal must be True or False"),
    (lambda: at.kv_cache_bytes(32, 32, 128, 1024, n_kv_heads=5), r"n_heads=32 must be a multiple of n_kv_heads=5"),
    (lambda: at.kv_cache_bytes(32, 32, 128, 1024, n_kv_heads=0), r"n_kv_heads must be >= 1"),
])
def test_bad_input_names_the_arguments_and_shapes(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_kv_cache_bytes_counts_the_groups_once():
    # a 32-layer model with 32 heads of 128, a 32,768-token context in bf16 (2 bytes), batch 1:
    # 2 * 32 * 32 * 128 * 32768 * 2 = 17,179,869,184 bytes with a key and a value per head,
    # 2 * 32 * 8 * 128 * 32768 * 2 = 4,294,967,296 bytes with 8 K/V groups: 17.18 GB and 4.29 GB (10^9 bytes)
    mha = at.kv_cache_bytes(32, 32, 128, 32768)
    gqa = at.kv_cache_bytes(32, 32, 128, 32768, n_kv_heads=8)
    assert mha == 2 * 32 * 32 * 128 * 32768 * 2 == 17_179_869_184 and round(mha / 1e9, 2) == 17.18
    assert gqa == 2 * 32 * 8 * 128 * 32768 * 2 == 4_294_967_296 and round(gqa / 1e9, 2) == 4.29
    assert at.kv_cache_bytes(32, 32, 128, 32768, n_kv_heads=32) == mha  # as many groups as heads: no saving
    assert at.kv_cache_bytes(32, 32, 128, 32768, n_kv_heads=1) * 32 == mha  # MQA: one group, 32 times smaller
    assert isinstance(gqa, int)
