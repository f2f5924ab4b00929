"""A student reads the textbook page in Chromium: math, exercises, explorables."""

import re

import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import expect

from attention_explorable import content, core, scenarios
from attention_explorable.modules import MODULES
from attention_explorable.textbook import _sections

from .pages import wait_text

pytestmark = pytest.mark.browser

_ALL_PROSE_TEXT = """() => {
  const out = [];
  function walk(root) {
    for (const el of root.querySelectorAll('*')) {
      if (el.shadowRoot) {
        if (el.classList.contains('ae-prose')) {
          for (const c of el.shadowRoot.children) {
            if (!['STYLE', 'LINK'].includes(c.tagName)) out.push(c.innerText);
          }
        }
        walk(el.shadowRoot);
      }
    }
  }
  walk(document);
  return out.join('\\n');
}"""


def expected_math_spans(with_exercises: bool = True) -> int:
    """Math spans in the always-visible parts of the page (not hidden answers or hints)."""
    n = 0
    for section in _sections():
        for b in section.blocks:
            if b.kind in ("markdown", "definition", "proposition", "proof"):
                src = b.body
            elif b.kind == "exercise" and with_exercises:
                src = b.parts.get("question", "")
            else:
                continue
            html = content.markdown_to_html(src)
            n += len(re.findall(r"<math[ >]", html))
    return n


def test_textbook_reads_with_math_exercises_and_explorables(textbook_server, student):
    s = student()
    page = s.page
    s.open(textbook_server.url(), ".ae-textbook")
    count_math = (
        "() => (function count(root) { let n = root.querySelectorAll('math').length;"
        " for (const el of root.querySelectorAll('*')) if (el.shadowRoot) n += count(el.shadowRoot);"
        " return n; })(document)"
    )
    expected = expected_math_spans(with_exercises=False)
    assert expected > 100
    page.wait_for_function(f"() => ({count_math})() >= {expected}", timeout=30_000)
    visible = page.evaluate(_ALL_PROSE_TEXT)
    assert "3.7 注意力机制" in visible and "3.8" in visible
    assert "$" not in visible, re.findall(r".{20}\$.{20}", visible)[:5]
    assert "\\(" not in visible and "\\[" not in visible

    # The first explorable comes with the page; each further one is built as
    # the reader scrolls near it.
    names = [b.args[0] for sec in _sections() for b in sec.blocks if b.kind == "explorable"]
    assert sorted(names) == sorted(MODULES)
    # What shows a part is live: its module's root.
    drawn = {name: f".ae-{name}" for name in names}
    page.locator(f".ae-explorable-{names[0]} {drawn[names[0]]}").first.wait_for(state="attached", timeout=30_000)
    # A part the page would build at load comes from the server: a guess at how long to give it, since
    # nothing can be waited for when the right outcome is that nothing comes.
    page.wait_for_timeout(1500)
    assert page.locator(".ae-explorable-contexts canvas").count() == 0  # far below (3.8.1): not built yet
    for name in names[1:]:
        page.locator(f".ae-explorable-{name}").first.scroll_into_view_if_needed()
        page.locator(f".ae-explorable-{name} {drawn[name]}").first.wait_for(state="attached", timeout=30_000)
    # So is each exercise; then every formula of the questions is on the page too.
    ids = [b.args[0] for sec in _sections() for b in sec.blocks if b.kind == "exercise"]
    assert page.locator(f".ae-exercise-{ids[-1]}").count() == 0
    for ex_id in ids:
        # Its placeholder, or the exercise itself once it came (the scroll before may have brought it near):
        # whichever is there when the scroll looks, looked for again if the placeholder gave way mid-scroll.
        target = page.locator(f".ae-load-{ex_id}, .ae-exercise-{ex_id}").first
        for attempt in range(3):
            try:
                target.scroll_into_view_if_needed()
                break
            except PlaywrightError as exc:
                assert "not attached" in str(exc) and attempt < 2, exc
        page.locator(f".ae-exercise-{ex_id}").first.wait_for(state="attached", timeout=30_000)
    assert page.locator(".ae-load").count() == 0
    assert page.evaluate(count_math) >= expected_math_spans(with_exercises=True)

    # Exercise Q2: malformed, wrong, then right; then reveal the worked answer.
    q2 = page.locator(".ae-exercise-q2-alpha2")
    box = q2.locator(".ae-exercise-input input")
    box.fill("零点一")
    box.press("Enter")
    q2.locator(".ae-exercise-check button").click()
    wait_text(page, ".ae-exercise-q2-alpha2 .ae-exercise-feedback", "请输入一个数字")
    box.fill("0.422")
    box.press("Enter")
    q2.locator(".ae-exercise-check button").click()
    wait_text(page, ".ae-exercise-q2-alpha2 .ae-exercise-feedback", "还不对")
    box.fill("0.212")
    box.press("Enter")
    q2.locator(".ae-exercise-check button").click()
    wait_text(page, ".ae-exercise-q2-alpha2 .ae-exercise-feedback", "正确")
    wait_text(page, ".ae-exercise-q2-alpha2 .ae-exercise-answer", "参考答案")  # a right answer opens it

    # Exercise Q3 (choice): nothing is chosen at first; the right letter checks as right.
    q3_block = next(b for sec in _sections() for b in sec.exercises() if b.options["kind"] == "choice")
    q3 = page.locator(f".ae-exercise-{q3_block.args[0]}")
    assert q3.locator("input[type=radio]:checked").count() == 0
    q3.locator(".ae-exercise-check button").click()
    wait_text(page, f".ae-exercise-{q3_block.args[0]} .ae-exercise-feedback", "请先选择一个选项")
    letters = [box.get_attribute("value") for box in q3.locator(".ae-exercise-choice input[type=radio]").all()]
    q3.locator(".ae-exercise-choice input[type=radio]").nth(letters.index(q3_block.options["answer"])).check()
    q3.locator(".ae-exercise-check button").click()
    wait_text(page, f".ae-exercise-{q3_block.args[0]} .ae-exercise-feedback", "正确")

    # The steps explorer works inside the page: a prediction, the demonstration, then the score's slider
    # (greyed until then: nothing to try before the prediction).
    steps = page.locator(".ae-explorable-steps")
    handle = steps.locator(".ae-score-diff input[type=range]").first  # its module, as on the student page
    handle.scroll_into_view_if_needed()
    expect(handle).to_be_disabled()
    steps.locator(".ae-prediction input").first.fill("6")
    steps.locator(".ae-demonstrate button").first.click()
    expect(handle).to_be_enabled()
    wait_text(page, ".ae-explorable-steps .ae-weight-2", r"α₂ = 0\.500")  # the step's end: equal scores
    handle.focus()
    handle.press("ArrowRight")
    diff = scenarios.get_step(1).target["score_diff"] + 0.1  # one slider step
    a2 = core.softmax([0.0, diff])[1]
    wait_text(page, ".ae-explorable-steps .ae-weight-2", rf"α₂ = {a2:.3f}")

    # The video loads nothing until a source is chosen; the click inserts that source's player
    # (tests/browser/test_video_browser.py checks every source).
    requested = []
    page.route(
        "**/*youtube*/**",
        lambda route: (requested.append(route.request.url), route.fulfill(status=200, body="<html></html>")),
    )
    assert page.locator("iframe").count() == 0
    assert s.external_requests == []  # math, fonts and scripts all come from this server
    s.screenshot("textbook-1280")
    page.locator(".ae-video-youtube").click()
    page.locator("iframe.ae-video-frame").wait_for(state="attached", timeout=10_000)
    assert "youtube-nocookie.com/embed/" in page.locator("iframe.ae-video-frame").get_attribute("src")
    s.assert_clean()
    textbook_server.assert_clean_log()


def test_textbook_on_a_phone(textbook_server, student):
    s = student(width=390, height=844)
    s.open(textbook_server.url(), ".ae-textbook")
    s.assert_fits_phone("textbook-390", still_frames=90)


# --- the English edition (no URL selects it yet: tests/apps/textbook_en.py builds it) -----------

_CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture(scope="module")
def textbook_en_server():
    from ..conftest import ServedApp

    app = ServedApp("tests/apps/textbook_en.py")
    yield app
    app.close()


def test_english_textbook_reads_in_english(textbook_en_server, student):
    s = student()
    page = s.page
    # Everything built with the page: nothing moves while the reader works below.
    s.open(textbook_en_server.url() + "?explorables=all", ".ae-textbook")
    assert page.evaluate("document.documentElement.lang") == "en"
    sections = _sections("en")
    expected = sum(
        len(re.findall(r"<math[ >]", content.markdown_to_html(b.body)))
        for sec in sections
        for b in sec.blocks
        if b.kind in ("markdown", "definition", "proposition", "proof")
    )
    count_math = (
        "() => (function count(root) { let n = root.querySelectorAll('math').length;"
        " for (const el of root.querySelectorAll('*')) if (el.shadowRoot) n += count(el.shadowRoot);"
        " return n; })(document)"
    )
    page.wait_for_function(f"() => ({count_math})() >= {expected}", timeout=30_000)
    visible = page.evaluate(_ALL_PROSE_TEXT)
    assert "3.7 The attention mechanism" in visible and "Learning objectives." in visible
    assert "$" not in visible, re.findall(r".{20}\$.{20}", visible)[:5]
    # Chinese only where the English text means it: the glossary's second column.
    prose, glossary = visible.rsplit("Glossary (English–Chinese)", 1)
    assert not _CJK.search(prose), [line for line in prose.splitlines() if _CJK.search(line)][:5]
    assert "注意力" in glossary

    # A folded check opens; a step's checked question answers in English.
    check = page.locator("details.ae-proof", has_text="Answer · Step 2").first
    check.scroll_into_view_if_needed()
    assert not check.evaluate("d => d.open")
    check.locator("summary").click()
    assert check.evaluate("d => d.open") and "0.881" in check.inner_text()
    ex = page.locator(".ae-exercise-step2-check")
    ex.first.wait_for(state="attached", timeout=30_000)
    box = ex.locator(".ae-exercise-input input")
    box.fill("9.05")
    box.press("Enter")
    ex.locator(".ae-exercise-check button").click()
    wait_text(page, ".ae-exercise-step2-check .ae-exercise-feedback", "Not yet")
    box.fill("2.95")
    box.press("Enter")
    ex.locator(".ae-exercise-check button").click()
    wait_text(page, ".ae-exercise-step2-check .ae-exercise-feedback", "Right")
    wait_text(page, ".ae-explorable-steps", "Demonstrate")
    assert s.external_requests == []
    page.evaluate("window.scrollTo(0, 0)")
    s.screenshot("textbook-en-1280")
    s.assert_clean()
    textbook_en_server.assert_clean_log()


def test_english_textbook_on_a_phone(textbook_en_server, student):
    s = student(width=390, height=844, mobile=True)
    s.open(textbook_en_server.url(), ".ae-textbook")
    assert s.page.evaluate("document.documentElement.lang") == "en"
    s.assert_fits_phone("textbook-en-390", still_frames=90)
