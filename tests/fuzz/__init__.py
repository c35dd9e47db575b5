"""Differential fuzzing of leafgrad against PyTorch 2.13 (issue 8).

A Hypothesis strategy draws random *programs* (leaves, a sequence of op steps, an ending that
runs ``backward`` or ``autograd.grad``); ``programs.run_program`` runs one on a library and
records a trace (values, dtypes, shapes, ``requires_grad``, ``is_leaf``, ``grad_fn`` names,
``_version`` counters, gradients, and exception types and texts); ``programs.compare`` finds the
first place where the two traces differ.

``python -m tests.fuzz --examples N`` runs a campaign from the repository root;
``tests/fuzz/test_fuzz.py`` runs a bounded number in CI.
"""
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
_TESTS = os.path.dirname(_HERE)
# The suite is not installed: make ``leafgrad`` (src/) and ``oracle`` (tests/) importable when
# this package is run with ``python -m tests.fuzz`` as well as under pytest.
for _p in (os.path.join(os.path.dirname(_TESTS), "src"), _TESTS):
    if _p not in sys.path:
        sys.path.insert(0, _p)
