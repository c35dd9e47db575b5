"""The ``leafgrad`` command: ``run`` a torch program on leafgrad, list the ``ops``, ``tour``."""
from __future__ import annotations

import argparse
import os
import runpy
import sys

__all__ = ["main", "run_program"]


def run_program(path: str, args: list) -> int:
    """Run ``path`` as ``python path args...`` would, with ``import torch`` served by leafgrad."""
    from . import compat
    if not os.path.exists(path):
        print(f"leafgrad run: can't open file '{path}': [Errno 2] No such file or directory",
              file=sys.stderr)
        return 2
    compat.install()
    sys.argv = [path] + list(args)
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    try:
        runpy.run_path(path, run_name="__main__")
    except SystemExit as exc:
        code = exc.code
        if code is None:
            return 0
        if isinstance(code, int):
            return code
        print(code, file=sys.stderr)
        return 1
    except BaseException:
        _print_user_traceback(path)
        return 1
    return 0


def _print_user_traceback(path: str) -> None:
    """Print the traceback as ``python FILE`` would: without leafgrad's runner frames."""
    import traceback
    etype, value, tb = sys.exc_info()
    here = os.path.dirname(os.path.abspath(__file__))
    runpy_file = os.path.abspath(runpy.__file__)
    while tb is not None:
        f = os.path.abspath(tb.tb_frame.f_code.co_filename)
        if f.startswith(here + os.sep + "cli.py") or f == runpy_file or "<frozen runpy>" in f:
            tb = tb.tb_next
            continue
        break
    traceback.print_exception(etype, value, tb)


def _cmd_ops(ns) -> int:
    from .ops.table import format_table
    print(format_table())
    return 0


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "run":
        # everything after FILE belongs to the program, flags included
        if len(argv) < 2 or argv[1] in ("-h", "--help"):
            print("usage: leafgrad run FILE [ARGS...]")
            return 0 if len(argv) >= 2 else 2
        return run_program(argv[1], argv[2:])
    parser = argparse.ArgumentParser(prog="leafgrad", description=(
        "PyTorch's autograd, exactly, in pure Python on NumPy."))
    sub = parser.add_subparsers(dest="command")
    sub.add_parser("run", help="run an unmodified `import torch` program on leafgrad")
    p_ops = sub.add_parser("ops", help="print the operator table")
    p_ops.set_defaults(func=_cmd_ops)
    ns = parser.parse_args(argv)
    if not getattr(ns, "func", None):
        parser.print_help()
        return 0
    return ns.func(ns)
