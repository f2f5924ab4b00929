"""The class's context: the settings one server shares, and the instructor's signed cookie.

``attention-explorable serve`` makes one :class:`ClassContext` in
``cli.main`` from its options and hands it to what needs it: the class
socket (:mod:`.channel`), the instructor's page (:mod:`.instructor`) and its
HTTP endpoints (:mod:`.handlers`). Worker processes of ``--num-procs``
inherit it through the fork; each opens its own database engine.

Each login opens a session (a random id, kept as a digest in the database:
:meth:`.store.Store.open_session`), and the instructor's browser gets a
cookie of that id signed with a key derived from the secret and from a
random key kept in the database (:meth:`.store.Store.server_secret`), so
that the ``instructor-key`` file alone (the secret's record, or a secret
written there) signs no cookie (tornado's signed values): HttpOnly,
SameSite=Strict, valid 12 hours. Every process (and every machine) of the
same secret and database accepts it; logging out
closes the session, so the cookie opens nothing afterwards, even copied.
The secret itself never travels in a URL.

A secret the server made itself (no ``--instructor-key``) is kept, hashed
(PBKDF2-SHA256 with a random salt), in ``instructor-key`` in the user's data
folder (:func:`kept_secret`): a restart mid-lecture keeps the instructor
logged in and the same secret valid. Delete the file for a new one. A
person may write their own secret into that file (or the one
``--instructor-key-file`` names) instead: it is read (:func:`file_secret`),
never overwritten, and never shows in the process list.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import logging
import os
import re
import secrets
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy.exc import SQLAlchemyError
from tornado.web import create_signed_value, decode_signed_value

from .limits import SessionCap, log_failure
from .store import Store

log = logging.getLogger(__name__)

#: Name of the instructor's cookie, and how long it is valid.
COOKIE = "ae_instructor"
COOKIE_DAYS = 0.5
#: What a signed instructor cookie carries: a session id as :meth:`.store.Store.open_session` makes them.
_SESSION_ID = re.compile(r"[A-Za-z0-9_-]{32}")
#: The shortest instructor secret taken: a short one is guessed (the limits of failed logins slow, not stop, that).
MIN_KEY_LENGTH = 12
#: A browser the instructor has logged in from: its own failures are counted, not its address's
#: (:meth:`.store.Store.login_allowed`), so no one else on that address can lock it out.
KNOWN_COOKIE = "ae_known_browser"
KNOWN_DAYS = 180
_KNOWN_VALUE = b"known"

#: Seconds a database call may take before the page is told the server is busy.
STORE_TIMEOUT_S = 3.0
#: Threads of a process's database calls: as many calls wait on a slow database at once; more queue.
STORE_THREADS = 4


class StoreSlow(Exception):
    """A database call did not answer within its timeout (:class:`StoreThreads`); its ``work`` (an
    awaitable of the call's result) goes on."""

    work = None


class StoreThreads:
    """A few threads that run database calls off the event loop, each awaited for ``timeout`` seconds.

    A database that is slow (paused, locked by another process) then holds
    these threads, never the server's one event loop: the pages and the other
    sockets go on. Made lazily in the process that serves, so a forked worker
    makes its own. Used as ``await threads.call(get_store, "method", *args)``
    inside a coroutine (tests/classroom/test_store_threads.py).
    """

    def __init__(self, threads: int = STORE_THREADS, timeout: float = STORE_TIMEOUT_S):
        if not timeout > 0:
            raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}")
        if threads < 1:
            raise ValueError(f"threads must be 1 or more, got {threads!r}")
        self.threads, self.timeout = threads, timeout
        self._pool: ThreadPoolExecutor | None = None
        self._pid = 0

    async def call(self, store, method: str, *args, **kwargs):
        """``store().<method>(*args, **kwargs)`` in one of the threads, awaited (``store`` is called there).

        Raises
        ------
        StoreSlow
            If it did not answer within ``timeout`` seconds (it goes on in its thread).
        sqlalchemy.exc.SQLAlchemyError
            As the store raises it.
        """
        if self._pool is None or self._pid != os.getpid():
            self._pool, self._pid = ThreadPoolExecutor(self.threads, thread_name_prefix="class-store"), os.getpid()
        work = asyncio.get_running_loop().run_in_executor(self._pool, lambda: getattr(store(), method)(*args, **kwargs))
        try:
            return await asyncio.wait_for(asyncio.shield(work), self.timeout)
        except asyncio.TimeoutError:
            slow = StoreSlow(f"{method} took more than {self.timeout:g} s")
            slow.work = work  # still running: a caller that may wait longer awaits it (a submission's receipt)
            work.add_done_callback(log_failure)  # or nobody does: its failure is said, not left unretrieved
            raise slow from None


@dataclass
class ClassContext:
    """What the parts of one class server share, made once by ``cli.main``.

    Parameters
    ----------
    database_url : str
        SQLAlchemy URL of the class's database (checked by the caller).
    instructor_key : str
        The instructor secret; empty: no one can log in (the page says so).
    public_urls : tuple of str
        Base URLs students can reach (``http://192.168.1.5:8080``), for the
        join URL and its QR code; empty: the host the instructor's page came from.
    cap : SessionCap
        Class sockets and instructor pages one client address may hold open.
    key_record : str
        Instead of ``instructor_key``: the secret as :func:`kept_secret` keeps
        it (``pbkdf2-sha256$iterations$salt$hash``), the secret itself unknown.
    shared : bool
        Whether other processes or machines may write the database unseen by
        :meth:`.store.Store.changes` (PostgreSQL): then an instructor's page also
        reads its room every second.
    """

    database_url: str
    instructor_key: str = ""
    public_urls: tuple[str, ...] = ()
    cap: SessionCap = field(default_factory=lambda: SessionCap(0))
    key_record: str = ""
    shared: bool = False
    _stores: dict[int, Store] = field(default_factory=dict, init=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)
    _threads: StoreThreads = field(default_factory=StoreThreads, init=False, repr=False)
    _server_key: bytes = field(default=b"", init=False, repr=False)

    async def call(self, method: str, *args, **kwargs):
        """``self.store().<method>(...)`` off the event loop (:meth:`StoreThreads.call`: may raise
        :class:`StoreSlow` or the store's ``SQLAlchemyError``)."""
        return await self._threads.call(self.store, method, *args, **kwargs)

    def store(self) -> Store:
        """This process's :class:`~.store.Store` of the database (one engine per process, never shared by a fork)."""
        pid = os.getpid()
        with self._lock:
            if pid not in self._stores:
                self._stores[pid] = Store(self.database_url)
            return self._stores[pid]

    @property
    def has_secret(self) -> bool:
        """Whether anyone can log in (a secret given, or one kept)."""
        return bool(self.instructor_key or self.key_record)

    def key_matches(self, given: str) -> bool:
        """Whether ``given`` is this server's instructor secret (see :func:`key_matches`)."""
        if self.key_record:
            return record_matches(given, self.key_record)
        return key_matches(given, self.instructor_key)

    @property
    def _signing(self) -> str:
        """What the cookies' and student ids' keys are derived from (:meth:`signing_key`); empty without a secret."""
        secret = self.instructor_key or self.key_record
        if not secret:
            return ""
        if not self._server_key:  # read once (two threads at once read the same row)
            self._server_key = self.store().server_secret("cookies")
        return hmac.new(self._server_key, secret.encode(), hashlib.sha256).hexdigest()

    def signing_key(self) -> str:
        """Read (or make) the database's random cookie key now, in this process, so that no page waits for
        it; returns the key cookies are derived from (empty without a secret).

        Raises
        ------
        sqlalchemy.exc.SQLAlchemyError
            If the database cannot be read.
        """
        return self._signing

    def signed_cookie(self, session: str) -> bytes:
        """The instructor's cookie of ``session`` for this server's secret (see :func:`signed_cookie`)."""
        return signed_cookie(self._signing, session)

    def cookie_session(self, value: str | bytes | None) -> str | None:
        """The session id of instructor cookie ``value`` signed for this server's secret, else None (see
        :func:`cookie_session`); whether that session is still open is :meth:`instructor`'s question."""
        return cookie_session(value, self._signing)

    async def instructor(self, value: str | bytes | None) -> bool:
        """Whether ``value`` is an instructor cookie of this server's secret whose session is open.

        Asks the database off the event loop (:meth:`call`); a database that
        fails or is slow says no (one line in the log), never raises.
        """
        session = self.cookie_session(value)
        if session is None:
            return False
        try:
            return bool(await self.call("session_open", session))
        except (SQLAlchemyError, StoreSlow) as exc:
            log.warning("class: instructor session not read: %s", type(exc).__name__)
            return False

    def student_key(self) -> bytes | None:
        """The key student ids are signed with (:class:`.channel.StudentIds`): derived from the secret, so
        every process and every restart with it accepts the same ids; None without a secret."""
        if not self._signing:
            return None
        return hmac.new(self._signing.encode(), b"attention-explorable student ids", hashlib.sha256).digest()

    def known_cookie(self) -> bytes:
        """The value of :data:`KNOWN_COOKIE` for a browser that has just logged in (signed, like the instructor's)."""
        return create_signed_value(_cookie_secret(self._signing), KNOWN_COOKIE, _KNOWN_VALUE)

    def known_valid(self, value: str | bytes | None) -> bool:
        """Whether ``value`` is a :data:`KNOWN_COOKIE` of this server's secret, less than :data:`KNOWN_DAYS` old."""
        if not self._signing or not value:
            return False
        try:
            decoded = decode_signed_value(_cookie_secret(self._signing), KNOWN_COOKIE, value, max_age_days=KNOWN_DAYS)
        except Exception:  # noqa: BLE001 - any malformed cookie is simply not valid
            return False
        return decoded == _KNOWN_VALUE


def _cookie_secret(key: str) -> bytes:
    return hmac.new(key.encode(), b"attention-explorable instructor cookie", hashlib.sha256).digest()


def key_matches(given: str, key: str) -> bool:
    """Whether ``given`` is the instructor secret ``key`` (compared in constant time); never with no secret set."""
    return bool(key) and hmac.compare_digest(given.encode(), key.encode())


def signed_cookie(key: str, session: str) -> bytes:
    """The value of the instructor's cookie of ``session`` (an id of :meth:`.store.Store.open_session`),
    signed with a key derived from the secret ``key``.

    Raises
    ------
    ValueError
        If ``session`` is not such an id.
    """
    if not isinstance(session, str) or not _SESSION_ID.fullmatch(session):
        raise ValueError(f"session must be a session id of Store.open_session, got {session!r}")
    return create_signed_value(_cookie_secret(key), COOKIE, session)


def cookie_session(value: str | bytes | None, key: str) -> str | None:
    """The session id of ``value`` when it is an instructor cookie signed for the secret ``key``, less
    than 12 hours old; else None (no secret set: never)."""
    if not key or not value:
        return None
    try:
        decoded = decode_signed_value(_cookie_secret(key), COOKIE, value, max_age_days=COOKIE_DAYS)
    except Exception:  # noqa: BLE001 - any malformed cookie is simply not valid
        return None
    session = decoded.decode("ascii", "replace") if decoded else ""
    return session if _SESSION_ID.fullmatch(session) else None


#: PBKDF2 rounds of a kept secret. The secret is 96 random bits, not a word a person chose, so rounds add
#: little; few keep a login cheap on the server's event loop (about 5 ms).
PBKDF2_ITERATIONS = 10_000


def _hash(given: str, salt: bytes, iterations: int) -> bytes:
    return hashlib.pbkdf2_hmac("sha256", given.encode(), salt, iterations)


def make_record(secret: str) -> str:
    """The secret as it is kept: ``pbkdf2-sha256$iterations$salt$hash`` (base64), never the secret itself."""
    salt = secrets.token_bytes(16)
    digest = _hash(secret, salt, PBKDF2_ITERATIONS)
    b64 = lambda b: base64.urlsafe_b64encode(b).decode()  # noqa: E731
    return f"pbkdf2-sha256${PBKDF2_ITERATIONS}${b64(salt)}${b64(digest)}"


def record_matches(given: str, record: str) -> bool:
    """Whether ``given`` is the secret kept as ``record`` (:func:`make_record`); False for a malformed record."""
    try:
        scheme, iterations, salt, digest = record.split("$")
        if scheme != "pbkdf2-sha256":
            return False
        expected = base64.urlsafe_b64decode(digest)
        return hmac.compare_digest(_hash(given, base64.urlsafe_b64decode(salt), int(iterations)), expected)
    except (ValueError, TypeError):
        return False


def default_key_file() -> Path:
    """Where a secret the server made is kept: ``instructor-key`` in the user's data folder."""
    import platformdirs

    return Path(platformdirs.user_data_dir("attention-explorable", appauthor=False)) / "instructor-key"


def file_secret(path: Path) -> str | None:
    """The secret a person wrote into ``path`` (its first line, without surrounding spaces), or None when
    there is no such file, it is empty, or it holds a secret the server keeps (:func:`kept_secret`).

    Raises
    ------
    OSError
        If the file exists but cannot be read.
    UnicodeDecodeError
        If it is not UTF-8 text.
    """
    if not path.exists():
        return None
    lines = path.read_text("utf-8").strip().splitlines()
    first = lines[0].strip() if lines else ""
    return None if not first or first.startswith("pbkdf2-sha256$") else first


def kept_secret(path: Path) -> tuple[str, str]:
    """(record, new secret) of the instructor's kept secret at ``path``.

    A record already kept (a restart) gives ``(record, "")``: the secret is
    the one printed when it was made. Otherwise a new secret is made, its
    record written (readable by this user only) and both returned.

    Raises
    ------
    OSError
        If the file cannot be read or written (the message names it).
    """
    if path.exists():
        record = path.read_text("utf-8").strip()
        if record.startswith("pbkdf2-sha256$") and record.count("$") == 3:
            return record, ""
    secret = secrets.token_urlsafe(12)
    record = make_record(secret)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(record + "\n")
    os.replace(tmp, path)
    return record, secret
