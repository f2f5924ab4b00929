"""Exercises as Panel components drawn from Python: checking, hints, revealing, the layout."""

import html

import panel as pn
import pytest
from bokeh.document import Document
from bokeh.events import ButtonClick, ValueSubmit
from bokeh.models import CustomJS

from attention_explorable import content, core
from attention_explorable.explorables.exercise import Exercise

BLOCKS = {b.args[0]: b for s in content.load_sections() for b in s.exercises()}


def make(ex_id, **kw):
    return Exercise(BLOCKS[ex_id], **kw)


def shown(model) -> str:
    """The HTML a browser-drawn model shows (its text is escaped HTML)."""
    return html.unescape(model.text)


def test_number_exercise_right_wrong_malformed():
    ex = make("q2-alpha2")
    assert ex.status == "pending" and ex.checked is None and not ex._feedback.visible
    _, w = core.scaled_dot_product_attention([[1, 1]], [[1, 0], [0, 1], [1, 1]], [[1, 0], [0, 1], [1, 1]], scale=1.0)
    ex.response = "0.422"
    assert ex.check() == "wrong" and not ex.revealed  # a wrong answer keeps the worked answer shut
    ex.response = f"{w[0, 1]:.4f}"
    assert ex.check() == "right" and "正确" in shown(ex._feedback) and ex._feedback.visible
    assert ex.revealed and ex._answer.visible  # a right one opens it
    ex.response = "0.422"
    assert ex.check() == "wrong" and "还不对" in shown(ex._feedback)
    hint = BLOCKS["q2-alpha2"].parts["hint"]
    assert hint and content.markdown_to_html(hint) in shown(ex._feedback)
    ex.response = "零点一五<script>"
    assert ex.check() == "invalid" and "请输入一个数字" in shown(ex._feedback)
    assert "<script>" not in shown(ex._feedback)
    ex.response = "  "
    assert ex.check() == "invalid" and "请先输入答案" in shown(ex._feedback)


def test_typing_after_a_check_keeps_the_feedback_until_the_next_check():
    ex = make("q2-alpha2", response="0.212")
    ex.check()
    ex.response = "0.9"
    assert ex.status == "right" and "正确" in shown(ex._feedback)
    assert ex.evaluate()[0] == "wrong"  # what a check would say now
    assert ex._input.value == "0.9"
    ex.check()
    assert ex.status == "wrong"


def test_status_is_read_only():
    ex = make("q2-alpha2")
    with pytest.raises(AttributeError):
        ex.status = "right"


def test_exercise_3_8_1_accepts_the_core_value():
    ex = make("ex-3-8-1")
    ex.response = str(float(core.weighted_sum([0.2, 0.8], [2.0, 10.0])))
    assert ex.check() == "right" and ex.answer == 8.4


def test_choice_exercise():
    ex = make("q3-sqrt-d")
    assert [letter for letter, _ in ex.options][:2] == ["A", "B"] and ex.answer == "C"
    assert ex._choice.active is None and ex._choice.labels == ["A", "B", "C", "D"]
    assert ex.check() == "invalid" and "请先选择一个选项" in shown(ex._feedback)
    wrong = next(letter for letter, _ in ex.options if letter != ex.answer)
    ex.choice = wrong
    assert ex._choice.active == ["A", "B", "C", "D"].index(wrong)
    assert ex.check() == "wrong" and ex.checked == wrong
    ex.choice = ex.answer
    assert ex.check() == "right"
    with pytest.raises(ValueError, match="choice"):
        ex.choice = "Z"
    with pytest.raises(ValueError, match="choice"):
        make("q3-sqrt-d", choice="Z")
    assert make("q3-sqrt-d", choice="B", checked="B").status == "wrong"


def test_text_exercise_reveals_model_answer():
    ex = make("q1-qkv")
    assert not ex._answer.visible and ex._answer.text == ""
    assert ex._check is None and ex.check() == "pending"
    ex.revealed = True
    assert ex._answer.visible and "参考答案" in shown(ex._answer)
    assert ex._reveal.label == "隐藏解答"
    ex.revealed = False
    assert not ex._answer.visible and ex._reveal.label == "显示解答"


def test_english_interface():
    ex = make("q2-alpha2", language="en", response="abc")
    assert ex.check() == "invalid" and "Please type a number" in shown(ex._feedback)
    assert ex._reveal.label == "Show the answer" and ex._check.label == "Check"


def test_non_exercise_block_rejected():
    with pytest.raises(ValueError, match="exercise block"):
        Exercise(content.Block("proof", "x"))


def test_the_students_typing_choosing_and_pressing_reach_python():
    ex = make("q2-alpha2")
    ex._input.value_input = "0.212"
    ex._acted(ex._input)
    assert ex.response == "0.212" and ex.status == "pending"
    ex._acted(ex._input, ValueSubmit(ex._input, "0.212"))  # Enter checks
    assert ex.status == "right" and "ae-right" in ex._feedback.text
    assert ex.revealed and ex._answer.visible  # a right answer opens the worked answer
    ex._acted(ex._reveal, ButtonClick(ex._reveal))
    assert not ex.revealed and not ex._answer.visible
    choice = make("q3-sqrt-d")
    choice._choice.active = 2
    choice._acted(choice._choice)
    choice._acted(choice._check, ButtonClick(choice._check))
    assert choice.choice == "C" and choice.checked == "C"


def test_what_no_page_of_ours_sends_sets_nothing():
    ex = make("q2-alpha2")
    ex._input.value_input = "9" * 10_001
    ex._acted(ex._input)
    assert ex.response == ""
    choice = make("q3-sqrt-d")
    choice._choice.active = 7
    choice._acted(choice._choice)
    assert choice.choice == "" and choice._choice.active is None  # put back as the state has it


@pytest.mark.parametrize("ex_id, name, bad", [("q3-sqrt-d", "choice", "Z"), ("q3-sqrt-d", "checked", "E")])
def test_a_letter_not_among_the_options_is_refused(ex_id, name, bad):
    with pytest.raises(ValueError, match=name):
        setattr(make(ex_id), name, bad)


def test_layout_renders_and_carries_the_css_classes():
    for ex_id in BLOCKS:
        ex = make(ex_id)
        root = pn.panel(ex).get_root(Document())
        classes = set()
        for model in root.references():
            classes.update(getattr(model, "css_classes", []) or [])
        want = {
            "ae-exercise",
            f"ae-exercise-{ex_id}",
            "ae-exercise-reveal",
            "ae-exercise-feedback",
            "ae-exercise-answer",
        }
        want |= (
            {"ae-exercise-choice", "ae-exercise-check"}
            if ex.kind == "choice"
            else {"ae-exercise-input", "ae-exercise-check"}
            if ex.kind == "number"
            else {"ae-exercise-input"}
        )
        assert want <= classes, (ex_id, want - classes)
        assert ex.css == f"ae-exercise-{ex_id}"


def test_no_javascript_of_the_exercise_runs_in_it():
    root = pn.panel(make("q3-sqrt-d")).get_root(Document())
    assert not [m for m in root.references() if isinstance(m, CustomJS)]


def test_each_exercise_has_its_own_models():
    a, b = make("q2-alpha2"), make("q2-alpha2")
    a.response = "1"
    assert b.response == "" and a._input is not b._input
