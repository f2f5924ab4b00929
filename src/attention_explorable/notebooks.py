"""Each section of the course as a Jupyter notebook, generated from ``content/``.

:func:`section_notebook` turns a section (one Markdown file of ``content/<language>``)
into a notebook a student can run: the section's text as Markdown cells (Jupyter
renders its ``$...$`` formulas), every ``:::code`` block as a code cell (the worked
examples, in NumPy alone), and every ``:::explorable``
as a cell that shows the live explorable (Panel's extension, loaded by the first
cell; where the package is not installed, the first cell says so and these cells
are skipped, while every other cell needs NumPy alone). Exercises keep their hints and answers
folded. Nothing is written by hand, so the notebook says what the page says; ``tests/test_notebooks.py`` runs every
notebook with a real kernel and checks that its cells print the numbers the text
quotes.

The textbook's student page (the export, ``serve``) links each section's
notebook (``ae-notebook``) as a file beside it, ``notebooks/<file>``
(:func:`notebook_href`; the export writes them, ``serve`` routes them), so the
page does not carry them; the live textbook (``panel serve``), which has no
such route, links each as a ``data:`` URL (:func:`notebook_data_url`).
"""

from __future__ import annotations

import base64
import json
from functools import lru_cache

from .content import Block, Section, load_sections
from .explorables import explorable_class
from .strings import text

__all__ = ["section_notebook", "notebook_json", "notebook_filename", "notebook_href", "notebook_data_url", "NOTEBOOKS"]

#: The folder beside a student page that holds its language's notebooks (export, ``serve``).
NOTEBOOKS = "notebooks"

#: The notebook format written: nbformat 4.4 (cells need no ids).
NBFORMAT = (4, 4)


def _markdown(source: str) -> dict:
    return {"cell_type": "markdown", "metadata": {}, "source": source.strip() + "\n"}


def _code(source: str) -> dict:
    return {
        "cell_type": "code",
        "execution_count": None,
        "metadata": {},
        "outputs": [],
        "source": source.strip() + "\n",
    }


def _folded(summary: str, body: str) -> str:
    # Jupyter renders Markdown inside <details> when blank lines separate it from the tags.
    return f"<details><summary>{summary}</summary>\n\n{body.strip()}\n\n</details>"


def _exercise(block: Block, language: str) -> str:
    parts = block.parts
    out = [f"**{text('exercise_label', language)}** {parts.get('question', '').strip()}"]
    if parts.get("options"):
        out.append(parts["options"].strip())
    if parts.get("hint"):
        out.append(_folded(text("notebook_hint", language), parts["hint"]))
    out.append(_folded(text("notebook_answer", language), parts.get("answer", "")))
    return "\n\n".join(out)


def _cells(block: Block, language: str) -> list[dict]:
    kind = block.kind
    if kind == "markdown":
        return [_markdown(block.body)] if block.body.strip() else []
    if kind == "code":
        return [_code(block.body)]
    if kind == "explorable":
        from .modules import MODULES, module_widget

        cls = (
            type(module_widget(block.args[0], language))
            if block.args[0] in MODULES
            else explorable_class(block.args[0])
        )
        caption = [_markdown(block.body)] if block.body.strip() else []
        # (skipped, not an error, where the package is not installed: the first cell set ui to None)
        return caption + [
            _code(
                f"if ui is not None:\n    from {cls.__module__} import {cls.__name__}\n\n"
                f"    display({cls.__name__}(language={language!r}))"
            )
        ]
    if kind in ("definition", "proposition"):
        return [_markdown(f"**{block.title}**\n\n{block.body}")]
    if kind == "proof":
        return [_markdown(_folded(block.title, block.body))]
    if kind == "exercise":
        return [_markdown(_exercise(block, language))]
    if kind == "lean":
        return [_markdown(f"**{block.title}**\n\n```lean\n{block.body.strip()}\n```")]
    if kind == "video":
        from .content import video_sources

        links = " · ".join(
            f"[{text(f'video_site_{site}', language)}]({page})" for site, _, page in video_sources(block)
        )
        return [_markdown(f"{block.body.strip()}\n\n{links}")]
    raise ValueError(f"block kind {kind!r} has no notebook cell")


def _section(section_id: str, language: str) -> Section:
    for section in load_sections(language):
        if section.id == section_id:
            return section
    raise ValueError(f"no section {section_id!r} in the {language!r} edition")


@lru_cache(maxsize=None)
def notebook_json(section_id: str, language: str) -> str:
    """The notebook of section ``section_id`` in ``language``, as the JSON text of an ``.ipynb`` file.

    Parameters
    ----------
    section_id : str
        A section's ``id`` (front matter of ``content/<language>/*.md``), e.g. ``"sec-3-7"``.
    language : {"zh", "en"}
        The edition.

    Returns
    -------
    str
        nbformat 4 JSON; see :func:`section_notebook` for the cells.

    Raises
    ------
    ValueError
        If the edition has no such section.
    """
    return json.dumps(section_notebook(section_id, language), ensure_ascii=False, indent=1) + "\n"


def section_notebook(section_id: str, language: str) -> dict:
    """Section ``section_id`` of the ``language`` edition as a notebook (a JSON-able dict, nbformat 4).

    The first cells give the title and how to open the notebook, then load
    numpy and, where the package is installed, Panel's extension; each block of the section follows in
    order (see the module's docstring).

    Raises
    ------
    ValueError
        If the edition has no such section.

    Examples
    --------
    >>> nb = section_notebook("sec-3-7", "en")
    >>> nb["nbformat"], nb["cells"][0]["cell_type"]
    (4, 'markdown')
    """
    section = _section(section_id, language)
    cells = [
        _markdown(f"# {section.title}\n\n{text('notebook_intro', language)}"),
        _code(text("notebook_setup", language)),
    ]
    for block in section.blocks:
        cells.extend(_cells(block, language))
    return {
        "cells": cells,
        "metadata": {
            "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
            "language_info": {"name": "python"},
        },
        "nbformat": NBFORMAT[0],
        "nbformat_minor": NBFORMAT[1],
    }


def notebook_filename(section_id: str, language: str) -> str:
    """The file name a downloaded notebook gets, e.g. ``attention-sec-3-7-zh.ipynb``."""
    return f"attention-{section_id}-{language}.ipynb"


def notebook_href(section_id: str, language: str) -> str:
    """The notebook's address relative to a student page of its language: ``notebooks/<file>``."""
    return f"{NOTEBOOKS}/{notebook_filename(section_id, language)}"


@lru_cache(maxsize=None)
def notebook_data_url(section_id: str, language: str) -> str:
    """The notebook as a ``data:`` URL (base64), for a download link that needs no server route."""
    payload = base64.b64encode(notebook_json(section_id, language).encode("utf-8")).decode("ascii")
    return f"data:application/x-ipynb+json;base64,{payload}"
