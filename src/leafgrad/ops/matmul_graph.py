"""``matmul`` as PyTorch's composite records it, where a gradient is recorded (linalg.py's
``matmul`` calls it; without a graph the product is one np.matmul there)."""
from __future__ import annotations

import numpy as np

__all__ = ["matmul_graph"]


# Note [matmul's graph]
# Where a gradient is recorded, the cases of matmul beyond dot / mv / mm are PyTorch's
# composite (_matmul_impl in ATen's LinearAlgebra.cpp) op for op: a folded mm / mv between
# reshapes, or both operands expanded and reshaped to 3-D for one bmm, the product
# ``_unsafe_view``-ed back. Its graph is then PyTorch's node for node (``next_functions``,
# the nodes a create_graph gradient is built on, the saved tensors a second backward frees),
# not only its top node's name. Without a graph the product is one np.matmul (the records
# above, which name the top node as PyTorch's composite would).
def _should_fold_graph(t1, t2) -> bool:
    """PyTorch's should_fold (without ``out=``), on the tensors of this step."""
    d1, d2 = t1._data.ndim, t2._data.ndim
    larger_first = d1 >= d2
    big = t1._data if larger_first else np.swapaxes(t2._data, -1, -2)
    if not (big.ndim >= 3 and (d2 if larger_first else d1) <= 2):
        return False
    if (t2 if larger_first else t1)._requires_grad:
        return True
    if d1 == 2:
        return False
    if big.size == 0:
        return True
    item = big.itemsize
    st, sh = big.strides, big.shape
    return all(st[i] // item == st[i + 1] // item * sh[i + 1] for i in range(big.ndim - 2))


def matmul_graph(t1, t2):
    """``t1 @ t2`` as PyTorch's _matmul_impl records it (Note [matmul's graph])."""
    from .registry import RECORDS
    from .linalg import _bmm, _dot, _mm, _mv   # (linalg.py imports this module)
    unsafe_view = RECORDS["_unsafe_view"].public
    d1, d2 = t1._data.ndim, t2._data.ndim
    if d1 == 1 and d2 == 1:
        return _dot.public(t1, t2)
    if d1 == 2 and d2 == 1:
        return _mv.public(t1, t2)
    if d1 == 1 and d2 == 2:
        return _mm.public(t1.unsqueeze(0), t2).squeeze_(0)
    if d1 == 2 and d2 == 2:
        return _mm.public(t1, t2)
    if _should_fold_graph(t1, t2):
        transpose = d2 > d1
        a = t2.mT if transpose else t1
        b = (t1.t() if d1 == 2 else t1) if transpose else t2
        sizes = a._data.shape
        out_shape = tuple(sizes[:-1])
        folded = a.reshape(int(np.prod(out_shape)), sizes[-1])
        if b._data.ndim == 2:
            out = unsafe_view(_mm.public(folded, b), out_shape + (b._data.shape[1],))
            return out.mT.contiguous() if transpose else out
        return unsafe_view(_mv.public(folded, b), out_shape)
    s1, s2 = t1._data.shape, t2._data.shape
    n = s1[-2] if d1 > 1 else 1
    m1 = s1[-1]
    batch1 = s1[:max(d1 - 2, 0)]
    m2 = s2[-2] if d2 > 1 else s2[0]
    p = s2[-1] if d2 > 1 else 1
    batch2 = s2[:max(d2 - 2, 0)]
    if d1 == 3 and d2 == 3 and batch1[0] != batch2[0]:
        if batch1[0] == 1 and t1._requires_grad:
            return matmul_graph(t1.squeeze(0), t2)
        if batch2[0] == 1 and t2._requires_grad:
            return matmul_graph(t1, t2.squeeze(0))
    batch = tuple(np.broadcast_shapes(batch1, batch2))
    count = int(np.prod(batch))
    e1 = t1.expand(batch + (n, m1)).reshape(count, n, m1)
    vector_rhs = d2 == 1
    if vector_rhs:
        e2 = t2.expand(batch + (m2,)).reshape(count, m2).unsqueeze(2)
    else:
        e2 = t2.expand(batch + (m2, p)).reshape(count, m2, p)
    out_shape = batch + ((n,) if d1 > 1 else ()) + ((p,) if d2 > 1 else ())
    out = _bmm.public(e1, e2)
    if out._data.dtype != e2._data.dtype:
        # mixed dtypes reach here only for an empty product: PyTorch's bmm returns zeros of
        # batch2's dtype before its kernel checks dtypes (BmmBackward0 on the operands as
        # they are: no cast node)
        out._data = out._data.astype(e2._data.dtype)
    return unsafe_view(out.squeeze(-1) if vector_rhs else out, out_shape)
