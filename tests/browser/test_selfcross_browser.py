"""A student compares self- and cross-attention in Chromium: served, with the server stopped, and saved."""

import re

import pytest
from playwright.sync_api import expect

from attention_explorable import core
from attention_explorable.strings import STRINGS
from attention_explorable.views.selfcross import EN_EMBEDDINGS, EN_TOKENS, ZH_EMBEDDINGS, ZH_TOKENS

from ..conftest import ServedApp
from .pages import MODES, eventually, explorable_page, plot_area, pressed, text_of, wait_text

pytestmark = pytest.mark.browser

READY = ".ae-selfcross-row"

# The heatmap as it is drawn: axis titles, tick labels, the highlighted row, the cells' numbers, and where
# its frame lies in its drawing area. On a live Panel page, as BokehJS holds it; on a student page (the
# module), as its elements show it.
_HEATMAP = """() => {
  if (!window.Bokeh) {
    const fig = document.querySelector('.ae-selfcross-heatmap');
    const axis = (cls) => {
      const a = fig.querySelector(`.ae-pic-axis.${cls}`), label = a.querySelector('.ae-pic-axis-label');
      return {label: label ? label.textContent : '',
              ticks: [...a.querySelectorAll('span:not(.ae-pic-axis-label)')].map((s) => s.textContent)};
    };
    const frame = fig.querySelector('.ae-pic-frame'), box = frame.getBoundingClientRect();
    const outline = [...frame.querySelectorAll('rect')].find((r) => r.getAttribute('stroke'));
    const rows = fig.querySelectorAll('.ae-pic-y span:not(.ae-pic-axis-label)').length;
    return {x: axis('ae-pic-x'), y: axis('ae-pic-y'),
            row: Math.floor(parseFloat(outline.getAttribute('y')) / 100 * rows) + 1,
            text: [...frame.querySelectorAll('text')].map((t) => t.textContent),
            frame: [0, 0, box.width, box.height]};
  }
  const fig = [...Bokeh.documents[0].all_models].find((m) => (m.css_classes || []).includes('ae-selfcross-heatmap'));
  const axis = (list) => {
    const a = list.find((m) => 'major_label_overrides' in m);
    return {label: a.axis_label, ticks: [...a.major_label_overrides].sort((p, q) => p[0] - q[0]).map((e) => e[1])};
  };
  const source = (column) => fig.renderers.map((r) => r.data_source).find((d) => d && column in d.data);
  const cells = source('text_color'), highlight = source('height');
  const box = Bokeh.index.find_one(fig).frame.bbox;
  return {x: axis(fig.above), y: axis(fig.left), row: highlight.data.y[0], text: [...cells.data.text],
          frame: [box.left, box.top, box.width, box.height]};
}"""


def heatmap(page) -> dict:
    return page.evaluate(_HEATMAP)


def _assert_equal(got, want) -> None:
    assert got == want, (got, want)


def weights_in(row_text: str) -> dict:
    """Token -> weight read from the query row's readout."""
    # (a token, then its weight: cells a tab apart in a table row, or each on its own line where they wrap)
    lines = [cell.strip() for line in row_text.split("\n")[1:] for cell in line.split("\t")]
    return {
        tok: float(w)
        for tok, w in zip(lines, lines[1:])
        if re.fullmatch(r"[0-9]\.[0-9]{3}", w) and not re.search(r"[0-9(（]", tok)
    }


def tap_row(page, row: int, n_rows: int = 4, touch: bool = False) -> None:
    """Click (or, on a phone, tap) heatmap row ``row`` (1 = top)."""
    left, top, width, height = heatmap(page)["frame"]
    canvas = plot_area(page, ".ae-selfcross-heatmap").bounding_box()
    x, y = canvas["x"] + left + 0.3 * width, canvas["y"] + top + (row - 0.5) / n_rows * height
    page.touchscreen.tap(x, y) if touch else page.mouse.click(x, y)


@pytest.fixture(scope="module")
def saved_selfcross(static_site):
    return static_site / "selfcross.html"


@pytest.fixture(params=MODES)
def selfcross_page(request, selfcross_server, saved_selfcross, student):
    """The page as a student gets it (see :func:`pages.explorable_page`)."""
    with explorable_page(request.param, student, ready=READY, server=selfcross_server, saved=saved_selfcross) as s:
        yield s


def test_student_uses_every_control(selfcross_page, request):
    s, page = selfcross_page, selfcross_page.page
    flavour = request.node.callspec.id
    _, zh = core.scaled_dot_product_attention(ZH_EMBEDDINGS, ZH_EMBEDDINGS, ZH_EMBEDDINGS)
    _, cross = core.scaled_dot_product_attention(EN_EMBEDDINGS, ZH_EMBEDDINGS, ZH_EMBEDDINGS)
    causal = core.scaled_dot_product_attention(EN_EMBEDDINGS, EN_EMBEDDINGS, EN_EMBEDDINGS, mask=core.causal_mask(4))[1]

    # Chinese self-attention: the heatmap says both roles come from the Chinese sentence.
    assert "中文句子“我 爱 机器 学习”" in text_of(page, ".ae-selfcross-roles")
    row = text_of(page, ".ae-selfcross-row")
    # Before the prediction no weight is shown: the words' likeness would answer it.
    assert "查询“我”的权重" in row and STRINGS["zh"]["selfcross_hidden"] in row and not weights_in(row)
    hm = heatmap(page)
    assert hm["x"] == {"label": "键和值来自：中文句子", "ticks": list(ZH_TOKENS)}
    assert hm["y"] == {"label": "查询来自：中文句子", "ticks": list(ZH_TOKENS)}
    assert hm["text"] == ["?"] * 16 and hm["row"] == 1
    expect(page.locator(".ae-selfcross-causal input")).to_be_disabled()  # no causal mask in the encoder

    # Past the question (skipped), its answer: cross-attention, English rows, Chinese columns; "love"
    # attends most to 爱.
    page.locator(".ae-selfcross-skip button").click()
    wait_text(page, ".ae-selfcross-roles", "查询 Q 来自英文句子")
    page.locator(".ae-selfcross-query button", has_text="love").click()
    wait_text(page, ".ae-selfcross-row", "查询“love”的权重")
    row = text_of(page, ".ae-selfcross-row")
    assert f"最关注“爱”（权重 {cross[1].max():.3f}）" in row
    for tok, weight in zip(ZH_TOKENS, cross[1]):
        assert re.search(rf"{tok}\s+{weight:.3f}", row), (tok, row)

    def cross_heatmap():  # (a live page's figure is its own patch, after the readout's)
        hm = heatmap(page)
        assert hm["y"] == {"label": "查询来自：英文句子", "ticks": list(EN_TOKENS)}
        assert hm["x"] == {"label": "键和值来自：中文句子", "ticks": list(ZH_TOKENS)}
        assert hm["row"] == 2 and hm["text"] == [f"{w:.2f}" for w in cross.ravel()]

    eventually(page, cross_heatmap)
    s.screenshot(f"selfcross-cross-1280-{flavour}")

    # Tap the heatmap's last row: "learning" becomes the query, its button pressed.
    tap_row(page, 4)
    wait_text(page, ".ae-selfcross-row", "查询“learning”的权重")
    assert weights_in(text_of(page, ".ae-selfcross-row")) == {tok: round(w, 3) for tok, w in zip(ZH_TOKENS, cross[3])}
    eventually(page, lambda: _assert_equal(heatmap(page)["row"], 4))
    eventually(
        page, lambda: _assert_equal(pressed(page.locator(".ae-selfcross-query button", has_text="learning")), True)
    )

    # English self-attention with the causal mask: "love" sees only "I" and itself.
    page.locator(".ae-selfcross-mode button", has_text="自注意力（英文）").click()
    wait_text(page, ".ae-selfcross-roles", "英文句子“I love machine learning”")
    expect(page.locator(".ae-selfcross-causal input")).to_be_enabled()  # (a live page: drawn by the server)
    page.locator(".ae-selfcross-query button", has_text="love").click()
    page.locator(".ae-selfcross-causal input").click()
    wait_text(page, ".ae-selfcross-roles", "因果掩码")
    wait_text(page, ".ae-selfcross-row", "查询“love”的权重")
    row = text_of(page, ".ae-selfcross-row")
    assert re.search(r"machine\s+—", row) and re.search(r"learning\s+—", row), row  # masked, as in their cells
    assert weights_in(row) == {tok: round(w, 3) for tok, w in zip(EN_TOKENS[:2], causal[1][:2])}

    def causal_heatmap():
        hm = heatmap(page)
        assert hm["text"][1] == "—" and hm["text"][4:6] == [f"{causal[1, 0]:.2f}", f"{causal[1, 1]:.2f}"]
        assert hm["x"]["label"] == "键和值来自：英文句子" and hm["y"]["ticks"] == list(EN_TOKENS)

    eventually(page, causal_heatmap)
    s.screenshot(f"selfcross-causal-1280-{flavour}")

    # The mask off again: the full row comes back.
    page.locator(".ae-selfcross-causal input").click()
    full = core.scaled_dot_product_attention(EN_EMBEDDINGS, EN_EMBEDDINGS, EN_EMBEDDINGS)[1][1]
    wait_text(page, ".ae-selfcross-row", rf"learning\s*{full[3]:.3f}")
    assert weights_in(text_of(page, ".ae-selfcross-row")) == {tok: round(w, 3) for tok, w in zip(EN_TOKENS, full)}
    eventually(page, lambda: _assert_equal("因果掩码" in text_of(page, ".ae-selfcross-roles"), False))

    # Chinese self-attention, past the question: its weights now shown.
    page.locator(".ae-selfcross-mode button", has_text="自注意力（中文）").click()
    page.locator(".ae-selfcross-query button", has_text="我").click()
    wait_text(page, ".ae-selfcross-row", "查询“我”的权重")
    eventually(
        page,
        lambda: _assert_equal(
            weights_in(text_of(page, ".ae-selfcross-row")), {tok: round(w, 3) for tok, w in zip(ZH_TOKENS, zh[0])}
        ),
    )
    eventually(page, lambda: _assert_equal(heatmap(page)["text"], [f"{w:.2f}" for w in zh.ravel()]))
    s.assert_clean()


def test_phone_has_no_sideways_scroll(selfcross_server, student):
    s = student(width=390, height=844, mobile=True)
    s.open(selfcross_server.url(), READY)
    page = s.page
    page.locator(".ae-selfcross-skip button").tap()  # past the question: its answer, cross-attention
    wait_text(page, ".ae-selfcross-roles", "查询 Q 来自英文句子")
    plot_area(page, ".ae-selfcross-heatmap").scroll_into_view_if_needed()
    tap_row(page, 3, touch=True)
    wait_text(page, ".ae-selfcross-row", "查询“machine”的权重")
    assert heatmap(page)["row"] == 3
    s.assert_fits_phone("selfcross-390")
    selfcross_server.assert_clean_log()


def test_state_travels_both_ways(student):
    """A student's changes reach the server's parameters; the server's changes are drawn."""
    server = ServedApp("tests/apps/selfcross_server_state.py")
    try:
        s = student()
        page = s.page
        s.open(server.url(), READY)
        wait_text(page, ".ae-server-state", "mode=self_zh causal=False query=1")
        page.locator(".ae-selfcross-skip button").click()  # past the question: its answer, cross-attention
        wait_text(page, ".ae-server-state", "mode=cross causal=False query=3")  # (the question's "machine")
        page.locator(".ae-selfcross-mode button", has_text="自注意力（英文）").click()
        wait_text(page, ".ae-server-state", "mode=self_en causal=False query=3")
        page.locator(".ae-selfcross-causal input").click()
        wait_text(page, ".ae-server-state", "mode=self_en causal=True query=3")
        tap_row(page, 2)
        wait_text(page, ".ae-server-state", "mode=self_en causal=True query=2")

        page.locator(".ae-server-jump button").click()  # the server changes the state
        wait_text(page, ".ae-selfcross-row", "查询“learning”的权重")
        wait_text(page, ".ae-selfcross-roles", "查询 Q 来自英文句子")
        cross = core.scaled_dot_product_attention(EN_EMBEDDINGS, ZH_EMBEDDINGS, ZH_EMBEDDINGS)[1]
        assert weights_in(text_of(page, ".ae-selfcross-row")) == {
            tok: round(w, 3) for tok, w in zip(ZH_TOKENS, cross[3])
        }
        # (each of the server's models is drawn as its message arrives: waited for, not read at once)
        expect(page.locator(".ae-selfcross-causal input")).not_to_be_checked()
        eventually(
            page, lambda: _assert_equal(pressed(page.locator(".ae-selfcross-mode button", has_text="交叉注意力")), True)
        )
        eventually(
            page,
            lambda: _assert_equal((heatmap(page)["row"], heatmap(page)["x"]["label"]), (4, "键和值来自：中文句子")),
        )
        s.assert_clean()
        server.assert_clean_log()
    finally:
        server.close()


def test_the_prediction_is_asked_first_and_cross_attention_answers_it(selfcross_page, request):
    s, page = selfcross_page, selfcross_page.page
    _, cross = core.scaled_dot_product_attention(EN_EMBEDDINGS, ZH_EMBEDDINGS, ZH_EMBEDDINGS)
    assert "交叉注意力" in text_of(page, ".ae-selfcross-question")
    assert text_of(page, ".ae-selfcross-feedback") == STRINGS["zh"]["predict_locked"]
    page.locator(".ae-selfcross-check button").click()  # nothing chosen: said, the mode stays
    wait_text(page, ".ae-input-notice", "先选一个预测")
    assert "中文句子“我 爱 机器 学习”" in text_of(page, ".ae-selfcross-roles")
    page.locator(".ae-selfcross-prediction button", has_text="主要分给").click()
    page.locator(".ae-selfcross-check button").click()
    # Checked: cross-attention is drawn on the asked query's row ("machine"), and the verdict names it.
    wait_text(page, ".ae-selfcross-feedback", "预测对了")
    wait_text(page, ".ae-selfcross-roles", "查询 Q 来自英文句子")
    wait_text(page, ".ae-selfcross-row", "查询“machine”的权重")
    said = text_of(page, ".ae-selfcross-feedback")
    assert f"“机器”分到 {cross[2, 2]:.3f}，“学习”也分到 {cross[2, 3]:.3f}" in said, said
    expect(page.locator(".ae-selfcross-skip button")).to_be_hidden()
    s.screenshot(f"selfcross-answered-1280-{request.node.callspec.id}")
    s.assert_clean()


def test_nothing_can_be_tried_before_the_prediction(selfcross_page):
    page = selfcross_page.page
    # The kind of attention (cross-attention is the answer), the mask and the query wait for the prediction.
    for control in (".ae-selfcross-mode button", ".ae-selfcross-query button", ".ae-selfcross-causal input"):
        expect(page.locator(control).first).to_be_disabled()
    tap_row(page, 3)  # a tap on the heatmap: said, nothing moves
    wait_text(page, ".ae-input-notice", STRINGS["zh"]["predict_locked"])
    assert "查询“我”的权重" in text_of(page, ".ae-selfcross-row")
    page.locator(".ae-selfcross-skip button").click()  # skipped: the answer, and the controls open
    wait_text(page, ".ae-selfcross-feedback", "在交叉注意力的热图里")
    expect(page.locator(".ae-selfcross-mode button").first).to_be_enabled()
    selfcross_page.assert_clean()
