"""Guards on two of Panel's and Bokeh's routes that ``attention-explorable serve`` would otherwise expose.

``attention-explorable serve`` installs both (:func:`install`,
:func:`refused_routes`); they guard a classroom server that any device on
the network can reach.

**Panel's ``/components/<module>/<class>/…`` route** imports whatever module
the URL names before it checks anything (``GET /components/this/x/y/z`` runs
``import this``; Panel 1.9 still does). No page of this product uses the
route, so :func:`refused_routes` puts a handler in front of it that answers
404 without importing anything.

**Autoload.** Bokeh's ``/<app>/autoload.js?bokeh-autoload-element=…`` (the
``server_document`` embedding) writes that argument unescaped into the
JavaScript it returns; anything but an element id is refused with 400.
Behind an auth provider (the instructor's app), a request without a user is
refused with 403 before Panel's handler runs (Panel 1.9's would log a
traceback for it: its ``get`` awaits the redirect's ``None``).

**The session socket.** Bokeh's ``/<app>/ws`` raises (and Tornado logs a
traceback) for every opening without its ``bokeh`` subprotocol and token,
or with a token that has expired; the guard closes such a socket with one
line in the log instead.

**Frames.** The pages of an app behind an auth provider (the
instructor's) are never shown inside another site's frame, where a page
could trick the instructor into pressing its buttons (clickjacking):
:data:`INSTRUCTOR_HEADERS` on the document, ``autoload.js`` and the login
pages (:mod:`attention_explorable.classroom.handlers`).

(Student pages need no guard of their own: they are prebuilt files,
:mod:`attention_explorable.page_server`; a page request costs a lookup.)
"""

from __future__ import annotations

import logging
import re

from tornado.web import HTTPError, RequestHandler

__all__ = ["install", "refused_routes"]

#: Headers of every instructor page: never inside a frame, no plugin, no ``<base>``, forms to itself only.
INSTRUCTOR_HEADERS = {
    "Content-Security-Policy": "frame-ancestors 'none'; object-src 'none'; base-uri 'none'; form-action 'self'",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",
}

_log = logging.getLogger(__name__)

#: What ``bokeh-autoload-element`` may be: an element id as Bokeh makes them.
_ELEMENT_ID = re.compile(r"[A-Za-z0-9_-]{1,100}")


class RefusedRoute(RequestHandler):
    """Answers 404 to every request of a route this product does not serve, importing nothing."""

    def prepare(self) -> None:
        raise HTTPError(404)


def refused_routes() -> list[tuple]:
    """Tornado rules to put before Panel's own (``pn.serve(extra_patterns=...)``)."""
    return [(r"/components/.*", RefusedRoute)]


def _behind_auth(handler: RequestHandler) -> bool:
    auth = handler.application.auth_provider
    return bool(auth.get_user or auth.get_user_async)


def _framed_never(handler: type) -> type:
    """A subclass of Bokeh's document handler that sends :data:`INSTRUCTOR_HEADERS` for an app behind auth."""

    class FramedNever(handler):
        def set_default_headers(self):
            super().set_default_headers()
            if _behind_auth(self):
                for name, value in INSTRUCTOR_HEADERS.items():
                    self.set_header(name, value)

    FramedNever.__name__ = FramedNever.__qualname__ = f"FramedNever{handler.__name__}"
    return FramedNever


def _checked(handler: type) -> type:
    """A subclass of Bokeh's autoload handler that refuses an element argument that is not an id."""

    class Checked(handler):
        def prepare(self):
            element = self.get_argument("bokeh-autoload-element", None)
            if element is not None and not _ELEMENT_ID.fullmatch(element):
                raise HTTPError(400, reason="bokeh-autoload-element must be an element id")
            if _behind_auth(self) and not self.current_user:
                raise HTTPError(403)
            return super().prepare()

    Checked.__name__ = Checked.__qualname__ = f"Checked{handler.__name__}"
    return Checked


def _quiet(handler: type) -> type:
    """A subclass of Bokeh's session socket that closes a socket Bokeh refuses with a line, not a traceback."""
    from bokeh.protocol.exceptions import ProtocolError

    class Quiet(handler):
        def open(self, *args, **kwargs):
            try:
                return super().open(*args, **kwargs)
            except ProtocolError as refused:  # Bokeh has closed the socket already
                _log.warning("session socket %s refused: %s", self.request.path, refused)
                return None

    Quiet.__name__ = Quiet.__qualname__ = f"Quiet{handler.__name__}"
    return Quiet


def install() -> None:
    """Check ``bokeh-autoload-element``, frame no app behind auth, and refuse a session socket quietly, in
    every Panel server this process starts afterwards (idempotent).

    Replaces the autoload, document and session-socket handlers in Bokeh's per-application
    routes (as Panel itself installs its own there) by subclasses.
    """
    import panel.io.server  # noqa: F401  (installs Panel's handlers first)
    from bokeh.server.urls import per_app_patterns

    for i, (route, handler, *rest) in enumerate(per_app_patterns):
        if route == r"/autoload.js" and not handler.__name__.startswith("Checked"):
            per_app_patterns[i] = (route, _checked(handler), *rest)
        elif route == r"/?" and not handler.__name__.startswith("FramedNever"):
            per_app_patterns[i] = (route, _framed_never(handler), *rest)
        elif route == r"/ws" and not handler.__name__.startswith("Quiet"):
            per_app_patterns[i] = (route, _quiet(handler), *rest)
