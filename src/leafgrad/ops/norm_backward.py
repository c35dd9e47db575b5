"""The backward of layer norm and batch norm as recorded ops (PyTorch's
``native_layer_norm_backward`` / ``native_batch_norm_backward``), used under create_graph.

Note [Normalization backward ops]
Under ``create_graph`` PyTorch does not differentiate through the first-order formula of
``native_layer_norm`` / ``native_batch_norm``: it records ONE op, the backward itself, whose
three outputs are the gradients of input, weight and bias, and whose own derivatives
(``layer_norm_double_backward`` / ``batchnorm_double_backward``) give the second order. So the
three gradients share one node, ``NativeLayerNormBackwardBackward0`` /
``NativeBatchNormBackwardBackward0``, with PyTorch's edges (grad_out, input, mean, rstd,
weight, bias / grad_out, input, weight, running_mean, running_var; the statistics never
require grad). leafgrad records the same: the first-order formulas of the forward records
(nn_layers.py, norm.py) call ``joint_*`` under create_graph; without it they keep their
cheaper no-grad arithmetic.

The node's three formulas are called one after another by one ``OpNode.apply`` with the same
``grad`` and saved tensors; ``backward_ops.joint_output`` runs the backward op once for them.

Second order, for one normalized group of N elements (``xhat = (x - mean) * r``, ``a = g * w``
and ``P(v) = v - mean(v) - xhat * mean(v * xhat)``, the projection the first order applies:
``gI = r * P(a)``, ``gW = sum(g * xhat)``, ``gB = sum(g)``), given the incoming gradients
``ggI, ggW, ggB`` of the three outputs:

- d/d grad_out = ``w * r * P(ggI) + ggW * xhat + ggB``
- d/d weight   = ``sum(g * r * P(ggI))``
- d/d input    = ``r * P(ggW * g) - r**2 * (xhat * mean(ggI * P(a)) + mean(ggI * xhat) * P(a)
  + mean(a * xhat) * P(ggI))`` (the first from gW, the rest from gI: r and xhat depend on x)

Batch norm in eval mode normalizes by the running statistics (constants): ``gI = r * a``, so
d/d grad_out = ``w * r * ggI + ggW * xhat + ggB``, d/d weight = ``sum(g * r * ggI)`` and
d/d input = ``r * ggW * g``.
"""
from __future__ import annotations

import numpy as np

from .backward_ops import joint_output, keep_none as _keep_none, no_gradient as _no_gradient
from .registry import defop

FAMILY = "norm"

__all__ = ["joint_layer_norm", "joint_batch_norm"]

_F16 = np.dtype(np.float16)


# -- the NumPy first order (the backward ops' forwards) ----------------------------------------
def _first_order(g, x, w, dims, sum_dims, eps, mean=None, var=None):
    """(gI, gW, gB) of a normalization over ``dims`` with batch statistics (``mean`` None) or
    the given ones; ``w`` broadcastable to x or None, and summed over ``sum_dims`` for its
    gradient. Float16 is computed in float32."""
    out_dtype = x.dtype
    if x.dtype == _F16:
        g, x = g.astype(np.float32), x.astype(np.float32)
        w = None if w is None else w.astype(np.float32)
    if mean is None:
        xc = x - x.mean(axis=dims, keepdims=True)
        r = 1.0 / np.sqrt((xc * xc).mean(axis=dims, keepdims=True) + eps)
        xhat = xc * r
        a = g if w is None else g * w
        gi = r * (a - a.mean(axis=dims, keepdims=True)
                  - xhat * (a * xhat).mean(axis=dims, keepdims=True))
    else:
        r = 1.0 / np.sqrt(var + eps)
        xhat = (x - mean) * r
        gi = (g if w is None else g * w) * r
    gw = (g * xhat).sum(axis=sum_dims)
    gb = g.sum(axis=sum_dims)
    return tuple(np.asarray(t, dtype=out_dtype) for t in (gi, gw, gb))


# -- the second order, shared by both ops (see the Note) ---------------------------------------
class _Stats:
    """xhat, r and P over ``dims`` as leafgrad expressions of the input (differentiable)."""

    def __init__(self, x, dims, eps, mean=None, var=None, channel=None):
        self.dims = dims
        self.channel = channel   # batch norm: the (1, C, 1, ...) shape of per-channel values
        if mean is None:
            xc = x - x.mean(dims, keepdim=True)
            self.r = ((xc * xc).mean(dims, keepdim=True) + eps).rsqrt()
            self.xhat = xc * self.r
            self.batch = True
        else:
            self.r = (var + eps).rsqrt()
            self.xhat = (x - mean) * self.r
            self.batch = False

    def mean(self, v):
        return v.mean(self.dims, keepdim=True)

    def P(self, v):
        return v - self.mean(v) - self.xhat * self.mean(v * self.xhat)

    def per_channel(self, v):
        """A weight-shaped value, broadcastable to the input."""
        return v if self.channel is None else v.reshape(self.channel)


def _add(a, b):
    return b if a is None else (a if b is None else a + b)


def _d_grad_out(grads, s, w):
    ggi, ggw, ggb = grads
    out = None
    if ggi is not None:
        pi = s.r * (s.P(ggi) if s.batch else ggi)
        out = pi if w is None else w * pi
    if ggw is not None:
        out = _add(out, s.per_channel(ggw) * s.xhat)
    if ggb is not None:
        ggb = s.per_channel(ggb)
        out = _add(out, ggb.expand_as(s.xhat) if out is None else ggb)
    return out


def _d_weight(grads, s, g, lead):
    ggi = grads[0]
    if ggi is None:
        return None
    return (g * s.r * (s.P(ggi) if s.batch else ggi)).sum(lead)


def _d_input(grads, s, g, w):
    ggi, ggw, _ = grads
    out = None
    if ggw is not None:
        c = s.per_channel(ggw) * g
        out = s.r * (s.P(c) if s.batch else c)
    if ggi is not None and s.batch:
        a = g if w is None else g * w
        pa = s.P(a)
        inner = (s.xhat * s.mean(ggi * pa) + s.mean(ggi * s.xhat) * pa
                 + s.mean(a * s.xhat) * s.P(ggi))
        out = _add(out, -(s.r * s.r) * inner)
    return out


# -- native_layer_norm_backward ----------------------------------------------------------------
def _ln_dims(x_ndim, normalized_shape):
    return tuple(range(x_ndim - len(normalized_shape), x_ndim))


def native_layer_norm_backward(grad_out, input, mean, rstd, weight, bias, normalized_shape,
                               eps):
    """(grad_input, grad_weight, grad_bias) of ``layer_norm`` (statistics recomputed from the
    input: ``mean`` and ``rstd`` are PyTorch's edges, None here)."""
    dims = _ln_dims(input.ndim, normalized_shape)
    return _first_order(grad_out, input, weight, dims, tuple(range(dims[0])), eps)


class _Rows:
    """PyTorch's layer_norm_double_backward works on (M, N) views (M rows of the N normalized
    elements) and views its results back: their nodes are ViewBackward0."""

    def __init__(self, input, normalized_shape, eps):
        self.n = int(np.prod(normalized_shape))
        self.m = int(np.prod(input.shape)) // self.n if self.n else 0
        self.shape, self.w_shape = tuple(input.shape), tuple(normalized_shape)
        self.s = _Stats(input.reshape(self.m, self.n), [1], eps)

    def rows(self, t):
        return None if t is None else t.reshape(self.m, self.n)

    def grads(self, grads, weight=True):
        ggi, ggw, ggb = grads
        if weight is None and ggi is not None and ggb is not None:
            # PyTorch's layer_norm_double_backward without a weight: whichever gradient is
            # asked for, using both the input's and the bias's gradients fails
            raise RuntimeError("Expected a proper Tensor but got None (or an undefined Tensor "
                               "in C++) for argument #1 'other'")
        return (self.rows(ggi), None if ggw is None else ggw.reshape(self.n),
                None if ggb is None else ggb.reshape(self.n))

    def weight(self, w):
        return None if w is None else w.reshape(self.n)


def lnb_grad_out(grads, input, weight, normalized_shape, eps):
    r = _Rows(input, normalized_shape, eps)
    out = _d_grad_out(r.grads(grads, weight), r.s, r.weight(weight))
    return None if out is None else out.view(r.shape)


def lnb_input(grads, grad_out, input, weight, normalized_shape, eps):
    r = _Rows(input, normalized_shape, eps)
    out = _d_input(r.grads(grads, weight), r.s, r.rows(grad_out), r.weight(weight))
    return None if out is None else out.view(r.shape)


def lnb_weight(grads, grad_out, input, normalized_shape, eps):
    r = _Rows(input, normalized_shape, eps)
    out = _d_weight(r.grads(grads), r.s, r.rows(grad_out), [0])
    return None if out is None else out.view(r.w_shape)


LAYER_NORM_BACKWARD = defop(
    "native_layer_norm_backward", native_layer_norm_backward,
    inputs=("grad_out", "input", "mean", "rstd", "weight", "bias"),
    derivatives={"grad_out": lnb_grad_out, "input": lnb_input, "mean": _no_gradient,
                 "rstd": _no_gradient, "weight": lnb_weight, "bias": _no_gradient},
    dtype="same", n_outputs=3, materialize=_keep_none, methods=(), functions=(),
    family=FAMILY)
LAYER_NORM_BACKWARD.node_class.n_outputs = 3


def joint_layer_norm(which, grad, input, normalized_shape, weight, bias, eps):
    """Output ``which`` (0 input, 1 weight, 2 bias) of one recorded layer-norm backward."""
    return joint_output((grad, input, weight, bias), which, 3, lambda: LAYER_NORM_BACKWARD.public(
        grad, input, None, None, weight, bias, tuple(normalized_shape), eps))


# -- native_batch_norm_backward ----------------------------------------------------------------
def _bn_dims(ndim):
    return (0,) + tuple(range(2, ndim))


def _bn_channel(ndim, c):
    return (1, c) + (1,) * (ndim - 2)


def native_batch_norm_backward(grad_out, input, weight, running_mean, running_var, training,
                               eps):
    """(grad_input, grad_weight, grad_bias) of ``batch_norm`` over dims (0, 2, ...): batch
    statistics in training (or without running ones), else the running statistics."""
    shape = _bn_channel(input.ndim, input.shape[1])
    w = None if weight is None else weight.reshape(shape)
    dims = _bn_dims(input.ndim)
    if training or running_mean is None:
        return _first_order(grad_out, input, w, dims, dims, eps)
    return _first_order(grad_out, input, w, dims, dims, eps, running_mean.reshape(shape),
                        running_var.reshape(shape))


def _bn_stats(input, running_mean, running_var, training, eps):
    dims = list(_bn_dims(input.dim()))
    shape = _bn_channel(input.dim(), input.shape[1])
    if training or running_mean is None:
        return _Stats(input, dims, eps, channel=shape)
    return _Stats(input, dims, eps, running_mean.reshape(shape), running_var.reshape(shape),
                  shape)


def _bn_weight(weight, input):
    return None if weight is None else weight.reshape(_bn_channel(input.dim(), input.shape[1]))


def bnb_grad_out(grads, input, weight, running_mean, running_var, training, eps):
    s = _bn_stats(input, running_mean, running_var, training, eps)
    return _d_grad_out(grads, s, _bn_weight(weight, input))


def bnb_input(grads, grad_out, input, weight, running_mean, running_var, training, eps):
    s = _bn_stats(input, running_mean, running_var, training, eps)
    return _d_input(grads, s, grad_out, _bn_weight(weight, input))


def bnb_weight(grads, grad_out, input, running_mean, running_var, training, eps):
    s = _bn_stats(input, running_mean, running_var, training, eps)
    return _d_weight(grads, s, grad_out, list(_bn_dims(input.dim())))


BATCH_NORM_BACKWARD = defop(
    "native_batch_norm_backward", native_batch_norm_backward,
    inputs=("grad_out", "input", "weight", "running_mean", "running_var"),
    derivatives={"grad_out": bnb_grad_out, "input": bnb_input, "weight": bnb_weight,
                 "running_mean": _no_gradient, "running_var": _no_gradient},
    dtype="same", n_outputs=3, materialize=_keep_none, methods=(), functions=(),
    family=FAMILY)
BATCH_NORM_BACKWARD.node_class.n_outputs = 3


def joint_batch_norm(which, grad, input, weight, running_mean, running_var, training, eps):
    """Output ``which`` (0 input, 1 weight, 2 bias) of one recorded batch-norm backward."""
    return joint_output((grad, input, weight, running_mean, running_var), which, 3,
                   lambda: BATCH_NORM_BACKWARD.public(grad, input, weight, running_mean,
                                                      running_var, training, eps))
