"""A lesson through restarts and reloads, in real browsers: a page reconnects and resends by itself, the
projector comes back on its room, a page opened (or reloaded) at step 2 submits, an answer typed while the
server is down is stored once it is back, and a prediction never acknowledged is said to be lost.

The rest of the lesson (login, rounds, projector, questions) is in test_classroom_browser.py.
"""

from __future__ import annotations

import os
import re
import signal
import time

import pytest

from .lessons import ClassServer, instructor_in_a_new_room
from .pages import SERVER_GONE, text_of, wait_text

pytestmark = pytest.mark.browser


def test_a_prediction_not_acknowledged_is_said_to_be_lost(student, tmp_path):
    server = ClassServer(f"sqlite:///{tmp_path / 'class.sqlite3'}").start()
    try:
        from attention_explorable.classroom.store import Store

        store = Store(server.db)
        code = store.create_room().code
        store.close()
        s = student()
        s.open(f"{server.base}/steps?room={code}", ".ae-submit-prediction")
        wait_text(s.page, ".ae-room", code)
        os.kill(server.proc.pid, signal.SIGSTOP)  # the server hangs: the submission gets no receipt
        s.page.locator(".ae-prediction input").fill("4")
        s.page.locator(".ae-submit-prediction button").click()
        wait_text(s.page, ".ae-class-message", "正在提交")
        server.kill()  # then dies
    finally:
        server.stop()
    s.errors_to_ignore = SERVER_GONE
    wait_text(s.page, ".ae-connection-lost", "正在重新连接")
    notice = text_of(s.page, ".ae-connection-lost")
    assert "还在等服务器确认" in notice and "会自己再发一次" in notice, notice
    assert s.page.locator(".ae-output").first.is_visible()  # the explorable still works


#: Every way a student's page may be opened in a room at step 2: (path, the query besides the room, reload).
OPENED_AT_STEP_2 = {
    "steps with step=2": ("/steps", "step=2", False),
    "steps reloaded at step 2": ("/steps", "", True),
    "textbook with steps.step=2": ("/textbook", "steps.step=2", False),
    "textbook reloaded at step 2": ("/textbook", "", True),
}


@pytest.mark.parametrize("way", list(OPENED_AT_STEP_2))
def test_a_page_opened_at_step_2_in_a_room_submits(student, tmp_path, way):
    """The class follows the instructor to step 2; a page opened there (or reloaded) still submits.

    On a Bokeh page, the deep link's change and document_ready both called the class module before
    BokehJS had compiled it, which made two instances of it: the room joined by one, the buttons
    heard by the other, so nothing was sent (web/shared.js pageWide).
    """
    from attention_explorable.classroom.store import Store

    path, query, reload = OPENED_AT_STEP_2[way]
    with ClassServer(f"sqlite:///{tmp_path / 'class.sqlite3'}", ["--max-sessions-per-client", "0"]) as server:
        store = Store(server.db)
        try:
            code = store.create_room().code
            store.set_step(code, 2)
            s = student(1280, 900)
            url = f"{server.base}{path}?room={code}" + (f"&{query}" if query else "")
            values = ["4.5", "5.5"] if reload else ["5.5"]
            for i, value in enumerate(values):
                if i == 0:
                    s.open(url, ".ae-submit-prediction")
                else:
                    s.page.reload(wait_until="load")
                    wait_text(s.page, ".ae-submitted", r"已恢复")  # the earlier answer, restored
                wait_text(s.page, ".ae-room-joined", code)
                wait_text(s.page, ".ae-question", "第 2 步")
                s.page.locator(".ae-steps .ae-prediction input").first.fill(value)
                s.page.locator(".ae-submit-prediction button").first.click()
                wait_text(s.page, ".ae-submitted", rf"已提交：第 2 步.*{re.escape(value)}")
                if reload:  # once the address holds the answer, and after the store's one answer a second
                    s.page.wait_for_function("() => /prediction_text=/.test(location.search)")
                    s.page.wait_for_timeout(1100)  # the store takes one answer a second from a student
            assert [float(v) for v in store.values(code, 2)] == [5.5]
            s.assert_clean()
        finally:
            store.close()
        assert not server.log_errors()


def test_a_page_reconnects_by_itself_after_a_restart_and_sends_what_was_typed_meanwhile(student, tmp_path):
    """The server is killed mid-round and started again: the page says the connection is lost, a
    prediction submitted meanwhile waits, and once the server is back the page rejoins by itself
    (no reload), the notice goes and that prediction is stored and acknowledged."""
    from attention_explorable.classroom.store import Store

    db = f"sqlite:///{tmp_path / 'class.sqlite3'}"
    server = ClassServer(db, ["--max-sessions-per-client", "0"]).start()
    try:
        store = Store(db)
        code = store.create_room().code
        s = student(390, 844, mobile=True)
        s.open(f"{server.base}/steps?room={code}", ".ae-submit-prediction")
        wait_text(s.page, ".ae-room-joined", code)
        server.kill()
        s.page.locator(".ae-connection-lost").first.wait_for(state="visible", timeout=15_000)
        # Said as it is: the page reconnects by itself; nothing asks the student to reload or submit again.
        notice = text_of(s.page, ".ae-connection-lost")
        assert "不必重新加载" in notice and "重新加载页面" not in notice and "再提交" not in notice, notice
        s.page.locator(".ae-prediction input").fill("7.5")
        s.page.locator(".ae-submit-prediction button").click()
        wait_text(s.page, ".ae-class-message", "正在提交")
        server = ClassServer(db, ["--max-sessions-per-client", "0"], port=server.port).start()
        wait_text(s.page, ".ae-submitted", r"已提交：第 1 步.*7\.5", timeout=20_000)
        assert not s.page.locator(".ae-connection-lost").first.is_visible()
        assert [float(v) for v in store.values(code, 1)] == [7.5]
        assert "reload" not in s.page.evaluate("performance.getEntriesByType('navigation')[0].type")
        s.errors_to_ignore = ("WebSocket connection to",)  # the browser's own line for each try while it was down
        s.assert_clean()
        store.close()
    finally:
        server.stop()


def test_the_projector_comes_back_by_itself_after_a_restart_on_its_room_with_its_join_panel_folded(student, tmp_path):
    """The server is killed: the instructor's page says calmly that it reconnects; started again on the same
    port and database, the page asks for itself again within about a second and opens again by itself
    (nothing clicked), live, on its room, with its join panel still folded."""
    from attention_explorable.classroom.store import Store
    from attention_explorable.page_server import PageCache, default_cache_dir

    # The students' pages kept from an earlier start, as in a class: a restart reads them, builds nothing.
    PageCache(default_cache_dir()).build()
    db = f"sqlite:///{tmp_path / 'class.sqlite3'}"
    server = ClassServer(db, ["--max-sessions-per-client", "0"]).start()
    store = Store(db)
    try:
        teacher = instructor_in_a_new_room(student(1024, 768), server)
        code = text_of(teacher.page, ".ae-room-code").strip()
        teacher.page.keyboard.press("j")  # the join panel folded away, as in a lecture
        wait_text(teacher.page, ".ae-join-toggle", "显示加入信息")
        server.kill()
        teacher.page.locator(".ae-connection-lost").first.wait_for(state="visible", timeout=15_000)
        notice = text_of(teacher.page, ".ae-connection-lost")
        assert "正在重新连接" in notice and "不必点击" in notice, notice
        with teacher.page.expect_navigation(wait_until="commit", timeout=30_000):
            server = ClassServer(db, ["--max-sessions-per-client", "0"], port=server.port).start()
            listening = time.time()
        # The page asked for itself again within its second of polling (what a reload then costs is the
        # server's building of the page; the whole is waited for as a condition below).
        asked = teacher.page.evaluate("performance.timeOrigin") / 1000
        assert asked - listening < 2.5, asked - listening
        wait_text(teacher.page, ".ae-room-code", code, timeout=30_000)
        assert teacher.page.evaluate("performance.getEntriesByType('navigation')[0].type") == "reload"
        assert not teacher.page.locator(".ae-connection-lost").first.is_visible()
        # Its join panel stays folded: the code on one line, no URL, no QR code.
        wait_text(teacher.page, ".ae-join-toggle", "显示加入信息")
        assert teacher.page.locator(".ae-room-code-small").count() == 1
        assert not teacher.page.locator(".ae-qr").first.is_visible()
        # Live: an answer stored now is counted on the projector.
        assert store.submit(code, "student-0001", 1, 6.5).ok
        wait_text(teacher.page, ".ae-prediction-count", "已收到 1 份预测")
        teacher.errors_to_ignore = (*SERVER_GONE, "Failed to load resource")  # the tries while it was down
        teacher.assert_clean()
        assert not server.log_errors()
    finally:
        store.close()
        server.stop()


def test_a_page_whose_room_ends_during_a_vote_demonstrates_again(student, tmp_path):
    """While the vote is open the demonstration waits; once the room has ended (or the page has left it)
    nothing holds it any more, and no countdown goes on."""
    from attention_explorable.classroom.store import Store

    with ClassServer(f"sqlite:///{tmp_path / 'class.sqlite3'}", ["--max-sessions-per-client", "0"]) as server:
        store = Store(server.db)
        try:
            code = store.create_room().code
            s = student()
            s.open(f"{server.base}/steps?room={code}", ".ae-submit-prediction")
            wait_text(s.page, ".ae-room-joined", code)
            store.close_voting_in(code, 1, 600)
            wait_text(s.page, ".ae-class-vote", "投票还有")
            s.page.locator(".ae-prediction input").fill("6")
            s.page.locator(".ae-demonstrate button").click()
            wait_text(s.page, ".ae-class-message", "投票还在进行")
            assert "演示结果" not in text_of(s.page, ".ae-result")
            store.end_room(code)
            wait_text(s.page, ".ae-class-message", "课堂已经结束")
            s.page.locator(".ae-demonstrate button").click()
            wait_text(s.page, ".ae-result", r"你的预测 y = 6；演示结果 y = 6\.00")
            s.page.locator(".ae-class-vote").first.wait_for(state="hidden")  # the countdown ended with the room
            s.assert_clean()
        finally:
            store.close()
        assert not server.log_errors()


def test_an_answer_to_an_exercise_typed_while_the_server_restarts_is_stored_once_it_is_back(student, tmp_path):
    """The card stays while the connection is lost; an answer submitted then waits, the notice names the
    exercise, and the page sends it by itself once the restarted server has it rejoin."""
    from attention_explorable.classroom.questions import all_questions, question_title
    from attention_explorable.classroom.store import Store

    number = next(q for q in all_questions() if q.key == "ex-3-8-1")
    db = f"sqlite:///{tmp_path / 'class.sqlite3'}"
    server = ClassServer(db, ["--max-sessions-per-client", "0"]).start()
    store = Store(db)
    try:
        code = store.create_room().code
        store.set_step(code, number.number)
        s = student(390, 844, mobile=True)
        s.open(f"{server.base}/steps?room={code}", ".ae-submit-prediction")
        wait_text(s.page, ".ae-cq-label", re.escape(question_title(number, "zh")))
        server.kill()
        s.page.locator(".ae-connection-lost").first.wait_for(state="visible", timeout=15_000)
        assert s.page.locator(".ae-class-question").is_visible()
        s.page.locator(".ae-cq-input").fill("8.4")
        s.page.locator(".ae-cq-submit").click()
        wait_text(s.page, ".ae-cq-status", "正在提交")
        wait_text(s.page, ".ae-connection-lost", re.escape(f"{question_title(number, 'zh')}：8.4"))
        server = ClassServer(db, ["--max-sessions-per-client", "0"], port=server.port).start()
        wait_text(s.page, ".ae-cq-status", r"已提交：8\.4", timeout=20_000)
        assert [float(v) for v in store.values(code, number.number)] == [8.4]
        s.errors_to_ignore = ("WebSocket connection to",)  # the browser's own line for each try while it was down
        s.assert_clean()
    finally:
        store.close()
        server.stop()
