// The self- and cross-attention explorable of section 3.7.8 in the browser:
// its view (twin of attention_explorable/views/selfcross.py) and the
// controller that turns a student's clicks (mode buttons, causal mask, query
// buttons, a tap on a heatmap row) into state and draws every change of state.
import {controller} from "./controller.js";
import {scaledDotProductAttention} from "./attention.js";
import {checkChoice, choiceAction, choiceFeedback, choiceProps} from "./choice.js";
import {dataTable, escapeHtml, fill, formatNumber, readState, writeViewAnnounced} from "./shared.js";

export const MODES = ["self_zh", "self_en", "cross"];
/** Mode -> [sentence of the queries, sentence of the keys and values]. */
export const SIDES = {self_zh: ["zh", "zh"], self_en: ["en", "en"], cross: ["en", "zh"]};
// The prediction asked first (views.selfcross.PREDICTIONS), the right one, and the state.
export const PREDICTIONS = ["", "english", "chinese", "both"];
export const RIGHT_PREDICTION = "chinese";
export const STATE_NAMES = ["mode", "causal", "query", "prediction", "revealed"];

/** Python's round(x) for x >= 0: to the nearest integer, ties to even. */
function roundHalfEven(x) {
  const r = Math.round(x);
  return r - x === 0.5 && r % 2 === 1 ? r - 1 : r;
}

/**
 * Scaled dot-product attention weights (core.scaled_dot_product_attention):
 * softmax(q kᵀ / √d) row by row, masked entries -Infinity, so exactly 0.
 * @param {number[][]} q (n_q, d) queries
 * @param {number[][]} k (n_k, d) keys
 * @param {boolean[][]|null} mask (n_q, n_k), true where a query may attend a key; null: all
 * @returns {number[][]} (n_q, n_k) weights, each row summing to 1
 */
export function attentionWeights(q, k, mask) {
  return scaledDotProductAttention(q, k, null, {mask}).weights;
}

/**
 * The attention of one state (views.selfcross.selfcross_weights).
 * @param {object} st mode, causal
 * @param {object} config views.selfcross.selfcross_config(language)
 * @returns {{qTokens: string[], kTokens: string[], weights: number[][], mask: boolean[][]}}
 *   weights (n_q, n_k), mask (n_q, n_k)
 * @throws {Error} for an unknown mode (the message names it)
 */
export function selfcrossWeights(st, config) {
  if (!(st.mode in SIDES)) throw new Error(`mode must be one of ${MODES.join(", ")}; got ${JSON.stringify(st.mode)}`);
  const [qSide, kSide] = SIDES[st.mode];
  const q = config.sentences[qSide], kv = config.sentences[kSide];
  const nQ = q.tokens.length, nK = kv.tokens.length;
  const causal = Boolean(st.causal) && st.mode === "self_en";  // the decoder may not look at later words
  const mask = Array.from({length: nQ}, (_, i) => Array.from({length: nK}, (_, j) => !causal || j <= i));
  return {qTokens: q.tokens.slice(), kTokens: kv.tokens.slice(),
    weights: attentionWeights(q.embeddings, kv.embeddings, mask), mask};
}

/**
 * Everything the explorable displays for one state (views.selfcross.selfcross_view).
 * @param {object} st mode ("self_zh" | "self_en" | "cross"), causal (bool), query (1-based row);
 *   prediction (PREDICTIONS) and revealed (boolean), both optional
 * @param {object} config views.selfcross.selfcross_config(language)
 * @returns {object} {sources, ranges, html, props}
 * @throws {Error} for an unknown mode or a query that is not a row
 */
export function selfcrossView(st, config) {
  const S = config.strings, f = formatNumber;
  const {qTokens, kTokens, weights, mask} = selfcrossWeights(st, config);
  const nQ = qTokens.length, nK = kTokens.length;
  const query = st.query;
  if (typeof query !== "number" || !Number.isInteger(query) || query < 1 || query > nQ) {
    throw new Error(`query must be an integer from 1 to ${nQ}; got ${JSON.stringify(query)}`);
  }
  checkChoice(st, PREDICTIONS);
  const mode = st.mode;
  const causal = Boolean(st.causal) && mode === "self_en";

  const cells = {x: [], y: [], fill: [], text: [], text_color: []};
  const [maskedFill, maskedText] = config.masked;
  for (let i = 0; i < nQ; i++) {
    for (let j = 0; j < nK; j++) {
      const w = weights[i][j];
      cells.x.push(j + 1);
      cells.y.push(i + 1);
      if (!mask[i][j]) {
        cells.fill.push(maskedFill);
        cells.text_color.push(maskedText);
        cells.text.push("—");
        continue;
      }
      // Darker for more weight (Bokeh's Blues256, darkest first); white text on the dark half.
      cells.fill.push(config.palette[roundHalfEven((1.0 - Math.min(Math.max(w, 0.0), 1.0)) * 255)]);
      cells.text_color.push(w > 0.5 ? "#ffffff" : "#222222");
      cells.text.push(f(w, 2, false));
    }
  }

  const [qSide, kSide] = SIDES[mode];
  // Escaped; in its own language's span when it is not the page's (WCAG 3.1.2).
  const said = (side, s) => side === config.language ? escapeHtml(s)
    : `<span lang='${config.lang_tags[side]}'>${escapeHtml(s)}</span>`;
  const sentence = (side) => config.sentences[side].tokens.join(" ");
  let roles = fill(S[`selfcross_roles_${mode}`], {zh: said("zh", sentence("zh")), en: said("en", sentence("en"))});
  if (causal) roles += " " + S.selfcross_roles_self_en_causal;
  const row = weights[query - 1];
  let best = 0;
  for (let j = 1; j < row.length; j++) if (row[j] > row[best]) best = j;  // the first largest, as np.argmax
  const tds = kTokens.map((tok, j) => `<td>${said(kSide, tok)}</td><td><b>${f(row[j], 3)}</b></td>`).join("");
  const rowHtml =
    `<div class='ae-kind'>${fill(S.selfcross_row, {token: said(qSide, qTokens[query - 1])})}</div>` +
    `<table><tr>${tds}</tr></table>` +
    fill(S.selfcross_row_best, {token: said(kSide, kTokens[best]), weight: f(row[best], 3)});
  const overrides = (tokens) => Object.fromEntries(tokens.map((tok, i) => [String(i + 1), tok]));
  const bestText = fill(S.selfcross_row_best, {token: said(kSide, kTokens[best]), weight: f(row[best], 3)});
  // The heatmap's data: a row per query token, a column per key token.
  const plotRows = qTokens.map((q, i) => [said(qSide, q), ...cells.text.slice(i * nK, (i + 1) * nK)]);
  // Predict first: the answer is the cross-attention row of the highlighted English query.
  const prediction = st.prediction || "", revealed = Boolean(st.revealed);
  const answer = () => {
    const cross = selfcrossWeights({mode: "cross", causal: false}, config);
    const crossQuery = Math.min(query, cross.qTokens.length) - 1, crossRow = cross.weights[crossQuery];
    let crossBest = 0;
    for (let j = 1; j < crossRow.length; j++) if (crossRow[j] > crossRow[crossBest]) crossBest = j;
    return fill(S.selfcross_predict_answer, {n: cross.kTokens.length, token: said("en", cross.qTokens[crossQuery]),
      best: said("zh", cross.kTokens[crossBest]), weight: f(crossRow[crossBest], 3)});
  };
  return {
    sources: {
      cells,
      highlight: {x: [(nK + 1) / 2], y: [query], width: [nK - 0.02], height: [0.98]},
    },
    ranges: {x_range: [0.5, nK + 0.5], y_range: [nQ + 0.5, 0.5]},
    html: {
      roles,
      row: rowHtml,
      hint: `<div class='ae-hint'>${S.selfcross_query_hint}</div>`,
      feedback: choiceFeedback(S, "selfcross", prediction, RIGHT_PREDICTION, revealed, answer),
      note: `<div class='ae-hint'>${S.selfcross_toy_note}</div>`,
      plot_data: dataTable(S.selfcross_plot, [""].concat(kTokens.map((k) => said(kSide, k))), plotRows),
      live: `${fill(S.selfcross_row, {token: said(qSide, qTokens[query - 1])})}: ${bestText}`,
    },
    props: {
      x_axis: {axis_label: fill(S.selfcross_axis_key, {source: S[`selfcross_source_${kSide}`]}),
        major_label_overrides: overrides(kTokens)},
      y_axis: {axis_label: fill(S.selfcross_axis_query, {source: S[`selfcross_source_${qSide}`]}),
        major_label_overrides: overrides(qTokens)},
      mode: {active: MODES.indexOf(mode)},
      causal: {active: Boolean(st.causal), disabled: mode !== "self_en"},
      // The query buttons hold the query tokens: their language for a screen reader.
      query: {labels: qTokens, active: query - 1, html_attributes: {lang: config.lang_tags[qSide]}},
      ...choiceProps(PREDICTIONS, prediction, revealed),
    },
  };
}

// An axis's tick labels as Bokeh keeps them: a Map from the numeric tick.
function tickLabels(overrides) {
  return new Map(Object.entries(overrides).map(([tick, label]) => [Number(tick), label]));
}

function sameLabels(have, want) {
  if (!(have instanceof Map) || have.size !== want.size) return false;
  for (const [tick, label] of want) if (have.get(tick) !== label) return false;
  return true;
}

/** Draw the current state into the page's models. */
export function draw(state, models, config) {
  const view = selfcrossView(readState(state, STATE_NAMES), config);
  for (const axis of ["x_axis", "y_axis"]) {
    const props = view.props[axis];
    const labels = tickLabels(props.major_label_overrides);
    if (sameLabels(models[axis].major_label_overrides, labels)) delete props.major_label_overrides;
    else props.major_label_overrides = labels;
  }
  // The query buttons' lang, set only when it changes (BokehJS keeps a Dict property as a Map).
  const query = view.props.query, now = models.query.html_attributes;
  const nowLang = now instanceof Map ? now.get("lang") : now && now.lang;
  if (nowLang === query.html_attributes.lang) delete query.html_attributes;
  else query.html_attributes = new Map(Object.entries(query.html_attributes));
  writeViewAnnounced(models, view);
}

/**
 * The controller, run by Bokeh's CustomJS for every event of the explorable:
 * a change of the state model (from the student or from the server) draws;
 * a student's action on a control changes the state.
 */
export default controller("selfcross", draw, act);

function act({state, models, config, origin, event: obj}) {
  // A control whose value already equals the state was drawn from it, not moved by hand.
  if (origin === models.mode) {
    const mode = MODES[origin.active];
    if (mode === undefined || mode === state.mode) return;
    // Cross-attention is the prediction's answer: going there checks the prediction (or skips it).
    if (mode === "cross" && !state.revealed) state.setv({mode, revealed: true});
    else state.mode = mode;
    return;
  }
  if (choiceAction({state, models, config, origin}, PREDICTIONS,
    (prediction) => state.setv({mode: "cross", prediction, revealed: true}))) return;
  if (origin === models.causal) {
    if (origin.active !== state.causal) state.causal = origin.active;
    return;
  }
  if (origin === models.query) {
    const query = origin.active + 1;
    if (Number.isInteger(query) && query !== state.query) state.query = query;
    return;
  }
  if (origin === models.heatmap && obj && Number.isFinite(obj.y)) {
    // A tap on the heatmap picks the query of the row tapped (rows are 1, 2, ... downwards).
    const rows = models.query.labels.length;
    const query = Math.min(Math.max(Math.round(obj.y), 1), rows);
    if (query !== state.query) state.query = query;
  }
}
