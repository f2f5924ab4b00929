// An exercise of the course text in the browser: its view (twin of
// attention_explorable/views/exercise.py) and the controller that turns a
// student's typing, choosing and pressing into state, and draws every
// change of state. Everything runs with or without a server.
import {controller} from "./controller.js";
import {escapeHtml, fill, parseNumber, pyStrip, readState, writeView} from "./shared.js";

export const STATE_NAMES = ["response", "choice", "checked", "revealed"];
export const ECHO_LIMIT = 40;
export const TOL_SLACK = 1e-9;
const STATUS_CSS = {right: "ae-right", wrong: "ae-wrong", invalid: "ae-error"};


const echo = (raw) => {
  const chars = Array.from(pyStrip(raw));  // code points, as Python counts
  return chars.length <= ECHO_LIMIT ? chars.join("") : chars.slice(0, ECHO_LIMIT).join("") + "…";
};

/**
 * The outcome of checking `submitted` (views.exercise.judge), never throwing.
 * @param {string} submitted the typed answer (number kind) or the chosen letter ("" for none)
 * @param {object} config views.exercise.exercise_config(block, language)
 * @returns {[string, string]} [status, message]: status "right", "wrong" (message ends with
 *   the hint), "invalid" (empty, malformed or nothing chosen) or "pending" (text kind); message HTML
 */
export function judge(submitted, config) {
  const S = config.strings, kind = config.kind;
  if (kind === "number") {
    if (!pyStrip(submitted)) return ["invalid", S.exercise_empty];
    const value = parseNumber(submitted);
    if (value === null) return ["invalid", fill(S.exercise_malformed, {raw: escapeHtml(echo(submitted))})];
    if (Math.abs(value - config.answer) <= config.tol * (1 + TOL_SLACK)) return ["right", S.exercise_right];
    return ["wrong", S.exercise_wrong + config.hint_html];
  }
  if (kind === "choice") {
    if (!submitted) return ["invalid", S.exercise_choose];
    if (submitted === config.answer) return ["right", S.exercise_right];
    return ["wrong", S.exercise_wrong + config.hint_html];
  }
  return ["pending", ""];
}

/**
 * Everything an exercise displays for one state (views.exercise.exercise_view).
 * @param {object} st response (string), choice (letter or ""), checked (string or null), revealed (boolean)
 * @param {object} config views.exercise.exercise_config(block, language)
 * @returns {object} {sources: {}, html: {feedback, answer}, props: {feedback, answer, reveal, input | choice}}
 */
export function exerciseView(st, config) {
  const S = config.strings;
  const revealed = Boolean(st.revealed);
  const [status, message] = st.checked === null || st.checked === undefined
    ? ["pending", ""] : judge(st.checked, config);
  const feedback = status in STATUS_CSS ? `<div class='${STATUS_CSS[status]}'>${message}</div>` : "";
  const props = {
    feedback: {visible: feedback !== ""},
    answer: {visible: revealed},
    reveal: {label: revealed ? S.exercise_hide : S.exercise_reveal},
  };
  if (config.kind === "choice") {
    const i = config.letters.indexOf(st.choice);
    props.choice = {active: i >= 0 ? i : null};
  } else {
    props.input = {value: st.response};
  }
  return {
    sources: {},
    html: {feedback, answer: revealed ? config.answer_html : ""},
    props,
  };
}

/** Draw the current state into the page's models. */
export function draw(state, models, config) {
  writeView(models, exerciseView(readState(state, STATE_NAMES), config));
}

// What a press of "检查" submits: the typed answer, or the chosen letter.
function check(state, config) {
  const submitted = config.kind === "choice" ? state.choice : state.response;
  if (state.checked !== submitted) state.checked = submitted;
}

/**
 * The controller, run by Bokeh's CustomJS for every event of the exercise:
 * a change of the state model (from the student or from the server) draws;
 * a student's action on a control changes the state.
 */
export default controller("exercise", draw, act);

function act({state, models, config, origin, event: obj}) {
  if (origin === models.input) {
    // Enter in the number box checks what it holds.
    const submit = obj && obj.event_name === "value_submit";
    const typed = submit ? obj.value : (obj.value_input ?? origin.value_input);
    if (typeof typed === "string" && typed !== state.response) state.response = typed;
    if (submit) check(state, config);
    return;
  }
  if (origin === models.choice) {
    const active = origin.active;
    const letter = active === null || active === undefined ? "" : config.letters[active] ?? "";
    if (letter !== state.choice) state.choice = letter;  // else drawn from the state
    return;
  }
  if (origin === models.check) return check(state, config);
  if (origin === models.reveal) state.revealed = !state.revealed;
}
