"""The textbook page links each section's notebook (ae-notebook), served and exported, and the link downloads it."""

from __future__ import annotations

from pathlib import Path

import pytest

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


def _check(page, language: str) -> None:
    page.wait_for_function(f"() => ({_LINKS})().length === 2", timeout=30_000)
    links = page.evaluate(_LINKS)
    assert [link["download"] for link in links] == [
        notebooks.notebook_filename(s, language) for s in ("sec-3-7", "sec-3-8")
    ]
    for link, section_id in zip(links, ("sec-3-7", "sec-3-8")):
        assert link["href"] == notebooks.notebook_data_url(section_id, language)
    with page.expect_download() as info:
        page.locator("a.ae-notebook").first.click()
    path = info.value.path()
    assert info.value.suggested_filename == notebooks.notebook_filename("sec-3-7", language)
    assert Path(path).read_text("utf-8") == notebooks.notebook_json("sec-3-7", language)


@pytest.mark.parametrize("where", ["static-zh", "static-en", "served"])
def test_each_section_links_its_notebook(where, static_site, textbook_server, student):
    s = student()
    if where == "served":
        s.open(textbook_server.url(), ".ae-notebook")
        _check(s.page, "zh")
        textbook_server.assert_clean_log()
    else:
        language = where.split("-")[1]
        s.open_offline(static_site / ("index.html" if language == "zh" else "en/index.html"), ".ae-notebook")
        _check(s.page, language)
    s.assert_clean()
