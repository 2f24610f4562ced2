"""Target GPU profiles (data in porter/data/targets.toml)."""

from __future__ import annotations

import functools
import tomllib
from dataclasses import dataclass, field
from importlib import resources

DEFAULT_TARGET = "gfx942"


class UnknownTargetError(ValueError):
    pass


@dataclass(frozen=True)
class TargetProfile:
    arch: str
    names: tuple[str, ...]
    family: str
    wavefront: int
    lds_per_workgroup_kib: int
    lds_per_cu_kib: int
    cu_count: int
    max_threads_per_block: int
    hbm_gb: float
    hbm_kind: str
    hbm_bandwidth_tbs: float
    peak_fp16_tflops: float
    peak_bf16_tflops: float
    peak_fp8_tflops: float
    fp8_format: str  # "fnuz", "ocp" or "none"
    l2_mib: float
    infinity_cache_mib: float
    image_support: bool = True  # texture/surface (image) instructions; false: HIP marks the texture API unavailable
    derived: bool = False
    notes: str = ""
    extra: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def lds_bytes(self) -> int:
        return self.lds_per_workgroup_kib * 1024

    @property
    def display(self) -> str:
        return f"{self.arch} ({', '.join(self.names)})" if self.names else self.arch

    def as_dict(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__ if k != "extra"} | {"lds_bytes": self.lds_bytes}


@functools.cache
def all_targets() -> dict[str, TargetProfile]:
    raw = tomllib.loads(resources.files("porter").joinpath("data/targets.toml").read_text("utf-8"))
    known = set(TargetProfile.__dataclass_fields__) - {"arch", "extra"}
    out = {}
    for arch, row in raw.items():
        values = {k: v for k, v in row.items() if k in known}
        values["names"] = tuple(values.get("names", ()))
        out[arch] = TargetProfile(arch=arch, extra={k: v for k, v in row.items() if k not in known}, **values)
    return out


def resolve_target(name: str | None) -> TargetProfile:
    """Accepts an arch (`gfx942`, `gfx942:sramecc+`) or a product name (`MI300X`, `mi355x`)."""
    targets = all_targets()
    key = (name or DEFAULT_TARGET).strip()
    arch = key.split(":", 1)[0].lower()
    if arch in targets:
        return targets[arch]
    folded = key.replace(" ", "").lower()
    for profile in targets.values():
        if any(folded == n.replace(" ", "").lower() for n in profile.names):
            return profile
    choices = ", ".join(f"{a} ({'/'.join(p.names)})" for a, p in targets.items())
    raise UnknownTargetError(f"unknown target {name!r}; known targets: {choices}")
