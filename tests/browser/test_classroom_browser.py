"""A lesson in real browsers: the instructor logs in, starts a room and reveals; students join by
the join URL, predict and see 已提交; the projector's text is 24 px or more at 1024x768.

The room of 30 is tested over the protocol (tests/classroom/test_server.py); here a few real
browser contexts, one of them a phone, check what people see and press.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from ..conftest import ARTIFACTS
from .pages import SERVER_GONE, text_of, wait_text

from .lessons import KEY, ClassServer, instructor_in_a_new_room, keys_answer

pytestmark = pytest.mark.browser

#: Everything of the instructor's class panel that shows text, with the element that holds it.
PROJECTOR_TEXT = [
    ".ae-room-code",
    ".ae-join-url",
    ".ae-prediction-count",
    ".ae-presence",
    ".ae-round",
    ".ae-instructor-question p",
    ".ae-instructor-question h2",
    ".ae-spread",
    ".ae-csv",
    ".ae-reveal button",
    ".ae-new-round button",
    ".ae-follow .bk-label",
    ".ae-label",
]


def _font_px(page, css: str) -> float:
    return float(page.locator(css).first.evaluate("e => parseFloat(getComputedStyle(e).fontSize)"))


#: The width of each figure's frame as BokehJS laid it out, by the figure's first CSS class.
_FIGURE_FRAMES = """() => {
  const widths = {}, seen = new Set();
  const visit = (view) => {
    if (!view || seen.has(view)) return;
    seen.add(view);
    if (view.model && view.model.type === "Figure" && view.frame)
      widths[view.model.css_classes[0] || "?"] = view.frame.bbox.width;
    for (const child of view.child_views || []) visit(child);
  };
  const roots = Bokeh.index instanceof Map ? [...Bokeh.index.values()] : Object.values(Bokeh.index);
  roots.forEach(visit);
  return widths;
}"""


#: The number of students the histogram's bars count, from its sources in BokehJS: the bars of every
#: answer hold the most (the others: the part said to be sure, and the round before, empty in round 1).
_BARS = """(() => {
  const roots = Bokeh.index instanceof Map ? [...Bokeh.index.values()] : Object.values(Bokeh.index);
  let most = -1;
  for (const root of roots) for (const model of root.model.document.all_models)
    if (model.type === "ColumnDataSource" && "edge" in model.data)
      most = Math.max(most, model.data.count.reduce((a, b) => a + b, 0));
  return most;
})()"""


#: Whether the histogram shows the axis of numbers and not that of a choice's letters (in BokehJS).
_NUMBER_SCALE = """() => {
  const roots = Bokeh.index instanceof Map ? [...Bokeh.index.values()] : Object.values(Bokeh.index);
  const axes = roots.flatMap((root) => [...root.model.document.all_models]).filter((m) => m.type === "LinearAxis");
  const shown = (label) => axes.some((a) => a.axis_label === label && a.visible);
  return shown("预测的 y") && !shown("选项");
}"""


def test_a_lesson_from_login_to_reveal_and_a_new_round(student, tmp_path):
    with ClassServer(f"sqlite:///{tmp_path / 'class.sqlite3'}", ["--max-sessions-per-client", "0"]) as server:
        teacher = student(1024, 768)
        teacher.open(f"{server.base}/instructor", ".ae-instructor-key")
        teacher.page.fill(".ae-instructor-key", "wrong secret")
        teacher.page.click(".ae-instructor-login")
        assert "密钥不对" in teacher.page.inner_text("body")  # the 403 page, with the form again
        assert "wrong secret" not in teacher.page.url
        teacher.errors.clear()  # the browser logs the 403 itself
        teacher.page.fill(".ae-instructor-key", KEY)
        with teacher.page.expect_response(lambda r: r.request.resource_type == "document" and r.status == 200) as page:
            teacher.page.click(".ae-instructor-login")
        teacher.page.wait_for_selector(".ae-start-room", timeout=30_000)
        assert KEY not in teacher.page.url
        # The page runs under its strict policy (a violation would be a console error: assert_clean below).
        policy = page.value.headers["content-security-policy"]
        assert "script-src 'self' " in policy and "'nonce-" in policy and "'unsafe-inline'" not in policy, policy
        assert "object-src 'none'" in policy and "base-uri 'none'" in policy, policy
        teacher.page.click(".ae-start-room button")
        teacher.page.wait_for_selector(".ae-room-code", timeout=30_000)
        keys_answer(teacher.page)
        code = text_of(teacher.page, ".ae-room-code").strip()
        join = text_of(teacher.page, ".ae-join-url").strip()
        assert re.fullmatch(r"[A-Z2-9]{6}", code) and join == f"{server.base}/steps?room={code}"
        assert teacher.page.locator(".ae-qr svg").count() == 1
        assert f"room={code}" in teacher.page.url  # a reload comes back to the room

        # Students join by the URL the projector shows; one on a phone.
        desk, phone = student(1280, 900), student(390, 844, mobile=True)
        for s in (desk, phone):
            s.open(join, ".ae-submit-prediction")
            wait_text(s.page, ".ae-room", code)
            wait_text(s.page, ".ae-room-joined", code)  # the class socket has joined the room
        wait_text(teacher.page, ".ae-vote-state", "投票进行中")
        desk.page.locator(".ae-confidence button").first.click()  # 有把握, sent with the prediction
        desk.page.locator(".ae-prediction input").fill("6.5")
        desk.page.locator(".ae-demonstrate button").click()  # 演示本步 submits; the answer waits for the close
        wait_text(desk.page, ".ae-submitted", r"已提交.*6\.5")
        wait_text(desk.page, ".ae-class-message", "投票还在进行")
        assert "演示结果" not in text_of(desk.page, ".ae-result")
        phone.page.locator(".ae-prediction input").fill("7")
        phone.page.locator(".ae-submit-prediction button").click()
        wait_text(phone.page, ".ae-submitted", r"已提交.*7")
        wait_text(teacher.page, ".ae-prediction-count", "已收到 2 份预测（其中 1 份有把握）")
        wait_text(teacher.page, ".ae-presence", "在场 2 人 · 已作答 2 人")  # the desk and the phone
        assert "隐藏" in text_of(teacher.page, ".ae-spread") and "6.00" not in text_of(teacher.page, ".ae-spread")
        # While the vote is open the projector shows the count, not the histogram's bars.
        assert "分布在关闭投票后显示" in text_of(teacher.page, ".ae-vote-state")
        assert teacher.page.evaluate(_BARS) == 0
        # J folds the join panel away: then the whole round fits the projector's 1024x768.
        teacher.page.keyboard.press("j")
        wait_text(teacher.page, ".ae-join-toggle", "显示加入信息")
        teacher.page.locator(".ae-qr").first.wait_for(state="hidden")
        assert code in text_of(teacher.page, ".ae-room-code")  # for a latecomer
        teacher.page.screenshot(path=str(ARTIFACTS / "classroom-projector-voting.png"))
        for css in (
            ".ae-room-code",
            ".ae-prediction-count",
            ".ae-presence",
            ".ae-instructor-question",
            ".ae-histogram",
            ".ae-spread",
            ".ae-vote-state",
            ".ae-close-voting",
            ".ae-reveal",
            ".ae-new-round",
        ):
            box = teacher.page.locator(css).first.bounding_box()
            assert box and box["y"] >= 0 and box["y"] + box["height"] <= 768, (css, box)

        # A changed answer replaces the earlier one.
        phone.page.wait_for_timeout(1100)  # the store takes one answer a second from a student
        phone.page.locator(".ae-prediction input").fill("5.5")
        phone.page.locator(".ae-submit-prediction button").click()
        wait_text(phone.page, ".ae-submitted", r"已提交.*5\.5")
        teacher.page.wait_for_timeout(
            600
        )  # two of the projector's reads of the room (REFRESH_MS): a third answer would show
        assert "已收到 2 份预测" in text_of(teacher.page, ".ae-prediction-count")

        teacher.page.keyboard.press("c")  # voting closes: no answer is taken, the pages may demonstrate
        wait_text(teacher.page, ".ae-vote-state", "投票已关闭")
        assert "分布在关闭投票后显示" not in text_of(teacher.page, ".ae-vote-state")
        teacher.page.wait_for_function(f"() => ({_BARS}) === 2")  # the bars, now that the vote is closed
        teacher.page.screenshot(path=str(ARTIFACTS / "classroom-projector-closed.png"))
        wait_text(teacher.page, ".ae-close-voting", "重新开放投票")
        wait_text(phone.page, ".ae-class-vote", "投票已关闭")
        phone.page.wait_for_timeout(1100)  # a second after its last answer: only the close refuses it
        phone.page.locator(".ae-prediction input").fill("9")
        phone.page.locator(".ae-submit-prediction button").click()
        wait_text(phone.page, ".ae-class-message", "关闭了这一步的投票")
        desk.page.locator(".ae-demonstrate button").click()
        wait_text(desk.page, ".ae-result", r"你的预测 y = 6\.5；演示结果")
        teacher.page.keyboard.press("c")  # reopened ...
        wait_text(teacher.page, ".ae-vote-state", "投票进行中")
        phone.page.locator(".ae-class-vote").first.wait_for(state="hidden")
        teacher.page.keyboard.press("c")  # ... and closed again
        wait_text(phone.page, ".ae-class-vote", "投票已关闭")
        teacher.page.wait_for_timeout(
            600
        )  # two of the projector's reads of the room (REFRESH_MS): a third answer would show
        assert "已收到 2 份预测" in text_of(teacher.page, ".ae-prediction-count")  # the 9 was never taken

        teacher.page.keyboard.press("r")  # reveal
        wait_text(phone.page, ".ae-class-vote", "老师已揭晓")
        # Each page shows where its student stood: the answer, their own prediction, the class near it.
        wait_text(
            desk.page,
            ".ae-student-result",
            r"答案 y = 6\.00；你的预测 6\.5，相差 0\.50。全班 2 份预测里，0% 落在答案 ±0\.25 以内",
        )
        wait_text(phone.page, ".ae-student-result", r"你的预测 5\.5，相差 0\.50")
        wait_text(teacher.page, ".ae-vote-state", "已揭晓")
        wait_text(teacher.page, ".ae-spread", r"答案 y = 6\.00.*中位绝对差 0\.50.*在 ±0\.25 以内：0%")
        for css in PROJECTOR_TEXT:
            assert _font_px(teacher.page, css) >= 24, css
        teacher.screenshot("classroom-instructor-revealed")
        # The explorable below the room draws its plots at their width (BokehJS's frame of each figure).
        frames = teacher.page.evaluate(_FIGURE_FRAMES)
        assert frames.get("ae-number-line", 0) > 200 and frames.get("ae-histogram", 0) > 200, frames
        # The instructor's own explorable is no student of the room (its address has ?room= too).
        assert teacher.page.locator(".ae-submit-prediction, .ae-room").count() == 0
        desk.screenshot("classroom-student-submitted")
        phone.assert_fits_phone("classroom-student-phone")

        with teacher.page.expect_download() as download:
            teacher.page.click(".ae-csv")
        rows = download.value.path().read_text().splitlines()
        assert rows[0].startswith("room,round,step,question,student,prediction,confidence") and len(rows) == 3
        assert [row.split(",")[3] for row in rows[1:]] == ["step-1", "step-1"]
        assert sorted(row.split(",")[6] for row in rows[1:]) == ["", "sure"]  # the phone said nothing

        teacher.page.keyboard.press("n")  # a new round
        wait_text(teacher.page, ".ae-round", "第 2 轮")
        wait_text(teacher.page, ".ae-prediction-count", "已收到 0 份预测")
        wait_text(desk.page, ".ae-class-message", "新的一轮开始了")
        assert not desk.page.locator(".ae-submitted").first.is_visible()
        desk.page.locator(".ae-prediction input").fill("6")  # the second vote, after the discussion
        desk.page.locator(".ae-submit-prediction button").click()
        wait_text(desk.page, ".ae-submitted", r"已提交.*6")
        # T starts the countdown: the projector and the pages count the seconds (C still closes at once).
        teacher.page.keyboard.press("t")
        # (a minute counted down from the press: how many seconds are left when a busy machine first draws
        # it may vary, never more than 60 nor much less)
        wait_text(teacher.page, ".ae-vote-state", r"投票进行中，\d+ 秒后自动关闭")
        left = int(re.search(r"(\d+) 秒后", text_of(teacher.page, ".ae-vote-state")).group(1))
        assert 45 <= left <= 60, left
        wait_text(desk.page, ".ae-class-vote", r"投票还有 \d+ 秒关闭")
        left = int(re.search(r"还有 (\d+) 秒", text_of(desk.page, ".ae-class-vote")).group(1))
        assert 45 <= left <= 60, left
        first = text_of(desk.page, ".ae-class-vote")
        desk.page.wait_for_function(f"() => document.querySelector('.ae-class-vote').textContent !== {first!r}")

        # Without a prediction 演示本步 asks for one; skipping it waits for the close, then plays the step,
        # and submits nothing.
        phone.page.locator(".ae-prediction input").fill("")
        phone.page.locator(".ae-demonstrate button").click()
        wait_text(phone.page, ".ae-result", "先写下你的预测")
        phone.page.locator(".ae-skip-prediction button").click()
        wait_text(phone.page, ".ae-class-message", "投票还在进行")
        teacher.page.keyboard.press("c")
        wait_text(phone.page, ".ae-class-vote", "投票已关闭")
        phone.page.locator(".ae-skip-prediction button").click()
        wait_text(phone.page, ".ae-result", "这次没有先做预测")
        teacher.page.wait_for_timeout(
            1500
        )  # the projector's reads of the room (REFRESH_MS): a second answer would show
        assert "已收到 1 份预测" in text_of(teacher.page, ".ae-prediction-count")
        # The two votes compared: round 1 outlined behind round 2, and, revealed, who came closer.
        teacher.page.keyboard.press("r")
        wait_text(teacher.page, ".ae-compare", r"与第 1 轮比：±0\.25 以内 0% → 100%；两轮都答的 1 人中，1 人更接近答案")
        teacher.screenshot("classroom-instructor-compare")

        teacher.page.keyboard.press("2")  # the students follow the instructor's step
        wait_text(desk.page, ".ae-question", "第 2 步")
        # The presenter's D plays the step at once: no prediction asked, so the keys stay the presenter's.
        teacher.page.keyboard.press("d")
        wait_text(teacher.page, ".ae-result", "这次没有先做预测")
        for key in "rn2":
            teacher.page.keyboard.press(key)
        wait_text(teacher.page, ".ae-round", "第 1 轮 · 第 2 步")  # the room's round 3: step 2's first
        assert "prediction_text" not in teacher.page.url
        assert not teacher.page.locator(".ae-skip-prediction button").first.is_visible()

        # The student answers once their page knows of the new round (until then it holds the reveal of
        # round 2, whose vote is closed, and keeps the answer back).
        wait_text(desk.page, ".ae-class-message", "新的一轮开始了")
        desk.page.locator(".ae-prediction input").fill("9")
        desk.page.locator(".ae-submit-prediction button").click()
        wait_text(desk.page, ".ae-submitted", r"第 2 步.*9")
        desk.page.reload()  # the same anonymous id: back with the step and the prediction
        desk.page.wait_for_selector(".ae-submit-prediction", timeout=30_000)
        wait_text(desk.page, ".ae-submitted", r"已提交.*第 2 步.*9")
        assert desk.page.locator(".ae-prediction input").input_value() == "9"
        # 退出登录 ends the instructor's session: the login form, and the page asks for the secret again.
        teacher.page.click(".ae-logout button")
        teacher.page.wait_for_selector(".ae-instructor-key", timeout=30_000)
        teacher.open(f"{server.base}/instructor?room={code}", ".ae-instructor-key")
        for s in (teacher, desk, phone):
            s.assert_clean()
        assert not server.log_errors()

    # The server is gone: the explorable keeps working, and the notice says the prediction arrived.
    desk.errors_to_ignore = SERVER_GONE
    wait_text(desk.page, ".ae-connection-lost", "正在重新连接")
    assert "服务器已经存好" in text_of(desk.page, ".ae-connection-lost")
    desk.screenshot("classroom-student-connection-lost")


def test_a_peer_instruction_cycle_in_english_with_the_instructor_on_a_phone(student, tmp_path):
    """The instructor's page in English (as a phone), its join URL opening the students' pages in English: vote,
    close, a refused late answer, reveal, and each student's result."""
    with ClassServer(f"sqlite:///{tmp_path / 'class.sqlite3'}", ["--max-sessions-per-client", "0"]) as server:
        teacher = instructor_in_a_new_room(student(390, 844, mobile=True), server, "?lang=en")
        join = text_of(teacher.page, ".ae-join-url").strip()
        assert join.endswith("&lang=en"), join
        wait_text(teacher.page, ".ae-vote-state", "Voting is open")
        first, late = student(), student(390, 844, mobile=True)
        for s in (first, late):
            s.open(join, ".ae-submit-prediction")
            wait_text(s.page, ".ae-room-joined", "Joined class")
        first.page.locator(".ae-prediction input").fill("7")
        first.page.locator(".ae-demonstrate button").click()
        wait_text(first.page, ".ae-submitted", r"Submitted.*7")
        wait_text(first.page, ".ae-class-message", "Voting is still open")
        wait_text(teacher.page, ".ae-prediction-count", "1 prediction received")
        teacher.page.locator(".ae-close-voting button").click()
        wait_text(late.page, ".ae-class-vote", "Voting on this step is closed")
        late.page.locator(".ae-prediction input").fill("6")
        late.page.locator(".ae-submit-prediction button").click()
        wait_text(late.page, ".ae-class-message", "the instructor has closed voting")
        teacher.page.locator(".ae-reveal button").click()
        wait_text(teacher.page, ".ae-vote-state", "Revealed")
        wait_text(
            first.page,
            ".ae-student-result",
            r"The answer is y = 6\.00; you predicted 7, 1\.00 away\. Of the class's 1 prediction, 0% lies",
        )
        wait_text(late.page, ".ae-student-result", "you submitted no prediction for this step")
        late.page.locator(".ae-demonstrate button").click()  # closed: the step plays
        wait_text(late.page, ".ae-result", r"y = 6\.00")
        teacher.assert_fits_phone("classroom-instructor-phone-en")
        for s in (first, late):
            s.assert_clean()
        assert not server.log_errors()


def test_the_instructor_poses_an_exercise_and_each_students_page_asks_it_wherever_the_student_is(student, tmp_path):
    """An exercise chosen from the instructor's list reaches a phone on the textbook (at its table of contents)
    and a laptop on the steps page as a card at the foot of the screen: a choice, then a number; the vote's
    close disables the card, the reveal says the answer, the student's own and the class's share right."""
    from attention_explorable.classroom.questions import all_questions, exercise_name, question_label, question_title

    choice = next(q for q in all_questions() if q.kind == "choice")
    number = next(q for q in all_questions() if q.key == "q2-alpha2")
    with ClassServer(f"sqlite:///{tmp_path / 'class.sqlite3'}", ["--max-sessions-per-client", "0"]) as server:
        teacher = instructor_in_a_new_room(student(1024, 768), server)
        code = text_of(teacher.page, ".ae-room-code").strip()
        phone, desk = student(390, 844, mobile=True), student(1280, 900)
        phone.open(f"{server.base}/textbook?room={code}", ".ae-submit-prediction")
        desk.open(f"{server.base}/steps?room={code}", ".ae-submit-prediction")
        for s in (phone, desk):
            wait_text(s.page, ".ae-room-joined", code)
        # A step: the phone, at the top of the textbook, is asked it on a card; the laptop on the explorable.
        phone.page.locator(".ae-class-question").wait_for(state="visible")
        wait_text(phone.page, ".ae-cq-label", "第 1 步")
        assert not desk.page.locator(".ae-class-question").is_visible()

        teacher.page.locator(".ae-question-select select").select_option(label=question_label(choice, "zh"))
        teacher.page.locator(".ae-pose-question button").click()  # the list chooses; the button asks
        wait_text(teacher.page, ".ae-round", re.escape(f"练习 {exercise_name(choice, 'zh')}"))
        wait_text(teacher.page, ".ae-instructor-question", "d_k|dk|√")
        for s in (phone, desk):
            s.page.locator(".ae-class-question").wait_for(state="visible")
            wait_text(s.page, ".ae-cq-label", re.escape(question_title(choice, "zh")))
            box = s.page.locator(".ae-class-question").bounding_box()
            assert box["y"] + box["height"] <= s.page.viewport_size["height"] + 1  # on screen, wherever they are
        phone.page.locator(".ae-cq-submit").click()  # nothing chosen yet
        wait_text(phone.page, ".ae-cq-status", "请先选一个选项")
        right = choice.options[int(choice.answer)]
        phone.page.locator(".ae-class-question").get_by_role("radio", name=right).check()
        phone.page.locator(".ae-cq-submit").click()
        wait_text(phone.page, ".ae-cq-status", f"已提交：{right}")
        wait_text(teacher.page, ".ae-prediction-count", "已收到 1 份预测")
        phone.page.screenshot(path=str(ARTIFACTS / "classroom-exercise-card-phone.png"))

        teacher.page.locator(".ae-question-select select").select_option(label=question_label(number, "zh"))
        teacher.page.locator(".ae-pose-question button").click()  # the list chooses; the button asks
        wait_text(desk.page, ".ae-cq-label", re.escape(question_title(number, "zh")))
        desk.page.locator(".ae-cq-input").fill("0.5.1")
        desk.page.locator(".ae-cq-input").press("Enter")
        wait_text(desk.page, ".ae-cq-status", "请输入一个数字")
        desk.page.locator(".ae-cq-input").fill("0.212")
        desk.page.locator(".ae-cq-input").press("Enter")
        wait_text(desk.page, ".ae-cq-status", "已提交：0.212")
        wait_text(teacher.page, ".ae-prediction-count", "已收到 1 份预测")
        teacher.page.keyboard.press("c")
        wait_text(phone.page, ".ae-cq-status", "投票已关闭")
        assert phone.page.locator(".ae-cq-input").is_disabled()
        teacher.page.keyboard.press("r")
        wait_text(teacher.page, ".ae-spread", r"答案 0\.212.*100%")
        wait_text(desk.page, ".ae-cq-status", r"答案是 0\.212；你的答案 0\.212。全班 1 份答案里，100% 答对")
        wait_text(phone.page, ".ae-cq-status", r"答案是 0\.212；你没有作答")
        teacher.page.screenshot(path=str(ARTIFACTS / "classroom-projector-exercise.png"))
        desk.page.screenshot(path=str(ARTIFACTS / "classroom-exercise-card-revealed.png"))
        teacher.page.keyboard.press("2")  # back to a step: asked by the explorable where it is on screen
        desk.page.locator(".ae-class-question").wait_for(state="hidden")
        wait_text(phone.page, ".ae-cq-label", "第 2 步")  # and on the card where it is not
        for s in (phone, desk):
            s.assert_clean()
        assert not server.log_errors()


def test_a_step_is_asked_on_a_card_where_the_student_is_and_the_keys_act_whatever_has_focus(student, tmp_path):
    """The instructor, with the question list focused, presses 3 (the list's type-ahead would pick
    "3.7 Step 2") and C: step 3 is posed and its vote closes. A phone on /textbook, far from the steps
    explorable, gets step 3 on a card, answers it there, and the card takes the student to the explorable
    (the card then makes way for it). An exercise posed and the room reloaded: /instructor opens the room."""
    from attention_explorable.classroom.questions import all_questions, exercise_name, question_label
    from attention_explorable.classroom.store import Store

    db = f"sqlite:///{tmp_path / 'class.sqlite3'}"
    with ClassServer(db, ["--max-sessions-per-client", "0"]) as server:
        store = Store(db)
        try:
            teacher = instructor_in_a_new_room(student(1024, 768), server)
            code = text_of(teacher.page, ".ae-room-code").strip()
            phone = student(390, 844, mobile=True)
            phone.open(f"{server.base}/textbook?room={code}", ".ae-submit-prediction")
            wait_text(phone.page, ".ae-room-joined", code)
            # Step 1, posed at the start: the phone is at the top of the text, so the card asks it there.
            phone.page.locator(".ae-class-question").wait_for(state="visible")
            wait_text(phone.page, ".ae-cq-label", "第 1 步")

            select = teacher.page.locator(".ae-question-select select")
            # (the key presses the projected explorable's button for step 3: drawn after the keys answer)
            teacher.page.locator(".ae-step-3 button").wait_for(state="attached")
            select.focus()
            teacher.page.keyboard.press("3")
            wait_text(teacher.page, ".ae-round", "第 3 步")
            assert store.room(code).step == 3
            wait_text(phone.page, ".ae-cq-label", "第 3 步")
            select.focus()
            teacher.page.keyboard.press("c")
            wait_text(teacher.page, ".ae-vote-state", "投票已关闭")
            assert store.room(code).closed
            assert select.evaluate("s => s.selectedOptions[0].text") == question_label(all_questions()[2], "zh")
            teacher.page.keyboard.press("c")  # reopened, the list still focused
            wait_text(teacher.page, ".ae-vote-state", "投票进行中")

            card = phone.page.locator(".ae-class-question")
            box = card.bounding_box()
            assert box["y"] + box["height"] <= 844 + 1  # on screen, at the top of the text
            phone.page.locator(".ae-cq-input").fill("9.9")
            phone.page.locator(".ae-cq-submit").click()
            wait_text(phone.page, ".ae-cq-status", r"已提交：9\.9")
            assert [float(v) for v in store.values(code, 3)] == [9.9]
            phone.page.locator(".ae-cq-goto").click()  # to the explorable: the card makes way for it
            card.wait_for(state="hidden")
            assert phone.page.locator(".ae-prediction input").input_value() == "9.9"
            wait_text(phone.page, ".ae-submitted", r"第 3 步.*9\.9")

            exercise = next(q for q in all_questions() if not q.is_step)
            select.select_option(label=question_label(exercise, "zh"))
            assert store.room(code).step == 3  # chosen in the list, not asked
            teacher.page.locator(".ae-pose-question button").click()
            wait_text(teacher.page, ".ae-round", re.escape(exercise_name(exercise, "zh")))
            teacher.page.reload()  # the room asks an exercise: the page opens on it, with its buttons
            wait_text(teacher.page, ".ae-round", re.escape(exercise_name(exercise, "zh")), timeout=30_000)
            assert "Traceback" not in teacher.page.inner_text("body")
            teacher.page.locator(".ae-close-voting button").click()
            wait_text(teacher.page, ".ae-vote-state", "投票已关闭")
            for s in (teacher, phone):
                s.assert_clean()
            assert not server.log_errors()
        finally:
            store.close()


def test_the_instructor_types_a_question_and_every_page_asks_it_as_plain_text(student, tmp_path):
    """A choice typed on the projector's page (markup in its words) is posed to the room: a phone on the
    textbook and a laptop that joins afterwards are asked it on the card, its words shown as typed and no
    element made of them; an answer is counted, and the reveal says the right option."""
    words = "<img src=x onerror=alert(1)> 哪一个每行加起来是 1？"
    with ClassServer(f"sqlite:///{tmp_path / 'class.sqlite3'}", ["--max-sessions-per-client", "0"]) as server:
        teacher = instructor_in_a_new_room(student(1024, 768), server)
        code = text_of(teacher.page, ".ae-room-code").strip()
        phone = student(390, 844, mobile=True)
        phone.open(f"{server.base}/textbook?room={code}", ".ae-submit-prediction")
        wait_text(phone.page, ".ae-room-joined", code)
        form = teacher.page.locator(".ae-typed-question")
        form.locator(".ae-typed-header").click()  # folded: a projector would show the answer as it is typed
        form.locator(".ae-typed-text textarea").fill(words)
        form.locator(".ae-typed-kind button", has_text="选择题").click()
        form.locator(".ae-typed-options textarea").fill("分数\n权重\n值")
        form.locator(".ae-typed-right select").select_option("B")
        form.locator(".ae-typed-pose button").click()
        wait_text(teacher.page, ".ae-round", "课堂提问 1")
        wait_text(teacher.page, ".ae-instructor-question", re.escape("<img src=x onerror=alert(1)>"))
        desk = student(1280, 900)  # joins once the question is posed: told it with the room
        desk.open(f"{server.base}/steps?room={code}", ".ae-submit-prediction")
        for s in (phone, desk):
            s.page.locator(".ae-class-question").wait_for(state="visible")
            wait_text(s.page, ".ae-cq-label", "课堂提问 1")
            wait_text(s.page, ".ae-cq-text", re.escape(words))
            wait_text(s.page, ".ae-cq-text li", "B. 权重")
            assert s.page.locator(".ae-class-question img").count() == 0
        phone.page.locator(".ae-class-question").get_by_role("radio", name="B").check()
        phone.page.locator(".ae-cq-confidence button", has_text="有把握").click()  # said with the answer
        phone.page.locator(".ae-cq-submit").click()
        wait_text(phone.page, ".ae-cq-status", "已提交：B")
        wait_text(teacher.page, ".ae-prediction-count", "已收到 1 份预测（其中 1 份有把握）")
        from attention_explorable.classroom.store import Store

        store = Store(server.db)
        try:
            (typed,) = store.custom_questions(code)
            assert store.values_with_confidence(code, typed.number) == [(1.0, "sure")]
        finally:
            store.close()
        teacher.page.keyboard.press("r")
        wait_text(teacher.page, ".ae-spread", r"答案 B.*100%")
        wait_text(phone.page, ".ae-cq-status", r"答案是 B；你的答案 B")
        wait_text(desk.page, ".ae-cq-status", r"答案是 B；你没有作答")
        phone.page.screenshot(path=str(ARTIFACTS / "classroom-typed-question-phone.png"))
        teacher.page.screenshot(path=str(ARTIFACTS / "classroom-typed-question-projector.png"))
        # Key 1 poses step 1 again, though the explorable below stood at step 1 all along; its scale is numbers.
        teacher.page.keyboard.press("1")
        wait_text(teacher.page, ".ae-round", "第 1 步")
        teacher.page.wait_for_function(_NUMBER_SCALE)
        # How sure a student was is said of one answer: a new round starts unsaid.
        unsure = desk.page.locator(".ae-confidence button", has_text="没把握")
        unsure.click()
        expect(unsure).to_have_attribute("aria-pressed", "true")
        teacher.page.keyboard.press("n")
        expect(unsure).to_have_attribute("aria-pressed", "false")
        for s in (phone, desk, teacher):
            s.assert_clean()
        assert not server.log_errors()


def test_projector_mode_keeps_the_round_in_view_at_1024x768_and_draws_the_explorable_larger(student, tmp_path):
    """P (or its button): the round alone on a 1024x768 projector (its four buttons, the vote's line with the
    countdown, the spread, the way back), the explorable's text half as large again and its keys still
    acting; the address keeps the mode for a reload, and P again gives the page back as it was."""
    round_parts = [".ae-close-voting", ".ae-reveal", ".ae-new-round", ".ae-timer", ".ae-vote-state", ".ae-spread"]
    with ClassServer(f"sqlite:///{tmp_path / 'class.sqlite3'}", ["--max-sessions-per-client", "0"]) as server:
        teacher = instructor_in_a_new_room(student(1024, 768), server)
        page = teacher.page
        readout = page.locator(".ae-readout").filter(has_text="y = ").last
        before = float(readout.evaluate("e => parseFloat(getComputedStyle(e).fontSize)"))
        page.keyboard.press("p")
        page.locator(".ae-question-select").wait_for(state="hidden")
        page.wait_for_function("() => location.search.includes('projector=on')")
        page.keyboard.press("t")  # a countdown: said in the vote's line, in view
        wait_text(page, ".ae-vote-state", r"\d+ 秒后自动关闭")
        for css in [*round_parts, ".ae-projector-toggle"]:
            box = page.locator(css).first.bounding_box()
            assert box and box["y"] >= 0 and box["y"] + box["height"] <= 768, (css, box)
        for hidden in [".ae-typed-question", ".ae-end-room", ".ae-csv", ".ae-follow"]:
            assert not page.locator(hidden).first.is_visible(), hidden
        page.wait_for_function(
            "([e, px]) => parseFloat(getComputedStyle(e).fontSize) >= px",
            arg=[readout.element_handle(), before * 1.5 - 0.5],
        )
        assert _font_px(page, ".ae-step-2 .bk-btn") >= 22
        page.keyboard.press("2")  # the explorable's keys still act
        wait_text(page, ".ae-round", "第 2 步")
        page.screenshot(path=str(ARTIFACTS / "classroom-projector-mode.png"))
        page.evaluate("window.scrollTo(0, 0)")
        page.keyboard.press("d")  # the demonstration below the fold comes into view, the hall sees it move
        page.wait_for_function(
            "([e]) => { const r = e.getBoundingClientRect(); return r.top >= -1 && r.top < innerHeight / 2; }",
            arg=[page.locator(".ae-projected-explorable").first.element_handle()],
        )
        page.keyboard.press("p")
        page.locator(".ae-question-select").wait_for(state="visible")
        page.wait_for_function(
            "([e, px]) => Math.abs(parseFloat(getComputedStyle(e).fontSize) - px) < 0.5",
            arg=[page.locator(".ae-readout").filter(has_text="y = ").last.element_handle(), before],
        )
        teacher.assert_clean()
        assert not server.log_errors()
