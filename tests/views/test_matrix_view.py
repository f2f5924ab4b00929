"""The Python view of the matrix explorable (the oracle of web/matrix.js) and its random generator."""

from __future__ import annotations

import math
import random
import re

import numpy as np
import pytest

from attention_explorable import core
from attention_explorable.strings import STRINGS
from attention_explorable.views import matrix as view

CONFIG = view.matrix_config("zh")
DEFAULT = {
    "n_tokens": 4,
    "d_k": 4,
    "seed": 0,
    "q1_scale": 1.0,
    "causal": False,
    "scaled": True,
    "prediction": "",
    "revealed": True,
}


def state(**changes) -> dict:
    return {**DEFAULT, **changes}


def reference(n=4, d_k=4, seed=0, q1_scale=1.0, causal=False, scaled=True):
    """Scores and weights computed straight from the generator and core, as the view should."""
    q, k, v = view.random_qkv(seed, n, d_k)
    q[0] *= q1_scale
    scale = None if scaled else 1.0
    mask = core.causal_mask(n) if causal else None
    _, w = core.scaled_dot_product_attention(q, k, v, mask=mask, scale=scale)
    return core.dot_product_scores(q, k, scale=scale), w


def grid(cells: dict, key: str, n: int) -> np.ndarray:
    """A cell column as an (n, n) array indexed [query i, key j]."""
    out = np.empty((n, n), dtype=object)
    for x, y, value in zip(cells["x"], cells["y"], cells[key]):
        out[y - 1, x - 1] = value
    return out


def mean_max(v: dict) -> float:
    m = re.search(r"class='ae-matrix-mean-max'>([0-9.]+)<", v["html"]["max_weight"])
    assert m, v["html"]["max_weight"]
    return float(m.group(1))


# --- the generator ---------------------------------------------------------------------


def mulberry32_reference(seed: int, count: int) -> list[int]:
    """mulberry32 one output at a time, as its author wrote it, in Python integers."""
    a, out = seed, []
    for _ in range(count):
        a = (a + 0x6D2B79F5) & 0xFFFFFFFF
        t = ((a ^ (a >> 15)) * (a | 1)) & 0xFFFFFFFF
        t = ((t + (((t ^ (t >> 7)) * (t | 61)) & 0xFFFFFFFF)) & 0xFFFFFFFF) ^ t
        out.append(t ^ (t >> 14))
    return out


@pytest.mark.parametrize("seed", [0, 1, 42, 9999, 2**31, 2**32 - 1, *random.Random(3).sample(range(2**32), 8)])
def test_mulberry32_equals_the_one_at_a_time_reference(seed):
    assert view.mulberry32(seed, 500).tolist() == mulberry32_reference(seed, 500)


def test_mulberry32_known_values():
    # Node.js: the original JavaScript mulberry32(0), outputs times 2**32
    assert view.mulberry32(0, 3).tolist() == [1144304738, 1416247, 958946056]
    assert view.mulberry32(5, 0).tolist() == []


def test_irwin_hall_normals_are_exact_and_roughly_standard():
    z = view.irwin_hall_normals(2017, 200_000)
    assert np.all((z + 6.0) * 2.0**32 == np.round((z + 6.0) * 2.0**32))  # multiples of 2**-32: exact
    assert -6.0 <= z.min() and z.max() < 6.0
    assert abs(z.mean()) < 0.01 and abs(z.var() - 1.0) < 0.01  # mean 0, variance 1
    assert 0.0015 < np.mean(np.abs(z) > 3) < 0.0026  # thinner tails than a normal's 0.0027
    k = view.mulberry32(2017, 24)
    assert z[1] == sum(int(x) for x in k[12:]) / 2**32 - 6


def test_random_qkv_reads_one_stream_row_by_row():
    z = view.irwin_hall_normals(7, 3 * 3 * 5)
    q, k, v = view.random_qkv(7, 3, 5)
    assert q.shape == k.shape == v.shape == (3, 5)
    assert q[1, 2] == z[7] and k[0, 0] == z[15] and v[2, 4] == z[44]
    np.testing.assert_array_equal(view.random_qkv(7, 3, 5)[0], q)  # a seed is a fixed draw


@pytest.mark.parametrize("seed, count", [(-1, 3), (2**32, 3), (1.5, 3), (True, 3), (0, -1)])
def test_generator_refuses_bad_arguments(seed, count):
    with pytest.raises(ValueError, match="seed|count"):
        view.irwin_hall_normals(seed, count)


# --- the view --------------------------------------------------------------------------


def test_default_matrices_follow_core():
    scores, weights = reference()
    res = view.attention_matrices(state())
    np.testing.assert_array_equal(res["scores"], scores)
    np.testing.assert_array_equal(res["weights"], weights)
    np.testing.assert_allclose(weights.sum(axis=1), 1.0)
    v = view.matrix_view(state(), CONFIG)
    text = grid(v["sources"]["weight_cells"], "text", 4)
    assert text[1, 2] == f"{weights[1, 2]:.2f}"  # row = query i, column = key j
    assert grid(v["sources"]["score_cells"], "text", 4)[3, 0] == f"{scores[3, 0]:.2f}"
    assert mean_max(v) == round(weights.max(axis=1).mean(), 3)
    assert v["sources"]["mark"]["current"] == [pytest.approx(weights.max(axis=1).mean(), rel=1e-15)]
    assert re.findall(r"[0-9]\.[0-9]{3}", v["html"]["row_sums"]) == ["1.000"] * 4


def test_causal_mask_zeros_above_the_diagonal():
    res = view.attention_matrices(state(causal=True))
    scores, weights = reference(causal=True)
    np.testing.assert_array_equal(res["weights"], weights)
    upper = np.triu_indices(4, 1)
    assert np.all(res["weights"][upper] == 0.0) and np.all(np.isneginf(res["scores"][upper]))
    assert res["weights"][0, 0] == 1.0
    np.testing.assert_allclose(res["weights"].sum(axis=1), 1.0)
    v = view.matrix_view(state(causal=True), CONFIG)
    w, s = v["sources"]["weight_cells"], v["sources"]["score_cells"]
    for i in range(4):
        for j in range(4):
            if j > i:
                assert grid(w, "text", 4)[i, j] == "—" and grid(s, "text", 4)[i, j] == "−∞"
                assert grid(w, "fill", 4)[i, j] == grid(s, "fill", 4)[i, j] == view.MASKED_FILL
            else:
                assert grid(w, "text", 4)[i, j] == view.format_number(weights[i, j], 2, html=False)
                assert grid(w, "fill", 4)[i, j] != view.MASKED_FILL
    assert STRINGS["zh"]["matrix_masked_note"] in v["html"]["notes"]
    assert re.findall(r"[0-9]\.[0-9]{3}", v["html"]["row_sums"]) == ["1.000"] * 4
    open_view = view.matrix_view(state(causal=False), CONFIG)
    assert STRINGS["zh"]["matrix_masked_note"] not in open_view["html"]["notes"]
    assert view.MASKED_FILL not in open_view["sources"]["weight_cells"]["fill"]


def test_masked_weights_are_exactly_zero_even_for_sharp_rows():
    res = view.attention_matrices(state(n_tokens=6, d_k=64, q1_scale=4.0, causal=True, scaled=False))
    assert np.all(res["weights"][np.triu_indices(6, 1)] == 0.0)
    assert not np.isnan(res["weights"]).any() and np.all(res["weights"][np.tril_indices(6)] >= 0.0)


@pytest.mark.parametrize("d_k", [1, 9, 64])
def test_scaling_divides_by_sqrt_dk(d_k):
    scaled = view.attention_matrices(state(d_k=d_k))["scores"]
    unscaled = view.attention_matrices(state(d_k=d_k, scaled=False))
    np.testing.assert_allclose(unscaled["scores"], scaled * math.sqrt(d_k))
    np.testing.assert_array_equal(unscaled["weights"], reference(d_k=d_k, scaled=False)[1])
    assert (
        view.matrix_view(state(d_k=d_k), CONFIG)["props"]["score_title"]["text"]
        == STRINGS["zh"]["matrix_plot_scores_scaled"]
    )
    assert (
        view.matrix_view(state(d_k=d_k, scaled=False), CONFIG)["props"]["score_title"]["text"]
        == STRINGS["zh"]["matrix_plot_scores_unscaled"]
    )


def test_unscaled_saturation_grows_with_dk_scaled_stays_moderate():
    d, scaled, unscaled = view.saturation_curve(4)
    assert d.tolist() == list(range(1, 65))
    assert unscaled[0] < unscaled[3] < unscaled[15] < unscaled[63]
    assert unscaled[63] > 0.85
    assert np.all(scaled < 0.6) and np.all(scaled > 0.25)  # >= 1/n always, moderate throughout
    assert unscaled[0] == pytest.approx(scaled[0], abs=0.03)  # d_k = 1: the same up to sampling
    assert not d.flags.writeable and not unscaled.flags.writeable


def test_saturation_curve_matches_a_plain_loop():
    # Same random stream, one draw at a time, no block tricks.
    n, draws, seed = 3, 10, 7
    _, scaled, unscaled = view.saturation_curve(n, draws=draws, seed=seed)
    rng = np.random.default_rng(seed)
    for d_k in range(1, 65):
        q = rng.standard_normal((draws * n, d_k)).reshape(draws, n, d_k)
        k = rng.standard_normal((draws * n, d_k)).reshape(draws, n, d_k)
        for scale, curve in ((None, scaled), (1.0, unscaled)):
            best = [
                core.softmax(core.dot_product_scores(qi, ki, scale=scale)).max(axis=1).mean() for qi, ki in zip(q, k)
            ]
            assert curve[d_k - 1] == pytest.approx(np.mean(best), rel=1e-12)
    with pytest.raises(ValueError, match="draws >= 1, got n=4, draws=0"):
        view.saturation_curve(4, draws=0)


def test_the_config_ships_every_stored_curve_as_computed():
    lo, hi, _ = view.SLIDERS["n_tokens"]
    assert sorted(CONFIG["curves"], key=int) == [str(n) for n in range(lo, hi + 1)]
    for n in range(lo, hi + 1):
        d, scaled, unscaled = view.saturation_curve(n)
        curve = CONFIG["curves"][str(n)]
        assert curve["d"] == d.tolist()
        np.testing.assert_allclose(curve["scaled"], scaled, rtol=0, atol=5.01e-7)
        np.testing.assert_allclose(curve["unscaled"], unscaled, rtol=0, atol=5.01e-7)
    source = view.curves_source()
    assert "SCALED[6] = (" in source and source.count("\n") > 100


def test_pages_never_wait_for_the_curves(monkeypatch):
    def slow(*args, **kwargs):
        raise AssertionError("a page computed the saturation curves")

    monkeypatch.setattr(view, "saturation_curve", slow)
    assert view.matrix_config("en")["curves"]["2"]["unscaled"][0] == CONFIG["curves"]["2"]["unscaled"][0]


def test_curve_and_mark_follow_the_settings():
    v = view.matrix_view(state(d_k=32), CONFIG)
    scaled, unscaled = CONFIG["curves"]["4"]["scaled"], CONFIG["curves"]["4"]["unscaled"]
    mark = v["sources"]["mark"]
    assert mark["d"] == [32] and mark["unscaled"] == [unscaled[31]] and mark["scaled"] == [scaled[31]]
    assert mark["current"] == [view.attention_matrices(state(d_k=32))["mean_max_weight"]]
    assert f"{unscaled[31]:.3f}" in v["html"]["max_weight"] and f"{scaled[31]:.3f}" in v["html"]["max_weight"]
    assert f"{view.CURVE_DRAWS}" in v["html"]["max_weight"] and "dₖ = 32" in v["html"]["max_weight"]
    six = view.matrix_view(state(n_tokens=6), CONFIG)
    assert len(six["sources"]["curve"]["d"]) == 64
    assert six["sources"]["curve"]["unscaled"] == CONFIG["curves"]["6"]["unscaled"]
    assert six["sources"]["curve"]["unscaled"][63] > 0.85 > 0.6 > six["sources"]["curve"]["scaled"][63]


def test_unscaled_current_matrix_saturates_at_large_dk():
    def mean(**kw):
        return np.mean([view.attention_matrices(state(seed=s, **kw))["mean_max_weight"] for s in range(10)])

    assert mean(d_k=64, scaled=False) > 0.8 > mean(d_k=1, scaled=False)
    assert mean(d_k=64, scaled=True) < 0.7


def test_token_count_resizes_the_matrices():
    v = view.matrix_view(state(n_tokens=6), CONFIG)
    assert len(v["sources"]["weight_cells"]["x"]) == 36
    assert v["ranges"]["weight_x"] == [0.5, 6.5] and v["ranges"]["weight_y"] == [6.5, 0.5]
    np.testing.assert_array_equal(view.attention_matrices(state(n_tokens=6))["weights"], reference(n=6)[1])
    two = view.matrix_view(state(n_tokens=2), CONFIG)
    assert two["ranges"]["score_x"] == [0.5, 2.5] and len(two["sources"]["score_cells"]["text"]) == 4


def test_query_scale_zero_gives_a_uniform_first_row():
    res = view.attention_matrices(state(q1_scale=0.0))
    np.testing.assert_array_equal(res["weights"][0], 0.25)
    v = view.matrix_view(state(q1_scale=0.0), CONFIG)
    assert grid(v["sources"]["score_cells"], "text", 4)[0].tolist() == ["0.00"] * 4  # never "-0.00"
    sharp = view.attention_matrices(state(q1_scale=4.0))
    np.testing.assert_array_equal(sharp["weights"], reference(q1_scale=4.0)[1])
    assert sharp["weights"][0].max() > reference()[1][0].max()  # a longer query, a sharper row


def test_seed_is_deterministic_and_changes_the_draw():
    first = view.attention_matrices(state(seed=5))["weights"]
    np.testing.assert_array_equal(first, reference(seed=5)[1])
    assert not np.allclose(view.attention_matrices(state(seed=6))["weights"], first)
    np.testing.assert_array_equal(view.attention_matrices(state(seed=5))["weights"], first)


def test_each_rows_largest_cell_is_outlined():
    for st in (state(), state(causal=True), state(n_tokens=6, d_k=64, scaled=False)):
        w = view.attention_matrices(st)["weights"]
        h = view.matrix_view(st, CONFIG)["sources"]["highlight"]
        n = w.shape[0]
        assert h["y"] == list(range(1, n + 1)) and h["x"] == [int(j) + 1 for j in w.argmax(axis=1)]
        assert h["width"] == h["height"] == [view.CELL] * n
    assert view.matrix_view(state(causal=True), CONFIG)["sources"]["highlight"]["x"][0] == 1
    uniform = view.matrix_view(state(q1_scale=0.0), CONFIG)["sources"]["highlight"]  # first row: four equal
    assert uniform["y"][:4] == [1, 1, 1, 1] and uniform["x"][:4] == [1, 2, 3, 4] and len(uniform["x"]) == 7


def test_colours_run_from_light_to_dark_and_the_text_stays_readable():
    assert view.ramp(view.BLUES, 0.0) == "#f7fbff" and view.ramp(view.BLUES, 1.0) == "#08306b"
    assert view.ramp(view.RED_BLUE, 0.5) == "#f7f7f7"
    fill, text = view.heat_cells([0.0, 0.2, 0.9, 0.5], [False, False, False, True], diverging=False)
    assert fill[0] == "#f7fbff" and fill[3] == view.MASKED_FILL
    assert text == [view.DARK_TEXT, view.DARK_TEXT, view.LIGHT_TEXT, view.MASKED_TEXT]
    fill, text = view.heat_cells([-3.0, 3.0, 0.0], [False] * 3, diverging=True, limit=3.0)
    assert fill == ["#67001f", "#053061", "#f7f7f7"]  # negative red, positive blue like the weights
    assert text == [view.LIGHT_TEXT, view.LIGHT_TEXT, view.DARK_TEXT]


def test_slider_boxes_show_the_value_not_float_noise():
    v = view.matrix_view(state(q1_scale=0.30000000000000004, seed=17), CONFIG)
    assert v["props"]["q1_scale_box"]["value"] == "0.3" and v["props"]["seed_box"]["value"] == "17"
    assert v["props"]["causal_toggle"]["active"] is False and v["props"]["scaled_toggle"]["active"] is True


@pytest.mark.parametrize(
    "name, bad",
    [
        ("d_k", 0),
        ("d_k", 65),
        ("n_tokens", 7),
        ("n_tokens", 1),
        ("seed", -1),
        ("seed", 10000),
        ("q1_scale", -0.5),
        ("q1_scale", float("nan")),
        ("causal", "yes"),
        ("d_k", 2.5),
        ("n_tokens", True),
        ("seed", "3"),
    ],
)
def test_bad_state_names_parameter_and_value(name, bad):
    with pytest.raises(ValueError, match=rf"^{name} must be .* got {re.escape(repr(bad))}$"):
        view.matrix_view(state(**{name: bad}), CONFIG)


def test_each_language_has_its_own_text():
    zh = view.matrix_view(state(), view.matrix_config("zh"))
    en = view.matrix_view(state(), view.matrix_config("en"))
    assert STRINGS["zh"]["matrix_row_sums"] in zh["html"]["row_sums"]
    assert STRINGS["en"]["matrix_row_sums"] in en["html"]["row_sums"]
    assert "Curves: mean over 2000 random Q, K (n = 4)" in en["html"]["max_weight"]
    assert en["props"]["score_title"]["text"] == STRINGS["en"]["matrix_plot_scores_scaled"]


def test_the_curves_wait_for_a_prediction_or_a_skip():
    before = view.matrix_view(state(revealed=False), CONFIG)
    assert before["props"]["curve_plot"] == {"visible": False}
    assert before["props"]["predict_check"] == before["props"]["predict_skip"] == {"visible": True}
    S = CONFIG["strings"]
    labels = [S[f"matrix_predict_{p}"] for p in view.PREDICTIONS[1:]]
    assert before["props"]["prediction_choice"] == {"labels": labels, "active": None, "disabled": False}
    assert (
        before["html"]["feedback"] == f"<span class='ae-hint'>{S['predict_locked']}</span>"
        and before["html"]["curve_data"] == ""
    )
    # Nothing to try before the prediction: the four sliders, their boxes, the two switches, the new seed.
    controls = [n for n in before["props"] if n.endswith(("_slider", "_box", "_toggle"))] + ["new_seed"]
    assert len(controls) == 11 and all(before["props"][n]["disabled"] is True for n in controls)
    opened = view.matrix_view(state(revealed=True), CONFIG)
    assert all(opened["props"][n]["disabled"] is False for n in controls)
    curve = CONFIG["curves"]["4"]
    for shown in (before["html"]["max_weight"], before["html"]["live"]):  # no number of the curves yet
        assert view.format_number(curve["unscaled"][3], 3) not in shown
    chosen = view.matrix_view(state(prediction="same", revealed=False), CONFIG)
    assert chosen["props"]["prediction_choice"]["active"] == 2 and chosen["props"]["curve_plot"]["visible"] is False
    # Once the answer shows, after a wrong pick, the option that happens is marked where the student chose.
    wrong = view.matrix_view(state(prediction="same", revealed=True), CONFIG)["props"]["prediction_choice"]
    right = view.PREDICTIONS.index(view.RIGHT_PREDICTION) - 1
    assert wrong["labels"][right] == labels[right] + S["predict_right_mark"]
    assert [x for i, x in enumerate(wrong["labels"]) if i != right] == [x for i, x in enumerate(labels) if i != right]


@pytest.mark.parametrize("prediction", view.PREDICTIONS)
def test_the_answer_names_the_curves_numbers_and_judges_the_prediction(prediction):
    after = view.matrix_view(state(prediction=prediction, revealed=True), CONFIG)
    S, curve = CONFIG["strings"], CONFIG["curves"]["4"]
    feedback = after["html"]["feedback"]
    assert after["props"]["curve_plot"] == {"visible": True} and after["props"]["prediction_choice"]["disabled"]
    assert (
        view.format_number(curve["unscaled"][-1], 2) in feedback
        and view.format_number(curve["scaled"][0], 2) in feedback
    )
    assert curve["unscaled"][-1] > 0.85 > 0.6 > curve["scaled"][-1]  # unscaled saturates; scaled does not
    if prediction:
        assert S["matrix_predict_" + prediction] in feedback
        right = S["predict_right"] in feedback
        assert right == (prediction == view.RIGHT_PREDICTION)
        assert right != (S["predict_wrong"] in feedback)
    else:
        assert S["predict_right"] not in feedback and S["predict_wrong"] not in feedback


@pytest.mark.parametrize("bad", [{"prediction": "peak"}, {"prediction": None}, {"revealed": 1}])
def test_a_malformed_prediction_is_named(bad):
    name = next(iter(bad))
    with pytest.raises(ValueError, match=name):
        view.matrix_view(state(**bad), CONFIG)


def test_the_default_seed_opens_on_soft_scaled_rows_that_saturate_unscaled():
    """The first view shows what the explorable teaches: scaled, no row is peaked; unscaled, rows saturate."""
    for d_k in (4, 16, 64):
        scaled = view.attention_matrices(state(seed=view.DEFAULT_SEED, d_k=d_k))
        assert scaled["weights"].max() < 0.57, d_k
    unscaled = [
        view.attention_matrices(state(seed=view.DEFAULT_SEED, d_k=d, scaled=False))["mean_max_weight"] for d in (4, 64)
    ]
    assert unscaled[0] < 0.6 and unscaled[1] > 0.9


@pytest.mark.parametrize("language", ["zh", "en"])
def test_the_curves_say_they_are_unmasked_when_the_matrix_is_masked(language):
    config = view.matrix_config(language)
    note = STRINGS[language]["matrix_curve_unmasked"]
    notes = {
        (causal, revealed): view.matrix_view(state(causal=causal, revealed=revealed, prediction="peaked"), config)[
            "html"
        ]["notes"]
        for causal in (True, False)
        for revealed in (True, False)
    }
    assert note in notes[True, True]  # masked, with the curves on screen
    assert not any(note in notes[k] for k in ((True, False), (False, True), (False, False)))
