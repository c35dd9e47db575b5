"""Each cause code: a small program where ``explain`` (function and verb) names the code at
the line of the cause (the ``# expect: CODE`` comment in ``programs/``)."""
from __future__ import annotations

import os

import pytest

from ._helpers import PROGRAMS, expected, run_in_process, run_verb_batch

IDS = [os.path.basename(p)[:-3] for p in PROGRAMS]


def test_every_program_expects_something():
    for p in PROGRAMS:
        assert expected(p), p


@pytest.mark.parametrize("path", PROGRAMS, ids=IDS)
def test_explain_function(path):
    found, _ = run_in_process(path)
    got = [(f.line, f.code) for f in found]
    assert got == expected(path), [str(f) for f in found]
    for f in found:
        assert f.file == path
        assert f.message and f.fix


@pytest.fixture(scope="module")
def verb_reports(tmp_path_factory):
    return run_verb_batch(PROGRAMS, tmp_path_factory.mktemp("reports"))


@pytest.mark.parametrize("path", PROGRAMS, ids=IDS)
def test_explain_verb(path, verb_reports):
    findings = verb_reports[path]
    got = [(f["line"], f["code"]) for f in findings]
    assert got == expected(path), findings
    for f in findings:
        assert set(f) == {"code", "file", "line", "message", "fix"}
        assert f["file"] == path
