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

**Frames and scripts.** The pages of an app behind an auth provider (the
instructor's) are never shown inside another site's frame, where a page
could trick the instructor into pressing its buttons (clickjacking):
:data:`INSTRUCTOR_HEADERS` on the document, ``autoload.js`` and the login
pages (:mod:`attention_explorable.classroom.handlers`). Their
Content-Security-Policy runs only the page's own scripts
(:func:`instructor_policy`, made for each page as it is sent:
:class:`PagePolicy`): Bokeh's files from this server and the inline
scripts of that very response, by a nonce of that response, so a script
injected into the page (or one from another site) does not run.

(Student pages need no guard of their own: they are prebuilt files,
:mod:`attention_explorable.page_server`; a page request costs a lookup.)
"""

from __future__ import annotations

import logging
import re
import secrets

from tornado.web import HTTPError, RequestHandler

__all__ = ["PagePolicy", "install", "instructor_policy", "refused_routes", "with_nonce"]

#: A script element that loads a file (``'self'`` then allows this server's files).
_SCRIPT_FILE = re.compile(r"<script\b[^>]*\bsrc=", re.I)
#: A whole script element: its opening tag's attributes, and its text.
_SCRIPT_ELEMENT = re.compile(r"<script\b([^>]*)>(.*?)</script>", re.I | re.S)
#: What BokehJS and Panel need beyond their files: BokehJS imports the document's module callbacks
#: (``CustomJS(module=True)``, sent by this server) from ``blob:`` URLs through a function made from a
#: string, and Panel's ``ReactiveHTML`` renders its templates with ``new Function``. Neither runs markup
#: injected into the page: inline scripts and event-handler attributes stay refused.
_BOKEH_SCRIPTS = ["'unsafe-eval'", "blob:"]


def instructor_policy(page: str, nonce: str = "") -> str:
    """The Content-Security-Policy of instructor page ``page`` (its HTML; empty for a redirect).

    Scripts: this server's files when the page loads any (``'self'``, and
    what BokehJS and Panel make of them: :data:`_BOKEH_SCRIPTS`), and the
    inline scripts that carry ``nonce`` (:func:`with_nonce`), else none; no
    plugin, no ``<base>``, never inside a frame, forms to this server only.
    """
    scripts = ["'self'", *_BOKEH_SCRIPTS] if _SCRIPT_FILE.search(page) else []
    scripts += [f"'nonce-{nonce}'"] if nonce else []
    return "; ".join(
        [
            "script-src " + (" ".join(scripts) or "'none'"),
            "object-src 'none'",
            "base-uri 'none'",
            "frame-ancestors 'none'",
            "form-action 'self'",
        ]
    )


def with_nonce(page: str, nonce: str) -> str:
    """``page`` with ``nonce`` on each of its inline script elements (whole elements: a ``<script`` in a
    script's text, such as the document's JSON, is left as it is).

    The nonce goes on every inline script the server wrote, so that
    es-module-shims (which Panel loads) finds it and gives it to the script
    of its feature test; a script added to the page later has none.
    """

    def tag(m: re.Match) -> str:
        attrs = m.group(1)
        if re.search(r"\bsrc=", attrs, re.I):
            return m.group(0)
        return f'<script nonce="{nonce}"{attrs}>{m.group(2)}</script>'

    return _SCRIPT_ELEMENT.sub(tag, page)


#: Headers of every instructor page: never inside a frame, no plugin, no ``<base>``, forms to itself only;
#: no script until :class:`PagePolicy` allows the page's own.
INSTRUCTOR_HEADERS = {
    "Content-Security-Policy": instructor_policy(""),
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",
}


class PagePolicy:
    """Mixin of a tornado handler of an instructor page: the page it sends is held until it finishes, its
    inline scripts get a nonce of this response (:func:`with_nonce`), and its Content-Security-Policy is
    :func:`instructor_policy` of that page and nonce. (A handler that flushes early is not for it.)"""

    def _policy_applies(self) -> bool:
        return True

    def write(self, chunk) -> None:
        if self._policy_applies() and isinstance(chunk, (bytes, str)):
            self.__dict__.setdefault("_ae_page", []).append(chunk.encode() if isinstance(chunk, str) else chunk)
            return
        super().write(chunk)

    def finish(self, chunk=None):
        if chunk is not None:
            self.write(chunk)
        if self._policy_applies():
            page = b"".join(self.__dict__.pop("_ae_page", [])).decode("utf-8", "surrogateescape")  # bytes kept
            nonce = secrets.token_urlsafe(18) if "<script" in page else ""
            if nonce:
                page = with_nonce(page, nonce)
            self.set_header("Content-Security-Policy", instructor_policy(page, nonce))
            if page:
                super().write(page.encode("utf-8", "surrogateescape"))
        return super().finish()


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
    """A subclass of Bokeh's document handler that sends :data:`INSTRUCTOR_HEADERS` for an app behind auth,
    and the policy of its page (:class:`PagePolicy`)."""

    class FramedNever(PagePolicy, handler):
        def set_default_headers(self):
            super().set_default_headers()
            if _behind_auth(self):
                for name, value in INSTRUCTOR_HEADERS.items():
                    self.set_header(name, value)

        def _policy_applies(self) -> bool:
            return _behind_auth(self)

        async def head(self, *args, **kwargs):
            # A page that reconnects by itself asks with HEAD whether the server is back (web/connection.js):
            # it gets an answer without a body and without a session built, not a 405 and its log line.
            self.set_status(204)

    FramedNever.__name__ = FramedNever.__qualname__ = f"FramedNever{handler.__name__}"
    return FramedNever


def _checked(handler: type) -> type:
    """A subclass of Bokeh's autoload handler that refuses an element argument that is not an id."""

    class Checked(handler):
        async def prepare(self):
            element = self.get_argument("bokeh-autoload-element", None)
            if element is not None and not _ELEMENT_ID.fullmatch(element):
                raise HTTPError(400, reason="bokeh-autoload-element must be an element id")
            await super().prepare()  # the user, when the auth provider's is asynchronous
            if _behind_auth(self) and not self.current_user:
                raise HTTPError(403)

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
