"""The class socket: one small WebSocket per student page in a room (``/class/socket``).

A page opened with ``?room=CODE`` (``web/classroom.js``) opens it and speaks
JSON, one object per message:

browser -> server
    ``{"type": "join", "room": CODE, "student": ID or null}`` once, first; then
    ``{"type": "submit", "seq": n, "step": q, "value": y, "confidence": "sure", "unsure" or null}``
    per prediction (``confidence`` may be left out: none said); ``q`` is a question's number
    (:mod:`.questions`: 1-3 the steps, then the exercises), ``y`` the value typed, or the index of the
    option chosen.
server -> browser
    ``{"type": "joined", "room", "step", "round", "follow", "closed", "revealed", "prediction",
    "student"}``: the room as it is (``closed``: voting on its step is closed,
    by the instructor or by the reveal; ``revealed``: the step's answer is
    out), this student's stored prediction
    (``{"step", "value"}`` or null): of the room's step when students follow
    the instructor, else the latest; and the student's id, which the page
    keeps and joins with next time; ``{"type": "receipt", "seq", "ok": true, "step", "value",
    "round"}`` once the prediction is committed, or ``{"type": "receipt",
    "seq", "ok": false, "reason"}``; ``{"type": "room", "step", "round",
    "follow", "closed", "revealed", "closes_in", "prediction", "result"}`` when the instructor changes the
    step, starts a new round, closes or reopens voting, starts a countdown (``closes_in``: the seconds
    until the vote closes by itself, else null), or reveals. ``result`` (in ``joined`` too) is null until the
    room's step is revealed, then where the class stood: ``{"step", "answer", "n", "share_within",
    "within"}`` (the question's answer, the number of predictions, the share within ``within`` of it).
    A room's ``step`` is the question it shows: a step, or an exercise the page shows on its own card.
    ``question`` (in ``joined`` and ``room``) is null, or for a question the instructor typed in the room
    (:func:`.questions.typed_for_page`) its words, kind, options and bounds, which the page writes as text.

**Ids** are the server's (:class:`StudentIds`): a join without one, or with
one the server did not sign, is given a new one, at most
``new_per_minute`` new ids a minute per address and room (beyond it the
join is refused with ``wait`` and the page tries again shortly). A page
cannot take another student's place without that student's id, and an id
answers on one socket: the same id joining again (another tab) takes over,
and the earlier socket is refused with ``elsewhere``. A room that has
ended is refused with ``ended``, and its open sockets are told so.

Nothing of another student is ever sent, and no count and no answer
before the instructor reveals the step (then only ``result``). A refused
join (an unknown room, an ended one, too many connections or new ids from
one address) is answered with ``{"type": "refused", "reason"}`` and closed with
code :data:`REFUSED`; a message that is too long, not JSON, not an object of
the expected fields, or out of turn closes the socket with code 1008 (policy)
or 1009 (too big) and a reason, and is logged as one line, never a traceback.
So does a socket that sends no join within :data:`JOIN_DEADLINE_S` (``no join
in time``): sockets that never join hold no place of their address's cap.

Shared state goes through the database only: :class:`ClassChannel` keeps
this process's sockets by room and reads their rooms twice a second, so any
process on one database serves any student of a room. It also tells the
store who is in each room (a join, a close, and a beat of its open sockets
every :data:`PRESENCE_BEAT_S`), which the instructor's page counts.

No database call runs on the event loop: each goes to the channel's few
threads (:meth:`ClassChannel.call`) and is given :data:`STORE_TIMEOUT_S`
seconds. A database that is slow (paused, locked by another process) then
costs the pages and the other sockets nothing; a join or a submission it
does not answer in time is answered ``"slow"``. A submission's receipt waits
for the store longer (:data:`SUBMIT_PATIENCE_S`: a hall answering at once is a
queue, not a failure), so an answer that is stored is never called failed;
one answered ``"slow"`` may still be committed later, and the page sends it
again by itself: only a receipt says it was stored, so nothing acknowledged
is lost.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import ipaddress
import json
import logging
import secrets
import time
from collections.abc import Callable
from urllib.parse import urlsplit

from sqlalchemy.exc import SQLAlchemyError
from tornado.ioloop import IOLoop, PeriodicCallback
from tornado.web import HTTPError
from tornado.websocket import WebSocketClosedError, WebSocketHandler

from . import stats
from .questions import Question, get_question, typed_for_page, typed_question
from .store import CUSTOM_FIRST
from .context import STORE_TIMEOUT_S, StoreSlow, StoreThreads
from .limits import RateLimit, SessionCap, log_failure
from .store import MIN_SUBMIT_INTERVAL_S, RoomState, Store, normalise_code

log = logging.getLogger(__name__)

#: How long a submission's receipt waits, in all, for the store to take it (s): past the store's own
#: timeout it is a queue (a hall answering at once) or a slow database, and the answer is still coming.
SUBMIT_PATIENCE_S = 30.0
#: The path of the class socket on the server.
SOCKET_PATH = "/class/socket"
#: Close code of a refused join or a socket ended by the server (its reason: ``room``, ``ended``,
#: ``busy``, ``guessing``, ``wait``, ``slow``, ``server`` or ``elsewhere``); ``web/classroom.js`` knows it.
REFUSED = 4001
#: Longest message accepted, in characters of JSON.
MAX_MESSAGE = 400
#: Most messages one socket may send in a second: a page sends one per press; more is a script,
#: and its socket is closed before the store is asked (each submission is a database call).
MAX_MESSAGES_PER_SECOND = 20
#: Joins of a room that does not exist that one address may make in a minute; beyond it, that
#: address's joins are refused ("guessing") until the minute has passed: a code is not guessed
#: by trying (31**6 codes).
MISSED_JOINS_PER_MINUTE = 30
#: New student ids one address may be given per room in a minute (``--max-new-students-per-minute``): a
#: script cannot fill a room with made-up students. A lecture hall behind one address (a NAT) joins
#: this many a minute; the others' pages try again by themselves (see docs/deploy.md).
NEW_STUDENTS_PER_MINUTE = 60
#: Submissions one address may send to the store: this many at once (a lecture hall behind one NAT answering
#: together), then this many a second. Beyond them, and beyond one a second per student
#: (:data:`.store.MIN_SUBMIT_INTERVAL_S`), a submission is refused ``rate`` before any database call.
SUBMITS_PER_ADDRESS_BURST = 300
SUBMITS_PER_ADDRESS_PER_SECOND = 50.0
#: Seconds a socket may stay open without sending its join; then the server closes it (1008), so sockets
#: that never join hold no place of their address's cap. A page sends its join as soon as the socket opens.
JOIN_DEADLINE_S = 10.0
#: How often a process reads the rooms of its sockets (ms).
POLL_MS = 500
#: How often a process tells the store its students are still in their rooms (s): a beat of each room's
#: open sockets (``Store.seen``; a student counts there for ``store.PRESENCE_WINDOW_S``).
PRESENCE_BEAT_S = 10.0
__all__ = ["ClassChannel", "ClassSocket", "StoreSlow", "patterns"]


class StudentIds:
    """Anonymous student ids the server issues and signs: ``<32 hex digits>-<22 characters of signature>``.

    The hex part (128 random bits) is the student in the database; the
    signature (HMAC-SHA256 under ``key``, base64url, 132 bits) lets a page
    show it is an id this server gave, so no one can make up ids or guess
    another student's. Every process given the same ``key`` accepts the same
    ids; without one a random key is made (ids then last while the process runs).

    >>> ids = StudentIds(b"k" * 32)
    >>> stored, signed = ids.issue()
    >>> tampered = signed[:-1] + ("B" if signed.endswith("A") else "A")  # one character of the signature
    >>> ids.check(signed) == stored, ids.check(stored), ids.check(tampered), ids.check(None)
    (True, None, None, None)
    """

    def __init__(self, key: bytes | None = None):
        self.key = key or secrets.token_bytes(32)

    def _signature(self, stored: str) -> str:
        digest = hmac.new(self.key, b"attention-explorable student " + stored.encode(), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(digest).decode()[:22]

    def issue(self) -> tuple[str, str]:
        """A new id: (the student as stored, the signed id the page keeps)."""
        stored = secrets.token_hex(16)
        return stored, f"{stored}-{self._signature(stored)}"

    def check(self, signed) -> str | None:
        """The stored student of a signed id this server gave, or None (anything else, of any type)."""
        if not isinstance(signed, str) or len(signed) != 55 or signed[32] != "-":
            return None
        stored, signature = signed[:32], signed[33:]
        if any(c not in "0123456789abcdef" for c in stored):
            return None
        return stored if hmac.compare_digest(signature, self._signature(stored)) else None


class ClassChannel:
    """One process's class sockets, by room, and the watcher that tells them of their rooms' changes.

    Parameters
    ----------
    store : callable returning Store
        This process's store (called when needed, so a forked worker opens its own).
    cap : SessionCap
        The cap on what one client address may hold open (``--max-sessions-per-client``).
    origins : list of str
        ``host:port`` origins allowed besides the page's own host (``'*'``: any).
    timeout : float
        Seconds a database call may take (:meth:`call`; default :data:`STORE_TIMEOUT_S`).
    ids : StudentIds
        The ids' signer (one key for every process of the class: ``cli`` derives it from the
        instructor's secret); default: a key of this channel's own.
    new_per_minute : int
        New ids one address may be given per room in a minute (0: no cap).
    address_submits : RateLimit
        Submissions one address may send to the store (default: :data:`SUBMITS_PER_ADDRESS_BURST` at once,
        :data:`SUBMITS_PER_ADDRESS_PER_SECOND` a second).
    join_deadline : float
        Seconds a socket may stay open without sending its join (default :data:`JOIN_DEADLINE_S`).

    Raises
    ------
    ValueError
        If ``new_per_minute`` is negative, or ``timeout`` or ``join_deadline`` is not a positive number of seconds.
    """

    def __init__(
        self,
        store: Callable[[], Store],
        cap: SessionCap | None = None,
        origins: list[str] | None = None,
        timeout: float = STORE_TIMEOUT_S,
        ids: StudentIds | None = None,
        new_per_minute: int = NEW_STUDENTS_PER_MINUTE,
        address_submits: RateLimit | None = None,
        join_deadline: float = JOIN_DEADLINE_S,
    ):
        if new_per_minute < 0:
            raise ValueError(f"new_per_minute must be 0 (no cap) or more, got {new_per_minute!r}")
        if isinstance(join_deadline, bool) or not isinstance(join_deadline, (int, float)) or not join_deadline > 0:
            raise ValueError(f"join_deadline must be a positive number of seconds, got {join_deadline!r}")
        self.join_deadline = join_deadline
        self.student_submits = RateLimit(1.0 / MIN_SUBMIT_INTERVAL_S)  # the store's own rule, asked first here
        self.address_submits = address_submits or RateLimit(SUBMITS_PER_ADDRESS_PER_SECOND, SUBMITS_PER_ADDRESS_BURST)
        self.ids = ids if ids is not None else StudentIds()
        self.new_per_minute = new_per_minute
        self._new: dict[tuple[str, str], list[float]] = {}  # (address, room): when it was given new ids
        self.holders: dict[tuple[str, str], ClassSocket] = {}  # (room, student): the socket that answers for it
        self.store = store
        self.timeout = timeout
        self._threads = StoreThreads(timeout=timeout)  # raises for a timeout that is not positive
        self._polling = False
        self.cap = cap if cap is not None else SessionCap()
        self.origins = set(origins or [])
        self.rooms: dict[str, set[ClassSocket]] = {}
        self.seen: dict[str, RoomState] = {}
        self._watch: PeriodicCallback | None = None
        self._missed: dict[str, list[float]] = {}  # per address: when it asked for a room that is not
        self._beat_at = time.monotonic()  # when the open sockets' students were last said to be in their rooms
        self._notes: dict[tuple[str, str], asyncio.Task] = {}  # (room, student): its last presence write
        self._typed: dict[int, Question] = {}  # the typed questions of the rooms seen (they never change)

    # --- the database, off the event loop -------------------------------------------------
    async def call(self, method: str, *args, **kwargs):
        """``self.store().<method>(*args, **kwargs)`` in one of the channel's threads, awaited.

        Raises
        ------
        StoreSlow
            If it did not answer within ``timeout`` seconds (it goes on in its thread).
        sqlalchemy.exc.SQLAlchemyError
            As the store raises it.
        """
        return await self._threads.call(self.store, method, *args, **kwargs)

    def known_question(self, number) -> Question | None:
        """The question kept under ``number`` that this process knows without a query: the text's own, or
        one typed in a room a socket of this process has been shown (:meth:`load_question`); else None."""
        return get_question(number) or self._typed.get(number)

    async def load_question(self, number: int) -> Question | None:
        """The question a room shows (``RoomState.step``), reading a typed one from the store the first time
        (kept after: a typed question never changes). None for a number no question has.

        Raises StoreSlow or SQLAlchemyError as :meth:`call`.
        """
        found = self.known_question(number)
        if found is not None or isinstance(number, bool) or not isinstance(number, int) or number < CUSTOM_FIRST:
            return found
        typed = await self.call("custom_question", number)
        if typed is None:
            return None
        if len(self._typed) > 10_000:  # a server up for a term: forget the oldest rooms' questions
            self._typed.clear()
        self._typed[number] = typed_question(typed)
        return self._typed[number]

    async def page_question(self, room: RoomState) -> dict | None:
        """What a page is sent of ``room``'s question when the instructor typed it (:func:`.questions.typed_for_page`),
        else None (the page's config holds the text's own). Raises as :meth:`load_question`."""
        question = await self.load_question(room.step)
        return typed_for_page(question) if question is not None and question.is_typed else None

    def may_submit(self, client: str, code: str, student: str, now: float | None = None) -> bool:
        """Whether a submission of ``student`` in room ``code`` from address ``client`` may go to the store now
        (and count it when so): one a second per student, and the address's :attr:`address_submits`.
        Asked before any database call, so a flood refused for its rate costs no query."""
        now = time.monotonic() if now is None else now
        return self.student_submits.allow((code, student), now) and self.address_submits.allow(client, now)

    # --- new ids ------------------------------------------------------------------------
    def may_issue(self, client: str, code: str, now: float | None = None) -> bool:
        """Whether ``client`` may be given one more new id in room ``code`` (and count it when so)."""
        if not self.new_per_minute:
            return True
        now = time.monotonic() if now is None else now
        if len(self._new) > 10_000:  # many addresses: forget those with nothing in the last minute
            self._new = {
                k: [t for t in v if now - t < 60.0] for k, v in self._new.items() if any(now - t < 60.0 for t in v)
            }
        recent = [t for t in self._new.get((client, code), ()) if now - t < 60.0]
        if len(recent) >= self.new_per_minute:
            self._new[(client, code)] = recent
            return False
        self._new[(client, code)] = [*recent, now]
        return True

    def hold(self, socket: ClassSocket) -> None:
        """Make ``socket`` the one that answers for its student; an earlier one is refused (``elsewhere``)."""
        key = (socket.code, socket.student)
        earlier = self.holders.get(key)
        self.holders[key] = socket
        if earlier is not None and earlier is not socket:
            earlier.replaced()

    # --- guessing -----------------------------------------------------------------------
    def _recent_misses(self, client: str, now: float) -> list[float]:
        recent = [t for t in self._missed.get(client, ()) if now - t < 60.0]
        if recent:
            self._missed[client] = recent
        else:
            self._missed.pop(client, None)
        return recent

    def guessing(self, client: str, now: float | None = None) -> bool:
        """Whether ``client`` asked for :data:`MISSED_JOINS_PER_MINUTE` rooms that are not, in the last minute."""
        now = time.monotonic() if now is None else now
        return len(self._recent_misses(client, now)) >= MISSED_JOINS_PER_MINUTE

    def missed(self, client: str, now: float | None = None) -> None:
        """Count a join of a room that does not exist by ``client``."""
        now = time.monotonic() if now is None else now
        if len(self._missed) > 10_000:  # many addresses: forget those with no miss in the last minute
            for address in list(self._missed):
                self._recent_misses(address, now)
        self._missed.setdefault(client, []).append(now)

    # --- connections --------------------------------------------------------------------
    def origin_allowed(self, origin: str, host: str) -> bool:
        """Whether a page from ``origin`` may open a socket on the server reached as ``host``."""
        netloc = urlsplit(origin).netloc.lower()
        return bool(netloc) and (netloc == host.lower() or self._allowed_name(netloc))

    def _allowed_name(self, netloc: str) -> bool:
        return netloc in self.origins or "*" in self.origins

    def host_allowed(self, host: str) -> bool:
        """Whether the server may answer a socket reached as ``host`` (the request's Host header).

        An address (``127.0.0.1:5006``, ``[::1]:5006``) or an allowed origin's name: a name not
        allowed may be an attacker's, made to resolve to this server (DNS rebinding), whose page
        then looks same-origin to the browser and to Tornado's own Origin check.
        """
        host = host.lower()
        return self._allowed_name(host) or _is_address(urlsplit("//" + host).hostname or "")

    def join(self, socket: ClassSocket, room: RoomState) -> None:
        self.rooms.setdefault(room.code, set()).add(socket)
        self.seen.setdefault(room.code, room)
        if self._watch is None:
            self._watch = PeriodicCallback(self.poll, POLL_MS)
            self._watch.start()

    def leave(self, socket: ClassSocket) -> None:
        if self.holders.get((socket.code, socket.student)) is socket:
            del self.holders[(socket.code, socket.student)]
            self.note("left", socket.code, socket.student)
        members = self.rooms.get(socket.code or "")
        if members is not None:
            members.discard(socket)
            if not members:
                del self.rooms[socket.code]
                self.seen.pop(socket.code, None)
        if not self.rooms and self._watch is not None:
            self._watch.stop()
            self._watch = None

    # --- who is in the room ---------------------------------------------------------------
    def note(self, method: str, code: str, student: str) -> None:
        """``Store.<method>(code, ...)`` for ``student`` (``seen`` when their socket joins, ``left`` when it
        closes) on its way, after the one before for the same student, not awaited: who is in a room is a
        count on the projector, never a reason to hold a page's messages back; a failure is one line in the
        log (the next beat says it again)."""
        key, before = (code, student), self._notes.get((code, student))

        async def write() -> None:
            if before is not None:  # a join's "seen" is stored before its "left"
                await asyncio.wait([before])
            try:
                await self.call(method, code, [student] if method == "seen" else student)
            except (SQLAlchemyError, StoreSlow, KeyError) as exc:
                log.warning("class: presence in room %s not stored: %s", code, type(exc).__name__)

        try:
            task = asyncio.get_running_loop().create_task(write())
        except RuntimeError:  # no loop: a socket closed as the server stops
            return
        self._notes[key] = task
        task.add_done_callback(log_failure)  # nobody awaits it: a failure not caught above is said, once
        task.add_done_callback(lambda done: self._notes.pop(key) if self._notes.get(key) is done else None)

    async def _beat(self) -> None:
        """Say, for each room, that the students of this process's open sockets are still in it."""
        for code, sockets in list(self.rooms.items()):
            students = sorted({s.student for s in sockets if s.student and self.holders.get((code, s.student)) is s})
            if students:
                try:
                    await self.call("seen", code, students)
                except (SQLAlchemyError, StoreSlow, KeyError) as exc:
                    log.warning("class: presence in room %s not stored: %s", code, type(exc).__name__)

    # --- the rooms' news ------------------------------------------------------------------
    async def poll(self) -> None:
        """Read the rooms of this process's sockets; tell each socket of a room that changed; every
        :data:`PRESENCE_BEAT_S`, say that their students are still there.

        One read at a time: while the database is slow, the next turns are skipped.
        """
        if not self.rooms or self._polling:
            return
        self._polling = True
        try:
            await self._tell_changes()
            if time.monotonic() - self._beat_at >= PRESENCE_BEAT_S:
                self._beat_at = time.monotonic()
                await self._beat()
        finally:  # the next poll starts once this one has told every socket (none overtakes it)
            self._polling = False

    async def _tell_changes(self) -> None:
        try:
            rooms = await self.call("rooms", list(self.rooms))
        except (SQLAlchemyError, StoreSlow) as exc:
            log.warning("class: rooms not read: %s", type(exc).__name__)
            return
        for code, room in rooms.items():
            before = self.seen.get(code)
            if before == room or code not in self.rooms:
                continue
            try:
                question = None if room.ended else await self.page_question(room)
            except (SQLAlchemyError, StoreSlow) as exc:  # told at the next poll
                log.warning("class: question of room %s not read: %s", code, type(exc).__name__)
                continue
            self.seen[code] = room
            if room.ended:
                for socket in list(self.rooms.get(code, ())):
                    socket.ended()
                continue
            moved = room.follow and (before is None or room.step != before.step or room.round != before.round)
            result = await self.result(room)
            for socket in list(self.rooms.get(code, ())):
                await socket.tell_room(room, moved, result, question)

    async def result(self, room: RoomState) -> dict | None:
        """Where the class stood on ``room``'s step once it is revealed (see the module docstring), else None.

        None too when the predictions cannot be read in time (the page then shows only its own).
        """
        if not room.revealed:
            return None
        try:
            values = await self.call("values", room.code, room.step)
        except (SQLAlchemyError, StoreSlow) as exc:
            log.warning("class: predictions of room %s not read: %s", room.code, type(exc).__name__)
            return None
        question = self.known_question(room.step)
        if question is None:
            return None
        spread = stats.spread(values, question.answer, question.within)
        return {
            "step": room.step,
            "answer": question.answer,
            "n": spread["n"],
            "share_within": spread["share_within"],
            "percent": stats.percent(spread["share_within"]),  # rounded here, as on the projector
            "within": question.within,
        }


async def _prediction(channel: ClassChannel, room: RoomState, student: str, latest: bool) -> dict | None:
    """The student's stored prediction to hand back: of the room's step, or (``latest``) the latest."""
    if latest:
        found = await channel.call("latest_prediction", room.code, student)
        return {"step": found[0], "value": found[1]} if found else None
    value = await channel.call("prediction", room.code, student, room.step)
    return None if value is None else {"step": room.step, "value": value}


def _outcome_read(future) -> None:
    """Read a finished write's outcome (a socket closed meanwhile is no error: its page comes back)."""
    if not future.cancelled():
        future.exception()


class ClassSocket(WebSocketHandler):
    """One student page's class socket (see the module docstring for its messages)."""

    def initialize(self, channel: ClassChannel) -> None:
        self.channel = channel
        self.client = ""
        self.code: str | None = None
        self.student: str | None = None
        self.counted = False
        self._window = (0.0, 0)  # (start of the current second, messages in it)
        self._deadline = None  # the join's deadline (an IOLoop timeout) until the join arrives

    def prepare(self) -> None:
        if not self.channel.host_allowed(self.request.host or ""):
            raise HTTPError(403, "host not allowed")

    def check_origin(self, origin: str) -> bool:
        return self.channel.origin_allowed(origin, self.request.host)

    @property
    def max_message_size(self) -> int:
        """Bytes of one message: a frame that announces more is closed (1009) before any of it is
        buffered (Tornado's own default is 10 MiB a socket). Four UTF-8 bytes per character of
        :data:`MAX_MESSAGE`, whose check in :meth:`on_message` still applies."""
        return 4 * MAX_MESSAGE

    def open(self) -> None:
        # A receipt is one small frame: sent at once, not held back by Nagle's algorithm for the
        # next one (tornado's documented remedy; it leaves TCP_NODELAY off on a websocket).
        self.set_nodelay(True)
        self.client = self.request.remote_ip or "?"
        self.counted = self.channel.cap.admit(self.client)
        if not self.counted:
            return self._refuse("busy")
        self._deadline = IOLoop.current().call_later(self.channel.join_deadline, self._join_overdue)

    def _join_overdue(self) -> None:
        """No join within the channel's ``join_deadline``: closed, so the socket holds no place of its address's cap."""
        self._deadline = None
        if self.code is None and self.close_code is None:
            self._drop("no join in time")

    def _no_deadline(self) -> None:
        if self._deadline is not None:
            IOLoop.current().remove_timeout(self._deadline)
            self._deadline = None

    def on_close(self) -> None:
        self._no_deadline()
        self.channel.leave(self)
        if self.counted:
            self.channel.cap.release(self.client)
            self.counted = False

    # --- sending ------------------------------------------------------------------------
    def _send(self, **message) -> None:
        try:
            sent = self.write_message(json.dumps(message))
        except WebSocketClosedError:
            return  # closed already: the page reads the room again when it joins again
        # A socket that closes while the message is written fails the write's future: read its
        # outcome, else asyncio logs "Task exception was never retrieved" with a traceback.
        sent.add_done_callback(_outcome_read)

    def _refuse(self, reason: str) -> None:
        self._send(type="refused", reason=reason)
        self.close(REFUSED, reason)

    def replaced(self) -> None:
        """The same student joined on another socket (another tab): this one answers no more."""
        self.student = None
        self._refuse("elsewhere")

    def ended(self) -> None:
        """The room has ended: the page is told so, and the socket closed."""
        self._refuse("ended")

    def _drop(self, reason: str, code: int = 1008) -> None:
        log.info("class: socket from %s closed: %s", self.client, reason)
        self.close(code, reason)

    async def tell_room(
        self, room: RoomState, moved: bool, result: dict | None = None, question: dict | None = None
    ) -> None:
        """Tell this page of its room's new step, round or vote (with the stored prediction of a step moved
        to, ``result`` once the step is revealed, and ``question``: a typed question's words,
        :meth:`ClassChannel.page_question`)."""
        prediction = None
        if moved and self.student:
            try:
                prediction = await _prediction(self.channel, room, self.student, latest=False)
            except (SQLAlchemyError, StoreSlow) as exc:
                log.warning("class: prediction in room %s not read: %s", room.code, type(exc).__name__)
        self._send(
            type="room",
            step=room.step,
            round=room.round,
            follow=room.follow,
            closed=room.closed,
            revealed=room.revealed,
            closes_in=_closes_in(room),
            prediction=prediction,
            result=result,
            question=question,
        )

    # --- receiving ----------------------------------------------------------------------
    async def on_message(self, message) -> None:
        # A coroutine: Tornado reads this socket's next message once it has returned, so each
        # page's messages are answered in order while other sockets go on.
        if not isinstance(message, str):
            return self._drop("binary message")
        if len(message) > MAX_MESSAGE:
            return self._drop("message too long", 1009)
        now = time.monotonic()
        start, count = self._window
        self._window = (start, count + 1) if now - start < 1.0 else (now, 1)
        if self._window[1] > MAX_MESSAGES_PER_SECOND:
            return self._drop("too many messages")
        try:
            data = json.loads(message)
        except ValueError:
            return self._drop("not JSON")
        if not isinstance(data, dict) or not isinstance(data.get("type"), str):
            return self._drop("not a message object")
        if data["type"] == "join" and self.code is None:
            self._no_deadline()  # a join answered late (a slow database) is no socket that never joined
            return await self._join(data)
        if data["type"] == "submit" and self.code is not None and self.student is not None:
            return await self._submit(data)
        return self._drop(f"unexpected message {data['type'][:20]!r}")

    async def _join(self, data: dict) -> None:
        code, signed = normalise_code(data.get("room")), data.get("student")
        student = self.channel.ids.check(signed)
        if self.channel.guessing(self.client):
            return self._refuse("guessing")
        if code is None:
            self.channel.missed(self.client)
            return self._refuse("room")
        try:
            room = await self.channel.call("room", code)
            prediction = (
                None
                if room is None or student is None
                else await _prediction(self.channel, room, student, latest=not room.follow)
            )
            question = None if room is None or room.ended else await self.channel.page_question(room)
            result = None if room is None or room.ended else await self.channel.result(room)
        except StoreSlow:
            log.warning("class: room %s not read in time", code)
            return self._refuse("slow")
        except SQLAlchemyError as exc:
            log.warning("class: room %s not read: %s", code, type(exc).__name__)
            return self._refuse("server")
        if self.close_code is not None:  # the page went while the database answered
            return
        if room is None:
            self.channel.missed(self.client)
            return self._refuse("room")
        if room.ended:
            return self._refuse("ended")
        if student is None:  # a first visit (or an id this server did not sign): a new id
            if not self.channel.may_issue(self.client, code):
                return self._refuse("wait")
            student, signed = self.channel.ids.issue()
            prediction = None
        self.code, self.student = code, student
        self.channel.join(self, room)
        self.channel.hold(self)
        self.channel.note("seen", code, student)
        self._send(
            type="joined",
            room=code,
            step=room.step,
            round=room.round,
            follow=room.follow,
            closed=room.closed,
            revealed=room.revealed,
            closes_in=_closes_in(room),
            prediction=prediction,
            result=result,
            question=question,
            student=signed,
        )

    async def _submit(self, data: dict) -> None:
        seq = data.get("seq")
        if isinstance(seq, bool) or not isinstance(seq, int):
            return self._drop("submission without a sequence number")
        step, value, confidence = data.get("step"), data.get("value"), data.get("confidence")
        question = self.channel.known_question(step)  # no query: a typed question was read with its room
        if question is None:
            return self._send(type="receipt", seq=seq, ok=False, reason="step")
        if not question.accepts(value):
            return self._send(type="receipt", seq=seq, ok=False, reason="value")
        if not self.channel.may_submit(self.client, self.code, self.student):
            return self._send(type="receipt", seq=seq, ok=False, reason="rate")
        try:
            result = await self.channel.call(
                "submit", self.code, self.student, step, value, bounds=question.bounds, confidence=confidence
            )
        except StoreSlow as slow:
            # A queue (150 answers at once) or a slow database: the submission is still on its way to the
            # store. Its receipt waits for it, so an answer that is stored is never called failed; only one
            # that the store has not taken within SUBMIT_PATIENCE_S is answered "slow" (the page sends it again).
            try:
                result = await asyncio.wait_for(asyncio.shield(slow.work), SUBMIT_PATIENCE_S)
            except asyncio.TimeoutError:
                log.warning("class: prediction for room %s not stored in time", self.code)
                return self._send(type="receipt", seq=seq, ok=False, reason="slow")
            except SQLAlchemyError as exc:
                log.warning("class: prediction for room %s not stored: %s", self.code, type(exc).__name__)
                return self._send(type="receipt", seq=seq, ok=False, reason="server")
        except SQLAlchemyError as exc:
            log.warning("class: prediction for room %s not stored: %s", self.code, type(exc).__name__)
            return self._send(type="receipt", seq=seq, ok=False, reason="server")
        if result.ok:
            self._send(type="receipt", seq=seq, ok=True, step=step, value=value, round=result.round)
        else:
            self._send(type="receipt", seq=seq, ok=False, reason=result.reason)


def _closes_in(room: RoomState) -> float | None:
    """Seconds until the vote on ``room``'s step closes by itself (the instructor's countdown), or None."""
    if room.closes_at is None or room.closed:
        return None
    return round(max(0.0, room.closes_at - time.time()), 1)


def _is_address(hostname: str) -> bool:
    """Whether ``hostname`` is an IP address (v4 or v6) rather than a name."""
    try:
        ipaddress.ip_address(hostname)
    except ValueError:
        return False
    return True


def patterns(channel: ClassChannel) -> list[tuple]:
    """The class socket's route, for the server's handlers."""
    return [(SOCKET_PATH, ClassSocket, {"channel": channel})]
