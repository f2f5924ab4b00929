"""The interface text: every string exists in every language, with the same placeholders."""

import string

import pytest

from attention_explorable.strings import DEFAULT_LANGUAGE, LANGUAGES, PLURAL_CATEGORIES, STRINGS, plural_category


def plural_form(key: str) -> bool:
    return key.rsplit("_", 1)[-1] in PLURAL_CATEGORIES


def placeholders(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}


@pytest.mark.parametrize("language", sorted(set(STRINGS) - {DEFAULT_LANGUAGE}))
def test_every_key_in_every_language_with_the_same_placeholders(language):
    ours, default = STRINGS[language], STRINGS[DEFAULT_LANGUAGE]
    # a plural form (KEY_one) is a language's own: English has "1 prediction", Chinese one form for all counts
    ours = {k: v for k, v in ours.items() if not plural_form(k)}
    default = {k: v for k, v in default.items() if not plural_form(k)}
    assert sorted(set(default) - set(ours)) == [], f"missing in {language}"
    assert sorted(set(ours) - set(default)) == [], f"missing in {DEFAULT_LANGUAGE}"
    for key in default:
        assert placeholders(ours[key]) == placeholders(default[key]), key
        assert ours[key].strip() and default[key].strip(), key


@pytest.mark.parametrize("language", sorted(STRINGS))
def test_a_plural_form_is_one_its_languages_rule_can_choose_with_the_same_placeholders(language):
    table = STRINGS[language]
    categories = {plural_category(language, n) for n in range(0, 1000)}
    assert categories == set(LANGUAGES[language]["plurals"])
    forms = [k for k in table if plural_form(k)]
    for key in forms:
        base, category = key.rsplit("_", 1)
        assert category in categories, f"{key}: {language}'s rule never chooses {category!r}"
        assert base in table, f"{key} without its other form {base}"
        assert placeholders(table[key]) == placeholders(table[base]) == {*placeholders(table[base]), "n"}, key
    if language == "en":
        assert forms, "English has singular forms (1 prediction received)"


def test_every_language_of_the_table_has_its_strings():
    assert set(LANGUAGES) == set(STRINGS)
