"""Exercise checking: right, wrong and malformed answers, and revealing."""

import pytest

from attention_explorable import content, core
from attention_explorable.exercises import Exercise, parse_number

BLOCKS = {b.args[0]: b for s in content.load_sections() for b in s.exercises()}


def make(ex_id, **kw):
    return Exercise(BLOCKS[ex_id], **kw)


@pytest.mark.parametrize("raw, value", [("0.155", 0.155), (" 0,155", 0.155), ("0，155", 0.155),
                                        ("42/5", 8.4), ("−1.5", -1.5)])
def test_parse_number_accepts_common_spellings(raw, value):
    assert parse_number(raw) == pytest.approx(value)


@pytest.mark.parametrize("raw", ["", "abc", "1/0", "inf", "nan", "0.1.2"])
def test_parse_number_rejects_with_the_input_quoted(raw):
    with pytest.raises(ValueError, match="answer must be"):
        parse_number(raw)


def test_number_exercise_right_wrong_malformed():
    ex = make("q2-alpha2")
    _, w = core.scaled_dot_product_attention([[1, 0]], [[1, 0], [0, 1], [1, 1]], [[1, 0], [0, 1], [1, 1]],
                                             scale=1.0)
    ex.response = f"{w[0, 1]:.4f}"
    ex.param.trigger("check")
    assert ex.status == "right" and "正确" in ex._feedback.object
    ex.response = "0.422"
    ex.param.trigger("check")
    assert ex.status == "wrong" and "还不对" in ex._feedback.object
    hint = BLOCKS["q2-alpha2"].parts["hint"]
    assert hint and content.markdown_to_html(hint) in ex._feedback.object
    ex.response = "零点一五<script>"
    ex.param.trigger("check")
    assert ex.status == "invalid" and "请输入一个数字" in ex._feedback.object
    assert "<script>" not in ex._feedback.object
    ex.response = "  "
    ex.param.trigger("check")
    assert ex.status == "invalid" and "请先输入答案" in ex._feedback.object


def test_exercise_3_8_1_accepts_the_core_value():
    ex = make("ex-3-8-1")
    ex.response = str(float(core.weighted_sum([0.2, 0.8], [2.0, 10.0])))
    ex.param.trigger("check")
    assert ex.status == "right"


def test_choice_exercise():
    ex = make("q3-sqrt-d")
    assert [letter for letter, _ in ex.options][:2] == ["A", "B"]
    ex.param.trigger("check")
    assert ex.status == "invalid"
    wrong = next(letter for letter, _ in ex.options if letter != ex.answer)
    ex.choice = wrong
    ex.param.trigger("check")
    assert ex.status == "wrong"
    ex.choice = ex.answer
    ex.param.trigger("check")
    assert ex.status == "right"
    with pytest.raises(ValueError, match="choice"):
        ex.choice = "Z"


def test_text_exercise_reveals_model_answer():
    ex = make("q1-qkv")
    assert not ex._answer.visible
    ex.reveal = True
    assert ex._answer.visible and "参考答案" in ex._answer.object
    assert ex._buttons[-1].name == "隐藏解答"


def test_non_exercise_block_rejected():
    with pytest.raises(ValueError, match="exercise block"):
        Exercise(content.Block("proof", "x"))
