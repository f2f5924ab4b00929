"""The class socket against its own students: a flood refused for its rate costs no database call.

The socket is served in this process (tornado, the class socket's route only), so that a spy between the
channel and its store sees every database call. Clients come from the addresses they name in
``X-Real-Ip`` (the server trusts it, as behind a proxy with ``--use-xheaders``).
"""

from __future__ import annotations

import asyncio
import math
import sys
import threading
import time

import pytest
from tornado.httpclient import HTTPRequest
from tornado.httpserver import HTTPServer
from tornado.web import Application
from tornado.websocket import websocket_connect

from attention_explorable.classroom import channel
from attention_explorable.classroom.limits import RateLimit, SessionCap
from attention_explorable.classroom.store import Store

from ..conftest import ROOT, free_port
from . import run_coroutine

sys.path.insert(0, str(ROOT / "benchmarks"))
from classlib import ClassStudent, student_id  # noqa: E402


class SpyStore:
    """A store that records the name of every method the channel calls on it."""

    def __init__(self, store: Store):
        self.store, self.calls, self._lock = store, [], threading.Lock()

    def __getattr__(self, name: str):
        with self._lock:
            self.calls.append(name)
        return getattr(self.store, name)

    def asked(self, since: int = 0) -> list[str]:
        """The calls from the ``since``-th on, without the watcher's reads of the rooms (twice a second) and
        the notes of who is in the room (``seen`` at a join, ``left`` at a close: written in the background)."""
        with self._lock:
            return [name for name in self.calls[since:] if name not in ("rooms", "seen", "left")]


async def _student(port: int, code: str, address: str, n: int) -> ClassStudent:
    """A student's class socket from ``address``, joined to room ``code``."""
    base = f"http://127.0.0.1:{port}"
    request = HTTPRequest(
        base.replace("http://", "ws://") + channel.SOCKET_PATH, headers={"Origin": base, "X-Real-Ip": address}
    )
    student = ClassStudent(await websocket_connect(request), student_id(n, "g"), code)
    await student.send({"type": "join", "room": code, "student": student.student_id})
    await asyncio.wait_for(asyncio.shield(student._first), 10)
    assert student.joined is not None, student.received
    return student


def _serve(room_channel: channel.ClassChannel) -> tuple[HTTPServer, int]:
    port = free_port()
    server = HTTPServer(Application(channel.patterns(room_channel)), xheaders=True)
    server.listen(port, "127.0.0.1")
    return server, port


def test_a_flood_refused_for_its_rate_asks_the_store_nothing_and_another_address_is_served(tmp_path):
    store = Store(f"sqlite:///{tmp_path / 'class.sqlite3'}")
    code = store.create_room().code
    spy = SpyStore(store)
    per_address = RateLimit(per_second=1.0, burst=2)
    room_channel = channel.ClassChannel(lambda: spy, address_submits=per_address)
    sockets, messages = 4, 12  # each socket stays under the messages a second that close it

    async def run():
        server, port = _serve(room_channel)
        try:
            flood = [await _student(port, code, "10.0.0.66", i) for i in range(sockets)]
            before = len(spy.calls)
            t0 = time.monotonic()
            sent = []
            for s in flood:
                for _ in range(messages):
                    s.seq += 1
                    sent.append((s, s.seq))
                    await s.send({"type": "submit", "seq": s.seq, "step": 1, "value": 5.0})
            while sum(len(s.receipts) for s in flood) < len(sent):  # every submission is answered
                assert all(s.closed is None for s in flood), [s.closed for s in flood]
                await asyncio.sleep(0.01)
            elapsed = time.monotonic() - t0
            asked = spy.asked(before)
            receipts = [r for s in flood for r in s.receipts]
            honest = await _student(port, code, "10.0.0.7", 99)
            answer, _ = await honest.submit(1, 6.0)
            for s in (*flood, honest):
                await s.close()
            return asked, receipts, elapsed, answer
        finally:
            server.stop()

    try:
        asked, receipts, elapsed, answer = run_coroutine(run())
        stored = store.values(code, 1)
    finally:
        store.close()
    # The address's budget: its burst, and one more a second; each student's too: one a second.
    allowed = min(math.floor(2 + 1.0 * elapsed), sockets * math.floor(1 + elapsed))
    assert set(asked) <= {"submit"} and 1 <= len(asked) <= allowed, (asked, elapsed)
    refused = [r for r in receipts if not r["ok"]]
    assert len(refused) == sockets * messages - len(asked) and {r["reason"] for r in refused} == {"rate"}
    assert answer["ok"], answer  # another address is not held back by this one's flood
    assert sorted(stored) == sorted([5.0] * sum(r["ok"] for r in receipts) + [6.0])


def test_rate_limit_gives_a_burst_then_its_rate_per_key():
    limit = RateLimit(per_second=2.0, burst=3)
    assert [limit.allow("a", now=10.0) for _ in range(4)] == [True, True, True, False]
    assert limit.allow("b", now=10.0)  # another key has its own
    assert limit.allow("a", now=10.5) and not limit.allow("a", now=10.5)  # 2 a second: one back after 0.5 s
    assert [limit.allow("a", now=100.0) for _ in range(4)] == [True, True, True, False]  # saves up its burst only


@pytest.mark.parametrize(
    "kwargs, says",
    [
        ({"per_second": 0}, "per_second must be a positive number, got 0"),
        ({"per_second": 1, "burst": 0.5}, "burst .* got 0.5"),
    ],
)
def test_rate_limit_names_a_bad_setting(kwargs, says):
    with pytest.raises(ValueError, match=says):
        RateLimit(**kwargs)


def test_a_socket_that_never_joins_is_closed_and_gives_back_its_place_and_one_that_joined_stays(tmp_path):
    store = Store(f"sqlite:///{tmp_path / 'class.sqlite3'}")
    code = store.create_room().code
    room_channel = channel.ClassChannel(lambda: store, cap=SessionCap(2), join_deadline=0.3)
    address = "10.0.0.5"

    async def run():
        server, port = _serve(room_channel)
        base = f"http://127.0.0.1:{port}"
        request = HTTPRequest(
            f"ws://127.0.0.1:{port}{channel.SOCKET_PATH}", headers={"Origin": base, "X-Real-Ip": address}
        )
        try:
            joined = await _student(port, code, address, 1)  # opened first: its deadline passes first
            silent = await websocket_connect(request)
            assert await asyncio.wait_for(silent.read_message(), 10) is None  # None: closed by the server
            closed = silent.close_code, silent.close_reason
            silent.close()  # the client lets go of it too
            while room_channel.cap.open[address] != 1:  # the server's on_close gives its place back
                await asyncio.sleep(0.01)
            answer, _ = await joined.submit(1, 4.0)  # the joined socket is still served
            joined_closed = joined.closed
            again = await _student(port, code, address, 2)  # the place is free again (cap 2)
            for s in (joined, again):
                await s.close()
            return closed, answer, joined_closed
        finally:
            server.stop()

    try:
        closed, answer, joined_closed = run_coroutine(run())
    finally:
        store.close()
    assert closed == (1008, "no join in time"), closed
    assert answer["ok"] and joined_closed is None, (answer, joined_closed)


@pytest.mark.parametrize("deadline", [0, -1, True, "10"])
def test_a_join_deadline_that_is_not_a_positive_number_is_named(deadline):
    with pytest.raises(ValueError, match=f"join_deadline must be a positive number of seconds, got {deadline!r}"):
        channel.ClassChannel(lambda: None, join_deadline=deadline)
