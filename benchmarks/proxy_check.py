"""Check serving beyond one process: ``--num-procs`` and nginx with sticky sessions.

Everything runs on loopback, in temporary directories, and is stopped by this
script.

1. **Several processes**: ``panel serve apps/steps.py --num-procs 2``; open
   sessions with the Bokeh protocol client of ``benchlib`` (page, websocket,
   document, ``document_ready``) and move the score-difference slider in each
   as a browser does (a ``PATCH-DOC`` of the explorable's state model): the
   server must answer every move with ``OK``.
2. **nginx in front of two backends**: two ``panel serve apps/steps.py
   --use-xheaders`` on their own ports, and nginx (``daemon off``, its own
   prefix, pid and logs in a temporary directory; nothing under ``/etc`` is
   used) with the server block of ``docs/deploy.md`` (the block after the
   ``<!-- nginx-config -->`` marker, ports replaced).  Checks: the page loads
   through the proxy; sessions opened through it connect their websocket, pull
   the document and answer a slider move; nginx's access log shows each
   session's page request and websocket going to the same backend (sticky
   cookie), and both backends used; with Chromium present, a browser moves
   the slider through the proxy: the readout changes (drawn in the browser)
   and the server answers the state change the page sends with ``OK``.

Usage::

    python benchmarks/proxy_check.py            # 8 sessions through the proxy
    python benchmarks/proxy_check.py --smoke    # 12 sessions, no browser part

Without nginx the proxy part is skipped with a message (exit 0), except under
``CI=true`` (exit 1).  Exit 1 when a check fails.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from benchlib import (CHROMIUM, CHROMIUM_ARGS, HOST, ROOT, BokehSession, Served, apply_state, free_port,
                      next_value, print_machine, state_target)

DEPLOY_DOC = ROOT / "docs" / "deploy.md"
APP = "steps"


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
    """Wrap the documented block in a main config that keeps nginx inside ``tmp``."""
    servers = re.findall(r"^\s*server 127\.0\.0\.1:\d+;\s*$", block, flags=re.M)
    if len(servers) != len(backends):
        raise RuntimeError(f"the documented upstream has {len(servers)} servers, expected {len(backends)}")
    for line, port in zip(servers, backends):
        block = block.replace(line, f"    server 127.0.0.1:{port};", 1)
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
    log_format ae '$upstream_addr "$request" $status "$http_user_agent"';
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
    test = subprocess.run([binary, "-t", "-p", str(tmp), "-c", str(tmp / "nginx.conf")],
                          capture_output=True, text=True, timeout=30)
    if test.returncode != 0:
        raise RuntimeError(f"nginx -t failed:\n{test.stderr}")
    log = open(tmp / "nginx.out", "wb")  # noqa: SIM115
    proc = subprocess.Popen([binary, "-p", str(tmp), "-c", str(tmp / "nginx.conf")],
                            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + 20
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"nginx exited: {(tmp / 'error.log').read_text(errors='replace')[-2000:]}")
            try:
                with urllib.request.urlopen(f"http://{HOST}:{port}/{APP}", timeout=30) as r:
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


async def sessions_work(base: str, n: int, tag: str) -> tuple[list[str], list[float]]:
    """Open ``n`` sessions through ``base``; move the slider twice in each."""
    failures, latencies = [], []
    for i in range(n):
        try:
            s = await BokehSession.open(base, APP, timeout=90, user_agent=f"{tag}-{i}")
        except Exception as exc:  # noqa: BLE001 - reported as a failed check
            failures.append(f"session {i}: open failed: {exc!r}")
            continue
        try:
            target = state_target(s, "StepsExplorer", "score_diff", "ae-score-diff")
            for k in (1, 2):
                latencies.append(await apply_state(s, target, next_value(target, k), timeout=20))
            if s.errors:
                failures.append(f"session {i}: {s.errors[:2]}")
        except Exception as exc:  # noqa: BLE001
            failures.append(f"session {i}: slider move not answered: {exc!r}")
        finally:
            await s.close()
    return failures, latencies


def sticky_report(access_log: Path, tag: str, n: int) -> tuple[list[str], dict[str, int]]:
    """From nginx's access log: did each session's page and websocket use one backend?"""
    failures: list[str] = []
    per_backend: dict[str, int] = {}
    lines = access_log.read_text(errors="replace").splitlines()
    for i in range(n):
        agent = f'"{tag}-{i}"'
        page = [ln.split()[0] for ln in lines if agent in ln and f"GET /{APP} " in ln]
        ws = [ln.split()[0] for ln in lines if agent in ln and f"GET /{APP}/ws " in ln]
        if not page or not ws:
            failures.append(f"session {i}: page or websocket request missing from the access log")
            continue
        if page[0] != ws[0]:
            failures.append(f"session {i}: page via {page[0]} but websocket via {ws[0]} (not sticky)")
        per_backend[page[0]] = per_backend.get(page[0], 0) + 1
    return failures, per_backend


def browser_check(url: str) -> list[str]:
    """A browser moves the slider through the proxy: the readout changes and the server says OK.

    The readout is drawn by the page itself; the server's ``OK`` to the
    ``PATCH-DOC`` carrying the new ``score_diff`` (seen by ``ws_watch.js``)
    shows that the change went through the proxy and was applied.
    """
    from playwright.sync_api import sync_playwright

    failures: list[str] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.add_init_script(path=str(Path(__file__).with_name("ws_watch.js")))
            page.goto(url, timeout=60_000)
            readout = page.locator(".ae-weight-2").first
            readout.wait_for(timeout=60_000)
            before = readout.inner_text()
            handle = page.locator(".ae-score-diff .noUi-handle").first
            handle.focus()
            handle.press("ArrowRight")
            deadline = time.monotonic() + 15
            while readout.inner_text() == before:
                if time.monotonic() > deadline:
                    failures.append(f"browser: readout stayed {before!r} after a key press")
                    break
                page.wait_for_timeout(50)
            try:
                page.wait_for_function("window.__aeWs.sent.length > 0 && window.__aeWs.acked.length"
                                       " === window.__aeWs.sent.length", timeout=15_000)
            except Exception:  # noqa: BLE001 - reported as a failed check
                failures.append(f"browser: the server did not answer the slider's state change: "
                                f"{page.evaluate('window.__aeWs')}")
            if errors:
                failures.append(f"browser errors: {errors[:3]}")
        finally:
            browser.close()
    return failures


def check_num_procs(n: int) -> list[str]:
    print(f"[1] panel serve --num-procs 2: {n} sessions, two slider moves each")
    with Served([APP], extra=["--num-procs", "2"]) as srv:
        pids = srv.pids()
        failures, lat = asyncio.run(sessions_work(f"http://{HOST}:{srv.port}", n, "procs"))
        failures += [f"server log: {e}" for e in srv.log_errors()]
    workers = len(pids) - 1
    if workers < 2:
        failures.append(f"expected 2 worker processes, found {workers}")
    print(f"    worker processes: {workers}; moves acknowledged (OK): {len(lat)}/{2 * n}; "
          f"{'ok' if not failures else 'FAILED'}")
    return failures


def check_proxy(n: int, with_browser: bool) -> tuple[list[str], bool]:
    binary = nginx_binary()
    if binary is None:
        msg = "nginx not found (apt-get install -y nginx): proxy check skipped"
        if os.environ.get("CI", "").lower() == "true":
            return [f"{msg}, but CI=true requires it"], False
        print(f"[2] SKIP: {msg}")
        return [], True
    print(f"[2] nginx ({binary}) with the server block of docs/deploy.md in front of 2 backends: "
          f"{n} sessions")
    failures: list[str] = []
    listen = free_port()
    origin = [f"{HOST}:{listen}"]
    with Served([APP], extra=["--use-xheaders"], origins=origin) as b1, \
            Served([APP], extra=["--use-xheaders"], origins=origin) as b2, \
            tempfile.TemporaryDirectory(prefix="ae-nginx-") as tmpname:
        tmp = Path(tmpname)
        conf = nginx_config(documented_server_block(), tmp, listen, [b1.port, b2.port])
        with running_nginx(binary, tmp, conf, listen):
            base = f"http://{HOST}:{listen}"
            with urllib.request.urlopen(f"{base}/{APP}", timeout=60) as r:
                page = r.read().decode()
                cookie = r.headers.get("Set-Cookie", "")
            if '"token"' not in page:
                failures.append("page through the proxy has no session token")
            if "ae_backend=" not in cookie:
                failures.append(f"no sticky cookie from the proxy (Set-Cookie: {cookie!r})")
            fails, lat = asyncio.run(sessions_work(base, n, "proxy"))
            failures += fails
            time.sleep(0.5)  # nginx writes a websocket's log line when it closes
            sticky_fails, per_backend = sticky_report(tmp / "access.log", "proxy", n)
            failures += sticky_fails
            if len(per_backend) < 2 and n >= 10:
                failures.append(f"all sessions went to one backend: {per_backend}")
            if with_browser and (os.path.exists(CHROMIUM) or shutil.which(CHROMIUM)):
                failures += browser_check(f"{base}/{APP}")
                browser_txt = "browser slider move ok" if not failures else "see failures"
            else:
                browser_txt = "browser part skipped"
        failures += [f"backend log: {e}" for e in b1.log_errors() + b2.log_errors()]
    print(f"    moves acknowledged (OK): {len(lat)}/{2 * n}; sessions per backend: {per_backend}; "
          f"{browser_txt}; {'ok' if not failures else 'FAILED'}")
    return failures, False


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=16, help="sessions per check (default 16)")
    parser.add_argument("--no-browser", action="store_true", help="skip the Chromium part")
    parser.add_argument("--smoke", action="store_true", help="quick run: 12 sessions, no browser")
    args = parser.parse_args(argv)
    # The sticky cookie hashes a random id: with n sessions all land on one of
    # the two backends with probability 2 * 0.5**n (0.05 % for 12).
    n = 12 if args.smoke else args.n
    print_machine()
    failures: list[str] = []
    try:
        failures += check_num_procs(2 if args.smoke else n)
        proxy_failures, skipped = check_proxy(n, with_browser=not (args.smoke or args.no_browser))
        failures += proxy_failures
    except Exception as exc:  # noqa: BLE001 - a failed check
        failures.append(f"check crashed: {exc!r}")
        skipped = False
    for f in failures:
        print(f"  FAIL {f}")
    print("FIGURES proxy_check " + json.dumps({"ok": not failures, "proxy_skipped": skipped,
                                               "failures": len(failures)}))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
