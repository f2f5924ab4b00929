"""The JavaScript exercise view (web/exercise.js) against the Python one (views/exercise.py), in Chromium.

Every exercise of the course, with typed answers of every kind (right,
wrong, exactly at and just beyond the tolerance, malformed, empty,
full-width, fractions, long, HTML), every choice, revealed or not, checked
or not, in both languages: every string of the two views must be equal.
"""

from __future__ import annotations

import pytest

from attention_explorable import content
from attention_explorable.strings import STRINGS
from attention_explorable.views import exercise as view

from .mirror import differences

pytestmark = pytest.mark.browser

BLOCKS = [b for s in content.load_sections() for b in s.exercises()]

TYPED = [
    "",
    "  ",
    "0.212",
    "0.214",
    "0.210",
    "0.2141",
    "0.2099",
    "0.21400001",
    "0.213",
    "0.211",
    "0.2131",
    "0.2109",
    "0.21",
    "0,21",
    "０.２１",
    "0.2",
    ".21",
    "8",
    "16,777",
    "0.706",
    "0.704",
    "16,777,216",
    "2^24",
    "0.155",
    "0.157",
    "8.4",
    "8.41",
    "8.39",
    "8.4101",
    "8,4",
    "0,212",
    "０.２１２",
    "８．４",
    "0，212",
    "42/5",
    "53/250",
    " 42 / 5 ",
    "1/0",
    "−0.212",
    "-8.4",
    "+8.4",
    "2.12e-1",
    "84e-1",
    ".212",
    "212.",
    "32",
    "32.5",
    "0.705",
    "3",
    "abc",
    "零点一五",
    "inf",
    "nan",
    "-inf",
    "0x10",
    "1_000",
    "1e999",
    "0.1.2",
    "2/3/4",
    "x" * 5000,
    "9" * 39 + "x",
    "9" * 41 + "x",
    " " + "y" * 40 + " ",
    "<b>8.4</b>",
    "<script>alert(1)</script>",
    "a&b\"c'd",
    "<" * 45,
    "8.4\n",
    "\t0.212\u3000",
    "\u00a08.4\u2003",
    "\u200b8.4",
    "٣",
    "😀" * 45,
    "{raw}",
    "$5",
    # the known mistakes of the course's number exercises, exactly and as a student rounds them
    "33.55",
    "33.6",
    "34",
    "64",
    "9.05",
    "9.0",
    "0.576",
    "0.11",
    "0.114",
    "3.15",
    "3.146",
    "11.3",
    "4096",
    "3.6",
    "33554432",
    "16",
    "262144",
    "32768",
    "2097152",
]
CHOICES = ["", "A", "B", "C", "D"]


def _states() -> list[tuple[int, dict]]:
    """(block index, state) pairs: every block with every typed answer or choice."""
    out = []
    for i, block in enumerate(BLOCKS):
        kind = block.options["kind"]
        if kind == "choice":
            for n, (choice, checked) in enumerate((c, k) for c in CHOICES for k in [None, *CHOICES]):
                out.append(
                    (
                        i,
                        {
                            "response": TYPED[n % len(TYPED)],
                            "choice": choice,
                            "checked": checked,
                            "revealed": n % 3 == 1,
                        },
                    )
                )
        else:
            for n, typed in enumerate(TYPED):
                for checked in (typed, None, TYPED[(n + 7) % len(TYPED)]):
                    out.append(
                        (
                            i,
                            {
                                "response": typed,
                                "choice": "",
                                "checked": checked,
                                "revealed": (n + (checked is None)) % 2 == 1,
                            },
                        )
                    )
    return out


@pytest.mark.parametrize("language", sorted(STRINGS))
def test_javascript_view_equals_python_view(module_page, language):
    configs = [view.exercise_config(b, language) for b in BLOCKS]
    states = _states()
    assert len(states) >= 300 and {c["kind"] for c in configs} == {"number", "choice", "text"}
    js = module_page.evaluate(
        "([states, configs]) => states.map(([i, s]) => ae.exerciseView(s, configs[i]))", [states, configs]
    )
    bad = []
    for (i, st), js_view in zip(states, js):
        diffs = differences(view.exercise_view(st, configs[i]), js_view)
        if diffs:
            short = {k: v[:60] if isinstance(v, str) else v for k, v in st.items()}
            bad.append((BLOCKS[i].args[0], short, [d[:300] for d in diffs[:3]]))
    assert not bad, f"{len(bad)} of {len(states)} states differ, e.g. {bad[:3]}"
    statuses = {view.judge(st["checked"], configs[i])[0] for i, st in states if st["checked"] is not None}
    assert statuses == {"right", "wrong", "invalid", "pending"}


@pytest.mark.parametrize("raw", TYPED)
def test_javascript_judge_and_strip_equal_python(module_page, raw):
    for block in BLOCKS:
        if block.options["kind"] != "number":
            continue
        config = view.exercise_config(block, "zh")
        js = module_page.evaluate("([raw, config]) => ae.judge(raw, config)", [raw, config])
        assert differences(list(view.judge(raw, config)), js) == [], (raw, js)
    assert module_page.evaluate("(raw) => ae.pyStrip(raw)", raw) == raw.strip()
