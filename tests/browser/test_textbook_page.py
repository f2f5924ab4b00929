"""The exported textbook (``index.html``, the same file ``serve`` answers) is its explorables itself.

Every explorable and exercise is on the page as the browser's own elements
(``attention_explorable.native``), live from the first paint: no BokehJS, no
Panel, no script file, nothing fetched. A deep link opens a part on its state.
"""

from __future__ import annotations

import re

import pytest

from playwright.sync_api import expect

from attention_explorable.content import load_sections
from attention_explorable.explorables import MODULES
from attention_explorable.strings import text

from .pages import wait_text

pytestmark = pytest.mark.browser

#: The textbook's exercises, as the course text places them.
EXERCISES = sum(len(section.exercises()) for section in load_sections())


def test_every_part_is_live_at_once_with_no_framework(static_site, student):
    s = student()
    aborted = s.open_offline(static_site / "index.html", ".ae-toc")
    page = s.page
    assert aborted == []
    assert page.evaluate("() => window.Bokeh === undefined")
    # The explorables written as one module come in one script (page/modules.js) in the one file the page
    # loads, beside it (attention-textbook.js), each rendered.
    assert page.evaluate("() => Array.from(document.scripts, (s) => s.getAttribute('src')).filter(Boolean)") == [
        "attention-textbook.js"
    ]
    for name in MODULES:
        page.locator(f".ae-explorable-{name} [data-ae-render='{name}'] button").first.wait_for(state="attached")
    assert page.locator(".ae-exercise").count() == EXERCISES
    # The last explorable answers a key before anything was scrolled to. (The readout's text as the page
    # holds it: innerText is empty while its part is off the screen, skipped by content-visibility.)
    readout = page.locator(".ae-temperature-readout").first
    before = readout.text_content()
    assert before.startswith("T = "), before
    # (v₂'s slider: the scores and the temperature, which the steps move, wait for the prediction)
    handle = page.locator(".ae-steps .ae-value-2 input[type=range]").first
    handle.focus()
    start = handle.input_value()
    handle.press("ArrowRight")
    page.wait_for_function(
        "(v) => document.querySelector('.ae-steps .ae-value-2 input[type=range]').value !== v", arg=start
    )
    assert page.locator(".ae-explorable-vector .ae-n-plot svg").count() > 0
    # An exercise: a choice made and checked.
    exercise = page.locator(".ae-exercise").filter(has=page.locator(".ae-exercise-choice")).first
    exercise.locator(".ae-exercise-choice input[type=radio]").first.check()
    exercise.locator(".ae-exercise-check button").click()
    wait_text(page, ".ae-exercise-feedback:visible", r"\S")
    assert readout.text_content() == before  # (v₂'s slider is not the temperature)
    assert aborted == []
    s.assert_clean()


def test_a_number_exercise_is_checked_by_enter(static_site, student):
    s = student()
    s.open_offline(static_site / "index.html", ".ae-toc")
    page = s.page
    block = next(b for sec in load_sections("zh") for b in sec.blocks if b.args[:1] == ("q2-alpha2",))
    box = page.locator(".ae-exercise-q2-alpha2 .ae-exercise-input input")
    box.fill(block.options["answer"])
    box.press("Enter")
    wait_text(page, ".ae-exercise-q2-alpha2 .ae-exercise-feedback", text("exercise_right", "zh"))
    s.assert_clean()


def test_a_deep_link_opens_a_part_on_its_state(static_site, student):
    s = student()
    s.open_offline(static_site / "index.html", ".ae-toc", "?steps.step=3&steps.temperature=0.05#sec-3-8")
    page = s.page
    wait_text(page, ".ae-temperature-readout", r"T = 0\.05")
    wait_text(page, ".ae-question", re.escape(text("step3_title", "zh")))
    s.assert_clean()


#: What shows a page is live: a module rendered (the textbook's first), a module page's readouts.
_LIVE = {"index.html": ".ae-module[data-ae-mounted]", "steps.html": ".ae-output"}


@pytest.mark.parametrize("page_file", ["index.html", "steps.html"])
def test_a_malformed_anchor_is_no_anchor(static_site, student, page_file):
    """An address ending in a broken %-escape (a mangled link) opens the page live, with nothing in the console."""
    s = student()
    s.open_offline(static_site / page_file, _LIVE[page_file], "#sec-3-8%E0%A4%A")
    s.page.wait_for_function("() => performance.getEntriesByName('ae-page-mounted').length > 0")
    assert s.page.locator(".ae-n-plot svg").count() > 0
    s.assert_clean()


@pytest.mark.parametrize("page_file", ["index.html", "steps.html"])
def test_a_page_runs_its_own_scripts_and_no_other(static_site, student, page_file):
    """Its Content-Security-Policy allows its inline scripts by their hashes: one slipped in does not run."""
    s = student()
    s.open_offline(static_site / page_file, _LIVE[page_file])
    page = s.page
    page.wait_for_function("() => performance.getEntriesByName('ae-page-mounted').length > 0")  # its own ran
    blocked = page.evaluate("""() => new Promise((resolve) => {
        document.addEventListener('securitypolicyviolation', (e) => resolve(e.violatedDirective), {once: true});
        const el = document.createElement('script');
        el.textContent = 'window.__slipped = true';
        document.head.append(el);
        setTimeout(() => resolve(null), 2000);
    })""")
    assert blocked == "script-src-elem" and page.evaluate("() => window.__slipped") is None
    s.errors.clear()  # the refused script is reported in the console
    s.assert_clean()


def test_no_line_of_the_chinese_text_begins_with_the_punctuation_after_a_formula(static_site, student):
    """On a 360 px phone, every inline formula followed by "，" or "。" (and the like) sits on one line with it."""
    s = student(360, 800, mobile=True)
    s.open_offline(static_site / "index.html", ".ae-toc")
    # The whole text laid out (its sections are content-visibility: auto), then each kept pair measured.
    lines = s.page.evaluate("""() => {
      const spans = [];
      const walk = (root) => { for (const el of root.querySelectorAll('*')) {
        if (el.classList.contains('ae-nobreak') && el.querySelector('math')) spans.push(el);  // (a formula and its mark)
        if (el.shadowRoot) walk(el.shadowRoot); } };
      walk(document);
      for (const el of document.querySelectorAll('.ae-section > *')) el.style.contentVisibility = 'visible';
      return spans.map((el) => { const math = el.querySelector('math').getBoundingClientRect();
        const range = document.createRange(); range.setStart(el.lastChild, 0); range.setEnd(el.lastChild, 1);
        const mark = range.getBoundingClientRect();
        return [el.textContent.slice(-1), Math.abs(mark.bottom - math.bottom) < math.height, mark.width > 0]; });
    }""")
    assert len(lines) > 50, len(lines)  # the Chinese text has many formulas followed by its punctuation
    apart = [mark for mark, together, laid_out in lines if laid_out and not together]
    assert not apart, apart
    s.assert_clean()


def test_the_textbook_without_its_script_file_says_so_at_its_top(static_site, student, tmp_path):
    """Copied without ``attention-textbook.js``, the textbook says which file is missing, once, at its top."""
    from attention_explorable.native import TEXTBOOK_SCRIPT

    alone = tmp_path / "index.html"
    alone.write_text((static_site / "index.html").read_text("utf-8"), "utf-8")
    s = student()
    s.open_offline(alone, ".ae-toc")
    missing = s.page.locator(".ae-script-missing")
    expect(missing).to_be_visible()
    expect(missing).to_contain_text(TEXTBOOK_SCRIPT)
    assert missing.evaluate("(el) => el.getBoundingClientRect().top < innerHeight")
    # With the file beside it, the same page says nothing of the kind.
    s.errors.clear()  # (the missing file is reported in the console)
    s.page.goto((static_site / "index.html").resolve().as_uri())
    s.page.wait_for_function("() => performance.getEntriesByName('ae-page-mounted').length > 0")
    expect(s.page.locator(".ae-script-missing")).to_be_hidden()


@pytest.mark.parametrize("language", ["zh", "en"])
def test_a_line_of_text_stays_short_enough_to_follow_on_a_wide_screen(static_site, student, language):
    """At 1280 px the text's lines are about 40 Chinese or 80 Latin characters (42em), not the page's
    width; an explorable keeps the page's width."""
    s = student(1280, 900)
    aborted = s.open_offline(static_site / {"zh": "", "en": "en"}[language] / "index.html", ".ae-toc")
    widths = s.page.evaluate(
        """() => {
          const p = [...document.querySelectorAll('.ae-prose p:not(.ae-caption)')].find((e) => e.textContent.length > 200);
          const em = parseFloat(getComputedStyle(p).fontSize);
          const box = (e) => e.getBoundingClientRect();
          const display = document.querySelector('.ae-prose > .ae-math-display');
          let before = display.previousElementSibling;  // the paragraph the formula belongs to
          while (before && before.tagName !== 'P') before = before.previousElementSibling;
          const column = box(before), formula = box(display);
          const exercise = box(document.querySelector('[data-ae-render="exercise"]'));
          return {p: column.width / em,
                  explorable: box(document.querySelector('[data-ae-render]')).width / em,
                  // a display formula is centred over the text's column; an exercise is no wider than it
                  formula: [formula.left - column.left, formula.right - column.right],
                  exercise: exercise.right - column.right};
        }"""
    )
    assert widths["p"] <= 42.01 and widths["explorable"] > 60, widths
    assert all(abs(x) <= 1 for x in widths["formula"]) and widths["exercise"] <= 1, widths
    assert aborted == []
