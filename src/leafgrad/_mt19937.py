"""PyTorch's CPU random engine, bit for bit: a 32-bit Mersenne Twister plus one cached normal.

PyTorch's ``CPUGeneratorImpl`` wraps ``at::mt19937``: the standard MT19937 whose state is
seeded by ``init_genrand`` with the low 32 bits of the 64-bit seed (the whole seed is kept
for ``initial_seed()``). ``random()`` is one tempered 32-bit output; ``random64()`` is two
of them, the first in the high half. NumPy's ``MT19937`` bit generator runs the same
recurrence and tempering in C, and its legacy seeding is ``init_genrand``, so it serves as
the engine; this module only adds the bookkeeping PyTorch keeps around it (see
Note [mt19937 position]) and the byte layout of ``get_state()``.

>>> e = Engine(0)
>>> int(e.random32(1)[0])     # what torch.randint(0, 2**28, (1,)) draws after manual_seed(0)
2357136044
"""
from __future__ import annotations

import struct

import numpy as np

__all__ = ["Engine", "DEFAULT_SEED", "STATE_SIZE"]

DEFAULT_SEED = 67280421310721   # the seed of a fresh torch.Generator()
_N = 624                        # words of MT19937 state
STATE_SIZE = 5056               # sizeof(CPUGeneratorImplState) in PyTorch

# Note [mt19937 position]
# PyTorch counts down ``left`` (1 right after seeding, so the first draw twists) and counts
# up ``next``; NumPy keeps one index ``pos`` (624 after seeding). After k draws since the
# last twist both agree: pos == next == k and left == 625 - k. The one state they cannot
# tell apart is "just seeded" (next == 0) versus "624 draws since the twist" (next == 624);
# ``_fresh`` remembers which, so get_state() writes PyTorch's bytes exactly.

# Layout of CPUGeneratorImplState (x86-64, little endian): the legacy THGenerator POD
# (seed, left, seeded, next, state[624] as uint64, normal_x, normal_y, normal_rho,
# normal_is_valid), then the float normal cache and its flag; padding bytes are zero.
_HEAD = struct.Struct("<QiiQ")          # seed, left, seeded, next: 24 bytes
_TAIL = struct.Struct("<dddi4xf?3x")   # 40 bytes after the 624 state words


class Engine:
    """One random stream: MT19937 state, the seed it came from, and the cached normals."""

    __slots__ = ("_mt", "seed", "_fresh", "normal_double", "normal_float")

    def __init__(self, seed: int = DEFAULT_SEED) -> None:
        self._mt = None
        self.manual_seed(seed)

    @property
    def _bits(self):
        """NumPy's MT19937, made on first use: importing ``numpy.random`` (with ``secrets``
        and ``hmac``) was a fifth of ``import leafgrad``, and the default generator exists
        from the start. Until then ``seed`` says the whole state (seeded, nothing drawn)."""
        mt = self._mt
        if mt is None:
            # A fixed SeedSequence spares the OS-entropy read; the state is replaced at once.
            mt = self._mt = np.random.MT19937(np.random.SeedSequence(0))
            mt._legacy_seeding(self.seed & 0xFFFFFFFF)
        return mt

    def manual_seed(self, seed: int) -> None:
        """Reseed as ``at::mt19937(seed)`` does; ``seed`` is already reduced to uint64."""
        self.seed = seed
        if self._mt is not None:
            self._mt._legacy_seeding(seed & 0xFFFFFFFF)
        self._fresh = True
        self.normal_double = None   # the second value of the last scalar Box-Muller pair
        self.normal_float = None    # never filled by CPU kernels; kept for the state bytes

    # -- raw draws ----------------------------------------------------------------------
    def random32(self, n: int) -> np.ndarray:
        """``n`` calls of ``random()``: 32-bit values, held in a uint64 array."""
        if n:
            self._fresh = False
        return self._bits.random_raw(n)

    def random64(self, n: int) -> np.ndarray:
        """``n`` calls of ``random64()``: (first draw << 32) | second draw."""
        raw = self.random32(2 * n)
        return (raw[0::2] << np.uint64(32)) | raw[1::2]

    def copy_from(self, other: "Engine") -> None:
        self._bits.state = other._bits.state
        self.seed, self._fresh = other.seed, other._fresh
        self.normal_double, self.normal_float = other.normal_double, other.normal_float

    # -- PyTorch's state bytes -----------------------------------------------------------
    def get_state(self) -> bytes:
        st = self._bits.state["state"]
        pos = int(st["pos"])
        nxt = 0 if (self._fresh and pos == _N) else pos
        head = _HEAD.pack(self.seed, _N + 1 - pos, 1, nxt)
        words = np.asarray(st["key"], dtype=np.uint32).astype("<u8").tobytes()
        nd, nf = self.normal_double, self.normal_float
        tail = _TAIL.pack(0.0, 0.0 if nd is None else nd, 0.0, nd is not None,
                          0.0 if nf is None else nf, nf is not None)
        return head + words + tail

    def set_state(self, raw: bytes) -> None:
        """Load PyTorch's bytes; raises ValueError on a size or validity problem (the caller
        turns it into PyTorch's message)."""
        if len(raw) != STATE_SIZE:
            raise ValueError("size")
        seed, left, seeded, nxt = _HEAD.unpack_from(raw, 0)
        words = np.frombuffer(raw, dtype="<u8", count=_N, offset=_HEAD.size)
        _x, normal_y, _rho, normal_valid, nf, nf_valid = _TAIL.unpack_from(
            raw, _HEAD.size + 8 * _N)
        if not (seeded & 0xFF) or not 0 < left <= _N or (nxt & 0xFFFFFFFF) > _N:
            raise ValueError("invalid")
        key = (words & np.uint64(0xFFFFFFFF)).astype(np.uint32)
        self._bits.state = {"bit_generator": "MT19937",
                            "state": {"key": key, "pos": _N + 1 - left}}
        self.seed = seed
        self._fresh = left == 1 and (nxt & 0xFFFFFFFF) == 0
        self.normal_double = normal_y if normal_valid else None
        self.normal_float = float(np.float32(nf)) if nf_valid else None

