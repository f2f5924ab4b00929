"""A link cannot run script through the room code: served and exported pages show a hostile ``?room=``
as nothing but "no such class", create no element from it and open no class socket with it.

The room code is the one part of a student page's address that the page writes as text into its
class panel; the server accepts only codes of its alphabet and length (classroom/codes.py), and
the page shows or sends no other.
"""

from __future__ import annotations

import urllib.parse

import pytest

from .pages import wait_text

pytestmark = pytest.mark.browser

#: Values a linking page could put in ``?room=``: handlers, a ``javascript:`` link, markup that
#: closes the panel's own; each would set ``window.__ran`` (upper-cased too, as the page upper-cases).
HOSTILE = [
    "<IMG SRC=X ONERROR=__RAN=1>",
    "<img src=x onerror=__ran=1>",
    "<A HREF=JAVASCRIPT:__RAN=1>X</A>",
    '"><svg onload=__ran=1>',
    "AB2CD3<b>x</b>",
    "&lt;img src=x onerror=__ran=1&gt;",
]

#: Marks any of the payloads having run (both spellings, as upper-casing leaves them).
_WATCH = "window.__ran = undefined; Object.defineProperty(window, '__RAN', {set() { window.__ran = 1; }});"
#: Elements that would come from markup in the address, anywhere in the class panel (shadow roots too).
_CREATED = """() => {
  const found = [];
  const visit = (root) => {
    for (const e of root.querySelectorAll('*')) {
      if (['IMG', 'SVG', 'B'].includes(e.tagName.toUpperCase()) && e.closest('[class*="ae-room"], [class*="ae-class"]'))
        found.push(e.outerHTML);
      if (e.tagName === 'A' && /^javascript:/i.test(e.getAttribute('href') || '')) found.push(e.outerHTML);
      if (e.shadowRoot) visit(e.shadowRoot);
    }
  };
  visit(document);
  return found;
}"""


def _check(s, sockets) -> None:
    s.page.locator(".ae-room, .ae-class-message").locator("visible=true").first.wait_for()  # the panel has drawn
    assert s.page.evaluate("window.__ran") is None
    assert s.page.evaluate(_CREATED) == []
    wait_text(s.page, ".ae-class-message", "没有这个课堂")
    assert sockets == []  # nothing was sent: no socket opened for a code that cannot be one
    s.assert_clean()


@pytest.mark.parametrize("room", HOSTILE)
def test_a_hostile_room_in_a_served_page_runs_nothing(served_cli, student, room):
    s = student()
    s.page.add_init_script(_WATCH)
    sockets = []
    s.page.on("websocket", lambda ws: sockets.append(ws.url) if "/class/" in ws.url else None)
    s.open(f"http://127.0.0.1:{served_cli.port}/steps?room={urllib.parse.quote(room)}", ".ae-output")
    _check(s, sockets)


@pytest.mark.parametrize("room", HOSTILE[:3])
def test_a_hostile_room_in_an_exported_page_runs_nothing(static_site, student, room):
    s = student()
    s.page.add_init_script(_WATCH)
    sockets = []
    s.page.on("websocket", lambda ws: sockets.append(ws.url))
    s.open_offline(static_site / "steps.html", ".ae-output", "?room=" + urllib.parse.quote(room))
    _check(s, sockets)


def test_a_hostile_room_in_the_textbook_runs_nothing(static_site, student):
    s = student()
    s.page.add_init_script(_WATCH)
    s.open_offline(static_site / "index.html", ".ae-output", "?room=" + urllib.parse.quote(HOSTILE[0]))
    _check(s, [])
