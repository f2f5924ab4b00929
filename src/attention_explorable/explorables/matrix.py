"""Scaled dot-product attention in matrix form (section 3.7.7): why divide by sqrt(d_k).

Its view is :func:`attention_explorable.views.matrix.matrix_view`; in the
browser ``web/matrix.js`` draws it and handles the student's actions.
"""

from __future__ import annotations


import numpy as np
import panel as pn
import param
from bokeh.models import ColumnDataSource

from .. import plots
from ..views import matrix as matrix_view
from . import controls
from .base import Explorable, Tried, bokeh_pane, html_model, prediction_models, screen_reader_model

_SLIDERS = matrix_view.SLIDERS


class MatrixExplorer(Explorable):
    """Score and weight matrices of scaled dot-product attention (section 3.7.7).

    ``n`` tokens get queries, keys and values with approximately standard
    normal entries drawn from a fixed ``seed`` by the generator shared with
    the browser (:func:`~attention_explorable.views.matrix.random_qkv`); the
    first query can be stretched by ``q1_scale``. The explorer shows, from
    :func:`~attention_explorable.core.scaled_dot_product_attention`::

        scores  = q @ k.T * scale           # (n, d_k) @ (d_k, n) -> (n, n)
        weights = softmax(scores + M)       # (n, n), each row sums to 1
        scale   = 1 / sqrt(d_k) if scaled else 1
        M       = 0, or -inf above the diagonal if causal

    as two heatmaps (row = query ``i``, column = key ``j``; each row's
    largest cell outlined), and a curve of the mean largest weight against
    ``d_k`` (see :func:`~attention_explorable.views.matrix.saturation_curve`):
    unscaled, softmax saturates towards one weight per row as ``d_k`` grows.
    In a Panel app every action of the student calls Python back, which
    draws the change; its student page, textbook block and notebook widget
    are its module (``web/matrix.js``).

    Parameters
    ----------
    n_tokens : int
        Number of tokens ``n``, 2-6; default 4.
    d_k : int
        Dimension of queries and keys, 1-64; default 4.
    seed : int
        Seed of the random ``Q, K, V``, 0-9999; default 5 (soft rows when scaled, ``views.matrix.DEFAULT_SEED``).
    q1_scale : float
        Factor applied to the first query row, 0-4 in steps of 0.1; default 1.
    causal : bool
        Apply :func:`~attention_explorable.core.causal_mask`; default False.
    scaled : bool
        Divide the scores by ``sqrt(d_k)``; default True.
    prediction : {"", "flatter", "peaked", "same"}
        What the student predicts for the rows of weights as ``d_k`` grows unscaled; "" for none.
    revealed : bool
        Whether the saturation curves (the answer) are shown: after a prediction is checked, or skipped.
    language : {"zh", "en"}
        Language of the interface text (constant after construction).

    Attributes
    ----------
    scores : ndarray, shape (n, n)
        Scores after scaling, ``-inf`` where masked.
    weights : ndarray, shape (n, n)
        Weights; each row sums to 1, exactly 0 where masked.
    mean_max_weight : float
        Mean over the rows of each row's largest weight.

    Raises
    ------
    ValueError
        When a parameter is set outside its bounds or to a value of the wrong
        type; the message names the parameter and the value.

    References
    ----------
    Course section 3.7.7 ("缩放点积注意力") and 3.8 (causal mask);
    A. Vaswani et al., "Attention Is All You Need", NeurIPS 2017, eq. (1).

    Examples
    --------
    >>> ex = MatrixExplorer(causal=True)
    >>> ex.weights.shape, bool(np.all(ex.weights[np.triu_indices(4, 1)] == 0))
    ((4, 4), True)
    """

    n_tokens = param.Integer(
        4, bounds=_SLIDERS["n_tokens"][:2], step=1, doc="Number of tokens n (queries = keys = values)."
    )
    d_k = param.Integer(4, bounds=_SLIDERS["d_k"][:2], step=1, doc="Dimension d_k of the queries and keys.")
    seed = param.Integer(
        matrix_view.DEFAULT_SEED,
        bounds=_SLIDERS["seed"][:2],
        step=1,
        doc="Seed of the approximately standard normal Q, K, V (views.matrix.random_qkv).",
    )
    q1_scale = param.Number(
        1.0,
        bounds=_SLIDERS["q1_scale"][:2],
        step=_SLIDERS["q1_scale"][2],
        doc="Factor applied to the first query q₁ (a longer query sharpens its row).",
    )
    causal = param.Boolean(False, doc="Causal mask: query i may attend keys j <= i only.")
    scaled = param.Boolean(True, doc="Divide the scores by sqrt(d_k).")
    prediction = param.Selector(
        default="",
        objects=list(matrix_view.PREDICTIONS),
        doc=(
            "The student's prediction of each row of weights as d_k grows unscaled: '' (none), 'flatter', "
            "'peaked' (right) or 'same'."
        ),
    )
    revealed = param.Boolean(False, doc="The saturation curves shown (after a prediction is checked or skipped).")

    _view_module = matrix_view
    tried = Tried(ready=".ae-matrix-max-weight", control=".ae-matrix-q1-scale", state={"d_k": 16, "revealed": True})
    intro_key = "matrix_intro"

    def __init__(self, **params):
        super().__init__(**params)
        t = self._t
        cells = ("x", "y", "fill", "text", "text_color")
        self._sources = {
            "score_cells": ColumnDataSource({k: [] for k in cells}),
            "weight_cells": ColumnDataSource({k: [] for k in cells}),
            "highlight": ColumnDataSource({k: [] for k in ("x", "y", "width", "height")}),
            "curve": ColumnDataSource({k: [] for k in ("d", "scaled", "unscaled")}),
            "mark": ColumnDataSource({k: [] for k in ("d", "scaled", "unscaled", "current", "y0", "y1")}),
        }
        src = self._sources
        axes = (t("matrix_axis_key"), t("matrix_axis_query"))
        self._score_fig = plots.heatmap_figure(
            src["score_cells"], t("matrix_plot_scores_scaled"), *axes, highlight=src["highlight"], n=self.n_tokens
        )
        self._weight_fig = plots.heatmap_figure(
            src["weight_cells"], t("matrix_plot_weights"), *axes, highlight=src["highlight"], n=self.n_tokens
        )
        self._curve_fig = plots.saturation_figure(
            src["curve"],
            src["mark"],
            t("matrix_plot_saturation"),
            t("matrix_axis_dk"),
            t("matrix_axis_max_weight"),
            {
                "scaled": t("matrix_legend_scaled"),
                "unscaled": t("matrix_legend_unscaled"),
                "current": t("matrix_legend_current"),
            },
            d_max=matrix_view.D_MAX,
        )
        self._score_fig.css_classes = ["ae-matrix-scores"]
        self._weight_fig.css_classes = ["ae-matrix-weights"]
        self._curve_fig.css_classes = ["ae-matrix-curve"]
        self._html = {
            name: html_model(f"ae-matrix-{name.replace('_', '-')}")
            for name in ("max_weight", "row_sums", "notes", "notice")
        }
        self._html["notice"].css_classes = ["ae-error", "ae-input-notice", "ae-matrix-notice"]
        self._html["notice"].visible = False
        for name in ("scores_data", "weights_data", "curve_data"):
            self._html[name] = screen_reader_model(f"ae-matrix-{name.replace('_', '-')}")
        self._html["live"] = screen_reader_model("ae-live", live=True)

        css = {
            "n_tokens": "ae-matrix-n",
            "d_k": "ae-matrix-dk",
            "seed": "ae-matrix-seed",
            "q1_scale": "ae-matrix-q1-scale",
        }
        self._sliders = {
            name: controls.slider(self.param[name], getattr(self, name), t(f"matrix_{name}"), css[name])
            for name in _SLIDERS
        }
        self._toggles = {
            name: controls.checkbox(t(f"matrix_{name}"), getattr(self, name), f"ae-matrix-{name}")
            for name in matrix_view.TOGGLES
        }
        self._new_seed = controls.button(t("matrix_new_seed"), "ae-matrix-new-seed")
        # Predict first (section 3.7.7's question): the answer, the curves, waits for a prediction or a skip.
        self._ask = prediction_models("matrix", self.language, matrix_view.PREDICTIONS)

        self._config_data = matrix_view.matrix_config(self.language)
        self._redraw()
        events = {
            self._new_seed: "button_click",
            self._ask["predict_check"]: "button_click",
            self._ask["predict_skip"]: "button_click",
            self._ask["prediction_choice"]: "active",
        }
        events.update({toggle: "active" for toggle in self._toggles.values()})
        events.update(self._slider_events())
        self._attach(events)

    def _act(self, origin, event=None) -> None:
        if self._slider_acted(origin):
            return
        for name, toggle in self._toggles.items():
            if origin is toggle:
                self._say("")
                setattr(self, name, bool(origin.active))
                return
        if origin is self._new_seed:
            self._say("")
            lo, hi = self.param.seed.bounds
            other = int(np.random.default_rng().integers(lo, hi))  # any seed of the slider but this one
            self.seed = other + 1 if other >= self.seed else other
        else:
            self._choice_acted(origin, matrix_view.PREDICTIONS)

    # --- the view -------------------------------------------------------------
    def _models(self) -> dict:
        models = {
            **self._sources,
            **self._html,
            "score_x": self._score_fig.x_range,
            "score_y": self._score_fig.y_range,
            "weight_x": self._weight_fig.x_range,
            "weight_y": self._weight_fig.y_range,
            "score_title": self._score_fig.title,
            "new_seed": self._new_seed,
            **self._ask,
            "curve_plot": self._curve_fig,
        }
        models.update(self._slider_models())
        models.update({f"{name}_toggle": toggle for name, toggle in self._toggles.items()})
        return models

    # --- the numbers, for notebooks and tests ---------------------------------------
    def _matrices(self) -> dict:
        return matrix_view.attention_matrices(self.state())

    @property
    def scores(self) -> np.ndarray:
        """Scores after scaling, shape (n, n); ``-inf`` where masked."""
        return self._matrices()["scores"]

    @property
    def weights(self) -> np.ndarray:
        """Weights, shape (n, n); each row sums to 1, exactly 0 where masked."""
        return self._matrices()["weights"]

    @property
    def mean_max_weight(self) -> float:
        """Mean over the rows of each row's largest weight."""
        return self._matrices()["mean_max_weight"]

    # --- layout only ----------------------------------------------------------
    def __panel__(self):
        t = self._t
        intro = pn.pane.HTML(
            f"<p style='margin:0'>{t(self.intro_key)}</p>",
            margin=(0, 5),
            sizing_mode="stretch_width",
            stylesheets=["p { font-size: 15px; }"],
        )
        s = self._sliders
        controls_column = pn.Column(
            intro,
            *(bokeh_pane(m) for m in self._ask.values()),
            bokeh_pane(self._toggles["scaled"]),
            bokeh_pane(self._toggles["causal"]),
            *(bokeh_pane(s[name][2]) for name in ("d_k", "n_tokens", "q1_scale", "seed")),
            bokeh_pane(self._new_seed),
            bokeh_pane(self._html["notice"]),
            bokeh_pane(self._html["max_weight"]),
            bokeh_pane(self._html["live"]),
            bokeh_pane(self._html["row_sums"]),
            styles={"flex": "1 1 300px", "max-width": "420px", "min-width": "0"},
        )
        heatmaps = pn.FlexBox(
            pn.Column(
                self._plot(self._score_fig),
                bokeh_pane(self._html["scores_data"]),
                styles={"flex": "1 1 260px", "min-width": "0"},
            ),
            pn.Column(
                self._plot(self._weight_fig),
                bokeh_pane(self._html["weights_data"]),
                styles={"flex": "1 1 260px", "min-width": "0"},
            ),
            flex_wrap="wrap",
            sizing_mode="stretch_width",
            styles={"gap": "8px"},
        )
        plots_column = pn.Column(
            heatmaps,
            bokeh_pane(self._html["notes"]),
            self._plot(self._curve_fig),
            bokeh_pane(self._html["curve_data"]),
            styles={"flex": "3 1 540px", "min-width": "0"},
        )
        return pn.FlexBox(
            controls_column,
            plots_column,
            flex_wrap="wrap",
            sizing_mode="stretch_width",
            css_classes=["ae-matrix"],
            styles={"gap": "12px"},
        )
