"""The three outcomes of a check, as HTML (notebooks) and plain text (terminals).

CSS hooks used by the browser tests: the container has class `ra-check` plus
`ra-pass`, `ra-fail` or `ra-not-attempted` and `data-exercise="<name>"`; the
diagnosis element has class `ra-diagnosis` and `data-diagnosis="<id>"`; matrices
are `table.ra-matrix[data-name]` with `td.ra-cell[data-value]` (`ra-neginf` for -inf).
"""
import html
import re
from dataclasses import dataclass, field

import numpy as np

from ..course import lesson
from .diagnoses import explain, nudge
from .runner import ATOL, RTOL, close, is_number_array, kind, words

_BOX = "border-left:4px solid {c};background:{bg};padding:6px 10px;margin:4px 0;font-family:sans-serif"
_COLOURS = {"pass": ("#2e7d32", "#e8f5e9"), "fail": ("#c62828", "#ffebee"), "not-attempted": ("#9e9e9e", "#f5f5f5")}


@dataclass
class Report:
    """Result of check(name, fn). Truthy only when passed."""
    name: str
    status: str                       # "pass", "fail", "not-attempted"
    summary: str = ""
    diagnosis: str = None
    problems: list = field(default_factory=list)   # plain-text findings, most important first
    probe: str = ""                   # description of the failing probe
    got: object = None
    expected: object = None
    rows: list = None
    cols: list = None
    hints: tuple = ("", "")
    formula: str = ""
    nudge: str = ""                   # the nudge of the choice the learner got wrong, when one was named
    todo: str = "Replace the `raise NotImplementedError` line with your code"  # shown when not attempted

    def __bool__(self):
        return self.status == "pass"

    @property
    def passed(self):
        return self.status == "pass"

    @property
    def hint2(self):
        """The nudge for the diagnosed mistake, or the exercise's own hint 2 when nothing was named."""
        return self.nudge or nudge(self.diagnosis) or self.hints[1]

    # -- plain text ---------------------------------------------------------
    def where(self):
        """Where the check failed, to follow "failed": "on probe 3 of 10: ...", "on the extra check ...", or ""."""
        if not self.probe or self.probe == "(none)":
            return ""
        return f"on probe {self.probe}" if self.probe[:1].isdigit() else f"on {self.probe}"

    def text(self):
        """The report for a terminal (python -m attnlib check, pytest, nbval). The hints stay hidden there too: it
        says which command reveals them, one level at a time, as the notebook's reveals do."""
        if self.status == "pass":
            return f"✓ {self.name} passed: {self.summary}"
        if self.status == "not-attempted":
            return f"… {self.name}: not attempted yet. {self.todo}, then run this check again."
        lines = [f"✗ {self.name} failed {self.where()}".rstrip()]
        if self.diagnosis:
            lines.append(f"  diagnosis {self.diagnosis}: {explain(self.diagnosis)}")
        lines += [f"  - {self._pointing(p)}" for p in self.problems]
        lines += self._comparison_text()
        if self.hints[0] or self.hint2:
            hint = f"python -m attnlib hint {_number(self.name)}"
            lines.append(f"  hints, hidden until you ask: {hint} --level 1 (the idea), --level 2 (where to look), "
                         "--level 3 (the answer)")
        return "\n".join(lines)

    def __repr__(self):
        return self.text()

    # -- HTML ---------------------------------------------------------------
    def _repr_html_(self):
        c, bg = _COLOURS[self.status]
        head = (f'<div class="ra-check ra-{self.status}" data-exercise="{self.name}" '
                f'style="{_BOX.format(c=c, bg=bg)}">')
        if self.status == "pass":
            return head + f'<b style="color:{c}">✓ {self.name} passed</b>: {html.escape(self.summary)}</div>'
        if self.status == "not-attempted":
            todo = html.escape(self.todo).replace("`raise NotImplementedError`",
                                                  "<code>raise NotImplementedError</code>")
            return head + (f'<b style="color:#616161">… {self.name}: not attempted yet</b>. {todo}, '
                           'then run this cell again.</div>')
        where = html.escape(self.where())
        if where.startswith("on probe "):  # a probe is a call: shown as code
            where = f"on probe <code>{html.escape(self.probe)}</code>"
        parts = [head, f'<b style="color:{c}">✗ {self.name} failed</b> {where}'.rstrip()]
        if self.diagnosis:
            parts.append(f'<div class="ra-diagnosis" data-diagnosis="{self.diagnosis}"><b>Diagnosis '
                         f'<code>{self.diagnosis}</code></b>: {html.escape(explain(self.diagnosis))}</div>')
        parts.append("<ul>" + "".join(f"<li>{html.escape(self._pointing(p))}</li>" for p in self.problems) + "</ul>")
        parts.append(self._comparison_html())
        if not self.diagnosis:
            parts.append('<div class="ra-diagnosis" data-diagnosis="">No known mistake matches; compare your '
                         'values with the expected ones.</div>')
        parts.append(_details("Hint 1", html.escape(self.hints[0])))
        parts.append(_details("Hint 2: where to look", html.escape(self.hint2)))
        parts.append(_details("Hint 3, the answer: the formula and the values your function should return",
                              f"<code>{html.escape(self.formula)}</code>" + self._expected_html()))
        return "".join(parts) + "</div>"

    def _arrays(self):
        got, exp = self.got, self.expected
        if not isinstance(exp, np.ndarray) or not isinstance(got, np.ndarray) or got.shape != exp.shape \
                or got.dtype.kind not in "fiu":
            return None
        return got.astype(float), exp.astype(float)

    def _shown(self):
        """What the report shows of the values: "grid" (✓/✗ for small matrices), "worst" (the worst entries of a
        large output) or "" (no comparison, e.g. for a result of the wrong shape)."""
        pair = self._arrays()
        if pair is None:
            return ""
        return "grid" if pair[0].ndim <= 2 and max(pair[0].shape, default=0) <= 12 else "worst"

    def _pointing(self, problem):
        """A problem whose pointer "(see the grid)" matches what is shown: the grid, the worst entries, or nothing."""
        shown = self._shown()
        if shown == "grid":
            return problem
        if shown == "worst":
            problem = problem.replace("(see the grid)", "(see the worst entries)")
            return re.sub(r"\(the grid shows (output \d+)\)", r"(the worst entries are those of \1)", problem)
        return re.sub(r" \((see the grid|the grid shows output \d+)\)", "", problem)

    def _labels(self, shape):
        """Row and column labels of a 2-D grid of this shape: the probe's, when they fit, else numbers."""
        rows = self.rows if self.rows and len(self.rows) == shape[0] else [str(i) for i in range(shape[0])]
        cols = self.cols if self.cols and len(self.cols) == shape[1] else [str(j) for j in range(shape[1])]
        return rows, cols

    def _comparison_text(self):
        """The terminal's version of the comparison: a ✓/✗ grid for a small result, else its worst entries."""
        shown = self._shown()
        if not shown:
            return []
        got, exp = self._arrays()
        ok = _ok_mask(got, exp)
        if shown == "worst":
            lines = ["  worst entries (index: got, expected):"]
            for k in _worst(got, exp):
                index = tuple(int(i) for i in np.unravel_index(k, got.shape))
                lines.append(f"    {index}: {_fmt(got.ravel()[k])}, {_fmt(exp.ravel()[k])}")
            return lines
        k2 = np.atleast_2d(ok)
        rows, cols = self._labels(k2.shape)
        first = max(map(len, rows))
        widths = [max(1, len(c)) for c in cols]
        lines = [f"  {int((~ok).sum())} of {ok.size} entries wrong (✗):",
                 "    " + " " * first + "  " + " ".join(c.center(w) for c, w in zip(cols, widths))]
        for i, r in enumerate(rows):
            marks = " ".join(("✓" if k2[i, j] else "✗").center(w) for j, w in enumerate(widths))
            lines.append(f"    {r.ljust(first)}  {marks}")
        return lines

    def _comparison_html(self):
        pair = self._arrays()
        if pair is None:
            return ""
        got, exp = pair
        ok = _ok_mask(got, exp)
        if self._shown() == "grid":
            g2, e2, k2 = (np.atleast_2d(a) for a in (got, exp, ok))
            rows, cols = self._labels(g2.shape)
            head = "<tr><th></th>" + "".join(f"<th>{html.escape(c)}</th>" for c in cols) + "</tr>"
            body = ""
            for i, r in enumerate(rows):
                cells = "".join(
                    f'<td class="{"ra-ok" if k2[i, j] else "ra-bad"}" title="got {_fmt(g2[i, j])}, expected '
                    f'{_fmt(e2[i, j])}" style="text-align:center;color:{"#2e7d32" if k2[i, j] else "#c62828"}">'
                    f'{"✓" if k2[i, j] else "✗"}</td>' for j in range(g2.shape[1]))
                body += f"<tr><th>{html.escape(r)}</th>{cells}</tr>"
            return (f'<div>{int((~ok).sum())} of {ok.size} entries wrong (hover a cell for got/expected):</div>'
                    f'<table class="ra-grid">{head}{body}</table>')
        idx = _worst(got, exp)
        rows = "".join(f"<tr><td>{tuple(int(i) for i in np.unravel_index(k, got.shape))}</td>"
                       f"<td>{_fmt(got.ravel()[k])}</td><td>{_fmt(exp.ravel()[k])}</td></tr>" for k in idx)
        return ('<div>worst entries:</div><table class="ra-worst"><tr><th>index</th><th>got</th>'
                f'<th>expected</th></tr>{rows}</table>')

    def _expected_html(self):
        exp = self.expected
        if isinstance(exp, tuple):
            return "".join(matrix_html(f"output {i}", e) for i, e in enumerate(exp) if isinstance(e, np.ndarray))
        if isinstance(exp, np.ndarray):
            return matrix_html("expected", exp, self.rows, self.cols)
        if isinstance(exp, (float, np.floating)):
            exp = float(exp)  # 0.35, not np.float64(0.35)
        return "" if exp is None else f"<pre>{html.escape(repr(exp))}</pre>"


# ----------------------------------------------------------------------------
# problems: plain-text findings for the failing probe, most useful first

VALUES_DIFFER = "some values differ from the expected ones (see the grid)"
OUTPUTS_DIFFER = "some values of output"  # how a finding about the outputs of a returned tuple begins


def problems(o, e, detail=None):
    """Findings for one probe's Outcome `o` against the expected value `e`: the property finding `detail`
    first, then errors, changed inputs, type, shape, dtype and NaN/inf, then printed lines and warnings."""
    found = [detail] if detail else []
    if o.kind == "timeout":
        found.append("your function did not return within the time limit and was stopped")
    elif o.kind in ("error", "not-implemented"):
        found.append(f"your function raised {o.error}" + (f" (at {o.where})" if o.where else ""))
    else:
        values = _value_problems(o.value, e)
        if o.mutated:
            changed = f"your function changed its input(s) in place: {', '.join(o.mutated)}"
            found.append(changed + (", although the values it returned are right" if not values else ""))
        found += values
    if o.printed:
        found.append(f"your function printed {len(o.printed.splitlines())} line(s) (hidden here)")
    if o.warned:
        found.append(f"numpy warned: {'; '.join(o.warned[:3])}")
    return found


def _value_problems(got, e):
    """What is wrong with a returned value ([] when it matches e)."""
    if close(got, e):
        return []
    if isinstance(e, tuple):
        if not isinstance(got, (tuple, list)) or len(got) != len(e):
            return [f"expected a tuple of {len(e)} arrays, got {kind(got)}"]
        found, differ = [], []  # each finding once; the outputs whose values merely differ, named together
        for j, (g, x) in enumerate(zip(got, e)):
            for p in _value_problems(g, x):
                if p == VALUES_DIFFER:
                    differ.append(j)
                elif p not in found:
                    found.append(p)
        if len(differ) > 1:
            found.append(f"{OUTPUTS_DIFFER}s {', '.join(map(str, differ[:-1]))} and {differ[-1]} differ from the "
                         f"expected ones (the grid shows output {differ[0]})")
        elif differ and not found:  # the only finding: it says which output
            found.append(f"{OUTPUTS_DIFFER} {differ[0]} differ from the expected ones (see the grid)")
        elif differ:
            found.append(VALUES_DIFFER)
        return found
    if isinstance(e, list):
        return _word_problems(got, e)
    if isinstance(e, (int, np.integer)):
        if not isinstance(got, (int, np.integer)) or isinstance(got, bool):
            return [f"expected an int, got {kind(got)}" + (f" = {got!r}" if isinstance(got, float) else "")]
        return [f"got {int(got):,}, expected {int(e):,}"]
    if isinstance(got, np.ndarray) and got.dtype.kind == "b":
        return [f"your result is an array of dtype bool (True/False); expected floats of shape {e.shape}"]
    if not is_number_array(got):
        return [f"expected a numpy array of shape {e.shape}, got {kind(got)}"]
    got = np.asarray(got)
    found = []
    if got.shape != e.shape:
        found.append(f"shape: got {got.shape}, expected {e.shape}")
    want_ints = isinstance(e, np.ndarray) and e.dtype.kind in "iu"
    if want_ints and got.dtype.kind not in "iu":
        found.append(f"dtype: got {got.dtype}, expected an int array (token ids)")
    elif not want_ints and got.dtype.kind != "f":
        found.append(f"dtype: got {got.dtype}, expected a float array")
    g = got.astype(float)
    bad = ~np.isfinite(g)
    if got.shape == e.shape:  # a -inf where -inf is expected is right, not a problem
        with np.errstate(invalid="ignore"):
            bad &= ~((g == e) | (np.isnan(g) & np.isnan(e)))
    if bad.any():
        where = [tuple(int(i) for i in ix) for ix in np.argwhere(bad)[:4]]
        found.append(f"{int(bad.sum())} NaN/inf entries in your result where the expected values differ, "
                     f"first at {', '.join(map(str, where))}")
    if not found and got.ndim == 0:  # one number: say both, there is no grid to look at
        found.append(f"got {_fmt(got)}, expected {_fmt(e)}")
    if not found:
        found.append(VALUES_DIFFER)
    return found


def _word_problems(got, e):
    """What is wrong with a returned list of words, against the expected list e."""
    said = words(got)
    if said is None:
        return [f"expected a list of {len(e)} words (strings), got {kind(got)}"]
    if len(said) != len(e):
        return [f"got {len(said)} words, expected {len(e)} (one per row)"]
    wrong = [i for i, (w, x) in enumerate(zip(said, e)) if w != x]
    first = ", ".join(f"row {i}: got {said[i]!r}, expected {e[i]!r}" for i in wrong[:3])
    return [f"{len(wrong)} of {len(e)} words wrong; {first}"]


def _number(name):
    """The number of the lesson that owns an exercise ("06"), for the hint command; NN when none does."""
    try:
        return lesson(name).number
    except ValueError:
        return "NN"


def _worst(got, exp, k=5):
    """Flat indices of the k entries farthest from the expected ones (NaN and inf first)."""
    with np.errstate(invalid="ignore"):
        return np.argsort(-np.nan_to_num(np.abs(got - exp), nan=np.inf, posinf=np.inf).ravel(), kind="stable")[:k]


def _ok_mask(got, exp):
    finite = exp[np.isfinite(exp)]
    atol = ATOL * max(1.0, float(np.abs(finite).max()) if finite.size else 1.0)
    with np.errstate(all="ignore"):
        return np.isclose(got, exp, rtol=RTOL, atol=atol, equal_nan=True)


def _fmt(v):
    v = float(v)
    if np.isneginf(v):
        return "−∞"
    if np.isposinf(v):
        return "+∞"
    return "NaN" if np.isnan(v) else f"{v:.4g}"


def _details(title, body):
    return f'<details class="ra-hint"><summary>{title}</summary><div>{body}</div></details>'


def matrix_html(name, M, rows=None, cols=None):
    """An ra-matrix table of M (1-D or 2-D, else the first 2-D slice), values to 4 significant digits."""
    M = np.atleast_2d(np.asarray(M, dtype=float))
    while M.ndim > 2:
        M = M[0]
    rows = rows if rows and len(rows) == M.shape[0] else [str(i) for i in range(M.shape[0])]
    cols = cols if cols and len(cols) == M.shape[1] else [str(j) for j in range(M.shape[1])]
    head = "<tr><th></th>" + "".join(f"<th>{html.escape(c)}</th>" for c in cols) + "</tr>"
    body = ""
    for i, r in enumerate(rows):
        cells = ""
        for v in M[i]:
            neg = " ra-neginf" if np.isneginf(v) else ""
            cells += f'<td class="ra-cell{neg}" data-value="{v:.6g}">{_fmt(v)}</td>'
        body += f"<tr><th>{html.escape(r)}</th>{cells}</tr>"
    return f'<table class="ra-matrix" data-name="{html.escape(name)}">{head}{body}</table>'
