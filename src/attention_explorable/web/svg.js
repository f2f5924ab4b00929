// The modules' figures: a figure spec (web/figures.js)
// and the parts it names (its sources, ranges, axes, title) drawn as HTML
// and SVG elements (described as nodes, web/dom.js's `h`, which `patch` writes
// into the page, changing only what changed since the last move), laid out as
// BokehJS lays out the same figure on a live Panel page:
// the title above, the axes with their ticks and labels, the frame (a 1 px
// outline) with the grid, glyphs and annotations, the legend below. Positions
// in the frame are percentages of its box, so a figure stretches with its
// column and nothing here reads the layout; markers, text and line widths keep
// their pixel sizes. Ticks: d3-array's (1, 2 and 5 × 10^k), fixed ticks, or
// decades on a log axis; their labels the fewest decimals that tell them apart.
import {ticks as niceTicks} from "d3-array";
import {h} from "./dom.js";

const pct = (f) => `${(100 * f).toFixed(3)}%`;
const num = (v) => (typeof v === "number" && Number.isFinite(v) ? v : (typeof v === "string" && v.trim() !== "" &&
  Number.isFinite(Number(v)) ? Number(v) : null));
// A text in Chinese says so (its font and its reading); attributes are added to `attrs`.
const lang = (text, attrs = {}) => (/[\u4e00-\u9fff]/.test(String(text)) ? {...attrs, lang: "zh-Hans"} : attrs);
const fmt = (v) => String(Number(v.toPrecision(6)));

/** A glyph's property as `n` values: a column of `data`, Bokeh's {field} / {value}, or one value. */
export function column(data, spec, n) {
  let s = spec;
  if (s && typeof s === "object" && !Array.isArray(s)) s = "field" in s ? s.field : s.value;
  if (typeof s === "string" && data && Object.prototype.hasOwnProperty.call(data, s)) return Array.from(data[s]);
  return Array(n).fill(s);
}

const lengthOf = (data) => Math.max(0, ...Object.values(data || {}).map((v) => v.length));

/** One dimension of a figure: its range, its scale (linear, log or factors), its ticks. */
class Axis1d {
  constructor(dim, range, values) {
    this.factors = null;
    this.log = dim.log;
    if (range.type === "FactorRange") {
      this.factors = range.factors.map(String);
      this.start = 0; this.end = this.factors.length;
    } else if (range.type === "DataRange1d") {
      const vs = values.filter((v) => v !== null);
      let lo = vs.length ? Math.min(...vs) : 0, hi = vs.length ? Math.max(...vs) : 1;
      if (num(range.start) !== null) lo = range.start;
      if (num(range.end) !== null) hi = range.end;
      const [padding, units] = dim.padding || [0, "percent"];
      const pad = units === "percent" ? (hi - lo) * padding / 2 : padding;
      this.start = lo - pad; this.end = hi + pad;
    } else {
      this.start = Number(range.start); this.end = Number(range.end);
    }
    if (this.start === this.end) this.end = this.start + 1;
  }

  fraction(value) {
    if (this.factors !== null && typeof value === "string") {
      const i = this.factors.indexOf(value);
      return i < 0 ? null : (i + 0.5) / this.factors.length;
    }
    const v = num(value);
    if (v === null) return null;
    if (this.log) {
      if (v <= 0 || this.start <= 0 || this.end <= 0) return null;
      return (Math.log10(v) - Math.log10(this.start)) / (Math.log10(this.end) - Math.log10(this.start));
    }
    return (v - this.start) / (this.end - this.start);
  }

  /** The value at fraction `f` along the range (a pointer's place). */
  value(f) {
    if (this.log) return 10 ** (Math.log10(this.start) + f * (Math.log10(this.end) - Math.log10(this.start)));
    return this.start + f * (this.end - this.start);
  }

  span(v) { return Math.abs(v / (this.end - this.start)); }

  ticks(axis, spec) {
    if (this.factors !== null) return this.factors.map((f, i) => [(i + 0.5) / this.factors.length, f]);
    const lo = Math.min(this.start, this.end), hi = Math.max(this.start, this.end);
    let values;
    if (spec.ticks) values = spec.ticks.filter((t) => t >= lo && t <= hi);
    else if (this.log) {
      values = [];
      for (let e = Math.ceil(Math.log10(lo)); e <= Math.floor(Math.log10(hi)); e++) values.push(10 ** e);
    } else values = niceTicks(lo, hi, spec.desired || 6);
    const overrides = axis.major_label_overrides;
    const override = (v) => (overrides instanceof Map ? overrides.get(v) : overrides && overrides[String(v)]);
    const labels = tickLabels(values);
    return values.map((v, i) => [this.fraction(v), override(v) ?? labels[i]]);
  }
}

/** Labels as BokehJS's BasicTickFormatter writes them: the fewest decimals that tell the ticks apart. */
export function tickLabels(values) {
  let labels = values.map((v) => v.toFixed(0));
  for (let d = 0; d < 8; d++) {
    labels = values.map((v) => v.toFixed(d));
    if (new Set(labels).size === labels.length &&
        labels.every((s, i) => Math.abs(Number(s) - values[i]) < 1e-9 * Math.max(1, Math.abs(values[i])))) break;
  }
  return labels.map((s) => (s.includes(".") ? s.replace(/0+$/, "").replace(/\.$/, "") : s).replace("-", "\u2212"));
}

const DASH = {dashed: "6 4", dotted: "2 4", dotdash: "2 4 6 4", dashdot: "6 4 2 4"};

/** A glyph's fill and line as SVG attributes. */
function style(fill, fillAlpha, line, lineAlpha, width, dash) {
  const out = {fill: fill && fillAlpha ? String(fill) : "none"};
  if (fill && fillAlpha !== null && fillAlpha !== undefined && fillAlpha !== 1) out["fill-opacity"] = fmt(fillAlpha);
  if (line && lineAlpha && width) {
    out.stroke = String(line);
    out["stroke-width"] = fmt(width);
    if (lineAlpha !== 1) out["stroke-opacity"] = fmt(lineAlpha);
    const d = typeof dash === "string" ? DASH[dash] || "" : Array.isArray(dash) ? dash.join(" ") : "";
    if (d) out["stroke-dasharray"] = d;
  }
  return out;
}

function visuals(glyph, data, n) {
  const col = (name, dflt) => column(data, name in glyph ? glyph[name] : dflt, n);
  const fills = col("fill_color", null), fa = col("fill_alpha", 1), lines = col("line_color", null);
  const la = col("line_alpha", 1), widths = col("line_width", 1);
  const dash = glyph.line_dash;
  return Array.from({length: n}, (_, i) => style(fills[i], num(fa[i]) ?? 0, lines[i], num(la[i]) ?? 0,
                                                num(widths[i]) ?? 0, dash));
}

/** A marker of diameter `size` px centred on (0, 0), as an SVG path. */
export function markerPath(marker, size) {
  const r = size / 2, f = (v) => v.toFixed(2);
  if (marker === "triangle" || marker === "inverted_triangle") {
    const h = r * Math.sqrt(3) / 2, s = marker === "triangle" ? 1 : -1;
    return `M0,${f(-s * r)} L${f(h)},${f(s * r / 2)} L${f(-h)},${f(s * r / 2)} Z`;
  }
  if (marker === "diamond") return `M0,${f(-r)} L${f(r * 0.75)},0 L0,${f(r)} L${f(-r * 0.75)},0 Z`;
  if (marker === "star") {
    const points = [];
    for (let k = 0; k < 10; k++) {
      const radius = k % 2 === 0 ? r : r * 0.38, angle = Math.PI / 5 * k - Math.PI / 2;
      points.push(`${f(radius * Math.cos(angle))},${f(radius * Math.sin(angle))}`);
    }
    return "M" + points.join(" L") + " Z";
  }
  return `M${f(-r)},0 A${f(r)},${f(r)} 0 1,0 ${f(r)},0 A${f(r)},${f(r)} 0 1,0 ${f(-r)},0 Z`;
}

/** The SVG of a figure's frame (its elements, as nodes); positions are percentages of its box. */
class Frame {
  constructor(x, y) { this.x = x; this.y = y; this.parts = []; }

  point(x, y) {
    const fx = this.x.fraction(x), fy = this.y.fraction(y);
    return fx === null || fy === null ? null : [fx, 1 - fy];
  }

  marker(x, y, marker, size, st) {
    const p = this.point(x, y);
    if (p && size > 0) {
      this.parts.push(h("svg", {x: pct(p[0]), y: pct(p[1]), overflow: "visible"},
                        [h("path", {d: markerPath(String(marker), size), ...st})]));
    }
  }

  box(left, right, top, bottom, st) {
    const a = this.point(left, top), b = this.point(right, bottom);
    if (!a || !b) return;
    const [x0, x1] = [a[0], b[0]].sort((u, v) => u - v), [y0, y1] = [a[1], b[1]].sort((u, v) => u - v);
    this.parts.push(h("rect", {x: pct(x0), y: pct(y0), width: pct(x1 - x0), height: pct(y1 - y0), ...st}));
  }

  segment(x0, y0, x1, y1, st, end = {}) {
    const a = this.point(x0, y0), b = this.point(x1, y1);
    if (a && b) this.parts.push(h("line", {x1: pct(a[0]), y1: pct(a[1]), x2: pct(b[0]), y2: pct(b[1]), ...st, ...end}));
  }

  path(xs, ys, st, closed) {
    const points = xs.map((x, i) => this.point(x, ys[i])).filter(Boolean);
    if (points.length < 2) return;
    const d = "M" + points.map(([px, py]) => `${(1000 * px).toFixed(1)},${(1000 * py).toFixed(1)}`).join(" L") +
      (closed ? " Z" : "");
    this.parts.push(h("svg", {viewBox: "0 0 1000 1000", preserveAspectRatio: "none"},
                      [h("path", {d, ...st, "vector-effect": "non-scaling-stroke"})]));
  }

  text(x, y, text, dx, dy, align, baseline, size, color, bold = false) {
    const p = this.point(x, y);
    if (!p || text === null || text === undefined || text === "") return;
    const anchor = {left: "start", center: "middle", right: "end"}[align] || "start";
    const base = {middle: "central", top: "hanging", bottom: "alphabetic", alphabetic: "alphabetic",
                  hanging: "hanging"}[baseline] || "alphabetic";
    const attrs = {x: pct(p[0]), y: pct(p[1]), dx: fmt(dx), dy: fmt(-dy), "text-anchor": anchor, "dominant-baseline": base,
                   "font-size": String(size), fill: String(color)};
    if (bold) attrs["font-weight"] = "bold";
    this.parts.push(h("text", lang(text, attrs), [String(text)]));
  }
}

function drawGlyph(frame, glyph, data) {
  const n = data ? lengthOf(data) : 0;
  const col = (name) => column(data, glyph[name], Math.max(n, 1));
  const t = glyph.type;
  if (t === "Scatter") {
    if (!n) return;
    const st = visuals(glyph, data, n), markers = col("marker"), sizes = col("size"), xs = col("x"), ys = col("y");
    for (let i = 0; i < n; i++) frame.marker(xs[i], ys[i], markers[i], num(sizes[i]) ?? 0, st[i]);
  } else if (t === "HBar") {
    const st = visuals(glyph, data, n), ys = col("y"), l = col("left"), r = col("right"), h = col("height");
    for (let i = 0; i < n; i++) {
      if (num(ys[i]) !== null && num(h[i]) !== null) frame.box(l[i], r[i], ys[i] + h[i] / 2, ys[i] - h[i] / 2, st[i]);
    }
  } else if (t === "VBar") {
    const st = visuals(glyph, data, n), xs = col("x"), top = col("top"), bottom = col("bottom"), w = col("width");
    for (let i = 0; i < n; i++) {
      const fx = frame.x.fraction(xs[i]);
      if (fx === null || num(w[i]) === null) continue;
      const half = frame.x.factors === null ? frame.x.span(w[i]) / 2 : w[i] / frame.x.factors.length / 2;
      const a = frame.point(xs[i], top[i]), b = frame.point(xs[i], bottom[i] ?? 0);
      if (!a || !b) continue;
      const [y0, y1] = [a[1], b[1]].sort((u, v) => u - v);
      frame.parts.push(h("rect", {x: pct(fx - half), y: pct(y0), width: pct(2 * half), height: pct(y1 - y0), ...st[i]}));
    }
  } else if (t === "Rect") {
    const st = visuals(glyph, data, n), xs = col("x"), ys = col("y"), w = col("width"), h = col("height");
    for (let i = 0; i < n; i++) {
      const [x, y, ww, hh] = [xs[i], ys[i], w[i], h[i]].map(num);
      if (x !== null && y !== null && ww !== null && hh !== null) frame.box(x - ww / 2, x + ww / 2, y + hh / 2, y - hh / 2, st[i]);
    }
  } else if (t === "Segment") {
    const st = visuals(glyph, data, n), x0 = col("x0"), y0 = col("y0"), x1 = col("x1"), y1 = col("y1");
    for (let i = 0; i < n; i++) frame.segment(x0[i], y0[i], x1[i], y1[i], st[i]);
  } else if (t === "Line" || t === "Patch") {
    if (!n) return;
    const closed = t === "Patch";
    const st = closed ? visuals(glyph, data, 1)[0]
      : style(null, 0, glyph.line_color, glyph.line_alpha ?? 1, glyph.line_width ?? 1, glyph.line_dash);
    frame.path(col("x"), col("y"), st, closed);
  } else if (t === "Text") {
    const texts = col("text"), colors = column(data, glyph.text_color, Math.max(n, 1)), xs = col("x"), ys = col("y");
    for (let i = 0; i < n; i++) {
      frame.text(xs[i], ys[i], texts[i], 0, 0, glyph.text_align, glyph.text_baseline, glyph.text_font_size, colors[i]);
    }
  }
}

function drawAnnotation(frame, item, get) {
  if (item.type === "LabelSet") {
    const data = get(item.source).data, n = lengthOf(data);
    const col = (name) => column(data, item[name], n);
    const xs = col("x"), ys = col("y"), texts = col("text"), dxs = col("x_offset"), dys = col("y_offset");
    const aligns = col("text_align"), colors = col("text_color");
    for (let i = 0; i < n; i++) {
      frame.text(xs[i], ys[i], texts[i], num(dxs[i]) ?? 0, num(dys[i]) ?? 0, String(aligns[i]), item.text_baseline,
                 item.text_font_size, colors[i], item.text_font_style === "bold");
    }
  } else if (item.type === "Span") {
    if (item.location === null || item.location === undefined || item.visible === false) return;
    const st = style(null, 0, item.line_color, item.line_alpha, item.line_width, item.line_dash);
    if (item.dimension === "width") frame.segment(frame.x.start, item.location, frame.x.end, item.location, st);
    else frame.segment(item.location, frame.y.start, item.location, frame.y.end, st);
  } else if (item.type === "Arrow") {
    const data = get(item.source).data, n = lengthOf(data);
    const col = (name) => column(data, item[name], n);
    let end = {};
    if (item.head) {
      const s = item.head.size, id = `ae-vee-${item.id}`;
      frame.parts.push(h("defs", {}, [h("marker", {id, viewBox: `${-s} ${-s / 2} ${s} ${s}`, markerWidth: String(s),
        markerHeight: String(s), markerUnits: "userSpaceOnUse", orient: "auto", refX: "0", refY: "0"},
      [h("path", {d: `M${-s},${-s / 2} L0,0 L${-s},${s / 2}`, fill: "none", stroke: String(item.head.color), "stroke-width": "2"})])]));
      end = {"marker-end": `url(#${id})`};
    }
    const st = style(null, 0, item.line_color, item.line_alpha, item.line_width, item.line_dash);
    const x0 = col("x_start"), y0 = col("y_start"), x1 = col("x_end"), y1 = col("y_end");
    for (let i = 0; i < n; i++) frame.segment(x0[i], y0[i], x1[i], y1[i], st, end);
  }
}

function dataValues(spec, get, dim) {
  const values = [];
  for (const r of spec.renderers) {
    if (!r.visible) continue;
    const data = get(r.source).data;
    if (!(dim in r.glyph)) continue;
    for (const v of column(data, r.glyph[dim], Math.max(lengthOf(data), 1))) values.push(num(v));
  }
  return values;
}

const TITLE_PX = 24, TICK_LABEL_PX = 11, AXIS_LABEL_PX = 13;
/** The largest size a tick label is drawn at (explorable.css's --ae-small: 13 px, 15 px on a phone): a
 * vertical axis keeps room for its longest label at that size, so "machine" never runs into the axis title. */
const TICK_LABEL_MAX_PX = 15;
const textPx = (text, size) => Array.from(String(text)).reduce((w, ch) => w + (ch.codePointAt(0) >= 0x2E80 ? size : 0.6 * size), 0);

function axisBand(axis, ticks, horizontal) {
  if (!axis || axis.visible === false) return 0;
  let depth = 6 + 5 + (horizontal ? TICK_LABEL_PX + 3
    : Math.ceil(Math.max(7, ...ticks.map(([, label]) => textPx(label, TICK_LABEL_MAX_PX)))));
  if (axis.axis_label) depth += AXIS_LABEL_PX + 12;
  return depth;
}

/** A horizontal axis's words never run into each other or past the frame on a narrow screen: a text of
 * `em` widths (textPx at 1 px) that has `share` of the frame's width to itself is drawn at most at the size
 * that fills that share, in container units of the axis (`cqw`, its width a hundredth), so the browser
 * sizes it at every width with no layout read. */
const fitted = (em, share) => (em > 0 ? `;font-size:min(1em,${((100 * share) / em).toFixed(2)}cqw)` : "");

function axisNode(axis, ticks, side) {
  if (!axis || axis.visible === false) return h("div");
  const spans = [];
  const shown = ticks.filter(([f]) => f !== null && f >= -1e-9 && f <= 1 + 1e-9);
  const across = side === "below" || side === "above";
  // Each label has at least the narrowest gap between two neighbouring ticks (the whole width when alone).
  const at = shown.map(([f]) => f).sort((a, b) => a - b);
  const gap = Math.min(1, ...at.slice(1).map((f, i) => f - at[i]).filter((d) => d > 1e-9));
  const size = across ? fitted(Math.max(0, ...shown.map(([, label]) => textPx(label, 1))), gap) : "";
  for (const [f, label] of shown) {
    const where = side === "below" ? `left:${pct(f)};top:11px;transform:translateX(-50%)${size}`
      : side === "above" ? `left:${pct(f)};bottom:11px;transform:translateX(-50%)${size}`
        : `top:${pct(1 - f)};right:11px;transform:translateY(-50%)`;
    spans.push(h("span", lang(label, {style: where}), [String(label)]));
  }
  if (axis.axis_label) {
    const fit = across ? fitted(textPx(axis.axis_label, 1), 1) : "";
    const where = side === "below" ? `left:50%;bottom:2px;transform:translateX(-50%)${fit}`
      : side === "above" ? `left:50%;top:2px;transform:translateX(-50%)${fit}`
        : `left:${AXIS_LABEL_PX / 2 + 1}px;top:50%;transform:translate(-50%,-50%) rotate(-90deg)`;
    spans.push(h("span", {class: "ae-pic-axis-label", ...lang(axis.axis_label, {style: where})}, [String(axis.axis_label)]));
  }
  const cls = {below: "ae-pic-x", above: "ae-pic-x ae-pic-above", left: "ae-pic-y", right: "ae-pic-y"}[side];
  return h("div", {class: `ae-pic-axis ${cls}`, style: "position:absolute;inset:0"}, spans);
}

function swatch(glyph) {
  const t = glyph.type;
  if (t === "Scatter") {
    const size = typeof glyph.size === "number" ? glyph.size : 12;
    return [h("g", {transform: "translate(10,10)"},
              [h("path", {d: markerPath(String(glyph.marker), Math.min(size, 16)), ...visuals(glyph, {}, 1)[0]})])];
  }
  if (["HBar", "VBar", "Patch", "Rect"].includes(t)) return [h("rect", {x: "2", y: "4", width: "16", height: "12", ...visuals(glyph, {}, 1)[0]})];
  if (t === "Line") {
    return [h("line", {x1: "0", y1: "10", x2: "20", y2: "10",
                       ...style(null, 0, glyph.line_color, glyph.line_alpha ?? 1, glyph.line_width ?? 1)})];
  }
  return [];
}

function legendNodes(legend) {
  if (!legend) return [];
  const entries = legend.entries.map((e) => h("span", lang(e.label), [
    h("svg", {viewBox: "0 0 20 20", "aria-hidden": "true"}, e.glyphs.flatMap(swatch)), String(e.label)]));
  return [h("div", {class: "ae-pic-legend"}, [h("div", {style: `grid-template-columns:repeat(${legend.ncols},auto)`}, entries)])];
}

/** The figure's two dimensions in its present state (for drawing it, and for a pointer's place). */
export function scales(spec, get) {
  return {x: new Axis1d(spec.x, get(spec.x.range), dataValues(spec, get, "x")),
          y: new Axis1d(spec.y, get(spec.y.range), dataValues(spec, get, "y"))};
}

/**
 * The figure's inside (its grid of title, axes, frame and legend) as nodes
 * (web/dom.js's `h`), in the state of the models `get(ref)` returns; and the
 * grid's CSS.
 * @param {object} spec a figure's spec (web/figures.js)
 * @param {function(object): object} get a reference -> the live model
 * @returns {{cells: object[], style: string, title: string}} (`cells`: the grid's cells, one
 *   element each, as nodes for web/dom.js's `patch`)
 */
export function figureNodes(spec, get) {
  const {x, y} = scales(spec, get);
  const frame = new Frame(x, y);
  const xAxis = spec.x_axis ? get(spec.x_axis.model) : null, yAxis = spec.y_axis ? get(spec.y_axis.model) : null;
  const xTicks = xAxis ? x.ticks(xAxis, spec.x_axis) : [], yTicks = yAxis ? y.ticks(yAxis, spec.y_axis) : [];
  if (spec.grid.x && !x.factors) {
    for (const [f] of xTicks) {
      if (f !== null) frame.parts.push(h("line", {x1: pct(f), y1: "0", x2: pct(f), y2: "100%", stroke: String(spec.grid.x), "stroke-width": "1"}));
    }
  }
  if (spec.grid.y && !y.factors) {
    for (const [f] of yTicks) {
      if (f !== null) frame.parts.push(h("line", {x1: "0", y1: pct(1 - f), x2: "100%", y2: pct(1 - f), stroke: String(spec.grid.y), "stroke-width": "1"}));
    }
  }
  for (const r of spec.renderers) if (r.visible) drawGlyph(frame, r.glyph, get(r.source).data);
  for (const item of spec.annotations) drawAnnotation(frame, item, get);
  const above = spec.x_axis && spec.x_axis.side === "above";
  const title = spec.title ? get(spec.title).text || "" : "";
  const xBand = axisBand(xAxis, xTicks, true);
  const left = axisBand(yAxis, yTicks, false) + (spec.min_border_left ?? spec.min_border ?? 5);
  // A tick label at the frame's right end (a log axis's last decade, "10") is centred on it: the figure
  // keeps room for its right half rather than clipping it.
  const lastHalf = xTicks.filter(([f]) => f !== null && f > 1 - 1e-6 && f < 1 + 1e-9)
    .map(([, label]) => Math.ceil(textPx(label, TICK_LABEL_PX) / 2) + 1);
  const right = Math.max(spec.min_border_right ?? spec.min_border ?? 5, ...lastHalf);
  // A figure whose data units are as long across as up (match_aspect) is as tall as its square frame.
  const square = spec.match_aspect;
  const rows = [title ? `minmax(${TITLE_PX}px, auto)` : "0", ...(above ? [`${xBand}px`] : []), square ? "auto" : "1fr", ...(above ? [] : [`${xBand}px`]), "auto"];
  const svg = h("svg", {"aria-hidden": "true"}, frame.parts);  // (its words in the module's font)
  const xCell = h("div", {style: "grid-column:2;position:relative"}, [axisNode(xAxis, xTicks, above ? "above" : "below")]);
  const cells = [h("div", lang(title, {class: "ae-pic-title", style: "grid-column:2"}), title ? [String(title)] : []),
    ...(above ? [xCell] : []),
    h("div", {style: "grid-column:1;position:relative"}, [axisNode(yAxis, yTicks, "left")]),
    h("div", {class: "ae-pic-frame", style: `grid-column:2${square ? ";aspect-ratio:1" : ""}`}, [svg]),
    ...(above ? [] : [xCell]),
    h("div", {style: "grid-column:1 / span 3"}, legendNodes(spec.legend))];
  const style = `grid-template-columns:${left}px 1fr ${right}px;grid-template-rows:${rows.join(" ")};` +
    `padding:${spec.min_border ?? 5}px 0`;
  return {cells, style, title};
}
