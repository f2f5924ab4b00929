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


def _written(body: str) -> tuple[dict, list[dict]]:
    """The page's table of shared parts and each module's state and link spec, as written in ``body``."""
    import json
    import re

    table = re.search(r"<script type='application/json' id='ae-shared'>(.*?)</script>", body)
    documents = re.findall(
        r"data-ae-render='\w+'><script type='application/json'>(.*?)</script>"
        r"<script type='application/json' data-ae-link>(.*?)</script>",
        body,
    )
    return (json.loads(table.group(1)) if table else {}), [json.loads(d) for pair in documents for d in pair]


def test_what_the_modules_states_share_is_written_once_and_each_state_reads_back_whole():
    """Two exercises share their interface strings and link messages: written once in the page's table,
    each state holds a reference there, and put back (as web/host.js does) each is its widget's own."""
    import panel as pn

    from attention_explorable import content
    from attention_explorable.modules import ExerciseWidget
    from attention_explorable.native import NativePage

    blocks = [b for s in content.load_sections() for b in s.exercises()][:2]
    widgets = [ExerciseWidget(b, language="zh", link_prefix=f"e{i}.") for i, b in enumerate(blocks)]
    page = NativePage(lambda: pn.Column(*widgets))
    table, documents = _written(page.body)
    strings = widgets[0].ae_module_state()["config"]["strings"]
    assert page.body.count(strings["exercise_malformed"]) == 1  # the strings once, in the table
    assert {"$shared": next(k for k, v in table.items() if v == strings)} in [
        d["config"]["strings"] for d in documents[::2]
    ]

    def whole(value):
        if isinstance(value, dict) and set(value) == {"$shared"}:
            return table[value["$shared"]]
        return {k: whole(v) for k, v in value.items()} if isinstance(value, dict) else value

    expected = [part for w in widgets for part in (w.ae_module_state(), w.ae_module_link())]
    assert [whole(d) for d in documents] == expected


def test_a_page_of_one_module_has_no_table():
    import panel as pn

    from attention_explorable import content
    from attention_explorable.modules import ExerciseWidget
    from attention_explorable.native import NativePage

    block = next(b for s in content.load_sections() for b in s.exercises())
    page = NativePage(lambda: pn.Column(ExerciseWidget(block, language="en", link_prefix="e.")))
    table, (state, link) = _written(page.body)
    assert table == {} and "ae-shared" not in page.body and "$shared" not in page.body
    assert "exercise_malformed" in state["config"]["strings"]
