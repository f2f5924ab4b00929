"""The student page's stylesheet scoping (native._scoped): every rule kept, under its pane's scope."""

import pytest

from attention_explorable.native import _scoped


def test_a_panes_rules_are_scoped_media_rules_included_and_comments_never_split():
    css = (
        "/* a comment, with a comma } */ :host { color: red }\n"
        "a, :is(b, c) > d { margin: 0 }\n"
        "@media (max-width: 600px) { :root, :host { --small: 15px } td { display: block } }\n"
        ".bk-btn { x: 1 }"
    )
    assert _scoped(css, "ae-css-1").split("\n") == [
        ".ae-css-1 { color: red }",
        ".ae-css-1 a, .ae-css-1 :is(b, c) > d { margin: 0 }",
        "@media (max-width: 600px) {",
        ".ae-css-1 { --small: 15px }",
        ".ae-css-1 td { display: block }",
        "}",
    ]


@pytest.mark.parametrize("css", ["@import url(x.css);", "@font-face { font-family: X }", "a { color: red } }"])
def test_a_rule_a_page_cannot_scope_is_an_error_named_never_dropped(css):
    with pytest.raises(ValueError, match="@import|@font-face|does not parse"):
        _scoped(css, "ae-css-1")


def test_a_page_scripts_own_look_comes_with_it():
    """The language switch (a page script with its own stylesheet) keeps its look on the student page."""
    from attention_explorable import apps
    from attention_explorable.native import NativePage

    page = NativePage(lambda: apps.language_switch("zh", "en/index.html"))
    (scope,) = page._sheets.values()
    assert f"ae-language-bar {scope}'" in page.body
    assert f".{scope} a.ae-language {{" in page.css() and "border-radius: 14px" in page.css()
