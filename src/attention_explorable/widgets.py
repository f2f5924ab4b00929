"""The explorables as notebook widgets: one ``anywidget.AnyWidget`` per explorable written as a module.

A widget runs the explorable's one ES module (``web/dist/<name>.mjs``, the file every host runs) in
JupyterLab, Jupyter Notebook, VS Code, Colab and marimo. The module comes inline with the widget: the
notebook fetches nothing from the network. Its traits are the explorable's state, declared once as the
parameters of its Panel component (:mod:`attention_explorable.modules`), and checked here as there: a
value out of bounds raises :class:`traitlets.TraitError` naming the parameter and the value, and the
page never sees it. A move on the page comes back to the traits; a trait set in Python redraws the page.
The widget follows the notebook's light or dark theme (``theme="auto"``), or keeps the one it is given.

Examples
--------
>>> w = notebook_widget("vector", language="en", temperature=0.5)
>>> w.temperature, w.config["keys"]
(0.5, [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
>>> try:
...     w.temperature = 9
... except traitlets.TraitError as exc:
...     print(exc)
temperature: Number parameter 'VectorWidget.temperature' must be at most 5.0, not 9.0.

Reference: anywidget's front-end module specification (https://anywidget.dev); docs/architecture.md,
"One explorable, one module".
"""

from __future__ import annotations

from functools import cache

import anywidget
import param
import traitlets

from .explorables import MODULES
from .modules import module_source, module_state, module_widget

__all__ = ["THEMES", "notebook_widget", "notebook_widget_class"]

#: The themes a widget takes: "auto" follows what is behind it (a notebook's dark theme included).
THEMES = ("auto", "light", "dark")

# A parameter's kind -> the trait that holds it (a Selector's options are strings, or None).
_TRAITS = [
    (param.Boolean, traitlets.Bool),
    (param.Integer, traitlets.Int),
    (param.Number, traitlets.Float),
    (param.Dict, traitlets.Dict),
    (param.String, traitlets.Unicode),
    (param.Selector, traitlets.Any),
]


def _trait(parameter: param.Parameter) -> traitlets.TraitType:
    for kind, trait in _TRAITS:
        if isinstance(parameter, kind):
            return trait(parameter.default, allow_none=bool(parameter.allow_None)).tag(sync=True)
    raise TypeError(f"no trait for the parameter {parameter.name!r} of kind {type(parameter).__name__}")


@cache
def notebook_widget_class(name: str) -> type[anywidget.AnyWidget]:
    """The notebook widget class of explorable ``name`` (one of :data:`~attention_explorable.explorables.MODULES`).

    Raises
    ------
    KeyError
        For an unknown ``name`` (named, with the known ones).
    """
    if name not in MODULES:
        raise KeyError(f"name must be one of {sorted(MODULES)}, got {name!r}")
    declared = type(module_widget(name))  # the parameters: its state, with their bounds and docs
    own = [p for p in declared.param if p not in ("name",) and declared.param[p].owner is not param.Parameterized]
    params = {p: declared.param[p] for p in own if p in (*MODULES[name].defaults, "strings", "lang", "config")}
    body = {p: _trait(parameter) for p, parameter in params.items()}
    body["theme"] = traitlets.Unicode("auto").tag(sync=True)
    body["_esm"] = module_source(name)
    body["_ae_params"] = params
    body["__doc__"] = f"The explorable {name!r} in a notebook ({declared.__name__}'s state as traits)."

    @traitlets.validate(*params, "theme")
    def _check(self, proposal):
        trait, value = proposal["trait"].name, proposal["value"]
        if trait == "theme":
            if value not in THEMES:
                raise traitlets.TraitError(f"theme must be one of {list(THEMES)}, got {value!r}")
            return value
        try:
            self._ae_params[trait]._validate(value)
        except ValueError as exc:
            raise traitlets.TraitError(f"{trait}: {exc}") from None
        return value

    body["_check"] = _check
    return type(f"{declared.__name__.removesuffix('Widget')}NotebookWidget", (anywidget.AnyWidget,), body)


def notebook_widget(name: str, language: str = "zh", **state) -> anywidget.AnyWidget:
    """Explorable ``name`` as a notebook widget in ``language`` ("zh" or "en"), opened on ``state`` (its
    parameters' names and values; the rest as the explorable opens).

    Raises
    ------
    KeyError
        For an unknown ``name``.
    ValueError
        For an unknown ``language`` (named).
    traitlets.TraitError
        For a value of ``state`` the explorable does not take, or a name it does not have (each named).
    """
    cls = notebook_widget_class(name)
    opened = module_state(name, language)
    unknown = sorted(set(state) - set(cls.class_trait_names(sync=True)))
    if unknown:
        raise traitlets.TraitError(f"{name} has no parameter {unknown[0]!r}; it has {sorted(MODULES[name].defaults)}")
    return cls(**{**{k: v for k, v in opened.items() if k in cls.class_trait_names()}, **state})
