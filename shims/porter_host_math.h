// porter shim: host versions of CUDA math functions that HIP declares for the device only.
// CUDA declares rsqrtf, rcbrtf, normcdff, erfcxf, rhypotf, norm3df... as __host__ __device__; HIP's (clang's
// __clang_hip_math.h) are __device__, so a __host__ __device__ helper that calls one fails when compiled for the
// host ("reference to __device__ function 'rsqrtf' in __host__ __device__ function"). These host overloads sit
// beside HIP's device ones (clang overloads on __host__/__device__); device code still calls HIP's.
// How they differ from CUDA: they are computed from <cmath> (rsqrtf as 1/sqrtf...), so the last bits may differ
// from CUDA's host implementations; C23's rsqrt, sinpi and cospi come from the C library where it has them
// (glibc 2.42 and 2.41), so they are only defined here for older C libraries.
#pragma once
#include <cmath>
#include <hip/hip_runtime.h>

#if !defined(__GLIBC__) || !__GLIBC_PREREQ(2, 42)
static __host__ inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
static __host__ inline double rsqrt(double x) { return 1.0 / std::sqrt(x); }
#endif
#if !defined(__GLIBC__) || !__GLIBC_PREREQ(2, 41)
// reduce to [-1, 1] first so that integers give exact zeros, as sinpi/cospi promise
static __host__ inline double sinpi(double x) { return std::sin(M_PI * std::remainder(x, 2.0)); }
static __host__ inline double cospi(double x) { return std::cos(M_PI * std::remainder(x, 2.0)); }
static __host__ inline float sinpif(float x) { return static_cast<float>(sinpi(x)); }
static __host__ inline float cospif(float x) { return static_cast<float>(cospi(x)); }
#endif
static __host__ inline float rcbrtf(float x) { return 1.0f / std::cbrt(x); }
static __host__ inline double rcbrt(double x) { return 1.0 / std::cbrt(x); }
static __host__ inline float normcdff(float x) { return 0.5f * std::erfc(-x * 0.70710678118654752f); }
static __host__ inline double normcdf(double x) { return 0.5 * std::erfc(-x * 0.70710678118654752440); }
static __host__ inline float erfcxf(float x) { return static_cast<float>(std::exp(double(x) * x) * std::erfc(double(x))); }
static __host__ inline double erfcx(double x) { return std::exp(x * x) * std::erfc(x); }
static __host__ inline float rhypotf(float x, float y) { return 1.0f / std::hypot(x, y); }
static __host__ inline double rhypot(double x, double y) { return 1.0 / std::hypot(x, y); }
namespace porter_host_math {
static inline double norm3(double a, double b, double c) {  // scaled, so that no square overflows (as CUDA's)
    const double m = std::fmax(std::fabs(a), std::fmax(std::fabs(b), std::fabs(c)));
    if (m == 0.0 || std::isinf(m)) return m;
    a /= m, b /= m, c /= m;
    return m * std::sqrt(a * a + b * b + c * c);
}
}  // namespace porter_host_math
static __host__ inline float norm3df(float a, float b, float c) { return static_cast<float>(porter_host_math::norm3(a, b, c)); }
static __host__ inline double norm3d(double a, double b, double c) { return porter_host_math::norm3(a, b, c); }
static __host__ inline float rnorm3df(float a, float b, float c) { return static_cast<float>(1.0 / porter_host_math::norm3(a, b, c)); }
static __host__ inline double rnorm3d(double a, double b, double c) { return 1.0 / porter_host_math::norm3(a, b, c); }
static __host__ inline float fdividef(float x, float y) { return x / y; }
// The classification functions: CUDA's math headers declare ::isfinite/::isnan/::isinf/::signbit for the host, so
// host code may call them unqualified after <cmath> alone; HIP's global ones are __device__ ("no matching function
// for call to 'isfinite'" in a host function). These forward to <cmath>'s, with the same results.
static __host__ inline bool isfinite(float x) { return std::isfinite(x); }
static __host__ inline bool isfinite(double x) { return std::isfinite(x); }
static __host__ inline bool isnan(float x) { return std::isnan(x); }
static __host__ inline bool isnan(double x) { return std::isnan(x); }
static __host__ inline bool isinf(float x) { return std::isinf(x); }
static __host__ inline bool isinf(double x) { return std::isinf(x); }
static __host__ inline bool signbit(float x) { return std::signbit(x); }
static __host__ inline bool signbit(double x) { return std::signbit(x); }
