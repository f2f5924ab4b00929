"""An explorable's state as still HTML: what a page shows before any script has run.

The first paint (:mod:`attention_explorable.first_paint`) and the
textbook's slots show each explorable as the live page will lay it out, in
the same boxes, from the same Bokeh models its view has just filled:

* :func:`still_html` walks a component's Panel layout (``FlexBox``,
  ``Column``, ``Row``, Bokeh panes and HTML panes) and writes each part as
  plain HTML: a readout's text, and a control as a picture of itself (a
  button's label, a slider's track and handle at its value, a box with its
  number), inert until the live control takes its place;
* :func:`figure_svg` draws a Bokeh figure's state, its title, axes, ticks,
  grid, glyphs, labels and legend, as HTML and SVG: the frame is an SVG whose
  coordinates are percentages of its box (a figure stretches to its column's
  width, as the live plot does), markers and text keep their pixel sizes.

The picture is of the state the Python view computed (the oracle of every
number), so the live page takes its place without a jump of any number.
Only what the pages draw is supported; any other glyph or annotation is
left out of the picture with a warning naming it.

References: docs/architecture.md, "The first paint is the page".
"""

from __future__ import annotations

import html
import logging
import math
import re
from collections.abc import Sequence
from urllib.parse import quote

import panel as pn
from bokeh import models as bm
from panel.models.markup import HTML as HTMLModel

from . import ui

__all__ = ["CSS", "WHEN_SEEN", "figure_svg", "slot_html", "still_html"]

_log = logging.getLogger(__name__)

_FONT = "'Noto Sans CJK SC', 'Noto Sans SC', 'PingFang SC', 'Microsoft YaHei', sans-serif"

#: The still's styles, as the live controls and plots look (explorables/controls.py, BokehJS's defaults).
CSS = """
/* BokehJS's and Panel's text: 1.42857 lines (20 px at 14 px); a button's, the browser's. */
.ae-still-flex, .ae-still-col, .ae-still-row, .ae-still-html, .ae-still-readout { line-height: 1.42857; }
.ae-still-html { font-size: 15px; }
.ae-still-flex { display: flex; min-width: 0; }
.ae-still-col { display: flex; flex-direction: column; min-width: 0; }
.ae-still-row { display: flex; flex-direction: row; min-width: 0; }
.ae-still-btn { display: flex; align-items: center; justify-content: center; box-sizing: border-box;
  min-height: 36px; margin: 4px 5px; padding: 6px 12px; border: 1px solid #ccc; border-radius: 4px;
  background: #fff; color: #333; font-size: 15px; line-height: normal; text-align: center; min-width: 0; }
.ae-still-row > .ae-still-btn, .ae-still-group > .ae-still-btn { flex: 1 1 0; }
.ae-still-btn.ae-still-primary, .ae-still-btn.ae-still-active { background: #2f6fad; border-color: #24578a; color: #fff; }
.ae-still-btn.ae-still-success { background: #2e7d32; border-color: #1b5e20; color: #fff; }
.ae-still-group { display: flex; margin: 4px 5px; }
.ae-still-group .ae-still-btn { margin: 0; border-radius: 0; }
.ae-still-group .ae-still-btn:first-child { border-radius: 4px 0 0 4px; }
.ae-still-group .ae-still-btn:last-child { border-radius: 0 4px 4px 0; }
.ae-still-slider { flex: 1 1 auto; margin: 4px 8px 4px 5px; min-width: 0; }
.ae-still-slider .ae-still-track { position: relative; height: 8px; margin: 9px 0 10px; border-radius: 4px;
  background: #e6e6e6; box-shadow: inset 0 1px 1px #f0f0f0; }
.ae-still-slider .ae-still-handle { position: absolute; top: -11px; width: 28px; height: 28px; margin-left: -14px;
  box-sizing: border-box; border: 1px solid #d9d9d9; border-radius: 50%; background: #fff;
  box-shadow: inset 0 0 1px #fff, inset 0 1px 7px #ebebeb, 0 3px 6px -3px #bbb; }
.ae-still-label { font-size: 15px; margin: 0 0 2px; }
.ae-still-input { margin: 4px 5px; min-width: 0; }
.ae-still-input.ae-still-box { flex: 0 0 86px; margin: 22px 5px 4px 0; }
.ae-still-field { box-sizing: border-box; min-height: 32px; padding: 4px 8px; border: 1px solid #ccc;
  border-radius: 4px; background: #fff; font-size: 16px; line-height: 22px; overflow: hidden; white-space: nowrap; }
.ae-still-placeholder { color: #888; }
.ae-still-check { display: flex; align-items: center; gap: 8px; margin: 4px 5px; }
.ae-still-check > span:first-child { flex: none; width: 22px; height: 22px; border: 1px solid #767676;
  border-radius: 3px; box-sizing: border-box; background: #fff; }
.ae-still-check.ae-still-on > span:first-child { background: #0075ff; border-color: #0075ff; }
.ae-still-check.ae-still-on > span:first-child::after { content: "\\2713"; display: block; color: #fff; font-size: 17px; line-height: 20px; text-align: center; }
.ae-still-readout { margin: 2px 5px; }
.ae-fp-readouts table { display: table; border-collapse: separate; border-spacing: 2px; }
.ae-fp-readouts td, .ae-fp-readouts th { border: 0; padding: 1px; }
.ae-pic { display: grid; box-sizing: border-box; min-width: 260px; font-family: FONT; }
.ae-pic-title { font-size: 13px; font-weight: bold; color: #444; align-self: end; padding: 0 0 4px 5px;
  white-space: nowrap; overflow: hidden; }
.ae-pic-frame { position: relative; border: 1px solid #e5e5e5; box-sizing: border-box; overflow: hidden; }
.ae-pic svg, .ae-pic-frame > img { position: absolute; inset: 0; width: 100%; height: 100%; overflow: visible; }
.ae-pic-axis { position: relative; font-size: 11px; color: #444; }
.ae-pic-axis span { position: absolute; white-space: nowrap; line-height: 1; }
.ae-pic-axis .ae-pic-axis-label { font-size: 13px; }
.ae-pic-x { border-top: 1px solid #000; }
.ae-pic-x.ae-pic-above { border-top: 0; border-bottom: 1px solid #000; }
.ae-pic-y { border-right: 1px solid #000; }
.ae-pic-legend { display: flex; justify-content: flex-end; align-items: flex-start; padding: 6px 5px 0; }
.ae-pic-legend > div { display: grid; gap: 2px 10px; padding: 2px; border: 1px solid #e5e5e5;
  background: rgba(255, 255, 255, 0.6); font-size: 14px; }
.ae-pic-legend > div > span { display: flex; align-items: center; gap: 6px; white-space: nowrap; }
.ae-pic-legend svg { position: static; width: 20px; height: 20px; flex: none; }
""".replace("FONT", _FONT)

#: What a picture's frame keeps as it is in a ``data:`` URL (the rest percent-encoded).
_URL_SAFE = "'=:/;,.()-_"
_TITLE_PX = 24         # the title's band above the frame
_TICK_LABEL_PX = 11    # BokehJS's tick labels
_AXIS_LABEL_PX = 13    # and axis labels


# --- specs: a glyph property is a column of the source, a value, or a field/value spec ---------------

def _column(data: dict, spec, n: int) -> list:
    """``spec`` (a column name, a value, or Bokeh's ``field``/``value``) as ``n`` values."""
    if isinstance(spec, dict):
        spec = spec.get("field", spec.get("value"))
    field = getattr(spec, "field", None)
    if field is not None:
        spec = field
    elif hasattr(spec, "value") and not isinstance(spec, (int, float, str)):
        spec = spec.value
    if isinstance(spec, str) and spec in data:
        return list(data[spec])
    return [spec] * n


def _length(data: dict) -> int:
    return max((len(v) for v in data.values()), default=0)


def _number(value) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


# --- ranges, scales, ticks --------------------------------------------------------------------------

class _Axis1d:
    """One dimension of a figure: its range (start, end), its scale (linear, log or factors) and ticks."""

    def __init__(self, rng, scale, data_values: list[float]):
        self.factors: list[str] | None = None
        self.log = isinstance(scale, bm.LogScale)
        if isinstance(rng, bm.FactorRange):
            self.factors = [str(f) for f in rng.factors]
            self.start, self.end = 0.0, float(len(self.factors))
        elif isinstance(rng, bm.DataRange1d):
            values = [v for v in data_values if v is not None]
            lo, hi = (min(values), max(values)) if values else (0.0, 1.0)
            if _number(rng.start) is not None:
                lo = rng.start
            if _number(rng.end) is not None:
                hi = rng.end
            pad = (hi - lo) * (rng.range_padding or 0) / 2 if rng.range_padding_units == "percent" else (rng.range_padding or 0)
            self.start, self.end = lo - pad, hi + pad
        else:
            self.start, self.end = float(rng.start), float(rng.end)
        if self.start == self.end:
            self.end = self.start + 1.0

    def fraction(self, value) -> float | None:
        """Where ``value`` lies along the range, 0 at its start and 1 at its end (None off the scale)."""
        if self.factors is not None and isinstance(value, str):
            return (self.factors.index(value) + 0.5) / len(self.factors) if value in self.factors else None
        number = _number(value)
        if number is None:
            return None
        if self.log:
            if number <= 0 or self.start <= 0 or self.end <= 0:
                return None
            return (math.log10(number) - math.log10(self.start)) / (math.log10(self.end) - math.log10(self.start))
        return (number - self.start) / (self.end - self.start)

    def span(self, value: float) -> float:
        """A length in data units as a fraction of the range (linear and factor scales)."""
        return abs(value / (self.end - self.start))

    def ticks(self, axis) -> list[tuple[float, str]]:
        """The axis's major ticks inside the range, as (fraction, label)."""
        if self.factors is not None:
            return [((i + 0.5) / len(self.factors), f) for i, f in enumerate(self.factors)]
        lo, hi = sorted((self.start, self.end))
        ticker = axis.ticker
        if isinstance(ticker, bm.FixedTicker):
            values = [t for t in ticker.ticks if lo <= t <= hi]
        elif self.log:
            values = [10.0 ** e for e in range(math.ceil(math.log10(lo)), math.floor(math.log10(hi)) + 1)]
        else:
            values = _nice_ticks(lo, hi, getattr(ticker, "desired_num_ticks", 6))
        overrides = {float(k): v for k, v in (axis.major_label_overrides or {}).items()
                     if _number(k) is not None}
        labels = _tick_labels(values)
        return [(self.fraction(v), overrides.get(float(v), label)) for v, label in zip(values, labels)]


def _nice_ticks(lo: float, hi: float, desired: int) -> list[float]:
    """Ticks at a multiple of 1, 2 or 5 × 10^k, their number nearest ``desired`` (as BokehJS's AdaptiveTicker)."""
    ideal = (hi - lo) / desired
    magnitude = 10.0 ** math.floor(math.log10(ideal))
    interval = min((m * magnitude for m in (0.5, 1, 2, 5, 10)),
                   key=lambda step: abs(desired - (hi - lo) / step))
    first = math.ceil(lo / interval - 1e-9)
    return [round(k * interval, 12) for k in range(first, math.floor(hi / interval + 1e-9) + 1)]


def _tick_labels(values: Sequence[float]) -> list[str]:
    """Labels as BokehJS's BasicTickFormatter writes them: the fewest decimals that tell the ticks apart."""
    for decimals in range(0, 8):
        labels = [f"{v:.{decimals}f}" for v in values]
        if len(set(labels)) == len(labels) and all(abs(float(s) - v) < 1e-9 * max(1.0, abs(v))
                                                    for s, v in zip(labels, values)):
            break
    # BokehJS writes a minus sign, not a hyphen.
    return [(s.rstrip("0").rstrip(".") if "." in s else s).replace("-", "\u2212") for s in labels]


# --- glyphs --------------------------------------------------------------------------------------

def _lang(text_) -> str:
    """`` lang='zh-Hans'`` for an element whose text is Chinese (the English page's tokens), else ''."""
    return " lang='zh-Hans'" if any("\u4e00" <= ch <= "\u9fff" for ch in str(text_)) else ""


def _pct(fraction: float) -> str:
    return f"{100 * fraction:.3f}%"


def _style(fill=None, fill_alpha=1.0, line=None, line_alpha=1.0, width=1.0, dash=None) -> str:
    parts = [f"fill='{html.escape(str(fill))}'" if fill and fill_alpha else "fill='none'"]
    if fill and fill_alpha not in (None, 1, 1.0):
        parts.append(f"fill-opacity='{fill_alpha:g}'")
    if line and line_alpha and width:
        parts.append(f"stroke='{html.escape(str(line))}' stroke-width='{width:g}'")
        if line_alpha != 1:
            parts.append(f"stroke-opacity='{line_alpha:g}'")
        if dash:
            parts.append(f"stroke-dasharray='{html.escape(_dash(dash))}'")
    return " ".join(parts)


def _dash(dash) -> str:
    named = {"dashed": "6 4", "dotted": "2 4", "dotdash": "2 4 6 4", "dashdot": "6 4 2 4"}
    if isinstance(dash, str):
        return named.get(dash, "")
    return " ".join(str(d) for d in dash)


def _marker_path(marker: str, size: float) -> str:
    """A marker of diameter ``size`` px centred on (0, 0), as an SVG path."""
    r = size / 2
    if marker == "triangle":
        h = r * math.sqrt(3) / 2
        return f"M0,{-r:.2f} L{h:.2f},{r / 2:.2f} L{-h:.2f},{r / 2:.2f} Z"
    if marker == "inverted_triangle":
        h = r * math.sqrt(3) / 2
        return f"M0,{r:.2f} L{h:.2f},{-r / 2:.2f} L{-h:.2f},{-r / 2:.2f} Z"
    if marker == "diamond":
        return f"M0,{-r:.2f} L{r * 0.75:.2f},0 L0,{r:.2f} L{-r * 0.75:.2f},0 Z"
    if marker == "star":
        points = []
        for k in range(10):
            radius = r if k % 2 == 0 else r * 0.38
            angle = math.pi / 5 * k - math.pi / 2
            points.append(f"{radius * math.cos(angle):.2f},{radius * math.sin(angle):.2f}")
        return "M" + " L".join(points) + " Z"
    return f"M{-r:.2f},0 A{r:.2f},{r:.2f} 0 1,0 {r:.2f},0 A{r:.2f},{r:.2f} 0 1,0 {-r:.2f},0 Z"


class _Frame:
    """The SVG of a figure's frame; positions are percentages of its box."""

    def __init__(self, x: _Axis1d, y: _Axis1d):
        self.x, self.y, self.parts = x, y, []

    def point(self, x, y) -> tuple[float, float] | None:
        fx, fy = self.x.fraction(x), self.y.fraction(y)
        return None if fx is None or fy is None else (fx, 1 - fy)

    def marker(self, x, y, marker: str, size: float, style: str) -> None:
        p = self.point(x, y)
        if p is not None and size > 0:
            self.parts.append(f"<svg x='{_pct(p[0])}' y='{_pct(p[1])}' overflow='visible'>"
                              f"<path d='{_marker_path(marker, size)}' {style}/></svg>")

    def box(self, left, right, top, bottom, style: str) -> None:
        a, b = self.point(left, top), self.point(right, bottom)
        if a is None or b is None:
            return
        x0, x1 = sorted((a[0], b[0]))
        y0, y1 = sorted((a[1], b[1]))
        self.parts.append(f"<rect x='{_pct(x0)}' y='{_pct(y0)}' width='{_pct(x1 - x0)}' height='{_pct(y1 - y0)}' "
                          f"{style}/>")

    def segment(self, x0, y0, x1, y1, style: str, end: str = "") -> None:
        a, b = self.point(x0, y0), self.point(x1, y1)
        if a is not None and b is not None:
            self.parts.append(f"<line x1='{_pct(a[0])}' y1='{_pct(a[1])}' x2='{_pct(b[0])}' y2='{_pct(b[1])}' "
                              f"{style}{end}/>")

    def path(self, xs, ys, style: str, closed: bool) -> None:
        # A polyline in a box of 1000 × 1000 units stretched to the frame; its stroke keeps its width.
        points = [p for p in (self.point(x, y) for x, y in zip(xs, ys)) if p is not None]
        if len(points) < 2:
            return
        d = "M" + " L".join(f"{1000 * px:.1f},{1000 * py:.1f}" for px, py in points) + (" Z" if closed else "")
        self.parts.append(f"<svg viewBox='0 0 1000 1000' preserveAspectRatio='none'>"
                          f"<path d='{d}' {style} vector-effect='non-scaling-stroke'/></svg>")

    def text(self, x, y, text: str, dx: float, dy: float, align: str, baseline: str, size: str, color: str,
             bold: bool = False) -> None:
        p = self.point(x, y)
        if p is None or text in (None, ""):
            return
        anchor = {"left": "start", "center": "middle", "right": "end"}.get(align, "start")
        base = {"middle": "central", "top": "hanging", "bottom": "alphabetic", "alphabetic": "alphabetic",
                "hanging": "hanging"}.get(baseline, "alphabetic")
        weight = " font-weight='bold'" if bold else ""
        self.parts.append(f"<text x='{_pct(p[0])}' y='{_pct(p[1])}' dx='{dx:g}' dy='{-dy:g}' text-anchor='{anchor}' "
                          f"dominant-baseline='{base}' font-size='{html.escape(str(size))}' "
                          f"fill='{html.escape(str(color))}'{weight}{_lang(text)}>{html.escape(str(text))}</text>")


def _visuals(glyph, data: dict, n: int, prefix_fill="fill", prefix_line="line") -> list[str]:
    fills = _column(data, getattr(glyph, f"{prefix_fill}_color", None), n)
    fill_alphas = _column(data, getattr(glyph, f"{prefix_fill}_alpha", 1.0), n)
    lines = _column(data, getattr(glyph, f"{prefix_line}_color", None), n)
    line_alphas = _column(data, getattr(glyph, f"{prefix_line}_alpha", 1.0), n)
    widths = _column(data, getattr(glyph, f"{prefix_line}_width", 1.0), n)
    dash = getattr(glyph, f"{prefix_line}_dash", None)
    return [_style(fills[i], _number(fill_alphas[i]) or 0.0, lines[i], _number(line_alphas[i]) or 0.0,
                   _number(widths[i]) or 0.0, dash) for i in range(n)]


def _draw_glyph(frame: _Frame, glyph, data: dict) -> None:
    n = _length(data) if data else 0
    col = lambda name: _column(data, getattr(glyph, name), max(n, 1))  # noqa: E731
    if isinstance(glyph, bm.Scatter):
        if n == 0:
            return
        styles, markers, sizes = _visuals(glyph, data, n), col("marker"), col("size")
        for i, (x, y) in enumerate(zip(col("x"), col("y"))):
            frame.marker(x, y, str(markers[i]), _number(sizes[i]) or 0.0, styles[i])
    elif isinstance(glyph, bm.HBar):
        styles = _visuals(glyph, data, n)
        for i, (y, left, right, h) in enumerate(zip(col("y"), col("left"), col("right"), col("height"))):
            if _number(y) is not None and _number(h) is not None:
                frame.box(left, right, float(y) + float(h) / 2, float(y) - float(h) / 2, styles[i])
    elif isinstance(glyph, bm.VBar):
        styles = _visuals(glyph, data, n)
        for i, (x, top, bottom, w) in enumerate(zip(col("x"), col("top"), col("bottom"), col("width"))):
            fx = frame.x.fraction(x)
            if fx is None or _number(w) is None:
                continue
            half = (frame.x.span(float(w)) / 2) if frame.x.factors is None else float(w) / len(frame.x.factors) / 2
            a, b = frame.point(x, top), frame.point(x, bottom)
            if a is not None and b is not None:
                y0, y1 = sorted((a[1], b[1]))
                frame.parts.append(f"<rect x='{_pct(fx - half)}' y='{_pct(y0)}' width='{_pct(2 * half)}' "
                                   f"height='{_pct(y1 - y0)}' {styles[i]}/>")
    elif isinstance(glyph, bm.Rect):
        styles = _visuals(glyph, data, n)
        for i, (x, y, w, h) in enumerate(zip(col("x"), col("y"), col("width"), col("height"))):
            xs, ys, ws, hs = _number(x), _number(y), _number(w), _number(h)
            if None not in (xs, ys, ws, hs):
                frame.box(xs - ws / 2, xs + ws / 2, ys + hs / 2, ys - hs / 2, styles[i])
    elif isinstance(glyph, bm.Segment):
        styles = _visuals(glyph, data, n)
        for i, (x0, y0, x1, y1) in enumerate(zip(col("x0"), col("y0"), col("x1"), col("y1"))):
            frame.segment(x0, y0, x1, y1, styles[i])
    elif isinstance(glyph, (bm.Line, bm.Patch)):
        closed = isinstance(glyph, bm.Patch)
        if n:
            style = _visuals(glyph, data, 1)[0] if closed else _style(None, 0, glyph.line_color, glyph.line_alpha,
                                                                         glyph.line_width, glyph.line_dash)
            frame.path(col("x"), col("y"), style, closed)
    elif isinstance(glyph, bm.Text):
        texts, colors = col("text"), _column(data, glyph.text_color, max(n, 1))
        for i, (x, y) in enumerate(zip(col("x"), col("y"))):
            frame.text(x, y, texts[i], 0, 0, glyph.text_align, glyph.text_baseline, glyph.text_font_size,
                       colors[i])
    else:
        _log.warning("attention explorable: the still picture leaves out a %s glyph", type(glyph).__name__)


def _draw_annotation(frame: _Frame, item) -> None:
    if isinstance(item, bm.LabelSet):
        data = item.source.data
        n = _length(data)
        col = lambda name: _column(data, getattr(item, name), n)  # noqa: E731
        xs, ys, texts = col("x"), col("y"), col("text")
        dxs, dys, aligns, colors = col("x_offset"), col("y_offset"), col("text_align"), col("text_color")
        for i in range(n):
            frame.text(xs[i], ys[i], texts[i], _number(dxs[i]) or 0, _number(dys[i]) or 0, str(aligns[i]),
                       item.text_baseline, item.text_font_size, colors[i], item.text_font_style == "bold")
    elif isinstance(item, bm.Span):
        if item.location is None:
            return
        style = _style(None, 0, item.line_color, item.line_alpha, item.line_width, item.line_dash)
        if item.dimension == "width":
            frame.segment(frame.x.start, item.location, frame.x.end, item.location, style)
        else:
            frame.segment(item.location, frame.y.start, item.location, frame.y.end, style)
    elif isinstance(item, bm.Arrow):
        data = item.source.data
        n = _length(data)
        col = lambda name: _column(data, getattr(item, name), n)  # noqa: E731
        head = item.end
        marker = ""
        if head is not None:
            # The head's size in px, drawn at the line's end and turned along it (SVG's marker, orient=auto).
            s = head.size
            color = html.escape(str(head.line_color))
            marker = (f"<marker id='ae-vee-{item.id}' viewBox='{-s} {-s / 2} {s} {s}' markerWidth='{s}' "
                      f"markerHeight='{s}' markerUnits='userSpaceOnUse' orient='auto' refX='0' refY='0'>"
                      f"<path d='M{-s},{-s / 2} L0,0 L{-s},{s / 2}' fill='none' stroke='{color}' stroke-width='2'/>"
                      f"</marker>")
            frame.parts.append(f"<defs>{marker}</defs>")
        style = _style(None, 0, item.line_color, item.line_alpha, item.line_width, item.line_dash)
        end = f" marker-end='url(#ae-vee-{item.id})'" if head is not None else ""
        for x0, y0, x1, y1 in zip(col("x_start"), col("y_start"), col("x_end"), col("y_end")):
            frame.segment(x0, y0, x1, y1, style, end)
    elif isinstance(item, (bm.Grid, bm.Legend, bm.Axis)):
        return
    else:
        _log.warning("attention explorable: the still picture leaves out a %s", type(item).__name__)


# --- the figure ----------------------------------------------------------------------------------

def _data_values(fig, dim: str) -> list[float]:
    """Every number the figure's glyphs place along ``dim`` ("x" or "y"), for a DataRange1d."""
    values: list[float] = []
    for r in fig.renderers:
        if not isinstance(r, bm.GlyphRenderer) or not r.visible:
            continue
        data = r.data_source.data
        spec = getattr(r.glyph, dim, None)
        values += [v for v in (_number(x) for x in _column(data, spec, max(_length(data), 1))) if v is not None]
    return values


def _axis_band(fig, axis, ticks: list[tuple[float, str]], horizontal: bool) -> int:
    """The axis's depth in px: tick marks, their labels and its title."""
    if axis is None or not axis.visible:
        return 0
    depth = 6 + 5 + (_TICK_LABEL_PX + 3 if horizontal else
                     math.ceil(max((_text_px(str(label), _TICK_LABEL_PX) for _, label in ticks), default=7)))
    if axis.axis_label:
        depth += _AXIS_LABEL_PX + 12  # the label's line and its standoff
    return depth


def _text_px(text_: str, size: float) -> float:
    """About how wide ``text_`` is at ``size`` px: a CJK character a full em, others about 0.55 em."""
    return sum(size if ord(ch) >= 0x2E80 else 0.55 * size for ch in text_)


def _axis_html(axis, ticks: list[tuple[float, str]], side: str) -> str:
    if axis is None or not axis.visible:
        return "<div></div>"
    spans = []
    for fraction, label in ticks:
        if fraction is None or not -1e-9 <= fraction <= 1 + 1e-9:
            continue
        text_ = html.escape(str(label))
        lang = _lang(label)
        if side == "below":
            spans.append(f"<span{lang} style='left:{_pct(fraction)};top:11px;transform:translateX(-50%)'>{text_}</span>")
        elif side == "above":
            spans.append(f"<span{lang} style='left:{_pct(fraction)};bottom:11px;transform:translateX(-50%)'>{text_}</span>")
        else:
            spans.append(f"<span{lang} style='top:{_pct(1 - fraction)};right:11px;transform:translateY(-50%)'>{text_}</span>")
    if axis.axis_label:
        lang = _lang(axis.axis_label)
        label = html.escape(str(axis.axis_label))
        if side == "below":
            spans.append(f"<span class='ae-pic-axis-label'{lang} style='left:50%;bottom:2px;transform:translateX(-50%)'>"
                         f"{label}</span>")
        elif side == "above":
            spans.append(f"<span class='ae-pic-axis-label'{lang} style='left:50%;top:2px;transform:translateX(-50%)'>"
                         f"{label}</span>")
        else:
            spans.append(f"<span class='ae-pic-axis-label'{lang} style='left:0;top:50%;writing-mode:vertical-rl;"
                         f"transform:translateY(-50%) rotate(180deg)'>{label}</span>")
    where = {"below": "ae-pic-x", "above": "ae-pic-x ae-pic-above", "left": "ae-pic-y"}[side]
    return f"<div class='ae-pic-axis {where}' style='position:absolute;inset:0'>{''.join(spans)}</div>"


def _legend_html(fig) -> str:
    legends = [item for item in fig.below if isinstance(item, bm.Legend) and item.visible]
    if not legends:
        return ""
    legend = legends[0]
    entries = []
    for item in legend.items:
        label = item.label.get("value") if isinstance(item.label, dict) else getattr(item.label, "value", item.label)
        swatch = []
        for r in item.renderers:
            glyph = r.glyph
            if isinstance(glyph, bm.Scatter):
                size = glyph.size if isinstance(glyph.size, (int, float)) else 12
                swatch.append(f"<g transform='translate(10,10)'><path d='{_marker_path(str(glyph.marker), min(size, 16))}' "
                              f"{_visuals(glyph, {}, 1)[0]}/></g>")
            elif isinstance(glyph, (bm.HBar, bm.VBar, bm.Patch, bm.Rect)):
                swatch.append(f"<rect x='2' y='4' width='16' height='12' {_visuals(glyph, {}, 1)[0]}/>")
            elif isinstance(glyph, bm.Line):
                swatch.append(f"<line x1='0' y1='10' x2='20' y2='10' "
                              f"{_style(None, 0, glyph.line_color, glyph.line_alpha, glyph.line_width)}/>")
        entries.append(f"<span{_lang(label)}><svg viewBox='0 0 20 20'>{''.join(swatch)}</svg>{html.escape(str(label))}</span>")
    ncols = legend.ncols if legend.ncols != "auto" and legend.ncols else (1 if legend.orientation == "vertical"
                                                                          else len(entries))
    return (f"<div class='ae-pic-legend'><div style='grid-template-columns:repeat({ncols},auto)'>"
            f"{''.join(entries)}</div></div>")


def figure_svg(fig, image: bool = False) -> str:
    """A picture of Bokeh figure ``fig`` in its present state, as HTML holding an SVG frame.

    Parameters
    ----------
    fig : bokeh.models.Plot
        A figure of :mod:`attention_explorable.plots`, its sources filled.
    image : bool, default False
        Whether the frame is an ``<img>`` of its SVG (a ``data:`` URL)
        rather than the SVG itself: an image is what a browser counts as a
        page's largest paint, so a first paint with a plot in sight keeps
        it (the live plot, a canvas, is not counted).

    Returns
    -------
    str
        An element ``div.ae-pic`` (``role=img``, labelled by the title) of
        the figure's height in px and its column's width (within its
        ``min_width`` and ``max_width``), laid out as BokehJS lays out the
        figure: the title above, the axes with their ticks and labels, the
        frame (a 1 px outline) with the grid, glyphs and annotations, the legend
        below. An empty string for a hidden figure.

    Notes
    -----
    Positions in the frame are percentages of its box, so the picture
    stretches as the live figure does; markers, text and line widths keep
    their pixel sizes. Tick positions follow BokehJS's tickers (1, 2 and 5
    × 10^k, about ``desired_num_ticks`` of them; fixed ticks; decades on a
    log axis) and its labels, the fewest decimals that tell them apart.
    """
    if not fig.visible:
        return ""
    x = _Axis1d(fig.x_range, fig.x_scale, _data_values(fig, "x"))
    y = _Axis1d(fig.y_range, fig.y_scale, _data_values(fig, "y"))
    frame = _Frame(x, y)
    x_axes = [a for a in fig.below + fig.above if isinstance(a, bm.Axis)]
    y_axes = [a for a in fig.left + fig.right if isinstance(a, bm.Axis)]
    x_axis, y_axis = (x_axes[0] if x_axes else None), (y_axes[0] if y_axes else None)
    x_ticks = x.ticks(x_axis) if x_axis is not None else []
    y_ticks = y.ticks(y_axis) if y_axis is not None else []
    for grid in fig.center:
        if isinstance(grid, bm.Grid) and grid.visible and grid.grid_line_color:
            ticks = x_ticks if grid.dimension == 0 else y_ticks
            if (grid.dimension == 0 and x.factors) or (grid.dimension == 1 and y.factors):
                continue
            for fraction, _ in ticks:
                if fraction is None:
                    continue
                if grid.dimension == 0:
                    frame.parts.append(f"<line x1='{_pct(fraction)}' y1='0' x2='{_pct(fraction)}' y2='100%' "
                                       f"stroke='{grid.grid_line_color}' stroke-width='1'/>")
                else:
                    frame.parts.append(f"<line x1='0' y1='{_pct(1 - fraction)}' x2='100%' y2='{_pct(1 - fraction)}' "
                                       f"stroke='{grid.grid_line_color}' stroke-width='1'/>")
    for renderer in fig.renderers:
        if isinstance(renderer, bm.GlyphRenderer) and renderer.visible:
            _draw_glyph(frame, renderer.glyph, renderer.data_source.data)
    for item in fig.center:
        if getattr(item, "visible", True):
            _draw_annotation(frame, item)

    above = x_axis is not None and x_axis in fig.above
    legend = _legend_html(fig)
    title = fig.title.text if fig.title is not None and fig.title.text else ""
    x_band = _axis_band(fig, x_axis, x_ticks, True)
    left = _axis_band(fig, y_axis, y_ticks, False) + (fig.min_border_left or fig.min_border)
    right = fig.min_border_right or fig.min_border
    # Rows: the title, the x axis when above, the frame (what the others leave), the x axis, the legend.
    rows = [f"{_TITLE_PX}px" if title else "0", *([f"{x_band}px"] if above else []), "1fr",
            *([] if above else [f"{x_band}px"]), "auto"]
    svg = f"<svg xmlns='http://www.w3.org/2000/svg' font-family=\"{_FONT}\">{''.join(frame.parts)}</svg>"
    if image:
        svg = f"<img alt='' src=\"data:image/svg+xml,{quote(svg, safe=_URL_SAFE)}\">"
    x_cell = f"<div style='grid-column:2;position:relative'>{_axis_html(x_axis, x_ticks, 'above' if above else 'below')}</div>"
    cells = [f"<div class='ae-pic-title' style='grid-column:2'{_lang(title)}>{html.escape(title)}</div>",
             *([x_cell] if above else []),
             f"<div style='grid-column:1;position:relative'>{_axis_html(y_axis, y_ticks, 'left')}</div>",
             f"<div class='ae-pic-frame' style='grid-column:2'>{svg}</div>",
             *([] if above else [x_cell]),
             f"<div style='grid-column:1 / span 3'>{legend}</div>"]
    width = f"max-width:{fig.max_width}px;" if fig.max_width else ""
    style = (f"height:{fig.height}px;{width}grid-template-columns:{left}px 1fr {right}px;"
             f"grid-template-rows:{' '.join(rows)};padding:{fig.min_border}px 0")
    label = html.escape(title or "plot")
    return f"<div class='ae-pic' role='img' aria-label='{label}' style='{style}'>{''.join(cells)}</div>"


# --- the layout ----------------------------------------------------------------------------------

def _styles(styles: dict | None) -> str:
    return "".join(f"{k}:{v};" for k, v in (styles or {}).items())


def _margin(margin) -> str:
    """Panel's ``margin`` (px: one number, (vertical, horizontal) or (top, right, bottom, left)) as CSS."""
    if margin is None:
        return ""
    values = [margin] if isinstance(margin, (int, float)) else list(margin)
    return "margin:" + " ".join(f"{v}px" for v in values) + ";"


def _model_html(model, images: bool = False) -> str:
    """One Bokeh model of a layout as still HTML."""
    if not getattr(model, "visible", True):
        return ""
    classes = " ".join(getattr(model, "css_classes", []) or [])
    if isinstance(model, bm.Plot):
        return figure_svg(model, image=images)
    if isinstance(model, HTMLModel):
        if "ae-sr-only" in classes or (model.html_attributes or {}).get("role") == "status" or not model.text:
            return ""
        if any(_is_screen_reader(s) for s in model.stylesheets or []):
            return ""
        # Not the live readout's classes: a page's scripts and tests find the live one by them.
        return f"<div class='ae-still-readout ae-fp-readouts'>{_unclassed(html.unescape(model.text))}</div>"
    if isinstance(model, bm.Row):
        return f"<div class='ae-still-row'>{''.join(_model_html(c, images) for c in model.children)}</div>"
    if isinstance(model, bm.Column):
        return f"<div class='ae-still-col'>{''.join(_model_html(c, images) for c in model.children)}</div>"
    if isinstance(model, bm.Slider):
        fraction = (model.value - model.start) / (model.end - model.start) if model.end != model.start else 0
        fraction = min(1.0, max(0.0, fraction))
        return (f"<div class='ae-still-slider'><div class='ae-still-label'{_lang(model.title)}>{html.escape(model.title or '')}:</div>"
                f"<div class='ae-still-track'><span class='ae-still-handle' style='left:{_pct(fraction)}'></span>"
                f"</div></div>")
    if isinstance(model, bm.TextInput):
        box = "ae-box" in classes
        value = model.value or ""
        shown = (html.escape(value) if value else
                 f"<span class='ae-still-placeholder'>{html.escape(model.placeholder or '')}</span>")
        label = ("" if box or not model.title else
                 f"<div class='ae-still-label'{_lang(model.title)}>{html.escape(model.title)}</div>")
        return (f"<div class='ae-still-input{' ae-still-box' if box else ''}'>{label}"
                f"<div class='ae-still-field'>{shown}</div></div>")
    if isinstance(model, bm.Button):
        kind = {"primary": " ae-still-primary", "success": " ae-still-success"}.get(model.button_type, "")
        return f"<div class='ae-still-btn{kind}'{_lang(model.label)}>{html.escape(model.label or '')}</div>"
    if isinstance(model, bm.RadioButtonGroup):
        buttons = "".join(f"<div class='ae-still-btn{' ae-still-active' if i == model.active else ''}'{_lang(label)}>"
                          f"{html.escape(label)}</div>" for i, label in enumerate(model.labels))
        direction = "column" if model.orientation == "vertical" else "row"
        return f"<div class='ae-still-group' style='flex-direction:{direction}'>{buttons}</div>"
    if isinstance(model, bm.Checkbox):
        on = " ae-still-on" if model.active else ""
        return (f"<div class='ae-still-check{on}'><span></span><span{_lang(model.label)}>"
                f"{html.escape(model.label or '')}</span></div>")
    _log.warning("attention explorable: the still leaves out a %s", type(model).__name__)
    return ""


#: The classes of a readout's HTML that only style it (ui.CSS), kept in a still; the others name a live
#: readout (``ae-output``, ``ae-temperature-readout``...), which a page's scripts and tests find by them.
_STYLE_CLASSES = {"ae-kind", "ae-hint", "ae-error"}


def _unclassed(text_: str) -> str:
    """``text_`` (a readout's HTML) with each live readout's ``ae-`` class renamed ``ae-fp-``."""
    def rename(m: re.Match) -> str:
        names = [n if n in _STYLE_CLASSES or not n.startswith("ae-") else "ae-fp-" + n[3:] for n in m.group(2).split()]
        return f"class={m.group(1)}{' '.join(names)}{m.group(1)}"
    return re.sub(r"class=(['\"])([^'\"]*)\1", rename, text_)


def _is_screen_reader(sheet) -> bool:
    css = getattr(sheet, "css", sheet)
    return isinstance(css, str) and css == ui.SR_ONLY


def _is_shared(css: str) -> bool:
    """Whether ``css`` is one of the page-wide sheets, which the page carries already."""
    return css in (ui.CSS, ui.SR_ONLY, CSS)


def still_html(component, images: bool = False) -> str:
    """``component`` (a Panel layout, pane or Viewer, or a Bokeh model) as still HTML, laid out as it is live.

    Flex boxes, columns and rows keep their flex styles; Bokeh panes are
    written by their model (:func:`figure_svg` for a figure); HTML panes
    keep their HTML; hidden parts and screen-reader-only readouts are left
    out (the live page brings them). The result is inert: no control
    answers until the live page takes its place. ``images``: each figure's
    frame as an image (:func:`figure_svg`), for a page's first paint.
    """
    if isinstance(component, pn.viewable.Viewer):
        return still_html(component.__panel__(), images)
    if isinstance(component, bm.Model):
        return _model_html(component, images)
    if not getattr(component, "visible", True):
        return ""
    styles = _styles(getattr(component, "styles", None))
    if isinstance(component, pn.FlexBox):
        wrap = f"flex-wrap:{component.flex_wrap};" if component.flex_wrap else ""
        direction = "column" if component.flex_direction in ("column", "column-reverse") else "row"
        inner = "".join(still_html(o, images) for o in component.objects)
        return f"<div class='ae-still-flex' style='flex-direction:{direction};{wrap}{styles}'>{inner}</div>"
    if isinstance(component, (pn.Column, pn.Row)):
        kind = "ae-still-col" if isinstance(component, pn.Column) else "ae-still-row"
        inner = "".join(still_html(o, images) for o in component.objects)
        return f"<div class='{kind}' style='{styles}'>{inner}</div>"
    if isinstance(component, pn.pane.Bokeh):
        return _model_html(component.object, images)
    if isinstance(component, pn.pane.HTML):
        if not component.object:
            return ""
        # The pane's own rules (a shadow root's, live), where they are its alone.
        own = "".join(f"<style>{s}</style>" for s in component.stylesheets
                      if isinstance(s, str) and ":host" not in s and not _is_shared(s))
        # A slot inside a still is a picture only: its part comes with the live part around it.
        inner = re.sub(r" data-ae-slot='[^']*'", "", component.object)
        return f"{own}<div class='ae-still-html' style='{_margin(component.margin)}{styles}'>{inner}</div>"
    if isinstance(component, pn.layout.ListLike):
        return "".join(still_html(o, images) for o in component.objects)
    _log.warning("attention explorable: the still leaves out a %s", type(component).__name__)
    return ""


# --- slots: where a part of a prebuilt page comes to life ---------------------------------------

#: The name prefix of a document root that web/when_seen.js brings to life when its slot nears the screen.
WHEN_SEEN = "ae-when-seen:"
#: The room an exercise's live controls (its box or options, its buttons) take below its question.
_EXERCISE_CONTROLS_PX = 100


def slot_html(key: str, still: str, css: str, now_with: str = "", height: tuple[int, int] | None = None) -> str:
    """Where part ``key`` comes to life (web/when_seen.js), showing ``still`` (plain HTML) until then.

    The slot keeps about the live part's room (``height``: wide screen and
    phone, in pixels; an exercise: its question and the room of its
    controls), so that the page does not move when the part comes.
    ``now_with``: a URL parameter with which the part is built at once
    (``room``: the class panel's part).
    """
    slot = f"ae-slot-{re.sub(r'[^a-z0-9-]', '-', key.lower())}"
    if height is not None:
        wide, narrow = height
        style = (f"<style>.{slot} {{ min-height: {wide}px; box-sizing: border-box; }} "
                 f"@media (max-width: 700px) {{ .{slot} {{ min-height: {narrow}px; }} }}</style>")
    else:
        style = f"<style>.{slot} {{ padding-bottom: {_EXERCISE_CONTROLS_PX}px; }}</style>"
    now = f" data-ae-now-with='{html.escape(now_with)}'" if now_with else ""
    return f"{style}<div class='ae-slot {css} {slot}' data-ae-slot='{html.escape(key)}'{now}>{still}</div>"
