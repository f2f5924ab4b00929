"""The fast-path overrides of :mod:`attention_explorable.serving` still work.

These tests exercise the code that Panel, Bokeh and Tornado actually run, not
just the attributes that :func:`enable_fast_path` sets.  They are meant to fail
when an upgrade makes an override ineffective (a renamed attribute, a handler
class that no longer defers to Bokeh's ``open``, a new code path that ignores
``_debounce``), and each check is also run without the override to show that
it can fail.
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
from panel.reactive import Syncable

from attention_explorable import serving

from .conftest import free_port


pytestmark = pytest.mark.usefixtures("restore_fast_path")


def _set_fast_path(on: bool) -> None:
    if on:
        serving.enable_fast_path()
    else:
        serving.disable_fast_path()


# --- debounce ------------------------------------------------------------

class _RecordingDoc:
    """Stand-in for a server-side bokeh Document that records scheduled delays."""

    session_context = object()  # truthy: take the server branch

    def __init__(self) -> None:
        self.timeouts: list[float] = []

    def add_timeout_callback(self, callback, timeout_milliseconds):
        self.timeouts.append(timeout_milliseconds)


def test_server_change_still_schedules_with_debounce_attribute():
    """The override sets ``_debounce``; Panel must still read that name."""
    source = inspect.getsource(Syncable._server_change)
    assert "add_timeout_callback" in source
    assert "self._debounce" in source
    assert "_debounce" in Syncable.__dict__


@pytest.mark.parametrize("fast", [False, True], ids=["defaults", "fast_path"])
def test_widget_change_is_scheduled_with_the_expected_delay(fast):
    """Drive the real ``_server_change`` of a slider and record its delay."""
    serving.disable_fast_path()
    default_ms = Syncable._debounce
    assert default_ms > 0
    _set_fast_path(fast)
    slider = pn.widgets.IntSlider(start=0, end=10, value=0)
    doc = _RecordingDoc()
    try:
        slider._server_change(doc, "ref", None, "value", 0, 1)
    finally:
        state._change_callbacks.pop(doc, None)
        slider._events.clear()
    assert doc.timeouts == ([0] if fast else [default_ms])


def test_no_loaded_reactive_class_escapes_the_debounce_override():
    import panel.layout  # noqa: F401
    import panel.pane  # noqa: F401
    import panel.widgets  # noqa: F401

    serving.enable_fast_path()
    status = serving.fast_path_status()
    assert status["debounce_ms"] == 0
    assert status["debounce_shadowed_by"] == []
    assert pn.widgets.FloatSlider()._debounce == 0
    assert pn.pane.Markdown("x")._debounce == 0


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
    default_ms = Syncable._debounce
    status = serving.fast_path_status()
    assert default_ms > 0 and status["debounce_ms"] == default_ms
    assert not (status["debounce"] or status["nodelay"] or status["enabled"])

    serving.enable_fast_path()
    wrapped = BokehWSHandler.__dict__["open"]
    serving.enable_fast_path()
    serving.enable_fast_path()
    assert BokehWSHandler.__dict__["open"] is wrapped
    assert wrapped.__wrapped__ is original_open
    assert Syncable._debounce == 0
    assert serving.fast_path_status()["enabled"]

    serving.disable_fast_path()
    serving.disable_fast_path()
    assert BokehWSHandler.__dict__["open"] is original_open
    assert Syncable._debounce == default_ms
    assert not serving.fast_path_status()["enabled"]
