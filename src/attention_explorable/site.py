"""The static export: the textbook and each explorable as files that open anywhere, with no Python.

``attention-explorable export DIR`` writes::

    DIR/index.html              the textbook page (each explorable and exercise built as it nears the screen)
    DIR/steps.html ...          one page per explorable (steps, vector, matrix, selfcross)
    DIR/assets/                 BokehJS, Panel's JavaScript and CSS: once, shared by every page
    DIR/embed/NAME.html         the snippet an author pastes into a page in DIR (no iframe)
    DIR/embed/NAME.js           the explorable that snippet loads
    DIR/embed/NAME-iframe.html  the iframe an author pastes into a page in DIR, with its resize script
    DIR/embed/resize.js         that resize script (the iframes grow to their content's height)
    DIR/en/index.html ...       the same pages in the other language (DIR/zh/ for an English
                                site), sharing DIR/assets/; each page's language switch links
                                to its twin, keeping the query and the anchor

Each page is the same Bokeh document the server sends, with the same
JavaScript (the explorables' ES modules run by Bokeh's ``CustomJS``), written
with Panel's ``save`` and then pointed at ``assets/`` instead of the CDNs:
nothing is requested from another host, and every page works from ``file://``.

References: docs/architecture.md, "Serving: pages are files, the class is a channel"; docs/embedding.md.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import jinja2
from bokeh.embed import autoload_static
from panel.io.resources import Resources

from . import apps
from .documents import COMPONENTS, Assets, bundled_scripts, document, page_html, quiet_standalone, stable_ids
from .first_paint import CSS as FIRST_PAINT_CSS
from .first_paint import first_paint_html, gate_script
from .explorables import EXPLORABLES, explorable_class
from .native import embed_script, student_page
from .strings import STRINGS, text

__all__ = ["export_site", "build_page", "ExportReport", "pages", "Progress"]


def pages() -> dict[str, str]:
    """Page file -> app name: ``index.html`` the textbook, ``<name>.html`` each registered explorable."""
    return {"index.html": "textbook", **{f"{n}.html": n for n in EXPLORABLES}}


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


#: Bokeh's inline call that needs BokehJS loaded at parse time (only a log level): left out, the
#: scripts being loaded after the first paint.
_LOG_LEVEL = re.compile(r'<(script) type="text/javascript">\s*Bokeh\.set_log_level\("\w+"\);\s*</\1>')
#: The tag of a script file: taken out, ``window.aeLoadScripts`` loads the file after the first paint.
_SCRIPT_TAG = re.compile(r'<script type="text/javascript" src="([^"]+)"></script>')
#: Where Bokeh's embedding waits for the page to be parsed: it waits for the first paint and the scripts.
_ON_PARSED = re.compile(r'if \(document\.readyState != "loading"\) fn\(\);\s*'
                        r'else document\.addEventListener\("DOMContentLoaded", fn, \{once: true\}\);')
#: Bokeh's embedding call, which goes through web/when_seen.js (the textbook's parts as they near the screen).
_EMBED = "root.Bokeh.embed.embed_items(docs_json, render_items);"


def _page(app: str, language: str, title: str, switch_href: str | None) -> str:
    build = (apps.textbook_app if app == "textbook" else lambda *a, **k: apps.explorable_app(app, *a, **k))
    return student_page(lambda: build(language, switch_href=switch_href),
                        title, apps.HTML_LANG[language], text(apps.index_key(app), language))
    variables = {"lang": apps.HTML_LANG[language], "first_paint": first_paint_html(app, language),
                 "first_paint_css": FIRST_PAINT_CSS, "first_paint_gate": gate_script(),
                 "description": text(apps.index_key(app), language)}
    page = page_html(lambda: apps.APPS[app](language, switch_href=switch_href), title,
                     template=apps.page_template(), template_variables=variables)
    # The first paint is the page: the scripts are fetched and evaluated once it is painted
    # (window.aeLoadScripts, web/first_paint.js); then Bokeh's embedding runs.
    page = _LOG_LEVEL.sub("", page)
    scripts = _SCRIPT_TAG.findall(page)
    page = _SCRIPT_TAG.sub("", page)
    if len(_ON_PARSED.findall(page)) != 1:
        raise RuntimeError(f"page {app!r}: Bokeh's wait for the parsed page was not found once; "
                           "web/first_paint.js needs it")
    page = _ON_PARSED.sub(lambda m: f"window.aeLoadScripts({json.dumps(scripts)}, fn);", page)
    if page.count(_EMBED) != 1:
        raise RuntimeError(f"page {app!r}: Bokeh's embedding call was not found once; web/when_seen.js needs it")
    return page.replace(_EMBED, "(window.aeEmbed || root.Bokeh.embed.embed_items)(docs_json, render_items);")


def build_page(app: str, language: str, assets: Assets, *, depth: int = 0,
               other_language_href: str | None = None) -> str:
    """One student page as HTML: the same file for the export and for ``serve``.

    Parameters
    ----------
    app : str
        A key of :data:`attention_explorable.apps.APPS` (``"textbook"``, ``"steps"``, ...).
    language : {"zh", "en"}
        The page's language.
    assets : Assets
        Names the shared scripts and styles the page loads (relative URLs under ``assets/``).
    depth : int
        Folders between the page and ``assets/`` (1 for ``en/steps.html``).
    other_language_href : str, optional
        The language switch's target, a file of the other language (static
        site); None: the switch asks the server with ``?lang=``.

    Deep links, ``?room=`` and ``?embed=1`` are read by the page's scripts,
    so one file serves every query.
    """
    apps.ui.extension()  # the project's page-wide CSS, in every process that builds pages (serve's builder too)
    title = text(apps.title_key(app), language)
    return stable_ids(assets.rewrite(_page(app, language, title, other_language_href), depth), f"{app}-{language}")


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
            self.stream.write(f"\r{self.what} [{'#' * filled}{'.' * (24 - filled)}] "
                              f"{self.done}/{self.total} {label:<24.24} {seconds:5.1f} s{end}")
        else:
            self.stream.write(f"{self.what}: {self.done}/{self.total} {label} ({seconds:.1f} s)\n")
        self.stream.flush()


def _iframe_snippet(name: str, title: str) -> str:
    source = resources.files("attention_explorable").joinpath("templates", "embed-iframe.html").read_text("utf-8")
    return jinja2.Template(source, autoescape=True).render(name=name, title=title)


def export_site(directory: str | Path, language: str = "zh", progress=None) -> ExportReport:
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

    Returns
    -------
    ExportReport
        The files written, their total size and the time taken.

    Raises
    ------
    ValueError
        If ``language`` is unknown, or ``directory`` exists and is not a folder.
    """
    if language not in STRINGS:
        raise ValueError(f"language must be one of {sorted(STRINGS)}, got {language!r}")
    out = Path(directory)
    if out.exists() and not out.is_dir():
        raise ValueError(f"directory {str(out)!r} exists and is not a folder")
    started = time.perf_counter()
    (out / "embed").mkdir(parents=True, exist_ok=True)
    assets = Assets()  # (build_page sets up Panel's extension and the project's CSS)
    report = ExportReport(out)

    def write(relative: str, content: str) -> None:
        path = out / relative
        path.write_text(content, encoding="utf-8")
        report.files.append(path)

    other = apps.OTHER_LANGUAGE[language]
    (out / other).mkdir(exist_ok=True)
    files = pages()
    tell = Progress(2 * len(files) + len(EXPLORABLES), progress, "export")
    for filename, app in files.items():
        write(filename, build_page(app, language, assets, other_language_href=f"{other}/{filename}"))
        tell.step(f"{filename} ({language})")
        write(f"{other}/{filename}", build_page(app, other, assets, depth=1, other_language_href=f"../{filename}"))
        tell.step(f"{other}/{filename}")

    write("embed/resize.js", resources.files("attention_explorable").joinpath("web", "resize.js")
          .read_text("utf-8"))
    for name in EXPLORABLES:
        title = text(apps.title_key(name), language)
        # In an author's page: the explorable alone (no page title, no presenter keys), reading
        # its deep-link parameters behind its name, as on the textbook page (?steps.step=3).
        explorable = lambda: explorable_class(name)(language=language, link_prefix=f"{name}.")  # noqa: E731
        write(f"embed/{name}.js", embed_script(explorable, apps.HTML_LANG[language], name))
        write(f"embed/{name}.html", f'<script src="embed/{name}.js"></script>\n')
        write(f"embed/{name}-iframe.html", _iframe_snippet(name, title))
        tell.step(f"embed/{name}")

    report.files.extend(assets.copy_to(out))
    report.seconds = time.perf_counter() - started
    return report
