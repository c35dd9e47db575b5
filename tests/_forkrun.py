"""Run many programs under one side (real torch, or ``leafgrad run``) paying its import once.

``python tests/_forkrun.py torch|leafgrad OUTDIR FILE...``: imports the side, then forks one
child per program; the child runs it as ``python FILE`` (or ``leafgrad run FILE``) would —
``__main__``, ``sys.argv``, the program's directory first on ``sys.path`` — with stdout and
stderr sent to ``OUTDIR/<name>.out`` / ``.err`` and its exit status to ``.rc``. Importing torch
costs seconds per process; the programs themselves take a fraction of that."""
from __future__ import annotations

import os
import sys
import traceback


def _child(side: str, path: str, outdir: str) -> int:
    name = os.path.basename(path)
    out = os.open(os.path.join(outdir, name + ".out"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    err = os.open(os.path.join(outdir, name + ".err"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    os.dup2(out, 1)
    os.dup2(err, 2)
    os.chdir(os.path.dirname(path))
    sys.argv = [name]
    sys.path[0] = os.path.dirname(path)
    if side == "leafgrad":
        from leafgrad.cli import run_program
        return run_program(name, [])
    import runpy
    try:
        runpy.run_path(path, run_name="__main__")
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 1
    except BaseException:
        traceback.print_exc()
        return 1
    return 0


def main(argv: list) -> None:
    side, outdir, files = argv[0], argv[1], argv[2:]
    if side == "torch":
        import torch  # noqa: F401  (the one import every child shares)
    else:
        import leafgrad.nn, leafgrad.optim, leafgrad.utils.data  # noqa: F401,E401
    for path in files:
        path = os.path.abspath(path)
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                code = _child(side, path, outdir)
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(code)
        _, status = os.waitpid(pid, 0)
        with open(os.path.join(outdir, os.path.basename(path) + ".rc"), "w") as f:
            f.write(str(os.waitstatus_to_exitcode(status)))


if __name__ == "__main__":
    main(sys.argv[1:])
