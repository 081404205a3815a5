"""The capstone: the learner's own functions inside TinyLM, trained and generating, against attnlib's.

check("capstone", ops) trains a small TinyLM on the cat sentences twice from the
same seed, once with attnlib's ops and once with the learner's, then generates
greedily and by sampling with each. Equal loss curves and equal tokens pass.
Otherwise each of the learner's ops is put alone into attnlib's model: the first
one (in course order) that alone makes the runs differ is named. An op the
learner's model did not call directly (a softmax, when their attention computes
its own) is also tried alone before a pass. Every run follows the same learning-rate
schedule, that of the full STEPS-step run, even when it stops early. It all runs
in a separate process, as every check does.
"""
import time

import numpy as np

from ..data import SentenceTask
from ..model import TinyLM
from ..ops import OPS, check_ops
from ..optim import Adam
from ..train import blas_threads, lr_at
from .report import Report
from .runner import call

NAME = "capstone"
MODEL = dict(d_model=16, n_heads=2, n_layers=2, max_len=8, seed=0)
STEPS, BATCH, LR, WARMUP = 30, 8, 1e-2, 5
PROMPT, N_NEW = "the cat", 6
RTOL = 1e-6  # on the loss: float64 learners agree to ~1e-12; any real difference is far larger
TIME_LIMIT = 120.0

TODO = "None of your functions was found in your exercise notebooks yet: write some of them there first"
HINT1 = ("The model is the composition of your functions. Each must agree with attnlib's on every input the "
         "model gives it, or the loss drifts apart from the first step it is used.")
HINT2 = ("Open the exercise notebook of the op the report names and run its check there: that report shows the "
         "exact entries that differ.")
FORMULA = ("For every op in your dict and every input the model feeds it: yours and attnlib's agree to about "
           "1e-9, so the two loss curves agree to 1e-6 at every step and the generated tokens are equal.")

DIAGNOSES = {
    "op-raised": "One of your functions raised an error inside the model, on inputs of the shapes the exercise "
                 "describes.",
    "op-changes-loss": "With this one function of yours in place of attnlib's, the training loss is different.",
    "op-changes-generation": "With this one function of yours in place of attnlib's, training is the same but "
                             "the generated tokens differ.",
    "ops-combined": "No single function of yours changes the model on its own, but together they do: two of "
                    "them disagree about shapes or conventions in a way each check alone cannot see.",
}
NUDGES = {
    "op-raised": "Read the error message and the shapes of the arguments the model passed.",
    "op-changes-loss": "The report of check 15 (or of its check cell) names the function: run that function's own "
                       "check in its exercise notebook.",
    "op-changes-generation": "Look at the functions only generation uses: your cache step and your sampling.",
    "ops-combined": "Put your functions in one at a time and watch which pair makes the runs part.",
}


def task():
    return SentenceTask(seq_len=MODEL["max_len"])


def train_steps(model, stop=STEPS):
    """The losses of attnlib.train.train(model, task(), STEPS, lr=LR, batch_size=BATCH, seed=0, warmup=WARMUP),
    step for step, but stopping after `stop` steps: the learning rate still follows the STEPS-step schedule, so
    a short run is the beginning of the full one."""
    t, rng = task(), np.random.default_rng(0)
    optimizer = Adam(model.params, lr=LR)
    losses = []
    with blas_threads(1):
        for step in range(stop):
            tokens, targets, _ = t.batch(BATCH, rng)
            loss, grads = model.loss_and_grads(tokens, targets)
            optimizer.step(grads, lr=lr_at(step, STEPS, LR, WARMUP))
            losses.append(loss)
    return np.array(losses)


def counted(ops):
    """(ops whose every call is counted, the counts by name)."""
    calls = dict.fromkeys(ops, 0)

    def wrap(name, fn):
        def op(*args, **kwargs):
            calls[name] += 1
            return fn(*args, **kwargs)
        return op
    return {name: wrap(name, fn) for name, fn in ops.items()}, calls


def run(ops, stop=STEPS, weights=None):
    """(losses, greedy tokens, sampled tokens, error, trained weights) of a run with these ops, trained for the
    first `stop` steps of the STEPS-step schedule. With weights given, no training: the model generates from
    those weights."""
    t = task()
    model = TinyLM(len(t.tokenizer), ops=dict(ops), **MODEL)
    prompt = t.tokenizer.encode(PROMPT.split())
    losses = np.zeros(0)
    try:
        with np.errstate(all="ignore"):
            if weights is None:
                losses = train_steps(model, stop)
            else:
                model.params = {k: v.copy() for k, v in weights.items()}
            greedy = model.generate(prompt, N_NEW)
            sampled = model.generate(prompt, N_NEW, temperature=1.0, rng=np.random.default_rng(1))
    except Exception as exc:  # noqa: BLE001 - a learner's op may raise anything; it is reported, not raised
        return losses, None, None, f"{type(exc).__name__}: {str(exc)[:300]}", model.params
    return losses, greedy, sampled, None, model.params


def loss_difference(losses, ref_losses, steps=STEPS):
    """'' when the first `steps` losses agree, else the first step where they part."""
    n = min(steps, len(losses), len(ref_losses))
    apart = ~np.isclose(losses[:n], ref_losses[:n], rtol=RTOL, atol=1e-9) | ~np.isfinite(losses[:n])
    if not apart.any():
        return ""
    k = int(np.argmax(apart))
    return f"the loss differs from step {k}: yours {losses[k]:.6f}, attnlib's {ref_losses[k]:.6f}"


def difference(mine, ref):
    """'' when two runs agree (losses and tokens), else one line saying where they part."""
    losses, greedy, sampled, error, _ = mine
    if error:
        return f"the run stopped with {error}"
    found = loss_difference(losses, ref[0])
    if found:
        return found
    for kind, got, want in (("greedy", greedy, ref[1]), ("sampled", sampled, ref[2])):
        if not np.array_equal(got, want):
            return f"training matches, but {kind} generation differs: yours {words(got)!r}, attnlib's {words(want)!r}"
    return ""


def words(ids):
    return task().tokenizer.decode([int(i) for i in ids])


def first_step(losses, ref_losses):
    """The first step at which the losses part, or None when training matched."""
    n = min(len(losses), len(ref_losses))
    apart = ~np.isclose(losses[:n], ref_losses[:n], rtol=RTOL, atol=1e-9) | ~np.isfinite(losses[:n])
    return int(np.argmax(apart)) if apart.any() else (n if n < len(ref_losses) else None)


def culprit(ops, mine, ref):
    """(name, what it does) of the first op in course order that alone changes the run, or ('', '').

    Where training parted at step k, each op alone trains the first k + 1 steps of the same schedule. Where
    training matched, each op alone only generates, from the weights attnlib's run trained (equal to the
    learner's)."""
    k = first_step(mine[0], ref[0])
    for name in (n for n in OPS if n in ops):
        if k is None:
            why = difference(run({name: ops[name]}, weights=ref[4]), ref)
        else:
            one = run({name: ops[name]}, stop=k + 1)
            why = f"the run stopped with {one[3]}" if one[3] else loss_difference(one[0], ref[0], k + 1)
        if why:
            return name, why
    return "", ""


def compare(ops):
    """Everything the report needs, as plain values (it crosses a process boundary).

    `unused` lists the ops the learner's model did not call directly (their other functions do that work):
    when the runs agree, each of those is tried alone, and the first that alone changes the run is named."""
    start = time.perf_counter()
    ref = run({})
    wrapped, calls = counted(ops)
    mine = run(wrapped)
    unused = [n for n in OPS if n in ops and not calls[n]]
    found = difference(mine, ref)
    name, why = culprit(ops, mine, ref) if found else ("", "")
    if found and not name:  # no op alone parts within k + 1 steps: try each over the whole run
        name, why = next(((n, w) for n in OPS if n in ops and (w := difference(run({n: ops[n]}), ref))), ("", ""))
    if not found:
        name, why = next(((n, w) for n in unused if (w := difference(run({n: ops[n]}), ref))), ("", ""))
    return (found, name, why, unused, ref[0], mine[0], words(ref[1]), words(ref[2]), time.perf_counter() - start)


def grade(ops, time_limit=None):
    """A Report: pass, not attempted (no op given) or fail naming the op."""
    hints = (HINT1, HINT2)
    try:
        ops = check_ops(ops)
    except ValueError as exc:
        return Report(NAME, "fail", diagnosis="wrong-type", probe="(none)", problems=[str(exc)], hints=hints,
                      formula=FORMULA)
    if not ops:
        return Report(NAME, "not-attempted", todo=TODO)
    outcome = call(compare, (ops,), {}, ("ops",), TIME_LIMIT if time_limit is None else time_limit)
    if outcome.kind != "ok":
        diagnosis = {"timeout": "timeout", "crashed": "crashed"}.get(outcome.kind, "raised-error")
        return Report(NAME, "fail", diagnosis=diagnosis, probe="training with your ops",
                      problems=[outcome.error or outcome.kind], hints=hints, formula=FORMULA)
    found, name, why, unused, ref_losses, my_losses, greedy, sampled, seconds = outcome.value
    setup = (f"training TinyLM({', '.join(f'{k}={v}' for k, v in MODEL.items())}) for {STEPS} steps on the cat "
             f"sentences (batch {BATCH}), then generating {N_NEW} tokens after {PROMPT!r}, greedy and sampled")
    if not found and not name:
        each = "was" if len(unused) == 1 else "were each"
        alone = (f" Your {_and(unused)}, which the model did not call directly, {each} also tried alone in attnlib's "
                 "model and changed nothing." if unused else "")
        return Report(NAME, "pass", summary=(
            f"your {len(ops)} ops ({', '.join(ops)}) trained the model: loss {ref_losses[0]:.3f} -> "
            f"{ref_losses[-1]:.3f} over {STEPS} steps, equal to attnlib's at every step; it generated "
            f"{greedy!r} (greedy) and {sampled!r} (sampled), the same tokens ({seconds:.1f} s).{alone}"))
    if name:
        diagnosis = ("op-raised" if why.startswith("the run stopped") else
                     "op-changes-loss" if why.startswith("the loss") else "op-changes-generation")
        together = (f"with all your ops: {found}" if found else
                    f"with all your ops the runs agree, but the model did not call your {name} directly (your other "
                    "functions do its work), so it was tried alone")
        problems = [f"your {name} alone, in attnlib's model, changes it: {why}", together]
    else:
        diagnosis, problems = "ops-combined", [f"with all your ops: {found}",
                                               "no single op of yours changes the run on its own"]
    return Report(NAME, "fail", diagnosis=diagnosis, probe=setup, problems=problems, hints=hints, formula=FORMULA)


def _and(names):
    """'a', 'a and b', 'a, b and c'."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
