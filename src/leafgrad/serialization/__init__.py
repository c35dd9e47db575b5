"""``torch.save`` / ``torch.load``: checkpoints as safetensors files, never pickles.

A checkpoint is a `safetensors <https://github.com/huggingface/safetensors>`_ file: the tensors
are stored by name (their path in the saved object: ``0.weight``, ``state.0.exp_avg``), and the
rest of the object (dict keys, lists, numbers, strings, which tensors require grad) is a JSON
tree in the file's ``__metadata__`` (see Note [Checkpoint structure] in ``_structure.py``).
So a ``model.state_dict()`` saved by leafgrad is an ordinary safetensors state dict that
PyTorch reads with ``safetensors.torch.load_file``, and a file written by
``safetensors.torch.save_file`` loads here. Loading never runs code from the file.

Saving to a path is atomic: the bytes go to a temporary file in the same directory, which is
flushed, synced and renamed over the target, so a crash mid-save leaves the old checkpoint.

>>> import io, leafgrad as torch
>>> model = torch.nn.Linear(2, 1)
>>> buffer = io.BytesIO()
>>> torch.save(model.state_dict(), buffer)
>>> _ = buffer.seek(0)
>>> state = torch.load(buffer)
>>> list(state), torch.equal(state["weight"], model.weight)
(['weight', 'bias'], True)

Differences from PyTorch's pickle format, all deliberate: arbitrary Python objects (a whole
``nn.Module``, a function) cannot be saved, save their ``state_dict()`` instead; tensors that
share storage are stored as separate copies of the data each one shows; ``.grad`` is not
saved (as in PyTorch).
"""
from __future__ import annotations

import json
import os
import secrets
import stat

from ..tensor import Tensor, check_device
from . import _format
from ._format import CheckpointError
from ._structure import flatten, unflatten

__all__ = ["load", "save"]

_VERSION = "1"
_STRUCTURE = "leafgrad.structure"


def save(obj, f, pickle_module=None, pickle_protocol=2, _use_new_zipfile_serialization=True,
         _disable_byteorder_record=False) -> None:
    """Save ``obj`` (tensors, containers of them, numbers, strings) to ``f``.

    ``f`` is a path (``str`` or ``os.PathLike``; written atomically) or a binary file object
    (written at its current position, left open). The pickle arguments are accepted for
    compatibility with ``torch.save`` and ignored: nothing is pickled.

    >>> import io, leafgrad as torch
    >>> buffer = io.BytesIO()
    >>> torch.save({"step": 3, "w": torch.ones(2, requires_grad=True)}, buffer)
    >>> _ = buffer.seek(0)
    >>> torch.load(buffer)
    {'step': 3, 'w': tensor([1., 1.], requires_grad=True)}
    """
    tree, entries = flatten(obj)   # TypeError here, before the disk is touched
    metadata = {"format": "pt", "leafgrad.version": _VERSION,
                _STRUCTURE: json.dumps(tree, separators=(",", ":"), ensure_ascii=False,
                                       allow_nan=False)}
    if isinstance(f, (str, os.PathLike)):
        _atomic_write(os.fspath(f), lambda out: _format.write(out, entries, metadata))
    else:
        _format.write(f, entries, metadata)


def _atomic_write(path: str, write) -> None:
    """Write via a temporary sibling file, fsync it, then rename it over ``path``."""
    target = os.path.realpath(path)   # through a symlink, as open(path, "wb") would write
    directory = os.path.dirname(target) or "."
    base = os.path.basename(target)
    while True:
        tmp = os.path.join(directory, f".{base}.{secrets.token_hex(4)}.tmp")
        try:
            # 0o666 filtered by the umask, the mode open() would give a new file
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0),
                         0o666)
            break
        except FileExistsError:
            continue
    try:
        with os.fdopen(fd, "wb") as out:
            write(out)
            out.flush()
            os.fsync(out.fileno())
        try:
            os.chmod(tmp, stat.S_IMODE(os.stat(target).st_mode))   # keep an old file's mode
        except FileNotFoundError:
            pass
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    _fsync_directory(directory)


def _fsync_directory(directory: str) -> None:
    # Make the rename itself durable; directories cannot be opened this way on Windows.
    if not hasattr(os, "O_DIRECTORY"):
        return
    try:
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None,
         **pickle_load_args):
    """Load an object saved by :func:`save`, or any safetensors file.

    ``f`` is a path or a binary file object. A safetensors file without leafgrad's structure
    (e.g. from ``safetensors.torch.save_file``) loads as a dict of name -> tensor, in the
    order ``safetensors.torch.load_file`` returns. ``map_location`` may name the CPU
    (``None``, ``"cpu"``, a device, a dict, or a callable ``(tensor, "cpu") -> tensor``);
    ``weights_only`` is accepted and changes nothing, since loading never unpickles. A
    corrupt, truncated or foreign file raises :class:`CheckpointError` and nothing is
    returned.

    >>> import io, leafgrad as torch
    >>> buffer = io.BytesIO()
    >>> torch.save([torch.tensor([1, 2]), (0.5, "adam")], buffer)
    >>> _ = buffer.seek(0)
    >>> torch.load(buffer, map_location="cpu", weights_only=True)
    [tensor([1, 2]), (0.5, 'adam')]
    """
    relocate = _location(map_location)
    if isinstance(f, (str, os.PathLike)):
        where = repr(os.fspath(f))
        with open(f, "rb") as file:
            arrays, metadata = _format.read(file, where)
    else:
        if isinstance(f, (bytes, bytearray, memoryview)):
            raise TypeError("leafgrad.load expects a path or a binary file object; wrap bytes "
                            "in io.BytesIO")
        name = getattr(f, "name", None)
        where = repr(name) if isinstance(name, str) else "the file object"
        arrays, metadata = _format.read(f, where)
    if _STRUCTURE not in metadata:
        obj = {name: _wrap_array(array) for name, array in arrays.items()}
    else:
        try:
            obj = unflatten(json.loads(metadata[_STRUCTURE]), arrays)
        except KeyError as e:
            raise CheckpointError(f"{where} is not a valid checkpoint: its structure refers "
                                  f"to tensor {e.args[0]!r}, which the file lacks") from None
        except (TypeError, ValueError, AttributeError, RuntimeError) as e:
            raise CheckpointError(f"{where} is not a valid checkpoint: its structure "
                                  f"metadata is corrupt ({e})") from None
    return relocate(obj) if relocate else obj


def _wrap_array(array):
    from ..tensor import _wrap
    return _wrap(array)


def _location(map_location):
    """None, or a function applied to every loaded tensor."""
    if map_location is None:
        return None
    if callable(map_location) and not isinstance(map_location, str):
        return lambda obj: _map_tensors(obj, lambda t: _or_same(map_location(t, "cpu"), t))
    if isinstance(map_location, dict):
        map_location = map_location.get("cpu", "cpu")
    name = str(map_location)
    if name.startswith("cuda"):
        raise RuntimeError(
            "Attempting to deserialize object on a CUDA device but torch.cuda.is_available() "
            "is False. If you are running on a CPU-only machine, please use torch.load with "
            "map_location=torch.device('cpu') to map your storages to the CPU.")
    check_device(name)
    return None


def _or_same(result, tensor):
    return result if isinstance(result, Tensor) else tensor


def _map_tensors(obj, fn):
    if isinstance(obj, Tensor):
        return fn(obj)
    if isinstance(obj, (list, tuple)):
        return type(obj)(_map_tensors(v, fn) for v in obj)
    if isinstance(obj, dict):
        out = type(obj)((k, _map_tensors(v, fn)) for k, v in obj.items())
        if getattr(obj, "__dict__", None):
            out.__dict__.update(obj.__dict__)
        return out
    return obj
