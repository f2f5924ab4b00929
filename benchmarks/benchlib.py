"""Shared pieces of the benchmarks: served apps, a Bokeh protocol client, statistics.

Everything here targets loopback only (``127.0.0.1``).  Every loop is bounded
in count and in time, and every server a benchmark starts is stopped by the
same benchmark (``Served`` is a context manager that terminates its process
group, also on errors and Ctrl-C).

The protocol client speaks Bokeh's websocket protocol the way BokehJS does in
a browser tab: it requests the page (which creates the server session and
carries the session token), opens ``/<app>/ws`` with the subprotocols
``["bokeh", token]``, pulls the document (``PULL-DOC-REQ``), announces
``document_ready`` (which marks the session as connected for Panel), and then
sends ``PATCH-DOC`` messages with ``ModelChanged`` events exactly as a
browser does when a student moves a slider: the explorable's controls are
drawn in the browser (``syncable=False``), and the one model whose changes
travel is the explorable's state model (``<Name>ExplorerState``, a Bokeh
``DataModel``), so a slider step is one ``ModelChanged`` of that model's
property (``score_diff``...).  Bokeh's server answers every ``PATCH-DOC``
with an ``OK`` message whose ``reqid`` is the request's ``msgid``, once it
has applied the change and run the explorable's callbacks:
:func:`apply_state` times that.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import platform
import random
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = os.environ.get("AE_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    # The address bar's suggestion popups, which Chrome preloads as a web page of its own in every new
    # browser context (chrome://omnibox-popup.top-chrome): about 1.5 CPU-s per context, for a window
    # nobody sees. The pages under test are untouched.
    "--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup",
]
HOST = "127.0.0.1"


# --- statistics ---------------------------------------------------------------


def percentile(values: list[float], q: float) -> float:
    """The ``q``-th percentile (linear interpolation, like numpy's default)."""
    if not values:
        return float("nan")
    xs = sorted(values)
    pos = (len(xs) - 1) * q / 100.0
    lo = int(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def has_slider(page: Path) -> bool:
    """Whether the exported page ``page`` has a range slider (an arrow key on it is the key measured);
    a page whose explorable has buttons only (self/cross, qkv, contexts) is measured without a key."""
    return "type='range'" in Path(page).read_text(encoding="utf-8")


#: The explorables whose controls wait for the student's prediction (views/choice.py ``lock``, the steps'
#: sliders until the step is demonstrated): a benchmark presses them as a student past the question meets
#: them, opened by a link's ``revealed=true``.
ASKS_FIRST = ("steps", "vector", "matrix", "selfcross", "qkv")


def past_question(url: str) -> str:
    """``url`` with ``revealed=true`` added to its query when its page is one explorable that asks first
    (``.../vector.html``, a served ``/vector``), else ``url`` as it is. (The textbook is pressed as it opens:
    its first explorable, the steps, leaves its values' sliders open before the prediction, and a query
    would keep the page hidden until its script has set the state the query names.)"""
    name = url.split("?")[0].split("#")[0].rstrip("/").rsplit("/", 1)[-1].removesuffix(".html")
    return url + ("&" if "?" in url else "?") + "revealed=true" if name in ASKS_FIRST else url


def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


# --- the machine ----------------------------------------------------------------


def machine_info() -> dict[str, str]:
    """nproc, CPU model, RAM, OS, Python and the serving stack's versions."""
    import bokeh
    import panel
    import tornado

    cpu = "?"
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    ram = "?"
    with contextlib.suppress(OSError, ValueError, IndexError):
        kb = int(Path("/proc/meminfo").read_text().split("MemTotal:")[1].split()[0])
        ram = f"{kb / 1024 / 1024:.1f} GiB"
    os_name = platform.platform()
    with contextlib.suppress(OSError):
        for line in Path("/etc/os-release").read_text().splitlines():
            if line.startswith("PRETTY_NAME="):
                os_name = line.split("=", 1)[1].strip('"')
    return {
        "nproc": str(os.cpu_count()),
        "cpu": cpu,
        "ram": ram,
        "os": os_name,
        "python": platform.python_version(),
        "panel": panel.__version__,
        "bokeh": bokeh.__version__,
        "tornado": tornado.version,
        "load": " ".join(f"{x:.2f}" for x in os.getloadavg()),
    }


def print_machine() -> None:
    m = machine_info()
    print(
        f"machine: {m['nproc']} cores, {m['cpu']}, {m['ram']}, {m['os']}, Python {m['python']}, "
        f"panel {m['panel']}, bokeh {m['bokeh']}, tornado {m['tornado']}, load {m['load']}",
        flush=True,
    )


# --- served apps -------------------------------------------------------------------


#: Ports a server of the benchmarks and tests listens on: below Linux's ephemeral range (32768-60999 by
#: default), which the kernel hands to every outgoing connection. A port from that range, free when picked,
#: can be taken by a browser's or a client's connection while its server restarts (after a SIGKILL), and
#: the restarted server then cannot listen.
SERVER_PORTS = range(20_000, 32_000)


def free_port() -> int:
    """A port no socket holds now, on every address, outside the range outgoing connections take."""
    for port in random.sample(SERVER_PORTS, 200):
        with socket.socket() as s:
            try:
                s.bind(("0.0.0.0", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port in {SERVER_PORTS.start}-{SERVER_PORTS.stop - 1}")


def proc_rss_kb(pid: int) -> int:
    """Resident set size of one process, in KiB (``VmRSS`` in /proc/PID/status)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for pid {pid}")


def proc_cpu_seconds(pid: int) -> float:
    """User + system CPU time of one process so far, in seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def children_pids(pid: int) -> list[int]:
    out = []
    with contextlib.suppress(OSError):
        for task in Path(f"/proc/{pid}/task").iterdir():
            with contextlib.suppress(OSError):
                out += [int(c) for c in (task / "children").read_text().split()]
    return out


@dataclass
class Served:
    """``panel serve`` of some ``apps/*.py`` on a free loopback port, in its own process group.

    Parameters
    ----------
    apps : list of str
        App names (``steps``, ``textbook``...): files ``apps/<name>.py``.
    extra : list of str
        Further ``panel serve`` arguments (``--num-procs 2``...).
    """

    apps: list[str]
    extra: list[str] = field(default_factory=list)
    port: int = 0
    log_path: Path | None = None
    proc: subprocess.Popen | None = None
    origins: list[str] = field(default_factory=list)

    def __enter__(self) -> Served:
        import tempfile

        self.port = self.port or free_port()
        fd, name = tempfile.mkstemp(prefix=f"ae-bench-{self.port}-", suffix=".log")
        os.close(fd)
        self.log_path = Path(name)
        origins = [f"{HOST}:{self.port}", f"localhost:{self.port}", *self.origins]
        cmd = [
            sys.executable,
            "-m",
            "panel",
            "serve",
            *[str(ROOT / "apps" / f"{a}.py") for a in self.apps],
            "--address",
            HOST,
            "--port",
            str(self.port),
            *[arg for o in origins for arg in ("--allow-websocket-origin", o)],
            *self.extra,
        ]
        self._log = open(self.log_path, "wb")  # noqa: SIM115
        self.proc = subprocess.Popen(
            cmd, cwd=ROOT, stdout=self._log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True
        )
        try:
            self.wait_ready()
        except BaseException:
            self.close()
            raise
        return self

    def url(self, app: str | None = None) -> str:
        return f"http://{HOST}:{self.port}/{app or self.apps[0]}"

    def wait_ready(self, timeout: float = 90.0) -> None:
        deadline = time.monotonic() + timeout
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"panel serve exited early:\n{self.log_tail()}")
            try:
                with urllib.request.urlopen(self.url(), timeout=30) as r:
                    r.read()
                return
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"panel serve not ready in {timeout} s:\n{self.log_tail()}") from None
                time.sleep(0.2)

    def pids(self) -> list[int]:
        """The server process and its worker processes (``--num-procs``)."""
        return [self.proc.pid, *children_pids(self.proc.pid)]

    def rss_mb(self) -> float:
        return sum(proc_rss_kb(p) for p in self.pids() if Path(f"/proc/{p}").exists()) / 1024

    def cpu_seconds(self) -> float:
        return sum(proc_cpu_seconds(p) for p in self.pids() if Path(f"/proc/{p}").exists())

    def log_tail(self, n: int = 4000) -> str:
        with contextlib.suppress(OSError):
            self._log.flush()
            return self.log_path.read_text(errors="replace")[-n:]
        return ""

    def log_errors(self) -> list[str]:
        """Error lines of the server log, one per traceback (its last line).

        A traceback that ends in ``WebSocketClosedError`` is tornado reporting
        a write to a tab that had just been closed (Bokeh does not collect
        that task's exception); it is not an error of the app and is left out.
        """
        lines = self.log_tail(10_000_000).splitlines()
        errors, i = [], 0
        while i < len(lines):
            line = lines[i]
            if line.startswith("Traceback") or "Task exception was never retrieved" in line:
                j = i + 1
                while j < len(lines) and (
                    lines[j].startswith((" ", "Traceback", "During handling"))
                    or not lines[j].strip()
                    or not lines[j][:4].isdigit()
                ):
                    j += 1
                block = lines[i:j]
                last = next((b for b in reversed(block) if b.strip()), line)
                if "WebSocketClosedError" not in last and "StreamClosedError" not in last:
                    errors.append(last.strip())
                i = j
                continue
            if " ERROR " in line or "Exception" in line:
                errors.append(line.strip())
            i += 1
        return errors

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(15)
        with contextlib.suppress(Exception):
            self._log.close()

    def __exit__(self, *exc) -> None:
        errors = self.log_errors() if self.log_path is not None else []
        self.close()
        if self.log_path is None:
            return
        if exc[0] is None and not errors:
            with contextlib.suppress(OSError):
                self.log_path.unlink()
        else:
            print(f"server log kept: {self.log_path}", file=sys.stderr)


# --- the Bokeh protocol client ------------------------------------------------------


class ProtocolError(RuntimeError):
    pass


def _msgid() -> str:
    return uuid.uuid4().hex.upper()


@dataclass
class Received:
    header: dict
    metadata: dict
    content: dict
    t: float  # time.perf_counter() when the last fragment arrived
    buffers: list = field(default_factory=list)


def walk_models(obj: Any, models: dict[str, dict]) -> None:
    """Collect every serialized Bokeh model ``{"type": "object", "id": ...}`` in ``obj``."""
    if isinstance(obj, dict):
        if obj.get("type") == "object" and "id" in obj and "attributes" in obj:
            models.setdefault(obj["id"], obj)
        for v in obj.values():
            walk_models(v, models)
    elif isinstance(obj, list):
        for v in obj:
            walk_models(v, models)


def child_ids(model: dict) -> list[str]:
    """Ids of every model referenced from ``model``'s attributes."""
    out: list[str] = []

    def visit(x):
        if isinstance(x, dict):
            if "id" in x and (x.get("type") == "object" or set(x) == {"id"}):
                out.append(x["id"])
                return
            for v in x.values():
                visit(v)
        elif isinstance(x, list):
            for v in x:
                visit(v)

    visit(model.get("attributes", {}))
    return out


def css_classes(model: dict) -> list[str]:
    return list(model.get("attributes", {}).get("css_classes") or [])


class BokehSession:
    """One browser-like session: page request, websocket, pulled document.

    Use :meth:`open` (a coroutine) to create one; all I/O runs on the current
    asyncio loop.  ``listeners`` are called with each received message.
    """

    def __init__(self, base: str, app: str, user_agent: str = "ae-benchmark"):
        self.base = base.rstrip("/")
        self.app = app
        self.user_agent = user_agent
        self.cookies: dict[str, str] = {}
        self.ws = None
        self.models: dict[str, dict] = {}
        self.listeners: list = []
        self.errors: list[str] = []
        self._reader: asyncio.Task | None = None
        self._pending: dict[str, asyncio.Future] = {}
        self.closed = False

    @classmethod
    async def open(
        cls,
        base: str,
        app: str,
        timeout: float = 60.0,
        user_agent: str = "ae-benchmark",
        query: str = "",
        cookies: dict[str, str] | None = None,
    ) -> BokehSession:
        """Open a session of ``app`` (the page at ``base/app?query``, then its websocket).

        ``cookies`` are sent with the page request and the websocket, as a
        browser sends the cookies it holds.
        """
        self = cls(base, app, user_agent)
        self.query = query
        self.cookies.update(cookies or {})
        await asyncio.wait_for(self._open(), timeout)
        return self

    async def _open(self) -> None:
        from tornado.httpclient import AsyncHTTPClient, HTTPRequest
        from tornado.websocket import websocket_connect

        client = AsyncHTTPClient()
        query = getattr(self, "query", "")
        page_headers = {"User-Agent": self.user_agent}
        if self.cookies:
            page_headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        page = await client.fetch(
            f"{self.base}/{self.app}" + (f"?{query}" if query else ""), request_timeout=60, headers=page_headers
        )
        # Like a browser: keep the cookies the page sets (a reverse proxy's
        # sticky-session cookie) and send them with the websocket upgrade.
        for header in page.headers.get_list("Set-Cookie"):
            name, _, rest = header.partition("=")
            self.cookies[name.strip()] = rest.split(";", 1)[0]
        html = page.body.decode()
        m = re.search(r'"token"\s*:\s*"([^"]+)"', html)
        if not m:
            raise ProtocolError("no session token in the served page")
        token = m.group(1)
        host = self.base.split("://", 1)[1]
        headers = {"Origin": self.base, "User-Agent": self.user_agent}
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        request = HTTPRequest(f"ws://{host}/{self.app}/ws", headers=headers, connect_timeout=30, request_timeout=60)
        self.ws = await websocket_connect(request, subprotocols=["bokeh", token], max_message_size=64 * 1024 * 1024)
        # Like a browser: no Nagle delay on the client's small frames either.
        self.ws.stream.set_nodelay(True)
        self._reader = asyncio.ensure_future(self._read_loop())
        ack = await self.request(None, expect="ACK")
        del ack
        reply = await self.request(("PULL-DOC-REQ", {}), expect="PULL-DOC-REPLY")
        walk_models(reply.content.get("doc", {}), self.models)
        # What BokehJS sends once the document is rendered: Panel marks the
        # session as connected on it (state._on_load).
        await self.send(
            "PATCH-DOC",
            {
                "events": [
                    {
                        "kind": "MessageSent",
                        "msg_type": "bokeh_event",
                        "msg_data": {"type": "event", "name": "document_ready", "values": {"type": "map"}},
                    }
                ]
            },
        )

    async def _read_loop(self) -> None:
        try:
            while True:
                header_raw = await self.ws.read_message()
                if header_raw is None:
                    break
                header = json.loads(header_raw)
                metadata = json.loads(await self.ws.read_message())
                content_raw = await self.ws.read_message()
                buffers = []
                for _ in range(int(header.get("num_buffers", 0) or 0)):
                    bh = await self.ws.read_message()
                    payload = await self.ws.read_message()
                    buffers.append((bh, payload))
                msg = Received(header, metadata, json.loads(content_raw), time.perf_counter(), buffers)
                for key in (msg.header.get("msgtype"), "reqid:" + str(msg.header.get("reqid"))):
                    fut = self._pending.pop(key, None)
                    if fut is not None and not fut.done():
                        fut.set_result(msg)
                if msg.header.get("msgtype") == "ERROR":
                    self.errors.append(str(msg.content)[:500])
                for listener in list(self.listeners):
                    listener(msg)
        except Exception as exc:  # noqa: BLE001 - recorded, reported by the caller
            if not self.closed:
                self.errors.append(f"read loop: {exc!r}")
        finally:
            for fut in self._pending.values():
                if not fut.done():
                    fut.set_exception(ProtocolError("connection closed"))
            if not self.closed:
                self.errors.append("connection closed by the server")

    async def request(self, msg: tuple[str, dict] | None, expect: str, timeout: float = 60.0) -> Received:
        fut = asyncio.get_running_loop().create_future()
        self._pending[expect] = fut
        if msg is not None:
            await self.send(*msg)
        return await asyncio.wait_for(fut, timeout)

    async def send(self, msgtype: str, content: dict, msgid: str | None = None) -> str:
        """Send one message (header, metadata, content frames); return its ``msgid``."""
        msgid = msgid or _msgid()
        header = json.dumps({"msgid": msgid, "msgtype": msgtype})
        await self.ws.write_message(header)
        await self.ws.write_message("{}")
        await self.ws.write_message(json.dumps(content))
        return msgid

    async def patch(self, events: list[dict], timeout: float = 60.0) -> Received:
        """Send a ``PATCH-DOC`` with ``events``; return the server's answer to it (``OK`` or ``ERROR``)."""
        msgid = _msgid()
        fut = asyncio.get_running_loop().create_future()
        self._pending[f"reqid:{msgid}"] = fut
        await self.send("PATCH-DOC", {"events": events}, msgid)
        return await asyncio.wait_for(fut, timeout)

    # --- finding models ---
    def find(self, css: str, within: str | None = None, type_name: str | None = None) -> str:
        """Id of the first model carrying CSS class ``css`` (below model ``within``)."""
        ids = self.descendants(within) if within else list(self.models)
        for mid in ids:
            model = self.models.get(mid)
            if model and css in css_classes(model) and (type_name is None or model["name"].endswith(type_name)):
                return mid
        raise ProtocolError(f"no model with CSS class {css!r}")

    def descendants(self, root: str) -> list[str]:
        out, stack, seen = [], [root], set()
        while stack:
            mid = stack.pop(0)
            if mid in seen or mid not in self.models:
                continue
            seen.add(mid)
            out.append(mid)
            stack.extend(child_ids(self.models[mid]))
        return out

    def first_of_type(self, root: str, suffix: str) -> str:
        for mid in self.descendants(root):
            if self.models[mid]["name"].split(".")[-1] == suffix:
                return mid
        raise ProtocolError(f"no {suffix} model below {root}")

    def value(self, model_id: str, attr: str) -> Any:
        return self.models[model_id]["attributes"].get(attr)

    async def close(self) -> None:
        self.closed = True
        if self.ws is not None:
            self.ws.close()
        if self._reader is not None:
            with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError, Exception):
                await asyncio.wait_for(self._reader, 5)
        if self.ws is not None and self.ws.stream is not None:
            # A busy server may not finish the close handshake in time: close the socket
            # here rather than leave it to tornado's timer, which the loop may not outlive.
            with contextlib.suppress(Exception):
                self.ws.stream.close()


def patched_attrs(msg: Received) -> set[tuple[str, str]]:
    """``(model id, attr)`` of every model change carried by a PATCH-DOC message."""
    out = set()
    if msg.header.get("msgtype") != "PATCH-DOC":
        return out
    for ev in msg.content.get("events", []):
        model = ev.get("model")
        if isinstance(model, dict) and "id" in model:
            out.add((model["id"], ev.get("attr", "data")))
    return out


@dataclass
class StateTarget:
    """One property of a model (a slider's value), and the bounds of the slider that sets it."""

    model: str
    attr: str
    start: float
    end: float
    step: float
    value: float


def slider_target(
    session: BokehSession, slider_css: str = "ae-score-diff", scope_css: str | None = None
) -> StateTarget:
    """The slider of CSS class ``slider_css`` (a live explorable's, drawn from Python): its ``value``,
    bounds and step.

    ``scope_css`` limits the search to the model carrying that class. The browser sends the slider's
    new value; the explorable's Python sets its parameter and draws the rest.
    """
    within = session.find(scope_css) if scope_css else None
    slider = session.find(slider_css, within=within, type_name="Slider")
    a = session.models[slider]["attributes"]
    value = a.get("value", 0.0)
    return StateTarget(
        slider,
        "value",
        float(a.get("start", -10)),
        float(a.get("end", 10)),
        float(a.get("step", 0.1)),
        float(value if value is not None else 0.0),
    )


async def apply_state(session: BokehSession, target: StateTarget, value: float, timeout: float = 30.0) -> float:
    """Set ``target``'s property to ``value`` as a browser does; return ms until the server's ``OK``.

    The ``OK`` (``reqid`` = this ``PATCH-DOC``'s ``msgid``) is written once
    the server has applied the change to the document and run every callback
    of the state model (the explorable's parameters follow).

    Raises
    ------
    ProtocolError
        If the server answers with anything but ``OK`` (an ``ERROR``).
    asyncio.TimeoutError
        If no answer comes within ``timeout`` seconds.
    """
    t0 = time.perf_counter()
    reply = await session.patch(
        [{"kind": "ModelChanged", "model": {"id": target.model}, "attr": target.attr, "new": value}], timeout=timeout
    )
    if reply.header.get("msgtype") != "OK":
        raise ProtocolError(f"{reply.header.get('msgtype')} for {target.attr}={value}: {str(reply.content)[:300]}")
    return (reply.t - t0) * 1000


def next_value(target: StateTarget, k: int) -> float:
    """The slider value after ``k`` key presses, bouncing between the bounds."""
    span = int(round((target.end - target.start) / target.step))
    base = int(round((target.value - target.start) / target.step))
    pos = (base + k) % (2 * span)
    pos = pos if pos <= span else 2 * span - pos
    return round(target.start + pos * target.step, 10)
