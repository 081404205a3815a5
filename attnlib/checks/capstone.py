"""The capstone: the learner's own functions inside TinyLM, trained and generating, against attnlib's.

check("capstone", ops) first runs each op's own exercise check, as its notebook does:
training cannot show every mistake (Adam rescales each gradient, so a gradient off by
a constant factor may train alike; an input changed in place may never be read again).
Then it trains a small TinyLM on the cat sentences twice from the same seed, once with
attnlib's ops and once with the learner's, then generates greedily and by sampling with
each. It passes when every op passes its own check, the loss curves are within a
relative RTOL of each other at every step and the tokens are equal. The training rows
(SEQ_LEN words) are shorter than the positions the model holds (max_len), so that a
mistake in which position rows `embed` adds shows in training too, not only in generation.
Where the runs part, each of the learner's ops is put alone into attnlib's model: the
first one that alone makes the runs differ is named, trying those that fail their own
check first, then the rest in course order. An op the learner's model did not call
directly (a softmax, when their attention computes its own) is also tried alone before
a pass. Every run follows the same learning-rate schedule, that of the full STEPS-step
run, even when it stops early. The training runs in a separate process, and each op's
check runs the op in its own, as every check does.

With a `rope` among the ops, all of this is done again with the same model but
positions="rope", whose every head's q and k the learner's rope turns, and the other ops
that model can run (not the learner's multi_head_attention, transformer_block or
grouped_query_attention, which compute q and k without rotating them). With a
grouped_query_attention or grouped_cache_step, it is done again with n_kv_heads=1 (both
heads share one K/V group): the learner's grouped attention supplies each layer and their
grouped cache step generates (not their multi_head_attention or transformer_block, which
take a key per head). With a rolling_cache_step, it is done again with window=4 and n_sinks=1:
attnlib's windowed attention trains the model and the learner's rolling cache generates
(with the ops that model can run: not those that attend to every earlier position). The
first of the models whose runs part is reported.

The report names the op that alone parts the runs, if one does, then every op that
fails its own check (with that check's diagnosis), then the rest of what training
showed. Its diagnosis is the most specific id found: the own check's id of the op that
alone parts the runs, else that of the first op failing its own check, else what
training showed (op-changes-loss, ...), else op-fails-its-check (an op fails its own
check with no name for the mistake, and training does not show it).
"""
import contextlib
import re
import sys
import time

import numpy as np

from ..course import lesson
from ..data import SentenceTask
from ..model import TinyLM
from ..learner_ops import NAMES, ONE_KV_PER_HEAD, UNROTATED, WINDOWLESS, check as check_ops
from ..train import train
from .diagnoses import explain
from .report import Report
from .runner import call

NAME = "capstone"
GENERATION_ONLY = ("cache_step", "sample_next")  # the ops training never calls
MODEL = dict(d_model=16, n_heads=2, n_layers=2, max_len=8, seed=0)
# The models the ops are run in: TinyLM's options beyond MODEL, and the ops each one cannot run.
VARIANTS = {"learned": {}, "rope": {"positions": "rope"}, "grouped": {"n_kv_heads": 1},
            "window": {"window": 4, "n_sinks": 1}}
NEW_KINDS = ("rope", "grouped_query_attention", "grouped_cache_step", "rolling_cache_step")
REFUSED = {"learned": NEW_KINDS, "rope": UNROTATED + NEW_KINDS[1:],
           "grouped": ONE_KV_PER_HEAD + ("rope",) + NEW_KINDS[3:], "window": WINDOWLESS + NEW_KINDS[:3]}
SEQ_LEN = 7  # words per training row: fewer than max_len, so an embed that takes the wrong position rows parts at once
STEPS, BATCH, LR, WARMUP = 30, 8, 1e-2, 5
PROMPT, N_NEW = "the cat", 6
SAMPLE_SEEDS = range(1, 9)  # one sampled continuation per seed: a small change of the probabilities shows in a few
# On the loss, relative. Float64 ops agree with attnlib's to about 1e-15; an op that computes in float32 (which the
# exercise checks accept) moves the loss by about 1e-9, and every op in float32 by about 1e-7; the smallest mistakes
# in the blind set (an exact-erf GELU) move it by about 1e-6 within the 30 steps.
RTOL = 1e-6
TIME_LIMIT = 120.0

TODO = "None of your functions was found in your exercise notebooks yet: write some of them there first"
HINT1 = ("The model is the composition of your functions. Each must agree with attnlib's on every input the "
         "model gives it, or the loss drifts apart from the first step it is used.")
HINT2 = ("Open the exercise notebook of the op the report names and run its check there: that report shows the "
         "exact entries that differ.")
FORMULA = ("For every op in your dict: its own exercise check passes, and on every input the model feeds it yours "
           "and attnlib's agree to about 1e-9, so the two loss curves agree to 1e-6 at every step and the generated "
           "tokens are equal.")

DIAGNOSES = {
    "op-raised": "One of your functions raised an error inside the model, on inputs of the shapes the exercise "
                 "describes.",
    "op-changes-loss": "With this one function of yours in place of attnlib's, the training loss is different.",
    "op-changes-generation": "With this one function of yours in place of attnlib's, training is the same but "
                             "the generated tokens differ.",
    "ops-combined": "No single function of yours changes the model on its own, but together they do: two of "
                    "them disagree about shapes or conventions in a way each check alone cannot see.",
    "op-fails-its-check": "One of your functions does not pass its own exercise check, although training with it "
                          "does not show the mistake.",
}
NUDGES = {
    "op-raised": "Read the error message and the shapes of the arguments the model passed.",
    "op-changes-loss": "The report of check 16 (or of its check cell) names the function: run that function's own "
                       "check in its exercise notebook.",
    "op-changes-generation": "Run the check of the function the report names, in its exercise notebook: training "
                             "never showed its mistake, because training does not call it (the cache step, the "
                             "sampler) or gives it other inputs than generation does (one new token at a time).",
    "ops-combined": "Put your functions in one at a time and watch which pair makes the runs part.",
    "op-fails-its-check": "Run the check of the function the report names, in its exercise notebook: its report "
                          "shows the probe and the entries that differ.",
}


def task():
    return SentenceTask(seq_len=SEQ_LEN)


def train_steps(model, stop=STEPS):
    """The losses of attnlib.train.train(model, task(), STEPS, ...), stopping after `stop` steps: the learning
    rate still follows the STEPS-step schedule, so a short run is the beginning of the full one."""
    return np.array(train(model, task(), STEPS, lr=LR, batch_size=BATCH, seed=0, warmup=WARMUP, progress=False,
                          stop=stop))


def counted(ops):
    """(ops whose every call is counted, the counts by name)."""
    calls = dict.fromkeys(ops, 0)

    def wrap(name, fn):
        def op(*args, **kwargs):
            calls[name] += 1
            return fn(*args, **kwargs)
        return op
    return {name: wrap(name, fn) for name, fn in ops.items()}, calls


def run(ops, stop=STEPS, weights=None, variant="learned"):
    """(losses, greedy tokens, sampled tokens (one array per seed of SAMPLE_SEEDS), error, trained weights) of a
    run with these ops, trained for the first `stop` steps of the STEPS-step schedule. With weights given, no
    training: the model generates from those weights. variant: the model's options, a key of VARIANTS."""
    t = task()
    model = TinyLM(len(t.tokenizer), ops=dict(ops), **VARIANTS[variant], **MODEL)
    prompt = t.tokenizer.encode(PROMPT.split())
    losses = np.zeros(0)
    try:
        with np.errstate(all="ignore"):
            if weights is None:
                losses = train_steps(model, stop)
            else:
                model.params = {k: v.copy() for k, v in weights.items()}
            greedy = model.generate(prompt, N_NEW)
            sampled = [model.generate(prompt, N_NEW, temperature=1.0, rng=np.random.default_rng(seed))
                       for seed in SAMPLE_SEEDS]
    except Exception as exc:  # noqa: BLE001 - a learner's op may raise anything; it is reported, not raised
        return losses, None, None, f"{type(exc).__name__}: {str(exc)[:300]}", model.params
    return losses, greedy, sampled, None, model.params


def _apart(losses, ref_losses):
    """True at each step whose loss is not within a relative RTOL of attnlib's (or is not finite)."""
    with np.errstate(invalid="ignore"):
        return ~(np.abs(losses - ref_losses) <= RTOL * np.abs(ref_losses)) | ~np.isfinite(losses)


def largest_gap(losses, ref_losses):
    """The largest relative difference between two loss curves of the same length."""
    return float(np.max(np.abs(np.asarray(losses) - ref_losses) / np.abs(ref_losses)))


def loss_difference(losses, ref_losses, steps=STEPS):
    """'' when the first `steps` losses agree, else the first step where they part."""
    n = min(steps, len(losses), len(ref_losses))
    apart = _apart(losses[:n], ref_losses[:n])
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
    pairs = [("greedy generation", greedy, ref[1])] + [(f"generation sampled with seed {seed}", got, want)
                                                       for seed, got, want in zip(SAMPLE_SEEDS, sampled, ref[2])]
    for kind, got, want in pairs:
        if not np.array_equal(got, want):
            return f"training matches, but the {kind} differs: yours {words(got)!r}, attnlib's {words(want)!r}"
    return ""


def words(ids):
    return task().tokenizer.decode([int(i) for i in ids])


def first_step(losses, ref_losses):
    """The first step at which the losses part, or None when training matched."""
    n = min(len(losses), len(ref_losses))
    apart = _apart(losses[:n], ref_losses[:n])
    return int(np.argmax(apart)) if apart.any() else (n if n < len(ref_losses) else None)


def in_order(ops, first=()):
    """The names of the ops in course order, those in `first` (the ops failing their own check) ahead."""
    names = [n for n in NAMES if n in ops]
    return [n for n in names if n in first] + [n for n in names if n not in first]


def models(ops):
    """[(variant, the names of the ops that model runs)]: the model with learned positions, on every op it can run;
    with a rope given, then the model with positions="rope"; with a grouped op given, then the grouped model. A
    model with no op of its own kind, or with no op at all, is left out."""
    own = {"learned": (), "rope": ("rope",), "grouped": ("grouped_query_attention", "grouped_cache_step"),
           "window": ("rolling_cache_step",)}
    found = [(variant, [n for n in ops if n not in REFUSED[variant]]) for variant in VARIANTS
             if variant == "learned" or set(own[variant]) & set(ops)]
    return [(variant, names) for variant, names in found if names]


def culprit(ops, mine, ref, names, variant="learned"):
    """(name, what it does) of the first op of `names` that alone changes the run, or ('', '').

    Where training parted at step k, each op alone trains the first k + 1 steps of the same schedule. Where
    training matched, each op alone only generates, from the weights attnlib's run trained (equal to the
    learner's)."""
    k = first_step(mine[0], ref[0])
    for name in names:
        if k is None:
            why = difference(run({name: ops[name]}, weights=ref[4], variant=variant), ref)
        else:
            one = run({name: ops[name]}, stop=k + 1, variant=variant)
            why = f"the run stopped with {one[3]}" if one[3] else loss_difference(one[0], ref[0], k + 1)
        if why:
            return name, why
    return "", ""


def compare(ops, failing=()):
    """Everything the report needs, as plain values (it crosses a process boundary), for the first model of
    models(ops) whose runs part, else for the first model. Ops alone are tried in in_order(ops, failing): those
    that fail their own check first. The last value is that model's variant.

    `unused` lists the ops the learner's models did not call directly (their other functions do that work):
    when the runs agree, each of those is tried alone in the first model that runs it, and the first that alone
    changes the run is named."""
    start = time.perf_counter()
    wrapped, calls = counted(ops)
    names = in_order(ops, failing)
    runs = []
    for variant, used in models(ops):
        ref = run({}, variant=variant)
        mine = run({n: wrapped[n] for n in used}, variant=variant)
        runs.append((variant, used, ref, mine))
        found = difference(mine, ref)
        if not found:
            continue
        own = [n for n in names if n in used]
        name, why = culprit(ops, mine, ref, own, variant)
        if not name:  # no op alone parts within k + 1 steps: try each over the whole run
            name, why = next(((n, w) for n in own if (w := difference(run({n: ops[n]}, variant=variant), ref))),
                             ("", ""))
        return (found, name, why, [], ref[0], mine[0], words(ref[1]), words(ref[2][0]), time.perf_counter() - start,
                variant)
    unused = [n for n in names if not calls[n]]
    name, why = "", ""
    for n in unused:
        variant, _, ref, _ = next(r for r in runs if n in r[1])
        why = difference(run({n: ops[n]}, variant=variant), ref)
        if why:
            name = n
            break
    variant, _, ref, mine = runs[0]
    return ("", name, why, unused, ref[0], mine[0], words(ref[1]), words(ref[2][0]), time.perf_counter() - start,
            variant)


def own_checks(ops):
    """{name: its Report} of the ops that do not pass their own exercise check, in course order. Each check runs
    the op in a child process of its own, as in its notebook; a failing check's report is not displayed there."""
    from .grade import CheckFailed, check  # grade.py imports this module
    failing = {}
    with _undisplayed():
        for name in in_order(ops):
            try:
                report = check(name, ops[name])
            except CheckFailed as exc:
                report = exc.report
            if not report.passed:
                failing[name] = report
    return failing


def _undisplayed():
    """A context in which IPython's display() shows nothing (a no-op outside IPython)."""
    if "IPython" not in sys.modules:
        return contextlib.nullcontext()
    from IPython.utils.capture import capture_output
    return capture_output(stdout=False, stderr=False, display=True)


def _own(name, report):
    """The problem line for an op that fails its own check: its id and the first line of its explanation, or what
    its check saw when it has no id."""
    if report.status == "not-attempted":
        said = "it is not written yet (it raises NotImplementedError)"
    else:  # a grid a problem points to is in that check's report, not in this one
        seen = re.sub(r" \((see the grid|the grid shows output \d+)\)", "", (report.problems or ["it fails"])[0])
        said = (explain(report.diagnosis) or seen).splitlines()[0]
        said = f"{report.diagnosis} — {said}" if report.diagnosis else said
    return f"your {name} does not pass its own check ({lesson(name).stem}.ipynb): {said}"


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
    failing = own_checks(ops)
    outcome = call(compare, (ops, tuple(failing)), {}, ("ops", "failing"),
                   TIME_LIMIT if time_limit is None else time_limit)
    if outcome.kind != "ok":
        diagnosis = {"timeout": "timeout", "crashed": "crashed"}.get(outcome.kind, "raised-error")
        return _fail(failing, "", diagnosis, "training with your ops", [outcome.error or outcome.kind])
    found, name, why, unused, ref_losses, my_losses, greedy, sampled, seconds, variant = outcome.value
    options = "".join(f", {k}={v!r}" for k, v in VARIANTS[variant].items())
    model = ", ".join(f"{k}={v}" for k, v in MODEL.items()) + options
    setup = (f"training TinyLM({model}) for {STEPS} steps on the cat sentences (batches of {BATCH} rows of "
             f"{SEQ_LEN} words), then generating {N_NEW} tokens after {PROMPT!r}, greedy and sampled with "
             f"{len(SAMPLE_SEEDS)} seeds")
    refused = [n for n in REFUSED[variant] if n in ops and n not in NEW_KINDS]  # the learner's, set aside here
    if variant == "rope":
        setup += ", the model turning q and k with your rope"
    if variant == "grouped":
        setup += ", its two heads sharing one K/V group, with your grouped ops"
    if variant == "window":
        setup += ", its attention windowed (attnlib's) and its cache rolled by your rolling_cache_step"
    if refused:
        cannot = {"grouped": "take a key and value per head", "rope": "compute q and k without turning them",
                  "window": "attend to every earlier position"}[variant]
        setup += f" (attnlib's {_and(refused)} in place of yours, which {cannot})"
    again = {"rope": "with positions='rope', your rope turning every head's q and k",
             "grouped": "with n_kv_heads=1, your grouped attention and cache step running the shared K/V group",
             "window": "with window=4 and n_sinks=1, your rolling cache keeping the sink and the newest rows"}
    later = [again[v] for v, _ in models(ops)[1:]]
    rotated = "".join(f" Then the same again {text}: the same losses and tokens as attnlib's." for text in later)
    if not found and not name:
        each = "was" if len(unused) == 1 else "were each"
        alone = (f" Your {_and(unused)}, which the model did not call directly, {each} also tried alone in attnlib's "
                 "model and changed nothing." if unused else "")
        gap = largest_gap(my_losses, ref_losses)  # below 1e-12 its digits are the CPU's rounding: not shown
        agree = (f"within a relative {RTOL:g} of attnlib's at every step (the largest gap is "
                 f"{'below 1e-12' if gap < 1e-12 else f'{gap:.0e}'})")
        which = f" with{options[1:]}" if options else ""
        trained = (f"trained the model{which}: loss {ref_losses[0]:.3f} -> {ref_losses[-1]:.3f} over {STEPS} steps, "
                   f"{agree}; "
                   f"it generated {greedy!r} (greedy) and {sampled!r} (sampled, the first of {len(SAMPLE_SEEDS)}), "
                   "the same tokens as attnlib's")
        if not failing:
            return Report(NAME, "pass", summary=(f"your {len(ops)} ops ({', '.join(ops)}) each pass their own check "
                                                 f"and {trained} ({seconds:.1f} s).{rotated}{alone}"))
        return _fail(failing, "", "", f"each op's own check, then {setup}",
                     [f"with all your ops, training does not show it: they {trained}"])
    if name:
        diagnosis = ("op-raised" if why.startswith("the run stopped") else
                     "op-changes-loss" if why.startswith("the loss") else "op-changes-generation")
        together = (f"with all your ops: {found}" if found else
                    f"with all your ops the runs agree, but the model did not call your {name} directly (your other "
                    "functions do its work), so it was tried alone")
        problems = [f"your {name} alone, in attnlib's model, changes it: {why}", together]
        if diagnosis == "op-changes-generation":
            problems.append(_generation_only(name))
    else:
        diagnosis, problems = "ops-combined", [f"with all your ops: {found}",
                                               "no single op of yours changes the run on its own"]
        if found.startswith("training matches"):
            problems.append("training matches and only generation differs: two of your functions disagree on what "
                            "generation gives them, one new token at a time")
    return _fail(failing, name, diagnosis, f"each op's own check, then {setup}" if failing else setup, problems)


def _fail(failing, name, diagnosis, probe, problems):
    """A failing Report on `problems`, what training showed (its id `diagnosis`, '' when training agreed; the first
    problem names `name`, the op that alone parts the runs, if any), with a line for each op failing its own check
    after that first one (`name` ahead, then in course order). The report's id is the most specific one found (see
    the module's docstring); the nudge is that of the op's own check it came from."""
    first = sorted(failing, key=lambda n: n != name)
    by = next((n for n in first if failing[n].diagnosis), None)
    nudge = (f"In your {by} ({lesson(by).stem}.ipynb, where its check shows the probe it fails): "
             f"{failing[by].hint2}" if by else "")
    k = 1 if name else 0
    return Report(NAME, "fail", diagnosis=failing[by].diagnosis if by else diagnosis or "op-fails-its-check",
                  probe=probe, problems=problems[:k] + [_own(n, failing[n]) for n in first] + problems[k:],
                  hints=(HINT1, HINT2), formula=FORMULA, nudge=nudge)


def _generation_only(name):
    """Where to look when training matched and `name` alone changes the generated tokens."""
    where = f"run its check in {lesson(name).stem}.ipynb"
    if name in GENERATION_ONLY:
        return f"training never calls your {name}, only generation does, so only the tokens show it: {where}"
    return (f"training calls your {name} too, and matches: it differs only on what generation gives it, one new "
            f"token at a time; {where}, and try it on a single token as generation calls it")


def _and(names):
    """'a', 'a and b', 'a, b and c'."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
