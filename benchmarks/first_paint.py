"""What a student meets first: each exported page's first paint and first answered key, beside the yardstick.

Exports the site into a temporary folder, then opens every page (both
languages; desktop 1280x900 and a phone, Chromium's mobile emulation at
390x844) from ``file://``, in a fresh browser context each time (cold), at
each CPU slowdown of ``--cpu`` (Chromium's throttling, set before the page
loads: 4x is a mid-range phone), and prints the median of ``--n`` loads:

* **first paint**: the ``first-contentful-paint`` entry, from navigation start;
* **first key**: navigation start -> the first time an ArrowRight on the
  page's first slider handle changes one of its readouts
  (``benchmarks/pageload.py``'s watcher: from ``DOMContentLoaded`` on, the
  handle focused in the page as soon as it exists and pressed at once, again
  every 250 ms until a press is answered, so a press the page ignored counts
  as not answered); the self/cross page, which
  has no slider: its readout's first text.

In the same run, at the same slowdown and on the same device, the
hand-written yardstick page (``--yardstick``, default
``../shared/bench/limit_page.html`` beside the repository, skipped when
absent) is measured the same way (the same watcher, no request routing on
either), one of its loads after each load of a page, so that each page's
figure reads as a ratio to the yardstick's loads beside it.

Usage::

    python benchmarks/first_paint.py            # 3 loads per page, device, language and slowdown
    python benchmarks/first_paint.py --smoke    # one load of steps.html and index.html, desktop, zh, 1x
    python benchmarks/first_paint.py --site DIR # load a site exported before, not a new export

Targets (docs/architecture.md, "Budgets"): first paint <= 300 ms on every
page; the first answered key within 1.5x the yardstick's on every page, at
1x and at 4x (the textbook's: its first explorable, the reader going straight to it).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

import pageload
from benchlib import CHROMIUM, CHROMIUM_ARGS, ROOT, has_slider, past_question, print_machine, verdict

TARGET_PAINT_MS = 300.0
#: A page answers its first key within 1.5x the yardstick's time, measured in the same run.
TARGET_RATIO = 1.5
DESKTOP = {"viewport": {"width": 1280, "height": 900}}
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True, "device_scale_factor": 3}


def paint_ms(page) -> float:
    return page.evaluate(
        "() => new Promise((resolve) => { const w = () => { const e = performance"
        ".getEntriesByName('first-contentful-paint')[0]; e ? resolve(e.startTime) : setTimeout(w, 5); };"
        " w(); })"
    )


def load(browser, url: str, device: dict, keyed: bool, cpu: float) -> dict:
    """A fresh context: the first answered key, as for every page (the yardstick's too)."""
    ctx = browser.new_context(**device)
    try:
        row = pageload.load_once(ctx, url, keyed=keyed, cpu=cpu)
        return {"key_ms": row["interactive_ms"], "errors": row["errors"]}
    finally:
        ctx.close()


def paint(browser, url: str, device: dict, cpu: float) -> float:
    ctx = browser.new_context(**device)
    try:
        page = ctx.new_page()
        if cpu != 1:
            pageload.throttle(ctx, page, cpu)
        page.goto(url, wait_until="commit")
        return paint_ms(page)
    finally:
        ctx.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=3, help="loads per page, device and language (median)")
    parser.add_argument("--yardstick", default=str(ROOT.parent / "shared" / "bench" / "limit_page.html"))
    parser.add_argument("--smoke", action="store_true", help="steps.html and index.html, desktop, zh, one load")
    parser.add_argument(
        "--cpu", default="1,4", help="CPU slowdowns to measure at (default 1,4: 4 is a mid-range phone)"
    )
    parser.add_argument(
        "--site",
        metavar="DIR",
        help="the exported site to load (attention-explorable export "
        "wrote it from this checkout); default: export one first",
    )
    parser.add_argument("--pages", help="the page files to load, comma-separated (default: every page)")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    from attention_explorable.site import export_site, pages as site_pages

    print_machine()
    everyone = [*(f for f in site_pages() if f != "index.html"), "index.html"]  # the registry's pages, textbook last
    pages = ["steps.html", "index.html"] if args.smoke else args.pages.split(",") if args.pages else everyone
    devices = {"desktop": DESKTOP} if args.smoke else {"desktop": DESKTOP, "phone": PHONE}
    languages = [""] if args.smoke else ["", "en/"]
    n = 1 if args.smoke else args.n
    cpus = [1.0] if args.smoke else [float(c) for c in args.cpu.split(",")]
    figures: dict = {}
    ok = True
    with tempfile.TemporaryDirectory(prefix="ae-first-paint-") as tmp, sync_playwright() as p:
        site = export_site(Path(tmp) / "site").directory if args.site is None else Path(args.site)
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        stick = Path(args.yardstick)
        targets = [
            (f"{lang}{name}", past_question((site / lang / name).as_uri()), has_slider(site / lang / name))
            for lang in languages
            for name in pages
        ]
        try:
            for cpu in cpus:
                for device, kw in devices.items():
                    for label, url, keyed in targets:
                        # Each load of a page alternates with one of the yardstick, so that the ratio
                        # compares loads that met the same machine at the same moments.
                        paints, loads, stick_loads = [], [], []
                        for _ in range(n):
                            paints.append(paint(browser, url, kw, cpu))
                            loads.append(load(browser, url, kw, keyed, cpu))
                            if stick.is_file():
                                stick_loads.append(load(browser, stick.as_uri(), kw, True, cpu))
                        row = {
                            "paint_ms": round(statistics.median(paints), 1),
                            "key_ms": round(statistics.median(r["key_ms"] for r in loads), 1),
                            "errors": sum(len(r["errors"]) for r in loads),
                        }
                        base = round(statistics.median(r["key_ms"] for r in stick_loads), 1) if stick_loads else None
                        if base:
                            row["yardstick_key_ms"] = base
                        figures[f"{label} {device} {cpu:g}x"] = row
                        ratio = row["key_ms"] / base if base else None
                        # The first paint's budget is for the machine as it is (1x); the key's ratio at every slowdown.
                        met = (cpu != 1 or row["paint_ms"] <= TARGET_PAINT_MS) and (
                            ratio is None or ratio <= TARGET_RATIO
                        )
                        ok &= met
                        shown = (
                            f" = {ratio:.2f}x the yardstick's {base:.1f} ms beside it (<= {TARGET_RATIO:g}x)"
                            if ratio
                            else ""
                        )
                        budget = f" (<= {TARGET_PAINT_MS:g})" if cpu == 1 else ""
                        print(
                            f"{label:20} {device:7} CPU {cpu:g}x: first paint {row['paint_ms']:7.1f} ms"
                            f"{budget}; first key {row['key_ms']:7.1f} ms{shown} "
                            f"{verdict(met)}; errors {row['errors']}",
                            flush=True,
                        )
        finally:
            browser.close()
    print("FIGURES first_paint " + json.dumps({"figures": figures}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
