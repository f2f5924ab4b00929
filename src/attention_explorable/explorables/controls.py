"""Bokeh controls made from an explorable's parameters.

Each control is a plain Bokeh widget whose bounds, step and label come from a
``param`` parameter; the explorable's ES module handles its events and
redraws it, so the controls carry ``syncable=False``: only the state model
travels to the server. Every control carries a stable ``ae-`` CSS class.
"""

from __future__ import annotations

from bokeh.models import Button, Checkbox, RadioButtonGroup, Row, Slider, TextInput

from ..views.numbers import format_g

#: CSS of the controls: touch-sized on phones, the number box beside its slider, a focus
#: ring the keyboard can see, colours with at least 4.5:1 contrast (Bokeh's primary and
#: success buttons have 3.6:1 and 2.5:1).
CSS = """
:host { font-size: 15px; }
.bk-input { min-height: 32px; font-size: 16px; }
.bk-btn { min-height: 36px; font-size: 15px; }
.noUi-horizontal { height: 8px; }
.noUi-horizontal .noUi-handle { width: 28px; height: 28px; top: -11px; right: -14px; border-radius: 50%; }
.noUi-handle::before, .noUi-handle::after { display: none; }
.bk-btn:focus-visible, .bk-input:focus-visible, input:focus-visible, .noUi-handle:focus-visible {
  outline: 3px solid #1a5fb4; outline-offset: 2px; }
.noUi-handle:focus-visible { box-shadow: 0 0 0 2px #fff; }
.bk-btn-primary, .bk-btn-primary:hover, .bk-btn-primary:focus { background-color: #2f6fad; border-color: #24578a; color: #fff; }
.bk-btn-primary:active, .bk-btn-primary.bk-active { background-color: #24578a; }
.bk-btn-success, .bk-btn-success:hover, .bk-btn-success:focus { background-color: #2e7d32; border-color: #1b5e20; color: #fff; }
.bk-btn-success:active, .bk-btn-success.bk-active { background-color: #1b5e20; }
"""

#: A label that only screen readers read (the number box beside a slider is named by it).
SR_ONLY_LABEL_CSS = """
.bk-input-group > label { position: absolute; width: 1px; height: 1px; overflow: hidden;
                          clip-path: inset(50%); white-space: nowrap; margin: 0; padding: 0; }
"""


def slider(parameter, value: float, label: str, css_class: str) -> tuple[Slider, TextInput, Row]:
    """A slider for a numeric parameter (at ``value``) and a box to type its value.

    Returns
    -------
    (slider, box, row)
        ``slider`` carries ``css_class``, ``box`` ``css_class + "-box"``;
        ``row`` lays them out side by side.
    """
    lo, hi = parameter.bounds
    s = Slider(
        start=lo,
        end=hi,
        step=parameter.step,
        value=value,
        title=label,
        show_value=False,
        css_classes=["ae-slider", css_class],
        stylesheets=[CSS],
        sizing_mode="stretch_width",
        margin=(4, 8, 4, 5),
        syncable=False,
    )
    box = TextInput(
        value=format_g(value),
        css_classes=["ae-box", f"{css_class}-box"],
        width=86,
        stylesheets=[CSS, SR_ONLY_LABEL_CSS],
        margin=(22, 5, 4, 0),
        syncable=False,
        title=label,
        name=f"{parameter.name}_box",
    )
    return s, box, Row(children=[s, box], sizing_mode="stretch_width", margin=0)


def button(label: str, css_class: str, button_type: str = "default") -> Button:
    """A button whose clicks the explorable's ES module handles."""
    return Button(
        label=label,
        css_classes=[css_class],
        button_type=button_type,
        stylesheets=[CSS],
        sizing_mode="stretch_width",
        margin=(4, 5),
        syncable=False,
    )


def text_input(label: str, css_class: str, value: str = "", placeholder: str = "") -> TextInput:
    """A text box whose typing the explorable's ES module handles (as ``value_input``)."""
    return TextInput(
        title=label,
        value=value,
        placeholder=placeholder,
        css_classes=[css_class],
        stylesheets=[CSS],
        sizing_mode="stretch_width",
        margin=(4, 5),
        syncable=False,
    )


def choice(labels: list[str], active: int, css_class: str, orientation: str = "horizontal") -> RadioButtonGroup:
    """A row (or column) of buttons, one of them pressed; the ES module handles ``active``."""
    return RadioButtonGroup(
        labels=list(labels),
        active=active,
        orientation=orientation,
        button_type="default",
        css_classes=[css_class],
        stylesheets=[CSS, _CHOICE_CSS],
        sizing_mode="stretch_width",
        margin=(4, 5),
        syncable=False,
    )


#: The pressed button of a :func:`choice` stands out (Bokeh's own is a faint grey); a long
#: label wraps instead of widening the page on a phone.
_CHOICE_CSS = """
.bk-btn.bk-active { background-color: #2f6fad; border-color: #24578a; color: #fff; }
.bk-btn { white-space: normal; overflow-wrap: anywhere; }
"""


def checkbox(label: str, active: bool, css_class: str) -> Checkbox:
    """A labelled check box for a boolean parameter; the ES module handles ``active``."""
    return Checkbox(
        label=label,
        active=active,
        css_classes=[css_class],
        stylesheets=[CSS, _CHECKBOX_CSS],
        sizing_mode="stretch_width",
        margin=(4, 5),
        syncable=False,
    )


#: A check box big enough for a finger, its label beside it.
_CHECKBOX_CSS = """
:host { display: flex; align-items: center; gap: 8px; }
input[type=checkbox] { width: 24px; height: 24px; margin: 0; flex: none; }
.bk-label { flex: 1 1 auto; min-width: 0; }
"""
