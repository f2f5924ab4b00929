"""The instructor's page, ``/instructor``: the room, its predictions, the reveal. Made for a projector.

Without the instructor's signed cookie the server builds no session at all
(:class:`.handlers.InstructorAuth`): the browser gets the plain login page
(the secret box ``ae-instructor-key`` and its button ``ae-instructor-login``),
which posts to ``/instructor/login`` (:mod:`.handlers`): the secret travels
in a form body, never in a URL. With it, :class:`InstructorView`: a button
that starts a room (``ae-start-room``), then the room's code
(``ae-room-code``), the join URL (``ae-join-url``) and its QR code
(``ae-qr``), the live count of predictions for the step on screen
(``ae-prediction-count``), how many students are in the room beside how
many answered (``ae-presence``, :meth:`.store.Store.present`), their
histogram (``ae-histogram``) with the answer hidden until "揭晓"
(``ae-reveal``), then the answer and the spread (``ae-spread``), "新一轮"
(``ae-new-round``; the round shown is the question's own,
:meth:`.store.Store.answered_rounds`), the CSV of every round (``ae-csv``),
whether students follow the instructor's step (``ae-follow``), how long
the countdown of T lasts (``ae-countdown``: kept for the room's later
rounds, :meth:`.store.Store.set_countdown`), and the steps explorable
itself to demonstrate with. Keys: 1/2/3 choose the step, D demonstrates,
R reveals, N starts a new round.

The page reads its room from the database when the room has changed: it
looks four times a second at :meth:`.store.Store.changes` (no query: this
process's writes, and an SQLite file's time and size, which every process's
commits change) and reads only when that moved, so an idle room costs no
query. On PostgreSQL (``shared``) other processes' and machines' answers
are not seen there, and the page also reads every :data:`SHARED_READ_S`
seconds.
"""

from __future__ import annotations

import functools
import html
import logging
import math
import time
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import quote

import panel as pn
import param
import segno
from bokeh.models import ColumnDataSource, FixedTicker, LinearAxis
from sqlalchemy.exc import SQLAlchemyError

from .. import plots, scenarios

# Imported with the page, not when a room starts: the explorable's state model must be
# defined before Bokeh first sends the document (it sends the data models defined then).
from ..explorables.steps import StepsExplorer, presenter_keys
from ..strings import DEFAULT_LANGUAGE, STRINGS, text
from ..views.numbers import format_number, parse_number
from . import stats
from .context import ClassContext
from .questions import (
    all_questions,
    exercise_name,
    get_question,
    question_html,
    question_label,
    question_title,
    typed_question,
)
from .store import (
    CUSTOM_OPTION_LIMIT,
    CUSTOM_TEXT_LIMIT,
    CustomQuestionError,
    Store,
    check_custom_question,
    check_seconds,
)
from .store import normalise_code

log = logging.getLogger(__name__)

#: How often the view reads the room (ms): the count follows a submission within about this.
REFRESH_MS = 250
#: Where other processes write the database too: a read at least this often (s).
SHARED_READ_S = 1.0
#: The countdown of "T": seconds until the vote closes by itself, until the instructor chooses another.
TIMER_S = 60
#: The countdowns the instructor may choose from (s).
COUNTDOWN_CHOICES = (30, 60, 90, 120)


@functools.lru_cache(maxsize=None)
def _reader() -> ThreadPoolExecutor:
    """The threads the instructor views read the database in (made in the process that serves)."""
    return ThreadPoolExecutor(2, thread_name_prefix="instructor-read")


@functools.lru_cache(maxsize=None)
def _writer() -> ThreadPoolExecutor:
    """The one thread the instructor's actions write in: in the order they were made, off the event loop."""
    return ThreadPoolExecutor(1, thread_name_prefix="instructor-write")


def _next_turn(doc, callback) -> None:
    """``callback`` on ``doc``'s next turn (from a thread); nothing when the page has gone meanwhile."""
    try:
        doc.add_next_tick_callback(callback)
    except Exception:  # noqa: BLE001 - the session was destroyed while the database answered
        log.debug("class: an instructor page went before its database call returned")


#: How much larger projector mode draws the explorable's text (15 px read as 22.5 px).
PROJECTOR_SCALE = 1.5
#: A widget's text in projector mode (Bokeh's own rules read --font-size).
_PROJECTED_WIDGET_CSS = (
    f":host {{ --font-size: {15 * PROJECTOR_SCALE:g}px; font-size: {15 * PROJECTOR_SCALE:g}px; }} "
    f".bk-btn, .bk-input, label, .bk-slider-title {{ font-size: {15 * PROJECTOR_SCALE:g}px; }}"
)
#: Seconds within which a second press of "end the class" confirms the first.
END_CONFIRM_S = 8.0
#: Projector sizes: every text of the class panel is 24 px or more at 1024x768.
CSS = """
:host { font-size: 24px; }
.ae-big { font-size: 24px; line-height: 1.35; }
.ae-room-code { font-size: 72px; font-weight: 700; letter-spacing: 0.12em; font-family: ui-monospace, monospace; }
.ae-room-code-small { font-size: 40px; }
.ae-join-url { font-size: 28px; font-family: ui-monospace, monospace; overflow-wrap: anywhere; }
.ae-join-textbook { overflow-wrap: anywhere; }
.ae-prediction-count { font-size: 40px; font-weight: 700; }
.ae-label { font-size: 24px; color: #444; }
.ae-spread { font-size: 28px; font-weight: 600; }
.ae-instructor-question { font-size: 24px; }
.ae-instructor-question h2 { font-size: 30px; margin: 0 0 6px; }
.ae-csv { font-size: 24px; }
.ae-qr svg { width: 100%; height: auto; max-width: 300px; display: block; }
.ae-login { font-size: 24px; max-width: 640px; }
.ae-login input { font-size: 24px; padding: 6px 10px; width: 100%; box-sizing: border-box; margin: 8px 0; }
.ae-login button { font-size: 24px; padding: 8px 24px; }
.ae-login .ae-error { color: #b00020; font-weight: 600; }
"""
_BUTTON_CSS = ".bk-btn { font-size: 24px; min-height: 52px; } :host { font-size: 24px; }"
_CHECK_CSS = ":host { font-size: 24px; } input { width: 24px; height: 24px; }"
_FIELD_CSS = (
    ":host { font-size: 24px; } label { font-size: 24px; white-space: normal; } "
    "input, textarea { font-size: 22px; min-height: 44px; }"
)
#: The letters of a typed choice's options (as many as :data:`.store.CUSTOM_OPTIONS` allows).
LETTERS = "ABCDEFGH"
_SELECT_CSS = (
    ":host { font-size: 24px; max-width: 100%; min-width: 0; } label { font-size: 24px; white-space: normal; } "
    "select { font-size: 22px; min-height: 44px; width: 100%; max-width: 100%; text-overflow: ellipsis; }"
)


def _t(key: str, language: str, **fmt) -> str:
    return text(key, language, **fmt)


def _wrapping(*objects) -> pn.FlexBox:
    """``objects`` side by side, wrapped onto the next line where the screen is too narrow (a phone)."""
    return pn.FlexBox(*objects, flex_wrap="wrap", align_items="center", sizing_mode="stretch_width")


def _html(source: str, **kw) -> pn.pane.HTML:
    return pn.pane.HTML(source, stylesheets=[CSS], **{"sizing_mode": "stretch_width", "margin": (4, 10), **kw})


def login_form_html(language: str, room: str | None = None, message: str = "", xsrf: str = "") -> str:
    """The login form (secret box ``ae-instructor-key``, button ``ae-instructor-login``), as HTML.

    It posts to ``/instructor/login``; ``room`` comes back after the login;
    ``xsrf`` is the page's XSRF token (Tornado's ``_xsrf``, which the post
    must carry).
    """
    xsrf_field = f"<input type='hidden' name='_xsrf' value='{html.escape(xsrf)}'>" if xsrf else ""
    room_field = f"<input type='hidden' name='room' value='{html.escape(room)}'>" if room else ""
    error = f"<p class='ae-error' role='alert'>{html.escape(message)}</p>" if message else ""
    return (
        f"<form class='ae-login' method='post' action='/instructor/login'>"
        f"<h1>{html.escape(_t('instructor_title', language))}</h1>{error}"
        f"<p>{html.escape(_t('instructor_login_hint', language))}</p>"
        f"<label>{html.escape(_t('instructor_key', language))}"
        f"<input type='password' name='key' class='ae-instructor-key' autocomplete='current-password' "
        f"required autofocus></label>{room_field}{xsrf_field}"
        f"<input type='hidden' name='language' value='{html.escape(language)}'>"
        f"<button type='submit' class='ae-instructor-login'>{html.escape(_t('instructor_login', language))}"
        f"</button></form>"
    )


def logout_form_html(language: str) -> str:
    """The instructor's **退出登录** (class ``ae-logout``): a form posting to ``/instructor/logout``, which
    ends this browser's session (:class:`.handlers.LogoutHandler`)."""
    return (
        f"<form class='ae-logout' method='post' action='/instructor/logout'>"
        f"<input type='hidden' name='language' value='{html.escape(language)}'>"
        f"<button type='submit'>{html.escape(_t('instructor_logout', language))}</button></form>"
    )


def join_base(headers: dict | None = None, public: tuple[str, ...] | list[str] = ()) -> str:
    """The base URL students use: the first of ``public`` (the LAN URLs the server printed), else this page's host."""
    host = str((headers or {}).get("Host", "") or "")
    if public and (not host or host.split(":")[0] in ("localhost", "127.0.0.1", "[::1]")):
        return public[0]
    return f"http://{host}" if host else (public[0] if public else "http://localhost:5006")


class InstructorView(pn.viewable.Viewer):
    """The instructor's view of one room (see the module docstring).

    Parameters
    ----------
    code : str
        The room's join code; empty for a page that starts one.
    language : {"zh", "en"}
        Language of the interface text.
    base_url : str
        What students type before ``/steps?room=CODE``.
    store : Store
        The class's database in this process (:meth:`.context.ClassContext.store`).
    """

    code = param.String("", doc="Join code of the room shown; empty until one is started.")
    language = param.Selector(
        default=DEFAULT_LANGUAGE, objects=list(STRINGS), constant=True, doc="Language of the interface text."
    )
    base_url = param.String("http://localhost:5006", doc="Base URL of the join link.")
    store = param.ClassSelector(class_=Store, constant=True, doc="The class's database in this process.")
    join_folded = param.Boolean(
        False, doc="Whether the room's join panel starts folded (the page's ?join=folded: kept across a reload)."
    )
    projector = param.Boolean(
        False,
        doc="Projector mode: the round alone (its question, histogram, buttons and countdown) above the "
        "explorable drawn half as large again, the setting-up controls out of sight (their keys still act; "
        "the page's ?projector=on, kept across a reload).",
    )
    shared = param.Boolean(
        False,
        constant=True,
        doc="Whether other processes or machines write a database "
        "whose changes Store.changes cannot see (PostgreSQL): "
        "then the room is also read every SHARED_READ_S.",
    )

    def __init__(self, **params):
        super().__init__(**params)
        if self.store is None:
            raise ValueError("store must be the class's Store, got None")
        self._body = pn.Column(sizing_mode="stretch_width", margin=0)
        # The keys are on the page from its start (their script runs when the page is first drawn);
        # they click the room's buttons once it has them.
        self._keys = presenter_keys(
            self.language,
            hint=False,
            targets={
                "r": ".ae-reveal",
                "n": ".ae-new-round",
                "c": ".ae-close-voting",
                "j": ".ae-join-toggle",
                "t": ".ae-timer",
                "p": ".ae-projector-toggle",
            },
        )
        self._seen = None
        self._listed_step = None  # the room's question the list was last set to
        self._end_armed = None  # when "end the class" was first pressed (monotonic s), awaiting its second press
        self._reading = False
        self._read_changes = None  # the store's token of the room's changes at the last read
        # The page's writes, asked for and done (on the document's turns): a read begun before a write of
        # this page was done is not shown (it would draw the room as it was, and move the explorable back).
        self._writes_asked = 0
        self._writes_done = 0
        self._read_at = 0.0
        self._refresh_cb = None
        room = self.store.room(self.code) if self.code else None
        if room is None:
            self._show_start(missing=self.code)
        elif room.ended:
            self._show_start(ended=room.code)
        else:
            self._show_room(room)

    # --- no room yet -----------------------------------------------------------------
    def _show_start(self, missing: str = "", ended: str = "") -> None:
        lang = self.language
        start = pn.widgets.Button(
            label=_t("instructor_start_room", lang),
            color="primary",
            css_classes=["ae-start-room"],
            stylesheets=[_BUTTON_CSS],
            sizing_mode="stretch_width",
            max_width=420,
        )
        start.on_click(lambda _e: self._write(self.store.create_room, then=self._show_room))
        items = [_html(f"<h1 class='ae-big'>{html.escape(_t('instructor_title', lang))}</h1>")]
        if missing:
            items.append(
                _html(
                    f"<p class='ae-big ae-error'>{html.escape(_t('instructor_room_missing', lang, code=missing))}</p>"
                )
            )
        if ended:
            items.append(
                _html(
                    f"<p class='ae-big ae-room-ended'>"
                    f"{html.escape(_t('instructor_room_ended', lang, code=ended))} "
                    f"<a class='ae-csv' href='/instructor/rooms/{quote(ended)}.csv' download>"
                    f"{html.escape(_t('instructor_csv', lang))}</a></p>"
                )
            )
        items.append(start)
        latest = self.store.latest_room()
        if latest is not None:
            resume = pn.widgets.Button(
                label=_t("instructor_resume_room", lang, code=latest.code),
                css_classes=["ae-resume-room"],
                stylesheets=[_BUTTON_CSS],
                sizing_mode="stretch_width",
                max_width=420,
            )
            resume.on_click(
                lambda _e: self._write(
                    functools.partial(self.store.room, latest.code), then=functools.partial(self._resumed, latest.code)
                )
            )
            items.append(resume)
        items.append(_html(logout_form_html(lang)))
        self._body[:] = items

    def _resumed(self, code: str, room) -> None:
        if room is None or room.ended:
            self._show_start(missing="" if room else code, ended=code if room else "")
        else:
            self._show_room(room)

    # --- a room ----------------------------------------------------------------------
    def _show_room(self, room) -> None:
        lang = self.language
        self.code = room.code
        if pn.state.location is not None:  # a reload comes back to this room
            pn.state.location.update_query(room=room.code)
        # The room's language travels with the join URL (and its QR code): the students' pages open in it.
        join = f"{self.base_url}/steps?room={quote(room.code)}" + ("" if lang == DEFAULT_LANGUAGE else f"&lang={lang}")
        qr = segno.make(join, error="m").svg_inline(scale=8, border=2, dark="#000", light="#fff")
        self._count = _html("", css_classes=[])
        self._presence = _html("")
        self._round = _html("")
        self._question = _html("")
        self._spread = _html("")
        self._bars = ColumnDataSource(plots.histogram_data(stats.histogram([])))
        self._before_bars = ColumnDataSource(plots.histogram_data(stats.histogram([]), drop_empty=True))
        self._sure_bars = ColumnDataSource(plots.histogram_data(stats.histogram([]), drop_empty=True))
        self._answer = plots.answer_span()
        figure = plots.histogram_figure(
            self._bars,
            self._answer,
            _t("instructor_axis", lang),
            _t("instructor_axis_count", lang),
            before=self._before_bars,
            sure=self._sure_bars,
        )
        figure.css_classes = ["ae-histogram"]
        self._figure = figure
        # A choice's letters on an axis of their own, shown instead of the numbers' (a browser kept the letters
        # of one axis whose labels were given back to numbers: "C" stood for 2 on a step's scale).
        numbers = figure.xaxis[0]
        self._choice_axis = LinearAxis(
            ticker=FixedTicker(ticks=[0]),
            visible=False,
            axis_label=_t("instructor_axis_option", lang),
            axis_label_text_font_size=numbers.axis_label_text_font_size,
            major_label_text_font_size=numbers.major_label_text_font_size,
        )
        figure.add_layout(self._choice_axis, "below")
        # Any question of the text: the steps (asked on the explorable below), the exercises (asked on a card
        # on every student's page, wherever they are in the text).
        self._text_questions = {question_label(q, lang): q.number for q in all_questions()}  # labelled once
        self._questions = pn.widgets.Select(
            label=_t("instructor_question_list", lang),
            value=room.step if get_question(room.step) else 1,
            options=dict(self._text_questions),
            css_classes=["ae-question-select"],
            stylesheets=[_SELECT_CSS],
            sizing_mode="stretch_width",
        )
        # Choosing in the list poses nothing (a list's type-ahead or arrow keys would): the button does.
        pose = pn.widgets.Button(
            label=_t("instructor_pose", lang),
            css_classes=["ae-pose-question"],
            stylesheets=[_BUTTON_CSS],
            width=260,
            align="end",
        )
        pose.on_click(lambda _e: self._question_chosen(self._questions.value))
        self._typed_form = self._typing_form()
        reveal = pn.widgets.Button(
            label=_t("instructor_reveal", lang),
            color="warning",
            css_classes=["ae-reveal"],
            stylesheets=[_BUTTON_CSS],
            width=230,
        )
        reveal.on_click(lambda _e: self.reveal())
        self._voting = pn.widgets.Button(
            label=_t("instructor_close_voting", lang),
            css_classes=["ae-close-voting"],
            stylesheets=[_BUTTON_CSS],
            width=230,
        )
        self._voting.on_click(lambda _e: self.toggle_voting())
        self._vote_line = _html("")
        self._timer = pn.widgets.Button(css_classes=["ae-timer"], stylesheets=[_BUTTON_CSS], width=230)
        self._timer.on_click(lambda _e: self.close_voting_in(self._countdown.value))
        # How long T counts: the room's choice (kept in the database for its later rounds and other windows).
        self._countdown = pn.widgets.Select(
            label=_t("instructor_countdown", lang), css_classes=["ae-countdown"], stylesheets=[_SELECT_CSS], width=260
        )
        self._show_countdown(self.store.countdown(room.code) or TIMER_S)
        self._countdown.param.watch(lambda e: self.set_countdown(e.new), "value")
        self._timed_out = None  # (round, step, closes_at) of the countdown whose end this page has recorded
        new_round = pn.widgets.Button(
            label=_t("instructor_new_round", lang), css_classes=["ae-new-round"], stylesheets=[_BUTTON_CSS], width=230
        )
        new_round.on_click(lambda _e: self.new_round())
        end = pn.widgets.Button(
            label=_t("instructor_end_room", lang), css_classes=["ae-end-room"], stylesheets=[_BUTTON_CSS], width=260
        )
        # Ending is for good (students can join no more): a first press asks for a second within END_CONFIRM_S.
        self._end, self._end_armed = end, None
        end.on_click(lambda _e: self.end_pressed())
        self._follow = pn.widgets.Checkbox(
            label=_t("instructor_follow", lang), value=room.follow, css_classes=["ae-follow"], stylesheets=[_CHECK_CSS]
        )
        self._follow.param.watch(
            lambda e: self._write(functools.partial(self.store.set_follow, self.code, e.new)), "value"
        )
        csv = (
            f"<a class='ae-csv' href='/instructor/rooms/{quote(room.code)}.csv' download>"
            f"{html.escape(_t('instructor_csv', lang))}</a>"
        )
        # No student of the room, and a presenter: D demonstrates at once (no prediction asked, no focus taken).
        # The explorable shows the room's step, or step 1 while the room asks a question that is not a step
        # (an exercise, a prediction): its number is no step's.
        step = room.step if 1 <= room.step <= len(scenarios.STEPS) else 1
        self.explorer = StepsExplorer(language=lang, step=step, ask_prediction=False, deep_link=False)
        self.explorer.param.watch(self._step_chosen, "step")
        # The join panel (the URLs and the QR code) is for the first minutes: J folds it away, and the
        # round then fits a projector's 1024x768 (the room's code stays, for a latecomer).
        self._join_info = _html(
            f"<div class='ae-label'>{html.escape(_t('instructor_join', lang))}</div>"
            f"<div class='ae-join-url'>{html.escape(join)}</div>"
            f"<div class='ae-label ae-join-textbook'>{html.escape(_t('instructor_join_textbook', lang))} "
            f"{html.escape(join.replace('/steps?', '/textbook?'))}</div>"
        )
        self._qr = _html(
            f"<div class='ae-qr' role='img' aria-label='{html.escape(join)}'>{qr}</div>", width=320, sizing_mode="fixed"
        )
        self._code_line = _html("")
        self._join_toggle = pn.widgets.Button(css_classes=["ae-join-toggle"], stylesheets=[_BUTTON_CSS], width=330)
        self._join_toggle.on_click(lambda _e: self._toggle_join())
        self._fold_join(self.join_folded)
        self._projector_toggle = pn.widgets.Button(
            css_classes=["ae-projector-toggle"], stylesheets=[_BUTTON_CSS], width=330
        )
        self._projector_toggle.on_click(lambda _e: self.toggle_projector())
        self._hide_results = pn.widgets.Checkbox(
            label=_t("instructor_hide_results", lang),
            value=True,
            css_classes=["ae-hide-results"],
            stylesheets=[_CHECK_CSS],
        )
        self._hide_results.param.watch(lambda _e: self._show(self._seen, again=True), "value")
        self._compare = pn.widgets.Checkbox(
            label=_t("instructor_compare_rounds", lang),
            value=True,
            visible=False,
            css_classes=["ae-round-compare"],
            stylesheets=[_CHECK_CSS],
        )
        self._compare.param.watch(lambda _e: self._show(self._seen, again=True), "value")
        header = _wrapping(
            pn.Column(
                self._code_line,
                self._join_info,
                _wrapping(self._round, self._count, self._presence),
                sizing_mode="stretch_width",
                styles={"flex": "1 1 280px", "min-width": "0"},
            ),
            self._qr,
        )
        # The room's first state goes into its models before they join the page, so they reach the
        # browser whole, in the message that adds them. (Changed a turn later, the histogram's
        # source could be sent on a message that overtook that one: "reference p1068 isn't known".)
        self._seen = None
        self._read_changes, self._read_at = self.store.changes(self.code), time.monotonic()
        self._show(self._read())
        # What setting up the room needs and a round does not: out of sight in projector mode.
        self._setup = [
            _wrapping(self._follow, self._hide_results, self._compare),
            self._countdown,
            end,
            _wrapping(self._questions, pose),
            self._typed_form,
            _html(csv + logout_form_html(lang)),
            _html(f"<p class='ae-big'>{html.escape(_t('instructor_keys', lang))}</p>"),
        ]
        follow_row, countdown, end_button, question_row, typed_form, links, keys_line = self._setup
        self._explorable_box = pn.Column(
            self.explorer, sizing_mode="stretch_width", margin=0, css_classes=["ae-projected-explorable"]
        )
        self._body[:] = [
            header,
            # The question beside its histogram and the spread where the screen is wide (a projector: the
            # bars in sight beside an exercise's options), one above the other on a phone.
            pn.FlexBox(
                pn.Column(
                    self._question,
                    sizing_mode="stretch_width",
                    margin=0,
                    styles={"flex": "1 1 380px", "min-width": "0"},
                ),
                pn.Column(
                    pn.pane.Bokeh(figure, sizing_mode="stretch_width"),
                    self._spread,
                    sizing_mode="stretch_width",
                    margin=0,
                    styles={"flex": "1 1 460px", "min-width": "0"},
                ),
                flex_wrap="wrap",
                align_items="flex-start",
                sizing_mode="stretch_width",
            ),
            self._vote_line,
            # Rows that wrap: the buttons stack on a phone and sit side by side on a projector (the round's
            # four in one row at 1024 px).
            _wrapping(self._voting, reveal, new_round, self._timer),
            follow_row,
            _wrapping(countdown, self._join_toggle, self._projector_toggle, end_button),
            question_row,
            typed_form,
            links,
            keys_line,
            self._explorable_box,
        ]
        self._show_projector(self.projector, fold_join=False)
        if self._refresh_cb is None and pn.state.curdoc is not None and pn.state.curdoc.session_context:
            self._refresh_cb = pn.state.add_periodic_callback(self.refresh, period=REFRESH_MS)

    # --- actions (the buttons, and keys R, N, 1-3) -----------------------------------------
    def _write(self, action, then=None, failed=None) -> None:
        """``action()`` (a database write), then ``then(result)`` and a redraw.

        In a server session the write runs in this module's one writer thread
        (so a slow database stalls no page, and the actions keep their order)
        and ``then`` on the document's next turn; a failed write is one line in
        the log (and ``failed(exc)``, given), and the screen keeps what the
        database holds. Elsewhere (a notebook, a test) at once.
        """
        doc = pn.state.curdoc
        if doc is None or doc.session_context is None:
            result = action()
            if then is not None:
                then(result)
            self.refresh()
            return

        def done(future) -> None:
            self._writes_done += 1
            try:
                result = future.result()
            except Exception as exc:  # noqa: BLE001 - said once; the next refresh shows what is stored
                log.warning("class: room %s not changed: %s", self.code or "-", type(exc).__name__)
                if failed is not None:
                    failed(exc)
                return
            if then is not None:
                then(result)
            self.refresh()

        self._writes_asked += 1
        future = _writer().submit(action)
        future.add_done_callback(lambda f: _next_turn(doc, functools.partial(done, f)))

    def _fold_join(self, folded: bool) -> None:
        """Fold the join panel away (``folded``: the code in one line, no URL, no QR code) or show it."""
        lang = self.language
        self._join_info.visible = self._qr.visible = not folded
        label, code = html.escape(_t("instructor_room_code", lang)), html.escape(self.code)
        self._code_line.object = (  # folded: the label and the code in one line
            f"<div class='ae-label'>{label} <span class='ae-room-code ae-room-code-small'>{code}</span></div>"
            if folded
            else f"<div class='ae-label'>{label}</div><div class='ae-room-code'>{code}</div>"
        )
        self._join_toggle.label = _t("instructor_show_join" if folded else "instructor_hide_join", lang)

    def _toggle_join(self) -> None:
        """Fold the join panel, or show it, and say so in the page's address: a reload keeps it (a projector
        that reconnects by itself after a restart, ``web/connection.js``)."""
        self.join_folded = self._join_info.visible
        self._fold_join(self.join_folded)
        if pn.state.location is not None:
            pn.state.location.update_query(join="folded" if self.join_folded else "shown")

    def _show_projector(self, on: bool, fold_join: bool = True) -> None:
        """Projector mode (:attr:`projector`) on or off: the setting-up controls hidden or shown, the
        explorable's text :data:`PROJECTOR_SCALE` times as large (legible from the back of a hall), and, as
        the mode is turned on (``fold_join``), the join panel folded (a reload keeps it as the address says)."""
        for part in self._setup:
            part.visible = not on
        # Larger type through the explorable's own sizes: its widgets' font (Bokeh's variable), its readouts
        # and hints (ui.CSS's), its plots' texts. (CSS zoom or a transform would put Bokeh's layout out: it
        # measures its boxes as drawn.)
        # (Off: "inherit", the page's own sizes; an empty dict would leave the browser's styles as they were.)
        sizes = {"--bokeh-font-size": 15, "--ae-readout-size": 15, "--ae-small-size": 13}
        self._explorable_box.styles = {k: f"{px * PROJECTOR_SCALE:g}px" if on else "inherit" for k, px in sizes.items()}
        for fig in self.explorer.figures:
            plots.enlarge(fig, PROJECTOR_SCALE if on else 1)
        for widget in self.explorer.controls:
            kept = [css for css in widget.stylesheets if css != _PROJECTED_WIDGET_CSS]
            widget.stylesheets = [*kept, _PROJECTED_WIDGET_CSS] if on else kept
        self._projector_toggle.label = _t(
            "instructor_projector_off" if on else "instructor_projector_on", self.language
        )
        if on and fold_join and not self.join_folded:
            self._toggle_join()

    def toggle_projector(self) -> None:
        """Projector mode on or off (the button, key P), said in the page's address: a reload keeps it."""
        self.projector = not self.projector
        self._show_projector(self.projector)
        if pn.state.location is not None:
            pn.state.location.update_query(projector="on" if self.projector else "off")

    # --- a question the instructor types ------------------------------------------------------------
    def _typing_form(self) -> pn.Card:
        """The form of "ask your own question": its words, a number (answer, tolerance) or a choice
        (options, the right one), and its button, which keeps it and poses it (:meth:`pose_typed`)."""
        lang = self.language
        self._typed_text = pn.widgets.TextAreaInput(
            label=_t("instructor_custom_text", lang),
            rows=3,
            max_length=CUSTOM_TEXT_LIMIT,
            css_classes=["ae-typed-text"],
            stylesheets=[_FIELD_CSS],
            sizing_mode="stretch_width",
        )
        self._typed_kind = pn.widgets.RadioButtonGroup(
            label=_t("instructor_custom_kind", lang),
            options={_t("instructor_custom_number", lang): "number", _t("instructor_custom_choice", lang): "choice"},
            value="number",
            css_classes=["ae-typed-kind"],
            stylesheets=[_BUTTON_CSS],
        )
        self._typed_answer = pn.widgets.TextInput(
            label=_t("instructor_custom_answer", lang),
            css_classes=["ae-typed-answer"],
            stylesheets=[_FIELD_CSS],
            width=380,
        )
        self._typed_within = pn.widgets.TextInput(
            label=_t("instructor_custom_within", lang),
            value="0",
            css_classes=["ae-typed-within"],
            stylesheets=[_FIELD_CSS],
            width=260,
        )
        self._typed_options = pn.widgets.TextAreaInput(
            label=_t("instructor_custom_options", lang),
            rows=4,
            visible=False,
            css_classes=["ae-typed-options"],
            stylesheets=[_FIELD_CSS],
            sizing_mode="stretch_width",
        )
        self._typed_right = pn.widgets.Select(
            label=_t("instructor_custom_right", lang),
            options=list(LETTERS),
            value="A",
            visible=False,
            css_classes=["ae-typed-right"],
            stylesheets=[_SELECT_CSS],
            width=200,
        )
        self._typed_kind.param.watch(lambda e: self._typed_kind_shown(e.new), "value")
        ask = pn.widgets.Button(
            label=_t("instructor_custom_pose", lang),
            css_classes=["ae-typed-pose"],
            stylesheets=[_BUTTON_CSS],
            width=260,
        )
        ask.on_click(lambda _e: self.pose_typed())
        self._typed_message = _html("")
        # Folded until opened: a projected screen would show the answer as it is typed (the hint says so).
        return pn.Card(
            _html(f"<p class='ae-label'>{html.escape(_t('instructor_custom_hint', lang))}</p>"),
            self._typed_text,
            self._typed_kind,
            _wrapping(self._typed_answer, self._typed_within),
            _wrapping(self._typed_options, self._typed_right),
            _wrapping(ask),
            self._typed_message,
            title=_t("instructor_custom_heading", lang),
            collapsed=True,
            css_classes=["ae-typed-question"],
            header_css_classes=["ae-typed-header"],
            stylesheets=[".card-header, .card-title { font-size: 24px; }"],
            sizing_mode="stretch_width",
            margin=(10, 0),
        )

    def _typed_kind_shown(self, kind: str) -> None:
        number = kind == "number"
        self._typed_answer.visible = self._typed_within.visible = number
        self._typed_options.visible = self._typed_right.visible = not number

    def _typed_problem(self, message: str) -> None:
        self._typed_message.object = f"<p class='ae-big ae-error' role='alert'>{html.escape(message)}</p>"

    def pose_typed(self) -> None:
        """Keep the question typed in the form (:meth:`.store.Store.add_question`) and pose it to the room;
        a part that cannot be asked is said under the form (nothing is kept)."""
        lang = self.language
        kind = self._typed_kind.value
        lines = tuple(line for line in self._typed_options.value.splitlines() if line.strip())
        if kind == "number":  # a number that does not read as one is no number: the store's check says which
            answer = _number(self._typed_answer.value)
            within = _number(self._typed_within.value or "0")
            answer, within = (math.nan if x is None else x for x in (answer, within))
        else:
            answer, within = LETTERS.index(self._typed_right.value), 0.0
        try:
            kind, words, answer, within, options = check_custom_question(
                kind, self._typed_text.value, answer, within, lines if kind == "choice" else ()
            )
        except CustomQuestionError as problem:  # said in the form's own words
            text = self._typed_text.value.strip()
            said = {
                "text": ("instructor_custom_too_long", {"limit": CUSTOM_TEXT_LIMIT, "n": len(text)})
                if text
                else ("instructor_custom_no_text", {}),
                "answer": ("instructor_custom_bad_answer", {})
                if kind == "number"
                else ("instructor_custom_bad_right", {"letters": ", ".join(LETTERS[: len(lines)])}),
                "within": ("instructor_custom_bad_within", {}),
                "options": ("instructor_custom_bad_options", {"limit": CUSTOM_OPTION_LIMIT}),
            }[problem.part]
            return self._typed_problem(_t(said[0], lang, **said[1]))
        self._typed_message.object = ""
        code = self.code

        def keep_and_pose():
            typed = self.store.add_question(code, kind, words, answer, within=within, options=options)
            self.store.set_step(code, typed.number)
            return typed

        def posed(_typed) -> None:
            self._typed_text.value = self._typed_answer.value = self._typed_options.value = ""
            self._typed_within.value, self._typed_right.value = "0", "A"

        self._write(
            keep_and_pose, then=posed, failed=lambda _exc: self._typed_problem(_t("instructor_custom_not_saved", lang))
        )

    def _list_typed(self, typed) -> None:
        """The question list: the text's questions, then those typed in this room (once each is kept)."""
        options = {**self._text_questions, **{question_label(q, self.language): q.number for q in typed}}
        if options != self._questions.options:
            self._questions.options = options

    def _step_chosen(self, event) -> None:
        self._write(functools.partial(self.store.set_step, self.code, event.new))

    def _question_chosen(self, number: int) -> None:
        """Pose question ``number`` (the list's entry) to the room, unless the room asks it already."""
        if self._seen and self._seen[0] and self._seen[0].step == number:
            return  # the room's own question, drawn from the database
        self._write(functools.partial(self.store.set_step, self.code, number))

    def _reveal_step(self, code: str) -> None:
        room = self.store.room(code)
        if room is not None:
            self.store.reveal(code, room.step)

    def reveal(self) -> None:
        """Show the answer and the spread for the step on screen (recorded in the database)."""
        self._write(functools.partial(self._reveal_step, self.code))

    def _toggle_voting_step(self, code: str) -> None:
        room = self.store.room(code)
        if room is None or room.revealed:
            return
        if room.closed:
            self.store.open_voting(code, room.step)
        else:
            self.store.close_voting(code, room.step)

    def close_voting_in(self, seconds: float) -> None:
        """Close voting on the step on screen ``seconds`` from now (a countdown on the projector and the
        students' pages); the room's C or its reveal still close it at once."""

        def start(code: str) -> None:
            room = self.store.room(code)
            if room is not None and not room.closed:
                self.store.close_voting_in(code, room.step, seconds)

        self._write(functools.partial(start, self.code))

    def _show_countdown(self, seconds: float) -> None:
        """The countdown chosen, ``seconds``: in its list (among the choices, or beside them) and on T."""
        seconds = int(seconds) if float(seconds).is_integer() else seconds
        choices = sorted({*COUNTDOWN_CHOICES, seconds})
        self._countdown.param.update(
            options={_t("instructor_seconds", self.language, seconds=f"{c:g}"): c for c in choices}, value=seconds
        )
        self._timer.label = _t("instructor_timer", self.language, seconds=f"{seconds:g}")

    def set_countdown(self, seconds: float) -> None:
        """Make T count ``seconds`` (from 1 to 3600) in this room, this round and the later ones.

        Raises
        ------
        ValueError
            If ``seconds`` is not a number from 1 to 3600 (the message names it).
        """
        check_seconds(seconds)
        if self._countdown.value != seconds:
            return self._show_countdown(seconds)  # its list's watcher comes back here with it
        self._timer.label = _t("instructor_timer", self.language, seconds=f"{seconds:g}")
        if self._seen is None or self._seen[7] != seconds:  # not the countdown the room holds already (_read)
            self._write(functools.partial(self.store.set_countdown, self.code, seconds))

    def _record_timeout(self, room) -> None:
        """The countdown of ``room``'s step has run out: record the close at its time (once per page)."""
        ended = (room.round, room.step, room.closes_at)  # each countdown once (C, T again: another one)
        if self._timed_out == ended:
            return
        self._timed_out = ended
        self._write(functools.partial(self.store.close_voting, room.code, room.step, now=room.closes_at))

    def toggle_voting(self) -> None:
        """Close voting on the step on screen (no more answers; students' pages may demonstrate), or reopen it."""
        self._write(functools.partial(self._toggle_voting_step, self.code))

    def new_round(self) -> None:
        """Start a new round: the histogram empties, the earlier rounds stay in the CSV."""
        self._write(functools.partial(self.store.new_round, self.code))

    def end_pressed(self, now: float | None = None) -> None:
        """The "end the class" button: a first press asks to confirm, a second within END_CONFIRM_S ends."""
        now = time.monotonic() if now is None else now
        if self._end_armed is not None and now - self._end_armed <= END_CONFIRM_S:
            self._end_armed = None
            return self.end_room()
        self._end_armed = now
        self._end.param.update(label=_t("instructor_end_confirm", self.language), button_type="danger")

    def _disarm_end(self, now: float) -> None:
        """The confirmation not given in time: the button says what it does again."""
        if self._end_armed is not None and now - self._end_armed > END_CONFIRM_S:
            self._end_armed = None
            self._end.param.update(label=_t("instructor_end_room", self.language), button_type="default")

    def end_room(self) -> None:
        """End the room: students can join it no more, their pages say so; the rounds stay for the CSV."""
        code = self.code
        self._write(functools.partial(self.store.end_room, code), then=lambda _none: self._ended(code))

    def _ended(self, code: str) -> None:
        if self._refresh_cb is not None:
            self._refresh_cb.stop()
            self._refresh_cb = None
        self.code = ""
        if pn.state.location is not None:
            pn.state.location.update_query(room="")
        self._show_start(ended=code)

    # --- what is shown ------------------------------------------------------------------
    def refresh(self) -> None:
        """Read the room and redraw what changed (count, histogram, answer, spread).

        In a server session the read runs in one of this module's threads and
        the redraw on the document's next turn: a slow database stalls no page
        and no other session (a read still under way skips the next turns).
        Elsewhere (a notebook, a test) at once.
        """
        doc = pn.state.curdoc
        if doc is None or doc.session_context is None:
            self._show(self._read())
            return
        self._disarm_end(time.monotonic())
        if self._reading:
            return
        changes, now = self.store.changes(self.code), time.monotonic()
        if (
            self._seen is not None
            and changes == self._read_changes
            and not (self.shared and now - self._read_at >= SHARED_READ_S)
        ):
            room = self._seen[0] if self._seen else None
            if room is None or room.closes_at is None or room.closed:
                return  # nothing changed: no query
            if time.time() < room.closes_at:
                if self._writing:
                    return  # a write of this page under way: the room as read before it is not drawn again
                return self._show(self._seen, again=True)  # a countdown's seconds, from what was read
        self._read_changes, self._read_at = changes, now
        self._reading = True
        asked = self._writes_asked
        future = _reader().submit(self._read)
        future.add_done_callback(lambda f: _next_turn(doc, functools.partial(self._read_done, f, asked)))

    @property
    def _writing(self) -> bool:
        """Whether one of this page's writes is asked for and not yet done."""
        return self._writes_done != self._writes_asked

    def _read_done(self, future, asked: int) -> None:
        """Show what the read gave, unless this page wrote meanwhile (``asked``: its writes asked for when the
        read began): then the room is read again once its writes are done."""
        self._reading = False
        if not asked == self._writes_asked == self._writes_done:
            self._read_changes = None
            if not self._writing:  # else the last write's end reads the room
                self.refresh()
            return
        try:
            seen = future.result()
        except Exception as exc:  # noqa: BLE001 - one line in the log; the next turn reads again
            log.warning("class: room %s not read: %s", self.code, type(exc).__name__)
            seen = None
        if seen is None:
            self._read_changes = None  # not read: the next turn reads again
            return
        self._show(seen)

    def _read(self):
        """(room, its step's values, revealed, the values of the question's round before, the students'
        pairs of answers in both rounds, the values said to be sure, how many students are in the room, the
        countdown chosen or None, the question's own round number) from the database, or None when it
        cannot be read."""
        try:
            room = self.store.room(self.code)
            said = self.store.values_with_confidence(self.code, room.step) if room else []
            values = [v for v, _ in said]
            revealed = bool(room) and self.store.revealed(self.code, room.step)
            # The question's own rounds: the room's earlier rounds that asked it (another question meanwhile
            # is no round of this one); the round before is the last of them.
            earlier = [r for r in self.store.answered_rounds(self.code, room.step) if r < room.round] if room else []
            before = self.store.values(self.code, room.step, earlier[-1]) if earlier else []
            pairs = self.store.pairs(self.code, room.step, earlier[-1], room.round) if before else []
            present = self.store.present(self.code) if room else 0
            countdown = self.store.countdown(self.code) if room else None
            typed = tuple(typed_question(q) for q in self.store.custom_questions(self.code)) if room else ()
        except SQLAlchemyError as exc:
            log.warning("class: room %s not read: %s", self.code, type(exc).__name__)
            return None
        return (
            room,
            tuple(values),
            revealed,
            tuple(before),
            tuple(sorted(pairs)),
            tuple(v for v, c in said if c == "sure"),
            present,
            countdown,
            len(earlier) + 1,
            typed,
        )

    def _show(self, seen, again: bool = False) -> None:
        """Draw what :meth:`_read` read, when it differs from what is drawn (or ``again``)."""
        if seen is not None and seen[0] is not None and seen[0].closes_at is not None:
            again = True  # a countdown: its seconds go down while nothing else changes
        if seen is None or seen[0] is None or (seen == self._seen and not again):
            return
        self._seen = seen
        room, values, revealed, before, pairs, sure, present, countdown, asked, typed = seen
        if room.ended:  # ended in another window, or a day after it started
            self._ended(room.code)
            return
        lang = self.language
        self._list_typed(typed)
        question = get_question(room.step) or next((q for q in typed if q.number == room.step), None)
        if question is None:  # a number no question of this release has (a newer one chose it)
            log.warning("class: room %s shows question %s, which this release does not know", room.code, room.step)
            return
        count = _t("instructor_count", lang, n=len(values)) + (
            _t("instructor_sure_count", lang, sure=len(sure)) if sure else ""
        )
        self._count.object = f"<div class='ae-prediction-count' aria-live='polite'>{html.escape(count)}</div>"
        # When to close the round: how many are here (their pages open in the room) beside how many answered.
        here = _t("instructor_presence", lang, present=present, answered=len(values))
        self._presence.object = f"<div class='ae-presence ae-big'>{html.escape(here)}</div>"
        round_line = (
            _t("instructor_round", lang, round=asked, step=room.step)
            if question.is_step
            else _t("instructor_round_custom", lang, round=asked, ordinal=question.ordinal)
            if question.is_typed
            else _t("instructor_round_question", lang, round=asked, exercise=exercise_name(question, lang))
        )
        self._round.object = f"<div class='ae-round ae-label'>{html.escape(round_line)}</div>"
        # The package's own text (formulas as MathML), or the instructor's typed words escaped: never markup.
        self._question.object = (
            f"<div class='ae-instructor-question'><h2>{html.escape(question_title(question, lang))}"
            f"</h2>{question_html(question, lang)}</div>"
        )
        # The list follows the room's question when that changes (here, or in another window), and keeps an
        # entry chosen but not yet asked while answers come in.
        if self._listed_step != room.step:
            self._listed_step = room.step
            self._questions.value = room.step
        self._draw_scale(question)
        # While the vote is open the class's answers may be hidden from the projector (the default: each
        # student answers alone first); the count still shows.
        hidden = self._hide_results.value and not room.closed
        self._bars.data = plots.histogram_data(question.bars([] if hidden else values))
        # The part of each bar said to be sure, darker, from the axis up (ae-confidence on the students' pages).
        self._sure_bars.data = plots.histogram_data(question.bars([] if hidden else sure), drop_empty=True)
        # The round before, on the same question, outlined behind this one (ae-round-compare).
        compared = bool(before) and self._compare.value and not hidden
        self._before_bars.data = plots.histogram_data(question.bars(before if compared else []), drop_empty=True)
        self._compare.visible = bool(before)
        if room.closes_at is not None and room.closed and not room.revealed:
            self._record_timeout(room)
        vote = (
            "instructor_voting_revealed"
            if room.revealed
            else "instructor_voting_closed"
            if room.closed
            else "instructor_voting_open"
        )
        vote_text = (
            _t("instructor_voting_closes_in", lang, seconds=max(0, math.ceil(room.closes_at - time.time())))
            if room.closes_at is not None and not room.closed
            else _t(vote, lang)
        )
        line = vote_text + (
            " " + _t("instructor_results_hidden", lang)
            if hidden
            else " " + _t("instructor_sure_note", lang)
            if sure
            else ""
        )
        self._vote_line.object = f"<div class='ae-vote-state ae-big'>{html.escape(line)}</div>"
        self._voting.label = _t("instructor_open_voting" if room.closed else "instructor_close_voting", lang)
        self._voting.disabled = room.revealed
        self._timer.disabled = room.closed or room.closes_at is not None
        # What another window chose is followed here only while none of this page's own writes is under way:
        # the room drawn then may be as read before this page's last choice, not a choice made elsewhere.
        settled = not self._writing
        if settled and countdown is not None and countdown != self._countdown.value:  # chosen in another window
            self._show_countdown(countdown)
        compare = ""
        if revealed:
            line, compare = self._outcome(question, asked, values, before, pairs, compared)
            self._answer.update(location=question.answer, visible=True)
        else:
            line = _t("instructor_hidden", lang)
            self._answer.update(location=None, visible=False)
        self._spread.object = f"<div class='ae-spread'>{html.escape(line)}</div>" + (
            f"<div class='ae-compare ae-big'>{html.escape(compare)}</div>" if compare else ""
        )
        if settled and self._follow.value != room.follow:
            self._follow.value = room.follow
        if settled and question.is_step and self.explorer.step != room.step:  # chosen in another window
            self.explorer.go_to_step(room.step)

    def _draw_scale(self, question) -> None:
        """The histogram's x axis for ``question``: a letter per option of a choice (an axis of its own), else
        numbers."""
        lang, numbers, letters = self.language, self._figure.xaxis[0], self._choice_axis
        choice = question.kind == "choice"
        if choice:
            ticks = list(range(len(question.options)))
            if list(letters.ticker.ticks) != ticks:
                letters.ticker = FixedTicker(ticks=ticks)
            labels = {i: letter for i, letter in enumerate(question.options)}
            if letters.major_label_overrides != labels:
                letters.major_label_overrides = labels
        else:
            label = _t("instructor_axis" if question.is_step else "instructor_axis_answer", lang)
            if numbers.axis_label != label:
                numbers.axis_label = label
        if numbers.visible == choice:
            numbers.visible, letters.visible = not choice, choice

    def _outcome(self, question, asked, values, before, pairs, compared) -> tuple[str, str]:
        """The revealed question's line (its answer, how far the class was, the share right) and the
        comparison with its round before ("" without one); ``asked`` is the question's own round."""
        lang = self.language
        answer = format_number(question.answer, 2, False) if question.is_step else question.format(question.answer)
        spread = stats.spread(values, question.answer, question.within)
        share = lambda x: "–" if x is None else f"{stats.percent(x)}%"  # noqa: E731
        if question.is_step:
            line = (
                _t(
                    "instructor_spread",
                    lang,
                    answer=answer,
                    gap=format_number(spread["median_gap"], 2, False),
                    within=f"{question.within:g}",
                    share=share(spread["share_within"]),
                )
                if spread["n"]
                else _t("instructor_spread_empty", lang, answer=answer)
            )
        elif not spread["n"]:
            line = _t("instructor_spread_question_empty", lang, answer=answer)
        elif question.kind == "choice":
            line = _t("instructor_spread_choice", lang, answer=answer, share=share(spread["share_within"]))
        else:
            line = _t(
                "instructor_spread_question",
                lang,
                answer=answer,
                within=f"{question.within:g}",
                share=share(spread["share_within"]),
            )
        if not compared:
            return line, ""
        moved = stats.compare(before, values, pairs, question.answer, question.within)
        if question.is_step:
            return line, _t(
                "instructor_compare",
                lang,
                previous=asked - 1,
                before=share(moved["share_before"]),
                after=share(moved["share_after"]),
                closer=moved["closer"],
                paired=moved["paired"],
                within=f"{question.within:g}",
            )
        right = lambda v: abs(v - question.answer) <= question.within + 1e-12  # noqa: E731
        return line, _t(
            "instructor_compare_question",
            lang,
            previous=asked - 1,
            before=share(moved["share_before"]),
            after=share(moved["share_after"]),
            closer=sum(right(b) and not right(a) for a, b in pairs),
            paired=moved["paired"],
        )

    def __panel__(self):
        return pn.Column(
            self._keys,
            self._body,
            sizing_mode="stretch_width",
            max_width=1400,
            styles={"margin": "0 auto"},
            css_classes=["ae-instructor"],
        )


def _number(raw: str) -> float | None:
    """``raw`` read as the class reads a typed number (:func:`.views.numbers.parse_number`), or None."""
    try:
        return parse_number(raw)
    except ValueError:
        return None


def _argument(name: str) -> str | None:
    """The argument ``name`` of the page being built, stripped and cut to 32 characters (None without one)."""
    values = (pn.state.session_args or {}).get(name) or []
    if not values:
        return None
    value = values[0].decode("utf-8", "replace") if isinstance(values[0], bytes) else str(values[0])
    return value.strip()[:32] or None


def room_argument() -> str | None:
    """The ``?room=`` argument of the page being built, as given (None without one)."""
    return _argument("room")


def instructor_page(context: ClassContext, language: str = DEFAULT_LANGUAGE) -> pn.viewable.Viewable:
    """The page at ``/instructor``: the view of the room named by ``?room=`` (or a page that starts one).

    ``context`` is the server's :class:`~.context.ClassContext` (its secret,
    database and URLs). Served only behind :class:`.handlers.InstructorAuth`,
    which lets no session be made without the instructor's cookie (and leaves
    the cookie out of the session): a browser without it gets the plain login
    page instead.
    """
    if not context.has_secret:
        return _html(f"<p class='ae-big ae-error'>{html.escape(_t('instructor_no_key', language))}</p>")
    room = room_argument()
    try:
        return InstructorView(
            code=normalise_code(room) or (room or ""),
            language=language,
            base_url=join_base(pn.state.headers, context.public_urls),
            store=context.store(),
            shared=context.shared,
            join_folded=_argument("join") == "folded",
            projector=_argument("projector") == "on",
        )
    except Exception as exc:  # noqa: BLE001 - a page never shows a traceback: one line in the log, a plain page
        log.warning("class: instructor page for room %r not built: %s", room or "-", type(exc).__name__)
        return _html(f"<p class='ae-big ae-error'>{html.escape(_t('instructor_page_failed', language))}</p>")
