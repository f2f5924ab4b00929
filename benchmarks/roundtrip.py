"""Slider round trip in Chromium, fast path vs Panel defaults, side by side.

Serves ``apps/steps.py`` and ``apps/textbook.py`` twice with ``panel serve``
on free loopback ports: once as shipped (the apps call
``attention_explorable.serving.enable_fast_path()``) and once with Panel's
defaults (``AE_FAST_PATH=0``).  Both servers run at the same time; headless
Chromium (Debian's ``/usr/bin/chromium`` through Playwright) keeps one page of
each app open on each server, and the key presses alternate between the two
setups in rounds, so that both see the same machine.

In each page, on the steps explorer's score-difference slider, it measures
with ``performance.now()`` from the ``keydown`` of an arrow key:

* **readout**: until a ``MutationObserver`` on the ``ae-readouts`` pane (inside
  its shadow root) sees its text change.  As shipped, the browser redraws the
  readout itself (the JavaScript mirror in ``attention_explorable.stepsview``);
  with Panel's defaults it waits for the server: browser -> websocket ->
  server -> websocket -> DOM;
* **plot**: until the frame after the weights ``ColumnDataSource`` (found in
  ``Bokeh.documents``) announces new ``data``: a ``requestAnimationFrame``
  callback registered when the data changes, then a ``setTimeout(0)``, so the
  sample is taken once the frame that redraws the canvas has been produced;
* **server**: until the server's ``PATCH-DOC`` answer arrives on the
  websocket (its header frame, timestamped by a wrapper installed before the
  page's scripts): the true server round trip, also when the browser has
  already redrawn.

The targets apply to what the student sees (readout and plot); the server
round trip is printed beside them.

Usage::

    python benchmarks/roundtrip.py              # 120 presses per app and setup
    python benchmarks/roundtrip.py --n 300
    python benchmarks/roundtrip.py --smoke      # steps only, 4 presses per setup, ~20 s

Targets (issue "speed and scale"): p50 <= 16 ms and p95 <= 33 ms for both
measures, and the fast path at least 3x faster (p50) than the defaults.
Exit status 0 when the measurement ran (targets are reported, not enforced;
``--strict`` makes a missed target exit 1), 2 on a measurement error.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import time

from benchlib import CHROMIUM, CHROMIUM_ARGS, Served, percentile, print_machine, verdict

TARGET_P50, TARGET_P95, TARGET_SPEEDUP = 16.0, 33.0, 3.0
WARMUP = 5
MEASURES = ("readout", "plot", "server")
SCOPES = {"steps": None, "textbook": ".ae-explorable-steps"}

PROBE_JS = """
([scopeSel]) => {
  const deepAll = (root, sel, out) => {
    for (const el of root.querySelectorAll(sel)) out.push(el);
    for (const el of root.querySelectorAll('*')) if (el.shadowRoot) deepAll(el.shadowRoot, sel, out);
    return out;
  };
  const deepFirst = (root, sel) => deepAll(root, sel, [])[0] || null;
  const scope = scopeSel ? deepFirst(document, scopeSel) : document;
  if (!scope) throw new Error('scope ' + scopeSel + ' not found');
  const host = deepFirst(scope.shadowRoot || scope, '.ae-readouts') || deepFirst(scope, '.ae-readouts');
  if (!host) throw new Error('.ae-readouts not found');
  const target = host.shadowRoot || host;
  const text = () => target.textContent;
  const probe = {readout: [], plot: [], server: [], t0: null, gotReadout: false, gotPlot: false,
                 gotServer: false, last: text(), presses: 0};
  document.addEventListener('keydown', (ev) => {
    if (ev.key === 'ArrowRight' || ev.key === 'ArrowLeft') {
      probe.t0 = performance.now(); probe.gotReadout = false; probe.gotPlot = false; probe.gotServer = false;
      probe.presses++;
    }
  }, {capture: true});
  window.__aeOnPatch = (now) => {
    if (probe.t0 !== null && !probe.gotServer) { probe.server.push(now - probe.t0); probe.gotServer = true; }
  };
  new MutationObserver(() => {
    const now = performance.now();
    const current = text();
    if (current === probe.last) return;
    probe.last = current;
    if (probe.t0 !== null && !probe.gotReadout) { probe.readout.push(now - probe.t0); probe.gotReadout = true; }
  }).observe(target, {subtree: true, childList: true, characterData: true});
  // The weights source of the steps explorer: columns name = [a1, a2], weight, label.
  let source = null;
  for (const doc of Bokeh.documents) {
    for (const m of doc._all_models.values()) {
      if (m.type === 'ColumnDataSource' && m.data && m.data.weight && m.data.name
          && m.data.name.length === 2 && String(m.data.name[0]).startsWith('a')) source = m;
    }
  }
  if (!source) throw new Error('weights ColumnDataSource not found');
  source.connect(source.properties.data.change, () => {
    if (probe.t0 === null || probe.gotPlot) return;
    const t0 = probe.t0;
    probe.gotPlot = true;
    requestAnimationFrame(() => setTimeout(() => probe.plot.push(performance.now() - t0), 0));
  });
  window.__aeProbe = probe;
  return true;
}
"""


# Installed before the page's scripts: timestamps each PATCH-DOC message from
# the server as its header frame arrives (before Bokeh handles it).
SOCKET_JS = """
(() => {
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', (ev) => {
        if (typeof ev.data === 'string' && /"msgtype":\s*"PATCH-DOC"/.test(ev.data) && window.__aeOnPatch) {
          window.__aeOnPatch(performance.now());
        }
      });
    }
  };
})();
"""


class AppPage:
    """One open page of an app on one server, with the probe installed."""

    def __init__(self, browser, url: str, scope: str | None):
        self.context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="zh-CN")
        self.context.add_init_script(SOCKET_JS)
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.goto(url, wait_until="load", timeout=90_000)
        prefix = f"{scope} " if scope else ""
        if scope:  # on the textbook page the explorable is built as the reader scrolls near it
            self.page.locator(scope).first.scroll_into_view_if_needed(timeout=90_000)
        self.handle = self.page.locator(f"{prefix}.ae-score-diff .noUi-handle").first
        self.handle.wait_for(timeout=90_000)
        self.page.locator(f"{prefix}.ae-weight-2").first.wait_for(timeout=90_000)
        self.handle.scroll_into_view_if_needed()
        self.page.wait_for_timeout(1500)  # let MathJax and layout settle
        self.page.evaluate(PROBE_JS, [scope])
        self.handle.focus()
        self.presses = 0

    def press(self, timeout_ms: float = 10_000) -> None:
        """One arrow key press; wait until both samples are in."""
        key = "ArrowRight" if (self.presses // 40) % 2 == 0 else "ArrowLeft"
        self.presses += 1
        self.page.keyboard.press(key)
        self.page.wait_for_function(
            "n => window.__aeProbe.readout.length >= n && window.__aeProbe.plot.length >= n"
            " && window.__aeProbe.server.length >= n",
            arg=self.presses, timeout=timeout_ms)
        self.page.wait_for_timeout(60)  # a student's pace, and lets the server settle

    def samples(self) -> dict[str, list[float]]:
        r = self.page.evaluate("[window.__aeProbe.readout, window.__aeProbe.plot, window.__aeProbe.server]")
        return {name: [float(x) for x in col[WARMUP:]] for name, col in zip(MEASURES, r)}

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.context.close()


def run(n: int, rounds: int, apps: list[str]) -> dict:
    from playwright.sync_api import sync_playwright

    results: dict = {}
    errors: list[str] = []
    with Served(apps, fast=True) as fast, Served(apps, fast=False) as slow, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            for app in apps:
                pages = {label: AppPage(browser, srv.url(app), SCOPES[app])
                         for label, srv in (("fast", fast), ("defaults", slow))}
                try:
                    for page in pages.values():
                        for _ in range(WARMUP):
                            page.press()
                    per_round = max(1, n // rounds)
                    for _ in range(rounds):
                        for page in pages.values():
                            for _ in range(per_round):
                                page.press()
                    for label, page in pages.items():
                        results[(app, label)] = page.samples()
                        errors += [f"{app}/{label}: {e}" for e in page.errors]
                finally:
                    for page in pages.values():
                        page.close()
        finally:
            browser.close()
        errors += [f"server (fast): {e}" for e in fast.log_errors()]
        errors += [f"server (defaults): {e}" for e in slow.log_errors()]
    results["errors"] = errors
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=120, help="measured presses per app and setup (default 120)")
    parser.add_argument("--rounds", type=int, default=4, help="alternations between the setups (default 4)")
    parser.add_argument("--apps", default="steps,textbook", help="comma-separated apps (default steps,textbook)")
    parser.add_argument("--smoke", action="store_true", help="quick run: steps only, 4 presses per setup")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a target is missed")
    args = parser.parse_args(argv)
    n, rounds = (4, 1) if args.smoke else (args.n, args.rounds)
    apps = ["steps"] if args.smoke else [a.strip() for a in args.apps.split(",") if a.strip()]

    print_machine()
    t0 = time.monotonic()
    try:
        results = run(n, rounds, apps)
    except Exception as exc:  # noqa: BLE001 - reported, exit status 2
        print(f"measurement failed: {exc!r}", file=sys.stderr)
        return 2
    print(f"slider keydown -> readout text / plot frame, Chromium, panel serve on loopback, "
          f"n={n} per app and setup, {rounds} alternating rounds, {time.monotonic() - t0:.0f} s")
    print(f"{'app':<9} {'measure':<8} {'defaults p50/p95 ms':>20} {'fast path p50/p95 ms':>21} "
          f"{'speedup p50':>11}  target p50<={TARGET_P50:g} p95<={TARGET_P95:g} >={TARGET_SPEEDUP:g}x")
    figures, all_ok = {}, True
    for app in apps:
        for measure in MEASURES:
            d = results[(app, "defaults")][measure]
            f = results[(app, "fast")][measure]
            d50, d95, f50, f95 = (percentile(d, 50), percentile(d, 95), percentile(f, 50), percentile(f, 95))
            speedup = d50 / f50 if f50 else float("nan")
            ok = f50 <= TARGET_P50 and f95 <= TARGET_P95 and speedup >= TARGET_SPEEDUP
            if measure != "server":  # the server reply is reported, the targets are on what the student sees
                all_ok &= ok
            figures[f"{app}.{measure}"] = {"defaults_p50": round(d50, 1), "defaults_p95": round(d95, 1),
                                           "fast_p50": round(f50, 1), "fast_p95": round(f95, 1),
                                           "speedup_p50": round(speedup, 2), "n": len(f), "pass": ok}
            print(f"{app:<9} {measure:<8} {d50:9.1f} / {d95:6.1f}    {f50:9.1f} / {f95:6.1f}    "
                  f"{speedup:9.1f}x  {verdict(ok)}")
    errors = results["errors"]
    if errors:
        print(f"errors ({len(errors)}):")
        for e in errors[:20]:
            print(f"  {e}")
    print("FIGURES roundtrip " + json.dumps({"figures": figures, "errors": len(errors)}, ensure_ascii=False))
    if errors:
        return 2
    return 1 if (args.strict and not all_ok) else 0


if __name__ == "__main__":
    sys.exit(main())
