"""The course text: structure, math, and every number it quotes, recomputed."""

import re

import numpy as np
import pytest

from attention_explorable import content, core
from attention_explorable.textbook import EXPLORABLES

SECTIONS = {s.id: s for s in content.load_sections()}


def section_text(section_id: str) -> str:
    return "\n".join(b.body for b in SECTIONS[section_id].blocks) + "\n" + "\n".join(
        "\n".join(b.parts.values()) for b in SECTIONS[section_id].blocks if b.kind == "exercise")


def blocks(section_id, kind):
    return [b for b in SECTIONS[section_id].blocks if b.kind == kind]


def test_both_sections_present_in_order():
    assert list(SECTIONS) == ["sec-3-7", "sec-3-8"]
    assert SECTIONS["sec-3-7"].title.startswith("3.7") and SECTIONS["sec-3-8"].title.startswith("3.8")


def test_every_explorable_placed_and_registered():
    placed = [b.args[0] for s in SECTIONS.values() for b in s.blocks if b.kind == "explorable"]
    assert sorted(placed) == sorted(EXPLORABLES)


def test_section_3_8_structure():
    assert len(blocks("sec-3-8", "definition")) == 1
    assert len(blocks("sec-3-8", "proposition")) == 1
    assert len(blocks("sec-3-8", "proof")) == 1
    assert len(blocks("sec-3-8", "lean")) == 1 and "theorem" in blocks("sec-3-8", "lean")[0].body
    video = blocks("sec-3-8", "video")
    assert len(video) == 1 and video[0].options["url"].startswith("https://")
    assert "M" in section_text("sec-3-8") and r"\sqrt{d_k}" in section_text("sec-3-8")


def test_section_3_7_exercises_q1_to_q4():
    ids = [b.args[0] for b in blocks("sec-3-7", "exercise")]
    assert len(ids) == 4
    kinds = [b.options["kind"] for b in blocks("sec-3-7", "exercise")]
    assert kinds == ["text", "number", "choice", "text"]
    for b in blocks("sec-3-7", "exercise"):
        assert b.parts.get("answer"), b.args


@pytest.mark.parametrize("section_id", list(SECTIONS))
def test_no_raw_dollar_reaches_the_reader(section_id):
    for block in SECTIONS[section_id].blocks:
        if block.kind in ("markdown", "definition", "proposition", "proof"):
            html = content.markdown_to_html(block.body)
            visible = re.sub(r"<math .*?</math>", "", html, flags=re.S)
            assert "$" not in visible, visible[:300]


def test_money_dollar_stays_text_and_math_becomes_mathml():
    assert content.markdown_to_html("A book costs $5, a pen $2.") == "<p>A book costs $5, a pen $2.</p>\n"
    inline = content.markdown_to_html("score $q\\cdot k_j$")
    assert 'display="inline"' in inline and "<mi>q</mi>" in inline and "<msub><mi>k</mi><mi>j</mi></msub>" in inline
    block = content.markdown_to_html("$$\ny=\\sum_j a_j v_j\n$$")
    assert "<div class='ae-math-display'><math " in block and 'display="block"' in block
    assert "<munder><mo>&#x02211;</mo><mi>j</mi></munder>" in block
    less = content.markdown_to_html("$a<b$")
    assert "<mo>&#x0003C;</mo>" in less and "<b" not in less  # no markup leaks from the formula


def test_every_formula_of_the_course_converts():
    n = 0
    for section in SECTIONS.values():
        for block in section.blocks:
            for part in [block.body, *block.parts.values()]:
                n += content.markdown_to_html(part).count("<math ")
    assert n > 200


def test_a_formula_that_cannot_convert_is_named():
    with pytest.raises(content.ContentError, match=r"cannot convert the formula 'a_\{'"):
        content.tex_to_mathml("a_{")
