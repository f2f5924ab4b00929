"""The JavaScript self- and cross-attention view (web/selfcross.js) against the Python one (views/selfcross.py), in Chromium.

Every string must be equal and every number equal to the last few bits: on
every mode x causal mask x query row of the course's toy sentences in both
languages, and on other sentences carried by the configuration (random
embeddings of 1 to 8 dimensions and 1 to 6 words, embeddings large enough
that weights underflow to 1e-80, equal rows whose weights tie, tokens that
need HTML escaping). No row is ever fully masked: the causal mask always
leaves a query its own word.
"""

from __future__ import annotations

import copy
import itertools
import random

import pytest

from attention_explorable.strings import STRINGS
from attention_explorable.views import selfcross as view

from .mirror import differences

pytestmark = pytest.mark.browser

TOKENS = ["我", "爱", "机器", "学习", "I", "love", "<b>", "a&b", '"q"', "it's", "深度", "x"]


def _states(config: dict) -> list[dict]:
    """Every mode x causal x query row the sentences of ``config`` allow, with every prediction."""
    states = []
    for mode, causal in itertools.product(view.MODES, [False, True]):
        n_q = len(config["sentences"][view.SIDES[mode][0]]["tokens"])
        states += [{"mode": mode, "causal": causal, "query": q} for q in range(1, n_q + 1)]
    # Predict first: every prediction, before and after the answer shows (and some states without either).
    answers = list(itertools.product(view.PREDICTIONS, (False, True)))
    return [
        {**st, "prediction": answers[c % len(answers)][0], "revealed": answers[c % len(answers)][1]} if c % 3 else st
        for c, st in enumerate(states)
    ]


def _configs(language: str) -> list[dict]:
    base = view.selfcross_config(language)
    configs = [base]
    rng = random.Random(11 if language == "zh" else 12)
    for i in range(24):
        d = rng.randint(1, 8)
        config = copy.deepcopy(base)
        scale = [1.0, 3.0, 40.0][i % 3]  # 40: scores in the hundreds, weights down to 1e-80 and below
        for side in ("zh", "en"):
            n = rng.randint(1, 6)
            emb = [[round(rng.uniform(-3, 3) * scale, 3) for _ in range(d)] for _ in range(n)]
            if i % 4 == 1 and n > 1:
                emb[1] = list(emb[0])  # two equal keys: equal weights, the first is "most attended"
            config["sentences"][side] = {"tokens": rng.sample(TOKENS, n), "embeddings": emb}
        configs.append(config)
    return configs


@pytest.mark.parametrize("language", sorted(STRINGS))
def test_javascript_view_equals_python_view(module_page, language):
    cases = [(config, _states(config)) for config in _configs(language)]
    assert sum(len(states) for _, states in cases) >= 300
    assert len(cases[0][1]) == 3 * 2 * 4  # the course's sentences: every mode, mask and query row
    js = module_page.evaluate(
        "(cases) => cases.map(([config, states]) => states.map((s) => ae.selfcrossView(s, config)))", cases
    )
    bad, tiny = [], 0
    for (config, states), js_views in zip(cases, js):
        for st, js_view in zip(states, js_views):
            py_view = view.selfcross_view(st, config)
            tiny += "×10⁻" in "".join(py_view["sources"]["cells"]["text"])
            diffs = differences(py_view, js_view)
            if diffs:
                bad.append((st, diffs[:3]))
    assert not bad, f"{len(bad)} states differ, e.g. {bad[:3]}"
    assert tiny > 0  # the scientific notation of tiny weights was compared too


def test_bad_states_are_refused_in_javascript_too(module_page):
    config = view.selfcross_config("zh")
    errors = module_page.evaluate(
        """([config, states]) => states.map((s) => {
             try { ae.selfcrossView(s, config); return ""; } catch (err) { return err.message; }
           })""",
        [
            config,
            [
                {"mode": "self_fr", "causal": False, "query": 1},
                {"mode": "cross", "causal": False, "query": 0},
                {"mode": "cross", "causal": False, "query": 5},
                {"mode": "cross", "causal": False, "query": 1.5},
            ],
        ],
    )
    assert "mode" in errors[0] and "self_fr" in errors[0]
    assert all("query" in e for e in errors[1:]), errors
