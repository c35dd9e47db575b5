"""``torch.device``: only the CPU exists here; ``check_device`` refuses every other device.

tensor.py re-exports these names (``from leafgrad.tensor import device, check_device``).
"""
from __future__ import annotations

__all__ = ["device", "CPU", "check_device"]


class device:
    """``torch.device``: only the CPU exists here; ``device("cuda")`` raises.

    >>> import leafgrad as torch
    >>> torch.device("cpu"), torch.device("cpu", 0), torch.zeros(1).device == torch.device("cpu")
    (device(type='cpu'), device(type='cpu', index=0), True)
    """

    __slots__ = ("type", "index")

    def __new__(cls, type="cpu", index=None):
        if isinstance(type, device):
            return type
        if isinstance(type, int) and not isinstance(type, bool):
            type, index = "cpu", type   # torch.device(0) is accelerator 0; here none exists
            check_device("cuda")
        check_device(type)
        name = str(type)
        if ":" in name:
            name, _, idx = name.partition(":")
            index = int(idx)
        if index is not None and index < 0:
            raise RuntimeError("Device index must not be negative")
        self = object.__new__(cls)
        self.type = name
        self.index = index
        return self

    def __repr__(self):
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other):
        return isinstance(other, device) and other.type == self.type \
            and other.index == self.index

    def __hash__(self):
        return hash((self.type, self.index))

    def __reduce__(self):
        return (device, (self.type, self.index))


CPU = object.__new__(device)
CPU.type, CPU.index = "cpu", None


def check_device(spec):
    if spec is None or spec is CPU:
        return
    name = str(spec)
    if name == "cpu" or name.startswith("cpu:"):
        return
    kind = name.split(":")[0]
    if kind in ("cuda", "mps", "xpu", "meta", "hip", "xla", "vulkan", "mkldnn", "opengl",
                "opencl", "ideep", "ve", "fpga", "ort", "lazy", "ipu", "hpu", "mtia",
                "privateuseone"):
        raise RuntimeError(
            f"leafgrad runs on the CPU only; device '{name}' is not available. "
            "Use device='cpu' (or leave device unset).")
    raise RuntimeError(
        "Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, "
        "maia, xla, lazy, vulkan, mps, meta, hpu, mtia, privateuseone device type at start "
        f"of device string: {name}")
