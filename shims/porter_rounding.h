// porter shim: CUDA's directed-rounding arithmetic (__fadd_rd/_ru/_rz, __fsub_*, __fmul_*, __fdiv_*, __frcp_*,
// __fsqrt_*, __fmaf_*, and the double __dadd_*, __dsub_*, __dmul_*, __ddiv_*, __drcp_*, __dsqrt_*, __fma_*), and
// exact stand-ins for the round-to-nearest ones HIP spells the same but computes differently.
//
// HIP (checked: ROCm 5.2 and 6.4) declares the _rd/_ru/_rz functions only when OCML_BASIC_ROUNDED_OPERATIONS is
// defined on the command line (clang's HIP headers come before the source), and then calls __ocml_*_rtn/_rtp/_rtz:
// ROCm 5.2's device library has none of them (link error); 6.4's has add, sub, mul and fma (it switches the
// hardware rounding mode), but not div or sqrt. With that macro defined, HIP's declarations win over these.
// HIP's own __fadd_rn, __fsub_rn, __fmul_rn (and the double ones) are plain x + y, x - y, x * y, which the
// compiler may fuse into an fma (CUDA guarantees these intrinsics are never fused), and HIP's __fsqrt_rn is the
// approximate hardware square root; porter renames calls to those to the porter_* functions below.
//
// How this differs from CUDA: in results, it does not, given what it relies on. Each function computes the
// round-to-nearest result with the hardware, then the sign of the exact error (error-free transformations:
// TwoSum, an fma for products and remainders, an exact expansion for fma), and steps one ulp where the requested
// direction needs it; float operations are done exactly in double first. It relies on IEEE round-to-nearest
// double +, -, *, /, sqrt and fma (AMD GPUs' default mode), on denormals not being flushed (HIP's default), and on
// the compiler not reassociating (no -ffast-math / -fassociative-math, and -ffp-contract not forced to `fast`:
// the functions turn contraction off with a pragma, which HIP's default fast-honor-pragmas respects). With
// -fgpu-flush-denormals-to-zero, float results in the subnormal range are flushed, as CUDA's are with -ftz=true.
// Slower than CUDA's single instructions (a few to a few dozen operations each). NaN results are the default NaN.
// The _rd/_ru/_rz wrappers are templates, so a HIP release that declares them itself wins overload resolution.
#ifndef PORTER_ROUNDING_H
#define PORTER_ROUNDING_H

#include <hip/hip_runtime.h>
#include <type_traits>

namespace porter_rounding {

enum class dir { down, up, zero };

__host__ __device__ inline unsigned long long bits(double x) { unsigned long long u; __builtin_memcpy(&u, &x, 8); return u; }
__host__ __device__ inline double from_bits(unsigned long long u) { double x; __builtin_memcpy(&x, &u, 8); return x; }
__host__ __device__ inline unsigned int bits(float x) { unsigned int u; __builtin_memcpy(&u, &x, 4); return u; }
__host__ __device__ inline float from_bits(unsigned int u) { float x; __builtin_memcpy(&x, &u, 4); return x; }

template <typename T> __host__ __device__ inline bool is_nan(T x) { return x != x; }
template <typename T> __host__ __device__ inline bool is_inf(T x) { return x - x != x - x && x == x; }
template <typename T> __host__ __device__ inline bool negative(T x) { return (bits(x) >> (sizeof(T) * 8 - 1)) != 0; }
template <typename T> __host__ __device__ inline T magnitude(T x) { return negative(x) ? -x : x; }
template <typename T> __host__ __device__ inline int sign(T x) { return x > 0 ? 1 : (x < 0 ? -1 : 0); }

// the next representable value up (toward +inf); x is not NaN
template <typename T> __host__ __device__ inline T next_up(T x) {
    if (x > 0 && is_inf(x)) return x;
    if (x == 0) return from_bits(static_cast<decltype(bits(x))>(1));  // the smallest subnormal
    return negative(x) ? from_bits(bits(x) - 1) : from_bits(bits(x) + 1);
}
template <typename T> __host__ __device__ inline T next_down(T x) { return -next_up(-x); }

// y is the round-to-nearest result, s the sign of (exact - y): the result rounded in direction d
template <typename T> __host__ __device__ inline T adjust(T y, int s, dir d) {
    if (s == 0) return y;
    if (d == dir::down) return s < 0 ? next_down(y) : y;
    if (d == dir::up) return s > 0 ? next_up(y) : y;
    if (y > 0 && s < 0) return next_down(y);
    if (y < 0 && s > 0) return next_up(y);
    return y;
}

// an exact zero sum of a and b: +0 in every direction but down, where it is -0 unless both are +0 (IEEE 754 6.3)
template <typename T> __host__ __device__ inline T zero_sum(T a, T b, T y, dir d) {
    if (d != dir::down) return y;
    return (negative(a) || negative(b) || a != 0) ? -T(0) : T(0);
}

// ---- double ----------------------------------------------------------------------------------------------

// y = RN(a + b) exactly plus the returned error (Knuth's TwoSum; exact for finite y)
__host__ __device__ inline double two_sum_error(double a, double b, double y) {
#pragma clang fp contract(off)
    double bb = y - a;
    return (a - (y - bb)) + (b - bb);
}

__host__ __device__ inline double add(double a, double b, dir d) {
#pragma clang fp contract(off)
    double y = a + b;
    if (is_nan(y)) return y;
    if (is_inf(y)) return (is_inf(a) || is_inf(b)) ? y : adjust(y, y > 0 ? -1 : 1, d);
    double e = two_sum_error(a, b, y);
    if (y == 0 && e == 0) return zero_sum(a, b, y, d);
    return adjust(y, sign(e), d);
}

__host__ __device__ inline double mul(double a, double b, dir d) {
#pragma clang fp contract(off)
    double y = a * b;
    if (is_nan(y)) return y;
    if (is_inf(y)) return (is_inf(a) || is_inf(b)) ? y : adjust(y, y > 0 ? -1 : 1, d);
    if (y == 0) return (a == 0 || b == 0) ? y : adjust(y, negative(a) != negative(b) ? -1 : 1, d);
    if (magnitude(y) >= 0x1p-968) return adjust(y, sign(__builtin_fma(a, b, -y)), d);  // the exact error
    // a tiny product: the error's sign, with the smaller factor and the product scaled up by 2^256 (exact)
    double small = magnitude(a) <= magnitude(b) ? a : b, large = magnitude(a) <= magnitude(b) ? b : a;
    return adjust(y, sign(__builtin_fma(small * 0x1p256, large, -(y * 0x1p256))), d);
}

// a = m * 2^e with 0.5 <= |m| < 1 (a finite, nonzero), without the libm call
__host__ __device__ inline double split(double a, int& e) {
    int scale = 0;
    if (magnitude(a) < 0x1p-1000) { a *= 0x1p200; scale = 200; }
    int biased = static_cast<int>((bits(a) >> 52) & 0x7ff);
    e = biased - 1022 - scale;
    return from_bits((bits(a) & ~(0x7ffull << 52)) | (1022ull << 52));
}

// y * 2^e for y nonzero and a result in the normal range
__host__ __device__ inline double scale(double y, int e) {
#pragma clang fp contract(off)
    while (e > 600) { y *= 0x1p600; e -= 600; }
    while (e < -600) { y *= 0x1p-600; e += 600; }
    return y * from_bits(static_cast<unsigned long long>(e + 1023) << 52);
}

__host__ __device__ inline double div(double a, double b, dir d) {
#pragma clang fp contract(off)
    double y = a / b;
    if (is_nan(y)) return y;
    if (is_inf(y)) return (is_inf(a) || b == 0) ? y : adjust(y, y > 0 ? -1 : 1, d);
    if (y == 0) return (a == 0 || is_inf(b)) ? y : adjust(y, negative(a) != negative(b) ? -1 : 1, d);
    // a/b - y has the sign of (ma - my * mb) * sign(b) for a = ma 2^ea, b = mb 2^eb, y = my 2^(ea-eb)
    int ea, eb;
    double ma = split(a, ea), mb = split(b, eb);
    double my = scale(y, eb - ea);
    return adjust(y, sign(__builtin_fma(-my, mb, ma)) * sign(mb), d);
}

__host__ __device__ inline double sqrt_(double a, dir d) {
#pragma clang fp contract(off)
    double y = ::sqrt(a);  // HIP's sqrt(double) is correctly rounded (llvm.sqrt.f64 was not, before LLVM 17)
    if (is_nan(y) || is_inf(y) || y == 0) return y;
    int ea;
    double ma = split(a, ea);
    if (ea & 1) { ma *= 2; ea -= 1; }
    double my = scale(y, -ea / 2);
    return adjust(y, sign(__builtin_fma(-my, my, ma)), d);
}

// the sign of the exact sum of four doubles, through Shewchuk's Grow-Expansion (TwoSum steps, exact)
__host__ __device__ inline int sign_of_sum(double t0, double t1, double t2, double t3) {
#pragma clang fp contract(off)
    double e[4] = {t0, 0, 0, 0};
    int n = 1;
    double next[3] = {t1, t2, t3};
    for (double b : next) {
        double q = b;
        for (int i = 0; i < n; ++i) {
            double s = q + e[i];
            double h = two_sum_error(q, e[i], s);
            e[i] = h;
            q = s;
        }
        e[n++] = q;
    }
    for (int i = n - 1; i >= 0; --i)
        if (e[i] != 0) return sign(e[i]);
    return 0;
}

__host__ __device__ inline double fma_(double a, double b, double c, dir d) {
#pragma clang fp contract(off)
    double y = __builtin_fma(a, b, c);
    if (is_nan(y)) return y;
    if (is_inf(a) || is_inf(b) || is_inf(c)) return y;
    if (a == 0 || b == 0) return add(a * b, c, d);  // the product is a signed zero, exactly
    if (c == 0) return mul(a, b, d);
    if (is_inf(y)) return adjust(y, y > 0 ? -1 : 1, d);
    double p = a * b;
    if (is_inf(p)) {  // scale down by 2^-256: exact (y is finite, so c is as large as the product)
        a *= 0x1p-256; c *= 0x1p-256;
        double ys = y * 0x1p-256;
        p = a * b;
        int s = sign_of_sum(__builtin_fma(a, b, -p), p, c, -ys);
        return (s == 0 && y == 0) ? zero_sum(p, c, y, d) : adjust(y, s, d);
    }
    if (magnitude(p) < 0x1p-968) {  // a product whose error may be below the subnormals
        if (magnitude(c) >= 0x1p-700) return adjust(y, negative(a) != negative(b) ? -1 : 1, d);  // y == c
        double small = magnitude(a) <= magnitude(b) ? a : b, large = magnitude(a) <= magnitude(b) ? b : a;
        small *= 0x1p256; c *= 0x1p256;
        double ys = y * 0x1p256;
        double ps = small * large;
        if (magnitude(ps) < 0x1p-968) return adjust(y, negative(a) != negative(b) ? -1 : 1, d);  // y == c
        int s = sign_of_sum(__builtin_fma(small, large, -ps), ps, c, -ys);
        return (s == 0 && y == 0) ? zero_sum(ps, c, y, d) : adjust(y, s, d);
    }
    int s = sign_of_sum(__builtin_fma(a, b, -p), p, c, -y);
    return (s == 0 && y == 0) ? zero_sum(p, c, y, d) : adjust(y, s, d);
}

// ---- float, exactly in double -------------------------------------------------------------------------------

// the exact value is x + (an error of sign s, below half an ulp of x in double): rounded to float in direction d
__host__ __device__ inline float to_float(double x, int s, dir d) {
#pragma clang fp contract(off)
    float f = static_cast<float>(x);
    if (is_nan(x) || is_inf(x)) return f;
    if (is_inf(f)) return adjust(f, f > 0 ? -1 : 1, d);
    double diff = x - static_cast<double>(f);  // exact
    return adjust(f, diff != 0 ? sign(diff) : s, d);
}

__host__ __device__ inline float addf(float a, float b, dir d) {
#pragma clang fp contract(off)
    double x = static_cast<double>(a) + static_cast<double>(b);
    if (is_nan(x) || is_inf(x)) return static_cast<float>(x);
    double e = two_sum_error(a, b, x);
    if (x == 0 && e == 0) return zero_sum(a, b, static_cast<float>(x), d);
    return to_float(x, sign(e), d);
}

__host__ __device__ inline float mulf(float a, float b, dir d) {
#pragma clang fp contract(off)
    return to_float(static_cast<double>(a) * static_cast<double>(b), 0, d);  // exact in double
}

__host__ __device__ inline float divf(float a, float b, dir d) {
#pragma clang fp contract(off)
    double x = static_cast<double>(a) / static_cast<double>(b);
    if (is_nan(x) || is_inf(x) || x == 0) return static_cast<float>(x);  // exact: no underflow in double
    double r = __builtin_fma(-x, static_cast<double>(b), static_cast<double>(a));  // the exact remainder
    return to_float(x, sign(r) * sign(b), d);
}

__host__ __device__ inline float sqrtf_(float a, dir d) {
#pragma clang fp contract(off)
    double x = ::sqrt(static_cast<double>(a));
    if (is_nan(x) || is_inf(x) || x == 0) return static_cast<float>(x);
    return to_float(x, sign(__builtin_fma(-x, x, static_cast<double>(a))), d);
}

__host__ __device__ inline float fmaf_(float a, float b, float c, dir d) {
#pragma clang fp contract(off)
    double p = static_cast<double>(a) * static_cast<double>(b);  // exact
    double x = p + static_cast<double>(c);
    if (is_nan(x) || is_inf(x)) return static_cast<float>(x);
    double e = two_sum_error(p, c, x);
    if (x == 0 && e == 0) return static_cast<float>(zero_sum(p, static_cast<double>(c), x, d));
    return to_float(x, sign(e), d);
}

template <typename T, typename U> using only = typename std::enable_if<std::is_same<T, U>::value, int>::type;
template <typename T> struct same { using type = T; };

}  // namespace porter_rounding

// CUDA's names. Round-to-nearest (_rn) results come from double, which is exact for float +, -, *, /, sqrt.
__device__ inline float porter_fadd_rn(float a, float b) {
#pragma clang fp contract(off)
    return a + b;
}
__device__ inline float porter_fsub_rn(float a, float b) {
#pragma clang fp contract(off)
    return a - b;
}
__device__ inline float porter_fmul_rn(float a, float b) {
#pragma clang fp contract(off)
    return a * b;
}
__device__ inline double porter_dadd_rn(double a, double b) {
#pragma clang fp contract(off)
    return a + b;
}
__device__ inline double porter_dsub_rn(double a, double b) {
#pragma clang fp contract(off)
    return a - b;
}
__device__ inline double porter_dmul_rn(double a, double b) {
#pragma clang fp contract(off)
    return a * b;
}
__device__ inline float porter_fsqrt_rn(float a) { return static_cast<float>(::sqrt(static_cast<double>(a))); }

#if !defined(OCML_BASIC_ROUNDED_OPERATIONS)
#define PORTER_ROUNDED(T, NAME, IMPL, D)                                                                        \
    template <typename U = T, porter_rounding::only<U, T> = 0>                                                  \
    __device__ inline T NAME(typename porter_rounding::same<U>::type a, typename porter_rounding::same<U>::type b) { \
        return porter_rounding::IMPL(a, b, porter_rounding::dir::D);                                           \
    }
#define PORTER_ROUNDED_SUB(T, NAME, IMPL, D)                                                                    \
    template <typename U = T, porter_rounding::only<U, T> = 0>                                                  \
    __device__ inline T NAME(typename porter_rounding::same<U>::type a, typename porter_rounding::same<U>::type b) { \
        return porter_rounding::IMPL(a, -b, porter_rounding::dir::D);                                          \
    }
#define PORTER_ROUNDED_1(T, NAME, IMPL, D)                                                                      \
    template <typename U = T, porter_rounding::only<U, T> = 0>                                                  \
    __device__ inline T NAME(typename porter_rounding::same<U>::type a) {                                       \
        return porter_rounding::IMPL(a, porter_rounding::dir::D);                                              \
    }
#define PORTER_ROUNDED_RCP(T, NAME, IMPL, D)                                                                    \
    template <typename U = T, porter_rounding::only<U, T> = 0>                                                  \
    __device__ inline T NAME(typename porter_rounding::same<U>::type a) {                                       \
        return porter_rounding::IMPL(T(1), a, porter_rounding::dir::D);                                        \
    }
#define PORTER_ROUNDED_3(T, NAME, IMPL, D)                                                                      \
    template <typename U = T, porter_rounding::only<U, T> = 0>                                                  \
    __device__ inline T NAME(typename porter_rounding::same<U>::type a, typename porter_rounding::same<U>::type b, \
                             typename porter_rounding::same<U>::type c) {                                       \
        return porter_rounding::IMPL(a, b, c, porter_rounding::dir::D);                                        \
    }
#define PORTER_ROUNDED_ALL(SUFFIX, D)                                                                           \
    PORTER_ROUNDED(float, __fadd_##SUFFIX, addf, D)                                                             \
    PORTER_ROUNDED_SUB(float, __fsub_##SUFFIX, addf, D)                                                         \
    PORTER_ROUNDED(float, __fmul_##SUFFIX, mulf, D)                                                             \
    PORTER_ROUNDED(float, __fdiv_##SUFFIX, divf, D)                                                             \
    PORTER_ROUNDED_RCP(float, __frcp_##SUFFIX, divf, D)                                                         \
    PORTER_ROUNDED_1(float, __fsqrt_##SUFFIX, sqrtf_, D)                                                        \
    PORTER_ROUNDED_3(float, __fmaf_##SUFFIX, fmaf_, D)                                                          \
    PORTER_ROUNDED(double, __dadd_##SUFFIX, add, D)                                                             \
    PORTER_ROUNDED_SUB(double, __dsub_##SUFFIX, add, D)                                                         \
    PORTER_ROUNDED(double, __dmul_##SUFFIX, mul, D)                                                             \
    PORTER_ROUNDED(double, __ddiv_##SUFFIX, div, D)                                                             \
    PORTER_ROUNDED_RCP(double, __drcp_##SUFFIX, div, D)                                                         \
    PORTER_ROUNDED_1(double, __dsqrt_##SUFFIX, sqrt_, D)                                                        \
    PORTER_ROUNDED_3(double, __fma_##SUFFIX, fma_, D)
PORTER_ROUNDED_ALL(rd, down)
PORTER_ROUNDED_ALL(ru, up)
PORTER_ROUNDED_ALL(rz, zero)
#undef PORTER_ROUNDED
#undef PORTER_ROUNDED_SUB
#undef PORTER_ROUNDED_1
#undef PORTER_ROUNDED_RCP
#undef PORTER_ROUNDED_3
#undef PORTER_ROUNDED_ALL
#endif  // !OCML_BASIC_ROUNDED_OPERATIONS

#endif  // PORTER_ROUNDING_H
