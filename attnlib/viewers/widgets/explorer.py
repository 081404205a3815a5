"""The Explorer container and the small helpers every explorer shares."""
import ipywidgets as ipw

from .. import viz
from ..viz.tables import esc
from .controls import KeyboardScope


class Explorer(ipw.VBox):
    """Controls on top, HTML panels below. `compute()` reads the controls and returns
    the state dict; `render(state)` returns one HTML string per panel."""

    def __init__(self, name, controls, compute, render, watch=None, layout_controls=None):
        super().__init__()
        self.name, self.controls, self.error = name, controls, None
        self._compute, self._render, self._busy = compute, render, False
        self.state = compute()
        html = render(self.state)
        self.views = {key: ipw.HTML(value=value) for key, value in html.items()}
        self.message = ipw.HTML(value="")
        rows = layout_controls or [ipw.HBox(list(controls.values()))]
        self.children = [*rows, self.message, *self.views.values(), KeyboardScope()]
        self.add_class("ra-explorer")
        self.add_class(f"ra-explorer-{name}")
        for key in (watch or controls):
            controls[key].observe(self._on_change, names="value")

    def __repr__(self):
        return f"<{self.name} explorer: run the notebook to use its controls>"

    def _repr_mimebundle_(self, **kwargs):
        """The live widget for JupyterLab, plus a static HTML snapshot of the panels
        for renderers without a kernel (nbconvert, GitHub)."""
        data = super()._repr_mimebundle_(**kwargs) or {}
        data["text/plain"] = repr(self)
        data["text/html"] = snapshot_html(self)
        return data

    def _on_change(self, change):
        if not self._busy:
            self.update()

    def update(self):
        """Recompute from the controls and re-render every panel."""
        self._busy = True
        try:
            state = self._compute()
        except ValueError as exc:
            self.error = str(exc)
            self.message.value = f'<div style="color:#b00;font-weight:bold">{esc(exc)}</div>'
            return
        finally:
            self._busy = False
        self.state, self.error = state, None
        self.message.value = ""
        for key, value in self._render(state).items():
            self.views[key].value = value


def snapshot_html(explorer):
    """The explorer's panels as static HTML (no controls). Its classes are ra-snapshot and
    ra-snapshot-<name>, never ra-explorer, so a page search finds only the live widget."""
    panels = "".join(v.value for v in explorer.views.values())
    return (f'<div class="ra-snapshot ra-snapshot-{explorer.name}">'
            f'<div class="ra-view" style="color:{viz.MUTED};margin:2px 0">{esc(explorer.name)} explorer '
            f'(a static snapshot: run the notebook to use the controls)</div>{panels}</div>')


def _text(html):
    return f'<div class="ra-view" style="margin:4px 0;{viz.PANEL}">{html}</div>'


def _num(v, p=2):
    return viz.fmt(float(v), p)


def _float_text(description, value, width="150px"):
    return ipw.FloatText(value=float(value), description=description, step=0.1,
                         layout=ipw.Layout(width=width), style={"description_width": "40px"})


def _checkbox(description, value):
    return ipw.Checkbox(value=value, description=description, indent=False, layout=ipw.Layout(width="auto"))


def _token_dropdown(description, tokens, value=0):
    options = [(f"{i}: {t}", i) for i, t in enumerate(tokens)]
    return ipw.Dropdown(options=options, value=value, description=description,
                        layout=ipw.Layout(width="180px"), style={"description_width": "50px"})


def _cached_render(parts):
    """Combine panel renderers [(key(state), render(state))], re-running each only when its key changes:
    the step control then redraws one panel, not every table."""
    memo = {}

    def render(s):
        html = {}
        for k, (key, part) in enumerate(parts):
            kv = key(s)
            if k not in memo or memo[k][0] != kv:
                memo[k] = (kv, part(s))
            html.update(memo[k][1])
        return html
    return render
