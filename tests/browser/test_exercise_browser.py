"""A student works the exercises in Chromium: on the exported textbook page with no network,
and on the served textbook."""

import re

from attention_explorable.strings import STRINGS
import urllib.request

import pytest

from attention_explorable import content

from ..conftest import StudentPage
from .pages import settled, text_of, wait_text

pytestmark = pytest.mark.browser

BLOCKS = {b.args[0]: b for s in content.load_sections() for b in s.exercises()}
CHOICE = next(k for k, b in BLOCKS.items() if b.options["kind"] == "choice")


@pytest.fixture(scope="module")
def saved_exercises(static_site):
    """The exported textbook page: every exercise, built with the page."""
    return static_site / "index.html"


@pytest.fixture(scope="module")
def textbook_all(textbook_server):
    """The URL of the fully built textbook, requested once so that the server's one-time
    work for a full page (caches filled on a process's first build) is done before a browser waits."""
    url = textbook_server.url() + "?explorables=all"
    with urllib.request.urlopen(url, timeout=600) as r:
        assert r.status == 200
    return url


@pytest.fixture(scope="module", params=["static", "served"])
def exercise_page(request, chromium, saved_exercises, textbook_server, textbook_all):
    """Exercises as a student gets them: the exported page with every request but file:// aborted,
    or the served textbook with everything built (``?explorables=all``). One page of each for the
    tests here, as one student works through the exercises: each test works exercises of its own."""
    s = StudentPage(chromium)
    try:
        if request.param == "static":
            aborted = s.open_offline(saved_exercises, ".ae-exercise-q2-alpha2 .ae-exercise-check button")
            yield s
            assert aborted == []
        else:
            s.open(textbook_all, ".ae-exercise-q2-alpha2 .ae-exercise-check button")
            yield s
            textbook_server.assert_clean_log()
    finally:
        s.close()


def feedback(page, ex_id: str) -> str:
    return text_of(page, f".ae-exercise-{ex_id} .ae-exercise-feedback")


def test_number_exercise_check_hint_and_reveal(exercise_page, request):
    s, page = exercise_page, exercise_page.page
    sel = ".ae-exercise-q2-alpha2"
    q2 = page.locator(sel)
    q2.scroll_into_view_if_needed()
    assert page.locator(f"{sel} .ae-exercise-feedback").is_hidden()
    assert page.locator(f"{sel} .ae-exercise-answer").is_hidden()
    box = q2.locator(".ae-exercise-input input")
    check = q2.locator(".ae-exercise-check button")

    check.click()
    wait_text(page, f"{sel} .ae-exercise-feedback", "请先输入答案")
    box.fill("零点一<b>")
    check.click()
    said = STRINGS["zh"]["exercise_malformed"].format(raw="零点一<b>")  # (the forms it takes, and the echo)
    wait_text(page, f"{sel} .ae-exercise-feedback", re.escape(said))
    assert page.locator(f"{sel} .ae-exercise-feedback b").count() == 0  # the echo is text, not markup

    box.fill("0.422")
    check.click()
    wait_text(page, f"{sel} .ae-exercise-feedback", "还不对")
    assert "先算出三个分数" in feedback(page, "q2-alpha2")  # the hint, with its formulas
    assert page.locator(f"{sel} .ae-exercise-feedback math").count() >= 2
    box.fill("0.58")  # alpha_3, 0.576, rounded: a known slip has its own hint
    check.click()
    wait_text(page, f"{sel} .ae-exercise-feedback", "题目问的是")
    assert "先算出三个分数" not in feedback(page, "q2-alpha2")

    # Typing alone changes nothing shown: the feedback is that of the last check.
    box.fill("0.2115")
    settled(page)
    assert "还不对" in feedback(page, "q2-alpha2")
    box.press("Enter")  # Enter checks too; 0.2115 is exactly the tolerance away
    wait_text(page, f"{sel} .ae-exercise-feedback", "正确")
    assert "先算出" not in feedback(page, "q2-alpha2")

    # A right answer opens the worked answer at once: the student reads why.
    reveal = q2.locator(".ae-exercise-reveal button")
    wait_text(page, f"{sel} .ae-exercise-answer", "参考答案")
    assert "0.212" in text_of(page, f"{sel} .ae-exercise-answer")
    assert reveal.inner_text().strip() == "隐藏解答"
    s.screenshot(f"exercise-q2-1280-{request.node.callspec.id}")
    reveal.click()
    page.locator(f"{sel} .ae-exercise-answer").wait_for(state="hidden", timeout=10_000)
    assert reveal.inner_text().strip() == "显示解答"
    reveal.click()
    wait_text(page, f"{sel} .ae-exercise-answer", "参考答案")
    s.assert_clean()


def test_choice_exercise_needs_a_choice_then_judges_it(exercise_page):
    s, page = exercise_page, exercise_page.page
    block, sel = BLOCKS[CHOICE], f".ae-exercise-{CHOICE}"
    ex = page.locator(sel)
    ex.scroll_into_view_if_needed()
    # The options are shown as rendered text with their formulas; the radios carry the letters.
    # (its text, not its innerText: a part the explorables rendered above it may push out of view is not
    # laid out, content-visibility: auto, and has no innerText until it comes back)
    wait_text(page, f"{sel} .ae-exercise-options", r"D\.")
    options = page.locator(f"{sel} .ae-exercise-options").first.text_content()
    assert all(f"{letter}." in options for letter in "ABCD"), options
    assert page.locator(f"{sel} .ae-exercise-options math").count() >= 1
    assert ex.locator("input[type=radio]:checked").count() == 0
    ex.locator(".ae-exercise-check button").click()
    wait_text(page, f"{sel} .ae-exercise-feedback", "请先选择一个选项")
    letters = [box.get_attribute("value") for box in ex.locator(".ae-exercise-choice input[type=radio]").all()]
    assert letters == ["A", "B", "C", "D"]
    radios = ex.locator(".ae-exercise-choice input[type=radio]")
    wrong = next(x for x in letters if x != block.options["answer"])
    # A tap on an option's words chooses it (not only on its small radio).
    ex.locator(".ae-exercise-option-text").nth(letters.index(wrong)).click()
    assert radios.nth(letters.index(wrong)).is_checked()
    ex.locator(".ae-exercise-check button").click()
    wait_text(page, f"{sel} .ae-exercise-feedback", "还不对")
    # the hint about the option chosen (its own ---hint-X), not the exercise's general one
    own = re.sub(r"\$[^$]*\$", "", block.parts[f"hint-{wrong}"]).split("；")[0]
    assert own in feedback(page, CHOICE) and "想一想" not in feedback(page, CHOICE)
    assert page.locator(f"{sel} .ae-exercise-answer").is_hidden()  # a wrong choice keeps the answer shut
    radios.nth(letters.index(block.options["answer"])).check()
    settled(page)
    assert "还不对" in feedback(page, CHOICE)  # until checked again
    ex.locator(".ae-exercise-check button").click()
    wait_text(page, f"{sel} .ae-exercise-feedback", "正确")
    assert ex.locator("input[type=radio]:checked").count() == 1
    wait_text(page, f"{sel} .ae-exercise-answer", "参考答案")  # and why, at once
    s.assert_clean()


def test_text_exercise_is_written_then_compared(exercise_page):
    s, page = exercise_page, exercise_page.page
    sel = ".ae-exercise-q1-qkv"
    ex = page.locator(sel)
    ex.scroll_into_view_if_needed()
    assert ex.locator(".ae-exercise-check").count() == 0  # not graded
    area = ex.locator(".ae-exercise-input textarea")
    area.fill("查询是要找的信息，键用来比对，值是内容。")
    ex.locator(".ae-exercise-reveal button").click()
    wait_text(page, f"{sel} .ae-exercise-answer", "参考答案")
    assert area.input_value() == "查询是要找的信息，键用来比对，值是内容。"
    assert page.locator(f"{sel} .ae-exercise-feedback").is_hidden()
    s.assert_clean()


def test_exercises_on_a_phone(saved_exercises, textbook_server, textbook_all, student):
    s = student(width=390, height=844, mobile=True)
    s.open_offline(saved_exercises, ".ae-exercise-q2-alpha2 .ae-exercise-check button")
    page = s.page
    box = page.locator(".ae-exercise-q2-alpha2 .ae-exercise-input input")
    box.fill("x" * 300)
    page.locator(".ae-exercise-q2-alpha2 .ae-exercise-check button").click()
    wait_text(page, ".ae-exercise-q2-alpha2 .ae-exercise-feedback", re.escape("x" * 40 + "…"))
    page.locator(".ae-exercise-q2-alpha2 .ae-exercise-reveal button").click()
    page.locator(f".ae-exercise-{CHOICE} .ae-exercise-check button").click()
    wait_text(page, f".ae-exercise-{CHOICE} .ae-exercise-feedback", "请先选择一个选项")
    page.locator(".ae-exercise-q1-qkv .ae-exercise-reveal button").click()
    wait_text(page, ".ae-exercise-q1-qkv .ae-exercise-answer", "参考答案")
    s.assert_fits_phone("exercise-static-390")

    served = student(width=390, height=844, mobile=True)
    served.open(textbook_all, ".ae-exercise-q2-alpha2 .ae-exercise-check button")
    q2 = served.page.locator(".ae-exercise-q2-alpha2")
    q2.scroll_into_view_if_needed()
    q2.locator(".ae-exercise-input input").fill("0.422")
    q2.locator(".ae-exercise-check button").click()
    wait_text(served.page, ".ae-exercise-q2-alpha2 .ae-exercise-feedback", "还不对")
    q2.locator(".ae-exercise-reveal button").click()
    wait_text(served.page, ".ae-exercise-q2-alpha2 .ae-exercise-answer", "参考答案")
    served.assert_fits_phone("exercise-served-390", still_frames=60)
    q2.screenshot(path=str(served.screenshot("exercise-served-390").with_name("exercise-q2-served-390.png")))
    textbook_server.assert_clean_log()
