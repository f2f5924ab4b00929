"""The class survives its server: a SIGKILL mid-class loses no acknowledged prediction, and
two server processes on one database share one room. On SQLite and on a real PostgreSQL server."""

from __future__ import annotations

import asyncio
import sys
import time

import pytest

from attention_explorable.classroom.context import STORE_TIMEOUT_S

from attention_explorable.classroom.store import Store

from ..conftest import ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))
from benchlib import BokehSession  # noqa: E402
from classlib import ClassServer, ClassStudent, InstructorClient, login_cookie, open_students  # noqa: E402
from . import run_coroutine  # noqa: E402

NO_CAP = ["--max-sessions-per-client", "0"]


def _new_room(db: str) -> str:
    store = Store(db)
    try:
        return store.create_room().code
    finally:
        store.close()


async def _every_page_built(server) -> None:
    """Return once the server has built every page: the textbook in English is the last it builds
    (``PageCache.order``), and a request waits for its page. What is timed after this is an answer
    from memory, not one that shares the machine with the pages' build."""
    from tornado.httpclient import AsyncHTTPClient

    for path in ("/steps", "/textbook?lang=zh", "/textbook?lang=en"):
        await AsyncHTTPClient().fetch(f"{server.base}{path}", request_timeout=180)


def _stored(db: str, code: str) -> dict[str, float]:
    store = Store(db)
    try:
        return {r["student"]: r["prediction"] for r in store.export_rows(code)}
    finally:
        store.close()


def test_sigkill_mid_class_keeps_every_acknowledged_prediction(db_url):
    code = _new_room(db_url)
    server = ClassServer(db_url, NO_CAP).start()
    n = 12
    signed: dict[str, str] = {}  # stored id -> the id the page keeps

    async def burst():
        students = await open_students([server.base], code, n, "k")
        acked: dict[str, float] = {}
        signed.update({s.stored_id: s.student_id for s in students})

        finished = []
        killed = asyncio.Event()
        tail = n - 4  # the students from here on answer only after the kill: never acknowledged

        def kill() -> None:
            if not killed.is_set():
                server.kill()  # mid-burst: some acknowledged, some in flight, some never sent
                killed.set()

        async def one(i, s):
            await asyncio.sleep(0.05 * i)  # a burst spread over 0.6 s
            if i >= tail:
                await killed.wait()
            try:
                receipt, _ = await s.submit(1, 3.0 + i / 4, timeout=5)
            except Exception:  # noqa: BLE001 - the server is gone: no receipt, nothing promised
                return
            finally:
                finished.append(i)
            if receipt.get("ok"):
                acked[s.stored_id] = receipt["value"]
                if len(acked) == n // 3:
                    kill()  # as the third receipt arrives, however loaded the machine

        async def killer():
            # When every answer before the tail has ended with fewer receipts than that (the assertion
            # below then says so, rather than a hang).
            while not killed.is_set() and len(finished) < tail:
                await asyncio.sleep(0.005)  # the poll's interval
            kill()

        await asyncio.gather(killer(), *(one(i, s) for i, s in enumerate(students)))
        await asyncio.gather(*(s.close() for s in students))
        return acked

    try:
        acked = run_coroutine(burst())
    finally:
        server.kill()
    assert n // 3 <= len(acked) < n, f"the kill did not land mid-burst: {len(acked)} of {n} acknowledged"

    restarted = ClassServer(db_url, NO_CAP, port=server.port).start()
    try:
        stored = _stored(db_url, code)
        assert {k: stored.get(k) for k in acked} == acked  # every acknowledged prediction is there

        async def reload():  # a student reloads and rejoins with the prediction restored
            first = next(iter(acked))
            s = await ClassStudent.open(restarted.base, code, signed[first])  # signed before the restart
            await s.close()
            return s.restored

        restored = run_coroutine(reload())
        assert restored == {"step": 1, "value": acked[next(iter(acked))]}
        assert not restarted.log_errors()
    finally:
        restarted.stop()


@pytest.mark.parametrize("db_url", ["sqlite", "postgresql"], indirect=True)
def test_two_processes_share_one_room(db_url):
    code = _new_room(db_url)
    per_server = 15 if db_url.startswith("postgresql") else 5  # 30 students on PostgreSQL
    with ClassServer(db_url, NO_CAP) as a, ClassServer(db_url, NO_CAP) as b:

        async def lesson():
            teacher = await InstructorClient.open(a.base, code, login_cookie(a.base))
            students = await open_students([a.base, b.base], code, 2 * per_server, "p")
            results = await asyncio.gather(*(s.submit(1, 6.0 + (i % 8) / 4) for i, s in enumerate(students)))
            assert all(r["ok"] for r, _ in results)
            await teacher.wait_count(2 * per_server)  # the instructor on A counts B's students too
            store = Store(db_url)
            try:
                store.set_step(code, 3)  # the instructor's step reaches the students of both processes
            finally:
                store.close()
            for _ in range(60):
                await asyncio.sleep(0.1)  # the poll's interval
                if all(s.step == 3 for s in students):
                    break
            steps = [s.step for s in students]
            await asyncio.gather(teacher.close(), *(s.close() for s in students))
            return steps

        steps = run_coroutine(lesson())
        assert steps == [3] * (2 * per_server)
        assert len(_stored(db_url, code)) == 2 * per_server
        assert not a.log_errors() and not b.log_errors()


def _click(button: str) -> dict:
    """A PATCH-DOC event: the button of model id ``button`` pressed (as BokehJS sends it)."""
    return {
        "kind": "MessageSent",
        "msg_type": "bokeh_event",
        "msg_data": {
            "type": "event",
            "name": "button_click",
            "values": {"type": "map", "entries": [["model", {"id": button}]]},
        },
    }


def test_an_instructor_action_on_a_locked_database_stalls_no_page(tmp_path):
    """揭晓 pressed while another process holds the write lock: pages still answer at once, and the
    reveal is stored once the lock is gone (the instructor's writes run in a thread of their own)."""
    import sqlite3

    from tornado.httpclient import AsyncHTTPClient

    path = tmp_path / "class.sqlite3"
    db = f"sqlite:///{path}"
    code = _new_room(db)
    with ClassServer(db, NO_CAP) as server:
        cookies = login_cookie(server.base)

        async def run():
            session = await BokehSession.open(server.base, "instructor", query=f"room={code}", cookies=cookies)
            await _every_page_built(server)  # built, before the lock
            lock = sqlite3.connect(path, timeout=1, isolation_level=None)
            lock.execute("BEGIN IMMEDIATE")
            try:
                pressed = asyncio.ensure_future(session.patch([_click(session.find("ae-reveal", type_name="Button"))]))
                await asyncio.sleep(0.5)  # the reveal is waiting on the lock in the server
                t0 = asyncio.get_running_loop().time()
                page = await AsyncHTTPClient().fetch(f"{server.base}/steps", request_timeout=20)
                page_s = asyncio.get_running_loop().time() - t0
                await pressed
            finally:
                lock.execute("ROLLBACK")
                lock.close()
            await session.close()
            return page.code, page_s

        status, page_s = run_coroutine(run())
        assert status == 200 and page_s < 1.0, page_s  # not the 10 s the lock holds a write
        store = Store(db)
        try:
            deadline = time.monotonic() + 15
            while not store.revealed(code, 1) and time.monotonic() < deadline:
                time.sleep(0.1)  # the poll's interval
            assert store.revealed(code, 1)
        finally:
            store.close()
        assert not server.log_errors(), server.log()[-2000:]


def test_a_locked_database_stalls_no_page_and_no_other_socket_and_the_answer_is_stored_after(tmp_path):
    """Another process holds the SQLite file's write lock (a backup, a stuck script) for longer than the
    store's timeout: the pages and the other sockets go on, and the student whose answer waits is not
    told it failed: the receipt comes, "stored", once the lock is gone."""
    import sqlite3

    from tornado.httpclient import AsyncHTTPClient

    path = tmp_path / "class.sqlite3"
    db = f"sqlite:///{path}"
    code = _new_room(db)
    stored_as: list[str] = []
    with ClassServer(db, NO_CAP) as server:

        async def run():
            writer = await ClassStudent.open(server.base, code, "a" * 32)
            await _every_page_built(server)  # built, before the lock
            lock = sqlite3.connect(path, timeout=1, isolation_level=None)
            lock.execute("BEGIN IMMEDIATE")  # the write lock: every write waits for it (busy_timeout 10 s)
            try:
                submitting = asyncio.ensure_future(writer.submit(1, 4.5, timeout=20))
                await asyncio.sleep(0.3)  # the submission is waiting on the lock in the server
                t0 = asyncio.get_running_loop().time()
                page = await AsyncHTTPClient().fetch(f"{server.base}/steps", request_timeout=20)
                page_s = asyncio.get_running_loop().time() - t0
                other = await ClassStudent.open(server.base, code, "b" * 32)  # a join reads only
                joined_s = asyncio.get_running_loop().time() - t0
                # Held past the store's timeout: the receipt has not come, stored or failed.
                await asyncio.sleep(STORE_TIMEOUT_S + 1.0 - (asyncio.get_running_loop().time() - t0))
                assert not submitting.done()
            finally:
                lock.execute("ROLLBACK")
                lock.close()
            receipt, waited_ms = await submitting
            again, _ = await writer.submit(1, 4.5, timeout=20)
            await writer.close()
            await other.close()
            stored_as.append(writer.stored_id)
            return page.code, page_s, other.joined, joined_s, receipt, waited_ms, again

        status, page_s, joined, joined_s, receipt, waited_ms, again = run_coroutine(run())
        assert status == 200 and page_s < 1.0, page_s  # not the 10 s the lock holds a write
        assert joined["type"] == "joined" and joined_s < 2.0, joined_s
        assert receipt["ok"] is True and waited_ms > 1000 * STORE_TIMEOUT_S, (receipt, waited_ms)
        assert again["ok"] is True
        assert not server.log_errors(), server.log()[-2000:]
    assert _stored(db, code) == {stored_as[0]: 4.5}


def test_a_paused_postgresql_stalls_no_page_and_its_students_answer_is_stored_when_it_goes_on(postgres):
    """Every process of the PostgreSQL server stopped (SIGSTOP, a frozen database machine) for longer than
    the store's timeout: a page is answered at once, and the student whose answer waits gets its receipt,
    "stored", once the server goes on (never a "failed" for an answer that is stored)."""
    import os

    from tornado.httpclient import AsyncHTTPClient

    db = postgres.create_database(f"paused_{os.getpid()}")
    code = _new_room(db)
    stored_as: list[str] = []
    with ClassServer(db, NO_CAP) as server:

        async def run():
            writer = await ClassStudent.open(server.base, code, "c" * 32)
            await _every_page_built(server)  # built, before the pause
            with postgres.paused():
                submitting = asyncio.ensure_future(writer.submit(1, 4.5, timeout=20))
                await asyncio.sleep(0.3)  # the submission is waiting on the frozen server
                t0 = asyncio.get_running_loop().time()
                page = await AsyncHTTPClient().fetch(f"{server.base}/steps", request_timeout=20)
                page_s = asyncio.get_running_loop().time() - t0
                await asyncio.sleep(STORE_TIMEOUT_S + 1.0 - (asyncio.get_running_loop().time() - t0))
                assert not submitting.done()
            receipt, waited_ms = await submitting
            again, _ = await writer.submit(1, 4.5, timeout=30)
            await writer.close()
            stored_as.append(writer.stored_id)
            return page.code, page_s, receipt, waited_ms, again

        status, page_s, receipt, waited_ms, again = run_coroutine(run())
        assert status == 200 and page_s < 1.0, page_s  # a page is a file: it does not wait for the database
        assert receipt["ok"] is True and waited_ms > 1000 * STORE_TIMEOUT_S, (receipt, waited_ms)
        assert again["ok"] is True, again
        assert not server.log_errors(), server.log()[-2000:]
    assert _stored(db, code) == {stored_as[0]: 4.5}
