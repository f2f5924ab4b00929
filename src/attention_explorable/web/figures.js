// The explorable modules' figures, as specs web/svg.js draws (web/parts.js `figure`): plain objects holding
// their sources (`{data}`, which a view writes), ranges, axes and title. The live Panel components draw the
// same pictures with Bokeh (attention_explorable/plots.py); these are the module's own.

/** A source of a figure: its columns, written by the view (`data`), and the figures that draw it. */
export const source = (data = {}) => ({data, figures: []});

const axis = (label, side, {ticks = null, labels = {}, visible = true} = {}) =>
  ({model: {axis_label: label, major_label_overrides: labels, visible}, side, ticks, desired: 6});

/**
 * The common frame of a figure: a title, a height in px, two ranges (`Range1d`, or `DataRange1d` with a
 * padding) and two axes; `renderers` and `annotations` are added by the caller.
 */
export function frame({title = "", height = 300, x, y, xAxis, yAxis, minBorderRight = 12, matchAspect = false}) {
  return {
    height, match_aspect: matchAspect, min_width: 260, max_width: null, min_border: 5, min_border_left: null,
    min_border_right: minBorderRight, title: {text: title},
    x: {range: x, log: false}, y: {range: y, log: false}, x_axis: xAxis, y_axis: yAxis,
    grid: {}, renderers: [], annotations: [], legend: null, drag: null, tap: false,
  };
}

/** A fixed range from `start` to `end` (an upside-down one runs downwards). */
export const range = (start, end) => ({type: "Range1d", start, end, figures: []});

/**
 * A matrix as coloured cells with its numbers written in (plots.heatmap_figure's picture): row i runs
 * down from the top, column j to the right, both from 1. `cells` has the columns x (j), y (i), fill, text
 * and text_color; `n` rows and columns, or `columns` only for one row; `labels` names column j (from 1)
 * in place of its number; `highlight` (x, y, width, height) is outlined.
 */
export function heatmap(cells, {title, xLabel = "", yLabel = "", n = 4, rows = n, height = 300, labels = {},
                                hideRows = false, highlight = null}) {
  const spec = frame({
    title, height, x: range(0.5, n + 0.5), y: range(rows + 0.5, 0.5),
    xAxis: axis(xLabel, "above", {ticks: Array.from({length: 16}, (_, i) => i + 1), labels}),
    yAxis: axis(yLabel, "left", {ticks: Array.from({length: 16}, (_, i) => i + 1), visible: !hideRows}),
  });
  spec.renderers.push(
    {glyph: {type: "Rect", x: "x", y: "y", width: 0.96, height: 0.96, fill_color: "fill", fill_alpha: 1,
             line_color: null}, source: cells, visible: true},
    {glyph: {type: "Text", x: "x", y: "y", text: "text", text_color: "text_color", text_align: "center",
             text_baseline: "middle", text_font_size: "13px"}, source: cells, visible: true});
  if (highlight) {
    spec.renderers.push({glyph: {type: "Rect", x: "x", y: "y", width: "width", height: "height", fill_alpha: 0,
                                 line_color: "#C44E52", line_width: 3}, source: highlight, visible: true});
  }
  return spec;
}

/** Register `fig` (web/parts.js) with the sources and ranges it draws, so a view's write redraws it. */
export function drawsFrom(fig) {
  const spec = fig.spec;
  for (const r of [...spec.renderers, ...spec.annotations]) {
    if (r.source && !r.source.figures.includes(fig)) r.source.figures.push(fig);
  }
  for (const d of [spec.x.range, spec.y.range]) if (d.figures && !d.figures.includes(fig)) d.figures.push(fig);
  return fig;
}

const line = (color, width, dash = []) => ({line_color: color, line_alpha: 1, line_width: width, line_dash: dash});
const scatter = (marker, size, fill, fillAlpha, stroke, width) =>
  ({type: "Scatter", x: "x", y: "y", marker, size, fill_color: fill, fill_alpha: fillAlpha, ...line(stroke, width)});
const labels = (src, {x = "x", y = "y", dx = "dx", dy = "dy", align = "align", size, color, bold = false}) =>
  ({type: "LabelSet", source: src, x, y, text: "label", x_offset: dx, y_offset: dy, text_align: align, text_color: color,
    text_baseline: "middle", text_font_size: size, text_font_style: bold ? "bold" : "normal"});
const arrow = (src, id, color, width, head) =>
  ({type: "Arrow", source: src, id, x_start: 0, y_start: 0, x_end: "x", y_end: "y", ...line(color, width),
    head: {size: head, color}});

/** The colours of the 3.7 worked example's plane (plots.PALETTE_37). */
export const PLANE = {query: "#C44E52", key: "#7F7F7F", value: "#4C72B0", hull: "#B3CDE3", output: "#DD8452"};

/**
 * The plane of the 3.7 worked example (plots.vector_figure's picture): the keys as grey arrows from the
 * origin with their labels, the values as blue dots sized by their weights, their convex hull, the output
 * `y` as a star and the query as a red arrow whose tip is a ring; the square [-extent - 0.1, extent + 0.1]²
 * always in view, the axes crossing at 0, the legend below. `sources` holds query, keys, values, hull and
 * output (the columns views.vector.vector_view writes); `legend` the five entries' labels.
 */
let planes = 0;
export function planeFigure(sources, {title, legend, extent = 2}) {
  const pad = extent + 0.1, id = `plane${++planes}`;
  const data = () => ({type: "DataRange1d", start: null, end: null, figures: []});
  const spec = frame({title, height: 500, x: data(), y: data(), matchAspect: true, minBorderRight: null,
                      xAxis: axis("", "below"), yAxis: axis("", "left")});
  Object.assign(spec, {max_width: 520, grid: {x: "#e5e5e5", y: "#e5e5e5"}});
  spec.x.padding = spec.y.padding = [0.02, "percent"];
  const c = PLANE;
  const glyphs = {
    hull: {type: "Patch", x: "x", y: "y", fill_color: c.hull, fill_alpha: 0.6, ...line(c.value, 1, [6])},
    key: {type: "Line", x: "x", y: "y", ...line(c.key, 2)},
    value: {...scatter("circle", "size", c.value, 0.8, c.value, 1)},
    output: scatter("star", 20, c.output, 1, "#333", 1),
    query: scatter("circle", 18, c.query, 0.3, c.query, 2),
  };
  spec.renderers.push(
    {glyph: scatter("circle", 4, c.value, 0, c.value, 1), source: source({x: [-pad, pad], y: [-pad, pad]}), visible: true},
    {glyph: glyphs.hull, source: sources.hull, visible: true},
    {glyph: glyphs.value, source: sources.values, visible: true},
    {glyph: glyphs.output, source: sources.output, visible: true},
    {glyph: glyphs.query, source: sources.query, visible: true});
  spec.renderers[0].glyph.line_alpha = 0;
  spec.annotations.push(
    {type: "Span", location: 0, dimension: "width", ...line("#999", 1), visible: true},
    {type: "Span", location: 0, dimension: "height", ...line("#999", 1), visible: true},
    // The query's arrow wide and see-through, under the keys' thin ones: a query on a key (the worked
    // example opens on q = k₁) leaves the key in sight inside it.
    {...arrow(sources.query, `${id}-query`, c.query, 5, 14), line_alpha: 0.8},
    arrow(sources.keys, `${id}-key`, c.key, 2, 10),
    labels(sources.keys, {x: "lx", y: "ly", size: "12px", color: "#555"}),
    labels(sources.values, {size: "12px", color: c.value}),
    labels(sources.output, {size: "13px", color: "#8a4a12", bold: true}),
    labels(sources.query, {size: "14px", color: c.query, bold: true}));
  spec.legend = {ncols: 2, entries: ["hull", "key", "value", "output", "query"].map((k) => ({label: legend[k], glyphs: [glyphs[k]]}))};
  return spec;
}

/**
 * The saturation curves of section 3.7.7 (plots.saturation_figure's picture): the mean largest weight
 * against d_k, unscaled (orange) and divided by √d_k (blue), as lines through `curve` (columns d, scaled,
 * unscaled); at the present d_k (`mark`: d, scaled, unscaled, current, y0, y1) a dashed upright line,
 * a dot on each curve and a diamond at the present matrix's value; d_k from 0 to `dMax` + 1, the weight
 * from 0 to 1.03; the legend below (`legend`: scaled, unscaled, current).
 */
export function saturationFigure(curve, mark, {title, xLabel, yLabel, legend, dMax = 64}) {
  const spec = frame({title, height: 260, x: range(0, dMax + 1), y: range(0, 1.03), minBorderRight: null,
                      xAxis: axis(xLabel, "below"), yAxis: axis(yLabel, "left")});
  spec.grid = {x: "#e5e5e5", y: "#e5e5e5"};
  const unscaled = {type: "Line", x: "d", y: "unscaled", ...line("#DD8452", 2)};
  const scaled = {type: "Line", x: "d", y: "scaled", ...line("#4C72B0", 2)};
  const dot = (y, color) => ({...scatter("circle", 9, color, 1, color, 1), x: "d", y});
  const current = {...scatter("diamond", 12, "#333", 1, "#333", 1), x: "d", y: "current"};
  spec.renderers.push(
    {glyph: {type: "Segment", x0: "d", y0: "y0", x1: "d", y1: "y1", ...line("#999", 1, "dashed")}, source: mark, visible: true},
    {glyph: unscaled, source: curve, visible: true},
    {glyph: scaled, source: curve, visible: true},
    {glyph: dot("unscaled", "#DD8452"), source: mark, visible: true},
    {glyph: dot("scaled", "#4C72B0"), source: mark, visible: true},
    {glyph: current, source: mark, visible: true});
  spec.legend = {ncols: 2, entries: [{label: legend.unscaled, glyphs: [unscaled]}, {label: legend.scaled, glyphs: [scaled]},
    {label: legend.current, glyphs: [current]}]};
  return spec;
}

/** The colours of 3.8's steps (plots.PALETTE). */
export const STEPS = {value: "#4C72B0", output: "#DD8452", prediction: "#55A868", interval: "#B3CDE3", weight: "#8172B2",
                      curve: "#4C72B0"};
const marker = (y, kind, size, color) => ({...scatter(kind, size, color, 1, color, 1), y});
const above = (src, y, dy, color) => ({...labels(src, {y, dx: 0, dy, align: "center", size: "12px", color}),
                                       text_baseline: "bottom"});

/**
 * The number line of 3.8's steps (plots.number_line_figure's picture): the interval between the two values,
 * the values as dots, the output y above as a downward triangle and the prediction below as an upward one,
 * each labelled; the y axis hidden; `sources` holds values, interval, output and prediction
 * (views.steps.steps_view's columns), `x` the range the view writes (x_range); `legend` the four labels.
 */
export function numberLineFigure(sources, x, {title, legend}) {
  const spec = frame({title, height: 250, x, y: range(-2.2, 2.8), minBorderRight: null,
                      xAxis: axis("", "below"), yAxis: axis("", "left", {visible: false})});
  spec.grid = {x: "#e5e5e5"};
  const c = STEPS;
  const glyphs = {
    interval: {type: "HBar", y: 0, left: "x0", right: "x1", height: 0.35, fill_color: c.interval, fill_alpha: 1,
               ...line(c.interval, 1)},
    value: marker(0, "circle", 14, c.value),
    output: marker(1.6, "inverted_triangle", 18, c.output),
    prediction: marker(-0.85, "triangle", 16, c.prediction),
  };
  spec.renderers.push(
    {glyph: glyphs.interval, source: sources.interval, visible: true},
    {glyph: glyphs.value, source: sources.values, visible: true},
    {glyph: glyphs.output, source: sources.output, visible: true},
    {glyph: glyphs.prediction, source: sources.prediction, visible: true});
  spec.annotations.push(
    above(sources.values, 0, 12, c.value),
    above(sources.output, 1.6, 10, c.output),
    above(sources.prediction, -0.85, -24, c.prediction));
  spec.legend = {ncols: 2, entries: ["interval", "value", "output", "prediction"].map((k) => ({label: legend[k], glyphs: [glyphs[k]]}))};
  return spec;
}

/** The two weights as bars with their numbers above (plots.weights_figure's picture); `weights`: name, weight, label. */
export function weightsFigure(weights, {title, yLabel}) {
  const spec = frame({title, height: 200, x: {type: "FactorRange", factors: ["α₁", "α₂"], figures: []}, y: range(0, 1.15),
                      minBorderRight: null, xAxis: axis("", "below"), yAxis: axis(yLabel, "left")});
  spec.grid = {y: "#e5e5e5"};
  spec.renderers.push({glyph: {type: "VBar", x: "name", top: "weight", bottom: 0, width: 0.6, fill_color: STEPS.weight,
                               fill_alpha: 1, ...line(STEPS.weight, 1)}, source: weights, visible: true});
  spec.annotations.push({...labels(weights, {x: "name", y: "weight", dx: 0, dy: 4, align: "center", size: "12px",
                                             color: "#444444"}), text_baseline: "bottom"});
  return spec;
}

/**
 * The weight of the larger score against the temperature, on a log axis (plots.temperature_curve_figure's
 * picture): `curve` (t, weight) as a line, `point` (t, weight) the present temperature as a dot.
 */
export function temperatureFigure(curve, point, {title, xLabel, yLabel, bounds}) {
  const spec = frame({title, height: 200, x: range(...bounds), y: range(0.4, 1.03), minBorderRight: null,
                      xAxis: axis(xLabel, "below"), yAxis: axis(yLabel, "left")});
  spec.x.log = true;
  spec.grid = {x: "#e5e5e5", y: "#e5e5e5"};
  spec.renderers.push(
    {glyph: {type: "Line", x: "t", y: "weight", ...line(STEPS.curve, 2)}, source: curve, visible: true},
    {glyph: {...scatter("circle", 11, STEPS.output, 1, STEPS.output, 1), x: "t", y: "weight"}, source: point, visible: true});
  return spec;
}
