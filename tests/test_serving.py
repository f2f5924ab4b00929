"""The one serving override of :mod:`attention_explorable.serving` (TCP_NODELAY) still works.

These tests exercise the code that Panel, Bokeh and Tornado actually run, not
just the attribute that :func:`enable_fast_path` sets.  They are meant to fail
when an upgrade makes the override ineffective (a handler class that no
longer defers to Bokeh's ``open``), and the check is also run without the
override to show that it can fail.
"""

from __future__ import annotations

import base64
import contextlib
import inspect
import os
import socket
import stat
import sys
import time
import urllib.request
from collections.abc import Iterator

import panel as pn
import pytest
from panel.io.state import state

from attention_explorable import serving

from .conftest import free_port


pytestmark = pytest.mark.usefixtures("restore_fast_path")


def _set_fast_path(on: bool) -> None:
    if on:
        serving.enable_fast_path()
    else:
        serving.disable_fast_path()


# --- websocket TCP_NODELAY -------------------------------------------------

@contextlib.contextmanager
def _served_slider_app() -> Iterator[int]:
    """Serve a one-slider app with ``pn.serve(threaded=True)``; yield its port."""
    port = free_port()
    thread = pn.serve(
        lambda: pn.Column(pn.widgets.IntSlider(start=0, end=10)),
        port=port, address="127.0.0.1", websocket_origin=f"127.0.0.1:{port}",
        show=False, start=True, threaded=True, verbose=False,
    )
    try:
        yield port
    finally:
        thread.stop()
        thread.join(timeout=20)
        state._threads.pop(thread.server_id, None)
        assert not thread.is_alive(), "Panel server thread did not stop"


def _fetch_page(port: int) -> str:
    deadline = time.monotonic() + 30
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10) as r:
                return r.read().decode()
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def _open_bokeh_websocket(port: int, token: str) -> socket.socket:
    """Complete a bokeh websocket handshake and wait for the server's first frame.

    The server sends its ACK from ``_async_open``, which ``open`` schedules, so
    once a frame arrives the server-side ``open`` has run.
    """
    client = socket.create_connection(("127.0.0.1", port), timeout=20)
    key = base64.b64encode(os.urandom(16)).decode()
    client.sendall((
        "GET /ws HTTP/1.1\r\n"
        f"Host: 127.0.0.1:{port}\r\n"
        "Upgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
        f"Origin: http://127.0.0.1:{port}\r\n"
        f"Sec-WebSocket-Protocol: bokeh, {token}\r\n\r\n"
    ).encode())
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = client.recv(4096)
        assert chunk, "server closed the connection during the handshake"
        data += chunk
    head, rest = data.split(b"\r\n\r\n", 1)
    assert head.startswith(b"HTTP/1.1 101"), head
    if not rest:
        assert client.recv(4096), "no websocket frame from the server"
    return client


def _server_side_nodelay(client: socket.socket) -> int:
    """Read TCP_NODELAY of this process's socket whose peer is ``client``."""
    wanted = client.getsockname()
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        try:
            if not stat.S_ISSOCK(os.fstat(fd).st_mode):
                continue
        except OSError:
            continue
        with socket.socket(fileno=os.dup(fd)) as sock:
            if sock.family != socket.AF_INET or sock.type != socket.SOCK_STREAM:
                continue
            try:
                peer = sock.getpeername()
            except OSError:
                continue
            if peer == wanted:
                return sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
    raise AssertionError("server-side socket of the websocket not found")


@pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="finds the server socket via /proc"
)
@pytest.mark.parametrize("fast", [False, True], ids=["defaults", "fast_path"])
def test_served_websocket_has_tcp_nodelay_only_with_the_fast_path(fast):
    _set_fast_path(fast)
    with _served_slider_app() as port:
        page = _fetch_page(port)
        marker = '"token":"'
        assert marker in page, "session token not found in the served page"
        token = page.split(marker, 1)[1].split('"', 1)[0]
        with _open_bokeh_websocket(port, token) as client:
            nodelay = _server_side_nodelay(client)
    if fast:
        assert nodelay, "enable_fast_path() no longer sets TCP_NODELAY on the websocket"
    else:
        assert not nodelay, (
            "the websocket has TCP_NODELAY without the override: Bokeh/Tornado "
            "now set it themselves, so that half of the fast path may be removable"
        )


def test_panel_serve_and_pn_serve_route_ws_through_the_wrapped_open():
    """``panel serve`` uses the same ``/ws`` route table that ``pn.serve`` does."""
    import panel.command.serve  # noqa: F401
    import panel.io.server
    from bokeh.server.urls import per_app_patterns
    from bokeh.server.views.ws import WSHandler as BokehWSHandler

    serving.enable_fast_path()
    ws_routes = [route[1] for route in per_app_patterns if route[0] == "/ws"]
    assert ws_routes == [panel.io.server.WSHandler]
    assert issubclass(ws_routes[0], BokehWSHandler)
    assert "super().open(" in inspect.getsource(panel.io.server.WSHandler.open)
    status = serving.fast_path_status()
    assert status["ws_handler"] == "panel.io.server.WSHandler"
    assert status["nodelay"] and status["enabled"]


# --- the API itself ---------------------------------------------------------

def test_enable_is_idempotent_and_disable_restores_the_originals():
    from bokeh.server.views.ws import WSHandler as BokehWSHandler

    serving.disable_fast_path()
    original_open = BokehWSHandler.__dict__["open"]
    status = serving.fast_path_status()
    assert not (status["nodelay"] or status["enabled"])

    serving.enable_fast_path()
    wrapped = BokehWSHandler.__dict__["open"]
    serving.enable_fast_path()
    serving.enable_fast_path()
    assert BokehWSHandler.__dict__["open"] is wrapped
    assert wrapped.__wrapped__ is original_open
    assert serving.fast_path_status()["enabled"]

    serving.disable_fast_path()
    serving.disable_fast_path()
    assert BokehWSHandler.__dict__["open"] is original_open
    assert not serving.fast_path_status()["enabled"]
