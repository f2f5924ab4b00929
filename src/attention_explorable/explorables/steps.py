"""The three-step "predict, then demonstrate" explorable of section 3.7.5.

Its view is :func:`attention_explorable.views.steps.steps_view`. Its student
page, embeds, textbook block and notebook widget are its module
``web/steps.js``; the Panel component here (``panel serve``, the
instructor's projected page) is drawn from Python.
"""

from __future__ import annotations

import html
import math

import panel as pn
import param
from bokeh.models import ColumnDataSource

from .. import plots, scenarios, ui
from ..strings import DEFAULT_LANGUAGE, text
from ..views import steps as steps_view
from ..views.numbers import format_fixed
from . import controls
from .base import Explorable, ScriptedPane, Tried, bokeh_pane, html_model, screen_reader_model


class StepsExplorer(Explorable):
    """Attention over two scalar values, replayed in three steps.

    A student picks a step, predicts the output ``y``, presses
    "演示本步" and watches the parameters move from the step's start to
    its target state, then compares the result with the prediction. All
    numbers come from :mod:`attention_explorable.core`:
    ``a = softmax([s_1, s_2], T)``, ``y = a_1 v_1 + a_2 v_2``. As a Panel
    component its controls call Python, which draws every change (the
    replay too, a frame each 40 ms); its student page is ``web/steps.js``.

    Parameters
    ----------
    step : int
        Current step, 1-3 (see :data:`attention_explorable.scenarios.STEPS`);
        a new explorable starts in its step's start state.
    score_1, score_diff : float
        First score ``s_1`` in [-50, 50] and difference ``s_2 - s_1`` in
        [-10, 10] (dimensionless).
    temperature : float
        Softmax temperature ``T`` in [0.01, 10].
    value_1, value_2 : float
        The two scalar values ``v_1``, ``v_2``, each in [-20, 20].
    prediction_text : str
        The prediction of ``y`` as typed (a decimal comma, full-width digits
        and ``a/b`` are accepted); :attr:`prediction` is its number.
    revealed, animating : bool
        Whether the step has been demonstrated; whether the replay runs.
    asked : bool
        Whether "演示本步" was pressed without a prediction: the explorable
        then asks for one and offers "不预测，直接看" (``ae-skip-prediction``),
        which runs the demonstration and, in a room, submits nothing.
    language : {"zh", "en"}
        Language of the interface text.

    The student page opened in a room (``?room=CODE``, served by
    ``attention-explorable serve``) shows its class panel (``web/classroom.js``).
    ``ask_prediction=False`` (a keyword of the constructor) makes "演示本步"
    (and the key D) play the step at once, with no prediction asked: for a
    presenter's copy, the instructor's.

    Raises
    ------
    ValueError
        From ``param`` when a parameter is set outside its bounds; the
        message names the parameter and the value.

    References
    ----------
    Course section 3.7.5, the steps (the source course's 3.8); the softmax weights of 3.7.4 and
    Proposition 3.8.1.

    Examples
    --------
    >>> ex = StepsExplorer()
    >>> ex.go_to_step(2); ex.demonstrate()
    >>> round(ex.view()["sources"]["output"]["x"][0], 2)
    9.05
    """

    step = param.Integer(1, bounds=(1, 3), doc="Current step of section 3.7.5 (1, 2 or 3).")
    score_1 = param.Number(
        0.0,
        bounds=steps_view.SLIDERS["score_1"][:2],
        step=steps_view.SLIDERS["score_1"][2],
        doc="First score s₁ (dimensionless).",
    )
    score_diff = param.Number(
        0.0,
        bounds=steps_view.SLIDERS["score_diff"][:2],
        step=steps_view.SLIDERS["score_diff"][2],
        doc="Score difference s₂ − s₁ (dimensionless).",
    )
    temperature = param.Number(
        1.0,
        bounds=steps_view.T_BOUNDS,
        step=steps_view.SLIDERS["temperature"][2],
        doc="Softmax temperature T > 0: low sharpens, high flattens.",
    )
    value_1 = param.Number(
        2.0,
        bounds=steps_view.SLIDERS["value_1"][:2],
        step=steps_view.SLIDERS["value_1"][2],
        doc="First scalar value v₁.",
    )
    value_2 = param.Number(
        10.0,
        bounds=steps_view.SLIDERS["value_2"][:2],
        step=steps_view.SLIDERS["value_2"][2],
        doc="Second scalar value v₂.",
    )
    prediction_text = param.String("", doc="The student's prediction of the output y, as typed.")
    revealed = param.Boolean(False, doc="True once this step has been demonstrated.")
    animating = param.Boolean(False, doc="True while the demonstration is replaying in the browser.")
    asked = param.Boolean(False, doc="True once the demonstration was asked for without a prediction.")

    _view_module = steps_view
    # (a value's slider: what the steps move, the scores and the temperature, waits for the prediction)
    tried = Tried(ready=".ae-output", control=".ae-value-1", state={"value_2": 8.0})

    @classmethod
    def page_parts(cls, language: str) -> tuple:
        """The steps' page of its own has the presenter's keys (1, 2, 3 for the steps, D to demonstrate)."""
        return (presenter_keys(language),)

    _link_params = ("step", *scenarios.STATE_KEYS, "prediction_text", "revealed")

    def __init__(self, ask_prediction: bool = True, **params):
        # Start in the chosen step's own situation, except what the caller set.
        start = scenarios.get_step(params.get("step", type(self).param.step.default)).start
        super().__init__(**{**start, **params})
        self._replay = None  # the periodic callback of a replay under way
        t = self._t
        self._sources = {
            "values": ColumnDataSource({"x": [], "label": []}),
            "interval": ColumnDataSource({"x0": [], "x1": []}),
            "output": ColumnDataSource({"x": [], "label": []}),
            "prediction": ColumnDataSource({"x": [], "label": []}),
            "weights": ColumnDataSource({"name": ["α₁", "α₂"], "weight": [0.5, 0.5], "label": ["", ""]}),
            "curve": ColumnDataSource({"t": [], "weight": []}),
            "point": ColumnDataSource({"t": [], "weight": []}),
        }
        src = self._sources
        self._line_fig = plots.number_line_figure(
            src["values"],
            src["interval"],
            src["output"],
            src["prediction"],
            t("plot_number_line"),
            {
                "interval": t("legend_interval"),
                "value": t("legend_value"),
                "output": t("legend_output"),
                "prediction": t("legend_prediction"),
            },
        )
        self._line_fig.css_classes = ["ae-number-line"]
        self._weights_fig = plots.weights_figure(src["weights"], t("plot_weights"), t("axis_weight"))
        self._curve_fig = plots.temperature_curve_figure(
            src["curve"],
            src["point"],
            t("plot_temperature_curve"),
            t("axis_temperature"),
            t("axis_weight"),
            steps_view.T_BOUNDS,
        )
        self._curve_fig.css_classes = ["ae-temperature-curve"]

        self._html = {
            name: html_model(f"ae-{name}")
            for name in ("readouts", "formula", "naive", "question", "result", "error", "notice")
        }
        self._html["question"].css_classes = ["ae-question"]
        self._html["error"].css_classes = ["ae-error", "ae-prediction-error"]
        self._html["notice"].css_classes = ["ae-error", "ae-input-notice"]
        self._html["notice"].visible = False
        self._html["live"] = screen_reader_model("ae-live", live=True)
        for name in ("line_data", "weights_data", "curve_data"):
            self._html[name] = screen_reader_model(f"ae-{name.replace('_', '-')}")

        self._sliders = {}
        for name in steps_view.SLIDERS:
            css = "ae-" + name.replace("_", "-")
            self._sliders[name] = controls.slider(self.param[name], getattr(self, name), t(name), css)
        self._step_buttons = {n: controls.button(t("step_button", n=n), f"ae-step-{n}") for n in (1, 2, 3)}
        self._demonstrate = controls.button(t("demonstrate"), "ae-demonstrate", "success")
        self._skip = controls.button(t("skip_prediction"), "ae-skip-prediction")
        self._skip.visible = False
        self._prediction_input = controls.text_input(t("prediction"), "ae-prediction", placeholder="?")

        # Predict first: "演示本步" without a prediction asks for one (a student); a presenter's plays at once.
        # The values it opened with (an author's; a link's, open_link) are every step's: demonstrated and checked.
        self._config_data = steps_view.steps_config(
            self.language, ask_prediction, values={"value_1": self.value_1, "value_2": self.value_2}
        )
        self._redraw()
        events = {
            self._line_fig: "tap",
            self._demonstrate: "button_click",
            self._skip: "button_click",
            self._prediction_input: ["value_input", "value_submit"],  # (Enter demonstrates, as on a page)
        }
        events.update({b: "button_click" for b in self._step_buttons.values()})
        events.update(self._slider_events())
        self._attach(events)

    # --- the view -------------------------------------------------------------
    @property
    def prediction(self) -> float | None:
        """The typed prediction as a number; None when empty, not a number or out of [-20, 20]."""
        return steps_view.parse_prediction(self.prediction_text)

    def _models(self) -> dict:
        models = {
            **self._sources,
            **self._html,
            "x_range": self._line_fig.x_range,
            "line_fig": self._line_fig,
            "curve_fig": self._curve_fig,
            "demonstrate": self._demonstrate,
            "skip": self._skip,
            "prediction_input": self._prediction_input,
        }
        models.update(self._slider_models())
        models.update({f"step_{n}": b for n, b in self._step_buttons.items()})
        return models

    def _link_starts(self):
        return scenarios.link_starts()

    # --- the student's actions (Panel) ------------------------------------------
    def _waits(self, origin) -> bool:
        # Predict first: what the step moves waits for its demonstration (a page greys it), but on a presenter's.
        if not self._config_data["ask_prediction"] or self.revealed or self.animating:
            return False
        return any(origin is m for n in steps_view.MOVED for m in self._sliders[n][:2])

    def _act(self, origin, event=None) -> None:
        if self._slider_acted(origin, before=self._halt):  # a student's move ends a replay where it is
            return
        for n, b in self._step_buttons.items():
            if origin is b:
                self._say("")
                again = self.step == n
                self.go_to_step(n)
                if again:  # the step's own button pressed again: said too (the instructor's page poses it)
                    self.param.trigger("step")
                return
        if origin is self._prediction_input:
            typed = origin.value_input
            if not isinstance(typed, str) or len(typed) > 10_000:
                raise ValueError(f"prediction_text must be text, got {typed!r}")
            if typed != self.prediction_text:
                self._say("")
                self.prediction_text = typed
            if getattr(event, "event_name", "") != "value_submit":
                return
            # Enter in the box: what it holds is the prediction, and the step is demonstrated as by the button
        if origin is self._demonstrate or origin is self._prediction_input:
            self._say("")
            if self.animating:
                return
            if self.prediction is None and self._config_data["ask_prediction"]:
                self.asked = True  # predict first: the view asks for one and offers to skip
            else:
                self._play()
        elif origin is self._skip:
            self._say("")
            self._play()
        elif origin is self._line_fig and event is not None and math.isfinite(event.x):
            lo, hi = steps_view.PREDICTION_BOUNDS
            self._say("")
            self.prediction_text = format_fixed(min(max(event.x, lo), hi), 2)

    def _play(self) -> None:
        """Replay the step to its target, a frame each ``frame_ms`` (at once where no page shows it)."""
        doc = pn.state.curdoc
        if doc is None or doc.session_context is None:
            self.demonstrate()
            return
        self._halt()
        step = self._step_states(self.step)
        frames = [
            scenarios.interpolate(step["start"], step["target"], i / (self._config_data["frames"] - 1))
            for i in range(self._config_data["frames"])
        ]
        self.param.update(asked=False, revealed=False, animating=True, **frames.pop(0))
        replayed = self.step

        def frame():
            if self.step != replayed or not self.animating:
                return self._halt()
            if len(frames) > 1:
                self.param.update(**frames.pop(0))
            else:
                self._halt()
                self.demonstrate()

        self._replay = pn.state.add_periodic_callback(frame, period=self._config_data["frame_ms"])

    def _halt(self) -> None:
        """Stop a replay under way where it is."""
        if self._replay is not None:
            self._replay.stop()
            self._replay = None
        if self.animating:
            self.animating = False

    # --- navigation (for notebooks, the class and deep links) --------------------
    def go_to_step(self, number: int) -> None:
        """Go to step ``number`` (1-3) and reset to its start state.

        Raises
        ------
        ValueError
            If ``number`` is not 1, 2 or 3.
        """
        start = self._step_states(number)["start"]
        self._halt()
        self.param.update(step=number, prediction_text="", revealed=False, animating=False, asked=False, **start)

    def demonstrate(self) -> None:
        """Show the current step's target state and its result (no replay; the browser replays)."""
        target = self._step_states(self.step)["target"]
        self.param.update(animating=False, revealed=True, asked=False, **target)

    def _step_states(self, number: int) -> dict:
        """Step ``number``'s start and target with the values on screen (``steps_view.with_values``).

        Raises
        ------
        ValueError
            If ``number`` is not 1, 2 or 3.
        """
        scenarios.get_step(number)  # (names a wrong number)
        values = {"value_1": self.value_1, "value_2": self.value_2}  # the values on screen, kept
        return steps_view.with_values([self._config_data["steps"][number - 1]], values)[0]

    # --- layout only ----------------------------------------------------------
    @property
    def figures(self) -> tuple:
        """The explorable's Bokeh figures: the number line, the weights, the temperature curve."""
        return (self._line_fig, self._weights_fig, self._curve_fig)

    @property
    def controls(self) -> tuple:
        """The explorable's Bokeh widgets: the step buttons, the prediction box, demonstrate and skip, each
        slider and its number box."""
        return (
            *self._step_buttons.values(),
            self._prediction_input,
            self._demonstrate,
            self._skip,
            *(w for slider, box, _row in self._sliders.values() for w in (slider, box)),
        )

    def __panel__(self):
        t = self._t
        hint = pn.pane.HTML(f"<span class='ae-hint'>{t('prediction_hint')}</span>", margin=(0, 5), stylesheets=[ui.CSS])
        left = pn.Column(
            pn.Row(*map(bokeh_pane, self._step_buttons.values()), sizing_mode="stretch_width"),
            bokeh_pane(self._html["question"]),
            hint,
            bokeh_pane(self._prediction_input),
            bokeh_pane(self._html["error"]),
            bokeh_pane(self._demonstrate),
            bokeh_pane(self._skip),
            bokeh_pane(self._html["result"]),
            *(bokeh_pane(row) for _, _, row in self._sliders.values()),
            bokeh_pane(self._html["notice"]),
            styles={"flex": "1 1 330px", "max-width": "440px", "min-width": "0"},
        )
        right = pn.Column(
            bokeh_pane(self._html["readouts"]),
            bokeh_pane(self._html["live"]),
            self._plot(self._line_fig),
            bokeh_pane(self._html["line_data"]),
            self._plot(self._weights_fig),
            bokeh_pane(self._html["weights_data"]),
            self._plot(self._curve_fig),
            bokeh_pane(self._html["curve_data"]),
            bokeh_pane(self._html["formula"]),
            bokeh_pane(self._html["naive"]),
            styles={"flex": "2 1 480px", "min-width": "0"},
        )
        return pn.FlexBox(
            left, right, flex_wrap="wrap", sizing_mode="stretch_width", css_classes=["ae-steps"], styles={"gap": "12px"}
        )


#: The presenter keys' hint: a check box that switches the keys off, and what they do.
_KEYS_CSS = """
label.ae-keys { font-size: var(--ae-small, 13px); display: inline-flex; align-items: center; gap: 6px; min-height: 24px; }
input.ae-keys-on { width: 24px; height: 24px; margin: 0; }
"""


def presenter_keys(language: str = DEFAULT_LANGUAGE, hint: bool = True, targets: dict | None = None) -> ScriptedPane:
    """Keys 1, 2, 3 and D for the step buttons of a page with one :class:`StepsExplorer` (``web/keys.js``).

    For a page such as the one an instructor projects: the keys click the
    same buttons a mouse would, in the browser, server or not. With ``hint``,
    a line says so, with a check box (class ``ae-keys-on``) that switches the
    keys off. ``targets`` adds keys: a key (either case) -> the CSS selector
    of the button it clicks (the instructor's R and N).
    """
    label = (
        (
            f"<label class='ae-keys'><input type='checkbox' class='ae-keys-on' checked>"
            f"<span>{html.escape(text('keyboard_hint', language))}</span></label>"
        )
        if hint
        else ""
    )
    return ScriptedPane(
        label,
        script="keys",
        settings={"targets": targets or {}},
        css_classes=["ae-presenter-keys"],
        stylesheets=[_KEYS_CSS],
        margin=(0, 5) if hint else 0,
        sizing_mode="stretch_width",
    )
