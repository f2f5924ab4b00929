"""An explorable in JupyterLab, as an author's reader meets it: a real JupyterLab server, a real kernel,
the notebook driven in Chromium by its keyboard.

A change made in Python (a cell setting ``explorer.temperature``) must reach the page that shows the
explorable, and a reader's move on the page must reach ``explorer`` in the kernel.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from playwright.sync_api import expect

from ..conftest import free_port

pytestmark = pytest.mark.browser
pytest.importorskip("jupyterlab")
nbformat = pytest.importorskip("nbformat")

CELLS = [
    "from attention_explorable import ui\nui.extension(inline=True)",  # (no network here: BokehJS in the page)
    "from attention_explorable import StepsExplorer\nexplorer = StepsExplorer(language='en', step=3, ask_prediction=False)\nexplorer",  # (a presenter's: open)
    "explorer.temperature = 0.5",
    "print('T is', explorer.temperature)",
]


def _start_lab(root: Path, notebooks: dict[str, list[str]]):
    """One JupyterLab server on a free port serving ``root`` with ``notebooks`` (file name -> cells), its
    settings and workspace in a folder of their own; yields (the address of ``root`` in the lab, the
    settings folder, where :func:`_theme` writes the theme), and stops the server after."""
    for name, cells in notebooks.items():
        nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
        nbformat.write(nb, str(root / name))
    home = root / ".home"
    env = {
        **os.environ,
        "JUPYTER_CONFIG_DIR": str(home / "config"),
        "JUPYTER_RUNTIME_DIR": str(home / "runtime"),
        "JUPYTERLAB_SETTINGS_DIR": str(home / "settings"),
        "JUPYTERLAB_WORKSPACES_DIR": str(home / "workspaces"),
        "IPYTHONDIR": str(home / "ipython"),
    }
    port = free_port()
    jupyter = Path(sys.executable).parent / "jupyter"
    log = root / "lab.log"
    out = log.open("w")
    proc = subprocess.Popen(
        [str(jupyter), "lab", "--no-browser", f"--port={port}", "--ServerApp.ip=127.0.0.1",
         "--IdentityProvider.token=", "--ServerApp.password=", "--allow-root", f"--notebook-dir={root}"],
        stdout=out, stderr=subprocess.STDOUT, env=env,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while True:
        assert proc.poll() is None, log.read_text()[-3000:]
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            assert time.monotonic() < deadline, log.read_text()[-3000:]
            time.sleep(0.2)  # the poll's interval, until the server listens
    yield f"http://127.0.0.1:{port}/lab/tree/", home / "settings"
    proc.terminate()
    proc.wait(timeout=20)
    out.close()


def _theme(settings: Path, theme: str) -> None:
    """JupyterLab's theme for the pages opened from now on (its server reads the settings at each load)."""
    themes = settings / "@jupyterlab" / "apputils-extension"
    themes.mkdir(parents=True, exist_ok=True)
    name = "JupyterLab Dark" if theme == "dark" else "JupyterLab Light"
    (themes / "themes.jupyterlab-settings").write_text(f'{{"theme": "{name}"}}')


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """One server for the file's tests (a server's start is seconds of CPU): the two-way notebook, and the
    widget's in a notebook (and kernel) per theme."""
    notebooks = {"explorable.ipynb": CELLS, **{f"widget-{theme}.ipynb": WIDGET_CELLS for theme in THEMES}}
    yield from _start_lab(tmp_path_factory.mktemp("lab"), notebooks)


def _open(page, url: str, n_cells: int):
    """Open the notebook at ``url`` and wait for its cells and its kernel; return its cells."""
    page.goto(url)
    cells = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell")
    expect(cells).to_have_count(n_cells, timeout=60_000)
    expect(page.locator(".jp-StatusBar-TextItem").filter(has_text=re.compile("Idle"))).not_to_have_count(
        0, timeout=60_000
    )  # the kernel is up
    return cells


def _run_cell(page, n: int) -> None:
    """Run cell ``n`` (from 0) of the open notebook as a reader does: click its input, Shift+Enter."""
    page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell").nth(n).locator(".jp-InputArea-editor").click()
    page.keyboard.press("Shift+Enter")


def test_python_and_the_page_follow_each_other_in_jupyterlab(lab, student):
    base, settings = lab
    _theme(settings, "light")
    s = student()
    page = s.page
    cells = _open(page, f"{base}explorable.ipynb?reset", len(CELLS))
    _run_cell(page, 0)
    _run_cell(page, 1)
    box = cells.nth(1).locator(".jp-OutputArea .ae-temperature-box input")
    expect(box).to_have_value("1", timeout=60_000)  # step 3 starts at T = 1

    # Python -> page: a cell sets the temperature; the page shows it.
    _run_cell(page, 2)
    box = cells.nth(1).locator(".jp-OutputArea .ae-temperature-box input")
    expect(box).to_have_value("0.5", timeout=30_000)
    expect(cells.nth(1).locator(".jp-OutputArea .ae-temperature-readout")).to_contain_text("T = 0.50")

    # Page -> Python: the reader types a temperature; the kernel has it.
    box.fill("2")
    box.press("Tab")  # the box takes a value as it is left (Enter is JupyterLab's, in an output)
    expect(cells.nth(1).locator(".jp-OutputArea .ae-temperature-readout")).to_contain_text("T = 2.00")
    _run_cell(page, 3)
    # (the printed line found among the notebook's outputs: JupyterLab's windowed notebook may hold a
    # cell's output under another element than the n-th cell the locator counts)
    said = page.locator(".jp-OutputArea-output", has_text=re.compile(r"T is 2(\.0)?\b"))
    expect(said.first).to_be_visible(timeout=60_000)  # (a kernel on a busy machine)
    s.screenshot("jupyterlab-two-way")


THEMES = ("light", "dark")
WIDGET_CELLS = [
    "from attention_explorable.widgets import notebook_widget\nw = notebook_widget('vector', language='en', revealed=True)\nw",
    "w.temperature = 0.5",
    "print('q is', w.query_x)",
]

#: The contrast of a text with what is behind it (WCAG 2's ratio), and whether a box is drawn in the
#: theme's colours: each element's colour against the first opaque background of it or its ancestors.
_CONTRASTS = """(els) => {
  const rgb = (c) => c.match(/[0-9.]+/g).map(Number);
  const lum = ([r, g, b]) => [r, g, b].map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; })
    .reduce((s, v, i) => s + v * [0.2126, 0.7152, 0.0722][i], 0);
  const behind = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const c = getComputedStyle(e).backgroundColor, v = rgb(c);
      if (v.length < 4 || v[3] > 0.5) return v.slice(0, 3);
    }
    return [255, 255, 255];
  };
  return els.map((el) => {
    const [a, b] = [lum(rgb(getComputedStyle(el).color)), lum(behind(el))];
    return [el.className || el.tagName, (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05)];
  });
}"""


@pytest.mark.parametrize("theme", THEMES)
def test_an_explorables_notebook_widget_follows_python_and_the_reader_in_both_themes(lab, student, theme):
    """The explorable's module as an anywidget in JupyterLab: it draws with nothing from the network,
    a trait set in Python redraws it, the reader's typed number reaches the kernel, and every text and
    number box reads at 4.5:1 or more in the notebook's theme."""
    base, settings = lab
    _theme(settings, theme)
    url = f"{base}widget-{theme}.ipynb?reset"
    s = student()
    page = s.page
    off_machine = []
    page.on(
        "request",
        lambda r: off_machine.append(r.url) if not r.url.startswith(("http://127.0.0.1", "data:", "blob:")) else None,
    )
    cells = _open(page, url, len(WIDGET_CELLS))
    _run_cell(page, 0)
    out = cells.nth(0).locator(".jp-OutputArea")
    expect(out.locator(".ae-vector-output")).to_contain_text("y = [0.845, 0.578]", timeout=60_000)
    assert out.locator(".ae-x").get_attribute("data-ae-theme") == theme

    # Python -> page: a cell sets the temperature; the page shows it.
    _run_cell(page, 1)
    expect(out.locator(".ae-vector-formula")).to_contain_text("/ 0.50)", timeout=30_000)
    expect(out.locator(".ae-vector-temperature-box input")).to_have_value("0.5")

    # Page -> Python: the reader types the query's first component; the kernel has it.
    box = out.locator(".ae-query-x-box input")
    box.fill("-1.5")
    box.press("Tab")  # the box takes a value as it is left (Enter is JupyterLab's, in an output)
    expect(out.locator(".ae-vector-scores")).to_contain_text("s₁ = −1.500")
    _run_cell(page, 2)
    expect(cells.nth(2).locator(".jp-OutputArea")).to_contain_text("q is -1.5", timeout=30_000)

    texts = out.locator(
        ".ae-vector-scores td, .ae-vector-formula, .ae-vector-question, .ae-n-slider label, "
        ".ae-box input, .ae-vector-prediction button"
    )
    contrasts = page.evaluate(_CONTRASTS, texts.element_handles())
    assert contrasts and all(ratio >= 4.5 for _, ratio in contrasts), contrasts
    s.screenshot(f"jupyterlab-widget-{theme}")
    assert off_machine == [], off_machine
