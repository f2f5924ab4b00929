"""The page-wide setup of the explorables' user interface: Panel's extension and the shared CSS.

Everything an explorable shows is drawn in the browser from its view (see
:mod:`attention_explorable.explorables`); this module only loads Panel with
the project's CSS once per process.
"""

from __future__ import annotations

import panel as pn

#: CSS shared by every page (as Panel's raw CSS) and by every readout the
#: browser draws (as its shadow root's stylesheet): the base font size
#: (Bokeh's widgets and plots follow it), readout typography, hints, errors.
CSS = """
:root { --bokeh-font-size: 15px; --bokeh-base-font: system-ui, "Noto Sans CJK SC", sans-serif; }
.ae-readout { font-variant-numeric: tabular-nums; font-size: 15px; }
.ae-readout table { border-collapse: collapse; }
.ae-readout td { padding: 1px 8px 1px 0; }
.ae-kind { color: #555; font-size: max(14px, 0.9em); }
th.ae-kind { font-weight: normal; text-align: left; }
.ae-hint { font-size: 14px; color: #444; }
.ae-error { color: #b00020; font-weight: 600; overflow-wrap: anywhere; }
"""


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

