"""What public CUDA code (gpu-burn, siboehm/SGEMM_CUDA, llm.c) needed that porter did not do, each compiled with
the real HIP compilers: CUDA 3.x's driver-API launch sequence, NVTX without roctracer, hipBLAS headers included by
files that use no hipBLAS name, the cudaDataType enumerators beyond the float ones, the shared-memory carveout
values."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.hip_compile import Compiler, compiler_params, need

from porter.fix.shims import install_shims, needed_shims
from porter.translate import Reason, RocmVersion, TranslateOptions, translate

ROCM_52 = RocmVersion(5, 2)
ROCM_64 = RocmVersion(6, 4)


def _port(source: str, rocm: RocmVersion | None, target: str = "gfx90a") -> tuple[str, list]:
    result = translate(source.encode(), TranslateOptions(rocm=rocm, target=target))
    return result.output.decode(), result.unconverted


def _build(ported: str, name: str, compiler: Compiler, tmp_path: Path) -> tuple[Path, list[str]]:
    """The port written as `name` with the shims it needs, compiled (the test fails if it does not); the path and
    the shims installed."""
    path = tmp_path / name
    path.write_text(ported)
    installed = install_shims(tmp_path, [path], compiler.rocm)[name]
    proc = compiler.compile(path)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return path, installed


LEGACY_LAUNCH = """#include <cuda.h>
#include <cstdio>
int main() {
  CUfunction f = (CUfunction)0x1;  // no GPU here: the state is kept per function, the launch itself fails
  void* data = (void*)0x1234; size_t iters = 7; float scale = 0.5f;
  int size = cuParamSetSize(f, 28), v = cuParamSetv(f, 0, &data, sizeof(data)), i = cuParamSeti(f, 16, 3u);
  int fl = cuParamSetf(f, 20, scale), w = cuParamSetv(f, 8, &iters, sizeof(iters));
  int past = cuParamSetv(f, 24, &iters, sizeof(iters));
  int shape = cuFuncSetBlockShape(f, 16, 16, 1), bad_shape = cuFuncSetBlockShape(f, 0, 1, 1);
  int shared = cuFuncSetSharedSize(f, 256), cache = cuFuncSetCacheConfig(f, CU_FUNC_CACHE_PREFER_L1);
  int launched = cuLaunchGridAsync(f, 4, 4, 0);
  printf("%d %d %d %d %d %d %d %d %d %d %d\\n", size, v, i, fl, w, past == CUDA_ERROR_INVALID_VALUE, shape,
         bad_shape == CUDA_ERROR_INVALID_VALUE, shared, cache, launched != CUDA_SUCCESS);
  cuLaunchGrid(f, 1, 1);
  cuLaunch(f);
  return 0;
}
"""


@pytest.mark.hipcc
@pytest.mark.parametrize("compiler", compiler_params())
def test_cuda3_driver_launches_go_through_the_legacy_launch_shim(compiler: Compiler | None, tmp_path: Path) -> None:
    """gpu-burn launches its compare kernel with cuParamSetv/cuFuncSetBlockShape/cuLaunchGridAsync."""
    compiler = need(compiler)
    out, leftovers = _port(LEGACY_LAUNCH, compiler.rocm)
    assert not leftovers, leftovers
    for expected in ("porter_param_set_size(f, 28)", "porter_param_setv(f, 0, &data, sizeof(data))",
                     "porter_func_set_block_shape(f, 16, 16, 1)", "porter_launch_grid_async(f, 4, 4, 0)",
                     "porter_func_set_cache_config(f, hipFuncCachePreferL1)"):
        assert expected in out, expected
    path, installed = _build(out, "burn.hip", compiler, tmp_path)
    assert "porter_legacy_launch" in installed
    if (run := compiler.run_on_host(path)) is not None:  # offsets past cuParamSetSize and empty shapes refused
        assert run.stdout.split() == ["0", "0", "0", "0", "0", "1", "0", "1", "0", "0", "1"], run.stdout + run.stderr


NVTX = """#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>
#include <nvtx3/nvToolsExtCudaRt.h>
struct Range { Range(const char* s) { nvtxRangePush(s); } ~Range() { nvtxRangePop(); } };
void step(cudaStream_t s) {
  Range r("step");
  nvtxNameCudaStreamA(s, "main stream");
  nvtxMarkA("here");
  nvtxRangeId_t id = nvtxRangeStartA("phase");
  nvtxRangeEnd(id);
}
"""


@pytest.mark.hipcc
@pytest.mark.parametrize("compiler", compiler_params())
def test_nvtx_builds_with_or_without_roctracer(compiler: Compiler | None, tmp_path: Path) -> None:
    """llm.c marks ranges with NVTX; Debian's 5.2 has no roctracer (the shim's no-ops), the 6.4 toolchain has rocTX
    (the shim includes roctracer/roctx.h)."""
    compiler = need(compiler)
    out, leftovers = _port(NVTX, compiler.rocm)
    assert not leftovers, leftovers
    assert "roctracer/roctx.h" not in out and "porter_roctx_name(s, \"main stream\")" in out
    assert "roctxRangePush(s)" in out and "roctx_range_id_t id = roctxRangeStartA(\"phase\")" in out
    assert "porter_roctx" in _build(out, "ranges.hip", compiler, tmp_path)[1]


def test_a_header_that_includes_hipblas_gets_hipblas_v2_first() -> None:
    """SGEMM_CUDA's kernel headers include cublas_v2.h without naming anything in it; they come before the runner's
    header, so HIPBLAS_V2 must be defined in them too or hipblasGemmEx takes the old types everywhere."""
    kernel_header, _ = _port("#pragma once\n#include <cublas_v2.h>\n__global__ void k(float* x) { x[0] = 1; }\n",
                             ROCM_64, "gfx942")
    assert "porter_hipblas_v2" in needed_shims(kernel_header, ROCM_64)
    assert "porter_hipblas_v2" not in needed_shims(kernel_header, RocmVersion(7, 0))  # hipBLAS 3.0 needs no switch
    assert "porter_hipblas_v2" not in needed_shims("#include <hip/hip_runtime.h>\n// hipblas.h\n", ROCM_64)


def test_library_data_types_beyond_the_float_ones() -> None:
    """llm.c's bf16 GEMMs name CUDA_R_16BF; int8 GEMMs CUDA_R_8I and CUDA_R_32I. hipDataType has them from 6.0."""
    src = ("#include <cublasLt.h>\nvoid f() { cudaDataType_t a = CUDA_R_16BF, b = CUDA_R_8I, c = CUDA_R_32I, "
           "d = CUDA_C_16BF; cublasDataType_t s = CUDA_R_32F; }\n")
    out, leftovers = _port(src, ROCM_64, "gfx942")
    assert not leftovers, leftovers
    assert "hipDataType a = HIP_R_16BF, b = HIP_R_8I, c = HIP_R_32I, d = HIP_C_16BF; hipDataType s = HIP_R_32F;" in out
    _, old = _port(src, ROCM_52)
    assert {u.name for u in old if u.reason is Reason.NEWER_ROCM} == {"CUDA_R_16BF", "CUDA_R_8I", "CUDA_R_32I",
                                                                      "CUDA_C_16BF"}
    _, scale = _port("void g(cublasLtMatmulDesc_t d, cudaDataType_t t) { cublasLtMatmulDescSetAttribute(d, "
                     "CUBLASLT_MATMUL_DESC_SCALE_TYPE, &t, sizeof(t)); }\n", ROCM_64, "gfx942")
    why = next(u.detail for u in scale if u.name == "CUBLASLT_MATMUL_DESC_SCALE_TYPE")
    assert "hipblasLtMatmulDescCreate" in why


CARVEOUT = """#include <cuda_runtime.h>
__global__ void k(float* x) { x[threadIdx.x] = 0; }
int main() {
  int a = cudaFuncSetAttribute(k, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared);
  return a + (cudaSharedmemCarveoutDefault == -1 ? 0 : 1) + (int)cudaSharedmemCarveoutMaxL1;
}
"""


@pytest.mark.hipcc
@pytest.mark.parametrize("compiler", compiler_params())
def test_shared_memory_carveout_values_keep_cudas_numbers(compiler: Compiler | None, tmp_path: Path) -> None:
    compiler = need(compiler)
    out, leftovers = _port(CARVEOUT, compiler.rocm)
    assert not leftovers, leftovers
    assert "porter_sharedmem_carveout_max_shared" in out
    _build(out, "carve.hip", compiler, tmp_path)


CUDA_STD_ATOMIC = """#include <cuda/atomic>
#include <cuda_runtime.h>
#include <cstdio>
// the NVIDIA blog's printf alternative (CASerror.h): a status word in mapped pinned memory, stored by kernels and
// polled by the host through a volatile pointer
struct Status { cuda::std::atomic<int>* host_status; };
__global__ void report(Status s, int code) { s.host_status->store(code, cuda::memory_order_release); }
int poll(void* p) { return static_cast<volatile cuda::std::atomic<int>*>(p)->load(cuda::memory_order_acquire); }
int main() {
  cuda::std::atomic<int> a(1);
  a.store(2, cuda::std::memory_order_release);
  int old = a.fetch_add(5);
  int mx = a.fetch_max(4);
  printf("%d %d %d %d\\n", old, mx, a.load(), poll(&a));
  return 0;
}
"""


@pytest.mark.hipcc
@pytest.mark.parametrize("compiler", compiler_params())
def test_cuda_std_atomic_in_host_and_device_code(compiler: Compiler | None, tmp_path: Path) -> None:
    """libcu++'s cuda::std::atomic (cuda::atomic at system scope) and cuda::memory_order_*, host and device,
    volatile objects included, through porter_cuda_atomic.h; porter no longer calls cuda::std unported there."""
    compiler = need(compiler)
    out, leftovers = _port(CUDA_STD_ATOMIC, compiler.rocm)
    assert not [u for u in leftovers if u.name == "cuda::std"], leftovers
    path, installed = _build(out, "status.hip", compiler, tmp_path)
    assert "porter_cuda_atomic" in installed
    if (run := compiler.run_on_host(path)) is not None:
        assert run.stdout.split() == ["2", "7", "7", "7"], run.stdout + run.stderr


NVTX_EX = """#include <cstdio>
#include <cuda_runtime.h>
#include <nvToolsExt.h>
static const uint32_t palette[] = {0xff00ff00, 0xff0000ff};
#define PUSH_RANGE(name, cid) { \\
    nvtxEventAttributes_t attrib = {0}; \\
    attrib.version = NVTX_VERSION; \\
    attrib.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE; \\
    attrib.colorType = NVTX_COLOR_ARGB; \\
    attrib.color = palette[(cid) % 2]; \\
    attrib.messageType = NVTX_MESSAGE_TYPE_ASCII; \\
    attrib.message.ascii = name; \\
    nvtxRangePushEx(&attrib); }
#define POP_RANGE nvtxRangePop();
__global__ void k(int* p) { p[threadIdx.x] = 1; }
int main() {
  PUSH_RANGE("init", 0)
  nvtxEventAttributes_t m = {0};
  m.messageType = NVTX_MESSAGE_TYPE_ASCII;
  m.message.ascii = "here";
  nvtxMarkEx(&m);
  nvtxRangeId_t id = nvtxRangeStartEx(&m);
  nvtxRangeEnd(id);
  POP_RANGE
  printf("%d %d\\n", (int)NVTX_EVENT_ATTRIB_STRUCT_SIZE, (int)sizeof(m.payload));
  return 0;
}
"""


@pytest.mark.hipcc
@pytest.mark.parametrize("compiler", compiler_params())
def test_nvtx_event_attributes_keep_the_message(compiler: Compiler | None, tmp_path: Path) -> None:
    """NVIDIA's PUSH_RANGE idiom (nvtxEventAttributes_t with a color, nvtxRangePushEx): the struct and constants
    under porter names, the range pushed on rocTX with the message; NVTX's layout kept (48 bytes)."""
    compiler = need(compiler)
    out, leftovers = _port(NVTX_EX, compiler.rocm)
    assert not [u for u in leftovers if u.family == "nvtx"], leftovers
    assert "porter_nvtx_range_push_ex(&attrib);" in out and "attrib.colorType = PORTER_NVTX_COLOR_ARGB;" in out
    path, installed = _build(out, "ranges.hip", compiler, tmp_path)
    assert "porter_roctx" in installed
    if (run := compiler.run_on_host(path)) is not None:
        assert run.stdout.split() == ["48", "8"], run.stdout + run.stderr


def test_a_type_the_project_defines_under_a_cuda_name_keeps_it(tmp_path: Path) -> None:
    """CUDA by Example's Julia set defines its own `struct cuComplex` (CUDA's is in cuComplex.h, which it does not
    include); renamed to hipComplex it collided with HIP's. Kept where the file or a header of the tree defines it;
    CUDA's cuComplex is still ported where nothing defines it."""
    own = ("struct cuComplex {\n  float r, i;\n  __device__ cuComplex(float a, float b) : r(a), i(b) {}\n};\n"
           "__device__ float julia(float x) { cuComplex a(x, x); return a.r * a.i; }\n")
    out = translate(own.encode(), TranslateOptions(target="gfx942")).output.decode()
    assert out.count("cuComplex") == 3 and "hipComplex" not in out
    user = "#include \"complex.h\"\n__device__ float f(cuComplex a) { return a.r; }\n"
    kept = translate(user.encode(), TranslateOptions(target="gfx942", user_types=frozenset({"cuComplex"})))
    assert "cuComplex a" in kept.output.decode()
    cuda = translate(b"#include <cuComplex.h>\n__device__ cuComplex g(cuComplex a) { return cuCmulf(a, a); }\n",
                     TranslateOptions(target="gfx942")).output.decode()
    assert "__device__ hipComplex g(hipComplex a) { return hipCmulf(a, a); }" in cuda
    # through `porter convert`: the struct in a header of the tree
    src = tmp_path / "book"
    src.mkdir()
    (src / "complex.h").write_text("#pragma once\nstruct cuComplex { float r, i; };\n")
    (src / "julia.cu").write_text(user)
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-m", "porter", "convert", "book", "-o", "out", "--no-build"], cwd=tmp_path,
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "__device__ float f(cuComplex a)" in (tmp_path / "out" / "julia.cu").read_text()


GL_INTEROP = """#include <GL/gl.h>
#include <cuda_runtime.h>
#include <cuda_gl_interop.h>
// CUDA by Example's gpu_anim.h: a pixel buffer shared with OpenGL
struct Frame { cudaGraphicsResource* resource; GLuint buffer; };
__global__ void shade(uchar4* p, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) p[i].x = 255; }
int draw(Frame& f, int dev, int n) {
  cudaGLSetGLDevice(dev);
  if (cudaGraphicsGLRegisterBuffer(&f.resource, f.buffer, cudaGraphicsMapFlagsNone) != cudaSuccess) return 1;
  uchar4* pixels; size_t size;
  cudaGraphicsMapResources(1, &f.resource, NULL);
  cudaGraphicsResourceGetMappedPointer((void**)&pixels, &size, f.resource);
  shade<<<(n + 255) / 256, 256>>>(pixels, n);
  cudaGraphicsUnmapResources(1, &f.resource, NULL);
  return cudaGraphicsUnregisterResource(f.resource) != cudaSuccess;
}
"""


@pytest.mark.hipcc
@pytest.mark.parametrize("compiler", compiler_params())
def test_opengl_interop_ports_and_sees_the_hosts_gl_headers(compiler: Compiler | None, tmp_path: Path) -> None:
    """CUDA by Example's GL interop: the map flags it passes where register flags go (HIP has register flags of
    the same values), cudaGLSetGLDevice (deprecated, made the device current); and GL/gl.h, the user's library
    header, found by the ROCm 6.4 toolchain too, whose own root has no GL (the host's headers come after its own)."""
    if not Path("/usr/include/GL/gl.h").is_file():
        pytest.skip("no GL/gl.h on this machine (libgl-dev; `make hip-toolchain` installs it)")
    compiler = need(compiler)
    out, leftovers = _port(GL_INTEROP, compiler.rocm)
    assert not leftovers, leftovers
    for expected in ("hipSetDevice(dev);", "hipGraphicsGLRegisterBuffer(&f.resource, f.buffer, hipGraphicsRegisterFlagsNone)"):
        assert expected in out, expected
    root = tmp_path / "out"
    root.mkdir()
    (root / "frame.hip").write_text(out)
    from porter.build.environment import HipccEnvironment
    from porter.build.toolchain import resolve_toolchain

    toolchain = resolve_toolchain(compiler.hipcc)
    result = HipccEnvironment(root, toolchain, arch=compiler.arches[0], jobs=1).build()
    assert result.ok, result.output


SAMPLES_HELPERS = """#include <stdio.h>
#include <helper_string.h>
#include <cuda_runtime.h>
#include <helper_functions.h>
#include <helper_cuda.h>
// yzhaiustc's SGEMM tutorial: cuda-samples' helpers from a samples install (-I.../samples/common/inc)
__global__ void fill(float* p) { p[threadIdx.x] = 1.0f; }
int run_on_gpu(int argc, char** argv) {
  findCudaDevice(argc, (const char**)argv);
  float* d; checkCudaErrors(cudaMalloc(&d, 256 * sizeof(float)));
  fill<<<1, 256>>>(d); getLastCudaError("fill failed");
  return 0;
}
int main(int argc, char** argv) {
  const char* args[] = {"prog", "-size=128", "--Help", "-name=abc", "-ratio=0.5", "-"};
  const char** a = args; int n = 6; char* name = NULL;
  StopWatchInterface* timer = NULL;
  sdkCreateTimer(&timer); sdkStartTimer(&timer); sdkStopTimer(&timer);
  printf("%d %d %d %d %d %s %g %g %d\\n", checkCmdLineFlag(n, a, "help"), checkCmdLineFlag(n, a, "size"),
         checkCmdLineFlag(n, a, "siz"), getCmdLineArgumentInt(n, a, "size"),
         getCmdLineArgumentString(n, a, "name", &name), name, getCmdLineArgumentFloat(n, a, "ratio"),
         getCmdLineArgumentFloat(n, a, "scale"), sdkGetTimerValue(&timer) >= 0.0f);
  sdkDeleteTimer(&timer);
  return argc > 1 ? run_on_gpu(argc, argv) : 0;
}
"""


@pytest.mark.hipcc
@pytest.mark.parametrize("compiler", compiler_params())
def test_cuda_samples_helpers_from_a_samples_install(compiler: Compiler | None, tmp_path: Path) -> None:
    """A project that includes cuda-samples' helper_cuda.h/helper_string.h/helper_functions.h from a samples install
    gets porter's HIP versions in their place (porter_cuda_samples_helpers.h); a project with its own copy keeps it.
    On the host: the flags as cuda-samples reads them (`-name=value`, `--flag`, case-insensitive, whole names)."""
    import subprocess
    import sys

    compiler = need(compiler)
    src = tmp_path / "sgemm"
    src.mkdir()
    (src / "test.cu").write_text(SAMPLES_HELPERS)
    proc = subprocess.run([sys.executable, "-m", "porter", "convert", "sgemm", "-o", "out", "--no-build"],
                          cwd=tmp_path, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    out = (tmp_path / "out" / "test.cu").read_text()
    assert out.count('#include "porter_shims/porter_cuda_samples_helpers.h"') == 1 and "helper_cuda.h" not in out
    path = tmp_path / "out" / "test.hip"
    path.write_text(out)
    assert compiler.compile(path).returncode == 0, compiler.compile(path).stderr[-3000:]
    if (run := compiler.run_on_host(path)) is not None:
        assert run.stdout.split() == ["1", "1", "0", "128", "1", "abc", "0.5", "0", "1"], run.stdout + run.stderr
    # a project that ships its own helper_cuda.h keeps it (cuda-samples' Common/)
    (src / "helper_cuda.h").write_text("#pragma once\n#include <cstdio>\n#define checkCudaErrors(x) (x)\n")
    proc = subprocess.run([sys.executable, "-m", "porter", "convert", "sgemm", "-o", "own", "--no-build"],
                          cwd=tmp_path, capture_output=True, text=True, check=False)
    own = (tmp_path / "own" / "test.cu").read_text()
    assert "#include <helper_cuda.h>" in own and "porter_cuda_samples_helpers" not in own


@pytest.mark.hipcc
def test_the_64_toolchain_does_not_take_the_hosts_hip_headers(tmp_path: Path) -> None:
    """The host's headers come after the root's, but not the host's own ROCm (Debian's 5.2 HIP and libraries):
    an include only 5.2 has (hip/hcc_detail/, gone from 6.x) must not resolve to 5.2's header inside 6.4."""
    from support.toolchains import detected_toolchains

    from porter.build.environment import HipccEnvironment

    if not Path("/usr/include/hip/hcc_detail").is_dir():
        pytest.skip("no ROCm 5.x HIP headers on this host")
    installed = [t for t in detected_toolchains() if t.toolchain.root is not None]
    if not installed:
        pytest.skip("no installed toolchain (make rocm)")
    root = tmp_path / "out"
    root.mkdir()
    (root / "old.hip").write_text("#include <hip/hcc_detail/hip_runtime.h>\n")
    (root / "gl.hip").write_text("#include <GL/gl.h>\n#include <hiprand/hiprand.h>\n" if Path("/usr/include/GL/gl.h").is_file()
                                 else "#include <hiprand/hiprand.h>\n")
    toolchain = installed[0]
    assert toolchain.toolchain.host_include is not None
    result = HipccEnvironment(root, toolchain.toolchain, arch="gfx942", jobs=1).build()
    assert result.failed_units == ["old.hip"], result.output
    assert "'hip/hcc_detail/hip_runtime.h' file not found" in result.output


GLUED_LINKAGE = """extern "C"__global__
void saxpy(int n, float alpha, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = alpha * x[i] + y[i];
}
// extern "C"__global__ in a comment stays
const char* kNote = "extern \\"C\\"__global__";
"""


@pytest.mark.hipcc
@pytest.mark.parametrize("compiler", compiler_params())
def test_extern_c_glued_to_global_gets_a_space(compiler: Compiler | None, tmp_path: Path) -> None:
    """The NVIDIA blog's grcuda kernel writes `extern "C"__global__`: nvcc takes it, clang lexes `"C"__global__` as
    a user-defined literal ("string literal with user-defined suffix cannot be used here")."""
    compiler = need(compiler)
    result = translate(GLUED_LINKAGE.encode(), TranslateOptions(rocm=compiler.rocm, target=compiler.arches[0],
                                                                nvcc_source=True))
    ported = result.output.decode()
    assert 'extern "C" __global__\nvoid saxpy' in ported
    assert '// extern "C"__global__ in a comment stays' in ported and '"extern \\"C\\"__global__"' in ported
    path = tmp_path / "saxpy.hip"
    path.write_text(ported)
    proc = compiler.compile(path)
    assert proc.returncode == 0, proc.stderr[-4000:]


def test_cuda9s_tensor_op_gemm_algorithm_is_hipblas_default() -> None:
    """NVIDIA's tensor-core blog post passes CUBLAS_GEMM_DFALT_TENSOR_OP (CUDA 9's spelling of
    CUBLAS_GEMM_DEFAULT_TENSOR_OP) to cublasGemmEx; HIPIFY's tables call it unsupported."""
    out, unconverted = _port("#include <cublas_v2.h>\ncublasGemmAlgo_t a = CUBLAS_GEMM_DFALT_TENSOR_OP;\n", ROCM_64)
    assert "HIPBLAS_GEMM_DEFAULT;" in out and not unconverted


VENDORED_CUB = """#include "cub/cub/cub.cuh"
#include "third_party/thrust/thrust/device_vector.h"
#include "third_party/thrust/thrust/reduce.h"
#include "my/cub/helpers.cuh"
int sum(const int* in, int* out, int n, void* tmp, size_t bytes) {
  thrust::device_vector<int> v(in, in + n);
  int total = thrust::reduce(v.begin(), v.end());
  return total + (int)cub::DeviceReduce::Reduce(tmp, bytes, in, out, n, cub::Sum(), 0);
}
"""


@pytest.mark.hipcc
@pytest.mark.parametrize("compiler", compiler_params())
def test_a_vendored_cub_or_thrust_path_becomes_the_hip_librarys(compiler: Compiler | None, tmp_path: Path) -> None:
    """The NVIDIA blog's shuffle reduction includes "cub/cub/cub.cuh", CUB kept as a git submodule (absent from the
    tree being ported). The path ends in CUB's own, so hipCUB's header replaces it; a Thrust copy's paths become
    rocThrust's (the same names); a project folder that merely holds a `cub/` directory is left alone."""
    compiler = need(compiler)
    out, _ = _port(VENDORED_CUB, compiler.rocm, compiler.arches[0])
    assert '#include "hipcub/hipcub.hpp"' in out
    assert '#include "thrust/device_vector.h"' in out and '#include "thrust/reduce.h"' in out
    assert '#include "my/cub/helpers.cuh"' in out
    if compiler.rocm < ROCM_64:
        return  # Debian 12's ROCm 5.2 packages neither hipCUB nor rocThrust
    path = tmp_path / "reduce.hip"
    path.write_text(out.replace('#include "my/cub/helpers.cuh"\n', ""))
    proc = compiler.compile(path, arches=(compiler.arches[0],))
    assert proc.returncode == 0, proc.stderr[-4000:]


DP4A = """#include <cuda_runtime.h>
// The CUDA Handbook's normalized cross-correlation sums byte products four at a time
__global__ void corr(const unsigned int* img, const unsigned int* tmpl, int* out, unsigned* uout, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int s = __dp4a((int)img[i], (int)tmpl[i], 0);
  s = __dp2a_lo((int)img[i], (int)tmpl[i], s) + __dp2a_hi((int)img[i], (int)tmpl[i], 0);
  char4 a = make_char4(1, -2, 3, -4);
  out[i] = s + __dp4a(a, a, 0);
  uout[i] = __dp4a(img[i], tmpl[i], 0u) + __dp4a(make_uchar4(1, 2, 3, 4), make_uchar4(5, 6, 7, 8), 1u);
}
"""


@pytest.mark.hipcc
@pytest.mark.parametrize("compiler", compiler_params())
def test_packed_integer_dot_products_build_through_the_dp4a_shim(compiler: Compiler | None, tmp_path: Path) -> None:
    """No HIP up to 6.4 declares __dp4a/__dp2a_*; porter_dp4a.h computes them exactly (checked against CUDA's own on
    an H200 over 2^28 inputs: scripts/dp4a_reference)."""
    compiler = need(compiler)
    out, unconverted = _port(DP4A, compiler.rocm, compiler.arches[0])
    assert not [u for u in unconverted if u.name.startswith("__dp")]
    _, installed = _build(out, "corr.hip", compiler, tmp_path)
    assert "porter_dp4a" in installed


VMM_ATTRIBUTE = """#include <cuda.h>
// the NVIDIA blog's cuda-vmm sample asks before it maps anything
int vmm_supported(CUdevice dev) {
  int supported = 0;
  if (cuDeviceGetAttribute(&supported, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, dev) != CUDA_SUCCESS)
    return -1;
  return supported;
}
"""


@pytest.mark.hipcc
@pytest.mark.parametrize("compiler", compiler_params())
def test_the_vmm_attribute_before_rocm_5_3_answers_no(compiler: Compiler | None, tmp_path: Path) -> None:
    """HIP 5.2 lacks hipDeviceAttributeVirtualMemoryManagementSupported (5.3 adds it with the VMM API): the device
    attributes shim answers 0 there, CUDA's answer on a GPU without VMM; from 5.3 HIP's own attribute is asked."""
    compiler = need(compiler)
    out, unconverted = _port(VMM_ATTRIBUTE, compiler.rocm, compiler.arches[0])
    assert "hipDeviceAttributeVirtualMemoryManagementSupported" in out and not unconverted
    path = tmp_path / "vmm.hip"
    path.write_text(out)
    installed = install_shims(tmp_path, [path], compiler.rocm).get("vmm.hip", [])
    assert ("porter_vmm_attribute" in installed) == (compiler.rocm < RocmVersion(5, 3))
    proc = compiler.compile(path)
    assert proc.returncode == 0, proc.stderr[-4000:]
