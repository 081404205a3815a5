"""Shared keys and values: time per generated token and KV-cache bytes for n_kv_heads = n_heads down to 1.

One TinyLM shape (8 query heads) is built with 8, 4, 2 and 1 key/value groups. Each
generates tokens one at a time against a cache filled with a long prompt; the models
take turns, token by token and in a new order each time, so a busy machine slows them all alike. The cache holds one
key and one value per group, so its bytes fall with n_kv_heads exactly (counted by
kv_cache_bytes, and measured on the cache itself); the time per token falls less, since
the query heads, the projections and the MLP are the same in every model.

    python bench/gqa.py [--threads 1] [--repeats 40] [--context 1024]

Prints a table with ratios against n_kv_heads = n_heads; never asserts on seconds.
"""
import argparse
import os

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--threads", type=int, default=1, help="BLAS threads")
parser.add_argument("--repeats", type=int, default=40, help="tokens timed per model")
parser.add_argument("--context", type=int, default=1024, help="tokens in the cache before the timed ones")
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


if __name__ == "__main__":
    main()
