"""``python -m bench``: run the workloads, print a table, optionally write JSON or profile."""
from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import statistics
import sys
import time

from . import machine
from .harness import IMPLS, alternate, describe_error, paired_ratio, rss_peak_delta, traced_peak
from .libs import TORCH_THREADS, load_leafgrad, load_torch
from .workloads import WORKLOADS, build_case

IMPORT = "import"


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="python -m bench",
        description="Time leafgrad against PyTorch and a hand-written NumPy floor.")
    p.add_argument("--quick", action="store_true",
                   help="tiny repeat counts (a smoke run, not a measurement)")
    p.add_argument("--only", metavar="W1,W3",
                   help=f"comma-separated workloads out of {','.join(WORKLOADS)},{IMPORT}")
    p.add_argument("--impls", metavar="leafgrad,torch,numpy", default=",".join(IMPLS),
                   help="implementations to run (default: all three)")
    p.add_argument("--torch-threads", type=int, default=TORCH_THREADS, metavar="N",
                   help=f"torch.set_num_threads(N) (default {TORCH_THREADS})")
    p.add_argument("--clock", choices=["wall", "cpu"], default="wall",
                   help="wall time (default) or this process's CPU time, steadier on a busy "
                        "machine for single-threaded work")
    p.add_argument("--rounds", type=int, help="override the number of alternating rounds")
    p.add_argument("--json", metavar="PATH", help="write all results and samples as JSON")
    p.add_argument("--profile", metavar="W",
                   help="run cProfile over leafgrad's run of one workload; print the top 25 "
                        "functions by tottime, then exit")
    args = p.parse_args(argv)
    names = [n.strip() for n in args.only.split(",")] if args.only else [*WORKLOADS, IMPORT]
    unknown = [n for n in names if n not in WORKLOADS and n != IMPORT]
    if unknown:
        p.error(f"unknown workload(s): {', '.join(unknown)}")
    impls = [i.strip() for i in args.impls.split(",")]
    if any(i not in IMPLS for i in impls) or "leafgrad" not in impls:
        p.error(f"--impls takes names from {','.join(IMPLS)} and must include leafgrad")
    if args.profile and args.profile not in WORKLOADS:
        p.error(f"--profile takes one of {', '.join(WORKLOADS)}")
    args.names, args.impl_list = names, impls
    return args


# ---- formatting -----------------------------------------------------------------------------

def fmt(value, suffix=""):
    if value is None:
        return "n/a"
    if value >= 100:
        text = f"{value:.0f}"
    elif value >= 10:
        text = f"{value:.1f}"
    elif value >= 1:
        text = f"{value:.2f}"
    else:
        text = f"{value:.3f}"
    return text + suffix


def mib(nbytes):
    return None if nbytes is None else nbytes / 2**20


def print_machine(info):
    print("machine : {cpu}; {cores} cores ({cores_usable} usable); load {loadavg_at_start}"
          .format(**info))
    print(f"python  : {info['python']}; numpy {info['numpy']} [{info['numpy_blas']}]")
    torch_text = (f"{info['torch']} with {info['torch_threads']} threads"
                  if info["torch"] else "not importable")
    print(f"torch   : {torch_text}; recursion limit {info['recursion_limit']}")
    env = ", ".join(f"{k}={v}" for k, v in info["env"].items() if v is not None)
    print(f"env     : {env or '(no BLAS/thread variables set)'}")
    print()


def print_table(results, impls):
    head = ["workload", "unit", *impls]
    if "torch" in impls:
        head.append("lg/torch")
    if "numpy" in impls:
        head.append("lg/numpy")
    head.append("variant / note")
    rows = []
    for name, res in results.items():
        row = [f"{name} {res['title']}", res["unit"]]
        if res.get("skipped"):
            row += ["-"] * (len(head) - 3) + [f"skipped: {res['skipped']}"]
            rows.append(row)
            continue
        notes = [res.get("variant") or ""]
        for impl in impls:
            r = res["impls"].get(impl, {})
            row.append(fmt(r.get("median")) if not r.get("error") else "error")
            if r.get("error"):
                notes.append(f"{impl}: {r['error']}")
        for other in ("torch", "numpy"):
            if other in impls:
                row.append(fmt(res["ratios"].get(other), "x"))
        row.append("; ".join(n for n in notes if n))
        rows.append(row)
    widths = [max(len(str(r[i])) for r in [head, *rows]) for i in range(len(head) - 1)]
    for r in [head, *rows]:
        cells = [str(c).ljust(w) if i < 2 else str(c).rjust(w)
                 for i, (c, w) in enumerate(zip(r, widths))]
        print(("  ".join(cells) + "  " + r[-1]).rstrip())


# ---- running --------------------------------------------------------------------------------

def run_workload(workload, libs, impls, quick, rounds_override, clock="wall"):
    sizes = workload.quick if quick else workload.full
    rounds = rounds_override or sizes.rounds
    res = {"title": workload.title, "unit": workload.unit, "n": sizes.n, "rounds": rounds,
           "warmup": sizes.warmup, "impls": {}, "ratios": {}}
    try:
        plan = workload.prepare(libs["leafgrad"])
    except Exception as exc:  # noqa: BLE001
        res["skipped"] = "cannot plan on leafgrad: " + describe_error(exc)
        return res
    if plan[2]:
        res["skipped"] = plan[2]
        return res
    res["variant"] = plan[0]
    cases, build_errors = {}, {}
    for impl in impls:
        if impl != "numpy" and libs.get(impl) is None:
            build_errors[impl] = "not importable"
            continue
        try:
            cases[impl] = build_case(workload, impl, libs.get(impl), plan)
        except Exception as exc:  # noqa: BLE001
            build_errors[impl] = describe_error(exc)
    timings = alternate(cases, sizes.n, rounds, sizes.warmup, clock)
    for impl in impls:
        if impl in build_errors:
            res["impls"][impl] = {"error": build_errors[impl]}
            continue
        t = timings[impl]
        res["impls"][impl] = {
            "median": t.median * workload.scale if t.median is not None else None,
            "samples": [s * workload.scale for s in t.samples],
            "error": t.error,
        }
    for other in ("torch", "numpy"):
        if "leafgrad" in timings and other in timings:
            res["ratios"][other] = paired_ratio(timings["leafgrad"], timings[other])
    if workload.measure_memory:
        res["memory"] = measure_memory(cases, timings)
    return res


def measure_memory(cases, timings):
    """Peak memory of one extra (untimed) step per implementation, in MiB."""
    memory = {}
    for impl, case in cases.items():
        if timings[impl].error:
            continue
        step = case.extra["step"]
        entry = {"rss_peak_delta_mib": mib(rss_peak_delta(step))}
        # tracemalloc sees NumPy's buffers but not torch's allocator, so torch gets RSS only.
        entry["tracemalloc_peak_mib"] = mib(traced_peak(step)) if impl != "torch" else None
        memory[impl] = entry
    return memory


def run_imports(impls, quick, rounds=None, clock="wall"):
    """Import times in fresh interpreters, alternating the implementations round by round
    (so load changes hit them alike); medians in ms and paired ratios, as for workloads."""
    rounds = rounds or (1 if quick else 9)
    modules = {"leafgrad": "leafgrad", "torch": "torch", "numpy": "numpy"}
    for impl in impls:   # one untimed import each: file-system caches, bytecode
        machine.import_time(modules[impl])
    samples = {impl: [] for impl in impls}
    for r in range(rounds):
        order = impls[r % len(impls):] + impls[:r % len(impls)]
        for impl in order:
            samples[impl].append(machine.import_time(modules[impl], clock))
    medians, ratios = {}, {}
    for impl, values in samples.items():
        ok = [v * 1e3 for v in values if v is not None]
        medians[impl] = statistics.median(ok) if len(ok) == len(values) else None
    for other in ("torch", "numpy"):
        if other in impls and medians.get(other) and medians.get("leafgrad"):
            ratios[other] = statistics.median(
                a / b for a, b in zip(samples["leafgrad"], samples[other]))
    return medians, ratios, samples


def profile(workload, leafgrad, quick):
    sizes = workload.quick if quick else workload.full
    plan = workload.prepare(leafgrad)
    if plan[2]:
        print(f"{workload.name} skipped: {plan[2]}")
        return 1
    case = build_case(workload, "leafgrad", leafgrad, plan)
    case.run(sizes.warmup)
    profiler = cProfile.Profile()
    profiler.enable()
    case.run(sizes.n)
    profiler.disable()
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(25)
    print(f"cProfile of leafgrad on {workload.name} {workload.title}: {sizes.n} iteration(s)"
          + (f", variant {plan[0]}" if plan[0] else ""))
    print(out.getvalue())
    return 0


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        leafgrad = load_leafgrad()
    except Exception as exc:  # noqa: BLE001
        print(f"cannot import leafgrad: {describe_error(exc)}", file=sys.stderr)
        return 1
    if args.profile:
        return profile(WORKLOADS[args.profile], leafgrad, args.quick)
    torch = load_torch(args.torch_threads) if "torch" in args.impl_list else None
    libs = {"leafgrad": leafgrad, "torch": torch}
    info = machine.describe(torch)
    print_machine(info)

    results, started = {}, time.time()
    for name in args.names:
        if name == IMPORT:
            continue
        print(f"running {name} ...", file=sys.stderr, flush=True)
        results[name] = run_workload(WORKLOADS[name], libs, args.impl_list, args.quick,
                                     args.rounds, args.clock)
    imports = None
    if IMPORT in args.names:
        print("running import times ...", file=sys.stderr, flush=True)
        imports, ratios, samples = run_imports(args.impl_list, args.quick, args.rounds,
                                               args.clock)
        results["import"] = {"title": "time (fresh interpreter)", "unit": "ms", "impls": {
            impl: {"median": v, "samples": [s * 1e3 for s in samples[impl] if s is not None],
                   "error": None if v is not None else "import failed"}
            for impl, v in imports.items()}, "ratios": ratios,
            "variant": "leafgrad includes numpy's import; " + machine.bytecode_note()}

    print(f"{args.clock} clock; medians over alternating rounds; ratios are medians of"
          f" per-round ratios"
          f"{' (QUICK: not a measurement)' if args.quick else ''}")
    print_table(results, args.impl_list)
    for name, res in results.items():
        for impl, m in res.get("memory", {}).items():
            print(f"{name} peak memory, {impl}: tracemalloc {fmt(m['tracemalloc_peak_mib'], ' MiB')},"
                  f" RSS growth {fmt(m['rss_peak_delta_mib'], ' MiB')}")
    info["loadavg_at_end"] = [round(v, 2) for v in os.getloadavg()]
    print(f"total {time.time() - started:.0f} s; load average at end {info['loadavg_at_end']}"
          " (above the core count, every number is inflated: compare ratios)")

    if args.json:
        doc = {"machine": info, "quick": args.quick, "impls": args.impl_list,
               "clock": args.clock,
               "torch_threads_requested": args.torch_threads, "results": results}
        with open(args.json, "w") as f:
            json.dump(doc, f, indent=1)
    return 0
