"""The matrix explorable as a Panel component: parameters, state model, models, layout."""

from __future__ import annotations

import html

import numpy as np
import panel as pn
import pytest
from bokeh.document import Document

from attention_explorable import apps
from attention_explorable.explorables import EXPLORABLES, explorable_class
from attention_explorable.explorables.matrix import MatrixExplorer
from attention_explorable.strings import STRINGS
from attention_explorable.views import matrix as view

from . import page_heading, the_module_callback


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
    assert f"{explorer.mean_max_weight:.4f}" in shown(explorer._html["max_weight"])


def test_python_changes_reach_the_state_model_and_the_drawn_models(explorer):
    explorer.param.update(n_tokens=6, causal=True)
    assert explorer._state.n_tokens == 6 and explorer._state.causal is True
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


def test_browser_changes_set_the_parameters_without_drawing_on_the_server(explorer):
    before = explorer._html["max_weight"].text
    explorer._from_browser("d_k", 4, 9)
    explorer._from_browser("causal", False, True)
    assert explorer.d_k == 9 and explorer.causal is True
    assert explorer._html["max_weight"].text == before  # the browser drew it already


@pytest.mark.parametrize(
    "name, bad",
    [
        ("d_k", 0),
        ("d_k", 65),
        ("d_k", 2.5),
        ("n_tokens", 7),
        ("n_tokens", 1),
        ("seed", -1),
        ("q1_scale", 4.5),
        ("q1_scale", float("nan")),
        ("causal", "yes"),
        ("scaled", 1),
        ("seed", None),
    ],
)
def test_bad_values_from_the_browser_are_refused_and_put_back(explorer, name, bad):
    good = getattr(explorer, name)
    explorer._from_browser(name, good, bad)
    assert getattr(explorer, name) == good and getattr(explorer._state, name) == good


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


def test_only_the_state_model_travels_to_the_server(explorer):
    root = pn.panel(explorer).get_root(Document())
    refs = set(root.references())
    models = explorer._models()
    assert set(models.values()) <= refs
    synced = [name for name, m in models.items() if m.syncable]
    assert not synced, synced
    assert explorer._state.syncable


def test_the_module_runs_on_every_state_change_and_every_control(explorer):
    callback = the_module_callback(explorer, view.STATE_NAMES, "matrixView")
    assert callback.args["config"]["curves"]["4"]["d"] == list(range(1, 65))
    assert callback in explorer._new_seed.js_event_callbacks["button_click"]
    for name in view.TOGGLES:
        assert callback in explorer._toggles[name].js_property_callbacks["change:active"]
    for name in view.SLIDERS:
        slider, box, _ = explorer._sliders[name]
        assert callback in slider.js_property_callbacks["change:value"]
        assert callback in box.js_property_callbacks["change:value"]


def test_each_explorer_has_its_own_models():
    a, b = MatrixExplorer(), MatrixExplorer()
    a.d_k = 10
    assert b.d_k == 4 and b.weights.shape == (4, 4)
    assert a._state is not b._state and a._sliders["d_k"][0] is not b._sliders["d_k"][0]
    assert a._sources["weight_cells"] is not b._sources["weight_cells"] and a._curve_fig is not b._curve_fig


def test_registry_and_app_build_this_explorable():
    assert EXPLORABLES["matrix"].viewer == "attention_explorable.explorables.matrix:MatrixExplorer"
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
