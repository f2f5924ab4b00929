// The "one word, two contexts" explorable of section 3.8.1 as one module in the anywidget front-end form:
// its view (twin of attention_explorable/views/contexts.py, the oracle) and `render({model, el})`, which
// builds its question, check box and heatmaps and draws every change of its model.
import {scaledDotProductAttention} from "./attention.js";
import {CHOICE_MODELS, checkChoice, choiceFeedback, choiceProps, lock} from "./choice.js";
import {drawsFrom, heatmap, source} from "./figures.js";
import {heatCells} from "./matrix.js";
import {checkbox, choiceParts, drawView, el, figure, moduleRoot, noticePart, readout, setState} from "./parts.js";
import {dataTable, escapeHtml, fill, formatNumber, formatVector, vectorList} from "./shared.js";

export const CONTEXTS = ["fruit", "company"];
// The prediction asked first (views.contexts.PREDICTIONS), the right one, and the state.
export const PREDICTIONS = ["", "itself", "verb", "phone", "even"];
export const RIGHT_PREDICTION = "verb";
export const STATE_NAMES = ["causal", "prediction", "revealed"];
// The controls that wait for the prediction (views.*.LOCKED, choice.js lock): nothing to try before it.
export const LOCKED = ["causal"];

/** Throw unless `causal` is a boolean and the prediction well formed (views.contexts.check_state). */
export function checkState(st) {
  if (typeof st.causal !== "boolean") throw new Error(`causal must be true or false, got ${JSON.stringify(st.causal)}`);
  checkChoice(st, PREDICTIONS);
}

/**
 * The shared word's read of one sentence (views.contexts.read).
 * @returns {{weights: number[], mask: boolean[], output: number[]}} weights and mask (n,), output (3,)
 */
export function readContext(st, config, context) {
  const {vectors: x, at} = config.sentences[context];
  const mask = x.map((_, j) => !st.causal || j <= at);
  const {weights, output} = scaledDotProductAttention([x[at]], x, x, {mask: [mask]});
  return {weights: weights[0], mask, output: output[0]};
}


/**
 * Everything the explorable displays for one state (views.contexts.contexts_view).
 * @param {object} st causal, prediction, revealed
 * @param {object} config views.contexts.contexts_config(language)
 * @returns {object} {sources, ranges, html, props}
 */
export function contextsView(st, config) {
  checkState(st);
  const S = config.strings, f = formatNumber;
  const prediction = st.prediction, revealed = Boolean(st.revealed);
  const sources = {}, rows = [], outputs = {}, leans = {};
  for (const c of CONTEXTS) {
    const sentence = config.sentences[c];
    const {weights, mask, output} = readContext(st, config, c);
    const masked = mask.map((m) => !m);
    // Before the prediction is checked the heatmap shows the words but not the weights (they are the answer).
    const [fillColours, colour] = heatCells(weights, revealed ? masked : masked.map(() => true), false);
    const cells = weights.map((w, j) => masked[j] ? "—" : revealed ? f(w, 2, false) : "?");
    sources[`${c}_cells`] = {x: cells.map((_, j) => j + 1), y: cells.map(() => 1), fill: fillColours, text: cells,
      text_color: colour};
    rows.push([S[`contexts_sentence_${c}`], ...sentence.tokens.map((t, j) => `${escapeHtml(t)} ${cells[j]}`)]);
    outputs[c] = output;
    leans[c] = output[0] > output[1] ? "contexts_lean_fruit" : output[1] > output[0] ? "contexts_lean_company"
      : "contexts_lean_none";
  }
  const first = config.sentences.fruit;
  const word = escapeHtml(first.tokens[first.at]);
  const shown = CONTEXTS.map((c) => `<tr><td class='ae-kind'>${S[`contexts_sentence_${c}`]}</td>` +
    `<td class='ae-nobreak'><b>${formatVector(outputs[c], 2)}</b></td><td>${S[leans[c]]}</td></tr>`).join("");
  const answer = () => {  // the question's read: without the mask
    const unmasked = Object.fromEntries(CONTEXTS.map((c) => [c, readContext({...st, causal: false}, config, c)]));
    const second = config.sentences.company;
    const weights = unmasked.company.weights, x = second.vectors, at = second.at;
    const dot = (a, b) => a.reduce((sum, v, i) => sum + v * b[i], 0);
    return fill(S.contexts_predict_answer, {word, verb: escapeHtml(second.tokens[1]), w_verb: f(weights[1], 2),
      x: formatVector(x[at], 2), x_verb: formatVector(x[1], 2), dot_verb: f(dot(x[at], x[1]), 2),
      dot_self: f(dot(x[at], x[at]), 2),
      w_self: f(weights[at], 2), a: formatVector(unmasked.fruit.output, 2),
      b: formatVector(unmasked.company.output, 2)});
  };
  const notes = st.causal ? fill(S.contexts_causal_note, {word}) : "";
  // Every word's vector, shown before the question: the dot products can be worked out, not guessed.
  const vectors = CONTEXTS.map((c) => "<div class='ae-hint ae-contexts-vectors'>" + fill(S.contexts_vectors, {
    sentence: S[`contexts_sentence_${c}`],
    vectors: vectorList(config.sentences[c].tokens.map(escapeHtml), config.sentences[c].vectors),
  }) + "</div>").join("");
  return {
    sources,
    ranges: {},
    html: {
      input: fill(S.contexts_input, {word, x: `<span class='ae-nobreak'>x = ${formatVector(first.vectors[first.at], 2)}</span>`}) + `<div class='ae-hint'>${S.contexts_axes}</div>` +
        vectors,
      outputs: `<div class='ae-kind'>${fill(S.contexts_output, {word})}</div>` +
        (revealed ? `<table>${shown}</table>` : `<div class='ae-hint'>${S.contexts_hidden}</div>`),
      notes: notes ? `<span class='ae-hint'>${notes}</span>` : "",
      feedback: choiceFeedback(S, "contexts", prediction, RIGHT_PREDICTION, revealed, answer),
      rows_data: dataTable(fill(S.contexts_row, {word}), ["", "1", "2", "3", "4"], rows),
      live: revealed
        ? fill(S.contexts_live, {word, a: formatVector(outputs.fruit, 2), b: formatVector(outputs.company, 2)}) : "",
    },
    props: lock({causal: {active: Boolean(st.causal)}, ...choiceProps("contexts", S, PREDICTIONS, prediction, revealed, RIGHT_PREDICTION)}, LOCKED, revealed),
  };
}

/**
 * The explorable in `el` (the anywidget front-end form): the question, the causal mask and two heatmaps of
 * the word's weights, drawn from `contextsView` on every change of the model's `causal`, `prediction` and
 * `revealed`. Its model also holds `config` (views.contexts.contexts_config) and `lang`.
 */
function render({model, el: host}) {
  const config = model.get("config"), S = config.strings;
  const root = moduleRoot(host, "ae-contexts", model.get("lang"), model.get("theme"));
  const notice = noticePart(), say = notice.say;
  const sources = Object.fromEntries(CONTEXTS.map((c) => [`${c}_cells`, source()]));
  const figures = CONTEXTS.map((c) => {
    const {tokens} = config.sentences[c];
    const labels = Object.fromEntries(tokens.map((t, j) => [j + 1, t]));
    return drawsFrom(figure(`ae-contexts-${c}`, heatmap(sources[`${c}_cells`],
      {title: S[`contexts_sentence_${c}`], n: tokens.length, rows: 1, height: 150, labels, hideRows: true})));
  });
  const parts = {
    sources,
    ...choiceParts("contexts", S, PREDICTIONS, model, {say, right: RIGHT_PREDICTION}),
    causal: checkbox("ae-contexts-causal", S.contexts_causal, (on) => { say(""); setState(model, {causal: on}); }),
    input: readout("ae-contexts-input"),
    outputs: readout("ae-contexts-outputs"),
    notes: readout("ae-contexts-notes"),
    rows_data: readout("ae-contexts-rows-data", {sr: true}),
    live: readout("ae-live", {live: true, sr: true}),
  };
  const left = el("div", {class: "ae-n-col", style: "flex:1 1 300px;max-width:440px;min-width:0"},
    el("p", {class: "ae-n-html", style: "margin:0 5px"}, S.contexts_intro),
    ...CHOICE_MODELS.map((n) => parts[n].el), parts.causal.el, notice.el, parts.live.el,
    el("div", {class: "ae-n-html ae-hint", style: "margin:0 5px"}, S.contexts_toy_note));
  const right = el("div", {class: "ae-n-col", style: "flex:2 1 420px;min-width:0"},
    parts.input.el, ...figures.map((f) => f.el), parts.rows_data.el, parts.notes.el, parts.outputs.el);
  root.append(el("div", {class: "ae-n-flex", style: "flex-direction:row;flex-wrap:wrap;gap:12px"}, left, right));
  return drawView(model, STATE_NAMES, parts, (st) => contextsView(st, config));
}

export default {render};
