# mistakes newcomers make, and the messages PyTorch answers with
import torch
from torch import nn
import torch.nn.functional as F

torch.manual_seed(0)


def attempt(title, fn):
    try:
        result = fn()
        print(f"{title}: ok -> {result}")
    except Exception as e:
        print(f"{title}: {type(e).__name__}: {e}")


x = torch.randn(4, 3)
w = torch.randn(3, 2, requires_grad=True)
attempt("matmul shapes", lambda: x @ torch.randn(2, 3))
attempt("mm 1-D", lambda: torch.mm(x, torch.ones(3)))
attempt("add shapes", lambda: torch.ones(3) + torch.ones(4))
attempt("backward twice", lambda: [(y := (x @ w).sum()).backward(), y.backward()])
attempt("backward non-scalar", lambda: (x @ w).backward())
attempt("grad of non-leaf", lambda: (x @ w).grad)
attempt("no grad tensor backward", lambda: x.sum().backward())
attempt("in-place on saved", lambda: [(a := torch.ones(2, requires_grad=True) * 1), (b := a.sigmoid()), b.mul_(2), b.sum().backward()])
attempt("numpy of grad tensor", lambda: w.numpy())
attempt("long to float loss", lambda: F.mse_loss(torch.ones(2), torch.tensor([1, 2])))
attempt("CE with one-hot long", lambda: F.cross_entropy(torch.randn(2, 3), F.one_hot(torch.tensor([0, 1]), 3)))
attempt("CE wrong target dim", lambda: F.cross_entropy(torch.randn(2, 3), torch.tensor([[0], [1]])))
attempt("NLL on batch mismatch", lambda: F.nll_loss(torch.randn(3, 4), torch.tensor([0, 1])))
attempt("BCE out of range", lambda: F.binary_cross_entropy(torch.tensor([1.5]), torch.tensor([1.0])))
attempt("BCE target shape", lambda: F.binary_cross_entropy(torch.rand(3), torch.rand(3, 1)))
attempt("Linear on int", lambda: nn.Linear(3, 2)(torch.ones(2, 3, dtype=torch.long)))
attempt("Conv2d 3-D input channels", lambda: nn.Conv2d(3, 8, 3)(torch.randn(8, 32, 32)))
attempt("Conv2d batch missing dims", lambda: nn.Conv2d(1, 2, 3)(torch.randn(5, 5)))
attempt("view after transpose", lambda: torch.randn(2, 3).T.view(6))
attempt("reshape after transpose", lambda: torch.randn(2, 3).T.reshape(6).shape)
attempt("embedding with floats", lambda: nn.Embedding(5, 2)(torch.tensor([1.0, 2.0])))
attempt("softmax no dim", lambda: F.softmax(torch.randn(2, 3)).shape)
attempt("item on many", lambda: torch.ones(2).item())
attempt("float tensor index", lambda: torch.arange(5)[torch.tensor([1.0])])
attempt("bool mask shape", lambda: torch.arange(6).reshape(2, 3)[torch.tensor([True, False, True])])
attempt("cat dtypes", lambda: torch.cat([torch.ones(2), torch.ones(2, dtype=torch.int64)]).dtype)
attempt("stack empty", lambda: torch.stack([]))
attempt("requires_grad on int", lambda: torch.ones(2, dtype=torch.long, requires_grad=True))
attempt("optimizer on non-leaf", lambda: torch.optim.SGD([torch.ones(2, requires_grad=True) * 2], lr=0.1))
attempt("optimizer given a tensor", lambda: torch.optim.Adam(torch.ones(2, requires_grad=True)))
import warnings
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    attempt("parameters twice", lambda: type(torch.optim.SGD([nn.Parameter(torch.ones(1))] * 2, lr=1)).__name__)
print([f"{w.category.__name__}: {w.message}" for w in caught])
attempt("load_state_dict wrong keys", lambda: nn.Linear(2, 2).load_state_dict({"weight": torch.ones(2, 2)}))
attempt("module not called", lambda: nn.Linear(2, 2).forward)
attempt("set grad wrong shape", lambda: setattr(torch.ones(2, requires_grad=True), "grad", torch.ones(3)))
attempt("expand wrong", lambda: torch.ones(2, 3).expand(4, 3))
attempt("negative dim", lambda: torch.ones(2, 3).sum(dim=2))
attempt("squeeze dim", lambda: torch.ones(2, 3).squeeze(5))
attempt("zero-dim iteration", lambda: list(torch.tensor(3.0)))
attempt("max pool too small", lambda: F.max_pool2d(torch.ones(1, 1, 1, 1), 2))
attempt("multinomial negative", lambda: torch.multinomial(torch.tensor([0.5, -0.1]), 1))
attempt("multinomial too many", lambda: torch.multinomial(torch.tensor([0.5, 0.5]), 3))
attempt("randint bounds", lambda: torch.randint(5, 2, (3,)))
attempt("one_hot too small", lambda: F.one_hot(torch.tensor([3]), num_classes=2))
attempt("module attribute typo", lambda: nn.Linear(2, 2).weights)
attempt("sequential index", lambda: nn.Sequential(nn.ReLU())[3])
attempt("Parameter of int", lambda: nn.Parameter(torch.tensor([1, 2])))
attempt("no_grad result backward", lambda: [(torch.no_grad().__enter__()), (z := w * 2), torch.set_grad_enabled(True), z.sum().backward()])
