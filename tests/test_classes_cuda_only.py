"""Failure class 11 of the real-code issue: CUDA-only features ROCm does not have (dynamic parallelism, graph
conditional nodes, cuDLA, NvSci, EGL interop). Each use is reported as "no HIP equivalent" naming the feature and
the usual way out (porter/data/cuda_only.toml), and left as it is rather than rewritten blindly; the compiler's
errors for what is left get the same explanation in the report.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from support.toolchains import system_hipcc

from porter.build.diagnostics import parse_clang_output
from porter.fix import explain
from porter.translate import LaunchSyntax, Reason, TranslateOptions, translate

DYNAMIC = b"""#include <cuda_runtime.h>
__global__ void child(int* data, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] *= 2;
}
// Quicksort-style recursion: each block launches the work for its half.
__global__ void parent(int* data, int n) {
    if (threadIdx.x == 0 && n > 1) {
        int* scratch;
        cudaMalloc(&scratch, n * sizeof(int));
        child<<<(n + 255) / 256, 256>>>(data, n);
        cudaDeviceSynchronize();
        cudaFree(scratch);
    }
}
__device__ void helper(int* data) { child<<<1, 32>>>(data, 32); }
__host__ __device__ int twice(int v) {
#ifndef __CUDA_ARCH__
    cudaDeviceSynchronize();  // host path only
#endif
    return 2 * v;
}
int run(int* data, int n) {
    parent<<<1, 32>>>(data, n);
    return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
}
"""


def _reported(result) -> dict[tuple[str, int], object]:
    return {(u.name, u.line): u for u in result.unconverted}


@pytest.mark.parametrize("syntax", [LaunchSyntax.CHEVRON, LaunchSyntax.HIP])
def test_dynamic_parallelism_is_reported_and_left_alone(syntax: LaunchSyntax) -> None:
    result = translate(DYNAMIC, TranslateOptions(launch_syntax=syntax))
    out = result.output.decode()
    found = _reported(result)
    assert set(found) == {("cudaMalloc", 10), ("<<<>>>", 11), ("cudaDeviceSynchronize", 12), ("cudaFree", 13),
                          ("<<<>>>", 16)}
    for u in found.values():
        assert u.reason is Reason.NO_HIP_EQUIVALENT and u.family == "cuda-only"
        assert "dynamic parallelism" in u.detail and "not available on ROCm" in u.detail
        assert "launch the child grid from there" in u.detail
    # device code keeps its CUDA spelling (no silent hipMalloc in a kernel); host code is ported as usual
    assert "        cudaMalloc(&scratch" in out and "child<<<(n + 255) / 256, 256>>>(data, n);" in out
    assert "    hipDeviceSynchronize();  // host path only" in out
    assert "return hipDeviceSynchronize() == hipSuccess" in out
    if syntax is LaunchSyntax.HIP:
        assert "hipLaunchKernelGGL(parent, dim3(1), dim3(32), 0, 0, data, n)" in out


@pytest.mark.parametrize(("source", "feature", "way_out"), [
    (b"void g(cudaGraph_t graph) { cudaGraphConditionalHandle h;\n"
     b"  cudaGraphConditionalHandleCreate(&h, graph, 1, cudaGraphCondAssignDefault); }\n",
     "graph conditional nodes", "host loop"),
    (b"#include <cudla.h>\nvoid d() { cudlaDevHandle dev; cudlaCreateDevice(0, &dev, CUDLA_CUDA_DLA); }\n",
     "cuDLA", "MIGraphX"),
    (b"#include <nvscibuf.h>\nvoid n(NvSciBufObj obj) { cudaExternalMemoryHandleDesc d;\n"
     b"  d.type = cudaExternalMemoryHandleTypeNvSciBuf; }\n", "NvSci", "hipImportExternalMemory"),
    (b"#include <cuda_egl_interop.h>\nvoid e(cudaEglStreamConnection* c, EGLStreamKHR s) {\n"
     b"  cudaEGLStreamConsumerConnect(c, s); }\n", "EGL interop", "host memory"),
])
def test_cuda_only_features_name_the_feature_and_the_way_out(source: bytes, feature: str, way_out: str) -> None:
    result = translate(source, TranslateOptions())
    assert result.unconverted, "nothing reported"
    for u in result.unconverted:
        assert u.reason is Reason.NO_HIP_EQUIVALENT and u.family == "cuda-only", u
        assert feature in u.detail and "not available on ROCm" in u.detail and way_out in u.detail, u.detail
    for u in result.unconverted:  # left as written
        assert u.name.encode() in result.output


def test_user_names_that_look_alike_are_left_alone() -> None:
    src = b"struct NvSciBufObj { int x; };\nint f(NvSciBufObj o) { return o.x; }\n"
    assert not translate(src, TranslateOptions()).unconverted


@pytest.mark.hipcc
def test_the_compile_errors_of_dynamic_parallelism_are_explained(tmp_path: Path) -> None:
    hipcc = system_hipcc()
    src = tmp_path / "dp.hip"
    src.write_bytes(translate(DYNAMIC, TranslateOptions()).output)
    proc = hipcc.compile(src)
    assert proc.returncode != 0
    errors = [d for d in parse_clang_output(proc.stderr, tmp_path) if d.severity in ("error", "fatal")]
    assert errors
    ids = {e.id for d in errors if (e := explain(d)) is not None}
    assert "dynamic-parallelism" in ids, proc.stderr


@pytest.mark.hipcc
def test_convert_reports_the_feature_and_explains_what_remains(tmp_path: Path) -> None:
    system_hipcc()
    project = tmp_path / "proj"
    project.mkdir()
    (project / "recurse.cu").write_bytes(DYNAMIC)
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-m", "porter", "convert", str(project), "-o", str(out), "--target", "gfx90a"],
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 1, proc.stderr
    assert "why (" in proc.stderr and "persistent kernel" in " ".join(proc.stderr.split())
    report = json.loads((out / ".porter" / "report.json").read_text())
    left = [u for f in report["files"] for u in f["not_converted"]]
    assert {u["family"] for u in left} == {"cuda-only"}
    loop = report["fix_loop"]
    assert {e["id"] for e in loop["explained"]} == {"dynamic-parallelism"}
    assert all(e.get("explanation", {}).get("id") == "dynamic-parallelism" for e in loop["remaining_errors"])


@pytest.mark.parametrize(("message", "feature"), [
    ("'cudla.h' file not found", "cudla"),
    ("'cuda_egl_interop.h' file not found", "egl-interop"),
    ("unknown type name 'cudaGraphConditionalHandle'", "graph-conditional-nodes"),
    ("use of undeclared identifier 'NvSciSyncObjAlloc'", "nvsci"),
    ("use of undeclared identifier 'cudaStreamCreateWithFlags'; did you mean 'hipStreamCreateWithFlags'?",
     "dynamic-parallelism"),
    # as cuda-samples' cudaCompressibleMemory, ptxjit and simpleCUBLASXT leave them after the port
    ("use of undeclared identifier 'CU_MEM_ALLOCATION_COMP_GENERIC'", "compressible-memory"),
    ("use of undeclared identifier 'HIPRTC_JIT_INPUT_PTX'", "ptx-jit"),
    ("'cublasXt.h' file not found", "cublasxt"),
])
def test_errors_on_what_porter_left_name_the_feature(message: str, feature: str) -> None:
    from porter.build import Diagnostic

    why = explain(Diagnostic("a.cu", 3, 1, "error", message))
    assert why is not None and why.id == feature
    assert "not available on ROCm" in why.message or "ROCm" in why.message
    assert explain(Diagnostic("a.cu", 3, 1, "error", "use of undeclared identifier 'myHelper'")) is None
    pipeline = explain(Diagnostic("a.cu", 3, 1, "error", "no member named 'pipeline_role' in namespace 'cuda'"))
    assert pipeline is not None and pipeline.id == "libcudacxx-pipeline"


@pytest.mark.parametrize("header", ["helper_cuda.h", "helper_functions.h", "helper_timer.h", "nvrtc_helper.h"])
def test_a_missing_cuda_samples_helper_is_explained(header: str) -> None:
    """Rodinia's cfd includes <helper_cuda.h> from cuda-samples' Common/, which is no part of the toolkit."""
    from porter.build import Diagnostic

    why = explain(Diagnostic("cfd/euler3d.cu", 5, 10, "error", f"'{header}' file not found"))
    assert why is not None and why.id == "cuda-samples-helpers"
    assert header in why.message and "Common/" in why.message
    assert explain(Diagnostic("a.cu", 5, 10, "error", "'helper_mine.h' file not found")) is None


@pytest.mark.parametrize(("message", "rule", "named"), [
    ("'torch/types.h' file not found", "pytorch-extension", "torch/types.h"),  # flash-attention-minimal
    ("'ATen/cuda/CUDAContext.h' file not found", "pytorch-extension", "ATen/cuda/CUDAContext.h"),
    ("'cudnn_frontend.h' file not found", "cudnn", "MIOpen"),  # llm.c's optional cuDNN attention
    ("'windows.h' file not found", "windows-source", "HIP SDK for Windows"),  # gpu-burn's win/
    ("'tlhelp32.h' file not found", "windows-source", "HIP SDK for Windows"),  # the CUDA Handbook's win32 sample
    ("'conio.h' file not found", "windows-source", "HIP SDK for Windows"),
    ("'rccl/rccl.h' file not found", "library-not-installed", "RCCL"),  # llm.c's multi-GPU path
    ("'thrust/segmented_scan.h' file not found", "library-not-installed", "Thrust 1.x"),  # thrust's old examples
    ("'nvml.h' file not found", "nvml", "AMD SMI"),  # the NVIDIA blog's nvml sample
    ("'mpi.h' file not found", "mpi-not-installed", "GPU-aware MPI"),  # the blog's CUDA-aware MPI example
    ("'npp.h' file not found", "npp", "RPP"),  # Learn CUDA Programming's image filter
    ("'nppi_filtering_functions.h' file not found", "npp", "nppi_filtering_functions.h"),
    ("'NvInfer.h' file not found", "tensorrt", "MIGraphX"),  # the NVIDIA blog's TensorRT introduction
])
def test_what_public_code_includes_and_no_toolchain_here_has_is_explained(message: str, rule: str, named: str) -> None:
    from porter.build import Diagnostic

    why = explain(Diagnostic("x.cu", 1, 10, "fatal", message))
    assert why is not None and why.id == rule
    assert named in why.message

