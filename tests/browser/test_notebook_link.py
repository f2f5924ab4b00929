"""The textbook page links each section's notebook (ae-notebook), served and exported, and the link downloads it."""

from __future__ import annotations

import functools
import http.server
import threading
from pathlib import Path

import pytest
from playwright.sync_api import expect

from attention_explorable import notebooks

pytestmark = pytest.mark.browser

_LINKS = """() => {
  const out = [];
  const walk = (root) => {
    for (const a of root.querySelectorAll('a.ae-notebook')) out.push({href: a.href, download: a.download,
                                                                       text: a.textContent});
    for (const el of root.querySelectorAll('*')) if (el.shadowRoot) walk(el.shadowRoot);
  };
  walk(document);
  return out;
}"""


def _check(page, language: str, inline: bool) -> None:
    """The page's two links: ``inline`` (the live textbook) ``data:`` URLs, else the files beside the page."""
    page.wait_for_function(f"() => ({_LINKS})().length === 2", timeout=30_000)
    links = page.evaluate(_LINKS)
    assert [link["download"] for link in links] == [
        notebooks.notebook_filename(s, language) for s in ("sec-3-7", "sec-3-8")
    ]
    for link, section_id in zip(links, ("sec-3-7", "sec-3-8")):
        if inline:
            assert link["href"] == notebooks.notebook_data_url(section_id, language)
        else:
            assert link["href"].endswith("/" + notebooks.notebook_href(section_id, language)), link
    if page.url.startswith("file:"):  # the browser shows a file's notebook as text: the page says where it is
        note = page.locator(".ae-notebook-file").first
        expect(note).to_be_visible()
        expect(note).to_contain_text(notebooks.notebook_href("sec-3-7", language))
        return
    with page.expect_download() as info:
        page.locator("a.ae-notebook").first.click()
    path = info.value.path()
    assert info.value.suggested_filename == notebooks.notebook_filename("sec-3-7", language)
    assert Path(path).read_text("utf-8") == notebooks.notebook_json("sec-3-7", language)


@pytest.mark.parametrize("where", ["static-zh", "static-en", "served", "hosted"])
def test_each_section_links_its_notebook(where, static_site, textbook_server, student):
    s = student()
    if where == "hosted":  # the export on a course's web server: the link saves the file beside the page
        handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(static_site))
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            s.open(f"http://127.0.0.1:{server.server_port}/en/index.html", ".ae-notebook")
            _check(s.page, "en", inline=False)
            expect(s.page.locator(".ae-notebook-file").first).to_be_hidden()
        finally:
            server.shutdown()
    elif where == "served":
        s.open(textbook_server.url(), ".ae-notebook")
        _check(s.page, "zh", inline=True)
        textbook_server.assert_clean_log()
    else:
        language = where.split("-")[1]
        aborted = s.open_offline(static_site / ("index.html" if language == "zh" else "en/index.html"), ".ae-notebook")
        _check(s.page, language, inline=False)
        assert aborted == []
        for section_id in ("sec-3-7", "sec-3-8"):  # the files the page names are there, and are the notebooks
            folder = static_site if language == "zh" else static_site / "en"
            beside = folder / notebooks.notebook_href(section_id, language)
            assert beside.read_text("utf-8") == notebooks.notebook_json(section_id, language)
    s.assert_clean()
