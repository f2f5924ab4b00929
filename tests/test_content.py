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
            visible = re.sub(r"\\\(.*?\\\)|\\\[.*?\\\]", "", html, flags=re.S)
            assert "$" not in visible, visible[:300]


def test_money_dollar_stays_text_and_math_is_delimited():
    assert content.markdown_to_html("A book costs $5, a pen $2.") == "<p>A book costs $5, a pen $2.</p>\n"
    assert r"\(q\cdot k_j\)" in content.markdown_to_html("score $q\\cdot k_j$")
    assert r"\[y=\sum_j a_j v_j\]" in content.markdown_to_html("$$\ny=\\sum_j a_j v_j\n$$")
    assert r"\lt" in content.markdown_to_html("$a<b$") and "<b" not in content.markdown_to_html("$a<b$")


def test_parser_reports_unclosed_and_unknown_blocks(tmp_path):
    bad = tmp_path / "x.md"
    bad.write_text("---\nid: x\ntitle: X\norder: 1\n---\ntext\n:::proof P\nbody\n", encoding="utf-8")
    with pytest.raises(content.ContentError, match=r"x.md:7: block ':::proof' is never closed"):
        content.parse_section(bad)
    bad.write_text("---\nid: x\ntitle: X\norder: 1\n---\n:::poem\n:::\n", encoding="utf-8")
    with pytest.raises(content.ContentError, match="unknown block ':::poem'"):
        content.parse_section(bad)
    bad.write_text("no front matter", encoding="utf-8")
    with pytest.raises(content.ContentError, match="front matter"):
        content.parse_section(bad)


# --- numbers quoted by the text, recomputed by the core --------------------------------

Q = [[1.0, 0.0]]
K = V = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]


def test_worked_example_3_7_numbers():
    text = section_text("sec-3-7")
    scores = core.dot_product_scores(Q, K, scale=1.0)[0]
    out, weights = core.scaled_dot_product_attention(Q, K, V, scale=1.0)
    exps = np.exp(scores)
    assert f"{exps[0]:.3f}" == "2.718" and "2.718" in text
    # The text adds the rounded terms 2.718 + 1 + 2.718; the exact sum is 6.4366.
    assert exps.sum() == pytest.approx(6.436, abs=1e-3) and "6.436" in text
    for w in weights[0]:
        assert f"{w:.3f}" in text
    assert f"[{out[0, 0]:.3f}, {out[0, 1]:.3f}]" in text


def test_q2_answer_is_the_core_weight():
    q2 = next(b for b in blocks("sec-3-7", "exercise") if b.options["kind"] == "number")
    _, weights = core.scaled_dot_product_attention(Q, K, V, scale=1.0)
    assert float(q2.options["answer"]) == pytest.approx(weights[0, 1], abs=float(q2.options["tol"]))
    assert f"{weights[0, 1]:.3f}" == q2.options["answer"]


def test_example_3_8_1_and_exercise_3_8_1():
    text = section_text("sec-3-8")
    y = float(core.weighted_sum([0.75, 0.25], [2.0, 10.0]))
    assert y == 4.0 and "(0.75, 0.25)" in text and "=4" in text.replace(" ", "")
    ex = blocks("sec-3-8", "exercise")[0]
    y2 = float(core.weighted_sum([0.2, 0.8], [2.0, 10.0]))
    assert float(ex.options["answer"]) == pytest.approx(y2)
    assert "(0.2, 0.8)" in text


def test_step_numbers_quoted_in_3_8_match_the_core():
    text = section_text("sec-3-8")
    matches = list(re.finditer(r"分数差为 \$(\d+)\$、\$T=(\d+)\$ 时，两个权重约为 \$([0-9.]+)\$ 和 \$([0-9.]+)\$", text))
    assert matches, "the step-3 example numbers were not found in the text"
    for m in matches:
        diff, t, w1, w2 = float(m.group(1)), float(m.group(2)), m.group(3), m.group(4)
        w = core.softmax([0.0, diff], temperature=t)
        assert (f"{w[0]:.3f}", f"{w[1]:.3f}") == (w1, w2)


def test_step_2_numbers_quoted_in_3_8_match_the_core():
    from attention_explorable import scenarios

    text = section_text("sec-3-8")
    step = scenarios.get_step(2)
    res = scenarios.outcome(step.target)
    assert f"从 $0$ 提高到 ${step.target['score_diff']:g}$" in text
    assert f"第二个权重约为 ${res['weights'][1]:.3f}$，输出约为 ${res['output']:.2f}$" in text


def test_package_reads_the_repository_content_folder():
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    assert content.CONTENT_DIR.resolve() == (root / "content").resolve()


def test_step_3_numbers_quoted_in_3_8_match_the_scenario():
    from attention_explorable import scenarios

    text = section_text("sec-3-8")
    start, target = scenarios.get_step(3).start, scenarios.get_step(3).target
    s1, s2 = start["score_1"], start["score_1"] + start["score_diff"]
    assert f"两个分数取 ${s1:g}$ 和 ${s2:g}$，差为 ${start['score_diff']:g}$" in text
    assert f"从 ${start['temperature']:g}$ 降到 ${target['temperature']:g}$" in text
    assert f"$e^{{{s2 / target['temperature']:g}}}$" in text
    assert s2 / target["temperature"] > np.log(np.finfo(np.float64).max)  # it really overflows
