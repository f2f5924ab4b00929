"""The Python view of the self- and cross-attention explorable (the oracle of web/selfcross.js) on chosen states."""

from __future__ import annotations

import re

import numpy as np
import pytest

from attention_explorable import core
from attention_explorable.strings import STRINGS
from attention_explorable.views import selfcross as view
from attention_explorable.views.selfcross import EN_EMBEDDINGS, EN_TOKENS, ZH_EMBEDDINGS, ZH_TOKENS

CONFIG = view.selfcross_config("zh")
ZH = STRINGS["zh"]


def state(mode="self_zh", causal=False, query=1):
    """A state past the question (its weights shown); the question's own test starts before it."""
    return {"mode": mode, "causal": causal, "query": query, "revealed": True}


def weights(q, kv, mask=None):
    return core.scaled_dot_product_attention(q, kv, kv, mask=mask)[1]


def cell_texts(v) -> dict:
    """(row, column) -> the number written in the heatmap cell."""
    cells = v["sources"]["cells"]
    return dict(zip(zip(cells["y"], cells["x"]), cells["text"]))


def test_default_is_chinese_self_attention():
    v = view.selfcross_view(state(), CONFIG)
    q_tokens, k_tokens, w, mask = view.selfcross_weights(state(), CONFIG)
    np.testing.assert_allclose(w, weights(ZH_EMBEDDINGS, ZH_EMBEDDINGS))
    assert tuple(q_tokens) == tuple(k_tokens) == ZH_TOKENS and mask.all()
    assert v["props"]["x_axis"]["axis_label"] == ZH["selfcross_axis_key"].format(source=ZH["selfcross_source_zh"])
    assert v["props"]["y_axis"]["axis_label"] == ZH["selfcross_axis_query"].format(source=ZH["selfcross_source_zh"])
    assert "Q、键 K、值 V 都来自中文句子“我 爱 机器 学习”" in v["html"]["roles"]
    # (the English sentence too, in its language: the question asks about its second word)
    assert "（英文译文“<span lang='en'>I love machine learning</span>”）" in v["html"]["roles"]
    # 机器 and 学习 attend to each other: a sensible toy pattern.
    assert w[2, 3] > 0.3 and w[3, 2] > 0.3
    assert cell_texts(v)[(3, 4)] == f"{w[2, 3]:.2f}"


def test_cross_mode_has_english_rows_and_chinese_columns():
    v = view.selfcross_view(state("cross"), CONFIG)
    q_tokens, k_tokens, w, _ = view.selfcross_weights(state("cross"), CONFIG)
    assert w.shape == (len(EN_TOKENS), len(ZH_TOKENS))
    np.testing.assert_allclose(w, weights(EN_EMBEDDINGS, ZH_EMBEDDINGS))
    assert tuple(q_tokens) == EN_TOKENS and tuple(k_tokens) == ZH_TOKENS
    props = v["props"]
    assert props["y_axis"]["major_label_overrides"] == {str(i): t for i, t in enumerate(EN_TOKENS, start=1)}
    assert props["x_axis"]["major_label_overrides"] == {str(j): t for j, t in enumerate(ZH_TOKENS, start=1)}
    assert props["y_axis"]["axis_label"] == "查询来自：英文句子"
    assert props["x_axis"]["axis_label"] == "键和值来自：中文句子"
    assert v["ranges"] == {"x_range": [0.5, len(ZH_TOKENS) + 0.5], "y_range": [len(EN_TOKENS) + 0.5, 0.5]}
    assert len(v["sources"]["cells"]["x"]) == len(EN_TOKENS) * len(ZH_TOKENS)
    roles = v["html"]["roles"]
    assert "查询 Q 来自英文句子" in roles and "键 K 和值 V 来自中文句子" in roles
    # Each English word attends most to its translation.
    assert [ZH_TOKENS[j] for j in w.argmax(axis=1)] == list(ZH_TOKENS)
    assert props["query"]["labels"] == list(EN_TOKENS) and props["mode"]["active"] == 2


def test_query_row_readout_and_highlight():
    v = view.selfcross_view(state("cross", query=2), CONFIG)
    row = weights(EN_EMBEDDINGS, ZH_EMBEDDINGS)[1]
    html = v["html"]["row"]
    assert "查询“<span lang='en'>love</span>”的权重" in html  # an English token on a Chinese page says so
    for tok, w in zip(ZH_TOKENS, row):
        assert f"<td>{tok}</td><td><b>{w:.3f}</b></td>" in html
    assert f"最关注“爱”（权重 {row.max():.3f}）" in html
    assert v["sources"]["highlight"] == {"x": [2.5], "y": [2], "width": [3.98], "height": [0.98]}
    assert v["props"]["query"]["active"] == 1
    v = view.selfcross_view(state("cross", query=4), CONFIG)
    assert "查询“<span lang='en'>learning</span>”的权重" in v["html"]["row"] and v["sources"]["highlight"]["y"] == [4]


def test_causal_mask_in_english_self_attention_only():
    zh = view.selfcross_view(state(causal=True), CONFIG)  # ignored outside the decoder's self-attention
    np.testing.assert_allclose(
        view.selfcross_weights(state(causal=True), CONFIG)[2], weights(ZH_EMBEDDINGS, ZH_EMBEDDINGS)
    )
    # Unticked where it does not apply (a ticked, greyed box read as "on"); the state keeps it for the
    # English self-attention.
    assert zh["props"]["causal"] == {"active": False, "disabled": True}
    zh = view.selfcross_view({**state(causal=True), "revealed": True}, CONFIG)  # (greyed after the prediction too)
    assert zh["props"]["causal"] == {"active": False, "disabled": True}
    en = view.selfcross_view({**state("self_en", causal=True), "revealed": True}, CONFIG)
    assert en["props"]["causal"] == {"active": True, "disabled": False}
    w = view.selfcross_weights(state("self_en", causal=True), CONFIG)[2]
    np.testing.assert_allclose(w, weights(EN_EMBEDDINGS, EN_EMBEDDINGS, core.causal_mask(4)))
    assert np.all(w[np.triu_indices(4, 1)] == 0.0)
    texts = cell_texts(en)
    assert texts[(1, 2)] == "—" and texts[(2, 1)] != "—"
    fills = dict(zip(zip(en["sources"]["cells"]["y"], en["sources"]["cells"]["x"]), en["sources"]["cells"]["fill"]))
    assert fills[(1, 2)] == view.MASKED_FILL and fills[(2, 1)] != view.MASKED_FILL
    assert ZH["selfcross_roles_self_en_causal"] in en["html"]["roles"]
    # "I" sees only itself; a masked key reads "—" in the row readout, as in its heatmap cell.
    first = view.selfcross_view(state("self_en", causal=True, query=1), CONFIG)["html"]["row"]
    assert "<td><span lang='en'>I</span></td><td><b>1.000</b></td>" in first
    assert "<td><span lang='en'>love</span></td><td><b>—</b></td>" in first
    cross = view.selfcross_view(state("cross", causal=True), CONFIG)
    assert np.all(view.selfcross_weights(state("cross", causal=True), CONFIG)[2] > 0)
    assert ZH["selfcross_roles_self_en_causal"] not in cross["html"]["roles"]
    assert "—" not in cell_texts(cross).values()


@pytest.mark.parametrize("mode", view.MODES)
@pytest.mark.parametrize("causal", [False, True])
def test_rows_sum_to_one_in_every_mode(mode, causal):
    w = view.selfcross_weights(state(mode, causal), CONFIG)[2]
    np.testing.assert_allclose(w.sum(axis=1), 1.0)
    assert np.all(w >= 0)


def test_colours_are_those_of_the_other_heatmaps():
    from bokeh.palettes import Blues256

    from attention_explorable import plots

    assert view.blues256() == list(Blues256)
    assert (view.MASKED_FILL, view.MASKED_TEXT) == (plots.PALETTE_37["masked"], "#777777")
    st = state("self_en", causal=True)
    v = view.selfcross_view(st, CONFIG)
    _, _, w, mask = view.selfcross_weights(st, CONFIG)
    cells = list(zip(w.ravel().tolist(), mask.ravel().tolist()))
    fill = [Blues256[round((1.0 - x) * 255)] if m else plots.PALETTE_37["masked"] for x, m in cells]
    text_color = [("#ffffff" if x > 0.5 else "#222222") if m else "#777777" for x, m in cells]
    assert v["sources"]["cells"]["fill"] == fill and v["sources"]["cells"]["text_color"] == text_color


def test_page_says_the_vectors_are_hand_made():
    assert "手工设定" in view.selfcross_view(state(), CONFIG)["html"]["note"]
    assert "hand-made" in view.selfcross_view(state(), view.selfcross_config("en"))["html"]["note"]


def test_every_ui_string_comes_from_the_table():
    en = view.selfcross_view(state("cross"), view.selfcross_config("en"))
    assert en["props"]["x_axis"]["axis_label"] == "Keys and values: Chinese words"
    assert "Queries: English words" == en["props"]["y_axis"]["axis_label"]
    assert "Weights of the query “I”" in en["html"]["row"]
    for language in STRINGS:
        config = view.selfcross_config(language)
        assert set(config["strings"]) == set(view.STRING_KEYS)
        assert all(config["strings"][k] == STRINGS[language][k] for k in view.STRING_KEYS)


def test_tokens_are_escaped():
    config = view.selfcross_config("en")
    config["sentences"]["en"]["tokens"] = ["<b>", "a&b", '"q"', "x"]
    v = view.selfcross_view(state("cross", query=1), config)
    assert "&lt;b&gt;" in v["html"]["row"] and "<b>&" not in v["html"]["roles"]
    assert "a&amp;b" in v["html"]["roles"]
    assert v["props"]["query"]["labels"][0] == "<b>"  # a button label is text, not HTML


@pytest.mark.parametrize(
    "bad, match",
    [
        ({"mode": "self_fr"}, "mode"),
        ({"query": 0}, "query"),
        ({"query": 5}, "query"),
        ({"query": 1.5}, "query"),
        ({"query": True}, "query"),
    ],
)
def test_bad_state_names_the_parameter_and_value(bad, match):
    with pytest.raises(ValueError, match=match) as err:
        view.selfcross_view({**state(), **bad}, CONFIG)
    assert repr(next(iter(bad.values()))) in str(err.value)


@pytest.mark.parametrize("language, other, tag", [("zh", "en", "en"), ("en", "zh", "zh-Hans")])
def test_tokens_of_the_other_language_carry_their_lang(language, other, tag):
    """WCAG 3.1.2: a screen reader reads each token in its own language, tables and sentences included."""
    config = view.selfcross_config(language)
    cross = view.selfcross_view(state("cross", query=1), config)
    for name in ("roles", "row", "plot_data", "live"):
        assert f"<span lang='{tag}'>" in cross["html"][name], name
    own = view.selfcross_view(state(f"self_{language}", query=1), config)
    assert "<span lang=" not in own["html"]["plot_data"] and "<span lang=" not in own["html"]["row"]


def test_the_prediction_waits_and_its_answer_is_the_cross_attention_row():
    before = view.selfcross_view({**state(), "prediction": "", "revealed": False}, CONFIG)
    S = CONFIG["strings"]
    assert before["html"]["feedback"] == f"<span class='ae-hint'>{S['predict_locked']}</span>" and before["props"][
        "predict_skip"
    ] == {"visible": True}
    # Nothing to try before the prediction: the kind of attention, the mask and the query wait for it.
    assert view.LOCKED == ("mode", "causal", "query")
    assert all(before["props"][n]["disabled"] is True for n in view.LOCKED)
    # Nor any weight to read: the self-attention map would show how alike the words are, which answers it.
    assert set(before["sources"]["cells"]["text"]) == {"?"}
    assert S["selfcross_hidden"] in before["html"]["row"] and not re.search(r"\d\.\d", before["html"]["row"])
    assert before["html"]["live"] == "" and not re.search(r"\d\.\d", before["html"]["plot_data"])
    cross = weights(EN_EMBEDDINGS, ZH_EMBEDDINGS)
    asked = cross[view.ASKED_QUERY - 1]
    best, second = np.argsort(-asked)[:2]
    # the question's answer: "machine" shares its weight between 机器 and 学习
    assert (EN_TOKENS[view.ASKED_QUERY - 1], ZH_TOKENS[best], ZH_TOKENS[second]) == ("machine", "机器", "学习")
    assert asked[best] + asked[second] > 0.9 and asked[second] > 0.3
    for query in range(1, 5):  # (the answer is the asked query's row, whatever row is shown)
        for prediction in view.PREDICTIONS:
            after = view.selfcross_view(
                {**state("cross", query=query), "prediction": prediction, "revealed": True}, CONFIG
            )
            feedback = re.sub(r"<[^>]+>", "", after["html"]["feedback"])  # the English token in its lang span
            assert "“machine”那一行" in feedback
            assert f"“机器”分到 {asked[best]:.3f}，“学习”也分到 {asked[second]:.3f}" in feedback
            assert after["props"]["mode"]["disabled"] is after["props"]["query"]["disabled"] is False
            assert after["props"]["prediction_choice"]["disabled"] and after["props"]["predict_check"] == {
                "visible": False
            }
            right = ZH["predict_right"] in feedback
            assert right == (prediction == view.RIGHT_PREDICTION == "split") and (
                (ZH["predict_wrong"] in feedback) == bool(prediction and not right)
            )


@pytest.mark.parametrize("bad", [{"prediction": "zh"}, {"revealed": 0}])
def test_a_malformed_prediction_is_named(bad):
    with pytest.raises(ValueError, match=next(iter(bad))):
        view.selfcross_view({**state(), **bad}, CONFIG)


@pytest.mark.parametrize("mode", view.MODES)
def test_self_attention_says_why_each_row_leans_on_itself_and_it_does(mode):
    """With no projections a word is its own query and key: in both self-attention modes every row's
    largest weight is on the diagonal, as the sentence the self modes add says; cross-attention has none."""
    roles = view.selfcross_view({**state(mode), "revealed": True}, CONFIG)["html"]["roles"]
    said = ZH["selfcross_roles_self_diagonal"] in roles
    assert said == (mode != "cross")
    if said:
        w = view.selfcross_weights(state(mode), CONFIG)[2]
        assert list(np.argmax(w, axis=1)) == list(range(len(w)))


def test_on_the_english_page_a_chinese_word_is_named_with_its_english():
    """A reader of English alone follows the Chinese keys: each Chinese word the readouts, the table and the
    answer name carries its English word beside it on the English page ("机器 (machine)"), not on the Chinese."""
    st = {**state("cross", query=3), "revealed": True}
    en = view.selfcross_view(st, view.selfcross_config("en"))
    zh = view.selfcross_view(st, CONFIG)
    glossed = "<span lang='zh-Hans'>机器</span> (machine)"
    for part in ("row", "plot_data", "feedback", "note"):
        assert glossed in en["html"][part], part
        assert "(machine)" not in zh["html"][part], part
