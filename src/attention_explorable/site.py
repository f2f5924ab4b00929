"""The static export: the textbook and each explorable as files that open anywhere, with no Python.

``attention-explorable export DIR`` writes::

    DIR/index.html              the textbook page: its text, explorables and exercises
    DIR/attention-textbook.js             the textbook's script (its explorables' modules), which both languages load
    DIR/steps.html ...          one page per explorable (steps, vector, matrix, selfcross, qkv, contexts)
    DIR/head.html               a head that learns (attention_explorable.modules: one module, its own host)
    DIR/embed/NAME.js           an explorable an author puts in any page with one tag
    DIR/embed/NAME.html         that tag, to copy: <script src="embed/NAME.js"></script>
    DIR/embed/NAME-iframe.html  the iframe an author pastes into a page in DIR, with its resize script
    DIR/embed/resize.js         that resize script (the iframes grow to their content's height)
    DIR/attention-explorable.js the <attention-explorable name=NAME> element, for any page at any depth
    DIR/embed/NAME.LANG.js      an element's data (LANG = zh, en), found from that script's own address
    DIR/embed/NAME-element.html the two lines to copy for that element
    DIR/en/index.html ...       the same pages in the other language (DIR/zh/ for an English
                                site); each page's language switch links to its twin, keeping
                                the query and the anchor

``--no-index`` (``index=False``) names the textbook ``textbook.html``: a
folder of a course site whose own ``index.html`` must stay (Sphinx, MkDocs,
Jupyter Book) takes the export without losing it.

Each page is its explorables themselves (:mod:`attention_explorable.native`):
native controls, readouts and SVG plots, with its styles and scripts inside
it (the textbook's modules in ``attention-textbook.js`` beside it, to keep the long page
small). Nothing is requested from anywhere else, and every page works from ``file://``.

References: docs/architecture.md, "The student page"; docs/embedding.md.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import jinja2

from . import apps
from .modules import MODULES, module_page, module_widget
from .content import load_sections
from .native import TEXTBOOK_SCRIPT, element_script, embed_data, embed_script, student_page, textbook_script
from .notebooks import NOTEBOOKS, notebook_href, notebook_json
from .strings import LANGUAGES, STRINGS, text

__all__ = ["export_site", "export_element", "build_page", "ExportReport", "pages", "module_pages", "Progress"]


def pages(index: bool = True) -> dict[str, str]:
    """Page file -> app name: ``index.html`` the textbook (``textbook.html`` when not ``index``), ``<name>.html``
    each registered explorable."""
    return {
        "index.html" if index else "textbook.html": "textbook",
        **{f"{n}.html": n for n in apps.APPS if n != "textbook"},
        **module_pages(),  # the explorables with no live Panel app too (head.html)
    }


def module_pages() -> dict[str, str]:
    """Page file -> name of each explorable written as one module (:data:`attention_explorable.modules.MODULES`)."""
    return {f"{n}.html": n for n in MODULES}


@dataclass
class ExportReport:
    """What :func:`export_site` wrote: the files, their bytes, and the seconds it took."""

    directory: Path
    files: list[Path] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def bytes(self) -> int:
        """Total size of the files written, in bytes."""
        return sum(f.stat().st_size for f in self.files)


def build_page(
    app: str, language: str, other_language_href: str | None = None, script_href: str = TEXTBOOK_SCRIPT
) -> str:
    """One student page as HTML: the same file for the export and for ``serve``.

    Parameters
    ----------
    app : str
        A key of :data:`attention_explorable.apps.APPS` (``"textbook"``, ``"steps"``, ...).
    language : {"zh", "en"}
        The page's language.
    other_language_href : str, optional
        The language switch's target, a file of the other language (static
        site); None: the switch asks the server with ``?lang=``.
    script_href : str
        Where the textbook finds its script file (:data:`~attention_explorable.native.TEXTBOOK_SCRIPT`),
        relative to it: beside it by default (``serve`` answers it there), ``../attention-textbook.js`` from the
        other language's folder of an export.

    Raises
    ------
    KeyError
        If ``app`` is no page of :data:`attention_explorable.apps.APPS`.

    Deep links, ``?room=`` and ``?embed=1`` are read by the page's scripts,
    so one file serves every query.
    """
    if app in MODULES:  # one module in the anywidget form, with its own small host
        return module_page(app, language, other_language_href)
    if app == "textbook":
        build = apps.textbook_app
    else:
        raise KeyError(f"app must be one of {sorted(apps.APPS)}, got {app!r}")
    title = text(apps.title_key(app), language)
    return student_page(
        lambda: build(language, switch_href=other_language_href),
        title,
        apps.HTML_LANG[language],
        text(apps.index_key(app), language),
        first_screen_static=app == "textbook",
        script_href=script_href,
    )


class Progress:
    """Says how far a build is, page by page: a bar on a terminal, one plain line each otherwise.

    ``Progress(total, stream)`` then ``step(label)`` after each page; ``None``
    as the stream says nothing.
    """

    def __init__(self, total: int, stream=None, what: str = "building pages"):
        self.total, self.stream, self.what = total, stream, what
        self.done = 0
        self.started = time.perf_counter()
        self.bar = bool(stream is not None and getattr(stream, "isatty", lambda: False)())

    def step(self, label: str) -> None:
        """Count one more page, named ``label``, and say so."""
        self.done += 1
        if self.stream is None:
            return
        seconds = time.perf_counter() - self.started
        if self.bar:
            filled = round(24 * self.done / self.total)
            end = "\n" if self.done == self.total else ""
            self.stream.write(
                f"\r{self.what} [{'#' * filled}{'.' * (24 - filled)}] "
                f"{self.done}/{self.total} {label:<24.24} {seconds:5.1f} s{end}"
            )
        else:
            self.stream.write(f"{self.what}: {self.done}/{self.total} {label} ({seconds:.1f} s)\n")
        self.stream.flush()


def _iframe_snippet(src: str, title: str) -> str:
    """The lines an author pastes for an iframe of the page ``src`` (relative to the export's folder)."""
    source = resources.files("attention_explorable").joinpath("templates", "embed-iframe.html").read_text("utf-8")
    return jinja2.Template(source, autoescape=True).render(src=src, title=title)


def _output_folder(directory: str | Path, language: str) -> Path:
    """``directory`` as a Path, with its ``embed/`` folder made; ValueError for an unknown language or a file."""
    if language not in STRINGS:
        raise ValueError(f"language must be one of {sorted(STRINGS)}, got {language!r}")
    out = Path(directory)
    if out.exists() and not out.is_dir():
        raise ValueError(f"directory {str(out)!r} exists and is not a folder")
    (out / "embed").mkdir(parents=True, exist_ok=True)
    return out


def export_site(directory: str | Path, language: str = "zh", progress=None, index: bool = True) -> ExportReport:
    """Write the static site into ``directory`` (created if missing; files of the same names replaced).

    Parameters
    ----------
    directory : str or Path
        Where the site goes.
    language : str
        Language of the pages at the top, ``"zh"`` (default) or ``"en"``, and of
        the embeds; the other language's pages go to ``directory/<other>/``.
    progress : text stream, optional
        Where to say how far the export is, page by page (:class:`Progress`);
        None says nothing.
    index : bool
        Whether the textbook is ``index.html`` (default) or ``textbook.html``
        (no ``index.html`` written: the folder's own stays).

    Returns
    -------
    ExportReport
        The files written, their total size and the time taken.

    Raises
    ------
    ValueError
        If ``language`` is unknown, or ``directory`` exists and is not a folder.
    """
    started = time.perf_counter()
    out = _output_folder(directory, language)
    report = ExportReport(out)

    def write(relative: str, content: str) -> None:
        path = out / relative
        path.write_text(content, encoding="utf-8")
        report.files.append(path)

    other = apps.OTHER_LANGUAGE[language]
    (out / other).mkdir(exist_ok=True)
    files = {**pages(index), **module_pages()}
    tell = Progress(2 * len(files) + len(MODULES), progress, "export")
    for filename, app in files.items():
        write(filename, build_page(app, language, other_language_href=f"{other}/{filename}"))
        tell.step(f"{filename} ({language})")
        write(f"{other}/{filename}", build_page(app, other, f"../{filename}", f"../{TEXTBOOK_SCRIPT}"))
        tell.step(f"{other}/{filename}")

    if "textbook" in files.values():
        write(TEXTBOOK_SCRIPT, textbook_script())
    write(
        "embed/resize.js",
        resources.files("attention_explorable").joinpath("web", "dist", "page", "resize.js").read_text("utf-8"),
    )
    for name in MODULES:
        title, other_title = (text(MODULES[name].key("title"), lang) for lang in (language, other))
        # In an author's page: an <attention-explorable> in the export's language (export_element).
        write(f"embed/{name}.js", embed_script(name, apps.HTML_LANG[language]))
        write(f"embed/{name}.html", f'<script src="embed/{name}.js"></script>\n')
        # The iframe in each language: the export's pages at the top, the other's in their folder.
        write(f"embed/{name}-iframe.html", _iframe_snippet(f"{name}.html?embed=1", title))
        write(f"embed/{name}-iframe.{other}.html", _iframe_snippet(f"{other}/{name}.html?embed=1", other_title))
        write(
            f"embed/{name}-element.html",
            f'<script src="attention-explorable.js"></script>\n'
            f'<attention-explorable name="{name}"></attention-explorable>\n',
        )
        # A MyST page (Jupyter Book 2): the {anywidget} directive, in each language (the deployed folder's address
        # goes where the snippet says; docs/embedding.md).
        for lang in (language, other):
            write(f"embed/{name}-myst.{lang}.md", myst_snippet(name, lang))
        tell.step(f"embed/{name}")
    report.files.extend(export_element(out, language))
    # The textbook's notebooks beside each language's pages (notebooks.notebook_href), not inside them.
    if "textbook" in files.values():
        for lang, folder in ((language, out), (other, out / other)):
            (folder / NOTEBOOKS).mkdir(exist_ok=True)
            for section in load_sections(lang):
                write(str((folder / notebook_href(section.id, lang)).relative_to(out)), notebook_json(section.id, lang))

    report.seconds = time.perf_counter() - started
    return report


#: Where a MyST snippet says the exported folder is published (the author puts the real address there).
MYST_FOLDER = "https://YOUR-COURSE-SITE/attention"


def myst_snippet(name: str, language: str) -> str:
    """MyST Markdown that shows explorable ``name`` in ``language`` through the ``{anywidget}`` directive of
    mystmd (Jupyter Book 2): the exported folder's ``embed/myst.mjs`` (:data:`MYST_FOLDER` stands for its
    published address), the element's markup as the directive's JSON.

    >>> print(myst_snippet("steps", "en"))
    ```{anywidget} https://YOUR-COURSE-SITE/attention/embed/myst.mjs
    {"name": "steps", "lang": "en"}
    ```
    <BLANKLINE>
    """
    if name not in MODULES:
        raise KeyError(f"name must be one of {sorted(MODULES)}, got {name!r}")
    if language not in LANGUAGES:
        raise ValueError(f"language must be one of {list(LANGUAGES)}, got {language!r}")
    body = json.dumps({"name": name, "lang": language})
    return f"```{{anywidget}} {MYST_FOLDER}/embed/myst.mjs\n{body}\n```\n"


def export_element(directory: str | Path, language: str = "zh") -> list[Path]:
    """Write what ``<attention-explorable>`` needs into ``directory``: the script and each explorable's data.

    ``directory/attention-explorable.js`` defines the element; it finds
    ``directory/embed/NAME.zh.js`` and ``NAME.en.js`` (one per registered
    explorable) from its own address, so the folder may sit anywhere in a
    site. :func:`export_site` writes these among the rest; the Sphinx
    extension and the MkDocs plugin (:mod:`attention_explorable.sphinx`,
    :mod:`attention_explorable.mkdocs`) write only these, about 0.3 MB in all
    (docs/embedding.md).

    Parameters
    ----------
    directory : str or Path
        The folder (created if missing; files of the same names replaced).
    language : str
        ``"zh"`` or ``"en"``: the language of a tag whose markup and page name none.

    Returns
    -------
    list of Path
        The files written.

    Raises
    ------
    ValueError
        If ``language`` is unknown, or ``directory`` exists and is not a folder.
    """
    out = _output_folder(directory, language)
    written: list[Path] = []

    def write(relative: str, content: str) -> None:
        path = out / relative
        path.write_text(content, encoding="utf-8")
        written.append(path)

    modules: set[str] = set()
    for name in MODULES:
        for each in LANGUAGES:
            # The element's data, beside attention-explorable.js, by language.
            build = lambda each=each: module_widget(name, each, link_prefix=f"{name}.")  # noqa: E731
            data, scripts = embed_data(build, apps.HTML_LANG[each], name)
            write(f"embed/{name}.{each}.js", data)
            modules.update(scripts)
    write("attention-explorable.js", element_script(sorted(modules), list(MODULES), language))
    # MyST's {anywidget} directive (Jupyter Book 2): a module that puts the element in the widget's element.
    write(
        "embed/myst.mjs", resources.files("attention_explorable").joinpath("web", "dist", "myst.mjs").read_text("utf-8")
    )
    return written
