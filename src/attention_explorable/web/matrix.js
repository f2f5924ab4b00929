// The matrix explorable of section 3.7.7 (scaled dot-product attention) as one module in the anywidget
// front-end form: the shared random generator (twin of mulberry32, irwin_hall_normals and random_qkv in
// attention_explorable/views/matrix.py), its view (twin of matrix_view, the oracle) and
// `render({model, el})`, which builds its question, switches, sliders, heatmaps and curves and draws
// every change of its model.
import {scaledDotProductAttention} from "./attention.js";
import {CHOICE_MODELS, checkChoice, choiceFeedback, choiceProps, lock} from "./choice.js";
import {drawsFrom, heatmap, saturationFigure, source} from "./figures.js";
import {button, checkbox, choiceParts, drawView, el, figure, modelSlider, moduleRoot, noticePart, phoneOrder, readout,
        setState, title} from "./parts.js";
import {dataTable, fill, formatG, formatNumber, onGrid} from "./shared.js";
import {MULBERRY_INCREMENT, mulberry32} from "./random.js";

export {MULBERRY_INCREMENT, mulberry32};

export const STATE_NAMES = ["n_tokens", "d_k", "seed", "q1_scale", "causal", "scaled", "prediction", "revealed"];
export const TOGGLES = ["causal", "scaled"];
// The student's prediction before the curves show (views.matrix.PREDICTIONS), and the right one.
export const PREDICTIONS = ["", "flatter", "peaked", "same"];
export const RIGHT_PREDICTION = "peaked";
export const IRWIN_HALL_TERMS = 12;

const BLUES = ["#f7fbff", "#deebf7", "#c6dbef", "#9ecae1", "#6baed6", "#4292c6", "#2171b5", "#08519c", "#08306b"];
const RED_BLUE = ["#67001f", "#b2182b", "#d6604d", "#f4a582", "#fddbc7", "#f7f7f7", "#d1e5f0", "#92c5de",
  "#4393c3", "#2166ac", "#053061"];
const MASKED_FILL = "#e4e4e4", MASKED_TEXT = "#777777", DARK_TEXT = "#222222", LIGHT_TEXT = "#ffffff";
const CELL = 0.96;

// --- the shared random generator ---------------------------------------------------

/**
 * `count` approximately standard normal numbers (views.matrix.irwin_hall_normals):
 * each the sum of 12 uniforms k / 2**32 minus 6 (Irwin–Hall; exact in float64,
 * mean 0, variance 1, values in [-6, 6): an approximation of a normal).
 * @param {number} seed integer in [0, 2**32)
 * @param {number} count number of normals
 * @returns {number[]} (count,)
 */
export function irwinHallNormals(seed, count) {
  const k = mulberry32(seed, IRWIN_HALL_TERMS * count);
  const out = new Array(count);
  for (let j = 0; j < count; j++) {
    let total = 0;  // an integer below 2**36: exact
    for (let m = 0; m < IRWIN_HALL_TERMS; m++) total += k[IRWIN_HALL_TERMS * j + m];
    out[j] = total / 4294967296 - 6;
  }
  return out;
}

/**
 * Q, K, V of the explorable (views.matrix.random_qkv): the first 3 n d_k normals
 * of the seed, row by row, Q first.
 * @param {number} seed integer in [0, 2**32)
 * @param {number} n number of tokens (rows)
 * @param {number} dK dimension d_k (columns)
 * @returns {number[][][]} [q, k, v], each (n, d_k)
 */
export function randomQKV(seed, n, dK) {
  const z = irwinHallNormals(seed, 3 * n * dK);
  return [0, 1, 2].map((m) => Array.from({length: n}, (_, i) => z.slice((m * n + i) * dK, (m * n + i + 1) * dK)));
}

// --- the numbers ----------------------------------------------------------------------

/**
 * views.matrix.check_state: throws an Error naming the parameter and the value
 * unless every slider's value is a finite number within its bounds (an integer
 * where the step is) and every switch a boolean.
 * @param {object} st the state
 * @param {object} sliders name -> [low, high, step]
 */
export function checkState(st, sliders) {
  for (const [name, [lo, hi, step]] of Object.entries(sliders)) {
    const value = st[name];
    const integer = Number.isInteger(step);
    const ok = typeof value === "number" && Number.isFinite(value) && value >= lo && value <= hi &&
      (!integer || Number.isInteger(value));
    if (!ok) {
      throw new Error(`${name} must be ${integer ? "an integer" : "a number"} in [${formatG(lo)}, ${formatG(hi)}],` +
        ` got ${JSON.stringify(value)}`);
    }
  }
  for (const name of TOGGLES) {
    if (typeof st[name] !== "boolean") throw new Error(`${name} must be true or false, got ${JSON.stringify(st[name])}`);
  }
  checkChoice(st, PREDICTIONS);
}

/**
 * The matrices of one state (views.matrix.attention_matrices).
 * @param {object} st n_tokens, d_k, seed, q1_scale, causal, scaled
 * @param {object} sliders name -> [low, high, step]
 * @returns {object} q, k, v (n, d_k); mask (n, n) true where query i may attend key j;
 *   scores (n, n), -Infinity where masked; weights (n, n), rows summing to 1;
 *   rowMax (n,); meanMaxWeight
 */
export function attentionMatrices(st, sliders) {
  checkState(st, sliders);
  const n = st.n_tokens, dK = st.d_k;
  const [q, k, v] = randomQKV(st.seed, n, dK);  // each (n, d_k)
  q[0] = q[0].map((x) => x * st.q1_scale);  // a longer first query: its row of scores grows
  const scale = st.scaled ? 1.0 / Math.sqrt(dK) : 1.0;
  const mask = q.map((_, i) => k.map((__, j) => !st.causal || j <= i));  // causal: no later keys
  const {scores, weights} = scaledDotProductAttention(q, k, null, {mask, scale});  // (n, n) each
  const rowMax = weights.map((row) => Math.max(...row));
  let total = 0;
  for (const m of rowMax) total += m;
  return {q, k, v, mask, scores, weights, rowMax, meanMaxWeight: total / n};
}

/**
 * views.matrix.ramp: the colour a fraction t in [0, 1] along `colors`, linear
 * between neighbours, each channel rounded half up.
 * @param {string[]} colors "#rrggbb" colours, at least two
 * @param {number} t fraction in [0, 1] (clamped)
 * @returns {string} "#rrggbb"
 */
export function ramp(colors, t) {
  const x = Math.min(Math.max(t, 0), 1) * (colors.length - 1);
  const i = Math.min(Math.floor(x), colors.length - 2);
  const f = x - i;
  const a = colors[i], b = colors[i + 1];
  let out = "#";
  for (const c of [1, 3, 5]) {
    const lo = parseInt(a.slice(c, c + 2), 16), hi = parseInt(b.slice(c, c + 2), 16);
    out += Math.floor(lo + (hi - lo) * f + 0.5).toString(16).padStart(2, "0");
  }
  return out;
}

/**
 * views.matrix.heat_cells: fill and text colours of heatmap cells; weights light
 * to dark blue, scores (diverging) red negative to blue positive, masked grey.
 * @param {number[]} values (cells,) weights in [0, 1] or scores
 * @param {boolean[]} masked (cells,) true where masked
 * @param {boolean} diverging scores (true) or weights (false)
 * @param {number} limit score magnitude of the darkest colour
 * @returns {string[][]} [fill, text colour], each (cells,)
 */
export function heatCells(values, masked, diverging, limit = 1.0) {
  const fillColors = [], textColors = [];
  values.forEach((value, c) => {
    if (masked[c]) {
      fillColors.push(MASKED_FILL);
      textColors.push(MASKED_TEXT);
    } else if (diverging) {
      const t = Math.min(Math.max(value / limit, -1.0), 1.0);
      fillColors.push(ramp(RED_BLUE, (t + 1.0) / 2.0));
      textColors.push(Math.abs(t) > 0.55 ? LIGHT_TEXT : DARK_TEXT);
    } else {
      fillColors.push(ramp(BLUES, value));
      textColors.push(value > 0.5 ? LIGHT_TEXT : DARK_TEXT);
    }
  });
  return [fillColors, textColors];
}

// --- the view -------------------------------------------------------------------------

/**
 * The cells of the score and weight heatmaps of an (n, n) attention (views.matrix.heatmap_sources):
 * score_cells and weight_cells, each {x, y, fill, text_color, text}, cell c being row c / n, column
 * c % n; a masked cell grey, its score "−∞" and its weight "—"; the scores' colours span ± their
 * largest magnitude.
 * @param {number[][]} scores (n, n)
 * @param {number[][]} weights (n, n)
 * @param {boolean[][]} mask (n, n), true where a query may attend a key
 */
export function heatmapSources(scores, weights, mask) {
  const n = weights.length;
  const masked = mask.flat().map((m) => !m);
  const xs = [], ys = [];
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) xs.push(j + 1), ys.push(i + 1);
  const flatScores = scores.flat(), flatWeights = weights.flat();
  let limit = 0;
  flatScores.forEach((s, c) => { if (!masked[c]) limit = Math.max(limit, Math.abs(s)); });
  limit = limit || 1.0;
  const [scoreFill, scoreColour] = heatCells(flatScores, masked, true, limit);
  const [weightFill, weightColour] = heatCells(flatWeights, masked, false);
  return {
    score_cells: {x: xs, y: ys, fill: scoreFill, text_color: scoreColour,
      text: flatScores.map((s, c) => (masked[c] ? "−∞" : formatNumber(s, 2, false)))},
    weight_cells: {x: xs.slice(), y: ys.slice(), fill: weightFill, text_color: weightColour,
      text: flatWeights.map((w, c) => (masked[c] ? "—" : formatNumber(w, 2, false)))},
  };
}

/**
 * Everything the matrix explorable displays for one state (views.matrix.matrix_view).
 * @param {object} st n_tokens, d_k, seed, q1_scale, causal, scaled
 * @param {object} config views.matrix.matrix_config(language)
 * @returns {object} {sources, ranges, html, props}
 */
export function matrixView(st, config) {
  const f = formatNumber, S = config.strings;
  const res = attentionMatrices(st, config.sliders);
  const n = st.n_tokens, dK = st.d_k;
  const cells = heatmapSources(res.scores, res.weights, res.mask);
  const top = [];  // [j, i] of each row's largest weight, every one of equals (a row of q₁ = 0 is all equal)
  res.weights.forEach((row, i) => {
    const best = Math.max(...row);
    row.forEach((w, j) => { if (w === best && best > 0) top.push([j, i]); });
  });

  const curve = config.curves[String(n)];
  const curveScaled = curve.scaled[dK - 1], curveUnscaled = curve.unscaled[dK - 1];
  const meanMax = res.meanMaxWeight;
  const curveText = fill(S.matrix_curve_values, {draws: config.curve_draws, n, d: dK,
    scaled: f(curveScaled, 3), unscaled: f(curveUnscaled, 3)});
  const revealed = Boolean(st.revealed), prediction = st.prediction;
  const notes = S.matrix_highlight_note + (st.causal ? "<br>" + S.matrix_masked_note : "") +
    (st.causal && revealed ? "<br>" + S.matrix_curve_unmasked : "");  // (once the curves show)
  const props = {};
  for (const name of Object.keys(config.sliders)) {
    props[name + "_slider"] = {value: st[name]};
    props[name + "_box"] = {value: formatG(st[name])};
  }
  for (const name of TOGGLES) props[name + "_toggle"] = {active: st[name]};
  props.score_title = {text: S[st.scaled ? "matrix_plot_scores_scaled" : "matrix_plot_scores_unscaled"]};
  // Predict first: the question's buttons until a prediction is checked or skipped, then the curves.
  Object.assign(props, choiceProps("matrix", S, PREDICTIONS, prediction, revealed, RIGHT_PREDICTION));
  const locked = Object.keys(props).filter((name) => /_(slider|box|toggle)$/.test(name)).concat(["new_seed"]);
  lock(props, locked, revealed);  // nothing to try before the prediction
  props.curve_plot = {visible: revealed};
  const sums = [];
  for (const row of res.weights) {
    let s = 0;
    for (const w of row) s += w;
    sums.push(f(s, 3));
  }
  const scoreText = cells.score_cells.text, weightText = cells.weight_cells.text;
  // The plots' data as tables: the two matrices (row = query i, column = key j) and the curves.
  const corner = [`${S.matrix_axis_query} / ${S.matrix_axis_key}`];
  for (let j = 1; j <= n; j++) corner.push(String(j));
  const matrixTable = (caption, cells) => dataTable(caption, corner,
    Array.from({length: n}, (_, i) => [String(i + 1), ...cells.slice(i * n, (i + 1) * n)]));
  const curveRows = curve.d.map((d, i) => [formatG(d), f(curve.scaled[i], 3), f(curve.unscaled[i], 3)]);
  const last = curve.d.length - 1;
  const answer = () => fill(S.matrix_predict_answer, {n, u1: f(curve.unscaled[0], 2), u64: f(curve.unscaled[last], 2),
    s1: f(curve.scaled[0], 2), s64: f(curve.scaled[last], 2)});
  const feedback = choiceFeedback(S, "matrix", prediction, RIGHT_PREDICTION, revealed, answer);
  return {
    sources: {
      ...cells,
      highlight: {x: top.map(([j]) => j + 1), y: top.map(([, i]) => i + 1),
        width: top.map(() => CELL), height: top.map(() => CELL)},
      curve: {d: curve.d.slice(), scaled: curve.scaled.slice(), unscaled: curve.unscaled.slice()},
      mark: {d: [dK], scaled: [curveScaled], unscaled: [curveUnscaled], current: [meanMax], y0: [0.0], y1: [1.0]},
    },
    ranges: {score_x: [0.5, n + 0.5], score_y: [n + 0.5, 0.5], weight_x: [0.5, n + 0.5], weight_y: [n + 0.5, 0.5]},
    html: {
      max_weight: `<div class='ae-kind'>${S.matrix_max_weight}</div><b class='ae-matrix-mean-max'>` +
        `${f(meanMax)}</b>` + (revealed ? `<br><span class='ae-hint'>${curveText}</span>` : ""),
      feedback,
      row_sums: `<span class='ae-kind'>${S.matrix_row_sums}</span> ` + sums.join(", "),
      notes: `<span class='ae-hint'>${notes}</span>`,
      scores_data: matrixTable(props.score_title.text, scoreText),
      weights_data: matrixTable(S.matrix_plot_weights, weightText),
      curve_data: revealed ? dataTable(S.matrix_plot_saturation,
        [S.matrix_axis_dk, S.matrix_legend_scaled, S.matrix_legend_unscaled], curveRows) : "",
      live: `${S.matrix_max_weight}: ${f(meanMax)}`,
    },
    props,
  };
}

// --- the module ------------------------------------------------------------------------

// A new seed for the "new random numbers" button: any other one of the slider's.
function newSeed(config, seed) {
  const [lo, hi] = config.sliders.seed;
  let next = seed;
  while (next === seed) next = lo + Math.floor(Math.random() * (hi - lo + 1));
  return next;
}

const SLIDER_CLASSES = {n_tokens: "ae-matrix-n", d_k: "ae-matrix-dk", seed: "ae-matrix-seed", q1_scale: "ae-matrix-q1-scale"};

/**
 * The explorable in `el` (the anywidget front-end form): the question asked first, the scaling and the
 * causal mask, the sliders of d_k, the number of tokens, the first query's length and the seed (each
 * with a box to type its value), a new-seed button, the heatmaps of the scores and the weights and, once
 * the question is answered, the saturation curves; drawn from `matrixView` on every change of the
 * model's state (`STATE_NAMES`). Its model also holds `config` (views.matrix.matrix_config) and `lang`.
 */
function render({model, el: host}) {
  const config = model.get("config"), S = config.strings;
  const root = moduleRoot(host, "ae-matrix", model.get("lang"), model.get("theme"));
  const notice = noticePart("ae-error ae-input-notice ae-matrix-notice"), say = notice.say;
  const act = (changes) => { say(""); setState(model, changes); };
  const sources = {score_cells: source(), weight_cells: source(), highlight: source(), curve: source(), mark: source()};
  const n = model.get("n_tokens"), axes = {xLabel: S.matrix_axis_key, yLabel: S.matrix_axis_query};
  const scoreSpec = heatmap(sources.score_cells, {title: S.matrix_plot_scores_scaled, n, highlight: sources.highlight, ...axes});
  const weightSpec = heatmap(sources.weight_cells, {title: S.matrix_plot_weights, n, highlight: sources.highlight, ...axes});
  const scores = drawsFrom(figure("ae-matrix-scores", scoreSpec));
  const weights = drawsFrom(figure("ae-matrix-weights", weightSpec));
  const curves = drawsFrom(figure("ae-matrix-curve", saturationFigure(sources.curve, sources.mark, {
    title: S.matrix_plot_saturation, xLabel: S.matrix_axis_dk, yLabel: S.matrix_axis_max_weight,
    legend: {scaled: S.matrix_legend_scaled, unscaled: S.matrix_legend_unscaled, current: S.matrix_legend_current},
    dMax: config.curves[String(n)].d.length})));
  const sliders = Object.fromEntries(Object.entries(SLIDER_CLASSES).map(([name, cls]) =>
    [name, modelSlider(name, cls, config, model, {say, toGrid: onGrid})]));
  const toggles = Object.fromEntries(TOGGLES.map((name) =>
    [name, checkbox(`ae-matrix-${name}`, S[`matrix_${name}`], (on) => { if (on !== model.get(name)) act({[name]: on}); })]));
  const newSeedButton = button("ae-matrix-new-seed", S.matrix_new_seed, () => act({seed: newSeed(config, model.get("seed"))}));
  const parts = {
    sources,
    new_seed: newSeedButton,
    ranges: {score_x: scoreSpec.x.range, score_y: scoreSpec.y.range, weight_x: weightSpec.x.range, weight_y: weightSpec.y.range},
    ...choiceParts("matrix", S, PREDICTIONS, model, {say, right: RIGHT_PREDICTION}),
    ...Object.assign({}, ...Object.values(sliders)),
    ...Object.fromEntries(TOGGLES.map((name) => [`${name}_toggle`, toggles[name]])),
    score_title: title(scores),
    curve_plot: curves,
    max_weight: readout("ae-matrix-max-weight"),
    row_sums: readout("ae-matrix-row-sums"),
    notes: readout("ae-matrix-notes"),
    scores_data: readout("ae-matrix-scores-data", {sr: true}),
    weights_data: readout("ae-matrix-weights-data", {sr: true}),
    curve_data: readout("ae-matrix-curve-data", {sr: true}),
    live: readout("ae-live", {live: true, sr: true}),
  };
  const column = (style, ...children) => el("div", {class: "ae-n-col", style}, ...children);
  const left = column("flex:1 1 300px;max-width:420px;min-width:0",
    ...CHOICE_MODELS.map((name) => parts[name].el), toggles.scaled.el, toggles.causal.el,
    ...["d_k", "n_tokens", "q1_scale", "seed"].map((name) => sliders[name].el), newSeedButton.el, notice.el,
    parts.max_weight.el, parts.live.el, parts.row_sums.el);
  const heatmaps = el("div", {class: "ae-n-flex", style: "flex-direction:row;flex-wrap:wrap;gap:8px"},
    column("flex:1 1 260px;min-width:0", scores.el, parts.scores_data.el),
    column("flex:1 1 260px;min-width:0", weights.el, parts.weights_data.el));
  const right = column("flex:3 1 540px;min-width:0", heatmaps, parts.notes.el, curves.el, parts.curve_data.el);
  // The curves answer the question: on a phone they come right under it (and its check), once shown; the
  // slider of d_k, which the question is about, right above the heatmaps it moves.
  phoneOrder("first", ...CHOICE_MODELS.map((name) => parts[name].el), toggles.scaled.el, toggles.causal.el,
             sliders.d_k.el, curves.el, parts.curve_data.el);
  phoneOrder("figure", heatmaps, parts.notes.el);  // (the notes say what the heatmaps' red frames mark)
  root.append(el("div", {class: "ae-n-flex ae-n-split", style: "flex-direction:row;flex-wrap:wrap;gap:12px"}, left, right));
  return drawView(model, STATE_NAMES, parts, (st) => matrixView(st, config));
}

export default {render};
