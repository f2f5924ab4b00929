"""``tempered``: three fixed scores and values under one temperature slider (a test-only explorable).

Everything an explorable of the package has, in a few lines: a pure view
(:func:`tempered_view`, computed with the numpy core), its JavaScript twin
(``web/tempered.js``, computed with ``web/attention.js``), a Viewer on the
shared base, and one registration. Importing this module registers it.
"""

from __future__ import annotations

from pathlib import Path

import panel as pn
import param

from attention_explorable import core
from attention_explorable.explorables import Registration, register
from attention_explorable.explorables import controls
from attention_explorable.explorables.base import Explorable, html_model, state_model_class
from attention_explorable.strings import text
from attention_explorable.views.numbers import format_g, format_number

NAME = "tempered"
BUNDLE = Path(__file__).parent / "dist" / f"{NAME}.mjs"
SCORES = [1.0, 2.0, 4.0]
VALUES = [0.0, 5.0, 10.0]
#: temperature: [low, high, step]
SLIDERS = {"temperature": [0.1, 5.0, 0.1]}
STRINGS = {
    "zh": {f"{NAME}_heading": "温度与三个分数", f"index_{NAME}": "只在测试里出现的小例子。"},
    "en": {
        f"{NAME}_heading": "Temperature over three scores",
        f"index_{NAME}": "A small example that exists only in the tests.",
    },
}


def tempered_config(language: str) -> dict:
    """What :func:`tempered_view` needs besides the state (sent to the browser once)."""
    return {
        "scores": SCORES,
        "values": VALUES,
        "sliders": SLIDERS,
        "labels": {"temperature": text("temperature", language)},
        "strings": {key: text(key, language) for key in ("readout_weights", "readout_output", "input_clamped")},
    }


def tempered_view(state: dict, config: dict) -> dict:
    """The weights softmax(scores / T) and the output y = Σ α_j v_j, as a readout."""
    weights = core.softmax(config["scores"], state["temperature"])
    y = float(core.weighted_sum(weights, config["values"]))
    S = config["strings"]
    readout = (
        f"{S['readout_weights']} α = [" + ", ".join(format_number(a, 3) for a in weights) + "] · "
        f"{S['readout_output']} y = {format_number(y, 3)}"
    )
    t = state["temperature"]
    return {
        "sources": {},
        "ranges": {},
        "html": {"readout": readout},
        "props": {"temperature_slider": {"value": t}, "temperature_box": {"value": format_g(t)}},
    }


class TemperedExplorer(Explorable):
    """Three fixed scores and values under one temperature (a test-only explorable)."""

    temperature = param.Number(
        1.0, bounds=tuple(SLIDERS["temperature"][:2]), step=SLIDERS["temperature"][2], doc="Softmax temperature T."
    )

    _name = NAME
    _view_function = staticmethod(tempered_view)
    _state_params = ("temperature",)
    _link_params = ("temperature",)

    def __init__(self, **params):
        super().__init__(**params)
        self._config_data = tempered_config(self.language)
        self._slider, self._box, self._row = controls.slider(
            self.param.temperature, self.temperature, self._t("temperature"), "ae-tempered-temperature"
        )
        self._html = {
            "readout": html_model("ae-tempered-readout"),
            "notice": html_model("ae-input-notice", visible=False),
        }
        self._redraw()
        self._attach({self._slider: "value", self._box: "value"})

    def _models(self) -> dict:
        return {"temperature_slider": self._slider, "temperature_box": self._box, **self._html}

    def __panel__(self):
        bokeh = lambda m: pn.pane.Bokeh(m, sizing_mode="stretch_width", margin=0)  # noqa: E731
        return pn.Column(
            bokeh(self._row), bokeh(self._html["notice"]), bokeh(self._html["readout"]), sizing_mode="stretch_width"
        )


state_model_class(TemperedExplorer)
register(Registration(NAME, f"{__name__}:TemperedExplorer", bundle=BUNDLE, strings=STRINGS))
