"""Sums and maxima of values grouped by a non-decreasing segment id (a topic's documents, one topic after another),
in the order the C loops of trec_eval and NTCIREVAL make them, for every segment at once.

Why a module of its own: every kernel family (measures/vectorised.py, vectorised_all_trec.py, vectorised_ntcir.py)
adds a topic's values left to right as its peer does, so that the bits are the peer's; the helpers that do it
are shared by all of them, and a kernel module importing another for them made an import circle.
"""
from typing import List, Optional, Tuple

import numpy as np


def _depth_layers(segment: np.ndarray, count: int) -> List[np.ndarray]:
    """For values grouped by a non-decreasing segment id: layer j = the indices of the j-th value of every
    segment (segments shorter than j + 1 have none), so a loop over layers walks all segments at once."""
    if segment.shape[0] == 0:
        return []
    first = np.searchsorted(segment, np.arange(count))
    depth = np.arange(segment.shape[0]) - first[segment]
    order = np.argsort(depth, kind="stable")
    bounds = np.searchsorted(depth[order], np.arange(int(depth.max()) + 2))
    return [order[bounds[j]:bounds[j + 1]] for j in range(bounds.shape[0] - 1)]


def ordered_segment_sums(values: np.ndarray, segment: np.ndarray, count: int) -> np.ndarray:
    """Per-segment sums added left to right (as the C loops and measures.c_numbers.ordered_sum add), for values
    grouped by a non-decreasing segment id: step j adds the j-th value of every segment at once."""
    laid = _segment_grid(values, segment, count, 0.0)
    if laid is not None:
        # the last column of each row's running sum; + 0.0 as the loop's start from 0.0 (-0.0 becomes 0.0)
        return np.cumsum(laid[0], axis=1)[:, -1] + 0.0
    totals = np.zeros(count, dtype=np.float64)
    for chosen in _depth_layers(segment, count):
        totals[segment[chosen]] += values[chosen]
    return totals


def _segment_grid(values: np.ndarray, segment: np.ndarray, count: int, fill: float,
                  spare: int = 0) -> Optional[Tuple[np.ndarray, np.ndarray]]:
    """(one row per segment, its values from the left and `fill` after them; each value's flat index), or None when
    the segments' lengths differ so much that the grid would be much bigger than the values. numpy's
    accumulations along a row go strictly left to right, so one call over the grid gives every segment's
    running sums (or maxima) in the C loops' order, where a loop over segments or depths costs a numpy call
    each (the fixed cost that dominates small runs)."""
    size = values.shape[0]
    if size == 0 or count == 0:
        return None
    first = np.searchsorted(segment, np.arange(count))
    position = np.arange(size) - first[segment]
    width = int(position.max()) + 1 + spare           # (spare: `fill` columns every row ends with)
    if count * width > 4 * size + 4096:
        return None
    grid = np.full((count, width), fill, dtype=np.float64)
    cell = segment * width + position           # flat indices: a pair of index arrays costs several times more
    grid.reshape(-1)[cell] = values
    return grid, cell


def running_segment_sums(values: np.ndarray, segment: np.ndarray, count: int) -> np.ndarray:
    """For values grouped by a non-decreasing segment id: each value's segment sum up to and including it, added
    left to right from 0.0 as ordered_segment_sums adds (so a prefix's sum is bit for bit that of
    ordered_segment_sums over the prefix). One walk over the depth layers serves every cutoff."""
    laid = _segment_grid(values, segment, count, 0.0)
    if laid is not None:
        grid, cell = laid
        return np.cumsum(grid, axis=1).reshape(-1)[cell] + 0.0
    running = np.zeros(values.shape[0], dtype=np.float64)
    if values.shape[0] >= 64 * count:
        # Long segments (the usual run: hundreds of documents per topic): numpy's cumsum adds strictly left to
        # right, one call per segment; + 0.0 makes a leading -0.0 the 0.0 that 0.0 + (-0.0) gives.
        bounds = np.searchsorted(segment, np.arange(count + 1)).tolist()
        for start, end in zip(bounds, bounds[1:]):
            if start < end:
                np.cumsum(values[start:end], out=running[start:end])
        running += 0.0
        return running
    for depth, chosen in enumerate(_depth_layers(segment, count)):
        running[chosen] = (running[chosen - 1] if depth else 0.0) + values[chosen]
    return running


def _suffix_max(values: np.ndarray, segment: np.ndarray, count: int) -> np.ndarray:
    """For each value, the best of it and every later value of its segment, as trec_eval's walk from the end
    finds it (`best = 0.0; if (x > best) best = x`): never NaN, and +0.0 where nothing beats the start.

    Why not numpy's maximum as it comes: its bits depend on the CPU. np.maximum(-0.0, 0.0) is -0.0 under
    numpy's AVX-512 loops and +0.0 under the others, and maximum propagates NaN where C's comparison skips it.
    So every value that cannot beat the start (0.0, -0.0, negative, NaN) is made +0.0 first: among +0.0 and
    positive numbers the maximum is one value with one bit pattern, whatever loop computes it."""
    beats_start = np.where(values > 0.0, values, 0.0)
    laid = _segment_grid(beats_start, segment, count, 0.0, spare=1)      # every row starts from 0.0, as `best`
    if laid is not None:
        grid, cell = laid
        return np.ascontiguousarray(np.maximum.accumulate(grid[:, ::-1], axis=1)[:, ::-1]).reshape(-1)[cell]
    out = np.zeros(values.shape[0], dtype=np.float64)
    best = np.zeros(count, dtype=np.float64)
    for chosen in reversed(_depth_layers(segment, count)):
        seg = segment[chosen]
        best[seg] = np.where(beats_start[chosen] > best[seg], beats_start[chosen], best[seg])
        out[chosen] = best[seg]
    return out
