"""A served explorable inside another web application's page (Bokeh's ``server_document``).

The host page comes from another origin (a plain HTTP server on another
port). With that origin allowed (``--allow-websocket-origin``) the explorable
appears in the host page and answers a student, server included; without it
the server refuses the page's websocket.
"""

from __future__ import annotations

import functools
import http.server
import re
import threading

import pytest
from bokeh.embed import server_document

from ..conftest import ServedApp, free_port

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def host_site(tmp_path_factory):
    """A static HTTP server for the host application's pages, on its own port."""
    root = tmp_path_factory.mktemp("host")
    port = free_port()
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    server.RequestHandlerClass.log_message = lambda *a, **k: None
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield root, port
    server.shutdown()
    server.server_close()


def _host_page(root, served_url: str) -> str:
    (root / "course.html").write_text(
        "<!doctype html><html lang='en'><head><meta charset='utf-8'><title>Course</title></head><body>"
        f"<h1>Week 3</h1>{server_document(served_url)}<p>after</p></body></html>",
        "utf-8",
    )
    return "course.html"


def test_an_allowed_application_embeds_the_served_explorable(host_site, student):
    root, port = host_site
    app = ServedApp("apps/steps.py", extra_args=("--allow-websocket-origin", f"127.0.0.1:{port}"))
    try:
        s = student()
        s.open(f"http://127.0.0.1:{port}/{_host_page(root, app.url())}", ".ae-output")
        page = s.page
        page.locator(".ae-step-3 button").click()
        page.locator(".ae-question").filter(has_text=re.compile("调低温度")).first.wait_for()
        page.locator(".ae-demonstrate button").click()  # no prediction: it asks for one
        page.locator(".ae-skip-prediction button").click()
        page.locator(".ae-result").filter(has_text=re.compile("演示结果")).first.wait_for(timeout=15_000)
        assert page.locator("h1", has_text="Week 3").count() == 1
        # Panel's autoload points three of its stylesheets at its CDN (docs/embedding.md says so);
        # nothing else leaves the two servers.
        assert all(u.startswith("https://cdn.holoviz.org/") and u.endswith(".css") for u in s.external_requests), (
            s.external_requests
        )
        s.errors_to_ignore = ("Failed to load resource",)
        s.assert_clean()
        app.assert_clean_log()
    finally:
        app.close()


def test_an_application_not_allowed_is_refused(host_site, student):
    root, port = host_site
    app = ServedApp("apps/steps.py")
    try:
        s = student()
        s.page.goto(f"http://127.0.0.1:{port}/{_host_page(root, app.url())}")
        # Until the server has said it refused the page's socket (its log), then nothing is drawn.
        refused = lambda: "Refusing websocket connection" in app.log.read_text() or "403" in app.log.read_text()  # noqa: E731
        for _ in range(200):
            if refused():
                break
            s.page.wait_for_timeout(50)  # the poll's interval
        assert refused(), app.log.read_text()[-2000:]
        assert s.page.locator(".ae-output").count() == 0
    finally:
        app.close()
