"""The explorables written as one module each, in the anywidget front-end form.

Such an explorable is one ES module, ``web/<name>.js``, whose default export
is ``{render({model, el})}``: it reads its state with ``model.get``, writes
what the student changes with ``model.set`` and ``model.save_changes``, and
knows nothing of its host. The same file runs in a plain page (the static
export and ``serve``, whose small host is ``web/host.js``) and is the file an
anywidget host loads (``web/dist/<name>.mjs``, bundled by
``scripts/build-web.mjs``). Its Python twin in ``views/<name>.py`` is the
oracle its numbers are tested against.

:data:`MODULES` (in :mod:`attention_explorable.explorables`) is their
registry: the name, the defaults, the strings' prefix, the view's config. Adding one is its two files
(``views/<name>.py``, ``web/<name>.js``), its widget here, its strings and a line in the registry.

Reference: docs/architecture.md, "One explorable, one module"; anywidget's
front-end module specification.
"""

from __future__ import annotations

import html
import json
from functools import lru_cache
from importlib import resources
from pathlib import Path

import param
from panel.custom import AnyWidgetComponent

from . import ui
from .native import class_config_script, content_security_policy, math_font_face
from .strings import HTML_LANG, STRINGS, text
from .explorables import MODULES, TEXT_MODULES, ModuleExplorable, widget_class
from . import scenarios
from .views import contexts, exercise, head, matrix, qkv, selfcross, steps, vector

__all__ = [
    "MODULES",
    "ContextsWidget",
    "ExerciseWidget",
    "HeadWidget",
    "MatrixWidget",
    "ModuleExplorable",
    "ModuleWidget",
    "QkvWidget",
    "SelfCrossWidget",
    "StepsWidget",
    "VectorWidget",
    "module_page",
    "module_source",
    "module_state",
    "module_widget",
]


def _get(name: str) -> ModuleExplorable:
    if name not in MODULES:
        raise KeyError(f"name must be one of {sorted(MODULES)}, got {name!r}")
    return MODULES[name]


def module_state(name: str, language: str) -> dict:
    """The model's state a page opens with: the defaults, its ``lang``, and ``config`` in ``language`` (the
    view's config, strings included) or, for an explorable without one, ``strings`` in ``language``.

    Raises
    ------
    KeyError
        For an unknown ``name``; ValueError for an unknown ``language`` (named).
    """
    explorable = _get(name)
    if language not in STRINGS:
        raise ValueError(f"language must be one of {sorted(STRINGS)}, got {language!r}")
    state = {**explorable.defaults, "lang": HTML_LANG[language]}
    if explorable.config is not None:  # its strings are the config's
        state["config"] = explorable.config(language)
    else:
        state["strings"] = {k: v for k, v in STRINGS[language].items() if k.startswith(explorable.prefix)}
    return state


def module_source(name: str) -> str:
    """The module as an anywidget host loads it: one ES module, its imports bundled. The package's are
    ``web/dist/<name>.mjs`` (an explorable of :data:`MODULES`, or a module of the text,
    :data:`TEXT_MODULES`: the exercise); an explorable registered from outside is its ``bundle``.

    Raises
    ------
    KeyError
        For an unknown ``name`` (named).
    """
    if name not in TEXT_MODULES and _get(name).bundle is not None:
        return _read(str(MODULES[name].bundle))
    return _read(str(resources.files("attention_explorable").joinpath("web", "dist", f"{name}.mjs")))


@lru_cache(maxsize=None)
def _read(path: str) -> str:
    return Path(path).read_text("utf-8")


def outside_modules(names) -> dict[str, str]:
    """Of the modules ``names``, those of explorables registered from outside the package, name -> source:
    a page carries each as text (a ``text/plain`` script element marked ``data-ae-module=NAME``), which its host imports
    (``web/host.js`` ``importModules``; the page's policy then allows ``blob:``)."""
    return {n: module_source(n) for n in dict.fromkeys(names) if n in MODULES and MODULES[n].bundle is not None}


def _page_script(name: str) -> str:
    return resources.files("attention_explorable").joinpath("web", "dist", "page", f"{name}.js").read_text("utf-8")


def module_page(
    name: str,
    language: str,
    other_language_href: str | None = None,
    state: dict | None = None,
    title: str | None = None,
    widget: ModuleWidget | None = None,
    language_switch: bool = True,
) -> str:
    """The page of explorable ``name`` in ``language``: one HTML file that loads nothing, from ``file://`` too.

    ``other_language_href`` is the language switch's target (a file of the other language); None asks the
    server with ``?lang=``; ``language_switch=False`` leaves the switch out (a saved file has no other
    language beside it). ``state`` (keys of the explorable's model) is the state it opens on, its
    defaults by default; ``title`` the page's title, its heading by default. ``widget``, a module of the
    text (an :class:`ExerciseWidget`), is the module the page holds, in its state, instead.

    Raises
    ------
    KeyError
        For an unknown ``name``; ValueError for an unknown ``language`` (each named).
    """
    if widget is None:
        explorable = _get(name)
        opened = {**module_state(name, language), **(state or {})}
        widget = module_widget(name, language)
    else:  # a module of the text: no heading, no introduction, no class of its own
        explorable = ModuleExplorable(widget.ae_module, {}, "", title="page_title", intro="page_title")
        opened = widget.ae_module_state()
    state = json.dumps(opened, ensure_ascii=False).replace("</", "<\\/")
    link = json.dumps(widget.ae_module_link(), ensure_ascii=False).replace("</", "<\\/")
    other = "en" if language == "zh" else "zh"
    # (A class's questions hold formulas: the page then carries the math font the card shows them in.)
    class_config = class_config_script(language) if explorable.classroom else ""
    extra = [*(["classroom"] if explorable.classroom else []), *(["keys"] if explorable.presenter_keys else [])]
    keys_hint = (
        f"<label class='ae-keys'><input type='checkbox' class='ae-keys-on' checked>"
        f"<span>{html.escape(text('keyboard_hint', language))}</span></label>"
        if explorable.presenter_keys
        else ""
    )
    page = ui.template("module-page.html").render(
        lang=HTML_LANG[language],
        title=text(explorable.key("title"), language) if title is None else title,
        intro=text(explorable.key("intro"), language),
        name=name,
        state=state,
        link=link,
        scripts=[
            _page_script(n).replace("</script", "<\\/script")
            for n in (name, *extra, "host")
            if n not in outside_modules([name])
        ],
        modules={n: code.replace("</script", "<\\/script") for n, code in outside_modules([name]).items()},
        keys_hint=keys_hint,
        class_config=class_config,
        math_css=math_font_face() if "<math" in class_config else "",
        switch_href=(other_language_href or f"?lang={other}") if language_switch else "",
        switch_label=text("language_name", other),
        switch_lang=HTML_LANG[other],
        switch_hint=text("language_switch_to", other),
        switch_nav=text("language_switch", language),
        language=language,
        other=other,
        target=other_language_href or "",
        noscript=text("module_noscript", language),
        theme_css=ui.theme_css(":root"),
        language_fonts=ui.LANGUAGE_FONTS_CSS,
    )
    # The policy first in the head, as on every student page: only the page's own scripts run.
    policy = content_security_policy(page)
    return page.replace(
        '<meta charset="utf-8">',
        f'<meta charset="utf-8">\n  <meta http-equiv="Content-Security-Policy" content="{html.escape(policy)}">',
        1,
    )


class ModuleWidget(AnyWidgetComponent):
    """An explorable module as a Panel component: ``web/dist/<ae_module>.mjs`` run by Panel's anywidget host.

    A subclass names its module (``ae_module``) and declares the module's state as ``param`` parameters
    (bounds and docs: the one declaration of the explorable's state), and ``link_params``, what a deep link
    may set. What the student changes in the browser comes back to the parameters. A student page that
    holds it (the textbook) writes it as an element the page's own host renders (:meth:`ae_module_state`,
    ``web/host.js``), so the same module runs in both.
    """

    ae_module = ""
    #: What a deep link can set (behind ``<name>.`` on the textbook).
    link_params: tuple = ()

    strings = param.Dict({}, doc="The interface text in the page's language (the explorable's keys).")
    lang = param.String("zh-Hans", doc="The page's language, as ``<html lang>`` has it.")

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls.ae_module:
            cls._esm = module_source(cls.ae_module)

    def __init__(self, language: str = "zh", link_prefix: str = "", **params):
        state = module_state(self.ae_module, language)
        own = {k: v for k, v in state.items() if k not in MODULES[self.ae_module].defaults}
        super().__init__(**{**own, **params})
        self.language, self.link_prefix = language, link_prefix

    def ae_module_link(self) -> dict:
        """The JSON spec of its deep links, which the page's host reads and keeps the address following
        (``web/host.js``; the rules of :mod:`.views.links`)."""
        from .explorables.base import param_link_spec

        return param_link_spec(self, self.link_params, self.link_prefix, self.language, self.link_starts())

    @classmethod
    def link_starts(cls):
        """For an explorable whose link resets to a start: ``(parameter, {value: start state})``; else None."""
        return None

    def open_link(self, query) -> list[str]:
        """Set the state a deep link names (its names behind ``link_prefix``); return the notices about
        values it clamped or ignored (the rules of :mod:`.views.links`; see ``Explorable.open_link``).
        Never raises for what a URL can hold."""
        from .views.links import link_values, read_link

        spec = self.ae_module_link()
        values, notices = read_link(spec, query)
        state = link_values(spec, {n: getattr(self, n) for n in self.link_params}, values)
        self.param.update({n: v for n, v in state.items() if v != getattr(self, n)})
        return notices

    def ae_module_state(self) -> dict:
        """The model's state as the module reads it: every key of its :data:`MODULES` entry."""
        keys = [*MODULES[self.ae_module].defaults, *(k for k in ("strings", "lang", "config") if k in self.param)]
        return {k: getattr(self, k) for k in keys}


class HeadWidget(ModuleWidget):
    """The head that learns as a Panel component (:class:`ModuleWidget`; ``web/head.js``).

    Its parameters are the module's model keys (:data:`MODULES` ``["head"]``), bounds checked here
    (``views.head.BOUNDS``).

    Raises
    ------
    ValueError
        From ``param``, naming the parameter and the value, for a value out of its bounds.

    Examples
    --------
    >>> HeadWidget(language="en").ae_module_state()["d_k"]
    16
    """

    ae_module = "head"

    d_k = param.Integer(head.DEFAULTS["d_k"], bounds=head.BOUNDS["d_k"][:2], doc="Width of queries and keys.")
    learning_rate = param.Number(
        head.DEFAULTS["learning_rate"], bounds=head.BOUNDS["learning_rate"][:2], doc="Adam's step size."
    )
    seed = param.Integer(head.DEFAULTS["seed"], bounds=head.BOUNDS["seed"][:2], doc="Seed of parameters and examples.")
    scaled = param.Boolean(head.DEFAULTS["scaled"], doc="Scores divided by sqrt(d_k).")
    batch = param.Integer(head.DEFAULTS["batch"], bounds=(1, 1024), doc="Examples per training step.")
    prediction = param.Integer(None, bounds=(0, 2), allow_None=True, doc="The option the student predicted (0-2).")
    skipped = param.Boolean(False, doc="The student went on without a prediction.")
    compare_prediction = param.Integer(
        None, bounds=(0, 3), allow_None=True, doc="The comparison's predicted option (0-3, A-D)."
    )
    own_lookup = param.String(MODULES["head"].defaults["own_lookup"], doc="The student's own lookup, as typed.")

    #: What a deep link can set (``?d_k=64&scaled=false``; behind ``head.`` on the textbook).
    link_params = ("d_k", "learning_rate", "seed", "scaled")


class MatrixWidget(ModuleWidget):
    """Score and weight matrices of scaled dot-product attention (section 3.7.7) as a Panel component
    (:class:`ModuleWidget`; ``web/matrix.js``).

    ``n_tokens`` queries, keys and values drawn from ``seed`` (the generator the browser shares,
    :func:`attention_explorable.views.matrix.random_qkv`), the first query stretched by ``q1_scale``, the
    scores divided by ``√d_k`` or not, a causal mask or not; the student predicts first how the rows of
    weights change as ``d_k`` grows unscaled.

    Raises
    ------
    ValueError
        From ``param``, naming the parameter and the value, for a value out of its bounds.

    Examples
    --------
    >>> MatrixWidget(language="en", d_k=16).ae_module_state()["d_k"]
    16
    """

    ae_module = "matrix"

    n_tokens = param.Integer(4, bounds=tuple(matrix.SLIDERS["n_tokens"][:2]), doc="Number of tokens n.")
    d_k = param.Integer(4, bounds=tuple(matrix.SLIDERS["d_k"][:2]), doc="Dimension of queries and keys.")
    seed = param.Integer(matrix.DEFAULT_SEED, bounds=tuple(matrix.SLIDERS["seed"][:2]), doc="Seed of Q, K, V.")
    q1_scale = param.Number(1.0, bounds=tuple(matrix.SLIDERS["q1_scale"][:2]), doc="Factor of the first query.")
    causal = param.Boolean(False, doc="Causal mask: query i attends keys j <= i only.")
    scaled = param.Boolean(True, doc="Scores divided by sqrt(d_k).")
    prediction = param.Selector(
        default="",
        objects=list(matrix.PREDICTIONS),
        doc="How the rows of weights change as d_k grows unscaled: '', 'flatter', 'peaked' (right), 'same'.",
    )
    revealed = param.Boolean(False, doc="The saturation curves shown (after the prediction).")
    config = param.Dict({}, doc="What the view needs besides the state (views.matrix.matrix_config).")

    link_params = ("n_tokens", "d_k", "seed", "q1_scale", "causal", "scaled", "prediction", "revealed")


class SelfCrossWidget(ModuleWidget):
    """Self- and cross-attention (section 3.7.8) as a Panel component (:class:`ModuleWidget`; ``web/selfcross.js``).

    Chinese self-attention, English self-attention (with an optional causal mask) and cross-attention
    from English queries to Chinese keys and values, on the same toy embeddings
    (:mod:`attention_explorable.views.selfcross`); the student predicts first where one English query's
    weight goes in cross-attention.

    Raises
    ------
    ValueError
        From ``param``, naming the parameter and the value, for a value it does not allow.

    Examples
    --------
    >>> SelfCrossWidget(language="en", mode="cross").ae_module_state()["mode"]
    'cross'
    """

    ae_module = "selfcross"

    mode = param.Selector(default="self_zh", objects=list(selfcross.MODES), doc="Kind of attention.")
    causal = param.Boolean(False, doc="Causal mask in English self-attention (decoder); ignored otherwise.")
    query = param.Integer(1, bounds=(1, selfcross.N_QUERY), doc="Query row to highlight (1-based).")
    prediction = param.Selector(
        default="",
        objects=list(selfcross.PREDICTIONS),
        doc="Where one English query's weight goes in cross-attention: '', 'english', 'chinese' (right), 'both'.",
    )
    revealed = param.Boolean(False, doc="The prediction's answer shown.")
    config = param.Dict({}, doc="What the view needs besides the state (views.selfcross.selfcross_config).")

    link_params = ("mode", "causal", "query", "prediction", "revealed")


class VectorWidget(ModuleWidget):
    """One query against keys and values in the plane (section 3.7.6) as a Panel component
    (:class:`ModuleWidget`; ``web/vector.js``).

    The student moves the query ``q`` (two sliders, typed numbers, a tap or a drag on the plane) and the
    temperature ``T``, and watches the scores ``q · k_j``, the weights ``softmax(s / T)`` and the output
    ``y = Σ a_j v_j`` move inside the convex hull of the values (:mod:`attention_explorable.views.vector`).

    Raises
    ------
    ValueError
        From ``param``, naming the parameter and the value, for a value out of its bounds.

    Examples
    --------
    >>> VectorWidget(language="en").ae_module_state()["config"]["keys"]
    [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
    """

    ae_module = "vector"

    query_x = param.Number(1.0, bounds=tuple(vector.SLIDERS["query_x"][:2]), doc="First component of the query q.")
    query_y = param.Number(0.0, bounds=tuple(vector.SLIDERS["query_y"][:2]), doc="Second component of the query q.")
    temperature = param.Number(1.0, bounds=tuple(vector.SLIDERS["temperature"][:2]), doc="Softmax temperature T.")
    prediction = param.Selector(
        default="",
        objects=list(vector.PREDICTIONS),
        doc="Where y stops as T falls with q = [1, 0]: '', 'first', 'third', 'midpoint' (right) or 'centroid'.",
    )
    revealed = param.Boolean(False, doc="The prediction's answer shown (q = [1, 0], T lowest).")
    config = param.Dict({}, doc="What the view needs besides the state (views.vector.vector_config).")

    link_params = ("query_x", "query_y", "temperature", "prediction", "revealed")


class QkvWidget(ModuleWidget):
    """From X to the output (section 3.7.8) as a Panel component (:class:`ModuleWidget`; ``web/qkv.js``).

    Three toy inputs projected by ``W_Q``, ``W_K`` and ``W_V`` (each one of
    :data:`attention_explorable.views.qkv.PRESETS`) into queries, keys and values, and every stage to the
    output; the student predicts first what changes when only ``W_V`` changes.

    Raises
    ------
    ValueError
        From ``param``, naming the parameter and the value, for a value it does not allow.

    Examples
    --------
    >>> QkvWidget(language="en", w_v="swap").ae_module_state()["w_v"]
    'swap'
    """

    ae_module = "qkv"

    w_q = param.Selector(default="identity", objects=list(qkv.PRESETS), doc="W_Q, the projection of the queries.")
    w_k = param.Selector(default="identity", objects=list(qkv.PRESETS), doc="W_K, the projection of the keys.")
    w_v = param.Selector(default="identity", objects=list(qkv.PRESETS), doc="W_V, the projection of the values.")
    causal = param.Boolean(False, doc="Causal mask: position i attends positions 1 to i only.")
    prediction = param.Selector(
        default="",
        objects=list(qkv.PREDICTIONS),
        doc="What changes when only W_V changes: '', 'both', 'output' (right), 'weights' or 'nothing'.",
    )
    revealed = param.Boolean(False, doc="The prediction's answer shown.")
    config = param.Dict({}, doc="What the view needs besides the state (views.qkv.qkv_config).")

    link_params = ("w_q", "w_k", "w_v", "causal", "prediction", "revealed")


class ContextsWidget(ModuleWidget):
    """One word, two contexts (section 3.8.1) as a Panel component (:class:`ModuleWidget`; ``web/contexts.js``).

    The same word in two sentences, read by one self-attention step in each
    (:mod:`attention_explorable.views.contexts`); the student predicts first which word it weighs most.

    Raises
    ------
    ValueError
        From ``param``, naming the parameter and the value, for a value it does not allow.

    Examples
    --------
    >>> ContextsWidget(language="en").ae_module_state()["config"]["sentences"]["fruit"]["tokens"]
    ['she', 'peeled', 'the', 'apple']
    """

    ae_module = "contexts"

    causal = param.Boolean(False, doc="Causal mask: each word sees itself and the words before it only.")
    prediction = param.Selector(
        default="",
        objects=list(contexts.PREDICTIONS),
        doc="Which word of the second sentence the student predicts the word weighs most: '' (none), 'itself', 'verb' (right), 'phone' or 'even'.",
    )
    revealed = param.Boolean(False, doc="The two outputs shown (after the prediction is checked or skipped).")
    config = param.Dict({}, doc="What the view needs besides the state (views.contexts.contexts_config).")

    link_params = ("causal", "prediction", "revealed")


class StepsWidget(ModuleWidget):
    """Predict, then demonstrate (section 3.8) as a Panel component (:class:`ModuleWidget`; ``web/steps.js``).

    Attention over two scalar values in three steps: the student picks a step, predicts the output
    ``y``, presses "演示本步" and watches the scores, the temperature and the values move from the step's
    start to its target (:data:`attention_explorable.scenarios.STEPS`), then compares. The numbers are
    :mod:`attention_explorable.views.steps`'s: ``a = softmax([s_1, s_1 + diff] / T)``, ``y = a_1 v_1 + a_2 v_2``.

    Raises
    ------
    ValueError
        From ``param``, naming the parameter and the value, for a value out of its bounds.

    Examples
    --------
    >>> StepsWidget(language="en", step=2).ae_module_state()["step"]
    2
    """

    ae_module = "steps"

    step = param.Integer(1, bounds=(1, 3), doc="Current step of section 3.8 (1, 2 or 3).")
    score_1 = param.Number(0.0, bounds=steps.SLIDERS["score_1"][:2], doc="First score s₁.")
    score_diff = param.Number(1.0, bounds=steps.SLIDERS["score_diff"][:2], doc="Score difference s₂ − s₁.")
    temperature = param.Number(1.0, bounds=steps.T_BOUNDS, doc="Softmax temperature T.")
    value_1 = param.Number(2.0, bounds=steps.SLIDERS["value_1"][:2], doc="First scalar value v₁.")
    value_2 = param.Number(10.0, bounds=steps.SLIDERS["value_2"][:2], doc="Second scalar value v₂.")
    prediction_text = param.String("", doc="The student's prediction of the output y, as typed.")
    revealed = param.Boolean(False, doc="The step has been demonstrated.")
    animating = param.Boolean(False, doc="The demonstration is replaying.")
    asked = param.Boolean(False, doc="The demonstration was asked for without a prediction.")
    config = param.Dict({}, doc="What the view needs besides the state (views.steps.steps_config).")

    #: What a deep link can set (``?step=3&temperature=0.05``; behind ``steps.`` on the textbook).
    link_params = ("step", *scenarios.STATE_KEYS, "prediction_text", "revealed")

    @classmethod
    def link_starts(cls):
        """A link's step opens at that step's start, as the step buttons do."""
        return scenarios.link_starts()


class ExerciseWidget(ModuleWidget):
    """An exercise of the course text as a Panel component (:class:`ModuleWidget`; ``web/exercise.js``).

    The student types a number (right within the block's ``tol`` of its ``answer``), picks an option, or
    writes free text (not graded); "检查" judges what is there (:func:`.views.exercise.judge`: a wrong
    answer gets the block's hint); "看答案" shows the worked answer.

    Parameters
    ----------
    block : Block
        A parsed ``:::exercise`` block (:mod:`attention_explorable.content`).
    language : {"zh", "en"}
        Language of the interface text.
    link_prefix : str
        What its parameters are called in a deep link (``q2-alpha2.`` on the textbook).

    Raises
    ------
    ValueError
        If ``block`` is not an exercise block; from ``param`` when ``choice`` is not one of its option
        letters (or "").

    Examples
    --------
    >>> from attention_explorable import content
    >>> block = next(b for s in content.load_sections() for b in s.exercises() if b.args[0] == "ex-3-8-1")
    >>> ExerciseWidget(block, language="en").ae_module_state()["config"]["kind"]
    'number'
    """

    ae_module = "exercise"

    response = param.String("", doc="The student's typed answer (number and text kinds).")
    choice = param.String("", doc='Letter of the chosen option, "" for none (choice kind).')
    checked = param.String(None, allow_None=True, doc="What was submitted at the last check; None before the first.")
    revealed = param.Boolean(False, doc="The worked answer is shown.")
    config = param.Dict({}, doc="What the view needs besides the state (views.exercise.exercise_config).")

    #: A reload keeps what the student typed or chose: the address carries it.
    link_params = ("response", "choice")

    def __init__(self, block, language: str = "zh", link_prefix: str = "", **params):
        config = exercise.exercise_config(block, language)  # (raises for a block of another kind)
        letters = "|".join(config["letters"])
        AnyWidgetComponent.__init__(self, config=config, lang=HTML_LANG[language])
        if config["kind"] == "choice":  # only an option letter, or "" for none
            self.param.choice.regex = self.param.checked.regex = rf"^(|{letters})\Z"
        self.param.update(params)
        self.language, self.link_prefix, self.block = language, link_prefix, block

    def ae_module_link(self) -> dict:
        """As :meth:`ModuleWidget.ae_module_link`; a choice is one of the option letters (or "" for none)."""
        spec = super().ae_module_link()
        for p in spec["params"]:
            if p["name"] == "choice":
                p.update(kind="choice", choices=["", *self.config["letters"]])
        return spec

    def ae_module_state(self) -> dict:
        """The model's state as the module reads it: the answer, the check, the reveal, its config."""
        return {k: getattr(self, k) for k in ("response", "choice", "checked", "revealed", "config", "lang")}


def module_widget(name: str, language: str = "zh", link_prefix: str = ""):
    """The Panel component of module explorable ``name`` in ``language`` (its registry entry's ``widget``,
    see :class:`HeadWidget`); its deep links' names start with ``link_prefix``.

    Raises
    ------
    KeyError
        For an unknown ``name`` (named).
    """
    return widget_class(name)(language=language, link_prefix=link_prefix)
