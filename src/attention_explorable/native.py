"""The student page of an explorable: plain HTML, native controls and SVG plots, no BokehJS.

A live Panel component (a notebook, ``panel serve``, the instructor's page)
is drawn by Bokeh. The page a student opens (``export``, ``serve``) is the
same component written out once as the browser's own elements:

* each control a native one (a slider ``<input type=range>``, its number
  box, buttons, the prediction box), each readout a ``<div>`` holding the
  text the Python view computed, each figure a box the page draws as SVG;
* beside them, one JSON **spec**: every model the explorable's JavaScript
  module knows (by the same names as on a Bokeh page: the state model, the
  sources, ranges and axes, the controls, the readouts), their properties,
  each figure's glyphs (:func:`figure_spec`) and which ES module runs on
  which event (the ``CustomJS`` callbacks the Viewer attached, by module
  name).

``web/native.js`` reads the spec, gives each model an object with the
properties BokehJS's model has (``value``, ``visible``, ``text``, ``data``,
``setv`` ...) bound to its element, and runs the same modules as a Bokeh
page: one module per explorable, whichever renderer draws it
(``web/svg.js`` draws the figures). Nothing on the page is Bokeh's.

References: docs/architecture.md, "The student page".
"""

from __future__ import annotations

import html
import json
import logging
import math
import re
from importlib import resources

import panel as pn
from bokeh import models as bm
from bokeh.core.property.vectorization import Field, Value
from bokeh.document import Document
from panel.io.state import set_curdoc
from bokeh.model import DataModel
from bokeh.models import CustomJS
from panel.models.markup import HTML as HTMLModel

from . import ui
from .content import MATH_FONT, math_font_base64, math_font_face
from .explorables.base import ScriptedPane, web_module, web_module_name

__all__ = [
    "CSS",
    "NativePage",
    "content_security_policy",
    "element_script",
    "embed_data",
    "embed_script",
    "figure_spec",
    "page_script",
    "student_page",
]

_log = logging.getLogger(__name__)


#: The page's styles: the controls and plots look as the Bokeh figures and Panel widgets of the live apps.
CSS = """
[hidden] { display: none !important; }
/* The page's text comes in few sizes: 15px (13px small, the headings' own), one family (ui.FONT_FAMILY).
   Each size and weight of a font is a lookup the browser makes before its first paint (a few ms each on
   a cold page: benchmarks/RESULTS.md), so a control keeps the text's font rather than the browser's. */
input, button, select, textarea { font: inherit; }
.ae-n-flex, .ae-n-col, .ae-n-row { display: flex; min-width: 0; box-sizing: border-box; }
.ae-n-col { flex-direction: column; }
.ae-n-row { flex-direction: row; }
.ae-n-col > *, .ae-n-row > * { min-width: 0; }
.ae-n-row > .ae-n-btn-host, .ae-n-row > .ae-n-slider { flex: 1 1 0; }
.ae-n-html { font-size: 15px; line-height: 1.42857; }
.ae-n-readout { margin: 2px 5px; line-height: 1.42857; }
.ae-n-btn-host { display: flex; margin: 4px 5px; min-width: 0; }
.ae-n-btn-host > button, .ae-n-group > button { flex: 1 1 auto; box-sizing: border-box; min-height: 36px;
  padding: 6px 12px; border: 1px solid var(--ae-border); border-radius: 4px; background: var(--ae-surface);
  color: var(--ae-text); font: inherit;
  font-size: 15px; line-height: normal; cursor: pointer; min-width: 0; overflow-wrap: anywhere; }
.ae-n-btn-host > button:hover, .ae-n-group > button:hover { background: var(--ae-surface-hover); }
.ae-n-btn-host > button.ae-n-primary, .ae-n-group > button[aria-pressed=true] { background: var(--ae-accent);
  border-color: var(--ae-accent-border); color: #fff; }
.ae-n-btn-host > button.ae-n-success { background: #2e7d32; border-color: #1b5e20; color: #fff; }
.ae-n-btn-host > button:disabled, .ae-n-group > button:disabled { opacity: 0.6; cursor: default; }
.ae-n-group { display: flex; margin: 4px 5px; min-width: 0; }
.ae-n-group > button { border-radius: 0; margin: 0 0 0 -1px; }
.ae-n-group > button:first-child { border-radius: 4px 0 0 4px; margin: 0; }
.ae-n-group > button:last-child { border-radius: 0 4px 4px 0; }
.ae-n-group.ae-n-vertical { flex-direction: column; }
.ae-n-group.ae-n-vertical > button { margin: -1px 0 0; border-radius: 0; }
.ae-n-group.ae-n-vertical > button:first-child { border-radius: 4px 4px 0 0; margin: 0; }
.ae-n-group.ae-n-vertical > button:last-child { border-radius: 0 0 4px 4px; }
.ae-n-slider { display: flex; flex-direction: column; flex: 1 1 auto; margin: 4px 8px 4px 5px; min-width: 0; }
.ae-n-slider > label, .ae-n-input > label { font-size: 15px; margin: 0 0 2px; line-height: 1.42857; }
.ae-n-slider > input { width: 100%; margin: 6px 0; height: 28px; accent-color: var(--ae-accent); }
.ae-n-input { display: flex; flex-direction: column; margin: 4px 5px; min-width: 0; }
.ae-n-input.ae-box { flex: 0 0 86px; width: 86px; margin: 22px 5px 4px 0; }
.ae-n-input > input { box-sizing: border-box; min-height: 32px; padding: 4px 8px; border: 1px solid var(--ae-border);
  border-radius: 4px; background: var(--ae-surface); color: var(--ae-text); font: inherit; font-size: 15px;
  width: 100%; }
.ae-n-input > textarea { box-sizing: border-box; padding: 6px 8px; border: 1px solid var(--ae-border);
  border-radius: 4px; background: var(--ae-surface); color: var(--ae-text); font: inherit; font-size: 15px;
  width: 100%; resize: vertical; }
/* A touch screen's box has 16px text (a phone's browser zooms into a smaller one as it is focused). */
@media (pointer: coarse) { .ae-n-input > input, .ae-n-input > textarea { font-size: 16px; } }
.ae-n-radios { display: flex; flex-direction: column; gap: 4px 18px; margin: 4px 5px; font-size: 15px; }
.ae-n-radios.ae-n-inline { flex-direction: row; flex-wrap: wrap; }
.ae-n-radios label { display: flex; align-items: center; gap: 6px; min-height: 32px; cursor: pointer; }
.ae-n-radios input { width: 22px; height: 22px; margin: 0; flex: none; }
.ae-n-check { display: flex; align-items: center; gap: 8px; margin: 4px 5px; font-size: 15px; }
.ae-n-check input { width: 24px; height: 24px; margin: 0; flex: none; }
.ae-n-sr { position: absolute !important; width: 1px !important; height: 1px !important; overflow: hidden !important;
  clip-path: inset(50%); white-space: nowrap; margin: 0 !important; padding: 0 !important; }
button:focus-visible, input:focus-visible, a:focus-visible, .ae-n-plot:focus-visible {
  outline: 3px solid var(--ae-focus); outline-offset: 2px; }
.ae-n-plot { position: relative; box-sizing: border-box; min-width: 260px; font-family: FONT; display: grid;
  touch-action: pan-y; -webkit-user-select: none; user-select: none; }
/* A plot's drawing has the light figure's colours: on dark its lightness is turned over, hues kept. */
.ae-n-plot svg { filter: var(--ae-plot-filter); }
.ae-n-plot.ae-n-drag { touch-action: none; }
/* A title longer than a narrow phone's plot wraps onto a second line (its row grows), never clipped. */
.ae-pic-title { font-size: var(--ae-small); font-weight: bold; color: var(--ae-muted); align-self: end; padding: 0 0 4px 5px;
  line-height: 1.25; overflow-wrap: anywhere; }
.ae-pic-frame { position: relative; border: 1px solid var(--ae-rule); box-sizing: border-box; overflow: hidden; }
.ae-pic-frame > svg { position: absolute; inset: 0; width: 100%; height: 100%; overflow: visible; }
.ae-pic-axis { position: relative; font-size: var(--ae-small); color: var(--ae-muted); }
.ae-pic-axis span { position: absolute; white-space: nowrap; line-height: 1; }
.ae-pic-x { border-top: 1px solid var(--ae-text); }
.ae-pic-x.ae-pic-above { border-top: 0; border-bottom: 1px solid var(--ae-text); }
.ae-pic-y { border-right: 1px solid var(--ae-text); }
.ae-pic-legend { display: flex; justify-content: flex-end; align-items: flex-start; padding: 6px 5px 0; }
.ae-pic-legend > div { display: grid; gap: 2px 10px; padding: 2px; border: 1px solid var(--ae-rule);
  background: var(--ae-background); color: var(--ae-text); font-size: var(--ae-small); }
.ae-pic-legend > div > span { display: flex; align-items: center; gap: 6px; white-space: nowrap; }
.ae-pic-legend svg { width: 20px; height: 20px; flex: none; }
/* A plot's words are small text (ui.CSS's --ae-small: on a phone as large as the text around them). */
.ae-n-plot svg text { font-size: var(--ae-small); }
""".replace("FONT", ui.FONT_FAMILY)

#: Properties of a model the page's modules read or write (the rest of a Bokeh model stays in Python).
_PROPS = {
    "DataModel": None,  # a state model: every property it has
    "ColumnDataSource": ("data", "selected"),
    "Selection": ("indices",),
    "Range1d": ("start", "end"),
    "DataRange1d": ("start", "end"),
    "FactorRange": ("factors",),
    "Title": ("text",),
    "Axis": ("axis_label", "major_label_overrides", "visible"),
    "Slider": ("value", "start", "end", "step", "title", "visible", "disabled"),
    "TextInput": ("value", "value_input", "placeholder", "title", "visible", "disabled"),
    "TextAreaInput": ("value", "value_input", "placeholder", "title", "visible", "disabled"),
    "RadioGroup": ("labels", "active", "visible", "disabled"),
    "Button": ("label", "button_type", "visible", "disabled"),
    "RadioButtonGroup": ("labels", "active", "visible", "disabled", "html_attributes"),
    "Checkbox": ("label", "active", "visible", "disabled"),
    "HTML": ("text", "visible"),
    "Plot": ("visible", "css_classes"),
    "Layout": ("visible",),
}


def _kind(model) -> str:
    if isinstance(model, DataModel):
        return "DataModel"
    if isinstance(model, HTMLModel):
        return "HTML"
    if isinstance(model, bm.Plot):
        return "Plot"
    if isinstance(model, bm.Axis):
        return "Axis"
    if isinstance(model, bm.LayoutDOM) and not isinstance(model, bm.widgets.Widget):
        return "Layout"
    return type(model).__name__


def _json(value):
    """A property's value as JSON (a model as a reference)."""
    if isinstance(value, bm.Model):
        return {"$ref": value.id}
    if isinstance(value, dict):
        return {str(k): _json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json(v) for v in value]
    if hasattr(value, "tolist"):
        return value.tolist()
    if isinstance(value, Field):
        return {"field": value.field}
    if isinstance(value, Value):
        return {"value": _json(value.value)}
    return value


def _spec_value(value):
    """A glyph's property: a column name, a number or string, or Bokeh's field / value."""
    if isinstance(value, (Field, Value)):
        return _json(value)
    if isinstance(value, dict):
        return {k: _json(v) for k, v in value.items() if k in ("field", "value")}
    return _json(value)


_GLYPHS = {
    bm.Scatter: ("x", "y", "marker", "size"),
    bm.HBar: ("y", "left", "right", "height"),
    bm.VBar: ("x", "top", "bottom", "width"),
    bm.Rect: ("x", "y", "width", "height"),
    bm.Segment: ("x0", "y0", "x1", "y1"),
    bm.Line: ("x", "y"),
    bm.Patch: ("x", "y"),
    bm.Text: ("x", "y", "text", "text_color", "text_align", "text_baseline", "text_font_size"),
}
_VISUALS = ("fill_color", "fill_alpha", "line_color", "line_alpha", "line_width", "line_dash")


def _glyph(glyph) -> dict | None:
    kind = next((k for k in _GLYPHS if isinstance(glyph, k)), None)
    if kind is None:
        _log.warning("attention explorable: the page leaves out a %s glyph", type(glyph).__name__)
        return None
    spec = {"type": kind.__name__}
    for name in (*_GLYPHS[kind], *_VISUALS):
        if name in glyph.properties():
            spec[name] = _spec_value(getattr(glyph, name))
    return spec


def figure_spec(fig, ref) -> dict:
    """What ``web/svg.js`` needs to draw Bokeh figure ``fig``: its frame, axes, glyphs, annotations, legend.

    Parameters
    ----------
    fig : bokeh.models.Plot
        A figure of :mod:`attention_explorable.plots`.
    ref : callable
        Turns a model the page keeps live (a source, a range, an axis, the
        title) into its JSON reference, registering it.

    Returns
    -------
    dict
        JSON: ``height``, ``min_width``, ``max_width``, ``min_border`` (px);
        ``x``/``y``: the range (a reference), ``log``, and for a
        ``DataRange1d`` its padding; ``x_axis``/``y_axis``: the axis (a
        reference), its side, its fixed ticks or desired number of ticks;
        ``grid``: the grid lines' colours; ``renderers``: each glyph
        (:data:`_GLYPHS` properties, a column name, a value or Bokeh's
        ``field``/``value``) with its source; ``annotations``: label sets,
        spans and arrows; ``legend``: entries (label, swatch glyphs) and
        columns; ``drag``: the source a pointer drags (PointDrawTool).
    """

    def dim(rng, scale):
        out = {"range": ref(rng), "log": isinstance(scale, bm.LogScale)}
        if isinstance(rng, bm.DataRange1d):
            out["padding"] = [rng.range_padding or 0, rng.range_padding_units]
        return out

    def axis(side_axes, side):
        axes = [a for a in side_axes if isinstance(a, bm.Axis)]
        if not axes:
            return None
        a = axes[0]
        ticker = a.ticker
        return {
            "model": ref(a),
            "side": side,
            "ticks": list(ticker.ticks) if isinstance(ticker, bm.FixedTicker) else None,
            "desired": getattr(ticker, "desired_num_ticks", 6),
        }

    renderers = []
    for r in fig.renderers:
        if isinstance(r, bm.GlyphRenderer):
            glyph = _glyph(r.glyph)
            if glyph is not None:
                renderers.append({"glyph": glyph, "source": ref(r.data_source), "visible": r.visible, "id": r.id})
    annotations = []
    for item in fig.center:
        if isinstance(item, bm.LabelSet):
            annotations.append(
                {
                    "type": "LabelSet",
                    "source": ref(item.source),
                    **{
                        k: _spec_value(getattr(item, k))
                        for k in (
                            "x",
                            "y",
                            "text",
                            "x_offset",
                            "y_offset",
                            "text_align",
                            "text_color",
                            "text_baseline",
                            "text_font_size",
                            "text_font_style",
                        )
                    },
                }
            )
        elif isinstance(item, bm.Span):
            annotations.append(
                {
                    "type": "Span",
                    "location": item.location,
                    "dimension": item.dimension,
                    "line_color": item.line_color,
                    "line_alpha": item.line_alpha,
                    "line_width": item.line_width,
                    "line_dash": _json(item.line_dash),
                    "visible": item.visible,
                }
            )
        elif isinstance(item, bm.Arrow):
            head = item.end
            annotations.append(
                {
                    "type": "Arrow",
                    "source": ref(item.source),
                    "id": item.id,
                    **{k: _spec_value(getattr(item, k)) for k in ("x_start", "y_start", "x_end", "y_end")},
                    "line_color": item.line_color,
                    "line_alpha": item.line_alpha,
                    "line_width": item.line_width,
                    "line_dash": _json(item.line_dash),
                    "head": None if head is None else {"size": head.size, "color": head.line_color},
                }
            )
        elif not isinstance(item, (bm.Grid, bm.Legend, bm.Axis)):
            _log.warning("attention explorable: the page leaves out a %s", type(item).__name__)
    legend = None
    legends = [item for item in fig.below if isinstance(item, bm.Legend) and item.visible]
    if legends:
        entries = []
        for item in legends[0].items:
            label = (
                item.label.get("value") if isinstance(item.label, dict) else getattr(item.label, "value", item.label)
            )
            entries.append({"label": str(label), "glyphs": [g for g in (_glyph(r.glyph) for r in item.renderers) if g]})
        lg = legends[0]
        ncols = lg.ncols if lg.ncols != "auto" and lg.ncols else (1 if lg.orientation == "vertical" else len(entries))
        legend = {"entries": entries, "ncols": ncols}
    grid = {}
    for g in fig.center:
        if isinstance(g, bm.Grid) and g.visible and g.grid_line_color:
            grid["x" if g.dimension == 0 else "y"] = g.grid_line_color
    drag = next((t for t in fig.tools if isinstance(t, bm.PointDrawTool)), None)
    return {
        "height": fig.height,
        "match_aspect": bool(fig.match_aspect),
        "min_width": fig.min_width,
        "max_width": fig.max_width,
        "min_border": fig.min_border,
        "min_border_left": fig.min_border_left,
        "min_border_right": fig.min_border_right,
        "title": ref(fig.title) if fig.title is not None else None,
        "x": dim(fig.x_range, fig.x_scale),
        "y": dim(fig.y_range, fig.y_scale),
        "x_axis": axis(fig.above, "above") or axis(fig.below, "below"),
        "y_axis": axis(fig.left, "left") or axis(fig.right, "right"),
        "grid": grid,
        "renderers": renderers,
        "annotations": annotations,
        "legend": legend,
        "drag": ref(drag.renderers[0].data_source) if drag is not None and drag.renderers else None,
        "tap": "tap" in fig.js_event_callbacks,
    }


def _value_text(value: float) -> str:
    """A slider's value as Bokeh's slider says it (twin of ``valueText`` in ``web/shared.js``)."""
    return str(int(value)) if float(value).is_integer() else f"{value:.2f}"


_HOST = re.compile(r":host(\(([^)]*)\))?")


def _scoped(css: str, scope: str) -> str:
    """``css`` (a model's stylesheet, written for its shadow root) with its rules applied under ``.scope``."""
    out = []
    for rule in css.split("}"):
        if "{" not in rule:
            continue
        selectors, body = rule.split("{", 1)
        parts = []
        for sel in selectors.split(","):
            sel = sel.strip()
            if not sel or sel.startswith(":root") or ".bk-" in sel or "noUi" in sel:
                continue
            if ":host" in sel:
                parts.append(_HOST.sub(lambda m: f".{scope}{m.group(2) or ''}", sel))
            else:
                parts.append(f".{scope} {sel}")
        if parts:
            out.append(f"{', '.join(parts)} {{{body}}}")
    return "\n".join(out)


class NativePage:
    """One component written out as a student page's elements and the spec ``web/native.js`` runs.

    Build the component inside :meth:`build` (a document is current, so its
    callbacks on the document's events are kept), then write it with
    :meth:`html` and read :meth:`spec`.

    Parameters
    ----------
    build : callable
        Returns the component: a Panel layout, pane or Viewer.
    """

    def __init__(self, build):
        self._doc = Document()
        with set_curdoc(self._doc):
            self.component = build()
        self._models: dict[str, dict] = {}
        self._callbacks: dict[str, dict] = {}
        self._sheets: dict[str, str] = {}
        self._ids = 0
        #: The explorables written as one module that the page holds, by name (``web/dist/page/<name>.js``).
        self.modules: list[str] = []
        self.classroom: str | None = None  # the language of the class, on a page a class may join
        #: The page scripts its ScriptedPanes run, by name (``web/dist/page/<name>.js``, run by ``web/start.js``).
        self.scripts: list[str] = []
        self.body = self._layout(self.component)
        doc_events = {}
        for event, callbacks in self._doc.callbacks._js_event_callbacks.items():
            kept = []
            for cb in callbacks:
                if event == "document_ready" and self._plain(cb):  # a page script with JSON arguments
                    name = web_module_name(cb.code)
                    self.scripts.append(name)
                    data = json.dumps(cb.args, ensure_ascii=False).replace("</", "<\\/")
                    self.body += f"<div hidden data-ae-script='{html.escape(name)}'><script type='application/json'>{data}</script></div>"
                else:
                    kept.append(self._callback(cb))
            if kept:
                doc_events[event] = kept
        self._doc_events = doc_events
        self._stable_ids()

    @staticmethod
    def _plain(cb) -> bool:
        """Whether ``cb`` is a CustomJS of ours whose arguments are plain JSON (no Bokeh model among them)."""
        if not isinstance(cb, CustomJS):
            return False
        try:
            json.dumps(cb.args)
        except TypeError:
            return False
        return True

    def _stable_ids(self) -> None:
        """Name the models ``m1``, ``m2`` ... in the order the page meets them, not by Bokeh's ids, which
        count every model the process made: the same page is then the same file in every process."""
        names: dict[str, str] = {}
        for i, key in enumerate([*self._models, *self._callbacks], 1):
            names[key] = f"m{i}"
        for spec in self._models.values():
            for r in spec.get("figure", {}).get("renderers", []) + spec.get("figure", {}).get("annotations", []):
                if "id" in r:
                    names.setdefault(r["id"], f"m{len(names) + 1}")

        def rename(value):
            if isinstance(value, str):
                return names.get(value, value)
            if isinstance(value, dict):
                return {names.get(k, k): rename(v) for k, v in value.items()}
            if isinstance(value, list):
                return [rename(v) for v in value]
            return value

        self._models, self._callbacks = rename(self._models), rename(self._callbacks)
        self._doc_events = rename(self._doc_events)
        self.body = re.sub(
            r"data-ae-model='([^']+)'", lambda m: f"data-ae-model='{names.get(m.group(1), m.group(1))}'", self.body
        )

    # --- the spec --------------------------------------------------------------
    def spec(self) -> dict:
        """The JSON the page's script mounts: ``models`` (id -> type, props, events), ``callbacks``
        (id -> module, args), ``document`` (event -> callback ids)."""
        return {"models": self._models, "callbacks": self._callbacks, "document": self._doc_events}

    def css(self) -> str:
        """The models' own stylesheets, each once, scoped to the elements that carry them."""
        return "\n".join(_scoped(css, scope) for css, scope in self._sheets.items())

    def _callback(self, cb) -> str:
        if not isinstance(cb, CustomJS):
            raise TypeError(f"the page runs only the project's ES modules, not a {type(cb).__name__}")
        if cb.id not in self._callbacks:
            self._callbacks[cb.id] = {}  # placed first: its args may refer back to models with this callback
            self._callbacks[cb.id].update(module=web_module_name(cb.code), args=self._args(cb.args))
        return cb.id

    def _args(self, value):
        if isinstance(value, bm.Model):
            return self.ref(value)
        if isinstance(value, dict):
            return {str(k): self._args(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self._args(v) for v in value]
        return _json(value)

    def ref(self, model) -> dict:
        """``model``'s JSON reference, its entry in the spec made on first use."""
        if model.id in self._models:
            return {"$ref": model.id}
        kind = _kind(model)
        entry: dict = {"type": kind}
        self._models[model.id] = entry
        names = _PROPS.get(kind, ("visible",))
        if names is None:
            names = sorted(model.properties() - bm.Model.properties() - {"name", "tags"})
        entry["props"] = {n: _json(getattr(model, n)) for n in names if n in model.properties()}
        for value in entry["props"].values():  # a model a property names (a source's selection)
            if isinstance(value, dict) and set(value) == {"$ref"}:
                self.ref(next(m for m in model.references() if m.id == value["$ref"]))
        if kind == "Plot":
            entry["figure"] = figure_spec(model, self.ref)
        if isinstance(model, bm.FactorRange):
            entry["type"] = "FactorRange"
        on = {}
        for event, callbacks in model.js_property_callbacks.items():
            on[event] = [self._callback(cb) for cb in callbacks]
        for event, callbacks in model.js_event_callbacks.items():
            on[event] = [self._callback(cb) for cb in callbacks]
        if on:
            entry["on"] = on
        return {"$ref": model.id}

    # --- the elements ----------------------------------------------------------
    def _id(self) -> str:
        self._ids += 1
        return f"ae-n{self._ids}"

    def _classes(self, model, *extra) -> str:
        classes = [*extra, *(getattr(model, "css_classes", None) or [])]
        for sheet in getattr(model, "stylesheets", None) or []:
            css = getattr(sheet, "css", sheet)
            if isinstance(css, str) and css.strip() and css != ui.CSS:
                classes.append(self._sheets.setdefault(css, f"ae-css-{len(self._sheets) + 1}"))
        return html.escape(" ".join(dict.fromkeys(c for c in classes if c)))

    def _attrs(self, model, *extra, style: str = "") -> str:
        self.ref(model)
        hidden = "" if getattr(model, "visible", True) else " hidden"
        style = f" style='{html.escape(style)}'" if style else ""
        return f"class='{self._classes(model, *extra)}' data-ae-model='{model.id}'{style}{hidden}"

    def _model_html(self, model) -> str:
        if isinstance(model, bm.Plot):
            self.ref(model)
            spec = self._models[model.id]["figure"]
            width = f"max-width:{spec['max_width']}px;" if spec["max_width"] else ""
            drag = " ae-n-drag" if spec["drag"] else ""
            height = "" if spec["match_aspect"] else f"height:{model.height}px;"
            # The label is the title the module draws: a part not yet mounted is named already. A hidden
            # figure has none (its title may be an answer not yet given); the module names it when shown.
            title = (getattr(model.title, "text", "") or "") if model.visible else ""
            label = f" aria-label='{html.escape(title)}'" if title else ""
            return f"<div {self._attrs(model, 'ae-n-plot' + drag, style=f'{height}{width}')} role='img'{label}></div>"
        if isinstance(model, HTMLModel):
            attributes = "".join(
                f" {html.escape(k)}='{html.escape(str(v))}'" for k, v in (model.html_attributes or {}).items()
            )
            return f"<div {self._attrs(model, 'ae-n-readout')}{attributes}>{html.unescape(model.text or '')}</div>"
        if isinstance(model, bm.Row):
            return f"<div {self._attrs(model, 'ae-n-row')}>{''.join(self._model_html(c) for c in model.children)}</div>"
        if isinstance(model, bm.Column):
            return f"<div {self._attrs(model, 'ae-n-col')}>{''.join(self._model_html(c) for c in model.children)}</div>"
        if isinstance(model, bm.Slider):
            i = self._id()
            return (
                f"<div {self._attrs(model, 'ae-n-slider')}><label for='{i}'>{html.escape(model.title or '')}:</label>"
                f"<input type='range' id='{i}' min='{model.start!r}' max='{model.end!r}' step='{model.step!r}' "
                f"value='{model.value!r}' aria-valuetext='{_value_text(model.value)}'"
                f"{' disabled' if model.disabled else ''}></div>"
            )
        if isinstance(model, bm.TextInput):
            i = self._id()
            box = "ae-box" in (model.css_classes or [])
            label = (
                f"<label for='{i}' class='{'ae-n-sr' if box else ''}'>{html.escape(model.title or '')}</label>"
                if model.title
                else ""
            )
            mode = " inputmode='decimal'" if box else ""
            return (
                f"<div {self._attrs(model, 'ae-n-input')}>{label}<input type='text' id='{i}' "
                f"value='{html.escape(model.value or '')}' placeholder='{html.escape(model.placeholder or '')}'"
                f" autocomplete='off'{mode}{' disabled' if model.disabled else ''}></div>"
            )
        if isinstance(model, bm.TextAreaInput):
            i = self._id()
            label = f"<label for='{i}' class='ae-n-sr'>{html.escape(model.title or '')}</label>" if model.title else ""
            return (
                f"<div {self._attrs(model, 'ae-n-input')}>{label}<textarea id='{i}' rows='{int(model.rows)}' "
                f"placeholder='{html.escape(model.placeholder or '')}'{' disabled' if model.disabled else ''}>"
                f"{html.escape(model.value or '')}</textarea></div>"
            )
        if isinstance(model, bm.RadioGroup):
            group = self._id()
            options = "".join(
                f"<label><input type='radio' name='{group}' value='{i}'{' checked' if i == model.active else ''}"
                f"{' disabled' if model.disabled else ''}>{html.escape(label)}</label>"
                for i, label in enumerate(model.labels)
            )
            inline = " ae-n-inline" if model.inline else ""
            return f"<div {self._attrs(model, 'ae-n-radios' + inline)} role='radiogroup'>{options}</div>"
        if isinstance(model, bm.Button):
            kind = {"primary": "ae-n-primary", "success": "ae-n-success"}.get(model.button_type, "")
            return (
                f"<div {self._attrs(model, 'ae-n-btn-host')}><button type='button' class='{kind}'"
                f"{' disabled' if model.disabled else ''}>{html.escape(model.label or '')}</button></div>"
            )
        if isinstance(model, bm.RadioButtonGroup):
            buttons = "".join(
                f"<button type='button' aria-pressed='{'true' if i == model.active else 'false'}'>"
                f"{html.escape(label)}</button>"
                for i, label in enumerate(model.labels)
            )
            vertical = "ae-n-vertical" if model.orientation == "vertical" else ""
            lang = (model.html_attributes or {}).get("lang")
            lang = f" lang='{html.escape(lang)}'" if lang else ""
            return f"<div {self._attrs(model, 'ae-n-group', vertical)} role='group'{lang}>{buttons}</div>"
        if isinstance(model, bm.Checkbox):
            i = self._id()
            return (
                f"<div {self._attrs(model, 'ae-n-check')}><input type='checkbox' id='{i}'"
                f"{' checked' if model.active else ''}{' disabled' if model.disabled else ''}>"
                f"<label for='{i}'>{html.escape(model.label or '')}</label></div>"
            )
        _log.warning("attention explorable: the page leaves out a %s", type(model).__name__)
        return ""

    def _module_html(self, widget) -> str:
        """An explorable written as one module (``modules.py``): an element ``web/host.js`` renders it
        into, its state as JSON beside it; the module's script goes with the page (:attr:`modules`)."""
        name = widget.ae_module
        if name not in self.modules:
            self.modules.append(name)
        from .explorables import MODULES

        if name in MODULES and MODULES[name].classroom:  # a class may join it: the page carries the class
            self.classroom = widget.language
        state = json.dumps(widget.ae_module_state(), ensure_ascii=False).replace("</", "<\\/")
        link = json.dumps(widget.ae_module_link(), ensure_ascii=False).replace("</", "<\\/")
        classes = html.escape(" ".join(["ae-module", *(getattr(widget, "css_classes", None) or [])]))
        return (
            f"<div class='{classes}' data-ae-render='{html.escape(name)}'>"
            f"<script type='application/json'>{state}</script>"
            f"<script type='application/json' data-ae-link>{link}</script></div>"
        )

    def _layout(self, component) -> str:
        if isinstance(component, pn.viewable.Viewer):
            return self._layout(component.__panel__())
        if component is None or (isinstance(component, pn.pane.Str) and component.object is None):
            return ""  # a part a page has not (a live app's connection notice)
        if isinstance(component, bm.Model):
            return self._model_html(component)
        if callable(getattr(component, "ae_module_state", None)):
            return self._module_html(component)
        hidden = "" if getattr(component, "visible", True) else " hidden"
        styles = "".join(f"{k}:{v};" for k, v in (getattr(component, "styles", None) or {}).items())
        classes = html.escape(" ".join(getattr(component, "css_classes", None) or []))
        if isinstance(component, pn.FlexBox):
            wrap = f"flex-wrap:{component.flex_wrap};" if component.flex_wrap else ""
            direction = "column" if component.flex_direction in ("column", "column-reverse") else "row"
            inner = "".join(self._layout(o) for o in component.objects)
            return (
                f"<div class='ae-n-flex {classes}' style='flex-direction:{direction};{wrap}{html.escape(styles)}'"
                f"{hidden}>{inner}</div>"
            )
        if isinstance(component, (pn.Column, pn.Row)):
            kind = "ae-n-col" if isinstance(component, pn.Column) else "ae-n-row"
            # (width: a column centred by its margins is no wider than its parent)
            width = f"width:100%;max-width:{component.max_width}px;" if component.max_width else ""
            inner = "".join(self._layout(o) for o in component.objects)
            return f"<div class='{kind} {classes}' style='{width}{html.escape(styles)}'{hidden}>{inner}</div>"
        if isinstance(component, pn.pane.Bokeh):
            return self._model_html(component.object)
        if isinstance(component, ScriptedPane):
            # A page script run by the page itself (web/start.js), its settings the JSON inside it.
            if component.script not in self.scripts:
                self.scripts.append(component.script)
            data = json.dumps(component.settings, ensure_ascii=False).replace("</", "<\\/")
            return (
                f"<div class='ae-n-html {classes}' data-ae-script='{html.escape(component.script)}'{hidden}>"
                f"<script type='application/json'>{data}</script>{component.object or ''}</div>"
            )
        if isinstance(component, pn.pane.HTML):
            if not component.object:
                return ""
            sheets = [s for s in component.stylesheets if isinstance(s, str) and s != ui.CSS]
            cls = " ".join(
                filter(
                    None, [classes, *(self._sheets.setdefault(s, f"ae-css-{len(self._sheets) + 1}") for s in sheets)]
                )
            )
            margin = component.margin
            values = [margin] if isinstance(margin, (int, float)) else list(margin or [])
            margin_css = ("margin:" + " ".join(f"{v}px" for v in values) + ";") if values else ""
            return (
                f"<div class='ae-n-html {html.escape(cls)}' style='{margin_css}{html.escape(styles)}'{hidden}>"
                f"{component.object}</div>"
            )
        if isinstance(component, pn.layout.ListLike):
            return "".join(self._layout(o) for o in component.objects)
        _log.warning("attention explorable: the page leaves out a %s", type(component).__name__)
        return ""


def module_scripts(names) -> list[str]:
    """The page scripts that bring the modules ``names`` (page script names): each its own, except that
    several explorables written as one module come in one script, ``modules`` (their shared parts once).
    """
    from .explorables import MODULES, TEXT_MODULES

    names = list(dict.fromkeys(names))
    one = {*MODULES, *TEXT_MODULES}
    written = [n for n in names if n in one]
    if len(written) < 2:
        return names
    return [n for n in names if n not in one] + ["modules"]


def page_script(name: str) -> str:
    """The student page's script ``web/dist/page/<name>.js``: ``runtime`` (``web/native.js``, which
    mounts the page) or a module, which adds itself to ``window.aeModules`` by its name.

    Raises
    ------
    FileNotFoundError
        If the package has no such script (``npm run build`` makes them).
    """
    return resources.files("attention_explorable").joinpath("web", "dist", "page", f"{name}.js").read_text("utf-8")


def _numbers(value, path: tuple = (), found: list | None = None):
    """``value`` with each float that JSON cannot hold (nan, ±inf) as ``{"$num": "NaN"}`` and the like;
    the path (keys and indices) of each is appended to ``found``."""
    if isinstance(value, float) and not math.isfinite(value):
        if found is not None:
            found.append(list(path))
        return {"$num": "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")}
    if isinstance(value, dict):
        return {k: _numbers(v, (*path, k), found) for k, v in value.items()}
    if isinstance(value, list):
        return [_numbers(v, (*path, i), found) for i, v in enumerate(value)]
    return value


def spec_json(spec: dict) -> str:
    """``spec`` (a JSON object) as JSON that is safe inside a JSON script element.

    A float JSON cannot hold is written ``{"$num": "NaN"}`` (or ``"Infinity"``,
    ``"-Infinity"``), and the path to each such value is listed under the key
    ``"$nums"``, which the page's script (``web/native.js``'s ``readSpec``)
    reads back as the numbers without visiting the rest of the spec.

    Every ``<`` is written ``\\u003c``, so no ``</script`` and no ``<!--`` can end
    or change the element it sits in; ``>`` and ``&`` need nothing in a script
    element's text and are written as they are. Source: WHATWG HTML, "Restrictions
    for contents of script elements".

    >>> spec_json({"x": [1.0, float("inf")]})
    '{"x":[1.0,{"$num":"Infinity"}],"$nums":[["x",1]]}'
    >>> print(spec_json({"text": "</script><!-- a & b > c"}))
    {"text":"\\u003c/script>\\u003c!-- a & b > c"}
    """
    found: list = []
    out = _numbers(spec, (), found)
    if found:
        out["$nums"] = found
    return json.dumps(out, ensure_ascii=False, separators=(",", ":"), allow_nan=False).replace("<", "\\u003c")


#: The page's own rules, before the models' (the page-wide text; the readouts' rules are ui.CSS).
_PAGE_CSS = (
    ui.theme_css(":root")
    + """
html, body { box-sizing: border-box; margin: 0; padding: 0; }
body { font-family: FONT; font-size: 15px; line-height: 1.42857;
  color: var(--ae-text); background: var(--ae-background); color-scheme: var(--ae-scheme); }
main.ae-student-page > .ae-n-col { margin: 0 auto; }
/* The textbook: a part away from the screen is laid out only as it nears it (its size a guess until then,
   then the size it had), so that the first paint lays out the first screen, not the whole text: each
   explorable and exercise, and each block of the text between them (a paragraph, a heading, a formula). */
.ae-section > :not(.ae-prose), .ae-section > .ae-prose > * { content-visibility: auto; }
.ae-section > :not(.ae-prose) { contain-intrinsic-size: auto 600px; }
.ae-section > .ae-prose > * { contain-intrinsic-size: auto 90px; }
""".replace("FONT", ui.FONT_FAMILY)
)


def _page_parts(build, classroom: bool = True) -> tuple[NativePage, list[str], dict[str, str], str]:
    """The page of ``build()``, its scripts (modules then runtime), outside modules by name, its CSS.
    With ``classroom``, a page holding an explorable a class joins (the steps) carries the class's script
    and config (``web/classroom.js``); an author's embed has no class."""
    page = NativePage(build)
    # The modules the page runs, each once: the package's as scripts, and those of explorables
    # registered from outside the package (their own bundle) as text the runtime loads.
    from .explorables import EXPLORABLES

    own = {name for name, r in EXPLORABLES.items() if r.bundle is not None}
    names = sorted({cb["module"] for cb in page.spec()["callbacks"].values()} | set(page.scripts))
    modules = {name: web_module(name) for name in names if name in own}
    scripts = [page_script(name) for name in names if name not in own]
    if page.modules or page.scripts:  # the explorables written as one module, and their host (web/host.js)
        scripts += [page_script(name) for name in module_scripts(page.modules)] + [page_script("host")]
    if classroom and page.classroom:
        scripts.insert(-1, page_script("classroom"))
        page.body += class_config_script(page.classroom)
    return page, scripts, modules, "\n".join([_shared_css(), page.css()])


def class_config_script(language: str) -> str:
    """The class's config (``explorables.class_panel.class_config``) as a page holds it, for
    ``web/classroom.js``: ``<script type="application/json" id="ae-class-config">``."""
    from .explorables.class_panel import class_config

    data = json.dumps(class_config(language), ensure_ascii=False).replace("</", "<\\/")
    return f'<script type="application/json" id="ae-class-config">{data}</script>'


def _shared_css() -> str:
    """The rules every student page and embed holds: the readouts' (``ui.CSS``) and the controls' and
    plots' (:data:`CSS`); a page adds its models' own (``NativePage.css``)."""
    readouts = re.sub(r":root \{[^}]*\}\n?", "", ui.CSS)  # (BokehJS's variables: no BokehJS here)
    return "\n".join([readouts, CSS])


#: An embedded explorable's own rules, inside its shadow root (the host page's rules stay outside it).
_EMBED_CSS = (
    ui.theme_css(":host")
    + """
:host { display: block; font-family: FONT; font-size: 15px;
  line-height: 1.42857; color: var(--ae-text); background: var(--ae-background); color-scheme: var(--ae-scheme);
  text-align: start; }
""".replace("FONT", ui.FONT_FAMILY)
)


def _embed_parts(build, lang: str, name: str) -> tuple[NativePage, list[str], dict]:
    """The page of ``build()``, the names of the package's page scripts it runs, and its shell (see
    ``web/shadow.js``: its name, language, styles, elements and outside modules)."""
    page, _, modules, _ = _page_parts(build, classroom=False)
    scripts = sorted({cb["module"] for cb in page.spec()["callbacks"].values()} - set(modules))
    if page.modules:  # an explorable written as one module, rendered by web/host.js in the shadow root
        scripts = sorted({*scripts, *page.modules, "host"})
    shell = {
        "name": name,
        "lang": lang,
        "css": page.css(),  # its own rules; the element's script holds the rest (element_script)
        "html": f"<div class='ae-student-page'>{page.body}</div>",
        "modules": modules,
    }
    if "<math" in page.body:  # a shadow root's @font-face is not used: web/shadow.js adds it to the document
        shell["math_font"] = {"family": MATH_FONT, "woff2": math_font_base64()}
    return page, scripts, shell


def embed_script(name: str, lang: str) -> str:
    """The one tag of an author's page (``<script src="embed/NAME.js">``): an ``<attention-explorable>`` where it is.

    Where the tag stands, the script puts ``<attention-explorable name=NAME lang=LANG
    class="attention-explorable attention-explorable-NAME">`` (its ``data-deep-links`` and
    ``data-theme`` become the element's ``deep-links`` and ``theme``) and, unless the page already
    has it, loads the element's script (``attention-explorable.js``, one folder up from its own
    address), which finds the explorable's data beside it (``embed/NAME.LANG.js``): the element,
    its shadow root and its modules are those of :func:`element_script`, written once per export.

    Parameters
    ----------
    name : str
        The explorable's name (a key of the registry).
    lang : str
        The explorable's language as ``lang`` wants it (``"zh-Hans"``, ``"en"``): the export's,
        whatever the host page's language.

    Returns
    -------
    str
        JavaScript, a classic script of about 1 KB (it also runs from ``file://``).

    Raises
    ------
    ValueError
        If ``name`` is not a registered explorable, or ``lang`` is neither Chinese nor English.

    The script is ``web/tag.js``. Source: WHATWG HTML, ``document.currentScript`` (the tag running
    now) and custom elements.

    >>> embed_script("stpes", "en")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: name must be one of [...'steps'...], got 'stpes'
    """
    from .explorables import EXPLORABLES
    from .modules import MODULES

    if name not in EXPLORABLES and name not in MODULES:
        raise ValueError(f"name must be one of {sorted([*EXPLORABLES, *MODULES])}, got {name!r}")
    if not re.fullmatch(r"(zh|en)(-[A-Za-z0-9]+)*", str(lang)):
        raise ValueError(f"lang must be a Chinese or English language tag ('zh-Hans', 'en'), got {lang!r}")
    config = spec_json({"name": name, "lang": lang})
    return "\n".join(
        [
            f"// attention-explorable: {name} (made by `attention-explorable export`; docs/embedding.md)",
            page_script("tag"),
            f"window.aePlaceTag(document.currentScript, {config});",
            "",
        ]
    )


def embed_data(build, lang: str, name: str) -> tuple[str, list[str]]:
    """``build()`` as the data an ``<attention-explorable name=NAME>`` element mounts (``embed/NAME.LANG.js``).

    Parameters
    ----------
    build : callable
        Returns the component (called once, with a fresh document current).
    lang : str
        The explorable's language as ``lang`` wants it (``"zh-Hans"``, ``"en"``).
    name : str
        The explorable's name.

    Returns
    -------
    (str, list of str)
        A classic script that puts the explorable's shell (its own styles: the rules every
        explorable shares are in :func:`element_script`) and page spec in
        ``window.aeEmbeds["NAME.LANG"]`` (``LANG`` = ``zh`` or ``en``), and the
        names of the package's page scripts it needs (:func:`element_script` holds them).
    """
    page, scripts, shell = _embed_parts(build, lang, name)
    key = f"{name}.{'zh' if lang.startswith('zh') else 'en'}"
    data = f'{{"shell":{spec_json(shell)},"spec":{spec_json(page.spec())}}}'
    return (
        "// attention-explorable data: " + key + " (made by `attention-explorable export`; docs/embedding.md)\n"
        f"(window.aeEmbeds = window.aeEmbeds || {{}})[{json.dumps(key)}] = {data};\n"
    ), scripts


def element_script(modules: list[str], names: list[str], lang: str) -> str:
    """The script that defines ``<attention-explorable>`` (``attention-explorable.js`` of an export).

    Parameters
    ----------
    modules : list of str
        The package's page scripts the explorables run (:func:`embed_data` says which).
    names : list of str
        The explorables the export holds (an element naming another says so in the page).
    lang : str
        ``"zh"`` or ``"en"``: the language of an element whose markup and page say none.

    Returns
    -------
    str
        JavaScript, a classic script (it also runs as a module); it finds each
        explorable's data from its own address, in ``embed/NAME.LANG.js``, and holds
        the styles every explorable's shadow root shares.
    """
    config = spec_json({"names": list(names), "lang": lang, "css": _EMBED_CSS + _shared_css()})
    return "\n".join(
        [
            "// attention-explorable: the <attention-explorable> element (made by `attention-explorable export`; "
            "docs/embedding.md)",
            *[page_script(m) for m in module_scripts(sorted(set(modules)))],
            page_script("element"),
            f"window.aeDefineElement(Object.assign({{script: document.currentScript}}, {config}));",
            "",
        ]
    )


#: A script element the page runs (not a data block: its JSON spec, an outside module's text).
_RUN_SCRIPT = re.compile(
    r"<script(?![^>]*\bsrc=)(?![^>]*\btype=[\"'](?:application/json|text/plain))[^>]*>(.*?)</script>", re.S
)


def content_security_policy(page: str) -> str:
    """The policy of student page ``page`` (its HTML): it runs its own inline scripts and nothing else.

    Each inline script the page runs is allowed by its SHA-256 (an injected
    script has another); ``blob:`` only where the page loads an outside
    module; styles inline; images and the math font as ``data:``; connections to its own host
    (the class socket); frames only the video players of
    :data:`attention_explorable.content.VIDEO_SOURCES`; no ``<base>``, no
    form. Source: the W3C's Content Security Policy Level 3.

    Returns
    -------
    str
        The policy, for a ``<meta http-equiv="Content-Security-Policy">``.
    """
    import base64
    import hashlib
    from urllib.parse import urlsplit

    from .content import VIDEO_SOURCES

    hashes = sorted(
        {
            "'sha256-" + base64.b64encode(hashlib.sha256(body.encode("utf-8")).digest()).decode() + "'"
            for body in _RUN_SCRIPT.findall(page)
        }
    )
    if "data-ae-module=" in page:
        hashes.append("blob:")
    frames = sorted({"{0.scheme}://{0.netloc}".format(urlsplit(site.embed)) for site in VIDEO_SOURCES.values()})
    return "; ".join(
        [
            "default-src 'none'",
            "script-src " + " ".join(hashes),
            "style-src 'unsafe-inline'",
            "img-src data:",
            "font-src data:",
            "connect-src 'self'",
            "frame-src " + " ".join(frames),
            "base-uri 'none'",
            "form-action 'none'",
        ]
    )


def _first_module_early(body: str, scripts: list[str], names) -> tuple[str, list[str]]:
    """A long page's first explorable written as one module, live as soon as it is parsed: the modules'
    script and their host (``web/host.js``), taken out of the page's script, run right after that
    explorable's element, which they render (a reader's first key need not wait for the rest of the page
    to be parsed and come to life; the others are rendered with the rest of the page)."""
    moved = [page_script(name) for name in module_scripts(names)] + [page_script("host")]
    if page_script("classroom") in scripts:
        moved.insert(-1, page_script("classroom"))
    at = body.find("data-ae-render=")
    end = body.find("</script></div>", at)
    if at < 0 or end < 0 or not all(code in scripts for code in moved):
        return body, scripts
    end += len("</script></div>")
    early = "".join(moved) + "window.aeMountModules(window.aeModules, document, null, 1);"
    script = "<script>" + early.replace("</script", "<\\/script") + "</script>"
    return body[:end] + script + body[end:], [code for code in scripts if code not in moved]


def student_page(build, title: str, lang: str, description: str = "", first_screen_static: bool = False) -> str:
    """``build()`` (a Panel component) as a student page: its elements, its spec and its one script.

    Parameters
    ----------
    build : callable
        Returns the component (called once, with a fresh document current).
    title : str
        The page's ``<title>``.
    lang : str
        The page's language as ``<html lang>`` wants it (``"zh-Hans"``, ``"en"``).
    description : str
        The page's ``<meta name=description>``.
    first_screen_static : bool
        The page's first screen holds no explorable (the textbook): it is
        painted as it is parsed, and its script runs after; opened with a
        query (a linked state) it stays hidden until its script ran. Else the
        first paint waits for the script, plots and linked state drawn.

    Returns
    -------
    str
        One HTML file that asks nothing of any host: its styles and its
        scripts (``web/dist/page/``: the modules it runs and the runtime,
        about 55 KB for the steps) are inside it.
    """

    page, scripts, modules, css = _page_parts(build)
    body = page.body
    if first_screen_static and page.modules:
        body, scripts = _first_module_early(body, scripts, page.modules)
    # A page of modules only starts with web/start.js; one that holds an emulated explorable (one registered
    # from outside the package in the older form) with the emulator, web/runtime.js.
    emulated = bool(page.spec()["models"])
    scripts = [*scripts, page_script("runtime" if emulated else "start")]
    template = ui.template("student.html")
    css = "\n".join([_PAGE_CSS, css] + ([math_font_face()] if "<math" in page.body else []))
    out = template.render(
        lang=lang,
        title=title,
        description=description,
        first_screen_static=first_screen_static,
        css=css,
        body=body,
        spec=spec_json(page.spec()) if emulated else "",
        scripts=[code.replace("</script", "<\\/script") for code in scripts],
        modules={name: code.replace("</script", "<\\/script") for name, code in modules.items()},
    )
    # The policy goes first in the head, before any script: a script a link or a stored row slipped
    # into the page would not run.
    policy = html.escape(content_security_policy(out))
    return out.replace(
        '<meta charset="utf-8">',
        f'<meta charset="utf-8">\n  <meta http-equiv="Content-Security-Policy" content="{policy}">',
        1,
    )
