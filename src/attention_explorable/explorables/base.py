"""The base every explorable's Panel component shares, drawn from Python.

An explorable's student page, embeds, textbook block and notebook widget are
its module (``web/<name>.js``, in the anywidget front-end form; see
:mod:`attention_explorable.modules`). Its Panel component (``panel serve``,
the instructor's page, ``server_document``) is the classic Panel way: a
:class:`panel.viewable.Viewer` whose ``param`` parameters are its state, whose
Bokeh controls call Python back, and whose every change of a parameter
writes its pure Python view (``views/<name>.py``) into its Bokeh models. No
JavaScript of the explorable runs in it.

References: docs/architecture.md, "The life of a key press".
"""

from __future__ import annotations

import html
import math
import weakref
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path

import panel as pn
import param
from bokeh.models import CustomJS
from panel.models.markup import HTML as HTMLModel

from .. import ui
from . import MODULES
from ..strings import DEFAULT_LANGUAGE, STRINGS, text
from ..views.links import link_values, read_link


def web_module(name: str) -> str:
    """The source of the package's bundled ES module ``web/dist/<name>.mjs``, which a live Panel page runs
    through Bokeh's ``CustomJS`` (a page script: ``frame``, ``connection``, ``keys``, ``language`` ...)."""
    return _read(str(resources.files("attention_explorable").joinpath("web", "dist", f"{name}.mjs")))


@lru_cache(maxsize=None)
def _read(path: str) -> str:
    return Path(path).read_text("utf-8")


class ScriptedPane(pn.pane.HTML):
    """HTML whose ES module (``web/<name>.js``) runs in the browser once the page's document is ready.

    The module's default export is called with ``{host, ...settings}``:
    ``host`` is this pane's Bokeh model, whose view
    (``Bokeh.index.find_one(host)``) holds the HTML in its shadow root. The
    HTML is there from the start (a link, a check box), so it reads the same
    before the module runs; the module adds what needs a script. Unlike a
    Panel ESM component, it needs no ES-module shims nor Panel's whole script
    in the browser: any page (served, exported, saved, a live app, a
    notebook) runs it through Bokeh's ``CustomJS``. The module runs when
    the page's document is first drawn: a pane added later to a live page
    shows its HTML but does not run it.

    Parameters
    ----------
    object : str
        The HTML (as :class:`panel.pane.HTML`).
    script : str
        The module's name: ``web/<name>.js`` (bundled as ``web/dist/<name>.mjs``).
    settings : dict
        More arguments of the module (JSON values or Bokeh models).
    """

    script = param.String(doc="The ES module run at document_ready: web/<name>.js.")
    settings = param.Dict(default={}, doc="More arguments of the module.")

    _rename = {**pn.pane.HTML._rename, "script": None, "settings": None}

    def _get_model(self, doc, root=None, parent=None, comm=None):
        model = super()._get_model(doc, root, parent, comm)
        doc.js_on_event(
            "document_ready", CustomJS(code=web_module(self.script), module=True, args={"host": model, **self.settings})
        )
        return model


def bokeh_pane(model) -> pn.pane.Bokeh:
    """A Bokeh model (a readout, a widget, a figure) in a Panel layout, stretched to its column, no margin."""
    return pn.pane.Bokeh(model, sizing_mode="stretch_width", margin=0)


def html_model(css_class: str, **kw) -> HTMLModel:
    """A readout the browser draws (Panel's HTML model; its ``text`` is escaped HTML)."""
    return HTMLModel(
        **{
            "text": "",
            "css_classes": ["ae-readout", css_class],
            "stylesheets": [ui.CSS],
            "margin": (2, 5),
            "sizing_mode": "stretch_width",
            "syncable": False,
            **kw,
        }
    )


def screen_reader_model(css_class: str, live: bool = False) -> HTMLModel:
    """A readout out of sight for screen readers: a plot's data table, or (``live``) a polite live region.

    A live region (``role=status``) is announced when its text changes; the
    browser writes it once a movement settles (``writeViewAnnounced`` in
    ``web/shared.js``).
    """
    attributes = {"role": "status", "aria-live": "polite"} if live else {}
    return html_model(css_class, stylesheets=[ui.CSS, ui.SR_ONLY], html_attributes=attributes)


def write_view(models: dict, view: dict) -> None:
    """Write ``view`` into ``models`` (the Python twin of ``writeView`` in ``web/shared.js``)."""
    for name, data in view.get("sources", {}).items():
        models[name].data = {k: list(v) for k, v in data.items()}
    for name, (start, end) in view.get("ranges", {}).items():
        models[name].update(start=start, end=end)
    for name, text_ in view.get("html", {}).items():
        models[name].text = html.escape(text_)
    for name, props in view.get("props", {}).items():
        models[name].update(**props)


def prediction_models(name: str, language: str, predictions) -> dict:
    """The models of an explorable's question asked first (``views/choice.py``), by the names its view uses.

    ``question`` (the question ``<name>_predict_question`` in bold), ``prediction_choice`` (a
    column of buttons, one per option ``<name>_predict_<option>`` of ``predictions[1:]``),
    ``predict_check``, ``predict_skip`` and ``feedback`` (what the view says once the answer
    shows). CSS classes ``ae-<name>-question``, ``-prediction``, ``-check``, ``-skip`` and
    ``-feedback``.
    """
    from . import controls

    question = html_model(f"ae-{name}-question")
    question.text = html.escape(f"<b>{html.escape(text(f'{name}_predict_question', language))}</b>")
    return {
        "question": question,
        "prediction_choice": controls.choice(
            [text(f"{name}_predict_{p}", language) for p in predictions[1:]],
            None,
            f"ae-{name}-prediction",
            orientation="vertical",
        ),
        "predict_check": controls.button(text("predict_check", language), f"ae-{name}-check", "primary"),
        "predict_skip": controls.button(text("skip_prediction", language), f"ae-{name}-skip"),
        "feedback": html_model(f"ae-{name}-feedback"),
    }


@dataclass(frozen=True)
class Tried:
    """How a page shows an explorable works (:attr:`Explorable.tried`): see there."""

    ready: str
    control: str
    press: str | None = None
    state: dict = field(default_factory=dict)
    readout: str = ""

    @property
    def changed(self) -> str:
        """The readout a press (or key) changes: ``readout``, or ``ready`` when none is given."""
        return self.readout or self.ready


#: Each notebook display of an explorable: [a weak reference to it, the display's handle, the layout shown,
#: the execution count of the cell that showed it].
_SHOWN: list = []


def _page_opened(layout) -> bool:
    """Whether a notebook page drew ``layout`` (its display's output): the page then opened the display's
    client comm (pyviz_comms' ``JupyterCommJS``, whose ``_comm`` is set by the page's ``comm_open``)."""
    return any(getattr(client, "_comm", None) for _, client in getattr(layout, "_comms", {}).values())


def _redraw_moved_displays(result=None) -> None:
    """After a notebook cell ran: draw again, in place, each display of an explorable that Python moved,
    which no page has drawn (a notebook run without a browser: ``nbconvert --execute``, nbclient), so that
    its saved output holds the state now. A display a page shows follows Python by its widget's comm
    instead, and one shown by the cell that just ran waits for the next cell (its page may
    not have drawn it yet). See ``Explorable._ipython_display_``."""
    from IPython import get_ipython

    shell = get_ipython()
    count = shell.execution_count if shell is not None else None  # (the running cell's, as at display)
    redrawn = []  # (each explorer's flag is cleared once all its displays are drawn)
    for entry in list(_SHOWN):
        ref, handle, layout, shown_in = entry
        explorer = ref()
        if explorer is None:
            _SHOWN.remove(entry)
        elif explorer._moved_in_python and shown_in != count and not _page_opened(layout):
            entry[2] = explorer._notebook_view()
            handle.update(entry[2])
            redrawn.append(explorer)
    for explorer in redrawn:
        explorer._moved_in_python = False


def param_link_spec(obj: param.Parameterized, names, prefix: str, language: str, starts=None) -> dict:
    """The JSON spec of deep links to parameters ``names`` of ``obj`` (see :mod:`..views.links`).

    Each parameter's kind, bounds and choices come from its ``param`` definition; ``defaults`` is
    what a fresh ``obj`` opens with; ``prefix`` goes before each name in the query (``"head."``).
    ``starts``, for an explorable whose link resets to a start (the steps), is ``(parameter, {value:
    start state})``: a link's value of that parameter opens at its start, as its buttons do.

    Raises
    ------
    ValueError
        For a name ``obj`` has no parameter of, or a kind a link cannot carry (named).
    """
    params = []
    for name in names:
        if name not in obj.param:
            raise ValueError(f"names must be parameters of {type(obj).__name__}, got {name!r}")
        p = obj.param[name]
        if isinstance(p, param.Boolean):
            params.append({"name": name, "kind": "boolean"})
        elif isinstance(p, param.Selector):
            params.append({"name": name, "kind": "choice", "choices": list(p.objects)})
        elif isinstance(p, param.String):
            params.append({"name": name, "kind": "text"})
        elif isinstance(p, param.Number) and p.bounds:
            lo, hi = p.bounds
            params.append(
                {"name": name, "kind": "integer" if isinstance(p, param.Integer) else "number", "lo": lo, "hi": hi}
            )
        else:
            raise ValueError(f"a link cannot carry parameter {name!r} ({type(p).__name__} without bounds)")
    spec = {
        "prefix": prefix,
        "params": params,
        "defaults": {name: obj.param[name].default for name in names},
        "messages": {"clamped": text("link_clamped", language), "junk": text("link_junk", language)},
        # The same notices about an <attention-explorable> element's attributes (web/shadow.js).
        "attribute_messages": {
            "clamped": text("attribute_clamped", language),
            "junk": text("attribute_junk", language),
        },
    }
    if starts:
        spec["reset"], by_value = starts
        spec["starts"] = {str(k): {n: v for n, v in start.items() if n in names} for k, start in by_value.items()}
        spec["defaults"].update(spec["starts"][str(spec["defaults"][spec["reset"]])])
    return spec


class Explorable(pn.viewable.Viewer):
    """An explorable as a Panel component drawn from Python: language, state, the view written into Bokeh models.

    Its Bokeh controls call Python back (:meth:`_act`, given the model the student used), which sets the
    parameters, and every change of a parameter writes the Python view into its Bokeh models. Its student
    page, embeds, textbook block and notebook widget are its module (``web/<name>.js``, registered in
    :data:`~attention_explorable.explorables.MODULES`).

    Subclasses set ``_view_module`` (their pure view's module, whose name is theirs) and ``_config_data``
    (what the view needs besides the state), implement :meth:`_models` (the page's models by the names
    the view uses) and :meth:`_act`, and call :meth:`_attach` once their models exist, giving the models
    the student uses.
    """

    language = param.Selector(
        default=DEFAULT_LANGUAGE, objects=list(STRINGS), constant=True, doc="Language of the interface text."
    )
    link_prefix = param.String(
        "",
        constant=True,
        doc=(
            "What this explorable's parameters are called in a deep link: '' on a page of its own "
            "(?temperature=0.05), 'steps.' on the textbook page (?steps.temperature=0.05)."
        ),
    )
    deep_link = param.Boolean(
        True,
        constant=True,
        doc=(
            "Whether the page's address opens this explorable's state and follows it (a deep link); off "
            "where the explorable is a part of another page's own state (the instructor's page: its room "
            "decides the step, and a reload must not pose the step the address last held)."
        ),
    )
    #: The explorable's view module (``views/<name>.py``): its ``<name>_view(state, config)`` and
    #: ``STATE_NAMES`` give ``_name``, ``_view_function`` and ``_state_params`` (see ``__init_subclass__``).
    _view_module = None
    _name: str = ""
    _view_function = None
    _state_params: tuple[str, ...] = ()
    #: The string key of the paragraph that opens it, if any.
    intro_key: str = ""
    #: How a page shows it works, for the pages' tests and benchmarks: ``ready``, a readout that
    #: shows numbers once it is drawn; ``control``, what a student uses; ``press``, the string key of
    #: the button pressed on ``control`` (None: an arrow key on it); ``state``, a state other than the
    #: default from which ``press`` also changes ``ready``'s readout (a saved page opens on it).
    #: (An explorable that asks first is tried past its question: ``revealed`` in ``state``.)
    tried = None
    #: The state parameters a deep link may set (and the address bar keeps); by default every one.
    _link_params: tuple[str, ...] = ()

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        view = cls.__dict__.get("_view_module")
        if view is not None:
            cls._name = view.__name__.rsplit(".", 1)[-1]
            cls._view_function = staticmethod(getattr(view, f"{cls._name}_view"))
            cls._state_params = tuple(view.STATE_NAMES)
            if "_link_params" not in cls.__dict__:
                cls._link_params = cls._state_params

    def __init__(self, **params):
        super().__init__(**params)
        self._moved_in_python = False  # since its notebook display was last drawn (_redraw_moved_displays)
        self.param.watch(self._changed, list(self._state_params))

    def _plot(self, fig) -> pn.viewable.Viewable:
        """Figure ``fig`` in the layout (layout only), stretched to its column."""
        return bokeh_pane(fig)

    @classmethod
    def page_parts(cls, language: str) -> tuple:
        """What the explorable's page of its own shows above it besides its title (none by default)."""
        return ()

    # --- text -----------------------------------------------------------------
    def _t(self, key, **fmt):
        return text(key, self.language, **fmt)

    # --- state ----------------------------------------------------------------
    def state(self) -> dict:
        """The explorable's state: the value of every state parameter, by name."""
        return {name: getattr(self, name) for name in self._state_params}

    def view(self) -> dict:
        """What the explorable displays now: its pure view (``_view_function``) of its state and config.

        See :mod:`attention_explorable.views` for the dict's parts.
        """
        return type(self)._view_function(self.state(), self._config())

    def _models(self) -> dict:
        """The page's models by the names the view uses."""
        raise NotImplementedError

    def _slider_models(self) -> dict:
        """``<name>_slider`` and ``<name>_box`` of each of ``self._sliders`` (name -> (slider, box, row),
        from :func:`controls.slider`), as the view and ``modelSlider`` in ``web/parts.js`` name them."""
        out = {}
        for name, (slider, box, _row) in getattr(self, "_sliders", {}).items():
            out[f"{name}_slider"], out[f"{name}_box"] = slider, box
        return out

    def _slider_events(self) -> dict:
        """The events of ``self._sliders`` the module handles: each slider's and box's ``value``."""
        return {model: "value" for model in self._slider_models().values()}

    def _config(self) -> dict:
        """The JSON-able data the view needs besides the state (strings, bounds, ...): ``_config_data``,
        which a subclass sets before its first draw."""
        return self._config_data

    # --- deep links -------------------------------------------------------------
    def _link_starts(self) -> dict:
        """For an explorable whose link resets to a start: ``(parameter, {value: start state})``."""
        return {}

    def link_spec(self) -> dict:
        """The JSON spec of this explorable's deep links (see :mod:`attention_explorable.views.links`).

        Built from the link parameters' ``param`` definitions: kind, bounds,
        choices, and the state a fresh explorable opens with.
        """
        return param_link_spec(self, self._link_params, self.link_prefix, self.language, self._link_starts())

    def open_link(self, query) -> list[str]:
        """Set the state a deep link names; return the notices about values it clamped or ignored.

        Parameters
        ----------
        query : str, Mapping[str, list[str | bytes]] or Iterable[tuple[str, str]]
            The URL's query: a query string (``"step=3&temperature=0.05"``),
            Panel's ``pn.state.session_args`` or (name, value) pairs; names
            other than this explorable's link parameters are left alone.

        The notices also appear in the explorable (its ``ae-input-notice``).
        Never raises for what a URL can hold.

        Examples
        --------
        >>> from attention_explorable.explorables.vector import VectorExplorer
        >>> v = VectorExplorer(language="en")
        >>> v.open_link([("query_x", "0.5"), ("temperature", "hot")])
        ['The link’s temperature=hot is not a value it can take; ignored.']
        >>> v.query_x
        0.5
        >>> v.open_link("temperature=2")
        []
        >>> v.temperature
        2.0
        """
        spec = self.link_spec()
        values, notices = read_link(spec, query)
        state = link_values(spec, {n: getattr(self, n) for n in self._link_params}, values)
        self.param.update({n: v for n, v in state.items() if v != getattr(self, n)})
        notice = self._models().get("notice")
        if notice is not None and notices:
            with pn.io.unlocked():
                notice.update(text=html.escape(" ".join(notices)), visible=True)
        return notices

    def _show_in_notebook(self, layout) -> None:
        from IPython import get_ipython
        from IPython.display import display

        handle = display(layout, display_id=True)
        shell = get_ipython()
        # (Jupyter's own comms only: where Panel draws through ipywidgets, VS Code's or Colab's, a page's
        # comm cannot be told apart and the output is left as displayed.)
        if handle is None or shell is None or pn.config.comms != "default":
            return
        _SHOWN.append([weakref.ref(self), handle, layout, shell.execution_count])
        if _redraw_moved_displays not in shell.events.callbacks["post_run_cell"]:
            shell.events.register("post_run_cell", _redraw_moved_displays)

    _redrawing = False

    def _redraw(self) -> None:
        self._redrawing = True
        try:
            self._draw()
        finally:
            self._redrawing = False

    def _draw(self) -> None:
        view = self.view()
        # A slider the browser already holds at the state's value, but for the float noise of its drag
        # (7.000000000000001 for 7), is not written back: the write would reach the browser a moment
        # later, when the student's drag may be further on, and put the handle back where it was.
        props = view.get("props", {})
        for name, (slider, _box, _row) in getattr(self, "_sliders", {}).items():
            drawn = props.get(f"{name}_slider", {})
            want, held = drawn.get("value"), slider.value
            if (
                want is not None
                and held is not None
                and want != held
                and math.isclose(held, want, rel_tol=1e-9, abs_tol=1e-12)
            ):
                props[f"{name}_slider"] = {k: v for k, v in drawn.items() if k != "value"}
        # What each box was given to show (a replay's frame reads 0.98 for 0.978688): its echo is no typing.
        self._box_drawn = {
            name: props[f"{name}_box"]["value"]
            for name in getattr(self, "_sliders", {})
            if "value" in props.get(f"{name}_box", {})
        }
        write_view(self._models(), view)

    def _changed(self, *events) -> None:
        # (Drawn as the change's callback runs: Bokeh sends what it wrote once the callback returns.
        # Panel's ``unlocked`` would send it at once instead, and a change made in a browser's event
        # then never reached that browser.)
        self._redraw()

    def _attach(self, events: dict) -> None:
        """Call :meth:`_act` with the model, on each of ``events`` (model -> property or event name).

        The explorable's models are made syncable (``explorables/controls.py`` makes them not): the
        student's changes must reach Python, and Python's drawing the browser.
        """
        for model in self._models().values():
            model.syncable = True
        for model, what in events.items():
            for item in what if isinstance(what, (list, tuple)) else [what]:
                if item in model.properties():
                    model.on_change(item, lambda attr, old, new, model=model: self._acted(model))
                else:
                    model.on_event(item, lambda event, model=model: self._acted(model, event))

    def _acted(self, origin, event=None) -> None:
        # What no page of ours sends (a value out of its bounds, of the wrong type) sets nothing and
        # puts the controls back as the state has them: never a traceback in the server's log.
        try:
            if self._waits(origin):
                # Predict first: its controls wait (greyed) until the prediction; what a page sent is put
                # back (not again for what that redraw itself writes), and a tap on a plot is answered.
                if not self._redrawing:
                    self._redraw()
                if event is not None:
                    self._say(self._t("predict_locked"))
                return
            self._act(origin, event)
        except (ValueError, TypeError, IndexError):
            self._redraw()

    def _waits(self, origin) -> bool:
        """Whether the student's use of model ``origin`` waits for the prediction (``views/choice.py``
        ``lock``): the explorable asks one (``_ask``, its question's models), the answer is not shown yet,
        and ``origin`` is not one of the question's own models."""
        ask = getattr(self, "_ask", None)
        return bool(ask) and not self.revealed and origin not in ask.values()

    def _act(self, origin, event=None) -> None:
        """What the student's use of model ``origin`` does to the state (``event``: the Bokeh event, for
        an event such as a tap; None for a changed property)."""
        raise NotImplementedError

    def _choice_acted(self, origin, predictions, **reveal) -> bool:
        """The question asked first (``views/choice.py``; ``web/parts.js`` ``choiceParts`` in a module): an
        option pressed becomes ``prediction``; "check" with one, or "skip", sets ``prediction``,
        ``revealed`` and the parameters ``reveal`` names; "check" without one says so in the notice.
        Returns whether ``origin`` was one of the question's models."""
        ask = self._ask
        if origin is ask["prediction_choice"]:
            chosen = "" if origin.active is None else self._pick(predictions[1:], origin.active)
            if not self.revealed and chosen != self.prediction:
                self._say("")
                self.prediction = chosen
        elif origin is ask["predict_check"] and not self.prediction:
            self._say(self._t("predict_needed"))
        elif origin in (ask["predict_check"], ask["predict_skip"]):
            self._say("")
            prediction = "" if origin is ask["predict_skip"] else self.prediction
            self.param.update(prediction=prediction, revealed=True, **reveal)
        else:
            return False
        return True

    def _slider_acted(self, origin, to_grid=None, before=None) -> bool:
        """A slider of ``self._sliders`` moved, or its box typed (``web/parts.js`` ``modelSlider`` in a
        module): the slider's value, on the grid ``to_grid`` puts it on (by default the parameter's step,
        as ``onGrid`` in ``web/shared.js``), becomes the parameter; a typed number too, clamped to the
        parameter's bounds with a notice that says so; junk puts the box back; ``before()`` is called before
        a student's change is made (not for the echo of a change drawn from the state). Returns whether
        ``origin`` was one of them."""
        from ..views.numbers import echo, format_g, parse_number, step_decimals

        for name, (slider, box, _row) in getattr(self, "_sliders", {}).items():
            if origin is not slider and origin is not box:
                continue
            if to_grid is None:
                decimals = step_decimals(self.param[name].step)
                integer = isinstance(self.param[name], param.Integer)
                to_grid = (lambda v: int(round(v))) if integer else (lambda v: round(v, decimals) + 0.0)
            lo, hi = self.param[name].bounds
            now = getattr(self, name)
            if origin is slider:
                if origin.value == now:  # drawn from the state
                    return True
                value = float(origin.value)
                if not math.isfinite(value):
                    raise ValueError(f"{name}: a slider's value must be a finite number, got {origin.value!r}")
                if before is not None:
                    before()
                self._say("")
                setattr(self, name, to_grid(min(max(value, lo), hi)))
                return True
            if origin.value in (format_g(now), getattr(self, "_box_drawn", {}).get(name)):  # drawn from the state
                return True
            try:
                parsed = parse_number(origin.value)
            except ValueError:  # junk is said and the value kept; an emptied box just shows the value again
                raw, label = origin.value, self._config_data["labels"][name]
                box.value = format_g(now)
                said = self._t("input_not_number").format(name=label, raw=echo(raw), value=format_g(now))
                self._say(said if raw.strip() else "")
                return True
            if before is not None:
                before()
            value = to_grid(min(max(parsed, lo), hi))
            clamped = not lo <= parsed <= hi
            label = self._config_data["labels"][name]
            self._say(
                self._t("input_clamped").format(
                    name=label, raw=echo(origin.value), lo=format_g(lo), hi=format_g(hi), value=format_g(value)
                )
                if clamped
                else ""
            )
            if value != now:
                setattr(self, name, value)
            else:
                box.value = format_g(value)
            return True
        return False

    @staticmethod
    def _pick(options, index):
        """``options[index]`` for a button group's ``active`` from the browser.

        Raises
        ------
        ValueError
            Unless ``index`` is an int from 0 to ``len(options) - 1`` (naming it).
        """
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < len(options):
            raise ValueError(f"active must be an index of {list(options)}, got {index!r}")
        return options[index]

    def _say(self, notice: str) -> None:
        """Show ``notice`` (text, escaped here) in the explorable's notice, or hide it ("")."""
        self._models()["notice"].update(text=html.escape(html.escape(notice)), visible=bool(notice))

    def module_state(self) -> dict:
        """The state of its module's model: the parameters and ``config`` (the view's, as this one has it)."""
        return {**self.state(), "config": self._config_data}

    def save(self, path, title: str | None = None) -> Path:
        """Write this explorable, in its current state, as one HTML file that works offline: its module's
        page (:func:`attention_explorable.modules.module_page`), opened on this state, in its language (the
        file has no language switch: no file of the other language is beside it; save one of each for both).

        Raises
        ------
        ValueError
            If ``path`` names a folder, or a folder that does not exist.
        """
        from ..modules import module_page

        target = Path(path)
        if target.is_dir():
            raise ValueError(f"path {str(path)!r} is a folder; give a file name such as 'explorable.html'")
        if not target.parent.is_dir():
            raise ValueError(f"path {str(path)!r}: the folder {str(target.parent)!r} does not exist")
        if self._name in MODULES:
            page = module_page(self._name, self.language, state=self.module_state(), title=title, language_switch=False)
        else:  # a module of the text (an exercise): its widget, in this state
            widget = self._widget_of()
            widget.param.update(self.module_state())
            page = module_page(self._name, self.language, title=title, widget=widget, language_switch=False)
        target.write_text(page, encoding="utf-8")
        return target

    def _widget_of(self):
        """A new widget of its module (:func:`attention_explorable.modules.module_widget`), in its defaults."""
        from ..modules import module_widget

        return module_widget(self._name, self.language)

    def _ipython_display_(self) -> None:
        """In a notebook, the explorable's module (its anywidget, :func:`attention_explorable.modules.module_widget`)
        in this state, following it both ways: a change in Python reaches the page, the student's change
        the parameters. A notebook run with no page (``jupyter nbconvert --execute``, nbclient) keeps the
        cell's output at the state Python last gave it: after a later cell that moved it from Python
        (``explorer.temperature = 0.05``), the output is drawn again in place (IPython's
        ``update_display``), so the executed notebook and its export hold the last state.

        Source: IPython, "Updatable displays" (``display(..., display_id=True)``); nbclient applies
        ``update_display_data`` to the outputs of that display."""
        self._show_in_notebook(self._notebook_view())

    def _notebook_view(self):
        widget = getattr(self, "_widget", None)
        if widget is None:
            widget = self._widget = self._widget_of()
            widget.param.update(self.module_state())
            names = list(self._state_params)

            def to_widget(*events):
                changes = {e.name: e.new for e in events if getattr(widget, e.name) != e.new}
                if changes:
                    self._moved_in_python = True
                    widget.param.update(changes)

            def to_self(*events):
                changes = {e.name: e.new for e in events if getattr(self, e.name) != e.new}
                if changes:
                    self.param.update(changes)

            self.param.watch(to_widget, names)
            widget.param.watch(to_self, names)
        return widget
