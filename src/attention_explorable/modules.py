"""The explorables written as one module each, in the anywidget front-end form.

Such an explorable is one ES module, ``web/<name>.js``, whose default export
is ``{render({model, el})}``: it reads its state with ``model.get``, writes
what the student changes with ``model.set`` and ``model.save_changes``, and
knows nothing of its host. The same file runs in a plain page (the static
export and ``serve``, whose small host is ``web/host.js``) and is the file an
anywidget host loads (``web/dist/<name>.mjs``, bundled by
``scripts/build-web.mjs``). Its Python twin in ``views/<name>.py`` is the
oracle its numbers are tested against.

:data:`MODULES` is their registry: the name, the view that holds the
defaults, and the strings' prefix. Adding one is its two files
(``views/<name>.py``, ``web/<name>.js``), its strings and a line here.

Reference: docs/architecture.md, "One explorable, one module"; anywidget's
front-end module specification.
"""

from __future__ import annotations

import html
import json
from dataclasses import dataclass
from importlib import resources

import param
from panel.custom import AnyWidgetComponent

from . import ui
from .native import content_security_policy
from .strings import HTML_LANG, STRINGS, text
from .views import head

__all__ = ["MODULES", "HeadWidget", "ModuleExplorable", "module_page", "module_source", "module_state", "module_widget"]


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
    """

    name: str
    defaults: dict
    prefix: str


#: The registry, name -> explorable.
MODULES: dict[str, ModuleExplorable] = {
    "head": ModuleExplorable(
        "head",
        {
            **head.DEFAULTS,
            "prediction": None,
            "skipped": False,
            "compare_prediction": None,
            "own_lookup": "C7 A2 D5 B9 | A",
        },
        "head_",
    ),
}


def _get(name: str) -> ModuleExplorable:
    if name not in MODULES:
        raise KeyError(f"name must be one of {sorted(MODULES)}, got {name!r}")
    return MODULES[name]


def module_state(name: str, language: str) -> dict:
    """The model's state a page opens with: the defaults, the strings in ``language`` and its ``lang``.

    Raises
    ------
    KeyError
        For an unknown ``name``; ValueError for an unknown ``language`` (named).
    """
    explorable = _get(name)
    if language not in STRINGS:
        raise ValueError(f"language must be one of {sorted(STRINGS)}, got {language!r}")
    strings = {k: v for k, v in STRINGS[language].items() if k.startswith(explorable.prefix)}
    return {**explorable.defaults, "strings": strings, "lang": HTML_LANG[language]}


def module_source(name: str) -> str:
    """The module as an anywidget host loads it: ``web/dist/<name>.mjs`` (one file, its imports bundled)."""
    _get(name)
    return resources.files("attention_explorable").joinpath("web", "dist", f"{name}.mjs").read_text("utf-8")


def _page_script(name: str) -> str:
    return resources.files("attention_explorable").joinpath("web", "dist", "page", f"{name}.js").read_text("utf-8")


def module_page(name: str, language: str, other_language_href: str | None = None) -> str:
    """The page of explorable ``name`` in ``language``: one HTML file that loads nothing, from ``file://`` too.

    ``other_language_href`` is the language switch's target (a file of the other language); None asks the
    server with ``?lang=``.

    Raises
    ------
    KeyError
        For an unknown ``name``; ValueError for an unknown ``language`` (each named).
    """
    state = json.dumps(module_state(name, language), ensure_ascii=False).replace("</", "<\\/")
    link = json.dumps(module_widget(name, language).ae_module_link(), ensure_ascii=False).replace("</", "<\\/")
    other = "en" if language == "zh" else "zh"
    page = ui.template("module-page.html").render(
        lang=HTML_LANG[language],
        title=text(f"{_get(name).prefix}title", language),
        intro=text(f"{_get(name).prefix}intro", language),
        name=name,
        state=state,
        link=link,
        scripts=[
            _page_script(name).replace("</script", "<\\/script"),
            _page_script("host").replace("</script", "<\\/script"),
        ],
        switch_href=other_language_href or f"?lang={other}",
        switch_label=text("language_name", other),
        switch_lang=HTML_LANG[other],
    )
    # The policy first in the head, as on every student page: only the page's own scripts run.
    policy = content_security_policy(page)
    return page.replace(
        '<meta charset="utf-8">',
        f'<meta charset="utf-8">\n  <meta http-equiv="Content-Security-Policy" content="{html.escape(policy)}">',
        1,
    )


class HeadWidget(AnyWidgetComponent):
    """The head that learns as a Panel component: ``web/dist/head.mjs`` run by Panel's anywidget host.

    Its parameters are the module's model keys (:data:`MODULES` ``["head"]``), bounds checked here
    (``views.head.BOUNDS``); what the student changes in the browser comes back to them. A student page
    that holds it (the textbook) writes it as an element the page's own host renders
    (:meth:`ae_module_state`, ``web/host.js``), so the same module runs in both.

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
    _esm = module_source("head")

    d_k = param.Integer(head.DEFAULTS["d_k"], bounds=head.BOUNDS["d_k"][:2], doc="Width of queries and keys.")
    learning_rate = param.Number(
        head.DEFAULTS["learning_rate"], bounds=head.BOUNDS["learning_rate"][:2], doc="Adam's step size."
    )
    seed = param.Integer(head.DEFAULTS["seed"], bounds=head.BOUNDS["seed"][:2], doc="Seed of parameters and examples.")
    scaled = param.Boolean(head.DEFAULTS["scaled"], doc="Scores divided by sqrt(d_k).")
    batch = param.Integer(head.DEFAULTS["batch"], bounds=(1, 1024), doc="Examples per training step.")
    prediction = param.Integer(None, bounds=(0, 2), allow_None=True, doc="The option the student predicted (0-2).")
    skipped = param.Boolean(False, doc="The student went on without a prediction.")
    compare_prediction = param.Integer(None, bounds=(0, 2), allow_None=True, doc="The comparison's predicted option.")
    own_lookup = param.String(MODULES["head"].defaults["own_lookup"], doc="The student's own lookup, as typed.")
    strings = param.Dict({}, doc="The interface text in the page's language (``head_`` keys).")
    lang = param.String("zh-Hans", doc="The page's language, as ``<html lang>`` has it.")

    #: What a deep link can set (``?d_k=64&scaled=false``; behind ``head.`` on the textbook).
    link_params = ("d_k", "learning_rate", "seed", "scaled")

    def __init__(self, language: str = "zh", link_prefix: str = "", **params):
        state = module_state("head", language)
        super().__init__(**{"strings": state["strings"], "lang": state["lang"], **params})
        self.language, self.link_prefix = language, link_prefix

    def ae_module_link(self) -> dict:
        """The JSON spec of its deep links, which the page's host reads and keeps the address following
        (``web/host.js``; the rules of :mod:`.views.links`)."""
        from .explorables.base import param_link_spec

        return param_link_spec(self, self.link_params, self.link_prefix, self.language)

    def ae_module_state(self) -> dict:
        """The model's state as the module reads it: every key of :data:`MODULES` ``["head"]``."""
        keys = [*MODULES["head"].defaults, "strings", "lang"]
        return {k: getattr(self, k) for k in keys}


def module_widget(name: str, language: str = "zh", link_prefix: str = ""):
    """The Panel component of module explorable ``name`` in ``language`` (see :class:`HeadWidget`); its
    deep links' names start with ``link_prefix``.

    Raises
    ------
    KeyError
        For an unknown ``name`` (named).
    """
    _get(name)
    return {"head": HeadWidget}[name](language=language, link_prefix=link_prefix)
