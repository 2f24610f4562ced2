// porter shim: the PTX bit instructions porter rewrites inline assembly to (porter/data/ptx.toml), as plain C++.
//
// Each function computes what the PTX instruction of the same name does, edge cases included, as the PTX ISA
// describes it: prmt's sign-replicate selectors, bfe's and bfi's fields (a field reaching past the top bit stops
// there; bfe.s* fills with the field's top bit), lop3's truth table, and where the H200 departs from the ISA's
// text (bfe.u64/.s64 and bfi.b64 read the whole 32-bit position and length), what the H200 does.
// They were run against the PTX instructions themselves on an NVIDIA H200 over random and edge-case operands
// (scripts/ptx_reference/): identical. HIP's __byte_perm reads 3 bits per selector, so prmt gets its own.
// How this differs from CUDA: in nothing the H200 showed; these are functions where CUDA has single instructions,
// and constant operands (a lop3 table, a bfe position) fold to a few AMD instructions.
#ifndef PORTER_PTX_H
#define PORTER_PTX_H

#include <hip/hip_runtime.h>

#if defined(__HIP__) || defined(__CUDACC__)
#define PORTER_PTX_FN __host__ __device__ inline
#else
#define PORTER_PTX_FN inline
#endif

// prmt.b32 d, a, b, c (default mode): byte n of d is byte (c >> 4n) & 7 of {b, a} (a = bytes 0-3, b = 4-7), or,
// where bit 3 of that selector is set, that byte's sign bit replicated
PORTER_PTX_FN unsigned porter_prmt(unsigned a, unsigned b, unsigned c) {
    const unsigned long long bytes = (static_cast<unsigned long long>(b) << 32) | a;
    unsigned d = 0;
    for (int n = 0; n < 4; ++n) {
        const unsigned sel = (c >> (4 * n)) & 0xfu;
        unsigned byte = static_cast<unsigned>(bytes >> (8 * (sel & 7u))) & 0xffu;
        if (sel & 8u) byte = (byte & 0x80u) ? 0xffu : 0u;
        d |= byte << (8 * n);
    }
    return d;
}

// lop3.b32 d, a, b, c, lut: bit i of d is bit (a_i << 2 | b_i << 1 | c_i) of lut
PORTER_PTX_FN unsigned porter_lop3(unsigned a, unsigned b, unsigned c, unsigned lut) {
    unsigned d = 0;
    for (unsigned k = 0; k < 8; ++k)
        if ((lut >> k) & 1u) d |= ((k & 4u) ? a : ~a) & ((k & 2u) ? b : ~b) & ((k & 1u) ? c : ~c);
    return d;
}

// bfe: the len-bit field of a at pos; a field past the top bit stops there; len 0 gives 0; the signed forms
// fill the bits above the field with its top bit (the operand's top bit where the field reaches past it).
// bfe.u32/.s32 take pos and len from their operands' low 8 bits, as the PTX ISA says. The H200 runs bfe.u64/.s64
// (and bfi.b64) on the whole 32-bit pos and len instead (scripts/ptx_reference/bfe64_dump.cu): a pos of 0x117
// is past the top bit, not 0x17
PORTER_PTX_FN unsigned porter_bfe_u32(unsigned a, unsigned b, unsigned c) {
    const unsigned pos = b & 0xffu, len = c & 0xffu;
    if (len == 0 || pos > 31) return 0;
    const unsigned field = a >> pos;
    return len >= 32 ? field : field & ((1u << len) - 1u);
}
PORTER_PTX_FN int porter_bfe_s32(int a, unsigned b, unsigned c) {
    const unsigned pos = b & 0xffu, len = c & 0xffu;
    if (len == 0) return 0;
    const unsigned field = static_cast<unsigned>(a >> (pos > 31 ? 31 : pos));  // arithmetic: fills with the sign
    if (len >= 32) return static_cast<int>(field);
    const unsigned mask = (1u << len) - 1u, v = field & mask;
    // the field's top bit, or the operand's where the field reaches past bit 31 (then field holds its copies)
    return static_cast<int>(((v >> (len - 1)) & 1u) ? v | ~mask : v);
}
PORTER_PTX_FN unsigned long long porter_bfe_u64(unsigned long long a, unsigned pos, unsigned len) {
    const unsigned long long field = pos > 63 ? 0ull : a >> pos;
    return len >= 64 ? field : field & ((1ull << len) - 1ull);
}
PORTER_PTX_FN long long porter_bfe_s64(long long a, unsigned pos, unsigned len) {
    if (len == 0) return 0;
    const unsigned long long field = static_cast<unsigned long long>(a >> (pos > 63 ? 63 : pos));
    if (len >= 64) return static_cast<long long>(field);
    const unsigned long long mask = (1ull << len) - 1ull, v = field & mask;
    return static_cast<long long>(((v >> (len - 1)) & 1ull) ? v | ~mask : v);
}

// bfi: b with its len-bit field at pos replaced by the low bits of a; bits past the top bit are not written
PORTER_PTX_FN unsigned porter_bfi_b32(unsigned a, unsigned b, unsigned c, unsigned d) {
    const unsigned pos = c & 0xffu, len = d & 0xffu;
    if (len == 0 || pos > 31) return b;
    const unsigned mask = (len >= 32 ? ~0u : (1u << len) - 1u) << pos;
    return (b & ~mask) | ((a << pos) & mask);
}
PORTER_PTX_FN unsigned long long porter_bfi_b64(unsigned long long a, unsigned long long b, unsigned pos, unsigned len) {
    if (len == 0 || pos > 63) return b;
    const unsigned long long mask = (len >= 64 ? ~0ull : (1ull << len) - 1ull) << pos;
    return (b & ~mask) | ((a << pos) & mask);
}

// bfind: the position of the most significant set bit (for signed operands, of the most significant bit that
// differs from the sign), 0xffffffff where there is none
PORTER_PTX_FN unsigned porter_bfind_u64(unsigned long long a) {
    if (a == 0) return 0xffffffffu;
    unsigned pos = 0;
    for (unsigned step = 32; step != 0; step /= 2)  // halve the range the top bit lies in
        if (a >> step) a >>= step, pos += step;
    return pos;
}
PORTER_PTX_FN unsigned porter_bfind_u32(unsigned a) { return porter_bfind_u64(a); }
PORTER_PTX_FN unsigned porter_bfind_s32(int a) { return porter_bfind_u64(static_cast<unsigned>(a < 0 ? ~a : a)); }
PORTER_PTX_FN unsigned porter_bfind_s64(long long a) {
    return porter_bfind_u64(static_cast<unsigned long long>(a < 0 ? ~a : a));
}

#undef PORTER_PTX_FN
#endif  // PORTER_PTX_H
