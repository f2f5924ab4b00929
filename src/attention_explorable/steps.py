"""The three-step "predict, then demonstrate" explorable of section 3.8."""

from __future__ import annotations

import html

import numpy as np
import panel as pn
import param
from bokeh.events import Tap
from bokeh.models import ColumnDataSource, CustomJS

from . import plots, scenarios, serving, stepsview, ui
from .strings import DEFAULT_LANGUAGE, STRINGS, text

_T_BOUNDS = stepsview.T_BOUNDS
_STATE_PARAMS = scenarios.STATE_KEYS


def _set_data(source: ColumnDataSource, data: dict) -> None:
    """Assign the fresh dict ``data`` to ``source.data`` unless no column changed.

    Every assignment travels to the browser and redraws its plot; one slider
    key press changes only some of the sources, so unchanged ones are skipped.
    """
    old = source.data
    if old.keys() == data.keys() and all(np.array_equal(old[k], v) for k, v in data.items()):
        return
    source.data = data


class StepsExplorer(pn.viewable.Viewer):
    """Attention over two scalar values, replayed in three steps.

    A student picks a step, predicts the output ``y``, presses
    "演示本步" and watches the parameters move from the step's start to
    its target state, then compares the result with the prediction. All
    numbers come from :mod:`attention_explorable.core`:
    ``a = softmax([s_1, s_2], T)``, ``y = a_1 v_1 + a_2 v_2``.

    Parameters
    ----------
    step : int
        Current step, 1-3 (see :data:`attention_explorable.scenarios.STEPS`).
    score_1, score_diff : float
        First score ``s_1`` and difference ``s_2 - s_1`` (dimensionless).
    temperature : float
        Softmax temperature ``T`` in [0.01, 10].
    value_1, value_2 : float
        The two scalar values ``v_1``, ``v_2``.
    prediction : float or None
        The student's predicted output ``y``; kept through the demonstration.
    browser_drawing : bool
        Redraw in the browser as a slider moves (default: on unless
        ``AE_FAST_PATH=0``); see :mod:`attention_explorable.stepsview`.

    Raises
    ------
    ValueError
        From ``param`` when a parameter is set outside its bounds; the
        message names the parameter and the value.

    References
    ----------
    Course section 3.8, "一步一步建立直观"; Definition 3.8.1 and
    Proposition 3.8.1.
    """

    step = param.Integer(1, bounds=(1, 3), doc="Current step of section 3.8 (1, 2 or 3).")
    score_1 = param.Number(0.0, bounds=(-50.0, 50.0), step=0.5,
                           doc="First score s₁ (dimensionless).")
    score_diff = param.Number(0.0, bounds=(-10.0, 10.0), step=0.1,
                              doc="Score difference s₂ − s₁ (dimensionless).")
    temperature = param.Number(1.0, bounds=_T_BOUNDS, step=0.01,
                               doc="Softmax temperature T > 0: low sharpens, high flattens.")
    value_1 = param.Number(2.0, bounds=(-20.0, 20.0), step=0.5, doc="First scalar value v₁.")
    value_2 = param.Number(10.0, bounds=(-20.0, 20.0), step=0.5, doc="Second scalar value v₂.")
    prediction = param.Number(None, allow_None=True, bounds=(-20.0, 20.0), step=0.1,
                              doc="The student's prediction of the output y at the target state.")
    prediction_text = param.String("", doc="The prediction as typed; parsed into `prediction`.")
    revealed = param.Boolean(False, doc="True once this step has been demonstrated.")
    animating = param.Boolean(False, doc="True while the demonstration is replaying.")
    animate = param.Boolean(True, doc="Replay the demonstration in frames (False jumps to the target).")
    frames = param.Integer(24, bounds=(1, 200), doc="Number of frames of the replay (40 ms each).")
    language = param.Selector(default=DEFAULT_LANGUAGE, objects=list(STRINGS), constant=True,
                              doc="Language of the interface text.")
    browser_drawing = param.Boolean(
        True, constant=True,
        doc="Redraw readouts and plots in the browser as a slider moves (the JavaScript mirror of "
            "stepsview); the server's results, from the core, follow. Off when AE_FAST_PATH=0, "
            "so that benchmarks can compare with a plain Panel component.")

    go_step_1 = param.Event(doc="Go to step 1 and reset to its start state.")
    go_step_2 = param.Event(doc="Go to step 2 and reset to its start state.")
    go_step_3 = param.Event(doc="Go to step 3 and reset to its start state.")
    demonstrate = param.Event(doc="Replay the current step from its start to its target state.")

    def __init__(self, **params):
        # Start in the chosen step's own situation, except what the caller set.
        start = scenarios.get_step(params.get("step", type(self).param.step.default)).start
        params.setdefault("browser_drawing", serving.fast_path_requested())
        super().__init__(**{**start, **params})
        t = self._t
        self._answer: float | None = None
        self._prediction_error = ""
        self._callback = None
        self._frame_states: list[dict] = []
        self._temperature_views_current = False

        # The browser redraws these from the slider values itself (see
        # _attach_mirror); syncable=False keeps those redraws from being sent
        # back. The server still writes them, from the core.
        drawn = {"syncable": False}
        self._values = ColumnDataSource({"x": [], "label": []}, **drawn)
        self._interval = ColumnDataSource({"x0": [], "x1": []}, **drawn)
        self._output = ColumnDataSource({"x": [], "label": []}, **drawn)
        self._prediction = ColumnDataSource({"x": [], "label": []})
        self._weights = ColumnDataSource({"name": ["a₁", "a₂"], "weight": [0.5, 0.5], "label": ["", ""]}, **drawn)
        self._curve = ColumnDataSource({"t": [], "weight": []}, **drawn)
        self._point = ColumnDataSource({"t": [], "weight": []}, **drawn)
        self._strings = stepsview.view_strings(self.language)
        # The JavaScript mirror's source, its strings and the curve's temperatures,
        # sent once per page and shared by all the callbacks of this explorable.
        self._mirror_lib = ColumnDataSource({"t": stepsview.CURVE_T}, tags=[stepsview.VIEW_JS, self._strings],
                                            **drawn)

        self._line_fig = plots.number_line_figure(
            self._values, self._interval, self._output, self._prediction, t("plot_number_line"),
            {"interval": t("legend_interval"), "value": t("legend_value"),
             "output": t("legend_output"), "prediction": t("legend_prediction")})
        self._line_fig.on_event(Tap, self._on_tap)
        self._line_fig.x_range.syncable = False
        self._weights_fig = plots.weights_figure(self._weights, t("plot_weights"), t("axis_weight"))
        self._curve_fig = plots.temperature_curve_figure(
            self._curve, self._point, t("plot_temperature_curve"), t("axis_temperature"),
            t("axis_weight"), _T_BOUNDS)

        self._question = pn.pane.HTML("", css_classes=["ae-question"], margin=(0, 5))
        self._readouts = ui.browser_drawn_readout("ae-readouts")
        self._formula = ui.browser_drawn_readout("ae-formula")
        self._naive = ui.browser_drawn_readout("ae-naive")
        self._result = ui.readout("ae-result")
        self._error = pn.pane.HTML("", css_classes=["ae-error"], visible=False)

        self._controls = self._build_controls()
        self._update()
        self._update_step_text()
        self._mirrored_roots: set[str] = set()

    # --- text ------------------------------------------------------------
    def _t(self, key, **fmt):
        return text(key, self.language, **fmt)

    # --- widgets (all from parameters) -------------------------------------
    def _build_controls(self):
        t = self._t
        step_buttons = [
            pn.widgets.Button.from_param(getattr(self.param, f"go_step_{n}"), description=None,
                                         name=t("step_button", n=n), css_classes=[f"ae-step-{n}"],
                                         color="primary" if n == self.step else "default",
                                         sizing_mode="stretch_width")
            for n in (1, 2, 3)
        ]
        self._step_buttons = step_buttons
        self._demo_button = pn.widgets.Button.from_param(
            self.param.demonstrate, description=None, name=t("demonstrate"), css_classes=["ae-demonstrate"],
            color="success", sizing_mode="stretch_width")

        def slider(name, css, **kw):
            return ui.EditableFloatSlider.from_param(
                getattr(self.param, name), name=t(name), css_classes=[css],
                message_template=t("input_clamped"), sizing_mode="stretch_width", **kw)

        sliders = {
            "score_diff": slider("score_diff", "ae-score-diff"),
            "temperature": slider("temperature", "ae-temperature", format="0.00"),
            "value_1": slider("value_1", "ae-value-1"),
            "value_2": slider("value_2", "ae-value-2"),
            "score_1": slider("score_1", "ae-score-1"),
        }
        return {
            **sliders,
            "notice": ui.input_notice(sliders.values()),
            "steps": pn.Row(*step_buttons, sizing_mode="stretch_width"),
            "prediction": pn.widgets.TextInput.from_param(
                self.param.prediction_text, description=None, name=t("prediction"), css_classes=["ae-prediction"],
                placeholder="?", sizing_mode="stretch_width"),
            "demonstrate": self._demo_button,
        }

    # --- navigation and replay ---------------------------------------------
    def go_to_step(self, number: int) -> None:
        """Go to step ``number`` (1-3) and reset to its start state.

        Raises
        ------
        ValueError
            If ``number`` is not 1, 2 or 3.
        """
        step = scenarios.get_step(number)
        self._stop_animation()
        self._answer = None
        self.param.update(step=number, prediction_text="", revealed=False, **step.start)
        for n, button in enumerate(self._step_buttons, start=1):
            button.color = "primary" if n == number else "default"
        self._update_step_text()

    @param.depends("go_step_1", watch=True)
    def _on_go_1(self):
        self.go_to_step(1)

    @param.depends("go_step_2", watch=True)
    def _on_go_2(self):
        self.go_to_step(2)

    @param.depends("go_step_3", watch=True)
    def _on_go_3(self):
        self.go_to_step(3)

    @param.depends("demonstrate", watch=True)
    def _on_demonstrate(self):
        if self.animating:
            return
        step = scenarios.get_step(self.step)
        self._answer = step.expected_output()
        self.revealed = False
        if self.animate and self.frames > 1 and pn.state.curdoc is not None \
                and pn.state.curdoc.session_context is not None:
            self._frame_states = [
                scenarios.interpolate(step.start, step.target, i / (self.frames - 1))
                for i in range(self.frames)
            ]
            self.param.update(animating=True, **self._frame_states.pop(0))
            self._demo_button.name = self._t("demonstrating")
            self._callback = pn.state.add_periodic_callback(
                self._next_frame, period=40, count=len(self._frame_states))
        else:
            self.param.update(revealed=True, **step.target)
        self._update_step_text()

    def _next_frame(self):
        if not self._frame_states:
            return
        state = self._frame_states.pop(0)
        if self._frame_states:
            self.param.update(**state)
        else:
            self._callback = None
            self._demo_button.name = self._t("demonstrate")
            self.param.update(animating=False, revealed=True, **state)
            self._update_step_text()

    def _stop_animation(self):
        if self._callback is not None:
            self._callback.stop()
            self._callback = None
        self._frame_states = []
        if self.animating:
            self.animating = False
            self._demo_button.name = self._t("demonstrate")

    def _on_tap(self, event):
        lo, hi = self.param.prediction.bounds
        self.prediction_text = f"{min(max(float(event.x), lo), hi):.2f}"

    @param.depends("prediction_text", watch=True)
    def _parse_prediction(self):
        raw = self.prediction_text.strip().replace("，", ".").replace(",", ".")
        lo, hi = self.param.prediction.bounds
        if not raw:
            self._prediction_error = ""
            self.prediction = None
            return
        try:
            value = float(raw)
            if not lo <= value <= hi:
                raise ValueError
        except ValueError:
            self._prediction_error = self._t("prediction_invalid", raw=html.escape(self.prediction_text),
                                             lo=f"{lo:g}", hi=f"{hi:g}")
            if self.prediction is None:
                self.param.trigger("prediction")
            self.prediction = None
            return
        self._prediction_error = ""
        self.prediction = value

    # --- the one updater ----------------------------------------------------
    def _state(self) -> dict:
        return {k: getattr(self, k) for k in _STATE_PARAMS}

    @param.depends(*_STATE_PARAMS, "prediction", "revealed", watch=True)
    def _update(self):
        # Panel runs button events without the Bokeh document lock; unlocked()
        # holds and dispatches the raw Bokeh model changes safely either way.
        with pn.io.unlocked():
            self._push()

    def _push(self):
        t = self._t
        self._temperature_views_current = self.step == 3
        try:
            view = stepsview.steps_view(self._state(), self.prediction, self._strings,
                                        temperature_views=self._temperature_views_current)
        except ValueError as exc:  # defensive: the widgets' bounds make this unreachable
            self._error.object = f"{t('error_prefix')}{exc}"
            self._error.visible = True
            return
        self._draw(view)
        pred = self.prediction
        _set_data(self._prediction, {"x": [pred], "label": [f"{pred:g}"]} if pred is not None
                  else {"x": [], "label": []})
        if self.revealed and self._answer is not None:
            f, true = ui.format_number, self._answer
            msg = (t("result_with_prediction", pred=f"{pred:g}", true=f(true, 2), gap=f(abs(pred - true), 2))
                   if pred is not None else t("result_no_prediction", true=f(true, 2)))
        else:
            msg = t("result_pending")
        self._result.object = f"<b>{t('result_label')}</b>：{msg}"
        self._error.object = self._prediction_error
        self._error.visible = bool(self._prediction_error)

    def _draw(self, view: dict) -> None:
        """Write a :func:`stepsview.steps_view` into the sources and panes.

        The readouts and the formula go last: in the browser, their arrival
        makes the mirror redraw from the sliders' current values, so a reply
        to an older slider position never stays on screen.
        """
        for name in ("values", "interval", "output", "weights", "curve", "point"):
            if name in view:
                _set_data(getattr(self, f"_{name}"), view[name])
        start, end = view["x_range"]
        self._line_fig.x_range.update(start=start, end=end)
        if "naive" in view:
            ui.set_readout(self._naive, view["naive"])
        ui.set_readout(self._formula, view["formula"])
        ui.set_readout(self._readouts, view["readouts"])

    def _push_temperature_views(self) -> None:
        self._draw(stepsview.steps_view(self._state(), self.prediction, self._strings))

    def _attach_mirror(self, root) -> None:
        """Let the browser redraw readouts and plots as a slider moves (JavaScript mirror).

        Called once the Bokeh models of ``root`` exist. Attaches one
        ``CustomJS`` running :data:`stepsview.VIEW_JS` to every change of a
        slider's value, and to the arrival of the server's readouts or
        formula, so that what is on screen always belongs to the sliders'
        current position. Errors go to the browser console. The callback
        lives on the Bokeh models of that root only (Panel's ``jscallback``
        would keep every session's objects alive in a process-wide registry).
        """
        ref = root.ref["id"]
        if ref in self._mirrored_roots:
            return
        sliders = {}
        for name in _STATE_PARAMS:
            entry = self._controls[name]._slider._models.get(ref)
            if entry is None:  # the sliders are not part of this root
                return
            sliders[name] = entry[0]
        self._mirrored_roots.add(ref)
        args = {"lib": self._mirror_lib, **sliders, "prediction": self._prediction, "values": self._values,
                "interval": self._interval, "output": self._output, "weights": self._weights,
                "curve": self._curve, "point": self._point, "x_range": self._line_fig.x_range,
                "readouts": self._readouts.object, "formula": self._formula.object,
                "naive": self._naive.object, "curve_fig": self._curve_fig}
        names = ", ".join(args)
        draw = CustomJS(args=args, code=(
            "try {"
            " const ae = window.__aeStepsView || (window.__aeStepsView = new Function(lib.tags[0])());"
            f" ae.stepsDraw({{{names}}});"
            " } catch (err) { console.error('attention explorable: drawing in the browser failed', err); }"
        ))
        for model in sliders.values():
            model.js_on_change("value", draw)
        self._readouts.object.js_on_change("text", draw)
        self._formula.object.js_on_change("text", draw)

    def _update_step_text(self):
        step = scenarios.get_step(self.step)
        explain = f"<p class='ae-explain'>{self._t(step.explain_key)}</p>" if self.revealed else ""
        self._question.object = (
            f"<h3 style='margin:4px 0'>{self._t(step.title_key)}</h3>"
            f"<p>{self._t(step.question_key)}</p>{explain}"
        )
        with pn.io.unlocked():
            if self.step == 3 and not self._temperature_views_current:
                self._push_temperature_views()
                self._temperature_views_current = True
            self._curve_fig.visible = self.step == 3
            self._naive.object.visible = self.step == 3

    # --- layout only ----------------------------------------------------------
    def __panel__(self):
        c = self._controls
        hint = pn.pane.HTML(f"<small>{self._t('prediction_hint')}</small>", margin=(0, 5))
        left = pn.Column(
            c["steps"], self._question, hint, c["prediction"], self._error, c["demonstrate"],
            self._result,
            c["score_diff"], c["temperature"], c["value_1"], c["value_2"], c["score_1"], c["notice"],
            styles={"flex": "1 1 330px", "max-width": "440px", "min-width": "0"},
        )
        right = pn.Column(
            self._readouts, self._line_fig, self._weights_fig, self._curve_fig,
            self._formula, self._naive, styles={"flex": "2 1 480px", "min-width": "0"},
        )
        body = pn.FlexBox(left, right, flex_wrap="wrap", sizing_mode="stretch_width",
                          css_classes=["ae-steps"], styles={"gap": "12px"})
        return _RenderHook(body, sizing_mode="stretch_width", margin=0,
                           on_render=self._attach_mirror if self.browser_drawing else None)


class _RenderHook(pn.Column):
    """A Column that calls ``on_render(root)`` once it has built its models for a root.

    (A Column: Panel maps it to Bokeh's own ``Column`` model, also when subclassed.)
    """

    def __init__(self, *objects, on_render=None, **params):
        super().__init__(*objects, **params)
        self._on_render = on_render

    def _get_model(self, doc, root=None, parent=None, comm=None):
        model = super()._get_model(doc, root, parent, comm)
        if self._on_render is not None:
            self._on_render(root if root is not None else model)
        return model


# Presenter keys: 1/2/3 choose a step, D demonstrates. The listener sits on
# the document (key events cross Panel's shadow roots) and clicks the same
# buttons a mouse would, so the server sees an ordinary click.
_KEYS_SCRIPT = """<script>
(() => {
  if (window.__aeStepKeys) return;
  window.__aeStepKeys = true;
  const find = (root, sel) => {
    const hit = root.querySelector(sel);
    if (hit) return hit;
    for (const el of root.querySelectorAll("*")) {
      if (el.shadowRoot) { const inner = find(el.shadowRoot, sel); if (inner) return inner; }
    }
    return null;
  };
  const targets = {"1": ".ae-step-1", "2": ".ae-step-2", "3": ".ae-step-3",
                   "d": ".ae-demonstrate", "D": ".ae-demonstrate"};
  document.addEventListener("keydown", (e) => {
    const origin = e.composedPath()[0];
    const typing = origin && (["INPUT", "TEXTAREA", "SELECT"].includes(origin.tagName) || origin.isContentEditable);
    if (typing || e.ctrlKey || e.metaKey || e.altKey || !(e.key in targets)) return;
    const host = find(document, targets[e.key]);
    const button = host && (host.shadowRoot || host).querySelector("button");
    if (button) { button.click(); e.preventDefault(); }
  });
})();
</script>"""


def presenter_keys(language: str = DEFAULT_LANGUAGE) -> pn.pane.HTML:
    """A one-line hint plus the script that maps keys 1, 2, 3 and D to the step buttons.

    For a page with a single :class:`StepsExplorer`, such as the classroom
    app: an instructor can step through section 3.8 from the keyboard.
    """
    return pn.pane.HTML(f"<small class='ae-keys'>{text('keyboard_hint', language)}</small>{_KEYS_SCRIPT}",
                        css_classes=["ae-presenter-keys"], margin=(0, 5))
