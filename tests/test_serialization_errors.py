"""Bad checkpoints: every corrupt, truncated or foreign file raises CheckpointError naming the
file and the problem, and nothing half-loaded is ever returned. Hand-made malformed files are
also fed to ``safetensors`` itself, which must reject them too (so the checks are the format's
rules, not leafgrad's whims)."""
from __future__ import annotations

import io
import json
import struct
import zlib

import numpy as np
import pytest
import safetensors.torch
import torch
from safetensors import SafetensorError

import leafgrad
from leafgrad.serialization import CheckpointError, _format

CHECKPOINT = {"w": leafgrad.arange(6, dtype=leafgrad.float32).reshape(2, 3),
              "b": leafgrad.tensor([1, 0], dtype=leafgrad.int64),
              "m": leafgrad.tensor([True, False]), "lr": 0.1, "tag": "x"}


def saved_bytes(obj=CHECKPOINT) -> bytes:
    buffer = io.BytesIO()
    leafgrad.save(obj, buffer)
    return buffer.getvalue()


def load_bytes(raw: bytes, tmp_path, name="bad.safetensors"):
    path = tmp_path / name
    path.write_bytes(raw)
    return leafgrad.load(path)


def crafted(header: dict, data: bytes, pad=True) -> bytes:
    """A file with exactly this header and data (checksums only where the metadata has a
    leafgrad structure, computed so that they match)."""
    meta = header.get("__metadata__")
    if meta and "leafgrad.structure" in meta:
        tensors = [(k, v) for k, v in header.items() if k != "__metadata__"]
        meta[_format.HEADER_CRC] = _format._header_checksum(tensors, meta)
        meta[_format.DATA_CRC] = f"{zlib.crc32(data):08x}"
    text = json.dumps(header).encode()
    if pad:
        text += b" " * (-(8 + len(text)) % 8)
    return struct.pack("<Q", len(text)) + text + data


def assert_rejected(raw: bytes, tmp_path, match: str, by_safetensors=True):
    with pytest.raises(CheckpointError, match=match) as info:
        load_bytes(raw, tmp_path)
    assert "bad.safetensors" in str(info.value)   # names the file
    if by_safetensors:
        with pytest.raises(SafetensorError):
            safetensors.torch.load(raw)


F32 = {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}


@pytest.mark.parametrize("header, data, match", [
    ({"a": F32}, b"\0" * 4, "only 4 data bytes"),
    ({"a": F32}, b"\0" * 12, "4 unexpected bytes"),
    ({"a": F32, "b": {**F32, "data_offsets": [4, 12]}}, b"\0" * 12, "overlap"),
    ({"a": {**F32, "data_offsets": [8, 16]}}, b"\0" * 16, "gap of 8 bytes"),
    ({"a": {**F32, "data_offsets": [0, 100]}}, b"\0" * 8, "needs 8 bytes"),
    ({"a": {**F32, "data_offsets": [8, 0]}}, b"\0" * 8, "invalid data_offsets"),
    ({"a": {**F32, "data_offsets": [0, -8]}}, b"\0" * 8, "invalid data_offsets"),
    ({"a": {**F32, "shape": [-2]}}, b"\0" * 8, "invalid shape"),
    ({"a": {**F32, "dtype": "F33"}}, b"\0" * 8, "unknown dtype 'F33'"),
    ({"a": {"dtype": "F32", "shape": [2]}}, b"\0" * 8, "lacks"),
    ({"__metadata__": {"k": 1}, "a": F32}, b"\0" * 8, "strings to strings"),
])
def test_malformed_headers(header, data, match, tmp_path):
    assert_rejected(crafted(header, data), tmp_path, match)


def test_duplicate_names_are_rejected(tmp_path):
    text = b'{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},' \
           b'"a":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}}'
    assert_rejected(struct.pack("<Q", len(text)) + text + b"xy", tmp_path, "repeats the name",
                    by_safetensors=False)


def test_non_object_header_and_bad_bool(tmp_path):
    text = b"[1, 2]  "
    assert_rejected(struct.pack("<Q", len(text)) + text, tmp_path, "not a JSON object")
    raw = crafted({"m": {"dtype": "BOOL", "shape": [2], "data_offsets": [0, 2]}}, b"\x01\x07")
    assert_rejected(raw, tmp_path, "BOOL", by_safetensors=False)


def test_header_length_larger_than_the_file(tmp_path):
    raw = bytearray(saved_bytes())
    raw[:8] = struct.pack("<Q", len(raw) * 4)
    assert_rejected(bytes(raw), tmp_path, "header length field says")


def test_every_truncation_is_rejected(tmp_path):
    raw = saved_bytes()
    for cut in range(len(raw)):
        with pytest.raises(CheckpointError):
            load_bytes(raw[:cut], tmp_path)
    assert leafgrad.load(io.BytesIO(raw))["tag"] == "x"


def test_checksums_are_required_in_leafgrad_files(tmp_path):
    meta = {"leafgrad.version": "1", "leafgrad.structure": json.dumps({"tensor": "w"})}
    text = json.dumps({"__metadata__": meta, "w": F32}).encode()
    assert_rejected(struct.pack("<Q", len(text)) + text + b"\0" * 8, tmp_path,
                    "checksums are missing", by_safetensors=False)


def test_every_bit_flip_in_header_and_data_is_rejected():
    # CRC-32s of the header fields and of the data make any single flipped bit an error,
    # including flips inside a tensor name or a dict key that would still parse.
    raw = saved_bytes()
    for i in range(len(raw)):
        for bit in range(8):
            bad = bytearray(raw)
            bad[i] ^= 1 << bit
            with pytest.raises((CheckpointError, NotImplementedError)):
                leafgrad.load(io.BytesIO(bytes(bad)))


def test_structure_naming_a_missing_tensor(tmp_path):
    meta = {"leafgrad.structure": json.dumps({"dict": [["w", {"tensor": "gone"}]]})}
    raw = crafted({"__metadata__": meta, "w": F32}, b"\0" * 8)
    assert_rejected(raw, tmp_path, "refers to tensor 'gone'", by_safetensors=False)
    meta = {"leafgrad.structure": json.dumps({"mystery": 1})}
    raw = crafted({"__metadata__": meta, "w": F32}, b"\0" * 8)
    assert_rejected(raw, tmp_path, "structure metadata is corrupt", by_safetensors=False)
    meta = {"leafgrad.structure": "{not json"}
    raw = crafted({"__metadata__": meta, "w": F32}, b"\0" * 8)
    assert_rejected(raw, tmp_path, "structure metadata is corrupt", by_safetensors=False)


def test_pytorch_pickle_checkpoints_are_named(tmp_path):
    for legacy in (False, True):
        path = tmp_path / "model.pt"
        torch.save({"w": torch.ones(2)}, path, _use_new_zipfile_serialization=not legacy)
        with pytest.raises(CheckpointError, match="model.pt") as info:
            leafgrad.load(path)
        assert "pickle" in str(info.value) and "save_file" in str(info.value)
        if not legacy:
            assert "PyTorch pickle checkpoint" in str(info.value)


def test_other_files_are_named(tmp_path):
    (tmp_path / "notes.txt").write_text("hello, this is not a checkpoint\n")
    with pytest.raises(CheckpointError, match="text file"):
        leafgrad.load(tmp_path / "notes.txt")
    np.save(tmp_path / "a.npy", np.ones(3))
    with pytest.raises(CheckpointError, match="NumPy .npy"):
        leafgrad.load(tmp_path / "a.npy")
    (tmp_path / "empty.pt").write_bytes(b"")
    with pytest.raises(CheckpointError, match="empty"):
        leafgrad.load(tmp_path / "empty.pt")
    (tmp_path / "short.pt").write_bytes(b"\x01\x02")
    with pytest.raises(CheckpointError, match="too short"):
        leafgrad.load(tmp_path / "short.pt")


def test_missing_file_is_file_not_found_like_torch(tmp_path):
    path = str(tmp_path / "nope.pt")
    with pytest.raises(FileNotFoundError) as mine:
        leafgrad.load(path)
    with pytest.raises(FileNotFoundError) as theirs:
        torch.load(path)
    assert str(mine.value) == str(theirs.value)


def test_file_objects_are_named_in_errors():
    class Named(io.BytesIO):
        name = "stream.bin"
    with pytest.raises(CheckpointError, match="'stream.bin'"):
        leafgrad.load(Named(b"garbage!" * 4))
    with pytest.raises(CheckpointError, match="the file object"):
        leafgrad.load(io.BytesIO(b"garbage!" * 4))


def _pair():
    torch.manual_seed(0)
    theirs = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Linear(2, 3))
    mine = leafgrad.nn.Sequential(leafgrad.nn.Linear(2, 2), leafgrad.nn.Linear(2, 3))
    mine.load_state_dict({k: leafgrad.tensor(v.numpy()) for k, v in
                          theirs.state_dict().items()})
    return mine, theirs


def _state(model):
    return {k: v.detach().numpy().copy() for k, v in model.state_dict().items()}


def test_corrupt_file_leaves_the_model_untouched(tmp_path):
    mine, _ = _pair()
    before = _state(mine)
    raw = bytearray(saved_bytes({k: v * 0 for k, v in mine.state_dict().items()}))
    raw[-1] ^= 1
    with pytest.raises(CheckpointError):
        mine.load_state_dict(load_bytes(bytes(raw), tmp_path))
    after = _state(mine)
    assert all(np.array_equal(before[k], after[k]) for k in before)


@pytest.mark.parametrize("break_it", ["size", "missing"])
def test_failed_load_state_dict_changes_what_pytorch_changes(break_it):
    # PyTorch's load_state_dict copies every matching entry and raises afterwards; it is
    # not all-or-nothing. leafgrad does the same: check both models end in the same state.
    mine, theirs = _pair()
    states = []
    for lib, model in ((leafgrad, mine), (torch, theirs)):
        sd = {k: lib.full_like(v, 7.0) for k, v in model.state_dict().items()}
        if break_it == "size":
            sd["1.weight"] = lib.zeros(5, 5)
        else:
            del sd["1.bias"]
        with pytest.raises(RuntimeError) as info:
            model.load_state_dict(sd)
        states.append((_state(model), str(info.value)))
    (mine_state, mine_msg), (theirs_state, theirs_msg) = states
    assert mine_msg == theirs_msg
    assert list(mine_state) == list(theirs_state)
    for k in theirs_state:
        np.testing.assert_array_equal(mine_state[k], theirs_state[k], err_msg=k)
