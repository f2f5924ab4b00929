"""The lecture video block: one button per source, and nothing that loads before a click."""

import re

import pytest

from attention_explorable import content
from attention_explorable.strings import text
from attention_explorable.textbook import block_html


def video_block(language):
    return next((s.id, b) for s in content.load_sections(language) for b in s.blocks if b.kind == "video")


@pytest.mark.parametrize("language", ["zh", "en"])
def test_one_button_per_source_and_nothing_that_loads(language):
    section_id, block = video_block(language)
    html = block_html(section_id, block, language)
    sources = content.video_sources(block)
    assert len(sources) >= 2
    buttons = re.findall(
        r"<button [^>]*class='ae-video-load ae-video-(\w+)'[^>]*data-src='([^']*)'[^>]*>(.*?)</button>", html
    )
    # A site's name in the other language carries its lang (content.mark_languages): compare the words.
    buttons = [(site, src, re.sub(r"<[^>]+>", "", label)) for site, src, label in buttons]
    assert [(site, src.replace("&amp;", "&")) for site, src, _ in buttons] == [(s, e) for s, e, _ in sources]
    for site, _, label in buttons:
        assert label == text("video_play", language, site=text(f"video_site_{site}", language))
    # Nothing the browser would fetch by itself: no frame, image or script, no src or srcset attribute.
    assert not re.search(r"<(iframe|img|script|video|embed|object)\b", html)
    assert not re.search(r"\s(src|srcset)=", html)
    for _, _, page in sources:
        assert f"href='{page}'" in html and "rel='noopener'" in html
