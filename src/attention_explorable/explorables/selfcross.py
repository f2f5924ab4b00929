"""Self- and cross-attention (section 3.7.8): where queries, keys and values come from.

Its view is :func:`attention_explorable.views.selfcross.selfcross_view`. Its student page, embeds and
notebook widget are its module, ``web/selfcross.js``; this Panel component is drawn from Python.
"""

from __future__ import annotations

import numpy as np
import panel as pn
import param
from bokeh.models import ColumnDataSource

from .. import plots
from ..views import selfcross as selfcross_view
from ..views.selfcross import MODES, N_QUERY
from . import controls
from .base import (
    Explorable,
    Tried,
    bokeh_pane,
    html_model,
    prediction_models,
    screen_reader_model,
    write_view,
)


class SelfCrossExplorer(Explorable):
    """Self-attention within one sentence, cross-attention between two.

    The Chinese sentence ``我 爱 机器 学习`` and its translation ``I love
    machine learning`` carry hand-made 4-dimensional toy embeddings
    (:data:`~attention_explorable.views.selfcross.ZH_EMBEDDINGS`,
    :data:`~attention_explorable.views.selfcross.EN_EMBEDDINGS`), used
    directly as queries, keys and values (identity projections). The
    weights come from :func:`~attention_explorable.core.scaled_dot_product_attention`
    (scores divided by ``sqrt(4) = 2``)::

        self_zh:  Q = K = V = X_zh          weights (n_zh, n_zh)
        self_en:  Q = K = V = X_en          weights (n_en, n_en), optionally causal
        cross:    Q = X_en, K = V = X_zh    weights (n_en, n_zh)

    The heatmap shows one row per query and one column per key; its axis
    titles name the sentence each role comes from. In a Panel app every
    action of the student (the mode buttons, the causal mask, the query
    buttons, a tap on a row of the heatmap) calls Python back, which draws
    the change; its student page and notebook widget are its module
    (``web/selfcross.js``).

    Parameters
    ----------
    mode : {"self_zh", "self_en", "cross"}
        Kind of attention; default ``"self_zh"``.
    causal : bool
        Causal mask for ``self_en`` (the decoder sees only the words generated
        so far); ignored in the other modes. Default False.
    query : int
        Query row to highlight and read out, 1-based, 1-4; default 1.
    prediction : {"", "jiqi", "split", "xuexi", "even"}
        How the cross-attention row of the English word "machine" shares its weight among the Chinese
        words, as the student predicts it before seeing it; "" for none.
    revealed : bool
        Whether the answer is shown: set, with ``mode="cross"``, when the prediction is checked or
        skipped, or cross-attention is chosen.
    language : {"zh", "en"}
        Language of the interface text (constant after construction).

    Attributes
    ----------
    weights : ndarray, shape (n_q, n_k)
        Current weights; each row sums to 1.
    query_tokens, key_tokens : tuple of str
        Tokens of the rows (queries) and of the columns (keys and values).

    Raises
    ------
    ValueError
        From ``param`` when ``mode`` is not one of the three modes, or
        ``query`` is outside 1-4; the message names the parameter and the value.

    References
    ----------
    Course section 3.7.8 ("自注意力与交叉注意力");
    A. Vaswani et al., "Attention Is All You Need", NeurIPS 2017, section 3.2.3.

    Examples
    --------
    >>> ex = SelfCrossExplorer(mode="cross")
    >>> ex.weights.shape, ex.query_tokens[1], ex.key_tokens[int(ex.weights[1].argmax())]
    ((4, 4), 'love', '爱')
    """

    mode = param.Selector(
        default="self_zh",
        objects=list(MODES),
        doc="Kind of attention: self-attention in Chinese or English, or cross-attention.",
    )
    causal = param.Boolean(False, doc="Causal mask in English self-attention (decoder); ignored otherwise.")
    query = param.Integer(1, bounds=(1, N_QUERY), doc="Query row to highlight (1-based).")
    prediction = param.Selector(
        default="",
        objects=list(selfcross_view.PREDICTIONS),
        doc=(
            "How the cross-attention row of 'machine' shares its weight, as the student predicts: '' (none), "
            "'jiqi' (nearly all on 机器), 'split' (right: between 机器 and 学习), 'xuexi' or 'even'."
        ),
    )
    revealed = param.Boolean(
        False, doc="The prediction's answer shown (after it is checked or skipped, or cross-attention is chosen)."
    )

    _view_module = selfcross_view
    tried = Tried(
        ready=".ae-selfcross-row",
        control=".ae-selfcross-mode button",
        press="selfcross_mode_self_en",
        state={"mode": "cross", "revealed": True},
        readout=".ae-selfcross-roles",
    )

    def __init__(self, **params):
        super().__init__(**params)
        t = self._t
        self._config_data = selfcross_view.selfcross_config(self.language)
        self._sources = {
            "cells": ColumnDataSource({k: [] for k in ("x", "y", "fill", "text", "text_color")}),
            "highlight": ColumnDataSource({"x": [], "y": [], "width": [], "height": []}),
        }
        self._figure = plots.heatmap_figure(
            self._sources["cells"],
            t("selfcross_plot"),
            "",
            "",
            highlight=self._sources["highlight"],
            n=N_QUERY,
            height=330,
        )
        self._figure.css_classes = ["ae-selfcross-heatmap"]
        self._html = {name: html_model(f"ae-selfcross-{name}") for name in ("roles", "row", "hint", "note")}
        self._html["notice"] = html_model("ae-input-notice", visible=False)
        self._html["notice"].css_classes = ["ae-error", "ae-input-notice"]
        self._html["plot_data"] = screen_reader_model("ae-selfcross-plot-data")
        self._html["live"] = screen_reader_model("ae-live", live=True)
        self._controls = {
            "mode": controls.choice(
                [t(f"selfcross_mode_{m}") for m in MODES],
                MODES.index(self.mode),
                "ae-selfcross-mode",
                orientation="vertical",
            ),
            "causal": controls.checkbox(t("selfcross_causal"), self.causal, "ae-selfcross-causal"),
            "query": controls.choice([], self.query - 1, "ae-selfcross-query"),
        }
        # Predict first: which words one English query shares its weight among in cross-attention.
        self._ask = prediction_models("selfcross", self.language, selfcross_view.PREDICTIONS)
        fig = self._figure
        self._redraw()
        self._attach(
            {
                self._controls["mode"]: "active",
                self._controls["causal"]: "active",
                self._controls["query"]: "active",
                fig: "tap",
                self._ask["prediction_choice"]: "active",
                self._ask["predict_check"]: "button_click",
                self._ask["predict_skip"]: "button_click",
            }
        )

    def _act(self, origin, event=None) -> None:
        c = self._controls
        if origin is c["mode"]:
            mode = self._pick(MODES, origin.active)
            # Cross-attention is the prediction's answer: going there checks the prediction (or skips it).
            self.param.update(mode=mode, revealed=True) if mode == "cross" else self.param.update(mode=mode)
        elif origin is c["causal"]:
            # The box acts in the English self-attention only: elsewhere it is greyed and shown unticked,
            # and that drawing must not clear the mask kept for the English self-attention.
            if self.mode == "self_en":
                self.causal = bool(origin.active)
        elif origin is c["query"]:
            self.query = self._pick(range(1, N_QUERY + 1), origin.active)
        elif origin is self._figure and event is not None and event.y is not None:
            self.query = min(max(round(event.y), 1), len(self.query_tokens))  # the row tapped
        else:
            self._choice_acted(origin, selfcross_view.PREDICTIONS, mode="cross", query=selfcross_view.ASKED_QUERY)

    # --- the view -------------------------------------------------------------
    def _models(self) -> dict:
        fig = self._figure
        return {
            **self._sources,
            **self._html,
            **self._controls,
            **self._ask,
            "heatmap": fig,
            "x_range": fig.x_range,
            "y_range": fig.y_range,
            "x_axis": fig.xaxis[0],
            "y_axis": fig.yaxis[0],
        }

    def _draw(self) -> None:
        view = self.view()
        for axis in ("x_axis", "y_axis"):  # Bokeh keys an axis's tick labels by the number of the tick
            props = view["props"][axis]
            props["major_label_overrides"] = {int(k): v for k, v in props["major_label_overrides"].items()}
        write_view(self._models(), view)

    @property
    def weights(self) -> np.ndarray:
        """The current weights, shape (n_q, n_k); each row sums to 1, masked entries are 0."""
        return selfcross_view.selfcross_weights(self.state(), self._config_data)[2]

    @property
    def query_tokens(self) -> tuple[str, ...]:
        """Tokens of the rows: the sentence the queries come from."""
        return tuple(selfcross_view.selfcross_weights(self.state(), self._config_data)[0])

    @property
    def key_tokens(self) -> tuple[str, ...]:
        """Tokens of the columns: the sentence the keys and values come from."""
        return tuple(selfcross_view.selfcross_weights(self.state(), self._config_data)[1])

    # --- layout only ----------------------------------------------------------
    def __panel__(self):
        t = self._t
        label = lambda key: pn.pane.HTML(  # noqa: E731
            f"<div class='ae-kind' style='margin:4px 5px 0'>{t(key)}</div>", margin=0
        )
        c = self._controls
        left = pn.Column(
            *(bokeh_pane(m) for m in self._ask.values()),
            bokeh_pane(self._html["note"]),  # the word vectors, right under the question about them
            label("selfcross_mode"),
            bokeh_pane(c["mode"]),
            bokeh_pane(c["causal"]),
            label("selfcross_query"),
            bokeh_pane(c["query"]),
            bokeh_pane(self._html["hint"]),
            bokeh_pane(self._html["notice"]),
            bokeh_pane(self._html["roles"]),
            bokeh_pane(self._html["row"]),
            bokeh_pane(self._html["live"]),
            styles={"flex": "1 1 300px", "max-width": "440px", "min-width": "0"},
        )
        right = pn.Column(
            self._plot(self._figure),
            bokeh_pane(self._html["plot_data"]),
            styles={"flex": "1 1 320px", "max-width": "560px", "min-width": "0"},
        )
        return pn.FlexBox(
            left,
            right,
            flex_wrap="wrap",
            sizing_mode="stretch_width",
            css_classes=["ae-selfcross"],
            styles={"gap": "12px"},
        )
