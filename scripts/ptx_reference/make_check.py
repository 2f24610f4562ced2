"""Writes check.cu: porter's inline-PTX rewrites against the PTX instructions themselves, on an NVIDIA GPU.

Each case is one asm statement as CUDA code writes it. check.cu holds every case twice: as written (nvcc
assembles the PTX) and as porter translates it for an AMD target (porter/data/ptx.toml, shims/porter_ptx.h),
built with nvcc through gpu_compare's HIP-to-CUDA header. Its main() runs both over the same operands (random
ones and edge cases: positions and lengths past 32, selectors with the sign bit, zeros, all ones, NaNs,
denormals) and compares the results bit for bit. Run here (porter must import), then on the GPU:

    python scripts/ptx_reference/make_check.py
    cd scripts/ptx_reference && cp ../../porter/resources/shims/porter_ptx.h ../../porter/resources/shims/porter_ptx_warp.h . && nvcc -std=c++17 -I../texture_reference/gpu_compare/compat -I. -o check check.cu && ./check
"""

from __future__ import annotations

import re
from pathlib import Path

from porter.translate import TranslateOptions, translate

# mma.sync operands: 32-bit registers of small integers (f16, bf16 and tf32 bits from tables of -3..4), any bytes
_ELEMENTS = {
    "f16": lambda x, y, j: f"(unsigned)porter_check_f16[({x} >> (4 * {j})) & 7u] | (unsigned)porter_check_f16[({y} >> (4 * {j})) & 7u] << 16",
    "bf16": lambda x, y, j: f"(unsigned)porter_check_bf16[({x} >> (4 * {j})) & 7u] | (unsigned)porter_check_bf16[({y} >> (4 * {j})) & 7u] << 16",
    "tf32": lambda x, y, j: f"porter_check_tf32[({x} >> (4 * {j})) & 7u]",
    "s8": lambda x, y, j: f"({x} >> {j}) ^ ({y} << {j})",
    "u8": lambda x, y, j: f"({x} >> {j}) ^ ({y} << {j})",
}
_ACC = {"f32": "float", "f16": "unsigned", "s32": "int"}
_C_VALUE = {"f32": "(float)((int)((i.c >> (5 * j)) & 31u) - 16)",
            "f16": "(unsigned)porter_check_f16[(i.c >> (3 * j)) & 7u] | (unsigned)porter_check_f16[(i.c >> (3 * j + 12)) & 7u] << 16",
            "s32": "(j & 1) && (i.b & 1u) ? (int)(0x7ffff000u ^ (i.c & 0x80000000u)) : (int)i.c >> 9"}


# the PTX ISA's register counts, written here apart from porter's table (porter/data/ptx.toml) that they check:
# a lane holds K/2 elements of A and K/4 of B, packed into 32-bit registers; a 16x8 tile of C in 4 registers, or 2
# of f16 pairs
_BITS = {"f16": 16, "bf16": 16, "tf32": 32, "s8": 8, "u8": 8}


def _operand_registers(k: int, a: str) -> tuple[int, int]:
    return k // 2 * _BITS[a] // 32, k // 4 * _BITS[a] // 32


def _regs(k: int, d: str, a: str, c: str) -> str:
    counts = [2 if d == "f16" else 4, *_operand_registers(k, a), 2 if c == "f16" else 4]
    out, n = [], 0
    for count in counts:
        out.append("{" + ", ".join(f"%{n + j}" for j in range(count)) + "}")
        n += count
    return ", ".join(out) + ";"


def _outs(d: str) -> str:
    return ", ".join(f'"={"f" if d == "f32" else "r"}"(rd[{j}])' for j in range(2 if d == "f16" else 4))


def _ins(k: int, a: str, c: str) -> str:
    a_regs, b_regs = _operand_registers(k, a)
    regs = [f'"r"(ra[{j}])' for j in range(a_regs)] + [f'"r"(rb[{j}])' for j in range(b_regs)]
    return ", ".join(regs + [f'"{"f" if c == "f32" else "r"}"(rc[{j}])' for j in range(2 if c == "f16" else 4)])


def _mma_out(d: str) -> str:
    if d == "f32":
        return ("o.x = __float_as_uint(rd[0]) | (unsigned long long)__float_as_uint(rd[1]) << 32; "
                "o.u = __float_as_uint(rd[2]) ^ __float_as_uint(rd[3]) * 0x9e3779b1u;")
    if d == "f16":
        return "o.x = rd[0] | (unsigned long long)rd[1] << 32; o.u = 0u;"
    return "o.x = (unsigned)rd[0] | (unsigned long long)(unsigned)rd[1] << 32; o.u = (unsigned)rd[2] ^ (unsigned)rd[3] * 0x9e3779b1u;"


# (name, body): the body reads In i (a, b, c, d: 32-bit; x, y: 64-bit; f, g, h: float; p, q, r: double;
# buf: a per-thread float4 slot, ubuf: per-thread 4 unsigned, gbuf: per-thread 2 u64) and sets Out o
CASES: list[tuple[str, str]] = [
    ("prmt", 'unsigned r; asm("prmt.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(i.a), "r"(i.b), "r"(i.c)); o.u = r;'),
    *[(f"lop3_{lut:02x}", f'unsigned r; asm("lop3.b32 %0, %1, %2, %3, 0x{lut:02x};" : "=r"(r) : "r"(i.a), "r"(i.b), "r"(i.c)); o.u = r;')
      for lut in (0x00, 0x01, 0x1E, 0x6A, 0x80, 0x96, 0xB4, 0xCA, 0xE8, 0xF8, 0xFE, 0xFF)],
    ("bfe_u32", 'unsigned r; asm("bfe.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(i.a), "r"(i.b), "r"(i.c)); o.u = r;'),
    ("bfe_s32", 'int r; asm("bfe.s32 %0, %1, %2, %3;" : "=r"(r) : "r"((int)i.a), "r"(i.b), "r"(i.c)); o.u = (unsigned)r;'),
    ("bfe_u64", 'unsigned long long r; asm("bfe.u64 %0, %1, %2, %3;" : "=l"(r) : "l"(i.x), "r"(i.b), "r"(i.c)); o.x = r;'),
    ("bfe_s64", 'long long r; asm("bfe.s64 %0, %1, %2, %3;" : "=l"(r) : "l"((long long)i.x), "r"(i.b), "r"(i.c)); o.x = (unsigned long long)r;'),
    ("bfi_b32", 'unsigned r; asm("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(r) : "r"(i.a), "r"(i.d), "r"(i.b), "r"(i.c)); o.u = r;'),
    ("bfi_b64", 'unsigned long long r; asm("bfi.b64 %0, %1, %2, %3, %4;" : "=l"(r) : "l"(i.x), "l"(i.y), "r"(i.b), "r"(i.c)); o.x = r;'),
    ("brev_b32", 'unsigned r; asm("brev.b32 %0, %1;" : "=r"(r) : "r"(i.a)); o.u = r;'),
    ("brev_b64", 'unsigned long long r; asm("brev.b64 %0, %1;" : "=l"(r) : "l"(i.x)); o.x = r;'),
    ("popc_b32", 'unsigned r; asm("popc.b32 %0, %1;" : "=r"(r) : "r"(i.a)); o.u = r;'),
    ("popc_b64", 'unsigned r; asm("popc.b64 %0, %1;" : "=r"(r) : "l"(i.x)); o.u = r;'),
    ("clz_b32", 'unsigned r; asm("clz.b32 %0, %1;" : "=r"(r) : "r"(i.a & i.d)); o.u = r;'),
    ("clz_b64", 'unsigned r; asm("clz.b64 %0, %1;" : "=r"(r) : "l"(i.x & i.y)); o.u = r;'),
    ("shf_l_wrap", 'unsigned r; asm("shf.l.wrap.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(i.a), "r"(i.d), "r"(i.c)); o.u = r;'),
    ("shf_l_clamp", 'unsigned r; asm("shf.l.clamp.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(i.a), "r"(i.d), "r"(i.c)); o.u = r;'),
    ("shf_r_wrap", 'unsigned r; asm("shf.r.wrap.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(i.a), "r"(i.d), "r"(i.c)); o.u = r;'),
    ("shf_r_clamp", 'unsigned r; asm("shf.r.clamp.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(i.a), "r"(i.d), "r"(i.c)); o.u = r;'),
    ("mul_hi_u32", 'unsigned r; asm("mul.hi.u32 %0, %1, %2;" : "=r"(r) : "r"(i.a), "r"(i.d)); o.u = r;'),
    ("mul_hi_s32", 'int r; asm("mul.hi.s32 %0, %1, %2;" : "=r"(r) : "r"((int)i.a), "r"((int)i.d)); o.u = (unsigned)r;'),
    ("mul_hi_u64", 'unsigned long long r; asm("mul.hi.u64 %0, %1, %2;" : "=l"(r) : "l"(i.x), "l"(i.y)); o.x = r;'),
    ("mul_hi_s64", 'long long r; asm("mul.hi.s64 %0, %1, %2;" : "=l"(r) : "l"((long long)i.x), "l"((long long)i.y)); o.x = (unsigned long long)r;'),
    ("mul_wide_u32", 'unsigned long long r; asm("mul.wide.u32 %0, %1, %2;" : "=l"(r) : "r"(i.a), "r"(i.d)); o.x = r;'),
    ("mul_wide_s32", 'long long r; asm("mul.wide.s32 %0, %1, %2;" : "=l"(r) : "r"((int)i.a), "r"((int)i.d)); o.x = (unsigned long long)r;'),
    ("mad_lo_s32", 'int r; asm("mad.lo.s32 %0, %1, %2, %3;" : "=r"(r) : "r"((int)i.a), "r"((int)i.d), "r"((int)i.b)); o.u = (unsigned)r;'),
    ("sub_s32", 'int r; asm("sub.s32 %0, %1, %2;" : "=r"(r) : "r"((int)i.a), "r"((int)i.d)); o.u = (unsigned)r;'),
    ("add_u64", 'unsigned long long r; asm("add.u64 %0, %1, %2;" : "=l"(r) : "l"(i.x), "l"(i.y)); o.x = r;'),
    ("not_b32", 'unsigned r; asm("not.b32 %0, %1;" : "=r"(r) : "r"(i.a)); o.u = r;'),
    ("min_u32", 'unsigned r; asm("min.u32 %0, %1, %2;" : "=r"(r) : "r"(i.a), "r"(i.d)); o.u = r;'),
    ("max_u64", 'unsigned long long r; asm("max.u64 %0, %1, %2;" : "=l"(r) : "l"(i.x), "l"(i.y)); o.x = r;'),
    ("fma_rn_f32", 'float r; asm("fma.rn.f32 %0, %1, %2, %3;" : "=f"(r) : "f"(i.f), "f"(i.g), "f"(i.h)); o.u = __float_as_uint(r);'),
    ("fma_rn_f32_imm", 'float r; asm("fma.rn.f32 %0, %1, %2, 0f3F800000;" : "=f"(r) : "f"(i.f), "f"(i.g)); o.u = __float_as_uint(r);'),
    ("fma_rn_f64", 'double r; asm("fma.rn.f64 %0, %1, %2, %3;" : "=d"(r) : "d"(i.p), "d"(i.q), "d"(i.r)); o.x = (unsigned long long)__double_as_longlong(r);'),
    ("add_f32", 'float r; asm("add.f32 %0, %1, %2;" : "=f"(r) : "f"(i.f), "f"(i.g)); o.u = __float_as_uint(r);'),
    ("mul_f32", 'float r; asm("mul.f32 %0, %1, %2;" : "=f"(r) : "f"(i.f), "f"(i.g)); o.u = __float_as_uint(r);'),
    ("mov_b32_to_f", 'float r; asm("mov.b32 %0, %1;" : "=f"(r) : "r"(i.a)); o.u = __float_as_uint(r);'),
    ("mov_b32_from_f", 'unsigned r; asm("mov.b32 %0, %1;" : "=r"(r) : "f"(i.f)); o.u = r;'),
    ("mov_pack_b32", 'unsigned r; unsigned short lo = (unsigned short)i.a, hi = (unsigned short)i.d; asm("mov.b32 %0, {%1, %2};" : "=r"(r) : "h"(lo), "h"(hi)); o.u = r;'),
    ("mov_unpack_b32", 'unsigned short lo, hi; asm("mov.b32 {%0, %1}, %2;" : "=h"(lo), "=h"(hi) : "r"(i.a)); o.u = lo | ((unsigned)hi << 16) ^ 0x5a5a0000u;'),
    ("mov_unpack_b64", 'unsigned lo, hi; asm("mov.b64 {%0, %1}, %2;" : "=r"(lo), "=r"(hi) : "l"(i.x)); o.x = ((unsigned long long)lo << 32) | hi;'),
    ("mov_pack_b64", 'unsigned long long r; asm("mov.b64 %0, {%1, %2};" : "=l"(r) : "r"(i.a), "r"(i.d)); o.x = r;'),
    ("ld_nc_v4_f32", 'float4 v; asm volatile("ld.global.nc.v4.f32 {%0, %1, %2, %3}, [%4];" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(i.buf)); o.u = __float_as_uint(v.x) ^ __float_as_uint(v.y) * 3u ^ __float_as_uint(v.z) * 5u ^ __float_as_uint(v.w) * 7u;'),
    ("ld_b32_as_f", 'float v; asm volatile("ld.global.nc.b32 %0, [%1+8];" : "=f"(v) : "l"(i.buf)); o.u = __float_as_uint(v);'),
    ("ld_u64_offset", 'unsigned long long v; asm volatile("ld.global.L1::no_allocate.u64 %0, [%1+8];" : "=l"(v) : "l"(i.gbuf)); o.x = v;'),
    ("st_v4_b32", 'asm volatile("st.global.v4.b32 [%0], {%1, %2, %3, %4};" :: "l"(i.ubuf), "r"(i.a), "r"(i.b), "r"(i.c), "r"(i.d) : "memory"); o.u = i.ubuf[0] ^ i.ubuf[1] * 3u ^ i.ubuf[2] * 5u ^ i.ubuf[3] * 7u;'),
    ("st_cs_f32", 'asm volatile("st.global.cs.f32 [%0+4], %1;" :: "l"(i.buf), "f"(i.f) : "memory"); o.u = __float_as_uint(((float*)i.buf)[1]);'),
    ("red_add_f32", 'asm volatile("red.global.add.f32 [%0], %1;" :: "l"(i.buf), "f"(i.g) : "memory"); o.u = __float_as_uint(((float*)i.buf)[0]);'),
    ("red_cta_max_u32", 'asm volatile("red.global.cta.max.u32 [%0], %1;" :: "l"(i.ubuf), "r"(i.a) : "memory"); o.u = i.ubuf[0];'),
    ("atom_add_u64", 'unsigned long long old; asm volatile("atom.global.add.u64 %0, [%1], %2;" : "=l"(old) : "l"(i.gbuf), "l"(i.y)); o.x = old ^ i.gbuf[0];'),
    ("atom_cas_b32", 'unsigned old; asm volatile("atom.global.cas.b32 %0, [%1], %2, %3;" : "=r"(old) : "l"(i.ubuf + 1), "r"(i.a & 1u ? i.ubuf[1] : i.b), "r"(i.c)); o.u = old ^ i.ubuf[1] * 3u;'),
    ("atom_exch_b32", 'unsigned old; asm volatile("atom.global.exch.b32 %0, [%1], %2;" : "=r"(old) : "l"(i.ubuf + 2), "r"(i.d)); o.u = old ^ i.ubuf[2] * 3u;'),
    ("multi_lop3_prmt", 'unsigned r; asm("lop3.b32 %0, %1, %2, %3, 0x96;\\n\\t" "prmt.b32 %0, %0, %2, 0x5410;" : "=r"(r) : "r"(i.a), "r"(i.b), "r"(i.c)); o.u = r;'),
    ("bfind_u32", 'unsigned r; asm("bfind.u32 %0, %1;" : "=r"(r) : "r"(i.a >> (i.b & 31u))); o.u = r;'),
    ("bfind_s32", 'unsigned r; asm("bfind.s32 %0, %1;" : "=r"(r) : "r"((int)i.a >> (i.b & 31u))); o.u = r;'),
    ("bfind_u64", 'unsigned r; asm("bfind.u64 %0, %1;" : "=r"(r) : "l"(i.x >> (i.b & 63u))); o.u = r;'),
    ("bfind_s64", 'unsigned r; asm("bfind.s64 %0, %1;" : "=r"(r) : "l"((long long)i.x >> (i.b & 63u))); o.u = r;'),
    ("cvt_u32_u64", 'unsigned r; asm("cvt.u32.u64 %0, %1;" : "=r"(r) : "l"(i.x)); o.u = r;'),
    ("cvt_s64_s32", 'long long r; asm("cvt.s64.s32 %0, %1;" : "=l"(r) : "r"(i.a)); o.x = (unsigned long long)r;'),
    ("ld_cg_u32", 'unsigned v; asm volatile("ld.global.cg.u32 %0, [%1+4];" : "=r"(v) : "l"(i.ubuf)); o.u = v;'),
    ("ld_cv_v2_u32", 'unsigned v0, v1; asm volatile("ld.global.cv.v2.u32 {%0, %1}, [%2];" : "=r"(v0), "=r"(v1) : "l"(i.ubuf + 2)); o.x = ((unsigned long long)v0 << 32) | v1;'),
    # shuffles: every lane of the warp runs the same case, so both forms read the same neighbours. porter's rewrite
    # inverts CUDA 13's definitions (sm_30_intrinsics.hpp: __shfl_xor_sync(mask, v, m, width) is shfl.sync.bfly with
    # c = ((32 - width) << 8) | 0x1f)
    ("shfl_sync_bfly", 'unsigned r; asm volatile("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(r) : "r"(i.a), "r"(i.b & 31u)); o.u = r;'),
    ("shfl_sync_bfly_w8", 'unsigned r; asm volatile("shfl.sync.bfly.b32 %0, %1, %2, 0x181f, 0xffffffff;" : "=r"(r) : "r"(i.a), "r"(i.b & 7u)); o.u = r;'),
    ("shfl_sync_down_f", 'float r; asm volatile("shfl.sync.down.b32 %0, %1, %2, 0x101f, 0xffffffff;" : "=f"(r) : "f"(i.f), "r"(i.b % 20u)); o.u = __float_as_uint(r);'),
    ("shfl_sync_up", 'unsigned r; asm volatile("shfl.sync.up.b32 %0, %1, %2, 0x0, 0xffffffff;" : "=r"(r) : "r"(i.a), "r"(i.b % 40u)); o.u = r;'),
    ("shfl_sync_idx", 'unsigned r; asm volatile("shfl.sync.idx.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(r) : "r"(i.a), "r"(i.b)); o.u = r;'),
    ("shfl_sync_idx_w4", 'unsigned r; asm volatile("shfl.sync.idx.b32 %0, %1, %2, 0x1c1f, 0xffffffff;" : "=r"(r) : "r"(i.a), "r"(i.b)); o.u = r;'),
    # tensor-core kernels' PTX (porter_ptx_warp.h). cp.async copies into this thread's slot of a block-wide buffer;
    # ldmatrix and mma.sync are warp-wide: every lane of the warp runs the case, each with its own operands, so the
    # warp exchanges them as the PTX ISA lays them out. mma operands are small integers (exact in every type, the
    # results bit for bit), the 8-bit ones any bytes
    *[(f"cp_async_{q}_{n}{'_zfill' if z else ''}",
       'uint4* s_cp = porter_check_smem; s_cp[threadIdx.x] = make_uint4(0x5a5a5a5au, 0xa5a5a5a5u, 0x3c3c3c3cu, 0xc3c3c3c3u); '
       'unsigned addr = (unsigned)__cvta_generic_to_shared(&s_cp[threadIdx.x]); '
       + (f'asm volatile("cp.async.{q}.shared.global [%0], [%1], {n}, %2;" :: "r"(addr), "l"(i.ubuf), "r"(i.b % {n + 1}u) : "memory"); '
          if z else f'asm volatile("cp.async.{q}.shared.global{h} [%0], [%1], {n};" :: "r"(addr), "l"(i.ubuf) : "memory"); ')
       + 'asm volatile("cp.async.commit_group;" ::: "memory"); asm volatile("cp.async.wait_group 0;" ::: "memory"); '
       'const uint4 v = s_cp[threadIdx.x]; o.x = v.x | (unsigned long long)v.y << 32; o.u = v.z ^ v.w * 3u;')
      for q, n, h, z in (("cg", 16, ".L2::128B", False), ("ca", 16, "", False), ("ca", 8, "", False),
                         ("ca", 4, ".L2::64B", False), ("cg", 16, "", True), ("ca", 8, "", True))],
    *[(f"ldmatrix_x{n}{'_trans' if t else ''}",
       'unsigned short (*s_ld)[4][8][8] = (unsigned short (*)[4][8][8])porter_check_smem; const unsigned w = (threadIdx.x >> 5) & 7u, l = threadIdx.x & 31u; '
       'for (int k = 0; k < 8; ++k) s_ld[w][l >> 3][l & 7u][k] = (unsigned short)((i.a >> k) ^ (i.d << k) ^ (k * 0x9e37u)); '
       '__syncthreads(); unsigned addr = (unsigned)__cvta_generic_to_shared(&s_ld[w][((l >> 3) + i.c) & 3u][i.b & 7u][0]); '
       f'unsigned r[4] = {{0u, 0u, 0u, 0u}}; asm volatile("ldmatrix.sync.aligned.m8n8.x{n}{".trans" if t else ""}.shared.b16 '
       '{' + ", ".join(f"%{k}" for k in range(n)) + f'}}, [%{n}];" : '
       + ", ".join(f'"=r"(r[{k}])' for k in range(n)) + ' : "r"(addr)); __syncthreads(); '
       'o.x = r[0] | (unsigned long long)r[1] << 32; o.u = r[2] ^ r[3] * 0x9e3779b1u;')
      for n in (1, 2, 4) for t in (False, True)],
    *[(f"mma_m16n8k{k}_{d}_{a}{'_' + a2 if a2 else ''}_{c}{'_satfinite' if sat else ''}",
       f"unsigned ra[4], rb[2]; {_ACC[c]} rc[4]; {_ACC[d]} rd[4]; "
       f"for (int j = 0; j < 4; ++j) {{ ra[j] = {_ELEMENTS[a]('i.a', 'i.d', 'j')}; rc[j] = {_C_VALUE[c]}; }} "
       f"for (int j = 0; j < 2; ++j) rb[j] = {_ELEMENTS[a]('i.b', 'i.c', 'j')}; "
       f'asm volatile("mma.sync.aligned.m16n8k{k}.row.col{".satfinite" if sat else ""}.{d}.{a}.{a2 or a}.{c} '
       + _regs(k, d, a, c) + f'" : {_outs(d)} : {_ins(k, a, c)}); '
       + _mma_out(d))
      for k, d, a, a2, c, sat in (
          (16, "f32", "f16", "", "f32", False), (16, "f16", "f16", "", "f16", False),
          (16, "f32", "bf16", "", "f32", False), (8, "f32", "f16", "", "f32", False),
          (8, "f16", "f16", "", "f16", False), (8, "f32", "bf16", "", "f32", False),
          (8, "f32", "tf32", "", "f32", False), (32, "s32", "s8", "", "s32", False),
          (32, "s32", "u8", "", "s32", False), (32, "s32", "s8", "u8", "s32", False),
          (16, "s32", "s8", "", "s32", False), (32, "s32", "s8", "", "s32", True))],
    # blocks with local registers and predicates (CUTLASS's cast_smem_ptr_to_uint and guarded copies)
    ("reg_cvta_shared", 'unsigned r; asm volatile("{ .reg .u64 smem_ptr; cvta.to.shared.u64 smem_ptr, %1; '
     'cvt.u32.u64 %0, smem_ptr; }" : "=r"(r) : "l"(porter_check_smem + (threadIdx.x & 255u))); '
     'o.u = r - (unsigned)__cvta_generic_to_shared(porter_check_smem);'),
    ("reg_pred_cp_async", 'uint4* s_cp = porter_check_smem; s_cp[threadIdx.x] = make_uint4(1u, 2u, 3u, 4u); '
     'unsigned addr = (unsigned)__cvta_generic_to_shared(&s_cp[threadIdx.x]); asm volatile("{ .reg .pred p; '
     'setp.ne.b32 p, %0, 0; @p cp.async.ca.shared.global [%1], [%2], 16; }" :: "r"((int)(i.a & 1u)), "r"(addr), '
     '"l"(i.ubuf) : "memory"); asm volatile("cp.async.wait_all;" ::: "memory"); const uint4 v = s_cp[threadIdx.x]; '
     'o.x = v.x | (unsigned long long)v.y << 32; o.u = v.z ^ v.w * 3u;'),
    ("reg_selp_s32", 'unsigned r; asm("{.reg .pred p; setp.lt.s32 p, %1, %2; selp.b32 %0, %3, %4, p;}" : "=r"(r) : '
     '"r"(i.a), "r"(i.b), "r"(i.c), "r"(i.d)); o.u = r;'),
    ("reg_setp_f32", 'unsigned r; asm("{.reg .pred p; setp.ge.f32 p, %1, %2; selp.u32 %0, 1, 0, p;}" : "=r"(r) : '
     '"f"(i.f), "f"(i.g)); o.u = r;'),
    # shared-memory accesses by shared-window address (32-bit from __cvta_generic_to_shared, or 64-bit)
    ("ld_shared_u32", 'unsigned* s = (unsigned*)porter_check_smem; s[threadIdx.x] = i.a; __syncthreads(); unsigned r; '
     'asm volatile("ld.shared.u32 %0, [%1];" : "=r"(r) : "r"((unsigned)__cvta_generic_to_shared(s + (threadIdx.x ^ 1u)))); '
     '__syncthreads(); o.u = r;'),
    ("st_shared_v4_b32", 'uint4* s = porter_check_smem; asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};" :: '
     '"r"((unsigned)__cvta_generic_to_shared(s + threadIdx.x)), "r"(i.a), "r"(i.b), "r"(i.c), "r"(i.d) : "memory"); '
     'const uint4 v = s[threadIdx.x]; o.x = v.x | (unsigned long long)v.y << 32; o.u = v.z ^ v.w * 3u;'),
    ("ld_shared_v2_u64_offset", 'uint4* s = porter_check_smem; s[threadIdx.x] = make_uint4(i.a, i.b, i.c, i.d); '
     'unsigned lo, hi; asm volatile("ld.shared.v2.u32 {%0, %1}, [%2+8];" : "=r"(lo), "=r"(hi) : '
     '"l"((unsigned long long)__cvta_generic_to_shared(s + threadIdx.x))); o.x = lo | (unsigned long long)hi << 32;'),
    ("reg_b16_swap", 'unsigned r; asm("{.reg .b16 lo, hi; mov.b32 {lo, hi}, %1; mov.b32 %0, {hi, lo};}" : "=r"(r) : '
     '"r"(i.a)); o.u = r;'),
]
# approximations: rewritten to HIP's accurate functions; the check prints the largest difference in ulps
APPROX: list[tuple[str, str]] = [
    ("ex2_approx", 'float r; asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(i.f)); o.u = __float_as_uint(r);'),
    ("rcp_approx", 'float r; asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(i.f)); o.u = __float_as_uint(r);'),
    ("rsqrt_approx", 'float r; asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(fabsf(i.f))); o.u = __float_as_uint(r);'),
    ("tanh_approx", 'float r; asm("tanh.approx.f32 %0, %1;" : "=f"(r) : "f"(i.f)); o.u = __float_as_uint(r);'),
]

PRELUDE = """struct In { unsigned a, b, c, d; unsigned long long x, y; float f, g, h; double p, q, r;
  float4* buf; unsigned* ubuf; unsigned long long* gbuf; };
struct Out { unsigned u; unsigned long long x; };
// -3..4 as f16, bf16 and tf32 (float) bits: mma operands whose every product and sum is exact
__shared__ uint4 porter_check_smem[256];  // the cp.async and ldmatrix cases' block-wide buffer
__device__ const unsigned short porter_check_f16[8] = {0xC200, 0xC000, 0xBC00, 0x0000, 0x3C00, 0x4000, 0x4200, 0x4400};
__device__ const unsigned short porter_check_bf16[8] = {0xC040, 0xC000, 0xBF80, 0x0000, 0x3F80, 0x4000, 0x4040, 0x4080};
__device__ const unsigned porter_check_tf32[8] = {0xC0400000u, 0xC0000000u, 0xBF800000u, 0u, 0x3F800000u, 0x40000000u,
                                                  0x40400000u, 0x40800000u};
"""


def functions(prefix: str, cases: list[tuple[str, str]]) -> str:
    return "".join(f"__device__ __noinline__ void {prefix}_{name}(const In& i, Out& o) {{ {body} }}\n"
                   for name, body in cases)


def generate() -> str:
    """check.cu's text for today's translator."""
    here = Path(__file__).parent
    all_cases = CASES + APPROX
    original = functions("cuda", all_cases)
    ported = translate(("#include <cuda_runtime.h>\n" + PRELUDE + original).encode(),
                       TranslateOptions(target="gfx942"))
    text = ported.output.decode()
    left = [u for u in ported.unconverted if u.name == "asm"]
    if left:
        raise SystemExit(f"porter left {len(left)} asm statement(s) untranslated: {left[0].detail}")
    if re.search(r"\basm\b", text):
        raise SystemExit("porter's output still holds asm")
    text = text.split(PRELUDE, 1)[1].replace("__device__ __noinline__ void cuda_", "__device__ __noinline__ void hip_")
    names = [n for n, _ in all_cases]
    check = ((here / "check_main.cu.in").read_text()
             .replace("@CUDA_FNS@", ", ".join(f"cuda_{n}" for n in names))
             .replace("@HIP_FNS@", ", ".join(f"hip_{n}" for n in names))
             .replace("@INFOS@", ",\n".join(f'  {{"{n}", {int(k)}}}' for k, group in ((0, CASES), (1, APPROX))
                                            for n, _ in group)))
    return (
        "// generated by make_check.py: the cases as CUDA writes them (cuda_*) and as porter ports them (hip_*)\n"
        "#include <hip/hip_runtime.h>  // gpu_compare/compat: HIP names over CUDA\n#include \"porter_ptx.h\"\n"
        "#include \"porter_ptx_warp.h\"\n"
        "#include <cstdio>\n#include <cstring>\n#include <cmath>\n" + PRELUDE + "// ---- as written\n" + original
        + "// ---- as porter ports them\n" + text + check)


def main() -> None:
    target = Path(__file__).parent / "check.cu"
    target.write_text(generate())
    print(f"wrote {target}: {len(CASES) + len(APPROX)} cases")


if __name__ == "__main__":
    main()
