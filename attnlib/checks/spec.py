"""What an exercise check is made of: probes to call the learner's function on, and the Exercise record."""
from dataclasses import dataclass, field, replace

import numpy as np


@dataclass
class Probe:
    """One call of the learner's function: args, kwargs and labels for the report grid."""
    args: tuple
    kwargs: dict = field(default_factory=dict)
    names: tuple = ()        # argument names, for messages
    rows: list = None        # row labels of the expected output (tokens)
    cols: list = None        # column labels
    seed: int = None         # set on a fresh copy: the seed its arrays were redrawn from
    resize: bool = False     # its int arguments are sizes: a fresh copy draws new ones (1 to twice the old + 1)

    def describe(self):
        parts = [f"{name} {_shape(a)}" for name, a in zip(self.names, self.args)]
        parts += [f"{k}={v!r}" for k, v in self.kwargs.items()]
        fresh = f" [fresh random values, seed {self.seed}]" if self.seed is not None else ""
        return ", ".join(parts) + fresh

    def fresh(self, seed):
        """A copy whose float arrays are redrawn near the originals (same shapes, scale and ±inf entries),
        so that memorised outputs for the fixed probes fail; a probe of sizes (resize) gets new sizes. None when
        there is nothing to redraw."""
        rng = np.random.default_rng(seed)
        if self.resize:
            args = tuple(int(rng.integers(1, 2 * a + 2)) if isinstance(a, int) else a for a in self.args)
            return replace(self, args=args, rows=None, cols=None, seed=seed)
        if not _has_floats((self.args, self.kwargs)):
            return None
        args = tuple(_redraw(a, rng) for a in self.args)
        kwargs = {k: _redraw(v, rng) for k, v in self.kwargs.items()}
        return replace(self, args=args, kwargs=kwargs, seed=seed)


def _redraw(a, rng):
    """Float arrays (also inside dicts, lists and tuples) moved by noise of half their spread; the rest as is.
    An array of probabilities (rows of non-negative entries summing to 1, e.g. softmax weights) stays one."""
    if isinstance(a, np.ndarray) and a.dtype.kind == "f" and a.size:
        if a.ndim and np.all(a >= 0) and np.allclose(a.sum(axis=-1), 1.0):
            P = a * np.exp(rng.normal(0.0, 0.5, a.shape))
            return (P / P.sum(axis=-1, keepdims=True)).astype(a.dtype)
        finite = np.isfinite(a)
        with np.errstate(over="ignore", invalid="ignore"):  # the spread of values near 1e300 overflows
            spread = a[finite].std() if finite.any() else 0.0
        spread = spread if np.isfinite(spread) else np.abs(a[finite]).max()
        spread = spread or (np.abs(a[finite]).max() if finite.any() else 0.0) or 1.0
        return np.where(finite, a + rng.normal(0.0, 0.5 * spread, a.shape), a).astype(a.dtype)
    if isinstance(a, dict):
        return {k: _redraw(v, rng) for k, v in a.items()}
    if isinstance(a, (list, tuple)):
        return type(a)(_redraw(v, rng) for v in a)
    return a


def _has_floats(a):
    if isinstance(a, np.ndarray):
        return a.dtype.kind == "f" and a.size > 0
    if isinstance(a, dict):
        return any(_has_floats(v) for v in a.values())
    if isinstance(a, (list, tuple)):
        return any(_has_floats(v) for v in a)
    return False


def _shape(a):
    if isinstance(a, np.ndarray):
        return f"{a.shape}" if a.ndim else f"= {a.item()!r}"
    if isinstance(a, dict):
        return f"(dict of {len(a)})"
    if isinstance(a, (list, tuple)):
        return f"(list of {len(a)})"
    return f"= {a!r}"


@dataclass(kw_only=True)
class Exercise:
    """One graded exercise: the learner's function must agree with `reference` on every probe; the neighbours of
    its `pipeline` name a mistake (choices.py)."""
    name: str                # the exercise name, as in check(name, fn)
    reference: object        # callable giving the expected output
    probes: list             # [Probe]
    verified: str            # one line shown on a pass: what the probes covered
    hint1: str               # the concept
    hint2: str               # a nudge: a shape, an axis or a line, no solving code
    formula: str             # the equation, shown with the expected values
    returns: type = None     # the Python type the text asks for (int, list), where a numpy one would not do
    pipeline: object = None  # the reference with its choices (choices.py): its neighbours name the mistake
    gradients: tuple = ()    # ((c.terms choice, output index or None), ...): the gradients fit_terms may read
    uses: tuple = ()         # earlier exercises the learner's version may call (their bugs show up here too)
