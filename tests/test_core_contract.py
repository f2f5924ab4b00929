"""The core's contract for every input: the right answer or a ValueError naming the parameter.

Property tests over the whole float64 range (subnormals, values next to the
overflow limit, huge and tiny temperatures) against an arbitrary-precision
oracle (mpmath, 60 digits), and the refusals of inputs that are not real
numbers.
"""

from __future__ import annotations

import datetime
import decimal
import fractions

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from attention_explorable import core

mpmath.mp.dps = 60
BIG = np.finfo(np.float64).max

any_float = st.floats(allow_nan=False, allow_infinity=False)  # subnormals and ±1.797e308 included
rows = hnp.arrays(np.float64, st.integers(1, 6), elements=any_float)
temperatures = st.one_of(st.floats(min_value=5e-324, max_value=BIG), st.sampled_from([5e-324, 1e-300, 1.0, BIG]))


def oracle(scores, temperature):
    """Softmax of one row in 60-digit arithmetic."""
    s = [mpmath.mpf(float(x)) for x in scores]
    t = mpmath.mpf(float(temperature))
    m = max(s)
    e = [mpmath.exp((x - m) / t) for x in s]
    total = mpmath.fsum(e)
    return [x / total for x in e]


@settings(max_examples=400, deadline=None)
@given(rows, temperatures)
def test_softmax_agrees_with_arbitrary_precision_everywhere(scores, temperature):
    with np.errstate(all="raise"):
        w = core.softmax(scores, temperature=temperature)
    exact = oracle(scores, temperature)
    for got, want in zip(w, exact):
        if want >= mpmath.mpf("1e-300"):
            assert abs(mpmath.mpf(float(got)) - want) <= mpmath.mpf("1e-12") * want, (scores, temperature, w)
        else:
            assert 0.0 <= got <= 1.0001e-300
    assert abs(float(w.sum()) - 1.0) <= 1e-15 * len(w) + 2.3e-16


@settings(max_examples=200, deadline=None)
@given(
    hnp.arrays(np.float64, st.tuples(st.integers(1, 4), st.integers(1, 5)), elements=st.floats(-1e150, 1e150)),
    hnp.arrays(np.float64, st.tuples(st.just(5), st.integers(1, 3)), elements=st.floats(-1e300, 1e300)),
    st.floats(min_value=1e-3, max_value=1e3),
)
def test_attention_outputs_stay_inside_the_values_hull(q_rows, v, temperature):
    n_k = v.shape[0]
    rng = np.random.default_rng(0)
    k = rng.standard_normal((n_k, q_rows.shape[1]))
    try:
        with np.errstate(all="raise"):
            out, w = core.scaled_dot_product_attention(q_rows, k, v, temperature=temperature)
    except ValueError as exc:  # products beyond float64 are refused by name, never wrong
        assert "overflow" in str(exc)
        return
    assert np.all(w >= 0) and np.allclose(w.sum(axis=1), 1.0, rtol=0, atol=1e-15 * n_k + 4.5e-16)
    lo, hi = v.min(axis=0), v.max(axis=0)
    # Up to rounding: relative 1e-12, and products of weights and subnormal values that round to 0.
    slack = 1e-12 * np.maximum(np.abs(lo), np.abs(hi)) + n_k * 5e-324
    assert np.all(out >= lo - slack) and np.all(out <= hi + slack)


def test_scores_whose_difference_overflows_keep_their_weights():
    w = core.softmax([-1e308, 1e308], temperature=1e308)
    np.testing.assert_allclose(w, [1 / (1 + np.exp(2.0)), 1 / (1 + np.exp(-2.0))], rtol=1e-14)
    w = core.softmax([-BIG, BIG, 0.0], temperature=BIG)
    exact = oracle([-BIG, BIG, 0.0], BIG)
    np.testing.assert_allclose(w, [float(x) for x in exact], rtol=1e-13)


NOT_REAL = [
    None,
    "1.0",
    b"1",
    [1 + 2j],
    np.array([1j]),
    ["a", "b"],
    [decimal.Decimal("1")],
    [fractions.Fraction(1, 2)],
    np.array(["2020-01-01"], dtype="datetime64[D]"),
    [datetime.date(2020, 1, 1)],
    [[1.0, 2.0], [3.0]],
    [object()],
    [None, 1.0],
]


@pytest.mark.parametrize("bad", NOT_REAL, ids=[type(b).__name__ + str(i) for i, b in enumerate(NOT_REAL)])
def test_scores_that_are_not_real_numbers_are_refused_by_name(bad):
    with pytest.raises(ValueError, match="scores must"):
        core.softmax(bad)
    with pytest.raises(ValueError, match="scores must"):
        core.naive_softmax(bad)


@pytest.mark.parametrize(
    "bad",
    [
        True,
        False,
        "1",
        b"1",
        decimal.Decimal("1"),
        10**400,
        -(10**400),
        1j,
        np.datetime64("2020"),
        np.longdouble("1e400"),
        [1.0],
        None,
        0,
        -0.0,
    ],
)
def test_temperatures_that_are_not_finite_positive_numbers_are_refused(bad):
    with pytest.raises(ValueError, match="temperature must be a finite number > 0"):
        core.softmax([1.0, 2.0], temperature=bad)


def test_numbers_beyond_float64_are_refused_not_rounded_to_infinity():
    with pytest.raises(ValueError, match="scores must lie within the float64 range"):
        core.softmax([10**400, 1.0])
    with pytest.raises(ValueError, match="scores must lie within the float64 range"):
        core.softmax(np.array([np.longdouble("1e400"), 1.0], dtype=np.longdouble))
    with pytest.raises(ValueError, match="scale must be a finite number"):
        core.dot_product_scores([[1.0]], [[1.0]], scale=10**400)
    np.testing.assert_allclose(core.softmax([10**300, 10**300]), [0.5, 0.5])  # big ints that fit are fine
    np.testing.assert_allclose(core.softmax(np.array([1, 2], dtype=np.longdouble)), core.softmax([1.0, 2.0]))


def test_no_warning_and_no_other_exception_type(recwarn):
    for call in (
        lambda: core.softmax([1 + 0j]),
        lambda: core.softmax([np.longdouble("1e4000")]),
        lambda: core.dot_product_scores([], []),
        lambda: core.softmax(np.float64(3.0)),
        lambda: core.weighted_sum([], []),
        lambda: core.causal_mask(0),
    ):
        with np.errstate(all="raise"), pytest.raises(ValueError):
            call()
    assert not recwarn.list


def test_empty_inputs_give_empty_results():
    assert core.softmax([]).shape == (0,)
    assert core.softmax(np.zeros((3, 0))).shape == (3, 0)
    assert core.dot_product_scores(np.zeros((0, 2)), np.ones((3, 2))).shape == (0, 3)
    out, w = core.scaled_dot_product_attention(np.ones((2, 2)), np.zeros((0, 2)), np.zeros((0, 3)))
    assert w.shape == (2, 0) and out.tolist() == [[0.0] * 3] * 2  # no key: as a fully masked row
    with pytest.raises(ValueError, match=r"d_k must be >= 1.*\(1, 0\)"):
        core.dot_product_scores([], [])
    assert core.dot_product_scores(np.zeros((1, 0)), np.zeros((2, 0)), scale=1.0).tolist() == [[0.0, 0.0]]
