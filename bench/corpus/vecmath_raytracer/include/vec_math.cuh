// vec_math.cuh - arithmetic for CUDA's built-in vector types.
// The CUDA headers give us the types and make_* constructors but no operators, so here they are.
#ifndef VEC_MATH_CUH
#define VEC_MATH_CUH

#include <cuda_runtime.h>
#include <math.h>

#ifndef __CUDACC__
// host-only builds (plain g++) lack the device intrinsic
inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
#endif

#define VM_HD __host__ __device__ __forceinline__

VM_HD float clampf(float f, float a, float b) { return fmaxf(a, fminf(f, b)); }
VM_HD float lerpf(float a, float b, float t) { return a + t * (b - a); }

// ---- constructors ----------------------------------------------------------------------------------
VM_HD float2 make_float2(float s) { return make_float2(s, s); }
VM_HD float3 make_float3(float s) { return make_float3(s, s, s); }
VM_HD float3 make_float3(float4 a) { return make_float3(a.x, a.y, a.z); }
VM_HD float3 make_float3(int3 a) { return make_float3(float(a.x), float(a.y), float(a.z)); }
VM_HD float4 make_float4(float s) { return make_float4(s, s, s, s); }
VM_HD float4 make_float4(float3 a, float w) { return make_float4(a.x, a.y, a.z, w); }
VM_HD int2 make_int2(int s) { return make_int2(s, s); }

// ---- float2 ------------------------------------------------------------------------------------------
VM_HD float2 operator+(float2 a, float2 b) { return make_float2(a.x + b.x, a.y + b.y); }
VM_HD float2 operator-(float2 a, float2 b) { return make_float2(a.x - b.x, a.y - b.y); }
VM_HD float2 operator*(float2 a, float b) { return make_float2(a.x * b, a.y * b); }
VM_HD float2 operator*(float b, float2 a) { return make_float2(a.x * b, a.y * b); }
VM_HD float2 operator/(float2 a, float b) { return make_float2(a.x / b, a.y / b); }
VM_HD void operator+=(float2 &a, float2 b) { a.x += b.x; a.y += b.y; }
VM_HD float dot(float2 a, float2 b) { return a.x * b.x + a.y * b.y; }

// ---- float3 ------------------------------------------------------------------------------------------
VM_HD float3 operator-(float3 a) { return make_float3(-a.x, -a.y, -a.z); }
VM_HD float3 operator+(float3 a, float3 b) { return make_float3(a.x + b.x, a.y + b.y, a.z + b.z); }
VM_HD float3 operator-(float3 a, float3 b) { return make_float3(a.x - b.x, a.y - b.y, a.z - b.z); }
VM_HD float3 operator*(float3 a, float3 b) { return make_float3(a.x * b.x, a.y * b.y, a.z * b.z); }
VM_HD float3 operator*(float3 a, float s) { return make_float3(a.x * s, a.y * s, a.z * s); }
VM_HD float3 operator*(float s, float3 a) { return make_float3(a.x * s, a.y * s, a.z * s); }
VM_HD float3 operator/(float3 a, float s) { float inv = 1.0f / s; return a * inv; }
VM_HD void operator+=(float3 &a, float3 b) { a.x += b.x; a.y += b.y; a.z += b.z; }
VM_HD void operator-=(float3 &a, float3 b) { a.x -= b.x; a.y -= b.y; a.z -= b.z; }
VM_HD void operator*=(float3 &a, float s) { a.x *= s; a.y *= s; a.z *= s; }
VM_HD void operator*=(float3 &a, float3 b) { a.x *= b.x; a.y *= b.y; a.z *= b.z; }
VM_HD float dot(float3 a, float3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
VM_HD float3 cross(float3 a, float3 b) {
  return make_float3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
VM_HD float length(float3 v) { return sqrtf(dot(v, v)); }
VM_HD float3 normalize(float3 v) { return v * rsqrtf(dot(v, v)); }
VM_HD float3 lerp(float3 a, float3 b, float t) { return a + t * (b - a); }
VM_HD float3 clamp(float3 v, float a, float b) {
  return make_float3(clampf(v.x, a, b), clampf(v.y, a, b), clampf(v.z, a, b));
}
VM_HD float3 fminf(float3 a, float3 b) { return make_float3(fminf(a.x, b.x), fminf(a.y, b.y), fminf(a.z, b.z)); }
VM_HD float3 fmaxf(float3 a, float3 b) { return make_float3(fmaxf(a.x, b.x), fmaxf(a.y, b.y), fmaxf(a.z, b.z)); }
VM_HD float3 reflect(float3 i, float3 n) { return i - 2.0f * n * dot(n, i); }

// ---- float4 ------------------------------------------------------------------------------------------
VM_HD float4 operator+(float4 a, float4 b) { return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w); }
VM_HD float4 operator*(float4 a, float s) { return make_float4(a.x * s, a.y * s, a.z * s, a.w * s); }
VM_HD float4 operator/(float4 a, float s) { return make_float4(a.x / s, a.y / s, a.z / s, a.w / s); }
VM_HD void operator+=(float4 &a, float4 b) { a.x += b.x; a.y += b.y; a.z += b.z; a.w += b.w; }

// ---- int2 --------------------------------------------------------------------------------------------
VM_HD int2 operator+(int2 a, int2 b) { return make_int2(a.x + b.x, a.y + b.y); }
VM_HD int2 operator*(int2 a, int s) { return make_int2(a.x * s, a.y * s); }
VM_HD bool operator==(int2 a, int2 b) { return a.x == b.x && a.y == b.y; }

#endif  // VEC_MATH_CUH
