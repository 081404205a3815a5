"""An exercise's reference written once, with the choices a learner makes in it; its wrong neighbours generated.

A pipeline is the exercise's function with one more argument, `c`. Wherever a learner picks something (an axis,
a scale, the offset of a mask, which operand is transposed, the order of two steps), the pipeline asks `c`:

    axis = c("softmax axis", right=axis, softmax_wrong_axis=0, softmax_whole_matrix=None)

The first option is the right one; every other option is named by its diagnosis id (underscores for hyphens).
Run with no choice made, the pipeline is the reference. `name` runs it with one option changed, then two, and
names the learner's mistake by the neighbours that reproduce the learner's output on every probe. A choice's
nudge (NUDGES) points at the choice, not at one wrong option of it.

A gradient lists its terms instead (`c.terms`): each term is a choice of coefficient (1 right; 0 missing,
-1 sign flipped, 2 doubled, 0.5 halved), and `fit_terms` fits any coefficients to the learner's gradient.
"""
import builtins
import functools
import itertools

import numpy as np

from .runner import attempt, close, quiet

SCALES = {0.0: "missing", -1.0: "sign-flipped", 2.0: "doubled", 0.5: "halved"}  # a term's wrong coefficients
MAX_PAIRS = 3000  # neighbours with two choices changed, at most, per diagnosis


class Choices:
    """What a pipeline asks: the chosen option of each choice (the first, right one unless `chosen` says otherwise).
    `met` records every choice asked with its wrong options, so the neighbours follow the branches taken; `terms`
    records the last value of every gradient term, for fit_terms."""

    def __init__(self, chosen=None):
        self.chosen = dict(chosen or {})
        self.met = {}
        self.recorded = {}

    def __call__(self, choice, **options):
        """The value of the chosen option."""
        self.met.setdefault(choice, tuple(options)[1:])
        option = self.chosen.get(choice)
        return options[option] if option in options else next(iter(options.values()))

    def step(self, choice, **options):
        """The chosen option among functions of nothing, called: for steps that differ in what they compute."""
        return self(choice, **options)()

    def terms(self, choice, **terms):
        """The sum of a gradient's terms, each times its coefficient (1 unless `chosen` gives another)."""
        total = 0.0
        for term, value in terms.items():
            key = (choice, term)
            self.met.setdefault(key, tuple(SCALES))
            self.recorded[key] = value
            total = total + self.chosen.get(key, 1.0) * value
        return total


def run(pipeline, probe, chosen=None):
    """(output, Choices) of the pipeline on one probe with the given choices; the output is None if it raises."""
    c = Choices(chosen)
    return quiet(functools.partial(pipeline, c=c), *probe.args, **probe.kwargs), c


def neighbours(pipeline, probes):
    """([one choice changed], [two choices changed]) as {choice: option} dicts. An option that gives the reference's
    output on every probe is left out: in this exercise it is no mistake (self_attention always scales, so the
    scale switch cannot be ignored there)."""
    met, right = {}, []
    for p in probes:
        value, c = run(pipeline, p)
        right.append(value)
        for choice, options in c.met.items():
            met.setdefault(choice, options)
    singles, wider = [], {}
    for choice, options in met.items():
        for option in options:
            outputs = [run(pipeline, p, {choice: option}) for p in probes]
            if any(v is None or not close(v, r) for (v, _), r in zip(outputs, right)):
                singles.append({choice: option})
                wider.setdefault(choice, []).append(option)
            for _, c in outputs:  # a wrong option can open a branch the right one never takes: it joins the pairs
                for other, more in c.met.items():
                    if other not in met:
                        wider.setdefault(other, list(more))
    pairs = [{a: oa, b: ob} for a, b in itertools.combinations(wider, 2)
             for oa, ob in itertools.product(wider[a], wider[b])]
    return singles, pairs[:MAX_PAIRS]


def reproduces(pipeline, chosen, probes, outcomes, expected):
    """The learner's output is this neighbour's on every probe, and differs from the reference on at least one."""
    return matches(lambda *args, **kwargs: pipeline(*args, c=Choices(chosen), **kwargs), probes, outcomes, expected)


def matches(wrong, probes, outcomes, expected):
    """The learner agrees with the function `wrong` on every probe (both raise, or equal values), and differs from
    the expected output on at least one (a value, or an error where the reference returns). Where the learner
    returns nothing at all, both must raise word for word the same message naming sizes on every probe: which
    shapes clash is then the evidence."""
    differs = answered = False
    alike = True  # every probe so far: the same built-in exception with the same message, naming sizes
    for p, o, e in zip(probes, outcomes, expected):
        v, error = attempt(wrong, *p.args, **p.kwargs)
        if o.kind != "ok":
            if v is not None:
                return False
            same = _same_error(error, o)
            differs = differs or (e is not None and same)  # both raise where the reference returns
            alike = alike and same and error == o.error and any(ch.isdigit() for ch in error)
            continue
        if v is None or not close(o.value, v):
            return False
        answered = True
        differs = differs or not close(v, e)
    return differs and (answered or alike)


def _same_error(error, outcome):
    """The learner raised the same built-in exception as the grader's variant, whose `error` reads "Name: message",
    on this probe (a refusal of the grader's own, such as a misused cache_step, is left to the findings that read
    its message)."""
    name = (error or "").split(":")[0]
    return hasattr(builtins, name) and outcome.kind == "error" and outcome.error.startswith(name + ":")


def mistake_id(choice, option):
    """The diagnosis id of one wrong option: 'softmax_wrong_axis' -> softmax-wrong-axis; a term's coefficient
    -> '<gradient>-<term>-sign-flipped'."""
    if isinstance(choice, tuple):
        return f"{choice[0]}-{choice[1]}-{SCALES.get(option, 'scaled')}".replace("_", "-")
    return option.split("__")[0].replace("_", "-")  # softmax_wrong_axis__first: another way to the same mistake


def variant(pipeline, choice=None, option=None):
    """The pipeline with one choice made, as a function of the exercise's own arguments (no choice: the reference)."""
    def wrong(*args, **kwargs):
        return pipeline(*args, c=Choices({choice: option} if choice else {}), **kwargs)
    wrong.__name__ = str(option) if option is not None else pipeline.__name__
    return wrong


def variants(pipeline, probes):
    """[(diagnosis id, function)] for every neighbour one choice away that the probes meet (none of a gradient's
    terms): what a lesson that has no pipeline yet can list as its hand-written mistakes."""
    return [(mistake_id(choice, option), variant(pipeline, choice, option))
            for chosen in neighbours(pipeline, probes)[0] for choice, option in chosen.items()
            if not isinstance(choice, tuple)]


def _ids(chosen):
    return tuple(dict.fromkeys(mistake_id(choice, option) for choice, option in chosen.items()))


def name(pipeline, probes, outcomes, expected):
    """(diagnosis id, {choice: option} it changed) of the nearest neighbours that reproduce the learner on every probe,
    or None. Two mistakes are named together, joined by '+'.

    Only an exact reproduction names a mistake. Two pairs of choices can reproduce the same output (a softmax whose
    max and sum both ignore `axis` is also "the wrong axis, and the max elsewhere"): the pair whose two changes
    each reproduce the learner on the most probes by themselves is the one the evidence points to. When neighbours
    naming different mistakes remain, these probes cannot tell them apart and none is named (a wrong name is
    worse than none)."""
    for ring in neighbours(pipeline, probes):
        found = [chosen for chosen in ring if reproduces(pipeline, chosen, probes, outcomes, expected)]
        if len(found) > 1:
            weight = {chosen_key: _evidence(pipeline, dict([chosen_key]), probes, outcomes)
                      for chosen in found for chosen_key in chosen.items()}
            best = max(sum(weight[k] for k in chosen.items()) for chosen in found)
            found = [chosen for chosen in found if sum(weight[k] for k in chosen.items()) == best]
        ids = {_ids(chosen) for chosen in found}
        if len(ids) == 1:
            return "+".join(ids.pop()), found[0]
        if ids:
            return None
    return None


def _evidence(pipeline, chosen, probes, outcomes):
    """On how many probes this neighbour alone gives the learner's output."""
    return sum(o.kind == "ok" and close(o.value, run(pipeline, p, chosen)[0]) for p, o in zip(probes, outcomes))


def fit_terms(pipeline, probes, outcomes, choice, part=None):
    """{term: coefficient} fitted by least squares over every probe so that the reference's own terms of `choice`
    rebuild the learner's gradient (`part` picks one output of a tuple), when the fit is exact to 1e-6 relative
    and some coefficient is not 1; else None."""
    columns, target = {}, []
    for p, o in zip(probes, outcomes):
        got = o.value if o.kind == "ok" else None
        if part is not None:
            got = got[part] if isinstance(got, (tuple, list)) and len(got) > part else None
        terms = {t: v for (g, t), v in run(pipeline, p)[1].recorded.items() if g == choice}
        if got is None or not terms or np.shape(got) != np.shape(next(iter(terms.values()))):
            return None
        for term, value in terms.items():
            columns.setdefault(term, []).append(np.ravel(np.broadcast_to(value, np.shape(got))))
        target.append(np.ravel(np.asarray(got, dtype=float)))
    if not columns:
        return None
    M = np.stack([np.concatenate(v) for v in columns.values()], axis=1)  # (entries, terms)
    y = np.concatenate(target)
    if not (np.isfinite(M).all() and np.isfinite(y).all()):
        return None
    coef = np.linalg.lstsq(M, y, rcond=None)[0]
    if np.linalg.norm(M @ coef - y) > 1e-6 * max(np.linalg.norm(y), 1e-300):
        return None
    fitted = {t: float(np.round(k, 6)) for t, k in zip(columns, coef)}
    return fitted if any(abs(k - 1.0) > 1e-6 for k in fitted.values()) else None
