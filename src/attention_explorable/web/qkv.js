// The "from X to the output" explorable of section 3.7.8 as one module in the anywidget front-end form:
// its view (twin of attention_explorable/views/qkv.py, the oracle) and `render({model, el})`, which builds
// its question, the presets of W_Q, W_K and W_V, the causal mask, the stages and the heatmaps, and draws
// every change of its model.
import {scaledDotProductAttention} from "./attention.js";
import {CHOICE_MODELS, checkChoice, choiceFeedback, choiceProps, lock} from "./choice.js";
import {drawsFrom, heatmap, source} from "./figures.js";
import {heatmapSources} from "./matrix.js";
import {checkbox, choiceParts, drawView, el, figure, moduleRoot, noticePart, options, readout, setState} from "./parts.js";
import {dataTable, fill, formatNumber, formatVector, subscripted} from "./shared.js";

export const PROJECTIONS = ["w_q", "w_k", "w_v"];
// The prediction asked first (views.qkv.PREDICTIONS), the right one, and the state.
export const PREDICTIONS = ["", "both", "output", "weights", "nothing"];
export const RIGHT_PREDICTION = "output";
export const STATE_NAMES = [...PROJECTIONS, "causal", "prediction", "revealed"];
// The controls that wait for the prediction (views.*.LOCKED, choice.js lock): nothing to try before it.
export const LOCKED = [...PROJECTIONS, "causal"];
const SUB = "₁₂₃₄₅₆₇₈₉";

// (n, a) @ (a, b) -> (n, b), summed left to right as numpy's small products are.
const matmul = (a, b) => a.map((row) => b[0].map((_, j) => row.reduce((s, x, k) => s + x * b[k][j], 0)));

/** Throw unless `st` is a state of this explorable (views.qkv.check_state); the message names the parameter. */
export function checkState(st, config) {
  for (const name of PROJECTIONS) {
    if (!Object.prototype.hasOwnProperty.call(config.presets, st[name])) {
      throw new Error(`${name} must be one of ${Object.keys(config.presets).join(", ")}, got ${JSON.stringify(st[name])}`);
    }
  }
  if (typeof st.causal !== "boolean") throw new Error(`causal must be true or false, got ${JSON.stringify(st.causal)}`);
  checkChoice(st, PREDICTIONS);
}

/**
 * Every stage of one state (views.qkv.attend).
 * @returns {{q: number[][], k: number[][], v: number[][], mask: boolean[][], scores: number[][],
 *   weights: number[][], output: number[][]}} q, k, v, output (3, 2); mask, scores, weights (3, 3)
 */
export function attendQKV(st, config) {
  checkState(st, config);
  const x = config.x;
  const [q, k, v] = PROJECTIONS.map((name) => matmul(x, config.presets[st[name]]));
  const n = x.length;
  const mask = Array.from({length: n}, (_, i) => Array.from({length: n}, (_, j) => !st.causal || j <= i));
  const {scores, weights, output} = scaledDotProductAttention(q, k, v, {mask});
  return {q, k, v, mask, scores, weights, output};
}


function matrixHtml(caption, m, digits = 2) {
  const rows = m.map((row) => "<tr>" + row.map((c) => `<td>${formatNumber(c, digits)}</td>`).join("") + "</tr>").join("");
  return `<table class='ae-qkv-matrix'><caption>${caption}</caption>${rows}</table>`;
}

/**
 * Everything the explorable displays for one state (views.qkv.qkv_view).
 * @param {object} st w_q, w_k, w_v (preset names), causal, prediction, revealed
 * @param {object} config views.qkv.qkv_config(language)
 * @returns {object} {sources, ranges, html, props}
 */
export function qkvView(st, config) {
  const S = config.strings;
  const res = attendQKV(st, config);
  const n = config.x.length;
  const cells = heatmapSources(res.scores, res.weights, res.mask);
  const scoreText = cells.score_cells.text, weightText = cells.weight_cells.text;
  const presets = Object.keys(config.presets);

  // Predict first: W_V alone changed (identity <-> swap) keeps every weight and moves the output.
  const prediction = st.prediction, revealed = Boolean(st.revealed);
  const outputOf = (name) => attendQKV({...st, w_v: name}, config).output[0];
  const answer = () => fill(S.qkv_predict_answer,
    {a: formatVector(outputOf("identity"), 3), b: formatVector(outputOf("swap"), 3)});

  const table = (caption, cells) => dataTable(caption,
    [S.qkv_axis_query + " \\ " + S.qkv_axis_key, ...Array.from({length: n}, (_, j) => `k${SUB[j]}`)],
    Array.from({length: n}, (_, i) => [`q${SUB[i]}`, ...cells.slice(i * n, (i + 1) * n)]));
  const names = {w_q: "W<sub>Q</sub>", w_k: "W<sub>K</sub>", w_v: "W<sub>V</sub>"};
  // "The weights depend on Q and K only" is the prediction's answer: said once it shows.
  const notes = [...(revealed ? [S.qkv_same_weights] : []), ...(st.causal ? [S.qkv_masked_note] : [])].join(" ");
  const props = {};
  for (const name of PROJECTIONS) props[name] = {active: presets.indexOf(st[name])};
  props.causal = {active: Boolean(st.causal)};
  Object.assign(props, choiceProps("qkv", S, PREDICTIONS, prediction, revealed, RIGHT_PREDICTION));
  return {
    sources: cells,
    ranges: {},
    html: {
      inputs: `<div class='ae-kind'>${S.qkv_stage_x}</div>` + matrixHtml("X", config.x, 0),
      projections: `<div class='ae-kind'>${S.qkv_stage_projections}</div><div class='ae-qkv-row'>` +
        PROJECTIONS.map((p) => matrixHtml(names[p], config.presets[st[p]], 0)).join("") + "</div>",
      qkv: `<div class='ae-kind'>${S.qkv_stage_qkv}</div><div class='ae-qkv-row'>` +
        matrixHtml("Q = X W<sub>Q</sub>", res.q, 0) + matrixHtml("K = X W<sub>K</sub>", res.k, 0) +
        matrixHtml("V = X W<sub>V</sub>", res.v, 0) + "</div>",
      output: `<div class='ae-kind'>${S.qkv_stage_output}</div>` + matrixHtml("Y = A V", res.output, 3),
      notes: `<span class='ae-hint'>${notes}</span>`,
      feedback: choiceFeedback(S, "qkv", prediction, RIGHT_PREDICTION, revealed, answer),
      scores_data: table(S.qkv_plot_scores, scoreText),
      weights_data: table(S.qkv_plot_weights, weightText),
      live: fill(S.qkv_live, {y: formatVector(res.output[0], 3)}),
    },
    props: lock(props, LOCKED, revealed),
  };
}

/**
 * The explorable in `el` (the anywidget front-end form): the question asked first, a preset for each of
 * W_Q, W_K and W_V, the causal mask, each stage from X to the output and the heatmaps of the scores and
 * the weights; drawn from `qkvView` on every change of the model's state (`STATE_NAMES`). Its model also
 * holds `config` (views.qkv.qkv_config) and `lang`.
 */
function render({model, el: host}) {
  const config = model.get("config"), S = config.strings;
  const root = moduleRoot(host, "ae-qkv", model.get("lang"), model.get("theme"));
  const notice = noticePart(), say = notice.say;
  const act = (changes) => { say(""); setState(model, changes); };
  const presets = Object.keys(config.presets), n = config.x.length;
  const sources = {score_cells: source(), weight_cells: source()};
  const axes = {xLabel: S.qkv_axis_key, yLabel: S.qkv_axis_query, n, height: 260};
  const scores = drawsFrom(figure("ae-qkv-scores", heatmap(sources.score_cells, {title: S.qkv_plot_scores, ...axes})));
  const weights = drawsFrom(figure("ae-qkv-weights", heatmap(sources.weight_cells, {title: S.qkv_plot_weights, ...axes})));
  const parts = {
    sources, ranges: {},
    // Checked or skipped: W_V moves from the identity to the swap (or back), so the answer is watched.
    ...choiceParts("qkv", S, PREDICTIONS, model,
      {say, reveal: () => ({w_v: model.get("w_v") === "identity" ? "swap" : "identity"}), right: RIGHT_PREDICTION}),
    ...Object.fromEntries(PROJECTIONS.map((name) => [name, options(`ae-qkv-${name.replace("_", "-")}`,
      presets.map((p) => S[`qkv_preset_${p}`]), (i) => { if (presets[i] !== model.get(name)) act({[name]: presets[i]}); },
      {vertical: false})])),
    causal: checkbox("ae-qkv-causal", S.qkv_causal, (on) => { if (on !== model.get("causal")) act({causal: on}); }),
    ...Object.fromEntries(["inputs", "projections", "qkv", "output", "notes"].map((name) => [name, readout(`ae-qkv-${name}`)])),
    scores_data: readout("ae-qkv-scores-data", {sr: true}),
    weights_data: readout("ae-qkv-weights-data", {sr: true}),
    live: readout("ae-live", {live: true, sr: true}),
  };
  const label = (key) => el("div", {class: "ae-kind", style: "margin:4px 5px 0"}, ...subscripted(S[key]));
  const column = (style, ...children) => el("div", {class: "ae-n-col", style}, ...children);
  const left = column("flex:1 1 300px;max-width:440px;min-width:0", ...CHOICE_MODELS.map((name) => parts[name].el),
    ...PROJECTIONS.flatMap((name) => [label(`qkv_${name}`), parts[name].el]), parts.causal.el, notice.el, parts.live.el);
  const heatmaps = el("div", {class: "ae-n-flex", style: "flex-direction:row;flex-wrap:wrap;gap:8px"},
    column("flex:1 1 220px;min-width:0", scores.el, parts.scores_data.el),
    column("flex:1 1 220px;min-width:0", weights.el, parts.weights_data.el));
  const right = column("flex:2 1 440px;min-width:0", parts.inputs.el, parts.projections.el, parts.qkv.el, heatmaps,
    parts.notes.el, parts.output.el);
  root.append(el("div", {class: "ae-n-flex", style: "flex-direction:row;flex-wrap:wrap;gap:12px"}, left, right));
  return drawView(model, STATE_NAMES, parts, (st) => qkvView(st, config));
}

export default {render};
