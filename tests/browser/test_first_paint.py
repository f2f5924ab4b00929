"""The first paint is the page: what each exported page shows before its scripts run, and after.

The textbook: its scripts are held back (their requests aborted) to see the
first paint as a student sees it while they load: the page's title and text,
and an explorable's first state with its numbers. Then, with the scripts,
the live page takes its place.

An explorable's page is the explorable itself (attention_explorable.native):
without any script it shows its title, text, readouts and controls in the
first state; its one script draws the plots, and a deep link's state, while
the page is parsed, before the page is first painted.
"""

from __future__ import annotations

import re

import pytest

from .pages import text_of, wait_text

pytestmark = pytest.mark.browser

#: Page -> (a phrase of its first paint, in zh; in en).
FIRST = {"index.html": ("3.7", "3.7")}
#: An explorable's page -> (a phrase of its readouts in zh; in en).
EXPLORABLE_PAGES = {
    "steps.html": ("α₁ = 0.2689", "α₁ = 0.2689"),
    "vector.html": ("0.422", "0.422"),
    "matrix.html": ("1.000", "1.000"),
    "selfcross.html": ("0.557", "0.557"),
}


def _hold_scripts(page) -> None:
    page.route(re.compile(r".*\.js$"), lambda route: route.abort())


@pytest.mark.parametrize("language", ["zh", "en"])
@pytest.mark.parametrize("page_file", list(FIRST))
def test_the_first_paint_shows_the_text_and_first_state_before_any_script(static_site, student, page_file,
                                                                          language):
    s = student()
    s.cut_network()
    _hold_scripts(s.page)
    path = static_site / (page_file if language == "zh" else f"en/{page_file}")
    s.page.goto(path.resolve().as_uri(), wait_until="load")
    paint = s.page.locator(".ae-first-paint")
    assert paint.is_visible()
    shown = paint.inner_text()
    assert FIRST[page_file][language == "en"] in shown, shown[:300]
    assert s.page.locator("h1").first.is_visible()
    # Its plots, as pictures of the same state (attention_explorable.stills); the textbook's first
    # explorable is below the first screen.
    pictures = s.page.locator(".ae-first-paint .ae-pic")
    assert pictures.count() >= 1
    assert page_file == "index.html" or pictures.first.is_visible()
    s.screenshot(f"first-paint-{language}-{page_file.replace('.html', '')}")
    s.errors.clear()  # the held-back scripts are logged as failed loads


def test_the_live_page_takes_the_first_paints_place(static_site, student):
    s = student()
    s.open_offline(static_site / "index.html", ".ae-readout")
    s.page.wait_for_function("() => !document.querySelector('.ae-first-paint')", timeout=30_000)
    assert s.page.locator(".ae-live-page").is_visible()
    s.assert_clean()


@pytest.mark.parametrize("language", ["zh", "en"])
@pytest.mark.parametrize("page_file", list(EXPLORABLE_PAGES))
def test_an_explorables_page_reads_before_any_script(static_site, chromium, page_file, language):
    context = chromium.new_context(java_script_enabled=False, viewport={"width": 390, "height": 844}, is_mobile=True)
    try:
        page = context.new_page()
        path = static_site / (page_file if language == "zh" else f"en/{page_file}")
        page.goto(path.resolve().as_uri(), wait_until="load")
        assert page.locator("h1").first.is_visible()
        assert EXPLORABLE_PAGES[page_file][language == "en"] in page.locator("main").inner_text()
        # Its controls are the page's own, in the first state, before any script.
        controls = page.locator("main input, main button")
        assert controls.count() >= 3 and controls.first.is_visible()
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


@pytest.mark.parametrize("suffix", ["", "?step=3&temperature=0.05"], ids=["plain", "deep-link"])
def test_the_plots_and_a_deep_links_state_are_drawn_before_the_first_paint(static_site, student, suffix):
    s = student()
    s.page.add_init_script(_WATCH)
    s.open_offline(static_site / "steps.html", ".ae-output", suffix)
    paint = s.page.evaluate("() => new Promise((resolve) => { const w = () => { const e = performance"
                            ".getEntriesByName('first-contentful-paint')[0]; e ? resolve(e.startTime) : "
                            "setTimeout(w, 5); }; w(); })")
    seen = s.page.evaluate("() => window.__seen")
    assert seen["plots"] is not None and seen["plots"] <= paint, (seen, paint)
    if suffix:  # the linked state is the first a student sees: the default one is never painted
        assert seen["step3"] is not None and seen["step3"] <= paint, (seen, paint)
        assert "0.05" in text_of(s.page, ".ae-readouts")
    s.assert_clean()
