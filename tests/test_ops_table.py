"""`leafgrad ops` prints the table generated from the op records; docs/ops.md is that output."""
from __future__ import annotations

import os
import subprocess
import sys

from leafgrad.ops.registry import RECORDS
from leafgrad.ops.table import format_table

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_cli_prints_every_record():
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "src"))
    out = subprocess.run([sys.executable, "-m", "leafgrad", "ops"], capture_output=True,
                         text=True, env=env, check=True).stdout
    for name, rec in RECORDS.items():
        assert f"| {name} |" in out, name
        if rec.differentiable:
            assert f"| {rec.grad_fn_name} |" in out
    assert f"{len(RECORDS)} op records" in out


def test_docs_table_is_current():
    with open(os.path.join(ROOT, "docs", "ops.md")) as f:
        text = f.read()
    assert text.strip() == format_table().strip(), (
        "docs/ops.md is stale: regenerate it with `leafgrad ops > docs/ops.md`")
