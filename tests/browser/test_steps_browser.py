"""A student works through the three steps in Chromium: served, with the server stopped, and saved."""

import re

import pytest

from attention_explorable.strings import text
from attention_explorable import scenarios

from playwright.sync_api import expect

from .pages import (
    eventually,
    MODES,
    explorable_page,
    handle,
    handle_value,
    plot_area,
    settled,
    text_of,
    track,
    wait_text,
)

pytestmark = pytest.mark.browser


def assert_readout(page, css: str, expected: float, tol: float | None = None) -> None:
    """The number ``css`` shows equals ``expected``, once it has arrived: on the live Panel page each
    readout is its own patch from the server, so a readout may come a moment after the one waited for."""
    eventually(page, lambda: _equal(readout_number(page, css), expected, tol))


def _equal(got: float, expected: float, tol: float | None) -> None:
    assert got == pytest.approx(expected, abs=tol), (got, expected)


def _at_the_left_end(page, css: str) -> None:
    """The slider's handle is drawn at the start of its track (a range input is its own handle: nothing to wait)."""
    bar, h = track(page, css).bounding_box(), handle(page, css).bounding_box()
    assert h == bar or h["x"] + h["width"] / 2 - bar["x"] < 0.05 * bar["width"], (h, bar)


def readout_number(page, css: str) -> float:
    txt = text_of(page, css)
    m = re.search(r"=\s*([−-]?[0-9.]+)", txt)
    assert m, f"no number in {css}: {txt!r}"
    return float(m.group(1).replace("−", "-"))


@pytest.fixture(scope="module")
def saved_steps(static_site):
    return static_site / "steps.html"


@pytest.fixture(params=MODES)
def steps_page(request, steps_server, saved_steps, student):
    """The steps page as a student gets it (see :func:`pages.explorable_page`)."""
    with explorable_page(request.param, student, ready=".ae-output", server=steps_server, saved=saved_steps) as s:
        yield s


def test_student_does_all_three_steps(steps_page, request):
    s, page = steps_page, steps_page.page
    start = scenarios.outcome(scenarios.get_step(1).start)["output"]
    assert_readout(page, ".ae-output", start, tol=5e-4)  # not yet 6

    # Step 1: predict the midpoint, demonstrate (Enter in the box, as in an exercise's), read the check.
    page.locator(".ae-prediction input").fill("6")
    page.locator(".ae-prediction input").press("Enter")
    wait_text(page, ".ae-result", r"演示结果 y = 6\.00；相差 0\.00")
    assert_readout(page, ".ae-output", 6.0)
    assert_readout(page, ".ae-weight-1", 0.5)

    # Step 2: a junk prediction is named, then predict 8, demonstrate.
    page.locator(".ae-step-2 button").click()
    wait_text(page, ".ae-result", "先预测")
    page.locator(".ae-prediction input").fill("八")
    wait_text(page, ".ae-prediction-error", "预测必须是 −20 到 20 之间的数字，收到的是“八”")
    page.locator(".ae-prediction input").fill("8")
    page.locator(".ae-demonstrate button").click()
    expected = scenarios.get_step(2).expected_output()
    wait_text(page, ".ae-result", rf"演示结果 y = {expected:.2f}；相差 {abs(8 - expected):.2f}")
    assert_readout(page, ".ae-output", expected, tol=5e-4)
    assert_readout(page, ".ae-weight-2", 0.8808, tol=5e-4)
    s.screenshot(f"steps-step2-1280-{request.node.callspec.id}")

    # Controls stay free: one key press on the score-difference slider; the box shows 2.1.
    knob = handle(page, ".ae-score-diff")
    knob.focus()
    knob.press("ArrowRight")
    wait_text(page, ".ae-score-2-readout", r"s₂ = 2\.10")
    assert_readout(page, ".ae-weight-2", 0.8909, tol=5e-4)
    expect(page.locator(".ae-score-diff-box input")).to_have_value("2.1")  # (a served page: a turn later)
    assert "滑块已移动" in text_of(page, ".ae-result")  # the result says which state it is of

    # A typed temperature out of range is clamped, and the box says so.
    box = page.locator(".ae-temperature-box input").first
    box.fill("50")
    box.press("Enter")
    wait_text(page, ".ae-temperature-readout", r"T = 10\.00")
    wait_text(page, ".ae-input-notice", r"输入的 50 超出范围 \[0\.01, 10\]，已改为 10")
    assert box.input_value() == "10"
    # ... on the page's module, right under the slider typed into, not below the other sliders (the Panel
    # app keeps its notice under all its sliders)
    if request.node.callspec.params["steps_page"] == "static":
        said, typed = page.locator(".ae-input-notice").bounding_box(), box.bounding_box()
        assert 0 <= said["y"] - (typed["y"] + typed["height"]) <= 40, (said, typed)
    assert handle_value(handle(page, ".ae-temperature")) == 10.0
    box.fill("")
    box.press("Enter")
    expect(box).to_have_value("10")  # an emptied box shows the value again

    # Step 3: lower the temperature to 0.02; the literal formula overflows.
    page.locator(".ae-step-3 button").click()
    wait_text(page, ".ae-score-1-readout", r"s₁ = 20\.00")
    page.locator(".ae-prediction input").fill("10")
    page.locator(".ae-demonstrate button").click()
    wait_text(page, ".ae-result", r"演示结果 y = 10\.00")
    wait_text(page, ".ae-temperature-readout", r"T = 0\.02")
    naive = text_of(page, ".ae-naive")
    assert "NaN" in naive and "∞" in naive
    s.screenshot(f"steps-step3-1280-{request.node.callspec.id}")

    # Drag the temperature handle to the far right: T = 10, weights near the average. (The handle is
    # where it is grabbed only once it stands at T = 0.02: on the live Panel page the slider's own patch
    # may come, and be drawn, a moment after the readout's.)
    eventually(page, lambda: _at_the_left_end(page, ".ae-temperature"))
    settled(page)
    bar = track(page, ".ae-temperature").bounding_box()
    h = handle(page, ".ae-temperature").bounding_box()
    # Bokeh's handle is its own element; a range input's thumb sits at the value along the track.
    at = h["x"] + h["width"] / 2 if h != bar else bar["x"] + 14 + (bar["width"] - 28) * 0.02 / 9.99
    page.mouse.move(at, h["y"] + h["height"] / 2)
    page.mouse.down()
    page.mouse.move(bar["x"] + bar["width"] + 40, h["y"] + h["height"] / 2, steps=8)
    page.mouse.up()
    wait_text(page, ".ae-temperature-readout", r"T = 10\.00")
    assert_readout(page, ".ae-weight-2", 0.5498, tol=5e-4)
    assert "NaN" not in text_of(page, ".ae-naive").split("\n")[1]
    s.assert_clean()


def test_clicking_the_number_line_sets_the_prediction(steps_page):
    page = steps_page.page
    settled(page)
    box = plot_area(page, ".ae-number-line").bounding_box()
    page.mouse.click(box["x"] + box["width"] * 0.5, box["y"] + box["height"] * 0.5)
    page.wait_for_function(
        "() => { const f = (r) => { const h = r.querySelector('.ae-prediction');"
        " if (h) return (h.shadowRoot || h).querySelector('input').value;"
        " for (const e of r.querySelectorAll('*')) if (e.shadowRoot) { const v = f(e.shadowRoot); if (v) return v; }"
        " return ''; }; return f(document) !== ''; }",
        timeout=10_000,
    )
    typed = float(page.locator(".ae-prediction input").input_value())
    lo, hi = sorted(scenarios.get_step(1).start[k] for k in ("value_1", "value_2"))
    assert lo - 2 < typed < hi + 2  # a point inside the plotted range, here between the values
    steps_page.assert_clean()


def test_presenter_keys_step_and_demonstrate(steps_server, student):
    s = student()
    page = s.page
    s.open(steps_server.url(), ".ae-output")
    page.wait_for_selector("html[data-ae-keys='on']", state="attached")  # the keys' module has loaded
    page.locator("body").click(position={"x": 5, "y": 5})
    page.keyboard.press("2")
    wait_text(page, ".ae-question", "第 2 步")
    page.keyboard.press("d")  # no prediction: it asks for one, the cursor in the box
    wait_text(page, ".ae-result", "先写下你的预测")
    page.keyboard.press("d")  # D again: the skip the page shows
    expected = scenarios.get_step(2).expected_output()
    wait_text(page, ".ae-result", rf"演示结果 y = {expected:.2f}（这次没有先做预测）")
    page.keyboard.press("3")
    # (Step 2 ends on s₁ = 20 too: the question says the step has changed, on the served page a round trip later.)
    wait_text(page, ".ae-question", "第 3 步")
    wait_text(page, ".ae-score-1-readout", r"s₁ = 20\.00")
    # Typing in a box is not a shortcut: "1" in the prediction box stays text.
    page.locator(".ae-prediction input").fill("")
    page.locator(".ae-prediction input").type("1")
    settled(page)
    assert "第 3 步" in text_of(page, ".ae-question")
    # The keys can be switched off (WCAG 2.1.4), and on again.
    page.locator(".ae-keys-on").focus()
    page.keyboard.press("Space")
    page.keyboard.press("2")
    settled(page)
    assert "第 3 步" in text_of(page, ".ae-question")
    page.keyboard.press("Space")
    page.keyboard.press("2")
    wait_text(page, ".ae-question", "第 2 步")
    s.assert_clean()


#: The boxes (in page pixels) of the number line's labels and markers that carry text or the output's colour.
_NUMBER_LINE_BOXES = """() => {
  const svg = document.querySelector('.ae-number-line svg');
  const box = (e) => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  const out = {};
  for (const t of svg.querySelectorAll('text')) out[t.textContent] = box(t);
  out.output_marker = [...svg.querySelectorAll('path')]
    .filter((p) => (p.getAttribute('fill') || '').toLowerCase() === '#dd8452').map(box);
  return out;
}"""


@pytest.mark.parametrize("width", [1280, 390])
def test_the_output_at_a_value_covers_no_label(saved_steps, student, width):
    """Step 3's end puts y on v₂ = 10: its marker and its label sit above v₂'s label, touching none."""
    s = student(width, 900, mobile=width < 500)
    s.open_offline(saved_steps, ".ae-number-line svg text", "?step=3&temperature=0.02")
    boxes = s.page.evaluate(_NUMBER_LINE_BOXES)
    value, label = boxes["v₂=10"], boxes["y=10.00"]
    assert boxes["output_marker"], boxes
    for other in (label, *boxes["output_marker"]):
        overlap = min(value[2], other[2]) > max(value[0], other[0]) and min(value[3], other[3]) > max(
            value[1], other[1]
        )
        assert not overlap, (value, other)
    s.assert_clean()


def test_each_readout_label_stands_apart_from_its_value(student, saved_steps):
    # A label cell (Scores, Temperature, ...) and the value beside it keep a gap: "温度 T = 1.00", not "温度T".
    with explorable_page("static", student, ready=".ae-output", saved=saved_steps) as s:
        gaps = s.page.locator(".ae-readout th.ae-kind").evaluate_all(
            """(cells) => cells.map((th) => {
              const text = (el) => { const r = document.createRange(); r.selectNodeContents(el); return r.getBoundingClientRect(); };
              return text(th.nextElementSibling).left - text(th).right;
            })"""
        )
        assert len(gaps) == 4 and min(gaps) >= 4, gaps


@pytest.mark.parametrize("typed", ["8", "6", "9"])
def test_the_same_prediction_typed_again_on_the_next_step_is_taken(student, saved_steps, typed):
    """Type a number, demonstrate step 1, go to step 2, type the same number: the demonstration runs (the box
    that step 2 emptied holds no stale typed text that makes the same keys read as unchanged)."""
    s = student()
    s.open_offline(saved_steps, ".ae-output")
    page = s.page
    box = page.locator(".ae-prediction input")
    box.press_sequentially(typed)
    page.locator(".ae-demonstrate button").click()
    wait_text(page, ".ae-result", rf"你的预测 y = {typed}")
    page.locator(".ae-step-2 button").click()
    wait_text(page, ".ae-question", "第 2 步")
    assert box.input_value() == ""
    box.click()
    box.press_sequentially(typed)
    page.locator(".ae-demonstrate button").click()
    wait_text(page, ".ae-result", rf"你的预测 y = {typed}")
    assert box.input_value() == typed
    s.assert_clean()


def test_an_authors_values_are_the_ones_each_step_demonstrates_and_checks(static_site, student, tmp_path):
    """A tag with ``value_2="8"``: each step keeps v₂ = 8, and the check is against the output with it."""
    # (the author's page in a folder of its own: the export's folder is shared by the test processes)
    host = tmp_path / "values.html"
    element = (static_site / "attention-explorable.js").resolve().as_uri()
    host.write_text(
        f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>values</title>"
        f"<script src='{element}'></script></head><body>"
        "<attention-explorable name='steps' value_2='8' lang='en'></attention-explorable></body></html>",
        "utf-8",
    )
    s = student()
    assert s.open_offline(host, "attention-explorable .ae-demonstrate") == []
    steps = s.page.locator("attention-explorable")
    expect(steps.locator(".ae-question")).to_contain_text("v₁ = 2 and v₂ = 8")
    for n, prediction in ((1, "5"), (2, "5")):  # the same keys typed in a second step are a prediction too
        if n > 1:
            steps.locator(f".ae-step-{n} button").click()
            expect(steps.locator(".ae-result")).not_to_contain_text("demonstration gave")
        steps.locator(".ae-prediction input").fill(prediction)
        steps.locator(".ae-demonstrate button").click()
        target = {**scenarios.get_step(n).target, "value_2": 8.0}
        y = scenarios.outcome(target)["output"]
        expect(steps.locator(".ae-result")).to_contain_text(
            text("result_with_prediction", "en", pred="5", true=f"{y:.2f}", gap=f"{abs(5 - y):.2f}"), timeout=15_000
        )
        expect(steps.locator(".ae-value-2-box input")).to_have_value("8")
    s.assert_clean()


def test_values_a_student_sets_before_predicting_are_demonstrated_and_checked(student, saved_steps):
    """v₁ typed as 4 before predicting: the question names it, the demonstration keeps it, the check grades 7 (the
    midpoint of 4 and 10) as right at step 1, and step 2 keeps it too (demonstrate put v₁ back to 2)."""
    s = student()
    s.open_offline(saved_steps, ".ae-output")
    page = s.page
    value_1 = page.locator(".ae-value-1-box input")
    value_1.fill("4")
    value_1.press("Enter")
    expect(page.locator(".ae-question")).to_contain_text("v₁ = 4")
    for n in (1, 2):
        if n > 1:
            page.locator(f".ae-step-{n} button").click()
            wait_text(page, ".ae-question", f"第 {n} 步")
        y = scenarios.outcome({**scenarios.get_step(n).target, "value_1": 4.0})["output"]
        page.locator(".ae-prediction input").fill(f"{y:.2f}")
        page.locator(".ae-demonstrate button").click()
        expect(page.locator(".ae-result")).to_contain_text(
            text("result_right", "zh").format(within=f"{scenarios.WITHIN:g}"), timeout=15_000
        )
        expect(page.locator(".ae-result")).to_contain_text(f"y = {y:.2f}")
        expect(value_1).to_have_value("4")
    s.assert_clean()


def test_the_temperature_slider_runs_along_its_logarithm(student, saved_steps):
    """T = 1 stands two thirds along the track (0.01 to 10: three decades; on a straight track it stood at 10 %),
    the slider says T itself (aria-valuenow), and at the low end each key press still moves T one step."""
    s = student()
    s.open_offline(saved_steps, ".ae-output")
    page = s.page
    page.locator(".ae-prediction input").fill("6")
    page.locator(".ae-demonstrate button").click()  # (the temperature waits for the step's demonstration)
    wait_text(page, ".ae-result", "你的预测 y = 6")
    knob = handle(page, ".ae-temperature")
    expect(knob).to_be_enabled()
    assert knob.get_attribute("aria-valuenow") == "1"
    assert float(knob.input_value()) == pytest.approx(0.0, abs=0.011)  # log10(1), on a hundredth-decade grid
    box = page.locator(".ae-temperature-box input")
    box.fill("0.03")
    box.press("Enter")
    wait_text(page, ".ae-temperature-readout", r"T = 0\.03")
    for shown in ("0.02", "0.01", "0.01"):  # (10^(log10 0.03 − 0.01) rounds back to 0.03: still a step down)
        knob.press("ArrowLeft")
        wait_text(page, ".ae-temperature-readout", rf"T = {re.escape(shown)}")
        expect(knob).to_have_attribute("aria-valuenow", shown)
    s.assert_clean()
