"""The class survives its server: a SIGKILL mid-class loses no acknowledged prediction, and
two server processes on one database share one room. On SQLite and on a real PostgreSQL server."""

from __future__ import annotations

import asyncio
import sys

import pytest

from attention_explorable.classroom.store import Store

from ..conftest import ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))
from classlib import ClassServer, ClassStudent, InstructorClient, login_cookie, open_students  # noqa: E402
from . import run_coroutine  # noqa: E402

NO_CAP = ["--max-sessions-per-client", "0"]


def _new_room(db: str) -> str:
    store = Store(db)
    try:
        return store.create_room().code
    finally:
        store.close()


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

    async def burst():
        students = await open_students([server.base], code, n, "k")
        acked: dict[str, float] = {}

        async def one(i, s):
            await asyncio.sleep(0.05 * i)  # a burst spread over 0.6 s
            try:
                receipt, _ = await s.submit(1, 3.0 + i / 4, timeout=5)
            except Exception:  # noqa: BLE001 - the server is gone: no receipt, nothing promised
                return
            if receipt.get("ok"):
                acked[s.student_id] = receipt["value"]

        async def killer():
            while len(acked) < n // 3:
                await asyncio.sleep(0.005)
            server.kill()  # mid-burst: some acknowledged, some in flight, some never sent

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
            s = await ClassStudent.open(restarted.base, code, first)
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
                await asyncio.sleep(0.1)
                if all(s.step == 3 for s in students):
                    break
            steps = [s.step for s in students]
            await asyncio.gather(teacher.close(), *(s.close() for s in students))
            return steps

        steps = run_coroutine(lesson())
        assert steps == [3] * (2 * per_server)
        assert len(_stored(db_url, code)) == 2 * per_server
        assert not a.log_errors() and not b.log_errors()
