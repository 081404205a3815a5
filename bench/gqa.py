"""Shared keys and values: time per generated token and KV-cache bytes for n_kv_heads = n_heads down to 1.

One TinyLM shape (8 query heads) is built with 8, 4, 2 and 1 key/value groups. Each
generates tokens one at a time against a cache filled with a long prompt; the models
take turns, token by token and in a new order each time, so a busy machine slows them all alike. The cache holds one
key and one value per group, so its bytes fall with n_kv_heads exactly (counted by
kv_cache_bytes, and measured on the cache itself); the time per token falls less, since
the query heads, the projections and the MLP are the same in every model.

    python bench/gqa.py [--threads 1] [--repeats 40] [--context 1024] [--seeds 0]

Prints a table with ratios against n_kv_heads = n_heads; never asserts on seconds. With --seeds N it also trains
notebook 17's models (the copy preset with 4 query heads and 4, 2, 1 K/V groups) from the seeds 0 .. N-1 and prints
each one's loss on held-out copied positions: the spread between seeds next to the spread between groupings.
"""
import argparse
import os

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--threads", type=int, default=1, help="BLAS threads")
parser.add_argument("--repeats", type=int, default=40, help="tokens timed per model")
parser.add_argument("--context", type=int, default=1024, help="tokens in the cache before the timed ones")
parser.add_argument("--seeds", type=int, default=0, help="also train notebook 17's copy models from this many seeds")
args = parser.parse_args()
for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[var] = str(args.threads)  # before numpy is imported

import time  # noqa: E402

import numpy as np  # noqa: E402

from attnlib import kv_cache_bytes  # noqa: E402
from attnlib.model import TinyLM  # noqa: E402

N_HEADS, D_MODEL, N_LAYERS = 8, 128, 2
GROUPS = (8, 4, 2, 1)  # n_kv_heads: multi-head attention, two kinds of GQA, multi-query attention


def per_token(models, context, repeats, rng):
    """Median seconds for one cached token after `context` tokens: {n_kv_heads: seconds}."""
    seq = rng.integers(0, 20, context + repeats)
    caches = {g: m.new_cache() for g, m in models.items()}
    for g, m in models.items():
        m.step(seq[:context], caches[g])  # the prompt fills the cache
    times = {g: [] for g in models}
    for i in range(repeats):
        t = context + i
        for g in rng.permutation(list(models)):  # a new order every token, so no model always follows another
            g, m = int(g), models[int(g)]
            start = time.perf_counter()
            m.step(seq[t:t + 1], caches[g])
            times[g].append(time.perf_counter() - start)
    return {g: float(np.median(times[g])) for g in models}, caches


def main():
    max_len = args.context + args.repeats + 1
    models = {g: TinyLM(20, D_MODEL, N_HEADS, N_LAYERS, max_len, seed=0, n_kv_heads=g) for g in GROUPS}
    rng = np.random.default_rng(0)
    per_token(models, 32, 3, rng)  # warm up
    times, caches = per_token(models, args.context, args.repeats, rng)
    d_head = D_MODEL // N_HEADS
    print(f"TinyLM d_model={D_MODEL}, {N_HEADS} heads of {d_head}, {N_LAYERS} layers, float64; BLAS threads "
          f"{args.threads}; median over {args.repeats} tokens after {args.context} cached\n")
    print(f"{'n_kv_heads':>10} | {'cache bytes':>12} {'measured':>12} {'vs MHA':>7} | {'ms/token':>8} {'vs MHA':>7}")
    base_bytes, base_time = None, times[N_HEADS]
    for g in GROUPS:
        counted = kv_cache_bytes(N_LAYERS, N_HEADS, d_head, max_len, bytes_per_value=8, n_kv_heads=g)
        measured = caches[g].K.nbytes + caches[g].V.nbytes
        base_bytes = base_bytes or counted
        print(f"{g:>10} | {counted:>12,} {measured:>12,} {counted / base_bytes:6.3f}x | "
              f"{1e3 * times[g]:8.3f} {times[g] / base_time:6.2f}x")
    print(f"\nexpected: cache bytes n_kv_heads / n_heads of MHA's exactly (1/{N_HEADS} for MQA); "
          "time per token at most MHA's")
    print(f"measured: MQA cache {base_bytes // (caches[1].K.nbytes + caches[1].V.nbytes)}x smaller, "
          f"MQA time {times[1] / base_time:.2f}x of MHA's")


def losses_by_seed(seeds):
    """Notebook 17's measurement from seeds 0 .. seeds-1: the copy preset with 4 query heads and 4, 2, 1 K/V groups,
    each scored on the same 512 held-out rows (the copied positions only)."""
    from attnlib.train import train_task
    print(f"\nthe copy task, 4 query heads: held-out loss (nats) on the copied positions, seeds 0-{seeds - 1}")
    print(f"{'seed':>4} " + " ".join(f"{f'{g} K/V':>9}" for g in (4, 2, 1)))
    found = {g: [] for g in (4, 2, 1)}
    for seed in range(seeds):
        for g in found:
            r = train_task("copy", seed=seed, progress=False, model_kwargs=dict(n_heads=4, n_kv_heads=g))
            batch = r.task.batch(512, np.random.default_rng(99))
            found[g].append(r.model.loss_and_grads(batch.tokens, np.where(batch.mask, batch.targets, -1))[0])
        print(f"{seed:>4} " + " ".join(f"{found[g][-1]:9.4f}" for g in found))
    print(f"{'mean':>4} " + " ".join(f"{np.mean(found[g]):9.4f}" for g in found))


if __name__ == "__main__":
    main()
    if args.seeds:
        losses_by_seed(args.seeds)
