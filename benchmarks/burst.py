"""One client's burst of page requests against another client's page, on ``attention-explorable serve``.

Client A (127.0.0.1) asks for ``--burst`` fully built textbooks
(``/textbook?explorables=all``) at once; half a second later client B
(127.0.0.2) asks for ``/steps``. Prints how long B waited (from its request
to the last byte of its page), how many of A's pages finished after B's, and
how long A's burst took. Repeated ``--n`` times; median and max of B's wait.

Usage::

    python benchmarks/burst.py            # burst of 10, 3 rounds
    python benchmarks/burst.py --smoke    # burst of 3, 1 round

Target: B's page in <= 2 s while A's burst is under way.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import http.client
import json
import statistics
import subprocess
import sys
import time
import urllib.request

from benchlib import ROOT, free_port, print_machine, verdict

TARGET_S = 2.0


def get(port: int, path: str, source: str) -> tuple[int, float, float]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=300, source_address=(source, 0))
    start = time.monotonic()
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        response.read()
        return response.status, start, time.monotonic()
    finally:
        conn.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--burst", type=int, default=10, help="pages in client A's burst (default 10)")
    parser.add_argument("--n", type=int, default=3, help="rounds (default 3)")
    parser.add_argument("--smoke", action="store_true", help="burst of 3, one round")
    args = parser.parse_args(argv)
    burst, rounds = (3, 1) if args.smoke else (args.burst, args.n)
    print_machine()
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "attention_explorable.cli", "serve", "--port", str(port)],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    waits, later, errors = [], [], 0
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/textbook?explorables=all", timeout=60).read()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    print("the server did not start", file=sys.stderr)
                    return 2
                time.sleep(0.5)
        for _ in range(rounds):
            with concurrent.futures.ThreadPoolExecutor(max_workers=burst + 1) as pool:
                a = [pool.submit(get, port, "/textbook?explorables=all", "127.0.0.1") for _ in range(burst)]
                time.sleep(0.5)
                status, start, end = pool.submit(get, port, "/steps", "127.0.0.2").result()
                done = [f.result() for f in a]
            errors += (status != 200) + sum(s != 200 for s, _, _ in done)
            waits.append(end - start)
            later.append(sum(1 for _, _, e in done if e > end))
    finally:
        proc.terminate()
        proc.wait(10)
    p50, worst = statistics.median(waits), max(waits)
    print(f"client B's /steps during client A's burst of {burst} full textbooks: median {p50:.2f} s, "
          f"max {worst:.2f} s over {rounds} rounds; A's pages finished after B's: {later}   "
          f"target <= {TARGET_S:g} s {verdict(p50 <= TARGET_S)}")
    print("FIGURES burst " + json.dumps({"figures": {"burst": burst, "rounds": rounds, "median_s": round(p50, 2),
                                                     "max_s": round(worst, 2), "later": later},
                                         "errors": errors}))
    return 2 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
