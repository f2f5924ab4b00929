"""Deep links on the served pages: the server opens the linked view (on a student page the address also
follows the controls: test_static_site)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .pages import text_of, wait_text

pytestmark = pytest.mark.browser


def test_a_link_to_step_3_at_a_low_temperature(steps_server, student):
    s = student()
    s.open(steps_server.url() + "?step=3&temperature=0.05&score_diff=2&value_1=2&value_2=10", ".ae-output")
    page = s.page
    wait_text(page, ".ae-temperature-readout", r"T = 0\.05")
    wait_text(page, ".ae-question", "调低温度")
    readouts = text_of(page, ".ae-readouts")
    page.locator(".ae-step-2 button").click()
    wait_text(page, ".ae-question", "提高第二个分数")
    again = student()
    again.open(steps_server.url() + "?step=3&temperature=0.05", ".ae-output")
    wait_text(again.page, ".ae-temperature-readout", r"T = 0\.05")
    assert text_of(again.page, ".ae-readouts") == readouts
    s.assert_clean()
    steps_server.assert_clean_log()


def test_bad_values_are_said_and_never_reach_the_log(steps_server, student):
    s = student()
    s.open(steps_server.url() + "?temperature=1e400&value_1=-99&step=%3Cb%3E", ".ae-output")
    page = s.page
    wait_text(page, ".ae-input-notice", r"temperature=1e400 不是可用的值，已忽略")
    wait_text(page, ".ae-input-notice", r"value_1=-99 超出范围 \[−20, 20\]，已改为 −20")
    wait_text(page, ".ae-input-notice", r"step=<b> 不是可用的值")  # shown as text, not markup
    assert page.locator(".ae-input-notice b").count() == 0
    assert page.locator(".ae-value-1-box input").input_value() == "−20"
    s.assert_clean()
    steps_server.assert_clean_log()


def test_the_textbook_reads_each_explorables_prefix_and_lands_on_its_anchor(textbook_server, student):
    s = student()
    s.open(textbook_server.url() + "?vector.query_x=-1.5&steps.step=3#sec-3-8", ".ae-vector-output")
    page = s.page
    wait_text(page, ".ae-vector-output", r"y = \[")
    assert page.locator(".ae-query-x-box input").input_value() == "−1.5"
    page.wait_for_function("() => window.scrollY > 1000")  # the anchor, although the content came late
    # the steps explorable is built as the reader nears it, with its own link
    page.locator(".ae-explorable-steps").first.scroll_into_view_if_needed()
    wait_text(page, ".ae-question", "调低温度", timeout=30_000)
    s.assert_clean()
    textbook_server.assert_clean_log()


def test_a_reload_keeps_the_typed_answer_of_an_exercise_built_on_approach(textbook_server, student):
    s = student()
    s.open(textbook_server.url(), ".ae-vector-output")
    page = s.page
    box = page.locator(".ae-exercise-q2-alpha2 .ae-exercise-input input")
    page.locator(".ae-load-q2-alpha2, .ae-exercise-q2-alpha2").first.scroll_into_view_if_needed()
    box.wait_for(timeout=30_000)
    box.fill("0.212")
    page.wait_for_function("() => location.search.includes('q2-alpha2.response=0.212')")
    page.reload()
    page.locator(".ae-vector-output").first.wait_for()
    page.locator(".ae-load-q2-alpha2, .ae-exercise-q2-alpha2").first.scroll_into_view_if_needed()
    expect(box).to_have_value("0.212", timeout=30_000)
    s.assert_clean()
    textbook_server.assert_clean_log()
