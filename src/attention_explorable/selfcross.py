"""Self- and cross-attention (section 3.7.8): where queries, keys and values come from."""

from __future__ import annotations

import html

import numpy as np
import panel as pn
import param
from bokeh.models import ColumnDataSource

from . import core, plots, ui
from .strings import DEFAULT_LANGUAGE, STRINGS, text

#: The source sentence and its translation, one token per entry.
ZH_TOKENS = ("我", "爱", "机器", "学习")
EN_TOKENS = ("I", "love", "machine", "learning")

# Hand-made toy embeddings, d = 4; the axes mean roughly "speaker",
# "affection", "machine", "learning". A word and its translation point the
# same way, and related words (爱 ~ 我, 机器 ~ 学习) overlap, so the weights
# show sensible alignments. They are not trained vectors, and the page says so.
ZH_EMBEDDINGS = np.array([[2.0, 1.0, 0.0, 0.0],
                          [1.0, 2.0, 0.0, 1.0],
                          [0.0, 0.0, 2.0, 1.5],
                          [0.0, 0.5, 1.5, 2.0]])
EN_EMBEDDINGS = np.array([[2.2, 0.8, 0.0, 0.0],
                          [0.8, 2.2, 0.0, 0.8],
                          [0.0, 0.0, 2.2, 1.2],
                          [0.0, 0.6, 1.2, 2.2]])
for _arr in (ZH_EMBEDDINGS, EN_EMBEDDINGS):
    _arr.setflags(write=False)

MODES = ("self_zh", "self_en", "cross")
_N_QUERY = min(len(ZH_TOKENS), len(EN_TOKENS))


class SelfCrossExplorer(pn.viewable.Viewer):
    """Self-attention within one sentence, cross-attention between two.

    The Chinese sentence ``我 爱 机器 学习`` and its translation ``I love
    machine learning`` carry hand-made 4-dimensional toy embeddings, used
    directly as queries, keys and values (identity projections). The
    weights come from :func:`~attention_explorable.core.scaled_dot_product_attention`
    (scores divided by ``sqrt(4) = 2``)::

        self_zh:  Q = K = V = X_zh          weights (n_zh, n_zh)
        self_en:  Q = K = V = X_en          weights (n_en, n_en), optionally causal
        cross:    Q = X_en, K = V = X_zh    weights (n_en, n_zh)

    The heatmap shows one row per query and one column per key; its axis
    titles name the sentence each role comes from.

    Parameters
    ----------
    mode : {"self_zh", "self_en", "cross"}
        Kind of attention; default ``"self_zh"``.
    causal : bool
        Causal mask for ``self_en`` (the decoder sees only the words generated
        so far); ignored in the other modes. Default False.
    query : int
        Query row to highlight and read out, 1-based, 1-4; default 1.
    language : {"zh", "en"}
        Language of the interface text (constant after construction).

    Attributes
    ----------
    weights : ndarray, shape (n_q, n_k)
        Current weights; each row sums to 1.
    query_tokens, key_tokens : tuple of str
        Tokens of the rows (queries) and of the columns (keys and values).

    Raises
    ------
    ValueError
        When ``mode`` is not one of the three modes, or ``query`` is outside
        1-4; the message names the parameter and the value.

    References
    ----------
    Course section 3.7.8 ("自注意力与交叉注意力");
    A. Vaswani et al., "Attention Is All You Need", NeurIPS 2017, section 3.2.3.

    Examples
    --------
    >>> ex = SelfCrossExplorer(mode="cross")
    >>> ex.weights.shape, ex.query_tokens[1], ex.key_tokens[int(ex.weights[1].argmax())]
    ((4, 4), 'love', '爱')
    """

    mode = param.Selector(default="self_zh", objects=list(MODES),
                          doc="Kind of attention: self-attention in Chinese or English, or cross-attention.")
    causal = param.Boolean(False, doc="Causal mask in English self-attention (decoder); ignored otherwise.")
    query = param.Integer(1, bounds=(1, _N_QUERY), doc="Query row to highlight (1-based).")
    language = param.Selector(default=DEFAULT_LANGUAGE, objects=list(STRINGS), constant=True,
                              doc="Language of the interface text.")

    def __init__(self, **params):
        super().__init__(**params)
        t = self._t
        self.weights = np.zeros((0, 0))
        self.query_tokens: tuple[str, ...] = ()
        self.key_tokens: tuple[str, ...] = ()

        self._cells = ColumnDataSource({k: [] for k in ("x", "y", "fill", "text", "text_color")})
        self._highlight = ColumnDataSource({"x": [], "y": [], "width": [], "height": []})
        self._figure = plots.heatmap_figure(self._cells, t("selfcross_plot"), "", "",
                                            highlight=self._highlight, n=_N_QUERY, height=330)
        self._roles = ui.readout("ae-selfcross-roles")
        self._row = ui.readout("ae-selfcross-row")
        self._note = pn.pane.HTML(f"<small>{t('selfcross_toy_note')}</small>", margin=(0, 5),
                                  css_classes=["ae-selfcross-note"])
        self._error = pn.pane.HTML("", css_classes=["ae-error"], visible=False)
        self._controls = {
            "mode": pn.widgets.RadioButtonGroup.from_param(
                self.param.mode, description=None, name=t("selfcross_mode"), css_classes=["ae-selfcross-mode"],
                options={t(f"selfcross_mode_{m}"): m for m in MODES}, orientation="vertical",
                color="primary", variant="outline", sizing_mode="stretch_width"),
            "causal": pn.widgets.Checkbox.from_param(self.param.causal, name=t("selfcross_causal"),
                                                     css_classes=["ae-selfcross-causal"]),
            "query": pn.widgets.RadioButtonGroup.from_param(
                self.param.query, description=None, name=t("selfcross_query"), css_classes=["ae-selfcross-query"],
                options=self._query_options(), color="primary", variant="outline",
                sizing_mode="stretch_width"),
        }
        self._update()

    def _t(self, key, **fmt):
        return text(key, self.language, **fmt)

    def _sides(self):
        """(query tokens, query embeddings, key tokens, key embeddings) of the current mode."""
        zh, en = (ZH_TOKENS, ZH_EMBEDDINGS), (EN_TOKENS, EN_EMBEDDINGS)
        q, kv = {"self_zh": (zh, zh), "self_en": (en, en), "cross": (en, zh)}[self.mode]
        return (*q, *kv)

    def _query_options(self) -> dict:
        tokens = self._sides()[0]
        return {tok: i for i, tok in enumerate(tokens[:_N_QUERY], start=1)}

    # --- the one updater ------------------------------------------------------
    @param.depends("mode", "causal", "query", watch=True)
    def _update(self):
        # Panel runs some events without the Bokeh document lock; unlocked()
        # holds and dispatches the raw Bokeh model changes safely either way.
        with pn.io.unlocked():
            self._push()

    def _push(self):
        t, f = self._t, ui.format_number
        q_tokens, x_q, k_tokens, x_kv = self._sides()
        n_q, n_k = len(q_tokens), len(k_tokens)
        causal = self.causal and self.mode == "self_en"  # only the decoder's self-attention is causal
        mask = core.causal_mask(n_q) if causal else np.ones((n_q, n_k), dtype=bool)
        try:
            _, weights = core.scaled_dot_product_attention(x_q, x_kv, x_kv, mask=mask)  # (n_q, n_k)
        except ValueError as exc:  # defensive: the fixed toy data make this unreachable
            self._error.object = f"{t('error_prefix')}{exc}"
            self._error.visible = True
            return
        self._error.visible = False
        self.weights, self.query_tokens, self.key_tokens = weights, q_tokens, k_tokens

        jj, ii = np.meshgrid(np.arange(1, n_k + 1), np.arange(1, n_q + 1))  # ii[i, j] = i + 1: row = query
        masked = (~mask).ravel().tolist()
        fill, colour = plots.heat_colors(weights.ravel(), masked)
        self._cells.data = {"x": jj.ravel(), "y": ii.ravel(), "fill": fill, "text_color": colour,
                            "text": ["—" if m else f(w, 2, html=False) for w, m in zip(weights.ravel(), masked)]}
        i = self.query
        self._highlight.data = {"x": [(n_k + 1) / 2], "y": [i], "width": [n_k - 0.02], "height": [0.98]}
        source = {"zh": t("selfcross_source_zh"), "en": t("selfcross_source_en")}
        q_side, k_side = {"self_zh": ("zh", "zh"), "self_en": ("en", "en"), "cross": ("en", "zh")}[self.mode]
        fig = self._figure
        fig.x_range.update(start=0.5, end=n_k + 0.5)
        fig.y_range.update(start=n_q + 0.5, end=0.5)
        fig.xaxis.axis_label = t("selfcross_axis_key", source=source[k_side])
        fig.yaxis.axis_label = t("selfcross_axis_query", source=source[q_side])
        fig.xaxis.major_label_overrides = {j: tok for j, tok in enumerate(k_tokens, start=1)}
        fig.yaxis.major_label_overrides = {j: tok for j, tok in enumerate(q_tokens, start=1)}
        self._controls["query"].options = self._query_options()
        self._controls["causal"].disabled = self.mode != "self_en"

        zh, en = " ".join(ZH_TOKENS), " ".join(EN_TOKENS)
        roles = t(f"selfcross_roles_{self.mode}", zh=zh, en=en)
        if causal:
            roles += " " + t("selfcross_roles_self_en_causal")
        self._roles.object = roles
        row = weights[i - 1]
        best = int(np.argmax(row))
        cells = "".join(f"<td>{html.escape(tok)}</td><td><b>{f(w, 3)}</b></td>" for tok, w in zip(k_tokens, row))
        self._row.object = (
            f"<div class='ae-kind'>{t('selfcross_row', token=html.escape(q_tokens[i - 1]))}</div>"
            f"<table><tr>{cells}</tr></table>"
            f"{t('selfcross_row_best', token=html.escape(k_tokens[best]), weight=f(row[best], 3))}")

    # --- layout only ----------------------------------------------------------
    def __panel__(self):
        c = self._controls
        label = "<div class='ae-kind' style='margin:4px 5px 0'>{}</div>".format
        controls = pn.Column(
            pn.pane.HTML(label(self._t("selfcross_mode")), margin=0), c["mode"], c["causal"],
            pn.pane.HTML(label(self._t("selfcross_query")), margin=0), c["query"], self._error,
            self._roles, self._row, self._note,
            styles={"flex": "1 1 300px", "max-width": "440px", "min-width": "0"},
        )
        plot = pn.Column(self._figure, styles={"flex": "1 1 320px", "max-width": "560px", "min-width": "0"})
        return pn.FlexBox(controls, plot, flex_wrap="wrap", sizing_mode="stretch_width",
                          css_classes=["ae-selfcross"], styles={"gap": "12px"})
