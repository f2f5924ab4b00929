"""Deep links read in JavaScript (web/links.js) against Python (views/links.py), in Chromium.

The same query strings, read with each explorable's link spec (both
languages, on a page of its own and behind a prefix on the textbook page),
must give the same values, the same notices and the same opened state;
and the query the address bar is given must read back to the state it came from.
"""

from __future__ import annotations

import random
import urllib.parse

import pytest

from attention_explorable.modules import MODULES, module_widget
from attention_explorable.views.links import link_values, read_link

from .mirror import differences

pytestmark = pytest.mark.browser

QUERIES = [
    "",
    "step=3",
    "step=3&temperature=0.05&score_diff=2&value_1=2&value_2=10",
    "step=2&step=3",
    "temperature=50",
    "temperature=-1",
    "temperature=0",
    "temperature=abc",
    "temperature=",
    "temperature=1e-400",
    "temperature=1e400",
    "temperature=inf",
    "temperature=nan",
    "temperature=0x10",
    "temperature=%EF%BC%90.5",
    "temperature=%E2%88%920.5",
    "temperature=1/4",
    "temperature=+0.5",
    "temperature=%20%200.5%20",
    "step=0",
    "step=4",
    "step=2.5",
    "step=1e0",
    "step=-0",
    "value_2=99&value_1=-99",
    "prediction_text=6",
    "prediction_text=%3Cb%3E8%3C/b%3E",
    "prediction_text=" + "x" * 201,
    "prediction_text=" + "九" * 200,
    "prediction_text=a+b",
    "query_x=0.5&query_y=-2.5&temperature=0.05",
    "query_x=%E0%A4%A",
    "query_y=1%2F3",
    "n_tokens=4.5",
    "n_tokens=1e3",
    "n_tokens=2",
    "d_k=64&seed=7&q1_scale=2.5&causal=1&scaled=false",
    "causal=yes",
    "causal=maybe",
    "causal=TRUE",
    "scaled=off",
    "seed=-1",
    "mode=cross",
    "mode=self_en",
    "mode=xx",
    "query=3",
    "query=9",
    "lang=en&room=ABC&embed=1",
    "%3Cscript%3E=1&temperature=%3Cscript%3E",
]


def _specs():
    out = []
    for name in MODULES:
        for language in ("zh", "en"):
            for prefix in ("", f"{name}."):
                out.append(
                    (
                        f"{name}-{language}-{prefix or 'page'}",
                        module_widget(name, language, link_prefix=prefix).ae_module_link(),
                    )
                )
    return out


SPECS = _specs()


def _prefixed(query: str, prefix: str) -> str:
    return "&".join(prefix + part if part else part for part in query.split("&"))


def test_reading_a_link_is_the_same_in_both_languages(module_page):
    cases = []
    for label, spec in SPECS:
        for query in QUERIES:
            query = _prefixed(query, spec["prefix"])
            values, notices = read_link(spec, urllib.parse.parse_qsl(query, keep_blank_values=True))
            state = link_values(spec, spec["defaults"], values)
            cases.append((label, spec, query, {"values": values, "notices": notices, "state": state}))
    js = module_page.evaluate(
        """cases => cases.map(([spec, query]) => {
             const [values, notices] = window.ae.readLink(spec, query);
             return {values, notices, state: window.ae.linkValues(spec, spec.defaults, values)};
           })""",
        [[spec, query] for _, spec, query, _ in cases],
    )
    problems = [
        f"{label} {query!r}: {d}" for (label, _, query, py), got in zip(cases, js) for d in differences(py, got)
    ]
    assert not problems, problems[:20]
    # the cases do exercise what they should
    assert any(c[3]["notices"] for c in cases) and any(c[3]["values"] for c in cases)


def test_the_address_bar_query_reopens_the_state(module_page):
    rng = random.Random(11)
    cases = []
    for label, spec in SPECS:
        for _ in range(15):
            state = dict(spec["defaults"])
            for p in spec["params"]:
                if rng.random() < 0.5:
                    continue
                if p["kind"] == "number":
                    state[p["name"]] = rng.choice(
                        [
                            p["lo"],
                            p["hi"],
                            round(rng.uniform(p["lo"], p["hi"]), 2),
                            rng.uniform(p["lo"], p["hi"]),
                            0.05,
                            0.1 + 0.2,
                        ]
                    )
                    state[p["name"]] = min(max(state[p["name"]], p["lo"]), p["hi"])
                elif p["kind"] == "integer":
                    state[p["name"]] = rng.randint(p["lo"], p["hi"])
                elif p["kind"] == "boolean":
                    state[p["name"]] = rng.random() < 0.5
                elif p["kind"] == "choice":
                    state[p["name"]] = rng.choice(p["choices"])
                else:
                    state[p["name"]] = rng.choice(["", "6", "九点五", "a&b=c", "8 + 1"])
            cases.append((label, spec, state))
    queries = module_page.evaluate(
        "cases => cases.map(([spec, state]) => window.ae.linkQuery(spec, state, 'lang=en&x.y=1'))",
        [[spec, state] for _, spec, state in cases],
    )
    problems = []
    for (label, spec, state), query in zip(cases, queries):
        pairs = urllib.parse.parse_qsl(query, keep_blank_values=True)
        assert ("lang", "en") in pairs and ("x.y", "1") in pairs, query  # others' parameters stay
        values, notices = read_link(spec, pairs)
        reopened = link_values(spec, spec["defaults"], values)
        if notices or differences(state, reopened):
            problems.append(f"{label}: {state} -> {query!r} -> {reopened} {notices}")
    assert not problems, problems[:10]
    # a value equal to what the page opens with is left out; 0.05 is written as 0.05
    steps = next(spec for label, spec in SPECS if label == "steps-zh-page")
    assert (
        module_page.evaluate(
            "([spec, state]) => window.ae.linkQuery(spec, state, '')",
            [steps, {**steps["starts"]["3"], "temperature": 0.05}],
        )
        == "step=3&temperature=0.05"
    )
