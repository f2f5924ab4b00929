"""A cap on what one client may hold open in one server process: class sockets and instructor pages.

A script that opens connections in a loop could exhaust the server.
:class:`SessionCap` counts, per client address (as the server sees it:
behind a proxy pass ``--use-xheaders``), the class sockets
(:mod:`.channel`, which refuses one more with the reason ``busy``) and the
instructor's live pages (:meth:`SessionCap.guard` wraps their builder: one
more gets a page that says so instead of a session, counted until Bokeh
discards it, some seconds after its tab is closed).

The count is per process: it guards that process's memory, the resource
it protects. (With ``--num-procs N`` a client may hold up to N x limit.)

:class:`RateLimit` counts what a key (a student, an address) may do a
second, in memory: the class socket asks it before a submission reaches the
database, so a flood refused for its rate costs no query.
"""

from __future__ import annotations

import errno
import functools
import html
import logging
import math
import threading
import time
from collections import Counter

from ..strings import text

#: Default sessions per client (``--max-sessions-per-client``; 0: no cap).
DEFAULT_LIMIT = 20


def client_address() -> str:
    """The address of the client whose session is being built ('' outside a server session)."""
    import panel as pn  # (here, not above: the command line reads this module's defaults at once)

    doc = pn.state.curdoc
    if doc is None or doc.session_context is None:
        return ""
    request = doc.session_context.request
    return str(getattr(request, "remote_ip", "") or "")


class SessionCap:
    """At most ``limit`` open sessions per client address (``limit`` 0: no cap).

    >>> cap = SessionCap(2)
    >>> [cap.admit("10.0.0.1") for _ in range(3)]
    [True, True, False]
    >>> cap.release("10.0.0.1"); cap.admit("10.0.0.1")
    True
    """

    def __init__(self, limit: int = DEFAULT_LIMIT):
        self.limit = limit
        self.open: Counter[str] = Counter()
        self._lock = threading.Lock()

    def admit(self, client: str) -> bool:
        """Count a new session of ``client``; False (not counted) when it has ``limit`` already."""
        with self._lock:
            if self.limit and self.open[client] >= self.limit:
                return False
            self.open[client] += 1
            return True

    def release(self, client: str) -> None:
        with self._lock:
            self.open[client] -= 1
            if self.open[client] <= 0:
                del self.open[client]

    def guard(self, builder, language: str = "zh"):
        """``builder`` wrapped: a refused client gets a page with the reason (class ``ae-session-refused``)."""

        import panel as pn

        @functools.wraps(builder)
        def guarded(*args, **kwargs):
            client = client_address()
            if not client:
                return builder(*args, **kwargs)
            if not self.admit(client):
                message = text("class_too_many_sessions", language, limit=self.limit)
                return pn.pane.HTML(
                    f"<h1 class='ae-session-refused' role='alert' style='font-size:20px'>{html.escape(message)}</h1>",
                    sizing_mode="stretch_width",
                )
            pn.state.curdoc.on_session_destroyed(lambda _ctx: self.release(client))
            return builder(*args, **kwargs)

        return guarded


class RateLimit:
    """At most ``burst`` events at once per key, then ``per_second`` more a second (a token bucket, in memory).

    Parameters
    ----------
    per_second : float
        Events a key is given back a second (> 0).
    burst : float
        Events a key may spend at once, and the most it saves up (>= 1).

    Raises
    ------
    ValueError
        If ``per_second`` is not a positive number or ``burst`` is less than 1.

    >>> limit = RateLimit(per_second=1.0, burst=2)
    >>> [limit.allow("a", now=0.0) for _ in range(3)], limit.allow("a", now=1.0), limit.allow("b", now=0.0)
    ([True, True, False], True, True)
    """

    def __init__(self, per_second: float, burst: float = 1.0):
        if isinstance(per_second, bool) or not isinstance(per_second, (int, float)) or not per_second > 0:
            raise ValueError(f"per_second must be a positive number, got {per_second!r}")
        if isinstance(burst, bool) or not isinstance(burst, (int, float)) or not burst >= 1:
            raise ValueError(f"burst must be a number of at least 1, got {burst!r}")
        self.per_second, self.burst = float(per_second), float(burst)
        self._left: dict = {}  # key: (events it may spend, when that was counted: s of time.monotonic)

    def allow(self, key, now: float | None = None) -> bool:
        """Whether ``key`` may do one more event at ``now`` (s, ``time.monotonic``), counted when so."""
        now = time.monotonic() if now is None else now
        if len(self._left) > 10_000:  # many keys: forget those that have saved up their whole burst again
            self._left = {k: v for k, v in self._left.items() if v[0] + (now - v[1]) * self.per_second < self.burst}
        left, at = self._left.get(key, (self.burst, now))
        left = min(self.burst, left + max(0.0, now - at) * self.per_second)
        if left < 1.0:
            self._left[key] = (left, now)
            return False
        self._left[key] = (left - 1.0, now)
        return True


# --- the server's own limits: open files, connections per address, a quiet log at exhaustion --------------

#: Default plain HTTP connections one client address may hold open at once (``--max-connections-per-client``).
#: A browser holds about six per server; a lecture hall behind one NAT address shares it, hence generous.
DEFAULT_CONNECTIONS = 1000


def raise_open_files() -> tuple[int, int]:
    """Raise this process's soft limit of open files to its hard limit; return (before, after).

    Every student's browser holds a few connections, each a descriptor; the
    usual soft limit of 1024 is reached by about 200 students. (0, 0) where
    the platform has no such limit.
    """
    try:
        import resource
    except ImportError:  # pragma: no cover - not on Linux or macOS
        return 0, 0
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = hard if hard != resource.RLIM_INFINITY else max(soft, 65536)
    if soft != resource.RLIM_INFINITY and soft < target:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        except (ValueError, OSError):
            return soft, soft
        return soft, target
    return soft, soft


class ConnectionCap:
    """At most ``limit`` open HTTP connections per client address on one tornado ``HTTPServer``.

    :meth:`install` wraps the server's ``handle_stream`` and ``on_close``: a
    connection beyond the limit is closed as it is accepted, before a byte of
    it is read, so one address that opens connections in a loop (or leaves
    requests half-sent) holds at most ``limit`` descriptors and the rest of
    the class is served. A class socket counts until its upgrade (then the
    class's :class:`SessionCap` counts it). ``limit`` 0: no cap. Refusals are
    logged once a minute per address, with their number.
    """

    def __init__(self, limit: int = DEFAULT_CONNECTIONS):
        if limit < 0:
            raise ValueError(f"limit must be 0 (no limit) or more, got {limit!r}")
        self.limit = limit
        self.open: Counter[str] = Counter()
        self._of: dict[int, str] = {}
        self._refused: dict[str, tuple[float, int]] = {}

    def install(self, http_server) -> None:
        """Count the connections of ``http_server`` (a ``tornado.httpserver.HTTPServer``)."""
        if not self.limit:
            return
        handle_stream, on_close = http_server.handle_stream, http_server.on_close

        def counted_stream(stream, address):
            client = str(address[0]) if isinstance(address, tuple) and address else "?"
            if self.open[client] >= self.limit:
                self._note_refused(client)
                stream.close()
                return
            self.open[client] += 1
            self._of[id(stream)] = client
            handle_stream(stream, address)

        def counted_close(server_conn):
            client = self._of.pop(id(getattr(server_conn, "stream", None)), None)
            if client is not None:
                self.open[client] -= 1
                if self.open[client] <= 0:
                    del self.open[client]
            on_close(server_conn)

        http_server.handle_stream, http_server.on_close = counted_stream, counted_close

    def _note_refused(self, client: str) -> None:
        import logging
        import time

        now = time.monotonic()
        since, count = self._refused.get(client, (0.0, 0))
        if now - since >= 60.0:
            logging.getLogger(__name__).warning(
                "server: connections from %s refused beyond %d open at once%s",
                client,
                self.limit,
                f" ({count} more in the last minute)" if count else "",
            )
            self._refused[client] = (now, 0)
        else:
            self._refused[client] = (since, count + 1)


#: The loggers whose lines can flood (one line per try of a loop that keeps failing, or per connection):
#: asyncio's, tornado's, and this package's own; their children too.
FLOODING_LOGGERS = ("asyncio", "tornado.access", "tornado.application", "tornado.general", "attention_explorable")


class OncePerInterval(logging.Filter):
    """A logging filter: one line per kind of failure per ``seconds``, whatever logger of ``names`` says it.

    A kind is the logger's name and the exception's type (and an ``OSError``'s
    errno); of tornado's access log, the response's status (its 4xx and 5xx
    lines). Other records without an exception are lines of their own and
    pass unchanged. The first record of a kind in an interval is written, with its
    traceback the first time that kind is seen in the process and on one line
    after that; the others of the interval are counted, not written, and the
    next line of that kind says how many were left out. Running out of file
    descriptors (tornado's accept loop logs the same ``EMFILE`` traceback for
    every try, tens of thousands a minute) is said in plain words. Records
    below WARNING, and of other loggers, pass unchanged. The filter may sit
    on several handlers: a record is judged once. ``clock`` gives the time
    in seconds (``time.monotonic``).
    """

    def __init__(self, seconds: float = 10.0, names: tuple[str, ...] = FLOODING_LOGGERS, clock=time.monotonic):
        super().__init__()
        self.seconds, self.names, self.clock = seconds, tuple(names), clock
        self._last: dict[tuple, tuple[float, int]] = {}  # kind -> (when last written, how many left out since)
        self._traced: set[tuple] = set()
        self._lock = threading.Lock()

    def _watched(self, name: str) -> bool:
        return any(name == n or name.startswith(n + ".") for n in self.names)

    def filter(self, record) -> bool:
        """Whether ``record`` is written (rewritten to one line, with the count left out, when it is)."""
        judged = getattr(record, "_ae_once", None)
        if judged is not None:  # the same record on another handler
            return judged
        if record.levelno < logging.WARNING or not self._watched(record.name):
            return True
        exc = record.exc_info[1] if record.exc_info else None
        kind = _kind(record, exc)
        if kind is None:  # a line of its own (a refusal, a room not read): as it is
            return True
        now = self.clock()
        with self._lock:
            written, left_out = self._last.get(kind, (-math.inf, 0))
            record._ae_once = now - written >= self.seconds
            if not record._ae_once:
                self._last[kind] = (written, left_out + 1)
                return False
            self._last[kind] = (now, 0)
            traced = kind in self._traced
            self._traced.add(kind)
        line = record.getMessage()
        if isinstance(exc, OSError) and exc.errno in (errno.EMFILE, errno.ENFILE):
            line = (
                f"server: out of file descriptors ({exc.strerror}); new connections wait "
                f"(said once per {self.seconds:g} s)"
            )
        elif exc is not None and traced:
            line = f"{line} ({type(exc).__name__}: {exc})"
        if left_out:
            line = f"{line} [{left_out} more like it in {now - written:.0f} s, not written]"
        record.msg, record.args = line, ()
        if line.startswith("server: out of file descriptors") or traced:
            record.exc_info, record.exc_text = None, None  # one line: its traceback was written once
        return True


def _kind(record, exc) -> tuple | None:
    """The kind of failure ``record`` says, for :class:`OncePerInterval`; None for a line of its own."""
    if exc is not None:
        return record.name, type(exc).__name__, getattr(exc, "errno", None)
    if record.name == "tornado.access" and isinstance(record.args, tuple) and record.args:
        return record.name, record.args[0]  # tornado writes "%d %s %.2fms": the status first
    return None


def quiet_floods(seconds: float = 10.0) -> OncePerInterval:
    """Write the lines of :data:`FLOODING_LOGGERS` at most once per kind of failure per ``seconds``.

    The filter sits on the root logger's handlers, which every logger's lines
    reach (a child's too, which a filter on its parent logger would not see);
    without a handler yet, the root logger gets one on standard error first
    (``logging.basicConfig``), as Python's last resort would write there.
    Returns the filter.
    """
    quiet = OncePerInterval(seconds)
    if not logging.root.handlers:
        logging.basicConfig()
    for handler in logging.root.handlers:
        handler.addFilter(quiet)
    return quiet


def log_failure(future) -> None:
    """A done-callback for a task or future nobody awaits: its exception, retrieved and logged.

    Retrieved, it is never "Task exception was never retrieved"; logged
    through the package's logger, it is one line per kind per interval
    (:func:`quiet_floods`). A cancelled one says nothing.
    """
    if future.cancelled():
        return
    exc = future.exception()
    if exc is not None:
        logging.getLogger(__name__).error("server: a task failed", exc_info=(type(exc), exc, exc.__traceback__))
