"""The route guards (attention_explorable.route_guards), against ``attention-explorable serve`` itself.

* Panel's ``/components/<module>/…`` route is refused with 404 and imports
  nothing (``import this`` would print the Zen of Python into the log).
* Bokeh's autoload route (of the one live app, ``/instructor``) takes only
  an element id, and only from the instructor (403 without the cookie, and
  no traceback in the log).
"""

from __future__ import annotations

import http.client
import re
import sys
import time
import urllib.parse

import pytest

from .conftest import ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))
from classlib import login_cookie  # noqa: E402


@pytest.fixture(scope="module")
def server(served_cli):
    return served_cli.port, served_cli.log


def _get(port: int, path: str, source: str = "127.0.0.1", timeout: float = 120) -> tuple[int, float, float]:
    """(status, start, end) of a GET of ``path`` from the loopback address ``source``."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout, source_address=(source, 0))
    start = time.monotonic()
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        response.read()
        return response.status, start, time.monotonic()
    finally:
        conn.close()


def test_the_components_route_imports_nothing(server):
    port, log = server
    for path in ("/components/this/x/y/z", "/components/antigravity/a/b/c", "/components/panel/x/__css__/y"):
        assert _get(port, path)[0] == 404
    time.sleep(0.3)  # a moment for an import the route should not do to reach the log
    assert "Beautiful is better than ugly" not in log.read_text()


def _instructor_cookie(port: int) -> str:
    cookie = login_cookie(f"http://127.0.0.1:{port}", "served-test-key")
    return "; ".join(f"{k}={v}" for k, v in cookie.items())


def test_autoload_takes_only_an_element_id(server):
    port, log = server
    element = "p1234-ab_C"
    ok = (
        f"/instructor/autoload.js?bokeh-autoload-element={element}"
        f"&bokeh-absolute-url=http://127.0.0.1:{port}/instructor"
    )
    assert _get(port, ok)[0] == 403  # not the instructor: no session, no script
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.request("GET", ok, headers={"Cookie": _instructor_cookie(port)})
    response = conn.getresponse()
    body = response.read().decode()
    conn.close()
    assert response.status == 200 and element in body
    payload = urllib.parse.quote('x");alert(document.cookie);//')
    assert _get(port, f"/instructor/autoload.js?bokeh-autoload-element={payload}")[0] == 400
    assert "Traceback" not in log.read_text()


def test_a_reconnecting_page_asks_the_instructors_route_with_head_and_the_log_stays_quiet(server):
    """The projector's page, reloading itself after a restart, sends HEAD /instructor until it is answered
    (web/connection.js): 204, no body, no session, and no "405" line in the server's log."""
    port, log = server
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        conn.request("HEAD", "/instructor")
        response = conn.getresponse()
        assert (response.status, response.read()) == (204, b"")
    finally:
        conn.close()
    time.sleep(0.3)  # a moment for a line the route should not write to reach the log
    # (a status in tornado's access line, "405 HEAD /instructor": not any "405", which a temporary folder's
    # random name may hold)
    said = log.read_text()
    assert re.search(r"\b405 [A-Z]+ /", said) is None and "HEAD /instructor" not in said.replace("204 HEAD", "")
