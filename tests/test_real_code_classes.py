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


# Class 2, types that collapse onto one HIP type: overloads for both become redefinitions.
HELPER = b"""#pragma once
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>

static const char *errorName(cudaError_t error) { return cudaGetErrorName(error); }

// CUDA Driver API errors
static const char *errorName(CUresult error) {
  const char *ret = NULL;
  cuGetErrorName(error, &ret);
  return ret ? ret : "<unknown>";
}

template <typename T> void check(T result, const char* what) {
  if (result) fprintf(stderr, "%s: %s\\n", what, errorName(result));
}

struct Device {
  size_t limit(cudaLimit l, size_t v) const { cudaDeviceGetLimit(&v, l); return v; }
  size_t limit(CUlimit l, size_t v) const { cuCtxGetLimit(&v, l); return v; }
  size_t limit(int l) const { return 0; }
};

#ifdef USE_DRIVER
inline const char* api(CUresult) { return "driver"; }
#else
inline const char* api(cudaError_t) { return "runtime"; }
#endif

#ifdef __cuda_cuda_h__
inline void report(CUresult e) { check(e, "driver"); }
#endif
inline void report(cudaError_t e) { check(e, "runtime"); }

__global__ void k(float* p) { p[threadIdx.x] = 1.0f; }
inline void run() { float* d; check(cudaMalloc(&d, 256), "malloc"); k<<<1, 64>>>(d); check(CUDA_SUCCESS, "x"); }
"""


def test_the_later_overload_is_disabled_and_reported() -> None:
    result = translate(HELPER, TranslateOptions())
    out = result.output.decode()
    assert out.count("static const char *errorName(hipError_t error)") == 2
    second = out.split("static const char *errorName(hipError_t error)")[2]
    assert "#if 0  // porter: errorName(CUresult) repeats errorName(cudaError_t) (line 6)" in out
    assert second.split("\n", 5)[4].startswith("}") and "#endif" in second.split("\n")[5]
    assert "#if 0  // porter: limit(CUlimit, size_t) repeats limit(cudaLimit, size_t) (line 20)" in out
    assert "size_t limit(int l) const { return 0; }" in out.split("#endif")[2]  # the int overload stays
    # exclusive #if branches never collide: both stay
    assert "inline const char* api(hipError_t) { return \"driver\"; }\n#else" in out
    # the unconditional overload is the one kept, whatever the order
    assert "#if 0  // porter: report(CUresult)" in out and "inline void report(hipError_t e) { check(e, \"runtime\"); }" in out
    disabled = [c for c in result.conversions if c.family == "overload"]
    assert [c.cuda for c in disabled] == ["errorName(CUresult)", "limit(CUlimit, size_t)", "report(CUresult)"]
    assert sum("disabled with #if 0" in w for w in result.warnings) == 3
    assert translate(result.output, TranslateOptions()).output == result.output  # stable


def test_one_overload_alone_is_left_alone() -> None:
    src = b"#include <cuda.h>\nstatic const char* n(CUresult e) { return 0; }\nstatic const char* n(int e) { return 0; }\n"
    result = translate(src, TranslateOptions())
    assert b"#if 0" not in result.output and not result.warnings


@pytest.mark.hipcc
def test_collapsed_helper_compiles(tmp_path: Path) -> None:
    header = translate(HELPER, TranslateOptions()).output
    (tmp_path / "helper.h").write_bytes(header)
    proc = _compiles(tmp_path, "main.hip", b'#include "helper.h"\nint main() { run(); report(hipSuccess); return 0; }\n')
    assert proc.returncode == 0, proc.stderr


def test_explicit_specializations_collapse_too() -> None:
    src = b"""#include <cuda.h>
template <typename T> const char* api();
template <> const char* api<cudaError_t>() { return "runtime"; }
template <> const char* api<CUresult>() { return "driver"; }
"""
    result = translate(src, TranslateOptions())
    assert b"#if 0  // porter: api<CUresult>() repeats api<cudaError_t>() (line 3) in HIP" in result.output
    assert result.output.count(b"#endif") == 1
