"""A head that learns: what the default run learns for each seed, what √d_k does to training, and what
training costs the page.

1. In numpy (``attention_explorable.views.head``, the oracle): for each seed, the default run
   (d_k = 16, learning rate 0.01, scaled) trained 300 steps, then its accuracy on 1,024 fresh examples
   (a step far beyond any training step). Target: >= 95 % for every seed 0-19.
2. In numpy: at d_k = 64, the unscaled run's loss at step 100 over the scaled run's (each the mean of
   the batch losses of steps 96-100). Target: >= 2x for at least 15 of seeds 0-19.
3. In headless Chromium, the page's own module (``web/dist/head.mjs``): 300 training steps of the
   default run, timed, at 1x and 4x CPU (DevTools throttling). Target: <= 1 s at 1x, <= 4 s at 4x.
4. The page's size, gzip -6 (it loads nothing else). Target: <= 150 KB.
5. The page trains the same heads: each seed's accuracy on the same fresh examples after 300 steps, in
   the page's module, equal to numpy's.
6. A key while it trains, on ``head.html`` from file:// (every other request aborted): Train pressed,
   a moment of training, then an arrow key on the learning-rate slider (a new run: the readout says
   step 0), timed from the keydown to the painted frame by ``latency_probe.js``, beside the yardstick
   (``../shared/bench/limit_page.html``) in the same browser; at 1x and 4x. Target: p50 within one frame
   (16.7 ms) of the yardstick's p50. And the long tasks (over 50 ms) while it trains for two seconds at
   1x. Target: none.

Usage::

    python benchmarks/head.py            # seeds 0-19
    python benchmarks/head.py --smoke    # seed 0, 1x only, 4 key presses

Prints a line per figure and a last line ``FIGURES head {...}`` (JSON).
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from attention_explorable import site  # noqa: E402
from attention_explorable.modules import module_source  # noqa: E402
from attention_explorable.views import head  # noqa: E402
from benchlib import CHROMIUM, CHROMIUM_ARGS, percentile, print_machine  # noqa: E402
from latency import YARDSTICK, YARDSTICK_SELECTORS, LatencyPage  # noqa: E402


_JS_TRAIN = """async ([src, steps]) => {
  const url = URL.createObjectURL(new Blob([src], {type: "text/javascript"}));
  const m = await import(url);
  const run = m.startRun({seed: 0});
  const t0 = performance.now();
  for (let i = 0; i < steps; i++) m.stepRun(run);
  return {ms: performance.now() - t0, loss: run.losses[steps - 1]};
}"""


def accuracy_after(seed: int, steps: int = 300) -> float:
    run = head.start(seed=seed)
    for _ in range(steps):
        run.step()
    return head.evaluate(run, 1024)["accuracy"]


def scaling_ratio(seed: int) -> float:
    scaled, unscaled = head.compare_losses(seed)  # d_k = 64, 100 steps
    return float(np.mean(unscaled[-5:])) / float(np.mean(scaled[-5:]))


_JS_ACCURACY = """async ([src, seeds, fresh]) => {
  const url = URL.createObjectURL(new Blob([src], {type: "text/javascript"}));
  const m = await import(url);
  return seeds.map((seed) => {
    const run = m.startRun({seed});
    for (let i = 0; i < 300; i++) m.stepRun(run);
    return m.forward(run.params, m.makeBatch(seed, fresh, 1024), run.scaled).accuracy;
  });
}"""

#: Long tasks while the page trains: a PerformanceObserver from before Train is pressed.
_JS_LONG_TASKS = """() => { window.__aeLong = [];
  new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__aeLong.push(e.duration); })
    .observe({type: "longtask"}); }"""


def page_accuracies(seeds: list[int]) -> list[float]:
    """Each seed's accuracy on 1,024 fresh examples after 300 steps, trained by the page's module."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page()
        page.set_content("<html><body></body></html>")
        out = page.evaluate(_JS_ACCURACY, [module_source("head"), seeds, head.FRESH_STEP])
        browser.close()
    return out


def keys_while_training(throttles: list[int], presses: int) -> dict[str, float]:
    """Key -> painted frame on head.html while it trains, beside the yardstick; long tasks at 1x."""
    import tempfile

    from playwright.sync_api import sync_playwright

    out: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        saved = Path(tmp) / "head.html"
        saved.write_text(site.build_page("head", "zh"), encoding="utf-8")
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for rate in throttles:
            if YARDSTICK.is_file():
                ruler = LatencyPage(browser, YARDSTICK.resolve().as_uri(), *YARDSTICK_SELECTORS, offline=True, cpu=rate)
                for _ in range(presses):
                    ruler.press()
                ruler_ms, _ = ruler.results(0)
                ruler.close()
                out[f"yardstick_p50_ms_{rate}x"] = round(percentile(ruler_ms, 50), 1)
            lp = LatencyPage(
                browser, saved.as_uri(), ".ae-head-learning_rate", ".ae-head-readout", offline=True, cpu=rate
            )
            page = lp.page
            page.locator(".ae-head-skip").click()
            if rate == 1:
                page.evaluate(_JS_LONG_TASKS)
                page.locator(".ae-head-train").click()  # a first play rests at step 300 ...
                page.wait_for_function(
                    "() => /(^|\\s)300(\\s|:)/.test(document.querySelector('.ae-head-readout').textContent)"
                )
                page.locator(".ae-head-train").click()  # ... pressed again, it trains on: 2 s of it
                page.wait_for_timeout(2000)
                page.locator(".ae-head-train").click()
                long_tasks = page.evaluate("window.__aeLong")
                out["long_tasks_over_50ms_1x"] = len(long_tasks)  # the observer reports only tasks over 50 ms
            for _ in range(presses):
                page.locator(".ae-head-train").click()  # it plays ...
                page.wait_for_timeout(150)
                lp.handle.focus()
                lp.press()  # ... and a key on a slider starts a new run
            samples, misses = lp.results(0)
            lp.close()
            out[f"key_while_training_p50_ms_{rate}x"] = round(percentile(samples, 50), 1)
            out[f"key_while_training_misses_{rate}x"] = misses
        browser.close()
    return out


def page_timings(throttles: list[int]) -> dict[str, float]:
    from playwright.sync_api import sync_playwright

    out = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for rate in throttles:
            page = browser.new_page()
            page.set_content("<html><body></body></html>")
            if rate > 1:
                cdp = page.context.new_cdp_session(page)
                cdp.send("Emulation.setCPUThrottlingRate", {"rate": rate})
            result = page.evaluate(_JS_TRAIN, [module_source("head"), 300])
            out[f"ms_300_steps_{rate}x"] = round(result["ms"], 1)
            page.close()
        browser.close()
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="seed 0, 1x only")
    args = parser.parse_args()
    print_machine()
    seeds = range(1) if args.smoke else range(20)
    started = time.perf_counter()
    accuracies = {s: accuracy_after(s) for s in seeds}
    for s, a in accuracies.items():
        print(f"seed {s:2d}: accuracy on fresh examples after 300 steps {100 * a:.1f} %")
    ratios = {s: scaling_ratio(s) for s in seeds}
    for s, r in ratios.items():
        print(f"seed {s:2d}: d_k = 64, loss at step 100 unscaled / scaled = {r:.1f}x")
    timings = page_timings([1] if args.smoke else [1, 4])
    for k, v in timings.items():
        print(f"{k}: {v} ms")
    on_page = dict(zip(seeds, page_accuracies(list(seeds)), strict=True))
    same = all(on_page[s] == accuracies[s] for s in seeds)
    print(f"the page's accuracies equal numpy's for every seed: {same}")
    keys = keys_while_training([1] if args.smoke else [1, 4], 4 if args.smoke else 20)
    for k, v in keys.items():
        print(f"{k}: {v}")
    page = site.build_page("head", "zh").encode("utf-8")
    gz_kb = len(gzip.compress(page, 6)) / 1024
    print(f"head.html: {len(page) / 1024:.1f} KB, {gz_kb:.1f} KB gzip -6")
    figures = {
        "min_accuracy": min(accuracies.values()),
        "seeds": len(accuracies),
        "ratio_at_least_2x": sum(r >= 2 for r in ratios.values()),
        "min_ratio": min(ratios.values()),
        **timings,
        "page_accuracies_equal": same,
        **keys,
        "page_gzip_kb": round(gz_kb, 1),
        "seconds": round(time.perf_counter() - started, 1),
    }
    print("FIGURES head " + json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
