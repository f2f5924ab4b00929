"""The number formats in JavaScript (web/shared.js) against Python's own ``format``, in Chromium.

Every readout of every explorable is written by these functions on the
student page and by ``views/numbers.py`` in Python; they must agree to the
last character, ties at the rounding digit, signed zeros, tiny and huge
numbers included.
"""

from __future__ import annotations

import random

import pytest

from attention_explorable.strings import LANGUAGES, plural_category, plural_forms, text
from attention_explorable.views.numbers import format_g, format_number

pytestmark = pytest.mark.browser

TIES = [
    0.125,
    0.375,
    2.5,
    3.5,
    -0.125,
    1.0625,
    0.5,
    1.5,
    1e-5 + 0.5,
    0.015,
    0.045,
    1.005,
    2.675,
    0.00005,
    123456.5,
    0.0625,
    0.03125,
    -2.5,
    9.995,
    0.9999995,
]
EDGES = [
    0.0,
    -0.0,
    1e-300,
    -1e-300,
    5e-324,
    1e-5,
    4.9999e-5,
    5e-5,
    1e20,
    9.99999e20,
    1e21,
    1.5e22,
    123.456789,
    -987654.321,
    0.1,
    0.7,
    1 / 3,
    2 / 3,
    1e6,
    999999.99995,
]


def _numbers():
    rng = random.Random(5)
    xs = TIES + EDGES
    xs += [rng.uniform(-20, 20) for _ in range(300)] + [rng.uniform(0, 1) ** 8 for _ in range(100)]
    xs += [round(rng.uniform(-10, 10), rng.randint(1, 5)) for _ in range(200)]  # short decimals: near ties
    return xs


@pytest.mark.parametrize("decimals", [0, 1, 2, 3, 4, 6])
def test_fixed_decimals_as_python_formats_them(module_page, decimals):
    xs = _numbers()
    js = module_page.evaluate("([xs, d]) => xs.map((x) => ae.formatFixed(x, d))", [xs, decimals])
    wrong = [(x, format(x, f".{decimals}f"), got) for x, got in zip(xs, js) if got != format(x, f".{decimals}f")]
    assert not wrong, wrong[:10]


def test_g_and_readout_numbers_as_python_formats_them(module_page):
    xs = _numbers()
    js = module_page.evaluate(
        "(xs) => xs.map((x) => [ae.formatG(x), ae.formatNumber(x), ae.formatNumber(x, 2), ae.formatNumber(x, 2, false)])",
        xs,
    )
    want = lambda x: [format_g(x), format_number(x), format_number(x, 2), format_number(x, 2, html=False)]  # noqa: E731
    wrong = [(x, got) for x, got in zip(xs, js) if got != want(x)]
    assert not wrong, wrong[:10]


@pytest.mark.parametrize("language", sorted(LANGUAGES))
def test_a_counts_plural_form_is_the_browsers_for_the_same_language(module_page, language):
    """Python's plural rule of each language (strings.LANGUAGES) gives Intl.PluralRules' category for
    the counts a page shows, and the page picks the same form of a string as ``text`` does."""
    counts = list(range(0, 202))
    tag = LANGUAGES[language]["tag"]
    js = module_page.evaluate("([n, tag]) => n.map((k) => new Intl.PluralRules(tag).select(k))", [counts, tag])
    assert js == [plural_category(language, n) for n in counts]
    forms = plural_forms("instructor_count", language)
    picked = module_page.evaluate(
        "([forms, n, tag]) => n.map((k) => window.ae.countText(forms, 'instructor_count', k, tag))",
        [forms, counts, tag],
    )
    assert [p.replace("{n}", str(n)) for p, n in zip(picked, counts)] == [
        text("instructor_count", language, n=n) for n in counts
    ]
