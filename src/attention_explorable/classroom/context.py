"""The class's context: the settings one server shares, and the instructor's signed cookie.

``attention-explorable serve`` makes one :class:`ClassContext` in
``cli.main`` from its options and hands it to what needs it: the class
socket (:mod:`.channel`), the instructor's page (:mod:`.instructor`) and its
HTTP endpoints (:mod:`.handlers`). Worker processes of ``--num-procs``
inherit it through the fork; each opens its own database engine.

The instructor's browser gets a cookie signed with a key derived from the
secret (tornado's signed values): HttpOnly, SameSite=Strict, valid 12
hours. Every process (and every machine) given the same secret accepts it;
the secret itself never travels in a URL.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import threading
from dataclasses import dataclass, field

from tornado.web import create_signed_value, decode_signed_value

from .limits import SessionCap
from .store import Store

#: Name of the instructor's cookie, and how long it is valid.
COOKIE = "ae_instructor"
COOKIE_DAYS = 0.5
_COOKIE_VALUE = b"instructor"


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
    """

    database_url: str
    instructor_key: str = ""
    public_urls: tuple[str, ...] = ()
    cap: SessionCap = field(default_factory=lambda: SessionCap(0))
    _stores: dict[int, Store] = field(default_factory=dict, init=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def store(self) -> Store:
        """This process's :class:`~.store.Store` of the database (one engine per process, never shared by a fork)."""
        pid = os.getpid()
        with self._lock:
            if pid not in self._stores:
                self._stores[pid] = Store(self.database_url)
            return self._stores[pid]

    def key_matches(self, given: str) -> bool:
        """Whether ``given`` is this server's instructor secret (see :func:`key_matches`)."""
        return key_matches(given, self.instructor_key)

    def signed_cookie(self) -> bytes:
        """The instructor's cookie for this server's secret (see :func:`signed_cookie`)."""
        return signed_cookie(self.instructor_key)

    def cookie_valid(self, value: str | bytes | None) -> bool:
        """Whether ``value`` is an instructor cookie of this server's secret (see :func:`cookie_valid`)."""
        return cookie_valid(value, self.instructor_key)


def _cookie_secret(key: str) -> bytes:
    return hmac.new(key.encode(), b"attention-explorable instructor cookie", hashlib.sha256).digest()


def key_matches(given: str, key: str) -> bool:
    """Whether ``given`` is the instructor secret ``key`` (compared in constant time); never with no secret set."""
    return bool(key) and hmac.compare_digest(given.encode(), key.encode())


def signed_cookie(key: str) -> bytes:
    """The value of the instructor's cookie, signed with a key derived from the secret ``key``."""
    return create_signed_value(_cookie_secret(key), COOKIE, _COOKIE_VALUE)


def cookie_valid(value: str | bytes | None, key: str) -> bool:
    """Whether ``value`` is an instructor cookie signed for the secret ``key``, less than 12 hours old."""
    if not key or not value:
        return False
    try:
        decoded = decode_signed_value(_cookie_secret(key), COOKIE, value, max_age_days=COOKIE_DAYS)
    except Exception:  # noqa: BLE001 - any malformed cookie is simply not valid
        return False
    return decoded == _COOKIE_VALUE
