"""Settings of the class, read from the environment, and the instructor's signed cookie.

``attention-explorable serve`` writes its options into the environment
before the server starts (worker processes of ``--num-procs`` inherit it):

* ``AE_DB`` -- the database URL (default :func:`store.default_url`);
* ``AE_INSTRUCTOR_KEY`` -- the instructor secret;
* ``AE_PUBLIC_URLS`` -- the base URLs students can reach, space-separated
  (the machine's LAN addresses), for the join URL and its QR code;

The instructor's browser gets a cookie signed with a key derived from the
secret (tornado's signed values): HttpOnly, SameSite=Strict, valid 12
hours. Every process (and every machine) given the same secret accepts it;
the secret itself never travels in a URL.
"""

from __future__ import annotations

import hashlib
import hmac
import os

from tornado.web import create_signed_value, decode_signed_value

from .store import Store, default_url, store_for

DB_ENV = "AE_DB"
KEY_ENV = "AE_INSTRUCTOR_KEY"
PUBLIC_URLS_ENV = "AE_PUBLIC_URLS"
#: Name of the instructor's cookie, and how long it is valid.
COOKIE = "ae_instructor"
COOKIE_DAYS = 0.5
_COOKIE_VALUE = b"instructor"


def database_url() -> str:
    """The database of the class: ``AE_DB``, else the SQLite file in the user's data folder."""
    return os.environ.get(DB_ENV, "").strip() or default_url()


def store() -> Store:
    """This process's :class:`~.store.Store` of :func:`database_url`."""
    return store_for(database_url())


def instructor_key() -> str:
    """The instructor secret (``AE_INSTRUCTOR_KEY``); empty when none is set."""
    return os.environ.get(KEY_ENV, "")


def public_urls() -> list[str]:
    """Base URLs students can reach (``http://192.168.1.5:8080``), from ``AE_PUBLIC_URLS``."""
    return [u.rstrip("/") for u in os.environ.get(PUBLIC_URLS_ENV, "").split() if u]


def _cookie_secret(key: str) -> bytes:
    return hmac.new(key.encode(), b"attention-explorable instructor cookie", hashlib.sha256).digest()


def key_matches(given: str, key: str | None = None) -> bool:
    """Whether ``given`` is the instructor secret (compared in constant time); never with no secret set."""
    key = instructor_key() if key is None else key
    return bool(key) and hmac.compare_digest(given.encode(), key.encode())


def signed_cookie(key: str | None = None) -> bytes:
    """The value of the instructor's cookie, signed with a key derived from the secret."""
    key = instructor_key() if key is None else key
    return create_signed_value(_cookie_secret(key), COOKIE, _COOKIE_VALUE)


def cookie_valid(value: str | bytes | None, key: str | None = None) -> bool:
    """Whether ``value`` is an instructor cookie signed for this secret, less than 12 hours old."""
    key = instructor_key() if key is None else key
    if not key or not value:
        return False
    try:
        decoded = decode_signed_value(_cookie_secret(key), COOKIE, value, max_age_days=COOKIE_DAYS)
    except Exception:  # noqa: BLE001 - any malformed cookie is simply not valid
        return False
    return decoded == _COOKIE_VALUE
