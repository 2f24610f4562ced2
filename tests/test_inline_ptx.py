"""Inline PTX rewritten to HIP (porter/data/ptx.toml, porter/translate/inline_ptx.py, shims/porter_ptx.h).

What each rewrite computes was checked against the PTX instructions on an H200 (scripts/ptx_reference/: 77
exact rewrites over 65,536 operand sets each, identical); here: the rewrites themselves, what stays PTX and why,
host assembly left alone, and the output compiling with both HIP toolchains.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from support.convert import port_tree
from support.toolchains import newer_hipcc, system_hipcc

from porter.translate import Reason, TranslateOptions, translate

ROOT = Path(__file__).resolve().parents[1]


def _port(body: str, target: str = "gfx942") -> tuple[str, list]:
    src = "#include <cuda_runtime.h>\n__device__ void f(unsigned a, unsigned b, unsigned c, unsigned long long x,\n" \
          "    float fl, float* p, unsigned* u, unsigned long long* g, float4& v, unsigned short h) {\n" + body + "\n}\n"
    result = translate(src.encode(), TranslateOptions(target=target))
    return result.output.decode(), [u for u in result.unconverted if u.name == "asm"]


@pytest.mark.parametrize(("asm", "expected"), [
    ('asm volatile("mov.u32 %0, %%laneid;" : "=r"(a));', "a = static_cast<unsigned int>(__lane_id());"),
    ('asm("mov.u32 %0, %%smid;" : "=r"(a));', "a = static_cast<unsigned int>(__smid());"),
    ('asm volatile("mov.u64 %0, %%clock64;" : "=l"(x));', "x = static_cast<unsigned long long>(clock64());"),
    ('asm("lop3.b32 %0, %1, %2, %3, 0x96;" : "=r"(a) : "r"(b), "r"(c), "r"(a));', "a = porter_lop3(b, c, a, 0x96u);"),
    ('asm("prmt.b32 %0, %1, %2, 0x5410;" : "=r"(a) : "r"(b), "r"(c));', "a = porter_prmt(b, c, 0x5410u);"),
    ('asm("bfe.u32 %[d], %[s], 8, 4;" : [d] "=r"(a) : [s] "r"(b));', "a = porter_bfe_u32(b, 8u, 4u);"),
    ('asm("shf.l.wrap.b32 %0, %1, %2, %3;" : "=r"(a) : "r"(b), "r"(c), "r"(a));', "a = __funnelshift_l(b, c, a);"),
    ('asm("mul.wide.u32 %0, %1, %2;" : "=l"(x) : "r"(a), "r"(b));',
     "x = static_cast<unsigned long long>(static_cast<unsigned>(a)) * static_cast<unsigned>(b);"),
    ('asm("fma.rn.f32 %0, %1, %2, 0f3F800000;" : "=f"(fl) : "f"(fl), "f"(v.x));',
     "fl = __fmaf_rn(fl, v.x, __uint_as_float(0x3F800000u));"),
    ('asm("mov.b32 %0, %1;" : "=f"(fl) : "r"(a));', "fl = __uint_as_float(a);"),  # bits, not a conversion
    ('asm("ld.global.nc.b32 %0, [%1];" : "=f"(fl) : "l"(p));', "fl = *((const float*)(p));"),
    ('asm volatile("ld.global.nc.v4.f32 {%0, %1, %2, %3}, [%4];" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p));',
     "{ const float4 porter_v = *((const float4*)(p)); v.x = porter_v.x; v.y = porter_v.y; v.z = porter_v.z; "
     "v.w = porter_v.w; }"),
    # .cg/.cv loads read past L1, which is not coherent between AMD compute units: device/system-scope loads
    ('asm volatile("ld.global.cg.s32 %0, [%1];" : "=r"(a) : "l"(u));',
     "a = __hip_atomic_load((int*)(u), __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);"),
    ('asm volatile("ld.global.cv.f32 %0, [%1];" : "=f"(fl) : "l"(p));',
     "fl = __hip_atomic_load((float*)(p), __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_SYSTEM);"),
    ('asm("ld.global.cg.f32.v2 {%0, %1}, [%2];" : "=f"(v.x), "=f"(v.y) : "l"(p));',  # LULESH: the type first
     "{ v.x = __hip_atomic_load(((float*)(p)) + 0, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT); "
     "v.y = __hip_atomic_load(((float*)(p)) + 1, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT); }"),
    ('asm("ld.global.ca.f32.v2 {%0, %1}, [%2];" : "=f"(v.x), "=f"(v.y) : "l"(p));',
     "{ const float2 porter_v = *((const float2*)(p)); v.x = porter_v.x; v.y = porter_v.y; }"),
    ('asm("bfind.u64 %0, %1;" : "=r"(a) : "l"(x));', "a = porter_bfind_u64(x);"),
    ('asm volatile("st.global.cs.f32 [%0+4], %1;" :: "l"(p), "f"(fl));', "*((float*)((const char*)(p) + 4)) = static_cast<float>(fl);"),
    ('asm volatile("red.global.add.f32 [%0], %1;" :: "l"(p), "f"(fl));', "atomicAdd((float*)(p), static_cast<float>(fl));"),
    ('asm volatile("red.global.cta.max.u32 [%0], %1;" :: "l"(u), "r"(a));',
     "atomicMax_block((unsigned int*)(u), static_cast<unsigned int>(a));"),
    ('asm volatile("atom.global.cas.b32 %0, [%1], %2, %3;" : "=r"(a) : "l"(u), "r"(b), "r"(c));',
     "a = atomicCAS((unsigned int*)(u), static_cast<unsigned int>(b), static_cast<unsigned int>(c));"),
    # sm_100's 256-bit accesses (gau-nernst/learn-cuda's gemv) as two 128-bit halves
    ('asm volatile("ld.global.v8.b32 {%0, %1, %2, %3, %4, %5, %6, %7}, [%8];" : "=r"(u[0]), "=r"(u[1]), "=r"(u[2]), '
     '"=r"(u[3]), "=r"(u[4]), "=r"(u[5]), "=r"(u[6]), "=r"(u[7]) : "l"(p));',
     "{ const uint4 porter_v0 = ((const uint4*)(p))[0]; u[0] = porter_v0.x; u[1] = porter_v0.y; u[2] = porter_v0.z; "
     "u[3] = porter_v0.w; const uint4 porter_v1 = ((const uint4*)(p))[1]; u[4] = porter_v1.x; u[5] = porter_v1.y; "
     "u[6] = porter_v1.z; u[7] = porter_v1.w; }"),
    ('asm volatile("st.global.L1::no_allocate.v8.f32 [%0], {%1, %2, %3, %4, %5, %6, %7, %8};" :: "l"(p), "f"(fl), '
     '"f"(fl), "f"(fl), "f"(fl), "f"(v.x), "f"(v.y), "f"(v.z), "f"(v.w));',
     "{ ((float4*)(p))[0] = make_float4(fl, fl, fl, fl); ((float4*)(p))[1] = make_float4(v.x, v.y, v.z, v.w); }"),
    # ordered vector accesses: PTX models them as one access per element, in no set order
    ('asm volatile("ld.global.relaxed.cta.L1::no_allocate.v2.b32 {%0, %1}, [%2];" : "=r"(a), "=r"(b) : "l"(u));',
     "{ a = __hip_atomic_load(((unsigned int*)(u)) + 0, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP); "
     "b = __hip_atomic_load(((unsigned int*)(u)) + 1, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP); }"),
    ('asm volatile("st.release.gpu.global.v2.u32 [%0], {%1, %2};" :: "l"(u), "r"(a), "r"(b));',
     "{ __hip_atomic_store(((unsigned int*)(u)) + 0, a, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT); "
     "__hip_atomic_store(((unsigned int*)(u)) + 1, b, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT); }"),
    ('asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(a) : "l"(u));',
     "a = __hip_atomic_load((unsigned int*)(u), __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT);"),
    ('asm volatile("st.release.sys.global.u64 [%0], %1;" :: "l"(g), "l"(x));',
     "__hip_atomic_store((unsigned long long*)(g), x, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_SYSTEM);"),
    ('asm("mov.b32 %0, {%1, %2};" : "=r"(a) : "h"(h), "h"(h));',
     "a = static_cast<unsigned int>(static_cast<unsigned short>(h)) | "
     "(static_cast<unsigned int>(static_cast<unsigned short>(h)) << 16);"),
    ('asm volatile("membar.gl;" ::: "memory");', "__threadfence();"),
    ('asm volatile("bar.sync 0;" ::: "memory");', "__syncthreads();"),
    ('asm volatile("prefetch.global.L2 [%0];" :: "l"(p));', "(void)0;"),
    ('asm volatile("nanosleep.u32 %0;" :: "r"(a));', "__nanosleep(a);"),
    ('asm volatile("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(a) : "r"(a), "r"(b));',
     "a = __shfl_xor_sync(0xffffffffffffffffULL, a, b, 32);"),
    ('asm volatile("shfl.sync.down.b32 %0, %1, %2, 0x101f, %3;" : "=f"(fl) : "f"(fl), "r"(b), "r"(c));',
     "fl = __shfl_down_sync(static_cast<unsigned long long>(c), fl, b, 16);"),  # 0x101f: width 16
    ('asm volatile("shfl.up.b32 %0, %1, 1, 0x0;" : "=r"(a) : "r"(a));', "a = __shfl_up(a, 1u, 32);"),
])
def test_known_instructions_become_hip(asm: str, expected: str) -> None:
    out, left = _port(asm)
    assert not left, left[0].detail
    assert expected in out, out
    assert "asm" not in out.split("{", 1)[1]


def test_a_memory_clobber_keeps_the_compiler_from_moving_accesses_across() -> None:
    out, _ = _port('asm volatile("st.global.u32 [%0], %1;" :: "l"(u), "r"(a) : "memory");')
    assert ("{ __atomic_signal_fence(__ATOMIC_SEQ_CST); *((unsigned int*)(u)) = static_cast<unsigned int>(a); "
            "__atomic_signal_fence(__ATOMIC_SEQ_CST); }") in out


def test_several_instructions_become_one_block_that_stands_where_the_statement_stood() -> None:
    out, _ = _port('if (a) asm("lop3.b32 %0, %1, %2, %3, 0x96;\\n\\t" "prmt.b32 %0, %0, %2, 0x5410;"'
                   ' : "=r"(a) : "r"(b), "r"(c), "r"(a));\n    else a = 0;')
    assert "if (a) { a = porter_lop3(b, c, a, 0x96u); a = porter_prmt(a, c, 0x5410u); }\n    else a = 0;" in out
    assert '#include "porter_ptx.h"' not in out  # the shim is added where the port is written (convert)


@pytest.mark.parametrize(("asm", "missing", "why"), [
    ('asm("mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32 {%0,%1,%2,%3,%4,%5,%6,%7}, {%8,%9}, {%10,%11}, '
     '{%0,%1,%2,%3,%4,%5,%6,%7};" : "+f"(v[0]), "+f"(v[1]), "+f"(v[2]), "+f"(v[3]), "+f"(v[4]), "+f"(v[5]), '
     '"+f"(v[6]), "+f"(v[7]) : "r"(a), "r"(b), "r"(c), "r"(c));',
     "mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32", "not an mma.sync form porter rewrites"),
    ('asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"'
     ' :: "r"(a), "l"(u), "r"(b), "r"(c) : "memory");',
     "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes", "bulk copies and mbarriers stay"),
    ('asm("mov.u32 %0, %%warpid;" : "=r"(a));', "mov.u32", "%warpid is the warp's hardware slot"),
    ('asm("mov.u32 %0, %%lanemask_lt;" : "=r"(a));', "mov.u32", "64 bits on wave64"),
    ('asm volatile("bar.sync 1, 128;");', "bar.sync", "thread count"),
    ('asm("{.reg .pred p; setp.eq.u32 p, %1, 0; @p bra DONE; mov.u32 %0, 1; DONE: }" : "=r"(a) : "r"(b));', "bra",
     "not in porter's table"),  # branches and labels stay
    ('asm volatile("ld.local.u32 %0, [%1];" : "=r"(a) : "l"(u));', "ld.local.u32", ".local"),
    ('asm volatile("ld.global.L2::cache_hint.u32 %0, [%1], %2;" : "=r"(a) : "l"(u), "l"(x));',
     "ld.global.L2::cache_hint.u32", "not a qualifier porter rewrites"),
    ('asm("and.b32 %0, %1, %2;" : "=f"(fl) : "f"(fl), "r"(a));', "and.b32", "bit trick"),
    ('asm("lop3.b32 %0, %1, %2, %3, 0x96;" : "=r"(a) : "r"(b), "r"(c));', "lop3.b32", "%3 is not declared"),
    ('asm("shfl.sync.up.b32 %0, %1, 1, 0x1f, %2;" : "=r"(a) : "r"(a), "r"(b));', "shfl.sync.up.b32",
     "not what __shfl_*(..., width) produces"),
    ('asm("shfl.sync.bfly.b32 %0|p, %1, %2, 0x1f, %3;" : "=r"(a) : "r"(a), "r"(b), "r"(c));', "shfl.sync.bfly.b32",
     "predicate output"),
    # an operand with side effects named twice would run them twice
    ('asm("add.u32 %0, %1, %1;" : "=r"(a) : "r"(u[b++]));', "add.u32", "used more than once and may have side effects"),
])
def test_what_stays_ptx_is_reported_naming_the_instruction(asm: str, missing: str, why: str) -> None:
    out, left = _port(asm)
    assert len(left) == 1
    assert left[0].reason is Reason.NEEDS_AGENT
    assert f"`{missing}`" in left[0].detail and why in left[0].detail, left[0].detail
    assert asm.split("(", 1)[1][:30] in out  # left as written for the agent


def test_a_constraint_spelled_by_a_macro_is_read_through_it() -> None:
    """LULESH's sm_utils.inl: `#define __PTR "l"` (or "r" on 32-bit hosts) and `: __PTR(ptr)`."""
    src = b"""#if defined(__LP64__)
#define __PTR   "l"
#else
#define __PTR   "r"
#endif
__device__ int load(const int* ptr) { int ret; asm volatile ( "ld.global.ca.s32 %0, [%1];"  : "=r"(ret) : __PTR(ptr) ); return ret; }
"""
    result = translate(src, TranslateOptions(target="gfx942"))
    assert b"{ int ret; ret = *((const int*)(ptr)); return ret; }" in result.output
    assert not [u for u in result.unconverted if u.name == "asm"]
    from porter.scan import scan_source  # the scan agrees: a note that convert rewrites it, not PA001
    from porter.targets import resolve_target
    assert [f.rule for f in scan_source(src, "sm_utils.inl", resolve_target("gfx942")) if f.rule.startswith("PA")] \
        == ["PA002"]


def test_host_assembly_is_neither_rewritten_nor_reported() -> None:
    src = b"""#include <cuda_runtime.h>
unsigned long long tsc() { unsigned lo, hi; __asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi)); return ((unsigned long long)hi << 32) | lo; }
void relax() { asm volatile("pause" ::: "memory"); }
"""
    result = translate(src, TranslateOptions(target="gfx942"))
    assert not result.unconverted
    assert b'__asm__ __volatile__("rdtsc"' in result.output and b'asm volatile("pause"' in result.output
    from porter.scan import scan_source  # the hazard scan agrees: x86 is not PTX
    from porter.targets import resolve_target
    assert not [f for f in scan_source(src, "host.cu", resolve_target("gfx942")) if f.rule == "PA001"]


def test_an_operand_with_side_effects_is_read_once() -> None:
    out, left = _port('unsigned short lo, hi;\n    asm("mov.b32 {%0, %1}, %2;" : "=h"(lo), "=h"(hi) : "r"(u[b++]));')
    assert not left
    assert ("{ const unsigned int porter_w = u[b++]; lo = static_cast<unsigned short>(porter_w); "
            "hi = static_cast<unsigned short>(porter_w >> 16); }") in out


def test_renames_inside_the_operands_are_kept() -> None:
    out, left = _port('asm("add.u32 %0, %1, %2;" : "=r"(a) : "r"(b), "r"((unsigned)cudaDevAttrWarpSize));')
    assert not left
    assert "a = static_cast<unsigned>(b) + static_cast<unsigned>(((unsigned)hipDeviceAttributeWarpSize));" in out


def test_porting_the_port_again_changes_nothing() -> None:
    out, _ = _port('asm("lop3.b32 %0, %1, %2, %3, 0x96;" : "=r"(a) : "r"(b), "r"(c), "r"(a));\n'
                   '    asm volatile("ld.global.nc.v4.f32 {%0, %1, %2, %3}, [%4];" : "=f"(v.x), "=f"(v.y), "=f"(v.z), '
                   '"=f"(v.w) : "l"(p));')
    assert translate(out.encode(), TranslateOptions(target="gfx942")).output.decode() == out


def test_the_h200_check_holds_what_porter_writes_today() -> None:
    """scripts/ptx_reference/check.cu (run on the H200: h200_result.txt) must be regenerated when a rewrite
    changes, or the recorded PASS says nothing about the current table."""
    spec = importlib.util.spec_from_file_location("make_check", ROOT / "scripts" / "ptx_reference" / "make_check.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.generate() == (ROOT / "scripts" / "ptx_reference" / "check.cu").read_text()
    recorded = (ROOT / "scripts" / "ptx_reference" / "h200_result.txt").read_text()
    assert f"PASS: 0 of {len(module.CASES)} exact rewrites differ" in recorded


FULL = """#include <cuda_runtime.h>
__device__ __forceinline__ unsigned lane_id() { unsigned r; asm volatile("mov.u32 %0, %%laneid;" : "=r"(r)); return r; }
__global__ void k(const float* __restrict__ p, float* q, unsigned* u, unsigned long long* g, double* d) {
    float4 v;
    asm volatile("ld.global.nc.v4.f32 {%0, %1, %2, %3}, [%4];" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p));
    unsigned a = lane_id(), b = threadIdx.x, c = u[2];
    unsigned long long x = g[0];
    asm("lop3.b32 %0, %1, %2, %3, 0xe8;" : "=r"(c) : "r"(a), "r"(b), "r"(c));
    asm("prmt.b32 %0, %1, %2, 0x8a10;" : "=r"(c) : "r"(a), "r"(c));
    asm("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(c) : "r"(a), "r"(b), "r"(c), "r"(a));
    asm("bfe.s64 %0, %1, %2, %3;" : "=l"(x) : "l"(x), "r"(a), "r"(b));
    asm("mul.hi.u64 %0, %1, %2;" : "=l"(x) : "l"(x), "l"(x));
    asm("min.u32 %0, %1, %2;" : "=r"(c) : "r"(a), "r"(c));
    asm volatile("atom.global.add.u64 %0, [%1], %2;" : "=l"(x) : "l"(g), "l"(x));
    asm volatile("red.global.cta.max.u32 [%0], %1;" :: "l"(u), "r"(c));
    asm volatile("red.global.sys.add.u32 [%0], %1;" :: "l"(u), "r"(c));
    asm volatile("ld.global.v2.f64 {%0, %1}, [%2];" : "=d"(d[0]), "=d"(d[1]) : "l"(d + 2));
    asm volatile("st.global.v4.b32 [%0], {%1, %2, %3, %4};" :: "l"(u), "r"(a), "r"(b), "r"(c), "r"(a) : "memory");
    asm volatile("ld.relaxed.sys.global.u64 %0, [%1];" : "=l"(x) : "l"(g));
    asm volatile("st.release.gpu.global.u32 [%0], %1;" :: "l"(u + 1), "r"(c));
    asm volatile("ld.global.v8.b32 {%0, %1, %2, %3, %4, %5, %6, %7}, [%8];" : "=r"(u[8]), "=r"(u[9]), "=r"(u[10]),
                 "=r"(u[11]), "=r"(u[12]), "=r"(u[13]), "=r"(u[14]), "=r"(u[15]) : "l"(u + 16));
    asm volatile("st.global.v8.f32 [%0], {%1, %2, %3, %4, %5, %6, %7, %8};" :: "l"(q + 8), "f"(v.x), "f"(v.y),
                 "f"(v.z), "f"(v.w), "f"(v.x), "f"(v.y), "f"(v.z), "f"(v.w));
    asm volatile("ld.global.relaxed.cta.L1::no_allocate.v4.b32 {%0, %1, %2, %3}, [%4];" : "=r"(a), "=r"(b), "=r"(c),
                 "=r"(u[3]) : "l"(u + 4));
    asm volatile("st.release.gpu.global.v2.u32 [%0], {%1, %2};" :: "l"(u + 32), "r"(a), "r"(b));
    asm volatile("mov.u32 %0, %%smid;" : "=r"(a));
    asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=f"(v.x) : "f"(v.y));
    asm volatile("mov.b64 {%0, %1}, %2;" : "=r"(a), "=r"(b) : "l"(x));
    asm volatile("nanosleep.u32 %0;" :: "r"(a));
    asm volatile("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(a) : "r"(a), "r"(b));
    asm volatile("shfl.sync.down.b32 %0, %1, %2, 0x101f, 0xffffffff;" : "=f"(v.y) : "f"(v.y), "r"(b));
    asm volatile("ld.global.cg.f64.v2 {%0, %1}, [%2];" : "=d"(d[2]), "=d"(d[3]) : "l"(d + 4));
    asm volatile("ld.global.cv.s32 %0, [%1];" : "=r"(c) : "l"(u + 3));
    asm("bfind.u32 %0, %1;" : "=r"(b) : "r"(c));
    asm volatile("bar.sync 0;" ::: "memory");
    asm volatile("fence.acq_rel.gpu;" ::: "memory");
    q[threadIdx.x] = v.x + v.z + a + b + c + (unsigned)x;
}
"""


@pytest.mark.hipcc
def test_rewritten_ptx_compiles_for_gfx942_and_with_rocm_52(tmp_path: Path) -> None:
    for hipcc, target in ((newer_hipcc(), "gfx942"), (system_hipcc(), "gfx90a")):
        out = port_tree(tmp_path, {"k.cu": FULL}, target)
        ported = (out / "k.cu").read_text()
        assert "asm" not in ported and "porter_ptx.h" in ported
        built = hipcc.compile(out / "k.cu")
        assert built.returncode == 0, f"{hipcc.label}:\n{built.stderr}"


# -- tensor-core kernels' PTX: cp.async, ldmatrix, mma.sync (porter_ptx_warp.h) ----------------------------------
@pytest.mark.parametrize(("asm", "expected"), [
    ('asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16;" :: "r"(a), "l"(p));',
     "porter_cp_async(a, p, 16u);"),
    ('asm volatile("cp.async.ca.shared.global [%0], [%1], 16, %2;" :: "r"(a), "l"(p), "r"(b));',
     "porter_cp_async(a, p, 16u, b);"),
    ('asm volatile("cp.async.commit_group;\\n" ::);', "(void)0;"),
    ('asm volatile("cp.async.wait_group 1;\\n" ::);', "(void)0;"),
    ('asm volatile("ldmatrix.sync.aligned.x2.trans.m8n8.shared.b16 {%0, %1}, [%2];" : "=r"(b), "=r"(c) : "r"(a));',
     "{ unsigned porter_m[2]; porter_ldmatrix<true>(porter_m, a); b = porter_m[0]; c = porter_m[1]; }"),
    # D and C in the same registers ("+f"), as CUTLASS-style code writes it
    ('asm("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};"'
     ' : "+f"(v.x), "+f"(v.y), "+f"(v.z), "+f"(v.w) : "r"(a), "r"(b), "r"(c));',
     "porter_mma_m16n8<8, porter_mma_f32, porter_mma_f16, porter_mma_f16, porter_mma_f32, false>"
     "(porter_d, porter_a, porter_b, porter_c); v.x = porter_d[0];"),
    # float accumulators held in unsigned registers: moved as bits
    ('asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, '
     '{%10,%11,%12,%13};" : "=r"(u[0]), "=r"(u[1]), "=r"(u[2]), "=r"(u[3]) : "r"(a), "r"(b), "r"(c), "r"(a), '
     '"r"(b), "r"(c), "r"(u[4]), "r"(u[5]), "r"(u[6]), "r"(u[7]));',
     "const float porter_c[4] = {__uint_as_float(u[4]),"),
    ('asm("cvta.to.shared.u64 %0, %1;" : "=l"(x) : "l"(p));', "x = __cvta_generic_to_shared((const void*)(p));"),
    # shared-memory accesses by shared-window address
    ('asm volatile("ld.shared.u32 %0, [%1];" : "=r"(a) : "r"(b));', "a = *((const unsigned int*)__cvta_shared_to_generic(b));"),
    ('asm volatile("st.shared.v2.f32 [%0+8], {%1, %2};" :: "r"(a), "f"(fl), "f"(fl));',
     "*((float2*)__cvta_shared_to_generic(a + 8)) = make_float2(fl, fl);"),
    # blocks with local registers and predicates (CUTLASS's cast_smem_ptr_to_uint, its guarded cp.async)
    ('asm("{ .reg .u64 smem_ptr; cvta.to.shared.u64 smem_ptr, %1; cvt.u32.u64 %0, smem_ptr; }\\n" : "=r"(a) : "l"(p));',
     "{ unsigned long long porter_smem_ptr = 0; porter_smem_ptr = __cvta_generic_to_shared((const void*)(p)); "
     "a = static_cast<unsigned>(porter_smem_ptr); }"),
    ('asm volatile("{\\n .reg .pred p;\\n setp.ne.b32 p, %0, 0;\\n @p cp.async.ca.shared.global [%1], [%2], 16;\\n}\\n"'
     ' :: "r"((int)b), "r"(a), "l"(p));', "if (porter_p) { porter_cp_async(a, p, 16u); }"),
    ('asm("{.reg .pred p; setp.lt.s32 p, %1, %2; selp.f32 %0, %3, %4, p;}" : "=f"(fl) : "r"(a), "r"(b), "f"(fl), "f"(1.0f));',
     "porter_p = static_cast<int>(a) < static_cast<int>(b); fl = porter_p ? fl : (1.0f);"),
])
def test_tensor_core_ptx_is_rewritten(asm: str, expected: str) -> None:
    out, left = _port(asm)
    assert not left, left[0].detail
    assert expected in out, out


def test_mma_shapes_and_types_porter_does_not_rewrite_stay() -> None:
    for asm in ('asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f16 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, '
                '{%10,%11};" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "r"(a), "r"(b), "r"(c), "r"(a), '
                '"r"(b), "r"(c), "r"(a), "r"(b));',  # ptxas refuses a .dtype other than .ctype too
                'asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6,%7}, '
                '{%0,%1,%2,%3};" : "+f"(v.x), "+f"(v.y), "+f"(v.z), "+f"(v.w) : "r"(a), "r"(b), "r"(c), "r"(a));'):
        _, left = _port(asm)
        assert len(left) == 1, asm


MACROS = r"""#include <cuda_runtime.h>
#define LDMATRIX_X4(R0, R1, R2, R3, addr)                                             \
    asm volatile("ldmatrix.sync.aligned.x4.m8n8.shared.b16 {%0, %1, %2, %3}, [%4];\n" \
                 : "=r"(R0), "=r"(R1), "=r"(R2), "=r"(R3)                             \
                 : "r"(addr))
#define HMMA16816(RD0, RD1, RA0, RA1, RA2, RA3, RB0, RB1, RC0, RC1)                                                    \
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0, %1}, {%2, %3, %4, %5}, {%6, %7}, {%8, %9};\n" \
                 : "=r"(RD0), "=r"(RD1)                                                                                \
                 : "r"(RA0), "r"(RA1), "r"(RA2), "r"(RA3), "r"(RB0), "r"(RB1), "r"(RC0), "r"(RC1))
#define CP_ASYNC_CG(dst, src, Bytes) \
    asm volatile("cp.async.cg.shared.global [%0], [%1], %2;\n" ::"r"(dst), "l"(src), "n"(Bytes))
#define CP_ASYNC_COMMIT_GROUP() asm volatile("cp.async.commit_group;\n" ::)
#define CP_ASYNC_WAIT_GROUP(N) asm volatile("cp.async.wait_group %0;\n" ::"n"(N))
#define FENCE_THEN(x) asm volatile("membar.gl;"); x

// one warp: a 16x8 tile of C = A * B, A and B staged in shared memory through cp.async
__global__ void tile(const int4* a, const int4* b, unsigned* c) {
    __shared__ int4 sa[32], sb[16];
    const unsigned lane = threadIdx.x;
    CP_ASYNC_CG(__cvta_generic_to_shared(&sa[lane]), a + lane, 16);
    if (lane < 16) CP_ASYNC_CG(__cvta_generic_to_shared(&sb[lane]), b + lane, 16);
    CP_ASYNC_COMMIT_GROUP();
    CP_ASYNC_WAIT_GROUP(0);
    __syncthreads();
    unsigned ra[4], rb[4], rc[2] = {0, 0}, rd[2];
    LDMATRIX_X4(ra[0], ra[1], ra[2], ra[3], __cvta_generic_to_shared(&sa[lane % 16 * 2 + lane / 16]));
    LDMATRIX_X4(rb[0], rb[1], rb[2], rb[3], __cvta_generic_to_shared(&sb[lane % 16]));
    if (lane < 32) HMMA16816(rd[0], rd[1], ra[0], ra[1], ra[2], ra[3], rb[0], rb[1], rc[0], rc[1]);
    else FENCE_THEN(rd[0] = rd[1] = 0);
    c[lane * 2] = rd[0];
    c[lane * 2 + 1] = rd[1];
}
"""


def test_asm_in_macro_bodies_is_rewritten_and_the_uses_keep_their_semicolons() -> None:
    result = translate(MACROS.encode(), TranslateOptions(target="gfx942"))
    out = result.output.decode()
    assert "asm" not in out.replace("FENCE_THEN", ""), out
    assert "do { { unsigned porter_m[4]; porter_ldmatrix<false>(porter_m, ((addr)));" in out
    assert "#define CP_ASYNC_CG(dst, src, Bytes) \\\n    do { porter_cp_async(((dst)), ((src)), ((Bytes))); } while (0)" in out
    assert "#define CP_ASYNC_WAIT_GROUP(N) do { (void)0; } while (0)" in out
    # an asm followed by more of the body keeps its own semicolon's place
    assert "#define FENCE_THEN(x) __threadfence(); x" in out
    assert not [u for u in result.unconverted if u.name == "asm"]


@pytest.mark.hipcc
def test_tensor_core_ptx_port_compiles_for_gfx942_gfx950_and_gfx90a(tmp_path: Path) -> None:
    for hipcc, target in ((newer_hipcc(), "gfx942"), (system_hipcc(), "gfx90a")):
        out = port_tree(tmp_path, {"tile.cu": MACROS}, target)
        ported = (out / "tile.cu").read_text()
        assert "porter_shims/porter_ptx_warp.h" in ported
        built = hipcc.compile(out / "tile.cu")
        assert built.returncode == 0, f"{hipcc.label}:\n{built.stderr}"
