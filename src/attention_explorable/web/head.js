// A head that learns: one attention head trained in the page on key -> value lookup (twin of
// attention_explorable/views/head.py, which is the oracle: the same generator, the same examples,
// the same float64 arithmetic, held equal by tests/browser/test_head_browser.py).
//
// An anywidget front-end module: `export default {render({model, el})}`. It reads its settings with
// model.get (d_k, learning_rate, seed, scaled, and `strings`, the text in the page's language),
// writes what the student changes with model.set + model.save_changes, and knows nothing of its
// host (a plain page's web/host.js, a notebook, marimo, MyST). Everything it draws is made with
// createElement and textContent; nothing typed is ever read as HTML.
import {MULBERRY_INCREMENT, mulberry32} from "./random.js";
import {DECIMALS, formatNumber, subscripted, superscript} from "./shared.js";

export const N_LETTERS = 8, N_DIGITS = 10, N_PAIRS = 4, D_IN = N_LETTERS + N_DIGITS;
export const DRAWS = 2 * N_PAIRS + 1;
export const DATA_OFFSET = 0x9E3779B9;
export const LETTERS = "ABCDEFGH";
const BETA1 = 0.9, BETA2 = 0.999, EPS = 1e-8;
/** The most steps a run trains, and where a playing run rests by itself the first time (views/head.py). */
export const MAX_STEPS = 5000, REST_AT = 300;

/** The step a run at step `t` that starts playing trains to before it rests (views.head.next_rest). */
export function nextRest(t) {
  return t < REST_AT ? REST_AT : MAX_STEPS;
}

/** The state a page opens with (views/head.py DEFAULTS). */
export const DEFAULTS = {d_k: 16, learning_rate: 0.01, seed: 0, scaled: true, batch: 64};

/**
 * `count` uniforms in [0, 1) from mulberry32's stream of `seed`, from its `start`-th output
 * (views.head.uniforms): exact, so Python gets the same numbers.
 */
export function uniforms(seed, start, count) {
  const first = (seed + Math.imul(start, MULBERRY_INCREMENT)) >>> 0;  // (seed + start * increment) mod 2**32
  return Array.from(mulberry32(first, count), (k) => k / 4294967296);
}

/** The examples of step `step` of a run with `seed` (views.head.make_batch): {keys, values, asked}. */
export function makeBatch(seed, step, size = DEFAULTS.batch) {
  const u = uniforms((seed + DATA_OFFSET) >>> 0, DRAWS * size * (step - 1), DRAWS * size);
  const keys = [], values = [], asked = [];
  for (let i = 0; i < size; i++) {
    const row = u.slice(DRAWS * i, DRAWS * (i + 1));
    const left = [...Array(N_LETTERS).keys()];
    keys.push(row.slice(0, N_PAIRS).map((x) => left.splice(Math.floor(x * left.length), 1)[0]));
    values.push(row.slice(N_PAIRS, 2 * N_PAIRS).map((x) => Math.floor(x * N_DIGITS)));
    asked.push(Math.floor(row[2 * N_PAIRS] * N_PAIRS));
  }
  return {keys, values, asked};
}

const zeros = (rows, cols) => Array.from({length: rows}, () => new Float64Array(cols));

/** The parameters a run starts from (views.head.init_params): W_Q, W_K (d_in, d_k), W_V (d_in, d_k), W_U (d_k, 10). */
export function initParams(seed, dK) {
  const shapes = [["W_Q", D_IN, dK, 1], ["W_K", D_IN, dK, 1], ["W_V", D_IN, dK, 1 / D_IN], ["W_U", dK, N_DIGITS, 1 / dK]];
  const u = uniforms(seed, 0, shapes.reduce((n, [, a, b]) => n + a * b, 0));
  const params = {};
  let at = 0;
  for (const [name, a, b, variance] of shapes) {
    const half = Math.sqrt(3 * variance);
    const w = zeros(a, b);
    for (let i = 0; i < a; i++) for (let j = 0; j < b; j++) w[i][j] = (2 * u[at++] - 1) * half;
    params[name] = w;
  }
  return params;
}

/**
 * The head on `batch` (views.head.forward): per example its scores (4,), weights (4,), probs (10,);
 * the batch's mean loss (nats) and accuracy. `keep` also returns what the gradients need. Plain loops
 * over typed arrays: it runs hundreds of times a second while the page trains.
 */
export function forward(params, batch, scaled, keep = false) {
  const dK = params.W_Q[0].length, scale = scaled ? 1 / Math.sqrt(dK) : 1;
  const n = batch.asked.length, WK = params.W_K, WV = params.W_V, WO = params.W_U;
  const out = {scores: [], weights: [], probs: [], loss: 0, accuracy: 0, scale, q: [], k: [], v: [], o: []};
  let loss = 0, right = 0;
  for (let b = 0; b < n; b++) {
    const keys = batch.keys[b], values = batch.values[b], answer = values[batch.asked[b]];
    const q = params.W_Q[keys[batch.asked[b]]];                 // x_query W_Q: a one-hot picks a row, (d_k,)
    const k = [], v = [], scores = new Array(N_PAIRS);
    let top = -Infinity;
    for (let p = 0; p < N_PAIRS; p++) {
      // x_p W: a position's input is two one-hots (its letter, its digit), so a sum of two rows, (d_k,)
      const kl = WK[keys[p]], kd = WK[N_LETTERS + values[p]], vl = WV[keys[p]], vd = WV[N_LETTERS + values[p]];
      const kp = new Float64Array(dK), vp = new Float64Array(dK);
      let s = 0;
      for (let j = 0; j < dK; j++) {
        kp[j] = kl[j] + kd[j];
        vp[j] = vl[j] + vd[j];
        s += q[j] * kp[j];
      }
      k.push(kp);
      v.push(vp);
      scores[p] = s * scale;
      if (scores[p] > top) top = scores[p];
    }
    let total = 0;
    const weights = new Array(N_PAIRS);
    for (let p = 0; p < N_PAIRS; p++) total += (weights[p] = Math.exp(scores[p] - top));
    for (let p = 0; p < N_PAIRS; p++) weights[p] /= total;
    const o = new Float64Array(dK);                              // weights V: (d_v,)
    for (let p = 0; p < N_PAIRS; p++) for (let j = 0; j < dK; j++) o[j] += weights[p] * v[p][j];
    const logits = new Float64Array(N_DIGITS);
    let zTop = -Infinity;
    for (let c = 0; c < N_DIGITS; c++) {
      let z = 0;
      for (let j = 0; j < dK; j++) z += o[j] * WO[j][c];
      logits[c] = z;
      if (z > zTop) zTop = z;
    }
    let sum = 0;
    for (let c = 0; c < N_DIGITS; c++) sum += Math.exp(logits[c] - zTop);
    const logSum = Math.log(sum);
    const probs = new Array(N_DIGITS);
    let best = 0;
    for (let c = 0; c < N_DIGITS; c++) {
      const lp = logits[c] - zTop - logSum;
      probs[c] = Math.exp(lp);
      if (c === answer) loss -= lp;
      if (lp > logits[best] - zTop - logSum) best = c;
    }
    if (best === answer) right += 1;
    out.scores.push(scores);
    out.weights.push(weights);
    out.probs.push(probs);
    if (keep) { out.q.push(q); out.k.push(k); out.v.push(v); out.o.push(o); }
  }
  out.loss = loss / n;
  out.accuracy = right / n;
  return out;
}

/** (the forward pass, d loss / d each parameter): views.head.gradients, example by example. */
export function gradients(params, batch, scaled) {
  const f = forward(params, batch, scaled, true);
  const dK = params.W_Q[0].length, n = batch.asked.length;
  const g = {W_Q: zeros(D_IN, dK), W_K: zeros(D_IN, dK), W_V: zeros(D_IN, dK), W_U: zeros(dK, N_DIGITS)};
  for (let b = 0; b < n; b++) {
    const keys = batch.keys[b], values = batch.values[b], answer = values[batch.asked[b]];
    const w = f.weights[b], q = f.q[b], k = f.k[b], v = f.v[b], o = f.o[b];
    const dLogits = f.probs[b].map((p, c) => (p - (c === answer ? 1 : 0)) / n);
    const dOut = new Float64Array(dK);
    for (let j = 0; j < dK; j++) {
      for (let c = 0; c < N_DIGITS; c++) { g.W_U[j][c] += o[j] * dLogits[c]; dOut[j] += dLogits[c] * params.W_U[j][c]; }
    }
    const dWeights = v.map((vp) => { let s = 0; for (let j = 0; j < dK; j++) s += dOut[j] * vp[j]; return s; });
    const mean = dWeights.reduce((a, d, p) => a + d * w[p], 0);
    const dScores = w.map((wp, p) => wp * (dWeights[p] - mean) * f.scale);   // softmax's Jacobian
    const gq = g.W_Q[keys[batch.asked[b]]];
    for (let p = 0; p < N_PAIRS; p++) {
      const kl = g.W_K[keys[p]], kd = g.W_K[N_LETTERS + values[p]], vl = g.W_V[keys[p]], vd = g.W_V[N_LETTERS + values[p]];
      const kp = k[p], ds = dScores[p], wp = w[p];
      for (let j = 0; j < dK; j++) {
        gq[j] += ds * kp[j];
        const dk = ds * q[j], dv = wp * dOut[j];
        kl[j] += dk; kd[j] += dk; vl[j] += dv; vd[j] += dv;
      }
    }
  }
  return [f, g];
}

/** A run at step 0 (views.head.start); `settings`: seed, d_k, learning_rate, scaled, batch. */
export function startRun(settings) {
  const s = {...DEFAULTS, ...settings};
  const params = initParams(s.seed, s.d_k);
  const moments = () => Object.fromEntries(Object.entries(params).map(([k, w]) => [k, zeros(w.length, w[0].length)]));
  return {...s, params, m: moments(), v: moments(), t: 0, losses: [], accuracies: []};
}

/** Train `run` one step (Adam on one batch); return that batch's loss. */
export function stepRun(run) {
  run.t += 1;
  const [f, g] = gradients(run.params, makeBatch(run.seed, run.t, run.batch), run.scaled);
  const c1 = 1 - BETA1 ** run.t, c2 = 1 - BETA2 ** run.t;
  for (const name of Object.keys(g)) {
    const W = run.params[name], G = g[name], M = run.m[name], V = run.v[name];
    for (let i = 0; i < W.length; i++) {
      for (let j = 0; j < W[i].length; j++) {
        M[i][j] = BETA1 * M[i][j] + (1 - BETA1) * G[i][j];
        V[i][j] = BETA2 * V[i][j] + (1 - BETA2) * G[i][j] * G[i][j];
        W[i][j] = W[i][j] - run.learning_rate * (M[i][j] / c1) / (Math.sqrt(V[i][j] / c2) + EPS);
      }
    }
  }
  run.losses.push(f.loss);
  run.accuracies.push(f.accuracy);
  return f.loss;
}

/** The learned score of each query letter against each key letter, (8, 8) (views.head.match_table). */
export function matchTable(params, scaled) {
  const dK = params.W_Q[0].length, scale = scaled ? 1 / Math.sqrt(dK) : 1;
  return Array.from({length: N_LETTERS}, (_, a) => Array.from({length: N_LETTERS}, (_, b) => {
    let s = 0;
    for (let j = 0; j < dK; j++) s += params.W_Q[a][j] * params.W_K[b][j];
    return s * scale;
  }));
}

/** How much W_V reads of each input (the norm of its row), (18,) (views.head.value_reads). */
export function valueReads(params) {
  return params.W_V.map((row) => Math.sqrt(row.reduce((a, x) => a + x * x, 0)));
}

/**
 * A lookup typed by the student, "C7 A2 D5 B9 | A" (views.head.parse_lookup), as a batch of one; or
 * {error: key} naming what is wrong (a key of the strings).
 */
export function parseLookup(text) {
  if (typeof text !== "string" || !text.includes("|")) return {error: "head_lookup_bar"};
  const [left, right] = text.toUpperCase().split("|", 2);
  const pairs = left.trim().split(/\s+/).filter(Boolean), query = right.trim();
  if (pairs.length !== N_PAIRS || pairs.some((p) => p.length !== 2 || !LETTERS.includes(p[0]) || !/[0-9]/.test(p[1]))) {
    return {error: "head_lookup_pairs"};
  }
  const keys = pairs.map((p) => LETTERS.indexOf(p[0]));
  if (new Set(keys).size !== N_PAIRS) return {error: "head_lookup_differ"};
  if (query.length !== 1 || !LETTERS.includes(query) || !keys.includes(LETTERS.indexOf(query))) return {error: "head_lookup_query"};
  return {keys: [keys], values: [pairs.map((p) => Number(p[1]))], asked: [keys.indexOf(LETTERS.indexOf(query))]};
}

/** An example as text, "C7 A2 D5 B9 | A". */
export function lookupText(batch, b = 0) {
  const pairs = batch.keys[b].map((k, p) => LETTERS[k] + batch.values[b][p]);
  return `${pairs.join(" ")} | ${LETTERS[batch.keys[b][batch.asked[b]]]}`;
}

// ---------------------------------------------------------------------------------------------------
// The page: DOM and SVG, made once, updated in place.

const SVG = "http://www.w3.org/2000/svg";
const CSS = `
.ae-head { font-family: inherit; font-size: inherit; line-height: 1.5; color: var(--ae-text, #1b1b1b); max-width: 980px;
  padding: 0 8px; box-sizing: border-box; }
.ae-head h2, .ae-head h3, .ae-head h4, .ae-head h5, .ae-head h6 { font-size: 17px; margin: 14px 0 6px; }
.ae-head .ae-row { display: flex; flex-wrap: wrap; gap: 10px; align-items: center; margin: 6px 0; }
.ae-head button { font: inherit; min-height: 44px; padding: 4px 14px; border-radius: 6px; cursor: pointer;
  border: 1px solid var(--ae-border, #8c8c8c); background: var(--ae-surface, #fff); color: inherit; }
.ae-head button:disabled { opacity: 0.55; cursor: default; }
.ae-head .ae-primary { background: var(--ae-accent, #2f6fad); color: #fff; border-color: var(--ae-accent, #2f6fad); }
.ae-head .ae-head-choice { margin: 8px 0; }
.ae-head .ae-head-question { margin: 4px 0; }
.ae-head .ae-head-options { display: flex; flex-direction: column; max-width: 640px; }
.ae-head .ae-head-options > button { text-align: left; border-radius: 0; margin: -1px 0 0; min-height: 44px; }
.ae-head .ae-head-options > button:first-child { border-radius: 6px 6px 0 0; margin: 0; }
.ae-head .ae-head-options > button:last-child { border-radius: 0 0 6px 6px; }
.ae-head .ae-head-options > button[aria-pressed=true] { background: var(--ae-accent, #2f6fad); color: #fff;
  border-color: var(--ae-accent, #2f6fad); }
.ae-head label { display: inline-flex; gap: 6px; align-items: center; min-height: 32px; }
.ae-head input[type=range] { width: 160px; height: 24px; }
.ae-head input[type=checkbox] { width: 20px; height: 24px; margin: 0; }
/* The lookup box reads as code ("C7 A2 D5 B9 | A"); a setting's box as the other explorables' boxes. */
.ae-head input[type=text] { font: 15px ui-monospace, monospace; padding: 6px 8px; width: 15em; max-width: 100%; }
.ae-head .ae-head-setting { display: inline-flex; gap: 6px; align-items: center; }
.ae-head input.ae-head-box { font: inherit; width: 5.5em; min-height: 32px; box-sizing: border-box; }
.ae-head svg { display: block; max-width: 100%; height: auto; background: var(--ae-surface, #fff); }
.ae-head .ae-readout { font-variant-numeric: tabular-nums; }
.ae-head .ae-note { color: var(--ae-muted, #444); font-size: 15px; }
.ae-head .ae-answer { font-weight: 600; }
.ae-head figure { margin: 8px 0; }
.ae-head figcaption { margin: 0 0 2px; }
.ae-head-legend { margin: 2px 0 0; display: flex; flex-wrap: wrap; gap: 4px 16px; }
.ae-head-legend span::before { content: ""; display: inline-block; width: 18px; height: 3px; margin: 0 6px 4px 0;
  vertical-align: middle; background: var(--swatch); }
.ae-head .ae-grid { display: flex; flex-wrap: wrap; gap: 16px; }
.ae-head .ae-grid > div, .ae-head .ae-grid > figure { flex: 1 1 300px; min-width: 0; }
.ae-head svg text { fill: var(--ae-text, #1b1b1b); }
.ae-head svg .ae-tick { fill: var(--ae-muted, #444); }
.ae-head svg .ae-gridline { stroke: var(--ae-rule, #ddd); }
/* On a phone each setting takes a line of its own, its slider the line's width and a finger's height. */
@media (max-width: 600px) {
  .ae-head .ae-head-settings { flex-direction: column; align-items: stretch; gap: 2px; }
  .ae-head .ae-head-setting { display: flex; }
  .ae-head .ae-head-settings label { display: flex; flex: 1 1 auto; min-width: 0; min-height: 44px; }
  .ae-head input.ae-head-box { min-height: 44px; }
  .ae-head .ae-head-settings input[type=range] { flex: 1 1 auto; width: auto; min-width: 0; height: 44px; }
  .ae-head .ae-head-settings input[type=checkbox] { width: 24px; height: 24px; }
}
.ae-head .ae-sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0);
  clip-path: inset(50%); white-space: nowrap; }
`;

/** A table only screen readers read: a plot's numbers, `update(rows)` rewrites its cells (text only). */
function dataTable(caption, head) {
  const wrap = el("div", {class: "ae-sr"});  // (a table itself ignores a clipped box's width and overflow)
  const table = el("table");
  wrap.append(table);
  table.append(el("caption", {}, caption));
  const top = el("tr");
  for (const h of head) top.append(el("th", {scope: "col"}, h));
  const body = el("tbody");
  table.append(el("thead"), body);
  table.tHead.append(top);
  return {
    table: wrap,
    update(rows) {
      body.replaceChildren(...rows.map(([name, ...cells]) => {
        const tr = el("tr");
        tr.append(el("th", {scope: "row"}, name), ...cells.map((c) => el("td", {}, c)));
        return tr;
      }));
    },
  };
}

function el(tag, attrs = {}, text = "") {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text) node.textContent = text;
  return node;
}

/** `node`'s text set to `text` only when it differs: an unchanged text is not laid out again. */
function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}

/** `text` into `node` with its matrix names subscripted (W_V as W with V below), rewritten only when it changes. */
function setSubscripted(node, text) {
  if (node.dataset.said !== text) {
    node.dataset.said = text;
    node.replaceChildren(...subscripted(text));
  }
}

function svgEl(tag, attrs = {}) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  return node;
}

const fill = (template, values) => template.replace(/\{(\w+)\}/g, (_, k) => (k in values ? String(values[k]) : `{${k}}`));

/**
 * A plot of curves over `maxSteps` steps (more once they grow past it): losses on a log scale from 1e-5 to
 * 5 nats, or (`percent`) shares from 0 to 1 on a linear one; `update(curves, stepsLabel)` redraws the lines.
 * `figure` is the plot with its title shown above it (the picture itself is named by it for a screen reader).
 */
function curvePlot(title, maxSteps, percent = false, legend = null) {
  const W = 460, H = percent ? 176 : 236, L = 46, B = 44, T = 10, R = 14;
  const svg = svgEl("svg", {viewBox: `0 0 ${W} ${H}`, width: W, role: "img", "aria-label": title});
  const figure = el("figure", {class: "ae-head-figure"});
  figure.append(el("figcaption", {class: "ae-note", "aria-hidden": "true"}, title), svg);
  if (legend) {  // each line's colour named under the plot: [[label, colour], ...]
    const key = el("p", {class: "ae-note ae-head-legend", "aria-hidden": "true"});
    for (const [label, color] of legend) key.append(el("span", {style: `--swatch: ${color}`}, label));
    figure.append(key);
  }
  const y = percent
    ? (share) => T + (H - T - B) * (1 - share)
    : (loss) => T + (H - T - B) * (Math.log10(5) - Math.log10(Math.max(loss, 1e-5))) / (Math.log10(5) + 5);
  // (the loss's top tick, 5, above ln 10 ≈ 2.3 where every run starts: the first steps are on the scale)
  for (const tick of percent ? [0, 0.5, 1] : [1e-5, 1e-4, 0.001, 0.01, 0.1, 1, 5]) {
    svg.append(svgEl("line", {x1: L, x2: W - R, y1: y(tick), y2: y(tick), stroke: "#ddd", class: "ae-gridline"}));
    const label = svgEl("text", {x: L - 4, y: y(tick) + 4, "text-anchor": "end", "font-size": 14, fill: "#555", class: "ae-tick"});
    // a power of ten as the page writes one (views.numbers): 10⁻⁴, never 1e-4
    label.textContent = percent ? `${100 * tick}%` : tick < 0.005 ? `10${superscript(String(Math.round(Math.log10(tick))))}` : String(tick);
    svg.append(label);
  }
  const axis = svgEl("text", {x: (L + W - R) / 2, y: H - 6, "text-anchor": "middle", "font-size": 14, fill: "#555", class: "ae-tick"});
  svg.append(axis);
  // The steps along the bottom: the first, the middle and the last step the plot spans (it widens past
  // maxSteps as a run goes on).
  const stepTicks = [0, 0.5, 1].map((at) => svgEl("text", {x: L + (W - L - R) * at, y: H - B + 16, "font-size": 14,
    "text-anchor": at === 0 ? "start" : at === 1 ? "end" : "middle", fill: "#555", class: "ae-tick ae-head-step-tick"}));
  svg.append(...stepTicks);
  let spanned = null;
  const lines = {};
  return {
    svg,
    figure,
    update(curves, stepsLabel) {
      setText(axis, stepsLabel);
      const span = Math.max(maxSteps, ...Object.values(curves).map(({values}) => values.length));
      if (span !== spanned) {
        spanned = span;
        [0, Math.round(span / 2), span].forEach((s, i) => setText(stepTicks[i], String(s)));
      }
      for (const [name, {values, color}] of Object.entries(curves)) {
        if (!lines[name]) svg.append(lines[name] = svgEl("polyline", {fill: "none", stroke: color, "stroke-width": 2}));
        const n = Math.max(maxSteps, values.length);
        lines[name].setAttribute("points", values.map((v, i) => `${(L + (W - L - R) * (i + 1) / n).toFixed(1)},${y(v).toFixed(1)}`).join(" "));
      }
    },
  };
}

/** Bars of one example's weights over its four pairs. */
function weightBars(label) {
  const W = 240, H = 110;
  const svg = svgEl("svg", {viewBox: `0 0 ${W} ${H}`, width: W, role: "img", "aria-label": label});
  const bars = [], names = [], values = [], before = [];
  for (let p = 0; p < N_PAIRS; p++) {
    const x = 10 + p * 57;
    bars.push(svgEl("rect", {x, width: 44, y: 80, height: 0, fill: "#7f6fb0"}));
    names.push(svgEl("text", {x: x + 22, y: 100, "text-anchor": "middle", "font-size": 15}));
    values.push(svgEl("text", {x: x + 22, y: 74, "text-anchor": "middle", "font-size": 14, fill: "#333", class: "ae-tick"}));
    // the same weight before training: a dashed line across the bar
    before.push(svgEl("line", {x1: x - 3, x2: x + 47, y1: 80, y2: 80, stroke: "#222", "stroke-width": 1.5,
                               "stroke-dasharray": "4 3", visibility: "hidden"}));
    svg.append(bars[p], before[p], names[p], values[p]);
  }
  return {
    svg,
    /** `start`: the weights before training (drawn dashed), or nothing. */
    update(weights, pairs, match, start = null) {
      weights.forEach((w, p) => {
        const y = start ? (80 - 60 * start[p]).toFixed(1) : "80";
        before[p].setAttribute("y1", y);
        before[p].setAttribute("y2", y);
        before[p].setAttribute("visibility", start ? "visible" : "hidden");
        const h = 60 * w;
        bars[p].setAttribute("y", (80 - h).toFixed(1));
        bars[p].setAttribute("height", h.toFixed(1));
        bars[p].setAttribute("fill", p === match ? "#2f6fad" : "#b8b0d4");
        // On its bar; where the dashed line runs just above the bar (less than a label's height), above the
        // line instead, never on either (a label above a line far over its bar read as the old weight).
        const line = start ? 80 - 60 * start[p] : Infinity, top = 80 - h;
        values[p].setAttribute("y", (line < top && top - line < 18 ? line - 4 : top - 6).toFixed(1));
        setText(names[p], pairs[p]);
        setText(values[p], w.toFixed(2));
      });
    },
  };
}

/** A grid of cells (rows x cols) coloured by value; `update(matrix)` recolours them and says, under the grid,
 * the value of the deepest colour (`scale(top)`: its text). */
function heatmap(label, rows, cols, rowNames, colNames, scale) {
  const C = 26, L = 22, T = 20, S = 20;
  const svg = svgEl("svg", {viewBox: `0 0 ${L + C * cols + 4} ${T + C * rows + 4 + S}`, width: L + C * cols + 4,
                            role: "img", "aria-label": label});
  const key = svgEl("text", {x: L, y: T + C * rows + S - 2, "font-size": 14, fill: "#555", class: "ae-tick"});
  svg.append(key);
  const cells = [];
  colNames.forEach((n, j) => { const t = svgEl("text", {x: L + C * j + C / 2, y: 14, "text-anchor": "middle", "font-size": 14}); t.textContent = n; svg.append(t); });
  rowNames.forEach((n, i) => { const t = svgEl("text", {x: 14, y: T + C * i + C / 2 + 4, "text-anchor": "middle", "font-size": 14}); t.textContent = n; svg.append(t); });
  for (let i = 0; i < rows; i++) {
    cells.push([]);
    for (let j = 0; j < cols; j++) {
      const r = svgEl("rect", {x: L + C * j, y: T + C * i, width: C - 2, height: C - 2});
      cells[i].push(r);
      svg.append(r);
    }
  }
  return {
    svg,
    update(matrix) {
      const top = Math.max(1e-12, ...matrix.flat().map(Math.abs));
      const signed = matrix.flat().some((x) => x < 0);
      setText(key, scale(`${signed ? "±" : ""}${Number(top.toPrecision(2))}`));
      matrix.forEach((row, i) => row.forEach((x, j) => {
        const t = x / top;  // blue above 0, orange below
        cells[i][j].setAttribute("fill", t >= 0 ? `rgba(47,111,173,${t.toFixed(3)})` : `rgba(214,120,40,${(-t).toFixed(3)})`);
      }));
    },
  };
}

/** The options of the first prediction as the class and the events name them (views.head.PREDICTIONS[1:]) and
 * its right one (B: mostly the digit). */
const OPTIONS = ["a", "b", "c"], RIGHT = 1;
/** The comparison (d_k = 64, a head scaled and one not, side by side) and its prediction, by what the two loss
 * curves do: A the unscaled one starts far above ln 10, B both start near it and the unscaled one falls but
 * slower, C the unscaled one stays flat, D it falls faster at first (views.head.COMPARE_*, the oracle's). */
export const COMPARE_D_K = 64, COMPARE_FIRST = 20, COMPARE_ABOVE = 0.5, COMPARE_LEARNED = 0.5, COMPARE_FLAT = 0.9,
  COMPARE_FASTER = 0.9, COMPARE_SLOWER = 1.5;
const COMPARE_OPTIONS = ["a", "b", "c", "d"];
/** Which option a pair of runs bears out, 0 (A) to 3 (D), or null for neither: the twin of
 * views.head.compare_outcome (its docstring says the order of the checks). */
export function compareOutcome(scaled, unscaled) {
  const sLast = windowMean(scaled, COMPARE_STEPS, COMPARE_WINDOW), uLast = windowMean(unscaled, COMPARE_STEPS, COMPARE_WINDOW);
  if (!scaledLearned(scaled)) return null;
  if (unscaled[0] > Math.log(10) + COMPARE_ABOVE) return 0;
  if (uLast > COMPARE_FLAT * unscaled[0]) return 2;
  if (uLast >= COMPARE_SLOWER * sLast) return 1;
  const early = (losses) => windowMean(losses, COMPARE_FIRST, COMPARE_FIRST);
  if (early(unscaled) < COMPARE_FASTER * early(scaled)) return 3;
  return null;
}
/** Whether the comparison's scaled head has learned in its steps (else the run tells no option apart). */
const scaledLearned = (scaled) => windowMean(scaled, COMPARE_STEPS, COMPARE_WINDOW) <= COMPARE_LEARNED * scaled[0];

/** Steps a frame may train: as many as fit in this many milliseconds (a key is never kept waiting longer). */
export const FRAME_BUDGET_MS = 12;
/** And, up to the first rest (REST_AT), at most this many: the 300 steps of a first play take about 2.5 s at
 * 60 frames a second, slow enough to watch the query's weights find the matching pair (around step 40 to
 * 60), not a blink. Trained on past the rest, a frame takes as many as its budget allows. */
export const STEPS_PER_FRAME = 2;
/** While it plays, the head's insides are drawn at most this often (the curves and the readout every frame). */
const INSIDE_EVERY_MS = 100;
/** Whether a key press or a click waits for this frame's training (Chromium's `isInputPending`; elsewhere
 * never, and the budget alone bounds the wait): training stops early so that the input is handled at once. */
const inputWaits = globalThis.navigator?.scheduling?.isInputPending
  ? () => navigator.scheduling.isInputPending() : () => false;
/** Steps the comparison trains each head, and how many of its last batches' losses it averages (one batch's
 * loss is noisy): the figures of benchmarks/head.py. */
export const COMPARE_STEPS = 100, COMPARE_WINDOW = 5;
/** The mean of `losses` over the steps `last - n + 1` ... `last` (1-based). */
export function windowMean(losses, last, n) {
  return losses.slice(last - n, last).reduce((a, x) => a + x, 0) / n;
}
/** While training plays: said to a screen reader at most this often (a rest is said at once). */
const SAY_EVERY_MS = 5000;
/** How long after the last drawing at rest the screen reader's tables are written. */
const TABLES_AFTER_MS = 300;
/** The training record's table: a row every this many steps (and the last step). */
const HISTORY_EVERY = 25;
/** The examples whose weights the page follows while the head trains (fixed: the same three all along). */
const WATCHED = makeBatch(2024, 1, 3);

/**
 * The level of the module's own headings: one below the last heading before `node` in its page (across
 * its shadow root's host, if any): h2 under a page's h1, h3 in the textbook's h2 section; h3 when `node`
 * is in no page yet (a notebook places it later).
 */
function subheadingLevel(node) {
  const rootNode = node.getRootNode();
  const anchor = rootNode.host || node;
  if (!anchor.isConnected) return 3;
  let level = 1;
  for (const h of anchor.ownerDocument.querySelectorAll("h1, h2, h3, h4, h5, h6")) {
    if (h.compareDocumentPosition(anchor) & Node.DOCUMENT_POSITION_FOLLOWING) level = Number(h.tagName[1]);
  }
  return Math.min(6, level + 1);
}

/**
 * A question and its options A, B, C as a group of toggle buttons (`aria-pressed`), like every other
 * explorable's prediction: a `div` of class `cls` holding the question in bold and the group named by it.
 * `onPick(i)` when option `i` is pressed; returns [the div, mark(i): the pressed option shown].
 */
function choice(cls, questionKey, keys, chosen, onPick, t) {
  const box = el("div", {class: `ae-head-choice ${cls}`});
  const question = el("p", {class: "ae-head-question"});
  const bold = el("b");
  bold.append(...subscripted(t(questionKey)));  // (W_V as W with V below, as the page writes it)
  question.append(bold);
  const group = el("div", {class: "ae-head-options", role: "group", "aria-label": question.textContent});
  const buttons = keys.map((key, i) => {
    const button = el("button", {type: "button", "aria-pressed": "false"});
    button.append(`${"ABCD"[i]}. `, ...subscripted(t(key)));
    return button;
  });
  const mark = (i) => buttons.forEach((b, j) => b.setAttribute("aria-pressed", String(j === i)));
  buttons.forEach((b, i) => b.addEventListener("click", () => { mark(i); onPick(i); }));
  group.append(...buttons);
  box.append(question, group);
  mark(chosen);
  return [box, mark, buttons];
}

function render({model, el: root}) {
  const S = model.get("strings") || {};
  const t = (key, values) => fill(S[key] || key, values || {});
  const style = el("style", {}, CSS);
  const box = el("div", {class: "ae-head", lang: model.get("lang") || ""});
  // The student's activity, told to the host (web/host.js makes it the page's events): each answer once.
  const tell = (message) => { if (typeof model.send === "function") model.send(message); };
  const told = new Set();
  const sub = `h${subheadingLevel(root)}`;
  root.replaceChildren(style, box);

  // --- predict first -------------------------------------------------------------------------------
  const [predict, markPrediction, predictButtons] = choice("ae-head-prediction", "head_predict_question",
    ["head_predict_a", "head_predict_b", "head_predict_c"], model.get("prediction"), (i) => {
      model.set("prediction", i);
      model.save_changes();
      tell({event: "prediction", question: "weights", prediction: OPTIONS[i]});
    }, t);
  const verdict = el("p", {class: "ae-head-verdict ae-answer", role: "status"});
  predict.append(verdict);

  // --- the controls --------------------------------------------------------------------------------
  const controls = el("div", {class: "ae-row"});
  const train = el("button", {type: "button", class: "ae-head-train ae-primary"}, t("head_train"));
  const step = el("button", {type: "button", class: "ae-head-step-button"}, t("head_step"));
  const reset = el("button", {type: "button", class: "ae-head-reset"}, t("head_reset"));
  const skip = el("button", {type: "button", class: "ae-head-skip"}, t("head_skip"));
  controls.append(train, step, reset, skip);
  const readout = el("p", {class: "ae-readout ae-head-readout", "aria-live": "off"});

  const settings = el("div", {class: "ae-row ae-head-settings"});
  // Each setting: its slider and a box to type its value in (as on the other explorables), a typed value
  // put on the slider's grid within its bounds, junk answered with the value kept.
  const slider = (name, lo, hi, stepBy) => {
    const label = el("label", {}, t(`head_${name}`));
    const input = el("input", {type: "range", min: lo, max: hi, step: stepBy, value: model.get(name), class: `ae-head-${name}`});
    const shown = el("input", {type: "text", inputmode: "decimal", autocomplete: "off", spellcheck: "false",
                               class: `ae-head-box ae-head-${name}-box`, "aria-label": t(`head_${name}`),
                               value: String(model.get(name))});
    const decimals = String(stepBy).split(".")[1]?.length || 0;
    const set = (value) => {
      if (value === model.get(name)) return;
      model.set(name, value);
      model.save_changes();
    };
    input.addEventListener("input", () => {
      shown.value = input.value;
      set(Number(input.value));
    });
    const commit = () => {
      const typed = Number(shown.value.trim().replace(/^[−–]/, "-").replace(/,/, "."));
      if (shown.value.trim() === "" || !Number.isFinite(typed)) {
        shown.value = String(model.get(name));
        return;
      }
      const value = Number((Math.round(Math.min(hi, Math.max(lo, typed)) / stepBy) * stepBy).toFixed(decimals));
      shown.value = input.value = String(value);
      set(value);
    };
    shown.addEventListener("change", commit);
    shown.addEventListener("keydown", (event) => { if (event.key === "Enter") commit(); });
    label.append(input);
    const setting = el("div", {class: "ae-head-setting"});
    setting.append(label, shown);
    settings.append(setting);
    return [input, shown];
  };
  const [dK, dKShown] = slider("d_k", 2, 64, 1);
  const [lr, lrShown] = slider("learning_rate", 0.001, 0.05, 0.001);
  const [seed, seedShown] = slider("seed", 0, 9999, 1);
  const scaledLabel = el("label", {}, "");
  const scaled = el("input", {type: "checkbox", class: "ae-head-scaled"});
  scaled.checked = Boolean(model.get("scaled"));
  scaled.addEventListener("change", () => { model.set("scaled", scaled.checked); model.save_changes(); });
  scaledLabel.append(scaled, document.createTextNode(t("head_scaled")));
  settings.append(scaledLabel);
  // Why d_k and the switch are greyed: they would answer the comparison's question (said, not left to guess).
  const settingsWait = el("p", {class: "ae-note ae-head-settings-wait"});
  settingsWait.append(...subscripted(t("head_settings_wait")));

  // --- what it learns ------------------------------------------------------------------------------
  const curves = curvePlot(t("head_loss_title"), 300);
  const accuracyCurve = curvePlot(t("head_accuracy_title"), 300, true);
  const history = dataTable(t("head_history_title"), [t("head_history_step"), t("head_history_loss"), t("head_history_accuracy")]);
  const grid = el("div", {class: "ae-grid"});
  const left = el("div"), right = el("div");
  const watched = [0, 1, 2].map((b) => weightBars(t("head_weights_title", {example: lookupText(WATCHED, b)})));
  const watchedLines = [0, 1, 2].map(() => el("div", {class: "ae-row"}));
  left.append(el(sub, {}, t("head_weights_heading")));
  watched.forEach((w, b) => { watchedLines[b].append(el("code", {}, lookupText(WATCHED, b)), w.svg); left.append(watchedLines[b]); });
  // A text of the strings as an element, W_Q written with its subscript.
  const written = (tag, key, attrs = {}) => { const e = el(tag, attrs); e.append(...subscripted(t(key))); return e; };
  const note = (key) => written("p", key, {class: "ae-note"});
  const scale = (x) => t("head_scale", {x});
  const table = heatmap(t("head_table_title"), N_LETTERS, N_LETTERS, [...LETTERS], [...LETTERS], scale);
  const reads = heatmap(t("head_reads_title"), 1, D_IN, [""], [...LETTERS, ..."0123456789"], scale);
  right.append(el(sub, {}, t("head_table_heading")), note("head_table_note"), table.svg,
               written(sub, "head_reads_heading"), note("head_reads_note"), reads.svg);
  // What the plots show, for a screen reader: tables rewritten whenever training rests (not every frame).
  const watchedData = dataTable(t("head_weights_heading"), ["", "1", "2", "3", "4"]);
  const tableData = dataTable(t("head_table_title"), ["", ...LETTERS]);
  const readsData = dataTable(t("head_reads_title"), ["", ...LETTERS, ..."0123456789"]);
  left.append(watchedData.table);
  right.insertBefore(tableData.table, table.svg.nextSibling);
  right.append(readsData.table);
  right.append(history.table);
  grid.append(left, right);
  const live = el("p", {class: "ae-sr ae-head-live", role: "status", "aria-live": "polite"});

  // --- your own lookup -----------------------------------------------------------------------------
  const own = el("div", {class: "ae-row"});
  const ownLabel = el("label", {}, t("head_lookup_label"));
  const ownBox = el("input", {type: "text", class: "ae-head-lookup", value: model.get("own_lookup") || "C7 A2 D5 B9 | A",
                              autocomplete: "off", spellcheck: "false"});
  ownLabel.append(ownBox);
  const ownBars = weightBars(t("head_lookup_title"));
  const ownAnswer = el("p", {class: "ae-head-lookup-answer ae-answer", role: "status"});
  own.append(ownLabel, ownBars.svg);
  ownBox.addEventListener("input", () => { model.set("own_lookup", ownBox.value); model.save_changes(); drawOwn(); });

  // --- the comparison ------------------------------------------------------------------------------
  const [compare, , compareOptions] = choice("ae-head-compare", "head_compare_question", COMPARE_OPTIONS.map((o) => `head_compare_${o}`),
    model.get("compare_prediction"), (i) => {
      model.set("compare_prediction", i);
      model.save_changes();
      tell({event: "prediction", question: "compare", prediction: COMPARE_OPTIONS[i]});
      if (!comparing || comparing.done) compareRun.disabled = false;
      compareFirst.hidden = true;
      drawState();
    }, t);
  // Predict first here too: the run waits for a choice.
  const compareFirst = el("p", {class: "ae-note ae-head-compare-first"}, t("head_compare_first"));
  const compareRun = el("button", {type: "button", class: "ae-head-compare-run ae-primary"}, t("head_compare_run"));
  const compareCurves = curvePlot(t("head_compare_title"), COMPARE_STEPS, false,
                                  [[t("head_compare_scaled"), "#2f6fad"], [t("head_compare_unscaled"), "#d67828"]]);
  compareCurves.figure.hidden = true;
  const compareSays = el("p", {class: "ae-head-compare-result ae-answer", role: "status"});
  // Once a run has answered it: the option it bears out is marked, and the prediction is kept.
  const compareMark = el("span", {class: "ae-head-right-mark"}, t("head_right_mark"));
  compareRun.disabled = !Number.isInteger(model.get("compare_prediction"));
  compareFirst.hidden = !compareRun.disabled;
  compare.append(compareFirst, compareRun, compareCurves.figure, compareSays);

  // The weights, the score table and what W_V reads answer the prediction: shown once it is made (or skipped)
  // and the head has trained a step, when the prediction can no longer be changed.
  const after = el("div", {class: "ae-head-after"});
  after.append(grid, el(sub, {}, t("head_lookup_heading")), own, ownAnswer);
  const growing = el("div", {class: "ae-grid ae-head-curves"});  // the loss and the accuracy side by side, when they fit
  growing.append(curves.figure, accuracyCurve.figure);
  box.append(written("p", "head_intro"), predict, controls, readout, live, settings, settingsWait, growing, after,
             compare);

  // --- the run -------------------------------------------------------------------------------------
  let run = null, atStart = null, playing = false, frame = 0, comparing = null, saidAt = 0, rest = MAX_STEPS, tablesLater = 0, insideAt = 0;
  let started = false;  // the head has trained (a step or more) since the page opened: the prediction is kept
  const insideLater = {frame: 0, timer: 0};
  // Reduced motion: the same training and numbers (the readout), but the plots stand still while it plays
  // and are drawn when it rests (a step, a pause, the end).
  const still = typeof matchMedia === "function" && matchMedia("(prefers-reduced-motion: reduce)").matches;
  const settingsNow = () => ({seed: model.get("seed"), d_k: model.get("d_k"), learning_rate: model.get("learning_rate"),
                              scaled: Boolean(model.get("scaled"))});
  const predicted = () => Number.isInteger(model.get("prediction")) || model.get("skipped") === true;

  function drawOwn() {
    const batch = parseLookup(ownBox.value);
    ownBars.svg.style.visibility = batch.error ? "hidden" : "";  // no bars of a lookup no longer typed
    if (batch.error) {
      setText(ownAnswer, t(batch.error));
      return;
    }
    const f = forward(run.params, batch, run.scaled);
    const pairs = batch.keys[0].map((k, p) => LETTERS[k] + batch.values[0][p]);
    ownBars.update(f.weights[0], pairs, batch.asked[0]);
    const probs = f.probs[0];
    let best = 0;
    for (let c = 1; c < N_DIGITS; c++) if (probs[c] > probs[best]) best = c;
    setText(ownAnswer, t("head_lookup_answer", {digit: best, p: (100 * probs[best]).toFixed(1)}));
  }

  function drawReadout() {
    const last = run.losses.length;
    const loss = last ? run.losses[last - 1] : NaN, acc = last ? run.accuracies[last - 1] : NaN;
    setText(readout, last
      ? t("head_readout", {step: run.t, loss: loss.toFixed(3), accuracy: (100 * acc).toFixed(0)})
      : t(predicted() ? "head_readout_start" : "head_readout_first"));
  }

  function drawTables(f, scores, valueRead) {
    const last = run.losses.length;
    const shown = (x) => formatNumber(x, DECIMALS, false);  // a table: three decimals, its text (no markup)
    // each weight with the same weight before training beside it, as the bars' dashed lines show it
    watchedData.update([0, 1, 2].map((b) => [lookupText(WATCHED, b),
      ...Array.from(f.weights[b], (w, p) => `${shown(w)} (${t("head_weights_before", {w: shown(atStart[b][p])})})`)]));
    tableData.update(scores.map((row, i) => [LETTERS[i], ...Array.from(row, shown)]));
    readsData.update([["", ...Array.from(valueRead, shown)]]);
    const rows = [];
    for (let i = 1; i <= last; i++) {
      if (i === 1 || i % HISTORY_EVERY === 0 || i === last) {
        rows.push([String(i), run.losses[i - 1].toFixed(3), (100 * run.accuracies[i - 1]).toFixed(0)]);
      }
    }
    history.update(rows);
  }

  /** Everything shown; while it plays, the views of the head's insides (the watched weights, the score and
   * W_V tables, the own lookup) only every INSIDE_EVERY_MS, so that a frame is short and a key waits less. */
  function draw(inside = !playing || performance.now() - insideAt >= INSIDE_EVERY_MS) {
    started ||= predicted() && run.t > 0;
    drawReadout();
    curves.update({loss: {values: run.losses, color: "#2f6fad"}}, t("head_steps_axis", {steps: run.t}));
    accuracyCurve.update({accuracy: {values: run.accuracies, color: "#2f6fad"}}, t("head_steps_axis", {steps: run.t}));
    if (inside) drawInside();
    drawState();
  }

  /** The insides drawn right after the next frame is painted (a key's answer first, then the rest). */
  function drawInsideAfterPaint() {
    cancelAnimationFrame(insideLater.frame);
    clearTimeout(insideLater.timer);
    insideLater.frame = requestAnimationFrame(() => { insideLater.timer = setTimeout(drawInside, 0); });
  }

  function drawInside() {
    if (!started) return;  // hidden until the head has trained a step: nothing to draw (a cheaper first paint)
    insideAt = performance.now();
    const f = forward(run.params, WATCHED, run.scaled);
    watched.forEach((w, b) => w.update(f.weights[b], WATCHED.keys[b].map((k, p) => LETTERS[k] + WATCHED.values[b][p]), WATCHED.asked[b],
                                       atStart[b]));
    const scores = matchTable(run.params, run.scaled), valueRead = valueReads(run.params);
    table.update(scores);
    reads.update([valueRead]);
    // The tables a screen reader reads are written once training rests and the page is still (not in the
    // frame a key or a step paints): their rows are many new elements to lay out.
    clearTimeout(tablesLater);
    if (!playing) tablesLater = setTimeout(() => drawTables(f, scores, valueRead), TABLES_AFTER_MS);
    drawOwn();
  }

  function drawState() {
    const last = run.losses.length;
    const ready = predicted();
    train.disabled = step.disabled = !ready;
    // The comparison asks what d_k = 64 without the scaling does: d_k and the switch wait for its answer.
    dK.disabled = dKShown.disabled = scaled.disabled = !Number.isInteger(model.get("compare_prediction"));
    settingsWait.hidden = !dK.disabled;
    skip.hidden = ready;
    after.hidden = !started;
    for (const b of predictButtons) b.disabled = started;  // (what W_V reads, its answer, is on screen from then on)
    setText(train, t(playing ? "head_pause" : "head_train"));
    // The answer to the prediction once the head has learned (or the student skipped and trained).
    const learned = last >= 20 && run.accuracies.slice(-20).reduce((a, x) => a + x, 0) / 20 > 0.95;
    if (learned && Number.isInteger(model.get("prediction"))) {
      setSubscripted(verdict, t(model.get("prediction") === RIGHT ? "head_predict_right" : "head_predict_wrong"));
    } else setSubscripted(verdict, learned ? t("head_predict_answer") : "");
    if (learned && !told.has("weights")) {  // the answer to the first prediction is on screen
      told.add("weights");
      const said = model.get("prediction");
      tell({event: "checked", question: "weights", prediction: Number.isInteger(said) ? OPTIONS[said] : null,
            skipped: !Number.isInteger(said), right: Number.isInteger(said) ? said === RIGHT : null, steps: run.t});
      tell({event: "completed"});
    }
  }

  // Said once training rests (a step, a pause, the end, a new run), never every frame.
  const say = () => { live.textContent = readout.textContent + (verdict.textContent ? ` ${verdict.textContent}` : ""); };

  /** A new run from step 0: drawn at once when the explorable mounts; after a key or a click, its readout and
   * curves in the frame that answers it and the insides right after. */
  function restart(announce = true) {
    playing = false;
    cancelAnimationFrame(frame);
    run = startRun(settingsNow());
    atStart = forward(run.params, WATCHED, run.scaled).weights;  // the watched weights before training
    if (announce) {
      draw(false);
      drawInsideAfterPaint();
      say();
    } else draw();
  }

  function tick() {
    const until = performance.now() + FRAME_BUDGET_MS;
    const most = run.t < REST_AT ? STEPS_PER_FRAME : Infinity;
    let steps = 0;
    do { stepRun(run); steps += 1; } while (steps < most && performance.now() < until && run.t < rest && !inputWaits());
    if (still) drawReadout();
    else draw();
    if (playing && run.t < rest) {
      frame = requestAnimationFrame(tick);
      // While it plays, a screen reader hears the loss now and then, not every frame.
      if (performance.now() - saidAt >= SAY_EVERY_MS) { saidAt = performance.now(); live.textContent = readout.textContent; }
    } else { playing = false; draw(); say(); }
  }

  train.addEventListener("click", () => {
    playing = !playing;
    rest = nextRest(run.t);  // a first play rests at the text's 300 steps; pressed again, it trains on
    saidAt = performance.now();
    if (playing) frame = requestAnimationFrame(tick);
    else cancelAnimationFrame(frame);
    draw();
    if (!playing) say();
  });
  step.addEventListener("click", () => { playing = false; cancelAnimationFrame(frame); stepRun(run); draw(); say(); });
  reset.addEventListener("click", restart);
  skip.addEventListener("click", () => { model.set("skipped", true); model.save_changes(); draw(); });

  function compareTick() {
    const until = performance.now() + FRAME_BUDGET_MS;
    do { stepRun(comparing.scaled); stepRun(comparing.unscaled); }
    while (performance.now() < until && comparing.scaled.t < COMPARE_STEPS && !inputWaits());
    const done = comparing.scaled.t >= COMPARE_STEPS;
    if (!still || done) {
      compareCurves.update({scaled: {values: comparing.scaled.losses, color: "#2f6fad"},
                            unscaled: {values: comparing.unscaled.losses, color: "#d67828"}},
                           t("head_compare_axis", {steps: comparing.scaled.t}));
    }
    if (!done) { comparing.frame = requestAnimationFrame(compareTick); return; }
    const sl = comparing.scaled.losses, ul = comparing.unscaled.losses;
    const a = windowMean(sl, COMPARE_STEPS, COMPARE_WINDOW), b = windowMean(ul, COMPARE_STEPS, COMPARE_WINDOW);
    const said = model.get("compare_prediction"), right = compareOutcome(sl, ul);
    const verdict = right === null
      ? t(scaledLearned(sl) ? "head_compare_none_close" : "head_compare_none_slow")
      : t(said === right ? "head_compare_right" : "head_compare_wrong", {option: "ABCD"[right]});
    setSubscripted(compareSays, t("head_compare_says", {
      scaled_first: sl[0].toFixed(3), unscaled_first: ul[0].toFixed(3), first: COMPARE_STEPS - COMPARE_WINDOW + 1,
      last: COMPARE_STEPS, scaled: a.toPrecision(3), unscaled: b.toPrecision(3), ratio: (b / a).toFixed(1)}) +
      ` ${verdict}` + (right === 1 ? ` ${t("head_compare_why")}` : ""));  // (W_V as W with V below)
    for (const option of compareOptions) option.disabled = true;
    if (right === null) compareMark.remove();
    else compareOptions[right].append(compareMark);
    comparing.done = true;
    compareRun.disabled = false;
    tell({event: "checked", question: "compare", prediction: Number.isInteger(said) ? COMPARE_OPTIONS[said] : null,
          right: Number.isInteger(said) && right !== null ? said === right : null, scaled: a, unscaled: b});
  }
  compareRun.addEventListener("click", () => {
    if (comparing) cancelAnimationFrame(comparing.frame);
    const base = {seed: model.get("seed"), d_k: COMPARE_D_K, learning_rate: model.get("learning_rate")};
    comparing = {scaled: startRun({...base, scaled: true}), unscaled: startRun({...base, scaled: false}), frame: 0};
    compareCurves.figure.hidden = false;
    compareRun.disabled = true;
    setSubscripted(compareSays, t("head_compare_running"));
    comparing.frame = requestAnimationFrame(compareTick);
  });

  // A setting changed (here or by the host): a new run from step 0.
  const onSetting = () => {
    dK.value = dKShown.value = model.get("d_k");
    lr.value = lrShown.value = model.get("learning_rate");
    seed.value = seedShown.value = model.get("seed");
    scaled.checked = Boolean(model.get("scaled"));
    restart();
  };
  const names = ["d_k", "learning_rate", "seed", "scaled"];
  for (const name of names) model.on(`change:${name}`, onSetting);
  const onPrediction = () => { markPrediction(model.get("prediction")); draw(); };
  model.on("change:prediction", onPrediction);
  model.on("change:skipped", onPrediction);
  restart(false);
  return () => {
    cancelAnimationFrame(frame);
    cancelAnimationFrame(insideLater.frame);
    clearTimeout(insideLater.timer);
    clearTimeout(tablesLater);
    if (comparing) cancelAnimationFrame(comparing.frame);
    for (const name of names) model.off(`change:${name}`, onSetting);
    model.off("change:prediction", onPrediction);
    model.off("change:skipped", onPrediction);
  };
}

export default {render};
