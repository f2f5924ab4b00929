"""The explorables as Panel ``Viewer`` components, and their registry.

Each explorable has a pure Python view in :mod:`attention_explorable.views`
(the oracle), a JavaScript twin and controller in
``attention_explorable/web/<name>.js``, and a thin ``Viewer`` here that
builds its Bokeh models once and lays them out.

:data:`EXPLORABLES` is the one registry of them. Everything that lists the
explorables is derived from it: the served and exported pages
(``/<name>``, ``<name>.html``), their titles (the string ``<name>_heading``)
and index lines (``index_<name>``), the apps of ``attention-explorable
list``, the embeds, and the tests' lists. ``scripts/build-web.mjs`` bundles
every module of ``web/`` that has a default export, so a new twin needs no
line there. Adding an explorable is its view, its twin, its Viewer, its
content block, its tests and one line below (docs/architecture.md, "Adding an
explorable").
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
class Registration:
    """One explorable in the registry.

    Parameters
    ----------
    name : str
        Its name: the page ``/<name>`` and ``<name>.html``, the module
        ``web/dist/<name>.mjs``, the strings ``<name>_heading`` and ``index_<name>``.
    viewer : str
        Its ``Viewer`` class as ``"module:Class"`` (imported on first use).
    bundle : Path, optional
        Where its bundled ES module is, when not in this package's
        ``web/dist/`` (an explorable defined outside the package).
    strings : dict, optional
        Interface strings it brings, ``{language: {key: text}}``, added to
        :data:`attention_explorable.strings.STRINGS` when it is registered.
    """

    name: str
    viewer: str
    bundle: Path | None = None
    strings: dict = field(default_factory=dict, compare=False)

    @property
    def heading_key(self) -> str:
        """The string key of its title: ``<name>_heading``."""
        return f"{self.name}_heading"

    @property
    def index_key(self) -> str:
        """The string key of its line on the index page: ``index_<name>``."""
        return f"index_{self.name}"


#: The registry: name -> :class:`Registration`, in the order the pages are listed.
EXPLORABLES: dict[str, Registration] = {r.name: r for r in []}


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
    ),
    "vector": ModuleExplorable(
        "vector",
        {"query_x": 1.0, "query_y": 0.0, "temperature": 1.0, "prediction": "", "revealed": False},
        "vector_",
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
        config=contexts_view.contexts_config,
        title="contexts_heading",
        index="index_contexts",
        viewer="attention_explorable.explorables.contexts:ContextsExplorer",
    ),
}


#: Modules of the course text that are no explorable of their own (no page, no line on the index): each
#: exercise block is one (``web/exercise.js``, ``modules.ExerciseWidget``).
TEXT_MODULES = ("exercise",)


def register(registration: Registration) -> None:
    """Add ``registration`` to :data:`EXPLORABLES` (and its strings to the interface strings).

    Raises
    ------
    ValueError
        If the name is taken by another explorable, or is not a lowercase
        identifier other than a page's (it becomes a URL path and a file name),
        or its strings name an unknown language.
    """
    name = registration.name
    if not (name.isidentifier() and name.islower()) or name in ("textbook", "instructor", "index", "mirror"):
        raise ValueError(f"registration.name must be a lowercase identifier other than a page's, got {name!r}")
    if name in MODULES:
        raise ValueError(f"an explorable named {name!r} is registered already (web/{name}.js)")
    known = EXPLORABLES.get(name)
    if known is not None and known != registration:
        raise ValueError(f"an explorable named {name!r} is registered already ({known.viewer})")
    from ..strings import STRINGS

    for language in registration.strings:
        if language not in STRINGS:
            raise ValueError(f"registration.strings: unknown language {language!r}; known: {sorted(STRINGS)}")
    for language, strings in registration.strings.items():
        for key, value in strings.items():
            STRINGS[language].setdefault(key, value)
    EXPLORABLES[name] = registration


def unregister(name: str) -> None:
    """Remove explorable ``name`` from :data:`EXPLORABLES`, with the strings it brought (nothing if not there)."""
    registration = EXPLORABLES.pop(name, None)
    if registration is None:
        return
    from ..strings import STRINGS

    for language, strings in registration.strings.items():
        for key, value in strings.items():
            if STRINGS.get(language, {}).get(key) == value:
                del STRINGS[language][key]


def explorable_class(name: str) -> type:
    """The ``Viewer`` class of explorable ``name`` (of either registry).

    Raises
    ------
    KeyError
        If no explorable of that name is registered (the message names it).
    """
    registration = EXPLORABLES.get(name) or MODULES.get(name)
    if registration is None or not registration.viewer:
        known = sorted([*EXPLORABLES, *(n for n, m in MODULES.items() if m.viewer)])
        raise KeyError(f"unknown explorable {name!r}; known: {known}")
    module, cls = registration.viewer.split(":")
    return getattr(importlib.import_module(module), cls)


def registering_modules() -> list[str]:
    """The modules outside this package that registered explorables (a page builder imports them too)."""
    return sorted(
        {r.viewer.split(":")[0] for r in EXPLORABLES.values() if not r.viewer.startswith("attention_explorable.")}
    )
