"""The Python view of the "from X to the output" explorable (the oracle of web/qkv.js) on chosen states."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from attention_explorable import core
from attention_explorable.strings import STRINGS
from attention_explorable.views import qkv as view

CONFIG = view.qkv_config("zh")


def state(**changes) -> dict:
    return {
        "w_q": "identity",
        "w_k": "identity",
        "w_v": "identity",
        "causal": False,
        "prediction": "",
        "revealed": False,
        **changes,
    }


@pytest.mark.parametrize(
    "w_q, w_k, w_v, causal", list(itertools.product(view.PRESETS, view.PRESETS, view.PRESETS, (False, True)))
)
def test_every_stage_follows_the_core(w_q, w_k, w_v, causal):
    st = state(w_q=w_q, w_k=w_k, w_v=w_v, causal=causal)
    x = np.array(view.X)
    q, k, v = (x @ np.array(view.PRESETS[name]) for name in (w_q, w_k, w_v))
    mask = core.causal_mask(3) if causal else None
    output, weights = core.scaled_dot_product_attention(q, k, v, mask=mask)
    res = view.attend(st, CONFIG)
    np.testing.assert_array_equal(res["q"], q)
    np.testing.assert_array_equal(res["weights"], weights)
    np.testing.assert_array_equal(res["output"], output)
    np.testing.assert_allclose(res["weights"].sum(axis=1), 1.0)
    shown = view.qkv_view(st, CONFIG)
    texts = shown["sources"]["weight_cells"]["text"]
    assert texts == ["—" if causal and j > i else f"{weights[i, j]:.2f}" for i in range(3) for j in range(3)]
    assert shown["props"]["w_v"]["active"] == list(view.PRESETS).index(w_v)


def test_the_default_reproduces_the_worked_numbers():
    shown = view.qkv_view(state(), CONFIG)
    assert shown["sources"]["weight_cells"]["text"][:3] == ["0.40", "0.20", "0.40"]
    assert "<td>0.802</td><td>0.599</td>" in shown["html"]["output"]
    assert "<td>1</td><td>0</td>" in shown["html"]["inputs"]


@pytest.mark.parametrize("w_q, w_k", list(itertools.product(view.PRESETS, view.PRESETS)))
def test_changing_w_v_alone_keeps_every_weight_and_moves_the_output(w_q, w_k):
    a = view.attend(state(w_q=w_q, w_k=w_k), CONFIG)
    b = view.attend(state(w_q=w_q, w_k=w_k, w_v="swap"), CONFIG)
    np.testing.assert_array_equal(a["weights"], b["weights"])
    np.testing.assert_array_equal(a["output"][:, ::-1], b["output"])  # the swap swaps the output's features


@pytest.mark.parametrize("prediction", view.PREDICTIONS)
def test_the_answer_waits_and_judges_the_prediction(prediction):
    S = CONFIG["strings"]
    before = view.qkv_view(state(prediction=prediction), CONFIG)
    assert before["html"]["feedback"] == f"<span class='ae-hint'>{S['predict_locked']}</span>" and before["props"][
        "predict_check"
    ] == {"visible": True}
    after = view.qkv_view(state(prediction=prediction, revealed=True, w_v="swap"), CONFIG)
    # Nothing to try before the prediction: every control waits for it, and opens with the answer.
    assert view.LOCKED == (*view.PROJECTIONS, "causal")
    assert all(before["props"][n]["disabled"] is True and after["props"][n]["disabled"] is False for n in view.LOCKED)
    feedback = after["html"]["feedback"]
    assert "[0.802, 0.599]" in feedback and "[0.599, 0.802]" in feedback
    assert (S["predict_right"] in feedback) == (prediction == view.RIGHT_PREDICTION)
    assert (S["predict_wrong"] in feedback) == bool(prediction and prediction != view.RIGHT_PREDICTION)
    assert after["props"]["prediction_choice"]["disabled"] is True


def test_each_language_has_its_own_text():
    en = view.qkv_view(state(causal=True), view.qkv_config("en"))
    assert STRINGS["en"]["qkv_masked_note"] in en["html"]["notes"]
    assert STRINGS["en"]["qkv_plot_weights"] in en["html"]["weights_data"]


@pytest.mark.parametrize(
    "bad, name",
    [
        ({"w_q": "rotate"}, "w_q"),
        ({"w_v": None}, "w_v"),
        ({"causal": 1}, "causal"),
        ({"prediction": "values"}, "prediction"),
        ({"revealed": "no"}, "revealed"),
    ],
)
def test_a_bad_state_names_the_parameter_and_the_value(bad, name):
    with pytest.raises(ValueError, match=name):
        view.qkv_view(state(**bad), CONFIG)
