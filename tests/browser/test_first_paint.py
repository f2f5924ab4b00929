"""The first paint is the page: what each exported page shows before its scripts run, and after.

Every exported page, the textbook included, is its explorables themselves
(attention_explorable.native): without any script it shows its title, text,
readouts and controls in the first state; its one script draws the plots,
and a deep link's state, while the page is parsed, before the page is first
painted.
"""

from __future__ import annotations

import re

import pytest


pytestmark = pytest.mark.browser

#: A page -> (a phrase of its readouts in zh; in en): the textbook's is its text's (section 3.7.6). (An
#: explorable's page of its own is its module, which says without a script that it needs one: below.)
EXPLORABLE_PAGES = {
    "index.html": ("0.422", "0.422"),
}


@pytest.mark.parametrize("language", ["zh", "en"])
@pytest.mark.parametrize("page_file", list(EXPLORABLE_PAGES))
def test_the_textbook_reads_before_any_script(static_site, chromium, page_file, language):
    context = chromium.new_context(java_script_enabled=False, viewport={"width": 390, "height": 844}, is_mobile=True)
    try:
        page = context.new_page()
        path = static_site / (page_file if language == "zh" else f"en/{page_file}")
        page.goto(path.resolve().as_uri(), wait_until="load")
        assert page.locator("h1").first.is_visible()
        # Its text reads before any script (its explorables and exercises are its modules': they come with
        # the script, the first one first: test_the_textbooks_first_explorable_is_live_while_the_rest_is_parsed).
        # The textbook lays out a part only as it nears the screen (content-visibility): go to it.
        readout = page.locator("main").get_by_text(EXPLORABLE_PAGES[page_file][language == "en"]).first
        readout.scroll_into_view_if_needed()
        assert readout.is_visible()
    finally:
        context.close()


#: From the page's start: when each plot was first drawn, when a readout first showed step 3,
#: and the page's first paint.
_WATCH = """(() => {
  window.__seen = {plots: null, step3: null};
  new MutationObserver(() => {
    const now = performance.now();
    if (window.__seen.plots === null && document.querySelector('.ae-n-plot .ae-pic-frame svg')) window.__seen.plots = now;
    const q = document.querySelector('.ae-question');
    if (window.__seen.step3 === null && q && q.textContent.includes('第 3 步')) window.__seen.step3 = now;
  }).observe(document, {subtree: true, childList: true, characterData: true});
})();"""


@pytest.mark.parametrize(
    "page_file, suffix",
    [
        ("steps.html", ""),
        ("steps.html", "?step=3&temperature=0.05"),
        ("index.html", "?steps.step=3&steps.temperature=0.05"),
    ],
    ids=["plain", "deep-link", "textbook-deep-link"],
)
def test_the_plots_and_a_deep_links_state_are_drawn_before_the_first_paint(static_site, student, page_file, suffix):
    s = student()
    s.page.add_init_script(_WATCH)
    s.open_offline(static_site / page_file, ".ae-output", suffix)
    paint = s.page.evaluate(
        "() => new Promise((resolve) => { const w = () => { const e = performance"
        ".getEntriesByName('first-contentful-paint')[0]; e ? resolve(e.startTime) : "
        "setTimeout(w, 5); }; w(); })"
    )
    seen = s.page.evaluate("() => window.__seen")
    assert seen["plots"] is not None and seen["plots"] <= paint, (seen, paint)
    if suffix:  # the linked state is the first a student sees: the default one is never painted
        assert seen["step3"] is not None and seen["step3"] <= paint, (seen, paint)
        # (its text, not innerText: a textbook part away from the screen is not laid out yet)
        assert "0.05" in s.page.locator(".ae-steps .ae-readouts").first.text_content()
    s.assert_clean()


@pytest.mark.parametrize("page_file", ["steps.html", "matrix.html"])
def test_a_move_rewrites_what_changed_and_keeps_the_rest_of_the_picture(static_site, student, page_file):
    """A key on a slider changes the drawing and the readouts in place: the figure's frame and
    its SVG, and each readout's element, are the same nodes after the move (their attributes
    and text rewritten), so the browser restyles and lays out only what changed."""
    s = student()
    # (past its question, as a link opens it: its controls open)
    s.open_offline(static_site / page_file, ".ae-n-slider input[type=range]", "?revealed=true")
    s.page.evaluate("""() => { window.__kept = {svg: [...document.querySelectorAll('.ae-pic-frame svg')],
        readouts: [...document.querySelectorAll('.ae-readout *')]};
        window.__drawn = window.__kept.svg.map((el) => el.innerHTML); }""")
    assert s.page.evaluate("() => window.__kept.svg.length") >= 1
    s.page.locator(".ae-n-slider input[type=range]").first.focus()
    for _ in range(3):
        s.page.keyboard.press("ArrowRight")
    # The picture follows the key ...
    s.page.wait_for_function(
        "() => [...document.querySelectorAll('.ae-pic-frame svg')].some((el, i) => el.innerHTML !== window.__drawn[i])"
    )
    kept = s.page.evaluate("""() => ({svg: window.__kept.svg.every((el) => el.isConnected),
        readouts: window.__kept.readouts.filter((el) => el.isConnected).length / window.__kept.readouts.length})""")
    # ... drawn into the same nodes (a rewrite of the whole figure would leave none of them on the page).
    assert kept["svg"], kept
    assert kept["readouts"] > 0.9, kept
    s.assert_clean()


#: Every (family, size, weight, style) that the visible text and controls of a page are drawn in.
_FONTS = """() => {
  const seen = new Set();
  const add = (el) => {
    const s = getComputedStyle(el);
    seen.add([s.fontFamily, s.fontSize, s.fontWeight, s.fontStyle].join(" / "));
  };
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    if (n.textContent.trim() && n.parentElement.getClientRects().length) add(n.parentElement);
  }
  for (const el of document.querySelectorAll("input, button")) if (el.getClientRects().length) add(el);
  return [...seen].sort();
}"""


@pytest.mark.parametrize("language", ["zh", "en"])
@pytest.mark.parametrize("page_file", ["steps.html", "vector.html", "matrix.html", "selfcross.html", "contexts.html"])
def test_a_modules_page_says_without_script_that_it_needs_one(static_site, page_file, language):
    # (Read from the file: a browser told by Playwright not to run scripts still parses <noscript> as
    # one that runs them.)
    from attention_explorable.strings import text

    source = (static_site / (page_file if language == "zh" else f"en/{page_file}")).read_text("utf-8")
    said = re.search(r"<main[^>]*>.*?<h1>([^<]+)</h1>\s*<noscript><p>([^<]+)</p></noscript>", source, re.S)
    assert said and said.group(2) == text("module_noscript", language), source[:2000]


@pytest.mark.parametrize(
    "page_file", ["steps.html", "vector.html", "matrix.html", "selfcross.html", "qkv.html", "contexts.html"]
)
def test_a_page_is_drawn_in_few_fonts(static_site, chromium, page_file):
    """Each family, size and weight is a font lookup the browser makes before the first frame
    (benchmarks/RESULTS.md, "The first key waits on fonts"): an explorable's (Chinese) page keeps to its
    language's family and at most six of them, controls and plots included, and one more for the words
    of the other language (its language switch, "English", in the Latin font English is set in)."""
    from attention_explorable.ui import FONT_FAMILY, LATIN_FONT_FAMILY

    context = chromium.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        page.goto((static_site / page_file).resolve().as_uri())
        page.wait_for_function("() => performance.getEntriesByName('ae-page-mounted').length")
        fonts = page.evaluate(_FONTS)
    finally:
        context.close()
    family, latin = FONT_FAMILY.replace("'", '"'), LATIN_FONT_FAMILY.replace("'", '"')
    own = [f for f in fonts if f.startswith(family + " / ")]
    other = [f for f in fonts if f.startswith(latin + " / ")]
    assert len(own) + len(other) == len(fonts), fonts
    assert len(own) <= 6 and len(other) <= 1, fonts


def test_the_textbooks_first_explorable_is_live_while_the_rest_is_parsed(static_site, student):
    """The textbook's first explorable (a module, the steps at the end of 3.7.5) is rendered as soon as it
    is parsed, before the rest of the long page is: its slider is on the page before the page's script runs
    (which waits for the whole page to be parsed), and answers."""
    s = student()
    s.page.add_init_script(
        """window.__seen = {};
        new MutationObserver(() => {
          if (!window.__seen.slider && document.querySelector('.ae-score-diff input[type=range]'))
            window.__seen.slider = performance.now();
        }).observe(document, {subtree: true, childList: true});
        document.addEventListener('DOMContentLoaded', () => { window.__seen.parsed = performance.now(); });"""
    )
    s.open_offline(static_site / "index.html", ".ae-score-2-readout", "?steps.revealed=true")  # (past its question)
    s.page.wait_for_function("() => window.__seen.parsed")
    seen = s.page.evaluate(
        "() => ({...window.__seen, script: performance.getEntriesByName('ae-page-script')[0].startTime})"
    )
    assert seen.get("slider") is not None and seen["slider"] < seen["script"], seen
    readout = s.page.locator(".ae-score-2-readout").first
    before = readout.text_content()
    knob = s.page.locator(".ae-score-diff input[type=range]").first
    knob.focus()
    knob.press("ArrowRight")
    s.page.wait_for_function("([e, t]) => e.textContent !== t", arg=[readout.element_handle(), before])
    s.assert_clean()
