"""Helpers of the mirror tests: an explorable's ES module in a blank page, and views compared.

A mirror test computes the view of each state twice, with the Python view
(the oracle, built on the numpy core) and with its JavaScript twin in
Chromium, and reports every difference: strings and booleans must be equal,
numbers equal to within 1e-12 relative (the last bits of a float may differ
between numpy and JavaScript's Math; no shown digit may).
"""

from __future__ import annotations

import math

from importlib import resources

from attention_explorable.modules import MODULES, module_source


def _package_module(name: str) -> str:
    return resources.files("attention_explorable").joinpath("web", "dist", f"{name}.mjs").read_text("utf-8")


def load_module(context, name: str = "mirror"):
    """A blank page of ``context`` with ``web/dist/<name>.mjs`` imported as ``window.ae``.

    The default, ``mirror.mjs`` (``web/mirror.js``), holds every twin's view and helpers.
    """
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.set_content("<html><body></body></html>")
    page.evaluate(
        """async (src) => {
             const url = URL.createObjectURL(new Blob([src], {type: "text/javascript"}));
             window.ae = await import(url);
           }""",
        module_source(name) if name in MODULES else _package_module(name),
    )
    page.ae_errors = errors
    return page


def _same_number(a, b) -> bool:
    if a is None or b is None:
        return a is b
    a, b = float(a), float(b)
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= 1e-12 * max(abs(a), abs(b)) or abs(a - b) < 1e-300


def differences(py, js, path: str = "view") -> list[str]:
    """Every place where the JavaScript value ``js`` differs from the Python value ``py``."""
    if isinstance(py, dict):
        if not isinstance(js, dict) or set(py) != set(js):
            return [f"{path}: keys {sorted(py)} != {sorted(js) if isinstance(js, dict) else js!r}"]
        return [d for k in py for d in differences(py[k], js[k], f"{path}.{k}")]
    if isinstance(py, (list, tuple)) or hasattr(py, "tolist"):
        py = list(py.tolist() if hasattr(py, "tolist") else py)
        if not isinstance(js, list) or len(py) != len(js):
            return [f"{path}: {py!r} != {js!r}"]
        return [d for i, (a, b) in enumerate(zip(py, js)) for d in differences(a, b, f"{path}[{i}]")]
    if isinstance(py, bool) or isinstance(py, str) or py is None:
        return [] if py == js and type(py) is type(js) else [f"{path}: {py!r} != {js!r}"]
    if isinstance(js, bool) or not (js is None or isinstance(js, (int, float))):
        return [f"{path}: {py!r} != {js!r}"]
    return [] if _same_number(py, js) else [f"{path}: {py!r} != {js!r}"]
