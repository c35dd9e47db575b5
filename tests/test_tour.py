"""``leafgrad tour``: runs to the end in under a minute, each section alone prints what it
prints inside the whole tour (deterministic), optional tqdm/matplotlib are used when present
and not needed when absent; the graph drawings agree with real PyTorch's graph."""
from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import textwrap
import time
from contextlib import redirect_stdout

import pytest
import torch as real_torch

import leafgrad
from leafgrad.cli import main as cli_main
from leafgrad.teach.graphtext import draw_chain, draw_tree
from leafgrad.teach.tour import list_sections
from leafgrad.teach.tour_train import sparkline

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = os.path.join(ROOT, "src")
SECTIONS = [s.name for s in list_sections()]
RULE = "═" * 88


def tour(*args, extra_path=None, stdin=None, cwd=None):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(([extra_path] if extra_path else []) + [SRC])
    return subprocess.run([sys.executable, "-m", "leafgrad", "tour", *args],
                          capture_output=True, text=True, env=env, input=stdin or "",
                          timeout=300, cwd=cwd, check=False)


def split_sections(text):
    """{section name: its text} from a tour's stdout (header to next header)."""
    parts = {}
    chunks = text.split(RULE + "\n ")
    for chunk in chunks[1:]:
        _number, rest = chunk.split("  ", 1)
        name = rest.split(":", 1)[0]
        parts[name] = chunk.rstrip("\n")
    return parts


@pytest.fixture(scope="module")
def full_tour(tmp_path_factory):
    cwd = tmp_path_factory.mktemp("tour")
    start = time.perf_counter()
    proc = tour(cwd=str(cwd))
    return proc, time.perf_counter() - start


def test_the_tour_runs_to_the_end_in_under_a_minute(full_tour):
    proc, seconds = full_tour
    assert proc.returncode == 0, proc.stderr
    assert seconds < 60, seconds
    out = proc.stdout
    assert list(split_sections(out)) == SECTIONS
    # the chain, drawn from the live graph
    assert "Forward:  w = 2 ── square ──> h = 4 ── times 3 ──> L = 12\n" \
           "Backward: dL/dw = 12 <── ×4 ── dL/dh = 3 <── ×3 ── dL/dL = 1" in out
    assert ">>> w.grad, h.grad\n(tensor(12.), tensor(3.))" in out
    # the VJP, accumulation, None vs zero
    assert "RuntimeError: grad can be implicitly created only for scalar outputs" in out
    assert ">>> J, v @ J\n(tensor([4., 3.]), tensor(10.))" in out
    assert ">>> w.grad\ntensor(8.)" in out
    assert ">>> a.grad, b.grad\n(tensor(0.), None)" in out
    # lifetime and in-place errors, shown as a prompt shows them
    assert "RuntimeError: Trying to backward through the graph a second time" in out
    assert ("RuntimeError: one of the variables needed for gradient computation has been "
            "modified by an inplace operation: [torch.FloatTensor [2]], which is output 0 of "
            "Exp, is at version 1; expected version 0 instead.") in out
    # higher order, gradcheck
    assert ">>> third\ntensor(6., dtype=torch.float64)" in out
    assert ">>> torch.autograd.gradcheck(Cube.apply, (x,), raise_exception=False)\nFalse" in out
    # training ends with accuracies, a loss curve, a decision map; no optional package needed
    assert "train accuracy 100.0%, test accuracy" in out
    # the curve falls to its floor; the first loss depends on the seeded initialisation
    assert "\nloss █" in out and re.search(r"▁ \d\.\d{3} -> 0\.\d{4}\n", out)
    assert "(matplotlib is not installed" in out or "loss curve saved to" in out
    assert "Traceback (most recent call last):\n  File" not in out + proc.stderr


def test_each_section_alone_prints_what_it_prints_in_the_tour(full_tour, tmp_path):
    """Sections are independent (each seeds and starts a fresh namespace) and deterministic.
    Run here in this process (one subprocess per section would cost a leafgrad import each);
    the subprocess run of a single section is covered by the pause and train tests."""
    proc, _ = full_tour
    whole = split_sections(proc.stdout)
    old = os.getcwd()
    os.chdir(tmp_path)
    try:
        for name in SECTIONS:
            out = io.StringIO()
            with redirect_stdout(out):
                assert cli_main(["tour", "--section", name]) == 0
            parts = split_sections(out.getvalue())
            assert list(parts) == [name]
            assert parts[name] == whole[name], name
    finally:
        os.chdir(old)


def test_list_and_unknown_section():
    listed = tour("--list")
    assert listed.returncode == 0
    assert [line.split()[0] for line in listed.stdout.splitlines()] == SECTIONS
    bad = tour("--section", "nope")
    assert bad.returncode == 2 and "no section 'nope'" in bad.stderr


def test_pause_waits_for_enter_between_parts():
    proc = tour("--pause", "--section", "chain", "--section", "higher", stdin="\n")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("[Enter: next part]") == 1
    assert list(split_sections(proc.stdout)) == ["chain", "higher"]


def test_train_uses_tqdm_and_matplotlib_when_installed(tmp_path):
    """Stand-ins for tqdm and matplotlib on the path: the bar is driven (stderr), stdout is
    the same as without them apart from the PNG line, and the PNG is written where asked."""
    fake = tmp_path / "fake"
    (fake / "matplotlib").mkdir(parents=True)
    (fake / "tqdm.py").write_text(textwrap.dedent("""\
        import sys
        class tqdm:
            def __init__(self, total, desc, leave):
                self.n = 0
            def update(self, k):
                self.n += k
            def set_postfix(self, **kw):
                pass
            def write(self, line):
                print(line)
            def close(self):
                print(f"fake-bar closed after {self.n}", file=sys.stderr)
        """))
    (fake / "matplotlib" / "__init__.py").write_text("def use(name):\n    pass\n")
    (fake / "matplotlib" / "pyplot.py").write_text(textwrap.dedent("""\
        class _Ax:
            def __getattr__(self, name):
                return lambda *a, **k: None
        class _Fig:
            def tight_layout(self):
                pass
            def savefig(self, path, dpi=None):
                with open(path, "wb") as f:
                    f.write(b"PNG")
        def subplots(figsize=None):
            return _Fig(), _Ax()
        def close(fig):
            pass
        """))
    png = tmp_path / "loss.png"
    with_fakes = tour("--section", "train", "--plot", str(png), extra_path=str(fake))
    plain = tour("--section", "train", "--plot", str(png))
    assert with_fakes.returncode == 0, with_fakes.stderr
    assert "fake-bar closed after 250" in with_fakes.stderr
    assert png.read_bytes() == b"PNG"
    assert f"loss curve saved to {png}" in with_fakes.stdout
    assert "(matplotlib is not installed" in plain.stdout
    strip = [line for line in with_fakes.stdout.splitlines()
             if "loss curve saved" not in line and "save_loss_plot" not in line]
    plain_strip = [line for line in plain.stdout.splitlines()
                   if "matplotlib is not installed" not in line and "save_loss_plot" not in line]
    assert strip == plain_strip


def _chain(torch):
    w = torch.tensor(2.0, requires_grad=True)
    h = w.square()
    L = 3 * h
    return w, h, L


def test_graph_drawings_match_real_torch():
    ours, theirs = _chain(leafgrad), _chain(real_torch)
    names = ("w", "h", "L")
    assert draw_chain(ours[2], **dict(zip(names, ours))) == \
        draw_chain(theirs[2], **dict(zip(names, theirs)))
    assert draw_tree(ours[2], **dict(zip(names, ours))) == \
        draw_tree(theirs[2], **dict(zip(names, theirs)))
    # drawing leaves the graph and .grad as they were: backward still works once
    for w, h, L in (ours, theirs):
        assert w.grad is None
        L.backward()
        assert w.grad.item() == 12.0
    for torch in (leafgrad, real_torch):
        p = torch.tensor(2.0, requires_grad=True)
        q = torch.tensor([1.0, 3.0], requires_grad=True)
        y = torch.stack((p.square(), 3 * p)) * q.exp()
        drawings = draw_tree(y, p=p, q=q, y=y)
        if torch is leafgrad:
            mine = drawings
    assert mine == drawings
    with pytest.raises(ValueError, match="single chains"):
        draw_chain(y.sum(), y=y)


def test_docstring_examples_run():
    import doctest

    from leafgrad.teach import graphtext, tour_train
    from leafgrad.teach import tour as tour_module
    for module in (graphtext, tour_module, tour_train):
        result = doctest.testmod(module)
        assert result.attempted > 0 and result.failed == 0, module.__name__


def test_sparkline():
    assert sparkline([4, 3, 2, 1], width=4) == "█▆▃▁"
    assert sparkline([1.0] * 10, width=5) == "▁▁▁▁▁"
    assert len(sparkline(list(range(1000)), width=60)) == 60
