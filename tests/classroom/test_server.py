"""The class served: 30 students over the protocol, the instructor's login and CSV, the guards.

Each student is a protocol client (``benchmarks/classlib.py``): it sends what
a student's page sends and reads what the server answers, so a room of 30
costs seconds; the browser tests (``tests/browser/test_classroom_browser.py``)
drive a few real pages.
"""

from __future__ import annotations

import asyncio
import csv
import gc
import io
import json
import math
import re
import sys

import pytest
from tornado.httpclient import HTTPClientError, HTTPRequest
from tornado.websocket import websocket_connect

from attention_explorable.classroom.store import Store

from ..conftest import ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))
from benchlib import BokehSession  # noqa: E402
from classlib import (KEY, ClassServer, ClassStudent, InstructorClient, http_get, login_cookie,  # noqa: E402
                      open_students, post_login, student_id)

from . import run_coroutine  # noqa: E402


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    db = f"sqlite:///{tmp_path_factory.mktemp('class') / 'class.sqlite3'}"
    with ClassServer(db, ["--max-sessions-per-client", "0"]) as server:
        yield server
        assert not server.log_errors(), server.log()[-3000:]


def _room(server) -> str:
    store = Store(server.db)
    try:
        return store.create_room().code
    finally:
        store.close()


# Under load one of the 31 client sockets of this test is now and then collected unclosed
# after its loop has ended (a test client's socket, not the server's): collected here, so
# that the warning is this test's and not a later test's.
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_thirty_students_counted_exactly_a_new_answer_replaces_and_nothing_leaks(served):
    code = _room(served)
    cookie = login_cookie(served.base)

    async def lesson():
        teacher = await InstructorClient.open(served.base, code, cookie)
        students = await open_students([served.base], code, 30, "a")
        try:
            values = [2.0 + 0.25 * i for i in range(30)]  # distinct, so a leak would show
            results = await asyncio.gather(*(s.submit(1, v) for s, v in zip(students, values)))
            assert all(r["ok"] and r["step"] == 1 and r["value"] == v for (r, _), v in zip(results, values))
            await teacher.wait_count(30)
            await asyncio.sleep(1.05)  # one prediction a second per student
            changed, _ = await students[0].submit(1, 9.5)
            assert changed["ok"]
            too_soon, _ = await students[0].submit(1, 9.75)
            assert not too_soon["ok"] and too_soon["reason"] == "rate"
            await asyncio.sleep(0.6)
            assert teacher.count == 30  # replaced, not added
            # No student ever received another student's prediction (or any count).
            for i, s in enumerate(students):
                others = "".join(s.received)
                for j, v in enumerate(values):
                    if j != i and not (i == 0 and v in (9.5, 9.75)):
                        assert f'"value": {v}' not in others and f'\\"value\\": {v}' not in others
                assert "ae-prediction-count" not in others
        finally:
            await asyncio.gather(*(s.close() for s in students), teacher.close())
        return values

    values = run_coroutine(lesson())
    gc.collect()
    store = Store(served.db)
    try:
        stored = sorted(store.values(code, 1))
    finally:
        store.close()
    assert stored == sorted([9.5] + values[1:])


@pytest.mark.parametrize("raw, reason", [
    ('{"seq": 5, "step": 1, "value": NaN}', "value"),
    ('{"seq": 6, "step": 1, "value": Infinity}', "value"),
    ('{"seq": 7, "step": 1, "value": 20.01}', "value"),
    ('{"seq": 8, "step": 1, "value": "6"}', "value"),
    ('{"seq": 9, "step": 4, "value": 6}', "step"),
    ("not json", "value"),
    ('{"step": 1, "value": ' + "1" * 500 + "}", "value"),  # longer than any page sends
])
def test_refused_predictions_get_a_reason_and_are_never_stored(served, raw, reason):
    code = _room(served)

    async def run():
        s = await ClassStudent.open(served.base, code, student_id(1, "r"))
        try:
            receipt, _ = await s.submit(1, None, raw=raw)
            return receipt
        finally:
            await s.close()

    receipt = run_coroutine(run())
    assert receipt["ok"] is False and receipt["reason"] == reason
    store = Store(served.db)
    try:
        assert store.export_rows(code) == []
    finally:
        store.close()


def test_a_reload_rejoins_with_the_step_and_prediction_and_a_followed_step_reaches_the_student(served):
    code = _room(served)
    store = Store(served.db)

    async def run():
        s = await ClassStudent.open(served.base, code, student_id(2, "f"))
        await s.submit(1, 6.5)
        await s.close()
        again = await ClassStudent.open(served.base, code, student_id(2, "f"))  # the same id: a reload
        await asyncio.sleep(0.3)
        restored = [r for r in again.receipts if r.get("restored")]
        text = again.state_value("prediction_text")
        store.set_step(code, 2)  # the instructor moves on; the student follows
        for _ in range(50):
            await asyncio.sleep(0.1)
            if again.state_value("step") == 2:
                break
        step = again.state_value("step")
        store.new_round(code)
        for _ in range(50):
            await asyncio.sleep(0.1)
            if any("new_round" in r for r in again.receipts):
                break
        await again.close()
        return restored, text, step, again.receipts

    try:
        restored, text, step, receipts = run_coroutine(run())
    finally:
        store.close()
    assert restored and restored[0]["value"] == 6.5 and restored[0]["step"] == 1
    assert text == "6.5"
    assert step == 2
    assert {"new_round": 2} in [{k: v for k, v in r.items() if k != "t"} for r in receipts]


def test_the_textbook_in_a_room_submits_from_its_steps_explorable(served):
    code = _room(served)

    async def run():
        s = await ClassStudent.open(served.base, code, student_id(4, "t"), app="textbook")
        try:
            receipt, _ = await s.submit(1, 6.0)
            return receipt
        finally:
            await s.close()

    receipt = run_coroutine(run())
    assert receipt["ok"] and receipt["step"] == 1
    store = Store(served.db)
    try:
        assert store.values(code, 1) == [6.0]
    finally:
        store.close()


def test_an_unknown_room_is_said_to_be_unknown(served):
    async def run():
        s = await ClassStudent.open(served.base, "ZZZZZZ", student_id(3, "u"))
        await asyncio.sleep(0.3)
        receipts = list(s.receipts)
        await s.close()
        return receipts

    receipts = run_coroutine(run())
    assert receipts and receipts[0]["ok"] is False and receipts[0]["reason"] == "room"


def test_the_instructor_secret_is_exchanged_for_a_signed_httponly_samesite_cookie(served):
    status, headers, body = post_login(served.base, KEY, room="ABCDEF")
    assert status == 303 and headers["Location"] == "/instructor?room=ABCDEF"
    cookie = headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and KEY not in cookie
    assert KEY not in headers["Location"]
    wrong = post_login(served.base, "not-the-key")
    assert wrong[0] == 403 and "ae-instructor-key" in wrong[2] and "密钥不对" in wrong[2]
    assert "not-the-key" not in served.log() and KEY not in served.log()


#: The room code's element (its class in an HTML pane's text, escaped or not), not the stylesheet's rule.
ROOM_CODE_ELEMENT = re.compile(r"class=(&#x27;|'|\\\"|&quot;)ae-room-code")


def _instructor_document(base: str, code: str, cookies=None) -> str:
    """Everything the server sends a browser that opens /instructor?room=CODE (with ``cookies``)."""

    async def run():
        session = await BokehSession.open(base, "instructor", query=f"room={code}", cookies=cookies)
        received = []
        session.listeners.append(lambda msg: received.append(json.dumps(msg.content)))
        await asyncio.sleep(0.6)  # and what it pushes next
        await session.close()
        return json.dumps(session.models) + "".join(received)

    return run_coroutine(run())


def test_students_get_only_the_login_form_and_no_csv(served):
    code = _room(served)
    anonymous = _instructor_document(served.base, code)
    assert "ae-instructor-key" in anonymous and "ae-instructor-login" in anonymous
    assert not ROOM_CODE_ELEMENT.search(anonymous)
    assert '"ae-reveal"' not in anonymous and '"ae-histogram"' not in anonymous
    forged = {"ae_instructor": '"2|1:0|10:1796106530|13:ae_instructor|16:aW5zdHJ1Y3Rvcg==|00"'}
    assert not ROOM_CODE_ELEMENT.search(_instructor_document(served.base, code, forged))
    assert http_get(f"{served.base}/instructor/rooms/{code}.csv")[0] == 403
    assert http_get(f"{served.base}/instructor/rooms/{code}.csv", forged)[0] == 403
    teacher = _instructor_document(served.base, code, login_cookie(served.base))
    assert ROOM_CODE_ELEMENT.search(teacher) and code in teacher and "ae-instructor-key" not in teacher


def test_the_csv_has_every_round(served):
    code = _room(served)
    store = Store(served.db)
    try:
        store.submit(code, student_id(1, "c"), 1, 6.0)
        store.new_round(code)
        store.submit(code, student_id(2, "c"), 2, -3.5)
    finally:
        store.close()
    status, headers, body = http_get(f"{served.base}/instructor/rooms/{code}.csv", login_cookie(served.base))
    assert status == 200 and headers["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(body)))
    assert [(r["round"], r["step"], r["prediction"]) for r in rows] == [("1", "1", "6.0"), ("2", "2", "-3.5")]


def test_ten_failed_logins_a_minute_then_refused_even_with_the_right_secret(tmp_path):
    with ClassServer(f"sqlite:///{tmp_path / 'c.sqlite3'}") as server:
        assert [post_login(server.base, f"guess-{i}")[0] for i in range(10)] == [403] * 10
        status, _, body = post_login(server.base, KEY)
        assert status == 429 and "一分钟" in body
        assert not server.log_errors()


def test_a_websocket_from_a_forged_origin_is_refused(served):
    async def run(origin):
        session = BokehSession(served.base, "steps")
        status, _, page = http_get(f"{served.base}/steps")
        token = json.loads(page.split('"token":', 1)[1].split(",", 1)[0]) if '"token":' in page else ""
        request = HTTPRequest(f"ws://127.0.0.1:{served.port}/steps/ws", headers={"Origin": origin})
        try:
            ws = await websocket_connect(request, subprotocols=["bokeh", token])
        except HTTPClientError as err:
            return err.code
        ws.close()
        await ws.read_message()  # the close handshake: the socket is closed before the loop ends
        del session
        return 101

    assert run_coroutine(run("http://evil.example")) == 403
    assert run_coroutine(run(f"http://localhost:{served.port}")) == 101  # the default origins still connect


def test_a_client_with_too_many_sessions_is_refused_with_a_message(tmp_path):
    async def open_pages(base, n):
        sessions = [await BokehSession.open(base, "vector") for _ in range(n)]
        texts = [json.dumps(s.models, ensure_ascii=False) for s in sessions]
        await asyncio.gather(*(s.close() for s in sessions))
        return texts

    with ClassServer(f"sqlite:///{tmp_path / 'c.sqlite3'}", ["--max-sessions-per-client", "3"]) as server:
        pages = run_coroutine(open_pages(server.base, 4))
        assert all("ae-session-refused" not in p for p in pages[:3])
        assert "ae-session-refused" in pages[3] and "3 个页面" in pages[3]
        assert not server.log_errors()


def test_no_traceback_for_a_non_finite_json_number(served):
    assert math.isnan(json.loads("NaN"))  # what a forged client could send; refused above, never logged
    assert "Traceback" not in served.log()
