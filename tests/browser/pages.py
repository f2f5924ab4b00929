"""How a student gets an explorable's page in the browser tests, and how to read it.

:func:`explorable_page` opens one of two ways: ``served`` (a running
``panel serve``, the live Panel app) and ``static`` (the page of the exported
site, opened from ``file://`` with every other request aborted). What a live
page does once its server is gone is tested once, in ``test_apps_smoke.py``,
not by every walk.
"""

from __future__ import annotations

import re
from contextlib import contextmanager


MODES = ["served", "static"]
#: Console messages of a page whose server is gone: expected, not errors.
SERVER_GONE = ("WebSocket", "Lost websocket connection", "ERR_CONNECTION_REFUSED", "not connected so cannot send")

_SHADOW_TEXT = """e => e.shadowRoot
    ? Array.from(e.shadowRoot.children).filter(c => !['STYLE', 'LINK'].includes(c.tagName))
        .map(c => c.innerText).join('\\n')
    : e.innerText"""


def text_of(page, css: str) -> str:
    """Visible text of the first element matching ``css``, shadow DOM included."""
    return page.locator(css).first.evaluate(_SHADOW_TEXT)


def handle(page, css: str):
    """The handle of the slider with class ``css``: Bokeh's on a live Panel page, the range input on a student page."""
    return page.locator(f"{css} .noUi-handle, {css} input[type=range]").first


def track(page, css: str):
    """The track of the slider with class ``css`` (Bokeh's, or the range input)."""
    return page.locator(f"{css} .noUi-base, {css} input[type=range]").first


def plot_area(page, css: str):
    """Where the figure with class ``css`` draws its data: Bokeh's canvas, or a student page's frame."""
    return page.locator(f"{css} canvas, {css} .ae-pic-frame").first


def pressed(locator) -> bool:
    """Whether the button ``locator`` of a group is the pressed one (Bokeh's ``bk-active``, ``aria-pressed``)."""
    return locator.evaluate("el => el.classList.contains('bk-active') || el.getAttribute('aria-pressed') === 'true'")


def handle_value(locator) -> float:
    """The value a slider's handle says it has (Bokeh's ``aria-valuenow``, a range input's value)."""
    return float(locator.evaluate("el => el.getAttribute('aria-valuenow') ?? el.value"))


_SETTLED = "() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(done))))"


def settled(page) -> None:
    """Return once ``page`` has handled every input sent to it so far and painted two frames since.

    The condition a check that something did *not* happen waits for: a key, a click or a typed value is
    handled in its own task, and what it changes is drawn by the next frame. (A change the page makes
    on a timer, such as a delayed announcement, is waited for by its own condition.)
    """
    page.evaluate(_SETTLED)


def eventually(page, check, timeout: float = 10_000) -> None:
    """Call ``check`` (a function that asserts) until it passes; after ``timeout`` ms raise its last failure.

    For readouts that change together but may reach the page one by one (a live Panel page receives each
    of its panes' changes as its own patch from the server).
    """
    waited = 0.0
    while True:
        try:
            check()
            return
        except AssertionError:
            if waited >= timeout:
                raise
        page.wait_for_timeout(50)  # the interval between two reads, not the condition
        waited += 50


def wait_text(page, css: str, pattern: str, timeout: float = 15_000) -> None:
    """Wait until an element matching ``css`` shows text matching the regular expression ``pattern``."""
    page.locator(css).filter(has_text=re.compile(pattern)).first.wait_for(timeout=timeout)


@contextmanager
def explorable_page(mode: str, student, *, ready: str, server=None, saved=None, suffix: str = ""):
    """A :class:`~tests.conftest.StudentPage` with an explorable's page opened in ``mode``.

    ``server`` is the module's running server of ``apps/<name>.py`` (for ``served``), ``saved``
    the exported page (for ``static``); ``ready`` a selector to wait for; ``suffix`` follows the
    address (a deep link's query: ``?revealed=true`` opens a page that asks first on its controls). On leaving, the served page's server log must be clean, and the
    static page must have requested nothing but its own files.
    """
    s = student()
    if mode == "served":
        s.open(server.url() + suffix, ready)
        yield s
        server.assert_clean_log()
    else:
        aborted = s.open_offline(saved, ready, suffix)
        yield s
        assert aborted == []
