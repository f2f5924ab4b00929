"""Component tests of StepsExplorer, without a browser."""

import re

import numpy as np
import panel as pn
import pytest

from attention_explorable import core, scenarios, ui
from attention_explorable.steps import StepsExplorer
from attention_explorable.strings import STRINGS


def number(html: str, label: str) -> float:
    """The number after ``label =`` in a readout's HTML."""
    m = re.search(re.escape(label) + r" = (-?[0-9.]+)", html)
    assert m, f"{label!r} not found in {html!r}"
    return float(m.group(1))


@pytest.fixture
def explorer():
    return StepsExplorer(animate=False)


def test_step_1_starts_unequal_and_demonstrates_the_midpoint(explorer):
    html = ui.readout_html(explorer._readouts)
    a2 = 1 / (1 + np.exp(-1.0))
    assert number(html, "a₂") == pytest.approx(a2, abs=1e-4)
    assert number(html, "y") == pytest.approx(2 + 8 * a2, abs=1e-4)  # the answer is not shown yet
    explorer.param.trigger("demonstrate")
    html = ui.readout_html(explorer._readouts)
    assert number(html, "a₁") == pytest.approx(0.5)
    assert number(html, "y") == pytest.approx(6.0)
    assert explorer._output.data["x"] == [pytest.approx(6.0)]
    assert explorer._interval.data == {"x0": [2.0], "x1": [10.0]}


@pytest.mark.parametrize("n", [1, 2, 3])
def test_each_step_resets_to_its_start(explorer, n):
    explorer.param.update(score_diff=-3.0, temperature=5.0, value_1=-4.0, prediction_text="1")
    explorer.param.trigger(f"go_step_{n}")
    step = scenarios.get_step(n)
    for key, value in step.start.items():
        assert getattr(explorer, key) == value
    assert explorer.step == n and explorer.prediction is None and not explorer.revealed


@pytest.mark.parametrize("n", [1, 2, 3])
def test_demonstrate_reaches_target_and_compares_with_prediction(explorer, n):
    explorer.go_to_step(n)
    explorer.prediction_text = "7.5"
    explorer.param.trigger("demonstrate")
    step = scenarios.get_step(n)
    for key, value in step.target.items():
        assert getattr(explorer, key) == pytest.approx(value)
    expected = float(core.weighted_sum(
        core.softmax([step.target["score_1"], step.target["score_1"] + step.target["score_diff"]],
                     temperature=step.target["temperature"]),
        [step.target["value_1"], step.target["value_2"]]))
    assert number(ui.readout_html(explorer._readouts), "y") == pytest.approx(expected, abs=1e-4)
    result = explorer._result.object
    assert "7.5" in result and f"{expected:.2f}" in result and f"{abs(7.5 - expected):.2f}" in result
    assert explorer.prediction == 7.5  # the prediction is kept


def test_step_2_moves_output_towards_second_value_inside_interval(explorer):
    explorer.go_to_step(2)
    before = explorer._output.data["x"][0]
    explorer.param.trigger("demonstrate")
    after = explorer._output.data["x"][0]
    assert before == pytest.approx(6.0) and 6.0 < after < 10.0
    assert number(ui.readout_html(explorer._readouts), "a₂") == pytest.approx(1 / (1 + np.exp(-2)), abs=1e-4)
    for diff in np.linspace(-10, 10, 21):  # controls stay free after the demonstration
        explorer.score_diff = float(diff)
        assert 2.0 <= explorer._output.data["x"][0] <= 10.0


def test_step_3_low_temperature_sharpens_high_tends_to_average(explorer):
    explorer.go_to_step(3)
    explorer.param.trigger("demonstrate")
    assert explorer.temperature == pytest.approx(0.02)
    a2 = explorer._weights.data["weight"][1]
    assert 0.999 < a2 < 1.0 or a2 == pytest.approx(1.0)
    assert explorer._weights.data["weight"][0] > 0.0  # a weighting, never a hard maximum
    assert "NaN" in ui.readout_html(explorer._naive) and "∞" in ui.readout_html(explorer._naive)
    explorer.temperature = 10.0
    assert explorer._weights.data["weight"][1] == pytest.approx(1 / (1 + np.exp(-0.2)))
    assert "NaN" not in ui.readout_html(explorer._naive).split("<br>")[0]
    assert explorer._point.data["t"] == [10.0]
    curve_t, curve_w = explorer._curve.data["t"], explorer._curve.data["weight"]
    assert curve_t[0] == pytest.approx(0.01) and curve_t[-1] == pytest.approx(10.0)
    assert np.all(np.diff(curve_w) <= 1e-15)  # monotone: sharper at low T


def test_temperature_curve_visible_only_in_step_3(explorer):
    assert not explorer._curve_fig.visible
    explorer.go_to_step(3)
    assert explorer._curve_fig.visible and explorer._naive.object.visible


def test_sources_get_fresh_dicts_not_in_place_edits(explorer):
    data_before = explorer._weights.data
    explorer.score_diff = 2.5
    assert explorer._weights.data is not data_before


def test_tap_sets_prediction_within_bounds(explorer):
    class Event:
        x = 123.0
    explorer._on_tap(Event())
    assert explorer.prediction == 20.0
    Event.x = 4.321
    explorer._on_tap(Event())
    assert explorer.prediction == 4.32
    assert explorer._prediction.data["x"] == [4.32]


@pytest.mark.parametrize("name, bad", [("temperature", 0.0), ("temperature", -1.0),
                                       ("score_diff", 11.0), ("value_1", float("nan"))])
def test_bad_input_names_parameter_and_value(explorer, name, bad):
    with pytest.raises(ValueError, match=name):
        setattr(explorer, name, bad)
    assert "NaN" not in ui.readout_html(explorer._readouts)


@pytest.mark.parametrize("raw", ["abc", "1e999", "21", "nan", "<b>x</b>"])
def test_malformed_prediction_gives_a_clear_message(explorer, raw):
    explorer.prediction_text = raw
    assert explorer.prediction is None
    assert explorer._error.visible
    assert "预测必须是 -20 到 20 之间的数字" in explorer._error.object
    assert "<b>x" not in explorer._error.object
    explorer.prediction_text = "5，5"  # a full-width comma typed as decimal mark
    assert explorer.prediction == 5.5 and not explorer._error.visible


def test_invalid_step_number(explorer):
    with pytest.raises(ValueError, match="step must be 1, 2 or 3, got 4"):
        explorer.go_to_step(4)


def test_formula_shows_current_numbers(explorer):
    explorer.param.update(score_diff=1.5, temperature=0.5)
    assert "(1.50)/0.50" in ui.readout_html(explorer._formula)
    w = core.softmax([0.0, 1.5], temperature=0.5)
    assert f"{w[1]:.4f}" in ui.readout_html(explorer._formula)


def test_every_ui_string_comes_from_the_table():
    zh, en = StepsExplorer(animate=False), StepsExplorer(animate=False, language="en")
    assert STRINGS["zh"]["step1_question"] in zh._question.object
    assert STRINGS["en"]["step1_question"] in en._question.object
    assert set(STRINGS["zh"]) == set(STRINGS["en"])


def test_layout_renders_and_widgets_carry_css_classes(explorer):
    root = pn.panel(explorer).get_root()
    classes = set()
    for model in root.references():
        classes.update(getattr(model, "css_classes", []) or [])
    for css in ["ae-step-1", "ae-step-2", "ae-step-3", "ae-demonstrate", "ae-prediction",
                "ae-score-diff", "ae-temperature", "ae-value-1", "ae-value-2"]:
        assert css in classes, css
    html = ui.readout_html(explorer._readouts)
    for css in ["ae-weight-1", "ae-weight-2", "ae-output"]:
        assert f"class='{css}'" in html


def test_each_explorer_has_its_own_widgets():
    a, b = StepsExplorer(animate=False), StepsExplorer(animate=False)
    a.score_diff = 3.0
    assert b.score_diff == scenarios.get_step(1).start["score_diff"]
    assert a._controls["score_diff"] is not b._controls["score_diff"]
    assert a._weights is not b._weights


def test_constructed_at_step_3_starts_in_its_situation():
    ex = StepsExplorer(step=3, animate=False)
    assert (ex.score_1, ex.score_diff, ex.temperature) == (20.0, 2.0, 1.0)
    assert "第 3 步" in ex._question.object and ex._curve_fig.visible
    ex = StepsExplorer(step=3, temperature=0.5, animate=False)
    assert ex.temperature == 0.5 and ex.score_1 == 20.0


def test_browser_drawing_lives_on_the_session_models_only():
    """The mirror's callbacks hang on the root's Bokeh models, not in Panel's process-wide
    ``Callback.registry``, whose entries would keep every closed session alive."""
    from bokeh.document import Document
    from bokeh.models import CustomJS
    from panel.links import Callback

    explorer = StepsExplorer(browser_drawing=True)
    root = pn.panel(explorer).get_root(Document())
    sliders = [explorer._controls[name]._slider for name in scenarios.STATE_KEYS]
    assert not any(obj in Callback.registry for obj in sliders + [explorer._readouts, explorer._formula])
    ref = root.ref["id"]
    callbacks = {id(cb) for s in sliders for cb in s._models[ref][0].js_property_callbacks.get("change:value", [])
                 if isinstance(cb, CustomJS)}
    assert len(callbacks) == 1  # one shared drawing callback on every slider of this root
    assert explorer._readouts.object.js_property_callbacks.get("change:text")
    plain = StepsExplorer(browser_drawing=False)
    root = pn.panel(plain).get_root(Document())
    assert not plain._readouts.object.js_property_callbacks
