"""What an exercise of the course text displays, as one pure function of its state.

An exercise (a ``:::exercise`` block of ``content/``) is one of three kinds:

* ``number``: the student types a number; it is right when it lies within
  ``tol`` of ``answer`` (default tolerance 1e-6);
* ``choice``: the student picks one option letter; right when it is ``answer``;
* ``text``: free text, not graded; the model answer can be revealed.

Its state is what the student typed (``response``), the option chosen
(``choice``, ``""`` for none), what was submitted at the last press of
"检查" (``checked``, None before the first) and whether the worked answer is
shown (``revealed``). The feedback belongs to ``checked``: typing afterwards
changes nothing shown until the next check. :func:`exercise_view` turns a
state into the feedback, the answer and the positions of the controls; its
JavaScript twin is ``exerciseView`` in ``web/exercise.js``.

Reference: course sections 3.7 (exercises Q1-Q4) and 3.8 (Exercise 3.8.1).
"""

from __future__ import annotations

import html
import re

from ..content import Block, inline_html, mark_languages, markdown_to_html
from ..strings import text
from .numbers import echo, normalized_number, parse_number

#: The state of an exercise, as mirrored to the browser.
STATE_NAMES = ("response", "choice", "checked", "revealed")
#: Longest echo of a malformed answer, in characters.
ECHO_LIMIT = 40
#: Relative slack on the tolerance, so that an answer exactly ``tol`` away
#: (0.213 for 0.212 ± 0.001, not exactly representable) counts as right.
TOL_SLACK = 1e-9
#: CSS class of the feedback for each outcome of a check.
STATUS_CSS = {"right": "ae-right", "wrong": "ae-wrong", "invalid": "ae-error"}
KINDS = ("number", "choice", "text")

STRING_KEYS = (
    "exercise_right",
    "exercise_wrong",
    "exercise_close",
    "exercise_malformed",
    "exercise_empty",
    "exercise_choose",
    "exercise_reveal",
    "exercise_hide",
    "exercise_check",
    "exercise_answer",
    "exercise_answer_placeholder",
    "exercise_your_answer",
)

#: A number typed with plain decimals ("0.21", "−0,5", "3"), once normalized: its digits after the point.
_DECIMALS = re.compile(r"[-+]?[0-9]+(?:\.([0-9]*))?(?:[eE]([-+]?[0-9]+))?")


def typed_decimals(submitted: str) -> int | None:
    """How many decimals ``submitted`` was typed with (``"0.21"`` and ``"0,21"`` -> 2, ``"3"`` and
    ``"16,777,216"`` -> 0; in scientific notation the place of its last digit, ``"1.68e7"`` -> -5 and
    ``"2.1e-3"`` -> 4), or None when it is not written as decimals (``"1/8"``, ``"2^24"``)."""
    m = _DECIMALS.fullmatch(normalized_number(submitted))
    if m is None:
        return None
    return len(m.group(1) or "") - int(m.group(2) or 0)


def is_close(value: float, submitted: str, config: dict) -> bool:
    """Whether a wrong ``value`` is the answer rounded to the decimals it was typed with, which are fewer
    than the exercise's tolerance asks for (0.21 for 0.212 ± 0.001, 1.68e7 for 16777216 ± 0.5): right, but
    not precise enough. A whole number written out is never "close" (8 for 8.4 is more likely a wrong
    answer than a rounded one)."""
    d = typed_decimals(submitted)
    if d is None or (d == 0 and "e" not in normalized_number(submitted).lower()) or 10.0**-d <= config["tol"]:
        return False
    return abs(value - config["answer"]) <= 0.5 * 10.0**-d * (1 + TOL_SLACK)


def mistake_hint(value: float, submitted: str, config: dict) -> str | None:
    """The hint written for a known wrong answer that ``value`` is (a ``---hint-33.55`` part), or None.

    ``value`` is that wrong answer when it lies within the exercise's tolerance of it, or within half a
    unit of the last decimal typed (``"0.11"`` is 0.114 to two decimals); a whole number is held to the
    tolerance alone. The first such mistake of ``config["mistakes"]`` wins.
    """
    d = typed_decimals(submitted)
    spread = max(config["tol"], 0.5 * 10.0**-d) if d is not None and d > 0 else config["tol"]
    for wrong, hint in config.get("mistakes", ()):
        if abs(value - wrong) <= spread * (1 + TOL_SLACK):
            return hint
    return None


_OPTION = re.compile(r"^\s*([A-Z])[.．、]\s*(.*)$")


def choice_options(block: Block) -> list[tuple[str, str]]:
    """``(letter, text)`` of each option of a choice exercise, in order (Markdown text)."""
    out = []
    for line in block.parts.get("options", "").splitlines():
        m = _OPTION.match(line)
        if m:
            out.append((m.group(1), m.group(2).strip()))
    return out


def question_html(block: Block, language: str | None = None) -> str:
    """The question of ``block`` as HTML, formulas in MathML (other-language runs marked for ``language``)."""
    return markdown_to_html(block.parts.get("question", ""), language=language)


def options_html(block: Block, language: str | None = None) -> str:
    """The options of a choice exercise as an HTML list (``""`` for other kinds).

    Option texts may hold math, which radio labels cannot lay out: the
    options are shown as rendered text, the radios carry only the letters.
    With ``language``, runs of the other language are marked.
    """
    items = "".join(f"<li><b>{letter}.</b> {inline_html(opt)}</li>" for letter, opt in choice_options(block))
    out = f"<ul class='ae-options'>{items}</ul>" if items else ""
    return mark_languages(out, language) if language and out else out


def exercise_config(block: Block, language: str) -> dict:
    """What :func:`exercise_view` needs besides the state, as JSON-able data.

    Parameters
    ----------
    block : Block
        A parsed ``:::exercise`` block (see :mod:`attention_explorable.content`).
    language : str
        Language of the interface text ("zh" or "en").

    Returns
    -------
    dict
        ``kind`` ("number", "choice" or "text"); ``answer`` (a float, a
        letter, or None for text); ``tol`` (float, number kind, else None);
        ``letters`` (the option letters, choice kind, else empty);
        ``hint_html`` and ``answer_html`` (rendered, formulas in MathML;
        ``hint_html`` is ``""`` when the block has no hint); ``hints_html`` (choice kind: wrong
        option letter -> its own hint, which replaces ``hint_html`` for it); ``mistakes`` (number
        kind: ``[wrong answer, its hint]`` for each ``---hint-<number>`` part, in order, see
        :func:`mistake_hint`); ``question_html`` and
        ``options_html`` (:func:`question_html`, :func:`options_html`); ``id`` (the
        block's id, ``exercise`` for none); ``strings``.

    Raises
    ------
    ValueError
        If ``block`` is not an exercise block, or its kind is unknown, or a ``---hint-X`` names
        no wrong option of a choice exercise, or a ``---hint-<number>`` is on another kind or lies
        within the tolerance of the answer (it would never be shown).
    KeyError
        If ``language`` is unknown.
    """
    if block.kind != "exercise":
        raise ValueError(f"block must be an exercise block, got kind {block.kind!r}")
    kind = block.options.get("kind")
    if kind not in KINDS:
        raise ValueError(f"exercise kind must be one of {KINDS}, got {kind!r}")
    hint = block.parts.get("hint", "")
    letters = [letter for letter, _ in choice_options(block)] if kind == "choice" else []
    answer = float(block.options["answer"]) if kind == "number" else block.options.get("answer")
    tol = float(block.options.get("tol", 1e-6)) if kind == "number" else None
    where = f"exercise {block.args[0] if block.args else ''}"
    hints = {}  # a choice exercise's own hint for each wrong option that has one (---hint-B)
    mistakes = []  # a number exercise's hint for each known wrong answer (---hint-33.55)
    for name, body in block.parts.items():
        if not name.startswith("hint-"):
            continue
        key = name.removeprefix("hint-")
        if kind == "number":
            try:
                wrong = float(key)
            except ValueError:
                raise ValueError(
                    f"{where}: ---{name} names no number (a number exercise's own hints name wrong answers)"
                ) from None
            if abs(wrong - answer) <= tol * (1 + TOL_SLACK):
                raise ValueError(f"{where}: ---{name} lies within the tolerance {tol:g} of the answer {answer:g}")
            mistakes.append([wrong, markdown_to_html(body, language=language)])
            continue
        if key not in letters or key == answer:
            raise ValueError(f"{where}: ---{name} names no wrong option of {letters}")
        hints[key] = markdown_to_html(body, language=language)
    return {
        "kind": kind,
        "answer": answer,
        "tol": tol,
        "letters": letters,
        "hint_html": markdown_to_html(hint, language=language) if hint else "",
        "hints_html": hints,
        "mistakes": mistakes,
        "answer_html": (
            f"<div class='ae-answer'><b>{text('exercise_model_answer', language)}</b>"
            f"{markdown_to_html(block.parts.get('answer', ''), language=language)}</div>"
        ),
        "question_html": question_html(block, language),
        "options_html": options_html(block, language),
        "id": block.args[0] if block.args else "exercise",
        "strings": {key: text(key, language) for key in STRING_KEYS},
    }


def judge(submitted: str, config: dict) -> tuple[str, str]:
    """The outcome of checking ``submitted``: ``(status, message)``, never raising.

    Parameters
    ----------
    submitted : str
        The typed answer (number kind) or the chosen letter (choice kind,
        ``""`` for none).
    config : dict
        :func:`exercise_config` of the exercise.

    Returns
    -------
    (str, str)
        ``status`` is "right", "wrong" (the message ends with the hint, a known mistake's own where one
        is written, :func:`mistake_hint`; for the answer rounded to
        fewer decimals than asked, :func:`is_close`, it says to give more decimals),
        "invalid" (empty, not a number or no option chosen: the message
        says so, quoting a malformed entry, escaped and cut to 40
        characters) or "pending" (text exercises are not graded; empty
        message). The message is HTML.
    """
    kind, S = config["kind"], config["strings"]
    if kind == "number":
        if not submitted.strip():
            return "invalid", S["exercise_empty"]
        try:
            value = parse_number(submitted)
        except ValueError:
            return "invalid", S["exercise_malformed"].format(raw=html.escape(echo(submitted, ECHO_LIMIT)))
        if abs(value - config["answer"]) <= config["tol"] * (1 + TOL_SLACK):
            return "right", S["exercise_right"]
        if is_close(value, submitted, config):
            return "wrong", S["exercise_close"]
        own = mistake_hint(value, submitted, config)  # a known mistake's own hint, else the exercise's
        return "wrong", S["exercise_wrong"] + (config["hint_html"] if own is None else own)
    if kind == "choice":
        if not submitted:
            return "invalid", S["exercise_choose"]
        if submitted == config["answer"]:
            return "right", S["exercise_right"]
        return "wrong", S["exercise_wrong"] + config.get("hints_html", {}).get(submitted, config["hint_html"])
    return "pending", ""


def exercise_view(state, config: dict) -> dict:
    """Everything an exercise displays for one state.

    Parameters
    ----------
    state : Mapping
        ``response`` (str, as typed), ``choice`` (an option letter or ``""``),
        ``checked`` (str submitted at the last check, or None), ``revealed`` (bool).
    config : dict
        :func:`exercise_config` of the exercise.

    Returns
    -------
    dict
        A view (see :mod:`attention_explorable.views`): no sources; html
        ``feedback`` (the outcome of the last check, ``""`` before one) and
        ``answer`` (the worked answer while revealed, else ``""``); props of
        ``feedback`` and ``answer`` (visible), ``reveal`` (the button's
        label) and ``input`` (its value; number and text kinds) or
        ``choice`` (the active radio, None for none; choice kind).
    """
    S, kind = config["strings"], config["kind"]
    checked, revealed = state["checked"], bool(state["revealed"])
    status, message = judge(checked, config) if checked is not None else ("pending", "")
    feedback = f"<div class='{STATUS_CSS[status]}'>{message}</div>" if status in STATUS_CSS else ""
    props = {
        "feedback": {"visible": feedback != ""},
        "answer": {"visible": revealed},
        "reveal": {"label": S["exercise_hide"] if revealed else S["exercise_reveal"]},
    }
    if kind == "choice":
        letters = config["letters"]
        props["choice"] = {"active": letters.index(state["choice"]) if state["choice"] in letters else None}
    else:
        props["input"] = {"value": state["response"]}
    return {
        "sources": {},
        "html": {"feedback": feedback, "answer": config["answer_html"] if revealed else ""},
        "props": props,
    }
