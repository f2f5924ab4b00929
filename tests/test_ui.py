"""Shared UI pieces: number formatting and the clamped editable sliders."""

import panel as pn
import param
import pytest

from attention_explorable import ui


class Owner(param.Parameterized):
    t = param.Number(1.0, bounds=(0.01, 10.0))
    n = param.Integer(3, bounds=(0, 99))


@pytest.mark.parametrize("x, out", [(0.5, "0.5000"), (1.4e-87, "1.4×10<sup>-87</sup>"),
                                    (float("nan"), "NaN"), (float("inf"), "∞"), (-0.0, "0.0000")])
def test_format_number(x, out):
    assert ui.format_number(x) == out


def test_format_number_plain_text():
    assert ui.format_number(3.7e-44, html=False) == "3.7e-44"


@pytest.mark.parametrize("cls, name, typed, clamped", [
    (ui.EditableFloatSlider, "t", 50.0, 10.0), (ui.EditableFloatSlider, "t", -3.0, 0.01),
    (ui.EditableIntSlider, "n", 500, 99), (ui.EditableIntSlider, "n", -1, 0)])
def test_typed_value_out_of_range_is_clamped_visibly(cls, name, typed, clamped):
    owner = Owner()
    w = cls.from_param(getattr(owner.param, name), message_template="{name} {raw}→{value} [{lo}, {hi}]")
    notice = ui.input_notice([w])
    # The browser's box must accept any number, or it would keep showing a rejected one.
    assert w._value_edit.start is None and w._value_edit.end is None
    w._value_edit.value = typed
    assert getattr(owner, name) == clamped and w.value == clamped
    assert w._value_edit.value == clamped  # the box shows what the slider has
    assert f"{typed:g}→{clamped:g}" in w.message and notice.visible
    w._value_edit.value = 5
    assert getattr(owner, name) == 5 and w.message == "" and not notice.visible


def test_box_stays_open_when_bounds_change():
    owner = Owner()
    w = ui.EditableFloatSlider.from_param(owner.param.t)
    w.param.update(fixed_end=20.0, end=20.0)
    assert w._value_edit.end is None and w._value_edit.start is None
    pn.panel(w).get_root()


def test_box_has_no_script_that_stretches_the_slider():
    from panel.links import Callback

    owner = Owner()
    plain = pn.widgets.EditableFloatSlider.from_param(owner.param.t)
    assert Callback.registry.get(plain._value_edit)  # Panel's own widget has the script
    w = ui.EditableFloatSlider.from_param(owner.param.t)
    assert not Callback.registry.get(w._value_edit)


def test_emptied_box_shows_the_value_again_without_error():
    owner = Owner()
    w = ui.EditableFloatSlider.from_param(owner.param.t)
    w._value_edit.value = 2.5
    w._value_edit.value = None
    assert owner.t == 2.5 and w._value_edit.value == 2.5


def test_slider_steps_skip_the_throttled_echo():
    """A key press sends value and value_throttled; only value is processed (the second
    change would cost the server about a third of a step's work)."""
    owner = Owner()
    w = ui.EditableFloatSlider.from_param(owner.param.t)
    w._slider._process_events({"value": 2.5})
    assert owner.t == 2.5 and w.value == 2.5 and w._value_edit.value == 2.5
    seen = []
    w._slider.param.watch(lambda e: seen.append(e.new), "value_throttled")
    w._slider._process_events({"value_throttled": 3.0})
    assert seen == [] and owner.t == 2.5
