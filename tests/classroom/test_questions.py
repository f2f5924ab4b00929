"""The questions a room can be asked: numbers that stay, answers that agree between the editions, bars
centred on the answer, and a student's page told everything but the answer."""

from __future__ import annotations

import json
import re
import zlib

import pytest

from attention_explorable import scenarios
from attention_explorable.classroom import questions, stats
from attention_explorable.classroom.questions import all_questions, get_question, page_questions
from attention_explorable.content import load_sections


def test_the_steps_keep_1_to_3_and_every_exercise_checked_by_the_text_is_a_question():
    found = all_questions()
    assert [q.number for q in found[:3]] == [1, 2, 3] and all(q.is_step for q in found[:3])
    checked = {
        b.args[0]
        for s in load_sections("zh")
        for b in s.blocks
        if b.kind == "exercise" and b.options.get("kind") in ("number", "choice")
    }
    assert {q.key for q in found[3:]} == checked | set(questions.prompts()) and len(checked) >= 10
    numbers = [q.number for q in found]
    assert len(set(numbers)) == len(numbers)
    assert all(q.number >= questions.FIRST_EXERCISE for q in found[3:])


def test_an_exercise_number_comes_from_its_id_alone():
    """The number is kept in the database: it must be the same in another process and release."""
    for q in all_questions()[3:]:
        assert q.number == questions.FIRST_EXERCISE + zlib.crc32(q.key.encode()) % 1_000_000
        assert get_question(q.number) is q
    assert get_question(999_999_999) is None and get_question("1") is None and get_question(True) is None


@pytest.mark.parametrize("language", ["zh", "en"])
def test_both_editions_ask_the_same_questions_with_the_same_answers(language):
    blocks = {b.args[0]: b for s in load_sections(language) for b in s.blocks if b.kind == "exercise"}
    for q in all_questions()[3:]:
        if q.key in questions.prompts():
            continue
        block = blocks[q.key]
        assert block.options["kind"] == q.kind
        if q.kind == "number":
            assert float(block.options["answer"]) == q.answer
        else:
            assert q.options[int(q.answer)] == block.options["answer"]


def test_a_steps_answer_is_the_cores():
    for q in all_questions()[:3]:
        assert q.answer == scenarios.get_step(q.number).expected_output() and q.within == stats.WITHIN


def test_answers_are_accepted_by_kind():
    choice = next(q for q in all_questions() if q.kind == "choice")
    assert choice.accepts(0) and choice.accepts(float(len(choice.options) - 1))
    assert not choice.accepts(0.5) and not choice.accepts(len(choice.options)) and not choice.accepts(-1)
    number = next(q for q in all_questions() if q.key == "q5-entries")
    assert number.accepts(16777216) and number.accepts(-3.5)
    for bad in (float("nan"), float("inf"), 10**400, True, "3", None):
        assert not number.accepts(bad) and not choice.accepts(bad)


@pytest.mark.parametrize("question", all_questions(), ids=lambda q: q.key)
def test_the_answer_sits_in_its_bar_in_the_middle_for_an_exercise(question):
    bars = question.bars([question.answer])
    i = bars["count"].index(1)
    assert bars["edge"][i] == ""
    assert bars["left"][i] < question.answer < bars["right"][i]
    if not question.is_step:  # a step's bars are the 0.5 grid students type on (9.05 falls in the bar of 9)
        assert abs((bars["left"][i] + bars["right"][i]) / 2 - question.answer) < 1e-9 * max(1, abs(question.answer))
    far = question.bars([question.answer + 1e6 * (1 + abs(question.answer))])
    assert far["edge"][-1] == "above" or question.kind == "choice"


def test_a_choice_has_a_bar_per_option_and_is_read_as_letters():
    choice = next(q for q in all_questions() if q.kind == "choice")
    bars = choice.bars([0, 2, 2, 3])
    assert bars["count"] == [1, 0, 2, 1] and len(bars["count"]) == len(choice.options)
    assert [choice.format(v) for v in range(len(choice.options))] == list(choice.options)


@pytest.mark.parametrize("language", ["zh", "en"])
def test_a_students_page_gets_each_question_but_not_its_answer(language):
    told = page_questions(language)
    assert set(told) == {str(q.number) for q in all_questions()}
    for number, shown in told.items():
        q = get_question(int(number))
        assert set(shown) == {"kind", "title", "html", "options", "bounds", "step"}
        assert shown["kind"] == q.kind and shown["options"] == list(q.options)
        assert shown["step"] == q.is_step
        if q.is_step:  # asked on a card too, where the explorable is out of sight
            assert shown["bounds"] == list(q.bounds) and str(q.number) in shown["title"]
            continue
        assert q.section in shown["title"]
        # an exercise by its number ("练习 3.7.3"), which its text under the title does not repeat
        assert q.key in shown["title"] or q.key in questions.prompts() or re.search(r"\d\.\d\.\d", shown["title"])
        assert not re.match(r"<p>\s*(练习|Exercise) \d", shown["html"]), shown["html"][:60]
        assert "<math" in shown["html"] or q.key in ("q5-entries",) or "<p>" in shown["html"]
    # No answer travels: neither the worked answer's text nor the hint.
    blob = json.dumps(told, ensure_ascii=False)
    for s in load_sections(language):
        for b in s.blocks:
            if b.kind == "exercise" and b.parts.get("answer"):
                assert b.parts["answer"].strip()[:40] not in blob


@pytest.mark.parametrize("name", ["vector", "matrix", "selfcross", "qkv", "contexts", "head"])
def test_each_explorables_prediction_is_a_question_whose_answer_is_its_views(name):
    import importlib

    view = importlib.import_module(f"attention_explorable.views.{name}")
    q = next(q for q in all_questions() if q.key == f"{name}-prediction")
    _section, _asked, options, right = questions.prompts()[q.key]
    assert options == tuple(f"{name}_predict_{p}" for p in view.PREDICTIONS[1:])
    assert view.PREDICTIONS[1 + right] == view.RIGHT_PREDICTION and q.answer == right
    assert q.kind == "choice" and q.options == tuple("ABCDEFGH"[: len(options)])
    # Its title names the explorable by the heading its page and the index show.
    from attention_explorable.explorables import MODULES
    from attention_explorable.strings import text

    for language in ("zh", "en"):
        assert questions.question_title(q, language).endswith(text(MODULES[name].key("title"), language))


def test_a_share_of_the_class_is_rounded_half_up_as_a_count_over_a_count():
    """One rule for the projector and the pages (the pages are sent the percentage): 33 of 40 is 83 %,
    where Python's round() said 82 and JavaScript's Math.round 83."""
    from fractions import Fraction

    from attention_explorable.classroom import stats

    for n in range(1, 161):
        for k in range(n + 1):
            exact = Fraction(100 * k, n) + Fraction(1, 2)
            assert stats.percent(k / n) == exact.numerator // exact.denominator, (k, n)


@pytest.mark.parametrize("language", ["zh", "en"])
def test_the_question_list_reads_formulas_without_leftover_tex(language):
    """The instructor's list shows the first words of each question: √d_k, QKᵀ and T→0, not "sqrtd_k",
    "fracQK^T" or "Tto0"."""
    from attention_explorable.classroom.questions import question_label

    labels = [question_label(q, language).replace(q.key, "") for q in all_questions()]  # ids such as q3-sqrt-d
    for label in labels:
        assert not re.search(r"sqrt|frac|mathsf|operatorname|\\|[A-Za-z]to\d|\{|\}", label), label
    assert any("√d_k" in label for label in labels)
    assert any("QKᵀ" in label for label in labels)


@pytest.mark.parametrize("language", ["zh", "en"])
def test_a_typed_question_is_written_as_text_everywhere_it_is_shown(language):
    from attention_explorable.classroom.store import CustomQuestion

    typed = CustomQuestion(100_000_007, 3, "choice", "Is <script>alert(1)</script> & a row a distribution?", 0.0, 0.0,
                           ("yes <b>always</b>", "no"))  # fmt: skip
    q = questions.typed_question(typed)
    assert (q.is_typed, q.is_step, q.key, q.options, q.bounds) == (True, False, "custom-3", ("A", "B"), (0.0, 1.0))
    shown = questions.question_html(q, language)
    assert "<script>" not in shown and "&lt;script&gt;" in shown and "yes &lt;b&gt;always&lt;/b&gt;" in shown
    assert questions.question_title(q, language).endswith("3")
    assert "<script>alert(1)</script>" in questions.question_label(q, language)  # a list's label is plain text
    assert questions.typed_for_page(q)["choices"] == ["yes <b>always</b>", "no"]
    assert "answer" not in questions.typed_for_page(q)
