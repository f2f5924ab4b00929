"""What a course-site generator needs to put ``<attention-explorable>`` tags into its pages.

The Sphinx extension (:mod:`attention_explorable.sphinx`) and the MkDocs
plugin (:mod:`attention_explorable.mkdocs`) are thin adapters over this
module: each copies the element's files into the built site
(:func:`attention_explorable.site.export_element`, into the folder
:data:`ASSETS`), writes the one script tag with the path from the page to
that folder (:func:`script_tag`), and writes each explorable as a tag
(:func:`element_tag`). An author's state values are checked at build time
(:func:`check_state`), with the same words the page would show under the
explorable's controls, so a typo is seen in the build's log.

References: docs/embedding.md, "Course-site generators"; HTML Living
Standard, "Custom elements".
"""

from __future__ import annotations

import html
import posixpath
from collections.abc import Mapping
from functools import lru_cache

from .modules import MODULES, module_widget
from .strings import LANGUAGES
from .views.links import read_link

__all__ = ["ASSETS", "SCRIPT", "THEMES", "OWN_ATTRIBUTES", "state_names", "element_tag", "script_tag", "check_state"]

#: The folder of a built site that holds the element's files.
ASSETS = "attention-explorable"
#: The element's script inside :data:`ASSETS`.
SCRIPT = "attention-explorable.js"
#: The values of a tag's ``theme``.
THEMES = ("auto", "light", "dark")


def _known(name: str) -> None:
    if name not in MODULES:
        raise ValueError(f"name must be one of {sorted(MODULES)}, got {name!r}")


#: The element's own attributes and the page's: never an explorable's state (``OWN`` in web/element.js).
OWN_ATTRIBUTES = (
    "name",
    "lang",
    "deep-links",
    "theme",
    "id",
    "class",
    "style",
    "title",
    "hidden",
    "slot",
    "part",
    "tabindex",
    "dir",
    "is",
)


def _check_names(name: str, state: Mapping[str, str]) -> None:
    import difflib

    names = state_names(name)
    unknown = [key for key in state if key not in names]
    if unknown:
        close = [difflib.get_close_matches(key, names, n=1) for key in unknown]
        hints = "".join(f" (did you mean {c[0]!r} for {k!r}?)" for k, c in zip(unknown, close, strict=True) if c)
        raise ValueError(
            f"{name} has no parameter {', '.join(map(repr, unknown))}{hints}; its parameters are {', '.join(names)}"
        )


def state_names(name: str) -> tuple[str, ...]:
    """The starting-state attributes explorable ``name`` takes: its deep-link parameters' names.

    >>> state_names("steps")[:2]
    ('step', 'score_1')
    >>> state_names("head")
    ('d_k', 'learning_rate', 'seed', 'scaled')

    Raises
    ------
    ValueError
        If no explorable is registered as ``name``.
    """
    _known(name)
    return tuple(type(module_widget(name)).link_params)


@lru_cache(maxsize=None)
def _link_spec(name: str, language: str) -> dict:
    return module_widget(name, language).ae_module_link()


def check_state(name: str, state: Mapping[str, str], language: str = "en") -> list[str]:
    """What the page would say about ``state`` under the explorable's controls: one line per value
    it clamps into bounds or ignores, as plain text (empty when every value is taken as written).

    Parameters
    ----------
    name : str
        The explorable.
    state : Mapping[str, str]
        Attribute name -> value as written in the markup.
    language : str
        ``"zh"`` or ``"en"``: the language of the lines.

    Raises
    ------
    ValueError
        If ``name`` is unknown, or ``state`` names an attribute the explorable does not take
        (the message lists the ones it does).

    >>> check_state("steps", {"step": "3", "temperature": "0.05"})
    []
    >>> check_state("steps", {"temperature": "50"})
    ['The attribute temperature="50" is outside [0.01, 10]; set to 10.']
    """
    _check_names(name, state)
    if language not in LANGUAGES:
        raise ValueError(f"language must be one of {sorted(LANGUAGES)}, got {language!r}")
    spec = _link_spec(name, language)
    spec = {**spec, "messages": spec["attribute_messages"]}  # the page words them so (web/shadow.js)
    _, notices = read_link(spec, [(k, str(v)) for k, v in state.items()])
    return [html.unescape(n) for n in notices]


def element_tag(
    name: str,
    state: Mapping[str, str] | None = None,
    *,
    lang: str | None = None,
    theme: str | None = None,
    deep_links: bool = False,
) -> str:
    """The markup of one explorable: ``<attention-explorable name=... ...></attention-explorable>``.

    Every value is written as an escaped attribute, so nothing an author
    types becomes markup.

    Parameters
    ----------
    name : str
        The explorable (``steps``, ``vector``, ``matrix``, ``selfcross``, ``qkv``, ``contexts``).
    state : Mapping[str, str], optional
        Its starting state, attribute -> value (:func:`state_names`).
    lang : str, optional
        ``"zh"`` or ``"en"`` (a tag without one takes its page's ``lang``).
    theme : str, optional
        One of :data:`THEMES`.
    deep_links : bool
        Whether the explorable reads and writes the page's address.

    Raises
    ------
    ValueError
        If ``name``, a state attribute, ``lang`` or ``theme`` is not one the element takes.

    >>> element_tag("steps", {"step": "3", "temperature": "0.05"}, lang="en")
    '<attention-explorable name="steps" lang="en" step="3" temperature="0.05"></attention-explorable>'
    """
    _known(name)
    state = dict(state or {})
    _check_names(name, state)
    if lang is not None and lang not in LANGUAGES:
        raise ValueError(f"lang must be one of {sorted(LANGUAGES)}, got {lang!r}")
    if theme is not None and theme not in THEMES:
        raise ValueError(f"theme must be one of {list(THEMES)}, got {theme!r}")
    attrs = [("name", name)]
    attrs += [("lang", lang)] if lang else []
    attrs += [("theme", theme)] if theme else []
    attrs += [(key, str(value)) for key, value in state.items()]
    text = " ".join(f'{key}="{html.escape(value, quote=True)}"' for key, value in attrs)
    if deep_links:
        text += " deep-links"
    return f"<attention-explorable {text}></attention-explorable>"


def script_tag(page: str, root: str = "") -> str:
    """The script tag that loads the element on the built page ``page``, by a path relative to it.

    Parameters
    ----------
    page : str
        The page's path in the built site, with ``/`` (``"lessons/deep/x.html"``;
        a directory URL such as ``"lessons/x/"`` is a page in that folder).
    root : str
        The folder of the site that holds :data:`ASSETS` (``"_static"`` for Sphinx).

    >>> script_tag("lessons/deep/x.html", "_static")
    '<script src="../../_static/attention-explorable/attention-explorable.js"></script>'
    >>> script_tag("lessons/x/")
    '<script src="../../attention-explorable/attention-explorable.js"></script>'
    """
    folder = page if page.endswith("/") else posixpath.dirname(page)
    target = posixpath.join(root, ASSETS, SCRIPT)
    relative = posixpath.relpath(target, folder or ".")
    # A classic script, not a module: it also runs from file://, where browsers refuse modules.
    return f'<script src="{html.escape(relative, quote=True)}"></script>'
