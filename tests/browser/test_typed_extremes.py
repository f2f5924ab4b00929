"""Whatever a student types into a number box, the box, the slider and the readouts agree, and the server log stays clean.

Probes from the hardening review: 20-digit numbers, values beyond float64,
NaN and infinities, into the vector explorable's query boxes and the steps
explorable's temperature box, on the served pages.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .pages import text_of, wait_text

pytestmark = pytest.mark.browser


def _type(page, box_css: str, raw: str) -> None:
    box = page.locator(f"{box_css} input").first
    box.fill(raw)
    box.press("Enter")


def test_vector_boxes_take_extremes(vector_server, student):
    s = student()
    s.open(vector_server.url() + "?revealed=true", ".ae-vector-output")  # (past its question: its controls open)
    page = s.page
    _type(page, ".ae-query-x-box", "99999999999999999999")
    expect(page.locator(".ae-query-x-box input").first).to_have_value("2")
    wait_text(page, ".ae-input-notice", r"99999999999999999999 超出范围 \[−2, 2\]，已改为 2")
    handle = page.locator(".ae-query-x .noUi-handle").first
    assert float(handle.get_attribute("aria-valuenow")) == 2.0
    wait_text(page, ".ae-vector-scores", r"s₁ = 2\.000")  # q = [2, 0]: s = q·k with k₁ = [1, 0]
    for junk in ("NaN", "inf", "-1e400", "1e400", "0x10", ""):
        _type(page, ".ae-query-y-box", junk)
        expect(page.locator(".ae-query-y-box input").first).to_have_value("0")
    _type(page, ".ae-query-y-box", "-99999999999999999999")
    expect(page.locator(".ae-query-y-box input").first).to_have_value("−2")
    assert "y = [" in text_of(page, ".ae-vector-output")
    s.assert_clean()
    vector_server.assert_clean_log()


def test_steps_temperature_box_takes_extremes(steps_server, student):
    s = student()
    s.open(steps_server.url() + "?revealed=true", ".ae-output")  # (past the step's question: T opens)
    page = s.page
    _type(page, ".ae-temperature-box", "99999999999999999999")
    wait_text(page, ".ae-temperature-readout", r"T = 10\.00")
    expect(page.locator(".ae-temperature-box input").first).to_have_value("10")
    _type(page, ".ae-temperature-box", "1e-400")  # a positive number that float64 rounds to 0: clamped up
    wait_text(page, ".ae-temperature-readout", r"T = 0\.01")
    _type(page, ".ae-temperature-box", "nan")
    expect(page.locator(".ae-temperature-box input").first).to_have_value("0.01")
    wait_text(page, ".ae-input-notice", "nan 不是一个数，仍为 0.01")  # junk is said, the value kept
    _type(page, ".ae-temperature-box", "<i>warm</i>")
    wait_text(page, ".ae-input-notice", "<i>warm</i> 不是一个数")  # (said as text: no markup made of it)
    assert page.locator(".ae-input-notice i").count() == 0
    s.assert_clean()
    steps_server.assert_clean_log()
