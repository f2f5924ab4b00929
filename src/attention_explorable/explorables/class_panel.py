"""A student's side of the class, in the page: the room's line, the submit button, the receipts.

Every steps explorable carries a :class:`ClassPanel`, hidden. The page is the
same file for every student (built once, :mod:`attention_explorable.site`);
its script ``web/classroom.js`` reads ``?room=CODE`` from the address, and
only then shows the panel and opens the page's one class socket
(``/class/socket``, :mod:`.channel`): join (the room and the anonymous id
the browser keeps in ``localStorage``) and each submission go up; the
student's own receipts, the instructor's step, whether its vote is closed or
its answer revealed, and a new round come down. While the vote on the room's
step is open, the page's demonstration (its answer) waits.
Nothing else travels, and nothing of another student ever does.

A saved page, or one opened from ``file://``, has no class: without a
server the panel stays hidden, or says the class needs the server.
"""

from __future__ import annotations

import html

import panel as pn
from bokeh.models import CustomJS

from .. import ui
from . import controls
from .base import bokeh_pane, html_model, web_module
from ..strings import HTML_LANG, plural_forms, text
from ..classroom.codes import CODE_ALPHABET, CODE_LENGTH
from ..classroom.questions import page_questions
from ..views.steps import PREDICTION_BOUNDS, steps_config

#: Keys of the strings the browser shows (``web/classroom.js``).
BROWSER_STRINGS = (
    "class_room",
    "class_joined",
    "class_submitted",
    "class_submitted_restored",
    "class_pending",
    "class_need_prediction",
    "class_refused_value",
    "class_refused_rate",
    "class_refused_guessing",
    "class_refused_room",
    "class_refused_student",
    "class_refused_step",
    "class_refused_server",
    "class_refused_slow",
    "class_refused_busy",
    "class_refused_wait",
    "class_refused_ended",
    "class_refused_elsewhere",
    "class_refused_message",
    "class_refused_closed",
    "class_new_round",
    "class_voting_closed",
    "class_revealed",
    "class_demo_waits",
    "class_result",
    "class_result_no_prediction",
    "class_result_class",
    "class_result_nobody",
    "class_refused_confidence",
    "class_voting_closes_in",
    "class_lost_received",
    "class_lost_not_received",
    "class_lost_none",
    "class_needs_server",
    "connection_lost",
    "class_reconnecting",
    "class_question_goto",
    "class_question_title",
    "class_question_submit",
    "class_question_placeholder",
    "class_question_hide",
    "class_question_show",
    "class_question_submitted",
    "class_question_choose",
    "class_question_malformed",
    "class_question_result",
    "class_question_result_none",
    "class_question_class",
    "class_question_unknown",
    "class_lost_received_question",
    "class_lost_not_received_question",
)

_SUBMITTED_CSS = ":host { color: var(--ae-right, #1b7a2e); font-weight: 600; }"
_VOTE_CSS = ":host { font-weight: 600; }"


def class_config(language: str) -> dict:
    """What ``web/classroom.js`` needs: its strings in ``language``, the prediction's bounds, each step's start,
    the rule a room code follows (the store's alphabet and length: nothing else is shown or sent), and the
    text's other questions the instructor may pose (:func:`.classroom.questions.page_questions`, no answers).

    The socket's path is ``/class/socket`` on the page's own server.
    """
    return {
        "strings": {k: v for key in BROWSER_STRINGS for k, v in plural_forms(key, language).items()},
        "lang": HTML_LANG[language],
        "prediction_bounds": list(PREDICTION_BOUNDS),
        "steps": [{"start": s["start"]} for s in steps_config(language)["steps"]],
        "socket_path": "/class/socket",
        "room_code": {"alphabet": CODE_ALPHABET, "length": CODE_LENGTH},
        "questions": page_questions(language),
    }


class ClassPanel:
    """The class's part of a steps explorable (hidden until the page is in a room).

    Parameters
    ----------
    language : {"zh", "en"}
        Language of the messages.

    Call :meth:`attach` once the explorable's state model and its
    demonstrate button exist; lay it out with :meth:`panel`.
    """

    def __init__(self, language: str = "zh"):
        self.language = language
        self.room_line = html_model("ae-room", visible=False)
        self.joined = html_model("ae-room-joined", visible=False)
        self.submitted = html_model("ae-submitted", visible=False)
        self.submitted.stylesheets = [*self.submitted.stylesheets, _SUBMITTED_CSS]
        self.vote = html_model("ae-class-vote", visible=False)
        self.vote.stylesheets = [*self.vote.stylesheets, _VOTE_CSS]
        self.result = html_model("ae-student-result", visible=False)
        self.result.stylesheets = [*self.result.stylesheets, _VOTE_CSS]
        self.message = html_model("ae-class-message", visible=False)
        self.message.css_classes = ["ae-class-message", "ae-error"]
        self.notice = html_model("ae-connection-lost", visible=False)
        self.notice.css_classes = ["ae-connection-lost"]
        # Not an alarm: the page reconnects by itself (ui.NOTICE_CSS's red is for a live app that cannot).
        self.notice.stylesheets = [*self.notice.stylesheets, ui.NOTICE_CSS, ui.RECONNECTING_CSS]
        self.submit_button = controls.button(text("class_submit", language), "ae-submit-prediction", "primary")
        self.submit_button.visible = False
        # How sure the student is, sent with the prediction (optional: nothing pressed, nothing said).
        self.confidence_label = html_model("ae-confidence-label", visible=False)
        self.confidence_label.text = html.escape(html.escape(text("class_confidence", language)))
        self.confidence = controls.choice(
            [text("class_sure", language), text("class_unsure", language)], None, "ae-confidence"
        )
        self.confidence.visible = False

    def attach(self, state_model, demonstrate, skip=None) -> None:
        """Run ``web/classroom.js`` on the page: when its document is ready, on a change of the
        explorable's step, and on the submit, ``demonstrate`` and ``skip`` buttons."""
        callback = CustomJS(
            code=web_module("classroom"),
            module=True,
            args={
                "state": state_model,
                "models": {
                    "room": self.room_line,
                    "joined": self.joined,
                    "submitted": self.submitted,
                    "vote": self.vote,
                    "result": self.result,
                    "message": self.message,
                    "notice": self.notice,
                    "submit": self.submit_button,
                    "demonstrate": demonstrate,
                    "confidence": self.confidence,
                    "confidence_label": self.confidence_label,
                    **({"skip": skip} if skip is not None else {}),
                },
                "config": class_config(self.language),
            },
        )
        self.callback = callback
        state_model.js_on_change("step", callback)
        self.submit_button.js_on_event("button_click", callback)
        demonstrate.js_on_event("button_click", callback)
        if skip is not None:
            skip.js_on_event("button_click", callback)
        doc = pn.state.curdoc
        if doc is not None:  # the page being built: the script reads its ?room= once it is ready
            doc.js_on_event("document_ready", callback)

    def panel(self) -> pn.Column:
        """The room's line, the submit button, the confirmation and the messages (layout only)."""
        return pn.Column(
            bokeh_pane(self.notice),
            bokeh_pane(self.room_line),
            bokeh_pane(self.joined),
            bokeh_pane(self.confidence_label),
            bokeh_pane(self.confidence),
            bokeh_pane(self.submit_button),
            bokeh_pane(self.submitted),
            bokeh_pane(self.vote),
            bokeh_pane(self.result),
            bokeh_pane(self.message),
            sizing_mode="stretch_width",
            margin=0,
            css_classes=["ae-class"],
        )
