"""The questions an instructor can pose to a room: the three steps of 3.8 and the text's checked exercises.

A room shows one question at a time. Its number is what the database keeps
(``rooms.step``, ``predictions.step``): 1, 2 and 3 are the steps of the
steps explorable (:mod:`attention_explorable.scenarios`), asked on the
explorable itself; every checked exercise of the course text (a
``:::exercise`` block of kind ``number`` or ``choice``, in ``sections/``)
and every explorable's prediction with a right answer (:func:`prompts`) has
a number of its own, from its id (:func:`question_number`), which stays the
same from one release to the next as long as the id does. A student's
answer is a number: the value typed, or the index of the option chosen
(0 for A).

Nothing here knows of the server: :mod:`.channel` checks an answer with
:meth:`Question.accepts` and finds the answer of a revealed question here,
:mod:`.instructor` lists the questions and draws each one's histogram, and
the student's page gets :func:`page_questions` (the text, the kind, the
options; never the answer) in its class config (``web/classroom.js``).

Reference: course sections 3.7 (exercises Q2, Q3, Q5) and 3.8 (the three
steps, their checks, exercises 3.8.1-3.8.3).
"""

from __future__ import annotations

import functools
import math
import re
import zlib
from dataclasses import dataclass

from .. import scenarios
from ..strings import text
from ..views.steps import PREDICTION_BOUNDS, step_question
from . import stats
from .store import CUSTOM_FIRST, CUSTOM_NUMBER_LIMIT, CustomQuestion, in_bounds

#: Questions whose answer is a number, or an option.
KINDS = ("number", "choice")
#: The first number of an exercise's question (1-3 are the steps).
FIRST_EXERCISE = 1000
#: The largest answer (either sign) an exercise's number box takes.
NUMBER_LIMIT = 1e15
#: Bars of a number question's histogram on each side of the answer.
BARS_EACH_SIDE = 6


@dataclass(frozen=True)
class Question:
    """One question a room can be asked.

    Attributes
    ----------
    number : int
        What the database keeps: 1-3 for the steps, :func:`question_number` for the others.
    key : str
        ``step-1`` ... ``step-3``, an exercise's id (``q2-alpha2``) or an explorable's
        prediction (a key of :func:`prompts`, ``matrix-prediction``).
    section : str
        ``3.7`` or ``3.8``.
    kind : {"number", "choice"}
    answer : float
        The right value; for a choice, the index of the right option (0 for A).
    within : float
        An answer this close to ``answer`` counts as right (the exercise's
        tolerance; :data:`.stats.WITHIN` for a step's prediction of y).
    bounds : (float, float)
        The answers accepted (a choice: 0 to its last option).
    options : tuple of str
        A choice's option letters (``("A", "B", "C", "D")``); empty for a number.
    text : str
        A typed question's words (plain text, :func:`typed_question`); empty for the text's own.
    choices : tuple of str
        A typed choice's options' words, in the order of ``options``; empty otherwise.
    """

    number: int
    key: str
    section: str
    kind: str
    answer: float
    within: float
    bounds: tuple[float, float]
    options: tuple[str, ...] = ()
    text: str = ""
    choices: tuple[str, ...] = ()

    @property
    def is_step(self) -> bool:
        """Whether this is one of the steps explorable's three (asked on the explorable itself)."""
        return self.number < FIRST_EXERCISE

    @property
    def is_typed(self) -> bool:
        """Whether the instructor typed this question in the room (:func:`typed_question`)."""
        return self.number >= CUSTOM_FIRST

    @property
    def ordinal(self) -> int | None:
        """A typed question's place among its room's, from 1 (its key ``custom-<ordinal>``); else None."""
        return int(self.key.removeprefix("custom-")) if self.is_typed else None

    def accepts(self, value) -> bool:
        """Whether ``value`` can be an answer: a finite real number within :attr:`bounds`, and for a choice
        the index of one of its options."""
        if not in_bounds(value, self.bounds):
            return False
        return self.kind != "choice" or float(value) == int(value)

    def bars(self, values) -> dict[str, list]:
        """The histogram of ``values`` (:func:`.stats.histogram`) on this question's scale: a bar per
        option of a choice; bars centred on the answer's grid for a number (the steps: 2 to 10 by 0.5)."""
        lo, hi, width = self.scale
        return stats.histogram(values, lo=lo, hi=hi, width=width)

    @property
    def scale(self) -> tuple[float, float, float]:
        """(lo, hi, width) of :meth:`bars`."""
        if self.kind == "choice":
            return 0.0, float(len(self.options) - 1), 1.0
        if self.is_step:
            return 2.0, 10.0, stats.BIN_WIDTH
        width = _nice_width(self.answer, self.within)
        return self.answer - BARS_EACH_SIDE * width, self.answer + BARS_EACH_SIDE * width, width

    def format(self, value: float) -> str:
        """``value`` as an answer of this question is read: a choice's letter, else the number (as typed)."""
        if self.kind == "choice":
            index = int(value)
            return self.options[index] if 0 <= index < len(self.options) else "?"
        return f"{value:g}" if abs(value) < 1e6 else f"{value:.0f}"


def question_number(key: str) -> int:
    """The number an exercise's (or a prediction's) question is kept under, from its id: the same in every release and
    process (a CRC-32 of the id, from :data:`FIRST_EXERCISE`; :func:`all_questions` checks that no two
    collide).

    >>> question_number("q2-alpha2") == question_number("q2-alpha2") >= FIRST_EXERCISE
    True
    """
    return FIRST_EXERCISE + zlib.crc32(key.encode("utf-8")) % 1_000_000


def _nice_width(answer: float, within: float) -> float:
    """A bar width of 1, 2 or 5 times a power of ten, about a tenth of the answer's size (at least its
    tolerance)."""
    size = max(abs(answer) / 10, within, 1e-9)
    power = 10 ** math.floor(math.log10(size))
    for factor in (1, 2, 5, 10):
        if factor * power >= size * 0.999:
            return factor * power
    return 10 * power  # pragma: no cover - the loop ends at 10


_OPTION = re.compile(r"^\s*([A-Z])[.．、]")


@functools.cache
def prompts() -> dict[str, tuple[str, str, tuple[str, ...], int]]:
    """The explorables' predictions asked with a choice, as class questions: id -> (section, the
    question's string key, the options' string keys, the right option's index from 0).

    Read from the registry (:data:`~attention_explorable.explorables.MODULES`): every explorable whose view module (``views/<name>.py``) has
    ``PREDICTIONS`` ("" then the options), ``RIGHT_PREDICTION`` and ``SECTION``
    (``views/choice.py``) asks ``<name>_predict_question``; its id is ``<name>-prediction``. Only
    the pure view modules are imported (numpy, no Panel), so the class server's first answer does
    not wait for the explorables' Viewers.
    """
    import importlib

    from ..explorables import MODULES

    out = {}
    for name in MODULES:
        try:
            view = importlib.import_module(f"{__package__.rsplit('.', 1)[0]}.views.{name}")
        except ModuleNotFoundError:  # an explorable registered from outside: its view lives elsewhere
            continue
        predictions, right = getattr(view, "PREDICTIONS", None), getattr(view, "RIGHT_PREDICTION", None)
        if predictions and right and getattr(view, "SECTION", ""):
            out[f"{name}-prediction"] = (
                view.SECTION,
                f"{name}_predict_question",
                tuple(f"{name}_predict_{p}" for p in predictions[1:]),
                list(predictions).index(right) - 1,
            )
    return out


def _prompt_questions() -> list[tuple[Question, None]]:
    out = []
    for key, (section, _question, options, right) in prompts().items():
        letters = tuple("ABCDEFGH"[: len(options)])
        out.append(
            (
                Question(
                    question_number(key),
                    key,
                    section,
                    "choice",
                    float(right),
                    0.0,
                    (0.0, float(len(letters) - 1)),
                    letters,
                ),
                None,
            )
        )
    return out


def _exercise_questions(language: str = "zh") -> list[tuple[Question, object]]:
    from ..content import load_sections

    out = []
    for section in load_sections(language):
        for block in section.blocks:
            kind = block.options.get("kind")
            if block.kind != "exercise" or kind not in KINDS:
                continue
            key = block.args[0]
            number = section.id.replace("sec-", "").replace("-", ".")
            if kind == "choice":
                letters = tuple(
                    m.group(1) for line in block.parts.get("options", "").splitlines() if (m := _OPTION.match(line))
                )
                answer = float(letters.index(block.options["answer"].strip().upper()))
                question = Question(
                    question_number(key), key, number, kind, answer, 0.0, (0.0, float(len(letters) - 1)), letters
                )
            else:
                answer, tol = float(block.options["answer"]), float(block.options.get("tol", 1e-6))
                question = Question(question_number(key), key, number, kind, answer, tol, (-NUMBER_LIMIT, NUMBER_LIMIT))
            out.append((question, block))
    return out


@functools.lru_cache(maxsize=None)
def _registry(language: str) -> tuple[tuple[Question, object | None], ...]:
    steps = [
        (
            Question(
                step.number,
                f"step-{step.number}",
                "3.7",
                "number",
                step.expected_output(),
                stats.WITHIN,
                PREDICTION_BOUNDS,
            ),
            None,
        )
        for step in scenarios.STEPS
    ]
    found = steps + _exercise_questions(language) + _prompt_questions()
    numbers = [q.number for q, _ in found]
    if len(set(numbers)) != len(numbers):  # pragma: no cover - held by tests/classroom/test_questions.py
        raise RuntimeError("two questions share a number: rename an exercise")
    return tuple(found)


def typed_question(typed: CustomQuestion) -> Question:
    """The question an instructor typed in a room (:meth:`.store.Store.add_question`), as the class asks it:
    a choice's options lettered from A, a number's answers taken within ±:data:`.store.CUSTOM_NUMBER_LIMIT`."""
    letters = tuple("ABCDEFGH"[: len(typed.options)])
    bounds = (0.0, float(len(letters) - 1)) if typed.kind == "choice" else (-CUSTOM_NUMBER_LIMIT, CUSTOM_NUMBER_LIMIT)
    return Question(
        typed.number, typed.key, "", typed.kind, typed.answer, typed.within, bounds, letters, typed.text, typed.options
    )


def _block(question: Question, language: str):
    """The ``:::exercise`` block of ``question`` in ``language``'s edition."""
    return next(b for q, b in _registry(language) if q.key == question.key)


def all_questions() -> tuple[Question, ...]:
    """Every question: the steps, the exercises of 3.7 and of 3.8 in the order of the text, then the
    explorables' predictions."""
    return tuple(q for q, _ in _registry("zh"))


def question_keys() -> dict[int, str]:
    """Each question's key by its number (the CSV's ``question`` column)."""
    return {q.number: q.key for q in all_questions()}


def get_question(number) -> Question | None:
    """The question kept under ``number``, or None (not an int, or no such question)."""
    if isinstance(number, bool) or not isinstance(number, int):
        return None
    return next((q for q in all_questions() if q.number == number), None)


#: TeX a question's first words may hold, as the characters a list shows (the rest of TeX is dropped).
_TEX_WORDS = {
    "to": "→", "cdot": "·", "times": "×", "top": "ᵀ", "infty": "∞", "le": "≤", "leq": "≤", "ge": "≥",
    "geq": "≥", "approx": "≈", "ne": "≠", "sum": "Σ", "alpha": "α", "beta": "β", "tau": "τ", "exp": "exp",
    "log": "log", "max": "max", "softmax": "softmax", "in": "∈", "mathbb": "", "ldots": "…", "dots": "…",
}  # fmt: skip


def _plain(markdown: str, limit: int = 70) -> str:
    """The first words of a Markdown text, as plain text: formulas without their dollars, their TeX read
    as a list can show it (``\\frac{a}{b}`` as a/b, ``\\sqrt{d_k}`` as √d_k, ``\\to`` as →)."""
    tex = re.sub(r"\\(left|right|operatorname|mathsf|mathrm|text|,|;|!)", "", markdown)
    tex = re.sub(r"\^\s*\{?\s*(T|\\top)\s*\}?", "ᵀ", tex)  # a transpose
    tex = re.sub(r"([_^])\{([^{}]*)\}", r"\1\2", tex)  # k_{1} -> k_1
    for _ in range(3):  # nested fractions and roots, innermost first
        tex = re.sub(r"\\frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}", r"(\1)/(\2)", tex)
        tex = re.sub(r"\\sqrt\s*\{([^{}]*)\}", r"√\1", tex)
    tex = re.sub(r"\\([A-Za-z]+)", lambda m: _TEX_WORDS.get(m.group(1), m.group(1)), tex)
    tex = re.sub(r"\(([A-Za-z0-9_^]+)\)/", r"\1/", tex)  # (QK^T)/ -> QK^T/ where one term is plain
    tex = re.sub(r"/\(([A-Za-z0-9_^√]+)\)", r"/\1", tex)
    flat = " ".join(re.sub(r"[$*`{}\\]", "", tex).split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def question_label(question: Question, language: str) -> str:
    """One line naming ``question`` in a list (plain text): its section, its kind and its first words."""
    if question.is_typed:
        start = " ".join(question.text.split())
        return text(
            "question_custom_label",
            language,
            title=question_title(question, language),
            start=start[:69] + "…" if len(start) > 70 else start,
        )
    if question.is_step:
        step = scenarios.get_step(question.number)
        return text("question_step_label", language, section=question.section, title=text(step.title_key, language))
    if question.key in prompts():
        start = text(prompts()[question.key][1], language)
        return text(
            "question_prompt_label",
            language,
            title=question_title(question, language),
            start=start[:69] + "…" if len(start) > 70 else start,
        )
    number, words = _numbered(question, language)
    return text("question_exercise_label", language, exercise=number, start=_plain(words))


#: An exercise's own number at the start of its question ("练习 3.7.2：…", "Exercise 3.8.1. …").
_EXERCISE_NUMBER = re.compile(r"^\s*(?:练习|Exercise)\s*(\d+(?:\.\d+)+)\s*[：:.]\s*")


def _numbered(question: Question, language: str) -> tuple[str, str]:
    """(the exercise's number as its text gives it, "3.7.2"; else its section and key, "3.8 step1-check"),
    and its question's Markdown without that number."""
    words = _block(question, language).parts.get("question", "")
    m = _EXERCISE_NUMBER.match(words)
    return (m.group(1), words[m.end() :]) if m else (f"{question.section} {question.key}", words)


def exercise_name(question: Question, language: str) -> str:
    """How the instructor's round line names an exercise: its number ("3.7.2"), or its section and key."""
    return _numbered(question, language)[0]


def question_title(question: Question, language: str) -> str:
    """A short heading of ``question`` (plain text): "3.8 Step 2 · ...", "Exercise 3.7.3",
    "Class question 1"."""
    if question.is_typed:
        return text("question_custom_title", language, ordinal=question.ordinal)
    if question.is_step:
        return text(scenarios.get_step(question.number).title_key, language)
    if question.key in prompts():  # "3.7 prediction · <the explorable's heading>"
        from ..explorables import MODULES

        return text(
            "question_prompt_title",
            language,
            section=question.section,
            heading=text(MODULES[question.key.split("-")[0]].key("title"), language),
        )
    return text("question_exercise_title", language, exercise=exercise_name(question, language))


def question_html(question: Question, language: str) -> str:
    """The question as HTML (formulas in MathML), with a choice's options, under :func:`question_title`:
    built from the package's own text, never from anything a browser sent."""
    import html

    if question.is_typed:  # the instructor's words, escaped: plain text, never markup
        items = "".join(
            f"<li><b>{letter}.</b> {html.escape(words)}</li>"
            for letter, words in zip(question.options, question.choices)
        )
        return f"<p class='ae-typed'>{html.escape(question.text)}</p>" + (
            f"<ul class='ae-options'>{items}</ul>" if items else ""
        )
    if question.is_step:
        step = scenarios.get_step(question.number)  # (a class asks the course's own step: its own values)
        return f"<p>{html.escape(step_question(text(step.question_key, language), step.target))}</p>"
    from ..views.exercise import options_html

    if question.key in prompts():
        _section, asked, options, _right = prompts()[question.key]
        items = "".join(
            f"<li><b>{letter}.</b> {html.escape(text(key, language))}</li>"
            for letter, key in zip(question.options, options)
        )
        return f"<p>{html.escape(text(asked, language))}</p><ul class='ae-options'>{items}</ul>"
    block = _block(question, language)
    # Under its title ("练习 3.7.3"), the question without its number again.
    _number, words = _numbered(question, language)
    from ..content import markdown_to_html

    return markdown_to_html(words, language=language) + options_html(block, language)


def typed_for_page(question: Question) -> dict:
    """What a student's page is sent of a typed question (with the room's news, ``classroom/channel.py``):
    ``number``, ``ordinal``, ``kind``, ``text`` and ``choices`` (plain text, which the page writes as text),
    ``options`` (letters) and ``bounds``. No answer; no markup."""
    return {
        "number": question.number,
        "ordinal": question.ordinal,
        "kind": question.kind,
        "text": question.text,
        "choices": list(question.choices),
        "options": list(question.options),
        "bounds": list(question.bounds),
    }


def page_questions(language: str) -> dict[str, dict]:
    """What a student's page shows of each question, by number (as text keys of JSON): ``kind``,
    ``title`` (:func:`question_title`), ``html`` (:func:`question_html`), ``options`` (letters), ``bounds``
    and ``step`` (a step of the steps explorable: its card stands in for the explorable while that is out
    of sight). No answer."""
    return {
        str(q.number): {
            "kind": q.kind,
            "title": question_title(q, language),
            "html": question_html(q, language),
            "options": list(q.options),
            "bounds": list(q.bounds),
            "step": q.is_step,
        }
        for q in all_questions()
    }
