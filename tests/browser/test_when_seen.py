"""The textbook brings each explorable and exercise to life as it nears the screen, not all at load.

The exported ``index.html`` (the same file ``serve`` answers) builds its text
at once and each part when its slot comes within half a screen; until then
the slot shows the part's first state as plain HTML (an explorable's
readouts from its Python view, an exercise's question). A reader who
scrolls gets each part live; a deep link still opens on its state.
"""

from __future__ import annotations

import re

import pytest

from attention_explorable.explorables.vector import VectorExplorer
from attention_explorable.strings import text
from attention_explorable.stills import still_html

from .pages import text_of, wait_text

pytestmark = pytest.mark.browser

ROOTS = "(window.Bokeh && Bokeh.documents && Bokeh.documents[0] ? Bokeh.documents[0].roots().length : 0)"
#: The textbook's document: its text and 15 parts (4 explorables, 11 exercises), each a root of its own
#: (an explorable with its plots: the part comes whole as it nears the screen).
ALL_ROOTS = 1 + 15
SLOTS = """() => { const out = []; const walk = (r) => { r.querySelectorAll('.ae-slot[data-ae-slot]').forEach((e) =>
  out.push([e.getAttribute('data-ae-slot'), e.classList.contains('ae-slot-live')]));
  r.querySelectorAll('*').forEach((e) => { if (e.shadowRoot) walk(e.shadowRoot); }); }; walk(document); return out; }"""


def _open(student, static_site, suffix: str = ""):
    s = student()
    s.cut_network()
    s.open((static_site / "index.html").resolve().as_uri() + suffix, ".ae-toc", every_part=False)
    s.page.wait_for_function("() => window.aeBringAll !== undefined")
    return s


def test_only_the_text_is_built_at_load_and_a_part_comes_when_scrolled_to(static_site, student):
    s = _open(student, static_site)
    page = s.page
    page.wait_for_timeout(500)
    slots = dict(page.evaluate(SLOTS))
    assert len(slots) == 15 and {"vector", "matrix", "selfcross", "steps"} <= set(slots)
    assert not any(slots.values()), slots  # the reader is at the top: nothing below is built
    assert page.evaluate(ROOTS) == 1  # the text alone
    # The first state is there meanwhile, as plain HTML: the vector's readouts from its Python view.
    still = page.evaluate("""() => { let hit = null; const walk = (r) => { const e = r.querySelector(
        '.ae-slot[data-ae-slot="vector"]'); if (e) hit = e.textContent; r.querySelectorAll('*').forEach((x) => {
        if (!hit && x.shadowRoot) walk(x.shadowRoot); }); }; walk(document); return hit; }""")
    assert "y =" in still
    assert "α" in still_html(VectorExplorer(language="zh"))
    # Scrolled to the steps explorable (the last section), it is built, and it answers a key.
    page.evaluate("""() => { const walk = (r) => { const e = r.querySelector('.ae-slot[data-ae-slot="steps"]');
        if (e) { e.scrollIntoView({block: 'center'}); return true; }
        for (const x of r.querySelectorAll('*')) if (x.shadowRoot && walk(x.shadowRoot)) return true; return false; };
        walk(document); }""")
    wait_text(page, ".ae-temperature-readout", r"T = ")
    slots = dict(page.evaluate(SLOTS))
    assert slots["steps"] and not slots["vector"], slots  # what the reader passed by is not built
    before = text_of(page, ".ae-temperature-readout")
    page.locator(".ae-temperature .noUi-handle").first.focus()
    page.keyboard.press("ArrowRight")
    for _ in range(40):
        if text_of(page, ".ae-temperature-readout") != before:
            break
        page.wait_for_timeout(50)
    assert text_of(page, ".ae-temperature-readout") != before
    s.assert_clean()


def test_a_deep_link_sets_a_part_before_it_is_built(static_site, student):
    s = _open(student, static_site, "?steps.step=3&steps.temperature=0.05#sec-3-8")
    page = s.page
    page.evaluate("() => window.aeBringAll()")
    wait_text(page, ".ae-temperature-readout", r"T = 0\.05")
    wait_text(page, ".ae-question", re.escape(text("step3_title", "zh")))
    s.assert_clean()


def test_every_part_at_once_with_explorables_all(static_site, student):
    s = _open(student, static_site, "?explorables=all")
    page = s.page
    page.wait_for_function(f"() => {ROOTS} === {ALL_ROOTS}", timeout=30_000)
    assert all(live for _, live in page.evaluate(SLOTS))
    s.assert_clean()


def test_a_textbook_opened_in_a_class_builds_the_class_panels_part_at_once(static_site, student):
    s = _open(student, static_site, "?room=ABCDEF")
    page = s.page
    page.wait_for_function(f"() => {ROOTS} === 2", timeout=30_000)  # the text and steps (its plots come when seen)
    slots = dict(page.evaluate(SLOTS))
    assert slots["steps"] and not slots["vector"]  # the steps explorable holds the class panel


def test_a_bokehjs_whose_inner_modules_moved_still_gets_the_whole_page(static_site, student):
    """The embedding relies on BokehJS's inner modules; without them (a BokehJS that moved them) the page is
    embedded as Bokeh does it: every part comes with the page, below the text instead of in its place, and
    a warning says so. Degraded, never blank."""
    s = student()
    s.cut_network()
    s.page.add_init_script("""(() => { let B; Object.defineProperty(window, "Bokeh", {configurable: true,
        get() { return B; }, set(v) { B = v; if (!v || v.__aeWrapped) return; const req = v.require;
        v.require = function (name) { if (name === "document") throw new Error("moved"); return req.apply(this, arguments); };
        v.__aeWrapped = true; }}); })()""")
    warnings = []
    s.page.on("console", lambda m: warnings.append(m.text) if m.type == "warning" else None)
    s.open((static_site / "index.html").resolve().as_uri(), ".ae-toc", every_part=False)
    page = s.page
    page.wait_for_function(f"() => {ROOTS} === {ALL_ROOTS}", timeout=30_000)  # every part, with the page
    wait_text(page, ".ae-temperature-readout", r"T = ")
    assert any("parts built with the page" in w for w in warnings), warnings
    s.assert_clean()
