"""Bad input gets a ValueError that names the argument and the shapes."""
import numpy as np
import pytest

import attnlib as at
from helpers import rng

r = rng(0)
X5 = r.normal(size=(4, 5))
W6 = r.normal(size=(6, 3))


@pytest.mark.parametrize("call, message", [
    (lambda: at.project_rows(X5, W6), r"W expects 6 input features, X rows have 5"),
    (lambda: at.project(np.ones(5), W6), r"W expects 6 input features, x rows have 5"),
    (lambda: at.attention(np.ones((2, 4)), np.ones((2, 3)), np.ones((2, 3))), r"Q has d=4 but K has d=3"),
    (lambda: at.similarity(np.ones((2, 4)), np.ones((2, 3))), r"Q has d=4 but K has d=3"),
    (lambda: at.project_rows(np.ones(5), W6), r"X must be a 2-D array .* got shape \(5,\)"),
    (lambda: at.self_attention(np.ones((2, 3, 4)), W6, W6, W6), r"X must be a 2-D array .* got shape \(2, 3, 4\)"),
    (lambda: at.multi_head_attention(np.ones((3, 6)), *[np.ones((6, 6))] * 4, n_heads=4),
     r"n_heads=4 does not divide the 6 columns of Wq"),
    (lambda: at.multi_head_attention(np.ones((3, 6)), *[np.ones((6, 6))] * 4, n_heads=0), r"n_heads must be >= 1"),
    (lambda: at.attention(np.ones((0, 3)), np.ones((0, 3)), np.ones((0, 3))), r"Q is empty \(shape \(0, 3\)\)"),
    (lambda: at.causal_average(np.ones((0, 2))), r"V is empty"),
    (lambda: at.project_rows(np.ones((2, 6), dtype=int), W6), r"X must be a float array .* got dtype int64"),
    (lambda: at.attention(np.array([[1, 2]], dtype=object), np.ones((1, 2)), np.ones((1, 2))),
     r"Q must be a float array .* got dtype object"),
    (lambda: at.softmax(np.array([1, 2])), r"S must be a float array"),
    (lambda: at.softmax(np.array([[0.0, 1.0], [-np.inf, -np.inf]])), r"-inf everywhere .* index \(1, 0\)"),
    (lambda: at.softmax(np.array([0.0, np.nan])), r"S contains NaN"),
    (lambda: at.attention(np.full((1, 2), np.nan), np.ones((1, 2)), np.ones((1, 2))), r"Q contains NaN or inf"),
    (lambda: at.attention(np.ones((3, 2)), np.ones((2, 2)), np.ones((2, 2))), r"causal attention needs n_q <= n_k"),
    (lambda: at.uniform_causal_weights(0), r"n must be >= 1"),
    (lambda: at.causal_mask(2.5), r"n must be a positive integer"),
    (lambda: at.layer_norm(X5, np.ones(4), np.zeros(5)), r"g and b must have shape \(5,\)"),
    (lambda: at.transformer_block(X5, {"ln1_g": 1}, 1), r"p is missing keys"),
    (lambda: at.next_token_logits(X5, W6), r"W_vocab expects 6 input features, H rows have 5"),
    (lambda: at.softmax_backward(np.ones((2, 2)), np.ones((2, 3))), r"A \(2, 2\) and dA \(2, 3\)"),
    (lambda: at.attend_step(np.ones(3), np.ones((4, 2)), np.ones((4, 2))), r"q has d=3 but K_cache has d=2"),
    (lambda: at.attend_step(np.ones(2), np.ones((4, 2)), np.ones((3, 2))), r"K_cache has 4 rows but V_cache has 3"),
    (lambda: at.kv_cache_bytes(12, 12, 64, 0), r"seq_len must be >= 1"),
    (lambda: at.tiled_attention(X5, X5, X5, block=0), r"block must be >= 1"),
])
def test_bad_input_raises_named_value_error(call, message):
    with pytest.raises(ValueError, match=message):
        call()
