"""The order in which PyTorch's CPU ``topk`` leaves equal values: it runs the C++ standard
library's selection on (value, index) pairs, so among ties the indices come out in the order
those algorithms happen to move them. Rewritten here from the algorithms' published
descriptions (GNU libstdc++'s introselect, introsort and heap routines), for one slice at a
time; ``topk`` uses it only for slices with ties (or ``sorted=False``), where NumPy's order
would differ.

Note [topk order]
For a slice of ``n`` values and ``k`` wanted, PyTorch builds the pairs in index order and
* if ``k * 64 <= n``: ``partial_sort`` of the first ``k`` (a heap selection, then a heap sort);
* else ``nth_element`` at ``k - 1``, then, when ``sorted``, ``sort`` of the first ``k - 1``.
The comparison puts NaN first (largest) or last (smallest).
"""
from __future__ import annotations

import math

import numpy as np

__all__ = ["topk_order", "sort_pairs", "sort_order", "rows_less", "nan_last_less"]

_THRESHOLD = 16


def _lg(n: int) -> int:
    return n.bit_length() - 1


def _move_median_to_first(a, result, x, y, z, less):
    if less(a[x], a[y]):
        if less(a[y], a[z]):
            a[result], a[y] = a[y], a[result]
        elif less(a[x], a[z]):
            a[result], a[z] = a[z], a[result]
        else:
            a[result], a[x] = a[x], a[result]
    elif less(a[x], a[z]):
        a[result], a[x] = a[x], a[result]
    elif less(a[y], a[z]):
        a[result], a[z] = a[z], a[result]
    else:
        a[result], a[y] = a[y], a[result]


def _unguarded_partition(a, first, last, pivot, less):
    while True:
        while less(a[first], a[pivot]):
            first += 1
        last -= 1
        while less(a[pivot], a[last]):
            last -= 1
        if not first < last:
            return first
        a[first], a[last] = a[last], a[first]
        first += 1


def _partition_pivot(a, first, last, less):
    mid = first + (last - first) // 2
    _move_median_to_first(a, first, first + 1, mid, last - 1, less)
    return _unguarded_partition(a, first + 1, last, first, less)


def _insertion_sort(a, first, last, less):
    if first == last:
        return
    for i in range(first + 1, last):
        val = a[i]
        if less(val, a[first]):
            a[first + 1:i + 1] = a[first:i]
            a[first] = val
        else:
            j = i
            while less(val, a[j - 1]):
                a[j] = a[j - 1]
                j -= 1
            a[j] = val


def _adjust_heap(a, first, hole, length, value, less):
    top = hole
    child = hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if less(a[first + child], a[first + child - 1]):
            child -= 1
        a[first + hole] = a[first + child]
        hole = child
    if length % 2 == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        a[first + hole] = a[first + child - 1]
        hole = child - 1
    parent = (hole - 1) // 2
    while hole > top and less(a[first + parent], value):
        a[first + hole] = a[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    a[first + hole] = value


def _make_heap(a, first, last, less):
    length = last - first
    if length < 2:
        return
    parent = (length - 2) // 2
    while True:
        _adjust_heap(a, first, parent, length, a[first + parent], less)
        if parent == 0:
            return
        parent -= 1


def _pop_heap(a, first, last, result, less):
    value = a[result]
    a[result] = a[first]
    _adjust_heap(a, first, 0, last - first, value, less)


def _heap_select(a, first, middle, last, less):
    _make_heap(a, first, middle, less)
    for i in range(middle, last):
        if less(a[i], a[first]):
            _pop_heap(a, first, middle, i, less)


def _sort_heap(a, first, last, less):
    while last - first > 1:
        last -= 1
        _pop_heap(a, first, last, last, less)


def _partial_sort(a, first, middle, last, less):
    _heap_select(a, first, middle, last, less)
    _sort_heap(a, first, middle, less)


def _nth_element(a, first, nth, last, less):
    if first == last or nth == last:
        return
    depth = 2 * _lg(last - first)
    while last - first > 3:
        if depth == 0:
            _heap_select(a, first, nth + 1, last, less)
            a[first], a[nth] = a[nth], a[first]
            return
        depth -= 1
        cut = _partition_pivot(a, first, last, less)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _insertion_sort(a, first, last, less)


def _introsort_loop(a, first, last, depth, less):
    while last - first > _THRESHOLD:
        if depth == 0:
            _partial_sort(a, first, last, last, less)
            return
        depth -= 1
        cut = _partition_pivot(a, first, last, less)
        _introsort_loop(a, cut, last, depth, less)
        last = cut


def _sort(a, first, last, less):
    if first == last:
        return
    _introsort_loop(a, first, last, 2 * _lg(last - first), less)
    if last - first > _THRESHOLD:
        _insertion_sort(a, first, first + _THRESHOLD, less)
        for i in range(first + _THRESHOLD, last):   # unguarded linear inserts
            val = a[i]
            j = i
            while less(val, a[j - 1]):
                a[j] = a[j - 1]
                j -= 1
            a[j] = val
    else:
        _insertion_sort(a, first, last, less)


def _greater(p, q):
    # NaN counts as the largest value
    return (math.isnan(p[0]) and not math.isnan(q[0])) or p[0] > q[0]


def _smaller(p, q):
    return (not math.isnan(p[0]) and math.isnan(q[0])) or p[0] < q[0]


def _plain_less(p, q):
    # C++'s operator<: a NaN is neither smaller nor larger than anything
    return p[0] < q[0]


def nan_last_less(p, q):
    """PyTorch's ascending ``sort`` comparison of (value, index) pairs: NaN is the largest."""
    return _smaller(p, q)


def rows_less(p, q):
    """``unique(dim=...)``'s comparison of (row, index) pairs: the first element where the
    rows differ by ``<`` or ``>`` decides; a NaN decides nothing (it compares false)."""
    for lhs, rhs in zip(p[0], q[0]):
        if lhs < rhs:
            return True
        if lhs > rhs:
            return False
    return False


def sort_order(keys, less) -> list:
    """The order in which ``std::sort`` of the (key, index) pairs by ``less`` leaves the
    indices: PyTorch's own order among ties, and among NaNs that compare false."""
    a = [(v, i) for i, v in enumerate(keys)]
    _sort(a, 0, len(a), less)
    return [i for _, i in a]


def sort_pairs(values) -> list:
    """``std::sort`` of the ``(value, index)`` pairs of one slice by ``value < value``, as
    PyTorch's CPU ``mode`` runs it: ties (and NaNs, which compare false) end up in the order
    the algorithm happens to leave them."""
    a = [(v, i) for i, v in enumerate(values)]
    _sort(a, 0, len(a), _plain_less)
    return a


def topk_order(values, k: int, largest: bool, sorted: bool) -> list:
    """The indices of one slice's ``k`` results, in PyTorch's order (Note [topk order])."""
    a = [(v, i) for i, v in enumerate(values)]
    n = len(a)
    if not k:
        return []
    less = _greater if largest else _smaller
    if k * 64 <= n:
        _partial_sort(a, 0, k, n, less)
    else:
        _nth_element(a, 0, k - 1, n, less)
        if sorted:
            _sort(a, 0, k - 1, less)
    return [i for _, i in a[:k]]


# -- std::sort, vectorised ---------------------------------------------------------------------
def _median_to_first(keys, perm, first, last):
    """``__move_median_to_first``: the median of the 2nd, middle and last keys to ``first``."""
    x, y, z = first + 1, first + (last - first) // 2, last - 1
    kx, ky, kz = keys[x], keys[y], keys[z]
    if kx < ky:
        pick = y if ky < kz else z if kx < kz else x
    elif kx < kz:
        pick = x
    elif ky < kz:
        pick = z
    else:
        pick = y
    for a in (keys, perm):
        a[first], a[pick] = a[pick], a[first]


def _partition(keys, perm, first, last):
    """``__unguarded_partition`` around the key at ``first``, all its swaps at once.

    The left scan stops at the keys not below the pivot (in order), the right scan at those
    not above it (backwards, the pivot itself the last stop); the k-th stops swap while they
    have not crossed. A scan never meets an already swapped place before the crossing, so
    the stops are those of the untouched keys, and the cut is where the left scan ends:
    ``min(L[K], R[K-1])`` for the first crossing pair ``K``."""
    pivot = keys[first]
    part = keys[first + 1:last]
    left = np.flatnonzero(~(part < pivot)) + (first + 1)
    right = np.flatnonzero(~(pivot < keys[first:last]))[::-1] + first
    m = min(len(left), len(right))
    k = int(np.count_nonzero(left[:m] < right[:m]))
    if k:
        lo, hi = left[:k], right[:k]
        for a in (keys, perm):
            a[lo], a[hi] = a[hi], a[lo]
    cut = int(left[k]) if k < len(left) else last
    if k:
        cut = min(cut, int(right[k - 1]))
    return cut


def _equal_perm(m: int, depth: int) -> np.ndarray:
    """The permutation introsort's partitions leave on ``m`` equal keys with ``depth`` budget
    left. Every comparison is false, so it depends on ``m`` and ``depth`` alone: computed
    once per pair (both halves of a cut recur with the same few lengths)."""
    out = _EQUAL.get((m, depth))
    if out is not None:
        return out
    perm = np.arange(m, dtype=np.int64)
    if m > _THRESHOLD:
        if depth == 0:
            a = [(0, i) for i in range(m)]
            _partial_sort(a, 0, m, m, _plain_less)
            perm = np.array([i for _, i in a], np.int64)
        else:
            keys = np.zeros(m, np.int64)
            _median_to_first(keys, perm, 0, m)
            cut = _partition(keys, perm, 0, m)
            perm[:cut] = perm[:cut][_equal_perm(cut, depth - 1)]
            perm[cut:] = perm[cut:][_equal_perm(m - cut, depth - 1)]
    _EQUAL[(m, depth)] = perm
    return perm


_EQUAL: dict = {}


def std_sort_order(keys) -> np.ndarray:
    """The permutation ``std::sort`` (GNU libstdc++'s introsort) leaves on (key, index) pairs
    compared by ``key < key`` (integer keys: ranks, so ties are equal keys).

    Introsort cuts the range by partitions until pieces of at most 16 remain (heap-sorting a
    piece when its depth budget runs out); the final insertion sort never moves a key past a
    cut (the keys left of a cut are not above those right of it), so it is a stable sort of
    each piece. Only the partitions' swaps need replaying, each as a whole-array step, and
    only while a piece mixes equal and different keys: a piece of distinct keys ends sorted
    whatever happens inside it, and a piece of equal keys ends in an order that depends on
    its length alone (``_equal_perm``)."""
    keys = np.array(keys, dtype=np.int64)
    n = keys.size
    perm = np.arange(n, dtype=np.int64)
    if n <= 1:
        return perm
    _, keys, counts = np.unique(keys, return_inverse=True, return_counts=True)   # dense ranks
    tied = counts > 1      # by rank: shared with another key
    starts = []   # the pieces, by their first position
    stack = [(0, n, 2 * _lg(n))]
    while stack:
        first, last, depth = stack.pop()
        while last - first > _THRESHOLD:
            piece = keys[first:last]
            if not tied[piece].any():    # no key of the slice twice: the final sort decides
                break
            if piece.min() == piece.max():    # all equal: the memoised permutation
                perm[first:last] = perm[first:last][_equal_perm(last - first, depth)]
                break
            if depth == 0:   # heap sort of the piece (rare): replayed pair by pair
                a = list(zip(keys[first:last].tolist(), perm[first:last].tolist()))
                _partial_sort(a, 0, len(a), len(a), _plain_less)
                keys[first:last] = [k for k, _ in a]
                perm[first:last] = [i for _, i in a]
                break
            depth -= 1
            _median_to_first(keys, perm, first, last)
            cut = _partition(keys, perm, first, last)
            stack.append((cut, last, depth))
            last = cut
        starts.append(first)
    piece = np.zeros(n, np.int64)
    piece[np.array(starts, np.int64)] = 1
    piece = np.cumsum(piece)
    return perm[np.lexsort((keys, piece))]
