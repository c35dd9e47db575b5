"""nn.Parameter and nn.Module against PyTorch: registration, naming, modes, state dicts,
hooks, dtype conversion, printing and error messages."""
from __future__ import annotations

import copy
import pickle

import numpy as np
import torch

import leafgrad
from nn_helpers import copy_weights, lg, same_error

BOTH = [("leafgrad", leafgrad), ("torch", torch)]


def tree(lib):
    """A small model with a tied parameter, a buffer (persistent and not) and nesting."""
    nn = lib.nn

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(3, 4)
            self.act = nn.Tanh()
            self.register_buffer("running", lib.zeros(4))
            self.register_buffer("scratch", lib.ones(2), persistent=False)

        def forward(self, x):
            return self.act(self.fc(x)) + self.running

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = Block()
            self.b = Block()
            self.b.fc.weight = self.a.fc.weight    # tied
            self.head = nn.Sequential(nn.Linear(4, 2), nn.ReLU(), nn.Linear(2, 1))
            self.scale = nn.Parameter(lib.tensor(2.0))

        def forward(self, x):
            return self.head(self.b(self.a.fc(x).tanh()[..., :3])) * self.scale

    return Net()


def test_parameter_basics():
    for lib_name, lib in BOTH:
        p = lib.nn.Parameter(lib.ones(2))
        assert p.requires_grad and p.is_leaf and isinstance(p, lib.Tensor), lib_name
        assert isinstance(p, lib.nn.Parameter)
        assert type(p * 2) is lib.Tensor
        assert type(p.detach()) is lib.Tensor
    assert repr(leafgrad.nn.Parameter(leafgrad.ones(2))) == \
        repr(torch.nn.Parameter(torch.ones(2)))
    assert repr(leafgrad.nn.Parameter(leafgrad.ones(2), requires_grad=False)) == \
        repr(torch.nn.Parameter(torch.ones(2), requires_grad=False))
    assert repr(leafgrad.nn.Parameter()) == repr(torch.nn.Parameter())
    with leafgrad.no_grad():
        assert leafgrad.nn.Parameter(leafgrad.ones(1)).requires_grad


def test_parameter_shares_storage_and_version():
    t = leafgrad.ones(2)
    p = leafgrad.nn.Parameter(t)
    assert p.data_ptr() == t.data_ptr()
    t.add_(1)
    tt = torch.ones(2)
    pt = torch.nn.Parameter(tt)
    tt.add_(1)
    assert p._version == pt._version
    assert p.tolist() == pt.tolist()


def test_parameter_int_raises():
    same_error(lambda: leafgrad.nn.Parameter(leafgrad.tensor([1, 2])),
               lambda: torch.nn.Parameter(torch.tensor([1, 2])))


def test_parameter_deepcopy_and_pickle():
    p = leafgrad.nn.Parameter(leafgrad.tensor([1.0, 2.0]), requires_grad=False)
    q = copy.deepcopy(p)
    assert type(q) is leafgrad.nn.Parameter and not q.requires_grad
    assert q.data_ptr() != p.data_ptr() and q.tolist() == p.tolist()
    r = pickle.loads(pickle.dumps(leafgrad.nn.Parameter(leafgrad.ones(2))))
    assert type(r) is leafgrad.nn.Parameter and r.requires_grad


def test_named_members_match_torch():
    mine, theirs = tree(leafgrad), tree(torch)
    assert [n for n, _ in mine.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    assert [n for n, _ in mine.named_parameters(remove_duplicate=False)] == \
        [n for n, _ in theirs.named_parameters(remove_duplicate=False)]
    assert [n for n, _ in mine.named_buffers()] == [n for n, _ in theirs.named_buffers()]
    assert [n for n, _ in mine.named_modules()] == [n for n, _ in theirs.named_modules()]
    assert [n for n, _ in mine.named_children()] == [n for n, _ in theirs.named_children()]
    assert [n for n, _ in mine.a.named_parameters(prefix="x")] == \
        [n for n, _ in theirs.a.named_parameters(prefix="x")]
    assert len(list(mine.parameters(recurse=False))) == \
        len(list(theirs.parameters(recurse=False)))
    assert list(mine.state_dict()) == list(theirs.state_dict())
    assert mine.b.fc.weight is mine.a.fc.weight


def test_forward_and_grads_of_tree_match():
    mine, theirs = tree(leafgrad), tree(torch)
    theirs.double()
    mine.double()
    copy_weights(mine, theirs)
    x = np.random.default_rng(1).standard_normal((5, 3))
    out_t = theirs(torch.tensor(x)).sum()
    out_m = mine(leafgrad.tensor(x)).sum()
    np.testing.assert_allclose(out_m.item(), out_t.item(), rtol=1e-12)
    out_t.backward()
    out_m.backward()
    grads = dict(mine.named_parameters())
    for name, p in theirs.named_parameters():
        np.testing.assert_allclose(grads[name].grad.numpy(), p.grad.numpy(), rtol=1e-10,
                                   atol=1e-12, err_msg=name)


def test_state_dict_values_are_detached_views():
    mine = leafgrad.nn.Linear(2, 3)
    sd = mine.state_dict()
    assert not sd["weight"].requires_grad
    assert sd["weight"].data_ptr() == mine.weight.data_ptr()
    kept = mine.state_dict(keep_vars=True)
    assert kept["weight"] is mine.weight


def test_load_state_dict_messages():
    def bad_keys(lib):
        lib.nn.Linear(2, 3).load_state_dict({"weight": lib.ones(3, 2), "foo": lib.ones(1)})

    same_error(lambda: bad_keys(leafgrad), lambda: bad_keys(torch))

    def bad_shape(lib):
        lib.nn.Linear(2, 3).load_state_dict({"weight": lib.ones(1, 2), "bias": lib.ones(3)})

    same_error(lambda: bad_shape(leafgrad), lambda: bad_shape(torch))

    def nested(lib):
        m = lib.nn.Sequential(lib.nn.Linear(2, 2))
        m.load_state_dict({"0.weight": lib.ones(2, 2), "1.bias": lib.ones(2)})

    same_error(lambda: nested(leafgrad), lambda: nested(torch))

    def not_dict(lib):
        lib.nn.Linear(2, 3).load_state_dict([1])

    same_error(lambda: not_dict(leafgrad), lambda: not_dict(torch))
    r_m = leafgrad.nn.Linear(2, 3).load_state_dict(
        {"weight": leafgrad.ones(3, 2), "foo": leafgrad.ones(1)}, strict=False)
    r_t = torch.nn.Linear(2, 3).load_state_dict(
        {"weight": torch.ones(3, 2), "foo": torch.ones(1)}, strict=False)
    assert repr(r_m) == repr(r_t)
    lin = leafgrad.nn.Linear(2, 3)
    assert repr(lin.load_state_dict(lin.state_dict())) == "<All keys matched successfully>"


def test_load_state_dict_copies_in_place():
    mine = leafgrad.nn.Linear(2, 3)
    weight = mine.weight
    version = weight._version
    mine.load_state_dict({"weight": leafgrad.full((3, 2), 7.0), "bias": leafgrad.zeros(3)})
    assert mine.weight is weight and weight._version == version + 1
    assert weight.tolist() == [[7.0, 7.0]] * 3 and weight.requires_grad


def test_assign_errors():
    def plain_tensor(lib):
        lin = lib.nn.Linear(2, 2)
        lin.weight = lib.ones(2, 2)

    same_error(lambda: plain_tensor(leafgrad), lambda: plain_tensor(torch))

    def child(lib):
        s = lib.nn.Sequential(lib.nn.ReLU())
        setattr(s, "0", 3)

    same_error(lambda: child(leafgrad), lambda: child(torch))

    def before_init(lib):
        class M(lib.nn.Module):
            def __init__(self):
                self.w = lib.nn.Parameter(lib.ones(1))
        M()

    same_error(lambda: before_init(leafgrad), lambda: before_init(torch))

    def missing(lib):
        return lib.nn.Linear(1, 1).nope

    same_error(lambda: missing(leafgrad), lambda: missing(torch))

    def dotted(lib):
        lib.nn.Linear(1, 1).register_buffer("a.b", lib.ones(1))

    same_error(lambda: dotted(leafgrad), lambda: dotted(torch))

    def nonleaf(lib):
        m = lib.nn.Module()
        p = lib.nn.Parameter(lib.ones(1))
        m.register_parameter("w", p * 2)

    same_error(lambda: nonleaf(leafgrad), lambda: nonleaf(torch))

    def exists(lib):
        m = lib.nn.Linear(1, 1)
        m.register_parameter("training", lib.nn.Parameter(lib.ones(1)))

    same_error(lambda: exists(leafgrad), lambda: exists(torch))

    def no_forward(lib):
        lib.nn.Module()(1)

    same_error(lambda: no_forward(leafgrad), lambda: no_forward(torch))

    def bad_mode(lib):
        lib.nn.Linear(1, 1).train("yes")

    same_error(lambda: bad_mode(leafgrad), lambda: bad_mode(torch))

    def bad_buffer(lib):
        m = lib.nn.Module()
        m.register_buffer("b", lib.ones(1))
        m.b = 3

    same_error(lambda: bad_buffer(leafgrad), lambda: bad_buffer(torch))


def test_attribute_routing():
    m = leafgrad.nn.Module()
    m.w = leafgrad.nn.Parameter(leafgrad.ones(1))
    m.register_buffer("b", leafgrad.zeros(1))
    m.b = leafgrad.ones(1)             # stays a buffer
    assert "b" in m._buffers and m.b.tolist() == [1.0]
    m.w = None                          # declared but absent
    assert m._parameters["w"] is None and list(m.parameters()) == []
    m.child = leafgrad.nn.ReLU()
    del m.child
    assert "child" not in m._modules
    m.plain = 5
    assert m.plain == 5 and "plain" not in m._parameters
    m.buf2 = leafgrad.nn.Buffer(leafgrad.ones(2), persistent=False)
    assert "buf2" in m._buffers and "buf2" not in m.state_dict()


def test_train_eval_return_self_and_reach_children():
    for _, lib in BOTH:
        m = tree(lib)
        assert m.eval() is m
        assert not any(x.training for x in m.modules())
        assert m.train() is m
        assert all(x.training for x in m.modules())
    mine, theirs = tree(leafgrad), tree(torch)
    mine.head.eval()
    theirs.head.eval()
    assert [x.training for x in mine.modules()] == [x.training for x in theirs.modules()]


def test_eval_does_not_disable_grad():
    m = leafgrad.nn.Linear(2, 1).eval()
    assert m(leafgrad.ones(1, 2)).requires_grad
    with leafgrad.no_grad():
        assert not m(leafgrad.ones(1, 2)).requires_grad


def test_requires_grad_and_zero_grad():
    m = leafgrad.nn.Linear(2, 2)
    assert m.requires_grad_(False) is m
    assert not any(p.requires_grad for p in m.parameters())
    m.requires_grad_()
    m(leafgrad.ones(1, 2)).sum().backward()
    grad = m.weight.grad
    m.zero_grad(set_to_none=False)
    assert m.weight.grad is grad and grad.tolist() == [[0.0, 0.0]] * 2
    m.zero_grad()
    assert m.weight.grad is None and m.bias.grad is None


def test_apply_and_to_dtype_keep_parameter_identity():
    m = tree(leafgrad)
    seen = []
    assert m.apply(lambda mod: seen.append(type(mod).__name__)) is m
    t = tree(torch)
    seen_t = []
    t.apply(lambda mod: seen_t.append(type(mod).__name__))
    assert seen == seen_t
    w = m.a.fc.weight
    m(leafgrad.ones(1, 3)).sum().backward()
    assert m.double() is m
    assert m.a.fc.weight is w and w.dtype == leafgrad.float64 and w.grad.dtype == leafgrad.float64
    assert m.a.running.dtype == leafgrad.float64
    m.to(leafgrad.float32)
    assert w.dtype == leafgrad.float32
    m.float()
    m.to("cpu")
    same_error(lambda: leafgrad.nn.Linear(1, 1).to(leafgrad.int64),
               lambda: torch.nn.Linear(1, 1).to(torch.int64))
    ints = leafgrad.nn.Module()
    ints.register_buffer("idx", leafgrad.tensor([1, 2]))
    ints.double()
    assert ints.idx.dtype == leafgrad.int64


def test_forward_hooks():
    for _, lib in BOTH:
        m = lib.nn.Linear(2, 2)
        calls = []
        h1 = m.register_forward_pre_hook(lambda mod, args: calls.append("pre") or (args[0] * 0,))
        h2 = m.register_forward_hook(lambda mod, args, out: calls.append("post") or out + 1)
        out = m(lib.ones(1, 2))
        assert calls == ["pre", "post"]
        np.testing.assert_allclose(out.detach().numpy(), (m.bias + 1).detach().numpy()[None])
        h1.remove()
        h2.remove()
        calls.clear()
        m(lib.ones(1, 2))
        assert calls == []
        h3 = m.register_forward_hook(lambda mod, args, kwargs, out: calls.append(kwargs),
                                     with_kwargs=True)
        m(input=lib.ones(1, 2))
        assert len(calls) == 1 and list(calls[0]) == ["input"]
        h3.remove()


def test_module_reprs_match_torch():
    def build(lib):
        nn = lib.nn
        return [
            nn.Sequential(nn.Linear(2, 3), nn.ReLU(),
                          nn.Sequential(nn.Dropout(0.2), nn.LayerNorm(3)),
                          nn.Embedding(4, 5, padding_idx=0)),
            nn.ModuleDict({"a": nn.Tanh(), "b": nn.Sigmoid()}),
            nn.ModuleList([nn.Linear(2, 2), nn.Linear(2, 2), nn.Linear(2, 2), nn.ReLU()]),
            nn.ModuleList(),
            nn.ParameterList([nn.Parameter(lib.ones(2)), nn.Parameter(lib.ones(2, 3))]),
            nn.ParameterList([nn.Parameter(lib.ones(2))]),
            nn.ParameterDict({"x": nn.Parameter(lib.ones(2, 3))}),
            nn.Sequential(), nn.Linear(2, 3, bias=False), nn.Flatten(), nn.Unflatten(1, (2, 3)),
            nn.LeakyReLU(), nn.LeakyReLU(0.2, inplace=True), nn.ELU(), nn.GELU(),
            nn.GELU("tanh"), nn.SiLU(), nn.Softmax(dim=1), nn.LogSoftmax(1), nn.Softplus(),
            nn.Softmax(), nn.Identity(), nn.Dropout(), nn.ReLU(inplace=True), nn.ReLU6(),
            nn.Hardtanh(), nn.LayerNorm((2, 3), elementwise_affine=False),
            nn.LayerNorm(4, bias=False), nn.Embedding(3, 4), nn.MSELoss(),
            nn.CrossEntropyLoss(), nn.BCEWithLogitsLoss(), nn.Tanh(), nn.Sigmoid(),
        ]
    for mine, theirs in zip(build(leafgrad), build(torch)):
        assert repr(mine) == repr(theirs)


def test_get_submodule_and_parameter():
    m, t = tree(leafgrad), tree(torch)
    assert type(m.get_submodule("head.0")).__name__ == type(t.get_submodule("head.0")).__name__
    assert m.get_parameter("a.fc.bias") is m.a.fc.bias
    same_error(lambda: m.get_submodule("a.zz"), lambda: t.get_submodule("a.zz"))
    same_error(lambda: m.get_parameter("a.running"), lambda: t.get_parameter("a.running"))


def test_deepcopy_module():
    m = leafgrad.nn.Linear(2, 2)
    c = copy.deepcopy(m)
    assert c.weight is not m.weight and c.weight.tolist() == m.weight.tolist()
    assert isinstance(c.weight, leafgrad.nn.Parameter)


def test_lg_helper_roundtrip():
    # The helper used by every oracle test must copy values exactly.
    t = torch.randn(3, dtype=torch.float64, requires_grad=True)
    assert lg(t).tolist() == t.tolist() and lg(t).requires_grad


def test_init_kwargs_errors():
    same_error(lambda: leafgrad.nn.Module(1), lambda: torch.nn.Module(1))
    same_error(lambda: leafgrad.nn.Module(x=1), lambda: torch.nn.Module(x=1))
