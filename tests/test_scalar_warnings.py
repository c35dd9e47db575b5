"""Warnings users see when a tensor that requires grad becomes a Python number: PyTorch's text
(with its 'Triggered internally' tail), at the user's line, once per process, and none under
no_grad. Run as programs on both libraries (tests/test_cli_run.py's helpers)."""
from tests.test_cli_run import assert_same_run


PROGRAM = """\
import warnings
warnings.simplefilter("always")
import numpy as np
import torch
x = torch.tensor(1.5, requires_grad=True)
with torch.no_grad():
    print(float(x), int(x), x.item())
    a = torch.tensor([x, x])
print(float(x))
print(float(x))
b = torch.tensor([x, x])
v = torch.ones(2, requires_grad=True)
c = torch.tensor([np.ones(2), np.ones(2)])
print(a, b, c.shape, torch.tensor(2.).T, torch.ones(2, 3, 4).T.shape)
try:
    torch.tensor([torch.tensor([1., 2], requires_grad=True)])
except ValueError as e:
    print("ValueError:", e)
"""


def test_first_conversion_warns_then_raises(tmp_path):
    """The warning comes before the size check (PyTorch's order), in a fresh process: the
    warning is once per process, so this cannot be compared inside the shared test process."""
    (tmp_path / "t.py").write_text(
        "import torch\n"
        "try:\n"
        "    torch.tensor([torch.tensor([1., 2], requires_grad=True)])\n"
        "except ValueError as e:\n"
        "    print('ValueError:', e)\n")
    assert_same_run(tmp_path, "t.py")


def test_scalar_conversion_warnings(tmp_path):
    (tmp_path / "t.py").write_text(PROGRAM)
    assert_same_run(tmp_path, "t.py")
