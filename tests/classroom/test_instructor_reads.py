"""The instructor's page reads its room only when the room changed: an idle room costs no query."""

from __future__ import annotations

import html
import time
from types import SimpleNamespace

import pytest
from bokeh.document import Document
from sqlalchemy import event

import panel as pn

from attention_explorable.classroom import instructor, questions
from attention_explorable.classroom.store import Store


class _Queries:
    """The SQL statements an engine runs, counted."""

    def __init__(self, engine):
        self.n = 0
        event.listen(engine, "before_cursor_execute", self._count)

    def _count(self, *_args) -> None:
        self.n += 1


@pytest.fixture
def served(monkeypatch, db_url):
    """A document as in a server session, whose next-turn callbacks run as soon as they are asked for."""
    doc = Document()
    session = SimpleNamespace(request=SimpleNamespace(arguments={}, headers={}, cookies={}), id="test")
    doc._session_context = lambda: session
    monkeypatch.setattr(instructor, "_next_turn", lambda _doc, callback: callback())
    monkeypatch.setattr(pn.state, "add_periodic_callback", lambda *a, **k: None)
    pn.state.curdoc = doc
    store = Store(db_url)
    yield store
    pn.state.curdoc = None
    store.close()


def _refreshed(view) -> None:
    """One turn of the page's periodic refresh, the read it started (if any) awaited."""
    view.refresh()
    deadline = time.monotonic() + 10
    while view._reading:
        assert time.monotonic() < deadline, "the read did not end"
        time.sleep(0.005)  # the poll's interval


def _settled(view) -> None:
    """Return once the page's writes and the reads they started are done (none still holds a connection
    when the test closes the store): the one writer thread runs a write's callbacks, which start the
    read, before it takes the next task."""
    instructor._writer().submit(lambda: None).result(timeout=10)
    deadline = time.monotonic() + 10
    while view._reading:
        assert time.monotonic() < deadline, "the read did not end"
        time.sleep(0.005)  # the poll's interval


def _count_text(view) -> str:
    return view._count.object


def test_an_idle_room_is_not_read_and_a_change_is(served, monkeypatch):
    store = served
    room = store.create_room()
    # PostgreSQL's page also reads every SHARED_READ_S (its own test, below): not within this test's turns,
    # however slowly a busy machine runs them.
    monkeypatch.setattr(instructor, "SHARED_READ_S", 3600.0)
    view = instructor.InstructorView(
        code=room.code, language="en", store=store, shared=store.url.startswith("postgresql")
    )
    queries = _Queries(store.engine)
    for _ in range(20):
        _refreshed(view)
    assert queries.n == 0, f"an idle room was read: {queries.n} statements in 20 turns"

    assert store.submit(room.code, "student-0001", 1, 6.0).ok
    before = queries.n
    _refreshed(view)
    assert queries.n > before, "an answer did not make the page read the room"
    assert "1 prediction" in _count_text(view)

    after = queries.n
    for _ in range(5):
        _refreshed(view)
    assert queries.n == after, "the page went on reading after it had read the change"


def test_a_refused_answer_is_no_change(served):
    store = served
    room = store.create_room()
    before = store.changes(room.code)
    assert not store.submit(room.code, "student-0001", 1, float("nan")).ok
    assert store.changes(room.code) == before
    store.close_voting(room.code, 1)
    assert store.changes(room.code) != before


def test_another_process_answer_is_read(served, monkeypatch):
    """SQLite: its commit changes the file, which the page looks at. PostgreSQL: the page reads every
    SHARED_READ_S, and not before."""
    store = served
    room = store.create_room()
    shared = store.url.startswith("postgresql")
    monkeypatch.setattr(instructor, "SHARED_READ_S", 3600.0)
    view = instructor.InstructorView(code=room.code, language="en", store=store, shared=shared)
    other = Store(store.url)  # another process's store: its writes are not in this one's count
    try:
        assert other.submit(room.code, "student-0002", 1, 7.0).ok
    finally:
        other.close()
    _refreshed(view)
    if shared:
        assert "1 prediction" not in _count_text(view), "read before SHARED_READ_S had passed"
        monkeypatch.setattr(instructor, "SHARED_READ_S", 0.0)
        _refreshed(view)
    assert "1 prediction" in _count_text(view), "another process's answer was never read"


def test_a_room_asking_an_exercise_opens_again_on_the_instructors_page(served):
    """A reload of /instructor while the room asks a question that is not a step (its number is no step's)
    shows the room: its question, its buttons; the explorable below waits on step 1."""
    from attention_explorable.classroom.questions import all_questions

    store = served
    room = store.create_room()
    exercise = next(q for q in all_questions() if not q.is_step)
    store.set_step(room.code, exercise.number)
    view = instructor.InstructorView(code=room.code, language="en", store=store)
    assert questions.exercise_name(exercise, "en") in view._round.object
    assert view._questions.value == exercise.number
    assert view.explorer.step == 1
    view.toggle_voting()  # the room is the instructor's again: its vote closes (in the page's writer thread)
    deadline = time.monotonic() + 10
    while not store.room(room.code).closed:
        assert time.monotonic() < deadline, "the vote was never closed"
        time.sleep(0.005)  # the poll's interval
    _settled(view)


def test_a_page_that_cannot_be_built_is_one_plain_line_never_a_traceback(served, monkeypatch, caplog):
    from attention_explorable.classroom.context import ClassContext

    def broken(**_params):
        raise RuntimeError("/srv/secret/path.py line 1")

    monkeypatch.setattr(instructor, "InstructorView", broken)
    context = SimpleNamespace(has_secret=True, public_urls=(), store=lambda: served, shared=False)
    assert ClassContext  # the page's real argument is a ClassContext; only these attributes are read
    page = instructor.instructor_page(context, "en")
    assert "cannot be shown" in page.object
    assert "secret" not in page.object and "Traceback" not in page.object
    assert "RuntimeError" in caplog.text and "/srv/secret" not in caplog.text


def test_ending_the_class_takes_a_second_press_within_the_confirmation_time(served):
    store = served
    room = store.create_room()
    view = instructor.InstructorView(code=room.code, language="en", store=store)
    view.end_pressed(now=100.0)
    assert "Press again" in view._end.label and not store.room(room.code).ended
    view._disarm_end(100.0 + instructor.END_CONFIRM_S + 1)  # not confirmed in time: back as it was
    assert view._end.label == "End the class"
    view.end_pressed(now=200.0)
    view.end_pressed(now=200.0 + instructor.END_CONFIRM_S + 1)  # too late: a new first press
    assert not store.room(room.code).ended
    view.end_pressed(now=200.0 + instructor.END_CONFIRM_S + 2)
    deadline = time.monotonic() + 10
    while not store.room(room.code).ended:
        assert time.monotonic() < deadline, "the class was never ended"
        time.sleep(0.005)  # the poll's interval
    _settled(view)


def test_the_countdown_is_the_instructors_choice_and_stays_chosen_for_the_later_rounds(served):
    store = served
    room = store.create_room()
    view = instructor.InstructorView(code=room.code, language="en", store=store)
    assert list(view._countdown.options.values()) == list(instructor.COUNTDOWN_CHOICES)
    assert view._countdown.value == instructor.TIMER_S and view._timer.label == "Close in 60 s (T)"

    def counted(view, chosen: int) -> None:
        """T pressed on ``view``: the vote closes ``chosen`` s from the press."""
        pressed = time.time()
        view._timer.clicks += 1
        _settled(view)
        closes_at = store.room(room.code).closes_at
        assert closes_at is not None and pressed + chosen - 1 <= closes_at <= time.time() + chosen, closes_at

    view._countdown.value = 90  # the instructor's choice in the list
    _settled(view)
    assert store.countdown(room.code) == 90 and view._timer.label == "Close in 90 s (T)"
    counted(view, 90)

    store.new_round(room.code)  # a later round, on a page opened again (a reload, the projector's window)
    again = instructor.InstructorView(code=room.code, language="en", store=store)
    assert again._countdown.value == 90 and again._timer.label == "Close in 90 s (T)"
    counted(again, 90)

    for wrong in (0, 7200, float("nan"), "90"):
        with pytest.raises(ValueError, match=f"seconds must be a number from 1 to 3600, got {wrong!r}"):
            view.set_countdown(wrong)
    assert store.countdown(room.code) == 90


def test_rounds_are_numbered_per_question(served):
    """Question A, a new round for question B, a new round for A again: round 1 of A, round 1 of B (the room's
    round 2), round 2 of A (the room's round 3), compared with A's round 1; the CSV says both numbers."""
    from attention_explorable.classroom.questions import all_questions

    store = served
    a = next(q for q in all_questions() if not q.is_step)
    room = store.create_room()
    view = instructor.InstructorView(code=room.code, language="en", store=store)

    def answered(number: int, student: str) -> None:
        question = next(q for q in all_questions() if q.number == number)
        assert store.submit(room.code, student, number, question.answer, bounds=question.bounds).ok
        _refreshed(view)

    def round_line() -> str:
        _settled(view)
        _refreshed(view)
        return html.unescape(view._round.object)

    view._question_chosen(a.number)  # the instructor asks A
    assert f"Round 1 · exercise {questions.exercise_name(a, 'en')}" in round_line()
    answered(a.number, "student-0001")
    view.new_round()
    view._question_chosen(2)  # then B, in the room's round 2
    assert "Round 1 · step 2" in round_line()
    answered(2, "student-0003")
    view.new_round()
    view._question_chosen(a.number)  # then A again, in the room's round 3
    assert f"Round 2 · exercise {questions.exercise_name(a, 'en')}" in round_line()
    answered(a.number, "student-0002")
    view.reveal()
    _settled(view)
    _refreshed(view)
    assert "Against round 1:" in html.unescape(view._spread.object)
    rows = [(r["round"], r["question_round"], r["step"]) for r in store.export_rows(room.code)]
    assert rows == [(1, 1, a.number), (2, 1, 2), (3, 2, a.number)]


def test_a_typed_question_is_checked_kept_posed_listed_and_shown_as_text(served):
    """The form of "ask your own question": a part that cannot be asked is said under it and keeps nothing;
    a good one is kept, posed to the room, listed, shown escaped, and survives a reload of the page."""
    store = served
    room = store.create_room()
    view = instructor.InstructorView(code=room.code, language="en", store=store)
    view._typed_text.value = "Which weight is largest <b>now</b>?"
    view._typed_kind.value = "choice"
    assert view._typed_options.visible and not view._typed_answer.visible
    view._typed_options.value = "the first\n\nthe second\n"
    view._typed_right.value = "C"
    view.pose_typed()
    assert "there are only A, B" in view._typed_message.object and store.custom_questions(room.code) == []
    view._typed_right.value = "B"
    view.pose_typed()
    _settled(view)
    (typed,) = store.custom_questions(room.code)
    assert (typed.kind, typed.options, typed.answer) == ("choice", ("the first", "the second"), 1.0)
    assert store.room(room.code).step == typed.number
    _refreshed(view)
    assert view._questions.value == typed.number and "class question 1" in view._round.object
    assert "&lt;b&gt;now&lt;/b&gt;" in view._question.object and "<b>now</b>" not in view._question.object
    assert view._typed_text.value == "" and view._typed_message.object == ""
    view._typed_kind.value = "number"
    view._typed_text.value = "How many rows?"
    for answer, within, says in [("two", "0", "right answer as a number"), ("2", "-1", "tolerance as a number")]:
        view._typed_answer.value, view._typed_within.value = answer, within
        view.pose_typed()
        assert says in view._typed_message.object
    view._typed_answer.value, view._typed_within.value = "1/4", "0,01"
    view.pose_typed()
    _settled(view)
    second = store.custom_questions(room.code)[1]
    assert (second.answer, second.within, second.key) == (0.25, 0.01, "custom-2")
    again = instructor.InstructorView(code=room.code, language="zh", store=store)  # a reload
    assert again._questions.value == second.number and "课堂提问 2" in again._question.object
    assert sum(number >= typed.number for number in again._questions.options.values()) == 2


def test_projector_mode_hides_the_setting_up_and_gives_every_size_back_when_left(served):
    store = served
    room = store.create_room()
    view = instructor.InstructorView(code=room.code, language="en", store=store)

    def sizes():
        return [
            (type(m).__name__, name, getattr(m, name))
            for fig in view.explorer.figures
            for m in fig.references()
            for name in m.properties()
            if name.endswith("font_size")
        ] + [fig.height for fig in view.explorer.figures]

    made = sizes()
    view.toggle_projector()
    assert view.projector and view.join_folded and not any(part.visible for part in view._setup)
    assert view._explorable_box.styles["--ae-readout-size"] == "22.5px"
    assert view.explorer.figures[0].title.text_font_size == "19.5px"  # 13px, half as large again
    assert all(instructor._PROJECTED_WIDGET_CSS in w.stylesheets for w in view.explorer.controls)
    view.toggle_projector()
    assert not view.projector and all(part.visible for part in view._setup)
    assert sizes() == made
    assert not any(instructor._PROJECTED_WIDGET_CSS in w.stylesheets for w in view.explorer.controls)
    assert set(view._explorable_box.styles.values()) == {"inherit"}
    with pytest.raises(ValueError, match="factor must be a positive number below 10, got 0"):
        instructor.plots.enlarge(view.explorer.figures[0], 0)
    reloaded = instructor.InstructorView(code=room.code, language="en", store=store, projector=True)  # ?projector=on
    assert not reloaded.join_folded and reloaded._qr.visible  # the join panel as its address says (join=shown)
    assert (
        not any(part.visible for part in reloaded._setup)
        and reloaded.explorer.figures[0].title.text_font_size == "19.5px"
    )


def _turns(monkeypatch):
    """The document's next turns queued (``instructor._next_turn``), and ``run_turns(until, what)``, which
    runs them one by one, as the server's loop would, until ``until()`` holds (at most 10 s, else ``what``)."""
    import queue

    turns = queue.Queue()
    monkeypatch.setattr(instructor, "_next_turn", lambda _doc, callback: turns.put(callback))

    def run_turns(until, what: str) -> None:
        deadline = time.monotonic() + 10
        while not until():
            try:
                turns.get(timeout=0.05)()  # the poll's interval
            except queue.Empty:
                assert time.monotonic() < deadline, what

    return turns, run_turns


def test_a_read_begun_before_the_instructors_step_never_takes_the_room_back(served, monkeypatch):
    """Key 2 while a read of the room is under way: that read, answered after the write, saw step 1. Shown,
    it would look like another window's choice, move the projected explorable back and write step 1 again;
    it is dropped, and the room is read again once the write is done."""
    import threading

    store = served
    room = store.create_room()
    view = instructor.InstructorView(code=room.code, language="en", store=store)
    turns, run_turns = _turns(monkeypatch)

    read, gate, began = view._read, threading.Event(), threading.Event()

    def slow_read():
        seen = read()  # the room as it was before the key
        began.set()
        gate.wait(10)
        return seen

    monkeypatch.setattr(view, "_read", slow_read)
    assert store.submit(room.code, "student-0001", 1, 6.0).ok  # a change: the next turn reads the room
    view.refresh()
    assert began.wait(10), "the read never began"
    view.explorer.step = 2  # key 2 on the projected explorable

    def settled() -> bool:
        """No write or read of the page under way, none's end waiting for its turn."""
        instructor._writer().submit(lambda: None).result(timeout=10)  # the writes before it have queued their ends
        return not view._reading and turns.empty()

    run_turns(lambda: store.room(room.code).step == 2 and turns.empty(), "step 2 was never written")
    gate.set()
    run_turns(settled, "the page never settled")
    assert store.room(room.code).step == 2, "a stale read took the room back to step 1"
    assert view.explorer.step == 2
    assert "step 2" in view._round.object, view._round.object


def test_a_countdowns_redraw_during_the_instructors_step_never_takes_the_room_back(served, monkeypatch):
    """While a countdown runs the page redraws its seconds from the room as last read, every turn, without a
    query. Key 2 pressed meanwhile: until the step is written, that redraw holds step 1, and must not move
    the projected explorable back (nor write step 1 again)."""
    import threading

    store = served
    room = store.create_room()
    view = instructor.InstructorView(code=room.code, language="en", store=store)
    turns, run_turns = _turns(monkeypatch)

    def settled() -> bool:
        instructor._writer().submit(lambda: None).result(timeout=10)
        return not view._reading and turns.empty()

    view._timer.clicks += 1  # T: the countdown starts
    run_turns(lambda: settled() and view._seen[0].closes_at is not None, "the countdown never started")
    gate = threading.Event()
    instructor._writer().submit(gate.wait, 10)  # the database slow: the step's write waits behind this
    view.explorer.step = 2  # key 2 on the projected explorable
    for _ in range(3):
        view.refresh()  # the countdown's turns while the write waits
    assert view.explorer.step == 2, "a redraw of the room as read before the key moved the explorable back"
    gate.set()
    run_turns(lambda: store.room(room.code).step == 2 and settled(), "step 2 was never written")
    run_turns(settled, "the page never settled")
    assert store.room(room.code).step == 2 and view.explorer.step == 2
    assert "step 2" in view._round.object, view._round.object
