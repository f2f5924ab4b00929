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
import html
import io
import json
import math
import re
import sys
import time
import urllib.parse
from email.utils import parsedate_to_datetime

import pytest
from tornado.httpclient import HTTPClientError, HTTPRequest
from tornado.websocket import WebSocketClosedError, websocket_connect

from attention_explorable.classroom.store import Store

from ..conftest import ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))
from benchlib import BokehSession  # noqa: E402
from classlib import (
    KEY,
    ClassServer,
    ClassStudent,
    InstructorClient,
    http_get,
    login_cookie,  # noqa: E402
    cookies_set,
    open_students,
    post_login,
    student_id,
)

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
            await asyncio.sleep(0.6)  # time for a count that changed to reach the teacher (it is told each change)
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


def test_the_instructor_sees_who_is_in_the_room_and_who_answered_as_they_join_answer_and_leave(served):
    """K students join, M of them answer: the projector says "in the room: K · answered: M", and one fewer in
    the room once a student's page is closed (the store's count, which every process of the class writes)."""
    from attention_explorable.classroom.instructor import InstructorView

    code = _room(served)
    store = Store(served.db)
    view = InstructorView(code=code, language="en", store=store)

    def shows(present: int, answered: int) -> str:
        expected = f"In the room: {present} · answered: {answered}"
        deadline = time.monotonic() + 10
        while expected not in view._presence.object:
            assert time.monotonic() < deadline, view._presence.object
            time.sleep(0.05)  # the instructor page's reads (REFRESH_MS)
            view.refresh()
        return view._presence.object

    async def run(k: int, m: int):
        students = await open_students([served.base], code, k, "here")
        try:
            await asyncio.gather(*(s.submit(1, 5.0 + i) for i, s in enumerate(students[:m])))
            await asyncio.to_thread(shows, k, m)
            await students[-1].close()
            await asyncio.to_thread(shows, k - 1, m)
        finally:
            await asyncio.gather(*(s.close() for s in students[:-1]))

    try:
        assert shows(0, 0)
        run_coroutine(run(4, 3))
    finally:
        store.close()


@pytest.mark.parametrize(
    "raw, reason",
    [
        ('{"type": "submit", "seq": 5, "step": 1, "value": NaN}', "value"),
        ('{"type": "submit", "seq": 6, "step": 1, "value": Infinity}', "value"),
        ('{"type": "submit", "seq": 7, "step": 1, "value": 20.01}', "value"),
        ('{"type": "submit", "seq": 8, "step": 1, "value": "6"}', "value"),
        ('{"type": "submit", "seq": 9, "step": 4, "value": 6}', "step"),
    ],
)
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


@pytest.mark.parametrize(
    "raw, code, says",
    [
        ("not json", 1008, "not JSON"),
        ('["submit", 1, 6]', 1008, "not a message object"),
        ('{"type": "submit", "step": 1, "value": 6}', 1008, "sequence number"),
        ('{"type": "join", "room": "ABCDEF", "student": "x"}', 1008, "unexpected message"),  # a second join
        ('{"type": "reveal"}', 1008, "unexpected message"),
        ('{"type": "submit", "seq": 1, "step": 1, "value": ' + "1" * 500 + "}", 1009, "too long"),
    ],
)
def test_a_malformed_message_closes_its_socket_with_a_reason_and_stores_nothing(served, raw, code, says):
    room = _room(served)

    async def run():
        s = await ClassStudent.open(served.base, room, student_id(5, "m"))
        try:
            answer, _ = await s.submit(1, None, raw=raw)
            return answer
        finally:
            await s.close()

    answer = run_coroutine(run())
    assert answer["closed"] == code and says in answer["reason"]
    store = Store(served.db)
    try:
        assert store.export_rows(room) == []
    finally:
        store.close()
    assert "Traceback" not in served.log()


def test_a_reload_rejoins_with_the_step_and_prediction_and_a_followed_step_reaches_the_student(served):
    code = _room(served)
    store = Store(served.db)

    async def run():
        s = await ClassStudent.open(served.base, code, student_id(2, "f"))
        await s.submit(1, 6.5)
        await s.close()
        again = await ClassStudent.open(served.base, code, s.student_id)  # the id the server gave: a reload
        restored = again.restored
        store.set_step(code, 2)  # the instructor moves on; the student follows
        for _ in range(50):
            await asyncio.sleep(0.1)  # the poll's interval
            if again.step == 2:
                break
        step = again.step
        store.new_round(code)
        for _ in range(50):
            await asyncio.sleep(0.1)  # the poll's interval
            if any(n["round"] == 2 for n in again.news):
                break
        await again.close()
        return restored, step, again.news

    try:
        restored, step, news = run_coroutine(run())
    finally:
        store.close()
    assert restored == {"step": 1, "value": 6.5}
    assert step == 2
    assert [n["round"] for n in news] == [1, 2] and news[-1]["step"] == 2


def test_the_textbook_in_a_room_submits_from_its_steps_explorable(served):
    code = _room(served)
    status, _, page = http_get(f"{served.base}/textbook?room={code}")
    assert status == 200 and 'id="ae-class-config"' in page and '<script src="attention-textbook.js">' in page
    # its steps explorable carries the class panel: the class's script, in the file the textbook loads
    status, _, script = http_get(f"{served.base}/attention-textbook.js")
    assert status == 200 and "ae-submit-prediction" in script

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


@pytest.mark.parametrize(
    "room, student, reason",
    [
        ("ZZZZZZ", student_id(3, "u"), "room"),
        ("not a code", student_id(3, "u"), "room"),
        (None, student_id(3, "u"), "room"),
    ],
)
def test_a_join_that_cannot_be_is_refused_with_its_reason(served, room, student, reason):
    async def join():
        from tornado.websocket import websocket_connect

        socket = await websocket_connect(
            HTTPRequest(served.base.replace("http", "ws") + "/class/socket", headers={"Origin": served.base})
        )
        await socket.write_message(json.dumps({"type": "join", "room": room, "student": student}))
        answer = await socket.read_message()
        closed = await socket.read_message()
        socket.close()  # the client lets go of it too
        return json.loads(answer), closed, socket.close_code, socket.close_reason

    answer, closed, code, why = run_coroutine(join())
    assert answer == {"type": "refused", "reason": reason}
    assert closed is None and code == 4001 and why == reason


def test_ids_are_the_servers_a_made_up_one_restores_nothing_and_an_id_answers_on_one_socket(served):
    """A join with an id the server did not sign (made up, or another student's without its signature)
    is given a new one and restores nothing; the id joining again elsewhere takes over its student."""
    code = _room(served)

    async def run():
        first = await ClassStudent.open(served.base, code, student_id(6, "i"))
        assert first.student_id != student_id(6, "i") and first.stored_id != student_id(6, "i")
        assert (await first.submit(1, 2.5))[0]["ok"]
        stolen = await ClassStudent.open(served.base, code, first.stored_id)  # the stored part, unsigned
        forged = await ClassStudent.open(served.base, code, first.stored_id + "-" + "A" * 22)
        for other in (stolen, forged):
            assert other.restored is None and other.stored_id != first.stored_id
        tab = await ClassStudent.open(served.base, code, first.student_id)  # the same student, another tab
        assert tab.restored == {"step": 1, "value": 2.5} and tab.student_id == first.student_id
        for _ in range(50):
            if first.closed:
                break
            await asyncio.sleep(0.05)  # the poll's interval
        refused = first.refused, first.closed
        receipt = (await tab.submit(1, 3.5))[0]
        while receipt.get("reason") == "rate":  # one prediction a second per student, in any tab
            await asyncio.sleep(0.2)  # the poll's interval
            receipt = (await tab.submit(1, 3.5))[0]
        assert receipt["ok"], receipt
        for s in (first, stolen, forged, tab):
            await s.close()
        return refused

    refused = run_coroutine(run())
    assert refused == ("elsewhere", (4001, "elsewhere"))
    store = Store(served.db)
    try:
        assert sorted(store.values(code, 1)) == [3.5]  # one student, one prediction
    finally:
        store.close()


def test_new_ids_from_one_address_are_capped_per_room_and_minute(tmp_path):
    db = f"sqlite:///{tmp_path / 'c.sqlite3'}"
    with ClassServer(db, ["--max-sessions-per-client", "0", "--max-new-students-per-minute", "3"]) as server:
        code = _room(server)

        async def run():
            joined = [await ClassStudent.open(server.base, code, student_id(i, "n")) for i in range(4)]
            refused = [s.refused for s in joined]
            again = await ClassStudent.open(server.base, code, joined[0].student_id)  # a known id: no new one
            for s in (*joined, again):
                await s.close()
            return refused, again.restored, again.refused

        refused, _, again_refused = run_coroutine(run())
        assert refused == [None, None, None, "wait"] and again_refused is None
        assert not server.log_errors()


def test_a_countdown_is_told_to_the_pages_and_closes_the_vote_by_itself(served):
    """The instructor's T: the pages get the seconds left; once they have run out, an answer is refused and
    the pages are told the vote is closed (no one had to press C)."""
    code = _room(served)
    store = Store(served.db)

    async def run():
        s = await ClassStudent.open(served.base, code, "countdown")
        store.close_voting_in(code, 1, 1.5)
        deadline = asyncio.get_running_loop().time() + 10
        while not any(m.get("closes_in") for m in s.news) and asyncio.get_running_loop().time() < deadline:
            await asyncio.sleep(0.05)  # the poll's interval
        told = [m["closes_in"] for m in s.news if m.get("closes_in")]
        while not any(m.get("closed") for m in s.news) and asyncio.get_running_loop().time() < deadline:
            await asyncio.sleep(0.05)  # the poll's interval
        closed = [m for m in s.news if m.get("closed")]
        receipt, _ = await s.submit(1, 6.0, timeout=10)
        await s.close()
        return told, closed, receipt

    try:
        told, closed, receipt = run_coroutine(run())
    finally:
        store.close()
    assert told and 0 < told[0] <= 1.5, told
    assert closed and closed[0]["closes_in"] is None, closed
    assert receipt == {**receipt, "ok": False, "reason": "closed"}


def test_an_ended_room_is_joined_by_no_one_and_its_students_are_told(served):
    code = _room(served)
    store = Store(served.db)

    async def run():
        s = await ClassStudent.open(served.base, code, student_id(8, "e"))
        assert (await s.submit(1, 1.5))[0]["ok"]
        store.end_room(code)
        for _ in range(50):
            if s.closed:
                break
            await asyncio.sleep(0.1)  # the poll's interval
        late = await ClassStudent.open(served.base, code, s.student_id)
        for one in (s, late):
            await one.close()
        return s.refused, s.closed, late.refused

    try:
        told, closed, late = run_coroutine(run())
        assert told == "ended" and closed == (4001, "ended") and late == "ended"
        assert store.room(code).ended and store.latest_room() != store.room(code)
        assert store.submit(code, "f" * 32, 1, 2.0).reason == "ended"
        assert store.values(code, 1) == [1.5]  # the room's rounds stay
    finally:
        store.close()


def test_guessing_room_codes_is_refused_after_thirty_misses_a_minute_from_one_address(served):
    from attention_explorable.classroom.channel import MISSED_JOINS_PER_MINUTE

    room = _room(served)

    async def join(code, address):
        socket = await websocket_connect(
            HTTPRequest(
                served.base.replace("http", "ws") + "/class/socket",
                headers={"Origin": served.base},
                network_interface=address,
            )
        )
        try:
            await socket.write_message(json.dumps({"type": "join", "room": code, "student": student_id(4, "g")}))
            return json.loads(await socket.read_message())
        finally:
            socket.close()

    async def run():
        guesses = [await join(f"ZZZZ{a}{b}", "127.0.0.23") for a in "ABCDEF" for b in "ABCDEF"]
        return guesses, await join(room, "127.0.0.23"), await join(room, "127.0.0.24")

    guesses, same_address, other_address = run_coroutine(run())
    reasons = [g.get("reason") for g in guesses]
    assert reasons == ["room"] * MISSED_JOINS_PER_MINUTE + ["guessing"] * (len(guesses) - MISSED_JOINS_PER_MINUTE)
    assert same_address == {"type": "refused", "reason": "guessing"}  # even the right code, for that minute
    assert other_address["type"] == "joined"  # the rest of the class joins as before


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


def _instructor_document(base: str, code: str, cookies=None, query: str = "") -> str:
    """Everything the server sends a browser that opens /instructor?room=CODE (with ``cookies``, and ``query``)."""

    async def run():
        session = await BokehSession.open(base, "instructor", query=f"room={code}{query}", cookies=cookies)
        received = []
        session.listeners.append(lambda msg: received.append(json.dumps(msg.content)))
        await asyncio.sleep(0.6)  # and what it pushes next
        await session.close()
        return json.dumps(session.models) + "".join(received)

    return run_coroutine(run())


def _no_redirect_get(url: str, cookies=None) -> tuple[int, dict, str]:
    headers = {"Cookie": "; ".join(f"{k}={v}" for k, v in cookies.items())} if cookies else {}

    async def run():
        from tornado.httpclient import AsyncHTTPClient

        response = await AsyncHTTPClient().fetch(
            HTTPRequest(url, headers=headers, follow_redirects=False), raise_error=False
        )
        return response.code, dict(response.headers), response.body.decode()

    return run_coroutine(run())


def test_students_get_only_the_login_form_and_no_session_and_no_csv(served):
    code = _room(served)
    status, headers, _ = _no_redirect_get(f"{served.base}/instructor?room={code}")
    login = urllib.parse.urlsplit(urllib.parse.urljoin(f"{served.base}/instructor", headers["Location"]))
    assert status == 302 and login.path == "/instructor/login" and code in login.query  # no session made
    status, _, form = http_get(f"{served.base}/instructor?room={code}")  # where the browser lands
    assert status == 200 and "ae-instructor-key" in form and "ae-instructor-login" in form
    assert f"value='{code}'" in form and "bokeh" not in form.lower()  # the room comes back; a plain page
    with pytest.raises(Exception):  # no document, no socket
        _instructor_document(served.base, code)
    forged = {"ae_instructor": '"2|1:0|10:1796106530|13:ae_instructor|16:aW5zdHJ1Y3Rvcg==|00"'}
    assert _no_redirect_get(f"{served.base}/instructor?room={code}", forged)[0] == 302
    assert _no_redirect_get(f"{served.base}/instructor/autoload.js?bokeh-autoload-element=x")[0] == 403
    assert http_get(f"{served.base}/instructor/rooms/{code}.csv")[0] == 403
    assert http_get(f"{served.base}/instructor/rooms/{code}.csv", forged)[0] == 403
    teacher = _instructor_document(served.base, code, login_cookie(served.base))
    assert ROOM_CODE_ELEMENT.search(teacher) and code in teacher and "ae-instructor-key" not in teacher


def _no_redirect_post(url: str, cookies=None, origin: str | None = None) -> tuple[int, dict, str]:
    headers = {"Cookie": "; ".join(f"{k}={v}" for k, v in cookies.items())} if cookies else {}
    headers.update({"Origin": origin} if origin else {})

    async def run():
        from tornado.httpclient import AsyncHTTPClient

        request = HTTPRequest(url, method="POST", body="", headers=headers, follow_redirects=False)
        response = await AsyncHTTPClient().fetch(request, raise_error=False)
        return response.code, response.headers, response.body.decode()

    return run_coroutine(run())


def test_logging_out_ends_that_browsers_session_even_for_a_copy_of_its_cookie(served):
    code = _room(served)
    mine, other = login_cookie(served.base), login_cookie(served.base)  # two browsers of the instructor
    assert mine != other
    page = f"{served.base}/instructor?room={code}"
    assert _no_redirect_get(page, mine)[0] == 200 and "ae-logout" in _instructor_document(served.base, code, mine)
    # Another site's form cannot log the instructor out.
    status, _, _ = _no_redirect_post(f"{served.base}/instructor/logout", mine, origin="http://evil.example")
    assert status == 403 and _no_redirect_get(page, mine)[0] == 200
    status, headers, _ = _no_redirect_post(f"{served.base}/instructor/logout", mine, origin=served.base)
    assert status == 303 and headers["Location"].startswith("/instructor/login")
    cleared = [c for c in headers.get_list("Set-Cookie") if c.startswith("ae_instructor=")]
    expires = [re.search(r"expires=([^;]+)", c, re.I) for c in cleared]
    assert cleared and all(c.startswith('ae_instructor="";') for c in cleared), cleared
    assert all(e and parsedate_to_datetime(e.group(1)).timestamp() < time.time() for e in expires), cleared
    # The old cookie's value, kept or copied, opens nothing any more: not the page, its script, its CSV.
    assert _no_redirect_get(page, mine)[0] == 302
    assert http_get(f"{served.base}/instructor/autoload.js?bokeh-autoload-element=x", mine)[0] == 403
    assert http_get(f"{served.base}/instructor/rooms/{code}.csv", mine)[0] == 403
    with pytest.raises(Exception):
        _instructor_document(served.base, code, mine)
    assert _no_redirect_get(page, other)[0] == 200  # the other browser stays logged in


def test_a_token_without_the_cookie_opens_no_instructor_socket(served):
    """A script on the origin that got a page's session token still cannot open its socket."""
    cookie = login_cookie(served.base)
    page = http_get(f"{served.base}/instructor", cookie)[2]
    token = re.search(r'"token"\s*:\s*"([^"]+)"', page).group(1)
    host = served.base.split("://", 1)[1]

    async def run():
        request = HTTPRequest(f"ws://{host}/instructor/ws", headers={"Origin": served.base})
        conn = await websocket_connect(request, subprotocols=["bokeh", token])
        conn.close()

    with pytest.raises(HTTPClientError) as refused:
        run_coroutine(run())
    assert refused.value.code == 403


def test_the_instructor_socket_refuses_a_wrong_subprotocol_quietly_and_an_oversized_frame(served):
    """Logged in, a socket without Bokeh's subprotocol (or with another) is closed with a line in the log, not a
    traceback (the module's fixture fails on one); a frame announcing 19 MiB is closed with 1009 unbuffered."""
    import os
    import struct

    cookie = login_cookie(served.base)
    page = http_get(f"{served.base}/instructor", cookie)[2]
    token = re.search(r'"token"\s*:\s*"([^"]+)"', page).group(1)
    headers = {"Origin": served.base, "Cookie": "; ".join(f"{k}={v}" for k, v in cookie.items())}
    url = f"ws://127.0.0.1:{served.port}/instructor/ws"

    async def run():
        closed = []
        for protocols in (None, ["bokeh"], ["x", token]):
            conn = await websocket_connect(HTTPRequest(url, headers=headers), subprotocols=protocols)
            closed.append(await asyncio.wait_for(conn.read_message(), 10))  # None: closed by the server
            conn.close()
        conn = await websocket_connect(HTTPRequest(url, headers=headers), subprotocols=["bokeh", token])
        assert "ACK" in await asyncio.wait_for(conn.read_message(), 10)
        header = bytes([0x81, 0x80 | 127]) + struct.pack(">Q", 19 * 2**20) + os.urandom(4)
        await conn.protocol.stream.write(header + b"x" * 16)
        try:
            while await asyncio.wait_for(conn.read_message(), 10) is not None:
                pass
            return closed, conn.close_code
        finally:
            conn.close()

    closed, code = run_coroutine(run())
    assert closed == [None, None, None] and code == 1009, (closed, code)
    assert served.log().count("session socket /instructor/ws refused") == 3, served.log()[-2000:]


def _token_payloads(text: str) -> str:
    """Every Bokeh session token in ``text``, decoded (its payload is zlib-compressed JSON)."""
    from bokeh.util.token import get_token_payload

    payloads = []
    for token in set(re.findall(r'"token"\s*:\s*"([^"]+)"|\\"token\\"\s*:\s*\\"([^"\\]+)', text)):
        for part in filter(None, token):
            payloads.append(json.dumps(get_token_payload(part), default=repr))
    return "".join(payloads)


def test_no_page_or_script_of_the_instructor_holds_the_cookie(served):
    """The HttpOnly cookie stays in the browser's jar: not in the page, autoload.js, their tokens or the document."""
    code = _room(served)
    cookie = login_cookie(served.base)
    value = cookie["ae_instructor"].strip('"')
    signature = value.rsplit("|", 1)[-1]
    answers = {
        path: http_get(f"{served.base}{path}", cookie)
        for path in (
            f"/instructor?room={code}",
            "/instructor/autoload.js?bokeh-autoload-element=x",
            f"/instructor/autoload.js?bokeh-autoload-element=x&room={code}",
        )
    }
    assert all(status == 200 for status, _, _ in answers.values()), {p: a[0] for p, a in answers.items()}
    document = _instructor_document(served.base, code, cookie)
    texts = {**{p: a[2] for p, a in answers.items()}, "document": document}
    tokens = {p: _token_payloads(t) for p, t in texts.items() if p != "document"}
    assert all(tokens.values()), "a page or script without a session token: the grep would see nothing"
    for where, text_ in {**texts, **{f"token of {p}": t for p, t in tokens.items()}}.items():
        assert signature not in text_ and "ae_instructor" not in text_, where


def test_served_pages_carry_their_policy_as_a_header_and_no_instructor_page_goes_in_a_frame(served):
    """A student page's header is its own meta policy and ``frame-ancestors 'self'``; the instructor's pages,
    logged in or not, say ``frame-ancestors 'none'`` and ``X-Frame-Options: DENY`` (no clickjacking)."""
    for path in ("/steps", "/textbook?lang=en", "/"):
        status, headers, body = http_get(f"{served.base}{path}")
        meta = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">', body)
        assert status == 200 and meta, path
        policy = headers["Content-Security-Policy"]
        assert policy == html.unescape(meta.group(1)) + "; frame-ancestors 'self'", (path, policy)
        assert "default-src 'none'" in policy and "'unsafe-inline'" not in policy.split("style-src")[0], policy
    cookie = login_cookie(served.base)
    for path, cookies in (("/instructor", cookie), ("/instructor/login", None)):
        status, headers, _ = http_get(f"{served.base}{path}", cookies)
        assert status == 200, path
        assert headers["X-Frame-Options"] == "DENY", path
        assert "frame-ancestors 'none'" in headers["Content-Security-Policy"], path


def test_the_instructor_pages_run_only_their_own_scripts(served):
    """``/instructor`` allows this server's files and the inline scripts of that very response (by a nonce
    of its own), no plugin and no ``<base>``; the login page runs no script at all."""
    cookie = login_cookie(served.base)
    nonces = set()
    for _ in range(2):
        status, headers, page = http_get(f"{served.base}/instructor", cookie)
        policy = headers["Content-Security-Policy"]
        nonce = re.search(r"'nonce-([A-Za-z0-9_-]{16,})'", policy).group(1)
        nonces.add(nonce)
        assert status == 200 and policy.startswith("script-src 'self' "), policy
        assert "'unsafe-inline'" not in policy and "*" not in policy and "http" not in policy, policy
        for part in ("object-src 'none'", "base-uri 'none'", "frame-ancestors 'none'"):
            assert part in policy, policy
        inline = re.findall(r"<script\b(?![^>]*\bsrc=)[^>]*>", page)
        assert inline and all(f'nonce="{nonce}"' in tag for tag in inline), inline
    assert len(nonces) == 2  # a nonce per response
    status, headers, page = http_get(f"{served.base}/instructor/login")
    assert status == 200 and "<script" not in page
    assert headers["Content-Security-Policy"].startswith("script-src 'none'; object-src 'none'; base-uri 'none'")


def test_the_instructor_page_speaks_the_readers_language_and_its_join_url_carries_it(served):
    from attention_explorable.strings import text

    code = _room(served)
    cookie = login_cookie(served.base)
    english = _instructor_document(served.base, code, cookie, "&lang=en")
    remembered = _instructor_document(served.base, code, {**cookie, "ae-lang": "en"})
    chinese = _instructor_document(served.base, code, cookie)
    for key in ("instructor_reveal", "instructor_new_round", "instructor_room_code"):
        assert text(key, "en") in english and text(key, "en") in remembered, key
        assert json.dumps(text(key, "zh"))[1:-1] in chinese and text(key, "en") not in chinese, key
    assert f"/steps?room={code}&amp;amp;lang=en" in english  # the join URL, as escaped text in an HTML pane
    assert f"/steps?room={code}&lt;" in chinese  # Chinese is the default: no lang= needed
    # The login page too, and the login keeps the language.
    form = http_get(f"{served.base}/instructor?room={code}&lang=en")[2]
    assert text("instructor_login", "en") in form and "name='language' value='en'" in form
    status, headers, _ = post_login(served.base, KEY, room=code, language="en")
    assert status == 303 and headers["Location"] == f"/instructor?room={code}&lang=en"


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
    assert [r["question_round"] for r in rows] == ["1", "1"]  # step 2's first round is the room's second


def test_the_csv_downloads_with_a_row_it_cannot_read(served):
    """A stored row no release writes (text where a number goes, a time out of range) is written with empty
    cells: the download succeeds with every row."""
    from sqlalchemy import text as sql

    code = _room(served)
    store = Store(served.db)
    try:
        store.submit(code, student_id(1, "b"), 1, 6.0)
        with store.engine.begin() as conn:
            conn.execute(
                sql(
                    "INSERT INTO predictions (round_id, step, student, value, submitted_at, revisions) "
                    "SELECT rounds.id, 2, '=odd-student', 'six', 1e300, 0 FROM rounds "
                    "JOIN rooms ON rooms.id = rounds.room_id WHERE rooms.code = :code"
                ),
                {"code": code},
            )
    finally:
        store.close()
    status, _, body = http_get(f"{served.base}/instructor/rooms/{code}.csv", login_cookie(served.base))
    assert status == 200, body[:500]
    rows = list(csv.DictReader(io.StringIO(body)))
    assert [(r["student"], r["prediction"], r["submitted_at_utc"]) for r in rows][1:] == [("'=odd-student", "", "")]
    assert rows[0]["prediction"] == "6.0"


def test_ten_failed_logins_a_minute_then_refused_even_with_the_right_secret(tmp_path):
    with ClassServer(f"sqlite:///{tmp_path / 'c.sqlite3'}") as server:
        assert [post_login(server.base, f"guess-{i}")[0] for i in range(10)] == [403] * 10
        status, _, body = post_login(server.base, KEY)
        assert status == 429 and "一分钟" in body
        assert not server.log_errors()


def test_another_sites_posts_count_nothing_and_no_one_on_the_address_locks_out_the_instructors_browser(tmp_path):
    """The login form's XSRF token: posts without it are refused unread and uncounted. Failures of other
    browsers on the instructor's address refuse a new browser, never the one the instructor logged in from."""
    with ClassServer(f"sqlite:///{tmp_path / 'c.sqlite3'}") as server:
        for i in range(12):  # another site's page posting blind: no form cookie, no token
            status, _, body = post_login(server.base, f"guess-{i}", form=False)
            assert status == 403 and "ae-instructor-key" in body and "_xsrf" in body, (i, status)
        token_only = post_login(server.base, KEY, cookies={"_xsrf": "2|00|00|1"}, form=False)
        assert token_only[0] == 403  # a cookie alone, without the form's token, is no login either
        status, headers, _ = post_login(server.base, KEY)
        assert status == 303  # nothing above was counted
        known = {"ae_known_browser": cookies_set(headers)["ae_known_browser"]}
        assert [post_login(server.base, f"guess-{i}")[0] for i in range(10)] == [403] * 10  # other browsers
        assert post_login(server.base, KEY)[0] == 429  # a new browser on this address waits a minute
        assert post_login(server.base, KEY, cookies=known)[0] == 303  # the instructor's own does not
        forged = {"ae_known_browser": known["ae_known_browser"][:-4] + "0000"}
        assert post_login(server.base, KEY, cookies=forged)[0] == 429
        assert not server.log_errors()


def test_a_class_socket_from_a_forged_origin_is_refused(served):
    async def run(origin):
        request = HTTPRequest(f"ws://127.0.0.1:{served.port}/class/socket", headers={"Origin": origin})
        try:
            ws = await websocket_connect(request)
        except HTTPClientError as err:
            return err.code
        ws.close()
        await ws.read_message()  # the close handshake: the socket is closed before the loop ends
        return 101

    assert run_coroutine(run("http://evil.example")) == 403
    assert run_coroutine(run(f"http://localhost:{served.port}")) == 101  # the default origins still connect
    assert run_coroutine(run(f"http://127.0.0.1:{served.port}")) == 101  # the page's own host


@pytest.mark.parametrize("fetch_site", [None, "same-origin"])
def test_a_class_socket_reached_by_a_rebound_name_is_refused(served, fetch_site):
    """DNS rebinding: an attacker's name made to resolve to this server gives its page Origin = Host (and a
    browser says same-origin); only addresses and allowed names are answered."""

    async def run(name):
        headers = {"Origin": f"http://{name}:{served.port}", "Host": f"{name}:{served.port}"}
        if fetch_site:
            headers["Sec-Fetch-Site"] = fetch_site
        try:
            ws = await websocket_connect(HTTPRequest(f"ws://127.0.0.1:{served.port}/class/socket", headers=headers))
        except HTTPClientError as err:
            return err.code
        ws.close()
        await ws.read_message()
        return 101

    assert run_coroutine(run("rebind.evil.example")) == 403
    assert run_coroutine(run("localhost")) == 101  # an allowed name
    assert run_coroutine(run("127.0.0.1")) == 101  # an address


def test_a_client_with_too_many_class_sockets_is_refused_with_a_message(tmp_path):
    async def open_pages(base, code, n):
        students = []
        for i in range(n):
            try:
                students.append(await ClassStudent.open(base, code, student_id(i, "c")))
            except Exception:  # noqa: BLE001 - the refused one: its socket is closed at once
                students.append(None)
        await asyncio.sleep(0.3)  # the refused socket's close handshake
        answers = [(s.joined is not None, s.refused, s.closed) if s else None for s in students]
        await asyncio.gather(*(s.close() for s in students if s))
        return answers

    with ClassServer(f"sqlite:///{tmp_path / 'c.sqlite3'}", ["--max-sessions-per-client", "3"]) as server:
        code = _room(server)
        answers = run_coroutine(open_pages(server.base, code, 4))
        assert answers[:3] == [(True, None, None)] * 3
        assert answers[3] is not None and answers[3][1] == "busy" and answers[3][2] == (4001, "busy")
        assert not server.log_errors()


def test_a_frame_announcing_megabytes_is_closed_before_its_payload_arrives(served):
    """The socket's cap applies to the frame's announced length: the server does not wait for (and buffer)
    19 MiB of a message it would refuse."""
    import os
    import struct

    async def run():
        request = HTTPRequest(
            f"ws://127.0.0.1:{served.port}/class/socket", headers={"Origin": f"http://127.0.0.1:{served.port}"}
        )
        ws = await websocket_connect(request)
        # A masked text frame whose header announces 19 MiB; only the header and 16 bytes are sent.
        header = bytes([0x81, 0x80 | 127]) + struct.pack(">Q", 19 * 2**20) + os.urandom(4)
        await ws.protocol.stream.write(header + b"x" * 16)
        try:
            answer = await asyncio.wait_for(ws.read_message(), 10)  # None once the server has closed it
            return answer, ws.close_code
        finally:
            ws.close()

    answer, code = run_coroutine(run())
    assert answer is None and code == 1009


def test_a_socket_that_pipelines_submissions_is_closed_before_the_store_is_asked_each_time(served):
    """A page sends one message per press; 200 submissions written at once close the socket after the
    first second's share, and the store was asked no more than that."""
    room = _room(served)

    async def run():
        s = await ClassStudent.open(served.base, room, student_id(7, "p"))
        try:
            for seq in range(1, 201):
                try:
                    await s.send({"type": "submit", "seq": seq, "step": 1, "value": 5.0})
                except WebSocketClosedError:  # closed by the server while the rest were still being written
                    break
            await asyncio.wait_for(asyncio.shield(s._reader), 10)  # read until the server closes it
            return s.closed, len(s.receipts)
        finally:
            await s.close()

    closed, receipts = run_coroutine(run())
    assert closed == (1008, "too many messages")
    assert receipts <= 20  # MAX_MESSAGES_PER_SECOND, the join included


def test_no_traceback_for_a_non_finite_json_number(served):
    assert math.isnan(json.loads("NaN"))  # what a forged client could send; refused above, never logged
    assert "Traceback" not in served.log()


def test_one_address_holding_connections_open_starves_no_one_else(tmp_path):
    """200 half-sent requests from one address: beyond its cap they are closed as they are accepted,
    another address is served at once, and the log says so in one line, not one per connection."""
    import socket
    import time

    db = f"sqlite:///{tmp_path / 'class.sqlite3'}"
    with ClassServer(db, ["--max-connections-per-client", "50"]) as server:
        host, port = "127.0.0.1", server.port
        held, closed = [], 0
        for _ in range(200):
            s = socket.create_connection((host, port), source_address=("127.0.0.9", 0), timeout=10)
            try:
                s.sendall(b"GET /steps HTTP/1.1\r\nHost: x\r\n")  # and never the end of the headers
            except (ConnectionResetError, BrokenPipeError):
                pass  # already closed by the server: beyond the cap
            held.append(s)
        try:
            for s in held:
                s.settimeout(0.05)
                try:
                    closed += s.recv(1) == b""
                except (TimeoutError, socket.timeout):
                    pass  # still open: one of the 50
                except (ConnectionResetError, BrokenPipeError):
                    closed += 1
            t0 = time.monotonic()
            with socket.create_connection((host, port), source_address=("127.0.0.10", 0), timeout=10) as other:
                other.sendall(b"GET /steps HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                first = other.recv(64)
            served_s = time.monotonic() - t0
        finally:
            for s in held:
                s.close()
        assert closed == 150, closed
        assert first.startswith(b"HTTP/1.1 200") and served_s < 2.0, (first, served_s)
        log = server.log()
        assert log.count("refused beyond 50 open at once") == 1, log[-2000:]
        assert "open files: up to" in log and not server.log_errors()


def test_running_out_of_descriptors_is_said_once_per_interval_not_per_try():
    import errno
    import logging

    from attention_explorable.classroom.limits import OncePerInterval

    out_of_files = OSError(errno.EMFILE, "Too many open files")
    records = [
        logging.LogRecord(
            "tornado.application",
            logging.ERROR,
            __file__,
            1,
            "Exception in callback %r",
            ("accept",),
            (OSError, out_of_files, None),
        )
        for _ in range(1000)
    ]
    other = logging.LogRecord(
        "tornado.application", logging.ERROR, __file__, 1, "Uncaught exception", (), (ValueError, ValueError("x"), None)
    )
    quiet = OncePerInterval(seconds=60)
    kept = [r for r in records if quiet.filter(r)]
    assert len(kept) == 1 and "out of file descriptors" in kept[0].getMessage() and kept[0].exc_info is None
    assert quiet.filter(other) and other.exc_info is not None  # any other error is logged as before


def test_an_exercise_posed_to_the_room_takes_its_own_answers_and_reveals_its_own_result(served):
    """The instructor poses an exercise (a choice): pages are told its number; an option's index is stored,
    half an option or a number no question has is refused; the reveal sends the exercise's answer."""
    from attention_explorable.classroom.questions import all_questions

    choice = next(q for q in all_questions() if q.kind == "choice")
    code = _room(served)
    store = Store(served.db)

    async def run():
        a = await ClassStudent.open(served.base, code, "exercise-a", app="textbook")
        b = await ClassStudent.open(served.base, code, "exercise-b")
        store.set_step(code, choice.number)
        deadline = asyncio.get_running_loop().time() + 10
        while not any(m.get("step") == choice.number for m in b.news):
            assert asyncio.get_running_loop().time() < deadline, b.news
            await asyncio.sleep(0.05)  # the poll's interval
        right, _ = await a.submit(choice.number, int(choice.answer))
        wrong, _ = await b.submit(choice.number, (int(choice.answer) + 1) % len(choice.options))
        half, _ = await a.submit(choice.number, 0.5)
        unknown, _ = await b.submit(999_999_999, 1)
        store.reveal(code, choice.number)
        while not any(m.get("result") for m in a.news):
            assert asyncio.get_running_loop().time() < deadline + 10, a.news
            await asyncio.sleep(0.05)  # the poll's interval
        result = next(m["result"] for m in a.news if m.get("result"))
        await asyncio.gather(a.close(), b.close())
        return right, wrong, half, unknown, result

    try:
        right, wrong, half, unknown, result = run_coroutine(run())
        stored = sorted(store.values(code, choice.number))
    finally:
        store.close()
    assert right["ok"] and wrong["ok"] and right["step"] == choice.number
    assert (half["ok"], half["reason"]) == (False, "value")
    assert (unknown["ok"], unknown["reason"]) == (False, "step")
    assert stored == sorted([choice.answer, float((int(choice.answer) + 1) % len(choice.options))])
    assert result == {
        "step": choice.number,
        "answer": choice.answer,
        "n": 2,
        "share_within": 0.5,
        "percent": 50,
        "within": 0.0,
    }


def test_a_question_the_instructor_typed_reaches_every_page_as_text_and_is_answered_revealed_and_exported(served):
    """A typed choice posed to the room: the pages of the room, and a page joining later, are sent its words
    as they were typed (never its answer), its options' words and letters; an option's index is stored, an
    index past the options and a typed number no room showed are refused; the reveal sends its answer; the
    CSV names it by its key and its words."""
    code = _room(served)
    store = Store(served.db)
    words = "Which <b>row</b> sums to 1? & why"
    typed = store.add_question(code, "choice", words, 1, options=["the scores", "the <i>weights</i>", "the values"])

    async def until(student, found, seconds=10):
        deadline = asyncio.get_running_loop().time() + seconds
        while not any(found(m) for m in student.news):
            assert asyncio.get_running_loop().time() < deadline, student.news
            await asyncio.sleep(0.05)  # the poll's interval
        return next(m for m in student.news if found(m))

    async def run():
        a = await ClassStudent.open(served.base, code, "typed-a", app="textbook")
        store.set_step(code, typed.number)
        told = await until(a, lambda m: m.get("step") == typed.number)
        b = await ClassStudent.open(served.base, code, "typed-b")
        joined = b.joined
        right, _ = await a.submit(typed.number, 1)
        wrong, _ = await b.submit(typed.number, 0)
        await asyncio.sleep(1.05)  # one answer a second per student
        past, _ = await a.submit(typed.number, 3)
        unknown, _ = await b.submit(typed.number + 999, 0)
        store.reveal(code, typed.number)
        result = (await until(a, lambda m: bool(m.get("result"))))["result"]
        await asyncio.gather(a.close(), b.close())
        return told, joined, right, wrong, past, unknown, result

    try:
        told, joined, right, wrong, past, unknown, result = run_coroutine(run())
        rows = list(csv.DictReader(io.StringIO(store.export_csv(code))))
    finally:
        store.close()
    sent = {
        "number": typed.number,
        "ordinal": 1,
        "kind": "choice",
        "text": words,
        "choices": ["the scores", "the <i>weights</i>", "the values"],
        "options": ["A", "B", "C"],
        "bounds": [0.0, 2.0],
    }
    assert told["question"] == sent and joined["question"] == sent
    assert right["ok"] and wrong["ok"]
    assert (past["ok"], past["reason"]) == (False, "value")
    assert (unknown["ok"], unknown["reason"]) == (False, "step")
    assert (result["answer"], result["n"], result["percent"]) == (1.0, 2, 50)
    assert {r["question"] for r in rows} == {f"custom-1: {words}"}
    assert sorted(float(r["prediction"]) for r in rows) == [0.0, 1.0]
