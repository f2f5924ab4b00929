"""The student page: a Panel layout written out once as plain HTML, its explorables as modules.

A live Panel component (a notebook, ``panel serve``, the instructor's page)
is drawn by Bokeh. The page a student opens (``export``, ``serve``, an
author's tag) is the same layout written out once as the browser's own
elements (:class:`NativePage`): its columns and rows as ``<div>``, its text
as the HTML it holds, each explorable as an element its module renders
into (``data-ae-render``, its state as JSON beside it: the anywidget
front-end form, rendered by the page's small host ``web/host.js``), and each
page script (the language switch, the frame, the video buttons) as an
element ``web/host.js`` runs. A part it cannot write (a Bokeh model, a
widget) is an error naming it: nothing is left out in silence.

References: docs/architecture.md, "The student page".
"""

from __future__ import annotations

import html
import json
import re
import secrets
from importlib import resources

import panel as pn
import tinycss2
from bokeh import models as bm
from bokeh.document import Document
from panel.io.state import set_curdoc

from . import ui
from .content import MATH_FONT, math_font_base64, math_font_face
from .explorables.base import ScriptedPane

__all__ = [
    "CSS",
    "NativePage",
    "content_security_policy",
    "element_script",
    "embed_data",
    "embed_script",
    "page_script",
    "script_json",
    "student_page",
    "textbook_script",
    "TEXTBOOK_SCRIPT",
]


#: The rules of a student page's own layout (an explorable's module brings its own, web/explorable.css).
CSS = """
[hidden] { display: none !important; }
/* The page's text comes in few sizes: 15px (13px small, the headings' own), one family (ui.FONT_FAMILY).
   Each size and weight of a font is a lookup the browser makes before its first paint (a few ms each on
   a cold page: benchmarks/RESULTS.md), so a control keeps the text's font rather than the browser's. */
input, button, select, textarea { font: inherit; }
.ae-n-flex, .ae-n-col, .ae-n-row { display: flex; min-width: 0; box-sizing: border-box; }
.ae-n-col { flex-direction: column; }
.ae-n-row { flex-direction: row; }
.ae-n-col > *, .ae-n-row > * { min-width: 0; }
.ae-n-html { font-size: 15px; line-height: 1.42857; }
.ae-n-sr { position: absolute !important; width: 1px !important; height: 1px !important; overflow: hidden !important;
  clip-path: inset(50%); white-space: nowrap; margin: 0 !important; padding: 0 !important; }
button:focus-visible, input:focus-visible, a:focus-visible { outline: 3px solid var(--ae-focus); outline-offset: 2px; }
"""


#: A part of the modules' states (a JSON object) written once in the page's table when two or more share it
#: and it is at least this long (UTF-8 bytes): below that a reference saves too little to be worth reading.
SHARED_MIN_BYTES = 100

_HOST = re.compile(r":host(\(([^)]*)\))?")


def _scoped(css: str, scope: str) -> str:
    """``css`` (a model's stylesheet, written for its shadow root) with its rules applied under ``.scope``.

    Parsed by tinycss2 (comments dropped; selectors split at their top-level commas only); a rule inside
    ``@media``, ``@supports`` or ``@container`` is scoped in place, and the at-rule kept around it.
    ``:root`` selectors and Bokeh's own (``.bk-``, ``noUi``) are left out: a student page has no Bokeh.

    Raises
    ------
    ValueError
        For an at-rule it cannot scope (``@import``, ``@font-face``, ...) or a parse error, named: a
        rule a page would drop is never dropped in silence.
    """
    rules = tinycss2.parse_stylesheet(css, skip_comments=True, skip_whitespace=True)
    return "\n".join(filter(None, (_scoped_rule(rule, scope) for rule in rules)))


def _scoped_rule(rule, scope: str) -> str:
    if rule.type == "qualified-rule":
        parts = []
        for tokens in _split_commas(rule.prelude):
            sel = tinycss2.serialize(tokens).strip()
            if not sel or sel.startswith(":root") or ".bk-" in sel or "noUi" in sel:
                continue
            if ":host" in sel:
                parts.append(_HOST.sub(lambda m: f".{scope}{m.group(2) or ''}", sel))
            else:
                parts.append(f".{scope} {sel}")
        return f"{', '.join(parts)} {{{tinycss2.serialize(rule.content)}}}" if parts else ""
    if rule.type == "at-rule" and rule.lower_at_keyword in _NESTING_AT_RULES and rule.content is not None:
        inner = tinycss2.parse_rule_list(rule.content, skip_comments=True, skip_whitespace=True)
        body = "\n".join(filter(None, (_scoped_rule(r, scope) for r in inner)))
        return f"@{rule.at_keyword} {tinycss2.serialize(rule.prelude).strip()} {{\n{body}\n}}" if body else ""
    if rule.type == "error":
        raise ValueError(f"a stylesheet of the page does not parse: {rule.message}")
    raise ValueError(f"a pane's stylesheet holds @{getattr(rule, 'at_keyword', rule.type)}, which a page cannot scope")


#: The at-rules whose rules :func:`_scoped` scopes in place.
_NESTING_AT_RULES = ("media", "supports", "container")


def _split_commas(tokens) -> list[list]:
    """A selector list's tokens split at its top-level commas (a comma inside ``:is(...)`` stays)."""
    out = [[]]
    for token in tokens:
        if token.type == "literal" and token.value == ",":
            out.append([])
        else:
            out[-1].append(token)
    return out


class NativePage:
    """One Panel layout written out as a student page's elements.

    Parameters
    ----------
    build : callable
        Returns the component: a Panel layout, pane or Viewer, holding text (HTML and Markdown panes),
        explorable modules (``modules.ModuleWidget``) and page scripts (``ScriptedPane``), in columns
        and rows. It is called once, with a fresh document current.

    Raises
    ------
    TypeError
        For a part a student page cannot hold (a Bokeh model, a widget, any other pane), named.
    """

    def __init__(self, build):
        with set_curdoc(Document()):
            self.component = build()
        self._sheets: dict[str, str] = {}
        #: The explorables written as one module that the page holds, by name (``web/dist/page/<name>.js``).
        self.modules: list[str] = []
        self.classroom: str | None = None  # the language of the class, on a page a class may join
        #: The page scripts its ScriptedPanes run, by name (``web/dist/page/<name>.js``, run by ``web/start.js``).
        self.scripts: list[str] = []
        self._states: list[tuple[dict, dict]] = []  # each module's state and link spec, in the page's order
        self._mark = f"ae-state-{secrets.token_hex(8)}-"  # where each goes, until written (no text has it)
        self.body = self._with_states(self._layout(self.component))

    def css(self) -> str:
        """The panes' own stylesheets, each once, scoped to the elements that carry them."""
        return "\n".join(_scoped(css, scope) for css, scope in self._sheets.items())

    def _module_html(self, widget) -> str:
        """An explorable written as one module (``modules.py``): an element ``web/host.js`` renders it
        into, its state as JSON beside it; the module's script goes with the page (:attr:`modules`)."""
        name = widget.ae_module
        if name not in self.modules:
            self.modules.append(name)
        from .explorables import MODULES

        if name in MODULES and MODULES[name].classroom:  # a class may join it: the page carries the class
            self.classroom = widget.language
        # Written once the whole page is laid out (:meth:`_with_states`): what its states share goes in once.
        self._states.append((widget.ae_module_state(), widget.ae_module_link()))
        classes = html.escape(" ".join(["ae-module", *(getattr(widget, "css_classes", None) or [])]))
        return (
            f"<div class='{classes}' data-ae-render='{html.escape(name)}'>"
            f"<script type='application/json'>{self._mark}{2 * len(self._states) - 2}.</script>"
            f"<script type='application/json' data-ae-link>{self._mark}{2 * len(self._states) - 1}.</script></div>"
        )

    def _with_states(self, body: str) -> str:
        """``body`` with its modules' states and link specs written in, and before them, when two or more
        share a part (an exercise's interface strings, the link messages: an object of
        :data:`SHARED_MIN_BYTES` or more, written alike in two places or more), the page's table of those
        parts (``<script type="application/json" id="ae-shared">``, key -> part): each place then holds
        ``{"$shared": key}``, which ``web/host.js`` (``sharedParts``) puts back before a module sees it."""
        documents = [part for pair in self._states for part in pair]
        seen: dict[str, int] = {}

        def count(value) -> None:
            for item in value.values() if isinstance(value, dict) else ():
                if isinstance(item, dict):
                    text = json.dumps(item, ensure_ascii=False, sort_keys=True)
                    if len(text.encode()) >= SHARED_MIN_BYTES:
                        seen[text] = seen.get(text, 0) + 1
                    count(item)

        for document in documents:
            count(document)
        keys = {text: f"s{i}" for i, text in enumerate(t for t, n in seen.items() if n > 1)}

        def shared(value):
            if not isinstance(value, dict):
                return value
            out = {}
            for name, item in value.items():
                text = json.dumps(item, ensure_ascii=False, sort_keys=True) if isinstance(item, dict) else None
                out[name] = {"$shared": keys[text]} if text in keys else shared(item)
            return out

        written = [json.dumps(shared(d), ensure_ascii=False).replace("</", "<\\/") for d in documents]
        body = re.sub(f"{self._mark}(\\d+)\\.", lambda m: written[int(m.group(1))], body)
        if not keys:
            return body
        table = json.dumps({key: json.loads(text) for text, key in keys.items()}, ensure_ascii=False)
        table = table.replace("</", "<\\/")
        return f"<script type='application/json' id='ae-shared'>{table}</script>{body}"

    def _with_sheets(self, classes: str, component) -> str:
        """``classes`` (escaped) and the scope class of each of ``component``'s own stylesheets (each written
        once, in :attr:`css`): a pane's look comes with it, never dropped."""
        sheets = [s for s in component.stylesheets if isinstance(s, str) and s != ui.CSS]
        scopes = (self._sheets.setdefault(s, f"ae-css-{len(self._sheets) + 1}") for s in sheets)
        return " ".join(filter(None, [classes, *scopes]))

    def _layout(self, component) -> str:
        if isinstance(component, pn.viewable.Viewer):
            return self._layout(component.__panel__())
        if component is None or (isinstance(component, pn.pane.Str) and component.object is None):
            return ""  # a part a page has not (a live app's connection notice)
        if callable(getattr(component, "ae_module_state", None)):
            return self._module_html(component)
        hidden = "" if getattr(component, "visible", True) else " hidden"
        styles = "".join(f"{k}:{v};" for k, v in (getattr(component, "styles", None) or {}).items())
        classes = html.escape(" ".join(getattr(component, "css_classes", None) or []))
        if isinstance(component, pn.FlexBox):
            wrap = f"flex-wrap:{component.flex_wrap};" if component.flex_wrap else ""
            direction = "column" if component.flex_direction in ("column", "column-reverse") else "row"
            inner = "".join(self._layout(o) for o in component.objects)
            return (
                f"<div class='ae-n-flex {classes}' style='flex-direction:{direction};{wrap}{html.escape(styles)}'"
                f"{hidden}>{inner}</div>"
            )
        if isinstance(component, (pn.Column, pn.Row)):
            kind = "ae-n-col" if isinstance(component, pn.Column) else "ae-n-row"
            # (width: a column centred by its margins is no wider than its parent)
            width = f"width:100%;max-width:{component.max_width}px;" if component.max_width else ""
            inner = "".join(self._layout(o) for o in component.objects)
            return f"<div class='{kind} {classes}' style='{width}{html.escape(styles)}'{hidden}>{inner}</div>"
        if isinstance(component, ScriptedPane):
            # A page script run by the page itself (web/start.js), its settings the JSON inside it.
            if component.script not in self.scripts:
                self.scripts.append(component.script)
            data = json.dumps(component.settings, ensure_ascii=False).replace("</", "<\\/")
            return (
                f"<div class='ae-n-html {self._with_sheets(classes, component)}' "
                f"data-ae-script='{html.escape(component.script)}'{hidden}>"
                f"<script type='application/json'>{data}</script>{component.object or ''}</div>"
            )
        if isinstance(component, pn.pane.HTML) and not isinstance(component, pn.pane.Str):
            if not component.object:
                return ""
            cls = self._with_sheets(classes, component)
            margin = component.margin
            values = [margin] if isinstance(margin, (int, float)) else list(margin or [])
            margin_css = ("margin:" + " ".join(f"{v}px" for v in values) + ";") if values else ""
            return (
                f"<div class='ae-n-html {cls}' style='{margin_css}{html.escape(styles)}'{hidden}>"
                f"{component.object}</div>"
            )
        if isinstance(component, pn.layout.ListLike):
            return "".join(self._layout(o) for o in component.objects)
        what = type(component.object if isinstance(component, pn.pane.Bokeh) else component).__name__
        kind = "a Bokeh model" if isinstance(component, (bm.Model, pn.pane.Bokeh)) else "a part"
        raise TypeError(
            f"a student page holds text, explorable modules and page scripts in columns and rows; "
            f"it cannot hold {kind} of type {what}"
        )


def module_scripts(names) -> list[str]:
    """The page scripts that bring the package's modules ``names`` (page script names; an explorable
    registered from outside the package comes as text instead, ``modules.outside_modules``): each its own,
    except that several explorables written as one module come in one script, ``modules`` (their shared
    parts once)."""
    from .explorables import MODULES, TEXT_MODULES

    names = [n for n in dict.fromkeys(names) if n not in MODULES or MODULES[n].bundle is None]
    one = {*MODULES, *TEXT_MODULES}
    written = [n for n in names if n in one]
    if len(written) < 2:
        return names
    return [n for n in names if n not in one] + ["modules"]


def page_script(name: str) -> str:
    """The student page's script ``web/dist/page/<name>.js``: ``start`` (``web/start.js``, which starts
    the page), ``host`` (``web/host.js``), or a module, which adds itself to ``window.aeModules`` by its name.

    Raises
    ------
    FileNotFoundError
        If the package has no such script (``npm run build`` makes them).
    """
    return resources.files("attention_explorable").joinpath("web", "dist", "page", f"{name}.js").read_text("utf-8")


def script_json(value: dict) -> str:
    """``value`` (a JSON object) as JSON that is safe inside a script element.

    Every ``<`` is written ``\\u003c``, so no ``</script`` and no ``<!--`` can end
    or change the element it sits in; ``>`` and ``&`` need nothing in a script
    element's text and are written as they are. Source: WHATWG HTML, "Restrictions
    for contents of script elements".

    Raises
    ------
    ValueError
        For a float JSON cannot hold (nan, ±inf).

    >>> print(script_json({"text": "</script><!-- a & b > c"}))
    {"text":"\\u003c/script>\\u003c!-- a & b > c"}
    """
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False).replace("<", "\\u003c")


#: The page's own rules, before the models' (the page-wide text; the readouts' rules are ui.CSS).
_PAGE_CSS = (
    ui.theme_css(":root")
    + """
html, body { box-sizing: border-box; margin: 0; padding: 0; }
/* An exercise is as wide as the text's column it belongs to (a paragraph's 42em of 16 px). */
[data-ae-render="exercise"] { max-width: 42rem; }
body { font-size: 15px; line-height: 1.42857;
  color: var(--ae-text); background: var(--ae-background); color-scheme: var(--ae-scheme); }
main.ae-student-page > .ae-n-col { margin: 0 auto; }
/* The textbook: a part away from the screen is laid out only as it nears it (its size a guess until then,
   then the size it had), so that the first paint lays out the first screen, not the whole text: each
   explorable and exercise, and each block of the text between them (a paragraph, a heading, a formula).
   Only where the browser anchors its scrolling: a guess corrected above the screen would otherwise move
   the text under the reader (WebKit: 2,400 px over twelve steps up from #sec-3-8, a tap landing 74 px
   off), so there every part is laid out from the start. */
@supports (overflow-anchor: auto) {
  .ae-section > :not(.ae-prose), .ae-section > .ae-prose > * { content-visibility: auto; }
  .ae-section > :not(.ae-prose) { contain-intrinsic-size: auto 600px; }
  .ae-section > .ae-prose > * { contain-intrinsic-size: auto 90px; }
}
"""
    + ui.LANGUAGE_FONTS_CSS
)


def _page_parts(build, classroom: bool = True) -> tuple[NativePage, list[str], dict[str, str], str]:
    """The page of ``build()``, its scripts (its page scripts, its modules, their host), the modules of
    explorables registered from outside the package by name (as text: ``modules.outside_modules``), its CSS.
    With ``classroom``, a page holding an explorable a class joins (the steps) carries the class's script
    and config (``web/classroom.js``); an author's embed has no class."""
    from .modules import outside_modules

    page = NativePage(build)
    modules = outside_modules(page.modules)
    scripts = [page_script(name) for name in sorted(page.scripts)]
    if page.modules or page.scripts:  # the explorables written as one module, and their host (web/host.js)
        scripts += [page_script(name) for name in module_scripts(page.modules)] + [page_script("host")]
    if classroom and page.classroom:
        scripts.insert(-1, page_script("classroom"))
        page.body += class_config_script(page.classroom)
    return page, scripts, modules, "\n".join([_shared_css(), page.css()])


def class_config_script(language: str) -> str:
    """The class's config (``explorables.class_panel.class_config``) as a page holds it, for
    ``web/classroom.js``: ``<script type="application/json" id="ae-class-config">``."""
    from .explorables.class_panel import class_config

    data = json.dumps(class_config(language), ensure_ascii=False).replace("</", "<\\/")
    return f'<script type="application/json" id="ae-class-config">{data}</script>'


def _shared_css() -> str:
    """The rules every student page and embed holds: the readouts' (``ui.CSS``) and the controls' and
    plots' (:data:`CSS`); a page adds its models' own (``NativePage.css``)."""
    readouts = re.sub(r":root \{[^}]*\}\n?", "", ui.CSS)  # (BokehJS's variables: no BokehJS here)
    return "\n".join([readouts, CSS])


#: An embedded explorable's own rules, inside its shadow root (the host page's rules stay outside it).
#: Its background is transparent: the author's page shows through (its theme, light or dark, follows what
#: shows behind it: web/theme.js), unless the author asked for a theme (``theme="light"``), which then paints
#: its own background (light text never stands on a light page); an author's
#: ``attention-explorable { --ae-background: #fff; }`` wins, and so does any colour set on the element.
_EMBED_CSS = (
    ui.theme_css(":host")
    + """
:host(:not([theme=light]):not([theme=dark])) { --ae-background: transparent; }
:host { display: block; font-family: FONT; font-size: 15px;
  line-height: 1.42857; color: var(--ae-text); background: var(--ae-background); color-scheme: var(--ae-scheme);
  text-align: start; }
""".replace("FONT", ui.FONT_FAMILY)
    + f':host([lang|="en"]) {{ font-family: {ui.LATIN_FONT_FAMILY}; }}\n'
)


def _embed_parts(build, lang: str, name: str) -> tuple[NativePage, list[str], dict]:
    """The page of ``build()``, the names of the package's page scripts it runs, and its shell (see
    ``web/shadow.js``: its name, language, styles, elements and outside modules)."""
    page, _, modules, _ = _page_parts(build, classroom=False)
    scripts = sorted({*page.scripts, *(n for n in page.modules if n not in modules), "host"})
    shell = {
        "name": name,
        "lang": lang,
        "css": page.css(),  # its own rules; the element's script holds the rest (element_script)
        "html": f"<div class='ae-student-page'>{page.body}</div>",
        "modules": modules,
    }
    if "<math" in page.body:  # a shadow root's @font-face is not used: web/shadow.js adds it to the document
        shell["math_font"] = {"family": MATH_FONT, "woff2": math_font_base64()}
    return page, scripts, shell


def embed_script(name: str, lang: str) -> str:
    """The one tag of an author's page (``<script src="embed/NAME.js">``): an ``<attention-explorable>`` where it is.

    Where the tag stands, the script puts ``<attention-explorable name=NAME lang=LANG
    class="attention-explorable attention-explorable-NAME">`` (its ``data-deep-links`` and
    ``data-theme`` become the element's ``deep-links`` and ``theme``) and, unless the page already
    has it, loads the element's script (``attention-explorable.js``, one folder up from its own
    address), which finds the explorable's data beside it (``embed/NAME.LANG.js``): the element,
    its shadow root and its modules are those of :func:`element_script`, written once per export.

    Parameters
    ----------
    name : str
        The explorable's name (a key of the registry).
    lang : str
        The explorable's language as ``lang`` wants it (``"zh-Hans"``, ``"en"``): the export's,
        whatever the host page's language.

    Returns
    -------
    str
        JavaScript, a classic script of about 1 KB (it also runs from ``file://``).

    Raises
    ------
    ValueError
        If ``name`` is not a registered explorable, or ``lang`` is neither Chinese nor English.

    The script is ``web/tag.js``. Source: WHATWG HTML, ``document.currentScript`` (the tag running
    now) and custom elements.

    >>> embed_script("stpes", "en")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: name must be one of [...'steps'...], got 'stpes'
    """
    from .modules import MODULES

    if name not in MODULES:
        raise ValueError(f"name must be one of {sorted(MODULES)}, got {name!r}")
    if not re.fullmatch(r"(zh|en)(-[A-Za-z0-9]+)*", str(lang)):
        raise ValueError(f"lang must be a Chinese or English language tag ('zh-Hans', 'en'), got {lang!r}")
    config = script_json({"name": name, "lang": lang})
    return "\n".join(
        [
            f"// attention-explorable: {name} (made by `attention-explorable export`; docs/embedding.md)",
            page_script("tag"),
            f"window.aePlaceTag(document.currentScript, {config});",
            "",
        ]
    )


def embed_data(build, lang: str, name: str) -> tuple[str, list[str]]:
    """``build()`` as the data an ``<attention-explorable name=NAME>`` element mounts (``embed/NAME.LANG.js``).

    Parameters
    ----------
    build : callable
        Returns the component (called once, with a fresh document current).
    lang : str
        The explorable's language as ``lang`` wants it (``"zh-Hans"``, ``"en"``).
    name : str
        The explorable's name.

    Returns
    -------
    (str, list of str)
        A classic script that puts the explorable's shell (its own styles: the rules every
        explorable shares are in :func:`element_script`) in
        ``window.aeEmbeds["NAME.LANG"]`` (``LANG`` = ``zh`` or ``en``), and the
        names of the package's page scripts it needs (:func:`element_script` holds them).
    """
    page, scripts, shell = _embed_parts(build, lang, name)
    key = f"{name}.{'zh' if lang.startswith('zh') else 'en'}"
    data = f'{{"shell":{script_json(shell)}}}'
    return (
        "// attention-explorable data: " + key + " (made by `attention-explorable export`; docs/embedding.md)\n"
        f"(window.aeEmbeds = window.aeEmbeds || {{}})[{json.dumps(key)}] = {data};\n"
    ), scripts


def element_script(modules: list[str], names: list[str], lang: str) -> str:
    """The script that defines ``<attention-explorable>`` (``attention-explorable.js`` of an export).

    Parameters
    ----------
    modules : list of str
        The package's page scripts the explorables run (:func:`embed_data` says which).
    names : list of str
        The explorables the export holds (an element naming another says so in the page).
    lang : str
        ``"zh"`` or ``"en"``: the language of an element whose markup and page say none.

    Returns
    -------
    str
        JavaScript, a classic script (it also runs as a module); it finds each
        explorable's data from its own address, in ``embed/NAME.LANG.js``, and holds
        the styles every explorable's shadow root shares.
    """
    config = script_json({"names": list(names), "lang": lang, "css": _EMBED_CSS + _shared_css()})
    return "\n".join(
        [
            "// attention-explorable: the <attention-explorable> element (made by `attention-explorable export`; "
            "docs/embedding.md)",
            *[page_script(m) for m in module_scripts(sorted(set(modules)))],
            page_script("element"),
            f"window.aeDefineElement(Object.assign({{script: document.currentScript}}, {config}));",
            "",
        ]
    )


#: A script element the page runs (not a data block: a module's JSON state, an outside module's text).
_RUN_SCRIPT = re.compile(
    r"<script(?![^>]*\bsrc=)(?![^>]*\btype=[\"'](?:application/json|text/plain))[^>]*>(.*?)</script>", re.S
)


def content_security_policy(page: str) -> str:
    """The policy of student page ``page`` (its HTML): it runs its own inline scripts and nothing else
    but, on a page that loads a script file (the textbook's :data:`TEXTBOOK_SCRIPT`), script files of its
    own site too (``'self'``: served, any script the server sends; from ``file://``, a file of that disk).

    Each inline script the page runs is allowed by its SHA-256 (an injected
    script has another); ``blob:`` only where the page loads an outside
    module; styles inline; images and the math font as ``data:``; connections to its own host
    (the class socket); frames only the video players of
    :data:`attention_explorable.content.VIDEO_SOURCES`; no ``<base>``, no
    form. Source: the W3C's Content Security Policy Level 3.

    Returns
    -------
    str
        The policy, for a ``<meta http-equiv="Content-Security-Policy">``.
    """
    import base64
    import hashlib
    from urllib.parse import urlsplit

    from .content import VIDEO_SOURCES

    hashes = sorted(
        {
            "'sha256-" + base64.b64encode(hashlib.sha256(body.encode("utf-8")).digest()).decode() + "'"
            for body in _RUN_SCRIPT.findall(page)
        }
    )
    if "data-ae-module=" in page:
        hashes.append("blob:")
    if re.search(r"<script\b[^>]*\bsrc=", page):  # the textbook's script file, beside it (TEXTBOOK_SCRIPT)
        hashes.insert(0, "'self'")
    frames = sorted({"{0.scheme}://{0.netloc}".format(urlsplit(site.embed)) for site in VIDEO_SOURCES.values()})
    return "; ".join(
        [
            "default-src 'none'",
            "script-src " + " ".join(hashes),
            "style-src 'unsafe-inline'",
            "img-src data:",
            "font-src data:",
            "connect-src 'self'",
            "frame-src " + " ".join(frames),
            "base-uri 'none'",
            "form-action 'none'",
        ]
    )


#: The textbook's script file, beside it: its explorables' modules (one script, ``modules``), the class's
#: script and their host, then the mount of its first explorable (:func:`textbook_script`). The textbook
#: loads it where its first explorable stands rather than holding it, so that its own file stays small
#: and a reader's cache keeps the script from one page (and language) to the next.
TEXTBOOK_SCRIPT = "attention-textbook.js"
_TEXTBOOK_PARTS = ("modules", "classroom", "host")
_MOUNT_FIRST = "window.aeMountModules(window.aeModules, document, null, 1);"


def textbook_script() -> str:
    """The text of :data:`TEXTBOOK_SCRIPT` (the export writes it beside the textbook, ``serve`` answers it):
    a classic script that brings every explorable's module, the class's script and their host
    (``web/host.js``), then renders the first explorable of the page that ran it.

    Raises
    ------
    FileNotFoundError
        If a page script is missing (``npm run build`` makes them).
    """
    return "\n".join([*(page_script(name) for name in _TEXTBOOK_PARTS), _MOUNT_FIRST, ""])


def _first_module_early(body: str, scripts: list[str], names, script_href: str | None) -> tuple[str, list[str]]:
    """A long page's first explorable written as one module, live as soon as it is parsed: the modules'
    script and their host (``web/host.js``), taken out of the page's script, run right after that
    explorable's element, which they render (a reader's first key need not wait for the rest of the page
    to be parsed and come to life; the others are rendered with the rest of the page). With
    ``script_href`` (the textbook's :data:`TEXTBOOK_SCRIPT`, relative to the page) they are loaded from
    that file when they are the ones it holds; else they are written into the page."""
    moved = [page_script(name) for name in module_scripts(names)] + [page_script("host")]
    if page_script("classroom") in scripts:
        moved.insert(-1, page_script("classroom"))
    at = body.find("data-ae-render=")
    end = body.find("</script></div>", at)
    if at < 0 or end < 0 or not all(code in scripts for code in moved):
        return body, scripts
    end += len("</script></div>")
    if script_href is not None and moved == [page_script(name) for name in _TEXTBOOK_PARTS]:
        script = f'<script src="{html.escape(script_href)}"></script>'
    else:
        early = "".join(moved) + _MOUNT_FIRST
        script = "<script>" + early.replace("</script", "<\\/script") + "</script>"
    return body[:end] + script + body[end:], [code for code in scripts if code not in moved]


def student_page(
    build,
    title: str,
    lang: str,
    description: str = "",
    first_screen_static: bool = False,
    script_href: str | None = None,
) -> str:
    """``build()`` (a Panel component) as a student page: its elements, its modules' states and its scripts.

    Parameters
    ----------
    build : callable
        Returns the component (called once, with a fresh document current).
    title : str
        The page's ``<title>``.
    lang : str
        The page's language as ``<html lang>`` wants it (``"zh-Hans"``, ``"en"``).
    description : str
        The page's ``<meta name=description>``.
    first_screen_static : bool
        The page's first screen holds no explorable (the textbook): it is
        painted as it is parsed, and its script runs after; opened with a
        query (a linked state) it stays hidden until its script ran. Else the
        first paint waits for the script, plots and linked state drawn.
    script_href : str, optional
        With ``first_screen_static``: where the page finds :data:`TEXTBOOK_SCRIPT`
        (relative to it), which it then loads instead of holding its modules.

    Returns
    -------
    str
        One HTML file that asks nothing of any host but, with ``script_href``,
        :data:`TEXTBOOK_SCRIPT`: its styles and its scripts (``web/dist/page/``:
        its page scripts, the modules it runs, their host and the start) are
        inside it.
    """

    page, scripts, modules, css = _page_parts(build)
    body = page.body
    if first_screen_static and page.modules:
        body, scripts = _first_module_early(body, scripts, page.modules, script_href)
    if script_href is not None and f'<script src="{html.escape(script_href)}">' in body:
        # Said at the top of the page should the file not be beside it (web/start.js shows it then).
        from .strings import HTML_LANG, text

        language = next(code for code, tag in HTML_LANG.items() if tag == lang)
        file = f'<code lang="en" translate="no">{html.escape(TEXTBOOK_SCRIPT)}</code>'  # (a name, in any language)
        missing = html.escape(text("textbook_script_missing", language)).replace("{file}", file)
        body = f'<p class="ae-error ae-script-missing" role="alert" hidden>{missing}</p>\n' + body
    scripts = [*scripts, page_script("start")]
    template = ui.template("student.html")
    css = "\n".join([_PAGE_CSS, css] + ([math_font_face()] if "<math" in page.body else []))
    out = template.render(
        lang=lang,
        title=title,
        description=description,
        first_screen_static=first_screen_static,
        css=css,
        body=body,
        scripts=[code.replace("</script", "<\\/script") for code in scripts],
        modules={name: code.replace("</script", "<\\/script") for name, code in modules.items()},
    )
    # The policy goes first in the head, before any script: a script a link or a stored row slipped
    # into the page would not run.
    policy = html.escape(content_security_policy(out))
    return out.replace(
        '<meta charset="utf-8">',
        f'<meta charset="utf-8">\n  <meta http-equiv="Content-Security-Policy" content="{policy}">',
        1,
    )
