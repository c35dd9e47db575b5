"""Timing harness: one ``Case`` per (workload, implementation), timed in alternating rounds.

Why alternate: the machine is shared and its speed drifts (other processes, frequency). Timing
leafgrad, torch and numpy back to back inside each round, in a rotating order, exposes all three
to the same drift, and the per-round ratios (paired ratios) cancel most of it. We report the
median over rounds, which ignores the odd slow round.
"""
from __future__ import annotations

import gc
import statistics
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

IMPLS = ("leafgrad", "torch", "numpy")


@dataclass
class Case:
    """One implementation of one workload, set up and ready to time.

    run(n)   -- does n iterations of the workload (the timed code; its loop lives inside so a
                Python call per iteration is not part of what is measured).
    units    -- units of work per iteration (e.g. 100 for 100 ops), to report time per unit.
    result() -- NumPy arrays describing the state after the last run (loss, gradients,
                parameters): the smoke test compares leafgrad's with the floor's.
    variant  -- which code path ran (e.g. "nn" or "ops: matmul+log_softmax+gather").
    """

    run: Callable[[int], None]
    result: Callable[[], dict]
    units: int = 1
    variant: str = ""
    extra: dict = field(default_factory=dict)


@dataclass
class Timing:
    """Per-unit times (seconds) of one implementation, one sample per round."""

    samples: list = field(default_factory=list)
    error: str | None = None
    variant: str = ""

    @property
    def median(self) -> float | None:
        return statistics.median(self.samples) if self.samples else None


CLOCKS = {
    # wall time: what a user waits for; inflated when other processes share the cores
    "wall": time.perf_counter,
    # CPU time of this process (all its threads): steadier on a busy machine for single-threaded
    # work, but it adds up every BLAS / OpenMP thread (spinning ones included)
    "cpu": time.process_time,
}


def time_once(case: Case, n: int, clock: str = "wall") -> float:
    """Seconds per unit of work for n iterations of case (gc collected first, left enabled:
    collecting garbage is part of what an engine costs)."""
    now = CLOCKS[clock]
    gc.collect()
    start = now()
    case.run(n)
    elapsed = now() - start
    return elapsed / (n * case.units)


def alternate(cases: dict[str, Case], n: int, rounds: int, warmup: int,
              clock: str = "wall") -> dict[str, Timing]:
    """Warm every case up, then time them in `rounds` rounds with a rotating order.

    A case that raises is reported with its error and left out of later rounds.
    """
    timings = {name: Timing(variant=case.variant) for name, case in cases.items()}
    live = list(cases)
    for name in list(live):
        try:
            if warmup:
                cases[name].run(warmup)
        except Exception as exc:  # noqa: BLE001 - a failing implementation is a result, not a crash
            timings[name].error = describe_error(exc)
            live.remove(name)
    for r in range(rounds):
        order = live[r % len(live):] + live[:r % len(live)] if live else []
        for name in order:
            if timings[name].error:
                continue
            try:
                timings[name].samples.append(time_once(cases[name], n, clock))
            except Exception as exc:  # noqa: BLE001
                timings[name].error = describe_error(exc)
    return timings


def paired_ratio(num: Timing, den: Timing) -> float | None:
    """Median over rounds of num/den, pairing samples taken in the same round."""
    if num.error or den.error or not num.samples or not den.samples:
        return None
    return statistics.median(a / b for a, b in zip(num.samples, den.samples))


def describe_error(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}"
    return text if len(text) < 200 else text[:197] + "..."


# ---- memory ---------------------------------------------------------------------------------

def traced_peak(fn: Callable[[], Any]) -> int:
    """Peak bytes allocated through Python's allocators (NumPy's buffers included: NumPy
    reports them to tracemalloc) while fn runs, above what was allocated before it."""
    gc.collect()
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        fn()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak


def _status_kib(field_name: str) -> int | None:
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(field_name + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def rss_peak_delta(fn: Callable[[], Any]) -> int | None:
    """Peak resident-memory growth (bytes) while fn runs, or None where Linux cannot tell.

    Writing 5 to /proc/self/clear_refs resets the peak (VmHWM) to the current RSS, so
    VmHWM - VmRSS(before) is the peak growth. This sees torch's own allocator, which
    tracemalloc cannot; but memory the process already held and reuses does not count.
    """
    gc.collect()
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        return None
    before = _status_kib("VmRSS")
    fn()
    peak = _status_kib("VmHWM")
    if before is None or peak is None:
        return None
    return max(peak - before, 0) * 1024
