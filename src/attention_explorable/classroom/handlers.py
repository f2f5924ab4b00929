"""The instructor's HTTP endpoints beside the Bokeh apps (tornado handlers), and the gate in front of the app.

``GET /instructor/login``
    The login form as a plain page (no Bokeh session): where
    :class:`InstructorAuth` sends a browser without the instructor's cookie
    (``?next=/instructor?room=CODE`` keeps the room; only the room and the
    language are read from it, never followed).
``POST /instructor/login``
    The login form's secret. The form carries Tornado's XSRF token, whose
    cookie (``_xsrf``: HttpOnly, SameSite=Strict, for ``/instructor``) only
    this server's form page sets: a post without both (another site's page,
    a script) is refused with 403 and the form again, and counts as no
    failure, so it cannot lock the instructor out. Right secret: a signed,
    HttpOnly, SameSite=Strict cookie, the browser remembered as the
    instructor's (:data:`.context.KNOWN_COOKIE`), and a redirect (303) to
    ``/instructor``. Wrong: a 403 page with the form again. Failures are
    counted in the database (so every process agrees) per address and per
    browser (:meth:`.store.Store.login_allowed`): beyond the limit, 429, the
    secret not even compared; the instructor's own browser is held only to
    its own failures.
``POST /instructor/logout``
    Ends this browser's session: the session is closed in the database (its
    cookie, even copied, opens nothing afterwards) and the cookie cleared,
    then a redirect (303) to the login form. Only from this server's own
    pages: the cookie is SameSite=Strict, and a post whose ``Origin`` is
    another site is refused (403).
``GET /instructor/rooms/CODE.csv``
    Every round of the room as CSV (formula cells neutralised; a stored value
    it cannot read is an empty cell, never a failed download), for the
    instructor's cookie only; otherwise a 403 page.

Nothing here logs a secret or puts it in a URL.

:class:`InstructorAuth` is Bokeh's auth provider for ``pn.serve``: the
instructor's document, its ``autoload.js`` and its socket are built only
for a valid cookie, checked in Tornado before Bokeh makes a session. So the
app never needs the cookie, and the server leaves it (and the raw
``Cookie`` header) out of the session token that Bokeh writes into the
page (:data:`SESSION_EXCLUDES`).
"""

from __future__ import annotations

import hashlib
import html
import logging
from functools import lru_cache
from importlib import resources
from urllib.parse import parse_qs, urlsplit

import jinja2
from bokeh.server.auth_provider import AuthProvider
from sqlalchemy.exc import SQLAlchemyError
from tornado.web import HTTPError, RequestHandler

from ..apps import LANGUAGE_COOKIE
from ..route_guards import INSTRUCTOR_HEADERS, PagePolicy
from ..strings import DEFAULT_LANGUAGE, HTML_LANG, STRINGS, text
from .context import COOKIE, COOKIE_DAYS, KNOWN_COOKIE, KNOWN_DAYS, ClassContext, StoreSlow
from .instructor import CSS, login_form_html
from .questions import question_keys
from .store import normalise_code

log = logging.getLogger(__name__)


#: Where a browser without the instructor's cookie is sent (relative to the server's root).
LOGIN_PATH = "/instructor/login"
#: The login form's XSRF cookie: for the instructor's pages only, never sent by another site's request.
XSRF_COOKIE = {"path": "/instructor", "httponly": True, "samesite": "Strict"}

#: What Bokeh must not copy from the request into a session token (``pn.serve(**SESSION_EXCLUDES)``):
#: the token is written into the page and ``autoload.js``, readable by any script on the origin.
SESSION_EXCLUDES = {"exclude_cookies": [COOKIE], "exclude_headers": ["Cookie", "Authorization"]}


class InstructorAuth(AuthProvider):
    """Bokeh's gate in front of the instructor's app: only the instructor's cookie gets a session.

    ``get_user_async`` is ``"instructor"`` for a signed cookie of
    ``context``'s secret whose session is open
    (:meth:`.context.ClassContext.instructor`, a database read off the event
    loop), else None, and Bokeh then sends the page to :data:`LOGIN_PATH`
    and refuses the socket (403). Checked per request in Tornado: a page
    without the cookie costs a redirect, no session and no database read.
    """

    def __init__(self, context: ClassContext):
        self.context = context
        super().__init__()

    @property
    def get_user_async(self):
        return self._user

    @property
    def login_url(self) -> str:
        return LOGIN_PATH

    async def _user(self, handler: RequestHandler) -> str | None:
        return "instructor" if await self.context.instructor(handler.get_cookie(COOKIE)) else None


@lru_cache(maxsize=None)
def _template() -> jinja2.Template:
    source = resources.files("attention_explorable").joinpath("templates", "classroom_message.html")
    return jinja2.Environment(autoescape=True).from_string(source.read_text("utf-8"))


def message_page(language: str, body_html: str) -> str:
    """A whole HTML page around ``body_html`` (already escaped), in ``language``."""
    return _template().render(
        lang=HTML_LANG.get(language, language), title=text("instructor_title", language), css=CSS, body=body_html
    )


def _instructor_url(room: str | None, language: str) -> str:
    """``/instructor`` with the room (a valid code only) and the language when it is not the default."""
    query = [f"room={room}"] if room else []
    query += [] if language == DEFAULT_LANGUAGE else [f"lang={language}"]
    return "/instructor" + ("?" + "&".join(query) if query else "")


class _Base(PagePolicy, RequestHandler):
    def initialize(self, context: ClassContext) -> None:
        self.context = context

    def set_default_headers(self) -> None:
        for name, value in INSTRUCTOR_HEADERS.items():
            self.set_header(name, value)

    @property
    def settings(self) -> dict:
        """The application's settings, with this server's XSRF cookie (:data:`XSRF_COOKIE`)."""
        return {**self.application.settings, "xsrf_cookie_kwargs": XSRF_COOKIE}

    def _language(self) -> str:
        """The form's ``language``, else the reader's remembered choice (the ``ae-lang`` cookie), else Chinese."""
        for lang in (self.get_argument("language", None), self.get_cookie(LANGUAGE_COOKIE)):
            if lang in STRINGS:
                return lang
        return DEFAULT_LANGUAGE

    def _page(self, status: int, body_html: str, language: str | None = None) -> None:
        self.set_status(status)
        self.set_header("Content-Type", "text/html; charset=UTF-8")
        self.set_header("Cache-Control", "no-store")
        self.finish(message_page(language or self._language(), body_html))

    async def _instructor(self) -> bool:
        return await self.context.instructor(self.get_cookie(COOKIE))


class LoginHandler(_Base):
    """``/instructor/login``: the form's secret for the instructor's cookie (see the module docstring)."""

    async def get(self) -> None:
        asked = parse_qs(urlsplit(self.get_argument("next", "")).query)
        room = normalise_code((asked.get("room") or [""])[0])
        lang = (asked.get("lang") or [""])[0]
        lang = lang if lang in STRINGS else self._language()
        if await self._instructor():
            self.redirect(_instructor_url(room, lang), status=303)
        elif not self.context.has_secret:
            self._page(503, f"<p class='ae-error'>{html.escape(text('instructor_no_key', lang))}</p>", lang)
        else:
            self._page(200, self._form(lang, room), lang)

    def _form(self, lang: str, room: str | None, message: str = "") -> str:
        return login_form_html(lang, room, message, xsrf=self.xsrf_token.decode())

    def check_xsrf_cookie(self) -> None:  # checked in post, where a refusal gets the form again
        return None

    async def post(self) -> None:
        lang = self._language()
        room = normalise_code(self.get_body_argument("room", ""))
        try:
            super().check_xsrf_cookie()
        except HTTPError:  # not this server's form in this browser: refused, counted nowhere
            self._page(403, self._form(lang, room, text("instructor_form_stale", lang)))
            return
        client = self.request.remote_ip or "?"
        browser = hashlib.sha256(self.get_cookie("_xsrf", "").encode()).hexdigest()[:32]
        known = self.context.known_valid(self.get_cookie(KNOWN_COOKIE))
        try:
            allowed = await self.context.call("login_allowed", client, browser, known)
        except (SQLAlchemyError, StoreSlow) as exc:
            log.warning("class: login limit not read: %s", type(exc).__name__)
            allowed = False
        if not allowed:
            self._page(429, self._form(lang, room, text("instructor_too_many", lang)))
            return
        if self.context.key_matches(self.get_body_argument("key", "")):
            try:
                session = await self.context.call("open_session")
            except (SQLAlchemyError, StoreSlow) as exc:
                log.warning("class: instructor session not opened: %s", type(exc).__name__)
                self._page(503, self._form(lang, room, text("instructor_busy", lang)))
                return
            secure = self.request.protocol == "https"
            self.set_cookie(
                COOKIE,
                self.context.signed_cookie(session),
                path="/",
                httponly=True,
                samesite="Strict",
                expires_days=COOKIE_DAYS,
                secure=secure,
            )
            self.set_cookie(
                KNOWN_COOKIE,
                self.context.known_cookie(),
                path="/instructor",
                httponly=True,
                samesite="Strict",
                expires_days=KNOWN_DAYS,
                secure=secure,
            )
            self.redirect(_instructor_url(room, lang), status=303)
            return
        try:
            await self.context.call("login_failed", client, browser)
        except (SQLAlchemyError, StoreSlow) as exc:
            log.warning("class: failed login not recorded: %s", type(exc).__name__)
        self._page(403, self._form(lang, room, text("instructor_wrong_key", lang)))


class LogoutHandler(_Base):
    """``POST /instructor/logout``: ends this browser's instructor session (see the module docstring)."""

    def check_xsrf_cookie(self) -> None:  # the cookie is SameSite=Strict, and post checks the Origin
        return None

    async def post(self) -> None:
        lang = self._language()
        origin = self.request.headers.get("Origin")
        if origin is not None and urlsplit(origin).netloc != self.request.host:
            self._page(403, f"<p class='ae-error'>{html.escape(text('instructor_refused', lang))}</p>", lang)
            return
        session = self.context.cookie_session(self.get_cookie(COOKIE))
        if session is not None:
            try:
                await self.context.call("close_session", session)
            except (SQLAlchemyError, StoreSlow) as exc:  # the session stays open: said, not hidden
                log.warning("class: instructor session not closed: %s", type(exc).__name__)
                self._page(503, f"<p class='ae-error'>{html.escape(text('instructor_busy', lang))}</p>", lang)
                return
        self.clear_cookie(COOKIE, path="/")
        self.redirect(LOGIN_PATH + ("" if lang == DEFAULT_LANGUAGE else f"?next=/instructor?lang={lang}"), status=303)


class CsvHandler(_Base):
    """``/instructor/rooms/CODE.csv``: every round of a room, for the instructor only."""

    async def get(self, code: str) -> None:
        if not await self._instructor():
            lang = self._language()
            self._page(
                403,
                f"<p class='ae-error'>{html.escape(text('instructor_refused', lang))}</p>"
                f"<p><a href='/instructor'>{html.escape(text('instructor_title', lang))}</a></p>",
            )
            return
        code = normalise_code(code)
        try:
            found = code is not None and await self.context.call("room", code) is not None
            rows = await self.context.call("export_csv", code, question_keys()) if found else None
        except (SQLAlchemyError, StoreSlow) as exc:
            log.warning("class: room %s not exported: %s", code, type(exc).__name__)
            self.send_error(503)
            return
        if rows is None:
            self.send_error(404)
            return
        self.set_header("Content-Type", "text/csv; charset=UTF-8")
        self.set_header("Content-Disposition", f'attachment; filename="class-{code}.csv"')
        self.set_header("Cache-Control", "no-store")
        self.finish(rows)


def patterns(context: ClassContext) -> list[tuple]:
    """The handlers' routes for the server's ``context``, for ``pn.serve(extra_patterns=...)``."""
    args = {"context": context}
    return [
        (r"/instructor/login", LoginHandler, args),
        (r"/instructor/logout", LogoutHandler, args),
        (r"/instructor/rooms/([A-Za-z0-9]+)\.csv", CsvHandler, args),
    ]
