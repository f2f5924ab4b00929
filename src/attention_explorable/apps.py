"""Builders of the served pages, one function per app.

``apps/*.py`` and the command-line interface both call these, so a page is
defined once. Each call builds fresh components: one set per browser session.
"""

from __future__ import annotations

import functools
import html
from collections.abc import Callable, Mapping
from functools import lru_cache

import jinja2
from bokeh.models import CustomJS

import panel as pn

from . import ui
from .explorables import MODULES, app_names, explorable_class
from .explorables.base import ScriptedPane, html_model, web_module
from .strings import DEFAULT_LANGUAGE, HTML_LANG, OTHER_LANGUAGE, STRINGS, text  # noqa: F401  (apps' names)

#: The cookie (and localStorage key) that remembers the reader's language; see ``web/language.js``.
LANGUAGE_COOKIE = "ae-lang"


def index_key(app: str) -> str:
    """The string key of page ``app``'s line on the index (``index_textbook``, ``index_<name>``)."""
    return "index_textbook" if app == "textbook" else MODULES[app].key("index")


def title_key(app: str) -> str:
    """The string key of the title of page ``app`` (the textbook's, or ``<name>_heading`` of an explorable)."""
    return "page_title" if app == "textbook" else MODULES[app].key("title")


def _argument(name: str) -> str | None:
    values = session_query().get(name) or []
    value = values[0] if values else None
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else value


def reader_language(language: str | None = None) -> str:
    """The language a page is built in: ``language`` when given, else the reader's.

    The reader's language is the URL's ``?lang=zh|en``, else the one the
    reader chose before (the ``ae-lang`` cookie that the language switch
    sets, ``web/language.js``), else Chinese. Unknown values are ignored.

    Raises
    ------
    ValueError
        If ``language`` is given and is not a known language.
    """
    if language is not None:
        if language not in STRINGS:
            raise ValueError(f"language must be one of {sorted(STRINGS)}, got {language!r}")
        return language
    asked = _argument("lang")
    if asked in STRINGS:
        return asked
    doc = pn.state.curdoc
    if doc is not None and doc.session_context is not None:
        remembered = (pn.state.cookies or {}).get(LANGUAGE_COOKIE)
        if remembered in STRINGS:
            return remembered
    return DEFAULT_LANGUAGE


#: The language switch's look, in its shadow root.
LANGUAGE_CSS = """
nav { display: flex; justify-content: flex-end; padding: 4px 10px 0; }
a.ae-language { display: inline-block; min-height: 24px; line-height: 24px; padding: 2px 10px;
                font-size: 15px; color: var(--ae-link, #1a4f8b); border: 1px solid var(--ae-border, #9bb5d3); border-radius: 14px;
                text-decoration: none; }
a.ae-language:hover { background: var(--ae-surface-hover, #eef4fb); text-decoration: underline; }
a.ae-language:focus-visible { outline: 3px solid var(--ae-focus, #1a5fb4); outline-offset: 2px; }
"""


def language_switch(language: str, href: str | None = None) -> ScriptedPane:
    """The language switch of a page in ``language``: a link to the same page in the other language.

    The link (class ``ae-language``, in a ``nav`` of class ``ae-language-bar``)
    is in the page's HTML; ``web/language.js`` makes it keep the page's query
    (the explorables' state) and anchor, and remember the reader's choice.

    ``href``: the same page in the other language, a relative file address
    (static pages, whose languages live in separate folders); None: the
    switch asks the server with ``?lang=``.
    """
    other = OTHER_LANGUAGE[language]
    tag = HTML_LANG[other]
    target = href or f"?lang={other}"
    link = (
        f"<nav aria-label='{html.escape(text('language_switch', language))}'>"
        f"<a class='ae-language' lang='{tag}' hreflang='{tag}' href='{html.escape(target)}' "
        f"title='{html.escape(text('language_switch_to', other))}'>{html.escape(text('language_name', other))}</a>"
        "</nav>"
    )
    return ScriptedPane(
        link,
        script="language",
        settings={"language": language, "other": other, "target": href or ""},
        css_classes=["ae-language-bar"],
        stylesheets=[LANGUAGE_CSS],
        sizing_mode="stretch_width",
        margin=0,
    )


@lru_cache(maxsize=None)
def page_template() -> jinja2.Template:
    """The page served apps are delivered in (``templates/page.html``): ``<html lang>`` and a viewport."""
    return ui.template("page.html", autoescape=False)


def _page_setup(language: str = "zh", title: str = "") -> None:
    """Setup shared by every app: extension, CSS, and the page around the app.

    In a server session the page gets ``<html lang>`` of ``language``, the
    ``title`` and a viewport for phones (:func:`page_template`).
    """
    ui.extension()
    doc = pn.state.curdoc
    if doc is not None and doc.session_context is not None:
        doc.template = page_template()
        doc.template_variables["lang"] = HTML_LANG.get(language, language)
        doc.template_variables["page_title"] = title


def connection_notice(language: str = "zh", reconnect: bool = False) -> pn.pane.Bokeh | None:
    """A notice (class ``ae-connection-lost``) that appears when a live app loses its server.

    Shown by ``web/connection.js`` on the document's ``connection_lost``
    event, in a server session (``panel serve apps/*.py``, the instructor's
    page); None elsewhere (a prebuilt or saved page has no server
    connection to lose; a page in a class says so from its class socket,
    ``web/classroom.js``). With ``reconnect`` (the instructor's page, on a
    projector) the notice says that the page reconnects, and the page
    reloads itself once the server answers its address again.
    """
    doc = pn.state.curdoc
    if doc is None or doc.session_context is None:
        return None
    notice = html_model("ae-connection-lost", visible=False)
    notice.css_classes = ["ae-connection-lost"]
    notice.stylesheets = [*notice.stylesheets, ui.NOTICE_CSS, *([ui.RECONNECTING_CSS] if reconnect else [])]
    message = text("instructor_reconnecting" if reconnect else "connection_lost", language)
    args = {"notice": notice, "message": message, "reconnect": reconnect}
    doc.js_on_event("connection_lost", CustomJS(code=web_module("connection"), module=True, args=args))
    return pn.pane.Bokeh(notice, sizing_mode="stretch_width", margin=0)


def _setup(app: str, language: str | None) -> str:
    language = reader_language(language)
    _page_setup(language, text(title_key(app), language))
    return language


def textbook_app(language: str | None = None, switch_href: str | None = None) -> pn.viewable.Viewable:
    """Sections 3.7 and 3.8 as one page, every explorable inline.

    In a live server session (``panel serve apps/textbook.py``) the first
    explorable comes with the page and the server builds each other one and
    each exercise as the reader approaches it; outside a session (the
    student page a file holds: export, ``serve``, :mod:`attention_explorable.native`)
    everything is built with the page. The URL argument ``?explorables=all`` builds every
    one with the page (for projecting, or to measure a fully built page). Like every app, in
    ``language`` when given, else in the reader's (:func:`reader_language`);
    ``switch_href`` is the language switch's target (see :func:`language_switch`).
    """
    from .textbook import TextbookPage

    language = _setup("textbook", language)
    args = pn.state.session_args or {}
    in_session = pn.state.curdoc is not None and pn.state.curdoc.session_context is not None
    load = (
        "all"
        if [v.decode() if isinstance(v, bytes) else v for v in args.get("explorables", [])] == ["all"]
        else "on_approach"
        if in_session
        else "all"
    )
    return pn.Column(
        ScriptedPane(script="frame"),  # (web/frame.js: the anchors, the frame's height, ?embed=1)
        connection_notice(language),
        language_switch(language, switch_href),
        # (A student page, built outside a session, links the notebooks as the files beside it.)
        TextbookPage(language=language, load=load, notebook_files=not in_session),
        sizing_mode="stretch_width",
        margin=0,
    )


def explorable_app(name: str, language: str | None = None, switch_href: str | None = None) -> pn.viewable.Viewable:
    """The explorable ``name`` of the registry on a page of its own (``/<name>``).

    Its page holds the title (``<name>_heading``), the language switch, the
    parts its Viewer asks for (:meth:`~attention_explorable.explorables.base.Explorable.page_parts`,
    such as the steps' presenter keys) and the explorable, opened on the
    page's deep link. ``switch_href`` is the language switch's target (see
    :func:`language_switch`).

    Raises
    ------
    KeyError
        If ``name`` is not a registered explorable.
    """
    cls = explorable_class(name)
    language = _setup(name, language)
    explorer = cls(language=language)
    return _explorer_page(title_key(name), explorer, language, switch_href, *cls.page_parts(language))


def session_query() -> dict:
    """The URL query of the page being built (Panel's session arguments); empty outside a server session."""
    return dict(pn.state.session_args or {}) if pn.state.curdoc is not None else {}


def page_frame(heading=None) -> None:
    """Run ``web/frame.js`` when the page's document is ready (served or static).

    With ``?embed=1`` the page's ``heading`` (a model) hides; in an iframe
    the page reports its height to the host; heading anchors land.
    """
    doc = pn.state.curdoc
    if doc is not None:
        doc.js_on_event("document_ready", CustomJS(code=web_module("frame"), module=True, args={"heading": heading}))


#: A page title that fits a phone: smaller on a narrow screen, at most 2em.
HEADING_CSS = "h1 { font-size: clamp(24px, 7vw, 2em); line-height: 1.25; }"


def _explorer_page(heading_key: str, explorer, language: str, switch_href: str | None, *extra) -> pn.viewable.Viewable:
    explorer.open_link(session_query())  # a deep link: /steps?step=3&temperature=0.05
    heading = html_model("ae-page-heading", margin=(8, 5), stylesheets=[ui.CSS, HEADING_CSS])
    heading.css_classes = ["ae-page-heading"]
    heading.text = html.escape(f"<h1 style='margin:0'>{html.escape(text(heading_key, language))}</h1>")
    page_frame(heading)
    return pn.Column(
        connection_notice(language),
        language_switch(language, switch_href),
        pn.pane.Bokeh(heading, sizing_mode="stretch_width", margin=0),
        *extra,
        explorer,
        sizing_mode="stretch_width",
        max_width=1200,
        styles={"margin": "0 auto"},
    )


def instructor_app(context, language: str | None = None) -> pn.viewable.Viewable:
    """The instructor's view of the class: the room, its predictions, the reveal (``/instructor``).

    ``context`` is the server's :class:`~attention_explorable.classroom.context.ClassContext`;
    ``language`` None: the reader's (:func:`reader_language`: ``?lang=``, the
    ``ae-lang`` cookie, else Chinese), with a switch to the other.
    """
    from .classroom.instructor import instructor_page

    language = reader_language(language)
    _page_setup(language, text("instructor_title", language))
    # The notice (fixed at the top of the window) and the language switch are roots of their own:
    # wrapped in one more column with the page, the explorable below the room's histogram got plots
    # of no width.
    notice = connection_notice(language, reconnect=True)  # a projector: it comes back by itself
    if notice is not None:
        notice.servable()
        language_switch(language).servable()
    return instructor_page(context, language)


class _Apps(Mapping):
    """App name -> builder(language=None): the textbook, then every registered explorable with a Panel
    component drawn from Python (those of :data:`MODULES` with a ``viewer``)."""

    def _names(self) -> tuple[str, ...]:
        return app_names()

    def __getitem__(self, name: str) -> Callable[..., pn.viewable.Viewable]:
        if name == "textbook":
            return textbook_app
        if name not in self._names():
            raise KeyError(name)
        return functools.partial(explorable_app, name)

    def __iter__(self):
        return iter(self._names())

    def __len__(self) -> int:
        return len(self._names())


#: App name -> builder, in the order the CLI lists and serves them (derived from the registry).
APPS: Mapping[str, Callable[..., pn.viewable.Viewable]] = _Apps()


def app_summary(app: str) -> str:
    """One line about page ``app``, for ``attention-explorable list``: its builder's or Viewer's docstring."""
    source = textbook_app if app == "textbook" else explorable_class(app)
    return (source.__doc__ or "").strip().splitlines()[0]


@lru_cache(maxsize=None)
def _index_template() -> jinja2.Template:
    return ui.template("index.html")


def index_html(language: str) -> str:
    """The server's root page (``/``): this product's pages, in ``language`` (served from memory)."""
    other = OTHER_LANGUAGE[language]

    pages = [
        (f"{name}?lang={language}", text(title_key(name), language), text(index_key(name), language)) for name in APPS
    ] + [
        (f"{name}?lang={language}", text(m.key("title"), language), text(m.key("index"), language))
        for name, m in MODULES.items()
        if name not in APPS
    ]
    return _index_template().render(
        lang=HTML_LANG[language],
        t=STRINGS[language],
        pages=pages,
        switch_href=f"?lang={other}",
        switch_label=text("language_name", other),
        switch_lang=HTML_LANG[other],
        switch_hint=text("language_switch_to", other),
    )
