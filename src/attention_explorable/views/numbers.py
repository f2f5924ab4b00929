"""Number formats and the answer parser shared by every view.

Each function has a twin of the same name in ``web/shared.js``
(``formatNumber``, ``formatG``, ``formatFixed``, ``parseNumber``); the
mirror tests hold them to these. Rounding is Python's: half to even on the
exact binary value of the float.

The policy every page follows (docs/architecture.md, "Numbers"):

* a score, weight, output or loss read as a number (a readout, a formula, a
  table, the text) has **three decimals** (:data:`DECIMALS`); a heat map's
  cell or a bar's label, a small box on a figure, rounds the same number to
  two, and the figure's data table beside it has the three;
* a number below 0.0005 (or of a million and more) in size is written one
  way, ``3.7×10⁻⁴⁴`` (``×10<sup>−44</sup>`` in HTML): never ``3.7e-44``;
* a negative number carries a true minus, ``−`` (U+2212), in readouts, labels
  and boxes alike; :func:`parse_number` reads it as it reads ``-``.

:func:`format_fixed` alone is Python's format with its hyphen: a coordinate
or a value written into the state, not a number shown.
"""

from __future__ import annotations

import math
import re

__all__ = [
    "DECIMALS",
    "MINUS",
    "data_table",
    "format_fixed",
    "format_g",
    "format_number",
    "parse_number",
    "step_decimals",
]

#: Decimals of a score, weight, output or loss read as a number.
DECIMALS = 3

#: The minus sign of every number shown (U+2212), not the hyphen.
MINUS = "−"


#: Digits and the minus sign as superscript characters (a power of ten on a figure's label).
_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def format_number(x: float, digits: int = DECIMALS, html: bool = True) -> str:
    """A readout number: ``digits`` decimals, scientific when tiny or huge.

    NaN and infinities are written as ``NaN``, ``∞`` and ``−∞``. A weight such
    as ``1.4e-87`` is shown as such rather than as ``0.0000``, so a student
    sees that softmax never gives exactly zero to a finite score; a number of
    a million or more (``e^{440}``) as ``1.2×10^191``, not as 192 digits.

    Parameters
    ----------
    x : float
        The number.
    digits : int
        Decimals of the fixed-point form.
    html : bool
        Write the exponent as ``×10<sup>e</sup>`` (True) or in superscript
        characters, ``×10⁻⁸⁷`` (False: a figure's label, where no markup goes).

    Examples
    --------
    >>> format_number(0.42231), format_number(1.4e-87), format_number(-0.00001, 2), format_number(-0.5)
    ('0.422', '1.4×10<sup>−87</sup>', '−1.0×10<sup>−5</sup>', '−0.500')
    >>> format_number(3.7e-44, html=False)
    '3.7×10⁻⁴⁴'
    """
    x = float(x)
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "∞" if x > 0 else "−∞"
    if abs(x) >= 1e6 or (x != 0.0 and abs(x) < 0.5 * 10.0 ** (-digits)):
        mantissa, exponent = f"{x:.1e}".split("e")
        mantissa = mantissa.replace("-", MINUS)
        if not html:
            return f"{mantissa}×10{str(int(exponent)).translate(_SUPERSCRIPT)}"
        return f"{mantissa}×10<sup>{str(int(exponent)).replace('-', MINUS)}</sup>"
    s = f"{x:.{digits}f}"
    if s.startswith("-"):
        return "0." + "0" * digits if float(s) == 0.0 else MINUS + s[1:]
    return s


def format_g(x: float) -> str:
    """Python's ``format(x, "g")`` with a true minus: six significant digits, trailing zeros dropped.

    >>> format_g(-2.0), format_g(0.02)
    ('−2', '0.02')
    """
    s = format(float(x), "g")
    return MINUS + s[1:] if s.startswith("-") else s


def step_decimals(step: float) -> int:
    """The decimals of a slider's grid ``step`` (0.01 → 2, 0.5 → 1, 1 → 0): a value on its grid, or a box that
    shows one, has no more (the twin of ``stepDecimals`` in ``web/shared.js``).

    >>> step_decimals(0.01), step_decimals(0.5), step_decimals(1)
    (2, 1, 0)
    """
    return max(0, -math.floor(math.log10(step) + 1e-9))


def format_fixed(x: float, decimals: int) -> str:
    """Python's ``format(x, f".{decimals}f")``."""
    return format(float(x), f".{decimals}f")


#: Full-width digits and signs as half-width; the ideographic full stop "。" (what a Chinese input method types
#: for ".") as a decimal point.
_FULL_WIDTH = str.maketrans("０１２３４５６７８９．。｡，－＋／　", "0123456789...,-+/ ")
_NUMBER = re.compile(r"^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?$")


#: Thousands grouped by commas: a first group of 1-3 digits that is not 0, then groups of three.
#: "16,777,216" and "1,000" are thousands; "0,212" and "1,5" keep the comma as a decimal point.
_THOUSANDS = re.compile(r"^[+-]?[1-9][0-9]{0,2}(,[0-9]{3})+(\.[0-9]+)?$")
#: Thousands grouped by spaces ("16 777 216"; a thin or a no-break space too).
_SPACED = re.compile(r"^[+-]?[1-9][0-9]{0,2}([ \u00a0\u2009\u202f][0-9]{3})+(\.[0-9]+)?$")
#: A power written with superscripts at the end ("10²", "10⁻⁴⁴"): read as "^".
_SUPERSCRIPTS = re.compile(r"[⁺⁻]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+$")
_FROM_SUPERSCRIPT = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻", "0123456789+-")
#: Scientific notation as written by hand: "1.28×10^2", "1.28*10^2", "1.28 x 10^-3" (after superscripts).
_SCIENTIFIC = re.compile(r"^(.*[0-9.]) *[×xX*·] *10 *\^ *([+-]?[0-9]+)$")


def normalized_number(raw: str) -> str:
    """``raw`` as :func:`parse_number` reads it before parsing: half-width, stripped, ``-`` for a minus,
    a thousands comma or space dropped, a decimal comma made a point (``" ０,５ "`` -> ``"0.5"``), a power
    in superscripts made ``^`` and scientific notation written by hand made ``e``
    (``"1.28×10²"`` -> ``"1.28e2"``), another ``×`` a ``*``."""
    s = str(raw).translate(_FULL_WIDTH).strip().replace("，", ",").replace("−", "-")
    s = _SUPERSCRIPTS.sub(lambda m: "^" + m.group(0).translate(_FROM_SUPERSCRIPT), s)
    if _SPACED.match(s):
        s = re.sub(r"[ \u00a0\u2009\u202f]", "", s)
    s = s.replace(",", "") if _THOUSANDS.match(s) else s.replace(",", ".")
    m = _SCIENTIFIC.match(s)
    if m and _NUMBER.match(m.group(1).strip()) and "e" not in m.group(1).lower():
        return f"{m.group(1).strip()}e{m.group(2)}"
    return s.replace("×", "*")


def parse_number(raw: str) -> float:
    """Parse a typed number: a prediction, an exercise answer, a slider's box.

    Accepts full-width digits and signs, a decimal comma (``0,155``) or ideographic full stop (``8。4``), commas
    between thousands (``16,777,216``: a first group of one to three digits
    that is not ``0``, then groups of three), the minus sign ``−``,
    surrounding spaces, exponents (``1e-3``, also as written by hand: ``1.28×10²``,
    ``1.28*10^2``), a simple fraction ``a/b``, a product ``a*b`` (``4096×4096``), a
    power ``a^b`` (its sign applies after the power: ``-2^2`` is -4) and thousands
    grouped by spaces (``16 777 216``). Nothing
    else: no ``inf``, ``nan``, ``0x10`` or ``1_000``, which Python's ``float``
    would take but a student does not mean.

    Raises
    ------
    ValueError
        If ``raw`` is empty, not a number, or not finite (a power too large, or
        ``0`` to a negative power); the message quotes it.

    Examples
    --------
    >>> parse_number(" 0,155 "), parse_number("42/5"), parse_number("０.１５５"), parse_number("8。4")
    (0.155, 8.4, 0.155, 8.4)
    >>> parse_number("16,777,216"), parse_number("2^24"), parse_number("1,000")
    (16777216.0, 16777216.0, 1000.0)
    """
    s = normalized_number(raw)
    ops = [c for c in "/^*" if c in s]
    operator = ops[0] if len(ops) == 1 and s.count(ops[0]) == 1 else None
    parts = [p.strip() for p in s.split(operator)] if operator else [s]
    if not all(_NUMBER.match(p) for p in parts):
        raise ValueError(f"answer must be a number, got {raw!r}")
    value = float(parts[0])
    if operator == "/":
        den = float(parts[1])
        if den == 0:
            raise ValueError(f"answer must be a number, got {raw!r}")
        value /= den
    elif operator == "*":
        value *= float(parts[1])
    elif operator == "^":  # the sign goes with the power, as in writing: -2^2 is -4
        try:
            value = math.copysign(abs(value) ** float(parts[1]), -1.0 if parts[0].startswith("-") else 1.0)
        except (OverflowError, ZeroDivisionError):
            raise ValueError(f"answer must be a finite number, got {raw!r}") from None
    if not math.isfinite(value):
        raise ValueError(f"answer must be a finite number, got {raw!r}")
    return value


def data_table(caption: str, header: list[str], rows: list[list[str]]) -> str:
    """A plot's data as an HTML table: its text alternative for screen readers.

    Twin of ``dataTable`` in ``web/shared.js``. The cells are HTML already
    (numbers formatted, text escaped); the first cell of each row heads it.

    Examples
    --------
    >>> data_table("Weights", ["", "weight"], [["α₁", "0.5"]])
    "<table class='ae-data'><caption>Weights</caption><tr><th scope='col'></th><th scope='col'>weight</th></tr><tr><th scope='row'>α₁</th><td>0.5</td></tr></table>"
    """
    head = "".join(f"<th scope='col'>{h}</th>" for h in header)
    body = "".join(
        f"<tr><th scope='row'>{row[0]}</th>" + "".join(f"<td>{c}</td>" for c in row[1:]) + "</tr>" for row in rows
    )
    return f"<table class='ae-data'><caption>{caption}</caption><tr>{head}</tr>{body}</table>"


def echo(raw: str, limit: int = 40) -> str:
    """``raw`` stripped, cut to ``limit`` characters with "…": a rejected input said back short.

    Twin: ``echo`` in ``web/shared.js``.

    >>> echo("  12abc  "), echo("x" * 45)[-3:]
    ('12abc', 'xx…')
    """
    raw = raw.strip()
    return raw if len(raw) <= limit else raw[:limit] + "…"


def vector_list(labels, vectors, digits: int = 2) -> str:
    """Each label (HTML, escaped by the caller) followed by its vector, the pairs joined by " · ":
    ``我 [2.00, 1.00] · 爱 [1.00, 2.00]``; the word vectors an explorable lists before its question. A
    line breaks between the pairs, never inside one (``ae-nobreak``: a phone broke "[0.00, 0.00," / "2.00]").

    Twin: ``vectorList`` in ``web/shared.js``.

    >>> vector_list(["a", "b"], [[1.0, 0.0], [0.5, 2.0]])
    "<span class='ae-nobreak'>a [1.00, 0.00]</span> · <span class='ae-nobreak'>b [0.50, 2.00]</span>"
    """
    return " · ".join(
        f"<span class='ae-nobreak'>{label} {format_vector(v, digits)}</span>" for label, v in zip(labels, vectors)
    )


def format_vector(v, digits: int = DECIMALS) -> str:
    """A vector as the readouts write it, ``[0.845, 0.578]``: each entry by :func:`format_number`.

    Twin: ``formatVector`` in ``web/shared.js``.

    >>> format_vector([1.0, 0.5], 2)
    '[1.00, 0.50]'
    """
    return "[" + ", ".join(format_number(float(x), digits) for x in v) + "]"
