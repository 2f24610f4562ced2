"""Failure class 10 of the real-code issue: library pieces.

cuFFT's Xt API maps to hipFFT's (multi-GPU descriptors from ROCm 6.0, cuFFTMp's distribution calls as of 6.4);
asynchronous copies (cuda_pipeline_primitives.h, cooperative_groups::memcpy_async) become ordinary copies
(shims/porter_pipeline.h), and so do libcu++'s cuda::pipeline and cuda::barrier (porter_cuda_pipeline.h); WMMA (mma.h)
ports to porter's own shim (tests/test_wmma.py), code written for rocWMMA is explained (no toolchain here has it); Thrust and CUB port to rocThrust and
hipCUB, which compile for gfx942 with ROCm 6.4 and not for gfx950 (rocPRIM 3.4 does not know it).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from support.convert import port_tree
from support.toolchains import newer_hipcc, system_hipcc

from porter.build.diagnostics import parse_clang_output
from porter.fix import explain
from porter.translate import Reason, RocmVersion, TranslateOptions, translate

SHIMS = Path(__file__).resolve().parents[1] / "shims"

FFT_XT = b"""#include <cufft.h>
#include <cufftXt.h>
#include <cuda_runtime.h>
// A 2D C2C transform spread over two GPUs with cuFFT's Xt descriptors.
int fft_two_gpus(cufftComplex* host, int nx, int ny) {
    cufftHandle plan;
    cufftCreate(&plan);
    int gpus[2] = {0, 1};
    cufftXtSetGPUs(plan, 2, gpus);
    size_t work[2];
    cufftMakePlan2d(plan, nx, ny, CUFFT_C2C, work);
    cudaLibXtDesc* data;
    cufftXtMalloc(plan, &data, CUFFT_XT_FORMAT_INPLACE);
    cufftXtMemcpy(plan, data, host, CUFFT_COPY_HOST_TO_DEVICE);
    cufftXtExecDescriptorC2C(plan, data, data, CUFFT_FORWARD);
    cufftXtMemcpy(plan, host, data, CUFFT_COPY_DEVICE_TO_HOST);
    int first = data->descriptor->GPUs[0];
    cufftXtFree(data);
    cufftDestroy(plan);
    return first < MAX_CUDA_DESCRIPTOR_GPUS ? 0 : 1;
}
"""


def _compiles_with_shim(tmp_path: Path, name: str, out: str, shim: str) -> None:
    """The port compiles with the newer hipcc, with `shim` among the shims porter installs for it."""
    from porter.fix.shims import install_shims

    hipcc = newer_hipcc()
    src = tmp_path / name
    src.write_text(out)
    assert shim in install_shims(tmp_path, [src], RocmVersion(*hipcc.version))[name]
    proc = hipcc.compile(src)
    assert proc.returncode == 0, f"{hipcc.label}:\n{proc.stderr}"


def _port(source: bytes, **options) -> tuple[str, object]:
    result = translate(source, TranslateOptions(**options))
    return result.output.decode(), result


def test_cufft_xt_maps_to_hipfft_with_versions() -> None:
    out, result = _port(FFT_XT, rocm=RocmVersion(6, 4))
    for expected in ("#include <hipfft/hipfftXt.h>", "hipfftXtSetGPUs(plan, 2, gpus)", "hipLibXtDesc* data;",
                     "hipfftXtMalloc(plan, &data, HIPFFT_XT_FORMAT_INPLACE)", "HIPFFT_COPY_HOST_TO_DEVICE",
                     "hipfftXtExecDescriptorC2C(plan, data, data, HIPFFT_FORWARD)", "hipfftXtFree(data)",
                     "MAX_HIP_DESCRIPTOR_GPUS"):
        assert expected in out, expected
    assert not result.unconverted
    _, old = _port(FFT_XT, rocm=RocmVersion(5, 7))
    assert {u.name for u in old.unconverted if u.reason is Reason.NEWER_ROCM} >= {"cufftXtMalloc", "cudaLibXtDesc"}
    detail = next(u.detail for u in old.unconverted if u.name == "cufftXtMalloc")
    assert "first appears in ROCm 6.0" in detail


def test_cufft_xt_pieces_hipfft_lacks_say_what_to_do() -> None:
    src = b"#include <cufftXt.h>\nvoid f(cufftHandle p, void* w[2]) { cufftXtSetWorkArea(p, w); }\n"
    _, result = _port(src)
    (left,) = result.unconverted
    assert left.name == "cufftXtSetWorkArea" and left.reason is Reason.NO_HIP_EQUIVALENT
    assert "auto-allocation" in left.detail


@pytest.mark.hipcc
def test_cufft_xt_port_compiles_with_rocm_6(tmp_path: Path) -> None:
    hipcc = newer_hipcc()
    src = tmp_path / "fft.hip"
    src.write_text(_port(FFT_XT, rocm=RocmVersion(*hipcc.version))[0])
    proc = hipcc.compile(src)
    assert proc.returncode == 0, f"{hipcc.label}:\n{proc.stderr}"


PIPELINE = b"""#include <cuda_runtime.h>
#include <cuda_pipeline_primitives.h>
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
namespace cg = cooperative_groups;
// Stage a tile into shared memory with cp.async primitives, and a second one with cg::memcpy_async.
__global__ void stage(const float4* in, const float* more, float* out, int n) {
    __shared__ float4 tile[256];
    __shared__ float rest[256];
    __pipeline_memcpy_async(&tile[threadIdx.x], &in[blockIdx.x * 256 + threadIdx.x], sizeof(float4));
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
    cg::thread_block block = cg::this_thread_block();
    cg::memcpy_async(block, rest, more + blockIdx.x * 256, sizeof(float) * 256);
    cg::wait(block);
    out[blockIdx.x * 256 + threadIdx.x] = tile[threadIdx.x].x + rest[255 - threadIdx.x];
}
"""


def test_async_copies_use_the_pipeline_shim() -> None:
    from porter.fix import needed_shims

    out, result = _port(PIPELINE, rocm=RocmVersion(6, 4))
    assert "#include <cuda_pipeline_primitives.h>" not in out and "cooperative_groups/memcpy_async.h" not in out
    assert "__pipeline_memcpy_async(&tile" in out and "cg::memcpy_async(block, rest" in out
    assert not result.unconverted
    assert "porter_pipeline" in needed_shims(out, RocmVersion(6, 4))


BARRIER = b"""#include <cuda/barrier>
#include <cooperative_groups.h>
#include <utility>
namespace cg = cooperative_groups;
// cuda-samples' style: a block-scoped barrier in shared memory, a group copy completing on it
__global__ void k(const float* in, float* out) {
  __shared__ float tile[256];
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  auto block = cg::this_thread_block();
  if (block.thread_rank() == 0) init(&bar, block.size());
  block.sync();
  cuda::memcpy_async(block, tile, in + blockIdx.x * 256, sizeof(float) * 256, bar);
  bar.arrive_and_wait();
  out[blockIdx.x * 256 + threadIdx.x] = tile[255 - threadIdx.x];
  cuda::barrier<cuda::thread_scope_block>::arrival_token t = bar.arrive();
  bar.wait(std::move(t));
  if (threadIdx.x == 0) bar.arrive_and_drop();
}
"""


def test_libcudacxx_barrier_and_pipeline_are_shimmed() -> None:
    from porter.fix import needed_shims

    src = b"#include <cuda/pipeline>\n#include <cuda/barrier>\n__global__ void k() {}\n"
    out, result = _port(src)
    assert not result.unconverted, result.unconverted  # porter_cuda_pipeline.h provides both
    assert out.startswith("#include <hip/hip_runtime.h>\n")
    out, result = _port(BARRIER, rocm=RocmVersion(6, 4))
    assert not result.unconverted and "porter_cuda_pipeline" in needed_shims(out, RocmVersion(6, 4))


@pytest.mark.hipcc
@pytest.mark.parametrize("toolchain", ["rocm52", "rocm6x"])
def test_async_copy_port_compiles(tmp_path: Path, toolchain: str) -> None:
    hipcc = system_hipcc() if toolchain == "rocm52" else newer_hipcc()
    out, _ = _port(PIPELINE, rocm=RocmVersion(*hipcc.version))
    (tmp_path / "porter_shims").mkdir()
    shutil.copy(SHIMS / "porter_pipeline.h", tmp_path / "porter_shims")
    src = tmp_path / "stage.hip"
    src.write_text(out.replace("namespace cg", '#include "porter_shims/porter_pipeline.h"\nnamespace cg', 1))
    proc = hipcc.compile(src)
    assert proc.returncode == 0, f"{hipcc.label}:\n{proc.stderr}"


ROCWMMA = b"""#include <rocwmma/rocwmma.hpp>
__global__ void gemm16(const rocwmma::float16_t* a, float* c) {
    rocwmma::fragment<rocwmma::accumulator, 16, 16, 16, float> fc;
    rocwmma::fill_fragment(fc, 0.0f);
    rocwmma::store_matrix_sync(c, fc, 16, rocwmma::mem_row_major);
}
"""


@pytest.mark.hipcc
def test_rocwmma_missing_is_explained(tmp_path: Path) -> None:
    """No toolchain here has rocWMMA: code written for it gets the explanation, not a bare 'file not found'
    (CUDA's own WMMA ports to porter_wmma.h: tests/test_wmma.py)."""
    hipcc = system_hipcc()
    src = tmp_path / "gemm.hip"
    src.write_text(_port(ROCWMMA)[0])
    proc = hipcc.compile(src)
    assert proc.returncode != 0
    errors = [d for d in parse_clang_output(proc.stderr, tmp_path) if d.severity in ("error", "fatal")]
    why = {e.id for d in errors if (e := explain(d)) is not None}
    assert "rocwmma-missing" in why, proc.stderr


THRUST_CUB = b"""#include <cub/cub.cuh>
#include <thrust/device_vector.h>
#include <thrust/sort.h>
#include <thrust/reduce.h>
__global__ void block_sum(const int* in, int* out) {
    typedef cub::BlockReduce<int, 256> Reduce;
    __shared__ typename Reduce::TempStorage temp;
    int total = Reduce(temp).Sum(in[blockIdx.x * 256 + threadIdx.x]);
    if (threadIdx.x == 0) out[blockIdx.x] = total;
}
int sorted_sum(thrust::device_vector<int>& v) {
    thrust::sort(v.begin(), v.end());
    return thrust::reduce(v.begin(), v.end());
}
"""


def test_thrust_and_cub_headers_and_namespaces() -> None:
    out, result = _port(THRUST_CUB, target="gfx942", rocm=RocmVersion(6, 4))
    assert "#include <hipcub/hipcub.hpp>" in out and "hipcub::BlockReduce<int, 256>" in out
    assert "#include <thrust/device_vector.h>" in out and "thrust::sort(" in out
    assert not result.warnings
    _, gfx950 = _port(THRUST_CUB, target="gfx950", rocm=RocmVersion(6, 4))
    assert any("does not know gfx950" in w and "ROCm 7.0" in w for w in gfx950.warnings)


@pytest.mark.hipcc
def test_thrust_and_cub_compile_for_gfx942_and_not_gfx950_on_rocm_64(tmp_path: Path) -> None:
    hipcc = newer_hipcc()
    src = tmp_path / "reduce.hip"
    src.write_text(_port(THRUST_CUB, target="gfx942", rocm=RocmVersion(*hipcc.version))[0])
    proc = hipcc.compile(src)
    assert proc.returncode == 0, f"{hipcc.label}:\n{proc.stderr}"
    if hipcc.version >= (7, 0):
        pytest.skip("rocPRIM of ROCm 7+ knows gfx950")
    import dataclasses

    gfx950 = dataclasses.replace(hipcc, arch="gfx950")
    failed = gfx950.compile(src)
    assert failed.returncode != 0
    errors = [d for d in parse_clang_output(failed.stderr, tmp_path) if d.severity in ("error", "fatal")]
    assert {e.id for d in errors if (e := explain(d)) is not None} == {"rocprim-unknown-target"}, failed.stderr


THRUST_BACKEND_NAMES = b"""#include <thrust/system_error.h>
#include <thrust/system/cuda/error.h>
#include <thrust/system/cuda/memory_resource.h>
void check(cudaError_t error) {
  if (error != cudaSuccess) throw thrust::system_error(error, thrust::cuda_category(), "cudaMalloc failed");
}
typedef thrust::system::cuda::detail::cuda_memory_resource<cudaMalloc, cudaFree, thrust::cuda::pointer<void> >
    device_ignore_shutdown_memory_resource;
"""


@pytest.mark.hipcc
def test_thrusts_cuda_backend_names_take_rocthrusts_spelling(tmp_path: Path) -> None:
    """thrust's examples (fallback_allocator, global_device_vector): rocThrust spells the backend's error category
    and memory resource with hip, and has thrust/system/hip/memory_resource.h for CUDA's header."""
    out, result = _port(THRUST_BACKEND_NAMES, target="gfx942", rocm=RocmVersion(6, 4))
    for expected in ("#include <thrust/system/hip/error.h>", "#include <thrust/system/hip/memory_resource.h>",
                     "thrust::hip_category()", "thrust::system::hip::detail::hip_memory_resource<hipMalloc, hipFree, "):
        assert expected in out, expected
    assert not result.unconverted
    hipcc = newer_hipcc()
    src = tmp_path / "backend.hip"
    src.write_text(out)
    proc = hipcc.compile(src)
    assert proc.returncode == 0, f"{hipcc.label}:\n{proc.stderr}"


CUSOLVER_TRAITS = b"""#include <cusolverDn.h>
#include <string>
template <typename T> struct traits;
template <> struct traits<float> {  // CUDALibrarySamples' cusolver_utils.h
  static constexpr cudaDataType cuda_data_type = CUDA_R_32F;
  static constexpr cusolverPrecType_t cusolver_precision_type = CUSOLVER_R_32F;
};
cusolverIRSRefinement_t refinement(const std::string& s) {
  if (s == "CUSOLVER_IRS_REFINE_GMRES") return CUSOLVER_IRS_REFINE_GMRES;
  return CUSOLVER_IRS_REFINE_NOT_SET;
}
int getrf(cusolverDnHandle_t h, int n, float* a, int* ipiv, int* info, float* work) {
  return (int)cusolverDnSgetrf(h, n, n, a, n, work, ipiv, info) + (int)traits<float>::cusolver_precision_type;
}
"""


@pytest.mark.hipcc
def test_cusolver_precision_and_refinement_enums_take_cudas_values(tmp_path: Path) -> None:
    """hipSOLVER has no iterative-refinement solvers and no precision types; helper headers that only name them
    (every cuSOLVER sample of CUDALibrarySamples includes such traits) compile with CUDA's values."""
    out, result = _port(CUSOLVER_TRAITS, target="gfx942", rocm=RocmVersion(6, 4))
    for expected in ("static constexpr porter_cusolver_prec_type_t cusolver_precision_type = PORTER_CUSOLVER_R_32F;",
                     'if (s == "CUSOLVER_IRS_REFINE_GMRES") return PORTER_CUSOLVER_IRS_REFINE_GMRES;',
                     "hipsolverDnSgetrf(h, n, n, a, n, work, ipiv, info)"):
        assert expected in out, expected
    assert not [u for u in result.unconverted if u.name.startswith(("cusolverPrec", "CUSOLVER_R", "CUSOLVER_IRS"))]
    _compiles_with_shim(tmp_path, "traits.hip", out, "porter_cusolver_enums")
    # CUDA's values, which a log or a file written by the CUDA build shows
    assert "PORTER_CUSOLVER_R_32F = 1204" in (Path(__file__).parents[1] / "shims" / "porter_cusolver_enums.h").read_text()


def test_gemm3m_and_newer_sparse_names() -> None:
    src = (b"#include <cublas_v2.h>\n#include <cusparse.h>\n"
           b"void f(cublasHandle_t h, cusparseHandle_t s, int n, const cuComplex* a, cuComplex* c, cusparseSideMode_t m) {\n"
           b"  cuComplex one = make_cuComplex(1, 0);\n"
           b"  cublasCgemm3m(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, a, n, &one, c, n);\n"
           b"  m = CUSPARSE_SIDE_LEFT;\n}\n")
    out, result = _port(src, target="gfx942", rocm=RocmVersion(6, 4))
    assert "hipblasCgemm(h, HIPBLAS_OP_N, HIPBLAS_OP_N," in out and "m = HIPSPARSE_SIDE_LEFT;" in out
    assert "hipsparseSideMode_t m" in out and not result.unconverted


PINNED_ALLOCATOR = b"""#include <thrust/host_vector.h>
#include <thrust/device_vector.h>
#include <thrust/system/cuda/experimental/pinned_allocator.h>
// Thrust 1.x's page-locked host vectors (hijkzzz/cuda-neural-network's mnist.cuh)
typedef thrust::host_vector<float, thrust::cuda::experimental::pinned_allocator<float> > pinned_vector;
int roundtrip() {
  pinned_vector h(16, 1.0f);
  thrust::device_vector<float> d = h;
  thrust::host_vector<float, thrust::system::cuda::experimental::pinned_allocator<float> > back = d;
  return back[3] == 1.0f ? 0 : 1;
}
"""


@pytest.mark.hipcc
def test_thrusts_old_pinned_allocator_comes_from_a_shim(tmp_path: Path) -> None:
    """thrust::cuda::experimental::pinned_allocator left CUDA's Thrust and never was in rocThrust 6.4: porter's
    allocator over hipHostMalloc with raw pointers (host_vector stays a host container)."""
    from porter.fix.shims import install_shims

    out, result = _port(PINNED_ALLOCATOR, target="gfx942", rocm=RocmVersion(6, 4))
    assert "#include <thrust/system/hip/memory.h>" in out and "thrust::hip::experimental::pinned_allocator<float>" in out
    assert not result.unconverted
    hipcc = newer_hipcc()
    src = tmp_path / "pinned.hip"
    src.write_text(out)
    assert install_shims(tmp_path, [src], RocmVersion(*hipcc.version))["pinned.hip"] == ["porter_thrust_pinned_allocator"]
    proc = hipcc.compile(src)
    assert proc.returncode == 0, f"{hipcc.label}:\n{proc.stderr}"


GEMM_BATCHED_EX = b"""#include <cublas_v2.h>
cublasStatus_t run(cublasHandle_t h, void** a, void** b, void** c, const void* const* ca, int n, int batch) {
  float one = 1.0f;
  cublasGemmBatchedEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, CUDA_R_32F, n, b, CUDA_R_32F, n, &one, c,
                      CUDA_R_32F, n, batch, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  return cublasGemmBatchedEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, (const void**)ca, CUDA_R_32F, n, ca,
                             CUDA_R_32F, n, &one, c, CUDA_R_32F, n, batch, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
}
"""


@pytest.mark.hipcc
def test_batched_gemm_pointer_arrays_take_hipblas_types(tmp_path: Path) -> None:
    """cuBLAS takes the batches as const void* const[] (void** converts), hipBLAS as const void*[] (it does not):
    the arrays are cast, an argument already cast to the type is left alone; the untouched call fails."""
    from porter.fix.shims import install_shims

    out, result = _port(GEMM_BATCHED_EX, target="gfx942", rocm=RocmVersion(6, 4))
    assert "&one, (const void**)(a), HIP_R_32F, n, (const void**)(b), HIP_R_32F, n, &one, (void**)(c)," in out
    assert "(const void**)ca, HIP_R_32F, n, (const void**)(ca)," in out and not result.unconverted
    hipcc = newer_hipcc()
    for name, text in (("cast.hip", out), ("raw.hip", out.replace("(const void**)(a)", "a"))):
        src = tmp_path / name
        src.write_text(text)
        install_shims(tmp_path, [src], RocmVersion(*hipcc.version))
        proc = hipcc.compile(src)
        assert (proc.returncode == 0) == (name == "cast.hip"), f"{hipcc.label} {name}:\n{proc.stderr[-2000:]}"


GEMM_EX_LEGACY_COMPUTE = b"""#include <cublas_v2.h>
#include <cuda_runtime.h>
// cuBLAS 10's form (Packt's sgemm_mixed_precision): the compute type is a cudaDataType, which CUDA 11 and later
// still take from C++ and migrate (cublasMigrateComputeType)
cublasStatus_t gemms(cublasHandle_t h, const void* a, const void* b, void* c, const void** as, void** cs, bool half) {
    const float one = 1.0f, zero = 0.0f;
    cudaDataType type_c = half ? CUDA_R_16F : CUDA_R_32F;
    cublasStatus_t s = cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &one, a, CUDA_R_32F, 4, b, CUDA_R_32F, 4,
                                    &zero, c, type_c, 4, type_c, CUBLAS_GEMM_DEFAULT);
    s = cublasGemmStridedBatchedEx(h, CUBLAS_OP_N, CUBLAS_OP_T, 4, 4, 4, &one, a, CUDA_R_32F, 4, 16, b, CUDA_R_32F, 4,
                                   16, &zero, c, CUDA_R_32F, 4, 16, 2, CUDA_R_32F, CUBLAS_GEMM_DEFAULT);
    s = cublasGemmBatchedEx(h, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &one, as, CUDA_R_32F, 4, as, CUDA_R_32F, 4, &zero,
                            cs, CUDA_R_32F, 4, 2, CUDA_R_64F, CUBLAS_GEMM_DEFAULT);
    // the current form is untouched
    return s == CUBLAS_STATUS_SUCCESS ? cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &one, a, CUDA_R_32F, 4, b,
                                                     CUDA_R_32F, 4, &zero, c, CUDA_R_32F, 4, CUBLAS_COMPUTE_32F,
                                                     CUBLAS_GEMM_DEFAULT) : s;
}
"""


@pytest.mark.hipcc
def test_gemm_ex_with_a_cuda_data_type_compute_type_compiles_on_rocm_6(tmp_path: Path) -> None:
    from porter.fix.shims import install_shims

    hipcc = newer_hipcc()
    out, result = _port(GEMM_EX_LEGACY_COMPUTE, rocm=RocmVersion(*hipcc.version))
    assert not result.unconverted, result.unconverted
    src = tmp_path / "gemm.hip"
    src.write_text(out)
    installed = install_shims(tmp_path, [src], RocmVersion(*hipcc.version))
    assert "porter_hipblas_compute_type" in installed["gemm.hip"]
    proc = hipcc.compile(src)
    assert proc.returncode == 0, f"{hipcc.label}:\n{proc.stderr}"
    # without the shim hipBLAS refuses the cudaDataType compute type
    bare = tmp_path / "bare.hip"
    bare.write_text(out)
    install_shims(tmp_path, [bare], RocmVersion(*hipcc.version), only={bare: {"porter_hipblas_v2"}})
    refused = hipcc.compile(bare)
    assert refused.returncode != 0 and "hipblasComputeType_t" in refused.stderr


CUDA_STD = b"""#include <cuda/std/limits>
#include <cuda/std/type_traits>
#include <cuda/std/utility>
#include <cuda/std/array>
#include <cuda/std/tuple>
#include <cuda/std/cstdint>
#include <cuda/std/cmath>
#include <cuda/std/atomic>
#include <cuda_runtime.h>
template <typename T> __global__ void k(T* p, cuda::std::uint32_t n) {
  static_assert(cuda::std::is_floating_point<T>::value, "float");
  p[0] = cuda::std::numeric_limits<T>::max();
  cuda::std::pair<int, T> pr{1, p[1]};
  p[2] = cuda::std::min(pr.second, p[3]) + cuda::std::sqrt(p[4]);
  cuda::std::array<T, 2> a{p[5], p[6]};
  auto t = cuda::std::make_tuple(a[0], n);
  p[7] = cuda::std::get<0>(t) + cuda::std::abs(p[8]);
}
template __global__ void k<float>(float*, cuda::std::uint32_t);
int main() { cuda::std::atomic<int> c{0}; c.fetch_add(1, cuda::std::memory_order_relaxed); return c.load() == 1 ? 0 : 1; }
"""


def test_libcudacxx_standard_headers_become_the_standard_ones() -> None:
    out, result = _port(CUDA_STD, rocm=RocmVersion(6, 4))
    assert "#include <limits>" in out and "#include <tuple>" in out and "cuda/std/" not in out
    assert not result.unconverted, result.unconverted


@pytest.mark.hipcc
@pytest.mark.parametrize("toolchain", ["rocm52", "rocm6x"])
@pytest.mark.parametrize(("source", "shim"), [("barrier", "porter_cuda_pipeline.h"), ("cuda_std", "porter_cuda_std.h")])
def test_libcudacxx_ports_compile_in_device_code(tmp_path: Path, toolchain: str, source: str, shim: str) -> None:
    """cuda::barrier with cuda::memcpy_async on it, and libcu++'s standard parts, through porter's shims."""
    hipcc = system_hipcc() if toolchain == "rocm52" else newer_hipcc()
    out = port_tree(tmp_path, {"k.cu": {"barrier": BARRIER, "cuda_std": CUDA_STD}[source]}, "gfx942")
    assert f"porter_shims/{shim}" in (out / "k.cu").read_text()
    built = hipcc.compile(out / "k.cu")
    assert built.returncode == 0, f"{hipcc.label}:\n{built.stderr}"


GROUPED_GEMM = b"""#include <cublas_v2.h>
#include <cstdio>
// CUDALibrarySamples' cublas/Extensions/GemmGroupedBatched, shortened: two groups of sizes 2 and 1.
int grouped(cublasHandle_t h, const double* const* a, const double* const* b, double* const* c) {
  cublasOperation_t ta[2] = {CUBLAS_OP_N, CUBLAS_OP_T}, tb[2] = {CUBLAS_OP_N, CUBLAS_OP_N};
  int m[2] = {4, 8}, n[2] = {4, 8}, k[2] = {4, 8}, lda[2] = {4, 8}, ldb[2] = {4, 8}, ldc[2] = {4, 8};
  double alpha[2] = {1.0, 2.0}, beta[2] = {0.0, 1.0};
  int sizes[2] = {2, 1};
  printf("cuBLAS built with CUDA runtime %zu\\n", cublasGetCudartVersion());
  return (int)cublasDgemmGroupedBatched(h, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, 2, sizes);
}
"""


@pytest.mark.hipcc
def test_grouped_batched_gemm_and_cudart_version_through_porters_hipblas_shim(tmp_path: Path) -> None:
    """cublasDgemmGroupedBatched (CUDALibrarySamples) and cublasGetCudartVersion (Bruce-Lee-LY/cuda_hgemm) have no
    hipBLAS counterpart up to 6.4: porter_hipblas_grouped.h makes one batched call per group."""
    out, result = _port(GROUPED_GEMM, target="gfx942", rocm=RocmVersion(6, 4))
    assert "porter_dgemm_grouped_batched(h, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, 2, sizes)" in out
    assert "porter_cublas_get_cudart_version()" in out
    assert not result.unconverted
    _compiles_with_shim(tmp_path, "grouped.hip", out, "porter_hipblas_grouped")
