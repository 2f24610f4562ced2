// porter shim: CUDA's bfloat16 API (cuda_bf16.h) for the port.
// HIP's hip/hip_bf16.h (__hip_bfloat16, the counterpart of cuda_bf16.h) arrives with ROCm 5.7; older HIP has only
// hip/hip_bfloat16.h, a different host-oriented type. Before 5.7 this header defines __hip_bfloat16 and
// __hip_bfloat162 with cuda_bf16.h's functions (shuffles included); from 5.7 it includes HIP's header. In both cases it adds the few
// cuda_bf16.h conversions no HIP up to 6.4 declares (__floats2bfloat162_rn, __float2bfloat162_rn, make_bfloat162,
// the directed roundings), through porter_ names and a macro so a HIP that gains them keeps building.
// How it differs from CUDA: conversions are bit-exact (round to nearest even, NaN becomes the canonical 0x7fff), and
// so are add, subtract, multiply and divide (computed in float and rounded to bfloat16: float's 24 bits make that
// double rounding harmless). __hfma rounds twice (float's fma, then to bfloat16) where CUDA's fma.rn.bf16 rounds
// once: the two differ only when a*b+c lies within 2^-24 of the midpoint between two bfloat16 values. The pre-5.7
// type has no __nv_bfloat16_raw.
#pragma once
#include <hip/hip_runtime.h>

#if defined(__HIP_PLATFORM_AMD__) && HIP_VERSION < 50700000

namespace porter_bf16 {
union bits {
    float f;
    unsigned int u;
};
__host__ __device__ static inline unsigned short from_float_rn(float f) {
    bits b;
    b.f = f;
    if ((b.u & 0x7fffffffu) > 0x7f800000u) return 0x7fff;  // NaN
    b.u += 0x7fffu + ((b.u >> 16) & 1u);
    return static_cast<unsigned short>(b.u >> 16);
}
__host__ __device__ static inline unsigned short from_float_rz(float f) {
    bits b;
    b.f = f;
    if ((b.u & 0x7fffffffu) > 0x7f800000u) return 0x7fff;
    return static_cast<unsigned short>(b.u >> 16);
}
// toward +inf (up = true) or -inf: a value with dropped bits moves away from zero when its sign points that way
__host__ __device__ static inline unsigned short from_float_directed(float f, bool up) {
    bits b;
    b.f = f;
    if ((b.u & 0x7fffffffu) > 0x7f800000u) return 0x7fff;
    unsigned int hi = b.u >> 16;
    const bool negative = (b.u >> 31) != 0;
    if ((b.u & 0xffffu) != 0 && negative != up) hi += 1;
    return static_cast<unsigned short>(hi);
}
__host__ __device__ static inline float to_float(unsigned short h) {
    bits b;
    b.u = static_cast<unsigned int>(h) << 16;
    return b.f;
}
}  // namespace porter_bf16

struct __hip_bfloat16 {
    unsigned short data;
    __hip_bfloat16() = default;
    __host__ __device__ __hip_bfloat16(float f) : data(porter_bf16::from_float_rn(f)) {}
    __host__ __device__ __hip_bfloat16(double d) : data(porter_bf16::from_float_rn(static_cast<float>(d))) {}
    __host__ __device__ __hip_bfloat16(int i) : data(porter_bf16::from_float_rn(static_cast<float>(i))) {}
    __host__ __device__ __hip_bfloat16(unsigned int i) : data(porter_bf16::from_float_rn(static_cast<float>(i))) {}
    __host__ __device__ __hip_bfloat16(long long i) : data(porter_bf16::from_float_rn(static_cast<float>(i))) {}
    __host__ __device__ __hip_bfloat16(unsigned long long i) : data(porter_bf16::from_float_rn(static_cast<float>(i))) {}
    __host__ __device__ operator float() const { return porter_bf16::to_float(data); }
};

struct __hip_bfloat162 {
    __hip_bfloat16 x;
    __hip_bfloat16 y;
    __hip_bfloat162() = default;
    __host__ __device__ __hip_bfloat162(__hip_bfloat16 a, __hip_bfloat16 b) : x(a), y(b) {}
};

// --- conversions -------------------------------------------------------------------------------------------------
__host__ __device__ static inline __hip_bfloat16 porter_bf16_make(unsigned short bits) {
    __hip_bfloat16 r;
    r.data = bits;
    return r;
}
__host__ __device__ static inline __hip_bfloat16 __float2bfloat16(float f) { return porter_bf16_make(porter_bf16::from_float_rn(f)); }
__host__ __device__ static inline __hip_bfloat16 __double2bfloat16(double d) { return __float2bfloat16(static_cast<float>(d)); }
__host__ __device__ static inline float __bfloat162float(__hip_bfloat16 h) { return porter_bf16::to_float(h.data); }
__host__ __device__ static inline float2 __bfloat1622float2(__hip_bfloat162 h) {
    return make_float2(__bfloat162float(h.x), __bfloat162float(h.y));
}
__host__ __device__ static inline __hip_bfloat162 __float22bfloat162_rn(float2 f) {
    return __hip_bfloat162(__float2bfloat16(f.x), __float2bfloat16(f.y));
}
__host__ __device__ static inline __hip_bfloat162 __bfloat162bfloat162(__hip_bfloat16 h) { return __hip_bfloat162(h, h); }
__host__ __device__ static inline __hip_bfloat162 __halves2bfloat162(__hip_bfloat16 a, __hip_bfloat16 b) { return __hip_bfloat162(a, b); }
__host__ __device__ static inline __hip_bfloat16 __low2bfloat16(__hip_bfloat162 h) { return h.x; }
__host__ __device__ static inline __hip_bfloat16 __high2bfloat16(__hip_bfloat162 h) { return h.y; }
__host__ __device__ static inline float __low2float(__hip_bfloat162 h) { return __bfloat162float(h.x); }
__host__ __device__ static inline float __high2float(__hip_bfloat162 h) { return __bfloat162float(h.y); }
__host__ __device__ static inline __hip_bfloat162 __low2bfloat162(__hip_bfloat162 h) { return __hip_bfloat162(h.x, h.x); }
__host__ __device__ static inline __hip_bfloat162 __high2bfloat162(__hip_bfloat162 h) { return __hip_bfloat162(h.y, h.y); }
__host__ __device__ static inline __hip_bfloat162 __lows2bfloat162(__hip_bfloat162 a, __hip_bfloat162 b) { return __hip_bfloat162(a.x, b.x); }
__host__ __device__ static inline __hip_bfloat162 __highs2bfloat162(__hip_bfloat162 a, __hip_bfloat162 b) { return __hip_bfloat162(a.y, b.y); }
__host__ __device__ static inline __hip_bfloat162 __lowhigh2highlow(__hip_bfloat162 h) { return __hip_bfloat162(h.y, h.x); }
__host__ __device__ static inline unsigned short __bfloat16_as_ushort(__hip_bfloat16 h) { return h.data; }
__host__ __device__ static inline short __bfloat16_as_short(__hip_bfloat16 h) { return static_cast<short>(h.data); }
__host__ __device__ static inline __hip_bfloat16 __ushort_as_bfloat16(unsigned short u) { return porter_bf16_make(u); }
__host__ __device__ static inline __hip_bfloat16 __short_as_bfloat16(short s) { return porter_bf16_make(static_cast<unsigned short>(s)); }

// --- arithmetic and comparisons: through float, one rounding to bfloat16 ---------------------------------------
#define PORTER_BF16_BINARY(name, expr)                                                                         \
    __host__ __device__ static inline __hip_bfloat16 name(__hip_bfloat16 a, __hip_bfloat16 b) {                \
        const float x = __bfloat162float(a), y = __bfloat162float(b);                                          \
        return __float2bfloat16(expr);                                                                         \
    }                                                                                                          \
    __host__ __device__ static inline __hip_bfloat162 name##2(__hip_bfloat162 a, __hip_bfloat162 b) {          \
        return __hip_bfloat162(name(a.x, b.x), name(a.y, b.y));                                                \
    }
PORTER_BF16_BINARY(__hadd, x + y)
PORTER_BF16_BINARY(__hsub, x - y)
PORTER_BF16_BINARY(__hmul, x * y)
PORTER_BF16_BINARY(__hmax, (x != x) ? y : ((y != y) ? x : (x > y ? x : y)))
PORTER_BF16_BINARY(__hmin, (x != x) ? y : ((y != y) ? x : (x < y ? x : y)))
#undef PORTER_BF16_BINARY
__host__ __device__ static inline __hip_bfloat16 __hdiv(__hip_bfloat16 a, __hip_bfloat16 b) {
    return __float2bfloat16(__bfloat162float(a) / __bfloat162float(b));
}
__host__ __device__ static inline __hip_bfloat162 __h2div(__hip_bfloat162 a, __hip_bfloat162 b) {
    return __hip_bfloat162(__hdiv(a.x, b.x), __hdiv(a.y, b.y));
}
__host__ __device__ static inline __hip_bfloat16 __hfma(__hip_bfloat16 a, __hip_bfloat16 b, __hip_bfloat16 c) {
    return __float2bfloat16(__builtin_fmaf(__bfloat162float(a), __bfloat162float(b), __bfloat162float(c)));
}
__host__ __device__ static inline __hip_bfloat162 __hfma2(__hip_bfloat162 a, __hip_bfloat162 b, __hip_bfloat162 c) {
    return __hip_bfloat162(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y));
}
__host__ __device__ static inline __hip_bfloat16 __hneg(__hip_bfloat16 a) { return porter_bf16_make(a.data ^ 0x8000u); }
__host__ __device__ static inline __hip_bfloat16 __habs(__hip_bfloat16 a) { return porter_bf16_make(a.data & 0x7fffu); }
__host__ __device__ static inline __hip_bfloat162 __hneg2(__hip_bfloat162 a) { return __hip_bfloat162(__hneg(a.x), __hneg(a.y)); }
__host__ __device__ static inline __hip_bfloat162 __habs2(__hip_bfloat162 a) { return __hip_bfloat162(__habs(a.x), __habs(a.y)); }
__host__ __device__ static inline bool __hisnan(__hip_bfloat16 a) { return (a.data & 0x7fffu) > 0x7f80u; }
__host__ __device__ static inline int __hisinf(__hip_bfloat16 a) {
    return (a.data & 0x7fffu) == 0x7f80u ? ((a.data & 0x8000u) ? -1 : 1) : 0;
}
#define PORTER_BF16_COMPARE(name, op)                                                                          \
    __host__ __device__ static inline bool name(__hip_bfloat16 a, __hip_bfloat16 b) {                          \
        return __bfloat162float(a) op __bfloat162float(b);                                                     \
    }
PORTER_BF16_COMPARE(__heq, ==)
PORTER_BF16_COMPARE(__hne, !=)
PORTER_BF16_COMPARE(__hlt, <)
PORTER_BF16_COMPARE(__hle, <=)
PORTER_BF16_COMPARE(__hgt, >)
PORTER_BF16_COMPARE(__hge, >=)
#undef PORTER_BF16_COMPARE

// operators, as cuda_bf16.hpp defines them for __nv_bfloat16 and __nv_bfloat162
__host__ __device__ static inline __hip_bfloat16 operator+(__hip_bfloat16 a, __hip_bfloat16 b) { return __hadd(a, b); }
__host__ __device__ static inline __hip_bfloat16 operator-(__hip_bfloat16 a, __hip_bfloat16 b) { return __hsub(a, b); }
__host__ __device__ static inline __hip_bfloat16 operator*(__hip_bfloat16 a, __hip_bfloat16 b) { return __hmul(a, b); }
__host__ __device__ static inline __hip_bfloat16 operator/(__hip_bfloat16 a, __hip_bfloat16 b) { return __hdiv(a, b); }
__host__ __device__ static inline __hip_bfloat16& operator+=(__hip_bfloat16& a, __hip_bfloat16 b) { return a = __hadd(a, b); }
__host__ __device__ static inline __hip_bfloat16& operator-=(__hip_bfloat16& a, __hip_bfloat16 b) { return a = __hsub(a, b); }
__host__ __device__ static inline __hip_bfloat16& operator*=(__hip_bfloat16& a, __hip_bfloat16 b) { return a = __hmul(a, b); }
__host__ __device__ static inline __hip_bfloat16& operator/=(__hip_bfloat16& a, __hip_bfloat16 b) { return a = __hdiv(a, b); }
__host__ __device__ static inline __hip_bfloat16 operator-(__hip_bfloat16 a) { return __hneg(a); }
__host__ __device__ static inline __hip_bfloat16 operator+(__hip_bfloat16 a) { return a; }
__host__ __device__ static inline bool operator==(__hip_bfloat16 a, __hip_bfloat16 b) { return __heq(a, b); }
__host__ __device__ static inline bool operator!=(__hip_bfloat16 a, __hip_bfloat16 b) { return __hne(a, b); }
__host__ __device__ static inline bool operator<(__hip_bfloat16 a, __hip_bfloat16 b) { return __hlt(a, b); }
__host__ __device__ static inline bool operator<=(__hip_bfloat16 a, __hip_bfloat16 b) { return __hle(a, b); }
__host__ __device__ static inline bool operator>(__hip_bfloat16 a, __hip_bfloat16 b) { return __hgt(a, b); }
__host__ __device__ static inline bool operator>=(__hip_bfloat16 a, __hip_bfloat16 b) { return __hge(a, b); }
__host__ __device__ static inline __hip_bfloat162 operator+(__hip_bfloat162 a, __hip_bfloat162 b) { return __hadd2(a, b); }
__host__ __device__ static inline __hip_bfloat162 operator-(__hip_bfloat162 a, __hip_bfloat162 b) { return __hsub2(a, b); }
__host__ __device__ static inline __hip_bfloat162 operator*(__hip_bfloat162 a, __hip_bfloat162 b) { return __hmul2(a, b); }
__host__ __device__ static inline __hip_bfloat162 operator/(__hip_bfloat162 a, __hip_bfloat162 b) { return __h2div(a, b); }
__host__ __device__ static inline __hip_bfloat162& operator+=(__hip_bfloat162& a, __hip_bfloat162 b) { return a = __hadd2(a, b); }
__host__ __device__ static inline __hip_bfloat162& operator*=(__hip_bfloat162& a, __hip_bfloat162 b) { return a = __hmul2(a, b); }

// --- math: through float ------------------------------------------------------------------------------------------
#define PORTER_BF16_MATH(name, fn)                                                                             \
    __device__ static inline __hip_bfloat16 name(__hip_bfloat16 a) { return __float2bfloat16(fn(__bfloat162float(a))); }
PORTER_BF16_MATH(hsqrt, sqrtf)
PORTER_BF16_MATH(hrsqrt, rsqrtf)
PORTER_BF16_MATH(hexp, expf)
PORTER_BF16_MATH(hexp2, exp2f)
PORTER_BF16_MATH(hexp10, exp10f)
PORTER_BF16_MATH(hlog, logf)
PORTER_BF16_MATH(hlog2, log2f)
PORTER_BF16_MATH(hlog10, log10f)
PORTER_BF16_MATH(hsin, sinf)
PORTER_BF16_MATH(hcos, cosf)
PORTER_BF16_MATH(hceil, ceilf)
PORTER_BF16_MATH(hfloor, floorf)
PORTER_BF16_MATH(htrunc, truncf)
PORTER_BF16_MATH(hrint, rintf)
#undef PORTER_BF16_MATH
__device__ static inline __hip_bfloat16 hrcp(__hip_bfloat16 a) { return __float2bfloat16(1.0f / __bfloat162float(a)); }

// --- warp shuffles of bfloat16 values, which porter_warp_sync.h's __shfl*_sync forward to (HIP 6.4's own
// __shfl*_sync move any 16-bit type): the 16 bits travel in an int, so the value arrives bit for bit
__device__ static inline __hip_bfloat16 __shfl(__hip_bfloat16 v, int src, int width = warpSize) {
    return __ushort_as_bfloat16(static_cast<unsigned short>(__shfl(static_cast<int>(__bfloat16_as_ushort(v)), src, width)));
}
__device__ static inline __hip_bfloat16 __shfl_up(__hip_bfloat16 v, unsigned int delta, int width = warpSize) {
    return __ushort_as_bfloat16(static_cast<unsigned short>(__shfl_up(static_cast<int>(__bfloat16_as_ushort(v)), delta, width)));
}
__device__ static inline __hip_bfloat16 __shfl_down(__hip_bfloat16 v, unsigned int delta, int width = warpSize) {
    return __ushort_as_bfloat16(static_cast<unsigned short>(__shfl_down(static_cast<int>(__bfloat16_as_ushort(v)), delta, width)));
}
__device__ static inline __hip_bfloat16 __shfl_xor(__hip_bfloat16 v, int mask, int width = warpSize) {
    return __ushort_as_bfloat16(static_cast<unsigned short>(__shfl_xor(static_cast<int>(__bfloat16_as_ushort(v)), mask, width)));
}
__device__ static inline __hip_bfloat162 __shfl(__hip_bfloat162 v, int src, int width = warpSize) {
    return __hip_bfloat162(__shfl(v.x, src, width), __shfl(v.y, src, width));
}
__device__ static inline __hip_bfloat162 __shfl_up(__hip_bfloat162 v, unsigned int delta, int width = warpSize) {
    return __hip_bfloat162(__shfl_up(v.x, delta, width), __shfl_up(v.y, delta, width));
}
__device__ static inline __hip_bfloat162 __shfl_down(__hip_bfloat162 v, unsigned int delta, int width = warpSize) {
    return __hip_bfloat162(__shfl_down(v.x, delta, width), __shfl_down(v.y, delta, width));
}
__device__ static inline __hip_bfloat162 __shfl_xor(__hip_bfloat162 v, int mask, int width = warpSize) {
    return __hip_bfloat162(__shfl_xor(v.x, mask, width), __shfl_xor(v.y, mask, width));
}

// --- atomicAdd, as porter_half_atomics.h has it for HIP's own bfloat16 from 5.7: a compare-and-swap loop on the
// aligned 32-bit word (a pair is atomic as a whole; CUDA promises each half separately)
__device__ static inline __hip_bfloat16 atomicAdd(__hip_bfloat16* address, __hip_bfloat16 val) {
    const uintptr_t at = reinterpret_cast<uintptr_t>(address);
    unsigned int* word = reinterpret_cast<unsigned int*>(at & ~uintptr_t(3));
    const unsigned int shift = (at & 2) ? 16u : 0u;
    unsigned int old = *word, assumed;
    do {
        assumed = old;
        const __hip_bfloat16 sum = __hadd(porter_bf16_make(static_cast<unsigned short>((assumed >> shift) & 0xffffu)), val);
        old = atomicCAS(word, assumed, (assumed & ~(0xffffu << shift)) | (static_cast<unsigned int>(sum.data) << shift));
    } while (old != assumed);
    return porter_bf16_make(static_cast<unsigned short>((old >> shift) & 0xffffu));
}
__device__ static inline __hip_bfloat162 atomicAdd(__hip_bfloat162* address, __hip_bfloat162 val) {
    unsigned int* word = reinterpret_cast<unsigned int*>(address);
    unsigned int old = *word, assumed;
    do {
        assumed = old;
        const __hip_bfloat162 sum = __hadd2(__hip_bfloat162(porter_bf16_make(static_cast<unsigned short>(assumed & 0xffffu)),
                                                            porter_bf16_make(static_cast<unsigned short>(assumed >> 16))),
                                            val);
        old = atomicCAS(word, assumed, static_cast<unsigned int>(sum.x.data) | (static_cast<unsigned int>(sum.y.data) << 16));
    } while (old != assumed);
    return __hip_bfloat162(porter_bf16_make(static_cast<unsigned short>(old & 0xffffu)),
                           porter_bf16_make(static_cast<unsigned short>(old >> 16)));
}

#else
#include <hip/hip_bf16.h>
#endif

// --- cuda_bf16.h conversions no HIP up to 6.4 declares ---------------------------------------------------------
__host__ __device__ static inline __hip_bfloat162 porter_floats2bfloat162_rn(float a, float b) {
    return __hip_bfloat162(__float2bfloat16(a), __float2bfloat16(b));
}
__host__ __device__ static inline __hip_bfloat162 porter_float2bfloat162_rn(float a) {
    return __hip_bfloat162(__float2bfloat16(a), __float2bfloat16(a));
}
__host__ __device__ static inline __hip_bfloat162 porter_make_bfloat162(__hip_bfloat16 x, __hip_bfloat16 y) {
    return __hip_bfloat162(x, y);
}
#if defined(__HIP_PLATFORM_AMD__) && HIP_VERSION < 50700000
__host__ __device__ static inline __hip_bfloat16 porter_float2bfloat16_rz(float f) { return porter_bf16_make(porter_bf16::from_float_rz(f)); }
__host__ __device__ static inline __hip_bfloat16 porter_float2bfloat16_ru(float f) { return porter_bf16_make(porter_bf16::from_float_directed(f, true)); }
__host__ __device__ static inline __hip_bfloat16 porter_float2bfloat16_rd(float f) { return porter_bf16_make(porter_bf16::from_float_directed(f, false)); }
#else
namespace porter_bf16 {
__host__ __device__ static inline unsigned int float_bits(float f) {
    union {
        float f;
        unsigned int u;
    } b;
    b.f = f;
    return b.u;
}
__host__ __device__ static inline __hip_bfloat16 directed(float f, int mode) {  // 0: toward zero, 1: up, -1: down
    const unsigned int u = float_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return __ushort_as_bfloat16(0x7fff);
    unsigned int hi = u >> 16;
    const bool negative = (u >> 31) != 0;
    if (mode != 0 && (u & 0xffffu) != 0 && negative != (mode > 0)) hi += 1;
    return __ushort_as_bfloat16(static_cast<unsigned short>(hi));
}
}  // namespace porter_bf16
__host__ __device__ static inline __hip_bfloat16 porter_float2bfloat16_rz(float f) { return porter_bf16::directed(f, 0); }
__host__ __device__ static inline __hip_bfloat16 porter_float2bfloat16_ru(float f) { return porter_bf16::directed(f, 1); }
__host__ __device__ static inline __hip_bfloat16 porter_float2bfloat16_rd(float f) { return porter_bf16::directed(f, -1); }
#endif
#define __floats2bfloat162_rn porter_floats2bfloat162_rn
#define __float2bfloat162_rn porter_float2bfloat162_rn
#define make_bfloat162 porter_make_bfloat162
#define __float2bfloat16_rz porter_float2bfloat16_rz
#define __float2bfloat16_ru porter_float2bfloat16_ru
#define __float2bfloat16_rd porter_float2bfloat16_rd
