"""``torch.einsum``: forward by ``np.einsum`` (BLAS-backed with ``optimize``), backward by
einsum of the gradient with the other operands.

PyTorch's einsum is a composite whose output node depends on the equation; leafgrad records one
node named like PyTorch's output node: ``ViewBackward0`` for a contraction of two or more
operands, ``MulBackward0`` when nothing is summed away, ``SumBackward1``
for a one-operand reduction, ``PermuteBackward0`` for a one-operand permutation.

>>> import leafgrad as torch
>>> torch.einsum("ij,j->i", torch.ones(2, 3), torch.ones(3))
tensor([3., 3.])
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from ..grad_mode import state as _mode
from .dispatch import _make_view
from .iter_layout import (contiguous, contiguous_result, elem_strides, operand_strides,
                          view_strides, with_strides)
from .registry import defop, export_function, Sample
from .._zerotensor import is_zero_array, materialized, zeros
from ..tensor import Tensor, _wrap

FAMILY = "linalg"
_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"   # string.ascii_letters


def _explicit(equation, shapes):
    """The equation with ``...`` spelled out and an explicit ``->`` output."""
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    ins = lhs.split(",")
    if len(ins) != len(shapes):
        raise RuntimeError("einsum(): more operands were provided than specified in the "
                           "equation" if len(shapes) > len(ins) else
                           "einsum(): fewer operands were provided than specified in the "
                           "equation")
    used = set(c for c in eq if c.isalpha())
    free = [c for c in _LETTERS if c not in used]
    n_ell = max((len(s) - len(i.replace("...", "")) for i, s in zip(ins, shapes)
                 if "..." in i), default=0)
    ell = "".join(free[:n_ell])
    out_ins = []
    for i, s in zip(ins, shapes):
        if "..." in i:
            k = len(s) - len(i.replace("...", ""))
            if k < 0:
                raise RuntimeError(f"einsum(): the number of subscripts in the equation "
                                   f"({len(s) - k}) is more than the number of dimensions "
                                   f"({len(s)}) for operand {len(out_ins)}")
            i = i.replace("...", ell[n_ell - k:] if k else "")
        if len(i) != len(s):
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({len(i)}) "
                               f"does not match the number of dimensions ({len(s)}) for "
                               f"operand {len(out_ins)} and no ellipsis was given")
        out_ins.append(i)
    if arrow:
        out = rhs.replace("...", ell)
    else:
        counts = {}
        for i in out_ins:
            for c in i:
                counts[c] = counts.get(c, 0) + 1
        out = ell + "".join(sorted(c for c, n in counts.items() if n == 1 and c not in ell))
    return out_ins, out


def einsum_forward(tensors, equation, operands):
    """``np.einsum`` over the operand arrays, in PyTorch's layout (``_torch_strides``)."""
    ins, out = _explicit(equation, [t.shape for t in tensors])
    if len(tensors) == 1 and len(out) == len(ins[0]) and set(out) == set(ins[0]):
        # a permutation: a transposed view, so a zero tensor stays one (PyTorch's permute)
        return np.transpose(tensors[0], [ins[0].index(c) for c in out])
    result = np.einsum(",".join(ins) + "->" + out, *tensors, optimize=len(tensors) > 1)
    if result.ndim < 2 or result.size <= 1:
        return result
    if len(tensors) == 1:   # a sum: a new contiguous tensor
        return contiguous_result(result)
    key = (equation, tuple((t.shape, t.strides, t.itemsize) for t in tensors))
    strides = _STRIDES.get(key)
    if strides is None:
        if len(_STRIDES) > 1024:
            _STRIDES.clear()
        strides = _STRIDES[key] = _torch_strides(ins, out, equation, tensors)
    return with_strides(result, strides)


_STRIDES: dict = {}   # (equation, operands' metadata) -> PyTorch's result strides


def _order_key(c):
    """PyTorch's label order (its ``label_to_subscript``): 'A'-'Z' before 'a'-'z'."""
    return (c.islower(), c)


def _torch_strides(ins, out, equation, arrays):
    """The strides of PyTorch's einsum result of two or more operands, from its algorithm
    (metadata only): each operand unsqueezed and permuted to the output's labels then the
    contracted ones; folded left to right, labels in one operand only summed first (a new
    contiguous tensor), ``sumproduct_pair``: a broadcast multiply (TensorIterator's layout)
    or a ``bmm`` whose contiguous output is viewed and permuted back (the operands swapped
    when the right's own dims all come before the left's); the contracted dims viewed away."""
    letters = set("".join(ins))
    ell = sorted((c for c in letters if c not in equation and c not in out), key=_LETTERS.index)
    summed = sorted((c for c in letters if c not in out and c not in ell), key=_order_key)
    order = list(out) + ell + summed
    n_out = len(out)
    ops = []
    counts = [0] * len(order)
    for spec, a in zip(ins, arrays):
        st = elem_strides(a)
        shape, strides = [], []
        for p, c in enumerate(order):
            if c in spec:
                k = spec.index(c)
                shape.append(a.shape[k])
                strides.append(st[k])
                if a.shape[k] != 1:
                    counts[p] += 1
            else:
                shape.append(1)
                strides.append(1)   # (unsqueezed at the end, then permuted)
        ops.append((shape, strides))

    def summed_away(op, dims):
        shape = [1 if d in dims else n for d, n in enumerate(op[0])]
        return shape, list(contiguous(shape))

    while len(ops) > 1:
        a, b = ops[0], ops[1]
        del ops[:2]
        sum_dims, a_sum, b_sum = [], [], []
        for d in range(n_out, len(order)):
            if a[0][d] != 1 and b[0][d] != 1:
                counts[d] -= 1
                if counts[d] == 1:
                    sum_dims.append(d)
                    counts[d] = 0
            elif counts[d] == 1:
                if a[0][d] != 1:
                    a_sum.append(d)
                    counts[d] = 0
                elif b[0][d] != 1:
                    b_sum.append(d)
                    counts[d] = 0
        if a_sum:
            a = summed_away(a, a_sum)
        if b_sum:
            b = summed_away(b, b_sum)
        ops.insert(0, _sumproduct_pair(a, b, sum_dims))
    shape, strides = ops[0]
    if len(order) > n_out:
        return view_strides(shape, strides, shape[:n_out])
    return tuple(strides)


def _sumproduct_pair(left, right, sum_dims):
    """PyTorch's ``sumproduct_pair`` on (shape, strides) metadata (keepdim=True)."""
    nd = len(left[0])
    if not sum_dims:
        shape = [max(m, n) for m, n in zip(left[0], right[0])]
        return shape, list(operand_strides(shape, [left, right]))
    lro, lo, ro = [], [], []
    for d in range(nd):
        sl, sr = left[0][d] != 1, right[0][d] != 1
        if d in sum_dims:
            continue   # (a dim in one operand only was summed before the pair)
        if sl and sr:
            lro.append(d)
        elif sl:
            lo.append(d)
        else:
            ro.append(d)
    sizes = [max(m, n) for m, n in zip(left[0], right[0])]
    if lo and ro and ro[-1] < lo[0]:
        lo, ro = ro, lo
    layout = lro + lo + list(sum_dims) + ro
    out_size = [1 if d in sum_dims else sizes[d] for d in layout]
    size = 1
    for d in lro:
        size *= sizes[d]
    bmm = [size, 1, 1]
    for d in lo:
        bmm[1] *= sizes[d]
    for d in ro:
        bmm[2] *= sizes[d]
    viewed = view_strides(bmm, contiguous(bmm), out_size)
    strides = [0] * nd
    for p, d in enumerate(layout):
        strides[d] = viewed[p]
    return [1 if d in sum_dims else sizes[d] for d in range(nd)], strides


def einsum_tensors(grad, tensors_shapes, equation, operands):
    ins, out = _explicit(equation, tensors_shapes)
    sizes = {}
    for i, s in zip(ins, tensors_shapes):
        for c, n in zip(i, s):
            sizes[c] = max(sizes.get(c, 1), n)
    labels = set("".join(ins))
    grads = [None] * len(ins)
    zero_in = is_zero_array(grad._data)
    if zero_in:
        keep = _zero_kept(ins, out, tensors_shapes)
        if not all(keep):   # (the grad that some bmm materializes, as PyTorch's does)
            grad = _wrap(np.zeros(grad._data.shape, grad._data.dtype))
    # the last operand's gradient first, as PyTorch's bmm / mul backwards (under create_graph
    # the order of the nodes made)
    for k in range(len(ins) - 1, -1, -1):
        spec, shape = ins[k], tensors_shapes[k]
        if not operands[k].requires_grad:
            continue
        if len(set(spec)) != len(spec):
            raise NotImplementedError("leafgrad's einsum backward does not support repeated "
                                      "subscripts in one operand")
        others = [(i, t) for j, (i, t) in enumerate(zip(ins, operands)) if j != k]
        seen = set(out).union(*[set(i) for i, _ in others])
        target = "".join(c for c in spec if c in seen)
        # mixed dtypes: PyTorch's decomposition multiplies in the promoted dtype (the
        # gradient's), so the others join it (its bmm would refuse them, fuzz seed 15)
        g = einsum(",".join([out] + [i for i, _ in others]) + "->" + target,
                   grad, *[t if t.dtype == grad.dtype else t.to(grad.dtype)
                           for _, t in others]) if others else (
            _reduce_to(grad, out, target))
        if target != spec:
            tsize = dict(zip(target, g.shape))
            g = g.reshape([tsize.get(c, 1) for c in spec])
        # size-1 dimensions broadcast against another operand's: their gradient is summed;
        # a gradient of size 1 where the operand is larger (the others broadcast) expands
        summed = tuple(d for d, (m, n) in enumerate(zip(g.shape, shape)) if m != n and n == 1)
        if summed:
            g = g.sum(summed, keepdim=True)
        if tuple(g.shape) != tuple(shape):
            g = g.expand(shape)
        if _mode.grad_enabled:
            # under create_graph the gradient's node is PyTorch's: its einsum unsqueezes an
            # operand that lacks some subscript, then permutes every operand, so the
            # gradient comes out of a squeeze or of a permute (after the cast to the
            # operand's dtype, which its promoting multiply's backward does)
            if g.dtype != operands[k].dtype:
                g = g.to(operands[k].dtype)
            if set(spec) != labels:
                g = g.unsqueeze(0).squeeze(0)
            else:
                g = g.permute(tuple(range(g.dim())))
        if zero_in and (not keep[k] or not is_zero_array(g._data)):
            # a fresh result: its zeros become a zero tensor's (in its layout, which
            # AccumulateGrad looks at), or PyTorch's +0 sums
            g._data = _zeros_as(g._data, keep[k])
        grads[k] = g
    return grads


def _zeros_as(a, zero: bool):
    """Zeros of ``a``'s shape, dtype and strides: a zero tensor's array or an ordinary one."""
    if not zero:
        return np.zeros_like(materialized(a))
    if a.flags.c_contiguous or min(a.strides, default=0) < 0:
        return zeros(a.shape, a.dtype)
    span = 1 + sum((n - 1) * abs(st) // a.itemsize for n, st in zip(a.shape, a.strides))
    return np.lib.stride_tricks.as_strided(zeros((span,), a.dtype), a.shape, a.strides,
                                           subok=True, writeable=False)


def _zero_kept(ins, out, shapes):
    """Per operand: does a zero-tensor gradient of the output reach it as a zero tensor?
    PyTorch's einsum (the fold _check_contractions describes) is made of views, sums (whose
    backward expands), multiplies (a zero tensor times anything is one, unless its
    broadcast is summed back to the operand's shape) and bmm (no zero-tensor rule: its
    gradients, and all before it, are ordinary)."""
    sizes = [{c: n for c, n in zip(spec, shape) if n != 1} for spec, shape in zip(ins, shapes)]
    last = {c: max([k for k, own in enumerate(sizes) if c in own], default=0)
            for c in set("".join(ins)) - set(out)}
    keep = [True] * len(ins)
    res = {c for c in sizes[0] if c in out or last[c] > 0}
    for k in range(1, len(ins)):
        # the operand's labels left after summing those no other operand has
        first = {c for c in sizes[k] if c not in last or last[c] > k or c in res}
        if any(last[c] == k for c in res if c in last):
            keep[:k + 1] = [False] * (k + 1)          # a bmm
        else:
            if first - res:
                keep[:k] = [False] * k                # the running result is broadcast
            if res - first:
                keep[k] = False                       # the operand is broadcast
            res |= first
        res = {c for c in res if c in out or last[c] > k}
    return keep


def _reduce_to(grad, out, target):
    """Single operand: the gradient is the output's, transposed to the operand's order."""
    return einsum(out + "->" + target, grad)


def _samples(make, shapes):
    return [Sample(("ij,jk->ik", make((2, 3)), make((3, 4))), call="einsum"),
            Sample(("bij,bjk->bik", make((2, 2, 3)), make((2, 3, 2))), call="einsum"),
            Sample(("i,i->", make((3,)), make((3,))), call="einsum"),
            Sample(("ij,j", make((2, 3)), make((3,))), call="einsum"),
            Sample(("...j,jk->...k", make((2, 2, 3)), make((3, 2))), call="einsum"),
            Sample(("ij->ji", make((2, 3))), call="einsum"),
            Sample(("ij->j", make((2, 3))), call="einsum"),
            Sample(("ij,k->ijk", make((2, 3)), make((2,))), call="einsum"),
            Sample(("ij,jk,kl->il", make((2, 3)), make((3, 2)), make((2, 2))), call="einsum")]


def _sum_dtype(rec, args):
    """A single operand summed: PyTorch's einsum calls ``sum``, which accumulates integers
    and bools in int64."""
    if args[0][0]._data.dtype.kind in "biu":
        return np.dtype(np.int64), np.dtype(np.int64)
    return None, None


_RECORDS = {}
for _kind, _name in (("view", "ViewBackward0"), ("mul", "MulBackward0"),
                     ("sum", "SumBackward1"), ("permute", "PermuteBackward0")):
    _RECORDS[_kind] = defop(f"einsum_{_kind}", einsum_forward, inputs=("tensors",),
                            list_input=True, derivatives={"tensors": einsum_tensors},
                            grad_fn_name=_name, methods=(), functions=(), family=FAMILY,
                            samples=_samples if _kind == "view" else None,
                            # PyTorch's mul / bmm save the operands (freed by a backward
                            # without retain_graph: a second one raises); its permute and
                            # sum of a single operand save no tensor
                            **({"dtype": _sum_dtype} if _kind == "sum" else {}),
                            **({"saved_tensor_args": ("operands",)}
                               if _kind in ("view", "mul") else {}))


def einsum(equation, *operands):
    """Einstein summation, as ``torch.einsum(equation, *operands)`` (or a list of operands)."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    for i, t in enumerate(operands):
        if not isinstance(t, Tensor):
            raise TypeError(f"einsum(): argument 'operands' must be tuple of Tensors, but found "
                            f"element of type {type(t).__name__} at pos {i}")
    ins, out = _explicit(equation, [t._data.shape for t in operands])
    sizes = {}
    for k, (i, t) in enumerate(zip(ins, operands)):
        own = {}
        for d, (c, n) in enumerate(zip(i, t._data.shape)):
            if c in own:
                if n != own[c]:
                    raise RuntimeError(f"einsum(): subscript {c} is repeated for operand {k} but "
                                       f"the sizes don't match, {n} != {own[c]}")
                continue
            own[c] = n
            if c in sizes and n != sizes[c] and n != 1 and sizes[c] != 1:
                if c not in equation:   # a letter _explicit gave a dim of the ellipsis
                    raise RuntimeError(f"einsum(): dimension {d} covered by ellipsis in operand "
                                       f"{k}has size {n} which does not broadcast with "
                                       f"previously seen ellipsis with size {sizes[c]} for "
                                       "the respective dimension")
                raise RuntimeError(f"einsum(): subscript {c} has size {n} for operand {k} which "
                                   f"does not broadcast with previously seen size {sizes[c]}")
            sizes[c] = n if c not in sizes or sizes[c] == 1 else sizes[c]
    if any(len(set(i)) != len(i) for i in ins):
        return _einsum_diagonals(ins, out, operands)
    if len(operands) > 1:
        # an operand PyTorch sums over a label before multiplying is accumulated in int64
        # when it holds integers or bools (its ``sum``); such an operand needs no gradient
        operands = tuple(t.to(_dt.int64) if first and t._data.dtype.kind in "biu" else t
                         for t, first in zip(operands, _summed_first(ins, out, operands)))
    if len(operands) > 1:
        _check_contractions(ins, out, operands, equation)
    if len(operands) > 1:
        # no subscript summed away: PyTorch ends in a broadcast multiply
        kind = "mul" if set("".join(ins)) <= set(out) else "view"
    else:
        kind = "sum" if len(out) < len(set(ins[0])) else "permute"
    rec = _RECORDS[kind]
    result = rec.public(list(operands), equation, _saved_operands(ins, out, operands))
    # PyTorch's result is a view: of the operand for a permutation or diagonal, of a hidden
    # intermediate (bmm's output) for a contraction; an in-place change of it goes through
    # CopySlices (and, for the operand, changes it and bumps its version)
    if kind == "permute" and np.may_share_memory(result._data, operands[0]._data):
        _make_view(result, operands[0], None, rec)
    elif kind == "view":
        hidden = _wrap(result._data, result._grad_fn)
        hidden._requires_grad = result._requires_grad
        _make_view(result, hidden, None, rec)
    return result


def _saved_operands(ins, out, operands):
    """What the backward reads of each operand.

    PyTorch's einsum sums an operand over a label no other operand has (size 1 there)
    before multiplying, and its multiply saves that sum, not the operand: changing the
    operand in place afterwards is allowed and leaves the gradient as it was. The sums
    (kept dims, so the formula's subscripts still fit) are saved here likewise; the other
    operands are saved themselves, their versions checked at backward (dispatch's list path),
    so a gradient is never computed from values changed since (fuzz seed 159)."""
    if len(operands) < 2:
        return tuple(operands)
    return tuple(t.sum(d, keepdim=True) if d else t
                 for t, d in zip(operands, _first_sums(ins, out, operands)))


def _summed_first(ins, out, operands):
    """Per operand: does PyTorch's einsum sum it over some label before multiplying?"""
    return [bool(d) for d in _first_sums(ins, out, operands)]


def _first_sums(ins, out, operands):
    """Per operand, the dims PyTorch's einsum sums it over before multiplying (sorted).
    Left to right, a label not in the output is summed in the last operand where its size
    is not 1 if it is 1 in every operand before (in the first operand if it is 1 in every
    later one); otherwise it is contracted by a multiply (bmm)."""
    sizes = [dict(zip(spec, t._data.shape)) for spec, t in zip(ins, operands)]
    dims = [[] for _ in operands]
    for c in set("".join(ins)) - set(out):
        big = [k for k, own in enumerate(sizes) if own.get(c, 1) != 1]
        if len(big) == 1:
            dims[big[0]].append(ins[big[0]].index(c))
    return [tuple(sorted(d)) for d in dims]


def _einsum_diagonals(ins, out, operands):
    """A subscript repeated in one operand takes that operand's diagonal first, as PyTorch's
    einsum does (``diagonal`` of the first two places, the diagonal last: DiagonalBackward0
    under the einsum's node), then the einsum of the diagonals."""
    if len(set(out)) != len(out):
        c = next(c for c in out if out.count(c) > 1)
        raise RuntimeError(f"einsum(): output subscript {c} appears more than once in the "
                           "output")
    new_ins, new_ops = [], []
    for spec, t in zip(ins, operands):
        while len(set(spec)) != len(spec):
            c = next(c for c in spec if spec.count(c) > 1)
            p = spec.index(c)
            q = spec.index(c, p + 1)
            t = t.diagonal(0, p, q)    # (sizes checked by einsum)
            spec = spec[:p] + spec[p + 1:q] + spec[q + 1:] + c
        new_ins.append(spec)
        new_ops.append(t)
    return einsum(",".join(new_ins) + "->" + out, *new_ops)


def _check_contractions(ins, out, operands, equation):
    """PyTorch's einsum folds the operands left to right: a label summed in one operand only
    is summed beforehand, labels of size > 1 in both the running result and the next
    operand are contracted by ``bmm`` (which wants one dtype, and not bool), otherwise a
    broadcast multiply promotes the types. Raise bmm's errors where PyTorch's would."""
    from ..dtypes import from_numpy_dtype
    sizes = [dict(zip(spec, t._data.shape)) for spec, t in zip(ins, operands)]
    letters = set("".join(ins))
    ell = sorted((c for c in letters if c not in equation and c not in out),
                 key=_LETTERS.index)
    summed = sorted((c for c in letters if c not in out and c not in ell), key=_LETTERS.index)
    order = list(out) + ell + summed
    last = {c: max([k for k, own in enumerate(sizes) if own.get(c, 1) != 1], default=0)
            for c in ell + summed}
    res_size = dict(sizes[0])
    res_dtype = operands[0]._data.dtype
    for k in range(1, len(operands)):
        b, b_dtype = sizes[k], operands[k]._data.dtype
        kept = set(out) | {c for c in last if last[c] > k}
        if any(last[c] == k and res_size.get(c, 1) != 1 for c in last):
            a_dt, b_dt = res_dtype, b_dtype
            if _bmm_swapped(order, kept, res_size, b):
                a_dt, b_dt = b_dt, a_dt
            # bmm's kernel is chosen by its first operand's dtype before the two are compared
            if a_dt == np.bool_:
                from .pointwise_common import not_implemented_for
                raise not_implemented_for("bmm", a_dt)
            if a_dt != b_dt:
                raise RuntimeError(
                    f"expected scalar type {from_numpy_dtype(a_dt).tensor_type[:-6]} but "
                    f"found {from_numpy_dtype(b_dt).tensor_type[:-6]}")
        else:
            res_dtype = np.promote_types(res_dtype, b_dtype) if res_dtype != b_dtype else \
                res_dtype
        for c, n in b.items():
            if n != 1:
                res_size[c] = n


def _bmm_swapped(order, kept, size_a, size_b) -> bool:
    """Whether PyTorch's contraction of the running result with the next operand calls
    ``bmm(right, left)`` (the dtype error then names the right operand's type first). Its
    dims are laid out in ``order``: the output's, then the ellipsis's if summed, then the
    summed labels in letter order; the ones not contracted by the bmm are split into "lo"
    (size > 1 in the left operand only) and "ro" (the rest but size > 1 in both: the right's
    own, size-1 ones, and ones summed beforehand in one operand); the operands are swapped
    when every "ro" dim comes before every "lo" one (the rule observed on 1286 random
    two-operand contractions)."""
    lo, ro = [], []
    for p, c in enumerate(order):
        sl, sr = size_a.get(c, 1) != 1, size_b.get(c, 1) != 1
        if c not in kept:
            if sl and sr:
                continue           # contracted by the bmm
            sl = sr = False        # summed beforehand (or of size 1)
        if sl and not sr:
            lo.append(p)
        elif not sl:
            ro.append(p)
    return bool(lo and ro) and max(ro) < min(lo)


export_function("einsum", einsum)
