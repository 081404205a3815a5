"""Time per generated token with and without the KV cache, at 32 to 512 tokens.

With the cache, a new token computes one query row per layer and attends to t
cached keys: O(t) work, dominated at this size by a fixed per-layer cost.
Without it, the whole sequence is recomputed: O(t^2) attention plus t rows of
every matrix product.

    python bench/generate.py [--threads 1] [--repeats 20]

Prints a table with ratios; never asserts on seconds.
"""
import argparse
import os

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--threads", type=int, default=1, help="BLAS threads")
parser.add_argument("--repeats", type=int, default=20, help="tokens timed per length")
args = parser.parse_args()
for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[var] = str(args.threads)  # before numpy is imported

import time  # noqa: E402

import numpy as np  # noqa: E402

from attnlib.model import TinyLM  # noqa: E402

LENGTHS = (32, 128, 256, 512)


def per_token(model, repeats, rng):
    """Median seconds for the next token at each length: {length: (cached, recomputed)}.

    The lengths take turns, token by token, so a busy machine slows them all alike.
    """
    seqs = {n: rng.integers(0, model.vocab_size, n + repeats) for n in LENGTHS}
    caches = {n: model.new_cache() for n in LENGTHS}
    for n in LENGTHS:
        model.step(seqs[n][:n], caches[n])  # the prompt fills the cache
    cached = {n: [] for n in LENGTHS}
    full = {n: [] for n in LENGTHS}
    for i in range(repeats):
        for n in LENGTHS:
            t = n + i
            start = time.perf_counter()
            model.step(seqs[n][t:t + 1], caches[n])  # one new row per layer
            cached[n].append(time.perf_counter() - start)
            start = time.perf_counter()
            model.forward(seqs[n][:t + 1])  # everything again
            full[n].append(time.perf_counter() - start)
    return {n: (float(np.median(cached[n])), float(np.median(full[n]))) for n in LENGTHS}


def main():
    model = TinyLM(vocab_size=20, d_model=64, n_heads=2, n_layers=2, max_len=1024, seed=0)
    rng = np.random.default_rng(0)
    per_token(model, 3, rng)  # warm up
    print(f"TinyLM d_model=64, 2 heads, 2 layers, float64; BLAS threads {args.threads}; "
          f"median over {args.repeats} tokens\n")
    print(f"{'tokens':>6} | {'cached ms':>9} {'recompute ms':>12} {'speed-up':>8} | {'cached vs 32':>12}")
    rows = per_token(model, args.repeats, rng)
    base = rows[LENGTHS[0]][0]
    for n, (cached, full) in rows.items():
        print(f"{n:>6} | {1e3 * cached:9.3f} {1e3 * full:12.3f} {full / cached:7.1f}x | {cached / base:11.2f}x")
    print("\ntargets: cached >= 5x faster than recompute at 256 tokens; "
          "cached time per token within 1.5x between 32 and 512 tokens")
    print(f"measured: {rows[256][1] / rows[256][0]:.1f}x at 256; "
          f"{rows[512][0] / rows[32][0]:.2f}x from 32 to 512")


if __name__ == "__main__":
    main()
