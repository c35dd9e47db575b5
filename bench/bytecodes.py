"""Bytecodes executed per W2 program and per W3 step, by phase and by function.

``python -m bench.bytecodes [--top N]`` (with ``LEAFGRAD_SRC`` or ``PYTHONPATH`` choosing
leafgrad's source). Counts are ``sys.settrace`` opcode events: deterministic, so they
compare two versions of the hot path on a machine too busy for wall-clock timings
(C time, NumPy's included, is not counted; see the README's profile notes).
"""
from __future__ import annotations

import argparse
import collections
import sys

import numpy as np

from . import chains, libs, mlp, workloads


class Counter:
    """Counts opcode events per (file, function) while switched on."""

    def __init__(self):
        self.counts = collections.Counter()

    def _trace(self, frame, event, arg):
        frame.f_trace_opcodes = True
        if event == "opcode":
            code = frame.f_code
            self.counts[(code.co_filename, code.co_name)] += 1
        return self._trace

    def __enter__(self):
        sys.settrace(self._trace)
        return self

    def __exit__(self, *exc):
        sys.settrace(None)

    def total(self, own_only=True) -> int:
        return sum(n for (f, _), n in self.counts.items()
                   if not own_only or not f.endswith("bytecodes.py"))


def _top(counter, n):
    out = []
    for (f, name), k in counter.counts.most_common(n):
        out.append(f"    {k:8d}  {name}  ({f.rsplit('/src/', 1)[-1]})")
    return "\n".join(out)


def w2_program(lib, top):
    x = lib.tensor(np.array([0.5], np.float32), requires_grad=True)
    mul, add = chains.W2_CONSTS

    def program():
        x.grad = None
        total = chains._chain_lib(x, chains.W2_OPS, mul, add).sum()
        total.backward()

    for _ in range(5):
        program()
    fwd, bwd = Counter(), Counter()
    with fwd:
        x.grad = None
        total = chains._chain_lib(x, chains.W2_OPS, mul, add).sum()
    with bwd:
        total.backward()
    print(f"W2 program (100 ops + sum + backward): {fwd.total() + bwd.total()} bytecodes "
          f"(forward {fwd.total()}, backward {bwd.total()})")
    if top:
        print("  forward:\n" + _top(fwd, top) + "\n  backward:\n" + _top(bwd, top))


def w3_step(lib, top, steps=5):
    data = mlp.make_data(workloads.W3_SIZES, workloads.W3_BATCH)
    step, params = mlp._lib_nn(lib, data)
    for _ in range(5):
        step()
    # the same step as mlp._lib_nn's, cut into phases
    cell = step.__closure__
    env = {name: c.cell_contents for name, c in zip(step.__code__.co_freevars, cell)}
    layers, x, y, opt = env["layers"], env["x"], env["y"], env["opt"]
    ce, last = env["cross_entropy"], env["last"]
    phases = {k: Counter() for k in ("forward", "backward", "step", "zero_grad")}
    for _ in range(steps):
        with phases["forward"]:
            h = x
            for i, layer in enumerate(layers):
                h = layer(h)
                if i < last:
                    h = lib.relu(h)
            loss = ce(h, y)
        with phases["backward"]:
            loss.backward()
        with phases["step"]:
            opt.step()
        with phases["zero_grad"]:
            opt.zero_grad()
    per = {k: round(c.total() / steps) for k, c in phases.items()}
    print(f"W3 step: {sum(per.values())} bytecodes ("
          + ", ".join(f"{k} {v}" for k, v in per.items()) + ")")
    if top:
        for k, c in phases.items():
            print(f"  {k} ({steps} steps):\n" + _top(c, top))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--top", type=int, default=0, help="show the N costliest functions")
    ap.add_argument("--only", default="W2,W3")
    args = ap.parse_args(argv)
    lib = libs.load_leafgrad()
    print("leafgrad from", lib.__file__)
    if "W2" in args.only:
        w2_program(lib, args.top)
    if "W3" in args.only:
        w3_step(lib, args.top)


if __name__ == "__main__":
    main()
