"""A student's side of the class, in the page: the room's line, the submit button, the receipts.

A student page that holds the steps explorable carries the class's script
(``web/classroom.js``) and its config (:func:`class_config`, as the JSON of
``#ae-class-config``). The page is the same file for every student (built
once, :mod:`attention_explorable.site`); the script reads ``?room=CODE`` from
the address, and only then builds the class panel in the steps module's
``.ae-class`` box and opens the page's one class socket
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

from ..strings import HTML_LANG, plural_forms
from ..classroom.codes import CODE_ALPHABET, CODE_LENGTH
from ..classroom.questions import page_questions
from ..views.steps import PREDICTION_BOUNDS, steps_config

#: Keys of the strings the browser shows (``web/classroom.js``).
BROWSER_STRINGS = (
    "class_submit",
    "class_confidence",
    "class_sure",
    "class_unsure",
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
    "question_custom_title",
    "class_lost_received_question",
    "class_lost_not_received_question",
)


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
