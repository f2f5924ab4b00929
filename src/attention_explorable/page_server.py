"""Student pages as files, served from memory: what ``attention-explorable serve`` answers students with.

Each student page (``/textbook``, ``/steps``, ``/vector``, ``/matrix``,
``/selfcross``, ``/qkv``, ``/contexts``, in Chinese and English) is built once by the export's own
builder (:func:`attention_explorable.site.build_page`) and kept in memory,
gzipped, with an ``ETag``; the product's index at ``/`` likewise. A page
request costs a lookup: no Bokeh session, no Python per student. The page's
scripts read the deep link, ``?embed=1`` and ``?room=`` in the browser, as
the exported files do; a page in a room talks to the server over the class
socket only (:mod:`attention_explorable.classroom.channel`).

The language is the request's ``?lang=zh|en``, else the reader's remembered
choice (the ``ae-lang`` cookie the language switch sets), else Chinese.

Each page holds its styles and scripts, but the textbook, which loads its explorables' modules from
``/attention-textbook.js`` (:data:`attention_explorable.native.TEXTBOOK_SCRIPT`, answered from memory likewise).

:class:`PageCache` builds the pages in a process of its own while the
server already answers: a request for a page not built yet waits for it.
The pages are kept on disk between starts; servers started together on one
machine build them once (the first builds, the others wait for it and read
its pages).
"""

from __future__ import annotations

import asyncio
import functools
import gzip
import hashlib
import html
import importlib
import logging
import multiprocessing
import os
import re
import shutil
import sys
import tempfile
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import bokeh
import panel
import platformdirs
from filelock import FileLock, Timeout
from tornado.web import HTTPError, RequestHandler

from . import apps, site
from .content import CONTENT_DIR
from .explorables import registering_modules
from .modules import MODULES
from .notebooks import NOTEBOOKS
from .strings import DEFAULT_LANGUAGE, STRINGS

log = logging.getLogger(__name__)

#: How many builds (of other code, text or libraries) are kept beside the newest in the cache folder.
KEEP_BUILDS = 4
#: How long a start waits for another server building the same pages (s); then it builds them itself.
BUILD_WAIT_S = 300.0


#: The page's own policy (its ``<meta http-equiv="Content-Security-Policy">``).
_META_POLICY = re.compile(rb'<meta http-equiv="Content-Security-Policy" content="([^"]*)">')

#: What a served page's header adds to its own policy, which a ``<meta>`` cannot say: only pages of this
#: server may frame it (no other site can put a student's class page under its own, a clickjacking).
FRAME_ANCESTORS = "frame-ancestors 'self'"


@dataclass(frozen=True)
class File:
    """A file held in memory: its bytes, gzipped bytes, media type, ETag and Content-Security-Policy.

    ``policy`` is the header's value: a page's own policy (its meta tag,
    :func:`attention_explorable.native.content_security_policy`) and
    :data:`FRAME_ANCESTORS`; ``""`` for a file that has none.
    """

    body: bytes
    gzipped: bytes
    media_type: str
    etag: str
    policy: str = ""

    @classmethod
    def of(cls, body: bytes, media_type: str) -> File:
        digest = hashlib.sha256(body).hexdigest()[:20]
        found = _META_POLICY.search(body) if media_type.startswith("text/html") else None
        policy = html.unescape(found.group(1).decode()) + "; " + FRAME_ANCESTORS if found else ""
        return cls(body, gzip.compress(body, 9, mtime=0), media_type, f'"{digest}"', policy)


def _builder_setup(server: int, modules: list[str]) -> None:
    """In the builder process: register the explorables ``modules`` register (those from outside the
    package), and exit when the server that started it is gone (killed mid-build, say)."""
    for module in modules:
        importlib.import_module(module)

    def watch():
        while os.getppid() == server:
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=watch, name="leave-with-server", daemon=True).start()


def _build(app: str, language: str) -> str:
    """Build one page (in the builder process): its HTML."""
    return site.build_page(app, language)


def default_cache_dir() -> Path:
    """Where built pages are kept between starts: the user's cache folder (``~/.cache/attention-explorable/pages``)."""
    return Path(platformdirs.user_cache_dir("attention-explorable")) / "pages"


def build_key() -> str:
    """A key of everything a page is made from: this package's files, the course text, Panel's and Bokeh's versions.

    Any change to the code, the text or the libraries gives another key, so
    a kept page is never stale.
    """
    # The libraries' versions: a page is built by them.
    digest = hashlib.sha256(
        f"{sys.version}|{bokeh.__version__}|{bokeh.__file__}|{panel.__version__}|{panel.__file__}".encode()
    )
    package = Path(__file__).resolve().parent
    files = [f for f in package.rglob("*") if f.is_file() and "__pycache__" not in f.parts]
    files += [f for f in CONTENT_DIR.resolve().rglob("*.md")]
    for f in sorted(set(files)):
        digest.update(str(f.relative_to(f.parents[1])).encode())
        digest.update(f.read_bytes())
    for name, explorable in MODULES.items():  # what an explorable from outside brings (the package's are above)
        if explorable.bundle is not None:
            digest.update(f"{name}|{explorable.widget}|{sorted(explorable.strings.items())!r}".encode())
            digest.update(Path(explorable.bundle).read_bytes())
    return digest.hexdigest()[:24]


class PageCache:
    """Every student page in every language, built once (see the module docstring).

    Parameters
    ----------
    cache_dir : Path, optional
        Where built pages are kept between starts (:func:`default_cache_dir`
        for ``serve``); None keeps nothing.
    only : sequence of str, optional
        The pages to build, by URL path (``("steps",)``); default every app
        of the registry (:data:`attention_explorable.apps.APPS`). Raises
        ValueError naming an unknown one.

    ``get(app, language)`` answers a built page at once and waits for one
    still being built. :meth:`build` builds them all (in the calling thread);
    :meth:`start` does it in a thread of its own, saying how far it is on
    ``progress`` (a text stream, or None).
    """

    def __init__(self, cache_dir: Path | None = None, only: tuple[str, ...] | list[str] | None = None):
        every = tuple(dict.fromkeys((*MODULES, *apps.APPS)))
        unknown = [app for app in (only or ()) if app not in every]
        if unknown:
            raise ValueError(f"only must name pages among {list(every)}, got {unknown!r}")
        self.cache_dir = cache_dir
        self.pages: dict[tuple[str, str], File] = {}
        self.index: dict[str, File] = {
            lang: File.of(apps.index_html(lang).encode(), "text/html; charset=UTF-8") for lang in STRINGS
        }
        self.failed: BaseException | None = None
        self.seconds = 0.0
        #: The pages, by URL path (the apps of the registry when the cache was made), each in every language.
        self.apps = tuple(only) if only else every
        self._ready: dict[tuple[str, str], threading.Event] = {
            (app, lang): threading.Event() for app in self.apps for lang in STRINGS
        }

    def order(self) -> list[tuple[str, str]]:
        """The order pages are built in: each page in Chinese and English, the single explorables first."""
        textbook = [app for app in self.apps if app == "textbook"]
        return [(app, lang) for app in (*(a for a in self.apps if a != "textbook"), *textbook) for lang in STRINGS]

    def build(self, progress=None) -> None:
        """Build every page, one after the other, in a process of its own; keep each as it comes.

        The builder process keeps Panel's and Bokeh's page-building state
        (resource modes, the document being built) away from the server's
        own live sessions, and works on the other core. The pages are also
        written to :attr:`cache_dir`, under a key of everything they are made
        from, so the next start of this installation (a restart in the middle
        of a class) reads them instead of building them again.
        """
        started = time.perf_counter()
        lock = self._lock()
        try:
            if lock is None or not self._load_cached(progress):
                self._build_all(progress)
        finally:
            if lock is not None:
                lock.release()
            self.seconds = time.perf_counter() - started

    def _lock(self) -> FileLock | None:
        """This build's lock in the cache folder, held; None without a cache folder or when it cannot be had.

        One builder at a time per build on this machine: a server started while another builds the
        same pages waits for them (a class's servers started together, a test suite's), then reads them.
        """
        if self.cache_dir is None:
            return None
        lock = FileLock(str(self._cached()) + ".lock")
        try:
            self.cache_dir.mkdir(parents=True, exist_ok=True)
            lock.acquire(timeout=BUILD_WAIT_S)
        except (OSError, Timeout) as exc:  # a folder that cannot be written, or a builder that never ends
            log.warning("pages: not kept between starts (%s: %s); building them here", type(exc).__name__, exc)
            return None
        return lock

    def _build_all(self, progress) -> None:
        tell = site.Progress(len(self._ready), progress, "building pages")
        context = multiprocessing.get_context("spawn")
        # A fixed hash seed in the builder: the page's sets are written in one order, so every
        # server builds the same bytes (one ETag for a page behind a proxy with several backends).
        seed = os.environ.get("PYTHONHASHSEED")
        os.environ["PYTHONHASHSEED"] = "0"
        built: dict[str, str] = {}
        try:
            with ProcessPoolExecutor(
                max_workers=1,
                mp_context=context,
                initializer=_builder_setup,
                initargs=(os.getpid(), registering_modules()),
            ) as pool:
                for (app, lang), future in [(key, pool.submit(_build, *key)) for key in self.order()]:
                    page = future.result()
                    self._keep(app, lang, page)
                    built[f"{app}-{lang}"] = page
                    tell.step(f"/{app} ({lang})")
            self._store_cached(built)
        except BaseException as exc:  # every waiting request must hear of it, not wait forever
            self.failed = exc
            for event in self._ready.values():
                event.set()
            raise
        finally:
            if seed is None:
                os.environ.pop("PYTHONHASHSEED", None)
            else:
                os.environ["PYTHONHASHSEED"] = seed

    # --- the pages kept on disk between starts -------------------------------------------------
    @functools.cached_property
    def _key(self) -> str:
        """This cache's key (:func:`build_key`, read once: it reads every file of the package)."""
        only = (
            "" if self.apps == tuple(dict.fromkeys((*MODULES, *apps.APPS))) else "-" + "+".join(self.apps)
        )  # a subset is kept apart
        return build_key() + only

    def _cached(self) -> Path:
        return self.cache_dir / self._key

    def _load_cached(self, progress) -> bool:
        folder = self._cached()
        try:
            pages = {key: (folder / f"{key[0]}-{key[1]}.html").read_text("utf-8") for key in self.order()}
        except (OSError, ValueError):
            return False  # nothing kept, or not whole: build
        for (app, lang), page in pages.items():
            self._keep(app, lang, page)
        if progress is not None:
            progress.write(f"pages: {len(pages)} read from {folder}\n")
            progress.flush()
        return True

    def _store_cached(self, built: dict[str, str]) -> None:
        if self.cache_dir is None:
            return
        folder, staging = self._cached(), None
        try:
            self.cache_dir.mkdir(parents=True, exist_ok=True)
            staging = Path(tempfile.mkdtemp(prefix=folder.name + ".", dir=self.cache_dir))
            for name, page in built.items():
                (staging / f"{name}.html").write_text(page, "utf-8")
            staging.rename(folder)  # whole or not at all; another server may have written it meanwhile
        except OSError:  # a cache that cannot be written costs the next start a build, nothing more
            if staging is not None:
                shutil.rmtree(staging, ignore_errors=True)
            return
        self._prune()

    def _prune(self) -> None:
        """Remove all but the :data:`KEEP_BUILDS` newest other builds from the cache folder.

        A build removed here (of another version, or of another checkout on
        this machine) costs that one's next start a build, nothing more.
        """
        current = self._cached().name
        others = []
        for folder in self.cache_dir.iterdir():
            if folder.is_dir() and folder.name != current and "." not in folder.name:
                try:
                    others.append((folder.stat().st_mtime, folder))
                except OSError:
                    continue
        for _mtime, folder in sorted(others, reverse=True)[KEEP_BUILDS:]:
            shutil.rmtree(folder, ignore_errors=True)
            Path(str(folder) + ".lock").unlink(missing_ok=True)

    def _keep(self, app: str, lang: str, page: str) -> None:
        self.pages[(app, lang)] = File.of(page.encode(), "text/html; charset=UTF-8")
        self._ready[(app, lang)].set()

    def start(self, progress=None) -> threading.Thread:
        """Build every page (:meth:`build`) while the server answers; return the thread that waits for them."""

        def run():
            try:
                self.build(progress)
            except Exception:  # noqa: BLE001 - said once, on one line; each request then answers 500
                log.error("building the pages failed: %s", sys.exc_info()[1])

        thread = threading.Thread(target=run, name="page-builder", daemon=True)
        thread.start()
        return thread

    async def get(self, app: str, language: str) -> File:
        """The page ``app`` in ``language``, waiting for it if it is still being built."""
        event = self._ready[(app, language)]
        while not event.is_set():
            await asyncio.sleep(0.05)
        page = self.pages.get((app, language))
        if page is None:
            raise HTTPError(500, reason="the page could not be built")
        return page


def reader_language(handler: RequestHandler) -> str:
    """The language a request asks for: ``?lang=``, else the ``ae-lang`` cookie, else Chinese."""
    asked = handler.get_argument("lang", None)
    if asked in STRINGS:
        return asked
    remembered = handler.get_cookie(apps.LANGUAGE_COOKIE)
    return remembered if remembered in STRINGS else DEFAULT_LANGUAGE


def accepts_gzip(accept_encoding: str | None) -> bool:
    """Whether an ``Accept-Encoding`` header takes gzip (RFC 9110, 12.5.3): named, or covered by ``*``,
    with a quality above 0 (``gzip;q=0`` refuses it).

    >>> accepts_gzip("gzip, deflate, br"), accepts_gzip("gzip;q=0, *"), accepts_gzip("*;q=0.5"), accepts_gzip(None)
    (True, False, True, False)
    """
    qualities = {}
    for part in (accept_encoding or "").split(","):
        name, *params = [p.strip() for p in part.split(";")]
        q = 1.0
        for param in params:
            key, _, value = param.partition("=")
            if key.strip().lower() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        if name:
            qualities[name.lower()] = q
    q = qualities.get("gzip", qualities.get("x-gzip", qualities.get("*", 0.0)))
    return q > 0


class _FileHandler(RequestHandler):
    """Answers a :class:`File`: gzipped when the client takes it, 304 for a matching ``If-None-Match``."""

    def send(self, file: File, cache: str, vary: str = "Accept-Encoding") -> None:
        self.set_header("Content-Type", file.media_type)
        self.set_header("Cache-Control", cache)
        self.set_header("ETag", file.etag)
        self.set_header("Vary", vary)
        self.set_header("X-Content-Type-Options", "nosniff")
        if file.policy:
            self.set_header("Content-Security-Policy", file.policy)
        if self.check_etag_header():  # Tornado's reading of If-None-Match (lists, weak tags, "*")
            self.set_status(304)
            return self.finish()
        body = file.body
        if accepts_gzip(self.request.headers.get("Accept-Encoding")):
            self.set_header("Content-Encoding", "gzip")
            body = file.gzipped
        if self.request.method == "HEAD":  # the headers a GET would get, no body
            self.set_header("Content-Length", len(body))
            return self.finish()
        return self.finish(body)

    def compute_etag(self) -> None:  # ours is the file's, set above
        return None


class PageHandler(_FileHandler):
    """``/textbook``, ``/steps``, ...: the prebuilt page in the reader's language."""

    def initialize(self, pages: PageCache) -> None:
        self.pages = pages

    async def get(self, app: str) -> None:
        language = reader_language(self)
        page = await self.pages.get(app, language)
        self.send(page, "no-cache", "Accept-Encoding, Cookie")

    head = get


class IndexHandler(_FileHandler):
    """``/``: this product's index of its pages, in the reader's language (``?lang=`` is remembered)."""

    def initialize(self, pages: PageCache) -> None:
        self.pages = pages

    def get(self) -> None:
        asked = self.get_argument("lang", None)
        if asked in STRINGS:
            self.set_cookie(apps.LANGUAGE_COOKIE, asked, path="/", expires_days=365, samesite="Lax")
        self.send(self.pages.index[reader_language(self)], "no-cache", "Accept-Encoding, Cookie")

    head = get


class NotebookHandler(_FileHandler):
    """``/notebooks/attention-sec-3-7-zh.ipynb``: a section's notebook, which the textbook links beside it
    (:func:`attention_explorable.notebooks.notebook_href`); made once, from the course text."""

    def get(self, section_id: str, language: str) -> None:
        if section_id not in _section_ids(language):
            raise HTTPError(404)
        self.send(_notebook_file(section_id, language), "no-cache")

    head = get


class TextbookScriptHandler(_FileHandler):
    """``/attention-textbook.js`` (also ``/textbook/attention-textbook.js``): the textbook's script file, the same in both languages."""

    def get(self) -> None:
        self.send(_textbook_script_file(), "no-cache")

    head = get


@lru_cache(maxsize=None)
def _textbook_script_file() -> File:
    from .native import textbook_script

    return File.of(textbook_script().encode("utf-8"), "text/javascript; charset=utf-8")


@lru_cache(maxsize=None)
def _section_ids(language: str) -> frozenset[str]:
    from .content import load_sections

    return frozenset(s.id for s in load_sections(language))


@lru_cache(maxsize=None)
def _notebook_file(section_id: str, language: str) -> File:
    from .notebooks import notebook_json

    return File.of(notebook_json(section_id, language).encode("utf-8"), "application/x-ipynb+json")


def patterns(pages: PageCache) -> list[tuple]:
    """The routes of the student pages, the index and the textbook's notebooks."""
    names = "|".join(pages.apps)
    languages = "|".join(STRINGS)
    return [
        (r"/", IndexHandler, {"pages": pages}),
        (rf"/({names})/?", PageHandler, {"pages": pages}),
        # (also below a page's own path: a link on /textbook/ resolves there)
        (rf"/(?:(?:{names})/)?{NOTEBOOKS}/attention-(sec-[0-9]+-[0-9]+)-({languages})\.ipynb", NotebookHandler),
        *([(r"/(?:textbook/)?attention-textbook\.js", TextbookScriptHandler)] if "textbook" in pages.apps else []),
    ]
