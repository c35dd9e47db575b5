"""BatchNorm state dicts against PyTorch 2.13: the version metadata (BatchNorm is version 2),
and loading a dict without ``num_batches_tracked`` (plain dicts and old versions keep the
module's count; a version-2 state dict without it is missing a key)."""
from __future__ import annotations

from collections import OrderedDict

import numpy as np
import pytest
import torch

import leafgrad
from tests.oracle import same_on_both

X = np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32)


def _trained(lib, wrap=False):
    bn = lib.nn.BatchNorm1d(3)
    model = lib.nn.Sequential(bn) if wrap else bn
    for _ in range(2):
        model(lib.tensor(X))
    return model


def test_state_dict_metadata_versions():
    def program(lib):
        sd = lib.nn.Sequential(lib.nn.BatchNorm1d(3), lib.nn.Linear(3, 2)).state_dict()
        return {k: dict(v) for k, v in sd._metadata.items()}
    same_on_both(program)


@pytest.mark.parametrize("wrap", [False, True])
@pytest.mark.parametrize("strict", [True, False])
def test_plain_dict_without_num_batches_tracked(wrap, strict):
    def program(lib):
        model = _trained(lib, wrap)
        sd = {k: v * 2 for k, v in model.state_dict().items() if "num_batches" not in k}
        fresh = lib.nn.Sequential(lib.nn.BatchNorm1d(3)) if wrap else lib.nn.BatchNorm1d(3)
        fresh(lib.tensor(X))   # its own count (1) is kept
        result = fresh.load_state_dict(sd, strict=strict)
        return (repr(result), sorted(sd), fresh.state_dict(),
                model.load_state_dict(sd, strict=strict) is not None, model.state_dict())
    same_on_both(program)


@pytest.mark.parametrize("version", [None, 1, 2])
def test_metadata_version_decides(version):
    def program(lib):
        model = _trained(lib)
        sd = model.state_dict()
        del sd["num_batches_tracked"]
        if version is None:
            del sd._metadata
        else:
            sd._metadata[""]["version"] = version
        try:
            return repr(model.load_state_dict(sd)), model.num_batches_tracked
        except RuntimeError as e:
            return str(e)
    same_on_both(program)


def test_version_two_without_the_key_is_missing_non_strict():
    def program(lib):
        model = _trained(lib, wrap=True)
        sd = model.state_dict()
        del sd["0.num_batches_tracked"]
        return repr(model.load_state_dict(sd, strict=False)), model[0].num_batches_tracked
    same_on_both(program)


def test_no_running_stats_and_assign():
    def program(lib):
        bn = lib.nn.BatchNorm1d(3, track_running_stats=False)
        out = [repr(bn.load_state_dict({"weight": lib.ones(3) * 2, "bias": lib.zeros(3)}))]
        tracked = _trained(lib)
        sd = OrderedDict((k, v + 1) for k, v in tracked.state_dict().items()
                         if k != "num_batches_tracked")
        out.append(repr(tracked.load_state_dict(sd, assign=True)))
        out.append(tracked.state_dict())
        out.append(type(tracked.weight).__name__)
        return out
    same_on_both(program)


def test_user_dict_is_not_changed():
    sd_m = {k: v for k, v in _trained(leafgrad).state_dict().items()
            if k != "num_batches_tracked"}
    sd_t = {k: v for k, v in _trained(torch).state_dict().items()
            if k != "num_batches_tracked"}
    leafgrad.nn.BatchNorm1d(3).load_state_dict(sd_m)
    torch.nn.BatchNorm1d(3).load_state_dict(sd_t)
    assert sorted(sd_m) == sorted(sd_t)
