"""The self- and cross-attention explorable as a Panel component drawn from Python: parameters, models, layout."""

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
from attention_explorable.explorables.selfcross import SelfCrossExplorer
from attention_explorable.strings import STRINGS
from attention_explorable.views import selfcross as view
from attention_explorable.views.selfcross import EN_TOKENS, ZH_EMBEDDINGS, ZH_TOKENS


@pytest.fixture
def explorer():
    return SelfCrossExplorer()


def shown(explorer, name: str) -> str:
    """The HTML a readout shows."""
    return html.unescape(explorer._html[name].text)


def test_registered_under_its_name():
    assert explorable_class("selfcross") is SelfCrossExplorer


def test_default_draws_chinese_self_attention(explorer):
    assert explorer.mode == "self_zh" and explorer.query == 1 and not explorer.causal
    _, w = core.scaled_dot_product_attention(ZH_EMBEDDINGS, ZH_EMBEDDINGS, ZH_EMBEDDINGS)
    np.testing.assert_allclose(explorer.weights, w)
    assert explorer.query_tokens == explorer.key_tokens == ZH_TOKENS
    fig = explorer._figure
    assert fig.xaxis[0].axis_label == "键和值来自：中文句子" and fig.yaxis[0].axis_label == "查询来自：中文句子"
    assert fig.xaxis[0].major_label_overrides == dict(enumerate(ZH_TOKENS, start=1))  # keyed by the tick number
    assert "Q、键 K、值 V 都来自中文句子" in shown(explorer, "roles")
    assert "查询“我”的权重" in shown(explorer, "row") and "手工设定" in shown(explorer, "note")
    assert explorer._controls["query"].labels == list(ZH_TOKENS)
    assert explorer._controls["causal"].disabled


def test_python_changes_reach_the_state_model_and_the_drawn_models(explorer):
    explorer.param.update(mode="cross", query=2)
    fig = explorer._figure
    assert fig.yaxis[0].major_label_overrides == dict(enumerate(EN_TOKENS, start=1))
    assert fig.yaxis[0].axis_label == "查询来自：英文句子"
    assert explorer._controls["mode"].active == 2 and explorer._controls["query"].active == 1
    assert explorer._controls["query"].labels == list(EN_TOKENS)
    assert explorer._sources["highlight"].data["y"] == [2]
    assert STRINGS["zh"]["selfcross_hidden"] in shown(explorer, "row")  # (no weight before the prediction)
    explorer.param.update(mode="self_en", causal=True)
    assert explorer._controls["causal"].disabled  # before the prediction
    explorer.revealed = True
    assert not explorer._controls["causal"].disabled and explorer._controls["causal"].active
    texts = dict(
        zip(
            zip(explorer._sources["cells"].data["y"], explorer._sources["cells"].data["x"]),
            explorer._sources["cells"].data["text"],
        )
    )
    assert texts[(1, 2)] == "—" and texts[(2, 1)] != "—"
    assert STRINGS["zh"]["selfcross_roles_self_en_causal"] in shown(explorer, "roles")


def test_a_students_action_calls_python_which_draws_it(explorer):
    explorer._controls["mode"].active = 2  # before the prediction (a page greys it): refused, put back
    assert explorer.mode == "self_zh" and explorer._controls["mode"].active == 0 and explorer._controls["mode"].disabled
    explorer._acted(explorer._figure, Tap(explorer._figure, x=2.0, y=2.2))  # nor a tap on a row
    assert explorer.query == 1 and not explorer.revealed
    explorer._acted(explorer._ask["predict_skip"])  # skipped: the answer, cross-attention, is shown
    assert explorer.mode == "cross" and explorer.revealed and not explorer._controls["query"].disabled
    assert "查询 Q 来自英文句子" in shown(explorer, "roles")
    explorer._controls["query"].active = 3
    assert explorer.query == 4 and explorer._sources["highlight"].data["y"] == [4]
    explorer._act(explorer._figure, Tap(explorer._figure, x=2.0, y=2.2))  # a tap on the second row
    assert explorer.query == 2
    explorer._controls["mode"].active = 1
    explorer._controls["causal"].active = True
    assert explorer.causal and STRINGS["zh"]["selfcross_roles_self_en_causal"] in shown(explorer, "roles")
    # Elsewhere the box is greyed and shown unticked, and the mask is kept for the English self-attention.
    explorer._controls["mode"].active = 2
    assert explorer._controls["causal"].active is False and explorer._controls["causal"].disabled
    assert explorer.causal
    explorer._controls["mode"].active = 1
    assert explorer._controls["causal"].active is True and explorer.causal


@pytest.mark.parametrize("control, bad", [("query", 9), ("query", -1), ("mode", 7), ("mode", -1)])
def test_a_control_out_of_its_range_sets_nothing_and_is_put_back(explorer, control, bad):
    explorer.revealed = True  # (its controls open: what is refused here is the value)
    before = explorer.state()
    explorer._controls[control].active = bad
    assert explorer.state() == before
    assert explorer._controls[control].active == {"query": before["query"] - 1, "mode": 0}[control]


@pytest.mark.parametrize("name, bad", [("mode", "self_fr"), ("query", 0), ("query", 5), ("causal", 1.5)])
def test_bad_python_input_names_parameter(explorer, name, bad):
    with pytest.raises(ValueError, match=name):
        setattr(explorer, name, bad)
    assert explorer.weights.shape == (4, 4)


def test_sources_get_fresh_dicts(explorer):
    explorer.revealed = True
    before = explorer._sources["cells"].data
    explorer.mode = "self_en"
    assert explorer._sources["cells"].data is not before


def test_every_ui_string_comes_from_the_table():
    en = SelfCrossExplorer(language="en", mode="cross")
    assert en._figure.xaxis[0].axis_label == "Keys and values: Chinese words"
    assert en._controls["mode"].labels == [STRINGS["en"][f"selfcross_mode_{m}"] for m in view.MODES]
    assert "hand-made" in shown(en, "note")
    zh = SelfCrossExplorer()
    assert zh._controls["mode"].labels == ["自注意力（中文）", "自注意力（英文）", "交叉注意力（两句之间）"]
    assert zh._controls["causal"].label == STRINGS["zh"]["selfcross_causal"]


def test_layout_renders_and_carries_css_classes(explorer):
    root = pn.panel(explorer).get_root(Document())
    classes = set()
    for model in root.references():
        classes.update(getattr(model, "css_classes", []) or [])
    for css in [
        "ae-selfcross",
        "ae-selfcross-mode",
        "ae-selfcross-query",
        "ae-selfcross-causal",
        "ae-selfcross-roles",
        "ae-selfcross-row",
        "ae-selfcross-note",
        "ae-selfcross-heatmap",
    ]:
        assert css in classes, css


def test_no_javascript_of_the_explorable_runs_in_its_panel_component(explorer):
    root = pn.panel(explorer).get_root(Document())
    scripted = [m for m in root.references() if m.js_property_callbacks or m.js_event_callbacks]
    assert not any(isinstance(cb, CustomJS) for m in scripted for cbs in m.js_property_callbacks.values() for cb in cbs)
    assert not any(isinstance(cb, CustomJS) for m in scripted for cbs in m.js_event_callbacks.values() for cb in cbs)


def test_each_explorer_has_its_own_models():
    a, b = SelfCrossExplorer(), SelfCrossExplorer()
    a.mode = "cross"
    assert b.mode == "self_zh" and b.query_tokens == ZH_TOKENS
    assert a._controls["mode"] is not b._controls["mode"] and a._sources["cells"] is not b._sources["cells"]


def test_a_prediction_checked_says_whether_it_was_right():
    explorer = SelfCrossExplorer(language="en")
    assert explorer.state()["prediction"] == "" and explorer._ask["predict_check"].visible
    explorer.param.update(mode="cross", prediction="even", revealed=True)
    said = html.unescape(explorer._ask["feedback"].text)
    assert "About the same on all four words" in said and "That is not what happens." in said
    assert not explorer._ask["predict_skip"].visible
    with pytest.raises(ValueError, match="prediction"):
        explorer.prediction = "chinese!"
