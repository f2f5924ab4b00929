"""What the steps explorer shows, as one pure function, in Python and in JavaScript.

:func:`steps_view` turns a state of :class:`~attention_explorable.steps.StepsExplorer`
(two scores, a temperature, two values, the prediction) into everything its
readouts and plots display: the data of each ``ColumnDataSource``, the range
of the number line and the HTML of the readout panes. Every number comes from
:mod:`attention_explorable.core`.

:data:`VIEW_JS` is the same function written in JavaScript
(``stepsView(state, strings, curveT)``), with a number formatter that rounds
exactly as Python's ``format`` does (half to even on the exact binary value).
In the served page it runs in the browser on every slider movement, so the
readouts and plots follow the hand within the same frame instead of waiting
for the server's answer; the server still computes the same view with the
core and sends it. ``tests/browser/test_stepsview_mirror.py`` checks in
Chromium, case by case, that both give the same text and numbers.

Reference: course section 3.8 (the three steps; Definition 3.8.1).
"""

from __future__ import annotations

import numpy as np

from . import core, scenarios, ui
from .strings import text

#: Temperatures of the curve "weight of the larger score against T" (log-spaced).
T_BOUNDS = (0.01, 10.0)
CURVE_T = np.geomspace(*T_BOUNDS, 160)

#: Keys of the strings table that the view uses.
STRING_KEYS = ("readout_scores", "readout_temperature", "readout_weights", "readout_output",
               "formula_label", "stable_label", "naive_label", "naive_overflow", "naive_underflow",
               "naive_ok")


def view_strings(language: str) -> dict[str, str]:
    """The strings of :data:`STRING_KEYS` in ``language`` (passed to the JavaScript mirror)."""
    return {key: text(key, language) for key in STRING_KEYS}


def steps_view(state, prediction: float | None, strings: dict[str, str],
               temperature_views: bool = True) -> dict:
    """Everything the steps explorer displays for one state.

    Parameters
    ----------
    state : Mapping[str, float]
        ``score_1``, ``score_diff``, ``temperature`` (> 0), ``value_1``, ``value_2``.
    prediction : float or None
        The student's prediction of ``y``, shown on the number line.
    strings : dict
        :func:`view_strings` of the interface language.
    temperature_views : bool
        Also compute the step-3 views (temperature curve, literal formula).

    Returns
    -------
    dict
        ``values``, ``interval``, ``output``, ``weights`` and (with
        ``temperature_views``) ``curve``, ``point``: column dicts of the
        sources; ``x_range``: ``(start, end)`` of the number line;
        ``readouts``, ``formula`` and (with ``temperature_views``) ``naive``:
        HTML strings.

    Raises
    ------
    ValueError
        From the core, for a temperature that is not > 0 or a non-finite score.
    """
    f = ui.format_number
    res = scenarios.outcome(state)
    (s1, s2), (a1, a2), y = res["scores"], res["weights"], res["output"]
    v1, v2, temp = float(state["value_1"]), float(state["value_2"]), float(state["temperature"])
    xs = [v1, v2, y] + ([prediction] if prediction is not None else [])
    pad = max(1.0, 0.12 * (max(xs) - min(xs)))
    view = {
        "values": {"x": [v1, v2], "label": [f"v₁={v1:g}", f"v₂={v2:g}"]},
        "interval": {"x0": [res["interval"][0]], "x1": [res["interval"][1]]},
        "output": {"x": [y], "label": [f"y={y:.2f}"]},
        "x_range": (min(xs) - pad, max(xs) + pad),
        "weights": {"name": ["a₁", "a₂"], "weight": [float(a1), float(a2)],
                    "label": [f(a1, html=False), f(a2, html=False)]},
        "readouts": (
            "<table>"
            f"<tr><td class='ae-kind'>{strings['readout_scores']}</td>"
            f"<td class='ae-score-1'>s₁ = {f(s1, 2)}</td><td class='ae-score-2'>s₂ = {f(s2, 2)}</td></tr>"
            f"<tr><td class='ae-kind'>{strings['readout_temperature']}</td>"
            f"<td class='ae-temperature-readout' colspan='2'>T = {f(temp, 2)}</td></tr>"
            f"<tr><td class='ae-kind'>{strings['readout_weights']}</td>"
            f"<td class='ae-weight-1'>a₁ = {f(a1)}</td><td class='ae-weight-2'>a₂ = {f(a2)}</td></tr>"
            f"<tr><td class='ae-kind'>{strings['readout_output']}</td>"
            f"<td class='ae-output' colspan='2'>y = {f(y)}</td></tr>"
            "</table>"
        ),
        "formula": (
            f"<div class='ae-kind'>{strings['formula_label']} · {strings['stable_label']}</div>"
            f"a₂ = e<sup>s₂/T</sup> / (e<sup>s₁/T</sup> + e<sup>s₂/T</sup>)"
            f" = 1 / (1 + e<sup>−(s₂−s₁)/T</sup>)"
            f" = 1 / (1 + e<sup>−({f(s2 - s1, 2)})/{f(temp, 2)}</sup>) = {f(a2)}<br>"
            f"y = a₁·v₁ + a₂·v₂ = {f(a1)} × {v1:g} + {f(a2)} × {v2:g} = {f(y)}"
        ),
    }
    if temperature_views:
        gap = abs(s2 - s1)
        curve = core.softmax(np.stack([np.zeros_like(CURVE_T), gap / CURVE_T], axis=1))
        big = 1 if s2 >= s1 else 0
        view["curve"] = {"t": CURVE_T, "weight": curve[:, 1]}
        view["point"] = {"t": [temp], "weight": [float(res["weights"][big])]}
        view["naive"] = _naive_html(res, temp, strings)
    return view


def _naive_html(res, temp: float, strings: dict[str, str]) -> str:
    f = ui.format_number
    scores = res["scores"]
    with np.errstate(all="ignore"):
        exps = np.exp(scores / temp)
    naive = res["naive_weights"]
    if np.isinf(exps).any():
        status = strings["naive_overflow"]
    elif not exps.any():
        status = strings["naive_underflow"]
    else:
        status = strings["naive_ok"]
    bad = "ae-error" if np.isnan(naive).any() else ""
    return (
        f"<div class='ae-kind'>{strings['naive_label']}</div>"
        f"e<sup>s₁/T</sup> = {f(exps[0], 3)}, e<sup>s₂/T</sup> = {f(exps[1], 3)} → "
        f"<span class='{bad}'>a₁ = {f(naive[0])}, a₂ = {f(naive[1])}</span> · {status}<br>"
        f"<span class='ae-kind'>{strings['stable_label']}</span>: a₁ = {f(res['weights'][0])}, "
        f"a₂ = {f(res['weights'][1])}"
    )


#: The JavaScript mirror of :func:`steps_view` and of the number formats it uses
#: (``ui.format_number``, ``format(x, "g")``, ``format(x, ".2f")``), plus
#: ``stepsDraw``, which writes a view into the explorable's Bokeh models.
#: Defines ``aeFormat``, ``aeFixed``, ``aeG``, ``aeEscape``, ``stepsView``, ``stepsDraw``
#: and their helpers; run as a function body it returns them.
VIEW_JS = r"""
// The decimal expansion of |x| as digits and the position of the decimal
// point: |x| = 0.d1d2d3... * 10^point. Exact for every double from 1e-4 up
// (below 1e21 a double of 1e-4 or more has at most 66 decimals; from 1e21 on
// it is an integer); below 1e-4, 41 correctly rounded significant digits,
// which suffice there because no number that small lies exactly halfway
// between two 2- or 6-digit roundings.
function aeDecimal(ax) {
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
// Keep the first p digits, rounding half to even on what follows (the exact tail).
// Returns an array of numbers, one longer than p when the rounding carries.
function aeRound(digits, p) {
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
const aeNegative = (x) => x < 0 || Object.is(x, -0);
// format(x, ".{f}f")
function aeFixed(x, f) {
  const d = aeDecimal(Math.abs(x));
  const p = d.point + f;
  let kept = p < 0 ? [] : aeRound(d.digits, p);
  const intLen = kept.length - f;
  let ip = intLen > 0 ? kept.slice(0, intLen).join("") : "0";
  const fp = (intLen >= 0 ? kept.slice(intLen) : Array(-intLen).fill(0).concat(kept)).join("").padStart(f, "0");
  return (aeNegative(x) ? "-" : "") + ip + (f > 0 ? "." + fp : "");
}
// Mantissa digits (f + 1 of them) and decimal exponent of format(x, ".{f}e").
function aeSci(x, f) {
  const d = aeDecimal(Math.abs(x));
  if (!d.digits) return {digits: Array(f + 1).fill(0), exp: 0};
  let kept = aeRound(d.digits, f + 1), exp = d.point - 1;
  if (kept.length > f + 1) { kept = kept.slice(0, f + 1); exp += 1; }
  return {digits: kept, exp};
}
// format(x, "g"): six significant digits, trailing zeros dropped.
function aeG(x) {
  if (Number.isNaN(x)) return "nan";
  if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
  const sign = aeNegative(x) ? "-" : "";
  if (x === 0) return sign + "0";
  const {digits, exp} = aeSci(x, 5);
  if (exp >= -4 && exp < 6) {
    let s = aeFixed(Math.abs(x), 5 - exp);
    if (s.includes(".")) s = s.replace(/0+$/, "").replace(/\.$/, "");
    return sign + s;
  }
  let m = digits[0] + "." + digits.slice(1).join("");
  m = m.replace(/0+$/, "").replace(/\.$/, "");
  const e = Math.abs(exp);
  return sign + m + "e" + (exp < 0 ? "-" : "+") + (e < 10 ? "0" + e : String(e));
}
// ui.format_number(x, digits, html)
function aeFormat(x, digits = 4, html = true) {
  if (Number.isNaN(x)) return "NaN";
  if (!Number.isFinite(x)) return x > 0 ? "∞" : "−∞";
  if (Math.abs(x) >= 1e6 || (x !== 0 && Math.abs(x) < Number("5e-" + (digits + 1)))) {
    const {digits: m, exp} = aeSci(x, 1);
    const mantissa = (aeNegative(x) ? "-" : "") + m[0] + "." + m[1];
    return html ? mantissa + "×10<sup>" + exp + "</sup>" : mantissa + "e" + exp;
  }
  const s = aeFixed(x, digits);
  return s.startsWith("-") && Number(s) === 0 ? "0." + "0".repeat(digits) : s;
}
// The stable softmax of core.softmax for finite scores: shift by the maximum,
// divide the non-positive gaps by T, exponentiate, normalise.
function aeSoftmax(scores, t) {
  const m = Math.max(...scores);
  const e = scores.map((s) => Math.exp((s - m) / t));
  const total = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / total);
}
// steps_view(state, prediction, strings, temperatureViews) of stepsview.py.
function stepsView(st, S, curveT, temperatureViews = true) {
  const f = aeFormat;
  const s1 = st.score_1, s2 = st.score_1 + st.score_diff, temp = st.temperature;
  const v1 = st.value_1, v2 = st.value_2, pred = st.prediction;
  const [a1, a2] = aeSoftmax([s1, s2], temp);
  const y = a1 * v1 + a2 * v2;
  const xs = [v1, v2, y].concat(pred === null || pred === undefined ? [] : [pred]);
  const pad = Math.max(1.0, 0.12 * (Math.max(...xs) - Math.min(...xs)));
  const view = {
    values: {x: [v1, v2], label: ["v₁=" + aeG(v1), "v₂=" + aeG(v2)]},
    interval: {x0: [Math.min(v1, v2)], x1: [Math.max(v1, v2)]},
    output: {x: [y], label: ["y=" + aeFixed(y, 2)]},
    x_range: [Math.min(...xs) - pad, Math.max(...xs) + pad],
    weights: {name: ["a₁", "a₂"], weight: [a1, a2], label: [f(a1, 4, false), f(a2, 4, false)]},
    readouts:
      "<table>" +
      `<tr><td class='ae-kind'>${S.readout_scores}</td>` +
      `<td class='ae-score-1'>s₁ = ${f(s1, 2)}</td><td class='ae-score-2'>s₂ = ${f(s2, 2)}</td></tr>` +
      `<tr><td class='ae-kind'>${S.readout_temperature}</td>` +
      `<td class='ae-temperature-readout' colspan='2'>T = ${f(temp, 2)}</td></tr>` +
      `<tr><td class='ae-kind'>${S.readout_weights}</td>` +
      `<td class='ae-weight-1'>a₁ = ${f(a1)}</td><td class='ae-weight-2'>a₂ = ${f(a2)}</td></tr>` +
      `<tr><td class='ae-kind'>${S.readout_output}</td>` +
      `<td class='ae-output' colspan='2'>y = ${f(y)}</td></tr>` +
      "</table>",
    formula:
      `<div class='ae-kind'>${S.formula_label} · ${S.stable_label}</div>` +
      "a₂ = e<sup>s₂/T</sup> / (e<sup>s₁/T</sup> + e<sup>s₂/T</sup>)" +
      " = 1 / (1 + e<sup>−(s₂−s₁)/T</sup>)" +
      ` = 1 / (1 + e<sup>−(${f(s2 - s1, 2)})/${f(temp, 2)}</sup>) = ${f(a2)}<br>` +
      `y = a₁·v₁ + a₂·v₂ = ${f(a1)} × ${aeG(v1)} + ${f(a2)} × ${aeG(v2)} = ${f(y)}`,
  };
  if (temperatureViews) {
    const gap = Math.abs(s2 - s1);
    view.curve = {t: Array.from(curveT), weight: Array.from(curveT, (t) => aeSoftmax([0, gap / t], 1)[1])};
    view.point = {t: [temp], weight: [s2 >= s1 ? a2 : a1]};
    const exps = [Math.exp(s1 / temp), Math.exp(s2 / temp)];
    const naive = exps.map((e) => e / (exps[0] + exps[1]));
    const status = exps.some((e) => e === Infinity) ? S.naive_overflow
      : exps.every((e) => e === 0) ? S.naive_underflow : S.naive_ok;
    const bad = naive.some(Number.isNaN) ? "ae-error" : "";
    view.naive =
      `<div class='ae-kind'>${S.naive_label}</div>` +
      `e<sup>s₁/T</sup> = ${f(exps[0], 3)}, e<sup>s₂/T</sup> = ${f(exps[1], 3)} → ` +
      `<span class='${bad}'>a₁ = ${f(naive[0])}, a₂ = ${f(naive[1])}</span> · ${status}<br>` +
      `<span class='ae-kind'>${S.stable_label}</span>: a₁ = ${f(a1)}, a₂ = ${f(a2)}`;
  }
  return view;
}
// Python's html.escape: the text of Panel's HTML model is escaped HTML.
const aeEscape = (s) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
  .replace(/"/g, "&quot;").replace(/'/g, "&#x27;");
function aeSameColumns(data, want) {
  for (const [k, col] of Object.entries(want)) {
    const have = data[k];
    if (!have || have.length !== col.length) return false;
    for (let i = 0; i < col.length; i++) if (!Object.is(have[i], col[i]) && have[i] !== col[i]) return false;
  }
  return Object.keys(data).length === Object.keys(want).length;
}
// Draw the view of the sliders' current values into the models m (see
// steps.StepsExplorer._mirror_args); only what changed is written. Re-entrant
// calls (a write below triggering a callback) return at once.
function stepsDraw(m) {
  if (m.lib.__aeDrawing) return;
  m.lib.__aeDrawing = true;
  try {
    const px = m.prediction.data.x;
    const st = {score_1: m.score_1.value, score_diff: m.score_diff.value, temperature: m.temperature.value,
                value_1: m.value_1.value, value_2: m.value_2.value,
                prediction: px && px.length ? px[0] : null};
    if (!(st.temperature > 0) || ![st.score_1, st.score_diff, st.value_1, st.value_2].every(Number.isFinite)) return;
    const temperatureViews = m.curve_fig.visible;
    const v = stepsView(st, m.lib.tags[1], m.lib.data.t, temperatureViews);
    const sources = ["values", "interval", "output", "weights"].concat(temperatureViews ? ["curve", "point"] : []);
    for (const name of sources) {
      if (!aeSameColumns(m[name].data, v[name])) m[name].data = v[name];
    }
    const [start, end] = v.x_range;
    if (m.x_range.start !== start || m.x_range.end !== end) m.x_range.setv({start, end});
    for (const name of (temperatureViews ? ["naive"] : []).concat(["formula", "readouts"])) {
      const text = aeEscape(v[name]);
      if (m[name].text !== text) m[name].text = text;
    }
  } finally {
    m.lib.__aeDrawing = false;
  }
}
return {aeFormat, aeFixed, aeG, aeEscape, stepsView, stepsDraw};
"""
