"""The registry of explorables refuses what would break a page, naming what it got."""

from __future__ import annotations

from pathlib import Path

import pytest

from attention_explorable.explorables import MODULES, ModuleExplorable, explorable_class, register, unregister
from attention_explorable.strings import STRINGS


def _outside(name: str, **kw) -> ModuleExplorable:
    kw.setdefault("bundle", Path(__file__))  # (a file that exists: the registry reads it only for a page)
    return ModuleExplorable(name, {}, f"{name}_", widget=kw.pop("widget", "elsewhere:Widget"), **kw)


@pytest.mark.parametrize("name", ["Steps", "two words", "textbook", "instructor", "exercise", "9lives", ""])
def test_a_name_that_cannot_be_a_page_is_refused(name):
    with pytest.raises(ValueError, match=f"explorable.name must be .* got {name!r}"):
        register(_outside(name))
    assert name not in MODULES or name == "steps"


def test_a_taken_name_an_unknown_language_no_widget_and_no_bundle_are_refused():
    with pytest.raises(ValueError, match="an explorable named 'steps' is registered already"):
        register(_outside("steps"))
    with pytest.raises(ValueError, match="unknown language 'fr'"):
        register(_outside("quiz", strings={"fr": {"quiz_title": "Quiz"}}))
    with pytest.raises(ValueError, match="explorable.widget must be 'module:Class', got 'Quiz'"):
        register(_outside("quiz", widget="Quiz"))
    with pytest.raises(ValueError, match="explorable.bundle must be its bundled module's file, got None"):
        register(_outside("quiz", bundle=None))
    assert "quiz" not in MODULES
    quiz = _outside("quiz", strings={"en": {"quiz_title": "Quiz"}})
    try:
        register(quiz)
        before = list(MODULES)
        register(quiz)  # the same registration again changes nothing
        assert list(MODULES) == before and before.count("quiz") == 1 and STRINGS["en"]["quiz_title"] == "Quiz"
        with pytest.raises(ValueError, match="an explorable named 'quiz' is registered already"):
            register(_outside("quiz", widget="elsewhere:Other"))
    finally:
        unregister("quiz")
    assert "quiz" not in MODULES and "quiz_title" not in STRINGS["en"]


def test_an_unknown_explorable_is_named_with_the_known_ones_and_the_packages_own_stay():
    with pytest.raises(KeyError, match="unknown explorable 'nope'; known: .*'matrix'"):
        explorable_class("nope")
    unregister("nope")  # nothing registered under it: nothing happens
    unregister("steps")  # the package's own are not unregistered
    assert "steps" in MODULES
