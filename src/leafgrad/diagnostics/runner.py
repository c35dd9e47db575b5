"""The ``leafgrad explain`` and ``leafgrad graph`` verbs: run a program with diagnostics on.

The program runs as under ``leafgrad run`` (``cli.run_program``): same argv, same output.
At exit the findings go to stderr in words and, with ``--json REPORT``, to a JSON file
``{"findings": [{"code", "file", "line", "message", "fix"}, ...]}``.
"""
from __future__ import annotations

import json
import sys

from . import install, provenance
from .codes import Finding

__all__ = ["explain_main", "graph_main"]


def _run(path: str, args: list) -> int:
    from .. import cli
    provenance.reset()
    hook = sys.excepthook

    def excepthook(etype, value, tb):
        # the user's traceback, without the diagnostic wrappers' frames
        tb = install.strip_traceback(tb)
        if value is not None:
            value = value.with_traceback(tb)
        hook(etype, value, tb)

    sys.excepthook = excepthook
    install.install()
    try:
        return cli.run_program(path, args)
    finally:
        install.uninstall()
        sys.excepthook = hook


def _report(findings, json_path) -> None:
    err = sys.stderr
    if findings:
        print(f"leafgrad explain: {len(findings)} finding{'s' if len(findings) != 1 else ''}",
              file=err)
        for f in findings:
            print(str(f), file=err)
    else:
        print("leafgrad explain: no findings", file=err)
    if json_path:
        with open(json_path, "w") as fh:
            json.dump({"findings": [f.as_dict() for f in findings]}, fh, indent=2)
            fh.write("\n")


def explain_main(path: str, args: list, json_path: str | None = None) -> int:
    """Run ``path`` with diagnostics on, then report every finding. Returns its exit status."""
    status = _run(path, args)
    found: list[Finding] = list(provenance.state.findings)
    _report(found, json_path)
    return status


def graph_main(path: str, args: list, dot_path: str | None = None,
               out_path: str | None = None) -> int:
    """Run ``path``; draw the graph of the last backward() (text to stderr, DOT to a file)."""
    from . import viz
    status = _run(path, args)
    recs = provenance.state.backwards
    if not recs or not recs[-1].roots:
        print("leafgrad graph: the program ran no backward()", file=sys.stderr)
        return status
    root = recs[-1].roots[0]
    site = recs[-1].site
    where = f" (backward at line {site[1]})" if site is not None else ""
    print(f"leafgrad graph: the last backward{where}", file=sys.stderr)
    print(viz.text(root), file=sys.stderr)
    if dot_path:
        with open(dot_path, "w") as fh:
            fh.write(viz.dot(root) + "\n")
    if out_path:
        viz.render(root, out_path)
    return status
