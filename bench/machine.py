"""What the numbers were measured on, and import times in fresh interpreters."""
from __future__ import annotations

import os
import platform
import statistics
import subprocess
import sys

from .libs import SRC

BLAS_ENV = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS",
            "MKL_NUM_THREADS", "NVPL_BLAS_DEBUG_CPU_TYPE")


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def numpy_blas() -> str:
    """NumPy's BLAS library and, where threadpoolctl is installed, the kernel and threads it
    runs with (OPENBLAS_CORETYPE changes the kernel, so it matters for the floor)."""
    import numpy as np
    try:
        blas = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
        text = f"{blas.get('name')} {blas.get('version')}"
    except Exception:  # noqa: BLE001
        text = "unknown"
    try:
        from threadpoolctl import threadpool_info
        for info in threadpool_info():
            if info.get("user_api") == "blas":
                text += (f" (threads {info.get('num_threads')},"
                         f" kernel {info.get('architecture')})")
                break
    except ImportError:
        text += " (threads/kernel: threadpoolctl not installed)"
    return text


def describe(torch) -> dict:
    """Machine, versions, threads and BLAS-related environment."""
    import numpy as np
    try:
        affinity = len(os.sched_getaffinity(0))
    except AttributeError:
        affinity = os.cpu_count()
    try:
        load = os.getloadavg()
    except OSError:
        load = None
    info = {
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "cores_usable": affinity,
        "loadavg_at_start": [round(v, 2) for v in load] if load else None,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "numpy_blas": numpy_blas(),
        "torch": torch.__version__ if torch else None,
        "torch_threads": torch.get_num_threads() if torch else None,
        "recursion_limit": sys.getrecursionlimit(),
        "env": {k: os.environ.get(k) for k in BLAS_ENV},
    }
    return info


def import_time(module: str, clock: str = "wall") -> float | None:
    """Seconds for ``import module`` in a fresh interpreter (leafgrad from src/); ``clock``
    "cpu" counts that interpreter's CPU time instead of wall time."""
    timer = "time.process_time" if clock == "cpu" else "time.perf_counter"
    code = (f"import time; t = {timer}(); import {module}; print({timer}() - t)")
    env = dict(os.environ)
    env["PYTHONPATH"] = SRC + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, check=False)
    if proc.returncode != 0:
        return None
    return float(proc.stdout.strip().splitlines()[-1])


def bytecode_note() -> str:
    """Whether fresh interpreters find compiled bytecode: with PYTHONDONTWRITEBYTECODE and no
    ``__pycache__`` beside the sources, every import compiles leafgrad from source."""
    if os.environ.get("PYTHONDONTWRITEBYTECODE"):
        prefix = os.environ.get("PYTHONPYCACHEPREFIX")
        return ("PYTHONDONTWRITEBYTECODE set: leafgrad's bytecode is only what already exists"
                + (f" under {prefix}" if prefix else " in its __pycache__ folders"))
    return "bytecode cached" + (f" under {os.environ['PYTHONPYCACHEPREFIX']}"
                                if os.environ.get("PYTHONPYCACHEPREFIX") else "")
