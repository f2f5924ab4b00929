"""The class socket sends each receipt at once: TCP_NODELAY on its server side, which tornado leaves off."""

from __future__ import annotations

import asyncio
import os
import socket
import stat
import sys

import pytest
from tornado.httpserver import HTTPServer
from tornado.web import Application
from tornado.websocket import websocket_connect

from attention_explorable.classroom import channel
from attention_explorable.classroom.context import ClassContext

from ..conftest import free_port
from . import run_coroutine


def _server_side_nodelay(client_address: tuple) -> int:
    """TCP_NODELAY of this process's socket whose peer is ``client_address``."""
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
                if sock.getpeername() != client_address:
                    continue
            except OSError:
                continue
            return sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
    raise AssertionError("the server side of the class socket was not found")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="finds the server's socket through /proc")
@pytest.mark.parametrize("nodelay", [True, False], ids=["as shipped", "without set_nodelay"])
def test_the_class_socket_has_tcp_nodelay(tmp_path, monkeypatch, nodelay):
    if not nodelay:  # the check can fail: without the call, tornado's websocket has Nagle on
        monkeypatch.setattr(channel.ClassSocket, "set_nodelay", lambda self, value: None)
    context = ClassContext(database_url=f"sqlite:///{tmp_path / 'class.db'}")
    room_channel = channel.ClassChannel(context.store, context.cap, ["*"])

    async def check() -> int:
        port = free_port()
        server = HTTPServer(Application(channel.patterns(room_channel)))
        server.listen(port, "127.0.0.1")
        try:
            ws = await websocket_connect(f"ws://127.0.0.1:{port}{channel.SOCKET_PATH}")
            await asyncio.sleep(0.2)  # the server's open() has run
            client = ws.stream.socket.getsockname()
            value = _server_side_nodelay(client)
            ws.close()
            return value
        finally:
            server.stop()

    assert bool(run_coroutine(check())) is nodelay
