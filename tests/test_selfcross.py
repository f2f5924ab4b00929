"""Component tests of SelfCrossExplorer (section 3.7.8), without a browser."""

import numpy as np
import panel as pn
import pytest

from attention_explorable import core
from attention_explorable.selfcross import (
    EN_EMBEDDINGS,
    EN_TOKENS,
    ZH_EMBEDDINGS,
    ZH_TOKENS,
    SelfCrossExplorer,
)
from attention_explorable.strings import STRINGS

ZH = STRINGS["zh"]


@pytest.fixture
def explorer():
    return SelfCrossExplorer()


def weights(q, kv, mask=None):
    return core.scaled_dot_product_attention(q, kv, kv, mask=mask)[1]


def test_default_is_chinese_self_attention(explorer):
    assert explorer.mode == "self_zh"
    np.testing.assert_allclose(explorer.weights, weights(ZH_EMBEDDINGS, ZH_EMBEDDINGS))
    assert explorer.query_tokens == explorer.key_tokens == ZH_TOKENS
    fig = explorer._figure
    assert fig.xaxis[0].axis_label == ZH["selfcross_axis_key"].format(source=ZH["selfcross_source_zh"])
    assert fig.yaxis[0].axis_label == ZH["selfcross_axis_query"].format(source=ZH["selfcross_source_zh"])
    assert "Q、键 K、值 V 都来自中文句子" in explorer._roles.object
    # 机器 and 学习 attend to each other: a sensible toy pattern.
    assert explorer.weights[2, 3] > 0.3 and explorer.weights[3, 2] > 0.3


def test_cross_mode_has_english_rows_and_chinese_columns(explorer):
    explorer.mode = "cross"
    assert explorer.weights.shape == (len(EN_TOKENS), len(ZH_TOKENS))
    np.testing.assert_allclose(explorer.weights, weights(EN_EMBEDDINGS, ZH_EMBEDDINGS))
    assert explorer.query_tokens == EN_TOKENS and explorer.key_tokens == ZH_TOKENS
    fig = explorer._figure
    assert fig.yaxis[0].major_label_overrides == dict(enumerate(EN_TOKENS, start=1))
    assert fig.xaxis[0].major_label_overrides == dict(enumerate(ZH_TOKENS, start=1))
    assert fig.yaxis[0].axis_label == "查询来自：英文句子"
    assert fig.xaxis[0].axis_label == "键和值来自：中文句子"
    assert fig.y_range.start == len(EN_TOKENS) + 0.5 and fig.x_range.end == len(ZH_TOKENS) + 0.5
    assert len(explorer._cells.data["x"]) == len(EN_TOKENS) * len(ZH_TOKENS)
    roles = explorer._roles.object
    assert "查询 Q 来自英文句子" in roles and "键 K 和值 V 来自中文句子" in roles
    # Each English word attends most to its translation.
    assert [ZH_TOKENS[j] for j in explorer.weights.argmax(axis=1)] == list(ZH_TOKENS)
    assert list(explorer._controls["query"].options) == list(EN_TOKENS)


def test_query_row_readout_and_highlight(explorer):
    explorer.param.update(mode="cross", query=2)
    row = explorer.weights[1]
    html = explorer._row.object
    assert "查询「love」的权重" in html
    for tok, w in zip(ZH_TOKENS, row):
        assert f"<td>{tok}</td><td><b>{w:.3f}</b></td>" in html
    assert f"最关注「爱」（权重 {row.max():.3f}）" in html
    assert explorer._highlight.data["y"] == [2]
    explorer.query = 4
    assert "查询「learning」的权重" in explorer._row.object and explorer._highlight.data["y"] == [4]


def test_causal_mask_in_english_self_attention_only(explorer):
    explorer.causal = True  # ignored outside the decoder's self-attention
    np.testing.assert_allclose(explorer.weights, weights(ZH_EMBEDDINGS, ZH_EMBEDDINGS))
    assert explorer._controls["causal"].disabled
    explorer.mode = "self_en"
    assert not explorer._controls["causal"].disabled
    np.testing.assert_allclose(explorer.weights, weights(EN_EMBEDDINGS, EN_EMBEDDINGS, core.causal_mask(4)))
    assert np.all(explorer.weights[np.triu_indices(4, 1)] == 0.0)
    texts = dict(zip(zip(explorer._cells.data["y"], explorer._cells.data["x"]), explorer._cells.data["text"]))
    assert texts[(1, 2)] == "—" and texts[(2, 1)] != "—"
    assert ZH["selfcross_roles_self_en_causal"] in explorer._roles.object
    explorer.mode = "cross"
    assert np.all(explorer.weights > 0)
    assert ZH["selfcross_roles_self_en_causal"] not in explorer._roles.object


def test_rows_sum_to_one_in_every_mode(explorer):
    for mode in ("self_zh", "self_en", "cross"):
        explorer.mode = mode
        np.testing.assert_allclose(explorer.weights.sum(axis=1), 1.0)


def test_page_says_the_vectors_are_hand_made(explorer):
    assert "手工设定" in explorer._note.object
    assert "hand-made" in SelfCrossExplorer(language="en")._note.object


@pytest.mark.parametrize("name, bad", [("mode", "self_fr"), ("query", 0), ("query", 5), ("causal", 1.5)])
def test_bad_input_names_parameter(explorer, name, bad):
    with pytest.raises(ValueError, match=name):
        setattr(explorer, name, bad)
    assert explorer.weights.shape == (4, 4) and not explorer._error.visible


def test_sources_get_fresh_dicts(explorer):
    before = explorer._cells.data
    explorer.mode = "self_en"
    assert explorer._cells.data is not before


def test_every_ui_string_comes_from_the_table():
    en = SelfCrossExplorer(language="en", mode="cross")
    assert en._figure.xaxis[0].axis_label == "Keys and values from: the Chinese sentence"
    assert list(en._controls["mode"].options) == [STRINGS["en"][f"selfcross_mode_{m}"]
                                                  for m in ("self_zh", "self_en", "cross")]
    zh = SelfCrossExplorer()
    assert list(zh._controls["mode"].options) == ["自注意力（中文）", "自注意力（英文）",
                                                  "交叉注意力（英文查询 → 中文键/值）"]


def test_layout_renders_and_carries_css_classes(explorer):
    root = pn.panel(explorer).get_root()
    classes = set()
    for model in root.references():
        classes.update(getattr(model, "css_classes", []) or [])
    for css in ["ae-selfcross-mode", "ae-selfcross-query", "ae-selfcross-causal",
                "ae-selfcross-roles", "ae-selfcross-row"]:
        assert css in classes, css


def test_each_explorer_has_its_own_widgets_and_sources():
    a, b = SelfCrossExplorer(), SelfCrossExplorer()
    a.mode = "cross"
    assert b.mode == "self_zh" and b.query_tokens == ZH_TOKENS
    assert a._controls["mode"] is not b._controls["mode"] and a._cells is not b._cells
