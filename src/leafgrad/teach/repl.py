"""A printed REPL for the tour: show a snippet as ``>>>`` lines, run it, print what a Python
prompt would (expression values, printed text, warnings, the last line of an exception).

The tour's code is therefore exactly the code that runs: nothing is pasted as text beside it.
"""
from __future__ import annotations

import ast
import sys
import textwrap
import traceback
import warnings

__all__ = ["Session", "exception_line", "wrap"]

WIDTH = 88


def wrap(text: str, width: int = WIDTH) -> str:
    """Dedent ``text`` and fill each paragraph (blank-line separated) to ``width``.

    Lines starting with spaces, ``-`` or ``|`` after dedenting are kept as they are (lists,
    drawings).
    """
    out = []
    for para in textwrap.dedent(text).strip("\n").split("\n\n"):
        lines = para.split("\n")
        if any(line.startswith((" ", "-", "|", "*")) for line in lines):
            out.append(para)
        else:
            out.append(textwrap.fill(" ".join(s.strip() for s in lines), width))
    return "\n\n".join(out)


def exception_line(exc: BaseException) -> str:
    """``Type: message`` as the last line of a traceback shows it, without PEP 678 notes
    (leafgrad adds notes, such as where an in-place change happened, that PyTorch has not)."""
    notes = getattr(exc, "__notes__", None)
    if notes is not None:
        del exc.__notes__
    try:
        return "".join(traceback.format_exception_only(type(exc), exc)).rstrip("\n")
    finally:
        if notes is not None:
            exc.__notes__ = notes


class Session:
    """One namespace, shared by the snippets of one tour section."""

    def __init__(self, namespace: dict | None = None, write=None):
        self.ns = namespace if namespace is not None else {"__name__": "__tour__"}
        self.write = write or (lambda s: print(s))

    def run(self, source: str, *, expect_error: type | None = None) -> None:
        """Show and run ``source`` statement by statement.

        An exception is printed as Python prints it (header and last line) when it is of
        type ``expect_error``; any other exception propagates, so a broken tour fails loudly.
        """
        source = textwrap.dedent(source).strip("\n")
        tree = ast.parse(source)
        lines = source.split("\n")
        raised = False
        for stmt in tree.body:
            text = lines[stmt.lineno - 1:stmt.end_lineno]
            shown = [">>> " + text[0]] + ["... " + t for t in text[1:]]
            if len(text) > 1:
                shown.append("...")   # the blank line that closes a block at a prompt
            self.write("\n".join(shown))
            module = ast.Interactive(body=[stmt])
            code = compile(module, "<tour>", "single")
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                try:
                    self._exec(code)
                except Exception as exc:   # shown like a prompt shows it, if expected
                    if expect_error is None or not isinstance(exc, expect_error):
                        raise
                    raised = True
                    self.write("Traceback (most recent call last):\n  ...\n"
                               + exception_line(exc))
                    for note in getattr(exc, "__notes__", ()):
                        self.write(note)
            for w in caught:
                self.write(f"{w.category.__name__}: {w.message}")
        if expect_error is not None and not raised:
            raise AssertionError(f"the tour expected a {expect_error.__name__} here")

    def _exec(self, code) -> None:
        # sys.displayhook prints expression values, as at a prompt; route it through write
        old_hook = sys.displayhook

        def hook(value):
            if value is not None:
                self.ns["_"] = value
                self.write(repr(value))

        sys.displayhook = hook
        try:
            exec(code, self.ns)
        finally:
            sys.displayhook = old_hook
