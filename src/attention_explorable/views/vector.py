"""What the vector explorable (section 3.7.6) displays, as one pure function of its state.

One query ``q`` in the plane against a few keys and values (by default the
worked example: ``k₁ = v₁ = [1, 0]``, ``k₂ = v₂ = [0, 1]``,
``k₃ = v₃ = [1, 1]``). :func:`vector_view` turns the state (the two
components of ``q`` and the temperature ``T``) into everything on screen:
the plotted query, keys, values, their convex hull and the output ``y``,
the readouts of the scores, weights and output, and the formula with the
current numbers substituted. Every number comes from
:mod:`attention_explorable.core`, with plain dot products (``scale=1``, as
in the worked example)::

    s = q @ keys.T             # (2,) @ (2, n) -> (n,)
    a = softmax(s / T)         # (n,), non-negative, sums to 1
    y = a @ values             # (n,) @ (n, 2) -> (2,), inside the hull of the values

Its JavaScript twin is ``vectorView`` in ``web/vector.js``; the convex hull,
computed here by Qhull, is computed there by Andrew's monotone chain, and
``tests/browser/test_vector_mirror.py`` holds the two to each other.

Reference: course section 3.7.6 ("手算一个小例子") and 3.7.5 (the output
lies in the convex hull of the values); A. Vaswani et al., "Attention Is
All You Need", NeurIPS 2017.
"""

from __future__ import annotations

import math

import numpy as np

from .. import core
from ..strings import text
from . import choice
from .numbers import MINUS, data_table, format_g, format_number, format_vector

#: Bounds of each component of the query q.
Q_BOUNDS = (-2.0, 2.0)
#: Bounds of the temperature T.
T_BOUNDS = (0.05, 5.0)
#: Sliders of the state: name -> (low, high, step).
SLIDERS = {
    "query_x": (Q_BOUNDS[0], Q_BOUNDS[1], 0.05),
    "query_y": (Q_BOUNDS[0], Q_BOUNDS[1], 0.05),
    "temperature": (T_BOUNDS[0], T_BOUNDS[1], 0.05),
}
#: The student's prediction, asked before the answer shows (with the example's keys and values only): none
#: yet, or where the output stops as T falls to its lowest with q = [1, 0], where s₁ and s₃ tie.
PREDICTIONS = ("", "first", "third", "midpoint", "centroid")
#: The right one: tied scores split the weight evenly however low T goes, so y stops halfway between v₁ and v₃.
RIGHT_PREDICTION = "midpoint"
#: The course section it belongs to: its prediction is a class question of that section.
SECTION = "3.7"
#: The state of the explorable: the sliders, then the prediction and whether its answer shows
#: (``views/choice.py``).
STATE_NAMES = (*SLIDERS, "prediction", "revealed")
#: Where the answer is watched, set when the prediction is checked or skipped: the example's query, T lowest.
ANSWER_STATE = {"query_x": 1.0, "query_y": 0.0, "temperature": T_BOUNDS[0]}
#: The most keys (and values) the plane shows.
MAX_POINTS = 6
#: Where a component of q passes this, the label "q" goes to the inner side of the tip, which the plot's edge
#: would otherwise cut (the label: 9 px right of the tip and 12 px above it, in screen pixels).
QUERY_LABEL_EDGE = 1.5
#: The keys and the values of the worked example in section 3.7.6.
EXAMPLE_KEYS = ((1.0, 0.0), (0.0, 1.0), (1.0, 1.0))
EXAMPLE_VALUES = ((1.0, 0.0), (0.0, 1.0), (1.0, 1.0))
#: Distance in pixels between a plotted point and its label.
LABEL_GAP = 13.0
#: Past this x (data units) a value's label that would run rightwards is centred over or under its point instead.
VALUE_LABEL_EDGE = 0.5
#: Where (px, its baseline) such a centred label sits above or below its point: above, clear of the largest
#: dot (radius 15); below, its letters' tops clear of it too, and under a key's label on the x axis.
VALUE_LABEL_RISE, VALUE_LABEL_DROP = 20.0, 28.0
#: Within this distance (data units) of a value whose label runs to its left, the output's label "y" goes to
#: the star's right instead of its left, so that "y" and "v₂ (1.000)" do not run into each other.
OUTPUT_LABEL_NEAR = 0.3
#: Decimals of a query set by a tap or a drag on the plot.
QUERY_DECIMALS = 2

_SUB = "₀₁₂₃₄₅₆₇₈₉"
_LABELS = {"query_x": "vector_query_x", "query_y": "vector_query_y", "temperature": "temperature"}
STRING_KEYS = (
    "readout_scores",
    "readout_weights",
    "readout_output",
    "formula_label",
    "vector_formula_scores",
    "vector_formula_weights",
    "vector_formula_output",
    "input_clamped",
    "input_not_number",
    "vector_plot",
    *(f"vector_legend_{part}" for part in ("query", "key", "value", "hull", "output")),
    "data_name",
    "vector_predict_question",
    "vector_predict_answer",
    *(f"vector_predict_{p}" for p in PREDICTIONS[1:]),
    *choice.why_keys("vector", PREDICTIONS, RIGHT_PREDICTION),
    *choice.STRING_KEYS,
)


def points(value, name: str) -> np.ndarray:
    """``value`` as an ``(n, 2)`` float64 array of finite numbers, ``1 <= n <= 6``.

    Raises
    ------
    ValueError
        Otherwise; the message names ``name`` and the value.
    """
    try:
        arr = np.array(value, dtype=np.float64)
    except (TypeError, ValueError):
        arr = None
    if (
        arr is None
        or arr.ndim != 2
        or arr.shape[1] != 2
        or not 1 <= arr.shape[0] <= MAX_POINTS
        or not np.isfinite(arr).all()
    ):
        raise ValueError(f"{name} must be an (n, 2) array of finite numbers with 1 <= n <= {MAX_POINTS}, got {value!r}")
    return arr


def vector_config(language: str, keys=EXAMPLE_KEYS, values=EXAMPLE_VALUES) -> dict:
    """What :func:`vector_view` needs besides the state, as JSON-able data.

    Parameters
    ----------
    language : {"zh", "en"}
        Language of the interface text.
    keys, values : array_like, shape (n, 2)
        The keys ``k_j`` and the values ``v_j``, one value per key,
        ``1 <= n <= 6``; by default those of the worked example.

    Returns
    -------
    dict
        ``strings`` (the interface text), ``labels`` (the sliders' names),
        ``sliders`` (name -> ``[low, high, step]``), ``keys`` and ``values``
        (lists of ``[x, y]``), ``label_gap`` (pixels), ``decimals`` (of
        a query set on the plot), ``asks`` (whether the prediction is asked:
        with the example's keys and values only) and ``answer_state`` (the
        sliders' values set when it is checked or skipped, :data:`ANSWER_STATE`).
        The same dict is sent to the browser once.

    Raises
    ------
    ValueError
        If ``keys`` or ``values`` is not an ``(n, 2)`` array of finite
        numbers, or they differ in length (the message names both shapes).
    """
    k, v = points(keys, "keys"), points(values, "values")
    if k.shape != v.shape:
        raise ValueError(
            f"keys and values must have the same shape (n, 2), got keys of shape {k.shape} "
            f"and values of shape {v.shape}"
        )
    return {
        "strings": {key: text(key, language) for key in STRING_KEYS},
        "labels": {name: text(key, language) for name, key in _LABELS.items()},
        "sliders": {name: list(bounds) for name, bounds in SLIDERS.items()},
        "keys": k.tolist(),
        "values": v.tolist(),
        "label_gap": LABEL_GAP,
        "decimals": QUERY_DECIMALS,
        "asks": bool(np.array_equal(k, EXAMPLE_KEYS) and np.array_equal(v, EXAMPLE_VALUES)),
        "answer_state": dict(ANSWER_STATE),
    }


def convex_hull(pts) -> np.ndarray:
    """Vertices of the convex hull of 2-D points, counter-clockwise.

    Computed by Qhull (``scipy.spatial.ConvexHull``); duplicates are
    dropped, and points on one line give the segment between the two
    extreme points. The twin ``convexHull`` in ``web/vector.js`` (Andrew's
    monotone chain) gives the same vertices in the same order.

    Parameters
    ----------
    pts : array_like, shape (n, 2)

    Returns
    -------
    hull : ndarray, shape (m, 2)
        ``m <= n`` distinct vertices, starting from the lowest-left one
        (smallest x, then smallest y); 2 when the points are collinear,
        1 when they coincide.

    Examples
    --------
    >>> convex_hull([[1, 0], [0, 1], [1, 1], [0.5, 0.5]]).tolist()
    [[0.0, 1.0], [1.0, 0.0], [1.0, 1.0]]
    """
    # (Imported here: scipy.spatial is a quarter of a second of every process's start that draws no hull.)
    from scipy.spatial import ConvexHull, QhullError

    unique = np.unique(np.asarray(pts, dtype=np.float64).reshape(-1, 2), axis=0)  # sorted rows
    if len(unique) >= 3:
        try:
            hull = unique[ConvexHull(unique).vertices]  # counter-clockwise in 2-D
        except QhullError:  # every point on one line
            pass
        else:
            return np.roll(hull, -int(np.lexsort((hull[:, 1], hull[:, 0]))[0]), axis=0)
    return unique[[0, -1]] if len(unique) > 1 else unique


def attend(query, keys, values, temperature: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Scores, weights and output of one query, from the core.

    Parameters
    ----------
    query : array_like, shape (2,)
    keys, values : array_like, shape (n, 2)
    temperature : float
        ``T > 0``.

    Returns
    -------
    scores, weights : ndarray, shape (n,)
        ``s = q · k_j`` (plain dot products) and ``softmax(s / T)``.
    output : ndarray, shape (2,)
        ``y = Σ_j a_j v_j``, inside the convex hull of the values.

    Raises
    ------
    ValueError
        From the core: a temperature that is not a finite number > 0, a
        non-finite entry, mismatched shapes.
    """
    scores = core.dot_product_scores(query, keys, scale=1.0)[0]  # (1, 2) @ (2, n) -> (n,)
    weights = core.softmax(scores, temperature=temperature)  # (n,)
    output = core.weighted_sum(weights, values)  # (n,) @ (n, 2) -> (2,)
    return scores, weights, output


def point_to_query(x, y, bounds=Q_BOUNDS, decimals: int = QUERY_DECIMALS) -> tuple[float, float] | None:
    """The query a tap or a drag at ``(x, y)`` (data units) sets: clamped to ``bounds``, rounded.

    Returns None when ``x`` or ``y`` is not a finite real number (a deleted
    tip, a string).

    Examples
    --------
    >>> point_to_query(0.5049, -0.251), point_to_query(7.0, -9.0), point_to_query(float("nan"), 0)
    ((0.5, -0.25), (2.0, -2.0), None)
    """
    real = (int, float, np.integer, np.floating)
    if not all(isinstance(c, real) and not isinstance(c, bool) and math.isfinite(c) for c in (x, y)):
        return None
    x, y = float(x), float(y)
    lo, hi = bounds
    # + 0.0: a query of -0.001 becomes 0.0, not -0.0
    return (round(min(max(x, lo), hi), decimals) + 0.0, round(min(max(y, lo), hi), decimals) + 0.0)


def _state_number(state, name: str, lo: float, hi: float) -> float:
    value = state[name] if name in state else None
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float, np.floating, np.integer))
        or not lo <= float(value) <= hi
    ):
        raise ValueError(f"{name} must be a number in [{format_g(lo)}, {format_g(hi)}], got {value!r}")
    return float(value)


def _factor(number: str) -> str:
    """A written number as a factor of a product: a negative one in parentheses, ``1.00×(−1)``, never
    ``1.00×−1`` or ``+ −2.00×0``."""
    return f"({number})" if number.startswith(MINUS) else number


def _sub(j: int) -> str:
    return "".join(_SUB[int(c)] for c in str(j))


def _away(point, direction, centre) -> tuple[float, float]:
    """``direction`` or its opposite, whichever points away from ``centre`` (ties: the opposite)."""
    dx, dy = direction
    dot = dx * (centre[0] - point[0]) + dy * (centre[1] - point[1])  # plain floats, as in JavaScript
    return (-dx, -dy) if dot >= 0 else (dx, dy)


def _label_offsets(directions, gap: float) -> dict:
    """Pixel offsets and alignments that put each label ``gap`` px along its direction."""
    dx, dy, align = [], [], []
    for ddx, ddy in directions:
        norm = math.sqrt(ddx * ddx + ddy * ddy)
        ux, uy = (ddx / norm, ddy / norm) if norm > 1e-12 else (0.7071, -0.7071)
        dx.append(gap * ux)
        dy.append(gap * uy)
        align.append("left" if ux > 0.3 else "right" if ux < -0.3 else "center")
    return {"dx": dx, "dy": dy, "align": align}


def _value_label_offsets(points, directions, gap: float) -> dict:
    """The values' label offsets: as :func:`_label_offsets`, except that a label which would run rightwards
    from a point right of :data:`VALUE_LABEL_EDGE` is centred above or below it (:data:`VALUE_LABEL_RISE`,
    :data:`VALUE_LABEL_DROP`),
    so that "v₁ (5.5×10⁻⁵)" stays inside a phone's plot."""
    out = _label_offsets(directions, gap)
    for j, ((x, _), (ddx, ddy)) in enumerate(zip(points, directions, strict=True)):
        if out["align"][j] == "left" and x > VALUE_LABEL_EDGE:
            out["dx"][j], out["dy"][j], out["align"][j] = (
                0.0,
                VALUE_LABEL_RISE if ddy >= 0 else -VALUE_LABEL_DROP,
                "center",
            )
    return out


def _output_label(y, values, value_offsets: dict) -> dict:
    """The output's label offsets (px) and alignment: left of the star, or right of it where the star sits
    within :data:`OUTPUT_LABEL_NEAR` of a value whose own label runs to the left (20 px: clear of that
    value's dot, 15 px in radius at full weight)."""
    near = [
        j
        for j, (vx, vy) in enumerate(values)
        if math.hypot(y[0] - vx, y[1] - vy) < OUTPUT_LABEL_NEAR and value_offsets["align"][j] == "right"
    ]
    return {"dx": [20.0], "dy": [0.0], "align": ["left"]} if near else {"dx": [-12.0], "dy": [0.0], "align": ["right"]}


def _query_label(qx: float, qy: float) -> dict:
    """The query's label offsets (px) and alignment: up and to the right of the tip, turned inwards near an edge."""
    right, up = qx <= QUERY_LABEL_EDGE, qy <= QUERY_LABEL_EDGE
    return {"dx": [9.0 if right else -9.0], "dy": [12.0 if up else -12.0], "align": ["left" if right else "right"]}


def vector_view(state, config: dict) -> dict:
    """Everything the vector explorable displays for one state.

    Parameters
    ----------
    state : Mapping
        ``query_x``, ``query_y`` (components of ``q``, each in [-2, 2]) and
        ``temperature`` (``T`` in [0.05, 5]), floats; ``prediction`` (one of
        :data:`PREDICTIONS`) and ``revealed`` (bool), both optional.
    config : dict
        :func:`vector_config` of the interface language (and the keys and values).

    Returns
    -------
    dict
        A view (see :mod:`attention_explorable.views`): sources ``query``
        (the tip of ``q``), ``keys`` (tips, label anchors ``lx``, ``ly``,
        pixel offsets ``dx``, ``dy``, ``align``), ``values`` (points,
        ``size`` growing with the weight, labels ``v₁ (0.422)``,
        the readouts' three decimals), ``hull``
        (vertices of the convex hull of the values, counter-clockwise) and
        ``output`` (the point ``y``); no ranges; html
        ``scores_readout``, ``weights_readout``, ``output_readout``,
        ``formula`` (the computation with the current numbers), ``plot_data``
        (the plot's points as a table) and ``live`` (the weights and the
        output, announced once a movement settles) and ``feedback`` (the
        verdict on the prediction and the answer, once revealed); props of
        the sliders and their boxes and of the question's controls
        (``views/choice.py``; all hidden when ``config["asks"]`` is false).

    Raises
    ------
    ValueError
        If a state number is missing, not a number or outside its bounds,
        or the prediction is malformed (the message names it and the value).

    Examples
    --------
    >>> v = vector_view({"query_x": 1.0, "query_y": 0.0, "temperature": 1.0}, vector_config("en"))
    >>> v["sources"]["values"]["label"]
    ['v₁ (0.422)', 'v₂ (0.155)', 'v₃ (0.422)']
    """
    f, S = format_number, config["strings"]
    sliders = config["sliders"]
    qx, qy, temp = (_state_number(state, name, *sliders[name][:2]) for name in SLIDERS)
    choice.check_choice(state, PREDICTIONS)
    prediction, revealed = state.get("prediction", ""), bool(state.get("revealed", False))
    k = np.asarray(config["keys"], dtype=np.float64)
    v = np.asarray(config["values"], dtype=np.float64)
    scores, weights, y = attend([qx, qy], k, v, temp)
    idx = [_sub(j) for j in range(1, len(k) + 1)]

    # Labels sit on the side away from the values' centre: key labels beside
    # the middle of each arrow, value labels beside each point (the tips of
    # keys and values often coincide; they do in the worked example).
    n = len(v)
    cx = cy = 0.0
    for vx, vy in v.tolist():
        cx += vx
        cy += vy
    centre = (cx / n, cy / n)
    gap = float(config["label_gap"])
    mids = [(0.4 * kx, 0.4 * ky) for kx, ky in k.tolist()]
    key_dirs = [_away(m, (-ky, kx), centre) for m, (kx, ky) in zip(mids, k.tolist())]
    value_dirs = [(vx - centre[0], vy - centre[1]) for vx, vy in v.tolist()]
    value_offsets = _value_label_offsets(v.tolist(), value_dirs, gap)
    hull = convex_hull(v)

    dots = "<br>".join(
        f"s{i} = {_factor(f(qx, 2))}×{_factor(format_g(kj[0]))} + {_factor(f(qy, 2))}×{_factor(format_g(kj[1]))}"
        f" = {f(s, 3)}"
        for i, kj, s in zip(idx, k.tolist(), scores)
    )
    terms = " + ".join(
        f"{f(w, 3)}·{format_vector(vj, 0 if all(c == round(c) for c in vj) else 2)}"
        for w, vj in zip(weights, v.tolist())
    )

    def row(kind: str, cells: str) -> str:
        return f"<table><tr><td class='ae-kind'>{kind}</td>{cells}</tr></table>"

    # The plot's data: each point with its coordinates, each value with its weight.
    points_rows = (
        [["q", f(qx, 3), f(qy, 3), ""]]
        + [[f"k{i}", format_g(kx), format_g(ky), ""] for i, (kx, ky) in zip(idx, k.tolist())]
        + [[f"v{i}", format_g(vx), format_g(vy), f(a, 3)] for i, (vx, vy), a in zip(idx, v.tolist(), weights)]
        + [["y", f(y[0], 3), f(y[1], 3), ""]]
    )

    # Predict first (the example only): the answer is the example's query at the lowest temperature.
    if config["asks"]:

        def answer() -> str:
            asked = config["answer_state"]
            _, a_w, a_y = attend([asked["query_x"], asked["query_y"]], k, v, asked["temperature"])
            return S["vector_predict_answer"].format(
                t=format_g(asked["temperature"]), w=format_vector(a_w), y=format_vector(a_y)
            )

        asking = choice.choice_props("vector", S, PREDICTIONS, prediction, revealed, RIGHT_PREDICTION)
        feedback = choice.choice_feedback(S, "vector", prediction, RIGHT_PREDICTION, revealed, answer)
    else:
        asking = {name: {"visible": False} for name in choice.MODELS}
        feedback = ""

    props = {
        **{f"{name}_slider": {"value": value} for name, value in zip(SLIDERS, (qx, qy, temp))},
        **{f"{name}_box": {"value": format_g(value)} for name, value in zip(SLIDERS, (qx, qy, temp))},
        **asking,
    }
    if config["asks"]:  # nothing to try before the prediction
        choice.lock(props, [f"{name}_{part}" for name in SLIDERS for part in ("slider", "box")], revealed)
    return {
        "sources": {
            "query": {"x": [qx], "y": [qy], "label": ["q"], **_query_label(qx, qy)},
            "keys": {
                "x": k[:, 0].tolist(),
                "y": k[:, 1].tolist(),
                "lx": [m[0] for m in mids],
                "ly": [m[1] for m in mids],
                "label": [f"k{i}" for i in idx],
                **_label_offsets(key_dirs, gap),
            },
            "values": {
                "x": v[:, 0].tolist(),
                "y": v[:, 1].tolist(),
                "size": [8.0 + 22.0 * math.sqrt(a) for a in weights.tolist()],
                "label": [f"v{i} ({f(a, 3, html=False)})" for i, a in zip(idx, weights)],
                **value_offsets,
            },
            "hull": {"x": hull[:, 0].tolist(), "y": hull[:, 1].tolist()},
            "output": {
                "x": [float(y[0])],
                "y": [float(y[1])],
                "label": ["y"],
                **_output_label([float(y[0]), float(y[1])], v.tolist(), value_offsets),
            },
        },
        "ranges": {},
        "html": {
            "scores_readout": row(
                S["readout_scores"], "".join(f"<td>s{i} = {f(s, 3)}</td>" for i, s in zip(idx, scores))
            ),
            "weights_readout": row(
                S["readout_weights"], "".join(f"<td>α{i} = {f(a, 3)}</td>" for i, a in zip(idx, weights))
            ),
            "output_readout": row(S["readout_output"], f"<td>y = {format_vector(y)}</td>"),
            "formula": (
                f"<div class='ae-kind'>{S['formula_label']}</div>"
                f"<div class='ae-kind'>{S['vector_formula_scores']}</div>{dots}"
                f"<div class='ae-kind'>{S['vector_formula_weights']}</div>"
                f"α = softmax([{', '.join(f(s, 3) for s in scores)}] / {f(temp, 2)})"
                # (a result kept whole with its "=": a narrow screen breaks the line before it, not after)
                f" <span class='ae-nobreak'>= [{', '.join(f(a, 3) for a in weights)}]</span>"
                f"<div class='ae-kind'>{S['vector_formula_output']}</div>"
                f"y = {terms} <span class='ae-nobreak'>= {format_vector(y)}</span>"
            ),
            "plot_data": data_table(S["vector_plot"], [S["data_name"], "x", "y", S["readout_weights"]], points_rows),
            "live": (
                f"{S['readout_weights']} "
                + ", ".join(f"α{i} = {f(a, 3)}" for i, a in zip(idx, weights))
                + f" · {S['readout_output']} y = {format_vector(y)}"
            ),
            "feedback": feedback,
        },
        "props": props,
    }
