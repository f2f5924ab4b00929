"""What the "one word, two contexts" explorable (section 3.8.1) displays, as one pure function of its state.

The same word (苹果 / "apple") in two short sentences: one where it is a fruit
(她 削 了 苹果, "she peeled the apple") and one where it is a company
(苹果 发布 了 手机, "apple released a phone"). Every token has a hand-made
3-dimensional toy vector whose axes mean roughly "fruit", "company" and
"anything else"; the word's vector ``[1, 1, 0]`` is the same in both
sentences. One self-attention read per sentence, with identity projections
(the vectors serve as queries, keys and values, as in the self/cross
explorable)::

    a = softmax(x_w Xᵀ / √3)      (n,): the word's row of weights over its sentence
    y = a X                       (3,): the word's output in that sentence

gives the word two different rows of weights and two different outputs: the
first leans to "fruit", the second to "company". The page asks first which
word of the second sentence the word weighs most: not itself (dot product 2)
but the verb "released" (2.5), since a query need not match its own key best. With the causal mask the
word opening the second sentence sees itself only, and its output is its own
vector: the ambiguity stays until later words read it. The page asks first
(``views/choice.py``); its JavaScript twin is ``contextsView`` in
``web/contexts.js``.

References: course section 3.8.1 ("同一个词为什么需要随上下文变化的表示");
A. Vaswani et al., "Attention Is All You Need", NeurIPS 2017, section 3.2.
"""

from __future__ import annotations

import html

import numpy as np

from .. import core
from ..strings import text
from . import choice
from .matrix import heat_cells
from .numbers import data_table, format_number, format_vector, vector_list

#: The two sentences in each language: tokens, and where the shared word stands (0-based).
SENTENCES = {
    "zh": {"fruit": (("她", "削", "了", "苹果"), 3), "company": (("苹果", "发布", "了", "手机"), 0)},
    "en": {"fruit": (("she", "peeled", "the", "apple"), 3), "company": (("apple", "released", "a", "phone"), 0)},
}
#: The toy vectors by the token's role (the same in both languages); axes: fruit, company, anything else.
VECTORS = {
    "word": (1.0, 1.0, 0.0),  # 苹果 / apple: both readings at once
    "subject": (0.0, 0.0, 1.0),  # 她 / she
    "peel": (2.5, 0.0, 0.0),  # 削 / peeled: a fruit's verb
    "filler": (0.0, 0.0, 0.5),  # 了 / the / a
    "release": (0.0, 2.5, 0.0),  # 发布 / released: a company's verb
    "phone": (0.0, 1.5, 0.5),  # 手机 / phone
}
#: The roles of each sentence's tokens, in order.
ROLES = {"fruit": ("subject", "peel", "filler", "word"), "company": ("word", "release", "filler", "phone")}
#: The two contexts, in the order they are shown.
CONTEXTS = ("fruit", "company")
#: The student's prediction: which word of the second sentence the shared word weighs most (unmasked).
PREDICTIONS = ("", "itself", "verb", "phone", "even")
#: The right one: its dot product with "released" (2.5) beats its dot product with itself (2).
RIGHT_PREDICTION = "verb"
#: The course section it belongs to: its prediction is a class question of that section.
SECTION = "3.8"
#: The state: the causal mask, then the prediction and whether its answer shows.
STATE_NAMES = ("causal", "prediction", "revealed")
#: The controls that wait for the prediction (``views/choice.py`` ``lock``): nothing to try before it.
LOCKED = ("causal",)

STRING_KEYS = (
    "contexts_intro",
    "contexts_causal",
    "contexts_predict_question",
    "contexts_toy_note",
    "contexts_axes",
    "contexts_vectors",
    "contexts_row",
    "contexts_input",
    "contexts_output",
    "contexts_hidden",
    "contexts_lean_fruit",
    "contexts_lean_company",
    "contexts_lean_none",
    "contexts_causal_note",
    "contexts_predict_answer",
    "contexts_live",
    "contexts_sentence_fruit",
    "contexts_sentence_company",
    *(f"contexts_predict_{p}" for p in PREDICTIONS[1:]),
    *choice.why_keys("contexts", PREDICTIONS, RIGHT_PREDICTION),
    *choice.STRING_KEYS,
)


def contexts_config(language: str) -> dict:
    """What :func:`contexts_view` needs besides the state, as JSON-able data.

    ``strings`` (the interface text), ``sentences`` (context -> ``tokens``, a
    list of 4 str, ``at``, the shared word's index, ``vectors``, 4 lists of 3
    floats). Sent to the browser once.

    Raises
    ------
    KeyError
        If ``language`` is unknown.
    """
    return {
        "strings": {key: text(key, language) for key in STRING_KEYS},
        "sentences": {
            c: {
                "tokens": list(SENTENCES[language][c][0]),
                "at": SENTENCES[language][c][1],
                "vectors": [list(VECTORS[r]) for r in ROLES[c]],
            }
            for c in CONTEXTS
        },
    }


def check_state(state) -> None:
    """Raise unless ``causal`` is a bool and the prediction well formed (naming the parameter and the value).

    Raises
    ------
    ValueError
    """
    if not isinstance(state.get("causal"), (bool, np.bool_)):
        raise ValueError(f"causal must be true or false, got {state.get('causal')!r}")
    choice.check_choice(state, PREDICTIONS)


def read(state, config: dict, context: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The shared word's read of one sentence, from the core.

    Returns
    -------
    weights : ndarray, shape (n,)
        Its row of weights over the sentence (0 where the causal mask hides a token).
    mask : ndarray of bool, shape (n,)
        True where it may look.
    output : ndarray, shape (3,)
        Its output ``Σ_j a_j x_j``.
    """
    sentence = config["sentences"][context]
    x = np.asarray(sentence["vectors"], dtype=np.float64)  # (n, 3)
    at = sentence["at"]
    mask = np.arange(len(x)) <= at if state["causal"] else np.ones(len(x), dtype=bool)
    output, weights = core.scaled_dot_product_attention(x[at : at + 1], x, x, mask=mask[None, :])  # (1, 3), (1, n)
    return weights[0], mask, output[0]


def contexts_view(state, config: dict) -> dict:
    """Everything the explorable displays for one state.

    Parameters
    ----------
    state : Mapping
        ``causal`` (bool), ``prediction`` (one of :data:`PREDICTIONS`), ``revealed`` (bool).
    config : dict
        :func:`contexts_config` of the interface language.

    Returns
    -------
    dict
        A view (see :mod:`attention_explorable.views`): sources
        ``<context>_cells`` (one row of cells: ``x`` = token j from 1, ``y`` = 1,
        ``fill``, ``text``, ``text_color``) for ``fruit`` and ``company``; html
        ``input`` (the word's vector, the same in both), ``outputs`` (the two
        outputs side by side, shown once the answer is), ``notes``,
        ``feedback``, ``rows_data`` (the rows as a table) and ``live``; props
        ``causal`` and the question's controls.

    Raises
    ------
    ValueError
        From :func:`check_state`, naming the parameter and the value.
    """
    check_state(state)
    S, f = config["strings"], format_number
    prediction, revealed = state["prediction"], bool(state["revealed"])
    sources, rows, outputs, leans = {}, [], {}, {}
    for c in CONTEXTS:
        sentence = config["sentences"][c]
        weights, mask, output = read(state, config, c)
        masked = (~mask).tolist()
        # Before the prediction is checked the heatmap shows the words but not the weights (they are the answer).
        fill, colour = heat_cells(weights.tolist(), masked if revealed else [True] * len(masked), diverging=False)
        cells = ["—" if m else f(w, 2, html=False) if revealed else "?" for w, m in zip(weights.tolist(), masked)]
        sources[f"{c}_cells"] = {
            "x": list(range(1, len(cells) + 1)),
            "y": [1] * len(cells),
            "fill": fill,
            "text": cells,
            "text_color": colour,
        }
        rows.append(
            [S[f"contexts_sentence_{c}"], *(f"{html.escape(t)} {w}" for t, w in zip(sentence["tokens"], cells))]
        )
        outputs[c] = output
        leans[c] = (
            "contexts_lean_fruit"
            if output[0] > output[1]
            else "contexts_lean_company"
            if output[1] > output[0]
            else "contexts_lean_none"
        )
    word = html.escape(config["sentences"]["fruit"]["tokens"][config["sentences"]["fruit"]["at"]])
    shown = "".join(
        f"<tr><td class='ae-kind'>{S[f'contexts_sentence_{c}']}</td>"
        f"<td class='ae-nobreak'><b>{format_vector(outputs[c], 2)}</b></td><td>{S[leans[c]]}</td></tr>"
        for c in CONTEXTS
    )

    def answer() -> str:  # the question's read: without the mask
        unmasked = {c: read({**state, "causal": False}, config, c) for c in CONTEXTS}
        second = config["sentences"]["company"]
        weights, x = unmasked["company"][0], np.asarray(second["vectors"], dtype=np.float64)
        at = second["at"]
        return S["contexts_predict_answer"].format(
            word=word,
            verb=html.escape(second["tokens"][1]),
            x=format_vector(x[at], 2),
            x_verb=format_vector(x[1], 2),
            dot_verb=f(float(x[at] @ x[1]), 2),
            dot_self=f(float(x[at] @ x[at]), 2),
            w_verb=f(weights[1], 2),
            w_self=f(weights[at], 2),
            a=format_vector(unmasked["fruit"][2], 2),
            b=format_vector(unmasked["company"][2], 2),
        )

    notes = S["contexts_causal_note"].format(word=word) if state["causal"] else ""
    # Every word's vector, shown before the question: the dot products can be worked out, not guessed.
    vectors = "".join(
        "<div class='ae-hint ae-contexts-vectors'>"
        + S["contexts_vectors"].format(
            sentence=S[f"contexts_sentence_{c}"],
            vectors=vector_list(
                [html.escape(t) for t in config["sentences"][c]["tokens"]], config["sentences"][c]["vectors"]
            ),
        )
        + "</div>"
        for c in CONTEXTS
    )
    return {
        "sources": sources,
        "ranges": {},
        "html": {
            "input": S["contexts_input"].format(
                word=word,
                x="<span class='ae-nobreak'>x = "
                + format_vector(config["sentences"]["fruit"]["vectors"][config["sentences"]["fruit"]["at"]], 2)
                + "</span>",
            )
            + f"<div class='ae-hint'>{S['contexts_axes']}</div>"
            + vectors,
            "outputs": (
                f"<div class='ae-kind'>{S['contexts_output'].format(word=word)}</div>"
                + (f"<table>{shown}</table>" if revealed else f"<div class='ae-hint'>{S['contexts_hidden']}</div>")
            ),
            "notes": f"<span class='ae-hint'>{notes}</span>" if notes else "",
            "feedback": choice.choice_feedback(S, "contexts", prediction, RIGHT_PREDICTION, revealed, answer),
            "rows_data": data_table(S["contexts_row"].format(word=word), ["", "1", "2", "3", "4"], rows),
            "live": (
                S["contexts_live"].format(
                    word=word, a=format_vector(outputs["fruit"], 2), b=format_vector(outputs["company"], 2)
                )
                if revealed
                else ""
            ),
        },
        "props": choice.lock(
            {
                "causal": {"active": bool(state["causal"])},
                **choice.choice_props("contexts", S, PREDICTIONS, prediction, revealed, RIGHT_PREDICTION),
            },
            LOCKED,
            revealed,
        ),
    }
