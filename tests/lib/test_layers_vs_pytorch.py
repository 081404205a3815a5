"""Parity with PyTorch CPU, an independent implementation (extra "parity").

Skips with a reason where torch is not installed; CI installs it, so these run there.
"""
import numpy as np
import pytest

import attnlib as at
from helpers import need, rng


@pytest.fixture(scope="module")
def torch():
    torch = need("torch", "install the parity extra: pip install -r requirements-parity.txt")
    torch.manual_seed(0)
    return torch


def t64(torch, a):
    return torch.tensor(a, dtype=torch.float64)


@pytest.mark.parametrize("causal", [True, False])
def test_scaled_dot_product_attention(torch, causal):
    r = rng(1)
    Q, K, V = r.normal(size=(7, 5)), r.normal(size=(7, 5)), r.normal(size=(7, 3))
    expected = torch.nn.functional.scaled_dot_product_attention(t64(torch, Q), t64(torch, K), t64(torch, V),
                                                                is_causal=causal).numpy()
    np.testing.assert_allclose(at.attention(Q, K, V, causal=causal), expected, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(at.tiled_attention(Q, K, V, causal=causal, block=3), expected, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("causal", [True, False])
def test_multi_head_attention_matches_nn_multiheadattention(torch, causal):
    r = rng(2)
    n, d_model, n_heads = 6, 8, 2
    X = r.normal(size=(n, d_model))
    Wq, Wk, Wv, Wo = (r.normal(size=(d_model, d_model)) / 3 for _ in range(4))
    mha = torch.nn.MultiheadAttention(d_model, n_heads, bias=False, batch_first=True, dtype=torch.float64)
    with torch.no_grad():  # torch stores weights as (out, in): ours transposed
        mha.in_proj_weight.copy_(t64(torch, np.concatenate([Wq.T, Wk.T, Wv.T], axis=0)))
        mha.out_proj.weight.copy_(t64(torch, Wo.T))
    mask = torch.triu(torch.ones(n, n, dtype=torch.bool), diagonal=1) if causal else None
    x = t64(torch, X)[None]
    expected, _ = mha(x, x, x, attn_mask=mask, need_weights=False)
    np.testing.assert_allclose(at.multi_head_attention(X, Wq, Wk, Wv, Wo, n_heads, causal=causal),
                               expected[0].detach().numpy(), rtol=1e-11, atol=1e-13)


@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("n_heads, n_kv_heads", [(4, 4), (4, 2), (6, 3), (4, 1)])
def test_grouped_query_attention_matches_sdpa_with_repeated_keys_and_values(torch, n_heads, n_kv_heads, causal):
    r = rng(21)
    n, d_model, d_head = 7, 6, 3
    X = r.normal(size=(n, d_model))
    Wq, Wo = r.normal(size=(d_model, n_heads * d_head)), r.normal(size=(n_heads * d_head, d_model))
    Wk, Wv = r.normal(size=(d_model, n_kv_heads * d_head)), r.normal(size=(d_model, n_kv_heads * d_head))
    x = t64(torch, X)
    q = (x @ t64(torch, Wq)).reshape(n, n_heads, d_head).transpose(0, 1)  # (n_heads, n, d_head)
    k = (x @ t64(torch, Wk)).reshape(n, n_kv_heads, d_head).transpose(0, 1)  # (n_kv_heads, n, d_head)
    v = (x @ t64(torch, Wv)).reshape(n, n_kv_heads, d_head).transpose(0, 1)
    size = n_heads // n_kv_heads  # torch's repeat_interleave: group g serves heads g*size .. (g+1)*size - 1
    o = torch.nn.functional.scaled_dot_product_attention(q, k.repeat_interleave(size, dim=0),
                                                         v.repeat_interleave(size, dim=0), is_causal=causal)
    expected = (o.transpose(0, 1).reshape(n, n_heads * d_head) @ t64(torch, Wo)).numpy()
    got = at.grouped_query_attention(X, Wq, Wk, Wv, Wo, n_heads, n_kv_heads, causal=causal)
    np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12)
    try:  # torch 2.5 and later take the groups as they are
        o = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=True)
    except TypeError:
        return
    np.testing.assert_allclose(got, (o.transpose(0, 1).reshape(n, n_heads * d_head) @ t64(torch, Wo)).numpy(),
                               rtol=1e-10, atol=1e-12)


def test_layer_norm(torch):
    r = rng(3)
    X, g, b = r.normal(size=(4, 6)) * 3 + 1, r.normal(size=6), r.normal(size=6)
    expected = torch.nn.functional.layer_norm(t64(torch, X), (6,), t64(torch, g), t64(torch, b), eps=1e-5)
    np.testing.assert_allclose(at.layer_norm(X, g, b), expected.numpy(), rtol=1e-12, atol=1e-13)


def test_tanh_gelu(torch):
    X = np.linspace(-8, 8, 101)
    expected = torch.nn.functional.gelu(t64(torch, X), approximate="tanh").numpy()
    np.testing.assert_allclose(at.gelu(X), expected, rtol=1e-12, atol=1e-15)


class TorchBlock:
    """A pre-LN block built from torch modules, loaded from the same parameters."""

    def __init__(self, torch, p, n_heads):
        nn, d = torch.nn, p["Wq"].shape[0]
        kw = dict(dtype=torch.float64)
        self.ln1, self.ln2 = nn.LayerNorm(d, **kw), nn.LayerNorm(d, **kw)
        self.attn = nn.MultiheadAttention(d, n_heads, bias=False, batch_first=True, **kw)
        self.fc1, self.fc2 = nn.Linear(d, 4 * d, **kw), nn.Linear(4 * d, d, **kw)
        self.gelu = nn.GELU(approximate="tanh")
        T = lambda a: torch.tensor(a, dtype=torch.float64)  # noqa: E731
        with torch.no_grad():
            self.ln1.weight.copy_(T(p["ln1_g"])); self.ln1.bias.copy_(T(p["ln1_b"]))  # noqa: E702
            self.ln2.weight.copy_(T(p["ln2_g"])); self.ln2.bias.copy_(T(p["ln2_b"]))  # noqa: E702
            self.attn.in_proj_weight.copy_(T(np.concatenate([p["Wq"].T, p["Wk"].T, p["Wv"].T])))
            self.attn.out_proj.weight.copy_(T(p["Wo"].T))
            self.fc1.weight.copy_(T(p["W1"].T)); self.fc1.bias.copy_(T(p["b1"]))  # noqa: E702
            self.fc2.weight.copy_(T(p["W2"].T)); self.fc2.bias.copy_(T(p["b2"]))  # noqa: E702
        self.torch = torch

    def __call__(self, x, causal):
        n = x.shape[1]
        mask = self.torch.triu(self.torch.ones(n, n, dtype=self.torch.bool), diagonal=1) if causal else None
        h = self.ln1(x)
        y = x + self.attn(h, h, h, attn_mask=mask, need_weights=False)[0]
        return y + self.fc2(self.gelu(self.fc1(self.ln2(y))))


@pytest.mark.parametrize("causal", [True, False])
def test_pre_ln_block(torch, causal):
    r = rng(4)
    d, n_heads, n = 8, 2, 5
    p = {k: r.normal(size=d) * 0.2 + (1.0 if k.endswith("_g") else 0.0)
         for k in ("ln1_g", "ln1_b", "ln2_g", "ln2_b", "b2")}
    p.update({k: r.normal(size=(d, d)) / 3 for k in ("Wq", "Wk", "Wv", "Wo")})
    p.update(W1=r.normal(size=(d, 4 * d)) / 3, b1=r.normal(size=4 * d) * 0.2, W2=r.normal(size=(4 * d, d)) / 6)
    X = r.normal(size=(n, d))
    expected = TorchBlock(torch, p, n_heads)(t64(torch, X)[None], causal)[0].detach().numpy()
    np.testing.assert_allclose(at.transformer_block(X, p, n_heads, causal=causal), expected, rtol=1e-11, atol=1e-12)


def torch_rope(torch, X, positions, theta=10000.0):
    """RoPE as complex multiplication (the form LLaMA's reference code uses): adjacent features (2i, 2i+1) are the
    real and imaginary parts of one complex number, multiplied by e^(i * position * theta^(-2i/d))."""
    d = X.shape[-1]
    freqs = 1.0 / theta ** (torch.arange(0, d, 2, dtype=torch.float64) / d)  # (d/2,)
    turn = torch.polar(torch.ones(len(positions), d // 2, dtype=torch.float64),
                       torch.outer(positions.to(torch.float64), freqs))  # (n, d/2): e^(i angle)
    z = torch.view_as_complex(X.reshape(*X.shape[:-1], d // 2, 2).contiguous())
    return torch.view_as_real(z * turn).reshape(X.shape)


@pytest.mark.parametrize("theta", [10000.0, 100.0])
def test_rope_matches_complex_multiplication_in_torch(torch, theta):
    r = rng(5)
    X, positions = r.normal(size=(9, 8)), r.integers(0, 500, 9)
    expected = torch_rope(torch, t64(torch, X), torch.tensor(positions), theta).numpy()
    np.testing.assert_allclose(at.rope(X, positions, theta), expected, rtol=1e-12, atol=1e-12)


def test_attention_on_rope_rotated_q_and_k_and_its_gradients_match_torch(torch):
    """TinyLM's attention path with RoPE (attnlib.attention.mha_forward with a rotation, and its backward) against
    torch: rope by complex multiplication, scaled_dot_product_attention, autograd."""
    from attnlib.attention import mha_forward, mha_grads
    from attnlib.positions import rotation, rotation_tables
    r = rng(6)
    B, T, d_model, n_heads = 2, 7, 8, 2
    X, dY = r.normal(size=(B, T, d_model)), r.normal(size=(B, T, d_model))
    Ws = [r.normal(size=(d_model, d_model)) / 2 for _ in range(4)]
    Y, cache = mha_forward(X, *Ws, n_heads, rotary=rotation(*rotation_tables(T, d_model // n_heads)))
    dX, *dW = mha_grads(dY, cache)

    x, (wq, wk, wv, wo) = t64(torch, X).requires_grad_(), [t64(torch, W).requires_grad_() for W in Ws]
    pos = torch.arange(T)

    def heads(M):  # (B, T, d_model) -> (B, n_heads, T, d_head)
        return M.view(B, T, n_heads, d_model // n_heads).transpose(1, 2)
    q, k, v = torch_rope(torch, heads(x @ wq), pos), torch_rope(torch, heads(x @ wk), pos), heads(x @ wv)
    O = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
    y = O.transpose(1, 2).reshape(B, T, d_model) @ wo
    (y * t64(torch, dY)).sum().backward()
    np.testing.assert_allclose(Y, y.detach().numpy(), rtol=1e-11, atol=1e-12)
    for ours, theirs, name in zip([dX, *dW], [x, wq, wk, wv, wo], ["X", "Wq", "Wk", "Wv", "Wo"]):
        np.testing.assert_allclose(ours, theirs.grad.numpy(), rtol=1e-10, atol=1e-11, err_msg=name)


@pytest.mark.parametrize("window, n_sinks", [(1, 0), (3, 0), (4, 2), (9, 0)])
def test_windowed_attention_and_its_gradients_match_sdpa_with_a_band_mask_built_in_torch(torch, window, n_sinks):
    """TinyLM's windowed kernel (attnlib.attention.windowed) against torch's scaled_dot_product_attention with a
    boolean band mask made from torch index arithmetic (True = may attend), and autograd for the backward."""
    from attnlib.attention import windowed
    r = rng(7 + window)
    B, H, T, d = 2, 3, 9, 4
    Q, K, V, dO = (r.normal(size=(B, H, T, d)) for _ in range(4))
    op = windowed(window, n_sinks)
    O, cache = op.forward(Q, K, V, True, True)
    dQ, dK, dV = op.backward(dO, cache)

    i, j = torch.arange(T)[:, None], torch.arange(T)[None, :]
    band = (j <= i) & ((i - j < window - n_sinks) | (j < n_sinks))  # (T, T)
    q, k, v = (t64(torch, M).requires_grad_() for M in (Q, K, V))
    o = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=band)
    (o * t64(torch, dO)).sum().backward()
    np.testing.assert_allclose(O, o.detach().numpy(), rtol=1e-12, atol=1e-13)
    for ours, theirs, name in ((dQ, q, "Q"), (dK, k, "K"), (dV, v, "V")):
        np.testing.assert_allclose(ours, theirs.grad.numpy(), rtol=1e-10, atol=1e-12, err_msg=name)
    np.testing.assert_array_equal(at.sliding_window_mask(T, window) == 0,
                                  ((j <= i) & (i - j < window)).numpy())  # the public mask, without sinks
