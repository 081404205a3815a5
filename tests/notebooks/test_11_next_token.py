"""Notebooks 11, 13 and 14: the claims their text makes.

The notebook rules of DESIGN.md section 4 are checked in test_notebook_rules.py;
these tests check that the general claims and the answers hidden in the "Check your intuition" cells hold, recomputed
here with plain numpy (or PyTorch autograd) rather than the notebooks' own code.
"""
import math

import numpy as np

from helpers import need, numeric_grad, softmax_rows


def plain_attention(X, Wq, Wk, Wv, causal):
    """One head in plain numpy: softmax(Q K^T / sqrt(d) (+ mask)) V."""
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    S = Q @ K.T / math.sqrt(Q.shape[1])
    if causal:
        S[np.triu_indices(S.shape[0], k=1)] = -np.inf
    return softmax_rows(S) @ V


# ---------------------------------------------------------------------------
# 11: next token

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


# ---------------------------------------------------------------------------
# 13: no mask

def test_13_unmasked_layers_without_positions_are_permutation_equivariant():
    rng = np.random.default_rng(5)
    X = rng.standard_normal((6, 8))
    perm = rng.permutation(6)
    Ws = rng.standard_normal((10, 3, 8, 8)) / 3
    Y, Yp = X.copy(), X[perm].copy()
    for Wq, Wk, Wv in Ws:  # question 2: ten unmasked layers
        Y = Y + plain_attention(Y, Wq, Wk, Wv, causal=False)
        Yp = Yp + plain_attention(Yp, Wq, Wk, Wv, causal=False)
    assert np.allclose(Yp, Y[perm])
    Yc = X[perm] + plain_attention(X[perm], *Ws[0], causal=True)
    assert not np.allclose(Yc, (X + plain_attention(X, *Ws[0], causal=True))[perm])


def test_13_before_the_blank_nothing_tells_the_animal():
    from attnlib.data import BlankTask
    task = BlankTask()
    b = task.batch(4000, np.random.default_rng(6))
    blank = np.argmax(b.targets >= 0, axis=1)
    answers = b.targets[np.arange(len(blank)), blank]
    prefixes = [tuple(row[:i]) for row, i in zip(b.tokens, blank)]
    best = 0  # the best any causal reader can do: the most common answer for each prefix
    for prefix in set(prefixes):
        picked = answers[[p == prefix for p in prefixes]]
        best += np.bincount(picked).max()
    assert best / len(answers) < 0.3  # about 1 in 4
    after = [tuple(row[i + 1:]) for row, i in zip(b.tokens, blank)]  # the words after the blank do tell
    assert all(len(set(answers[[a == s for a in after]])) == 1 for s in set(after))


def test_13_an_even_average_ignores_order_so_positions_act_only_through_uneven_weights():
    rng = np.random.default_rng(11)
    X, P = rng.standard_normal((6, 6)), rng.standard_normal((6, 6))
    Wq, Wk, Wv = rng.standard_normal((3, 6, 6))
    perm = [0, 5, 2, 3, 4, 1]
    O, O_swapped = (plain_attention(Z + P, 0 * Wq, Wk, Wv, causal=False) for Z in (X, X[perm]))  # zero scores
    assert np.allclose(O, (X + P).mean(axis=0) @ Wv) and np.allclose(O_swapped, O)  # every row: the plain mean
    O, O_swapped = (plain_attention(Z + P, Wq, Wk, Wv, causal=False) for Z in (X, X[perm]))  # uneven weights
    assert not np.allclose(O_swapped[2], O[2])


def test_13_the_trained_bidirectional_model_reaches_past_the_diagonal_where_it_learned_to():
    """The recap's picture, read through a plain forward pass: layer 0, head 0 on 'the _ sat on the mat . .'."""
    from attnlib.train import train_task
    from helpers import plain_forward
    words = "the _ sat on the mat . .".split()
    maps = {}
    for name, causal in (("blank_causal", True), ("blank_bidirectional", False)):
        result = train_task(name, seed=0, progress=False)
        model, ids = result.model, result.task.tokenizer.encode(words)
        maps[name] = plain_forward(model.params, ids, model.n_layers, model.n_heads, causal=causal)[1][0, 0]
    assert np.all(np.triu(maps["blank_causal"], k=1) == 0)
    A = maps["blank_bidirectional"]
    assert A[1, 5] > 0.9 and np.triu(A, k=1)[0].sum() > 0.5  # the blank on "mat"; the first row mostly ahead


def test_13_cross_attention_shapes():
    rng = np.random.default_rng(7)
    X_fr, X_en = rng.standard_normal((7, 6)), rng.standard_normal((6, 6))
    Wq, Wk, Wv = rng.standard_normal((3, 6, 6))
    A = softmax_rows((X_fr @ Wq) @ (X_en @ Wk).T / math.sqrt(6))
    assert A.shape == (7, 6) and (A @ (X_en @ Wv)).shape == (7, 6)  # question 4
    assert np.allclose(A.sum(axis=1), 1)


def test_13_without_the_mask_a_new_token_changes_the_keys_above_the_first_layer():
    rng = np.random.default_rng(10)
    X = rng.standard_normal((6, 8))  # token vectors (embedding plus position) of 6 tokens
    X_more = np.vstack([X, rng.standard_normal((1, 8))])  # one more token appended
    (Wq1, Wk1, Wv1), (_, Wk2, Wv2) = rng.standard_normal((2, 3, 8, 8)) / 3
    for causal in (False, True):  # question 3: layer 1's keys come from X; layer 2's from layer 1's output
        H, H_more = (Z + plain_attention(Z, Wq1, Wk1, Wv1, causal) for Z in (X, X_more))
        assert np.array_equal((X_more @ Wk1)[:6], X @ Wk1) and np.array_equal((X_more @ Wv1)[:6], X @ Wv1)
        assert np.allclose((H_more @ Wk2)[:6], H @ Wk2) == causal
        assert np.allclose((H_more @ Wv2)[:6], H @ Wv2) == causal


# ---------------------------------------------------------------------------
# 14: generation and the KV cache

def test_14_cache_sizes_by_hand():
    import attnlib as at
    assert at.kv_cache_bytes(12, 12, 64, 1024) == 2 * 12 * 12 * 64 * 1024 * 2
    mha = 2 * 32 * 32 * 128 * 32768 * 2
    assert at.kv_cache_bytes(32, 32, 128, 32768) == mha == 16 * 2 ** 30 and mha > 14e9
    assert at.kv_cache_bytes(32, 8, 128, 32768) * 4 == mha == at.kv_cache_bytes(32, 1, 128, 32768) * 32
    assert at.kv_cache_bytes(40, 40, 128, 4096) == 5 * at.kv_cache_bytes(40, 8, 128, 4096)  # question 3


def test_14_online_softmax_merges_blocks_exactly():
    rng = np.random.default_rng(8)
    s, v = 4 * rng.standard_normal(40), rng.standard_normal((40, 3))
    m, l, acc = -np.inf, 0.0, np.zeros(3)
    for k in range(0, 40, 7):  # blocks of 7 keys, in order
        block = s[k:k + 7]
        m_new = max(m, block.max())
        l = l * math.exp(m - m_new) + np.exp(block - m_new).sum()
        acc = acc * math.exp(m - m_new) + np.exp(block - m_new) @ v[k:k + 7]
        m = m_new
    assert np.allclose(acc / l, softmax_rows(s) @ v)


def test_14_cached_step_equals_the_last_row_of_full_attention():
    rng = np.random.default_rng(9)
    X = rng.standard_normal((9, 8))
    Wq, Wk, Wv = rng.standard_normal((3, 8, 8))
    full = plain_attention(X, Wq, Wk, Wv, causal=True)
    for t in range(1, 10):  # question 2: the step at t compares one query with t keys
        K, V = X[:t] @ Wk, X[:t] @ Wv
        a = softmax_rows(K @ (X[t - 1] @ Wq) / math.sqrt(8))
        assert a.shape == (t,) and np.allclose(a @ V, full[t - 1])
