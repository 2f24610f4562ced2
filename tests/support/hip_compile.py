"""The HIP compilers the failure-class tests compile with, one per ROCm version found.

Debian 12's ROCm 5.2 `hipcc` (gfx90a) and, where present, a ROCm 6.4 hipcc (gfx942 and gfx950) named by
PORTER_TEST_HIPCC64, a `hipcc64` wrapper on PATH, or else the toolchain `porter toolchain install` provisioned
(`make rocm`, which CI runs), so these tests compile with both ROCm versions in CI too.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from porter.translate import RocmVersion


@dataclass(frozen=True)
class Compiler:
    hipcc: str
    rocm: RocmVersion
    arches: tuple[str, ...]

    @property
    def id(self) -> str:
        return f"rocm-{self.rocm}"

    def compile(self, source: Path, *flags: str, arches: tuple[str, ...] | None = None,
                timeout: float = 600) -> subprocess.CompletedProcess[str]:
        """hipcc -c `source` for the arches (the object beside it), HIP_PLATFORM=amd."""
        cmd = [self.hipcc, *(f"--offload-arch={a}" for a in (arches or self.arches)), "-c", str(source),
               "-o", str(source) + ".o", *flags]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False,
                              cwd=source.parent, env={**os.environ, "HIP_PLATFORM": "amd"})


    def run_on_host(self, source: Path, timeout: float = 60) -> subprocess.CompletedProcess[str] | None:
        """Link `source` into a program and run it, for host code (there is no GPU here): only with the compiler
        whose HIP runtime the host has (Debian's 5.2); None for the others. A failed link fails the test."""
        if self.rocm != RocmVersion(5, 2) or shutil.which("hipcc") != self.hipcc:
            return None
        exe = source.with_suffix("")
        link = subprocess.run([self.hipcc, f"--offload-arch={self.arches[0]}", str(source), "-o", str(exe)],
                              capture_output=True, text=True, check=False, env={**os.environ, "HIP_PLATFORM": "amd"})
        assert link.returncode == 0, link.stderr[-3000:]
        return subprocess.run([str(exe)], capture_output=True, text=True, check=False, timeout=timeout)


def _version(hipcc: str) -> RocmVersion | None:
    try:
        out = subprocess.run([hipcc, "--version"], capture_output=True, text=True, timeout=120, check=False,
                             env={**os.environ, "HIP_PLATFORM": "amd"}).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    m = re.search(r"HIP version: (\d+)\.(\d+)", out)
    return RocmVersion(int(m[1]), int(m[2])) if m else None


@functools.cache
def compilers() -> tuple[Compiler, ...]:
    found = []
    plain = shutil.which("hipcc")
    if plain and (v := _version(plain)) is not None:
        found.append(Compiler(plain, v, ("gfx90a",) if v < RocmVersion(6, 0) else ("gfx942", "gfx950")))
    newer = os.environ.get("PORTER_TEST_HIPCC64") or shutil.which("hipcc64") or _installed_rocm6()
    if newer and (v := _version(newer)) is not None and all(c.rocm != v for c in found):
        found.append(Compiler(newer, v, ("gfx942", "gfx950")))
    return tuple(sorted(found, key=lambda c: c.rocm))


def _installed_rocm6() -> str | None:
    """The hipcc of a ROCm 6 toolchain `porter toolchain install` provisioned (what CI has; `make rocm`)."""
    from porter.build.toolchain import installed_toolchains

    tool = next((t for t in reversed(installed_toolchains()) if t.rocm is not None and t.rocm.major >= 6), None)
    return str(tool.hipcc) if tool is not None else None


def compiler_params() -> list:
    """pytest parameters: one per compiler, or one that skips (fails under CI) when there is none."""
    found = compilers()
    if found:
        return [pytest.param(c, id=c.id) for c in found]
    return [pytest.param(None, id="no-hipcc")]


def need(compiler: Compiler | None) -> Compiler:
    if compiler is None:
        if os.environ.get("CI") == "true":
            pytest.fail("hipcc not found (required in CI)")
        pytest.skip("hipcc not found")
    return compiler
