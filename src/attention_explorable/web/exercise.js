// An exercise of the course text as one module in the anywidget front-end form: its view (twin of
// attention_explorable/views/exercise.py, the oracle) and `render({model, el})`, which builds the question,
// the box (or the options) and the two buttons, turns the student's typing, choosing and pressing into the
// model's state and draws every change of it. Everything runs with or without a server.
import {button, drawView, el, moduleRoot, readout, setState, tell} from "./parts.js";
import {escapeHtml, fill, normalizedNumber, parseNumber, pyStrip} from "./shared.js";

export const STATE_NAMES = ["response", "choice", "checked", "revealed"];
export const ECHO_LIMIT = 40;
export const TOL_SLACK = 1e-9;
const STATUS_CSS = {right: "ae-right", wrong: "ae-wrong", invalid: "ae-error"};


const echo = (raw) => {
  const chars = Array.from(pyStrip(raw));  // code points, as Python counts
  return chars.length <= ECHO_LIMIT ? chars.join("") : chars.slice(0, ECHO_LIMIT).join("") + "…";
};

/** How many decimals `submitted` was typed with (in scientific notation the place of its last digit), or
 * null when not written as decimals (views.exercise.typed_decimals). */
export function typedDecimals(submitted) {
  const m = /^[-+]?[0-9]+(?:\.([0-9]*))?(?:[eE]([-+]?[0-9]+))?$/.exec(normalizedNumber(submitted));
  return m === null ? null : (m[1] || "").length - Number(m[2] || 0);
}

/** Whether a wrong `value` is the answer rounded to the decimals typed, fewer than asked (views.exercise.is_close). */
function isClose(value, submitted, config) {
  const d = typedDecimals(submitted);
  // a whole number written out is never "close"
  if (d === null || (d === 0 && !/e/i.test(normalizedNumber(submitted))) || 10 ** -d <= config.tol) return false;
  return Math.abs(value - config.answer) <= 0.5 * 10 ** -d * (1 + TOL_SLACK);
}

/** The hint written for a known wrong answer that `value` is, or null (views.exercise.mistake_hint). */
export function mistakeHint(value, submitted, config) {
  const d = typedDecimals(submitted);
  const spread = d !== null && d > 0 ? Math.max(config.tol, 0.5 * 10 ** -d) : config.tol;
  const found = (config.mistakes || []).find(([wrong]) => Math.abs(value - wrong) <= spread * (1 + TOL_SLACK));
  return found === undefined ? null : found[1];
}

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
    if (isClose(value, submitted, config)) return ["wrong", S.exercise_close];
    const own = mistakeHint(value, submitted, config);  // a known mistake's own hint, else the exercise's
    return ["wrong", S.exercise_wrong + (own === null ? config.hint_html : own)];
  }
  if (kind === "choice") {
    if (!submitted) return ["invalid", S.exercise_choose];
    if (submitted === config.answer) return ["right", S.exercise_right];
    const own = config.hints_html || {};  // a wrong option's own hint, else the exercise's
    return ["wrong", S.exercise_wrong + (Object.prototype.hasOwnProperty.call(own, submitted) ? own[submitted] : config.hint_html)];
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

let ids = 0;

/**
 * The exercise in `el` (the anywidget front-end form): its question (and options), what the student
 * answers with (a box to type a number in, where Enter checks; a text area; or a radio button per option),
 * "检查" and "看答案", the feedback and the worked answer; drawn from `exerciseView` on every change of the
 * model's `response`, `choice`, `checked` and `revealed`. Its model also holds `config`
 * (views.exercise.exercise_config: the kind, the answer and its tolerance, the hint, the question's markup)
 * and `lang`.
 */
function render({model, el: host}) {
  const config = model.get("config"), S = config.strings, kind = config.kind;
  const root = moduleRoot(host, `ae-exercise ae-exercise-${config.id}`, model.get("lang"), model.get("theme"));
  const set = (changes) => setState(model, changes);
  const check = () => {  // what a press of "检查" submits: the typed answer, or the chosen letter
    const submitted = kind === "choice" ? model.get("choice") : model.get("response");
    const [status] = judge(submitted, config);  // "right", "wrong", "invalid" (nothing to judge) or "pending"
    // A right answer opens the worked answer: the student reads why at once (ExerciseView.check).
    const changes = status === "right" && !model.get("revealed") ? {revealed: true} : {};
    if (model.get("checked") !== submitted) changes.checked = submitted;
    if (Object.keys(changes).length) set(changes);
    if (status === "right" || status === "wrong") {
      tell(model, {event: "exercise", exercise: config.id, response: submitted, right: status === "right"});
    }
  };
  const id = `ae-ex${++ids}`;
  const parts = {
    feedback: readout("ae-exercise-feedback", {live: true, hidden: true}),
    answer: readout("ae-prose ae-exercise-answer", {hidden: true}),
    reveal: button("ae-exercise-reveal", S.exercise_reveal, () => set({revealed: !model.get("revealed")})),
  };
  const question = readout("ae-prose ae-exercise-question");
  question.set(config.question_html);
  const answering = [];
  if (kind === "choice") {
    // Each option is one label: its radio, its letter and its text with the formulas, so a tap anywhere on
    // the option chooses it (a finger on a phone need not find a 24 px circle). The text is the package's
    // own (views/exercise.py options_html), parsed once; nothing typed by anyone is written as HTML here.
    const group = el("div", {class: "ae-exercise-options ae-exercise-choice", role: "radiogroup",
                             "aria-label": S.exercise_answer});
    const written = document.createElement("template");
    written.innerHTML = config.options_html;
    const texts = [...written.content.querySelectorAll("li")];
    const boxes = config.letters.map((letter, i) => {
      const box = el("input", {type: "radio", name: id, value: letter});
      box.addEventListener("change", () => { if (box.checked && model.get("choice") !== letter) set({choice: letter}); });
      const text = el("span", {class: "ae-prose ae-exercise-option-text"});
      if (texts[i]) text.append(...texts[i].childNodes);
      else text.append(letter);
      group.append(el("label", {class: "ae-exercise-option"}, box, text));
      return box;
    });
    parts.choice = {set({active}) { boxes.forEach((b, i) => { b.checked = i === active; }); }};
    answering.push(group);
  } else {
    const input = kind === "number"
      ? el("input", {type: "text", id, autocomplete: "off", spellcheck: "false", placeholder: S.exercise_answer_placeholder})
      : el("textarea", {id, rows: 3, placeholder: S.exercise_your_answer});
    input.addEventListener("input", () => { if (input.value !== model.get("response")) set({response: input.value}); });
    if (kind === "number") input.addEventListener("keydown", (event) => { if (event.key === "Enter") check(); });
    parts.input = {set({value}) { if (value !== undefined && input.value !== value) input.value = value; }};
    answering.push(el("div", {class: "ae-n-input ae-exercise-input"}, el("label", {for: id, class: "ae-n-sr"}, S.exercise_answer), input));
  }
  const buttons = [parts.reveal.el];
  if (kind !== "text") {
    parts.check = button("ae-exercise-check", S.exercise_check, check, {primary: true});
    buttons.unshift(parts.check.el);
  }
  root.append(question.el, ...answering, el("div", {class: "ae-n-row ae-exercise-buttons"}, ...buttons),
              parts.feedback.el, parts.answer.el);
  return drawView(model, STATE_NAMES, parts, (st) => exerciseView(st, config));
}

export default {render};
