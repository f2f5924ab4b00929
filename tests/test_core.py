"""Tests of the numerical core against invariants, an oracle and the text."""

import math
import re
import subprocess
import sys

import numpy as np
import pytest
import scipy.special
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from numpy.testing import assert_allclose

from attention_explorable import core

finite_scores = hnp.arrays(
    np.float64,
    hnp.array_shapes(min_dims=1, max_dims=2, min_side=1, max_side=6),
    elements=st.floats(-1e300, 1e300, allow_nan=False, allow_infinity=False),
)
temperatures = st.floats(1e-300, 1e300, allow_nan=False, allow_infinity=False)


# --- softmax -------------------------------------------------------------


def test_softmax_matches_scipy_on_random_inputs():
    rng = np.random.default_rng(0)
    for _ in range(50):
        x = rng.normal(scale=5.0, size=(4, 7))
        t = float(rng.uniform(0.05, 10.0))
        assert_allclose(core.softmax(x, temperature=t), scipy.special.softmax(x / t, axis=-1), rtol=1e-12)


def test_softmax_explicit_formula_small_case():
    s = np.array([3.0, 1.0, 0.2])
    expected = np.exp(s) / np.exp(s).sum()
    assert_allclose(core.softmax(s), expected, rtol=1e-14)


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_softmax_axis(axis):
    x = np.arange(12.0).reshape(3, 4)
    assert_allclose(core.softmax(x, axis=axis), scipy.special.softmax(x, axis=axis))


def test_temperature_applied_exactly_once():
    x = np.array([[0.3, -1.2, 2.5], [4.0, 4.0, -3.0]])
    assert_allclose(core.softmax(x, temperature=2.0), core.softmax(x / 2.0), rtol=1e-14)
    assert not np.allclose(core.softmax(x, temperature=2.0), core.softmax(x / 4.0))


def test_shift_invariance():
    x = np.array([0.5, -2.0, 1.5, 3.0])
    assert_allclose(core.softmax(x + 1234.5), core.softmax(x), rtol=1e-12)


def test_returns_float64_for_other_dtypes():
    w = core.softmax(np.array([1, 2, 3], dtype=np.int32))
    assert w.dtype == np.float64
    w = core.softmax(np.array([1, 2, 3], dtype=np.float16))
    assert w.dtype == np.float64


@settings(max_examples=300, deadline=None)
@given(finite_scores, temperatures)
def test_softmax_stable_for_extreme_magnitudes(x, t):
    with np.errstate(all="raise"):
        w = core.softmax(x, temperature=t)
    assert w.shape == x.shape
    assert np.isfinite(w).all()
    assert (w >= 0).all()
    assert_allclose(w.sum(axis=-1), 1.0, rtol=1e-12)
    # The largest score always gets the largest weight.
    idx = np.argmax(x, axis=-1)
    assert (np.take_along_axis(w, idx[..., None], -1)[..., 0] >= w.max(axis=-1) - 1e-15).all()


@pytest.mark.parametrize("bad", [0.0, -1.0, float("nan"), float("inf"), -float("inf"), "warm", None])
def test_bad_temperature_names_parameter_and_value(bad):
    with pytest.raises(ValueError, match=r"temperature.*" + re.escape(repr(bad))):
        core.softmax([1.0, 2.0], temperature=bad)


@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_nan_and_posinf_scores_rejected(bad):
    with pytest.raises(ValueError, match="scores"):
        core.softmax([1.0, bad])


def test_neg_inf_is_masked_exactly_zero():
    w = core.softmax([2.0, -np.inf, 0.0])
    assert w[1] == 0.0
    assert_allclose(w.sum(), 1.0)


def test_fully_masked_slice_gets_zero_weights_not_nan():
    x = np.array([[-np.inf, -np.inf], [1.0, -np.inf]])
    with np.errstate(all="raise"):
        w = core.softmax(x)
    assert_allclose(w, [[0.0, 0.0], [1.0, 0.0]])


def test_tiny_temperature_is_a_hard_but_continuous_choice():
    w = core.softmax([1.0, 1.001], temperature=0.01)
    assert 0.5 < w[1] < 1.0  # still a weighting, not a hard argmax
    w = core.softmax([1.0, 3.0], temperature=0.01)
    assert w[1] == pytest.approx(1.0) and w[0] >= 0.0


def test_large_temperature_tends_to_average():
    assert_allclose(core.softmax([0.0, 3.0, -2.0], temperature=1e6), [1 / 3] * 3, rtol=1e-5)


def test_naive_softmax_overflows_where_stable_does_not():
    s = [0.0, 8.0]
    naive = core.naive_softmax(s, temperature=0.01)
    assert np.isnan(naive).any()
    assert np.isfinite(core.softmax(s, temperature=0.01)).all()
    assert_allclose(core.naive_softmax([0.0, 1.0]), core.softmax([0.0, 1.0]))


# --- scores, masks, attention -------------------------------------------


def test_dot_product_scores_default_scale_is_inverse_sqrt_dk():
    rng = np.random.default_rng(1)
    q, k = rng.normal(size=(3, 4)), rng.normal(size=(5, 4))
    assert_allclose(core.dot_product_scores(q, k), q @ k.T / 2.0)
    assert_allclose(core.dot_product_scores(q, k, scale=1.0), q @ k.T)


def test_dot_product_scores_shape_mismatch_names_both_shapes():
    with pytest.raises(ValueError, match=r"\(2, 3\).*\(4, 2\)"):
        core.dot_product_scores(np.ones((2, 3)), np.ones((4, 2)))


def test_causal_mask():
    m = core.causal_mask(4)
    assert m.dtype == bool and m.shape == (4, 4)
    assert all(m[i, j] == (j <= i) for i in range(4) for j in range(4))
    for bad in (0, -2, 2.5, True):
        with pytest.raises(ValueError, match="n must"):
            core.causal_mask(bad)


def test_attention_matches_explicit_formula():
    rng = np.random.default_rng(2)
    q, k, v = rng.normal(size=(3, 4)), rng.normal(size=(5, 4)), rng.normal(size=(5, 2))
    out, w = core.scaled_dot_product_attention(q, k, v, temperature=0.7)
    expected_w = scipy.special.softmax(q @ k.T / math.sqrt(4) / 0.7, axis=-1)
    assert_allclose(w, expected_w, rtol=1e-12)
    assert_allclose(out, expected_w @ v, rtol=1e-12)
    assert out.shape == (3, 2) and w.shape == (3, 5)


def test_attention_causal_mask_and_fully_masked_row():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(4, 3))
    out, w = core.scaled_dot_product_attention(x, x, x, mask=core.causal_mask(4))
    assert_allclose(np.triu(w, 1), 0.0)
    assert w[0, 0] == 1.0
    mask = core.causal_mask(4)
    mask[2] = False
    with np.errstate(all="raise"):
        out, w = core.scaled_dot_product_attention(x, x, x, mask=mask)
    assert_allclose(w[2], 0.0)
    assert_allclose(out[2], 0.0)
    assert np.isfinite(out).all()


def test_attention_errors_name_shapes():
    with pytest.raises(ValueError, match=r"\(3, 2\).*\(2, 2\)"):
        core.scaled_dot_product_attention(np.ones((1, 2)), np.ones((3, 2)), np.ones((2, 2)))
    with pytest.raises(ValueError, match=r"mask.*\(2, 2\).*\(1, 3\)"):
        core.scaled_dot_product_attention(
            np.ones((1, 2)), np.ones((3, 2)), np.ones((3, 2)), mask=np.ones((2, 2), dtype=bool)
        )
    with pytest.raises(ValueError, match="mask must be boolean"):
        core.scaled_dot_product_attention(np.ones((1, 2)), np.ones((3, 2)), np.ones((3, 2)), mask=np.ones((1, 3)))
    with pytest.raises(ValueError, match="temperature"):
        core.scaled_dot_product_attention(np.ones((1, 2)), np.ones((3, 2)), np.ones((3, 2)), temperature=0)


# --- weighted sums and the convex hull ----------------------------------


def test_worked_numbers_of_section_3_8():
    assert float(core.weighted_sum([0.75, 0.25], [2.0, 10.0])) == pytest.approx(4.0)
    assert float(core.weighted_sum([0.2, 0.8], [2.0, 10.0])) == pytest.approx(8.4)
    # Step 1: equal scores give equal weights and the midpoint.
    w = core.softmax([1.5, 1.5])
    assert float(core.weighted_sum(w, [2.0, 10.0])) == pytest.approx(6.0)


def test_worked_example_of_section_3_7():
    q = [[1.0, 0.0]]
    k = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
    v = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
    scores = core.dot_product_scores(q, k, scale=1.0)
    assert_allclose(scores, [[1.0, 0.0, 1.0]])
    out, w = core.scaled_dot_product_attention(q, k, v, scale=1.0)
    e = math.e
    assert_allclose(w[0], [e / (2 * e + 1), 1 / (2 * e + 1), e / (2 * e + 1)])
    assert np.round(w[0], 3).tolist() == [0.422, 0.155, 0.422]
    assert np.round(out[0], 3).tolist() == [0.845, 0.578]


@pytest.mark.parametrize(
    "weights, match",
    [([0.5, 0.6], "sum to 1"), ([1.2, -0.2], "non-negative"), ([[0.5, 0.5]], "1-D"), ([0.5, float("nan")], "finite")],
)
def test_weighted_sum_rejects_bad_weights(weights, match):
    with pytest.raises(ValueError, match=match):
        core.weighted_sum(weights, [2.0, 10.0])


def test_weighted_sum_shape_mismatch_names_both_shapes():
    with pytest.raises(ValueError, match=r"\(3,\).*\(2,\)"):
        core.weighted_sum([0.2, 0.3, 0.5], [2.0, 10.0])


@settings(max_examples=200, deadline=None)
@given(
    hnp.arrays(np.float64, st.integers(1, 8), elements=st.floats(-50, 50)),
    st.integers(0, 2**32 - 1),
)
def test_output_lies_in_convex_hull_of_scalar_values(scores, seed):
    values = np.random.default_rng(seed).normal(scale=100, size=scores.shape)
    out = float(core.weighted_sum(core.softmax(scores), values))
    assert values.min() - 1e-9 <= out <= values.max() + 1e-9


def test_output_lies_in_convex_hull_of_vector_values():
    scipy_spatial = pytest.importorskip("scipy.spatial")
    rng = np.random.default_rng(4)
    for _ in range(50):
        v = rng.normal(size=(6, 2))
        out, w = core.scaled_dot_product_attention(rng.normal(size=(3, 2)), rng.normal(size=(6, 2)), v)
        hull = scipy_spatial.Delaunay(v)
        assert (hull.find_simplex(out, tol=1e-9) >= 0).all()
        assert_allclose(w.sum(axis=1), 1.0)


# --- the house rule ------------------------------------------------------


def test_core_imports_numpy_only():
    code = (
        "import sys, attention_explorable.core; "
        "bad = [m for m in ('panel', 'bokeh', 'param') if m in sys.modules]; "
        "print(','.join(bad))"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert res.stdout.strip() == ""


def test_weighted_sum_never_leaves_the_values_range_even_by_an_ulp():
    # Two weights summing to 1 + 1e-16 and equal values: unclipped, the sum is one ulp above them.
    weights, v = [0.7447408964034339, 0.2552591035965662], 0.8724998293084578
    assert weights[0] * v + weights[1] * v > v
    assert float(core.weighted_sum(weights, [v, v])) == v
    assert core.weighted_sum(weights, [[v, -v], [v, -v]]).tolist() == [v, -v]


def test_attention_gives_the_masked_scores_its_weights_come_from():
    rng = np.random.default_rng(3)
    q, k, v = rng.normal(size=(4, 3)), rng.normal(size=(5, 3)), rng.normal(size=(5, 2))
    mask = rng.random((4, 5)) < 0.7
    mask[:, 0] = True
    scores, weights, output = core.attention(q, k, v, mask=mask, temperature=0.5)
    assert_allclose(scores[mask], core.dot_product_scores(q, k)[mask])
    assert np.all(scores[~mask] == -np.inf) and np.all(weights[~mask] == 0.0)
    assert_allclose(weights, core.softmax(scores, temperature=0.5))
    out2, w2 = core.scaled_dot_product_attention(q, k, v, mask=mask, temperature=0.5)
    assert np.array_equal(output, out2) and np.array_equal(weights, w2)
