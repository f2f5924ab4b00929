"""MyST's ``{anywidget}`` directive (Jupyter Book 2, mystmd): the export's ``embed/myst.mjs`` as mystmd's page
runs it. A book page on one web server loads the module from the exported folder on another (as a course
publishes it), calls its ``render({model, el})`` with a model made from the directive's JSON and an element in
a shadow root (mystmd's contract, docs/widgets.md of mystmd), and the explorable answers.

(mystmd itself is not run: a Jupyter Book 2 build fetches its theme from the network, which the test
machines do not reach.)
"""

from __future__ import annotations

import functools
import http.server
import json
import threading

import pytest

from attention_explorable import site

from .pages import wait_text

pytestmark = pytest.mark.browser


class _SharedFolder(http.server.SimpleHTTPRequestHandler):
    """A static host that lets other sites load its modules (as GitHub Pages does: CORS for everyone)."""

    def end_headers(self) -> None:
        self.send_header("Access-Control-Allow-Origin", "*")
        super().end_headers()

    def log_message(self, *_args) -> None:  # quiet
        pass


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *_args) -> None:
        pass


def _serve(handler, folder):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler, directory=str(folder)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


#: What mystmd's page does with a directive: the module's render, given the JSON body as its model's state and
#: an element in a shadow root; its events are recorded as the author's page would hear them.
_MYST_RENDER = """async ([url, state]) => {
  window.heard = [];
  for (const kind of ["prediction", "checked"])
    document.addEventListener(`attention-explorable-${kind}`, (e) => window.heard.push([kind, e.detail]));
  const widget = (await import(url)).default;
  const model = {get: (k) => state[k], set: (k, v) => { state[k] = v; }, on() {}, off() {}, save_changes() {}};
  const el = document.getElementById("widget").attachShadow({mode: "open"});
  window.cleanup = await widget.render({model, el});
  return typeof window.cleanup;
}"""


def test_the_myst_snippet_shows_the_explorable_in_a_book_page_on_another_site(static_site, student, tmp_path):
    snippet = (static_site / "embed" / "steps-myst.en.md").read_text("utf-8")
    assert snippet == site.myst_snippet("steps", "en") and "embed/myst.mjs" in snippet
    body = json.loads(snippet.splitlines()[1])
    (tmp_path / "book.html").write_text(
        "<!doctype html><html lang='zh-Hans'><head><meta charset='utf-8'><title>book</title><link rel='icon' href='data:,'></head>"
        "<body><h1>第 3 章</h1><div id='widget'></div></body></html>",
        "utf-8",
    )
    course, book = _serve(_SharedFolder, static_site), _serve(_Quiet, tmp_path)
    try:
        s = student()
        page = s.page
        page.goto(f"http://127.0.0.1:{book.server_port}/book.html")
        state = {**body, "attributes": {"step": 2}}  # the snippet's JSON, with an attribute the author added
        module = f"http://127.0.0.1:{course.server_port}/embed/myst.mjs"
        assert page.evaluate(_MYST_RENDER, [module, state]) == "function"
        wait_text(page, ".ae-question", "Step 2")  # English, at step 2, in the book's page
        page.locator(".ae-prediction input").fill("7")
        page.locator(".ae-demonstrate button").click()
        page.wait_for_function("() => window.heard.some(([kind]) => kind === 'checked')")
        heard = page.evaluate("window.heard")
        assert heard[0][0] == "prediction" and heard[0][1]["name"] == "steps" and heard[0][1]["lang"] == "en", heard
        page.evaluate("window.cleanup()")  # mystmd's cleanup, when the reader leaves the page
        assert page.locator("attention-explorable").count() == 0
        s.assert_clean()
    finally:
        course.shutdown()
        book.shutdown()
