"""The page-wide setup of the explorables' user interface: Panel's extension and the shared CSS.

Everything an explorable shows is drawn in the browser from its view (see
:mod:`attention_explorable.explorables`); this module only loads Panel with
the project's CSS once per process.
"""

from __future__ import annotations

import json
from importlib import resources

import jinja2
import panel as pn

#: The font of the explorables' text and plots (a CJK font first: the Chinese edition's labels).
FONT_FAMILY = "'Noto Sans CJK SC', 'Noto Sans SC', 'PingFang SC', 'Microsoft YaHei', sans-serif"
#: The font of English text: a Latin font first (a CJK font sets “ ” and ’ full width), the CJK ones after.
LATIN_FONT_FAMILY = (
    "'Segoe UI', Roboto, 'Noto Sans', 'Helvetica Neue', Arial, 'Liberation Sans', 'DejaVu Sans', " + FONT_FAMILY
)
#: Each language's text in its own font, by the ``lang`` of the element that holds it (the page's ``<html>``,
#: a module's root, a word of the other language; a formula keeps its math font): CSS Selectors Level 4, the attribute selector ``|=``.
LANGUAGE_FONTS_CSS = (
    f'html {{ font-family: {FONT_FAMILY}; }}\n[lang|="en"]:not(math) {{ font-family: {LATIN_FONT_FAMILY}; }}\n'
    f'[lang|="zh"]:not(math) {{ font-family: {FONT_FAMILY}; }}'
)

#: CSS shared by every page (as Panel's raw CSS) and by every readout the
#: browser draws (as its shadow root's stylesheet): the base font size
#: (Bokeh's widgets and plots follow it), readout typography, hints, errors.
CSS = """
:root { --bokeh-font-size: 15px; --bokeh-base-font: system-ui, "Noto Sans CJK SC", sans-serif; }
.ae-readout { font-variant-numeric: tabular-nums; font-size: var(--ae-readout-size, 15px); }
.ae-readout table { border-collapse: collapse; }
.ae-readout sup, .ae-readout sub { font-size: calc(var(--ae-readout-size, 15px) - 2px); }
/* A power of ten's exponent stays whole on a narrow screen: its minus sign never ends a line. */
sup, sub { white-space: nowrap; }
.ae-readout td, .ae-readout th.ae-kind { padding: 1px 8px 1px 0; }
/* Small text is 13px (on a phone as large as the text around it): the page's few sizes, see native.CSS. */
/* (An ancestor's --ae-small-size, the instructor's projector mode, sets it larger.) */
:root, :host { --ae-small: var(--ae-small-size, 13px); }
@media (max-width: 600px) { :root, :host { --ae-small: var(--ae-small-size, 15px); } }
.ae-kind { color: var(--ae-muted, #555); font-size: var(--ae-small); }
th.ae-kind { font-weight: normal; text-align: left; }
.ae-hint { font-size: var(--ae-small); color: var(--ae-muted, #444); }
.ae-error { color: var(--ae-error, #b00020); font-weight: 600; overflow-wrap: anywhere; }
.ae-qkv-row { display: flex; flex-wrap: wrap; gap: 2px 18px; }
.ae-readout table.ae-qkv-matrix { border-left: 2px solid currentColor; border-right: 2px solid currentColor;
  margin: 2px 0 8px; }
.ae-readout table.ae-qkv-matrix caption { caption-side: top; text-align: left; white-space: nowrap; }
.ae-readout table.ae-qkv-matrix td { padding: 1px 6px; text-align: right; }
"""


#: The explorables' colours, light and dark, as CSS custom properties: an author's page may set any
#: of them on the element (``attention-explorable { --ae-background: transparent; }``); the list is
#: in docs/embedding.md. Contrast (WCAG AA) holds for both sets: text at least 7:1 on its
#: background, the quieter text and the states' colours at least 4.5:1. One file, ``web/theme.json``,
#: which the explorable modules read too (``web/parts.js``).
THEME = json.loads(resources.files("attention_explorable").joinpath("web", "theme.json").read_text("utf-8"))


def theme_css(scope: str) -> str:
    """The theme's rules for ``scope``: ``":root"`` (a student page) or ``":host"`` (an embed's shadow root).

    Light by default; dark where the scope carries ``data-ae-theme="dark"``
    (an ``<attention-explorable theme=...>``, a page's ``?theme=dark``) and,
    on a page, where the reader's system prefers dark and nothing asked for
    light. Source: CSS Custom Properties Level 1; Media Queries Level 5
    (``prefers-color-scheme``).

    >>> ":host([data-ae-theme=dark])" in theme_css(":host")
    True
    """

    def block(selector: str, name: str) -> str:
        return selector + " { " + " ".join(f"{k}: {v};" for k, v in THEME[name].items()) + " }"

    if scope == ":host":
        return "\n".join([block(":host", "light"), block(":host([data-ae-theme=dark])", "dark")])
    if scope == ":root":
        return "\n".join(
            [
                block(":root", "light"),
                block(":root[data-ae-theme=dark]", "dark"),
                "@media (prefers-color-scheme: dark) { " + block(":root:not([data-ae-theme=light])", "dark") + " }",
            ]
        )
    raise ValueError(f"scope must be ':root' or ':host', not {scope!r}")


#: A part only screen readers read (a live region, a plot's data table): out of sight, not
#: out of the accessibility tree. Used as the stylesheet of such a part (its ``:host``).
SR_ONLY = """
:host { position: absolute !important; width: 1px !important; height: 1px !important; overflow: hidden !important;
        clip-path: inset(50%); white-space: nowrap; margin: 0 !important; padding: 0 !important; }
"""


def extension(inline: bool = False) -> None:
    """Load Panel's extension with the project's CSS (idempotent).

    Parameters
    ----------
    inline : bool
        Put BokehJS and Panel's script into the notebook's output (so that a
        notebook exported to HTML works with no network); a server ignores it.
    """
    if CSS not in pn.config.raw_css:
        pn.config.raw_css.append(CSS)
    pn.extension(sizing_mode="stretch_width", notifications=False, inline=inline)


#: A notice across the top of the page (the connection-lost notices), whatever its place in the layout.
NOTICE_CSS = """
:host { position: fixed; top: 0; left: 0; right: 0; z-index: 1000; margin: 0; width: auto;
        background: #b00020; color: #fff; padding: 10px 14px; font-size: 16px; font-weight: 600; }
"""
#: Over NOTICE_CSS, for a page that reconnects by itself: not an alarm (its red is for a page that cannot).
RECONNECTING_CSS = ":host { background: #30445c; color: #fff; }"


#: The pages' icon (an α, white on the product's blue), inside the page: no request, none to miss on
#: a static host. Drawn as a path: a letter in it would have the browser load a font for the icon
#: before the page's first frame.
ICON = "data:image/svg+xml,%3Csvg xmlns=%22http://www.w3.org/2000/svg%22 viewBox=%220 0 16 16%22%3E%3Crect width=%2216%22 height=%2216%22 rx=%223%22 fill=%22%232f6fad%22/%3E%3Cpath d=%22M12.2 4.6C11 8.4 9.8 11.6 7.2 11.6 5.3 11.6 4 10.2 4 8.1S5.3 4.6 7.2 4.6C9.8 4.6 11 7.8 12.4 11.6%22 fill=%22none%22 stroke=%22white%22 stroke-width=%221.6%22 stroke-linecap=%22round%22/%3E%3C/svg%3E"


def template(name: str, autoescape: bool = True) -> jinja2.Template:
    """The page template ``templates/<name>``, with the page-wide values it uses (``icon``).

    Raises ``FileNotFoundError`` for a name the package does not have.
    """
    source = resources.files("attention_explorable").joinpath("templates", name).read_text("utf-8")
    return jinja2.Environment(autoescape=autoescape).from_string(source, globals={"icon": ICON})
