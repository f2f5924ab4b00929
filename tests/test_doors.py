"""The server's doors (attention_explorable.doors), against ``attention-explorable serve`` itself.

* Panel's ``/components/<module>/…`` route is refused with 404 and imports
  nothing (``import this`` would print the Zen of Python into the log).
* One client asking for ten fully built textbooks at once does not make
  another client wait for all ten: the other client's ``/steps`` comes back
  before most of the ten (an order, not a time; the time is printed), and a
  client with too many pages waiting is told so with 429.

The two clients are two loopback addresses (127.0.0.1 and 127.0.0.2).
"""

from __future__ import annotations

import concurrent.futures
import http.client
import subprocess
import sys
import time
import urllib.parse
import urllib.request

import pytest

from attention_explorable import doors

from .conftest import ARTIFACTS, ROOT, free_port


@pytest.fixture(scope="module")
def server():
    port = free_port()
    ARTIFACTS.mkdir(exist_ok=True)
    log_path = ARTIFACTS / f"serve-doors-{port}.log"
    log = open(log_path, "w")
    proc = subprocess.Popen([sys.executable, "-m", "attention_explorable.cli", "serve", "--port", str(port)],
                            cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 90
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/steps", timeout=30) as r:
                if r.status == 200:
                    break
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(log_path.read_text()) from None
            time.sleep(0.3)
    yield port, log_path
    proc.terminate()
    proc.wait(10)
    log.close()


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
    time.sleep(0.3)
    assert "Beautiful is better than ugly" not in log.read_text()


def test_autoload_takes_only_an_element_id(server):
    port, log = server
    element = "p1234-ab_C"
    ok = f"/steps/autoload.js?bokeh-autoload-element={element}&bokeh-absolute-url=http://127.0.0.1:{port}/steps"
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.request("GET", ok)
    response = conn.getresponse()
    body = response.read().decode()
    conn.close()
    assert response.status == 200 and element in body
    payload = urllib.parse.quote('x");alert(document.cookie);//')
    assert _get(port, f"/steps/autoload.js?bokeh-autoload-element={payload}")[0] == 400
    assert "Traceback" not in log.read_text()


def test_a_burst_from_one_client_does_not_stall_another(server):
    port, log = server
    _get(port, "/textbook?explorables=all")  # the process's one-time work done
    with concurrent.futures.ThreadPoolExecutor(max_workers=11) as pool:
        burst = [pool.submit(_get, port, "/textbook?explorables=all") for _ in range(10)]
        time.sleep(0.5)  # the burst has arrived and its first page is being built
        other = pool.submit(_get, port, "/steps", "127.0.0.2").result()
        done = [f.result() for f in burst]
    assert other[0] == 200 and all(status == 200 for status, _, _ in done)
    later = sum(1 for _, _, end in done if end > other[2])
    print(f"another client's /steps: {other[2] - other[1]:.2f} s; "
          f"burst pages done after it: {later} of 10; burst took {max(e for _, _, e in done) - other[1]:.1f} s")
    assert later >= 8, (later, other, done)
    assert "Traceback" not in log.read_text()


def test_too_many_waiting_pages_from_one_client_are_refused(server):
    port, _ = server
    n = doors.MAX_WAITING_PER_CLIENT + 6
    with concurrent.futures.ThreadPoolExecutor(max_workers=n) as pool:
        statuses = [f.result()[0] for f in [pool.submit(_get, port, "/steps", "127.0.0.3") for _ in range(n)]]
    assert statuses.count(429) >= 1 and statuses.count(200) >= doors.MAX_WAITING_PER_CLIENT - 1, statuses
    assert set(statuses) <= {200, 429}
    assert _get(port, "/steps", "127.0.0.4")[0] == 200  # and the next page, alone, is fine
