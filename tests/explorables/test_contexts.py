"""The "one word, two contexts" explorable as a Panel component."""

from __future__ import annotations

import html

import pytest

from attention_explorable import apps
from attention_explorable.explorables.contexts import ContextsExplorer
from attention_explorable.strings import STRINGS

from . import page_heading


def test_its_numbers_and_its_answer_follow_the_view():
    explorer = ContextsExplorer(language="en")
    assert explorer.state() == {"causal": False, "prediction": "", "revealed": False}
    assert explorer.weights["fruit"].argmax() == 1 and explorer.weights["company"].argmax() == 1  # the verbs
    assert "[1.46" not in html.unescape(explorer._html["outputs"].text)
    explorer.param.update(prediction="itself", revealed=True)
    said = html.unescape(explorer._ask["feedback"].text)
    assert "Itself: a vector is most like itself" in said and "That is not what happens." in said
    assert "“released” gets the most (0.39), more than “apple” itself (0.29)" in said
    assert "[1.46, 0.34, 0.16]" in html.unescape(explorer._html["outputs"].text)
    explorer.causal = True
    assert explorer.outputs["company"].tolist() == [1.0, 1.0, 0.0]
    with pytest.raises(ValueError, match="prediction"):
        explorer.prediction = "<b>"


def test_registry_and_app_build_this_explorable():
    page = apps.explorable_app("contexts", "zh")
    assert page_heading(page) == STRINGS["zh"]["contexts_heading"]
