"""Equal means: when two runs' means of per-topic values are the same number, although their floats differ.

Why a module of its own: a mean is a sum of per-topic values that are ratios of small integers (P@20 = k/20, AP
a sum of i/rank over R), and the floats of two equal sums differ in the last bits when the values differ: three
runs with P@20 of exactly 16/600 were stored as 0.026666666666666672 and ...665, and Kendall's tau-b, the ranks and
the order of group letters read that rounding as an order. Every place that compares means (runscore compare and
runscore report) decides equality here, with one documented rule (docs/report.md, "Ties"):

    a and b are equal when |a - b| <= (n + 1024) * 2**-52 * max(|a|, |b|),

n the number of topics averaged. Why that bound: each per-topic value is computed with at most about a thousand
rounded operations (a relative error below 1024 * 2**-53 for the measures of these tasks, which sum at most a
thousand ranks), and a sum of n non-negative values adds at most (n - 1) * 2**-53 relative error whatever its order
(Higham, Accuracy and Stability of Numerical Algorithms, 2002, 4.2), so two means equal in exact arithmetic are
closer than the bound. Two truly different means of ratios with denominators below D differ by at least 1/(n D),
far above the bound for any campaign (100 topics: the bound is 2.5e-13 relative, nine digits below the printed
ones). Equality is closed by chaining (a run within the bound of a tied run is tied with it), so classes never
depend on the runs' order.
"""
import numpy as np

ROUNDING_TERMS = 1024
_UNIT = 2.0 ** -52


def relative_tolerance(topics: int) -> float:
    """The largest relative difference of two means of `topics` values that are equal in exact arithmetic."""
    return (max(1, int(topics)) + ROUNDING_TERMS) * _UNIT


def same(a: float, b: float, topics: int) -> bool:
    """a and b are the same mean of `topics` per-topic values (an infinite or NaN mean equals none)."""
    scale = max(abs(a), abs(b))
    return scale < float("inf") and abs(a - b) <= relative_tolerance(topics) * scale


def tie_classes(values: np.ndarray, topics: int) -> np.ndarray:
    """`values` (runs, or rows x runs) with each mean replaced by the smallest mean of its class of equal means
    (same() chained along each row's sorted values); NaN and infinities stay, each its own class. Only for
    comparing: the printed means are the official ones."""
    values = np.asarray(values, dtype=np.float64)
    rows = np.atleast_2d(values)
    if rows.shape[-1] < 2:
        return values.copy()
    order = np.argsort(rows, axis=-1, kind="stable")
    ordered = np.take_along_axis(rows, order, axis=-1)
    with np.errstate(invalid="ignore"):                                 # inf - inf: NaN, not joined
        gap = ordered[:, 1:] - ordered[:, :-1]
        scale = np.maximum(np.abs(ordered[:, 1:]), np.abs(ordered[:, :-1]))
        joined = (gap <= relative_tolerance(topics) * scale) & np.isfinite(scale)   # never NaN or an infinity
    starts = np.concatenate([np.ones((rows.shape[0], 1), dtype=bool), ~joined], axis=1)
    positions = np.where(starts, np.arange(rows.shape[1])[None, :], 0)
    first = np.maximum.accumulate(positions, axis=1)
    classes = np.take_along_axis(ordered, first, axis=1)
    out = np.empty_like(rows)
    np.put_along_axis(out, order, classes, axis=1)
    return out.reshape(values.shape)


def better(a: float, b: float, sorting: str, topics: int) -> bool:
    """a is a strictly better mean than b (desc: higher is better; asc: lower), equal means are not."""
    if same(a, b, topics):
        return False
    return a > b if sorting == "desc" else a < b
