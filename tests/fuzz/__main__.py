"""``python -m tests.fuzz --examples N``: a fuzzing campaign, leafgrad against torch.

Mismatches are grouped by their first line (where and what differs) so that one bug found by
many programs is reported once, with its smallest program.
"""
from __future__ import annotations

import argparse
import sys
import time
import warnings

from . import programs as _programs  # noqa: F401  (sets sys.path for leafgrad and oracle)


def _group_key(diff: str) -> str:
    """What a mismatch is about, without where in the trace or the values."""
    import re
    first = diff.splitlines()[0]
    first = re.sub(r"trace\[\d+\]", "", first)
    first = re.sub(r"array\(.*", "", first)
    first = re.sub(r"\d+", "N", first)
    return first[:200]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.fuzz")
    parser.add_argument("--examples", type=int, default=500)
    parser.add_argument("--max-steps", type=int, default=8)
    parser.add_argument("--seed", type=int, default=None, help="Hypothesis seed")
    parser.add_argument("--show", type=int, default=40, help="mismatch groups to print")
    parser.add_argument("--strict", action="store_true",
                        help="report known (listed) differences as mismatches too")
    parser.add_argument("--log", default=None,
                        help="append each program to this file before running it (to find "
                             "one that crashes or exhausts memory)")
    args = parser.parse_args(argv)

    import torch
    from hypothesis import HealthCheck, Phase, given, seed, settings

    from .programs import difference, known, oracle_failed, programs

    torch.set_num_threads(1)
    import leafgrad
    leafgrad.set_num_threads(1)   # both sides alike: some messages follow the thread count
    warnings.simplefilter("ignore")
    groups: dict = {}
    log = open(args.log, "a") if args.log else None
    count = [0]
    known_count = [0]
    no_oracle = []   # Note [Torch internal asserts] in programs.py: counted apart, even --strict

    @settings(max_examples=args.examples, deadline=None, database=None,
              phases=[Phase.generate], suppress_health_check=list(HealthCheck))
    @given(programs(max_steps=args.max_steps))
    def campaign(program):
        count[0] += 1
        if log is not None:
            log.write(f"{count[0]}: {program!r}\n")
            log.flush()
        d = difference(program)
        if d and oracle_failed(d):
            no_oracle.append((program, d))
        elif d and not args.strict and known(d):
            known_count[0] += 1
        elif d:
            key = _group_key(d)
            size = len(program.steps)
            if key not in groups or size < len(groups[key][1].steps):
                groups[key] = (groups.get(key, (0,))[0] + 1, program, d)
            else:
                groups[key] = (groups[key][0] + 1,) + groups[key][1:]

    if args.seed is not None:
        campaign = seed(args.seed)(campaign)
    start = time.time()
    campaign()
    n_bad = sum(g[0] for g in groups.values())
    print(f"{count[0]} programs in {time.time() - start:.0f}s: {n_bad} mismatching, "
          f"{len(groups)} distinct; {known_count[0]} more with known (reported) differences; "
          f"{len(no_oracle)} where torch failed an internal assert (no oracle)")
    for key, (n, program, d) in sorted(groups.items(), key=lambda kv: -kv[1][0])[:args.show]:
        print(f"\n=== x{n}: {d}\n    {program!r}")
    for program, d in no_oracle[:args.show]:
        # not "=== x": tools that read the mismatches (triage) skip these
        print(f"\n--- no oracle: {d.splitlines()[0][:400]}\n    {program!r}")
    return 1 if groups else 0


if __name__ == "__main__":
    sys.exit(main())
