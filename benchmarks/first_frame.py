"""Where a page's first frame goes: the renderer's main thread from the first parse to the first paint.

Opens each exported page (and the yardstick beside it) from ``file://`` in a fresh context, records
a Chromium trace of the load, and prints, per page, the time from the first ``ParseHTML`` to the
first contentful paint and the main thread's largest costs in that window (layout, text shaping,
script evaluation, style), the median over ``--n`` loads. A profile to read before changing the
first paint (``first_paint.py`` gives the figures against their targets).

Usage::

    python benchmarks/first_frame.py                       # vector.html and steps.html, 3 loads each
    python benchmarks/first_frame.py --pages qkv.html --n 5
    python benchmarks/first_frame.py --smoke               # one load of steps.html
"""

from __future__ import annotations

import argparse
import collections
import json
import statistics
import sys
import tempfile
from pathlib import Path

from benchlib import CHROMIUM, CHROMIUM_ARGS, ROOT, past_question, print_machine

#: The main thread's events reported, as Chromium's trace names them.
EVENTS = (
    "Layout",
    "InlineNode::ShapeTextIncludingFirstLine",
    "UpdateLayoutTree",
    "v8.evaluateModule",
    "EvaluateScript",
    "ParseHTML",
    "Paint",
    "PrePaint",
)
CATEGORIES = ["devtools.timeline", "blink", "loading", "v8.execute", "disabled-by-default-devtools.timeline"]


def trace_load(browser, url: str, attempts: int = 3) -> dict:
    """One cold load of ``url``: ms from the first ``ParseHTML`` to the first contentful paint, and
    the main thread's time in each of :data:`EVENTS` within it.

    A trace that lost the load's paint (a loaded machine can drop events) is taken again, up to
    ``attempts`` loads in all; RuntimeError if none holds it."""
    for _ in range(attempts):
        figures = _traced_load(browser, url)
        if figures is not None:
            return figures
    raise RuntimeError(f"{attempts} traces of {url} held no paint after the first ParseHTML")


def _traced_load(browser, url: str) -> dict | None:
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = ctx.new_page()
        page.goto("about:blank")
        browser.start_tracing(page=page, categories=CATEGORIES)
        page.goto(url)
        page.wait_for_function("() => performance.getEntriesByName('first-contentful-paint').length > 0")
        raw = json.loads(browser.stop_tracing())
    finally:
        ctx.close()
    events = raw["traceEvents"] if isinstance(raw, dict) else raw
    threads = collections.Counter((e["pid"], e["tid"]) for e in events if e.get("name") == "ParseHTML")
    main = threads.most_common(1)[0][0]
    start = min(e["ts"] for e in events if (e["pid"], e["tid"]) == main and e.get("name") == "ParseHTML")
    # (the first after the parse: a trace may hold a mark of the page the browser showed before)
    fcp = min((e["ts"] for e in events if e.get("name") == "firstContentfulPaint" and e["ts"] > start), default=None)
    if fcp is None:  # the trace lost the mark (a loaded machine): the main thread's first paint after the parse
        fcp = min(
            (e["ts"] for e in events if (e["pid"], e["tid"]) == main and e.get("name") == "Paint" and e["ts"] > start),
            default=None,
        )
    if fcp is None:
        return None
    end = fcp
    spent = collections.Counter()
    for e in events:
        if (e["pid"], e["tid"]) == main and e.get("ph") == "X" and e.get("name") in EVENTS and start <= e["ts"] <= end:
            spent[e["name"]] += e.get("dur", 0) / 1000
    return {"to_fcp_ms": (end - start) / 1000, **{name: spent[name] for name in EVENTS}}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", default="vector.html,steps.html", help="comma-separated exported pages")
    parser.add_argument("--n", type=int, default=3, help="loads per page (median)")
    parser.add_argument("--site", default=None, help="an exported site (default: export one first)")
    parser.add_argument("--yardstick", default=str(ROOT.parent / "shared" / "bench" / "limit_page.html"))
    parser.add_argument("--smoke", action="store_true", help="one load of steps.html")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    from attention_explorable.site import export_site

    print_machine()
    pages = ["steps.html"] if args.smoke else args.pages.split(",")
    n = 1 if args.smoke else args.n
    figures = {}
    with tempfile.TemporaryDirectory(prefix="ae-first-frame-") as tmp, sync_playwright() as p:
        site = export_site(Path(tmp) / "site").directory if args.site is None else Path(args.site)
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            targets = [(name, past_question((site / name).as_uri())) for name in pages]
            if Path(args.yardstick).is_file() and not args.smoke:
                targets.append(("yardstick", Path(args.yardstick).as_uri()))
            for label, url in targets:
                loads = [trace_load(browser, url) for _ in range(n)]
                row = {key: round(statistics.median(load[key] for load in loads), 1) for key in loads[0]}
                figures[label] = row
                costs = ", ".join(f"{name} {row[name]:.1f}" for name in EVENTS if row[name] >= 0.5)
                print(f"{label:18} first parse -> first paint {row['to_fcp_ms']:6.1f} ms; main thread (ms): {costs}")
        finally:
            browser.close()
    print("FIGURES first_frame " + json.dumps({"figures": figures}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
