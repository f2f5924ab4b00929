"""The worked example of section 3.7.6: one query, a few keys and values, in the plane.

Its view is :func:`attention_explorable.views.vector.vector_view`; in the
browser ``web/vector.js`` draws it and handles the student's actions.
"""

from __future__ import annotations

import numpy as np
import panel as pn
import param
from bokeh.models import ColumnDataSource

from .. import plots
from ..views import vector as vector_view
from ..views.vector import EXAMPLE_KEYS, EXAMPLE_VALUES, MAX_POINTS, SLIDERS
from . import controls
from .base import Explorable, Tried, bokeh_pane, html_model, prediction_models, screen_reader_model


class _Points(param.Array):
    """A read-only ``(n, 2)`` array of finite numbers, ``1 <= n <= 6``."""

    def _validate(self, val):
        super()._validate(val)
        vector_view.points(val, self.name)


class VectorExplorer(Explorable):
    """One query against a few keys and values in the plane (section 3.7.6).

    The student moves the query ``q`` with two sliders, by typing its
    components, or by dragging (or tapping) its tip on the plot, and watches
    the scores, the weights and the output ``y`` move; ``y`` never leaves the
    convex hull of the values. All numbers come from
    :mod:`attention_explorable.core`, with plain dot products (``scale=1``,
    as in the worked example)::

        s = q @ keys.T                      # (2,) @ (2, n) -> (n,)
        a = softmax(s / T)                  # (n,), non-negative, sums to 1
        y = a @ values                      # (n,) @ (n, 2) -> (2,)

    The default state reproduces the text: scores 1, 0, 1; weights 0.422,
    0.155, 0.422; output ``y = [0.845, 0.578]``. In a Panel app every action
    of the student calls Python back, which draws the change; its student
    page, textbook block and notebook widget are its module (``web/vector.js``).

    Parameters
    ----------
    query_x, query_y : float
        Components of the query ``q``, each in [-2, 2]; default ``q = [1, 0]``.
    temperature : float
        Softmax temperature ``T`` in [0.05, 5]; default 1.
    prediction : {"", "first", "third", "midpoint", "centroid"}
        Where the student predicts ``y`` stops as ``T`` falls to 0.05 with ``q = [1, 0]`` (asked with
        the example's keys and values only); "" for none.
    revealed : bool
        Whether the answer is shown: set, with ``q = [1, 0]`` and ``T = 0.05``, when the prediction
        is checked or skipped.
    keys : ndarray, shape (n, 2)
        Keys ``k_j``, ``1 <= n <= 6``; default ``[1, 0], [0, 1], [1, 1]``.
        Constant after construction (stored read-only).
    values : ndarray, shape (n, 2)
        Values ``v_j``, one per key; default equal to the keys. Constant
        after construction (stored read-only).
    language : {"zh", "en"}
        Language of the interface text (constant after construction).

    Attributes
    ----------
    scores, weights : ndarray, shape (n,)
        The current scores and weights (the weights sum to 1).
    output : ndarray, shape (2,)
        The current output ``y``.

    Raises
    ------
    ValueError
        When a number is set outside its bounds, or ``keys``/``values`` is not
        an ``(n, 2)`` array of finite numbers (the message names the
        parameter and the value), or ``keys`` and ``values`` differ in
        length (the message names both shapes).
    TypeError
        When ``keys``, ``values`` or ``language`` is set after construction.

    References
    ----------
    Course section 3.7.6 ("手算一个小例子") and 3.7.5 (convex hull);
    A. Vaswani et al., "Attention Is All You Need", NeurIPS 2017.

    Examples
    --------
    >>> ex = VectorExplorer()
    >>> ex.weights.round(3).tolist(), ex.output.round(3).tolist()
    ([0.422, 0.155, 0.422], [0.845, 0.578])
    >>> ex.set_query(-0.7, 1.234); ex.scores.round(2).tolist()
    [-0.7, 1.23, 0.53]
    """

    query_x = param.Number(
        1.0, bounds=SLIDERS["query_x"][:2], step=SLIDERS["query_x"][2], doc="First component of the query q."
    )
    query_y = param.Number(
        0.0, bounds=SLIDERS["query_y"][:2], step=SLIDERS["query_y"][2], doc="Second component of the query q."
    )
    temperature = param.Number(
        1.0,
        bounds=SLIDERS["temperature"][:2],
        step=SLIDERS["temperature"][2],
        doc="Softmax temperature T > 0: low sharpens, high flattens.",
    )
    prediction = param.Selector(
        default="",
        objects=list(vector_view.PREDICTIONS),
        doc=(
            "Where the student predicts y stops as T falls to 0.05 with q = [1, 0]: '' (none), 'first', 'third', "
            "'midpoint' (right) or 'centroid'."
        ),
    )
    revealed = param.Boolean(False, doc="The prediction's answer shown (after it is checked or skipped).")
    keys = _Points(
        np.array(EXAMPLE_KEYS),
        constant=True,
        doc=f"Keys k_j, an (n, 2) array, 1 <= n <= {MAX_POINTS}; constant after construction.",
    )
    values = _Points(
        np.array(EXAMPLE_VALUES),
        constant=True,
        doc="Values v_j, an (n, 2) array, one per key; constant after construction.",
    )

    _view_module = vector_view
    tried = Tried(ready=".ae-vector-output", control=".ae-query-x", state={"query_x": 0.5, "revealed": True})
    intro_key = "vector_intro"  # with the course's keys and values; vector_intro_custom with others

    def __init__(self, **params):
        super().__init__(**params)
        # Checks the keys and values together; the browser gets them once, in the config.
        self._config_data = vector_view.vector_config(self.language, self.keys, self.values)
        with param.edit_constant(self):
            self.keys = self._read_only(self.keys)
            self.values = self._read_only(self.values)
        t = self._t

        self._sources = {
            "query": ColumnDataSource({"x": [], "y": [], "label": [], "dx": [], "dy": [], "align": []}),
            "keys": ColumnDataSource(
                {"x": [], "y": [], "lx": [], "ly": [], "label": [], "dx": [], "dy": [], "align": []}
            ),
            "values": ColumnDataSource({"x": [], "y": [], "size": [], "label": [], "dx": [], "dy": [], "align": []}),
            "hull": ColumnDataSource({"x": [], "y": []}),
            "output": ColumnDataSource({"x": [], "y": [], "label": [], "dx": [], "dy": [], "align": []}),
        }
        src = self._sources
        self._figure = plots.vector_figure(
            src["query"],
            src["keys"],
            src["values"],
            src["hull"],
            src["output"],
            t("vector_plot"),
            {
                "query": t("vector_legend_query"),
                "key": t("vector_legend_key"),
                "value": t("vector_legend_value"),
                "hull": t("vector_legend_hull"),
                "output": t("vector_legend_output"),
            },
            extent=SLIDERS["query_x"][1],
        )
        self._figure.css_classes = ["ae-vector-plot"]

        self._html = {f"{name}_readout": html_model(f"ae-vector-{name}") for name in ("scores", "weights", "output")}
        self._html["formula"] = html_model("ae-vector-formula")
        self._html["notice"] = html_model("ae-input-notice", visible=False)
        self._html["notice"].css_classes = ["ae-error", "ae-input-notice"]
        self._html["plot_data"] = screen_reader_model("ae-vector-plot-data")
        self._html["live"] = screen_reader_model("ae-live", live=True)

        labels = self._config_data["labels"]
        css = {"query_x": "ae-query-x", "query_y": "ae-query-y", "temperature": "ae-vector-temperature"}
        self._sliders = {
            name: controls.slider(self.param[name], getattr(self, name), labels[name], css[name]) for name in SLIDERS
        }

        # Predict first (the example's keys and values only): where y stops as T falls, with s₁ = s₃ tied.
        self._ask = prediction_models("vector", self.language, vector_view.PREDICTIONS)

        self._redraw()
        events = {
            self._figure: "tap",
            src["query"]: "data",  # the tip dropped where PointDrawTool dragged it (or deleted)
            self._ask["predict_check"]: "button_click",
            self._ask["predict_skip"]: "button_click",
            self._ask["prediction_choice"]: "active",
        }
        events.update(self._slider_events())
        self._attach(events)

    def _waits(self, origin) -> bool:
        return bool(self._config_data["asks"]) and super()._waits(origin)

    def _act(self, origin, event=None) -> None:
        decimals = self._config_data["decimals"]
        if self._slider_acted(origin, lambda value: round(value, decimals) + 0.0):
            return
        if origin is self._sources["query"] or origin is self._figure:
            data = origin.data if origin is self._sources["query"] else {"x": [event.x], "y": [event.y]}
            xs, ys = [float(x) for x in data.get("x", [])], [float(y) for y in data.get("y", [])]
            if origin is self._sources["query"] and xs == [self.query_x] and ys == [self.query_y]:
                return  # drawn from the state
            q = vector_view.point_to_query(xs[0], ys[0]) if xs and ys else None
            if q is None or (q[0] == self.query_x and q[1] == self.query_y):
                self._redraw()  # deleted, not a number, or dropped where it was: the tip as the state has it
                return
            self._say("")
            self.param.update(query_x=q[0], query_y=q[1])
        else:
            self._choice_acted(origin, vector_view.PREDICTIONS, **vector_view.ANSWER_STATE)

    @staticmethod
    def _read_only(arr) -> np.ndarray:
        arr = np.array(arr, dtype=np.float64)
        arr.setflags(write=False)
        return arr

    # --- the numbers (for notebooks and tests) ----------------------------------------
    def _attend(self):
        return vector_view.attend([self.query_x, self.query_y], self.keys, self.values, self.temperature)

    @property
    def scores(self) -> np.ndarray:
        """The current scores ``s_j = q · k_j``, shape (n,)."""
        return self._attend()[0]

    @property
    def weights(self) -> np.ndarray:
        """The current weights ``softmax(s / T)``, shape (n,); they sum to 1."""
        return self._attend()[1]

    @property
    def output(self) -> np.ndarray:
        """The current output ``y = Σ_j a_j v_j``, shape (2,); inside the convex hull of the values."""
        return self._attend()[2]

    def set_query(self, x: float, y: float) -> None:
        """Put the query's tip at ``(x, y)`` as a tap on the plot does: clamped to [-2, 2], rounded to 0.01.

        Raises
        ------
        ValueError
            If ``x`` or ``y`` is not a finite number (the message names both).
        """
        q = vector_view.point_to_query(x, y)
        if q is None:
            raise ValueError(f"the query's tip must be at finite numbers, got x={x!r}, y={y!r}")
        self.param.update(query_x=q[0], query_y=q[1])

    # --- the view ---------------------------------------------------------------------
    def _models(self) -> dict:
        models = {**self._sources, **self._html, **self._ask, "plot": self._figure}
        models.update(self._slider_models())
        return models

    # --- layout only --------------------------------------------------------------------
    def __panel__(self):
        example = np.array_equal(self.keys, EXAMPLE_KEYS) and np.array_equal(self.values, EXAMPLE_VALUES)
        intro = pn.pane.HTML(
            f"<p style='margin:0'>{self._t(self.intro_key if example else 'vector_intro_custom')}</p>",
            margin=(0, 5),
            sizing_mode="stretch_width",
        )
        plot = pn.Column(
            self._plot(self._figure),
            bokeh_pane(self._html["plot_data"]),
            styles={"flex": "1 1 340px", "max-width": "540px", "min-width": "0"},
        )
        side = pn.Column(
            intro,
            *(bokeh_pane(m) for m in self._ask.values()),
            *(bokeh_pane(row) for _, _, row in self._sliders.values()),
            bokeh_pane(self._html["notice"]),
            *(
                bokeh_pane(self._html[name])
                for name in ("scores_readout", "weights_readout", "output_readout", "live", "formula")
            ),
            styles={"flex": "1 1 300px", "max-width": "560px", "min-width": "0"},
        )
        return pn.FlexBox(
            plot, side, flex_wrap="wrap", sizing_mode="stretch_width", css_classes=["ae-vector"], styles={"gap": "12px"}
        )
