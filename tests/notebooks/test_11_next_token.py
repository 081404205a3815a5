"""Notebook 11 (the next token): the claims its text makes.

The general claims and the answers hidden in the "Check your intuition" cells are recomputed here with
plain numpy (or PyTorch autograd) rather than the notebook's own code.
"""
import math

import numpy as np

from helpers import need, numeric_grad, softmax_rows


def test_11_cross_entropy_gradient_is_p_minus_onehot_torch():
    torch = need("torch", "PyTorch autograd is the independent reference for the cross-entropy gradient")
    z = np.random.default_rng(3).standard_normal(6)
    zt = torch.tensor(z, requires_grad=True)
    torch.nn.functional.cross_entropy(zt[None], torch.tensor([4])).backward()
    p = softmax_rows(z)
    assert np.allclose(zt.grad.numpy(), p - np.eye(6)[4], atol=1e-12)  # question 2
    assert np.all(zt.grad.numpy()[np.arange(6) != 4] > 0)  # every wrong word is pushed down


def test_11_copy_task_first_half_is_uniform_and_second_half_is_determined():
    from attnlib.data import CopyTask
    task = CopyTask(span=8)
    b = task.batch(4000, np.random.default_rng(4))
    n_words = len(task.tokenizer) - 1  # question 3: uniform over the words, the bar excluded
    counts = np.bincount(b.tokens[:, :8].ravel(), minlength=len(task.tokenizer))
    assert counts[-1] == 0 and np.all(np.abs(counts[:-1] / counts.sum() - 1 / n_words) < 0.01)
    assert np.array_equal(b.targets[:, 8:], b.tokens[:, :8])  # after the bar: the word 8 back
    assert b.mask[:, 8:].all() and not b.mask[:, :8].any()
    assert math.isclose(math.log(n_words), 2.4849, abs_tol=1e-4)


def test_11_low_temperature_tends_to_argmax():
    z = np.array([1.0, 2.5, 2.4, -1.0])
    assert softmax_rows(z / 1e-3).round(6).tolist() == [0.0, 1.0, 0.0, 0.0]  # question 5
    assert np.allclose(softmax_rows(z / 1e3), 0.25, atol=1e-3)


def test_11_learning_rate_warms_up_then_decays_along_a_cosine_to_a_tenth():
    from attnlib.train import lr_at
    steps, lr, warmup = 120, 1e-2, 20
    for step in range(steps):  # the schedule the notebook describes, written out
        if step < warmup:
            expected = lr * (step + 1) / warmup
        else:
            expected = lr / 10 + (lr - lr / 10) * (1 + math.cos(math.pi * (step - warmup) / (steps - warmup))) / 2
        assert math.isclose(lr_at(step, steps, lr, warmup), expected, rel_tol=1e-12)
    assert math.isclose(lr_at(warmup - 1, steps, lr, warmup), lr)


def test_11_the_copy_pointer_needs_the_position_vectors():
    from attnlib.train import train_task
    result = train_task("copy", seed=0, progress=False)  # the notebook's loop, with the same settings
    model, task = result.model, result.task
    tokens, targets, mask = task.batch(256, np.random.default_rng(12345))

    def accuracy():
        return float(np.mean(model.forward(tokens).argmax(axis=-1)[mask] == targets[mask]))

    assert accuracy() >= 0.99
    model.params["pos_emb"][:] = 0.0
    assert accuracy() < 0.25


def test_11_softmax_jacobian_is_diag_a_minus_a_a_transpose():
    """The quotient-rule result, d a_i / d s_j = a_i (delta_ij - a_j), against central differences."""
    rng = np.random.default_rng(13)
    for s in (rng.standard_normal(3), 4 * rng.standard_normal(7)):
        a = softmax_rows(s)
        J = np.diag(a) - np.outer(a, a)
        J_numeric = np.stack([numeric_grad(lambda s=s, i=i: softmax_rows(s)[i], s) for i in range(len(s))])
        assert np.allclose(J, J_numeric, atol=1e-8)
        assert np.allclose(J, J.T)  # symmetric, so its columns sum to zero as well as its rows
        g = rng.standard_normal(len(s))  # an upstream gradient dA
        assert np.allclose(g @ J, a * (g - g @ a))  # dS = A * (dA - rowsum(dA * A)), one row
        # The row of dS is g J; its entries sum to g . (J 1), and J 1 (the row sums) is zero: moving every score
        # by the same small amount moves no weight.
        assert np.allclose(J @ np.ones(len(s)), 0) and np.allclose(softmax_rows(s + 1e-3), a)
        assert abs((g @ J).sum()) < 1e-12 * np.abs(g).sum()


def test_11_the_other_backward_steps_follow_one_line_rules():
    """Y = X W, GELU and the embedding lookup: attnlib.layers against finite differences of plain numpy."""
    from attnlib import layers
    rng = np.random.default_rng(15)
    X, W, dY = rng.standard_normal((3, 5, 5))
    L = lambda: np.sum(dY * (X @ W))
    assert np.allclose(numeric_grad(L, X), dY @ W.T) and np.allclose(numeric_grad(L, W), X.T @ dY)
    gelu = lambda Z: 0.5 * Z * (1 + np.tanh(math.sqrt(2 / math.pi) * (Z + 0.044715 * Z ** 3)))  # GPT-2's formula
    X3, dY3 = rng.standard_normal((2, 3, 4, 5))  # a batch of 3 sequences of 4 rows: dW stacks all 12 rows
    I, zero = np.eye(5), np.zeros(5)  # an MLP gelu(X W) I: its dW1 is the product rule through GELU
    _, dW1, _, _, _ = layers.mlp_grads(dY3, layers.mlp_forward(X3, W, zero, I, zero)[1])
    assert np.allclose(dW1, numeric_grad(lambda: np.sum(dY3 * gelu(X3 @ W)), W), atol=1e-8)
    dG = layers.gelu_grads(dY, layers.gelu_forward(X)[1])
    assert np.allclose(dG, numeric_grad(lambda: np.sum(dY * gelu(X)), X), atol=1e-8)
    tokens = np.array([[2, 0, 2], [4, 4, 1]])  # (B, T): token 2 twice in a row, token 4 twice, token 3 never
    tok_emb, pos_emb, dX = rng.standard_normal((6, 4)), rng.standard_normal((5, 4)), rng.standard_normal((2, 3, 4))
    dtok, dpos = layers.embed_grads(dX, layers.embed_forward(tokens, tok_emb, pos_emb)[1])
    L = lambda: np.sum(dX * (tok_emb[tokens] + pos_emb[:3]))
    assert np.allclose(dtok, numeric_grad(L, tok_emb)) and np.allclose(dpos, numeric_grad(L, pos_emb))
    assert np.allclose(dtok[2], dX[0, 0] + dX[0, 2]) and not dtok[3].any() and not dtok[5].any()


def test_11_adam_first_step_moves_every_weight_by_lr_and_the_clip_keeps_the_direction():
    """Adam's first step by hand: m = (1 - b1) g, v = (1 - b2) g^2, both bias-corrected, so m / sqrt(v) = sign(g)."""
    import attnlib as at
    from attnlib.optim import clip_grad_norm
    g = np.array([0.05, -0.3, 5.0, -80.0])
    for lr in (1e-2, 3e-4):
        W = np.zeros(4)
        at.Adam({"W": W}, lr=lr, clip=None).step({"W": g})
        m_hat, v_hat = (1 - 0.9) * g / (1 - 0.9), (1 - 0.999) * g ** 2 / (1 - 0.999)
        assert np.allclose(W, -lr * m_hat / (np.sqrt(v_hat) + 1e-8)) and np.allclose(np.abs(W), lr, rtol=1e-6)
    clipped = {"a": g[:2].copy(), "b": g[2:].copy()}  # the norm is taken over all the arrays together
    norm = clip_grad_norm(clipped, 1.0)
    assert math.isclose(norm, math.sqrt(sum(x * x for x in g)))
    assert np.allclose(np.concatenate([clipped["a"], clipped["b"]]), g / norm)
    small = {"a": np.array([0.3, -0.4])}  # norm 0.5: below the clip, left alone
    assert clip_grad_norm(small, 1.0) == 0.5 and np.array_equal(small["a"], [0.3, -0.4])


def test_11_layer_norm_jacobian_and_backward_by_the_chain_rule():
    """The Jacobian through the mean and the variance, and the dx, dg formulas, against central differences."""
    rng = np.random.default_rng(14)
    x, g, dy = rng.standard_normal(6) * 2 + 1, rng.standard_normal(6) + 1, rng.standard_normal(6)

    def layer_norm(v, gain):
        return (v - v.mean()) / math.sqrt(v.var() + 1e-5) * gain

    r = 1 / math.sqrt(x.var() + 1e-5)
    x_hat = (x - x.mean()) * r
    J = r / 6 * (6 * np.eye(6) - 1 - np.outer(x_hat, x_hat))
    J_numeric = np.stack([numeric_grad(lambda i=i: layer_norm(x, np.ones(6))[i], x) for i in range(6)])
    assert np.allclose(J, J_numeric, atol=1e-8) and np.allclose(J, J.T)
    g_hat = g * dy
    dx = r * (g_hat - g_hat.mean() - x_hat * np.mean(g_hat * x_hat))
    assert np.allclose(dx, numeric_grad(lambda: np.sum(dy * layer_norm(x, g)), x), atol=1e-8)
    assert np.allclose(dy * x_hat, numeric_grad(lambda: np.sum(dy * layer_norm(x, g)), g), atol=1e-8)
    assert abs(dx.sum()) < 1e-12  # shifting a row does not change its layer norm


def torch_tiny_lm(torch, P, tokens, post_ln, n_heads=2, n_layers=2):
    """TinyLM's logits in PyTorch, pre-LN (as attnlib) or post-LN (the norm after each residual add)."""
    F = torch.nn.functional
    B, T = tokens.shape
    X = P["tok_emb"][tokens] + P["pos_emb"][:T]
    d = X.shape[-1]
    future = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
    for i in range(n_layers):
        p = {k: P[f"blocks.{i}.{k}"] for k in ("ln1_g", "ln1_b", "Wq", "Wk", "Wv", "Wo", "ln2_g", "ln2_b", "W1", "b1",
                                                "W2", "b2")}
        ln1 = lambda Z, p=p: F.layer_norm(Z, (d,), p["ln1_g"], p["ln1_b"], eps=1e-5)
        ln2 = lambda Z, p=p: F.layer_norm(Z, (d,), p["ln2_g"], p["ln2_b"], eps=1e-5)
        H = X if post_ln else ln1(X)
        Q, K, V = [(H @ p[w]).view(B, T, n_heads, d // n_heads).transpose(1, 2) for w in ("Wq", "Wk", "Wv")]
        S = (Q @ K.transpose(-1, -2) / math.sqrt(d // n_heads)).masked_fill(future, float("-inf"))
        X = X + (torch.softmax(S, dim=-1) @ V).transpose(1, 2).reshape(B, T, d) @ p["Wo"]
        X = ln1(X) if post_ln else X
        U = F.gelu((X if post_ln else ln2(X)) @ p["W1"] + p["b1"], approximate="tanh") @ p["W2"] + p["b2"]
        X = ln2(X + U) if post_ln else X + U
    return F.layer_norm(X, (d,), P["ln_f_g"], P["ln_f_b"], eps=1e-5) @ P["W_out"]


def test_11_post_ln_stays_on_the_plateau_where_pre_ln_learns_the_copy_torch():
    """Notebook 11's run on another seed, with PyTorch's autograd and Adam as the engine instead of attnlib's."""
    torch = need("torch", "PyTorch autograd and Adam are the independent engine for the post-LN training run")
    from attnlib.data import CopyTask
    from attnlib.model import TinyLM
    from attnlib.train import lr_at
    task, seed, steps = CopyTask(span=8), 1, 120

    def train(post_ln, emb_scale=1.0):
        init = TinyLM(len(task.tokenizer), 32, 2, 2, max_len=task.seq_len, seed=seed).params  # GPT-2's init
        P = {k: torch.tensor(v * (emb_scale if k.endswith("_emb") else 1.0), requires_grad=True)
             for k, v in init.items()}
        optimizer, rng, losses = torch.optim.Adam(list(P.values()), lr=1e-2), np.random.default_rng(seed), []
        for step in range(steps):
            tokens, targets, mask = task.batch(32, rng)
            logits = torch_tiny_lm(torch, P, torch.tensor(tokens), post_ln)
            scored = torch.tensor(np.where(mask, targets, -1)).reshape(-1)  # -1: not scored
            loss = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), scored, ignore_index=-1)
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(list(P.values()), 1.0)
            optimizer.param_groups[0]["lr"] = lr_at(step, steps, 1e-2, 20)
            optimizer.step()
            losses.append(loss.item())
        return losses

    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # small matrices: one thread is faster, and busy cores do not slow it down
    try:
        pre, post, post_50 = train(False), train(True), train(True, emb_scale=50.0)
    finally:
        torch.set_num_threads(threads)
    assert np.mean(pre[-10:]) < 0.1 and np.mean(post_50[-10:]) < 0.1
    assert min(post) > 2.2  # a uniform guess over the 12 words costs ln 12 = 2.48
