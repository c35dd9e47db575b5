"""``torch.return_types``: the named tuples that ``max(dim)``, ``min(dim)``, ``median(dim)``...
return. They are tuples (unpack, index) with named fields, and print like PyTorch's.

>>> import leafgrad as torch
>>> torch.tensor([[1.0, 5.0], [7.0, 2.0]]).max(1)
torch.return_types.max(
values=tensor([5., 7.]),
indices=tensor([1, 0]))
"""
from __future__ import annotations

__all__ = ["max", "min", "median", "mode", "sort", "topk", "kthvalue", "aminmax", "cummax",
           "cummin", "var_mean", "std_mean"]


def _make(name: str, fields: tuple) -> type:
    """A tuple subclass named ``torch.return_types.<name>`` with ``fields`` as attributes."""

    def __new__(cls, values):
        values = tuple(values)
        if len(values) != len(fields):
            raise TypeError(f"torch.return_types.{name} takes a {len(fields)}-sequence "
                            f"({len(values)}-sequence given)")
        return tuple.__new__(cls, values)

    def __repr__(self):
        body = ",\n".join(f"{f}={v!r}" for f, v in zip(fields, self))
        return f"torch.return_types.{name}(\n{body})"

    def __reduce__(self):
        return (type(self), (tuple(self),))

    ns = {"__new__": __new__, "__repr__": __repr__, "__str__": __repr__,
          "__reduce__": __reduce__, "__slots__": (), "n_fields": len(fields),
          "n_sequence_fields": len(fields), "_fields": fields,
          "__module__": "torch.return_types"}
    for i, f in enumerate(fields):
        ns[f] = property(lambda self, i=i: tuple.__getitem__(self, i))
    cls = type(name, (tuple,), ns)
    cls.__qualname__ = name
    return cls


max = _make("max", ("values", "indices"))
min = _make("min", ("values", "indices"))
median = _make("median", ("values", "indices"))
mode = _make("mode", ("values", "indices"))
sort = _make("sort", ("values", "indices"))
topk = _make("topk", ("values", "indices"))
kthvalue = _make("kthvalue", ("values", "indices"))
cummax = _make("cummax", ("values", "indices"))
cummin = _make("cummin", ("values", "indices"))
aminmax = _make("aminmax", ("min", "max"))
var_mean = tuple      # PyTorch returns plain tuples for these two
std_mean = tuple
