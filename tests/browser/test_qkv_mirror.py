"""The JavaScript "from X to the output" view (web/qkv.js) against the Python one (views/qkv.py), in Chromium.

Every string must be equal and every number equal to the last few bits: on
every choice of the three projections, with and without the causal mask,
every prediction before and after its answer shows, in both languages.
"""

from __future__ import annotations

import itertools

import pytest

from attention_explorable.strings import STRINGS
from attention_explorable.views import qkv as view

from .mirror import differences

pytestmark = pytest.mark.browser


def _states() -> list[dict]:
    answers = list(itertools.product(view.PREDICTIONS, (False, True)))
    return [
        {
            "w_q": w_q,
            "w_k": w_k,
            "w_v": w_v,
            "causal": causal,
            "prediction": answers[c % len(answers)][0],
            "revealed": answers[c % len(answers)][1],
        }
        for c, (w_q, w_k, w_v, causal) in enumerate(
            itertools.product(view.PRESETS, view.PRESETS, view.PRESETS, (False, True))
        )
    ]


@pytest.mark.parametrize("language", sorted(STRINGS))
def test_javascript_view_equals_python_view(module_page, language):
    config, states = view.qkv_config(language), _states()
    assert len(states) == 4**3 * 2
    js = module_page.evaluate("([states, config]) => states.map((s) => ae.qkvView(s, config))", [states, config])
    bad = [
        (st, diffs[:3]) for st, js_view in zip(states, js) if (diffs := differences(view.qkv_view(st, config), js_view))
    ]
    assert not bad, f"{len(bad)} of {len(states)} states differ, e.g. {bad[:3]}"


def test_bad_states_are_refused_in_javascript_too(module_page):
    config = view.qkv_config("en")
    good = {
        "w_q": "identity",
        "w_k": "identity",
        "w_v": "identity",
        "causal": False,
        "prediction": "",
        "revealed": False,
    }
    bad = [
        {**good, "w_q": "rotate"},
        {**good, "causal": "yes"},
        {**good, "prediction": "values"},
        {**good, "w_v": "toString"},
    ]
    errors = module_page.evaluate(
        """([config, states]) => states.map((s) => {
             try { ae.qkvView(s, config); return ""; } catch (err) { return err.message; }
           })""",
        [config, bad],
    )
    assert [e.split(" ")[0] for e in errors] == ["w_q", "causal", "prediction", "w_v"], errors
