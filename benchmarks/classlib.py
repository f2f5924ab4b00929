"""The class over the wire: a served ``attention-explorable serve``, students and an instructor as protocol clients.

Shared by ``benchmarks/classroom_room.py`` and the class's tests. A
:class:`ClassStudent` is what a student's browser tab is to the server: the
page request, its websocket, the pulled document, and then the messages the
page's ``web/classroom.js`` sends: the anonymous id (a ``ModelChanged`` of
the ``ClassroomLink`` model's ``student_id``) and each submission (its
``submission``, JSON ``{"seq", "step", "value"}``). The server answers with a
``PATCH-DOC`` setting the link's ``receipt``, written once the prediction is
committed: :meth:`ClassStudent.submit` times click to receipt, which is what
the student's "已提交" waits for. Every message a student receives is kept
(``received``), so a test can check that none carries another student's
prediction.

An :class:`InstructorClient` logs in through the form (``POST
/instructor/login``), keeps the cookie, opens ``/instructor?room=CODE`` and
follows the count of predictions (``ae-prediction-count``) as the server
pushes it.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

from benchlib import HOST, BokehSession, ProtocolError, Received, free_port

#: asyncio's report of a websocket write whose socket closed first, its traceback to its last line.
_CLOSED_WRITE = re.compile(
    r"ERROR:asyncio:Task exception was never retrieved\n"
    r"future: <Task finished [^\n]*coro=<WebSocketProtocol13\.write_message[^\n]*exception=WebSocketClosedError\(\)>\n"
    r"(?:(?:Traceback|  |During handling|tornado\.iostream\.StreamClosedError)[^\n]*\n|\n)*"
    r"tornado\.websocket\.WebSocketClosedError\n"
)

ROOT = Path(__file__).resolve().parents[1]
KEY = "class-test-secret-42"


def allow_many_requests(n: int = 256) -> None:
    """Let tornado's HTTP client open ``n`` pages at once (its default queues all but 10)."""
    from tornado.httpclient import AsyncHTTPClient

    AsyncHTTPClient.configure(None, max_clients=n)


allow_many_requests()


class ClassServer:
    """``attention-explorable serve`` on a free loopback port, in its own process group.

    Parameters
    ----------
    db : str
        The database URL (``--db``).
    extra : list of str
        More ``serve`` options (``--num-procs 2``, ``--max-sessions-per-client 3``...).
    port : int
        A port to reuse (a restart after a kill); 0 picks a free one.
    """

    def __init__(self, db: str, extra: list[str] | None = None, port: int = 0, key: str = KEY):
        self.db, self.extra, self.key = db, list(extra or []), key
        self.port = port or free_port()
        self.proc: subprocess.Popen | None = None
        fd, name = tempfile.mkstemp(prefix=f"ae-class-{self.port}-", suffix=".log")
        os.close(fd)
        self.log_path = Path(name)

    @property
    def base(self) -> str:
        return f"http://{HOST}:{self.port}"

    def start(self, timeout: float = 90.0) -> ClassServer:
        cmd = [
            sys.executable,
            "-m",
            "attention_explorable.cli",
            "serve",
            "--address",
            HOST,
            "--port",
            str(self.port),
            "--db",
            self.db,
            *self.extra,
        ]
        self._log = open(self.log_path, "ab")  # noqa: SIM115
        self.proc = subprocess.Popen(
            cmd,
            cwd=ROOT,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
            env={**os.environ, "AE_INSTRUCTOR_KEY": self.key},  # (not on the command line: ps shows it)
        )
        deadline = time.monotonic() + timeout
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"serve exited early:\n{self.log()[-3000:]}")
            try:  # an address that opens no session (a redirect to the login form's page)
                with urllib.request.build_opener(_NoRedirect).open(f"{self.base}/instructor/login", timeout=30):
                    pass
                return self
            except urllib.error.HTTPError as err:
                err.close()
                return self
            except OSError:
                if time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError(f"serve not ready in {timeout} s:\n{self.log()[-3000:]}") from None
                time.sleep(0.2)

    def log(self) -> str:
        with contextlib.suppress(OSError):
            return self.log_path.read_text(errors="replace")
        return ""

    def log_errors(self) -> list[str]:
        """Lines of the log that report a traceback or an error.

        Left out, as ``benchlib.Server.log_errors`` does: asyncio's "Task exception was never retrieved"
        for a write to a websocket that had just closed (``WebSocketClosedError``), which Bokeh's server
        leaves unread when the instructor's Panel page goes while it is sent to (its
        "Failed sending message as connection was closed" warnings come first). The class socket reads
        its own writes' outcome (``tests/classroom/test_logs.py`` holds it to that).
        """
        text = re.sub(_CLOSED_WRITE, "", self.log())
        return [line for line in text.splitlines() if "Traceback" in line or " ERROR " in line or "Exception" in line]

    def kill(self) -> None:
        """SIGKILL the server and its workers: no clean-up runs, as in a crash or a pulled plug."""
        if self.proc is not None and self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(15)
        self._drop_clean_log()

    def _drop_clean_log(self) -> None:
        """Close the log, and remove it when it holds no error (else it stays for a look)."""
        with contextlib.suppress(Exception):
            self._log.close()
        if not self.log_errors():
            with contextlib.suppress(OSError):
                self.log_path.unlink()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.kill()
        self._drop_clean_log()

    def __enter__(self) -> ClassServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


# --- the instructor ---------------------------------------------------------------------


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def login_form(base: str, cookies: dict[str, str] | None = None) -> tuple[dict[str, str], str]:
    """GET the login form as a browser does: (its cookies with the ``_xsrf`` one, the form's ``_xsrf`` token)."""
    status, headers, body = http_get(f"{base}/instructor/login", cookies)
    found = re.search(r"name='_xsrf' value='([^']+)'", body)
    if status != 200 or not found:
        raise ProtocolError(f"login form answered {status} without its token")
    jar = dict(cookies or {})
    for line in headers.get("Set-Cookie", "").split("\n"):
        name, _, rest = line.partition("=")
        if name.strip() == "_xsrf":
            jar["_xsrf"] = rest.split(";", 1)[0]
    return jar, html.unescape(found.group(1))


def post_login(
    base: str, key: str, room: str = "", language: str = "", cookies: dict[str, str] | None = None, form: bool = True
) -> tuple[int, dict, str]:
    """POST the login form (in ``language`` when given) as a browser does, its form page fetched first
    (``form=False``: the post alone, as another site's page would make it); return (status, headers,
    body) without following the redirect. ``headers["Set-Cookie"]`` holds every cookie set, one a line."""
    jar, token = login_form(base, cookies) if form else (dict(cookies or {}), "")
    fields = {
        "key": key,
        "room": room,
        **({"language": language} if language else {}),
        **({"_xsrf": token} if token else {}),
    }
    request = urllib.request.Request(f"{base}/instructor/login", data=urllib.parse.urlencode(fields).encode())
    if jar:
        request.add_header("Cookie", "; ".join(f"{k}={v}" for k, v in jar.items()))
    opener = urllib.request.build_opener(_NoRedirect)
    try:
        with opener.open(request, timeout=30) as r:
            return r.status, _headers(r.headers), r.read().decode()
    except urllib.error.HTTPError as err:
        with err:
            return err.code, _headers(err.headers), err.read().decode()


def _headers(message) -> dict[str, str]:
    """A response's headers as a dict, every ``Set-Cookie`` kept (one a line)."""
    out = dict(message)
    cookies = message.get_all("Set-Cookie") or []
    if cookies:
        out["Set-Cookie"] = "\n".join(cookies)
    return out


def cookies_set(headers: dict) -> dict[str, str]:
    """name -> value of every cookie a response set (``headers`` as :func:`post_login` gives them)."""
    jar = {}
    for line in headers.get("Set-Cookie", "").split("\n"):
        name, _, rest = line.partition("=")
        if name.strip():
            jar[name.strip()] = rest.split(";", 1)[0]
    return jar


def login_cookie(base: str, key: str = KEY) -> dict[str, str]:
    """The instructor's cookie, as the login form's answer sets it."""
    status, headers, _ = post_login(base, key)
    if status != 303:
        raise ProtocolError(f"login answered {status}")
    return {"ae_instructor": cookies_set(headers)["ae_instructor"]}


def http_get(url: str, cookies: dict[str, str] | None = None) -> tuple[int, dict, str]:
    headers = {"Cookie": "; ".join(f"{k}={v}" for k, v in (cookies or {}).items())} if cookies else {}
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=30) as r:
            return r.status, _headers(r.headers), r.read().decode()
    except urllib.error.HTTPError as err:
        with err:
            return err.code, _headers(err.headers), err.read().decode()


def _text_of(value) -> str:
    return value if isinstance(value, str) else ""


class InstructorClient:
    """An instructor's ``/instructor?room=CODE`` session, following the count of predictions."""

    def __init__(self, session: BokehSession):
        self.session = session
        self.count_model = next(
            mid
            for mid, m in session.models.items()
            if "ae-prediction-count" in _text_of(m.get("attributes", {}).get("text"))
        )
        self.count = self._parse(session.value(self.count_model, "text"))
        self.changes: list[tuple[float, int]] = []  # (perf_counter, count) as pushed
        session.listeners.append(self._watch)

    @staticmethod
    def _parse(text: str) -> int:
        m = re.search(r"(\d+)", re.sub(r"<[^>]*>|&lt;.*?&gt;", " ", text or ""))
        return int(m.group(1)) if m else -1

    def _watch(self, msg: Received) -> None:
        if msg.header.get("msgtype") != "PATCH-DOC":
            return
        for ev in msg.content.get("events", []):
            if (
                ev.get("kind") == "ModelChanged"
                and ev.get("model", {}).get("id") == self.count_model
                and ev.get("attr") == "text"
            ):
                self.count = self._parse(ev.get("new"))
                self.changes.append((msg.t, self.count))

    @classmethod
    async def open(cls, base: str, code: str, cookies: dict[str, str]) -> InstructorClient:
        session = await BokehSession.open(base, "instructor", query=f"room={code}", cookies=cookies, timeout=120)
        return cls(session)

    async def wait_count(self, n: int, timeout: float = 10.0) -> float:
        """Wait until the pushed count is ``n``; return the perf_counter time it arrived."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for t, c in self.changes:
                if c == n:
                    return t
            if self.count == n and not self.changes:
                return time.perf_counter()
            await asyncio.sleep(0.02)
        raise asyncio.TimeoutError(f"the instructor's count stayed {self.count}, not {n}")

    async def close(self) -> None:
        await self.session.close()


# --- students ---------------------------------------------------------------------------


class ClassStudent:
    """One student's tab in room ``code``: the page's request, then its class socket (see the module docstring)."""

    def __init__(self, socket, student_id: str, code: str):
        self.socket = socket
        self.student_id = student_id
        self.code = code
        self.seq = 0
        self.joined: dict | None = None  # the server's "joined" message
        self.refused: str | None = None  # the reason of a refused join
        self.receipts: list[dict] = []  # each receipt, with "t" (perf_counter at arrival)
        self.news: list[dict] = []  # each "room" message: the instructor's step, a new round
        self.received: list[str] = []  # every message, as text
        self.closed: tuple[int | None, str | None] | None = None  # (code, reason) once the server closed it
        self._waiting: dict[int, asyncio.Future] = {}
        self._first = asyncio.get_running_loop().create_future()
        self._reader = asyncio.ensure_future(self._read())

    async def _read(self) -> None:
        while True:
            text = await self.socket.read_message()
            t = time.perf_counter()
            if text is None:
                self.closed = (self.socket.close_code, self.socket.close_reason)
                for fut in [self._first, *self._waiting.values()]:
                    if not fut.done():
                        fut.set_exception(ProtocolError(f"socket closed: {self.closed}"))
                return
            self.received.append(text)
            data = json.loads(text)
            if data.get("type") == "joined":
                self.joined = data
                self.student_id = data.get("student") or self.student_id  # the id the server gave
            elif data.get("type") == "refused":
                self.refused = data.get("reason")
            elif data.get("type") == "room":
                self.news.append(data)
            elif data.get("type") == "receipt":
                data["t"] = t
                self.receipts.append(data)
                fut = self._waiting.pop(data.get("seq", -1), None)
                if fut is not None and not fut.done():
                    fut.set_result(data)
            if not self._first.done():
                self._first.set_result(data)

    @property
    def step(self) -> int | None:
        """The step the student's page shows as the server told it (the room's, when it follows the instructor)."""
        step = None
        for message in [self.joined or {}, *self.news]:
            if message.get("follow"):
                step = message.get("step")
        return step

    @property
    def stored_id(self) -> str:
        """The student as the database holds it (the id the server gave, without its signature)."""
        return self.student_id.split("-", 1)[0]

    @property
    def restored(self) -> dict | None:
        """The stored prediction the server handed back on joining (``{"step", "value"}``), or None."""
        return (self.joined or {}).get("prediction")

    @classmethod
    async def open(
        cls,
        base: str,
        code: str,
        student_id: str,
        app: str = "steps",
        origin: str | None = None,
        address: str | None = None,
    ) -> ClassStudent:
        """Ask for the page (``/<app>?room=CODE``), open its class socket and join; wait for the answer.

        ``address``: the loopback address to come from (``127.0.0.7``), as a
        lecture hall's devices each have their own.
        """
        from tornado.httpclient import AsyncHTTPClient, HTTPRequest
        from tornado.websocket import websocket_connect

        page = await AsyncHTTPClient().fetch(
            HTTPRequest(
                f"{base}/{app}?room={urllib.parse.quote(code)}",
                headers={"Accept-Encoding": "gzip"},
                request_timeout=60,
                network_interface=address,
                decompress_response=False,
            )
        )
        if page.code != 200:
            raise ProtocolError(f"/{app} answered {page.code}")
        url = base.replace("http://", "ws://") + "/class/socket"
        socket = await websocket_connect(
            HTTPRequest(url, headers={"Origin": origin or base}, network_interface=address, connect_timeout=30)
        )
        self = cls(socket, student_id, code)
        await self.send({"type": "join", "room": code, "student": student_id})
        await asyncio.wait_for(asyncio.shield(self._first), 30)
        return self

    async def send(self, message: dict | str) -> None:
        text = message if isinstance(message, str) else json.dumps(message, allow_nan=True)
        await self.socket.write_message(text)

    async def submit(self, step: int, value, timeout: float = 10.0, raw: str | None = None) -> tuple[dict, float]:
        """Submit ``value`` for ``step``; return (the receipt, ms from sending to the receipt).

        ``raw``: a message no page sends, as text; when the server closes the
        socket for it, the "receipt" is ``{"closed": code, "reason": ...}``.
        """
        self.seq += 1
        seq = self.seq
        if raw is not None:
            try:
                parsed = json.loads(raw)
                seq = parsed.get("seq", 0) if isinstance(parsed, dict) and isinstance(parsed.get("seq"), int) else 0
            except ValueError:
                seq = 0
        fut = asyncio.get_running_loop().create_future()
        self._waiting[seq] = fut
        t0 = time.perf_counter()
        try:
            await self.send(raw if raw is not None else {"type": "submit", "seq": seq, "step": step, "value": value})
        except Exception:
            self._waiting.pop(seq, None)  # never sent: no receipt to wait for (nor a loss to report later)
            raise
        try:
            receipt = await asyncio.wait_for(fut, timeout)
        except ProtocolError:
            if self.closed is None:
                raise
            return {"closed": self.closed[0], "reason": self.closed[1]}, (time.perf_counter() - t0) * 1000
        return receipt, (receipt["t"] - t0) * 1000

    async def close(self) -> None:
        self.socket.close()  # also after the server closed it: the client lets go of its protocol
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._reader, 5)


def loopback(i: int) -> str:
    """The ``i``-th student's own loopback address: 127.0.0.2, 127.0.0.3, ... (as a lecture hall's devices)."""
    return f"127.0.{(i + 2) // 250}.{(i + 2) % 250 or 250}"


async def open_students(bases: list[str], code: str, n: int, run: str, concurrency: int = 0) -> list[ClassStudent]:
    """``n`` students in room ``code``, spread over the servers ``bases``, each from its own loopback address.

    ``concurrency`` pages at a time (0: all at the same moment, as a lecture hall does when the
    instructor says "open the page now").
    """
    sem = asyncio.Semaphore(concurrency or n or 1)

    async def one(i: int) -> ClassStudent:
        async with sem:
            return await ClassStudent.open(bases[i % len(bases)], code, student_id(i, run), address=loopback(i))

    return list(await asyncio.gather(*(one(i) for i in range(n))))


def student_id(i: int, run: str = "") -> str:
    """An id of the old, unsigned form (32 hex digits): the server answers it with a new id of its own,
    as for a first visit (:attr:`ClassStudent.student_id` is then that one)."""
    return f"{run}{i:0{32 - len(run)}x}"[:32]
