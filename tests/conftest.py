"""Shared fixtures: a served app on a free port, and Debian's Chromium."""

from __future__ import annotations

import collections
import copy
import os
import re
import shutil
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
from benchlib import free_port  # noqa: E402  (one rule for the ports of the tests' and the benchmarks' servers)

# Apps that browser tests serve; importing one would build and serve it.
collect_ignore = ["apps"]

#: The files that take longest (seconds summed over their tests, ``--durations=0`` on two cores), handed
#: out first (kept by hand: a file renamed drops out of the order, and only the time shows it). Under ``--dist loadfile`` a file runs on one worker; the README's command passes
#: ``--no-loadscope-reorder``, so pytest-xdist hands the files out in the order collected, which
#: :func:`pytest_collection_modifyitems` makes these first, then the rest by their number of tests (as
#: pytest-xdist would): a long file of few tests, left to the end, kept one worker busy alone for half a minute.
LONGEST_FIRST = (
    "tests/test_benchmarks_smoke.py",
    "tests/browser/test_classroom_browser.py",
    "tests/browser/test_head_browser.py",
    "tests/browser/test_classroom_restarts_browser.py",
    "tests/browser/test_steps_browser.py",
    "tests/browser/test_accessibility.py",
    "tests/classroom/test_faults.py",
    "tests/classroom/test_server.py",
    "tests/browser/test_jupyterlab.py",
    "tests/browser/test_textbook_browser.py",
)


def pytest_collection_modifyitems(config, items):
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    files = [item.nodeid.split("::")[0] for item in items]
    counts = collections.Counter(files)
    order = {id(item): (rank.get(f, len(rank)), -counts[f], f) for item, f in zip(items, files)}
    items.sort(key=lambda item: order[id(item)])  # (stable: a file's tests keep their order)


CHROMIUM = os.environ.get("AE_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-quic",
    "--disable-sync",
    # The address bar's suggestion popups, which Chrome preloads as a web page of its own in every new
    # browser context (chrome://omnibox-popup.top-chrome): about 1.5 CPU-s per context, for a window
    # nobody sees. The pages under test are untouched.
    "--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup",
]
#: Not collected (not even for doctests): importing the test-only explorable registers it,
#: which only tests/browser/test_registry.py does, and undoes.
collect_ignore = ["example_explorable"]
ARTIFACTS = ROOT / "artifacts"


#: A logged report of a write to a websocket the browser had closed: its first line up to the closed-socket error.
_CLOSED_SOCKET = re.compile(
    r"^[^\n]*(?:Task exception was never retrieved|Traceback)[^\n]*\n(?:(?:[ \t]|Traceback|During handling|future:)"
    r"[^\n]*\n)*tornado\.(?:websocket\.WebSocketClosedError|iostream\.StreamClosedError)[^\n]*\n?",
    re.M,
)

#: Bokeh's report of a message it took from a connection that had closed meanwhile (a reload, a closed tab, or
#: a busy machine's backlog of a page's clicks): the connection's session is gone. Not an error of the app.
_CLOSED_SESSION = "assert self._session is not None"
#: A record of the server's log starts with its time.
_RECORD = re.compile(r"^(?=\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)", re.M)


class ServedApp:
    """A ``panel serve`` subprocess on a free port, stopped on close."""

    def __init__(self, *app_files: str, extra_args: tuple[str, ...] = (), cli: bool = False, timeout: float = 60.0):
        self.port = free_port()
        self.names = [Path(a).stem for a in app_files] if not cli else ["textbook"]
        self.log = ARTIFACTS / f"serve-{'-'.join(self.names)}-{self.port}.log"
        ARTIFACTS.mkdir(exist_ok=True)
        self._log_file = open(self.log, "w")
        # cli=True: every app as ``attention-explorable serve`` serves them (with its index at /).
        command = (
            [sys.executable, "-m", "attention_explorable.cli", "serve"]
            if cli
            else [
                sys.executable,
                "-m",
                "panel",
                "serve",
                *[str(ROOT / a) for a in app_files],
                "--allow-websocket-origin",
                f"127.0.0.1:{self.port}",
            ]
        )
        self.proc = subprocess.Popen(
            [*command, "--port", str(self.port), "--address", "127.0.0.1", *extra_args],
            cwd=ROOT,
            stdout=self._log_file,
            stderr=subprocess.STDOUT,
        )
        try:
            self._wait(timeout)
        except BaseException:  # a server that never answered must not outlive the test
            self.close()
            raise

    def serving(self, name: str) -> "ServedApp":
        """This server, with ``url()`` the address of its app ``name`` (the same process and log)."""
        if name not in self.names:
            raise KeyError(f"{name!r} is not served here; these are: {self.names}")
        view = copy.copy(self)
        view.names = [name]
        return view

    def url(self, name: str | None = None) -> str:
        return f"http://127.0.0.1:{self.port}/{name or self.names[0]}"

    def _wait(self, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"panel serve exited early: {self.log.read_text()}")
            try:
                with urllib.request.urlopen(self.url(), timeout=5) as r:
                    if r.status == 200:
                        return
            except OSError:
                time.sleep(0.3)  # the poll's interval, until the server answers
        raise RuntimeError(f"panel serve did not answer within {timeout} s: {self.log.read_text()}")

    def assert_clean_log(self) -> None:
        """Fail if the server logged a traceback or an error.

        Tornado's report of a write to a websocket the browser had just closed
        (a reload, a closed tab; its traceback ends in ``WebSocketClosedError``)
        and Bokeh's of a message taken from such a connection (:data:`_CLOSED_SESSION`)
        are not errors of the app and are left out.
        """
        self._log_file.flush()
        log = _CLOSED_SOCKET.sub("", self.log.read_text())
        log = "".join(record for record in _RECORD.split(log) if _CLOSED_SESSION not in record)
        assert "Traceback" not in log and " ERROR " not in log, log[-4000:]

    def close(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)
        self._log_file.close()


@pytest.fixture(scope="module")
def served_cli(tmp_path_factory):
    """``attention-explorable serve`` on a free port with a class database of its own, every page built.

    Yields the :class:`ServedApp`; its ``log`` is the server's output.
    """
    db = tmp_path_factory.mktemp("serve") / "class.sqlite3"
    app = ServedApp(
        cli=True, extra_args=("--db", f"sqlite:///{db}", "--instructor-key", "served-test-key"), timeout=180
    )
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{app.port}/textbook?lang=en", timeout=60):
            pass  # built last: every page is ready
        yield app
    finally:
        app.close()


def _browser_or_skip():
    if not (os.path.exists(CHROMIUM) or shutil.which(CHROMIUM)):
        reason = f"Chromium not found at {CHROMIUM}"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"{reason}; under CI=true browser tests must run", pytrace=False)
        pytest.skip(reason)
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as exc:  # pragma: no cover - depends on the install
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"playwright is not installed: {exc}", pytrace=False)
        pytest.skip(f"playwright is not installed: {exc}")
    return sync_playwright


@pytest.fixture(scope="session")
def chromium():
    """A headless Debian Chromium driven by Playwright (session-wide)."""
    sync_playwright = _browser_or_skip()
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


#: Resolves once the document's size has been the same for ``n`` animation frames in a row.
_STILL = """(n) => new Promise((done) => {
  let last = "", same = 0;
  const tick = () => {
    const d = document.documentElement, now = `${d.scrollWidth}x${d.scrollHeight}`;
    same = now === last ? same + 1 : 0;
    last = now;
    if (same >= n) done(true); else requestAnimationFrame(tick);
  };
  tick();
})"""


class StudentPage:
    """A page plus the console errors and page errors it produced."""

    def __init__(self, browser, width: int = 1280, height: int = 900, mobile: bool = False):
        phone = {"is_mobile": True, "has_touch": True, "device_scale_factor": 3} if mobile else {}
        self.context = browser.new_context(viewport={"width": width, "height": height}, locale="zh-CN", **phone)
        self.page = self.context.new_page()
        self.errors: list[str] = []
        # Each error names the page it came from (a test may hold several pages).
        self.page.on(
            "console", lambda m: self.errors.append(f"{m.text} [{self.page.url}]") if m.type == "error" else None
        )
        self.page.on("pageerror", lambda e: self.errors.append(f"{e} [{self.page.url}] {getattr(e, 'stack', '')}"))
        self.external_requests: list[str] = []
        self.page.on("request", self._note_request)

    def _note_request(self, request) -> None:
        host = urllib.parse.urlsplit(request.url).hostname or ""
        if request.url.startswith(("http:", "https:", "ws:", "wss:")) and host not in ("127.0.0.1", "localhost"):
            self.external_requests.append(request.url)

    def open(self, url: str, ready_selector: str) -> None:
        """Open ``url`` and wait for ``ready_selector``."""
        self.page.goto(url, wait_until="load")
        self.page.wait_for_selector(ready_selector, timeout=30_000)

    def cut_network(self) -> list[str]:
        """Abort every request of this page that is not ``file:``, ``data:`` or ``blob:`` from now on.

        Returns the list the aborted requests' URLs are added to.
        """
        aborted: list[str] = []

        def route(r):
            if r.request.url.startswith(("file:", "data:", "blob:")):
                r.continue_()
            else:
                aborted.append(r.request.url)
                r.abort()

        self.page.route("**/*", route)
        self.errors_to_ignore = ("Failed to load resource",)
        return aborted

    def open_offline(self, path: Path, ready_selector: str, suffix: str = "") -> list[str]:
        """Open the saved page ``path`` from ``file://`` with every other request aborted.

        ``suffix`` follows the file's URL: a query and an anchor (``?step=3#top``).
        Returns the list the aborted requests' URLs are added to.
        """
        aborted = self.cut_network()
        self.open(Path(path).resolve().as_uri() + suffix, ready_selector)
        return aborted

    def screenshot(self, name: str) -> Path:
        ARTIFACTS.mkdir(exist_ok=True)
        path = ARTIFACTS / f"{name}.png"
        # One image pixel per CSS pixel: a phone's page at three device pixels per CSS pixel made
        # images of 12 MB that took seconds to encode, and show nothing more to a reader.
        # A whole textbook on a phone is a tall image: on a loaded machine it can take more than
        # Playwright's 30 s to capture, and a picture for a reader is no reason to fail a test.
        self.page.screenshot(path=str(path), full_page=True, scale="css", timeout=120_000)
        # A full-page capture lays the whole page out at once (its sections are
        # ``content-visibility: auto``); a click aimed before the page has its own size again can
        # land beside its button.
        self.page.wait_for_function(_STILL, arg=3, timeout=30_000)
        return path

    def assert_clean(self) -> None:
        body = self.page.inner_text("body")
        assert "Traceback" not in body, body[:2000]
        ignore = getattr(self, "errors_to_ignore", ())
        errors = [e for e in self.errors if not any(i in e for i in ignore)]
        assert not errors, errors

    def assert_fits_phone(self, name: str, still_frames: int = 10) -> None:
        """No horizontal scrolling at this width; save a screenshot ``name``; no errors.

        Measured once the page's size has stayed the same for ``still_frames`` frames in a row (a served
        page grows as its parts arrive).
        """
        self.page.wait_for_function(_STILL, arg=still_frames, timeout=60_000)
        width = self.page.evaluate("document.documentElement.scrollWidth")
        viewport = self.page.viewport_size["width"]
        assert width <= viewport + 2, f"page is {width} px wide in a {viewport} px viewport"
        self.screenshot(name)
        self.assert_clean()

    def close(self) -> None:
        self.context.close()


@pytest.fixture
def student(chromium):
    pages = []

    def make(width: int = 1280, height: int = 900, mobile: bool = False) -> StudentPage:
        p = StudentPage(chromium, width, height, mobile)
        pages.append(p)
        return p

    yield make
    for p in pages:
        p.close()


@pytest.fixture(scope="session")
def static_site(tmp_path_factory, worker_id):
    """The static site as ``attention-explorable export`` writes it (Chinese; English in ``en/``), once per test
    run: the processes of ``pytest -n`` share it (the first to ask exports it, the others wait for it). Read
    only: a test that adds a file removes it."""
    from filelock import FileLock

    from attention_explorable.site import export_site

    base = tmp_path_factory.getbasetemp()
    if worker_id != "master":
        base = base.parent  # the run's folder, above each process's own
    site, done = base / "static-site", base / "static-site.done"
    with FileLock(str(site) + ".lock"):
        if not done.is_file():
            shutil.rmtree(site, ignore_errors=True)  # a process stopped in the middle of an export
            export_site(site, language="zh")
            done.touch()
    return site
