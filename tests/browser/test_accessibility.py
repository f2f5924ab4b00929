"""WCAG 2.2 AA as far as a machine can check it: axe-core on every page, in both languages.

axe-core (shipped inside ``axe-playwright-python``) runs its WCAG 2.0-2.2
A/AA rules on each page with every explorable and
exercise built; a violation of impact "serious" or "critical" fails. The
same pages at 640 px wide (a 1280 px window at 200 % zoom) must not scroll
sideways.

``serve`` answers students with the files the export writes (one builder,
``site.build_page``; only their assets' URLs differ): every page is checked
as exported, and as served the server's own index and one page per language.
"""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from attention_explorable.apps import APPS
from attention_explorable.explorables import MODULES, explorable_class
from attention_explorable.site import pages

from .pages import handle, settled


pytestmark = pytest.mark.browser

#: The rules run: WCAG 2.0, 2.1, 2.2 at levels A and AA (axe's best practices, such as
#: landmarks, are met too, but double the time on the textbook and are not run here).
RULES = {
    "runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]},
    "resultTypes": ["violations"],
}
SERIOUS = ("serious", "critical")
#: What each page shows once its explorables are drawn.
READY = {
    "textbook": ".ae-exercise-input, .ae-exercise-choice",
    **{name: explorable_class(name).tried.ready for name in APPS if name != "textbook"},
}
APP_OF = pages()


def serious_violations(page, context=None) -> list[str]:
    """axe's serious and critical violations on ``page`` (within the elements ``context`` selects, when given),
    one line per rule with its first nodes."""
    found = Axe().run(page, context=context, options=RULES).response["violations"]
    return [
        f"{v['id']} ({v['impact']}): {v['help']} at "
        + "; ".join(f"{n['target']} {n['html'][:120]}" for n in v["nodes"][:3])
        for v in found
        if v["impact"] in SERIOUS
    ]


def _zoomed_scroll_width(page) -> int:
    """The page's width in a 1280 px window at 200 % zoom (640 CSS px), then the viewport back."""
    size = page.viewport_size
    page.set_viewport_size({"width": 640, "height": 450})
    settled(page)
    width = page.evaluate("document.documentElement.scrollWidth")
    page.set_viewport_size(size)
    return width


def test_the_served_index_and_a_page_in_both_languages(every_app, student):
    s = student()
    page = s.page
    root = f"http://127.0.0.1:{every_app.port}/"
    problems = {}
    for language in ("zh", "en"):
        page.goto(f"{root}?lang={language}")
        problems[f"/ {language}"] = serious_violations(page)
        app = {"zh": "steps", "en": "matrix"}[language]
        page.goto(f"{root}{app}?lang={language}")
        page.wait_for_selector(READY[app], timeout=30_000)
        settled(page)
        problems[f"{app} {language}"] = serious_violations(page)
    assert not any(problems.values()), {k: v for k, v in problems.items() if v}
    s.assert_clean()
    every_app.assert_clean_log()


def test_every_exported_page_in_both_languages(static_site, student):
    s = student()
    page = s.page
    page.route("**/*", lambda r: r.continue_() if r.request.url.startswith(("file:", "data:", "blob:")) else r.abort())
    # axe reads the stylesheets by XMLHttpRequest, which a file:// page may not make.
    s.errors_to_ignore = ("Failed to load resource", "Access to XMLHttpRequest at 'file:")
    problems = {}
    for folder in ("", "en/"):
        for page_file in APP_OF:
            page.goto((static_site / folder / page_file).resolve().as_uri())
            page.wait_for_selector(READY[APP_OF[page_file]], timeout=30_000)
            settled(page)
            # The textbook lays out a part only as it nears the screen (content-visibility: auto); axe
            # scrolls to each node and reads what lies under it while the parts around are still guesses,
            # so it is given the page laid out whole, as a reader who scrolled there sees it.
            page.add_style_tag(content=".ae-section > * { content-visibility: visible !important; }")
            problems[folder + page_file] = serious_violations(page)
            width = _zoomed_scroll_width(page)
            if width > 641:
                problems[folder + page_file].append(f"scrolls sideways at 200 % zoom: {width} px in 640")
    assert not any(problems.values()), {k: v for k, v in problems.items() if v}
    s.assert_clean()


class _Pictures(HTMLParser):
    """The attributes of every element a page's HTML marks ``role="img"``."""

    def __init__(self):
        super().__init__()
        self.found = []

    def handle_starttag(self, tag, attrs):
        if dict(attrs).get("role") == "img":
            self.found.append(dict(attrs))


@pytest.mark.parametrize("name", [n for n in MODULES if n in APP_OF.values()])
def test_a_module_names_its_pictures(name, static_site, student):
    s = student()
    s.open_offline(static_site / f"{name}.html", READY[name])
    pictures = s.page.evaluate(
        "() => [...document.querySelectorAll('[role=img]')].filter((e) => !e.closest('[hidden]'))"
        ".map((e) => [e.className, e.getAttribute('aria-label')])"
    )
    assert pictures and all((label or "").strip() for _, label in pictures), pictures
    s.assert_clean()


#: A course site's dark page (Furo's dark background), holding every explorable as an author writes it.
_DARK_HOST = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>A dark course page</title>
{script}
<style>body {{ background: #131416; color: #d0d0d0; font-family: sans-serif; max-width: 960px; margin: auto; }}</style>
</head><body><main><h1>A dark course page</h1><p>The host's own text.</p>
{tags}
<attention-explorable name="steps" theme="light" step="2"></attention-explorable>
</main></body></html>"""


def test_on_a_dark_host_every_explorable_is_dark_passes_axe_and_follows_the_hosts_switch(static_site, student):
    names = list(MODULES)
    script = (static_site / "embed" / "steps-element.html").read_text("utf-8").splitlines()[0]
    # (the steps past their question, which the key below needs: the sliders open)
    opened = {"steps": ' revealed="true"'}
    tags = "\n".join(f'<attention-explorable name="{n}"{opened.get(n, "")}></attention-explorable>' for n in names)
    host = static_site / "dark-host.html"
    host.write_text(_DARK_HOST.format(script=script, tags=tags), "utf-8")
    try:
        s = student()
        page = s.page
        s.cut_network()
        s.errors_to_ignore = ("Failed to load resource", "Access to XMLHttpRequest at 'file:")
        page.goto(host.resolve().as_uri())
        page.wait_for_function(
            "() => [...document.querySelectorAll('attention-explorable')].every((e) => e.models && e.dataset.aeTheme)"
        )
        themes = page.evaluate(
            "() => [...document.querySelectorAll('attention-explorable')].map((e) => e.dataset.aeTheme)"
        )
        assert themes == ["dark"] * len(names) + ["light"], themes  # the last asked for light
        # No background of their own, nor their module's root inside: the host's shows through; an author's
        # colours set on the element win, inside too (the module's root and its primary button).
        backgrounds = """() => [...document.querySelectorAll('attention-explorable')].flatMap((e) => {
            const x = e.shadowRoot.querySelector('.ae-x');
            return [getComputedStyle(e).backgroundColor, ...(x ? [getComputedStyle(x).backgroundColor] : [])];
        })"""
        *auto, asked, asked_inside = page.evaluate(backgrounds)  # the last tag asked for light: its own white
        assert set(auto) == {"rgba(0, 0, 0, 0)"} and asked == asked_inside == "rgb(255, 255, 255)"
        set_colours = """(on) => { const e = document.querySelector('attention-explorable');
            for (const [k, v] of [['--ae-background', '#fffdf5'], ['--ae-accent', '#7b1fa2']])
                on ? e.style.setProperty(k, v) : e.style.removeProperty(k); }"""
        page.evaluate(set_colours, True)
        accent = """() => getComputedStyle(document.querySelector('attention-explorable').shadowRoot
            .querySelector('button.ae-n-primary, .ae-n-group > button[aria-pressed=true]')).backgroundColor"""
        assert page.evaluate(backgrounds)[:2] == ["rgb(255, 253, 245)"] * 2
        assert page.evaluate(accent) == "rgb(123, 31, 162)"
        page.evaluate(set_colours, False)
        # A module's own root follows its element's theme (web/theme.js: what shows behind it).
        modules = page.evaluate(
            """() => [...document.querySelectorAll('attention-explorable')].map((e) => e.shadowRoot.querySelector('.ae-x'))
                .filter(Boolean).map((x) => x.dataset.aeTheme)"""
        )
        assert len(modules) >= len(names) and set(modules[:-1]) == {"dark"} and modules[-1] == "light", modules
        # Light text on dark boxes, the text a student reads and the box a student types in.
        colours = page.evaluate("""() => { const root = document.querySelector('attention-explorable').shadowRoot;
            return [getComputedStyle(root.querySelector('.ae-output')).color,
                    getComputedStyle(root.querySelector('input[type=text], input:not([type])')).backgroundColor]; }""")
        lum = [
            page.evaluate(
                "(c) => { const [r, g, b] = c.match(/[0-9.]+/g).map(Number);"
                " return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255; }",
                c,
            )
            for c in colours
        ]
        assert lum[0] > 0.7 and lum[1] < 0.2, colours
        problems = serious_violations(page)
        assert not problems, problems
        # It still answers a key.
        steps = page.locator("attention-explorable").first
        before = steps.locator(".ae-output").text_content()
        steps.locator(".ae-temperature input[type=range]").press("ArrowRight")
        expect(steps.locator(".ae-output")).not_to_have_text(before)
        s.screenshot("dark-host-1280")
        # The host's own theme switch (its body turned light): the explorables follow; the one that asked
        # for light stays light.
        page.evaluate("() => { document.body.style.background = '#ffffff'; document.body.style.color = '#222'; }")
        page.wait_for_function(
            "() => [...document.querySelectorAll('attention-explorable')].every((e) => e.dataset.aeTheme === 'light')"
        )
        assert not serious_violations(page)
        s.assert_clean()
    finally:
        host.unlink()


def test_a_page_opened_with_theme_dark_is_dark_and_passes_axe(static_site, student):
    s = student(390, 844, mobile=True)
    s.open_offline(static_site / "en" / "steps.html", ".ae-output", suffix="?theme=dark")
    s.errors_to_ignore = ("Failed to load resource", "Access to XMLHttpRequest at 'file:")
    page = s.page
    assert page.evaluate("() => document.documentElement.dataset.aeTheme") == "dark"
    background = page.evaluate("() => getComputedStyle(document.body).backgroundColor")
    assert background == "rgb(23, 25, 30)", background
    problems = serious_violations(page)
    assert not problems, problems
    s.screenshot("dark-steps-390")
    s.assert_clean()


@pytest.mark.parametrize("suffix, dark", [("", True), ("?theme=light", False)])
def test_the_textbook_takes_the_readers_dark_system_or_the_theme_asked_in_every_explorable(
    static_site, student, suffix, dark
):
    """On a student page an explorable is in the page's theme: the one asked by ?theme=, else the reader's
    system's (here dark), in every explorable of the textbook, and the page's own background agrees."""
    s = student(1280, 900)
    s.page.emulate_media(color_scheme="dark")
    s.open_offline(static_site / "index.html", ".ae-toc", suffix=suffix)
    page = s.page
    want = "dark" if dark else "light"
    page.wait_for_function(
        "(want) => { const roots = [...document.querySelectorAll('[data-ae-render] .ae-x')];"
        " return roots.length >= 7 && roots.every((r) => r.dataset.aeTheme === want); }",
        arg=want,
    )
    background = page.evaluate("() => getComputedStyle(document.body).backgroundColor")
    assert (background == "rgb(23, 25, 30)") == dark, background
    s.assert_clean()


def test_a_plots_table_is_current_before_the_move_is_said(static_site, student):
    """The plots' tables are read, not said: after a key press they are written a moment after the move
    (``parts.TABLES_AFTER_MS``), before the live region says the settled move, not with it 800 ms on (a
    reader who went from the slider to the table at once found last move's numbers)."""
    s = student()
    s.open_offline(static_site / "en" / "matrix.html", ".ae-matrix-max-weight", "?revealed=true")
    page = s.page
    settled(page)
    page.evaluate(
        """() => {
          window.aeOrder = [];
          const watch = (sel, name) => new MutationObserver(() => window.aeOrder.includes(name)
            || window.aeOrder.push(name)).observe(document.querySelector(sel),
                                                  {childList: true, subtree: true, characterData: true});
          watch('.ae-matrix-weights-data', 'table');
          watch('.ae-live', 'live');
        }"""
    )
    knob = handle(page, ".ae-matrix-dk")
    knob.focus()
    knob.press("ArrowRight")
    page.wait_for_function("() => window.aeOrder.length === 2")
    assert page.evaluate("() => window.aeOrder") == ["table", "live"]
