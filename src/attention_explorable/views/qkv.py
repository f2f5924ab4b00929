"""What the "from X to the output" explorable (section 3.7.8) displays, as one pure function of its state.

Three tokens with 2-dimensional toy inputs ``X`` (its rows ``x₁ = [1, 0]``,
``x₂ = [0, 1]``, ``x₃ = [1, 1]``, the numbers of section 3.7.6) are
projected by three matrices the student picks from a few presets (identity,
swap, double, first feature only) into queries, keys and values, and every
stage is shown::

    Q = X W_Q,  K = X W_K,  V = X W_V        (3, 2) @ (2, 2) -> (3, 2)
    S = Q Kᵀ / √d_k                           (3, 3), d_k = 2; -∞ where masked
    A = softmax(S) row by row                 (3, 3), each row sums to 1
    Y = A V                                   (3, 2)

Changing ``W_V`` alone leaves ``S`` and ``A`` exactly as they were and
changes ``Y``: the keys decide where a query reads, the values what it reads.
The explorable asks that first (``views/choice.py``). Every number comes from
:mod:`attention_explorable.core`; the JavaScript twin is ``qkvView`` in
``web/qkv.js``.

References: course section 3.7.8 (``q_i = x_i W_Q``, ``k_i = x_i W_K``,
``v_i = x_i W_V``) and 3.8 (``Q = X W_Q``); A. Vaswani et al., "Attention Is
All You Need", NeurIPS 2017, section 3.2.
"""

from __future__ import annotations

import numpy as np

from .. import core
from ..strings import text
from . import choice
from .matrix import heatmap_sources
from .numbers import data_table, format_number, format_vector

#: The toy inputs, one row per token (the vectors of section 3.7.6), shape (3, 2).
X = ((1.0, 0.0), (0.0, 1.0), (1.0, 1.0))
#: The projections the student picks from: name -> 2 x 2 matrix (rows: input features).
PRESETS = {
    "identity": ((1.0, 0.0), (0.0, 1.0)),
    "swap": ((0.0, 1.0), (1.0, 0.0)),
    "double": ((2.0, 0.0), (0.0, 2.0)),
    "first": ((1.0, 0.0), (0.0, 0.0)),
}
#: The three projections, in the order of their controls.
PROJECTIONS = ("w_q", "w_k", "w_v")
#: The student's prediction: what changes when only W_V goes from the identity to the swap.
PREDICTIONS = ("", "both", "output", "weights", "nothing")
#: The right one: the weights depend on the queries and keys only.
RIGHT_PREDICTION = "output"
#: The course section it belongs to: its prediction is a class question of that section.
SECTION = "3.7"
#: The state: the three projections, the causal mask, then the prediction and whether its answer shows.
STATE_NAMES = (*PROJECTIONS, "causal", "prediction", "revealed")
#: The controls that wait for the prediction (``views/choice.py`` ``lock``): nothing to try before it.
LOCKED = (*PROJECTIONS, "causal")
_SUB = "₁₂₃₄₅₆₇₈₉"

STRING_KEYS = (
    "qkv_stage_x",
    "qkv_stage_projections",
    "qkv_stage_qkv",
    "qkv_stage_output",
    "qkv_plot_scores",
    "qkv_plot_weights",
    "qkv_axis_query",
    "qkv_axis_key",
    "qkv_masked_note",
    "qkv_same_weights",
    "qkv_predict_answer",
    "qkv_live",
    "qkv_predict_question",
    "qkv_w_q",
    "qkv_w_k",
    "qkv_w_v",
    "qkv_causal",
    *(f"qkv_predict_{p}" for p in PREDICTIONS[1:]),
    *choice.why_keys("qkv", PREDICTIONS, RIGHT_PREDICTION),
    *choice.STRING_KEYS,
    *(f"qkv_preset_{p}" for p in PRESETS),
)


def qkv_config(language: str) -> dict:
    """What :func:`qkv_view` needs besides the state, as JSON-able data.

    ``strings`` (the interface text in ``language``), ``x`` (the inputs, 3 lists
    of 2 floats), ``presets`` (name -> 2 x 2 list). Sent to the
    browser once.

    Raises
    ------
    KeyError
        If ``language`` is unknown.
    """
    return {
        "strings": {key: text(key, language) for key in STRING_KEYS},
        "x": [list(row) for row in X],
        "presets": {name: [list(row) for row in m] for name, m in PRESETS.items()},
    }


def check_state(state) -> None:
    """Raise unless ``state`` is a state of this explorable.

    Raises
    ------
    ValueError
        If a projection is not one of :data:`PRESETS`, ``causal`` is not a
        bool, or the prediction is malformed; the message names the parameter
        and the value.
    """
    for name in PROJECTIONS:
        if state.get(name) not in PRESETS:
            raise ValueError(f"{name} must be one of {', '.join(PRESETS)}, got {state.get(name)!r}")
    if not isinstance(state.get("causal"), (bool, np.bool_)):
        raise ValueError(f"causal must be true or false, got {state.get('causal')!r}")
    choice.check_choice(state, PREDICTIONS)


def attend(state, config: dict) -> dict:
    """Every stage of one state, from the core.

    Returns
    -------
    dict
        ``q``, ``k``, ``v`` (3, 2); ``mask`` (3, 3) bool, True where a query
        may attend a key; ``scores`` (3, 3), ``-inf`` where masked;
        ``weights`` (3, 3), rows summing to 1; ``output`` (3, 2).

    Raises
    ------
    ValueError
        From :func:`check_state`.
    """
    check_state(state)
    x = np.asarray(config["x"], dtype=np.float64)  # (3, 2)
    q, k, v = (x @ np.asarray(config["presets"][state[name]], dtype=np.float64) for name in PROJECTIONS)
    n = len(x)
    mask = core.causal_mask(n) if state["causal"] else np.ones((n, n), dtype=bool)
    scores, weights, output = core.attention(q, k, v, mask=mask)  # (3, 3) divided by √d_k, (3, 3), (3, 2)
    return {
        "q": q,
        "k": k,
        "v": v,
        "mask": mask,
        "scores": scores,
        "weights": weights,
        "output": output,
    }


def _matrix_html(caption: str, m, digits: int = 2) -> str:
    rows = "".join(
        "<tr>" + "".join(f"<td>{format_number(float(c), digits)}</td>" for c in row) + "</tr>"
        for row in np.asarray(m).tolist()
    )
    return f"<table class='ae-qkv-matrix'><caption>{caption}</caption>{rows}</table>"


def qkv_view(state, config: dict) -> dict:
    """Everything the explorable displays for one state.

    Parameters
    ----------
    state : Mapping
        ``w_q``, ``w_k``, ``w_v`` (names of :data:`PRESETS`), ``causal``
        (bool), ``prediction`` (one of :data:`PREDICTIONS`) and
        ``revealed`` (bool).
    config : dict
        :func:`qkv_config` of the interface language.

    Returns
    -------
    dict
        A view (see :mod:`attention_explorable.views`): sources
        ``score_cells`` and ``weight_cells`` (columns ``x`` = key j, ``y`` =
        query i, from 1; ``fill``, ``text``, ``text_color``; 9 rows); ranges
        none; html ``inputs`` (X), ``projections`` (W_Q, W_K, W_V),
        ``qkv`` (Q, K, V), ``output`` (Y), ``notes``, ``feedback``,
        ``scores_data``, ``weights_data`` (the heatmaps as tables) and
        ``live``; props of the three preset choices, ``causal`` and the
        question's controls.

    Raises
    ------
    ValueError
        From :func:`check_state`, naming the parameter and the value.
    """
    S = config["strings"]
    res = attend(state, config)
    n = len(config["x"])
    cells = heatmap_sources(res["scores"], res["weights"], res["mask"])
    score_text, weight_text = cells["score_cells"]["text"], cells["weight_cells"]["text"]
    presets = list(PRESETS)

    # Predict first: W_V alone changed (identity <-> swap) keeps every weight and moves the output.
    prediction, revealed = state["prediction"], bool(state["revealed"])

    def answer() -> str:
        outputs = {name: attend({**state, "w_v": name}, config)["output"][0] for name in ("identity", "swap")}
        return S["qkv_predict_answer"].format(
            a=format_vector(outputs["identity"], 3), b=format_vector(outputs["swap"], 3)
        )

    def table(caption: str, cells: list[str]) -> str:
        corner = S["qkv_axis_query"] + " \\ " + S["qkv_axis_key"]
        return data_table(
            caption,
            [corner, *(f"k{_SUB[j]}" for j in range(n))],
            [[f"q{_SUB[i]}", *cells[i * n : (i + 1) * n]] for i in range(n)],
        )

    names = {
        name: text_name for name, text_name in zip(PROJECTIONS, ("W<sub>Q</sub>", "W<sub>K</sub>", "W<sub>V</sub>"))
    }
    # "The weights depend on Q and K only" is the prediction's answer: said once it shows.
    notes = " ".join(
        ([S["qkv_same_weights"]] if revealed else []) + ([S["qkv_masked_note"]] if state["causal"] else [])
    )
    return {
        "sources": cells,
        "ranges": {},
        "html": {
            "inputs": f"<div class='ae-kind'>{S['qkv_stage_x']}</div>" + _matrix_html("X", config["x"], 0),
            "projections": (
                f"<div class='ae-kind'>{S['qkv_stage_projections']}</div><div class='ae-qkv-row'>"
                + "".join(_matrix_html(names[p], config["presets"][state[p]], 0) for p in PROJECTIONS)
                + "</div>"
            ),
            "qkv": (
                f"<div class='ae-kind'>{S['qkv_stage_qkv']}</div><div class='ae-qkv-row'>"
                + _matrix_html("Q = X W<sub>Q</sub>", res["q"], 0)
                + _matrix_html("K = X W<sub>K</sub>", res["k"], 0)
                + _matrix_html("V = X W<sub>V</sub>", res["v"], 0)
                + "</div>"
            ),
            "output": f"<div class='ae-kind'>{S['qkv_stage_output']}</div>" + _matrix_html("Y = A V", res["output"], 3),
            "notes": f"<span class='ae-hint'>{notes}</span>",
            "feedback": choice.choice_feedback(S, "qkv", prediction, RIGHT_PREDICTION, revealed, answer),
            "scores_data": table(S["qkv_plot_scores"], score_text),
            "weights_data": table(S["qkv_plot_weights"], weight_text),
            "live": S["qkv_live"].format(y=format_vector(res["output"][0], 3)),
        },
        "props": choice.lock(
            {
                **{name: {"active": presets.index(state[name])} for name in PROJECTIONS},
                "causal": {"active": bool(state["causal"])},
                **choice.choice_props("qkv", S, PREDICTIONS, prediction, revealed, RIGHT_PREDICTION),
            },
            LOCKED,
            revealed,
        ),
    }
