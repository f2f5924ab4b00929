// The self- and cross-attention explorable of section 3.7.8 as one module in the anywidget front-end form:
// its view (twin of attention_explorable/views/selfcross.py, the oracle) and `render({model, el})`, which
// builds its question, mode and query buttons, causal mask and heatmap (a tap on a row picks the query)
// and draws every change of its model.
import {scaledDotProductAttention} from "./attention.js";
import {CHOICE_MODELS, checkChoice, choiceFeedback, choiceProps, lock} from "./choice.js";
import {drawsFrom, heatmap, range, source} from "./figures.js";
import {axis, checkbox, choiceParts, drawView, el, figure, moduleRoot, noticePart, options, phoneOrder, readout, setState} from "./parts.js";
import {dataTable, escapeHtml, fill, formatNumber, vectorList} from "./shared.js";

export const MODES = ["self_zh", "self_en", "cross"];
/** Mode -> [sentence of the queries, sentence of the keys and values]. */
export const SIDES = {self_zh: ["zh", "zh"], self_en: ["en", "en"], cross: ["en", "zh"]};
// The prediction asked first (views.selfcross.PREDICTIONS), the right one, and the state.
export const PREDICTIONS = ["", "jiqi", "split", "xuexi", "even"];
export const RIGHT_PREDICTION = "split";
// The query the question names (views.selfcross.ASKED_QUERY): the English word "machine".
export const ASKED_QUERY = 3;
export const STATE_NAMES = ["mode", "causal", "query", "prediction", "revealed"];
// The controls that wait for the prediction (views.*.LOCKED, choice.js lock): nothing to try before it.
export const LOCKED = ["mode", "causal", "query"];

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

  // Predict first: the answer is the cross-attention row of the asked English query; before it the
  // weights are not shown in any mode (the self-attention map would show how alike the words are).
  const prediction = st.prediction || "", revealed = Boolean(st.revealed);
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
      if (!revealed) {
        cells.fill.push(maskedFill);
        cells.text_color.push(maskedText);
        cells.text.push("?");
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
  // One word as the readouts name it (views.selfcross word): a Chinese word on the English page with its English.
  const [zhWords, enWords] = [config.sentences.zh.tokens, config.sentences.en.tokens];
  const word = (side, token) => side !== "zh" || config.language === "zh" || zhWords.length !== enWords.length
    ? said(side, token) : `${said(side, token)} (${escapeHtml(enWords[zhWords.indexOf(token)])})`;
  const sentence = (side) => config.sentences[side].tokens.join(" ");
  // Every word's vector, on screen before the question: the likeness it asks about can be worked out.
  const vectors = ["zh", "en"].map((side) => "<div class='ae-selfcross-vectors'>" +
    fill(S.selfcross_vectors, {sentence: S[`selfcross_source_${side}`],
      vectors: vectorList(config.sentences[side].tokens.map((t) => word(side, t)), config.sentences[side].embeddings)}) +
    "</div>").join("");
  let roles = fill(S[`selfcross_roles_${mode}`], {zh: said("zh", sentence("zh")), en: said("en", sentence("en"))});
  if (mode !== "cross") roles += " " + S.selfcross_roles_self_diagonal;  // why a row leans on itself
  if (causal) roles += " " + S.selfcross_roles_self_en_causal;
  else if (mode !== "self_en") roles += " " + S.selfcross_roles_no_mask;  // the causal box is greyed here: say why
  const row = weights[query - 1];
  let best = 0;
  for (let j = 1; j < row.length; j++) if (row[j] > row[best]) best = j;  // the first largest, as np.argmax
  // A masked key is "—" here as in its heatmap cell (its weight is exactly 0: it is not looked at).
  const tds = kTokens.map((tok, j) =>
    `<td>${word(kSide, tok)}</td><td><b>${mask[query - 1][j] ? f(row[j], 3) : "—"}</b></td>`).join("");
  const rowHtml =
    `<div class='ae-kind'>${fill(S.selfcross_row, {token: word(qSide, qTokens[query - 1])})}</div>` +
    (revealed ? `<table><tr>${tds}</tr></table>` +
      fill(S.selfcross_row_best, {token: word(kSide, kTokens[best]), weight: f(row[best], 3)})
      : `<div class='ae-hint'>${S.selfcross_hidden}</div>`);
  const overrides = (tokens) => Object.fromEntries(tokens.map((tok, i) => [String(i + 1), tok]));
  const bestText = fill(S.selfcross_row_best, {token: word(kSide, kTokens[best]), weight: f(row[best], 3)});
  // The heatmap's data: a row per query token, a column per key token.
  const plotRows = qTokens.map((q, i) => [word(qSide, q), ...cells.text.slice(i * nK, (i + 1) * nK)]);
  const answer = () => {
    const cross = selfcrossWeights({mode: "cross", causal: false}, config);
    const crossQuery = Math.min(ASKED_QUERY, cross.qTokens.length) - 1, crossRow = cross.weights[crossQuery];
    // the two largest shares, the first of equal ones first (numpy's stable argsort of the negated row)
    const order = crossRow.map((w, j) => j).sort((a, b) => crossRow[b] - crossRow[a] || a - b);
    const crossBest = order[0], crossNext = order[Math.min(1, order.length - 1)];  // (a one-word sentence: itself twice)
    return fill(S.selfcross_predict_answer, {n: cross.kTokens.length, token: said("en", cross.qTokens[crossQuery]),
      best: word("zh", cross.kTokens[crossBest]), weight: f(crossRow[crossBest], 3),
      second: word("zh", cross.kTokens[crossNext]), weight2: f(crossRow[crossNext], 3)});
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
      note: `<div class='ae-hint'>${S.selfcross_toy_note}</div>` + vectors,
      plot_data: dataTable(S.selfcross_plot, [""].concat(kTokens.map((k) => word(kSide, k))), plotRows),
      live: revealed ? `${fill(S.selfcross_row, {token: word(qSide, qTokens[query - 1])})}: ${bestText}` : "",
    },
    props: lock({
      x_axis: {axis_label: fill(S.selfcross_axis_key, {source: S[`selfcross_source_${kSide}`]}),
        major_label_overrides: overrides(kTokens)},
      y_axis: {axis_label: fill(S.selfcross_axis_query, {source: S[`selfcross_source_${qSide}`]}),
        major_label_overrides: overrides(qTokens)},
      mode: {active: MODES.indexOf(mode)},
      causal: {active: causal, disabled: mode !== "self_en"},  // ticked only where it applies
      // The query buttons hold the query tokens: their language for a screen reader.
      query: {labels: qTokens, active: query - 1, html_attributes: {lang: config.lang_tags[qSide]}},
      ...choiceProps("selfcross", S, PREDICTIONS, prediction, revealed, RIGHT_PREDICTION),
    }, LOCKED, revealed),
  };
}

/**
 * The explorable in `el` (the anywidget front-end form): the question, the kind of attention, the causal
 * mask, the query and the heatmap of the weights, drawn from `selfcrossView` on every change of the
 * model's `mode`, `causal`, `query`, `prediction` and `revealed`. Its model also holds `config`
 * (views.selfcross.selfcross_config) and `lang`.
 */
function render({model, el: host}) {
  const config = model.get("config"), S = config.strings;
  const root = moduleRoot(host, "ae-selfcross", model.get("lang"), model.get("theme"));
  const notice = noticePart(), say = notice.say;
  const act = (changes) => { say(""); setState(model, changes); };
  const sources = {cells: source(), highlight: source()};
  const ranges = {x_range: range(0.5, 4.5), y_range: range(4.5, 0.5)};
  const spec = heatmap(sources.cells, {title: S.selfcross_plot, n: 4, height: 330, highlight: sources.highlight});
  spec.x.range = ranges.x_range;
  spec.y.range = ranges.y_range;
  const rows = () => config.sentences[SIDES[model.get("mode")][0]].tokens.length;
  const plot = drawsFrom(figure("ae-selfcross-heatmap", spec, {onTap: (x, y) => {
    // A tap on the heatmap picks the query of the row tapped (rows are 1, 2, ... downwards).
    const query = Math.min(Math.max(Math.round(y), 1), rows());
    if (!model.get("revealed")) return say(escapeHtml(S.predict_locked));  // predict first: the rows wait too
    if (Number.isFinite(y) && query !== model.get("query")) act({query});
  }}));
  const parts = {
    sources, ranges,
    ...choiceParts("selfcross", S, PREDICTIONS, model, {say, reveal: () => ({mode: "cross", query: ASKED_QUERY}), right: RIGHT_PREDICTION}),
    mode: options("ae-selfcross-mode", MODES.map((m) => S[`selfcross_mode_${m}`]), (i) => {
      const mode = MODES[i];
      if (mode === model.get("mode")) return;
      // Cross-attention is the prediction's answer: going there checks the prediction (or skips it).
      act(mode === "cross" && !model.get("revealed") ? {mode, revealed: true} : {mode});
    }),
    causal: checkbox("ae-selfcross-causal", S.selfcross_causal, (on) => act({causal: on})),
    query: options("ae-selfcross-query", [], (i) => { if (i + 1 !== model.get("query")) act({query: i + 1}); },
                   {vertical: false}),
    x_axis: axis(plot, "x_axis"),
    y_axis: axis(plot, "y_axis"),
    roles: readout("ae-selfcross-roles"),
    row: readout("ae-selfcross-row"),
    hint: readout("ae-selfcross-hint"),
    note: readout("ae-selfcross-note"),
    plot_data: readout("ae-selfcross-plot-data", {sr: true}),
    live: readout("ae-live", {live: true, sr: true}),
  };
  const label = (key) => el("div", {class: "ae-kind", style: "margin:4px 5px 0"}, S[key]);
  const modeLabel = label("selfcross_mode");
  const left = el("div", {class: "ae-n-col", style: "flex:1 1 300px;max-width:440px;min-width:0"},
    ...CHOICE_MODELS.map((n) => parts[n].el), parts.note.el, modeLabel, parts.mode.el, parts.causal.el,
    label("selfcross_query"), parts.query.el, parts.hint.el, notice.el, parts.roles.el, parts.row.el,
    parts.live.el);
  const right = el("div", {class: "ae-n-col", style: "flex:1 1 320px;max-width:560px;min-width:0"},
    plot.el, parts.plot_data.el);
  // The word vectors right under the question that asks about them (a phone put them 1,500 px below).
  // On a phone: the question, its vectors and the kind of attention, the heatmap, then the rows to pick.
  phoneOrder("first", ...CHOICE_MODELS.map((n) => parts[n].el), parts.note.el, modeLabel, parts.mode.el,
    parts.causal.el);
  phoneOrder("figure", plot.el, parts.plot_data.el);
  root.append(el("div", {class: "ae-n-flex ae-n-split", style: "flex-direction:row;flex-wrap:wrap;gap:12px"}, left, right));
  return drawView(model, STATE_NAMES, parts, (st) => selfcrossView(st, config));
}

export default {render};
