"""The JavaScript vector view (web/vector.js) against the Python one (views/vector.py), in Chromium.

Every string must be equal and every number equal to the last few bits, on
a grid of slider positions, random states, the edges (T = 0.05, tips on the
bounds and in the corners), ties at the rounding digits, other keys and
values (one to six points), in both languages. The convex hull (Andrew's
monotone chain in JavaScript, Qhull in Python) is compared on random point
sets, collinear, duplicated and nearly degenerate ones among them.
"""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest

from attention_explorable.strings import STRINGS
from attention_explorable.views import vector as view

from .mirror import differences

pytestmark = pytest.mark.browser

#: Keys and values besides the worked example; entries whose products with a
#: query are exact, so that numpy (which may fuse a multiply-add) and
#: JavaScript agree on every bit of a score near zero. Values of three or more
#: points whose weighted sum cancels exactly (0.5·1 + 0.5·(-1) + tiny terms)
#: are left out: there the last bits of y, shown as 0.000 or as 8.4×10⁻⁴⁹,
#: depend on the order in which numpy's BLAS adds the terms. The values of
#: the worked example are non-negative: nothing cancels.
OTHER_POINTS = [
    ([[1.0, 0.0], [-1.0, 0.0]], [[0.0, 2.0], [0.25, -2.0]]),
    ([[0.5, -1.0]], [[1.5, 1.5]]),
    ([[2.0, -1.0], [-1.0, 0.5], [0.0, -2.0], [1.5, 1.5]], [[1.0, -1.0], [0.5, -0.25], [2.0, -1.5], [0.0, -2.0]]),
    (
        [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 0.0], [0.0, -1.0], [-0.5, 0.5]],
        [[0.0, 0.0], [1.0, 0.0], [2.0, 0.0], [0.5, 0.5], [1.0, 1.0], [0.0, 0.0]],
    ),  # collinear and repeated values
    ([[1.0, 1.0], [1.0, 1.0], [-2.0, 0.25]], [[3.0, -2.5], [-2.5, 3.0], [0.125, 0.125]]),
]


def _states() -> list[dict]:
    states = []
    grid = [-2.0, -1.5, -1.0, -0.45, 0.0, 0.3, 1.0, 1.55, 2.0]
    for qx, qy, t in itertools.product(grid, grid, [0.05, 0.35, 1.0, 5.0]):
        states.append({"query_x": qx, "query_y": qy, "temperature": t})
    rng = random.Random(37)
    for _ in range(150):
        states.append(
            {
                "query_x": round(rng.uniform(-2, 2), 2),
                "query_y": round(rng.uniform(-2, 2), 2),
                "temperature": round(rng.uniform(0.05, 5), 2),
            }
        )
    for _ in range(50):  # off the slider grid, as Python may set them
        states.append(
            {
                "query_x": rng.uniform(-2, 2),
                "query_y": rng.uniform(-2, 2),
                "temperature": float(np.exp(rng.uniform(np.log(0.05), np.log(5)))),
            }
        )
    for qx, qy in itertools.product([-2.0, 2.0], [-2.0, -0.05, 0.0, 0.05, 2.0]):  # tips on the bounds
        for t in (0.05, 5.0):
            states += [
                {"query_x": qx, "query_y": qy, "temperature": t},
                {"query_x": qy, "query_y": qx, "temperature": t},
            ]
    states += [  # ties at the rounding digit of q (2), of the scores (3) and of T (2); -0.0
        {"query_x": 0.125, "query_y": -0.375, "temperature": 0.125},
        {"query_x": 1.125, "query_y": 0.0625, "temperature": 0.375},
        {"query_x": -0.0625, "query_y": 0.1875, "temperature": 0.625},
        {"query_x": 0.0005, "query_y": -0.0005, "temperature": 1.0},
        {"query_x": -0.0, "query_y": -0.0, "temperature": 0.05},
        {"query_x": 0.0001, "query_y": 0.0, "temperature": 0.05},
        {"query_x": 1.0, "query_y": 0.0, "temperature": 1.0},
    ]
    # Predict first: every prediction, before and after the answer shows (and some states without either).
    answers = list(itertools.product(view.PREDICTIONS, (False, True)))
    return [
        {**st, "prediction": answers[c % len(answers)][0], "revealed": answers[c % len(answers)][1]} if c % 3 else st
        for c, st in enumerate(states)
    ]


def _compare(page, states, config) -> list:
    js = page.evaluate("([states, config]) => states.map((s) => ae.vectorView(s, config))", [states, config])
    bad = []
    for st, js_view in zip(states, js):
        diffs = differences(view.vector_view(st, config), js_view)
        if diffs:
            bad.append((st, diffs[:3]))
    return bad


@pytest.mark.parametrize("language", sorted(STRINGS))
def test_javascript_view_equals_python_view(module_page, language):
    config = view.vector_config(language)
    states = _states()
    assert len(states) >= 300
    bad = _compare(module_page, states, config)
    assert not bad, f"{len(bad)} of {len(states)} states differ, e.g. {bad[:3]}"


@pytest.mark.parametrize("keys, values", OTHER_POINTS)
def test_javascript_view_equals_python_view_for_other_keys_and_values(module_page, keys, values):
    config = view.vector_config("en", keys=keys, values=values)
    states = _states()[::4]
    bad = _compare(module_page, states, config)
    assert not bad, f"{len(bad)} of {len(states)} states differ, e.g. {bad[:3]}"


def _point_sets() -> list[list[list[float]]]:
    rng = random.Random(11)
    sets = []
    for _ in range(400):
        n = rng.randint(1, 6)
        sets.append([[rng.uniform(-3, 3), rng.uniform(-3, 3)] for _ in range(n)])
        sets.append([[float(rng.randint(-2, 2)), float(rng.randint(-2, 2))] for _ in range(n)])  # ties, duplicates
        a, b = rng.randint(-2, 2), rng.uniform(-1, 1)  # exactly collinear, vertical too
        xs = [float(rng.randint(-3, 3)) for _ in range(n)]
        sets.append([[x, a * x + 0.5] for x in xs])
        sets.append([[b, x] for x in xs])
        p0, d = [rng.uniform(-2, 2), rng.uniform(-2, 2)], [rng.uniform(-1, 1), rng.uniform(-1, 1)]
        sets.append([[p0[0] + t * d[0], p0[1] + t * d[1]] for t in (rng.uniform(-2, 2) for _ in range(n))])
        base = [[rng.uniform(-3, 3), rng.uniform(-3, 3)] for _ in range(max(1, n // 2))]
        sets.append([list(rng.choice(base)) for _ in range(n)])  # duplicates of a few points
    for eps in (0.0, 1e-17, -1e-17, 1e-9, -1e-9):  # a point on, or nearly on, an edge of a square
        sets.append([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0], [0.5, eps]])
    sets += [[[0.0, 0.0], [0.0, 0.0], [0.0, 0.0]], [[-0.0, 1.0], [0.0, 1.0], [1.0, 0.0]], [[5.0, 5.0]]]
    return sets


def test_javascript_hull_equals_qhull(module_page):
    sets = _point_sets()
    assert len(sets) >= 2000 and {len(s) for s in sets} == {1, 2, 3, 4, 5, 6}
    js = module_page.evaluate("(sets) => sets.map((s) => ae.convexHull(s))", sets)
    bad = [
        (pts, view.convex_hull(pts).tolist(), hull)
        for pts, hull in zip(sets, js)
        if differences(view.convex_hull(pts).tolist(), hull)
    ]
    assert not bad, f"{len(bad)} of {len(sets)} hulls differ, e.g. {bad[:3]}"
    kinds = {len(view.convex_hull(pts)) for pts in sets}
    assert kinds == {1, 2, 3, 4, 5, 6}


def test_javascript_tap_and_drag_equal_python(module_page):
    rng = random.Random(5)
    points = [[rng.uniform(-3, 3), rng.uniform(-3, 3)] for _ in range(300)]
    points += [[x / 1000, -x / 1000] for x in range(-2100, 2101, 25)]  # ties at the second decimal
    points += [[1.125, -0.375], [2.0, -2.0], [-0.004, 0.004], [1e-300, -1e300]]
    js = module_page.evaluate("(ps) => ps.map(([x, y]) => ae.pointToQuery(x, y, [-2, 2], 2))", points)
    for (x, y), q in zip(points, js):
        assert differences(list(view.point_to_query(x, y)), q) == [], (x, y, q)
    for x, y in [(float("nan"), 0.0), (0.0, float("inf")), (None, 0.0), ("0.5", 0.0), (True, 0.0)]:
        assert module_page.evaluate("([x, y]) => ae.pointToQuery(x, y)", [x, y]) is None
        assert view.point_to_query(x, y) is None
