"""The workloads: names, units, sizes, and how to build each implementation's Case.

``WORKLOADS`` maps a name (W1...) to a ``Workload``. ``Workload.prepare(leafgrad)`` decides,
once per run, the variant every implementation uses (or why the workload is skipped), so
leafgrad, torch and NumPy always do the same work.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from . import chains, conv, mlp
from .harness import Case


@dataclass(frozen=True)
class Sizes:
    n: int          # iterations per timed sample
    rounds: int     # samples per implementation (alternating rounds)
    warmup: int     # iterations run before timing


@dataclass(frozen=True)
class Workload:
    name: str
    title: str
    unit: str                 # what one reported number is
    scale: float              # seconds per unit -> reported unit
    full: Sizes
    quick: Sizes
    builder: Callable         # (impl, lib, plan) -> Case
    planner: Callable = None  # (leafgrad) -> plan: (variant label, choices, skip reason)
    measure_memory: bool = False

    def prepare(self, leafgrad) -> tuple:
        return self.planner(leafgrad) if self.planner else ("", None, None)

    def build(self, impl: str, lib, plan: tuple) -> Case:
        return self.builder(impl, lib, plan)


def _conv_plan(leafgrad):
    return ("nn", None, conv.skip_reason(leafgrad))


W3_SIZES, W3_BATCH = [784, 256, 10], 64
W4_SIZES, W4_BATCH = [2048, 2048, 2048, 10], 512

WORKLOADS = {
    w.name: w for w in [
        Workload("W1", "seed chain (w^2*3, backward)", "us/iter", 1e6,
                 Sizes(20_000, 5, 1_000), Sizes(50, 1, 5),
                 lambda impl, lib, plan: chains.build_w1(impl, lib)),
        Workload("W2", "op overhead (100 ops, 1 elem)", "us/op", 1e6,
                 Sizes(200, 5, 20), Sizes(2, 1, 1),
                 lambda impl, lib, plan: chains.build_w2(impl, lib)),
        Workload("W3", "small MLP step (64x784-256-10)", "ms/step", 1e3,
                 Sizes(20, 5, 3), Sizes(2, 1, 1),
                 lambda impl, lib, plan: mlp.build_mlp(impl, lib, W3_SIZES, W3_BATCH, plan),
                 planner=mlp.choose_variant),
        Workload("W4", "large MLP step (512x2048-2048-2048-10)", "ms/step", 1e3,
                 Sizes(2, 5, 1), Sizes(1, 1, 0),
                 lambda impl, lib, plan: mlp.build_mlp(impl, lib, W4_SIZES, W4_BATCH, plan),
                 planner=mlp.choose_variant, measure_memory=True),
        Workload("W5", "deep chain (10k ops, 1000 elem)", "ms/run", 1e3,
                 Sizes(1, 5, 1), Sizes(1, 1, 0),
                 lambda impl, lib, plan: chains.build_w5(impl, lib)),
        Workload("W6", "conv step (64x1x28x28, 2 conv)", "ms/step", 1e3,
                 Sizes(2, 5, 1), Sizes(1, 1, 0),
                 lambda impl, lib, plan: conv.build_w6(impl, lib),
                 planner=_conv_plan),
    ]
}


def build_case(workload: Workload, impl: str, lib, plan: tuple) -> Case:
    """The Case for impl ("leafgrad", "torch", "numpy"); lib is None for numpy."""
    return workload.build(impl, lib, plan)
