"""What real CUDA trees need to build after `porter convert`, end to end with the real hipcc of every toolchain.

Each case is a small project as real code writes it; the test runs `porter convert SRC -o OUT` the way a user
types it (no model) and requires the build step to compile every unit, for gfx90a on ROCm 5.2 and for
gfx942/gfx950 on ROCm 6.4. The shims and flags these exercise: build flags from CMake (generator expressions,
separable compilation) and Makefiles (-Xcompiler -fopenmp), nested includes the build files set up, math
constants and runtime/driver/hipSPARSE calls newer than the ROCm, device attributes and limits HIP lacks,
libcu++'s cuda::atomic_ref and cuda::pipeline, host calls of device-only math, CUdeviceptr/void* overloads,
C sources calling a CUDA library.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

CASES: dict[str, dict[str, str]] = {
    # a library whose include/ folder CMake adds through a generator expression, relocatable device code (a device
    # function defined in another unit) and OpenMP from find_package
    "cmake_library_rdc": {
        "CMakeLists.txt": (
            "cmake_minimum_required(VERSION 3.18)\nproject(rt LANGUAGES CXX CUDA)\n"
            "find_package(CUDAToolkit REQUIRED)\nfind_package(OpenMP)\n"
            "add_library(rt STATIC src/scene.cu src/render.cu)\n"
            "target_include_directories(rt PUBLIC $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>)\n"
            "set_target_properties(rt PROPERTIES CUDA_SEPARABLE_COMPILATION ON CUDA_STANDARD 17)\n"
            "target_link_libraries(rt PRIVATE OpenMP::OpenMP_CXX)\n"),
        "include/rt/scene.cuh": (
            "#pragma once\n#include <cuda_runtime.h>\n#include <math_constants.h>\n"
            "__device__ float shade(float x);\n"
            "__host__ __device__ inline float falloff(float d) { return rcbrtf(d) * CUDART_PI_F; }\n"),
        "src/scene.cu": '#include "rt/scene.cuh"\n__device__ float shade(float x) { return x * CUDART_INF_F; }\n',
        "src/render.cu": (
            '#include "rt/scene.cuh"\n#include <omp.h>\n'
            "__global__ void render(float* o) { o[threadIdx.x] = shade(falloff(2.0f)); }\n"
            "float host_side() { float s = 0;\n#pragma omp parallel for reduction(+ : s)\n"
            "  for (int i = 1; i < 8; ++i) s += falloff(float(i));\n  return s; }\n"),
    },
    # a device query and a graph pipeline: attributes and limits CUDA has and HIP lacks, calls newer than the ROCm
    "device_attributes": {
        "Makefile": "NVCCFLAGS = -O2 -std=c++17 -Xcompiler -Wall\nall:\n\tnvcc $(NVCCFLAGS) query.cu -o query -lcuda\n",
        "query.cu": (
            "#include <cstdio>\n#include <cuda.h>\n#include <cuda_runtime.h>\n"
            "int main() {\n  CUdevice dev; cuDeviceGet(&dev, 0);\n  int v = 0;\n"
            "  cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH, dev);\n"
            "  cudaDeviceGetAttribute(&v, cudaDevAttrMaxPersistingL2CacheSize, 0);\n"
            "  cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 1 << 20);\n"
            "  size_t heap; cudaDeviceGetLimit(&heap, cudaLimitMallocHeapSize);\n"
            "  const char* name = nullptr; cuGetErrorName(CUDA_SUCCESS, &name);\n"
            "  cudaEvent_t e; cudaEventCreate(&e);\n"
            "  cudaEventRecordWithFlags(e, 0, cudaEventRecordDefault);\n"
            "  printf(\"%d %zu %s\\n\", v, heap, name);\n  return 0;\n}\n"),
    },
    # libcu++ in device code, and driver-API wrappers whose CUdeviceptr and void* overloads meet in HIP
    "libcudacxx_and_driver": {
        "kernels.cu": (
            "#include <cuda/atomic>\n#include <cuda/pipeline>\n#include <cooperative_groups.h>\n"
            "namespace cg = cooperative_groups;\n"
            "__global__ void top(const unsigned* in, unsigned* best, int n) {\n"
            "  cuda::atomic_ref<unsigned, cuda::thread_scope_device> ref(*best);\n"
            "  for (int i = threadIdx.x; i < n; i += blockDim.x) ref.fetch_max(in[i], cuda::std::memory_order_relaxed);\n"
            "}\n"
            "__global__ void staged(const float* in, float* out) {\n"
            "  __shared__ float buf[2][128];\n"
            "  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, 2> state;\n"
            "  auto block = cg::this_thread_block();\n  auto pipe = cuda::make_pipeline(block, &state);\n"
            "  pipe.producer_acquire();\n  cuda::memcpy_async(block, buf[0], in, sizeof(float) * 128, pipe);\n"
            "  pipe.producer_commit();\n  pipe.consumer_wait();\n  out[threadIdx.x] = buf[0][threadIdx.x];\n"
            "  pipe.consumer_release();\n}\n"),
        "wrap.cpp": (
            "#include <cuda.h>\n#include <cuda_runtime.h>\n"
            "void copyToDevice(CUdeviceptr dst, const void* src, size_t n) { cuMemcpyHtoD(dst, src, n); }\n"
            "void copyToDevice(void* dst, const void* src, size_t n) { cudaMemcpy(dst, src, n, cudaMemcpyHostToDevice); }\n"),
    },
    # C calling a CUDA library (CUDALibrarySamples' cuSPARSE samples are .c files): compiled as C against HIP's
    # headers; a C file without GPU calls is the project's host code and is not compiled
    "c_library_calls": {
        "Makefile": "all:\n\tnvcc -O2 spmv.c util.c -o spmv -lcusparse\n",
        "util.c": "int twice(int x) { return 2 * x; }\n",
        "spmv.c": '#include <cuda_runtime_api.h>\n#include <cusparse.h>\n#include <stdio.h>\n\n#define CHECK(call) do { cusparseStatus_t s_ = (call); if (s_ != CUSPARSE_STATUS_SUCCESS) { \\\n    printf("cusparse error %s at %d\\n", cusparseGetErrorString(s_), __LINE__); return 1; } } while (0)\n\nint main(void) {\n    int rows[3] = {0, 1, 2}, cols[2] = {0, 1};\n    float vals[2] = {1.0f, 2.0f}, x[2] = {1.0f, 1.0f}, y[2] = {0.0f, 0.0f}, alpha = 1.0f, beta = 0.0f;\n    int *d_rows, *d_cols; float *d_vals, *d_x, *d_y; void* buffer = NULL; size_t size = 0;\n    cudaMalloc((void**)&d_rows, sizeof rows); cudaMalloc((void**)&d_cols, sizeof cols);\n    cudaMalloc((void**)&d_vals, sizeof vals); cudaMalloc((void**)&d_x, sizeof x); cudaMalloc((void**)&d_y, sizeof y);\n    cudaMemcpy(d_rows, rows, sizeof rows, cudaMemcpyHostToDevice);\n    cusparseHandle_t handle; cusparseSpMatDescr_t A; cusparseDnVecDescr_t vx, vy;\n    CHECK(cusparseCreate(&handle));\n    CHECK(cusparseCreateCsr(&A, 2, 2, 2, d_rows, d_cols, d_vals, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,\n                            CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));\n    CHECK(cusparseCreateDnVec(&vx, 2, d_x, CUDA_R_32F));\n    CHECK(cusparseCreateDnVec(&vy, 2, d_y, CUDA_R_32F));\n    CHECK(cusparseSpMV_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, A, vx, &beta, vy, CUDA_R_32F,\n                                  CUSPARSE_SPMV_ALG_DEFAULT, &size));\n    cudaMalloc(&buffer, size);\n    CHECK(cusparseSpMV_preprocess(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, A, vx, &beta, vy, CUDA_R_32F,\n                                  CUSPARSE_SPMV_ALG_DEFAULT, buffer));\n    CHECK(cusparseSpMV(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, A, vx, &beta, vy, CUDA_R_32F,\n                       CUSPARSE_SPMV_ALG_DEFAULT, buffer));\n    cudaMemcpy(y, d_y, sizeof y, cudaMemcpyDeviceToHost);\n    float* pinned = NULL;\n    cudaMallocHost((void**)&pinned, sizeof y);  /* in C the flags of hipHostMalloc have no default */\n    cudaFreeHost(pinned);\n    printf("%g %g\\n", y[0], y[1]);\n    return 0;\n}\n',
    },
}


def _convert(src: Path, out: Path, hip_toolchain, target: str) -> tuple[subprocess.CompletedProcess, dict]:
    env = {k: v for k, v in os.environ.items() if k not in ("PORTER_MODEL", "OPENAI_BASE_URL", "PORTER_HIPCC")}
    proc = subprocess.run(
        [sys.executable, "-m", "porter", "convert", src.name, "-o", out.name, "--target", target,
         "--toolchain", hip_toolchain.hipcc, "-j", "2"],
        cwd=src.parent, capture_output=True, text=True, timeout=900, check=False,
        env={**env, "HIP_PLATFORM": "amd", "NO_COLOR": "1"})
    report = json.loads((out / ".porter" / "report.json").read_text("utf-8"))
    return proc, report


@pytest.mark.hipcc
@pytest.mark.parametrize("case", sorted(CASES))
def test_real_code_tree_builds_after_convert(case: str, hip_toolchain, tmp_path: Path) -> None:
    src = tmp_path / case
    for rel, text in CASES[case].items():
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        (src / rel).write_text(text)
    for target in hip_toolchain.arches:
        out = tmp_path / f"{case}-{target}-hip"
        proc, report = _convert(src, out, hip_toolchain, target)
        units = report["fix_loop"]["build"]["units"]
        assert proc.returncode == 0, (target, proc.stdout[-3000:], proc.stderr[-3000:])
        assert not units["failed"] and units["ok"] == units["units"] > 0, (target, units)
        if case == "c_library_calls":  # the C library caller is the unit; the plain C helper is not compiled
            assert units["units"] == 1 and units["skipped"] == {"util.c": "C source without HIP calls: not compiled by the HIP build"}


MPI_JACOBI = {  # CUDA-aware MPI (the NVIDIA blog's Jacobi, Professional CUDA C's simpleP2P): mpi.h from the MPI
    "Makefile": "jacobi: src/jacobi.cu\n\tnvcc -O2 src/jacobi.cu -o jacobi -lmpi\n",
    "src/halo.h": "#pragma once\n#include <mpi.h>\nstatic inline int neighbour(int rank, int size) { return (rank + 1) % size; }\n",
    "src/jacobi.cu": '#include "halo.h"\n#include <cuda_runtime.h>\n#include <cstdio>\n'
                     "__global__ void relax(float* p) { p[threadIdx.x] *= 0.5f; }\n"
                     "int main(int argc, char** argv) {\n  MPI_Init(&argc, &argv);\n  int rank = 0, size = 1;\n"
                     "  MPI_Comm_rank(MPI_COMM_WORLD, &rank); MPI_Comm_size(MPI_COMM_WORLD, &size);\n"
                     "  float* d; cudaMalloc(&d, 256 * sizeof(float)); relax<<<1, 256>>>(d);\n"
                     "  float mine = 1.0f, total = 0.0f;\n"
                     "  MPI_Allreduce(&mine, &total, 1, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);\n"
                     "  std::printf(\"%d %d %f\\n\", rank, neighbour(rank, size), total);\n"
                     "  cudaFree(d); MPI_Finalize(); return 0;\n}\n",
}


@pytest.mark.hipcc
def test_mpi_programs_find_the_machines_mpi_headers(hip_toolchain, tmp_path: Path) -> None:
    """mpi.h is in no compiler's default path (Debian's Open MPI: /usr/lib/x86_64-linux-gnu/openmpi/include);
    porter asks the MPI's compiler wrapper, and the 6.4 toolchain's own root sees the folder too."""
    from support.toolchains import in_ci

    from porter.build.mpi import mpi_include_dirs

    if not mpi_include_dirs():
        if in_ci():
            pytest.fail("CI installs libopenmpi-dev (Makefile BUILD_PACKAGES): mpicxx should be on PATH")
        pytest.skip("no MPI (mpicxx) on this machine")
    src = tmp_path / "jacobi"
    for rel, text in MPI_JACOBI.items():
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        (src / rel).write_text(text)
    out = tmp_path / "jacobi-hip"
    proc, report = _convert(src, out, hip_toolchain, hip_toolchain.arch)
    units = report["fix_loop"]["build"]["units"]
    assert proc.returncode == 0 and units["ok"] == units["units"] == 1, (proc.stdout[-3000:], units)


def test_only_trees_that_include_mpi_get_its_folders(tmp_path: Path) -> None:
    from porter.build.compile_db import collect_flags
    from porter.build.mpi import mpi_include_dirs

    (tmp_path / "a.cu").write_text("#include <cuda_runtime.h>\n// mentions mpi.h in a comment only\n")
    assert collect_flags(tmp_path).mpi_dirs == []
    (tmp_path / "c.c").write_text('#include "mpi.h"\n')  # an MPI host file in C (Professional CUDA C's simpleP2P.c)
    flags = collect_flags(tmp_path)
    assert flags.mpi_dirs == list(mpi_include_dirs())
    args = flags.args(tmp_path / "a.cu")
    for d in flags.mpi_dirs:  # after everything else, as two words (the toolchain root's runner binds the folder)
        assert args[args.index(d) - 1] == "-idirafter"
