"""What the matrix explorable (section 3.7.7) displays, as one pure function of its state.

:func:`matrix_view` turns a state (``n_tokens``, ``d_k``, ``seed``,
``q1_scale``, ``causal``, ``scaled``) into everything on screen: the score
and weight heatmaps with their numbers written in, the masked cells, each
row's largest cell outlined, the saturation curve with the current ``d_k``
marked, and the readouts. Every number comes from
:mod:`attention_explorable.core`. Its JavaScript twin is ``matrixView`` in
``web/matrix.js``.

Random numbers
--------------
``Q``, ``K`` and ``V`` come from a generator specified identically here and
in ``web/matrix.js``, so that both sides draw bit-identical matrices for
every seed:

* uniform integers: mulberry32 (T. Ettinger, 2017; public domain), a 32-bit
  state advanced by the Weyl increment ``0x6D2B79F5`` and mixed into the
  output by integer multiplications, XORs and shifts modulo ``2**32``. Its
  ``i``-th output (``i = 1, 2, ...``) depends on ``seed + i * 0x6D2B79F5 mod
  2**32`` only, so it is computed here for all ``i`` at once. Integer
  arithmetic only: in JavaScript ``Math.imul`` and ``>>> 0``;
* uniforms ``u = k / 2**32`` in ``[0, 1)``;
* normals by the Irwin–Hall rule ``z = u_1 + ... + u_12 - 6``: mean 0,
  variance exactly 1, every partial sum a multiple of ``2**-32`` below 12,
  hence exact in float64 in both languages. **This is an approximation of a
  standard normal**, not one: ``z`` lies in ``[-6, 6)`` and its tails are
  thinner (``P(|z| > 3)`` is 0.0020 instead of 0.0027). For this
  explorable (typical sizes of dot products, how softmax saturates) the
  difference does not show.

``Q`` takes the first ``n * d_k`` normals of the seed's stream (row by row),
``K`` the next ``n * d_k``, ``V`` the next. The saturation curve is a Monte
Carlo mean over many random matrices, computed in Python with numpy's
generator (true normals) by :func:`saturation_curve`, stored in
``views/matrix_curves.py`` (no page waits for it) and shipped to the
browser as data (:func:`matrix_config`), never recomputed there.

References: course section 3.7.7 ("缩放点积注意力"); A. Vaswani et al.,
"Attention Is All You Need", NeurIPS 2017, eq. (1) and section 3.2.1 (why
divide by ``sqrt(d_k)``).
"""

from __future__ import annotations

import functools
import math

import numpy as np

from .. import core
from ..strings import text
from .numbers import data_table, format_g, format_number
from . import choice

_INT = (int, np.integer)
_REAL = (int, float, np.integer, np.floating)

#: Sliders of the state: name -> (low, high, step).
SLIDERS = {
    "n_tokens": (2, 6, 1),
    "d_k": (1, 64, 1),
    "seed": (0, 9999, 1),
    "q1_scale": (0.0, 4.0, 0.1),
}
#: The seed a page opens with: its scaled rows are soft (largest weight below 0.57 at d_k = 4, 16 and
#: 64), while unscaled the mean largest weight climbs from 0.57 at d_k = 4 to 0.94 at 64, so the
#: contrast the explorable teaches shows from the first view (tests/views/test_matrix_view.py holds it).
DEFAULT_SEED = 5
#: Switches of the state.
TOGGLES = ("causal", "scaled")
#: The student's prediction (asked before the curves show): none yet, or one of the three answers.
PREDICTIONS = ("", "flatter", "peaked", "same")
#: The right one: unscaled, softmax saturates as d_k grows (section 3.7.7).
RIGHT_PREDICTION = "peaked"
#: The course section it belongs to: its prediction is a class question of that section.
SECTION = "3.7"
#: The state of the explorable, in the order of its controls: ``prediction`` and ``revealed`` (the curves
#: shown, after a prediction or a skip) ask first, as the steps explorable does.
STATE_NAMES = ("n_tokens", "d_k", "seed", "q1_scale", "causal", "scaled", "prediction", "revealed")
#: Largest d_k: the right end of the saturation curve.
D_MAX = SLIDERS["d_k"][1]
#: Random draws behind each point of the saturation curve, and their seed (numpy's generator).
CURVE_DRAWS = 2000
CURVE_SEED = 2017

#: mulberry32's Weyl increment and the 32-bit mask.
MULBERRY_INCREMENT = 0x6D2B79F5
_MASK = 0xFFFFFFFF
#: Uniforms summed per Irwin–Hall normal.
IRWIN_HALL_TERMS = 12

#: Heatmap colours. Weights: light to dark blue (ColorBrewer Blues, 9 classes).
#: Scores: red for negative through white to blue for positive (ColorBrewer RdBu, 11 classes).
BLUES = ("#f7fbff", "#deebf7", "#c6dbef", "#9ecae1", "#6baed6", "#4292c6", "#2171b5", "#08519c", "#08306b")
RED_BLUE = (
    "#67001f",
    "#b2182b",
    "#d6604d",
    "#f4a582",
    "#fddbc7",
    "#f7f7f7",
    "#d1e5f0",
    "#92c5de",
    "#4393c3",
    "#2166ac",
    "#053061",
)
MASKED_FILL, MASKED_TEXT = "#e4e4e4", "#777777"
DARK_TEXT, LIGHT_TEXT = "#222222", "#ffffff"
#: Side of a drawn cell and of its outline, in cells.
CELL = 0.96

STRING_KEYS = (
    "matrix_max_weight",
    "matrix_curve_values",
    "matrix_curve_unmasked",
    "matrix_row_sums",
    "matrix_masked_note",
    "matrix_highlight_note",
    "matrix_plot_scores_scaled",
    "matrix_plot_scores_unscaled",
    "input_clamped",
    "input_not_number",
    "matrix_plot_weights",
    "matrix_plot_saturation",
    "matrix_axis_query",
    "matrix_axis_key",
    "matrix_axis_dk",
    "matrix_legend_scaled",
    "matrix_legend_unscaled",
    "matrix_legend_current",
    "matrix_axis_max_weight",
    "matrix_causal",
    "matrix_scaled",
    "matrix_new_seed",
    "matrix_predict_question",
    "matrix_predict_answer",
    "matrix_predict_flatter",
    "matrix_predict_peaked",
    "matrix_predict_same",
    *choice.why_keys("matrix", PREDICTIONS, RIGHT_PREDICTION),
    *choice.STRING_KEYS,
)


# --- the shared random generator ----------------------------------------------------


def mulberry32(seed: int, count: int) -> np.ndarray:
    """The first ``count`` outputs of mulberry32 started at ``seed``.

    Parameters
    ----------
    seed : int
        Initial 32-bit state, ``0 <= seed < 2**32``.
    count : int
        Number of outputs, ``>= 0``.

    Returns
    -------
    ndarray of uint64, shape (count,)
        Integers in ``[0, 2**32)``; the same as ``mulberry32`` in ``web/matrix.js``.

    Raises
    ------
    ValueError
        If ``seed`` or ``count`` is not an integer in range (the message names it).

    Notes
    -----
    Output ``i`` (from 1) of the reference code (T. Ettinger, 2017)::

        a = seed + i * 0x6D2B79F5                    (mod 2**32)
        t = (a ^ a >> 15) * (a | 1)                  (mod 2**32)
        t = ((t + (t ^ t >> 7) * (t | 61)) ^ t)      (mod 2**32)
        out = t ^ t >> 14

    The products of two 32-bit numbers fit in uint64; only their low 32 bits are kept.

    Examples
    --------
    >>> mulberry32(0, 3).tolist()
    [1144304738, 1416247, 958946056]
    """
    for name, value, hi in (("seed", seed, _MASK), ("count", count, None)):
        if isinstance(value, bool) or not isinstance(value, _INT) or value < 0 or (hi and value > hi):
            raise ValueError(f"{name} must be an integer in [0, {hi or '∞'}], got {value!r}")
    m = np.uint64(_MASK)
    i = np.arange(1, count + 1, dtype=np.uint64)
    a = (np.uint64(seed) + i * np.uint64(MULBERRY_INCREMENT)) & m
    t = ((a ^ (a >> np.uint64(15))) * (a | np.uint64(1))) & m
    t = ((t + (((t ^ (t >> np.uint64(7))) * (t | np.uint64(61))) & m)) & m) ^ t
    return t ^ (t >> np.uint64(14))


def irwin_hall_normals(seed: int, count: int) -> np.ndarray:
    """``count`` approximately standard normal numbers from ``seed``: sums of 12 uniforms minus 6.

    Normal ``j`` is ``(k_{12j+1} + ... + k_{12j+12}) / 2**32 - 6`` with ``k``
    the outputs of :func:`mulberry32`: exact in float64 (the integer sum is
    below ``2**36``), hence bit-identical to ``irwinHallNormals`` in
    ``web/matrix.js``. Mean 0, variance 1, values in ``[-6, 6)``: an
    approximation of a normal distribution (Irwin–Hall), see the module notes.

    Returns
    -------
    ndarray of float64, shape (count,)

    Raises
    ------
    ValueError
        From :func:`mulberry32`, for a bad ``seed`` or ``count``.
    """
    if isinstance(count, bool) or not isinstance(count, _INT) or count < 0:
        raise ValueError(f"count must be an integer in [0, ∞], got {count!r}")
    k = mulberry32(seed, IRWIN_HALL_TERMS * count).reshape(count, IRWIN_HALL_TERMS)
    return k.sum(axis=1).astype(np.float64) / 2.0**32 - 6.0


def random_qkv(seed: int, n: int, d_k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Queries, keys and values of the explorable: ``Q``, ``K``, ``V``, each of shape ``(n, d_k)``.

    The first ``3 * n * d_k`` normals of :func:`irwin_hall_normals`, row by
    row: ``Q`` first, then ``K``, then ``V`` (twin: ``randomQKV``).

    Examples
    --------
    >>> q, k, v = random_qkv(0, 2, 3)
    >>> q.shape, k.shape, v.shape
    ((2, 3), (2, 3), (2, 3))
    """
    z = irwin_hall_normals(seed, 3 * n * d_k)
    q, k, v = z.reshape(3, n, d_k)  # (3 * n * d_k,) -> 3 x (n, d_k)
    return q.copy(), k.copy(), v.copy()


# --- the saturation curve (Python only, shipped as data) ---------------------------


@functools.lru_cache(maxsize=None)
def saturation_curve(n: int, draws: int = CURVE_DRAWS, seed: int = CURVE_SEED):
    """Mean largest softmax weight of random ``n x n`` score matrices, per ``d_k``.

    For each ``d_k`` in 1..64, ``draws`` pairs ``Q, K`` of shape ``(n, d_k)``
    with standard normal entries (numpy's generator, not the explorable's
    Irwin–Hall one: a Monte Carlo estimate wants true normals) are scored as
    :func:`~attention_explorable.core.dot_product_scores` scores them (the
    same products, all draws in one batched product; a test holds them to
    the core's, draw by draw), once divided by ``sqrt(d_k)`` and once not,
    turned into weights by
    :func:`~attention_explorable.core.softmax`, and the largest weight of
    each row is averaged over rows and draws. Unscaled, the dot products
    grow like ``sqrt(d_k)`` and the softmax saturates towards 1; scaled,
    it stays moderate. Cached; the pages read the curves stored by
    :func:`curves_source` instead (a second or more on a busy machine).

    Parameters
    ----------
    n : int
        Number of queries and keys, ``>= 1``.
    draws : int, default 2000
        Random draws per ``d_k``, ``>= 1``.
    seed : int, default 2017
        Seed of :func:`numpy.random.default_rng`.

    Returns
    -------
    d, scaled, unscaled : ndarray, shape (64,)
        ``d = 1..64`` and the two mean largest weights (read-only arrays).

    Raises
    ------
    ValueError
        If ``n < 1`` or ``draws < 1``.

    Examples
    --------
    >>> d, scaled, unscaled = saturation_curve(4)
    >>> bool(unscaled[63] > 0.85 and scaled[63] < 0.6)
    True
    """
    if n < 1 or draws < 1:
        raise ValueError(f"need n >= 1 and draws >= 1, got n={n!r}, draws={draws!r}")
    rng = np.random.default_rng(seed)
    d = np.arange(1, D_MAX + 1)
    scaled, unscaled = np.empty(D_MAX), np.empty(D_MAX)
    for i, d_k in enumerate(d):
        q = rng.standard_normal((draws * n, d_k)).reshape(draws, n, d_k)
        k = rng.standard_normal((draws * n, d_k)).reshape(draws, n, d_k)
        # The products of core.dot_product_scores, for all draws at once (the 2-D core
        # would take one call per draw): (draws, n, d_k) @ (draws, d_k, n) -> (draws, n, n)
        raw = q @ k.transpose(0, 2, 1)
        # scale=None in the core multiplies the same products by 1 / sqrt(d_k)
        for scores, curve in ((raw * (1.0 / math.sqrt(d_k)), scaled), (raw, unscaled)):
            weights = core.softmax(scores, axis=-1)  # (draws, n, n)
            curve[i] = weights.max(axis=-1).mean()
    for arr in (d, scaled, unscaled):
        arr.setflags(write=False)
    return d, scaled, unscaled


#: Decimals kept of the stored curves (the page shows three).
CURVE_DECIMALS = 6


def curves_source() -> str:
    """The text of ``views/matrix_curves.py``: :func:`saturation_curve` of every ``n`` of the slider.

    Run ``python -m attention_explorable.views.matrix`` to write it again
    after changing the curve's definition; a test recomputes the curves and
    compares them with the stored ones.
    """
    lo, hi, _ = SLIDERS["n_tokens"]
    lines = [
        '"""Saturation curves of the matrix explorable, stored so that no page waits for them.',
        "",
        "Written by ``python -m attention_explorable.views.matrix`` from ``saturation_curve(n)``",
        f"({CURVE_DRAWS} draws, seed {CURVE_SEED}, d_k = 1..{D_MAX}), rounded to {CURVE_DECIMALS} decimals; do not edit.",
        "tests/views/test_matrix_view.py computes them again and compares.",
        '"""',
        "",
        "#: n -> mean largest weight for d_k = 1..64, scores divided by sqrt(d_k) and not.",
        "SCALED, UNSCALED = {}, {}",
    ]
    for n in range(lo, hi + 1):
        _, scaled, unscaled = saturation_curve(n)
        for name, curve in (("SCALED", scaled), ("UNSCALED", unscaled)):
            values = [f"{round(float(x), CURVE_DECIMALS)!r}" for x in curve]
            lines.append(f"{name}[{n}] = (")
            lines += ["    " + ", ".join(values[i : i + 8]) + "," for i in range(0, len(values), 8)]
            lines.append(")")
    return "\n".join(lines) + "\n"


def matrix_config(language: str) -> dict:
    """What :func:`matrix_view` needs besides the state, as JSON-able data.

    ``strings`` (the interface text in ``language``), ``labels`` (the
    sliders' names), ``sliders`` (name -> ``[low, high, step]``),
    ``curves`` (``str(n)`` -> ``{"d", "scaled", "unscaled"}``, the
    saturation curve of every ``n`` the slider allows, read from
    ``views/matrix_curves.py``, see :func:`saturation_curve`) and
    ``curve_draws``. The same dict is sent to the browser once.
    """
    from .matrix_curves import SCALED, UNSCALED

    lo, hi, _ = SLIDERS["n_tokens"]
    d = list(range(1, D_MAX + 1))
    curves = {str(n): {"d": d, "scaled": list(SCALED[n]), "unscaled": list(UNSCALED[n])} for n in range(lo, hi + 1)}
    return {
        "strings": {key: text(key, language) for key in STRING_KEYS},
        "labels": {name: text(f"matrix_{name}", language) for name in SLIDERS},
        "sliders": {name: list(bounds) for name, bounds in SLIDERS.items()},
        "curves": curves,
        "curve_draws": CURVE_DRAWS,
    }


# --- the numbers ----------------------------------------------------------------------


def check_state(state) -> None:
    """Refuse a state the explorable cannot show.

    Raises
    ------
    ValueError
        If a slider's value is not a finite number within its bounds (an
        integer for ``n_tokens``, ``d_k`` and ``seed``), or a switch is not a
        bool, or ``prediction`` is not one of :data:`PREDICTIONS`; the message names the
        parameter and the value. (``prediction`` and ``revealed`` are checked when given: the
        matrices do not depend on them.)
    """
    for name, (lo, hi, step) in SLIDERS.items():
        value = state[name]
        kind = "an integer" if isinstance(step, int) else "a number"
        ok = (
            isinstance(value, _REAL)
            and not isinstance(value, bool)
            and math.isfinite(value)
            and lo <= value <= hi
            and (not isinstance(step, int) or value == int(value))
        )
        if not ok:
            raise ValueError(f"{name} must be {kind} in [{format_g(lo)}, {format_g(hi)}], got {value!r}")
    for name in TOGGLES:
        if not isinstance(state[name], (bool, np.bool_)):
            raise ValueError(f"{name} must be true or false, got {state[name]!r}")
    choice.check_choice(state, PREDICTIONS)


def attention_matrices(state) -> dict:
    """The matrices of one state, from :mod:`attention_explorable.core`.

    Parameters
    ----------
    state : Mapping
        ``n_tokens`` (n, 2-6), ``d_k`` (1-64), ``seed`` (0-9999),
        ``q1_scale`` (factor of the first query, 0-4), ``causal``, ``scaled`` (bools).

    Returns
    -------
    dict
        ``q``, ``k``, ``v`` (n, d_k); ``mask`` (n, n) bool, True where query
        i may attend key j; ``scores`` (n, n), ``q @ k.T`` times
        ``1/sqrt(d_k)`` if scaled, ``-inf`` where masked; ``weights`` (n, n),
        each row summing to 1 (exactly 0 where masked; a fully masked row,
        which a causal mask never makes, would be all 0); ``row_max`` (n,)
        and ``mean_max_weight`` (float), the mean of the rows' largest weights.

    Raises
    ------
    ValueError
        From :func:`check_state`.
    """
    check_state(state)
    n, d_k = int(state["n_tokens"]), int(state["d_k"])
    q, k, v = random_qkv(int(state["seed"]), n, d_k)  # each (n, d_k)
    q[0] *= float(state["q1_scale"])  # a longer first query: its row of scores grows
    scale = None if state["scaled"] else 1.0  # None: 1 / sqrt(d_k)
    mask = core.causal_mask(n) if state["causal"] else np.ones((n, n), dtype=bool)
    scores, weights, _ = core.attention(q, k, v, mask=mask, scale=scale)  # (n, n) each, -inf where masked
    row_max = weights.max(axis=1)  # (n,)
    return {
        "q": q,
        "k": k,
        "v": v,
        "mask": mask,
        "scores": scores,
        "weights": weights,
        "row_max": row_max,
        "mean_max_weight": float(row_max.mean()),
    }


def ramp(colors, t: float) -> str:
    """The colour a fraction ``t`` in [0, 1] along ``colors``, linearly between neighbours.

    Each channel is rounded half up (``floor(c + 0.5)``), as in the JavaScript twin.

    Examples
    --------
    >>> ramp(BLUES, 0.0), ramp(BLUES, 1.0), ramp(("#000000", "#ffffff"), 0.5)
    ('#f7fbff', '#08306b', '#808080')
    """
    x = min(max(float(t), 0.0), 1.0) * (len(colors) - 1)
    i = min(int(x), len(colors) - 2)
    f = x - i
    a, b = colors[i], colors[i + 1]
    channels = []
    for c in (1, 3, 5):
        lo, hi = int(a[c : c + 2], 16), int(b[c : c + 2], 16)
        channels.append(math.floor(lo + (hi - lo) * f + 0.5))
    return "#" + "".join(f"{c:02x}" for c in channels)


def heat_cells(values, masked, diverging: bool, limit: float = 1.0) -> tuple[list[str], list[str]]:
    """Fill and text colours of heatmap cells.

    Weights in [0, 1] go from light to dark blue; with ``diverging``, scores
    in ``[-limit, limit]`` from red (negative) through white to blue
    (positive), so that a large score and its large weight are both blue.
    Masked cells are grey. The text is white on dark cells.
    """
    fill, colour = [], []
    for value, m in zip(values, masked):
        if m:
            fill.append(MASKED_FILL)
            colour.append(MASKED_TEXT)
        elif diverging:
            t = min(max(value / limit, -1.0), 1.0)
            fill.append(ramp(RED_BLUE, (t + 1.0) / 2.0))
            colour.append(LIGHT_TEXT if abs(t) > 0.55 else DARK_TEXT)
        else:
            fill.append(ramp(BLUES, value))
            colour.append(LIGHT_TEXT if value > 0.5 else DARK_TEXT)
    return fill, colour


def heatmap_sources(scores, weights, mask) -> dict:
    """The cells of the score and weight heatmaps of an (n, n) attention.

    Parameters
    ----------
    scores, weights : ndarray, shape (n, n)
        Scores (any finite value where ``mask`` is True) and weights (in [0, 1]).
    mask : ndarray of bool, shape (n, n)
        True where a query may attend a key.

    Returns
    -------
    dict
        ``score_cells`` and ``weight_cells``, each with columns ``x`` (key j from 1), ``y``
        (query i from 1), ``fill``, ``text_color`` and ``text`` (two decimals; a masked cell
        grey, its score "−∞" and its weight "—"), cell ``c`` being row ``c // n``, column ``c % n``;
        the scores' colours span ± their largest magnitude. Twin: ``heatmapSources`` in ``web/matrix.js``.
    """
    n = len(weights)
    masked = (~np.asarray(mask)).ravel().tolist()
    ii, jj = np.divmod(np.arange(n * n), n)  # cell c is row i = c // n, column j = c % n
    xs, ys = (jj + 1).tolist(), (ii + 1).tolist()
    flat_scores, flat_weights = np.asarray(scores).ravel().tolist(), np.asarray(weights).ravel().tolist()
    limit = max((abs(s) for s, m in zip(flat_scores, masked) if not m), default=0.0) or 1.0
    score_fill, score_colour = heat_cells(flat_scores, masked, diverging=True, limit=limit)
    weight_fill, weight_colour = heat_cells(flat_weights, masked, diverging=False)
    return {
        "score_cells": {
            "x": xs,
            "y": ys,
            "fill": score_fill,
            "text_color": score_colour,
            "text": ["−∞" if m else format_number(s, 2, html=False) for s, m in zip(flat_scores, masked)],
        },
        "weight_cells": {
            "x": list(xs),
            "y": list(ys),
            "fill": weight_fill,
            "text_color": weight_colour,
            "text": ["—" if m else format_number(w, 2, html=False) for w, m in zip(flat_weights, masked)],
        },
    }


# --- the view -------------------------------------------------------------------------


def matrix_view(state, config: dict) -> dict:
    """Everything the matrix explorable displays for one state.

    Parameters
    ----------
    state : Mapping
        See :func:`attention_matrices`.
    config : dict
        :func:`matrix_config` of the interface language.

    Returns
    -------
    dict
        A view (see :mod:`attention_explorable.views`): sources
        ``score_cells``, ``weight_cells`` (columns ``x`` = key j, ``y`` =
        query i, from 1; ``fill``, ``text``, ``text_color``), ``highlight``
        (each row's largest cells, ties all outlined: ``x``, ``y``, ``width``, ``height``),
        ``curve`` (``d``, ``scaled``, ``unscaled``) and ``mark`` (the current
        ``d_k``: ``d``, ``scaled``, ``unscaled``, ``current``, ``y0``,
        ``y1``); ranges ``score_x``, ``score_y``, ``weight_x``, ``weight_y``
        (y runs downwards); html ``max_weight``, ``row_sums``, ``notes``, the
        plots' data as tables ``scores_data``, ``weights_data``,
        ``curve_data``, and ``live`` (announced once a movement settles);
        props of the sliders and their boxes, the switches, ``score_title``.

    Raises
    ------
    ValueError
        From :func:`check_state`, naming the parameter and the value.
    """
    f, S = format_number, config["strings"]
    res = attention_matrices(state)
    n, d_k = int(state["n_tokens"]), int(state["d_k"])
    scores, weights, mask = res["scores"], res["weights"], res["mask"]
    cells = heatmap_sources(scores, weights, mask)
    # (j, i) of each row's largest weight, every one of equals (a row of q₁ = 0 is all equal)
    top = [(j, i) for i, row in enumerate(weights.tolist()) for j, w in enumerate(row) if w == max(row) > 0.0]

    curve = config["curves"][str(n)]
    curve_scaled, curve_unscaled = curve["scaled"][d_k - 1], curve["unscaled"][d_k - 1]
    mean_max = res["mean_max_weight"]
    curve_text = S["matrix_curve_values"].format(
        draws=config["curve_draws"], n=n, d=d_k, scaled=f(curve_scaled, 3), unscaled=f(curve_unscaled, 3)
    )
    revealed, prediction = bool(state["revealed"]), state["prediction"]
    notes = S["matrix_highlight_note"] + ("<br>" + S["matrix_masked_note"] if state["causal"] else "")
    notes += "<br>" + S["matrix_curve_unmasked"] if state["causal"] and revealed else ""  # (once the curves show)
    props = {}
    for name in SLIDERS:
        props[f"{name}_slider"] = {"value": state[name]}
        props[f"{name}_box"] = {"value": format_g(state[name])}
    for name in TOGGLES:
        props[f"{name}_toggle"] = {"active": bool(state[name])}
    props["score_title"] = {
        "text": S["matrix_plot_scores_scaled" if state["scaled"] else "matrix_plot_scores_unscaled"]
    }
    # Predict first: the question's buttons until a prediction is checked or skipped, then the curves.
    props.update(choice.choice_props("matrix", S, PREDICTIONS, prediction, revealed, RIGHT_PREDICTION))
    locked = [n for n in props if n.endswith(("_slider", "_box", "_toggle"))] + ["new_seed"]
    choice.lock(props, locked, revealed)  # nothing to try before the prediction
    props["curve_plot"] = {"visible": revealed}
    score_text, weight_text = cells["score_cells"]["text"], cells["weight_cells"]["text"]
    # The plots' data as tables: the two matrices (row = query i, column = key j) and the curves.
    corner = [f"{S['matrix_axis_query']} / {S['matrix_axis_key']}", *(str(j) for j in range(1, n + 1))]

    def matrix_table(caption: str, cells: list[str]) -> str:
        return data_table(caption, corner, [[str(i + 1), *cells[i * n : (i + 1) * n]] for i in range(n)])

    curve_rows = [[format_g(d), f(a, 3), f(b, 3)] for d, a, b in zip(curve["d"], curve["scaled"], curve["unscaled"])]
    feedback = choice.choice_feedback(
        S,
        "matrix",
        prediction,
        RIGHT_PREDICTION,
        revealed,
        lambda: S["matrix_predict_answer"].format(
            n=n,
            u1=f(curve["unscaled"][0], 2),
            u64=f(curve["unscaled"][-1], 2),
            s1=f(curve["scaled"][0], 2),
            s64=f(curve["scaled"][-1], 2),
        ),
    )
    return {
        "sources": {
            **cells,
            "highlight": {
                "x": [j + 1 for j, _ in top],
                "y": [i + 1 for _, i in top],
                "width": [CELL] * len(top),
                "height": [CELL] * len(top),
            },
            "curve": {"d": list(curve["d"]), "scaled": list(curve["scaled"]), "unscaled": list(curve["unscaled"])},
            "mark": {
                "d": [d_k],
                "scaled": [curve_scaled],
                "unscaled": [curve_unscaled],
                "current": [mean_max],
                "y0": [0.0],
                "y1": [1.0],
            },
        },
        "ranges": {
            "score_x": [0.5, n + 0.5],
            "score_y": [n + 0.5, 0.5],
            "weight_x": [0.5, n + 0.5],
            "weight_y": [n + 0.5, 0.5],
        },
        "html": {
            "max_weight": (
                f"<div class='ae-kind'>{S['matrix_max_weight']}</div><b class='ae-matrix-mean-max'>"
                f"{f(mean_max)}</b>" + (f"<br><span class='ae-hint'>{curve_text}</span>" if revealed else "")
            ),
            "feedback": feedback,
            "row_sums": (
                f"<span class='ae-kind'>{S['matrix_row_sums']}</span> "
                + ", ".join(f(s, 3) for s in weights.sum(axis=1).tolist())
            ),
            "notes": f"<span class='ae-hint'>{notes}</span>",
            "scores_data": matrix_table(props["score_title"]["text"], score_text),
            "weights_data": matrix_table(S["matrix_plot_weights"], weight_text),
            "curve_data": data_table(
                S["matrix_plot_saturation"],
                [S["matrix_axis_dk"], S["matrix_legend_scaled"], S["matrix_legend_unscaled"]],
                curve_rows,
            )
            if revealed
            else "",
            "live": f"{S['matrix_max_weight']}: {f(mean_max)}",
        },
        "props": props,
    }


if __name__ == "__main__":  # python -m attention_explorable.views.matrix: store the curves again
    from pathlib import Path

    Path(__file__).with_name("matrix_curves.py").write_text(curves_source(), encoding="utf-8")
