"""An author's ``explorable.save(path)``: one file that opens offline, in the state it was saved in.

Opened from ``file://`` with every other request aborted (as on a machine
with no network), it asks nothing of any host, shows the saved state, and
answers a student's key or click, as the exported site's pages do.
"""

from __future__ import annotations

import re

import pytest

from attention_explorable import ContextsExplorer, MatrixExplorer, QkvExplorer, SelfCrossExplorer, StepsExplorer, VectorExplorer

from .pages import text_of, wait_text

pytestmark = pytest.mark.browser

#: explorable, state, what shows the state, the slider handle (or buttons) a student uses, and the
#: text of the button pressed (None: an arrow key on the slider).
CASES = {
    "steps": (StepsExplorer, {"temperature": 0.5}, ".ae-temperature-readout", ".ae-temperature input[type=range]",
              None),
    "vector": (VectorExplorer, {"query_x": 0.5}, ".ae-vector-output", ".ae-query-x input[type=range]", None),
    "matrix": (MatrixExplorer, {"d_k": 16}, ".ae-matrix-max-weight", ".ae-matrix-q1-scale input[type=range]", None),
    "selfcross": (SelfCrossExplorer, {"mode": "cross"}, ".ae-selfcross-roles", ".ae-selfcross-mode button",
                  "Self-attention"),
    "qkv": (QkvExplorer, {"w_v": "swap"}, ".ae-qkv-output", ".ae-qkv-w-v button", "Identity"),
    "contexts": (ContextsExplorer, {"causal": True}, ".ae-contexts-outputs", ".ae-contexts-skip button", "Skip"),
}


@pytest.mark.parametrize("name", list(CASES))
def test_a_saved_explorable_opens_offline_in_its_state_and_answers(name, tmp_path, student):
    cls, state, readout, control, pressed = CASES[name]
    explorer = cls(language="en", **state)
    path = explorer.save(tmp_path / f"{name}.html")
    source = path.read_text("utf-8")
    assert not re.search(r"(src|href)=\"https?://", source)
    s = student()
    aborted = s.open_offline(path, readout)
    page = s.page
    wait_text(page, readout, r"\S")
    # The page opened on the saved state: its state model (the one model that holds it) says so.
    opened = page.evaluate("""([names]) => {
        const model = [...window.aePage.values()].find((m) => m.type === "DataModel");
        return Object.fromEntries(names.map((n) => [n, model[n]]));
      }""", [list(explorer.state())])
    assert opened == explorer.state() and opened != cls(language="en").state()
    assert page.evaluate("document.documentElement.lang") == "en"
    before = text_of(page, readout)
    page.locator(control).first.focus()
    if pressed:
        page.locator(control, has_text=pressed).first.click()
    else:
        page.keyboard.press("ArrowRight")
    for _ in range(50):
        if text_of(page, readout) != before:
            break
        page.wait_for_timeout(50)
    assert text_of(page, readout) != before, f"{name}: the saved page did not answer"
    s.assert_clean()
    assert aborted == [], aborted


def test_save_refuses_a_folder_and_a_missing_one(tmp_path):
    explorer = StepsExplorer(language="en")
    with pytest.raises(ValueError, match="is a folder"):
        explorer.save(tmp_path)
    with pytest.raises(ValueError, match="does not exist"):
        explorer.save(tmp_path / "nowhere" / "steps.html")
