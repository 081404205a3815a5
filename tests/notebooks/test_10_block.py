"""Notebook 10 (the block): the claims its text makes.

The general claims and the answers hidden in the "Check your intuition" cells are recomputed here with
plain numpy (or PyTorch) rather than the notebook's own code, and on other random draws than the notebook's
where a claim is about random weights.
"""
import math

import numpy as np

import attnlib as at
from claims import plain_attention, plain_heads
from helpers import need


def plain_layer_norm(X, g, b, eps=1e-5):
    """Row by row, with the biased variance written out."""
    out = np.empty_like(X)
    for i, x in enumerate(X):
        mu = sum(x) / len(x)
        var = sum((v - mu) ** 2 for v in x) / len(x)
        out[i] = [(v - mu) / math.sqrt(var + eps) for v in x]
    return out * g + b


def plain_gelu(X):
    return 0.5 * X * (1 + np.tanh(math.sqrt(2 / math.pi) * (X + 0.044715 * X ** 3)))


def plain_block(X, p, n_heads, causal=True, norm=True):
    """The pre-LN block written out (norm=False: the residual-only variant of notebook 10's experiment)."""
    ln = plain_layer_norm if norm else (lambda Z, g, b: Z)
    Y = X + plain_heads(ln(X, p["ln1_g"], p["ln1_b"]), p["Wq"], p["Wk"], p["Wv"], p["Wo"], n_heads, causal)
    return Y + plain_gelu(ln(Y, p["ln2_g"], p["ln2_b"]) @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"]


def spread(Z):
    """How far the rows of Z sit from their mean, relative to their size: 0 when every token carries the same vector."""
    return np.linalg.norm(Z - Z.mean(axis=0), axis=1).mean() / np.linalg.norm(Z, axis=1).mean()


def random_block(d_model, rng):
    W = lambda d_in, d_out: rng.normal(0.0, 1.0 / math.sqrt(d_in), (d_in, d_out))
    return dict(ln1_g=np.ones(d_model), ln1_b=np.zeros(d_model), ln2_g=np.ones(d_model), ln2_b=np.zeros(d_model),
                Wq=W(d_model, d_model), Wk=W(d_model, d_model), Wv=W(d_model, d_model), Wo=W(d_model, d_model),
                W1=W(d_model, 4 * d_model), b1=np.zeros(4 * d_model), W2=W(4 * d_model, d_model),
                b2=np.zeros(d_model))


def test_10_layer_norm_by_hand_and_torch():
    torch = need("torch", "PyTorch's layer_norm is an independent reference")
    rng = np.random.default_rng(20)
    X, g, b = rng.standard_normal((5, 7)) * 3 + 1, rng.standard_normal(7), rng.standard_normal(7)
    ours = at.layer_norm(X, g, b)
    assert np.allclose(ours, plain_layer_norm(X, g, b))
    ref = torch.nn.functional.layer_norm(torch.tensor(X), (7,), torch.tensor(g), torch.tensor(b), eps=1e-5)
    assert np.allclose(ours, ref.numpy(), atol=1e-12)  # torch also uses the biased variance


def test_10_layer_norm_gives_mean_0_and_variance_just_under_1():
    x = np.array([0.2, 0.5, 0.1, 0.7, 0.6, 0.7])  # the row of "cat" in the running example
    y = at.layer_norm(x[None], np.ones(6), np.zeros(6))[0]
    var = np.mean((x - x.mean()) ** 2)
    assert abs(y.mean()) < 1e-12
    assert math.isclose(np.mean(y ** 2), var / (var + 1e-5), rel_tol=1e-12)  # eps shows: 0.9998, not 1
    assert round(float(np.mean(y ** 2)), 4) == 0.9998


def test_10_layer_norm_forgets_shift_and_scale_and_keeps_constant_rows_finite():
    row = np.array([[1.0, 2.0, 3.0, 4.0]])  # question 1: mean 2.5, biased variance 1.25
    expected = np.array([-1.5, -0.5, 0.5, 1.5]) / math.sqrt(1.25)
    for scaled in (row, 10 * row, row + 3):
        assert np.allclose(at.layer_norm(scaled, np.ones(4), np.zeros(4))[0], expected, atol=1e-4)
    assert np.round(expected, 2).tolist() == [-1.34, -0.45, 0.45, 1.34]
    g, b = np.full(4, 2.0), np.full(4, 1.0)
    Y = at.layer_norm(np.random.default_rng(21).standard_normal((3, 4)), g, b)
    assert np.allclose(Y.mean(axis=1), 1) and np.allclose(Y.std(axis=1), 2, atol=1e-3)
    assert np.allclose(at.layer_norm(np.full((1, 4), 0.7), g, b), b)  # variance 0: b, not a division by zero


def test_10_gelu_is_gpt2s_tanh_formula_close_to_x_phi_x():
    torch = need("torch", "PyTorch's gelu(approximate='tanh') is an independent reference")
    xs = np.linspace(-8, 8, 3201)
    ours = at.gelu(xs)
    assert np.allclose(ours, torch.nn.functional.gelu(torch.tensor(xs), approximate="tanh").numpy(), atol=1e-12)
    exact = np.array([x * (1 + math.erf(x / math.sqrt(2))) / 2 for x in xs])
    assert np.abs(ours - exact).max() < 5e-4
    assert at.gelu(np.zeros(3)).tolist() == [0.0, 0.0, 0.0]


def test_10_gelu_meets_relu_far_from_zero_and_bends_smoothly_near_it():
    far = np.array([5.0, 7.5, 10.0, 50.0])
    assert np.all(np.abs(at.gelu(far) - far) < 1e-6) and np.all(np.abs(at.gelu(-far)) < 1e-6)
    h = 1e-5  # d/dx of 0.5 x (1 + tanh(...)) at 0 is 0.5 (1 + tanh(0)) = 0.5
    assert math.isclose((at.gelu(np.array([h]))[0] - at.gelu(np.array([-h]))[0]) / (2 * h), 0.5, rel_tol=1e-6)
    xs = np.linspace(-2, 0, 20001)
    exact = np.array([x * (1 + math.erf(x / math.sqrt(2))) / 2 for x in xs])  # the minimum of x Phi(x)
    ours = at.gelu(xs)
    assert abs(xs[ours.argmin()] - xs[exact.argmin()]) < 0.01 and abs(ours.min() - exact.min()) < 1e-3
    assert round(float(exact.min()), 2) == -0.17 and round(float(xs[exact.argmin()]), 2) == -0.75


def test_10_mlp_works_row_by_row_and_collapses_to_one_matrix_without_gelu():
    from attnlib.layers import mlp
    rng = np.random.default_rng(22)
    H = rng.standard_normal((6, 8))
    W1, W2 = rng.standard_normal((8, 32)), rng.standard_normal((32, 8))
    b1, b2 = rng.standard_normal(32), rng.standard_normal(8)
    out = mlp(H, W1, b1, W2, b2)
    for i in range(6):  # each row alone, through the formula
        assert np.allclose(out[i], plain_gelu(H[i] @ W1 + b1) @ W2 + b2)
    no_gelu = (H @ W1 + b1) @ W2 + b2  # question 2: one 8 x 8 matrix and one bias
    assert np.allclose(no_gelu, H @ (W1 @ W2) + (b1 @ W2 + b2))
    assert not np.allclose(mlp(2 * H, W1, np.zeros(32), W2, np.zeros(8)), 2 * mlp(H, W1, np.zeros(32), W2, np.zeros(8)))
    assert W1.size + W2.size == 2 * 4 * 8 * 8  # twice the attention weights Wq, Wk, Wv, Wo


def test_10_the_block_is_the_equation_and_the_identity_when_its_parts_are_silent():
    rng = np.random.default_rng(23)
    X, p = rng.standard_normal((6, 16)), random_block(16, rng)
    for causal in (True, False):
        assert np.allclose(at.transformer_block(X, p, 4, causal), plain_block(X, p, 4, causal))
    silent = dict(p, Wo=np.zeros((16, 16)), W2=np.zeros((64, 16)))
    assert np.array_equal(at.transformer_block(X, silent, 4), X)


def test_10_repeated_averaging_without_a_shortcut_collapses_the_rows():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((6, 16))
    spread0 = np.linalg.norm(X - X.mean(axis=0))
    Y = X.copy()
    for _ in range(30):  # question 3: plain attention averages rows again and again
        Wq, Wk = rng.standard_normal((2, 16, 16)) / 4
        Y = plain_attention(Y, Wq, Wk, np.eye(16), causal=False)
    assert np.linalg.norm(Y - Y.mean(axis=0)) < 1e-6 * spread0
    assert np.allclose(Y.mean(axis=0), Y[0])  # every token now carries the same vector


def test_10_deep_stacks_fade_explode_or_stay_in_range():
    """The 48-layer experiment again, in plain numpy, on other random weights and another input."""
    rng = np.random.default_rng(24)
    blocks = [random_block(32, rng) for _ in range(48)]
    X = rng.uniform(-0.5, 0.5, (6, 32))

    plain, resid, preln = X, X, X
    signals = {"resid": [], "preln": []}
    for p in blocks:
        plain = plain_gelu(plain_heads(plain, p["Wq"], p["Wk"], p["Wv"], p["Wo"], 4) @ p["W1"]) @ p["W2"]
        resid, preln = plain_block(resid, p, 4, norm=False), plain_block(preln, p, 4)
        signals["resid"].append(np.linalg.norm(resid, axis=1).mean())
        signals["preln"].append(np.linalg.norm(preln, axis=1).mean())
    assert spread(plain) < 1e-6 and np.linalg.norm(plain, axis=1).mean() < 1e-6
    assert signals["resid"][-1] > 1e8 * signals["resid"][0]
    assert signals["preln"][-1] < 20 * signals["preln"][0] and spread(preln) > 0.1


def test_10_pre_ln_adds_a_change_of_the_same_size_however_large_the_input():
    rng = np.random.default_rng(25)
    X, p = rng.uniform(-0.5, 0.5, (6, 32)), random_block(32, rng)
    for norm in (False, True):
        small, large = (np.linalg.norm(plain_block(s * X, p, 4, norm=norm) - s * X) for s in (1, 100))
        assert (large < 2 * small) if norm else (large > 50 * small)


def test_10_causality_survives_any_depth():
    rng = np.random.default_rng(2)
    X = rng.standard_normal((7, 8))
    X2 = X.copy()
    X2[5] = rng.standard_normal(8)  # question 4: change position 5
    Ws = rng.standard_normal((40, 3, 8, 8)) / 3
    for Wq, Wk, Wv in Ws:  # 40 causal layers with residuals
        X = X + plain_attention(X, Wq, Wk, Wv, causal=True)
        X2 = X2 + plain_attention(X2, Wq, Wk, Wv, causal=True)
    assert np.array_equal(X[:5], X2[:5]) and not np.allclose(X[5:], X2[5:])


def test_10_post_ln_pins_the_signal_but_shrinks_the_shortcut_and_blurs_the_tokens():
    """The post-LN stack of the 48-layer experiment, in plain numpy, on other random weights and another input."""
    rng = np.random.default_rng(26)
    blocks = [random_block(32, rng) for _ in range(48)]
    X = rng.uniform(-0.5, 0.5, (6, 32))

    Z, carried, pre = X, np.ones(6), X
    for p in blocks:
        R = Z + plain_heads(Z, p["Wq"], p["Wk"], p["Wv"], p["Wo"], 4)  # the norm after each residual add
        carried /= np.sqrt(R.var(axis=1) + 1e-5)  # the factor the norm puts on the carried-over rows
        Z = plain_layer_norm(R, p["ln1_g"], p["ln1_b"])
        R = Z + plain_gelu(Z @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"]
        carried /= np.sqrt(R.var(axis=1) + 1e-5)
        Z = plain_layer_norm(R, p["ln2_g"], p["ln2_b"])
        assert np.allclose(np.linalg.norm(Z, axis=1), math.sqrt(32), rtol=1e-3)  # the signal is pinned
        pre = plain_block(pre, p, 4)
    assert carried.max() < 1e-7 and spread(Z) < 1e-3  # the input fades from the shortcut; the rows blur together
    assert spread(pre) > 0.1  # the pre-LN stack keeps them apart
