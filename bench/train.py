"""Time per training step: TinyLM in numpy vs the identical PyTorch CPU model.

Both run the same batch from the same parameters with AdamW and gradient
clipping, on the same number of threads (1 by default: at these sizes threads
cost more than they save, and on a shared 2-core machine they fight). Then the
course experiment is trained end to end and timed against its target.

    python bench/train.py [--threads 1] [--steps 30]

Prints tables with ratios; never asserts on seconds.
"""
import argparse
import os
import sys

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--threads", type=int, default=1, help="BLAS threads for numpy and torch")
parser.add_argument("--steps", type=int, default=30, help="timed steps per configuration")
args = parser.parse_args()
for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[var] = str(args.threads)  # before numpy is imported: numpy reads it once

import time  # noqa: E402

import numpy as np  # noqa: E402

from attnlib.data import CopyTask  # noqa: E402
from attnlib.model import TinyLM  # noqa: E402
from attnlib.optim import Adam  # noqa: E402
from attnlib.train import train_task  # noqa: E402

try:
    import torch
    import torch.nn.functional as F
except ImportError:
    torch = None


def torch_loss(P, tokens, targets, n_heads, n_layers):
    """The TinyLM forward pass in PyTorch, from a dict of tensors P with the same keys."""
    B, T = tokens.shape
    X = P["tok_emb"][tokens] + P["pos_emb"][:T]  # (B, T, d_model)
    d = X.shape[-1]
    for i in range(n_layers):
        p = {k.split(".")[-1]: v for k, v in P.items() if k.startswith(f"blocks.{i}.")}
        H = F.layer_norm(X, (d,), p["ln1_g"], p["ln1_b"], eps=1e-5)

        def heads(M):
            return M.view(B, T, n_heads, d // n_heads).transpose(1, 2)  # (B, n_heads, T, d_head)

        O = F.scaled_dot_product_attention(heads(H @ p["Wq"]), heads(H @ p["Wk"]), heads(H @ p["Wv"]),
                                           is_causal=True)
        X = X + O.transpose(1, 2).reshape(B, T, d) @ p["Wo"]
        H = F.layer_norm(X, (d,), p["ln2_g"], p["ln2_b"], eps=1e-5)
        X = X + F.gelu(H @ p["W1"] + p["b1"], approximate="tanh") @ p["W2"] + p["b2"]
    logits = F.layer_norm(X, (d,), P["ln_f_g"], P["ln_f_b"], eps=1e-5) @ P["W_out"]
    return F.cross_entropy(logits.reshape(B * T, -1), targets.reshape(-1), ignore_index=-1)


def bench_step(d_model, batch_size, dtype, steps):
    """Median seconds per training step, numpy and torch taking turns step by step."""
    task = CopyTask(span=8)
    model = TinyLM(len(task.tokenizer), d_model, 2, 2, task.seq_len, seed=0, dtype=dtype)
    tokens, targets, _ = task.batch(batch_size, np.random.default_rng(0))
    optimizer = Adam(model.params, lr=1e-3, weight_decay=0.01, clip=1.0)

    def numpy_step():
        _, grads = model.loss_and_grads(tokens, targets)
        optimizer.step(grads)

    runs = {"numpy": numpy_step}
    if torch is not None:
        tdtype = torch.float32 if dtype == np.float32 else torch.float64
        P = {k: torch.tensor(v, dtype=tdtype, requires_grad=True) for k, v in model.params.items()}
        t_tokens, t_targets = torch.tensor(tokens), torch.tensor(targets)
        decay = [v for v in P.values() if v.ndim == 2]
        rest = [v for v in P.values() if v.ndim != 2]
        t_opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.01}, {"params": rest, "weight_decay": 0.0}],
                                  lr=1e-3)

        def torch_step():
            t_opt.zero_grad(set_to_none=True)
            loss = torch_loss(P, t_tokens, t_targets, 2, 2)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(P.values(), 1.0)
            t_opt.step()

        runs["torch"] = torch_step
    times = {name: [] for name in runs}
    for i in range(steps + 3):
        for name, step in runs.items():
            start = time.perf_counter()
            step()
            if i >= 3:  # the first steps warm up
                times[name].append(time.perf_counter() - start)
    return {name: float(np.median(t)) for name, t in times.items()}


def main():
    if torch is not None:
        torch.set_num_threads(args.threads)
        torch.manual_seed(0)
    print(f"threads: numpy (OpenBLAS) {args.threads}, torch "
          f"{torch.get_num_threads() if torch else '-'}; torch {torch.__version__ if torch else 'not installed'}")
    print("TinyLM 2 layers, 2 heads, copy task T=16, AdamW + clipping; median of "
          f"{args.steps} steps\n")
    print(f"{'d_model':>7} {'batch':>5} {'dtype':>7} | {'numpy ms':>8} {'torch ms':>8} {'numpy/torch':>11} "
          f"| {'numpy tok/s':>11} {'torch tok/s':>11}")
    for d_model, batch_size, dtype in [(32, 32, np.float32), (32, 32, np.float64),
                                       (64, 32, np.float32), (64, 32, np.float64)]:
        r = bench_step(d_model, batch_size, dtype, args.steps)
        tokens = batch_size * 16
        t = r.get("torch")
        print(f"{d_model:>7} {batch_size:>5} {np.dtype(dtype).name:>7} | {1e3 * r['numpy']:8.2f} "
              + (f"{1e3 * t:8.2f} {r['numpy'] / t:10.2f}x" if t else f"{'-':>8} {'-':>11}")
              + f" | {tokens / r['numpy']:11,.0f} " + (f"{tokens / t:11,.0f}" if t else f"{'-':>11}"))

    print("\nCourse experiments (attnlib.train.train_task), each trained once from seed 0:")
    print(f"{'preset':>20} | {'steps':>5} {'seconds':>7} {'loss@1/4':>8} {'loss@1/2':>8} {'final':>7} "
          f"{'accuracy':>8}")
    results = {}
    for name in ("copy", "sentences", "scaled", "unscaled", "blank_causal", "blank_bidirectional"):
        r = results[name] = train_task(name, progress=False)
        h = r.history
        print(f"{name:>20} | {len(h):5d} {r.seconds:7.1f} {h[len(h) // 4]:8.3f} {h[len(h) // 2]:8.3f} "
              f"{h[-1]:7.3f} {r.accuracy:8.3f}")
    copy, sentences = results["copy"], results["sentences"]
    print("\ntargets beside measurements:")
    print(f"  copy task >= 0.99 accuracy on rule positions in <= 30 s: {copy.accuracy:.3f} in {copy.seconds:.1f} s")
    print(f"  grammar: place word after the animal, accuracy: {sentences.accuracy:.3f} in {sentences.seconds:.1f} s")
    sc, un = results["scaled"].history, results["unscaled"].history
    print(f"  d_head=64, init 0.2: loss after {len(sc) // 2} steps with 1/sqrt(d_head) {sc[len(sc) // 2]:.3f}, "
          f"without {un[len(un) // 2]:.3f}; final {sc[-1]:.3f} vs {un[-1]:.3f}")
    print(f"  fill in the blank: bidirectional {results['blank_bidirectional'].accuracy:.3f} vs causal "
          f"{results['blank_causal'].accuracy:.3f} (chance 0.25)")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
