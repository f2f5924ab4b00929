"""The JavaScript of the package: real ES modules, bundled from their sources, no eval.

The bundles in ``web/dist/`` are what the pages load; they must be exactly
what ``npm run build`` makes of ``web/*.js`` today (esbuild and d3-array, from
``package.json``). Without Node.js and ``npm ci`` this is skipped, except
under ``CI=true``, where that is a failure.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from .conftest import ROOT

WEB = ROOT / "src" / "attention_explorable" / "web"
SRC = ROOT / "src" / "attention_explorable"


def _node_or_skip() -> str:
    node = shutil.which("node")
    if node and (ROOT / "node_modules" / "esbuild").exists():
        return node
    reason = "Node.js and esbuild (npm ci) are needed to rebuild the bundles"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{reason}; under CI=true this must run", pytrace=False)
    pytest.skip(reason)


def test_bundles_are_built_from_the_current_sources(tmp_path):
    node = _node_or_skip()
    subprocess.run([node, "scripts/build-web.mjs", str(tmp_path)], cwd=ROOT, check=True, timeout=120)
    # The modules (.mjs), the textbook's bundle (.min.js, .json), the student page's scripts (page/*.js).
    built = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file())
    shipped = sorted(p.relative_to(WEB / "dist").as_posix() for p in (WEB / "dist").rglob("*") if p.is_file())
    assert built == shipped
    # (Names only: a diff of two bundles would take pytest minutes to write.)
    stale = [name for name in built if (tmp_path / name).read_bytes() != (WEB / "dist" / name).read_bytes()]
    assert stale == [], ", ".join(f"web/dist/{name}" for name in stale) + " out of date: run `npm run build`"


def test_no_eval_or_function_constructor_in_our_javascript():
    for path in (
        list(WEB.glob("*.js")) + list((WEB / "dist").glob("*.mjs")) + list((WEB / "dist" / "page").glob("*.js"))
    ):
        code = path.read_text()
        assert not re.search(r"\beval\s*\(|new\s+Function\s*\(", code), path


def test_no_javascript_in_python_strings():
    for path in SRC.rglob("*.py"):
        code = path.read_text()
        # site.py writes the one tag of an embed (<script src="embed/NAME.js">), authoring.py the element's
        # (<script src=".../attention-explorable.js">) for a site generator's page; native.py finds a page's
        # script elements to allow them by their hashes, route_guards.py the instructor's to give them a nonce.
        assert (
            "<script" not in code or path.name in ("site.py", "authoring.py", "native.py", "route_guards.py")
        ) and 'CustomJS(code="' not in code, path


def test_the_modules_ship_with_the_package():
    import tomllib

    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    patterns = data["attention_explorable"]
    assert {"web/*.js", "web/dist/*.mjs", "web/dist/page/*.js"} <= set(patterns)
    assert any(Path(WEB / "dist").glob("*.mjs")) and (WEB / "dist" / "page" / "element.js").is_file()
