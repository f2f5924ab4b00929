"""One registry line adds an explorable: a test-only one goes through every place the explorables are listed.

``tests/example_explorable`` holds ``tempered`` (a view, its module in the
anywidget front-end form, its widget, one ``register`` call), defined nowhere
in the package. Once its Python module is imported, it has its line on the
index, its served page (built by the page server's builder process), its
pages and embeds in the static export (both languages), its notebook widget,
and its module's view passes a mirror test against its Python view.
"""

from __future__ import annotations

import asyncio
import importlib
import os
import shutil
import subprocess
import threading
import urllib.request

import pytest

from attention_explorable import apps, modules, page_server, site
from attention_explorable.explorables import MODULES, unregister
from attention_explorable.strings import STRINGS

from ..conftest import ROOT, free_port
from .mirror import differences, load_module
from .pages import handle, text_of, wait_text

pytestmark = pytest.mark.browser

MODULE = "tests.example_explorable.explorable"
SLIDER = ".ae-tempered-temperature"
READOUT = ".ae-tempered-readout"


def _bundle() -> None:
    """Bundle its module with the project's esbuild (as ``npm run build`` does the package's)."""
    esbuild = ROOT / "node_modules" / ".bin" / "esbuild"
    if not (shutil.which("node") and esbuild.exists()):
        reason = "Node.js and esbuild (npm ci) are needed to bundle the test explorable"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"{reason}; under CI=true this must run", pytrace=False)
        pytest.skip(reason)
    subprocess.run(
        [
            str(esbuild),
            "tests/example_explorable/web/tempered.js",
            "--bundle",
            "--format=esm",
            "--target=es2020",
            "--charset=utf8",
            "--log-level=warning",
            "--outfile=tests/example_explorable/dist/tempered.mjs",
        ],
        cwd=ROOT,
        check=True,
        timeout=120,
    )


@pytest.fixture(scope="module")
def tempered():
    """The module of the test-only explorable, registered for this file's tests and unregistered after."""
    _bundle()
    module = (
        importlib.reload(importlib.import_module(MODULE))
        if MODULE in __import__("sys").modules
        else importlib.import_module(MODULE)
    )
    assert "tempered" in MODULES
    yield module
    unregister("tempered")
    assert "tempered" not in MODULES and "tempered_heading" not in STRINGS["en"]


def _expected(module, temperature: float, language: str) -> str:
    return module.tempered_view({"temperature": temperature}, module.tempered_config(language))["html"]["readout"]


def test_the_registry_lists_it_everywhere(tempered):
    assert apps.title_key("tempered") == "tempered_heading" and "tempered" not in apps.APPS  # (no Panel app)
    assert site.module_pages()["tempered.html"] == "tempered"
    index = apps.index_html("en")
    assert 'href="tempered?lang=en"' in index and "Temperature over three scores" in index
    assert "tempered" in page_server.PageCache().apps
    # Its notebook widget and Panel component: its own bundle, its state bounded by its declaration.
    widget = modules.module_widget("tempered", "en")
    assert widget._esm == tempered.BUNDLE.read_text("utf-8") and widget.ae_module_state()["temperature"] == 1.0
    with pytest.raises(ValueError, match="temperature"):
        widget.temperature = 99


@pytest.mark.parametrize("language", sorted(STRINGS))
def test_its_twin_mirrors_its_python_view(tempered, chromium, language):
    context = chromium.new_context()
    page = load_module(context, "tempered")
    config = tempered.tempered_config(language)
    temperatures = [0.1, 0.2, 0.5, 1.0, 1.3, 2.5, 5.0]
    js = page.evaluate(
        "([ts, config]) => ts.map((t) => ae.temperedView({temperature: t}, config))", [temperatures, config]
    )
    for t, got in zip(temperatures, js):
        assert not differences(tempered.tempered_view({"temperature": t}, config), got), t
    assert not page.ae_errors, page.ae_errors
    context.close()


def _press_right(page) -> None:
    handle(page, SLIDER).focus()
    page.keyboard.press("ArrowRight")


def test_its_exported_page_opens_offline_and_answers_a_key(tempered, tmp_path, student):
    report = site.export_site(tmp_path)
    names = {p.relative_to(tmp_path).as_posix() for p in report.files}
    assert {"tempered.html", "en/tempered.html", "embed/tempered.js", "embed/tempered.html"} <= names
    s = student()
    aborted = s.open_offline(tmp_path / "en" / "tempered.html", READOUT)
    page = s.page
    wait_text(page, READOUT, r"y = ")
    assert text_of(page, READOUT) == _expected(tempered, 1.0, "en")
    assert page.title() == "Temperature over three scores"
    _press_right(page)
    wait_text(page, READOUT, _expected(tempered, 1.1, "en").split("y = ")[1])
    assert text_of(page, READOUT) == _expected(tempered, 1.1, "en")
    s.assert_clean()
    assert aborted == []
    # Its one tag in an author's page: its module, from outside the package, comes with it.
    host = tmp_path / "host.html"
    host.write_text(
        "<!doctype html><html lang='en'><head><meta charset='utf-8'><title>host</title></head><body>"
        + (tmp_path / "embed" / "tempered.html").read_text("utf-8")
        + "</body></html>",
        "utf-8",
    )
    s = student()
    aborted = s.open_offline(host, READOUT)
    wait_text(s.page, READOUT, r"y = ")
    assert text_of(s.page, READOUT) == _expected(tempered, 1.0, "zh")
    _press_right(s.page)
    wait_text(s.page, READOUT, _expected(tempered, 1.1, "zh").split("y = ")[1])
    s.assert_clean()
    assert aborted == []


def test_it_is_served_as_a_page_of_its_own(tempered, student):
    from tornado.httpserver import HTTPServer
    from tornado.web import Application

    cache = page_server.PageCache(only=["tempered", "steps"])
    cache.build()  # in the builder process, which imports the registering module too
    port, loop_ready, holder = free_port(), threading.Event(), {}

    def serve():
        asyncio.set_event_loop(asyncio.new_event_loop())
        server = HTTPServer(Application(page_server.patterns(cache)))
        server.listen(port, "127.0.0.1")
        holder["loop"] = asyncio.get_event_loop()
        loop_ready.set()
        holder["loop"].run_forever()

    threading.Thread(target=serve, daemon=True).start()
    loop_ready.wait(10)
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/tempered?lang=zh", timeout=10) as answer:
            assert answer.status == 200 and "温度与三个分数" in answer.read().decode()
        s = student()
        s.errors_to_ignore = ("status of 404",)  # /favicon.ico: this bare server has only the page routes
        s.open(f"http://127.0.0.1:{port}/tempered?lang=zh", READOUT)
        page = s.page
        wait_text(page, READOUT, r"y = ")
        assert text_of(page, READOUT) == _expected(tempered, 1.0, "zh")
        _press_right(page)
        wait_text(page, READOUT, _expected(tempered, 1.1, "zh").split("y = ")[1])
        s.assert_clean()
    finally:
        holder["loop"].call_soon_threadsafe(holder["loop"].stop)
