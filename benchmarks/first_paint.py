"""What a student sees first: each exported page's first paint and first answered key, beside the yardstick.

Exports the site into a temporary folder, then opens every page (both
languages; desktop 1280x900 and a phone, Chromium's mobile emulation at
390x844) from ``file://`` with every other request aborted, in a fresh
browser context each time (cold), and prints the median of ``--n`` loads:

* **first paint**: the ``first-contentful-paint`` entry, from navigation start;
* **first key**: navigation start -> the first explorable's readout answers
  an ArrowRight on its first slider (``benchmarks/pageload.py``'s watcher;
  the self/cross page, which has no slider: its readout's first text).

In the same run, the hand-written yardstick page (``--yardstick``, default
``../shared/bench/limit_page.html`` beside the repository, skipped when
absent) is measured the same way, so the figures read as a ratio to it.

Usage::

    python benchmarks/first_paint.py            # 3 loads per page, mode and language
    python benchmarks/first_paint.py --smoke    # one load of steps.html and index.html, desktop, zh
    python benchmarks/first_paint.py --site DIR # load a site exported before, not a new export

Targets (docs/architecture.md, "Budgets"): first paint <= 300 ms on every
page; a single explorable page answers its first key within 500 ms, the
textbook's first explorable within 800 ms; a phone within 1.5x of desktop.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

import pageload
from benchlib import CHROMIUM, CHROMIUM_ARGS, ROOT, print_machine, verdict
from static_site import _offline

TARGET_PAINT_MS = 300.0
TARGET_KEY_MS, TARGET_TEXTBOOK_KEY_MS = 500.0, 800.0
DESKTOP = {"viewport": {"width": 1280, "height": 900}}
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True, "device_scale_factor": 3}

def paint_ms(page) -> float:
    return page.evaluate("() => new Promise((resolve) => { const w = () => { const e = performance"
                         ".getEntriesByName('first-contentful-paint')[0]; e ? resolve(e.startTime) : setTimeout(w, 5); };"
                         " w(); })")


def load(browser, url: str, device: dict, keyed: bool) -> dict:
    ctx = browser.new_context(**device)
    aborted: list[str] = []
    _offline(ctx, aborted, [])
    try:
        row = pageload.load_once(ctx, url, keyed=keyed)
        return {"key_ms": row["interactive_ms"], "aborted": len(aborted), "errors": row["errors"]}
    finally:
        ctx.close()


def paint(browser, url: str, device: dict) -> float:
    ctx = browser.new_context(**device)
    _offline(ctx, [], [])
    try:
        page = ctx.new_page()
        page.goto(url, wait_until="commit")
        return paint_ms(page)
    finally:
        ctx.close()


def yardstick(browser, path: Path, device: dict) -> dict:
    """The hand-written page: first paint, and its handle's first answered ArrowRight."""
    ctx = browser.new_context(**device)
    try:
        page = ctx.new_page()
        page.goto(path.as_uri(), wait_until="commit")
        fcp = paint_ms(page)
        page.wait_for_selector(".handle")
        before = page.locator(".ae-output").first.text_content()
        page.locator(".handle").first.focus()
        page.keyboard.press("ArrowRight")
        page.wait_for_function(f"document.querySelector('.ae-output').textContent !== {json.dumps(before)}")
        key = page.evaluate("performance.now()")
        return {"paint_ms": fcp, "key_ms": key}
    finally:
        ctx.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=3, help="loads per page, device and language (median)")
    parser.add_argument("--yardstick", default=str(ROOT.parent / "shared" / "bench" / "limit_page.html"))
    parser.add_argument("--smoke", action="store_true", help="steps.html and index.html, desktop, zh, one load")
    parser.add_argument("--site", metavar="DIR", help="the exported site to load (attention-explorable export "
                        "wrote it from this checkout); default: export one first")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    from attention_explorable.site import export_site, pages as site_pages

    print_machine()
    everyone = [*(f for f in site_pages() if f != "index.html"), "index.html"]  # the registry's pages, textbook last
    pages = ["steps.html", "index.html"] if args.smoke else everyone
    devices = {"desktop": DESKTOP} if args.smoke else {"desktop": DESKTOP, "phone": PHONE}
    languages = [""] if args.smoke else ["", "en/"]
    n = 1 if args.smoke else args.n
    figures: dict = {}
    ok = True
    with tempfile.TemporaryDirectory(prefix="ae-first-paint-") as tmp, sync_playwright() as p:
        site = export_site(Path(tmp) / "site").directory if args.site is None else Path(args.site)
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            stick = Path(args.yardstick)
            if stick.is_file():
                for device, kw in devices.items():
                    rows = [yardstick(browser, stick, kw) for _ in range(n)]
                    figures[f"yardstick {device}"] = {k: round(statistics.median(r[k] for r in rows), 1)
                                                      for k in ("paint_ms", "key_ms")}
                    print(f"yardstick ({device}): first paint {figures[f'yardstick {device}']['paint_ms']} ms, "
                          f"first key {figures[f'yardstick {device}']['key_ms']} ms")
            for lang in languages:
                for name in pages:
                    url = (site / lang / name).as_uri()
                    for device, kw in devices.items():
                        paints = [paint(browser, url, kw) for _ in range(n)]
                        loads = [load(browser, url, kw, keyed=name != "selfcross.html") for _ in range(n)]
                        row = {"paint_ms": round(statistics.median(paints), 1),
                               "key_ms": round(statistics.median(r["key_ms"] for r in loads), 1),
                               "aborted": max(r["aborted"] for r in loads),
                               "errors": sum(len(r["errors"]) for r in loads)}
                        key_target = TARGET_TEXTBOOK_KEY_MS if name == "index.html" else TARGET_KEY_MS
                        met = row["paint_ms"] <= TARGET_PAINT_MS
                        ok &= met
                        figures[f"{lang}{name} {device}"] = row
                        print(f"{lang}{name:15} {device:7}: first paint {row['paint_ms']:7.1f} ms "
                              f"(<= {TARGET_PAINT_MS:g} {verdict(met)}); first key {row['key_ms']:7.1f} ms "
                              f"(<= {key_target:g} {verdict(row['key_ms'] <= key_target)}); "
                              f"aborted {row['aborted']}, errors {row['errors']}", flush=True)
        finally:
            browser.close()
    print("FIGURES first_paint " + json.dumps({"figures": figures}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
