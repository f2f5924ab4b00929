"""The "from X to the output" explorable as a Panel component: its parameters, its numbers, its page."""

from __future__ import annotations

import html

import numpy as np
import pytest

from attention_explorable import apps
from attention_explorable.explorables.qkv import QkvExplorer
from attention_explorable.strings import STRINGS
from attention_explorable.views import qkv as view

from . import page_heading


def test_defaults_and_numbers_follow_the_view():
    explorer = QkvExplorer()
    assert explorer.state() == {
        "w_q": "identity",
        "w_k": "identity",
        "w_v": "identity",
        "causal": False,
        "prediction": "",
        "revealed": False,
    }
    res = view.attend(explorer.state(), view.qkv_config("zh"))
    np.testing.assert_array_equal(explorer.weights, res["weights"])
    np.testing.assert_array_equal(explorer.output, res["output"])
    explorer.param.update(w_q="double", causal=True)
    assert explorer.weights[0].tolist() == [1.0, 0.0, 0.0]  # the first position sees itself only
    assert explorer.weights[1, 2] == 0.0 and explorer._sources["weight_cells"].data["text"][5] == "—"


def test_a_prediction_checked_says_whether_it_was_right():
    explorer = QkvExplorer(language="en")
    explorer.param.update(w_v="swap", prediction="output", revealed=True)
    said = html.unescape(explorer._ask["feedback"].text)
    assert "The weights stay, only the output changes" in said and "That is right." in said
    with pytest.raises(ValueError, match="w_k"):
        explorer.w_k = "<img>"


def test_registry_and_app_build_this_explorable():
    page = apps.explorable_app("qkv", "en")
    assert page_heading(page) == STRINGS["en"]["qkv_heading"]
    assert any("ae-qkv" in (obj.css_classes or []) for obj in page.objects)


def test_a_students_action_calls_python_which_draws_it():
    explorer = QkvExplorer()
    explorer._controls["w_v"].active = 1  # before the prediction (a page greys it): refused, put back
    assert explorer.w_v == "identity" and explorer._controls["w_v"].active == 0 and explorer._controls["w_v"].disabled
    explorer._acted(explorer._ask["predict_skip"])  # skipped: the answer is watched, the controls open
    assert explorer.revealed and not explorer._controls["w_v"].disabled
    explorer._controls["w_v"].active = 1  # as the browser sets it: the swap
    assert explorer.w_v == "swap" and explorer.output[0].round(3).tolist() == [0.599, 0.802]
    assert "0.599" in html.unescape(explorer._html["output"].text)
    explorer._controls["w_q"].active = 9  # no page sends it: nothing changes, the buttons are put back
    assert explorer.w_q == "identity" and explorer._controls["w_q"].active == 0
    explorer._controls["causal"].active = True
    assert explorer.causal and explorer.weights[0].tolist() == [1.0, 0.0, 0.0]
