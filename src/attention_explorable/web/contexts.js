// The "one word, two contexts" explorable of section 3.8.1 in the browser: its view
// (twin of attention_explorable/views/contexts.py) and the controller that turns a
// student's clicks (the causal mask, the question) into state and draws every change.
import {controller} from "./controller.js";
import {scaledDotProductAttention} from "./attention.js";
import {checkChoice, choiceAction, choiceFeedback, choiceProps} from "./choice.js";
import {heatCells} from "./matrix.js";
import {dataTable, escapeHtml, fill, formatNumber, formatVector, readState, writeViewAnnounced} from "./shared.js";

export const CONTEXTS = ["fruit", "company"];
// The prediction asked first (views.contexts.PREDICTIONS), the right one, and the state.
export const PREDICTIONS = ["", "same", "differ", "swap"];
export const RIGHT_PREDICTION = "differ";
export const STATE_NAMES = ["causal", "prediction", "revealed"];

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
    `<td><b>${formatVector(outputs[c], 2)}</b></td><td>${S[leans[c]]}</td></tr>`).join("");
  const answer = () => {  // the question's read: without the mask
    const unmasked = Object.fromEntries(CONTEXTS.map((c) => [c, readContext({...st, causal: false}, config, c).output]));
    return fill(S.contexts_predict_answer,
      {word, a: formatVector(unmasked.fruit, 2), b: formatVector(unmasked.company, 2)});
  };
  const notes = st.causal ? fill(S.contexts_causal_note, {word}) : "";
  return {
    sources,
    ranges: {},
    html: {
      input: fill(S.contexts_input, {word, x: formatVector(first.vectors[first.at], 2)}) + `<div class='ae-hint'>${S.contexts_axes}</div>`,
      outputs: `<div class='ae-kind'>${fill(S.contexts_output, {word})}</div>` +
        (revealed ? `<table>${shown}</table>` : `<div class='ae-hint'>${S.contexts_hidden}</div>`),
      notes: notes ? `<span class='ae-hint'>${notes}</span>` : "",
      feedback: choiceFeedback(S, "contexts", prediction, RIGHT_PREDICTION, revealed, answer),
      rows_data: dataTable(fill(S.contexts_row, {word}), ["", "1", "2", "3", "4"], rows),
      live: revealed
        ? fill(S.contexts_live, {word, a: formatVector(outputs.fruit, 2), b: formatVector(outputs.company, 2)}) : "",
    },
    props: {causal: {active: Boolean(st.causal)}, ...choiceProps(PREDICTIONS, prediction, revealed)},
  };
}

/** Draw the current state into the page's models. */
export function draw(state, models, config) {
  writeViewAnnounced(models, contextsView(readState(state, STATE_NAMES), config));
}

/** The controller: a change of the state model draws; the causal mask and the question change the state. */
export default controller("contexts", draw, ({state, models, config, origin}) => {
  if (origin === models.causal) {
    if (origin.active !== state.causal) state.causal = origin.active;  // else drawn from the state
    return;
  }
  choiceAction({state, models, config, origin}, PREDICTIONS, (prediction) => state.setv({prediction, revealed: true}));
});
