// Vector helpers written the ways CUDA projects write them (class 3 of the real-code issue): see test_classes_vectors.py
#pragma once
#include <cuda_runtime.h>

#ifdef __CUDACC__
#define HD __host__ __device__
#else
#define HD
#endif
#define FHD __forceinline__ __host__ __device__

typedef float3 vec3;
typedef unsigned int uint;

// A: helper_math style
inline __host__ __device__ float2 operator*(float2 a, float2 b) { return make_float2(a.x * b.x, a.y * b.y); }
inline __host__ __device__ void operator*=(float2 &a, float2 b) { a.x *= b.x; a.y *= b.y; }
inline __host__ __device__ float2 operator/(float2 a, float2 b) { return make_float2(a.x / b.x, a.y / b.y); }
inline __host__ __device__ void operator/=(float2 &a, const float2 &b) { a.x /= b.x; a.y /= b.y; }
inline __host__ __device__ float2 operator*(float2 a, float s) { return make_float2(a.x * s, a.y * s); }
inline __host__ __device__ float2 operator*(float s, float2 a) { return make_float2(a.x * s, a.y * s); }
inline __host__ __device__ float2 operator+(float2 a, float2 b) { return make_float2(a.x + b.x, a.y + b.y); }
inline __host__ __device__ void operator+=(float2 &a, float2 b)
{
    a.x += b.x;
    a.y += b.y;
}

// B: const refs, returning references, the operand order swapped
FHD float3 &operator+=(float3 &a, const float3 &b) { a.x += b.x; a.y += b.y; a.z += b.z; return a; }
FHD float3 &operator-=(float3 &lhs, const float3 &rhs) { lhs.x -= rhs.x; lhs.y -= rhs.y; lhs.z -= rhs.z; return lhs; }
FHD float3 operator*(const float3 &u, const float3 &v) { return make_float3(v.x * u.x, v.y * u.y, v.z * u.z); }
FHD float3 operator+(const float3 &u, const float3 &v) { return make_float3(u.x + v.x, u.y + v.y, u.z + v.z); }

// C: a conditional attribute macro, a temporary, an alias
inline HD vec3 operator/(vec3 a, vec3 b) {
    vec3 r;
    r.x = a.x / b.x;
    r.y = a.y / b.y;
    r.z = a.z / b.z;
    return r;
}
inline HD void operator*=(vec3 &a, vec3 b) { a = a * b; }
inline HD int2 operator*(int2 a, int2 b) { int2 r = a; r.x *= b.x; r.y *= b.y; return r; }
inline HD uint2 operator*(uint2 a, uint2 b) { return {a.x * b.x, a.y * b.y}; }

// D: not what HIP computes: a complex product, a dot product, a scaled sum
inline __host__ __device__ double2 operator*(double2 a, double2 b) { return make_double2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }
inline __host__ __device__ void operator+=(float4 &a, float4 b) { a.x += b.x; a.y += b.y; a.z += b.z; }
inline __host__ __device__ void operator-=(int4 &a, int4 b) { a.x -= b.x; a.y -= b.y; a.z -= b.z; a.w -= 2 * b.w; }

// E: device-only and host-only: no collision
__device__ inline float4 operator*(float4 a, float4 b) { return make_float4(a.x * b.x, a.y * b.y, a.z * b.z, a.w * b.w); }
inline float4 operator/(float4 a, float4 b) { return make_float4(a.x / b.x, a.y / b.y, a.z / b.z, a.w / b.w); }

// F: macros generating them
#define VEC2_ARITH(T)                                                                       \
  inline __host__ __device__ T operator+(T a, T b) { return make_##T(a.x + b.x, a.y + b.y); } \
  inline __host__ __device__ T operator*(T a, T b) { return make_##T(a.x * b.x, a.y * b.y); } \
  inline __host__ __device__ void operator+=(T &a, T b) { a.x += b.x; a.y += b.y; }
VEC2_ARITH(short2)

#define VEC2_WITH_DOT(T, S)                                                                    \
  inline __host__ __device__ void operator-=(T &a, T b) { a.x -= b.x; a.y -= b.y; }            \
  inline __host__ __device__ S dot(T a, T b) { return a.x * b.x + a.y * b.y; }
VEC2_WITH_DOT(uint2, unsigned int)
