"""From the inputs X to the output (section 3.7.8): queries, keys and values are computed.

Its view is :func:`attention_explorable.views.qkv.qkv_view`; in the browser
``web/qkv.js`` draws it and handles the student's actions.
"""

from __future__ import annotations

import numpy as np
import panel as pn
import param
from bokeh.models import ColumnDataSource

from .. import plots
from ..views import qkv as qkv_view
from ..views.qkv import PRESETS, PROJECTIONS
from . import controls
from .base import Explorable, Tried, bokeh_pane, html_model, prediction_models, screen_reader_model


class QkvExplorer(Explorable):
    """Three toy inputs projected into queries, keys and values, and every stage to the output.

    The inputs ``X`` (rows ``[1, 0]``, ``[0, 1]``, ``[1, 1]``) are fixed toy
    vectors; the student picks ``W_Q``, ``W_K`` and ``W_V`` among
    :data:`~attention_explorable.views.qkv.PRESETS` and may switch on the
    causal mask. All numbers come from :mod:`attention_explorable.core`::

        Q, K, V = X @ W_Q, X @ W_K, X @ W_V       # (3, 2) @ (2, 2) -> (3, 2)
        A = softmax(Q @ K.T / sqrt(2))            # (3, 3), masked entries 0
        Y = A @ V                                 # (3, 2)

    Changing ``W_V`` alone leaves ``A`` unchanged and moves ``Y``: the page
    asks that first. In a Panel app every action of the student calls
    Python back, which draws the change; its student page, textbook block
    and notebook widget are its module (``web/qkv.js``).

    Parameters
    ----------
    w_q, w_k, w_v : {"identity", "swap", "double", "first"}
        The projection matrices; default the identity for all three.
    causal : bool
        Causal mask (position i attends positions 1 to i); default False.
    prediction : {"", "both", "output", "weights", "nothing"}
        What the student predicts changes when only ``W_V`` goes from the identity to the swap;
        "" for none.
    revealed : bool
        Whether the answer is shown: set, with ``W_V`` switched, when the prediction is checked or
        skipped.
    language : {"zh", "en"}
        Language of the interface text (constant after construction).

    Attributes
    ----------
    weights : ndarray, shape (3, 3)
        Current weights; each row sums to 1.
    output : ndarray, shape (3, 2)
        Current output ``Y``.

    Raises
    ------
    ValueError
        From ``param`` when a parameter is set to a value it does not allow; the message names the
        parameter and the value.

    References
    ----------
    Course section 3.7.8 (``q_i = x_i W_Q``) and 3.8 (``Q = X W_Q``); A. Vaswani et al., "Attention
    Is All You Need", NeurIPS 2017, section 3.2.

    Examples
    --------
    >>> ex = QkvExplorer()
    >>> ex.weights[0].round(2).tolist(), ex.output[0].round(3).tolist()
    ([0.4, 0.2, 0.4], [0.802, 0.599])
    >>> ex.w_v = "swap"; ex.weights[0].round(2).tolist(), ex.output[0].round(3).tolist()
    ([0.4, 0.2, 0.4], [0.599, 0.802])
    """

    w_q = param.Selector(default="identity", objects=list(PRESETS), doc="W_Q, the projection of the queries.")
    w_k = param.Selector(default="identity", objects=list(PRESETS), doc="W_K, the projection of the keys.")
    w_v = param.Selector(default="identity", objects=list(PRESETS), doc="W_V, the projection of the values.")
    causal = param.Boolean(False, doc="Causal mask: position i attends positions 1 to i only.")
    prediction = param.Selector(
        default="",
        objects=list(qkv_view.PREDICTIONS),
        doc=(
            "What changes when only W_V goes from the identity to the swap, as the student predicts: '' (none), "
            "'both', 'output' (right), 'weights' or 'nothing'."
        ),
    )
    revealed = param.Boolean(False, doc="The prediction's answer shown (after it is checked or skipped).")

    _view_module = qkv_view
    tried = Tried(
        ready=".ae-qkv-output",
        control=".ae-qkv-w-v button",
        press="qkv_preset_double",
        state={"w_v": "swap", "revealed": True},
    )
    intro_key = "qkv_intro"

    def __init__(self, **params):
        super().__init__(**params)
        t = self._t
        self._config_data = qkv_view.qkv_config(self.language)
        cells = ("x", "y", "fill", "text", "text_color")
        self._sources = {
            "score_cells": ColumnDataSource({k: [] for k in cells}),
            "weight_cells": ColumnDataSource({k: [] for k in cells}),
        }
        axes = (t("qkv_axis_key"), t("qkv_axis_query"))
        n = len(qkv_view.X)
        self._score_fig = plots.heatmap_figure(
            self._sources["score_cells"], t("qkv_plot_scores"), *axes, n=n, height=260
        )
        self._weight_fig = plots.heatmap_figure(
            self._sources["weight_cells"], t("qkv_plot_weights"), *axes, n=n, height=260
        )
        self._score_fig.css_classes = ["ae-qkv-scores"]
        self._weight_fig.css_classes = ["ae-qkv-weights"]

        self._html = {
            name: html_model(f"ae-qkv-{name}") for name in ("inputs", "projections", "qkv", "output", "notes")
        }
        self._html["notice"] = html_model("ae-input-notice", visible=False)
        self._html["notice"].css_classes = ["ae-error", "ae-input-notice"]
        for name in ("scores_data", "weights_data"):
            self._html[name] = screen_reader_model(f"ae-qkv-{name.replace('_', '-')}")
        self._html["live"] = screen_reader_model("ae-live", live=True)
        labels = [t(f"qkv_preset_{p}") for p in PRESETS]
        self._controls = {
            name: controls.choice(labels, list(PRESETS).index(getattr(self, name)), f"ae-qkv-{name.replace('_', '-')}")
            for name in PROJECTIONS
        }
        self._controls["causal"] = controls.checkbox(t("qkv_causal"), self.causal, "ae-qkv-causal")
        # Predict first: what changes when only W_V changes.
        self._ask = prediction_models("qkv", self.language, qkv_view.PREDICTIONS)

        self._redraw()
        events = {control: "active" for control in self._controls.values()}
        events.update(
            {
                self._ask["prediction_choice"]: "active",
                self._ask["predict_check"]: "button_click",
                self._ask["predict_skip"]: "button_click",
            }
        )
        self._attach(events)

    def _act(self, origin, event=None) -> None:
        for name in PROJECTIONS:
            if origin is self._controls[name]:
                self._say("")
                setattr(self, name, self._pick(list(PRESETS), origin.active))
                return
        if origin is self._controls["causal"]:
            self._say("")
            self.causal = bool(origin.active)
        else:
            # Checked or skipped: W_V moves from the identity to the swap (or back), so the answer is watched.
            self._choice_acted(origin, qkv_view.PREDICTIONS, w_v="swap" if self.w_v == "identity" else "identity")

    # --- the view -------------------------------------------------------------
    def _models(self) -> dict:
        return {**self._sources, **self._html, **self._controls, **self._ask}

    # --- the numbers, for notebooks and tests ---------------------------------------
    @property
    def weights(self) -> np.ndarray:
        """The current weights ``A``, shape (3, 3); each row sums to 1, masked entries are 0."""
        return qkv_view.attend(self.state(), self._config_data)["weights"]

    @property
    def output(self) -> np.ndarray:
        """The current output ``Y = A V``, shape (3, 2)."""
        return qkv_view.attend(self.state(), self._config_data)["output"]

    # --- layout only ----------------------------------------------------------
    def __panel__(self):
        t = self._t
        label = lambda key: pn.pane.HTML(  # noqa: E731
            f"<div class='ae-kind' style='margin:4px 5px 0'>{t(key)}</div>", margin=0
        )
        intro = pn.pane.HTML(f"<p style='margin:0'>{t(self.intro_key)}</p>", margin=(0, 5), sizing_mode="stretch_width")
        c = self._controls
        left = pn.Column(
            intro,
            *(bokeh_pane(m) for m in self._ask.values()),
            *(part for name in PROJECTIONS for part in (label(f"qkv_{name}"), bokeh_pane(c[name]))),
            bokeh_pane(c["causal"]),
            bokeh_pane(self._html["notice"]),
            bokeh_pane(self._html["live"]),
            styles={"flex": "1 1 300px", "max-width": "440px", "min-width": "0"},
        )
        heatmaps = pn.FlexBox(
            pn.Column(
                self._plot(self._score_fig),
                bokeh_pane(self._html["scores_data"]),
                styles={"flex": "1 1 220px", "min-width": "0"},
            ),
            pn.Column(
                self._plot(self._weight_fig),
                bokeh_pane(self._html["weights_data"]),
                styles={"flex": "1 1 220px", "min-width": "0"},
            ),
            flex_wrap="wrap",
            sizing_mode="stretch_width",
            styles={"gap": "8px"},
        )
        right = pn.Column(
            *(bokeh_pane(self._html[name]) for name in ("inputs", "projections", "qkv")),
            heatmaps,
            bokeh_pane(self._html["notes"]),
            bokeh_pane(self._html["output"]),
            styles={"flex": "2 1 440px", "min-width": "0"},
        )
        return pn.FlexBox(
            left, right, flex_wrap="wrap", sizing_mode="stretch_width", css_classes=["ae-qkv"], styles={"gap": "12px"}
        )
