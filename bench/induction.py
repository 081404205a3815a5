"""Does a second attention layer find an induction head? One layer against two, measured.

Task: T + 1 distinct tokens out of V (drawn fresh for every sequence, so nothing can be
memorised), laid out as a random prefix, a stretch of L tokens, and the same stretch again,
with L drawn from L_MIN..L_MAX for every sequence: the copy ends the sequence but starts at a
varying place, so no fixed distance back gives the answer. Loss and accuracy only on the copy's
positions whose next token is in the copy too. Both attention-only TinyLMs (one head per
layer) train from the same seed. Printed: training seconds, accuracy on the scored positions,
chance (1/V), the best a model that does not attend to earlier tokens can do (1/(V - 1)) and the
best a model can do by picking a position without comparing tokens. Per head: previous-token
score (mean weight on t-1), prefix-matching score (mean weight on the position right after the
earlier copy of the current token) and the accuracy drop when the head is ablated (its rows of
Wo zeroed). Then both along training.

What makes the circuit form within seconds here: no 1/sqrt(d_head) scale with an init of 0.05
(with the scale, or with GPT-2's 0.02, the second layer settles on a guess by position), and a
learning rate of 3e-3 (1e-2 collapses the output to uniform). The window is narrow: init 0.04 to
0.06 and lr 2e-3 to 3e-3 work on every seed tried.

    python bench/induction.py [--seed 0]

Prints figures; asserts nothing about seconds.
"""
import argparse
import time

import numpy as np

from attnlib.model import TinyLM
from attnlib.optim import Adam
from attnlib.train import blas_threads, lr_at

V, T, L_MIN, L_MAX = 64, 24, 3, 10  # vocabulary, sequence length, range of the repeated stretch
MODEL = dict(d_model=32, n_heads=1, max_len=T, mlp=False, dtype=np.float32, init_std=0.05, attn_scale=False)
STEPS, LR, BATCH, WARMUP, LOG_EVERY = 1000, 3e-3, 32, 20, 10


def repeat_batch(rng, B):
    """tokens, targets (B, T) and src (B, T): for a scored position t, src = t - L + 1, the position
    right after the earlier copy of tokens[t] (where the answer sits); -1 elsewhere."""
    seq = np.empty((B, T + 1), dtype=np.int64)
    src = np.full((B, T), -1)
    for b in range(B):
        L = int(rng.integers(L_MIN, L_MAX + 1))
        s = T + 1 - 2 * L  # prefix x[:s], stretch x[s:s+L], copy at s+L .. T
        x = rng.permutation(V)[:T + 1 - L]  # distinct tokens
        seq[b] = np.concatenate([x[:s + L], x[s:s + L]])
        t = np.arange(s + L, s + 2 * L - 1)  # copy positions whose next token is in the copy too
        src[b, t] = t - L + 1
    return seq[:, :-1], seq[:, 1:], src


def position_only_bound():
    """Accuracy of the best guess that uses positions only: at a scored position t, take the
    token at t - L + 1 for the most likely L given t (every L in L_MIN..L_MAX is equally likely)."""
    scored = {}  # t -> number of L for which t is scored
    for L in range(L_MIN, L_MAX + 1):
        for t in range(T + 1 - L, T):
            scored[t] = scored.get(t, 0) + 1
    return len(scored) / sum(scored.values())  # each t is right for one L out of those scoring it


def accuracy(model, batch):
    tokens, targets, src = batch
    scored = src >= 0
    return float(np.mean(model.forward(tokens).argmax(-1)[scored] == targets[scored]))


def head_scores(model, batch, n=32):
    """Previous-token and prefix-matching scores, each (n_layers, n_heads)."""
    tokens, _, src = batch
    prev, match = [], []
    for b in range(n):
        A = model.attention_maps(tokens[b])  # (n_layers, n_heads, T, T)
        t = np.arange(1, T)
        prev.append(A[:, :, t, t - 1].mean(-1))
        t = np.nonzero(src[b] >= 0)[0]
        match.append(A[:, :, t, src[b, t]].mean(-1))
    return np.mean(prev, 0), np.mean(match, 0)


def ablated_accuracy(model, batch, layer, head):
    """Accuracy with head `head` of `layer` silenced: M @ Wo takes head h from rows h*d_head:(h+1)*d_head."""
    params = model.params
    model.params = dict(params)
    Wo = params[f"blocks.{layer}.Wo"].copy()  # (n_heads * d_head, d_model)
    Wo[head * model.d_head:(head + 1) * model.d_head] = 0.0
    model.params[f"blocks.{layer}.Wo"] = Wo
    try:
        return accuracy(model, batch)
    finally:
        model.params = params


def train(n_layers, seed, probe):
    """Train a TinyLM with AdamW (warm-up, cosine decay); return it, the training seconds and
    a trajectory of (step, accuracy, max prev-token score, max prefix-matching score)."""
    model = TinyLM(V, n_layers=n_layers, seed=seed, **MODEL)
    optimizer = Adam(model.params, lr=LR, clip=1.0)
    rng = np.random.default_rng(seed)
    seconds, trajectory = 0.0, []
    for step in range(STEPS):
        start = time.perf_counter()
        tokens, targets, src = repeat_batch(rng, BATCH)
        loss, grads = model.loss_and_grads(tokens, np.where(src >= 0, targets, -1))
        optimizer.step(grads, lr=lr_at(step, STEPS, LR, WARMUP))
        seconds += time.perf_counter() - start
        if (step + 1) % LOG_EVERY == 0:
            prev, match = head_scores(model, probe, n=8)
            trajectory.append((step + 1, accuracy(model, probe), prev.max(), match.max()))
    return model, seconds, trajectory


def main(seed):
    probe = repeat_batch(np.random.default_rng(10_000 + seed), 512)  # held-out sequences
    models = {}
    print(f"V={V} T={T} L={L_MIN}..{L_MAX} {MODEL} steps={STEPS} lr={LR} batch={BATCH} seed={seed}\n")
    print(f"position-only bound {position_only_bound():.3f}")
    print(f"{'layers':>6} {'seconds':>8} {'accuracy':>9} {'chance':>7} {'no-attention bound':>19}")
    with blas_threads(1):  # 2 BLAS threads only wait for each other at these sizes on a busy 2-core machine
        for n_layers in (1, 2):
            models[n_layers] = train(n_layers, seed, probe)
            model, seconds, _ = models[n_layers]
            print(f"{n_layers:>6} {seconds:>8.1f} {accuracy(model, probe):>9.3f} {1 / V:>7.3f} {1 / (V - 1):>19.3f}")
        for n_layers, (model, _, _) in models.items():
            prev, match = head_scores(model, probe, n=128)
            base = accuracy(model, probe)
            print(f"\n{n_layers}-layer model, per head: {'prev-token':>10} {'prefix-match':>12} {'ablated drop':>12}")
            for layer in range(n_layers):
                for head in range(model.n_heads):
                    drop = base - ablated_accuracy(model, probe, layer, head)
                    print(f"{'':>14}layer {layer} head {head}: {prev[layer, head]:>6.2f} "
                          f"{match[layer, head]:>12.2f} {drop:>12.3f}")
    print(f"\n{'step':>6} {'acc 1L':>7} {'acc 2L':>7} {'prev 2L':>8} {'match 2L':>9}   (scores: max over heads)")
    for (step, acc1, _, _), (_, acc2, prev2, match2) in zip(models[1][2], models[2][2]):
        if (step % 50 == 0 and step <= 500) or step == STEPS:  # the jump comes within the first 500
            print(f"{step:>6} {acc1:>7.3f} {acc2:>7.3f} {prev2:>8.2f} {match2:>9.2f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    main(parser.parse_args().seed)
