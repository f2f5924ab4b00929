"""The steps explorable as a Panel component: parameters, state model, models, layout."""

from __future__ import annotations

import html

import panel as pn
import pytest
from bokeh.document import Document
from bokeh.events import ButtonClick, Tap
from bokeh.models import CustomJS

from attention_explorable import scenarios
from attention_explorable.strings import STRINGS
from attention_explorable.explorables.steps import StepsExplorer


@pytest.fixture
def explorer():
    return StepsExplorer()


@pytest.mark.parametrize("n", [1, 2, 3])
def test_each_step_resets_to_its_start_and_keeps_the_values_on_screen(explorer, n):
    explorer.param.update(score_diff=-3.0, temperature=5.0, value_1=-4.0, prediction_text="1", revealed=True)
    explorer.go_to_step(n)
    for key, value in scenarios.get_step(n).start.items():
        assert getattr(explorer, key) == (-4.0 if key == "value_1" else value), key
    assert explorer.step == n and explorer.prediction is None and not explorer.revealed


@pytest.mark.parametrize("n", [1, 2, 3])
def test_values_a_student_moves_before_predicting_are_demonstrated_and_checked(explorer, n):
    """v₁ set to 4 before the prediction: the step shows and grades y with v₁ = 4 (demonstrate reset it to 2
    and graded a right prediction, 7 at step 1, as wrong)."""
    explorer.go_to_step(n)
    explorer.value_1 = 4.0
    target = {**scenarios.get_step(n).target, "value_1": 4.0}
    y = scenarios.outcome(target)["output"]
    explorer.prediction_text = f"{y:.2f}"
    explorer.demonstrate()
    assert {k: getattr(explorer, k) for k in scenarios.STATE_KEYS} == target
    result = explorer._models()["result"].text
    assert (
        f"y = {y:.2f}" in result and STRINGS["zh"]["result_right"].format(within=f"{scenarios.WITHIN:g}") in result
    ), result


@pytest.mark.parametrize("n", [1, 2, 3])
def test_demonstrate_reaches_the_target_and_keeps_the_prediction(explorer, n):
    explorer.go_to_step(n)
    explorer.prediction_text = "7,5"
    explorer.demonstrate()
    assert {k: getattr(explorer, k) for k in scenarios.STATE_KEYS} == dict(scenarios.get_step(n).target)
    assert explorer.revealed and explorer.prediction == 7.5


@pytest.mark.parametrize("n", [1, 2, 3])
def test_an_authors_values_survive_each_step_and_its_demonstration(n):
    explorer = StepsExplorer(value_2=8.0, language="en")  # as a tag's value_2="8" or save() of that state
    explorer.go_to_step(n)
    assert (explorer.value_1, explorer.value_2) == (2.0, 8.0)
    explorer.prediction_text = "5"
    explorer.demonstrate()
    target = {**scenarios.get_step(n).target, "value_2": 8.0}
    assert {k: getattr(explorer, k) for k in scenarios.STATE_KEYS} == target
    # the check is against what was demonstrated: the output with v₂ = 8, not the course's 10
    y = scenarios.outcome(target)["output"]
    assert f"y = {y:.2f}" in explorer._models()["result"].text
    assert ("v₁ = 2 and v₂ = 8" in explorer._models()["question"].text) is (n == 1)  # (step 1 names its values)


def test_a_links_values_are_every_steps_too_and_numpy_numbers_are_values():
    import numpy as np

    linked = StepsExplorer(language="en")
    linked.open_link("value_2=8&step=1")  # as a live page opened on /steps?value_2=8
    linked.go_to_step(2)
    linked.demonstrate()
    assert linked.value_2 == 8.0 and "v₁ = 2 and v₂ = 8" not in linked._models()["question"].text  # (step 2)
    linked.go_to_step(1)
    assert linked.value_2 == 8.0 and "v₁ = 2 and v₂ = 8" in linked._models()["question"].text
    values = np.array([1, 7])  # an author's numbers from numpy
    explorer = StepsExplorer(value_1=values[0], value_2=values[1])
    explorer.go_to_step(3)
    assert (explorer.value_1, explorer.value_2) == (1.0, 7.0)


def test_python_changes_reach_the_drawn_models(explorer):
    explorer.go_to_step(3)
    assert explorer._sliders["score_1"][0].value == 20.0
    assert not explorer._curve_fig.visible  # the curve answers step 3: not before the demonstration
    explorer.demonstrate()
    assert explorer._curve_fig.visible and explorer._html["curve_data"].text
    explorer.temperature = 10.0
    assert explorer._sources["point"].data["t"] == [10.0]
    assert "T = 10.00" in explorer._html["readouts"].text


def _click(explorer, model):
    explorer._acted(model, ButtonClick(model))


def test_a_dragged_sliders_float_noise_is_not_written_back_to_the_browser(explorer):
    """A drag's value off the grid by float noise only becomes the state, and the slider keeps what the
    browser sent: a write back (7.0) would reach the browser as the drag goes on and pull the handle back."""
    explorer.demonstrate()  # (after the step's demonstration: its sliders open)
    slider = explorer._sliders["temperature"][0]
    slider.value = 7.000000000000001  # as a drag in the browser sends it
    explorer._acted(slider)
    assert explorer.temperature == 7.0 and "T = 7.00" in explorer._html["readouts"].text
    assert slider.value == 7.000000000000001
    slider.value = 8.004  # off the grid by more than noise: the state's value is drawn
    explorer._acted(slider)
    assert explorer.temperature == 8.0 and slider.value == 8.0


def test_the_student_steps_predicts_and_demonstrates_through_python(explorer):
    _click(explorer, explorer._step_buttons[2])
    assert explorer.step == 2 and explorer.score_diff == scenarios.get_step(2).start["score_diff"]
    _click(explorer, explorer._demonstrate)  # no prediction: one is asked for, nothing is shown
    assert explorer.asked and not explorer.revealed and explorer._skip.visible
    explorer._prediction_input.value_input = "8,5"
    explorer._acted(explorer._prediction_input)
    assert explorer.prediction == 8.5
    _click(explorer, explorer._demonstrate)  # no page: the step's end at once
    assert explorer.revealed and not explorer.asked
    assert {k: getattr(explorer, k) for k in scenarios.STATE_KEYS} == dict(scenarios.get_step(2).target)
    explorer._acted(explorer._line_fig, Tap(explorer._line_fig, x=31.0, y=0.0))
    assert explorer.prediction_text == "20.00"  # a tap beyond the line is a prediction at its end


def test_a_presenters_copy_plays_at_once():
    ex = StepsExplorer(ask_prediction=False)
    _click(ex, ex._demonstrate)
    assert ex.revealed and not ex.asked


def test_a_typed_value_is_clamped_with_a_notice_and_junk_is_put_back(explorer):
    explorer.demonstrate()  # (after the step's demonstration: its sliders open)
    box = explorer._sliders["temperature"][1]
    box.value = "99"
    explorer._acted(box)
    assert explorer.temperature == 10.0 and explorer._html["notice"].visible
    box.value = "<b>warm</b>"
    explorer._acted(box)
    assert explorer.temperature == 10.0 and box.value == "10"
    # junk is said (as text, never markup) and the value kept
    said = html.unescape(html.unescape(explorer._html["notice"].text))
    assert explorer._html["notice"].visible and "<b>warm</b> 不是一个数，仍为 10" in said, said
    assert "<b>" not in explorer._html["notice"].text
    box.value = ""
    explorer._acted(box)
    assert not explorer._html["notice"].visible and box.value == "10"  # an emptied box just shows the value


def test_what_no_page_of_ours_sends_sets_nothing(explorer):
    slider = explorer._sliders["temperature"][0]
    slider.value = float("nan")
    explorer._acted(slider)
    assert explorer.temperature == 1.0 and slider.value == 1.0  # put back as the state has it
    explorer._prediction_input.value_input = "9" * 10_001
    explorer._acted(explorer._prediction_input)
    assert explorer.prediction_text == ""


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


def test_no_javascript_of_the_explorable_runs_in_it(explorer):
    root = pn.panel(explorer).get_root(Document())
    assert not [m for m in root.references() if isinstance(m, CustomJS)]


def test_each_explorer_has_its_own_models():
    a, b = StepsExplorer(), StepsExplorer()
    a.score_diff = 3.0
    assert b.score_diff == scenarios.get_step(1).start["score_diff"]
    assert a._sources["weights"] is not b._sources["weights"]


def test_constructed_at_step_3_starts_in_its_situation():
    ex = StepsExplorer(step=3)
    assert (ex.score_1, ex.score_diff, ex.temperature) == (20.0, 2.0, 1.0)
    assert "第 3 步" in ex.view()["html"]["question"] and not ex._curve_fig.visible  # shown once demonstrated
    ex = StepsExplorer(step=3, temperature=0.5)
    assert ex.temperature == 0.5 and ex.score_1 == 20.0


def test_every_legend_entry_has_its_marker_before_the_student_predicts(explorer):
    """Bokeh draws a legend entry's swatch from its renderer's data: the prediction's entry stands on a
    renderer of its own, with a point (never on the plot), so its triangle shows while no prediction is made."""
    assert explorer.state()["prediction_text"] == ""
    legend = explorer._line_fig.legend[0]
    for item in legend.items:
        for renderer in item.renderers:
            data = renderer.data_source.data
            assert len(next(iter(data.values()))) >= 1, item.label


def test_the_sliders_wait_for_the_steps_demonstration():
    """Predict first: before a step is demonstrated (or skipped) the sliders and boxes of what it moves (the
    scores, the temperature) are greyed and what a
    page sends is put back; the demonstration opens them, and the next step closes them again. A
    presenter's explorable (``ask_prediction=False``) has them open from the start."""
    explorer = StepsExplorer()
    slider, box, _ = explorer._sliders["temperature"]
    assert slider.disabled and box.disabled
    slider.value = 0.5
    assert explorer.temperature == 1.0 and slider.value == 1.0
    explorer.prediction_text = "8"
    explorer.demonstrate()
    assert not slider.disabled and not box.disabled
    slider.value = 0.5
    assert explorer.temperature == 0.5
    explorer.go_to_step(2)
    assert slider.disabled and box.disabled
    assert not explorer._sliders["value_1"][0].disabled  # (no step moves the values)
    presenter = StepsExplorer(ask_prediction=False)
    assert not presenter._sliders["score_diff"][0].disabled
