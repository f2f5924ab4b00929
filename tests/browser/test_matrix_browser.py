"""A student works the matrix explorable in Chromium: on its live Panel page and on its module's page, saved.

Every control is moved as a student would (a click on a switch, an arrow key
on a slider's handle, a value typed into a box, the new-seed button); after
each move the numbers in both heatmaps and the readouts must be exactly what
the Python view gives for the state the controls show.
"""

from __future__ import annotations

import re

import pytest

from attention_explorable.strings import STRINGS
from attention_explorable.views import matrix as view

from playwright.sync_api import expect

from .pages import _SHADOW_TEXT, MODES, explorable_page, handle, handle_value, text_of, wait_text

pytestmark = pytest.mark.browser

READY = ".ae-matrix-max-weight"
CONFIG = view.matrix_config("zh")
DEFAULT = {
    "n_tokens": 4,
    "d_k": 4,
    "seed": view.DEFAULT_SEED,
    "q1_scale": 1.0,
    "causal": False,
    "scaled": True,
    "prediction": "",
    "revealed": False,
}

# What the page shows now: the numbers written into each heatmap, the outlined cells, the mark on the
# curve ("hidden" while the curve is), the score heatmap's title. A live Panel page: its BokehJS models;
# a module's page: the figures as drawn, read back through their scales.
_DRAWN = """() => {
  if (!window.Bokeh) {
    const svg = (css) => document.querySelector(`.${css} .ae-pic-frame svg`);
    const pct = (v) => parseFloat(v) / 100;
    const texts = (css) => [...svg(css).querySelectorAll(":scope > text")].map((t) => t.textContent);
    const rects = [...svg("ae-matrix-weights").querySelectorAll(":scope > rect")];
    const x = document.querySelector(".ae-matrix-weights").aeScales().x;
    const curve = document.querySelector(".ae-matrix-curve");
    const diamond = curve.querySelector('svg[x] > path[fill="#333"]');
    return {score_text: texts("ae-matrix-scores"), weight_text: texts("ae-matrix-weights"),
            weight_fill: rects.filter((r) => r.getAttribute("fill") !== "none").map((r) => r.getAttribute("fill")),
            highlight: rects.filter((r) => r.getAttribute("stroke") === "#C44E52")
              .map((r) => Math.round(x.value(pct(r.getAttribute("x")) + pct(r.getAttribute("width")) / 2))),
            mark: curve.hidden ? "hidden" : [Math.round(curve.aeScales().x.value(pct(diamond.parentElement.getAttribute("x"))))],
            title: document.querySelector(".ae-matrix-scores .ae-pic-title").textContent};
  }
  const models = [...Bokeh.documents[0].all_models];
  const fig = (css) => models.find((m) => (m.css_classes || []).includes(css));
  const source = (f, column) => f.renderers.map((r) => r.data_source).find((d) => d && column in d.data);
  const scores = fig('ae-matrix-scores'), weights = fig('ae-matrix-weights'), curve = fig('ae-matrix-curve');
  return {score_text: [...source(scores, 'text_color').data.text],
          weight_text: [...source(weights, 'text_color').data.text],
          weight_fill: [...source(weights, 'text_color').data.fill],
          highlight: [...source(weights, 'height').data.x],
          mark: [...source(curve, 'current').data.d],
          title: scores.title.text};
}"""


_SAME = (
    "(want) => { try { return JSON.stringify(("
    + _DRAWN
    + ")()) === JSON.stringify(want); } catch (e) { return false; } }"
)


def drawn(page) -> dict:
    return page.evaluate(_DRAWN)


def expected(st: dict, live: bool) -> dict:
    """What ``_DRAWN`` reads for state ``st`` on a live Panel page (``live``) or a module's page."""
    v = view.matrix_view(st, CONFIG)
    cells = v["sources"]
    return {
        "score_text": cells["score_cells"]["text"],
        "weight_text": cells["weight_cells"]["text"],
        "weight_fill": cells["weight_cells"]["fill"],
        "highlight": cells["highlight"]["x"],
        "mark": [st["d_k"]] if live or st["revealed"] else "hidden",
        "title": v["props"]["score_title"]["text"],
    }


def readout_text(html: str) -> str:
    """The text a browser shows for a view's readout HTML."""
    return re.sub(r"\s+", "", re.sub(r"<[^>]+>", "", html))


def assert_shows(page, st: dict, timeout: float = 10_000) -> None:
    """Wait until the page shows state ``st``, then compare everything with the Python view."""
    want = expected(st, page.evaluate("() => Boolean(window.Bokeh)"))
    page.wait_for_function(_SAME, arg=want, timeout=timeout)
    assert drawn(page) == want
    v = view.matrix_view(st, CONFIG)
    for name in ("max_weight", "row_sums"):  # (a live page's readout may come a frame after its figure)
        readout = page.locator(f".ae-matrix-{name.replace('_', '-')}").first
        page.wait_for_function(
            f"([el, want]) => ({_SHADOW_TEXT})(el).replace(/\\s+/g, '') === want",
            arg=[readout.element_handle(), readout_text(v["html"][name])],
            timeout=timeout,
        )
    # (a served page's boxes and switches may come a message after its figures: waited for, as the readouts)
    for name in view.SLIDERS:
        box = page.locator(f".ae-matrix-{_CSS[name]}-box input")
        expect(box).to_have_value(v["props"][f"{name}_box"]["value"], timeout=timeout)
    for name in view.TOGGLES:
        expect(page.locator(f".ae-matrix-{name} input")).to_be_checked(checked=st[name], timeout=timeout)


_CSS = {"n_tokens": "n", "d_k": "dk", "seed": "seed", "q1_scale": "q1-scale"}


def press(page, name: str, key: str = "ArrowRight") -> None:
    knob = handle(page, f".ae-matrix-{_CSS[name]}")
    knob.focus()
    knob.press(key)


def type_into(page, name: str, raw: str) -> None:
    box = page.locator(f".ae-matrix-{_CSS[name]}-box input").first
    box.fill(raw)
    box.press("Enter")


@pytest.fixture(scope="module")
def saved_matrix(static_site):
    return static_site / "matrix.html"


@pytest.fixture(params=MODES)
def matrix_page(request, matrix_server, saved_matrix, student):
    """The matrix page as a student gets it (see :func:`pages.explorable_page`)."""
    with explorable_page(
        request.param,
        student,
        ready=READY,
        server=matrix_server,
        saved=saved_matrix,
    ) as s:
        yield s


def test_student_moves_every_control(matrix_page, request):
    s, page = matrix_page, matrix_page.page
    st = dict(DEFAULT)
    assert_shows(page, st)

    # Predict first: no curve, no curve numbers, until a prediction is checked.
    curve = page.locator(".ae-matrix-curve").first
    assert not curve.is_visible() and "dₖ = 4" not in text_of(page, ".ae-matrix-max-weight")
    # ... and nothing to try: every control waits for the prediction, as the feedback says.
    expect(page.locator(".ae-matrix-dk-box input").first).to_be_disabled()
    expect(page.locator(".ae-matrix-scaled input").first).to_be_disabled()
    assert text_of(page, ".ae-matrix-feedback") == STRINGS["zh"]["predict_locked"]
    page.locator(".ae-matrix-check button").click()  # nothing chosen: said, nothing shown
    wait_text(page, ".ae-input-notice", "先选一个预测")
    assert not curve.is_visible()
    page.locator(".ae-matrix-prediction button", has_text=STRINGS["zh"]["matrix_predict_peaked"]).click()
    page.locator(".ae-matrix-check button").click()
    st.update(prediction="peaked", revealed=True)
    wait_text(page, ".ae-matrix-feedback", "预测对了")
    curve.wait_for(state="visible")
    assert not page.locator(".ae-matrix-check button").is_visible()
    assert_shows(page, st)

    # Switch the √d_k scaling off: the weights get sharper, the score title says so.
    page.locator(".ae-matrix-scaled input").click()
    st["scaled"] = False
    assert_shows(page, st)
    assert drawn(page)["title"] == STRINGS["zh"]["matrix_plot_scores_unscaled"]

    # d_k 4 -> 5 with one key press; the curve's mark follows.
    press(page, "d_k")
    st["d_k"] = 5
    assert_shows(page, st)
    assert "dₖ = 5" in text_of(page, ".ae-matrix-max-weight")

    # Causal mask: grey cells above the diagonal, every row still sums to 1.
    page.locator(".ae-matrix-causal input").click()
    st["causal"] = True
    assert_shows(page, st)
    assert re.findall(r"[0-9]\.[0-9]{3}", text_of(page, ".ae-matrix-row-sums")) == ["1.000"] * 4
    wait_text(page, ".ae-matrix-notes", re.escape(STRINGS["zh"]["matrix_masked_note"]))  # (its own patch)
    assert drawn(page)["weight_text"][1] == "—" and drawn(page)["weight_text"][0] == "1.00"
    s.screenshot(f"matrix-causal-1280-{request.node.callspec.id}")

    # A typed seed; then a d_k beyond the slider, clamped with a notice.
    type_into(page, "seed", "3")
    st["seed"] = 3
    assert_shows(page, st)
    type_into(page, "d_k", "100")
    st["d_k"] = 64
    assert_shows(page, st)
    wait_text(page, ".ae-matrix-notice", r"维度 dₖ：输入的 100 超出范围 \[1, 64\]，已改为 64")
    assert handle_value(handle(page, ".ae-matrix-dk")) == 64.0
    type_into(page, "d_k", "abc")  # junk: the box shows the value again
    expect(page.locator(".ae-matrix-dk-box input")).to_have_value("64")

    # Fewer tokens with the keyboard: a 3 x 3 matrix; the next move hides the notice.
    press(page, "n_tokens", "ArrowLeft")
    st["n_tokens"] = 3
    assert_shows(page, st)
    assert not page.locator(".ae-matrix-notice").is_visible()

    # A longer first query, by key and by typing: its row sharpens.
    press(page, "q1_scale")
    st["q1_scale"] = 1.1
    assert_shows(page, st)
    type_into(page, "q1_scale", "4")
    st["q1_scale"] = 4.0
    assert_shows(page, st)
    type_into(page, "q1_scale", "-2")
    st["q1_scale"] = 0.0
    assert_shows(page, st)
    wait_text(page, ".ae-matrix-notice", r"超出范围 \[0, 4\]，已改为 0")

    # Scaling back on, causal off.
    page.locator(".ae-matrix-scaled input").click()
    page.locator(".ae-matrix-causal input").click()
    st.update(scaled=True, causal=False)
    assert_shows(page, st)
    assert drawn(page)["weight_text"][:3] == ["0.33"] * 3  # q₁ = 0: a uniform first row

    # A new random seed: the box shows it and the matrices are that seed's.
    box = page.locator(".ae-matrix-seed-box input").first
    page.locator(".ae-matrix-new-seed button").click()
    expect(box).not_to_have_value("3")
    seed = int(box.input_value())
    assert seed != 3 and 0 <= seed <= 9999
    st["seed"] = seed
    assert_shows(page, st)
    s.screenshot(f"matrix-1280-{request.node.callspec.id}")
    s.assert_clean()


def test_phone_has_no_sideways_scroll_and_taps_work(matrix_server, student):
    s = student(width=390, height=844, mobile=True)
    page = s.page
    s.open(matrix_server.url(), READY)
    assert_shows(page, DEFAULT)
    expect(page.locator(".ae-matrix-causal input").first).to_be_disabled()  # nothing to try before predicting
    page.locator(".ae-matrix-skip button").tap()  # skipping the prediction shows the answer
    assert_shows(page, {**DEFAULT, "revealed": True})
    page.locator(".ae-matrix-causal input").tap()
    assert_shows(page, {**DEFAULT, "causal": True, "revealed": True})
    wait_text(page, ".ae-matrix-feedback", "曲线给出答案")
    s.assert_fits_phone("matrix-390")
    matrix_server.assert_clean_log()
