"""Random autograd programs: a Hypothesis strategy, an interpreter, and a trace comparer.

A :class:`Program` is plain data: the leaves (shape, dtype, ``requires_grad``, data seed), the
steps (an op from ``ops_table.OPS``, a choice seed, whether it runs under ``no_grad``) and an
ending (``backward`` or ``autograd.grad`` with their options). :func:`run_program` interprets
it on one library and returns a trace; :func:`compare` returns the first difference between
the leafgrad trace and the torch trace, or None. ``repr(program)`` reproduces a failure:

>>> from tests.fuzz.programs import *   # doctest: +SKIP
>>> check(Program(leaves=[...], steps=[...], ending=...))   # doctest: +SKIP
"""
from __future__ import annotations

import math
import random
import warnings
from dataclasses import dataclass, field

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from .ops_table import OPS, Choices

__all__ = ["Leaf", "Step", "Ending", "Program", "programs", "sample_program", "run_program", "compare", "check",
           "difference", "oracle_failed", "Mismatch"]

DTYPES = ["float32", "float32", "float32", "float64", "float64", "int64", "bool", "float16"]


@dataclass
class Leaf:
    shape: tuple
    dtype: str
    requires_grad: bool
    seed: int
    scale: float = 1.0


@dataclass
class Step:
    op: str
    seed: int
    no_grad: bool = False


@dataclass
class Ending:
    kind: str = "backward"        # "none", "backward" or "grad"
    seed: int = 0
    retain_graph: bool | None = None
    create_graph: bool = False
    twice: bool = False
    allow_unused: bool | None = None
    give_gradient: bool = True


@dataclass
class Program:
    leaves: list
    steps: list
    ending: Ending = field(default_factory=Ending)


# -- the strategy -------------------------------------------------------------------------------
_OP_NAMES = sorted(OPS)
_OP_WEIGHTED = [n for n in _OP_NAMES for _ in range(max(1, round(OPS[n].weight * 4)))]


@st.composite
def programs(draw, max_steps=8):
    """Programs over 1-4 leaves with mutually broadcastable shapes and up to max_steps ops."""
    n_leaves = draw(st.integers(1, 4))
    side = st.sampled_from([1, 1, 2, 2, 3, 3, 4] * 3 + [0])
    base = tuple(draw(st.lists(side, min_size=0, max_size=3)))
    shapes = draw(hnp.mutually_broadcastable_shapes(num_shapes=n_leaves, base_shape=base,
                                                     min_side=1, max_side=4))
    leaves = []
    for shape in shapes.input_shapes:
        dtype = draw(st.sampled_from(DTYPES))
        rg = dtype.startswith("float") and draw(st.booleans() | st.just(True))
        leaves.append(Leaf(tuple(shape), dtype, rg, draw(st.integers(0, 2**16)),
                           draw(st.sampled_from([1.0, 1.0, 1.0, 0.1, 3.0]))))
    steps = draw(st.lists(
        st.builds(Step, st.sampled_from(_OP_WEIGHTED), st.integers(0, 2**16),
                  st.sampled_from([False] * 9 + [True])),
        min_size=1, max_size=max_steps))
    ending = draw(st.builds(
        Ending, st.sampled_from(["none", "backward", "backward", "grad", "grad"]),
        st.integers(0, 2**16), st.sampled_from([None, True, False]),
        st.sampled_from([False, False, True]), st.sampled_from([False, False, True]),
        st.sampled_from([None, True, False]), st.sampled_from([True, True, False])))
    return Program(leaves, steps, ending)


def sample_program(seed: int, max_steps: int = 8) -> Program:
    """One program drawn from ``random.Random(seed)`` with the shapes and weights of
    :func:`programs`: the same program for the same seed wherever it runs. CI's fuzz test
    uses it because a Hypothesis draw, even derandomized, came out differently inside the
    whole test suite than in ``tests/fuzz`` alone (CI then met programs no local run had)."""
    r = random.Random(seed)
    sides = [1, 1, 2, 2, 3, 3, 4] * 3 + [0]
    result = [r.choice(sides) for _ in range(r.randint(0, 3))]
    leaves = []
    for _ in range(r.randint(1, 4)):
        k = r.randint(0, len(result))
        shape = tuple(1 if r.random() < 0.25 else d for d in result[len(result) - k:])
        dtype = r.choice(DTYPES)
        rg = dtype.startswith("float") and r.random() < 0.75
        leaves.append(Leaf(shape, dtype, rg, r.randint(0, 2**16),
                           r.choice([1.0, 1.0, 1.0, 0.1, 3.0])))
    steps = [Step(r.choice(_OP_WEIGHTED), r.randint(0, 2**16), r.random() < 0.1)
             for _ in range(r.randint(1, max_steps))]
    ending = Ending(r.choice(["none", "backward", "backward", "grad", "grad"]),
                    r.randint(0, 2**16), r.choice([None, True, False]),
                    r.choice([False, False, True]), r.choice([False, False, True]),
                    r.choice([None, True, False]), r.choice([True, True, False]))
    return Program(leaves, steps, ending)


# -- the interpreter ----------------------------------------------------------------------------
def _make_leaf(L, leaf):
    rng = np.random.default_rng(leaf.seed)
    if leaf.dtype == "bool":
        arr = rng.random(leaf.shape) > 0.5
    elif leaf.dtype == "int64":
        arr = rng.integers(-4, 5, size=leaf.shape)
    else:
        arr = rng.standard_normal(leaf.shape) * leaf.scale
    arr = np.asarray(arr).astype(leaf.dtype)
    return L.tensor(arr, dtype=getattr(L, leaf.dtype), requires_grad=leaf.requires_grad)


def _is_float(x):
    return x.dtype.is_floating_point


_WANT = {
    None: lambda L, x: True,
    "float": lambda L, x: _is_float(x),
    "intbool": lambda L, x: not _is_float(x),
}


def _select(L, r, env, want, inplace):
    """Pick an input: most often the newest value, else any (filtered by ``want``)."""
    pool = [x for x in env if _WANT[want](L, x)] or env
    if inplace and r.flip(0.85):
        # (torch refuses to read is_leaf of a view made under no_grad whose base changed in
        # place since: such a tensor is left out, on both sides)
        pool = [x for x in pool
                if _read(lambda: not x.is_leaf or not x.requires_grad) is True] or pool
    if r.flip(0.5):
        return pool[-1]
    return pool[r.int(0, len(pool) - 1)]


def _obs_grad(L, g):
    """A gradient's observation, without ``_version``: PyTorch's kernels may build a gradient
    in place before handing it over, which is not part of the API."""
    return None if g is None else _obs_tensor(L, g)[:6] + (None,) + _obs_tensor(L, g)[7:]


def _read(fn):
    """An attribute read; torch raises on some (``grad_fn`` of a view whose base changed in
    place), and that error is an observation too."""
    try:
        return fn()
    except Exception as exc:   # noqa: BLE001
        return ("E", type(exc).__name__, str(exc)[:120])


def _obs_tensor(L, x):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fn = _read(lambda: x.grad_fn)
        name = fn if isinstance(fn, tuple) else None if fn is None else type(fn).__name__
        arr = x.detach().numpy(force=True)   # force: torch hands out ZeroTensor grads
        return ("T", str(x.dtype).replace("torch.", ""), tuple(x.shape), bool(x.requires_grad),
                _read(lambda: bool(x.is_leaf)), name, _read(lambda: x._version),
                np.array(arr, copy=True))


def _obs(L, value):
    if isinstance(value, L.Tensor):
        return _obs_tensor(L, value)
    if isinstance(value, (tuple, list)):
        return tuple(_obs(L, v) for v in value)
    if isinstance(value, BaseException):
        from oracle import clean_message
        # PyTorch appends its C++ stack to some messages ("\nException raised from ...")
        text = clean_message(str(value)).split("\nException raised from")[0]
        return ("E", type(value).__name__, text)
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return ("?", type(value).__name__)


# Outputs larger than this are observed but not offered to later steps: products grow as the
# square (outer, meshgrid, kron), so two in a row could ask for gigabytes (seed 27: a meshgrid
# of a meshgrid's 36,864-element output).
_ENV_NUMEL = 4096


def _add_outputs(L, env, value):
    if isinstance(value, L.Tensor):
        if value.numel() <= _ENV_NUMEL:
            env.append(value)
    elif isinstance(value, (tuple, list)):
        for v in value:
            _add_outputs(L, env, v)


def _run_step(L, env, step):
    r = Choices(step.seed)
    spec = OPS[step.op]
    xs = [_select(L, r, env, spec.want, spec.inplace) for _ in range(spec.arity)]
    try:
        if step.no_grad:
            with L.no_grad():
                out = spec.fn(L, r, *xs)
        else:
            out = spec.fn(L, r, *xs)
    except Exception as exc:   # noqa: BLE001 - errors are compared, not hidden
        return ("step", step.op, _obs(L, exc), r.log)
    obs = _obs(L, out)
    _add_outputs(L, env, out)
    return ("step", step.op, obs, r.log)


def _grads_of(L, env):
    """``.grad`` of every leaf and of every tensor that retains its grad."""
    out = []
    seen = set()
    for x in env:
        if id(x) in seen:
            continue
        seen.add(id(x))
        if _read(lambda: x.is_leaf or x.retains_grad) is True:
            out.append(_obs_grad(L, x.grad))
    return ("grads", out)


def _obs_grads(L, grads):
    if isinstance(grads, tuple):
        return tuple(_obs_grad(L, g) for g in grads)
    return _obs(L, grads)


def _seed_like(L, x, seed):
    arr = np.random.default_rng(seed).standard_normal(tuple(x.shape))
    return L.tensor(arr, dtype=x.dtype if _is_float(x) else L.float32)


def _catch(L, fn):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn()
    except Exception as exc:   # noqa: BLE001
        return exc


def _run_ending(L, env, ending, trace):
    if ending.kind == "none" or not env:
        return
    r = Choices(ending.seed)
    cands = [x for x in env if x.requires_grad] or env
    target = cands[-1] if r.flip(0.7) else cands[r.int(0, len(cands) - 1)]
    gradient = None
    if ending.give_gradient and (target.dim() > 0 or r.flip(0.3)):
        gradient = _seed_like(L, target, ending.seed)
    if ending.kind == "backward":
        call = lambda: target.backward(gradient, retain_graph=ending.retain_graph,  # noqa: E731
                                       create_graph=ending.create_graph)
        trace.append(("backward", _obs(L, _catch(L, call))))
        if ending.twice:
            trace.append(("backward2", _obs(L, _catch(L, call))))
        trace.append(_grads_of(L, env))
        return
    inputs = []
    for x in env:
        if r.flip(0.4) and all(x is not y for y in inputs):
            inputs.append(x)
    if not inputs:
        inputs = [env[0]]
    call = lambda: L.autograd.grad(target, inputs, gradient,  # noqa: E731
                                   retain_graph=ending.retain_graph,
                                   create_graph=ending.create_graph,
                                   allow_unused=ending.allow_unused)
    grads = _catch(L, call)
    trace.append(("grad", _obs_grads(L, grads)))
    if ending.twice:
        trace.append(("grad2", _obs_grads(L, _catch(L, call))))
    if ending.create_graph and isinstance(grads, tuple):
        pairs = [(g, x) for g, x in zip(grads, inputs) if g is not None and g.requires_grad]
        if pairs:
            def second():
                total = sum((g * _seed_like(L, g, ending.seed + 1)).sum() for g, _ in pairs)
                return L.autograd.grad(total, inputs, allow_unused=True)
            trace.append(("grad_grad", _obs_grads(L, _catch(L, second))))
    trace.append(_grads_of(L, env))


def run_program(L, program):
    """Run ``program`` on library ``L``; return its trace (a list of plain observations)."""
    trace = []
    env = []
    for leaf in program.leaves:
        try:
            env.append(_make_leaf(L, leaf))
        except Exception as exc:   # noqa: BLE001
            trace.append(("leaf", _obs(L, exc)))
    for step in program.steps:
        trace.append(_run_step(L, env, step))
    _run_ending(L, env, program.ending, trace)
    trace.append(("final", tuple(_obs_tensor(L, x) for x in env)))
    return trace


# -- comparing traces ---------------------------------------------------------------------------
class Mismatch(AssertionError):
    """The two libraries disagree; ``str`` says where and how."""


_TOL = {"float16": (2e-2, 2e-2), "float32": (2e-4, 2e-5), "float64": (1e-7, 1e-9)}
_FLOOR = [None]   # the narrowest float dtype among the program's leaves (set by difference)


def _close(a, b, dtype):
    if a.shape != b.shape:
        return False
    if a.dtype.kind not in "fc":
        return np.array_equal(a, b)
    rtol, atol = _TOL.get(dtype, (1e-7, 1e-9))
    if _FLOOR[0] is not None:
        # values that went through a float16/float32 step carry its rounding into wider results
        rtol, atol = max(rtol, _TOL[_FLOOR[0]][0]), max(atol, _TOL[_FLOOR[0]][1])
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    finite = np.isfinite(b64)
    scale = max(1.0, float(np.max(np.abs(b64[finite]))) if finite.any() else 1.0)
    return bool(np.allclose(a64, b64, rtol=rtol, atol=atol * scale, equal_nan=True))


def _diff(a, b, path):
    """The first difference between observations ``a`` (leafgrad) and ``b`` (torch)."""
    if isinstance(b, tuple) and b and b[0] == "T":
        if not (isinstance(a, tuple) and a and a[0] == "T"):
            return f"{path}: {_short(a)} != {_short(b)}"
        names = ["kind", "dtype", "shape", "requires_grad", "is_leaf", "grad_fn", "_version"]
        for i, name in enumerate(names):
            if a[i] != b[i]:
                return f"{path}.{name}: leafgrad {a[i]!r} != torch {b[i]!r}"
        if not _close(a[7], b[7], b[1]):
            return f"{path}.values:\nleafgrad {a[7]!r}\ntorch    {b[7]!r}"
        return None
    if _is_error(a) != _is_error(b):
        # one raised: put the exception text first so the first line says what happened
        err, who = (a, "leafgrad") if _is_error(a) else (b, "torch")
        return f"{path}: only {who} raised {err!r}; leafgrad {_short(a)} torch {_short(b)}"
    if isinstance(b, (tuple, list)) and isinstance(a, (tuple, list)):
        if len(a) != len(b):
            return f"{path}: length {len(a)} != {len(b)}: {_short(a)} vs {_short(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            d = _diff(x, y, f"{path}[{i}]")
            if d:
                return d
        return None
    if isinstance(b, float) and isinstance(a, float):
        return None if (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-5) \
            else f"{path}: {a} != {b}"
    if a != b:
        return f"{path}: leafgrad {_short(a)} != torch {_short(b)}"
    return None


def _is_error(v):
    return isinstance(v, tuple) and len(v) == 3 and v[0] == "E"


def _short(v):
    text = repr(v)
    return text if len(text) < 600 else text[:600] + "..."


def compare(mine, theirs):
    """The first difference between two traces (a string), or None. A difference where torch's
    observation is one of its internal assert failures starts with :data:`ORACLE_FAILED`."""
    if len(mine) != len(theirs):
        return f"trace lengths {len(mine)} != {len(theirs)}"
    for i, (a, b) in enumerate(zip(mine, theirs)):
        d = _diff(a, b, f"trace[{i}]")
        if d:
            return ORACLE_FAILED + d if _INTERNAL_ASSERT in repr(b) else d
    return None


# Note [Torch internal asserts]: an "INTERNAL ASSERT FAILED ... please report a bug to PyTorch"
# is PyTorch saying that its own code reached a state its authors hold impossible: a bug in the
# oracle, not a behaviour to copy (its text names a build path and a C++ line). Seen: an integer
# tensor that requires grad (masked_fill_ of an int64 tensor with a 0-d float value that requires
# grad; PyTorch lets it record) gets a gradient, and the engine asserts
# isDifferentiableType(grad.scalar_type()) (engine.cpp:998; seeds 79 and 107). From that entry on
# there is no oracle, so such a program is neither a pass nor a mismatch: the campaign counts and
# prints these apart (--strict too) and check() lets them pass. Only the FIRST difference
# decides: everything before it was compared and agreed; a program that differs earlier, or whose
# first difference is not torch's internal assert, stays a mismatch.
_INTERNAL_ASSERT = "INTERNAL ASSERT FAILED"
ORACLE_FAILED = "torch internal assert (no oracle): "


def oracle_failed(diff: str) -> bool:
    """Whether ``diff`` (from :func:`difference`) is torch failing an internal assert."""
    return diff.startswith(ORACLE_FAILED)


# Differences already reported (tests/fuzz/README in the issue 8 report), each a regex on the
# first line of a difference. check() lets them pass so that CI catches new ones; the campaign
# (python -m tests.fuzz) counts them apart.
KNOWN = [
    # what leafgrad deliberately leaves out raises NotImplementedError naming leafgrad
    # (e.g. the gradient of scatter_reduce(reduce="prod") with zeros in self or src)
    (r"only leafgrad raised \('E', 'NotImplementedError', 'leafgrad", "not implemented on purpose"),
    # (torch's internal asserts are not listed here: see Note [Torch internal asserts])
]


def known(diff: str):
    """The reason a difference is already known, or None."""
    import re
    first = diff.splitlines()[0]
    for pattern, reason in KNOWN:
        if re.search(pattern, first):
            return reason
    return None


def difference(program):
    """Run ``program`` on torch and on leafgrad; the first difference (a string) or None.
    A crash of the interpreter itself under leafgrad is a difference too."""
    import torch

    import leafgrad
    theirs = run_program(torch, program)
    try:
        mine = run_program(leafgrad, program)
    except Exception as exc:   # noqa: BLE001 - an interpreter crash is a finding too
        return f"leafgrad crashed outside an op: {exc!r}"
    # the narrowest float among the leaves: a float64 result computed from float32 values
    # carries their rounding, and float32 exp/log/... differ from PyTorch's in the last bit
    # (its vectorized kernels are not NumPy's), so wider results get the narrower tolerance
    # (and among the values the steps made: an integer leaf's cos is float32, seed 117)
    dtypes = {leaf.dtype for leaf in program.leaves} | _trace_dtypes(theirs)
    _FLOOR[0] = next((d for d in ("float16", "float32") if d in dtypes), None)
    try:
        return compare(mine, theirs)
    finally:
        _FLOOR[0] = None


def _trace_dtypes(trace, out=None) -> set:
    """The dtypes of the tensors a trace observed (``('T', dtype, ...)`` entries)."""
    out = set() if out is None else out
    if isinstance(trace, (tuple, list)):
        if len(trace) > 1 and trace[0] == "T" and isinstance(trace[1], str):
            out.add(trace[1])
        else:
            for item in trace:
                _trace_dtypes(item, out)
    return out


def check(program, allow_known=True):
    """Run on both libraries; raise :class:`Mismatch` on the first (new) difference."""
    d = difference(program)
    if d and not oracle_failed(d) and not (allow_known and known(d)):
        raise Mismatch(f"{d}\nprogram: {program!r}")
