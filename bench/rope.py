"""What RoPE costs, against the attention it feeds; and, with --seeds, what it buys (notebook 16's comparison).

    python bench/rope.py                 # the cost table
    python bench/rope.py --seeds 6       # also: the look_back preset trained three ways, seeds 0..5

The cost table, for one causal attention layer of n_heads = 4 heads of d_head = 64 on n tokens, float32, on
one BLAS thread, every number measured in this run:
  rope      rotating the queries and the keys of every head (attnlib.positions.rotate_pairs, tables ready)
  attend    the attention itself on those rotated rows (attnlib.attention.attend)
  rope/attend   the share the rotation adds to the attention it feeds: it is O(n d), attention O(n^2 d), so
                the ratio falls as n grows
  step      one cached generation step of a RoPE TinyLM (d_model 256, 4 layers) with t tokens cached
  step/learned  the same step over the same model with learned positions: what rotating each new q and k costs
Ratios, never assertions: times vary by machine, so nothing here fails.

--seeds N trains the "look_back" preset with positions learned, sinusoid and rope from seeds 0..N-1 and prints
the accuracy on rows of 16 (as trained), on rows of 32, and on the positions 16-31 alone.
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from attnlib import TinyLM  # noqa: E402
from attnlib.attention import attend  # noqa: E402
from attnlib.positions import rotate_pairs, rotation_tables  # noqa: E402
from attnlib.train import blas_threads  # noqa: E402
from attention import median_time  # noqa: E402  (bench/attention.py, beside this file)

N_HEADS, D_HEAD = 4, 64


def cost(sizes, repeats):
    rng = np.random.default_rng(0)
    print(f"one causal layer, {N_HEADS} heads of {D_HEAD}, float32 (medians of {repeats})")
    print(f"{'n':>6} {'rope ms':>9} {'attend ms':>10} {'rope/attend':>12}")
    for n in sizes:
        Q, K, V = (rng.normal(size=(N_HEADS, n, D_HEAD)).astype(np.float32) for _ in range(3))
        cos, sin = rotation_tables(n, D_HEAD, dtype=np.float32)
        t_rope = median_time(lambda: (rotate_pairs(Q, cos, sin), rotate_pairs(K, cos, sin)), repeats)
        Qr, Kr = rotate_pairs(Q, cos, sin), rotate_pairs(K, cos, sin)
        t_attend = median_time(lambda: attend(Qr, Kr, V), repeats)
        print(f"{n:>6} {1e3 * t_rope:>9.2f} {1e3 * t_attend:>10.2f} {t_rope / t_attend:>12.3f}")


def step_cost(cached, repeats):
    print(f"\none cached generation step, TinyLM d_model 256, {N_HEADS} heads, 4 layers, float32 "
          f"(medians of {repeats})")
    print(f"{'cached':>6} {'rope ms':>9} {'learned ms':>11} {'step/learned':>13}")
    for t in cached:
        times = {}
        for positions in ("rope", "learned"):
            model = TinyLM(64, 256, N_HEADS, 4, t + 1, dtype=np.float32, positions=positions)
            prompt = np.random.default_rng(1).integers(0, 64, t)
            cache = model.new_cache()
            model.step(prompt, cache)

            def one_step(model=model, cache=cache):
                cache.length = t  # write the same next position again
                model.step(np.array([3]), cache)
            times[positions] = median_time(one_step, repeats)
        print(f"{t:>6} {1e3 * times['rope']:>9.3f} {1e3 * times['learned']:>11.3f} "
              f"{times['rope'] / times['learned']:>13.2f}")


def accuracies(seeds):
    from attnlib.data import LookBackTask
    from attnlib.train import accuracy, train_task
    short = LookBackTask(16, 8).batch(512, np.random.default_rng(1))
    long = LookBackTask(32, 8).batch(512, np.random.default_rng(2))
    print("\nthe look_back preset (trained on rows of 16), accuracy on 512 held-out rows")
    print(f"{'seed':>4} {'positions':>9} {'rows of 16':>11} {'rows of 32':>11} {'positions 16-31':>16} {'s':>5}")
    for seed in range(seeds):
        for kind in ("learned", "sinusoid", "rope"):
            r = train_task("look_back", seed=seed, progress=False, model_kwargs=dict(positions=kind))
            right = (r.model.forward(long.tokens).argmax(axis=-1) == long.targets)[:, 16:]
            print(f"{seed:>4} {kind:>9} {accuracy(r.model, short):>11.2f} {accuracy(r.model, long):>11.2f} "
                  f"{right.mean():>16.2f} {r.seconds:>5.1f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--seeds", type=int, default=0, help="also train the look_back preset from this many seeds")
    args = parser.parse_args()
    with blas_threads(1):  # one thread: on a shared machine more threads mostly measure the neighbours
        cost((128, 512, 2048), args.repeats)
        step_cost((64, 512), args.repeats)
        if args.seeds:
            accuracies(args.seeds)
