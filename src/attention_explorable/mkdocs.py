"""The MkDocs plugin: an explorable in any Markdown page, written as its tag.

In ``mkdocs.yml``::

    plugins:
      - search
      - attention-explorable          # optional: {language: en}, a tag's language when its page says none

In a page (Markdown passes HTML through)::

    <attention-explorable name="steps" step="3" temperature="0.05" lang="en"></attention-explorable>

A page with a tag gets the element's script, by a path relative to that
page (with MkDocs' default ``use_directory_urls`` as without it), and the
build writes the element's files into ``attention-explorable/`` at the
site's root (about 0.3 MB). A tag naming no explorable, or an attribute
the explorable does not take, fails the build, naming it (and the closest
attribute it takes); a value the page would clamp or ignore is a warning
in the page's own words (an error under ``mkdocs build --strict``).

References: MkDocs, "Developing Plugins" (``on_page_content``,
``on_post_build``); docs/embedding.md.
"""

from __future__ import annotations

import logging
from html.parser import HTMLParser
from pathlib import Path

from mkdocs.config import base, config_options
from mkdocs.plugins import BasePlugin

from .authoring import ASSETS, OWN_ATTRIBUTES, check_state, script_tag
from .site import export_element

__all__ = ["AttentionExplorablePlugin", "explorable_tags"]

_log = logging.getLogger(f"mkdocs.plugins.{__name__}")


class _Tags(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.found: list[dict[str, str]] = []

    def handle_starttag(self, tag, attrs):
        if tag == "attention-explorable":
            self.found.append({key: value or "" for key, value in attrs})


def explorable_tags(html: str) -> list[dict[str, str]]:
    """The attributes of every ``<attention-explorable>`` tag in ``html``, in order.

    >>> explorable_tags('<p><attention-explorable name="steps" step="3"></attention-explorable></p>')
    [{'name': 'steps', 'step': '3'}]
    """
    parser = _Tags()
    parser.feed(html)
    parser.close()
    return parser.found


class _Config(base.Config):
    language = config_options.Choice(("zh", "en"), default="zh")


class AttentionExplorablePlugin(BasePlugin[_Config]):
    """Load the element on the pages that hold ``<attention-explorable>`` tags, and write its files."""

    def on_page_content(self, html, page, config, files):
        """A page with tags: its script first (path relative to the page), each tag checked."""
        if "<attention-explorable" not in html:
            return html
        where = page.file.src_uri
        for attrs in explorable_tags(html):
            name = attrs.get("name", "")
            state = {
                k: v for k, v in attrs.items() if k not in OWN_ATTRIBUTES and not k.startswith(("data-", "aria-", "on"))
            }
            language = attrs.get("lang") if attrs.get("lang") in ("zh", "en") else "en"
            try:
                notices = check_state(name, state, language)
            except ValueError as err:  # a name that is no explorable's, an attribute it does not take
                from mkdocs.exceptions import PluginError

                # The build fails (not only under --strict): the page would hold a hole instead of it.
                raise PluginError(f"attention-explorable in {where}: {err}") from None
            for notice in notices:
                _log.warning("attention-explorable %s in %s: %s", name, where, notice)
        return script_tag(page.url or "./") + "\n" + html

    def on_post_build(self, config):
        """Write the element's files into ``attention-explorable/`` at the site's root."""
        export_element(Path(config.site_dir) / ASSETS, self.config.language)
