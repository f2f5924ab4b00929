"""Bokeh documents as files: built, their stylesheets shared, their assets named or inlined.

The pieces the page builders (:mod:`attention_explorable.site`, both the
export and ``serve``) and an explorable's own ``save`` share:

* :func:`document`: a fresh Bokeh document holding a Panel component,
  each CSS text in it once (:func:`share_stylesheets`);
* :class:`Assets`: every CDN address in a page replaced by a file of the
  installed Panel or BokehJS, named ``assets/<folder>/<name>.<hash>.<ext>``
  (:meth:`Assets.rewrite`) or carried inside the page as a ``data:`` URL
  (:meth:`Assets.inline`), so that nothing is asked of another host;
* :func:`stable_ids`: Bokeh's random ids replaced by ids derived from the page;
* :func:`bundled_scripts`: the scripts a page loads: one file,
  ``web/dist/bokeh-panel.min.js``, with only the BokehJS and Panel models the
  pages use (``scripts/bokeh-panel.js``), instead of BokehJS, its widgets and
  tables parts and Panel's script.

References: docs/architecture.md, "Serving: pages are files, the class is a channel".
"""

from __future__ import annotations

import base64
import json
import hashlib
import io
import logging
import mimetypes
import re
import shutil
import uuid
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

import bokeh
import panel as pn
from bokeh.document import Document
from bokeh.models import InlineStyleSheet
from bokeh.util.paths import bokehjs_path
from panel.io.model import add_to_doc
from panel.io.resources import CDN_DIST, Resources
from panel.io.state import set_curdoc

__all__ = ["Assets", "COMPONENTS", "bundled_scripts", "document", "page_bundle", "page_html", "quiet_standalone",
           "share_stylesheets", "stable_ids", "standalone_page"]

_log = logging.getLogger(__name__)

_BOKEH_CDN = "https://cdn.bokeh.org/bokeh/release/"
_PANEL_DIST = ("panel", Path(pn.__file__).parent / "dist")
#: The package's own built scripts, named in a page as if they were on a CDN, until
#: :meth:`Assets.rewrite` or :meth:`Assets.inline` gives them their place.
_WEB_DIST = "attention-explorable:web/dist/"
WEB_DIST = Path(__file__).parent / "web" / "dist"
_CDNS = {CDN_DIST: _PANEL_DIST, f"https://unpkg.com/@holoviz/panel@{pn.__version__}/dist/": _PANEL_DIST,
         _BOKEH_CDN: ("bokeh", Path(bokehjs_path()) / "js"), _WEB_DIST: ("attention-explorable", WEB_DIST)}
#: The BokehJS parts a page would load without the page bundle (:func:`page_bundle`): no MathJax
#: (formulas are MathML) and no WebGL (plots draw on a canvas); Panel's own script needs the tables part.
COMPONENTS = ["bokeh", "bokeh-widgets", "bokeh-tables"]
#: The scripts the page bundle stands for: BokehJS and its parts, Panel's script, and the
#: ES-module shims Panel loads for its ESM components (the pages have none).
_BUNDLED = re.compile(r"(^|/)(bokeh(-[a-z]+)?(-\d[\w.]*)?(\.min)?|panel(\.min)?|es-module-shims(\.min)?)\.js$")
_URL = re.compile("(" + "|".join(re.escape(prefix) for prefix in _CDNS) + r")([^\"'\s?)\\]+)(\?[^\"'\s)\\]*)?")



@lru_cache(maxsize=None)
def page_bundle() -> str | None:
    """The address of the page bundle (``web/dist/bokeh-panel.min.js``), or None when it cannot serve.

    The bundle is BokehJS and Panel's models as ``scripts/build-web.mjs``
    built them, from the versions ``web/dist/bokeh-panel.json`` records. A
    BokehJS must match the Python Bokeh that wrote the document exactly: with
    another Bokeh or Panel installed than the one the bundle was built from,
    this logs a warning and returns None, and the pages load BokehJS and
    Panel's own scripts (:data:`COMPONENTS`), as Panel does.
    """
    manifest = json.loads((WEB_DIST / "bokeh-panel.json").read_text("utf-8"))
    built, installed = (manifest["bokeh"], manifest["panel"]), (bokeh.__version__, pn.__version__)
    if built != installed:
        _log.warning("web/dist/bokeh-panel.min.js was built for Bokeh %s and Panel %s, but Bokeh %s and "
                     "Panel %s are installed: the pages load BokehJS and Panel's own scripts (2.7 MB) instead",
                     *built, *installed)
        return None
    return _WEB_DIST + manifest["file"]


def bundled_scripts(source: str) -> str:
    """``source`` (a page, or an embed's loading script) loading the page bundle instead of the scripts it stands for.

    Panel writes a script tag (in an embed's script, an address in its
    list) for the ES-module shims, BokehJS, its widgets and tables parts and
    Panel's script; the first becomes the page bundle (:func:`page_bundle`),
    the others go. Unchanged when the bundle cannot serve.
    """
    bundle = page_bundle()
    if bundle is None:
        return source
    urls = dict.fromkeys(m.group(0) for m in _URL.finditer(source) if _BUNDLED.search(m.group(2)))
    for i, url in enumerate(urls):
        if i == 0:
            source = source.replace(url, bundle)
            continue
        quoted = re.escape(f'"{url}"')
        source = re.sub(rf"<script[^>]*\ssrc={quoted}[^>]*>\s*</script>\s*", "", source)
        source = re.sub(rf"{quoted},\s*|,\s*{quoted}", "", source)
    if "es-module-shims" not in source:  # the shims' settings, without the shims
        source = source.replace('<script type="esms-options">{"shimMode": true}</script>', "")
    return source


class Assets:
    """The shared files pages load (BokehJS, Panel's script and CSS), under content-hashed names.

    :meth:`rewrite` replaces every CDN address in a page with
    ``assets/<folder>/<name>.<hash>.<ext>``: a name that changes whenever the
    file does, so a browser may keep it for good (served with a long
    ``immutable`` cache) and never runs a stale copy. ``files`` maps each
    such relative URL to the package file it names; the export copies them,
    the server serves them from memory.
    """

    def __init__(self):
        self.files: dict[str, Path] = {}
        self._names: dict[tuple[str, str], str] = {}

    def _file(self, prefix: str, rest: str) -> str:
        key = (prefix, rest)
        if key not in self._names:
            folder, source = _CDNS[prefix]
            if prefix == _BOKEH_CDN:  # the CDN names carry the version; the package's files do not
                rest = rest.replace(f"-{bokeh.__version__}", "")
            origin = source / rest
            if not origin.is_file():
                raise FileNotFoundError(f"asset {prefix}{rest} has no file at {origin}")
            digest = _content_hash(origin)
            name = Path(rest)
            relative = f"assets/{folder}/{name.parent / f'{name.stem}.{digest}{name.suffix}'}".replace("/./", "/")
            self.files[relative] = origin
            self._names[key] = relative
        return self._names[key]

    def rewrite(self, source: str, depth: int = 0) -> str:
        """``source`` with every CDN address replaced by its file under ``assets/`` (``depth`` folders up)."""
        up = "../" * depth
        return _URL.sub(lambda m: up + self._file(m.group(1), m.group(2)), source)

    def inline(self, source: str) -> str:
        """``source`` with every CDN address replaced by the file itself, as a ``data:`` URL.

        For a page that must work as one file, offline (an explorable's
        ``save``): its scripts and stylesheets travel inside it.
        """
        return _URL.sub(lambda m: _data_url(self.files[self._file(m.group(1), m.group(2))]), source)

    def copy_to(self, directory: Path) -> list[Path]:
        """Copy every file named so far into ``directory``; return the paths written."""
        written = []
        for relative, origin in self.files.items():
            target = directory / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(origin, target)
            written.append(target)
        return written


@lru_cache(maxsize=None)
def _data_url(path: Path) -> str:
    """The file at ``path`` as a base64 ``data:`` URL (read once per process)."""
    media = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    return f"data:{media};base64,{base64.b64encode(path.read_bytes()).decode('ascii')}"


@lru_cache(maxsize=None)
def _content_hash(path: Path) -> str:
    """The first 12 hex digits of the SHA-256 of the file at ``path`` (read once per process)."""
    return hashlib.sha256(path.read_bytes()).hexdigest()[:12]


@contextmanager
def quiet_standalone():
    # Bokeh warns that Python callbacks cannot run in a standalone file: true, and meant;
    # everything a reader does runs in JavaScript there.
    log = logging.getLogger("bokeh.embed.util")
    level = log.level
    log.setLevel(logging.ERROR)
    try:
        yield
    finally:
        log.setLevel(level)


def document(build) -> Document:
    """A fresh document holding ``build()`` (built as for a reader with no server)."""
    doc = Document()
    # The document takes stock of its models once, not after each root (a textbook's parts, an
    # explorable's plots): each stock-taking walks every model.
    with set_curdoc(doc), doc.models.freeze():
        root = pn.panel(build()).get_root(doc)
        add_to_doc(root, doc, True)
    share_stylesheets(doc)
    return doc


def share_stylesheets(doc: Document) -> None:
    """Make every model of ``doc`` refer to one ``InlineStyleSheet`` per CSS text.

    Panel gives each component its own copy of the page-wide CSS (the loading
    spinner's, the project's) and each readout carries the readouts' CSS: the
    textbook's document held about a hundred copies of each. Shared, the file
    holds each once and every model refers to it.
    """
    shared: dict[str, InlineStyleSheet] = {}
    with doc.models.freeze():  # the document takes stock of its models once, not after every change
        for model in sorted(doc.models, key=lambda m: m.id):  # in a fixed order: the same page, the same file
            sheets = getattr(model, "stylesheets", None)
            if sheets and any(isinstance(s, str) for s in sheets):
                model.stylesheets = [shared.setdefault(s, InlineStyleSheet(css=s)) if isinstance(s, str) else s
                                     for s in sheets]


_UUID = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b")


def stable_ids(page: str, name: str) -> str:
    """``page`` with Bokeh's random document and element ids replaced by ids derived from ``name``.

    The same page built twice (two servers behind one proxy, two exports) is
    then the same file, byte for byte, with the same ``ETag``.
    """
    ids: dict[str, str] = {}
    return _UUID.sub(lambda m: ids.setdefault(m.group(0), str(uuid.uuid5(uuid.NAMESPACE_URL,
                                                                         f"{name}/{len(ids)}"))), page)


def page_html(build, title: str, **save_options) -> str:
    """``build()`` in a fresh document, saved as a page (Panel's ``save``) whose resources are CDN addresses.

    Its scripts are the page bundle (:func:`bundled_scripts`).
    The addresses are then named (:meth:`Assets.rewrite`) or inlined (:meth:`Assets.inline`) by the
    caller; ``save_options`` go to Panel's ``save`` (a template and its variables).
    """
    buffer = io.StringIO()
    with quiet_standalone():
        pn.io.save.save(document(build), buffer, title=title, resources=Resources(mode="cdn", components=COMPONENTS),
                        **save_options)
    return bundled_scripts(buffer.getvalue())


def standalone_page(build, title: str, language: str = "zh") -> str:
    """``build()`` (a Panel component) as one HTML page that works offline, from any folder.

    BokehJS, Panel's script and every stylesheet are carried inside the page
    (:meth:`Assets.inline`): opened from ``file://`` with no network, it asks
    nothing of any host. About 1.3 MB, most of it the page bundle.

    Parameters
    ----------
    build : callable
        Returns the component (called once, with a fresh document current).
    title : str
        The page's ``<title>``.
    language : {"zh", "en"}
        The page's language, for ``<html lang>``.
    """
    page = Assets().inline(page_html(build, title))
    lang = {"zh": "zh-Hans"}.get(language, language)
    page = re.sub(r"<html( lang=\"[^\"]*\")?", f'<html lang="{lang}"', page, count=1)
    return stable_ids(page, f"standalone/{title}")
