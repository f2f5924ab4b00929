"""The first paint is the page: what each exported page shows before its scripts run, and after.

The scripts are held back (their requests aborted) to see the first paint as
a student sees it while they load: the page's title and text, and an
explorable's first state with its numbers. Then, with the scripts, the live
page takes its place. A deep-linked page shows no first paint (which holds
the default state) and opens on the linked state.
"""

from __future__ import annotations

import re

import pytest

from .pages import text_of, wait_text

pytestmark = pytest.mark.browser

#: Page -> (a phrase of its first paint, in zh; in en).
FIRST = {
    "steps.html": ("第 1 步", "Step 1"),
    "vector.html": ("0.422", "0.422"),
    "matrix.html": ("1.000", "1.000"),
    "selfcross.html": ("Q", "Q"),
    "index.html": ("3.7", "3.7"),
}


def _hold_scripts(page) -> None:
    page.route(re.compile(r".*\.js$"), lambda route: route.abort())


@pytest.mark.parametrize("language", ["zh", "en"])
@pytest.mark.parametrize("page_file", list(FIRST))
def test_the_first_paint_shows_the_text_and_first_state_before_any_script(static_site, student, page_file,
                                                                          language):
    s = student(390, 844, mobile=True) if page_file == "steps.html" else student()
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


@pytest.mark.parametrize("page_file, ready", [("steps.html", ".ae-readouts"), ("index.html", ".ae-readout")])
def test_the_live_page_takes_the_first_paints_place(static_site, student, page_file, ready):
    s = student()
    s.open_offline(static_site / page_file, ready)
    s.page.wait_for_function("() => !document.querySelector('.ae-first-paint')", timeout=30_000)
    assert s.page.locator(".ae-live-page").is_visible()
    s.assert_clean()


def test_a_deep_linked_page_shows_no_other_state_first(static_site, student):
    s = student()
    s.cut_network()
    _hold_scripts(s.page)
    url = (static_site / "steps.html").resolve().as_uri()
    s.page.goto(url + "?step=3&temperature=0.05", wait_until="load")
    assert not s.page.locator(".ae-first-paint").is_visible()  # the default state is never shown
    s.page.goto(url + "?lang=zh", wait_until="load")
    assert s.page.locator(".ae-first-paint").is_visible()  # a query that sets no state keeps it
    s.errors.clear()

    live = student()
    live.open_offline(static_site / "steps.html", ".ae-question", suffix="?step=3&temperature=0.05")
    wait_text(live.page, ".ae-question", "第 3 步")
    assert "0.05" in text_of(live.page, ".ae-readouts")
    live.assert_clean()


@pytest.mark.parametrize("mobile", [False, True], ids=["desktop", "phone"])
@pytest.mark.parametrize("page_file, live_plot", [("steps.html", ".ae-number-line"),
                                                  ("vector.html", ".ae-vector .bk-Figure")])
def test_a_plots_picture_stands_where_the_live_plot_comes(static_site, student, page_file, live_plot, mobile):
    size = (390, 844) if mobile else (1280, 900)
    still = student(*size, mobile=mobile)
    still.cut_network()
    _hold_scripts(still.page)
    still.page.goto((static_site / page_file).resolve().as_uri(), wait_until="load")
    picture = still.page.locator(".ae-first-paint .ae-pic").first.bounding_box()
    still.errors.clear()

    live = student(*size, mobile=mobile)
    live.open_offline(static_site / page_file, live_plot)
    live.page.wait_for_function("() => !document.querySelector('.ae-first-paint')", timeout=30_000)
    plot = live.page.locator(live_plot).first.bounding_box()
    for side in ("x", "y", "width", "height"):  # within a line of text: no jump a reader would see
        assert abs(picture[side] - plot[side]) <= 24, (side, picture, plot)
    live.assert_clean()
