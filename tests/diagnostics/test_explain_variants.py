"""Every way of causing a code that the README's table names (``int()``, ``tolist()``,
``torch.tensor([t1, t2])``, ``as_tensor`` of a list, ``detach_()``, ``argmax``, ...): the
function ``explain`` names the code at the line marked ``# <-``."""
from __future__ import annotations

import pytest

from ._helpers import run_in_process

HEAD = """\
import torch
w = torch.tensor([0.25, 0.75], requires_grad=True)
b = torch.tensor(2.0, requires_grad=True)
"""

# name: (code, the program's lines after HEAD; the cause's line ends with "# <-")
VARIANTS = {
    "int": ("python-number", ["s = int(w.sum() * 4)  # <-", "loss = s * b"]),
    "tolist": ("python-number", ["s = (w * 3).tolist()  # <-",
                                 "loss = torch.tensor(s).sum() * b"]),
    "tensor-of-list": ("new-leaf", ["h = torch.tensor([w[0] * 2, w[1]])  # <-",
                                    "loss = (h * b).sum()"]),
    "as_tensor-of-list": ("new-leaf", ["h = torch.as_tensor([w[0], w[1] * 3])  # <-",
                                       "loss = (h * b).sum()"]),
    "detach_": ("detached", ["h = w * 2", "h.detach_()  # <-", "loss = (h * b).sum()"]),
    "data": ("detached", ["h = (w * 2).data  # <-", "loss = (h * b).sum()"]),
    "numpy": ("numpy", ["a = w.detach().numpy() * 2  # <-",
                        "loss = (torch.from_numpy(a) * b).sum()"]),
    "argmax": ("non-differentiable-op", ["i = w.argmax()  # <-", "loss = i * b"]),
    "floor": ("non-differentiable-op", ["h = (w * 4).floor()  # <-", "loss = (h * b).sum()"]),
    "sign": ("non-differentiable-op", ["h = torch.sign(w - 0.5)  # <-",
                                       "loss = (h * b).sum()"]),
    "to-int": ("integer-dtype", ["k = w.to(torch.int64)  # <-", "loss = (k * b).sum()"]),
    "no_grad-decorator": ("no-grad", ["@torch.no_grad()", "def f(x):",
                                      "    return x * 2  # <-", "loss = (f(w) * b).sum()"]),
    "inference_mode": ("inference-mode", ["with torch.inference_mode():",
                                          "    h = w.exp()  # <-",
                                          "loss = (h.clone() * b).sum()"]),
    "requires_grad_(False)": ("requires-grad-false", ["w.requires_grad_(False)  # <-",
                                                      "loss = (w * b).sum()"]),
    "requires_grad=False": ("requires-grad-false", ["w.requires_grad = False  # <-",
                                                    "loss = (w * b).sum()"]),
    "frozen-parameter": ("requires-grad-false", ["p = torch.nn.Parameter(w.detach())",
                                                 "p.requires_grad_(False)  # <-",
                                                 "loss = (p * b).sum()", "w = p"]),
}


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_variant(name, tmp_path):
    code, body = VARIANTS[name]
    source = HEAD + "\n".join(body) + "\nloss.backward()\ntarget = w\n"
    path = tmp_path / "prog.py"
    path.write_text(source)
    lines = source.splitlines()
    marked = [i + 1 for i, line in enumerate(lines) if line.endswith("# <-")]
    found, _ = run_in_process(str(path))
    assert [(f.code, f.line) for f in found] == [(code, marked[0])], [str(f) for f in found]


def test_readme_documents_every_code():
    import os
    import re

    from leafgrad.diagnostics.codes import CODES

    from ._helpers import PROGRAMS, ROOT, expected
    with open(os.path.join(ROOT, "README.md")) as f:
        readme = f.read()
    section = readme.split("## Diagnostics")[1].split("\n## ")[0]
    table = re.findall(r"^\| `([a-z-]+)` \|", section, re.MULTILINE)
    assert sorted(table) == sorted(CODES)
    # and each is produced by a test program
    shown = {code for p in PROGRAMS for _, code in expected(p)}
    shown |= {code for code, _ in VARIANTS.values()}
    assert shown == set(CODES)
