"""The lecture video in Chromium: nothing is requested before a click, and each source
the reader picks loads its own player (the requests are aborted: no network here)."""

import pytest

from attention_explorable import content

from ..conftest import ServedApp
from .pages import settled

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def video_server():
    app = ServedApp("tests/apps/video_block.py")
    yield app
    app.close()


def _sources(language):
    block = next(b for s in content.load_sections(language) for b in s.blocks if b.kind == "video")
    return content.video_sources(block)


def _abort_outside(s) -> list[str]:
    """Every request off this machine aborted (no network here) and listed, in the list returned."""
    requested = []

    def outside(route):
        requested.append(route.request.url)
        route.abort()

    s.page.route(lambda url: not url.startswith(("http://127.0.0.1", "data:", "blob:")), outside)
    s.errors_to_ignore = ("Failed to load resource",)  # the aborted players
    return requested


@pytest.mark.parametrize("language", ["zh", "en"])
def test_each_source_loads_only_when_chosen(video_server, student, language):
    s = student()
    page = s.page
    requested = _abort_outside(s)
    s.open(video_server.url() + f"?lang={language}", ".ae-video-load")
    settled(page)  # a player would be in the page by now, and its request made
    assert requested == [] and page.locator("iframe").count() == 0

    sources = _sources(language)
    for site, embed, _ in sources + sources[:1]:  # each source, then back to the first
        before = len(requested)
        page.locator(f".ae-video-{site}").click()
        frame = page.locator("iframe.ae-video-frame")
        frame.wait_for(state="attached", timeout=10_000)
        assert page.locator("iframe.ae-video-frame").count() == 1  # the choice replaces the player
        assert frame.get_attribute("src") == embed
        for _ in range(50):  # the request follows the frame's insertion
            if len(requested) > before:
                break
            page.wait_for_timeout(100)  # the poll's interval
        assert requested[before:] == [embed], (site, requested)
        pressed = page.locator(".ae-video-load[aria-pressed=true]")
        assert pressed.count() == 1 and f"ae-video-{site}" in pressed.get_attribute("class")
    s.assert_clean()
    video_server.assert_clean_log()


def test_an_offline_device_is_told_the_video_needs_a_connection_and_gets_it_once_online(video_server, student):
    """A device that knows it is offline gets a sentence instead of a player showing the browser's error page;
    back online, the same button plays."""
    from attention_explorable.strings import STRINGS

    s = student()
    page = s.page
    requested = _abort_outside(s)
    s.open(video_server.url() + "?lang=en", ".ae-video-load")
    (site, embed, _), *_ = _sources("en")
    page.context.set_offline(True)
    page.locator(f".ae-video-{site}").click()
    note = page.locator("p.ae-video-frame[role=status]")
    note.wait_for(state="attached", timeout=10_000)
    assert note.inner_text() == STRINGS["en"]["video_offline"]
    assert page.locator("iframe").count() == 0 and requested == []
    page.context.set_offline(False)
    page.locator(f".ae-video-{site}").click()
    page.locator("iframe.ae-video-frame").wait_for(state="attached", timeout=10_000)
    assert page.locator(".ae-video-frame").count() == 1  # the player replaced the note
    s.assert_clean()
