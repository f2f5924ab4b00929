"""The Python view of the "one word, two contexts" explorable (the oracle of web/contexts.js)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from attention_explorable import core
from attention_explorable.strings import STRINGS
from attention_explorable.views import contexts as view

CONFIG = view.contexts_config("zh")


def state(**changes) -> dict:
    return {"causal": False, "prediction": "", "revealed": False, **changes}


def reference(context: str, causal: bool):
    roles = view.ROLES[context]
    x = np.array([view.VECTORS[r] for r in roles])
    at = roles.index("word")
    scores = x[at] @ x.T / math.sqrt(3)
    if causal:
        scores = np.where(np.arange(len(x)) <= at, scores, -np.inf)
    w = core.softmax(scores)
    return w, w @ x


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("language", ["zh", "en"])
def test_each_sentence_gives_the_word_its_own_row_and_output(causal, language):
    config = view.contexts_config(language)
    for c in view.CONTEXTS:
        weights, _, output = view.read(state(causal=causal), config, c)
        w, y = reference(c, causal)
        np.testing.assert_allclose(weights, w, rtol=1e-12)
        np.testing.assert_allclose(output, y, rtol=1e-12)
    # The same starting vector in both sentences...
    at = {c: config["sentences"][c]["at"] for c in view.CONTEXTS}
    assert (
        config["sentences"]["fruit"]["tokens"][at["fruit"]] == config["sentences"]["company"]["tokens"][at["company"]]
    )
    # ...and, unmasked, two outputs leaning opposite ways; masked, the second keeps its own vector.
    fruit, company = (view.read(state(causal=causal), config, c)[2] for c in view.CONTEXTS)
    assert fruit[0] > fruit[1]
    if causal:
        assert company.tolist() == list(view.VECTORS["word"])
    else:
        assert company[1] > company[0]


def test_the_outputs_wait_for_the_prediction():
    before = view.contexts_view(state(), CONFIG)
    assert "[1.46" not in before["html"]["outputs"] and before["html"]["live"] == ""
    assert STRINGS["zh"]["contexts_hidden"] in before["html"]["outputs"]
    # The heatmaps show the words, not the weights: those differ between the sentences, which is the answer.
    for c in ("fruit", "company"):
        assert before["sources"][f"{c}_cells"]["text"] == ["?"] * 4
        assert len(set(before["sources"][f"{c}_cells"]["fill"])) == 1
    assert "0.45" not in before["html"]["rows_data"]
    # Nothing to try before the prediction: the mask's box waits for it, and the feedback says so.
    assert before["props"]["causal"]["disabled"] is True
    assert STRINGS["zh"]["predict_locked"] in before["html"]["feedback"]
    for prediction in view.PREDICTIONS:
        after = view.contexts_view(state(prediction=prediction, revealed=True), CONFIG)
        assert after["sources"]["fruit_cells"]["text"] == ["0.11", "0.45", "0.11", "0.34"]
        shown = after["html"]["outputs"]
        assert "[1.46, 0.34, 0.16]" in shown and "[0.29, 1.61, 0.16]" in shown
        assert after["props"]["causal"]["disabled"] is False
        right = STRINGS["zh"]["predict_right"] in after["html"]["feedback"]
        assert right == (prediction == view.RIGHT_PREDICTION)


def test_the_causal_mask_hides_the_later_words_of_the_second_sentence():
    shown = view.contexts_view(state(causal=True, revealed=True), CONFIG)
    assert shown["sources"]["company_cells"]["text"] == ["1.00", "—", "—", "—"]
    assert "[1.00, 1.00, 0.00]" in shown["html"]["outputs"] and "发布" in shown["html"]["notes"]
    # the answer is the unmasked read, whatever the mask
    assert "[0.29, 1.61, 0.16]" in shown["html"]["feedback"]


@pytest.mark.parametrize(
    "bad, name",
    [({"causal": "on"}, "causal"), ({"prediction": "differs"}, "prediction"), ({"revealed": None}, "revealed")],
)
def test_a_bad_state_names_the_parameter(bad, name):
    with pytest.raises(ValueError, match=name):
        view.contexts_view(state(**bad), CONFIG)
