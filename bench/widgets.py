"""Benchmark: the latency of one explorer update (recompute + re-render).

    python bench/widgets.py
    python bench/widgets.py --repeats 5

For each explorer, at n = 6 and n = 12 tokens, one control is changed from Python
exactly as a click would change it; the time covers the pure recomputation, the
HTML (or PNG) rendering and the widget value updates. The browser's own drawing
is not included. Targets: median <= 20 ms for table views, <= 150 ms for
matplotlib views. Medians are printed with a verdict; nothing here fails.

Two clocks: wall time (what a learner waits for) and this process's CPU time
(the work itself, which other programs sharing the machine do not inflate).
The verdict uses wall time unless the load average is above the number of cores,
when wall times measure the neighbours more than the explorer; it then says so.
"""
import argparse
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from attnlib.viewers import widgets  # noqa: E402

SENTENCES = {6: "the cat sat on the mat", 12: "the cat sat on the mat and the dog lay by it"}
TARGET_MS = {"table": 20.0, "matplotlib": 150.0}


def cases(n):
    """(explorer label, kind, explorer, control name, two values to alternate) at n tokens."""
    rng = np.random.default_rng(n)
    sentence = SENTENCES[n]
    A_stack, tokens = widgets.random_stack_maps(sentence, n_layers=2, n_heads=2)
    return [
        ("projection", "table", widgets.projection_explorer(rng.uniform(size=n), rng.uniform(-1, 1, (n, n))),
         "x0", (0.5, -0.5)),
        ("batch", "table", widgets.batch_explorer(rng.uniform(size=(n, 6)), rng.uniform(-1, 1, (6, 6))),
         "value", (1.5, -1.5)),
        ("mixing", "table", widgets.mixing_explorer(rng.uniform(size=(n, 6))), "row", (n - 1, n // 2)),
        ("similarity", "table", widgets.similarity_explorer(sentence=sentence), "q0", (1.0, -1.0)),
        ("softmax", "table", widgets.softmax_explorer(rng.normal(size=n)), "temperature", (0.3, 3.0)),
        ("attention (causal)", "table", widgets.attention_explorer(sentence), "causal", (False, True)),
        ("attention (step)", "table", widgets.attention_explorer(sentence), "step", (5, 6 + n * n)),
        ("heads-layers", "table", widgets.heads_layers_explorer(A_stack, tokens), "head", (1, 0)),
        ("heads-layers heatmap", "matplotlib", widgets.heads_layers_explorer(A_stack, tokens, view="heatmap"),
         "head", (1, 0)),
        ("kv-cache", "table", widgets.kv_cache_explorer(sentence), "step", (n, n - 1)),
        ("rope", "table", widgets.rope_explorer(sentence), "shift", (7, 70)),
        ("gqa", "table", widgets.gqa_explorer(n_heads=4 * n, n_kv_heads=n), "kv", (n // 2, n)),
        ("window", "table", widgets.window_explorer(sentence, window=max(n // 2, 1), n_sinks=1), "step", (n, n // 2)),
    ]


def median_ms(explorer, control, values, repeats):
    """(wall ms, cpu ms): medians over `repeats` updates of one control."""
    widget = explorer.controls[control]
    widget.value = values[1]  # warm up
    wall, cpu = [], []
    for k in range(repeats):
        w0, c0 = time.perf_counter(), time.process_time()
        widget.value = values[k % 2]
        wall.append(time.perf_counter() - w0)
        cpu.append(time.process_time() - c0)
    assert explorer.error is None, explorer.error
    return 1e3 * statistics.median(wall), 1e3 * statistics.median(cpu)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=21)
    args = parser.parse_args(argv)
    cores = os.cpu_count()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else 0.0
    busy = load > cores
    print(f"explorer update latency: median of {args.repeats} updates, {cores} cores, "
          f"load average {load:.1f}")
    if busy:
        print("the machine is busy (load > cores): the verdict uses CPU time, wall time is shown beside it")
    rows = {}
    for n in SENTENCES:
        for label, kind, explorer, control, values in cases(n):
            rows.setdefault((label, kind), {})[n] = median_ms(explorer, control, values, args.repeats)
    print(f"{'explorer':<22} {'kind':<11} {'n=6 wall':>9} {'n=12 wall':>10} {'n=6 cpu':>8} {'n=12 cpu':>9} "
          f"{'target':>7}  verdict")
    for (label, kind), by_n in rows.items():
        target = TARGET_MS[kind]
        judged = max(by_n[n][1 if busy else 0] for n in by_n)
        verdict = "ok" if judged <= target else "over target"
        (wall6, cpu6), (wall12, cpu12) = by_n[6], by_n[12]
        print(f"{label:<22} {kind:<11} {wall6:9.1f} {wall12:10.1f} {cpu6:8.1f} {cpu12:9.1f} "
              f"{target:7.0f}  {verdict}")


if __name__ == "__main__":
    main()
