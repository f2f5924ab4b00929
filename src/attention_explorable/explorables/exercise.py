"""Interactive exercises: type or choose, check, get a hint, reveal the answer.

Its view is :func:`attention_explorable.views.exercise.exercise_view`. On a
student page (the textbook) an exercise is its module ``web/exercise.js``
(``modules.ExerciseWidget``), checked at once, with or without a server; the
Panel component here is drawn from Python.
"""

from __future__ import annotations

import panel as pn
import param
from bokeh.models import Button, RadioGroup, Row, TextAreaInput, TextInput
from panel.models.markup import HTML as HTMLModel

from ..content import PROSE_CSS, Block, math_html
from ..views import exercise as exercise_view
from . import controls
from .base import Explorable, bokeh_pane

#: The feedback wraps anywhere: a long echo of a malformed answer stays within a phone's width.
FEEDBACK_CSS = ".ae-right, .ae-wrong, .ae-error { overflow-wrap: anywhere; }"
#: Option letters as touch targets: radios of 24 px, spaced apart.
CHOICE_CSS = """
.bk-input-group { flex-wrap: wrap; gap: 4px 20px; }
label { display: inline-flex; align-items: center; gap: 6px; min-height: 36px; font-size: 16px; margin: 0; }
input[type="radio"] { width: 24px; height: 24px; margin: 0; }
"""


class Exercise(Explorable):
    """One exercise of the course text, checked from Python (its student page is ``web/exercise.js``).

    Kinds (from the content block's ``kind=`` option):

    * ``number``: the student types a number; right when within ``tol``
      (default 1e-6) of ``answer``; a malformed entry gets a message, not an error;
    * ``choice``: the student picks one option; right when it is ``answer``;
    * ``text``: free text, not graded; the model answer can be revealed.

    A wrong answer is shown the block's hint. Pressing "检查" (or Enter in the
    number box) submits what is typed or chosen; the feedback belongs to
    that submission until the next check.

    Parameters
    ----------
    block : Block
        A parsed ``:::exercise`` block (see :mod:`attention_explorable.content`).
    response : str
        What the student typed (number and text kinds).
    choice : str
        The chosen option's letter, ``""`` for none (choice kind).
    checked : str or None
        What was submitted at the last check (the typed answer or the
        chosen letter); None before the first.
    revealed : bool
        Whether the worked answer is shown.
    language : {"zh", "en"}
        Language of the interface text.

    Attributes
    ----------
    css : str
        The exercise's own CSS class, ``ae-exercise-<id>``.

    Raises
    ------
    ValueError
        If ``block`` is not an exercise block; from ``param`` when
        ``choice`` is not one of the option letters (or ``""``).

    References
    ----------
    Course sections 3.7 (exercises Q1-Q4) and 3.8 (Exercise 3.8.1).

    Examples
    --------
    >>> from attention_explorable import content
    >>> block = next(b for s in content.load_sections() for b in s.exercises() if b.args[0] == "ex-3-8-1")
    >>> ex = Exercise(block)
    >>> ex.response = "8,4"
    >>> ex.check()
    'right'
    """

    response = param.String("", doc="The student's typed answer (number and text kinds).")
    choice = param.String("", doc='Letter of the chosen option, "" for none (choice kind).')
    checked = param.String(None, allow_None=True, doc="What was submitted at the last check; None before the first.")
    revealed = param.Boolean(False, doc="True while the worked answer is shown.")

    _view_module = exercise_view
    #: A reload keeps what the student typed or chose: the address bar carries it.
    _link_params = ("response", "choice")

    def __init__(self, block: Block, **params):
        if block.kind != "exercise":
            raise ValueError(f"block must be an exercise block, got kind {block.kind!r}")
        self.block = block
        self.kind = block.options["kind"]
        self.options = exercise_view.choice_options(block) if self.kind == "choice" else []
        chosen = {k: params.pop(k) for k in ("choice", "checked") if k in params}
        super().__init__(**params)
        if self.kind == "choice":  # only an option letter, or "" for none
            letters = "|".join(letter for letter, _ in self.options)
            self.param.choice.regex = self.param.checked.regex = rf"^(|{letters})\Z"
        t = self._t
        ex_id = block.args[0] if block.args else "exercise"
        self.css = f"ae-exercise-{ex_id}"
        self._config_data = exercise_view.exercise_config(block, self.language)

        self._question = math_html(
            exercise_view.question_html(block, self.language), css_classes=["ae-prose"], margin=(0, 5)
        )
        self._options_pane = (
            math_html(
                exercise_view.options_html(block, self.language),
                margin=(0, 5),
                css_classes=["ae-prose", "ae-exercise-options"],
            )
            if self.kind == "choice"
            else None
        )
        common = {"stylesheets": [controls.CSS]}
        if self.kind == "number":
            self._input = TextInput(
                value="",
                placeholder=t("exercise_answer_placeholder"),
                width=180,
                title=t("exercise_answer"),
                css_classes=["ae-exercise-input"],
                margin=(4, 5),
                **{**common, "stylesheets": [controls.CSS, controls.SR_ONLY_LABEL_CSS]},
            )
        elif self.kind == "text":
            self._input = TextAreaInput(
                value="",
                placeholder=t("exercise_your_answer"),
                rows=3,
                title=t("exercise_answer"),
                css_classes=["ae-exercise-input"],
                sizing_mode="stretch_width",
                margin=(4, 5),
                **{**common, "stylesheets": [controls.CSS, controls.SR_ONLY_LABEL_CSS]},
            )
        else:
            self._input = None
        self._choice = (
            RadioGroup(
                labels=[letter for letter, _ in self.options],
                active=None,
                inline=True,
                css_classes=["ae-exercise-choice"],
                margin=(4, 5),
                **{**common, "stylesheets": [controls.CSS, CHOICE_CSS]},
            )
            if self.kind == "choice"
            else None
        )
        self._check = (
            Button(
                label=t("exercise_check"),
                button_type="primary",
                width=100,
                css_classes=["ae-exercise-check"],
                margin=(4, 5),
                **common,
            )
            if self.kind != "text"
            else None
        )
        self._reveal = Button(
            label=t("exercise_reveal"), width=140, css_classes=["ae-exercise-reveal"], margin=(4, 5), **common
        )
        prose = {"stylesheets": [PROSE_CSS], "sizing_mode": "stretch_width", "margin": (0, 5)}
        self._feedback = HTMLModel(
            text="",
            css_classes=["ae-exercise-feedback"],
            visible=False,
            html_attributes={"role": "status", "aria-live": "polite"},
            **{**prose, "stylesheets": [PROSE_CSS, FEEDBACK_CSS]},
        )
        self._answer = HTMLModel(text="", css_classes=["ae-prose", "ae-exercise-answer"], visible=False, **prose)

        self.param.update(chosen)
        self._redraw()
        events = {self._reveal: "button_click"}
        if self._check is not None:
            events[self._check] = "button_click"
        if self.kind == "number":
            events[self._input] = ["value_input", "value_submit"]
        elif self.kind == "text":
            events[self._input] = "value_input"
        else:
            events[self._choice] = "active"
        self._attach(events)

    # --- the view -------------------------------------------------------------
    @property
    def answer(self):
        """The expected answer: a float (number), a letter (choice) or None (text)."""
        return self._config_data["answer"]

    @property
    def status(self) -> str:
        """Outcome of the last check: "pending" (none yet, or a text exercise), "right", "wrong", "invalid"."""
        if self.checked is None:
            return "pending"
        return exercise_view.judge(self.checked, self._config_data)[0]

    def _submission(self) -> str:
        return self.choice if self.kind == "choice" else self.response

    def evaluate(self) -> tuple[str, str]:
        """Judge what is typed or chosen now: ``(status, message)``, never raising.

        See :func:`attention_explorable.views.exercise.judge`.
        """
        return exercise_view.judge(self._submission(), self._config_data)

    def link_spec(self) -> dict:
        """As :meth:`Explorable.link_spec`; a choice is one of the option letters (or "" for none)."""
        spec = super().link_spec()
        for p in spec["params"]:
            if p["name"] == "choice":
                p.update(kind="choice", choices=["", *(letter for letter, _ in self.options)])
        return spec

    def check(self) -> str:
        """Submit what is typed or chosen now, as "检查" does; return the status. A right answer opens the
        worked answer (``revealed``), so the student reads why at once."""
        self.checked = self._submission()
        if self.status == "right":
            self.revealed = True
        return self.status

    def _models(self) -> dict:
        models = {"feedback": self._feedback, "answer": self._answer, "reveal": self._reveal}
        for name, model in (("input", self._input), ("choice", self._choice), ("check", self._check)):
            if model is not None:
                models[name] = model
        return models

    def _act(self, origin, event=None) -> None:
        if origin is self._input:
            typed = event.value if event is not None and hasattr(event, "value") else origin.value_input
            if not isinstance(typed, str) or len(typed) > 10_000:
                raise ValueError(f"response must be text, got {typed!r}")
            if typed != self.response:
                self.response = typed
            if event is not None:  # Enter in the number box checks what it holds
                self.check()
        elif origin is self._choice:
            letters = [letter for letter, _ in self.options]
            chosen = "" if origin.active is None else self._pick(letters, origin.active)
            if chosen != self.choice:
                self.choice = chosen
        elif origin is self._check:
            self.check()
        elif origin is self._reveal:
            self.revealed = not self.revealed

    def _widget_of(self):
        from ..modules import ExerciseWidget

        return ExerciseWidget(self.block, language=self.language, link_prefix=self.link_prefix)

    def save(self, path, title: str | None = None):
        """Write this exercise, in its current state, as one HTML file that works offline: its module on a page
        of its own (:func:`attention_explorable.modules.module_page`).

        Raises
        ------
        ValueError
            If ``path`` names a folder, or a folder that does not exist.
        """
        return super().save(path, title if title is not None else self.block.args[0] if self.block.args else "")

    # --- layout only ----------------------------------------------------------
    def __panel__(self):
        buttons = Row(
            children=[b for b in (self._check, self._reveal) if b is not None],
            sizing_mode="stretch_width",
            margin=0,
            syncable=False,
        )
        parts = [
            self._question,
            self._options_pane,
            bokeh_pane(self._input if self._input is not None else self._choice),
            bokeh_pane(buttons),
            bokeh_pane(self._feedback),
            bokeh_pane(self._answer),
        ]
        return pn.Column(
            *(p for p in parts if p is not None),
            css_classes=["ae-exercise", self.css],
            sizing_mode="stretch_width",
            styles={"border-left": "4px solid #8172B2", "padding-left": "8px", "margin": "8px 0"},
        )
