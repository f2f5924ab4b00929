"""Small shared pieces of the explorables' user interface.

Number formatting for readouts, readout panes with stable ``ae-`` CSS
classes, and the page-wide extension setup.
"""

from __future__ import annotations

import math

import panel as pn

#: CSS shared by every explorable: readout typography and the error banner.
CSS = """
.ae-readout { font-variant-numeric: tabular-nums; }
.ae-readout table { border-collapse: collapse; }
.ae-readout td { padding: 1px 8px 1px 0; }
.ae-kind { color: #666; font-size: 0.85em; }
.ae-error { color: #b00020; font-weight: 600; }
"""


def format_number(x: float, digits: int = 4, html: bool = True) -> str:
    """Format a readout number as HTML: fixed decimals, scientific when tiny.

    NaN and infinities are written as ``NaN``, ``∞`` and ``−∞``.
    A weight such as ``1.4e-87`` is shown as such rather than as ``0.0000``,
    so a student sees that softmax never gives exactly zero to a finite score.
    """
    x = float(x)
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "∞" if x > 0 else "−∞"
    if x != 0.0 and abs(x) < 0.5 * 10.0 ** (-digits):
        mantissa, exponent = f"{x:.1e}".split("e")
        if not html:
            return f"{mantissa}e{int(exponent)}"
        return f"{mantissa}×10<sup>{int(exponent)}</sup>"
    s = f"{x:.{digits}f}"
    return "0." + "0" * digits if s.startswith("-") and float(s) == 0.0 else s


def readout(css_class: str, **kw) -> pn.pane.HTML:
    """An HTML pane for one live readout, carrying ``ae-readout`` and ``css_class``."""
    return pn.pane.HTML("", css_classes=["ae-readout", css_class], margin=(2, 5), **kw)


def extension() -> None:
    """Load Panel's extension with the project's CSS (idempotent)."""
    if CSS not in pn.config.raw_css:
        pn.config.raw_css.append(CSS)
    pn.extension("mathjax", sizing_mode="stretch_width", notifications=False)
