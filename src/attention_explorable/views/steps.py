"""What the steps explorable (section 3.7.5) displays, as one pure function of its state.

:func:`steps_view` turns a state (the step, two scores, a temperature, two
values, the typed prediction, whether the step was demonstrated) into
everything on screen: the data of the plots, the number line's range, the
readouts, the formula, the literal ``exp`` computation, the question, the
check of the prediction and the positions of the controls. Every number
comes from :mod:`attention_explorable.core` (through
:func:`attention_explorable.scenarios.outcome`). Its JavaScript twin is
``stepsView`` in ``web/steps.js``.

Reference: course section 3.7.5, the steps (the softmax weights of 3.7.4; the source course's 3.8).
"""

from __future__ import annotations

import html
import math
from numbers import Real

import numpy as np

from .. import core, scenarios
from ..strings import text
from .numbers import data_table, echo, format_fixed, format_g, format_number, parse_number, step_decimals

#: Bounds of the temperature slider; the curve's temperatures are log-spaced over them.
T_BOUNDS = (0.01, 10.0)
CURVE_T = np.geomspace(*T_BOUNDS, 160)
#: Bounds of a prediction of the output y.
PREDICTION_BOUNDS = (-20.0, 20.0)
#: Longest echo of a rejected prediction, in characters.
ECHO_LIMIT = 40
#: Sliders of the state: name -> (low, high, step).
SLIDERS = {
    "score_diff": (-10.0, 10.0, 0.1),
    "temperature": (T_BOUNDS[0], T_BOUNDS[1], 0.01),
    "value_1": (-20.0, 20.0, 0.5),
    "value_2": (-20.0, 20.0, 0.5),
    "score_1": (-50.0, 50.0, 0.5),
}
#: The state of the explorable: the numbers of :data:`scenarios.STATE_KEYS` plus these.
#: ``asked``: the demonstration was asked for without a prediction, so the view asks for one.
STATE_NAMES = ("step", *scenarios.STATE_KEYS, "prediction_text", "revealed", "animating", "asked")
#: What the steps move (the scores and the temperature): their sliders and boxes wait for the step's
#: demonstration, as nothing can be tried before the prediction; the values v₁, v₂ (which no step moves) do not.
MOVED = ("score_diff", "temperature", "score_1")

STRING_KEYS = (
    "readout_scores",
    "readout_temperature",
    "readout_weights",
    "readout_output",
    "formula_label",
    "stable_label",
    "naive_label",
    "naive_overflow",
    "naive_underflow",
    "naive_ok",
    "result_label",
    "label_colon",
    "result_with_prediction",
    "result_right",
    "result_near_outside",
    "result_off",
    "result_outside",
    "result_working",
    "result_no_prediction",
    "result_pending",
    "result_moved",
    *(f"slip_{name}" for name in ("equal", "cold", "value", "all", "swapped", "temperature")),
    "prediction_invalid",
    "prediction_fix",
    "demonstrate",
    "demonstrating",
    "input_clamped",
    "input_not_number",
    "skip_prediction",
    "prediction_needed",
    "plot_number_line",
    "plot_weights",
    "plot_temperature_curve",
    "axis_temperature",
    "axis_weight",
    "legend_value",
    "legend_output",
    "legend_prediction",
    "data_name",
    "data_value",
    "legend_interval",
    "step_button",
    "prediction",
    "prediction_hint",
    *(f"step{n}_{part}" for n in (1, 2, 3) for part in ("title", "question", "explain")),
)


def steps_config(language: str, ask_prediction: bool = True, values: dict | None = None) -> dict:
    """What :func:`steps_view` needs besides the state, as JSON-able data.

    ``strings`` (the interface text in ``language``), ``steps`` (each step's
    ``start`` and ``target`` state), ``curve_t`` (temperatures of the curve),
    ``prediction_bounds``, ``labels`` (the sliders' names), ``sliders`` (name ->
    ``[low, high, step]``), ``frames`` and
    ``frame_ms`` (the replay: 24 frames, 40 ms apart), ``ask_prediction`` ("演示本步"
    without a prediction asks for one; False plays at once, for a presenter). The
    same dict is sent to the browser once. ``values`` (``value_1``, ``value_2``:
    an author's or a link's) are every step's values, in its start and its target,
    instead of the scenarios' (:func:`with_values`).
    """
    return {
        "strings": {key: text(key, language) for key in STRING_KEYS},
        "steps": with_values([{"start": dict(s.start), "target": dict(s.target)} for s in scenarios.STEPS], values),
        "curve_t": CURVE_T.tolist(),
        "prediction_bounds": list(PREDICTION_BOUNDS),
        "labels": {name: text(name, language) for name in SLIDERS},
        "sliders": {name: list(bounds) for name, bounds in SLIDERS.items()},
        "frames": 24,
        "frame_ms": 40,
        "ask_prediction": bool(ask_prediction),
        "within": scenarios.WITHIN,
    }


def parse_prediction(raw: str, bounds=PREDICTION_BOUNDS) -> float | None:
    """The prediction typed as ``raw``, or None when empty, not a number or out of ``bounds``."""
    if not raw.strip():
        return None
    try:
        value = parse_number(raw)
    except ValueError:
        return None
    return value if bounds[0] <= value <= bounds[1] else None


def steps_view(state, config: dict) -> dict:
    """Everything the steps explorable displays for one state.

    Parameters
    ----------
    state : Mapping
        ``step`` (1-3); ``score_1``, ``score_diff`` (``s₂ = s₁ + diff``),
        ``temperature`` (T > 0), ``value_1``, ``value_2`` (floats);
        ``prediction_text`` (str, as typed); ``revealed``, ``animating``,
        ``asked`` (bool: "演示本步" was pressed without a prediction).
    config : dict
        :func:`steps_config` of the interface language.

    Returns
    -------
    dict
        A view (see :mod:`attention_explorable.views`): sources ``values``,
        ``interval``, ``output``, ``prediction``, ``weights``, ``curve``,
        ``point``; range ``x_range``; html ``readouts``, ``formula``,
        ``naive``, ``question``, ``result``, ``error``, the plots' data as
        tables ``line_data``, ``weights_data``, ``curve_data`` (step 3, once
        demonstrated; else empty) and ``live`` (the weights and the output, for a screen reader
        to announce once a movement settles); props of the sliders
        and their boxes, the step buttons, ``demonstrate``, ``skip``,
        ``prediction_input``, ``curve_fig``, ``naive``, ``error``.

    Notes
    -----
    Predict first: what would give a step's answer away before the student
    commits is withheld until the demonstration runs. Step 3's temperature
    curve (with its point and its screen-reader table) plots the weight at
    every temperature, T = 0.02 included, so it appears only while the step
    is demonstrated and after (moving T by hand after that keeps it). The
    readouts show the current state, which before the demonstration is the
    step's start, not its target.

    Raises
    ------
    ValueError
        From the core, for a temperature that is not > 0 or a non-finite score.
    """
    f, S = format_number, config["strings"]
    res = scenarios.outcome(state)
    (s1, s2), (a1, a2), y = res["scores"], res["weights"], res["output"]
    v1, v2, temp = float(state["value_1"]), float(state["value_2"]), float(state["temperature"])
    step = int(state["step"])
    raw = str(state["prediction_text"])
    pred = parse_prediction(raw, config["prediction_bounds"])
    # The output y lies between the values (a convex combination), so the number
    # line's range depends on the values and the prediction only: it stays put
    # while scores and temperature move, and the axis is not laid out again.
    xs = [v1, v2] + ([pred] if pred is not None else [])
    pad = max(1.0, 0.12 * (max(xs) - min(xs)))
    step3 = step == 3
    revealed, animating = bool(state["revealed"]), bool(state["animating"])
    # Step 3's curve answers the step (the weight at T = 0.02): not before the demonstration.
    curve_shown = step3 and (revealed or animating)
    # "演示本步" without a prediction asks for one, and offers to skip it.
    needs_prediction = bool(state.get("asked", False)) and pred is None and not (revealed or animating)
    # Asked for a prediction while the box holds one that cannot be used (50, "abc"): it is to be mended, not
    # written (the note under the box says why).
    lo, hi = (format_g(b) for b in config["prediction_bounds"])
    needed = S["prediction_fix"].format(lo=lo, hi=hi) if raw.strip() else S["prediction_needed"]
    # Predict first: what a step moves waits for its demonstration (or its skip), except on a presenter's page.
    locked = bool(config.get("ask_prediction", True)) and not (revealed or animating)

    gap = abs(s2 - s1)
    curve = (
        core.softmax(np.stack([np.zeros(len(config["curve_t"])), gap / np.asarray(config["curve_t"])], axis=1))
        if curve_shown
        else None
    )
    line_rows = [
        [f"{S['legend_value']} v₁", format_g(v1)],
        [f"{S['legend_value']} v₂", format_g(v2)],
        [S["legend_output"], f(y)],
    ] + ([[S["legend_prediction"], format_g(pred)]] if pred is not None else [])
    last = len(config["curve_t"]) - 1
    curve_rows = (
        [
            [format_g(t), f(w)]
            for i, (t, w) in enumerate(zip(config["curve_t"], curve[:, 1].tolist()))
            if i % 10 == 0 or i == last
        ]
        if curve_shown
        else []
    )
    view = {
        "sources": {
            "values": {"x": [v1, v2], "label": [f"v₁={format_g(v1)}", f"v₂={format_g(v2)}"]},
            "interval": {"x0": [min(v1, v2)], "x1": [max(v1, v2)]},
            "output": {"x": [y], "label": [f"y={format_number(y, 2, html=False)}"]},
            "prediction": ({"x": [pred], "label": [format_g(pred)]} if pred is not None else {"x": [], "label": []}),
            "weights": {
                "name": ["α₁", "α₂"],
                "weight": [float(a1), float(a2)],
                "label": [f(a1, html=False), f(a2, html=False)],
            },
            "curve": (
                {"t": list(config["curve_t"]), "weight": curve[:, 1].tolist()}
                if curve_shown
                else {"t": [], "weight": []}
            ),
            "point": (
                {"t": [temp], "weight": [float(a2 if s2 >= s1 else a1)]} if curve_shown else {"t": [], "weight": []}
            ),
        },
        "ranges": {"x_range": [min(xs) - pad, max(xs) + pad]},
        "html": {
            "readouts": (
                "<table>"
                f"<tr><th scope='row' class='ae-kind'>{S['readout_scores']}</th>"
                f"<td class='ae-score-1-readout'>s₁ = {f(s1, 2)}</td>"
                f"<td class='ae-score-2-readout'>s₂ = {f(s2, 2)}</td></tr>"
                f"<tr><th scope='row' class='ae-kind'>{S['readout_temperature']}</th>"
                f"<td class='ae-temperature-readout' colspan='2'>T = {f(temp, 2)}</td></tr>"
                f"<tr><th scope='row' class='ae-kind'>{S['readout_weights']}</th>"
                f"<td class='ae-weight-1'>α₁ = {f(a1)}</td><td class='ae-weight-2'>α₂ = {f(a2)}</td></tr>"
                f"<tr><th scope='row' class='ae-kind'>{S['readout_output']}</th>"
                f"<td class='ae-output' colspan='2'>y = {f(y)}</td></tr>"
                "</table>"
            ),
            "formula": (
                # (each side of an "=" kept on one line: a narrow screen breaks the chain between them)
                f"<div class='ae-kind'>{S['formula_label']} · {S['stable_label']}</div>"
                + _pieces(
                    "α₂ = e<sup>s₂/T</sup> / (e<sup>s₁/T</sup> + e<sup>s₂/T</sup>)",
                    "= 1 / (1 + e<sup>−(s₂−s₁)/T</sup>)",
                    f"= 1 / (1 + e<sup>−({f(s2 - s1, 2)})/{f(temp, 2)}</sup>)",
                    f"= {f(a2)}",
                )
                + "<br>"
                + _pieces("y = α₁·v₁ + α₂·v₂", f"= {f(a1)} × {format_g(v1)} + {f(a2)} × {format_g(v2)}", f"= {f(y)}")
            ),
            "naive": _naive_html(res, temp, S) if step3 else "",
            "question": _question_html(step, revealed, S, step_target(state, config)),
            "result": (
                f"<b>{S['result_label']}</b>{S['label_colon']}{needed}"
                if needs_prediction
                else _result_html(state, pred, config)
            ),
            "error": (
                S["prediction_invalid"].format(
                    raw=html.escape(echo(raw, ECHO_LIMIT)),
                    lo=lo,
                    hi=hi,
                )
                if pred is None and raw.strip()
                else ""
            ),
            "line_data": data_table(S["plot_number_line"], [S["data_name"], S["data_value"]], line_rows),
            "weights_data": data_table(
                S["plot_weights"], [S["data_name"], S["axis_weight"]], [["α₁", f(a1)], ["α₂", f(a2)]]
            ),
            "curve_data": (
                data_table(S["plot_temperature_curve"], [S["axis_temperature"], S["axis_weight"]], curve_rows)
                if curve_shown
                else ""
            ),
            # A screen reader hears why the cursor went to the prediction box.
            "live": (
                needed
                if needs_prediction
                else f"{S['readout_weights']} α₁ = {f(a1)}, α₂ = {f(a2)} · {S['readout_output']} y = {f(y)}"
            ),
        },
        "props": {
            **{
                f"{name}_slider": {"value": float(state[name]), "disabled": locked and name in MOVED}
                for name in SLIDERS
            },
            **{
                f"{name}_box": {
                    "value": box_text(state[name], SLIDERS[name][2], animating),
                    "disabled": locked and name in MOVED,
                }
                for name in SLIDERS
            },
            **{f"step_{n}": {"button_type": "primary" if n == step else "default"} for n in (1, 2, 3)},
            "demonstrate": {"label": S["demonstrating"] if animating else S["demonstrate"]},
            "skip": {"visible": needs_prediction},
            # Both: a box whose typed text (value_input) kept an earlier step's "8" took the same keys
            # typed again as no change, and refused the prediction.
            "prediction_input": {"value": raw, "value_input": raw},
            "curve_fig": {"visible": curve_shown},
            "naive": {"visible": step3},
            "error": {"visible": pred is None and bool(raw.strip())},
        },
    }
    return view


def box_text(value: float, step: float, animating: bool) -> str:
    """A number box's text: ``value``; while a demonstration replays, rounded to the decimals of its slider's
    ``step`` (a frame on the way reads 0.98, not 0.978688: the box is read as the slider is).

    >>> box_text(0.978688, 0.01, True), box_text(0.978688, 0.01, False), box_text(-0.001, 0.1, True)
    ('0.98', '0.978688', '0')
    """
    if not animating:
        return format_g(value)
    return format_g(float(format_fixed(value, step_decimals(step))) + 0.0)  # (+ 0.0: a rounded −0.001 reads 0, not −0)


def step_target(state: dict, config: dict) -> dict:
    """The target of ``state``'s step (``config["steps"]``) with the values on screen (``state``'s
    ``value_1``, ``value_2``): a student who moves v₁ or v₂ before predicting is asked, shown and graded
    with those values, not the step's own."""
    values = {k: float(state[k]) for k in ("value_1", "value_2")}
    return with_values([config["steps"][int(state["step"]) - 1]], values)[0]["target"]


def with_values(steps: list[dict], values: dict | None) -> list[dict]:
    """``steps`` (each a ``start`` and a ``target`` state) with ``values`` (any of ``value_1``, ``value_2``)
    in both: a step moves the scores and the temperature, never the values, so the values an explorable
    opened with (an author's tag or saved page, a link) are those each step demonstrates and checks. The
    twin of ``withValues`` in ``web/steps.js``.

    Raises
    ------
    ValueError
        If ``values`` names another key, or a value that is not a finite number.

    >>> with_values([{"start": {"value_2": 10.0}, "target": {"value_2": 10.0}}], {"value_2": 8})
    [{'start': {'value_2': 8.0}, 'target': {'value_2': 8.0}}]
    """
    kept = {}
    for key, value in (values or {}).items():
        if key not in ("value_1", "value_2"):
            raise ValueError(f"values may hold value_1 and value_2, got {key!r}")
        if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value):
            raise ValueError(f"{key} must be a finite number, got {value!r}")
        kept[key] = float(value)
    return [{"start": {**s["start"], **kept}, "target": {**s["target"], **kept}} for s in steps]


def _question_html(step: int, revealed: bool, S, target: dict) -> str:
    explain = f"<p class='ae-explain'>{S[f'step{step}_explain']}</p>" if revealed else ""
    return (
        f"<p class='ae-step-title' style='margin:4px 0; font-size:1.17em'><b>{S[f'step{step}_title']}</b></p>"
        f"<p>{step_question(S[f'step{step}_question'], target)}</p>{explain}"
    )


def step_question(template: str, target: dict) -> str:
    """A step's question (``step{n}_question``) with the values it names (``{v1}``, ``{v2}``) filled in from
    its ``target`` state, each as often as it stands there. The twin of the same fill in ``web/steps.js``."""
    return template.replace("{v1}", format_g(target["value_1"])).replace("{v2}", format_g(target["value_2"]))


#: How near a prediction must come to a slip's output to be taken for that slip (units of y).
SLIP_NEAR = 0.1


def slips(target, within: float = scenarios.WITHIN) -> list[tuple[str, float]]:
    """The outputs that the usual slips give at a step's ``target`` state, each only where it differs from the
    true output by more than ``within`` would forgive (the steps' rule, :data:`scenarios.WITHIN`), in the order they are looked for: ``equal``
    (equal weights: the midpoint of the two values), ``value`` (with equal scores, one of the two values, as
    if one of them took all the weight), ``all`` (all the weight on the larger score),
    ``swapped`` (the two weights swapped), ``temperature`` (the temperature left out: ``T = 1``). Below
    ``T = 1`` with unequal scores the midpoint is ``cold`` instead of ``equal``: the slip is then the
    temperature's direction (a low one taken to even the weights out, as a high one does).
    The twin of ``slips`` in ``web/steps.js``.

    >>> [(name, round(y, 2)) for name, y in slips(scenarios.STEPS[1].target)]
    [('equal', 6.0), ('all', 10.0), ('swapped', 2.95)]
    """
    res = scenarios.outcome(target)
    v1, v2, diff, t = (float(target[k]) for k in ("value_1", "value_2", "score_diff", "temperature"))
    w = [float(x) for x in res["weights"]]
    found = [("cold" if t < 1 and diff != 0 else "equal", (v1 + v2) / 2)]
    if diff == 0:
        found += [("value", v1), ("value", v2)]
    else:
        found.append(("all", v2 if diff > 0 else v1))
    found.append(("swapped", w[1] * v1 + w[0] * v2))
    if t != 1:
        found.append(("temperature", scenarios.outcome({**target, "temperature": 1.0})["output"]))
    return [(name, y) for name, y in found if abs(y - res["output"]) > within]


def _result_html(state, pred: float | None, config: dict) -> str:
    S, f = config["strings"], format_number
    if not state["revealed"] or state["animating"]:
        msg = S["result_pending"]
    else:
        target = step_target(state, config)
        outcome = scenarios.outcome(target)
        true = outcome["output"]
        if pred is None:
            msg = S["result_no_prediction"].format(true=f(true, 2))
        else:
            gap = abs(pred - true)
            lo, hi = sorted((float(target["value_1"]), float(target["value_2"])))
            inside = lo <= pred <= hi  # the section's point: y never leaves [v₁, v₂], so nothing outside is right
            lead = "result_off" if gap > config["within"] else "result_right" if inside else "result_near_outside"
            # (a gap that rounds to 0.00 is written so: 9.05 beside 9.05 is not "3.6×10⁻³" apart)
            msg = S[lead].format(within=format_g(config["within"])) + S["result_with_prediction"].format(
                pred=format_g(pred), true=f(true, 2), gap=f(gap if gap >= 0.005 else 0.0, 2)
            )
            # A prediction off by a usual slip is told which (the first that it comes near).
            near = [
                (n, y)
                for n, y in slips(target, config["within"])
                if gap > config["within"] and abs(pred - y) <= SLIP_NEAR
            ]
            if near:
                name, y = near[0]
                msg += S[f"slip_{name}"].format(y=f(y, 2), t=format_g(target["temperature"]))
            elif gap > config["within"]:  # no slip to name: the computation itself, with this step's numbers
                w = outcome["weights"]
                msg += S["result_working"].format(
                    d=format_g(target["score_diff"]),
                    t=format_g(target["temperature"]),
                    a1=f(w[0], 3),
                    a2=f(w[1], 3),
                    v1=format_g(target["value_1"]),
                    v2=format_g(target["value_2"]),
                    y=f(true, 2),
                )
            if not inside:
                msg += S["result_outside"].format(v1=format_g(target["value_1"]), v2=format_g(target["value_2"]))
        if any(float(state[k]) != float(target[k]) for k in scenarios.STATE_KEYS):
            msg += S["result_moved"]
    return f"<b>{S['result_label']}</b>{S['label_colon']}{msg}"


def _pieces(*parts: str) -> str:
    """A readout's chain of equations, a narrow screen breaking it between its pieces, never inside one."""
    return " ".join(f"<span class='ae-formula-piece'>{part}</span>" for part in parts)


def _naive_html(res, temp: float, S) -> str:
    f = format_number
    scores = res["scores"]
    with np.errstate(all="ignore"):
        exps = np.exp(scores / temp)
    naive = res["naive_weights"]
    if np.isinf(exps).any():
        status = S["naive_overflow"]
    elif not exps.any():
        status = S["naive_underflow"]
    else:
        status = S["naive_ok"]
    bad = "ae-error" if any(math.isnan(w) for w in naive) else ""
    return (
        f"<div class='ae-kind'>{S['naive_label']}</div>"
        f"e<sup>s₁/T</sup> = {f(exps[0], 3)}, e<sup>s₂/T</sup> = {f(exps[1], 3)} → "
        f"<span class='{bad}'>α₁ = {f(naive[0])}, α₂ = {f(naive[1])}</span> · {status}<br>"
        f"<span class='ae-kind'>{S['stable_label']}</span>: α₁ = {f(res['weights'][0])}, "
        f"α₂ = {f(res['weights'][1])}"
    )
