"""The first paint: what a page shows before its scripts have run.

A prebuilt page (:func:`attention_explorable.site.build_page`) carries, as
plain HTML at the top of its ``<main>``, what a student reads first: the
textbook's title, contents and text (formulas in MathML) down to its first
explorable, and an explorable's first state as its live layout shows it
(:func:`attention_explorable.stills.still_html`): its question and readouts as
the Python view computes them, its controls and its plots as pictures of the
same state. The browser paints it as soon as the HTML has arrived; the
scripts load once it is painted and build the live page beside it, hidden; when the
live page is ready (``web/frame.js``, on the document's ``document_ready``)
the first paint is removed and the live page shown in its place. Without
scripts the first paint stays: the page's beginning is readable anywhere.

A page opened with a deep link (``?step=3&temperature=0.05``) shows no first
paint, which holds the default state: a small script in its head
(``web/first_paint.js``) hides it before anything is painted, and the live
page opens on the linked state.
"""

from __future__ import annotations

import html
from functools import lru_cache
from importlib import resources

from . import stills, ui
from .content import PROSE_CSS, load_sections, markdown_to_html
from .explorables import EXPLORABLES, explorable_class
from .strings import text
from .textbook import block_html, contents_html
from .views import exercise as exercise_view

#: Styles of the first paint; the live page is hidden while it is there.
CSS = (
    "body { margin: 0; font-family: system-ui, \"Noto Sans CJK SC\", sans-serif; color: #1b1b1b; }\n"
    ".ae-first-paint { max-width: 1100px; margin: 0 auto; padding: 0 10px 32px; box-sizing: border-box; }\n"
    # An explorable's page: its text in BokehJS's and Panel's 1.42857 lines, as the live page's. (The
    # textbook's first screen keeps the browser's lines, a little taller than the live text's: a page's
    # largest paint stays its first one.)
    ".ae-first-paint.ae-fp-one { line-height: 1.42857; }\n"
    ".ae-fp-language { display: flex; justify-content: flex-end; align-items: flex-start; padding: 35px 0 0; "
    "min-height: 65px; box-sizing: border-box; }\n"
    ".ae-fp-language span { display: inline-block; line-height: 24px; padding: 2px 10px; font-size: 15px; "
    "color: #1a4f8b; border: 1px solid #9bb5d3; border-radius: 14px; }\n"
    ".ae-first-paint .ae-fp-explorable { border: 1px solid #e3e3e3; border-radius: 8px; padding: 6px 10px; "
    "margin: 12px 0; min-height: 200px; }\n"
    ".ae-first-paint .ae-fp-readouts > div { margin: 2px 0; }\n"
    # As the live page's: its title (apps.HEADING_CSS in a readout's 12 px root), its opening paragraph.
    # An explorable's page as the live one lays it out (apps._explorer_page: 1200 px at most, a title
    # of HEADING_CSS in the readouts' 15 px), so that its lines wrap where the live page's do.
    ".ae-first-paint.ae-fp-one { max-width: 1200px; padding: 0 5px 32px; }\n"
    ".ae-first-paint.ae-fp-one .ae-fp-language { padding-right: 5px; }\n"
    ".ae-first-paint .ae-fp-heading { font-size: clamp(24px, 7vw, 30px); line-height: 1.25; margin: 8px 0; }\n"
    ".ae-first-paint.ae-fp-one .ae-fp-explorable { border: 0; padding: 0; margin: 0 -5px; }\n"
    "main:has(> .ae-first-paint) > .ae-live-page { position: absolute; left: 0; right: 0; top: 0; "
    "visibility: hidden; }\n"
    "html.ae-deep-link .ae-first-paint { display: none; }\n"
    + ".ae-first-paint {" + PROSE_CSS.replace(":host", "&") + ui.CSS.replace(":root", "&").replace(".ae-readout", ".ae-fp-readouts")
    + "}\n" + stills.CSS
)


def _readouts(name: str, language: str) -> str:
    """An explorable's first state as HTML: its controls, readouts and plots as its live layout shows them."""
    return stills.still_html(explorable_class(name)(language=language), images=True)


def _textbook(language: str) -> str:
    """The textbook's first screens: its title, the contents and the text up to its first explorable.

    The rest of the text comes with the live page, out of sight meanwhile; a
    page twice the size to paint the same first screen would arrive later.
    """
    parts = [f"<h1 class='ae-page-title'>{html.escape(text('page_title', language))}</h1>",
             contents_html(language)]
    for section in load_sections(language):
        parts.append(f"<h1 class='ae-section-title'>{html.escape(section.title)}</h1>")
        for block in section.blocks:
            if block.kind == "explorable":
                name = block.args[0] if block.args else ""
                caption = markdown_to_html(block.body) if block.body.strip() else ""
                parts.append(f"<div class='ae-fp-explorable'><div class='ae-caption'>{caption}</div>"
                             f"{_readouts(name, language)}</div>")
                return "".join(parts)
            if block.kind == "exercise":
                parts.append(f"<div class='ae-fp-exercise'>{exercise_view.question_html(block)}</div>")
            else:
                parts.append(block_html(section.id, block, language))
    return "".join(parts)


@lru_cache(maxsize=None)
def gate_script() -> str:
    """The scripts a prebuilt page runs in its head, before anything is painted (inlined there).

    ``web/first_paint.js`` hides the first paint of a page opened with a deep
    link; ``web/when_seen.js`` brings the textbook's explorables and exercises
    to life as they near the screen (the page's embedding calls it).
    """
    web = resources.files("attention_explorable").joinpath("web")
    return web.joinpath("first_paint.js").read_text("utf-8") + web.joinpath("when_seen.js").read_text("utf-8")


def first_paint_html(app: str, language: str) -> str:
    """The first paint of page ``app`` (``"textbook"`` or an explorable's name) in ``language``.

    Raises
    ------
    KeyError
        If ``app`` is neither the textbook nor a known explorable.
    """
    # Where the live page has its language switch (the live link comes with the scripts).
    other = "en" if language == "zh" else "zh"
    switch = f"<div class='ae-fp-language'><span>{html.escape(text('language_name', other))}</span></div>"
    if app == "textbook":
        body = _textbook(language)
    else:
        heading = html.escape(text(EXPLORABLES[app].heading_key, language))
        parts = "".join(stills.still_html(part) for part in explorable_class(app).page_parts(language))
        body = (f"<h1 class='ae-fp-heading'>{heading}</h1>{parts}"
                f"<div class='ae-fp-explorable'>{_readouts(app, language)}</div>")
    one = "" if app == "textbook" else " ae-fp-one"  # an explorable's page of its own
    return f"<div class='ae-first-paint{one}'>{switch}{body}</div>"
