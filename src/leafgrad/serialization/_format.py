"""The safetensors file format, read and written with NumPy alone.

Note [safetensors layout]
A file is: 8 bytes, the header length N as a little-endian unsigned 64-bit integer; N bytes of
UTF-8 JSON, an object mapping each tensor name to ``{"dtype": "F32", "shape": [2, 3],
"data_offsets": [begin, end]}`` plus an optional ``"__metadata__"`` object of string to string;
then the data, each tensor's bytes row-major little-endian at ``[begin, end)`` counted from the
first byte after the header. The tensors tile the data exactly: no gaps, no overlaps, nothing
after the last one. Writers pad the header with spaces so the data starts at a multiple of 8,
and order tensors by decreasing item size so that every tensor is aligned.

Reading trusts nothing: every number in the header is checked against the file before a byte
of data is read, and a failure raises CheckpointError naming the file and the problem.
leafgrad's own files add two CRC-32 checksums to ``__metadata__`` (header fields, data), so a
flipped bit anywhere is caught rather than loaded.
"""
from __future__ import annotations

import io
import json
import struct
import sys
import zlib

import numpy as np

__all__ = ["DTYPE_CODES", "CheckpointError", "read", "write"]

# safetensors dtype code <-> NumPy dtype (little-endian on disk).
DTYPE_CODES = {"F16": "<f2", "F32": "<f4", "F64": "<f8", "I8": "i1", "I16": "<i2",
               "I32": "<i4", "I64": "<i8", "U8": "u1", "BOOL": "?"}
_CODE_OF = {np.dtype(v).newbyteorder("="): k for k, v in DTYPE_CODES.items()}
# Codes the format defines that leafgrad has no dtype for.
_UNSUPPORTED = {"BF16", "U16", "U32", "U64", "F8_E4M3", "F8_E5M2", "F8_E8M0", "F6_E2M3",
                "F6_E3M2", "F4", "C64", "C128"}
_MAX_HEADER = 100 * 1024 * 1024   # the reference implementation's limit
_CHUNK = 16 * 1024 * 1024
HEADER_CRC, DATA_CRC = "leafgrad.header_crc32", "leafgrad.data_crc32"


class CheckpointError(RuntimeError, ValueError):
    """A file that is not a readable checkpoint (truncated, corrupt, or another format).

    It is both a RuntimeError (what ``torch.load`` raises on a corrupt file) and a
    ValueError, so either ``except`` clause catches it.
    """


def write_bytes(f, data) -> None:
    """One write of raw bytes; a seam for tests that simulate a slow disk."""
    f.write(data)


def _as_bytes(array: np.ndarray) -> memoryview:
    a = np.ascontiguousarray(array)
    if a.dtype.byteorder == ">" or (a.dtype.byteorder == "=" and sys.byteorder == "big"):
        a = a.astype(a.dtype.newbyteorder("<"))
    return memoryview(a.reshape(-1)).cast("B")


def _header_checksum(tensors, metadata: dict) -> str:
    """CRC-32 over every header field, in file order (computed alike on write and read)."""
    fields = [[name, info["dtype"], info["shape"], info["data_offsets"]]
              for name, info in tensors]
    meta = {k: v for k, v in metadata.items() if k not in (HEADER_CRC, DATA_CRC)}
    text = json.dumps([fields, meta], separators=(",", ":"), ensure_ascii=False)
    return f"{zlib.crc32(text.encode('utf-8')):08x}"


def write(f, entries, metadata: dict) -> None:
    """Write ``entries`` [(name, ndarray)] and string ``metadata`` to binary file ``f``."""
    arrays = []
    for name, array in entries:
        code = _CODE_OF.get(array.dtype.newbyteorder("="))
        if code is None:
            raise TypeError(f"leafgrad.save: tensor '{name}' has dtype {array.dtype}, "
                            "which safetensors cannot store")
        arrays.append((name, code, array))
    # Largest items first: with the header padded to 8 bytes, every tensor is aligned.
    arrays.sort(key=lambda e: -np.dtype(DTYPE_CODES[e[1]]).itemsize)
    tensors, offset, crc = [], 0, 0
    for name, code, array in arrays:
        nbytes = array.size * array.dtype.itemsize
        tensors.append((name, {"dtype": code, "shape": [int(s) for s in array.shape],
                               "data_offsets": [offset, offset + nbytes]}))
        offset += nbytes
    metadata = dict(metadata)
    metadata[HEADER_CRC] = _header_checksum(tensors, metadata)
    views = [_as_bytes(a) for _, _, a in arrays]
    for view in views:
        crc = zlib.crc32(view, crc)
    metadata[DATA_CRC] = f"{crc:08x}"
    header = {"__metadata__": metadata}
    header.update(tensors)
    text = json.dumps(header, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    text += b" " * (-(8 + len(text)) % 8)
    write_bytes(f, struct.pack("<Q", len(text)) + text)
    for view in views:
        for start in range(0, len(view), _CHUNK):
            write_bytes(f, view[start:start + _CHUNK])


# -- reading ------------------------------------------------------------------------------
def _fail(where: str, problem: str):
    raise CheckpointError(f"{where} is not a valid checkpoint: {problem}")


def _sniff(head: bytes) -> str | None:
    """Name a well-known non-safetensors format from the first bytes, with what to do."""
    if head.startswith(b"PK\x03\x04"):
        return ("it is a zip archive: a PyTorch pickle checkpoint (torch.save's format) or "
                "a NumPy .npz. leafgrad reads safetensors files only, because unpickling "
                "can run arbitrary code; convert it once with PyTorch: "
                "`from safetensors.torch import save_file; save_file(torch.load(path), "
                "'model.safetensors')` (for a state dict of tensors)")
    if len(head) > 1 and head[0] == 0x80 and 2 <= head[1] <= 5:
        return ("it is a Python pickle (PyTorch's legacy torch.save format?). leafgrad reads "
                "safetensors files only; convert it with PyTorch and "
                "safetensors.torch.save_file")
    if head.startswith(b"\x93NUMPY"):
        return "it is a NumPy .npy file; load it with numpy.load and torch.from_numpy"
    if head.startswith(b"\x89HDF"):
        return "it is an HDF5 file, not a safetensors checkpoint"
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if text.isprintable() or all(c.isprintable() or c.isspace() for c in text):
        return f"it looks like a text file (it starts with {text[:16]!r})"
    return None


def read(f, where: str) -> tuple:
    """``(arrays, metadata)`` from the binary file ``f``; ``arrays`` maps name -> ndarray in
    the order of the data (as ``safetensors.torch.load_file`` lists them). Everything is
    validated before any tensor is built."""
    if not f.seekable():
        f = io.BytesIO(f.read())
    start = f.tell()
    size = f.seek(0, io.SEEK_END) - start
    f.seek(start)
    first = f.read(8)
    if size == 0:
        _fail(where, "the file is empty")
    if len(first) < 8:
        _fail(where, f"the file is {size} bytes long, too short for a safetensors header")
    (n,) = struct.unpack("<Q", first)
    if n > size - 8 or n > _MAX_HEADER or n < 2:
        known = _sniff(first + f.read(56))
        if known:
            _fail(where, known)
        if n > size - 8:
            _fail(where, f"the header length field says {n} bytes but only {size - 8} bytes "
                         "follow it (truncated file, or not a safetensors file)")
        _fail(where, f"implausible header length {n}")
    raw = f.read(n)
    tensors, metadata = _parse_header(raw, where)
    data_size = size - 8 - n
    total = _check_offsets(tensors, data_size, where)
    if total < data_size:
        _fail(where, f"{data_size - total} unexpected bytes follow the last tensor")
    if ("leafgrad.version" in metadata or "leafgrad.structure" in metadata) and not (
            HEADER_CRC in metadata and DATA_CRC in metadata):
        _fail(where, "leafgrad's checksums are missing from the header (corrupt header)")
    if HEADER_CRC in metadata and metadata[HEADER_CRC] != _header_checksum(tensors, metadata):
        _fail(where, "the header checksum does not match (the header is corrupt)")
    arrays, crc = {}, 0
    for name, info in sorted(tensors, key=lambda e: e[1]["data_offsets"][0]):
        array = np.empty(info["shape"], dtype=np.dtype(DTYPE_CODES[info["dtype"]]))
        view = memoryview(array.reshape(-1)).cast("B")
        got = f.readinto(view) if len(view) else 0
        if got != len(view):
            _fail(where, f"the data of tensor '{name}' is truncated")
        crc = zlib.crc32(view, crc)
        if info["dtype"] == "BOOL" and len(view) and np.frombuffer(view, np.uint8).max() > 1:
            _fail(where, f"tensor '{name}' is BOOL but holds bytes other than 0 and 1")
        arrays[name] = array if array.dtype.isnative else array.astype(array.dtype.newbyteorder())
    if DATA_CRC in metadata and metadata[DATA_CRC] != f"{crc:08x}":
        _fail(where, "the tensor data checksum does not match (the data is corrupt)")
    return arrays, metadata


def _parse_header(raw: bytes, where: str) -> tuple:
    def no_duplicates(pairs):
        keys = [k for k, _ in pairs]
        if len(set(keys)) != len(keys):
            twice = next(k for k in keys if keys.count(k) > 1)
            _fail(where, f"the header repeats the name {twice!r}")
        return dict(pairs)

    if not raw.startswith(b"{"):
        _fail(where, "the header is not a JSON object (corrupt header)")
    try:
        header = json.loads(raw.decode("utf-8"), object_pairs_hook=no_duplicates)
    except (UnicodeDecodeError, ValueError) as e:
        if isinstance(e, CheckpointError):
            raise
        _fail(where, f"the header is not valid JSON ({e}); the file is corrupt or truncated")
    if not isinstance(header, dict):
        _fail(where, "the header is not a JSON object")
    metadata = header.pop("__metadata__", None) or {}
    if not isinstance(metadata, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in metadata.items()):
        _fail(where, "__metadata__ must map strings to strings")
    tensors = []
    for name, info in header.items():
        if not isinstance(info, dict) or not {"dtype", "shape", "data_offsets"} <= set(info):
            _fail(where, f"entry '{name}' lacks dtype, shape or data_offsets")
        code, shape, offsets = info["dtype"], info["shape"], info["data_offsets"]
        if code in _UNSUPPORTED:
            raise NotImplementedError(
                f"{where}: tensor '{name}' has dtype {code}, which leafgrad does not support "
                f"(it has {', '.join(DTYPE_CODES)}); convert it first, e.g. with PyTorch: "
                "tensor.float()")
        if code not in DTYPE_CODES:
            _fail(where, f"tensor '{name}' has unknown dtype {code!r}")
        if not isinstance(shape, list) or not all(
                type(s) is int and s >= 0 for s in shape):
            _fail(where, f"tensor '{name}' has invalid shape {shape!r}")
        if not (isinstance(offsets, list) and len(offsets) == 2 and all(
                type(o) is int for o in offsets) and 0 <= offsets[0] <= offsets[1]):
            _fail(where, f"tensor '{name}' has invalid data_offsets {offsets!r}")
        nbytes = int(np.prod(shape, dtype=object)) * np.dtype(DTYPE_CODES[code]).itemsize
        if nbytes != offsets[1] - offsets[0]:
            _fail(where, f"tensor '{name}' of dtype {code} and shape {shape} needs {nbytes} "
                         f"bytes but data_offsets {offsets} hold {offsets[1] - offsets[0]}")
        tensors.append((name, info))
    return tensors, metadata


def _check_offsets(tensors, data_size: int, where: str) -> int:
    """The tensors must tile [0, total) with no gap or overlap; returns total."""
    end, previous = 0, None
    for name, info in sorted(tensors, key=lambda e: tuple(e[1]["data_offsets"])):
        begin, stop = info["data_offsets"]
        if begin < end:
            _fail(where, f"tensors '{previous}' and '{name}' overlap in the data")
        if begin > end:
            _fail(where, f"a gap of {begin - end} bytes precedes tensor '{name}'")
        if stop > data_size:
            _fail(where, f"tensor '{name}' ends at byte {stop} of the data but the file has "
                         f"only {data_size} data bytes (truncated file?)")
        end, previous = stop, name
    return end
