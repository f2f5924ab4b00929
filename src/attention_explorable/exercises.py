"""Interactive exercises: type or choose, check, get a hint, reveal the answer."""

from __future__ import annotations

import html
import math
import re

import panel as pn
import param

from .content import Block, inline_html, markdown_to_html, math_html
from .strings import DEFAULT_LANGUAGE, STRINGS, text

_OPTION = re.compile(r"^\s*([A-Z])[.．、]\s*(.*)$")


def parse_number(raw: str) -> float:
    """Parse a typed numeric answer.

    Accepts a decimal point or a comma (half- or full-width), surrounding
    spaces, and a simple fraction ``a/b``.

    Raises
    ------
    ValueError
        If ``raw`` is empty, not a number, or not finite; the message quotes it.

    Examples
    --------
    >>> parse_number(" 0,155 "), parse_number("42/5")
    (0.155, 8.4)
    """
    s = raw.strip().replace("，", ".").replace(",", ".").replace("－", "-").replace("−", "-")
    try:
        if "/" in s:
            num, den = s.split("/", 1)
            value = float(num) / float(den)
        else:
            value = float(s)
    except (ValueError, ZeroDivisionError):
        raise ValueError(f"answer must be a number, got {raw!r}") from None
    if not math.isfinite(value):
        raise ValueError(f"answer must be a finite number, got {raw!r}")
    return value


def choice_options(block: Block) -> list[tuple[str, str]]:
    """``(letter, text)`` pairs of a choice exercise, in order."""
    out = []
    for line in block.parts.get("options", "").splitlines():
        m = _OPTION.match(line)
        if m:
            out.append((m.group(1), m.group(2).strip()))
    return out


class Exercise(pn.viewable.Viewer):
    """One exercise of the course text, checked on the server.

    Kinds (from the content block's ``kind=`` option):

    * ``number``: the student types a number; right when within ``tol``
      (default 1e-6) of ``answer``; a malformed entry gets a message, not an error;
    * ``choice``: the student picks one option; right when it is ``answer``;
    * ``text``: free text, not graded; the model answer can be revealed.

    Parameters
    ----------
    block : Block
        A parsed ``:::exercise`` block (see :mod:`attention_explorable.content`).
    response : str
        What the student typed (number and text kinds).
    choice : str or None
        The chosen option's letter (choice kind).

    Raises
    ------
    ValueError
        If ``block`` is not an exercise block.

    References
    ----------
    Course sections 3.7 (exercises Q1-Q4) and 3.8 (Exercise 3.8.1).
    """

    response = param.String("", doc="The student's typed answer.")
    choice = param.Selector(default=None, objects=[None], allow_None=True,
                            doc="Letter of the chosen option (choice exercises).")
    check = param.Event(doc="Check the answer.")
    reveal = param.Boolean(False, doc="Show the worked answer.")
    status = param.Selector(default="pending", objects=["pending", "right", "wrong", "invalid"],
                            doc="Outcome of the last check.")
    language = param.Selector(default=DEFAULT_LANGUAGE, objects=list(STRINGS), constant=True,
                              doc="Language of the interface text.")

    def __init__(self, block: Block, **params):
        if block.kind != "exercise":
            raise ValueError(f"block must be an exercise block, got kind {block.kind!r}")
        self.block = block
        self.kind = block.options["kind"]
        self.options = choice_options(block) if self.kind == "choice" else []
        super().__init__(**params)
        if self.options:
            self.param.choice.objects = [None] + [letter for letter, _ in self.options]
        t = self._t
        ex_id = block.args[0] if block.args else "exercise"
        self.css = f"ae-exercise-{ex_id}"
        self._question = math_html(markdown_to_html(block.parts.get("question", "")),
                                      css_classes=["ae-prose"], margin=(0, 5))
        self._feedback = math_html("", css_classes=["ae-exercise-feedback"], margin=(0, 5))
        answer_md = block.parts.get("answer", "")
        self._answer = math_html(
            f"<div class='ae-answer'><b>{t('exercise_model_answer')}</b>"
            f"{markdown_to_html(answer_md)}</div>",
            css_classes=["ae-prose", "ae-exercise-answer"], visible=False, margin=(0, 5))
        widgets = []
        if self.kind == "number":
            widgets.append(pn.widgets.TextInput.from_param(
                self.param.response, name="", placeholder=t("exercise_answer_placeholder"),
                css_classes=["ae-exercise-input"], width=180, description=None))
        elif self.kind == "choice":
            # Option texts may hold math, which radio labels cannot typeset:
            # the options are shown as rendered text, the radios carry letters.
            listing = "".join(f"<li><b>{letter}.</b> {inline_html(opt)}</li>"
                              for letter, opt in self.options)
            widgets.append(math_html(f"<ul class='ae-options'>{listing}</ul>",
                                     css_classes=["ae-prose", "ae-exercise-options"], margin=(0, 5)))
            # Panel selects the first option when the value is not among the
            # options; a hidden "no answer yet" option keeps A from looking chosen.
            widgets.append(pn.widgets.RadioBoxGroup.from_param(
                self.param.choice, name="", inline=True, css_classes=["ae-exercise-choice"],
                options={"": None, **{letter: letter for letter, _ in self.options}},
                stylesheets=["label:first-of-type { display: none; }"]))
        else:
            widgets.append(pn.widgets.TextAreaInput.from_param(
                self.param.response, name="", placeholder=t("exercise_your_answer"),
                css_classes=["ae-exercise-input"], rows=3, sizing_mode="stretch_width",
                description=None))
        buttons = []
        if self.kind != "text":
            buttons.append(pn.widgets.Button.from_param(
                self.param.check, name=t("exercise_check"), css_classes=["ae-exercise-check"],
                color="primary", width=100, description=None))
        buttons.append(pn.widgets.Toggle.from_param(
            self.param.reveal, name=t("exercise_reveal"), css_classes=["ae-exercise-reveal"],
            width=140))
        self._widgets = widgets
        self._buttons = buttons

    def _t(self, key, **fmt):
        return text(key, self.language, **fmt)

    @property
    def answer(self):
        """The expected answer: a float (number), a letter (choice) or None (text)."""
        if self.kind == "number":
            return float(self.block.options["answer"])
        return self.block.options.get("answer")

    def evaluate(self) -> tuple[str, str]:
        """Judge the current response: ``(status, message)``, never raising."""
        t = self._t
        hint = self.block.parts.get("hint", "")
        hint_html = markdown_to_html(hint) if hint else ""
        if self.kind == "number":
            raw = self.response
            if not raw.strip():
                return "invalid", t("exercise_empty")
            try:
                value = parse_number(raw)
            except ValueError:
                return "invalid", t("exercise_malformed", raw=html.escape(raw))
            tol = float(self.block.options.get("tol", 1e-6))
            if abs(value - self.answer) <= tol * (1 + 1e-9):  # 0.157 vs 0.155 ± 0.002 is right
                return "right", t("exercise_right")
            return "wrong", t("exercise_wrong") + hint_html
        if self.kind == "choice":
            if self.choice is None:
                return "invalid", t("exercise_choose")
            if self.choice == self.answer:
                return "right", t("exercise_right")
            return "wrong", t("exercise_wrong") + hint_html
        return "pending", ""

    @param.depends("check", watch=True)
    def _on_check(self):
        status, message = self.evaluate()
        css = {"right": "ae-right", "wrong": "ae-wrong", "invalid": "ae-error"}.get(status, "")
        self._feedback.object = f"<div class='{css}'>{message}</div>"
        self.status = status

    @param.depends("reveal", watch=True)
    def _on_reveal(self):
        self._answer.visible = self.reveal
        self._buttons[-1].name = self._t("exercise_hide" if self.reveal else "exercise_reveal")

    def __panel__(self):
        return pn.Column(
            self._question,
            *self._widgets,
            pn.Row(*self._buttons, sizing_mode="stretch_width"),
            self._feedback,
            self._answer,
            css_classes=["ae-exercise", self.css],
            sizing_mode="stretch_width",
            styles={"border-left": "4px solid #8172B2", "padding-left": "8px", "margin": "8px 0"},
        )
