"""The diagnostics modules' docstring examples run as written."""
from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["leafgrad.diagnostics", "leafgrad.diagnostics.explain", "leafgrad.diagnostics.viz"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0
