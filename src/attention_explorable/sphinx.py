"""The Sphinx extension: an explorable in a reStructuredText or MyST page, with one directive.

In ``conf.py``::

    extensions = ["attention_explorable.sphinx"]      # with "myst_parser" for Markdown pages
    attention_explorable_language = "en"              # optional: a tag's language when its page says none

In a reStructuredText page::

    .. attention-explorable:: steps
       :step: 3
       :temperature: 0.05
       :lang: en

and in a MyST page::

    ```{attention-explorable} vector
    :query_x: 0.5
    :theme: dark
    ```

The directive writes ``<attention-explorable name=... ...>`` (see
:func:`attention_explorable.authoring.element_tag`); its options are the
explorable's starting state (its deep-link parameters), ``lang``, ``theme``
and the flag ``deep-links``. An option the explorable does not take is a
build error naming it and the closest option it takes, and the build fails
(also without ``-W``); a value the page would clamp or ignore is a warning
with the page's own words. A page with an explorable gets the element's
script, by a path relative to that page, and the build copies the
element's files into ``_static/attention-explorable/`` (about 0.3 MB).
Other builders (LaTeX, text) leave the explorable out.

References: Sphinx, "Extension API" (``add_directive``, ``add_js_file``,
``html-page-context``, ``build-finished``); docs/embedding.md.
"""

from __future__ import annotations

from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from .authoring import ASSETS, SCRIPT, THEMES, check_state, element_tag
from .site import export_element

__all__ = ["ExplorableDirective", "setup"]

_log = logging.getLogger(__name__)
#: The mark the directive leaves on its node, so a page that has one gets the script.
_MARK = "attention-explorable"


class _Options(dict):
    """The directive's options: its own, and any other name as text (the explorable's state, checked in ``run``)."""

    def __missing__(self, key):
        return directives.unchanged


class ExplorableDirective(SphinxDirective):
    """``.. attention-explorable:: NAME`` with the explorable's starting state as options.

    Raises
    ------
    docutils error (a build error at the directive's line)
        If ``NAME``, an option's name, ``lang`` or ``theme`` is not one the element takes.
    """

    required_arguments = 1
    has_content = False
    option_spec = _Options(
        {
            "lang": lambda value: directives.choice(value, ("zh", "en")),
            "theme": lambda value: directives.choice(value, THEMES),
            "deep-links": directives.flag,
        }
    )

    def run(self) -> list[nodes.Node]:
        name = self.arguments[0].strip()
        own = ("lang", "theme", "deep-links")
        state = {key: str(value) for key, value in self.options.items() if key not in own}
        lang = self.options.get("lang")
        try:
            markup = element_tag(
                name, state, lang=lang, theme=self.options.get("theme"), deep_links="deep-links" in self.options
            )
            notices = check_state(name, state, lang or _language(self.config))
        except ValueError as err:
            # Said at its line, and kept: the build fails at its end (build-finished), also without -W.
            _errors(self.env).setdefault(self.env.docname, []).append(f"{self.env.docname}: {err}")
            raise self.error(f"attention-explorable: {err}") from None
        for notice in notices:
            _log.warning("attention-explorable %s: %s", name, notice, location=self.get_location())
        node = nodes.raw("", markup, format="html")
        node[_MARK] = name
        return [node]


def _language(config) -> str:
    """The language of a tag whose page says none: ``attention_explorable_language``, else Sphinx's ``language``."""
    chosen = config.attention_explorable_language or config.language or "en"
    return "zh" if str(chosen).lower().startswith("zh") else "en"


def _add_script(app, pagename, templatename, context, doctree) -> None:
    """Load the element's script on the pages that hold an explorable (only those)."""
    if doctree is not None and any(_MARK in node for node in doctree.findall(nodes.raw)):
        # A classic script, not a module: it also runs from file://, where browsers refuse modules.
        app.add_js_file(f"{ASSETS}/{SCRIPT}")


def _errors(env) -> dict[str, list[str]]:
    """The directives' errors by document, kept in the build environment (read in parallel, merged)."""
    if not hasattr(env, "attention_explorable_errors"):
        env.attention_explorable_errors = {}
    return env.attention_explorable_errors


def _purge(app, env, docname) -> None:
    _errors(env).pop(docname, None)  # the document is read again


def _merge(app, env, docnames, other) -> None:
    for docname in docnames:
        if docname in _errors(other):
            _errors(env)[docname] = _errors(other)[docname]


def _fail_on_errors(app, exception) -> None:
    """A tag the element cannot take fails the build (exit status 1, "build finished with problems"),
    not only under ``-W``: the page would hold a hole where the explorable should be. Each was said as
    an error at its line; this says them once more, in one line, and no traceback (a mistake in the
    markup is not a crash of Sphinx)."""
    found = [line for lines in _errors(app.env).values() for line in lines]
    if exception is None and found:
        from sphinx.util import logging as sphinx_logging

        sphinx_logging.getLogger(__name__).error("attention-explorable: " + "; ".join(found))
        app.statuscode = 1


def _copy_assets(app, exception) -> None:
    """After an HTML build: write the element's files into ``_static/attention-explorable/``."""
    if exception is None and app.builder.format == "html":
        export_element(Path(app.outdir) / "_static" / ASSETS, _language(app.config))


def setup(app) -> dict:
    """Register the directive, its configuration value and its build steps (Sphinx calls this)."""
    app.add_config_value("attention_explorable_language", None, "html", types=[str, type(None)])
    app.add_directive("attention-explorable", ExplorableDirective)
    app.connect("html-page-context", _add_script)
    app.connect("build-finished", _copy_assets)
    app.connect("build-finished", _fail_on_errors, priority=900)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    from . import __version__

    return {"version": __version__, "parallel_read_safe": True, "parallel_write_safe": True}
