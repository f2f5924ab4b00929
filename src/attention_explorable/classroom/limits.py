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
"""

from __future__ import annotations

import functools
import html
import threading
from collections import Counter

import panel as pn

from ..strings import text

#: Default sessions per client (``--max-sessions-per-client``; 0: no cap).
DEFAULT_LIMIT = 20


def client_address() -> str:
    """The address of the client whose session is being built ('' outside a server session)."""
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

        @functools.wraps(builder)
        def guarded(*args, **kwargs):
            client = client_address()
            if not client:
                return builder(*args, **kwargs)
            if not self.admit(client):
                message = text("class_too_many_sessions", language, limit=self.limit)
                return pn.pane.HTML(f"<h1 class='ae-session-refused' role='alert' style='font-size:20px'>"
                                    f"{html.escape(message)}</h1>", sizing_mode="stretch_width")
            pn.state.curdoc.on_session_destroyed(lambda _ctx: self.release(client))
            return builder(*args, **kwargs)

        return guarded
