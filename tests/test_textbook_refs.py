"""Subsection numbers in the textbook's text are links to their headings (``textbook.link_subsections``)."""

from __future__ import annotations

import re

import pytest

from attention_explorable import textbook


@pytest.mark.parametrize("language", ["zh", "en"])
def test_every_subsection_number_in_the_text_links_to_its_heading(language):
    pages = "".join(
        textbook.block_html(s.id, b, language)
        for s in textbook._sections(language)
        for b in s.blocks
        if b.kind not in ("explorable", "exercise")
    )
    ids = set(re.findall(r"<h[23] id=[\"']([^\"']+)", pages))
    links = re.findall(r"<a class='ae-ref' href='#([^']+)'>(\d+\.\d+\.\d+)</a>", pages)
    assert len(links) >= 20, links
    assert all(target in ids and target.split("--")[1].startswith(n.replace(".", "-")) for target, n in links), links
    # a number of an example, an exercise or a proposition stays a number; so does a heading's own
    shown = re.sub(r"<a class='ae-ref'[^>]*>", "<a>", pages)
    for kind in ("Example", "Exercise", "Proposition") if language == "en" else ("例", "练习", "命题"):
        assert not re.search(rf"{kind}\s*<a>", shown), kind
    assert not re.search(r"<h[23][^>]*>[^<]*<a", pages)


def test_a_number_with_no_subsection_or_inside_code_stays_as_written():
    source = "<p>Section 3.5; 3.7.99</p><pre><code>see 3.7.5</code></pre><p><math>3.7.5</math></p>"
    assert textbook.link_subsections(source, "en") == source
