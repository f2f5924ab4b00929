"""The class's storage on SQLite and on a real PostgreSQL server: rooms, rounds, predictions, reveals."""

from __future__ import annotations

import csv
import io
import math
import re
import sqlite3

import pytest
from sqlalchemy import text

from attention_explorable.classroom.store import (
    CODE_ALPHABET,
    CODE_LENGTH,
    PRESENCE_WINDOW_S,
    SCHEMA_VERSION,
    Store,
    StoreError,
    check_url,
    default_url,
    neutralise,
    normalise_code,
)

ALICE, BOB = "alice-0000000001", "bob-00000000002"


@pytest.fixture
def store(db_url):
    s = Store(db_url)
    yield s
    s.close()


def test_a_room_has_a_short_code_step_1_round_1_and_followers(store):
    room = store.create_room()
    assert len(room.code) == CODE_LENGTH and set(room.code) <= set(CODE_ALPHABET)
    assert (room.step, room.round, room.follow) == (1, 1, True)
    assert store.room(room.code.lower()) == room  # a code typed in lower case joins too
    assert store.room("NOPE00") is None and store.room("") is None and store.room(None) is None


def test_one_prediction_per_student_per_step_per_round_a_new_one_replaces(store):
    code = store.create_room().code
    assert store.submit(code, ALICE, 1, 5.0, now=100.0).ok
    assert store.submit(code, BOB, 1, 7.0, now=100.0).ok
    again = store.submit(code, ALICE, 1, 6.0, now=102.0)
    assert again.ok
    assert sorted(store.values(code, 1)) == [6.0, 7.0]  # Alice's second answer replaced her first
    assert store.submit(code, ALICE, 2, 9.0, now=104.0).ok  # another step: another prediction
    assert store.values(code, 2) == [9.0] and sorted(store.values(code, 1)) == [6.0, 7.0]
    assert store.prediction(code, ALICE, 1) == 6.0
    assert store.latest_prediction(code, ALICE) == (2, 9.0)


def test_students_seen_within_the_window_are_in_the_room_until_they_leave(store):
    code, other = store.create_room().code, store.create_room().code
    store.seen(code, [ALICE, BOB], now=1000.0)
    store.seen(other, [ALICE], now=1000.0)  # another room counts its own
    assert store.present(code, now=1000.0) == 2 and store.present(other, now=1000.0) == 1
    store.seen(code, [ALICE], now=1000.0 + PRESENCE_WINDOW_S)  # a beat: Alice is still there, Bob's page said nothing
    assert store.present(code, now=1001.0 + PRESENCE_WINDOW_S) == 1
    store.left(code, ALICE)
    assert store.present(code, now=1001.0 + PRESENCE_WINDOW_S) == 0 and store.present(other, now=1000.0) == 1
    with pytest.raises(ValueError, match="students must be students' ids, got 'x'"):
        store.seen(code, ["x"])
    with pytest.raises(KeyError):
        store.seen("NOPE00", [ALICE])


def test_at_most_one_prediction_a_second_per_student(store):
    code = store.create_room().code
    assert store.submit(code, ALICE, 1, 5.0, now=100.0).ok
    refused = store.submit(code, ALICE, 2, 6.0, now=100.5)
    assert not refused.ok and refused.reason == "rate"
    assert store.values(code, 2) == []
    assert store.submit(code, BOB, 1, 6.0, now=100.5).ok  # another student is not held back
    assert store.submit(code, ALICE, 2, 6.0, now=101.0).ok


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, 20.5, -21, "6", None, True, [6], 10**310, -(10**310)])
def test_values_that_are_not_finite_numbers_in_range_are_refused_and_not_stored(store, value):
    code = store.create_room().code
    result = store.submit(code, ALICE, 1, value, now=100.0)
    assert not result.ok and result.reason == "value"
    assert store.values(code, 1) == [] and store.export_rows(code) == []


@pytest.mark.parametrize(
    "student, step, reason",
    [
        ("short", 1, "student"),
        ("x" * 65, 1, "student"),
        ("bad id with spaces", 1, "student"),
        (None, 1, "student"),
        (ALICE, 0, "step"),
        (ALICE, 2**31, "step"),
        (ALICE, True, "step"),
        (ALICE, "1", "step"),
    ],
)
def test_malformed_students_and_steps_are_refused(store, student, step, reason):
    code = store.create_room().code
    result = store.submit(code, student, step, 6.0, now=100.0)
    assert (result.ok, result.reason) == (False, reason)


def test_a_submission_to_an_unknown_room_is_refused(store):
    assert store.submit("ABCDEF", ALICE, 1, 6.0).reason == "room"


def test_a_new_round_starts_empty_and_keeps_the_old_ones(store):
    code = store.create_room().code
    store.submit(code, ALICE, 1, 5.0, now=100.0)
    store.reveal(code, 1)
    assert store.new_round(code) == 2
    assert store.room(code).round == 2
    assert store.values(code, 1) == [] and not store.revealed(code, 1)
    assert store.values(code, 1, round=1) == [5.0] and store.revealed(code, 1, round=1)
    assert store.submit(code, ALICE, 1, 8.0, now=102.0).round == 2
    rows = store.export_rows(code)
    assert [(r["round"], r["prediction"], r["revealed"]) for r in rows] == [(1, 5.0, True), (2, 8.0, False)]


def test_a_closed_or_revealed_step_takes_no_answer_and_reopening_takes_them_again(store):
    code = store.create_room().code
    assert store.submit(code, ALICE, 1, 5.0, now=100.0).ok
    store.close_voting(code, 1)
    store.close_voting(code, 1)  # again: no change
    assert (store.room(code).closed, store.room(code).revealed) == (True, False)
    refused = store.submit(code, BOB, 1, 7.0, now=100.0)
    assert (refused.ok, refused.reason) == (False, "closed")
    assert store.submit(code, ALICE, 2, 4.0, now=102.0).ok  # only that step is closed
    store.open_voting(code, 1)
    assert not store.room(code).closed and store.submit(code, BOB, 1, 7.0, now=104.0).ok
    store.reveal(code, 1)
    store.open_voting(code, 1)  # a revealed step stays closed: its answer is out
    assert (store.room(code).closed, store.room(code).revealed) == (True, True)
    assert store.submit(code, ALICE, 1, 6.0, now=106.0).reason == "closed"
    assert sorted(store.values(code, 1)) == [5.0, 7.0]
    store.set_step(code, 2)
    assert (store.room(code).closed, store.room(code).revealed) == (False, False)  # the shown step's
    store.set_step(code, 1)
    store.new_round(code)
    assert not store.room(code).closed and store.submit(code, ALICE, 1, 6.0, now=108.0).ok  # a new round opens
    with pytest.raises(KeyError):
        store.close_voting("NOPE00", 1)
    with pytest.raises(ValueError, match="step must be a question's number .*, got 0"):
        store.close_voting(code, 0)


def test_a_countdown_closes_the_vote_at_its_time_and_a_close_or_reopening_ends_it(store):
    code = store.create_room().code
    assert store.close_voting_in(code, 1, 30, now=100.0) == 130.0
    assert (store.room(code, now=129.0).closed, store.room(code, now=129.0).closes_at) == (False, 130.0)
    assert store.submit(code, ALICE, 1, 5.0, now=129.0).ok
    assert store.room(code, now=130.0).closed and store.submit(code, BOB, 1, 5.0, now=130.0).reason == "closed"
    store.open_voting(code, 1, now=131.0)  # reopened: no countdown any more
    assert store.room(code, now=200.0) == store.room(code, now=200.0) and not store.room(code, now=200.0).closed
    assert store.room(code).closes_at is None and store.submit(code, BOB, 1, 5.0, now=200.0).ok
    store.close_voting_in(code, 1, 10, now=300.0)
    store.close_voting(code, 1, now=305.0)  # C before the end: closed now, the countdown gone
    assert store.room(code, now=306.0).closed and store.room(code, now=306.0).closes_at is None
    store.open_voting(code, 1, now=307.0)
    store.close_voting_in(code, 1, 10, now=308.0)
    store.reveal(code, 1, now=309.0)  # R during a countdown: revealed, and the countdown has nothing to close
    assert (store.room(code, now=310.0).revealed, store.room(code, now=310.0).closes_at) == (True, None)
    for bad in (0, 0.5, 4000, True, "60", float("nan")):
        with pytest.raises(ValueError, match="seconds must be a number from 1 to 3600"):
            store.close_voting_in(code, 1, bad)
    with pytest.raises(KeyError):
        store.close_voting_in("NOPE00", 1, 10)


def test_pairs_are_the_answers_of_the_students_in_both_rounds(store):
    code = store.create_room().code
    store.submit(code, ALICE, 1, 5.0, now=100.0)
    store.submit(code, BOB, 1, 9.0, now=100.0)
    store.submit(code, BOB, 2, 4.0, now=102.0)
    store.new_round(code)
    store.submit(code, ALICE, 1, 6.0, now=200.0)
    store.submit(code, "carol-000000003", 1, 7.0, now=200.0)  # in the second round only
    assert store.pairs(code, 1, 1, 2) == [(5.0, 6.0)]
    assert (
        store.pairs(code, 2, 1, 2) == [] and store.pairs(code, 1, 1, 9) == [] and store.pairs("NOPE00", 1, 1, 2) == []
    )


def test_a_confidence_goes_with_its_answer_and_is_replaced_with_it(store):
    code = store.create_room().code
    assert store.submit(code, ALICE, 1, 5.0, now=100.0, confidence="sure").ok
    assert store.submit(code, BOB, 1, 7.0, now=100.0).ok
    assert store.values_with_confidence(code, 1) == [(5.0, "sure"), (7.0, None)]
    assert store.submit(code, ALICE, 1, 6.0, now=102.0, confidence="unsure").ok
    assert store.submit(code, BOB, 1, 8.0, now=102.0, confidence="sure").ok
    assert store.values_with_confidence(code, 1) == [(6.0, "unsure"), (8.0, "sure")]
    assert store.submit(code, ALICE, 1, 6.5, now=104.0).ok  # said nothing this time: nothing kept
    assert dict(store.values_with_confidence(code, 1)) == {6.5: None, 8.0: "sure"}
    refused = store.submit(code, ALICE, 1, 6.0, now=106.0, confidence="very")
    assert (refused.ok, refused.reason) == (False, "confidence") and store.prediction(code, ALICE, 1) == 6.5
    rows = {r["student"]: r for r in csv.DictReader(io.StringIO(store.export_csv(code)))}
    assert (rows[ALICE]["confidence"], rows[BOB]["confidence"]) == ("", "sure")
    store.new_round(code)
    assert store.values_with_confidence(code, 1) == []


def test_step_and_follow_are_stored(store):
    code = store.create_room().code
    store.set_step(code, 3)
    store.set_follow(code, False)
    room = store.room(code)
    assert (room.step, room.follow) == (3, False)
    assert store.rooms([code, "ZZZZZZ"]) == {code: room}
    assert store.latest_room() == room
    with pytest.raises(ValueError, match="step must be a question's number .*, got -1"):
        store.set_step(code, -1)


def test_rooms_are_shared_by_two_stores_on_one_database(db_url):
    """Two server processes are two engines on one database."""
    a, b = Store(db_url), Store(db_url)
    try:
        code = a.create_room().code
        assert b.submit(code, ALICE, 1, 6.0).ok
        assert a.values(code, 1) == [6.0]
        b.new_round(code)
        assert a.room(code).round == 2
    finally:
        a.close()
        b.close()


def test_the_csv_has_every_round_and_neutralises_formula_cells(store):
    code = store.create_room().code
    store.submit(code, "-danger12345", 1, -3.5, now=100.0)
    store.submit(code, BOB, 1, 6.0, now=100.0)
    store.new_round(code)
    store.submit(code, BOB, 1, 9.0, now=200.0)
    # Ids the browser never makes, as if written into the database by other means.
    with store.engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO predictions (round_id, step, student, value, submitted_at, revisions) "
                "SELECT id, 2, '=HYPERLINK(1)', 4.0, 300.0, 0 FROM rounds WHERE number = 2"
            )
        )
        conn.execute(
            text(
                "INSERT INTO predictions (round_id, step, student, value, submitted_at, revisions) "
                "SELECT id, 3, '@SUM(A1)', 4.0, 300.0, 0 FROM rounds WHERE number = 2"
            )
        )
        conn.execute(
            text(
                "INSERT INTO predictions (round_id, step, student, value, submitted_at, revisions) "
                "SELECT id, 3, '+1+1', 4.0, 301.0, 0 FROM rounds WHERE number = 2"
            )
        )
    rows = list(csv.reader(io.StringIO(store.export_csv(code, {1: "step-1", 3: "=step-3"}))))
    assert rows[0] == [
        "room",
        "round",
        "step",
        "question",
        "student",
        "prediction",
        "confidence",
        "submitted_at_utc",
        "revisions",
        "earlier_predictions",
        "after_close",
        "voting_closed_at_utc",
        "revealed",
        "revealed_at_utc",
        "question_round",
    ]
    body = rows[1:]
    assert [(r[1], r[2]) for r in body] == [("1", "1"), ("1", "1"), ("2", "1"), ("2", "2"), ("2", "3"), ("2", "3")]
    assert [r[-1] for r in body] == ["1", "1", "2", "1", "1", "1"]  # step 1's second round; steps 2 and 3's first
    assert [r[3] for r in body] == ["step-1", "step-1", "step-1", "", "'=step-3", "'=step-3"]
    assert {r[4] for r in body} == {"'-danger12345", BOB, "'=HYPERLINK(1)", "'@SUM(A1)", "'+1+1"}
    assert sorted(r[5] for r in body) == ["-3.5", "4.0", "4.0", "4.0", "6.0", "9.0"]  # a negative number stays a number
    assert body[0][7] == "1970-01-01T00:01:40Z"


def test_the_csv_says_how_answers_moved_and_when_voting_closed_and_the_step_was_revealed(store):
    code = store.create_room().code
    store.submit(code, ALICE, 1, 5.0, now=100.0)
    store.submit(code, ALICE, 1, 5.5, now=110.0)
    store.submit(code, BOB, 1, 8.0, now=100.0)
    store.close_voting(code, 1, now=120.0)
    store.open_voting(code, 1, now=125.0)
    store.submit(code, ALICE, 1, 6.0, now=130.0)  # after the first close, voting reopened
    store.close_voting(code, 1, now=140.0)
    store.reveal(code, 1, now=150.0)
    store.submit(code, BOB, 2, 9.0, now=160.0)
    rows = {(r["student"], r["step"]): r for r in csv.DictReader(io.StringIO(store.export_csv(code)))}
    alice, bob, bob2 = rows[(ALICE, "1")], rows[(BOB, "1")], rows[(BOB, "2")]
    assert (alice["prediction"], alice["earlier_predictions"], alice["revisions"]) == ("6.0", "5.0;5.5", "2")
    assert (alice["after_close"], bob["after_close"], bob["earlier_predictions"]) == ("yes", "no", "")
    assert alice["voting_closed_at_utc"] == bob["voting_closed_at_utc"] == "1970-01-01T00:02:00Z"  # the first close
    assert (alice["revealed"], alice["revealed_at_utc"]) == ("yes", "1970-01-01T00:02:30Z")
    assert (bob2["voting_closed_at_utc"], bob2["revealed"], bob2["revealed_at_utc"]) == ("", "no", "")


def test_the_csv_writes_a_row_it_cannot_read_with_empty_cells_and_still_succeeds(store, caplog):
    """Rows no release writes (put in by hand, by a tool, by an older bug): an unreadable cell is left empty,
    the rest of the row and the other rows are written, and a student's text cannot become a formula."""
    code = store.create_room().code
    store.submit(code, ALICE, 1, 5.0, now=100.0)
    store.submit(code, ALICE, 1, 5.5, now=110.0)  # an earlier value, replaced
    store.close_voting(code, 1, now=120.0)
    odd = [  # (student, value, submitted_at, revisions, confidence): what both databases can hold
        ("nan-student-01", "'NaN'", "130.0", "0", "'maybe'"),
        ("inf-student-02", "'-Infinity'", "1e300", "1", "'=1+1'"),
    ]
    if store.engine.dialect.name == "sqlite":  # SQLite keeps any type in any column
        odd += [
            ("text-student-3", "'six'", "'soon'", "'x'", "NULL"),
            ("odd-revision-4", "7.0", "140.0", "'?'", "'sure'"),
        ]
    with store.engine.begin() as conn:
        for step, (student, value, at, revisions, confidence) in enumerate(odd, start=2):
            where = f"FROM rounds WHERE number = 1 AND room_id = (SELECT id FROM rooms WHERE code = '{code}')"
            conn.execute(
                text(
                    "INSERT INTO predictions (round_id, step, student, value, submitted_at, revisions) "
                    f"SELECT id, {step}, '{student}', {value}, {at}, {revisions} {where}"
                )
            )
            conn.execute(
                text(
                    f"INSERT INTO confidences (round_id, step, student, confidence) SELECT id, {step}, '{student}', {confidence} {where}"
                )
                if confidence != "NULL"
                else text("SELECT 1")
            )
            conn.execute(
                text(f"INSERT INTO voting_closes (round_id, step, closed_at) SELECT id, {step}, {value} {where}")
            )
        conn.execute(
            text(
                "INSERT INTO earlier_predictions (round_id, step, student, value, submitted_at) "
                f"SELECT id, 1, '{ALICE}', 'NaN', 105.0 FROM rounds WHERE number = 1 AND room_id = "
                f"(SELECT id FROM rooms WHERE code = '{code}')"
            )
        )
    with caplog.at_level("WARNING", logger="attention_explorable.classroom.store"):
        rows = {r["student"]: r for r in csv.DictReader(io.StringIO(store.export_csv(code)))}
    assert set(rows) == {ALICE} | {o[0] for o in odd}
    alice = rows[ALICE]  # a good row is written as before; its unreadable earlier value is an empty place
    assert (alice["prediction"], alice["earlier_predictions"], alice["after_close"]) == ("5.5", "5.0;", "no")
    assert alice["voting_closed_at_utc"] == "1970-01-01T00:02:00Z"
    nan, inf = rows["nan-student-01"], rows["inf-student-02"]
    assert (nan["prediction"], nan["confidence"], nan["submitted_at_utc"]) == ("", "", "1970-01-01T00:02:10Z")
    assert (inf["prediction"], inf["confidence"], inf["submitted_at_utc"], inf["revisions"]) == ("", "", "", "1")
    for row in (nan, inf):  # their close at NaN, -inf: no time, and no answer after it
        assert (row["voting_closed_at_utc"], row["after_close"]) == ("", "no"), row
    if store.engine.dialect.name == "sqlite":
        six, four = rows["text-student-3"], rows["odd-revision-4"]
        assert (six["prediction"], six["submitted_at_utc"], six["revisions"], six["after_close"]) == ("", "", "", "no")
        assert (four["prediction"], four["revisions"], four["confidence"]) == ("7.0", "", "sure")
        assert (four["voting_closed_at_utc"], four["after_close"]) == ("1970-01-01T00:00:07Z", "yes")
    for row in rows.values():  # nothing stored becomes a formula
        assert not any(cell[:1] in ("=", "+", "@") for cell in row.values()), row
    assert f"room {code} exported with {len(odd) + 1} rows of values it could not read" in caplog.text


@pytest.mark.parametrize(
    "cell, shown",
    [
        ("=1+1", "'=1+1"),
        ("+1+1", "'+1+1"),
        ("-1+1", "'-1+1"),
        ("@A1", "'@A1"),
        ("\t=1", "'\t=1"),
        ("-2.5", "-2.5"),
        ("abc", "abc"),
    ],
)
def test_neutralise(cell, shown):
    assert neutralise(cell) == shown


def test_failed_logins_are_limited_to_10_a_minute_per_client(store):
    for i in range(10):
        assert store.login_allowed("10.0.0.7", now=1000.0 + i)
        store.login_failed("10.0.0.7", now=1000.0 + i)
    assert not store.login_allowed("10.0.0.7", now=1010.0)
    assert store.login_allowed("10.0.0.8", now=1010.0)
    assert store.login_allowed("10.0.0.7", now=1061.0)  # the first failures are a minute old


def test_login_failures_per_browser_per_address_and_in_all(store):
    """A browser is held to its own failures; a new one also to its address's and to everyone's."""
    for i in range(10):
        store.login_failed("10.0.0.9", browser="b-noisy", now=2000.0 + i)
    assert not store.login_allowed("10.0.0.9", browser="b-noisy", known=True, now=2010.0)
    assert not store.login_allowed("10.0.0.9", browser="b-new", now=2010.0)  # its address failed ten times
    assert store.login_allowed("10.0.0.9", browser="b-known", known=True, now=2010.0)
    assert store.login_allowed("10.0.0.10", browser="b-new", now=2010.0)
    # One failure from each of a hundred addresses (forwarded headers a client makes up, say).
    for i in range(90):
        store.login_failed(f"10.1.{i // 200}.{i % 200}", browser=f"b{i}", now=2020.0)
    assert not store.login_allowed("10.0.0.11", browser="b-other", now=2021.0)
    assert store.login_allowed("10.0.0.11", browser="b-known", known=True, now=2021.0)
    assert store.login_allowed("10.0.0.11", browser="b-other", now=2085.0)  # a minute later


def test_the_schema_version_is_recorded_and_a_newer_one_refused(db_url):
    s = Store(db_url)
    Store(db_url).close()  # opening again adds no second row
    with s.engine.begin() as conn:
        assert conn.execute(text("SELECT version FROM schema_version")).scalars().all() == [SCHEMA_VERSION]
        conn.execute(text("UPDATE schema_version SET version = :v"), {"v": SCHEMA_VERSION + 1})
    s.close()
    with pytest.raises(StoreError, match=f"schema version {SCHEMA_VERSION + 1}, newer"):
        Store(db_url)


def test_sqlite_runs_in_wal_mode(tmp_path):
    path = tmp_path / "class.sqlite3"
    s = Store(f"sqlite:///{path}")
    s.create_room()
    s.close()
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_the_default_database_is_an_sqlite_file_in_the_user_data_folder(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    url = default_url()
    assert url == f"sqlite:///{tmp_path / 'attention-explorable' / 'classroom.sqlite3'}"
    s = Store(url)  # the folder is made
    assert s.create_room().round == 1
    s.close()
    assert (tmp_path / "attention-explorable" / "classroom.sqlite3").exists()


@pytest.mark.parametrize(
    "url, says",
    [
        ("nonsense", "is not a database URL"),
        ("mysql://x/y", "only sqlite and postgresql"),
        ("postgresql+nodriver://x/y", "no driver"),
    ],
)
def test_bad_database_urls_are_named(url, says):
    assert says in check_url(url) and repr(url) in check_url(url)


def test_good_database_urls_pass():
    assert check_url("sqlite:///x.db") is None and check_url("postgresql+psycopg://u@h/db") is None


def test_normalise_code():
    assert normalise_code(" abcdef ") == "ABCDEF"
    assert normalise_code("ABCDE0") is None  # 0 is not a code letter
    assert normalise_code(123) is None


def test_a_class_context_gives_one_store_per_process(tmp_path):
    from attention_explorable.classroom.context import ClassContext

    url = f"sqlite:///{tmp_path / 'x.sqlite3'}"
    context = ClassContext(database_url=url)
    assert context.store() is context.store() and context.store().url == url
    assert ClassContext(database_url=url).store() is not context.store()  # two servers, two engines


def test_no_answer_is_stored_after_the_close_that_refuses_it_returned(db_url):
    """Answers racing a close: once ``close_voting`` has returned, no answer of that step is stored any more.

    The check (closed or not) and the answer's write are one transaction: on PostgreSQL the round's row is
    locked against the close, on SQLite the answer's transaction takes the write lock before it reads.
    (Without them an answer checked before the close and committed after it was kept: the close said
    "closed", the students were told so, and the count still grew.)"""
    import threading

    s = Store(db_url)
    try:
        late = []
        for trial in range(12):
            code = s.create_room().code
            stop = threading.Event()

            def answer(k: int, code=code, stop=stop, trial=trial) -> None:
                i = 0
                while not stop.is_set():
                    s.submit(code, f"student-{trial:02d}-{k:02d}-{i:05d}", 1, 1.0, now=1000.0 + i)
                    i += 1

            workers = [threading.Thread(target=answer, args=(k,)) for k in range(6)]
            for w in workers:
                w.start()
            while len(s.values(code, 1)) < 30:  # the answers are under way
                pass
            s.close_voting(code, 1)
            stored_at_close = len(s.values(code, 1))
            stop.set()
            for w in workers:
                w.join()
            late.append(len(s.values(code, 1)) - stored_at_close)
        assert late == [0] * len(late), late
    finally:
        s.close()


def test_typed_questions_are_numbered_apart_from_the_texts_kept_whole_and_listed_per_room(store):
    first, other = store.create_room(), store.create_room()
    a = store.add_question(first.code, "number", "  How many rows?  ", 4, within=0.5)
    b = store.add_question(other.code, "choice", "Which?", 2, options=["x", " ", "y", "z "])
    c = store.add_question(first.code.lower(), "choice", "Again?", 0, options=["yes", "no"])
    assert a.number >= 100_000_000 and len({a.number, b.number, c.number}) == 3
    assert (a.key, a.text, a.answer, a.within, a.options) == ("custom-1", "How many rows?", 4.0, 0.5, ())
    assert (b.key, b.options, b.answer, b.within) == ("custom-1", ("x", "y", "z"), 2.0, 0.0)  # blank options go
    assert [q.key for q in store.custom_questions(first.code)] == ["custom-1", "custom-2"]
    assert store.custom_question(b.number) == b and store.custom_question(3) is None
    store.set_step(first.code, a.number)
    assert store.submit(first.code, ALICE, a.number, 4.2, bounds=(-1e15, 1e15)).ok
    assert store.room(first.code).step == a.number


@pytest.mark.parametrize(
    "kind, text, answer, within, options, says",
    [
        ("essay", "Why?", 1, 0, (), "kind must be 'number' or 'choice', got 'essay'"),
        ("number", "   ", 1, 0, (), "text must be the question's words"),
        ("number", "x" * 601, 1, 0, (), "text must be at most 600 characters, got 601"),
        ("number", "Why?", math.nan, 0, (), "answer must be a finite number, got nan"),
        ("number", "Why?", True, 0, (), "answer must be a finite number, got True"),
        ("number", "Why?", 1, -0.1, (), "within must be a number from 0 to 1e+15, got -0.1"),
        ("choice", "Why?", 0, 0, ("only",), "options must be 2 to 8 non-empty texts, got 1"),
        ("choice", "Why?", 0, 0, "ab", "options must be a list of texts, got 'ab'"),
        ("choice", "Why?", 2, 0, ("a", "b"), "answer must be the right option's index, 0 to 1, got 2"),
        ("choice", "Why?", 0.5, 0, ("a", "b"), "answer must be the right option's index, 0 to 1, got 0.5"),
    ],
)
def test_a_typed_question_that_cannot_be_asked_is_refused_naming_its_part(
    store, kind, text, answer, within, options, says
):
    room = store.create_room()
    with pytest.raises(ValueError, match=re.escape(says)):
        store.add_question(room.code, kind, text, answer, within=within, options=options)
    assert store.custom_questions(room.code) == []
    with pytest.raises(KeyError):
        store.add_question("NOROOM", "number", "Why?", 1)
