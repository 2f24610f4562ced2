"""Unit tests of the translator's mechanics, against a small hand-made map (the real data has its own tests)."""

from __future__ import annotations

import pytest

from porter.fix.shims import needed_shims
from porter.translate.core import translate
from porter.translate.mapping import ApiEntry, ApiMap, HeaderEntry, load_api_map
from porter.translate.options import LaunchSyntax, Reason, RocmVersion, TranslateOptions


def _entry(cuda: str, hip: str | None = None, family: str = "runtime", **kw) -> ApiEntry:
    return ApiEntry(cuda, hip if hip is not None or "unsupported" in kw else cuda.replace("cuda", "hip"), family, **kw)


MAP = ApiMap(
    apis={e.cuda: e for e in [
        _entry("cudaMalloc"), _entry("cudaFree"), _entry("cudaError_t", kind="type"), _entry("cudaSuccess", kind="enum"),
        _entry("cudaGetErrorString"), _entry("cudaMemcpyToSymbol"), _entry("cudaMemcpyFromSymbol"),
        _entry("cudaStream_t", kind="type"), _entry("cudaDeviceSynchronize"),
        _entry("__shfl_down_sync", "__shfl_down_sync", "device", since=RocmVersion(6, 2)),
        _entry("cudaGraphConditionalHandleCreate", unsupported="conditional graph nodes are not in HIP"),
        _entry("__CUDACC__", "__HIPCC__", "macros", kind="macro"),
        _entry("__CUDA_ARCH__", "__HIP_DEVICE_COMPILE__", "macros", kind="macro"),
    ]},
    namespaces={"cub": _entry("cub", "hipcub", "cub", kind="namespace")},
    headers={"cuda_runtime.h": HeaderEntry("cuda_runtime.h", "hip/hip_runtime.h", "runtime"),
             "mma.h": HeaderEntry("mma.h", None, "tensor-core", unsupported="use rocWMMA")},
    header_prefixes=(),
    symbol_args={"cudaMemcpyToSymbol": 0, "cudaMemcpyFromSymbol": 1},
    defined_only={"__CUDA_ARCH__": "compare a target instead"},
    ocp_fp8={},
    value_stand_ins={"__CUDA_ARCH__": "PORTER_CUDA_ARCH"},
)


def run(src: str, **options) -> tuple[str, object]:
    result = translate(src.encode(), TranslateOptions(**options), MAP)
    return result.output.decode(), result


def test_code_is_translated_but_comments_strings_and_members_are_not() -> None:
    out, _ = run('void f() { cudaMalloc(&p, 4); /* cudaMalloc */ // cudaFree\n puts("cudaFree"); s.cudaFree = 1; }\n')
    assert out == 'void f() { hipMalloc(&p, 4); /* cudaMalloc */ // cudaFree\n puts("cudaFree"); s.cudaFree = 1; }\n'


def test_macro_bodies_are_translated_outside_their_strings() -> None:
    out, _ = run('#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) printf("cudaError %s", cudaGetErrorString(e)); } while (0)\n')
    assert out == '#define CHECK(x) do { hipError_t e = (x); if (e != hipSuccess) printf("cudaError %s", hipGetErrorString(e)); } while (0)\n'


def test_preprocessor_conditions() -> None:
    out, _ = run("#ifdef __CUDACC__\nint x;\n#endif\n#if defined(__CUDACC__)\n#endif\n")
    assert out == "#ifdef __HIPCC__\nint x;\n#endif\n#if defined(__HIPCC__)\n#endif\n"


def test_namespace_only_when_used_as_a_namespace() -> None:
    out, _ = run("void f() { cub::DeviceReduce::Sum(a); int cub = 3; }\n")
    assert out == "void f() { hipcub::DeviceReduce::Sum(a); int cub = 3; }\n"


def test_symbol_arguments_are_wrapped_once() -> None:
    out, _ = run("void f() { cudaMemcpyToSymbol(c, h, 4); cudaMemcpyFromSymbol(h, c, 4); }\n")
    assert out == "void f() { hipMemcpyToSymbol(HIP_SYMBOL(c), h, 4); hipMemcpyFromSymbol(h, HIP_SYMBOL(c), 4); }\n"
    again = translate(out.encode(), TranslateOptions(), MAP).output.decode()
    assert again == out


def test_includes_are_mapped_and_missing_ones_reported() -> None:
    out, result = run('#include <cuda_runtime.h>\n#include "cuda_runtime.h"\n#include <mma.h>\n#include <cuda_unknown_thing.h>\n#include "cuda_helpers.h"\n',
                      local_headers=frozenset({"cuda_helpers.h"}))
    assert out.splitlines()[:3] == ["#include <hip/hip_runtime.h>", '#include "hip/hip_runtime.h"', "#include <mma.h>"]
    reasons = {u.name: u.reason for u in result.unconverted}
    assert reasons == {"mma.h": Reason.NO_HIP_EQUIVALENT, "cuda_unknown_thing.h": Reason.NOT_MAPPED}


def test_renamed_includes() -> None:
    out, _ = run('#include "kernels.cu"\n#include "sub/kernels.cu"\n', renamed=(("kernels.cu", "kernels.hip"),))
    assert out == '#include "kernels.hip"\n#include "sub/kernels.hip"\n'


@pytest.mark.parametrize(("launch", "expected"), [
    ("k<<<g, b>>>(x, y);", "hipLaunchKernelGGL(k, dim3(g), dim3(b), 0, 0, x, y);"),
    ("k<<<g, b, shm>>>(x);", "hipLaunchKernelGGL(k, dim3(g), dim3(b), shm, 0, x);"),
    ("k<<<g, b, shm, s>>>(x);", "hipLaunchKernelGGL(k, dim3(g), dim3(b), shm, s, x);"),
    ("k<<<1, 1>>>();", "hipLaunchKernelGGL(k, dim3(1), dim3(1), 0, 0);"),
    ("k<float, 4><<<g, b>>>(x);", "hipLaunchKernelGGL(HIP_KERNEL_NAME(k<float, 4>), dim3(g), dim3(b), 0, 0, x);"),
    ("ns::k<<<g, b>>>(cudaMalloc);", "hipLaunchKernelGGL(ns::k, dim3(g), dim3(b), 0, 0, hipMalloc);"),
])
def test_launch_syntax_hip(launch: str, expected: str) -> None:
    out, _ = run(f"void f() {{ {launch} }}\n", launch_syntax=LaunchSyntax.HIP)
    assert out == f"void f() {{ {expected} }}\n"
    assert run(out, launch_syntax=LaunchSyntax.HIP)[0] == out


def test_chevron_launches_are_kept_by_default() -> None:
    out, _ = run("void f() { k<<<g, b, 0, s>>>(x); }\n")
    assert out == "void f() { k<<<g, b, 0, s>>>(x); }\n"


def test_user_defined_cuda_looking_names_are_not_reported() -> None:
    _, result = run("#define CUDA_CHECK(x) x\nvoid cudaCheckError() {}\nvoid f() { CUDA_CHECK(cudaCheckError()); cudaNotAThing(); }\n")
    assert [u.name for u in result.unconverted] == ["cudaNotAThing"]
    assert result.unconverted[0].reason is Reason.NOT_MAPPED and result.unconverted[0].line == 3


def test_unsupported_and_newer_rocm_are_reported() -> None:
    out, result = run("void f() { cudaGraphConditionalHandleCreate(h); x = __shfl_down_sync(m, v, 1); }\n", rocm=RocmVersion(5, 2))
    assert "cudaGraphConditionalHandleCreate" in out  # left for the person or the agent
    reasons = {u.name: u.reason for u in result.unconverted}
    # HIP 5.2 lacks __shfl_down_sync, but porter's warp-sync shim provides it there: not a leftover
    assert reasons == {"cudaGraphConditionalHandleCreate": Reason.NO_HIP_EQUIVALENT}
    unshimmed = translate(b"void f(cufftHandle p) { cufftXtMalloc(p, 0, CUFFT_XT_FORMAT_INPLACE); }\n",
                          TranslateOptions(rocm=RocmVersion(5, 2)))  # the full API map: no shim for hipFFT's Xt API
    assert {u.name: u.reason for u in unshimmed.unconverted}["cufftXtMalloc"] is Reason.NEWER_ROCM
    _, newer = run("void f() { x = __shfl_down_sync(m, v, 1); }\n", rocm=RocmVersion(6, 4))
    assert newer.unconverted == []


def test_inline_asm_needs_the_agent_unless_porter_knows_the_instruction() -> None:
    out, result = run('__device__ int lane() { int l; asm volatile("mov.u32 %0, %%laneid;" : "=r"(l)); return l; }\n')
    assert not result.unconverted and "l = static_cast<unsigned int>(__lane_id());" in out  # tests/test_inline_ptx.py
    _, result = run('__device__ void f(unsigned* d) { asm volatile("cp.async.bulk.shared::cluster.global [%0], [%1], 16;"'
                    ' :: "r"(d[0]), "l"(d)); }\n')
    assert [(u.name, u.reason) for u in result.unconverted] == [("asm", Reason.NEEDS_AGENT)]


def test_crlf_and_invalid_utf8_bytes_survive() -> None:
    src = b"// \xff\xfe caf\xe9\r\nvoid f() { cudaFree(p); }\r\n"
    assert translate(src, TranslateOptions(), MAP).output == src.replace(b"cudaFree", b"hipFree")


def test_unparsable_code_is_translated_lexically_with_a_warning() -> None:
    out, result = run("void f() { cudaFree(p); }}}} )))\n/* cudaFree */ #if\n")
    assert out.startswith("void f() { hipFree(p); }")
    assert "/* cudaFree */" in out
    assert result.warnings and "could not parse" in result.warnings[0]


def test_files_without_cuda_are_returned_untouched() -> None:
    src = b"int main() { return 0; }\n"
    result = translate(src, TranslateOptions(), MAP)
    assert result.output is src and not result.conversions and not result.unconverted


def test_conversions_are_counted_by_family_with_lines() -> None:
    _, result = run("void f() {\n cudaMalloc(&p, 4);\n cub::X::y();\n}\n")
    assert [(c.family, c.cuda, c.hip, c.line) for c in result.conversions] == [
        ("runtime", "cudaMalloc", "hipMalloc", 2), ("cub", "cub", "hipcub", 3)]


def test_real_map_loads_and_translates_core_runtime_calls() -> None:
    api_map = load_api_map()
    for cuda, hip in [("cudaMalloc", "hipMalloc"), ("cudaMemcpy", "hipMemcpy"), ("cudaStream_t", "hipStream_t"),
                      ("cudaMemcpyHostToDevice", "hipMemcpyHostToDevice"), ("cublasSgemm", "hipblasSgemm"),
                      ("curandCreateGenerator", "hiprandCreateGenerator")]:
        entry = api_map.lookup(cuda)
        assert entry is not None and entry.hip == hip, cuda
    assert api_map.header("cuda_runtime.h").hip == "hip/hip_runtime.h"


def test_version_macros_are_translated_only_where_definedness_is_tested() -> None:
    src = "#ifdef __CUDA_ARCH__\n#endif\n#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800\n#endif\n"
    out, result = run(src)
    # the value comparison uses porter_cuda_arch.h's stand-in (800 in device code) and is still reported
    assert out == "#ifdef __HIP_DEVICE_COMPILE__\n#endif\n#if defined(__HIP_DEVICE_COMPILE__) && PORTER_CUDA_ARCH >= 800\n#endif\n"
    assert [(u.name, u.line, u.reason) for u in result.unconverted] == [("__CUDA_ARCH__", 3, Reason.NEEDS_AGENT)]
    assert "porter_cuda_arch" in needed_shims(out, None)


QUALIFIED_MAP = ApiMap(
    apis={e.cuda: e for e in [
        _entry("cooperative_groups::reduce", None, "cooperative_groups", unsupported="use hipCUB WarpReduce"),
        _entry("cooperative_groups::this_thread_block", "cooperative_groups::this_thread_block", "cooperative_groups"),
    ]},
    namespaces={e.cuda: e for e in [
        _entry("cooperative_groups", "cooperative_groups", "cooperative_groups", kind="namespace"),
        _entry("thrust", "thrust", "thrust", kind="namespace"),
        _entry("thrust::cuda", "thrust::hip", "thrust", kind="namespace"),
    ]},
    headers={}, header_prefixes=(), symbol_args={}, defined_only={}, ocp_fp8={},
)


def test_qualified_names_resolve_namespace_aliases() -> None:
    src = b"namespace cg = cooperative_groups;\nvoid f() { auto b = cg::this_thread_block(); float s = cg::reduce(t, v, op); float r = reduce(v); }\n"
    result = translate(src, TranslateOptions(), QUALIFIED_MAP)
    assert result.output == src
    assert [(u.name, u.line, u.reason) for u in result.unconverted] == [
        ("cooperative_groups::reduce", 2, Reason.NO_HIP_EQUIVALENT)]


def test_nested_namespaces_are_renamed() -> None:
    src = b"void f() { thrust::sort(thrust::cuda::par.on(s), a, b); }\n"
    out = translate(src, TranslateOptions(), QUALIFIED_MAP).output
    assert out == b"void f() { thrust::sort(thrust::hip::par.on(s), a, b); }\n"


def test_fp8_types_follow_the_targets_encoding() -> None:
    src = b"__global__ void k(__nv_fp8_e4m3* x, __nv_fp8x2_e5m2* y) { __nv_fp8_interpretation_t i = __NV_E4M3; }\n"
    fnuz = translate(src, TranslateOptions(target="gfx942")).output
    ocp = translate(src, TranslateOptions(target="gfx950")).output
    assert fnuz == (b"__global__ void k(__hip_fp8_e4m3_fnuz* x, __hip_fp8x2_e5m2_fnuz* y) "
                    b"{ __hip_fp8_interpretation_t i = __HIP_E4M3_FNUZ; }\n")
    assert ocp == b"__global__ void k(__hip_fp8_e4m3* x, __hip_fp8x2_e5m2* y) { __hip_fp8_interpretation_t i = __HIP_E4M3; }\n"
    older = translate(src, TranslateOptions(target="gfx950", rocm=RocmVersion(6, 2)))
    assert {u.name for u in older.unconverted if u.reason is Reason.NEWER_ROCM} >= {"__nv_fp8_e4m3", "__NV_E4M3"}


def test_hazard_fixes_reach_files_that_call_no_cuda_api() -> None:
    src = b"#include <cstdio>\n__device__ int lane() { return threadIdx.x % 32; }\n"
    assert translate(src, TranslateOptions()).output == src.replace(b"% 32", b"% warpSize")


def test_plain_cpp_with_includes_is_not_parsed(monkeypatch: pytest.MonkeyPatch) -> None:
    from porter import syntax

    def no_parse(source: bytes) -> None:
        raise AssertionError("parsed a file with nothing to translate")

    monkeypatch.setattr(syntax, "parse", no_parse)
    src = b"#include <vector>\n#include \"util.h\"\nint twice(int x) { return 2 * x; }\n"
    assert translate(src, TranslateOptions()).output is src


def test_a_symbol_named_by_a_string_becomes_the_variable_or_is_reported() -> None:
    """CUDA before 5.0 took cudaMemcpyToSymbol("name", ...); HIP_SYMBOL("name") would compile and fail at run time."""
    src = (b'__constant__ float c_table[16];\n__device__ int d_count;\n'
           b'void f(const float* h, int* n) {\n  cudaMemcpyToSymbol("c_table", h, 64);\n'
           b'  cudaMemcpyFromSymbol(n, "d_count", sizeof(int));\n  cudaMemcpyToSymbol("elsewhere", h, 4);\n}\n')
    result = translate(src, TranslateOptions())
    out = result.output.decode()
    assert 'hipMemcpyToSymbol(HIP_SYMBOL(c_table), h, 64);' in out
    assert 'hipMemcpyFromSymbol(n, HIP_SYMBOL(d_count), sizeof(int));' in out
    assert 'hipMemcpyToSymbol("elsewhere", h, 4);' in out  # not wrapped: reported instead
    assert [(u.name, u.reason.value) for u in result.unconverted] == [('"elsewhere"', "needs the agent")]


def test_a_quoted_include_of_the_projects_own_cuda_h_is_kept() -> None:
    """darknet has src/cuda.h (its CUDA helpers, BLOCK...) and its kernels `#include "cuda.h"`: that is the
    project's header, not CUDA's driver API header; `<cuda.h>` still is CUDA's."""
    src = '#include "cuda.h"\n#include <cuda.h>\n#include "cuda_runtime.h"\n__global__ void k() {}\n'
    result = translate(src.encode(), TranslateOptions(local_headers=frozenset({"cuda.h"})))
    out = result.output.decode()
    assert out.startswith('#include "cuda.h"\n#include <hip/hip_runtime.h>\n#include "hip/hip_runtime.h"\n')
    assert any("project has its own cuda.h" in w for w in result.warnings)
    assert translate(src.encode(), TranslateOptions()).output.decode().startswith('#include "hip/hip_runtime.h"')
