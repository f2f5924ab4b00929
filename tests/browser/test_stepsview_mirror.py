"""The JavaScript mirror of the steps view against the Python view (and so the core), in Chromium.

The steps explorer draws its readouts and plots in the browser with
``stepsview.VIEW_JS`` as the slider moves; every string must equal what
``stepsview.steps_view`` (built on ``attention_explorable.core``) gives for
the same state, and every number must agree to the last few bits.
"""

from __future__ import annotations

import html
import itertools
import math
import random

import numpy as np
import pytest

from attention_explorable import scenarios, stepsview, ui
from attention_explorable.strings import STRINGS

pytestmark = pytest.mark.browser

STRING_FIELDS = ("readouts", "formula", "naive")
COLUMN_FIELDS = ("values", "interval", "output", "weights", "curve", "point")


@pytest.fixture(scope="module")
def page(chromium):
    context = chromium.new_context()
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.set_content("<html><body></body></html>")
    pg.evaluate("(src) => { Object.assign(window, new Function(src)()); }", stepsview.VIEW_JS)
    yield pg
    assert not errors, errors
    context.close()


def _states() -> list[dict]:
    """The steps' start and target states, the replay frames, slider grid points, random and extreme ones."""
    states = []
    for step in scenarios.STEPS:
        states += [dict(step.start), dict(step.target)]
        states += [scenarios.interpolate(step.start, step.target, i / 23) for i in range(24)]
    for diff, t, v1 in itertools.product([-10.0, -2.0, -0.3, 0.0, 0.1, 2.0, 7.7, 10.0],
                                         [0.01, 0.02, 0.05, 0.31, 1.0, 3.33, 10.0], [-20.0, 2.0, 19.5]):
        states.append({"score_1": 20.0, "score_diff": diff, "temperature": t, "value_1": v1, "value_2": 10.0})
    rng = random.Random(7)
    for _ in range(150):
        states.append({"score_1": round(rng.uniform(-50, 50), 1), "score_diff": rng.uniform(-10, 10),
                       "temperature": math.exp(rng.uniform(math.log(0.01), math.log(10))),
                       "value_1": rng.uniform(-20, 20), "value_2": round(rng.uniform(-20, 20), 1)})
    # Typed values with ties at the rounding digit and tiny or huge exponentials.
    states += [
        {"score_1": 0.125, "score_diff": 0.0, "temperature": 0.125, "value_1": 19.53125, "value_2": -0.0},
        {"score_1": -50.0, "score_diff": -10.0, "temperature": 0.01, "value_1": 1e-07, "value_2": 1234567.0},
        {"score_1": 50.0, "score_diff": 10.0, "temperature": 0.01, "value_1": -2.5, "value_2": 2.5},
        {"score_1": 0.0, "score_diff": 0.005, "temperature": 0.03125, "value_1": 0.0, "value_2": 0.00012},
    ]
    return states


def _close(a, b) -> bool:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a.shape == b.shape and bool(np.allclose(a, b, rtol=1e-12, atol=1e-300, equal_nan=True))


@pytest.mark.parametrize("language", sorted(STRINGS))
def test_mirror_gives_the_python_view(page, language):
    strings = stepsview.view_strings(language)
    states = _states()
    predictions = [None, 6.0, -19.9, 0.125]
    cases = [(st, predictions[i % len(predictions)]) for i, st in enumerate(states)]
    js = page.evaluate(
        "([cases, S, T]) => cases.map(([st, pred]) => stepsView({...st, prediction: pred}, S, T))",
        [cases, strings, stepsview.CURVE_T.tolist()])
    assert len(js) == len(cases)
    mismatches = []
    for (state, pred), got in zip(cases, js):
        want = stepsview.steps_view(state, pred, strings)
        for key in STRING_FIELDS:
            if got[key] != want[key]:
                mismatches.append((state, key, want[key], got[key]))
        for key in COLUMN_FIELDS:
            for col, values in want[key].items():
                ok = got[key][col] == list(values) if col in ("label", "name") else _close(got[key][col], values)
                if not ok:
                    mismatches.append((state, f"{key}.{col}", list(values), got[key][col]))
        if not _close(got["x_range"], want["x_range"]):
            mismatches.append((state, "x_range", want["x_range"], got["x_range"]))
    assert not mismatches, mismatches[:5]
    # The browser writes escaped HTML, as html.escape gives it to Panel's HTML model.
    sample = [want_html for (state, pred) in cases[:20]
              for want_html in (stepsview.steps_view(state, pred, strings)["readouts"],)] + ["<a href='x'>&\"</a>"]
    assert page.evaluate("(xs) => xs.map(aeEscape)", sample) == [html.escape(x) for x in sample]


NUMBERS = [0.0, -0.0, 0.5, 0.125, -0.125, 0.03125, 19.53125, 2.675, 1 / 3, -2 / 3, 9.99996, 0.99995, 4.9999e-05,
           5e-05, -5e-05, 6e-05, 1e-07, 3.7e-44, 5e-324, 1.4e-87, 999999.4, 1e6, 1250000.0, -1350000.0,
           math.exp(30), math.exp(440), 1e21, 1.5e300, float("inf"), float("-inf"), float("nan"), 123.456,
           -1e-10, 0.00012, 12345.678, 1e16]


@pytest.mark.parametrize("digits", [2, 3, 4])
def test_number_format_matches_python(page, digits):
    rng = random.Random(digits)
    numbers = NUMBERS + [rng.uniform(-25, 25) for _ in range(200)] + \
        [10 ** rng.uniform(-12, 12) * rng.choice([-1, 1]) for _ in range(200)] + \
        [rng.randint(-4000, 4000) / 2 ** rng.randint(0, 12) for _ in range(200)]
    as_js = [x if math.isfinite(x) else {"inf": "Infinity", "-inf": "-Infinity"}.get(repr(x), "NaN")
             for x in numbers]
    got = page.evaluate(
        "([xs, d]) => xs.map((x) => { x = Number(x); return [aeFormat(x, d), aeFormat(x, d, false),"
        " Number.isFinite(x) ? aeFixed(x, 2) : null, aeG(x)]; })", [as_js, digits])
    bad = []
    for x, (html, plain, fixed2, g) in zip(numbers, got):
        want = (ui.format_number(x, digits), ui.format_number(x, digits, html=False),
                f"{x:.2f}" if math.isfinite(x) else None, f"{x:g}")
        if (html, plain, fixed2, g) != want:
            bad.append((x, want, (html, plain, fixed2, g)))
    assert not bad, bad[:5]
