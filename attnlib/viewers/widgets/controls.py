"""Sliders and a play button that anyone can operate: native HTML controls, drawn by anywidget.

ipywidgets 8 draws its sliders with noUiSlider: the handle (role="slider") gets no accessible name, whatever
the description says, and a log slider's aria-valuetext reports the exponent ("0") instead of the value;
its Play buttons are icons without names. These controls keep the ipywidgets API the explorers use
(`.value`, `.min`, `.max`, `.step`, `.description`, `observe`, `ipywidgets.link`) and draw:

    FloatSlider, IntSlider, LogSlider   <label for=...> + <input type="range"> + <output>: the label names
                                        the slider, aria-valuetext says the value as the readout prints it
                                        (for LogSlider the value, never its exponent); arrow keys move it
    Play                                two <button>s with visible text, "play"/"pause" and "stop", and a
                                        timer in the page that steps `.value` from min to max
    KeyboardScope                       draws nothing; keeps JupyterLab's notebook shortcuts off the keys
                                        that operate the explorer's controls (see _KEYS)

JupyterLab's command-mode shortcuts match any focused element that is not a text box: without the guard,
ArrowDown on a drop-down selects the next cell, the arrow keys never reach a slider and Enter on a button
opens the cell's editor. The guard (one keydown listener on the window, in the capture phase) stops those
keys from propagating when they are pressed on a drop-down, button, checkbox or slider inside an explorer
or one of these controls; the control's own default action (step the slider, change the selection, press
the button) still happens, since nothing is prevented.

Everything is inline (no URL, no font): it works offline. In a page without a kernel (nbconvert, the
course's website) the explorer's static snapshot is shown instead.
"""
import math

import anywidget
import traitlets as t

_KEYS = """
const KEYS = new Set(["ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight", "Home", "End", "PageUp", "PageDown",
                      "Enter", " "]);
function keepKeys(ev) {
  const t = ev.target;
  if (!(t instanceof Element) || !KEYS.has(ev.key) || ev.ctrlKey || ev.metaKey || ev.altKey || ev.shiftKey) return;
  if (!t.matches("select, button, input[type=range], input[type=checkbox], input[type=radio]")) return;
  if (t.closest(".ra-explorer, .ra-control")) ev.stopPropagation();
}
function guardKeys() {
  if (!window.__raKeepKeys) { window.__raKeepKeys = true; window.addEventListener("keydown", keepKeys, true); }
}
"""

_SLIDER_ESM = _KEYS + """
function render({ model, el }) {
  guardKeys();
  const id = "ra-control-" + Math.random().toString(36).slice(2);
  el.classList.add("ra-control", "ra-slider");
  const label = document.createElement("label");
  label.htmlFor = id;
  const input = document.createElement("input");
  input.type = "range";
  input.id = id;
  const readout = document.createElement("output");
  readout.setAttribute("for", id);
  readout.setAttribute("aria-hidden", "true");  // the slider's aria-valuetext says the same
  el.append(label, input, readout);
  const base = () => model.get("base");
  const toPosition = v => base() > 0 ? Math.log(v) / Math.log(base()) : v;
  const toValue = p => base() > 0 ? Math.pow(base(), p) : p;
  const text = v => Number(v).toFixed(model.get("digits"));
  const draw = () => {
    label.textContent = model.get("description");
    input.min = model.get("min");
    input.max = model.get("max");
    input.step = model.get("step");
    input.value = toPosition(model.get("value"));
    readout.textContent = text(model.get("value"));
    input.setAttribute("aria-valuetext", text(model.get("value")));
  };
  const send = () => {
    let v = toValue(Number(input.value));
    if (model.get("digits") === 0 && base() === 0) v = Math.round(v);
    readout.textContent = text(v);
    input.setAttribute("aria-valuetext", text(v));
    model.set("value", v);
    model.save_changes();
  };
  input.addEventListener("input", () => { if (model.get("continuous_update")) send(); });
  input.addEventListener("change", send);
  const names = ["value", "min", "max", "step", "description", "digits", "base"];
  names.forEach(name => model.on(`change:${name}`, draw));
  draw();
  return () => names.forEach(name => model.off(`change:${name}`, draw));
}
export default { render };
"""

_PLAY_ESM = _KEYS + """
function render({ model, el }) {
  guardKeys();
  el.classList.add("ra-control", "ra-play");
  const play = document.createElement("button");
  const stop = document.createElement("button");
  play.type = stop.type = "button";
  play.className = stop.className = "ra-button";
  stop.textContent = "\\u25a0 stop";
  el.setAttribute("role", "group");
  el.append(play, stop);
  let timer = null;
  const tick = () => {
    const next = model.get("value") + model.get("step");
    if (next > model.get("max")) { model.set("playing", false); } else { model.set("value", next); }
    model.save_changes();
  };
  const draw = () => {
    const playing = model.get("playing");
    play.textContent = playing ? "\\u275a\\u275a pause" : "\\u25b6 play";
    play.setAttribute("aria-pressed", String(playing));
    el.setAttribute("aria-label", model.get("description"));
    if (playing && timer === null) {
      if (model.get("value") >= model.get("max")) { model.set("value", model.get("min")); model.save_changes(); }
      timer = setInterval(tick, model.get("interval"));
    } else if (!playing && timer !== null) {
      clearInterval(timer);
      timer = null;
    }
  };
  play.addEventListener("click", () => { model.set("playing", !model.get("playing")); model.save_changes(); });
  stop.addEventListener("click", () => {
    model.set("playing", false);
    model.set("value", model.get("min"));
    model.save_changes();
  });
  const names = ["playing", "description", "interval"];
  names.forEach(name => model.on(`change:${name}`, draw));
  draw();
  return () => { names.forEach(name => model.off(`change:${name}`, draw)); if (timer !== null) clearInterval(timer); };
}
export default { render };
"""

_SCOPE_ESM = _KEYS + """
function render({ el }) {
  el.style.display = "none";
  guardKeys();
}
export default { render };
"""

_CSS = """
.ra-control { display: flex; align-items: center; gap: 6px; margin: 2px 0;
  font-size: var(--jp-widgets-font-size, 13px); }
.ra-slider label { min-width: 40px; text-align: right; white-space: nowrap; }
.ra-slider input[type=range] { flex: 1 1 120px; min-width: 80px; accent-color: #2166ac; }
.ra-slider output { min-width: 3.5em; font-variant-numeric: tabular-nums; }
.ra-play .ra-button { padding: 2px 10px; border: 1px solid #767676; border-radius: 2px; background: #f7f7f7;
  color: #111; cursor: pointer; }
.ra-control :focus-visible { outline: 2px solid #c51b7d; outline-offset: 1px; }
"""


def _digits(readout_format):
    """".2f" -> 2 (the readout's decimals)."""
    text = readout_format.strip(".f") or "0"
    return int(text) if text.isdigit() else 2


class _Slider(anywidget.AnyWidget):
    _esm = _SLIDER_ESM
    _css = _CSS
    description = t.Unicode("").tag(sync=True)
    continuous_update = t.Bool(True).tag(sync=True)
    digits = t.Int(2).tag(sync=True)
    base = t.Float(0.0).tag(sync=True)  # 0: linear; b > 0: value = b ** position (min, max, step are exponents)

    def __init__(self, value=None, *, readout_format=None, **kwargs):
        if readout_format is not None:
            kwargs["digits"] = _digits(readout_format)
        super().__init__(**kwargs)
        if value is not None:
            self.value = value

    def _bounds(self):
        return (self.min, self.max) if self.base == 0 else (self.base ** self.min, self.base ** self.max)

    @t.validate("value")
    def _clamp(self, proposal):
        low, high = self._bounds()
        return min(max(proposal["value"], low), high)

    @t.observe("min", "max")
    def _reclamp(self, change):
        low, high = self._bounds()
        if not low <= self.value <= high:
            self.value = min(max(self.value, low), high)


class FloatSlider(_Slider):
    """A slider over [min, max] in steps of `step`, readout at `readout_format` (".2f")."""
    value = t.Float(0.0).tag(sync=True)
    min = t.Float(0.0).tag(sync=True)
    max = t.Float(10.0).tag(sync=True)
    step = t.Float(0.1).tag(sync=True)


class IntSlider(_Slider):
    """A slider over the integers min..max."""
    value = t.Int(0).tag(sync=True)
    min = t.Int(0).tag(sync=True)
    max = t.Int(100).tag(sync=True)
    step = t.Int(1).tag(sync=True)
    digits = t.Int(0).tag(sync=True)


class LogSlider(FloatSlider):
    """A slider on a log scale: value = base ** position, position in [min, max] in steps of `step`.
    The readout and aria-valuetext say the value (T = 0.32), not its exponent."""
    base = t.Float(10.0).tag(sync=True)
    value = t.Float(1.0).tag(sync=True)

    @t.validate("base")
    def _positive(self, proposal):
        if not proposal["value"] > 0 or proposal["value"] == 1 or not math.isfinite(proposal["value"]):
            raise t.TraitError(f"base must be a positive number other than 1, got {proposal['value']}")
        return proposal["value"]


class Play(anywidget.AnyWidget):
    """Play / pause and stop buttons: while playing, `.value` steps from min to max every `interval` ms."""
    _esm = _PLAY_ESM
    _css = _CSS
    value = t.Int(0).tag(sync=True)
    min = t.Int(0).tag(sync=True)
    max = t.Int(100).tag(sync=True)
    step = t.Int(1).tag(sync=True)
    interval = t.Int(500).tag(sync=True)
    playing = t.Bool(False).tag(sync=True)
    description = t.Unicode("play through the steps").tag(sync=True)

    def __init__(self, value=None, **kwargs):
        super().__init__(**kwargs)
        if value is not None:
            self.value = value

    @t.validate("value")
    def _clamp(self, proposal):
        return min(max(proposal["value"], self.min), self.max)

    @t.observe("min", "max")
    def _reclamp(self, change):
        if not self.min <= self.value <= self.max:
            self.value = min(max(self.value, self.min), self.max)


class KeyboardScope(anywidget.AnyWidget):
    """An invisible child of an explorer: gives the explorer's keys to its controls (see the module doc)."""
    _esm = _SCOPE_ESM
