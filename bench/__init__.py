"""leafgrad's benchmark suite: the same workloads on leafgrad, PyTorch and a NumPy floor.

Run ``python -m bench`` from the repository root (``--help`` lists the options). Each workload
is written once against a module argument ``lib`` (``leafgrad`` or ``torch``) and once more as
hand-written NumPy with no autograd: the floor, the least work any NumPy-based engine could do.
All three get the same data; ``tests/test_bench_smoke.py`` checks that leafgrad's results equal
the floor's, so the timings compare equal work.

Modules:
    harness   -- ``Case`` (one implementation of one workload) and the alternating timer
    libs      -- loading leafgrad from this checkout and torch (optional), feature probes
    chains    -- W1 seed chain, W2 op overhead, W5 deep chain
    mlp       -- W3 small MLP step, W4 large MLP step
    conv      -- W6 conv step
    workloads -- the table of workloads, their sizes and units
    machine   -- machine description, import times
    cli       -- ``python -m bench``: options, tables, JSON, profiling
"""
