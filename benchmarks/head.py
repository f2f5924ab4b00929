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

Usage::

    python benchmarks/head.py            # seeds 0-19
    python benchmarks/head.py --smoke    # seeds 0-1, 1x only

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
from benchlib import CHROMIUM, CHROMIUM_ARGS, print_machine  # noqa: E402


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


def scaling_ratio(seed: int, steps: int = 100) -> float:
    losses = {}
    for scaled in (True, False):
        run = head.start(seed=seed, d_k=64, scaled=scaled)
        for _ in range(steps):
            run.step()
        losses[scaled] = float(np.mean(run.losses[-5:]))
    return losses[False] / losses[True]


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
    parser.add_argument("--smoke", action="store_true", help="seeds 0-1, 1x only")
    args = parser.parse_args()
    print_machine()
    seeds = range(2) if args.smoke else range(20)
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
    page = site.build_page("head", "zh").encode("utf-8")
    gz_kb = len(gzip.compress(page, 6)) / 1024
    print(f"head.html: {len(page) / 1024:.1f} KB, {gz_kb:.1f} KB gzip -6")
    figures = {
        "min_accuracy": min(accuracies.values()),
        "seeds": len(accuracies),
        "ratio_at_least_2x": sum(r >= 2 for r in ratios.values()),
        "min_ratio": min(ratios.values()),
        **timings,
        "page_gzip_kb": round(gz_kb, 1),
        "seconds": round(time.perf_counter() - started, 1),
    }
    print("FIGURES head " + json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
