"""``tempered``: three fixed scores and values under one temperature slider (a test-only explorable).

Everything an explorable needs, defined outside the package: a pure view (:func:`tempered_view`, computed
with the numpy core), its module (``web/tempered.js``, one ES module in the anywidget front-end form,
whose view is the twin of :func:`tempered_view`), its state declared once (:class:`TemperedWidget`), and
one :func:`~attention_explorable.explorables.register` call. Importing this module registers it.
"""

from __future__ import annotations

from pathlib import Path

import param

from attention_explorable import core
from attention_explorable.explorables import ModuleExplorable, register
from attention_explorable.strings import text
from attention_explorable.views.numbers import format_number

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
    return {"html": {"readout": readout}}


register(
    ModuleExplorable(
        NAME,
        {"temperature": 1.0},
        f"{NAME}_",
        config=tempered_config,
        title=f"{NAME}_heading",
        index=f"index_{NAME}",
        intro=f"index_{NAME}",
        widget=f"{__name__}:TemperedWidget",
        bundle=BUNDLE,
        strings=STRINGS,
    )
)


from attention_explorable.modules import ModuleWidget  # noqa: E402  (its class reads the registry)


class TemperedWidget(ModuleWidget):
    """Three fixed scores and values under one temperature (a test-only explorable)."""

    ae_module = NAME

    temperature = param.Number(1.0, bounds=tuple(SLIDERS["temperature"][:2]), doc="Softmax temperature T.")
    config = param.Dict({}, doc="What the view needs besides the state (tempered_config).")

    link_params = ("temperature",)
