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
    (lambda: at.rope(X5, np.arange(4)), r"X must have an even number of features .* d=5 \(X \(4, 5\)\)"),
    (lambda: at.rope(np.ones((4, 6)), np.arange(3)), r"positions must have one entry per row of X, shape \(4,\), "
                                                      r"got positions \(3,\) \(X \(4, 6\)\)"),
    (lambda: at.rope(np.ones((2, 6)), np.array([0.0, 1.0])), r"positions must be an integer array"),
    (lambda: at.rope(np.ones((2, 6)), np.array([-1, 0])), r"positions are counted from 0 .* got -1"),
    (lambda: at.rope(np.ones((2, 6)), np.arange(2), theta=0.0), r"theta must be > 0"),
    (lambda: at.TinyLM(5, 6, 2, 1, 4, positions="rope"), r"d_head = d_model / n_heads must be even"),
    (lambda: at.TinyLM(5, 4, 2, 1, 4, positions="absolute"), r"positions must be one of"),
])
def test_bad_input_raises_named_value_error(call, message):
    with pytest.raises(ValueError, match=message):
        call()


@pytest.mark.parametrize("call, message", [
    (lambda: at.similarity(np.full((2, 3), 1e200), np.full((2, 3), 1e200)), r"Q @ K.T overflows .* scale Q and K"),
    (lambda: at.attention(*[np.full((2, 3), 1e20, dtype=np.float32)] * 3), r"Q @ K.T overflows float32"),
    (lambda: at.attend_step(np.full(3, 1e200), np.full((2, 3), 1e200), np.ones((2, 3))),
     r"K_cache @ q overflows .* scale q and K_cache"),
    (lambda: at.layer_norm(np.full((1, 3), 1e200) * [1, 2, 3], np.ones(3), np.zeros(3)), r"variance of X's rows"),
    (lambda: at.layer_norm(X5, np.ones(5), np.zeros(5), eps=0.0), r"eps must be > 0"),
    (lambda: at.layer_norm(X5, np.ones(5), np.zeros(5), eps="1e-5"), r"eps must be a finite real number"),
    (lambda: at.softmax_backward(np.ones(3) / 3, np.array([1.0, np.nan, 0.0])), r"dA contains NaN"),
    (lambda: at.softmax(X5, axis=True), r"axis must be an integer axis"),
    (lambda: at.softmax(X5, axis=2), r"axis=2 is out of range"),
    (lambda: at.softmax(np.full((1, 2), -np.inf)), r"S is -inf everywhere"),
    (lambda: at.attention(X5, X5, X5, causal="False"), r"causal must be True or False"),
    (lambda: at.attention(np.ma.array(X5), X5, X5), r"Q is a numpy masked array"),
    (lambda: at.uniform_causal_weights(10**6), r"n is too large"),
    (lambda: at.causal_mask(10**6), r"n is too large"),
    (lambda: at.Tokenizer("abc"), r"pass a list of words"),
    (lambda: at.Tokenizer([1, 2]), r"words must all be strings"),
    (lambda: at.Tokenizer(["the", "cat sat"]), r"words\[1\] is 'cat sat', which contains a space.*\['cat', 'sat'\]"),
    (lambda: at.Tokenizer(["the", ""]), r"words\[1\] is '': every word needs at least one character"),
    (lambda: at.Tokenizer([" "]), r"words\[0\] is ' ': every word needs at least one character that is not a space"),
    (lambda: at.TinyLM(5, 4, 2, 1, 4, init_std=1e200), r"init_std must be <= 1000, got 1e\+200"),
    (lambda: at.TinyLM(5, 4, 2, 1, 4, init_std=1e200, dtype=np.float32), r"init_std must be <= 1000"),
    (lambda: at.KVCache(1, 1, 2, 4, dtype=int), r"dtype must be np.float32 or np.float64"),
])
def test_extreme_and_odd_input_is_named(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_the_maths_answers_where_it_has_an_answer():
    assert at.gelu(np.array([-np.inf, np.inf])).tolist() == [0.0, np.inf]
    A = at.softmax(np.array([[0.0, -np.inf]]))  # -inf is the mask
    assert A.tolist() == [[1.0, 0.0]]
    assert at.TinyLM(5, 4, 2, 1, 4, init_std=np.float32(0.02)).init_std == pytest.approx(0.02)
