"""Which CPU kernels PyTorch picks on this machine, found without importing torch.

PyTorch's CPU kernels come in builds for several instruction sets, and the one that runs
decides the last bits of many results (vector widths, polynomial approximations). Two
libraries choose independently:

* ATen's ``DispatchStub`` (``at::get_cpu_capability()``, what
  ``torch.backends.cpu.get_cpu_capability()`` reports): the ``ATEN_CPU_CAPABILITY``
  environment variable when it is exactly ``avx512``, ``avx2`` or ``default`` (any other
  value is ignored, with a warning), else ``AVX512`` when the CPU has AVX512VL, AVX512BW,
  AVX512DQ and FMA, else ``AVX2`` with AVX2 and FMA, else ``DEFAULT``;
* oneDNN (float32 ``gelu``): its own CPU detection, capped by ``ONEDNN_MAX_CPU_ISA`` (or the
  older ``DNNL_MAX_CPU_ISA``); its ``avx512_core`` kernels need AVX512F, AVX512BW, AVX512VL
  and AVX512DQ. ``ATEN_CPU_CAPABILITY`` does not reach it.

Both are read once, at import, as PyTorch reads them once per process.

An AVX512 capability changes fewer kernels than it suggests: ATen's ``REGISTER_DISPATCH``
registers no AVX-512 build of a kernel (the AVX2 build runs), only
``ALSO_REGISTER_AVX512_DISPATCH`` does (GeluKernel, softmax, some unary and pooling
kernels). The sums, products, max/min ties, ranges and normal fills leafgrad reproduces are
REGISTER_DISPATCH kernels: their 32-byte vectors hold on AVX-512 machines too (session 11's
survey: the same bits as with ``ATEN_CPU_CAPABILITY=avx2``).
"""
from __future__ import annotations

import os
import platform

__all__ = ["ATEN_CAPABILITY", "ATEN_AVX512", "ONEDNN_AVX512_CORE", "aten_capability",
           "cpu_flags", "onednn_avx512_core"]


def cpu_flags() -> frozenset:
    """The CPU's feature flags as Linux names them (``/proc/cpuinfo``), empty elsewhere."""
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key.strip() in ("flags", "Features"):
                    return frozenset(value.split())
    except OSError:
        pass
    return frozenset()


def _x86() -> bool:
    return platform.machine().lower() in ("x86_64", "amd64", "i386", "i686", "x86")


def aten_capability(environ=None, flags=None) -> str:
    """ATen's CPU capability, named as ``torch.backends.cpu.get_cpu_capability()`` names it
    (``"AVX512"``, ``"AVX2"`` or ``"DEFAULT"``; on non-x86 machines ``"DEFAULT"``)."""
    environ = os.environ if environ is None else environ
    value = environ.get("ATEN_CPU_CAPABILITY")
    # exact, case-sensitive matches, as DispatchStub.cpp compares them
    if value in ("avx512", "avx2", "default"):
        return value.upper()
    if flags is None:
        if not _x86():
            return "DEFAULT"
        flags = cpu_flags()
    if {"avx512vl", "avx512bw", "avx512dq", "fma"} <= flags:
        return "AVX512"
    if {"avx2", "fma"} <= flags:
        return "AVX2"
    return "DEFAULT"


# oneDNN's ISA names below avx512_core (ONEDNN_MAX_CPU_ISA); any other value (AVX512_CORE,
# AVX512_CORE_VNNI, ..., ALL, DEFAULT) leaves avx512_core allowed
_ONEDNN_BELOW_AVX512_CORE = ("SSE41", "AVX", "AVX2", "AVX2_VNNI", "AVX2_VNNI_2",
                             "AVX512_MIC", "AVX512_MIC_4OPS", "AVX512_COMMON")


def onednn_avx512_core(environ=None, flags=None) -> bool:
    """Whether oneDNN runs its ``avx512_core`` kernels here."""
    environ = os.environ if environ is None else environ
    cap = environ.get("ONEDNN_MAX_CPU_ISA", environ.get("DNNL_MAX_CPU_ISA"))
    if cap is not None and cap.strip().upper() in _ONEDNN_BELOW_AVX512_CORE:
        return False
    if flags is None:
        if not _x86():
            return False
        flags = cpu_flags()
    return {"avx512f", "avx512bw", "avx512vl", "avx512dq"} <= flags


ATEN_CAPABILITY = aten_capability()
ATEN_AVX512 = ATEN_CAPABILITY == "AVX512"
ONEDNN_AVX512_CORE = onednn_avx512_core()
