"""The attention arithmetic in JavaScript (web/attention.js) against the numpy core (core.py), in Chromium.

Every explorable's view computes its scores, weights and outputs with
``web/attention.js``; here each of its functions meets its ``core``
original on random and edge inputs: masks, fully masked rows, tiny and
huge temperatures, scores beyond the double range, scalar and vector values.
"""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from attention_explorable import core

from .mirror import differences

pytestmark = pytest.mark.browser


_CARRY = (
    "const back = (x) => Array.isArray(x) ? x.map(back) : (x && typeof x === 'object' ? "
    "Object.fromEntries(Object.entries(x).map(([k, y]) => [k, back(y)])) : (x === -Infinity ? '-inf' : x));"
    "const there = (x) => Array.isArray(x) ? x.map(there) : (x === '-inf' ? -Infinity : x);"
)


def _js(page, function: str, *args):
    """The JavaScript ``function`` applied to ``args`` in the page, -Infinity carried as the string "-inf"."""
    return page.evaluate(f"(args) => {{ {_CARRY} return back(({function})(...there(args))); }}", list(args))


def _py(x):
    x = np.asarray(x, dtype=float).tolist() if not isinstance(x, (int, float)) else x
    back = lambda v: [back(i) for i in v] if isinstance(v, list) else ("-inf" if v == -math.inf else v)  # noqa: E731
    return back(x)


def _cases(seed: int = 11):
    rng = random.Random(seed)
    cases = []
    for n_q, n_k, d in [(1, 1, 1), (1, 4, 2), (3, 3, 4), (5, 7, 3), (6, 6, 64)]:
        q = [[rng.gauss(0, 1) for _ in range(d)] for _ in range(n_q)]
        k = [[rng.gauss(0, 1) for _ in range(d)] for _ in range(n_k)]
        v = [[rng.uniform(-20, 20) for _ in range(2)] for _ in range(n_k)]
        cases.append((q, k, v))
    return cases


def test_softmax_agrees_with_the_core(module_page):
    rows = [
        [0.0, 0.0],
        [1.0, 0.0, -math.inf],
        [-math.inf, -math.inf],
        [700.0, -700.0, 3.0],
        [1e308, -1e308],
        [5.0],
        [-50.0, -60.0, -49.5],
    ]
    rows += [[random.Random(i).uniform(-50, 50) for _ in range(1 + i % 6)] for i in range(40)]
    for temperature in (0.01, 0.3, 1.0, 10.0):
        js = _js(module_page, "(rows, t) => rows.map((r) => ae.softmax(r, t))", rows, temperature)
        for row, got in zip(rows, js):
            assert not differences(_py(core.softmax(row, temperature)), got), (row, temperature)


def test_scores_mask_and_weighted_sum_agree_with_the_core(module_page):
    for q, k, v in _cases():
        for scale in (None, 1.0, 0.125):
            js = _js(module_page, "(q, k, s) => ae.dotProductScores(q, k, s === null ? undefined : s)", q, k, scale)
            assert not differences(_py(core.dot_product_scores(q, k, scale)), js)
        weights = core.softmax(core.dot_product_scores(q, k), 1.0)[0].tolist()
        for values in (v, [row[0] for row in v]):
            js = _js(module_page, "(w, values) => ae.weightedSum(w, values)", weights, values)
            assert not differences(_py(core.weighted_sum(weights, values)), js)
    for n in (1, 2, 5):
        assert _js(module_page, "(n) => ae.causalMask(n)", n) == core.causal_mask(n).tolist()


@pytest.mark.parametrize("masked", [False, True], ids=["no mask", "causal mask"])
def test_scaled_dot_product_attention_agrees_with_the_core(module_page, masked):
    for q, k, v in _cases():
        mask = core.causal_mask(len(q)).tolist() if masked and len(q) == len(k) else None
        for temperature, scale in [(1.0, None), (0.05, None), (3.0, 1.0)]:
            out, weights = core.scaled_dot_product_attention(q, k, v, mask=mask, temperature=temperature, scale=scale)
            js = _js(
                module_page,
                "(q, k, v, mask, t, s) => ae.scaledDotProductAttention(q, k, v, "
                "{mask, temperature: t, scale: s === null ? undefined : s})",
                q,
                k,
                v,
                mask,
                temperature,
                scale,
            )
            assert not differences(_py(weights), js["weights"]), (len(q), len(k), temperature)
            assert not differences(_py(out), js["output"]), (len(q), len(k), temperature)
