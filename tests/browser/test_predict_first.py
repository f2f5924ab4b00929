"""Predict first: no step of the steps explorable shows its answer before the student predicts or skips.

A student's page is read whole, as a screen reader would get it: every text of
the explorable, in every shadow root, the screen-reader tables of the plots
included, before the demonstration and after it, on the served page and on
the exported one.
"""

from __future__ import annotations

import pytest

from attention_explorable import scenarios
from attention_explorable.strings import STRINGS
from attention_explorable.views import steps as steps_view
from attention_explorable.views.numbers import format_number

from playwright.sync_api import expect

from .pages import MODES, explorable_page, settled, wait_text

pytestmark = pytest.mark.browser

ZH = STRINGS["zh"]

#: Every text in the explorable (light and shadow DOM, hidden tables too), and
#: whether the temperature curve is drawn.
_READ_ALL = """() => {
  const find = (root, sel) => {
    const hit = root.querySelector(sel);
    if (hit) return hit;
    for (const el of root.querySelectorAll('*')) if (el.shadowRoot) { const f = find(el.shadowRoot, sel); if (f) return f; }
    return null;
  };
  const texts = [];
  const walk = (root) => {
    for (const el of root.querySelectorAll('*')) {
      if (['STYLE', 'SCRIPT', 'LINK'].includes(el.tagName)) continue;
      for (const n of el.childNodes) if (n.nodeType === 3 && n.textContent.trim()) texts.push(n.textContent.trim());
      if (el.getAttribute && el.getAttribute('aria-label')) texts.push(el.getAttribute('aria-label'));
      if (el.shadowRoot) walk(el.shadowRoot);
    }
  };
  const steps = find(document, '.ae-steps');
  walk(steps.shadowRoot || steps);
  const curve = find(document, '.ae-temperature-curve');
  const skip = find(document, '.ae-skip-prediction');
  let active = document.activeElement;
  while (active && active.shadowRoot && active.shadowRoot.activeElement) active = active.shadowRoot.activeElement;
  // The box's owner: the shadow root's host on a Bokeh page, the box's wrapper on a student page.
  const owner = active && ((active.getRootNode && active.getRootNode().host) || active.closest('.ae-prediction'));
  return {text: texts.join('\\n'),
          curve: Boolean(curve && curve.getClientRects().length),
          skip: Boolean(skip && skip.getClientRects().length),
          focus_in_prediction: Boolean(active && active.tagName === 'INPUT' && owner
                                       && owner.classList.contains('ae-prediction'))};
}"""


def answers(n: int) -> set[str]:
    """What would give step ``n``'s answer away: its output and weights at the target, its curve."""
    step = scenarios.get_step(n)
    target, start = scenarios.outcome(step.target), scenarios.outcome(step.start)
    out = {
        f"y = {format_number(target['output'])}",
        f"y = {format_number(target['output'], 2)}",
        *(f"{a} = {format_number(w)}" for a, w in zip(("α₁", "α₂"), target["weights"])),
    }
    out -= {f"{a} = {format_number(w)}" for a, w in zip(("α₁", "α₂"), start["weights"])}
    out.add(ZH[f"step{n}_explain"])
    if n == 3:
        out.add(ZH["plot_temperature_curve"])  # the caption of the curve's table
    return out


def read_all(page) -> dict:
    return page.evaluate(_READ_ALL)


@pytest.fixture(scope="module")
def saved_steps(static_site):
    return static_site / "steps.html"


@pytest.mark.parametrize("mode", MODES)
def test_no_step_shows_its_answer_before_a_prediction_or_a_skip(mode, steps_server, saved_steps, student, request):
    with explorable_page(mode, student, ready=".ae-output", server=steps_server, saved=saved_steps) as s:
        page = s.page
        for n, how in ((1, "predict"), (2, "skip"), (3, "predict")):
            page.locator(f".ae-step-{n} button").click()
            wait_text(page, ".ae-question", f"第 {n} 步")
            settled(page)
            before = read_all(page)
            leaks = sorted(a for a in answers(n) if a in before["text"])
            assert not leaks, (n, leaks)
            assert not before["curve"] and not before["skip"], n

            # "演示本步" without a prediction asks for one, says why, and keeps the answer back.
            page.locator(".ae-demonstrate button").click()
            wait_text(page, ".ae-result", ZH["prediction_needed"][:12])
            # (a live page's skip button is its own patch, after the message's: waited for, not read at once)
            expect(page.locator(".ae-skip-prediction").first).to_be_visible()
            settled(page)  # no replay starts (one would have drawn its first frame by now)
            asked = read_all(page)
            # (the student page puts the cursor in the box; Panel's live app, drawn from Python, cannot)
            assert asked["skip"] and (asked["focus_in_prediction"] or mode == "served"), n
            if n == 1:
                s.screenshot(f"steps-asked-{request.node.callspec.id}")
            assert not [a for a in answers(n) if a in asked["text"]] and not asked["curve"], n

            if how == "skip":
                page.locator(".ae-skip-prediction button").click()
                wait_text(page, ".ae-result", "这次没有先做预测")
            else:
                guess = "6" if n == 1 else "10"
                page.locator(".ae-prediction input").fill(guess)
                page.locator(".ae-demonstrate button").click()
                wait_text(page, ".ae-result", f"你的预测 y = {guess}")
            after = read_all(page)
            expected = scenarios.get_step(n).expected_output()
            assert f"y = {format_number(expected, 2)}" in after["text"] and ZH[f"step{n}_explain"] in after["text"]
            assert not after["skip"] and after["curve"] == (n == 3), n
            if n == 3:  # the curve's table, as a screen reader gets it once the replay has settled: a row
                wait_text(page, ".ae-curve-data", ZH["plot_temperature_curve"])  # at the lowest temperature
                after = read_all(page)
                assert ZH["plot_temperature_curve"] in after["text"]
                assert format_number(steps_view.CURVE_T[0]) in after["text"] or "0.01" in after["text"]
        s.screenshot(f"steps-predict-first-{mode}-{request.node.callspec.id}")
        s.assert_clean()


def test_on_a_phone_the_demonstration_brings_the_number_line_into_view(saved_steps, student):
    s = student(width=390, height=844, mobile=True)
    s.open_offline(saved_steps, ".ae-output")
    page = s.page
    page.locator(".ae-step-2 button").click()
    wait_text(page, ".ae-question", "第 2 步")
    page.locator(".ae-prediction input").fill("8")
    page.evaluate("() => window.scrollTo(0, 0)")  # the page's top: the line (under the button) is cut by the fold
    line = page.locator(".ae-number-line").first
    box = line.bounding_box()
    assert box["y"] + box["height"] > 844, box  # not wholly in view before
    page.locator(".ae-demonstrate button").click()
    wait_text(page, ".ae-result", "你的预测 y = 8")
    expect(line).to_be_in_viewport(ratio=1)  # scrolled (smoothly) into view
    s.assert_clean()
