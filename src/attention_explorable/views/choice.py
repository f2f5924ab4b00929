"""Predict first with a choice: the part of a view shared by the explorables that ask one.

An explorable that asks first (matrix, vector, self/cross) keeps two more
state entries: ``prediction``, one of its ``predictions`` ("" for none yet),
and ``revealed``, whether the answer is shown (after the prediction is
checked, or skipped). The page shows the question, its options as a column
of buttons (``prediction_choice``), "check" (``predict_check``) and "skip"
(``predict_skip``) until then, and the explorable's own controls are
disabled (``lock``: nothing can be tried before the prediction is made), the
feedback saying how they open; afterwards the options stay, pressed and
disabled, the controls open, and ``feedback`` says whether the prediction was
right and gives the answer. Its JavaScript twin is ``web/choice.js``.

Reference: the predict-observe-explain cycle (R. White and R. Gunstone,
"Probing Understanding", 1992); the course's explorables ask as the steps
explorable of section 3.7.5 does.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

#: The models of the question, by the names the views use (``explorables/base.prediction_models``).
MODELS = ("question", "prediction_choice", "predict_check", "predict_skip", "feedback")
#: The interface text this part uses (with ``<name>_predict_<option>`` of each explorable).
STRING_KEYS = (
    "predict_needed",
    "predict_yours",
    "predict_right",
    "predict_wrong",
    "predict_check",
    "skip_prediction",
    "predict_locked",
    "predict_right_mark",
)


def why_keys(name: str, predictions, right: str) -> tuple[str, ...]:
    """The keys of the sentences said to a wrong prediction, one per wrong option: why that one is not what
    happens (``<name>_predict_<option>_why``).

    >>> why_keys("matrix", ("", "flatter", "peaked", "same"), "peaked")
    ('matrix_predict_flatter_why', 'matrix_predict_same_why')
    """
    return tuple(f"{name}_predict_{p}_why" for p in predictions if p and p != right)


def check_choice(state, predictions) -> None:
    """Raise unless ``state``'s ``prediction`` is one of ``predictions`` and ``revealed`` a bool.

    Either may be missing (the numbers of a view never depend on them).

    Raises
    ------
    ValueError
        Naming the parameter and the value.
    """
    if "revealed" in state and not isinstance(state["revealed"], (bool, np.bool_)):
        raise ValueError(f"revealed must be true or false, got {state['revealed']!r}")
    if "prediction" in state and state["prediction"] not in predictions:
        raise ValueError(f"prediction must be one of {', '.join(map(repr, predictions))}, got {state['prediction']!r}")


def choice_props(name: str, S, predictions, prediction: str, revealed: bool, right: str) -> dict:
    """The question's controls for one state: the options' labels, the pressed one (index from 0, None),
    check and skip. Once the answer shows, the ``right`` option's label ends in ``predict_right_mark``, so
    that after a wrong pick (or a skip) the option that happens is marked where the student chose.

    >>> S = {"m_predict_a": "A", "m_predict_b": "B", "predict_right_mark": " ✓"}
    >>> choice_props("m", S, ("", "a", "b"), "a", True, "b")["prediction_choice"]
    {'labels': ['A', 'B ✓'], 'active': 0, 'disabled': True}
    """
    mark = S["predict_right_mark"] if revealed else ""
    return {
        "prediction_choice": {
            "labels": [S[f"{name}_predict_{p}"] + (mark if p == right else "") for p in predictions[1:]],
            "active": list(predictions).index(prediction) - 1 if prediction else None,
            "disabled": bool(revealed),
        },
        "predict_check": {"visible": not revealed},
        "predict_skip": {"visible": not revealed},
    }


def lock(props: dict, names, revealed: bool) -> dict:
    """Disable the controls ``names`` in a view's ``props`` until the answer shows; return ``props``.

    Each control's entry gets ``disabled``: true before the prediction is
    checked or skipped, else what the view had said (False when it said
    nothing), so that a control greyed for its own reason stays greyed.

    >>> lock({"causal": {"active": True}}, ["causal", "mode"], False)
    {'causal': {'active': True, 'disabled': True}, 'mode': {'disabled': True}}
    """
    for name in names:
        entry = props.setdefault(name, {})
        entry["disabled"] = bool(entry.get("disabled")) or not revealed
    return props


def choice_feedback(
    strings: dict, name: str, prediction: str, right: str, revealed: bool, answer: Callable[[], str]
) -> str:
    """What the page says once the answer shows: the prediction, right or not (if not, why not: the
    option's sentence of :func:`why_keys`), then ``answer``.

    Parameters
    ----------
    strings : dict
        The explorable's interface text: :data:`STRING_KEYS`, ``<name>_predict_<option>`` and
        :func:`why_keys`.
    name : str
        The explorable's name (the prefix of its options' keys).
    prediction, right : str
        The student's option ("" when skipped) and the right one.
    revealed : bool
        False: only that the controls open once the prediction is checked or skipped.
    answer : callable
        Makes the explorable's answer (HTML), said after the verdict; called only once it shows, so
        a move before then computes nothing for it.
    """
    if not revealed:
        return f"<span class='ae-hint'>{strings['predict_locked']}</span>"
    if not prediction:
        return answer()
    verdict = strings["predict_right"] if prediction == right else strings["predict_wrong"]
    why = "" if prediction == right else " " + strings[f"{name}_predict_{prediction}_why"]
    return (
        strings["predict_yours"].format(choice=strings[f"{name}_predict_{prediction}"])
        + f" <b>{verdict}</b>{why} "
        + answer()
    )
