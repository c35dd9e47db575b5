"""``leafgrad run FILE`` / ``python -m leafgrad run FILE`` behave like ``python FILE`` under
real PyTorch: argv, stdout, stderr (warnings at the user's line, tracebacks into the user's
file), exit status, ``__name__``, sibling imports, and ``torch.*`` served by leafgrad."""
from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = os.path.join(ROOT, "src")
_TRIGGERED = re.compile(r" \(Triggered internally at [^)]*\)")


def _env(with_src: bool):
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    if with_src:
        env["PYTHONPATH"] = SRC
    return env


def run_leafgrad(path, *args, cwd=None, via_module=True):
    cmd = [sys.executable, "-m", "leafgrad", "run", path, *args] if via_module else \
        [sys.executable, "-c", "import sys; from leafgrad.cli import main; sys.exit(main())",
         "run", path, *args]
    return subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, env=_env(True),
                          timeout=120)


def run_python(path, *args, cwd=None):
    return subprocess.run([sys.executable, path, *args], capture_output=True, text=True,
                          cwd=cwd, env=_env(False), timeout=120)


def write(tmp_path, name, body):
    p = tmp_path / name
    p.write_text(textwrap.dedent(body))
    return p


def assert_same_run(tmp_path, name, *args, stderr=True):
    mine = run_leafgrad(name, *args, cwd=tmp_path)
    theirs = run_python(name, *args, cwd=tmp_path)
    assert mine.stdout == theirs.stdout, f"stdout\nmine:\n{mine.stdout}\ntheirs:\n{theirs.stdout}"
    if stderr:
        assert _TRIGGERED.sub("", mine.stderr) == _TRIGGERED.sub("", theirs.stderr), \
            f"stderr\nmine:\n{mine.stderr}\ntheirs:\n{theirs.stderr}"
    assert mine.returncode == theirs.returncode, (mine.returncode, theirs.returncode,
                                                  mine.stderr)
    return mine


def test_torch_modules_resolve_to_leafgrad(tmp_path):
    write(tmp_path, "which.py", """
        import torch, torch.nn, torch.nn.functional as F, torch.optim, torch.autograd
        import torch.utils.data
        from torch import nn, optim
        from torch.utils.data import DataLoader, TensorDataset
        for m in (torch, torch.nn, F, torch.optim, torch.autograd, torch.utils.data):
            print(m.__name__)
        import leafgrad.utils.data
        print(nn is torch.nn, optim is torch.optim, DataLoader is leafgrad.utils.data.DataLoader)
    """)
    out = run_leafgrad("which.py", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["leafgrad", "leafgrad.nn", "leafgrad.nn.functional",
                                  "leafgrad.optim", "leafgrad.autograd", "leafgrad.utils.data",
                                  "True", "True", "True"]


def test_argv_name_file_and_output(tmp_path):
    write(tmp_path, "prog.py", """
        import os, sys
        import torch
        print(sys.argv, __name__, os.path.basename(__file__), os.path.isabs(__file__))
        print(sys.path[0] == os.path.dirname(os.path.abspath(__file__)))
        print("to stderr", file=sys.stderr)
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        (x * x).sum().backward()
        print(x.grad.tolist())
        if __name__ == "__main__":
            print("main guard ran")
    """)
    assert_same_run(tmp_path, "prog.py", "a", "--flag", "-h")


def test_warnings_point_at_the_users_line(tmp_path):
    write(tmp_path, "warn.py", """
        import warnings
        import torch
        warnings.warn("careful")
        a = torch.tensor(torch.tensor([1.0]))
        x = torch.tensor([1.0], requires_grad=True)
        y = x * 2
        print(y.grad)
        for _ in range(3):
            warnings.warn("once per location")
    """)
    assert_same_run(tmp_path, "warn.py")


@pytest.mark.parametrize("body", [
    "import sys\nprint('bye')\nsys.exit(3)\n",
    "import sys\nsys.exit('fatal: message')\n",
    "import sys\nsys.exit()\n",
    "raise SystemExit(0)\n",
])
def test_exit_status(tmp_path, body):
    write(tmp_path, "ex.py", "import torch\n" + body)
    assert_same_run(tmp_path, "ex.py")


def test_uncaught_exception_traceback_is_the_users(tmp_path):
    write(tmp_path, "boom.py", """
        import torch

        def inner(v):
            raise ValueError(f"bad value {v}")

        def outer():
            try:
                inner(1)
            except ValueError as exc:
                raise KeyError("wrapped") from exc

        print("before")
        outer()
    """)
    out = assert_same_run(tmp_path, "boom.py")
    assert "leafgrad" not in out.stderr and "cli.py" not in out.stderr


def test_torch_error_traceback_starts_in_the_users_file(tmp_path):
    write(tmp_path, "twice.py", """
        import torch
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = x.exp().sum()
        y.backward()
        y.backward()
    """)
    mine = run_leafgrad("twice.py", cwd=tmp_path)
    theirs = run_python("twice.py", cwd=tmp_path)
    assert mine.returncode == theirs.returncode == 1
    assert mine.stderr.strip().splitlines()[-1] == theirs.stderr.strip().splitlines()[-1]
    first = mine.stderr.splitlines()[:3]
    assert first == theirs.stderr.splitlines()[:3]      # Traceback, File "twice.py" line 6
    assert "cli.py" not in mine.stderr


def test_sibling_modules_import_and_get_leafgrad(tmp_path):
    write(tmp_path, "helper.py", """
        import torch
        def make():
            return torch.ones(2) * 3
    """)
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    write(pkg, "__init__.py", "")
    write(pkg, "mod.py", """
        from . import sub
        VALUE = sub.VALUE + 1
    """)
    write(pkg, "sub.py", "VALUE = 41\n")
    write(tmp_path, "main.py", """
        import helper
        from pkg.mod import VALUE
        print(helper.make().tolist(), VALUE, type(helper.make()).__module__.split('.')[0]
              in ('torch', 'leafgrad'))
    """)
    assert_same_run(tmp_path, "main.py")


def test_missing_file(tmp_path):
    mine = run_leafgrad("nope.py", cwd=tmp_path)
    theirs = run_python("nope.py", cwd=tmp_path)
    assert mine.returncode == theirs.returncode == 2
    assert mine.stderr.split(":", 1)[1] == theirs.stderr.split(":", 1)[1]


def test_main_function_entry_point_too(tmp_path):
    write(tmp_path, "p.py", "import sys, torch\nprint(sys.argv[1:], torch.zeros(2).tolist())\n")
    out = run_leafgrad("p.py", "x", cwd=tmp_path, via_module=False)
    assert out.returncode == 0 and out.stdout == "['x'] [0.0, 0.0]\n", out.stderr


def test_unknown_torch_submodule_names_itself(tmp_path):
    write(tmp_path, "sub.py", "import torch.no_such_module\n")
    out = run_leafgrad("sub.py", cwd=tmp_path)
    assert out.returncode == 1
    assert "ModuleNotFoundError: No module named 'torch.no_such_module'" in out.stderr
