"""The least the textbook's first key can cost: its text alone, parsed, beside the yardstick.

The first answered key is measured from ``DOMContentLoaded`` on (``pageload.py``'s watcher, for every page
and the yardstick alike), so a page cannot answer before it is parsed. This loads, from ``file://`` in a
fresh context each, at each CPU slowdown, one after the other in turns:

* the yardstick (``../shared/bench/limit_page.html``);
* the textbook with every script taken out (its explorables' JSON states kept): what parsing and laying
  out its text costs, the floor under any script;
* the textbook as exported;
* the textbook cut after its first explorable (its first part, with the script that part loads): what a
  small first document would leave, the rest of the text brought in later;

and prints the median ``DOMContentLoaded`` of each and its ratio to the yardstick's, and the exported
textbook's first answered key (and its first part's) beside the yardstick's; then both first keys again
watched from the page's start (``pageload.load_once(from_start=True)``): the textbook renders its first
explorable as soon as that is parsed, so a key may be answered before the rest of the page is.

Usage::

    python benchmarks/textbook_floor.py                 # 5 loads of each, 1x and 4x
    python benchmarks/textbook_floor.py --site DIR --n 7
    python benchmarks/textbook_floor.py --smoke         # one load of each, 1x
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

import pageload
from benchlib import CHROMIUM, CHROMIUM_ARGS, ROOT, print_machine
from first_paint import DESKTOP

YARDSTICK = ROOT.parent / "shared" / "bench" / "limit_page.html"
#: A script the page runs (a JSON state is data: kept).
_SCRIPT = re.compile(r"<script(?![^>]*application/json)[^>]*>.*?</script>", re.S)


def first_part(page: str) -> str:
    """The exported textbook up to the heading after its first explorable, closed: its first part only."""
    at = page.index("<div class='ae-module' data-ae-render=")
    return page[: page.index("<h2", at)] + page[page.rindex("</body>") :]


def dcl(browser, url: str, cpu: float) -> float:
    """``domContentLoadedEventStart`` of one cold load of ``url`` (ms from navigation start)."""
    ctx = browser.new_context(**DESKTOP)
    try:
        page = ctx.new_page()
        if cpu != 1:
            pageload.throttle(ctx, page, cpu)
        page.goto(url, wait_until="domcontentloaded")
        return page.evaluate("() => performance.getEntriesByType('navigation')[0].domContentLoadedEventStart")
    finally:
        ctx.close()


def key(browser, url: str, cpu: float, from_start: bool = False) -> float:
    ctx = browser.new_context(**DESKTOP)
    try:
        return pageload.load_once(ctx, url, cpu=cpu, from_start=from_start)["interactive_ms"]
    finally:
        ctx.close()


def main(argv: list[str] | None = None) -> int:
    from playwright.sync_api import sync_playwright

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--site", type=Path, help="a site exported before (else a new export, in Chinese)")
    ap.add_argument("--n", type=int, default=5)
    ap.add_argument("--cpu", default="1,4")
    ap.add_argument("--smoke", action="store_true")
    args = ap.parse_args(argv)
    n, rates = (1, [1.0]) if args.smoke else (args.n, [float(x) for x in args.cpu.split(",")])
    print_machine()
    with tempfile.TemporaryDirectory() as tmp:
        site = Path(tmp) / "site"
        if args.site:
            shutil.copytree(args.site, site)
        else:
            from attention_explorable.site import export_site

            export_site(site, language="zh")
        page = (site / "index.html").read_text(encoding="utf-8")
        (site / "text-only.html").write_text(_SCRIPT.sub("", page), encoding="utf-8")
        pages = {"yardstick": YARDSTICK.as_uri(), "text only": (site / "text-only.html").as_uri()}
        pages["textbook"] = (site / "index.html").as_uri()
        (site / "first-part.html").write_text(first_part(page), encoding="utf-8")
        pages["first part"] = (site / "first-part.html").as_uri()
        figures = {}
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            try:
                for cpu in rates:
                    loads = {name: [] for name in pages}
                    keys = {"yardstick": [], "textbook": [], "first part": []}
                    early = {"yardstick": [], "textbook": []}  # watched from the page's start
                    for _ in range(n):
                        for name, url in pages.items():
                            loads[name].append(dcl(browser, url, cpu))
                        for name in keys:
                            keys[name].append(key(browser, pages[name], cpu))
                        for name in early:
                            early[name].append(key(browser, pages[name], cpu, from_start=True))
                    med = {name: statistics.median(v) for name, v in loads.items()}
                    keyed = {name: statistics.median(v) for name, v in keys.items()}
                    early_keyed = {name: statistics.median(v) for name, v in early.items()}
                    print(f"\nCPU {cpu:g}x, {n} loads each (median), DOMContentLoaded:")
                    for name, ms in med.items():
                        print(f"  {name:<10} {ms:7.1f} ms   {ms / med['yardstick']:5.2f}x the yardstick's")
                    print(
                        f"  first answered key: textbook {keyed['textbook']:.1f} ms, yardstick "
                        f"{keyed['yardstick']:.1f} ms ({keyed['textbook'] / keyed['yardstick']:.2f}x); the text "
                        f"alone is parsed at {med['text only'] / keyed['yardstick']:.2f}x the yardstick's first key"
                    )
                    print(
                        f"  the first part alone: first key {keyed['first part']:.1f} ms "
                        f"({keyed['first part'] / keyed['yardstick']:.2f}x the yardstick's)"
                    )
                    print(
                        f"  watched from the page's start (a key may come before DOMContentLoaded): textbook "
                        f"{early_keyed['textbook']:.1f} ms, yardstick {early_keyed['yardstick']:.1f} ms "
                        f"({early_keyed['textbook'] / early_keyed['yardstick']:.2f}x)"
                    )
                    figures[f"{cpu:g}x"] = {"dcl": med, "key": keyed, "key_from_start": early_keyed}
            finally:
                browser.close()
    print("FIGURES textbook_floor " + json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
