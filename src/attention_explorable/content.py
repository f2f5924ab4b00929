"""The course text: read ``content/<language>/*.md`` and render it with explorables inline.

File format
-----------
Each language has a folder (``content/zh``, ``content/en``) holding the
same sections, one Markdown file each, with the same blocks in the same
order (a test compares them). Each file has front matter (``id``,
``title``, ``order``). Inline math is ``$...$``, display math ``$$...$$``. Special
blocks open with a line ``:::NAME args`` and close with a line ``:::``:

* ``:::explorable NAME`` - an explorable placed here (body: a caption);
* ``:::exercise ID kind=number|choice|text answer=... tol=...`` - body: the
  question, then ``---options`` (choice), ``---hint``, ``---hint-B`` (a choice exercise's hint
  for a student who chose option B; ``---hint`` for any other wrong choice), ``---hint-33.55``
  (a number exercise's hint for a student who typed that wrong answer), ``---answer``;
* ``:::proof TITLE`` - a collapsible proof;
* ``:::definition TITLE`` / ``:::proposition TITLE`` - boxed statements;
* ``:::lean TITLE`` - Lean 4 source, shown as code with a note that the page
  only shows it (a reader checks it in Lean 4 with Mathlib);
* ``:::code`` - Python source of a worked example: shown as code on the
  page and a code cell of the section's notebook
  (:mod:`attention_explorable.notebooks`), where the tests run it;
* ``:::video bilibili=BVID youtube=ID`` - a lecture video from one or more
  sites (:data:`VIDEO_SOURCES`), in the order written; the reader picks one
  and nothing loads before that click.

Math
----
The text is parsed with markdown-it and its ``dollarmath`` plugin; every
math span is converted on the server to MathML (``latex2mathml``, cached per
process), which the browser lays out natively: no math script to load, no
typesetting time, nothing fetched from the network, and formulas that screen
readers can read. A dollar sign followed by a space, or a closing one
followed by a digit, is not math, so ``$5`` stays text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path

import yaml
from markdown_it import MarkdownIt
from latex2mathml.converter import convert as _latex2mathml
from mdit_py_plugins.colon_fence import colon_fence_plugin
from mdit_py_plugins.dollarmath import dollarmath_plugin
from mdit_py_plugins.front_matter import front_matter_plugin

from .strings import HTML_LANG, OTHER_LANGUAGE


#: Where the section files live: ``content/`` at the top of the repository,
#: reached through the package's ``sections`` link (copied into wheels); one
#: folder per language below it.
CONTENT_DIR = Path(__file__).resolve().parent / "sections"


@dataclass(frozen=True)
class VideoSite:
    """A site a ``:::video`` block can name: how its video ids look, where they play.

    Attributes
    ----------
    id_pattern : str
        Regular expression a video id of this site must match in full.
    embed : str
        Player URL for an ``<iframe>``, with ``{id}`` for the video id.
    page : str
        The video's own page on the site, with ``{id}``.
    """

    id_pattern: str
    embed: str
    page: str


#: The sites a ``:::video`` block can take a video from, by option name.
VIDEO_SOURCES: dict[str, VideoSite] = {
    "youtube": VideoSite(
        r"[A-Za-z0-9_-]{11}", "https://www.youtube-nocookie.com/embed/{id}", "https://www.youtube.com/watch?v={id}"
    ),
    # Reachable from mainland China, where YouTube often is not.
    "bilibili": VideoSite(
        r"BV[0-9A-Za-z]{10}",
        "https://player.bilibili.com/player.html?bvid={id}&autoplay=0",
        "https://www.bilibili.com/video/{id}/",
    ),
}


def video_sources(block: "Block") -> list[tuple[str, str, str]]:
    """``(site, embed URL, page URL)`` of each source of a ``:::video`` block, in the order written.

    Examples
    --------
    >>> video_sources(Block("video", options={"youtube": "eMlx5fFNoYc"}))[0][1]
    'https://www.youtube-nocookie.com/embed/eMlx5fFNoYc'
    """
    return [
        (site, VIDEO_SOURCES[site].embed.format(id=vid), VIDEO_SOURCES[site].page.format(id=vid))
        for site, vid in block.options.items()
    ]


BLOCK_KINDS = ("explorable", "exercise", "proof", "definition", "proposition", "lean", "video", "code")


@dataclass(frozen=True, eq=False)
class Block:
    """One piece of a section: Markdown text or a special block.

    Attributes
    ----------
    kind : str
        ``"markdown"`` or one of :data:`BLOCK_KINDS`.
    body : str
        Markdown text (or Lean source for ``lean``, Python for ``code``).
    args : tuple of str
        Positional words after the block name (e.g. the explorable's name,
        the exercise id, a title).
    options : dict
        ``key=value`` words after the block name.
    parts : dict
        For exercises: ``question``, ``options``, ``hint``, ``answer``.
    """

    kind: str
    body: str = ""
    args: tuple = ()
    options: dict = field(default_factory=dict)
    parts: dict = field(default_factory=dict)

    @property
    def title(self) -> str:
        return " ".join(self.args)


@dataclass(frozen=True)
class Section:
    """A section of the course: front matter plus its blocks."""

    id: str
    title: str
    order: int
    blocks: tuple
    path: Path

    def outline(self) -> list[tuple[int, str, str]]:
        """``(level, anchor, text)`` of every ``##`` (level 2) and ``###`` (level 3) heading, in order."""
        out = []
        for block in self.blocks:
            if block.kind == "markdown":
                for line in block.body.splitlines():
                    level = len(line) - len(line.lstrip("#"))
                    if level in (2, 3) and line[level : level + 1] == " ":
                        title = line[level + 1 :].strip()
                        out.append((level, anchor(self.id, title), title))
        return out

    def headings(self) -> list[tuple[str, str]]:
        """``(anchor, text)`` of every ``##`` heading, in order."""
        return [(a, title) for level, a, title in self.outline() if level == 2]

    def exercises(self) -> list[Block]:
        return [b for b in self.blocks if b.kind == "exercise"]


class ContentError(ValueError):
    """A content file does not follow the format (the message names file and line)."""


def anchor(section_id: str, heading: str) -> str:
    """A stable HTML id for a heading of a section."""
    slug = re.sub(r"[^\w]+", "-", heading, flags=re.UNICODE).strip("-").lower()
    return f"{section_id}--{slug}"


# --- parsing -------------------------------------------------------------------


def _markdown() -> MarkdownIt:
    """The text's Markdown: CommonMark with tables and ``$``/``$$`` math, no raw HTML. The one
    configuration of both the block scanner (:func:`_scanner`) and the renderer (:func:`_parser`)."""
    md = MarkdownIt("commonmark", {"html": False, "typographer": False}).enable("table")
    return md.use(dollarmath_plugin, allow_space=False, allow_digits=False, double_inline=True)


@lru_cache(maxsize=1)
def _scanner() -> MarkdownIt:
    """The text's parser (math and tables, so that nothing inside them is read as a block) with the
    front matter and the colon fences: it finds a section's blocks and their lines."""
    return _markdown().use(front_matter_plugin).use(colon_fence_plugin)


def parse_section(path: Path) -> Section:
    """Parse one content file: its YAML front matter, then markdown with ``:::KIND args`` blocks.

    The blocks are ``mdit-py-plugins``' colon fences at the top level of the text; the markdown between
    them is kept as written (each piece is rendered later).

    Raises
    ------
    ContentError
        On missing front matter fields, an unknown block, or a block that is
        never closed; the message names the file and the line.
    """
    raw = Path(path).read_text(encoding="utf-8")
    lines = raw.splitlines()
    tokens = _scanner().parse(raw)
    if not tokens or tokens[0].type != "front_matter":
        raise ContentError(f"{path}: missing front matter (--- ... ---) at line 1")
    meta = yaml.safe_load(tokens[0].content) or {}
    for key in ("id", "title", "order"):
        if key not in meta:
            raise ContentError(f"{path}: front matter lacks {key!r}")
    blocks: list[Block] = []
    text_from = tokens[0].map[1]

    def text_until(line: int) -> None:
        piece = "\n".join(lines[text_from:line])
        if piece.strip():
            blocks.append(Block("markdown", piece))

    for token in tokens[1:]:
        if token.type != "colon_fence" or token.level != 0:
            continue
        start, end = token.map
        kind, _, rest = token.info.strip().partition(" ")
        if kind not in BLOCK_KINDS:
            raise ContentError(f"{path}:{start + 1}: unknown block ':::{kind}'")
        closed = end - 1 > start and re.fullmatch(r"\s*:{3,}\s*", lines[end - 1] if end - 1 < len(lines) else "")
        if not closed:
            raise ContentError(f"{path}:{start + 1}: block ':::{kind}' is never closed")
        text_until(start)
        text_from = end
        blocks.append(_make_block(kind, rest.strip(), token.content.removesuffix("\n"), f"{path}:{start + 1}"))
    text_until(len(lines))
    return Section(str(meta["id"]), str(meta["title"]), int(meta["order"]), tuple(blocks), Path(path))


def _make_block(kind: str, rest: str, inner: str, where: str) -> Block:
    args, options = [], {}
    for word in rest.split():
        if "=" in word and kind in ("exercise", "video"):
            k, v = word.split("=", 1)
            options[k] = v
        else:
            args.append(word)
    parts = {}
    if kind == "exercise":
        parts = _split_parts(inner)
        kind_opt = options.get("kind")
        if kind_opt not in ("number", "choice", "text"):
            raise ContentError(f"{where}: exercise needs kind=number|choice|text, got {kind_opt!r}")
        if kind_opt in ("number", "choice") and "answer" not in options:
            raise ContentError(f"{where}: exercise of kind {kind_opt} needs answer=")
        if kind_opt == "number":
            float(options["answer"])
    if kind == "video":
        _check_video(options, where)
    return Block(kind, inner, tuple(args), options, parts)


def _check_video(options: dict, where: str) -> None:
    if not options:
        raise ContentError(
            f"{where}: video needs at least one source, e.g. youtube=ID; known sites: {', '.join(VIDEO_SOURCES)}"
        )
    for site, vid in options.items():
        if site not in VIDEO_SOURCES:
            raise ContentError(f"{where}: unknown video site {site!r} (known: {', '.join(VIDEO_SOURCES)})")
        if not re.fullmatch(VIDEO_SOURCES[site].id_pattern, vid):
            raise ContentError(
                f"{where}: {site}={vid!r} is not a {site} video id (expected {VIDEO_SOURCES[site].id_pattern})"
            )


def _split_parts(inner: str) -> dict:
    parts = {"question": []}
    current = "question"
    for line in inner.splitlines():
        # (hint-B: the hint for a choice of option B; hint-33.55: for the typed answer 33.55)
        m = re.match(r"^---(\w+(?:-(?:[A-Z]|-?[0-9]+(?:\.[0-9]+)?))?)\s*$", line)
        if m:
            current = m.group(1)
            parts[current] = []
        else:
            parts[current].append(line)
    return {k: "\n".join(v).strip() for k, v in parts.items()}


def content_languages() -> list[str]:
    """The languages the course text exists in: the folders under :data:`CONTENT_DIR`."""
    return sorted(p.name for p in CONTENT_DIR.iterdir() if p.is_dir() and any(p.glob("*.md")))


def load_sections(language: str = "zh", directory: Path | None = None) -> list[Section]:
    """The sections of the course text in ``language``, by ``order``.

    Parameters
    ----------
    language : str
        ``"zh"`` (default) or ``"en"``: reads ``content/<language>/*.md``.
    directory : path, optional
        Read this folder instead (then ``language`` is not used).

    Raises
    ------
    ValueError
        If ``language`` is not one the text exists in (the message names it
        and the known ones).
    ContentError
        If the folder holds no section file, or a file does not follow the format.
    """
    if directory is None:
        if not isinstance(language, str) or not (CONTENT_DIR / language).is_dir():
            raise ValueError(f"language must be one of {content_languages()}, got {language!r}")
        directory = CONTENT_DIR / language
    directory = Path(directory)
    files = sorted(directory.glob("*.md"))
    if not files:
        raise ContentError(f"no section files (*.md) in {directory}")
    return sorted((parse_section(f) for f in files), key=lambda s: s.order)


# --- Markdown and math to HTML ----------------------------------------------------


def _math_inline(content: str) -> str:
    return tex_to_mathml(content.strip(), display=False)


def _math_block(content: str) -> str:
    return tex_to_mathml(content.strip(), display=True)


@lru_cache(maxsize=4096)
def tex_to_mathml(tex: str, display: bool = False) -> str:
    """Convert a TeX formula to MathML, which browsers lay out natively.

    Converted on the server with ``latex2mathml`` (cached: the course text is
    the same for every session), so a page needs no math script and no
    typesetting time in the browser.

    Parameters
    ----------
    tex : str
        The formula, without ``$`` delimiters.
    display : bool
        Display style (a formula on its own line) instead of inline.

    Raises
    ------
    ContentError
        If the formula cannot be converted; the message quotes it.

    Examples
    --------
    >>> tex_to_mathml("a_j").startswith("<math")
    True
    """
    try:
        out = _latex2mathml(tex, display="block" if display else "inline")
    except Exception as exc:  # noqa: BLE001 - any converter failure names the formula
        raise ContentError(f"cannot convert the formula {tex!r} to MathML: {exc}") from exc
    return _signs(_slim(out))


#: A minus or plus sign right after an operator, an opening fence, a comma or the start of a row: a sign, not
#: an operation (``M_ij = −∞``, ``(1, −2)``). Not after a closing fence (``(a) − b`` is an operation).
_SIGN = re.compile(r"(<mo(?: [^>]*)?>[^<)\]}|⟩∞!′]*</mo>|<mrow>|<mtd>|<math[^>]*>)<mo>([−+])</mo>")


def _signs(mathml: str) -> str:
    """``mathml`` with each sign that a browser would space as an operation marked ``form="prefix"``: MathML
    Core takes an ``<mo>`` between two others as infix (spaced on both sides), so ``=−∞`` read "= − ∞".
    ∞, which latex2mathml writes as an operator that no dictionary knows (spaced 0.2777em on each side, "− ∞"),
    is an identifier. Source: MathML Core, "Dictionary-based attributes" (the form of an operator, the default
    spacing of an operator not in the dictionary)."""
    return _SIGN.sub(lambda m: f'{m.group(1)}<mo form="prefix">{m.group(2)}</mo>', mathml).replace(
        "<mo>∞</mo>", "<mi>∞</mi>"
    )


#: A character reference in latex2mathml's output (``&#x02211;``).
_CHAR_REF = re.compile(r"&#x([0-9A-Fa-f]+);")
_MROW = re.compile(r"<mrow>|</mrow>")


def _slim(mathml: str) -> str:
    """``mathml`` as an HTML page needs it, the same formula in fewer bytes: no ``xmlns`` (the HTML parser
    puts ``<math>`` in MathML's namespace), no ``display="inline"`` (the default), each character reference
    as its character (``∑``; the five that mark up text stay references), and no ``<mrow>`` around the
    whole formula (``<math>`` is one row itself). Source: MathML Core, "The top-level math element"."""
    out = mathml.replace(' xmlns="http://www.w3.org/1998/Math/MathML"', "").replace(' display="inline"', "")
    out = _CHAR_REF.sub(lambda m: m.group(0) if chr(int(m.group(1), 16)) in "<>&\"'" else chr(int(m.group(1), 16)), out)
    open_end = out.find(">") + 1
    close = out.rfind("</math>")
    inner = out[open_end:close]
    if inner.startswith("<mrow>") and inner.endswith("</mrow>"):
        depth = 0
        for tag in _MROW.finditer(inner):
            depth += 1 if tag.group(0) == "<mrow>" else -1
            if depth == 0:  # the first row closes here: it wraps the whole formula only if this is the end
                if tag.end() == len(inner):
                    out = out[:open_end] + inner[len("<mrow>") : -len("</mrow>")] + out[close:]
                break
    return out


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    md = _markdown()
    md.add_render_rule("math_inline", lambda self, tokens, idx, options, env: _math_inline(tokens[idx].content))
    md.add_render_rule("math_inline_double", lambda self, tokens, idx, options, env: _math_block(tokens[idx].content))
    md.add_render_rule(
        "math_block",
        lambda self, tokens, idx, options, env: (
            "<div class='ae-math-display'>" + _math_block(tokens[idx].content) + "</div>\n"
        ),
    )
    return md


#: BCP 47 tags of the page languages, as on ``<html lang>`` (the table of :mod:`attention_explorable.strings`).
LANG_TAGS = HTML_LANG
_CJK = "[\u2e80-\u2fdf\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]"
#: A run of the other language's script in a page's text: Chinese on an English
#: page; on a Chinese page, Latin words (with the digits and punctuation between them).
_OTHER_RUN = {
    "en": re.compile(f"{_CJK}+(?:[ \u00b7]*{_CJK}+)*"),
    "zh": re.compile(r"[0-9]*[A-Za-z][A-Za-z0-9'’\-]*(?:[ ,.:;!?&()+\-–/]*[A-Za-z0-9][A-Za-z0-9'’\-]*)*"),
}
#: Elements whose text is left alone: formulas, code and scripts.
_KEEP = ("math", "code", "pre", "script", "style")
_TAG = re.compile(r"(<[^>]+>)")
_ENTITY = re.compile(r"(&#?\w+;)")


def mark_languages(source: str, language: str) -> str:
    """``source`` (HTML of a page in ``language``) with each run of the other language in a ``<span lang>``.

    WCAG 3.1.2 (language of parts): a screen reader then reads a Chinese term on
    an English page (``<span lang="zh-Hans">``), or an English one on a Chinese
    page (``<span lang="en">``, for runs of two or more Latin letters), in its
    own language. Tags, attributes, entities and the text inside ``math``,
    ``code``, ``pre``, ``script`` and ``style`` are left as they are.

    Parameters
    ----------
    source : str
        HTML, e.g. from :func:`markdown_to_html`.
    language : {"zh", "en"}
        The page's language.

    Raises
    ------
    KeyError
        If ``language`` is unknown.

    Examples
    --------
    >>> mark_languages("<td>查询</td><td>query</td>", "en")
    '<td><span lang="zh-Hans">查询</span></td><td>query</td>'
    >>> mark_languages("<p>注意力（attention）与 <code>np.exp</code></p>", "zh")
    '<p>注意力（<span lang="en">attention</span>）与 <code>np.exp</code></p>'
    """
    other = OTHER_LANGUAGE[language]
    run, tag = _OTHER_RUN[language], LANG_TAGS[other]

    def wrap(m: re.Match) -> str:
        if language == "en" or sum(c.isalpha() for c in m.group(0)) >= 2:
            return f'<span lang="{tag}">{m.group(0)}</span>'
        return m.group(0)

    return map_text(
        source,
        lambda text: "".join(
            piece if _ENTITY.fullmatch(piece) else run.sub(wrap, piece) for piece in _ENTITY.split(text)
        ),
    )


def map_text(source: str, change, keep: tuple[str, ...] = _KEEP) -> str:
    """``source`` (HTML) with ``change(text)`` in place of each run of text between its tags, except inside the
    elements ``keep`` names (by default formulas, code and scripts); tags are left as they are.

    >>> map_text("<p>ab<code>ab</code></p>", str.upper)
    '<p>AB<code>ab</code></p>'
    """
    out, inside = [], []
    for part in _TAG.split(source):
        if part.startswith("<"):
            name = re.match(r"</?\s*([A-Za-z0-9]+)", part)
            name = name.group(1).lower() if name else ""
            if name in keep and not part.endswith("/>"):
                if not part.startswith("</"):
                    inside.append(name)
                elif name in inside:
                    inside.remove(name)
            out.append(part)
        else:
            out.append(part if inside or not part else change(part))
    return "".join(out)


#: Chinese punctuation that must not begin a line: kept on the line of the formula it follows.
_CLOSING_PUNCTUATION = "，。、；：？！）》」』"
_INLINE_MATH_THEN_CLOSING = re.compile(
    r"(<math>(?:(?!</math>).)*</math>)([" + _CLOSING_PUNCTUATION + "]+)",
    re.S,  # (inline: no display="block")
)


def markdown_to_html(source: str, section_id: str = "", language: str | None = None) -> str:
    """Render Markdown with math (as MathML) to HTML.

    ``##``/``###`` headings get stable ids (see :func:`anchor`). Raw HTML in
    the source is escaped, not passed through. With ``language`` (the page's),
    runs of the other language are marked (:func:`mark_languages`). An inline
    formula and the Chinese punctuation right after it are kept on one line
    (``<span class='ae-nobreak'>``): a line does not begin with "，" or "。".

    Examples
    --------
    >>> markdown_to_html("权重 $a_j$ 之和为 $1$。").count("<math>")
    2
    >>> markdown_to_html("权重 $a_j$，和为 $1$。").count("<span class='ae-nobreak'><math>")
    2
    >>> markdown_to_html("It costs $5 and $10.")
    '<p>It costs $5 and $10.</p>\\n'
    """
    md = _parser()
    tokens = md.parse(source)
    for i, tok in enumerate(tokens):
        if tok.type == "heading_open" and tok.tag in ("h2", "h3"):
            title = tokens[i + 1].content
            tok.attrSet("id", anchor(section_id, title))
        elif tok.type == "table_open":  # a table that scrolls in its own box: reachable by keyboard
            tok.attrSet("tabindex", "0")
            _stack_on_a_phone(tokens, i)
    out = _INLINE_MATH_THEN_CLOSING.sub(
        r"<span class='ae-nobreak'>\1\2</span>", md.renderer.render(tokens, md.options, {})
    )
    return mark_languages(out, language) if language else out


#: A table of this many columns or more, headed by words, is stacked on a phone (PROSE_CSS, ``ae-stack``).
STACK_COLUMNS = 4

_TABLE_ROLES = {
    "table_open": "table",
    "thead_open": "rowgroup",
    "tbody_open": "rowgroup",
    "tr_open": "row",
    "th_open": "columnheader",
    "td_open": "cell",
}


def _stack_on_a_phone(tokens: list, start: int) -> None:
    """Mark the table opening at ``tokens[start]`` to be stacked on a phone, one row a block and one cell a
    line after its column's name (``data-label``), when it has :data:`STACK_COLUMNS` columns or more and a
    header of words (a table of numbers headed by formulas, which fits, stays a grid). Its elements get
    their table roles, which a screen reader would lose once they are blocks."""
    end = next(j for j in range(start, len(tokens)) if tokens[j].type == "table_close")
    heads = [tokens[j + 1] for j in range(start, end) if tokens[j].type == "th_open"]
    if len(heads) < STACK_COLUMNS or any(c.type == "math_inline" for h in heads for c in h.children or []):
        return
    tokens[start].attrSet("class", "ae-stack")
    column = 0
    for tok in tokens[start:end]:
        if tok.type in _TABLE_ROLES:
            tok.attrSet("role", _TABLE_ROLES[tok.type])
        if tok.type == "tr_open":
            column = 0
        elif tok.type == "td_open":
            tok.attrSet("data-label", heads[column].content if column < len(heads) else "")
            column += 1


#: The family name of the pages' math font (``web/fonts/math.woff2``, see :func:`math_font_face`).
MATH_FONT = "Attention Explorable Math"


@lru_cache(maxsize=1)
def math_font_base64() -> str:
    """The pages' math font as base64: Noto Sans Math (SIL OFL 1.1, ``web/fonts/``), WOFF2.

    Subset by ``scripts/build-math-font.py`` to the characters of the pages'
    formulas; it keeps the OpenType MATH table, so brackets stretch and radicals
    get their bar on every machine. About 22 KB (30 KB as base64).
    """
    import base64

    data = resources.files("attention_explorable").joinpath("web", "fonts", "math.woff2").read_bytes()
    return base64.b64encode(data).decode("ascii")


def math_font_face() -> str:
    """The CSS ``@font-face`` rule of :data:`MATH_FONT`, its font inside it (a ``data:`` URL).

    A document's rule (a shadow root's ``@font-face`` is not used by browsers):
    a student page carries it in its head; an embed adds the same font to its
    host document's ``document.fonts`` (``web/shadow.js``).

    >>> math_font_face().startswith('@font-face { font-family: "Attention Explorable Math"')
    True
    """
    return (
        f'@font-face {{ font-family: "{MATH_FONT}"; font-display: block; '
        f'src: url(data:font/woff2;base64,{math_font_base64()}) format("woff2"); }}'
    )


def math_characters(text: str) -> set[str]:
    """The characters (no white space) inside the ``<math>`` elements of ``text``: HTML, or a page's
    script holding its HTML as JSON (``\\u003c`` for ``<``). What the math font must cover.

    >>> sorted(math_characters("x <math><mi>α</mi><mo>+</mo></math> y"))
    ['+', 'α']
    """
    from html.parser import HTMLParser

    class _Parser(HTMLParser):
        depth = 0

        def handle_starttag(self, tag, attrs):
            self.depth += tag == "math"

        def handle_endtag(self, tag):
            self.depth -= tag == "math" and self.depth > 0

        def handle_data(self, data):
            if self.depth:
                found.update(c for c in data if not c.isspace())

    found: set[str] = set()
    _Parser().feed(text.replace("\\u003c", "<").replace("\\u003e", ">"))
    return found


#: Typography of the course text (applied inside each HTML pane's shadow root).
PROSE_CSS = """
:host { font-size: 16px; }
.ae-prose, .ae-prose p, .ae-prose li { line-height: 1.8; }
/* A line of text about 40 Chinese characters or 85 Latin ones long, however wide the page: easier to follow
   from one line to the next (the explorables and the tables keep the page's width). */
p, ul, ol, details.ae-proof { max-width: 42em; }
h2 { margin-top: 1.6em; border-bottom: 1px solid var(--ae-rule, #ddd); padding-bottom: 4px; }
/* The pages' own math font (OpenType MATH: stretchy brackets, radicals with their bar), whatever fonts
   the reader's machine has; a CJK page's generic math font has no MATH table. */
math { font-size: 1.05em; font-family: "Attention Explorable Math", math; }
/* A display formula is centred over the text's column (42em, as a paragraph), not the page's width. */
.ae-math-display { max-width: min(100%, 42em); overflow-x: auto; overflow-y: hidden; margin: 0.6em 0; }
/* A box that scrolls sideways (a wide formula, a wide table on a phone) shades the edge where more of it
   lies: the shades stay with the box (scroll), the covers that hide them at either end move with the
   content (local), so a shade shows only where something is cut off. */
.ae-math-display, table {
  background: linear-gradient(to right, var(--ae-background, #fff) 30%, transparent) left / 28px 100% no-repeat local,
    linear-gradient(to left, var(--ae-background, #fff) 30%, transparent) right / 28px 100% no-repeat local,
    radial-gradient(farthest-side at 0 50%, rgba(0, 0, 0, 0.3), transparent) left / 12px 100% no-repeat scroll,
    radial-gradient(farthest-side at 100% 50%, rgba(0, 0, 0, 0.3), transparent) right / 12px 100% no-repeat scroll; }
.ae-nobreak { white-space: nowrap; }
/* A wide formula scrolls inside its own box on a narrow screen. */
math[display="block"] { display: block math; margin: 0 auto; }
/* On a phone a display formula is set a little smaller (at most 4.1 % of the screen's width) so that the
   section's formulas fit whole from 320 px up; one still wider scrolls and is shaded at its edge. */
.ae-math-display math { font-size: min(1.05em, 4.1vw); }
.ae-box { border: 1px solid var(--ae-box-border, #c9c3e6); background: var(--ae-box, #f7f5ff); border-radius: 6px; padding: 4px 12px; }
details.ae-proof { border-left: 3px solid var(--ae-border, #999); padding-left: 10px; }
details.ae-proof summary { cursor: pointer; color: var(--ae-muted, #444); }
/* Code keeps its lines as written: a line wider than the screen scrolls inside its block (shaded at the
   edge where more of it lies, as a wide formula is), never wraps to look like code of another indentation. */
pre.ae-lean, pre.ae-code, pre.ae-output { padding: 10px; font-size: 14px; white-space: pre; overflow-x: auto;
  background: linear-gradient(to right, var(--ae-code, #f6f8fa) 30%, transparent) left / 28px 100% no-repeat local,
    linear-gradient(to left, var(--ae-code, #f6f8fa) 30%, transparent) right / 28px 100% no-repeat local,
    radial-gradient(farthest-side at 0 50%, rgba(0, 0, 0, 0.3), transparent) left / 12px 100% no-repeat scroll,
    radial-gradient(farthest-side at 100% 50%, rgba(0, 0, 0, 0.3), transparent) right / 12px 100% no-repeat scroll,
    var(--ae-code, #f6f8fa); }
/* What a code block prints: folded under it, set as the code is, with a rule at its left. */
details.ae-output { margin: -4px 0 4px; }
details.ae-output summary { cursor: pointer; color: var(--ae-muted, #444); font-size: 0.9em; }
pre.ae-output { margin: 4px 0; border-left: 3px solid var(--ae-border, #999); }
.ae-caption { color: var(--ae-muted, #555); font-size: 0.9em; }
.ae-video iframe { width: 100%; aspect-ratio: 16 / 9; border: 0; margin-top: 8px; }
.ae-video-choices { display: flex; flex-wrap: wrap; gap: 8px; }
.ae-video-load { font-size: 15px; min-height: 40px; padding: 6px 14px; }
.ae-video-load[aria-pressed="true"] { font-weight: 600; border-width: 2px; }
.ae-right { color: var(--ae-right, #1b7f3b); font-weight: 600; }
.ae-wrong { color: var(--ae-wrong, #b35c00); }
.ae-error { color: var(--ae-error, #b00020); font-weight: 600; }
/* A wide table scrolls inside its own box, not the page. */
table { border-collapse: collapse; display: block; max-width: 100%; overflow-x: auto; }
td, th { border: 1px solid var(--ae-rule, #ddd); padding: 2px 6px; }
/* On a phone a table of words with four columns or more (the glossary, the cost of a layer) is stacked:
   a row a block, its first cell as its title, each other cell a line after its column's name
   (content._stack_on_a_phone); nothing scrolls sideways. */
@media (max-width: 600px) {
  table.ae-stack, table.ae-stack tbody, table.ae-stack tr, table.ae-stack td { display: block; }
  table.ae-stack { overflow: visible; background: none; }
  table.ae-stack thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); }
  table.ae-stack tr { border-top: 1px solid var(--ae-rule, #ddd); padding: 6px 0; }
  table.ae-stack td { border: 0; padding: 1px 0; }
  table.ae-stack td:first-child { font-weight: 600; }
  table.ae-stack td:empty { display: none; }
  table.ae-stack td:not(:first-child)::before { content: attr(data-label) ": "; color: var(--ae-muted, #555); }
  table.ae-stack td:lang(zh):not(:first-child)::before { content: attr(data-label) "："; }
}
/* A Chinese term in a cell (the glossary) is not broken between its characters on a narrow screen. */
td:lang(zh), th:lang(zh), td [lang|="zh"], th [lang|="zh"] { word-break: keep-all; }
/* The keyboard sees where it is; a link of the contents is a target of at least 24 px. */
a:focus-visible, table:focus-visible, summary:focus-visible, button:focus-visible {
  outline: 3px solid var(--ae-focus, #1a5fb4); outline-offset: 2px; }
/* (An inline flex box: its baseline is its first line's, so a long entry's bullet stays by its first line.) */
.ae-toc a { display: inline-flex; min-height: 24px; }
/* Under a finger (a phone, a tablet) the contents' entries and the video's links are taller targets. */
@media (pointer: coarse) {
  .ae-toc a { min-height: 36px; align-items: center; }
  .ae-video .ae-caption a { display: inline-flex; align-items: center; min-height: 36px; padding: 0 4px; }
}
/* Titles that fit a phone: smaller on a narrow screen, at most 2em. */
h1 { font-size: clamp(24px, 7vw, 2em); line-height: 1.25; }
"""


def math_html(html_text: str, **kw):
    """A Panel HTML pane for rendered course text (MathML formulas, prose typography)."""
    import panel as pn

    kw.setdefault("sizing_mode", "stretch_width")
    kw.setdefault("stylesheets", [PROSE_CSS])
    return pn.pane.HTML(html_text, **kw)


def inline_html(source: str) -> str:
    """Render one line of Markdown with math as inline HTML (no ``<p>`` wrapper).

    Examples
    --------
    >>> inline_html("weights sum to $1$").startswith("weights sum to <math>")
    True
    """
    return _parser().renderInline(source)
