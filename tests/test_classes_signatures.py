"""Class 7 of the real-code issue: signatures that differ between CUDA and HIP.

The call shapes (porter/data/call_shapes.toml) are checked against each compiler (the untouched call fails where
the data says HIP differs, the shaped one compiles), the translation of CUDA code using every shape compiles, the
structs whose fields HIP orders differently are built field by field (checked on the host and against each
compiler's struct layout), and CUDA 12.2/13's memory-location forms go through porter_mem_location.h.
"""

from __future__ import annotations

import itertools
import re
import textwrap
import tomllib
from pathlib import Path

import pytest
from support.hip_compile import Compiler, compiler_params, compilers, need

from porter.fix.shims import SHIMS_DIR, install_shims
from porter.translate import RocmVersion, TranslateOptions, translate

ROOT = Path(__file__).parents[1]
SHAPES = tomllib.loads((ROOT / "porter" / "data" / "call_shapes.toml").read_text())
ROCM_52 = RocmVersion(5, 2)

CUDA_CALLS = textwrap.dedent("""\
    #include <cuda_runtime.h>
    __global__ void kern(float* p, int n) { if (n) p[0] = 1; }
    template <typename T> __global__ void tk(T* p) { p[0] = 0; }
    void calls(float* h, cudaStream_t s, cudaEvent_t ev, cudaGraph_t g, cudaGraphNode_t a, cudaGraphNode_t b) {
      float* d = nullptr; size_t pitch, n; cudaFuncAttributes fa; void* args[] = {&d};
      cudaHostGetDevicePointer(&d, h, 0);
      cudaFuncGetAttributes(&fa, kern);
      cudaFuncGetAttributes(&fa, tk<float>);
      cudaFuncGetAttributes(&fa, (const void*)kern);
      cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, 1024);
      cudaFuncSetCacheConfig(kern, cudaFuncCachePreferShared);
      cudaFuncSetSharedMemConfig(kern, cudaSharedMemBankSizeFourByte);
      cudaMallocPitch(&d, &pitch, 16, 16);
      cudaStreamWaitEvent(s, ev);
      cudaLaunchKernel(kern, dim3(1), dim3(1), args, 0, s);
      cudaArray_t arr; cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
      cudaMalloc3DArray(&arr, &desc, make_cudaExtent(4, 4, 4));
      cudaGraphExec_t ge;
      cudaGraphInstantiate(&ge, g);
      cudaGraphInstantiate(&ge, g, 0);
      cudaGraphInstantiate(&ge, g, nullptr, nullptr, 0);
      cudaGraphInstantiateWithFlags(&ge, g);
      cudaGraphAddDependencies(g, &a, &b, nullptr, 1);
      cudaGraphRemoveDependencies(g, &a, &b, NULL, 1);
      cudaGraphNodeGetDependencies(a, nullptr, nullptr, &n);
      cudaGraphExecUpdateResultInfo info;
      cudaGraphExecUpdate(ge, g, &info);
    }
    void um(float* p, size_t n, int dev, cudaStream_t s) {
      cudaMemLocation loc = {cudaMemLocationTypeDevice, dev};
      cudaMemPrefetchAsync(p, n, loc, 0, s);
      cudaMemPrefetchAsync(p, n, {cudaMemLocationTypeDevice, dev}, 0);
      cudaMemLocation host{};
      host.type = cudaMemLocationTypeHost;
      cudaMemAdvise(p, n, cudaMemAdviseSetPreferredLocation, host);
      cudaMemAdvise_v2(p, n, cudaMemAdviseSetAccessedBy, loc);
      cudaMemPrefetchAsync_v2(p, n, loc, 0, s);
      cudaMemPrefetchAsync(p, n, dev, s);
      cudaMemAdvise(p, n, cudaMemAdviseSetReadMostly, dev);
    }
    void nodes(void* d, size_t n, cudaGraph_t g, cudaGraphNode_t* node, int* ptr) {
      void* args[] = {&ptr};
      cudaKernelNodeParams p = {(void*)kern, dim3(2), dim3(64), 0, args, NULL};
      cudaKernelNodeParams q{0};
      cudaMemsetParams m[2] = {{d, 0, 1, 4, n, 1}, {d}};
      auto w = cudaAccessPolicyWindow{d, n, 0.5f, cudaAccessPropertyPersisting, cudaAccessPropertyStreaming};
      cudaGraphAddKernelNode(node, g, nullptr, 0, &p);
      cudaGraphAddMemsetNode(node, g, nullptr, 0, &m[0]);
      (void)q; (void)w;
    }
    """)


def _port(source: str, rocm: RocmVersion | None, target: str = "gfx90a") -> tuple[str, list]:
    # gfx90a has image support, so the array calls keep HIP's names (gfx942/gfx950 route them to the texture shim)
    result = translate(source.encode(), TranslateOptions(rocm=rocm, target=target))
    return result.output.decode(), result.unconverted


def test_every_shape_rewrites_as_the_data_says() -> None:
    out, leftovers = _port(CUDA_CALLS, ROCM_52)
    for expected in (
        "hipHostGetDevicePointer((void**)(&d), h, 0);", "hipFuncGetAttributes(&fa, (const void*)(kern));",
        "hipFuncGetAttributes(&fa, (const void*)(tk<float>));", "hipFuncGetAttributes(&fa, (const void*)kern);",
        "hipFuncSetAttribute((const void*)(kern), ", "hipFuncSetCacheConfig((const void*)(kern), ",
        "hipFuncSetSharedMemConfig((const void*)(kern), ", "hipMallocPitch((void**)(&d), &pitch, 16, 16);",
        "hipStreamWaitEvent(s, ev, 0);", "hipLaunchKernel((const void*)(kern), ",
        "hipMalloc3DArray(&arr, &desc, make_hipExtent(4, 4, 4), 0);", "hipGraphInstantiateWithFlags(&ge, g, 0);\n",
        "hipGraphInstantiate(&ge, g, nullptr, nullptr, 0);", "hipGraphAddDependencies(g, &a, &b, 1);",
        "hipGraphRemoveDependencies(g, &a, &b, 1);", "hipGraphNodeGetDependencies(a, nullptr, &n);",
        "porter_graph_exec_update_result_info info;", "porter_graph_exec_update(ge, g, &info);",
        "hipMemPrefetchAsync(p, n, loc, 0, s);", "host.type = porter_mem_location_type_host;",
        "hipMemAdvise(p, n, hipMemAdviseSetAccessedBy, loc);",
        "{porter_make_kernel_node_params((void*)kern, dim3(2), dim3(64), 0, args, NULL)}",
        "q{porter_make_kernel_node_params(0)}", "{{porter_make_memset_params(d, 0, 1, 4, n, 1)}, {porter_make_memset_params(d)}}",
        "hipAccessPolicyWindow{porter_make_access_policy_window(d, n, 0.5f, hipAccessPropertyPersisting, "):
        assert expected in out, expected
    assert out.count("hipGraphInstantiateWithFlags(&ge, g, 0);") == 3
    assert leftovers == []
    assert _port(out, ROCM_52)[0] == out  # porting the port changes nothing
    no_image, _ = _port(CUDA_CALLS, ROCM_52, target="gfx942")
    assert "porter_tex_malloc_3d_array(&arr, &desc, make_hipExtent(4, 4, 4));" in no_image


def test_shapes_limited_to_older_rocm_are_left_for_newer_ones() -> None:
    out, _ = _port(CUDA_CALLS, RocmVersion(6, 4))
    assert "hipStreamWaitEvent(s, ev);" in out and "hipMallocPitch(&d, &pitch, 16, 16);" in out
    assert "hipMalloc3DArray(&arr, &desc, make_hipExtent(4, 4, 4), 0);" in out  # no HIP defaults it


def test_non_null_edge_data_is_reported() -> None:
    source = "#include <cuda_runtime.h>\nvoid f(cudaGraph_t g, cudaGraphNode_t a, cudaGraphNode_t b, cudaGraphEdgeData* e) {\n" \
             "  cudaGraphAddDependencies(g, &a, &b, e, 1);\n}\n"
    out, leftovers = _port(source, None)
    assert "hipGraphAddDependencies(g, &a, &b, e, 1)" in out  # renamed, left for a person
    assert [(u.name, u.reason.value) for u in leftovers if u.family == "signature"] == [
        ("cudaGraphAddDependencies", "needs the agent")]
    assert "edge" in next(u.detail for u in leftovers if u.family == "signature")


def _numbered_cases(cases: dict[str, str]) -> tuple[str, dict[str, range]]:
    lines = ["#include <hip/hip_runtime.h>", "__global__ void kern(float* p, int n) { if (n) p[0] = 1; }"]
    spans = {}
    for name, body in cases.items():
        first = len(lines) + 1
        lines += [f"void case_{len(spans)}(float* d, float* h, hipStream_t s, hipEvent_t ev, hipGraph_t g) {{",
                  "  hipFuncAttributes fa; void* args[] = {&d}; size_t pitch; hipArray_t arr;",
                  "  hipChannelFormatDesc desc = hipCreateChannelDesc<float>(); hipGraphExec_t ge;",
                  "  (void)fa; (void)args; (void)pitch; (void)arr; (void)desc; (void)ge;",
                  f"  (void){body};", "}"]
        spans[name] = range(first, len(lines) + 1)
    return "\n".join(lines) + "\n", spans


# the HIP call as translated without the shape, and with it
PREMISES = {
    "cudaHostGetDevicePointer": ("hipHostGetDevicePointer(&d, h, 0)", "hipHostGetDevicePointer((void**)(&d), h, 0)"),
    "cudaFuncGetAttributes": ("hipFuncGetAttributes(&fa, kern)", "hipFuncGetAttributes(&fa, (const void*)(kern))"),
    "cudaFuncSetAttribute": ("hipFuncSetAttribute(kern, hipFuncAttributeMaxDynamicSharedMemorySize, 1)",
                             "hipFuncSetAttribute((const void*)(kern), hipFuncAttributeMaxDynamicSharedMemorySize, 1)"),
    "cudaFuncSetCacheConfig": ("hipFuncSetCacheConfig(kern, hipFuncCachePreferShared)",
                               "hipFuncSetCacheConfig((const void*)(kern), hipFuncCachePreferShared)"),
    "cudaFuncSetSharedMemConfig": ("hipFuncSetSharedMemConfig(kern, hipSharedMemBankSizeFourByte)",
                                   "hipFuncSetSharedMemConfig((const void*)(kern), hipSharedMemBankSizeFourByte)"),
    "cudaLaunchKernel": ("hipLaunchKernel(kern, dim3(1), dim3(1), args, 0, s)",
                         "hipLaunchKernel((const void*)(kern), dim3(1), dim3(1), args, 0, s)"),
    "cudaMallocPitch": ("hipMallocPitch(&d, &pitch, 16, 16)", "hipMallocPitch((void**)(&d), &pitch, 16, 16)"),
    "cudaStreamWaitEvent": ("hipStreamWaitEvent(s, ev)", "hipStreamWaitEvent(s, ev, 0)"),
    "cudaMalloc3DArray": ("hipMalloc3DArray(&arr, &desc, make_hipExtent(4, 4, 4))",
                          "hipMalloc3DArray(&arr, &desc, make_hipExtent(4, 4, 4), 0)"),
    "cudaGraphInstantiateWithFlags": ("hipGraphInstantiateWithFlags(&ge, g)", "hipGraphInstantiateWithFlags(&ge, g, 0)"),
    "cudaGraphInstantiate": ("hipGraphInstantiate(&ge, g, 0)", "hipGraphInstantiateWithFlags(&ge, g, 0)"),
}


@pytest.mark.hipcc
@pytest.mark.parametrize("compiler", compiler_params())
def test_each_shape_is_needed_where_the_data_says(compiler: Compiler | None, tmp_path: Path) -> None:
    """The untouched HIP call fails on this compiler exactly where the data applies the shape (its `before`), and
    the shaped call compiles everywhere."""
    compiler = need(compiler)
    before = {row["cuda"]: row.get("before") for row in SHAPES["shape"]}
    assert set(PREMISES) <= set(before)
    raw, raw_spans = _numbered_cases({name: calls[0] for name, calls in PREMISES.items()})
    shaped, _ = _numbered_cases({name: calls[1] for name, calls in PREMISES.items()})
    results = {}
    for tag, text in (("raw", raw), ("shaped", shaped)):
        path = tmp_path / f"{tag}.hip"
        path.write_text(text)
        proc = compiler.compile(path, "-fsyntax-only", "-ferror-limit=0")
        results[tag] = {int(m[1]) for m in re.finditer(rf"{tag}\.hip:(\d+):\d+: error", proc.stderr)}
    assert results["shaped"] == set()
    wrong = []
    for name, span in raw_spans.items():
        limit = before[name]
        needed = limit is None or compiler.rocm < RocmVersion.parse(limit)
        if bool(results["raw"] & set(span)) != needed:
            wrong.append(name)
    assert wrong == [], wrong


@pytest.mark.hipcc
@pytest.mark.parametrize("compiler", compiler_params())
def test_the_translated_calls_compile(compiler: Compiler | None, tmp_path: Path) -> None:
    compiler = need(compiler)
    out, _ = _port(CUDA_CALLS, compiler.rocm)
    path = tmp_path / "calls.hip"
    path.write_text(out)
    installed = install_shims(tmp_path, [path], compiler.rocm)
    assert {"porter_mem_location", "porter_struct_order", "porter_graph_signatures"} <= set(installed["calls.hip"])
    proc = compiler.compile(path)
    assert proc.returncode == 0, proc.stderr[-4000:]


@pytest.mark.hipcc
@pytest.mark.parametrize("compiler", compiler_params())
def test_struct_orders_match_the_headers_and_fill_the_right_fields(compiler: Compiler | None, tmp_path: Path) -> None:
    """hip_fields is each compiler's declaration order (offsetof increases along it), and porter_make_* puts the
    i-th CUDA-order value into the field CUDA declares i-th (run on the host with ROCm 5.2)."""
    compiler = need(compiler)
    hip_names = {"cudaKernelNodeParams": "hipKernelNodeParams", "cudaMemsetParams": "hipMemsetParams",
                 "cudaAccessPolicyWindow": "hipAccessPolicyWindow", "cudaGraphInstantiateParams": "hipGraphInstantiateParams"}
    lines = ["#include <cstddef>", "#include <cstdio>", f'#include "{SHIMS_DIR / "porter_struct_order.h"}"', "int main() {"]
    for cuda, hip in hip_names.items():
        row = SHAPES["struct"][cuda]
        if "hip_since" in row and compiler.rocm < RocmVersion.parse(row["hip_since"]):
            continue
        fields = row["hip_fields"]
        lines += [f"  static_assert(offsetof({hip}, {a}) < offsetof({hip}, {b}), \"{hip}: {a} before {b}\");"
                  for a, b in itertools.pairwise(fields)]
    lines += [
        "  void* args[1]; int n = 0;",
        "  hipKernelNodeParams k = porter_make_kernel_node_params((void*)&n, dim3(2, 3, 4), dim3(5, 6, 7), 8, args, args + 1);",
        '  printf("%d %u %u %u %u %d %d\\n", k.func == (void*)&n, k.gridDim.y, k.blockDim.z, k.sharedMemBytes,',
        "         k.gridDim.x + k.blockDim.x, k.kernelParams == args, k.extra == args + 1);",
        "  hipMemsetParams m = porter_make_memset_params((void*)&n, 11, 12, 4, 13, 14);",
        '  printf("%d %zu %u %u %zu %zu\\n", m.dst == (void*)&n, m.pitch, m.value, m.elementSize, m.width, m.height);',
        "  hipKernelNodeParams z = porter_make_kernel_node_params(0);",
        '  printf("%d %u %u %u\\n", z.func == nullptr, z.gridDim.x, z.blockDim.y, z.sharedMemBytes);',
        "  hipAccessPolicyWindow w = porter_make_access_policy_window((void*)&n, 15, 0.25f, hipAccessPropertyPersisting);",
        '  printf("%d %zu %.2f %d %d\\n", w.base_ptr == (void*)&n, w.num_bytes, w.hitRatio,',
        "         w.hitProp == hipAccessPropertyPersisting, w.missProp == hipAccessPropertyNormal);",
        "  return 0;", "}"]
    source = tmp_path / "orders.hip"
    source.write_text("\n".join(lines) + "\n")
    proc = compiler.compile(source)
    assert proc.returncode == 0, proc.stderr[-3000:]
    if (run := compiler.run_on_host(source)) is not None:  # the host run needs the host's HIP runtime (5.2)
        assert run.stdout.splitlines() == ["1 3 7 8 7 1 1", "1 11 12 4 13 14", "1 1 1 0", "1 15 0.25 1 1"], run.stdout


@pytest.mark.hipcc
def test_memory_locations_need_the_shim(tmp_path: Path) -> None:
    """Without porter_mem_location.h a CUDA 13 location prefetch does not compile on any HIP found here."""
    found = compilers()
    if not found:
        need(None)
    path = tmp_path / "loc.hip"
    path.write_text("#include <hip/hip_runtime.h>\nvoid f(float* p, size_t n, int dev, hipStream_t s) {\n"
                    "  hipMemLocation loc = {hipMemLocationTypeDevice, dev};\n  (void)hipMemPrefetchAsync(p, n, loc, 0, s);\n}\n")
    for compiler in found:
        assert compiler.compile(path, "-fsyntax-only").returncode != 0, compiler.id


DRIVER_MEMSET = """#include <cuda.h>
void f(CUgraphNode n, CUdeviceptr d) {
  CUDA_MEMSET_NODE_PARAMS p = {};
  p.dst = d; p.value = 7; p.elementSize = 4; p.width = 16; p.height = 1;
  cuGraphMemsetNodeSetParams(n, &p);
  cuGraphMemsetNodeGetParams(n, &p);
}
"""


@pytest.mark.hipcc
@pytest.mark.parametrize("compiler", compiler_params())
def test_driver_memset_node_params_go_through_the_adapters(compiler: Compiler | None, tmp_path: Path) -> None:
    """cuGraphMemsetNode{Set,Get}Params take the driver's struct; HIP's take the runtime's, whose fields are in
    another order: without porter_graph_signatures.h's overloads the port does not compile (ROCm 6.1+, which has
    HIP_MEMSET_NODE_PARAMS; on older ROCm the type itself is reported as needing a newer ROCm)."""
    compiler = need(compiler)
    out, leftovers = _port(DRIVER_MEMSET, compiler.rocm)
    if compiler.rocm < RocmVersion(6, 1):
        assert any(u.name.startswith("CUDA_MEMSET_NODE_PARAMS") and u.reason.value == "needs a newer ROCm"
                   for u in leftovers)
        return
    path = tmp_path / "memset.hip"
    path.write_text(out)
    bare = compiler.compile(path, "-fsyntax-only")
    assert bare.returncode != 0 and "hipGraphMemsetNodeSetParams" in bare.stderr
    install_shims(tmp_path, [path], compiler.rocm)
    proc = compiler.compile(path, "-fsyntax-only")
    assert proc.returncode == 0, proc.stderr[-3000:]


CTX_CREATE_13 = """#include <cuda.h>
#include <cstdio>
int main() {
  CUdevice dev = 0; CUcontext ctx; int fd = 0, compression = 1;
  CUctxCreateParams params = {};
  CUresult zeroed = cuCtxCreate(&ctx, &params, 0, dev);
  CUresult none = cuCtxCreate_v4(&ctx, NULL, 0, dev);
  params.numExecAffinityParams = 1;
  CUresult affinity = cuCtxCreate(&ctx, &params, 0, dev);
  cuDeviceGetAttribute(&fd, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED, dev);
  cuDeviceGetAttribute(&compression, CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED, dev);
  printf("%d %d\\n", affinity == CUDA_ERROR_NOT_SUPPORTED, compression);
  return zeroed == CUDA_SUCCESS && none == CUDA_SUCCESS;
}
"""


@pytest.mark.hipcc
@pytest.mark.parametrize("compiler", compiler_params())
def test_cuda13_context_creation_and_handle_attributes(compiler: Compiler | None, tmp_path: Path) -> None:
    """CUDA 13's cuCtxCreate takes a CUctxCreateParams (cuda-samples' matrixMulDrv, simpleDrvRuntime): the port
    goes through porter_ctx_create.h; the attributes a VMM/IPC sample asks for are answered, not undeclared."""
    compiler = need(compiler)
    out, leftovers = _port(CTX_CREATE_13, compiler.rocm)
    assert "porter_ctx_create_params params" in out and not leftovers, leftovers
    assert "porter_dev_attr_handle_type_posix_file_descriptor_supported" in out
    path = tmp_path / "ctx.hip"
    path.write_text(out)
    bare = compiler.compile(path, "-fsyntax-only")
    assert bare.returncode != 0 and "porter_ctx_create_params" in bare.stderr  # HIP alone lacks the form
    installed = install_shims(tmp_path, [path], compiler.rocm)
    assert {"porter_ctx_create", "porter_device_attributes"} <= set(installed["ctx.hip"])
    proc = compiler.compile(path)
    assert proc.returncode == 0, proc.stderr[-4000:]
    # no GPU here: the asked-for affinity is refused before HIP is called, compression is answered 0 by the shim
    if (run := compiler.run_on_host(path)) is not None:
        assert run.stdout.splitlines() == ["1 0"], run.stdout + run.stderr


DRIVER_OCCUPANCY = """#include <cuda.h>
size_t smem(int block) { return block * 4; }
void f(CUfunction fn, int* grid, int* block, int limit) {
  cuOccupancyMaxPotentialBlockSize(grid, block, fn, 0, 2 * 32 * 32 * sizeof(float), 0);
  cuOccupancyMaxPotentialBlockSizeWithFlags(grid, block, fn, NULL, 128, limit, CU_OCCUPANCY_DEFAULT);
}
"""


@pytest.mark.hipcc
@pytest.mark.parametrize("compiler", compiler_params())
def test_driver_occupancy_without_a_callback_drops_it(compiler: Compiler | None, tmp_path: Path) -> None:
    """cuda-samples' matrixMulDrv: cuOccupancyMaxPotentialBlockSize's null blockSizeToDynamicSMemSize callback has
    no HIP parameter; a real callback is reported."""
    compiler = need(compiler)
    out, leftovers = _port(DRIVER_OCCUPANCY, compiler.rocm)
    assert "hipModuleOccupancyMaxPotentialBlockSize(grid, block, fn, 2 * 32 * 32 * sizeof(float), 0);" in out
    assert "hipModuleOccupancyMaxPotentialBlockSizeWithFlags(grid, block, fn, 128, limit, " in out
    assert not [u for u in leftovers if u.family == "signature"]
    path = tmp_path / "occ.hip"
    path.write_text(out)
    proc = compiler.compile(path, "-fsyntax-only")
    assert proc.returncode == 0, proc.stderr[-3000:]
    with_callback = DRIVER_OCCUPANCY.replace("fn, 0, 2 * 32", "fn, smem, 2 * 32")
    _, leftovers = _port(with_callback, compiler.rocm)
    assert [u.name for u in leftovers if u.family == "signature"] == ["cuOccupancyMaxPotentialBlockSize"]


SCALE_TYPE = textwrap.dedent("""\
    #include <cublasLt.h>
    cublasStatus_t same(cublasComputeType_t c) {  // llm.c's matmul.cuh: sets the type it was made with
      cublasLtMatmulDesc_t desc;
      cublasLtMatmulDescCreate(&desc, c, CUDA_R_32F);
      cublasDataType_t scale_type = CUDA_R_32F;
      return cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_SCALE_TYPE, &scale_type, sizeof(scale_type));
    }
    void other(cublasComputeType_t c) {
      cublasLtMatmulDesc_t desc;
      cublasLtMatmulDescCreate(&desc, c, CUDA_R_32F);
      cudaDataType_t scale_type = CUDA_R_16F;
      cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_SCALE_TYPE, &scale_type, sizeof scale_type);
    }
    void changed(cublasComputeType_t c, bool half) {
      cublasLtMatmulDesc_t desc;
      cublasLtMatmulDescCreate(&desc, c, CUDA_R_32F);
      cudaDataType_t scale_type = CUDA_R_32F;
      if (half) scale_type = CUDA_R_16F;
      cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_SCALE_TYPE, &scale_type, sizeof(scale_type));
    }
    void elsewhere(cublasLtMatmulDesc_t desc) {
      cudaDataType_t scale_type = CUDA_R_32F;
      cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_SCALE_TYPE, &scale_type, sizeof(scale_type));
    }
    """)


def test_setting_the_scale_type_a_descriptor_was_made_with_becomes_success() -> None:
    """hipBLASLt has no scale-type attribute (the type is hipblasLtMatmulDescCreate's third argument). Setting the
    type the descriptor was made with changes nothing in cuBLASLt, so the call is its success status; a different
    type, a variable that may change, or a descriptor made elsewhere stay reported."""
    out, leftovers = _port(SCALE_TYPE, RocmVersion(6, 4), target="gfx942")
    assert "return HIPBLAS_STATUS_SUCCESS;\n" in out
    assert out.count("SCALE_TYPE") == 3  # the other three calls are left as written
    refused = [u for u in leftovers if u.name == "cublasLtMatmulDescSetAttribute"]
    assert [u.line for u in refused] == [12, 19, 23]
    assert all("make the descriptor with this value" in u.detail for u in refused)
    assert _port(out, RocmVersion(6, 4), target="gfx942")[0] == out


DRIVER_COPIES = """#include <cuda.h>
#include <cuda_runtime.h>
CUresult grow(CUdeviceptr dst, CUdeviceptr src, size_t n) {  // the NVIDIA blog's cuda-vmm cuvector.cpp
  cudaEvent_t e;
  cudaEventCreate(&e, cudaEventBlockingSync);
  CUresult r = cuMemcpyAsync(dst, src, n, CU_STREAM_PER_THREAD);
  if (r == CUDA_SUCCESS) r = cuMemcpy(dst, src, n);
  return r;
}
"""


@pytest.mark.hipcc
@pytest.mark.parametrize("compiler", compiler_params())
def test_unified_addressing_copies_and_event_flags(compiler: Compiler | None, tmp_path: Path) -> None:
    """The driver's cuMemcpy[Async] infer the direction (HIP's take hipMemcpyDefault, which infers it the same
    way); cudaEventCreate(&e, flags) is CUDA's C++ overload of hipEventCreateWithFlags."""
    compiler = need(compiler)
    out, leftovers = _port(DRIVER_COPIES, compiler.rocm)
    for expected in ("hipEventCreateWithFlags(&e, hipEventBlockingSync);",
                     "hipMemcpyAsync(dst, src, n, hipMemcpyDefault, hipStreamPerThread);",
                     "r = hipMemcpy(dst, src, n, hipMemcpyDefault);"):
        assert expected in out, expected
    assert leftovers == []
    assert _port(out, compiler.rocm)[0] == out
    path = tmp_path / "copies.hip"
    path.write_text(out)
    proc = compiler.compile(path)
    assert proc.returncode == 0, proc.stderr[-4000:]
