"""Check serving beyond one process: nginx in front of two ``attention-explorable serve`` on one PostgreSQL.

Everything runs on loopback, in temporary directories, and is stopped by this
script: a throwaway PostgreSQL (``tests/postgres.py``), two ``serve``
backends on one database of it (``--use-xheaders``, the proxy's name as an
allowed origin, the same instructor secret), and nginx (``daemon off``, its
own prefix, pid and logs in a temporary directory; nothing under ``/etc`` is
used) with the server block of ``docs/deploy.md`` (the block after the
``<!-- nginx-config -->`` marker, its backend ports replaced by the two
backends'). Checks, all through the proxy:

1. **Pages**: ``/steps`` (and, not in ``--smoke``, ``/``, ``/textbook``,
   ``/matrix?lang=en``) answered 200, gzipped, with an ``ETag``, and ``304``
   for that ``ETag``; every page holds its scripts (none named by address).
2. **A class**: the instructor logs in through the form and opens
   ``/instructor?room=CODE`` (its websocket ``/instructor/ws`` through the
   proxy); ``--students`` protocol students (``classlib.ClassStudent``, each
   from its own loopback address) open ``/steps?room=CODE``, join over
   ``/class/socket`` and submit once. Every receipt is ok, the database holds
   exactly the acknowledged predictions, and the instructor's page counts
   them all.
3. **The instructor's step**: the instructor moves to step 2 on their page
   (the change a browser sends); every student is told, whichever backend
   holds its socket. nginx's access log says which backend held each socket:
   both must hold some, and the students of each must have followed; and
   that the instructor's page request and its websocket reached one backend
   (the login cookie chooses it).
4. **Refusals**: a class socket and an instructor websocket with a foreign
   ``Origin`` are refused (403). The backends run with a cap of
   ``CAP`` sockets per client address: the students, each from its own address,
   all get in although more than ``CAP`` reach each backend through the one
   proxy (``--use-xheaders`` counts their own addresses), while ``2 * CAP + 1``
   sockets from one address are not all let in.

Not in ``--smoke``: the same class against ``attention-explorable serve
--num-procs 2`` on its own (SQLite; the pages built before the fork).

Usage::

    python benchmarks/proxy_check.py            # 24 students
    python benchmarks/proxy_check.py --smoke    # 8 students, /steps and /textbook

Without nginx or PostgreSQL's programs the proxy part is skipped with a
message (exit 0), except under ``CI=true`` (exit 1). Exit 1 when a check fails.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gzip
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from collections import Counter
from pathlib import Path

from benchlib import HOST, ROOT, ProtocolError, children_pids, free_port, percentile, print_machine
from classlib import ClassServer, ClassStudent, InstructorClient, login_cookie, loopback, student_id

sys.path.insert(0, str(ROOT))

DEPLOY_DOC = ROOT / "docs" / "deploy.md"
APP = "steps"
#: Sockets per client address per backend in this check (``--max-sessions-per-client``).
CAP = 3
FOREIGN = "http://evil.example"


def nginx_binary() -> str | None:
    return shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx",) if os.access(p, os.X_OK)), None)


def documented_server_block() -> str:
    """The nginx block of docs/deploy.md (the code block after ``<!-- nginx-config -->``)."""
    text = DEPLOY_DOC.read_text(encoding="utf-8")
    m = re.search(r"<!-- nginx-config -->\s*```nginx\n(.*?)```", text, flags=re.S)
    if not m:
        raise RuntimeError(f"no ```nginx block after <!-- nginx-config --> in {DEPLOY_DOC}")
    return m.group(1)


def nginx_config(block: str, tmp: Path, listen: int, backends: list[int]) -> str:
    """Wrap the documented block in a main config that keeps nginx inside ``tmp``.

    Each ``upstream`` of the block must list one ``server 127.0.0.1:PORT;`` per
    backend: the n-th becomes the n-th backend's port.
    """
    upstreams = re.findall(r"^upstream\s+\S+\s*\{.*?^\}", block, flags=re.M | re.S)
    if not upstreams:
        raise RuntimeError("the documented block has no upstream")
    for upstream in upstreams:
        servers = re.findall(r"^\s*server 127\.0\.0\.1:\d+;\s*$", upstream, flags=re.M)
        if len(servers) != len(backends):
            raise RuntimeError(f"a documented upstream has {len(servers)} servers, expected {len(backends)}")
        new = upstream
        for line, port in zip(servers, backends):
            new = new.replace(line, f"    server 127.0.0.1:{port};", 1)
        block = block.replace(upstream, new, 1)
    block, n = re.subn(r"listen\s+80;", f"listen {HOST}:{listen};", block)
    if n != 1:
        raise RuntimeError("the documented server block has no 'listen 80;'")
    for sub in ("body", "proxy", "fastcgi", "uwsgi", "scgi"):
        (tmp / sub).mkdir(exist_ok=True)
        (tmp / sub).chmod(0o777)  # nginx workers may run as another user
    return f"""
daemon off;
worker_processes 1;
pid {tmp}/nginx.pid;
error_log {tmp}/error.log info;
events {{ worker_connections 1024; }}
http {{
    log_format ae '$upstream_addr $remote_addr "$request" $status';
    access_log {tmp}/access.log ae;
    client_body_temp_path {tmp}/body;
    proxy_temp_path {tmp}/proxy;
    fastcgi_temp_path {tmp}/fastcgi;
    uwsgi_temp_path {tmp}/uwsgi;
    scgi_temp_path {tmp}/scgi;
{block}
}}
"""


@contextlib.contextmanager
def running_nginx(binary: str, tmp: Path, conf: str, port: int):
    (tmp / "nginx.conf").write_text(conf)
    test = subprocess.run(
        [binary, "-t", "-p", str(tmp), "-c", str(tmp / "nginx.conf")], capture_output=True, text=True, timeout=30
    )
    if test.returncode != 0:
        raise RuntimeError(f"nginx -t failed:\n{test.stderr}")
    log = open(tmp / "nginx.out", "wb")  # noqa: SIM115
    proc = subprocess.Popen(
        [binary, "-p", str(tmp), "-c", str(tmp / "nginx.conf")],
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 90
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"nginx exited: {(tmp / 'error.log').read_text(errors='replace')[-2000:]}")
            try:  # through the proxy, once a backend has built the page
                with urllib.request.urlopen(f"http://{HOST}:{port}/{APP}", timeout=60) as r:
                    r.read()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        yield proc
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)  # master and its worker
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)
        log.close()


# --- 1. pages -------------------------------------------------------------------------------


def fetch(url: str, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=60) as r:
            return r.status, {k.lower(): v for k, v in r.headers.items()}, r.read()
    except urllib.error.HTTPError as err:
        with err:
            return err.code, {k.lower(): v for k, v in err.headers.items()}, err.read()


def check_pages(base: str, paths: list[str]) -> tuple[list[str], int, int]:
    """Each page: 200, gzip, an ETag, 304 for it, no script it would fetch (but the textbook's own file).

    Each backend builds its own copy of a page, byte for byte the same file
    (a page's models are named in the order the page meets them, ``native.NativePage``), so
    both answer with one ``ETag`` and either answers ``304`` for it: two
    distinct ETags for one page are a failure. Returns (failures, pages ok,
    the most distinct ETags one page had).
    """
    failures, ok, distinct = [], 0, 1
    for path in paths:
        answers = [fetch(base + path, {"Accept-Encoding": "gzip"}) for _ in range(2)]
        status, headers, body = answers[0]
        if any(a[0] != 200 or a[1].get("content-encoding") != "gzip" or not a[1].get("etag") for a in answers):
            failures.append(
                f"page {path}: {status}, Content-Encoding {headers.get('content-encoding')!r}, "
                f"ETag {headers.get('etag')!r}"
            )
            continue
        distinct = max(distinct, len({a[1]["etag"] for a in answers}))
        if distinct > 1:
            failures.append(f"page {path}: the backends answered different ETags {[a[1]['etag'] for a in answers]}")
        html = gzip.decompress(body).decode()
        codes = [
            fetch(base + path, {"Accept-Encoding": "gzip", "If-None-Match": headers["etag"]})[0] for _ in range(2)
        ]  # nginx alternates between idle backends: both are asked
        if codes != [304, 304]:
            failures.append(f"page {path}: {codes} for its own ETag, not 304")
            continue
        # A page holds its scripts, but the textbook, which loads its modules from the one file beside it:
        # that file comes through the proxy too, the same from every backend.
        scripts = re.findall(r"<script[^>]* src=\"([^\"]*)\"", html)
        if scripts not in ([], ["attention-textbook.js"]):
            failures.append(f"page {path}: names scripts to fetch {scripts}")
            continue
        fetched = [fetch(urllib.parse.urljoin(base + path, s), {"Accept-Encoding": "gzip"}) for s in scripts * 2]
        if any(a[0] != 200 or a[1].get("etag") != fetched[0][1].get("etag") for a in fetched):
            failures.append(f"page {path}: its script {scripts} answered {[a[0] for a in fetched]}, not 200 alike")
            continue
        ok += 1
    return failures, ok, distinct


# --- 2.-4. a class ----------------------------------------------------------------------------


def stored(db: str, code: str) -> dict[str, float]:
    from attention_explorable.classroom.store import Store

    store = Store(db)
    try:
        return {
            r["student"]: float(r["prediction"])
            for r in store.export_rows(code)
            if str(r["round"]) == "1" and str(r["step"]) == "1"
        }
    finally:
        store.close()


async def instructor_to_step(teacher: InstructorClient, step: int) -> None:
    """What the instructor's browser sends on key ``2``: a click of the steps explorable's step button."""
    s = teacher.session
    button = s.find(f"ae-step-{step}", type_name="Button")
    click = {"type": "event", "name": "button_click", "values": {"type": "map", "entries": [["model", {"id": button}]]}}
    reply = await s.patch([{"kind": "MessageSent", "msg_type": "bokeh_event", "msg_data": click}], timeout=30)
    if reply.header.get("msgtype") != "OK":
        raise ProtocolError(f"the instructor's step change answered {reply.header.get('msgtype')}")


async def refused_origin(url: str) -> int | None:
    """The HTTP status a websocket upgrade to ``url`` with a foreign ``Origin`` gets (None: accepted)."""
    from tornado.httpclient import HTTPClientError, HTTPRequest
    from tornado.websocket import websocket_connect

    try:
        ws = await websocket_connect(
            HTTPRequest(url, headers={"Origin": FOREIGN}, connect_timeout=30, request_timeout=30)
        )
    except HTTPClientError as err:
        return err.code
    ws.close()
    return None


async def cap_check(base: str, code: str, k: int) -> tuple[int, int]:
    """Open ``k`` sockets from one address and hold them; return (admitted, refused busy)."""
    held, admitted, busy = [], 0, 0
    for i in range(k):
        try:
            s = await ClassStudent.open(base, code, student_id(i, "cap"), address="127.0.9.9")
        except ProtocolError:
            busy += 1
            continue
        held.append(s)
        if s.refused == "busy":
            busy += 1
        elif s.joined:
            admitted += 1
    await asyncio.gather(*(s.close() for s in held), return_exceptions=True)
    return admitted, busy


async def run_class(base: str, db: str, n: int, run: str, backends: int) -> tuple[list[str], dict]:
    """Steps 2-4 of the module docstring through ``base``; returns (failures, figures)."""
    from attention_explorable.classroom.store import Store

    failures: list[str] = []
    store = Store(db)
    code = store.create_room().code
    store.close()
    teacher = await InstructorClient.open(base, code, login_cookie(base))
    students: list[ClassStudent] = []
    try:
        students = list(
            await asyncio.gather(
                *(ClassStudent.open(base, code, student_id(i, run), address=loopback(i)) for i in range(n))
            )
        )
        not_in = [s.student_id for s in students if not s.joined]
        if not_in:
            failures.append(
                f"{len(not_in)} students not joined (refused: {Counter(s.refused for s in students if not s.joined)})"
            )
        results = await asyncio.gather(
            *(s.submit(1, round(2 + i / 8, 3)) for i, s in enumerate(students)), return_exceptions=True
        )
        acked, latencies = {}, []
        for i, (s, r) in enumerate(zip(students, results)):
            if isinstance(r, BaseException) or not r[0].get("ok"):
                failures.append(f"student {i}: submission not acknowledged: {r!r}"[:200])
            else:
                acked[s.stored_id] = round(2 + i / 8, 3)
                latencies.append(r[1])
        in_db = stored(db, code)
        if in_db != acked:
            failures.append(f"the database holds {len(in_db)} predictions, {len(acked)} acknowledged, and they differ")
        try:
            await teacher.wait_count(n, timeout=15)
        except asyncio.TimeoutError:
            failures.append(f"the instructor's page counted {teacher.count}, not {n}")
        counted = teacher.count

        await instructor_to_step(teacher, 2)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(s.step != 2 for s in students):
            await asyncio.sleep(0.05)
        followed = {s.student_id for s in students if s.step == 2}
        if len(followed) != n:
            failures.append(f"the instructor's step reached {len(followed)} of {n} students")

        class_code = await refused_origin(base.replace("http://", "ws://") + "/class/socket")
        instructor_code = await refused_origin(base.replace("http://", "ws://") + "/instructor/ws")
        if class_code != 403 or instructor_code != 403:
            failures.append(
                f"a foreign Origin got {class_code} on /class/socket and {instructor_code} on /instructor/ws, not 403"
            )
        admitted, busy = await cap_check(base, code, 2 * CAP * backends + 1)
        if busy == 0 or admitted > CAP * backends:
            failures.append(
                f"{2 * CAP * backends + 1} sockets from one address: {admitted} let in, {busy} refused "
                f"(cap {CAP} per backend)"
            )
    finally:
        await asyncio.gather(*(s.close() for s in students), return_exceptions=True)
        await teacher.close()
    figures = {
        "students": n,
        "joined": sum(1 for s in students if s.joined),
        "acked": len(acked),
        "stored": len(in_db),
        "instructor_count": counted,
        "followed_step": len(followed),
        "receipt_p50_ms": round(percentile(latencies, 50), 1),
        "receipt_p95_ms": round(percentile(latencies, 95), 1),
        "foreign_origin": [class_code, instructor_code],
        "one_address": {"admitted": admitted, "refused": busy},
    }
    return failures, figures


def sockets_per_backend(access_log: Path, n: int) -> dict[str, list[str]]:
    """From nginx's access log: backend -> the loopback addresses of the students whose socket it held."""
    students = {loopback(i) for i in range(n)}
    out: dict[str, list[str]] = {}
    for line in access_log.read_text(errors="replace").splitlines():
        parts = line.split()
        if len(parts) >= 4 and '"GET /class/socket ' in line and parts[1] in students:
            out.setdefault(parts[0], []).append(parts[1])
    return out


def instructor_backends(access_log: Path) -> tuple[set[str], set[str]]:
    """From nginx's access log: the backends of the instructor's page requests, and of their websockets.

    Only the websockets that opened (``101``) count: the foreign-Origin one is refused, and without
    the instructor's cookie it may go to any backend.
    """
    pages, sockets = set(), set()
    for line in access_log.read_text(errors="replace").splitlines():
        if '"GET /instructor?room=' in line:
            pages.add(line.split()[0])
        elif '"GET /instructor/ws ' in line and line.rsplit(None, 1)[-1] == "101":
            sockets.add(line.split()[0])
    return pages, sockets


def check_proxy(n: int, smoke: bool) -> tuple[list[str], dict | None]:
    """Returns (failures, figures), figures None when skipped."""
    binary = nginx_binary()
    from tests.postgres import PostgresMissing, TempPostgres

    missing = None
    if binary is None:
        missing = "nginx not found (apt-get install -y nginx)"
    else:
        try:
            TempPostgres().stop()
        except PostgresMissing as exc:
            missing = str(exc)
    if missing:
        msg = f"{missing}: proxy check skipped"
        if os.environ.get("CI", "").lower() == "true":
            return [f"{msg}, but CI=true requires it"], {}
        print(f"[1] SKIP: {msg}")
        return [], None
    print(
        f"[1] nginx ({binary}) with the server block of docs/deploy.md in front of 2 `attention-explorable "
        f"serve` on one PostgreSQL database: {n} students",
        flush=True,
    )
    failures: list[str] = []
    figures: dict = {}
    listen = free_port()
    extra = ["--use-xheaders", "--allow-websocket-origin", f"{HOST}:{listen}", "--max-sessions-per-client", str(CAP)]
    with TempPostgres() as pg, tempfile.TemporaryDirectory(prefix="ae-nginx-") as tmpname:
        db = pg.create_database("proxy_check")
        backends = [ClassServer(db, extra) for _ in range(2)]
        try:
            for b in backends:
                b.start()
            tmp = Path(tmpname)
            conf = nginx_config(documented_server_block(), tmp, listen, [b.port for b in backends])
            t0 = time.monotonic()
            with running_nginx(binary, tmp, conf, listen):
                base = f"http://{HOST}:{listen}"
                figures["first_page_s"] = round(time.monotonic() - t0, 1)
                # Every page carries everything inline.
                paths = ["/steps", "/textbook"] if smoke else ["/steps", "/", "/textbook", "/matrix?lang=en"]
                page_fails, figures["pages_ok"], figures["etags_per_page"] = check_pages(base, paths)
                failures += page_fails
                class_fails, class_figures = asyncio.run(run_class(base, db, n, "px", len(backends)))
                failures += class_fails
                figures.update(class_figures)
                # nginx writes a websocket's line when it closes: wait for the students' and the instructor's
                # lines (a loaded machine closes them late), at most 30 s, before nginx stops.
                deadline = time.monotonic() + 30
                while time.monotonic() < deadline:
                    logged = sum(len(v) for v in sockets_per_backend(tmp / "access.log", n).values())
                    if logged >= n and all(instructor_backends(tmp / "access.log")):
                        break
                    time.sleep(0.1)  # the poll's interval
            pages, sockets = instructor_backends(tmp / "access.log")
            figures["instructor_one_backend"] = len(pages) == 1 and pages == sockets
            if not figures["instructor_one_backend"]:
                failures.append(f"the instructor's page went to {pages}, its websocket to {sockets}: not one backend")
            per_backend = sockets_per_backend(tmp / "access.log", n)
            figures["sockets_per_backend"] = {k: len(v) for k, v in per_backend.items()}
            if len(per_backend) < 2:
                failures.append(f"the students' sockets did not reach both backends: {figures['sockets_per_backend']}")
            if sum(len(v) for v in per_backend.values()) != n:
                failures.append(
                    f"the access log shows {sum(len(v) for v in per_backend.values())} student sockets, not {n}"
                )
        finally:
            for b in backends:
                b.stop()
        failures += [f"backend log: {e}" for b in backends for e in b.log_errors()]
    print(
        f"    pages through the proxy: {figures.get('pages_ok')} ok (200 gzip, 304 for the ETag; "
        f"{figures.get('etags_per_page')} distinct ETags per page over the backends); "
        f"{figures.get('acked')}/{n} acknowledged, {figures.get('stored')} stored, the instructor counted "
        f"{figures.get('instructor_count')}; receipt p50 {figures.get('receipt_p50_ms')} ms, "
        f"p95 {figures.get('receipt_p95_ms')} ms; the instructor's step reached {figures.get('followed_step')}/{n}; "
        f"sockets per backend {figures.get('sockets_per_backend')}; the instructor's page and websocket on one "
        f"backend: {figures.get('instructor_one_backend')}; foreign Origin answered "
        f"{figures.get('foreign_origin')}; one address: {figures.get('one_address')}; "
        f"{'ok' if not failures else 'FAILED'}",
        flush=True,
    )
    return failures, figures


def check_num_procs(n: int) -> tuple[list[str], dict]:
    print(f"[2] attention-explorable serve --num-procs 2 (SQLite, no proxy): {n} students", flush=True)
    with tempfile.TemporaryDirectory(prefix="ae-procs-") as tmp:
        db = f"sqlite:///{tmp}/class.sqlite3"
        server = ClassServer(db, ["--num-procs", "2", "--max-sessions-per-client", str(CAP)])
        workers, failures, figures = 0, [], {}
        try:
            server.start(timeout=180)
            workers = len(
                [
                    c
                    for c in children_pids(server.proc.pid)  # not multiprocessing's resource tracker
                    if b"attention_explorable.cli" in Path(f"/proc/{c}/cmdline").read_bytes()
                ]
            )
            failures, figures = asyncio.run(run_class(server.base, db, n, "np", 2))
            # The kernel spreads the cap check's sockets over the workers: its figures stand, its verdict not.
            failures = [f for f in failures if "sockets from one address" not in f]
        finally:
            server.stop()
        failures += [f"server log: {e}" for e in server.log_errors()]
    if workers < 2:
        failures.append(f"expected 2 worker processes, found {workers}")
    figures["workers"] = workers
    print(
        f"    workers {workers}; {figures.get('acked')}/{n} acknowledged, {figures.get('stored')} stored; "
        f"the instructor's step reached {figures.get('followed_step')}/{n}; {'ok' if not failures else 'FAILED'}",
        flush=True,
    )
    return failures, figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=24, help="students through the proxy (default 24)")
    parser.add_argument(
        "--smoke", action="store_true", help="quick run: 8 students, /steps and /textbook, no --num-procs part"
    )
    args = parser.parse_args(argv)
    n = 8 if args.smoke else args.students
    print_machine()
    failures: list[str] = []
    figures: dict = {}
    skipped = False
    try:
        proxy_failures, proxy = check_proxy(n, args.smoke)
        failures += proxy_failures
        skipped = proxy is None
        figures["proxy"] = proxy or {}
        if not args.smoke:
            procs_failures, figures["num_procs"] = check_num_procs(n)
            failures += procs_failures
    except Exception as exc:  # noqa: BLE001 - a failed check
        failures.append(f"check crashed: {exc!r}")
    for f in failures:
        print(f"  FAIL {f}")
    print(
        "FIGURES proxy_check "
        + json.dumps({"ok": not failures, "proxy_skipped": skipped, "failures": len(failures), "figures": figures})
    )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
