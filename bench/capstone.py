"""How long check("capstone", ops) takes, for a correct set of ops and for one broken op of each kind,
and what running TinyLM through the learner's ops costs against attnlib's own layers (the same model, the
same table of ops, with the learner's functions adapted one sequence at a time).

    python bench/capstone.py

The check runs in a separate process and trains two 30-step models; a broken op adds
short single-op runs to find it. The check is meant to take under 30 s. Prints a table; never
asserts on seconds.
"""
import pathlib
import sys
import time

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "tests" / "grader"))

from attnlib import TinyLM  # noqa: E402
from attnlib.checks import CheckFailed, check  # noqa: E402
from attnlib.checks import capstone  # noqa: E402
from mutants import capstone as learner  # noqa: E402

CASES = [("all 14 ops correct", learner.ALL),
         ("gelu is a ReLU (forward)", {**learner.ALL, "gelu": learner.gelu_relu}),
         ("layer_norm_backward drops a term", {**learner.ALL,
                                               "layer_norm_backward": learner.layer_norm_backward_no_projection}),
         ("cache_step forgets the scale", {**learner.ALL, "cache_step": learner.cache_step_forgets_scale}),
         ("cross_entropy returns no gradient", {**learner.ALL, "cross_entropy": learner.cross_entropy_raises})]


def main():
    print(f"{'case':36} {'seconds':>8}  verdict")
    for label, ops in CASES:
        start = time.perf_counter()
        try:
            verdict = check("capstone", ops).status
        except CheckFailed as exc:
            verdict = f"{exc.diagnosis}: {exc.report.problems[0][:70]}"
        print(f"{label:36} {time.perf_counter() - start:8.1f}  {verdict}")

    t = capstone.task()
    batch = t.batch(capstone.BATCH, np.random.default_rng(0))
    times = {}
    for label, ops in (("attnlib's layers (ops=None)", None), ("ops={} (the same table)", {}),
                       ("the learner's ops", learner.ALL)):
        model = TinyLM(len(t.tokenizer), ops=ops, **capstone.MODEL)
        model.loss_and_grads(batch[0], batch[1])
        start = time.perf_counter()
        for _ in range(20):
            model.loss_and_grads(batch[0], batch[1])
        times[label] = (time.perf_counter() - start) / 20
    base = times["attnlib's layers (ops=None)"]
    print(f"\n{'one training step, batch 8 x 8 tokens':36} {'ms':>8}  vs attnlib's")
    for label, seconds in times.items():
        print(f"{label:36} {1e3 * seconds:8.2f}  {seconds / base:5.1f}x")


if __name__ == "__main__":
    main()
