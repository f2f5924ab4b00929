"""The class's storage: rooms, rounds, predictions and reveals, through SQLAlchemy 2.

Everything shared between sessions (and between server processes or
machines) lives here, never in Python objects: a room is a row, and every
session reads and writes it through a :class:`Store`. The same code runs on
SQLite (the default: one file in the user's data folder, in WAL mode, so
several processes of one machine share it) and on PostgreSQL (several
machines).

Tables
------
``schema_version``
    One row: the version of these tables (:data:`SCHEMA_VERSION`), so a later
    release can migrate the rooms an earlier one stored.
``rooms``
    A short join code, the step the instructor shows, the current round,
    whether students follow the instructor's step.
``room_ends``
    When the instructor ended a room (a table of its own, so that a database
    of an earlier release gains it without a migration). A room also ends
    :data:`ROOM_LIFETIME_S` (a day) after it was started. An ended room is
    joined by no one and takes no prediction; its rounds stay for the CSV.
``rounds``
    Numbered from 1 within a room; "新一轮" adds one and keeps the others.
    A question's own rounds are the room's rounds in which it was answered,
    numbered from 1 (:meth:`Store.answered_rounds`; derived, not stored, so
    the rooms of an earlier release number theirs too).
``predictions``
    One per student per step per round (a unique key): a new answer replaces
    the old one (``revisions`` counts the replacements).
``reveals``
    Which steps of which round the instructor has revealed.
``voting_closes``
    Which steps of which round the instructor has closed to new answers, and
    when it first did (a table of its own, as ``room_ends``); "reopen" marks
    the row reopened until the next close. A revealed step is closed too: the
    answer is on the projector.
``earlier_predictions``
    The values a student's later answer replaced, with their times (for the
    CSV: how answers moved within a round).
``voting_timers``
    When the vote on a step of a round closes by itself (the instructor's
    countdown): from then on it takes no answer, and the instructor's page
    records the close. Closing or reopening by hand removes it.
``confidences``
    How sure a student said they were of their current answer (``sure``,
    ``unsure``; no row: not said), one per student per step per round.
``countdowns``
    How long the instructor's countdown of a room lasts (s), once chosen
    (no row: the page's default). A table of its own, as ``room_ends``.
``presences``
    When each student of a room was last seen there (their page's class
    socket joined, or its process said it was still open): the students
    seen within :data:`PRESENCE_WINDOW_S` are in the room. A table of its
    own, as ``room_ends``; a socket that closes removes its row.
``login_failures``
    Failed instructor logins, one row per client address and one per
    browser (``browser:`` and a digest of its form cookie), for the limits of
    :meth:`Store.login_allowed`.
``server_secrets``
    Random keys the servers of this database share, made by the first that
    asks (:meth:`Store.server_secret`): the one cookies are signed with, so
    that a copy of the ``instructor-key`` file alone signs no cookie.
``custom_questions``
    The questions an instructor typed in a room (:meth:`Store.add_question`):
    a number or a choice, its text, its answer and tolerance, the options'
    texts. Never changed once added (a page that has read one keeps it), and
    kept under a number of its own from :data:`CUSTOM_FIRST` (the room's
    first is ``custom-1``).
``instructor_sessions``
    One row per instructor login: a digest (SHA-256) of the random session
    id its cookie carries, and when it was opened. Logging out deletes the
    row, so the cookie no longer opens the page anywhere
    (:meth:`Store.open_session`, :meth:`Store.session_open`).

Durability: a prediction is acknowledged to the student only after its
transaction has committed. SQLite runs with ``synchronous=NORMAL`` in WAL
mode: a committed transaction survives the server process being killed
(``kill -9``); only a power cut of the machine may lose the last ones.
"""

from __future__ import annotations

import contextlib
import csv
import functools
import hashlib
import io
import json
import logging
import math
import os
import re
import secrets
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import (
    Boolean,
    Float,
    ForeignKey,
    Integer,
    String,
    UniqueConstraint,
    create_engine,
    delete,
    event,
    func,
    select,
    text,
    update,
)
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.exc import ArgumentError, IntegrityError, OperationalError
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column

from .codes import CODE_ALPHABET, CODE_LENGTH, normalise_code  # noqa: F401  (the store's public names)

log = logging.getLogger(__name__)

#: Version of the tables below; bump it (and add a migration) when they change.
SCHEMA_VERSION = 1
#: A student's anonymous id: what the browser makes (letters, digits, - and _).
STUDENT_ID_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
STUDENT_ID_LENGTH = (8, 64)
#: At most one prediction a second per student.
MIN_SUBMIT_INTERVAL_S = 1.0
#: Instructor logins: at most this many failures per client address, and per browser, per window.
LOGIN_FAILURES_ALLOWED = 10
#: ... and at most this many from all addresses together, for browsers the instructor has not logged in from
#: (addresses can be many: a proxy's forwarded ones, or a network's).
LOGIN_FAILURES_ALL = 100
LOGIN_WINDOW_S = 60.0
#: How long an instructor's login lasts (s): as long as its cookie.
SESSION_S = 12 * 3600.0
_BROWSER = "browser:"
#: The numbers a question may be kept under (``classroom/questions.py``: 1-3 the steps, then the exercises).
QUESTION_NUMBERS = range(1, 2**31)
#: The first number of a question an instructor typed (:meth:`Store.add_question`): above every exercise's.
CUSTOM_FIRST = 100_000_000
#: What a typed question may hold: its text (characters), its options (at most, each of at most these characters).
CUSTOM_TEXT_LIMIT = 600
CUSTOM_OPTIONS = (2, 8)
CUSTOM_OPTION_LIMIT = 160
#: The largest answer (either sign) of a typed number question, and of its students' answers.
CUSTOM_NUMBER_LIMIT = 1e15
#: What a student may say of their answer besides it (or nothing: None).
CONFIDENCES = ("sure", "unsure")
#: A room ends by itself this long after it was started (s): a code seen on a projector is not a key for ever.
ROOM_LIFETIME_S = 24 * 3600.0
#: A student seen this recently is in the room (s): three of the channel's beats (``channel.PRESENCE_BEAT_S``),
#: so a process that died takes its students out within this, and one late beat takes no one out.
PRESENCE_WINDOW_S = 30.0


def _writes_room(method):
    """``method(self, code, ...)`` writes room ``code``: counted in :meth:`Store.changes` once it returned
    (a refused :class:`Submitted` is no change)."""

    @functools.wraps(method)
    def counted(self, code, *args, **kwargs):
        result = method(self, code, *args, **kwargs)
        if not (isinstance(result, Submitted) and not result.ok):
            self._changed(normalise_code(code) or code)
        return result

    return counted


class Base(DeclarativeBase):
    pass


class SchemaVersion(Base):
    __tablename__ = "schema_version"
    version: Mapped[int] = mapped_column(Integer, primary_key=True)


class Room(Base):
    __tablename__ = "rooms"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    code: Mapped[str] = mapped_column(String(16), unique=True, index=True)
    created_at: Mapped[float] = mapped_column(Float)
    step: Mapped[int] = mapped_column(Integer, default=1)
    round: Mapped[int] = mapped_column(Integer, default=1)
    follow: Mapped[bool] = mapped_column(Boolean, default=True)


class Round(Base):
    __tablename__ = "rounds"
    __table_args__ = (UniqueConstraint("room_id", "number"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    room_id: Mapped[int] = mapped_column(ForeignKey("rooms.id"), index=True)
    number: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[float] = mapped_column(Float)


class Prediction(Base):
    __tablename__ = "predictions"
    __table_args__ = (UniqueConstraint("round_id", "step", "student"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    round_id: Mapped[int] = mapped_column(ForeignKey("rounds.id"), index=True)
    step: Mapped[int] = mapped_column(Integer)
    student: Mapped[str] = mapped_column(String(64), index=True)
    value: Mapped[float] = mapped_column(Float)
    submitted_at: Mapped[float] = mapped_column(Float)
    revisions: Mapped[int] = mapped_column(Integer, default=0)


class Reveal(Base):
    __tablename__ = "reveals"
    round_id: Mapped[int] = mapped_column(ForeignKey("rounds.id"), primary_key=True)
    step: Mapped[int] = mapped_column(Integer, primary_key=True)
    revealed_at: Mapped[float] = mapped_column(Float)


class VotingClose(Base):
    __tablename__ = "voting_closes"
    round_id: Mapped[int] = mapped_column(ForeignKey("rounds.id"), primary_key=True)
    step: Mapped[int] = mapped_column(Integer, primary_key=True)
    closed_at: Mapped[float] = mapped_column(Float)  # the first close
    reopened_at: Mapped[float | None] = mapped_column(Float, nullable=True)  # open again since, when set


class VotingTimer(Base):
    __tablename__ = "voting_timers"
    round_id: Mapped[int] = mapped_column(ForeignKey("rounds.id"), primary_key=True)
    step: Mapped[int] = mapped_column(Integer, primary_key=True)
    closes_at: Mapped[float] = mapped_column(Float)


class Confidence(Base):
    __tablename__ = "confidences"
    round_id: Mapped[int] = mapped_column(ForeignKey("rounds.id"), primary_key=True)
    step: Mapped[int] = mapped_column(Integer, primary_key=True)
    student: Mapped[str] = mapped_column(String(64), primary_key=True)
    confidence: Mapped[str] = mapped_column(String(8))


class EarlierPrediction(Base):
    __tablename__ = "earlier_predictions"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    round_id: Mapped[int] = mapped_column(ForeignKey("rounds.id"), index=True)
    step: Mapped[int] = mapped_column(Integer)
    student: Mapped[str] = mapped_column(String(64))
    value: Mapped[float] = mapped_column(Float)
    submitted_at: Mapped[float] = mapped_column(Float)


class RoomEnd(Base):
    __tablename__ = "room_ends"
    room_id: Mapped[int] = mapped_column(ForeignKey("rooms.id"), primary_key=True)
    ended_at: Mapped[float] = mapped_column(Float)


class Countdown(Base):
    __tablename__ = "countdowns"
    room_id: Mapped[int] = mapped_column(ForeignKey("rooms.id"), primary_key=True)
    seconds: Mapped[float] = mapped_column(Float)


class Presence(Base):
    __tablename__ = "presences"
    room_id: Mapped[int] = mapped_column(ForeignKey("rooms.id"), primary_key=True)
    student: Mapped[str] = mapped_column(String(64), primary_key=True)
    seen_at: Mapped[float] = mapped_column(Float)


class LoginFailure(Base):
    __tablename__ = "login_failures"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    client: Mapped[str] = mapped_column(String(64), index=True)
    at: Mapped[float] = mapped_column(Float, index=True)


class ServerSecret(Base):
    __tablename__ = "server_secrets"
    name: Mapped[str] = mapped_column(String(32), primary_key=True)
    value: Mapped[str] = mapped_column(String(128))


class InstructorSession(Base):
    __tablename__ = "instructor_sessions"
    digest: Mapped[str] = mapped_column(String(64), primary_key=True)
    opened_at: Mapped[float] = mapped_column(Float, index=True)


class CustomQuestionRow(Base):
    __tablename__ = "custom_questions"
    number: Mapped[int] = mapped_column(Integer, primary_key=True)
    room_id: Mapped[int] = mapped_column(ForeignKey("rooms.id"), index=True)
    ordinal: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(8))
    text: Mapped[str] = mapped_column(String(CUSTOM_TEXT_LIMIT * 4))
    answer: Mapped[float] = mapped_column(Float)
    within: Mapped[float] = mapped_column(Float)
    options: Mapped[str] = mapped_column(String(CUSTOM_OPTIONS[1] * CUSTOM_OPTION_LIMIT * 4 + 16))
    created_at: Mapped[float] = mapped_column(Float)


@dataclass(frozen=True)
class CustomQuestion:
    """A question an instructor typed in a room (:meth:`Store.add_question`).

    Attributes
    ----------
    number : int
        What the room's ``step`` and its answers are kept under (from :data:`CUSTOM_FIRST`).
    ordinal : int
        Its place among the room's typed questions, from 1 (``custom-1``).
    kind : {"number", "choice"}
    text : str
        The question as the instructor typed it (plain text: never markup).
    answer : float
        The right number, or the right option's index (0 for A).
    within : float
        A number answer this close to ``answer`` is right (0 for a choice).
    options : tuple of str
        A choice's options' texts, in order (empty for a number).
    """

    number: int
    ordinal: int
    kind: str
    text: str
    answer: float
    within: float
    options: tuple[str, ...] = ()

    @property
    def key(self) -> str:
        """``custom-<ordinal>``: what the CSV's ``question`` column says of it."""
        return f"custom-{self.ordinal}"


def _custom(row: CustomQuestionRow) -> CustomQuestion:
    options = tuple(json.loads(row.options)) if row.kind == "choice" else ()
    return CustomQuestion(row.number, row.ordinal, row.kind, row.text, row.answer, row.within, options)


class CustomQuestionError(ValueError):
    """A part of a typed question that cannot be asked; ``part`` names it (``kind``, ``text``, ``answer``,
    ``within`` or ``options``), for a form that says so in its own words."""

    def __init__(self, part: str, message: str):
        super().__init__(message)
        self.part = part


def check_custom_question(kind, text, answer, within=0.0, options=()) -> tuple:
    """The typed question's parts, cleaned (text and options stripped; a choice's answer an index), or
    :class:`CustomQuestionError` (a ValueError) naming the part that cannot be one.

    Returns (kind, text, answer, within, options).
    """
    if kind not in ("number", "choice"):
        raise CustomQuestionError("kind", f"kind must be 'number' or 'choice', got {kind!r}")
    if not isinstance(text, str) or not text.strip():
        raise CustomQuestionError("text", "text must be the question's words, got nothing")
    text = text.strip()
    if len(text) > CUSTOM_TEXT_LIMIT:
        raise CustomQuestionError("text", f"text must be at most {CUSTOM_TEXT_LIMIT} characters, got {len(text)}")
    if isinstance(answer, bool) or not isinstance(answer, (int, float)) or not math.isfinite(answer):
        raise CustomQuestionError("answer", f"answer must be a finite number, got {answer!r}")
    if kind == "number":
        if abs(answer) > CUSTOM_NUMBER_LIMIT:
            raise CustomQuestionError("answer", f"answer must be within ±{CUSTOM_NUMBER_LIMIT:g}, got {answer!r}")
        bad = isinstance(within, bool) or not isinstance(within, (int, float))
        if bad or not math.isfinite(within) or not 0 <= within <= CUSTOM_NUMBER_LIMIT:
            raise CustomQuestionError(
                "within", f"within must be a number from 0 to {CUSTOM_NUMBER_LIMIT:g}, got {within!r}"
            )
        return kind, text, float(answer), float(within), ()
    if isinstance(options, str) or not all(isinstance(o, str) for o in options):
        raise CustomQuestionError("options", f"options must be a list of texts, got {options!r}")
    options = tuple(o.strip() for o in options if o.strip())
    lo, hi = CUSTOM_OPTIONS
    if not lo <= len(options) <= hi:
        raise CustomQuestionError("options", f"options must be {lo} to {hi} non-empty texts, got {len(options)}")
    if too_long := [o for o in options if len(o) > CUSTOM_OPTION_LIMIT]:
        raise CustomQuestionError(
            "options", f"each option must be at most {CUSTOM_OPTION_LIMIT} characters, got {len(too_long[0])}"
        )
    if answer != int(answer) or not 0 <= answer < len(options):
        raise CustomQuestionError(
            "answer", f"answer must be the right option's index, 0 to {len(options) - 1}, got {answer!r}"
        )
    return kind, text, float(int(answer)), 0.0, options


class StoreError(ValueError):
    """A database URL that cannot be used, or tables written by a newer release."""


@dataclass(frozen=True)
class RoomState:
    """A room as every session sees it.

    Attributes
    ----------
    code : str
        The join code (:data:`CODE_LENGTH` letters of :data:`CODE_ALPHABET`).
    step : int
        The question the instructor shows: 1-3 a step, else an exercise (:mod:`.questions`).
    round : int
        The current round, from 1.
    follow : bool
        Whether students' pages follow the instructor's step.
    ended : bool
        Whether the room has ended (by the instructor, or a day after it was
        started): no one joins it, no prediction is taken.
    closed : bool
        Whether voting on the shown step of the current round is closed (by
        the instructor, or by its reveal): it takes no prediction.
    revealed : bool
        Whether the shown step of the current round has been revealed.
    closes_at : float or None
        When the vote on the shown step closes by itself (s since the epoch;
        the instructor's countdown), else None. From then on it counts as
        ``closed``.
    """

    code: str
    step: int
    round: int
    follow: bool
    ended: bool = False
    closed: bool = False
    revealed: bool = False
    closes_at: float | None = None


@dataclass(frozen=True)
class Submitted:
    """What became of a submission: ``ok`` (stored, acknowledged) or a refusal ``reason``.

    ``reason`` is one of ``"room"`` (no such room), ``"ended"`` (the room has ended), ``"closed"`` (voting on
    that step of the round is closed, or it was revealed), ``"student"`` (a malformed
    id), ``"step"``, ``"value"`` (not a finite number in range), ``"confidence"`` (not one of
    :data:`CONFIDENCES` or None), ``"rate"``
    (less than :data:`MIN_SUBMIT_INTERVAL_S` after the student's last one).
    """

    ok: bool
    reason: str = ""
    round: int = 0


def default_url() -> str:
    """The default database: ``classroom.sqlite3`` in the user's data folder (platformdirs)."""
    import platformdirs

    folder = Path(platformdirs.user_data_dir("attention-explorable", appauthor=False))
    return f"sqlite:///{folder / 'classroom.sqlite3'}"


def check_url(url: str) -> str | None:
    """Why ``url`` cannot be a database URL, as one line naming it; None when it can."""
    try:
        parsed = make_url(url)
    except ArgumentError:
        return f"--db {url!r} is not a database URL (e.g. sqlite:///class.db or postgresql+psycopg://host/db)"
    if parsed.get_backend_name() not in ("sqlite", "postgresql"):
        return f"--db {url!r}: only sqlite and postgresql databases are supported"
    try:
        parsed.get_dialect()
    except Exception as exc:  # noqa: BLE001 - a missing driver, named in the message
        return f"--db {url!r}: no driver for it ({exc}); for PostgreSQL install psycopg"
    return None


def _sqlite_pragmas(dbapi_connection, _record) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")  # readers never block the writer; several processes share it
    cursor.execute("PRAGMA synchronous=NORMAL")  # a commit survives the process being killed
    cursor.execute("PRAGMA busy_timeout=10000")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def make_engine(url: str) -> Engine:
    """An engine for ``url``: SQLite in WAL mode (its folder made), or PostgreSQL."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        if parsed.database and parsed.database != ":memory:":
            Path(parsed.database).expanduser().parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(parsed, connect_args={"timeout": 10})
        event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    return create_engine(parsed, pool_pre_ping=True, pool_size=5, max_overflow=5)


class Store:
    """The class's rooms in one database.

    Parameters
    ----------
    url : str
        An SQLAlchemy URL: ``sqlite:///path`` or ``postgresql+psycopg://...``.

    Raises
    ------
    StoreError
        If the tables were written by a newer release (a higher schema
        version than :data:`SCHEMA_VERSION`).

    Examples
    --------
    >>> store = Store("sqlite://")
    >>> room = store.create_room()
    >>> store.submit(room.code, "student-0001", 1, 6.0).ok
    True
    >>> store.values(room.code, step=1)
    [6.0]
    """

    def __init__(self, url: str):
        self.url = url
        self.engine = make_engine(url)
        self._changes: dict[str, int] = {}
        self._changes_lock = threading.Lock()
        self._write_lock = threading.Lock()  # SQLite: this process's writers of :meth:`_writing`, one at a time
        try:
            self.create_schema()
        except BaseException:
            self.engine.dispose()
            raise

    def create_schema(self) -> None:
        """Create the tables when missing and record the schema version (safe in several processes)."""
        try:
            Base.metadata.create_all(self.engine)
        except (IntegrityError, OperationalError):  # another process created them at the same moment
            Base.metadata.create_all(self.engine)
        with Session(self.engine) as s:
            stored = s.scalar(select(func.max(SchemaVersion.version)))
            if stored is None:
                s.add(SchemaVersion(version=SCHEMA_VERSION))
                try:
                    s.commit()
                except IntegrityError:
                    s.rollback()
            elif stored > SCHEMA_VERSION:
                raise StoreError(
                    f"the database {self.engine.url!r} holds schema version {stored}, newer than "
                    f"this release's {SCHEMA_VERSION}: use a newer attention-explorable"
                )

    # --- changes made through this object ------------------------------------------------
    def _changed(self, code: str) -> None:
        with self._changes_lock:
            self._changes[code] = self._changes.get(code, 0) + 1

    def changes(self, code: str) -> tuple:
        """A value that differs once room ``code`` may have changed, found without a query.

        It holds how many writes to the room (its step, round, follow, votes,
        reveals, countdowns and answers; an answer refused is none) this object
        has committed, and for an SQLite file the time and size of the file and
        of its write-ahead log, which every commit of every process changes. A
        view of the room reads it again only when this value moved
        (``classroom/instructor.py``). Writes of other processes to a
        PostgreSQL database are not seen here.
        """
        counted = self._changes.get(normalise_code(code) or code, 0)
        path = self.engine.url.database if self.engine.url.get_backend_name() == "sqlite" else None
        if not path or path == ":memory:":
            return (counted,)
        stamps = []
        for name in (path, path + "-wal"):
            try:
                st = os.stat(name)
            except OSError:
                stamps.append(None)
            else:
                stamps.append((st.st_mtime_ns, st.st_size))
        return (counted, *stamps)

    # --- rooms ---------------------------------------------------------------------
    def create_room(self, now: float | None = None) -> RoomState:
        """A new room with a fresh random code, at step 1, round 1, students following."""
        now = time.time() if now is None else now
        for _ in range(20):
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            with Session(self.engine) as s:
                room = Room(code=code, created_at=now, step=1, round=1, follow=True)
                s.add(room)
                try:
                    s.flush()
                    s.add(Round(room_id=room.id, number=1, created_at=now))
                    s.commit()
                except IntegrityError:  # the code is taken: draw another
                    s.rollback()
                    continue
                self._changed(code)
                return RoomState(code, 1, 1, True)
        raise RuntimeError("no free room code after 20 draws")  # pragma: no cover - 31^6 codes

    def _room_rows(self, s: Session, where, now: float):
        ended = select(RoomEnd.room_id).where(RoomEnd.room_id == Room.id).exists()
        current = (Round.room_id == Room.id) & (Round.number == Room.round)
        revealed = (
            select(Reveal.round_id)
            .join(Round, Round.id == Reveal.round_id)
            .where(current, Reveal.step == Room.step)
            .exists()
        )
        closed = (
            select(VotingClose.round_id)
            .join(Round, Round.id == VotingClose.round_id)
            .where(current, VotingClose.step == Room.step, VotingClose.reopened_at.is_(None))
            .exists()
        )
        timer = (
            select(VotingTimer.closes_at)
            .join(Round, Round.id == VotingTimer.round_id)
            .where(current, VotingTimer.step == Room.step)
            .scalar_subquery()
        )
        q = select(
            Room.code, Room.step, Room.round, Room.follow, Room.created_at, ended, closed, revealed, timer
        ).where(where)
        return [
            RoomState(
                code,
                step,
                rnd,
                follow,
                bool(gone) or now - created >= ROOM_LIFETIME_S,
                bool(shut) or bool(shown) or (at is not None and now >= at),
                bool(shown),
                at,
            )
            for code, step, rnd, follow, created, gone, shut, shown, at in s.execute(q)
        ]

    def room(self, code: str, now: float | None = None) -> RoomState | None:
        """The room with join code ``code`` (any case), or None (an ended one too, with ``ended``)."""
        code = normalise_code(code)
        if code is None:
            return None
        with Session(self.engine) as s:
            found = self._room_rows(s, Room.code == code, time.time() if now is None else now)
        return found[0] if found else None

    def rooms(self, codes, now: float | None = None) -> dict[str, RoomState]:
        """Several rooms at once, by code (for the per-process watcher)."""
        codes = [c for c in codes if c]
        if not codes:
            return {}
        with Session(self.engine) as s:
            return {r.code: r for r in self._room_rows(s, Room.code.in_(codes), time.time() if now is None else now)}

    def latest_room(self, now: float | None = None) -> RoomState | None:
        """The room started last, unless it has ended (the instructor's page offers to go on with it)."""
        with Session(self.engine) as s:
            latest = s.scalar(select(Room.id).order_by(Room.created_at.desc(), Room.id.desc()).limit(1))
            if latest is None:
                return None
            room = self._room_rows(s, Room.id == latest, time.time() if now is None else now)[0]
        return None if room.ended else room

    @_writes_room
    def end_room(self, code: str, now: float | None = None) -> None:
        """End room ``code``: no one joins it any more and it takes no prediction (its rounds are kept).

        Raises
        ------
        KeyError
            If there is no such room.
        """
        now = time.time() if now is None else now
        with Session(self.engine) as s:
            room_id = s.scalar(select(Room.id).where(Room.code == (normalise_code(code) or "")))
            if room_id is None:
                raise KeyError(code)
            if s.get(RoomEnd, room_id) is None:
                s.add(RoomEnd(room_id=room_id, ended_at=now))
                try:
                    s.commit()
                except IntegrityError:  # ended in another window at the same moment
                    s.rollback()

    def set_step(self, code: str, step: int) -> None:
        """Show question ``step`` (1-3: a step; :mod:`.questions`) in room ``code``.

        Raises
        ------
        ValueError
            If ``step`` cannot be a question's number.
        """
        _check_step(step)
        self._update(code, step=step)

    def set_follow(self, code: str, follow: bool) -> None:
        self._update(code, follow=bool(follow))

    @_writes_room
    def _update(self, code: str, **values) -> None:
        with Session(self.engine) as s:
            s.execute(update(Room).where(Room.code == code).values(**values))
            s.commit()

    @_writes_room
    def new_round(self, code: str, now: float | None = None) -> int:
        """Start the next round of room ``code`` (the earlier ones are kept); return its number."""
        now = time.time() if now is None else now
        with Session(self.engine) as s:
            room = s.scalar(select(Room).where(Room.code == code).with_for_update())
            if room is None:
                raise KeyError(code)
            room.round += 1
            s.add(Round(room_id=room.id, number=room.round, created_at=now))
            s.commit()
            return room.round

    def _round_id(self, s: Session, code: str, number: int | None = None) -> tuple[int, int] | None:
        """(round id, round number) of round ``number`` (default: the current one) of room ``code``."""
        q = select(Round.id, Round.number).join(Room, Room.id == Round.room_id).where(Room.code == code)
        q = q.where(Round.number == (Room.round if number is None else number))
        row = s.execute(q).first()
        return (row[0], row[1]) if row else None

    # --- predictions -------------------------------------------------------------------
    @_writes_room
    def submit(
        self,
        code: str,
        student: str,
        step: int,
        value,
        now: float | None = None,
        bounds: tuple[float, float] = (-20.0, 20.0),
        confidence: str | None = None,
    ) -> Submitted:
        """Store ``student``'s prediction ``value`` for ``step`` in the current round of room ``code``.

        One prediction per student per step per round: a later one replaces
        the earlier one, and its ``confidence`` (one of :data:`CONFIDENCES`,
        or None for none said) replaces the earlier one's. Returns
        :class:`Submitted`; a refusal stores nothing. Committed before it
        returns, so an ``ok`` survives a killed server.
        """
        now = time.time() if now is None else now
        if not valid_student(student):
            return Submitted(False, "student")
        if not _is_question_number(step):
            return Submitted(False, "step")
        if not in_bounds(value, bounds):
            return Submitted(False, "value")
        if confidence is not None and confidence not in CONFIDENCES:
            return Submitted(False, "confidence")
        code = normalise_code(code) or ""
        with self._writing() as s:  # the checks below and the answer's write: one transaction, no close between
            current = self._round_id(s, code)
            if current is None:
                return Submitted(False, "room")
            if self._room_rows(s, Room.code == code, now)[0].ended:
                return Submitted(False, "ended")
            round_id, number = current
            # Shared with the other answers, exclusive with a close or a reveal (PostgreSQL; on SQLite the
            # write lock taken above): the check below and the answer's commit see the same voting state.
            if self._voting_closed(s, round_id, step, now):
                return Submitted(False, "closed", number)
            last = s.scalar(
                select(func.max(Prediction.submitted_at))
                .join(Round, Round.id == Prediction.round_id)
                .join(Room, Room.id == Round.room_id)
                .where(Room.code == code, Prediction.student == student)
            )
            if last is not None and now - last < MIN_SUBMIT_INTERVAL_S:
                return Submitted(False, "rate", number)
            old = s.scalar(
                select(Prediction).where(
                    Prediction.round_id == round_id, Prediction.step == step, Prediction.student == student
                )
            )
            self._say_confidence(s, round_id, step, student, confidence)
            if old is None:
                s.add(
                    Prediction(
                        round_id=round_id, step=step, student=student, value=float(value), submitted_at=now, revisions=0
                    )
                )
            else:
                s.add(
                    EarlierPrediction(
                        round_id=round_id, step=step, student=student, value=old.value, submitted_at=old.submitted_at
                    )
                )
                old.value, old.submitted_at, old.revisions = float(value), now, old.revisions + 1
            try:
                s.commit()
            except IntegrityError:  # the same student's other tab stored it a moment ago: replace that one
                s.rollback()
                if self.engine.dialect.name == "sqlite":
                    self._begin_write(s)
                if self._voting_closed(s, round_id, step, now):  # (the lock was let go with the rollback)
                    return Submitted(False, "closed", number)
                self._say_confidence(s, round_id, step, student, confidence)
                where = (Prediction.round_id == round_id, Prediction.step == step, Prediction.student == student)
                earlier = s.execute(select(Prediction.value, Prediction.submitted_at).where(*where)).first()
                if earlier is not None:
                    s.add(
                        EarlierPrediction(
                            round_id=round_id, step=step, student=student, value=earlier[0], submitted_at=earlier[1]
                        )
                    )
                s.execute(
                    update(Prediction)
                    .where(*where)
                    .values(value=float(value), submitted_at=now, revisions=Prediction.revisions + 1)
                )
                s.commit()
            return Submitted(True, round=number)

    @contextlib.contextmanager
    def _writing(self):
        """A session whose reads and writes are one transaction that no other writer changes before its commit.

        On SQLite the database's write lock is taken before the first read (``BEGIN IMMEDIATE``, waiting up
        to the busy timeout), and this process's writers take turns on a lock of their own first, so they
        queue at once instead of polling SQLite's lock (its busy handler sleeps up to 100 ms a try, and a
        close could wait seconds behind a hall's answers). SQLite's driver otherwise opens a transaction
        only at the first write: the reads before it (is the vote closed?) were each their own, and a close
        committed between them and the write went unseen. On PostgreSQL a plain session: the row locks of
        :meth:`_voting_closed` and :meth:`_current_round_without_countdown` serialise an answer with a close.
        """
        if self.engine.dialect.name != "sqlite":
            with Session(self.engine) as s:
                yield s
            return
        with self._write_lock, Session(self.engine) as s:
            self._begin_write(s)
            yield s

    @staticmethod
    def _begin_write(s: Session) -> None:
        """Within ``s`` on SQLite, before its first statement (or after a rollback): take the write lock."""
        s.execute(text("BEGIN IMMEDIATE"))

    @staticmethod
    def _voting_closed(s: Session, round_id: int, step: int, now: float) -> bool:
        """Within ``s``: whether voting on ``step`` of round ``round_id`` is closed (closed and not reopened,
        revealed, or its countdown over), the round's row held shared until ``s`` ends.

        Shared with the other answers, exclusive with a close, a reveal or a countdown
        (:meth:`_current_round_without_countdown`) on PostgreSQL; on SQLite the answer's transaction holds
        the write lock from its start (:meth:`_writing`): an answer's check and its commit see the same
        voting state.
        """
        s.execute(select(Round.id).where(Round.id == round_id).with_for_update(read=True))
        shut, timer = s.get(VotingClose, (round_id, step)), s.get(VotingTimer, (round_id, step))
        return (
            (shut is not None and shut.reopened_at is None)
            or s.get(Reveal, (round_id, step)) is not None
            or (timer is not None and now >= timer.closes_at)
        )

    @staticmethod
    def _say_confidence(s: Session, round_id: int, step: int, student: str, confidence: str | None) -> None:
        """Within ``s``: the student's confidence of their answer is ``confidence`` now (None: none said)."""
        s.execute(
            delete(Confidence).where(
                Confidence.round_id == round_id, Confidence.step == step, Confidence.student == student
            )
        )
        if confidence is not None:
            s.add(Confidence(round_id=round_id, step=step, student=student, confidence=confidence))

    def values_with_confidence(self, code: str, step: int, round: int | None = None) -> list[tuple[float, str | None]]:
        """(value, confidence or None) of every stored prediction for ``step`` in round ``round`` (default:
        current), in submission order."""
        with Session(self.engine) as s:
            current = self._round_id(s, code, round)
            if current is None:
                return []
            rows = s.execute(
                select(Prediction.value, Confidence.confidence)
                .outerjoin(
                    Confidence,
                    (Confidence.round_id == Prediction.round_id)
                    & (Confidence.step == Prediction.step)
                    & (Confidence.student == Prediction.student),
                )
                .where(Prediction.round_id == current[0], Prediction.step == step)
                .order_by(Prediction.submitted_at)
            )
            return [(value, confidence) for value, confidence in rows]

    def prediction(self, code: str, student: str, step: int, round: int | None = None) -> float | None:
        """``student``'s prediction for ``step`` in round ``round`` (default: the current one), or None."""
        with Session(self.engine) as s:
            current = self._round_id(s, normalise_code(code) or "", round)
            if current is None:
                return None
            return s.scalar(
                select(Prediction.value).where(
                    Prediction.round_id == current[0], Prediction.step == step, Prediction.student == student
                )
            )

    def latest_prediction(self, code: str, student: str) -> tuple[int, float] | None:
        """(step, value) of ``student``'s latest prediction in the current round, or None."""
        with Session(self.engine) as s:
            current = self._round_id(s, normalise_code(code) or "")
            if current is None:
                return None
            row = s.execute(
                select(Prediction.step, Prediction.value)
                .where(Prediction.round_id == current[0], Prediction.student == student)
                .order_by(Prediction.submitted_at.desc())
                .limit(1)
            ).first()
            return (row[0], row[1]) if row else None

    def values(self, code: str, step: int, round: int | None = None) -> list[float]:
        """Every stored prediction for ``step`` in round ``round`` (default: current), in submission order."""
        with Session(self.engine) as s:
            current = self._round_id(s, code, round)
            if current is None:
                return []
            return list(
                s.scalars(
                    select(Prediction.value)
                    .where(Prediction.round_id == current[0], Prediction.step == step)
                    .order_by(Prediction.submitted_at)
                )
            )

    def answered_rounds(self, code: str, step: int) -> list[int]:
        """The numbers of room ``code``'s rounds in which ``step`` was answered, from the first.

        Question ``step``'s own round number in room round ``r`` is one more
        than how many of these come before ``r``: asking it again after a new
        round is its round 2, whatever the room asked meanwhile.
        """
        with Session(self.engine) as s:
            return list(
                s.scalars(
                    select(Round.number)
                    .join(Room, Room.id == Round.room_id)
                    .where(
                        Room.code == (normalise_code(code) or ""),
                        select(Prediction.id).where(Prediction.round_id == Round.id, Prediction.step == step).exists(),
                    )
                    .order_by(Round.number)
                )
            )

    def pairs(self, code: str, step: int, first: int, second: int) -> list[tuple[float, float]]:
        """(prediction in round ``first``, prediction in round ``second``) of every student who answered
        ``step`` in both rounds of room ``code``, in no particular order (for comparing two votes)."""
        with Session(self.engine) as s:
            a, b = self._round_id(s, code, first), self._round_id(s, code, second)
            if a is None or b is None:
                return []
            rows = s.execute(
                select(Prediction.round_id, Prediction.student, Prediction.value).where(
                    Prediction.round_id.in_([a[0], b[0]]), Prediction.step == step
                )
            )
            by: dict[str, dict[int, float]] = {}
            for round_id, student, value in rows:
                by.setdefault(student, {})[round_id] = value
        return [(v[a[0]], v[b[0]]) for v in by.values() if a[0] in v and b[0] in v]

    def _current_round_without_countdown(self, s: Session, code: str, step: int) -> int:
        """Within ``s``: the id of room ``code``'s current round, with the countdown of its ``step`` ended
        (the instructor's close, reopening, new countdown or reveal replaces it).

        Raises
        ------
        KeyError
            If there is no such room.
        """
        current = self._round_id(s, code)
        if current is None:
            raise KeyError(code)
        # The round's row locked against answers under way (each holds it shared, see submit): the close
        # waits until those are committed, and an answer that comes after waits and then sees the close.
        s.execute(select(Round.id).where(Round.id == current[0]).with_for_update())
        s.execute(delete(VotingTimer).where(VotingTimer.round_id == current[0], VotingTimer.step == step))
        return current[0]

    # --- reveals --------------------------------------------------------------------------
    @_writes_room
    def reveal(self, code: str, step: int, now: float | None = None) -> None:
        """Mark ``step`` of the current round of room ``code`` revealed (again: no change)."""
        now = time.time() if now is None else now
        with self._writing() as s:
            # Revealed: closed for good, so a countdown under way has nothing left to close.
            round_id = self._current_round_without_countdown(s, code, step)
            if s.get(Reveal, (round_id, step)) is None:
                s.add(Reveal(round_id=round_id, step=step, revealed_at=now))
                try:
                    s.commit()
                except IntegrityError:
                    s.rollback()

    @_writes_room
    def close_voting(self, code: str, step: int, now: float | None = None) -> None:
        """Close ``step`` of the current round of room ``code`` to new answers (again: no change).

        Raises
        ------
        KeyError
            If there is no such room.
        ValueError
            If ``step`` cannot be a question's number.
        """
        _check_step(step)
        now = time.time() if now is None else now
        with self._writing() as s:
            round_id = self._current_round_without_countdown(s, code, step)
            shut = s.get(VotingClose, (round_id, step))
            if shut is None:
                s.add(VotingClose(round_id=round_id, step=step, closed_at=now))
            else:  # closed again after a reopening: the first close's time is kept
                shut.reopened_at = None
            try:
                s.commit()
            except IntegrityError:  # closed in another window at the same moment
                s.rollback()

    @_writes_room
    def open_voting(self, code: str, step: int, now: float | None = None) -> None:
        """Open ``step`` of the current round of room ``code`` to answers again (a revealed step stays closed).

        Raises
        ------
        KeyError
            If there is no such room.
        """
        with self._writing() as s:
            round_id = self._current_round_without_countdown(s, code, step)
            s.execute(
                update(VotingClose)
                .where(VotingClose.round_id == round_id, VotingClose.step == step, VotingClose.reopened_at.is_(None))
                .values(reopened_at=time.time() if now is None else now)
            )
            s.commit()

    @_writes_room
    def close_voting_in(self, code: str, step: int, seconds: float, now: float | None = None) -> float:
        """Close the vote on ``step`` of the current round of room ``code`` ``seconds`` from now (a countdown;
        set again: the new one). Returns when it closes (s since the epoch).

        Raises
        ------
        KeyError
            If there is no such room.
        ValueError
            If ``step`` cannot be a question's number, or ``seconds`` is not a number from 1 to 3600.
        """
        _check_step(step)
        check_seconds(seconds)
        now = time.time() if now is None else now
        with self._writing() as s:
            round_id = self._current_round_without_countdown(s, code, step)
            s.add(VotingTimer(round_id=round_id, step=step, closes_at=now + seconds))
            try:
                s.commit()
            except IntegrityError:  # started in another window at the same moment: this one's time wins
                s.rollback()
                s.execute(
                    update(VotingTimer)
                    .where(VotingTimer.round_id == round_id, VotingTimer.step == step)
                    .values(closes_at=now + seconds)
                )
                s.commit()
        return now + seconds

    @_writes_room
    def set_countdown(self, code: str, seconds: float) -> None:
        """The countdowns of room ``code`` last ``seconds`` from now on (the instructor's choice, kept for
        the later rounds and any window of the room).

        Raises
        ------
        KeyError
            If there is no such room.
        ValueError
            If ``seconds`` is not a number from 1 to 3600 (the message names it).
        """
        check_seconds(seconds)
        with Session(self.engine) as s:
            room_id = s.scalar(select(Room.id).where(Room.code == (normalise_code(code) or "")))
            if room_id is None:
                raise KeyError(code)
            for _ in range(2):  # chosen in another window at the same moment: the second pass updates it
                chosen = s.get(Countdown, room_id)
                if chosen is None:
                    s.add(Countdown(room_id=room_id, seconds=float(seconds)))
                else:
                    chosen.seconds = float(seconds)
                try:
                    s.commit()
                    return
                except IntegrityError:
                    s.rollback()

    def countdown(self, code: str) -> float | None:
        """How long room ``code``'s countdowns last (s), or None when the instructor never chose."""
        with Session(self.engine) as s:
            return s.scalar(
                select(Countdown.seconds)
                .join(Room, Room.id == Countdown.room_id)
                .where(Room.code == (normalise_code(code) or ""))
            )

    def revealed(self, code: str, step: int, round: int | None = None) -> bool:
        with Session(self.engine) as s:
            current = self._round_id(s, code, round)
            return current is not None and s.get(Reveal, (current[0], step)) is not None

    # --- who is in the room ------------------------------------------------------------------
    @_writes_room
    def seen(self, code: str, students, now: float | None = None) -> None:
        """``students`` (stored ids) are in room ``code`` now: their pages' class sockets are open.

        Each process of the class says so for its own sockets when one joins
        and then every few seconds (``channel.PRESENCE_BEAT_S``), so the count
        of :meth:`present` is the whole room's, whichever process serves whom.

        Raises
        ------
        KeyError
            If there is no such room.
        ValueError
            If one of ``students`` is not an id (:func:`valid_student`); the message names it.
        """
        students = sorted(set(students))
        for student in students:
            if not valid_student(student):
                raise ValueError(f"students must be students' ids, got {student!r}")
        now = time.time() if now is None else now
        for _ in range(2):  # a row another process added at the same moment: the second pass updates it
            with Session(self.engine) as s:
                room_id = s.scalar(select(Room.id).where(Room.code == (normalise_code(code) or "")))
                if room_id is None:
                    raise KeyError(code)
                mine = (Presence.room_id == room_id, Presence.student.in_(students))
                known = set(s.scalars(select(Presence.student).where(*mine)))
                if known:
                    s.execute(update(Presence).where(*mine).values(seen_at=now))
                s.add_all(Presence(room_id=room_id, student=x, seen_at=now) for x in students if x not in known)
                try:
                    s.commit()
                    return
                except IntegrityError:
                    s.rollback()

    @_writes_room
    def left(self, code: str, student: str) -> None:
        """``student`` has left room ``code`` (their page's socket closed): no longer counted in it."""
        with Session(self.engine) as s:
            room_id = select(Room.id).where(Room.code == (normalise_code(code) or "")).scalar_subquery()
            s.execute(delete(Presence).where(Presence.room_id == room_id, Presence.student == student))
            s.commit()

    def present(self, code: str, now: float | None = None) -> int:
        """How many students are in room ``code``: seen within :data:`PRESENCE_WINDOW_S` and not gone."""
        now = time.time() if now is None else now
        with Session(self.engine) as s:
            return s.scalar(
                select(func.count())
                .select_from(Presence)
                .join(Room, Room.id == Presence.room_id)
                .where(Room.code == (normalise_code(code) or ""), Presence.seen_at > now - PRESENCE_WINDOW_S)
            )

    # --- export -------------------------------------------------------------------------------
    # --- questions typed by the instructor ---------------------------------------------------------
    @_writes_room
    def add_question(self, code: str, kind: str, text: str, answer, within=0.0, options=(), now=None) -> CustomQuestion:
        """Keep a question the instructor typed in room ``code`` (:func:`check_custom_question` checks its
        parts); it is asked once the room's step is set to its ``number``.

        Parameters
        ----------
        kind : {"number", "choice"}
        text : str
            The question (plain text, at most :data:`CUSTOM_TEXT_LIMIT` characters).
        answer : float
            The right number; for a choice, the right option's index (0 for A).
        within : float
            A number answer this close to ``answer`` counts as right (ignored for a choice).
        options : sequence of str
            A choice's options (:data:`CUSTOM_OPTIONS`: 2 to 8).

        Raises
        ------
        ValueError
            A part that cannot be one (the message names it).
        KeyError
            If there is no such room.
        """
        kind, text, answer, within, options = check_custom_question(kind, text, answer, within, options)
        now = time.time() if now is None else now
        code = normalise_code(code) or ""
        for attempt in range(3):  # PostgreSQL: two windows adding at once may draw the same number
            with self._writing() as s:
                room_id = s.scalar(select(Room.id).where(Room.code == code))
                if room_id is None:
                    raise KeyError(code)
                ordinal = 1 + (s.scalar(select(func.count()).where(CustomQuestionRow.room_id == room_id)) or 0)
                last = s.scalar(select(func.max(CustomQuestionRow.number)))
                row = CustomQuestionRow(
                    number=max(CUSTOM_FIRST, (last or 0) + 1),
                    room_id=room_id,
                    ordinal=ordinal,
                    kind=kind,
                    text=text,
                    answer=answer,
                    within=within,
                    options=json.dumps(list(options), ensure_ascii=False),
                    created_at=now,
                )
                s.add(row)
                try:
                    s.commit()
                except IntegrityError:
                    if attempt == 2:
                        raise
                    s.rollback()
                    continue
                return _custom(row)
        raise AssertionError("unreachable")  # pragma: no cover

    def custom_question(self, number: int) -> CustomQuestion | None:
        """The typed question kept under ``number``, or None."""
        if not _is_question_number(number) or number < CUSTOM_FIRST:
            return None
        with Session(self.engine) as s:
            row = s.get(CustomQuestionRow, number)
            return None if row is None else _custom(row)

    def custom_questions(self, code: str) -> list[CustomQuestion]:
        """The questions typed in room ``code``, oldest first."""
        with Session(self.engine) as s:
            rows = s.scalars(
                select(CustomQuestionRow)
                .join(Room, Room.id == CustomQuestionRow.room_id)
                .where(Room.code == (normalise_code(code) or ""))
                .order_by(CustomQuestionRow.ordinal)
            ).all()
            return [_custom(r) for r in rows]

    def export_rows(self, code: str) -> list[dict]:
        """Every prediction of every round of room ``code``, oldest round first.

        Each row: ``room``, ``round`` (the room's), ``question_round`` (the
        question's own: its first round answered is 1, see
        :meth:`answered_rounds`), ``step``, ``student``, ``prediction`` (the
        last answer), ``submitted_at`` (its time, s since the epoch),
        ``revisions``, ``earlier`` (the values it replaced, oldest first),
        ``confidence`` (``sure``, ``unsure``, or None: not said),
        ``revealed`` and ``revealed_at`` (the step's reveal in that round, or
        None), ``closed_at`` (the first close of its vote, or None) and
        ``after_close`` (whether the answer came after that close: voting was
        reopened meanwhile; False when either time is not a number). Values are
        as stored: a row no release writes may hold None, NaN or text anywhere.
        """
        with Session(self.engine) as s:
            rows = s.execute(
                select(
                    Room.code,
                    Round.number,
                    Prediction.step,
                    Prediction.student,
                    Prediction.value,
                    Prediction.submitted_at,
                    Prediction.revisions,
                    Reveal.revealed_at,
                    VotingClose.closed_at,
                    Round.id,
                    Confidence.confidence,
                )
                .join(Round, Round.room_id == Room.id)
                .join(Prediction, Prediction.round_id == Round.id)
                .outerjoin(
                    Confidence,
                    (Confidence.round_id == Round.id)
                    & (Confidence.step == Prediction.step)
                    & (Confidence.student == Prediction.student),
                )
                .outerjoin(Reveal, (Reveal.round_id == Round.id) & (Reveal.step == Prediction.step))
                .outerjoin(VotingClose, (VotingClose.round_id == Round.id) & (VotingClose.step == Prediction.step))
                .where(Room.code == code)
                .order_by(Round.number, Prediction.step, Prediction.submitted_at)
            ).all()
            earlier: dict[tuple, list[float]] = {}
            for round_id, step, student, value in s.execute(
                select(
                    EarlierPrediction.round_id,
                    EarlierPrediction.step,
                    EarlierPrediction.student,
                    EarlierPrediction.value,
                )
                .join(Round, Round.id == EarlierPrediction.round_id)
                .join(Room, Room.id == Round.room_id)
                .where(Room.code == code)
                .order_by(EarlierPrediction.submitted_at, EarlierPrediction.id)
            ):
                earlier.setdefault((round_id, step, student), []).append(value)
            answered: dict[int, list[int]] = {}  # per question: the room's rounds it was answered in
            for r in rows:
                if r[1] not in answered.setdefault(r[2], []):
                    answered[r[2]].append(r[1])  # rows come in the order of the rounds
            return [
                dict(
                    room=r[0],
                    round=r[1],
                    question_round=answered[r[2]].index(r[1]) + 1,
                    step=r[2],
                    student=r[3],
                    prediction=r[4],
                    submitted_at=r[5],
                    revisions=r[6],
                    earlier=earlier.get((r[9], r[2], r[3]), []),
                    revealed=r[7] is not None,
                    revealed_at=r[7],
                    closed_at=r[8],
                    after_close=_after(r[5], r[8]),
                    confidence=r[10],
                )
                for r in rows
            ]

    def export_csv(self, code: str, questions: dict[int, str] | None = None) -> str:
        """:meth:`export_rows` as CSV text (UTF-8), cells neutralised against spreadsheet formulas.

        Times are UTC (ISO 8601, to the second); ``earlier_predictions`` are
        the replaced values separated by ``;``; an empty cell is a time that
        did not happen. ``questions`` names the question of each number
        (:mod:`.questions`: ``step-1``, ``q2-alpha2``) in the column ``question``.
        The last column, ``question_round``, is the question's own round (``round`` is the room's).

        A stored value no release writes (None, NaN, an infinity, text, a time
        out of range, an unknown confidence) never fails the export: its cell
        is left empty (in ``earlier_predictions`` an empty place between the
        ``;``), and the rows that had one are counted in a warning of the log.
        """
        out = io.StringIO()
        fields = [
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
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(fields)
        # The questions typed in the room: named by their key and their words (the CSV is read weeks later).
        questions = {**(questions or {}), **{q.number: f"{q.key}: {q.text}" for q in self.custom_questions(code)}}
        unreadable = 0
        for row in self.export_rows(code):
            read = {  # (stored value, its cell): a cell left empty for a value that is there was not read
                "prediction": (row["prediction"], _number_cell(row["prediction"])),
                "confidence": (row["confidence"], row["confidence"] if row["confidence"] in CONFIDENCES else ""),
                "submitted_at": (row["submitted_at"], _time_cell(row["submitted_at"])),
                "revisions": (row["revisions"], _count_cell(row["revisions"])),
                "closed_at": (row["closed_at"], _time_cell(row["closed_at"])),
                "revealed_at": (row["revealed_at"], _time_cell(row["revealed_at"])),
            }
            earlier = [_number_cell(v) for v in row["earlier"]]
            unreadable += any(v is not None and c == "" for v, c in read.values()) or "" in earlier
            writer.writerow(
                [
                    neutralise(c)
                    for c in (
                        row["room"],
                        row["round"],
                        row["step"],
                        (questions or {}).get(row["step"], ""),
                        row["student"],
                        read["prediction"][1],
                        read["confidence"][1],
                        read["submitted_at"][1],
                        read["revisions"][1],
                        ";".join(earlier),
                        "yes" if row["after_close"] else "no",
                        read["closed_at"][1],
                        "yes" if row["revealed"] else "no",
                        read["revealed_at"][1],
                        _count_cell(row["question_round"]),
                    )
                ]
            )
        if unreadable:
            log.warning(
                "class: room %s exported with %d rows of values it could not read (cells left empty)", code, unreadable
            )
        return out.getvalue()

    # --- instructor logins ----------------------------------------------------------------------
    def login_allowed(self, client: str, browser: str = "", known: bool = False, now: float | None = None) -> bool:
        """Whether a login from address ``client`` and ``browser`` may be tried now.

        Refused when ``browser`` (any stable key of one browser, such as a
        digest of its form cookie) failed :data:`LOGIN_FAILURES_ALLOWED` times
        in the last minute. A ``known`` browser (the instructor logged in from
        it before) is otherwise allowed: others on its address cannot lock it
        out. Any other browser is also refused when its address failed
        :data:`LOGIN_FAILURES_ALLOWED` times, or all addresses together
        :data:`LOGIN_FAILURES_ALL` times, in the last minute.
        """
        now = time.time() if now is None else now
        recent = LoginFailure.at > now - LOGIN_WINDOW_S
        count = lambda s, *where: s.scalar(select(func.count()).select_from(LoginFailure).where(recent, *where))  # noqa: E731
        with Session(self.engine) as s:
            if browser and count(s, LoginFailure.client == (_BROWSER + browser)[:64]) >= LOGIN_FAILURES_ALLOWED:
                return False
            if known:
                return True
            return (
                count(s, LoginFailure.client == client[:64]) < LOGIN_FAILURES_ALLOWED
                and count(s, LoginFailure.client.not_like(_BROWSER + "%")) < LOGIN_FAILURES_ALL
            )

    def login_failed(self, client: str, browser: str = "", now: float | None = None) -> None:
        """Count a failed login of address ``client`` (and of ``browser``, when given)."""
        now = time.time() if now is None else now
        with Session(self.engine) as s:
            s.add(LoginFailure(client=client[:64], at=now))
            if browser:
                s.add(LoginFailure(client=(_BROWSER + browser)[:64], at=now))
            s.execute(delete(LoginFailure).where(LoginFailure.at < now - 10 * LOGIN_WINDOW_S))
            s.commit()

    # --- instructor sessions ----------------------------------------------------------------------
    def server_secret(self, name: str) -> bytes:
        """The random key ``name`` (32 bytes) every server of this database shares: made by the first to ask,
        then read (two asking at once agree on one).

        Raises
        ------
        ValueError
            If ``name`` is not a short word (letters, digits, ``-``).
        """
        if not isinstance(name, str) or not re.fullmatch(r"[a-z0-9-]{1,32}", name):
            raise ValueError(f"name must be a short word of a-z, 0-9 and '-', got {name!r}")
        with Session(self.engine) as s:
            value = s.scalar(select(ServerSecret.value).where(ServerSecret.name == name))
            if value is None:
                s.add(ServerSecret(name=name, value=secrets.token_hex(32)))
                try:
                    s.commit()
                except IntegrityError:  # another process made it at the same moment: theirs
                    s.rollback()
                value = s.scalar(select(ServerSecret.value).where(ServerSecret.name == name))
        return bytes.fromhex(value)

    def open_session(self, now: float | None = None) -> str:
        """A new instructor session: its random id (kept as a digest only; sessions past
        :data:`SESSION_S` are removed meanwhile)."""
        now = time.time() if now is None else now
        session = secrets.token_urlsafe(24)
        with Session(self.engine) as s:
            s.add(InstructorSession(digest=_session_digest(session), opened_at=now))
            s.execute(delete(InstructorSession).where(InstructorSession.opened_at < now - SESSION_S))
            s.commit()
        return session

    def session_open(self, session: str, now: float | None = None) -> bool:
        """Whether instructor session ``session`` was opened less than :data:`SESSION_S` ago and not closed."""
        now = time.time() if now is None else now
        with Session(self.engine) as s:
            opened = s.scalar(
                select(InstructorSession.opened_at).where(InstructorSession.digest == _session_digest(session))
            )
        return opened is not None and opened > now - SESSION_S

    def close_session(self, session: str) -> None:
        """End instructor session ``session`` (logged out): its cookie opens nothing from now on."""
        with Session(self.engine) as s:
            s.execute(delete(InstructorSession).where(InstructorSession.digest == _session_digest(session)))
            s.commit()

    def close(self) -> None:
        self.engine.dispose()


def _session_digest(session: str) -> str:
    return hashlib.sha256(session.encode("utf-8")).hexdigest()


def _is_question_number(step) -> bool:
    """Whether ``step`` can be a question's number (an int of :data:`QUESTION_NUMBERS`; which questions
    exist is :mod:`.questions`' to say)."""
    return isinstance(step, int) and not isinstance(step, bool) and step in QUESTION_NUMBERS


def _check_step(step) -> None:
    """Raise ValueError naming ``step`` unless it can be a question's number."""
    if not _is_question_number(step):
        raise ValueError(f"step must be a question's number (1 to {QUESTION_NUMBERS[-1]}), got {step!r}")


def check_seconds(seconds) -> None:
    """Raise ValueError naming ``seconds`` unless it is a countdown's length: a number from 1 to 3600."""
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not 1 <= seconds <= 3600:
        raise ValueError(f"seconds must be a number from 1 to 3600, got {seconds!r}")


def _finite(value) -> float | None:
    """``value`` as a finite float, or None: for None, NaN, an infinity, a bool, text that is no number."""
    if isinstance(value, bool):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        return None
    return number if math.isfinite(number) else None


def _after(submitted_at, closed_at) -> bool:
    """Whether an answer at ``submitted_at`` came after a close at ``closed_at`` (False unless both are numbers)."""
    submitted, closed = _finite(submitted_at), _finite(closed_at)
    return submitted is not None and closed is not None and submitted > closed


def _number_cell(value) -> str:
    """A stored number as a CSV cell (Python's shortest repr), or "" when it is not a finite number."""
    number = _finite(value)
    return "" if number is None else repr(number)


def _time_cell(t) -> str:
    """A stored time (s since the epoch) as a CSV cell in UTC, ISO 8601 to the second; "" when it is none."""
    seconds = _finite(t)
    if seconds is None:
        return ""
    try:
        return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))
    except (OverflowError, OSError, ValueError):  # beyond the years the platform's time can say
        return ""


def _count_cell(value) -> str:
    """A stored count (a whole number, 0 or more) as a CSV cell, else ""."""
    return str(value) if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else ""


def in_bounds(value, bounds: tuple[float, float]) -> bool:
    """Whether ``value`` is a real number (not a bool), finite as a float and within ``bounds``.

    An integer too large for a float (JSON allows 10**310) is refused, not an ``OverflowError``.
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    try:
        number = float(value)
    except OverflowError:
        return False
    return math.isfinite(number) and bounds[0] <= number <= bounds[1]


def valid_student(student) -> bool:
    """Whether ``student`` is an anonymous id as the browser makes them."""
    lo, hi = STUDENT_ID_LENGTH
    return isinstance(student, str) and lo <= len(student) <= hi and set(student) <= STUDENT_ID_CHARS


def neutralise(cell) -> str:
    """A CSV cell a spreadsheet shows as text: one starting with =, +, -, @ (or tab, CR) gets a leading '.

    Numbers are left alone when they are plain numbers (a negative
    prediction stays a number a spreadsheet can average).

    >>> neutralise("=HYPERLINK(1)"), neutralise("-3.5"), neutralise("@x")
    ("'=HYPERLINK(1)", '-3.5', "'@x")
    """
    text = str(cell)
    if text[:1] in ("=", "+", "-", "@", "\t", "\r"):
        try:
            float(text)
            return text
        except ValueError:
            return "'" + text
    return text
