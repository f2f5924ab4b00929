"""Every piece of user-visible UI text, one table per language (zh first).

The course text itself lives in ``content/``; this table holds the labels,
questions and messages of the explorables. Both languages carry the same
keys (a test checks it), so adding a string means adding it to both.
"""

from __future__ import annotations

DEFAULT_LANGUAGE = "zh"

STRINGS: dict[str, dict[str, str]] = {
    "zh": {
        # StepsExplorer: navigation and controls
        "steps_heading": "先预测，再演示：两个值的注意力读取",
        "step_button": "第 {n} 步",
        "demonstrate": "演示本步",
        "demonstrating": "演示中…",
        "score_diff": "分数差 s₂ − s₁",
        "score_1": "第一项分数 s₁",
        "temperature": "温度 T",
        "value_1": "值 v₁",
        "value_2": "值 v₂",
        "prediction": "你的预测：输出 y ≈",
        "prediction_invalid": "预测必须是 {lo} 到 {hi} 之间的数字，收到的是「{raw}」。",
        "prediction_hint": "输入一个数字（或点击数轴）来预测演示结束时的输出 y，然后点「演示本步」。",
        # steps
        "step1_title": "第 1 步 · 分数相等",
        "step1_question": "两项分数相同（s₁ = s₂），值为 v₁ = 2、v₂ = 10。输出 y 会落在哪里？",
        "step1_explain": "分数相等时两项权重都是 0.5，输出正好是两个值的中点。",
        "step2_title": "第 2 步 · 提高第二项分数",
        "step2_question": "把第二项分数提高 2（分数差从 0 变到 2），输出 y 会移到哪里？",
        "step2_explain": "第二项的权重变大，输出向 v₂ 移动；权重非负且和为 1，所以输出始终留在区间 [v₁, v₂] 之内。",
        "step3_title": "第 3 步 · 调低温度",
        "step3_question": "分数差固定为 2（s₁ = 20，s₂ = 22），把温度从 T = 1 降到 T = 0.02，输出 y 会到哪里？",
        "step3_explain": "温度越低，较大分数占的份额越大，输出贴近 v₂；温度越高，权重趋向平均。无论多低的温度，softmax 都是连续的加权，而不是硬性取最大值。",
        # readouts
        "readout_scores": "分数",
        "readout_temperature": "温度",
        "readout_weights": "权重",
        "readout_output": "输出",
        "formula_label": "代入当前数值",
        "stable_label": "稳定算法（先减去最大分数）",
        "naive_label": "直接计算 exp(s/T)",
        "naive_overflow": "溢出：exp 得到 ∞，∞/∞ = NaN",
        "naive_underflow": "下溢：exp 全为 0，0/0 = NaN",
        "naive_ok": "此处尚未溢出",
        "result_label": "核对",
        "result_with_prediction": "你的预测 y = {pred}；实际 y = {true}；相差 {gap}",
        "result_no_prediction": "实际 y = {true}（这次没有先做预测）",
        "result_pending": "先预测，再点「演示本步」核对。",
        # plots
        "plot_number_line": "数轴：两个值、输出 y 与你的预测",
        "plot_weights": "权重",
        "plot_temperature_curve": "较大分数的权重随温度变化",
        "axis_temperature": "温度 T（对数刻度）",
        "axis_weight": "权重",
        "legend_interval": "凸组合区间",
        "legend_output": "输出 y",
        "legend_prediction": "你的预测",
        "legend_value": "值",
        # errors
        "error_prefix": "输入有误：",
    },
    "en": {
        "steps_heading": "Predict, then demonstrate: attention over two values",
        "step_button": "Step {n}",
        "demonstrate": "Demonstrate this step",
        "demonstrating": "Demonstrating…",
        "score_diff": "Score difference s₂ − s₁",
        "score_1": "First score s₁",
        "temperature": "Temperature T",
        "value_1": "Value v₁",
        "value_2": "Value v₂",
        "prediction": "Your prediction: output y ≈",
        "prediction_invalid": "The prediction must be a number between {lo} and {hi}; got “{raw}”.",
        "prediction_hint": "Type a number (or click the number line) to predict the output y at the end of the demonstration, then press “Demonstrate this step”.",
        "step1_title": "Step 1 · Equal scores",
        "step1_question": "Both scores are equal (s₁ = s₂); the values are v₁ = 2 and v₂ = 10. Where does the output y land?",
        "step1_explain": "With equal scores both weights are 0.5 and the output is the midpoint of the two values.",
        "step2_title": "Step 2 · Raise the second score",
        "step2_question": "Raise the second score by 2 (the difference goes from 0 to 2). Where does the output y move?",
        "step2_explain": "The second weight grows and the output moves towards v₂; the weights are non-negative and sum to 1, so the output never leaves [v₁, v₂].",
        "step3_title": "Step 3 · Lower the temperature",
        "step3_question": "Keep the difference at 2 (s₁ = 20, s₂ = 22) and lower the temperature from T = 1 to T = 0.02. Where does the output y go?",
        "step3_explain": "A low temperature gives the larger score a larger share and the output approaches v₂; a high temperature tends to the plain average. At any temperature softmax stays a continuous weighting, never a hard maximum.",
        "readout_scores": "Scores",
        "readout_temperature": "Temperature",
        "readout_weights": "Weights",
        "readout_output": "Output",
        "formula_label": "With the current numbers",
        "stable_label": "Stable method (subtract the largest score first)",
        "naive_label": "Literal exp(s/T)",
        "naive_overflow": "overflow: exp gives ∞, and ∞/∞ = NaN",
        "naive_underflow": "underflow: every exp is 0, and 0/0 = NaN",
        "naive_ok": "no overflow here yet",
        "result_label": "Check",
        "result_with_prediction": "You predicted y = {pred}; the result is y = {true}; off by {gap}",
        "result_no_prediction": "The result is y = {true} (no prediction this time)",
        "result_pending": "Predict first, then press “Demonstrate this step”.",
        "plot_number_line": "Number line: the two values, the output y and your prediction",
        "plot_weights": "Weights",
        "plot_temperature_curve": "Weight of the larger score against temperature",
        "axis_temperature": "Temperature T (log scale)",
        "axis_weight": "Weight",
        "legend_interval": "convex interval",
        "legend_output": "output y",
        "legend_prediction": "your prediction",
        "legend_value": "values",
        "error_prefix": "Invalid input: ",
    },
}


def text(key: str, language: str = DEFAULT_LANGUAGE, **fmt) -> str:
    """Look up ``key`` in the table of ``language`` and format it.

    Raises
    ------
    KeyError
        If ``language`` or ``key`` is unknown (the message names it).
    """
    try:
        table = STRINGS[language]
    except KeyError:
        raise KeyError(f"unknown language {language!r}; known: {sorted(STRINGS)}") from None
    try:
        s = table[key]
    except KeyError:
        raise KeyError(f"no string {key!r} for language {language!r}") from None
    return s.format(**fmt) if fmt else s
