"""The exported pages in the two other engines a class meets: Firefox (Debian's firefox-esr, driven over
WebDriver BiDi by Puppeteer) and Safari's engine (WebKitGTK's MiniBrowser, driven by Selenium through
WebKitWebDriver, on a virtual screen). From ``file://``: the head trains the very numbers of the Python oracle in
each (float64 arithmetic is the same everywhere), and the textbook answers a key.
"""

from __future__ import annotations

import glob
import json
import math
import os
import re
import shutil
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor, TimeoutError
from pathlib import Path

import pytest

from attention_explorable.views import head

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
FIREFOX = shutil.which("firefox-esr") or "/usr/bin/firefox-esr"
WEBKIT_DRIVER = shutil.which("WebKitWebDriver") or "/usr/bin/WebKitWebDriver"
MINIBROWSER = next(iter(sorted(glob.glob("/usr/lib/*/webkit2gtk-4.*/MiniBrowser"))), "")
#: Every resource a page loaded, as the page itself saw it (a page from a file must load nothing else).
_RESOURCES = "return performance.getEntriesByType('resource').map((e) => e.name)"


def _missing(what: str) -> None:
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{what} is missing; under CI=true the cross-engine tests must run", pytrace=False)
    pytest.skip(f"{what} is missing")


def _readout(text: str) -> tuple[int, str, str]:
    m = re.search(r"(\d+)\D+?([0-9.]+)\D+?(\d+)%", text)
    assert m, text
    return int(m.group(1)), m.group(2), m.group(3)


def _oracle(steps: int) -> tuple[int, str, str]:
    run = head.start()
    for _ in range(steps):
        run.step()
    # (The page writes JavaScript's toFixed: a share of 12.5 % is "13"; Python's format would say "12".)
    return steps, f"{run.losses[-1]:.3f}", str(math.floor(100 * run.accuracies[-1] + 0.5))


def _firefox(url: str, walk: str) -> dict:
    if not Path(FIREFOX).exists():
        _missing("Debian's firefox-esr")
    if not (ROOT / "node_modules" / "puppeteer-core").is_dir() or not shutil.which("node"):
        _missing("puppeteer-core (npm ci)")
    done = subprocess.run(
        ["node", str(Path(__file__).parent / "engines" / "firefox.mjs"), FIREFOX, url, walk],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_head_trains_the_oracles_numbers_in_firefox(static_site):
    out = _firefox((static_site / "en" / "head.html").resolve().as_uri(), "head")
    assert out["version"].startswith("firefox/"), out
    assert _readout(out["after3"]) == _oracle(3), out
    steps = _readout(out["paused"])[0]
    assert steps >= 300 and _readout(out["paused"]) == _oracle(steps), out
    assert out["aborted"] == [] and out["errors"] == [], out


def test_the_textbook_answers_a_key_in_firefox(static_site):
    # (a link past the vector's question: its controls open)
    out = _firefox((static_site / "en" / "index.html").resolve().as_uri() + "?vector.revealed=true", "vector")
    assert out["before"] != out["after"] and "α" in out["after"], out
    assert out["aborted"] == [] and out["errors"] == [], out


@pytest.fixture(scope="module")
def display(tmp_path_factory):
    """A virtual screen of its own (Xvfb picks a free number): WebKitGTK's MiniBrowser needs one, even
    when nothing is looked at."""
    if not shutil.which("Xvfb"):
        _missing("Xvfb (Debian's xvfb)")
    log = tmp_path_factory.mktemp("xvfb") / "xvfb.log"
    # A display number no X server holds (no lock file); Xvfb is ready once its socket is there.
    number = next(n for n in range(90, 200) if not Path(f"/tmp/.X{n}-lock").exists())
    with open(log, "w") as err:
        server = subprocess.Popen(
            ["Xvfb", f":{number}", "-screen", "0", "1280x1024x24", "-nolisten", "tcp"], stderr=err
        )
    socket = Path(f"/tmp/.X11-unix/X{number}")
    deadline = time.monotonic() + 30
    while not socket.exists() and server.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)  # the poll's interval: the condition is the socket
    assert socket.exists(), f"Xvfb did not start: {log.read_text()[-2000:]}"
    server.log = log
    yield server, f":{number}"
    server.terminate()
    server.wait(timeout=10)


@pytest.fixture
def webkit(display):
    if not (Path(WEBKIT_DRIVER).exists() and MINIBROWSER):
        _missing("WebKitGTK's WebKitWebDriver and MiniBrowser (Debian's webkit2gtk-driver)")
    try:
        from selenium import webdriver
        from selenium.webdriver.webkitgtk.options import Options
        from selenium.webdriver.webkitgtk.service import Service
    except ImportError:
        _missing("selenium")
    options = Options()
    options.binary_location = MINIBROWSER
    options.add_argument("--automation")
    server, screen = display
    assert server.poll() is None, f"Xvfb has stopped: {server.log.read_text()[-2000:]}"
    # A browser that cannot start leaves WebKitWebDriver waiting for ever: its start has a minute, and on a
    # busy machine (the whole suite beside it) a second start, before the test fails.
    driver = None
    for _ in range(2):
        service = Service(WEBKIT_DRIVER, env={**os.environ, "DISPLAY": screen})
        with ThreadPoolExecutor(1) as pool:
            starting = pool.submit(webdriver.WebKitGTK, options=options, service=service)
            try:
                driver = starting.result(timeout=60)
                break
            except TimeoutError:
                if service.process is not None:
                    service.process.kill()
    if driver is None:
        pytest.fail(f"WebKit did not start in two tries of 60 s; Xvfb: {server.log.read_text()[-2000:]}")
    driver.set_window_size(1280, 900)
    yield driver
    driver.quit()


def _wait(driver, condition, timeout: float = 60.0):
    """Poll ``condition(driver)`` until it is truthy (WebDriver has no page-side wait); return it."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition(driver)
        if value or time.monotonic() > deadline:
            assert value, "the page did not get there in time"
            return value
        time.sleep(0.05)  # the poll's interval, not the condition


def test_the_head_trains_the_oracles_numbers_in_webkit(static_site, webkit):
    from selenium.webdriver.common.by import By

    webkit.get((static_site / "en" / "head.html").resolve().as_uri())
    readout = lambda d: d.find_elements(By.CSS_SELECTOR, ".ae-head-readout")  # noqa: E731
    _wait(webkit, readout)
    assert "WebKit" in webkit.execute_script("return navigator.userAgent")
    webkit.find_element(By.CSS_SELECTOR, ".ae-head-skip").click()
    for _ in range(3):
        webkit.find_element(By.CSS_SELECTOR, ".ae-head-step-button").click()
    assert _readout(readout(webkit)[0].text) == _oracle(3)
    webkit.find_element(By.CSS_SELECTOR, ".ae-head-train").click()  # it rests by itself at 300
    _wait(webkit, lambda d: _readout(readout(d)[0].text)[0] == 300)
    shown = _readout(readout(webkit)[0].text)
    assert shown == _oracle(shown[0])
    assert all(n.startswith(("file:", "data:", "blob:")) for n in webkit.execute_script(_RESOURCES))


def test_the_textbook_answers_a_key_in_webkit(static_site, webkit):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    webkit.get((static_site / "en" / "index.html").resolve().as_uri())
    sliders = lambda d: d.find_elements(By.CSS_SELECTOR, ".ae-vector-temperature input[type=range]")  # noqa: E731
    _wait(webkit, lambda d: d.execute_script(_MOUNTED))  # (painted before its script: live once mounted)
    skip = webkit.find_element(By.CSS_SELECTOR, ".ae-vector-skip button")  # past the question: its controls open
    webkit.execute_script("arguments[0].scrollIntoView({block: 'center'})", skip)
    skip.click()
    _wait(webkit, lambda d: sliders(d)[0].is_enabled())
    weights = lambda d: d.find_element(By.CSS_SELECTOR, ".ae-vector-weights").text  # noqa: E731
    before = weights(webkit)
    slider = sliders(webkit)[0]
    webkit.execute_script("arguments[0].scrollIntoView({block: 'center'})", slider)
    slider.send_keys(Keys.ARROW_RIGHT)
    _wait(webkit, lambda d: weights(d) != before)
    assert "α" in weights(webkit)
    assert all(n.startswith(("file:", "data:", "blob:")) for n in webkit.execute_script(_RESOURCES))


#: Whether the page has rendered every module and loaded its fonts.
_MOUNTED = "return performance.getEntriesByName('ae-page-mounted').length > 0 && document.fonts.status === 'loaded'"
#: The top of the heading of 3.8, where a scroll of the page leaves it.
_TOP_OF_3_8 = "return document.getElementById('sec-3-8').getBoundingClientRect().top"


def test_the_textbook_stays_under_the_reader_scrolling_up_in_webkit(static_site, webkit):
    """WebKit anchors no scrolling: a part laid out late above the screen must not move the text (each
    part is laid out from the start there); each scroll of 300 px up moves the heading 300 px down."""
    webkit.get((static_site / "index.html").resolve().as_uri() + "#sec-3-8")
    # Landed on its heading once the page has come to life (its parts above it drawn, its fonts in).
    _wait(webkit, lambda d: d.execute_script(_MOUNTED) and abs(d.execute_script(_TOP_OF_3_8)) < 2)
    assert webkit.execute_script("return CSS.supports('overflow-anchor', 'auto')") is False  # (what is tested)
    tops = [webkit.execute_script(_TOP_OF_3_8)]
    for _ in range(8):
        # A reader's turn of the wheel (the page then leaves the scrolling to the reader: web/frame.js), 300 px up.
        webkit.execute_script("window.dispatchEvent(new WheelEvent('wheel', {deltaY: -300})); window.scrollBy(0, -300)")
        # (a part laid out after the scroll would move the text on a frame or two later: waited for)
        webkit.execute_script("return new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
        tops.append(webkit.execute_script(_TOP_OF_3_8))
    moves = [round(b - a) for a, b in zip(tops, tops[1:])]
    assert moves == [300] * 8, tops
