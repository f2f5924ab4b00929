"""Course sites built with the real tools, as an author builds them, then read from ``file://``.

A Sphinx site (Furo, a MyST page two folders deep and a reStructuredText
page, through ``extensions = ["attention_explorable.sphinx"]``) and a MkDocs
Material site with its default settings (``use_directory_urls`` on, through
``plugins: [attention-explorable]``) are built by their own commands. Each
page is opened in Chromium from ``file://`` with every other request
refused, light and dark: every explorable renders in the state its markup
set, answers a key, keeps the host's text below it, takes the host's theme
and passes axe. The build says an author's typo in their words.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest
from playwright.sync_api import expect

from .pages import handle
from .test_accessibility import serious_violations

pytestmark = pytest.mark.browser

#: A slider of each explorable the sites hold, and the readout an arrow key on it changes.
KEYED = {
    "steps": (".ae-value-2", ".ae-output"),  # (the scores and the temperature wait for the prediction)
    "vector": (".ae-vector-temperature", ".ae-vector-weights"),
    "matrix": (".ae-matrix-q1-scale", ".ae-matrix-max-weight"),
}

SPHINX_CONF = """
project = "A course"
extensions = ["myst_parser", "attention_explorable.sphinx"]
html_theme = "furo"
language = "en"
"""

SPHINX_INDEX = """
A course
========

.. toctree::

   lessons/intro
   lessons/deep/attention
"""

SPHINX_RST = """
Scaled attention
================

.. attention-explorable:: matrix
   :d_k: 16
   :seed: 7
   :revealed: true

The text after the explorable.
"""

SPHINX_MYST = """
# Attention, two folders deep

Predict first.

```{attention-explorable} steps
:step: 3
:temperature: 0.05
```

The text between.

```{attention-explorable} vector
:lang: zh
:temperature: 2
:revealed: true
```

The text after the explorables.
"""

#: Material with its settings left as they are, but for the palette a course with a dark mode writes
#: (its light scheme and its dark one, slate, each following the reader's system).
MKDOCS_YML = """
site_name: A course
theme:
  name: material
  palette:
    - media: "(prefers-color-scheme: light)"
      scheme: default
    - media: "(prefers-color-scheme: dark)"
      scheme: slate
plugins:
  - search
  - attention-explorable
"""

MKDOCS_PAGE = """
# Attention

Predict first.

<attention-explorable name="steps" step="3" temperature="0.05" lang="en"></attention-explorable>

The text between.

<attention-explorable name="matrix" d_k="16" revealed="true" lang="en"></attention-explorable>

The text after the explorables.
"""


def _write(root, files: dict) -> None:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(content).lstrip(), "utf-8")


def _run(*args, cwd) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-m", *args], cwd=cwd, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return done


@pytest.fixture(scope="module")
def sphinx_site(tmp_path_factory):
    root = tmp_path_factory.mktemp("sphinx")
    _write(
        root / "src",
        {
            "conf.py": SPHINX_CONF,
            "index.rst": SPHINX_INDEX,
            "lessons/intro.rst": SPHINX_RST,
            "lessons/deep/attention.md": SPHINX_MYST,
        },
    )
    done = _run("sphinx", "-b", "html", "-W", "src", "out", cwd=root)
    return root / "out", done


@pytest.fixture(scope="module")
def mkdocs_site(tmp_path_factory):
    root = tmp_path_factory.mktemp("mkdocs")
    _write(
        root,
        {
            "mkdocs.yml": MKDOCS_YML,
            "docs/index.md": "# A course\n\nSee the lessons.\n",
            "docs/lessons/attention.md": MKDOCS_PAGE,
        },
    )
    done = _run("mkdocs", "build", "--strict", cwd=root)
    return root / "site", done


def _open(student, path, *, dark: bool, mobile: bool = False):
    s = student(390, 844, mobile=True) if mobile else student()
    if dark:
        s.page.emulate_media(color_scheme="dark")
    aborted = s.cut_network()
    # axe reads the host's stylesheets by XMLHttpRequest, which a file:// page may not make.
    s.errors_to_ignore = ("Failed to load resource", "Access to XMLHttpRequest at 'file:")
    s.page.goto(path.resolve().as_uri())
    s.page.wait_for_function(
        "() => [...document.querySelectorAll('attention-explorable')].every((e) => e.models && e.dataset.aeTheme)",
        timeout=30_000,
    )
    return s, aborted


def _check(s, names: list[str], theme: str, after: str) -> None:
    """Every explorable: drawn, of the host's theme, answering a key, the host's text below it; axe."""
    page = s.page
    tags = page.locator("attention-explorable")
    assert [tags.nth(i).get_attribute("name") for i in range(tags.count())] == names
    themes = page.evaluate("() => [...document.querySelectorAll('attention-explorable')].map((e) => e.dataset.aeTheme)")
    assert themes == [theme] * len(names), themes
    for i, name in enumerate(names):
        tag = tags.nth(i)
        slider, readout = KEYED[name]
        before = tag.locator(readout).first.text_content()
        handle(tag, slider).press("ArrowRight")
        expect(tag.locator(readout).first).not_to_have_text(before)
    # The host's text after the explorables starts below the last one: the tags take their content's height.
    boxes = page.evaluate(
        """(after) => {
        const last = [...document.querySelectorAll('attention-explorable')].pop();
        const text = [...document.querySelectorAll('p')].find((p) => p.textContent.includes(after));
        const inner = last.shadowRoot.lastElementChild.getBoundingClientRect();
        return {tag: last.getBoundingClientRect().bottom, inner: inner.bottom, text: text.getBoundingClientRect().top}; }""",
        after,
    )
    assert boxes["inner"] <= boxes["tag"] + 1 and boxes["tag"] <= boxes["text"] + 1, boxes
    problems = serious_violations(page, context="attention-explorable")
    assert not problems, problems


def test_sphinx_furo_site_light_and_dark(sphinx_site, student):
    out, done = sphinx_site
    assert (out / "_static" / "attention-explorable" / "attention-explorable.js").is_file()
    deep = out / "lessons" / "deep" / "attention.html"
    markup = deep.read_text("utf-8")
    assert 'src="../../_static/attention-explorable/attention-explorable.js' in markup
    assert "attention-explorable.js" not in (out / "index.html").read_text("utf-8")  # only where a tag is
    for dark in (False, True):
        s, aborted = _open(student, deep, dark=dark)
        steps, vector = s.page.locator("attention-explorable").nth(0), s.page.locator("attention-explorable").nth(1)
        expect(steps.locator(".ae-question")).to_contain_text("Step 3")  # the directive's state
        assert steps.locator(".ae-temperature-box input").first.input_value() == "0.05"
        expect(vector.locator(".ae-vector-output")).to_contain_text("输出")  # its own :lang:
        _check(s, ["steps", "vector"], "dark" if dark else "light", "The text after the explorables")
        s.screenshot(f"sphinx-furo-{'dark' if dark else 'light'}-1280")
        assert aborted == [], aborted
        s.assert_clean()
    s, aborted = _open(student, out / "lessons" / "intro.html", dark=False, mobile=True)
    _check(s, ["matrix"], "light", "The text after the explorable")
    assert s.page.evaluate("() => document.documentElement.scrollWidth") <= 390
    s.screenshot("sphinx-furo-matrix-390")
    assert aborted == []
    s.assert_clean()


def test_mkdocs_material_site_with_default_settings(mkdocs_site, student):
    site, _ = mkdocs_site
    page = site / "lessons" / "attention" / "index.html"  # use_directory_urls: a page is a folder
    assert 'src="../../attention-explorable/attention-explorable.js"' in page.read_text("utf-8")
    for dark in (False, True):
        s, aborted = _open(student, page, dark=dark)
        scheme = s.page.evaluate("() => document.body.dataset.mdColorScheme")
        assert scheme == ("slate" if dark else "default"), scheme
        steps = s.page.locator("attention-explorable").first
        expect(steps.locator(".ae-question")).to_contain_text("Step 3")
        _check(s, ["steps", "matrix"], "dark" if dark else "light", "The text after the explorables")
        s.screenshot(f"mkdocs-material-{'dark' if dark else 'light'}-1280")
        # Material asks Google for its fonts; nothing of the site's own is refused
        assert [u for u in aborted if not u.startswith("https://fonts.")] == [], aborted
        s.assert_clean()


def test_a_typo_in_the_markup_is_said_by_the_build(tmp_path):
    _write(
        tmp_path / "src",
        {"conf.py": SPHINX_CONF, "index.rst": "Home\n====\n\n.. attention-explorable:: steps\n   :temprature: 0.05\n"},
    )
    done = subprocess.run(
        [sys.executable, "-m", "sphinx", "-b", "html", "src", "out"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    # Said with the closest name, and the build fails without -W (a hole in the page otherwise).
    assert "steps has no parameter 'temprature' (did you mean 'temperature'" in done.stderr, done.stderr
    assert done.returncode != 0, done.stderr
    assert "Traceback" not in done.stderr and "Extension error" not in done.stderr, done.stderr  # no crash report
    _write(tmp_path / "src", {"index.rst": "Home\n====\n\n.. attention-explorable:: steps\n   :temperature: 50\n"})
    done = _run("sphinx", "-b", "html", "-E", "src", "out", cwd=tmp_path)
    assert 'The attribute temperature="50" is outside [0.01, 10]; set to 10' in done.stderr, done.stderr
    _write(
        tmp_path,
        {
            "mkdocs.yml": MKDOCS_YML,
            "docs/index.md": '<attention-explorable name="steps" d_k="4"></attention-explorable>\n',
        },
    )
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build"], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )  # not --strict: the build fails anyway
    assert done.returncode != 0 and "steps has no parameter 'd_k'" in done.stderr, done.stderr
