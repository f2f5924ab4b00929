// The vector explorable of section 3.7.6 as one module in the anywidget front-end form: its view (twin of
// attention_explorable/views/vector.py, the oracle), the convex hull of the values (Andrew's monotone
// chain, giving the vertices Qhull gives in Python), and `render({model, el})`, which builds its question,
// sliders, typed boxes, readouts and plane (a tap or a drag moves the query's tip) and draws every change
// of its model.
import {scaledDotProductAttention} from "./attention.js";
import {CHOICE_MODELS, checkChoice, choiceFeedback, choiceProps, lock} from "./choice.js";
import {drawsFrom, planeFigure, source} from "./figures.js";
import {choiceParts, drawView, el, figure, modelSlider, moduleRoot, noticePart, phoneOrder, readout, setState} from "./parts.js";
import {MINUS, dataTable, escapeHtml, fill, formatFixed, formatG, formatNumber, formatVector} from "./shared.js";

export const SLIDERS = ["query_x", "query_y", "temperature"];
// The prediction asked first (views.vector.PREDICTIONS), the right one, and the state.
export const PREDICTIONS = ["", "first", "third", "midpoint", "centroid"];
export const RIGHT_PREDICTION = "midpoint";
export const STATE_NAMES = [...SLIDERS, "prediction", "revealed"];
/** views.vector.QUERY_LABEL_EDGE: past it, the label "q" goes to the inner side of the tip. */
const QUERY_LABEL_EDGE = 1.5;
const SUB = "₀₁₂₃₄₅₆₇₈₉";

/**
 * Scores, weights and output of one query (views.vector.attend).
 * @param {number[]} query (2,) the query q
 * @param {number[][]} keys (n, 2) keys k_j
 * @param {number[][]} values (n, 2) values v_j
 * @param {number} temperature T > 0
 * @returns {{scores: number[], weights: number[], output: number[]}} scores s = q · k_j (n,),
 *   weights softmax(s / T) (n,), output y = Σ a_j v_j (2,)
 */
export function attend(query, keys, values, temperature) {
  // Plain dot products (scale 1), the temperature after: (1, 2) @ (2, n) -> (1, n); (1, n) @ (n, 2) -> (1, 2).
  const {scores, weights, output} = scaledDotProductAttention([query], keys, values, {scale: 1, temperature});
  return {scores: scores[0], weights: weights[0], output: output[0]};
}

const cross = (o, a, b) => (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);

/**
 * Vertices of the convex hull of 2-D points, counter-clockwise
 * (views.vector.convex_hull, which asks Qhull): Andrew's monotone chain.
 * Duplicates are dropped; the first vertex is the lowest-left point (smallest
 * x, then smallest y); points on one line (within 1e-12 of the points'
 * extent squared, as Qhull judges them) give the two extreme points.
 * @param {number[][]} points (n, 2), n >= 1
 * @returns {number[][]} (m, 2), m <= n
 */
export function convexHull(points) {
  const sorted = points.map(([x, y]) => [x, y]).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const pts = sorted.filter((p, i) => i === 0 || p[0] !== sorted[i - 1][0] || p[1] !== sorted[i - 1][1]);
  if (pts.length <= 2) return pts.length === 2 ? pts : pts.slice(0, 1);
  const xs = pts.map((p) => p[0]), ys = pts.map((p) => p[1]);
  const extent = Math.max(Math.max(...xs) - Math.min(...xs), Math.max(...ys) - Math.min(...ys));
  const eps = 1e-12 * extent * extent;
  const chain = (list) => {
    const out = [];
    for (const p of list) {
      while (out.length >= 2 && cross(out[out.length - 2], out[out.length - 1], p) <= eps) out.pop();
      out.push(p);
    }
    return out;
  };
  const lower = chain(pts), upper = chain(pts.slice().reverse());
  const hull = lower.slice(0, -1).concat(upper.slice(0, -1));
  return hull.length >= 3 ? hull : [pts[0], pts[pts.length - 1]];
}

// Python's round(x, decimals) (half to even on the exact value), + 0 turning -0 into 0.
const roundTo = (x, decimals) => Number(formatFixed(x, decimals)) + 0;

/**
 * The query a tap or a drag at (x, y) sets (views.vector.point_to_query):
 * clamped to [lo, hi], rounded to `decimals`; null when x or y is not a
 * finite number (a deleted tip).
 * @param {number} x data units
 * @param {number} y data units
 * @param {number[]} bounds [lo, hi]
 * @param {number} decimals
 * @returns {number[] | null} [query_x, query_y]
 */
export function pointToQuery(x, y, [lo, hi] = [-2, 2], decimals = 2) {
  if (typeof x !== "number" || typeof y !== "number" || !Number.isFinite(x) || !Number.isFinite(y)) return null;
  return [roundTo(Math.min(Math.max(x, lo), hi), decimals), roundTo(Math.min(Math.max(y, lo), hi), decimals)];
}

const sub = (j) => Array.from(String(j), (c) => SUB[Number(c)]).join("");

// `direction` or its opposite, whichever points away from `centre` (ties: the opposite).
/** A negative factor of a written product in parentheses, 1.00×(−1) (views.vector._factor). */
const factor = (number) => (number.startsWith(MINUS) ? `(${number})` : number);

function away(point, [dx, dy], centre) {
  const dot = dx * (centre[0] - point[0]) + dy * (centre[1] - point[1]);
  return dot >= 0 ? [-dx, -dy] : [dx, dy];
}

/**
 * Pixel offsets and alignments that put each label `gap` px along its direction.
 * @param {number[][]} directions (n, 2)
 * @param {number} gap pixels
 * @returns {{dx: number[], dy: number[], align: string[]}}
 */
export function labelOffsets(directions, gap) {
  const dx = [], dy = [], align = [];
  for (const [ddx, ddy] of directions) {
    const norm = Math.sqrt(ddx * ddx + ddy * ddy);
    const [ux, uy] = norm > 1e-12 ? [ddx / norm, ddy / norm] : [0.7071, -0.7071];
    dx.push(gap * ux);
    dy.push(gap * uy);
    align.push(ux > 0.3 ? "left" : ux < -0.3 ? "right" : "center");
  }
  return {dx, dy, align};
}

/** views.vector.VALUE_LABEL_EDGE, VALUE_LABEL_RISE and VALUE_LABEL_DROP: a value's label that would run
 * rightwards from a point right of the edge is centred above (its baseline RISE px up) or below (DROP px down). */
const VALUE_LABEL_EDGE = 0.5, VALUE_LABEL_RISE = 20, VALUE_LABEL_DROP = 28;

/** views.vector._value_label_offsets: labelOffsets, with a rightward label near the right edge centred instead. */
function valueLabelOffsets(points, directions, gap) {
  const out = labelOffsets(directions, gap);
  points.forEach(([x], j) => {
    if (out.align[j] === "left" && x > VALUE_LABEL_EDGE) {
      out.dx[j] = 0;
      out.dy[j] = directions[j][1] >= 0 ? VALUE_LABEL_RISE : -VALUE_LABEL_DROP;
      out.align[j] = "center";
    }
  });
  return out;
}

/** views.vector.OUTPUT_LABEL_NEAR and _output_label: "y" left of the star, or right of it near a value whose
 * label runs to the left. */
const OUTPUT_LABEL_NEAR = 0.3;
function outputLabel([yx, yy], values, valueOffsets) {
  const near = values.some(([vx, vy], j) => Math.hypot(yx - vx, yy - vy) < OUTPUT_LABEL_NEAR && valueOffsets.align[j] === "right");
  return near ? {dx: [20], dy: [0], align: ["left"]} : {dx: [-12], dy: [0], align: ["right"]};
}

/** views.vector._query_label: the label "q" up and to the right of the tip, turned inwards near an edge. */
function queryLabel(qx, qy) {
  const right = qx <= QUERY_LABEL_EDGE, up = qy <= QUERY_LABEL_EDGE;
  return {dx: [right ? 9 : -9], dy: [up ? 12 : -12], align: [right ? "left" : "right"]};
}

/**
 * Everything the vector explorable displays for one state (views.vector.vector_view).
 * @param {object} st query_x, query_y (components of q, each in [-2, 2]), temperature (T in [0.05, 5]);
 *   prediction (PREDICTIONS) and revealed (boolean), both optional
 * @param {object} config views.vector.vector_config(language, keys, values)
 * @returns {object} {sources, ranges, html, props}
 */
export function vectorView(st, config) {
  const f = formatNumber, S = config.strings;
  const qx = st.query_x, qy = st.query_y, temp = st.temperature;
  checkChoice(st, PREDICTIONS);
  const prediction = st.prediction || "", revealed = Boolean(st.revealed);
  const k = config.keys, v = config.values;
  const {scores, weights, output: y} = attend([qx, qy], k, v, temp);
  const idx = k.map((_, j) => sub(j + 1));

  // Labels sit on the side away from the values' centre (see the Python twin).
  let cx = 0, cy = 0;
  for (const [vx, vy] of v) { cx += vx; cy += vy; }
  const centre = [cx / v.length, cy / v.length];
  const gap = config.label_gap;
  const mids = k.map(([kx, ky]) => [0.4 * kx, 0.4 * ky]);
  const keyDirs = mids.map((m, j) => away(m, [-k[j][1], k[j][0]], centre));
  const valueDirs = v.map(([vx, vy]) => [vx - centre[0], vy - centre[1]]);
  const valueOffsets = valueLabelOffsets(v, valueDirs, gap);
  const hull = convexHull(v);

  const dots = k.map((kj, j) =>
    `s${idx[j]} = ${factor(f(qx, 2))}×${factor(formatG(kj[0]))} + ${factor(f(qy, 2))}×${factor(formatG(kj[1]))}` +
    ` = ${f(scores[j], 3)}`).join("<br>");
  const terms = weights.map((w, j) =>
    `${f(w, 3)}·${formatVector(v[j], v[j].every((c) => c === Math.round(c)) ? 0 : 2)}`).join(" + ");
  const row = (kind, cells) => `<table><tr><td class='ae-kind'>${kind}</td>${cells}</tr></table>`;
  // The plot's data: each point with its coordinates, each value with its weight.
  const pointsRows = [["q", f(qx, 3), f(qy, 3), ""]]
    .concat(k.map(([kx, ky], j) => [`k${idx[j]}`, formatG(kx), formatG(ky), ""]))
    .concat(v.map(([vx, vy], j) => [`v${idx[j]}`, formatG(vx), formatG(vy), f(weights[j], 3)]))
    .concat([["y", f(y[0], 3), f(y[1], 3), ""]]);
  const values = [qx, qy, temp];
  const props = {};
  SLIDERS.forEach((name, i) => { props[name + "_slider"] = {value: values[i]}; });
  SLIDERS.forEach((name, i) => { props[name + "_box"] = {value: formatG(values[i])}; });
  // Predict first (the example only): the answer is the example's query at the lowest temperature.
  let feedback = "";
  if (config.asks) {
    const answer = () => {
      const asked = config.answer_state;
      const at = attend([asked.query_x, asked.query_y], k, v, asked.temperature);
      return fill(S.vector_predict_answer,
        {t: formatG(asked.temperature), w: formatVector(at.weights), y: formatVector(at.output)});
    };
    Object.assign(props, choiceProps("vector", S, PREDICTIONS, prediction, revealed, RIGHT_PREDICTION));
    lock(props, SLIDERS.flatMap((name) => [name + "_slider", name + "_box"]), revealed);  // nothing to try before
    feedback = choiceFeedback(S, "vector", prediction, RIGHT_PREDICTION, revealed, answer);
  } else for (const name of CHOICE_MODELS) props[name] = {visible: false};

  return {
    sources: {
      query: {x: [qx], y: [qy], label: ["q"], ...queryLabel(qx, qy)},
      keys: {x: k.map((p) => p[0]), y: k.map((p) => p[1]), lx: mids.map((m) => m[0]), ly: mids.map((m) => m[1]),
        label: idx.map((i) => "k" + i), ...labelOffsets(keyDirs, gap)},
      values: {x: v.map((p) => p[0]), y: v.map((p) => p[1]), size: weights.map((a) => 8.0 + 22.0 * Math.sqrt(a)),
        label: weights.map((a, j) => `v${idx[j]} (${f(a, 3, false)})`), ...valueOffsets},
      hull: {x: hull.map((p) => p[0]), y: hull.map((p) => p[1])},
      output: {x: [y[0]], y: [y[1]], label: ["y"], ...outputLabel(y, v, valueOffsets)},
    },
    ranges: {},
    html: {
      scores_readout: row(S.readout_scores, scores.map((s, j) => `<td>s${idx[j]} = ${f(s, 3)}</td>`).join("")),
      weights_readout: row(S.readout_weights, weights.map((a, j) => `<td>α${idx[j]} = ${f(a, 3)}</td>`).join("")),
      output_readout: row(S.readout_output, `<td>y = ${formatVector(y)}</td>`),
      formula:
        `<div class='ae-kind'>${S.formula_label}</div>` +
        `<div class='ae-kind'>${S.vector_formula_scores}</div>${dots}` +
        `<div class='ae-kind'>${S.vector_formula_weights}</div>` +
        `α = softmax([${scores.map((s) => f(s, 3)).join(", ")}] / ${f(temp, 2)})` +
        // (a result kept whole with its "=": a narrow screen breaks the line before it, not after)
        ` <span class='ae-nobreak'>= [${weights.map((a) => f(a, 3)).join(", ")}]</span>` +
        `<div class='ae-kind'>${S.vector_formula_output}</div>` +
        `y = ${terms} <span class='ae-nobreak'>= ${formatVector(y)}</span>`,
      plot_data: dataTable(S.vector_plot, [S.data_name, "x", "y", S.readout_weights], pointsRows),
      live: `${S.readout_weights} ` + weights.map((a, j) => `α${idx[j]} = ${f(a, 3)}`).join(", ") +
        ` · ${S.readout_output} y = ${formatVector(y)}`,
      feedback,
    },
    props,
  };
}

/**
 * The explorable in `el` (the anywidget front-end form): the question asked first, the query's two
 * sliders and the temperature's, each with a box to type its value, the readouts and formula, and the
 * plane, where a tap puts the query's tip and a drag moves it; drawn from `vectorView` on every change of
 * the model's `query_x`, `query_y`, `temperature`, `prediction` and `revealed`. Its model also holds
 * `config` (views.vector.vector_config) and `lang`.
 */
function render({model, el: host}) {
  const config = model.get("config"), S = config.strings;
  const root = moduleRoot(host, "ae-vector", model.get("lang"), model.get("theme"));
  const notice = noticePart(), say = notice.say;
  const bounds = config.sliders.query_x.slice(0, 2);
  const locked = () => Boolean(config.asks) && !model.get("revealed");
  // While the student drags the tip it is drawn where the pointer holds it; dropped, it snaps to the state.
  let held = false;
  const moveTip = (x, y, dropped) => {
    const q = pointToQuery(x, y, bounds, config.decimals);
    if (q === null) return;
    if (locked()) {  // predict first: the plot's tip waits with the sliders
      if (dropped) say(escapeHtml(S.predict_locked));
      return;
    }
    held = !dropped;
    if (held) {
      sources.query.data = {...sources.query.data, x: [x], y: [y]};
      plot.draw();
    }
    say("");
    if (q[0] !== model.get("query_x") || q[1] !== model.get("query_y")) setState(model, {query_x: q[0], query_y: q[1]});
    else if (dropped) drawing.draw();
  };
  const sources = {query: source(), keys: source(), values: source(), hull: source(), output: source()};
  const legend = Object.fromEntries(["query", "key", "value", "hull", "output"].map((k) => [k, S[`vector_legend_${k}`]]));
  const plot = drawsFrom(figure("ae-vector-plot", planeFigure(sources, {title: S.vector_plot, legend, extent: bounds[1]}),
                                {onTap: (x, y) => moveTip(x, y, true), onDrag: moveTip,
                                 grab: () => (locked() ? null : [model.get("query_x"), model.get("query_y")])}));
  const toGrid = (v) => roundTo(v, config.decimals);
  const sliders = {
    query_x: modelSlider("query_x", "ae-query-x", config, model, {say, toGrid}),
    query_y: modelSlider("query_y", "ae-query-y", config, model, {say, toGrid}),
    temperature: modelSlider("temperature", "ae-vector-temperature", config, model, {say, toGrid, log: true}),
  };
  const parts = {
    sources, ranges: {},
    ...choiceParts("vector", S, PREDICTIONS, model, {say, reveal: () => ({...config.answer_state}), right: RIGHT_PREDICTION}),
    ...Object.assign({}, ...Object.values(sliders)),
    scores_readout: readout("ae-vector-scores"),
    weights_readout: readout("ae-vector-weights"),
    output_readout: readout("ae-vector-output"),
    formula: readout("ae-vector-formula"),
    plot_data: readout("ae-vector-plot-data", {sr: true}),
    live: readout("ae-live", {live: true, sr: true}),
  };
  const left = el("div", {class: "ae-n-col", style: "flex:1 1 340px;max-width:540px;min-width:0"},
    plot.el, parts.plot_data.el);
  const right = el("div", {class: "ae-n-col", style: "flex:1 1 300px;max-width:560px;min-width:0"},
    ...CHOICE_MODELS.map((n) => parts[n].el), ...Object.values(sliders).map((p) => p.el), notice.el,
    parts.scores_readout.el, parts.weights_readout.el, parts.output_readout.el, parts.live.el, parts.formula.el);
  phoneOrder("first", ...CHOICE_MODELS.map((n) => parts[n].el));
  root.append(el("div", {class: "ae-n-flex ae-n-split", style: "flex-direction:row;flex-wrap:wrap;gap:12px"}, left, right));
  const drawing = drawView(model, STATE_NAMES, parts, (st) => {
    const view = vectorView(st, config);
    if (held) delete view.sources.query;
    return view;
  });
  return drawing;
}

export default {render};
