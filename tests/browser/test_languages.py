"""Every page in either language: the switch, the remembered choice, ``<html lang>``, titles, the index at ``/``.

Served pages take ``?lang=zh|en`` (else the remembered choice, else
Chinese); the exported site holds both languages, the other one in a
folder of its own, and each page's switch leads to its twin with the query
and the anchor kept.
"""

from __future__ import annotations

import urllib.parse

import pytest

from attention_explorable.apps import APPS, title_key
from attention_explorable.site import pages
from attention_explorable.modules import MODULES
from attention_explorable.strings import text

from .pages import handle, settled, text_of, wait_text

pytestmark = pytest.mark.browser

TITLE_KEYS = {app: title_key(app) for app in APPS}


def _page_language(page) -> tuple[str, str]:
    return page.evaluate("document.documentElement.lang"), page.title()


def test_served_index_and_pages_follow_the_readers_language(every_app, student):
    s = student()
    page = s.page
    root = f"http://127.0.0.1:{every_app.port}/"
    page.goto(root)
    # The product's own index, in Chinese for a reader who chose nothing.
    assert _page_language(page) == ("zh-Hans", text("index_title", "zh"))
    assert "Panel" not in page.inner_text("body")
    links = page.locator("a.ae-index-page")
    listed = [text(key, "zh") for key in TITLE_KEYS.values()] + [
        text(m.key("title"), "zh") for n, m in MODULES.items() if n not in APPS
    ]
    assert [links.nth(i).inner_text() for i in range(links.count())] == listed
    assert not s.external_requests, s.external_requests
    page.locator("a.ae-language").click()
    page.wait_for_url(lambda url: url.endswith("/?lang=en"))
    assert _page_language(page) == ("en", text("index_title", "en"))
    page.locator("a.ae-index-page", has_text=text("steps_heading", "en")).click()
    page.wait_for_selector(".ae-output")
    assert urllib.parse.urlsplit(page.url).path == "/steps"
    assert _page_language(page) == ("en", text("steps_heading", "en"))

    # A page opened with a state and an anchor: the switch keeps both, in either direction.
    page.goto(root + "vector?lang=zh&query_x=0.5&revealed=true#top")  # (past its question: its controls open)
    wait_text(page, ".ae-vector-output", r"[0-9]")
    assert _page_language(page) == ("zh-Hans", text("vector_heading", "zh"))
    handle(page, ".ae-query-y").focus()
    page.keyboard.press("ArrowRight")  # the address follows the state; the switch takes it along
    page.wait_for_function("() => location.search.includes('query_y')")
    page.locator("a.ae-language").click()
    page.wait_for_url(lambda url: "/vector?" in url and "lang=en" in url)
    wait_text(page, ".ae-vector-output", r"[0-9]")
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(page.url).query)
    assert query["query_x"] == ["0.5"] and query["lang"] == ["en"] and "query_y" in query, page.url
    assert page.url.endswith("#top")
    assert _page_language(page) == ("en", text("vector_heading", "en"))

    # Remembered: a page opened with no ?lang= comes in the last language chosen ...
    for name in ("textbook", "matrix"):
        page.goto(root + name)
        page.wait_for_selector(".ae-language")
        assert _page_language(page) == ("en", text(TITLE_KEYS[name], "en")), name
    # ... and a link's ?lang= wins, and is remembered in its turn.
    page.goto(root + "selfcross?lang=zh")
    page.wait_for_selector(".ae-language")
    assert _page_language(page)[0] == "zh-Hans"
    page.goto(root + "selfcross")
    page.wait_for_selector(".ae-language")
    assert _page_language(page) == ("zh-Hans", text("selfcross_heading", "zh"))
    assert text_of(page, ".ae-language-bar") == text("language_name", "en")

    # The browser remembers the choice even where the cookie is gone.
    page.evaluate("localStorage.setItem('ae-lang', 'en')")
    s.context.clear_cookies()
    page.goto(root + "steps")
    page.wait_for_url(lambda url: url.endswith("/steps?lang=en"))
    page.wait_for_selector(".ae-output")
    assert _page_language(page) == ("en", text("steps_heading", "en"))
    s.assert_clean()
    every_app.assert_clean_log()


def test_the_exported_site_holds_both_languages_and_switches_between_them(static_site, student):
    for page_file, app in pages().items():
        key = title_key(app)
        for folder, language in (("", "zh"), ("en/", "en")):
            html = (static_site / folder / page_file).read_text("utf-8")
            lang = "zh-Hans" if language == "zh" else "en"
            assert f'<html lang="{lang}">' in html, (folder, page_file)
            assert f"<title>{text(key, language)}</title>" in html, (folder, page_file)
    s = student()
    page = s.page
    aborted = s.cut_network()
    site = static_site.resolve().as_uri()
    page.goto(site + "/steps.html?step=3&temperature=0.5#top")
    wait_text(page, ".ae-output", r"[0-9]")
    assert _page_language(page) == ("zh-Hans", text("steps_heading", "zh"))
    page.locator("a.ae-language").click()
    page.wait_for_url(lambda url: url.endswith("/en/steps.html?step=3&temperature=0.5#top"))
    wait_text(page, ".ae-temperature-readout", r"T = 0\.50")
    assert _page_language(page) == ("en", text("steps_heading", "en"))
    # Remembered: the Chinese file of another page sends the reader to its English twin ...
    page.goto(site + "/vector.html")
    page.wait_for_url(lambda url: url.endswith("/en/vector.html"))
    wait_text(page, ".ae-vector-output", r"[0-9]")
    assert _page_language(page)[0] == "en"
    # ... and a link's ?lang= wins: the English file sends a ?lang=zh reader to the Chinese one.
    page.goto(site + "/en/matrix.html?lang=zh&seed=3")
    page.wait_for_url(lambda url: url == site + "/matrix.html?seed=3")
    page.wait_for_selector(".ae-language")
    assert _page_language(page) == ("zh-Hans", text("matrix_heading", "zh"))
    assert text_of(page, ".ae-language-bar") == "English"
    # An embedded page keeps the author's language and shows no switch.
    page.goto(site + "/selfcross.html?embed=1")
    page.wait_for_selector(".ae-selfcross-row")
    settled(page)
    assert page.url.endswith("/selfcross.html?embed=1")
    assert not page.locator("a.ae-language").is_visible()
    # An author asks for English in an iframe's address: the English file opens, still embedded ...
    page.goto(site + "/selfcross.html?embed=1&lang=en&query=2")
    page.wait_for_url(lambda url: url == site + "/en/selfcross.html?embed=1&query=2")
    page.wait_for_selector(".ae-selfcross-row")
    assert _page_language(page)[0] == "en" and not page.locator("a.ae-language").is_visible()
    # ... and the reader's own choice (Chinese, above) is not changed by it.
    page.goto(site + "/vector.html")
    wait_text(page, ".ae-vector-output", r"[0-9]")
    assert page.url == site + "/vector.html" and _page_language(page)[0] == "zh-Hans"
    assert aborted == []
    s.assert_clean()
