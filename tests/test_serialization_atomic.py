"""Atomic saves: a save to a path either completes or leaves the previous file as it was,
even when the writing process is killed with SIGKILL in the middle."""
from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import leafgrad
from leafgrad.serialization import _format

SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")


def test_normal_save_leaves_only_the_target(tmp_path):
    path = tmp_path / "ckpt.safetensors"
    for i in range(3):
        leafgrad.save({"w": leafgrad.full((4,), float(i))}, path)
    assert os.listdir(tmp_path) == ["ckpt.safetensors"]
    assert leafgrad.load(path)["w"].tolist() == [2.0] * 4


def test_new_file_gets_the_umask_mode_and_an_old_file_keeps_its_mode(tmp_path):
    old_umask = os.umask(0o022)
    try:
        path = tmp_path / "new.pt"
        leafgrad.save(leafgrad.ones(1), path)
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o644   # as open(path, "wb") gives
        os.chmod(path, 0o600)
        leafgrad.save(leafgrad.zeros(1), path)
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    finally:
        os.umask(old_umask)


def test_saving_through_a_symlink_replaces_the_target_not_the_link(tmp_path):
    (tmp_path / "real").mkdir()
    target = tmp_path / "real" / "model.pt"
    leafgrad.save(leafgrad.ones(1), target)
    link = tmp_path / "latest.pt"
    link.symlink_to(target)
    leafgrad.save(leafgrad.zeros(2), link)
    assert link.is_symlink() and leafgrad.load(target).tolist() == [0.0, 0.0]
    assert sorted(os.listdir(tmp_path / "real")) == ["model.pt"]


def test_a_failing_write_keeps_the_old_file_and_removes_the_temporary(tmp_path, monkeypatch):
    path = tmp_path / "ckpt.pt"
    leafgrad.save({"w": leafgrad.ones(3)}, path)
    before = path.read_bytes()
    calls = []

    def failing(f, data):
        calls.append(len(data))
        if len(calls) == 2:
            raise OSError(28, "No space left on device")
        f.write(data)

    monkeypatch.setattr(_format, "write_bytes", failing)
    with pytest.raises(OSError, match="No space left"):
        leafgrad.save({"w": leafgrad.zeros(3)}, path)
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["ckpt.pt"]


def test_missing_directory_raises_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError):
        leafgrad.save(leafgrad.ones(1), tmp_path / "no" / "such" / "dir.pt")


CHILD = textwrap.dedent("""
    import sys, time
    import numpy as np
    import leafgrad
    from leafgrad.serialization import _format

    path = sys.argv[1]
    first = {"w": leafgrad.from_numpy(np.full((256, 1024), 1.0, np.float32)), "epoch": 1}
    leafgrad.save(first, path)
    print("saved", flush=True)

    real = _format.write_bytes
    def slow(f, data):          # a slow disk: 4 KiB at a time, with pauses (about 5 s in all)
        view = memoryview(data)
        for start in range(0, len(view), 4096):
            real(f, view[start:start + 4096])
            f.flush()
            time.sleep(0.02)
    _format.write_bytes = slow
    leafgrad.save({"w": leafgrad.from_numpy(np.full((256, 1024), 2.0, np.float32)),
                   "epoch": 2}, path)
    print("second save finished", flush=True)
""")


def test_sigkill_mid_save_leaves_the_previous_checkpoint(tmp_path):
    path = tmp_path / "ckpt.safetensors"
    env = dict(os.environ, PYTHONPATH=SRC + os.pathsep + os.environ.get("PYTHONPATH", ""))
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(path)], env=env,
                             stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "saved"
        # wait until a temporary file is being written (partly)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            temps = [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
            if temps and temps[0].stat().st_size > 64 * 1024:
                break
            time.sleep(0.01)
        else:
            pytest.fail("the child never started its second save")
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        child.stdout.close()
    assert child.returncode == -signal.SIGKILL
    loaded = leafgrad.load(path)   # the first checkpoint, whole
    assert loaded["epoch"] == 1 and loaded["w"].shape == (256, 1024)
    assert np.all(loaded["w"].numpy() == 1.0)
    # the killed save's partial temporary file is all that is left of it
    leftovers = [p for p in tmp_path.iterdir() if p.name != "ckpt.safetensors"]
    assert len(leftovers) == 1 and leftovers[0].name.startswith(".ckpt.safetensors.")
    assert 64 * 1024 < leftovers[0].stat().st_size < path.stat().st_size
