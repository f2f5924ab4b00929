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
  for (const r of spec.renderers) if (!r.source.figures.includes(fig)) r.source.figures.push(fig);
  for (const d of [spec.x.range, spec.y.range]) if (d.figures && !d.figures.includes(fig)) d.figures.push(fig);
  return fig;
}
