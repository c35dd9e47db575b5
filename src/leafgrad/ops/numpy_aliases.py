"""NumPy-style keyword aliases: ``axis=`` for ``dim=`` and ``keepdims=`` for ``keepdim=``.

PyTorch's argument parser accepts them on its native functions and Tensor methods
(``P.sum(1, keepdims=True)``, ``X.sum(axis=1)``, ``torch.cat([x, y], axis=0)``); passing an
alias together with the name it stands for is refused as an unexpected keyword.

Note [NumPy aliases at no cost]: a public function with a ``dim``/``keepdim`` parameter takes
``axis=NA``/``keepdims=NA`` as extra keyword-only parameters. CPython fills their defaults at
call time; the body tests ``axis is not NA`` (a few bytecodes) and only then leaves the normal
path for ``resolve``. A parameter ``dim`` without a default gets ``NA`` as default so that
``axis`` alone can name it; the body then tests ``dim is NA`` instead of ``axis is not NA``
(``axis`` without ``dim`` leaves ``dim`` at ``NA``)."""
from __future__ import annotations

__all__: list = []


class _NotAliased:
    """The default of an alias parameter: the caller did not pass it."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<not passed>"


NA = _NotAliased()

# PyTorch's numpy_compatibility_arg_names (python_arg_parser.cpp), for the two names
# leafgrad's signatures use.
ALIASES = {"dim": "axis", "keepdim": "keepdims"}


def resolve(name: str, names: tuple, defaults: dict, args: tuple, aliases: tuple) -> tuple:
    """``args`` (the values of ``names``, in order) with each passed alias moved onto the
    parameter it stands for. ``aliases``: (parameter name, alias value) pairs. Raises
    PyTorch's TypeError when the parameter was passed too (its value is not its default)."""
    out = list(args)
    first = next((p for p, v in aliases if v is not NA), None)
    for param, value in aliases:
        i = names.index(param)
        if value is NA:
            continue
        if out[i] is not defaults.get(param, NA):
            raise _unexpected(name, first)
        out[i] = value
    missing = [f"'{n}'" for n, v in zip(names, out) if v is NA]
    if missing:   # a required parameter left out (dim given neither way): Python's message
        listed = (", ".join(missing[:-1]) + f" and {missing[-1]}" if len(missing) > 1
                  else missing[0])
        raise TypeError(f"{name}() missing {len(missing)} required positional argument"
                        f"{'s' if len(missing) > 1 else ''}: {listed}")
    return tuple(out)


def dim_keepdim(name: str, dim, no_dim, keepdim, axis, keepdims) -> tuple:
    """For hand-written wrappers, once an alias was passed: ``(dim, keepdim)`` with ``axis``
    and ``keepdims`` moved on. ``no_dim``: ``dim``'s default (what "not passed" looks like);
    pass ``keepdim=False`` for a wrapper without keepdim."""
    first = "dim" if axis is not NA else "keepdim"
    if axis is not NA:
        if dim is not no_dim:
            raise _unexpected(name, first)
        dim = axis
    if keepdims is not NA:
        if keepdim is not False:
            raise _unexpected(name, first)
        keepdim = keepdims
    return dim, keepdim


def _unexpected(name: str, param: str) -> TypeError:
    # PyTorch's parser names the first keyword that is not a parameter's own name: the
    # first alias passed, whichever name was given twice
    return TypeError(f"{name}() got an unexpected keyword argument '{ALIASES[param]}'")
