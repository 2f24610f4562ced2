#pragma once
#include <cuda_runtime.h>

// integer grid helpers
inline __host__ __device__ int3 operator+(int3 a, int3 b) { return make_int3(a.x + b.x, a.y + b.y, a.z + b.z); }
inline __host__ __device__ int3 operator*(int3 a, int s) { return make_int3(a.x * s, a.y * s, a.z * s); }
inline __host__ __device__ uint3 operator+(uint3 a, uint3 b) { return make_uint3(a.x + b.x, a.y + b.y, a.z + b.z); }

inline __host__ __device__ float3 operator+(float3 a, float3 b) { return make_float3(a.x + b.x, a.y + b.y, a.z + b.z); }
inline __host__ __device__ float3 operator-(float3 a, float3 b) { return make_float3(a.x - b.x, a.y - b.y, a.z - b.z); }
inline __host__ __device__ float3 operator*(float3 a, float s) { return make_float3(a.x * s, a.y * s, a.z * s); }
inline __host__ __device__ float3 operator*(float s, float3 a) { return make_float3(a.x * s, a.y * s, a.z * s); }
inline __host__ __device__ void operator+=(float3 &a, float3 b) {
  a.x += b.x;
  a.y += b.y;
  a.z += b.z;
}
inline __host__ __device__ float dot(float3 a, float3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
inline __host__ __device__ float length(float3 a) { return sqrtf(dot(a, a)); }

struct GridSpec {
  float3 origin;
  float cellSize;
  uint3 dims;
};

// Cell of a position, clamped to the grid. umin keeps the unsigned arithmetic of the original sample.
inline __device__ uint3 cellOf(const GridSpec &g, float3 p) {
  float3 rel = (p - g.origin) * (1.0f / g.cellSize);
  uint3 c;
  c.x = umin(static_cast<unsigned>(max(0, __float2int_rd(rel.x))), g.dims.x - 1);
  c.y = umin(static_cast<unsigned>(max(0, __float2int_rd(rel.y))), g.dims.y - 1);
  c.z = umin(static_cast<unsigned>(max(0, __float2int_rd(rel.z))), g.dims.z - 1);
  return c;
}

inline __device__ unsigned cellHash(const GridSpec &g, uint3 c) { return (c.z * g.dims.y + c.y) * g.dims.x + c.x; }
