// The steps explorable of section 3.7.5 as one module in the anywidget front-end form: its view (twin of
// attention_explorable/views/steps.py, the oracle), the replay of a step (twin of scenarios.interpolate)
// and `render({model, el})`, which builds the step buttons, the prediction, the sliders, the readouts and
// the three figures, turns the student's clicks, keys and taps into the model's state and draws every
// change of it.
import {softmax, weightedSum} from "./attention.js";
import {drawsFrom, numberLineFigure, range, source, temperatureFigure, weightsFigure} from "./figures.js";
import {button, drawView, el, figure, modelSlider, moduleRoot, noticePart, phoneOrder, readout, setState, tell,
        textInput} from "./parts.js";
import {DECIMALS, dataTable, echo, escapeHtml, fill, formatFixed, formatG, formatNumber, onGrid, pyStrip, stepDecimals,
  stepStart} from "./shared.js";
import {parsePrediction} from "./prediction.js";

export const STATE_KEYS = ["score_1", "score_diff", "temperature", "value_1", "value_2"];
// asked: the demonstration was asked for without a prediction, so the view asks for one.
export const STATE_NAMES = ["step", ...STATE_KEYS, "prediction_text", "revealed", "animating", "asked"];
// What the steps move (views.steps.MOVED): its sliders wait for the step's demonstration; the values do not.
export const MOVED = ["score_diff", "temperature", "score_1"];
const ECHO_LIMIT = 40;
/** A readout's chain of equations, a narrow screen breaking it between its pieces (views.steps._pieces). */
const pieces = (...parts) => parts.map((part) => `<span class='ae-formula-piece'>${part}</span>`).join(" ");

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
  // Asked for a prediction while the box holds one that cannot be used: to be mended (views.steps).
  const needed = invalid ? fill(S.prediction_fix, {lo: formatG(lo), hi: formatG(hi)}) : S.prediction_needed;
  const curve = curveShown ? config.curve_t.map((t) => softmax([0, gap / t])[1]) : [];
  const lineRows = [[`${S.legend_value} v₁`, formatG(v1)], [`${S.legend_value} v₂`, formatG(v2)],
    [S.legend_output, f(y)]].concat(pred === null ? [] : [[S.legend_prediction, formatG(pred)]]);
  const last = config.curve_t.length - 1;
  const curveRows = curve.map((w, i) => [formatG(config.curve_t[i]), f(w)]).filter((_, i) => i % 10 === 0 || i === last);
  // Predict first: what a step moves waits for its demonstration (or its skip), except on a presenter's page.
  const locked = config.ask_prediction !== false && !(revealed || animating);
  const props = {};
  for (const name of STATE_KEYS) {
    const disabled = locked && MOVED.includes(name);
    props[name + "_slider"] = {value: st[name], disabled};
    props[name + "_box"] = {value: boxText(st[name], config.sliders[name][2], animating), disabled};
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
      output: {x: [y], label: ["y=" + formatNumber(y, 2, false)]},
      prediction: pred === null ? {x: [], label: []} : {x: [pred], label: [formatG(pred)]},
      weights: {name: ["α₁", "α₂"], weight: [a1, a2], label: [f(a1, DECIMALS, false), f(a2, DECIMALS, false)]},
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
        // (each side of an "=" kept on one line: a narrow screen breaks the chain between them)
        `<div class='ae-kind'>${S.formula_label} · ${S.stable_label}</div>` +
        pieces("α₂ = e<sup>s₂/T</sup> / (e<sup>s₁/T</sup> + e<sup>s₂/T</sup>)", "= 1 / (1 + e<sup>−(s₂−s₁)/T</sup>)",
               `= 1 / (1 + e<sup>−(${f(s2 - s1, 2)})/${f(temp, 2)}</sup>)`, `= ${f(a2)}`) + "<br>" +
        pieces("y = α₁·v₁ + α₂·v₂", `= ${f(a1)} × ${formatG(v1)} + ${f(a2)} × ${formatG(v2)}`, `= ${f(y)}`),
      naive: step3 ? naiveHtml(res, S) : "",
      question: questionHtml(step, revealed, S, stepTarget(st, config)),
      result: needsPrediction ? `<b>${S.result_label}</b>${S.label_colon}${needed}` : resultHtml(st, pred, config),
      error: invalid ? fill(S.prediction_invalid, {raw: escapeHtml(echo(raw, ECHO_LIMIT)), lo: formatG(lo), hi: formatG(hi)}) : "",
      line_data: dataTable(S.plot_number_line, [S.data_name, S.data_value], lineRows),
      weights_data: dataTable(S.plot_weights, [S.data_name, S.axis_weight], [["α₁", f(a1)], ["α₂", f(a2)]]),
      curve_data: curveShown ? dataTable(S.plot_temperature_curve, [S.axis_temperature, S.axis_weight], curveRows) : "",
      // A screen reader hears why the cursor went to the prediction box.
      live: needsPrediction ? needed
        : `${S.readout_weights} α₁ = ${f(a1)}, α₂ = ${f(a2)} · ${S.readout_output} y = ${f(y)}`,
    },
    props,
  };
}

function questionHtml(step, revealed, S, target) {
  const explain = revealed ? `<p class='ae-explain'>${S[`step${step}_explain`]}</p>` : "";
  const question = fill(S[`step${step}_question`], {v1: formatG(target.value_1), v2: formatG(target.value_2)});
  return `<p class='ae-step-title' style='margin:4px 0; font-size:1.17em'><b>${S[`step${step}_title`]}</b></p><p>${question}</p>${explain}`;
}

/**
 * `steps` (each a `start` and a `target` state) with `values` (value_1, value_2) in both: a step moves the
 * scores and the temperature, never the values, so the values an explorable opened with (an author's tag
 * or saved page, a link) are those each step demonstrates and checks. The twin of views.steps.with_values.
 */
/** A number box's text: the value; while a demonstration replays, to its slider's step's decimals (views.steps.box_text). */
export function boxText(value, step, animating) {
  if (!animating) return formatG(value);
  return formatG(Number(formatFixed(value, stepDecimals(step))) + 0);  // (+ 0: a rounded −0.001 reads 0, not −0)
}

/** The target of `st`'s step with the values on screen (views.steps.step_target). */
export function stepTarget(st, config) {
  return withValues([config.steps[st.step - 1]], {value_1: Number(st.value_1), value_2: Number(st.value_2)})[0].target;
}

export function withValues(steps, values) {
  return steps.map((s) => ({start: {...s.start, ...values}, target: {...s.target, ...values}}));
}

// How near a prediction must come to a slip's output to be taken for that slip (views.steps.SLIP_NEAR).
const SLIP_NEAR = 0.1;

/** The outputs the usual slips give at a step's `target`, each only where it is further than `within` from the true one
 * (views.steps.slips). */
export function slips(target, within) {
  const res = outcome(target), w = res.weights;
  const {value_1: v1, value_2: v2, score_diff: diff, temperature: t} = target;
  const found = [[t < 1 && diff !== 0 ? "cold" : "equal", (v1 + v2) / 2]];
  if (diff === 0) found.push(["value", v1], ["value", v2]);
  else found.push(["all", diff > 0 ? v2 : v1]);
  found.push(["swapped", w[1] * v1 + w[0] * v2]);
  if (t !== 1) found.push(["temperature", outcome({...target, temperature: 1}).output]);
  return found.filter(([, y]) => Math.abs(y - res.output) > within);
}

function resultHtml(st, pred, config) {
  const S = config.strings, f = formatNumber;
  let msg;
  if (!st.revealed || st.animating) {
    msg = S.result_pending;
  } else {
    const target = stepTarget(st, config);
    const res = outcome(target), trueY = res.output;
    if (pred === null) {
      msg = fill(S.result_no_prediction, {true: f(trueY, 2)});
    } else {
      const gap = Math.abs(pred - trueY);
      const [lo, hi] = [target.value_1, target.value_2].sort((a, b) => a - b);
      const inside = lo <= pred && pred <= hi;  // the section's point: y never leaves [v₁, v₂], so nothing outside is right
      msg = fill(gap > config.within ? S.result_off : inside ? S.result_right : S.result_near_outside,
                 {within: formatG(config.within)}) +
        fill(S.result_with_prediction, {pred: formatG(pred), true: f(trueY, 2), gap: f(gap >= 0.005 ? gap : 0, 2)});
      // A prediction off by a usual slip is told which (the first that it comes near).
      const near = slips(target, config.within).filter(([, y]) => gap > config.within && Math.abs(pred - y) <= SLIP_NEAR);
      if (near.length) msg += fill(S[`slip_${near[0][0]}`], {y: f(near[0][1], 2), t: formatG(target.temperature)});
      else if (gap > config.within) {  // no slip to name: the computation itself, with this step's numbers
        const w = res.weights;
        msg += fill(S.result_working, {d: formatG(target.score_diff), t: formatG(target.temperature), a1: f(w[0], 3),
          a2: f(w[1], 3), v1: formatG(target.value_1), v2: formatG(target.value_2), y: f(trueY, 2)});
      }
      if (!inside) {
        msg += fill(S.result_outside, {v1: formatG(target.value_1), v2: formatG(target.value_2)});
      }
    }
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


// A reader who asks for less motion gets the step's end at once, with no replay.
const lessMotion = () => typeof window !== "undefined" && window.matchMedia &&
  window.matchMedia("(prefers-reduced-motion: reduce)").matches;

/**
 * The explorable in `el` (the anywidget front-end form): the three step buttons, the step's question, the
 * prediction box, "demonstrate" (and, asked for a prediction, "skip"), the result, the five sliders with
 * their boxes; the readouts, the number line (a tap there is a prediction), the weights' bars, step 3's
 * temperature curve, the formula and the literal computation. Drawn from `stepsView` on every change of the
 * model's STATE_NAMES; its model also holds `config` (views.steps.steps_config and `ask_prediction`: false
 * plays at once, for a presenter) and `lang`.
 *
 * A host may hold the answer back (a class whose vote on the step is open): while the model's `held` is
 * true, "demonstrate" plays nothing. The module tells its host of a press of "demonstrate" or "skip" with
 * `model.send({event})`, and leaves an empty `.ae-class` box in its column for the host's class panel.
 */
function render({model, el: host}) {
  // The values it opened with are every step's (an author's value_2="8" is demonstrated and checked as 8).
  const given = model.get("config");
  const config = {...given, steps: withValues(given.steps, {value_1: model.get("value_1"), value_2: model.get("value_2")})};
  const S = config.strings;
  const root = moduleRoot(host, "ae-steps", model.get("lang"), model.get("theme"));
  const notice = noticePart(), say = notice.say;
  const set = (changes) => setState(model, changes);
  let timer = 0;
  const halt = () => { clearTimeout(timer); timer = 0; };
  // A student's own move during a replay ends it where it is.
  const stop = () => { if (model.get("animating")) { halt(); set({animating: false}); } };
  // A step keeps the values on screen (a student's v₁, v₂, moved before predicting, are demonstrated and checked).
  const shownValues = () => ({value_1: model.get("value_1"), value_2: model.get("value_2")});
  const goTo = (n) => { say(""); halt(); set({...stepStart(config, n), ...shownValues()}); };
  const done = new Set();  // the steps whose answer the student has seen (all three: completed)

  const replay = () => {
    if (model.get("animating")) return;
    const frames = replayFrames(withValues([config.steps[model.get("step") - 1]], shownValues())[0],
                                lessMotion() ? 1 : config.frames);
    const last = frames.pop();
    const shown = () => {  // the step's answer is on screen: told with the prediction's distance from it
      const step = model.get("step"), pred = parsePrediction(model.get("prediction_text"), config.prediction_bounds);
      const result = outcome(last).output;
      tell(model, {event: "checked", question: `step${step}`, prediction: pred, skipped: pred === null, result,
                   difference: pred === null ? null : Math.abs(pred - result)});
      done.add(step);
      if (done.size === config.steps.length && !done.told) {
        done.told = true;
        tell(model, {event: "completed"});
      }
    };
    if (!frames.length) { set({...last, revealed: true, animating: false}); return shown(); }
    set({...frames.shift(), revealed: false, animating: true});
    const replayed = model.get("step");
    const next = () => {
      if (model.get("step") !== replayed || !model.get("animating")) return halt();
      if (frames.length) {
        set(frames.shift());
        timer = setTimeout(next, config.frame_ms);
      } else {
        timer = 0;
        set({...last, revealed: true, animating: false});
        shown();
      }
    };
    timer = setTimeout(next, config.frame_ms);
  };
  // On a phone the number line is below the fold: it is brought into view to watch the answer arrive.
  const showNumberLine = () => {
    const box = line.el.getBoundingClientRect();
    if (box.top < 0 || box.bottom > window.innerHeight) {
      line.el.scrollIntoView({block: "center", behavior: lessMotion() ? "auto" : "smooth"});
    }
  };
  const play = () => {
    if (model.get("asked")) set({asked: false});
    showNumberLine();
    replay();
  };
  const told = (event) => tell(model, {event});
  const demonstrate = () => {
    say("");
    told("demonstrate");
    if (model.get("animating")) return;
    const unpredicted = parsePrediction(model.get("prediction_text"), config.prediction_bounds) === null;
    if (unpredicted && config.ask_prediction !== false) {  // predict first: the cursor goes to the box
      set({asked: true});
      prediction.input.focus();
      return;
    }
    if (!unpredicted) {
      tell(model, {event: "prediction", question: `step${model.get("step")}`,
                   prediction: parsePrediction(model.get("prediction_text"), config.prediction_bounds)});
    }
    if (!model.get("held")) play();  // a class's open vote holds the answer until it closes
  };
  const skip = () => {
    say("");
    told("skip");
    if (!model.get("held")) play();
  };

  const sources = {values: source(), interval: source(), output: source(), prediction: source(), weights: source(),
                   curve: source(), point: source()};
  const ranges = {x_range: range(0, 12)};
  const legend = {interval: S.legend_interval, value: S.legend_value, output: S.legend_output,
                  prediction: S.legend_prediction};
  const line = drawsFrom(figure("ae-number-line", numberLineFigure(sources, ranges.x_range, {title: S.plot_number_line, legend}),
    {onTap: (x) => {
      if (!Number.isFinite(x)) return;
      const [lo, hi] = config.prediction_bounds;
      say("");
      set({prediction_text: formatFixed(Math.min(Math.max(x, lo), hi), 2)});
    }}));
  const weights = drawsFrom(figure("ae-weights", weightsFigure(sources.weights, {title: S.plot_weights, yLabel: S.axis_weight})));
  const curve = drawsFrom(figure("ae-temperature-curve", temperatureFigure(sources.curve, sources.point, {
    title: S.plot_temperature_curve, xLabel: S.axis_temperature, yLabel: S.axis_weight,
    bounds: config.sliders.temperature.slice(0, 2)})));
  const prediction = textInput("ae-prediction", S.prediction, (text) => {
    say("");
    if (text !== model.get("prediction_text")) set({prediction_text: text});
  }, {placeholder: "?"});
  // Enter in the box demonstrates, as Enter in an exercise's box checks (not while an input method composes).
  prediction.input.addEventListener("keydown", (event) => {
    if (event.key !== "Enter" || event.isComposing) return;
    event.preventDefault();
    demonstrate();
  });
  const sliders = Object.keys(config.sliders).map((name) =>
    modelSlider(name, "ae-" + name.replace("_", "-"), config, model, {say, toGrid: onGrid, log: name === "temperature"}));
  const steps = [1, 2, 3].map((n) => {
    const b = button(`ae-step-${n}`, fill(S.step_button, {n}), () => goTo(n));
    return {el: b.el, set({button_type}) {
      b.button.classList.toggle("ae-n-primary", button_type === "primary");
      b.button.setAttribute("aria-pressed", String(button_type === "primary"));
    }};
  });
  const parts = {
    sources, ranges, line_fig: line, curve_fig: curve, prediction_input: prediction,
    ...Object.fromEntries(steps.map((b, i) => [`step_${i + 1}`, b])),
    ...Object.assign({}, ...sliders),
    demonstrate: button("ae-demonstrate", S.demonstrate, demonstrate, {primary: true}),
    skip: button("ae-skip-prediction", S.skip_prediction, skip),
    question: readout("ae-question"),
    error: readout("ae-error ae-prediction-error", {hidden: true}),
    result: readout("ae-result"),
    readouts: readout("ae-readouts"),
    formula: readout("ae-formula"),
    naive: readout("ae-naive"),
    live: readout("ae-live", {live: true, sr: true}),
    line_data: readout("ae-line-data", {sr: true}),
    weights_data: readout("ae-weights-data", {sr: true}),
    curve_data: readout("ae-curve-data", {sr: true}),
  };
  const controls = el("div", {class: "ae-n-col ae-sliders"}, ...sliders.map((p) => p.el));
  controls.addEventListener("input", stop, true);
  controls.addEventListener("change", stop, true);
  const asking = [el("div", {class: "ae-n-row ae-step-buttons"}, ...steps.map((b) => b.el)),
    parts.question.el, el("p", {class: "ae-hint ae-steps-hint"}, S.prediction_hint), prediction.el, parts.error.el,
    parts.demonstrate.el, parts.skip.el, el("div", {class: "ae-class", hidden: true}), parts.result.el];
  const left = el("div", {class: "ae-n-col", style: "flex:1 1 330px;max-width:440px;min-width:0"},
    ...asking, controls, notice.el);
  const right = el("div", {class: "ae-n-col", style: "flex:2 1 480px;min-width:0"},
    parts.readouts.el, parts.live.el, line.el, parts.line_data.el, weights.el, parts.weights_data.el,
    curve.el, parts.curve_data.el, parts.formula.el, parts.naive.el);
  // On a phone: the step and its question, then the number line the demonstration moves, right below
  // its button; the sliders after it, the curve and the formulas last.
  phoneOrder("first", ...asking);
  phoneOrder("figure", parts.readouts.el, line.el, parts.line_data.el, weights.el, parts.weights_data.el);
  phoneOrder("last", curve.el, parts.curve_data.el, parts.formula.el, parts.naive.el);
  root.append(el("div", {class: "ae-n-flex ae-n-split", style: "flex-direction:row;flex-wrap:wrap;gap:12px"}, left, right));
  const drawing = drawView(model, STATE_NAMES, parts, (st) => stepsView(st, config));
  return Object.assign(() => { halt(); drawing(); }, {draw: drawing.draw});
}

export default {render};
