"""The page bundle: one script (``web/dist/bokeh-panel.min.js``) for BokehJS and Panel's models.

It must be built from the BokehJS and Panel that the Python package runs
(a BokehJS draws only documents of its own version), take the place of
every script it stands for in a page and an embed, and step aside, with a
warning, when another Bokeh or Panel is installed.
"""

from __future__ import annotations

import json
import logging
import re
import tomllib

import bokeh
import panel as pn

from attention_explorable import documents

from .conftest import ROOT

MANIFEST = json.loads((documents.WEB_DIST / "bokeh-panel.json").read_text("utf-8"))

#: What Panel writes into a page for its scripts (CDN addresses), as documents.page_html gets it.
PANEL_SCRIPTS = f"""<script type="esms-options">{{"shimMode": true}}</script>
<script type="text/javascript" src="https://cdn.holoviz.org/panel/{pn.__version__}/dist/bundled/reactiveesm/es-module-shims@^1.10.0/dist/es-module-shims.min.js"></script>
<script type="text/javascript" src="https://cdn.bokeh.org/bokeh/release/bokeh-{bokeh.__version__}.min.js"></script>
<script type="text/javascript" src="https://cdn.bokeh.org/bokeh/release/bokeh-widgets-{bokeh.__version__}.min.js"></script>
<script type="text/javascript" src="https://cdn.bokeh.org/bokeh/release/bokeh-tables-{bokeh.__version__}.min.js"></script>
<script type="text/javascript" src="https://cdn.holoviz.org/panel/{pn.__version__}/dist/panel.min.js"></script>
<script type="text/javascript">Bokeh.set_log_level("info");</script>"""


def test_the_bundle_is_built_from_the_bokeh_and_panel_the_package_pins():
    assert (MANIFEST["bokeh"], MANIFEST["panel"]) == (bokeh.__version__, pn.__version__)
    npm = json.loads((ROOT / "package.json").read_text("utf-8"))["devDependencies"]
    assert (npm["@bokeh/bokehjs"], npm["@holoviz/panel"]) == (MANIFEST["bokeh"], MANIFEST["panel"])
    pins = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]["dependencies"]
    assert f"bokeh=={MANIFEST['bokeh']}" in pins and f"panel=={MANIFEST['panel']}" in pins
    banner = (documents.WEB_DIST / MANIFEST["file"]).read_text("utf-8")[:300]
    assert f"BokehJS {MANIFEST['bokeh']} and Panel {MANIFEST['panel']}" in banner


def test_a_page_loads_the_bundle_in_place_of_bokehjs_and_panel():
    page = documents.bundled_scripts(PANEL_SCRIPTS)
    scripts = re.findall(r'<script[^>]*src="([^"]+)"', page)
    assert scripts == ["attention-explorable:web/dist/bokeh-panel.min.js"]
    assert "esms-options" not in page and 'Bokeh.set_log_level("info")' in page  # inline scripts stay
    # The export then names it as a file with its content's hash.
    named = documents.Assets().rewrite(page, depth=1)
    assert re.search(r'src="\.\./assets/attention-explorable/bokeh-panel\.min\.[0-9a-f]{12}\.js"', named)


def test_an_embed_loads_the_bundle_in_place_of_bokehjs_and_panel():
    urls = re.findall(r'src="([^"]+)"', PANEL_SCRIPTS)
    script = f"const js_urls = [{', '.join(json.dumps(u) for u in urls)}];\nload_libs(js_urls);"
    assert documents.bundled_scripts(script) == \
        'const js_urls = ["attention-explorable:web/dist/bokeh-panel.min.js"];\nload_libs(js_urls);'


def test_with_another_bokeh_installed_pages_load_bokehjs_and_panel_and_say_why(monkeypatch, caplog):
    documents.page_bundle.cache_clear()
    monkeypatch.setattr(bokeh, "__version__", "3.99.0")
    try:
        with caplog.at_level(logging.WARNING, logger="attention_explorable.documents"):
            assert documents.bundled_scripts(PANEL_SCRIPTS) == PANEL_SCRIPTS
        assert "built for Bokeh" in caplog.text and "3.99.0" in caplog.text
    finally:
        documents.page_bundle.cache_clear()
