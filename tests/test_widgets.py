"""The explorables as notebook widgets (anywidget): their traits are the explorables' parameters."""

from __future__ import annotations

import pytest
import traitlets

from attention_explorable.explorables import MODULES
from attention_explorable.modules import module_source, module_state
from attention_explorable.widgets import notebook_widget, notebook_widget_class


@pytest.mark.parametrize("name", list(MODULES))
def test_each_widget_opens_as_the_explorable_does_and_carries_its_module(name):
    w = notebook_widget(name, language="en")
    opened = module_state(name, "en")
    assert {k: getattr(w, k) for k in MODULES[name].defaults} == MODULES[name].defaults
    assert w.lang == "en" and w.theme == "auto"
    assert (w.config if "config" in opened else w.strings) == opened.get("config", opened.get("strings"))
    assert w._esm == module_source(name) and "export" in w._esm  # inline: nothing fetched
    assert set(MODULES[name].defaults) <= set(w.trait_names(sync=True))


def test_a_value_the_explorable_does_not_take_is_refused_by_name():
    w = notebook_widget("matrix", language="zh", d_k=16)
    assert w.d_k == 16
    with pytest.raises(traitlets.TraitError, match=r"d_k: .*at most 64.*65"):
        w.d_k = 65
    with pytest.raises(traitlets.TraitError, match="prediction"):
        w.prediction = "<b>"
    with pytest.raises(traitlets.TraitError, match="theme must be one of"):
        w.theme = "sepia"
    assert w.d_k == 16 and w.prediction == ""
    with pytest.raises(traitlets.TraitError, match="matrix has no parameter 'dk'"):
        notebook_widget("matrix", dk=3)
    with pytest.raises(ValueError, match="language must be one of"):
        notebook_widget("matrix", language="fr")
    with pytest.raises(KeyError, match="name must be one of"):
        notebook_widget_class("stpes")
