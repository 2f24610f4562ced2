// porter shim: the PTX that tensor-core kernels write by hand (cp.async, ldmatrix, mma.sync), as HIP code, and
// CUDA's shared-window address conversions (__cvta_generic_to_shared and friends), which HIP lacks. porter rewrites
// the asm statements into calls of these functions (porter/data/ptx.toml, porter/translate/inline_ptx.py).
// How it differs from CUDA:
// - cp.async copies at once: nothing overlaps the copy (its purpose on sm_80), and commit_group / wait_group have
//   nothing left to wait for. Other threads still see the data only after the barrier the kernel already has.
// - ldmatrix and mma.sync are warp-wide: every 32 consecutive lanes (a CUDA warp; half a 64-lane wavefront on
//   CDNA) exchange their registers with shuffles, in the register layouts of the PTX ISA, and mma.sync multiplies
//   on the vector ALUs, not the matrix cores: correct but slow. Products are summed in float (int for 8-bit
//   integers) in k order; tensor cores round differently, so floating-point results agree to rounding only.
//   For speed, port the tiles to rocWMMA or the __builtin_amdgcn_mfma_* builtins.
// - Addresses in the shared window are 32-bit offsets into the block's LDS on AMD (a generic pointer to LDS holds
//   that offset in its low 32 bits).
#ifndef PORTER_PTX_WARP_H
#define PORTER_PTX_WARP_H
#include <cstddef>
#include <cstdint>
#include <type_traits>
#if defined(__HIP_PLATFORM_AMD__) || (defined(__HIPCC__) && !defined(__CUDACC__))
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>

__device__ inline size_t __cvta_generic_to_shared(const void* p) {
    return static_cast<size_t>(reinterpret_cast<uintptr_t>((__attribute__((address_space(3))) const char*)p));
}
__device__ inline void* __cvta_shared_to_generic(size_t a) {
    return (void*)((__attribute__((address_space(3))) char*)(uintptr_t)static_cast<unsigned>(a));
}
__device__ inline size_t __cvta_generic_to_global(const void* p) { return reinterpret_cast<uintptr_t>(p); }
__device__ inline void* __cvta_global_to_generic(size_t a) { return reinterpret_cast<void*>(a); }
#define PORTER_PTX_WARP_SHFL(v, src) __shfl(v, src, 32)
#define PORTER_PTX_WARP_LANE() (static_cast<int>(__lane_id()) & 31)
#else  // CUDA, which has the conversions: lets porter check these functions against the PTX itself
#include <cuda_fp16.h>
#define PORTER_PTX_WARP_SHFL(v, src) __shfl_sync(0xffffffffu, v, src, 32)
#define PORTER_PTX_WARP_LANE() \
    (static_cast<int>(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) & 31)
#endif

// ---- cp.async.{ca,cg}.shared.global [dst], [src], bytes[, src_bytes]: bytes past src_bytes are zero -----------
__device__ inline const char* porter_ptx_global(const void* p) { return static_cast<const char*>(p); }
__device__ inline const char* porter_ptx_global(unsigned long long a) { return reinterpret_cast<const char*>(a); }

template <typename Src>
__device__ inline void porter_cp_async(unsigned long long shared_addr, Src src, unsigned bytes,
                                       unsigned src_bytes = 0xffffffffu) {
    char* dst = static_cast<char*>(__cvta_shared_to_generic(static_cast<size_t>(shared_addr)));
    const char* from = porter_ptx_global(src);
    if (src_bytes >= bytes) {
        if (bytes == 16) *reinterpret_cast<int4*>(dst) = *reinterpret_cast<const int4*>(from);
        else if (bytes == 8) *reinterpret_cast<int2*>(dst) = *reinterpret_cast<const int2*>(from);
        else *reinterpret_cast<int*>(dst) = *reinterpret_cast<const int*>(from);
        return;
    }
    for (unsigned k = 0; k < bytes; ++k) dst[k] = k < src_bytes ? from[k] : 0;
}

// ---- ldmatrix.sync.aligned.m8n8.{x1,x2,x4}[.trans].shared.b16 ----------------------------------------------------
// lanes 8m..8m+7 give the row addresses of matrix m; lane t receives row t/4, columns 2(t%4) and 2(t%4)+1 of it
// (with .trans: column t/4, rows 2(t%4) and 2(t%4)+1), the first in the low half
template <bool Trans>
__device__ inline unsigned porter_ldmatrix_part(unsigned long long addr, int m) {
    const int lane = PORTER_PTX_WARP_LANE();
    const unsigned a = static_cast<unsigned>(addr);
    if (!Trans) {
        const unsigned row = PORTER_PTX_WARP_SHFL(a, 8 * m + lane / 4);
        return *reinterpret_cast<const unsigned*>(static_cast<const char*>(__cvta_shared_to_generic(row)) + 4 * (lane % 4));
    }
    const unsigned r0 = PORTER_PTX_WARP_SHFL(a, 8 * m + 2 * (lane % 4));
    const unsigned r1 = PORTER_PTX_WARP_SHFL(a, 8 * m + 2 * (lane % 4) + 1);
    const unsigned lo = *reinterpret_cast<const unsigned short*>(static_cast<const char*>(__cvta_shared_to_generic(r0)) + 2 * (lane / 4));
    const unsigned hi = *reinterpret_cast<const unsigned short*>(static_cast<const char*>(__cvta_shared_to_generic(r1)) + 2 * (lane / 4));
    return lo | hi << 16;
}

template <bool Trans, int Count>
__device__ inline void porter_ldmatrix(unsigned (&d)[Count], unsigned long long addr) {
#pragma unroll
    for (int m = 0; m < Count; ++m) d[m] = porter_ldmatrix_part<Trans>(addr, m);
}

// ---- mma.sync.aligned.m16n8k{8,16,32}.row.col ---------------------------------------------------------------------
// element types of the operands
struct porter_mma_f16 {};
struct porter_mma_bf16 {};
struct porter_mma_tf32 {};
struct porter_mma_s8 {};
struct porter_mma_u8 {};
struct porter_mma_f32 {};
struct porter_mma_s32 {};

namespace porter_mma_detail {
template <typename T> struct bits { static constexpr int value = 16; };
template <> struct bits<porter_mma_tf32> { static constexpr int value = 32; };
template <> struct bits<porter_mma_s8> { static constexpr int value = 8; };
template <> struct bits<porter_mma_u8> { static constexpr int value = 8; };

template <typename T> struct integral { static constexpr bool value = false; };
template <> struct integral<porter_mma_s8> { static constexpr bool value = true; };
template <> struct integral<porter_mma_u8> { static constexpr bool value = true; };

// element h of a 32-bit register holding elements of type T, as the type products are summed in
__device__ inline float unpack(unsigned r, int h, porter_mma_f16) {
    return __half2float(__ushort_as_half(static_cast<unsigned short>(r >> (16 * h))));
}
__device__ inline float unpack(unsigned r, int h, porter_mma_bf16) { return __uint_as_float((r >> (16 * h)) << 16); }
__device__ inline float unpack(unsigned r, int, porter_mma_tf32) { return __uint_as_float(r & 0xffffe000u); }
__device__ inline int unpack(unsigned r, int h, porter_mma_s8) { return static_cast<signed char>(r >> (8 * h)); }
__device__ inline int unpack(unsigned r, int h, porter_mma_u8) { return static_cast<int>((r >> (8 * h)) & 0xffu); }

// where element e (register e / per_reg, part e % per_reg) of the lane with q = lane % 4 lies along k; A elements
// alternate between row g and row g + 8 (g = lane / 4) register by register
template <typename T, int K>
__device__ constexpr int a_k(int e, int q) {
    return bits<T>::value == 32 ? q + 4 * (e >> 1)                                            // tf32 k8: a0..a3
           : bits<T>::value == 16 ? 2 * q + (e & 1) + 8 * (e >> 2)                            // f16/bf16 k8, k16
                                  : 4 * q + (e & 3) + 16 * (e >> 3);                          // s8/u8 k16, k32
}
template <typename T, int K>
__device__ constexpr int a_row(int e) {  // 0: row g, 1: row g + 8
    return bits<T>::value == 32 ? (e & 1) : bits<T>::value == 16 ? ((e >> 1) & 1) : ((e >> 2) & 1);
}
template <typename T, int K>
__device__ constexpr int b_k(int e, int q) {
    return bits<T>::value == 32 ? q + 4 * e : bits<T>::value == 16 ? 2 * q + (e & 1) + 8 * (e >> 1)
                                                                   : 4 * q + (e & 3) + 16 * (e >> 2);
}

__device__ inline float acc_in(float v, porter_mma_f32) { return v; }
__device__ inline int acc_in(int v, porter_mma_s32) { return v; }
}  // namespace porter_mma_detail

// D = A * B + C for one 16x8 tile per 32 lanes. a, b: the lane's registers as the PTX ISA lays them out; c, d: four
// floats (f32), two f16x2 registers (f16) or four ints (s32): element i at row g + 8*(i/2), column 2q + i%2.
template <int K, typename DT, typename AT, typename BT, typename CT, bool Satfinite, typename D, typename C>
__device__ inline void porter_mma_m16n8(D* d, const unsigned* a, const unsigned* b, const C* c) {
    using namespace porter_mma_detail;
    using Sum = typename std::conditional<integral<AT>::value, int, float>::type;
    constexpr int per_reg_a = 32 / bits<AT>::value, per_reg_b = 32 / bits<BT>::value;
    constexpr int a_regs = K / 2 / per_reg_a, b_regs = K / 4 / per_reg_b;
    const int lane = PORTER_PTX_WARP_LANE(), g = lane >> 2, q = lane & 3;
    Sum rows[2][K], cols[2][K];  // A's rows g and g + 8, B's columns 2q and 2q + 1
#pragma unroll
    for (int qs = 0; qs < 4; ++qs) {
#pragma unroll
        for (int r = 0; r < a_regs; ++r) {
            const unsigned v = PORTER_PTX_WARP_SHFL(a[r], (lane & ~3) | qs);
#pragma unroll
            for (int h = 0; h < per_reg_a; ++h) {
                const int e = r * per_reg_a + h;
                rows[a_row<AT, K>(e)][a_k<AT, K>(e, qs)] = unpack(v, h, AT{});
            }
        }
#pragma unroll
        for (int j = 0; j < 2; ++j) {
#pragma unroll
            for (int r = 0; r < b_regs; ++r) {
                const unsigned v = PORTER_PTX_WARP_SHFL(b[r], 4 * (2 * q + j) + qs);
#pragma unroll
                for (int h = 0; h < per_reg_b; ++h) cols[j][b_k<BT, K>(r * per_reg_b + h, qs)] = unpack(v, h, BT{});
            }
        }
    }
    Sum out[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        Sum s = 0;
#pragma unroll
        for (int k = 0; k < K; ++k) s += rows[i >> 1][k] * cols[i & 1][k];
        out[i] = s;
    }
    if (std::is_same<CT, porter_mma_f16>::value) {  // c: two f16x2 registers
        const unsigned* cr = reinterpret_cast<const unsigned*>(c);
#pragma unroll
        for (int i = 0; i < 4; ++i) out[i] += unpack(cr[i >> 1], i & 1, porter_mma_f16{});
    } else if (std::is_same<CT, porter_mma_s32>::value && Satfinite) {
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            const long long w = static_cast<long long>(out[i]) + static_cast<long long>(c[i]);
            out[i] = static_cast<Sum>(w > 2147483647LL ? 2147483647LL : w < -2147483648LL ? -2147483648LL : w);
        }
    } else {
#pragma unroll
        for (int i = 0; i < 4; ++i) out[i] += static_cast<Sum>(c[i]);
    }
    if (std::is_same<DT, porter_mma_f16>::value) {  // d: two f16x2 registers
        unsigned* dr = reinterpret_cast<unsigned*>(d);
#pragma unroll
        for (int i = 0; i < 2; ++i) {
            const unsigned short lo = __half_as_ushort(__float2half_rn(static_cast<float>(out[2 * i])));
            const unsigned short hi = __half_as_ushort(__float2half_rn(static_cast<float>(out[2 * i + 1])));
            dr[i] = lo | static_cast<unsigned>(hi) << 16;
        }
    } else {
#pragma unroll
        for (int i = 0; i < 4; ++i) d[i] = static_cast<D>(out[i]);
    }
}

#undef PORTER_PTX_WARP_SHFL
#undef PORTER_PTX_WARP_LANE
#endif  // PORTER_PTX_WARP_H
