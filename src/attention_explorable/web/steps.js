// The steps explorable of section 3.8 in the browser: its view (twin of
// attention_explorable/views/steps.py), the replay of a step (twin of
// scenarios.interpolate), and the controller that turns a student's clicks,
// keys and taps into state and draws every change of state.
import {controller, sliderAction} from "./controller.js";
import {softmax, weightedSum} from "./attention.js";
import {
  dataTable, echo, escapeHtml, fill, formatFixed, formatG, formatNumber, goToStepStart, pyStrip, readState, stepReplays,
  stopReplay, votingOpen, writeViewAnnounced,
} from "./shared.js";
import {parsePrediction} from "./prediction.js";
import {viewOf} from "./dom.js";

export const STATE_KEYS = ["score_1", "score_diff", "temperature", "value_1", "value_2"];
// asked: the demonstration was asked for without a prediction, so the view asks for one.
export const STATE_NAMES = ["step", ...STATE_KEYS, "prediction_text", "revealed", "animating", "asked"];
const ECHO_LIMIT = 40;

/** scenarios.outcome: scores (2), weights (2), output y, literal weights (2); and the exponentials. */
export function outcome(st) {
  const scores = [st.score_1, st.score_1 + st.score_diff];
  const weights = softmax(scores, st.temperature);
  const output = weightedSum(weights, [st.value_1, st.value_2]);
  const exps = scores.map((s) => Math.exp(s / st.temperature));
  const naive = exps.map((e) => e / (exps[0] + exps[1]));
  return {scores, weights, output, exps, naive};
}



/**
 * Everything the steps explorable displays for one state (views.steps.steps_view).
 * Step 3's temperature curve (its point and its table too) answers the step,
 * so it is shown only while the step is demonstrated and after.
 * @param {object} st step, score_1, score_diff, temperature, value_1, value_2, prediction_text, revealed,
 *   animating, asked
 * @param {object} config views.steps.steps_config(language)
 * @returns {object} {sources, ranges, html, props}
 */
export function stepsView(st, config) {
  const f = formatNumber, S = config.strings;
  const res = outcome(st);
  const [s1, s2] = res.scores, [a1, a2] = res.weights, y = res.output;
  const v1 = st.value_1, v2 = st.value_2, temp = st.temperature, step = st.step;
  const raw = String(st.prediction_text);
  const pred = parsePrediction(raw, config.prediction_bounds);
  const xs = [v1, v2].concat(pred === null ? [] : [pred]);  // y lies between the values
  const pad = Math.max(1.0, 0.12 * (Math.max(...xs) - Math.min(...xs)));
  const step3 = step === 3;
  const revealed = Boolean(st.revealed), animating = Boolean(st.animating);
  const curveShown = step3 && (revealed || animating);
  const needsPrediction = Boolean(st.asked) && pred === null && !(revealed || animating);
  const gap = Math.abs(s2 - s1);
  const invalid = pred === null && pyStrip(raw) !== "";
  const [lo, hi] = config.prediction_bounds;
  const curve = curveShown ? config.curve_t.map((t) => softmax([0, gap / t])[1]) : [];
  const lineRows = [[`${S.legend_value} v₁`, formatG(v1)], [`${S.legend_value} v₂`, formatG(v2)],
    [S.legend_output, f(y)]].concat(pred === null ? [] : [[S.legend_prediction, formatG(pred)]]);
  const last = config.curve_t.length - 1;
  const curveRows = curve.map((w, i) => [formatG(config.curve_t[i]), f(w)]).filter((_, i) => i % 10 === 0 || i === last);
  const props = {};
  for (const name of STATE_KEYS) {
    props[name + "_slider"] = {value: st[name]};
    props[name + "_box"] = {value: formatG(st[name])};
  }
  for (const n of [1, 2, 3]) props["step_" + n] = {button_type: n === step ? "primary" : "default"};
  Object.assign(props, {
    demonstrate: {label: animating ? S.demonstrating : S.demonstrate},
    skip: {visible: needsPrediction},
    prediction_input: {value: raw, value_input: raw},  // both: see views/steps.py
    curve_fig: {visible: curveShown},
    naive: {visible: step3},
    error: {visible: invalid},
  });
  return {
    sources: {
      values: {x: [v1, v2], label: ["v₁=" + formatG(v1), "v₂=" + formatG(v2)]},
      interval: {x0: [Math.min(v1, v2)], x1: [Math.max(v1, v2)]},
      output: {x: [y], label: ["y=" + formatFixed(y, 2)]},
      prediction: pred === null ? {x: [], label: []} : {x: [pred], label: [formatG(pred)]},
      weights: {name: ["α₁", "α₂"], weight: [a1, a2], label: [f(a1, 4, false), f(a2, 4, false)]},
      curve: curveShown ? {t: config.curve_t.slice(), weight: curve} : {t: [], weight: []},
      point: curveShown ? {t: [temp], weight: [s2 >= s1 ? a2 : a1]} : {t: [], weight: []},
    },
    ranges: {x_range: [Math.min(...xs) - pad, Math.max(...xs) + pad]},
    html: {
      readouts:
        "<table>" +
        `<tr><th scope='row' class='ae-kind'>${S.readout_scores}</th>` +
        `<td class='ae-score-1-readout'>s₁ = ${f(s1, 2)}</td>` +
        `<td class='ae-score-2-readout'>s₂ = ${f(s2, 2)}</td></tr>` +
        `<tr><th scope='row' class='ae-kind'>${S.readout_temperature}</th>` +
        `<td class='ae-temperature-readout' colspan='2'>T = ${f(temp, 2)}</td></tr>` +
        `<tr><th scope='row' class='ae-kind'>${S.readout_weights}</th>` +
        `<td class='ae-weight-1'>α₁ = ${f(a1)}</td><td class='ae-weight-2'>α₂ = ${f(a2)}</td></tr>` +
        `<tr><th scope='row' class='ae-kind'>${S.readout_output}</th>` +
        `<td class='ae-output' colspan='2'>y = ${f(y)}</td></tr>` +
        "</table>",
      formula:
        `<div class='ae-kind'>${S.formula_label} · ${S.stable_label}</div>` +
        "α₂ = e<sup>s₂/T</sup> / (e<sup>s₁/T</sup> + e<sup>s₂/T</sup>)" +
        " = 1 / (1 + e<sup>−(s₂−s₁)/T</sup>)" +
        ` = 1 / (1 + e<sup>−(${f(s2 - s1, 2)})/${f(temp, 2)}</sup>) = ${f(a2)}<br>` +
        `y = α₁·v₁ + α₂·v₂ = ${f(a1)} × ${formatG(v1)} + ${f(a2)} × ${formatG(v2)} = ${f(y)}`,
      naive: step3 ? naiveHtml(res, S) : "",
      question: questionHtml(step, revealed, S),
      result: needsPrediction ? `<b>${S.result_label}</b>${S.label_colon}${S.prediction_needed}` : resultHtml(st, pred, config),
      error: invalid ? fill(S.prediction_invalid, {raw: escapeHtml(echo(raw, ECHO_LIMIT)), lo: formatG(lo), hi: formatG(hi)}) : "",
      line_data: dataTable(S.plot_number_line, [S.data_name, S.data_value], lineRows),
      weights_data: dataTable(S.plot_weights, [S.data_name, S.axis_weight], [["α₁", f(a1)], ["α₂", f(a2)]]),
      curve_data: curveShown ? dataTable(S.plot_temperature_curve, [S.axis_temperature, S.axis_weight], curveRows) : "",
      // A screen reader hears why the cursor went to the prediction box.
      live: needsPrediction ? S.prediction_needed
        : `${S.readout_weights} α₁ = ${f(a1)}, α₂ = ${f(a2)} · ${S.readout_output} y = ${f(y)}`,
    },
    props,
  };
}

function questionHtml(step, revealed, S) {
  const explain = revealed ? `<p class='ae-explain'>${S[`step${step}_explain`]}</p>` : "";
  return `<h2 style='margin:4px 0; padding:0; border:0; font-size:1.17em'>${S[`step${step}_title`]}</h2><p>${S[`step${step}_question`]}</p>${explain}`;
}

function resultHtml(st, pred, config) {
  const S = config.strings, f = formatNumber;
  let msg;
  if (!st.revealed || st.animating) {
    msg = S.result_pending;
  } else {
    const target = config.steps[st.step - 1].target;
    const trueY = outcome(target).output;
    msg = pred !== null
      ? fill(S.result_with_prediction, {pred: formatG(pred), true: f(trueY, 2), gap: f(Math.abs(pred - trueY), 2)})
      : fill(S.result_no_prediction, {true: f(trueY, 2)});
    if (STATE_KEYS.some((k) => st[k] !== target[k])) msg += S.result_moved;
  }
  return `<b>${S.result_label}</b>${S.label_colon}${msg}`;
}

function naiveHtml(res, S) {
  const f = formatNumber, {exps, naive, weights} = res;
  const status = exps.some((e) => e === Infinity) ? S.naive_overflow
    : exps.every((e) => e === 0) ? S.naive_underflow : S.naive_ok;
  const bad = naive.some(Number.isNaN) ? "ae-error" : "";
  return `<div class='ae-kind'>${S.naive_label}</div>` +
    `e<sup>s₁/T</sup> = ${f(exps[0], 3)}, e<sup>s₂/T</sup> = ${f(exps[1], 3)} → ` +
    `<span class='${bad}'>α₁ = ${f(naive[0])}, α₂ = ${f(naive[1])}</span> · ${status}<br>` +
    `<span class='ae-kind'>${S.stable_label}</span>: α₁ = ${f(weights[0])}, α₂ = ${f(weights[1])}`;
}

/**
 * scenarios.interpolate: the state a fraction of the way from start (0) to
 * target (1), smoothstep-eased; temperatures geometrically. The ends exactly.
 */
export function interpolate(start, target, fraction) {
  let f = Math.min(Math.max(fraction, 0), 1);
  if (f === 0 || f === 1) return Object.fromEntries(STATE_KEYS.map((k) => [k, (f === 0 ? start : target)[k]]));
  f = f * f * (3 - 2 * f);
  const out = {};
  for (const k of STATE_KEYS) {
    const a = start[k], b = target[k];
    out[k] = k === "temperature" ? Math.exp(Math.log(a) + f * (Math.log(b) - Math.log(a))) : a + f * (b - a);
  }
  return out;
}

/** The frames of a step's replay: `count` states from its start to its target. */
export function replayFrames(step, count) {
  if (count <= 1) return [Object.fromEntries(STATE_KEYS.map((k) => [k, step.target[k]]))];
  return Array.from({length: count}, (_, i) => interpolate(step.start, step.target, i / (count - 1)));
}

const timers = stepReplays;

// A reader who asks for less motion gets the step's end at once, with no replay.
const lessMotion = () => typeof window !== "undefined" && window.matchMedia &&
  window.matchMedia("(prefers-reduced-motion: reduce)").matches;

function demonstrate(state, config) {
  if (state.animating) return;
  const step = config.steps[state.step - 1];
  const frames = replayFrames(step, lessMotion() ? 1 : config.frames);
  const last = frames.pop();
  if (!frames.length) {
    state.setv({...last, revealed: true, animating: false});
    return;
  }
  state.setv({...frames.shift(), revealed: false, animating: true});
  const replayed = state.step;
  const next = () => {
    if (state.step !== replayed) return timers.delete(state);  // moved to another step meanwhile
    if (frames.length) {
      state.setv(frames.shift());
      timers.set(state, setTimeout(next, config.frame_ms));
    } else {
      timers.delete(state);
      state.setv({...last, revealed: true, animating: false});
    }
  };
  timers.set(state, setTimeout(next, config.frame_ms));
}

function goToStep(state, config, n) {
  goToStepStart(state, config.steps, n);
}

// Predict first: "演示本步" without a prediction asks for one and puts the
// cursor in the box; the skip button (or a prediction) lets the replay run.
function askForPrediction(state, models) {
  state.asked = true;
  const view = viewOf(models.prediction_input);
  const box = view && (view.input_el || (view.shadow_el || view.el).querySelector("input"));
  if (box) box.focus();
}

// On a phone the number line is below the fold: bring it into view to watch the answer arrive.
function showNumberLine(models) {
  const view = viewOf(models.line_fig);
  const el = view && view.el;
  if (!el || !el.getBoundingClientRect) return;
  const box = el.getBoundingClientRect();
  if (box.top >= 0 && box.bottom <= window.innerHeight) return;
  el.scrollIntoView({block: "center", behavior: lessMotion() ? "auto" : "smooth"});
}

function play(state, models, config) {
  if (state.asked) state.asked = false;
  showNumberLine(models);
  demonstrate(state, config);
}

/** Draw the current state into the page's models. */
export function draw(state, models, config) {
  writeViewAnnounced(models, stepsView(readState(state, STATE_NAMES), config));
}

/**
 * The controller, run by Bokeh's CustomJS for every event of the explorable:
 * a change of the state model (from the student or from the server) draws;
 * a student's action on a control changes the state.
 */
export default controller("steps", draw, ({state, models, config, origin, event}) => {
  // A student's action: a clamped value's notice lasts until the next one.
  const acted = () => { if (models.notice.visible) models.notice.visible = false; };
  const stopped = () => { if (state.animating) stopReplay(state), state.animating = false; };
  if (sliderAction({state, models, config, origin}, {beforeChange: stopped})) return;
  for (const n of [1, 2, 3]) if (origin === models["step_" + n]) return acted(), goToStep(state, config, n);
  if (origin === models.demonstrate) {
    acted();
    if (state.animating) return;
    const unpredicted = parsePrediction(state.prediction_text, config.prediction_bounds) === null;
    if (unpredicted && config.ask_prediction !== false) return askForPrediction(state, models);
    // In a room whose vote on this step is open, the answer waits for its close (web/classroom.js says so).
    if (votingOpen(state)) return;
    return play(state, models, config);
  }
  if (origin === models.skip) return acted(), votingOpen(state) ? undefined : play(state, models, config);
  if (origin === models.prediction_input) {
    const text = event.value_input ?? origin.value_input;
    if (text !== state.prediction_text) acted(), state.prediction_text = text;
    return;
  }
  if (origin === models.line_fig && event && Number.isFinite(event.x)) {
    acted();
    const [lo, hi] = config.prediction_bounds;
    state.prediction_text = formatFixed(Math.min(Math.max(event.x, lo), hi), 2);
  }
});
