"""The textbook page: sections 3.7 and 3.8 with their explorables inline."""

from __future__ import annotations

import html
import re
import warnings
from functools import lru_cache

import panel as pn
import param

from .content import (
    PROSE_CSS,
    Block,
    Section,
    anchor,
    load_sections,
    map_text,
    mark_languages,
    markdown_to_html,
    math_html,
    video_sources,
)
from .explorables.base import ScriptedPane
from .modules import MODULES, ExerciseWidget, module_widget
from .notebooks import notebook_data_url, notebook_filename, notebook_href
from .strings import DEFAULT_LANGUAGE, STRINGS, text


@lru_cache(maxsize=None)
def _sections(language: str = DEFAULT_LANGUAGE) -> tuple[Section, ...]:
    return tuple(load_sections(language))


@lru_cache(maxsize=None)
def code_note(language: str) -> str:
    """The caption under a code block saying it runs in the section's notebook (said under a section's first)."""
    return f"<p class='ae-caption'>{text('code_note', language)}</p>"


@lru_cache(maxsize=None)
def open_hint(language: str) -> str:
    """How a folded box opens ("(tap or click to open)"), said after its title: the textbook says it once."""
    return f"<span class='ae-open-hint'>{text('proof_summary', language)}</span>"


def block_html(section_id: str, block: Block, language: str) -> str:
    """HTML of a non-interactive block (cached: the text is the same for every session).

    Each subsection number in its text links to that subsection (:func:`link_subsections`); runs of the
    other language carry their ``lang`` (:func:`~attention_explorable.content.mark_languages`).
    """
    return mark_languages(link_subsections(_block_html(section_id, block, language), language), language)


@lru_cache(maxsize=None)
def subsection_anchors(language: str = DEFAULT_LANGUAGE) -> dict[str, str]:
    """Each subsection's number (``"3.7.5"``) → its heading's id, from the text's ``##`` headings."""
    found = {}
    for section in _sections(language):
        for level, a, title in section.outline():
            number = title.split(" ", 1)[0]
            if level == 2 and re.fullmatch(r"\d+\.\d+\.\d+", number):
                found[number] = a
    return found


#: A subsection's number in running text, unless it numbers an example, exercise, proposition or definition
#: of that subsection (its name right before it: "Example 3.8.2", "练习 3.8.1").
_SUBSECTION_REF = re.compile(
    r"(?P<kind>(?:Examples?|Exercises?|Propositions?|Definitions?|例|练习|命题|定义)\s*)?(?<![\d.])(?P<n>\d+\.\d+\.\d+)(?![\d])"
)
#: Elements whose text is not linked: links, headings, formulas, code and scripts.
_NO_LINKS = ("a", "h1", "h2", "h3", "summary", "math", "code", "pre", "script", "style")


def link_subsections(source: str, language: str) -> str:
    """``source`` (HTML of the text) with each subsection number ("3.7.5") in its running text a link to that
    subsection's heading: on one long page "see 3.7.5" is a tap away. A number of an example, an exercise,
    a proposition or a definition ("Example 3.8.2"), a number with no subsection, and the text of links,
    headings, summaries, formulas and code are left as they are.

    >>> link_subsections("<p>the steps of 3.7.5; Example 3.8.2</p>", "en")  # doctest: +ELLIPSIS
    "<p>the steps of <a class='ae-ref' href='#sec-3-7--3-7-5-...'>3.7.5</a>; Example 3.8.2</p>"
    """
    anchors = subsection_anchors(language)

    def link(m: re.Match) -> str:
        a = anchors.get(m.group("n"))
        if m.group("kind") or a is None:
            return m.group(0)
        return f"<a class='ae-ref' href='#{html.escape(a)}'>{m.group('n')}</a>"

    return map_text(source, lambda text: _SUBSECTION_REF.sub(link, text), keep=_NO_LINKS)


def _block_html(section_id: str, block: Block, language: str) -> str:
    t = lambda key: text(key, language)  # noqa: E731
    if block.kind == "markdown":
        return markdown_to_html(block.body, section_id)
    if block.kind in ("definition", "proposition"):
        return (
            f"<div class='ae-box ae-{block.kind}'><p><b>{html.escape(block.title)}</b></p>"
            f"{markdown_to_html(block.body, section_id)}</div>"
        )
    if block.kind == "proof":
        return (
            f"<details class='ae-proof'><summary><b>{html.escape(block.title)}</b>"
            f"{open_hint(language)}</summary>{markdown_to_html(block.body, section_id)}</details>"
        )
    if block.kind == "code":
        printed = code_output(section_id, block.body, language)
        # What the code prints is folded: under an explorable it holds the answers to its questions.
        output = (
            f"<details class='ae-output'><summary>{t('code_output')}{open_hint(language)}</summary>"
            f"<pre class='ae-output'><samp>{code_lines(printed)}</samp></pre></details>"
            if printed.strip()
            else ""
        )
        return f"<pre class='ae-code'><code>{code_lines(block.body)}</code></pre>{output}{code_note(language)}"
    if block.kind == "lean":
        return (
            # folded like a proof: a reader who wants the machine-checked statement opens it
            f"<details class='ae-proof ae-lean-box'><summary><b>{html.escape(block.title)}</b>"
            f"{open_hint(language)}</summary><p class='ae-caption'>{t('lean_note')}</p>"
            f"<pre class='ae-lean'><code>{code_lines(block.body)}</code></pre></details>"
        )
    if block.kind == "video":
        # One button per source; web/page.js puts the chosen player in only on
        # that click, so nothing is fetched from any site before it.
        sources = video_sources(block)
        names = {site: t(f"video_site_{site}") for site, _, _ in sources}
        buttons = "".join(
            f"<button type='button' class='ae-video-load ae-video-{site}' aria-pressed='false' "
            f"data-src='{html.escape(embed)}' "
            f"data-title='{html.escape(text('video_frame_title', language, site=names[site]))}'>"
            f"{html.escape(text('video_play', language, site=names[site]))}</button>"
            for site, embed, _ in sources
        )
        links = " · ".join(
            f"<a href='{html.escape(page)}' target='_blank' rel='noopener'>{html.escape(names[site])}</a>"
            for site, _, page in sources
        )
        return (
            f"<div class='ae-video' data-offline='{html.escape(t('video_offline'))}'>"
            f"{markdown_to_html(block.body, section_id)}"
            f"<p class='ae-caption'>{t('video_note')}</p>"
            f"<div class='ae-video-choices' role='group' aria-label='{html.escape(t('video_choose'))}'>"
            f"{buttons}</div>"
            f"<p class='ae-caption'>{t('video_link')}{links}</p></div>"
        )
    raise ValueError(f"block kind {block.kind!r} has no static HTML")


def contents_html(language: str) -> str:
    """The textbook's table of contents in ``language``: each section, its ``##`` headings and, under each,
    its ``###`` headings, as links."""
    parts = [f"<nav class='ae-toc'><b>{text('toc', language)}</b><ul>"]
    for s in _sections(language):
        sub = []
        for level, a, title in s.outline():
            link = f"<a href='#{a}'>{html.escape(title)}</a>"
            if level == 2:
                sub.append([link, []])
            elif sub:  # (a ### before any ## has no place in the contents)
                sub[-1][1].append(link)
        items = "".join(
            f"<li>{link}" + (f"<ul>{''.join(f'<li>{c}</li>' for c in under)}</ul>" if under else "") + "</li>"
            for link, under in sub
        )
        parts.append(f"<li><a href='#{s.id}'>{html.escape(s.title)}</a><ul>{items}</ul></li>")
    parts.append("</ul></nav>")
    return mark_languages("".join(parts), language)


class CodeError(RuntimeError):
    """A code block of the text raised an error when run (the message names the section and the block)."""


@lru_cache(maxsize=None)
def code_outputs(section_id: str, language: str = DEFAULT_LANGUAGE) -> dict[str, str]:
    """What each code block of a section prints, run in order in one namespace, as the section's notebook
    runs them.

    Returns
    -------
    dict
        The block's source → its printed text (``print``'s lines, then any warning it raised, as a
        notebook shows them: ``RuntimeWarning: overflow encountered in exp``).

    Raises
    ------
    KeyError
        No section has the id ``section_id``.
    CodeError
        A block raised: the message names the section, the block's first line and the error.
    """
    section = next((s for s in _sections(language) if s.id == section_id), None)
    if section is None:
        raise KeyError(f"section_id={section_id!r} is no section of the text ({language})")
    namespace: dict = {"__name__": f"{section_id}_code"}
    outputs: dict[str, str] = {}
    for block in section.blocks:
        if block.kind != "code":
            continue
        lines: list[str] = []
        # The block's own ``print`` writes here: nothing global (``sys.stdout``) is swapped.
        namespace["print"] = lambda *a, sep=" ", end="\n", **_: lines.append(sep.join(map(str, a)) + end)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                exec(compile(block.body, f"<{section_id} code>", "exec"), namespace)  # noqa: S102 (the text's own code)
            except Exception as error:
                first = block.body.strip().splitlines()[0]
                raise CodeError(f"{section_id} ({language}): the code block {first!r} raised {error!r}") from error
        seen = dict.fromkeys(f"{w.category.__name__}: {w.message}\n" for w in caught)
        outputs[block.body] = "".join(lines) + "".join(seen)
    return outputs


def code_output(section_id: str, source: str, language: str = DEFAULT_LANGUAGE) -> str:
    """What the code block ``source`` of the section prints (:func:`code_outputs`); ``""`` for code that is
    not one of the section's blocks."""
    return code_outputs(section_id, language).get(source, "")


def code_lines(source: str) -> str:
    """``source`` (code) as the escaped text of a ``<pre>``, its blank lines at either end dropped: on a
    narrow screen a long line does not wrap, its block scrolls sideways (``PROSE_CSS``), so every line reads
    as the code it is, and what a reader copies is the code as written."""
    return html.escape(source.strip("\n").rstrip())


@lru_cache(maxsize=None)
def notebook_link(section_id: str, language: str, inline: bool = False) -> str:
    """The section's notebook as a download link (``ae-notebook``) with how to open it.

    The link is the file beside the page (:func:`attention_explorable.notebooks.notebook_href`:
    the export writes it, ``serve`` routes it) or, ``inline``, a ``data:`` URL
    (:func:`attention_explorable.notebooks.notebook_data_url`: the live textbook of ``panel serve``).
    """
    t = lambda key: html.escape(text(key, language))  # noqa: E731
    href = notebook_data_url(section_id, language) if inline else notebook_href(section_id, language)
    # (A page opened from a folder on disk shows a file's notebook as text: web/page.js then shows this note.)
    note = (
        ""
        if inline
        else f"<span class='ae-notebook-file' hidden> · {html.escape(text('notebook_file_note', language, file=href))}</span>"
    )
    line = (
        f"<p class='ae-caption ae-notebook-line'><a class='ae-notebook' "
        f"href='{href}' download='{notebook_filename(section_id, language)}' "
        f"type='application/x-ipynb+json'>{t('notebook_download')}</a>{note} · {t('notebook_how')}</p>"
    )
    return mark_languages(line, language)


#: An explorable's box on the page.
_BOX = {"border": "1px solid var(--ae-rule, #e3e3e3)", "border-radius": "8px", "padding": "6px", "margin": "12px 0"}

#: A waiting part's button: wraps its text on a narrow screen, readable on a phone.
_LOAD_CSS = ".bk-btn { white-space: normal; font-size: 15px; min-height: 40px; }"


def _query_value(value) -> str:
    """A parameter's value as a deep link writes it (``views/links.py``: ``true``, ``0.05``, the text)."""
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


def page_scripts(load_on_approach: bool = True) -> ScriptedPane:
    """The textbook page's own scripts (``web/page.js``): an empty pane that runs them once the page is ready.

    They press each waiting part's load button when the reader comes within
    about a screen of it (when ``load_on_approach``), load a lecture
    video into the page only when its button is clicked, and, on a page opened
    from disk, show beside each notebook's link which file it is.
    """
    return ScriptedPane(
        "",
        script="page",
        settings={"load_on_approach": load_on_approach},
        margin=0,
        height=0,
        css_classes=["ae-page-scripts"],
    )


class TextbookPage(pn.viewable.Viewer):
    """Sections 3.7 and 3.8 as one page, with explorables and exercises inline.

    Parameters
    ----------
    language : str
        Language of the interface and of the course text ("zh" default, or "en": content/en/).

    Attributes
    ----------
    exercises : dict[str, ExerciseWidget]
        The exercises on the page, by id (their modules, ``web/exercise.js``).
    modules : dict[str, pn.viewable.Viewable]
        The explorables written as one module on the page, by name (``modules.module_widget``).

    References
    ----------
    Course sections 3.7 (attention mechanism) and 3.8 (attention: weighting
    information by context).
    """

    language = param.Selector(
        default=DEFAULT_LANGUAGE, objects=list(STRINGS), constant=True, doc="Language of the interface text."
    )
    load = param.Selector(
        default="on_approach",
        objects=["on_approach", "all"],
        constant=True,
        doc=(
            "When the explorables and exercises are built. 'on_approach': in a server session the "
            "first explorable comes with the page and every further explorable and exercise when the "
            "reader scrolls near it (or presses its button), so the page arrives sooner and a reader "
            "who stops early costs the server nothing more; 'all': everything with the page (outside "
            "a server session, as for the student page a file holds, 'on_approach' is 'all')."
        ),
    )

    notebook_files = param.Boolean(
        False,
        constant=True,
        doc=(
            "Whether each section's notebook is linked as the file beside the page (notebooks/: a student "
            "page, which the export writes and serve routes) rather than as a data: URL (anywhere else: "
            "panel serve, a notebook, pn.save)."
        ),
    )

    def __init__(self, **params):
        super().__init__(**params)
        self.sections = _sections(self.language)
        self.exercises: dict[str, ExerciseWidget] = {}
        self.modules: dict[str, pn.viewable.Viewable] = {}
        self._pending: dict[str, tuple[pn.Column, object]] = {}
        self._defer = self.load == "on_approach" and self._in_server_session()
        self._hinted = False  # how a folded box opens is said at the first one only
        self._body = [self._section_view(s) for s in self.sections]

    @staticmethod
    def _in_server_session() -> bool:
        doc = pn.state.curdoc
        return doc is not None and doc.session_context is not None

    def _html(self, source: str, css: str = "") -> pn.pane.HTML:
        classes = ["ae-prose"] + ([css] if css else [])
        return math_html(source, css_classes=classes, margin=(0, 10), stylesheets=[PROSE_CSS])

    def _section_view(self, section: Section) -> pn.Column:
        # Consecutive static blocks (the section title, text, definitions,
        # proofs, Lean, video) share one HTML pane: a pane costs a Panel object
        # and Bokeh models per session, whether it holds a line or a page.
        items: list = []
        run = [f"<h1 id='{section.id}' class='ae-section-title'>{html.escape(section.title)}</h1>"]
        hint, note = open_hint(self.language), code_note(self.language)
        noted = False  # that code runs in the notebook is said under the section's first code block only
        for block in section.blocks:
            if block.kind in ("explorable", "exercise"):
                if run:
                    items.append(self._html("".join(run)))
                    run = []
                if block.kind == "explorable":
                    items.append(self._explorable(block))
                else:
                    items.append(self._exercise(block))
            else:
                written = block_html(section.id, block, self.language)
                if self._hinted:
                    written = written.replace(hint, "")
                self._hinted = self._hinted or hint in written
                if noted:
                    written = written.replace(note, "")
                noted = noted or note in written
                run.append(written)
        # The section's notebook closes it: the reader meets the text first, the download once it is read.
        run.append(notebook_link(section.id, self.language, inline=not self.notebook_files))
        items.append(self._html("".join(run)))
        return pn.Column(*items, css_classes=["ae-section", f"ae-{section.id}"], sizing_mode="stretch_width")

    def _unknown_explorable(self, name: str) -> str:
        return f"<p class='ae-error'>{text('unknown_explorable', self.language, name=html.escape(name))}</p>"

    def _explorable(self, block: Block):
        name = block.args[0] if block.args else ""
        if name not in MODULES:
            return self._html(self._unknown_explorable(name))
        caption = markdown_to_html(block.body, language=self.language) if block.body.strip() else ""
        return self._module(name, caption)

    def _module(self, name: str, caption: str):
        """An explorable written as one module (``modules.py``), in its box like the others."""
        widget = module_widget(name, self.language, link_prefix=f"{name}.")
        widget.open_link(pn.state.session_args or {})
        self._follow_address(widget)
        self.modules[name] = widget
        return pn.Column(
            self._html(f"<div class='ae-caption'>{caption}</div>") if caption else None,
            widget,
            css_classes=["ae-explorable", f"ae-explorable-{name}"],
            sizing_mode="stretch_width",
            styles=_BOX,
        )

    def _follow_address(self, widget) -> None:
        """In a server session, the page's address follows what the student sets in ``widget`` (its deep
        link's names, behind its prefix), so that a reload opens it again (Panel's ``location``)."""
        location = pn.state.location if self._in_server_session() else None
        if location is None:
            return
        prefix = widget.link_prefix

        def follow(*events):
            location.update_query(**{prefix + e.name: _query_value(e.new) for e in events})

        widget.param.watch(follow, list(widget.link_params))

    def _exercise_key(self, block: Block) -> str:
        return block.args[0] if block.args else f"ex{len(self.exercises) + len(self._pending)}"

    def _new_exercise(self, block: Block, key: str) -> ExerciseWidget:
        # Its module, as on every student page. What the student typed comes back after a reload:
        # ?q2-alpha2.response=0.155
        ex = ExerciseWidget(block, language=self.language, link_prefix=f"{key}.")
        ex.open_link(pn.state.session_args or {})
        self._follow_address(ex)
        self.exercises[key] = ex
        return ex

    def _exercise(self, block: Block):
        key = self._exercise_key(block)
        if not self._defer:
            return self._new_exercise(block, key)
        return self._placeholder(key, "exercise", lambda: self._new_exercise(block, key))

    def _placeholder(self, key: str, kind: str, build) -> pn.widgets.Button:
        """A button that :meth:`build_waiting` replaces by ``build()`` when the reader comes near.

        One Bokeh model per waiting part: the page that is sent first stays small.
        """
        button = pn.widgets.Button(
            name=text(f"{kind}_load", self.language),
            button_type="light",
            css_classes=["ae-load", f"ae-load-{key}"],
            margin=(10, 10),
            sizing_mode="stretch_width",
            stylesheets=[_LOAD_CSS],
        )
        button.on_click(lambda event: self.build_waiting(key))
        self._pending[key] = (button, build)
        return button

    def build_waiting(self, key: str) -> None:
        """Build the waiting explorable or exercise ``key`` into its place (else nothing).

        ``key`` is an explorable's name (``"steps"``) or an exercise's id. In
        the browser this runs when the reader comes within about a screen of
        it (see :func:`page_scripts`) or presses its button.
        """
        entry = self._pending.pop(key, None)
        if entry is None:
            return
        holder, build = entry
        parent = next(col for col in self._containers() if any(o is holder for o in col.objects))
        parent[[i for i, o in enumerate(parent.objects) if o is holder][0]] = build()

    def _containers(self):
        for section in self._body:
            yield section
            yield from (item for item in section.objects if isinstance(item, pn.Column))

    def toc_html(self) -> str:
        """The table of contents: each section and its ``##`` headings, as links."""
        return contents_html(self.language)

    def __panel__(self):
        return pn.Column(
            self._html(
                f"<h1 class='ae-page-title'>{text('page_title', self.language)}</h1>{self.toc_html()}", "ae-toc"
            ),
            page_scripts(load_on_approach=bool(self._pending)),
            *self._body,
            css_classes=["ae-textbook"],
            sizing_mode="stretch_width",
            max_width=1100,
            styles={"margin": "0 auto"},
        )


__all__ = ["TextbookPage", "anchor"]
