"""Deep links read in Python (views/links.py) and opened by the explorables."""

from __future__ import annotations

import math

import html

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention_explorable import scenarios
from attention_explorable.explorables import MODULES, explorable_class
from attention_explorable.explorables.matrix import MatrixExplorer
from attention_explorable.explorables.selfcross import SelfCrossExplorer
from attention_explorable.explorables.steps import StepsExplorer
from attention_explorable.explorables.vector import VectorExplorer
from attention_explorable.views.links import TEXT_LIMIT, link_values, read_link


def test_a_link_names_the_explorables_own_parameters_with_their_bounds():
    for name in [n for n, m in MODULES.items() if m.viewer]:
        ex = explorable_class(name)()
        spec = ex.link_spec()
        for p in spec["params"]:
            assert p["name"] in ex._state_params
            if p["kind"] in ("number", "integer"):
                assert (p["lo"], p["hi"]) == ex.param[p["name"]].bounds
        assert ex.open_link({}) == [] and ex.state() == explorable_class(name)().state()
        # what a fresh explorable opens with is what the spec calls its defaults
        assert {n: getattr(ex, n) for n in spec["defaults"]} == spec["defaults"]


def test_the_issue_examples_open_their_views():
    steps = StepsExplorer()
    assert (
        steps.open_link(
            {"step": [b"3"], "temperature": [b"0.05"], "score_diff": [b"2"], "value_1": [b"2"], "value_2": [b"10"]}
        )
        == []
    )
    assert (steps.step, steps.temperature, steps.score_1) == (3, 0.05, scenarios.get_step(3).start["score_1"])
    vector = VectorExplorer()
    vector.open_link([("query_x", "0.5"), ("query_y", "-1"), ("temperature", "2")])
    assert vector.state() == {"query_x": 0.5, "query_y": -1.0, "temperature": 2.0, "prediction": "", "revealed": False}
    matrix = MatrixExplorer()
    query = "n_tokens=6&d_k=64&seed=7&q1_scale=2.5&causal=1&scaled=false"
    assert matrix.open_link(query) == []
    assert matrix.state() == {
        "n_tokens": 6,
        "d_k": 64,
        "seed": 7,
        "q1_scale": 2.5,
        "causal": True,
        "scaled": False,
        "prediction": "",
        "revealed": False,
    }
    selfcross = SelfCrossExplorer()
    selfcross.open_link([("mode", "cross"), ("causal", "true"), ("query", "3")])
    assert (selfcross.mode, selfcross.causal, selfcross.query) == ("cross", True, 3)


def test_a_query_string_opens_as_its_pairs_do_with_or_without_its_question_mark():
    for query in ("step=3&temperature=0.05", "?step=3&temperature=0.05", b"step=3&temperature=0.05"):
        steps = StepsExplorer()
        assert steps.open_link(query) == []
        assert (steps.step, steps.temperature) == (3, 0.05)
    steps = StepsExplorer(language="en")
    assert steps.open_link("temperature=hot&score_diff=") and steps.temperature == StepsExplorer().temperature


def test_step_first_resets_to_its_start_then_the_other_values_apply():
    steps = StepsExplorer(temperature=7.0, prediction_text="4")
    steps.open_link([("temperature", "0.05"), ("step", "2")])  # order in the URL does not matter
    assert steps.state()["temperature"] == 0.05
    assert steps.prediction_text == ""
    assert {k: getattr(steps, k) for k in scenarios.STATE_KEYS if k != "temperature"} == {
        k: v for k, v in scenarios.get_step(2).start.items() if k != "temperature"
    }


def test_out_of_bounds_is_clamped_and_junk_ignored_with_a_visible_notice():
    steps = StepsExplorer(language="en")
    notices = steps.open_link([("temperature", "50"), ("value_2", "ten"), ("step", "2.5"), ("step", "3")])
    assert steps.temperature == 10.0 and steps.value_2 == 10.0 and steps.step == 1
    assert notices == [
        "The link’s temperature=50 is outside [0.01, 10]; set to 10.",
        "The link’s value_2=ten is not a value it can take; ignored.",
        "The link’s step=2.5 is not a value it can take; ignored.",
    ]
    notice = steps._models()["notice"]
    assert notice.visible and html.unescape(notice.text) == " ".join(notices)
    zh = StepsExplorer()
    assert zh.open_link([("temperature", "-1")]) == ["链接中的 temperature=-1 超出范围 [0.01, 10]，已改为 0.01。"]


def test_a_prefix_keeps_explorables_of_one_page_apart():
    steps = StepsExplorer(link_prefix="steps.")
    vector = VectorExplorer(link_prefix="vector.")
    query = [("steps.step", "2"), ("vector.temperature", "3"), ("temperature", "9"), ("step", "3")]
    assert steps.open_link(query) == [] and vector.open_link(query) == []
    assert steps.step == 2 and steps.temperature == scenarios.get_step(2).start["temperature"]
    assert vector.temperature == 3.0


def test_kinds_read_as_documented():
    spec = {
        "prefix": "",
        "messages": {"clamped": "{name} {raw} {lo} {hi} {value}", "junk": "{name} {raw}"},
        "params": [
            {"name": "b", "kind": "boolean"},
            {"name": "c", "kind": "choice", "choices": ["x", "y"]},
            {"name": "t", "kind": "text"},
            {"name": "i", "kind": "integer", "lo": 1, "hi": 5},
        ],
    }
    assert read_link(spec, [("b", " Yes "), ("c", "y"), ("t", "<b>"), ("i", "5.0")]) == (
        {"b": True, "c": "y", "t": "<b>", "i": 5},
        [],
    )
    values, notices = read_link(spec, [("b", "maybe"), ("c", "X"), ("t", "x" * (TEXT_LIMIT + 1)), ("i", "9")])
    assert values == {"i": 5}
    assert notices[:2] == ["b maybe", "c X"] and notices[3] == "i 9 1 5 5"
    assert notices[2] == "t " + "x" * 40 + "…"  # a long value is echoed short
    assert read_link(spec, [("t", "<script>")])[0] == {"t": "<script>"}
    assert read_link(spec, [("c", "<script>")])[1] == ["c &lt;script&gt;"]  # escaped for the page
    assert link_values({"reset": "i", "starts": {"2": {"b": False}}}, {"b": True, "i": 1}, {"i": 2}) == {
        "b": False,
        "i": 2,
    }


_STEPS = StepsExplorer()
_STEPS_SPEC = _STEPS.link_spec()


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["step", "temperature", "value_1", "prediction_text", "x"]), st.text(max_size=30)),
        max_size=6,
    )
)
def test_no_query_raises_or_leaves_the_bounds(pairs):
    values, notices = read_link(_STEPS_SPEC, pairs)
    state = link_values(_STEPS_SPEC, _STEPS_SPEC["defaults"], values)
    for p in _STEPS_SPEC["params"]:
        if p["kind"] in ("number", "integer"):
            assert p["lo"] <= state[p["name"]] <= p["hi"]
            assert math.isfinite(state[p["name"]])
            assert p["kind"] == "number" or isinstance(state[p["name"]], int)
    assert len(notices) <= len(pairs)


@pytest.mark.parametrize("raw", [b"\xff\xfe", "temperature".encode()])
def test_bytes_from_the_server_are_read_as_utf8(raw):
    values, notices = read_link(StepsExplorer().link_spec(), {"temperature": [raw]})
    assert values == {} and len(notices) == 1
