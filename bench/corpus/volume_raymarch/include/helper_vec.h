#ifndef HELPER_VEC_H
#define HELPER_VEC_H
#include <cuda_runtime.h>

inline __device__ __host__ float3 operator+(float3 a, float3 b) { return make_float3(a.x + b.x, a.y + b.y, a.z + b.z); }
inline __device__ __host__ float3 operator-(float3 a, float3 b) { return make_float3(a.x - b.x, a.y - b.y, a.z - b.z); }
inline __device__ __host__ float3 operator*(float3 a, float b) { return make_float3(a.x * b, a.y * b, a.z * b); }
inline __device__ __host__ float3 operator*(float b, float3 a) { return make_float3(a.x * b, a.y * b, a.z * b); }
inline __device__ __host__ float3 operator/(float3 a, float3 b) { return make_float3(a.x / b.x, a.y / b.y, a.z / b.z); }
inline __device__ __host__ float4 operator+(float4 a, float4 b) {
  return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
}
inline __device__ __host__ float4 operator*(float4 a, float b) { return make_float4(a.x * b, a.y * b, a.z * b, a.w * b); }
inline __device__ __host__ void operator+=(float4 &a, float4 b) {
  a.x += b.x;
  a.y += b.y;
  a.z += b.z;
  a.w += b.w;
}
inline __device__ __host__ float3 make_float3(float s) { return make_float3(s, s, s); }
inline __device__ __host__ float4 make_float4(float s) { return make_float4(s, s, s, s); }
inline __device__ __host__ float4 make_float4(float3 a, float w) { return make_float4(a.x, a.y, a.z, w); }
inline __device__ __host__ float3 make_float3(float4 a) { return make_float3(a.x, a.y, a.z); }
inline __device__ __host__ float dot(float3 a, float3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
inline __device__ __host__ float3 normalize(float3 v) { return v * (1.0f / sqrtf(dot(v, v))); }
inline __device__ __host__ float3 fminf(float3 a, float3 b) {
  return make_float3(fminf(a.x, b.x), fminf(a.y, b.y), fminf(a.z, b.z));
}
inline __device__ __host__ float3 fmaxf(float3 a, float3 b) {
  return make_float3(fmaxf(a.x, b.x), fmaxf(a.y, b.y), fmaxf(a.z, b.z));
}

// column-major 3x4 matrix: camera to world
struct float3x4 {
  float4 m[3];
};
inline __device__ __host__ float3 mul(const float3x4 &M, float3 v) {
  return make_float3(dot(v, make_float3(M.m[0])), dot(v, make_float3(M.m[1])), dot(v, make_float3(M.m[2])));
}
inline __device__ __host__ float3 mulPoint(const float3x4 &M, float3 v) {
  return mul(M, v) + make_float3(M.m[0].w, M.m[1].w, M.m[2].w);
}
#endif
