"""Shape ops against PyTorch 2.13: values, grad_fn chains (view vs copy), views sharing storage,
first and second derivatives, and PyTorch's error messages."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import leafgrad
from test_shape_support import arr, compare, same_error

X = arr(3, 4, 5)

CASES = {
    "reshape": lambda L, x: x.reshape(12, 5),
    "reshape_noncontig": lambda L, x: x.transpose(0, 1).reshape(-1),
    "reshape_fn": lambda L, x: L.reshape(x, (5, -1)),
    "view": lambda L, x: x.view(4, 15),
    "view_tuple": lambda L, x: x.view((60,)),
    "flatten": lambda L, x: x.flatten(),
    "flatten_1": lambda L, x: x.flatten(1),
    "flatten_same": lambda L, x: x.flatten(0, 0) * 1,
    "flatten_noncontig": lambda L, x: x.transpose(0, 1).flatten(),
    "flatten_0d": lambda L, x: x[0, 0, 0].flatten(),
    "unflatten": lambda L, x: x.unflatten(1, (2, -1)),
    "ravel_noncontig": lambda L, x: x.transpose(0, 2).ravel(),
    "transpose": lambda L, x: x.transpose(0, -1),
    "swapaxes": lambda L, x: x.swapaxes(1, 2),
    "swapdims": lambda L, x: L.swapdims(x, 0, 1),
    "t": lambda L, x: x[0].t(),
    "t_1d": lambda L, x: x[0, 0].t(),
    "T_2d": lambda L, x: x[0].T,
    "mT": lambda L, x: x.mT,
    "permute": lambda L, x: x.permute(2, 0, 1),
    "permute_tuple": lambda L, x: L.permute(x, (1, 2, 0)),
    "movedim": lambda L, x: x.movedim(0, -1),
    "moveaxis_multi": lambda L, x: L.moveaxis(x, (0, 1), (2, 0)),
    "unsqueeze": lambda L, x: x.unsqueeze(1),
    "unsqueeze_neg": lambda L, x: x.unsqueeze(-1),
    "squeeze_all": lambda L, x: x[:, :1, None].squeeze(),
    "squeeze_dim": lambda L, x: x[:, :1].squeeze(1),
    "squeeze_dim_noop": lambda L, x: x.squeeze(0),
    "squeeze_tuple": lambda L, x: x[:1, :1].squeeze((0, 1)),
    "expand": lambda L, x: x[:, :1].expand(2, 3, 4, 5),
    "expand_neg": lambda L, x: x[:, :1].expand(-1, 4, -1),
    "expand_as": lambda L, x: x[:1].expand_as(x),
    "broadcast_to": lambda L, x: L.broadcast_to(x[:, :1], (3, 4, 5)),
    "broadcast_tensors": lambda L, x: L.broadcast_tensors(x, x[0, :, :1], x[0, 0]),
    "contiguous": lambda L, x: x.transpose(0, 1).contiguous(),
    "contiguous_noop": lambda L, x: (x * 2).contiguous(),
    "narrow": lambda L, x: x.narrow(1, 1, 2),
    "narrow_neg": lambda L, x: L.narrow(x, -1, -2, 2),
    "repeat": lambda L, x: x.repeat(2, 1, 1, 3),
    "repeat_noncontig": lambda L, x: x.transpose(0, 2).repeat((1, 2, 1)),
    "tile": lambda L, x: x.tile(2),
    "tile_fn": lambda L, x: L.tile(x[0], (2, 1, 1)),
    "flip": lambda L, x: x.flip(0, 2),
    "flip_fn": lambda L, x: L.flip(x, (-1,)),
    "roll": lambda L, x: x.roll(1, 0),
    "roll_flat": lambda L, x: x.roll(-7),
    "roll_multi": lambda L, x: L.roll(x, (1, -2), (2, 0)),
    "chain": lambda L, x: x.permute(1, 0, 2)[1:].reshape(-1, 5).t().unsqueeze(0).sum(-1),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_shape_op_matches_torch(name):
    compare(CASES[name], X)


def test_integer_and_bool_tensors_keep_dtype():
    compare(lambda L, x: x.reshape(-1).t(), np.arange(6).reshape(2, 3), grad=False)
    compare(lambda L, x: x.permute(1, 0).unsqueeze(0), np.ones((2, 3), bool), grad=False)


def test_views_share_storage_and_version():
    x = leafgrad.zeros(3, 4)
    for v in (x.view(12), x.t(), x.unsqueeze(0), x[1:], x[0], x.expand(2, 3, 4), x.narrow(0, 1, 1),
              x.permute(1, 0), x.squeeze(), x.split(2)[1], x.unbind(1)[2], x.flatten()):
        assert v._base is x
        before = x._version
        x.add_(1)
        assert v._version == before + 1
    t = leafgrad.zeros(3, 4)
    assert t[1].data_ptr() == t.data_ptr() + 4 * 4
    assert t.t().reshape(-1).data_ptr() != t.data_ptr()
    assert t.t().contiguous().is_contiguous()


ERRORS = {
    "view_bad": lambda L, x: x.view(2, 7),
    "view_two_infer": lambda L, x: x.view(-1, -1),
    "view_negative": lambda L, x: x.view(-2, 6),
    "view_noncontig": lambda L, x: x.t().view(12),
    "view_zero_infer": lambda L, x: x[:0].view(-1, 0),
    "reshape_bad": lambda L, x: x.reshape(5, -1),
    "expand_fewer": lambda L, x: x.expand(3),
    "expand_mismatch": lambda L, x: x.expand(2, 4),
    "expand_leading_neg": lambda L, x: x.expand(-1, 3, 4),
    "expand_neg2": lambda L, x: x.expand(3, -2),
    "expand_as_fewer": lambda L, x: x.expand_as(L.zeros(4)),
    "broadcast_to": lambda L, x: x.broadcast_to((2, 4)),
    "broadcast_tensors": lambda L, x: L.broadcast_tensors(x, L.zeros(4, 1), L.zeros(5, 4)),
    "broadcast_shapes": lambda L, x: L.broadcast_shapes((2, 3), (4, 3), (5,)),
    "transpose": lambda L, x: x.transpose(0, 2),
    "t_3d": lambda L, x: L.zeros(2, 3, 4).t(),
    "permute_len": lambda L, x: x.permute(0),
    "permute_dup": lambda L, x: x.permute(0, 0),
    "permute_range": lambda L, x: x.permute(0, 2),
    "unsqueeze": lambda L, x: x.unsqueeze(3),
    "unsqueeze_neg": lambda L, x: x.unsqueeze(-4),
    "squeeze": lambda L, x: x.squeeze(2),
    "squeeze_dup": lambda L, x: x.squeeze((0, 0)),
    "flatten_order": lambda L, x: x.flatten(1, 0),
    "flatten_range": lambda L, x: x.flatten(0, 3),
    "unflatten_sizes": lambda L, x: x.unflatten(1, (3, 2)),
    "unflatten_empty": lambda L, x: x.unflatten(1, ()),
    "narrow_long": lambda L, x: x.narrow(0, 2, 2),
    "narrow_start": lambda L, x: x.narrow(0, 4, 0),
    "narrow_negative_length": lambda L, x: x.narrow(0, 0, -1),
    "movedim_count": lambda L, x: x.movedim((0, 1), (1,)),
    "movedim_repeat": lambda L, x: x.movedim((0, 0), (1, 0)),
    "movedim_range": lambda L, x: x.movedim(0, 5),
    "repeat_few": lambda L, x: x.repeat(2),
    "repeat_negative": lambda L, x: x.repeat(-1, 2),
    "flip_dup": lambda L, x: x.flip(0, 0),
    "flip_range": lambda L, x: x.flip(2),
    "roll_range": lambda L, x: x.roll(1, 5),
    "roll_align": lambda L, x: x.roll((1, 2), (0,)),
    "roll_empty": lambda L, x: x.roll(()),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_shape_errors_match_torch(name):
    same_error(ERRORS[name], arr(3, 4))


def test_shape_ops_save_no_tensors_so_backward_twice_works():
    x = leafgrad.tensor(arr(2, 3), requires_grad=True)
    y = x.t().reshape(6).unsqueeze(0)[:, 1:]
    y.sum().backward()
    y.sum().backward()
    tx = torch.tensor(arr(2, 3), requires_grad=True)
    ty = tx.t().reshape(6).unsqueeze(0)[:, 1:]
    ty.sum().backward()
    ty.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy())
