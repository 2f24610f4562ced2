#ifndef NBODY_MATH_H
#define NBODY_MATH_H

#include <vector_types.h>
#include <vector_functions.h>

#ifdef __CUDACC__
#define HD __host__ __device__
#else
#define HD
#endif

inline HD float3 operator+(const float3 &a, const float3 &b) { return make_float3(a.x + b.x, a.y + b.y, a.z + b.z); }
inline HD float3 operator-(const float3 &a, const float3 &b) { return make_float3(a.x - b.x, a.y - b.y, a.z - b.z); }
inline HD float3 operator*(const float3 &a, float s) { return make_float3(a.x * s, a.y * s, a.z * s); }
inline HD float3 &operator+=(float3 &a, const float3 &b) {
  a.x += b.x;
  a.y += b.y;
  a.z += b.z;
  return a;
}

inline HD float4 operator+(const float4 &a, const float4 &b) {
  return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
}
inline HD float4 operator-(const float4 &a, const float4 &b) {
  return make_float4(a.x - b.x, a.y - b.y, a.z - b.z, a.w - b.w);
}
inline HD float4 operator*(const float4 &a, float s) { return make_float4(a.x * s, a.y * s, a.z * s, a.w * s); }
inline HD float4 &operator+=(float4 &a, const float4 &b) {
  a.x += b.x;
  a.y += b.y;
  a.z += b.z;
  a.w += b.w;
  return a;
}
inline HD float4 &operator-=(float4 &a, const float4 &b) {
  a.x -= b.x;
  a.y -= b.y;
  a.z -= b.z;
  a.w -= b.w;
  return a;
}

inline HD float4 make_float4(const float3 &v, float w) { return make_float4(v.x, v.y, v.z, w); }
inline HD float3 make_float3(const float4 &v) { return make_float3(v.x, v.y, v.z); }
inline HD float dot3(const float4 &a, const float4 &b) { return a.x * b.x + a.y * b.y + a.z * b.z; }

#endif
