"""``leafgrad check``: the lessons and the literate docs pass (on leafgrad, and the lessons on
real PyTorch too); altered or raising blocks fail with a diff or a traceback; ``--update``,
``no-run``, the "Expected output" label, isolation between files."""
from __future__ import annotations

import glob
import io
import os
import shutil
import subprocess
import sys
import textwrap
from contextlib import redirect_stderr, redirect_stdout

from leafgrad.cli import main as cli_main
from leafgrad.teach.check import pair_blocks, parse

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = os.path.join(ROOT, "src")
LESSONS = sorted(glob.glob(os.path.join(ROOT, "docs", "lessons", "*.md")))
DOCS = sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")))
FENCE = "```"


class Result:
    def __init__(self, returncode, stdout, stderr):
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


def check(*args, cwd=ROOT):
    """``leafgrad check ARGS`` in this process (each file still runs in its own worker)."""
    out, err = io.StringIO(), io.StringIO()
    old = os.getcwd()
    os.chdir(cwd)
    try:
        with redirect_stdout(out), redirect_stderr(err):
            code = cli_main(["check", *args])
    finally:
        os.chdir(old)
    return Result(code, out.getvalue(), err.getvalue())


def check_subprocess(*args, cwd=ROOT):
    """The same through ``python -m leafgrad``, as a user runs it."""
    env = dict(os.environ)
    env["PYTHONPATH"] = SRC
    return subprocess.run([sys.executable, "-m", "leafgrad", "check", *args],
                          capture_output=True, text=True, cwd=cwd, env=env, timeout=600,
                          check=False)


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text).replace("'''", FENCE))
    return str(path)


def test_lessons_and_docs_pass():
    assert len(LESSONS) >= 2 and any(p.endswith("how-leafgrad-works.md") for p in DOCS)
    proc = check_subprocess(*LESSONS, *DOCS)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert " 0 failed" in proc.stdout.splitlines()[-1]
    # every lesson really has checked blocks (a file of skipped blocks would pass vacuously)
    for path in LESSONS + [p for p in DOCS if p.endswith("how-leafgrad-works.md")]:
        rel = os.path.relpath(path, ROOT)
        summary = [line for line in proc.stdout.splitlines() if line.startswith(path + ":")]
        assert summary, rel
        passed = int(summary[0].split(": ")[1].split()[0])
        assert passed >= 10, (rel, summary)


def test_lessons_print_the_same_under_real_torch():
    proc = check("--torch", "real", *LESSONS)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "FAIL" not in proc.stdout


def test_import_torch_is_leafgrad_or_real_torch(tmp_path):
    path = write(tmp_path, "which.md", """\
        '''python
        import torch
        print(torch.__name__)
        '''

        '''output
        leafgrad
        '''
        """)
    assert check(path).returncode == 0
    proc = check("--torch", "real", path)
    assert proc.returncode == 1
    assert "-leafgrad" in proc.stdout and "+torch" in proc.stdout


def test_altered_expected_block_fails_with_a_diff(tmp_path):
    lesson = os.path.join(ROOT, "docs", "lessons", "01-computed-vs-stored-gradients.md")
    copy = tmp_path / "lesson.md"
    with open(lesson, encoding="utf-8") as f:
        text = f.read()
    assert text.count("dL/dw = 12.0  dL/dh = 3.0") == 1
    copy.write_text(text.replace("dL/dw = 12.0  dL/dh = 3.0", "dL/dw = 13.0  dL/dh = 3.0"),
                    encoding="utf-8")
    proc = check(str(copy))
    assert proc.returncode == 1
    assert "block 1 (line" in proc.stdout and "FAIL (output differs)" in proc.stdout
    assert "-dL/dw = 13.0  dL/dh = 3.0" in proc.stdout
    assert "+dL/dw = 12.0  dL/dh = 3.0" in proc.stdout
    assert " 1 failed" in proc.stdout.splitlines()[-1]


def test_a_raising_block_fails_with_its_traceback(tmp_path):
    path = write(tmp_path, "raises.md", """\
        '''python
        x = 1
        print("before")
        y = x / 0
        '''

        '''output
        before
        '''

        '''python
        print(x)
        '''

        '''output
        1
        '''
        """)
    proc = check(path)
    assert proc.returncode == 1
    assert "block 1 (line 1): FAIL (raised ZeroDivisionError)" in proc.stdout
    assert "Traceback (most recent call last):" in proc.stdout
    # the traceback points into the Markdown file, at the line that raised
    assert f'File "{path}", line 4' in proc.stdout and "y = x / 0" in proc.stdout
    assert "+ZeroDivisionError: division by zero" in proc.stdout
    # the namespace survives a failing block: the next block still sees x
    assert "block 2 (line 11): ok" in proc.stdout


def test_a_raising_block_passes_when_the_text_shows_the_error(tmp_path):
    path = write(tmp_path, "shows.md", """\
        '''python
        import torch
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        loss = x.exp().sum()
        loss.backward()
        print("once")
        loss.backward()
        '''

        '''output
        once
        Traceback (most recent call last):
          ...
        RuntimeError: Trying to backward through the graph a second time (or directly access saved tensors after they have already been freed). Saved intermediate values of the graph are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if you need to access saved tensors after calling backward.
        '''

        '''python
        int("x")
        '''

        '''output
        ValueError: invalid literal for int() with base 10: 'x'
        '''
        """)
    proc = check(path)
    assert proc.returncode == 0, proc.stdout
    assert proc.stdout.count(": ok") == 2
    # the same error with another message is a mismatch, shown as a diff
    with open(path, encoding="utf-8") as f:
        text = f.read()
    with open(path, "w", encoding="utf-8") as f:
        f.write(text.replace("base 10: 'x'", "base 10: 'y'"))
    proc = check(path)
    assert proc.returncode == 1
    assert "-ValueError: invalid literal for int() with base 10: 'y'" in proc.stdout


def test_label_form_no_run_and_missing_output(tmp_path):
    path = write(tmp_path, "forms.md", """\
        Some prose.

        '''python
        print("labelled")
        '''

        Expected output:

        '''text
        labelled
        '''

        '''python no-run
        raise SystemExit("never runs")
        '''

        '''output
        not compared
        '''

        '''python
        print("nothing expected")
        '''

        ~~~~python
        print("fenced with tildes")
        ~~~~

        ~~~~output
        fenced with tildes
        ~~~~
        """)
    proc = check(path)
    assert proc.returncode == 1
    lines = proc.stdout.splitlines()
    assert "  block 1 (line 3): ok" in lines
    assert "  block 2 (line 13): skipped (no-run)" in lines
    assert "  block 3 (line 21): FAIL (output differs)" in lines
    assert "+nothing expected" in proc.stdout
    assert "  block 4 (line 25): ok" in lines
    assert lines[-1].endswith("2 passed, 1 failed, 1 skipped")


def test_update_rewrites_expected_blocks_but_not_unexpected_errors(tmp_path):
    path = write(tmp_path, "update.md", """\
        '''python
        import torch
        w = torch.tensor(2.0, requires_grad=True)
        (3 * w.square()).backward()
        print(w.grad)
        '''

        '''output
        tensor(0.)
        '''

        '''python
        print("no output block yet")
        '''

        Text after.

        '''python
        undefined_name
        '''
        """)
    proc = check("--update", path)
    assert proc.returncode == 1            # the NameError was not expected: not written in
    assert "FAIL (raised NameError)" in proc.stdout
    with open(path, encoding="utf-8") as f:
        text = f.read()
    assert f"{FENCE}output\ntensor(12.)\n{FENCE}" in text
    assert f"{FENCE}output\nno output block yet\n{FENCE}\n\nText after." in text
    assert "NameError" not in text
    proc = check(path)
    assert proc.returncode == 1 and proc.stdout.count(": ok") == 2
    # once the text expects the error, --update keeps it current
    with open(path, "a", encoding="utf-8") as f:
        f.write(f"\n{FENCE}output\nNameError: stale message\n{FENCE}\n")
    assert check("--update", path).returncode == 0
    with open(path, encoding="utf-8") as f:
        assert "NameError: name 'undefined_name' is not defined" in f.read()
    assert check(path).returncode == 0


def test_each_file_runs_in_its_own_process(tmp_path):
    first = write(tmp_path, "a.md", """\
        '''python
        import torch
        torch.set_default_dtype(torch.float64)
        shared = 1
        print(torch.ones(1).dtype)
        '''

        '''output
        torch.float64
        '''
        """)
    second = write(tmp_path, "b.md", """\
        '''python
        import torch
        print(torch.ones(1).dtype, "shared" in globals())
        '''

        '''output
        torch.float32 False
        '''
        """)
    proc = check(first, second)
    assert proc.returncode == 0, proc.stdout
    assert proc.stdout.splitlines()[-1] == "total: 2 passed, 0 failed, 0 skipped"


def test_missing_file_is_a_usage_error(tmp_path):
    proc = check(str(tmp_path / "nope.md"))
    assert proc.returncode == 2 and "no such file" in proc.stderr


def test_parse_fences_and_pairs():
    text = textwrap.dedent("""\
        intro
        ````python
        print("a ``` inside")
        ````
        Expected output
        ```
        a ``` inside
        ```
        ```python
        pass
        ```
        ```python
        pass
        ```
        ```output
        ```
        """)
    fences = parse(text)
    assert [f.lang for f in fences] == ["python", "", "python", "python", "output"]
    assert fences[0].body == 'print("a ``` inside")'
    assert fences[1].label == "Expected output"
    pairs = pair_blocks(fences)
    assert [p.expected is not None for p in pairs] == [True, False, True]
    assert pairs[0].expected is fences[1] and pairs[2].expected is fences[4]


def test_check_does_not_touch_files_without_update(tmp_path):
    src = os.path.join(ROOT, "docs", "lessons", "02-autograd-and-gradient-modes.md")
    copy = tmp_path / "copy.md"
    shutil.copy(src, copy)
    before = copy.read_bytes()
    proc = check(str(copy))
    assert proc.returncode == 0, proc.stdout
    assert copy.read_bytes() == before
