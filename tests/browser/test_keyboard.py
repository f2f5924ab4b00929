"""A student with a keyboard and no mouse: the textbook's vector explorable, an exercise and the three steps.

Tab goes through the controls in reading order, every control shows a
focus ring, sliders answer the arrows, Home/End and PageUp/PageDown, Enter
submits an exercise's answer, the steps are chosen, predicted and
demonstrated from the keyboard; the readouts' live region announces the
weights and the output once a movement settles, not on every frame of a
replay; a reader who asks for reduced motion gets the step's end at once.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from attention_explorable import scenarios
from attention_explorable.views.numbers import format_number

from .pages import settled, text_of, wait_text


def wait_announced(page, live: str, shown, timeout_ms: float = 10_000) -> str:
    """Wait until the live region ``live`` announces ``shown()`` (the readout now on screen: written once
    the changes settle, 0.8 s after the last); return the announcement."""
    waited = 0.0
    while True:
        text, expected = text_of(page, live), shown()
        if expected and expected in text:
            return text
        assert waited < timeout_ms, f"{live} says {text!r}, not {expected!r}, after {timeout_ms / 1000:g} s"
        page.wait_for_timeout(50)  # the poll's interval: the condition is the loop's
        waited += 50


pytestmark = pytest.mark.browser

# The focused element, through the shadow roots: its tag, the classes on its
# composed path (its own and its hosts'), whether a focus ring is drawn, and a
# slider's value.
_FOCUSED = """() => {
  let el = document.activeElement;
  while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement;
  const classes = [];
  for (let n = el; n; n = n.parentNode || n.host) if (n.classList) classes.push(...n.classList);
  const style = el ? getComputedStyle(el) : null;
  const generic = ["ae-slider", "ae-box", "ae-readout"];
  return {tag: el ? el.tagName : "", classes: classes.filter((c) => c.startsWith("ae-") && !generic.includes(c) && !/^ae-(n|css)-/.test(c)),
          ring: !!style && style.outlineStyle !== "none" && parseFloat(style.outlineWidth) >= 2,
          value: el && el.getAttribute ? el.getAttribute("aria-valuetext") : null,
          name: !el || !el.getAttribute ? null : el.getAttribute("aria-label")
            || (el.labels && el.labels.length ? el.labels[0].textContent.replace(/[:：] *$/, "") : null)};
}"""


def focused(page) -> dict:
    return page.evaluate(_FOCUSED)


def tab_to(page, css_class: str, *, back: bool = False, limit: int = 400) -> list[str]:
    """Press Tab (Shift+Tab when ``back``) until the focus is inside ``css_class``; the classes passed on the way."""
    passed = []
    for _ in range(limit):
        page.keyboard.press("Shift+Tab" if back else "Tab")
        now = focused(page)
        passed.append(now["classes"][0] if now["classes"] else now["tag"])
        if css_class in now["classes"]:
            assert now["ring"], f"no visible focus ring on {now}"
            return passed
    raise AssertionError(f"{css_class} not reached in {limit} presses; passed {passed[-30:]}")


def _output(step: int) -> float:
    return scenarios.outcome(scenarios.get_step(step).target)["output"]


def _result(step: int) -> str:
    """The demonstrated output of ``step`` as the result line shows it (computed by the core)."""
    return re.escape(format_number(_output(step), 2))


def test_a_student_works_the_textbook_with_the_keyboard_alone(every_app, student):
    s = student()
    page = s.page
    page.goto(f"http://127.0.0.1:{every_app.port}/textbook?lang=zh&explorables=all")
    page.wait_for_selector(".ae-explorable-steps .ae-output")
    wait_text(page, ".ae-vector-output", r"[0-9]")
    settled(page)

    passed = tab_to(page, "ae-language")
    assert len(passed) == 1, passed  # the first stop of the page

    # The vector explorable (3.7): its question first (its controls wait for it), by the keyboard too...
    tab_to(page, "ae-vector-prediction")
    page.keyboard.press("Enter")  # its first option
    tab_to(page, "ae-vector-check")
    page.keyboard.press("Enter")
    expect(page.locator(".ae-vector-check button")).to_be_hidden()
    # ... then its first slider, and every key a slider answers.
    passed = tab_to(page, "ae-query-x")
    handle = focused(page)
    assert handle["name"] == "查询 q 的第一个分量" and float(handle["value"]) == 1.0, handle
    output = text_of(page, ".ae-vector-output")
    values = []
    for key in ("ArrowRight", "End", "Home", "PageUp", "ArrowLeft"):
        page.keyboard.press(key)
        settled(page)
        values.append(float(focused(page)["value"]))
    assert values[0] > 1.0 and values[1] == 2.0 and values[2] == -2.0 and values[3] > -2.0, values
    assert values[4] < values[3], values
    wait_text(page, ".ae-vector-output", r"y = \[")
    assert text_of(page, ".ae-vector-output") != output
    # Announced once settled: the live region holds the weights and the output now shown.
    live = wait_announced(
        page,
        ".ae-explorable-vector .ae-live",
        lambda: re.search(r"y = \[[^\]]+\]", text_of(page, ".ae-vector-output")).group(0),
    )
    assert "α₁ = " in live, live
    # The next stops: the slider's box, then the second slider; a number typed and Enter.
    passed = tab_to(page, "ae-query-y-box")
    assert passed[0] == "ae-query-x-box", passed
    page.keyboard.press("Control+A")
    page.keyboard.type("0.5")
    page.keyboard.press("Enter")
    expect(page.locator(".ae-query-y input[type=range]")).to_have_attribute("aria-valuetext", "0.50")

    # An exercise of 3.7: the answer typed, Enter submits it.
    tab_to(page, "ae-exercise-q2-alpha2")
    page.keyboard.type("0.212")
    page.keyboard.press("Enter")
    wait_text(page, ".ae-exercise-q2-alpha2 .ae-exercise-feedback", "正确")

    # The three steps of 3.8: choose, predict, demonstrate, each from the keyboard.
    passed = tab_to(page, "ae-step-1")
    page.keyboard.press("Enter")
    passed = tab_to(page, "ae-prediction")
    assert passed[:2] == ["ae-step-2", "ae-step-3"], passed  # reading order
    page.keyboard.type("6")
    passed = tab_to(page, "ae-demonstrate")
    assert len(passed) == 1, passed
    page.keyboard.press("Enter")
    steps = ".ae-explorable-steps"
    wait_text(page, f"{steps} .ae-result", rf"你的预测 y = 6；演示结果 y = {_result(1)}")
    for step, key, prediction in ((2, "Space", "9"), (3, "Enter", "10")):
        tab_to(page, f"ae-step-{step}", back=True)
        page.keyboard.press(key)
        wait_text(page, f"{steps} .ae-question", f"第 {step} 步")
        tab_to(page, "ae-prediction")
        page.keyboard.type(prediction)
        tab_to(page, "ae-demonstrate")
        page.keyboard.press("Enter")
        wait_text(page, f"{steps} .ae-result", rf"你的预测 y = {prediction}；演示结果 y = {_result(step)}")
        assert "ae-demonstrate" in focused(page)["classes"]  # the button drawn again keeps the focus
    # The sliders after the button, in order; each answers the keys.
    passed = tab_to(page, "ae-temperature")
    assert passed == ["ae-score-diff", "ae-score-diff-box", "ae-temperature"], passed
    before = text_of(page, f"{steps} .ae-output")
    page.keyboard.press("End")
    wait_text(page, f"{steps} .ae-temperature-readout", r"T = 10\.00")
    assert text_of(page, f"{steps} .ae-output") != before
    live = wait_announced(page, f"{steps} .ae-live", lambda: text_of(page, f"{steps} .ae-output").strip())
    assert "α₁ = " in live, live
    s.assert_clean()
    every_app.assert_clean_log()


@pytest.mark.parametrize("motion", ["no-preference", "reduce"])
def test_the_replay_respects_reduced_motion_and_its_end_is_announced(static_site, chromium, motion):
    context = chromium.new_context(viewport={"width": 1280, "height": 900}, locale="zh-CN", reduced_motion=motion)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto((static_site / "steps.html").resolve().as_uri() + "?step=2")
    wait_text(page, ".ae-output", r"[0-9]")
    wait_announced(page, ".ae-live", lambda: text_of(page, ".ae-output").strip())  # the step's start, settled
    page.locator(".ae-prediction input").fill("9")
    page.locator(".ae-demonstrate button").focus()
    labels = []
    page.keyboard.press("Enter")
    for _ in range(10):
        labels.append(text_of(page, ".ae-demonstrate"))
        page.wait_for_timeout(30)  # samples the button's label while the replay would run
    wait_text(page, ".ae-result", rf"演示结果 y = {_result(2)}")
    if motion == "reduce":
        assert all("演示中" not in label for label in labels), labels  # no replay: the end at once
    else:
        assert any("演示中" in label for label in labels), labels  # the replay runs ...
    wait_announced(page, ".ae-live", lambda: f"y = {format_number(_output(2))}")  # ... and the end is announced
    assert not errors, errors
    context.close()


def test_the_live_region_stays_quiet_during_a_replay(static_site, student):
    s = student()
    page = s.page
    page.goto((static_site / "steps.html").resolve().as_uri() + "?step=2")
    wait_text(page, ".ae-output", r"[0-9]")
    # The first paint's announcement, then the step's start once settled: the one to compare with.
    before = wait_announced(page, ".ae-live", lambda: text_of(page, ".ae-output").strip())
    page.locator(".ae-prediction input").fill("9")
    page.locator(".ae-demonstrate button").focus()
    page.keyboard.press("Enter")
    seen = set()
    for _ in range(60):  # the replay lasts about a second; the announcement comes 0.8 s after it
        seen.add(text_of(page, ".ae-live"))
        page.wait_for_timeout(40)  # samples the live region through the replay and its announcement
    assert len(seen - {before}) == 1, seen  # one announcement: the end, not the frames
    assert f"y = {format_number(_output(2))}" in (seen - {before}).pop()
