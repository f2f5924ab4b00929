"""A student moves the query of the 3.7.6 worked example in Chromium: on its live Panel page and on its
module's page saved to a file; by dragging its tip, tapping the plot, slider keys and typed numbers."""

from __future__ import annotations

import re
import time

import pytest

from attention_explorable import core
from attention_explorable.strings import text
from attention_explorable.views.vector import EXAMPLE_KEYS, EXAMPLE_VALUES

from playwright.sync_api import expect

from .pages import _SHADOW_TEXT, MODES, eventually, explorable_page, handle, handle_value, settled, text_of, wait_text

pytestmark = pytest.mark.browser

# Where a point of the plane is on the screen: in BokehJS (a live Panel page), or on a module's page
# (its figure's frame and scales).
_TO_SCREEN = """([x, y]) => {
  if (!window.Bokeh) {
    const plot = document.querySelector(".ae-vector-plot");
    const r = plot.querySelector(".ae-pic-frame").getBoundingClientRect(), s = plot.aeScales();
    return [r.x + s.x.fraction(x) * r.width, r.y + (1 - s.y.fraction(y)) * r.height];
  }
  const queue = [...Bokeh.index.roots], seen = new Set();
  while (queue.length) {
    const v = queue.shift();
    if (seen.has(v)) continue;
    seen.add(v);
    if (v.frame && (v.model.css_classes || []).includes("ae-vector-plot")) {
      const r = v.canvas_view.el.getBoundingClientRect();
      return [r.x + v.frame.x_scale.compute(x), r.y + v.frame.y_scale.compute(y)];
    }
    queue.push(...v.children());
  }
  return null;
}"""
# The query's tip as drawn, [[x], [y]]: the data of its source in BokehJS; on a module's page the ring
# drawn in the query's colour, read back through the figure's scales (to 1e-4: the drawing's precision).
_TIP = """() => {
  if (window.Bokeh) {
    for (const m of Bokeh.documents[0].all_models)
      if (m.data && m.data.label && m.data.label[0] === "q") return [Array.from(m.data.x), Array.from(m.data.y)];
    return null;
  }
  const plot = document.querySelector(".ae-vector-plot"), s = plot.aeScales();
  const ring = [...plot.querySelectorAll("svg[x] > path")].find((p) => p.getAttribute("stroke") === "#C44E52");
  if (!ring) return null;
  const at = (v) => parseFloat(v) / 100, round = (v) => Math.round(v * 1e4) / 1e4 + 0;
  const svg = ring.parentElement;
  return [[round(s.x.value(at(svg.getAttribute("x"))))], [round(s.y.value(1 - at(svg.getAttribute("y"))))]];
}"""


def labelled(txt: str, label: str) -> float:
    m = re.search(re.escape(label) + r"\s*=\s*([−-]?[0-9.]+)", txt)
    assert m, f"{label!r} not in {txt!r}"
    return float(m.group(1).replace("−", "-"))


def scores(page) -> list[float]:
    txt = text_of(page, ".ae-vector-scores")
    return [labelled(txt, f"s{i}") for i in "₁₂₃"]


def weights(page) -> list[float]:
    txt = text_of(page, ".ae-vector-weights")
    return [labelled(txt, f"α{i}") for i in "₁₂₃"]


def output(page) -> list[float]:
    m = re.search(r"y = \[([−-]?[0-9.]+), ([−-]?[0-9.]+)\]", text_of(page, ".ae-vector-output"))
    assert m, text_of(page, ".ae-vector-output")
    return [float(m.group(1).replace("−", "-")), float(m.group(2).replace("−", "-"))]


def query(page) -> list[float]:
    """The query as the formula shows it (two decimals): s₁ = q_x×1 + q_y×0."""
    m = re.search(r"s₁ = \(?(−?[0-9.]+)\)?×1 \+ \(?(−?[0-9.]+)\)?×0", text_of(page, ".ae-vector-formula"))
    assert m, text_of(page, ".ae-vector-formula")
    return [float(m.group(1).replace("−", "-")), float(m.group(2).replace("−", "-"))]


def expected(q, temperature=1.0):
    out, w = core.scaled_dot_product_attention(q, EXAMPLE_KEYS, EXAMPLE_VALUES, temperature=temperature, scale=1.0)
    return w[0], out[0]


def wait_query(page, q, timeout: float = 10_000) -> None:
    factor = lambda x: f"(−{-x:.2f})" if f"{x:.2f}".startswith("-") else f"{x:.2f}"  # noqa: E731  (as written)
    pattern = re.escape(f"s₁ = {factor(q[0])}×1 + {factor(q[1])}×0 =")
    wait_text(page, ".ae-vector-formula", pattern, timeout)


def wait_tip(page, q, timeout: float = 10_000) -> None:
    """Wait until the plot's query tip stands at ``q`` (once dropped, it snaps to the two decimals shown)."""
    page.wait_for_function(
        f"(want) => JSON.stringify(({_TIP})()) === JSON.stringify(want)", arg=[[q[0]], [q[1]]], timeout=timeout
    )


def wait_tip_on_formula(page, timeout: float = 15.0) -> None:
    """Wait until the plot's query tip stands where the formula says the query is, both read again each
    time (a live page's formula and tip arrive in patches of their own, in either order)."""
    deadline = time.monotonic() + timeout
    while page.evaluate(_TIP) != [[(q := query(page))[0]], [q[1]]]:
        assert time.monotonic() < deadline, (page.evaluate(_TIP), query(page))
        page.wait_for_timeout(50)  # the poll's interval


def assert_consistent(page) -> None:
    """Every readout agrees with the core for the query shown (and T = 1), once they have all arrived."""

    def check():
        q = query(page)
        w, out = expected(q)
        assert scores(page) == pytest.approx([q[0], q[1], q[0] + q[1]], abs=6e-4)
        assert weights(page) == pytest.approx(w, abs=6e-4)
        assert output(page) == pytest.approx(out, abs=6e-4)

    eventually(page, check)


def _assert_weights(page, want) -> None:
    assert weights(page) == pytest.approx(want, abs=6e-4)


def _assert_tied_halves(page) -> None:
    """The two tied positions share the weight (the middle one's, about 1e-9, is shown as a power of ten)."""
    w = weights(page)
    assert w[0] == w[2] == 0.5, w


def drag(page, start, end, steps: int = 8, hold=None) -> None:
    page.mouse.move(*start)
    page.mouse.down()
    page.mouse.move(*end, steps=steps)
    if hold:
        hold()
    page.mouse.up()


@pytest.fixture(scope="module")
def saved_vector(static_site):
    return static_site / "vector.html"


@pytest.fixture(params=MODES)
def vector_asking(request, vector_server, saved_vector, student):
    """The vector page as a student gets it (see :func:`pages.explorable_page`): its question first."""
    with explorable_page(
        request.param, student, ready=".ae-vector-output", server=vector_server, saved=saved_vector
    ) as s:
        yield s


@pytest.fixture(params=MODES)
def vector_page(request, vector_server, saved_vector, student):
    """The vector page past its question (a link's ``?revealed=true``): its controls open."""
    with explorable_page(
        request.param,
        student,
        ready=".ae-vector-output",
        server=vector_server,
        saved=saved_vector,
        suffix="?revealed=true",
    ) as s:
        yield s


def test_student_moves_the_query(vector_page, request):
    s, page = vector_page, vector_page.page
    mode = request.node.callspec.id
    wait_text(page, ".ae-vector-output", r"y = \[0\.845, 0\.578\]")
    assert weights(page) == [0.422, 0.155, 0.422]  # the numbers of section 3.7.6
    assert scores(page) == [1.0, 0.0, 1.0]
    s.screenshot(f"vector-1280-{mode}")

    # One key press on the second component of q: 0 -> 0.05; its box follows.
    knob = handle(page, ".ae-query-y")
    knob.focus()
    knob.press("ArrowRight")
    wait_text(page, ".ae-vector-scores", r"s₂ = 0\.050")
    eventually(page, lambda: _assert_weights(page, core.softmax([1.0, 0.05, 1.05])))
    # (A live page's box comes in a patch of its own, after the readouts: waited for, not read at once.)
    expect(page.locator(".ae-query-y-box input")).to_have_value("0.05")
    assert_consistent(page)

    # A typed number out of range is clamped, and a notice says so; a decimal comma is a number.
    box = page.locator(".ae-query-x-box input").first
    box.fill("5")
    box.press("Enter")
    wait_text(page, ".ae-vector-scores", r"s₁ = 2\.000")
    notice = r"查询 q 的第一个分量：输入的 5 超出范围 \[−2, 2\]，已改为 2"
    wait_text(page, ".ae-input-notice", notice)
    assert box.input_value() == "2"
    assert handle_value(handle(page, ".ae-query-x")) == 2.0
    box = page.locator(".ae-vector-temperature-box input").first
    box.fill("0,5")
    box.press("Enter")
    wait_text(page, ".ae-vector-formula", r"/ 0\.50\)")
    assert not page.locator(".ae-input-notice").first.is_visible()  # in range: no notice
    w, _ = expected([2.0, 0.05], temperature=0.5)
    eventually(page, lambda: _assert_weights(page, w))
    box.fill("abc")
    box.press("Enter")
    expect(box).to_have_value("0.5")  # junk: the box shows the value again
    box.fill("1")
    box.press("Enter")
    wait_text(page, ".ae-vector-formula", r"/ 1\.00\)")

    # Tap the plot: the query jumps there, rounded to 0.01.
    target = page.evaluate(_TO_SCREEN, [-0.8, 1.3])
    page.mouse.click(*target)
    wait_query(page, [-0.8, 1.3])
    assert page.evaluate(_TIP) == [[-0.8], [1.3]]
    assert_consistent(page)

    # Drag the tip: the numbers follow while the pointer moves, and the tip stays where it is dropped.
    start = page.evaluate(_TO_SCREEN, [-0.8, 1.3])
    end = page.evaluate(_TO_SCREEN, [0.6, -0.7])
    moving = {}

    def look():  # while the pointer is held down (on a busy machine the frame may take a while)
        for _ in range(30):
            page.wait_for_timeout(100)  # the poll's interval, while the pointer is held down
            moving["q"] = query(page)
            if moving["q"] != [-0.8, 1.3]:
                break

    # On the module's page the numbers follow the pointer; a live Panel page asks Python at the drop.
    drag(page, start, end, hold=look if mode == "static" else None)
    if mode == "static":
        assert moving["q"] == pytest.approx([0.6, -0.7], abs=0.02)  # drawn before the drop
    else:  # Python's answer to the drop, when it has come
        page.wait_for_function(
            f"([el]) => !({_SHADOW_TEXT})(el).includes('s₁ = (−0.80)×1 + 1.30×0')",
            arg=[page.locator(".ae-vector-formula").first.element_handle()],
        )
    wait_tip_on_formula(page)
    q = query(page)
    assert q == pytest.approx([0.6, -0.7], abs=0.02)
    assert page.evaluate(_TIP) == [[q[0]], [q[1]]]  # snapped to the two decimals shown
    assert_consistent(page)

    # Dragged past the bounds: the query stops at 2 (and -2); dropped there, the tip snaps back.
    start = page.evaluate(_TO_SCREEN, q)
    end = page.evaluate(_TO_SCREEN, [3.5, -3.5])
    drag(page, start, end)
    wait_query(page, [2.0, -2.0])
    wait_tip(page, [2.0, -2.0])
    assert page.evaluate(_TIP) == [[2.0], [-2.0]]
    assert_consistent(page)

    # The tip tapped (selected) and deleted with Backspace: it is put back, nothing else changes.
    before = text_of(page, ".ae-vector-formula")
    page.mouse.click(*page.evaluate(_TO_SCREEN, [2.0, -2.0]))
    settled(page)
    page.keyboard.press("Backspace")
    wait_tip(page, [2.0, -2.0])  # a deleted tip is put back
    assert page.evaluate(_TIP) == [[2.0], [-2.0]]
    assert text_of(page, ".ae-vector-formula") == before
    s.screenshot(f"vector-dragged-1280-{mode}")
    s.assert_clean()


@pytest.mark.parametrize("source", ["served", "static"])
def test_phone_has_no_horizontal_scroll_and_a_tap_moves_the_query(source, vector_server, saved_vector, student):
    s = student(width=390, height=844, mobile=True)
    if source == "served":  # (past the question: its controls open)
        s.open(vector_server.url() + "?revealed=true", ".ae-vector-output")
    else:
        assert s.open_offline(saved_vector, ".ae-vector-output", "?revealed=true") == []
    page = s.page
    wait_text(page, ".ae-vector-output", r"y = \[0\.845, 0\.578\]")
    s.assert_fits_phone(f"vector-390-{source}")
    page.locator(".ae-vector-plot").first.scroll_into_view_if_needed()
    page.touchscreen.tap(*page.evaluate(_TO_SCREEN, [-1.0, 0.5]))
    wait_query(page, [-1.0, 0.5])
    assert_consistent(page)
    s.assert_fits_phone(f"vector-390-tapped-{source}")
    if source == "served":
        vector_server.assert_clean_log()


# Each arrow of the plane on a module's page: its end, its stroke and width, in the order drawn (later on top).
_ARROWS = """() => [...document.querySelectorAll('.ae-vector-plot line[marker-end]')].map((l) =>
  [l.getAttribute('x2'), l.getAttribute('y2'), l.getAttribute('stroke'), parseFloat(l.getAttribute('stroke-width'))])"""


def test_the_opening_query_on_k1_leaves_the_key_in_sight(saved_vector, student):
    """The worked example opens on q = k₁ = [1, 0]: the key's thin grey arrow is drawn over the query's
    wide one, not hidden under it."""
    s = student()
    assert s.open_offline(saved_vector, ".ae-vector-output") == []
    arrows = s.page.evaluate(_ARROWS)
    (query,) = [a for a in arrows if a[2] == "#C44E52"]
    on_query = [i for i, a in enumerate(arrows) if a[2] == "#7F7F7F" and a[:2] == query[:2]]
    assert len(on_query) == 1, arrows  # k₁, where q is
    assert on_query[0] > arrows.index(query) and arrows[on_query[0]][3] < query[3], arrows
    s.screenshot("vector-opening-q-on-k1")


#: Resolves once the page has not scrolled for 10 frames running.
_SCROLL_STILL = """() => new Promise((done) => {
  let last = scrollY, still = 0;
  const frame = () => { still = scrollY === last ? still + 1 : 0; last = scrollY; still >= 10 ? done() : requestAnimationFrame(frame); };
  requestAnimationFrame(frame);
})"""


def _swipe(page, start, end, steps: int = 8) -> None:
    """A finger put down at ``start`` (page pixels), moved to ``end`` and lifted (Chromium's touch input)."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": start[0], "y": start[1]}]})
    for i in range(1, steps + 1):
        x, y = (a + (b - a) * i / steps for a, b in zip(start, end))
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": x, "y": y}]})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    cdp.detach()


def test_on_a_phone_a_swipe_scrolls_and_a_finger_on_the_tip_drags_it(saved_vector, student):
    s = student(width=390, height=844, mobile=True)
    assert s.open_offline(saved_vector, ".ae-vector-output", "?revealed=true") == []  # (past the question)
    page = s.page
    page.locator(".ae-vector-plot").first.scroll_into_view_if_needed()
    settled(page)
    before, top = query(page), page.evaluate("() => scrollY")
    # A swipe up from the plane, away from the tip: the page scrolls, the query stays.
    x, y = page.evaluate(_TO_SCREEN, [-1.5, -1.5])
    _swipe(page, (x, y), (x, y - 250))
    page.wait_for_function("(top) => scrollY > top + 100", arg=top)
    page.evaluate(_SCROLL_STILL)  # (a swipe flings the page on: it is left to stop)
    settled(page)
    assert query(page) == before
    # Back at the plane, a finger put down on the tip drags it, upwards too, and the page stays where it is.
    page.evaluate("() => document.querySelector('.ae-vector-plot').scrollIntoView({block: 'center'})")
    page.evaluate(_SCROLL_STILL)
    top = page.evaluate("() => scrollY")
    start, end = page.evaluate(_TO_SCREEN, before), page.evaluate(_TO_SCREEN, [-1.0, 0.5])
    _swipe(page, start, end)
    wait_query(page, [-1.0, 0.5])
    assert page.evaluate("() => scrollY") == top
    assert_consistent(page)
    s.assert_clean()


def test_the_prediction_is_asked_first_and_its_answer_watched(vector_asking, request):
    s, page = vector_asking, vector_asking.page
    wait_text(page, ".ae-vector-output", r"y = \[0\.845, 0\.578\]")
    assert "0.05" in text_of(page, ".ae-vector-question")
    # Nothing to try before the prediction: the sliders, their boxes and the plane's tip wait for it.
    assert text_of(page, ".ae-vector-feedback") == text("predict_locked", "zh")
    for box in ("ae-query-x-box", "ae-query-y-box", "ae-vector-temperature-box"):
        expect(page.locator(f".{box} input").first).to_be_disabled()
    knob = handle(page, ".ae-vector-temperature")
    knob.focus()
    knob.press("ArrowLeft")
    page.locator(".ae-vector-plot").first.click()  # (its middle: the plane)
    wait_text(page, ".ae-input-notice", text("predict_locked", "zh"))
    assert weights(page) == [0.422, 0.155, 0.422]
    page.locator(".ae-vector-check button").click()  # nothing chosen: said, nothing moves
    wait_text(page, ".ae-input-notice", "先选一个预测")
    if request.node.callspec.id == "static":  # said right under the button pressed, not a screen away
        said = page.locator(".ae-input-notice", has_text="先选一个预测").first.bounding_box()
        check = page.locator(".ae-vector-check button").bounding_box()
        assert 0 <= said["y"] - (check["y"] + check["height"]) < 40, (said, check)
    assert weights(page) == [0.422, 0.155, 0.422]
    page.locator(".ae-vector-prediction button", has_text="三角形的中心").click()
    page.locator(".ae-vector-check button").click()
    # Checked: the verdict, and the answer drawn where it was asked (q = [1, 0], T = 0.05).
    wait_text(page, ".ae-vector-feedback", "和你的预测不一样")
    wait_text(page, ".ae-vector-output", r"y = \[1\.000, 0\.500\]")
    eventually(page, lambda: _assert_tied_halves(page))
    assert "[1.000, 0.500]" in text_of(page, ".ae-vector-feedback")
    # The option that happens is marked where the student chose; the wrong pick stays pressed.
    options = page.locator(".ae-vector-prediction button")
    expect(options.nth(2)).to_have_text(text("vector_predict_midpoint", "zh") + text("predict_right_mark", "zh"))
    expect(options.nth(3)).to_have_text(text("vector_predict_centroid", "zh"))
    assert not page.locator(".ae-vector-check button").is_visible()
    assert page.locator(".ae-vector-temperature-box input").first.input_value() == "0.05"
    s.screenshot(f"vector-answered-1280-{request.node.callspec.id}")
    s.assert_clean()
