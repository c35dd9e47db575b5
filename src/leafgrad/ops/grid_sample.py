"""Spatial transformers as records: ``grid_sampler_2d`` / ``grid_sampler_3d`` (grad_fn
``GridSampler2DBackward0`` / ``GridSampler3DBackward0``) and ``affine_grid_generator``
(``AffineGridGeneratorBackward0``). ``F.grid_sample`` and ``F.affine_grid`` call them.

Note [Grid sampling as taps]
Each output point reads a few input positions ("taps"): 1 for nearest, 2 per spatial dim for
bilinear, 4 per dim for bicubic. A tap has an integer position (piecewise constant in the grid,
so it carries no gradient), a validity flag (in bounds, for zeros padding) and a weight that is
a product of one polynomial per dim in that dim's source coordinate ``v``. ``v`` is the grid
value unnormalized to pixel units and, for bilinear/nearest, padded (clipped or reflected);
the padding is piecewise linear, so locally ``v = mult * scale * g + const`` with ``mult`` in
{-1, 0, 1} (0 where clipped: PyTorch counts the borders as out of bounds for the gradient).

The forward computes taps and weights in NumPy. The backward formulas rebuild the same weights
as leafgrad expressions of the grid tensor (``v = (g - g.value) * mult * scale + v.value``, equal
to ``v`` in value, with the right slope), so they are differentiable again. As PyTorch's, both
first-order gradients are the outputs of one op, ``grid_sampler_{2,3}d_backward`` (node
GridSampler2DBackwardBackward0 under create_graph), whose derivatives (w.r.t. the incoming
gradient, input and grid) are those formulas' vector-Jacobian products.

>>> import leafgrad as torch
>>> x = torch.arange(4.).view(1, 1, 2, 2)
>>> torch.nn.functional.grid_sample(x, torch.zeros(1, 1, 1, 2), align_corners=True)
tensor([[[[1.5000]]]])
"""
from __future__ import annotations

import itertools
import math

import numpy as np

from ..tensor import _wrap
from .registry import RECORDS, Sample, defop

FAMILY = "grid_sample"

__all__ = ["GRID_SAMPLER", "AFFINE_GRID"]

BILINEAR, NEAREST, BICUBIC = 0, 1, 2
ZEROS, BORDER, REFLECTION = 0, 1, 2
_A = -0.75   # the cubic convolution constant PyTorch's bicubic modes use
_TYPE = {"float16": "Half", "float32": "Float", "float64": "Double", "int32": "Int",
         "int64": "Long", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}


# -- checks (ATen's check_grid_sampler_common / _2d / _3d) -----------------------------------------
def _sizes(shape) -> str:
    return "[" + ", ".join(map(str, shape)) + "]"


def check_grid_sampler(input, grid, interpolation_mode) -> None:
    """PyTorch's argument checks, in its order, with its messages (``input``/``grid`` are
    anything with ``shape``, ``ndim`` and ``dtype``)."""
    for t in (input, grid):   # input.size(0), grid.size(0)
        if t.ndim == 0:
            raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    if input.shape[0:1] != grid.shape[0:1]:
        raise RuntimeError("grid_sampler(): expected grid and input to have same batch size, "
                           f"but got input with sizes {_sizes(input.shape)} and grid with sizes "
                           f"{_sizes(grid.shape)}")
    if grid.shape[-1] != input.ndim - 2:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {input.ndim - 2} in last "
                           f"dimension, but got grid with sizes {_sizes(grid.shape)}")
    for i in range(2, input.ndim):
        if input.shape[i] <= 0:
            raise RuntimeError("grid_sampler(): expected input to have non-empty spatial "
                               f"dimensions, but input has sizes {_sizes(input.shape)} with "
                               f"dimension {i} being empty")
    n = 4 if input.ndim == 4 else 5
    if input.ndim != n or grid.ndim != n:
        raise RuntimeError(f"grid_sampler(): expected {n}D input and grid with same number of "
                           f"dimensions, but got input with sizes {_sizes(input.shape)} and grid "
                           f"with sizes {_sizes(grid.shape)}")
    if n == 5 and interpolation_mode == BICUBIC:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    kind = np.dtype(input.dtype).kind if isinstance(input, np.ndarray) else \
        ("f" if input.dtype.is_floating_point else "i")
    if kind != "f":
        raise NotImplementedError(f'"grid_sampler_{n - 2}d_cpu_kernel_impl" not implemented '
                                  f"for '{_TYPE.get(str(np.dtype(input.dtype)), input.dtype)}'")
    if input.dtype != grid.dtype:   # the kernel reads grid as input's scalar type: last
        raise RuntimeError(f"expected scalar type {_TYPE.get(str(input.dtype), input.dtype)} "
                           f"but found {_TYPE.get(str(grid.dtype), grid.dtype)}")


# -- source coordinates ------------------------------------------------------------------------
def _unnormalize(g, size: int, align: bool):
    """Grid value in [-1, 1] -> pixel coordinate, and d(pixel)/d(grid)."""
    if align:
        return (g + 1) / 2 * (size - 1), (size - 1) / 2
    return ((g + 1) * size - 1) / 2, size / 2


def _clip(v, size: int, vectorized: bool):
    """Clip to [0, size-1]; the slope is 0 on and beyond the borders (PyTorch's rule). A NaN
    becomes 0 in the 2-d (vectorized) kernel and size-1 in the 3-d (scalar) one."""
    hi = size - 1
    mult = ((v > 0) & (v < hi)).astype(v.dtype)
    v = np.where(np.isnan(v), 0 if vectorized else hi, v)
    return np.clip(v, 0, hi).astype(v.dtype, copy=False), mult


def _reflect(v, twice_low: int, twice_high: int, vectorized: bool):
    """Reflect ``v`` into [low, high] by mirroring at the ends; slope +1 or -1. The 2-d
    kernel folds by the period 2 * span with a truncated quotient, the 3-d one by the span
    with fmod and counts flips (equal for ordinary values; they part on huge or non-finite
    ones, which this follows)."""
    if twice_low == twice_high:
        return np.zeros_like(v), np.zeros_like(v)
    low = v.dtype.type(twice_low / 2)
    d = v - low
    negative = d < 0
    d = np.abs(d)
    if vectorized:
        period = v.dtype.type(twice_high - twice_low)
        extra = d - np.trunc(d / period) * period
        flipped = period - extra
        flip = extra > flipped
        out = np.where(flip, flipped, extra) + low
        return out.astype(v.dtype), np.where(flip ^ negative, -1, 1).astype(v.dtype)
    span = v.dtype.type((twice_high - twice_low) / 2)
    extra = np.fmod(d, span)
    with np.errstate(invalid="ignore"):
        flips = np.floor(d / span)
        even = ~np.isfinite(flips) | (np.fmod(flips, 2) == 0)   # (int)NaN is even in C
    out = np.where(even, extra + low, span - extra + low).astype(v.dtype)
    return out, np.where(even ^ negative, 1, -1).astype(v.dtype)


def _pad(v, size: int, padding: int, align: bool, vectorized: bool):
    """``compute_coordinates`` with its slope: (padded coordinate, d(padded)/d(v))."""
    if padding == ZEROS:
        return v, np.ones_like(v)
    if padding == BORDER:
        return _clip(v, size, vectorized)
    if align:
        r, m1 = _reflect(v, 0, 2 * (size - 1), vectorized)
    else:
        r, m1 = _reflect(v, -1, 2 * size - 1, vectorized)
    c, m2 = _clip(r, size, vectorized)
    # the 2-d kernel masks the clipped slopes (clip_mult & grad: +0), the 3-d one multiplies
    # (scale * -1 * 0 = -0): the sign shows in a negative gradient times it
    return c, (np.where(m2 == 0, m2, m1) if vectorized else m1 * m2)


class _Axis:
    """One spatial dim's taps: integer positions, validity, the coordinate ``v`` with its
    slope, and the floor ``lo`` the weights are measured from."""
    __slots__ = ("stride", "idx", "valid", "v", "slope", "lo")


def _axes(grid, spatial, mode, padding, align):
    """One ``_Axis`` per grid coordinate j (x, y[, z]): axis ``n - 1 - j`` of the input."""
    n = len(spatial)
    vectorized = n == 2     # PyTorch's 2-d CPU kernel is vectorized, its 3-d one scalar
    strides = [math.prod(spatial[d + 1:]) for d in range(n)]
    out = []
    for j in range(n):
        size = spatial[n - 1 - j]
        ax = _Axis()
        ax.stride = strides[n - 1 - j]
        v, scale = _unnormalize(grid[..., j], size, align)
        if mode == BICUBIC:   # taps are padded one by one; v itself is not
            ax.v, ax.slope = v, np.full_like(v, scale)
            ax.lo = np.floor(v)
            pos = [_pad(ax.lo + o, size, padding, align, vectorized)[0]
                   for o in (-1, 0, 1, 2)]
        else:
            ax.v, mult = _pad(v, size, padding, align, vectorized)
            ax.slope = mult * v.dtype.type(scale)
            if mode == NEAREST:
                pos = [np.rint(ax.v)]
            else:
                ax.lo = np.floor(ax.v)
                pos = [ax.lo, ax.lo + 1]
        ax.valid = [np.isfinite(p) & (p > -1) & (p < size) for p in pos]
        ax.idx = [np.where(ok, p, 0).astype(np.int64) for ok, p in zip(ax.valid, pos)]
        out.append(ax)
    return out


def _axis_weights(mode, v, lo):
    """(weights, d weights / dv) of one dim's taps; ``v`` and ``lo`` are both arrays or both
    tensors, so the same code builds the forward's numbers and the backward's expressions."""
    if mode == NEAREST:
        return [None], [None]
    if mode == BILINEAR:
        return [lo + 1 - v, v - lo], [-1, 1]
    t = v - lo
    s = 1 - t
    a = _A

    def near(x):      # |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):       # 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    def near_d(x):
        return (3 * (a + 2) * x - 2 * (a + 3)) * x

    def far_d(x):
        return (3 * a * x - 10 * a) * x + 8 * a

    weights = [far(t + 1), near(t), near(s), far(s + 1)]
    slopes = [far_d(t + 1), near_d(t), -near_d(s), -far_d(s + 1)]
    return weights, slopes


def _product(factors):
    out = None
    for f in factors:
        if f is None:
            continue
        out = f if out is None else out * f
    return out


def _taps(axes, weights):
    """Yield (flat index, valid, [weight per axis]) for every combination of per-axis taps,
    the last grid coordinate outermost (PyTorch's nw, ne, sw, se order)."""
    ranges = [range(len(ax.idx)) for ax in reversed(axes)]
    for combo in itertools.product(*ranges):
        ks = combo[::-1]   # ks[j]: the tap of grid coordinate j
        flat = sum(axes[j].idx[k] * axes[j].stride for j, k in enumerate(ks))
        valid = np.logical_and.reduce([axes[j].valid[k] for j, k in enumerate(ks)])
        yield flat, valid, [weights[j][k] for j, k in enumerate(ks)]


def _bicubic(flat, axes, weights):
    """Bicubic sampling in PyTorch's order: each of the 4 rows interpolated along x, then
    the 4 row values along y (the sums round differently from a flat 16-term sum, which
    shows in float16)."""
    ax_x, ax_y = axes
    out = None
    for j in range(4):
        row = None
        for i in range(4):
            idx = ax_y.idx[j] * ax_y.stride + ax_x.idx[i] * ax_x.stride
            valid = ax_y.valid[j] & ax_x.valid[i]
            values = np.where(valid[:, None, :], np.take_along_axis(flat, idx[:, None, :], 2), 0)
            term = values * weights[0][i][:, None, :]
            row = term if row is None else row + term
        term = row * weights[1][j][:, None, :]
        out = term if out is None else out + term
    return out


# -- the records ---------------------------------------------------------------------------------
def _forward(n):
    def grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners):
        check_grid_sampler(input, grid, interpolation_mode)
        N, C = input.shape[:2]
        spatial = input.shape[2:]
        out_spatial = grid.shape[1:-1]
        P = math.prod(out_spatial)
        axes = _axes(grid.reshape(N, P, n), spatial, interpolation_mode, padding_mode,
                     align_corners)
        weights = [_axis_weights(interpolation_mode, ax.v, getattr(ax, "lo", None))[0]
                   for ax in axes]
        flat = input.reshape(N, C, math.prod(spatial))   # (-1 fails on an empty batch)
        out = np.zeros((N, C, P), input.dtype)
        if flat.shape[2] == 0 or N * C * P == 0:
            return out.reshape((N, C) + out_spatial)
        if interpolation_mode == BICUBIC:
            return _bicubic(flat, axes, weights).reshape((N, C) + out_spatial)
        for idx, valid, ws in _taps(axes, weights):
            w = _product(ws)
            values = np.take_along_axis(flat, idx[:, None, :], 2)
            if w is None:
                out += np.where(valid[:, None, :], values, 0)
            elif n == 2:   # masked loads times the weight: a NaN weight gives NaN
                out += np.where(valid[:, None, :], values, 0) * w[:, None, :]
            else:          # the scalar kernel skips out-of-bounds taps
                out += values * np.where(valid, w, 0)[:, None, :]
        return out.reshape((N, C) + out_spatial)
    grid_sampler.__name__ = f"grid_sampler_{n}d"
    return grid_sampler


def _coordinate_tensors(grid, axes, n):
    """Each axis's ``v`` as a leafgrad expression of ``grid`` (see Note [Grid sampling as
    taps]): equal to the forward's ``v``, with slope ``ax.slope`` in the grid value."""
    N = grid.shape[0]
    g = grid.reshape(N, math.prod(grid.shape[1:-1]), n)
    out = []
    for j, ax in enumerate(axes):
        gj = g[:, :, j]
        out.append((gj - _wrap(gj._data.copy())) * _wrap(ax.slope) + _wrap(ax.v))
    return out


def _backward_plan(grid, input_shape, mode, padding, align, n):
    N, C = input_shape[:2]
    P = math.prod(grid.shape[1:-1])
    g = grid._data.reshape(N, P, n)
    axes = _axes(g, tuple(input_shape[2:]), mode, padding, align)
    vs = _coordinate_tensors(grid, axes, n)
    weights, slopes = [], []
    for ax, v in zip(axes, vs):
        lo = None if mode == NEAREST else _wrap(ax.lo)
        w, s = _axis_weights(mode, v, lo)
        weights.append(w)
        slopes.append(s)
    return N, C, P, axes, weights, slopes


def _input_formula(n):
    # input and grid, whichever needs a gradient, as PyTorch's one formula for both saves
    def grid_sampler_input(grad, input, grid, interpolation_mode, padding_mode, align_corners):
        input_shape = input._data.shape
        N, C, P, axes, weights, _ = _backward_plan(grid, input_shape, interpolation_mode,
                                                   padding_mode, align_corners, n)
        g = grad.reshape(N, C, P)
        srcs, index = [], []
        for idx, valid, ws in _taps(axes, weights):
            # PyTorch's kernels skip out-of-bounds taps (mask_scatter_add, safe_add): masked
            # out, not multiplied by 0, so an inf or NaN gradient there adds nothing (seed 131)
            invalid = _wrap(~valid[:, None, :])
            w = _product(ws)
            src = g if w is None else g * w.reshape(N, 1, P)
            srcs.append(src.masked_fill(invalid, 0.0))
            index.append(np.broadcast_to(idx[:, None, :], (N, C, P)))
        src = RECORDS["cat"].public(srcs, 2)
        dest = grad.new_zeros((N, C, math.prod(input_shape[2:])))
        return dest.scatter_add(2, _wrap(np.concatenate(index, 2)), src).reshape(input_shape)
    grid_sampler_input.__name__ = f"grid_sampler_{n}d_input"
    return grid_sampler_input


def _grid_formula(n):
    def grid_sampler_grid(grad, input, grid, interpolation_mode, padding_mode, align_corners):
        if interpolation_mode == NEAREST:   # piecewise constant: PyTorch gives zeros
            return _wrap(np.zeros(grid.shape, grid._data.dtype))
        N, C, P, axes, weights, slopes = _backward_plan(
            grid, input.shape, interpolation_mode, padding_mode, align_corners, n)
        g = grad.reshape(N, C, P)
        flat = input.reshape(N, C, math.prod(input.shape[2:]))
        taps = []
        for idx, valid, ws in _taps(axes, weights):
            index = _wrap(np.ascontiguousarray(np.broadcast_to(idx[:, None, :], (N, C, P))))
            taps.append((flat.gather(2, index), _wrap(~valid[:, None, :]), ws))
        # Where the incoming gradient is inf or NaN, what counts is where it multiplies
        # (seed 131): the 2-d kernel gathers masked values (0 out of bounds) and multiplies
        # gOut last, the 3-d one skips out-of-bounds taps
        if n == 2 and interpolation_mode == BILINEAR:
            return _bilinear_2d_grid(g, taps, axes, grid.shape)
        parts = [None] * n
        tap_slopes = list(_taps(axes, slopes))
        for t, (values, invalid, ws) in enumerate(taps):
            if n == 2:   # bicubic: val (masked to 0) * gOut * ...
                seen = (g * values.masked_fill(invalid, 0.0)).sum(1)
            else:
                seen = (g * values).sum(1).masked_fill(invalid[:, 0, :], 0.0)
            ss = tap_slopes[t][2]
            for j in range(n):   # d(weight)/dv_j: this axis's slope times the others' weights
                term = _product([ss[j] if e == j else ws[e] for e in range(n)])
                contrib = seen * term
                parts[j] = contrib if parts[j] is None else parts[j] + contrib
        parts = [p * _wrap(ax.slope) for p, ax in zip(parts, axes)]
        return RECORDS["stack"].public(parts, -1).reshape(grid.shape)
    grid_sampler_grid.__name__ = f"grid_sampler_{n}d_grid"
    return grid_sampler_grid


def _bilinear_2d_grid(g, taps, axes, grid_shape):
    """The 2-d bilinear grid gradient grouped as ATen's vectorized kernel: per channel
    ``gx += ((ne - nw) * s + (se - sw) * n) * gOut`` (and ``gy`` alike) with masked values,
    then times the coordinate slopes."""
    (nw, _, (e, s)), (ne, _, (w, _)), (sw, _, (_, n)), (se, _, _) = [
        (values.masked_fill(invalid, 0.0), invalid, ws) for values, invalid, ws in taps]
    N, _, P = g.shape
    e, w, s, n = (t.reshape(N, 1, P) for t in (e, w, s, n))
    gx = (((ne - nw) * s + (se - sw) * n) * g).sum(1)
    gy = (((sw - nw) * e + (se - ne) * w) * g).sum(1)
    parts = [gx * _wrap(axes[0].slope), gy * _wrap(axes[1].slope)]
    return RECORDS["stack"].public(parts, -1).reshape(grid_shape)


def _samples(n):
    call = "nn.functional.grid_sample"

    def samples(make, shapes):
        spatial = (3, 4, 2)[:n]
        grid = (2, 3, 2, 2) if n == 2 else (2, 2, 3, 2, 3)
        out = []
        modes = ("bilinear", "nearest", "bicubic") if n == 2 else ("bilinear", "nearest")
        for mode in modes:
            for padding in ("zeros", "border", "reflection"):
                for align in (False, True):
                    out.append(Sample((make((2, 2) + spatial), make(grid, -1.3, 1.3)),
                                      {"mode": mode, "padding_mode": padding,
                                       "align_corners": align},
                                      call=call, grad=mode != "nearest"))
        return out
    return samples


# -- grid_sampler_{2,3}d_backward ----------------------------------------------------------------
# PyTorch computes both first-order gradients with one op, grid_sampler_2d_backward, whose node
# (GridSampler2DBackwardBackward0) the create_graph gradients hang from, with edges to the
# incoming gradient, the input and the grid. Its forward here runs the formulas above on plain
# values; its derivatives are those formulas' vector-Jacobian products, taken by the engine
# (their graph, under create_graph, leads on to a third derivative).
def _backward_forward(n):
    in_formula, grid_formula = _input_formula(n), _grid_formula(n)

    def grid_sampler_backward(grad_output, input, grid, interpolation_mode, padding_mode,
                              align_corners, output_mask):
        from ..grad_mode import no_grad
        args = (_wrap(grad_output), _wrap(input), _wrap(grid), interpolation_mode,
                padding_mode, align_corners)
        with no_grad():
            g_in = in_formula(*args)._data if output_mask[0] else None
            g_grid = grid_formula(*args)._data if output_mask[1] else None
        return [g_in, g_grid]
    grid_sampler_backward.__name__ = f"grid_sampler_{n}d_backward"
    return grid_sampler_backward


# The three derivative formulas of one node run one after the other: the first computes all
# three vector-Jacobian products in one backward; the others take theirs from here (the key:
# the very objects they were called with)
_LAST = [None, None]


def _double_formula(n, which):
    """The derivative of grid_sampler_backward for its input ``which`` (0: the incoming
    gradient, 1: input, 2: grid): <gg_input, F_input> + <gg_grid, F_grid> differentiated."""
    def formula(grads, grad_output, input, grid, interpolation_mode, padding_mode,
                align_corners, output_mask):
        key = (grads[0], grads[1], grad_output, input, grid)
        last = _LAST[0]
        if last is None or any(x is not y for x, y in zip(last, key)):
            _LAST[0] = None
            _LAST[1] = _double_products(n, grads, grad_output, input, grid,
                                        interpolation_mode, padding_mode, align_corners)
            _LAST[0] = key
        res = _LAST[1][which]
        if res is None and which == 2 and grads[0] is not None:
            # nearest: the input's gradient is piecewise constant in the grid; PyTorch's
            # gives the grid zeros there (and nothing where only the grid's was used)
            return _wrap(np.zeros(grid._data.shape, grid._data.dtype))
        return res
    formula.__name__ = f"grid_sampler_{n}d_backward_{('grad_output', 'input', 'grid')[which]}"
    return formula


def _leaf(t):
    out = _wrap(t._data)
    out._requires_grad = t._requires_grad
    return out


def _double_products(n, grads, grad_output, input, grid, mode, padding, align):
    from ..autograd import grad as autograd_grad
    from ..grad_mode import enable_grad, state
    create = state.grad_enabled
    ins = [grad_output, input, grid]
    if not create:   # (no graph wanted: leaves of the same values; set directly, as
        ins = [_leaf(t) for t in ins]   # requires_grad_() looks for views: slow)
    targets = [i for i, t in enumerate(ins) if t.requires_grad]
    out = [None, None, None]
    with enable_grad():
        args = (*ins, mode, padding, align)
        total = None
        for gg, f in zip(grads, (_input_formula(n), _grid_formula(n))):
            if gg is None:
                continue
            part = (f(*args) * gg).sum()
            total = part if total is None else total + part
        if total is None or not total.requires_grad or not targets:
            return out
        res = autograd_grad(total, [ins[i] for i in targets], create_graph=create,
                            allow_unused=True)
    for i, r in zip(targets, res):
        out[i] = r
    return out


def _keep_none(grads, metas):
    return list(grads)


GRID_SAMPLER_BACKWARD = {n: defop(
    f"grid_sampler_{n}d_backward", _backward_forward(n),
    inputs=("grad_output", "input", "grid"),
    derivatives={name: _double_formula(n, i)
                 for i, name in enumerate(("grad_output", "input", "grid"))},
    dtype="same", n_outputs=2, materialize=_keep_none,
    grad_fn_name=f"GridSampler{n}DBackwardBackward0", methods=(), functions=(), family=FAMILY)
    for n in (2, 3)}
for _rec in GRID_SAMPLER_BACKWARD.values():
    _rec.node_class.n_outputs = 2


def _first_order(n):
    """grid_sample's gradients of input and grid: the outputs of one grid_sampler_backward
    (PyTorch's one formula for both, Note [Joint formulas] in autograd/graph.py: under
    create_graph both hang from one GridSampler2DBackwardBackward0)."""
    def formula(grad, input, grid, interpolation_mode, padding_mode, align_corners,
                output_mask):
        return GRID_SAMPLER_BACKWARD[n].public(grad, input, grid, interpolation_mode,
                                               padding_mode, align_corners, list(output_mask))
    formula.__name__ = f"grid_sampler_{n}d_backward_formula"
    return formula


GRID_SAMPLER = {n: defop(
    f"grid_sampler_{n}d", _forward(n), inputs=("input", "grid"),
    derivatives={("input", "grid"): _first_order(n)}, dtype="same",
    grad_fn_name=f"GridSampler{n}DBackward0", methods=(), family=FAMILY, samples=_samples(n))
    for n in (2, 3)}


# -- affine_grid_generator ---------------------------------------------------------------------
def _line(steps: int, align: bool, dtype):
    """``linspace(-1, 1, steps)`` (shrunk by (steps-1)/steps without align_corners)."""
    if steps <= 1:   # PyTorch: at::tensor(0, options), which has no float16 kernel
        if dtype == np.float16:
            raise NotImplementedError('"tensor_cpu" not implemented for \'Half\'')
        return np.zeros(steps, dtype)
    i = np.arange(steps)
    step = dtype.type(2) / dtype.type(steps - 1)
    half = steps // 2
    line = np.where(i < half, -1 + step * i, 1 - step * (steps - 1 - i)).astype(dtype)
    if not align:
        line = (line * (steps - 1) / steps).astype(dtype)
    return line


def _base_grid(size, align: bool, dtype):
    """(prod(spatial), n + 1): [x, y(, z), 1] for every output point, x fastest."""
    spatial = tuple(size[2:])
    n = len(spatial)
    lines = [_line(s, align, dtype) for s in spatial]          # (D,) H, W
    mesh = np.meshgrid(*lines, indexing="ij")
    cols = [mesh[n - 1 - j].reshape(-1) for j in range(n)]     # x from W, y from H, z from D
    cols.append(np.ones(math.prod(spatial), dtype))
    return np.stack(cols, 1)


def affine_grid_generator(theta, size, align_corners):
    size = tuple(int(s) for s in size)
    n = len(size) - 2
    base = _base_grid(size, align_corners, theta.dtype)
    if theta.shape[0] != size[0]:
        raise RuntimeError("Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{size[0]}, {n + 1}] but got: [{theta.shape[0]}, "
                           f"{theta.shape[2]}].")
    out = np.matmul(base[None], np.swapaxes(theta, 1, 2))
    return out.reshape(size[:1] + size[2:] + (n,))


def affine_grid_generator_theta(grad, size, align_corners):
    size = tuple(int(s) for s in size)
    n = len(size) - 2
    # PyTorch's: base^T (per batch) bmm grad viewed as (N, points, n), then transposed
    base = _base_grid(size, align_corners, grad._data.dtype)
    base_t = _wrap(np.ascontiguousarray(np.broadcast_to(base.T, (size[0],) + base.T.shape)))
    return base_t.bmm(grad.reshape(size[0], math.prod(size[2:]), n)).transpose(1, 2)


def _affine_samples(make, shapes):
    call = "nn.functional.affine_grid"
    return [Sample((make((2, 2, 3)), (2, 3, 4, 5)), {"align_corners": False}, call=call),
            Sample((make((1, 2, 3)), (1, 1, 3, 2)), {"align_corners": True}, call=call),
            Sample((make((2, 3, 4)), (2, 1, 3, 2, 4)), {"align_corners": False}, call=call),
            Sample((make((1, 3, 4)), (1, 1, 2, 3, 2)), {"align_corners": True}, call=call)]


AFFINE_GRID = defop("affine_grid_generator", affine_grid_generator, inputs=("theta",),
                    derivatives={"theta": affine_grid_generator_theta}, dtype="same",
                    methods=(), family=FAMILY, samples=_affine_samples)
