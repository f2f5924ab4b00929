"""Component tests of MatrixExplorer (section 3.7.7), without a browser."""

import math
import re

import numpy as np
import panel as pn
import pytest

from attention_explorable import core
from attention_explorable.matrix import CURVE_DRAWS, MatrixExplorer, saturation_curve
from attention_explorable.strings import STRINGS


def reference(n=4, d_k=4, seed=0, q1_scale=1.0, causal=False, scaled=True):
    """Scores and weights computed straight from core, as the explorer should."""
    rng = np.random.default_rng(seed)
    q, k, v = (rng.standard_normal((n, d_k)) for _ in range(3))
    q[0] *= q1_scale
    scale = None if scaled else 1.0
    mask = core.causal_mask(n) if causal else None
    _, w = core.scaled_dot_product_attention(q, k, v, mask=mask, scale=scale)
    return core.dot_product_scores(q, k, scale=scale), w


@pytest.fixture
def explorer():
    return MatrixExplorer()


def cells(source, n):
    """A source's cell columns as (n, n) arrays indexed [query i, key j]."""
    out = {}
    for key in ("text", "fill"):
        grid = np.empty((n, n), dtype=object)
        for x, y, value in zip(source.data["x"], source.data["y"], source.data[key]):
            grid[y - 1, x - 1] = value
        out[key] = grid
    return out


def test_default_matrices_follow_core(explorer):
    scores, weights = reference()
    np.testing.assert_allclose(explorer.scores, scores)
    np.testing.assert_allclose(explorer.weights, weights)
    np.testing.assert_allclose(explorer.weights.sum(axis=1), 1.0)
    text = cells(explorer._weight_cells, 4)["text"]
    assert text[1, 2] == f"{weights[1, 2]:.2f}"  # row = query i, column = key j
    assert cells(explorer._score_cells, 4)["text"][3, 0] == f"{scores[3, 0]:.2f}"
    assert explorer.mean_max_weight == pytest.approx(weights.max(axis=1).mean())
    assert f"{explorer.mean_max_weight:.4f}" in explorer._max_weight.object
    sums = re.findall(r"[0-9]\.[0-9]{3}", explorer._row_sums.object)
    assert sums == ["1.000"] * 4


def test_causal_mask_zeros_above_the_diagonal(explorer):
    explorer.causal = True
    scores, weights = reference(causal=True)
    np.testing.assert_allclose(explorer.weights, weights)
    upper = np.triu_indices(4, 1)
    assert np.all(explorer.weights[upper] == 0.0)
    assert np.all(np.isneginf(explorer.scores[upper]))
    assert explorer.weights[0, 0] == 1.0
    np.testing.assert_allclose(explorer.weights.sum(axis=1), 1.0)
    w_cells, s_cells = cells(explorer._weight_cells, 4), cells(explorer._score_cells, 4)
    for i in range(4):
        for j in range(4):
            if j > i:
                assert w_cells["text"][i, j] == "—" and s_cells["text"][i, j] == "−∞"
                assert w_cells["fill"][i, j] == s_cells["fill"][i, j] == "#E4E4E4"
            else:
                assert w_cells["text"][i, j] == f"{weights[i, j]:.2f}"
    assert explorer._masked_note.visible
    assert re.findall(r"[0-9]\.[0-9]{3}", explorer._row_sums.object) == ["1.000"] * 4
    explorer.causal = False
    assert not explorer._masked_note.visible and np.all(explorer.weights[upper] > 0)


@pytest.mark.parametrize("d_k", [1, 9, 64])
def test_scaling_divides_by_sqrt_dk(explorer, d_k):
    explorer.d_k = d_k
    scaled = explorer.scores.copy()
    assert explorer._score_fig.title.text == STRINGS["zh"]["matrix_plot_scores_scaled"]
    explorer.scaled = False
    np.testing.assert_allclose(explorer.scores, scaled * math.sqrt(d_k))
    np.testing.assert_allclose(explorer.weights, reference(d_k=d_k, scaled=False)[1])
    assert explorer._score_fig.title.text == STRINGS["zh"]["matrix_plot_scores_unscaled"]


def test_unscaled_saturation_grows_with_dk_scaled_stays_moderate():
    d, scaled, unscaled = saturation_curve(4)
    assert d.tolist() == list(range(1, 65))
    assert unscaled[0] < unscaled[3] < unscaled[15] < unscaled[63]
    assert unscaled[63] > 0.85
    assert np.all(scaled < 0.6) and np.all(scaled > 0.25)  # >= 1/n always, moderate throughout
    assert unscaled[0] == pytest.approx(scaled[0], abs=0.03)  # d_k = 1: the same up to sampling
    assert not d.flags.writeable and not unscaled.flags.writeable


def test_saturation_curve_matches_a_plain_loop():
    # Same random stream, one draw at a time, no block tricks.
    n, draws, seed = 3, 50, 7
    _, scaled, unscaled = saturation_curve(n, draws=draws, seed=seed)
    rng = np.random.default_rng(seed)
    for d_k in range(1, 65):
        q = rng.standard_normal((draws // 25, 25 * n, d_k)).reshape(draws, n, d_k)
        k = rng.standard_normal((draws // 25, 25 * n, d_k)).reshape(draws, n, d_k)
        for scale, curve in ((None, scaled), (1.0, unscaled)):
            best = [core.softmax(core.dot_product_scores(qi, ki, scale=scale)).max(axis=1).mean()
                    for qi, ki in zip(q, k)]
            assert curve[d_k - 1] == pytest.approx(np.mean(best), rel=1e-12)
    with pytest.raises(ValueError, match="draws a multiple of 25"):
        saturation_curve(4, draws=30)


def test_curve_and_mark_follow_the_settings(explorer):
    explorer.d_k = 32
    d, scaled, unscaled = saturation_curve(4)
    assert explorer._mark.data["d"] == [32]
    assert explorer._mark.data["unscaled"] == [unscaled[31]] and explorer._mark.data["scaled"] == [scaled[31]]
    assert explorer._mark.data["current"] == [explorer.mean_max_weight]
    assert f"{unscaled[31]:.3f}" in explorer._max_weight.object
    assert f"{CURVE_DRAWS}" in explorer._max_weight.object
    explorer.n_tokens = 6
    assert len(explorer._curve.data["d"]) == 64
    np.testing.assert_allclose(explorer._curve.data["unscaled"], saturation_curve(6)[2])


def test_unscaled_current_matrix_saturates_at_large_dk():
    means = [MatrixExplorer(d_k=d, scaled=False, seed=s).mean_max_weight
             for d in (64,) for s in range(10)]
    small = [MatrixExplorer(d_k=1, scaled=False, seed=s).mean_max_weight for s in range(10)]
    assert np.mean(means) > 0.8 > np.mean(small)
    scaled = [MatrixExplorer(d_k=64, scaled=True, seed=s).mean_max_weight for s in range(10)]
    assert np.mean(scaled) < 0.7


def test_token_count_resizes_the_matrices(explorer):
    explorer.n_tokens = 6
    assert explorer.weights.shape == (6, 6) and len(explorer._weight_cells.data["x"]) == 36
    assert explorer._weight_fig.x_range.end == 6.5 and explorer._weight_fig.y_range.start == 6.5
    np.testing.assert_allclose(explorer.weights, reference(n=6)[1])
    explorer.n_tokens = 2
    assert explorer.weights.shape == (2, 2) and explorer._score_fig.x_range.end == 2.5


def test_query_scale_zero_gives_a_uniform_first_row(explorer):
    explorer.q1_scale = 0.0
    np.testing.assert_allclose(explorer.weights[0], 0.25)
    explorer.q1_scale = 4.0
    np.testing.assert_allclose(explorer.weights, reference(q1_scale=4.0)[1])
    assert explorer.weights[0].max() > reference()[1][0].max()  # a longer query, a sharper row


def test_seed_is_deterministic_and_changes_the_draw(explorer):
    explorer.seed = 5
    first = explorer.weights.copy()
    np.testing.assert_allclose(first, reference(seed=5)[1])
    explorer.seed = 6
    assert not np.allclose(explorer.weights, first)
    explorer.seed = 5
    np.testing.assert_array_equal(explorer.weights, first)


@pytest.mark.parametrize("name, bad", [("d_k", 0), ("d_k", 65), ("n_tokens", 7), ("n_tokens", 1),
                                       ("seed", -1), ("q1_scale", -0.5), ("q1_scale", float("nan")),
                                       ("causal", "yes"), ("d_k", 2.5)])
def test_bad_input_names_parameter(explorer, name, bad):
    before = explorer.weights.copy()
    with pytest.raises(ValueError, match=name):
        setattr(explorer, name, bad)
    np.testing.assert_array_equal(explorer.weights, before)
    assert not explorer._error.visible


def test_sources_get_fresh_dicts(explorer):
    before = explorer._weight_cells.data
    explorer.d_k = 8
    assert explorer._weight_cells.data is not before


def test_every_ui_string_comes_from_the_table():
    zh, en = MatrixExplorer(), MatrixExplorer(language="en")
    assert STRINGS["zh"]["matrix_row_sums"] in zh._row_sums.object
    assert STRINGS["en"]["matrix_row_sums"] in en._row_sums.object
    assert en._weight_fig.title.text == STRINGS["en"]["matrix_plot_weights"]
    assert en._curve_fig.title.text == STRINGS["en"]["matrix_plot_saturation"]


def test_layout_renders_and_carries_css_classes(explorer):
    root = pn.panel(explorer).get_root()
    classes = set()
    for model in root.references():
        classes.update(getattr(model, "css_classes", []) or [])
    for css in ["ae-matrix-causal", "ae-matrix-scaled", "ae-matrix-dk", "ae-matrix-seed",
                "ae-matrix-n", "ae-matrix-q1-scale", "ae-matrix-max-weight", "ae-matrix-row-sums"]:
        assert css in classes, css


def test_each_explorer_has_its_own_widgets_and_sources():
    a, b = MatrixExplorer(), MatrixExplorer()
    a.d_k = 10
    assert b.d_k == 4 and b.weights.shape == (4, 4)
    np.testing.assert_allclose(b.weights, reference()[1])
    assert a._controls["d_k"] is not b._controls["d_k"]
    assert a._weight_cells is not b._weight_cells and a._curve_fig is not b._curve_fig
