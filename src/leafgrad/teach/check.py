"""``leafgrad check LESSON.md...``: run a Markdown lesson's Python blocks and compare what they
print with the text.

Rules (also in ``leafgrad check --help``):

- Every fenced block whose info string starts with ``python`` (or ``py``) runs, in order, in
  one namespace per file, in a fresh process (``import torch`` is leafgrad; ``--torch real``
  uses PyTorch itself). ``python no-run`` blocks are skipped and reported as skipped.
- The block's expected output is the next fenced block when its info string is ``output``,
  or when the line just before it (blank lines aside) says "Expected output". A block with
  no expected block must print nothing.
- A block passes when its stdout equals the expected text (trailing spaces and trailing
  blank lines ignored). A block that raises fails, with its traceback, unless the expected
  text shows the exception's last line (``RuntimeError: ...``): then stdout so far plus that
  line is what is compared. A doctest-style ``Traceback (most recent call last):`` header
  and its indented frame lines in the expected text are ignored.
- ``--update`` rewrites the expected blocks with what the blocks printed (adding an
  ``output`` block where one is missing); it never writes an exception that the text did
  not already expect.
"""
from __future__ import annotations

import difflib
import json
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field

__all__ = ["Fence", "Pair", "check_file", "main", "pair_blocks", "parse"]

_OPEN = re.compile(r"^( {0,3})(`{3,}|~{3,})\s*([^`]*)$")
_EXPECTED_LABEL = re.compile(r"^[\W_]*expected output[\W_]*$", re.IGNORECASE)
_TB_HEADER = "Traceback (most recent call last):"


@dataclass
class Fence:
    """One fenced code block: ``open``/``close`` are 0-based line indexes of its fences."""
    info: str
    open: int
    close: int
    body: str
    fence: str
    indent: int
    label: str = ""   # the nearest non-blank line above the opening fence

    @property
    def lang(self) -> str:
        return self.info.split()[0].lower() if self.info.split() else ""

    @property
    def flags(self) -> list:
        return [w.lower() for w in self.info.split()[1:]]

    @property
    def is_python(self) -> bool:
        return self.lang in ("python", "py", "python3")


@dataclass
class Pair:
    code: Fence
    expected: Fence | None
    skip: bool = False
    result: dict = field(default_factory=dict)


def parse(text: str) -> list:
    """The fenced blocks of a Markdown text, in order (CommonMark's fence rules, simplified:
    a closing fence uses the same character, at least as long, with nothing after it)."""
    lines = text.split("\n")
    fences = []
    i = 0
    while i < len(lines):
        m = _OPEN.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence, info = len(m.group(1)), m.group(2), m.group(3).strip()
        j = i + 1
        close_re = re.compile(r"^ {0,3}" + re.escape(fence[0]) + "{" + str(len(fence))
                              + r",}\s*$")
        while j < len(lines) and not close_re.match(lines[j]):
            j += 1
        body_lines = [_unindent(line, indent) for line in lines[i + 1:j]]
        label = ""
        k = i - 1
        while k >= 0 and not lines[k].strip():
            k -= 1
        if k >= 0:
            label = lines[k].strip()
        fences.append(Fence(info, i, min(j, len(lines)), "\n".join(body_lines), fence,
                            indent, label))
        i = j + 1
    return fences


def _unindent(line: str, n: int) -> str:
    k = 0
    while k < n and k < len(line) and line[k] == " ":
        k += 1
    return line[k:]


def _is_expected(fence: Fence) -> bool:
    return fence.lang == "output" or bool(_EXPECTED_LABEL.match(fence.label))


def pair_blocks(fences: list) -> list:
    """Each Python block with its expected-output block (or None)."""
    pairs = []
    for i, f in enumerate(fences):
        if not f.is_python:
            continue
        nxt = fences[i + 1] if i + 1 < len(fences) else None
        expected = nxt if nxt is not None and not nxt.is_python and _is_expected(nxt) else None
        pairs.append(Pair(f, expected, skip="no-run" in f.flags))
    return pairs


def _normalize(text: str) -> list:
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def _strip_traceback(lines: list) -> list:
    """Drop doctest-style traceback headers and their frame lines from expected text."""
    out, skipping = [], False
    for line in lines:
        if line == _TB_HEADER:
            skipping = True
            continue
        if skipping and (line.startswith((" ", "\t")) or line.strip() == "..."):
            continue
        skipping = False
        out.append(line)
    return out


def _shows_exception(expected_lines: list, result: dict) -> bool:
    """Does the expected text show this exception: a line ``Type: ...`` (or a bare
    ``Type``), the type possibly qualified by its module?"""
    name, module = result["type"]
    for line in expected_lines:
        head = line.split(":", 1)[0]
        if head == name or head == f"{module}.{name}" or head.endswith("." + name):
            return True
    return False


def _actual_lines(result: dict) -> list:
    text = result["stdout"]
    if result["exception"] is not None:
        if text and not text.endswith("\n"):
            text += "\n"
        text += result["exception"]
    return _normalize(text)


def _run_worker(path: str, pairs: list, torch_mode: str, timeout: float) -> list:
    blocks = [{"source": p.code.body, "line": p.code.open + 2} for p in pairs if not p.skip]
    job = json.dumps({"path": path, "blocks": blocks})
    env = dict(os.environ)
    package_root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env["PYTHONPATH"] = package_root + (os.pathsep + env["PYTHONPATH"]
                                        if env.get("PYTHONPATH") else "")
    env.setdefault("PYTHONIOENCODING", "utf-8")
    fd, results_path = tempfile.mkstemp(suffix=".json", prefix="leafgrad-check-")
    os.close(fd)
    try:
        try:
            proc = subprocess.run(
                [sys.executable, "-m", "leafgrad.teach.check_worker", torch_mode, results_path],
                input=job, capture_output=True, text=True, env=env, timeout=timeout,
                check=False)
        except subprocess.TimeoutExpired:
            raise RuntimeError(f"its blocks did not finish within {timeout:g} s") from None
        if proc.returncode != 0:
            raise RuntimeError(proc.stderr.strip() or f"worker exited with {proc.returncode}")
        with open(results_path, encoding="utf-8") as f:
            return json.load(f)
    finally:
        os.unlink(results_path)


def check_file(path: str, *, torch_mode: str = "leafgrad", update: bool = False,
               write=print, timeout: float = 600.0) -> tuple:
    """Check one Markdown file. Returns (passed, failed, skipped, updated_text_or_None)."""
    with open(path, encoding="utf-8", newline="") as f:
        text = f.read()
    pairs = pair_blocks(parse(text))
    results = iter(_run_worker(path, pairs, torch_mode, timeout)) if pairs else iter(())
    passed = failed = skipped = 0
    replacements = []   # (fence or code fence, new expected lines, insert?)
    write(path)
    for n, pair in enumerate(pairs, 1):
        where = f"  block {n} (line {pair.code.open + 1})"
        if pair.skip:
            skipped += 1
            write(f"{where}: skipped (no-run)")
            continue
        result = next(results)
        expected = _strip_traceback(_normalize(pair.expected.body)) if pair.expected else []
        actual = _actual_lines(result)
        raised = result["exception"] is not None
        unexpected_raise = raised and not _shows_exception(expected, result)
        if not unexpected_raise and actual == expected:
            passed += 1
            write(f"{where}: ok")
            continue
        if update and not unexpected_raise:
            replacements.append((pair, actual))
            passed += 1
            write(f"{where}: updated")
            continue
        failed += 1
        if unexpected_raise:
            write(f"{where}: FAIL (raised {result['type'][0]})")
            write(_indent(result["traceback"].rstrip("\n")))
        else:
            write(f"{where}: FAIL (output differs)")
        exp_name = (f"expected (line {pair.expected.open + 1})" if pair.expected
                    else "expected (no output block)")
        diff = difflib.unified_diff(expected, actual, exp_name, "actual", lineterm="")
        write(_indent("\n".join(diff)))
        if result["stderr"].strip():
            write(_indent("stderr:\n" + result["stderr"].rstrip("\n")))
    write(f"{path}: {passed} passed, {failed} failed, {skipped} skipped")
    new_text = _apply(text, replacements) if replacements else None
    return passed, failed, skipped, new_text


def _indent(text: str) -> str:
    return "\n".join("    " + line if line else line for line in text.split("\n"))


def _apply(text: str, replacements: list) -> str:
    """Rewrite expected blocks (bottom up, so line numbers stay valid)."""
    newline = "\r\n" if "\r\n" in text else "\n"
    lines = text.replace("\r\n", "\n").split("\n")
    for pair, actual in sorted(replacements, key=lambda r: -r[0].code.open):
        pad = " " * pair.code.indent
        body = [pad + line if line else line for line in actual]
        if pair.expected is not None:
            e = pair.expected
            lines[e.open + 1:e.close] = body
        elif actual:
            fence = "`" * 3
            while any(line.lstrip().startswith(fence) for line in actual):
                fence += "`"
            lines[pair.code.close + 1:pair.code.close + 1] = (
                ["", pad + fence + "output"] + body + [pad + fence])
    return newline.join(lines)


USAGE = "leafgrad check [--update] [--torch {leafgrad,real}] LESSON.md [LESSON.md ...]"


def main(argv) -> int:
    import argparse
    parser = argparse.ArgumentParser(
        prog="leafgrad check", description=__doc__.split("\n\n")[0].split(": ", 1)[1],
        epilog="A block is ```python (```python no-run to skip it); its expected output is "
               "the next block if that is ```output or comes right after a line "
               "'Expected output'. Exit status 1 if any block fails.")
    parser.add_argument("files", nargs="+", metavar="LESSON.md")
    parser.add_argument("--update", action="store_true",
                        help="rewrite the expected blocks with the actual output")
    parser.add_argument("--torch", choices=("leafgrad", "real"), default="leafgrad",
                        help="serve `import torch` with leafgrad (default) or run real PyTorch")
    ns = parser.parse_args(argv)
    total_failed = total_passed = total_skipped = 0
    for path in ns.files:
        if not os.path.isfile(path):
            print(f"leafgrad check: no such file: {path}", file=sys.stderr)
            return 2
    for path in ns.files:
        try:
            passed, failed, skipped, new_text = check_file(
                path, torch_mode=ns.torch, update=ns.update)
        except RuntimeError as exc:
            print(f"leafgrad check: {path}: {exc}", file=sys.stderr)
            return 2
        total_passed += passed
        total_failed += failed
        total_skipped += skipped
        if new_text is not None:
            with open(path, "w", encoding="utf-8", newline="") as f:
                f.write(new_text)
            print(f"{path}: expected output rewritten")
    if len(ns.files) > 1:
        print(f"total: {total_passed} passed, {total_failed} failed, {total_skipped} skipped")
    return 1 if total_failed else 0
