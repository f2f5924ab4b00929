"""Slider round trip in a real browser: Panel defaults vs ``enable_fast_path()``.

Serves a one-slider probe app twice with ``panel serve`` on free loopback
ports, each in its own subprocess: once with Panel's defaults and once with
:func:`attention_explorable.serving.enable_fast_path` called by the app.  It
then drives each in headless Chromium (Playwright, sync API, Debian's
``/usr/bin/chromium``) and measures in the page, with ``performance.now()``,
the time from the ``keydown`` of an ArrowRight on the focused slider handle
until a ``MutationObserver`` sees the readout's text change.  That covers the
browser sending the change, the server processing it and sending the patch
back, and the browser applying it.

Usage::

    python benchmarks/probe_roundtrip.py            # 60 key presses per server
    python benchmarks/probe_roundtrip.py --n 200
    python benchmarks/probe_roundtrip.py --smoke    # 5 presses, a few seconds

The servers are stopped by the script itself, also on errors and Ctrl-C.
When ``panel serve`` runs this file as the app, it builds the probe app
instead (see the bottom of the file).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless=new", "--no-sandbox", "--disable-gpu",
    "--disable-background-networking", "--disable-component-update", "--no-first-run",
]
READOUT_CLASS = "ae-probe-readout"
FAST_ENV = "AE_PROBE_FAST_PATH"
STATUS_ENV = "AE_PROBE_STATUS_FILE"
WARMUP = 3

# Installed in the page: stamps each ArrowRight keydown and records the delay
# until the readout's text (inside its shadow root) next changes.
INSTALL_PROBE_JS = """
(readoutClass) => {
  const find = (root) => {
    const hit = root.querySelector('.' + readoutClass);
    if (hit) return hit;
    for (const el of root.querySelectorAll('*')) {
      if (el.shadowRoot) {
        const inner = find(el.shadowRoot);
        if (inner) return inner;
      }
    }
    return null;
  };
  const host = find(document);
  if (!host) throw new Error('readout .' + readoutClass + ' not found');
  const target = host.shadowRoot || host;
  const text = () => target.textContent;
  const probe = {samples: [], t0: null, last: text()};
  document.addEventListener('keydown', (ev) => {
    if (ev.key === 'ArrowRight') probe.t0 = performance.now();
  }, {capture: true});
  new MutationObserver(() => {
    const now = performance.now();
    const current = text();
    if (current === probe.last) return;
    probe.last = current;
    if (probe.t0 !== null) {
      probe.samples.push(now - probe.t0);
      probe.t0 = null;
    }
  }).observe(target, {subtree: true, childList: true, characterData: true});
  window.__aeProbe = probe;
  return probe.last;
}
"""


def probe_app():
    """Build the probe app: an IntSlider and a Markdown readout echoing it.

    Returns
    -------
    panel.Column
        The slider above a Markdown pane with CSS class ``ae-probe-readout``.
    """
    import panel as pn

    slider = pn.widgets.IntSlider(name="probe", start=0, end=1_000_000, value=0, step=1)
    readout = pn.pane.Markdown(f"value {slider.value}", css_classes=[READOUT_CLASS])

    def echo(event):
        readout.object = f"value {event.new}"

    slider.param.watch(echo, "value")
    return pn.Column(slider, readout)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def serve_probe(fast: bool, workdir: Path) -> Iterator[tuple[str, dict]]:
    """Run ``panel serve`` on this file in a subprocess; yield (url, status)."""
    port = _free_port()
    label = "fast" if fast else "defaults"
    status_file = workdir / f"status-{label}.json"
    log = open(workdir / f"server-{label}.log", "wb")  # noqa: SIM115
    env = dict(os.environ, **{FAST_ENV: "1" if fast else "0", STATUS_ENV: str(status_file)})
    cmd = [
        sys.executable, "-m", "panel", "serve", str(Path(__file__).resolve()),
        "--address", "127.0.0.1", "--port", str(port),
        "--allow-websocket-origin", f"127.0.0.1:{port}",
    ]
    proc = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/{Path(__file__).stem}"
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"panel serve ({label}) exited; see {log.name}")
            try:
                with urllib.request.urlopen(url, timeout=10) as response:
                    response.read()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        # The page request ran the app script, which wrote its fast-path status.
        yield url, json.loads(status_file.read_text())
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
        log.close()


def measure(browser, url: str, n: int) -> list[float]:
    """Press ArrowRight on the slider ``n`` times; return round trips in ms."""
    page = browser.new_page()
    try:
        page.goto(url)
        page.locator(f".{READOUT_CLASS}").first.wait_for()
        handle = page.locator(".noUi-handle").first
        handle.wait_for()
        page.evaluate(INSTALL_PROBE_JS, READOUT_CLASS)
        handle.focus()
        for i in range(WARMUP + n):
            page.keyboard.press("ArrowRight")
            page.wait_for_function(
                "k => window.__aeProbe.samples.length > k", arg=i, timeout=10_000
            )
            page.wait_for_timeout(40)  # let the server settle between presses
        samples = page.evaluate("window.__aeProbe.samples")
    finally:
        page.close()
    return [float(x) for x in samples[WARMUP:]]


def _percentile(values: list[float], q: float) -> float:
    import numpy as np

    return float(np.percentile(values, q))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=60, help="key presses per server (default 60)")
    parser.add_argument("--smoke", action="store_true", help="quick run: 5 presses per server")
    args = parser.parse_args(argv)
    n = 5 if args.smoke else args.n

    from playwright.sync_api import sync_playwright

    results: dict[str, list[float]] = {}
    statuses: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="ae-probe-") as tmp, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            for label, fast in (("defaults", False), ("fast path", True)):
                with serve_probe(fast, Path(tmp)) as (url, status):
                    statuses[label] = status
                    results[label] = measure(browser, url, n)
        finally:
            browser.close()

    if statuses["defaults"]["enabled"] or not statuses["fast path"]["enabled"]:
        print(f"unexpected server status: {statuses}", file=sys.stderr)
        return 1

    print(f"slider keydown -> readout text change, n={n} per server, panel serve, Chromium")
    rows = {}
    for label, values in results.items():
        p50, p95 = _percentile(values, 50), _percentile(values, 95)
        rows[label] = (p50, p95)
        detail = "Panel defaults" if label == "defaults" else "enable_fast_path()"
        print(f"  {label:<10} ({detail:<18}) p50 {p50:6.1f} ms   p95 {p95:6.1f} ms"
              f"   min {min(values):5.1f}   max {max(values):6.1f}")
    (d50, d95), (f50, f95) = rows["defaults"], rows["fast path"]
    print(f"  speedup    p50 {d50 / f50:.1f}x   p95 {d95 / f95:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
elif __name__.startswith("bokeh_app"):
    # Run by ``panel serve`` for each session.
    if os.environ.get(FAST_ENV) == "1":
        from attention_explorable.serving import enable_fast_path

        enable_fast_path()
    if os.environ.get(STATUS_ENV):
        from attention_explorable.serving import fast_path_status

        Path(os.environ[STATUS_ENV]).write_text(json.dumps(fast_path_status()))
    probe_app().servable()
