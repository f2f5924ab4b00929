"""The server keeps the state: a student's changes reach its parameters, and its changes are drawn."""

import pytest

from ..conftest import ServedApp
from .pages import text_of, wait_text
from .test_steps_browser import readout_number

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def server():
    app = ServedApp("tests/apps/server_state.py")
    yield app
    app.close()


def test_state_travels_both_ways(server, student):
    s = student()
    page = s.page
    s.open(server.url(), ".ae-output")
    wait_text(page, ".ae-server-state", r"step=1 T=1 diff=1 pred=\[\]")

    handle = page.locator(".ae-score-diff .noUi-handle").first
    handle.focus()
    handle.press("ArrowLeft")
    wait_text(page, ".ae-server-state", r"diff=0\.9 ")  # on the slider's grid, not 0.8999999999999999
    page.locator(".ae-prediction input").fill("7")
    wait_text(page, ".ae-server-state", r"pred=\[7\]")
    page.locator(".ae-step-2 button").click()
    wait_text(page, ".ae-server-state", r"step=2 T=1 diff=0 pred=\[\]")

    page.locator(".ae-server-jump button").click()  # the server changes the state
    wait_text(page, ".ae-temperature-readout", r"T = 0\.05")
    wait_text(page, ".ae-question", "第 3 步")
    assert readout_number(page, ".ae-output") == pytest.approx(10.0, abs=1e-4)
    assert page.locator(".ae-temperature-box input").input_value() == "0.05"
    assert "server: step=3 T=0.05" in text_of(page, ".ae-server-state")
    s.assert_clean()
    server.assert_clean_log()
