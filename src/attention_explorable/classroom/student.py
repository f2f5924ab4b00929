"""A student's page in a room: the link between one steps explorable and the room's database rows.

One :class:`ClassroomLink` (a Bokeh data model) per student session carries
everything the class sends over that student's websocket, and nothing else:

* browser -> server: ``student_id`` (the anonymous id the page keeps in
  ``localStorage``) and ``submission`` (JSON ``{"seq", "step", "value"}``,
  sent by ``web/classroom.js`` when the student presses "演示本步" or
  "提交预测");
* server -> browser: ``receipt`` (JSON: ``{"seq", "ok", "step", "value"}`` or
  ``{"seq", "ok": false, "reason"}``, written after the prediction has been
  committed, or ``{"new_round": n}``).

No other student's prediction, no count, no histogram and no reveal ever
travels on a student's websocket: those exist only in the instructor's
session. The room's step (when students follow the instructor) reaches the
student as a change of the explorable's own state (``go_to_step``), the way
a deep link or a notebook changes it.

A per-process :class:`RoomWatcher` reads the rooms that this process's
students are in from the database twice a second and hands each change (a
new step, a new round) to the sessions in that room. It holds no state of
the room: the database does.
"""

from __future__ import annotations

import html
import json
import logging
import os
import weakref
from functools import partial

import panel as pn
from bokeh.core.properties import String
from bokeh.model import DataModel
from bokeh.models import CustomJS
from sqlalchemy.exc import SQLAlchemyError
from tornado.ioloop import PeriodicCallback

from ..explorables import controls
from ..explorables.base import html_model, web_module
from ..strings import text
from ..views.numbers import format_g
from ..views.steps import PREDICTION_BOUNDS
from . import config
from .store import normalise_code, valid_student

log = logging.getLogger(__name__)

#: How often a process reads the rooms of its students (ms).
POLL_MS = 500
#: Longest submission message accepted (characters of JSON).
MAX_SUBMISSION = 400
#: Keys of the strings the browser shows (``web/classroom.js``, ``web/connection.js``).
BROWSER_STRINGS = ("class_submitted", "class_submitted_restored", "class_pending", "class_need_prediction",
                   "class_refused_value", "class_refused_rate", "class_refused_room", "class_refused_student",
                   "class_refused_step", "class_refused_server", "class_new_round", "class_lost_received",
                   "class_lost_not_received", "class_lost_none")


_SUBMITTED_CSS = ":host { color: #1b7a2e; font-weight: 600; }"


class ClassroomLink(DataModel):
    """What travels between a student's page and the room (see the module docstring)."""

    room = String(default="", help="The room's join code, from the page's ?room= argument.")
    student_id = String(default="", help="The anonymous id the browser keeps in localStorage.")
    submission = String(default="", help='The latest submission, JSON {"seq", "step", "value"}.')
    receipt = String(default="", help="The server's answer to it, JSON (see the module docstring).")


class StudentLink:
    """A student session's membership of room ``code``: submission, receipt, following the instructor.

    Parameters
    ----------
    code : str
        The room's join code as given in the URL (any case).
    language : {"zh", "en"}
        Language of the messages.

    Call :meth:`attach` with the steps explorable once it is built
    (:class:`~attention_explorable.explorables.steps.StepsExplorer` does, when
    given ``classroom=``).
    """

    def __init__(self, code: str, language: str = "zh"):
        self.code = normalise_code(code) or ""
        self.language = language
        self.model = ClassroomLink(room=self.code)
        self.room_line = html_model("ae-room")
        self.room_line.text = html.escape(text("class_room", language, code=self.code or str(code)[:16]))
        self.submitted = html_model("ae-submitted", visible=False)
        self.submitted.stylesheets = [*self.submitted.stylesheets, _SUBMITTED_CSS]
        self.message = html_model("ae-class-message", visible=False)
        self.message.css_classes = ["ae-class-message", "ae-error"]
        self.submit_button = controls.button(text("class_submit", language), "ae-submit-prediction", "primary")
        self.explorer = None
        self.student: str | None = None
        self.seen = None  # the room's state this session last acted on
        self.pending = None  # the room's state handed to this session, not yet acted on
        self._doc = None
        self.model.on_change("student_id", self._on_student)
        self.model.on_change("submission", self._on_submission)

    # --- wiring ---------------------------------------------------------------------
    def attach(self, explorer, state_model, demonstrate) -> None:
        """Run ``web/classroom.js`` for this link on ``explorer``'s page, and join the room's watcher.

        ``state_model`` is the explorable's state model (its ``step`` and
        ``prediction_text`` are what is submitted); a click on the
        ``demonstrate`` button submits too.
        """
        self.explorer = explorer
        callback = CustomJS(code=web_module("classroom"), module=True, args={
            "link": self.model, "state": state_model,
            "models": {"submitted": self.submitted, "message": self.message, "submit": self.submit_button,
                       "demonstrate": demonstrate},
            "config": self.browser_config()})
        self.model.js_on_change("receipt", callback)
        state_model.js_on_change("step", callback)
        self.submit_button.js_on_event("button_click", callback)
        demonstrate.js_on_event("button_click", callback)
        doc = pn.state.curdoc
        if doc is not None and doc.session_context is not None:
            self._doc = doc
            doc.js_on_event("document_ready", callback)
            doc.on_session_destroyed(lambda _ctx: watcher().remove(self))

    def browser_config(self) -> dict:
        """The strings and bounds ``web/classroom.js`` and ``web/connection.js`` need."""
        return {"strings": {k: text(k, self.language) for k in BROWSER_STRINGS},
                "prediction_bounds": list(PREDICTION_BOUNDS)}

    def panel(self) -> pn.Column:
        """The room's line, the submit button, the confirmation and the messages (layout only)."""
        bokeh = lambda m: pn.pane.Bokeh(m, sizing_mode="stretch_width", margin=0)  # noqa: E731
        return pn.Column(bokeh(self.room_line), bokeh(self.submit_button), bokeh(self.submitted),
                         bokeh(self.message), sizing_mode="stretch_width", margin=0, css_classes=["ae-class"])

    # --- from the browser ---------------------------------------------------------------
    def _receipt(self, **fields) -> None:
        with pn.io.unlocked():
            self.model.receipt = json.dumps(fields)

    def _on_student(self, attr, old, new) -> None:
        if not valid_student(new):
            self._receipt(seq=0, ok=False, reason="student")
            return
        self.student = new
        try:
            room = config.store().room(self.code)
        except SQLAlchemyError as exc:
            log.warning("class: room %s not read: %s", self.code, type(exc).__name__)
            self._receipt(seq=0, ok=False, reason="server")
            return
        if room is None:
            self._receipt(seq=0, ok=False, reason="room")
            return
        self.seen = room
        if self._doc is not None:
            watcher().add(self)
        self._rejoin(room)

    def _rejoin(self, room) -> None:
        """Back in the room after a reload: the room's step (or the student's last), the prediction kept."""
        store = config.store()
        if room.follow:
            step = room.step
            value = store.prediction(self.code, self.student, step)
        else:
            latest = store.latest_prediction(self.code, self.student)
            step, value = latest if latest else (self.explorer.step, None)
        if self.explorer.step != step:
            self.explorer.go_to_step(step)
        if value is not None:
            self.explorer.prediction_text = format_g(value)
            self._receipt(seq=0, ok=True, step=step, value=value, restored=True)

    def _on_submission(self, attr, old, new) -> None:
        try:
            data = json.loads(new) if isinstance(new, str) and len(new) <= MAX_SUBMISSION else None
        except ValueError:
            data = None
        if not isinstance(data, dict):
            self._receipt(seq=0, ok=False, reason="value")
            return
        seq = data.get("seq") if isinstance(data.get("seq"), int) else 0
        step, value = data.get("step"), data.get("value")
        student = self.student or self.model.student_id
        try:
            result = config.store().submit(self.code, student, step, value, bounds=PREDICTION_BOUNDS)
        except SQLAlchemyError as exc:
            log.warning("class: prediction for room %s not stored: %s", self.code, type(exc).__name__)
            self._receipt(seq=seq, ok=False, reason="server")
            return
        if result.ok:
            self._receipt(seq=seq, ok=True, step=step, value=value, round=result.round)
        else:
            self._receipt(seq=seq, ok=False, reason=result.reason)

    # --- from the room (the watcher, in this session) ---------------------------------------
    def room_changed(self, room) -> None:
        """The room changed in the database: a new round clears the confirmation; a followed step is taken."""
        before, self.seen, self.pending = self.seen, room, None
        if before is not None and room.round != before.round:
            self._receipt(new_round=room.round)
        if room.follow and (before is None or room.step != before.step or room.round != before.round) \
                and self.explorer is not None and self.explorer.step != room.step:
            self.explorer.go_to_step(room.step)
            value = config.store().prediction(self.code, self.student, room.step)
            if value is not None:
                self.explorer.prediction_text = format_g(value)
                self._receipt(seq=0, ok=True, step=room.step, value=value, restored=True)

    def schedule(self, room) -> None:
        """Hand ``room`` to :meth:`room_changed` on this session's own turn of the event loop."""
        if self._doc is not None:
            self._doc.add_next_tick_callback(partial(self.room_changed, room))


class RoomWatcher:
    """Reads the rooms of this process's students from the database and tells their sessions of changes.

    One per process (:func:`watcher`); it polls only while some session of
    this process is in a room.
    """

    def __init__(self):
        self.links: dict[str, weakref.WeakSet] = {}
        self._callback: PeriodicCallback | None = None

    def add(self, link: StudentLink) -> None:
        self.links.setdefault(link.code, weakref.WeakSet()).add(link)
        if self._callback is None:
            self._callback = PeriodicCallback(self.poll, POLL_MS)
            self._callback.start()

    def remove(self, link: StudentLink) -> None:
        members = self.links.get(link.code)
        if members is not None:
            members.discard(link)
            if not members:
                del self.links[link.code]

    def poll(self) -> None:
        codes = [code for code, members in self.links.items() if members]
        if not codes:
            return
        try:
            rooms = config.store().rooms(codes)
        except SQLAlchemyError as exc:
            log.warning("class: rooms not read: %s", type(exc).__name__)
            return
        for code, room in rooms.items():
            for link in list(self.links.get(code, ())):
                if link.seen != room and link.pending != room:  # told once, acted on at its next turn
                    link.pending = room
                    link.schedule(room)


_watchers: dict[int, RoomWatcher] = {}


def watcher() -> RoomWatcher:
    """This process's :class:`RoomWatcher` (a forked worker makes its own)."""
    return _watchers.setdefault(os.getpid(), RoomWatcher())


def room_argument() -> str | None:
    """The ``?room=`` argument of the page being built, as given (None without one)."""
    values = (pn.state.session_args or {}).get("room") or []
    if not values:
        return None
    value = values[0].decode("utf-8", "replace") if isinstance(values[0], bytes) else str(values[0])
    return value.strip()[:32] or None

