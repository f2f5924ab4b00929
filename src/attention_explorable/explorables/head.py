"""A head that learns (section 3.8): one attention head trained on key -> value lookup, drawn from Python.

Its view is :func:`attention_explorable.views.head.head_view`; the training is the numpy oracle of
``views/head.py``. Its student page, embeds and notebook widget are its module, ``web/head.js``, which
trains the same head in the browser; this Panel component trains it on the server.
"""

from __future__ import annotations

import html
import time

import numpy as np
import panel as pn
import param
from bokeh.models import ColumnDataSource, FixedTicker, Range1d

from .. import plots
from ..views import head as head_view
from . import controls
from .base import Explorable, Tried, bokeh_pane, html_model, screen_reader_model, write_view

#: Seconds of training per tick of a playing run (the server answers a student's key between ticks).
TICK_BUDGET_S = 0.04
#: Milliseconds between two ticks.
TICK_PERIOD_MS = 80
#: While it plays, the loss is said to a screen reader at most this often (a rest is said at once).
SAY_EVERY_S = 5.0
#: The run's settings: a change of one starts a new run from step 0.
SETTINGS = ("d_k", "learning_rate", "seed", "scaled")


class HeadExplorer(Explorable):
    """One attention head trained on key -> value lookup, in float64, on the server.

    An example is four (letter, digit) pairs and a query letter, ``C7 A2 D5 B9 | A -> 2``; the head's
    W_Q, W_K, W_V and readout W_U start random and learn by Adam on cross-entropy
    (:mod:`attention_explorable.views.head`)::

        weights = softmax(x_query W_Q (X_pairs W_K)^T / sqrt(d_k))   # (4,)
        logits = (weights X_pairs W_V) W_U                            # (10,)

    The student predicts first where the query's weights go, then presses Train (a periodic callback
    trains a few dozen steps per tick and streams the new points to the curves), Pause, Step or Reset.
    In a notebook, :meth:`train` trains synchronously.

    Parameters
    ----------
    d_k : int
        Width of queries and keys, 2 to 64; default 16.
    learning_rate : float
        Adam's step size, 0.001 to 0.05; default 0.01.
    seed : int
        Seed of the initial parameters and of the examples, 0 to 9999; default 0.
    scaled : bool
        Scores divided by sqrt(d_k); default True.
    steps : int
        Steps trained so far, 0 to 5000 (setting it trains to there, or starts again from 0 below it).
    playing : bool
        Training on its own, tick by tick (in a server session or a notebook with a live kernel).
    prediction : {"", "a", "b", "c"}
        The option predicted (``head_predict_a`` ...), "" for none.
    skipped : bool
        The student went on without a prediction.
    language : {"zh", "en"}
        Language of the interface text (constant after construction).

    Raises
    ------
    ValueError
        From ``param`` when a parameter is set to a value it does not allow (naming it).

    References
    ----------
    Course sections 3.7 (the sqrt(d_k) scale) and 3.8.1 (keys and values); A. Vaswani et al.,
    "Attention Is All You Need", NeurIPS 2017, section 3.2.1; D. P. Kingma and J. Ba, "Adam", ICLR 2015.

    Examples
    --------
    >>> ex = HeadExplorer(language="en")
    >>> ex.train(100)
    100
    >>> round(ex.losses[0], 3), ex.losses[-1] < 0.05
    (2.31, True)
    """

    d_k = param.Integer(
        head_view.DEFAULTS["d_k"], bounds=head_view.BOUNDS["d_k"][:2], step=1, doc="Width of queries and keys."
    )
    learning_rate = param.Number(
        head_view.DEFAULTS["learning_rate"],
        bounds=head_view.BOUNDS["learning_rate"][:2],
        step=head_view.BOUNDS["learning_rate"][2],
        doc="Adam's step size.",
    )
    seed = param.Integer(
        head_view.DEFAULTS["seed"], bounds=head_view.BOUNDS["seed"][:2], step=1, doc="Seed of parameters and examples."
    )
    scaled = param.Boolean(head_view.DEFAULTS["scaled"], doc="Scores divided by sqrt(d_k).")
    steps = param.Integer(0, bounds=(0, head_view.MAX_STEPS), doc="Steps trained so far.")
    playing = param.Boolean(False, doc="Training on its own, tick by tick.")
    prediction = param.Selector(
        default="",
        objects=list(head_view.PREDICTIONS),
        doc="The option predicted: '' (none), 'a' (spread before and after), 'b' (right), 'c' (on the key from the start).",
    )
    skipped = param.Boolean(False, doc="The student went on without a prediction.")

    _view_module = head_view
    _link_params = SETTINGS
    tried = Tried(ready=".ae-head-readout", control=".ae-head-skip", press="head_skip", state={"d_k": 8})
    intro_key = "head_intro_python"

    def __init__(self, **params):
        super().__init__(**params)
        t = self._t
        labels = {name: t(f"head_{name}") for name in ("d_k", "learning_rate", "seed")}
        self._config_data = {**head_view.head_config(self.language), "labels": labels}
        self._sources = {
            "curve": ColumnDataSource({"step": [], "loss": [], "accuracy": []}),
            "watched": ColumnDataSource({"x": [], "top": [], "fill": [], "label": []}),
            "table": ColumnDataSource({k: [] for k in ("x", "y", "fill", "text", "text_color")}),
            "reads": ColumnDataSource({k: [] for k in ("x", "y", "fill", "text", "text_color")}),
        }
        src = self._sources
        axis = t("head_steps_axis", steps="").split("(")[0].split("（")[0].strip()
        self._figures = {
            "loss": plots.training_curve_figure(src["curve"], t("head_loss_title"), axis, "loss", log=True),
            "accuracy": plots.training_curve_figure(
                src["curve"], t("head_accuracy_title"), axis, "accuracy", log=False, height=170
            ),
            "watched": plots.bars_figure(src["watched"], t("head_weights_heading"), 3 * (head_view.N_PAIRS + 1) - 1),
            "table": plots.heatmap_figure(
                src["table"], t("head_table_title"), "", "", n=head_view.N_LETTERS, height=300
            ),
            "reads": plots.heatmap_figure(src["reads"], t("head_reads_title"), "", "", n=1, height=110),
        }
        letters = dict(enumerate(head_view.LETTERS, start=1))
        for axis_ in (self._figures["table"].xaxis, self._figures["table"].yaxis):
            axis_[0].major_label_overrides = letters
        reads = self._figures["reads"]
        reads.x_range = Range1d(0.5, head_view.D_IN + 0.5)
        reads.xaxis.ticker = FixedTicker(ticks=list(range(1, head_view.D_IN + 1)))
        reads.xaxis[0].major_label_overrides = {**letters, **{9 + d: str(d) for d in range(10)}}
        reads.yaxis.visible = False
        for name, fig in self._figures.items():
            fig.css_classes = [f"ae-head-{name}-plot"]

        self._html = {name: html_model(f"ae-head-{name}") for name in ("readout", "progress")}
        self._html["feedback"] = html_model("ae-head-verdict")
        self._html["notice"] = html_model("ae-input-notice", visible=False)
        self._html["notice"].css_classes = ["ae-error", "ae-input-notice"]
        for name in ("watched_data", "table_data", "reads_data", "history_data"):
            self._html[name] = screen_reader_model(f"ae-head-{name.replace('_', '-')}")
        self._html["live"] = screen_reader_model("ae-live", live=True)
        self._html["live"].css_classes = [*self._html["live"].css_classes, "ae-head-live"]
        question = html_model("ae-head-question")
        question.text = html.escape(f"<b>{html.escape(t('head_predict_question'))}</b>")
        self._controls = {
            "question": question,
            "prediction_choice": controls.choice(
                [f"{'ABC'[i]}. {t(f'head_predict_{p}')}" for i, p in enumerate(head_view.PREDICTIONS[1:])],
                None,
                "ae-head-prediction",
                orientation="vertical",
            ),
            "predict_skip": controls.button(t("head_skip"), "ae-head-skip"),
            "train": controls.button(t("head_train"), "ae-head-train", "primary"),
            "step_button": controls.button(t("head_step"), "ae-head-step-button"),
            "reset": controls.button(t("head_reset"), "ae-head-reset"),
            "scaled": controls.checkbox(t("head_scaled"), self.scaled, "ae-head-scaled"),
        }
        self._sliders = {
            name: controls.slider(self.param[name], getattr(self, name), labels[name], f"ae-head-{name}")
            for name in ("d_k", "learning_rate", "seed")
        }
        self._callback = None
        self._rest = head_view.MAX_STEPS
        self._said_at = 0.0
        self._drawn = None  # the settings whose curve the source holds
        self.param.watch(self._new_run, list(SETTINGS))
        self.param.watch(self._play, ["playing"])

        self._redraw()
        events = {
            self._controls["prediction_choice"]: "active",
            self._controls["predict_skip"]: "button_click",
            self._controls["train"]: "button_click",
            self._controls["step_button"]: "button_click",
            self._controls["reset"]: "button_click",
            self._controls["scaled"]: "active",
        }
        events.update(self._slider_events())
        self._attach(events)

    # --- what the student does ----------------------------------------------------------
    def _act(self, origin, event=None) -> None:
        if self._slider_acted(origin):
            return
        c = self._controls
        if origin is c["prediction_choice"]:
            if origin.active is None:
                return
            self.prediction = self._pick(head_view.PREDICTIONS[1:], origin.active)
        elif origin is c["predict_skip"]:
            self.skipped = True
        elif origin is c["scaled"]:
            self.scaled = bool(origin.active)
        elif not (self.prediction or self.skipped):
            self._redraw()  # predict first: a press that reached us anyway changes nothing
        elif origin is c["train"]:
            self.playing = not self.playing and self.steps < head_view.MAX_STEPS
        elif origin is c["step_button"]:
            self.playing = False
            self.steps = min(self.steps + 1, head_view.MAX_STEPS)
        elif origin is c["reset"]:
            self.param.update(playing=False, steps=0)

    def _new_run(self, *events) -> None:
        self.param.update(playing=False, steps=0)

    def _play(self, event) -> None:
        if event.new and self._callback is None:
            self._rest = head_view.next_rest(self.steps)  # where this play rests by itself
            self._said_at = time.monotonic()
            self._callback = pn.state.add_periodic_callback(self._tick, period=TICK_PERIOD_MS)
        elif not event.new and self._callback is not None:
            self._callback.stop()
            self._callback = None

    def _tick(self) -> None:
        """Train for about :data:`TICK_BUDGET_S` seconds, then draw (the new points streamed)."""
        if not self.playing:
            return
        run = self._run()
        until = time.perf_counter() + TICK_BUDGET_S
        while run.t < self._rest and time.perf_counter() < until:
            run.step()
        if run.t >= self._rest:  # at the text's 300 steps (or the end): it rests; pressed again, it trains on
            self.param.update(steps=run.t, playing=False)
        else:
            self.steps = run.t

    def train(self, steps: int = 300) -> int:
        """Train ``steps`` more steps now (synchronously; at most to 5000 in all); return the steps trained
        in all.

        Raises
        ------
        ValueError
            If ``steps`` is not a whole number from 1 to 5000.
        """
        if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)) or not 1 <= steps <= head_view.MAX_STEPS:
            raise ValueError(f"steps must be a whole number from 1 to {head_view.MAX_STEPS}, got {steps!r}")
        self.steps = min(self.steps + int(steps), head_view.MAX_STEPS)
        return self.steps

    # --- the numbers, for notebooks and tests -------------------------------------------------
    def _run(self) -> head_view.Run:
        return head_view.run_at(self.seed, self.d_k, self.learning_rate, self.scaled, self.steps)

    @property
    def losses(self) -> list[float]:
        """The loss of each step's batch so far (nats), one per step trained."""
        return list(self._run().losses)

    @property
    def accuracies(self) -> list[float]:
        """The share of each step's batch answered right, one per step trained."""
        return list(self._run().accuracies)

    @property
    def params(self) -> dict[str, np.ndarray]:
        """Copies of the head's parameters now: ``W_Q``, ``W_K``, ``W_V`` (18, d_k) and ``W_U`` (d_k, 10)."""
        return {name: w.copy() for name, w in self._run().params.items()}

    def evaluate(self, size: int = 1000) -> dict[str, float]:
        """``accuracy`` and ``weight_on_match`` on ``size`` fresh examples (:func:`views.head.evaluate`)."""
        return head_view.evaluate(self._run(), size)

    # --- the view ---------------------------------------------------------------------
    def _models(self) -> dict:
        models = {**self._sources, **self._html, **self._controls}
        models.update(self._slider_models())
        models.update({f"{name}_plot": self._figures[name] for name in ("watched", "table", "reads")})
        return models

    def _draw(self) -> None:
        view = self.view()
        curve = view["sources"].pop("curve")
        source, key = self._sources["curve"], tuple(getattr(self, n) for n in SETTINGS)
        drawn = len(source.data["step"])
        if self._drawn == key and 0 < drawn <= len(curve["step"]):
            if drawn < len(curve["step"]):  # the curve grows: only the new points travel
                source.stream({k: v[drawn:] for k, v in curve.items()})
        else:
            source.data = curve
        self._drawn = key
        if self.playing:  # said now and then while it plays, not each tick
            said = view["html"].pop("live")
            if time.monotonic() - self._said_at >= SAY_EVERY_S:
                self._said_at = time.monotonic()
                said = view["html"]["readout"]
            if said:
                view["html"]["live"] = said
        write_view(self._models(), view)
        for name in self._sliders:
            slider, box, _row = self._sliders[name]
            slider.value = getattr(self, name)
            box.value = f"{getattr(self, name):g}"
        self._controls["scaled"].active = self.scaled
        layout = getattr(self, "_layout", None)
        if layout is not None:  # shown in a notebook: Bokeh models changed from Python travel by its comm
            pn.io.push_notebook(layout)

    def module_state(self) -> dict:
        """The state of its module's model (``web/head.js``): the settings and the prediction, not the
        training (the page trains the same head again from the seed)."""
        prediction = head_view.PREDICTIONS.index(self.prediction) - 1 if self.prediction else None
        return {**{n: getattr(self, n) for n in SETTINGS}, "prediction": prediction, "skipped": self.skipped}

    def _notebook_view(self):
        """In a notebook: this component itself, drawn and trained from Python (Train, or :meth:`train`
        in a later cell, streams its curves to the page); not its module, which would train in the page."""
        layout = getattr(self, "_layout", None)
        if layout is None:
            layout = self._layout = self.__panel__()
        return layout

    # --- layout only --------------------------------------------------------------------
    def __panel__(self):
        t = self._t
        c, h, f = self._controls, self._html, self._figures
        intro = pn.pane.HTML(f"<p style='margin:0'>{t(self.intro_key)}</p>", margin=(0, 5), sizing_mode="stretch_width")
        side = pn.Column(
            intro,
            *(bokeh_pane(c[name]) for name in ("question", "prediction_choice", "predict_skip")),
            bokeh_pane(h["feedback"]),
            pn.Row(*(bokeh_pane(c[name]) for name in ("train", "step_button", "reset")), sizing_mode="stretch_width"),
            *(bokeh_pane(h[name]) for name in ("readout", "progress", "live", "notice")),
            *(bokeh_pane(row) for _, _, row in self._sliders.values()),
            bokeh_pane(c["scaled"]),
            styles={"flex": "1 1 300px", "max-width": "480px", "min-width": "0"},
        )
        plots_ = pn.Column(
            self._plot(f["loss"]),
            self._plot(f["accuracy"]),
            bokeh_pane(h["history_data"]),
            self._plot(f["watched"]),
            bokeh_pane(h["watched_data"]),
            self._plot(f["table"]),
            bokeh_pane(h["table_data"]),
            self._plot(f["reads"]),
            bokeh_pane(h["reads_data"]),
            styles={"flex": "2 1 420px", "min-width": "0"},
        )
        return pn.FlexBox(
            side, plots_, flex_wrap="wrap", sizing_mode="stretch_width", css_classes=["ae-head"], styles={"gap": "12px"}
        )
