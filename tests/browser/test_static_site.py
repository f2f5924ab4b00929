"""The exported site as a reader and an author get it: every page from ``file://`` with the network cut.

Every page opens with no request leaving ``file://`` and answers a key; deep
links open their view, clamp or ignore bad values with a notice, and the
address bar follows the controls so that a copied URL reopens the view;
heading anchors land; an author's host page with two pasted snippets and an
iframe works; a phone lays the pages out at its own width.
"""

from __future__ import annotations

import html
import re
import shutil
import time
import urllib.parse
from xml.etree import ElementTree

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect

from attention_explorable.apps import APPS
from attention_explorable.explorables import MODULES, explorable_class
from attention_explorable.site import module_pages, pages
from attention_explorable.strings import text

from .pages import eventually, settled, handle, text_of, wait_text

PAGES = pages()

pytestmark = pytest.mark.browser

#: What each page shows once its first explorable is drawn: the textbook's first, then each explorable's own.
READY = {
    "index.html": ".ae-vector-output",
    **{f"{name}.html": explorable_class(name).tried.ready for name in APPS if name != "textbook"},
}
#: The textbook's slider handle that a key moves, and the readout it changes.
INDEX_KEYED = (".ae-vector-temperature", ".ae-vector-weights")
#: The explorables whose controls wait for the prediction (views/choice.py lock), which a link can open
#: (the contexts' one tried action is its skip).
ASKS_FIRST = ("steps", "vector", "matrix", "selfcross", "qkv")


def _open(student, site, page_url: str, ready: str, **kw):
    """A student with ``site/page_url`` (query and anchor allowed) opened offline, and the aborted requests."""
    s = student(**kw)
    return s, _open_url(s, site, page_url, ready)


def _open_url(s, site, page_url: str, ready: str) -> list[str]:
    name = re.split(r"[?#]", page_url, maxsplit=1)[0]
    return s.open_offline(site / name, ready, page_url[len(name) :])


def test_the_site_holds_what_the_command_promises(static_site):
    names = {p.relative_to(static_site).as_posix() for p in static_site.rglob("*") if p.is_file()}
    assert set(PAGES) <= names
    for name in MODULES:
        assert {
            f"embed/{name}.html",
            f"embed/{name}.js",
            f"embed/{name}-iframe.html",
            f"embed/{name}-iframe.en.html",  # the other language's page in the frame
            f"embed/{name}-element.html",
            f"embed/{name}.zh.js",
            f"embed/{name}.en.js",
        } <= names
    # every page holds its styles and scripts (the textbook loads its modules from attention-textbook.js beside it): no file
    # besides the pages, the embeds, the notebooks and that script, no other script or style by address, no framework
    assert set(module_pages()) <= names  # the explorables written as one module (head.html)
    assert {n.split("/")[0] for n in names} <= {
        *PAGES,
        *module_pages(),
        "en",
        "embed",
        "notebooks",
        "attention-explorable.js",
        "attention-textbook.js",
    }, names
    every = [*PAGES, *module_pages()]
    for page in [*every, *(f"en/{p}" for p in every)]:
        source = (static_site / page).read_text("utf-8")
        loaded = re.findall(r"<script[^>]* src=\"([^\"]*)\"", source)
        assert loaded == (
            {"index.html": ["attention-textbook.js"], "en/index.html": ["../attention-textbook.js"]}.get(page, [])
        ), page
        assert not re.search(r"<link[^>]* rel=.?stylesheet", source), page
        assert not re.search(
            r"<(script|link|img|iframe|video|audio|source)\b[^>]* (src|href)=[\"']https?://", source
        ), page
        assert "Bokeh.embed" not in source and "bokeh-" not in source.lower(), page
        # its icon inside it, drawn with no letter: a font loaded for the icon delays the first frame
        icon = re.search(r'<link rel="icon" href="data:image/svg\+xml,([^"]+)"', source)
        assert icon, page
        drawing = ElementTree.fromstring(html.unescape(urllib.parse.unquote(icon.group(1))))
        assert drawing.tag.endswith("svg") and not [el for el in drawing.iter() if el.tag.endswith("text")], page
    total = sum((static_site / n).stat().st_size for n in names)
    # The pages in two languages and the embeds; each textbook page carries its sections' notebooks
    # as data: URLs (about 80 KB a page). The budget: 3.8 MB (six explorables, each a page and its
    # embeds in two languages, about 280 KB).
    assert total < 3.8e6, total


@pytest.mark.parametrize("page_file", list(PAGES))
def test_every_page_opens_offline_and_answers_a_key(page_file, static_site, student):
    # (past the question of an explorable that asks first, as a link can open it: its controls open)
    name = page_file.removesuffix(".html")
    opened = "?vector.revealed=true" if name == "index" else "?revealed=true" if name in ASKS_FIRST else ""
    s, aborted = _open(student, static_site, page_file + opened, READY[page_file])
    page = s.page
    wait_text(page, READY[page_file], r"[0-9]")
    # What the explorable declares a student does (explorables/base.Tried): an arrow key, or a button.
    tried = explorable_class(page_file.removesuffix(".html")).tried if page_file != "index.html" else None
    control, readout = (INDEX_KEYED[0], INDEX_KEYED[1]) if tried is None else (tried.control, tried.changed)
    before = text_of(page, readout)
    if tried is None or tried.press is None:
        handle(page, control).focus()
        page.keyboard.press("ArrowRight")
    else:
        page.locator(control, has_text=text(tried.press, "zh")).first.click()
    page.wait_for_function(
        """([css, before]) => { const el = document.querySelector(css); return el && el.innerText !== before; }""",
        arg=[readout, before],
    )
    assert page.evaluate("document.documentElement.lang") == "zh-Hans"
    s.assert_clean()
    assert aborted == []


def test_a_deep_link_opens_its_view_and_the_address_follows_the_controls(static_site, student):
    # (past the step's question: its sliders open)
    link = "steps.html?step=3&temperature=0.05&score_diff=2&value_1=2&value_2=10&revealed=true"
    s, aborted = _open(student, static_site, link, ".ae-output")
    page = s.page
    wait_text(page, ".ae-temperature-readout", r"T = 0\.05")
    assert "第 3 步" in text_of(page, ".ae-question") or "温度" in text_of(page, ".ae-question")
    output = text_of(page, ".ae-readouts")
    # the address already names exactly this view (values equal to step 3's start are left out)
    page.wait_for_function("() => location.search === '?step=3&temperature=0.05&revealed=true'")
    # a move of the temperature slider follows into the address; the copied URL reopens the view
    handle(page, ".ae-temperature").focus()
    page.keyboard.press("ArrowRight")
    wait_text(page, ".ae-temperature-readout", r"T = 0\.06")
    page.wait_for_function("() => location.search.includes('temperature=0.06')")
    copied = page.url
    moved = text_of(page, ".ae-readouts")
    assert moved != output
    history_length = page.evaluate("history.length")
    again = student()
    _open_url(again, static_site, copied.split(static_site.resolve().as_uri() + "/")[1], ".ae-output")
    wait_text(again.page, ".ae-temperature-readout", r"T = 0\.06")
    assert text_of(again.page, ".ae-readouts") == moved
    assert page.evaluate("history.length") == history_length  # replaced, not pushed
    s.assert_clean()
    again.assert_clean()
    assert aborted == []


def test_bad_link_values_are_clamped_or_ignored_with_a_notice(static_site, student):
    s, _ = _open(student, static_site, "vector.html?query_x=9&query_y=abc&temperature=0.5", ".ae-vector-output")
    page = s.page
    wait_text(page, ".ae-input-notice", r"query_x=9 超出范围 \[−2, 2\]，已改为 2")
    wait_text(page, ".ae-input-notice", r"query_y=abc 不是可用的值，已忽略")
    assert page.locator(".ae-query-x-box input").input_value() == "2"
    assert page.locator(".ae-vector-temperature-box input").input_value() == "0.5"
    s.assert_clean()


def test_the_textbook_reads_prefixed_links_and_lands_on_its_anchor(static_site, student):
    s, _ = _open(
        student, static_site, "index.html?vector.query_x=0.5&steps.step=2&temperature=9#sec-3-8", ".ae-vector-output"
    )
    page = s.page
    page.wait_for_function("() => window.scrollY > 1000")
    top = page.evaluate("""() => {
        const find = (root) => root.getElementById?.('sec-3-8') || root.querySelector?.('#sec-3-8')
          || [...root.querySelectorAll('*')].map(e => e.shadowRoot && find(e.shadowRoot)).find(Boolean);
        return find(document).getBoundingClientRect().top; }""")
    assert -5 <= top <= 150, top
    assert page.locator(".ae-query-x-box input").input_value() == "0.5"
    assert page.locator(".ae-vector-temperature-box input").input_value() == "1"  # unprefixed: not its own
    wait_text(page, ".ae-question", "提高第二个分数")
    s.screenshot("static-index-anchor-1280")
    s.assert_clean()


def test_an_author_pastes_two_snippets_and_an_iframe(static_site, student):
    host = static_site / "host-test.html"
    # The vector's tag asks for deep links; the steps' leaves the host's address alone.
    tag = {n: (static_site / "embed" / f"{n}.html").read_text("utf-8") for n in ("steps", "vector")}
    tag["vector"] = tag["vector"].replace("<script src=", "<script data-deep-links src=")
    body = "".join(f"<h2>{n}</h2>{tag[n]}<p>text</p>" for n in ("steps", "vector"))
    body += "<h2>frame</h2>" + (static_site / "embed" / "steps-iframe.html").read_text("utf-8") + "<p>end</p>"
    host.write_text(
        f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>host</title></head>"
        f"<body>{body}</body></html>",
        "utf-8",
    )
    try:
        s, aborted = _open(
            student,
            static_site,
            "host-test.html?vector.temperature=2&vector.revealed=true&steps.step=3",
            ".ae-vector-output",
        )
        page = s.page
        wait_text(page, ".ae-output", r"[0-9]")
        wait_text(page, ".ae-question", "第 1 步")  # the steps' tag did not read the host's address
        # both inline explorables work and do not interfere
        page.locator(".ae-step-2 button").click()
        wait_text(page, ".ae-question", "提高第二个分数")
        assert page.locator(".ae-vector-temperature-box input").input_value() == "2"
        box = page.locator(".ae-query-x-box input")
        box.fill("-1")
        box.press("Enter")
        wait_text(page, ".ae-vector-output", r"y = \[")
        page.wait_for_function("() => location.search.includes('vector.query_x=-1')")
        assert "steps.step=3" in page.url and "steps.score_diff" not in page.url, page.url
        assert page.locator(".ae-step-2 button").count() == 1 and page.locator(".ae-page-heading").count() == 0
        assert page.locator(".ae-keys").count() == 0  # no presenter keys taking the host page's keys
        # the snippets' sliders are named for screen readers in the author's page too
        expect(page.locator(".ae-query-x input[type=range]")).to_have_accessible_name("查询 q 的第一个分量：")
        expect(page.locator(".ae-temperature input[type=range]").first).to_have_accessible_name("温度 T：")
        # each in its own shadow root, in the author's page where its one tag is, with no framework
        hosts = page.evaluate(
            "() => [...document.querySelectorAll('.attention-explorable')].map((h) => "
            "[h.className, !!h.shadowRoot, h.previousElementSibling.tagName])"
        )
        assert hosts == [
            ["attention-explorable attention-explorable-steps", True, "H2"],
            ["attention-explorable attention-explorable-vector", True, "H2"],
        ], hosts
        assert page.evaluate("() => window.Bokeh === undefined")
        # the two tags are two elements drawn by one element script, loaded once from the export's folder
        scripts = page.evaluate(
            "() => [...document.scripts].map((s) => s.src).filter((s) => s.endsWith('/attention-explorable.js'))"
        )
        assert scripts == [(static_site / "attention-explorable.js").as_uri()], scripts
        # the iframe takes its page's height, which hides its title: it grows and shrinks with its content
        frame_el = page.locator("iframe.ae-embed-frame")
        frame_el.scroll_into_view_if_needed()
        frame = frame_el.content_frame
        frame.locator(".ae-output").first.wait_for()
        height = "document.querySelector('iframe.ae-embed-frame').offsetHeight"
        content = "Math.ceil(document.body.getBoundingClientRect().height)"
        page.wait_for_function(f"() => {height} > 430")

        inside = frame_el.element_handle().content_frame()

        def fitted() -> int:
            """The iframe's height once it is its content's (which the host page cannot read itself)."""
            for _ in range(20):  # the content may still settle: read it again until the iframe matches it
                try:
                    page.wait_for_function(
                        f"(c) => Math.abs({height} - c) <= 2", arg=inside.evaluate(content), timeout=1000
                    )
                    return page.evaluate(height)
                except PlaywrightTimeout:
                    continue
            raise AssertionError(
                f"the iframe ({page.evaluate(height)} px) never took its content's height "
                f"({inside.evaluate(content)} px)"
            )

        wide = fitted()
        page.set_viewport_size({"width": 480, "height": 900})  # narrower: the content is taller
        page.wait_for_function(f"(wide) => {height} > wide + 100", arg=wide)
        tall = fitted()
        page.set_viewport_size({"width": 1280, "height": 900})  # and back: the iframe shrinks again
        page.wait_for_function(f"(tall) => {height} < tall - 100", arg=tall)
        assert abs(fitted() - wide) <= 2
        assert not frame.locator(".ae-page-heading").first.is_visible()
        s.screenshot("static-host-1280")
        s.assert_clean()
        assert aborted == []
    finally:
        host.unlink()


def test_the_textbook_in_an_iframe_is_whole_and_its_anchor_scrolls_the_host(static_site, student):
    host = static_site / "host-textbook.html"
    frame = (static_site / "embed" / "steps-iframe.html").read_text("utf-8")
    frame = frame.replace('src="steps.html?embed=1"', 'src="index.html?embed=1#sec-3-8"').replace(' loading="lazy"', "")
    host.write_text(
        "<!doctype html><html lang='zh-Hans'><head><meta charset='utf-8'><title>host</title></head>"
        f"<body><h1>课程</h1><p>前言</p>{frame}<p>end</p></body></html>",
        "utf-8",
    )
    try:
        s, aborted = _open(
            student, static_site, "host-textbook.html", "iframe.ae-embed-frame", mobile=True, width=390, height=844
        )
        page = s.page
        height = "document.querySelector('iframe.ae-embed-frame').offsetHeight"
        page.wait_for_function(f"() => {height} > 20000")  # the whole text on a phone: no cap (it was 20,000)
        # The heading of 3.8 comes to the top of the host's screen
        inside = page.locator("iframe.ae-embed-frame").element_handle().content_frame()
        heading = "document.getElementById('sec-3-8').getBoundingClientRect().top"
        page.wait_for_function("() => window.scrollY > 2000")
        # The page lands again as it settles (web/frame.js: at 0.2, 0.6 and 1.5 s): within 3 s it is there.
        deadline, top = time.monotonic() + 3.0, None
        while time.monotonic() < deadline:
            top = page.evaluate(
                "document.querySelector('iframe.ae-embed-frame').getBoundingClientRect().top"
            ) + inside.evaluate(heading)
            if -5 <= top <= 200:
                break
            page.wait_for_timeout(100)  # the poll's interval (the host scrolls smoothly)
        assert -5 <= top <= 200, top
        assert aborted == []
    finally:
        host.unlink()


def test_a_following_iframe_takes_the_host_pages_language_and_theme_and_only_from_its_host(static_site, student):
    """``data-ae-follow="lang theme"`` on the pasted iframe: the frame opens in the host's language, turns
    dark when the host's own toggle makes its page dark (as Furo's or Material's do) and light again, and
    the explorable's state stays; a frame whose ?host= names another origin takes no message."""
    host = static_site / "host-follow.html"
    snippet = (static_site / "embed" / "vector-iframe.html").read_text("utf-8")
    follow = snippet.replace(' loading="lazy"', ' data-ae-follow="lang theme"').replace(
        "vector.html?embed=1", "vector.html?embed=1&amp;query_x=-1"
    )
    deaf = snippet.replace(' loading="lazy"', ' data-ae-follow="lang theme"').replace(
        "vector.html?embed=1", "vector.html?embed=1&amp;host=https://course.example"
    )
    host.write_text(
        "<!doctype html><html lang='en'><head><meta charset='utf-8'><title>host</title>"
        "<style>body[data-theme=dark] { background: #131416; color: #eee; }</style></head>"
        f"<body data-theme='light'><h1>A lesson</h1>{follow}<p>between</p>{deaf}<p>end</p></body></html>",
        "utf-8",
    )
    try:
        s, aborted = _open(student, static_site, "host-follow.html", "iframe.ae-embed-frame")
        page = s.page
        first, second = (page.frame_locator("iframe.ae-embed-frame").nth(i) for i in range(2))
        frames = lambda: [f for f in page.frames if f != page.main_frame]  # noqa: E731
        page.wait_for_function("() => document.querySelectorAll('iframe.ae-embed-frame').length === 2")
        # The following frame goes to the English page, the state in its address kept.
        first.locator("html[lang=en]").wait_for()
        first.locator(".ae-vector-output").wait_for()
        assert any(f.url.split("?")[0].endswith("/en/vector.html") for f in frames())
        assert "(−1.00)" in first.locator(".ae-vector-formula").inner_text()
        # The host's toggle: dark, then light again.
        page.evaluate("document.body.dataset.theme = 'dark'")
        first.locator("html[data-ae-theme=dark]").wait_for()
        page.evaluate("document.body.dataset.theme = 'light'")
        first.locator("html[data-ae-theme=light]").wait_for()
        # The frame that names another host took nothing: still Chinese, no theme set.
        second.locator(".ae-vector-output").wait_for()
        settled(page)
        assert second.locator("html").get_attribute("lang") == "zh-Hans"
        assert second.locator("html").get_attribute("data-ae-theme") is None
        assert len(frames()) == 2
        s.assert_clean()
        assert aborted == []
    finally:
        host.unlink()


def test_an_author_writes_explorable_tags_in_a_page_two_folders_deep(static_site, student):
    lessons = static_site / "lessons" / "deep"
    lessons.mkdir(parents=True, exist_ok=True)
    host = lessons / "host.html"
    # The element's two lines as the export offers them, then the author's own tags and state.
    offered = (static_site / "embed" / "steps-element.html").read_text("utf-8")
    script, first = offered.splitlines()
    script = script.replace('src="', 'src="../../')
    first = first.replace('name="steps"', 'name="steps" step="3" temperature="0.05"')
    host.write_text(
        f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>host</title>{script}</head><body>"
        f"<h1>Lesson</h1>{first}<p>text</p>"
        "<attention-explorable name='vector' lang='zh' temperature='2' revealed='true'></attention-explorable>"
        "<attention-explorable name='steps' step='9'></attention-explorable>"
        "<attention-explorable name='nope'></attention-explorable></body></html>",
        "utf-8",
    )
    try:
        s, aborted = _open(student, static_site, "lessons/deep/host.html?step=2", ".ae-vector-output")
        page = s.page
        page.wait_for_function(
            "() => [...document.querySelectorAll('attention-explorable')].every("
            "(e) => e.shadowRoot && e.shadowRoot.querySelector('.ae-output, .ae-vector-output, "
            "[role=alert]'))"
        )
        steps, vector, clamped, bad = (page.locator("attention-explorable").nth(i) for i in range(4))
        # The markup's state, in the page's language (en) or the tag's own (zh); the host's ?step=2 not read
        expect(steps.locator(".ae-question")).to_contain_text("Step 3")
        assert steps.locator(".ae-temperature-box input").first.input_value() == "0.05"
        assert vector.locator(".ae-vector-temperature-box input").input_value() == "2"
        expect(vector.locator(".ae-vector-output")).to_contain_text("输出")
        # A value out of bounds is clamped and said by the attribute's own name; a wrong name is said
        expect(clamped.locator(".ae-question")).to_contain_text("Step 3")
        expect(clamped.locator(".ae-input-notice[role=alert]")).to_have_text(
            'The attribute step="9" is outside [1, 3]; set to 3.'
        )
        expect(bad.locator("[role=alert]")).to_contain_text('name="nope"')
        # Each answers keys, on its own
        before = vector.locator(".ae-vector-weights").text_content()
        handle(vector, ".ae-vector-temperature").press("ArrowLeft")
        expect(vector.locator(".ae-vector-weights")).not_to_have_text(before)
        assert steps.locator(".ae-weight-2").text_content() != clamped.locator(".ae-weight-2").text_content()
        assert page.evaluate("() => location.search") == "?step=2"  # the host's address is its own
        assert page.evaluate("() => window.Bokeh === undefined")
        s.screenshot("static-element-host-1280")
        errors = [e for e in s.errors if 'name="nope"' not in e]
        assert not errors, errors
        assert aborted == []
    finally:
        shutil.rmtree(static_site / "lessons")


@pytest.mark.parametrize("page_file", ["index.html", "steps.html"])
def test_pages_fit_a_phone_offline(page_file, static_site, student):
    s, aborted = _open(student, static_site, page_file, READY[page_file], width=390, height=844, mobile=True)
    wait_text(s.page, READY[page_file], r"[0-9]")
    s.assert_fits_phone(f"static-{page_file.removesuffix('.html')}-390")
    assert aborted == []


def test_a_reload_keeps_the_step_the_prediction_and_the_typed_answers(static_site, student):
    s, aborted = _open(student, static_site, "steps.html", ".ae-output")
    page = s.page
    page.locator(".ae-step-2 button").click()
    page.locator(".ae-prediction input").fill("8")
    page.wait_for_function("() => location.search === '?step=2&prediction_text=8'")
    page.reload()
    page.locator(".ae-output").first.wait_for()
    wait_text(page, ".ae-question", "提高第二个分数")
    expect(page.locator(".ae-prediction input")).to_have_value("8")

    book, _ = _open(student, static_site, "index.html", ".ae-vector-output")
    q2 = book.page.locator(".ae-exercise-q2-alpha2 .ae-exercise-input input")
    q2.fill("0,212")
    book.page.wait_for_function("() => location.search.includes('q2-alpha2.response=0%2C212')")
    book.page.reload()
    book.page.locator(".ae-vector-output").first.wait_for()
    expect(q2).to_have_value("0,212")
    s.assert_clean()
    book.assert_clean()
    assert aborted == []


def test_the_video_loads_nothing_until_chosen(static_site, student):
    from attention_explorable import content

    block = next(b for s in content.load_sections("zh") for b in s.blocks if b.kind == "video")
    site, embed, _ = content.video_sources(block)[0]
    s, aborted = _open(student, static_site, "index.html", ".ae-vector-output")
    page = s.page
    page.wait_for_load_state("networkidle")  # nothing asked for in half a second: no player was loaded
    assert aborted == [] and page.locator("iframe").count() == 0
    page.locator(f".ae-video-{site}").click()
    page.locator("iframe.ae-video-frame").wait_for(state="attached")
    for _ in range(50):
        if aborted:
            break
        page.wait_for_timeout(100)  # the poll's interval: the request follows the frame's insertion
    assert aborted == [embed]  # the chosen player, and nothing else, asked for the network


def test_an_embedded_page_shows_the_explorable_alone_its_keys_work_without_their_hint(student, static_site):
    """``?embed=1`` (an iframe's address): no heading, no language link, no hint of the presenter keys
    (its label's own display no longer shows it), while the keys still act."""
    s, _ = _open(student, static_site, "steps.html?embed=1", ".ae-step-2 button")
    page = s.page
    page.wait_for_selector("html[data-ae-keys='on']", state="attached")
    assert page.locator("label.ae-keys").count() == 1 and not page.locator("label.ae-keys").is_visible()
    assert not page.locator("main.ae-module-page > h1").is_visible()
    page.locator("body").press("2")
    wait_text(page, ".ae-question", "第 2 步")


def test_a_slow_device_without_scroll_anchoring_stays_on_the_anchor_once_the_page_is_live(
    static_site, chromium, tmp_path
):
    """Safari's engine anchors no scrolling, so each explorable that comes to life above #sec-3-8 moves the
    heading; on a slow device they come to life long after the page opened. The page lands on the anchor
    again once all of it is live (unless the reader has moved). Chromium stands in, its scroll anchoring and
    deferred layout switched off, its CPU ten times slower."""
    for name in ("index.html", "attention-textbook.js"):
        shutil.copy(static_site / name, tmp_path / name)
    page_html = (tmp_path / "index.html").read_text("utf-8")
    like_webkit = (
        "<style>html, body { overflow-anchor: none !important; } "
        ".ae-section > *, .ae-section > .ae-prose > * { content-visibility: visible !important; }</style>"
    )
    (tmp_path / "index.html").write_text(page_html.replace("</head>", like_webkit + "</head>", 1), "utf-8")
    context = chromium.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        page.route(
            "**/*", lambda r: r.continue_() if r.request.url.startswith(("file:", "data:", "blob:")) else r.abort()
        )
        context.new_cdp_session(page).send("Emulation.setCPUThrottlingRate", {"rate": 10})
        page.goto((tmp_path / "index.html").as_uri() + "#sec-3-8")
        live = "() => performance.getEntriesByName('ae-page-mounted').length > 0 && document.fonts.status === 'loaded'"
        deadline = time.monotonic() + 120
        while not page.evaluate(live):
            assert time.monotonic() < deadline, "the page did not come to life"
            page.wait_for_timeout(100)  # the poll's interval
        took = page.evaluate("() => performance.getEntriesByName('ae-page-mounted')[0].startTime")
        page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
        top = page.evaluate("() => document.getElementById('sec-3-8').getBoundingClientRect().top")
        assert abs(top) < 2, (
            f"the heading of 3.8 at {top:.0f} px once the page was live ({took:.0f} ms after it opened)"
        )
    finally:
        context.close()


def test_a_subsection_number_in_the_text_takes_the_reader_to_it(static_site, student):
    """ "the steps of 3.7.5", read in 3.8, is a link: a click lands on 3.7.5's heading and Back returns."""
    s, _ = _open(student, static_site, "en/index.html", ".ae-toc")
    page = s.page
    ref = page.locator("#sec-3-8 ~ * a.ae-ref[href*='--3-7-5-'], .ae-sec-3-8 a.ae-ref[href*='--3-7-5-']").first
    ref.scroll_into_view_if_needed()
    target = ref.get_attribute("href")[1:]
    ref.click()
    heading = page.locator(f"[id='{target}']")

    def landed():
        top = heading.evaluate("(h) => h.getBoundingClientRect().top")
        assert -5 <= top <= 150, top

    eventually(page, landed)
    assert page.evaluate("() => location.hash") == f"#{target}"
    s.assert_clean()
