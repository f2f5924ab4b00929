"""The numerical core: scores, temperature softmax, masks and attention.

Every number the explorables show is computed here. The module depends on
numpy only, so it can be read, tested and reused without any web stack.

Conventions (textbook sections 3.7 and 3.8; Vaswani et al. 2017):

* ``q`` has shape ``(n_q, d_k)``, ``k`` ``(n_k, d_k)``, ``v`` ``(n_k, d_v)``;
* ``scores`` ``(n_q, n_k)``, ``weights`` ``(n_q, n_k)``, ``out`` ``(n_q, d_v)``;
* a boolean ``mask`` is True where a query *may* attend a key;
* ``-inf`` in a score means "masked": its weight is exactly 0.

All results are float64. Nothing here emits a floating-point warning, even
under ``numpy.errstate(all="raise")``.

References
----------
.. [1] A. Vaswani et al., "Attention Is All You Need", NeurIPS 2017.
.. [2] Course text, section 3.7 (attention mechanism) and section 3.8
       (attention: weighting information by context).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

__all__ = [
    "softmax",
    "naive_softmax",
    "dot_product_scores",
    "causal_mask",
    "Attention",
    "attention",
    "scaled_dot_product_attention",
    "weighted_sum",
]

#: Tolerance on ``sum(weights) == 1`` accepted by :func:`weighted_sum`.
WEIGHT_SUM_TOLERANCE = 1e-9


def _short(x) -> str:
    text = repr(x)
    return text if len(text) <= 80 else text[:77] + "..."


def _is_real_scalar(v) -> bool:
    return not isinstance(v, (bool, np.bool_)) and isinstance(v, (int, float, np.integer, np.floating))


def _as_float_array(x, name: str) -> np.ndarray:
    """``x`` as a float64 array, or ``ValueError`` naming ``name`` and the value.

    Accepts real numbers of any numpy or Python type (Python ints of any size
    that fits float64, ``np.longdouble`` within float64's range); refuses
    strings, bytes, ``None``, booleans inside an object array, ``Decimal``,
    dates, complex numbers and ragged lists, instead of converting them.
    """
    if x is None or isinstance(x, (str, bytes)):
        raise ValueError(f"{name} must be real numbers, got {_short(x)}")
    try:
        arr = np.asarray(x)
    except (TypeError, ValueError) as exc:  # ragged nested lists
        raise ValueError(f"{name} must be a rectangular array of real numbers, got {_short(x)}") from exc

    def too_big():
        return ValueError(f"{name} must lie within the float64 range (|x| <= 1.8e308), got {_short(x)}")

    if arr.dtype.kind == "O":
        flat = arr.ravel()
        out = np.empty(flat.shape, dtype=np.float64)
        for i, v in enumerate(flat):
            if not _is_real_scalar(v):
                raise ValueError(f"{name} must be real numbers, got {_short(x)}")
            try:
                with np.errstate(over="ignore"):
                    out[i] = float(v)
            except OverflowError:
                raise too_big() from None
            if math.isinf(out[i]) and not np.isinf(v):
                raise too_big()
        return out.reshape(arr.shape)
    if arr.dtype.kind not in "fiu":
        raise ValueError(f"{name} must be real numbers, got {_short(x)} (dtype {arr.dtype})")
    with np.errstate(over="ignore"):
        out = arr.astype(np.float64)
    if arr.dtype.kind == "f" and arr.dtype.itemsize > 8 and (np.isfinite(arr) & ~np.isfinite(out)).any():
        raise too_big()
    return out


def _check_temperature(temperature) -> float:
    message = f"temperature must be a finite number > 0, got {_short(temperature)}"
    if not _is_real_scalar(temperature):
        raise ValueError(message)
    try:
        with np.errstate(over="ignore"):
            t = float(temperature)
    except OverflowError:
        raise ValueError(message + " (beyond the float64 range)") from None
    if not math.isfinite(t) or t <= 0.0:
        raise ValueError(message)
    return t


def softmax(scores, temperature: float = 1.0, axis: int = -1) -> np.ndarray:
    """Temperature-scaled softmax, stable for every finite input.

    Parameters
    ----------
    scores : array_like, any shape
        Real scores (dimensionless). ``-inf`` marks a masked entry.
    temperature : float, default 1.0
        Softmax temperature ``T``, finite and ``> 0``. Small ``T`` sharpens
        the weights towards the largest score, large ``T`` flattens them
        towards the plain average.
    axis : int, default -1
        Axis along which the weights are normalised.

    Returns
    -------
    weights : ndarray of float64, same shape as ``scores``
        Non-negative; every slice along ``axis`` sums to 1, except a slice
        whose entries are all ``-inf``, which is all zeros.

    Raises
    ------
    ValueError
        If ``temperature`` is not a finite number > 0; if ``scores`` is not
        an array of real numbers (strings, ``None``, complex numbers, dates
        and ``Decimal`` are refused, not converted), lies beyond the float64
        range, is a scalar, or contains NaN or ``+inf``. The message names
        the parameter and the value.

    Notes
    -----
    Empty input gives empty output of the same shape (as in PyTorch).

    The softmax with temperature of the course text (section 3.7.4):

    .. math:: a_j = \\frac{e^{s_j / T}}{\\sum_k e^{s_k / T}}

    Subtracting the largest score of the slice first does not change the
    result (numerator and denominator gain the same factor) but makes every
    exponent ``<= 0``, so nothing overflows and the largest term is exactly
    ``e^0 = 1``: the denominator is at least 1 and never underflows to 0.

    References
    ----------
    Vaswani et al., "Attention Is All You Need", 2017; course sections 3.7, 3.8.

    Examples
    --------
    >>> softmax([0.0, 0.0]).tolist()
    [0.5, 0.5]
    >>> softmax([1.0, 0.0, float("-inf")]).round(4).tolist()
    [0.7311, 0.2689, 0.0]
    """
    t = _check_temperature(temperature)
    s = _as_float_array(scores, "scores")
    if np.isnan(s).any():
        raise ValueError(f"scores must not contain NaN, got {_short(scores)}")
    if np.isposinf(s).any():
        raise ValueError(f"scores must not contain +inf (use -inf to mask an entry), got {_short(scores)}")
    if s.ndim == 0:
        raise ValueError(f"scores must have at least one dimension, got the scalar {_short(scores)}")
    if s.size == 0:  # an empty slice has no weights (as a fully masked one has zeros)
        return np.zeros(s.shape)

    finite = np.isfinite(s)
    # The largest finite score of each slice; 0 for a fully masked slice.
    m = np.max(np.where(finite, s, -np.inf), axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    # Divide the (non-positive) gaps by T, never s by T first: s / T may
    # overflow for tiny T, the gap may only go towards -inf, which exp maps to 0.
    # A gap beyond float64 (scores near -1e308 and 1e308) is taken a quarter
    # at a time, so a huge T still gets it right: ((s/4 - m/4) / T) * 4, where
    # the quarters and the factor 4 are exact.
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        gap = s - m
        z = gap / t
        wide = finite & np.isinf(gap)
        if wide.any():
            z = np.where(wide, ((s * 0.25 - m * 0.25) / t) * 4.0, z)
        z = np.where(finite, z, -np.inf)
        e = np.exp(z)
        total = np.sum(e, axis=axis, keepdims=True)
        safe_total = np.where(total > 0.0, total, 1.0)  # fully masked -> zero weights
        return e / safe_total


def naive_softmax(scores, temperature: float = 1.0, axis: int = -1) -> np.ndarray:
    """Softmax computed literally as ``exp(s/T) / sum(exp(s/T))``.

    Shown beside :func:`softmax` in the explorables to make visible why the
    stable method exists: for large ``|s| / T`` the exponentials overflow to
    ``inf`` and the ratio becomes NaN, or underflow to 0 and give 0/0.

    Parameters
    ----------
    scores : array_like
        Real scores.
    temperature : float, default 1.0
        Finite temperature ``> 0``.
    axis : int, default -1
        Normalisation axis.

    Returns
    -------
    weights : ndarray of float64, same shape as ``scores``
        Possibly containing ``nan`` or ``inf``; floating-point warnings are
        suppressed, because the failure is the point of the demonstration.

    Raises
    ------
    ValueError
        If ``temperature`` is not a finite number > 0.

    References
    ----------
    Course section 3.8, step 3 ("very small temperatures are numerically
    sensitive").
    """
    t = _check_temperature(temperature)
    s = _as_float_array(scores, "scores")
    if s.ndim == 0:
        raise ValueError(f"scores must have at least one dimension, got the scalar {_short(scores)}")
    with np.errstate(all="ignore"):
        e = np.exp(s / t)
        return e / np.sum(e, axis=axis, keepdims=True)


def dot_product_scores(q, k, scale: float | None = None) -> np.ndarray:
    """Attention scores ``q @ k.T * scale``.

    Parameters
    ----------
    q : array_like, shape (n_q, d_k) or (d_k,)
        Queries, one per row. A single vector is treated as one query.
    k : array_like, shape (n_k, d_k) or (d_k,)
        Keys, one per row.
    scale : float or None, default None
        Factor applied to every dot product. ``None`` means ``1 / sqrt(d_k)``
        (the convention of scaled dot-product attention and of
        ``torch.nn.functional.scaled_dot_product_attention``); ``1.0`` gives
        plain dot products.

    Returns
    -------
    scores : ndarray of float64, shape (n_q, n_k)

    Raises
    ------
    ValueError
        If the arrays are not 1-D or 2-D arrays of real numbers, if the last
        dimensions of ``q`` and ``k`` differ (the message names both shapes),
        if any entry is not finite, if ``scale`` is not a finite number, if
        ``d_k`` is 0 with the default scale, or if the products overflow.

    Notes
    -----
    ``n_q = 0`` or ``n_k = 0`` gives an empty ``(n_q, n_k)`` result.

    References
    ----------
    Vaswani et al. 2017, eq. (1); course section 3.7 ("scaled dot-product
    attention").

    Examples
    --------
    >>> dot_product_scores([[1.0, 0.0]], [[1, 0], [0, 1], [1, 1]], scale=1.0).tolist()
    [[1.0, 0.0, 1.0]]
    """
    q2 = _as_2d(q, "q")
    k2 = _as_2d(k, "k")
    if q2.shape[1] != k2.shape[1]:
        raise ValueError(
            f"q and k must have the same last dimension d_k, got q of shape {q2.shape} and k of shape {k2.shape}"
        )
    if scale is None:
        if q2.shape[1] == 0:
            raise ValueError(
                f"d_k must be >= 1 for the default scale 1/sqrt(d_k), got q of shape {q2.shape} "
                f"and k of shape {k2.shape}"
            )
        scale = 1.0 / math.sqrt(q2.shape[1])
    if not _is_real_scalar(scale):
        raise ValueError(f"scale must be a finite number, got {_short(scale)}")
    try:
        with np.errstate(over="ignore"):
            scale_f = float(scale)
    except OverflowError:
        scale_f = math.inf
    if not math.isfinite(scale_f):
        raise ValueError(f"scale must be a finite number, got {_short(scale)}")
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        scores = (q2 @ k2.T) * scale_f  # (n_q, d_k) @ (d_k, n_k) -> (n_q, n_k)
    if not np.isfinite(scores).all():
        raise ValueError("dot products overflow float64; rescale q, k or scale")
    return scores


def _as_2d(x, name: str) -> np.ndarray:
    arr = _as_float_array(x, name)
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2:
        raise ValueError(f"{name} must be 1-D or 2-D, got shape {arr.shape}")
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} must contain only finite numbers, got {_short(x)}")
    return arr


def causal_mask(n: int) -> np.ndarray:
    """Boolean causal mask of shape ``(n, n)``.

    Parameters
    ----------
    n : int
        Sequence length, ``>= 1``.

    Returns
    -------
    mask : ndarray of bool, shape (n, n)
        ``mask[i, j]`` is True where query ``i`` may attend key ``j``,
        i.e. ``j <= i``: a position may not look at later positions.

    Raises
    ------
    ValueError
        If ``n`` is not an integer ``>= 1``.

    References
    ----------
    Vaswani et al. 2017, section 3.2.3; course section 3.8 (mask ``M``).

    Examples
    --------
    >>> causal_mask(3).astype(int).tolist()
    [[1, 0, 0], [1, 1, 0], [1, 1, 1]]
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be an integer >= 1, got {n!r}")
    return np.tril(np.ones((int(n), int(n)), dtype=bool))


class Attention(NamedTuple):
    """What :func:`attention` computes, each float64.

    ``scores`` (n_q, n_k): ``q @ k.T * scale``, ``-inf`` where the mask forbids;
    ``weights`` (n_q, n_k): their softmax at the temperature, row by row;
    ``output`` (n_q, d_v) (or (n_q,) for 1-D values): ``weights @ v``.
    """

    scores: np.ndarray
    weights: np.ndarray
    output: np.ndarray


def attention(q, k, v, mask=None, temperature: float = 1.0, scale: float | None = None) -> Attention:
    """Scaled dot-product attention with its scores: what :func:`scaled_dot_product_attention`
    computes, and the (masked) scores it computed them from, each once.

    Parameters and errors are those of :func:`scaled_dot_product_attention`.

    Returns
    -------
    Attention
        ``(scores, weights, output)``; a masked score is ``-inf`` and its weight exactly 0.

    References
    ----------
    Vaswani et al. 2017, eq. (1); course section 3.7 (the scores as a matrix, ``QK^T/sqrt(d_k)``)
    and section 3.8 (the causal mask).

    Examples
    --------
    >>> a = attention([[1, 0]], [[1, 0], [0, 1]], [[1], [3]], mask=[[True, False]], scale=1.0)
    >>> a.scores.tolist(), a.weights.tolist(), a.output.tolist()
    ([[1.0, -inf]], [[1.0, 0.0]], [[1.0]])
    """
    _check_temperature(temperature)
    scores = dot_product_scores(q, k, scale=scale)  # (n_q, n_k)
    v_arr = _as_float_array(v, "v")
    if v_arr.ndim not in (1, 2):
        raise ValueError(f"v must be 1-D or 2-D, got shape {v_arr.shape}")
    if v_arr.shape[0] != scores.shape[1]:
        raise ValueError(
            f"k and v must have the same number of rows n_k, got k of shape "
            f"{np.shape(np.atleast_2d(np.asarray(k, dtype=np.float64)))} and v of shape {v_arr.shape}"
        )
    if not np.isfinite(v_arr).all():
        raise ValueError("v must contain only finite numbers")
    if mask is not None:
        m = np.asarray(mask)
        if m.dtype != bool:
            raise ValueError(f"mask must be boolean (True = may attend), got dtype {m.dtype}")
        if m.shape != scores.shape:
            raise ValueError(
                f"mask must have the shape of the scores, got mask of shape {m.shape} "
                f"and scores of shape {scores.shape}"
            )
        scores = np.where(m, scores, -np.inf)
    weights = softmax(scores, temperature=temperature, axis=-1)
    with np.errstate(under="ignore"):  # tiny products round to subnormals or 0: harmless
        out = weights @ v_arr  # (n_q, n_k) @ (n_k, d_v) -> (n_q, d_v)
    return Attention(scores, weights, out)


def scaled_dot_product_attention(
    q, k, v, mask=None, temperature: float = 1.0, scale: float | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Scaled dot-product attention, returning the output and the weights.

    Computes ``softmax(q @ k.T * scale / T, masked) @ v``.

    Parameters
    ----------
    q : array_like, shape (n_q, d_k)
        Queries.
    k : array_like, shape (n_k, d_k)
        Keys.
    v : array_like, shape (n_k, d_v) or (n_k,)
        Values, one per key.
    mask : array_like of bool, shape (n_q, n_k), optional
        True where a query may attend a key (see :func:`causal_mask`).
    temperature : float, default 1.0
        Softmax temperature ``T > 0``, applied once, after ``scale``.
    scale : float or None, default None
        Score scale; ``None`` means ``1 / sqrt(d_k)``.

    Returns
    -------
    out : ndarray of float64, shape (n_q, d_v) (or (n_q,) for 1-D ``v``)
        Each row is a convex combination of the rows of ``v``: it lies in
        their convex hull. A query with every key masked gets a zero row.
    weights : ndarray of float64, shape (n_q, n_k)
        Non-negative rows summing to 1 (all zeros for a fully masked row).

    Raises
    ------
    ValueError
        On a shape mismatch (the message names both shapes), non-finite
        inputs, a non-boolean mask, or an invalid ``temperature``.

    References
    ----------
    Vaswani et al. 2017, eq. (1); course section 3.7 (matrix form) and
    section 3.8 (with causal mask ``M``).

    Examples
    --------
    >>> out, w = scaled_dot_product_attention(
    ...     [[1, 0]], [[1, 0], [0, 1], [1, 1]], [[1, 0], [0, 1], [1, 1]], scale=1.0)
    >>> w.round(3).tolist(), out.round(3).tolist()
    ([[0.422, 0.155, 0.422]], [[0.845, 0.578]])
    """
    parts = attention(q, k, v, mask=mask, temperature=temperature, scale=scale)
    return parts.output, parts.weights


def weighted_sum(weights, values) -> np.ndarray:
    """Convex combination ``sum_j weights[j] * values[j]``.

    Parameters
    ----------
    weights : array_like, shape (n,)
        Non-negative weights summing to 1 (within ``1e-9``).
    values : array_like, shape (n,) or (n, d_v)
        Scalar values or value vectors, one per weight.

    Returns
    -------
    out : float64 scalar array (shape ``()``) or ndarray of shape (d_v,)
        Lies in the convex hull of the values (for scalars: between their
        minimum and maximum; Proposition 3.8.1).

    Raises
    ------
    ValueError
        If ``weights`` is not 1-D, if its length differs from the number of
        values (both shapes are named), if a weight is negative or not
        finite, or if the weights do not sum to 1 within 1e-9.

    References
    ----------
    Course section 3.7 (``y = sum_j alpha_j v_j``), Proposition 3.8.1.

    Examples
    --------
    >>> float(weighted_sum([0.75, 0.25], [2.0, 10.0]))
    4.0
    """
    w = _as_float_array(weights, "weights")
    vals = _as_float_array(values, "values")
    if w.ndim != 1:
        raise ValueError(f"weights must be 1-D, got shape {w.shape}")
    if vals.ndim not in (1, 2) or vals.shape[0] != w.shape[0]:
        raise ValueError(
            f"values must have shape (n,) or (n, d_v) matching weights, got "
            f"weights of shape {w.shape} and values of shape {vals.shape}"
        )
    if not np.isfinite(w).all():
        raise ValueError(f"weights must be finite, got {w.tolist()}")
    if not np.isfinite(vals).all():
        raise ValueError("values must contain only finite numbers")
    if (w < 0).any():
        raise ValueError(f"weights must be non-negative, got {w.tolist()}")
    total = float(np.sum(w))
    if abs(total - 1.0) > WEIGHT_SUM_TOLERANCE:
        raise ValueError(f"weights must sum to 1 (within 1e-9), got a sum of {total!r}")
    with np.errstate(under="ignore"):
        out = w @ vals  # (n,) @ (n, d_v) -> (d_v,)
    # Rounding (weights summing to 1 - 1e-16) can land an ulp outside the values' range: clipped to it,
    # so the proposition holds in floating point too.
    return np.asarray(np.clip(out, vals.min(axis=0), vals.max(axis=0)))
