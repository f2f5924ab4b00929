"""Every student page on a phone (Chromium's mobile emulation, not a narrow desktop window), in both languages.

The pages are the export's files from ``file://``, as ``serve`` answers them
too (one builder); the live Panel apps on a phone are the textbook's own
tests' (``test_textbook_browser.py``).

The page declares a viewport and its language, so it is laid out at the
phone's width instead of 980 px shrunk to fit; nothing scrolls sideways,
body text is at least 14 px and every control at least 24 px high.
"""

from __future__ import annotations

import pytest

from attention_explorable.site import pages
from playwright.sync_api import expect

from .pages import eventually, settled

pytestmark = pytest.mark.browser

PAGE_FILES = list(pages())  # index.html (the textbook), steps.html, ...

# Font sizes of visible text and heights of visible controls, in every open shadow root.
_MEASURE = """() => {
  const small = [], tiny = [];
  const walk = (root) => {
    for (const el of root.querySelectorAll("*")) {
      if (el.shadowRoot) walk(el.shadowRoot);
      const box = el.getBoundingClientRect();
      if (!box.width || !box.height) continue;
      const style = getComputedStyle(el);
      if (style.visibility === "hidden") continue;
      const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
      if (own && parseFloat(style.fontSize) < 14 && !el.closest("math, sup, sub"))
        small.push(el.tagName + "." + el.className + ": " + style.fontSize + " " + el.textContent.trim().slice(0, 30));
      const control = el.matches("button, input:not([type=hidden]), select, textarea, .noUi-handle");
      if (control && box.height < 24) tiny.push(el.tagName + "." + el.className + ": " + box.height);
    }
  };
  walk(document);
  return {small, tiny, lang: document.documentElement.lang,
          viewport: !!document.querySelector("meta[name=viewport]"),
          scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth};
}"""


# The narrowest common phone in Chinese, a common one in English (a page that fits 360 px fits 390).
@pytest.mark.parametrize("size, language", [((360, 740), "zh"), ((390, 844), "en")], ids=["360", "390-en"])
@pytest.mark.parametrize("page_file", PAGE_FILES)
def test_page_fits_a_phone(static_site, student, page_file, size, language):
    s = student(width=size[0], height=size[1], mobile=True)
    name = pages()[page_file]
    aborted = s.open_offline(
        static_site / {"zh": "", "en": "en"}[language] / page_file, ".ae-readout:visible, .ae-prose"
    )
    settled(s.page)
    m = s.page.evaluate(_MEASURE)
    assert m["viewport"] and m["lang"] == {"zh": "zh-Hans", "en": "en"}[language], m
    assert m["innerWidth"] == size[0], "the page is laid out wider than the phone and zoomed out"
    assert m["scrollWidth"] <= size[0] + 1, f"the page scrolls sideways: {m['scrollWidth']} px"
    assert not m["small"], m["small"][:8]
    assert not m["tiny"], m["tiny"][:8]
    # a plot's title is read whole: a long one wraps rather than being cut at the plot's edge
    cut = s.page.evaluate(
        "() => [...document.querySelectorAll('.ae-pic-title')]"
        ".filter((el) => el.scrollWidth > el.clientWidth + 1).map((el) => el.textContent)"
    )
    assert not cut, cut
    s.screenshot(f"phone-{name}-{size[0]}-{language}")
    s.assert_clean()
    assert aborted == []


def test_the_textbook_on_a_320_px_phone_cuts_no_term_and_shades_what_scrolls(static_site, student):
    """At 320 px: the glossary's Chinese terms stay whole (no break between their characters), the glossary
    is stacked (a row a block: nothing of it scrolls sideways), a display formula's box keeps its shades for
    what would scroll, and a contents entry that wraps keeps its bullet by its first line (the link's
    baseline is its first line's)."""
    s = student(320, 700)
    s.open_offline(static_site / "en" / "index.html", ".ae-toc")
    page = s.page
    glossary = page.locator("table", has_text="注意力").last
    glossary.scroll_into_view_if_needed()
    cells = glossary.evaluate(
        """(t) => [...t.querySelectorAll("td")].filter((td) => /[\u4e00-\u9fff]/.test(td.textContent))
             .map((td) => [td.textContent.trim(), getComputedStyle(td.querySelector("[lang]") || td).wordBreak])"""
    )
    assert cells and all(rule == "keep-all" for _, rule in cells), cells

    def stacked_and_shaded():  # once laid out (a part of the textbook is laid out as it nears the screen)
        table = glossary.evaluate("(t) => [t.scrollWidth <= t.clientWidth + 1, getComputedStyle(t.rows[1]).display]")
        assert table == [True, "block"], table
        shades = page.locator(".ae-math-display").first.evaluate("(m) => getComputedStyle(m).backgroundImage")
        assert shades.count("radial-gradient") == 2, shades

    eventually(page, stacked_and_shaded)
    assert page.locator(".ae-toc a").first.evaluate("(a) => getComputedStyle(a).display") == "inline-flex"
    s.assert_clean()


def test_under_a_finger_the_contents_and_the_video_links_are_tall_targets(static_site, student):
    """On a touch screen each entry of the contents and each of the video's links is at least 36 px tall
    (24 px is the least anywhere)."""
    s = student(390, 844, mobile=True)
    s.open_offline(static_site / "index.html", ".ae-toc")
    heights = s.page.evaluate(
        """() => [...document.querySelectorAll(".ae-toc a, .ae-video .ae-caption a")]
             .map((a) => [a.textContent.trim().slice(0, 20), a.getBoundingClientRect().height])"""
    )
    assert len(heights) > 10 and any("哔哩" in name for name, _ in heights), heights
    assert all(h >= 36 for _, h in heights), [x for x in heights if x[1] < 36]
    s.assert_clean()


@pytest.mark.parametrize("width", [320, 360, 390])
def test_every_display_formula_fits_a_phone_whole(static_site, student, width):
    """No display formula is cut off at 320, 360 or 390 px, in either language: set a little smaller on a
    phone (never below 4.1 % of the screen's width, never above the desktop's size), each fits its box.
    And no table of the text scrolls sideways: the glossary and the cost table are stacked."""
    s = student(width, 844, mobile=True)
    for name in ("index.html", "en/index.html"):
        s.open_offline(static_site / name, ".ae-toc")
        page = s.page
        page.evaluate(  # each part of the textbook is laid out as it nears the screen
            "async () => { for (let y = 0; y < document.body.scrollHeight; y += 400) "
            "{ window.scrollTo(0, y); await new Promise((r) => requestAnimationFrame(r)); } }"
        )
        widths = page.evaluate(
            "() => [...document.querySelectorAll('math[display=block]')]"
            ".map((m) => [m.parentElement.scrollWidth, m.parentElement.clientWidth, m.textContent.slice(0, 30)])"
        )
        assert len(widths) >= 15 and all(w <= box + 1 for w, box, _ in widths), (name, widths)
        # A prose table of four word columns (the glossary, 3.7's cost of a layer) is stacked: each row a
        # block, each cell a line after its column's name; no table of the text scrolls inside its box.
        tables = page.evaluate(
            "() => [...document.querySelectorAll('.ae-prose table')].map((t) => [t.scrollWidth, t.clientWidth, "
            "t.classList.contains('ae-stack'), getComputedStyle(t.rows[1].cells[1], '::before').content])"
        )
        stacked = [t for t in tables if t[2]]
        assert len(stacked) == 2 and all(w <= box + 1 for w, box, _, _ in tables), (name, tables)
        label = '"English："' if name == "index.html" else '"中文: "'  # the glossary's second cell, named
        assert stacked[-1][3] == label, (name, stacked[-1])
    s.assert_clean()


def test_code_on_a_phone_keeps_its_lines_scrolls_in_its_block_and_copies_as_written(static_site, student):
    """At 320 px a long code line does not wrap (a continuation would read as code of another indentation):
    its block scrolls sideways inside the page, which itself does not, and the code a reader selects and
    copies is the code as written."""
    from attention_explorable.content import load_sections

    s = student(320, 700)
    s.open_offline(static_site / "en" / "index.html", ".ae-toc")
    page = s.page
    block = page.locator("pre.ae-code").first
    block.scroll_into_view_if_needed()
    shape = block.evaluate(
        # (frames until its rows are laid out: the block was off screen, its section skipped while it was,
        # content-visibility: auto; at most 200 frames, then what there is is measured)
        """async (pre) => { const shape = () => {
                         const line = parseFloat(getComputedStyle(pre).lineHeight);
                         const pad = parseFloat(getComputedStyle(pre).paddingTop) + parseFloat(getComputedStyle(pre).paddingBottom);
                         return {rows: Math.round((pre.clientHeight - pad) / line), lines: pre.textContent.split("\\n").length,
                                 scroll: pre.scrollWidth, box: pre.clientWidth, page: document.documentElement.scrollWidth,
                                 screen: innerWidth}; };
                     for (let i = 0; i < 200 && shape().rows < shape().lines; i++) await new Promise(requestAnimationFrame);
                     return shape(); }"""
    )
    assert shape["scroll"] > shape["box"], ("no line of the first code block is wider than 320 px", shape)
    assert shape["rows"] <= shape["lines"], ("a code line wrapped", shape)
    assert shape["page"] <= shape["screen"], ("the page scrolls sideways", shape)
    copied = block.evaluate(
        """(pre) => { const sel = getSelection(); sel.selectAllChildren(pre); const text = sel.toString();
                     sel.removeAllRanges(); return text; }"""
    )
    code = next(b for sec in load_sections("en") for b in sec.blocks if b.kind == "code").body.strip("\n").rstrip()
    assert copied.rstrip("\n") == code
    s.assert_clean()


def test_a_power_of_ten_keeps_its_exponent_whole_on_a_narrow_screen(student):
    """ "1.0×10⁻⁴⁴" never breaks after its minus sign ("1.0×10⁻" / "⁴⁴"), with the pages' styles and the
    modules' (each measured at every width from 40 to 200 px)."""
    from importlib import resources

    from attention_explorable import ui

    module_css = resources.files("attention_explorable").joinpath("web", "explorable.css").read_text("utf-8")
    s = student(360, 740, mobile=True)
    for css, wrap in ((ui.CSS, "div"), (module_css, "div class='ae-x'")):
        split = []
        for width in range(40, 200, 4):
            s.page.set_content(
                f"<style>{css}</style><{wrap} style='width:{width}px'>α₁ = 1.0×10<sup>-44</sup>"
                " and α₂ = 3.7×10<sup>-9</sup></div>"
            )
            pieces = s.page.evaluate(
                "() => [...document.querySelectorAll('sup')].map((e) => {"
                " const r = document.createRange(); r.selectNodeContents(e); return r.getClientRects().length; })"
            )
            split += [width for n in pieces if n > 1]
        assert split == [], (wrap, split)


# What a phone shows right under the button a student presses: the part that answers it.
@pytest.mark.parametrize(
    "page_file, pressed, answer, below",
    [
        ("matrix.html", ".ae-matrix-skip button", ".ae-matrix-curve", ".ae-matrix-scores"),
        ("steps.html", ".ae-demonstrate button", ".ae-number-line", ".ae-formula"),
    ],
    ids=["matrix", "steps"],
)
def test_on_a_phone_the_answer_comes_right_under_its_button(static_site, student, page_file, pressed, answer, below):
    s = student(width=390, height=844, mobile=True)
    aborted = s.open_offline(static_site / page_file, ".ae-readout:visible")
    page = s.page
    button = page.locator(pressed).bounding_box()  # (a skip button goes once pressed)
    page.locator(pressed).tap()
    page.locator(answer).first.wait_for(state="visible")
    shown = page.locator(answer).first.bounding_box()
    later = page.locator(below).first.bounding_box()
    # on the same screen as the button (under it, within half a phone's height), before the rest
    assert button["y"] < shown["y"] < button["y"] + 420, (button, shown)
    assert shown["y"] < later["y"], (shown, later)
    s.screenshot(f"phone-answer-{page_file}")
    assert aborted == []


def test_on_a_phone_the_matrix_notes_come_right_under_the_heatmaps_they_explain(static_site, student):
    """The note on the red frames follows the heatmaps, before the other sliders (it came after all of them);
    the slider of d_k, which the question is about, sits right above the heatmaps it moves (it sat below them
    and the note, about 400 px from the weights)."""
    s = student(width=390, height=844, mobile=True)
    s.open_offline(static_site / "matrix.html", ".ae-readout:visible")
    page = s.page
    scores = page.locator(".ae-matrix-scores").first.bounding_box()
    weights = page.locator(".ae-matrix-weights").first.bounding_box()
    note = page.locator(".ae-matrix-notes").first.bounding_box()
    d_k, n_tokens = (page.locator(f".ae-matrix-{name}").first.bounding_box() for name in ("dk", "n"))
    assert weights["y"] + weights["height"] <= note["y"] < weights["y"] + weights["height"] + 120, (weights, note)
    assert note["y"] < n_tokens["y"], (note, n_tokens)
    assert d_k["y"] + d_k["height"] <= scores["y"] < d_k["y"] + d_k["height"] + 40, (d_k, scores)
    assert weights["y"] + weights["height"] - d_k["y"] < 844, "d_k's slider and the weights on one screen"


@pytest.mark.parametrize("width", [320, 360, 390])
def test_the_vectors_readouts_never_leave_an_equals_sign_at_a_lines_end(static_site, student, width):
    """Each "α₁ = 0.422" of the vector's readouts and each result of its formulas stays whole: a line never
    ends on "=" with its number on the next (at 320 px "α₁ =" / "0.422" did)."""
    s = student(width=width, height=740, mobile=True)
    s.open_offline(static_site / "en" / "vector.html", ".ae-vector-weights:visible")
    split = s.page.locator("[data-ae-render=vector]").first.evaluate(
        """(root) => {
          const out = [], walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
          for (let n = walker.nextNode(); n; n = walker.nextNode()) {
            const t = n.textContent;
            for (let i = t.indexOf("="); i >= 0 && i + 2 < t.length; i = t.indexOf("=", i + 1)) {
              const r = document.createRange();
              r.setStart(n, i); r.setEnd(n, i + 1);
              const sign = r.getBoundingClientRect();
              r.setStart(n, i + 2); r.setEnd(n, i + 3);
              const next = r.getBoundingClientRect();
              if (sign.height && next.height && next.top >= sign.bottom - 2) out.push(t.slice(Math.max(0, i - 12), i + 10));
            }
          }
          return out.filter((t) => !t.includes("bigger = more"));  // (a legend's words, not a readout)
        }"""
    )
    assert split == [], split


@pytest.mark.parametrize("width", [320, 360, 390])
def test_the_two_apple_outputs_keep_each_vector_on_one_line(static_site, student, width):
    """Each output vector of the "apple" explorable stays whole (it broke as "[1.46, 0.34," / "0.16]"), and the
    page still fits the phone: a row wraps between its sentence, its vector and its lean instead."""
    s = student(width=width, height=740, mobile=True)
    s.open_offline(static_site / "en" / "contexts.html", ".ae-contexts-outputs")
    page = s.page
    page.locator(".ae-contexts-skip button").click()
    vectors = page.locator(".ae-contexts-outputs b")
    expect(vectors).to_have_count(2)
    lines = vectors.evaluate_all("(bs) => bs.map((b) => b.getClientRects().length)")
    assert lines == [1, 1], lines
    assert page.evaluate("() => document.documentElement.scrollWidth <= innerWidth")


@pytest.mark.parametrize("width", [320, 360, 390])
def test_a_heatmaps_column_words_never_run_together(static_site, student, width):
    """The English words over the self/cross heatmap's columns stand apart (at 390 px "machine" and "learning"
    ran together, at 320 px the axis title went past the page): a horizontal axis's words are drawn at most at
    the size that fits their share of the plot."""
    s = student(width=width, height=740, mobile=True)
    s.open_offline(static_site / "en" / "selfcross.html", ".ae-selfcross-skip button")
    page = s.page
    page.locator(".ae-selfcross-skip button").click()
    page.locator(".ae-selfcross-mode button").nth(1).click()  # self-attention over the English words
    words = page.locator("[data-ae-render=selfcross] .ae-pic-above span:not(.ae-pic-axis-label)")
    expect(words).to_have_text(["I", "love", "machine", "learning"])
    boxes = words.evaluate_all(
        "(spans) => spans.map((s) => { const r = s.getBoundingClientRect(); return [r.left, r.right]; })"
    )
    gaps = [b[0] - a[1] for a, b in zip(boxes, boxes[1:])]
    assert min(gaps) > 0, (gaps, boxes)
    title = page.locator("[data-ae-render=selfcross] .ae-pic-above .ae-pic-axis-label").first
    assert title.evaluate("(t) => t.getBoundingClientRect().right <= innerWidth")
    assert page.evaluate("() => document.documentElement.scrollWidth <= innerWidth")


@pytest.mark.parametrize(
    "page_file, ready", [("contexts.html", ".ae-contexts-input"), ("selfcross.html", ".ae-selfcross-vectors")]
)
def test_word_vectors_listed_before_a_question_stay_whole_at_320_px(static_site, student, page_file, ready):
    """Each "word [a, b, c, d]" an explorable lists before its question, and the "apple"'s "x = [1.00, 1.00,
    0.00]", keeps its vector on one line on the narrowest phone: a line breaks between pairs, not in one."""
    s = student(width=320, height=740, mobile=True)
    s.open_offline(static_site / "en" / page_file, ready)
    pieces = s.page.locator("[data-ae-render] .ae-nobreak:has-text('[')")
    assert pieces.count() >= 4
    lines = pieces.evaluate_all("(els) => els.map((e) => [e.textContent, e.getClientRects().length])")
    assert all(n == 1 for _, n in lines), lines
    assert s.page.evaluate("() => document.documentElement.scrollWidth <= innerWidth")


def test_the_self_cross_word_vectors_sit_right_under_the_question_about_them(static_site, student):
    """The question asks about the listed word vectors: on a phone they come right after its buttons, not
    1,500 px further down after the controls, the heatmap and the readouts."""
    s = student(width=390, height=844, mobile=True)
    s.open_offline(static_site / "selfcross.html", ".ae-selfcross-vectors")
    skip = s.page.locator(".ae-selfcross-skip button").bounding_box()
    vectors = s.page.locator(".ae-selfcross-vectors").first.bounding_box()
    assert 0 < vectors["y"] - skip["y"] < 400, (skip, vectors)
