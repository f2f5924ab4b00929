"""The matrix explorable as a Panel component drawn from Python: parameters, models, layout."""

from __future__ import annotations

import html

import numpy as np
import panel as pn
import pytest
from bokeh.document import Document
from bokeh.models import CustomJS

from attention_explorable import apps
from attention_explorable.explorables import MODULES, explorable_class
from attention_explorable.explorables.matrix import MatrixExplorer
from attention_explorable.strings import STRINGS
from attention_explorable.views import matrix as view

from . import page_heading


@pytest.fixture
def explorer():
    return MatrixExplorer()


def shown(model) -> str:
    return html.unescape(model.text)


def test_defaults_and_numbers_follow_the_view(explorer):
    assert explorer.state() == {
        "n_tokens": 4,
        "d_k": 4,
        "seed": 5,
        "q1_scale": 1.0,
        "causal": False,
        "scaled": True,
        "prediction": "",
        "revealed": False,
    }
    assert not explorer._curve_fig.visible  # predict first: the curves are the answer
    res = view.attention_matrices(explorer.state())
    np.testing.assert_array_equal(explorer.weights, res["weights"])
    np.testing.assert_array_equal(explorer.scores, res["scores"])
    assert explorer.mean_max_weight == res["mean_max_weight"]
    assert f"{explorer.mean_max_weight:.3f}" in shown(explorer._html["max_weight"])


def test_python_changes_reach_the_drawn_models(explorer):
    explorer.param.update(n_tokens=6, causal=True)
    assert len(explorer._sources["weight_cells"].data["x"]) == 36
    assert explorer._weight_fig.x_range.end == 6.5 and explorer._weight_fig.y_range.start == 6.5
    assert explorer._toggles["causal"].active is True
    assert STRINGS["zh"]["matrix_masked_note"] in shown(explorer._html["notes"])
    explorer.scaled = False
    assert explorer._score_fig.title.text == STRINGS["zh"]["matrix_plot_scores_unscaled"]
    assert explorer._toggles["scaled"].active is False
    explorer.d_k = 32
    assert explorer._sources["mark"].data["d"] == [32]
    assert explorer._sliders["d_k"][0].value == 32 and explorer._sliders["d_k"][1].value == "32"
    assert explorer._sources["curve"].data["unscaled"] == view.matrix_config("zh")["curves"]["6"]["unscaled"]


def notice(explorer) -> str:
    said = explorer._html["notice"]
    return html.unescape(html.unescape(said.text)) if said.visible else ""


def test_a_students_action_calls_python_which_draws_it(explorer):
    slider, box, _ = explorer._sliders["d_k"]
    slider.value = 9  # before the prediction (a page greys it): refused, put back
    assert explorer.d_k != 9 and slider.value == explorer.d_k and slider.disabled and explorer._new_seed.disabled
    explorer._acted(explorer._ask["predict_skip"])
    assert explorer.revealed and explorer._curve_fig.visible and not slider.disabled and not explorer._new_seed.disabled
    slider.value = 9  # as the browser sets it
    assert explorer.d_k == 9 and box.value == "9" and explorer._sources["mark"].data["d"] == [9]
    box.value = "100"  # typed beyond the slider: clamped, and said
    assert explorer.d_k == 64 and slider.value == 64 and box.value == "64"
    assert notice(explorer) == "维度 dₖ：输入的 100 超出范围 [1, 64]，已改为 64。"
    explorer._sliders["q1_scale"][0].value = 1.1000000000000001  # a slider's step in floating point
    assert explorer.q1_scale == 1.1 and notice(explorer) == ""
    explorer._toggles["causal"].active = True
    assert explorer.causal and STRINGS["zh"]["matrix_masked_note"] in shown(explorer._html["notes"])
    seed = explorer.seed
    explorer._act(explorer._new_seed)
    assert explorer.seed != seed and 0 <= explorer.seed <= 9999
    assert explorer._sliders["seed"][1].value == str(explorer.seed)


@pytest.mark.parametrize(
    "name, bad", [("d_k", float("inf")), ("q1_scale", float("nan")), ("seed", None), ("n_tokens", "3")]
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
    [
        ("d_k", 0),
        ("d_k", 65),
        ("n_tokens", 7),
        ("n_tokens", 1),
        ("seed", -1),
        ("q1_scale", -0.5),
        ("q1_scale", float("nan")),
        ("causal", "yes"),
        ("d_k", 2.5),
    ],
)
def test_bad_python_input_names_parameter(explorer, name, bad):
    before = explorer.weights.copy()
    with pytest.raises(ValueError, match=name):
        setattr(explorer, name, bad)
    np.testing.assert_array_equal(explorer.weights, before)


def test_sources_get_fresh_dicts(explorer):
    before = explorer._sources["weight_cells"].data
    explorer.d_k = 8
    assert explorer._sources["weight_cells"].data is not before


def test_every_ui_string_comes_from_the_table():
    zh, en = MatrixExplorer(), MatrixExplorer(language="en")
    assert STRINGS["zh"]["matrix_row_sums"] in shown(zh._html["row_sums"])
    assert STRINGS["en"]["matrix_row_sums"] in shown(en._html["row_sums"])
    assert en._weight_fig.title.text == STRINGS["en"]["matrix_plot_weights"]
    assert en._curve_fig.title.text == STRINGS["en"]["matrix_plot_saturation"]
    assert en._new_seed.label == STRINGS["en"]["matrix_new_seed"]
    assert en._toggles["causal"].label == STRINGS["en"]["matrix_causal"]
    assert en._sliders["q1_scale"][0].title == STRINGS["en"]["matrix_q1_scale"]


def test_layout_renders_and_carries_css_classes(explorer):
    root = pn.panel(explorer).get_root(Document())
    classes = set()
    for model in root.references():
        classes.update(getattr(model, "css_classes", []) or [])
    for css in [
        "ae-matrix",
        "ae-matrix-causal",
        "ae-matrix-scaled",
        "ae-matrix-dk",
        "ae-matrix-dk-box",
        "ae-matrix-seed",
        "ae-matrix-seed-box",
        "ae-matrix-n",
        "ae-matrix-q1-scale",
        "ae-matrix-new-seed",
        "ae-matrix-max-weight",
        "ae-matrix-row-sums",
        "ae-matrix-notes",
        "ae-matrix-notice",
        "ae-matrix-scores",
        "ae-matrix-weights",
        "ae-matrix-curve",
    ]:
        assert css in classes, css


def test_no_javascript_of_the_explorable_runs_in_its_panel_component(explorer):
    root = pn.panel(explorer).get_root(Document())
    scripted = [m for m in root.references() if m.js_property_callbacks or m.js_event_callbacks]
    assert not any(isinstance(cb, CustomJS) for m in scripted for cbs in m.js_property_callbacks.values() for cb in cbs)
    assert not any(isinstance(cb, CustomJS) for m in scripted for cbs in m.js_event_callbacks.values() for cb in cbs)


def test_each_explorer_has_its_own_models():
    a, b = MatrixExplorer(), MatrixExplorer()
    a.d_k = 10
    assert b.d_k == 4 and b.weights.shape == (4, 4)
    assert a._sliders["d_k"][0] is not b._sliders["d_k"][0]
    assert a._sources["weight_cells"] is not b._sources["weight_cells"] and a._curve_fig is not b._curve_fig


def test_registry_and_app_build_this_explorable():
    assert MODULES["matrix"].viewer == "attention_explorable.explorables.matrix:MatrixExplorer"
    assert explorable_class("matrix") is MatrixExplorer
    page = apps.explorable_app("matrix", "en")
    assert page_heading(page) == STRINGS["en"]["matrix_heading"]
    assert any("ae-matrix" in (obj.css_classes or []) for obj in page.objects)


def test_a_prediction_checked_shows_the_curves_and_says_whether_it_was_right(explorer):
    explorer.param.update(prediction="flatter", revealed=True)
    assert explorer._curve_fig.visible
    said = shown(explorer._ask["feedback"])
    assert "越来越平均" in said and "和你的预测不一样" in said
    with pytest.raises(ValueError, match="prediction"):
        explorer.prediction = "<b>x</b>"
