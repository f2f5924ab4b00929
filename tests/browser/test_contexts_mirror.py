"""The JavaScript "one word, two contexts" view (web/contexts.js) against the Python one (views/contexts.py).

Every string equal and every number equal to the last few bits, in Chromium: with and without
the causal mask, every prediction before and after its answer shows, in both languages.
"""

from __future__ import annotations

import itertools

import pytest

from attention_explorable.strings import STRINGS
from attention_explorable.views import contexts as view

from .mirror import differences

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("language", sorted(STRINGS))
def test_javascript_view_equals_python_view(module_page, language):
    config = view.contexts_config(language)
    states = [
        {"causal": c, "prediction": p, "revealed": r}
        for c, p, r in itertools.product((False, True), view.PREDICTIONS, (False, True))
    ]
    js = module_page.evaluate("([states, config]) => states.map((s) => ae.contextsView(s, config))", [states, config])
    bad = [
        (st, diffs[:3])
        for st, js_view in zip(states, js)
        if (diffs := differences(view.contexts_view(st, config), js_view))
    ]
    assert not bad, f"{len(bad)} of {len(states)} states differ, e.g. {bad[:3]}"


def test_bad_states_are_refused_in_javascript_too(module_page):
    config = view.contexts_config("en")
    bad = [{"causal": 1, "prediction": "", "revealed": False}, {"causal": False, "prediction": "x", "revealed": False}]
    errors = module_page.evaluate(
        """([config, states]) => states.map((s) => {
             try { ae.contextsView(s, config); return ""; } catch (err) { return err.message; }
           })""",
        [config, bad],
    )
    assert errors[0].startswith("causal") and errors[1].startswith("prediction"), errors
