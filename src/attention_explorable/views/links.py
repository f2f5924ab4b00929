"""Deep links: an explorable's state read from the URL query (the oracle of ``web/links.js``).

A link names the explorable's own parameters, ``?step=3&temperature=0.05``;
on the textbook page, where several explorables share one address, each
reads its parameters behind its name and a dot, ``?steps.step=3&vector.query_x=2``
(the *prefix*). Reading a query never fails: a value outside the parameter's
bounds is clamped, a value that is not one (``temperature=hot``) is ignored,
and both are said in a notice; names that are not the explorable's (``lang``,
``room``, another explorable's) are left alone.

Explorables whose parameters depend on a starting situation (the steps of
section 3.7.5) have a *reset* parameter: a link first puts the explorable at
that parameter's start (``starts[value]``), then applies the other values.

The spec is JSON (it is also the JavaScript twin's configuration)::

    {"prefix": "steps.", "reset": "step", "starts": {"1": {...}, ...},
     "params": [{"name": "temperature", "kind": "number", "lo": 0.01, "hi": 10}, ...],
     "messages": {"clamped": "...{name}...{raw}...{lo}...{hi}...{value}", "junk": "...{name}...{raw}"},
     "attribute_messages": {...}}

``attribute_messages`` word the same notices for an ``<attention-explorable>``
element's attributes, which its script reads as a link (``web/shadow.js``).

Kinds: ``integer``, ``number`` (both with ``lo``/``hi``), ``boolean``
(``true``/``false``/``1``/``0``), ``choice`` (with ``choices``) and ``text``
(at most ``TEXT_LIMIT`` characters).
"""

from __future__ import annotations

import html
import math
from collections.abc import Iterable, Mapping
from urllib.parse import parse_qsl

from .numbers import echo, format_g, parse_number

__all__ = ["TEXT_LIMIT", "link_values", "read_link", "link_notice"]

#: The longest text value a link may carry (a typed prediction).
TEXT_LIMIT = 200
_TRUE, _FALSE = ("true", "1", "yes", "on"), ("false", "0", "no", "off")


def _pairs(query) -> list[tuple[str, str]]:
    """``query`` as (name, value) pairs: a query string (``"step=3&temperature=0.05"``, a leading ``?``
    allowed), a mapping of lists (Panel's session arguments) or pairs."""
    if isinstance(query, (str, bytes)):
        text = query.decode("utf-8", "replace") if isinstance(query, bytes) else query
        return parse_qsl(text.removeprefix("?"), keep_blank_values=True)
    if isinstance(query, Mapping):
        pairs = [(k, v) for k, vs in query.items() for v in (vs if isinstance(vs, (list, tuple)) else [vs])]
    else:
        pairs = list(query)
    return [
        (
            k.decode("utf-8", "replace") if isinstance(k, bytes) else str(k),
            v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v),
        )
        for k, v in pairs
    ]


def _read_one(p: dict, raw: str):
    """(value, clamped) of ``raw`` for parameter ``p``; value None when it is junk."""
    kind = p["kind"]
    if kind == "boolean":
        word = raw.strip().lower()
        return (True if word in _TRUE else False if word in _FALSE else None), False
    if kind == "choice":
        return (raw if raw in p["choices"] else None), False
    if kind == "text":
        return (raw if len(raw) <= TEXT_LIMIT else None), False
    try:
        value = parse_number(raw)
    except ValueError:
        return None, False
    if kind == "integer" and value != math.floor(value):
        return None, False
    clamped = min(max(value, p["lo"]), p["hi"])
    if kind == "integer":
        clamped = int(clamped)
    return clamped, clamped != value


def read_link(spec: dict, query) -> tuple[dict, list[str]]:
    """The parameters a link sets, and the notices about the values it could not take as they were.

    Parameters
    ----------
    spec : dict
        The explorable's link spec (see the module's docstring).
    query : str, Mapping[str, list[str | bytes]] or Iterable[tuple[str, str]]
        The URL's query: a query string (``"step=3&temperature=0.05"``),
        Panel's ``pn.state.session_args`` or (name, value) pairs. When a name
        repeats, its first value counts.

    Returns
    -------
    values : dict
        ``{parameter: value}`` for the parameters the link names, clamped
        into their bounds; junk values are left out.
    notices : list[str]
        One sentence per clamped or ignored value, in the spec's language,
        HTML-escaped.

    Examples
    --------
    >>> spec = {"prefix": "", "params": [{"name": "temperature", "kind": "number", "lo": 0.01, "hi": 10}],
    ...         "messages": {"clamped": "{name}={raw} → {value}", "junk": "{name}={raw} ignored"}}
    >>> read_link(spec, [("temperature", "0.05"), ("lang", "en")])
    ({'temperature': 0.05}, [])
    >>> read_link(spec, "?temperature=0.05&lang=en")
    ({'temperature': 0.05}, [])
    >>> read_link(spec, {"temperature": [b"50"]})
    ({'temperature': 10}, ['temperature=50 → 10'])
    """
    by_name = {spec.get("prefix", "") + p["name"]: p for p in spec["params"]}
    values: dict = {}
    notices: list[str] = []
    seen: set[str] = set()
    for key, raw in _pairs(query):
        p = by_name.get(key)
        if p is None or key in seen:
            continue
        seen.add(key)
        value, clamped = _read_one(p, raw)
        shown = html.escape(echo(raw))
        if value is None:
            notices.append(spec["messages"]["junk"].format(name=html.escape(key), raw=shown))
            continue
        if clamped:
            notices.append(
                spec["messages"]["clamped"].format(
                    name=html.escape(key), raw=shown, lo=format_g(p["lo"]), hi=format_g(p["hi"]), value=format_g(value)
                )
            )
        values[p["name"]] = value
    return values, notices


def link_values(spec: dict, state: Mapping, values: Mapping) -> dict:
    """The whole state a link opens: ``state``, reset to the start of ``values[spec["reset"]]``, then ``values``.

    Examples
    --------
    >>> spec = {"reset": "step", "starts": {"2": {"step": 2, "temperature": 1.0}}}
    >>> link_values(spec, {"step": 1, "temperature": 3.0}, {"step": 2})
    {'step': 2, 'temperature': 1.0}
    """
    out = dict(state)
    reset = spec.get("reset")
    if reset and reset in values:
        out.update(spec["starts"][str(values[reset])])
    out.update(values)
    return out


def link_notice(notices: Iterable[str]) -> str:
    """The notices of one link as one text (empty when there are none)."""
    return " ".join(notices)
