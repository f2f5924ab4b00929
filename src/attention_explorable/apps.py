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
    """Per-process setup shared by every app: extension, CSS, fast path."""
    serving.enable_fast_path()
    ui.extension()


def steps_app(language: str = "zh") -> pn.viewable.Viewable:
    """The three-step explorable of section 3.8 on a page of its own."""
    from .steps import StepsExplorer

    _page_setup()
    return pn.Column(
        pn.pane.HTML(f"<h1 style='margin:8px 5px'>{text('steps_heading', language)}</h1>"),
        StepsExplorer(language=language),
        sizing_mode="stretch_width",
        max_width=1200,
        styles={"margin": "0 auto"},
    )


#: App name -> builder, in the order the CLI lists and serves them.
APPS: dict[str, Callable[[], pn.viewable.Viewable]] = {
    "steps": steps_app,
}
