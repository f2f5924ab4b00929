"""Lighthouse, the web's own page audit, on every page: served by ``attention-explorable serve`` and by a
static host that compresses, beside the hand-written yardstick on the same host.

1. Starts ``attention-explorable serve`` on a free port (a temporary class
   database) and audits each page of the registry (``/textbook``,
   ``/steps``...).
2. Exports the site into a temporary folder and serves it as a static host
   that compresses does (GitHub Pages, Netlify, nginx with ``gzip on``):
   Tornado's static files with gzip; audits each page and the yardstick
   (``../shared/bench/limit_page.html``, copied beside the pages).
3. Prints, per page: the four scores (performance, accessibility, best
   practices, SEO) and first paint, largest paint, total blocking time,
   layout shift, speed index. Lighthouse's mobile preset (a mid-range phone,
   a slow 4G link, a CPU slowed 4x) as its defaults are.

Lighthouse is not a dependency of the project (it is large and fetched from
npm). Install it once anywhere and name it::

    npm install --prefix /tmp/lh lighthouse
    python benchmarks/lighthouse.py --lighthouse /tmp/lh/node_modules/.bin/lighthouse
    python benchmarks/lighthouse.py --pages steps,textbook --hosts static   # some of them

Targets (docs/architecture.md, "Budgets"): performance >= 90 on every page
and host; accessibility, best practices and SEO >= 95.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import urllib.request
from pathlib import Path

from benchlib import CHROMIUM, ROOT, free_port, print_machine, verdict
from classlib import ClassServer

TARGET_PERFORMANCE, TARGET_OTHERS = 90, 95
YARDSTICK = ROOT.parent / "shared" / "bench" / "limit_page.html"
METRICS = {
    "first-contentful-paint": "first paint",
    "largest-contentful-paint": "largest paint",
    "total-blocking-time": "blocking",
    "cumulative-layout-shift": "shift",
    "speed-index": "speed index",
}


def audit(lighthouse: str, url: str, out: Path) -> dict:
    """One Lighthouse run on ``url`` (mobile preset): scores and metrics."""
    env = {**os.environ, "CHROME_PATH": CHROMIUM}
    subprocess.run(
        [
            lighthouse,
            url,
            "--quiet",
            "--output=json",
            f"--output-path={out}",
            "--chrome-flags=--headless=new --no-sandbox --disable-gpu",
        ],
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        timeout=300,
    )
    report = json.loads(out.read_text("utf-8"))
    scores = {k: round(v["score"] * 100) for k, v in report["categories"].items()}
    metrics = {name: report["audits"][key]["displayValue"] for key, name in METRICS.items()}
    return {"scores": scores, "metrics": metrics}


def static_host(directory: Path, port: int):
    """Serve ``directory`` as a static host with gzip (Tornado, in a thread); returns a stop function."""
    import asyncio

    import tornado.web

    loop = asyncio.new_event_loop()
    started = threading.Event()

    def run():
        asyncio.set_event_loop(loop)

        class Quiet(tornado.web.StaticFileHandler):
            def log_exception(self, *args):  # a 404 (robots.txt) is the audit's own question
                pass

        app = tornado.web.Application(
            [(r"/(.*)", Quiet, {"path": str(directory), "default_filename": "index.html"})],
            compress_response=True,
            log_function=lambda handler: None,
        )
        app.listen(port, address="127.0.0.1")
        started.set()
        loop.run_forever()

    threading.Thread(target=run, daemon=True).start()
    started.wait(10)
    return lambda: loop.call_soon_threadsafe(loop.stop)


def main(argv: list[str] | None = None) -> int:
    from attention_explorable.site import export_site, pages

    files = pages()  # file name -> app: index.html -> textbook, steps.html -> steps...
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--lighthouse",
        default=os.environ.get("LIGHTHOUSE", "lighthouse"),
        help="the lighthouse command (default $LIGHTHOUSE, else lighthouse on the PATH)",
    )
    parser.add_argument("--pages", default=",".join(files.values()), help="apps to audit (default: every page)")
    parser.add_argument("--hosts", default="served,static", help="served, static or both (default both)")
    parser.add_argument("--keep", metavar="DIR", help="keep each page's Lighthouse report (JSON) in DIR")
    args = parser.parse_args(argv)
    if shutil.which(args.lighthouse) is None:
        print(
            f"no lighthouse command {args.lighthouse!r}: npm install --prefix /tmp/lh lighthouse, "
            "then --lighthouse /tmp/lh/node_modules/.bin/lighthouse",
            file=sys.stderr,
        )
        return 2
    wanted = args.pages.split(",")
    hosts = args.hosts.split(",")
    print_machine()
    ok, figures = True, {}

    def report(label: str, row: dict, judged: bool = True) -> None:
        nonlocal ok
        s, m = row["scores"], row["metrics"]
        met = s["performance"] >= TARGET_PERFORMANCE and all(
            s[k] >= TARGET_OTHERS for k in ("accessibility", "best-practices", "seo")
        )
        ok &= met or not judged
        figures[label] = row
        print(
            f"{label:28} perf {s['performance']:3d}  a11y {s['accessibility']:3d}  best {s['best-practices']:3d}  "
            f"seo {s['seo']:3d}   "
            + "  ".join(f"{k} {v}" for k, v in m.items())
            + (f"   {verdict(met)}" if judged else "   (yardstick)"),
            flush=True,
        )

    with tempfile.TemporaryDirectory(prefix="ae-lighthouse-") as tmp:
        tmp = Path(tmp)
        reports = Path(args.keep) if args.keep else tmp
        reports.mkdir(parents=True, exist_ok=True)
        if "served" in hosts:
            with ClassServer(f"sqlite:///{tmp / 'class.sqlite3'}") as server:
                # The textbook in English is built last: once it answers, every page is built.
                urllib.request.urlopen(f"{server.base}/textbook?lang=en", timeout=180).read()
                for app in wanted:
                    report(
                        f"served /{app}", audit(args.lighthouse, f"{server.base}/{app}", reports / f"served-{app}.json")
                    )
        if "static" in hosts:
            site = export_site(tmp / "site").directory
            if YARDSTICK.is_file():
                shutil.copyfile(YARDSTICK, site / "yardstick.html")
            port = free_port()
            stop = static_host(site, port)
            try:
                if YARDSTICK.is_file():
                    report(
                        "static yardstick.html",
                        audit(
                            args.lighthouse,
                            f"http://127.0.0.1:{port}/yardstick.html",
                            reports / "static-yardstick.json",
                        ),
                        judged=False,
                    )
                for name, app in files.items():
                    if app in wanted:
                        report(
                            f"static {name}",
                            audit(args.lighthouse, f"http://127.0.0.1:{port}/{name}", reports / f"static-{app}.json"),
                        )
            finally:
                stop()
    print("FIGURES lighthouse " + json.dumps({"figures": figures}))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
