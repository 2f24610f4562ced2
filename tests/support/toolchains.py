"""The HIP compilers the failure-class tests compile with: Debian's ROCm 5.2 hipcc (gfx90a) on PATH, and a newer
ROCm named by PORTER_HIPCC (gfx942, e.g. a ROCm 6.4 hipcc; `porter toolchain install` provides one)."""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest


@dataclass(frozen=True)
class Hipcc:
    path: str
    version: tuple[int, int]
    arch: str

    @property
    def label(self) -> str:
        return f"ROCm {self.version[0]}.{self.version[1]} {self.arch}"

    def compile(self, source: Path, *flags: str) -> subprocess.CompletedProcess:
        """`hipcc --offload-arch=ARCH -x hip -c source` (objects beside the source)."""
        return subprocess.run([self.path, f"--offload-arch={self.arch}", "-x", "hip", "-c", str(source),
                               "-o", str(source) + ".o", *flags],
                              capture_output=True, text=True, env={**os.environ, "HIP_PLATFORM": "amd"}, timeout=900)


@functools.cache
def _version(path: str) -> tuple[int, int] | None:
    try:
        out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=120,
                             env={**os.environ, "HIP_PLATFORM": "amd"}).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    m = re.search(r"HIP version:\s*(\d+)\.(\d+)", out)
    return (int(m.group(1)), int(m.group(2))) if m else None


def system_hipcc() -> Hipcc:
    """Debian's hipcc (ROCm 5.2, gfx90a): skipped where missing, a failure under CI=true."""
    path = shutil.which("hipcc")
    version = _version(path) if path else None
    if path is None or version is None:
        if os.environ.get("CI") == "true":
            pytest.fail("hipcc not found (required in CI)")
        pytest.skip("hipcc not found")
    return Hipcc(path, version, "gfx90a" if version < (6, 0) else "gfx942")


def newer_hipcc() -> Hipcc:
    """The ROCm 6.x hipcc PORTER_HIPCC names, compiling for gfx942; skipped when none is configured."""
    path = os.environ.get("PORTER_HIPCC")
    version = _version(path) if path else None
    if path is None or version is None or version < (6, 0):
        pytest.skip("set PORTER_HIPCC to a ROCm 6.x hipcc to compile for gfx942")
    return Hipcc(path, version, "gfx942")


TOOLCHAINS = {"rocm52": system_hipcc, "rocm6x": newer_hipcc}
