"""The server's doors: a route this product refuses, and page builds bounded per client.

``attention-explorable serve`` installs both (:func:`install`); they guard a
classroom server that any device on the network can reach.

**Panel's ``/components/<module>/<class>/…`` route** imports whatever module
the URL names before it checks anything (``GET /components/this/x/y/z`` runs
``import this``; Panel 1.9 still does). No page of this product uses the
route, so :func:`refused_routes` puts a handler in front of it that answers
404 without importing anything.

**Page builds.** Building a page is Python work on the server's one event
loop: the fully built textbook takes about a second. A client that asks for
ten pages at once made every other student wait for all ten (the loop reads
one request per build, in arrival order). The document and autoload handlers
therefore build pages in turns: one at a time, with a short pause in which
the server reads what has arrived, and clients (by IP address, or the
proxy's ``X-Forwarded-For`` with ``--use-xheaders``) in rotation, so that
another student's page comes after at most the one build under way. A client with more than :data:`MAX_WAITING_PER_CLIENT`
pages waiting, or a server with more than :data:`MAX_WAITING` in all, gets
``429 Too Many Requests`` with a ``Retry-After``, never a stall of the others.

**Autoload.** Bokeh's ``/<app>/autoload.js?bokeh-autoload-element=…`` (the
``server_document`` embedding of docs/embedding.md) writes that argument
unescaped into the JavaScript it returns; anything but an element id is
refused with 400.

Measured by ``tests/test_doors.py`` (10 parallel fully built textbooks from
one client, then another client's ``/steps``) and ``benchmarks/burst.py``.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections import deque

from tornado.web import HTTPError, RequestHandler

__all__ = ["MAX_WAITING", "MAX_WAITING_PER_CLIENT", "install", "refused_routes"]

#: Pages one client may have waiting to be built; the next one is refused with 429.
MAX_WAITING_PER_CLIENT = 16
#: Pages all clients together may have waiting; the next one is refused with 429.
MAX_WAITING = 400
#: What ``bokeh-autoload-element`` may be: an element id as Bokeh makes them.
_ELEMENT_ID = re.compile(r"[A-Za-z0-9_-]{1,100}")
#: Seconds between two page builds in a row, in which the server reads the requests that came meanwhile.
_PAUSE_S = 0.1


class RefusedRoute(RequestHandler):
    """Answers 404 to every request of a route this product does not serve, importing nothing."""

    def prepare(self) -> None:
        raise HTTPError(404)


def refused_routes() -> list[tuple]:
    """Tornado rules to put before Panel's own (``pn.serve(extra_patterns=...)``)."""
    return [(r"/components/.*", RefusedRoute)]


class _Turns:
    """Page builds taken in turns: one at a time, a pause between builds, the least recently served client first.

    The pause lets the event loop read the requests that arrived meanwhile (a
    build holds the loop, and without it the loop would read them one per
    build, in arrival order); then another client's page comes before a
    client's next one.
    """

    def __init__(self):
        self.queues: dict[str, deque[asyncio.Future]] = {}
        self.served: dict[str, float] = {}
        self.total = 0
        self.busy = False

    def waiting(self, client: str) -> int:
        return len(self.queues.get(client, ()))

    async def build(self, client: str, build):
        if self.waiting(client) >= MAX_WAITING_PER_CLIENT or self.total >= MAX_WAITING:
            raise HTTPError(429, reason="Too many pages requested at once")
        turn = asyncio.get_running_loop().create_future()
        self.queues.setdefault(client, deque()).append(turn)
        self.total += 1
        if not self.busy:  # an idle server builds at once
            self.busy = True
            asyncio.get_running_loop().call_soon(self._next)
        try:
            await turn
        except BaseException:
            self._forget(client, turn)
            raise
        try:
            return await build()
        finally:
            asyncio.get_running_loop().call_later(_PAUSE_S, self._next)

    def _forget(self, client: str, turn: asyncio.Future) -> None:
        queue = self.queues.get(client)
        if queue and turn in queue:
            queue.remove(turn)
            self.total -= 1
            if not queue:
                del self.queues[client]

    def _next(self) -> None:
        while self.queues:
            # the client served longest ago (or never) goes first
            client = min(self.queues, key=lambda c: self.served.get(c, float("-inf")))
            queue = self.queues[client]
            turn = queue.popleft()
            self.total -= 1
            if not queue:
                del self.queues[client]
            if not turn.done():
                self.served[client] = time.monotonic()
                if len(self.served) > 4 * MAX_WAITING:  # forget the long-gone
                    for gone in sorted(self.served, key=self.served.get)[:MAX_WAITING]:
                        del self.served[gone]
                turn.set_result(None)
                return
        self.busy = False


_turns = _Turns()


def _bounded(handler: type) -> type:
    """A subclass of ``handler`` whose ``get`` (the page build and its HTML) waits for its turn."""

    class Bounded(handler):
        def prepare(self):
            # Bokeh writes this argument unescaped into the JavaScript it returns; an element id
            # needs none of the characters that could break out of it.
            element = self.get_argument("bokeh-autoload-element", None)
            if element is not None and not _ELEMENT_ID.fullmatch(element):
                raise HTTPError(400, reason="bokeh-autoload-element must be an element id")
            return super().prepare()

        async def get(self, *args, **kwargs):
            # the whole page in its turn: the build, and the page's HTML made from it
            return await _turns.build(self.request.remote_ip or "", lambda: super(Bounded, self).get(*args, **kwargs))

        def write_error(self, status_code: int, **kwargs) -> None:
            if status_code == 429:
                self.set_header("Retry-After", "2")
                self.set_header("Content-Type", "text/plain; charset=utf-8")
                self.finish("Too many pages requested at once from this device; reload in a moment.\n")
                return
            super().write_error(status_code, **kwargs)

    Bounded.__name__ = Bounded.__qualname__ = f"Bounded{handler.__name__}"
    return Bounded


def install() -> None:
    """Bound page builds per client in every Panel server this process starts afterwards (idempotent).

    Replaces the document and autoload handlers in Bokeh's per-application
    routes (as Panel itself installs its own there) by subclasses that build
    one page at a time per client.
    """
    import panel.io.server  # noqa: F401  (installs Panel's handlers first)
    from bokeh.server.urls import per_app_patterns

    for i, (route, handler, *rest) in enumerate(per_app_patterns):
        if route in (r"/?", r"/autoload.js") and not handler.__name__.startswith("Bounded"):
            per_app_patterns[i] = (route, _bounded(handler), *rest)
