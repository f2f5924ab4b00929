"""The three "predict, then demonstrate" steps of section 3.7.5, as data.

Each step names the state it resets to, the state its demonstration moves
to, the strings-table keys of its title and question, and which quantity
the student predicts. The expected answer is not stored: it is computed
from the target state by :mod:`attention_explorable.core`, so the server
app, a static export and the tests all read one definition.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np

from . import core

#: A prediction of the output y this close to a demonstration's counts as right: the page's verdict and the
#: class's share of right answers (``classroom.stats``) use the same rule.
WITHIN = 0.25
#: Names of the state variables a step sets, in the order they are shown.
STATE_KEYS = ("score_1", "score_diff", "temperature", "value_1", "value_2")


@dataclass(frozen=True)
class Step:
    """One step: where it starts, where its demonstration ends, what is asked.

    Attributes
    ----------
    number : int
        1, 2 or 3.
    start, target : Mapping[str, float]
        Values for every key of :data:`STATE_KEYS`. ``score_1`` and
        ``score_diff`` are dimensionless scores (``s_2 = s_1 + diff``),
        ``temperature`` is ``T > 0``, ``value_1``/``value_2`` are the two
        scalar values ``v_1``, ``v_2``.
    title_key, question_key : str
        Keys into :data:`attention_explorable.strings.STRINGS`.

    References
    ----------
    Course section 3.7.5, the steps (the source course's 3.8, "一步一步建立直观").
    """

    number: int
    start: MappingProxyType
    target: MappingProxyType
    title_key: str = field(default="")
    question_key: str = field(default="")

    def expected_output(self) -> float:
        """The output ``y`` at the target state: the answer to the question."""
        return outcome(self.target)["output"]


def _state(**kw) -> MappingProxyType:
    missing = set(STATE_KEYS) - set(kw)
    if missing:
        raise ValueError(f"state is missing {sorted(missing)}")
    return MappingProxyType({k: float(kw[k]) for k in STATE_KEYS})


_BASE = dict(score_1=0.0, score_diff=0.0, temperature=1.0, value_1=2.0, value_2=10.0)

STEPS: tuple[Step, ...] = (
    # Step 1 starts unequal, so the answer (the midpoint) is not on screen
    # before the student predicts it.
    Step(1, _state(**{**_BASE, "score_diff": 1.0}), _state(**_BASE), "step1_title", "step1_question"),
    Step(2, _state(**_BASE), _state(**{**_BASE, "score_diff": 2.0}), "step2_title", "step2_question"),
    # Large absolute scores (20 and 22) keep the difference at 2 but make the
    # literal exp(s / T) overflow once T < 22 / 709.78, about 0.031.
    Step(
        3,
        _state(**{**_BASE, "score_1": 20.0, "score_diff": 2.0}),
        _state(**{**_BASE, "score_1": 20.0, "score_diff": 2.0, "temperature": 0.02}),
        "step3_title",
        "step3_question",
    ),
)


def get_step(number: int) -> Step:
    """Return step ``number`` (1-3); ``ValueError`` naming the value otherwise."""
    for step in STEPS:
        if step.number == number:
            return step
    raise ValueError(f"step must be 1, 2 or 3, got {number!r}")


def outcome(state) -> dict:
    """Scores, weights and output of a two-value state, all from the core.

    Parameters
    ----------
    state : Mapping[str, float]
        Keys of :data:`STATE_KEYS`.

    Returns
    -------
    dict
        ``scores`` (2,), ``weights`` (2,), ``output`` (float),
        ``naive_weights`` (2,) as the literal ``exp`` formula gives them
        (may hold ``nan``).
    """
    scores = np.array([state["score_1"], state["score_1"] + state["score_diff"]])
    values = np.array([state["value_1"], state["value_2"]])
    weights = core.softmax(scores, temperature=state["temperature"])
    output = float(core.weighted_sum(weights, values))
    return {
        "scores": scores,
        "weights": weights,
        "output": output,
        "naive_weights": core.naive_softmax(scores, temperature=state["temperature"]),
    }


def interpolate(start, target, fraction: float) -> dict:
    """State between ``start`` (0) and ``target`` (1), smoothly eased.

    Temperatures are interpolated geometrically, so a move from 1 to 0.02
    spends as long on each factor of ten; other keys linearly.
    """
    f = min(max(float(fraction), 0.0), 1.0)
    if f in (0.0, 1.0):  # the ends exactly, so the last frame is the target itself
        return {key: float((start if f == 0.0 else target)[key]) for key in STATE_KEYS}
    f = f * f * (3.0 - 2.0 * f)  # smoothstep easing
    out = {}
    for key in STATE_KEYS:
        a, b = float(start[key]), float(target[key])
        if key == "temperature":
            out[key] = float(np.exp(np.log(a) + f * (np.log(b) - np.log(a))))
        else:
            out[key] = a + f * (b - a)
    return out


def link_starts() -> tuple[str, dict]:
    """What a deep link's ``step`` opens on, as the step buttons do: ``("step", {n: the start of step n,
    with no prediction, not yet demonstrated})``, for the links' rules (:mod:`attention_explorable.views.links`)."""
    return "step", {s.number: {"step": s.number, "prediction_text": "", "revealed": False, **s.start} for s in STEPS}
