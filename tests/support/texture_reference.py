"""CUDA's documented texture sampling, written independently of porter's shim, for the texture tests.

CUDA Programming Guide, "Texture Fetching": nearest-point sampling reads texel floor(u); linear filtering blends
the texels around u - 0.5 with weights frac(u - 0.5); normalized coordinates are scaled by the size after the
address mode (wrap: frac(x); mirror: frac(x) or 1 - frac(x) by the parity of floor(x)); wrap and mirror apply to
normalized coordinates only (unnormalized ones clamp). Each neighbour of a filtered sample is addressed on its own;
border addressing reads the border colour outside. The H200 samples in tests/data/texture agree with this.
"""

from __future__ import annotations

import itertools
import math
import struct
from dataclasses import dataclass, field

WRAP, CLAMP, MIRROR, BORDER = 0, 1, 2, 3
ADDRESS = {"wrap": WRAP, "clamp": CLAMP, "mirror": MIRROR, "border": BORDER}
SIGNED, UNSIGNED, FLOAT = 0, 1, 2


def f32(x: float) -> float:
    return struct.unpack("<f", struct.pack("<f", x))[0]


@dataclass
class Texture:
    """Texel values as floats (read mode applied), indexed [z][y][x][channel]."""

    size: tuple[int, ...]  # (width,), (width, height) or (width, height, depth)
    texels: list  # nested [z][y][x] -> tuple of channel values
    address: tuple[int, int, int] = (CLAMP, CLAMP, CLAMP)
    linear: bool = False
    normalized: bool = False
    border: tuple[float, ...] = field(default=(0.0, 0.0, 0.0, 0.0))
    weight_bits: int | None = None  # None: exact weights; 8: rounded to 1/256 like NVIDIA's hardware
    filter_texels: list | None = None  # what filtering blends, where it differs (signed normalized -128: unclamped)

    def texel(self, index: tuple[int, ...], filtering: bool = False) -> tuple[float, ...]:
        x, y, z = (*index, 0, 0)[:3]
        return (self.filter_texels if filtering and self.filter_texels else self.texels)[z][y][x]


def _texel_space(x: float, n: int, mode: int, normalized: bool) -> float:
    if not normalized:
        return x
    if mode == WRAP:
        x -= math.floor(x)
    elif mode == MIRROR:
        f = x - math.floor(x)
        x = f if math.floor(x) % 2 == 0 else 1.0 - f
    return x * n


def _address(i: int, n: int, mode: int, normalized: bool) -> int | None:
    if mode == BORDER:
        return i if 0 <= i < n else None
    if normalized and mode == WRAP:
        return i % n
    if normalized and mode == MIRROR:
        m = i % (2 * n)
        return m if m < n else 2 * n - 1 - m
    return min(max(i, 0), n - 1)


def sample(t: Texture, pos: tuple[float, ...]) -> tuple[tuple[float, ...], list[tuple[float, ...]]]:
    """(the sample, the texel values it blends) at `pos` (one coordinate per dimension)."""
    dims = len(t.size)
    channels = len(t.border)
    if not t.linear:
        index = []
        for d in range(dims):
            i = _address(math.floor(_texel_space(pos[d], t.size[d], t.address[d], t.normalized)), t.size[d],
                         t.address[d], t.normalized)
            if i is None:
                return t.border, [t.border]
            index.append(i)
        v = t.texel(tuple(index))
        return v, [v]
    base, weight = [], []
    for d in range(dims):
        u = _texel_space(pos[d], t.size[d], t.address[d], t.normalized) - 0.5
        base.append(math.floor(u))
        a = u - math.floor(u)
        weight.append(round(a * 2 ** t.weight_bits) / 2 ** t.weight_bits if t.weight_bits else a)
    out = [0.0] * channels
    corners = []
    for corner in itertools.product((0, 1), repeat=dims):
        w, index = 1.0, []
        for d in range(dims):
            w *= weight[d] if corner[d] else 1.0 - weight[d]
            index.append(_address(base[d] + corner[d], t.size[d], t.address[d], t.normalized))
        v = t.border if None in index else t.texel(tuple(index), filtering=True)
        corners.append(v)
        for c in range(channels):
            out[c] += w * v[c]
    if t.filter_texels:  # signed normalized: blended unclamped, then clamped
        out = [max(v, -1.0) for v in out]
    return tuple(out), corners


def fetch(t: Texture, i: int) -> tuple[float, ...]:
    """tex1Dfetch: zero outside the buffer, whatever the address mode."""
    return t.texel((i,)) if 0 <= i < t.size[0] else (0.0,) * len(t.border)


def unorm(v: int, bits: int) -> float:
    return f32(v / (2 ** bits - 1))


def snorm(v: int, bits: int) -> float:
    return f32(max(v / (2 ** (bits - 1) - 1), -1.0))
