"""Page load: from navigation start to the first readout that answers a slider.

Serves ``apps/textbook.py`` (and, for comparison, ``apps/steps.py``) with
``panel serve`` on a free loopback port and loads the page in headless
Chromium.  An init script, installed before the page's own scripts, watches
the first explorable on the page (the first ``.ae-explorable``, or the page
itself for the one-explorable apps): its ``.ae-readout`` panes and its first
slider handle.  Times are ``performance.now()`` in the page, that
is milliseconds since navigation start:

* **readout**: a readout is in the DOM with text;
* **interactive**: the first time an ArrowRight on that slider changes a
  readout's text. The watcher looks from ``DOMContentLoaded`` on, focuses
  the handle as soon as it exists and says so on the console; Playwright
  presses then (no polling of its own in between, which a busy page would
  answer late), and again every 250 ms until a press is answered.  The explorables draw themselves in
  the browser, so this is the page's own JavaScript answering; a served page
  gets its document over the websocket, so by then the server session is
  connected too.

Each app is measured as **first** (a freshly started server and an empty
browser cache), **cold** (empty browser cache, server already warm; median of
``--n``) and **warm** (browser cache filled by an earlier load; median of
``--n``).  Every load is a new server session.  The apps are served as
shipped.

Usage::

    python benchmarks/pageload.py            # 5 loads per mode
    python benchmarks/pageload.py --smoke    # textbook, one load (stands in for every mode)

Target: textbook page interactive within 1.0 s (cold and warm).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import sys
import time

from benchlib import CHROMIUM, CHROMIUM_ARGS, Served, past_question, print_machine, verdict

TARGET_S = 1.0

#: What the watcher writes to the console once it focused the handle.
HANDLE_FOCUSED = "ae-watch: handle focused"

WATCH_JS = (
    """
(() => {
  // (While the page is still being parsed, only its own elements are looked at: a search of every
  // element for shadow roots each tick would slow the parsing it measures.)
  const deepAll = (root, sel, out) => {
    for (const el of root.querySelectorAll(sel)) out.push(el);
    if (document.readyState === 'loading') return out;
    for (const el of root.querySelectorAll('*')) if (el.shadowRoot) deepAll(el.shadowRoot, sel, out);
    return out;
  };
  const w = {readout: null, interactive: null, handleAt: null, pressedAt: null};
  window.__aeLoad = w;
  const textOf = (el) => (el.shadowRoot ? el.shadowRoot.textContent : el.textContent).trim();
  let handle = null, start = null;
  // A press is a keydown on the focused handle; it is answered when a readout changes after it and
  // the handle's value moved (not when the page, still starting, writes a readout of its own).
  window.addEventListener('keydown', (event) => {
    if (handle && event.composedPath()[0] === handle && w.pressedAt === null) w.pressedAt = performance.now();
  }, true);
  const moved = () => handle.value === undefined || handle.value !== start;
  const tick = () => {
    const scope = deepAll(document, '.ae-explorable', [])[0] || document;
    const inner = scope.shadowRoot || scope;
    // A Bokeh page's readouts and handle, a student page's, or the hand-written yardstick's.
    const readouts = deepAll(inner, '.ae-readout, .ae-output', []).filter((el) => textOf(el));
    // (the head's settings are plain range inputs, each with its value shown as a readout beside it)
    // (the first one open: the steps' scores and temperature wait for the prediction, its values do not)
    const found = deepAll(inner, '.noUi-handle, .ae-n-slider input[type=range], .ae-head-settings input[type=range], .handle', [])
      .filter((h) => !h.disabled)[0];
    if (readouts.length && w.readout === null) {
      w.readout = performance.now();
      // Any readout of this explorable answering a press counts (the first
      // one in the DOM may be a status line that the slider does not touch).
      for (const el of readouts) {
        const before = textOf(el);
        new MutationObserver(() => {
          if (w.interactive === null && w.pressedAt !== null && textOf(el) !== before && moved()) {
            w.interactive = performance.now();
          }
        }).observe(el.shadowRoot || el, {subtree: true, childList: true, characterData: true});
      }
    }
    // The handle is focused here, as soon as it is found, and the console says so: the benchmark
    // presses then, with no round trip of its own to the page in between.
    if (found && w.readout !== null && w.handleAt === null) {
      handle = found;
      start = found.value;
      found.focus();
      w.handleAt = performance.now();
      window.__aeHandle = found;
      console.debug(HANDLE_FOCUSED);
    }
    if (w.readout === null || w.handleAt === null) setTimeout(tick, 10);
  };
  const HANDLE_FOCUSED = '"""
    + HANDLE_FOCUSED
    + """';
  if (document.readyState === 'loading' && !window.__aeWatchFromStart) document.addEventListener('DOMContentLoaded', tick);
  else tick();
})();
"""
)


def load_once(
    context, url: str, timeout_s: float = 60.0, keyed: bool = True, cpu: float = 1.0, from_start: bool = False
) -> dict:
    """One load of ``url``: readout and interactive times (ms); a page with no slider (``keyed=False``)
    counts as interactive when its first readout has text. ``cpu``: Chromium's CPU slowed down so many
    times (4: a mid-range phone), set before the page loads. ``from_start``: the watcher looks for the
    handle from the page's start, not from ``DOMContentLoaded`` on (a page that renders its first
    explorable while the rest is still being parsed, the textbook, may then answer before it is parsed)."""
    page = context.new_page()
    if cpu != 1:
        throttle(context, page, cpu)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        if from_start:
            page.add_init_script("window.__aeWatchFromStart = true;")
        page.add_init_script(WATCH_JS)
        if not keyed:
            page.goto(url, wait_until="commit", timeout=timeout_s * 1000)
            page.wait_for_function(
                "() => window.__aeLoad && window.__aeLoad.readout !== null", timeout=timeout_s * 1000, polling=5
            )
            readout = page.evaluate("() => window.__aeLoad.readout")
            return {"readout_ms": readout, "interactive_ms": readout, "errors": errors}
        # Pressed as soon as the watcher says (on the console) that it focused the handle, then again
        # every 250 ms until a readout answers.
        with page.expect_console_message(lambda m: m.text == HANDLE_FOCUSED, timeout=timeout_s * 1000):
            page.goto(url, wait_until="commit", timeout=timeout_s * 1000)
        deadline = time.monotonic() + timeout_s
        while True:
            page.keyboard.press("ArrowRight")
            try:
                page.wait_for_function("() => window.__aeLoad.interactive !== null", timeout=250, polling=5)
                break
            except Exception:  # noqa: BLE001 - not answered yet: press again
                if time.monotonic() > deadline:
                    raise
        w = page.evaluate("() => window.__aeLoad")
        nav = page.evaluate(
            "(() => { const e = performance.getEntriesByType('navigation')[0];"
            " return e ? {dcl: e.domContentLoadedEventEnd, load: e.loadEventEnd,"
            " ttfb: e.responseStart} : {}; })()"
        )
        return {
            "readout_ms": w["readout"],
            "interactive_ms": w["interactive"],
            "handle_ms": w["handleAt"],
            "pressed_ms": w["pressedAt"],
            "errors": errors,
            **nav,
        }
    finally:
        # Leave the page as a reader does (the websocket closes cleanly), so the
        # server does not write into a socket torn down under it.
        with contextlib.suppress(Exception):
            page.goto("about:blank", timeout=10_000)
            page.wait_for_timeout(200)
        page.close()


def throttle(context, page, rate: float) -> None:
    """Slow ``page``'s CPU down ``rate`` times (Chromium's DevTools protocol), as DevTools' throttling does."""
    context.new_cdp_session(page).send("Emulation.setCPUThrottlingRate", {"rate": rate})


def measure(browser, url: str, n: int, smoke: bool = False) -> dict:
    def fresh() -> dict:
        ctx = browser.new_context(viewport={"width": 1280, "height": 900}, locale="zh-CN")
        try:
            return load_once(ctx, url)
        finally:
            ctx.close()

    first = fresh()
    if smoke:  # one fresh load stands in for every mode
        return {"first": first, "cold": [first], "warm": [first]}
    cold = [fresh() for _ in range(n)]
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, locale="zh-CN")
    try:
        load_once(ctx, url)  # fills the cache
        warm = [load_once(ctx, url) for _ in range(n)]
    finally:
        ctx.close()
    return {"first": first, "cold": cold, "warm": warm}


def med(rows: list[dict], key: str) -> float:
    return statistics.median(r[key] for r in rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=5, help="loads per mode (default 5)")
    parser.add_argument("--apps", default="textbook,steps", help="apps (default textbook,steps)")
    parser.add_argument("--smoke", action="store_true", help="quick run: textbook, one load")
    args = parser.parse_args(argv)
    n = 1 if args.smoke else args.n
    apps = ["textbook"] if args.smoke else [a.strip() for a in args.apps.split(",") if a.strip()]

    from playwright.sync_api import sync_playwright

    print_machine()
    results = {}
    errors: list[str] = []
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            try:
                for app in apps:
                    with Served([app]) as srv:
                        r = measure(browser, past_question(srv.url(app)), n, smoke=args.smoke)
                        errors += [
                            f"{app}: {e}" for mode in ("cold", "warm") for row in r[mode] for e in row["errors"]
                        ] + [f"{app}: {e}" for e in r["first"]["errors"]]
                        errors += [f"{app} server: {e}" for e in srv.log_errors()]
                    results[app] = r
            finally:
                browser.close()
    except Exception as exc:  # noqa: BLE001 - reported, exit status 2
        print(f"measurement failed: {exc!r}", file=sys.stderr)
        return 2

    print(
        f"page load, navigation start -> first readout with text / first slider press answered "
        f"(ms), Chromium, panel serve on loopback; cold/warm: median of {n}"
    )
    print(
        f"{'app':<9} {'first: readout / interactive':>29} {'cold: readout / interactive':>28} "
        f"{'warm: readout / interactive':>28}  target interactive <= {TARGET_S * 1000:.0f} ms"
    )
    figures = {}
    for app, r in results.items():
        f = r["first"]
        row = {
            "first_readout": f["readout_ms"],
            "first_interactive": f["interactive_ms"],
            "cold_readout": med(r["cold"], "readout_ms"),
            "cold_interactive": med(r["cold"], "interactive_ms"),
            "warm_readout": med(r["warm"], "readout_ms"),
            "warm_interactive": med(r["warm"], "interactive_ms"),
        }
        ok = row["cold_interactive"] <= TARGET_S * 1000 and row["warm_interactive"] <= TARGET_S * 1000
        target_txt = verdict(ok) if app == "textbook" else "(info)"
        print(
            f"{app:<9} {row['first_readout']:12.0f} / {row['first_interactive']:6.0f}   "
            f"{row['cold_readout']:14.0f} / {row['cold_interactive']:6.0f}   "
            f"{row['warm_readout']:14.0f} / {row['warm_interactive']:6.0f}    {target_txt}"
        )
        cold = r["cold"]
        print(
            f"{'':<9} where the cold load's time goes (median): page response (server builds the "
            f"session) {med(cold, 'ttfb'):.0f} ms, scripts loaded (DOMContentLoaded) {med(cold, 'dcl'):.0f} ms, "
            f"then websocket + document pull + rendering until the readout"
        )
        figures[app] = {
            **{k: round(v) for k, v in row.items()},
            "cold_ttfb": round(med(cold, "ttfb")),
            "cold_dcl": round(med(cold, "dcl")),
            "pass": ok if app == "textbook" else None,
        }
    if errors:
        print(f"errors ({len(errors)}):")
        for e in errors[:10]:
            print(f"  {e}")
    print("FIGURES pageload " + json.dumps({"figures": figures, "errors": len(errors)}))
    return 2 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
