"""The static site: export time, size on disk, and how soon each page answers a student, from ``file://``.

1. Exports the site (``attention_explorable.site.export_site``, as
   ``attention-explorable export`` does) into a temporary folder and prints
   the time it took, the whole site's size, and the size of ``index.html``
   plus every file it loads (the requests a page makes, summed on disk).
2. Opens each page from ``file://`` in headless Chromium with every request
   that is not ``file:``/``data:``/``blob:`` aborted (their count is printed;
   it must be 0), and times **interactive** as ``benchmarks/pageload.py``
   does: navigation start -> the first explorable's readout answers an
   ArrowRight on its first slider. ``cold`` is a fresh browser context per
   load (median of ``--n``), ``warm`` a context that loaded the page before.
   The self/cross page has no slider: its time is the readout's first text.
3. In the same run, the served textbook (``panel serve``), measured the same
   way, for comparison.

Usage::

    python benchmarks/static_site.py          # 5 loads per page and mode
    python benchmarks/static_site.py --smoke  # one load of index.html and steps.html, no served comparison
    python benchmarks/static_site.py --site DIR  # a site exported before (its export not timed)

Targets: index.html interactive <= 500 ms (median, cold), each single-explorable
page <= 300 ms; the whole site (both languages, the embeds) <= 3 MB on disk;
each explorable page and all it loads <= 150 KB compressed (gzip -6, as a
compressing host sends it; the textbook's is printed beside them).
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import sys
import tempfile
from pathlib import Path

import pageload
from benchlib import CHROMIUM, CHROMIUM_ARGS, Served, has_slider, past_question, print_machine, verdict

TARGET_INDEX_MS, TARGET_PAGE_MS = 500.0, 300.0
TARGET_SITE_MB, TARGET_INDEX_MB, TARGET_PAGE_GZIP_KB = 3.0, 4.0, 150.0


def _offline(context, aborted: list[str], loaded: list[str]) -> None:
    def route(r):
        url = r.request.url
        if url.startswith(("file:", "data:", "blob:")):
            if url.startswith("file:"):
                loaded.append(url)
            r.continue_()
        else:
            aborted.append(url)
            r.abort()

    context.route("**/*", route)


def load_once(context, url: str, keyed: bool) -> float:
    """Milliseconds from navigation start to interactive (or to the first readout when not ``keyed``)."""
    return pageload.load_once(context, url, keyed=keyed)["interactive_ms"]


def measure_page(browser, url: str, n: int, keyed: bool, offline: bool) -> dict:
    aborted: list[str] = []
    loaded: list[str] = []

    def context():
        ctx = browser.new_context(viewport={"width": 1280, "height": 900}, locale="zh-CN")
        if offline:
            _offline(ctx, aborted, loaded)
        return ctx

    cold = []
    for _ in range(n):
        ctx = context()
        try:
            cold.append(load_once(ctx, url, keyed))
        finally:
            ctx.close()
    ctx = context()
    try:
        load_once(ctx, url, keyed)
        warm = [load_once(ctx, url, keyed) for _ in range(n)]
    finally:
        ctx.close()
    return {
        "cold": statistics.median(cold),
        "warm": statistics.median(warm),
        "aborted": len(aborted),
        "loaded": sorted(set(loaded)),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=5, help="loads per page and mode (default 5)")
    parser.add_argument(
        "--smoke", action="store_true", help="one load of index.html and steps.html, no served comparison"
    )
    parser.add_argument(
        "--site",
        metavar="DIR",
        help="load a site exported before (its export is not timed); default: export one, timed",
    )
    args = parser.parse_args(argv)
    n = 1 if args.smoke else args.n

    from playwright.sync_api import sync_playwright

    from attention_explorable.site import export_site, pages

    print_machine()
    figures: dict = {}
    with tempfile.TemporaryDirectory(prefix="ae-site-") as tmp:
        if args.site is None:
            report = export_site(Path(tmp) / "site")
            site, files, seconds = report.directory, report.files, round(report.seconds, 2)
        else:
            site, seconds = Path(args.site), None
            files = [p for p in site.rglob("*") if p.is_file()]
        site_mb = sum(p.stat().st_size for p in files) / 1e6
        took = "not timed (--site)" if seconds is None else f"{seconds:.1f} s"
        print(
            f"export: {len(files)} files, {site_mb:.2f} MB, {took}   "
            f"site <= {TARGET_SITE_MB:g} MB {verdict(site_mb <= TARGET_SITE_MB)}"
        )
        figures["export"] = {"seconds": seconds, "files": len(files), "site_mb": round(site_mb, 3)}
        pages = ["index.html", "steps.html"] if args.smoke else list(pages())
        rows = {}
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                try:
                    for name in pages:
                        rows[name] = measure_page(
                            browser,
                            past_question((site / name).resolve().as_uri()),
                            n,
                            keyed=has_slider(site / name),
                            offline=True,
                        )
                    server_errors = []
                    if not args.smoke:  # the live Panel app, for comparison (its own server: seconds of CPU)
                        with Served(["textbook"]) as srv:
                            rows["served /textbook"] = measure_page(
                                browser, past_question(srv.url("textbook")), n, keyed=True, offline=False
                            )
                            server_errors = srv.log_errors()
                finally:
                    browser.close()
        except Exception as exc:  # noqa: BLE001 - reported, exit status 2
            print(f"measurement failed: {exc!r}", file=sys.stderr)
            return 2

        index_files = [Path(u.removeprefix("file://").split("?")[0]) for u in rows["index.html"]["loaded"]]
        index_mb = sum(p.stat().st_size for p in {p for p in index_files if p.is_file()}) / 1e6
        weights = {}  # each page and all it loads, compressed (gzip -6, file by file)
        for name, row in rows.items():
            if not name.startswith("served"):
                loaded = {Path(u.removeprefix("file://").split("?")[0]) for u in row["loaded"]} | {site / name}
                weights[name] = sum(len(gzip.compress(p.read_bytes(), 6)) for p in loaded if p.is_file()) / 1e3
    print(
        f"index.html and all it loads: {len(index_files)} files, {index_mb:.2f} MB   "
        f"<= {TARGET_INDEX_MB:g} MB {verdict(index_mb <= TARGET_INDEX_MB)}"
    )
    figures["index_mb"] = round(index_mb, 3)
    print("each page and all it loads, compressed (gzip -6, file by file)")
    for name, kb in weights.items():
        target = None if name == "index.html" else TARGET_PAGE_GZIP_KB
        print(
            f"  {name:<20} {kb:7.1f} KB  "
            + (f"<= {target:g} KB {verdict(kb <= target)}" if target else "(the textbook: no target of its own)")
        )
    figures["page_gzip_kb"] = {name: round(kb, 1) for name, kb in weights.items()}
    print(
        f"navigation start -> interactive (ms; the first explorable's readout answers an arrow key; "
        f"selfcross: first readout), Chromium, median of {n}"
    )
    print(f"{'page':<20} {'cold':>7} {'warm':>7} {'aborted':>8}  target")
    ok_all = True
    for name, row in rows.items():
        target = None if name.startswith("served") else TARGET_INDEX_MS if name == "index.html" else TARGET_PAGE_MS
        ok = target is None or row["cold"] <= target
        ok_all = ok_all and ok and row["aborted"] == 0
        print(
            f"{name:<20} {row['cold']:7.0f} {row['warm']:7.0f} {row['aborted']:8d}  "
            + (f"<= {target:.0f} ms {verdict(ok)}" if target else "(comparison)")
        )
        figures[name] = {"cold_ms": round(row["cold"]), "warm_ms": round(row["warm"]), "aborted": row["aborted"]}
    errors = [e for e in server_errors]
    print("FIGURES static_site " + json.dumps({"figures": figures, "errors": len(errors)}))
    return 2 if errors or any(r["aborted"] for r in rows.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
