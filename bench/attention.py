"""Benchmark: attnlib attention vs PyTorch CPU, vs the two-matmul floor, and memory.

    python bench/attention.py            # full table (n up to 4096)
    python bench/attention.py --quick    # n in {128, 512} only

For each shape (n tokens, d_head = 64, causal) it prints, all measured in this run:
  ours     attnlib.attention, median seconds
  torch    torch.nn.functional.scaled_dot_product_attention, same thread count
  floor    the two products attention cannot avoid: Q @ K.T and A @ V
  torch/ours   throughput ratio (>= 0.8 is the target at n = 1024, float32)
  ours/floor   overhead of the mask and softmax (<= 1.6 is the target)
  peak MB      tracemalloc peaks: attention without a mask (it builds the whole n x n
               matrix), causal attention (it takes queries in row blocks, so it holds
               at most 128 x n scores), and tiled_attention (one tile at a time);
               the target is tiled <= 1/8 of the full n x n matrix at n = 4096
Ratios, never assertions: times vary by machine, so nothing here fails.
"""
import argparse
import os
import statistics
import sys
import time
import tracemalloc

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import attnlib as at  # noqa: E402

D_HEAD = 64


def median_time(fn, repeats):
    fn()  # warm up
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def peak_mb(fn):
    tracemalloc.start()
    fn()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / 2**20


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="only n = 128 and 512")
    args = parser.parse_args(argv)
    sizes = (128, 512) if args.quick else (128, 512, 1024, 4096)
    try:
        import torch
    except ImportError:
        torch = None
    threads = os.cpu_count()
    if torch is not None:
        torch.set_num_threads(threads)
    print(f"attention benchmark: causal, d_head={D_HEAD}, {threads} threads, numpy {np.__version__}, "
          f"torch {torch.__version__ if torch else 'not installed (pip install -r requirements-parity.txt)'}")
    header = (f"{'n':>5} {'dtype':>7} | {'ours ms':>8} {'torch ms':>8} {'floor ms':>8} | "
              f"{'torch/ours':>10} {'ours/floor':>10} | "
              f"{'full MB':>8} {'causal MB':>9} {'tiled MB':>8} {'tiled/full':>10}")
    print(header)
    print("-" * len(header))
    rng = np.random.default_rng(0)
    for n in sizes:
        for dtype in (np.float32, np.float64):
            Q, K, V = (rng.normal(size=(n, D_HEAD)).astype(dtype) for _ in range(3))
            repeats = max(3, int(2e7 // (n * n)))
            ours = median_time(lambda: at.attention(Q, K, V), repeats)
            A = at.attention_weights(Q, K)
            floor = median_time(lambda: (Q @ K.T, A @ V), repeats)
            if torch is not None:
                q, k, v = (torch.from_numpy(a) for a in (Q, K, V))
                theirs = median_time(lambda: torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True),
                                     repeats)
                torch_ms, ratio = f"{theirs * 1e3:8.2f}", f"{theirs / ours:10.2f}"
            else:
                torch_ms, ratio = f"{'-':>8}", f"{'-':>10}"
            mem_full = peak_mb(lambda: at.attention(Q, K, V, causal=False))
            mem_causal = peak_mb(lambda: at.attention(Q, K, V))
            mem_tiled = peak_mb(lambda: at.tiled_attention(Q, K, V))
            print(f"{n:5d} {np.dtype(dtype).name:>7} | {ours * 1e3:8.2f} {torch_ms} {floor * 1e3:8.2f} | "
                  f"{ratio} {ours / floor:10.2f} | {mem_full:8.1f} {mem_causal:9.1f} {mem_tiled:8.1f} "
                  f"{mem_tiled / mem_full:10.3f}")
    print("targets: torch/ours >= 0.8 at n=1024 float32; ours/floor <= 1.6; tiled/full <= 0.125 at n=4096")


if __name__ == "__main__":
    main()
