"""Predict first with a choice (views/choice.py): a wrong prediction is told why that option is not what
happens, in its own sentence; a right one, and a skipped one, are told none."""

import importlib

import pytest

from attention_explorable.explorables import MODULES
from attention_explorable.views import choice

#: The explorables that ask with a choice of options (the head asks its own way: views/head.py).
ASKING = ("vector", "matrix", "contexts", "qkv", "selfcross")


@pytest.mark.parametrize("language", ["zh", "en"])
@pytest.mark.parametrize("name", ASKING)
def test_each_wrong_prediction_is_told_why_that_option_is_not_what_happens(name, language):
    view = importlib.import_module(f"attention_explorable.views.{name}")
    config = MODULES[name].config(language)
    S = config["strings"]
    whys = {p: S[f"{name}_predict_{p}_why"] for p in view.PREDICTIONS if p and p != view.RIGHT_PREDICTION}
    assert set(choice.why_keys(name, view.PREDICTIONS, view.RIGHT_PREDICTION)) == {
        f"{name}_predict_{p}_why" for p in whys
    }
    assert len(set(whys.values())) == len(whys) and all(w.strip() for w in whys.values())
    for prediction in view.PREDICTIONS:
        state = {**MODULES[name].defaults, "prediction": prediction, "revealed": True}
        state.pop("config", None)
        feedback = getattr(view, f"{name}_view")(state, config)["html"]["feedback"]
        said = {p for p, why in whys.items() if why in feedback}
        assert said == ({prediction} if prediction in whys else set()), (prediction, feedback)
