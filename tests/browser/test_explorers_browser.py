"""A student uses the three explorables of section 3.7 in Chromium."""

import re
import time

import pytest

from ..test_matrix import reference
from .test_steps_browser import text_of, wait_text

pytestmark = pytest.mark.browser


def labelled(txt: str, label: str) -> float:
    m = re.search(re.escape(label) + r"\s*=\s*(-?[0-9.]+)", txt)
    assert m, f"{label!r} not in {txt!r}"
    return float(m.group(1))


def wait_change(page, css: str, old: str, timeout: float = 15.0) -> str:
    """Wait until the text of ``css`` differs from ``old``; return the new text."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        now = text_of(page, css)
        if now != old:
            return now
        page.wait_for_timeout(100)
    raise AssertionError(f"{css} still reads {old!r} after {timeout} s")


def press(page, css: str, key: str = "ArrowRight") -> None:
    handle = page.locator(f"{css} .noUi-handle").first
    handle.focus()
    handle.press(key)


# --- 3.7.7 scaled dot-product attention ---------------------------------------

def max_weight(page) -> float:
    txt = text_of(page, ".ae-matrix-max-weight")
    m = re.search(r"\n\s*([0-9]\.[0-9]{4})\s*\n", txt)
    assert m, txt
    return float(m.group(1))


def expected_max(**kw) -> float:
    return round(float(reference(**kw)[1].max(axis=1).mean()), 4)


def test_matrix_scaling_dk_and_causal(matrix_server, student):
    s = student()
    page = s.page
    s.open(matrix_server.url(), ".ae-matrix-max-weight")
    assert max_weight(page) == expected_max()

    # Switch the √d_k scaling off: the weights get sharper.
    old = text_of(page, ".ae-matrix-max-weight")
    page.locator(".ae-matrix-scaled input").click()
    wait_change(page, ".ae-matrix-max-weight", old)
    assert max_weight(page) == expected_max(scaled=False)

    # d_k 4 -> 5 with one key press.
    old = text_of(page, ".ae-matrix-max-weight")
    press(page, ".ae-matrix-dk")
    wait_change(page, ".ae-matrix-max-weight", old)
    assert max_weight(page) == expected_max(scaled=False, d_k=5)
    assert "d_k = 5" in text_of(page, ".ae-matrix-max-weight")

    # Causal mask: every row still sums to 1, the first row is all on itself.
    old = text_of(page, ".ae-matrix-max-weight")
    page.locator(".ae-matrix-causal input").click()
    wait_change(page, ".ae-matrix-max-weight", old)
    assert max_weight(page) == expected_max(scaled=False, d_k=5, causal=True)
    assert re.findall(r"[0-9]\.[0-9]{3}", text_of(page, ".ae-matrix-row-sums")) == ["1.000"] * 4
    s.screenshot("matrix-1280")

    # A new seed.
    old = text_of(page, ".ae-matrix-max-weight")
    page.locator(".ae-matrix-seed input").fill("3")
    page.locator(".ae-matrix-seed input").press("Enter")
    wait_change(page, ".ae-matrix-max-weight", old)
    assert max_weight(page) == expected_max(scaled=False, d_k=5, causal=True, seed=3)
    s.assert_clean()
    matrix_server.assert_clean_log()


# --- phone width ------------------------------------------------------------------

@pytest.mark.parametrize("name, ready", [("matrix", ".ae-matrix-max-weight")])
def test_phone_width_has_no_horizontal_scroll(name, ready, request, student):
    server = request.getfixturevalue(f"{name}_server")
    s = student(width=390, height=844)
    s.open(server.url(), ready)
    s.assert_fits_phone(f"{name}-390")
    server.assert_clean_log()
