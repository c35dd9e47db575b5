"""The Tensor's non-op API against PyTorch 2.13: conversions to Python and NumPy, sizes,
devices, dtypes, and the messages of requires_grad / numpy() / item() misuse."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import leafgrad
from dual import assert_same

CASES = r"""
torch.tensor(2.5).item()
torch.tensor([3]).item()
torch.tensor([[True]]).item()
torch.tensor(7, dtype=torch.int32).item()
torch.tensor(0.1).item()
torch.tensor(0.1, dtype=torch.float64).item()
torch.tensor([1., 2.]).item()
torch.tensor([]).item()
torch.tensor([1., 2.], requires_grad=True).item()
torch.tensor(2., requires_grad=True).item()
torch.tensor([[1, 2], [3, 4]]).tolist()
torch.tensor([0.1, 0.2]).tolist()
torch.tensor(3.5).tolist()
torch.tensor([True, False]).tolist()
torch.tensor([1., 2.], requires_grad=True).tolist()
torch.zeros(2, 0).tolist()
torch.tensor([1., 2.]).numpy()
torch.tensor([1, 2], dtype=torch.int32).numpy()
torch.tensor(1.5).numpy()
torch.tensor([1., 2.], requires_grad=True).numpy()
torch.tensor([1., 2.], requires_grad=True).numpy(force=True)
torch.tensor([1., 2.], requires_grad=True).detach().numpy()
np.asarray(torch.tensor([1., 2.]))
np.asarray(torch.tensor([1., 2.]), dtype=np.float64)
np.asarray(torch.tensor([1., 2.], requires_grad=True))
float(torch.tensor(2.5))
float(torch.tensor([2.5]))
float(torch.tensor([1., 2.]))
float(torch.tensor(3))
int(torch.tensor(2.7))
int(torch.tensor(-2.7))
int(torch.tensor([5]))
int(torch.tensor([1, 2]))
bool(torch.tensor(0.0))
bool(torch.tensor([2]))
bool(torch.tensor([1, 2]))
bool(torch.tensor([]))
float(torch.tensor(2., requires_grad=True))
complex(torch.tensor(2.))
[1, 2, 3][torch.tensor(1)]
[1, 2, 3][torch.tensor(1.)]
[1, 2, 3][torch.tensor([1])]
[1, 2, 3][torch.tensor([1, 2])]
len(torch.zeros(4, 2))
len(torch.tensor(1.))
len(torch.zeros(0, 3))
list(torch.tensor([1, 2, 3]))
[t.shape for t in torch.zeros(2, 3)]
list(torch.tensor(1.))
torch.zeros(2, 3).size()
torch.zeros(2, 3).size(1)
torch.zeros(2, 3).size(-1)
torch.zeros(2, 3).size(2)
torch.zeros(2, 3).size(-3)
torch.tensor(1.).size()
torch.tensor(1.).size(0)
torch.tensor(1.).size(-1)
torch.zeros(2, 3).shape
torch.zeros(2, 3).shape[1:]
torch.zeros(2, 3).shape + (4,)
torch.zeros(2, 3).shape.numel()
torch.zeros(2, 3).dim()
torch.zeros(2, 3).ndim
torch.zeros(2, 3).ndimension()
torch.tensor(1.).dim()
torch.zeros(2, 3).numel()
torch.zeros(2, 3).nelement()
torch.zeros(0, 3).numel()
torch.zeros(2, 3, 4).stride()
torch.zeros(2, 3, 4).stride(1)
torch.zeros(2, 3).is_contiguous()
torch.zeros(2, 3).element_size()
torch.zeros(2, dtype=torch.float64).element_size()
torch.zeros(2).dtype
torch.zeros(2).type()
torch.zeros(2, dtype=torch.int64).type()
torch.zeros(2).is_floating_point()
torch.zeros(2, dtype=torch.int32).is_floating_point()
torch.zeros(2).is_complex()
torch.zeros(2).device
str(torch.zeros(2).device)
torch.zeros(2).device.type
torch.zeros(2).device.index
torch.zeros(2).is_cuda
torch.zeros(2).is_leaf
torch.zeros(2).requires_grad
torch.zeros(2).grad
torch.zeros(2).grad_fn
torch.device("cpu")
torch.device("cpu", 0)
torch.device("cpu:0")
str(torch.device("cpu:0"))
torch.device("cpu") == torch.device("cpu")
torch.device("cpu") == torch.device("cpu", 0)
torch.zeros(1).device == torch.device("cpu")
torch.zeros(1).device == "cpu"
torch.device(torch.device("cpu"))
torch.device("cpu", -1)
torch.device("foo")
torch.zeros(2, 3).T.shape
torch.zeros(2, 3).mT.shape
torch.zeros(4, 2, 3).mT.shape
torch.zeros(2).mT
torch.arange(6.).reshape(2, 3).T
torch.arange(6.).reshape(2, 3).mT
torch.tensor([1, 2]).requires_grad_()
torch.tensor([1, 2]).requires_grad_(False)
torch.tensor([1., 2.]).requires_grad_()
torch.tensor([1., 2.]).requires_grad_().requires_grad_(False)
(torch.tensor([1., 2.], requires_grad=True) * 2).requires_grad_(False)
(torch.tensor([1., 2.], requires_grad=True) * 2).requires_grad_(True)
"""

SETTER = {
    "int_true": "t = torch.tensor([1, 2]); t.requires_grad = True",
    "int_false": "t = torch.tensor([1, 2]); t.requires_grad = False",
    "nonleaf_false": "t = torch.tensor([1.], requires_grad=True) * 2; t.requires_grad = False",
    "nonleaf_true": "t = torch.tensor([1.], requires_grad=True) * 2; t.requires_grad = True",
    "float_true": "t = torch.tensor([1.]); t.requires_grad = True; r = t.requires_grad",
}


@pytest.mark.parametrize("expr", [c for c in CASES.strip().splitlines() if c.strip()])
def test_like_torch(expr):
    assert_same(expr)


@pytest.mark.parametrize("name", list(SETTER))
def test_requires_grad_setter(name):
    code = SETTER[name]
    outcomes = []
    for mod in (leafgrad, torch):
        scope = {"torch": mod}
        try:
            exec(code, scope)
            outcomes.append(("ok", scope.get("r")))
        except Exception as exc:  # noqa: BLE001
            outcomes.append((type(exc).__name__, str(exc)))
    assert outcomes[0] == outcomes[1]


def test_numpy_shares_memory_and_data_ptr():
    t = leafgrad.tensor([1.0, 2.0])
    a = t.numpy()
    a[0] = 9.0
    assert t.tolist() == [9.0, 2.0]
    assert t.data_ptr() == a.__array_interface__["data"][0]
    assert t.detach().data_ptr() == t.data_ptr()
    assert leafgrad.tensor(t.tolist()).data_ptr() != t.data_ptr()
    x = leafgrad.tensor([1.0, 2.0], requires_grad=True)
    assert x.numpy(force=True).tolist() == [1.0, 2.0]


def test_item_types_match_python():
    for expr in ["torch.tensor(2.5).item()", "torch.tensor(2).item()",
                 "torch.tensor(True).item()"]:
        mine = eval(expr, {"torch": leafgrad})
        theirs = eval(expr, {"torch": torch})
        assert type(mine) is type(theirs) and mine == theirs


def test_T_and_mT_deprecation_warnings_once_per_process(tmp_path):
    """Checked in fresh processes: PyTorch warns once per process (TORCH_WARN_ONCE)."""
    from test_cli_run import assert_same_run, write
    write(tmp_path, "t.py", """
        import torch
        print(torch.zeros(2).T.shape, torch.zeros(2, 3, 4).T.shape, torch.zeros(2).T.shape)
        print(torch.tensor(2.).T, torch.tensor(2.).mT, torch.tensor(3.).mT)
        print(torch.zeros(2, 3).T.shape, torch.zeros(4, 2, 3).mT.shape)
    """)
    assert_same_run(tmp_path, "t.py")
