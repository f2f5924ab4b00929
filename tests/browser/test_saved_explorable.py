"""An author's ``explorable.save(path)``: one file that opens offline, in the state it was saved in.

Opened from ``file://`` with every other request aborted (as on a machine
with no network), it asks nothing of any host, shows the saved state, and
answers a student's key or click, as the exported site's pages do.
"""

from __future__ import annotations

import re

import pytest

from attention_explorable import StepsExplorer
from attention_explorable.explorables import MODULES, explorable_class
from attention_explorable.strings import text

from playwright.sync_api import expect

from .pages import handle, text_of, wait_text

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("name", [n for n, m in MODULES.items() if m.viewer and explorable_class(n).tried])
def test_a_saved_explorable_opens_offline_in_its_state_and_answers(name, tmp_path, student):
    # What the explorable declares: a state other than the default, the readout it shows, the control
    # a student uses and the button pressed on it (explorables/base.Tried).
    cls = explorable_class(name)
    tried = cls.tried
    state, readout, control = tried.state, tried.changed, tried.control
    explorer = cls(language="en", **state)
    path = explorer.save(tmp_path / f"{name}.html")
    source = path.read_text("utf-8")
    assert not re.search(r"(src|href)=\"https?://", source)
    s = student()
    aborted = s.open_offline(path, readout)
    page = s.page
    wait_text(page, readout, r"\S")
    # The page opened on the saved state: the state its module was given says so.
    given = page.evaluate("() => JSON.parse(document.querySelector('[data-ae-render] script').textContent)")
    saved = {k: v for k, v in explorer.module_state().items() if k != "config"}  # what its module is given
    opened = {k: given[k] for k in saved}
    assert opened == saved and opened != {k: v for k, v in cls(language="en").module_state().items() if k != "config"}
    assert page.evaluate("document.documentElement.lang") == "en"
    # Titled and laid out as the exported page: its heading, the page's title, the page's own margin.
    assert page.title() == text(MODULES[name].key("title"), "en")
    assert page.locator("h1").first.inner_text() == text(MODULES[name].key("title"), "en")
    assert page.locator("a.ae-language").count() == 0  # no other language's file beside it to switch to
    before = text_of(page, readout)
    if tried.press:
        page.locator(control, has_text=text(tried.press, "en")).first.click()
    else:
        handle(page, control).focus()
        page.keyboard.press("ArrowRight")
    expect(page.locator(readout).first).not_to_have_text(before)
    s.assert_clean()
    assert aborted == [], aborted


def test_save_refuses_a_folder_and_a_missing_one(tmp_path):
    explorer = StepsExplorer(language="en")
    with pytest.raises(ValueError, match="is a folder"):
        explorer.save(tmp_path)
    with pytest.raises(ValueError, match="does not exist"):
        explorer.save(tmp_path / "nowhere" / "steps.html")
