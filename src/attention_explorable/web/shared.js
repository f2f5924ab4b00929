// Pieces every explorable's view shares: number formats that round exactly
// as Python's `format` does, the
// answer parser of `views/numbers.py`, and the few lines that write a view
// into Bokeh models. Twin of attention_explorable/views/numbers.py.

// The decimal expansion of |x| as digits and the position of the decimal
// point: |x| = 0.d1d2d3... * 10^point. Exact for every double from 1e-4 up
// (below 1e21 a double of 1e-4 or more has at most 66 decimals; from 1e21 on
// it is an integer); below 1e-4, 41 correctly rounded significant digits,
// which suffice there because no number that small lies exactly halfway
// between two 2- or 6-digit roundings.
function decimal(ax) {
  if (ax === 0) return {digits: "", point: 0};
  if (ax < 1e-4) {
    const [m, e] = ax.toExponential(40).split("e");
    return {digits: m.replace(".", ""), point: Number(e) + 1};
  }
  const s = ax >= 1e21 ? BigInt(ax).toString() : ax.toFixed(100);
  const [ip, fp = ""] = s.split(".");
  const digits = ip + fp;
  const lead = digits.search(/[1-9]/);
  return {digits: digits.slice(lead), point: ip.length - lead};
}

// The first p digits, rounded half to even on the exact tail; one digit
// longer than p when the rounding carries.
function roundDigits(digits, p) {
  const kept = [];
  for (let i = 0; i < p; i++) kept.push(i < digits.length ? Number(digits[i]) : 0);
  const next = p < digits.length ? digits[p] : "0";
  let up = next > "5";
  if (next === "5") {
    const tail = /[1-9]/.test(digits.slice(p + 1));
    up = tail || (p > 0 && kept[p - 1] % 2 === 1);
  }
  if (up) {
    let i = kept.length - 1;
    while (i >= 0 && kept[i] === 9) { kept[i] = 0; i--; }
    if (i < 0) kept.unshift(1); else kept[i] += 1;
  }
  return kept;
}

const isNegative = (x) => x < 0 || Object.is(x, -0);

/** Python's format(x, `.${decimals}f`) for a finite x. */
export function formatFixed(x, decimals) {
  // toFixed rounds the exact value of x as Python does, except where it lies exactly halfway
  // (toFixed rounds away from zero, Python to even): such an x has its next digit exactly 5,
  // so only an x whose next digit rounds to 5 (and a zero's sign, an x past 1e21 or with more
  // than 100 decimals asked) takes the exact path below.
  const ax = Math.abs(x);
  if (ax < 1e21 && x !== 0 && decimals < 100 && !ax.toFixed(decimals + 1).endsWith("5")) {
    return x.toFixed(decimals);
  }
  const d = decimal(ax);
  const p = d.point + decimals;
  const kept = p < 0 ? [] : roundDigits(d.digits, p);
  const intLen = kept.length - decimals;
  const ip = intLen > 0 ? kept.slice(0, intLen).join("") : "0";
  const fp = (intLen >= 0 ? kept.slice(intLen) : Array(-intLen).fill(0).concat(kept))
    .join("").padStart(decimals, "0");
  return (isNegative(x) ? "-" : "") + ip + (decimals > 0 ? "." + fp : "");
}

// Mantissa digits (decimals + 1 of them) and decimal exponent of format(x, `.${decimals}e`).
function scientific(x, decimals) {
  const d = decimal(Math.abs(x));
  if (!d.digits) return {digits: Array(decimals + 1).fill(0), exp: 0};
  let kept = roundDigits(d.digits, decimals + 1);
  let exp = d.point - 1;
  if (kept.length > decimals + 1) { kept = kept.slice(0, decimals + 1); exp += 1; }
  return {digits: kept, exp};
}

/** The decimals of a score, weight, output or loss read as a number (views.numbers.DECIMALS). */
export const DECIMALS = 3;
/** The minus sign of every number shown (U+2212), not the hyphen (views.numbers.MINUS). */
export const MINUS = "\u2212";

/** Python's format(x, "g") with a true minus: six significant digits, trailing zeros dropped. */
export function formatG(x) {
  if (Number.isNaN(x)) return "nan";
  if (!Number.isFinite(x)) return x > 0 ? "inf" : MINUS + "inf";
  const sign = isNegative(x) ? MINUS : "";
  if (x === 0) return sign + "0";
  const {digits, exp} = scientific(x, 5);
  if (exp >= -4 && exp < 6) {
    let s = formatFixed(Math.abs(x), 5 - exp);
    if (s.includes(".")) s = s.replace(/0+$/, "").replace(/\.$/, "");
    return sign + s;
  }
  const m = (digits[0] + "." + digits.slice(1).join("")).replace(/0+$/, "").replace(/\.$/, "");
  const e = Math.abs(exp);
  return sign + m + "e" + (exp < 0 ? "-" : "+") + (e < 10 ? "0" + e : String(e));
}

const SUPERSCRIPT = {"0": "⁰", "1": "¹", "2": "²", "3": "³", "4": "⁴", "5": "⁵", "6": "⁶", "7": "⁷", "8": "⁸", "9": "⁹",
  "-": "⁻"};
/** An integer's text in superscript characters (a power of ten on a figure's label, where no <sup> goes). */
export const superscript = (s) => Array.from(s, (c) => SUPERSCRIPT[c]).join("");

/**
 * A readout number (views.numbers.format_number): `digits` decimals,
 * scientific when tiny or huge (a power of ten as `×10<sup>e</sup>`, or with `html` false, for a figure's
 * label, in superscript characters: `×10⁻⁴⁴`); NaN, ∞, −∞ as such.
 */
export function formatNumber(x, digits = DECIMALS, html = true) {
  if (Number.isNaN(x)) return "NaN";
  if (!Number.isFinite(x)) return x > 0 ? "∞" : "−∞";
  if (Math.abs(x) >= 1e6 || (x !== 0 && Math.abs(x) < Number("5e-" + (digits + 1)))) {
    const {digits: m, exp} = scientific(x, 1);
    const mantissa = (isNegative(x) ? MINUS : "") + m[0] + "." + m[1];
    return html ? mantissa + "×10<sup>" + String(exp).replace("-", MINUS) + "</sup>" : mantissa + "×10" + superscript(String(exp));
  }
  const s = formatFixed(x, digits);
  if (!s.startsWith("-")) return s;
  return Number(s) === 0 ? "0." + "0".repeat(digits) : MINUS + s.slice(1);
}

const FULL_WIDTH = {"０": "0", "１": "1", "２": "2", "３": "3", "４": "4", "５": "5", "６": "6",
  "７": "7", "８": "8", "９": "9", "．": ".", "。": ".", "｡": ".", "，": ",", "－": "-", "＋": "+", "／": "/", "　": " "};
const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
// views.numbers._THOUSANDS: "16,777,216" and "1,000" are thousands; "0,212" and "1,5" decimals.
const THOUSANDS = /^[+-]?[1-9]\d{0,2}(,\d{3})+(\.\d+)?$/;
// views.numbers._SPACED, _SUPERSCRIPTS, _SCIENTIFIC: "16 777 216", "10²", "1.28×10^2".
const SPACED = /^[+-]?[1-9]\d{0,2}([ \u00a0\u2009\u202f]\d{3})+(\.\d+)?$/;
const SUPERSCRIPTS = /[⁺⁻]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+$/;
const FROM_SUPERSCRIPT = {"⁰": "0", "¹": "1", "²": "2", "³": "3", "⁴": "4", "⁵": "5", "⁶": "6", "⁷": "7", "⁸": "8",
  "⁹": "9", "⁺": "+", "⁻": "-"};
const SCIENTIFIC = /^(.*[0-9.]) *[×xX*·] *10 *\^ *([+-]?[0-9]+)$/;
// The characters Python's str.strip() removes (str.isspace), which are not
// those of JavaScript's \s or trim(): no U+FEFF, but U+001C-U+001F and U+0085.
const PY_SPACE = "\\t\\n\\v\\f\\r\\u001c-\\u0020\\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
const PY_STRIP = new RegExp(`^[${PY_SPACE}]+|[${PY_SPACE}]+$`, "g");

/** Python's str.strip() with no argument. */
export function pyStrip(s) {
  return String(s).replace(PY_STRIP, "");
}

/** `raw` as parseNumber reads it before parsing (views.numbers.normalized_number). */
export function normalizedNumber(raw) {
  let s = Array.from(String(raw), (c) => FULL_WIDTH[c] ?? c).join("");
  s = pyStrip(s).replaceAll("，", ",").replaceAll("−", "-");
  s = s.replace(SUPERSCRIPTS, (m) => "^" + Array.from(m, (c) => FROM_SUPERSCRIPT[c]).join(""));
  if (SPACED.test(s)) s = s.replace(/[ \u00a0\u2009\u202f]/g, "");
  s = THOUSANDS.test(s) ? s.replaceAll(",", "") : s.replaceAll(",", ".");
  const m = SCIENTIFIC.exec(s);
  if (m && NUMBER.test(pyStrip(m[1])) && !/e/i.test(m[1])) return `${pyStrip(m[1])}e${m[2]}`;
  return s.replaceAll("×", "*");
}

/**
 * A typed number (views.numbers.parse_number): full-width digits, a decimal
 * comma, commas or spaces between thousands, the minus sign −, exponents (also
 * 1.28×10² and 1.28*10^2), a fraction a/b, a product a*b and a power a^b. Returns null for anything else (empty, junk, not finite, a
 * zero denominator).
 */
export function parseNumber(raw) {
  const s = normalizedNumber(raw);
  const count = (c) => s.split(c).length - 1;
  const ops = ["/", "^", "*"].filter((c) => count(c) > 0);
  const operator = ops.length === 1 && count(ops[0]) === 1 ? ops[0] : null;
  const parts = operator ? s.split(operator).map(pyStrip) : [s];
  if (!parts.every((p) => NUMBER.test(p))) return null;
  let value = Number(parts[0]);
  if (operator === "/") {
    const den = Number(parts[1]);
    if (den === 0) return null;
    value /= den;
  } else if (operator === "*") {
    value *= Number(parts[1]);
  } else if (operator === "^") {  // the sign goes with the power, as in writing: -2^2 is -4
    value = (parts[0].startsWith("-") ? -1 : 1) * Math.pow(Math.abs(value), Number(parts[1]));
  }
  return Number.isFinite(value) ? value : null;
}

/** A vector as the readouts write it, "[0.845, 0.578]" (views.numbers.format_vector). */
export function formatVector(v, digits = DECIMALS) {
  return "[" + Array.from(v, (x) => formatNumber(x, digits)).join(", ") + "]";
}

/** Each label (HTML, escaped by the caller) followed by its vector, the pairs joined by " · "; the twin of
 * views.numbers.vector_list. */
export function vectorList(labels, vectors, digits = 2) {
  return labels.map((label, j) => `<span class='ae-nobreak'>${label} ${formatVector(vectors[j], digits)}</span>`).join(" · ");
}

/** Python's html.escape(s) (quote=True). */
export function escapeHtml(s) {
  return String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;").replace(/'/g, "&#x27;");
}

/** A matrix's name as a string writes it, `W_Q`: its letter captured. */
const MATRIX_NAME = /\bW_([A-Z])\b/g;

/**
 * `html` (already escaped: it holds no markup of its own) with a matrix's name `W_Q`, `W_K`, `W_V`, `W_U`
 * written as W with a subscript (`W<sub>Q</sub>`), as the text's formulas write it.
 */
export function subscriptHtml(html) {
  return String(html).replace(MATRIX_NAME, "W<sub>$1</sub>");
}

/** `text` as DOM nodes, each `W_Q` (see `subscriptHtml`) a text node "W" and a `<sub>`; nothing read as HTML. */
export function subscripted(text) {
  return String(text).split(MATRIX_NAME).flatMap((part, i) => {
    if (i % 2 === 0) return part ? [document.createTextNode(part)] : [];
    const sub = document.createElement("sub");
    sub.textContent = part;
    return [document.createTextNode("W"), sub];
  });
}

/** str.format-like: fill `{name}` fields of `template` from `fields`. */
export function fill(template, fields) {
  return template.replace(/\{(\w+)\}/g, (whole, key) => (key in fields ? String(fields[key]) : whole));
}

/**
 * The form of `key` for the count `n` in the language `lang` (a BCP 47 tag): `KEY_<category>` where
 * `strings` has it, the category being the CLDR one of `Intl.PluralRules` ("1 prediction"), else `KEY`.
 * The Python side (strings.plural_category) gives the same category; a mirror test holds them together.
 */
export function countText(strings, key, n, lang) {
  const form = `${key}_${new Intl.PluralRules(lang).select(n)}`;
  return form in strings ? strings[form] : strings[key];
}

function sameColumns(have, want) {
  const keys = Object.keys(want);
  if (Object.keys(have).length !== keys.length) return false;
  for (const k of keys) {
    const a = have[k], b = want[k];
    if (!a || a.length !== b.length) return false;
    for (let i = 0; i < b.length; i++) if (a[i] !== b[i] && !Object.is(a[i], b[i])) return false;
  }
  return true;
}

/**
 * Write a view ({sources, ranges, html, props}) into the page's Bokeh models,
 * only what changed. `models` maps the view's names to models: sources to
 * ColumnDataSources, ranges to Range1d, html names to Panel HTML models
 * (whose text is escaped HTML), props names to any model.
 */
export function writeView(models, view) {
  for (const [name, data] of Object.entries(view.sources || {})) {
    const source = models[name];
    if (!sameColumns(source.data, data)) source.data = data;
  }
  for (const [name, [start, end]] of Object.entries(view.ranges || {})) {
    const range = models[name];
    if (range.start !== start || range.end !== end) range.setv({start, end});
  }
  for (const [name, html] of Object.entries(view.html || {})) {
    const text = escapeHtml(html);
    if (models[name].text !== text) models[name].text = text;
  }
  for (const [name, props] of Object.entries(view.props || {})) {
    const model = models[name];
    const changed = {};
    for (const [key, value] of Object.entries(props)) {
      const now = model[key];
      const same = Array.isArray(value) ? sameColumns({v: now || []}, {v: value}) : now === value;
      if (!same) changed[key] = value;
    }
    if (Object.keys(changed).length) model.setv(changed);
  }
}

/** The explorable's state as a plain object: the named properties of the state model. */
export function readState(stateModel, names) {
  const out = {};
  for (const name of names) out[name] = stateModel[name];
  return out;
}

/** `raw` stripped as Python does, cut to `limit` code points with "…" (a long echo stays short). */
export function echo(raw, limit = 40) {
  const chars = Array.from(pyStrip(raw));
  return chars.length <= limit ? chars.join("") : chars.slice(0, limit).join("") + "…";
}

/** A slider's value as a screen reader is told it (Bokeh's slider's format "0[.]00"): 2, 0.50. */
export const valueText = (v) => (Number.isInteger(v) ? String(v) : v.toFixed(2));

/** The decimals of a slider's grid `step` (0.01 → 2, 0.5 → 1; views.numbers.step_decimals). */
export function stepDecimals(step) {
  return Math.max(0, -Math.floor(Math.log10(step) + 1e-9));
}

/** A slider's value on its own grid: 1.8, not 1.8000000000000007 (`step` 0.1). */
export function onGrid(value, step) {
  return Number(value.toFixed(stepDecimals(step)));
}

/**
 * What the text `raw` typed into a slider's box sets: null for junk or an empty box; else the number,
 * clamped to [lo, hi] and put on the slider's grid by `toGrid`, and `notice` (markup), which says it was
 * clamped (`message`, a template with name, raw, lo, hi and value; `label` names the slider), or "".
 * @returns {{value: number, notice: string} | null}
 */
export function typedValue(raw, {lo, hi, toGrid, message, label}) {
  const parsed = parseNumber(raw);
  if (parsed === null) return null;
  const clamped = Math.min(Math.max(parsed, lo), hi);
  const value = toGrid(clamped);
  const notice = clamped === parsed ? "" : fill(message, {
    name: label, raw: escapeHtml(echo(raw)), lo: formatG(lo), hi: formatG(hi), value: formatG(value)});
  return {value, notice};
}

/**
 * A number typed into the box of slider `name` (Enter or leaving the box;
 * `sliderAction` has ruled out the box's echo of the state): junk or an
 * emptied box shows the state's value again; a number outside
 * [lo, hi] is clamped and `models.notice` says so (`message`, a template with
 * name, raw, lo, hi, value); the value, put on the slider's grid by
 * `toGrid`, becomes the state.
 * @param {{lo: number, hi: number, toGrid: function(number): number, message: string, label: string}} slider
 */
export function typedNumber(state, models, name, {lo, hi, toGrid, message, label}) {
  const box = models[name + "_box"];
  const typed = typedValue(box.value, {lo, hi, toGrid, message, label});
  if (typed === null) {
    box.value = formatG(state[name]);
    return;
  }
  const {value, notice} = typed;
  models.notice.text = escapeHtml(notice);
  models.notice.visible = notice !== "";
  if (state[name] !== value) state[name] = value;
  else box.value = formatG(value);
}

/** views.numbers.data_table: a plot's data as an HTML table (cells are HTML already). */
export function dataTable(caption, header, rows) {
  const head = header.map((h) => `<th scope='col'>${h}</th>`).join("");
  const body = rows.map((row) => `<tr><th scope='row'>${row[0]}</th>` +
    row.slice(1).map((c) => `<td>${c}</td>`).join("") + "</tr>").join("");
  return `<table class='ae-data'><caption>${caption}</caption><tr>${head}</tr>${body}</table>`;
}

/**
 * The page's one value of `name`, made by `make()` the first time it is asked for.
 *
 * For the state a module keeps across calls (per model, in a WeakMap): BokehJS
 * compiles a CustomJS module each time it is called before an earlier compile
 * has finished, so two events at load (a deep link's change and the
 * document's document_ready) can give one module two instances, and state kept
 * in a module variable would be split between them (a room joined by one,
 * the buttons heard by the other). Kept here, under a global symbol, both
 * instances share it.
 * @template T
 * @param {string} name
 * @param {() => T} make
 * @returns {T}
 */
export function pageWide(name, make) {
  const key = Symbol.for("attention-explorable:" + name);
  if (!(key in globalThis)) globalThis[key] = make();
  return globalThis[key];
}

/**
 * What going to step `n` (1-3) of the steps explorable sets: the step's start (`steps[n - 1].start`), no
 * prediction, nothing revealed, replayed or asked. The one way there, for its buttons and keys
 * (web/steps.js) and for the instructor's step reaching a room's pages (web/classroom.js).
 */
export function stepStart({steps}, n) {
  return {step: n, ...steps[n - 1].start, prediction_text: "", revealed: false, animating: false, asked: false};
}

/** Set the model's keys in `changes` and save them (the host's changes come back as `change:` events). */
export function setState(model, changes) {
  for (const [k, v] of Object.entries(changes)) model.set(k, v);
  model.save_changes();
}
