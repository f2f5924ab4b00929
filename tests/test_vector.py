"""Component tests of VectorExplorer (section 3.7.6), without a browser."""

import re

import numpy as np
import panel as pn
import pytest

from attention_explorable import core
from attention_explorable.strings import STRINGS
from attention_explorable.vector import VectorExplorer, convex_hull


def number(html: str, label: str) -> float:
    """The number after ``label =`` in a readout's HTML."""
    m = re.search(re.escape(label) + r" = (-?[0-9.]+)", html)
    assert m, f"{label!r} not found in {html!r}"
    return float(m.group(1))


def _float(s: str) -> float:
    """A readout number, also in the ``4.3×10<sup>-18</sup>`` form of tiny numbers."""
    return float(re.sub(r"×10<sup>(-?\d+)</sup>", r"e\1", s))


def vector(html: str, label: str) -> list[float]:
    m = re.search(re.escape(label) + r" = \[([^,\]]+), ([^,\]]+)\]", html)
    assert m, f"{label!r} not found in {html!r}"
    return [_float(m.group(1)), _float(m.group(2))]


@pytest.fixture
def explorer():
    return VectorExplorer()


def test_default_state_reproduces_the_worked_example(explorer):
    # Section 3.7.6: scores 1, 0, 1; weights 0.422, 0.155, 0.422; y = [0.845, 0.578].
    assert explorer.scores.tolist() == [1.0, 0.0, 1.0]
    np.testing.assert_allclose(explorer.weights, [0.422, 0.155, 0.422], atol=5e-4)
    np.testing.assert_allclose(explorer.output, [0.845, 0.578], atol=5e-4)
    scores, weights = explorer._scores_readout.object, explorer._weights_readout.object
    assert [number(scores, f"s{i}") for i in "₁₂₃"] == [1.0, 0.0, 1.0]
    assert [number(weights, f"α{i}") for i in "₁₂₃"] == [0.422, 0.155, 0.422]
    assert vector(explorer._output_readout.object, "y") == [0.845, 0.578]
    assert "= [0.845, 0.578]" in explorer._formula.object
    assert explorer._output.data["x"] == [pytest.approx(0.8446376)]
    assert explorer._query.data["x"] == [1.0] and explorer._query.data["y"] == [0.0]


@pytest.mark.parametrize("qx, qy, temp", [(-1.5, 0.5, 1.0), (0.3, -2.0, 0.05), (2.0, 2.0, 5.0), (0.0, 0.0, 1.0)])
def test_numbers_follow_core_and_output_stays_in_the_hull(explorer, qx, qy, temp):
    explorer.param.update(query_x=qx, query_y=qy, temperature=temp)
    k, v = explorer.keys, explorer.values
    out, w = core.scaled_dot_product_attention([qx, qy], k, v, temperature=temp, scale=1.0)
    np.testing.assert_allclose(explorer.scores, core.dot_product_scores([qx, qy], k, scale=1.0)[0])
    np.testing.assert_allclose(explorer.weights, w[0])
    np.testing.assert_allclose(explorer.output, out[0])
    np.testing.assert_allclose(explorer._output.data["x"], [out[0, 0]])
    assert explorer.weights.sum() == pytest.approx(1.0)
    # Inside the triangle [1, 0], [0, 1], [1, 1]: x <= 1, y <= 1, x + y >= 1.
    x, y = explorer.output
    assert x <= 1 + 1e-12 and y <= 1 + 1e-12 and x + y >= 1 - 1e-12
    assert vector(explorer._output_readout.object, "y") == pytest.approx(out[0], abs=5e-4)
    assert f"{qx:.2f}" in explorer._formula.object
    sizes = explorer._values.data["size"]
    assert np.argmax(sizes) == np.argmax(w[0])  # bigger point, bigger weight


def test_hull_patch_is_the_values_triangle(explorer):
    hull = sorted(zip(explorer._hull.data["x"], explorer._hull.data["y"]))
    assert hull == [(0.0, 1.0), (1.0, 0.0), (1.0, 1.0)]


@pytest.mark.parametrize("points, expected", [
    ([[0, 0], [2, 0], [2, 2], [0, 2], [1, 1]], [[0, 0], [2, 0], [2, 2], [0, 2]]),
    ([[0, 0], [1, 1], [2, 2]], [[0, 0], [2, 2]]),
    ([[1, 1], [1, 1]], [[1, 1]]),
])
def test_convex_hull(points, expected):
    assert convex_hull(points).tolist() == expected


def test_dragging_the_tip_moves_the_query_clamped_to_bounds(explorer):
    explorer._on_drag("data", None, {"x": [0.5049], "y": [-0.251], "label": ["q"]})
    assert (explorer.query_x, explorer.query_y) == (0.5, -0.25)
    assert explorer.scores[0] == pytest.approx(0.5)
    explorer._on_drag("data", None, {"x": [7.0], "y": [-9.0], "label": ["q"]})
    assert (explorer.query_x, explorer.query_y) == (2.0, -2.0)
    assert explorer._query.data["x"] == [2.0] and explorer._query.data["y"] == [-2.0]
    # Dragged further out: no parameter changes, the tip snaps back to the bound.
    explorer._query.data = {"x": [5.0], "y": [-5.0], "label": ["q"]}
    assert explorer._query.data["x"] == [2.0] and explorer._query.data["y"] == [-2.0]


@pytest.mark.parametrize("data", [{"x": [], "y": [], "label": []}, {"x": [None], "y": [0.5], "label": ["q"]},
                                  {"x": [float("nan")], "y": [0.5], "label": ["q"]}])
def test_deleting_the_tip_or_a_bad_position_puts_it_back(explorer, data):
    explorer._query.data = data
    assert explorer._query.data["x"] == [1.0] and explorer._query.data["y"] == [0.0]
    assert (explorer.query_x, explorer.query_y) == (1.0, 0.0)


def test_tap_sets_the_query(explorer):
    class Event:
        x, y = -0.7, 1.234
    explorer._on_tap(Event())
    assert (explorer.query_x, explorer.query_y) == (-0.7, 1.23)
    assert explorer.scores.tolist() == pytest.approx([-0.7, 1.23, 0.53])


def test_sources_get_fresh_dicts(explorer):
    before = explorer._values.data
    explorer.query_y = 0.5
    assert explorer._values.data is not before


@pytest.mark.parametrize("name, bad", [("query_x", 2.5), ("query_y", -3.0), ("temperature", 0.0),
                                       ("temperature", -1.0), ("query_x", float("nan"))])
def test_bad_number_names_parameter(explorer, name, bad):
    with pytest.raises(ValueError, match=name):
        setattr(explorer, name, bad)
    assert "NaN" not in explorer._weights_readout.object


@pytest.mark.parametrize("bad", [np.array([[1.0, 2.0, 3.0]]), np.array([[np.nan, 0.0]]),
                                 np.zeros((7, 2)), np.zeros((0, 2)), np.array([["a", "b"]])])
def test_bad_keys_name_parameter_and_value(explorer, bad):
    with pytest.raises(ValueError, match="keys must be an \\(n, 2\\) array"):
        explorer.keys = bad
    assert explorer.keys.shape == (3, 2)


def test_mismatched_keys_and_values():
    with pytest.raises(ValueError, match=r"keys and values must have the same shape.*\(2, 2\).*\(3, 2\)"):
        VectorExplorer(keys=np.eye(2))
    ex = VectorExplorer()
    ex.keys = np.eye(2)  # set later: reported in the error pane, last picture kept
    assert ex._error.visible and "v of shape (3, 2)" in ex._error.object
    assert ex.output.tolist() == pytest.approx([0.8446376, 0.5776812])
    ex.values = np.eye(2)
    assert not ex._error.visible and len(ex._values.data["x"]) == 2


def test_other_keys_and_values():
    ex = VectorExplorer(keys=np.array([[1.0, 0.0], [-1.0, 0.0]]), values=np.array([[0.0, 2.0], [0.0, -2.0]]))
    assert ex.weights.tolist() == pytest.approx(core.softmax([1.0, -1.0]).tolist())
    assert ex._keys.data["label"] == ["k₁", "k₂"]


def test_every_ui_string_comes_from_the_table():
    zh, en = VectorExplorer(), VectorExplorer(language="en")
    assert STRINGS["zh"]["readout_weights"] in zh._weights_readout.object
    assert STRINGS["en"]["readout_weights"] in en._weights_readout.object
    assert en._figure.title.text == STRINGS["en"]["vector_plot"]
    assert set(STRINGS["zh"]) == set(STRINGS["en"])


def test_layout_renders_and_carries_css_classes(explorer):
    root = pn.panel(explorer).get_root()
    classes = set()
    for model in root.references():
        classes.update(getattr(model, "css_classes", []) or [])
    for css in ["ae-query-x", "ae-query-y", "ae-vector-temperature", "ae-vector-scores",
                "ae-vector-weights", "ae-vector-output", "ae-vector-formula", "ae-error", "ae-vector-plot"]:
        assert css in classes, css


def test_each_explorer_has_its_own_widgets_and_sources():
    a, b = VectorExplorer(), VectorExplorer()
    a.query_x = -1.0
    assert b.query_x == 1.0 and b.scores.tolist() == [1.0, 0.0, 1.0]
    assert a._controls["query_x"] is not b._controls["query_x"]
    assert a._figure is not b._figure and a._query is not b._query
    a.keys[0, 0] = 5.0  # arrays are per instance too
    assert b.keys[0, 0] == 1.0
