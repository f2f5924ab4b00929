"""The explorables' registry, :data:`MODULES`, and their Panel components drawn from Python.

Each explorable is one ES module in the anywidget front-end form
(``web/<name>.js``, ``render({model, el})``), its pure Python view in
:mod:`attention_explorable.views` (the oracle the module's numbers are
tested against), its state declared once as the parameters of its
``ModuleWidget`` (:mod:`attention_explorable.modules`), and, for the live
apps (``panel serve``, the instructor's page), a ``Viewer`` here drawn from
Python with Bokeh figures.

:data:`MODULES` is the one registry of them. Everything that lists the
explorables is derived from it: the served and exported pages (``/<name>``,
``<name>.html``), their titles and index lines, the embeds, the notebook
widgets and the tests' lists. ``scripts/build-web.mjs`` bundles every
module of ``web/`` that has a default export, so a new module needs no line
there. Adding an explorable is its view, its module, its widget, its
content block, its tests and one line below (docs/architecture.md, "Adding
an explorable"); a package of its own adds one with :func:`register`.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from collections.abc import Callable
from pathlib import Path

from ..views import contexts as contexts_view
from ..views import head as head_view
from ..views import matrix as matrix_view
from ..views import qkv as qkv_view
from ..views import selfcross as selfcross_view
from ..views import steps as steps_view
from ..views import vector as vector_view
from .. import scenarios


@dataclass(frozen=True)
class ModuleExplorable:
    """One explorable written as a module.

    Attributes
    ----------
    name : str
        Its name: the page ``<name>.html``, the module ``web/<name>.js``.
    defaults : dict
        The state it opens with (its model's keys and values).
    prefix : str
        The strings of ``strings.STRINGS`` it shows start with this (``head_``).
    config : callable, optional
        ``config(language)``: what its view needs besides the state (JSON; ``views/<name>.py``'s
        ``<name>_config``), given to the module as the model's ``config``.
    title : str
        The string key of its title (``<prefix>title`` unless given).
    index : str
        The string key of its line on the index page (``<prefix>index`` unless given).
    intro : str
        The string key of its one-paragraph introduction (``<prefix>intro`` unless given).
    viewer : str
        Its Panel component drawn from Python, as ``"module:Class"`` (``panel serve``, the instructor's
        page); "" for none (its module then serves there too, as an anywidget).
    classroom : bool
        Whether a class joins it: a student page that holds it carries the class's script and config
        (``web/classroom.js``), which builds the class panel in its module's ``.ae-class`` box.
    presenter_keys : bool
        Whether its page of its own has the presenter's keys (``web/keys.js``: 1, 2, 3, D).
    widget : str
        Its module as a Panel component (a :class:`~attention_explorable.modules.ModuleWidget`, the one
        declaration of its state's parameters), as ``"module:Class"`` (imported on first use).
    bundle : Path, optional
        Where its bundled module is (one ES module, its imports bundled, as ``esbuild --bundle
        --format=esm`` writes it), for an explorable defined outside this package; the package's own
        are ``web/dist/<name>.mjs``.
    strings : dict, optional
        Interface strings an explorable from outside brings, ``{language: {key: text}}``, added to
        :data:`attention_explorable.strings.STRINGS` when it is registered (:func:`register`).
    """

    name: str
    defaults: dict
    prefix: str
    config: Callable[[str], dict] | None = None
    title: str = ""
    index: str = ""
    intro: str = ""
    viewer: str = ""
    classroom: bool = False
    presenter_keys: bool = False
    widget: str = ""
    bundle: Path | None = None
    strings: dict = field(default_factory=dict, compare=False)

    def key(self, what: str) -> str:
        """The string key of its ``title``, ``index`` or ``intro``."""
        return getattr(self, what) or f"{self.prefix}{what}"


#: The registry, name -> explorable.
MODULES: dict[str, ModuleExplorable] = {
    "steps": ModuleExplorable(
        "steps",
        {
            "step": 1,
            **scenarios.get_step(1).start,
            "prediction_text": "",
            "revealed": False,
            "animating": False,
            "asked": False,
        },
        "steps_",
        widget="attention_explorable.modules:StepsWidget",
        config=steps_view.steps_config,
        title="steps_heading",
        index="index_steps",
        intro="index_steps",
        viewer="attention_explorable.explorables.steps:StepsExplorer",
        classroom=True,
        presenter_keys=True,
    ),
    "head": ModuleExplorable(
        "head",
        {
            **head_view.DEFAULTS,
            "prediction": None,
            "skipped": False,
            "compare_prediction": None,
            "own_lookup": "C7 A2 D5 B9 | A",
        },
        "head_",
        widget="attention_explorable.modules:HeadWidget",
        viewer="attention_explorable.explorables.head:HeadExplorer",
    ),
    "vector": ModuleExplorable(
        "vector",
        {"query_x": 1.0, "query_y": 0.0, "temperature": 1.0, "prediction": "", "revealed": False},
        "vector_",
        widget="attention_explorable.modules:VectorWidget",
        config=vector_view.vector_config,
        title="vector_heading",
        index="index_vector",
        intro="vector_intro",
        viewer="attention_explorable.explorables.vector:VectorExplorer",
    ),
    "matrix": ModuleExplorable(
        "matrix",
        {
            "n_tokens": 4,
            "d_k": 4,
            "seed": matrix_view.DEFAULT_SEED,
            "q1_scale": 1.0,
            "causal": False,
            "scaled": True,
            "prediction": "",
            "revealed": False,
        },
        "matrix_",
        widget="attention_explorable.modules:MatrixWidget",
        config=matrix_view.matrix_config,
        title="matrix_heading",
        index="index_matrix",
        intro="matrix_intro",
        viewer="attention_explorable.explorables.matrix:MatrixExplorer",
    ),
    "selfcross": ModuleExplorable(
        "selfcross",
        {"mode": "self_zh", "causal": False, "query": 1, "prediction": "", "revealed": False},
        "selfcross_",
        widget="attention_explorable.modules:SelfCrossWidget",
        config=selfcross_view.selfcross_config,
        title="selfcross_heading",
        index="index_selfcross",
        intro="index_selfcross",
        viewer="attention_explorable.explorables.selfcross:SelfCrossExplorer",
    ),
    "qkv": ModuleExplorable(
        "qkv",
        {"w_q": "identity", "w_k": "identity", "w_v": "identity", "causal": False, "prediction": "", "revealed": False},
        "qkv_",
        widget="attention_explorable.modules:QkvWidget",
        config=qkv_view.qkv_config,
        title="qkv_heading",
        index="index_qkv",
        intro="qkv_intro",
        viewer="attention_explorable.explorables.qkv:QkvExplorer",
    ),
    "contexts": ModuleExplorable(
        "contexts",
        {"causal": False, "prediction": "", "revealed": False},
        "contexts_",
        widget="attention_explorable.modules:ContextsWidget",
        config=contexts_view.contexts_config,
        title="contexts_heading",
        index="index_contexts",
        viewer="attention_explorable.explorables.contexts:ContextsExplorer",
    ),
}


#: Modules of the course text that are no explorable of their own (no page, no line on the index): each
#: exercise block is one (``web/exercise.js``, ``modules.ExerciseWidget``).
TEXT_MODULES = ("exercise",)


def register(explorable: ModuleExplorable) -> None:
    """Add ``explorable`` (defined outside this package: its ``widget`` and ``bundle`` its own) to
    :data:`MODULES`, and the strings it brings to the interface strings.

    Raises
    ------
    ValueError
        If the name is taken by another explorable, or is not a lowercase identifier other than a page's
        (it becomes a URL path and a file name), or it names no ``widget`` or no ``bundle``, or its strings
        name an unknown language.
    """
    name = explorable.name
    if not (name.isidentifier() and name.islower()) or name in (
        "textbook",
        "instructor",
        "index",
        "mirror",
        *TEXT_MODULES,
    ):
        raise ValueError(f"explorable.name must be a lowercase identifier other than a page's, got {name!r}")
    known = MODULES.get(name)
    if known is not None and known != explorable:
        raise ValueError(f"an explorable named {name!r} is registered already ({known.widget})")
    if ":" not in explorable.widget:
        raise ValueError(f"explorable.widget must be 'module:Class', got {explorable.widget!r}")
    if explorable.bundle is None or not Path(explorable.bundle).is_file():
        raise ValueError(f"explorable.bundle must be its bundled module's file, got {explorable.bundle!r}")
    from ..strings import STRINGS

    for language in explorable.strings:
        if language not in STRINGS:
            raise ValueError(f"explorable.strings: unknown language {language!r}; known: {sorted(STRINGS)}")
    for language, strings in explorable.strings.items():
        for key, value in strings.items():
            STRINGS[language].setdefault(key, value)
    MODULES[name] = explorable


def unregister(name: str) -> None:
    """Remove explorable ``name``, registered from outside with :func:`register`, with the strings it
    brought (nothing if it is not there; the package's own stay)."""
    explorable = MODULES.get(name)
    if explorable is None or explorable.bundle is None:
        return
    del MODULES[name]
    from ..strings import STRINGS

    for language, strings in explorable.strings.items():
        for key, value in strings.items():
            if STRINGS.get(language, {}).get(key) == value:
                del STRINGS[language][key]


def _imported(where: str) -> type:
    module, cls = where.split(":")
    return getattr(importlib.import_module(module), cls)


def app_names() -> tuple[str, ...]:
    """The pages ``serve`` runs as live Panel apps, in order: the textbook, then each explorable with a
    Panel component drawn from Python (a ``viewer``). Read without importing Panel."""
    return ("textbook", *(n for n, m in MODULES.items() if m.viewer))


def explorable_class(name: str) -> type:
    """The Panel component of explorable ``name`` drawn from Python (its ``viewer``).

    Raises
    ------
    KeyError
        If no explorable of that name has one (the message names the known ones).
    """
    explorable = MODULES.get(name)
    if explorable is None or not explorable.viewer:
        raise KeyError(f"unknown explorable {name!r}; known: {sorted(n for n, m in MODULES.items() if m.viewer)}")
    return _imported(explorable.viewer)


def widget_class(name: str) -> type:
    """The module of explorable ``name`` as a Panel component (its ``widget``, a ``ModuleWidget``).

    Raises
    ------
    KeyError
        If no explorable of that name is registered (the message names the known ones).
    """
    if name not in MODULES:
        raise KeyError(f"name must be one of {sorted(MODULES)}, got {name!r}")
    return _imported(MODULES[name].widget)


def registering_modules() -> list[str]:
    """The modules outside this package that registered explorables (a page builder imports them too)."""
    return sorted({m.widget.split(":")[0] for m in MODULES.values() if m.bundle is not None})
