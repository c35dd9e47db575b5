"""Grad-mode switches under diagnostics: ``set_grad_enabled(False)`` as a block, a decorator
and a plain call is tracked like ``no_grad`` (the programs in ``programs/`` check the finding
and its line); here, that the tracking ends where the mode ends, and that the wrappers leave
the grad mode itself exactly as PyTorch has it."""
from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")


def _steps(t):
    """A sequence of grad-mode switches; yields is_grad_enabled() after each."""
    yield t.is_grad_enabled()
    with t.set_grad_enabled(False):
        yield t.is_grad_enabled()
        with t.enable_grad():
            yield t.is_grad_enabled()
        t.set_grad_enabled(True)          # a plain switch inside the block ends with it
        yield t.is_grad_enabled()
    yield t.is_grad_enabled()

    @t.set_grad_enabled(False)
    def f():
        return t.is_grad_enabled()
    yield t.is_grad_enabled()             # decorating does not switch the mode
    yield f()
    yield t.is_grad_enabled()
    t.set_grad_enabled(False)
    yield t.is_grad_enabled()
    with t.no_grad():
        yield t.is_grad_enabled()
    yield t.is_grad_enabled()
    t.set_grad_enabled(True)
    yield t.is_grad_enabled()


def test_modes_match_torch_under_diagnostics():
    import leafgrad
    expected = list(_steps(torch))
    with leafgrad.diagnostics.enable():
        got = list(_steps(leafgrad))
    assert got == expected
    assert leafgrad.is_grad_enabled()


def _user_mode():
    from leafgrad.diagnostics import provenance as pv
    entry = pv.current_user_mode()
    return None if entry is None else (entry[0], entry[1][1], entry[2])


def test_tracking_ends_with_the_mode():
    import inspect

    import leafgrad as t
    line = inspect.currentframe().f_lineno
    with t.diagnostics.enable():
        assert _user_mode() is None
        with t.set_grad_enabled(False):
            inside = _user_mode()
            with t.enable_grad():
                assert _user_mode() is None       # the user turned grad back on
        assert _user_mode() is None
        t.set_grad_enabled(False)
        plain = _user_mode()
        with t.no_grad():
            nested = _user_mode()
        after_block = _user_mode()
        t.set_grad_enabled(True)
        assert _user_mode() is None

        @t.set_grad_enabled(False)
        def f():
            return _user_mode()
        assert _user_mode() is None               # decorating switches nothing
        in_call = f()
        assert _user_mode() is None
    label = "torch.set_grad_enabled(False)"
    assert inside == ("no-grad", line + 3, label)
    assert plain == ("no-grad", line + 8, label)
    assert nested == ("no-grad", line + 10, "torch.no_grad()")
    assert after_block == plain
    assert in_call == ("no-grad", line + 20, label)   # grad went off where f was called
