"""Failure classes real CUDA code hits after translation (issue 9, section 3), each checked with the real hipcc.

Class 1, include order: HIP headers that need hip/hip_runtime.h before them on some ROCm versions.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support.hip_compile import Compiler, compiler_params, need

from porter.fix.shims import install_shims
from porter.translate import RocmVersion, TranslateOptions, translate


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


# olcf/cuda-training-series: nvcc includes cuda_runtime.h into every .cu, so its exercises include only <stdio.h>
IMPLICIT_RUNTIME = b"""// vector add
#include <stdio.h>
__global__ void hello() { printf("hello from block %d\\n", (int)blockIdx.x); }
int main() {
  hello<<<2, 2>>>();
  cudaDeviceSynchronize();
}
"""


def test_nvccs_implicit_cuda_runtime_include_is_spelled_out_for_cu_files() -> None:
    out = translate(IMPLICIT_RUNTIME, TranslateOptions(nvcc_source=True)).output
    assert out.startswith(b"// vector add\n#include <hip/hip_runtime.h>\n#include <stdio.h>\n")
    assert translate(out, TranslateOptions(nvcc_source=True)).output == out  # porting the port changes nothing
    # not for other files (a .cpp gets no implicit include from nvcc), nor where an include may bring the runtime
    assert b"hip_runtime" not in translate(IMPLICIT_RUNTIME, TranslateOptions()).output
    quoted = IMPLICIT_RUNTIME.replace(b"#include <stdio.h>", b'#include "common.h"')
    assert b"hip_runtime" not in translate(quoted, TranslateOptions(nvcc_source=True)).output
    host_only = b"#include <stdio.h>\nint main() { return 0; }\n"
    assert translate(host_only, TranslateOptions(nvcc_source=True)).output == host_only
    no_include = b"__global__ void k() {}\nvoid f() { k<<<1, 1>>>(); }"
    assert translate(no_include, TranslateOptions(nvcc_source=True)).output.startswith(
        b"#include <hip/hip_runtime.h>\n__global__")


@pytest.mark.hipcc
def test_implicit_runtime_include_compiles(tmp_path: Path) -> None:
    proc = _compiles(tmp_path, "hello.hip", translate(IMPLICIT_RUNTIME, TranslateOptions(nvcc_source=True)).output)
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


UNPORTED_STATUS = b"""#include <cuda.h>
#include <cstdio>
static int calls = 0;
CUresult init() { ++calls; return cuInit(0); }
int main() {
    CUresult r = init();
    if (r == CUDA_ERROR_TIMEOUT) printf("timeout\\n");
    if (CUDA_ERROR_TIMEOUT != init()) printf("not timeout\\n");
    bool same = (init()) == CUDA_ERROR_STUB_LIBRARY;
    printf("%d %d\\n", same, calls);
    return 0;
}
"""


def test_status_enumerators_hip_lacks_compare_as_no_hip_result() -> None:
    result = translate(UNPORTED_STATUS, TranslateOptions())
    out = result.output.decode()
    assert "r == porter_unported_status" in out and "porter_unported_status != init()" in out
    assert "(init()) == porter_unported_status" in out and "CUDA_ERROR_" not in out
    assert not [u for u in result.unconverted if u.name.startswith("CUDA_ERROR")]
    # any other use stays reported: an assignment, a return value
    other = translate(b"#include <cuda.h>\nCUresult f() { CUresult r = CUDA_ERROR_TIMEOUT; return r; }\n",
                      TranslateOptions())
    assert "CUDA_ERROR_TIMEOUT" in other.output.decode()
    assert [u.name for u in other.unconverted] == ["CUDA_ERROR_TIMEOUT"]


@pytest.mark.hipcc
@pytest.mark.parametrize("compiler", compiler_params())
def test_unported_status_comparisons_compile_and_answer(compiler: Compiler | None, tmp_path: Path) -> None:
    compiler = need(compiler)
    path = tmp_path / "status.hip"
    path.write_bytes(translate(UNPORTED_STATUS, TranslateOptions(rocm=compiler.rocm)).output)
    assert compiler.compile(path, "-fsyntax-only").returncode != 0  # the name alone is undeclared
    assert "porter_unported_status" in install_shims(tmp_path, [path], compiler.rocm)["status.hip"]
    proc = compiler.compile(path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    if (run := compiler.run_on_host(path)) is not None:  # the host run needs the host's HIP runtime (5.2)
        assert run.stdout.splitlines() == ["not timeout", "0 3"], run.stdout + run.stderr  # every init() still ran


@pytest.mark.hipcc
def test_a_plain_cu_tree_builds_as_nvcc_would_on_rocm52(tmp_path: Path) -> None:
    """olcf's hw12: no build file, no include but <stdio.h>, an `auto` return type. nvcc compiles it (C++17, its
    implicit cuda_runtime.h); ROCm 5.2's hipcc forces -std=c++11 unless told, so porter's build names nvcc's
    standard."""
    _hipcc()
    project = tmp_path / "project"
    project.mkdir()
    (project / "task.cu").write_text(
        "#include <stdio.h>\n__device__ auto twice(int v) { return 2 * v; }\n"
        "__global__ void k(int* p) { p[threadIdx.x] = twice(threadIdx.x); }\n"
        "int main() { int* d; cudaMalloc(&d, 256); k<<<1, 64>>>(d); cudaDeviceSynchronize(); return 0; }\n")
    out = tmp_path / "port"
    proc = subprocess.run([sys.executable, "-m", "porter", "convert", str(project), "-o", str(out), "--target",
                           "gfx90a", "--toolchain", "system"], capture_output=True, text=True, timeout=600,
                          env={**os.environ, "NO_COLOR": "1", "COLUMNS": "200"})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "1 translation unit(s), 1 ok" in proc.stderr, proc.stderr


# Tutorial code prints a thread's coordinates (CUDA_Freshman, CoffeeBeforeArch, olcf): on ROCm 5.x they are structs
PRINTF_COORDINATES = b"""#include <cstdio>
#include <cuda_runtime.h>
__global__ void where() {
  printf("thread %u of block (%u, %u), grid %d, \\"x,y\\"\\n", threadIdx.x, blockIdx.x, blockIdx.y, gridDim.x * 2);
}
"""


def test_printf_of_a_bare_coordinate_gets_cudas_type_on_rocm5() -> None:
    old = translate(PRINTF_COORDINATES, TranslateOptions(rocm=RocmVersion(5, 2))).output
    assert (b'printf("thread %u of block (%u, %u), grid %d, \\"x,y\\"\\n", (unsigned int)threadIdx.x, '
            b"(unsigned int)blockIdx.x, (unsigned int)blockIdx.y, gridDim.x * 2);") in old
    assert translate(old, TranslateOptions(rocm=RocmVersion(5, 2))).output == old
    new = translate(PRINTF_COORDINATES, TranslateOptions(rocm=RocmVersion(6, 4))).output
    assert b"(unsigned int)" not in new  # 6.4's compiler converts them itself


@pytest.mark.hipcc
def test_printf_of_coordinates_compiles_on_rocm52(tmp_path: Path) -> None:
    proc = _compiles(tmp_path, "where.hip", translate(PRINTF_COORDINATES, TranslateOptions(rocm=RocmVersion(5, 2))).output)
    assert proc.returncode == 0, proc.stderr
    untouched = translate(PRINTF_COORDINATES, TranslateOptions(rocm=RocmVersion(6, 4))).output
    assert "non-scalar arg to printf" in _compiles(tmp_path, "untouched.hip", untouched).stderr  # what it fixes
