"""Turn the raw output of f2d.cu, misc.cu and w.cu (float32 samples, see README.md) into the test fixture
tests/data/texture/cuda_reference.json.gz: per configuration the sampling grid and every 8th sample (all of them
for the 1D textures), with the texel values each program uploads.

    python scripts/texture_reference/to_fixture.py f2d.bin misc.bin w.bin "NVIDIA H200, driver 580.159.04, CUDA 13.0"
"""

from __future__ import annotations

import array
import gzip
import json
import sys
from pathlib import Path

ADDRESS = ["wrap", "clamp", "mirror", "border", "border"]  # the fifth: border with a non-zero colour
OUT = Path(__file__).resolve().parents[2] / "tests" / "data" / "texture" / "cuda_reference.json.gz"


def _floats(path: str) -> array.array:
    data = array.array("f")
    data.frombytes(Path(path).read_bytes())
    if sys.byteorder != "little":
        data.byteswap()
    return data


def _short(value: float) -> float:
    return float(f"{value:.9g}")


def _grid(normalized: int) -> tuple[float, float]:
    return (-1.25, 0.0557) if normalized else (-1.5, 0.127)


def _configs(values: array.array, offset: int, texture: str, shape: list[int], channels: int, borders: list,
             step_scale: float = 1.0, only: list[tuple[int, int, int]] | None = None, stride: int = 8,
             fetch: bool = False) -> tuple[list[dict], int]:
    """Configurations in the programs' loop order: normalized, filter, address (0..4)."""
    out = []
    per = 1
    for n in shape:
        per *= n
    for normalized in (0, 1):
        for linear in (0, 1):
            for address in range(5):
                if only is not None and (normalized, linear, address) not in only:
                    continue
                b, s = _grid(normalized)
                block = values[offset: offset + per * channels]
                offset += per * channels
                samples = []
                for flat in range(0, per, stride):
                    samples.append([flat, *(_short(block[flat * channels + c]) for c in range(channels))])
                out.append({"texture": texture, "normalized": normalized, "filter": "linear" if linear else "point",
                            "address": ADDRESS[address], "border": borders[address == 4],
                            "grid": {"shape": shape, "b": b, "s": s, "step_scale": step_scale, "fetch": fetch},
                            "samples": samples})
    return out, offset


def main(f2d: str, misc: str, w: str, device: str) -> None:
    configs: list[dict] = []
    values = _floats(f2d)
    part, _ = _configs(values, 0, "float2d", [64, 64], 1, [[0.0] * 4, [2.5, 0.0, 0.0, 0.0]])
    configs += part
    values = _floats(misc)  # float4 records
    part, offset = _configs(values, 0, "uchar4_2d", [64, 64], 4, [[0.0] * 4, [-0.5, 0.5, 1.5, 2.5]])
    configs += part
    # misc.cu writes every 1D sample as a float4 (x = value): keep x only
    one_d = array.array("f", values[offset::4])
    part, used = _configs(one_d, 0, "float1d", [64], 1, [[0.0] * 4, [-0.5, 0.5, 1.5, 2.5]], stride=1)
    configs += part
    part, _ = _configs(one_d, used, "linear1d", [64], 1, [[0.0] * 4, [-0.5, 0.5, 1.5, 2.5]], stride=1,
                       only=[(0, 0, a) for a in range(5)], fetch=True)
    configs += part
    values = _floats(w)
    xs = array.array("f", values[::4])
    part, offset = _configs(xs, 0, "float3d", [16, 16, 16], 1, [[0.0] * 4, [2.5, 0.0, 0.0, 0.0]], step_scale=4.0)
    configs += part
    part, offset = _configs(xs, offset, "float2d_pitch", [64, 64], 1, [[0.0] * 4, [2.5, 0.0, 0.0, 0.0]])
    configs += part
    part, _ = _configs(values, offset * 4, "char4_2d", [64, 64], 4, [[0.0] * 4, [0.0] * 4],
                       only=[(0, 0, 0), (0, 1, 0)])
    configs += part
    texels = {
        "float2d": [[x * x * 1.25 + y * 8 - x * y * 0.5 + (3 if (x, y) == (2, 1) else 0) for x in range(5)]
                    for y in range(4)],
        "uchar4_2d": [[[(y * 3 + x) * 29 % 256, 255 - (y * 3 + x) * 17, (y * 3 + x) ** 2 * 3,
                        255 if y * 3 + x == 4 else (y * 3 + x) * 11] for x in range(3)] for y in range(3)],
        "float1d": [x * x * 0.75 - x * 2 + 1 for x in range(7)],
        "float3d": [[[((z * 9 + y * 3 + x) * 7 % 18) * 1.5 - 4 for x in range(3)] for y in range(3)] for z in range(2)],
        "char4_2d": [[[-128, -127, 0, 127], [1, -1, 64, -64]]],
    }
    texels["float2d_pitch"] = texels["float2d"]
    texels["linear1d"] = texels["float1d"]
    doc = {"device": device, "programs": "scripts/texture_reference/{f2d,misc,w}.cu", "texels": texels,
           "configs": configs}
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_bytes(gzip.compress(json.dumps(doc, separators=(",", ":")).encode(), mtime=0))
    print(f"{OUT}: {len(configs)} configurations, {sum(len(c['samples']) for c in configs)} samples")


if __name__ == "__main__":
    main(*sys.argv[1:5])
