"""Every backward pass against central finite differences, in float64.

For a layer y = f(x, params) we pick a random R and differentiate the scalar
L = sum(f(...) * R): its gradient with respect to every input is what the layer's
backward returns when fed dY = R. The numerical gradient perturbs each entry by
+-eps and never looks at the backward code.
"""
import numpy as np
import pytest

from attnlib.attention import attention_forward, attention_grads, mha_forward, mha_grads
from attnlib.block import BLOCK_KEYS, block_forward, block_grads
from attnlib.layers import (embed_forward, embed_grads, gelu_forward, gelu_grads, layer_norm_forward, layer_norm_grads,
                            mlp_forward, mlp_grads)
from attnlib.loss import cross_entropy_forward, cross_entropy_grads, logits_forward, logits_grads
from attnlib.model import TinyLM
from helpers import numeric_grad, rel_error, rng

TOL = 1e-6


def check_layer(forward, backward, inputs, names, seed=0):
    """forward(*inputs) -> (Y, cache); backward(R, cache) -> gradients for `names` (in that order)."""
    Y, cache = forward(*inputs)
    R = rng(seed + 100).normal(size=Y.shape)
    grads = backward(R, cache)
    grads = grads if isinstance(grads, tuple) else (grads,)
    assert len(grads) == len(names)

    def loss():
        return float(np.sum(forward(*inputs)[0] * R))

    for name, x, g in zip(names, inputs, grads):
        assert g.shape == x.shape, name
        err = rel_error(numeric_grad(loss, x), g)
        assert err <= TOL, f"{name}: relative error {err:.2e}"


def test_layer_norm_backward():
    r = rng(1)
    X, g, b = r.normal(size=(2, 3, 5)) * 3 + 1, r.normal(size=5), r.normal(size=5)
    check_layer(layer_norm_forward, layer_norm_grads, [X, g, b], ["X", "g", "b"])


def test_gelu_backward():
    X = rng(2).normal(size=(4, 6)) * 2
    check_layer(gelu_forward, gelu_grads, [X], ["X"])


def test_mlp_backward():
    r = rng(3)
    X = r.normal(size=(2, 3, 4))
    W1, b1, W2, b2 = r.normal(size=(4, 8)), r.normal(size=8), r.normal(size=(8, 4)), r.normal(size=4)
    check_layer(mlp_forward, mlp_grads, [X, W1, b1, W2, b2], ["X", "W1", "b1", "W2", "b2"])


@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("scale", [True, False])
def test_attention_backward(causal, scale):
    r = rng(4)
    Q, K, V = r.normal(size=(2, 5, 3)), r.normal(size=(2, 5, 3)), r.normal(size=(2, 5, 4))

    def forward(Q, K, V):
        return attention_forward(Q, K, V, causal, scale)

    check_layer(forward, attention_grads, [Q, K, V], ["Q", "K", "V"])


def test_attention_backward_queries_are_the_last_positions():
    r = rng(5)
    Q, K, V = r.normal(size=(2, 3)), r.normal(size=(5, 3)), r.normal(size=(5, 2))
    check_layer(attention_forward, attention_grads, [Q, K, V], ["Q", "K", "V"])


def test_softmax_backward_matches_finite_differences():
    from attnlib import softmax, softmax_backward
    S = rng(6).normal(size=(3, 4))
    R = rng(7).normal(size=(3, 4))
    num = numeric_grad(lambda: float(np.sum(softmax(S) * R)), S)
    assert rel_error(num, softmax_backward(softmax(S), R)) <= TOL


def test_multi_head_attention_backward():
    r = rng(8)
    X = r.normal(size=(2, 4, 6))
    Ws = [r.normal(size=(6, 6)) * 0.5 for _ in range(4)]

    def forward(X, Wq, Wk, Wv, Wo):
        return mha_forward(X, Wq, Wk, Wv, Wo, n_heads=3)

    check_layer(forward, mha_grads, [X, *Ws], ["X", "Wq", "Wk", "Wv", "Wo"])


def test_multi_head_attention_backward_with_rotated_queries_and_keys():
    from attnlib.positions import rotation, rotation_tables
    r = rng(18)
    X = r.normal(size=(2, 5, 8))
    Ws = [r.normal(size=(8, 8)) * 0.5 for _ in range(4)]
    cos, sin = rotation_tables(5, 4, theta=3.0)  # 2 heads of d_head 4; a small theta so every pair turns visibly
    rotary = rotation(cos, sin)

    def forward(X, Wq, Wk, Wv, Wo):
        return mha_forward(X, Wq, Wk, Wv, Wo, n_heads=2, rotary=rotary)

    check_layer(forward, mha_grads, [X, *Ws], ["X", "Wq", "Wk", "Wv", "Wo"])


@pytest.mark.parametrize("n_kv_heads", [2, 1])
def test_grouped_query_attention_backward(n_kv_heads):
    # 4 query heads of d_head 2 share n_kv_heads groups: each group's gradient sums over the heads that read it
    r = rng(19)
    X = r.normal(size=(2, 5, 6))
    Wq, Wo = r.normal(size=(6, 8)) * 0.5, r.normal(size=(8, 6)) * 0.5
    Wk, Wv = (r.normal(size=(6, 2 * n_kv_heads)) * 0.5 for _ in range(2))

    def forward(X, Wq, Wk, Wv, Wo):
        return mha_forward(X, Wq, Wk, Wv, Wo, n_heads=4, n_kv_heads=n_kv_heads)

    check_layer(forward, mha_grads, [X, Wq, Wk, Wv, Wo], ["X", "Wq", "Wk", "Wv", "Wo"])


def test_block_backward():
    model = TinyLM(5, 4, 2, 1, 6, seed=1, init_std=0.5)
    p = {k: v + 0.1 * rng(9).normal(size=v.shape) for k, v in model.block_params(0).items()}
    X = rng(10).normal(size=(2, 5, 4))
    names = ["X", *BLOCK_KEYS]

    def forward(X, *values):
        return block_forward(X, dict(zip(BLOCK_KEYS, values)), 2)

    def backward(R, cache):
        dX, g = block_grads(R, cache)
        return (dX, *[g[k] for k in BLOCK_KEYS])

    check_layer(forward, backward, [X, *[p[k] for k in BLOCK_KEYS]], names)


def test_head_backward():
    r = rng(11)
    H, g, b, W = r.normal(size=(2, 3, 4)), r.normal(size=4), r.normal(size=4), r.normal(size=(4, 7))

    def head_forward(H, g, b, W_out):  # the final norm, then the output projection, as TinyLM composes them
        N, ln = layer_norm_forward(H, g, b)
        logits, out = logits_forward(N, W_out)
        return logits, (ln, out)

    def head_backward(dlogits, cache):
        ln, out = cache
        dN, dW_out = logits_grads(dlogits, out)
        return (*layer_norm_grads(dN, ln), dW_out)

    check_layer(head_forward, head_backward, [H, g, b, W], ["H", "g", "b", "W_out"])


def test_embedding_backward_adds_repeated_tokens():
    r = rng(12)
    tokens = np.array([[0, 2, 2, 1], [2, 0, 3, 3]])
    tok_emb, pos_emb = r.normal(size=(4, 3)), r.normal(size=(6, 3))

    def forward(tok_emb, pos_emb):
        return embed_forward(tokens, tok_emb, pos_emb)

    check_layer(forward, embed_grads, [tok_emb, pos_emb], ["tok_emb", "pos_emb"])


def test_cross_entropy_backward_with_ignored_positions():
    r = rng(13)
    logits = r.normal(size=(2, 3, 5)) * 2
    targets = np.array([[1, -1, 4], [0, 2, -1]])
    scored = targets != -1  # TinyLM passes only the scored rows to the loss, and gives the others no gradient

    def loss():
        return cross_entropy_forward(logits[scored], targets[scored])

    dlogits = np.zeros_like(logits)
    dlogits[scored] = cross_entropy_grads(1.0, loss()[1])
    num = numeric_grad(lambda: loss()[0], logits)
    assert rel_error(num, dlogits) <= TOL
    # and the value itself, by hand: mean over the 4 scored positions of -log p(target)
    logp = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    expected = -(logp[0, 0, 1] + logp[0, 2, 4] + logp[1, 0, 0] + logp[1, 1, 2]) / 4
    assert loss()[0] == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("causal, norm, mlp, positions", [
    (True, "pre", True, "learned"), (False, "pre", True, "learned"), (True, "post", True, "learned"),
    (True, "pre", False, "learned"), (True, "post", False, "learned"), (True, "pre", True, "sinusoid"),
    (True, "pre", True, "rope"), (False, "post", False, "rope")])
def test_whole_tinylm_gradients(causal, norm, mlp, positions):
    model = TinyLM(6, 8, 2, 2, 6, seed=3, init_std=0.4, causal=causal, d_ff=8, norm=norm, mlp=mlp,
                   positions=positions)
    r = rng(14)
    for k in model.params:  # move gains and biases off 1 and 0 so every path matters
        model.params[k] += 0.1 * r.normal(size=model.params[k].shape)
    tokens = r.integers(0, 6, (2, 5))
    targets = r.integers(0, 6, (2, 5))
    targets[1, 2] = -1
    _, grads = model.loss_and_grads(tokens, targets)
    assert set(grads) == set(model.params)

    def loss():  # forward only: the numerical side never runs a backward pass
        scored = targets != -1
        return cross_entropy_forward(model.forward(tokens)[scored], targets[scored])[0]

    for name, p in model.params.items():
        num = numeric_grad(loss, p)
        err = rel_error(num, grads[name])
        assert err <= TOL, f"{name}: relative error {err:.2e}"


@pytest.mark.parametrize("n_kv_heads, positions", [(2, "learned"), (1, "learned"), (2, "rope")])
def test_whole_tinylm_gradients_with_shared_keys_and_values(n_kv_heads, positions):
    model = TinyLM(6, 8, 4, 2, 6, seed=4, init_std=0.4, d_ff=8, positions=positions, n_kv_heads=n_kv_heads)
    r = rng(15)
    for k in model.params:
        model.params[k] += 0.1 * r.normal(size=model.params[k].shape)
    tokens, targets = r.integers(0, 6, (2, 5)), r.integers(0, 6, (2, 5))
    _, grads = model.loss_and_grads(tokens, targets)
    assert grads["blocks.0.Wk"].shape == (8, 2 * n_kv_heads)  # d_head 2, one block of columns per group

    def loss():
        return cross_entropy_forward(model.forward(tokens).reshape(-1, 6), targets.ravel())[0]

    for name, p in model.params.items():
        err = rel_error(numeric_grad(loss, p), grads[name])
        assert err <= TOL, f"{name}: relative error {err:.2e}"
