"""Builders of the served pages, one function per app.

``apps/*.py`` and the command-line interface both call these, so a page is
defined once. Each call builds fresh components: one set per browser session.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from functools import lru_cache
from importlib import resources

import jinja2
from bokeh.models import CustomJS

import panel as pn

from . import serving, ui
from .explorables.base import html_model, web_module
from .strings import text


#: BCP 47 tag of each interface language, for ``<html lang>``.
HTML_LANG = {"zh": "zh-Hans", "en": "en"}


@lru_cache(maxsize=None)
def page_template() -> jinja2.Template:
    """The page served apps are delivered in (``templates/page.html``): ``<html lang>`` and a viewport."""
    source = resources.files("attention_explorable").joinpath("templates", "page.html").read_text("utf-8")
    return jinja2.Template(source)


def _page_setup(language: str = "zh") -> None:
    """Setup shared by every app: extension, CSS, fast path, and the page around the app.

    The fast path is skipped when ``AE_FAST_PATH=0`` (benchmarks' baseline).
    In a server session the page gets ``<html lang>`` of ``language`` and a
    viewport for phones (:func:`page_template`).
    """
    if serving.fast_path_requested():
        serving.enable_fast_path()
    ui.extension()
    doc = pn.state.curdoc
    if doc is not None and doc.session_context is not None:
        doc.template = page_template()
        doc.template_variables["lang"] = HTML_LANG.get(language, language)


def connection_notice(language: str = "zh", link=None) -> pn.pane.Bokeh:
    """A notice (class ``ae-connection-lost``) that appears when the page loses its server.

    Shown by ``web/connection.js`` on the document's ``connection_lost``
    event, in a server session; elsewhere (a saved page) it never shows.
    With ``link`` (a page in a room, :class:`~.classroom.student.StudentLink`)
    it also says whether the last prediction was received.
    """
    notice = html_model("ae-connection-lost", visible=False)
    notice.css_classes = ["ae-connection-lost"]
    notice.stylesheets = [*notice.stylesheets, _NOTICE_CSS]
    doc = pn.state.curdoc
    if doc is not None and doc.session_context is not None:
        args = {"notice": notice, "message": text("connection_lost", language)}
        if link is not None:
            args.update(link=link.model, strings=link.browser_config()["strings"])
        doc.js_on_event("connection_lost", CustomJS(code=web_module("connection"), module=True, args=args))
    return pn.pane.Bokeh(notice, sizing_mode="stretch_width", margin=0)


_NOTICE_CSS = """
:host { position: fixed; top: 0; left: 0; right: 0; z-index: 1000; margin: 0; width: auto;
        background: #b00020; color: #fff; padding: 10px 14px; font-size: 16px; font-weight: 600; }
"""


def textbook_app(language: str = "zh") -> pn.viewable.Viewable:
    """Sections 3.7 and 3.8 as one page, every explorable inline.

    The explorables after the first are built as the reader approaches them;
    the URL argument ``?explorables=all`` builds every one with the page
    (for projecting, or to measure a fully built page).
    """
    from .textbook import TextbookPage

    _page_setup(language)
    args = pn.state.session_args or {}
    load = "all" if [v.decode() if isinstance(v, bytes) else v for v in args.get("explorables", [])] == ["all"] \
        else "on_approach"
    page_frame()
    link = _room_link(language)
    return pn.Column(connection_notice(language, link), TextbookPage(language=language, load=load, classroom=link),
                     sizing_mode="stretch_width", margin=0)


def _room_link(language: str):
    """The page's link to its room (``?room=CODE``, not an explorable parameter), or None."""
    if not (pn.state.session_args or {}).get("room"):
        return None
    from .classroom.student import StudentLink, room_argument

    room = room_argument()
    return StudentLink(room, language) if room else None


def steps_app(language: str = "zh") -> pn.viewable.Viewable:
    """The three-step explorable of section 3.8 on a page of its own."""
    from .explorables.steps import StepsExplorer, presenter_keys

    _page_setup(language)
    link = _room_link(language)
    return _explorer_page("steps_heading", StepsExplorer(language=language, classroom=link), language,
                          presenter_keys(language), link=link)


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
        doc.js_on_event("document_ready", CustomJS(code=web_module("frame"), module=True,
                                                   args={"heading": heading}))


def _explorer_page(heading_key: str, explorer, language: str, *extra, link=None) -> pn.viewable.Viewable:
    explorer.open_link(session_query())  # a deep link: /steps?step=3&temperature=0.05
    heading = html_model("ae-page-heading", margin=(8, 5))
    heading.css_classes = ["ae-page-heading"]
    heading.text = html.escape(f"<h1 style='margin:0'>{html.escape(text(heading_key, language))}</h1>")
    page_frame(heading)
    return pn.Column(
        connection_notice(language, link),
        pn.pane.Bokeh(heading, sizing_mode="stretch_width", margin=0),
        *extra,
        explorer,
        sizing_mode="stretch_width",
        max_width=1200,
        styles={"margin": "0 auto"},
    )


def vector_app(language: str = "zh") -> pn.viewable.Viewable:
    """The worked example of section 3.7: drag the query, watch weights and output."""
    from .explorables.vector import VectorExplorer

    _page_setup(language)
    return _explorer_page("vector_heading", VectorExplorer(language=language), language)


def matrix_app(language: str = "zh") -> pn.viewable.Viewable:
    """Scaled dot-product attention of section 3.7: score and weight heatmaps, √d_k."""
    from .explorables.matrix import MatrixExplorer

    _page_setup(language)
    return _explorer_page("matrix_heading", MatrixExplorer(language=language), language)


def selfcross_app(language: str = "zh") -> pn.viewable.Viewable:
    """Self- and cross-attention of section 3.7: where Q, K and V come from."""
    from .explorables.selfcross import SelfCrossExplorer

    _page_setup(language)
    return _explorer_page("selfcross_heading", SelfCrossExplorer(language=language), language)


def instructor_app(language: str = "zh") -> pn.viewable.Viewable:
    """The instructor's view of the class: the room, its predictions, the reveal (``/instructor``)."""
    from .classroom.instructor import instructor_page

    _page_setup(language)
    return pn.Column(connection_notice(language), instructor_page(language), sizing_mode="stretch_width",
                     margin=0)


#: App name -> builder, in the order the CLI lists and serves them.
APPS: dict[str, Callable[[], pn.viewable.Viewable]] = {
    "textbook": textbook_app,
    "steps": steps_app,
    "vector": vector_app,
    "matrix": matrix_app,
    "selfcross": selfcross_app,
}
