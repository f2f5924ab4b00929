"""The steps explorable as a Panel component: parameters, state model, models, layout."""

from __future__ import annotations

import panel as pn
import pytest
from bokeh.document import Document

from attention_explorable import scenarios
from attention_explorable.explorables.steps import StepsExplorer
from attention_explorable.views import steps as view

from . import the_module_callback


@pytest.fixture
def explorer():
    return StepsExplorer()


@pytest.mark.parametrize("n", [1, 2, 3])
def test_each_step_resets_to_its_start(explorer, n):
    explorer.param.update(score_diff=-3.0, temperature=5.0, value_1=-4.0, prediction_text="1", revealed=True)
    explorer.go_to_step(n)
    for key, value in scenarios.get_step(n).start.items():
        assert getattr(explorer, key) == value
    assert explorer.step == n and explorer.prediction is None and not explorer.revealed


@pytest.mark.parametrize("n", [1, 2, 3])
def test_demonstrate_reaches_the_target_and_keeps_the_prediction(explorer, n):
    explorer.go_to_step(n)
    explorer.prediction_text = "7,5"
    explorer.demonstrate()
    assert {k: getattr(explorer, k) for k in scenarios.STATE_KEYS} == dict(scenarios.get_step(n).target)
    assert explorer.revealed and explorer.prediction == 7.5


def test_python_changes_reach_the_state_model_and_the_drawn_models(explorer):
    explorer.go_to_step(3)
    assert explorer._state.step == 3 and explorer._state.score_1 == 20.0
    assert not explorer._curve_fig.visible  # the curve answers step 3: not before the demonstration
    explorer.demonstrate()
    assert explorer._curve_fig.visible and explorer._html["curve_data"].text
    explorer.temperature = 10.0
    assert explorer._state.temperature == 10.0
    assert explorer._sources["point"].data["t"] == [10.0]
    assert "T = 10.00" in explorer._html["readouts"].text


def test_browser_changes_set_the_parameters_without_drawing_on_the_server(explorer):
    before = explorer._html["readouts"].text
    explorer._from_browser("temperature", 1.0, 0.25)
    assert explorer.temperature == 0.25
    assert explorer._html["readouts"].text == before  # the browser drew it already


@pytest.mark.parametrize(
    "name, bad",
    [
        ("temperature", 0.0),
        ("temperature", 11.0),
        ("score_diff", float("nan")),
        ("step", 4),
        ("step", 1.5),
        ("revealed", "yes"),
        ("asked", 1),
        ("value_1", "3"),
        ("prediction_text", None),
        ("temperature", True),
    ],
)
def test_bad_values_from_the_browser_are_refused_and_put_back(explorer, name, bad):
    good = getattr(explorer, name)
    explorer._from_browser(name, good, bad)
    assert getattr(explorer, name) == good and getattr(explorer._state, name) == good


@pytest.mark.parametrize(
    "name, bad", [("temperature", 0.0), ("temperature", -1.0), ("score_diff", 11.0), ("value_1", float("nan"))]
)
def test_bad_python_input_names_parameter_and_value(explorer, name, bad):
    with pytest.raises(ValueError, match=name):
        setattr(explorer, name, bad)


def test_invalid_step_number(explorer):
    with pytest.raises(ValueError, match="step must be 1, 2 or 3, got 4"):
        explorer.go_to_step(4)


def test_layout_renders_and_controls_carry_css_classes(explorer):
    root = pn.panel(explorer).get_root(Document())
    classes = set()
    for model in root.references():
        classes.update(getattr(model, "css_classes", []) or [])
    for css in [
        "ae-step-1",
        "ae-step-2",
        "ae-step-3",
        "ae-demonstrate",
        "ae-skip-prediction",
        "ae-prediction",
        "ae-score-diff",
        "ae-temperature",
        "ae-value-1",
        "ae-value-2",
        "ae-score-1",
        "ae-temperature-box",
        "ae-readouts",
        "ae-formula",
        "ae-result",
        "ae-question",
    ]:
        assert css in classes, css
    assert "class='ae-output'" in explorer.view()["html"]["readouts"]


def test_only_the_state_model_travels_to_the_server(explorer):
    root = pn.panel(explorer).get_root(Document())
    drawn = [
        m
        for m in root.references()
        if type(m).__name__ in ("ColumnDataSource", "Slider", "TextInput", "Button", "Range1d", "HTML")
    ]
    synced = [m for m in drawn if m.syncable and m in explorer._models().values()]
    assert not synced, synced
    assert explorer._state.syncable


def test_the_module_runs_on_every_state_change_and_every_control(explorer):
    # The class panel's script follows the step too (web/classroom.js: the confirmation is per step).
    classroom = explorer._classroom.callback
    assert classroom.module is True and "class/socket" in str(classroom.args["config"])
    callback = the_module_callback(explorer, view.STATE_NAMES, "stepsView", others={"step": classroom})
    assert callback in explorer._demonstrate.js_event_callbacks["button_click"]
    assert callback in explorer._sliders["temperature"][0].js_property_callbacks["change:value"]


def test_each_explorer_has_its_own_models():
    a, b = StepsExplorer(), StepsExplorer()
    a.score_diff = 3.0
    assert b.score_diff == scenarios.get_step(1).start["score_diff"]
    assert a._state is not b._state and a._sources["weights"] is not b._sources["weights"]


def test_constructed_at_step_3_starts_in_its_situation():
    ex = StepsExplorer(step=3)
    assert (ex.score_1, ex.score_diff, ex.temperature) == (20.0, 2.0, 1.0)
    assert "第 3 步" in ex.view()["html"]["question"] and not ex._curve_fig.visible  # shown once demonstrated
    ex = StepsExplorer(step=3, temperature=0.5)
    assert ex.temperature == 0.5 and ex.score_1 == 20.0
