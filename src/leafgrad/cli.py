"""The ``leafgrad`` command: ``run`` a torch program on leafgrad, list the ``ops``, ``tour``,
``check`` Markdown lessons."""
from __future__ import annotations

import argparse
import io
import os
import sys

__all__ = ["main", "run_program"]


def run_program(path: str, args: list) -> int:
    """Run ``path`` as ``python path args...`` would, with ``import torch`` served by leafgrad.

    The program sees what ``python FILE`` gives it: ``sys.argv`` (``argv[0]`` as typed),
    ``__name__ == "__main__"``, an absolute ``__file__``, its own directory first on
    ``sys.path`` (so sibling modules import, and they get leafgrad for ``torch`` too).
    Returns the exit status: ``sys.exit``'s code, 1 after an uncaught exception (whose
    traceback starts in the program, not in this runner).
    """
    from . import compat
    full = os.path.abspath(path)
    try:
        with io.open_code(full) as f:
            source = f.read()
    except OSError as exc:
        exe = (getattr(sys, "orig_argv", None) or [sys.executable])[0]
        print(f"{exe}: can't open file {full!r}: [Errno {exc.errno}] {exc.strerror}",
              file=sys.stderr)
        return 2
    compat.install()
    sys.argv = [path] + list(args)
    if sys.path:
        sys.path[0] = os.path.dirname(full)
    else:
        sys.path.append(os.path.dirname(full))
    try:
        _exec_as_main(source, full)
    except SystemExit as exc:
        return _exit_status(exc.code)
    except BaseException:
        _print_user_traceback()
        return 1
    return 0


def _exec_as_main(source: bytes, filename: str) -> None:
    """Execute ``source`` as the ``__main__`` module, the way the interpreter runs a script."""
    import builtins
    import importlib.machinery
    import types
    main = types.ModuleType("__main__")
    main.__file__ = filename
    main.__builtins__ = builtins
    main.__loader__ = importlib.machinery.SourceFileLoader("__main__", filename)
    main.__spec__ = None
    main.__cached__ = None
    code = compile(source, filename, "exec", dont_inherit=True)
    sys.modules["__main__"] = main
    exec(code, main.__dict__)


def _exit_status(code) -> int:
    """What the interpreter does with ``SystemExit(code)``."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def _print_user_traceback() -> None:
    """Report the exception through ``sys.excepthook`` without this runner's frames."""
    etype, value, tb = sys.exc_info()
    here = os.path.abspath(__file__)
    while tb is not None:
        if os.path.abspath(tb.tb_frame.f_code.co_filename) == here:
            tb = tb.tb_next
            continue
        break
    sys.excepthook(etype, value.with_traceback(tb) if value is not None else value, tb)


def _cmd_ops(ns) -> int:
    from .ops.table import format_table
    print(format_table())
    return 0


_VERB_OPTIONS = {"explain": ("--json",), "graph": ("--dot", "--out")}


def _cmd_program_verb(verb: str, argv: list) -> int:
    """``leafgrad explain [--json REPORT] FILE [ARGS...]`` and ``leafgrad graph [--dot F]
    [--out F.svg] FILE [ARGS...]``: options come before FILE; the rest is the program's."""
    usage = (f"usage: leafgrad {verb} "
             + " ".join(f"[{o} PATH]" for o in _VERB_OPTIONS[verb]) + " FILE [ARGS...]")
    opts: dict = {}
    i = 0
    while i < len(argv) and argv[i].startswith("-"):
        flag, _, value = argv[i].partition("=")
        if flag in ("-h", "--help"):
            print(usage)
            return 0
        if flag not in _VERB_OPTIONS[verb]:
            print(f"{usage}\nleafgrad {verb}: unknown option {flag}", file=sys.stderr)
            return 2
        if not value:
            i += 1
            if i >= len(argv):
                print(f"{usage}\nleafgrad {verb}: {flag} needs a PATH", file=sys.stderr)
                return 2
            value = argv[i]
        opts[flag[2:]] = value
        i += 1
    if i >= len(argv):
        print(usage, file=sys.stderr)
        return 2
    from .diagnostics import runner
    if verb == "explain":
        return runner.explain_main(argv[i], argv[i + 1:], opts.get("json"))
    return runner.graph_main(argv[i], argv[i + 1:], opts.get("dot"), opts.get("out"))


def _cmd_tour(ns) -> int:
    from .teach.tour import list_sections, run_tour
    if ns.list:
        for sec in list_sections():
            print(f"{sec.name:14s} {sec.title}")
        return 0
    return run_tour(ns.section, pause=ns.pause, options={"plot": ns.plot})


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "check":
        from .teach.check import main as check_main
        return check_main(argv[1:])
    if argv and argv[0] in _VERB_OPTIONS:
        return _cmd_program_verb(argv[0], argv[1:])
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
    sub.add_parser("explain", help="run a program with diagnostics on and report why "
                   "gradients were missing, zero or wrong (--json REPORT)")
    sub.add_parser("graph", help="run a program and draw the graph of its last backward "
                   "(--dot FILE, --out FILE.svg or FILE.png with Graphviz)")
    p_ops = sub.add_parser("ops", help="print the operator table")
    p_ops.set_defaults(func=_cmd_ops)
    p_tour = sub.add_parser("tour", help="a guided, printed walk through autograd, run live")
    p_tour.add_argument("--list", action="store_true", help="list the tour's parts")
    p_tour.add_argument("--section", action="append", metavar="NAME",
                        help="run only this part (repeatable; see --list)")
    p_tour.add_argument("--pause", action="store_true", help="wait for Enter between parts")
    p_tour.add_argument("--plot", default="leafgrad-tour-loss.png", metavar="PATH",
                        help="where the training part saves its loss curve (with matplotlib)")
    p_tour.set_defaults(func=_cmd_tour)
    sub.add_parser("check", help="run the python blocks of Markdown lessons and compare "
                   "their output with the text (leafgrad check --help)")
    ns = parser.parse_args(argv)
    if not getattr(ns, "func", None):
        parser.print_help()
        return 0
    return ns.func(ns)
