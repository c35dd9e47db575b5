"""Finding codes, the ``Finding`` record, and how leafgrad's own errors map to codes.

Each code names one cause of a missing, zero or wrong gradient. ``CODES`` gives its one-line
summary and the usual fix; a finding's ``message`` says what happened in this program.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

__all__ = ["CODES", "Finding", "classify_error"]

CODES = {
    "not-leaf": ("`.grad` was read on a non-leaf tensor; only leaves keep `.grad`",
                 ("read `.grad` on the leaf you created, or call `.retain_grad()` on this "
                 "tensor before backward()")),
    "detached": ("`detach()`/`.data` cut the path from this tensor to the loss",
                 "use the tensor itself; detach only values that must not be trained"),
    "python-number": (("a tensor became a Python number (`.item()`, `float()`, `int()`, "
                      "`.tolist()`), which carries no history"),
                      "keep the computation in tensors; use `.item()` only for logging"),
    "numpy": ("a tensor went through NumPy (`.numpy()`), which carries no history",
              "compute with torch ops instead of NumPy inside the differentiated part"),
    "new-leaf": (("`torch.tensor(t)`/`as_tensor` copied a tensor into a new leaf with no "
                 "history"), ("use the tensor directly (or `torch.stack`/`torch.cat` to combine "
                 "tensors)")),
    "no-grad": (("the value was computed with grad recording off (`torch.no_grad()` or "
                 "`torch.set_grad_enabled(False)`)"),
                ("compute it where grad recording is on: outside the `no_grad` block (or "
                 "after `torch.set_grad_enabled(True)`)")),
    "inference-mode": ("the value was computed under `torch.inference_mode()`",
                       "compute it outside the `inference_mode` block"),
    "integer-dtype": ("an integer or bool tensor cannot carry gradients",
                      ("keep the value in a floating dtype (`.float()`), or make the tensor "
                      "with a float dtype")),
    "requires-grad-false": ("the tensor was created without `requires_grad=True`",
                            ("create it with `requires_grad=True` (or call "
                            "`.requires_grad_()`), or make it an `nn.Parameter`")),
    "not-used": ("the tensor is not part of the graph of the loss that was differentiated",
                 ("use it in the computation of the loss, or remove it from what you expect "
                 "to train")),
    "non-differentiable-op": (("an op without a useful derivative (comparison, argmax, "
                              "rounding...) is on the path"),
                              ("use a differentiable relaxation (e.g. a sigmoid or softmax "
                              "instead of a threshold or argmax)")),
    "reassigned": (("a name was rebound to an update computed with grad recording on, so the "
                   "parameter became a non-leaf"),
                   ("update in place under `torch.no_grad()`: `with torch.no_grad(): w -= lr "
                   "* w.grad`, then `w.grad = None`")),
    "accumulated": ("backward() added to gradients left over from a previous optimizer step",
                    ("call `optimizer.zero_grad()` (or `model.zero_grad()`) before each "
                    "backward()")),
    "zero-grad-updated": (("the optimizer changed a parameter whose gradient was zero "
                          "(weight decay or momentum acted alone)"),
                          ("clear gradients with `zero_grad()` (set_to_none=True) so skipped "
                          "parameters are left alone, or exclude them from the optimizer")),
    "inplace-saved": ("a tensor saved for backward was modified in place",
                      ("replace the in-place op with its out-of-place form (`x = x * 2` "
                      "instead of `x *= 2`), or clone before modifying")),
    "graph-freed": ("backward() ran through a graph whose saved values were already freed",
                    ("pass `retain_graph=True` to the first backward(), or rebuild the graph "
                    "(run the forward again) before each backward()")),
    "non-scalar": ("backward() was called on a non-scalar tensor without a gradient",
                   ("reduce to a scalar first (`loss.sum()`/`loss.mean()`), or pass "
                   "`gradient=` of the tensor's shape")),
    "leaf-inplace": ("a leaf that requires grad was modified in place with grad recording on",
                     "do the update under `torch.no_grad()`"),
    "eval-records-graph": ("a module in `eval()` mode ran with grad recording on",
                           ("wrap evaluation in `with torch.no_grad():` (or "
                           "`torch.inference_mode()`); `eval()` only changes dropout/"
                           "batch-norm behaviour")),
    "no-backward": ("no backward() reached this tensor: none ran after it was made",
                    "call `loss.backward()` before reading `.grad`"),
}


@dataclass
class Finding:
    """One diagnosis: ``code`` (see ``CODES``), where the cause happened, and the fix."""

    code: str
    message: str
    fix: str
    file: str | None = None
    line: int | None = None
    subject: str | None = None   # e.g. the parameter's name

    def as_dict(self) -> dict:
        d = asdict(self)
        d.pop("subject")
        return d

    def __str__(self) -> str:
        where = ""
        if self.file is not None:
            where = f"{self.file}:{self.line}: "
        return f"{where}[{self.code}] {self.message}\n    fix: {self.fix}"


def make(code: str, message: str, site=None, subject=None, fix=None) -> Finding:
    file = line = None
    if site is not None:
        file, line = site[0], site[1]
    return Finding(code, message, fix or CODES[code][1], file, line, subject)


# leafgrad's error messages (PyTorch's texts) and the code each one means
_ERRORS = (
    ("modified by an inplace operation", "inplace-saved"),
    ("Trying to backward through the graph a second time", "graph-freed"),
    ("grad can be implicitly created only for scalar outputs", "non-scalar"),
    ("a leaf Variable that requires grad is being used in an in-place", "leaf-inplace"),
    ("a view of a leaf Variable that requires grad is being used in an in-place",
     "leaf-inplace"),
    ("only Tensors of floating point", "integer-dtype"),
    ("Inference tensors cannot be saved for backward", "inference-mode"),
    ("Inplace update to inference tensor outside InferenceMode", "inference-mode"),
    ("appears to not have been used in the graph", "not-used"),
    ("does not require grad and does not have a grad_fn", "requires-grad-false"),
    ("One of the differentiated Tensors does not require grad", "requires-grad-false"),
    ("Can't call numpy() on Tensor that requires grad", "numpy"),
)


def classify_error(exc: BaseException) -> str | None:
    if not isinstance(exc, (RuntimeError, ValueError, TypeError)):
        return None
    text = str(exc).lower()
    for needle, code in _ERRORS:
        if needle.lower() in text:
            return code
    return None
