"""An explorable in a marimo notebook, as its reader meets it: ``marimo run`` serving a notebook whose
cell shows the explorable's notebook widget (``mo.ui.anywidget``), driven in Chromium, light and dark."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from playwright.sync_api import expect

from ..conftest import free_port
from .test_jupyterlab import _CONTRASTS

pytestmark = pytest.mark.browser
pytest.importorskip("marimo")

NOTEBOOK = """import marimo

app = marimo.App()


@app.cell
def _():
    import marimo as mo
    from attention_explorable.widgets import notebook_widget

    w = mo.ui.anywidget(notebook_widget("vector", language="en", revealed=True))
    w
    return mo, w


@app.cell
def _(mo, w):
    mo.md(f"q is {w.value['query_x']}")
    return


if __name__ == "__main__":
    app.run()
"""


@pytest.fixture(scope="module", params=["light", "dark"])
def marimo_app(request, tmp_path_factory):
    """``marimo run`` of the notebook on a free port, its user settings in a home of its own (in which
    its theme is ``request.param``); yields (theme, address)."""
    root = tmp_path_factory.mktemp("marimo")
    (root / "explorable.py").write_text(NOTEBOOK)
    home = root / "home"
    home.mkdir()
    (home / ".marimo.toml").write_text(f'[display]\ntheme = "{request.param}"\n')
    port = free_port()
    log = root / "marimo.log"
    out = log.open("w")
    marimo = Path(sys.executable).parent / "marimo"
    proc = subprocess.Popen(
        [str(marimo), "run", "explorable.py", "--headless", "--host", "127.0.0.1", "--port", str(port)],
        cwd=root, stdout=out, stderr=subprocess.STDOUT,
        env={**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")},
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while True:
        assert proc.poll() is None, log.read_text()[-3000:]
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            assert time.monotonic() < deadline, log.read_text()[-3000:]
            time.sleep(0.2)  # the poll's interval, until the server listens
    yield request.param, f"http://127.0.0.1:{port}/"
    proc.terminate()
    proc.wait(timeout=20)
    out.close()


def test_an_explorable_in_marimo_follows_the_reader_in_both_themes(marimo_app, student):
    theme, url = marimo_app
    s = student()
    page = s.page
    off_machine = []
    page.on(
        "request",
        lambda r: off_machine.append(r.url) if not r.url.startswith(("http://127.0.0.1", "data:", "blob:")) else None,
    )
    page.goto(url)
    expect(page.locator(".ae-vector-output").first).to_contain_text("y = [0.845, 0.578]", timeout=60_000)
    assert page.locator(".ae-x").first.get_attribute("data-ae-theme") == theme

    # Page -> Python: the reader types the query's first component; the next cell runs again with it.
    box = page.locator(".ae-query-x-box input").first
    box.fill("-1.5")
    box.press("Tab")
    expect(page.locator(".ae-vector-scores").first).to_contain_text("s₁ = −1.500")
    expect(page.get_by_text("q is -1.5")).to_be_visible(timeout=30_000)

    texts = page.locator(
        ".ae-vector-scores td, .ae-vector-formula, .ae-vector-question, .ae-n-slider label, "
        ".ae-box input, .ae-vector-prediction button"
    )
    contrasts = page.evaluate(_CONTRASTS, texts.element_handles())
    assert contrasts and all(ratio >= 4.5 for _, ratio in contrasts), contrasts
    s.screenshot(f"marimo-widget-{theme}")
    assert off_machine == [], off_machine
