"""The registry of explorables refuses what would break a page, naming what it got."""

from __future__ import annotations

import pytest

from attention_explorable.explorables import EXPLORABLES, Registration, explorable_class, register, unregister


@pytest.mark.parametrize("name", ["Steps", "two words", "textbook", "instructor", "9lives", ""])
def test_a_name_that_cannot_be_a_page_is_refused(name):
    with pytest.raises(ValueError, match=f"registration.name must be .* got {name!r}"):
        register(Registration(name, "somewhere:Viewer"))
    assert name not in EXPLORABLES


def test_a_taken_name_and_an_unknown_language_are_refused():
    with pytest.raises(ValueError, match="an explorable named 'steps' is registered already"):
        register(Registration("steps", "elsewhere:Other"))
    with pytest.raises(ValueError, match="unknown language 'fr'"):
        register(Registration("quiz", "elsewhere:Quiz", strings={"fr": {"quiz_heading": "Quiz"}}))
    assert "quiz" not in EXPLORABLES
    quiz = Registration("quiz", "elsewhere:Quiz")
    try:
        register(quiz)
        before = list(EXPLORABLES)
        register(quiz)  # the same registration again changes nothing
        assert list(EXPLORABLES) == before and before.count("quiz") == 1
        with pytest.raises(ValueError, match="an explorable named 'quiz' is registered already"):
            register(Registration("quiz", "elsewhere:Other"))
    finally:
        unregister("quiz")


def test_an_unknown_explorable_is_named_with_the_known_ones():
    with pytest.raises(KeyError, match="unknown explorable 'nope'; known: .*'matrix'"):
        explorable_class("nope")
    unregister("nope")  # nothing registered under it: nothing happens
