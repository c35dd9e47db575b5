"""torch.save / torch.load: round trips checked against PyTorch's own save/load, and
safetensors interoperability in both directions (files read by ``safetensors.torch``)."""
from __future__ import annotations

import doctest
import io
import json
import math
import struct
from collections import OrderedDict

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from safetensors.torch import load_file, save_file

import leafgrad
from leafgrad import serialization
from leafgrad.serialization import _format, _structure

DTYPES = ["float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool"]


def lg_tensor(t: torch.Tensor) -> leafgrad.Tensor:
    return leafgrad.tensor(t.detach().numpy().copy(), requires_grad=t.requires_grad)


def build(lib, seed=0):
    """The same nested object in leafgrad or torch: every supported kind of value."""
    g = np.random.default_rng(seed)
    f32 = g.standard_normal((3, 2)).astype(np.float32)
    od = OrderedDict([("w", lib.tensor(f32)), ("n", lib.tensor([1, 2, 3]))])
    return {
        "weights": od,
        "grad_leaf": lib.tensor(f32[0], requires_grad=True),
        "param": lib.nn.Parameter(lib.tensor(f32 * 2)),
        "frozen": lib.nn.Parameter(lib.tensor(f32[:, 0]), requires_grad=False),
        "scalar": lib.tensor(2.5, dtype=lib.float64),
        "flags": lib.tensor([True, False]),
        "empty": lib.zeros(0, 4, dtype=lib.float16),
        "view": lib.arange(12).reshape(3, 4).t()[1:],
        7: [1, 2.5, -0.0, math.inf, None, True, "text", (3, "a")],
        (1, "k"): {"nested": [lib.tensor([1], dtype=lib.int8)]},
        "dtype": lib.float64,
        "size": lib.Size([2, 3]),
        "numpy": [np.int64(3), np.float64(0.25), np.float32("nan"), np.bool_(True),
                  np.arange(4, dtype=np.int16).reshape(2, 2)],
    }


def roundtrip(obj, lib=leafgrad):
    buffer = io.BytesIO()
    lib.save(obj, buffer)
    buffer.seek(0)
    # torch's weights_only unpickler refuses NumPy values; these files are our own
    return lib.load(buffer, weights_only=False)


def assert_same_object(mine, theirs, where="obj"):
    """Same container types, keys, scalars; tensors with equal values, dtype, requires_grad
    and the same class (Parameter or plain tensor)."""
    if isinstance(theirs, torch.Tensor):
        assert isinstance(mine, leafgrad.Tensor), where
        assert type(mine).__name__ == type(theirs).__name__, where
        assert str(mine.dtype) == str(theirs.dtype), where
        assert mine.requires_grad == theirs.requires_grad, where
        assert mine.is_leaf and theirs.is_leaf, where
        np.testing.assert_array_equal(mine.detach().numpy(), theirs.detach().numpy(), where)
    elif isinstance(theirs, (torch.dtype, torch.Size)):
        assert type(mine).__name__ == type(theirs).__name__, where
        assert str(mine) == str(theirs), where
    elif isinstance(theirs, (dict, list, tuple)):
        assert type(mine) is type(theirs), f"{where}: {type(mine)} vs {type(theirs)}"
        if isinstance(theirs, dict):
            assert list(mine) == list(theirs), where
            pairs = [(mine[k], theirs[k], f"{where}[{k!r}]") for k in theirs]
        else:
            assert len(mine) == len(theirs), where
            pairs = [(a, b, f"{where}[{i}]") for i, (a, b) in enumerate(zip(mine, theirs))]
        for a, b, w in pairs:
            assert_same_object(a, b, w)
    elif isinstance(theirs, np.ndarray):
        assert mine.dtype == theirs.dtype and mine.shape == theirs.shape, where
        np.testing.assert_array_equal(mine, theirs, where)
    else:
        assert type(mine) is type(theirs) and repr(mine) == repr(theirs), where


def test_roundtrip_matches_torch_save_load():
    mine = roundtrip(build(leafgrad))
    theirs = roundtrip(build(torch), torch)
    assert_same_object(mine, theirs)


def test_roundtrip_through_a_path_matches_torch(tmp_path):
    leafgrad.save(build(leafgrad, 1), tmp_path / "a.pt")
    torch.save(build(torch, 1), tmp_path / "b.pt")
    assert_same_object(leafgrad.load(str(tmp_path / "a.pt")), torch.load(tmp_path / "b.pt",
                                                                         weights_only=False))


def test_non_leaf_tensor_loads_as_a_leaf_requiring_grad_like_torch():
    x = leafgrad.ones(2, requires_grad=True)
    tx = torch.ones(2, requires_grad=True)
    assert_same_object(roundtrip({"y": x * 3}), roundtrip({"y": tx * 3}, torch))


def test_nan_payload_negative_zero_and_extremes_are_bit_exact():
    values = np.array([np.nan, -np.nan, -0.0, np.inf, -np.inf, 1e-45, 3.4e38], np.float32)
    values = np.concatenate([values, np.frombuffer(b"\x01\x00\xc0\x7f", np.float32)])
    back = roundtrip(leafgrad.tensor(values))
    assert back.numpy().tobytes() == values.tobytes()


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_arrays_of_every_dtype_roundtrip_bit_exact_and_read_by_safetensors(data, tmp_path_factory):
    name = data.draw(st.sampled_from(DTYPES))
    np_dtype = np.dtype(np.bool_ if name == "bool" else name)
    array = data.draw(hnp.arrays(np_dtype, hnp.array_shapes(min_dims=0, max_dims=3,
                                                            min_side=0, max_side=4)))
    if data.draw(st.booleans()) and array.ndim >= 2:
        array = array.swapaxes(0, 1)   # a non-contiguous view: saved as seen
    path = tmp_path_factory.mktemp("rt") / "t.safetensors"
    leafgrad.save({"x": leafgrad.from_numpy(array)}, path)
    back = leafgrad.load(path)["x"]
    assert str(back.dtype) == f"torch.{name}" and back.shape == array.shape
    assert back.numpy().tobytes() == np.ascontiguousarray(array).tobytes()
    theirs = load_file(str(path))["x"]
    assert str(theirs.dtype) == f"torch.{name}" and tuple(theirs.shape) == array.shape
    assert theirs.numpy().tobytes() == np.ascontiguousarray(array).tobytes()


@pytest.mark.parametrize("name", DTYPES)
def test_files_from_safetensors_torch_load_for_every_dtype(name, tmp_path):
    t = (torch.arange(-3, 9).reshape(3, 4) % 5).to(getattr(torch, name))
    save_file({"a": t, "b": t[0].clone()}, str(tmp_path / "t.safetensors"))
    back = leafgrad.load(tmp_path / "t.safetensors")
    assert list(back) == list(load_file(str(tmp_path / "t.safetensors")))
    assert not back["a"].requires_grad
    assert_same_object(back, {"a": t, "b": t[0]})


def test_bfloat16_is_not_implemented(tmp_path):
    save_file({"a": torch.ones(2, dtype=torch.bfloat16)}, str(tmp_path / "b.safetensors"))
    with pytest.raises(NotImplementedError, match="BF16"):
        leafgrad.load(tmp_path / "b.safetensors")


def make_pair(seed=0):
    torch.manual_seed(seed)
    theirs = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 3))
    mine = leafgrad.nn.Sequential(leafgrad.nn.Linear(4, 8), leafgrad.nn.Tanh(),
                                  leafgrad.nn.Linear(8, 3))
    return mine, theirs


def assert_same_model(mine, theirs, x):
    """Bit-equal weights (what the file carries), and equal predictions up to float32
    rounding (NumPy's and PyTorch's matmuls may differ in the last bit)."""
    mine_sd, theirs_sd = mine.state_dict(), theirs.state_dict()
    assert list(mine_sd) == list(theirs_sd)
    for k in theirs_sd:
        assert mine_sd[k].numpy().tobytes() == theirs_sd[k].numpy().tobytes(), k
    a = mine(leafgrad.tensor(x)).detach().numpy()
    b = theirs(torch.tensor(x)).detach().numpy()
    np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_leafgrad_state_dict_loads_in_pytorch(tmp_path):
    mine, theirs = make_pair()
    path = tmp_path / "m.safetensors"
    leafgrad.save(mine.state_dict(), path)
    state = load_file(str(path))
    assert sorted(state) == sorted(mine.state_dict())   # plain tensors under their keys
    theirs.load_state_dict(state)
    x = np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32)
    assert_same_model(mine, theirs, x)


def test_pytorch_safetensors_state_dict_loads_in_leafgrad(tmp_path):
    mine, theirs = make_pair(3)
    path = tmp_path / "m.safetensors"
    save_file(theirs.state_dict(), str(path))
    mine.load_state_dict(leafgrad.load(path))
    x = np.random.default_rng(1).standard_normal((5, 4)).astype(np.float32)
    assert_same_model(mine, theirs, x)


def test_state_dict_roundtrip_keeps_order_metadata_and_plain_tensors():
    mine, theirs = make_pair()
    mine.load_state_dict({k: lg_tensor(v) for k, v in theirs.state_dict().items()})
    back, expected = roundtrip(mine.state_dict()), roundtrip(theirs.state_dict(), torch)
    assert_same_object(back, expected)   # Parameters come back as plain tensors, as in torch
    assert back._metadata == expected._metadata
    kept = roundtrip(mine.state_dict(keep_vars=True))
    assert_same_object(kept, roundtrip(theirs.state_dict(keep_vars=True), torch))


@pytest.mark.parametrize("make_opt", [
    lambda lib, p: lib.optim.SGD(p, lr=0.1, momentum=0.9),
    lambda lib, p: lib.optim.Adam(p, lr=0.01, betas=(0.8, 0.99)),
    lambda lib, p: lib.optim.RMSprop(p, lr=0.01, momentum=0.5),
    lambda lib, p: lib.optim.Adagrad(p, lr=0.1),
], ids=["sgd", "adam", "rmsprop", "adagrad"])
def test_optimizer_checkpoint_resumes_exactly(make_opt, tmp_path):
    x = np.random.default_rng(2).standard_normal((6, 4)).astype(np.float32)

    def train(model, opt, steps):
        for _ in range(steps):
            opt.zero_grad()
            model(leafgrad.tensor(x)).square().mean().backward()
            opt.step()

    mine, theirs = make_pair()
    state = {k: lg_tensor(v) for k, v in theirs.state_dict().items()}
    straight = leafgrad.nn.Sequential(leafgrad.nn.Linear(4, 8), leafgrad.nn.Tanh(),
                                      leafgrad.nn.Linear(8, 3))
    straight.load_state_dict(state)
    mine.load_state_dict(state)
    opt_straight = make_opt(leafgrad, straight.parameters())
    train(straight, opt_straight, 6)

    opt = make_opt(leafgrad, mine.parameters())
    train(mine, opt, 3)
    leafgrad.save({"model": mine.state_dict(), "opt": opt.state_dict(), "epoch": 3},
                  tmp_path / "ckpt.pt")
    loaded = leafgrad.load(tmp_path / "ckpt.pt")
    # same layout as PyTorch gives for its optimizer's state dict after a save/load
    topt = make_opt(torch, theirs.parameters())
    for _ in range(3):
        topt.zero_grad()
        theirs(torch.tensor(x)).square().mean().backward()
        topt.step()
    _same_layout(loaded["opt"], roundtrip(topt.state_dict(), torch))

    resumed, _ = make_pair()
    resumed.load_state_dict(loaded["model"])
    opt2 = make_opt(leafgrad, resumed.parameters())
    opt2.load_state_dict(loaded["opt"])
    train(resumed, opt2, 3)
    for a, b in zip(resumed.parameters(), straight.parameters()):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    assert loaded["epoch"] == 3


def _same_layout(mine, theirs, where="opt"):
    """Same keys, container types, scalar values and tensor dtypes/shapes (values may differ
    in the last bits between the two libraries' arithmetic)."""
    if isinstance(theirs, torch.Tensor):
        assert str(mine.dtype) == str(theirs.dtype) and mine.shape == theirs.shape, where
        np.testing.assert_allclose(mine.numpy(), theirs.numpy(), rtol=1e-4, atol=1e-6)
    elif isinstance(theirs, (dict, list, tuple)):
        assert type(mine) is type(theirs), where
        keys = list(theirs) if isinstance(theirs, dict) else range(len(theirs))
        assert list(keys) == (list(mine) if isinstance(mine, dict) else list(range(len(mine))))
        for k in keys:
            _same_layout(mine[k], theirs[k], f"{where}[{k!r}]")
    else:
        assert mine == theirs and type(mine) is type(theirs), where


def test_views_are_saved_as_seen_and_load_independent():
    base = leafgrad.arange(10, dtype=leafgrad.float32)
    back = roundtrip({"a": base[2:5], "b": base[::3], "c": base})
    np.testing.assert_array_equal(back["a"].numpy(), [2, 3, 4])
    np.testing.assert_array_equal(back["b"].numpy(), [0, 3, 6, 9])
    back["c"].add_(100)
    np.testing.assert_array_equal(back["a"].numpy(), [2, 3, 4])   # no shared storage
    assert back["a"]._version == 0 and back["a"]._data.flags.writeable


def test_loaded_tensors_are_trainable_leaves():
    back = roundtrip({"w": leafgrad.ones(3, requires_grad=True)})
    (back["w"] * 2).sum().backward()
    np.testing.assert_array_equal(back["w"].grad.numpy(), [2, 2, 2])


def test_tensor_names_follow_paths_and_stay_unique():
    tree, entries = _structure.flatten({"a.b": leafgrad.ones(1), "a": {"b": leafgrad.ones(1)},
                                        "__metadata__": leafgrad.ones(1)})
    names = [name for name, _ in entries]
    assert names[0] == "a.b" and names[1].startswith("a.b#") and len(set(names)) == 3
    assert "__metadata__" not in names
    assert _structure.unflatten(tree, dict(entries)).keys() == {
        "a.b", "a", "__metadata__"}


def test_file_layout_is_standard_safetensors():
    buffer = io.BytesIO()
    leafgrad.save({"w": leafgrad.ones(2, 3), "i": leafgrad.tensor([1, 2], dtype=leafgrad.int8),
                   "lr": 0.5}, buffer)
    raw = buffer.getvalue()
    (n,) = struct.unpack("<Q", raw[:8])
    assert (8 + n) % 8 == 0   # data aligned
    header = json.loads(raw[8:8 + n])
    assert header["w"] == {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]}
    assert header["i"] == {"dtype": "I8", "shape": [2], "data_offsets": [24, 26]}
    meta = header["__metadata__"]
    assert meta["format"] == "pt" and json.loads(meta["leafgrad.structure"])["dict"][2] == [
        "lr", 0.5]
    assert len(raw) == 8 + n + 26


@pytest.mark.parametrize("where", [None, "cpu", "cpu:0", {"cuda:0": "cpu"}])
def test_map_location_cpu_forms(where):
    back = serialization.load(_saved(leafgrad.ones(2)), map_location=where)
    np.testing.assert_array_equal(back.numpy(), [1, 1])
    back = leafgrad.load(_saved(leafgrad.ones(2)), map_location=leafgrad.device("cpu"))
    assert back.device == leafgrad.device("cpu")


def test_map_location_callable_sees_every_tensor():
    seen = []
    back = leafgrad.load(_saved({"a": [leafgrad.ones(1)], "b": leafgrad.zeros(2)}),
                         map_location=lambda t, loc: seen.append(loc) or t * 2)
    assert seen == ["cpu", "cpu"] and back["a"][0].item() == 2


def test_map_location_cuda_raises_torchs_error():
    with pytest.raises(RuntimeError) as mine:
        leafgrad.load(_saved(leafgrad.ones(1)), map_location="cuda")
    buffer = io.BytesIO()
    torch.save(torch.ones(1), buffer)
    buffer.seek(0)
    with pytest.raises(RuntimeError) as theirs:
        torch.load(buffer, map_location="cuda")
    assert str(mine.value) == str(theirs.value)


@pytest.mark.parametrize("weights_only", [None, True, False])
def test_weights_only_changes_nothing(weights_only):
    back = leafgrad.load(_saved([leafgrad.ones(1), "x"]), weights_only=weights_only)
    assert back[1] == "x"


def _saved(obj):
    buffer = io.BytesIO()
    leafgrad.save(obj, buffer)
    buffer.seek(0)
    return buffer


def test_unsupported_objects_raise_before_writing(tmp_path):
    model = leafgrad.nn.Linear(1, 1)
    with pytest.raises(TypeError, match=r"state_dict\(\)"):
        leafgrad.save(model, tmp_path / "m.pt")
    with pytest.raises(TypeError, match="set"):
        leafgrad.save({"a": {1, 2}}, tmp_path / "m.pt")
    with pytest.raises(TypeError, match="key"):
        leafgrad.save({object(): 1}, tmp_path / "m.pt")
    looped: list = []
    looped.append(looped)
    with pytest.raises(ValueError, match="cycle"):
        leafgrad.save(looped, tmp_path / "m.pt")
    assert list(tmp_path.iterdir()) == []


def test_shared_containers_and_file_objects_are_left_open():
    shared = [leafgrad.ones(1)]
    buffer = io.BytesIO()
    buffer.write(b"prefix")
    leafgrad.save({"a": shared, "b": shared}, buffer)
    assert not buffer.closed
    buffer.seek(6)
    back = leafgrad.load(buffer)
    assert back["a"][0].item() == back["b"][0].item() == 1


def test_bytes_instead_of_a_file_is_a_type_error():
    with pytest.raises(TypeError, match="BytesIO"):
        leafgrad.load(b"\x00" * 16)


def test_exports_and_docstrings():
    assert leafgrad.save is serialization.save and leafgrad.load is serialization.load
    assert {"save", "load"} <= set(leafgrad.__all__)
    assert issubclass(serialization.CheckpointError, RuntimeError)
    assert issubclass(serialization.CheckpointError, ValueError)
    for module in (serialization, _format, _structure):
        result = doctest.testmod(module)
        assert result.failed == 0
    assert doctest.testmod(serialization).attempted > 0
