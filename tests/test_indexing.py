"""Indexing against PyTorch 2.13: x[...] with every kind of index, x[...] = v, the gather /
scatter family, joins and splits; values, grad_fn chains, view-ness, first and second
derivatives (through the backward ops too), and PyTorch's error messages."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import leafgrad
from test_shape_support import arr, compare, same_error

X = arr(3, 4, 5)


def _idx(L, *values, dtype="long"):
    return L.tensor(list(values), dtype=getattr(L, dtype))


GETITEM = {
    "int": lambda L, x: x[0],
    "neg_int": lambda L, x: x[-1],
    "slice": lambda L, x: x[1:],
    "full_slice": lambda L, x: x[:],
    "step": lambda L, x: x[::2],
    "clamped": lambda L, x: x[-100:2],
    "empty": lambda L, x: x[5:],
    "ellipsis": lambda L, x: x[...],
    "none": lambda L, x: x[None],
    "tuple_full": lambda L, x: x[:, :],
    "tuple_full_wide": lambda L, x: x[:, 0:100],
    "int_slice": lambda L, x: x[0, 1:],
    "slice_int": lambda L, x: x[:, 0],
    "ellipsis_int": lambda L, x: x[..., 0],
    "int_ellipsis": lambda L, x: x[0, ...],
    "none_mix": lambda L, x: x[1:, ..., None],
    "ints": lambda L, x: x[0, 0, 0],
    "tensor_int": lambda L, x: x[L.tensor(1)],
    "list": lambda L, x: x[[0, 2]],
    "list_dup": lambda L, x: x[[0, 0, 2]],
    "tensor": lambda L, x: x[_idx(L, 2, 0, -1)],
    "tensor_2d": lambda L, x: x[:, L.tensor([[0, 1], [2, 3]])],
    "int32": lambda L, x: x[_idx(L, 0, 1, dtype="int32")],
    "int_then_list": lambda L, x: x[0, [1, 2]],
    "list_slice": lambda L, x: x[:, [1, 2], 1:3],
    "two_lists": lambda L, x: x[[0, 1], [1, 2]],
    "separated_lists": lambda L, x: x[[0, 1], :, [1, 2]],
    "broadcast_lists": lambda L, x: x[[[0], [1]], [1, 2]],
    "list_ellipsis_list": lambda L, x: x[[0, 1], ..., [1, 2]],
    "none_list": lambda L, x: x[None, [0, 1]],
    "list_int": lambda L, x: x[[0, 1], 0],
    "mask": lambda L, x: x[x > 0],
    "mask_2d": lambda L, x: x[x[:, :, 0] > 0],
    "mask_dim0": lambda L, x: x[L.tensor([True, False, True])],
    "mask_after_slice": lambda L, x: x[:, L.tensor([True, False, True, True])],
    "bool_list": lambda L, x: x[[True, False, True]],
    "true": lambda L, x: x[True],
    "false": lambda L, x: x[False],
    "int_true": lambda L, x: x[0, True],
    "empty_list": lambda L, x: x[[]],
    "chained": lambda L, x: x[1:][0][[1, 0]][:, None],
}


@pytest.mark.parametrize("name", sorted(GETITEM))
def test_getitem_matches_torch(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compare(GETITEM[name], X)


def test_getitem_integer_tensor_and_zero_dim():
    compare(lambda L, x: x[1:, [0, 2]], np.arange(12).reshape(3, 4), grad=False)
    compare(lambda L, x: x[None], np.array(2.5))
    compare(lambda L, x: x[...], np.array(2.5))


def test_list_of_lists_is_a_tuple_with_a_warning():
    with pytest.warns(UserWarning, match="non-tuple sequence"):
        compare(lambda L, x: x[[[0, 1]]], X)


GETITEM_ERRORS = {
    "float": lambda L, x: x[1.5],
    "negative_step": lambda L, x: x[::-1],
    "out_of_bounds": lambda L, x: x[3],
    "neg_out_of_bounds": lambda L, x: x[-4],
    "too_many": lambda L, x: x[0, 0, 0, 0],
    "list_out_of_bounds": lambda L, x: x[[3]],
    "list_neg_out_of_bounds": lambda L, x: x[[0, -4]],
    "float_tensor": lambda L, x: x[L.tensor([0.0])],
    "int8_tensor": lambda L, x: x[L.tensor([0], dtype=L.int8)],
    "mask_shape": lambda L, x: x[L.tensor([True, False])],
    "second_dim": lambda L, x: x[:, 5],
    "broadcast": lambda L, x: x[[0, 1], [0, 1, 2]],
    "zero_dim": lambda L, x: x[0, 0, 0][0],
    "str": lambda L, x: x["a"],
}


@pytest.mark.parametrize("name", sorted(GETITEM_ERRORS))
def test_getitem_errors_match_torch(name):
    same_error(GETITEM_ERRORS[name], X)


def _set(index, value):
    def fn(L, x, *values):
        y = x * 1
        v = values[0] if values else value
        y[index(L) if callable(index) else index] = v
        return y
    return fn


SETITEM = {
    "int_scalar": (_set(0, 3.0), ()),
    "slice_scalar": (_set(slice(1, None), -1.0), ()),
    "ellipsis_scalar": (_set(Ellipsis, 2.0), ()),
    "full_slice_scalar": (_set(slice(None), 2.0), ()),
    "tuple_scalar": (_set((0, 0), 1.0), ()),
    "list_scalar": (_set([0, 2], 3.0), ()),
    "mask_scalar": (_set(lambda L: L.tensor([True, False, True]), 3.0), ()),
    "slice_list_scalar": (_set((slice(None), [0, 1]), 3.0), ()),
    "list_slice_scalar": (_set(([0, 1], slice(1, None)), 3.0), ()),
    "int_tensor_value": (_set(1, None), (arr(4, 5, seed=1),)),
    "broadcast_value": (_set(1, None), (arr(5, seed=1),)),
    "leading_ones_value": (_set(1, None), (arr(1, 1, 4, 5, seed=1),)),
    "ellipsis_tensor": (_set(Ellipsis, None), (arr(5, seed=1),)),
    "list_tensor": (_set([2, 0], None), (arr(2, 4, 5, seed=1),)),
    "dup_list_broadcast": (_set(([0, 0], [1, 1]), None), (arr(5, seed=1),)),
    "mixed_tensor": (_set((0, [1, 3]), None), (arr(2, 5, seed=1),)),
    "none_tensor": (_set((None, 1), None), (arr(4, 5, seed=1),)),
}


@pytest.mark.parametrize("name", sorted(SETITEM))
def test_setitem_matches_torch(name):
    fn, values = SETITEM[name]
    compare(fn, X, *values, check_view=False)


def test_setitem_value_of_another_dtype_and_into_plain_tensor():
    def fn(L, v):
        y = L.zeros(3, 4)
        y[1] = v           # float64 value into float32 storage: cast, grad cast back
        return y
    compare(fn, arr(4))

    def long_fn(L):
        y = L.zeros(3, dtype=L.long)
        y[0] = 2.7
        y[1] = -2.7
        y[[2]] = True
        return y
    compare(long_fn, grad=False)


def test_setitem_bumps_version_and_keeps_views_live():
    for L in (leafgrad, torch):
        y = L.zeros(3, 4)
        v = y[1]
        y[1, 2] = 5.0
        assert y._version == 1 and v._version == 1
        assert v[2].item() == 5.0


SETITEM_ERRORS = {
    "leaf_view": lambda L, x: x.__setitem__(0, 3.0),
    "leaf_direct": lambda L, x: x.__setitem__([0], 3.0),
    "leaf_ellipsis": lambda L, x: x.__setitem__(Ellipsis, 3.0),
    "shape": lambda L, x: (x * 1).__setitem__(0, L.ones(2)),
    "too_big_value": lambda L, x: (x * 1).__setitem__(slice(0, 2), L.ones(2, 2)),
    "out_of_bounds": lambda L, x: (x * 1).__setitem__(5, 1.0),
    "list_out_of_bounds": lambda L, x: (x * 1).__setitem__([5], 1.0),
    "str": lambda L, x: (x * 1).__setitem__(0, "a"),
}


@pytest.mark.parametrize("name", sorted(SETITEM_ERRORS))
def test_setitem_errors_match_torch(name):
    from oracle import assert_same_error
    a, b = leafgrad.tensor(arr(3, 4), requires_grad=True), torch.tensor(arr(3, 4),
                                                                         requires_grad=True)
    assert_same_error(lambda: SETITEM_ERRORS[name](leafgrad, a),
                      lambda: SETITEM_ERRORS[name](torch, b))


def test_setitem_under_no_grad_on_a_leaf():
    for L in (leafgrad, torch):
        x = L.zeros(3, requires_grad=True)
        with L.no_grad():
            x[0] = 1.0
        assert x.is_leaf and x.tolist() == [1.0, 0.0, 0.0]


L0 = np.array([2, 0, 1])

OPS = {
    "select": (lambda L, x: x.select(1, -1), (X,)),
    "index_select": (lambda L, x: x.index_select(1, _idx(L, 3, 0, 3)), (X,)),
    "index_select_fn": (lambda L, x: L.index_select(x, -1, _idx(L, 4)), (X,)),
    "gather": (lambda L, x, i: x.gather(2, i), (X, np.random.default_rng(1).integers(
        0, 5, (2, 4, 3)))),
    "gather_fn": (lambda L, x, i: L.gather(x, 0, i), (X, np.random.default_rng(2).integers(
        0, 3, (3, 1, 5)))),
    "take": (lambda L, x: x.take(L.tensor([[0, 59], [7, 7]])), (X,)),
    "masked_select": (lambda L, x, m: x.masked_select(m > 0), (X, arr(4, 5, seed=3))),
    "masked_select_bcast": (lambda L, x, m: L.masked_select(x[0, 0], m > 0),
                            (X, arr(2, 5, seed=3))),
    "scatter": (lambda L, s, i, src: s.scatter(0, i, src),
                (arr(3, 4), np.array([[0, 1, 2, 0]]), arr(1, 4, seed=4))),
    "scatter_value": (lambda L, s, i: s.scatter(1, i, 2.5), (arr(3, 4), np.array([[0], [3]]))),
    "scatter_inplace": (lambda L, s, i, src: (s * 1).scatter_(0, i, src),
                        (arr(3, 4), np.array([[0, 1, 2, 0]]), arr(1, 4, seed=4))),
    "scatter_add": (lambda L, s, i, src: s.scatter_add(0, i, src),
                    (arr(3, 4), np.array([[0, 1, 2, 0], [0, 0, 0, 0]]), arr(2, 4, seed=4))),
    "scatter_add_": (lambda L, s, i, src: (s * 1).scatter_add_(1, i, src),
                     (arr(3, 4), np.array([[0, 0], [3, 3]]), arr(2, 2, seed=4))),
    "index_add": (lambda L, s, src: s.index_add(0, _idx(L, 0, 0, 2), src, alpha=2),
                  (arr(3, 4), arr(3, 4, seed=5))),
    "index_add_": (lambda L, s, src: (s * 1).index_add_(1, _idx(L, 3, 1), src),
                   (arr(3, 4), arr(3, 2, seed=5))),
    "put": (lambda L, s, src: s.put(_idx(L, 0, 5, -1), src), (arr(3, 4), arr(3, seed=6))),
    "put_accumulate": (lambda L, s, src: s.put(_idx(L, 0, 0, 11), src, accumulate=True),
                       (arr(3, 4), arr(3, seed=6))),
    "put_": (lambda L, s, src: (s * 1).put_(_idx(L, 1, 2), src), (arr(3, 4), arr(2, seed=6))),
    "masked_scatter": (lambda L, s, m, src: s.masked_scatter(m > 0, src),
                       (arr(3, 4), arr(4, seed=7), arr(13, seed=8))),
    "masked_scatter_": (lambda L, s, m, src: (s * 1).masked_scatter_(m > 0, src),
                        (arr(3, 4), arr(3, 4, seed=7), arr(3, 4, seed=8))),
    "index_put": (lambda L, s, v: s.index_put((_idx(L, 0, 2),), v), (arr(3, 4), arr(4))),
    "index_put_acc": (lambda L, s, v: s.index_put((_idx(L, 0, 0), _idx(L, 1, 1)), v, True),
                      (arr(3, 4), arr(1))),
    "index_put_mask": (lambda L, s: (s * 1).index_put_((s > 0,), L.tensor(0.0,
                                                                            dtype=L.float64)),
                       (arr(3, 4),)),
    "cat": (lambda L, a, b: L.cat([a, b], 1), (arr(2, 3), arr(2, 1))),
    "cat_neg_dim": (lambda L, a, b: L.cat((a, b), -1), (arr(2, 3), arr(2, 2))),
    "cat_legacy_empty": (lambda L, a, b: L.cat([a, b]), (arr(2, 3), arr(0))),
    "cat_promote": (lambda L, a, b: L.cat([a, b]), (arr(2, 3), np.ones((1, 3), np.int64))),
    "cat_int": (lambda L, a, b: L.cat([a, b]), (np.ones((1, 3), np.int32),
                                                np.ones((1, 3), np.int64))),
    "concat": (lambda L, a, b: L.concat([a, b]), (arr(2), arr(3))),
    "concatenate": (lambda L, a, b: L.concatenate([a, b], dim=0), (arr(2), arr(3))),
    "stack": (lambda L, a, b: L.stack([a, b], 1), (arr(2, 3), arr(2, 3))),
    "stack_neg": (lambda L, a, b: L.stack([a, b], -1), (arr(2, 3), arr(2, 3))),
    "hstack": (lambda L, a, b: L.hstack([a, b]), (arr(2, 3), arr(2, 1))),
    "hstack_1d": (lambda L, a, b: L.hstack([a, b]), (arr(2), arr(3))),
    "vstack": (lambda L, a, b: L.vstack([a, b]), (arr(3), arr(2, 3))),
    "dstack": (lambda L, a, b: L.dstack([a, b]), (arr(3), arr(1, 3))),
    "split": (lambda L, x: x.split(2), (X,)),
    "split_used_one": (lambda L, x: x.split(2, dim=2)[1] * 1, (X,)),
    "split_sizes": (lambda L, x: L.split(x, [1, 3], 1), (X,)),
    "chunk": (lambda L, x: x.chunk(2, -1), (X,)),
    "chunk_more": (lambda L, x: x.chunk(5), (X,)),
    "unbind": (lambda L, x: x.unbind(1), (X,)),
    "unbind_used_one": (lambda L, x: x.unbind()[2], (X,)),
    "iter": (lambda L, x: [r * 1 for r in x][1], (X,)),
    "sort": (lambda L, x: x.sort(1), (X,)),
    "sort_desc": (lambda L, x: L.sort(x, descending=True).values, (X,)),
    "argsort": (lambda L, x: x.argsort(0, descending=True), (X,)),
    "topk": (lambda L, x: x.topk(2), (X,)),
    "topk_smallest": (lambda L, x: L.topk(x, 3, dim=0, largest=False)[0], (X,)),
}


@pytest.mark.parametrize("name", sorted(OPS))
def test_indexing_op_matches_torch(name):
    fn, args = OPS[name]
    compare(fn, *args)


OP_ERRORS = {
    "select": lambda L, x: x.select(0, 3),
    "select_0d": lambda L, x: x[0, 0].select(0, 0),
    "index_select_range": lambda L, x: x.index_select(0, L.tensor([3])),
    "index_select_2d": lambda L, x: x.index_select(0, L.tensor([[0]])),
    "index_select_float": lambda L, x: x.index_select(0, L.tensor([0.0])),
    "gather_range": lambda L, x: x.gather(0, L.tensor([[5]])),
    "gather_dims": lambda L, x: x.gather(0, L.tensor([0])),
    "gather_size": lambda L, x: x.gather(0, L.zeros(3, 5, dtype=L.long)),
    "take": lambda L, x: x.take(L.tensor([12])),
    "take_neg": lambda L, x: x.take(L.tensor([-13])),
    "masked_select_dtype": lambda L, x: x.masked_select(L.ones(3, 1)),
    "masked_select_shape": lambda L, x: x.masked_select(L.ones(5, dtype=L.bool)),
    "scatter_range": lambda L, x: x.scatter(0, L.tensor([[3]]), 1.0),
    "scatter_dtype": lambda L, x: x.scatter(0, L.tensor([[0]]), L.zeros(1, 1,
                                                                          dtype=L.float32)),
    "scatter_dims": lambda L, x: x.scatter(0, L.tensor([0]), 1.0),
    "index_add_count": lambda L, x: x.index_add(0, L.tensor([0]), L.zeros(2, 4,
                                                                             dtype=L.float64)),
    "index_add_range": lambda L, x: x.index_add(0, L.tensor([5]), L.zeros(1, 4,
                                                                             dtype=L.float64)),
    "masked_scatter_few": lambda L, x: x.masked_scatter(L.ones(3, 4, dtype=L.bool),
                                                        L.zeros(2, dtype=L.float64)),
    "masked_scatter_shape": lambda L, x: x.masked_scatter(L.ones(2, 4, dtype=L.bool),
                                                          L.zeros(2, dtype=L.float64)),
    "cat_empty": lambda L, x: L.cat([]),
    "cat_sizes": lambda L, x: L.cat([x, L.zeros(3, 5, dtype=L.float64)]),
    "cat_dims": lambda L, x: L.cat([x, L.zeros(3, dtype=L.float64)]),
    "cat_0d": lambda L, x: L.cat([L.zeros(()), x]),
    "cat_dim": lambda L, x: L.cat([x, x], 2),
    "cat_tensor": lambda L, x: L.cat(x),
    "cat_int": lambda L, x: L.cat([x, 1]),
    "stack_sizes": lambda L, x: L.stack([x, L.zeros(3, 5, dtype=L.float64)]),
    "stack_empty": lambda L, x: L.stack([]),
    "stack_dim": lambda L, x: L.stack([x, x], 3),
    "split_zero": lambda L, x: x.split(0),
    "split_negative": lambda L, x: x.split(-1),
    "split_sum": lambda L, x: x.split([1, 1]),
    "split_negative_sizes": lambda L, x: x.split([1, -1, 3]),
    "chunk_zero": lambda L, x: x.chunk(0),
    "unbind_0d": lambda L, x: L.zeros(()).unbind(),
    "split_0d": lambda L, x: L.zeros(()).split(1),
    "unbind_dim": lambda L, x: x.unbind(2),
    "topk_k": lambda L, x: x.topk(5),
    "sort_dim": lambda L, x: x.sort(2),
}


@pytest.mark.parametrize("name", sorted(OP_ERRORS))
def test_indexing_op_errors_match_torch(name):
    same_error(OP_ERRORS[name], arr(3, 4))


def test_split_outputs_are_views_of_one_node():
    for L in (leafgrad, torch):
        x = L.zeros(5, 2, requires_grad=True)
        parts = x.split(2)
        assert len(parts) == 3 and parts[0].grad_fn is parts[2].grad_fn
        assert [p.output_nr for p in parts] == [0, 1, 2]
        assert all(p._base is x for p in parts)
        assert x.unbind(1)[1].grad_fn.name() == "UnbindBackward0"
        assert x[:0].unbind() == ()


def test_nonzero_and_argwhere():
    # PyTorch's nonzero happens to return a transposed view; only values matter here
    compare(lambda L, x: x.nonzero(), np.array([[0, 1], [2, 0]]), grad=False, check_view=False)
    compare(lambda L, x: L.nonzero(x, as_tuple=True), np.array([[0, 1], [2, 0]]), grad=False,
            check_view=False)
    compare(lambda L, x: L.argwhere(x), np.array([0.0, 1.5, 0.0]), grad=False,
            check_view=False)
