"""What the instructor's view shows of a room's predictions: a histogram and the spread.

Pure functions of the stored predictions (floats) and the step's answer
(:meth:`attention_explorable.scenarios.Step.expected_output`, from the core).
"""

from __future__ import annotations

import math

import numpy as np

#: Width of a histogram bar (the predictions' unit: the output y).
BIN_WIDTH = 0.5
#: A prediction this close to the answer counts as "within".
WITHIN = 0.5


def histogram(values, lo: float = 2.0, hi: float = 10.0, width: float = BIN_WIDTH) -> dict[str, list[float]]:
    """Bars of width ``width`` covering ``[lo, hi]`` and every value, on a grid of ``width``.

    Returns
    -------
    dict
        ``left``, ``right`` (bar edges) and ``count`` (predictions in
        ``[left, right)``), one entry per bar; ``hi`` lies in the last bar.

    >>> histogram([6.0, 6.2, 9.0], lo=5, hi=10, width=1)["count"]
    [0, 2, 0, 0, 1, 0]
    """
    values = np.asarray(list(values), dtype=float)
    low = min([lo, *values]) if values.size else lo
    high = max([hi, *values]) if values.size else hi
    start = math.floor(low / width) * width
    n = max(1, math.ceil((high - start) / width + 1e-9))
    if start + n * width <= high:  # the largest value opens a bar of its own
        n += 1
    edges = start + width * np.arange(n + 1)
    counts = np.zeros(n, dtype=int)
    if values.size:
        idx = np.clip(np.floor((values - start) / width + 1e-9).astype(int), 0, n - 1)
        np.add.at(counts, idx, 1)
    return {"left": edges[:-1].tolist(), "right": edges[1:].tolist(), "count": counts.tolist()}


def spread(values, answer: float, within: float = WITHIN) -> dict[str, float | int | None]:
    """How far the predictions lie from ``answer``.

    Returns
    -------
    dict
        ``n`` (number of predictions), ``median_gap`` (median of
        ``|prediction - answer|``; None with no prediction) and
        ``share_within`` (fraction with ``|prediction - answer| <= within``,
        in [0, 1]; None with no prediction).

    >>> spread([5.0, 6.2, 9.0], answer=6.0)
    {'n': 3, 'median_gap': 1.0, 'share_within': 0.3333333333333333}
    """
    gaps = np.abs(np.asarray(list(values), dtype=float) - answer)
    if gaps.size == 0:
        return {"n": 0, "median_gap": None, "share_within": None}
    return {"n": int(gaps.size), "median_gap": float(np.median(gaps)),
            "share_within": float(np.mean(gaps <= within + 1e-12))}
