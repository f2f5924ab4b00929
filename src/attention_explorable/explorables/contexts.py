"""One word, two contexts (section 3.8.1): the same token gets two rows of weights and two outputs.

Its view is :func:`attention_explorable.views.contexts.contexts_view`. Its student page, embeds and
notebook widget are its module, ``web/contexts.js``; this Panel component is drawn from Python.
"""

from __future__ import annotations

import numpy as np
import panel as pn
import param
from bokeh.models import ColumnDataSource, Range1d

from .. import plots
from ..views import contexts as contexts_view
from ..views.contexts import CONTEXTS
from . import controls
from .base import Explorable, Tried, bokeh_pane, html_model, prediction_models, screen_reader_model


class ContextsExplorer(Explorable):
    """The same word in two sentences, read by one self-attention step in each.

    苹果 / "apple" has the same toy vector ``[1, 1, 0]`` in 她 削 了 苹果 ("she
    peeled the apple") and 苹果 发布 了 手机 ("apple released a phone"); with
    identity projections and scores divided by ``√3``, its query gets one row
    of weights per sentence and one output per sentence
    (:func:`attention_explorable.views.contexts.read`)::

        a = softmax(x_w @ X.T / sqrt(3))   # (n,)
        y = a @ X                          # (3,)

    The page asks first whether the two outputs differ, and shows them once
    the prediction is checked or skipped. In a Panel app every action of the
    student calls Python back, which draws the change; its student page and
    notebook widget are its module (``web/contexts.js``).

    Parameters
    ----------
    causal : bool
        Causal mask (each word sees itself and the words before it); default False.
    prediction : {"", "itself", "verb", "phone", "even"}
        Which word of the second sentence the student predicts the word weighs most; "" for none.
    revealed : bool
        Whether the two outputs (the answer) are shown.
    language : {"zh", "en"}
        Language of the interface text and of the two sentences (constant after construction).

    Attributes
    ----------
    weights : dict of ndarray
        Context ("fruit", "company") -> the word's row of weights over that sentence, shape (4,).
    outputs : dict of ndarray
        Context -> the word's output, shape (3,).

    Raises
    ------
    ValueError
        From ``param`` when a parameter is set to a value it does not allow; the message names the
        parameter and the value.

    References
    ----------
    Course section 3.8.1; A. Vaswani et al., "Attention Is All You Need", NeurIPS 2017, section 3.2.

    Examples
    --------
    >>> ex = ContextsExplorer()
    >>> ex.outputs["fruit"].round(2).tolist(), ex.outputs["company"].round(2).tolist()
    ([1.46, 0.34, 0.16], [0.29, 1.61, 0.16])
    """

    causal = param.Boolean(False, doc="Causal mask: each word sees itself and the words before it only.")
    prediction = param.Selector(
        default="",
        objects=list(contexts_view.PREDICTIONS),
        doc="Which word of the second sentence the student predicts the word weighs most: '' (none), 'itself', 'verb' (right), 'phone' or 'even'.",
    )
    revealed = param.Boolean(False, doc="The two outputs shown (after the prediction is checked or skipped).")

    _view_module = contexts_view
    tried = Tried(
        ready=".ae-contexts-input",
        control=".ae-contexts-skip button",
        press="skip_prediction",
        state={"causal": True},
        readout=".ae-contexts-outputs",
    )
    intro_key = "contexts_intro"

    def __init__(self, **params):
        super().__init__(**params)
        t = self._t
        self._config_data = contexts_view.contexts_config(self.language)
        cells = ("x", "y", "fill", "text", "text_color")
        self._sources = {f"{c}_cells": ColumnDataSource({k: [] for k in cells}) for c in CONTEXTS}
        self._figures = {}
        for c in CONTEXTS:
            sentence = self._config_data["sentences"][c]
            fig = plots.heatmap_figure(
                self._sources[f"{c}_cells"], t(f"contexts_sentence_{c}"), "", "", n=len(sentence["tokens"]), height=150
            )
            fig.y_range = Range1d(1.5, 0.5)
            fig.yaxis.visible = False
            fig.xaxis[0].major_label_overrides = {j: tok for j, tok in enumerate(sentence["tokens"], start=1)}
            fig.css_classes = [f"ae-contexts-{c}"]
            self._figures[c] = fig

        self._html = {name: html_model(f"ae-contexts-{name}") for name in ("input", "outputs", "notes")}
        self._html["notice"] = html_model("ae-input-notice", visible=False)
        self._html["notice"].css_classes = ["ae-error", "ae-input-notice"]
        self._html["rows_data"] = screen_reader_model("ae-contexts-rows-data")
        self._html["live"] = screen_reader_model("ae-live", live=True)
        self._controls = {"causal": controls.checkbox(t("contexts_causal"), self.causal, "ae-contexts-causal")}
        # Predict first: do the word's two outputs differ?
        self._ask = prediction_models("contexts", self.language, contexts_view.PREDICTIONS)

        self._redraw()
        self._attach(
            {
                self._controls["causal"]: "active",
                self._ask["prediction_choice"]: "active",
                self._ask["predict_check"]: "button_click",
                self._ask["predict_skip"]: "button_click",
            }
        )

    def _act(self, origin, event=None) -> None:
        if origin is self._controls["causal"]:
            self._say("")
            self.causal = bool(origin.active)
        else:
            self._choice_acted(origin, contexts_view.PREDICTIONS)

    # --- the view -------------------------------------------------------------
    def _models(self) -> dict:
        return {**self._sources, **self._html, **self._controls, **self._ask}

    # --- the numbers, for notebooks and tests ---------------------------------------
    @property
    def weights(self) -> dict[str, np.ndarray]:
        """Context -> the word's row of weights over that sentence, shape (4,); 0 where masked."""
        return {c: contexts_view.read(self.state(), self._config_data, c)[0] for c in CONTEXTS}

    @property
    def outputs(self) -> dict[str, np.ndarray]:
        """Context -> the word's output after reading that sentence, shape (3,)."""
        return {c: contexts_view.read(self.state(), self._config_data, c)[2] for c in CONTEXTS}

    # --- layout only ----------------------------------------------------------
    def __panel__(self):
        t = self._t
        intro = pn.pane.HTML(f"<p style='margin:0'>{t(self.intro_key)}</p>", margin=(0, 5), sizing_mode="stretch_width")
        note = pn.pane.HTML(
            f"<div class='ae-hint'>{t('contexts_toy_note')}</div>", margin=(0, 5), sizing_mode="stretch_width"
        )
        left = pn.Column(
            intro,
            *(bokeh_pane(m) for m in self._ask.values()),
            bokeh_pane(self._controls["causal"]),
            bokeh_pane(self._html["notice"]),
            bokeh_pane(self._html["live"]),
            note,
            styles={"flex": "1 1 300px", "max-width": "440px", "min-width": "0"},
        )
        right = pn.Column(
            bokeh_pane(self._html["input"]),
            *(self._plot(self._figures[c]) for c in CONTEXTS),
            bokeh_pane(self._html["rows_data"]),
            bokeh_pane(self._html["notes"]),
            bokeh_pane(self._html["outputs"]),
            styles={"flex": "2 1 420px", "min-width": "0"},
        )
        return pn.FlexBox(
            left,
            right,
            flex_wrap="wrap",
            sizing_mode="stretch_width",
            css_classes=["ae-contexts"],
            styles={"gap": "12px"},
        )
