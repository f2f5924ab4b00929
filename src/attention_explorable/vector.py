"""The worked example of section 3.7: one query, three keys, three values, in the plane."""

from __future__ import annotations

import numpy as np
import panel as pn
import param
from bokeh.events import Tap
from bokeh.models import ColumnDataSource
from scipy.spatial import ConvexHull, QhullError

from . import core, plots, ui
from .strings import DEFAULT_LANGUAGE, STRINGS, text

_Q_BOUNDS = (-2.0, 2.0)
_T_BOUNDS = (0.05, 5.0)
_MAX_POINTS = 6
_SUB = "₀₁₂₃₄₅₆₇₈₉"

#: The keys and values of the worked example in section 3.7.6.
EXAMPLE_KEYS = ((1.0, 0.0), (0.0, 1.0), (1.0, 1.0))
EXAMPLE_VALUES = ((1.0, 0.0), (0.0, 1.0), (1.0, 1.0))


class _Points(param.Array):
    """An ``(n, 2)`` array of finite numbers, ``1 <= n <= 6``."""

    def _validate(self, val):
        super()._validate(val)
        arr = np.asarray(val)
        if (arr.ndim != 2 or arr.shape[1] != 2 or not 1 <= arr.shape[0] <= _MAX_POINTS
                or not np.issubdtype(arr.dtype, np.number) or not np.isfinite(arr).all()):
            raise ValueError(f"{self.name} must be an (n, 2) array of finite numbers with "
                             f"1 <= n <= {_MAX_POINTS}, got {val!r}")


def convex_hull(points) -> np.ndarray:
    """Vertices of the convex hull of 2-D points, counter-clockwise.

    Computed by Qhull (``scipy.spatial.ConvexHull``); points on one line
    give the segment between the two extreme points.

    Parameters
    ----------
    points : array_like, shape (n, 2)

    Returns
    -------
    hull : ndarray, shape (m, 2)
        ``m <= n`` distinct vertices, starting from the lowest-left one;
        fewer than 3 when the points are collinear.

    Examples
    --------
    >>> convex_hull([[1, 0], [0, 1], [1, 1], [0.5, 0.5]]).tolist()
    [[0.0, 1.0], [1.0, 0.0], [1.0, 1.0]]
    """
    pts = np.unique(np.asarray(points, dtype=np.float64).reshape(-1, 2), axis=0)  # sorted rows
    if len(pts) >= 3:
        try:
            hull = pts[ConvexHull(pts).vertices]  # counter-clockwise in 2-D
        except QhullError:  # every point on one line
            pass
        else:
            return np.roll(hull, -int(np.lexsort((hull[:, 1], hull[:, 0]))[0]), axis=0)
    return pts[[0, -1]] if len(pts) > 1 else pts


def _sub(j: int) -> str:
    return "".join(_SUB[int(c)] for c in str(j))


def _vec(v, digits: int = 3) -> str:
    return "[" + ", ".join(ui.format_number(x, digits) for x in v) + "]"


def _away(point, direction, centre) -> np.ndarray:
    """``direction`` or its opposite, whichever points away from ``centre`` (ties: the opposite)."""
    d = np.asarray(direction, dtype=np.float64)
    return -d if np.dot(d, np.asarray(centre) - point) >= 0 else d


def _label_offsets(directions, gap: float = 13.0) -> dict:
    """Pixel offsets and alignments that put each label ``gap`` px along its direction."""
    dx, dy, align = [], [], []
    for d in directions:
        norm = float(np.hypot(*d))
        ux, uy = (d[0] / norm, d[1] / norm) if norm > 1e-12 else (0.7071, -0.7071)
        dx.append(gap * ux)
        dy.append(gap * uy)
        align.append("left" if ux > 0.3 else "right" if ux < -0.3 else "center")
    return {"dx": dx, "dy": dy, "align": align}


class VectorExplorer(pn.viewable.Viewer):
    """One query against a few keys and values in the plane (section 3.7.6).

    The student moves the query ``q`` with two sliders or by dragging (or
    tapping) its tip on the plot, and watches the scores, the weights and
    the output ``y`` move; ``y`` never leaves the convex hull of the values.
    All numbers come from :mod:`attention_explorable.core`, with plain dot
    products (``scale=1``, as in the worked example)::

        s = q @ keys.T                      # (2,) @ (2, n) -> (n,)
        a = softmax(s / T)                  # (n,), non-negative, sums to 1
        y = a @ values                      # (n,) @ (n, 2) -> (2,)

    The default state reproduces the text: scores 1, 0, 1; weights 0.422,
    0.155, 0.422; output ``y = [0.845, 0.578]``.

    Parameters
    ----------
    query_x, query_y : float
        Components of the query ``q``, each in [-2, 2]; default ``q = [1, 0]``.
    temperature : float
        Softmax temperature ``T`` in [0.05, 5]; default 1.
    keys : ndarray, shape (n, 2)
        Keys ``k_j``, ``1 <= n <= 6``; default ``[1, 0], [0, 1], [1, 1]``.
    values : ndarray, shape (n, 2)
        Values ``v_j``, one per key; default equal to the keys.
    language : {"zh", "en"}
        Language of the interface text (constant after construction).

    Attributes
    ----------
    scores, weights : ndarray, shape (n,)
        The current scores and weights (each row of weights sums to 1).
    output : ndarray, shape (2,)
        The current output ``y``.

    Raises
    ------
    ValueError
        When a number is set outside its bounds, or ``keys``/``values`` is not
        an ``(n, 2)`` array of finite numbers (the message names the
        parameter and the value); from the constructor also when ``keys`` and
        ``values`` differ in length. A mismatch set later is reported in the
        ``ae-error`` pane and leaves the last valid picture in place.

    References
    ----------
    Course section 3.7.6 ("手算一个小例子") and 3.7.5 (convex hull);
    A. Vaswani et al., "Attention Is All You Need", NeurIPS 2017.

    Examples
    --------
    >>> ex = VectorExplorer()
    >>> ex.weights.round(3).tolist(), ex.output.round(3).tolist()
    ([0.422, 0.155, 0.422], [0.845, 0.578])
    """

    query_x = param.Number(1.0, bounds=_Q_BOUNDS, step=0.05, doc="First component of the query q.")
    query_y = param.Number(0.0, bounds=_Q_BOUNDS, step=0.05, doc="Second component of the query q.")
    temperature = param.Number(1.0, bounds=_T_BOUNDS, step=0.05,
                               doc="Softmax temperature T > 0: low sharpens, high flattens.")
    keys = _Points(np.array(EXAMPLE_KEYS), doc="Keys k_j, an (n, 2) array, 1 <= n <= 6.")
    values = _Points(np.array(EXAMPLE_VALUES), doc="Values v_j, an (n, 2) array, one per key.")
    language = param.Selector(default=DEFAULT_LANGUAGE, objects=list(STRINGS), constant=True,
                              doc="Language of the interface text.")

    def __init__(self, **params):
        super().__init__(**params)
        if self.keys.shape != self.values.shape:
            raise ValueError(f"keys and values must have the same shape (n, 2), got keys of shape "
                             f"{self.keys.shape} and values of shape {self.values.shape}")
        t = self._t
        self.scores = self.weights = self.output = np.zeros(0)
        self._pushing = False

        self._query = ColumnDataSource({"x": [], "y": [], "label": []})
        self._keys = ColumnDataSource({"x": [], "y": [], "label": []})
        self._values = ColumnDataSource({"x": [], "y": [], "label": [], "size": []})
        self._hull = ColumnDataSource({"x": [], "y": []})
        self._output = ColumnDataSource({"x": [], "y": [], "label": []})
        self._figure = plots.vector_figure(
            self._query, self._keys, self._values, self._hull, self._output, t("vector_plot"),
            {"query": t("vector_legend_query"), "key": t("vector_legend_key"),
             "value": t("vector_legend_value"), "hull": t("vector_legend_hull"),
             "output": t("vector_legend_output")}, extent=_Q_BOUNDS[1])
        self._figure.css_classes = ["ae-vector-plot"]
        self._query.on_change("data", self._on_drag)
        self._figure.on_event(Tap, self._on_tap)

        self._scores_readout = ui.readout("ae-vector-scores")
        self._weights_readout = ui.readout("ae-vector-weights")
        self._output_readout = ui.readout("ae-vector-output")
        self._formula = ui.readout("ae-vector-formula")
        self._error = pn.pane.HTML("", css_classes=["ae-error"], visible=False)
        self._controls = {
            name: ui.EditableFloatSlider.from_param(
                getattr(self.param, name), name=t(label), css_classes=[css],
                message_template=t("input_clamped"), sizing_mode="stretch_width", format="0.00")
            for name, label, css in (("query_x", "vector_query_x", "ae-query-x"),
                                     ("query_y", "vector_query_y", "ae-query-y"),
                                     ("temperature", "temperature", "ae-vector-temperature"))
        }
        self._notice = ui.input_notice(self._controls.values())
        self._update()

    def _t(self, key, **fmt):
        return text(key, self.language, **fmt)

    # --- the plot moves the query -------------------------------------------
    def _set_query(self, x, y):
        lo, hi = _Q_BOUNDS
        self.param.update(query_x=round(min(max(float(x), lo), hi), 2),
                          query_y=round(min(max(float(y), lo), hi), 2))

    def _on_drag(self, attr, old, new):
        if self._pushing:
            return
        try:
            x, y = float(new["x"][0]), float(new["y"][0])
        except (KeyError, IndexError, TypeError, ValueError):
            x = y = float("nan")
        if not (np.isfinite(x) and np.isfinite(y)):
            self._update()  # the tip was deleted (Backspace) or is not a number: put it back
            return
        before = (self.query_x, self.query_y)
        self._set_query(x, y)
        if (self.query_x, self.query_y) == before:
            self._update()  # a clamped drag changes no parameter: snap the tip back

    def _on_tap(self, event):
        self._set_query(event.x, event.y)

    # --- the one updater ------------------------------------------------------
    @param.depends("query_x", "query_y", "temperature", "keys", "values", watch=True)
    def _update(self):
        # Panel runs some events without the Bokeh document lock; unlocked()
        # holds and dispatches the raw Bokeh model changes safely either way.
        with pn.io.unlocked():
            self._pushing = True
            try:
                self._push()
            finally:
                self._pushing = False

    def _push(self):
        t, f = self._t, ui.format_number
        q = np.array([self.query_x, self.query_y])
        k, v, temp = self.keys, self.values, self.temperature
        try:
            scores = core.dot_product_scores(q, k, scale=1.0)[0]  # (1, 2) @ (2, n) -> (n,)
            out, weights = core.scaled_dot_product_attention(q, k, v, temperature=temp, scale=1.0)
        except ValueError as exc:  # only reachable by setting keys/values of different lengths
            self._error.object = f"{t('error_prefix')}{exc}"
            self._error.visible = True
            return
        self._error.visible = False
        self.scores, self.weights, self.output = scores, weights[0], out[0]
        a, y, n = weights[0], out[0], len(k)
        idx = [_sub(j) for j in range(1, n + 1)]

        centre = v.mean(axis=0)
        self._query.data = {"x": [q[0]], "y": [q[1]], "label": ["q"]}
        # Key labels sit beside the middle of each arrow, value labels beside
        # each point, both on the side away from the values: the tips of keys
        # and values often coincide (they do in the worked example).
        mids = 0.4 * k
        self._keys.data = {"x": k[:, 0], "y": k[:, 1], "lx": mids[:, 0], "ly": mids[:, 1],
                           "label": [f"k{i}" for i in idx],
                           **_label_offsets([_away(m, (-kj[1], kj[0]), centre) for m, kj in zip(mids, k)])}
        self._values.data = {"x": v[:, 0], "y": v[:, 1], "size": 8.0 + 22.0 * np.sqrt(a),
                             "label": [f"v{i} ({f(w, 2, html=False)})" for i, w in zip(idx, a)],
                             **_label_offsets([vj - centre for vj in v])}
        hull = convex_hull(v)
        self._hull.data = {"x": hull[:, 0], "y": hull[:, 1]}
        self._output.data = {"x": [y[0]], "y": [y[1]], "label": ["y"]}

        cells = "".join(f"<td>s{i} = {f(s, 3)}</td>" for i, s in zip(idx, scores))
        self._scores_readout.object = f"<table><tr><td class='ae-kind'>{t('readout_scores')}</td>{cells}</tr></table>"
        cells = "".join(f"<td>α{i} = {f(w, 3)}</td>" for i, w in zip(idx, a))
        self._weights_readout.object = (f"<table><tr><td class='ae-kind'>{t('readout_weights')}</td>"
                                        f"{cells}</tr></table>")
        self._output_readout.object = (f"<table><tr><td class='ae-kind'>{t('readout_output')}</td>"
                                       f"<td>y = {_vec(y)}</td></tr></table>")
        dots = "<br>".join(
            f"s{i} = {f(q[0], 2)}×{kj[0]:g} + {f(q[1], 2)}×{kj[1]:g} = {f(s, 3)}"
            for i, kj, s in zip(idx, k, scores))
        terms = " + ".join(f"{f(w, 3)}·{_vec(vj, 0) if np.all(vj == np.round(vj)) else _vec(vj, 2)}"
                           for w, vj in zip(a, v))
        self._formula.object = (
            f"<div class='ae-kind'>{t('formula_label')}</div>"
            f"<div class='ae-kind'>{t('vector_formula_scores')}</div>{dots}"
            f"<div class='ae-kind'>{t('vector_formula_weights')}</div>"
            f"α = softmax([{', '.join(f(s, 3) for s in scores)}] / {f(temp, 2)})"
            f" = [{', '.join(f(w, 3) for w in a)}]"
            f"<div class='ae-kind'>{t('vector_formula_output')}</div>"
            f"y = {terms} = {_vec(y)}"
        )

    # --- layout only ----------------------------------------------------------
    def __panel__(self):
        c = self._controls
        intro = pn.pane.HTML(f"<p style='margin:0'>{self._t('vector_intro')}</p>", margin=(0, 5),
                             sizing_mode="stretch_width")
        plot = pn.Column(self._figure, styles={"flex": "1 1 340px", "max-width": "540px", "min-width": "0"})
        side = pn.Column(
            intro, c["query_x"], c["query_y"], c["temperature"], self._notice, self._error,
            self._scores_readout, self._weights_readout, self._output_readout, self._formula,
            styles={"flex": "1 1 300px", "max-width": "560px", "min-width": "0"},
        )
        return pn.FlexBox(plot, side, flex_wrap="wrap", sizing_mode="stretch_width",
                          css_classes=["ae-vector"], styles={"gap": "12px"})
