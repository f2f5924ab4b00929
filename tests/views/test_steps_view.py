"""The Python view of the steps explorable (the oracle of web/steps.js) on chosen states."""

from __future__ import annotations

import re

import numpy as np
import pytest

from attention_explorable import core, scenarios
from attention_explorable.strings import STRINGS
from attention_explorable.views import steps as view
from attention_explorable.views.numbers import format_number

CONFIG = view.steps_config("zh")


def state(step=1, prediction_text="", revealed=False, animating=False, asked=False, **numbers):
    base = dict(scenarios.get_step(step).start)
    return {
        **base,
        **numbers,
        "step": step,
        "prediction_text": prediction_text,
        "revealed": revealed,
        "animating": animating,
        "asked": asked,
    }


def number(html: str, label: str) -> float:
    """The number after ``label =`` in a readout's HTML."""
    m = re.search(re.escape(label) + r" = (-?[0-9.]+)", html)
    assert m, f"{label!r} not found in {html!r}"
    return float(m.group(1))


def test_step_1_starts_unequal_so_the_answer_is_not_shown_early():
    v = view.steps_view(state(1), CONFIG)
    a2 = 1 / (1 + np.exp(-1.0))
    assert number(v["html"]["readouts"], "α₂") == pytest.approx(a2, abs=5e-4)
    assert number(v["html"]["readouts"], "y") == pytest.approx(2 + 8 * a2, abs=5e-4)
    target = view.steps_view({**state(1), **scenarios.get_step(1).target}, CONFIG)
    assert number(target["html"]["readouts"], "α₁") == 0.5 and number(target["html"]["readouts"], "y") == 6.0
    assert target["sources"]["interval"] == {"x0": [2.0], "x1": [10.0]}


@pytest.mark.parametrize("n", [1, 2, 3])
def test_result_compares_the_prediction_with_the_target(n):
    step = scenarios.get_step(n)
    within = f"{scenarios.WITHIN:g}"
    right, off = (STRINGS["zh"][k].format(within=within) for k in ("result_right", "result_off"))
    expected = float(
        core.weighted_sum(
            core.softmax(
                [step.target["score_1"], step.target["score_1"] + step.target["score_diff"]],
                temperature=step.target["temperature"],
            ),
            [step.target["value_1"], step.target["value_2"]],
        )
    )
    v = view.steps_view({**state(n, "7.5", revealed=True), **step.target}, CONFIG)
    result = v["html"]["result"]
    assert "7.5" in result and f"{expected:.2f}" in result and f"{abs(7.5 - expected):.2f}" in result
    assert STRINGS["zh"]["result_moved"] not in result
    # A verdict when the prediction is within the class's rule of the demonstration (6, 9.05, 10 against 7.5).
    assert (right in result) is (abs(7.5 - expected) <= scenarios.WITHIN)
    lo, hi = sorted((step.target["value_1"], step.target["value_2"]))
    step_in = 0.8 * scenarios.WITHIN
    close = expected + step_in if expected + step_in <= hi else expected - step_in  # within the rule, inside [v₁, v₂]
    near = view.steps_view({**state(n, f"{close:.3f}", revealed=True), **step.target}, CONFIG)
    assert right in near["html"]["result"]
    # Within the rule but outside [v₁, v₂] (10.2 at step 3, where y = 10.00) is not right: y never leaves it.
    if expected + step_in > hi:
        beyond = view.steps_view({**state(n, f"{expected + step_in:.3f}", revealed=True), **step.target}, CONFIG)
        said = beyond["html"]["result"]
        assert right not in said and STRINGS["zh"]["result_near_outside"] in said, said
        assert "注意：y 总落在" in said
    # The prediction that is the demonstration's y to two decimals is "0.00" from it, not "3.6×10⁻³".
    same = view.steps_view({**state(n, f"{expected:.2f}", revealed=True), **step.target}, CONFIG)["html"]["result"]
    assert "相差 0.00" in same and "10<sup>" not in same, same
    far = view.steps_view({**state(n, f"{expected - 0.6:.3f}", revealed=True), **step.target}, CONFIG)
    assert right not in far["html"]["result"]
    assert off in far["html"]["result"]  # a wrong prediction is told so
    assert off not in near["html"]["result"]
    assert f"相差不超过 {within}）" in right  # the rule said is the rule applied
    assert STRINGS["zh"][f"step{n}_explain"] in v["html"]["question"]
    # A prediction outside [v₁, v₂] is told that y never leaves it; one inside is not.
    outside = view.steps_view({**state(n, "15", revealed=True), **step.target}, CONFIG)["html"]["result"]
    assert "注意：y 总落在 v₁ = 2 与 v₂ = 10 之间" in outside
    assert "注意" not in result
    pending = view.steps_view(state(n, "7.5"), CONFIG)["html"]["result"]
    assert STRINGS["zh"]["result_pending"] in pending and f"{expected:.2f}" not in pending


def test_result_after_moving_a_slider_says_which_state_it_belongs_to():
    step = scenarios.get_step(2)
    moved = view.steps_view({**state(2, "9", revealed=True), **step.target, "temperature": 10.0}, CONFIG)
    assert "9.05" in moved["html"]["result"] and STRINGS["zh"]["result_moved"] in moved["html"]["result"]


def test_step_3_low_temperature_sharpens_and_the_literal_formula_overflows():
    v = view.steps_view({**state(3), **scenarios.get_step(3).target}, CONFIG)
    a1, a2 = v["sources"]["weights"]["weight"]
    assert 0.999 < a2 <= 1.0 and a1 > 0.0  # a weighting, never a hard maximum
    assert "NaN" in v["html"]["naive"] and "∞" in v["html"]["naive"]
    hot = view.steps_view(state(3, temperature=10.0, revealed=True), CONFIG)  # moved by hand after it
    assert hot["sources"]["weights"]["weight"][1] == pytest.approx(1 / (1 + np.exp(-0.2)))
    assert number(hot["html"]["readouts"], "y") == pytest.approx(6.3987, abs=5e-4)
    assert hot["sources"]["point"]["t"] == [10.0]
    curve = hot["sources"]["curve"]
    assert curve["t"][0] == pytest.approx(0.01) and curve["t"][-1] == pytest.approx(10.0)
    assert np.all(np.diff(curve["weight"]) <= 1e-15)  # monotone: sharper at low T


def test_temperature_views_only_in_step_3_once_demonstrated():
    for n in (1, 2):
        v = view.steps_view(state(n, revealed=True), CONFIG)
        assert v["props"]["curve_fig"]["visible"] is False and v["sources"]["curve"] == {"t": [], "weight": []}
    for shown in (state(3, revealed=True), state(3, animating=True)):
        v = view.steps_view(shown, CONFIG)
        assert v["props"]["curve_fig"]["visible"] is True and v["html"]["curve_data"]
        assert len(v["sources"]["curve"]["t"]) == len(CONFIG["curve_t"]) and v["sources"]["point"]["t"]


def test_a_replays_number_boxes_read_as_their_sliders_step_then_exactly_once_it_ends():
    """A frame on the way reads T = 0.98 (not 0.978688) and s₂ − s₁ = 1.3; the end state reads exactly."""
    frame = view.steps_view(state(3, animating=True, temperature=0.978688, score_diff=1.2637), CONFIG)["props"]
    assert (frame["temperature_box"]["value"], frame["score_diff_box"]["value"]) == ("0.98", "1.3")
    ended = view.steps_view(state(3, revealed=True, temperature=0.978688), CONFIG)["props"]
    assert ended["temperature_box"]["value"] == "0.978688"


def shown_text(v: dict) -> str:
    """Every text a view puts on the screen or in a screen-reader table, and every label of its plots."""
    labels = [str(x) for src in v["sources"].values() for col in ("label", "name") for x in src.get(col, [])]
    return "\n".join([*v["html"].values(), *labels])


@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("language", ["zh", "en"])
def test_nothing_shows_a_step_s_answer_before_its_demonstration(n, language):
    config = view.steps_config(language)
    step = scenarios.get_step(n)
    res = scenarios.outcome(step.target)
    answers = {
        format_number(res["output"]),
        format_number(res["output"], 2),
        format_number(res["weights"][0]),
        format_number(res["weights"][1]),
    }
    answers -= {format_number(x) for x in scenarios.outcome(step.start)["weights"]}  # equal at start and target
    for typed in ("", "7", "abc"):
        for asked in (False, True):
            before = view.steps_view(state(n, typed, asked=asked), config)
            text = shown_text(before)
            assert not [a for a in answers if a in text], (typed, asked)
            assert before["sources"]["curve"] == {"t": [], "weight": []} and before["sources"]["point"]["t"] == []
            assert before["html"]["curve_data"] == "" and before["props"]["curve_fig"]["visible"] is False
            assert STRINGS[language][f"step{n}_explain"] not in text
    after = shown_text(view.steps_view({**state(n, "7", revealed=True), **step.target}, config))
    assert format_number(res["output"], 2) in after


def test_the_demonstration_without_a_prediction_asks_for_one():
    asked = view.steps_view(state(2, asked=True), CONFIG)
    assert STRINGS["zh"]["prediction_needed"] in asked["html"]["result"]
    assert asked["props"]["skip"] == {"visible": True}
    assert asked["html"]["live"] == STRINGS["zh"]["prediction_needed"]  # said to a screen reader too
    for calm in (
        state(2),
        state(2, "8", asked=True),
        state(2, asked=True, revealed=True),
        state(2, asked=True, animating=True),
    ):
        v = view.steps_view(calm, CONFIG)
        assert (
            v["props"]["skip"] == {"visible": False} and STRINGS["zh"]["prediction_needed"] not in v["html"]["result"]
        )
    junk = view.steps_view(state(2, "abc", asked=True), CONFIG)  # a prediction that is no number is none
    assert junk["props"]["skip"] == {"visible": True}


@pytest.mark.parametrize("raw", ["abc", "1e999", "21", "nan", "<b>x</b>", "1/0"])
def test_malformed_prediction_gives_a_clear_message(raw):
    v = view.steps_view(state(1, raw), CONFIG)
    assert v["props"]["error"]["visible"] and "预测必须是 −20 到 20 之间的数字" in v["html"]["error"]
    assert "<b>x" not in v["html"]["error"] and v["sources"]["prediction"]["x"] == []
    ok = view.steps_view(state(1, "5，5"), CONFIG)  # a full-width comma typed as decimal mark
    assert ok["sources"]["prediction"]["x"] == [5.5] and not ok["props"]["error"]["visible"]


def test_a_long_prediction_echo_is_capped():
    v = view.steps_view(state(1, "9" * 5000), CONFIG)
    assert len(v["html"]["error"]) < 200 and "…" in v["html"]["error"]


def test_the_prediction_widens_the_number_line():
    v = view.steps_view(state(1, "-19"), CONFIG)
    start, end = v["ranges"]["x_range"]
    assert start < -19 and end > 10


def test_slider_boxes_show_the_value_not_float_noise():
    v = view.steps_view(state(1, score_diff=1.8000000000000007), CONFIG)
    assert v["props"]["score_diff_box"]["value"] == "1.8"


def test_formula_shows_current_numbers():
    v = view.steps_view(state(1, score_diff=1.5, temperature=0.5), CONFIG)
    assert "(1.50)/0.50" in v["html"]["formula"]
    w = core.softmax([0.0, 1.5], temperature=0.5)
    assert f"{w[1]:.3f}" in v["html"]["formula"]


def test_each_language_has_its_own_text():
    zh = view.steps_view(state(1), view.steps_config("zh"))
    en = view.steps_view(state(1), view.steps_config("en"))
    assert STRINGS["zh"]["step1_question"].format(v1=2, v2=10) in zh["html"]["question"]
    assert STRINGS["en"]["step1_question"].format(v1=2, v2=10) in en["html"]["question"]


def test_an_authors_values_are_every_steps_and_its_question_says_them():
    config = view.steps_config("en", values={"value_1": -1.5, "value_2": 8})
    for step in config["steps"]:
        assert (step["start"]["value_1"], step["start"]["value_2"]) == (-1.5, 8.0)
        assert (step["target"]["value_1"], step["target"]["value_2"]) == (-1.5, 8.0)
    v = view.steps_view(state(1, value_1=-1.5, value_2=8.0, revealed=True), config)
    assert "v₁ = −1.5 and v₂ = 8" in v["html"]["question"]
    # demonstrated: the check is against that step's own answer, the midpoint of -1.5 and 8
    assert "3.25" in v["html"]["result"] and view.steps_config("en")["steps"][0]["target"]["value_2"] == 10.0
    with pytest.raises(ValueError, match="value_3"):
        view.steps_config("en", values={"value_3": 1.0})
    with pytest.raises(ValueError, match="value_2 must be a finite number, got nan"):
        view.steps_config("en", values={"value_2": float("nan")})


@pytest.mark.parametrize("language, label", [("zh", "<b>核对</b>："), ("en", "<b>Check</b>: ")])
def test_the_result_label_is_followed_by_its_languages_colon(language, label):
    config = view.steps_config(language)
    for st in (state(2, "9"), state(2, "9", revealed=True), state(2, asked=True)):
        assert view.steps_view(st, config)["html"]["result"].startswith(label), st


@pytest.mark.parametrize("language", sorted(STRINGS))
@pytest.mark.parametrize("n", [s.number for s in scenarios.STEPS])
def test_a_prediction_off_by_a_usual_slip_is_told_which(n, language):
    """Equal weights (the midpoint; at step 3's low temperature, said as the temperature's direction), one of the values under equal scores, all the weight on one score, the weights swapped, the temperature left
    out: a prediction that comes near what one of them gives, and is wrong, is told that slip; a right one,
    and one near none of them, are told none."""
    config = view.steps_config(language)
    S, step = config["strings"], scenarios.get_step(n)
    said = {
        name: S[f"slip_{name}"].split("{y}")[1][:25]
        for name in ("equal", "cold", "value", "all", "swapped", "temperature")
    }

    def told(pred: str) -> set:
        result = view.steps_view({**state(n, pred, revealed=True), **step.target}, config)["html"]["result"]
        return {name for name, text in said.items() if text in result}

    found = view.slips(step.target)
    assert all(abs(y - step.expected_output()) > config["within"] for _, y in found)
    for name, y in found:
        assert told(f"{y:.2f}") == {name} and told(f"{y + 0.08:.2f}") == {name}, (name, y)
        assert told(f"{y + 0.2:.2f}") <= {"all", "equal", "cold", "value", "swapped", "temperature"} - {name}
    assert told(f"{step.expected_output():.2f}") == set() and told("-15") == set()
    assert {name for name, _ in found} == {
        1: {"value"},
        2: {"equal", "all", "swapped"},
        3: {"cold", "swapped", "temperature"},
    }[n]


@pytest.mark.parametrize("typed", ["50", "abc"])
def test_asked_with_a_prediction_that_cannot_be_used_it_says_to_mend_it_not_to_write_one(typed):
    """ "Demonstrate" with 50 in the box (outside −20 to 20): the result says to change it, beside the note under
    the box, instead of "write down your prediction first" as if nothing had been typed."""
    v = view.steps_view(state(2, prediction_text=typed, asked=True), CONFIG)
    S = CONFIG["strings"]
    assert S["prediction_fix"].format(lo="−20", hi="20") in v["html"]["result"]
    assert S["prediction_needed"] not in v["html"]["result"] and v["html"]["error"]
    assert S["prediction_needed"] in view.steps_view(state(2, asked=True), CONFIG)["html"]["result"]


@pytest.mark.parametrize("language", sorted(STRINGS))
def test_a_wrong_prediction_no_slip_explains_is_shown_the_working(language):
    """Off by more than the tolerance and near no usual slip (8 at step 2): the result works the step out with its
    own numbers (α₂ = 1/(1 + e<sup>−Δ/T</sup>), then y), the numbers those of the step's outcome; a slip is told instead."""
    config = view.steps_config(language)
    S, step = config["strings"], scenarios.get_step(2)
    working = S["result_working"].split("{d}")[0]
    result = view.steps_view({**state(2, "8", revealed=True), **step.target}, config)["html"]["result"]
    w = scenarios.outcome(step.target)["weights"]
    assert working in result and view.format_number(w[1], 3) in result and "9.05" in result
    slip = view.steps_view({**state(2, "2.95", revealed=True), **step.target}, config)["html"]["result"]
    assert working not in slip
    right = view.steps_view({**state(2, "9", revealed=True), **step.target}, config)["html"]["result"]
    assert working not in right
