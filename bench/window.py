"""What a rolling cache saves against the growing one; and, with --seeds, notebook 18's sinks experiment again.

    python bench/window.py                 # the cost table
    python bench/window.py --seeds 6       # also: the sentences preset (RoPE) run three ways, seeds 0..5

The cost table, for a TinyLM of d_model 256, 4 heads, 4 layers, float32, on one BLAS thread, every number
measured in this run: one cached generation step with t tokens already seen, through the growing cache of
lesson 14 and through a rolling cache of window W = 256 with 4 sinks (TinyLM(window=256, n_sinks=4)).
  grow ms, roll ms   the median time of that step
  roll/grow          their ratio: the growing step reads t rows, the rolling one at most W (plus the copy that
                     cuts the cache back), so the ratio falls as t grows past W
  grow KiB/token, roll KiB/token   the cache's bytes over the tokens it has seen: the growing cache needs the same
                     bytes for every token, the rolling one a fixed W rows spread over ever more tokens
Ratios, never assertions: times vary by machine, so nothing here fails.

--seeds N trains the "sentences" preset with RoPE (float32, as notebook 18) from seeds 0..N-1, and prints the mean
next-token loss on 32 held-out rows of 192 tokens from position 64 on, with full attention, a window of 16, and a
window of 16 with 4 sinks; and the largest mean weight a head puts on position 0 at the training length, over an
even share of the row.
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from attnlib import TinyLM  # noqa: E402
from attnlib.train import blas_threads  # noqa: E402
from attention import median_time  # noqa: E402  (bench/attention.py, beside this file)

SIZES = dict(vocab_size=64, d_model=256, n_heads=4, n_layers=4, dtype=np.float32, positions="rope")
WINDOW, SINKS = 256, 4


def step_cost(seen, repeats):
    print(f"one cached generation step, TinyLM d_model 256, 4 heads, 4 layers, float32; rolling cache W = {WINDOW} "
          f"with {SINKS} sinks (medians of {repeats})")
    print(f"{'seen':>6} {'grow ms':>9} {'roll ms':>9} {'roll/grow':>10} {'grow KiB/token':>15} {'roll KiB/token':>15}")
    for t in seen:
        times, per_token = {}, {}
        for kind, window in (("grow", {}), ("roll", dict(window=WINDOW, n_sinks=SINKS))):
            model = TinyLM(max_len=t + 1, **SIZES, **window)
            cache = model.new_cache()
            for start in range(0, t, 512):  # the prompt, in chunks: no (t, t) scores at once
                model.step(np.random.default_rng(start).integers(0, 64, min(512, t - start)), cache)

            def one_step(model=model, cache=cache):
                cache.length = t  # the same next position again; the rolling cache keeps its W rows
                model.step(np.array([3]), cache)
            times[kind] = median_time(one_step, repeats)
            per_token[kind] = cache.nbytes / t / 1024 if kind == "roll" else cache.keys(0).nbytes * 2 * 4 / t / 1024
        print(f"{t:>6} {1e3 * times['grow']:>9.3f} {1e3 * times['roll']:>9.3f} {times['roll'] / times['grow']:>10.2f} "
              f"{per_token['grow']:>15.2f} {per_token['roll']:>15.2f}")


def sinks(seeds):
    from attnlib.data import SentenceTask
    from attnlib.train import PRESETS, train_task
    long = SentenceTask(seq_len=192).batch(32, np.random.default_rng(7))
    sizes = dict(positions="rope", max_len=192, dtype=np.float32)
    print("\nthe sentences preset with RoPE, trained on rows of 24; loss on 32 held-out rows of 192, positions 64-191")
    print(f"{'seed':>4} {'full':>6} {'window 16':>10} {'+4 sinks':>9} {'max weight on 0 / even share':>29} {'s':>5}")
    for seed in range(seeds):
        r = train_task("sentences", seed=seed, progress=False, model_kwargs=sizes)
        loss = {}
        for name, window in (("full", {}), ("window", dict(window=16)), ("sinks", dict(window=16, n_sinks=4))):
            m = TinyLM(r.model.vocab_size, **PRESETS["sentences"]["model"], **sizes, **window)
            m.params = r.model.params
            z = m.forward(long.tokens).astype(np.float64)
            z -= z.max(axis=-1, keepdims=True)
            logp = z - np.log(np.exp(z).sum(axis=-1, keepdims=True))
            loss[name] = -np.take_along_axis(logp, long.targets[..., None], axis=-1)[:, 64:].mean()
        A = r.model.attention_maps(long.tokens[:, :24])[..., 8:, 0].mean(axis=(0, 3))  # (layers, heads)
        even = np.mean(1 / np.arange(9, 25))
        print(f"{seed:>4} {loss['full']:>6.2f} {loss['window']:>10.2f} {loss['sinks']:>9.2f} {A.max() / even:>29.2f} "
              f"{r.seconds:>5.1f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--seeds", type=int, default=0, help="also run the sinks experiment from this many seeds")
    args = parser.parse_args()
    with blas_threads(1):  # one thread: on a shared machine more threads mostly measure the neighbours
        step_cost((256, 1024, 4096), args.repeats)
        if args.seeds:
            sinks(args.seeds)
