"""The verb on whole programs: a healthy training loop yields no findings, the program's own
output is unchanged (stdout, and stderr up to the report), warnings keep the user's line,
tracebacks leave the wrappers out, and diagnostics restore every original when turned off."""
from __future__ import annotations

import json
import os
import sys

from ._helpers import HERE, run_cli, run_in_process

HEALTHY = os.path.join(HERE, "healthy.py")
PROG = os.path.join(HERE, "programs")


def test_healthy_training_has_no_findings_function():
    found, g = run_in_process(HEALTHY)
    assert found == []
    import leafgrad
    # explain on the trained module: every parameter has a useful gradient
    assert leafgrad.explain(g["model"], quiet=True) == []


def test_healthy_training_has_no_findings_verb(tmp_path):
    report = tmp_path / "r.json"
    run = run_cli("run", HEALTHY)
    verb = run_cli("explain", "--json", str(report), HEALTHY)
    assert verb.returncode == run.returncode == 0
    assert verb.stdout == run.stdout
    assert json.loads(report.read_text()) == {"findings": []}
    assert verb.stderr == run.stderr + "leafgrad explain: no findings\n"


def test_output_and_warnings_unchanged(tmp_path):
    # torch.tensor(t) warns at the user's line; the non-leaf .grad read warns too
    for name in ("new_leaf.py", "reassigned.py"):
        path = os.path.join(PROG, name)
        run = run_cli("run", path)
        verb = run_cli("explain", path)
        assert verb.stdout == run.stdout
        assert verb.stderr.startswith(run.stderr), (verb.stderr, run.stderr)
        assert f"{path}:" in run.stderr   # the warning names the user's file


def test_uncaught_error_traceback_and_status(tmp_path):
    prog = tmp_path / "boom.py"
    prog.write_text("import torch\n"
                    "w = torch.tensor([1.0, 2.0], requires_grad=True)\n"
                    "y = w * 2\n"
                    "y.backward()\n")
    report = tmp_path / "r.json"
    run = run_cli("run", str(prog))
    verb = run_cli("explain", f"--json={report}", str(prog))
    assert verb.returncode == run.returncode == 1
    assert verb.stderr.startswith(run.stderr)
    assert "diagnostics" not in verb.stderr.split("leafgrad explain:")[0]
    findings = json.loads(report.read_text())["findings"]
    assert [(f["code"], f["line"]) for f in findings] == [("non-scalar", 4)]


def test_usage_errors():
    assert run_cli("explain").returncode == 2
    bad = run_cli("explain", "--nope", "x.py")
    assert bad.returncode == 2 and "unknown option --nope" in bad.stderr


def _snapshot():
    import warnings

    import leafgrad
    from leafgrad import Tensor, autograd
    from leafgrad.autograd.graph import Node
    from leafgrad.grad_mode import no_grad, set_grad_enabled
    from leafgrad.nn.modules.module import Module
    from leafgrad.ops.registry import RECORDS
    from leafgrad.optim import SGD, Optimizer
    return (dict(Tensor.__dict__), dict(vars(leafgrad)), dict(vars(autograd)),
            dict(Module.__dict__), warnings.warn,
            {n: (r.dispatch, r.public.__globals__.get("_dispatch")) for n, r in
             RECORDS.items()},
            dict(Optimizer.__dict__), dict(SGD.__dict__), dict(set_grad_enabled.__dict__),
            dict(no_grad.__dict__), dict(Node.__dict__))


def test_disable_restores_every_original():
    import leafgrad
    before = _snapshot()
    with leafgrad.diagnostics.enable():
        assert leafgrad.diagnostics.is_enabled()
        during = _snapshot()
        assert during[0]["detach"] is not before[0]["detach"]
        assert during[5]["mul"] != before[5]["mul"]
    assert not leafgrad.diagnostics.is_enabled()
    after = _snapshot()
    for b, a in zip(before, after):
        if isinstance(b, dict):
            assert b.keys() == a.keys()
            assert all(b[k] is a[k] or b[k] == a[k] for k in b)
        else:
            assert b is a
    assert sys.modules["leafgrad"] is leafgrad


def test_optimizer_defined_while_on_is_restored_when_off():
    import leafgrad
    with leafgrad.diagnostics.enable():
        class Mine(leafgrad.optim.SGD):
            def step(self, closure=None):
                return super().step(closure)
        observed = Mine.__dict__["step"]
    plain = Mine.__dict__["step"]
    assert plain is not observed
    assert "diagnostics" in observed.__code__.co_filename
    assert "diagnostics" not in plain.__code__.co_filename     # optim's own step wrapper
    w = leafgrad.nn.Parameter(leafgrad.ones(1))
    w.grad = leafgrad.ones(1)
    Mine([w], lr=0.5).step()
    assert w.tolist() == [0.5]
