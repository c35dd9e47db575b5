"""The process that runs one Markdown file's Python blocks for ``leafgrad check``.

``python -m leafgrad.teach.check_worker MODE RESULTS.json < job.json``: MODE is ``leafgrad``
(``import torch`` served by leafgrad) or ``real`` (PyTorch itself). The job holds the file's
path and its blocks (source and first line). All blocks share one namespace, run in order, like
the cells of a notebook. Each block's stdout and stderr are captured; an exception ends that
block only. Results go to RESULTS.json, so nothing a block writes can garble them.

A fresh process per file means one lesson cannot leak state (default dtype, grad mode, seeds,
warning registries) into the next, exactly as if each were run on its own.
"""
from __future__ import annotations

import builtins
import io
import json
import os
import sys
import traceback
from contextlib import redirect_stderr, redirect_stdout

__all__ = ["run_blocks"]


def _exception_line(exc: BaseException) -> str:
    # the same rule as the tour's prompt: "Type: message", without PEP 678 notes
    from leafgrad.teach.repl import exception_line
    return exception_line(exc)


def _traceback_text(exc: BaseException, path: str) -> str:
    """The traceback from the first frame inside the Markdown file onward."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename != path:
        tb = tb.tb_next
    return "".join(traceback.format_exception(type(exc), exc, tb if tb is not None
                                              else exc.__traceback__))


def run_blocks(path: str, blocks: list) -> list:
    """Run ``blocks`` (dicts with ``source`` and ``line``: the 1-based line of the block's
    first source line in ``path``) in one namespace; return one result dict per block."""
    namespace = {"__name__": "__main__", "__file__": path, "__builtins__": builtins}
    results = []
    for block in blocks:
        out, err = io.StringIO(), io.StringIO()
        result = {"stdout": "", "stderr": "", "exception": None, "traceback": None,
                  "type": None}
        # padding with newlines makes traceback line numbers (and linecache's source
        # lines) those of the Markdown file itself
        source = "\n" * (block["line"] - 1) + block["source"]
        with redirect_stdout(out), redirect_stderr(err):
            try:
                code = compile(source, path, "exec", dont_inherit=True)
                exec(code, namespace)
            except BaseException as exc:   # a block's failure is reported, never fatal
                if isinstance(exc, KeyboardInterrupt):
                    raise
                result["exception"] = _exception_line(exc)
                result["type"] = [type(exc).__name__, type(exc).__module__]
                result["traceback"] = _traceback_text(exc, path)
            finally:
                sys.stdout.flush()
        result["stdout"], result["stderr"] = out.getvalue(), err.getvalue()
        results.append(result)
    return results


def main(argv) -> int:
    mode, results_path = argv[0], argv[1]
    job = json.load(sys.stdin)
    path = job["path"]
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    if mode == "real":
        import importlib.util
        if importlib.util.find_spec("torch") is None:
            print("--torch real needs PyTorch installed (no module named 'torch')",
                  file=sys.stderr)
            return 3
    else:
        from leafgrad import compat
        compat.install()
    sys.argv = [path]
    results = run_blocks(path, job["blocks"])
    with open(results_path, "w", encoding="utf-8") as f:
        json.dump(results, f)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
