"""Failure classes real CUDA code hits after translation (issue 9, section 3), each checked with the real hipcc.

Class 1, include order: HIP headers that need hip/hip_runtime.h before them on some ROCm versions.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from porter.translate import TranslateOptions, translate


def _hipcc() -> str:
    hipcc = shutil.which("hipcc")
    if hipcc is None:
        if os.environ.get("CI") == "true":
            pytest.fail("hipcc not found (required in CI)")
        pytest.skip("hipcc not found")
    return hipcc


def _compiles(tmp_path: Path, name: str, source: bytes, arch: str = "gfx90a") -> subprocess.CompletedProcess:
    path = tmp_path / name
    path.write_bytes(source)
    return subprocess.run([_hipcc(), f"--offload-arch={arch}", "-x", "hip", "-c", str(path), "-o", str(path) + ".o"],
                          capture_output=True, text=True, env={**os.environ, "HIP_PLATFORM": "amd"}, timeout=600)


CG_FIRST = b"""#include <cooperative_groups.h>
#include <cuda_runtime.h>
namespace cg = cooperative_groups;
__global__ void k(int* out) {
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(cg::this_thread_block());
    if (tile.thread_rank() == 0) atomicAdd(out, 1);
}
"""


def test_hip_runtime_goes_before_cooperative_groups() -> None:
    out = translate(CG_FIRST, TranslateOptions()).output
    assert out.startswith(b"#include <hip/hip_runtime.h>\n#include <hip/hip_cooperative_groups.h>\n")
    # idempotent: porting the port changes nothing
    assert translate(out, TranslateOptions()).output == out


def test_include_order_keeps_line_endings_and_adds_nothing_when_runtime_comes_first() -> None:
    crlf = translate(CG_FIRST.replace(b"\n", b"\r\n"), TranslateOptions()).output
    assert crlf.startswith(b"#include <hip/hip_runtime.h>\r\n#include <hip/hip_cooperative_groups.h>\r\n")
    ordered = b"#include <cuda_runtime.h>\n#include <cooperative_groups.h>\n"
    assert translate(ordered, TranslateOptions()).output == (
        b"#include <hip/hip_runtime.h>\n#include <hip/hip_cooperative_groups.h>\n")


@pytest.mark.hipcc
def test_cooperative_groups_first_compiles(tmp_path: Path) -> None:
    proc = _compiles(tmp_path, "cg.hip", translate(CG_FIRST, TranslateOptions()).output)
    assert proc.returncode == 0, proc.stderr
