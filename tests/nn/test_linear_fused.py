"""``nn.Linear`` / ``F.linear`` on a matrix (Note [Fused linear] in ops/linear_fused.py): the
one-frame path must build what the general ``addmm(bias, input, weight.t())`` builds, so each
case runs on leafgrad and PyTorch 2.13 and compares values, gradients, grad_fn chains, saved
values, views and errors; and the fused nodes are compared field by field with the general
path's."""
from __future__ import annotations

import numpy as np
import pytest
from oracle import grad_fn_names, same_on_both

import leafgrad


def _data(dtype="float32", n=3, i=4, o=5):
    rng = np.random.default_rng(0)
    return (rng.standard_normal((n, i)).astype(dtype), rng.standard_normal((o, i)).astype(dtype),
            rng.standard_normal(o).astype(dtype))


def _observe(lib, out, leaves):
    """Values, grad_fn chain, saved values, view facts and the leaves' gradients."""
    fn = out.grad_fn
    obs = {"out": out, "names": grad_fn_names(out), "rg": out.requires_grad}
    if fn is not None:
        obs["mat1"] = fn._saved_mat1 if fn.next_functions[2][0] is not None else None
        mat2 = fn._saved_mat2 if fn.next_functions[1][0] is not None else None
        obs["mat2"] = mat2
        obs["alpha"], obs["beta"] = fn._saved_alpha, fn._saved_beta
        out.sum().backward()
    obs["grads"] = [p.grad for p in leaves]
    return obs


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("rg", [(True, True, True), (False, True, True), (True, False, False),
                                (False, False, True), (True, True, False),
                                (False, False, False)])
@pytest.mark.parametrize("module", [True, False])
def test_linear_like_torch(dtype, rg, module):
    x0, w0, b0 = _data(dtype)

    def program(lib):
        x = lib.tensor(x0, requires_grad=rg[0])
        if module:
            layer = lib.nn.Linear(4, 5, dtype=getattr(lib, dtype))
            layer.weight = lib.nn.Parameter(lib.tensor(w0), requires_grad=rg[1])
            layer.bias = lib.nn.Parameter(lib.tensor(b0), requires_grad=rg[2])
            w, b = layer.weight, layer.bias
            out = layer(x)
        else:
            w = lib.tensor(w0, requires_grad=rg[1])
            b = lib.tensor(b0, requires_grad=rg[2])
            out = lib.nn.functional.linear(x, w, b)
        return _observe(lib, out, (x, w, b))

    same_on_both(program)


@pytest.mark.parametrize("case", ["weight_inplace", "bias_inplace", "input_inplace",
                                  "weight_view", "no_grad", "inference", "double_input",
                                  "bad_shape", "bias_2d", "bias_wrong", "int_input",
                                  "weight_t_base", "twice"])
def test_linear_cases_like_torch(case):
    x0, w0, b0 = _data()

    def program(lib):
        x = lib.tensor(x0, requires_grad=True)
        w = lib.nn.Parameter(lib.tensor(w0))
        b = lib.nn.Parameter(lib.tensor(b0))
        F = lib.nn.functional
        if case == "weight_inplace":
            out = F.linear(x, w, b)
            with lib.no_grad():
                w.mul_(2)
            out.sum().backward()
        elif case == "bias_inplace":   # addmm saves no bias: backward runs
            out = F.linear(x, w, b)
            with lib.no_grad():
                b.mul_(2)
            out.sum().backward()
            return [out, x.grad, w.grad, b.grad]
        elif case == "input_inplace":
            xi = x * 1
            out = F.linear(xi, w, b)
            xi.mul_(2)
            out.sum().backward()
        elif case == "weight_view":
            big = lib.tensor(np.concatenate([w0, w0], 1), requires_grad=True)
            out = F.linear(x, big[:, 2:6], b)
            out.sum().backward()
            return [out, grad_fn_names(out), big.grad]
        elif case == "no_grad":
            with lib.no_grad():
                out = F.linear(x, w, b)
            return [out, out.requires_grad, out.grad_fn is None]
        elif case == "inference":
            with lib.inference_mode():
                out = F.linear(x, w, b)
            return [out, out.is_inference(), out.requires_grad]
        elif case == "double_input":
            return F.linear(x.double(), w, b)
        elif case == "bad_shape":
            return F.linear(x, w[:, :3], b)
        elif case == "bias_2d":
            out = F.linear(x, w, b.reshape(1, 5))
            out.sum().backward()
            return [out, grad_fn_names(out), b.grad]
        elif case == "bias_wrong":
            return F.linear(x, w, b[:3])
        elif case == "int_input":
            return F.linear(lib.ones(3, 4, dtype=lib.int64), w, b)
        elif case == "weight_t_base":
            out = F.linear(x, w, b)
            mat2 = out.grad_fn._saved_mat2
            return [mat2._base is w, mat2._version, w._version, mat2.is_contiguous(),
                    mat2.stride(), out.grad_fn.next_functions[2][0].next_functions[0][0]
                    .variable is w]
        elif case == "twice":
            out = F.linear(x, w, b)
            out.sum().backward()
            out.sum().backward()
        return [x.grad, w.grad, b.grad]

    same_on_both(program)


def _node_fields(node):
    edges = [(type(fn).__name__, nr) for fn, nr in node._edges]
    saved = [(type(v).__name__, getattr(v, "shape", v)) for v in (node._saved or ())]
    return (type(node).__name__, edges, saved, node._versions, node._args)


@pytest.mark.parametrize("rg", [(True, True, True), (False, True, True), (True, False, True),
                                (True, True, False)])
def test_fused_nodes_equal_general_path(rg):
    """The fused nodes against ``addmm(b, x, w.t())`` through the public op: same edges,
    saved values, versions and metadata; the view ``w.t()`` alike."""
    x0, w0, b0 = _data()
    x = leafgrad.tensor(x0, requires_grad=rg[0])
    w = leafgrad.nn.Parameter(leafgrad.tensor(w0), requires_grad=rg[1])
    b = leafgrad.nn.Parameter(leafgrad.tensor(b0), requires_grad=rg[2])
    fused = leafgrad.nn.functional.linear(x, w, b)
    wt = w.t()
    general = leafgrad.addmm(b, x, wt)
    np.testing.assert_array_equal(fused.detach().numpy(), general.detach().numpy())
    assert _node_fields(fused.grad_fn) == _node_fields(general.grad_fn)
    # the saved tensors (mat1 = x, mat2 = the view w.t()) alike, field by field
    for mine, theirs in zip(fused.grad_fn._saved, general.grad_fn._saved):
        if not isinstance(theirs, leafgrad.Tensor):
            assert mine == theirs
            continue
        if theirs is x:
            assert mine is x
            continue
        assert theirs is wt
        for name in ("_base", "_vc", "_view_version", "_view_kind", "_requires_grad", "_meta",
                     "_output_nr"):
            assert getattr(mine, name) is getattr(wt, name) or \
                getattr(mine, name) == getattr(wt, name), name
        assert mine._data.base is wt._data.base and mine._data.strides == wt._data.strides
        assert (mine._grad_fn is None) == (wt._grad_fn is None)
        if rg[1]:
            assert _node_fields(mine._grad_fn) == _node_fields(wt._grad_fn)
