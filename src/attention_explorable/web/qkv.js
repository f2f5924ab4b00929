// The "from X to the output" explorable of section 3.7.8 in the browser: its view
// (twin of attention_explorable/views/qkv.py) and the controller that turns a student's
// clicks (a preset of W_Q, W_K or W_V, the causal mask, the question) into state and
// draws every change of state.
import {controller} from "./controller.js";
import {scaledDotProductAttention} from "./attention.js";
import {checkChoice, choiceAction, choiceFeedback, choiceProps} from "./choice.js";
import {heatmapSources} from "./matrix.js";
import {dataTable, fill, formatNumber, formatVector, readState, writeViewAnnounced} from "./shared.js";

export const PROJECTIONS = ["w_q", "w_k", "w_v"];
// The prediction asked first (views.qkv.PREDICTIONS), the right one, and the state.
export const PREDICTIONS = ["", "both", "output", "weights", "nothing"];
export const RIGHT_PREDICTION = "output";
export const STATE_NAMES = [...PROJECTIONS, "causal", "prediction", "revealed"];
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
  Object.assign(props, choiceProps(PREDICTIONS, prediction, revealed));
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
    props,
  };
}

/** Draw the current state into the page's models. */
export function draw(state, models, config) {
  writeViewAnnounced(models, qkvView(readState(state, STATE_NAMES), config));
}

/**
 * The controller, run for every event of the explorable: a change of the state model draws;
 * a student's action (a preset, the causal mask, the question) changes the state.
 */
export default controller("qkv", draw, ({state, models, config, origin}) => {
  const presets = Object.keys(config.presets);
  for (const name of PROJECTIONS) {
    if (origin === models[name]) {
      const preset = presets[origin.active];
      if (preset !== undefined && preset !== state[name]) state[name] = preset;  // else drawn from the state
      return;
    }
  }
  if (origin === models.causal) {
    if (origin.active !== state.causal) state.causal = origin.active;
    return;
  }
  // Checked or skipped: W_V moves from the identity to the swap (or back), so the answer is watched.
  choiceAction({state, models, config, origin}, PREDICTIONS, (prediction) =>
    state.setv({w_v: state.w_v === "identity" ? "swap" : "identity", prediction, revealed: true}));
});
