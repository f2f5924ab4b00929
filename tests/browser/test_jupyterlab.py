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
    "from attention_explorable import StepsExplorer\nexplorer = StepsExplorer(language='en', step=3)\nexplorer",
    "explorer.temperature = 0.5",
    "print('T is', explorer.temperature)",
]


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """A JupyterLab server on a free port with one notebook (``CELLS``), its settings and workspace in a
    folder of their own; yields the notebook's address."""
    root = tmp_path_factory.mktemp("lab")
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in CELLS])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, str(root / "explorable.ipynb"))
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
    yield f"http://127.0.0.1:{port}/lab/tree/explorable.ipynb?reset"
    proc.terminate()
    proc.wait(timeout=20)
    out.close()


def _run_cell(page, n: int) -> None:
    """Run cell ``n`` (from 0) of the open notebook as a reader does: click its input, Shift+Enter."""
    page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell").nth(n).locator(".jp-InputArea-editor").click()
    page.keyboard.press("Shift+Enter")


def test_python_and_the_page_follow_each_other_in_jupyterlab(lab, student):
    s = student()
    page = s.page
    page.goto(lab)
    cells = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell")
    expect(cells).to_have_count(len(CELLS), timeout=60_000)
    expect(page.locator(".jp-StatusBar-TextItem").filter(has_text=re.compile("Idle"))).not_to_have_count(
        0, timeout=60_000
    )  # the kernel is up
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
    expect(cells.nth(3).locator(".jp-OutputArea")).to_contain_text(re.compile(r"T is 2(\.0)?\b"), timeout=30_000)
    s.screenshot("jupyterlab-two-way")
