"""The interface text: every string exists in every language, with the same placeholders."""

import string

import pytest

from attention_explorable.strings import DEFAULT_LANGUAGE, STRINGS


def placeholders(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}


@pytest.mark.parametrize("language", sorted(set(STRINGS) - {DEFAULT_LANGUAGE}))
def test_every_key_in_every_language_with_the_same_placeholders(language):
    ours, default = STRINGS[language], STRINGS[DEFAULT_LANGUAGE]
    assert sorted(set(default) - set(ours)) == [], f"missing in {language}"
    assert sorted(set(ours) - set(default)) == [], f"missing in {DEFAULT_LANGUAGE}"
    for key in default:
        assert placeholders(ours[key]) == placeholders(default[key]), key
        assert ours[key].strip() and default[key].strip(), key
