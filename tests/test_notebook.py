"""An explorable in a Jupyter notebook: live in a kernel, and interactive offline once exported to HTML.

The notebook of docs/embedding.md is executed by a real kernel (nbclient):
its cells move the explorable through the Python API and check what it
shows. The executed notebook is exported with nbconvert and opened in
Chromium from ``file://`` with the network cut: the explorable still draws
and answers a student's clicks, with nothing of ours fetched from a CDN.
"""

from __future__ import annotations

import re

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
nbconvert = pytest.importorskip("nbconvert")

CELLS = [
    "from attention_explorable import ui\nui.extension(inline=True)",
    "from attention_explorable.explorables.steps import StepsExplorer\n"
    "explorer = StepsExplorer(language='zh', step=2)\nexplorer",
    "explorer.demonstrate()\n"
    "assert round(explorer.view()['sources']['output']['x'][0], 2) == 9.05, explorer.view()['sources']['output']\n"
    "explorer.temperature = 0.5\n"
    "assert 'T = 0.50' in explorer.view()['html']['readouts'], explorer.view()['html']['readouts']\n"
    "explorer.go_to_step(1)\nprint('step', explorer.step)",
]


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in CELLS])
    nbclient.NotebookClient(nb, timeout=300, kernel_name="python3").execute()
    for cell in nb.cells:  # Panel's bookkeeping displays carry no data; nbconvert warns about them
        cell.outputs = [o for o in cell.get("outputs", []) if o.get("output_type") != "display_data" or o.get("data")]
    html, _ = nbconvert.HTMLExporter().from_notebook_node(nb)
    path = tmp_path_factory.mktemp("notebook") / "notebook.html"
    path.write_text(html, "utf-8")
    return nb, path


def test_the_kernel_moves_the_explorable(executed):
    nb, _ = executed
    outputs = [o for cell in nb.cells for o in cell.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"], outputs
    assert any("step 1" in o.get("text", "") for o in outputs)
    shown = nb.cells[1]["outputs"]
    assert any(
        "application/vnd.holoviews_load.v0+json" in o.get("data", {}) or "text/html" in o.get("data", {})
        for o in shown + nb.cells[0]["outputs"]
    )


@pytest.mark.browser
def test_the_exported_notebook_stays_interactive_offline(executed, student):
    _, path = executed
    s = student()
    aborted = s.open_offline(path, ".ae-output")
    page = s.page
    page.locator(".ae-output").first.wait_for()
    # the explorable shows the state the notebook's last cell left it in (step 1), not the one it was displayed
    # with (step 2), then answers the student
    page.locator(".ae-question").filter(has_text=re.compile("第 1 步")).first.wait_for(timeout=15_000)
    page.locator(".ae-step-3 button").first.click()
    page.locator(".ae-question").filter(has_text=re.compile("调低温度")).first.wait_for(timeout=15_000)
    page.locator(".ae-demonstrate button").first.click()  # no prediction: it asks for one
    page.locator(".ae-skip-prediction button").first.click()
    page.locator(".ae-result").filter(has_text=re.compile("演示结果")).first.wait_for(timeout=15_000)
    ours = [u for u in aborted if "bokeh" in u or "holoviz" in u or "panel" in u]
    assert ours == [], ours  # nbconvert's own page may ask for its CDN; nothing of the explorable does
    s.errors_to_ignore = ("Failed to load resource", "require", "MathJax", "net::ERR_FAILED")
    s.assert_clean()
