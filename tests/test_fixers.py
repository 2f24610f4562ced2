"""Rule fixers: each rule on a real compile error from the local hipcc, before/after text, and a clean rebuild.

Errors that only newer ROCm produces are reproduced with a small header passed with `-include` that declares
the API the way that ROCm does (ROCm 7's run-time warpSize, ROCm 6.2's 64-bit-mask static_assert).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from porter.build.results import Diagnostic
from porter.fix.rules import all_rules, apply_fixers, header_for
from porter.targets import resolve_target
from porter.translate import RocmVersion

ROCM7_WARPSIZE = """#include <hip/hip_runtime.h>
struct porter_sim_warp_size { __device__ operator int() const noexcept { return 64; } };
#define warpSize (porter_sim_warp_size{})
"""

ROCM62_MASK = """#include <hip/hip_runtime.h>
template <typename MaskT, typename T>
__device__ inline T __shfl_down_sync(MaskT mask, T var, unsigned int delta, int width = 64) {
  static_assert(sizeof(MaskT) == 8, "The mask must be a 64-bit integer. "
                "Implicitly promoting a smaller integer is almost always an error.");
  return __shfl_down(var, delta, width);
}
"""

CASES = {
    "cuda-header-not-found": (
        None,
        """#include <cuda_runtime.h>
__global__ void k(int* p) { p[0] = 1; }
""",
        "#include <hip/hip_runtime.h>",
    ),
    "launch-template-kernel": (
        None,
        """#include <hip/hip_runtime.h>
template <typename T, int N>
__global__ void scale(T* p, T s) { p[threadIdx.x * N] *= s; }
void run(float* d) {
  hipLaunchKernelGGL(scale<float, 4>, dim3(1), dim3(64), 0, 0, d, 2.0f);
}
""",
        "  hipLaunchKernelGGL(HIP_KERNEL_NAME(scale<float, 4>), dim3(1), dim3(64), 0, 0, d, 2.0f);",
    ),
    "deviceptr-static-cast": (
        None,
        """#include <hip/hip_runtime.h>
hipDeviceptr_t to_ptr(unsigned long long raw) {
  return static_cast<hipDeviceptr_t>(raw);
}
""",
        "  return reinterpret_cast<hipDeviceptr_t>(raw);",
    ),
    "deviceptr-arith": (
        None,
        """#include <hip/hip_runtime.h>
void copy(hipDeviceptr_t base, const float* h) {
  hipMemcpyHtoD(base + 16, (void*)h, 4);
}
""",
        "  hipMemcpyHtoD((static_cast<char*>(base)) + 16, (void*)h, 4);",
    ),
    "deviceptr-to-integer": (
        None,
        """#include <hip/hip_runtime.h>
unsigned long long as_int(hipDeviceptr_t p) {
  unsigned long long v = p;
  return v;
}
""",
        "  unsigned long long v = reinterpret_cast<unsigned long long>(p);",
    ),
    "kernel-default-host-variable": (  # llm.c's dev/cuda kernels; a body using the variable stays an error
        None,
        """#include <hip/hip_runtime.h>
float* d_scale = nullptr;
template <bool scaling = true, typename T>
__global__ void copy(T* out, const T* in, const float* __restrict__ scale = d_scale) {
  out[0] = scaling ? in[0] * *scale : in[0];
}
void run(float* o, const float* i) { copy<<<1, 1>>>(o, i); }
""",
        "__global__ void copy(T* out, const T* in, const float* __restrict__ scale = PORTER_HOST_DEFAULT(d_scale)) {",
    ),
    "integer-to-deviceptr": (
        None,
        """#include <hip/hip_runtime.h>
void pack(char* buffer, size_t width) {
  *(reinterpret_cast<hipDeviceptr_t *>(&buffer[8])) = width;
}
""",
        "  *(reinterpret_cast<hipDeviceptr_t *>(&buffer[8])) = reinterpret_cast<hipDeviceptr_t>(width);",
    ),
    "atomic-minmax-long-long": (  # ROCm 5.2 lacks these overloads (6.4 has them)
        None,
        """#include <hip/hip_runtime.h>
__global__ void k(long long* p) { atomicMax(p, 3ll); }
""",
        '#include "porter_shims/porter_scoped_atomics.h"  // porter shim',
    ),
    "host-math-function": (  # rcbrtf: a CUDA host+device function no C library has, so both toolchains fail
        None,
        """#include <hip/hip_runtime.h>
__host__ __device__ inline float inv_cbrt(float x) { return rcbrtf(x); }
float host_side(float x) { return inv_cbrt(x); }
""",
        '#include "porter_shims/porter_host_math.h"  // porter shim',
    ),
    "host-math-function-overload": (  # the NVIDIA blog's American options: double normcdf in host code
        None,
        """#include <hip/hip_runtime.h>
#include <cmath>
static double put_price(double d1, double d2, double k, double s) { return k * normcdf(-d2) - s * normcdf(-d1); }
double run(double a) { return put_price(a, a - 0.1, 1.0, 1.0); }
""",
        '#include "porter_shims/porter_host_math.h"  // porter shim',
    ),
    "member-execution-space": (  # The CUDA Handbook's spinlock: declared plainly, defined __device__
        None,
        """#include <hip/hip_runtime.h>
class Spinlock {
public:
    Spinlock(int* p);
    void acquire();
    int held() const { return *m_p; }
private:
    int* m_p;
};
inline __device__ Spinlock::Spinlock(int* p) { m_p = p; }
inline __device__ void Spinlock::acquire() { while (atomicCAS(m_p, 0, 1)) { } }
__global__ void k(int* lock) { Spinlock s(lock); s.acquire(); }
""",
        "    __device__ void acquire();",
    ),
    "surface-read-value": (  # gfx90a and gfx942 alike: the shim's overload over HIP's surf2Dread(&v, ...)
        None,
        """#include <hip/hip_runtime.h>
__global__ void k(hipSurfaceObject_t s, float* out) {
  out[0] = surf2Dread<float>(s, 4, 0, hipBoundaryModeClamp);
}
""",
        '#include "porter_shims/porter_surface_reads.h"  // porter shim',
    ),
    "device-prop-field": (  # a field no HIP release has (the translator rewrites it; here code it did not see)
        None,
        """#include <hip/hip_runtime.h>
int numa(int dev) {
  hipDeviceProp_t p;
  hipGetDeviceProperties(&p, dev);
  auto &q = p;
  return q.deviceNumaId;
}
""",
        "  return porter_prop_deviceNumaId(q);",
    ),
    "missing-hip-include": (
        None,
        """#include <cstdio>
int alloc(float** d, int n) {
  hipError_t e = hipMalloc(d, n * sizeof(float));
  return e == hipSuccess;
}
""",
        "#include <hip/hip_runtime.h>",
    ),
    "shim-for-identifier": (
        None,
        """#include <hip/hip_runtime.h>
#define FULL_MASK 0xffffffffffffffffull
__global__ void reduce(float* p) {
  float v = p[threadIdx.x];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(FULL_MASK, v, o);
  __syncwarp();
  p[0] = v;
}
""",
        '#include "porter_shims/porter_warp_sync.h"  // porter shim',
    ),
    "warpsize-constexpr": (
        ROCM7_WARPSIZE,
        """#include <hip/hip_runtime.h>
#define WARPS (256 / warpSize)
__global__ void k(int* p) {
  __shared__ int buf[WARPS];
  constexpr int w = warpSize;
  buf[0] = w;
  p[0] = buf[0];
}
""",
        "#define WARPS (256 / PORTER_WARP_SIZE)",
    ),
    "warp-mask-64bit": (
        ROCM62_MASK,
        """#include <hip/hip_runtime.h>
#define FULL_MASK 0xffffffff
__global__ void k(float* p) {
  float v = p[threadIdx.x];
  v += __shfl_down_sync(FULL_MASK, v, 1);
  p[0] = v;
}
""",
        "  v += __shfl_down_sync(static_cast<unsigned long long>(FULL_MASK), v, 1);",
    ),
    "atomic-add-16-bit": (  # CUDA's atomicAdd on __half/__half2, which no HIP up to 6.4 has
        None,
        """#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>
__global__ void k(__half* h, __half2* h2) {
  atomicAdd(h + threadIdx.x, __float2half(1.0f));
  atomicAdd(h2, __floats2half2_rn(1.0f, 2.0f));
}
""",
        '#include "porter_shims/porter_half_atomics.h"  // porter shim',
    ),
    "thrust-header": (  # thrust::tabulate, which CUDA's thrust/system/cuda/execution_policy.h declares, rocThrust's not
        None,
        """#include <thrust/device_vector.h>
#include <thrust/system/hip/execution_policy.h>
#include <thrust/sort.h>
struct square { __host__ __device__ int operator()(int i) const { return i * i; } };
void f(thrust::device_vector<int>& v) {
  thrust::tabulate(thrust::hip::par, v.begin(), v.end(), square());
  thrust::sort(v.begin(), v.end());
}
""",
        "#include <thrust/tabulate.h>",
    ),
    "zero-brace-init": (  # CUDA's cublasLtMatmulHeuristicResult_t r[8] = {0}; under C++11 (CUDALibrarySamples' cuBLASLt)
        """struct hipSimAlgo_t { unsigned char data[16] = {0}; unsigned long max_workspace_bytes = 0; };
typedef struct _hipSimResult_t { hipSimAlgo_t algo; unsigned long workspaceSize = 0; float wavesCount = 1.0f; } hipSimResult_t;
""",
        """#include <hip/hip_runtime.h>
int count() {
  hipSimResult_t results[8] = { 0 };
  return (int)results[0].workspaceSize;
}
""",
        "  hipSimResult_t results[8] = {  };",
    ),
    "register-storage-class": (  # the NVIDIA blog's cuda-vmm sync_main.cu: `register` in host code
        None,
        """#include <hip/hip_runtime.h>
int spin(volatile int* flag) {
  register int count = 0;
  while (!*flag) ++count;
  return count;
}
""",
        "  int count = 0;",
    ),
    "deviceptr-cast-away-const": (  # the NVIDIA blog's printf alternative: an address range from a const char*
        None,
        """#include <hip/hip_runtime.h>
size_t range(const char* device_string) {
  hipDeviceptr_t base; size_t size = 0;
  hipMemGetAddressRange(&base, &size, reinterpret_cast<hipDeviceptr_t>(device_string));
  return size;
}
""",
        "  hipMemGetAddressRange(&base, &size, (hipDeviceptr_t)(device_string));",
    ),
    "host-math-classification": (  # host code calling isfinite unqualified after <cmath> alone, as nvcc allows
        None,
        """#include <hip/hip_runtime.h>
#include <cmath>
template <class T> int countBad(const T* v, int n) {
  int bad = 0;
  for (int i = 0; i < n; i++) bad += !isfinite(v[i]);
  return bad;
}
int run(const float* v, int n) { return countBad(v, n); }
""",
        '#include "porter_shims/porter_host_math.h"  // porter shim',
    ),
    "kernel-without-hip-include": (  # a .cu file defining a kernel with no include at all, as nvcc allows
        None,
        """__global__ void spin(volatile unsigned int* latch) {
  while (latch[0] < 1) {
  }
}
""",
        "#include <hip/hip_runtime.h>",
    ),
    "cg-shuffle-any-type": (  # CUDA's tile.shfl_xor takes any type; HIP's static_asserts integers and floats
        None,
        """#include <hip/hip_runtime.h>
#include <hip/hip_cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void k(uint4* p) {
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(cg::this_thread_block());
  uint4 v = p[threadIdx.x];
  p[threadIdx.x] = tile.shfl_xor(v, 1);
  p[threadIdx.x + 32] = tile.shfl_down(v, 2);  // the same receiver: rewritten in the same round
}
""",
        "  p[threadIdx.x] = porter_cg::shfl_xor(tile, v, 1);",
    ),
    "mem-allocation-prop-field": (  # virtual memory management as cuda-samples' memMapIPCDrv sets it up
        None,
        """#include <hip/hip_runtime.h>
hipError_t granularity(size_t* g, int dev) {
  hipMemAllocationProp prop = {};
  prop.type = hipMemAllocationTypePinned;
  prop.location.type = hipMemLocationTypeDevice;
  prop.location.id = dev;
  prop.requestedHandleTypes = hipMemHandleTypePosixFileDescriptor;
  return hipMemGetAllocationGranularity(g, &prop, hipMemAllocationGranularityMinimum);
}
""",
        "  prop.requestedHandleType = hipMemHandleTypePosixFileDescriptor;",
    ),
    "cg-member-call": (
        None,
        """#include <hip/hip_runtime.h>
#include <hip/hip_cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void k(unsigned* p) {
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(cg::this_thread_block());
  p[tile.meta_group_rank()] = cg::this_thread_block().num_threads();
}
""",
        "  p[porter_cg::meta_group_rank(tile)] = porter_cg::num_threads(cg::this_thread_block());",
    ),
}


def test_every_rule_has_a_compiler_case() -> None:
    assert {r.id for r in all_rules()} == set(CASES)


@pytest.mark.hipcc
@pytest.mark.parametrize("rule_id", sorted(CASES))
def test_rule_fixes_real_error(rule_id: str, hip_toolchain, tmp_path: Path) -> None:
    from porter.build.environment import HipccEnvironment

    prelude, before, expected_line = CASES[rule_id]
    if rule_id == "thrust-header" and not (hip_toolchain.toolchain.include_dir / "thrust").is_dir():
        pytest.skip(f"{hip_toolchain.id} has no rocThrust (Debian 12's ROCm 5.2 packages none)")
    if rule_id == "surface-read-value" and not resolve_target(hip_toolchain.arch).image_support:
        pytest.skip(f"{hip_toolchain.arch} has no image support: surfaces go to porter_texture.h there, not HIP's reads")
    root = tmp_path / "out"
    root.mkdir()
    suffix = ".cpp" if rule_id == "missing-hip-include" else ".hip"
    src = root / f"case{suffix}"
    src.write_text(before)
    flags: tuple[str, ...] = ()
    if rule_id == "warp-mask-64bit" and hip_toolchain.rocm is not None and hip_toolchain.rocm >= RocmVersion(6, 2):
        flags = ("-DHIP_ENABLE_WARP_SYNC_BUILTINS",)  # HIP's own builtins and their static_assert, not a stand-in
    elif prelude:
        (tmp_path / "sim.h").write_text(prelude)
        flags = ("-include", str(tmp_path / "sim.h"))
        if rule_id == "zero-brace-init":
            flags += ("-std=c++11",)  # where default member initializers end being an aggregate
    if suffix == ".cpp":
        src.write_text(before.replace("int alloc", "__global__ void k() {}\nint alloc"))
    # rocPRIM 6.4 (under rocThrust) does not know gfx950: Thrust is built for the first arch only
    arch_flags = () if rule_id == "thrust-header" else hip_toolchain.extra_arch_flags()
    env = HipccEnvironment(root, hip_toolchain.toolchain, arch=hip_toolchain.arch, jobs=1,
                           extra_flags=(*flags, *arch_flags))

    first = env.build()
    if rule_id == "atomic-minmax-long-long" and hip_toolchain.rocm is not None and hip_toolchain.rocm >= RocmVersion(6, 0):
        # HIP 6.x declares the 64-bit signed overloads itself: the error this rule fixes cannot happen there
        assert first.ok, first.output
        return
    assert not first.ok, first.output
    applied = apply_fixers(root, first.diagnostics)
    assert rule_id in {a.rule for a in applied}, (first.output, applied)
    after = src.read_text()
    if rule_id == "cg-member-call" and hip_toolchain.rocm is not None and hip_toolchain.rocm >= RocmVersion(5, 7):
        # HIP 5.7 added meta_group_rank to tiles (rewrites.toml [cg_members]): only num_threads is rewritten
        expected_line = expected_line.replace("porter_cg::meta_group_rank(tile)", "tile.meta_group_rank()")
    assert expected_line in after.splitlines(), after
    second = env.build()
    assert second.ok, second.output


def test_rules_leave_unrelated_errors_alone(tmp_path: Path) -> None:
    (tmp_path / "a.hip").write_text("int main() { return undeclared_thing; }\n")
    diag = Diagnostic("a.hip", 1, 21, "error", "use of undeclared identifier 'undeclared_thing'")
    assert apply_fixers(tmp_path, [diag]) == []
    assert (tmp_path / "a.hip").read_text() == "int main() { return undeclared_thing; }\n"


def test_fixers_are_idempotent_on_already_fixed_launch(tmp_path: Path) -> None:
    line = "  hipLaunchKernelGGL(HIP_KERNEL_NAME(scale<float, 4>), dim3(1), dim3(1), 0, 0, d);\n"
    (tmp_path / "a.hip").write_text(line)
    diag = Diagnostic("a.hip", 1, 3, "error", "type name requires a specifier or qualifier")
    assert apply_fixers(tmp_path, [diag]) == []
    assert (tmp_path / "a.hip").read_text() == line


def test_header_for_identifiers() -> None:
    assert header_for("hipMalloc") == "hip/hip_runtime.h"
    assert header_for("hiprandState_t") == "hiprand/hiprand_kernel.h"
    assert header_for("__half2float") == "hip/hip_fp16.h"
    assert header_for("my_function") is None
    assert header_for("FLT_MAX") == "float.h" and header_for("DBL_EPSILON") == "float.h"
    assert header_for("INT_MAX") == "limits.h" and header_for("ULLONG_MAX") == "limits.h"
    # the C library nvcc's implicit cuda_runtime.h brings in ahead of a file's first include
    assert header_for("memset") == "string.h" and header_for("strlen") == "string.h"
    assert header_for("memsetter") is None and header_for("malloc") is None  # hipcc's own headers declare malloc


@pytest.mark.hipcc
def test_a_header_using_the_c_library_before_any_include_gets_its_headers(tmp_path: Path) -> None:
    """Packt's cpuSolver.h: memset and sqrtf with no include, in a header included before CUDA's."""
    import subprocess
    import sys

    project = tmp_path / "solver"
    project.mkdir()
    (project / "cpuSolver.h").write_text("#pragma once\nstatic void clear(int* p, int n) { memset(p, 0, n * sizeof(int)); }\n"
                                         "static float norm(float x) { return sqrtf(x) + (float)clock(); }\n")
    (project / "main.cu").write_text('#include "cpuSolver.h"\n#include <cuda_runtime.h>\n'
                                     "__global__ void k(float* p) { p[threadIdx.x] = 1.0f; }\n"
                                     "int main() { int a[4]; clear(a, 4); return (int)norm(4.0f) == 2; }\n")
    out = tmp_path / "port"
    proc = subprocess.run([sys.executable, "-m", "porter", "convert", str(project), "-o", str(out), "--target",
                           "gfx90a", "-j", "1"], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    header = (out / "cpuSolver.h").read_text()
    assert "#include <string.h>" in header and "math.h" not in header  # sqrtf and clock: hipcc declares them


def test_system_header_locations_are_not_edited(tmp_path: Path) -> None:
    diag = Diagnostic("/usr/include/hip/x.h", 3, 1, "error", "arithmetic on a pointer to void")
    assert apply_fixers(tmp_path, [diag]) == []


MULTI_ROUND = {
    # cooperative_groups header without the runtime before it: errors inside the HIP header, fixed in the TU
    "cg.hip": ("""#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;
__global__ void k(const int* in, int* out) {
  auto tile = cg::tiled_partition<32>(cg::this_thread_block());
  out[0] = cg::reduce(tile, in[threadIdx.x], cg::greater<int>());
}
""", ["#include <hip/hip_runtime.h>", "#include <hip/hip_cooperative_groups.h>",
      '#include "porter_shims/porter_cg_reduce.h"  // porter shim']),
    # CUDA names the translator keeps (no HIP equivalent) but a shim provides under the HIP spelling
    "l2.hip": ("""#include <hip/hip_runtime.h>
void set_window(hipStream_t s, void* p) {
  cudaStreamAttrValue attr = {};
  attr.accessPolicyWindow.base_ptr = p;
  cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &attr);
}
""", ["  hipStreamSetAttribute(s, hipStreamAttributeAccessPolicyWindow, &attr);"]),
    # the NVIDIA blog's manual_nvtx.cu: its only CUDA include (nvToolsExt.h) sits under #ifdef USE_NVTX, so the
    # translated HIP include does too, and the kernels outside it need one that every line sees
    "nvtx.hip": ("""#include <cstdio>
#ifdef USE_NVTX
#include <hip/hip_runtime.h>
#define PUSH(name) roctxRangePushA(name)
#else
#define PUSH(name)
#endif
__global__ void init(int* a) { a[blockIdx.x * blockDim.x + threadIdx.x] = 1; }
""", ["#include <hip/hip_runtime.h>", "#include <cstdio>"]),
    # hijkzzz/cuda-neural-network: FLT_MAX with no float.h, which CUDA's headers and older Thrust brought in
    "limits.hip": ("""#include <hip/hip_runtime.h>
__global__ void max_pool(const float* in, float* out, int n) {
  float best = -FLT_MAX;
  for (int i = 0; i < n; ++i) best = fmaxf(best, in[i] + FLT_EPSILON);
  out[0] = best;
}
""", ["#include <float.h>"]),
}


@pytest.mark.hipcc
@pytest.mark.parametrize("name", sorted(MULTI_ROUND))
def test_rules_over_several_rounds(name: str, hip_toolchain, tmp_path: Path) -> None:
    from porter.build.environment import HipccEnvironment

    before, expected = MULTI_ROUND[name]
    (tmp_path / name).write_text(before)
    env = HipccEnvironment(tmp_path, hip_toolchain.toolchain, arch=hip_toolchain.arch, jobs=1,
                           extra_flags=hip_toolchain.extra_arch_flags())
    result = env.build()
    for _ in range(4):
        if result.ok or not apply_fixers(tmp_path, result.diagnostics):
            break
        result = env.build()
    assert result.ok, result.output
    lines = (tmp_path / name).read_text().splitlines()
    if name == "cg.hip" and hip_toolchain.rocm >= RocmVersion(6, 4):
        # HIP 6.4's cooperative groups header includes the runtime itself: no error there, nothing to add
        expected = [line for line in expected if line != "#include <hip/hip_runtime.h>"]
        assert "#include <hip/hip_runtime.h>" not in lines
    for line in expected:
        assert line in lines, lines
    if name == "nvtx.hip":  # the runtime first, outside the conditional; the one under #ifdef stays as it was
        assert lines[:2] == expected and lines.count("#include <hip/hip_runtime.h>") == 2, lines


def test_a_fix_keeps_crlf_and_non_utf8_bytes_of_the_file(tmp_path: Path) -> None:
    src = (b"// caf\xe9\r\n#include <hip/hip_runtime.h>\r\n"
           b"void f(hipDeviceptr_t d) { unsigned long long v = static_cast<unsigned long long>(d); }\r\n")
    (tmp_path / "k.hip").write_bytes(src)
    column = src.split(b"\r\n")[2].index(b"static_cast") + 1
    diag = Diagnostic("k.hip", 3, column, "error",
                      "static_cast from 'hipDeviceptr_t' (aka 'void *') to 'unsigned long long' is not allowed")
    applied = apply_fixers(tmp_path, [diag])
    assert [a.rule for a in applied] == ["deviceptr-static-cast"]
    assert (tmp_path / "k.hip").read_bytes() == src.replace(b"static_cast<", b"reinterpret_cast<")


def test_a_member_declared_in_a_header_gets_the_definitions_execution_space(tmp_path: Path) -> None:
    """The class in a header, the __device__ definitions in the source (no compiler here: the diagnostic is the
    one clang gives, and test_rule_fixes_real_error compiles the one-file case)."""
    (tmp_path / "lock.h").write_text("#pragma once\nstruct Lock {\n  Lock(int* p);\n  __host__ void reset();\n"
                                     "  void acquire();\n  int* p_;\n};\n")
    source = ("#include \"lock.h\"\ninline __device__ Lock::Lock(int* p) : p_(p) {}\n"
              "__host__ __device__ void Lock::reset() {}\n"
              "inline __device__\nvoid Lock::acquire() { while (atomicCAS(p_, 0, 1)) {} }\n")
    (tmp_path / "main.hip").write_text(source)
    diagnostics = [Diagnostic("main.hip", 2, 25, "error", "out-of-line definition of 'Lock' does not match any "
                              "declaration in 'Lock'"),
                   Diagnostic("main.hip", 3, 31, "error", "out-of-line definition of 'reset' does not match any "
                              "declaration in 'Lock'"),
                   Diagnostic("main.hip", 5, 12, "error", "out-of-line definition of 'acquire' does not match any "
                              "declaration in 'Lock'")]
    applied = apply_fixers(tmp_path, diagnostics)
    assert [a.rule for a in applied] == ["member-execution-space", "member-execution-space"]
    header = (tmp_path / "lock.h").read_text()
    # a declaration that names an execution space already is not the nvcc leniency this fixes: left to the agent
    assert header == ("#pragma once\nstruct Lock {\n  __device__ Lock(int* p);\n  __host__ void reset();\n"
                      "  __device__ void acquire();\n  int* p_;\n};\n")
    assert (tmp_path / "main.hip").read_text() == source


@pytest.mark.hipcc
def test_vector_type_header_gets_hip_runtime(hip_toolchain, tmp_path: Path) -> None:
    # mumax3's float3.h: float3 operators in a header with no include, which a kernel file includes first;
    # nvcc's implicit cuda_runtime.h declares float3, hipcc's implicit headers do not
    from porter.build.environment import HipccEnvironment

    root = tmp_path / "out"
    root.mkdir()
    (root / "float3.h").write_text("""#ifndef FLOAT3_H
#define FLOAT3_H
inline __device__ float3 operator*(float s, float3 a) { return make_float3(s * a.x, s * a.y, s * a.z); }
#endif
""")
    (root / "scale.hip").write_text("""#include "float3.h"
extern "C" __global__ void scale(float3* v, float s) { v[threadIdx.x] = s * v[threadIdx.x]; }
""")
    env = HipccEnvironment(root, hip_toolchain.toolchain, arch=hip_toolchain.arch, jobs=1,
                           extra_flags=hip_toolchain.extra_arch_flags())
    first = env.build()
    assert not first.ok, first.output
    applied = apply_fixers(root, first.diagnostics)
    assert ("missing-hip-include", "float3.h") in {(a.rule, a.file) for a in applied}, applied
    assert "#include <hip/hip_runtime.h>" in (root / "float3.h").read_text().splitlines()
    second = env.build()
    assert second.ok, second.output
