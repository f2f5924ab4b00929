"""What the self- and cross-attention explorable (section 3.7.8) displays, as one pure function of its state.

:func:`selfcross_view` turns a state (the kind of attention, the causal
mask, the highlighted query row) into everything on screen: the heatmap's
cells and highlighted row, its ranges, the axis titles that say which
sentence plays which role, the token on each row and column, the readouts
and the positions of the controls. The weights come from
:func:`attention_explorable.core.scaled_dot_product_attention`. Its
JavaScript twin is ``selfcrossView`` in ``web/selfcross.js``.

The two sentences and their hand-made 4-dimensional toy embeddings are data
(:func:`selfcross_config`), not trained vectors, and the page says so. They
serve directly as queries, keys and values (identity projections)::

    self_zh:  Q = K = V = X_zh          weights (n_zh, n_zh)
    self_en:  Q = K = V = X_en          weights (n_en, n_en), optionally causal
    cross:    Q = X_en, K = V = X_zh    weights (n_en, n_zh)

References: course section 3.7.8 ("自注意力与交叉注意力"); A. Vaswani et al.,
"Attention Is All You Need", NeurIPS 2017, sections 3.2.1 and 3.2.3.
"""

from __future__ import annotations

import html

import numpy as np

from .. import core
from ..strings import HTML_LANG, text
from . import choice
from .numbers import data_table, format_number, vector_list

#: The source sentence and its translation, one token per entry.
ZH_TOKENS = ("我", "爱", "机器", "学习")
EN_TOKENS = ("I", "love", "machine", "learning")

# Hand-made toy embeddings, d = 4; the axes mean roughly "speaker",
# "affection", "machine", "learning". A word and its translation point the
# same way, and related words (爱 ~ 我, 机器 ~ 学习) overlap, so the weights
# show sensible alignments. They are not trained vectors, and the page says so.
ZH_EMBEDDINGS = ((2.0, 1.0, 0.0, 0.0), (1.0, 2.0, 0.0, 1.0), (0.0, 0.0, 2.0, 1.5), (0.0, 0.5, 1.5, 2.0))
EN_EMBEDDINGS = ((2.2, 0.8, 0.0, 0.0), (0.8, 2.2, 0.0, 0.8), (0.0, 0.0, 2.2, 1.2), (0.0, 0.6, 1.2, 2.2))

#: The kinds of attention, in the order of the mode buttons.
MODES = ("self_zh", "self_en", "cross")
#: Mode -> (sentence of the queries, sentence of the keys and values).
SIDES = {"self_zh": ("zh", "zh"), "self_en": ("en", "en"), "cross": ("en", "zh")}
#: Highest query row: the shorter sentence's length (the row exists in every mode).
N_QUERY = min(len(ZH_TOKENS), len(EN_TOKENS))
#: The student's prediction, asked first: how the cross-attention row of the English word "machine" shares
#: its weight (nearly all on 机器, between 机器 and 学习, mostly on 学习, about evenly).
PREDICTIONS = ("", "jiqi", "split", "xuexi", "even")
#: The right one: 机器 and 学习 overlap in the toy vectors, so "machine" shares its weight between them.
RIGHT_PREDICTION = "split"
#: The query the question names: the English word "machine" (its row is the answer, whatever row is shown).
ASKED_QUERY = 3
#: The course section it belongs to: its prediction is a class question of that section.
SECTION = "3.7"
#: The state of the explorable: the controls, then the prediction and whether its answer shows
#: (``views/choice.py``).
STATE_NAMES = ("mode", "causal", "query", "prediction", "revealed")
#: The controls that wait for the prediction (``views/choice.py`` ``lock``): nothing to try before it.
LOCKED = ("mode", "causal", "query")

# Ends of Bokeh's Blues256 (ColorBrewer's nine blues, light to dark); the 256
# colours are their linear interpolation, exactly as Bokeh's palette.
_BLUES9 = ("#f7fbff", "#deebf7", "#c6dbef", "#9ecae1", "#6baed6", "#4292c6", "#2171b5", "#08519c", "#08306b")
#: Fill and text colour of a masked cell (plots.PALETTE_37["masked"]).
MASKED_FILL, MASKED_TEXT = "#E4E4E4", "#777777"

STRING_KEYS = (
    "selfcross_mode",
    *(f"selfcross_mode_{m}" for m in MODES),
    "selfcross_causal",
    "selfcross_query",
    "selfcross_predict_question",
    "selfcross_toy_note",
    "selfcross_hidden",
    "selfcross_vectors",
    "selfcross_axis_query",
    "selfcross_axis_key",
    "selfcross_source_zh",
    "selfcross_source_en",
    "selfcross_roles_self_zh",
    "selfcross_roles_self_en",
    "selfcross_roles_self_diagonal",
    "selfcross_roles_self_en_causal",
    "selfcross_roles_no_mask",
    "selfcross_roles_cross",
    "selfcross_row",
    "selfcross_row_best",
    "selfcross_query_hint",
    "selfcross_plot",
    "selfcross_predict_answer",
    *(f"selfcross_predict_{p}" for p in PREDICTIONS[1:]),
    *choice.why_keys("selfcross", PREDICTIONS, RIGHT_PREDICTION),
    *choice.STRING_KEYS,
)


def blues256() -> list[str]:
    """Bokeh's ``Blues256`` (darkest first) as the interpolation of ColorBrewer's nine blues.

    >>> blues256()[0], blues256()[-1], len(blues256())
    ('#08306b', '#f7fbff', 256)
    """
    anchors = [[int(h[i : i + 2], 16) for i in (1, 3, 5)] for h in _BLUES9]
    out = []
    for i in range(256):
        t = i / 255 * 8
        k = min(int(t), 7)
        f = t - k
        rgb = (round(a + (b - a) * f) for a, b in zip(anchors[k], anchors[k + 1]))
        out.append("#{:02x}{:02x}{:02x}".format(*rgb))
    return out[::-1]


#: The ``lang`` of each sentence's language (BCP 47), as on the page's ``<html lang>``.
LANG_TAGS = HTML_LANG


def selfcross_config(language: str) -> dict:
    """What :func:`selfcross_view` needs besides the state, as JSON-able data.

    ``strings`` (the interface text in ``language``), ``sentences`` (for
    ``"zh"`` and ``"en"``: ``tokens``, a list of n str, and ``embeddings``,
    n lists of d floats), ``palette`` (256 fill colours of the weights,
    darkest first), ``masked`` (fill and text colour of a masked cell). The
    same dict is sent to the browser once.

    Raises
    ------
    KeyError
        If ``language`` is unknown.
    """
    return {
        "strings": {key: text(key, language) for key in STRING_KEYS},
        "sentences": {
            "zh": {"tokens": list(ZH_TOKENS), "embeddings": [list(row) for row in ZH_EMBEDDINGS]},
            "en": {"tokens": list(EN_TOKENS), "embeddings": [list(row) for row in EN_EMBEDDINGS]},
        },
        "palette": blues256(),
        "masked": [MASKED_FILL, MASKED_TEXT],
        # A token of the other language carries its own lang (WCAG 3.1.2), so a
        # screen reader pronounces it in that language.
        "language": language,
        "lang_tags": dict(LANG_TAGS),
    }


def selfcross_weights(state, config: dict):
    """The attention of one state: tokens of the rows and columns, weights and mask.

    Parameters
    ----------
    state : Mapping
        ``mode`` (one of :data:`MODES`), ``causal`` (bool; only the English
        self-attention, the decoder's, is ever causal).
    config : dict
        :func:`selfcross_config`, or the same shape with other sentences.

    Returns
    -------
    q_tokens : list of str, length n_q
        Tokens of the queries (the rows).
    k_tokens : list of str, length n_k
        Tokens of the keys and values (the columns).
    weights : ndarray, shape (n_q, n_k)
        ``softmax(Q Kᵀ / √d)`` with masked entries exactly 0; each row sums to 1.
    mask : ndarray of bool, shape (n_q, n_k)
        True where a query may attend a key.

    Raises
    ------
    ValueError
        If ``mode`` is not one of :data:`MODES` (the message names it), or
        from the core if the embeddings are not finite or their widths differ.
    """
    mode = state["mode"]
    if mode not in SIDES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}; got {mode!r}")
    q_side, k_side = SIDES[mode]
    q, kv = config["sentences"][q_side], config["sentences"][k_side]
    n_q, n_k = len(q["tokens"]), len(kv["tokens"])
    causal = bool(state["causal"]) and mode == "self_en"  # the decoder may not look at later words
    mask = core.causal_mask(n_q) if causal else np.ones((n_q, n_k), dtype=bool)
    _, weights = core.scaled_dot_product_attention(
        q["embeddings"], kv["embeddings"], kv["embeddings"], mask=mask
    )  # (n_q, n_k)
    return list(q["tokens"]), list(kv["tokens"]), weights, mask


def selfcross_view(state, config: dict) -> dict:
    """Everything the self- and cross-attention explorable displays for one state.

    Parameters
    ----------
    state : Mapping
        ``mode`` (``"self_zh"``, ``"self_en"`` or ``"cross"``), ``causal``
        (bool), ``query`` (the highlighted query row, 1-based int);
        ``prediction`` (one of :data:`PREDICTIONS`) and ``revealed`` (bool),
        both optional.
    config : dict
        :func:`selfcross_config` of the interface language.

    Returns
    -------
    dict
        A view (see :mod:`attention_explorable.views`): sources ``cells``
        (columns ``x`` = key j, ``y`` = query i, ``fill``, ``text``,
        ``text_color``; n_q·n_k rows, row-major) and ``highlight`` (the
        query row's outline); ranges ``x_range``, ``y_range``; html
        ``roles``, ``row`` (the query row's weights), ``hint``, ``feedback``
        (the verdict on the prediction and the answer, once revealed), ``note`` (the
        vectors are toys), ``plot_data`` (the heatmap as a table), ``live``
        (the query row's strongest weight, announced once settled); props ``x_axis`` and ``y_axis``
        (``axis_label`` naming the sentence of the keys and values and of the
        queries; ``major_label_overrides``, tick as a decimal string -> token),
        ``mode`` (``active`` button), ``causal`` (``active``, ``disabled``
        outside the English self-attention), ``query`` (``labels``: the
        query tokens, ``active`` button) and the question's controls
        (``views/choice.py``).

    Raises
    ------
    ValueError
        If ``mode`` is unknown, ``query`` is not a row (1 to n_q) or the
        prediction is malformed; the message names the parameter and the value.
    """
    S, f = config["strings"], format_number
    q_tokens, k_tokens, weights, mask = selfcross_weights(state, config)
    n_q, n_k = weights.shape
    query = state["query"]
    if isinstance(query, bool) or not isinstance(query, (int, np.integer)) or not 1 <= query <= n_q:
        raise ValueError(f"query must be an integer from 1 to {n_q}; got {query!r}")
    query = int(query)
    choice.check_choice(state, PREDICTIONS)
    mode = state["mode"]
    causal = bool(state["causal"]) and mode == "self_en"

    # Predict first: the answer is the cross-attention row of the asked English query; before it the
    # weights are not shown in any mode (the self-attention map would show how alike the words are).
    prediction, revealed = state.get("prediction", ""), bool(state.get("revealed", False))
    xs, ys, fill, text_color, texts = [], [], [], [], []
    palette, (masked_fill, masked_text) = config["palette"], config["masked"]
    for i in range(n_q):
        for j in range(n_k):
            w = float(weights[i, j])
            xs.append(j + 1)
            ys.append(i + 1)
            if not mask[i, j]:
                fill.append(masked_fill)
                text_color.append(masked_text)
                texts.append("—")
                continue
            if not revealed:
                fill.append(masked_fill)
                text_color.append(masked_text)
                texts.append("?")
                continue
            # Darker for more weight (Bokeh's Blues256, darkest first); white text on the dark half.
            fill.append(palette[round((1.0 - min(max(w, 0.0), 1.0)) * 255)])
            text_color.append("#ffffff" if w > 0.5 else "#222222")
            texts.append(f(w, 2, html=False))

    q_side, k_side = SIDES[mode]

    def said(side: str, s: str) -> str:  # escaped; in its own language's span when it is not the page's
        s = html.escape(s)
        return s if side == config["language"] else f"<span lang='{config['lang_tags'][side]}'>{s}</span>"

    def word(side: str, token: str) -> str:
        """One word as the readouts name it: a Chinese word on the English page with its English word beside it
        ("机器 (machine)"; the two sentences go word for word), so a reader of English alone can follow."""
        zh, en = config["sentences"]["zh"]["tokens"], config["sentences"]["en"]["tokens"]
        if side != "zh" or config["language"] == "zh" or len(zh) != len(en):  # (a page's own may not align)
            return said(side, token)
        gloss = en[zh.index(token)]
        return f"{said(side, token)} ({html.escape(gloss)})"

    sentence = {side: " ".join(config["sentences"][side]["tokens"]) for side in ("zh", "en")}
    # Every word's vector, on screen before the question: the likeness it asks about can be worked out.
    vectors = "".join(
        "<div class='ae-selfcross-vectors'>"
        + S["selfcross_vectors"].format(
            sentence=S[f"selfcross_source_{side}"],
            vectors=vector_list(
                [word(side, t) for t in config["sentences"][side]["tokens"]], config["sentences"][side]["embeddings"]
            ),
        )
        + "</div>"
        for side in ("zh", "en")
    )
    roles = S[f"selfcross_roles_{mode}"].format(zh=said("zh", sentence["zh"]), en=said("en", sentence["en"]))
    if mode != "cross":  # why one word's row leans on itself (no projections here)
        roles += " " + S["selfcross_roles_self_diagonal"]
    if causal:
        roles += " " + S["selfcross_roles_self_en_causal"]
    elif mode != "self_en":  # the causal box is greyed here: say why
        roles += " " + S["selfcross_roles_no_mask"]
    row = weights[query - 1]
    best = int(np.argmax(row))
    # A masked key is "—" here as in its heatmap cell (its weight is exactly 0: it is not looked at).
    cells = "".join(
        f"<td>{word(k_side, tok)}</td><td><b>{f(w, 3) if m else '—'}</b></td>"
        for tok, w, m in zip(k_tokens, row, mask[query - 1])
    )
    row_html = (
        f"<div class='ae-kind'>{S['selfcross_row'].format(token=word(q_side, q_tokens[query - 1]))}</div>"
        f"<table><tr>{cells}</tr></table>"
        f"{S['selfcross_row_best'].format(token=word(k_side, k_tokens[best]), weight=f(row[best], 3))}"
    )
    best_text = S["selfcross_row_best"].format(token=word(k_side, k_tokens[best]), weight=f(row[best], 3))
    if not revealed:
        row_html = (
            f"<div class='ae-kind'>{S['selfcross_row'].format(token=word(q_side, q_tokens[query - 1]))}</div>"
            f"<div class='ae-hint'>{S['selfcross_hidden']}</div>"
        )
    # The heatmap's data: a row per query token, a column per key token.
    plot_rows = [[word(q_side, q), *texts[i * n_k : (i + 1) * n_k]] for i, q in enumerate(q_tokens)]

    def answer() -> str:
        cross_q, cross_k, cross_w, _ = selfcross_weights({"mode": "cross", "causal": False}, config)
        asked = min(ASKED_QUERY, len(cross_q)) - 1  # (a page's own sentences may be shorter)
        cross_row = cross_w[asked]
        order = [int(j) for j in np.argsort(-cross_row, kind="stable")]
        cross_best, cross_next = order[0], order[min(1, len(order) - 1)]  # (a one-word sentence: itself twice)
        return S["selfcross_predict_answer"].format(
            n=len(cross_k),
            token=said("en", cross_q[asked]),
            best=word("zh", cross_k[cross_best]),
            weight=f(cross_row[cross_best], 3),
            second=word("zh", cross_k[cross_next]),
            weight2=f(cross_row[cross_next], 3),
        )

    return {
        "sources": {
            "cells": {"x": xs, "y": ys, "fill": fill, "text": texts, "text_color": text_color},
            "highlight": {"x": [(n_k + 1) / 2], "y": [query], "width": [n_k - 0.02], "height": [0.98]},
        },
        "ranges": {"x_range": [0.5, n_k + 0.5], "y_range": [n_q + 0.5, 0.5]},
        "html": {
            "roles": roles,
            "row": row_html,
            "hint": f"<div class='ae-hint'>{S['selfcross_query_hint']}</div>",
            "feedback": choice.choice_feedback(S, "selfcross", prediction, RIGHT_PREDICTION, revealed, answer),
            "note": f"<div class='ae-hint'>{S['selfcross_toy_note']}</div>" + vectors,
            "plot_data": data_table(S["selfcross_plot"], ["", *(word(k_side, k) for k in k_tokens)], plot_rows),
            "live": f"{S['selfcross_row'].format(token=word(q_side, q_tokens[query - 1]))}: {best_text}"
            if revealed
            else "",
        },
        "props": choice.lock(
            {
                "x_axis": {
                    "axis_label": S["selfcross_axis_key"].format(source=S[f"selfcross_source_{k_side}"]),
                    "major_label_overrides": {str(j): tok for j, tok in enumerate(k_tokens, start=1)},
                },
                "y_axis": {
                    "axis_label": S["selfcross_axis_query"].format(source=S[f"selfcross_source_{q_side}"]),
                    "major_label_overrides": {str(i): tok for i, tok in enumerate(q_tokens, start=1)},
                },
                "mode": {"active": MODES.index(mode)},
                "causal": {"active": causal, "disabled": mode != "self_en"},  # ticked only where it applies
                # The query buttons hold the query tokens: their language for a screen reader.
                "query": {
                    "labels": q_tokens,
                    "active": query - 1,
                    "html_attributes": {"lang": config["lang_tags"][q_side]},
                },
                **choice.choice_props("selfcross", S, PREDICTIONS, prediction, revealed, RIGHT_PREDICTION),
            },
            LOCKED,
            revealed,
        ),
    }
