"""Scaled dot-product attention in matrix form (section 3.7.7): why divide by sqrt(d_k)."""

from __future__ import annotations

import functools

import numpy as np
import panel as pn
import param
from bokeh.models import ColumnDataSource

from . import core, plots, ui
from .strings import DEFAULT_LANGUAGE, STRINGS, text

_D_MAX = 64
_N_BOUNDS = (2, 6)
#: Random draws behind each point of the saturation curve, and their seed.
CURVE_DRAWS = 200
CURVE_SEED = 2017
_CHUNK = 25  # draws per core call: one (chunk*n, d) @ (d, chunk*n) product, diagonal blocks kept


@functools.lru_cache(maxsize=None)
def saturation_curve(n: int, draws: int = CURVE_DRAWS, seed: int = CURVE_SEED):
    """Mean largest softmax weight of random ``n x n`` score matrices, per ``d_k``.

    For each ``d_k`` in 1..64, ``draws`` pairs ``Q, K`` of shape ``(n, d_k)``
    with standard normal entries are scored by
    :func:`~attention_explorable.core.dot_product_scores`, once divided by
    ``sqrt(d_k)`` and once not, turned into weights by
    :func:`~attention_explorable.core.softmax`, and the largest weight of
    each row is averaged over rows and draws. Unscaled, the dot products
    grow like ``sqrt(d_k)`` and the softmax saturates towards 1; scaled,
    it stays moderate. Cached: computed once per ``n`` and process.

    Parameters
    ----------
    n : int
        Number of queries and keys, ``>= 1``.
    draws : int, default 200
        Random draws per ``d_k`` (a multiple of 25).
    seed : int, default 2017
        Seed of :func:`numpy.random.default_rng`.

    Returns
    -------
    d, scaled, unscaled : ndarray, shape (64,)
        ``d = 1..64`` and the two mean largest weights (read-only arrays).

    Examples
    --------
    >>> d, scaled, unscaled = saturation_curve(4)
    >>> bool(unscaled[63] > 0.85 and scaled[63] < 0.6)
    True
    """
    if n < 1 or draws < _CHUNK or draws % _CHUNK:
        raise ValueError(f"need n >= 1 and draws a multiple of {_CHUNK}, got n={n!r}, draws={draws!r}")
    rng = np.random.default_rng(seed)
    d = np.arange(1, _D_MAX + 1)
    scaled, unscaled = np.empty(_D_MAX), np.empty(_D_MAX)
    pick = np.arange(_CHUNK)
    for i, d_k in enumerate(d):
        q = rng.standard_normal((draws // _CHUNK, _CHUNK * n, d_k))
        k = rng.standard_normal((draws // _CHUNK, _CHUNK * n, d_k))
        for scale, curve in ((None, scaled), (1.0, unscaled)):
            # (chunk*n, d_k) @ (d_k, chunk*n) -> (chunk*n, chunk*n); keep the chunk's own n x n blocks
            blocks = [core.dot_product_scores(qc, kc, scale=scale).reshape(_CHUNK, n, _CHUNK, n)[pick, :, pick, :]
                      for qc, kc in zip(q, k)]
            weights = core.softmax(np.concatenate(blocks), axis=-1)  # (draws, n, n)
            curve[i] = weights.max(axis=-1).mean()
    for arr in (d, scaled, unscaled):
        arr.setflags(write=False)
    return d, scaled, unscaled


class MatrixExplorer(pn.viewable.Viewer):
    """Score and weight matrices of scaled dot-product attention (section 3.7.7).

    ``n`` tokens get queries, keys and values with standard normal entries
    drawn from a fixed ``seed``; the first query can be stretched by
    ``q1_scale``. The explorer shows, from
    :func:`~attention_explorable.core.scaled_dot_product_attention`::

        scores  = q @ k.T * scale           # (n, d_k) @ (d_k, n) -> (n, n)
        weights = softmax(scores + M)       # (n, n), each row sums to 1
        scale   = 1 / sqrt(d_k) if scaled else 1
        M       = 0, or -inf above the diagonal if causal

    as two heatmaps (row = query ``i``, column = key ``j``), and a curve of
    the mean largest weight against ``d_k`` (see :func:`saturation_curve`):
    unscaled, softmax saturates towards one weight per row as ``d_k`` grows.

    Parameters
    ----------
    n_tokens : int
        Number of tokens ``n``, 2-6; default 4.
    d_k : int
        Dimension of queries and keys, 1-64; default 4.
    seed : int
        Seed of the random ``Q, K, V``, 0-9999; default 0.
    q1_scale : float
        Factor applied to the first query row, 0-4; default 1.
    causal : bool
        Apply :func:`~attention_explorable.core.causal_mask`; default False.
    scaled : bool
        Divide the scores by ``sqrt(d_k)``; default True.
    language : {"zh", "en"}
        Language of the interface text (constant after construction).

    Attributes
    ----------
    scores : ndarray, shape (n, n)
        Scores after scaling, ``-inf`` where masked.
    weights : ndarray, shape (n, n)
        Weights; each row sums to 1 (0 for a fully masked row).
    mean_max_weight : float
        Mean over the rows of each row's largest weight.

    Raises
    ------
    ValueError
        When a parameter is set outside its bounds or to a value of the wrong
        type; the message names the parameter and the value.

    References
    ----------
    Course section 3.7.7 ("缩放点积注意力") and 3.8 (causal mask);
    A. Vaswani et al., "Attention Is All You Need", NeurIPS 2017, eq. (1).

    Examples
    --------
    >>> ex = MatrixExplorer(causal=True)
    >>> ex.weights.shape, bool(np.all(ex.weights[np.triu_indices(4, 1)] == 0))
    ((4, 4), True)
    """

    n_tokens = param.Integer(4, bounds=_N_BOUNDS, doc="Number of tokens n (queries = keys = values).")
    d_k = param.Integer(4, bounds=(1, _D_MAX), doc="Dimension d_k of the queries and keys.")
    seed = param.Integer(0, bounds=(0, 9999), doc="Seed of the standard normal Q, K, V.")
    q1_scale = param.Number(1.0, bounds=(0.0, 4.0), step=0.1,
                            doc="Factor applied to the first query q₁ (a longer query sharpens its row).")
    causal = param.Boolean(False, doc="Causal mask: query i may attend keys j <= i only.")
    scaled = param.Boolean(True, doc="Divide the scores by sqrt(d_k).")
    language = param.Selector(default=DEFAULT_LANGUAGE, objects=list(STRINGS), constant=True,
                              doc="Language of the interface text.")

    def __init__(self, **params):
        super().__init__(**params)
        t = self._t
        self.scores = self.weights = np.zeros((0, 0))
        self.mean_max_weight = float("nan")

        self._score_cells = ColumnDataSource({k: [] for k in ("x", "y", "fill", "text", "text_color")})
        self._weight_cells = ColumnDataSource({k: [] for k in ("x", "y", "fill", "text", "text_color")})
        self._curve = ColumnDataSource({"d": [], "scaled": [], "unscaled": []})
        self._mark = ColumnDataSource({k: [] for k in ("d", "scaled", "unscaled", "current", "y0", "y1")})
        axes = (t("matrix_axis_key"), t("matrix_axis_query"))
        self._score_fig = plots.heatmap_figure(self._score_cells, t("matrix_plot_scores_scaled"), *axes,
                                               n=self.n_tokens)
        self._weight_fig = plots.heatmap_figure(self._weight_cells, t("matrix_plot_weights"), *axes,
                                                n=self.n_tokens)
        self._curve_fig = plots.saturation_figure(
            self._curve, self._mark, t("matrix_plot_saturation"), t("matrix_axis_dk"), t("matrix_axis_max_weight"),
            {"scaled": t("matrix_legend_scaled"), "unscaled": t("matrix_legend_unscaled"),
             "current": t("matrix_legend_current")}, d_max=_D_MAX)

        self._max_weight = ui.readout("ae-matrix-max-weight")
        self._row_sums = ui.readout("ae-matrix-row-sums")
        self._masked_note = pn.pane.HTML(f"<small>{t('matrix_masked_note')}</small>", margin=(0, 5),
                                         css_classes=["ae-matrix-masked-note"])
        self._error = pn.pane.HTML("", css_classes=["ae-error"], visible=False)

        def slider(name, css, widget=pn.widgets.IntSlider, **kw):
            return widget.from_param(getattr(self.param, name), name=t(f"matrix_{name}"),
                                     css_classes=[css], sizing_mode="stretch_width", **kw)

        self._controls = {
            "scaled": pn.widgets.Checkbox.from_param(self.param.scaled, name=t("matrix_scaled"),
                                                     css_classes=["ae-matrix-scaled"]),
            "causal": pn.widgets.Checkbox.from_param(self.param.causal, name=t("matrix_causal"),
                                                     css_classes=["ae-matrix-causal"]),
            "d_k": slider("d_k", "ae-matrix-dk"),
            "n_tokens": slider("n_tokens", "ae-matrix-n"),
            "q1_scale": slider("q1_scale", "ae-matrix-q1-scale", pn.widgets.FloatSlider, format="0.0"),
            "seed": slider("seed", "ae-matrix-seed", ui.EditableIntSlider,
                           message_template=t("input_clamped")),
        }
        self._notice = ui.input_notice([self._controls["seed"]])
        self._update()

    def _t(self, key, **fmt):
        return text(key, self.language, **fmt)

    # --- the one updater ------------------------------------------------------
    @param.depends("n_tokens", "d_k", "seed", "q1_scale", "causal", "scaled", watch=True)
    def _update(self):
        # Panel runs some events without the Bokeh document lock; unlocked()
        # holds and dispatches the raw Bokeh model changes safely either way.
        with pn.io.unlocked():
            self._push()

    def _push(self):
        t, f = self._t, ui.format_number
        n, d_k = self.n_tokens, self.d_k
        rng = np.random.default_rng(self.seed)
        q, k, v = (rng.standard_normal((n, d_k)) for _ in range(3))  # each (n, d_k)
        q[0] *= self.q1_scale
        scale = None if self.scaled else 1.0
        mask = core.causal_mask(n) if self.causal else np.ones((n, n), dtype=bool)
        try:
            scores = core.dot_product_scores(q, k, scale=scale)  # (n, d_k) @ (d_k, n) -> (n, n)
            _, weights = core.scaled_dot_product_attention(q, k, v, mask=mask, scale=scale)
        except ValueError as exc:  # defensive: the parameters' bounds make this unreachable
            self._error.object = f"{t('error_prefix')}{exc}"
            self._error.visible = True
            return
        self._error.visible = False
        masked = ~mask
        self.scores = np.where(mask, scores, -np.inf)
        self.weights = weights
        row_max = weights.max(axis=1)
        self.mean_max_weight = float(row_max.mean())

        jj, ii = np.meshgrid(np.arange(1, n + 1), np.arange(1, n + 1))  # ii[i, j] = i + 1: row = query
        flat_mask = masked.ravel().tolist()
        limit = float(np.max(np.abs(scores[mask]))) or 1.0
        fill, colour = plots.heat_colors(scores.ravel(), flat_mask, diverging=True, limit=limit)
        self._score_cells.data = {
            "x": jj.ravel(), "y": ii.ravel(), "fill": fill, "text_color": colour,
            "text": ["−∞" if m else f(s, 2, html=False) for s, m in zip(scores.ravel(), flat_mask)]}
        fill, colour = plots.heat_colors(weights.ravel(), flat_mask)
        self._weight_cells.data = {
            "x": jj.ravel(), "y": ii.ravel(), "fill": fill, "text_color": colour,
            "text": ["—" if m else f(w, 2, html=False) for w, m in zip(weights.ravel(), flat_mask)]}
        for fig in (self._score_fig, self._weight_fig):
            fig.x_range.update(start=0.5, end=n + 0.5)
            fig.y_range.update(start=n + 0.5, end=0.5)
        self._score_fig.title.text = t("matrix_plot_scores_scaled" if self.scaled else "matrix_plot_scores_unscaled")

        d, curve_scaled, curve_unscaled = saturation_curve(n)
        self._curve.data = {"d": d, "scaled": curve_scaled, "unscaled": curve_unscaled}
        self._mark.data = {"d": [d_k], "scaled": [curve_scaled[d_k - 1]], "unscaled": [curve_unscaled[d_k - 1]],
                           "current": [self.mean_max_weight], "y0": [0.0], "y1": [1.0]}

        curve_text = t("matrix_curve_values", draws=CURVE_DRAWS, n=n, d=d_k,
                       scaled=f(curve_scaled[d_k - 1], 3), unscaled=f(curve_unscaled[d_k - 1], 3))
        self._max_weight.object = (f"<div class='ae-kind'>{t('matrix_max_weight')}</div>"
                                   f"<b>{f(self.mean_max_weight)}</b><br><small>{curve_text}</small>")
        sums = weights.sum(axis=1)
        self._row_sums.object = (f"<span class='ae-kind'>{t('matrix_row_sums')}</span> "
                                 + ", ".join(f(s, 3) for s in sums))
        self._masked_note.visible = self.causal

    # --- layout only ----------------------------------------------------------
    def __panel__(self):
        c = self._controls
        intro = pn.pane.HTML(f"<p style='margin:0'>{self._t('matrix_intro')}</p>", margin=(0, 5),
                             sizing_mode="stretch_width")
        controls = pn.Column(
            intro, c["scaled"], c["causal"], c["d_k"], c["n_tokens"], c["q1_scale"], c["seed"],
            self._notice, self._error, self._max_weight, self._row_sums,
            styles={"flex": "1 1 300px", "max-width": "400px", "min-width": "0"},
        )
        heatmaps = pn.FlexBox(
            pn.Column(self._score_fig, styles={"flex": "1 1 280px", "min-width": "0"}),
            pn.Column(self._weight_fig, styles={"flex": "1 1 280px", "min-width": "0"}),
            flex_wrap="wrap", sizing_mode="stretch_width", styles={"gap": "8px"},
        )
        plots_column = pn.Column(heatmaps, self._masked_note, self._curve_fig,
                                 styles={"flex": "3 1 560px", "min-width": "0"})
        return pn.FlexBox(controls, plots_column, flex_wrap="wrap", sizing_mode="stretch_width",
                          css_classes=["ae-matrix"], styles={"gap": "12px"})
