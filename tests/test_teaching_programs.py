"""Teaching programs (tests/programs/teaching/), written in the style of the well-known PyTorch
tutorials, run unchanged with ``python -m leafgrad run FILE`` and print exactly what real
PyTorch prints (``python FILE``): stdout, stderr and exit status.

Object addresses (``<MulBackward0 object at 0x7f...>``) differ between any two runs, torch's
included, so both outputs have them replaced by one placeholder before comparing. Everything
else must match byte for byte. Each side imports its library once and forks a child per
program (tests/_forkrun.py), so the module costs one torch import plus the programs."""
from __future__ import annotations

import glob
import os
import re
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAMS = os.path.join(HERE, "programs", "teaching")
SRC = os.path.join(os.path.dirname(HERE), "src")
FILES = sorted(glob.glob(os.path.join(PROGRAMS, "*.py")))
_ADDRESS = re.compile(r"0x[0-9a-f]+")


def _side(side: str, outdir: str):
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    env["OMP_NUM_THREADS"] = "1"        # both sides single-threaded: same reduction order
    if side == "leafgrad":
        env["PYTHONPATH"] = SRC
    return subprocess.Popen([sys.executable, os.path.join(HERE, "_forkrun.py"), side, outdir]
                            + FILES, cwd=PROGRAMS, env=env)


def _read(outdir: str, name: str) -> tuple:
    with open(os.path.join(outdir, name + ".rc")) as f:
        rc = int(f.read())
    with open(os.path.join(outdir, name + ".out")) as f:
        out = _ADDRESS.sub("0x?", f.read())
    with open(os.path.join(outdir, name + ".err")) as f:
        err = _ADDRESS.sub("0x?", f.read())
    return rc, out, err


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    """Every program under leafgrad and under torch (the two sides run side by side; each
    imports its library once and forks a child per program: tests/_forkrun.py)."""
    dirs = {side: str(tmp_path_factory.mktemp(side)) for side in ("leafgrad", "torch")}
    procs = [_side(side, outdir) for side, outdir in dirs.items()]
    for proc in procs:
        assert proc.wait(timeout=600) == 0
    return {os.path.basename(path): (_read(dirs["leafgrad"], os.path.basename(path)),
                                     _read(dirs["torch"], os.path.basename(path)))
            for path in FILES}


def test_programs_are_present():
    assert len(FILES) >= 15


@pytest.mark.parametrize("path", FILES, ids=[os.path.basename(f) for f in FILES])
def test_teaching_program_matches_torch(path, outputs):
    (rc, out, err), (rc_torch, out_torch, err_torch) = outputs[os.path.basename(path)]
    assert rc_torch == 0, err_torch        # the oracle itself runs cleanly
    assert out == out_torch
    assert err == err_torch
    assert rc == rc_torch
