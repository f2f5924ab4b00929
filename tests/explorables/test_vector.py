"""The vector explorable as a Panel component drawn from Python: parameters, models, layout."""

from __future__ import annotations

import html

import numpy as np
import panel as pn
import pytest
from bokeh.document import Document
from bokeh.events import Tap
from bokeh.models import CustomJS

from attention_explorable import core
from attention_explorable.explorables import explorable_class
from attention_explorable.explorables.vector import VectorExplorer
from attention_explorable.strings import STRINGS

from . import page_heading


@pytest.fixture
def explorer():
    return VectorExplorer()


def test_default_state_reproduces_the_worked_example(explorer):
    # Section 3.7.6: scores 1, 0, 1; weights 0.422, 0.155, 0.422; y = [0.845, 0.578].
    assert explorer.scores.tolist() == [1.0, 0.0, 1.0]
    np.testing.assert_allclose(explorer.weights, [0.422, 0.155, 0.422], atol=5e-4)
    np.testing.assert_allclose(explorer.output, [0.845, 0.578], atol=5e-4)
    assert "α₂ = 0.155" in explorer._html["weights_readout"].text
    assert "y = [0.845, 0.578]" in explorer._html["output_readout"].text
    assert explorer._sources["output"].data["x"] == [pytest.approx(0.8446376)]
    assert explorer._sources["query"].data["x"] == [1.0] and explorer._sources["query"].data["y"] == [0.0]
    assert explorer._sources["hull"].data == {"x": [0.0, 1.0, 1.0], "y": [1.0, 0.0, 1.0]}


def test_the_opening_query_on_k1_leaves_the_key_in_sight(explorer):
    """The worked example opens on q = k₁: the query's wide arrow is drawn first, the keys' thin ones over it."""
    from bokeh.models import Arrow

    arrows = [m for m in explorer._figure.center if isinstance(m, Arrow)]
    sources = [a.source for a in arrows]
    query, keys = explorer._sources["query"], explorer._sources["keys"]
    assert sources.index(query) < sources.index(keys)
    assert arrows[sources.index(query)].line_width > arrows[sources.index(keys)].line_width


@pytest.mark.parametrize("qx, qy, temp", [(-1.5, 0.5, 1.0), (0.3, -2.0, 0.05), (2.0, 2.0, 5.0)])
def test_numbers_follow_core(explorer, qx, qy, temp):
    explorer.param.update(query_x=qx, query_y=qy, temperature=temp)
    out, w = core.scaled_dot_product_attention([qx, qy], explorer.keys, explorer.values, temperature=temp, scale=1.0)
    np.testing.assert_allclose(explorer.scores, core.dot_product_scores([qx, qy], explorer.keys, scale=1.0)[0])
    np.testing.assert_allclose(explorer.weights, w[0])
    np.testing.assert_allclose(explorer.output, out[0])
    assert explorer.weights.sum() == pytest.approx(1.0)
    np.testing.assert_allclose(explorer._sources["output"].data["x"], [out[0, 0]])


def test_python_changes_reach_the_drawn_models(explorer):
    explorer.query_y = 0.5
    assert "s₂ = 0.500" in explorer._html["scores_readout"].text
    assert explorer._sources["query"].data["y"] == [0.5]
    assert explorer._sliders["query_y"][0].value == 0.5 and explorer._sliders["query_y"][1].value == "0.5"
    explorer.temperature = 0.05
    assert "/ 0.05)" in explorer._html["formula"].text


def test_sources_get_fresh_dicts(explorer):
    before = explorer._sources["values"].data
    explorer.query_y = 0.5
    assert explorer._sources["values"].data is not before


def notice(explorer) -> str:
    shown = explorer._html["notice"]
    return html.unescape(html.unescape(shown.text)) if shown.visible else ""


def test_a_students_action_calls_python_which_draws_it(explorer):
    slider, box, _ = explorer._sliders["query_x"]
    slider.value = -0.7  # before the prediction (a page greys it): refused, put back
    assert explorer.query_x == 1.0 and slider.value == 1.0 and slider.disabled and box.disabled
    explorer._acted(explorer._figure, Tap(explorer._figure, x=-0.8042, y=1.3))  # nor a tap on the plane
    assert (explorer.query_x, explorer.query_y) == (1.0, 0.0)
    explorer._acted(explorer._ask["predict_skip"])
    assert not slider.disabled and not box.disabled
    slider.value = -0.7  # as the browser sets it
    assert explorer.query_x == -0.7 and explorer.scores[0] == pytest.approx(-0.7)
    assert box.value == "−0.7" and "s₁ = −0.700" in explorer._html["scores_readout"].text
    box.value = "5"  # typed out of range: clamped, and said
    assert explorer.query_x == 2.0 and box.value == "2" and slider.value == 2.0
    assert notice(explorer) == "查询 q 的第一个分量：输入的 5 超出范围 [−2, 2]，已改为 2。"
    box.value = "abc"  # junk: the box shows the value again, nothing else changes
    assert explorer.query_x == 2.0 and box.value == "2"
    t_box = explorer._sliders["temperature"][1]
    t_box.value = "0,5"  # a decimal comma is a number; in range, the notice goes
    assert explorer.temperature == 0.5 and t_box.value == "0.5" and notice(explorer) == ""
    explorer._act(explorer._figure, Tap(explorer._figure, x=-0.8042, y=1.3))  # a tap on the plane
    assert (explorer.query_x, explorer.query_y) == (-0.8, 1.3)
    explorer._sources["query"].data = {**explorer._sources["query"].data, "x": [0.6013], "y": [-0.7]}  # dropped
    assert (explorer.query_x, explorer.query_y) == (0.6, -0.7)
    assert explorer._sources["query"].data["x"] == [0.6]  # the tip snaps to the state
    explorer._sources["query"].data = {k: [] for k in explorer._sources["query"].data}  # deleted (Backspace)
    assert (explorer.query_x, explorer.query_y) == (0.6, -0.7) and explorer._sources["query"].data["x"] == [0.6]


@pytest.mark.parametrize(
    "name, bad",
    [("query_x", float("nan")), ("query_y", "0.5"), ("temperature", True), ("query_x", None)],
)
def test_a_slider_value_no_page_sends_sets_nothing_and_is_put_back(explorer, name, bad):
    explorer.revealed = True  # (its controls open: what is refused here is the value)
    good = getattr(explorer, name)
    slider = explorer._sliders[name][0]
    try:
        slider.value = bad
    except ValueError:  # Bokeh refuses it before Python sees it
        pass
    assert getattr(explorer, name) == good and slider.value == good


@pytest.mark.parametrize(
    "name, bad",
    [("query_x", 2.5), ("query_y", -3.0), ("temperature", 0.0), ("temperature", -1.0), ("query_x", float("nan"))],
)
def test_bad_python_input_names_parameter(explorer, name, bad):
    with pytest.raises(ValueError, match=name):
        setattr(explorer, name, bad)
    assert "NaN" not in explorer._html["weights_readout"].text


def test_set_query_as_a_tap_does(explorer):
    explorer.set_query(-0.7, 1.234)
    assert (explorer.query_x, explorer.query_y) == (-0.7, 1.23)
    assert explorer.scores.tolist() == pytest.approx([-0.7, 1.23, 0.53])
    explorer.set_query(7.0, -9.0)  # clamped to the bounds
    assert (explorer.query_x, explorer.query_y) == (2.0, -2.0)
    assert explorer._sources["query"].data["x"] == [2.0] and explorer._sources["query"].data["y"] == [-2.0]
    with pytest.raises(ValueError, match=r"finite numbers, got x=nan, y=0\.5"):
        explorer.set_query(float("nan"), 0.5)
    assert (explorer.query_x, explorer.query_y) == (2.0, -2.0)


@pytest.mark.parametrize(
    "bad",
    [
        np.array([[1.0, 2.0, 3.0]]),
        np.array([[np.nan, 0.0]]),
        np.zeros((7, 2)),
        np.zeros((0, 2)),
        np.array([["a", "b"]]),
    ],
)
def test_bad_keys_name_parameter_and_value(bad):
    with pytest.raises(ValueError, match=r"keys must be an \(n, 2\) array"):
        VectorExplorer(keys=bad)


def test_keys_and_values_are_constant_and_read_only(explorer):
    with pytest.raises(TypeError, match="keys"):
        explorer.keys = np.eye(3, 2)
    with pytest.raises(TypeError, match="values"):
        explorer.values = np.eye(3, 2)
    with pytest.raises(ValueError, match="read-only"):
        explorer.keys[0, 0] = 5.0
    assert explorer.keys[0, 0] == 1.0


def test_mismatched_keys_and_values():
    with pytest.raises(ValueError, match=r"keys and values must have the same shape.*\(2, 2\).*\(3, 2\)"):
        VectorExplorer(keys=np.eye(2))


def test_other_keys_and_values():
    ex = VectorExplorer(keys=np.array([[1.0, 0.0], [-1.0, 0.0]]), values=np.array([[0.0, 2.0], [0.0, -2.0]]))
    assert ex.weights.tolist() == pytest.approx(core.softmax([1.0, -1.0]).tolist())
    assert ex._sources["keys"].data["label"] == ["k₁", "k₂"]
    assert ex._config()["keys"] == [[1.0, 0.0], [-1.0, 0.0]]
    intro = [o for o in pn.panel(ex).select(pn.pane.HTML) if STRINGS["zh"]["vector_intro_custom"] in o.object]
    assert intro, "custom keys get the intro without the worked example's numbers"


def test_every_ui_string_comes_from_the_table():
    zh, en = VectorExplorer(), VectorExplorer(language="en")
    assert STRINGS["zh"]["readout_weights"] in zh._html["weights_readout"].text
    assert STRINGS["en"]["readout_weights"] in en._html["weights_readout"].text
    assert en._figure.title.text == STRINGS["en"]["vector_plot"]
    assert en._sliders["query_x"][0].title == STRINGS["en"]["vector_query_x"]
    intro = [o for o in pn.panel(zh).select(pn.pane.HTML) if STRINGS["zh"]["vector_intro"] in o.object]
    assert intro


def test_layout_renders_and_carries_css_classes(explorer):
    root = pn.panel(explorer).get_root(Document())
    classes = set()
    for model in root.references():
        classes.update(getattr(model, "css_classes", []) or [])
    for css in [
        "ae-vector",
        "ae-query-x",
        "ae-query-y",
        "ae-vector-temperature",
        "ae-query-x-box",
        "ae-query-y-box",
        "ae-vector-temperature-box",
        "ae-vector-scores",
        "ae-vector-weights",
        "ae-vector-output",
        "ae-vector-formula",
        "ae-error",
        "ae-input-notice",
        "ae-vector-plot",
    ]:
        assert css in classes, css


def test_no_javascript_of_the_explorable_runs_in_its_panel_component(explorer):
    root = pn.panel(explorer).get_root(Document())
    scripted = [m for m in root.references() if m.js_property_callbacks or m.js_event_callbacks]
    assert not any(isinstance(cb, CustomJS) for m in scripted for cbs in m.js_property_callbacks.values() for cb in cbs)
    assert not any(isinstance(cb, CustomJS) for m in scripted for cbs in m.js_event_callbacks.values() for cb in cbs)


def test_each_explorer_has_its_own_models():
    a, b = VectorExplorer(), VectorExplorer()
    a.query_x = -1.0
    assert b.query_x == 1.0 and b.scores.tolist() == [1.0, 0.0, 1.0]
    assert a._sliders["query_x"][0] is not b._sliders["query_x"][0]
    assert a._figure is not b._figure and a._sources["query"] is not b._sources["query"]
    assert a.keys is not b.keys


def test_registered_and_served_by_the_app():
    from attention_explorable import apps

    assert explorable_class("vector") is VectorExplorer
    page = apps.explorable_app("vector", "en")
    assert any("ae-vector" in (o.css_classes or []) for o in page.objects)
    assert page_heading(page) == STRINGS["en"]["vector_heading"]


def test_a_prediction_checked_says_whether_it_was_right():
    explorer = VectorExplorer(language="en")
    assert explorer.state()["prediction"] == "" and explorer._ask["predict_check"].visible
    explorer.param.update(prediction="midpoint", revealed=True)
    said = html.unescape(explorer._ask["feedback"].text)
    assert "Halfway between v₁ and v₃" in said and "That is right." in said
    assert not explorer._ask["predict_check"].visible and explorer._ask["prediction_choice"].active == 2
    with pytest.raises(ValueError, match="prediction"):
        explorer.prediction = "<script>"
    custom = VectorExplorer(keys=np.array([[1.0, 2.0]]), values=np.array([[0.0, 0.0]]))
    assert not custom._ask["question"].visible and not custom._ask["prediction_choice"].visible
