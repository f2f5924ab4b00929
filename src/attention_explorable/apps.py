"""Builders of the served pages, one function per app.

``apps/*.py`` and the command-line interface both call these, so a page is
defined once. Each call builds fresh components: one set per browser session.
"""

from __future__ import annotations

from collections.abc import Callable

import panel as pn

from . import serving, ui
from .strings import text


def _page_setup() -> None:
    """Per-process setup shared by every app: extension, CSS, fast path.

    The fast path is skipped when ``AE_FAST_PATH=0`` (benchmarks' baseline).
    """
    if serving.fast_path_requested():
        serving.enable_fast_path()
    ui.extension()


def textbook_app(language: str = "zh") -> pn.viewable.Viewable:
    """Sections 3.7 and 3.8 as one page, every explorable inline.

    The explorables after the first are built as the reader approaches them;
    the URL argument ``?explorables=all`` builds every one with the page
    (for projecting, or to measure a fully built page).
    """
    from .textbook import TextbookPage

    _page_setup()
    args = pn.state.session_args or {}
    load = "all" if [v.decode() if isinstance(v, bytes) else v for v in args.get("explorables", [])] == ["all"] \
        else "on_approach"
    return TextbookPage(language=language, load=load)


def steps_app(language: str = "zh") -> pn.viewable.Viewable:
    """The three-step explorable of section 3.8 on a page of its own."""
    from .explorables.steps import StepsExplorer, presenter_keys

    _page_setup()
    return _explorer_page("steps_heading", StepsExplorer(language=language), language,
                          presenter_keys(language))


def _explorer_page(heading_key: str, explorer, language: str, *extra) -> pn.viewable.Viewable:
    return pn.Column(
        pn.pane.HTML(f"<h1 style='margin:8px 5px'>{text(heading_key, language)}</h1>"),
        *extra,
        explorer,
        sizing_mode="stretch_width",
        max_width=1200,
        styles={"margin": "0 auto"},
    )


def vector_app(language: str = "zh") -> pn.viewable.Viewable:
    """The worked example of section 3.7: drag the query, watch weights and output."""
    from .explorables.vector import VectorExplorer

    _page_setup()
    return _explorer_page("vector_heading", VectorExplorer(language=language), language)


def matrix_app(language: str = "zh") -> pn.viewable.Viewable:
    """Scaled dot-product attention of section 3.7: score and weight heatmaps, √d_k."""
    from .matrix import MatrixExplorer

    _page_setup()
    return _explorer_page("matrix_heading", MatrixExplorer(language=language), language)


def selfcross_app(language: str = "zh") -> pn.viewable.Viewable:
    """Self- and cross-attention of section 3.7: where Q, K and V come from."""
    from .explorables.selfcross import SelfCrossExplorer

    _page_setup()
    return _explorer_page("selfcross_heading", SelfCrossExplorer(language=language), language)


#: App name -> builder, in the order the CLI lists and serves them.
APPS: dict[str, Callable[[], pn.viewable.Viewable]] = {
    "textbook": textbook_app,
    "steps": steps_app,
    "vector": vector_app,
    "matrix": matrix_app,
    "selfcross": selfcross_app,
}
