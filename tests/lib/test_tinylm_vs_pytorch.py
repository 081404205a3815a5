"""TinyLM against an equivalent PyTorch model built from the same parameters (float64).

PyTorch's autograd is an independent reference for every gradient. Skipped
without torch (the `parity` extra), a failure under CI=true.
"""
import math

import numpy as np
import pytest

from attnlib.block import BLOCK_KEYS
from attnlib.model import TinyLM
from helpers import need, rng


def torch_rotate(torch, M):
    """RoPE on (B, n_heads, T, d_head) as complex multiplication: adjacent features (2i, 2i+1) are one complex
    number, multiplied by e^(i t 10000^(-2i/d_head)) at position t."""
    T, d = M.shape[-2:]
    freqs = 10000.0 ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)  # (d/2,)
    angle = torch.outer(torch.arange(T, dtype=torch.float64), freqs)  # (T, d/2)
    z = torch.view_as_complex(M.reshape(*M.shape[:-1], d // 2, 2).contiguous())
    return torch.view_as_real(z * torch.polar(torch.ones_like(angle), angle)).reshape(M.shape)


def torch_logits(torch, P, tokens, n_heads, n_layers, causal=True, scale=True, positions="learned"):
    F = torch.nn.functional
    B, T = tokens.shape
    X = P["tok_emb"][tokens]
    d = X.shape[-1]
    if positions == "learned":
        X = X + P["pos_emb"][:T]
    elif positions == "sinusoid":  # the original transformer's table, from its formula
        angle = torch.outer(torch.arange(T, dtype=torch.float64),
                            10000.0 ** (-torch.arange(0, d, 2, dtype=torch.float64) / d))
        X = X + torch.stack([torch.sin(angle), torch.cos(angle)], dim=-1).reshape(T, d)
    d_head = d // n_heads
    future = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
    for i in range(n_layers):
        p = {k: P[f"blocks.{i}.{k}"] for k in BLOCK_KEYS}
        H = F.layer_norm(X, (d,), p["ln1_g"], p["ln1_b"], eps=1e-5)
        Q, K, V = [(H @ p[w]).view(B, T, n_heads, d_head).transpose(1, 2) for w in ("Wq", "Wk", "Wv")]
        if positions == "rope":
            Q, K = torch_rotate(torch, Q), torch_rotate(torch, K)
        S = Q @ K.transpose(-1, -2)
        if scale:
            S = S / math.sqrt(d_head)
        if causal:
            S = S.masked_fill(future, float("-inf"))
        O = torch.softmax(S, dim=-1) @ V  # (B, n_heads, T, d_head)
        X = X + O.transpose(1, 2).reshape(B, T, d) @ p["Wo"]
        H = F.layer_norm(X, (d,), p["ln2_g"], p["ln2_b"], eps=1e-5)
        X = X + F.gelu(H @ p["W1"] + p["b1"], approximate="tanh") @ p["W2"] + p["b2"]
    return F.layer_norm(X, (d,), P["ln_f_g"], P["ln_f_b"], eps=1e-5) @ P["W_out"]


@pytest.mark.parametrize("options", [{}, {"causal": False}, {"attn_scale": False}, {"positions": "sinusoid"},
                                     {"positions": "rope"}, {"positions": "rope", "causal": False}])
def test_logits_and_every_gradient_match_pytorch(options):
    torch = need("torch", "install the parity extra: pip install -e .[parity]")
    model = TinyLM(13, 16, 4, 3, 12, seed=2, init_std=0.3, **options)
    r = rng(3)
    for k in model.params:  # gains and biases away from 1 and 0
        model.params[k] += 0.1 * r.normal(size=model.params[k].shape)
    tokens = r.integers(0, 13, (3, 10))
    targets = r.integers(0, 13, (3, 10))
    targets[0, :4] = -1  # unscored positions

    P = {k: torch.tensor(v, dtype=torch.float64, requires_grad=True) for k, v in model.params.items()}
    logits = torch_logits(torch, P, torch.tensor(tokens), model.n_heads, model.n_layers,
                          causal=options.get("causal", True), scale=options.get("attn_scale", True),
                          positions=options.get("positions", "learned"))
    loss = torch.nn.functional.cross_entropy(logits.reshape(-1, 13), torch.tensor(targets).reshape(-1),
                                             ignore_index=-1)
    loss.backward()

    np.testing.assert_allclose(model.forward(tokens), logits.detach().numpy(), rtol=0, atol=1e-9)
    our_loss, grads = model.loss_and_grads(tokens, targets)
    assert abs(our_loss - loss.item()) <= 1e-9
    assert set(grads) == set(P)
    for k, g in grads.items():
        np.testing.assert_allclose(g, P[k].grad.numpy(), rtol=0, atol=1e-9, err_msg=k)
        assert np.abs(g).max() > 1e-6, f"{k}: a zero gradient would pass trivially"


def test_adam_matches_pytorch_adamw_with_clipping():
    torch = need("torch", "install the parity extra: pip install -e .[parity]")
    from attnlib.optim import Adam
    r = rng(4)
    params = {"W": r.normal(size=(3, 4)), "b": r.normal(size=4)}
    P = {k: torch.tensor(v.copy(), requires_grad=True) for k, v in params.items()}
    ours = Adam(params, lr=0.05, weight_decay=0.1, clip=1.0)
    theirs = torch.optim.AdamW([{"params": [P["W"]], "weight_decay": 0.1}, {"params": [P["b"]], "weight_decay": 0.0}],
                               lr=0.05)
    for step in range(5):
        grads = {k: r.normal(size=v.shape) * 3 for k, v in params.items()}
        norm = np.sqrt(sum(np.sum(g * g) for g in grads.values()))
        for k in P:  # clip to global norm 1 (torch's clip_grad_norm_ adds 1e-6 to the norm; we do not)
            P[k].grad = torch.tensor(grads[k] / max(norm, 1.0))
        theirs.step()
        ours.step(grads)
        for k in params:
            np.testing.assert_allclose(params[k], P[k].detach().numpy(), rtol=0, atol=1e-12, err_msg=f"{k} step {step}")
