"""Small shared pieces of the explorables' user interface.

Number formatting for readouts, readout panes with stable ``ae-`` CSS
classes, and the page-wide extension setup.
"""

from __future__ import annotations

import html
import math

import panel as pn
import param
from panel.models.markup import HTML as HTMLModel

#: CSS shared by every explorable: readout typography and the error banner.
CSS = """
:root { --bokeh-font-size: 15px; --bokeh-base-font: system-ui, "Noto Sans CJK SC", sans-serif; }
.ae-readout { font-variant-numeric: tabular-nums; }
.ae-readout table { border-collapse: collapse; }
.ae-readout td { padding: 1px 8px 1px 0; }
.ae-kind { color: #555; font-size: max(14px, 0.9em); }
.ae-error { color: #b00020; font-weight: 600; }
"""


def format_number(x: float, digits: int = 4, html: bool = True) -> str:
    """Format a readout number as HTML: fixed decimals, scientific when tiny or huge.

    NaN and infinities are written as ``NaN``, ``∞`` and ``−∞``.
    A weight such as ``1.4e-87`` is shown as such rather than as ``0.0000``,
    so a student sees that softmax never gives exactly zero to a finite score;
    a number of a million or more (``e^{440}``) as ``1.2×10^191``, not as
    192 digits. Rounding is Python's (half to even on the exact binary value);
    the JavaScript mirror in :mod:`attention_explorable.stepsview` repeats it.
    """
    x = float(x)
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "∞" if x > 0 else "−∞"
    if abs(x) >= 1e6 or (x != 0.0 and abs(x) < 0.5 * 10.0 ** (-digits)):
        mantissa, exponent = f"{x:.1e}".split("e")
        if not html:
            return f"{mantissa}e{int(exponent)}"
        return f"{mantissa}×10<sup>{int(exponent)}</sup>"
    s = f"{x:.{digits}f}"
    return "0." + "0" * digits if s.startswith("-") and float(s) == 0.0 else s


def readout(css_class: str, **kw) -> pn.pane.HTML:
    """An HTML pane for one live readout, carrying ``ae-readout`` and ``css_class``."""
    return pn.pane.HTML("", css_classes=["ae-readout", css_class], margin=(2, 5), **kw)


def browser_drawn_readout(css_class: str) -> pn.pane.Bokeh:
    """A live readout that a browser-side script may also redraw, without sending it back.

    The Bokeh model of Panel's HTML pane (``panel.models.markup.HTML``; its
    ``text`` is HTML escaped with :func:`html.escape`), created directly with
    ``syncable=False`` and wrapped in a Panel pane for the layout; reach the
    model as ``pane.object`` and set its text with :func:`set_readout`.
    Compared with a :class:`panel.pane.HTML`, a server-side update skips
    Panel's pane machinery (about a millisecond per update, once per slider
    step for every student of a class); compared with a Bokeh ``Div``, the
    browser redraws it without recomputing the page layout (under a
    millisecond instead of about ten).
    """
    model = HTMLModel(text="", css_classes=["ae-readout", css_class], stylesheets=[CSS], margin=(2, 5),
                      sizing_mode="stretch_width", syncable=False)
    return pn.pane.Bokeh(model, sizing_mode="stretch_width", margin=0)


def set_readout(pane: pn.pane.Bokeh, html_text: str) -> None:
    """Show ``html_text`` in a :func:`browser_drawn_readout`."""
    pane.object.text = html.escape(html_text)


def readout_html(pane: pn.pane.Bokeh) -> str:
    """The HTML shown by a :func:`browser_drawn_readout`."""
    return html.unescape(pane.object.text)


def extension() -> None:
    """Load Panel's extension with the project's CSS (idempotent)."""
    if CSS not in pn.config.raw_css:
        pn.config.raw_css.append(CSS)
    pn.extension(sizing_mode="stretch_width", notifications=False)


class _ClampedBox(param.Parameterized):
    """Mixin for Panel's editable sliders: a typed value out of range is clamped, visibly.

    Bokeh's number box silently ignores a typed number outside the slider's
    fixed bounds and keeps showing it, so the box and the value disagree.
    Here the box accepts any number; the server clamps it to
    ``[fixed_start, fixed_end]``, writes the clamped value back into the box,
    and describes the correction in :attr:`message` (empty otherwise).
    Relies on Panel's ``_value_edit`` box and ``_sync_value`` hook; the tests
    in ``tests/test_ui.py`` and the browser tests fail if a release changes them.
    """

    message = param.String("", doc="Why the last typed value was changed; empty when it was not.")
    message_template = param.String("{name}: {raw} is outside [{lo}, {hi}]; set to {value}",
                                    doc="Format of `message` (fields name, raw, lo, hi, value).")

    def __init__(self, **params):
        super().__init__(**params)
        # Panel's box carries a browser script that stretches the slider to a
        # typed number; values are clamped here instead, so drop the script.
        from panel.links import Callback

        Callback.registry.pop(self._value_edit, None)
        self._open_box_bounds()
        # Runs after Panel's own bounds watcher, which narrows the box again.
        self.param.watch(self._open_box_bounds, ["start", "end", "fixed_start", "fixed_end"])

    def _open_box_bounds(self, *events):
        self._value_edit.param.update(start=None, end=None)

    def _sync_value(self, event):
        raw = event.new
        lo, hi = self.fixed_start, self.fixed_end
        if event.obj is self._value_edit and raw is None:  # the box was emptied
            self._value_edit.value = self.value
            return
        if event.name in ("value", "value_throttled") and raw is not None:
            value = min(max(raw, lo if lo is not None else raw), hi if hi is not None else raw)
            if value != raw:
                setattr(event.obj, event.name, value)  # comes back here, in range
                self.message = self.message_template.format(
                    name=self.name, raw=f"{raw:g}", lo=f"{lo:g}", hi=f"{hi:g}", value=f"{value:g}")
                return
            if event.obj is self._value_edit:
                self.message = ""
        super()._sync_value(event)


class _NoThrottledEcho:
    """Mixin for the slider inside an editable slider: leaves out ``value_throttled``.

    BokehJS sends ``value`` and then ``value_throttled`` for every key press;
    the explorables follow ``value`` only, and processing the second change
    cost the server about a third of the work of a slider step.
    """

    def _process_events(self, events):
        events.pop("value_throttled", None)
        if events:
            super()._process_events(events)


class _FloatSlider(_NoThrottledEcho, pn.widgets.FloatSlider):
    """The slider inside :class:`EditableFloatSlider`."""


class _IntSlider(_NoThrottledEcho, pn.widgets.IntSlider):
    """The slider inside :class:`EditableIntSlider`."""


class EditableFloatSlider(_ClampedBox, pn.widgets.EditableFloatSlider):
    """``pn.widgets.EditableFloatSlider`` whose box never shows a value the slider lacks.

    Its ``value_throttled`` does not follow the slider (see ``_NoThrottledEcho``);
    watch ``value``.
    """

    _slider_widget = _FloatSlider


class EditableIntSlider(_ClampedBox, pn.widgets.EditableIntSlider):
    """``pn.widgets.EditableIntSlider`` whose box never shows a value the slider lacks.

    Its ``value_throttled`` does not follow the slider; watch ``value``.
    """

    _slider_widget = _IntSlider


def input_notice(widgets, css_class: str = "ae-input-notice") -> pn.pane.HTML:
    """A pane showing the latest :attr:`_ClampedBox.message` of ``widgets`` (hidden when empty)."""
    pane = pn.pane.HTML("", css_classes=["ae-error", css_class], visible=False, margin=(0, 5))

    def show(event):
        pane.param.update(object=event.new, visible=bool(event.new))

    for widget in widgets:
        widget.param.watch(show, "message")
    return pane
