"""What the instructor's view shows of a room's predictions: a histogram and the spread.

Pure functions of the stored predictions (floats) and the step's answer
(:meth:`attention_explorable.scenarios.Step.expected_output`, from the core).
"""

from __future__ import annotations

import math

import numpy as np

from .. import scenarios

#: Width of a histogram bar (the predictions' unit: the output y).
BIN_WIDTH = 0.5
#: A prediction this close to the answer counts as "within" (the steps page's verdict too).
WITHIN = scenarios.WITHIN


def histogram(values, lo: float = 2.0, hi: float = 10.0, width: float = BIN_WIDTH) -> dict[str, list]:
    """Bars of width ``width`` centred on the multiples of ``width`` from ``lo`` to ``hi``, and one bar more
    at an edge for the values beyond it.

    A value ``v`` is counted in the bar centred on the multiple of ``width``
    nearest to it (``[c - width/2, c + width/2)``): an exact answer sits in the
    middle of its bar, under the answer line. A value below
    ``lo - width/2`` or from ``hi + width/2`` on is counted in an overflow bar
    just outside that edge (drawn hatched), so that one outlier (20 in a class
    around 6) does not squeeze the class into a corner of the projector.

    Parameters
    ----------
    values : iterable of float
        The predictions (the output y).
    lo, hi : float
        The range drawn bar by bar, multiples of ``width`` (the steps' values 2 and 10).
    width : float
        A bar's width, in units of y (> 0).

    Returns
    -------
    dict
        ``left``, ``right`` (bar edges), ``count`` (predictions in the bar)
        and ``edge`` (``"below"``, ``"above"`` for an overflow bar, else
        ``""``), one entry per bar, left to right.

    Raises
    ------
    ValueError
        If ``width`` is not positive or ``hi < lo``.

    >>> h = histogram([6.0, 6.2, 9.0, 20.0], lo=5, hi=10, width=1)
    >>> h["count"], h["left"][:2], h["edge"][-1]
    ([0, 2, 0, 0, 1, 0, 1], [4.5, 5.5], 'above')
    """
    if not width > 0:
        raise ValueError(f"width must be a positive number, got {width!r}")
    if not hi >= lo:
        raise ValueError(f"hi must be at least lo, got lo={lo!r} and hi={hi!r}")
    values = np.asarray(list(values), dtype=float)
    n = int(round((hi - lo) / width)) + 1
    centres = lo + width * np.arange(n)
    idx = np.floor((values - lo) / width + 0.5 + 1e-9).astype(int) if values.size else np.zeros(0, dtype=int)
    counts = np.bincount(np.clip(idx, 0, n - 1)[(idx >= 0) & (idx < n)], minlength=n)
    bars = {
        "left": (centres - width / 2).tolist(),
        "right": (centres + width / 2).tolist(),
        "count": counts.tolist(),
        "edge": [""] * n,
    }
    below, above = int(np.sum(idx < 0)), int(np.sum(idx >= n))
    if below:
        for key, value in (
            ("left", lo - 1.5 * width),
            ("right", lo - 0.5 * width),
            ("count", below),
            ("edge", "below"),
        ):
            bars[key].insert(0, value)
    if above:
        for key, value in (
            ("left", hi + 0.5 * width),
            ("right", hi + 1.5 * width),
            ("count", above),
            ("edge", "above"),
        ):
            bars[key].append(value)
    return bars


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
    return {
        "n": int(gaps.size),
        "median_gap": float(np.median(gaps)),
        "share_within": float(np.mean(gaps <= within + 1e-12)),
    }


def compare(before, after, pairs, answer: float, within: float = WITHIN) -> dict[str, float | int | None]:
    """Two votes on one question: the share near ``answer`` in each, and how many students moved towards it.

    Parameters
    ----------
    before, after : iterable of float
        Every prediction of the earlier and of the later round.
    pairs : iterable of (float, float)
        (earlier, later) of each student who answered in both.
    answer : float
        The step's answer.

    Returns
    -------
    dict
        ``share_before``, ``share_after`` (as :func:`spread`'s ``share_within``;
        None for a round with no prediction), ``paired`` (students in both),
        ``closer`` (of those, how many are nearer the answer the second time)
        and ``farther``.

    >>> compare([5.0, 9.0], [6.0, 8.0], [(5.0, 6.0), (9.0, 8.0)], answer=6.0)
    {'share_before': 0.0, 'share_after': 0.5, 'paired': 2, 'closer': 2, 'farther': 0}
    """
    gaps = [(abs(a - answer), abs(b - answer)) for a, b in pairs]
    return {
        "share_before": spread(before, answer, within)["share_within"],
        "share_after": spread(after, answer, within)["share_within"],
        "paired": len(gaps),
        "closer": sum(b < a - 1e-12 for a, b in gaps),
        "farther": sum(b > a + 1e-12 for a, b in gaps),
    }


def percent(share: float | None) -> int | None:
    """``share`` (a fraction of the class, 0 to 1) as a whole percentage, halves rounded up: the one rule
    of the projector and of every student's page (which is sent this number, not the fraction).

    A share is a count over a count, so a product within 1e-9 of a half is a half.

    >>> percent(33 / 40), percent(0.125), percent(None)
    (83, 13, None)
    """
    if share is None:
        return None
    return int(math.floor(100.0 * share + 0.5 + 1e-9))
