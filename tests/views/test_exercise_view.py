"""The Python view of an exercise (the oracle of web/exercise.js) on chosen states."""

from __future__ import annotations

import re

import pytest

from attention_explorable import content, core
from attention_explorable.strings import STRINGS
from attention_explorable.views import exercise as view
from attention_explorable.views.numbers import parse_number

BLOCKS = {b.args[0]: b for s in content.load_sections() for b in s.exercises()}
ZH = STRINGS["zh"]


def config(ex_id: str, language: str = "zh") -> dict:
    return view.exercise_config(BLOCKS[ex_id], language)


def state(response="", choice="", checked=None, revealed=False) -> dict:
    return {"response": response, "choice": choice, "checked": checked, "revealed": revealed}


def feedback(ex_id: str, checked: str, **kw) -> str:
    return view.exercise_view(state(checked=checked, **kw), config(ex_id))["html"]["feedback"]


def test_the_course_has_every_kind():
    kinds = {b.options["kind"] for b in BLOCKS.values()}
    assert kinds == {"number", "choice", "text"}


def test_config_renders_hint_and_answer_with_mathml():
    c = config("q2-alpha2")
    assert c["kind"] == "number" and c["answer"] == 0.212 and c["tol"] == 0.0005 and c["letters"] == []
    assert c["hint_html"] == content.markdown_to_html(BLOCKS["q2-alpha2"].parts["hint"])
    assert "<math>" in c["hint_html"] and "<math>" in c["answer_html"] and "参考答案" in c["answer_html"]
    assert "$" not in c["answer_html"]
    choice = config("q3-sqrt-d")
    assert choice["letters"] == ["A", "B", "C", "D"] and choice["answer"] == "C" and choice["tol"] is None
    text = config("q1-qkv", "en")
    assert text["answer"] is None and text["hint_html"] == "" and "Model answer" in text["answer_html"]


def test_config_refuses_a_block_that_is_no_exercise():
    with pytest.raises(ValueError, match="exercise block, got kind 'proof'"):
        view.exercise_config(content.Block("proof", "x"), "zh")


def test_number_right_wrong_malformed_empty():
    _, w = core.scaled_dot_product_attention([[1, 1]], [[1, 0], [0, 1], [1, 1]], [[1, 0], [0, 1], [1, 1]], scale=1.0)
    right = feedback("q2-alpha2", f"{w[0, 1]:.4f}")
    assert right == f"<div class='ae-right'>{ZH['exercise_right']}</div>"
    wrong = feedback("q2-alpha2", "0.422")
    hint = content.markdown_to_html(BLOCKS["q2-alpha2"].parts["hint"])
    assert wrong == f"<div class='ae-wrong'>{ZH['exercise_wrong']}{hint}</div>"
    bad = feedback("q2-alpha2", "零点一五<script>")
    assert "请输入一个数字" in bad and "“零点一五&lt;script&gt;”" in bad and "<script>" not in bad
    assert "class='ae-error'" in bad
    assert ZH["exercise_empty"] in feedback("q2-alpha2", "  ") and ZH["exercise_empty"] in feedback("q2-alpha2", "")


def test_exercise_3_8_1_accepts_the_core_value():
    y = float(core.weighted_sum([0.2, 0.8], [2.0, 10.0]))
    assert view.judge(str(y), config("ex-3-8-1"))[0] == "right"


@pytest.mark.parametrize(
    "raw, status",
    [
        ("0.2125", "right"),
        ("0.2115", "right"),  # exactly tol away (half a unit of the third decimal): right
        ("0.213", "wrong"),
        ("0.211", "wrong"),  # a rounding slip of "three decimals" (0.2119 to three is 0.212)
        ("0.2126", "wrong"),
        ("0.2114", "wrong"),  # just beyond
        ("0.21", "wrong"),  # two decimals are no answer to "three decimals" (close, see below)
        ("0,212", "right"),
        ("０.２１２", "right"),
        ("0，212", "right"),
        ("53/250", "right"),
        (" 0.212 ", "right"),
        ("−0.212", "wrong"),
        ("inf", "invalid"),
        ("nan", "invalid"),
        ("0x10", "invalid"),
        ("1_000", "invalid"),
        ("1/0", "invalid"),
        ("0.1.2", "invalid"),
        ("1e999", "invalid"),
    ],
)
def test_number_judging_at_the_tolerance_edge_and_the_spellings(raw, status):
    assert view.judge(raw, config("q2-alpha2"))[0] == status


@pytest.mark.parametrize(
    "raw, close",
    [
        ("0.21", True),  # 0.212 to two decimals: close, give more decimals
        ("0,21", True),
        ("０.２１", True),
        ("0.2", True),
        ("0.22", False),  # not the answer rounded: wrong, with the hint
        ("0.3", False),
        ("0.215", False),  # three decimals, as asked: simply wrong
        ("21/100", False),  # not plain decimals
    ],
)
def test_the_answer_rounded_to_fewer_decimals_than_asked_is_told_so(raw, close):
    status, message = view.judge(raw, config("q2-alpha2"))
    assert status == "wrong"
    assert (message == ZH["exercise_close"]) is close, message
    assert (BLOCKS["q2-alpha2"].parts["hint"] == "" or ZH["exercise_wrong"] in message) is not close


@pytest.mark.parametrize(
    "raw, close",
    [("1.68e7", True), ("1.7E7", True), ("2e7", True), ("1.6e7", False), ("1.6777216e7", None), ("16800000", False)],
)
def test_the_answer_in_scientific_notation_to_fewer_digits_is_told_so(raw, close):
    """16777216 (4096², tolerance 0.5) typed as 1.68e7 is right to three digits: "close", not just wrong."""
    status, message = view.judge(raw, config("q5-entries"))
    if close is None:
        assert status == "right", (raw, status, message)
        return
    assert status == "wrong" and (message == ZH["exercise_close"]) is close, (raw, message)


def test_a_whole_number_is_never_close():
    """8 for 8.4 (exercise 3.8.1) is a wrong answer with its hint, not "give more decimals"; 8.4 is right."""
    block = next(b for b in BLOCKS.values() if b.options.get("answer") == "8.4")
    cfg = view.exercise_config(block, "zh")
    status, message = view.judge("8", cfg)
    assert status == "wrong" and message != ZH["exercise_close"] and ZH["exercise_wrong"] in message
    assert view.judge("8.4", cfg)[0] == "right"


def test_a_long_malformed_echo_is_capped_at_40_characters():
    status, message = view.judge("x" * 5000, config("q2-alpha2"))
    assert status == "invalid" and "“" + "x" * 40 + "…”" in message and len(message) < 120
    forty = view.judge(" " + "y" * 40 + " ", config("q2-alpha2"))[1]
    assert "“" + "y" * 40 + "”" in forty  # stripped, exactly 40: not cut


def test_the_echo_is_escaped_after_cutting():
    message = view.judge("<" * 50, config("q2-alpha2"))[1]
    assert "&lt;" * 40 + "…" in message and "<<" not in message


def test_choice_needs_a_choice_and_a_wrong_one_shows_the_hint():
    c = config("q3-sqrt-d")
    assert view.judge("", c) == ("invalid", ZH["exercise_choose"])
    assert view.judge("C", c) == ("right", ZH["exercise_right"])
    status, message = view.judge("A", c)
    assert status == "wrong" and message.endswith(c["hints_html"]["A"]) and c["hints_html"]["A"]  # A's own hint


def test_text_exercises_are_not_graded():
    assert view.judge("anything", config("q1-qkv")) == ("pending", "")
    v = view.exercise_view(state(response="my answer", checked="my answer"), config("q1-qkv"))
    assert v["html"]["feedback"] == "" and v["props"]["feedback"] == {"visible": False}
    assert v["props"]["input"] == {"value": "my answer"}


def test_the_feedback_belongs_to_the_last_check_not_to_later_typing():
    c = config("q2-alpha2")
    before = view.exercise_view(state(response="0.212"), c)
    assert before["html"]["feedback"] == "" and not before["props"]["feedback"]["visible"]
    after = view.exercise_view(state(response="0.9", checked="0.212"), c)
    assert "ae-right" in after["html"]["feedback"] and after["props"]["feedback"]["visible"]
    assert after["props"]["input"] == {"value": "0.9"}


def test_choice_view_marks_the_chosen_radio():
    c = config("q3-sqrt-d")
    assert view.exercise_view(state(), c)["props"]["choice"] == {"active": None}
    assert view.exercise_view(state(choice="B"), c)["props"]["choice"] == {"active": 1}
    assert "input" not in view.exercise_view(state(), c)["props"]


@pytest.mark.parametrize("language", sorted(STRINGS))
def test_reveal_shows_the_worked_answer_and_relabels_the_button(language):
    c = config("q2-alpha2", language)
    hidden = view.exercise_view(state(), c)
    assert hidden["html"]["answer"] == "" and hidden["props"]["answer"] == {"visible": False}
    assert hidden["props"]["reveal"] == {"label": STRINGS[language]["exercise_reveal"]}
    shown = view.exercise_view(state(revealed=True), c)
    assert shown["html"]["answer"] == c["answer_html"] and shown["props"]["answer"] == {"visible": True}
    assert shown["props"]["reveal"] == {"label": STRINGS[language]["exercise_hide"]}
    assert shown["sources"] == {}


def test_each_language_has_its_own_messages():
    en = view.judge("abc", config("q2-alpha2", "en"))[1]
    assert en == STRINGS["en"]["exercise_malformed"].format(raw="abc")


@pytest.mark.parametrize(
    "raw, value",
    [("0.155", 0.155), (" 0,155", 0.155), ("0，155", 0.155), ("42/5", 8.4), ("−1.5", -1.5), ("０.１５５", 0.155)],
)
def test_parse_number_accepts_common_spellings(raw, value):
    assert parse_number(raw) == pytest.approx(value)


@pytest.mark.parametrize("raw", ["", "abc", "1/0", "inf", "nan", "0.1.2", "0x10", "1_000"])
def test_parse_number_rejects_with_the_input_quoted(raw):
    with pytest.raises(ValueError, match="answer must be a .*" + re.escape(repr(raw))):
        parse_number(raw)


@pytest.mark.parametrize("language", ["zh", "en"])
def test_each_wrong_option_of_a_choice_exercise_has_its_own_hint(language):
    """A student who chose a wrong option reads a hint about that option, never the same one for all."""
    for section in content.load_sections(language):
        for block in section.exercises():
            if block.options["kind"] != "choice":
                continue
            c = view.exercise_config(block, language)
            wrong = [letter for letter in c["letters"] if letter != c["answer"]]
            assert sorted(c["hints_html"]) == wrong, (block.args, sorted(c["hints_html"]))
            said = {letter: view.judge(letter, c) for letter in wrong}
            for letter, (status, message) in said.items():
                assert status == "wrong" and message.endswith(c["hints_html"][letter]), (block.args, letter)
            assert len({message for _, message in said.values()}) == len(wrong)  # one hint each
            assert view.judge(c["answer"], c)[0] == "right"


def test_an_options_hint_falls_back_to_the_exercises_and_must_name_a_wrong_option():
    body = "Which?\n---options\nA. one\nB. two\nC. three\n---hint\nIn general.\n---hint-A\nAbout A.\n"
    block = content.Block("exercise", body, ("x",), {"kind": "choice", "answer": "B"}, content._split_parts(body))
    c = view.exercise_config(block, "en")
    assert view.judge("A", c)[1].endswith("<p>About A.</p>\n") and view.judge("C", c)[1].endswith(
        "<p>In general.</p>\n"
    )
    for wrong_part in ("hint-B", "hint-E"):  # the right option, and no option at all
        bad = body + f"---{wrong_part}\nNo.\n"
        block = content.Block("exercise", bad, ("x",), {"kind": "choice", "answer": "B"}, content._split_parts(bad))
        with pytest.raises(ValueError, match=f"---{wrong_part} names no wrong option"):
            view.exercise_config(block, "en")


@pytest.mark.parametrize("language", ["zh", "en"])
def test_a_known_mistake_gets_its_own_hint_typed_exactly_or_rounded(language):
    """33.55 for 32 MiB (megabytes), 0.114 for 0.705 (the mask forgotten): the hint is about that slip, not
    the exercise's general one, also when the slip is typed rounded; another wrong number gets the general one."""
    seen = 0
    for section in content.load_sections(language):
        for block in section.exercises():
            c = view.exercise_config(block, language)
            for wrong, hint in c.get("mistakes", []):
                seen += 1
                assert hint and hint != c["hint_html"], (block.args, wrong)
                places = len(f"{wrong:.12g}".partition(".")[2])
                # as written, and with one decimal less where one is left (a whole number is held to the
                # tolerance: 4 for the slip 3.6 may as well be any other)
                for typed in (f"{wrong:.12g}", f"{wrong:.{places - 1}f}") if places > 1 else (f"{wrong:.12g}",):
                    status, message = view.judge(typed, c)
                    if view.is_close(float(typed), typed, c):  # (0.2 is the answer 0.212 too: "more digits")
                        assert message == STRINGS[language]["exercise_close"], (block.args, typed)
                        continue
                    assert status == "wrong" and message.endswith(hint), (block.args, typed)
            if c["kind"] == "number" and c["mistakes"]:
                far = c["answer"] * 7 + 1000  # no slip anyone makes
                assert view.judge(f"{far:g}", c)[1].endswith(c["hint_html"]), block.args
    assert seen >= 10


def test_a_mistakes_hint_must_name_a_number_away_from_the_answer():
    body = "How many?\n---hint\nIn general.\n---hint-33.55\nMegabytes.\n"
    parts = content._split_parts(body)
    block = content.Block("exercise", body, ("x",), {"kind": "number", "answer": "32", "tol": "0.5"}, parts)
    c = view.exercise_config(block, "en")
    assert view.judge("33.6", c)[1].endswith("<p>Megabytes.</p>\n")
    assert view.judge("40", c)[1].endswith("<p>In general.</p>\n")
    assert view.judge("32.4", c)[0] == "right"  # the answer's tolerance comes first
    for bad, says in (("---hint-32.3\nNo.\n", "within the tolerance 0.5 of the answer 32"),):
        text = body + bad
        block = content.Block(
            "exercise", text, ("x",), {"kind": "number", "answer": "32", "tol": "0.5"}, content._split_parts(text)
        )
        with pytest.raises(ValueError, match=re.escape(says)):
            view.exercise_config(block, "en")
    text = "Which?\n---options\nA. one\nB. two\n---hint-3.5\nNo.\n"
    block = content.Block("exercise", text, ("x",), {"kind": "choice", "answer": "B"}, content._split_parts(text))
    with pytest.raises(ValueError, match="---hint-3.5 names no wrong option"):
        view.exercise_config(block, "en")
