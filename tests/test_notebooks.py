"""Each section's notebook: generated from content/, run by a real kernel, reproducing the worked examples.

The notebooks of :mod:`attention_explorable.notebooks` are executed with
nbclient, in both languages. Their code cells must run without an error and
print the numbers the text quotes (3.7.5: the three steps, the literal against
the stable softmax; 3.7.6: the scores, the weights 0.422 / 0.155 / 0.422 and
the output [0.845, 0.578], the tie at a low temperature; 3.8: the temperature's
limits of Example 3.8.2, two heads' weights, the causal mask of Example 3.8.3), each recomputed
here by the core.
"""

from __future__ import annotations

import base64
import html
import json
import re

import numpy as np
import pytest

from attention_explorable import content, core, notebooks, scenarios, textbook
from attention_explorable.textbook import notebook_link

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

LANGUAGES = ("zh", "en")
SECTIONS = ("sec-3-7", "sec-3-8")


def expected_prints(section_id: str) -> list[str]:
    """Lines the section's notebook must print, computed here by the core and printed as numpy prints."""
    q, k = np.array([[1.0, 0.0]]), np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    if section_id == "sec-3-7":
        steps = []
        for step in scenarios.STEPS:
            result = scenarios.outcome(step.target)
            # Three significant digits: step 3's first weight (3.7e-44) must not print as 0.
            weights = ", ".join(f"{w:.3g}" for w in result["weights"])
            assert step.number != 3 or weights.startswith("3.72e-44"), weights
            steps.append(f"step {step.number}: weights [{weights}]  y = {result['output']:.2f}")
        y, w = core.scaled_dot_product_attention(q, k, k, scale=1.0)
        y_tie, w_tie = core.scaled_dot_product_attention(q, k, k, scale=1.0, temperature=0.05)
        assert str(w.round(3)) == "[[0.422 0.155 0.422]]" and str(y.round(3)) == "[[0.845 0.578]]"
        return [
            *steps,
            "literal [nan nan]",
            f"stable  {core.softmax([20.0, 22.0], temperature=0.02)}",
            f"scores  {(q @ k.T).round(3)}",
            f"weights {w.round(3)}",
            f"y       {y.round(3)}",
            f"T = 0.05 weights {w_tie.round(3)}  y {y_tie.round(3)}",
        ]
    # Example 3.8.2: the scores of step 3 from a low temperature to a high one (the table's row T = 0.5).
    w_half = core.softmax([20.0, 22.0], temperature=0.5)
    assert str(w_half.round(3)) == "[0.018 0.982]"
    scores = np.array([[1.0, 2.0, 0.0], [0.0, 1.0, 3.0], [1.0, 0.0, 1.0]])
    w = core.softmax(np.where(core.causal_mask(3), scores, -np.inf))
    # Two heads over three tokens: head 1 compares features 1-2 and reads 3-4, head 2 the reverse.
    x, first, last = np.array([[2.0, 0, 0, 2], [2, 0, 2, 0], [0, 2, 0, 2]]), slice(0, 2), slice(2, 4)
    heads = [core.scaled_dot_product_attention(x[:, a], x[:, a], x[:, b])[1] for a, b in ((first, last), (last, first))]
    assert heads[0][0, 2] < 0.05 < heads[0][0, 1] and heads[1][0, 1] < 0.05 < heads[1][0, 2]  # token 1 differs
    return [
        *(f"head {h} weights\n{w.round(3)}" for h, w in enumerate(heads, start=1)),
        "layer output (3, 4)",
        f"T = 0.5   weights {w_half.round(3)}  y = {w_half @ np.array([2.0, 10.0]):.2f}",
        str(w.round(3)),
        f"{w.sum(axis=1)}",
    ]


@pytest.fixture(
    scope="module", params=[(s, lang) for s in SECTIONS for lang in LANGUAGES], ids=lambda p: f"{p[0]}-{p[1]}"
)
def executed(request):
    section_id, language = request.param
    nb = nbformat.reads(notebooks.notebook_json(section_id, language), as_version=4)
    nbformat.validate(nb)
    nbclient.NotebookClient(nb, timeout=300, kernel_name="python3").execute()
    return section_id, language, nb


def test_every_cell_runs_and_the_worked_examples_come_out(executed):
    section_id, _, nb = executed
    outputs = [o for cell in nb.cells for o in cell.get("outputs", [])]
    errors = [o for o in outputs if o.get("output_type") == "error"]
    assert not errors, errors
    printed = "".join(o.get("text", "") for o in outputs if o.get("output_type") == "stream")
    for piece in expected_prints(section_id):
        assert piece in printed, f"{piece!r} not printed by the {section_id} notebook:\n{printed}"


def test_the_explorables_show_up_live(executed):
    section_id, _, nb = executed
    placed = [b.args[0] for b in content.load_sections()[SECTIONS.index(section_id)].blocks if b.kind == "explorable"]
    shown = [c for c in nb.cells if c.cell_type == "code" and "(language=" in c.source]
    assert len(shown) == len(placed) >= 1
    for cell in shown:  # each displays a Panel object (its bundle of MIME types), not just text
        assert any(
            "application/vnd.holoviews_exec.v0+json" in o.get("data", {}) or "text/html" in o.get("data", {})
            for o in cell.outputs
        ), cell.source


@pytest.mark.parametrize("section_id", SECTIONS)
def test_without_the_package_every_other_cell_runs_on_numpy_alone(section_id):
    """A student with NumPy but not this package: the first cell says so, the explorables' cells are skipped
    and every other cell runs and prints the worked examples' numbers."""
    from attention_explorable.strings import text

    nb = nbformat.reads(notebooks.notebook_json(section_id, "en"), as_version=4)
    # The package hidden from the kernel: importing it raises ImportError, as where it was never installed.
    nb.cells.insert(0, nbformat.v4.new_code_cell("import sys\nsys.modules['attention_explorable'] = None"))
    nbclient.NotebookClient(nb, timeout=300, kernel_name="python3").execute()
    outputs = [o for cell in nb.cells for o in cell.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    printed = "".join(o.get("text", "") for o in outputs if o.get("output_type") == "stream")
    assert "attention-explorable is not installed" in printed and "attention-explorable is not installed" in text(
        "notebook_setup", "en"
    )
    for piece in expected_prints(section_id):
        assert piece in printed, f"{piece!r} not printed by the {section_id} notebook without the package"
    skipped = [c for c in nb.cells if c.cell_type == "code" and "(language=" in c.source]
    assert skipped and all(not c.outputs for c in skipped)


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("section_id", SECTIONS)
def test_the_notebook_is_the_section(section_id, language):
    """Generated from content/: every code block, exercise and explorable of the section, in order."""
    nb = json.loads(notebooks.notebook_json(section_id, language))
    section = next(s for s in content.load_sections(language) if s.id == section_id)
    code = [c["source"].strip() for c in nb["cells"] if c["cell_type"] == "code"]
    blocks = [b.body.strip() for b in section.blocks if b.kind == "code"]
    assert [c for c in code if c in blocks] == blocks and len(blocks) >= 2
    markdown = "\n".join(c["source"] for c in nb["cells"] if c["cell_type"] == "markdown")
    for b in section.exercises():
        assert b.parts["question"].strip() in markdown and b.parts["answer"].strip() in markdown
    assert section.title in markdown and "pip install ." in markdown and "python -m build" in markdown
    assert "%pip install attention_explorable-*.whl" in code[0] and "ui.extension()" in code[0]


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("section_id", SECTIONS)
def test_the_page_links_the_notebook(section_id, language):
    inline = notebook_link(section_id, language, inline=True)  # the live textbook: no route for a file
    m = re.search(
        r"class='ae-notebook' href='data:application/x-ipynb\+json;base64,([^']+)' download='([^']+)'", inline
    )
    assert m, inline
    assert base64.b64decode(m.group(1)).decode("utf-8") == notebooks.notebook_json(section_id, language)
    assert m.group(2) == f"attention-{section_id}-{language}.ipynb"
    link = notebook_link(section_id, language)  # a student page: the file beside it
    assert f"class='ae-notebook' href='notebooks/attention-{section_id}-{language}.ipynb' download=" in link
    shown = re.sub(r"<[^>]+>", "", link)  # the words a reader sees (an English word on a Chinese page has its lang)
    assert ("下载本节 Notebook" if language == "zh" else "Download this section as a notebook") in shown
    assert ('<span lang="en">Notebook</span>' in link) == (language == "zh")


def test_an_unknown_section_is_named():
    with pytest.raises(ValueError, match="sec-9-9"):
        notebooks.section_notebook("sec-9-9", "zh")


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("section_id", SECTIONS)
def test_the_page_shows_what_the_code_prints_folded(section_id, language):
    """Under each code block the page holds what it prints (run as the notebook runs it, every number the
    text quotes among it), in a fold that starts closed and names no number: under the steps it would
    otherwise show the answers to their predictions."""
    section = next(s for s in content.load_sections(language) if s.id == section_id)
    pages = [textbook.block_html(section_id, b, language) for b in section.blocks if b.kind == "code"]
    folds = [re.search(r"<details class='ae-output'>(.*?)</details>", page, re.S) for page in pages]
    assert all(folds), pages
    for fold in folds:
        summary = re.search(r"<summary>(.*?)</summary>", fold.group(1), re.S).group(1)
        assert not re.search(r"\d", summary), summary
    printed = html.unescape("".join(re.sub(r"<[^>]+>", "", f.group(1).split("</summary>", 1)[1]) for f in folds))
    for piece in expected_prints(section_id):
        assert piece in printed, f"{piece!r} not on the {section_id} page:\n{printed}"


def test_a_code_block_that_raises_is_named(monkeypatch):
    """The export stops on text whose code fails, naming the section and the block; nothing half-printed."""
    bad = content.Section(
        "sec-9-9", "t", 9, (content.Block("code", body="# a broken example\nx = 1 / 0\n"),), path=None
    )
    monkeypatch.setattr(textbook, "_sections", lambda language="zh": (bad,))
    textbook.code_outputs.cache_clear()
    try:
        with pytest.raises(textbook.CodeError, match=r"sec-9-9 .*'# a broken example'.*ZeroDivisionError"):
            textbook.code_output("sec-9-9", bad.blocks[0].body)
    finally:
        textbook.code_outputs.cache_clear()
