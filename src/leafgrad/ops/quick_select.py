"""PyTorch's ``quick_select_template`` (ATen SortingUtils): the selection kthvalue's CPU kernel
runs on a copy of each row and its indices. Where several elements tie with the selected
value, the index it returns is wherever this partitioning left one of them, so leafgrad runs
the same steps for those rows (the others have one answer).

The comparison is "greater, or NaN against a number" (NaN sorts last).
"""
from __future__ import annotations

import math


def _gt(a, b) -> bool:
    return (a != a and b == b) or a > b


def select_index(values: list, k: int) -> int:
    """The original index that PyTorch's quickselect leaves at position ``k`` (0-based)."""
    arr = list(values)
    idx = list(range(len(arr)))

    def swap(p, q):
        arr[p], arr[q] = arr[q], arr[p]
        idx[p], idx[q] = idx[q], idx[p]

    lo, hi = 0, len(arr) - 1
    while True:
        if hi <= lo:
            break
        if hi == lo + 1:
            if _gt(arr[lo], arr[hi]):
                swap(lo, hi)
            break
        mid = lo + (hi - lo) // 2       # median of three, moved to lo
        swap(mid, lo + 1)
        if _gt(arr[lo + 1], arr[hi]):
            swap(lo + 1, hi)
        if _gt(arr[lo], arr[hi]):
            swap(lo, hi)
        if _gt(arr[lo + 1], arr[lo]):
            swap(lo + 1, lo)
        i, j = lo + 1, hi
        piv = arr[lo]
        while True:
            i += 1
            while _gt(piv, arr[i]):
                i += 1
            j -= 1
            while _gt(arr[j], piv):
                j -= 1
            if j < i:
                break
            swap(i, j)
        swap(lo, j)
        if j <= k:
            lo = i
        if j >= k:
            hi = j - 1
    return idx[k]


def has_tie(row, value) -> bool:
    """Whether ``value`` (the selected one) occurs more than once in ``row`` (NaN ties NaN)."""
    if isinstance(value, float) and math.isnan(value):
        return sum(1 for v in row if v != v) > 1
    return sum(1 for v in row if v == value) > 1
