"""Shared helpers: run the example programs in-process (function API) or through the verb."""
from __future__ import annotations

import contextlib
import glob
import io
import json
import os
import re
import subprocess
import sys
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SRC = os.path.join(ROOT, "src")
PROGRAMS = sorted(glob.glob(os.path.join(HERE, "programs", "*.py")))
_EXPECT = re.compile(r"# expect: (\S+)")


def expected(path):
    """[(line, code)] from the program's ``# expect: CODE`` comments."""
    with open(path) as f:
        return [(i + 1, m.group(1)) for i, line in enumerate(f)
                for m in [_EXPECT.search(line)] if m]


def run_in_process(path):
    """Run a program with ``import torch`` served by leafgrad, diagnostics on.

    Returns (findings from explain(target) if the program defines ``target``, else the run's
    findings, the program's globals)."""
    import leafgrad
    with open(path) as f:
        source = f.read().replace("import torch", "import leafgrad as torch")
    g = {"__name__": "__main__", "__file__": path}
    with leafgrad.diagnostics.enable():
        with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exec(compile(source, path, "exec"), g)  # noqa: S102 (the test program)
        if "target" in g:
            found = leafgrad.explain(g["target"], quiet=True)
        else:
            found = leafgrad.diagnostics.findings()
    return found, g


def env():
    e = dict(os.environ)
    e["PYTHONPATH"] = SRC
    return e


def run_verb_batch(paths, tmpdir):
    """``leafgrad explain --json`` on each program, in one interpreter (CLI parsing included).

    Returns {path: findings list from the JSON report}."""
    script = (
        "import sys, contextlib, io\n"
        "from leafgrad import cli\n"
        "args = sys.argv[1:]\n"
        "for prog, out in zip(args[::2], args[1::2]):\n"
        "    with contextlib.redirect_stdout(io.StringIO()), "
        "contextlib.redirect_stderr(io.StringIO()):\n"
        "        cli.main(['explain', '--json', out, prog])\n")
    argv = []
    outs = {}
    for i, p in enumerate(paths):
        out = os.path.join(str(tmpdir), f"report{i}.json")
        outs[p] = out
        argv += [p, out]
    proc = subprocess.run([sys.executable, "-c", script, *argv], capture_output=True,
                          text=True, env=env(), timeout=600, check=False)
    assert proc.returncode == 0, proc.stderr
    result = {}
    for p, out in outs.items():
        with open(out) as f:
            result[p] = json.load(f)["findings"]
    return result


def run_cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "leafgrad", *args], capture_output=True,
                          text=True, env=env(), cwd=cwd, timeout=300, check=False)
