"""The HIP toolchains the compile tests run on: every toolchain porter finds, with the arches to compile for."""

from __future__ import annotations

import functools
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from porter.build import Toolchain, accepted_arches, find_toolchains
from porter.build.toolchain import default_cache_dir
from porter.translate import RocmVersion

TEST_ARCHES = ("gfx942", "gfx950")  # what a toolchain that knows them compiles for in the tests
FALLBACK_ARCH = "gfx90a"  # what ROCm 5.2 compiles for
CI_NEEDS = RocmVersion(6, 4)
# the porter cache at import time, before any test points XDG_CACHE_HOME at a private one
PORTER_CACHE = default_cache_dir()


def in_ci() -> bool:
    return os.environ.get("CI") == "true"


@dataclass(frozen=True)
class HipToolchain:
    """A toolchain and the arches the tests compile for with it."""

    toolchain: Toolchain
    arches: tuple[str, ...]

    @property
    def id(self) -> str:
        return f"rocm-{self.toolchain.rocm}" if self.toolchain.rocm else self.toolchain.name

    @property
    def rocm(self) -> RocmVersion | None:
        return self.toolchain.rocm

    @property
    def arch(self) -> str:
        return self.arches[0]

    @property
    def hipcc(self) -> str:
        return str(self.toolchain.hipcc)

    def offload_flags(self, arches: tuple[str, ...] | None = None) -> list[str]:
        return [f"--offload-arch={a}" for a in (arches or self.arches)]

    def extra_arch_flags(self) -> tuple[str, ...]:
        """For HipccEnvironment(arch=self.arch): the other arches as extra flags."""
        return tuple(f"--offload-arch={a}" for a in self.arches[1:])

    def compile(self, source: Path, *flags: str, arches: tuple[str, ...] | None = None,
                cwd: Path | None = None, timeout: float = 600) -> subprocess.CompletedProcess[str]:
        """hipcc -c `source` for the arches (an object beside it), HIP_PLATFORM=amd."""
        obj = source.with_suffix(source.suffix + ".o")
        cmd = self.toolchain.command(*self.offload_flags(arches), "-c", str(source), "-o", str(obj), *flags)
        return subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, timeout=timeout, check=False,
                              env={**os.environ, "HIP_PLATFORM": "amd"})


@functools.cache
def detected_toolchains() -> tuple[HipToolchain, ...]:
    found = []
    for toolchain in find_toolchains(PORTER_CACHE):
        ok = accepted_arches(toolchain, [FALLBACK_ARCH, *TEST_ARCHES], PORTER_CACHE)
        arches = tuple(a for a in TEST_ARCHES if ok[a]) or ((FALLBACK_ARCH,) if ok[FALLBACK_ARCH] else ())
        if arches:
            found.append(HipToolchain(toolchain, arches))
    # one per ROCm version (PORTER_HIPCC may name an installed one under another path)
    unique: dict[str, HipToolchain] = {}
    for t in found:
        unique.setdefault(t.id, t)
    return tuple(sorted(unique.values(), key=lambda t: (t.rocm or RocmVersion(0), t.id)))


def missing_toolchain(message: str) -> None:
    """Fail under CI (the toolchains are part of the test environment there), else skip."""
    if in_ci():
        pytest.fail(f"{message} (required in CI)")
    pytest.skip(message)


def toolchain_by_version(version: RocmVersion) -> HipToolchain | None:
    return next((t for t in detected_toolchains() if t.rocm == version), None)
