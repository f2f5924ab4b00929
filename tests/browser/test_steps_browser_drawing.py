"""The steps explorer redraws in the browser as a slider moves, and late server replies never win.

The websocket between the page and ``panel serve`` runs through Playwright's
``route_web_socket``, so a test can hold back what the server says.
"""

from __future__ import annotations

import re

import pytest

from attention_explorable import scenarios, stepsview
from attention_explorable.strings import DEFAULT_LANGUAGE

from .test_steps_browser import text_of

pytestmark = pytest.mark.browser

WEIGHTS_JS = """() => {
  for (const doc of Bokeh.documents) for (const m of doc._all_models.values())
    if (m.type === 'ColumnDataSource' && m.data && m.data.weight && m.data.name) return Array.from(m.data.weight);
  return null;
}"""

# Every text the readouts take at a microtask checkpoint, that is, every text
# the page could paint.
RECORD_JS = """() => {
  const find = (root) => {
    const hit = root.querySelector('.ae-readouts');
    if (hit) return hit;
    for (const el of root.querySelectorAll('*')) if (el.shadowRoot) { const i = find(el.shadowRoot); if (i) return i; }
    return null;
  };
  const host = find(document);
  const target = host.shadowRoot || host;
  window.__aeSeen = [];
  new MutationObserver(() => window.__aeSeen.push(target.textContent))
    .observe(target, {subtree: true, childList: true, characterData: true});
}"""


class HeldSocket:
    """Forward the page's websocket to the server; hold the server's messages while ``hold`` is set."""

    def __init__(self, page):
        self.hold = False
        self.held: list = []
        self.server = None
        self.client = None
        page.route_web_socket(re.compile(r".*/ws(\?.*)?$"), self._route)

    def _route(self, ws) -> None:
        self.client = ws
        self.server = ws.connect_to_server()
        ws.on_message(lambda m: self.server.send(m))
        self.server.on_message(self._from_server)

    def _from_server(self, message) -> None:
        if self.hold:
            self.held.append(message)
        else:
            self.client.send(message)

    def release(self) -> int:
        self.hold = False
        n = len(self.held)
        for message in self.held:
            self.client.send(message)
        self.held = []
        return n


def _state_after(presses: int) -> dict:
    start = dict(scenarios.get_step(1).start)
    start["score_diff"] = round(start["score_diff"] + 0.1 * presses, 10)
    return start


def _open(s, steps_server) -> HeldSocket:
    sock = HeldSocket(s.page)
    s.open(steps_server.url(), ".ae-output")
    s.page.wait_for_timeout(300)
    return sock


def test_readouts_and_bars_follow_the_slider_without_the_server(steps_server, student):
    s = student()
    sock = _open(s, steps_server)
    page = s.page
    sock.hold = True  # from now on nothing the server says reaches the page
    handle = page.locator(".ae-score-diff .noUi-handle").first
    handle.focus()
    for _ in range(3):
        handle.press("ArrowRight")
    page.wait_for_timeout(300)
    want = stepsview.steps_view(_state_after(3), None, stepsview.view_strings(DEFAULT_LANGUAGE))
    readouts = text_of(page, ".ae-readouts")
    assert "s₂ = 1.30" in readouts, readouts  # start: s₁ = 0, s₂ − s₁ = 1, three steps of 0.1
    assert text_of(page, ".ae-weight-2").strip() == re.sub("<[^>]+>", "", re.search(
        r"<td class='ae-weight-2'>(.*?)</td>", want["readouts"]).group(1))
    assert page.evaluate(WEIGHTS_JS) == pytest.approx(want["weights"]["weight"], rel=1e-12)
    assert sock.held, "the server did answer the slider moves"
    sock.release()
    page.wait_for_timeout(300)
    s.assert_clean()


def test_a_late_server_reply_never_takes_the_readouts_back(steps_server, student):
    s = student()
    sock = _open(s, steps_server)
    page = s.page
    handle = page.locator(".ae-score-diff .noUi-handle").first
    handle.focus()
    page.evaluate(RECORD_JS)
    sock.hold = True
    for _ in range(3):
        handle.press("ArrowRight")
        page.wait_for_timeout(150)  # each move reaches the server and is answered (held)
    latest = text_of(page, ".ae-readouts")
    assert "s₂ = 1.30" in latest, latest
    page.evaluate("window.__aeSeen = []")
    assert sock.release() >= 3  # the three answers, the first two for older slider positions
    page.wait_for_timeout(500)
    seen = page.evaluate("window.__aeSeen")
    older = [t for t in seen if "s₂ = 1.10" in t or "s₂ = 1.20" in t]
    assert not older, f"an older reply was shown: {older[:1]}"
    assert "s₂ = 1.30" in text_of(page, ".ae-readouts")
    s.assert_clean()
