"""WCAG 2.2 AA as far as a machine can check it: axe-core on every page, in both languages.

axe-core (shipped inside ``axe-playwright-python``) runs its WCAG 2.0-2.2
A/AA rules on each page with every explorable and
exercise built; a violation of impact "serious" or "critical" fails. The
same pages at 640 px wide (a 1280 px window at 200 % zoom) must not scroll
sideways.

``serve`` answers students with the files the export writes (one builder,
``site.build_page``; only their assets' URLs differ): every page is checked
as exported, and as served the server's own index and one page per language.
"""

from __future__ import annotations

import pytest
from axe_playwright_python.sync_playwright import Axe

from attention_explorable.site import pages


pytestmark = pytest.mark.browser

#: The rules run: WCAG 2.0, 2.1, 2.2 at levels A and AA (axe's best practices, such as
#: landmarks, are met too, but double the time on the textbook and are not run here).
RULES = {"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]},
         "resultTypes": ["violations"]}
SERIOUS = ("serious", "critical")
#: What each page shows once its explorables are drawn.
READY = {"textbook": ".ae-exercise-input, .ae-exercise-choice", "steps": ".ae-output",
         "vector": ".ae-vector-output", "matrix": ".ae-matrix-max-weight", "selfcross": ".ae-selfcross-row"}
APP_OF = pages()


def serious_violations(page) -> list[str]:
    """axe's serious and critical violations on ``page``, one line per rule with its first nodes."""
    found = Axe().run(page, options=RULES).response["violations"]
    return [f"{v['id']} ({v['impact']}): {v['help']} at " + "; ".join(
        f"{n['target']} {n['html'][:120]}" for n in v["nodes"][:3])
        for v in found if v["impact"] in SERIOUS]


def _zoomed_scroll_width(page) -> int:
    """The page's width in a 1280 px window at 200 % zoom (640 CSS px), then the viewport back."""
    size = page.viewport_size
    page.set_viewport_size({"width": 640, "height": 450})
    page.wait_for_timeout(400)
    width = page.evaluate("document.documentElement.scrollWidth")
    page.set_viewport_size(size)
    return width


def test_the_served_index_and_a_page_in_both_languages(every_app, student):
    s = student()
    page = s.page
    root = f"http://127.0.0.1:{every_app.port}/"
    problems = {}
    for language in ("zh", "en"):
        page.goto(f"{root}?lang={language}")
        problems[f"/ {language}"] = serious_violations(page)
        app = {"zh": "steps", "en": "matrix"}[language]
        page.goto(f"{root}{app}?lang={language}")
        page.wait_for_selector(READY[app], timeout=30_000)
        page.wait_for_timeout(800)
        problems[f"{app} {language}"] = serious_violations(page)
    assert not any(problems.values()), {k: v for k, v in problems.items() if v}
    s.assert_clean()
    every_app.assert_clean_log()


def test_every_exported_page_in_both_languages(static_site, student):
    s = student()
    page = s.page
    page.route("**/*", lambda r: r.continue_() if r.request.url.startswith(("file:", "data:", "blob:"))
               else r.abort())
    # axe reads the stylesheets by XMLHttpRequest, which a file:// page may not make.
    s.errors_to_ignore = ("Failed to load resource", "Access to XMLHttpRequest at 'file:")
    problems = {}
    for folder in ("", "en/"):
        for page_file in APP_OF:
            page.goto((static_site / folder / page_file).resolve().as_uri())
            page.wait_for_selector(READY[APP_OF[page_file]], timeout=30_000)
            page.wait_for_timeout(500)
            problems[folder + page_file] = serious_violations(page)
            width = _zoomed_scroll_width(page)
            if width > 641:
                problems[folder + page_file].append(f"scrolls sideways at 200 % zoom: {width} px in 640")
    assert not any(problems.values()), {k: v for k, v in problems.items() if v}
    s.assert_clean()
