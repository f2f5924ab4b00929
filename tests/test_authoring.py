"""What a site generator writes: an explorable's tag, checked and escaped, and its script's relative path."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest

from attention_explorable.modules import MODULES
from attention_explorable.authoring import check_state, element_tag, script_tag
from attention_explorable.mkdocs import explorable_tags
from attention_explorable.site import export_element


def test_an_authors_value_never_becomes_markup():
    hostile = '"><script>alert(1)</script><b x="'
    tag = element_tag("steps", {"temperature": hostile}, lang="en")
    found = []

    class Tags(HTMLParser):
        def handle_starttag(self, name, attrs):
            found.append((name, dict(attrs)))

    Tags().feed(tag)
    assert found == [("attention-explorable", {"name": "steps", "lang": "en", "temperature": hostile})]
    assert explorable_tags(tag) == [{"name": "steps", "lang": "en", "temperature": hostile}]
    # the page ignores what the value cannot be, and the build says so first
    assert check_state("steps", {"temperature": hostile}) == [
        'The attribute temperature=""><script>alert(1)</script><b x="" is not a value it can take; ignored.'
    ]


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: element_tag("stpes"), f"name must be one of {sorted(MODULES)}, got 'stpes'"),
        (
            lambda: element_tag("head", {"temperature": "4"}),
            "head has no parameter 'temperature'; its parameters are d_k",
        ),
        (lambda: element_tag("steps", {"d_k": "4"}), "steps has no parameter 'd_k'; its parameters are step, score_1"),
        (lambda: element_tag("steps", lang="fr"), "lang must be one of ['en', 'zh'], got 'fr'"),
        (lambda: element_tag("steps", theme="blue"), "theme must be one of ['auto', 'light', 'dark'], got 'blue'"),
        (lambda: check_state("steps", {}, language="fr"), "language must be one of ['en', 'zh'], got 'fr'"),
    ],
)
def test_a_wrong_name_is_said_with_its_value(call, message):
    with pytest.raises(ValueError) as caught:
        call()
    assert str(caught.value).startswith(message)


@pytest.mark.parametrize(
    "page, root, expected",
    [
        ("index.html", "_static", "_static/attention-explorable/attention-explorable.js"),
        ("a/b/c.html", "_static", "../../_static/attention-explorable/attention-explorable.js"),
        ("", "", "attention-explorable/attention-explorable.js"),
        ("lessons/x/", "", "../../attention-explorable/attention-explorable.js"),
    ],
)
def test_the_script_is_named_from_the_page(page, root, expected):
    assert script_tag(page, root) == f'<script src="{expected}"></script>'


def test_export_element_writes_the_script_and_each_explorables_data(tmp_path):
    written = {p.relative_to(tmp_path).as_posix() for p in export_element(tmp_path / "x", "en")}
    assert "x/attention-explorable.js" in written
    assert {"x/embed/steps.zh.js", "x/embed/steps.en.js", "x/embed/selfcross.en.js"} <= written
    (tmp_path / "file").write_text("")
    with pytest.raises(ValueError, match="exists and is not a folder"):
        export_element(tmp_path / "file")


def test_the_attributes_the_build_skips_are_the_ones_the_element_skips():
    import re
    from importlib import resources

    from attention_explorable.authoring import OWN_ATTRIBUTES

    source = resources.files("attention_explorable").joinpath("web", "element.js").read_text("utf-8")
    listed = re.search(r"const OWN = new Set\(\[(.*?)\]\)", source, re.S).group(1)
    assert set(re.findall(r'"([^"]+)"', listed)) == set(OWN_ATTRIBUTES)


def test_the_head_is_a_tag_an_author_can_write_and_its_values_are_checked():
    """The head (an explorable written as one module) takes its deep-link settings as attributes."""
    tag = element_tag("head", {"d_k": "64", "scaled": "false"}, lang="en")
    assert 'name="head"' in tag and 'd_k="64"' in tag and 'scaled="false"' in tag
    assert check_state("head", {"d_k": "100"}) == ['The attribute d_k="100" is outside [2, 64]; set to 64.']
