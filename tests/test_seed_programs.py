"""The mission's programs (tests/programs/, copied from shared/seeds/programs) run unchanged
with ``python -m leafgrad run FILE``: the output equals the ``.expected`` file where the
mission gives one, and equals real PyTorch's (``python FILE``) always."""
from __future__ import annotations

import glob
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAMS = os.path.join(HERE, "programs")
SRC = os.path.join(os.path.dirname(HERE), "src")
FILES = sorted(glob.glob(os.path.join(PROGRAMS, "*.py")))


def _run(cmd, with_src):
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    if with_src:
        env["PYTHONPATH"] = SRC
    return subprocess.run(cmd, capture_output=True, text=True, cwd=PROGRAMS, env=env,
                          timeout=300)


def test_programs_are_present():
    assert len(FILES) >= 8


@pytest.mark.parametrize("path", FILES, ids=[os.path.basename(f) for f in FILES])
def test_program_matches_torch(path):
    name = os.path.basename(path)
    mine = _run([sys.executable, "-m", "leafgrad", "run", name], with_src=True)
    theirs = _run([sys.executable, name], with_src=False)
    assert theirs.returncode == 0, theirs.stderr       # the oracle itself runs cleanly
    assert mine.returncode == 0, f"leafgrad failed:\n{mine.stderr}"
    assert mine.stdout == theirs.stdout
    assert mine.stderr == theirs.stderr
    expected = os.path.splitext(path)[0] + ".expected"
    if os.path.exists(expected):
        with open(expected) as f:
            assert mine.stdout == f.read()
