"""The JavaScript matrix view (web/matrix.js) against the Python one (views/matrix.py), in Chromium.

The random generator must agree bit for bit (the integers and the normals,
on many seeds and shapes); every string of the view must be equal and every
number equal to the last few bits, on every n, a grid of d_k with both
ends, many seeds, all four causal/scaled combinations and q1_scale from 0
to 4, every prediction before and after the curves show, in both languages.
"""

from __future__ import annotations

import itertools
import random

import pytest

from attention_explorable.strings import STRINGS
from attention_explorable.views import matrix as view

from .mirror import differences

pytestmark = pytest.mark.browser

D_GRID = [1, 2, 3, 4, 5, 8, 16, 31, 32, 63, 64]
Q1_SCALES = [0.0, 0.1, 0.5, 1.0, 1.7, 2.5, 3.9, 4.0]
SEEDS = [0, 1, 2, 3, 17, 42, 999, 2017, 5000, 9998, 9999]


def _states() -> list[dict]:
    states = []
    lo, hi, _ = view.SLIDERS["n_tokens"]
    for c, (n, d_k, causal, scaled) in enumerate(
        itertools.product(range(lo, hi + 1), D_GRID, (False, True), (False, True))
    ):
        states.append(
            {
                "n_tokens": n,
                "d_k": d_k,
                "seed": SEEDS[c % len(SEEDS)],
                "q1_scale": Q1_SCALES[c % len(Q1_SCALES)],
                "causal": causal,
                "scaled": scaled,
            }
        )
    rng = random.Random(37)
    for _ in range(120):
        states.append(
            {
                "n_tokens": rng.randint(lo, hi),
                "d_k": rng.randint(1, 64),
                "seed": rng.randint(0, 9999),
                "q1_scale": round(rng.uniform(0, 4), 1),
                "causal": rng.random() < 0.5,
                "scaled": rng.random() < 0.5,
            }
        )
    for n, causal, scaled in itertools.product((lo, hi), (False, True), (False, True)):  # the corners
        for d_k, seed, q1 in [(1, 0, 0.0), (64, 9999, 4.0), (64, 0, 0.0), (1, 9999, 4.0)]:
            states.append({"n_tokens": n, "d_k": d_k, "seed": seed, "q1_scale": q1, "causal": causal, "scaled": scaled})
    # Predict first: every prediction, before and after the curves show.
    answers = list(itertools.product(view.PREDICTIONS, (False, True)))
    return [
        {**st, "prediction": answers[c % len(answers)][0], "revealed": answers[c % len(answers)][1]}
        for c, st in enumerate(states)
    ]


def test_the_generators_agree_bit_for_bit(module_page):
    seeds = [0, 1, 2, 7, 255, 9999, 65535, 123456789, 2**31 - 1, 2**31, 2**32 - 2, 2**32 - 1]
    seeds += random.Random(5).sample(range(2**32), 20)
    counts = [0, 1, 5, 12, 100, 1000]
    cases = [[s, c] for s in seeds for c in counts]
    js = module_page.evaluate(
        "(cases) => cases.map(([s, c]) => [ae.mulberry32(s, c), ae.irwinHallNormals(s, c)])", cases
    )
    for (seed, count), (ints, normals) in zip(cases, js):
        assert ints == view.mulberry32(seed, count).tolist(), (seed, count)
        py = view.irwin_hall_normals(seed, count).tolist()
        assert len(normals) == count and all(a == b for a, b in zip(py, normals)), (seed, count)  # exact


def test_the_matrices_agree_bit_for_bit(module_page):
    shapes = [[seed, n, d_k] for seed in SEEDS for n in (2, 3, 6) for d_k in (1, 2, 7, 64)]
    js = module_page.evaluate("(shapes) => shapes.map(([s, n, d]) => ae.randomQKV(s, n, d))", shapes)
    for (seed, n, d_k), qkv in zip(shapes, js):
        for py, got in zip(view.random_qkv(seed, n, d_k), qkv):
            assert py.tolist() == got, (seed, n, d_k)  # exact: no tolerance


@pytest.mark.parametrize("language", sorted(STRINGS))
def test_javascript_view_equals_python_view(module_page, language):
    config = view.matrix_config(language)
    states = _states()
    assert len(states) >= 300
    js = module_page.evaluate("([states, config]) => states.map((s) => ae.matrixView(s, config))", [states, config])
    bad = []
    for st, js_view in zip(states, js):
        diffs = differences(view.matrix_view(st, config), js_view)
        if diffs:
            bad.append((st, diffs[:3]))
    assert not bad, f"{len(bad)} of {len(states)} states differ, e.g. {bad[:3]}"


def test_javascript_weights_are_exactly_zero_where_masked(module_page):
    config = view.matrix_config("zh")
    st = {"n_tokens": 6, "d_k": 64, "seed": 3, "q1_scale": 4.0, "causal": True, "scaled": False}
    res = module_page.evaluate("([s, c]) => ae.attentionMatrices(s, c.sliders)", [st, config])
    for i, row in enumerate(res["weights"]):
        assert all(w == 0 for w in row[i + 1 :]) and all(w > 0 for w in row[: i + 1])
    assert res["scores"][0][1] is None or res["scores"][0][1] == float("-inf")  # -Infinity is sent as null


@pytest.mark.parametrize(
    "name, bad",
    [
        ("n_tokens", 7),
        ("n_tokens", 1),
        ("d_k", 0),
        ("d_k", 2.5),
        ("seed", -1),
        ("q1_scale", 4.5),
        ("causal", "yes"),
        ("scaled", 1),
    ],
)
def test_both_views_refuse_a_bad_state_naming_the_parameter(module_page, name, bad):
    config = view.matrix_config("en")
    st = {**{"n_tokens": 4, "d_k": 4, "seed": 0, "q1_scale": 1.0, "causal": False, "scaled": True}, name: bad}
    with pytest.raises(ValueError, match=name):
        view.matrix_view(st, config)
    message = module_page.evaluate(
        "([s, c]) => { try { ae.matrixView(s, c); return null; } catch (e) { return e.message; } }", [st, config]
    )
    assert message and message.startswith(name + " must be"), message
