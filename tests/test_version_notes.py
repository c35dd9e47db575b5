"""Version-counter errors carry a note naming the line of the in-place change (issue 3 point 2,
on top of PyTorch), while the message itself stays PyTorch's."""
from __future__ import annotations

import inspect

import pytest

import leafgrad as torch
from oracle import same_on_both


def _line_of(marker: str, fn) -> int:
    lines, start = inspect.getsourcelines(fn)
    for i, text in enumerate(lines):
        if marker in text:
            return start + i
    raise AssertionError(marker)


def _notes(exc):
    return getattr(exc, "__notes__", [])


def test_note_names_the_inplace_line():
    def program():
        x = torch.ones(2, requires_grad=True)
        y = x.sigmoid()
        y.mul_(2)  # the change
        y.sum().backward()
    with pytest.raises(RuntimeError, match="modified by an inplace operation") as info:
        program()
    (note,) = _notes(info.value)
    assert f"{__file__}:{_line_of('# the change', program)}" in note
    assert "version 1" in note


def test_note_names_the_optimizer_step():
    def program():
        model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Linear(4, 1))
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        loss = (model(torch.ones(2, 3)) ** 2).sum()
        loss.backward(retain_graph=True)
        opt.step()  # the update
        loss.backward()
    with pytest.raises(RuntimeError, match="modified by an inplace operation") as info:
        program()
    (note,) = _notes(info.value)
    assert f":{_line_of('# the update', program)}, in program()" in note


def test_note_for_setitem_and_message_is_still_pytorchs():
    def program(t):
        x = t.ones(3, requires_grad=True)
        y = x * 1
        z = y * y
        y[0] = 5
        z.sum().backward()
    mine = same_on_both(program)
    assert mine[0] == "error"
    with pytest.raises(RuntimeError) as info:
        program(torch)
    assert "in program()" in _notes(info.value)[0]
