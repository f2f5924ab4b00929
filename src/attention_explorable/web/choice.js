// Predict first with a choice, for the explorables that ask one (vector, matrix, self/cross, qkv,
// contexts): the part of their view (twin of attention_explorable/views/choice.py). The question's
// parts and what the student's actions on them do are web/parts.js's choiceParts.
import {fill} from "./shared.js";

// The models of the question, by the names the views use (views.choice.MODELS).
export const CHOICE_MODELS = ["question", "prediction_choice", "predict_check", "predict_skip", "feedback"];

/** Throw unless `st.prediction` is one of `predictions` and `st.revealed` a boolean (either may be missing). */
export function checkChoice(st, predictions) {
  if ("revealed" in st && typeof st.revealed !== "boolean") {
    throw new Error(`revealed must be true or false, got ${JSON.stringify(st.revealed)}`);
  }
  if ("prediction" in st && !predictions.includes(st.prediction)) {
    throw new Error(`prediction must be one of ${predictions.map((p) => `'${p}'`).join(", ")}, ` +
      `got ${JSON.stringify(st.prediction)}`);
  }
}

/** The question's controls for one state (views.choice.choice_props): the options' labels (the `right` one
 * marked with `predict_right_mark` once the answer shows), the pressed one (index from 0, null), check, skip. */
export function choiceProps(name, S, predictions, prediction, revealed, right) {
  const mark = revealed ? S.predict_right_mark : "";
  return {
    prediction_choice: {
      labels: predictions.slice(1).map((p) => S[`${name}_predict_${p}`] + (p === right ? mark : "")),
      active: prediction ? predictions.indexOf(prediction) - 1 : null,
      disabled: Boolean(revealed),
    },
    predict_check: {visible: !revealed},
    predict_skip: {visible: !revealed},
  };
}

/** Disable the controls `names` in a view's `props` until the answer shows (views.choice.lock); returns `props`. */
export function lock(props, names, revealed) {
  for (const name of names) {
    const entry = props[name] = props[name] || {};
    entry.disabled = Boolean(entry.disabled) || !revealed;
  }
  return props;
}

/** What the page says once the answer shows: the prediction, right or not (if not, why not: the option's
 * `<name>_predict_<option>_why`), then `answer()` (before: how the
 * controls open; the answer is made only once it shows, so a move before then computes nothing for it). */
export function choiceFeedback(S, name, prediction, right, revealed, answer) {
  if (!revealed) return `<span class='ae-hint'>${S.predict_locked}</span>`;
  if (!prediction) return answer();
  const verdict = S[prediction === right ? "predict_right" : "predict_wrong"];
  const why = prediction === right ? "" : " " + S[`${name}_predict_${prediction}_why`];
  return fill(S.predict_yours, {choice: S[`${name}_predict_${prediction}`]}) + ` <b>${verdict}</b>${why} ` + answer();
}

