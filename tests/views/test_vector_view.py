"""The Python view of the vector explorable (the oracle of web/vector.js) on chosen states."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from attention_explorable import core
from attention_explorable.strings import STRINGS
from attention_explorable.views import vector as view

CONFIG = view.vector_config("zh")
KEYS = np.array(view.EXAMPLE_KEYS)


def state(query_x=1.0, query_y=0.0, temperature=1.0):
    return {"query_x": query_x, "query_y": query_y, "temperature": temperature}


def number(html: str, label: str) -> float:
    """The number after ``label =`` in a readout's HTML."""
    m = re.search(re.escape(label) + r" = ([−-]?[0-9.]+)", html)
    assert m, f"{label!r} not found in {html!r}"
    return float(m.group(1).replace("−", "-"))


def _float(s: str) -> float:
    """A readout number (a true minus), also in the ``4.3×10<sup>−18</sup>`` form of tiny numbers."""
    return float(re.sub(r"×10<sup>(-?\d+)</sup>", r"e\1", s.replace("−", "-")))


def vector(html: str, label: str) -> list[float]:
    m = re.search(re.escape(label) + r" = \[([^,\]]+), ([^,\]]+)\]", html)
    assert m, f"{label!r} not found in {html!r}"
    return [_float(m.group(1)), _float(m.group(2))]


def test_default_state_reproduces_the_worked_example():
    # Section 3.7.6: scores 1, 0, 1; weights 0.422, 0.155, 0.422; y = [0.845, 0.578].
    v = view.vector_view(state(), CONFIG)
    html = v["html"]
    assert [number(html["scores_readout"], f"s{i}") for i in "₁₂₃"] == [1.0, 0.0, 1.0]
    assert [number(html["weights_readout"], f"α{i}") for i in "₁₂₃"] == [0.422, 0.155, 0.422]
    assert vector(html["output_readout"], "y") == [0.845, 0.578]
    assert "= [0.845, 0.578]" in html["formula"]
    shown = re.sub(r"<[^>]+>", "", html["formula"])  # (each result is kept whole with its "=" on a narrow screen)
    assert "α = softmax([1.000, 0.000, 1.000] / 1.00) = [0.422, 0.155, 0.422]" in shown
    assert "y = 0.422·[1, 0] + 0.155·[0, 1] + 0.422·[1, 1] = [0.845, 0.578]" in shown
    assert "<span class='ae-nobreak'>= [0.845, 0.578]</span>" in html["formula"]
    assert "s₃ = 1.00×1 + 0.00×1 = 1.000" in html["formula"]
    assert v["sources"]["output"]["x"] == [pytest.approx(0.8446376)]
    assert v["sources"]["output"]["y"] == [pytest.approx(0.5776812)]
    assert v["sources"]["query"] == {
        "x": [1.0],
        "y": [0.0],
        "label": ["q"],
        "dx": [9.0],
        "dy": [12.0],
        "align": ["left"],
    }
    # The plot says what the readout says: three decimals (0.155, not a rounded 0.16 beside it).
    assert v["sources"]["values"]["label"] == ["v₁ (0.422)", "v₂ (0.155)", "v₃ (0.422)"]
    scores, weights, output = view.attend([1.0, 0.0], KEYS, KEYS, 1.0)
    assert scores.tolist() == [1.0, 0.0, 1.0]
    np.testing.assert_allclose(weights, [0.422, 0.155, 0.422], atol=5e-4)
    np.testing.assert_allclose(output, [0.845, 0.578], atol=5e-4)


@pytest.mark.parametrize(
    "qx, qy, expected",
    [
        (1.5, 1.5, ([9.0], [12.0], ["left"])),  # up and to the right of the tip
        (2.0, 0.0, ([-9.0], [12.0], ["right"])),  # at the right edge: to its left
        (0.0, 2.0, ([9.0], [-12.0], ["left"])),  # at the top: below it
        (-2.0, -2.0, ([9.0], [12.0], ["left"])),  # the other edges leave room where it goes
    ],
)
def test_the_query_label_stays_inside_the_plot(qx, qy, expected):
    q = view.vector_view({"query_x": qx, "query_y": qy, "temperature": 1.0}, view.vector_config("en"))
    source = q["sources"]["query"]
    assert (source["dx"], source["dy"], source["align"]) == expected


@pytest.mark.parametrize(
    "qx, qy, temp", [(-1.5, 0.5, 1.0), (0.3, -2.0, 0.05), (2.0, 2.0, 5.0), (0.0, 0.0, 1.0), (-2.0, -2.0, 0.05)]
)
def test_numbers_follow_core_and_output_stays_in_the_hull(qx, qy, temp):
    v = view.vector_view(state(qx, qy, temp), CONFIG)
    out, w = core.scaled_dot_product_attention([qx, qy], KEYS, KEYS, temperature=temp, scale=1.0)
    scores = core.dot_product_scores([qx, qy], KEYS, scale=1.0)[0]
    np.testing.assert_allclose(view.attend([qx, qy], KEYS, KEYS, temp)[1], w[0])
    np.testing.assert_allclose(v["sources"]["output"]["x"] + v["sources"]["output"]["y"], out[0])
    # Inside the triangle [1, 0], [0, 1], [1, 1]: x <= 1, y <= 1, x + y >= 1.
    x, y = out[0]
    assert x <= 1 + 1e-12 and y <= 1 + 1e-12 and x + y >= 1 - 1e-12
    assert vector(v["html"]["output_readout"], "y") == pytest.approx(out[0], abs=5e-4)
    shown = [_float(m) for m in re.findall(r"α. = (.+?)</td>", v["html"]["weights_readout"])]
    assert shown == pytest.approx(w[0], abs=5e-4, rel=0.05)
    assert [number(v["html"]["scores_readout"], f"s{i}") for i in "₁₂₃"] == pytest.approx(scores, abs=5e-4)
    assert f"{qx:.2f}".replace("-", "−") in v["html"]["formula"] and f"/ {temp:.2f})" in v["html"]["formula"]
    sizes = v["sources"]["values"]["size"]
    assert np.argmax(sizes) == np.argmax(w[0])  # bigger point, bigger weight
    assert sizes == pytest.approx(8.0 + 22.0 * np.sqrt(w[0]))


def test_tiny_weights_are_shown_as_such_never_as_zero_or_nan():
    v = view.vector_view(state(-2.0, -2.0, 0.05), CONFIG)  # s₃ - s₁ = -40 at T = 0.05: e^-40 / 2
    html = v["html"]
    assert "α₃ = 2.1×10<sup>−18</sup>" in html["weights_readout"]
    assert "NaN" not in str(v) and "inf" not in str(v)
    assert v["sources"]["values"]["label"][2] == "v₃ (2.1×10⁻¹⁸)"


def test_hull_patch_is_the_values_triangle():
    hull = view.vector_view(state(), CONFIG)["sources"]["hull"]
    assert list(zip(hull["x"], hull["y"])) == [(0.0, 1.0), (1.0, 0.0), (1.0, 1.0)]  # counter-clockwise


@pytest.mark.parametrize(
    "points, expected",
    [
        ([[0, 0], [2, 0], [2, 2], [0, 2], [1, 1]], [[0, 0], [2, 0], [2, 2], [0, 2]]),
        ([[2, 2], [0, 2], [0, 0], [2, 0], [1, 0]], [[0, 0], [2, 0], [2, 2], [0, 2]]),  # a point on an edge
        ([[0, 0], [1, 1], [2, 2]], [[0, 0], [2, 2]]),  # collinear: the two extremes
        ([[1, 1], [1, 1]], [[1, 1]]),  # duplicates
        ([[3, -1]], [[3, -1]]),
        ([[0, 1], [0, -1], [0, 0], [0, 1]], [[0, -1], [0, 1]]),  # vertical line, a duplicate
        ([[0, 0], [1, 0], [0, 1], [0, 0]], [[0, 0], [1, 0], [0, 1]]),
    ],
)
def test_convex_hull(points, expected):
    assert view.convex_hull(points).tolist() == expected


def test_labels_sit_a_fixed_gap_away_from_the_values():
    v = view.vector_view(state(), CONFIG)
    keys, values = v["sources"]["keys"], v["sources"]["values"]
    assert keys["label"] == ["k₁", "k₂", "k₃"]
    assert keys["lx"] == pytest.approx([0.4, 0.0, 0.4]) and keys["ly"] == pytest.approx([0.0, 0.4, 0.4])
    assert np.hypot(keys["dx"], keys["dy"]) == pytest.approx([view.LABEL_GAP] * 3)
    # v₂ (0, 1) a gap away; v₁ (1, 0) and v₃ (1, 1), right of the edge, centred under and over their dots.
    assert np.hypot(values["dx"], values["dy"]) == pytest.approx([view.VALUE_LABEL_DROP, view.LABEL_GAP, 20.0])
    assert values["dx"][0] == values["dx"][2] == 0 and values["dy"][0] < 0 < values["dy"][2]
    # Key labels beside each arrow (perpendicular to it), away from the values' centre [2/3, 2/3].
    centre = np.array([2 / 3, 2 / 3])
    for kj, lx, ly, dx, dy in zip(KEYS, keys["lx"], keys["ly"], keys["dx"], keys["dy"]):
        assert np.dot([dx, dy], kj) == pytest.approx(0.0, abs=1e-9)
        assert np.dot([dx, dy], centre - [lx, ly]) <= 1e-9
    # Value labels along the direction from the centre to the value.
    for vx, vy, dx, dy in zip(values["x"], values["y"], values["dx"], values["dy"]):
        assert np.dot([dx, dy], [vx, vy] - centre) > 0
    assert keys["align"] == ["center", "right", "left"] and values["align"] == ["center", "right", "center"]


def test_a_single_value_gets_its_label_at_a_default_direction():
    config = view.vector_config("en", keys=[[1.0, 2.0]], values=[[0.5, -0.5]])
    v = view.vector_view(state(), config)
    assert v["sources"]["values"]["dx"] == [pytest.approx(13 * 0.7071)]
    assert v["sources"]["values"]["align"] == ["left"] and v["sources"]["values"]["label"] == ["v₁ (1.000)"]
    assert v["sources"]["hull"] == {"x": [0.5], "y": [-0.5]}


def test_other_keys_and_values():
    config = view.vector_config("zh", keys=[[1.0, 0.0], [-1.0, 0.0]], values=[[0.0, 2.0], [0.25, -2.0]])
    v = view.vector_view(state(), config)
    weights = core.softmax([1.0, -1.0])
    assert [number(v["html"]["weights_readout"], f"α{i}") for i in "₁₂"] == pytest.approx(weights, abs=5e-4)
    assert v["sources"]["keys"]["label"] == ["k₁", "k₂"]
    assert "·[0, 2] + " in v["html"]["formula"] and "·[0.25, −2.00]" in v["html"]["formula"]
    assert "s₂ = 1.00×(−1) + 0.00×0 = −1.000" in v["html"]["formula"]  # a negative factor in parentheses
    assert v["sources"]["hull"] == {"x": [0.0, 0.25], "y": [2.0, -2.0]}


@pytest.mark.parametrize(
    "x, y, expected",
    [
        (0.5049, -0.251, (0.5, -0.25)),
        (7.0, -9.0, (2.0, -2.0)),
        (-0.7, 1.234, (-0.7, 1.23)),
        (1.125, -1.125, (1.12, -1.12)),  # ties at the rounding digit: half to even, as Python's round
        (-0.001, 0.004, (0.0, 0.0)),
        (2.0, -2.0, (2.0, -2.0)),
        (float("nan"), 0.5, None),
        (0.5, float("inf"), None),
        (None, 0.5, None),
        ("0.5", 0.5, None),
        (True, 0.5, None),
    ],
)
def test_a_tap_or_drag_sets_the_query_clamped_and_rounded(x, y, expected):
    q = view.point_to_query(x, y)
    assert q == expected
    if q is not None:
        assert all(math.copysign(1, c) == 1 or c < 0 for c in q)  # never -0.0


def test_slider_boxes_show_the_value_not_float_noise():
    v = view.vector_view(state(query_x=0.15000000000000002, temperature=0.05), CONFIG)
    assert v["props"]["query_x_box"]["value"] == "0.15" and v["props"]["temperature_box"]["value"] == "0.05"
    assert v["props"]["query_x_slider"]["value"] == 0.15000000000000002


@pytest.mark.parametrize(
    "name, bad",
    [
        ("query_x", 2.5),
        ("query_y", -3.0),
        ("temperature", 0.0),
        ("temperature", -1.0),
        ("query_x", float("nan")),
        ("query_y", "0.5"),
        ("temperature", float("inf")),
        ("query_x", True),
        ("temperature", None),
    ],
)
def test_bad_state_names_the_parameter_and_the_value(name, bad):
    with pytest.raises(ValueError, match=rf"{name} must be a number in \[.*\], got {re.escape(repr(bad))}"):
        view.vector_view({**state(), name: bad}, CONFIG)


def test_a_missing_state_number_is_named():
    with pytest.raises(ValueError, match="temperature must be a number"):
        view.vector_view({"query_x": 1.0, "query_y": 0.0}, CONFIG)


@pytest.mark.parametrize(
    "bad", [[[1.0, 2.0, 3.0]], [[np.nan, 0.0]], np.zeros((7, 2)), np.zeros((0, 2)), [["a", "b"]], [1.0, 2.0], None]
)
def test_bad_keys_name_parameter_and_value(bad):
    with pytest.raises(ValueError, match=r"keys must be an \(n, 2\) array of finite numbers with 1 <= n <= 6, got"):
        view.vector_config("zh", keys=bad)
    with pytest.raises(ValueError, match=r"values must be an \(n, 2\) array"):
        view.vector_config("zh", values=bad)


def test_mismatched_keys_and_values_name_both_shapes():
    with pytest.raises(ValueError, match=r"keys and values must have the same shape.*\(2, 2\).*\(3, 2\)"):
        view.vector_config("zh", keys=np.eye(2))


def test_each_language_has_its_own_text():
    zh = view.vector_view(state(), view.vector_config("zh"))
    en = view.vector_view(state(), view.vector_config("en"))
    for key, html in [
        ("readout_weights", "weights_readout"),
        ("readout_scores", "scores_readout"),
        ("readout_output", "output_readout"),
        ("vector_formula_output", "formula"),
    ]:
        assert STRINGS["zh"][key] in zh["html"][html] and STRINGS["en"][key] in en["html"][html]
    assert view.vector_config("en")["labels"]["query_x"] == STRINGS["en"]["vector_query_x"]


def test_the_config_is_json_able_and_carries_the_example():
    import json

    config = view.vector_config("zh")
    assert json.loads(json.dumps(config)) == config
    assert config["keys"] == config["values"] == [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
    assert config["sliders"] == {
        "query_x": [-2.0, 2.0, 0.05],
        "query_y": [-2.0, 2.0, 0.05],
        "temperature": [0.05, 5.0, 0.05],
    }


def test_the_prediction_waits_and_its_answer_is_the_example_at_the_lowest_temperature():
    before = view.vector_view({**state(), "prediction": "", "revealed": False}, CONFIG)
    S = CONFIG["strings"]
    labels = [S[f"vector_predict_{p}"] for p in view.PREDICTIONS[1:]]
    assert before["props"]["prediction_choice"] == {"labels": labels, "active": None, "disabled": False}
    assert before["props"]["predict_check"] == before["props"]["predict_skip"] == {"visible": True}
    assert before["html"]["feedback"] == f"<span class='ae-hint'>{S['predict_locked']}</span>"
    # Nothing to try before the prediction: the sliders and their boxes wait for it.
    controls = [f"{n}_{part}" for n in view.SLIDERS for part in ("slider", "box")]
    assert len(controls) == 6 and all(before["props"][n]["disabled"] is True for n in controls)
    # The answer, from the core: s₁ = s₃ tie, so at T = 0.05 they split the weight and y is their midpoint.
    _, w, y = view.attend([1.0, 0.0], view.EXAMPLE_KEYS, view.EXAMPLE_VALUES, view.T_BOUNDS[0])
    assert w[0] == pytest.approx(0.5, abs=1e-8) and w[2] == w[0] and w[1] < 1e-8
    assert y == pytest.approx([1.0, 0.5]) and view.ANSWER_STATE["temperature"] == view.T_BOUNDS[0] == 0.05
    assert "0.05" in STRINGS["zh"]["vector_predict_question"] and "0.05" in STRINGS["en"]["vector_predict_question"]
    S = CONFIG["strings"]
    for prediction in view.PREDICTIONS:
        after = view.vector_view({**state(), "prediction": prediction, "revealed": True}, CONFIG)
        feedback = after["html"]["feedback"]
        assert "[1.000, 0.500]" in feedback and after["props"]["predict_check"] == {"visible": False}
        assert after["props"]["prediction_choice"]["disabled"] is True
        assert all(after["props"][n]["disabled"] is False for n in controls)
        right, wrong = S["predict_right"] in feedback, S["predict_wrong"] in feedback
        assert (right, wrong) == (
            (prediction == view.RIGHT_PREDICTION, prediction != view.RIGHT_PREDICTION) if prediction else (False, False)
        )


def test_other_keys_and_values_ask_nothing():
    config = view.vector_config("en", [[1, 2], [0, -1]], [[0, 0], [2, 2]])
    assert config["asks"] is False and CONFIG["asks"] is True
    shown = view.vector_view({**state(), "prediction": "first", "revealed": True}, config)
    assert all(shown["props"][name] == {"visible": False} for name in ("question", "prediction_choice", "feedback"))
    assert shown["html"]["feedback"] == ""
    assert all("disabled" not in props for props in shown["props"].values())  # nothing waits: nothing is asked


@pytest.mark.parametrize("bad", [{"prediction": "middle"}, {"prediction": None}, {"revealed": "yes"}])
def test_a_malformed_prediction_is_named(bad):
    with pytest.raises(ValueError, match=next(iter(bad))):
        view.vector_view({**state(), **bad}, CONFIG)


def test_the_outputs_label_moves_right_when_the_star_sits_on_a_value_labelled_to_its_left():
    """q = (−1, 2) at T = 0.05 puts y on v₂ = (0, 1), whose label runs to the left: "y" goes right of the star
    (it ran into "v₂ (1.000)"); at the worked example's default the star is clear and "y" stays on its left."""
    on_v2 = view.vector_view(state(-1.0, 2.0, 0.05), CONFIG)["sources"]
    assert math.dist((on_v2["output"]["x"][0], on_v2["output"]["y"][0]), (0.0, 1.0)) < 0.01
    assert on_v2["values"]["align"][1] == "right"
    assert (on_v2["output"]["dx"], on_v2["output"]["align"]) == ([20.0], ["left"])
    default = view.vector_view(state(), CONFIG)["sources"]["output"]
    assert (default["dx"], default["dy"], default["align"]) == ([-12.0], [0.0], ["right"])
